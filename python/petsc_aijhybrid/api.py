"""Python equivalents of the C API in include/petscaijhybrid.h, on petsc4py Mat objects."""

import ctypes

from . import _loader

PARTITION_TYPES = ("rows", "nnz", "diffusion", "optimal")
MODES = ("auto", "vector", "task")


class _PartitionInfo(ctypes.Structure):
    pass


def _int_type():
    from petsc4py import PETSc

    return ctypes.c_int64 if PETSc.IntType().itemsize == 8 else ctypes.c_int32


def _real_type():
    from petsc4py import PETSc

    return ctypes.c_double if PETSc.RealType().itemsize == 8 else ctypes.c_float


def _call(name, *args):
    from petsc4py import PETSc

    fn = getattr(_loader.lib(), name)
    ierr = fn(*args)
    if ierr:
        raise PETSc.Error(ierr)


def _mat(A):
    return ctypes.c_void_p(A.handle)


def set_num_threads(A, nthreads):
    """Threads per rank for the products of A (None: what OpenMP gives the process)."""
    _call("MatAIJHybridSetNumThreads", _mat(A), _int_type()(-2 if nthreads is None else int(nthreads)))


def get_num_threads(A):
    n = _int_type()()
    _call("MatAIJHybridGetNumThreads", _mat(A), ctypes.byref(n))
    return n.value


def set_partition_type(A, kind):
    """Thread partition: 'rows', 'nnz', 'diffusion' or 'optimal'."""
    if kind not in PARTITION_TYPES:
        raise ValueError("unknown partition type %r: valid are %s" % (kind, ", ".join(PARTITION_TYPES)))
    _call("MatAIJHybridSetPartitionType", _mat(A), ctypes.c_int(PARTITION_TYPES.index(kind)))


def get_partition_type(A):
    k = ctypes.c_int()
    _call("MatAIJHybridGetPartitionType", _mat(A), ctypes.byref(k))
    return PARTITION_TYPES[k.value]


def set_mode(A, mode):
    """Overlap of the halo exchange with computation: 'auto' (default), 'vector' or 'task'."""
    if mode not in MODES:
        raise ValueError("unknown mode %r: valid are %s" % (mode, ", ".join(MODES)))
    _call("MatAIJHybridSetMode", _mat(A), ctypes.c_int(MODES.index(mode)))


def get_mode(A):
    """The mode the next product runs in ('vector' or 'task'; 'auto' before assembly)."""
    k = ctypes.c_int()
    _call("MatAIJHybridGetMode", _mat(A), ctypes.byref(k))
    return MODES[k.value]


def set_row_cost(A, cost):
    _call("MatAIJHybridSetRowCost", _mat(A), _real_type()(cost))


def get_row_cost(A):
    c = _real_type()()
    _call("MatAIJHybridGetRowCost", _mat(A), ctypes.byref(c))
    return c.value


def set_diffusion(A, tol, max_it):
    _call("MatAIJHybridSetDiffusion", _mat(A), _real_type()(tol), _int_type()(max_it))


def get_diffusion(A):
    t, m = _real_type()(), _int_type()()
    _call("MatAIJHybridGetDiffusion", _mat(A), ctypes.byref(t), ctypes.byref(m))
    return t.value, m.value


def set_first_touch(A, flag):
    """Multiply copies of the blocks first touched by the threads that read them (NUMA placement)."""
    _call("MatAIJHybridSetFirstTouch", _mat(A), ctypes.c_int(1 if flag else 0))


def get_first_touch(A):
    f = ctypes.c_int()
    _call("MatAIJHybridGetFirstTouch", _mat(A), ctypes.byref(f))
    return bool(f.value)


def set_task_share(A, share):
    """Task mode: share of an equal diagonal part thread 0 takes after the halo exchange, in [0, 1];
    None (the default) sizes it from measured times."""
    _call("MatAIJHybridSetTaskShare", _mat(A), _real_type()(-1.0 if share is None else float(share)))


def get_task_share(A):
    """(set, in_use): the share set (None when measured) and the share in force now."""
    s, u = _real_type()(), _real_type()()
    _call("MatAIJHybridGetTaskShare", _mat(A), ctypes.byref(s), ctypes.byref(u))
    return (None if s.value < 0 else s.value), u.value


def get_thread_times(A):
    """Measured busy seconds per forward product of each thread since the statistics started:
    dict with nthreads, products, and lists comm (halo exchange, task mode's thread 0), diag and offd."""
    I, R = _int_type(), _real_type()
    n, p = I(), I()
    _call("MatAIJHybridGetThreadTimes", _mat(A), ctypes.byref(n), ctypes.byref(p), None)
    times = (R * (3 * n.value))()
    if n.value:
        _call("MatAIJHybridGetThreadTimes", _mat(A), ctypes.byref(n), ctypes.byref(p), times)
    return {
        "nthreads": n.value,
        "products": p.value,
        "comm": [times[3 * t] for t in range(n.value)],
        "diag": [times[3 * t + 1] for t in range(n.value)],
        "offd": [times[3 * t + 2] for t in range(n.value)],
    }


def reset_thread_times(A):
    """Start the per-thread time statistics again (e.g. after a warm-up)."""
    _call("MatAIJHybridResetThreadTimes", _mat(A))


def get_partition_info(A):
    """Dict with nthreads, type, imbalance, imbalance_offdiag, sweeps, build_time, builds."""
    I, R = _int_type(), _real_type()

    class Info(ctypes.Structure):
        _fields_ = [
            ("nthreads", I),
            ("type", ctypes.c_int),
            ("imbalance", R),
            ("imbalance_offdiag", R),
            ("sweeps", I),
            ("build_time", ctypes.c_double),
            ("builds", I),
        ]

    info = Info()
    _call("MatAIJHybridGetPartitionInfo", _mat(A), ctypes.byref(info))
    return {
        "nthreads": info.nthreads,
        "type": PARTITION_TYPES[info.type],
        "imbalance": info.imbalance,
        "imbalance_offdiag": info.imbalance_offdiag,
        "sweeps": info.sweeps,
        "build_time": info.build_time,
        "builds": info.builds,
    }


def get_partition(A):
    """List of nthreads+1 local row bounds of the diagonal-block thread partition."""
    I = _int_type()
    n = I()
    ptr = ctypes.POINTER(I)()
    _call("MatAIJHybridGetPartition", _mat(A), ctypes.byref(n), ctypes.byref(ptr))
    return [ptr[i] for i in range(n.value + 1)]
