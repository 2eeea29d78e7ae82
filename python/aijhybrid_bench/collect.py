"""Collecting what a benchmark job reports besides the product times: the software and the binding
of the job, and for each measured variant its check against the generated aij matrix, the plugin's
partition info, per-thread times and exchange statistics, and one CG + Jacobi solve."""

import os
import socket
import sys

from .job import is_hybrid
from .variants import option_pairs, sf_options


def software(job):
    """Versions of what the job runs: PETSc, petsc4py, MPI, Python, numpy, the plugin."""
    import numpy
    import petsc4py

    PETSc, MPI, ph = job.PETSc, job.MPI, job.ph
    v = PETSc.Sys.getVersion()
    return {
        "petsc_version": "%d.%d.%d" % tuple(v),
        "petsc4py_version": petsc4py.__version__,
        "petsc_int_bytes": PETSc.IntType().itemsize,
        "petsc_scalar": str(PETSc.ScalarType().dtype) if hasattr(PETSc.ScalarType(), "dtype") else str(PETSc.ScalarType),
        "hypre": bool(PETSc.Sys.hasExternalPackage("hypre")),
        "mpi_library": MPI.Get_library_version().strip().splitlines()[0],
        "mpi_thread_level": {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled", MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}.get(MPI.Query_thread()),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "plugin_version": getattr(ph, "__version__", None),
        "plugin_library": ph.library_path(),
        "plugin_has_exchange_stats": hasattr(ph, "get_exchange_stats"),
    }


def _affinity():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return None


def binding(job):
    """Where each rank runs: its main thread's CPU set (after the OpenMP runtime, loaded with the
    plugin, pinned it to its place under OMP_PROC_BIND) and the CPU each OpenMP thread runs on."""
    from . import stream

    threads = job.threads if job.layout.member else 1  # a paired job: the ranks outside the layout run one thread
    me = {"rank": job.rank, "host": socket.gethostname(), "pid": os.getpid(), "in_layout": job.layout.member,
          "main_thread_cpus": _affinity(), "thread_cpus": stream.thread_cpus(job.stream_lib, threads)}
    ranks = job.world.gather(me, root=0)
    env = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND", "OMP_WAIT_POLICY")}
    return {"ranks": ranks, "env": env, "nodes": len({r["host"] for r in ranks}) if ranks else None}


def check_against(v, yref):
    """Relative 2-norm difference of v's last y = A x from the generated aij matrix's (same x)."""
    d = v.y.copy()
    d.axpy(-1.0, yref)
    n = yref.norm()
    e = d.norm() / n if n else d.norm()
    d.destroy()
    return e


def thread_times(job, A, comm):
    """Per-rank dicts of the measured per-thread times of A's forward products
    (petsc_aijhybrid.get_thread_times), gathered to every rank of comm."""
    ph, rank = job.ph, comm.Get_rank()
    t = ph.get_thread_times(A)
    ms = lambda v: [1e3 * x for x in v]  # noqa: E731
    busy = [c + d + o for c, d, o in zip(t["comm"], t["diag"], t["offd"])]
    d = {
        "rank": rank,
        "products": t["products"],
        "mode": ph.get_mode(A),
        "busy_ms": ms(busy),
        "comm_ms": ms(t["comm"]),
        "diag_ms": ms(t["diag"]),
        "offd_ms": ms(t["offd"]),
        "measured_imbalance": (max(busy) / (sum(busy) / len(busy))) if busy and sum(busy) > 0 else 1.0,
    }
    if d["mode"] == "task" and len(busy) > 1 and t["comm"][0] > 0:
        others = max(t["diag"][1:])
        d["halo_ms"] = 1e3 * t["comm"][0]
        d["diag_ms_others"] = 1e3 * others
        d["halo_hidden_pct"] = 100.0 * min(t["comm"][0], others) / t["comm"][0]
        d["task_share"] = ph.get_task_share(A)[1]
    return comm.allgather(d)


def gather_partition(job, v):
    """The partition info of every rank of v's group (its rank 0 gets it; None elsewhere)."""
    allinfo = v.group.comm.gather(job.ph.get_partition_info(v.A), root=0)
    if v.group.rank != 0:
        return None
    return {
        "nthreads": allinfo[0]["nthreads"],
        "type": allinfo[0]["type"],
        "imbalance_max": max(i["imbalance"] for i in allinfo),
        "imbalance_offdiag_max": max(i["imbalance_offdiag"] for i in allinfo),
        "sweeps_max": max(i["sweeps"] for i in allinfo),
        "build_time_max_s": max(i["build_time"] for i in allinfo),
        "builds": allinfo[0]["builds"],
        "per_rank": allinfo,
    }


def diagnostics(job, v):
    """What the plugin measured and built for v: partition, per-thread times, exchange statistics
    (also for an aij variant with -sf_type nodeaware: the node-aware SF of its ghost pattern)."""
    ph, comm = job.ph, v.group.comm
    if is_hybrid(v.spec["type"]):
        v.rec["partition_info"] = gather_partition(job, v)
        if job.spec["thread_times"]:
            tt = thread_times(job, v.A, comm)
            v.rec["thread_times"] = tt
            v.rec["measured_imbalance_max"] = max(d["measured_imbalance"] for d in tt)
        if hasattr(ph, "get_exchange_stats"):
            v.rec["exchange_stats"] = comm.gather(ph.get_exchange_stats(v.A), root=0)
        return
    sf = dict(sf_options(option_pairs(v.spec.get("options", ""))))
    if hasattr(ph, "halo_sf") and v.group.size > 1 and sf.get("sf_type") == "nodeaware":
        k = sf.get("sf_nodeaware_node_size")
        v.rec["exchange_stats"] = comm.gather(ph.get_exchange_stats(v.A, node_size=int(k) if k else None), root=0)


def solve(job, v, b, cfg):
    """One solve of v's matrix with the spec's KSP and PC from a zero guess: iterations, times, residual."""
    PETSc, A = job.PETSc, v.A
    ksp = PETSc.KSP().create(comm=A.getComm())
    ksp.setOptionsPrefix(v.prefix + "bench_")
    ksp.setOperators(A)
    ksp.setType(cfg["ksp"])
    ksp.getPC().setType(cfg["pc"])
    ksp.setTolerances(rtol=cfg["rtol"], max_it=cfg["max_it"])
    xs = v.x.duplicate()
    xs.set(0.0)
    g = v.group
    t0 = g.wtime_barrier()
    ksp.setUp()
    t1 = g.wtime_barrier()
    ksp.solve(b, xs)
    t2 = g.wtime_barrier()
    r = b.duplicate()
    A.mult(xs, r)
    r.aypx(-1.0, b)
    bn = b.norm()
    out = {
        "ksp": cfg["ksp"],
        "pc": cfg["pc"],
        "rtol": cfg["rtol"],
        "iterations": ksp.getIterationNumber(),
        "reason": int(ksp.getConvergedReason()),
        "converged": ksp.getConvergedReason() > 0,
        "setup_s": t1 - t0,
        "solve_s": t2 - t1,
        "relative_residual": r.norm() / bn if bn else None,
    }
    for o in (ksp, xs, r):
        o.destroy()
    return out
