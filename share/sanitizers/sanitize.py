#!/usr/bin/env python3
"""Hardening runs of petsc-aijhybrid (share/sanitizers/README.md): the C-level tests and examples
under AddressSanitizer + UndefinedBehaviorSanitizer, valgrind memcheck (and PETSc's -malloc_debug
-malloc_dump), and ThreadSanitizer with LLVM's OpenMP runtime and its archer tool.

usage: sanitize.py asan|valgrind|races --build DIR [--ci] [--only SUBSTRING] [--json FILE]

--ci: the subset CI runs (docs/testing.md, "Records and CI"): the product stress test and the examples (ex1
task and vector, ex2) at 1 and 2 ranks, and for races the task-mode runs with 3 threads; valgrind:
memcheck of the stress test and ex1 (task) at 1 and 2 ranks. The canaries run in both.

Each run is an mpiexec launch (1 or 2 ranks, OMP_NUM_THREADS=2 or 3, --bind-to none) of a program
built in DIR. A run passes when it exits 0, prints its success line, and the output holds no
sanitizer or memcheck report. Before the real runs, a canary program with one deliberate defect
(share/sanitizers/canary.c) must be reported by the same tool, so that silence means something.
Exits non-zero if any run fails; prints one line per run and writes a JSON summary.
"""

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import mpirun  # noqa: E402

ARCHER = "/usr/lib/llvm-14/lib/libarcher.so"
OMPI_VALGRIND_SUPP = "/usr/share/openmpi/openmpi-valgrind.supp"

SANITIZER_REPORT = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer|SUMMARY: \w+Sanitizer")
PETSC_LEAK = re.compile(r"^\s*\[\s*\d+\]\s*\d+ bytes", re.M)


CI_PROGRAMS = ("products_stress", "ex1 task", "ex1 vector", "ex2")
CI_VALGRIND = ("products_stress", "ex1 task")


def programs(build, small, ci=False):
    """(name, argv, ranks, threads, success text) of the C-level tests and examples (ci: the CI subset)."""
    t, e = Path(build) / "tests", Path(build) / "examples"
    n_stress = ["-n", "24", "-rounds", "1", "-max_threads", "2"] if small else ["-n", "40", "-rounds", "2"]
    n_ex = "6" if small else "8"
    runs = []
    if not small:
        runs.append(("test_partition", [t / "test_partition"], 1, 1, " passed, 0 failed"))
    for r in (1, 2):
        runs += [
            ("products_stress", [t / "products_stress"] + n_stress, r, 2, "checks passed"),
            ("ex1 task", [e / "ex1", "-n", n_ex, "-mat_type", "aijhybrid", "-mat_aijhybrid_num_threads", "2", "-mat_aijhybrid_mode", "task", "-final_mat_view", "::ascii_info_detail", "-mult_reps", "3"], r, 2, "relative residual < 1e-7"),
            ("ex1 vector", [e / "ex1", "-n", n_ex, "-mat_type", "aijhybrid", "-mat_aijhybrid_num_threads", "2", "-mat_aijhybrid_mode", "vector", "-mult_reps", "3"], r, 2, "relative residual < 1e-7"),
            ("ex2", [e / "ex2", "-n", n_ex], r, 2, "equal to aij"),
            ("zerorows_empty", [t / "zerorows_empty", "-error_paths", "0"], r, 2, "checks passed"),
        ]
        if not small:
            runs += [
                ("assembly_paths", [t / "assembly_paths"], r, 2, "MatMultTranspose matches aij"),
                ("retype_after_setup", [t / "retype_after_setup", "-mat_type", "aijhybrid"], r, 2, "MatMult matches aij"),
                ("thread_single", [t / "thread_single", "-mat_view", "::ascii_info"], r, 2, "products match aij"),
            ]
    if ci:
        runs = [x for x in runs if x[0] in (CI_VALGRIND if small else CI_PROGRAMS)]
    return runs


def compile_canary(cc, flags, out):
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [cc] + flags + [str(HERE / "canary.c"), "-o", str(out)]
    subprocess.run(cmd, check=True)
    return out


