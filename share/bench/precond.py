#!/usr/bin/env python3
"""Preconditioner benchmark of issue 13 (item 5): PCApply and whole-solve times of the threaded
preconditioners, aij against aijhybrid, standalone until the benchmark driver
(python/aijhybrid_bench/) has its whole-solve section; see "How it joins the driver" below.

    python3 share/bench/precond.py                       # poisson7 and extruded, ~5x10^5 rows, 1x1 2x1 1x2, 3 rounds
    python3 share/bench/precond.py --rows 1000000 --rounds 5 --out build/bench/precond.json
    python3 share/bench/precond.py --matrices poisson7 --rows 20000 --rounds 1    # a trial run
    python3 share/bench/precond.py --colors 2,5,10,20,40 --matrices extruded      # iterations against CM-RCM colors

The launcher starts one MPI job per layout (ranks x threads, pinned as the driver pins: one core
per thread), the layouts alternating round after round (A B A B: drift hits all alike); inside a
job, for each matrix (generated once as aij by aijhybrid_bench.matrices, aijhybrid a converted
copy with -mat_aijhybrid_num_threads T) every variant below is set up once, then measured in
rounds that rotate the variants' order:
  - PCApply: batches of applications between barriers (MPI_Wtime), the median batch per round;
  - the whole solve (x0 = 0, b = matrices.rhs(A), rtol 1e-8): time and iterations;
  - PETSc's event times of each variant's own log stage (max over ranks): PCSetUp,
    MatLUFactorNum/MatCholFctrNum (one numeric factorization; with aijhybrid it includes
    AIJHybNumPlan, the threaded factorization's plan, made once per pattern), AIJHybLevels (level schedules),
    MatILUFactorSym/MatICCFactorSym, PCApply, MatSolve, MatSOR, MatMult, KSPSolve;
  - the factor's levels (forward/backward) and whether its solves are threaded.
Variants (PETSc's defaults where not said): gmres_ilu0 (GMRES + ILU(0), bjacobi blocks on
several ranks: PETSc's default solver), cg_icc0 (CG + ICC(0)), cg_ssor (CG + SOR, local symmetric
sweeps), gamg_sor (CG + GAMG with SOR smoothing), each with the natural and the CM-RCM ordering
where a factor is involved; aij runs at layouts with one thread only.

A threaded layout's jobs are paired (unless --no-pair): an R x T job starts R*T ranks, one per
core, and measures beside its own variants aij at R*T x 1 for the solve targets ('aij@2x1') and
aijhybrid with one thread on its own ranks for the PCApply speed-ups ('aijhybrid@1x1', PCApply
only), in the same rounds; the ranks outside a group wait without spinning while it runs
(aijhybrid_bench.job). The targets are judged on these same-job figures; a ratio of two layouts'
own jobs is shown, not judged.

Output: a JSON record (--out; every sample with the choice of the triangular solves it ran with,
the medians, per choice where the rounds differ, the machine load before and after each job, the
failed jobs, "problems") and a table with the issue's targets evaluated on it (provisional on a
shared machine). A failed job or an unconverged solve makes the run exit non-zero
(aijhybrid_bench.checks), and share/records/readme.py refuses the record.

How it joins the driver: the records here are per (matrix, layout, variant, type, ordering); the
driver's whole-solve section can take the variant definitions (SOLVES) as its solve configs, the
worker function measure() as its per-variant measurement (it already alternates and takes medians
like the driver's MatMult timing), and the target evaluation (targets()) into its report; the
launcher here duplicates the driver's layout loop and can go.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

# variant -> (KSP type, PC options on one rank, on several ranks, uses a factor)
SOLVES = {
    "gmres_ilu0": ("gmres", {"pc_type": "ilu"}, {"pc_type": "bjacobi", "sub_pc_type": "ilu"}, True),
    "cg_icc0": ("cg", {"pc_type": "icc"}, {"pc_type": "bjacobi", "sub_pc_type": "icc"}, True),
    "cg_ssor": ("cg", {"pc_type": "sor"}, {"pc_type": "sor"}, False),
    "gamg_sor": ("cg", {"pc_type": "gamg", "mg_levels_pc_type": "sor"}, {"pc_type": "gamg", "mg_levels_pc_type": "sor"}, False),
    # the same with thread blocks (-mat_aijhybrid_factor_blocks thread; aijhybrid only): at R x T,
    # the preconditioner of the variant without them at R*T ranks
    "gmres_ilu0_blocks": ("gmres", {"pc_type": "ilu"}, {"pc_type": "bjacobi", "sub_pc_type": "ilu"}, True),
    "cg_icc0_blocks": ("cg", {"pc_type": "icc"}, {"pc_type": "bjacobi", "sub_pc_type": "icc"}, True),
}
BLOCKS = ("gmres_ilu0_blocks", "cg_icc0_blocks")
# the solves whose targets compare with aij at R*T x 1: measured there in the paired jobs
PAIRED_SOLVES = ("gmres_ilu0", "cg_ssor")
# the fixed alternatives of -mat_aijhybrid_factor_solve auto, measured beside it (type "aijhybrid:<value>")
FIXED_SOLVES = ("threaded", "serial")
EVENTS = ["PCSetUp", "MatLUFactorNum", "MatCholFctrNum", "AIJHybNumPlan", "MatILUFactorSym", "MatICCFactorSym", "AIJHybLevels",
          "AIJHybCMRCM", "PCApply", "MatSolve", "MatSOR", "AIJHybSOR", "MatMult", "KSPSolve"]


def loadavg():
    try:
        return [float(v) for v in open("/proc/loadavg").read().split()[:3]]
    except OSError:
        return None


# ------------------------------------------------------------------------------------ worker


def factor_info(pc, ph):
    """ph.get_factor_info of the factor of pc (PCILU/PCICC, or the block of PCBJACOBI on this rank)."""
    import ctypes

    if pc.getType() in ("ilu", "icc"):
        return ph.get_factor_info(pc.getFactorMatrix())
    if pc.getType() != "bjacobi":
        return None
    import numpy as np
    from petsc4py import PETSc

    lib = ph.load()  # the plugin links libpetsc: PETSc's symbols resolve through it
    I = np.ctypeslib.as_ctypes_type(np.dtype(PETSc.IntType))
    n, first, ksps = I(), I(), ctypes.POINTER(ctypes.c_void_p)()
    sub, F = ctypes.c_void_p(), ctypes.c_void_p()
    if lib.PCBJacobiGetSubKSP(ctypes.c_void_p(pc.handle), ctypes.byref(n), ctypes.byref(first), ctypes.byref(ksps)):
        return None
    if lib.KSPGetPC(ctypes.c_void_p(ksps[0]), ctypes.byref(sub)) or lib.PCFactorGetMatrix(sub, ctypes.byref(F)):
        return None
    # a petsc4py Mat of the factor (petsc4py 3.18 has no PC.getBJacobiSubKSP): composed on the PC, queried back
    # (petsc4py wraps a composed object by its class), the composition removed again
    name = b"aijhybrid_bench_factor"
    if lib.PetscObjectCompose(ctypes.c_void_p(pc.handle), name, F):
        return None
    try:
        M = pc.query(name.decode())
    finally:
        lib.PetscObjectCompose(ctypes.c_void_p(pc.handle), name, None)
    return ph.get_factor_info(M) if isinstance(M, PETSc.Mat) else None


def choice(info):
    """The triangular solves in force on this rank: "threaded", "serial" (PETSc's), or None where the
    factor has no threaded schedule (no choice to make)."""
    if not info or not info.get("threaded"):
        return None
    return "threaded" if info.get("in_use") else "serial"


def plan(args, R, T, paired):
    """The variants of one job: (solve, ordering, colors, type, group, pc_only); group "layout" runs on
    the layout's ranks with T threads, "pair" on every rank with one thread (a paired job's aij at
    R*T x 1, labelled 'aij@RTx1'), "single" on the layout's ranks with one thread (aijhybrid at 1x1 in
    the same job, PCApply only: the baseline of the threaded factor's speed-up)."""
    out = []
    types = ["aij", "aijhybrid"] if T == 1 else ["aijhybrid"]
    for solve in args.solves.split(","):
        ktype, one, many, factor = SOLVES[solve]
        for order in (args.orderings.split(",") if factor else ["natural"]):
            for colors in (args.colors.split(",") if factor and order == "cmrcm" and args.colors else [None]):
                for typ in types:
                    if solve not in BLOCKS or typ == "aijhybrid":
                        out.append((solve, order, colors, typ, "layout", args.pc_only))
                if factor and T > 1 and not args.no_choices and solve not in BLOCKS:  # the fixed alternatives of the measured choice (PCApply only)
                    for fixed in FIXED_SOLVES:
                        out.append((solve, order, colors, "aijhybrid:%s" % fixed, "layout", True))
                    if args.aa_control:  # a second factor of each fixed alternative: the A/A control of the audit
                        for fixed in FIXED_SOLVES:
                            out.append((solve, order, colors, "aijhybrid:%s:aa" % fixed, "layout", True))
                if paired and solve in PAIRED_SOLVES and order == "natural" and not colors:
                    out.append((solve, order, colors, "aij@%dx1" % (R * T), "pair", args.pc_only))
                if paired and factor and solve not in BLOCKS:
                    out.append((solve, order, colors, "aijhybrid@%dx1" % R, "single", True))
    return out


