"""Preconditioner setups in the benchmark (the ``setup`` section of a config, issue 27): how long a
preconditioner takes to build at 1xT against Tx1, and where the time of its setup goes.

Worker side (``measure_setup``), in the layout job, for one matrix: for every method of the section
(KSP type, PC type and options on one rank; ``pc_parallel``/``options_parallel`` on several, e.g.
block Jacobi + ILU where one rank runs ILU) and every measured variant (``variants``: the labels a
method is restricted to; aij, PETSc's own kernels, runs only on groups of one thread per rank), rounds
of: a new KSP on the variant's matrix (vectors from MatCreateVecs: hybrid for aijhybrid), KSPSetUp +
KSPSetUpOnBlocks timed between barriers (PCSetUp, with PCBJACOBI's block factorizations), then one
KSPSolve from x = 0 timed (a method's ``setup_repeats`` setups more without solves, for the short
ones, ILU's: after the method's timed runs of the round, in passes that interleave its variants setup
by setup; the round's setup time is the median of its setups, ``setup_first_s`` the first);
PETSc's event times of each phase from the combination's own log stage as
differences (the slowest rank's per event; nested events are inclusive). In a paired job (a threaded
layout with its pure-MPI baseline in the same job, aijhybrid_bench.job) the baseline's combinations
('aij@2x1') run in the same rounds on their group of ranks, the others waiting. The combinations
run method by method within a round (model.grouped_round_order: the methods and each method's variants
in model.round_order's order, every pair in both orders every two rounds), each method opened by an
untimed setup of its first variant, so that every timed setup follows one of its own method (an ILU
setup right after a GAMG run took 2-4x as long, in records whose runs also kept every GAMG hierarchy
allocated, so the cause is not pinned down); each round records
the run just before it, ``after``. ``warmup_rounds`` rounds are not recorded (they pay the one-time
costs: the fine matrix's halo exchange, first-touch pages). Medians over the rounds.

Report side: ``flatten_setup`` gives one row per (matrix, method, layout job, variant) with ratios
against aij at R x 1 (R = the cores: from the same jobs where the run has it, each job's ratio of
medians, the median over jobs) and against the same variant at 1x1 (other jobs: shown, not judged);
``setup_table`` prints the table that answers "how long does my preconditioner take to build at 1xT
vs Tx1?", ``events_table`` the events above a share of PCSetUp, ``setup_targets`` issue 27's
targets, ``problems`` the failed or unconverged setups (aijhybrid_bench.checks).

No PETSc is imported here: the worker passes its modules in.
"""

from . import model
from .variants import option_pairs

