#!/usr/bin/env python3
"""The main job of `make run`: a 3D Poisson problem solved with CG + Jacobi, with -mat_type aij and
-mat_type aijhybrid, side by side at the same core counts, printing iterations, final residual and
the MatMult time (mean of repeated products inside the process, after the solve).

Usage: run.py BUILD_DIR [-n GRID] [--reps K] [--rounds R]
Layouts on this machine: 1 core (1 rank x 1 thread) and 2 cores (aij: 2 ranks x 1 thread; aijhybrid:
1 rank x 2 threads and 2 ranks x 1 thread). Configurations alternate (A B A B ...) for R rounds and
the median is reported, since the machine is shared and noisy.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

p = argparse.ArgumentParser()
p.add_argument("build")
p.add_argument("-n", type=int, default=100, help="grid points per direction (n^3 unknowns)")
p.add_argument("--reps", type=int, default=50, help="timed MatMult calls per run")
p.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians are reported")
args = p.parse_args()

ex1 = os.path.join(args.build, "examples", "ex1")
cores = os.cpu_count() or 1
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")

configs = [  # (label, type, ranks, threads)
    ("aij", "aij", 1, 1),
    ("aijhybrid", "aijhybrid", 1, 1),
]
if cores >= 2:
    configs += [
        ("aij", "aij", 2, 1),
        ("aijhybrid", "aijhybrid", 1, 2),
        ("aijhybrid", "aijhybrid", 2, 1),
    ]


def run(mtype, ranks, threads):
    cmd = ["mpiexec", "--bind-to", "none" if threads > 1 else "core", "-n", str(ranks), ex1, "-n", str(args.n),
           "-mat_type", mtype, "-timing", "-mult_reps", str(args.reps)]
    if mtype == "aijhybrid":
        cmd += ["-mat_aijhybrid_num_threads", str(threads)]
    out = subprocess.run(cmd, env=dict(env, OMP_NUM_THREADS=str(threads)), capture_output=True, text=True, timeout=900)
    if out.returncode:
        sys.exit("run failed: %s\n%s%s" % (" ".join(cmd), out.stdout, out.stderr))
    m = re.search(r"RESULT type=(\S+) ranks=(\d+) threads=(\d+) n=(\d+) its=(\d+) relres=(\S+) solve=(\S+) mult=(\S+)", out.stdout)
    if not m:
        sys.exit("no RESULT line from: %s\n%s" % (" ".join(cmd), out.stdout))
    return dict(type=m.group(1), its=int(m.group(5)), relres=float(m.group(6)), solve=float(m.group(7)), mult=float(m.group(8)))


print("3D Poisson, 7-point, %d^3 = %d unknowns, CG + Jacobi (rtol 1e-8); %d cores here; medians of %d alternating rounds"
      % (args.n, args.n ** 3, cores, args.rounds), flush=True)
results = {c: [] for c in configs}
for r in range(args.rounds):
    for c in configs:
        results[c].append(run(c[1], c[2], c[3]))
        print(".", end="", flush=True)
print()

rows = []
for c in configs:
    rs = results[c]
    rows.append((c, rs[0]["type"], rs[0]["its"], rs[0]["relres"], statistics.median(x["solve"] for x in rs),
                 statistics.median(x["mult"] for x in rs)))
base = {}
for c, t, its, res, solve, mult in rows:
    if c[1] == "aij":
        base[c[2] * c[3]] = mult
hdr = "%-14s %-7s %-5s %-6s %6s %12s %10s %14s %12s" % ("type", "ranks", "thr", "cores", "iters", "rel.resid", "solve s", "MatMult ms", "vs aij")
print(hdr)
print("-" * len(hdr))
for c, t, its, res, solve, mult in rows:
    cores_used = c[2] * c[3]
    ratio = base.get(cores_used, float("nan")) / mult
    print("%-14s %-7d %-5d %-6d %6d %12.3e %10.3f %14.4f %11.2fx" % (t, c[2], c[3], cores_used, its, res, solve, mult * 1e3, ratio))
print("'vs aij' = MatMult time of aij at the same core count / this MatMult time (> 1: faster than aij).")
