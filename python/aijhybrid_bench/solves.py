"""Whole solves and vector operations in the benchmark: where the time of a solve goes.

Worker side (``measure_solves``, ``measure_vecops``), in the layout job, for one matrix:
- solves: for every method of the config (e.g. CG + Jacobi, GMRES(30) + Jacobi, Chebyshev + Jacobi,
  CG + GAMG) and every combination of a matrix variant and a vector type (``standard``: VECSEQ/VECMPI
  as an application's VecCreateMPI gives; ``hybrid``: VECHYBRID, for aijhybrid from MatCreateVecs, so
  partition-aligned), one KSP each, set up once (the setup time recorded: GAMG's hierarchy), then
  solved ``rounds`` times from x = 0 in alternating order (model.round_order: every pair of
  combinations in both orders every two rounds). Each solve runs in a PETSc log stage of its own; the times and flops of PETSc's events in
  it (MatMult, PCApply, the Vec events, ...) are taken from the log as differences around the solve.
  Medians over the rounds.
- vector operations: every listed operation on vectors of ``length`` global entries, standard and
  hybrid, in alternating batches timed with MPI barriers: the median time per operation.

Report side: ``flatten_solves`` / ``flatten_vecops`` turn the layout jobs' records into rows with the
ratio against the reference at the same core count (``aij`` with standard vectors at R x 1, R = the
layout's cores), ``solves_table`` / ``vecops_table`` print them, ``solve_targets`` evaluates issue 11's.
"""

import math
import shlex

from . import model

EVENTS = ("KSPSolve", "PCApply", "MatMult", "MatMultAdd", "MatSOR", "MatSolve", "VecTDot", "VecDot", "VecMDot", "VecNorm", "VecNormalize",
          "VecAXPY", "VecAYPX", "VecAXPBYCZ", "VecWAXPY", "VecMAXPY", "VecPointwiseMult", "VecScale", "VecCopy", "VecSet", "VecSwap",
          "VecScatterBegin", "VecScatterEnd", "VecReduceArith", "VecReduceComm")
# the Vec events whose times add up to the vector work of a solve (VecNormalize contains VecNorm and VecScale)
VEC_EVENTS = ("VecTDot", "VecDot", "VecMDot", "VecNorm", "VecAXPY", "VecAYPX", "VecAXPBYCZ", "VecWAXPY", "VecMAXPY", "VecPointwiseMult",
              "VecScale", "VecCopy", "VecSet", "VecSwap")
DEFAULT_METHODS = [
    {"label": "cg+jacobi", "ksp": "cg", "pc": "jacobi"},
    {"label": "gmres30+jacobi", "ksp": "gmres", "pc": "jacobi", "options": "-ksp_gmres_restart 30"},
    {"label": "cheby+jacobi", "ksp": "chebyshev", "pc": "jacobi", "options": "-ksp_chebyshev_esteig 0.1,1.1 -ksp_max_it 200 -ksp_norm_type none", "fixed_its": True},
    {"label": "cg+gamg", "ksp": "cg", "pc": "gamg"},
]
VEC_OPS = ("dot", "tdot", "norm2", "axpy", "aypx", "waxpy", "axpbypcz", "pointwisemult", "copy", "scale", "set", "mdot30", "maxpy30")


def _median(v):
    return model.median(v) if v else None


def _event_snapshot(PETSc, stage_id):
    out = {}
    for name in EVENTS:
        try:
            pi = PETSc.Log.Event(name).getPerfInfo(stage_id)
        except Exception:  # an event this PETSc does not have
            continue
        out[name] = (pi["time"], pi["flops"], pi["count"])
    return out


def _vectors(PETSc, ph, A, vec_type, like):
    """(x, b) for A of the given vector type: hybrid from MatCreateVecs where A is aijhybrid."""
    if vec_type == "hybrid" and "aijhybrid" in A.getType():
        x, b = A.createVecs()
        return x, b
    vs = []
    for _ in range(2):
        v = PETSc.Vec().create(comm=A.getComm())
        v.setSizes(like.getSizes(), like.getBlockSize())
        v.setType("hybrid" if vec_type == "hybrid" else "standard")
        vs.append(v)
    return vs[0], vs[1]


