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
    MatLUFactorNum/MatCholFctrNum (one numeric factorization), AIJHybLevels (level schedules),
    MatILUFactorSym/MatICCFactorSym, PCApply, MatSolve, MatSOR, MatMult, KSPSolve;
  - the factor's levels (forward/backward) and whether its solves are threaded.
Variants (PETSc's defaults where not said): gmres_ilu0 (GMRES + ILU(0), bjacobi blocks on
several ranks: PETSc's default solver), cg_icc0 (CG + ICC(0)), cg_ssor (CG + SOR, local symmetric
sweeps), gamg_sor (CG + GAMG with SOR smoothing), each with the natural and the CM-RCM ordering
where a factor is involved; aij runs at layouts with one thread only.

Output: a JSON record (--out; every sample, the medians, the machine load before and after each
job) and a table with the issue's targets evaluated on it (provisional on a shared machine).

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
EVENTS = ["PCSetUp", "MatLUFactorNum", "MatCholFctrNum", "MatILUFactorSym", "MatICCFactorSym", "AIJHybLevels",
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

    class Handle:  # what get_factor_info reads
        handle = F.value

    return ph.get_factor_info(Handle())


def measure(args):
    """One job: every matrix, type and variant of this layout; prints one JSON record."""
    import petsc4py

    petsc4py.init([sys.argv[0], "-options_left", "0"])
    from petsc4py import PETSc
    from mpi4py import MPI

    import petsc_aijhybrid as ph
    from aijhybrid_bench import matrices

    comm = MPI.COMM_WORLD
    R, T = (int(v) for v in args.layout.split("x"))
    PETSc.Log.begin()
    opts = PETSc.Options()
    records = []
    for spec in args.matrices.split(","):
        name, _, rows = spec.partition(":")
        rows = int(rows or args.rows)
        t0 = time.time()
        A = matrices.create(name, rows)
        b = matrices.rhs(A)
        gen_s = time.time() - t0
        types = ["aij", "aijhybrid"] if T == 1 else ["aijhybrid"]
        mats = {"aij": A}
        if "aijhybrid" in types:
            H = A.duplicate(copy=True)
            H.convert("aijhybrid")
            ph.set_num_threads(H, T)
            mats["aijhybrid"] = H
        variants = []
        for solve in args.solves.split(","):
            ktype, one, many, factor = SOLVES[solve]
            for order in (args.orderings.split(",") if factor else ["natural"]):
                for colors in (args.colors.split(",") if factor and order == "cmrcm" and args.colors else [None]):
                    for typ in types:
                        if solve not in BLOCKS or typ == "aijhybrid":
                            variants.append((solve, order, colors, typ))
        setups = []
        for k, (solve, order, colors, typ) in enumerate(variants):
            ktype, one, many, factor = SOLVES[solve]
            prefix = "v%d_" % k
            pcopts = dict(one if R == 1 else many)
            if factor:
                pcopts[("pc" if R == 1 else "sub_pc") + "_factor_mat_ordering_type"] = order
            for key, val in pcopts.items():
                opts.setValue(prefix + key, val)
            if colors:
                opts.setValue("mat_ordering_cmrcm_colors", colors)
            else:
                opts.delValue("mat_ordering_cmrcm_colors")
            stage = PETSc.Log.Stage("%s_%s%s_%s" % (solve, order, colors or "", typ))
            ksp = PETSc.KSP().create(comm=A.getComm())
            ksp.setOptionsPrefix(prefix)
            ksp.setOperators(mats[typ])
            ksp.setType(ktype)
            ksp.setTolerances(rtol=1e-8, max_it=args.max_it)
            ksp.setFromOptions()
            x = b.duplicate()
            if solve in BLOCKS:  # read when the factor is made (the matrix's setting)
                ph.set_factor_blocks(mats[typ], "thread")
            stage.push()
            t0 = MPI.Wtime()
            ksp.setUp()
            ksp.getPC().setUpOnBlocks()
            setup_s = MPI.Wtime() - t0
            if solve in BLOCKS:
                ph.set_factor_blocks(mats[typ], "none")
            x.set(0.0)
            if args.pc_only:
                ksp.setTolerances(max_it=2)
            ksp.solve(b, x)  # warm-up
            stage.pop()
            info = factor_info(ksp.getPC(), ph) if factor else None
            setups.append(dict(ksp=ksp, x=x, stage=stage, setup_s=setup_s, info=info))
        samples = {k: {"pc_apply_s": [], "solve_s": [], "iterations": []} for k in range(len(variants))}
        y = b.duplicate()
        for rnd in range(args.inner_rounds):
            order_k = list(range(len(variants)))
            order_k = order_k[rnd % len(order_k):] + order_k[:rnd % len(order_k)]
            if rnd % 2:
                order_k.reverse()
            for k in order_k:
                s = setups[k]
                pc = s["ksp"].getPC()
                s["stage"].push()
                comm.Barrier()
                t0 = MPI.Wtime()
                pc.apply(b, y)
                one_s = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
                nb = max(1, min(200, int(args.batch_seconds / max(one_s, 1e-6))))
                comm.Barrier()
                t0 = MPI.Wtime()
                for _ in range(nb):
                    pc.apply(b, y)
                comm.Barrier()
                samples[k]["pc_apply_s"].append((MPI.Wtime() - t0) / nb)
                if not args.pc_only:
                    s["x"].set(0.0)
                    comm.Barrier()
                    t0 = MPI.Wtime()
                    s["ksp"].solve(b, s["x"])
                    comm.Barrier()
                    samples[k]["solve_s"].append(MPI.Wtime() - t0)
                    samples[k]["iterations"].append(s["ksp"].getIterationNumber())
                s["stage"].pop()
        for k, (solve, order, colors, typ) in enumerate(variants):
            s = setups[k]
            ev = {}
            for e in EVENTS:
                try:
                    pi = PETSc.Log.Event(e).getPerfInfo(s["stage"].id)
                except Exception:  # event not registered in this PETSc
                    continue
                ev[e] = {"time": comm.allreduce(pi["time"], op=MPI.MAX), "count": comm.allreduce(pi["count"], op=MPI.MAX)}
            reason = int(s["ksp"].getConvergedReason())
            records.append(dict(
                matrix=name, rows=A.getSize()[0], nnz=int(A.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["nz_used"]), layout=args.layout,
                solve=solve, ordering=order, colors=int(colors) if colors else None, type=typ, generation_s=gen_s,
                setup_s=comm.allreduce(s["setup_s"], op=MPI.MAX), pc_apply_s=statistics.median(samples[k]["pc_apply_s"]),
                solve_s=statistics.median(samples[k]["solve_s"]) if samples[k]["solve_s"] else None,
                iterations=samples[k]["iterations"][-1] if samples[k]["iterations"] else None, reason=reason,
                samples=samples[k], events=ev, factor=s["info"]))
        for s in setups:
            s["ksp"].destroy()
            s["x"].destroy()
        for m in mats.values():
            m.destroy()
        b.destroy()
        y.destroy()
    if comm.Get_rank() == 0:
        sys.stdout.write("@@PRECOND " + json.dumps(records) + "\n")
        sys.stdout.flush()


# ------------------------------------------------------------------------------------ launcher


def run_job(args, layout):
    from aijhybrid_bench import layout as L

    argv, env = L.launch(layout, binding="none" if args.oversubscribe else "pe", oversubscribe=args.oversubscribe)
    cmd = argv + [sys.executable, os.path.abspath(__file__), "--worker", "--layout", layout, "--matrices", args.matrices,
                  "--rows", str(args.rows), "--solves", args.solves, "--orderings", args.orderings, "--colors", args.colors,
                  "--inner-rounds", str(args.inner_rounds), "--batch-seconds", str(args.batch_seconds), "--max-it", str(args.max_it)] + (["--pc-only"] if args.pc_only else [])
    full_env = dict(os.environ, **env)
    full_env["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python")] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    before = loadavg()
    t0 = time.time()
    p = subprocess.run(cmd, env=full_env, capture_output=True, text=True)
    line = [l for l in p.stdout.splitlines() if l.startswith("@@PRECOND ")]
    if p.returncode or not line:
        raise SystemExit("job %s failed (%d):\n%s\n%s" % (layout, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    recs = json.loads(line[-1][len("@@PRECOND "):])
    for r in recs:
        r.update(load_before=before, load_after=loadavg(), job_s=round(time.time() - t0, 1))
    return recs


def key(r):
    return (r["matrix"], r["solve"], r["ordering"], r["colors"], r["type"], r["layout"])


def combine(all_recs):
    """Medians over the layout rounds of every (matrix, solve, ordering, colors, type, layout)."""
    groups = {}
    for r in all_recs:
        groups.setdefault(key(r), []).append(r)
    out = []
    for k, rs in sorted(groups.items(), key=lambda kv: tuple(str(v) for v in kv[0])):
        r = dict(rs[0])
        for f in ("pc_apply_s", "solve_s", "setup_s"):
            vals = [x[f] for x in rs if x[f] is not None]
            r[f] = statistics.median(vals) if vals else None
        r["rounds"] = len(rs)
        r["iterations_all"] = [x["iterations"] for x in rs]
        for e in r["events"]:
            r["events"][e]["time"] = statistics.median(x["events"].get(e, {"time": 0.0})["time"] for x in rs)
        out.append(r)
    return out


def find(recs, **kw):
    for r in recs:
        if all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


def targets(recs):
    """The issue's targets on these records: list of (text, value, met)."""
    res = []
    for mat in sorted({r["matrix"] for r in recs}):
        for solve, pcname in (("gmres_ilu0", "ILU(0)"), ("cg_icc0", "ICC(0)")):
            for order, need in (("cmrcm", 1.5), ("natural", 1.3)):
                a = find(recs, matrix=mat, solve=solve, ordering=order, type="aijhybrid", layout="1x1")
                b = find(recs, matrix=mat, solve=solve, ordering=order, type="aijhybrid", layout="1x2")
                if a and b:
                    v = a["pc_apply_s"] / b["pc_apply_s"]
                    res.append(("%s %s PCApply 1x2 vs 1x1, %s (>= %.1fx)" % (mat, pcname, order, need), "%.2fx" % v, v >= need))
        for solve, text in (("gmres_ilu0", "GMRES+bjacobi/ILU(0)"), ("cg_ssor", "CG+SSOR")):
            a = find(recs, matrix=mat, solve=solve, ordering="natural", type="aij", layout="2x1")
            b = find(recs, matrix=mat, solve=solve, ordering="natural", type="aijhybrid", layout="1x2")
            if a and b and a["solve_s"] and b["solve_s"]:
                v = a["solve_s"] / b["solve_s"]
                res.append(("%s %s solve 1x2 aijhybrid vs 2x1 aij (>= 1x, iterations <=)" % (mat, text), "%.2fx, its %d vs %d" % (v, b["iterations"], a["iterations"]), v >= 1.0 and b["iterations"] <= a["iterations"]))
        # issue 27: GMRES + ILU(0) setup + solve at 1x2 (thread blocks) >= 1.0x aij 2x1 bjacobi/ILU(0), the same preconditioner
        for solve, base, text in (("gmres_ilu0_blocks", "gmres_ilu0", "GMRES+ILU(0)"), ("cg_icc0_blocks", "cg_icc0", "CG+ICC(0)")):
            a = find(recs, matrix=mat, solve=base, ordering="natural", type="aij", layout="2x1")
            b = find(recs, matrix=mat, solve=solve, ordering="natural", type="aijhybrid", layout="1x2")
            if a and b and a["solve_s"] and b["solve_s"]:
                v = (a["setup_s"] + a["solve_s"]) / (b["setup_s"] + b["solve_s"])
                res.append(("%s %s thread blocks setup + solve 1x2 vs 2x1 aij bjacobi (>= 1x, iterations equal)" % (mat, text), "%.2fx, its %d vs %d" % (v, b["iterations"], a["iterations"]), v >= 1.0 and b["iterations"] == a["iterations"]))
        for r in recs:
            if r["matrix"] == mat and r["type"] == "aijhybrid" and r["layout"] == "1x2" and r["solve"] in ("gmres_ilu0", "cg_icc0"):
                lv = r["events"].get("AIJHybLevels", {}).get("time", 0.0)
                num = r["events"].get("MatLUFactorNum", {}).get("time", 0.0) + r["events"].get("MatCholFctrNum", {}).get("time", 0.0)
                cnt = r["events"].get("MatLUFactorNum", {}).get("count", 0) + r["events"].get("MatCholFctrNum", {}).get("count", 0)
                if num > 0 and cnt:
                    res.append(("%s %s %s: level schedules < one numeric factorization" % (mat, r["solve"], r["ordering"]), "%.3g s vs %.3g s" % (lv, num / cnt), lv < num / cnt))
    return res


def table(recs):
    lines = ["| matrix | solve | ordering | layout | type | PCApply ms | solve s | its | levels (fwd/bwd) | setup s |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in recs:
        f = r.get("factor") or {}
        lv = "%d/%d" % (f["levels_lower"], f["levels_upper"]) if f.get("threaded") else ("serial" if f else "")
        order = r["ordering"] + ("(%d)" % r["colors"] if r["colors"] else "")
        solve = "%.3f" % r["solve_s"] if r["solve_s"] is not None else "-"
        its = "%d" % r["iterations"] if r["iterations"] is not None else "-"
        lines.append("| %s | %s | %s | %s | %s | %.3f | %s | %s | %s | %.3f |" % (r["matrix"], r["solve"], order, r["layout"], r["type"], 1e3 * r["pc_apply_s"], solve, its, lv, r["setup_s"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
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
    ap.add_argument("--oversubscribe", action="store_true")
    ap.add_argument("--out", default=os.path.join(REPO, "build", "bench", "precond.json"))
    args = ap.parse_args()
    if args.worker:
        measure(args)
        return
    layouts = args.layouts.split(",")
    all_recs = []
    for rnd in range(args.rounds):
        order = layouts[rnd % len(layouts):] + layouts[:rnd % len(layouts)]
        for lay in order:
            print("round %d layout %s (load %s)" % (rnd + 1, lay, loadavg()), flush=True)
            all_recs += run_job(args, lay)
    recs = combine(all_recs)
    tg = targets(recs)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M:%S"), "args": vars(args), "records": recs, "samples": all_recs,
                   "targets": [{"target": t, "value": v, "met": m} for t, v, m in tg]}, fh, indent=1)
    print(table(recs))
    print()
    for t, v, m in tg:
        print("%-95s %s  %s" % (t, v, "met" if m else "MISS"))
    print("record: %s" % args.out)


if __name__ == "__main__":
    main()