# the events of a setup and its solve that are recorded (PETSc 3.18 to 3.26 names, exactly as
# registered: GAMG's phases have leading spaces, their nesting in -log_view; the record names them
# without; an event a PETSc does not have is never counted, so it is left out of the record)
EVENTS = ("KSPSetUp", "PCSetUp", "PCSetUpOnBlocks", "KSPSolve", "PCApply", "MatMult", "MatMultAdd", "MatMultTranspose", "MatResidual", "MatSOR",
          "MatSolve", "MatPtAP", "MatPtAPSymbolic", "MatPtAPNumeric", "MatMatMult", "MatMatMultSym", "MatMatMultNum", "MatTrnMatMult",
          "MatTrnMatMultSym", "MatTrnMatMultNum", "MatTransposeMatMult", "MatTranspose", "MatGetSymTransR", "MatProductSymbolic", "MatProductNumeric",
          "MatAXPY", "MatAYPX", "MatScale", "MatDiagonalScale", "MatGetDiagonal", "MatCoarsen", "MatCreateGraph", "MatFilter", "MatEliminateZeros",
          "MatConvert", "MatDuplicate", "MatCopy", "MatAssemblyBegin", "MatAssemblyEnd", "MatSetValues", "MatGetRow", "MatGetRowIJ",
          "MatCreateSubMats", "MatCreateSubMat", "MatGetOrdering", "MatILUFactorSym", "MatLUFactorSym", "MatLUFactorNum", "MatICCFactorSym",
          "MatCholFctrSym", "MatCholFctrNum", "MatZeroEntries", "MatGetLocalMat", "MatGetBrAoCol", "MatGetBrowsOfAcols", "MatGetLocalMatCondensed",
          "VecScatterBegin", "VecScatterEnd", "VecSet", "VecCopy", "VecNorm", "VecPointwiseMult", "VecSetRandom", "VecMDot", "VecMAXPY",
          "VecScale", "VecAXPY", "VecAYPX", "VecAXPBYCZ", "VecWAXPY", "VecNormalize", "VecTDot", "VecDot", "KSPGMRESOrthog", "KSPGMRESBuildSoln", "BuildTwoSided", "BuildTwoSidedF", "SFSetGraph", "SFSetUp", "SFBcastBegin", "SFBcastEnd", "SFReduceBegin",
          "SFReduceEnd", "PCSetUp_GAMG+", " PCGAMGCreateG", " GAMG Coarsen", "  GAMG MIS/Agg", " PCGAMGProl", "  GAMG Prol-col", "  GAMG Prol-lift",
          " PCGAMGOptProl", "  GAMG smooth", " PCGAMGCreateL", "  GAMG PtAP", "  GAMG Reduce", "   GAMG Repart", "   GAMG Inv-Srt", "   GAMG Move A",
          "   GAMG Move P", " PCGAMGSquareG", "PCGAMGGraph_AGG", "PCGAMGCoarse_AGG", "PCGAMGProl_AGG", "PCGAMGPOpt_AGG", "PCGAMG Squ l00",
          "PCGAMG Gal l00", "PCGAMG Opt l00", "PCGAMG Gal l01", "PCGAMG Opt l01", "PCGAMG Gal l02", "PCGAMG Opt l02", "PCGAMG Gal l03",
          "PCGAMG Opt l03", "KSPSolve_EST", "AIJHybPartition", "AIJHybHaloSetUp", "AIJHybLevels", "AIJHybCMRCM",
          "AIJHybNumPlan", "AIJHybCoarsen", "AIJHybSpGEMMSym", "AIJHybSpGEMMNum", "AIJHybProdTransp", "AIJHybSOR")
# the events that hold other events of the list (their shares are inclusive; the table of the
# events names the leaves beside them)
CONTAINERS = ("KSPSetUp", "PCSetUp", "PCSetUpOnBlocks", "KSPSolve", "PCSetUp_GAMG+", "PCGAMGCreateG", "GAMG Coarsen", "PCGAMGProl", "PCGAMGOptProl",
              "PCGAMGCreateL", "GAMG PtAP", "GAMG smooth", "MatPtAP", "MatMatMult", "MatTrnMatMult", "MatTransposeMatMult", "PCGAMGGraph_AGG",
              "PCGAMGCoarse_AGG", "PCGAMGProl_AGG", "PCGAMGPOpt_AGG", "MatProductSymbolic", "MatProductNumeric", "KSPSolve_EST",
              "PCGAMG Squ l00", "GAMG MIS/Agg", "MatCoarsen", "MatLUFactorNum", "MatCholFctrNum", "KSPGMRESOrthog", "VecNormalize") + tuple("PCGAMG %s l%02d" % (k, lev) for k in ("Gal", "Opt") for lev in range(4))
# the events that hold the plugin's own events where those ran (aijhybrid's products and transposes: their
# shares are then inclusive), leaves otherwise (PETSc's aij)
HOLDS = {"MatPtAPSymbolic": ("AIJHybSpGEMMSym",), "MatMatMultSym": ("AIJHybSpGEMMSym",), "MatTrnMatMultSym": ("AIJHybSpGEMMSym",),
         "MatPtAPNumeric": ("AIJHybSpGEMMNum",), "MatMatMultNum": ("AIJHybSpGEMMNum",), "MatTrnMatMultNum": ("AIJHybSpGEMMNum",),
         "MatTranspose": ("AIJHybProdTransp",)}
DEFAULT_METHODS = [
    {"label": "cg+gamg", "ksp": "cg", "pc": "gamg"},
    {"label": "gmres+ilu0", "ksp": "gmres", "pc": "ilu", "pc_parallel": "bjacobi", "options_parallel": "-sub_pc_type ilu", "setup_repeats": 12},
]
# the events that are the setup itself (their share is ~100%)
OWN_SETUP = ("KSPSetUp", "PCSetUp", "PCSetUp_GAMG+")
SHARE_MIN = 0.03  # the events table: events above this share of PCSetUp


def _median(v):
    return model.median(v) if v else None