class _Combo:
    def __init__(self, variant, vec_type):
        self.v, self.vec_type = variant, vec_type
        self.label = "%s/%s" % (variant.label, vec_type)
        self.ksp = self.x = self.b = None
        self.stage = None
        spec = variant.spec
        self.rec = {"variant": variant.label, "type": spec["type"], "vectors": vec_type, "status": "ok", "solves": [],
                    "ranks": variant.group.ranks, "threads": variant.group.threads,
                    "default": "aijhybrid" in spec["type"] and not (spec.get("options") or "").strip() and not spec.get("paired_of")}
        if spec.get("paired_of"):
            self.rec["paired_of"] = spec["paired_of"]


def combinations(variants, cfg, equivalents=None):
    """[(variant, vector type, label recorded)]: the (variant, vector type) pairs the solves run. A
    variant is solved if it, or a variant measured as running its code (equivalents), is listed in
    cfg["variants"] (all when None); vector types from cfg["vectors"], or per matrix type from
    cfg["vectors_by_type"] ({type: [vector types]}; make run: aij with standard vectors, aijhybrid with
    the hybrid ones of its MatCreateVecs); hybrid vectors only with aijhybrid matrices unless
    cfg["hybrid_vectors_with_any_matrix"]."""
    out = []
    for v in variants:
        labels = [v.label] + list((equivalents or {}).get(v.label, []))
        named = lambda l: v.spec.get("paired_of") or l  # noqa: E731
        wanted = [l for l in labels if named(l) in cfg["variants"]] if cfg.get("variants") else [v.label]
        if not wanted:
            continue
        for vt in (cfg.get("vectors_by_type") or {}).get(v.spec["type"], cfg.get("vectors", ["standard", "hybrid"])):
            if vt == "hybrid" and "aijhybrid" not in v.spec["type"] and not cfg.get("hybrid_vectors_with_any_matrix"):
                continue
            out.append((v, vt, wanted[0]))
    return out


def _agree(comm, flags):
    """The elementwise AND of a list of flags over the ranks of comm."""
    every = comm.allgather([bool(f) for f in flags])
    return [all(fl[i] for fl in every) for i in range(len(flags))]


def measure_solves(PETSc, MPI, ph, comm, variants, cfg, log, equivalents=None, run_on=None):
    """Per method, the solve records of every (variant, vector type) combination; see the module doc.
    Each variant v carries its group of ranks (v.group) and right-hand side (v.b); comm holds every
    rank of the job, run_on(group, fn) runs a step on a group (aijhybrid_bench.job.Job.run_on: the
    ranks outside it wait without spinning). equivalents: label of a timed variant -> the labels of
    the variants measured as running its code (a listed variant among them is solved through it and
    recorded under its own label); a variant measured as a same-job baseline (paired_of) is listed
    under the label it pairs."""
    run_on = run_on or (lambda group, fn: fn())
    out = []
    for mi, method in enumerate(cfg.get("methods") or DEFAULT_METHODS):
        combos = []
        for v, vt, label in combinations(variants, cfg, equivalents):
            c = _Combo(v, vt)
            if label != v.label:
                c.rec["variant"], c.rec["measured_as"] = label, v.label
            combos.append(c)
        mrec = {"method": method["label"], "ksp": method["ksp"], "pc": method["pc"], "options": method.get("options", ""), "combos": []}
        for ci, c in enumerate(combos):

            def setup(c=c, ci=ci):
                try:
                    _setup(PETSc, MPI, ph, c.v.group.comm, c, method, cfg, c.v.b, "bs%d_%d_" % (mi, ci))
                except Exception as e:  # a method this PETSc cannot run, ...
                    c.rec.update(status="error", reason="%s: %s" % (type(e).__name__, e))
                    c.ksp = None

            run_on(c.v.group, setup)
            mrec["combos"].append(c.rec)
        # the same list on every rank: a combination is live where its group set it up
        ok = _agree(comm, [c.ksp is not None or not c.v.group.member for c in combos])
        live = [c for c, k in zip(combos, ok) if k]
        rounds = int(cfg.get("rounds", 3))
        for r in range(rounds):
            for c in model.round_order(live, r) if live else []:
                run_on(c.v.group, lambda c=c: c.rec["solves"].append(_solve_once(PETSc, MPI, c.v.group.comm, c)))
            log("  %s: round %d/%d" % (method["label"], r + 1, rounds))
        for c in combos:
            _summarize(c.rec)
            for o in (c.ksp, c.x, c.b):
                if o is not None:
                    o.destroy()
            c.ksp = c.x = c.b = None
        out.append(mrec)
    return out


