"""Matrices from files: PETSc binary (``MatView`` with a binary viewer) or MatrixMarket (``.mtx``).

A PETSc binary file is read in parallel by ``MatLoad`` into MATAIJ; a MatrixMarket file is read
on rank 0 by ``scipy.io.mmread`` (symmetric storage expanded) and its rows are sent to their
owners. In both cases the rows are then assembled again by ``assemble`` into the requested type,
so that every type goes through its own preallocation and assembly, with the rows distributed as
``PETSC_DECIDE`` distributes them.
"""

import os

import numpy as np

from ._assemble import assemble, ownership

MATRIXMARKET_SUFFIXES = (".mtx", ".mm", ".mtx.gz", ".mm.gz", ".mtx.bz2", ".mm.bz2")
_MAT_FILE_CLASSID = 1211216  # MAT_FILE_CLASSID in PETSc's binary format


def is_matrixmarket(path):
    return str(path).lower().endswith(MATRIXMARKET_SUFFIXES)


def describe(path):
    """Size and nonzeros of the matrix in ``path`` from the file header (without reading it all)."""
    path = str(path)
    if is_matrixmarket(path):
        from scipy.io import mminfo

        rows, cols, entries, _, _, symmetry = mminfo(path)
        d = {"rows": rows, "cols": cols, "format": "MatrixMarket", "symmetry": symmetry}
        if symmetry == "general":
            d["nnz"] = entries
        else:
            d["nnz_estimate"] = 2 * entries  # stored triangle, diagonal counted twice
        return d
    with open(path, "rb") as f:
        head = f.read(32)
    for dtype in (">i4", ">i8"):  # 32- or 64-bit PetscInt
        h = np.frombuffer(head[: 4 * np.dtype(dtype).itemsize], dtype=dtype)
        if len(h) == 4 and h[0] == _MAT_FILE_CLASSID:
            return {"rows": int(h[1]), "cols": int(h[2]), "nnz": int(h[3]), "format": "PETSc binary"}
    raise ValueError("%s: neither a PETSc binary matrix nor a MatrixMarket file (.mtx)" % path)


def _read_binary(comm, path):
    """(shape, ia, ja, va) of this rank's rows, read by MatLoad."""
    from petsc4py import PETSc

    viewer = PETSc.Viewer().createBinary(path, mode="r", comm=comm)
    B = PETSc.Mat().create(comm=comm)
    B.setType("aij")
    B.load(viewer)
    viewer.destroy()
    shape = B.getSize()
    if B.getOwnershipRange() != ownership(shape[0], comm.getSize(), comm.getRank()):
        raise RuntimeError("MatLoad distributed the rows differently from PETSC_DECIDE")
    ia, ja, va = (np.array(a, copy=True) for a in B.getValuesCSR())
    B.destroy()
    return shape, ia, ja, va


def _read_matrixmarket(comm, path):
    """(shape, ia, ja, va) of this rank's rows: rank 0 reads, every rank receives its rows."""
    mpi = comm.tompi4py()
    parts = shape = None
    if mpi.Get_rank() == 0:
        from scipy.io import mmread

        A = mmread(path).tocsr()
        A.sort_indices()
        A.sum_duplicates()
        shape = A.shape
        parts = []
        for r in range(mpi.Get_size()):
            rs, re = ownership(shape[0], mpi.Get_size(), r)
            sub = A[rs:re]
            parts.append((sub.indptr, sub.indices, sub.data))
    shape = mpi.bcast(shape, root=0)
    ia, ja, va = mpi.scatter(parts, root=0)
    return shape, ia, ja, va


def load(comm, path, mat_type):
    """The matrix in ``path`` as an assembled matrix of type ``mat_type`` on ``comm``."""
    path = str(path)
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    read = _read_matrixmarket if is_matrixmarket(path) else _read_binary
    shape, ia, ja, va = read(comm, path)
    return assemble(comm, shape, [(np.diff(ia), ja, va)], mat_type)
