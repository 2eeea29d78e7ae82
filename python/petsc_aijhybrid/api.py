"""Python equivalents of the C API in include/petscaijhybrid.h, on petsc4py Mat objects."""

import ctypes

from . import _args
from . import _loader
from . import vec as _vec
from ._loader import call as _call
from ._loader import int_type as _int_type
from ._loader import real_type as _real_type

PARTITION_TYPES = ("rows", "nnz", "diffusion", "optimal")
MODES = ("auto", "vector", "task")


class _PartitionInfo(ctypes.Structure):
    pass


def _bool_type():
    """PetscBool in structures: an int-sized enum up to PETSc 3.2x, C's one-byte bool after
    (the library says which it was built with)"""
    return ctypes.c_bool if _loader.lib().PetscAIJHybridBoolSize() == 1 else ctypes.c_int


def _mat(A):
    return _args.handle(A, "Mat", "the matrix")


def set_num_threads(A, nthreads):
    """Threads per rank for the products of the matrix A, or the operations of the hybrid vector A
    (None: the default, what OpenMP gives the process)."""
    if _vec.is_vec(A):
        return _vec.vec_set_num_threads(A, nthreads)
    _call("MatAIJHybridSetNumThreads", _mat(A), _int_type()(-2) if nthreads is None else _args.integer(nthreads, "nthreads"))


def get_num_threads(A):
    if _vec.is_vec(A):
        return _vec.vec_get_num_threads(A)
    n = _int_type()()
    _call("MatAIJHybridGetNumThreads", _mat(A), ctypes.byref(n))
    return n.value


def _set_enum(name, A, value, names, what):
    """A C Set function of an enum, given the value's name."""
    if not isinstance(value, str) or value not in names:
        raise ValueError("unknown %s %r: valid are %s" % (what, value, ", ".join(names)))
    _call(name, _mat(A), ctypes.c_int(names.index(value)))


def _get_enum(name, A, names):
    """A C Get function of an enum: the value's name."""
    k = ctypes.c_int()
    _call(name, _mat(A), ctypes.byref(k))
    return names[k.value]


def set_partition_type(A, kind):
    """Thread partition: 'rows', 'nnz', 'diffusion' or 'optimal'."""
    _set_enum("MatAIJHybridSetPartitionType", A, kind, PARTITION_TYPES, "partition type")


def get_partition_type(A):
    return _get_enum("MatAIJHybridGetPartitionType", A, PARTITION_TYPES)


def set_mode(A, mode):
    """Overlap of the halo exchange with computation: 'auto' (default), 'vector' or 'task'."""
    _set_enum("MatAIJHybridSetMode", A, mode, MODES, "mode")


def get_mode(A):
    """The mode the next product runs in ('vector' or 'task'; 'auto' while not decided: before
    assembly, or on several ranks before the first use after the nonzero pattern changed)."""
    return _get_enum("MatAIJHybridGetMode", A, MODES)


def set_row_cost(A, cost):
    _call("MatAIJHybridSetRowCost", _mat(A), _args.real(cost, "cost"))


def get_row_cost(A):
    c = _real_type()()
    _call("MatAIJHybridGetRowCost", _mat(A), ctypes.byref(c))
    return c.value


def set_diffusion(A, tol, max_it):
    _call("MatAIJHybridSetDiffusion", _mat(A), _args.real(tol, "tol"), _args.integer(max_it, "max_it"))


def get_diffusion(A):
    t, m = _real_type()(), _int_type()()
    _call("MatAIJHybridGetDiffusion", _mat(A), ctypes.byref(t), ctypes.byref(m))
    return t.value, m.value


def set_first_touch(A, flag):
    """Multiply copies of the blocks first touched by the threads that read them (NUMA placement);
    for a hybrid vector: each thread first writes its own entries."""
    if _vec.is_vec(A):
        return _vec.vec_set_first_touch(A, flag)
    _call("MatAIJHybridSetFirstTouch", _mat(A), _args.flag(flag, "flag"))


def get_first_touch(A):
    if _vec.is_vec(A):
        return _vec.vec_get_first_touch(A)
    f = ctypes.c_int()
    _call("MatAIJHybridGetFirstTouch", _mat(A), ctypes.byref(f))
    return bool(f.value)


