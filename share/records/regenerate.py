#!/usr/bin/env python3
"""make records: regenerates every record the documents quote (share/results/), and after each the
generated blocks of README.md and docs/ (share/records/readme.py). Each record carries the git revision, whether the tree
was clean, the code it is about (code_id), the PETSc version, the machine and the date
(share/records/record.py).

usage: regenerate.py [--only NAME|GROUP ...] [--bench yes|no] [--bench-configs C ...] [--bench-scale S]
              [--out DIR] [--allow-dirty] [--no-readme] [--list]

Groups and records (names are stable; the PETSc version is in each record):
  tests      test-default (make test, Debian's PETSc), test-complex, test-int64, test-int64-complex,
             test-debug (make test-flavours, one each), test-latest (make test on the newest PETSc
             from PyPI's source, in $PETSC_LATEST or /opt/petsc-latest), test-3.20, test-3.22
             (make test-versions: PETSc built from PyPI's source into /opt/petsc-<version>)
  hardening  hardening-asan, hardening-valgrind, hardening-races (make test-asan, -valgrind, -races)
  fuzz       fuzz-default, fuzz-latest (make fuzz, FUZZ_RECORD_EXAMPLES examples of a fixed seed)
  harness    harness-default (PETSc's harness: KSP tutorials and tests, SNES tutorials, Mat tests,
             with and without the plugin), harness-sf (PETSc's SF and VecScatter tests and its KSP and
             SNES tutorials with -sf_type nodeaware against basic: make test-harness-sf)
  nodes      nodes (make test-nodes, as root: emulated hosts, the node-aware exchange counted on the wire,
             times at two rates, the performance model: share/nodes/nodes.py full), nodes-slurm (make
             test-slurm: the share/slurm/ templates under a local SLURM on the emulated hosts)
  bench      bench-<config> for run quick claims full rowcost taskshare nodeaware setup (share/results/bench/<config>.json:
             the driver's record with a meta block), bench-precond (share/bench/precond.py: the
             preconditioners, share/results/bench/precond.json), bench-products (share/bench/products.py:
             the sparse products of GAMG hierarchies, share/results/bench/products.json); --bench no skips them, --bench-scale S < 1
             makes a scaled-down trial (written under build/records/trial, never quotable)

A piece that fails still writes its record (failed tests are a result); the driver exits 1 if any
piece did not produce its record or exited non-zero. Trials that check the pieces work, marked trial
(never quoted): RECORDS_TRIAL_PYTEST_ARGS="-k ..." (a test selection), RECORDS_TRIAL_HARNESS_SEARCH
(harness patterns), --bench-scale. The tree must be clean (tracked code as committed) unless
--allow-dirty, which marks every record dirty: the documents never quote those.
"""

import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import record  # noqa: E402

ROOT = record.ROOT
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
LOGS = ROOT / "build" / "records" / "logs"
LATEST = os.environ.get("PETSC_LATEST", "/opt/petsc-latest")
VERSIONS = ("3.20", "3.22")
FLAVOURS = ("complex", "int64", "int64-complex", "debug")
BENCH_CONFIGS = ("run", "quick", "claims", "full", "rowcost", "taskshare", "nodeaware", "setup")
OVERSUBSCRIBED = ("taskshare", "nodeaware")  # run with --oversubscribe when the machine has fewer cores (correctness of the mechanism, message counts)
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_RECORD_EXAMPLES", "2000"))
FUZZ_SEED = 20261123
HARNESS_SEARCH = ["ksp_ksp_tutorials-*", "snes_tutorials-*", "ksp_ksp_tests-*", "mat_tests-*"]
# make test-harness-sf's selection (the makefile's HARNESS_SF_SEARCH)
HARNESS_SF_VEC = (2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 22, 23, 24, 25, 33, 44, 45)
HARNESS_SF_SEARCH = ["vec_is_sf_tests-*"] + ["vec_vec_tests-ex%d_*" % e for e in HARNESS_SF_VEC] + ["ksp_ksp_tutorials-*", "snes_tutorials-*"]
# trials (to check the pieces work; their records are marked trial and never quoted)
TRIAL_PYTEST = os.environ.get("RECORDS_TRIAL_PYTEST_ARGS", "")
TRIAL_HARNESS = os.environ.get("RECORDS_TRIAL_HARNESS_SEARCH", "").split()


def log_path(name):
    LOGS.mkdir(parents=True, exist_ok=True)
    return LOGS / (name + ".log")