def _setup(PETSc, MPI, ph, comm, c, method, cfg, b_ref, prefix):
    A = c.v.A
    c.x, c.b = _vectors(PETSc, ph, A, c.vec_type, b_ref)
    c.b.setArray(b_ref.getArray(readonly=True))
    c.rec["vec_type"] = c.x.getType()
    if c.vec_type == "hybrid":
        c.rec["vec_threads"] = ph.get_num_threads(c.x)
    ksp = PETSc.KSP().create(comm=A.getComm())
    ksp.setOptionsPrefix(prefix)
    ksp.setOperators(A)
    ksp.setType(method["ksp"])
    ksp.getPC().setType(method["pc"])
    ksp.setTolerances(rtol=cfg.get("rtol", 1e-8), max_it=cfg.get("max_it", 5000))
    opts = PETSc.Options()
    pairs = _option_pairs(method.get("options", ""))
    for k, val in pairs:
        opts.setValue(prefix + k, "" if val is None else val)
    ksp.setFromOptions()
    for k, _ in pairs:
        opts.delValue(prefix + k)
    c.stage = PETSc.Log.Stage("bench_" + prefix)
    c.x.set(0.0)
    comm.Barrier()
    t0 = MPI.Wtime()
    c.stage.push()
    ksp.setUp()
    ksp.setUpOnBlocks()
    c.stage.pop()
    comm.Barrier()
    c.rec["setup_s"] = MPI.Wtime() - t0
    c.ksp = ksp


def _solve_once(PETSc, MPI, comm, c):
    c.x.set(0.0)
    before = _event_snapshot(PETSc, c.stage.id)
    comm.Barrier()
    t0 = MPI.Wtime()
    c.stage.push()
    c.ksp.solve(c.b, c.x)
    c.stage.pop()
    comm.Barrier()
    t = MPI.Wtime() - t0
    after = _event_snapshot(PETSc, c.stage.id)
    ev = {}
    for name, (tm, fl, ct) in after.items():
        t0_, f0_, c0_ = before.get(name, (0.0, 0.0, 0))
        if ct - c0_ > 0:
            ev[name] = {"time_s": tm - t0_, "flops": fl - f0_, "count": ct - c0_}
    # the slowest rank's event times: gathered, the max taken per event
    allev = comm.allgather({k: v["time_s"] for k, v in ev.items()})
    for k in ev:
        ev[k]["time_max_s"] = max(e.get(k, 0.0) for e in allev)
    return {"solve_s": t, "iterations": c.ksp.getIterationNumber(), "reason": int(c.ksp.getConvergedReason()), "events": ev}


def _summarize(rec):
    s = rec.get("solves") or []
    if not s:
        return
    rec["solve_s"] = _median([x["solve_s"] for x in s])
    rec["iterations"] = s[0]["iterations"]
    rec["converged"] = all(x["reason"] > 0 for x in s)
    names = set()
    for x in s:
        names |= set(x["events"])
    rec["events_s"] = {n: _median([x["events"].get(n, {}).get("time_max_s", 0.0) for x in s]) for n in sorted(names)}
    rec["event_flops"] = {n: s[0]["events"].get(n, {}).get("flops", 0.0) for n in sorted(names)}
    rec["vec_s"] = sum(rec["events_s"].get(n, 0.0) for n in VEC_EVENTS)


def _option_pairs(options):
    toks = shlex.split(options or "")
    out, i = [], 0
    while i < len(toks):
        k = toks[i].lstrip("-")
        if i + 1 < len(toks) and not toks[i + 1].startswith("-"):
            out.append((k, toks[i + 1]))
            i += 2
        else:
            out.append((k, None))
            i += 1
    return out


# ---- vector operations ------------------------------------------------------------------------------


def _vec(PETSc, ph, comm, n_global, vec_type, T):
    v = PETSc.Vec().create(comm=comm)
    v.setSizes((None, n_global))
    v.setType("hybrid" if vec_type == "hybrid" else "standard")
    if vec_type == "hybrid":
        ph.set_num_threads(v, T)
    return v


def _c_call(ph, name):
    """A PETSc C function through the plugin's handle (petsc4py 3.18 lacks VecMDot, VecAXPBYPCZ)."""
    fn = getattr(ph.load(), name)

    def call(*args):
        err = fn(*args)
        if err:
            raise RuntimeError("%s failed with error %d" % (name, err))

    return call