def measure(args):
    """One job: every matrix, type and variant of this layout; prints one JSON record. A paired job
    (--paired: R*T ranks started for an R x T layout, each bound by the launcher's environment)
    measures the same-job baselines of the targets beside the layout's variants (plan())."""
    R, T = (int(v) for v in args.layout.split("x"))
    if args.paired:
        from aijhybrid_bench.job import pin_paired
        from aijhybrid_bench.layout import _threads_per_core

        local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK") or os.environ.get("SLURM_LOCALID") or 0)
        cpus, n = pin_paired(T, local, sorted(os.sched_getaffinity(0)), _threads_per_core())
        os.sched_setaffinity(0, cpus)
        os.environ.update(OMP_NUM_THREADS=str(n), OMP_PLACES="cores", OMP_PROC_BIND="close")
    import petsc4py

    petsc4py.init([sys.argv[0], "-options_left", "0"])
    from mpi4py import MPI
    from petsc4py import PETSc

    import petsc_aijhybrid as ph
    from aijhybrid_bench import matrices
    from aijhybrid_bench.job import Group, run_on

    world = MPI.COMM_WORLD
    if args.paired:
        inside = world.Get_rank() % T == 0
        sub = world.Split(0 if inside else MPI.UNDEFINED, world.Get_rank())
        sub = sub if inside else None
        groups = {"layout": Group(MPI, sub, args.layout, R, T, True), "pair": Group(MPI, world, "%dx1" % (R * T), R * T, 1, False),
                  "single": Group(MPI, sub, "%dx1" % R, R, 1, True)}
    else:
        groups = {"layout": Group(MPI, world, args.layout, R, T, False)}
    PETSc.Log.begin()
    opts = PETSc.Options()
    records = []
    for spec in args.matrices.split(","):
        name, _, rows = spec.partition(":")
        rows = int(rows or args.rows)
        variants = plan(args, R, T, args.paired)
        # per communicator: the generated matrix, its right-hand side, the aijhybrid copies
        mats = {}

        def make(g):
            t0 = time.time()
            A = matrices.create(name, rows, comm=g.comm)
            m = {"aij": A, "b": matrices.rhs(A), "gen_s": time.time() - t0}
            for typ, key, th in (("aijhybrid", "layout", T), ("aijhybrid1", "single", 1)):
                if g is groups["layout"] and any(v[4] == key and v[3].startswith("aijhybrid") for v in variants):
                    H = A.duplicate(copy=True)
                    H.convert("aijhybrid")
                    ph.set_num_threads(H, th)
                    m[typ] = H
            return m

        for key in ("layout", "pair"):
            if key in groups:
                mats[key] = run_on(world, groups[key], lambda g=groups[key]: make(g))
        mats["single"] = mats.get("layout")

        def matrix_of(typ, key):
            m = mats[key]
            if typ.startswith("aijhybrid"):  # (aijhybrid:threaded, :serial: the same matrix, another factor)
                return m["aijhybrid1" if key == "single" else "aijhybrid"]
            return m["aij"]

        setups = [None] * len(variants)
        for k, (solve, order, colors, typ, key, pc_only) in enumerate(variants):
            g = groups[key]

            def setup(k=k, solve=solve, order=order, colors=colors, typ=typ, key=key, pc_only=pc_only, g=g):
                ktype, one, many, factor = SOLVES[solve]
                prefix = "v%d_" % k
                pcopts = dict(one if g.ranks == 1 else many)
                if factor:
                    pcopts[("pc" if g.ranks == 1 else "sub_pc") + "_factor_mat_ordering_type"] = order
                for key_, val in pcopts.items():
                    opts.setValue(prefix + key_, val)
                if colors:
                    opts.setValue("mat_ordering_cmrcm_colors", colors)
                else:
                    opts.delValue("mat_ordering_cmrcm_colors")
                if ":" in typ:  # a fixed alternative: read when the factor is made (ksp.setUp())
                    opts.setValue("mat_aijhybrid_factor_solve", typ.split(":")[1])
                A = matrix_of(typ, key)
                b = mats[key]["b"]
                stage = PETSc.Log.Stage("%s_%s%s_%s" % (solve, order, colors or "", typ))
                ksp = PETSc.KSP().create(comm=A.getComm())
                ksp.setOptionsPrefix(prefix)
                ksp.setOperators(A)
                ksp.setType(ktype)
                ksp.setTolerances(rtol=1e-8, max_it=args.max_it)
                ksp.setFromOptions()
                x = b.duplicate()
                if solve in BLOCKS:  # read when the factor is made (the matrix's setting)
                    ph.set_factor_blocks(A, "thread")
                stage.push()
                t0 = MPI.Wtime()
                ksp.setUp()
                ksp.getPC().setUpOnBlocks()
                setup_s = MPI.Wtime() - t0
                if solve in BLOCKS:
                    ph.set_factor_blocks(A, "none")
                opts.delValue("mat_aijhybrid_factor_solve")
                x.set(0.0)
                if pc_only:
                    ksp.setTolerances(max_it=2)
                ksp.solve(b, x)  # warm-up (the measured choice of the triangular solves decides during it)
                stage.pop()
                return dict(ksp=ksp, x=x, b=b, y=b.duplicate(), stage=stage, setup_s=setup_s, factor=factor)

            setups[k] = run_on(world, g, setup)
        samples = {k: {"pc_apply_s": [], "solve_s": [], "iterations": [], "reasons": [], "choice": [], "decision": []} for k in range(len(variants))}
        for rnd in range(args.inner_rounds):
            order_k = list(range(len(variants)))
            order_k = order_k[rnd % len(order_k):] + order_k[:rnd % len(order_k)]
            if rnd % 2:
                order_k.reverse()
            for k in order_k:
                g = groups[variants[k][4]]

                def sample(k=k, g=g):
                    s, comm = setups[k], g.comm
                    pc = s["ksp"].getPC()
                    before = choice(factor_info(pc, ph)) if s["factor"] else None
                    s["stage"].push()
                    comm.Barrier()
                    t0 = MPI.Wtime()
                    pc.apply(s["b"], s["y"])
                    one_s = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
                    nb = max(1, min(200, int(args.batch_seconds / max(one_s, 1e-6))))
                    comm.Barrier()
                    t0 = MPI.Wtime()
                    for _ in range(nb):
                        pc.apply(s["b"], s["y"])
                    comm.Barrier()
                    samples[k]["pc_apply_s"].append((MPI.Wtime() - t0) / nb)
                    if not variants[k][5]:
                        s["x"].set(0.0)
                        comm.Barrier()
                        t0 = MPI.Wtime()
                        s["ksp"].solve(s["b"], s["x"])
                        comm.Barrier()
                        samples[k]["solve_s"].append(MPI.Wtime() - t0)
                        samples[k]["iterations"].append(s["ksp"].getIterationNumber())
                        samples[k]["reasons"].append(int(s["ksp"].getConvergedReason()))
                    s["stage"].pop()
                    info = factor_info(pc, ph) if s["factor"] else None
                    after = choice(info)
                    # the choice of this sample on every rank of the group (a bjacobi block per rank)
                    samples[k]["choice"].append(comm.allgather(before if before == after else "changed"))
                    samples[k]["decision"].append({key_: info.get(key_) for key_ in ("decided", "time_threaded", "time_serial")} if info else None)

                run_on(world, g, sample)
        for k, (solve, order, colors, typ, key, pc_only) in enumerate(variants):
            g = groups[key]

            def finish(k=k, solve=solve, order=order, colors=colors, typ=typ, key=key, pc_only=pc_only, g=g):
                s, comm = setups[k], g.comm
                ev = {}
                for e in EVENTS:
                    try:
                        pi = PETSc.Log.Event(e).getPerfInfo(s["stage"].id)
                    except Exception:  # event not registered in this PETSc
                        continue
                    ev[e] = {"time": comm.allreduce(pi["time"], op=MPI.MAX), "count": comm.allreduce(pi["count"], op=MPI.MAX)}
                info = factor_info(s["ksp"].getPC(), ph) if s["factor"] else None
                A = matrix_of(typ, key)
                sm = samples[k]
                rec = dict(
                    matrix=name, rows=A.getSize()[0], nnz=int(A.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["nz_used"]), layout=g.layout, job=args.layout,
                    same_job=key != "layout", pc_only=pc_only, solve=solve, ordering=order, colors=int(colors) if colors else None, type=typ,
                    generation_s=mats[key]["gen_s"], setup_s=comm.allreduce(s["setup_s"], op=MPI.MAX), pc_apply_s=statistics.median(sm["pc_apply_s"]),
                    solve_s=statistics.median(sm["solve_s"]) if sm["solve_s"] else None, iterations=sm["iterations"][-1] if sm["iterations"] else None,
                    reason=sm["reasons"][-1] if sm["reasons"] else int(s["ksp"].getConvergedReason()), samples=sm, events=ev,
                    factor={k_: v_ for k_, v_ in info.items() if k_ not in ("in_use", "decided", "time_threaded", "time_serial")} if info else None)
                for o in (s["ksp"], s["x"], s["y"]):
                    o.destroy()
                return rec

            rec = run_on(world, g, finish)
            if world.Get_rank() == 0:
                records.append(rec)
        for key in ("layout", "pair"):
            m = mats.get(key)
            if m:
                for k_, o in m.items():
                    if k_ != "gen_s":
                        o.destroy()
    if world.Get_rank() == 0:
        sys.stdout.write("@@PRECOND " + json.dumps(records) + "\n")
        sys.stdout.flush()