def run_logged(name, cmd, env=None):
    """run cmd (list), output to build/records/logs/<name>.log and to the terminal; (rc, seconds, text)"""
    log = log_path(name)
    print("records: %s: %s" % (name, " ".join(shlex.quote(str(c)) for c in cmd)), flush=True)
    t0 = time.time()
    with open(log, "w") as f:
        p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(ROOT), env=dict(os.environ, **(env or {})))
        for line in p.stdout:
            f.write(line)
            sys.stdout.write(line)
        rc = p.wait()
    return rc, time.time() - t0, log.read_text()


def latest_prefix():
    return LATEST


def build_dir(tag):
    return str(ROOT / "build" / ("petsc-%s" % tag))


# ------------------------------------------------------------------------------------------------
# results of each kind


def pytest_counts(xml, text):
    """counts from pytest's junit XML, plus what only the terminal summary says (deselected)"""
    res = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "deselected": 0, "xfailed": 0, "xpassed": 0, "failures": []}
    if xml and Path(xml).exists():
        root = ET.parse(xml).getroot()
        suites = [root] if root.tag == "testsuite" else list(root)
        for s in suites:
            for tc in s.iter("testcase"):
                tid = "%s::%s" % (tc.get("classname"), tc.get("name"))
                kinds = [c.tag for c in tc]
                if "failure" in kinds:
                    res["failed"] += 1
                    res["failures"].append(tid)
                elif "error" in kinds:
                    res["errors"] += 1
                    res["failures"].append(tid + " (error)")
                elif "skipped" in kinds:
                    sk = tc.find("skipped")
                    if sk is not None and sk.get("type") == "pytest.xfail":
                        res["xfailed"] += 1
                    else:
                        res["skipped"] += 1
                else:
                    res["passed"] += 1
    m = re.findall(r"^=+ (.*(?:passed|failed|error|skipped|deselected).*) in ([\d.]+)s", text, re.M)
    if m:
        res["summary"] = m[-1][0]
        d = re.search(r"(\d+) deselected", m[-1][0])
        res["deselected"] = int(d.group(1)) if d else 0
    res["junit"] = bool(xml and Path(xml).exists())
    return res


def piece_pytest(name, make_args, petsc_dir, petsc_arch="", env=None, flavour=None):
    xml = ROOT / "build" / "records" / (name + ".xml")
    xml.parent.mkdir(parents=True, exist_ok=True)
    if xml.exists():
        xml.unlink()
    if flavour:
        cmd = ["bash", "share/flavours.sh", flavour]
        env = dict(env or {}, PYTEST_ARGS="--junitxml=%s" % xml, PYTHON=PYTHON)
        command = "make test-flavours FLAVOURS=%s" % flavour
    else:
        cmd = ["make", "test", "PYTEST_ARGS=--junitxml=%s %s" % (xml, TRIAL_PYTEST)] + make_args
        command = " ".join(["make", "test"] + make_args)
    if flavour and TRIAL_PYTEST:
        env["PYTEST_ARGS"] += " " + TRIAL_PYTEST
    meta_args = (name, "all", petsc_dir, petsc_arch, command + (" (trial: %s)" % TRIAL_PYTEST if TRIAL_PYTEST else ""))
    m = record.meta(*meta_args, trial=bool(TRIAL_PYTEST))
    rc, sec, text = run_logged(name, cmd, env)
    if flavour:  # share/flavours.sh installs a missing flavour: its PETSc can be described only now
        m = dict(record.meta(*meta_args, trial=bool(TRIAL_PYTEST)), date=m["date"])
    res = pytest_counts(xml, text)
    res["exit_code"] = rc
    return m, res, sec, res["junit"]


def piece_tests_default(name, args):
    return piece_pytest(name, [], "/usr/lib/petsc")


def flavour_dir(flavour):
    for line in (ROOT / "share" / "flavours.sh").read_text().splitlines():
        m = re.match(r'\s*"%s\|([^|]*)\|' % re.escape(flavour), line)
        if m:
            d = m.group(1).replace("$TRIPLET", subprocess.run(["gcc", "-dumpmachine"], capture_output=True, text=True).stdout.strip() or "x86_64-linux-gnu")
            return os.path.realpath(d)
    return None


def piece_flavour(flavour):
    def run(name, args):
        return piece_pytest(name, [], flavour_dir(flavour), flavour=flavour)

    return run