def _op_call(PETSc, ph, name, vs):
    """A function doing one operation `name` on the vectors vs (x, y, z, w, then the k of mdot/maxpy)."""
    import ctypes

    x, y, z, w = vs[0], vs[1], vs[2], vs[3]
    many = vs[4:]
    from petsc_aijhybrid.vec import c_scalar as S

    h = lambda v: ctypes.c_void_p(v.handle)  # noqa: E731
    if name == "dot":
        return lambda: x.dot(y)
    if name == "tdot":
        return lambda: x.tDot(y)
    if name == "norm2":  # a norm of an unchanged vector comes from PETSc's cache: mark it changed
        return lambda: (x.stateIncrease(), x.norm())
    if name == "axpy":
        return lambda: y.axpy(1e-3, x)
    if name == "aypx":
        return lambda: y.aypx(0.999, x)
    if name == "waxpy":
        return lambda: w.waxpy(0.5, x, y)
    if name == "axpbypcz":
        f = _c_call(ph, "VecAXPBYPCZ")
        return lambda: f(h(z), S(0.5), S(0.25), S(0.25), h(x), h(y))
    if name == "pointwisemult":
        return lambda: w.pointwiseMult(x, y)
    if name == "copy":
        return lambda: x.copy(w)
    if name == "scale":
        return lambda: y.scale(1.0000001)
    if name == "set":
        return lambda: w.set(1.5)
    if name.startswith("mdot"):
        k = int(name[4:])
        f = _c_call(ph, "VecMDot")
        arr = (ctypes.c_void_p * k)(*[v.handle for v in many[:k]])
        out = (type(S(0.0)) * k)()
        return lambda: f(h(x), ctypes.c_int64(k) if PETSc.IntType().itemsize == 8 else ctypes.c_int32(k), arr, out)
    if name.startswith("maxpy"):
        k = int(name[5:])
        alphas = [1e-3] * k
        return lambda: y.maxpy(alphas, many[:k])
    raise ValueError("unknown vector operation %r" % name)


def measure_vecops(PETSc, MPI, ph, sides, cfg, log, run_on=None):
    """Median seconds per operation on vectors of cfg['length'] global entries (a list of lengths:
    each). sides: [(key, group, vector type)], e.g. standard and hybrid vectors on the layout's
    group and, in a paired job, 'standard@2x1' on the pair group (job.Group); their batches alternate
    in the same rounds, run_on(group, fn) running each on its group (job.Job.run_on)."""
    run_on = run_on or (lambda group, fn: fn())
    lengths = cfg.get("length", 1000000)
    out = []
    for n in lengths if isinstance(lengths, list) else [lengths]:
        out += _measure_vecops_length(PETSc, MPI, ph, sides, cfg, int(n), log, run_on)
    return out


def _measure_vecops_length(PETSc, MPI, ph, sides, cfg, n, log, run_on):
    import numpy as np

    ops = cfg.get("ops") or list(VEC_OPS)
    kmax = max([int(o[4:]) for o in ops if o.startswith("mdot")] + [int(o[5:]) for o in ops if o.startswith("maxpy")] + [0])
    sets, groups = {}, {}
    for key, g, vt in sides:
        groups[key] = g

        def make(g=g, vt=vt):
            vs = [_vec(PETSc, ph, g.comm, n, vt, g.threads) for _ in range(4 + kmax)]
            for i, v in enumerate(vs):
                rs, re_ = v.getOwnershipRange()
                v.setArray(1.0 + 0.5 * np.sin(0.1 * (i + 1) * np.arange(rs, re_)))
            if vt == "hybrid" and cfg.get("threshold") is not None:
                for v in vs:
                    ph.set_threshold(v, int(cfg["threshold"]))
            return vs

        sets[key] = run_on(g, make)
    res = []
    rounds, batch_s = int(cfg.get("rounds", 5)), float(cfg.get("batch_seconds", 0.02))
    keys = [key for key, _, _ in sides]
    for name in ops:
        calls = {key: _op_call(PETSc, ph, name, vs) if vs else None for key, vs in sets.items()}
        K = {}
        for key in keys:  # batch sizes from one warm-up each
            comm = groups[key].comm

            def warm(f=calls[key], comm=comm):
                f()
                comm.Barrier()
                t0 = MPI.Wtime()
                f()
                comm.Barrier()
                return max(1, int(math.ceil(batch_s / max(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX), 1e-7))))

            K[key] = run_on(groups[key], warm)
        samples = {key: [] for key in keys}
        for r in range(rounds):
            for key in (keys if r % 2 == 0 else keys[::-1]):
                comm = groups[key].comm

                def batch(f=calls[key], k=K[key], comm=comm, key=key):
                    comm.Barrier()
                    t0 = MPI.Wtime()
                    for _ in range(k):
                        f()
                    comm.Barrier()
                    samples[key].append((MPI.Wtime() - t0) / k)

                run_on(groups[key], batch)
        rec = {"op": name, "status": "ok", "length": n}
        for key, sm in samples.items():
            rec[key + "_s"] = _median(sm)
            rec[key + "_samples_s"] = sm
        res.append(rec)
    log("  vector operations of length %d: %d measured" % (n, len(res)))
    for vs in sets.values():
        for v in vs or []:
            v.destroy()
    return res


