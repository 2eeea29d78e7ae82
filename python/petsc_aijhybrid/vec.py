"""The threaded vector types (``hybrid``: ``seqhybrid`` / ``mpihybrid``) from petsc4py.

After ``import petsc_aijhybrid``: ``PETSc.Vec().create(comm)`` + ``setSizes`` + ``setType('hybrid')``,
``-vec_type hybrid`` (where ``setFromOptions()`` is called), ``-dm_vec_type hybrid``, and
``A.createVecs()`` of an ``aijhybrid`` matrix give threaded vectors. ``set_standard(True)`` (or
``-vec_hybrid_standard``) threads every standard vector made afterwards, keeping its type name.
``set_num_threads``, ``get_num_threads``, ``set_first_touch``, ``get_first_touch`` and ``get_partition``
of this package take vectors as well as matrices.
"""

import ctypes

from . import _args
from ._loader import call as _call
from ._loader import int_type as _int_type

VEC_TYPES = ("hybrid", "seqhybrid", "mpihybrid")


def _vec(v):
    return _args.handle(v, "Vec", "the vector")


def c_scalar(value):
    """A PetscScalar passed by value to a C function through ctypes (complex: two reals, which the
    x86-64 and AArch64 calling conventions pass like C99's double _Complex)."""
    from petsc4py import PETSc

    dt = PETSc.ScalarType
    import numpy as np

    real = ctypes.c_double if np.dtype(dt).itemsize in (8, 16) else ctypes.c_float
    if np.dtype(dt).kind != "c":
        return real(float(value))

    class _Complex(ctypes.Structure):
        _fields_ = [("re", real), ("im", real)]

    z = complex(value)
    return _Complex(z.real, z.imag)


def is_vec(obj):
    from petsc4py import PETSc

    return isinstance(obj, PETSc.Vec)


def create_vec(size, comm=None, nthreads=None):
    """A ``hybrid`` vector of petsc4py ``size`` (n, (n, N) or (None, N)) on ``comm`` (default COMM_WORLD)."""
    from petsc4py import PETSc

    v = PETSc.Vec().create(comm=comm or PETSc.COMM_WORLD)
    v.setSizes(size)
    v.setType("hybrid")
    if nthreads is not None:
        vec_set_num_threads(v, nthreads)
    return v


def vec_set_num_threads(v, nthreads):
    """Threads per rank for the operations of v (None: the default, as the matrices)."""
    _call("VecHybridSetNumThreads", _vec(v), _int_type()(-2) if nthreads is None else _args.integer(nthreads, "nthreads"))


def vec_get_num_threads(v):
    n = _int_type()()
    _call("VecHybridGetNumThreads", _vec(v), ctypes.byref(n))
    return n.value


def set_partition(v, bounds=None, nthreads=None):
    """The entries each thread of v operates on: bounds (nthreads+1 local indices from 0 to the local
    length), or None for equal parts over nthreads threads."""
    IT = _int_type()
    if bounds is None:
        _call("VecHybridSetPartition", _vec(v), _args.integer(nthreads if nthreads is not None else vec_get_num_threads(v), "nthreads"), None)
        return
    arr = (IT * len(bounds))(*[_args.integer(b, "bounds[%d]" % k).value for k, b in enumerate(bounds)])
    _call("VecHybridSetPartition", _vec(v), IT(len(bounds) - 1), arr)


def vec_get_partition(v):
    """The bounds of the threads' entries of v (nthreads+1 local indices; equal parts when none were set)."""
    IT = _int_type()
    n, p = IT(), ctypes.POINTER(IT)()
    _call("VecHybridGetPartition", _vec(v), ctypes.byref(n), ctypes.byref(p))
    if p:
        return [p[i] for i in range(n.value + 1)]
    m = v.getLocalSize()
    return [(m * t) // n.value for t in range(n.value + 1)]


def set_threshold(v, threshold):
    """Local length from which the operations of v run on its threads (None: the default)."""
    _call("VecHybridSetThreshold", _vec(v), _int_type()(-2) if threshold is None else _args.integer(threshold, "threshold"))


def get_threshold(v):
    n = _int_type()()
    _call("VecHybridGetThreshold", _vec(v), ctypes.byref(n))
    return n.value


def vec_set_first_touch(v, flag):
    _call("VecHybridSetFirstTouch", _vec(v), _args.flag(flag, "flag"))


def vec_get_first_touch(v):
    f = ctypes.c_int()
    _call("VecHybridGetFirstTouch", _vec(v), ctypes.byref(f))
    return bool(f.value)


def set_standard(flag=True):
    """Give every standard vector made from now on (VecCreateMPI, VecDuplicate of those, DM vectors,
    ...) the threaded operations, keeping its type name (-vec_hybrid_standard)."""
    _call("VecHybridSetStandard", _args.flag(flag, "flag"))


def get_standard():
    f = ctypes.c_int()
    _call("VecHybridGetStandard", ctypes.byref(f))
    return bool(f.value)