# ------------------------------------------------------------------------------------ launcher


def paired(args, layout):
    """Whether a layout's jobs are paired (same-job baselines; see measure): a threaded layout, not
    oversubscribed, unless --no-pair."""
    return not args.no_pair and not args.oversubscribe and int(layout.split("x")[1]) > 1


def run_job(args, layout, rnd):
    """One job; (its records, None) or ([], a failure: layout, round, detail)."""
    from aijhybrid_bench import layout as L

    R, T = (int(v) for v in layout.split("x"))
    pair = paired(args, layout)
    # a paired job: one rank per core, unbound (each binds itself)
    argv, env = L.launch("%dx1" % (R * T) if pair else layout, binding="none" if args.oversubscribe or pair else "pe", oversubscribe=args.oversubscribe)
    cmd = argv + [sys.executable, os.path.abspath(__file__), "--worker", "--layout", layout, "--matrices", args.matrices,
                  "--rows", str(args.rows), "--solves", args.solves, "--orderings", args.orderings, "--colors", args.colors,
                  "--inner-rounds", str(args.inner_rounds), "--batch-seconds", str(args.batch_seconds), "--max-it", str(args.max_it)]
    cmd += (["--pc-only"] if args.pc_only else []) + (["--paired"] if pair else [])
    cmd += (["--no-choices"] if args.no_choices else []) + (["--aa-control"] if args.aa_control else [])
    full_env = dict(os.environ, **env)
    full_env["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python")] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    before = loadavg()
    t0 = time.time()
    p = subprocess.run(cmd, env=full_env, capture_output=True, text=True)
    line = [l for l in p.stdout.splitlines() if l.startswith("@@PRECOND ")]
    if p.returncode or not line:
        detail = "exit %d:\n%s\n%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:])
        print("job %s FAILED (%s)" % (layout, detail), file=sys.stderr, flush=True)
        return [], {"layout": layout, "round": rnd, "detail": "exit %d; %s" % (p.returncode, (p.stderr.strip().splitlines() or ["no output"])[-1][:300])}
    recs = json.loads(line[-1][len("@@PRECOND "):])
    for r in recs:
        r.update(load_before=before, load_after=loadavg(), job_s=round(time.time() - t0, 1), round=rnd)
    return recs, None