def _snapshot(PETSc, stage_id, names):
    out = {}
    for name in names:
        try:
            pi = PETSc.Log.Event(name).getPerfInfo(stage_id)
        except Exception:  # an event this petsc4py cannot read
            continue
        out[name.strip()] = (pi["time"], pi["count"])
    return out


def _delta(comm, before, after):
    """{event: {time_max_s, count}} of the events that ran between two snapshots (slowest rank's time;
    the count of this rank)"""
    mine = {k: (after[k][0] - before.get(k, (0.0, 0))[0], after[k][1] - before.get(k, (0.0, 0))[1]) for k in after}
    mine = {k: v for k, v in mine.items() if v[1] > 0}
    everyone = comm.allgather({k: v[0] for k, v in mine.items()})
    names = set()
    for e in everyone:
        names |= set(e)
    return {k: {"time_max_s": max(e.get(k, 0.0) for e in everyone), "count": mine.get(k, (0.0, 0))[1]} for k in sorted(names)}


def combinations(variants, cfg, equivalents=None):
    """[(method, variant, label recorded)] the setups run: every method with every variant it is not
    restricted from (method "variants": labels; a same-job baseline 'aij@2x1' is listed as 'aij'; a
    listed variant measured as running the code of another, equivalents, runs through that one under
    its own label); a variant of PETSc's own type runs only where its group has one thread per rank
    (at 1 x T it would be a 1x1 run with idle cores)."""
    out = []
    for m in cfg.get("methods") or DEFAULT_METHODS:
        for v in variants:
            if "aijhybrid" not in v.spec["type"] and v.group.threads > 1:
                continue
            labels = [v.label] + list((equivalents or {}).get(v.label, []))
            named = lambda l: v.spec.get("paired_of") or l  # noqa: E731
            wanted = [l for l in labels if named(l) in m["variants"]] if m.get("variants") else [v.label]
            if wanted:
                out.append((m, v, wanted[0]))
    return out


class _Combo:
    def __init__(self, method, variant, label, index):
        self.method, self.v = method, variant
        self.prefix = "bsu%d_" % index
        self.stage = None
        self.rec = {"variant": label, "type": variant.spec["type"], "options": variant.spec.get("options", ""), "method": method["label"],
                    "ksp": method["ksp"], "status": "ok", "ranks": variant.group.ranks, "threads": variant.group.threads, "rounds": []}
        if variant.spec.get("paired_of"):
            self.rec["paired_of"] = variant.spec["paired_of"]
        if method.get("opt_in"):  # options of the plugin's a user must ask for: shown against the baseline method's aij, never a default target
            self.rec.update(opt_in=True, baseline_method=method.get("baseline_method", method["label"]))
        if label != variant.label:
            self.rec["measured_as"] = variant.label


def _pc_type(m, parallel):
    return m.get("pc_parallel", m["pc"]) if parallel else m["pc"]


def _one(PETSc, MPI, comm, c, cfg, parallel, solve=True):
    """One setup and solve of the combination c: its round's record (the setup only without solve)"""
    A, m = c.v.A, c.method
    x, b = A.createVecs()
    b.setArray(c.v.b.getArray(readonly=True))
    x.set(0.0)
    ksp = PETSc.KSP().create(comm=A.getComm())
    ksp.setOptionsPrefix(c.prefix)
    ksp.setOperators(A)
    ksp.setType(m["ksp"])
    ksp.getPC().setType(_pc_type(m, parallel))
    ksp.setTolerances(rtol=m.get("rtol", cfg.get("rtol", 1e-8)), max_it=m.get("max_it", cfg.get("max_it", 2000)))
    pairs = option_pairs(m.get("options", "")) + (option_pairs(m.get("options_parallel", "")) if parallel else [])
    opts = PETSc.Options()
    for k, val in pairs:
        opts.setValue(c.prefix + k, "" if val is None else val)
    ksp.setFromOptions()
    c.stage.push()
    s0 = _snapshot(PETSc, c.stage.id, EVENTS)
    comm.Barrier()
    t0 = MPI.Wtime()
    ksp.setUp()
    ksp.setUpOnBlocks()
    comm.Barrier()
    t1 = MPI.Wtime()
    s1 = _snapshot(PETSc, c.stage.id, EVENTS)
    if solve:
        ksp.solve(b, x)
    comm.Barrier()
    t2 = MPI.Wtime()
    s2 = _snapshot(PETSc, c.stage.id, EVENTS)
    c.stage.pop()
    out = {"setup_s": t1 - t0, "solve_s": t2 - t1, "iterations": ksp.getIterationNumber(), "reason": int(ksp.getConvergedReason()),
           "setup_events": _delta(comm, s0, s1), "solve_events": _delta(comm, s1, s2)}
    if _pc_type(m, parallel) == "gamg":
        pc = ksp.getPC()
        out["levels"] = pc.getMGLevels()
        out["level_types"] = [pc.getMGSmoother(lev).getOperators()[0].getType() for lev in range(pc.getMGLevels())]
        del pc  # before the KSP: a PC wrapper that outlives its KSP is freed into petsc4py's garbage, not destroyed
    for o in (ksp, x, b):
        o.destroy()
    if hasattr(PETSc, "garbage_cleanup"):  # whatever else went there (collective: the group runs this together)
        PETSc.garbage_cleanup(comm)
    for k, _ in pairs:  # after the setup: some are read there (PETSc 3.18's PCGAMG makes its coarsener in the setup)
        opts.delValue(c.prefix + k)
    return out


