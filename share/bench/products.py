#!/usr/bin/env python3
"""Sparse products benchmark (issue 27, item 2): MatPtAP, MatMatMult (A P) and MatTransposeMatMult
(P^T A) of the operators and interpolations of a PCGAMG hierarchy, PETSc's aij against aijhybrid,
standalone (the benchmark driver's setup section can take over its worker; see "How it joins the
driver" below).

    python3 share/bench/products.py                                  # poisson7 and extruded, 10^6 rows, 1x1 2x1 1x2, 3 rounds
    python3 share/bench/products.py --matrices poisson7 --rows 125000 --rounds 1 --reps 1   # a trial run
    python3 share/bench/products.py --layouts 1x1,1x2 --ops ptap,ptap_reuse --out build/bench/products.json

The hierarchy is made once per matrix (CG + PCGAMG with PETSc's defaults, aij, one rank) and kept in
build/bench/products-<matrix>-<rows>.bin: every layout multiplies the same matrices (PCGAMG on more
ranks would aggregate differently). The launcher starts one MPI job per layout (ranks x threads,
pinned one core per thread as the driver pins), the layouts alternating round after round (A B C A
B C: drift hits all alike); a job loads the levels (MatLoad: PETSc's row distribution), and for
each type it runs (aij at layouts of one thread per rank, aijhybrid everywhere, its thread count
that of the layout) times every product of every level --reps times after one untimed run, between
barriers, the types alternating (A B A B), and reports the medians. The record has every sample;
the table the medians over the rounds of the sums over the levels, and the targets of the issue
evaluated on them:
  - aijhybrid 1x2 >= 1.7x aijhybrid 1x1 (each product summed over the levels);
  - aijhybrid 1x1 >= 0.98x aij 1x1 (nothing slower than PETSc's at one thread).
Products:
  ptap         MatPtAP(A, P, MAT_INITIAL_MATRIX): symbolic and numeric phases
  ptap_reuse   MatPtAP(A, P, MAT_REUSE_MATRIX) after MAT_INITIAL_MATRIX: the numeric phase (PCGAMG
               with -pc_gamg_reuse_interpolation, a Newton step)
  ap           MatMatMult(A, P): the prolongator smoothing's product
  pta          MatTransposeMatMult(P, A)
Every product's result is checked against PETSc's aij product of the same level at the same layout
(pattern equal, values within REL_DIFF_BOUND of the largest entry): a difference is a failure, the
record lists it under "problems" and the script exits 1. `make records` keeps the record of a quiet
run as `bench-products` (share/results/bench/products.json); other runs are indicative.

How it joins the driver: the worker (measure()) is one job of the driver's layout loop; its
records are per (matrix, level, product, type, layout) like the driver's MatMult timings, with
medians of --reps samples; targets() is the report's evaluation.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

from aijhybrid_bench.checks import PRODUCTS_REL_DIFF  # noqa: E402 (after the path)

OPS = ("ptap", "ptap_reuse", "ap", "pta")


def loadavg():
    try:
        return [float(v) for v in open("/proc/loadavg").read().split()[:3]]
    except OSError:
        return None


def levels_path(out_dir, name, rows):
    return os.path.join(out_dir, "products-%s-%d.bin" % (name, rows))


# ------------------------------------------------------------------------------------ worker


def make_levels(args):
    """CG + PCGAMG (PETSc's defaults, aij, one rank) on the matrix; its level operators and
    interpolations, finest first, into the binary file args.levels"""
    import petsc4py

    petsc4py.init([sys.argv[0]])
    from petsc4py import PETSc

    from aijhybrid_bench import matrices

    A = matrices.create(args.matrix, args.rows, mat_type="aij")
    ksp = PETSc.KSP().create()
    ksp.setOperators(A)
    ksp.setType("cg")
    ksp.getPC().setType("gamg")
    ksp.setUp()
    pc = ksp.getPC()
    tmp = args.levels + ".part"
    v = PETSc.Viewer().createBinary(tmp, "w")
    desc = []
    for l in range(pc.getMGLevels() - 1, 0, -1):
        Al = pc.getMGSmoother(l).getOperators()[0]
        P = pc.getMGInterpolation(l)
        Al.view(v)
        P.view(v)
        desc.append({"rows": Al.getSize()[0], "nnz": int(Al.getInfo()["nz_used"]), "coarse": P.getSize()[1], "p_nnz": int(P.getInfo()["nz_used"])})
    v.destroy()
    os.replace(tmp, args.levels)
    with open(args.levels + ".json", "w") as fh:
        json.dump(desc, fh)


def measure(args):
    import petsc4py

    petsc4py.init([sys.argv[0]])
    from mpi4py import MPI
    from petsc4py import PETSc

    comm = PETSc.COMM_WORLD
    ranks, threads = (int(v) for v in args.layout.split("x"))
    types = ["aijhybrid"] + (["aij"] if threads == 1 else [])
    import petsc_aijhybrid as ph

    v = PETSc.Viewer().createBinary(args.levels, "r")
    levels = []
    for _ in range(args.nlevels):
        A = PETSc.Mat().load(v)
        P = PETSc.Mat().load(v)
        levels.append((A, P))
    recs = []

    def timed(fn):
        comm.barrier()
        t0 = time.perf_counter()
        fn()
        comm.barrier()
        t1 = time.perf_counter()
        return comm.tompi4py().allreduce(t1 - t0, op=MPI.MAX)

    def check(C, ref):
        """(same pattern on every rank, max |C - ref| / max |ref| over the ranks) of two products with
        the same row distribution"""
        ia, ja, va = ref.getValuesCSR()
        ib, jb, vb = C.getValuesCSR()
        same = bool(len(ia) == len(ib) and len(ja) == len(jb) and (ia == ib).all() and (ja == jb).all())
        mpi = comm.tompi4py()
        same = mpi.allreduce(same, op=MPI.LAND)
        diff = float(abs(va - vb).max()) if same and len(va) else 0.0
        scale = float(abs(va).max()) if len(va) else 0.0
        diff, scale = mpi.allreduce(diff, op=MPI.MAX), mpi.allreduce(scale, op=MPI.MAX)
        return same, (diff / scale if scale else diff)

    for l, (Aa, Pa) in enumerate(levels):
        mats = {}
        ref = Aa.ptap(Pa)  # PETSc's aij product at this layout: what every type's result is checked against
        for mtype in types:
            A = Aa.convert(mtype, PETSc.Mat()) if mtype != "aij" else Aa
            P = Pa.convert(mtype, PETSc.Mat()) if mtype != "aij" else Pa
            if mtype == "aijhybrid":
                ph.set_num_threads(A, threads)
                ph.set_num_threads(P, threads)
            mats[mtype] = {"A": A, "P": P, "C": A.ptap(P)}
            mats[mtype]["same_pattern"], mats[mtype]["rel_diff_vs_aij"] = check(mats[mtype]["C"], ref)
        ref.destroy()

        def run(m, op):
            A, P = m["A"], m["P"]
            if op == "ptap":
                A.ptap(P).destroy()
            elif op == "ptap_reuse":
                A.ptap(P, m["C"])
            elif op == "ap":
                A.matMult(P).destroy()
            elif op == "pta":
                P.transposeMatMult(A).destroy()

        for op in args.ops.split(","):
            for mtype in types:
                run(mats[mtype], op)  # untimed: first-touch, caches
            samples = {mtype: [] for mtype in types}
            for rep in range(args.reps):  # the types alternating, A B A B (B A B A on odd levels)
                order = types if (rep + l) % 2 == 0 else types[::-1]
                for mtype in order:
                    samples[mtype].append(timed(lambda: run(mats[mtype], op)))
            for mtype in types:
                recs.append(dict(matrix=args.matrix, rows=args.rows, level=l, op=op, type=mtype, layout=args.layout, samples=samples[mtype], median=statistics.median(samples[mtype]),
                                 result_type=mats[mtype]["C"].getType(), same_pattern=mats[mtype]["same_pattern"], rel_diff_vs_aij=mats[mtype]["rel_diff_vs_aij"]))
        for mtype in types:
            mats[mtype]["C"].destroy()
            if mtype != "aij":
                mats[mtype]["A"].destroy()
                mats[mtype]["P"].destroy()
    if comm.getRank() == 0:
        print("@@PRODUCTS " + json.dumps(recs), flush=True)


# ------------------------------------------------------------------------------------ launcher


def launch(layout, oversubscribe):
    from aijhybrid_bench import layout as L

    return L.launch(layout, binding="none" if oversubscribe else "pe", oversubscribe=oversubscribe)


def child_env(env):
    full = dict(os.environ, **env)
    full["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python")] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    return full


def ensure_levels(args, name, rows):
    path = levels_path(args.levels_dir, name, rows)
    if not os.path.exists(path):
        os.makedirs(args.levels_dir, exist_ok=True)
        print("making the PCGAMG hierarchy of %s (%d rows) into %s" % (name, rows, path), flush=True)
        argv, env = launch("1x1", args.oversubscribe)
        p = subprocess.run(argv + [sys.executable, os.path.abspath(__file__), "--make-levels", "--matrix", name, "--rows", str(rows), "--levels", path], env=child_env(env), capture_output=True, text=True)
        if p.returncode:
            raise SystemExit("making the levels failed:\n%s\n%s" % (p.stdout[-3000:], p.stderr[-3000:]))
    desc = json.load(open(path + ".json"))
    return path, desc


def run_job(args, name, rows, path, nlevels, layout):
    argv, env = launch(layout, args.oversubscribe)
    cmd = argv + [sys.executable, os.path.abspath(__file__), "--worker", "--layout", layout, "--matrix", name, "--rows", str(rows), "--levels", path, "--nlevels", str(nlevels), "--ops", args.ops,
                  "--reps", str(args.reps)]
    before = loadavg()
    t0 = time.time()
    p = subprocess.run(cmd, env=child_env(env), capture_output=True, text=True)
    line = [l for l in p.stdout.splitlines() if l.startswith("@@PRODUCTS ")]
    if p.returncode or not line:
        raise SystemExit("job %s failed (%d):\n%s\n%s" % (layout, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    recs = json.loads(line[-1][len("@@PRODUCTS "):])
    for r in recs:
        r.update(load_before=before, load_after=loadavg(), job_s=round(time.time() - t0, 1))
    return recs


REL_DIFF_BOUND = PRODUCTS_REL_DIFF  # the bound on a product's max |C - C_aij| / max |C_aij| (rounding only)


def problems(samples):
    """what makes a record of this benchmark wrong: a product whose pattern or values differ from
    PETSc's aij product of the same level at the same layout"""
    out = []
    for r in samples:
        if r.get("same_pattern") is False:
            out.append("%s level %d %s %s %s: pattern differs from aij's" % (r["matrix"], r["level"], r["op"], r["type"], r["layout"]))
        elif (r.get("rel_diff_vs_aij") or 0.0) > REL_DIFF_BOUND:
            out.append("%s level %d %s %s %s: values %.2e off aij's (bound %.0e)" % (r["matrix"], r["level"], r["op"], r["type"], r["layout"], r["rel_diff_vs_aij"], REL_DIFF_BOUND))
    return sorted(set(out))


def combine(samples):
    """per (matrix, op, type, layout): the median over the rounds of the sum over the levels of each job's medians"""
    jobs = {}
    for r in samples:
        k = (r["matrix"], r["op"], r["type"], r["layout"], r["round"])
        jobs.setdefault(k, []).append(r["median"])
    groups = {}
    for (m, op, t, lay, _), meds in jobs.items():
        groups.setdefault((m, op, t, lay), []).append(sum(meds))
    return {k: {"median_s": statistics.median(v), "rounds": v} for k, v in groups.items()}


def targets(comb):
    out = []
    for (m, op, t, lay), v in sorted(comb.items()):
        if t == "aijhybrid" and lay == "1x2" and (m, op, t, "1x1") in comb:
            ratio = comb[(m, op, t, "1x1")]["median_s"] / v["median_s"]
            out.append(("%s %s: aijhybrid 1x2 vs aijhybrid 1x1 >= 1.7x" % (m, op), "%.2fx" % ratio, ratio >= 1.7))
        if t == "aijhybrid" and lay == "1x1" and (m, op, "aij", "1x1") in comb:
            ratio = comb[(m, op, "aij", "1x1")]["median_s"] / v["median_s"]
            out.append(("%s %s: aijhybrid 1x1 vs aij 1x1 >= 0.98x" % (m, op), "%.2fx" % ratio, ratio >= 0.98))
    return out


def table(comb, layouts):
    cols = [("aij", l) for l in layouts if l.endswith("x1")] + [("aijhybrid", l) for l in layouts]
    lines = ["%-10s %-11s " % ("matrix", "product") + " ".join("%15s" % ("%s %s" % (t, l)) for t, l in cols)]
    for m, op in sorted({(k[0], k[1]) for k in comb}):
        cells = []
        for t, l in cols:
            v = comb.get((m, op, t, l))
            cells.append("%15s" % ("%.3f s" % v["median_s"] if v else "-"))
        lines.append("%-10s %-11s " % (m, op) + " ".join(cells))
    return "\n".join(lines)


def from_medians(medians):
    """combine()'s dict again from a record's "medians" list"""
    return {(m["matrix"], m["op"], m["type"], m["layout"]): m for m in medians}


def markdown(comb, layouts):
    """the table of table() in Markdown: the median seconds over the rounds of each product summed
    over the levels, per matrix, product, type and layout"""
    cols = [("aij", l) for l in layouts if l.endswith("x1")] + [("aijhybrid", l) for l in layouts]
    lines = ["| matrix | product | " + " | ".join("%s %s s" % c for c in cols) + " |", "| --- | --- |" + " ---: |" * len(cols)]
    for m, op in sorted({(k[0], k[1]) for k in comb}):
        lines.append("| %s | %s | " % (m, op) + " | ".join("%.3f" % comb[(m, op, t, l)]["median_s"] if (m, op, t, l) in comb else "-" for t, l in cols) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--make-levels", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--layout", help=argparse.SUPPRESS)
    ap.add_argument("--matrix", help=argparse.SUPPRESS)
    ap.add_argument("--levels", help=argparse.SUPPRESS)
    ap.add_argument("--nlevels", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--matrices", default="poisson7,extruded", help="names of petsc_aijhybrid.matrices, name:rows for another size")
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--layouts", default="1x1,2x1,1x2")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the layout jobs (alternating)")
    ap.add_argument("--reps", type=int, default=3, help="timed runs of each product in a job (after one untimed)")
    ap.add_argument("--oversubscribe", action="store_true")
    ap.add_argument("--levels-dir", default=os.path.join(REPO, "build", "bench"))
    ap.add_argument("--out", default=os.path.join(REPO, "build", "bench", "products.json"))
    args = ap.parse_args()
    if args.make_levels:
        make_levels(args)
        return 0
    if args.worker:
        measure(args)
        return 0
    layouts = args.layouts.split(",")
    samples, described = [], {}
    for spec in args.matrices.split(","):
        name, _, rows = spec.partition(":")
        rows = int(rows) if rows else args.rows
        path, desc = ensure_levels(args, name, rows)
        described[name] = desc
        for rnd in range(args.rounds):
            order = layouts[rnd % len(layouts):] + layouts[:rnd % len(layouts)]
            for lay in order:
                print("%s round %d layout %s (load %s)" % (name, rnd + 1, lay, loadavg()), flush=True)
                for r in run_job(args, name, rows, path, len(desc), lay):
                    r["round"] = rnd
                    samples.append(r)
    comb = combine(samples)
    tg = targets(comb)
    bad = problems(samples)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M:%S"), "args": vars(args), "levels": described, "samples": samples,
                   "medians": [dict(matrix=k[0], op=k[1], type=k[2], layout=k[3], **v) for k, v in sorted(comb.items())],
                   "targets": [{"target": t, "value": v, "met": m} for t, v, m in tg], "problems": bad}, fh, indent=1)
    print(table(comb, layouts))
    print()
    for t, v, m in tg:
        print("%-70s %s  %s" % (t, v, "met" if m else "MISS"))
    for b in bad:
        print("FAILED: " + b)
    print("record: %s" % args.out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