def key(r):
    return (r["matrix"], r["solve"], r["ordering"], r["colors"], r["type"], r["layout"], r.get("job") or r["layout"])


def combine(all_recs):
    """Every (matrix, solve, ordering, colors, type, layout, job layout) over the layout rounds: the
    medians over all its samples (each a round of a job), and, where the factor's triangular solves
    were chosen by measurement, the choice of each sample: factor_choice is the one they all ran
    with, or "mixed", in which case by_choice gives each choice its own samples and medians (a time
    is never shown beside a choice of another round)."""
    import copy

    groups = {}
    for r in all_recs:
        groups.setdefault(key(r), []).append(r)
    out = []
    for k, rs in sorted(groups.items(), key=lambda kv: tuple(str(v) for v in kv[0])):
        r = copy.deepcopy(rs[0])
        pooled = []  # (pc_apply_s, solve_s, choice, job round, inner round)
        for x in rs:
            sm = x["samples"]
            for i, pa in enumerate(sm["pc_apply_s"]):
                ch = sm.get("choice", [])[i] if i < len(sm.get("choice", [])) else None
                ch = None if not ch or all(c is None for c in ch) else ch[0] if len(set(ch)) == 1 else "differs between ranks"
                pooled.append((pa, sm["solve_s"][i] if i < len(sm["solve_s"]) else None, ch, x.get("round"), i))
        r["pc_apply_s"] = statistics.median(p[0] for p in pooled)
        ss = [p[1] for p in pooled if p[1] is not None]
        r["solve_s"] = statistics.median(ss) if ss else None
        su = [x["setup_s"] for x in rs if x["setup_s"] is not None]
        r["setup_s"] = statistics.median(su) if su else None
        r["rounds"] = len(rs)
        r["samples_pooled"] = len(pooled)
        r["iterations_all"] = [x["iterations"] for x in rs]
        r["reasons_all"] = [x["samples"].get("reasons") or [x["reason"]] for x in rs]
        for e in r["events"]:
            r["events"][e]["time"] = statistics.median(x["events"].get(e, {"time": 0.0})["time"] for x in rs)
        chosen = sorted({p[2] for p in pooled if p[2] is not None})
        r["factor_choice"] = None if not chosen else chosen[0] if len(chosen) == 1 and all(p[2] is not None for p in pooled) else "mixed"
        if chosen:
            r["by_choice"] = []
            for c in sorted({str(p[2]) for p in pooled}):
                ps = [p for p in pooled if str(p[2]) == c]
                sv = [p[1] for p in ps if p[1] is not None]
                r["by_choice"].append({"choice": c, "samples": len(ps), "rounds": [[p[3], p[4]] for p in ps], "pc_apply_s": statistics.median(p[0] for p in ps),
                                       "solve_s": statistics.median(sv) if sv else None})
        out.append(r)
    return out