def set_prefetch(A, distance):
    """Software prefetch distance of the forward products in nonzeros (0: none), or None to choose
    it per rank from measured products (the default)."""
    _call("MatAIJHybridSetPrefetch", _mat(A), _int_type()(-1) if distance is None else _args.integer(distance, "distance"))


def get_prefetch(A):
    """(what was set, or None for measured; the distance in force on this rank, or None while it is
    being measured)."""
    d, u = _int_type()(), _int_type()()
    _call("MatAIJHybridGetPrefetch", _mat(A), ctypes.byref(d), ctypes.byref(u))
    return (None if d.value < 0 else d.value), (None if u.value < 0 else u.value)


def set_task_share(A, share):
    """Task mode: share of an equal diagonal part thread 0 takes after the halo exchange, in [0, 1];
    None (the default) sizes it from measured times."""
    _call("MatAIJHybridSetTaskShare", _mat(A), _real_type()(-1.0) if share is None else _args.real(share, "share"))


def get_task_share(A):
    """(set, in_use): the share set (None when measured) and the share in force now (None while it is
    being measured)."""
    s, u = _real_type()(), _real_type()()
    _call("MatAIJHybridGetTaskShare", _mat(A), ctypes.byref(s), ctypes.byref(u))
    return (None if s.value < 0 else s.value), (None if u.value < 0 else u.value)


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
    """List of nthreads+1 local row bounds of the diagonal-block thread partition (of a hybrid vector:
    the bounds of the entries of its threads)."""
    if _vec.is_vec(A):
        return _vec.vec_get_partition(A)
    I = _int_type()
    n = I()
    ptr = ctypes.POINTER(I)()
    _call("MatAIJHybridGetPartition", _mat(A), ctypes.byref(n), ctypes.byref(ptr))
    return [ptr[i] for i in range(n.value + 1)]


# ---- the node-aware PetscSF type and the matrix's halo exchange ----------------------------------

SF_TYPE = "nodeaware"  # PETSCSFNODEAWARE: PETSc.SF().setType(SF_TYPE), or -sf_type nodeaware


def set_node_aware(A, flag=True):
    """The halo exchange of A is a PetscSF of type nodeaware (one inter-node message per ordered
    node pair); False: the type -sf_type gives (default basic)."""
    _call("MatAIJHybridSetNodeAware", _mat(A), _args.flag(flag, "flag"))


def get_node_aware(A):
    f = ctypes.c_int()
    _call("MatAIJHybridGetNodeAware", _mat(A), ctypes.byref(f))
    return bool(f.value)


def set_node_size(A, k):
    """Emulated nodes of k consecutive ranks for A's node-aware halo exchange; None or 0: left to
    the PetscSF (-sf_nodeaware_node_size, default the nodes MPI_COMM_TYPE_SHARED finds)."""
    _call("MatAIJHybridSetNodeSize", _mat(A), _int_type()(0) if k is None else _args.integer(k, "k"))


def get_node_size(A):
    """Ranks per emulated node, or 0 when left to the PetscSF."""
    k = _int_type()()
    _call("MatAIJHybridGetNodeSize", _mat(A), ctypes.byref(k))
    return k.value


def sf_set_node_size(sf, k):
    """Emulated nodes of k consecutive ranks for a petsc4py SF of type nodeaware (None or 0: the
    nodes MPI_COMM_TYPE_SHARED finds); other types ignore it."""
    _call("PetscSFNodeAwareSetNodeSize", _args.handle(sf, "SF", "the SF"), _int_type()(0) if k is None else _args.integer(k, "k"))


def sf_get_node_size(sf):
    k = _int_type()()
    _call("PetscSFNodeAwareGetNodeSize", _args.handle(sf, "SF", "the SF"), ctypes.byref(k))
    return k.value


_COUNTS = ("basic", "nodeaware", "nodeaware_reverse")


def _stats_struct():
    I = _int_type()

    class Counts(ctypes.Structure):
        _fields_ = [("inter_msgs", I), ("on_msgs", I), ("inter_entries", ctypes.c_int64), ("on_entries", ctypes.c_int64),
                    ("inter_bytes", ctypes.c_int64), ("on_bytes", ctypes.c_int64)]

    class Stats(ctypes.Structure):
        _fields_ = ([("nnodes", I), ("node", I), ("node_ranks", I), ("node_aware", _bool_type())]
                    + [(n, Counts) for n in _COUNTS] + [(n + "_total", Counts) for n in _COUNTS]
                    + [("ops_nodeaware", ctypes.c_int64), ("ops_basic", ctypes.c_int64)])

    return Stats()


