#!/usr/bin/python3
"""Several nodes on one machine: emulated hosts with real TCP between them (docs/nodes.md).

usage: nodes.py check                      can this machine emulate hosts? (exit 0 yes, 2 no, with the reason)
       nodes.py cleanup                    remove what an interrupted run left (namespaces, links, processes)
       nodes.py run [opts] -- CMD ARGS     set up the hosts, run CMD under mpirun on them, tear down
       nodes.py quick [--json F]           the short check make test runs (~1 min): hosts, shared memory, the
                                           plan's messages counted on the wire for two matrices at 4 x 2
       nodes.py full [--json F]            make test-nodes: the hosts checked and measured (ping-pong, injection),
                                           PETSc's SF tests, MatMult and CG + Jacobi of the benchmark matrices
                                           with basic and nodeaware at 4 hosts x {2x1, 1x2} counted on the wire
                                           and timed at two rates, every matrix on one host (the CPU input), the
                                           performance model fitted and validated
                                           (share/nodes/model.py), the result as JSON
options: --hosts N (4)  --rate R (1gbit)  --slow-rate R (100mbit)  --ranks-per-host R (2)  --threads T (1)
         --subnet A.B.C (10.213.0)  --build DIR (build)  --keep-going

Everything made carries the prefix aijhn and is removed on exit, on SIGINT/SIGTERM/SIGHUP too, and
by the next run if this one was killed (share/nodes/hosts.py). Exit status: 0 every check passed,
1 a check failed, 2 this machine cannot emulate hosts (not root, no namespaces: the reason is printed).
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import hosts as H  # noqa: E402
import model  # noqa: E402
import sftests  # noqa: E402

PYTHON = os.environ.get("AIJHYBRID_PYTHON", "/usr/bin/python3")
# every message of these fits one TCP segment at 4 x 2 (so a segment on the wire is a message)
COUNTS = "poisson7:1728,extruded:1024:layers=8,powerlaw:512"
# the benchmark matrices at the size of the nodeaware benchmark (share/bench/nodeaware.json)
LARGE = "poisson7:262144,extruded:262144,powerlaw:262144"
QUICK = "poisson7:1728,powerlaw:512"
LAYOUTS = (("2x1", 2, 1), ("1x2", 1, 2))
HDR = 22  # bytes Open MPI 4.1 adds to an eager message over TCP (ob1 match header 14, TCP BTL header 8): checked below
EAGER = 65536  # Open MPI's btl_tcp_eager_limit
RTOL_PAYLOAD = 0.02  # large messages: TCP payload within 2% of the plan's bytes (MPI's rendezvous headers and control)


def log(msg):
    print("nodes: %s" % msg, flush=True)


def job_env(build):
    return {"PYTHONPATH": str(ROOT / "python"), "AIJHYBRID_BUILD": str(build), "PYTHONDONTWRITEBYTECODE": "1"}


def mpi_json(hosts, script, args, rph, threads, build, out, timeout=1800, nhosts=None):
    """run an MPI job script of this folder on the hosts; its JSON result (or {"error": ...})"""
    if os.path.exists(out):
        os.unlink(out)
    rc, so, se, sec = hosts.mpirun([PYTHON, str(HERE / script), "--out", out] + list(args), rph, threads=threads, env=job_env(build), timeout=timeout, hosts=nhosts)
    if rc != 0 or not os.path.exists(out):
        tail = "\n".join(l for l in (so + se).splitlines() if "setpgid" not in l)[-3000:]
        return {"error": "%s exited %s after %.0f s:\n%s" % (script, rc, sec, tail)}
    d = json.load(open(out))
    d["seconds"] = round(sec, 1)
    return d


# ------------------------------------------------------------------------------------------------
# predictions of the wire from the plan's messages


def segments(b):
    """data segments and frame bytes of one MPI message of b bytes of data (eager: one fragment; larger:
    approximately, as a stream of MSS-sized segments)"""
    n = b + HDR
    s = max(1, math.ceil(n / H.MSS))
    return s, n + H.SEG_OVERHEAD * s


def host_pair_prediction(msgs, host_of, kind):
    """{(from host, to host): [messages, data bytes, segments, frame bytes]} of one exchange"""
    out = {}
    for a, b, nbytes in msgs:
        pair = (host_of[a], host_of[b]) if kind == "basic" else (a, b)
        s, fb = segments(nbytes)
        e = out.setdefault(pair, [0, 0, 0, 0])
        e[0] += 1
        e[1] += nbytes
        e[2] += s
        e[3] += fb
    return out


def analyse(run):
    """rows of a worker run: per matrix and variant, the plan, the prediction and the wire; checks"""
    rows, checks = [], []
    if "error" in run:
        return rows, [{"check": "%s run" % run.get("label"), "ok": False, "detail": run["error"][-600:]}]
    hosts = run["hosts"]
    nh = len(hosts)
    for m in run["matrices"]:
        for v, r in m["variants"].items():
            kind = r["kind"]
            pred = host_pair_prediction(m["messages"][kind], run["host_of_rank"], kind)
            wire = r["wire"]
            seg_pairs = {}
            for i, h in enumerate(hosts):
                for j in range(nh):
                    if i != j:
                        seg_pairs[(i, j)] = wire[h]["to"].get(str(j), wire[h]["to"].get(j, [0, 0]))
            meas_segs = sum(wire[h]["data"][1] for h in hosts)
            meas_bytes = sum(wire[h]["data"][0] for h in hosts)
            acks = sum(wire[h]["ack"][1] for h in hosts)
            other = sum(wire[h]["other"][1] for h in hosts)
            pt = r["plan_total"]
            p_msgs, p_bytes = sum(e[0] for e in pred.values()), sum(e[1] for e in pred.values())
            p_segs, p_frames = sum(e[2] for e in pred.values()), sum(e[3] for e in pred.values())
            row = {"run": run["label"], "layout": run["layout"], "rate": run["rate"], "matrix": m["matrix"], "rows": m["rows"], "nnz": m["nnz"],
                   "variant": v, "sf": kind, "type": r["type"], "threads": run["threads"], "ranks": run["ranks"],
                   "plan_msgs": pt["inter_msgs"], "plan_bytes": pt["inter_bytes"], "plan_on_msgs": pt["on_msgs"], "plan_on_bytes": pt["on_bytes"],
                   "pattern_msgs": p_msgs, "pattern_bytes": p_bytes, "pred_segments": p_segs, "pred_frame_bytes": p_frames,
                   "wire_segments": round(meas_segs, 2), "wire_bytes": round(meas_bytes, 1), "wire_payload": round(meas_bytes - H.SEG_OVERHEAD * meas_segs, 1),
                   "wire_acks": round(acks, 2), "wire_ack_bytes": round(sum(wire[h]["ack"][0] for h in hosts), 1), "wire_other": other,
                   "retrans": sum(wire[h]["retrans"] for h in hosts), "max_msg_bytes": max([x[2] for x in m["messages"][kind]] + [0]),
                   "max_pair_segments": round(max(seg_pairs[p][1] for p in seg_pairs), 2) if seg_pairs else 0,
                   "host_pairs_with_traffic": len(pred), "mult_s": r.get("mult_s"), "mult_s_min": r.get("mult_s_min"),
                   "cg_solve_s": r.get("cg_solve_s"), "cg_its": (r.get("cg_its") or [None])[0],
                   "allreduce_s": run.get("allreduce_s"),
                   "cg_wire_segments": round(sum(r["cg_wire"][h]["data"][1] for h in hosts), 2) if r.get("cg_wire") else None,
                   "rank_nnz": m["rank_nnz"], "rank_rows": m["rank_rows"], "host_of_rank": run["host_of_rank"],
                   "plan_hosts": r["plan"], "messages": m["messages"][kind]}
            row["payload_vs_plan"] = (row["wire_payload"] - p_bytes) / p_bytes if p_bytes else None
            rows.append(row)
            name = "%s %s %s %s" % (run["label"], m["matrix"], v, run["layout"])
            # the plan's statistics and the messages of the pattern agree
            checks.append({"check": "%s: plan = pattern" % name, "ok": pt["inter_msgs"] == p_msgs and pt["inter_bytes"] == p_bytes,
                           "detail": "plan %d msgs %d B, pattern %d msgs %d B" % (pt["inter_msgs"], pt["inter_bytes"], p_msgs, p_bytes)})
            checks.append({"check": "%s: nodes = hosts" % name, "ok": r["nodes_seen"] == nh, "detail": "%d nodes, %d hosts" % (r["nodes_seen"], nh)})
            if run["regime"] == "counts" and row["max_msg_bytes"] + HDR <= H.MSS:
                # one segment per message: the wire shows each message; exact per host pair
                bad = [(p, seg_pairs[p][1], pred.get(p, [0, 0, 0])[2]) for p in seg_pairs if abs(seg_pairs[p][1] - pred.get(p, [0, 0, 0])[2]) > 1e-9]
                checks.append({"check": "%s: data segments per host pair = plan's messages" % name, "ok": not bad,
                               "detail": "total %s measured, %d predicted%s" % (row["wire_segments"], p_segs, "; differ: %s" % bad[:6] if bad else "")})
                hdr = (row["wire_payload"] - p_bytes) / p_msgs if p_msgs else HDR
                checks.append({"check": "%s: bytes = plan + %d per message + %d per segment" % (name, HDR, H.SEG_OVERHEAD), "ok": abs(hdr - HDR) < 0.5,
                               "detail": "%.2f header bytes per message measured" % hdr})
                if kind == "nodeaware" and run["ranks_per_host"][0] > 1:
                    checks.append({"check": "%s: at most one message per host pair" % name, "ok": row["max_pair_segments"] <= 1 + 1e-9,
                                   "detail": "max %s per pair" % row["max_pair_segments"]})
            elif run["regime"] != "counts":
                ok = p_bytes == 0 or abs(row["payload_vs_plan"]) <= RTOL_PAYLOAD
                checks.append({"check": "%s: TCP payload within %.0f%% of the plan's bytes" % (name, 100 * RTOL_PAYLOAD), "ok": ok,
                               "detail": "payload %.0f B, plan %d B (%+.2f%%); segments %s, predicted %d" % (row["wire_payload"], p_bytes, 100 * (row["payload_vs_plan"] or 0), row["wire_segments"], p_segs)})
            checks.append({"check": "%s: no retransmission" % name, "ok": row["retrans"] == 0 or run["regime"] != "counts", "detail": "%d retransmitted segments" % row["retrans"]})
    # basic / nodeaware on the wire = the plan's factor
    if run["regime"] == "counts":
        for m in {r["matrix"] for r in rows}:
            for a, b in (("aij", "aij_nodeaware"), ("hybrid", "hybrid_nodeaware")):
                ra = next((r for r in rows if r["matrix"] == m and r["variant"] == a), None)
                rb = next((r for r in rows if r["matrix"] == m and r["variant"] == b), None)
                if ra and rb and rb["wire_segments"]:
                    f_plan = ra["plan_msgs"] / rb["plan_msgs"] if rb["plan_msgs"] else None
                    f_wire = ra["wire_segments"] / rb["wire_segments"]
                    checks.append({"check": "%s %s %s: basic / nodeaware messages on the wire = plan's factor" % (run["label"], m, a), "ok": f_plan is not None and abs(f_wire - f_plan) < 1e-9,
                                   "detail": "wire %.3f, plan %s" % (f_wire, "%.3f" % f_plan if f_plan else "-")})
    return rows, checks


def probe_checks(p, label):
    c = []
    if "error" in p:
        return [{"check": "%s probe" % label, "ok": False, "detail": p["error"][-600:]}]
    c.append({"check": "%s: host names are the emulated hosts'" % label, "ok": p["hostnames"] == [h for h in p["hosts"] for _ in range(p["ranks"] // len(p["hosts"]))],
              "detail": ", ".join(p["hostnames"])})
    c.append({"check": "%s: MPI_COMM_TYPE_SHARED = the ranks of one host" % label, "ok": bool(p["shm_is_host"]), "detail": str(p["shm_groups"])})
    w = p.get("wire_intra_1MiB", {})
    c.append({"check": "%s: a message inside a host does not cross the wire" % label, "ok": bool(w) and all(v[0] < 100000 for v in w.values()),
              "detail": "bytes sent per host during 3 x 1 MiB inside host 0: %s" % {h: v[0] for h, v in w.items()}})
    w = p.get("wire_inter_1MiB", {})
    h0, h1 = p["hosts"][0], p["hosts"][1]
    c.append({"check": "%s: a message between hosts crosses the wire" % label, "ok": bool(w) and w[h0][0] > 3 * (1 << 20) and w[h1][0] > 3 * (1 << 20),
              "detail": "bytes sent per host during 3 x 1 MiB between hosts 0 and 1: %s" % {h: v[0] for h, v in w.items()}})
    return c


def run_worker(hosts, label, regime, mats, layout, rph, threads, build, tmp, args, rounds, cg_its, reps, variants=None, nhosts=None):
    wargs = ["--matrices", mats, "--rounds", str(rounds), "--cg-its", str(cg_its), "--reps", str(reps), "--threads", str(threads),
             "--batch-seconds", str(args.batch_seconds)]
    if variants:
        wargs += ["--variants", variants]
    log("%s: %s at %d hosts x %s, %s per host" % (label, mats, nhosts or hosts.n, layout, hosts.rate))
    t0 = time.time()
    d = mpi_json(hosts, "worker.py", wargs, rph, threads, build, os.path.join(tmp, label + ".json"), nhosts=nhosts)
    d.update(label=label, regime=regime, layout=layout, rate=hosts.rate, rate_bps=hosts.rate_bps, hosts_n=nhosts or hosts.n, ranks_per_host_asked=rph, threads=threads)
    log("%s: %.0f s%s" % (label, time.time() - t0, " (FAILED)" if "error" in d else ""))
    return d


def set_rate(hosts, rate):
    """change every host's rate limit in place (tc class change)"""
    hosts.rate, hosts.rate_bps = rate, H.rate_bits(rate)
    for i, name in enumerate(hosts.names):
        for ns, dev in ((["ip", "netns", "exec", name], H.DEV), ([], hosts.ports[i])):
            subprocess.run(ns + ["tc", "qdisc", "del", "dev", dev, "root"], capture_output=True)
            hosts._shape(ns, dev, classify=bool(ns))
    log("rate limit now %s per host each way" % rate)


