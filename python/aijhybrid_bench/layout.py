"""Layouts (ranks x threads): the cores available, the check that a layout fits them, and the launch
command with its binding.

Binding ("pe", the default): each rank gets T cores of its own and its threads are pinned inside
them, one per core:
  OpenMPI:  mpiexec -n R --map-by slot:PE=T --bind-to core   (several nodes: --map-by ppr:P:node:PE=T)
  SLURM:    srun -n R --cpus-per-task=T --cpu-bind=cores
  both:     OMP_NUM_THREADS=T OMP_PLACES=cores OMP_PROC_BIND=close, -mat_aijhybrid_num_threads T
"none": mpiexec --bind-to none, OMP_PROC_BIND=false (threads float; for oversubscribed correctness runs).
"""

import math
import os
import re

from .config import ConfigError, layout_nodes, parse_layout


class LayoutError(ConfigError):
    pass


def available_cores(cores=None, nodes=None):
    """(nodes, cores per node): from the arguments, else SLURM's allocation, else this process's
    CPU affinity (hardware threads of one core count once when lscpu says so)."""
    if cores:
        n = nodes or 1
        return n, int(math.ceil(cores / n))
    env = os.environ
    if env.get("SLURM_JOB_ID") and env.get("SLURM_CPUS_ON_NODE"):
        n = int(nodes or env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or 1)
        cpn = int(env["SLURM_CPUS_ON_NODE"])
        return n, cpn // max(1, _threads_per_core())
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return (nodes or 1), max(1, cpus // max(1, _threads_per_core()))


def _threads_per_core():
    try:
        with open("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list") as f:
            s = f.read().strip()
        n = 0
        for part in s.split(","):
            a, _, b = part.partition("-")
            n += (int(b) - int(a) + 1) if b else 1
        return max(1, n)
    except OSError:
        return 1


def check_layouts(layouts, nodes, cores_per_node):
    """Problems (strings) of the layouts that do not fit: ranks x threads > cores, or more ranks x
    threads on one node than it has cores (ranks spread evenly over the nodes)."""
    problems = []
    for l in layouts:
        r, t = parse_layout(l)
        n = layout_nodes(l) or nodes
        total = n * cores_per_node
        ppn = int(math.ceil(r / n))
        if n > nodes:
            problems.append("%s: needs %d nodes, the allocation has %d" % (l, n, nodes))
        elif r * t > total:
            problems.append("%s: %d ranks x %d threads = %d > %d cores (%d node(s) x %d)" % (l, r, t, r * t, total, n, cores_per_node))
        elif ppn * t > cores_per_node:
            problems.append("%s: %d ranks per node x %d threads = %d > %d cores per node" % (l, ppn, t, ppn * t, cores_per_node))
    return problems


def launch(layout, launcher="mpiexec", binding="pe", nodes=1, extra_args=(), oversubscribe=False):
    """(argv prefix, environment additions) to start one job with the layout."""
    r, t = parse_layout(layout)
    nodes = layout_nodes(layout) or nodes
    ppn = int(math.ceil(r / nodes))
    env = {"OMP_NUM_THREADS": str(t)}
    pinned = binding == "pe" and not oversubscribe
    if pinned:
        env.update(OMP_PLACES="cores", OMP_PROC_BIND="close")
    else:
        env.update(OMP_PROC_BIND="false")
    if oversubscribe:
        env["OMP_WAIT_POLICY"] = "passive"
    if isinstance(launcher, list):  # template
        fmt = dict(ranks=r, threads=t, nodes=nodes, ppn=ppn)
        argv = [str(a).format(**fmt) for a in launcher]
    elif launcher == "srun":
        argv = ["srun", "-n", str(r), "--cpus-per-task=%d" % t]
        argv += ["--cpu-bind=cores"] if pinned else ["--cpu-bind=none"]
        argv += ["-N", str(nodes), "--ntasks-per-node=%d" % ppn]  # else srun spreads over the whole allocation
        env["SRUN_CPUS_PER_TASK"] = str(t)
    elif launcher == "mpiexec":
        argv = ["mpiexec", "-n", str(r)]
        if pinned:
            mapping = ("ppr:%d:node:PE=%d" % (ppn, t)) if nodes > 1 else ("slot:PE=%d" % t)
            argv += ["--map-by", mapping, "--bind-to", "core"]
        else:
            argv += ["--bind-to", "none"]
        if oversubscribe:
            argv += ["--oversubscribe"]
        if os.geteuid() == 0:
            argv += ["--allow-run-as-root"]
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    else:
        raise ConfigError("launcher must be 'mpiexec', 'srun' or a list template, not %r" % (launcher,))
    return argv + list(extra_args), env


def cpu_list(cpus):
    """[0, 1, 2, 5] -> '0-2,5'."""
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def parse_cpu_list(s):
    cpus = []
    for part in re.split(r"[,\s]+", s.strip()):
        if not part:
            continue
        a, _, b = part.partition("-")
        cpus.extend(range(int(a), int(b) + 1) if b else [int(a)])
    return cpus