class Runner:
    def __init__(self, kind, build, only):
        self.kind, self.build, self.only = kind, Path(build), only
        self.results = []
        self.failed = 0

    def record(self, name, ranks, threads, ok, elapsed, note, run=None):
        self.results.append({"run": name, "ranks": ranks, "threads": threads, "ok": ok, "seconds": round(elapsed, 1), "note": note})
        print("%-4s %-22s %d rank(s) x %d thread(s) %6.1f s  %s" % ("ok" if ok else "FAIL", name, ranks, threads, elapsed, note), flush=True)
        if not ok:
            self.failed += 1
            if run is not None:
                print(run.describe(limit=12000), flush=True)

    def canary(self, name, argv, env, expect):
        """argv must fail and its output must contain expect (the tool found the planted defect)."""
        t0 = time.time()
        p = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=dict(os.environ, **env), timeout=300)
        out = p.stdout + p.stderr
        ok = p.returncode != 0 and expect in out
        self.record("canary " + name, 1, 2 if "race" in name else 1, ok, time.time() - t0, "planted defect reported (%r)" % expect if ok else "planted defect NOT reported: rc=%d\n%s" % (p.returncode, out[-3000:]))

    def launch(self, name, argv, ranks, threads, expect, env, mpi_args=(), extra_check=None, timeout=900, result_check=None):
        if self.only and self.only not in name:
            return
        for a in argv:
            if isinstance(a, Path) and not a.exists():
                self.record(name, ranks, threads, False, 0.0, "%s not built" % a)
                return
        run = mpirun.run(list(mpi_args) + [str(a) for a in argv], ranks=ranks, threads=threads, timeout=timeout, env=env)
        out = run.output
        problems = []
        if run.timed_out:
            problems.append("timed out")
        if run.rc != 0:
            problems.append("exit code %s" % run.rc)
        if expect not in out:
            problems.append("no %r in the output" % expect)
        m = SANITIZER_REPORT.search(out)
        if m:
            problems.append("sanitizer report: %r" % m.group(0))
        if extra_check:
            problems += extra_check(out)
        if result_check:
            problems += result_check(run.result)
        self.record(name, ranks, threads, not problems, run.elapsed, "; ".join(problems) or "clean", None if not problems else run)

    def summary(self, json_path, tools):
        print("%s: %d run(s), %d failed" % (self.kind, len(self.results), self.failed))
        doc = {"kind": self.kind, "subset": "ci" if getattr(self, "ci", False) else "all", "tools": tools, "host": platform.node(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "failed": self.failed, "runs": self.results}
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(doc, indent=1) + "\n")
        return 1 if self.failed else 0


def tool_version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.splitlines()[0].strip()
    except Exception as e:  # reported, not fatal
        return "unknown (%s)" % e