def ensure_petsc(prefix, version):
    """PETSc (and petsc4py) from PyPI's source in prefix, built if missing (share/build-petsc.sh)"""
    if Path(prefix, "lib", "petsc", "conf", "petscvariables").exists() and Path(prefix, "lib", "python3", "dist-packages", "petsc4py").exists():
        return 0
    # without the Debian PETSc's PETSC_DIR/PETSC_ARCH that make exports: PETSc's configure refuses a
    # PETSC_DIR other than its own source tree
    cmd = ["env", "-u", "PETSC_DIR", "-u", "PETSC_ARCH", "nice", "-n", "15", "bash", "share/build-petsc.sh", prefix]
    rc, _, _ = run_logged("build-petsc-%s" % (version or "latest"), cmd + ([version] if version else []))
    return rc


def piece_other_petsc(prefix_fn, version, tag):
    def run(name, args):
        prefix = prefix_fn()
        if ensure_petsc(prefix, version) != 0:
            return record.meta(name, "all", prefix, ""), {"error": "building PETSc %s into %s failed (see build/records/logs)" % (version or "latest", prefix)}, 0.0, False
        return piece_pytest(name, ["PETSC_DIR=%s" % prefix, "PETSC_ARCH=", "BUILD=%s" % build_dir(tag)], prefix)

    return run


def piece_hardening(kind):
    target = {"asan": "test-asan", "valgrind": "test-valgrind", "races": "test-races"}[kind]
    out = {"asan": "build/asan", "valgrind": "build", "races": "build/tsan"}[kind]

    def run(name, args):
        js = ROOT / out / ("hardening-%s.json" % kind)
        if js.exists():
            js.unlink()
        m = record.meta(name, "all", "/usr/lib/petsc", "", "make " + target)
        rc, sec, text = run_logged(name, ["make", target])
        if not js.exists():
            return m, {"error": "no summary from make %s (exit %d)" % (target, rc)}, sec, False
        doc = json.loads(js.read_text())
        runs = doc["runs"]
        res = {
            "exit_code": rc,
            "runs": len(runs),
            "canaries": sum(1 for r in runs if r["run"].startswith("canary")),
            "failed": doc["failed"],
            "by_kind": {},
            "tools": doc.get("tools"),
            "list": runs,
        }
        for r in runs:
            k = r["run"].split()[0] if r["run"].split()[0] in ("canary", "memcheck", "malloc_dump") else "run"
            res["by_kind"][k] = res["by_kind"].get(k, 0) + 1
        return m, res, sec, True

    return run


def piece_fuzz(prefix_fn, tag):
    def run(name, args):
        prefix = prefix_fn() if prefix_fn else "/usr/lib/petsc"
        js = ROOT / "build" / "records" / (name + "-summary.json")
        if js.exists():
            js.unlink()
        make = ["make", "fuzz", "FUZZ_EXAMPLES=%d" % FUZZ_EXAMPLES, "FUZZ_ARGS=--seed %d --no-save --json %s" % (FUZZ_SEED, js)]
        if prefix_fn:
            if ensure_petsc(prefix, None) != 0:
                return record.meta(name, "all", prefix, ""), {"error": "no PETSc in %s" % prefix}, 0.0, False
            make += ["PETSC_DIR=%s" % prefix, "PETSC_ARCH=", "BUILD=%s" % build_dir(tag)]
        m = record.meta(name, "all", prefix, "", " ".join(make))
        rc, sec, text = run_logged(name, make)
        if not js.exists():
            return m, {"error": "no fuzz summary (exit %d)" % rc}, sec, False
        res = json.loads(js.read_text())
        res["exit_code"] = rc
        return m, res, sec, True

    return run


