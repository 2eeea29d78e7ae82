#!/usr/bin/env python3
"""The main job of `make run`: is aijhybrid faster than aij on the cores of this machine, for MatMult
and for a whole solve?

Runs the benchmark driver (python -m aijhybrid_bench) with share/bench/run.json: one matrix (3D
Poisson 7-point, 10^6 rows), PETSc's aij at R ranks x 1 thread against aijhybrid at 1 rank x R
threads and at R x 1 (R = the cores, 2 here); MatMult timed in alternating rounds, then CG + Jacobi
and CG + GAMG, setup and solve, alternating; each layout job twice, alternating, medians over both.
A progress line per step, then the driver's tables, then the answer: one table of times and the
ratio of aijhybrid 1 x R against aij R x 1 (above 1: aijhybrid is faster), and how long `make run`
took (from --started, the makefile's start time: the build included, the installs excluded). The
JSON record goes to BUILD_DIR/bench/run.json; `make bench CONFIG=...` runs the other configs.

Usage: run.py BUILD_DIR [--started EPOCH_SECONDS] [driver options, e.g. --config quick]
"""

import json
import os
import subprocess
import sys
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "share", "records"))


def main(argv):
    if not argv:
        sys.exit(__doc__)
    build = os.path.abspath(argv[0])
    extra = list(argv[1:])
    started = time.time()
    if "--started" in extra:
        i = extra.index("--started")
        started = float(extra[i + 1])
        del extra[i : i + 2]
    env = dict(os.environ, AIJHYBRID_BUILD=build)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(top, "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    config = "run"
    for i, a in enumerate(extra):
        if a == "--config" and i + 1 < len(extra):
            config = extra[i + 1]
        elif a.startswith("--config="):
            config = a.split("=", 1)[1]
    out = os.path.join(build, "bench")
    cmd = [sys.executable, "-m", "aijhybrid_bench"]
    if not any(a == "--config" or a.startswith("--config=") for a in extra):
        cmd += ["--config", config]
    if not any(a == "--out" or a.startswith("--out=") for a in extra):
        cmd += ["--out", out]
    else:
        out = next((extra[i + 1] for i, a in enumerate(extra) if a == "--out"), None) or next(a.split("=", 1)[1] for a in extra if a.startswith("--out="))
    if config == "run" and "--no-plots" not in extra:
        cmd.append("--no-plots")  # make bench draws them
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cores < 2 and not any(a == "--layouts" or a.startswith("--layouts=") for a in extra):
        print("run.py: 1 core here: only the 1x1 layout (no comparison of threads against ranks)", flush=True)
        cmd += ["--layouts", "1x1"]
    print("make run: aij against aijhybrid on %d cores (share/bench/%s.json); a progress line per step, the answer at the end" % (cores, config), flush=True)
    rc = subprocess.call(cmd + extra, env=env)
    path = os.path.join(out, os.path.basename(config) if config.endswith(".json") else config + ".json")
    if os.path.exists(path):
        import readme  # the README's summary table, from this run's record

        with open(path) as f:
            d = json.load(f)
        if d.get("results"):
            print()
            print("The answer (this run; medians of alternating rounds; a ratio above 1: aijhybrid is faster than aij on the same cores):")
            print()
            print(readme.summary_table(d))
            stream = ", ".join("%s %.1f GB/s" % (k, v["triad_GBps"]) for k, v in sorted((d.get("stream") or {}).items()) if v.get("triad_GBps"))
            if stream:
                print()
                print("STREAM triad in the same jobs: %s (a memory-bound 1 x R ratio is capped near 1 x R / R x 1; docs/benchmarks.md)." % stream)
    print()
    print("make run took %.0f s (build and run; installs excluded)%s" % (time.time() - started, "" if rc == 0 else "; the driver exited %d" % rc), flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