def measure_setup(PETSc, MPI, world, variants, cfg, log, run_on=None, equivalents=None):
    """The records of every (method, variant) combination (see the module doc). variants: the job's
    measured variants, the same list on every rank (each with its group; v.A and v.b where this rank
    is in the group); world: every rank of the job; run_on(group, fn): fn on the group's ranks, the
    others waiting (aijhybrid_bench.job.Job.run_on); equivalents: label of a measured variant -> the
    labels of the variants measured as running its code (see combinations)."""
    run_on = run_on or (lambda group, fn: fn())
    combos = [_Combo(m, v, label, i) for i, (m, v, label) in enumerate(combinations(variants, cfg, equivalents))]
    for c in combos:  # registered in the same order on every rank
        c.stage = PETSc.Log.Stage("setup_" + c.prefix)
    rounds, warm = int(cfg.get("rounds", 3)), int(cfg.get("warmup_rounds", 1))
    after = None  # the run just before (recorded with each round: an effect of the one before shows)

    def failed(c, e):  # a method this PETSc or type cannot run
        c.rec.update(status="error", reason="%s: %s" % (type(e).__name__, e))

    for r in range(-warm, rounds):
        order = model.grouped_round_order([c.rec["method"] for c in combos], r)
        for pos, (i, timed) in enumerate(order):
            c = combos[i]

            def one(c=c, r=r, after=after, timed=timed):
                if c.rec["status"] != "ok":
                    return
                try:
                    rec = _one(PETSc, MPI, c.v.group.comm, c, cfg, c.v.group.size > 1, solve=timed)
                except Exception as e:
                    return failed(c, e)
                if r >= 0 and timed:
                    c.rec["rounds"].append(dict(rec, after=after, setup_first_s=rec["setup_s"], setup_repeats_s=[]))

            run_on(c.v.group, one)
            after = "%s / %s%s" % (c.rec["method"], c.rec["variant"], "" if timed else " (untimed setup)")
            last_of_method = pos + 1 == len(order) or combos[order[pos + 1][0]].rec["method"] != c.rec["method"]
            repeats = int(c.method.get("setup_repeats", 0))
            if r >= 0 and last_of_method and repeats:
                # a short setup (ILU: 0.1-0.3 s, two modes on some machines that last longer than one
                # setup) gets more samples: the method's setup_repeats setups more of each variant, without
                # solves, interleaved variant by variant (model.round_order of the pass), so that the
                # variants draw from the same periods; the round's setup is the median of its setups
                members = [k for k, t in order if t and combos[k].rec["method"] == c.rec["method"]]
                for j in range(repeats):
                    for k in model.round_order(members, j):
                        ck = combos[k]

                        def again(ck=ck):
                            if ck.rec["status"] != "ok" or not ck.rec["rounds"]:
                                return
                            try:
                                ck.rec["rounds"][-1]["setup_repeats_s"].append(_one(PETSc, MPI, ck.v.group.comm, ck, cfg, ck.v.group.size > 1, solve=False)["setup_s"])
                            except Exception as e:
                                return failed(ck, e)

                        run_on(ck.v.group, again)
                for k in members:
                    x = combos[k].rec["rounds"][-1] if combos[k].rec["rounds"] else None
                    if x is not None and combos[k].rec["status"] == "ok":
                        x["setup_s"] = _median([x["setup_first_s"]] + x["setup_repeats_s"])
                after = "%s (setup repeats)" % c.rec["method"]
        log("  setups: round %d/%d" % (r + 1, rounds) if r >= 0 else "  setups: warm-up round")
    for c in combos:
        summarize(c.rec)
    return [c.rec for c in combos]