def piece_harness_run(inject, search):
    def run(name, args):
        js = ROOT / "build" / "records" / ("%s-summary.json" % name)
        if js.exists():
            js.unlink()
        rc0, _, _ = run_logged(name + "-build", ["make", "all"])
        cmd = [PYTHON, "tests/harness/harness.py", "--no-examples", "--inject", inject, "--json", str(js)]
        for s in TRIAL_HARNESS or search:
            cmd += ["--search", s]
        m = record.meta(name, "all", "/usr/lib/petsc", "", " ".join(cmd[1:]), trial=bool(TRIAL_HARNESS))
        rc, sec, text = run_logged(name, cmd)
        if not js.exists():
            return m, {"error": "no harness summary (exit %d)" % rc}, sec, False
        d = json.loads(js.read_text())
        res = {
            "exit_code": rc,
            "inject": inject,
            "search": d.get("search"),
            "tests": len(d.get("tests", {})),
            "classes": {k: len(v) for k, v in d.get("classes", {}).items()},
            "regressions": d.get("regressions", []),
            "exceptions": d.get("classes", {}).get("exception", []),
            "type_name_only": d.get("classes", {}).get("type-name-only", []),
            "runs": {k: {"counts": v.get("counts"), "executed": v.get("executed"), "elapsed_s": v.get("elapsed_s"), "options": v.get("options")} for k, v in d.get("runs", {}).items()},
            "problems": d.get("problems", []),
        }
        return m, res, sec, True

    return run


piece_harness = piece_harness_run("mat", HARNESS_SEARCH)


def piece_bench(config):
    def run(name, args):
        scale = args.bench_scale
        trial = scale is not None and scale != 1.0
        out = Path(args.out) / "bench" if not trial else ROOT / "build" / "records" / "trial" / "bench"
        # taskshare (2 x 2) and nodeaware (16 ranks) are oversubscribed on a 2-core machine by design
        bench_args = " ".join((["--scale %g" % scale] if trial else []) + (["--oversubscribe"] if config in OVERSUBSCRIBED else []))
        cmd = ["make", "bench", "CONFIG=%s" % config, "BENCH_OUT=%s" % out] + (["BENCH_ARGS=%s" % bench_args] if bench_args else [])
        m = record.meta(name, "bench", "/usr/lib/petsc", "", " ".join(cmd), trial=trial)
        target = out / (config + ".json")
        if target.exists():
            target.unlink()
        rc, sec, text = run_logged(name, cmd)
        if not target.exists():
            return m, {"error": "no bench record (exit %d)" % rc}, sec, False
        doc = json.loads(target.read_text())
        doc["meta"] = dict(m, duration_s=round(sec, 1), exit_code=rc)  # the driver's own record, with the meta block
        target.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        return m, None, sec, True  # written in place

    return run


def piece_script(script, what):
    """share/bench/<script>.py, which writes its own record (--rows, --rounds, --out): what it
    measures is said by what; the record is share/results/bench/<script>.json"""

    def run(name, args):
        scale = args.bench_scale
        trial = scale is not None and scale != 1.0
        out = (Path(args.out) / "bench" if not trial else ROOT / "build" / "records" / "trial" / "bench") / ("%s.json" % script)
        out.parent.mkdir(parents=True, exist_ok=True)
        rows = int(1000000 * (scale if trial else 1.0))
        cmd = [PYTHON, "share/bench/%s.py" % script, "--rows", str(rows), "--rounds", "3", "--out", str(out)]
        m = record.meta(name, "bench", "/usr/lib/petsc", "", " ".join(cmd[1:]), trial=trial)
        if out.exists():
            out.unlink()
        rc, sec, text = run_logged(name, cmd)
        if not out.exists():
            return m, {"error": "no %s record (exit %d)" % (script, rc)}, sec, False
        doc = json.loads(out.read_text())
        doc["meta"] = dict(m, duration_s=round(sec, 1), exit_code=rc)
        out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        return m, None, sec, True  # written in place

    run.__doc__ = "share/bench/%s.py: %s" % (script, what)
    return run


piece_precond = piece_script("precond", "PCApply and whole solves of the preconditioners (issue 13)")
piece_products = piece_script("products", "the sparse products of GAMG hierarchies (issue 27)")


def piece_nodes(kind):
    """make test-nodes / make test-slurm (share/nodes/): their JSON summary is the result"""
    target, out = {"nodes": ("test-nodes", "nodes.json"), "slurm": ("test-slurm", "slurm/slurm.json")}[kind]

    def run(name, args):
        d = ROOT / "build" / "records" / name
        js = d / out
        if js.exists():
            js.unlink()
        m = record.meta(name, "all", "/usr/lib/petsc", "", "make " + target)
        rc, sec, text = run_logged(name, ["make", target, "NODES_OUT=%s" % d])
        if not js.exists():
            return m, {"error": "no summary from make %s (exit %d)%s" % (target, rc, ": cannot emulate hosts here" if rc == 2 else "")}, sec, False
        res = json.loads(js.read_text())
        res["exit_code"] = rc
        return m, res, sec, True

    return run


