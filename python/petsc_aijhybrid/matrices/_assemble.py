"""From this rank's rows in CSR form to an assembled PETSc matrix of any type.

The matrix is created with its final type before preallocation, so that every type (``aij``,
``aijhybrid``, ``sell``, ``aijperm``, ``hypre``, ...) goes through its own preallocation and
``MatSetValues``/``MatAssembly`` path. The preallocation is exact (diagonal and off-diagonal
counts per row). Rows are distributed as ``PETSC_DECIDE`` would distribute them.
"""

import ctypes

import numpy as np


def petsc_comm(comm):
    """A petsc4py communicator from None (PETSC_COMM_WORLD), a petsc4py or an mpi4py communicator."""
    from petsc4py import PETSc

    if comm is None:
        return PETSc.COMM_WORLD
    if isinstance(comm, PETSc.Comm):
        return comm
    return PETSc.Comm(comm)


def ownership(n, size, rank):
    """(start, end) of the rows of n that rank ``rank`` of ``size`` owns under PETSC_DECIDE
    (PetscSplitOwnership)."""
    start = rank * (n // size) + min(rank, n % size)
    return start, start + n // size + (1 if rank < n % size else 0)


def _int_array(a):
    from petsc4py import PETSc

    return np.ascontiguousarray(a, dtype=PETSc.IntType)


def _preallocate(A, dnnz, onnz):
    """Exact preallocation through the C API, for every type that has a preallocation routine.

    petsc4py's ``setPreallocationNNZ`` only reaches AIJ/BAIJ/SBAIJ/IS; ``MatXAIJSetPreallocation``
    adds HYPRE, and the SELL routines are called explicitly. Each of these calls is a no-op for a
    type that does not implement it (PetscTryMethod).
    """
    from petsc4py import PETSc

    from .. import _loader

    lib = _loader.lib()  # libpetscaijhybrid.so: its dependency libpetsc resolves the symbols
    pint = ctypes.c_int64 if PETSc.IntType().itemsize == 8 else ctypes.c_int32
    mat = ctypes.c_void_p(A.handle)
    d = dnnz.ctypes.data_as(ctypes.POINTER(pint)) if len(dnnz) else None
    o = onnz.ctypes.data_as(ctypes.POINTER(pint)) if len(onnz) else None
    for name, args in (
        ("MatXAIJSetPreallocation", (mat, pint(1), d, o, None, None)),
        ("MatSeqSELLSetPreallocation", (mat, pint(0), d)),
        ("MatMPISELLSetPreallocation", (mat, pint(0), d, pint(0), o)),
    ):
        ierr = getattr(lib, name)(*args)
        if ierr:
            raise PETSc.Error(ierr)


def csr_to_mat(comm, shape, ia, ja, va, mat_type):
    """Assemble this rank's rows into a new matrix of type ``mat_type``.

    ``shape`` is the global (rows, columns); this rank owns the rows ``ownership(rows, ...)`` and the
    columns ``ownership(columns, ...)`` form its diagonal block. ``ia``/``ja``/``va`` is the CSR of
    the owned rows with global, sorted column indices. Returns the assembled petsc4py Mat.
    """
    from petsc4py import PETSc

    M, N = shape
    rs, re = ownership(M, comm.getSize(), comm.getRank())
    cs, ce = ownership(N, comm.getSize(), comm.getRank())
    ia, ja = _int_array(ia), _int_array(ja)
    va = np.ascontiguousarray(va, dtype=PETSc.ScalarType)
    if len(ia) != re - rs + 1:
        raise ValueError("CSR has %d rows, this rank owns %d" % (len(ia) - 1, re - rs))
    row_of = np.repeat(np.arange(re - rs), np.diff(ia))
    in_diag = (ja >= cs) & (ja < ce)
    dnnz = _int_array(np.bincount(row_of[in_diag], minlength=re - rs))
    onnz = _int_array(np.diff(ia) - dnnz)
    A = PETSc.Mat().create(comm=comm)
    A.setSizes(((re - rs, M), (ce - cs, N)))
    A.setType(mat_type)
    _preallocate(A, dnnz, onnz)
    A.setValuesCSR(ia, ja, va)
    A.assemble()
    return A