def summarize(rec):
    """Medians of a combination's rounds: setup, solve and their sum, each event per phase."""
    s = rec.get("rounds") or []
    if not s:
        return
    rec["setup_s"] = _median([x["setup_s"] for x in s])
    rec["solve_s"] = _median([x["solve_s"] for x in s])
    rec["total_s"] = _median([x["setup_s"] + x["solve_s"] for x in s])
    rec["iterations"] = s[0]["iterations"]
    rec["converged"] = all(x["reason"] > 0 for x in s)
    for key in ("levels", "level_types"):
        if key in s[0]:
            rec[key] = s[0][key]
    for phase in ("setup_events", "solve_events"):
        names = set()
        for x in s:
            names |= set(x[phase])
        rec[phase + "_s"] = {n: _median([x[phase].get(n, {}).get("time_max_s", 0.0) for x in s]) for n in sorted(names)}
        rec[phase + "_count"] = {n: s[0][phase].get(n, {}).get("count", 0) for n in sorted(names)}


# ---- report side (pure Python) ------------------------------------------------------------------------


def flatten_setup(jobs):
    """One row per (matrix, rows, method, layout job, variant): the rounds of every job of the layout
    (layout_rounds > 1) merged, medians; each job's own medians kept for the same-job ratios."""
    by, order = {}, []
    for ji, job in enumerate(jobs):
        for case in job.get("cases", []):
            for rec in case.get("setup") or []:
                key = (case.get("label"), case.get("rows"), rec["method"], job["layout"], rec["variant"])
                if key not in by:
                    ranks, threads = rec.get("ranks", job["ranks"]), rec.get("threads", job["threads"])
                    by[key] = {"matrix": case.get("label"), "rows": case.get("rows"), "method": rec["method"], "layout": job["layout"],
                               "ranks": ranks, "threads": threads, "cores": ranks * threads, "variant": rec["variant"], "type": rec["type"],
                               "options": rec.get("options", ""), "paired_of": rec.get("paired_of"), "status": "ok", "reason": None,
                               "opt_in": bool(rec.get("opt_in")), "baseline_method": rec.get("baseline_method", rec["method"]), "rounds": [], "jobs": {}}
                    order.append(key)
                row = by[key]
                if rec.get("status") != "ok":
                    row.update(status=rec.get("status"), reason=rec.get("reason"))
                if rec.get("rounds"):
                    row["rounds"].extend(rec["rounds"])
                    row["jobs"][ji] = {w: _median([x[w] for x in rec["rounds"]]) for w in ("setup_s", "solve_s")}
                    row["jobs"][ji]["total_s"] = _median([x["setup_s"] + x["solve_s"] for x in rec["rounds"]])
    rows = []
    for key in order:
        row = by[key]
        rec = {"rounds": row.pop("rounds")}
        summarize(rec)
        row.update({k: rec.get(k) for k in ("setup_s", "solve_s", "total_s", "iterations", "converged", "levels", "level_types")})
        ev = rec.get("setup_events_s") or {}
        row["pcsetup_s"] = ev.get("PCSetUp")
        row["setup_events_s"] = ev
        row["setup_events_count"] = rec.get("setup_events_count") or {}
        row["solve_events_s"] = rec.get("solve_events_s") or {}
        base = row["pcsetup_s"] or row["setup_s"]
        row["shares"] = {n: v / base for n, v in ev.items()} if base else {}
        row["samples"] = len(rec["rounds"])
        row["setup_samples_s"] = [x["setup_s"] for x in rec["rounds"]]  # per round: the median of its setups
        row["setup_all_samples_s"] = [t for x in rec["rounds"] for t in [x.get("setup_first_s", x["setup_s"])] + x.get("setup_repeats_s", [])]
        row["solve_samples_s"] = [x["solve_s"] for x in rec["rounds"]]
        row["default"] = "aijhybrid" in row["type"] and not (row["options"] or "").strip() and not row["paired_of"] and not row["opt_in"]
        rows.append(row)
    _ratios(rows)
    return rows