def _stats_dict(st):
    def counts(c):
        return {f: getattr(c, f) for f in ("inter_msgs", "inter_bytes", "inter_entries", "on_msgs", "on_bytes", "on_entries")}

    return {
        "nodes": st.nnodes,
        "node": st.node,
        "node_ranks": st.node_ranks,
        "node_aware": bool(st.node_aware),
        "rank": {n: counts(getattr(st, n)) for n in _COUNTS},
        "total": {n: counts(getattr(st, n + "_total")) for n in _COUNTS},
        "ops_nodeaware": st.ops_nodeaware,
        "ops_basic": st.ops_basic,
    }


def sf_get_stats(sf):
    """Nodes and messages of a petsc4py SF of type nodeaware (collective): the dictionary of
    get_exchange_stats(). Bytes are for one PetscScalar per unit."""
    st = _stats_struct()
    _call("PetscSFNodeAwareGetStats", _args.handle(sf, "SF", "the SF"), ctypes.byref(st))
    return _stats_dict(st)


def halo_sf(A):
    """A node-aware petsc4py SF of the ghost pattern of an MPIAIJ-family matrix A (roots: A's owned
    columns; leaves: the ghost columns of its local rows, ascending): the graph of A's halo exchange."""
    import numpy as np
    from petsc4py import PETSc

    ia, ja, _ = A.getValuesCSR()
    c0, c1 = A.getOwnershipRangeColumn()
    ghosts = np.unique(ja[(ja < c0) | (ja >= c1)])
    ranges = np.asarray(A.getOwnershipRangesColumn())
    owner = np.searchsorted(ranges, ghosts, side="right") - 1
    remote = np.empty(2 * len(ghosts), dtype=PETSc.IntType)
    remote[0::2] = owner
    remote[1::2] = ghosts - ranges[owner]
    sf = PETSc.SF().create(comm=A.getComm())
    sf.setType(SF_TYPE)
    sf.setGraph(c1 - c0, None, remote)
    return sf


def get_exchange_stats(A, node_size=None):
    """Messages and bytes of one halo exchange of A, basic and node-aware (collective).

    Returns {"nodes", "node", "node_ranks", "node_aware", "rank": {...}, "total": {...},
    "ops_nodeaware", "ops_basic"} where "rank" (this rank's sends) and "total" (all ranks) map
    "basic", "nodeaware" (broadcast) and "nodeaware_reverse" (reduction) to {"inter_msgs",
    "inter_bytes", "inter_entries", "on_msgs", "on_bytes", "on_entries"}. aijhybrid: its halo
    PetscSF ("node_aware" says whether it is node-aware; node size: the matrix's); any other
    MPIAIJ-family matrix (e.g. aij with -sf_type nodeaware): a node-aware SF of the same ghost
    pattern with node_size (None: the nodes MPI_COMM_TYPE_SHARED finds), "node_aware" False."""
    _mat(A)
    if A.getType() in ("aijhybrid", "seqaijhybrid", "mpiaijhybrid"):
        st = _stats_struct()
        _call("MatAIJHybridGetExchangeStats", _mat(A), ctypes.byref(st))
        return _stats_dict(st)
    sf = halo_sf(A)
    try:
        sf_set_node_size(sf, node_size)
        d = sf_get_stats(sf)
    finally:
        sf.destroy()
    d["node_aware"] = False
    return d


# ---- preconditioners: threaded triangular solves, CM-RCM, SOR (src/factor/, src/mat/matsor.c) ------


