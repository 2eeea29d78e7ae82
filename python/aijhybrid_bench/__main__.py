"""Benchmark driver: python -m aijhybrid_bench --config quick|full|smoke|<file.json> [options]

For each layout of the config (ranks x threads) it launches one MPI job (mpiexec or srun, with the
binding of aijhybrid_bench.layout) running aijhybrid_bench.worker, which measures every
matrix x variant in that one process set. Then it writes one JSON record for the run, prints the
summary table and writes the PNG plots. Layouts that need more cores than there are are refused
(--oversubscribe runs them anyway, for correctness only, with a loud warning).
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

from . import config as C
from . import layout as L
from . import checks, machine, pcsetup, report, snes, solves, stream

SCHEMA = "petsc-aijhybrid-bench/1"


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m aijhybrid_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", help="a name in share/bench (quick, full, smoke, ...) or a JSON file")
    ap.add_argument("--replot", metavar="RECORD.json", help="print the table and write the plots of a recorded run (into --out or its directory)")
    ap.add_argument("--out", default=None, help="output directory (default: <build>/bench)")
    ap.add_argument("--layouts", default=None, help="comma list overriding the config's, e.g. 1x1,2x1,1x2")
    ap.add_argument("--matrices", default=None, help="comma list of matrix names to keep")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every matrix size by this (trial runs; extruded's layers by its cube root)")
    ap.add_argument("--rounds", type=int, default=None, help="override timing.rounds")
    ap.add_argument("--cores", type=int, default=None, help="cores in total (default: detected; SLURM allocation)")
    ap.add_argument("--nodes", type=int, default=None, help="nodes (default: 1, or SLURM's)")
    ap.add_argument("--launcher", default=None, help="mpiexec or srun (overrides the config)")
    ap.add_argument("--oversubscribe", action="store_true", help="run layouts with more ranks x threads than cores (no binding; timings meaningless)")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--dry-run", action="store_true", help="print the job commands and stop")
    ap.add_argument("--python", default=sys.executable, help="interpreter of the workers (needs petsc4py, mpi4py)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    return ap.parse_args(argv)


def default_out():
    build = os.environ.get("AIJHYBRID_BUILD") or str(C.TOP / "build")
    return os.path.join(build, "bench")


def run_job(cmd, env, logpath, timeout, quiet):
    """Run one layout job; stream its progress lines; returns (rc, seconds, tail of output)."""
    t0 = time.time()
    tail = []
    with open(logpath, "w") as logf:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
        try:
            deadline = t0 + timeout
            for line in p.stdout:
                logf.write(line)
                logf.flush()
                tail = (tail + [line])[-40:]
                if line.startswith("@@PROGRESS ") and not quiet:
                    print("    " + line[len("@@PROGRESS "):].rstrip(), flush=True)
                elif line.startswith("@@WARNING "):
                    print("  WARNING: " + line[len("@@WARNING "):].rstrip(), flush=True)
                if time.time() > deadline:
                    raise subprocess.TimeoutExpired(cmd, timeout)
            rc = p.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            import signal

            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return -9, time.time() - t0, "".join(tail) + "\n(killed after %d s)" % timeout
    return rc, time.time() - t0, "".join(tail)


def job_env(extra):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("OMPI_COMM_WORLD", "OMPI_MCA_ess", "OMPI_MCA_orte", "PMIX_", "PETSC_OPTIONS", "OMP_")):
            del env[k]
    pyroot = str(C.PACKAGE_DIR.parent)
    env["PYTHONPATH"] = os.pathsep.join([pyroot] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYTHONUNBUFFERED"] = "1"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _stream_jobs(jobs, key):
    """The STREAM measurements behind one key of the record's "stream": a layout's jobs, or the
    same-job baseline group of the paired jobs ('2x1 in 1x2 jobs')."""
    out = []
    for j in jobs:
        p = j.get("paired") or {}
        st = j["stream"] if j["layout"] == key else p.get("stream") if p.get("stream") and report.paired_stream_key(p["layout"], j["layout"]) == key else None
        if st:
            out.append({"start": st["start"], "end": st["end"]})
    return out


def replot(args):
    with open(args.replot) as f:
        record = json.load(f)
    out = os.path.abspath(args.out or os.path.dirname(os.path.abspath(args.replot)))
    os.makedirs(out, exist_ok=True)
    results, baseline = report.effective_times(record["results"]), record["baseline"]
    stream_med = {lay: s["triad_GBps"] for lay, s in record["stream"].items()}
    m = record["machine"]
    title = "%s on %s (%s cores, %s NUMA), PETSc %s, %s" % (record["config"]["name"], m["cpu_model"], m["cores"], m["numa_nodes"],
                                                           record["software"]["petsc_version"], record["date"][:10])
    print(report.table(results, title, baseline=baseline))
    if record.get("solves"):
        print()
        print(solves.solves_table(record["solves"]))
    if record.get("vecops"):
        print()
        print(solves.vecops_table(record["vecops"]))
    if record.get("setup"):
        print()
        print(setup_text(record["setup"]))
    snes_rows = (record.get("snes") or {}).get("rows") or []
    if snes_rows:
        print()
        print(snes_text(snes_rows))
    print()
    print(report.targets_text(report.targets(results, baseline) + solves.solve_targets(record.get("solves") or [], record.get("vecops") or [])
                              + pcsetup.setup_targets(record.get("setup") or []) + snes.snes_targets(snes_rows)))
    if not args.no_plots:
        from . import plots

        for p in plots.plot_all(results, stream_med, out, record["config"]["name"], title, baseline):
            print("plot: %s" % p)
    return 0


def setup_text(rows):
    """The preconditioner setups' table and events (bench/pcsetup.py)."""
    return "\n".join(["Preconditioner setups (KSPSetUp + KSPSetUpOnBlocks, then one KSPSolve; medians of alternating rounds; vs aij: aij at Rx1, "
                      "R = cores, '~' from other jobs)"] + pcsetup.setup_table(rows)
                     + ["", "Events above %d%% of PCSetUp (share of PCSetUp, slowest rank, medians; *: holds others, inclusive):" % round(100 * pcsetup.SHARE_MIN)]
                     + pcsetup.events_table(rows))