def _job_ratio(ref, row, what):
    """The median over the jobs both rows were measured in of ref's median / row's median."""
    rs = [ref["jobs"][j][what] / row["jobs"][j][what] for j in row["jobs"] if j in ref["jobs"] and ref["jobs"][j][what] and row["jobs"][j][what]]
    return _median(rs)


def _ratios(rows):
    """vs_aij_<what>: aij at R x 1 (R = the row's cores) over this row (> 1: faster), from the same
    jobs where the run has it (a paired job's 'aij@Rx1', or aij in the row's own job at R x 1;
    same_job_aij True), else from the R x 1 layout's jobs (False: shown, not judged); vs_1x1_<what>:
    the same variant at 1x1 (other jobs) over this row. An opt-in method (a method with "opt_in": the
    plugin's options a user must ask for, e.g. its coarsener) is compared with the aij rows of its
    "baseline_method" (default: its own); its rows are never "default" (shown, not judged)."""
    idx = {(r["matrix"], r["rows"], r["method"], r["layout"], r["variant"]): r for r in rows}
    for r in rows:
        here = (r["matrix"], r["rows"], r.get("baseline_method", r["method"]))  # an opt-in method against its baseline method's aij
        pure = "%dx1" % r["cores"]
        if r["paired_of"]:
            ref, sj = None, True
        elif r["threads"] == 1:
            ref, sj = idx.get(here + (r["layout"], "aij")), True
        else:
            ref, sj = idx.get(here + (r["layout"], "aij@%s" % pure)), True
            if not ref:
                ref, sj = idx.get(here + (pure, "aij")), False
        one = idx.get((r["matrix"], r["rows"], r["method"], "1x1", r["paired_of"] or r["variant"]))
        r["same_job_aij"] = sj if ref else None
        for what in ("setup_s", "solve_s", "total_s"):
            r["vs_aij_" + what] = None
            if ref and ref is not r and ref.get(what) and r.get(what):
                r["vs_aij_" + what] = _job_ratio(ref, r, what) if sj else ref[what] / r[what]
            r["vs_1x1_" + what] = one[what] / r[what] if one and one is not r and one.get(what) and r.get(what) else None
        r["iterations_aij"] = ref.get("iterations") if ref else None


def _f(v, fmt="%.3f"):
    return "-" if v is None else fmt % v


def _order(r):
    return (r["matrix"], r["rows"] or 0, r["method"], r["cores"], -r["ranks"], r["paired_of"] or "", r["variant"])


def _rows_label(n):
    return "-" if not n else "%.3gM" % (n / 1e6) if n >= 1e6 else "%.3gk" % (n / 1e3) if n >= 1e3 else str(n)