def get_factor_info(F):
    """Dict with threaded, nthreads, levels_lower, levels_upper, inode, builds, build_time, in_use,
    decided, time_threaded, time_serial, solve_choice, blocks, numeric_threaded, numeric_inode,
    numeric_levels, numeric_count, numeric_threaded_count, numeric_plans, numeric_plan_time,
    numeric_choice of a factor matrix (PC.getFactorMatrix() of PCILU/PCICC): how its numeric
    factorization and triangular solves run (MatAIJHybridFactorInfo); each choice a dict of
    MatAIJHybridChoiceInfo with its state's name and its samples (MatAIJHybridGetFactorChoiceSamples:
    (threaded, serial) seconds of each pair)."""
    I = _int_type()
    B = _bool_type()
    names = ("trials", "pairs", "wins_threaded", "wins_serial", "needed", "uses", "decided_at")

    class Choice(ctypes.Structure):
        _fields_ = [("state", ctypes.c_int)] + [(k, I) for k in names] + [("median_threaded", ctypes.c_double), ("median_serial", ctypes.c_double)]

    class Info(ctypes.Structure):
        _fields_ = [
            ("threaded", B),
            ("nthreads", I),
            ("levels_lower", I),
            ("levels_upper", I),
            ("inode", B),
            ("builds", I),
            ("build_time", ctypes.c_double),
            ("in_use", B),
            ("decided", B),
            ("time_threaded", ctypes.c_double),
            ("time_serial", ctypes.c_double),
            ("solve_choice", Choice),
            ("blocks", I),
            ("numeric_threaded", B),
            ("numeric_inode", B),
            ("numeric_levels", I),
            ("numeric_count", I),
            ("numeric_threaded_count", I),
            ("numeric_plans", I),
            ("numeric_plan_time", ctypes.c_double),
            ("numeric_choice", Choice),
        ]

    def choice(c, numeric):
        d = {k: getattr(c, k) for k in names + ("median_threaded", "median_serial")}
        d["state"] = ("measuring", "threaded", "serial", "cannot tell", "fixed", "none")[c.state]
        n = I()
        a = ctypes.POINTER(ctypes.c_double)()
        b = ctypes.POINTER(ctypes.c_double)()
        _call("MatAIJHybridGetFactorChoiceSamples", _mat(F), B(1 if numeric else 0), ctypes.byref(n), ctypes.byref(a), ctypes.byref(b))
        d["samples"] = [(a[k], b[k]) for k in range(n.value)]  # (threaded, serial) seconds of each pair
        return d

    info = Info()
    _call("MatAIJHybridGetFactorInfo", _mat(F), ctypes.byref(info))
    return {
        "threaded": bool(info.threaded),
        "nthreads": info.nthreads,
        "levels_lower": info.levels_lower,
        "levels_upper": info.levels_upper,
        "inode": bool(info.inode),
        "builds": info.builds,
        "build_time": info.build_time,
        "in_use": bool(info.in_use),
        "decided": bool(info.decided),
        "time_threaded": info.time_threaded,
        "time_serial": info.time_serial,
        "solve_choice": choice(info.solve_choice, False),
        "blocks": info.blocks,
        "numeric_threaded": bool(info.numeric_threaded),
        "numeric_inode": bool(info.numeric_inode),
        "numeric_levels": info.numeric_levels,
        "numeric_count": info.numeric_count,
        "numeric_threaded_count": info.numeric_threaded_count,
        "numeric_plans": info.numeric_plans,
        "numeric_plan_time": info.numeric_plan_time,
        "numeric_choice": choice(info.numeric_choice, True),
    }


def set_cmrcm_colors(ncolors):
    """Colors of the "cmrcm" ordering where -mat_ordering_cmrcm_colors is not given (None: default)."""
    _call("MatAIJHybridSetCMRCMColors", _int_type()(-2) if ncolors is None else _args.integer(ncolors, "ncolors"))


def get_cmrcm_colors():
    n = _int_type()()
    _call("MatAIJHybridGetCMRCMColors", ctypes.byref(n))
    return n.value


def set_sor_serial(A, flag=True):
    """MatSOR of A runs AIJ's serial sweeps (True) or thread-local ones (False, the default)."""
    _call("MatAIJHybridSetSORSerial", _mat(A), _args.flag(flag, "flag"))


def get_sor_serial(A):
    f = ctypes.c_int()
    _call("MatAIJHybridGetSORSerial", _mat(A), ctypes.byref(f))
    return bool(f.value)


FACTOR_BLOCKS = ("none", "thread")


def set_factor_blocks(A, blocks):
    """What ILU/ICC of A factor: 'none' (default: the whole matrix) or 'thread' (the diagonal block
    of each thread's rows, as PCBJACOBI over as many ranks); MatAIJHybridSetFactorBlocks()."""
    _set_enum("MatAIJHybridSetFactorBlocks", A, blocks, FACTOR_BLOCKS, "factor blocks")


def get_factor_blocks(A):
    return _get_enum("MatAIJHybridGetFactorBlocks", A, FACTOR_BLOCKS)