def choice_audit(all_recs):
    """The measured choice of the triangular solves (type aijhybrid) against its fixed alternatives
    (aijhybrid:threaded, aijhybrid:serial) of the same job, on PCApply: per job, what its rounds ran
    with, the cost against the faster fixed one, and a verdict (aijhybrid_bench.report.judge_job);
    a summary per (matrix, solve, ordering, layout). Returns (rows, summary).

    The cost is paired by inner round (every variant of a job is sampled once per inner round, in a
    rotated order): the median of the per-round ratios of the measured choice's batch over the better
    fixed one's, with its order-statistics interval (report.judge_job), so the drift between rounds
    cancels. With --aa-control, each fixed alternative also has a second factor of the same code
    (type aijhybrid:<value>:aa), paired with the first the same way: the A/A control, what two
    factors of the same code differ by in this job (report.aa_control); a cost is judged only where the
    control's interval lies within the cost bound."""
    from aijhybrid_bench import report

    rows, summary = [], []
    by = {}
    for r in all_recs:
        by.setdefault((r["matrix"], r["solve"], r["ordering"], r["colors"], r["layout"], r.get("job")), {}).setdefault(r["type"], []).append(r)
    for k, types in sorted(by.items(), key=lambda kv: tuple(str(v) for v in kv[0])):
        auto = types.get("aijhybrid")
        fixed = {f: types.get("aijhybrid:%s" % f) for f in FIXED_SOLVES}
        if not auto or not all(fixed.values()):
            continue
        where = {"matrix": k[0], "solve": k[1], "ordering": k[2] + ("(%d)" % k[3] if k[3] else ""), "layout": k[4], "choice": "triangular solves"}
        jobrows = []
        for a in auto:
            fx = {f: _same_round(fs, a) for f, fs in fixed.items()}
            if not all(fx.values()):
                continue
            ran = sorted({ch[0] if len(set(ch)) == 1 else "differs between ranks" for ch in a["samples"].get("choice") or []}, key=str)
            if ran == [None]:
                continue  # no threaded factor here: nothing was chosen
            paired = {f: report.paired_ratios(_apply_s(a), _apply_s(x)) for f, x in fx.items()}
            row = report.judge_job(["measuring" if c is None else c for c in ran], statistics.median(_apply_s(a)),
                                   {f: statistics.median(_apply_s(x)) for f, x in fx.items()}, paired=paired)
            aa = {f: _same_round(types.get("aijhybrid:%s:aa" % f), a) for f in FIXED_SOLVES}
            if all(aa.values()):
                row = report.aa_control(row, {f: report.paired_ratios(_apply_s(aa[f]), _apply_s(fx[f])) for f in FIXED_SOLVES})
            jobrows.append(dict(where, job=a.get("round"), **row))
        if jobrows:
            rows += jobrows
            summary.append(report.audit_summary(where, jobrows))
    return rows, summary