def setup_table(rows):
    """The answer to "how long does my preconditioner take to build at 1xT vs Tx1?" (markdown lines):
    setup (KSPSetUp + KSPSetUpOnBlocks), one solve, their sum, the ratios against aij at R x 1
    ('~': from other jobs, not the same job) and the setup's against the variant's own 1x1."""
    out = ["| matrix | method | layout | variant | setup s | solve s (its) | setup + solve s | setup vs aij Rx1 | total vs aij Rx1 | setup vs its 1x1 |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=_order):
        if r.get("setup_s") is None:
            out.append("| %s %s | %s | %s | %s | %s | | | | | |" % (r["matrix"], _rows_label(r["rows"]), r["method"], r["layout"], r["variant"], r["status"]))
            continue
        mark = "" if r.get("same_job_aij") else "~"
        out.append("| %s %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s |" % (
            r["matrix"], _rows_label(r["rows"]), r["method"], r["layout"], r["variant"], _f(r["setup_s"]), _f(r["solve_s"]), r["iterations"],
            _f(r["total_s"]), mark + _f(r["vs_aij_setup_s"], "%.2fx") if r["vs_aij_setup_s"] else "-",
            mark + _f(r["vs_aij_total_s"], "%.2fx") if r["vs_aij_total_s"] else "-", _f(r["vs_1x1_setup_s"], "%.2fx")))
    return out


def events_above(row, threshold=SHARE_MIN):
    """[(event, share of PCSetUp, seconds)] of a row's setup above the threshold, largest first
    (the setup's own events, OWN_SETUP, left out)."""
    ev = row.get("setup_events_s") or {}
    return sorted(((k, v, ev[k]) for k, v in (row.get("shares") or {}).items() if v >= threshold and k not in OWN_SETUP),
                  key=lambda kv: -kv[1])


def events_table(rows, threshold=SHARE_MIN):
    """Per row: its events above threshold of PCSetUp with their shares (text lines; '*': an event
    that holds others of the list in that row, its share inclusive: holds())."""
    out = []
    for r in sorted(rows, key=_order):
        if r.get("setup_s") is None:
            continue
        out.append("%s %s %s %s %s (PCSetUp %s s): %s" % (r["matrix"], _rows_label(r["rows"]), r["method"], r["layout"], r["variant"], _f(r["pcsetup_s"]),
                                                        ", ".join("%s%s %.0f%%" % (k, "*" if holds(r, k) else "", 100 * v) for k, v, _ in events_above(r, threshold))))
    return out


def holds(row, event):
    """whether an event of a row holds others of the list: always (CONTAINERS), or where the plugin's own events it
    calls ran in that row (HOLDS)"""
    ev = row.get("setup_events_s") or {}
    return event in CONTAINERS or any(ev.get(k) for k in HOLDS.get(event, ()))


def setup_targets(rows):
    """Issue 27's targets on these rows (dicts as report.targets_text prints them), judged on the
    same jobs, shown (met None) where the reference is in other jobs:
    - CG + GAMG setup at 1xT (aijhybrid default) >= 1.6x its 1x1 (other jobs: shown) and >= 1.2x aij
      at Tx1; setup + solve >= 1.1x aij at Tx1;
    - GMRES + ILU(0) setup + solve at 1xT >= 1.0x aij at Tx1 (block Jacobi + ILU), the default and the
      thread-block variant;
    - at 1x1 every aijhybrid variant's setup > 0.98x aij's."""
    out = []

    def add(target, r, value, required, detail, same_job, strict=False):
        if value is None:
            return
        met = (value > required if strict else value >= required) if same_job else None
        out.append({"target": "27: " + target + ("" if same_job else " (other jobs: not judged)"), "matrix": "%s %s" % (r["matrix"], _rows_label(r["rows"])),
                    "layout": r["layout"], "value": value, "required": required, "met": met, "detail": detail})

    for r in rows:
        if r.get("setup_s") is None or "aijhybrid" not in r["type"] or r["paired_of"]:
            continue
        gamg, ilu = "gamg" in r["method"], "ilu" in r["method"]
        T, C = r["threads"], r["cores"]
        if r["ranks"] == 1 and T >= 2:
            if gamg and r["default"]:
                add("%s setup 1x%d vs its 1x1" % (r["method"], T), r, r["vs_1x1_setup_s"], 1.6, "%.3f s" % r["setup_s"], False)
                add("%s setup 1x%d vs aij %dx1" % (r["method"], T, C), r, r["vs_aij_setup_s"], 1.2, "%.3f s" % r["setup_s"], r["same_job_aij"])
                add("%s setup+solve 1x%d vs aij %dx1" % (r["method"], T, C), r, r["vs_aij_total_s"], 1.1,
                    "%.3f s, %s its (aij %s)" % (r["total_s"], r["iterations"], r["iterations_aij"]), r["same_job_aij"])
            if ilu:
                add("%s %s setup+solve 1x%d vs aij %dx1" % (r["method"], r["variant"], T, C), r, r["vs_aij_total_s"], 1.0,
                    "%.3f s, %s its (aij %s)" % (r["total_s"], r["iterations"], r["iterations_aij"]), r["same_job_aij"])
        if r["cores"] == 1:
            add("%s %s setup 1x1 vs aij 1x1" % (r["method"], r["variant"]), r, r["vs_aij_setup_s"], 0.98, "%.3f s" % r["setup_s"], r["same_job_aij"],
                strict=True)
    return out


def problems(rows):
    """Failed and unconverged setups (dicts as aijhybrid_bench.checks lists them)."""
    out = []
    for r in rows or []:
        where = {"layout": r.get("layout"), "matrix": "%s:%s" % (r.get("matrix"), r.get("rows")), "variant": "%s %s" % (r.get("variant"), r.get("method"))}
        if r.get("status") != "ok":
            out.append(dict(where, kind="setup-failed", detail=r.get("reason") or r.get("status")))
        elif r.get("converged") is not True:
            out.append(dict(where, kind="not-converged", detail="the solve after the setup did not converge (%s iterations)" % r.get("iterations")))
    return out