# ---- report side --------------------------------------------------------------------------------------


def flatten_solves(jobs):
    """One row per (matrix, layout, method, variant/vectors), medians over repeated layout jobs."""
    by = {}
    for job in jobs:
        for case in job["cases"]:
            for m in case.get("solves") or []:
                for c in m["combos"]:
                    key = (case["label"], case["rows"], job["layout"], m["method"], c["variant"], c["vectors"])
                    ranks, threads = c.get("ranks", job["ranks"]), c.get("threads", job["threads"])
                    r = by.setdefault(key, {"matrix": case["label"], "rows": case["rows"], "layout": job["layout"], "ranks": ranks,
                                            "threads": threads, "cores": ranks * threads, "method": m["method"],
                                            "variant": c["variant"], "type": c["type"], "vectors": c["vectors"], "status": c["status"],
                                            "reason": c.get("reason"), "default": c.get("default"), "paired_of": c.get("paired_of"),
                                            "_solve": [], "_setup": [], "_events": [], "_vec": []})
                    if c["status"] != "ok":  # a failure in any job stays in the row
                        r.update(status=c["status"], reason=c.get("reason"))
                    if c.get("solve_s") is not None:
                        r["_solve"].append(c["solve_s"])
                        r["_setup"].append(c.get("setup_s"))
                        r["_events"].append(c.get("events_s", {}))
                        r["_vec"].append(c.get("vec_s"))
                        r["iterations"] = c.get("iterations")
                        r["converged"] = c.get("converged") if r.get("converged") is not False else False
    rows = []
    for r in by.values():
        r["solve_s"] = _median(r.pop("_solve"))
        su = [x for x in r.pop("_setup") if x is not None]
        r["setup_s"] = _median(su)
        evs = r.pop("_events")
        names = set()
        for e in evs:
            names |= set(e)
        r["events_s"] = {n: _median([e.get(n, 0.0) for e in evs]) for n in sorted(names)}
        vv = [x for x in r.pop("_vec") if x is not None]
        r["vec_s"] = _median(vv)
        rows.append(r)
    _solve_ratios(rows)
    return rows


def _solve_ratios(rows):
    """ratio_vs_aij: the reference (aij, standard vectors) at R x 1, R = cores, over this solve time;
    ratio_vs_pure_mpi: the same variant and vectors at R x 1 (its kernels run as pure MPI) over this
    one. Each from the same jobs where the run has it (the R x 1 layout's own jobs, or the paired
    baseline 'label@Rx1' of an R x T layout's jobs): same_job_aij / same_job_pure True; else from
    the R x 1 layout's jobs (False)."""
    idx = {(r["matrix"], r["rows"], r["method"], r["layout"], r["variant"], r["vectors"]): r for r in rows}
    for r in rows:
        if not r.get("solve_s"):
            continue
        pure = "%dx1" % r["cores"]
        here = (r["matrix"], r["rows"], r["method"], r["layout"])
        if r.get("paired_of"):  # the same-job baseline of a paired job: against the aij of its group
            ref, sj = idx.get(here + ("aij@%s" % pure, "standard")), True
        elif r["threads"] == 1:
            ref, sj = idx.get(here + ("aij", "standard")), True
        else:
            ref, sj = idx.get(here + ("aij@%s" % pure, "standard")), True
            if not ref:
                ref, sj = idx.get((r["matrix"], r["rows"], r["method"], pure, "aij", "standard")), False
        if ref and ref.get("solve_s"):
            r["ratio_vs_aij"] = ref["solve_s"] / r["solve_s"]
            r["iterations_aij"] = ref.get("iterations")
            r["same_job_aij"] = sj
        if r["threads"] > 1:
            same, sj = idx.get(here + ("%s@%s" % (r["variant"], pure), "standard")), True
            if not same:
                same, sj = idx.get((r["matrix"], r["rows"], r["method"], pure, r["variant"], "standard")), False
            if same and same.get("solve_s"):
                r["ratio_vs_pure_mpi"] = same["solve_s"] / r["solve_s"]
                r["same_job_pure"] = sj