def _same_round(recs, a):
    """The record of recs measured in a's round (None if none)."""
    return next((x for x in recs or [] if x.get("round") == a.get("round")), None)


def _apply_s(rec):
    """A record's per-inner-round PCApply times."""
    return rec["samples"]["pc_apply_s"]


def report_choice_targets(summary):
    from aijhybrid_bench import report

    return report.choice_targets(summary)


def find(recs, **kw):
    for r in recs:
        if all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


def targets(recs):
    """The issue's targets on these records: list of (text, value, met). Each compares measurements
    of the same jobs (a paired 1x2 job measures aijhybrid at 1x1 and aij at 2x1 beside its own
    variants); a ratio of two layouts' own jobs is shown as indicative (met None), never as met."""
    res = []

    def pick(mat, solve, order, typ, layout, job):
        """(record, same job) of the same job as job if there is one, else of its own layout's jobs"""
        r = find(recs, matrix=mat, solve=solve, ordering=order, type=typ, layout=layout, job=job)
        return (r, True) if r else (find(recs, matrix=mat, solve=solve, ordering=order, type=typ.split("@")[0], layout=layout, job=layout), False)

    for mat in sorted({r["matrix"] for r in recs}):
        for solve, pcname in (("gmres_ilu0", "ILU(0)"), ("cg_icc0", "ICC(0)")):
            for order, need in (("cmrcm", 1.5), ("natural", 1.3)):
                a, sj = pick(mat, solve, order, "aijhybrid@1x1", "1x1", "1x2")
                b = find(recs, matrix=mat, solve=solve, ordering=order, type="aijhybrid", layout="1x2")
                if a and b:
                    v = a["pc_apply_s"] / b["pc_apply_s"]
                    res.append(("%s %s PCApply 1x2 vs 1x1, %s (>= %.1fx)%s" % (mat, pcname, order, need, "" if sj else ", other jobs: not judged"), "%.2fx" % v, (v >= need) if sj else None))
        for solve, text in (("gmres_ilu0", "GMRES+bjacobi/ILU(0)"), ("cg_ssor", "CG+SSOR")):
            a, sj = pick(mat, solve, "natural", "aij@2x1", "2x1", "1x2")
            b = find(recs, matrix=mat, solve=solve, ordering="natural", type="aijhybrid", layout="1x2")
            if a and b and a["solve_s"] and b["solve_s"]:
                v = a["solve_s"] / b["solve_s"]
                res.append(("%s %s solve 1x2 aijhybrid vs 2x1 aij (>= 1x, iterations <=)%s" % (mat, text, "" if sj else ", other jobs: not judged"),
                            "%.2fx, its %d vs %d" % (v, b["iterations"], a["iterations"]), (v >= 1.0 and b["iterations"] <= a["iterations"]) if sj else None))
        # issue 27: GMRES + ILU(0) setup + solve at 1x2 with thread blocks (an option, labelled so) >= 1.0x aij 2x1 bjacobi/ILU(0), the same preconditioner
        for solve, base, text in (("gmres_ilu0_blocks", "gmres_ilu0", "GMRES+ILU(0)"), ("cg_icc0_blocks", "cg_icc0", "CG+ICC(0)")):
            a, sj = pick(mat, base, "natural", "aij@2x1", "2x1", "1x2")
            b = find(recs, matrix=mat, solve=solve, ordering="natural", type="aijhybrid", layout="1x2")
            if a and b and a["solve_s"] and b["solve_s"]:
                v = (a["setup_s"] + a["solve_s"]) / (b["setup_s"] + b["solve_s"])
                res.append(("%s %s setup + solve 1x2 with -mat_aijhybrid_factor_blocks thread vs 2x1 aij bjacobi (>= 1x, iterations equal)%s" % (mat, text, "" if sj else ", other jobs: not judged"),
                            "%.2fx, its %d vs %d" % (v, b["iterations"], a["iterations"]), (v >= 1.0 and b["iterations"] == a["iterations"]) if sj else None))
        for r in recs:
            if r["matrix"] == mat and r["type"] == "aijhybrid" and r["layout"] == "1x2" and r["solve"] in ("gmres_ilu0", "cg_icc0"):
                lv = r["events"].get("AIJHybLevels", {}).get("time", 0.0)
                num = r["events"].get("MatLUFactorNum", {}).get("time", 0.0) + r["events"].get("MatCholFctrNum", {}).get("time", 0.0)
                cnt = r["events"].get("MatLUFactorNum", {}).get("count", 0) + r["events"].get("MatCholFctrNum", {}).get("count", 0)
                if num > 0 and cnt:
                    res.append(("%s %s %s: level schedules < one numeric factorization" % (mat, r["solve"], r["ordering"]), "%.3g s vs %.3g s" % (lv, num / cnt), lv < num / cnt))
    return res