def snes_text(rows):
    """The SNES application's table (bench/snes.py)."""
    return "\n".join(["PETSc's snes ex5 with GAMG (medians; solver = SNESSolve less the callbacks (PCSetUp + KSPSolve counts the setups made inside KSPSolve twice); callbacks = the application's function "
                      "and Jacobian evaluation, on one thread per rank; vs aij: aij at Rx1 of other jobs, indicative)"] + snes.snes_table(rows))


def run_snes(cfg, nodes, out, oversubscribe, scale=1.0):
    """The config's SNES runs (bench/snes.py) after the layout jobs: (records, failures)."""
    build = os.environ.get("AIJHYBRID_BUILD") or str(C.TOP / "build")
    exe = snes.executable(build)
    if not os.path.exists(exe):
        why = "%s is not built (make snes-ex5 builds it from PETSc's examples)" % exe
        print("bench: %s" % why, file=sys.stderr, flush=True)
        return [], [{"layout": "snes", "rc": None, "tail": why}]
    print("  SNES application (snes ex5), %d round(s)" % cfg["snes"].get("rounds", 3), flush=True)
    recs = snes.run(cfg["snes"], exe, snes.library(build), cfg["launcher"], cfg["binding"], nodes, out, launcher_args=cfg["launcher_args"],
                    oversubscribe=oversubscribe, scale=scale)
    return recs, []


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.replot:
        return replot(args)
    if not args.config:
        print("bench: --config is required (or --replot RECORD.json)", file=sys.stderr)
        return 2
    try:
        cfg = C.load(args.config)
        if args.layouts:
            cfg["layouts"] = [s.strip() for s in args.layouts.split(",") if s.strip()]
        if args.rounds:
            cfg["timing"]["rounds"] = args.rounds
        if args.launcher:
            cfg["launcher"] = args.launcher
        C.validate(cfg)
        variants = C.expand_variants(cfg)
        cases = C.matrix_cases(cfg, args.scale, args.matrices.split(",") if args.matrices else None, machine.l3_bytes())
    except C.ConfigError as e:
        print("bench: %s" % e, file=sys.stderr)
        return 2
    if not cases:
        print("bench: no matrices selected", file=sys.stderr)
        return 2
    nodes, cpn = L.available_cores(args.cores, args.nodes)
    problems = L.check_layouts(cfg["layouts"], nodes, cpn)
    if problems:
        msg = "layouts that do not fit %d node(s) x %d cores:\n  %s" % (nodes, cpn, "\n  ".join(problems))
        if not args.oversubscribe:
            print("bench: refusing %s\n(ranks x threads must not exceed the cores: fix the layouts, or --oversubscribe for a correctness-only run)" % msg, file=sys.stderr)
            return 2
        bar = "!" * 78
        print("%s\nWARNING: OVERSUBSCRIBED %s\nThese timings mean nothing (threads and ranks share cores).\n%s" % (bar, msg, bar), file=sys.stderr, flush=True)

    out = os.path.abspath(args.out or default_out())
    logs = os.path.join(out, "logs", cfg["name"])
    os.makedirs(logs, exist_ok=True)
    lib, how = stream.build(os.path.join(default_out(), "lib"))
    if not lib:
        print("bench: WARNING: STREAM library not built (%s); using the numpy triad (one thread per rank)" % how, file=sys.stderr)

    stamp = datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")
    schedule = [lay for _ in range(max(1, cfg["layout_rounds"])) for lay in cfg["layouts"]]
    print("bench %s: %d matrices x %d layouts x %d variants, %d job(s); %d node(s) x %d cores; output %s" % (
        cfg["name"], len(cases), len(cfg["layouts"]), len(variants), len(schedule), nodes, cpn, out), flush=True)
    jobs, failures, launches = [], [], []
    t_run = time.time()
    for i, lay in enumerate(schedule):
        pair = C.pair_layout(cfg, lay, nodes, bool(problems))
        spec = C.worker_spec(cfg, lay, cases, variants, pair)
        specpath = os.path.join(logs, "job%d-%s.spec.json" % (i, lay))
        partpath = os.path.join(logs, "job%d-%s.json" % (i, lay))
        with open(specpath, "w") as f:
            json.dump(spec, f, indent=1)
        over = bool(problems) and args.oversubscribe
        # a paired job starts one rank per core, unbound: each binds itself (aijhybrid_bench.job.pin_paired)
        pre, env_add = L.launch(pair or lay, cfg["launcher"], "none" if pair else cfg["binding"], nodes, cfg["launcher_args"], over)
        env_add.update(cfg["env"])
        cmd = pre + [args.python, "-m", "aijhybrid_bench.worker", "--spec", specpath, "--out", partpath]
        if lib:
            cmd += ["--stream-lib", lib]
        launches.append({"layout": lay, "paired_with": pair, "command": cmd, "env": env_add})
        if args.dry_run:
            print(" ".join("%s=%s" % kv for kv in sorted(env_add.items())) + " " + " ".join(cmd))
            continue
        print("  job %d/%d: %s%s (%s)" % (i + 1, len(schedule), lay, " with %s in the same job" % pair if pair else "", " ".join(pre)), flush=True)
        if os.path.exists(partpath):
            os.unlink(partpath)
        rc, secs, tail = run_job(cmd, job_env(env_add), os.path.join(logs, "job%d-%s.log" % (i, lay)), cfg["job_timeout"], args.quiet)
        if rc != 0 or not os.path.exists(partpath):
            failures.append({"layout": lay, "rc": rc, "tail": tail})
            print("  job %s FAILED (exit %s, %.0f s); log %s\n%s" % (lay, rc, secs, os.path.join(logs, "job%d-%s.log" % (i, lay)), tail), file=sys.stderr, flush=True)
            continue
        with open(partpath) as f:
            part = json.load(f)
        part["wall_s"] = secs
        part["launch"] = launches[-1]
        jobs.append(part)
        print("  job %s done in %.0f s (STREAM triad %.1f GB/s)" % (lay, secs, part["stream"]["triad_GBps"]), flush=True)
    if args.dry_run:
        return 0
    snes_recs = []
    if cfg["snes"].get("enabled"):
        snes_recs, snes_failed = run_snes(cfg, nodes, out, bool(problems) and args.oversubscribe, args.scale)
        failures += snes_failed
    if not jobs:
        print("bench: every job failed", file=sys.stderr)

    results, stream_med = report.flatten(jobs, cfg["baseline"])
    solve_rows, vec_rows = solves.flatten_solves(jobs), solves.flatten_vecops(jobs)
    setup_rows = pcsetup.flatten_setup(jobs)
    snes_rows = snes.flatten_snes(snes_recs)
    record = {
        "schema": SCHEMA,
        "date": stamp,
        "duration_s": time.time() - t_run,
        "config": {"name": cfg["name"], "source": cfg["source"], "content": cfg["raw"], "scale": args.scale,
                   "layouts": cfg["layouts"], "matrices_filter": args.matrices, "checks": cfg["checks"]},
        "machine": machine.describe(),
        "cores_checked": {"nodes": nodes, "cores_per_node": cpn, "problems": problems, "oversubscribed": bool(problems)},
        "software": dict(jobs[0]["software"] if jobs else {}, **machine.compiler(args.python), launcher_version=machine.mpiexec_version(cfg["launcher"])),
        "git": machine.git_revision(),
        "byte_model": "nnz*(sizeof(scalar)+sizeof(int)) + (rows+ranks)*sizeof(int) + cols*sizeof(scalar) + rows*sizeof(scalar) "
                      "(values+indices, row pointers, x read once, y written once; no write-allocate, as STREAM)",
        "flop_model": "2*nnz per product",
        "stream": {lay: {"triad_GBps": stream_med[lay], "jobs": _stream_jobs(jobs, lay)} for lay in stream_med},
        "binding": {j["layout"]: dict(j["binding"], launch=j["launch"]) for j in jobs},
        "jobs": [{"layout": j["layout"], "wall_s": j["wall_s"], "elapsed_s": j["elapsed_s"],
                  "cases": [{k: v for k, v in c.items() if k != "variants"} for c in j["cases"]]} for j in jobs],
        "baseline": cfg["baseline"],
        "results": results,
        "solves": solve_rows,
        "vecops": vec_rows,
        "setup": setup_rows,
        "snes": {"rows": snes_rows, "runs": snes_recs} if cfg["snes"].get("enabled") else None,
        "raw_variants": [{"layout": j["layout"], "matrix": c["label"], "rows": c["rows"], "variants": c["variants"]} for j in jobs for c in j["cases"]],
        "failures": failures,
    }
    record["problems"] = checks.problems(record)
    jpath = os.path.join(out, "%s.json" % cfg["name"])
    with open(jpath + ".tmp", "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    os.replace(jpath + ".tmp", jpath)
    m = record["machine"]
    title = "%s on %s (%s cores, %s NUMA), PETSc %s, %s" % (cfg["name"], m["cpu_model"], m["cores"], m["numa_nodes"],
                                                           record["software"].get("petsc_version"), stamp[:10])
    print()
    print(report.table(results, title, baseline=cfg["baseline"]))
    print()
    print(report.legend(cfg["baseline"]))
    print("STREAM triad per layout: " + ", ".join("%s %.1f GB/s" % (l, v) for l, v in sorted(stream_med.items())))
    if solve_rows:
        print()
        print(solves.solves_table(solve_rows))
    if vec_rows:
        print()
        print(solves.vecops_table(vec_rows))
    if setup_rows:
        print()
        print(setup_text(setup_rows))
    if snes_rows:
        print()
        print(snes_text(snes_rows))
    record["choice_audit"], record["choice_summary"] = report.choice_audit(results)
    if record["choice_summary"]:
        print()
        print(report.choice_audit_text(record["choice_audit"], record["choice_summary"]))
    record["targets"] = (report.targets(results, cfg["baseline"]) + solves.solve_targets(solve_rows, vec_rows) + pcsetup.setup_targets(setup_rows) + snes.snes_targets(snes_rows)
                         + report.choice_targets(record["choice_summary"]))
    if record["targets"]:
        print()
        print(report.targets_text(record["targets"]))
    pngs = []
    if not args.no_plots:
        try:
            from . import plots

            pngs = plots.plot_all(results, stream_med, out, cfg["name"], title, cfg["baseline"])
        except ImportError as e:
            print("bench: no plots (%s); install python3-matplotlib" % e, file=sys.stderr)
    record["plots"] = [os.path.basename(p) for p in pngs]
    with open(jpath, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print("record: %s%s; %.0f s" % (jpath, (", %d plots" % len(pngs)) if pngs else "", time.time() - t_run))
    if record["problems"]:
        bar = "!" * 78
        print("%s\nbench: FAILED: %d problem(s) in this run (the record lists them under \"problems\"):\n  %s\n%s" % (
            bar, len(record["problems"]), "\n  ".join(checks.text(record["problems"])), bar), file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
