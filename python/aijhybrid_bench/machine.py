"""Description of the machine and software a run was made on (for the JSON record)."""

import os
import platform
import re
import shlex
import socket
import subprocess

from .config import TOP


def _run(cmd, cwd=None):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30, cwd=cwd).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def lscpu():
    out = {}
    for line in _run(["lscpu"]).splitlines():
        k, sep, v = line.partition(":")
        if sep:
            out[k.strip()] = v.strip()
    return out


def l3_bytes():
    """Size of the last-level cache of cpu0 in bytes (0 when unknown)."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = 0
    try:
        for d in os.listdir(base):
            try:
                with open(os.path.join(base, d, "level")) as f:
                    level = int(f.read())
                with open(os.path.join(base, d, "size")) as f:
                    s = f.read().strip()
                m = re.match(r"(\d+)([KMG]?)", s)
                size = int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]
                if level >= 2:
                    best = max(best, size)
            except (OSError, ValueError, AttributeError):
                pass
    except OSError:
        pass
    return best


def meminfo_bytes(key):
    """The field `key` of /proc/meminfo ("MemTotal", "MemAvailable") in bytes, or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_bytes():
    return meminfo_bytes("MemTotal")


def describe():
    c = lscpu()
    sockets = int(c.get("Socket(s)", "1") or 1)
    cores_per_socket = int(c.get("Core(s) per socket", "0") or 0)
    return {
        "hostname": socket.gethostname(),
        "cpu_model": c.get("Model name"),
        "architecture": c.get("Architecture"),
        "sockets": sockets,
        "cores": sockets * cores_per_socket or os.cpu_count(),
        "threads_per_core": int(c.get("Thread(s) per core", "1") or 1),
        "cpus_online": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "numa_nodes": int(c.get("NUMA node(s)", "1") or 1),
        "l3_cache": c.get("L3 cache"),
        "llc_bytes": l3_bytes(),
        "hypervisor": c.get("Hypervisor vendor"),
        "memory_bytes": memory_bytes(),
        "kernel": platform.release(),
        "os": _os_release(),
        "slurm": {k: v for k, v in os.environ.items() if k in ("SLURM_JOB_ID", "SLURM_JOB_NUM_NODES", "SLURM_CPUS_ON_NODE", "SLURM_JOB_PARTITION", "SLURM_CLUSTER_NAME")} or None,
    }


def _os_release():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.platform()


def git_revision():
    rev = _run(["git", "-C", str(TOP), "rev-parse", "HEAD"]).strip() or None
    if rev is None:
        return {"revision": None, "dirty": None}
    dirty = bool(_run(["git", "-C", str(TOP), "status", "--porcelain", "--untracked-files=no"]).strip())
    return {"revision": rev, "dirty": dirty, "branch": _run(["git", "-C", str(TOP), "rev-parse", "--abbrev-ref", "HEAD"]).strip()}


def compiler(python):
    """The C compiler PETSc (and so the plugin) was built with, from petsc4py's PETSc configuration,
    queried through the worker's interpreter (no PETSc initialisation in the driver)."""
    code = (
        "import petsc4py,os\n"
        "c=petsc4py.get_config();d=c.get('PETSC_DIR','');a=c.get('PETSC_ARCH','') or ''\n"
        "p=os.path.join(d,a,'lib','petsc','conf','petscvariables')\n"
        "print(d);print(a);print(p)\n"
        "[print(l.strip()) for l in open(p) if l.startswith(('PCC =','PCC_FLAGS =','CC_VERSION', 'MPI_VERSION'))]\n"
    )
    out = _run([python, "-c", code]).splitlines()
    info = {"petsc_dir": out[0] if out else None, "petsc_arch": out[1] if len(out) > 1 else None}
    pcc = None
    for line in out[3:]:
        k, _, v = line.partition("=")
        if k.strip() == "PCC":
            pcc = v.strip()
        elif k.strip() == "PCC_FLAGS":
            info["petsc_cflags"] = v.strip()
    info["cc"] = pcc
    if pcc:
        ver = _run(shlex.split(pcc) + ["--version"]).splitlines()
        info["cc_version"] = ver[0] if ver else None
    plugin_cc = os.environ.get("CC", "cc")
    ver = _run([plugin_cc, "--version"]).splitlines()
    info["stream_cc"] = plugin_cc
    info["stream_cc_version"] = ver[0] if ver else None
    return info


def mpiexec_version(launcher):
    prog = launcher[0] if isinstance(launcher, list) else launcher
    out = _run([prog, "--version"]).splitlines()
    return out[0] if out else None
