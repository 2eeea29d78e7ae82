"""From this rank's rows, in chunks of CSR rows, to an assembled PETSc matrix of any type.

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

    from petsc_aijhybrid import _loader

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


def assemble(comm, shape, chunks, mat_type):
    """Assemble this rank's rows into a new matrix of type ``mat_type``.

    ``shape`` is the global (rows, columns); this rank owns the rows ``ownership(rows, ...)`` and the
    columns ``ownership(columns, ...)`` form its diagonal block. ``chunks`` yields, for consecutive
    blocks of the owned rows in order, (nonzeros per row, global column indices sorted within each
    row, values). The chunks are stored compactly (PetscInt, PetscScalar) while the exact
    preallocation is counted, then inserted one by one and released, so that the memory peak
    stays near twice the matrix. Returns the assembled petsc4py Mat.
    """
    from petsc4py import PETSc

    import petsc_aijhybrid  # noqa: F401  the plugin's types (mat_type may be aijhybrid) before A.setType

    M, N = shape
    rs, re = ownership(M, comm.getSize(), comm.getRank())
    cs, ce = ownership(N, comm.getSize(), comm.getRank())
    parts, dnnz = [], []
    for counts, cols, vals in chunks:
        counts = _int_array(counts)
        cols = _int_array(cols)
        in_diag = (cols >= cs) & (cols < ce)
        dnnz.append(np.bincount(np.repeat(np.arange(len(counts)), counts)[in_diag], minlength=len(counts)))
        parts.append((counts, cols, np.ascontiguousarray(vals, dtype=PETSc.ScalarType)))
    counts = np.concatenate([p[0] for p in parts]) if parts else _int_array([])
    if len(counts) != re - rs:
        raise ValueError("the chunks hold %d rows, this rank owns %d" % (len(counts), re - rs))
    dnnz = _int_array(np.concatenate(dnnz)) if parts else counts
    onnz = _int_array(counts - dnnz)
    A = PETSc.Mat().create(comm=comm)
    A.setSizes(((re - rs, M), (ce - cs, N)))
    A.setType(mat_type)
    _preallocate(A, dnnz, onnz)
    row = rs
    for i, (counts, cols, vals) in enumerate(parts):
        parts[i] = None  # released once PETSc holds the rows
        ia = _int_array(np.concatenate([[0], np.cumsum(counts)]))
        A.setValuesIJV(ia, cols, vals, rowmap=_int_array(np.arange(row, row + len(counts))))
        row += len(counts)
    A.assemble()
    return A