def solves_table(rows):
    head = "%-22s %-15s %-6s %-24s %6s %9s %9s %8s %8s %8s %8s" % ("matrix", "method", "layout", "variant/vectors", "its", "solve s", "vs aij", "MatMult", "Vec ops", "PCApply", "setup s")
    lines = ["Whole solves (KSPSolve, median of alternating rounds; vs aij: aij with standard vectors at Rx1, R = cores; event times: slowest rank, s)", head, "-" * len(head)]
    key = lambda r: (r["matrix"], r["rows"], r["method"], r["cores"], -r["ranks"], r["variant"], r["vectors"])
    prev = None
    for r in sorted(rows, key=key):
        if prev and prev != (r["matrix"], r["method"]):
            lines.append("")
        prev = (r["matrix"], r["method"])
        m = "%s %s" % (r["matrix"], _rows(r["rows"]))
        if r.get("solve_s") is None:
            lines.append("%-22s %-15s %-6s %-24s %s" % (m[:22], r["method"][:15], r["layout"], ("%s/%s" % (r["variant"], r["vectors"]))[:24], r["status"] + (": " + r["reason"] if r.get("reason") else "")))
            continue
        ev = r.get("events_s") or {}
        lines.append("%-22s %-15s %-6s %-24s %6s %9.3f %9s %8.3f %8.3f %8s %8s" % (
            m[:22], r["method"][:15], r["layout"], ("%s/%s" % (r["variant"], r["vectors"]))[:24], r.get("iterations"), r["solve_s"],
            ("%.2fx" % r["ratio_vs_aij"]) if r.get("ratio_vs_aij") else "-", ev.get("MatMult", 0.0), r.get("vec_s") or 0.0,
            ("%.3f" % ev["PCApply"]) if "PCApply" in ev else "-", ("%.3f" % r["setup_s"]) if r.get("setup_s") is not None else "-"))
    return "\n".join(lines)


def _rows(n):
    return "%.3gM" % (n / 1e6) if n >= 1e6 else "%.3gk" % (n / 1e3) if n >= 1e3 else str(n)


def flatten_vecops(jobs):
    """One row per (layout, operation, length): medians of standard and hybrid vectors over the
    layout's jobs, and of the standard vectors of the paired baseline group (standard_paired_s, from
    the key 'standard@RTx1') where the jobs were paired."""
    by = {}
    for job in jobs:
        pair = (job.get("paired") or {}).get("layout")
        for rec in job.get("vecops") or []:
            key = (job["layout"], rec["op"], rec.get("length"))
            r = by.setdefault(key, {"layout": job["layout"], "ranks": job["ranks"], "threads": job["threads"], "cores": job["ranks"] * job["threads"],
                                    "op": rec["op"], "length": rec.get("length"), "status": rec["status"], "_std": [], "_hyb": [], "_pair": []})
            r["_std"] += rec.get("standard_samples_s") or []
            r["_hyb"] += rec.get("hybrid_samples_s") or []
            if pair:
                r["_pair"] += rec.get("standard@%s_samples_s" % pair) or []
    rows = []
    for r in by.values():
        r["standard_s"] = _median(r.pop("_std"))
        r["hybrid_s"] = _median(r.pop("_hyb"))
        p = r.pop("_pair")
        if p:
            r["standard_paired_s"] = _median(p)
        rows.append(r)
    idx = {(r["layout"], r["op"], r["length"]): r for r in rows}
    for r in rows:
        if r.get("standard_paired_s") and r.get("hybrid_s"):
            r["hybrid_vs_standard_Rx1"], r["same_job_Rx1"] = r["standard_paired_s"] / r["hybrid_s"], True
        else:
            ref = idx.get(("%dx1" % r["cores"], r["op"], r["length"]))
            if ref and ref.get("standard_s") and r.get("hybrid_s"):
                r["hybrid_vs_standard_Rx1"], r["same_job_Rx1"] = ref["standard_s"] / r["hybrid_s"], r["threads"] == 1
        if r.get("standard_s") and r.get("hybrid_s"):
            r["hybrid_vs_standard_same_layout"] = r["standard_s"] / r["hybrid_s"]
    return rows