def asan(args):
    r = Runner("asan", args.build, args.only)
    r.ci = args.ci
    gcc = shutil.which("gcc")
    libasan = subprocess.run([gcc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    nodlclose = r.build / "lib" / "libnodlclose.so"
    subprocess.run([gcc, "-shared", "-fPIC", "-O2", str(HERE / "nodlclose.c"), "-o", str(nodlclose)], check=True)
    env = {
        "ASAN_OPTIONS": "halt_on_error=1:abort_on_error=0:detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=40:detect_stack_use_after_return=0",
        "LSAN_OPTIONS": "suppressions=%s:print_suppressions=1" % (HERE / "lsan.supp"),
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1:suppressions=%s" % (HERE / "ubsan.supp"),
    }
    canary = compile_canary(gcc, ["-g", "-O0", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"], r.build / "tests" / "canary")
    r.canary("overflow (asan)", [canary, "overflow"], env, "heap-buffer-overflow")
    r.canary("leak (lsan)", [canary, "leak"], env, "detected memory leaks")
    r.canary("ub (ubsan)", [canary, "ub"], env, "runtime error: signed integer overflow")
    # libasan first in the ranks' initial library list, and component libraries kept mapped until the
    # leak check; passed with -x so that mpiexec itself (not instrumented) is left alone
    mpi_args = ["-x", "LD_PRELOAD=%s:%s" % (libasan, nodlclose)]
    for name, argv, ranks, threads, expect in programs(args.build, small=False, ci=args.ci):
        r.launch(name, argv, ranks, threads, expect, env, mpi_args)
    return r.summary(args.json or r.build / "hardening-asan.json", {"gcc": tool_version([gcc, "--version"]), "libasan": libasan})


def valgrind(args):
    r = Runner("valgrind", args.build, args.only)
    r.ci = args.ci
    vg = shutil.which("valgrind")
    if not vg:
        print("valgrind not found: bash share/setup.sh installs it")
        return 1
    supp = ["--suppressions=%s" % s for s in (OMPI_VALGRIND_SUPP, HERE / "valgrind.supp") if Path(s).exists()]
    vg_cmd = [vg, "--tool=memcheck", "--error-exitcode=77", "--leak-check=full", "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite", "--num-callers=40", "--gen-suppressions=all"] + supp
    canary = compile_canary(shutil.which("gcc"), ["-g", "-O0"], r.build / "tests" / "canary")
    r.canary("overflow (memcheck)", vg_cmd + [canary, "overflow"], {}, "Invalid write of size 4")
    r.canary("leak (memcheck)", vg_cmd + [canary, "leak"], {}, "definitely lost")

    def vg_check(out):
        m = re.findall(r"ERROR SUMMARY: (\d+) errors", out)
        bad = [int(x) for x in m if int(x) > 0]
        return ["memcheck: %s error(s)" % sum(bad)] if bad or not m else []

    for name, argv, ranks, threads, expect in programs(args.build, small=True, ci=args.ci):
        r.launch("memcheck " + name, vg_cmd + [str(a) for a in argv], ranks, threads, expect, {}, extra_check=vg_check, timeout=1800)

    # the Python layer: the fuzz worker on the regression corpus at its rank counts (valgrind on this
    # worker diagnosed PETSc's MatZeroRows use-after-free that src/mat/zerorows.c avoids)
    corpus = [dict(json.loads(p.read_text())["case"], id=p.stem) for p in sorted((ROOT / "tests" / "fuzz_regressions").glob("*.json"))]
    env = {"AIJHYBRID_BUILD": r.build}

    def corpus_ok(result):
        if not result:
            return ["no result from the fuzz worker"]
        return ["case %s: %s" % (k, v.get("error", v["status"])[:500]) for k, v in result["cases"].items() if v["status"] != "ok"]

    for ranks in () if args.ci else (1, 2, 4):
        cases = [c for c in corpus if c["ranks"] == ranks]
        path = r.build / "tests" / ("valgrind-corpus-%d.json" % ranks)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cases))
        argv = vg_cmd + [mpirun.PYTHON, str(mpirun.WORKERS / "fuzz.py"), "--cases", str(path)]
        r.launch("memcheck fuzz corpus", argv, ranks, 2, "", env, extra_check=vg_check, timeout=3600, result_check=corpus_ok)

    def petsc_leaks(out):
        leaks = PETSC_LEAK.findall(out)
        return ["PETSc -malloc_dump: %d unfreed block(s)" % len(leaks)] if leaks else []

    for name, argv, ranks, threads, expect in () if args.ci else programs(args.build, small=False):
        r.launch("malloc_dump " + name, argv + ["-malloc_debug", "-malloc_dump"], ranks, threads, expect, {}, extra_check=petsc_leaks)
    return r.summary(args.json or r.build / "hardening-valgrind.json", {"valgrind": tool_version([vg, "--version"])})


def races(args):
    r = Runner("races", args.build, args.only)
    r.ci = args.ci
    clang = shutil.which("clang")
    if not clang or not Path(ARCHER).exists():
        print("clang or %s missing: bash share/setup.sh installs clang and libomp-dev" % ARCHER)
        return 1
    env = {
        "OMP_TOOL_LIBRARIES": ARCHER,
        "TSAN_OPTIONS": "halt_on_error=1 exitcode=66 ignore_noninstrumented_modules=1 report_signal_unsafe=0 suppressions=%s" % (HERE / "tsan.supp"),
        "ARCHER_OPTIONS": "verbose=1",
    }
    canary = compile_canary(clang, ["-g", "-O1", "-fopenmp", "-fsanitize=thread"], r.build / "tests" / "canary")
    r.canary("race (tsan+archer)", [canary, "race"], env, "WARNING: ThreadSanitizer: data race")

    def archer_on(out):
        return [] if "Archer detected OpenMP application with TSan" in out else ["archer did not attach (OMP_TOOL_LIBRARIES)"]

    for name, argv, ranks, threads, expect in programs(args.build, small=False, ci=args.ci):
        if name != "test_partition":  # sequential, no OpenMP region: nothing for archer
            r.launch(name, argv, ranks, threads, expect, env, extra_check=archer_on)
    # task mode with three threads (thread 0 in MPI while threads 1 and 2 multiply)
    stress = Path(args.build) / "tests" / "products_stress"
    r.launch("products_stress T=3", [stress, "-n", "40", "-rounds", "2"], 2, 3, "checks passed", env, extra_check=archer_on)
    r.launch("ex1 task T=3", [Path(args.build) / "examples" / "ex1", "-n", "8", "-mat_type", "aijhybrid", "-mat_aijhybrid_num_threads", "3", "-mat_aijhybrid_mode", "task"], 2, 3, "relative residual < 1e-7", env, extra_check=archer_on)
    return r.summary(args.json or r.build / "hardening-races.json", {"clang": tool_version([clang, "--version"]), "archer": ARCHER})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=("asan", "valgrind", "races"))
    ap.add_argument("--build", required=True)
    ap.add_argument("--only", default=None, help="run only the runs whose name contains this")
    ap.add_argument("--ci", action="store_true", help="the CI subset: the stress test and the examples")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    return {"asan": asan, "valgrind": valgrind, "races": races}[args.kind](args)


if __name__ == "__main__":
    sys.exit(main())
