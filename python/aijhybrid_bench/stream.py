"""STREAM triad bandwidth, measured inside a benchmark job by the same ranks and threads (same
layout and binding) whose products it is compared with.

The kernel is share/bench/stream.c (OpenMP), compiled once by the driver and loaded with ctypes in
every rank; Python puts an MPI barrier and MPI_Wtime around each pass, so a pass lasts as long as the
slowest rank. Bandwidth = 24 bytes x elements over all ranks / time (STREAM's count: read b, read c,
write a; write-allocate traffic not counted), best (shortest) of `repeats` passes, as STREAM reports.
Without a C compiler a numpy triad (one thread per rank, in cache-sized chunks so it moves the same
24 bytes per element) stands in, and the record says so.
"""

import ctypes
import os
import shutil
import subprocess

from .config import CONFIG_DIR
from .machine import meminfo_bytes

SOURCE = CONFIG_DIR / "stream.c"
BYTES_PER_ELEMENT = 24


def build(outdir):
    """Compile the triad library into outdir; returns (path or None, message)."""
    src = os.environ.get("AIJHYBRID_STREAM_SRC", str(SOURCE))
    if not os.path.exists(src):
        return None, "no %s" % src
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None, "no C compiler (set CC)"
    os.makedirs(outdir, exist_ok=True)
    lib = os.path.join(outdir, "libaijhstream.so")
    if os.path.exists(lib) and os.path.getmtime(lib) >= os.path.getmtime(src):
        return lib, "up to date"
    tmp = "%s.%d.tmp" % (lib, os.getpid())  # concurrent drivers: each compiles its own, the last rename wins
    cmd = [cc, "-O3", "-fopenmp", "-fPIC", "-shared", src, "-o", tmp]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return None, "%s failed: %s" % (" ".join(cmd), p.stderr.strip()[-500:])
    os.replace(tmp, lib)
    return lib, " ".join(cmd)


class _Lib:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.aijh_stream_create.restype = ctypes.c_void_p
        self.lib.aijh_stream_create.argtypes = [ctypes.c_long, ctypes.c_int]
        self.lib.aijh_stream_triad.restype = ctypes.c_double
        self.lib.aijh_stream_triad.argtypes = [ctypes.c_void_p, ctypes.c_double]
        self.lib.aijh_stream_thread_cpus.restype = ctypes.c_int
        self.lib.aijh_stream_thread_cpus.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        self.lib.aijh_stream_destroy.argtypes = [ctypes.c_void_p]


def thread_cpus(path, nthreads):
    """The cpus the OpenMP threads of this process run on (None without the library)."""
    if not path:
        return None
    L = _Lib(path)
    cpus = (ctypes.c_int * nthreads)()
    got = L.lib.aijh_stream_thread_cpus(nthreads, cpus)
    return list(cpus)[:got]


def _machine_id():
    """What tells one kernel (one machine) from another: emulated hosts (network and UTS namespaces,
    share/nodes) are nodes to MPI but share this machine's memory and its boot id."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        import socket

        return socket.gethostname()


def memory_cap(comm, node_rank):
    """(bytes each of the three arrays of one node may take, nodes of comm on this machine): half of
    this machine's available memory (the smallest MemAvailable its ranks read) shared by the nodes of
    comm that run on it (one on a cluster; several for emulated hosts). None when it cannot be read."""
    me = _machine_id()
    leaders = comm.allgather(me if node_rank == 0 else None)
    k = max(1, sum(1 for m in leaders if m == me))
    avail = meminfo_bytes("MemAvailable")
    lows = comm.allgather((me, avail))
    mine = [a for m, a in lows if m == me and a is not None]
    return (int(min(mine) / 2 / 3 / k) if mine else None), k


def measure(comm, path, nthreads, array_bytes_per_node, repeats=10):
    """Triad bandwidth of all ranks of comm together (mpi4py communicator), in GB/s (1e9 bytes/s).
    array_bytes_per_node: size of each of the three arrays summed over the ranks of one node, at
    most memory_cap() (the record says when it was capped: emulated hosts share one machine's
    memory, and 4 x a large L3 on each would exhaust it)."""
    from mpi4py import MPI

    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    local_ranks, node_rank = node.Get_size(), node.Get_rank()
    node.Free()
    cap, nodes_here = memory_cap(comm, node_rank)
    asked = array_bytes_per_node
    if cap is not None:
        array_bytes_per_node = min(array_bytes_per_node, cap)
    n = max(1 << 16, int(array_bytes_per_node // 8 // local_ranks))
    method = "c-openmp" if path else "numpy"
    times = []
    if path:
        L = _Lib(path)
        s = L.lib.aijh_stream_create(n, nthreads)
        ok = comm.allreduce(1 if s else 0, op=MPI.MIN)
        if not ok:
            raise MemoryError("stream: could not allocate 3 x %d doubles" % n)
        L.lib.aijh_stream_triad(s, 3.0)  # warm-up
        for _ in range(repeats):
            comm.Barrier()
            t0 = MPI.Wtime()
            L.lib.aijh_stream_triad(s, 3.0)
            comm.Barrier()
            times.append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
        L.lib.aijh_stream_destroy(s)
    else:
        import numpy as np

        a, b, c = np.zeros(n), np.full(n, 2.0), np.full(n, 0.5)
        chunk = 1 << 15
        tmp = np.empty(chunk)

        def triad():
            for i in range(0, n, chunk):
                j = min(n, i + chunk)
                t = tmp[: j - i]
                np.multiply(c[i:j], 3.0, out=t)
                np.add(b[i:j], t, out=a[i:j])

        triad()
        for _ in range(repeats):
            comm.Barrier()
            t0 = MPI.Wtime()
            triad()
            comm.Barrier()
            times.append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
        del a, b, c
    total = BYTES_PER_ELEMENT * n * comm.Get_size()
    best = min(times)
    times_sorted = sorted(times)
    return {
        "triad_GBps": total / best / 1e9,
        "triad_GBps_median": total / times_sorted[len(times) // 2] / 1e9,
        "method": method,
        "elements_per_rank": n,
        "array_bytes_per_rank": 8 * n,
        "array_bytes_per_node_asked": int(asked),
        "capped_by_memory": bool(cap is not None and cap < asked),
        "nodes_on_this_machine": nodes_here,
        "repeats": repeats,
        "threads_per_rank": nthreads if path else 1,
        "bytes_per_element": BYTES_PER_ELEMENT,
    }