def pieces():
    P = [("test-default", "tests", piece_tests_default)]
    P += [("test-%s" % f, "tests", piece_flavour(f)) for f in FLAVOURS]
    P += [("test-latest", "tests", piece_other_petsc(latest_prefix, None, "latest"))]
    P += [("test-%s" % v, "tests", piece_other_petsc(lambda v=v: "/opt/petsc-%s" % v, "%s.*" % v, v)) for v in VERSIONS]
    P += [("hardening-%s" % k, "hardening", piece_hardening(k)) for k in ("asan", "valgrind", "races")]
    P += [("fuzz-default", "fuzz", piece_fuzz(None, None)), ("fuzz-latest", "fuzz", piece_fuzz(latest_prefix, "latest"))]
    P += [("harness-default", "harness", piece_harness), ("harness-sf", "harness", piece_harness_run("sf", HARNESS_SF_SEARCH))]
    P += [("nodes", "nodes", piece_nodes("nodes")), ("nodes-slurm", "nodes", piece_nodes("slurm"))]
    P += [("bench-%s" % c, "bench", piece_bench(c)) for c in BENCH_CONFIGS]
    P += [("bench-precond", "bench", piece_precond), ("bench-products", "bench", piece_products)]
    return P


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None, help="record names or groups")
    ap.add_argument("--bench", choices=("yes", "no"), default="yes")
    ap.add_argument("--bench-configs", nargs="*", default=None)
    ap.add_argument("--bench-scale", type=float, default=None, help="< 1: a scaled-down trial, written under build/records/trial")
    ap.add_argument("--out", default=str(record.RESULTS))
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument("--no-readme", action="store_true", help="do not regenerate the documents' blocks afterwards")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    todo = []
    for name, group, fn in pieces():
        if args.only and name not in args.only and group not in args.only:
            continue
        if group == "bench" and (args.bench == "no" or (args.bench_configs and name[len("bench-"):] not in args.bench_configs)):
            continue
        todo.append((name, group, fn))
    if args.list:
        for name, group, _ in todo:
            print("%-22s %s" % (name, group))
        return 0
    if not todo:
        print("records: nothing selected (--only %s)" % args.only)
        return 2
    d = record.dirty("all")
    if d and not args.allow_dirty:
        print("records: the tree is not clean (%s); commit first, or --allow-dirty (records then marked dirty, never quoted)" % ", ".join(d[:10]))
        return 2
    start = {s: record.code_id(s) for s in record.SCOPES}
    trial = args.bench_scale is not None and args.bench_scale != 1.0
    made, missing, nonzero, times = [], [], [], {}
    t_all = time.time()
    for name, group, fn in todo:
        t0 = time.time()
        try:
            m, res, sec, ok = fn(name, args)
        except Exception as e:  # a broken piece must not stop the others
            m, res, sec, ok = record.meta(name), {"error": "%s: %s" % (type(e).__name__, e)}, time.time() - t0, False
        times[name] = round(time.time() - t0, 1)
        if {s: record.code_id(s) for s in record.SCOPES} != start or (record.dirty("all") and not args.allow_dirty):
            print("records: the code changed while %s ran: stopping (nothing written for it)" % name)
            return 1
        if res is not None:
            out = Path(args.out) if not (trial and group == "bench") else ROOT / "build" / "records" / "trial"
            record.write(name, res, m, sec, out / (name + ".json"))
        if not args.no_readme and Path(args.out) == record.RESULTS:  # the next pieces' make test reads the README
            subprocess.run([sys.executable, str(HERE / "readme.py"), "--write"], check=False)
        (made if ok else missing).append(name)
        if ok and isinstance(res, dict) and res.get("exit_code"):
            nonzero.append(name)
        print("records: %s %s (%.0f s)" % (name, "written" if ok else "FAILED to produce its result", times[name]), flush=True)
    total = time.time() - t_all
    (ROOT / "build" / "records").mkdir(parents=True, exist_ok=True)
    (ROOT / "build" / "records" / "times.json").write_text(json.dumps({"seconds": times, "total": round(total, 1)}, indent=1) + "\n")
    print("records: %d written (%s exited non-zero), %d without a result (%s) in %.0f s; times in build/records/times.json" % (len(made), ", ".join(nonzero) or "none", len(missing), ", ".join(missing) or "none", total))
    return 1 if missing or nonzero else 0


if __name__ == "__main__":
    sys.exit(main())