def vecops_table(rows):
    head = "%-14s %9s %-6s %12s %12s %14s %14s" % ("operation", "length", "layout", "standard ms", "hybrid ms", "hyb vs std", "vs std Rx1")
    lines = ["Vector operations (median per operation; > 1: hybrid faster)", head, "-" * len(head)]
    for r in sorted(rows, key=lambda r: (r["op"], r["length"] or 0, r["cores"], -r["ranks"])):
        if r["status"] != "ok":
            lines.append("%-14s %9s %-6s %s" % (r["op"], r["length"], r["layout"], r["status"]))
            continue
        f = lambda v: ("%.4f" % (1e3 * v)) if v is not None else "-"  # noqa: E731
        g = lambda v: ("%.2fx" % v) if v is not None else "-"  # noqa: E731
        lines.append("%-14s %9s %-6s %12s %12s %14s %14s" % (r["op"], r["length"], r["layout"], f(r.get("standard_s")), f(r.get("hybrid_s")),
                                                         g(r.get("hybrid_vs_standard_same_layout")), g(r.get("hybrid_vs_standard_Rx1"))))
    return "\n".join(lines)


def solve_targets(solve_rows, vec_rows):
    """Issue 11's targets on this run's records, judged on the default configuration (aijhybrid
    without options, hybrid vectors) against references of the same jobs (see _solve_ratios; a
    reference from other jobs gives a line shown as indicative, met None):
    - KSPSolve at 1xT (aijhybrid, hybrid vectors) >= aijhybrid (standard vectors) at Tx1 and >= 1.1x aij at Tx1,
      for CG + Jacobi, GMRES + Jacobi and CG + GAMG;
    - each vector operation at 1xT within 10% of 2x1 (standard vectors at Tx1 / hybrid at 1xT >= 0.9);
    - at 1x1 a hybrid vector no slower than a standard one (>= 0.98)."""
    out = []

    def line(target, matrix, layout, value, required, detail, same_job):
        return {"target": target + ("" if same_job else " (other jobs: not judged)"), "matrix": matrix, "layout": layout, "value": value,
                "required": required, "met": (value >= required) if same_job else None, "detail": detail}

    for r in solve_rows:
        if r["ranks"] != 1 or r["threads"] < 2 or r["vectors"] != "hybrid" or "aijhybrid" not in r["type"] or not r.get("solve_s"):
            continue
        if r["method"] not in ("cg+jacobi", "gmres30+jacobi", "cg+gamg") or not r.get("default", True):
            continue
        m = "%s %s" % (r["matrix"], _rows(r["rows"]))
        if r.get("ratio_vs_pure_mpi") is not None:
            out.append(line("KSPSolve %s vs aijhybrid %dx1" % (r["method"], r["cores"]), m, r["layout"], r["ratio_vs_pure_mpi"], 1.0,
                            "%d its" % (r.get("iterations") or 0), r.get("same_job_pure")))
        if r.get("ratio_vs_aij") is not None:
            out.append(line("KSPSolve %s vs aij %dx1" % (r["method"], r["cores"]), m, r["layout"], r["ratio_vs_aij"], 1.1,
                            "%s its (aij %s)" % (r.get("iterations"), r.get("iterations_aij")), r.get("same_job_aij")))
    for r in vec_rows:
        if r["status"] != "ok":
            continue
        if (r["length"] or 0) < 1000000:
            continue  # the targets are for 10^6 entries
        m = "vectors %s" % _rows(r["length"] or 0)
        if r["ranks"] == 1 and r["threads"] >= 2 and r.get("hybrid_vs_standard_Rx1") is not None:
            out.append(line("%s hybrid %s vs standard %dx1" % (r["op"], r["layout"], r["cores"]), m, r["layout"], r["hybrid_vs_standard_Rx1"], 0.9, "",
                            r.get("same_job_Rx1")))
        if r["cores"] == 1 and r.get("hybrid_vs_standard_same_layout") is not None:
            out.append(line("%s hybrid vs standard at 1x1" % r["op"], m, r["layout"], r["hybrid_vs_standard_same_layout"], 0.98, "", True))
    return out
