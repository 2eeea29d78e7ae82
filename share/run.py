#!/usr/bin/env python3
"""The main job of `make run`: at the same core count, how does aijhybrid compare with aij?

Runs the benchmark driver (python -m aijhybrid_bench) with share/bench/quick.json: three
matrices of about 10^6 rows (3D Poisson 7-point, the extruded pressure matrix, the matrix with a
denser region), at 1 core (1x1) and 2 cores (2 ranks x 1 thread, 1 rank x 2 threads), aij against
aijhybrid, every configuration timed in the same job in alternating rounds (medians), and prints
the table: matrix, layout, type, MatMult ms, ratio against aij at the same core count, GF/s, GB/s,
% of the STREAM triad bandwidth measured in the same job, thread imbalance, CG + Jacobi iterations
and solve time. The JSON record and plots go to BUILD_DIR/bench.

Usage: run.py BUILD_DIR [driver options, e.g. --config full --layouts 1x1,1x2 --scale 0.5]
"""
import os
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 2:
    sys.exit(__doc__)
build = os.path.abspath(sys.argv[1])
extra = sys.argv[2:]
env = dict(os.environ, AIJHYBRID_BUILD=build)
env["PYTHONPATH"] = os.pathsep.join([os.path.join(top, "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
cmd = [sys.executable, "-m", "aijhybrid_bench"]
if not any(a == "--config" or a.startswith("--config=") for a in extra):
    cmd += ["--config", "quick"]
if not any(a == "--out" or a.startswith("--out=") for a in extra):
    cmd += ["--out", os.path.join(build, "bench")]
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
if cores < 2 and not any(a == "--layouts" or a.startswith("--layouts=") for a in extra):
    print("run.py: 1 core here: only the 1x1 layout (no same-core-count comparison at 2 cores)", flush=True)
    cmd += ["--layouts", "1x1"]
sys.exit(subprocess.call(cmd + extra, env=env))