def choice_text(r):
    """The triangular solves a record ran with: one choice, or each choice with its samples and medians."""
    if not r.get("by_choice"):
        return "-"
    if r.get("factor_choice") != "mixed":
        return r["factor_choice"]
    n = sum(c["samples"] for c in r["by_choice"])
    return "mixed: " + "; ".join("%s %d/%d (PCApply %.3f ms%s)" % (c["choice"], c["samples"], n, 1e3 * c["pc_apply_s"], ", solve %.3f s" % c["solve_s"] if c["solve_s"] is not None else "")
                                 for c in r["by_choice"])


def table(recs):
    lines = ["| matrix | solve | ordering | layout | type | PCApply ms | solve s | its | levels (fwd/bwd) | triangular solves | setup s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in recs:
        f = r.get("factor") or {}
        lv = "%d/%d" % (f["levels_lower"], f["levels_upper"]) if f.get("threaded") else ("serial" if f else "")
        order = r["ordering"] + ("(%d)" % r["colors"] if r["colors"] else "")
        solve = "%.3f" % r["solve_s"] if r["solve_s"] is not None else "-"
        its = "%d" % r["iterations"] if r["iterations"] is not None else "-"
        lay = r["layout"] + (" (%s job)" % r["job"] if r.get("job") and r["job"] != r["layout"] else "")
        lines.append("| %s | %s | %s | %s | %s | %.3f | %s | %s | %s | %s | %.3f |" % (r["matrix"], r["solve"], order, lay, r["type"], 1e3 * r["pc_apply_s"], solve, its, lv, choice_text(r), r["setup_s"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--paired", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--layout", help=argparse.SUPPRESS)
    ap.add_argument("--matrices", default="poisson7,extruded", help="name[:rows],... (aijhybrid_bench.matrices)")
    ap.add_argument("--rows", type=int, default=500000)
    ap.add_argument("--layouts", default="1x1,2x1,1x2")
    ap.add_argument("--solves", default=",".join(SOLVES))
    ap.add_argument("--orderings", default="natural,cmrcm")
    ap.add_argument("--colors", default="", help="CM-RCM colors, a list measures each (default: the package's, 24)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the layout jobs (alternating)")
    ap.add_argument("--inner-rounds", type=int, default=3, help="rounds of the variants inside a job")
    ap.add_argument("--batch-seconds", type=float, default=0.3)
    ap.add_argument("--max-it", type=int, default=2000)
    ap.add_argument("--pc-only", action="store_true", help="PCApply only: no timed whole solves (the warm-up solve stops after 2 iterations)")
    ap.add_argument("--no-pair", action="store_true", help="threaded layouts without their same-job baselines (their targets are then not judged)")
    ap.add_argument("--no-choices", action="store_true", help="without the fixed alternatives of the measured choice of the triangular solves (no audit)")
    ap.add_argument("--aa-control", action="store_true",
                    help="a second factor of each fixed alternative (aijhybrid:<value>:aa), paired with the first: the audit's A/A control")
    ap.add_argument("--oversubscribe", action="store_true")
    ap.add_argument("--out", default=os.path.join(REPO, "build", "bench", "precond.json"))
    args = ap.parse_args()
    if args.worker:
        measure(args)
        return 0
    sys.path.insert(0, os.path.join(REPO, "python"))
    from aijhybrid_bench import checks

    layouts = args.layouts.split(",")
    all_recs, failures = [], []
    for rnd in range(args.rounds):
        order = layouts[rnd % len(layouts):] + layouts[:rnd % len(layouts)]
        for lay in order:
            print("round %d layout %s%s (load %s)" % (rnd + 1, lay, " with its same-job baselines" if paired(args, lay) else "", loadavg()), flush=True)
            recs, failure = run_job(args, lay, rnd)
            all_recs += recs
            if failure:
                failures.append(failure)
    recs = combine(all_recs)
    audit, summary = choice_audit(all_recs)
    from aijhybrid_bench import report

    # the choices' lines keep what their verdict needs (an interval that did not resolve: "resolved" false)
    tg = [{"target": t, "value": v, "met": m} for t, v, m in targets(recs)] + [
        dict({"target": t["target"] + " %s %s" % (t["matrix"], t["layout"]), "value": ("%.3f" % t["value"]) + (" (%s)" % t["detail"] if t["detail"] else ""), "met": t["met"]},
             **{k: t[k] for k in ("resolved", "interval", "interval_coverage") if k in t}) for t in report_choice_targets(summary)]
    doc = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "args": vars(args), "records": recs, "samples": all_recs, "failures": failures,
           "choice_audit": audit, "choice_summary": summary, "targets": tg}
    doc["problems"] = checks.precond_problems(doc)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
    print(table(recs))
    print()
    for t in tg:
        print("%-95s %s  %s" % (t["target"], t["value"], {"missed": "MISS"}.get(report.verdict_of(t), report.verdict_of(t))))
    print("record: %s" % args.out)
    if doc["problems"]:
        print("precond: FAILED: %d problem(s) (the record lists them under \"problems\"):\n  %s" % (len(doc["problems"]), "\n  ".join(checks.text(doc["problems"]))), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