def summary_targets(rows, checks, fit, slurm=None):
    t = []
    counts = [r for r in rows if r["run"].startswith("counts-2x1") and r["sf"] == "nodeaware"]
    ok = bool(counts) and all(c["ok"] for c in checks if c["check"].startswith("counts-2x1") and ("per host pair" in c["check"] or "factor" in c["check"]))
    t.append({"target": "4 hosts x 2 ranks: nodeaware sends at most 1 inter-host message per host pair per exchange, fewer than basic by the plan's factor, counted on the wire",
              "met": ok, "value": ", ".join("%s %s: %s segments (max %s per pair)" % (r["matrix"], r["variant"], r["wire_segments"], r["max_pair_segments"]) for r in counts)})
    return t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("check", "cleanup", "run", "quick", "full"))
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--rate", default="1gbit")
    ap.add_argument("--slow-rate", default="100mbit")
    ap.add_argument("--ranks-per-host", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--subnet", default=H.SUBNET)
    ap.add_argument("--build", default=os.environ.get("AIJHYBRID_BUILD") or str(ROOT / "build"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--batch-seconds", type=float, default=0.3)
    ap.add_argument("--cg-its", type=int, default=10)
    ap.add_argument("--large", default=LARGE)
    ap.add_argument("--counts", default=COUNTS)
    ap.add_argument("--no-sf-tests", action="store_true")
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[: argv.index("--")] if "--" in argv else argv)

    if args.command == "cleanup":
        if os.geteuid() != 0:
            log("needs root")
            return 2
        H.cleanup()
        log("nothing of ours left")
        return 0
    why = H.unsupported_reason()
    if why:
        log("cannot emulate hosts on this machine: %s" % why)
        return 2
    if args.command == "check":
        log("this machine can emulate hosts (root, network and UTS namespaces, veth, bridge, tc htb)")
        return 0
    lib = Path(args.build) / "lib" / "libpetscaijhybrid.so"
    if args.command in ("quick", "full") and not lib.exists():
        log("%s not built: run make all first" % lib)
        return 1
    t_start = time.time()
    result = {"command": args.command, "hosts": args.hosts, "rate": args.rate, "subnet": args.subnet + ".0/24", "machine": {"cores": os.cpu_count(), "kernel": platform.release()},
              "load_average_start": os.getloadavg(), "constants": {"mpi_header_bytes": HDR, "segment_overhead_bytes": H.SEG_OVERHEAD, "ack_bytes": H.ACK_BYTES, "mss": H.MSS, "mtu": H.MTU}}
    rc = 0
    try:
        with H.Hosts(args.hosts, args.rate, args.subnet) as hosts:
            tmp = hosts.tmp
            if args.command == "run":
                r, so, se, sec = hosts.mpirun(cmd, args.ranks_per_host, threads=args.threads, env=job_env(args.build), timeout=24 * 3600)
                sys.stdout.write(so)
                sys.stderr.write(se)
                return r
            checks, rows, runs = [], [], []
            p = mpi_json(hosts, "probe.py", ["--reps", "20" if args.command == "full" else "3", "--sizes", "8,1024,65536,1048576" if args.command == "full" else "8"], args.ranks_per_host, 1, args.build, os.path.join(tmp, "probe.json"))
            result["probe"] = p
            checks += probe_checks(p, "probe")
            if args.command == "quick":
                runs.append(run_worker(hosts, "counts-2x1", "counts", QUICK, "2x1", 2, 1, args.build, tmp, args, 0, 0, 10, variants="aij,aij_nodeaware,hybrid_nodeaware"))
            else:
                if not args.no_sf_tests:
                    why = sftests.available()
                    sf = sftests.run(hosts, str(lib), os.path.join(tmp, "sftests"), log=log) if not why else []
                    exc = read_exceptions()
                    for s in sf:
                        name = "vec_is_sf_tests-" + s["output_file"][:-4]
                        if s["status"] == "fail" and s["sf_type"] == "nodeaware" and name in exc:
                            s.update(status="exception", exception=exc[name])
                    result["sf_tests"] = sf
                    checks.append({"check": "PETSc's SF tests on the hosts", "ok": not why and all(s["status"] != "fail" for s in sf),
                                   "detail": why or "%d runs: %d pass, %d listed exceptions, %d fail" % (len(sf), sum(s["status"] == "pass" for s in sf), sum(s["status"] == "exception" for s in sf), sum(s["status"] == "fail" for s in sf))})
                for lay, rph, th in LAYOUTS:
                    runs.append(run_worker(hosts, "counts-" + lay, "counts", args.counts, lay, rph, th, args.build, tmp, args, args.rounds, args.cg_its, 20))
                for lay, rph, th in LAYOUTS:
                    runs.append(run_worker(hosts, "large-" + lay, "large", args.large, lay, rph, th, args.build, tmp, args, args.rounds, args.cg_its, 5))
                # this machine's on-host exchange: every rank of each layout on one host (shared memory only), the
                # CPU input of the model for the configurations of the same matrices with as many ranks and threads
                for lay, rph, th in LAYOUTS:
                    n = rph * hosts.n
                    runs.append(run_worker(hosts, "onhost-%dx%d" % (n, th), "onhost", args.large, "%dx%d" % (n, th), n, th, args.build, tmp, args, args.rounds, args.cg_its, 5,
                                           variants="aij,hybrid", nhosts=1))
                    runs.append(run_worker(hosts, "onhost-counts-%dx%d" % (n, th), "onhost", args.counts, "%dx%d" % (n, th), n, th, args.build, tmp, args, args.rounds, args.cg_its, 20,
                                           variants="aij,hybrid", nhosts=1))
                set_rate(hosts, args.slow_rate)
                result["probe_slow"] = mpi_json(hosts, "probe.py", ["--reps", "10", "--sizes", "8,65536,1048576"], args.ranks_per_host, 1, args.build, os.path.join(tmp, "probe-slow.json"))
                for lay, rph, th in LAYOUTS:
                    runs.append(run_worker(hosts, "slow-" + lay, "large", args.large, lay, rph, th, args.build, tmp, args, args.rounds, args.cg_its, 3))
            for r in runs:
                rw, cw = analyse(r)
                rows += rw
                checks += cw
            result["runs"] = [{k: v for k, v in r.items() if k != "matrices"} for r in runs]
            result["rows"] = rows
            if args.command == "full":
                fit = model.fit_and_validate(result)
                result["model"] = fit
                result["targets"] = summary_targets(rows, checks, fit) + fit.get("targets", [])
            result["checks"] = checks
    except H.Unsupported as e:
        log("cannot emulate hosts on this machine: %s" % e)
        return 2
    except (KeyboardInterrupt, H.Interrupted) as e:
        log("interrupted (%s): hosts removed" % (e or "SIGINT"))
        return 130
    failed = [c for c in result["checks"] if not c["ok"]]
    result.update(seconds=round(time.time() - t_start, 1), load_average_end=os.getloadavg(), failed=len(failed))
    for c in result["checks"]:
        if not c["ok"] or args.command == "quick":
            log("%s %s: %s" % ("ok  " if c["ok"] else "FAIL", c["check"], c["detail"]))
    log("%d checks, %d failed, %.0f s" % (len(result["checks"]), len(failed), result["seconds"]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
        log("result: %s" % args.json)
    if args.command == "full":
        print(model.report(result))
    return 1 if failed else rc


def read_exceptions():
    out = {}
    p = ROOT / "tests" / "harness_exceptions.txt"
    if p.exists():
        for line in p.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, reason = line.partition(" ")
                out[name] = reason.strip()
    return out


if __name__ == "__main__":
    sys.exit(main())
