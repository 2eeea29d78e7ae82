#!/usr/bin/python3
"""The share/slurm/ sbatch templates under a local SLURM whose nodes are the emulated hosts (make test-slurm).

usage: slurm.py [--build DIR] [--out DIR] [--hosts 4] [--scale 0.001] [--templates fig2,fig3] [--keep-logs]

Sets up the emulated hosts (share/nodes/hosts.py), writes a minimal slurm.conf (one node per host,
NodeAddr its address on the private bridge, AuthType=auth/none and CredType=cred/none: no munge,
MpiDefault=pmix, proctrack/linuxproc, no accounting), starts slurmctld on host 0 and one slurmd per
host (each in its host's namespaces: host name = node name), waits for the nodes, then submits each
template with sbatch, unchanged, from the source tree. The allocation of a template (fig2: 2 nodes
x 64 tasks, fig3: 16 nodes x 32) is larger than 4 hosts of 2 cores, so sbatch's command line
shrinks it (--nodes, --ntasks-per-node: command-line options override #SBATCH lines) and the
arguments after the template (which it passes to the benchmark driver, "$@") scale the matrices
down (--scale) and choose layouts that fit (--layouts, --oversubscribe: the hosts share 2 cores).
Each job runs the benchmark driver with --launcher srun, as on a cluster: srun starts every layout's
ranks on the allocated hosts. The record each job writes (<out>/<job>/cluster-fig*.json) is the
driver's, the one make bench writes; it is checked (every layout ran, MatMult timed).

Torn down on exit and on signals (every daemon runs inside the hosts' namespaces). Exit status: 0
every job produced its record, 1 a job failed, 2 this machine cannot (not root, no namespaces, SLURM
not installed: share/nodes/setup.sh slurm).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import hosts as H  # noqa: E402

PYTHON = os.environ.get("AIJHYBRID_PYTHON", "/usr/bin/python3")
# what each template is given on the command line here: sbatch options (the allocation) and driver arguments
TEMPLATES = {
    "fig2": {"sbatch": ["--nodes=2", "--ntasks-per-node=2"], "driver": ["--layouts", "4x1,2x2"]},
    "fig3": {"sbatch": ["--nodes=4", "--ntasks-per-node=2"], "driver": ["--layouts", "2x1@1,4x1@2,8x1@4,2x2@2"]},
}


def log(msg):
    print("slurm: %s" % msg, flush=True)


def slurm_conf(hosts, d):
    lines = [
        "# written by share/nodes/slurm.py: a local SLURM on the emulated hosts (removed at exit)",
        "ClusterName=aijhn",
        "SlurmctldHost=%s(%s)" % (hosts.names[0], hosts.addrs[0]),
        "AuthType=auth/none", "CredType=cred/none",
        "SlurmUser=root", "SlurmdUser=root",
        "StateSaveLocation=%s/state" % d, "SlurmdSpoolDir=%s/spool/%%n" % d,
        "SlurmctldPidFile=%s/slurmctld.pid" % d, "SlurmdPidFile=%s/slurmd.%%n.pid" % d,
        "SlurmctldLogFile=%s/slurmctld.log" % d, "SlurmdLogFile=%s/slurmd.%%n.log" % d,
        "SlurmctldPort=6817", "SlurmdPort=6818",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/affinity", "JobAcctGatherType=jobacct_gather/none",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
        "MpiDefault=pmix", "SchedulerType=sched/builtin", "ReturnToService=2",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
        "SlurmctldTimeout=30", "SlurmdTimeout=60", "InactiveLimit=0", "KillWait=5", "MinJobAge=600",
    ]
    for name, addr in zip(hosts.names, hosts.addrs):
        lines.append("NodeName=%s NodeAddr=%s NodeHostname=%s CPUs=%d State=UNKNOWN" % (name, addr, name, os.cpu_count() or 2))
    lines.append("PartitionName=hosts Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE")
    p = Path(d) / "slurm.conf"
    p.write_text("\n".join(lines) + "\n")
    for sub in ["state"] + ["spool/" + n for n in hosts.names] + ["tmp/" + n for n in hosts.names]:
        (Path(d) / sub).mkdir(parents=True, exist_ok=True)
    return str(p)


def check_record(path, layouts):
    """the driver's record: every layout present, MatMult timed in each"""
    if not os.path.exists(path):
        return False, "no record %s" % path
    d = json.load(open(path))
    res = d.get("results") or []
    got = {r.get("layout") for r in res if r.get("mult_s")}
    want = {l.split("@")[0] if "@" not in l else l for l in layouts}
    missing = [l for l in layouts if not any(g == l or (g or "").startswith(l.split("@")[0]) for g in got)]
    return (not missing and bool(res)), "%d results, layouts timed: %s%s" % (len(res), ", ".join(sorted(g for g in got if g)), "; missing %s" % missing if missing else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("AIJHYBRID_BUILD") or str(ROOT / "build"))
    ap.add_argument("--out", default=str(ROOT / "build" / "nodes" / "slurm"))
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--scale", type=float, default=0.001)
    ap.add_argument("--templates", default="fig2,fig3")
    ap.add_argument("--json", default=None, help="summary (default <out>/slurm.json)")
    ap.add_argument("--timeout", type=int, default=3600)
    args = ap.parse_args(argv)
    why = H.unsupported_reason()
    if not why:
        for tool in ("slurmctld", "slurmd", "sbatch", "sinfo", "srun"):
            if shutil.which(tool) is None:
                why = "%s not found: bash share/nodes/setup.sh slurm (Debian's slurm-wlm)" % tool
    if why:
        log("cannot run a local SLURM here: %s" % why)
        return 2
    out = Path(args.out).resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    summary = {"templates": {}, "scale": args.scale, "hosts": args.hosts, "slurm": subprocess.run(["sinfo", "-V"], capture_output=True, text=True).stdout.strip(),
               "not_exercised": [
                   "the templates' own allocation sizes (2 x 64 and 16 x 32 tasks): shrunk on sbatch's command line to the emulated hosts' 2 cores each",
                   "--exclusive nodes and --cpu-bind=cores pinning: the hosts share this machine's 2 cores (the driver runs with --oversubscribe, binding none)",
                   "a site's module environment, partition and account lines (commented out in the templates)",
                   "the paper-size matrices (scaled down by --scale), 7 timing rounds (3 here), fig3's 8- and 16-node layouts and its 1x2 and 4x2 layouts (4 layouts of up to 4 nodes here)",
                   "munge authentication (AuthType=auth/none), cgroup confinement (proctrack/linuxproc), accounting (sacct)",
               ]}
    rc = 0
    try:
        with H.Hosts(args.hosts, "1gbit") as hosts:
            d = str(out / "run")  # configuration, state, logs, and each node's /tmp: outside /tmp, which the nodes do not share
            os.makedirs(d)
            conf = slurm_conf(hosts, d)
            env = dict(os.environ, SLURM_CONF=conf)
            daemons = [subprocess.Popen(hosts.ns_cmd(0, ["slurmctld", "-D", "-c", "-f", conf]), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
            time.sleep(2)
            for i, name in enumerate(hosts.names):
                # each node its own /tmp (Slurm's PMIx plugin and Open MPI keep per-job directories there), in a
                # mount namespace of its own; this machine's /sys (slurmd reads the cgroup file systems)
                private_tmp = ["unshare", "--mount", "/bin/sh", "-c", 'mount --bind "$0" /tmp && exec "$@"', os.path.join(d, "tmp", name)]
                daemons.append(subprocess.Popen(hosts.ns_cmd(i, private_tmp + ["slurmd", "-D", "-f", conf, "-N", name], own_sysfs=False), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            t0 = time.time()
            while True:
                p = subprocess.run(hosts.ns_cmd(0, ["sinfo", "-h", "-N", "-o", "%N %t"]), env=env, capture_output=True, text=True)
                states = dict(l.split() for l in p.stdout.splitlines() if len(l.split()) == 2)
                if len(states) == args.hosts and all(s in ("idle", "mix", "alloc") for s in states.values()):
                    break
                if time.time() - t0 > 90 or any(x.poll() is not None for x in daemons):
                    raise RuntimeError("the SLURM daemons did not come up (sinfo: %s %s); logs in %s:\n%s" % (p.stdout.strip(), p.stderr.strip(), d, tail_logs(d)))
                time.sleep(1)
            log("slurmctld on %s, slurmd on %s: %s" % (hosts.names[0], ", ".join(hosts.names), states))
            summary["nodes"] = states
            job_env = dict(env, PYTHON=PYTHON, AIJHYBRID_BUILD=args.build, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                           OMPI_MCA_btl="tcp,self,vader", OMPI_MCA_btl_tcp_if_include=hosts.subnet + ".0/24", OMPI_MCA_oob_tcp_if_include=hosts.subnet + ".0/24",
                           OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_mpi_yield_when_idle="1", OMP_WAIT_POLICY="passive")
            for k in list(job_env):
                if k.startswith(("OMPI_COMM_WORLD", "PMIX_", "SLURM_JOB", "SLURM_NODELIST", "SLURM_NTASKS")):
                    del job_env[k]
            for t in args.templates.split(","):
                spec = TEMPLATES[t]
                tout = out / t
                tout.mkdir()
                cmd = (["sbatch", "--wait", "--parsable", "-o", str(tout / "slurm-%j.out")] + spec["sbatch"] + [str(ROOT / "share" / "slurm" / (t + ".sbatch"))]
                       + ["--scale", str(args.scale), "--rounds", "3", "--oversubscribe", "--no-plots"] + spec["driver"])
                log("%s: %s" % (t, " ".join(cmd)))
                t1 = time.time()
                p = subprocess.run(hosts.ns_cmd(0, cmd), env=dict(job_env, OUT=str(tout)), cwd=str(ROOT), capture_output=True, text=True, timeout=args.timeout)
                job = p.stdout.strip().split(";")[0]
                rec = tout / ("cluster-%s.json" % t)
                ok, detail = check_record(str(rec), spec["driver"][1].split(","))
                outs = sorted(tout.glob("slurm-*.out"))
                summary["templates"][t] = {"command": " ".join(cmd), "job": job, "sbatch_exit": p.returncode, "seconds": round(time.time() - t1, 1), "record": str(rec) if rec.exists() else None,
                                           "ok": ok and p.returncode == 0, "detail": detail, "stderr": p.stderr.strip()[-1500:],
                                           "job_output_tail": outs[0].read_text()[-3000:] if outs else None}
                log("%s: job %s exit %d, %s (%.0f s)" % (t, job, p.returncode, detail, time.time() - t1))
                if not summary["templates"][t]["ok"]:
                    rc = 1
            summary["slurmctld_log_tail"] = tail_logs(d, 20)
        shutil.rmtree(os.path.join(d, "tmp"), ignore_errors=True)
    except H.Unsupported as e:
        log("cannot run here: %s" % e)
        return 2
    except (KeyboardInterrupt, H.Interrupted):
        log("interrupted: hosts and daemons removed")
        return 130
    except RuntimeError as e:
        log(str(e))
        summary["error"] = str(e)
        rc = 1
    js = args.json or str(out / "slurm.json")
    Path(js).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    log("summary: %s" % js)
    return rc


def tail_logs(d, n=30):
    text = []
    for f in sorted(Path(d).glob("*.log")):
        text.append("== %s\n%s" % (f.name, "\n".join(f.read_text(errors="replace").splitlines()[-n:])))
    return "\n".join(text)


if __name__ == "__main__":
    sys.exit(main())
