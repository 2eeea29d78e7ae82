"""Matrices worker: every generator of aijhybrid_bench.matrices at a tiny size, checked on this rank
count, and the sha256 of each gathered global matrix printed so that pytest can compare rank counts.

Per case: the same global CSR through the aij, aijhybrid, sell and aijperm assembly paths (and the
same products with hypre when PETSc has it), exact preallocation, PETSC_DECIDE rows, describe()
true to the matrix; symmetric, positive diagonal, positive definite (sparse LU without pivoting), expected
nonzeros per row; equal to an independent construction (scipy Kronecker products for the stencils,
a brute-force tetrahedral assembly for the extruded mesh, the Laplacian of the drawn edges for the
power-law graph); CG + Jacobi on rhs(A) returns solution(A). Then PETSc binary and MatrixMarket
(general and symmetric) round trips through the 'file' generator, and argument errors.

usage: matrices.py [PETSc options]
"""

import hashlib
import os
import shutil
import sys
import tempfile

import numpy as np

import common as C

C.init(sys.argv[1:])
PETSc = C.PETSc

import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from scipy.sparse.linalg import splu  # noqa: E402

from aijhybrid_bench import matrices as M  # noqa: E402
from aijhybrid_bench.matrices import extruded, powerlaw, stencil  # noqa: E402

# (case, generator, rows, params)
CASES = [
    ("poisson7", "poisson7", 1000, {}),
    ("poisson27", "poisson27", 1000, {}),
    ("twozone", "twozone", 1000, {}),
    ("twozone_half", "twozone", 512, {"dense_fraction": 0.5}),
    ("extruded", "extruded", 1200, {"layers": 4}),
    ("extruded_layer", "extruded", 1200, {"layers": 4, "ordering": "layer"}),
    ("extruded_1layer_seed3", "extruded", 300, {"layers": 1, "seed": 3}),
    ("powerlaw", "powerlaw", 1500, {}),
    ("powerlaw_random", "powerlaw", 1500, {"order": "random"}),
]
TYPES = ("aij", "aijhybrid", "sell", "aijperm")


def gather_csr(A):
    """The global CSR of A (scipy csr_matrix) on every rank."""
    if A.getType() == "mpisell":  # PETSc has no MatGetRow for MPISELL (segfaults in 3.18): read a copy
        B = A.convert("aij")
        S = gather_csr(B)
        B.destroy()
        return S
    ia, ja, va = A.getValuesCSR()
    parts = C.comm.allgather((np.asarray(ia, dtype=np.int64), np.asarray(ja, dtype=np.int64), np.asarray(va, dtype=np.float64)))
    ptr = [np.zeros(1, dtype=np.int64)]
    for p in parts:
        ptr.append(ptr[-1][-1] + p[0][1:])
    S = sp.csr_matrix((np.concatenate([p[2] for p in parts]), np.concatenate([p[1] for p in parts]), np.concatenate(ptr)), shape=A.getSize())
    return S


def csr_hash(S):
    h = hashlib.sha256()
    for a, t in ((S.indptr, np.int64), (S.indices, np.int64), (S.data, np.float64)):
        h.update(np.ascontiguousarray(a, dtype=t).tobytes())
    return h.hexdigest()


def positive_definite(S):
    """Symmetric S is positive definite iff its LU factors without pivoting (after a symmetric
    fill-reducing permutation) have a positive diagonal (leading principal minors > 0)."""
    lu = splu(S.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options=dict(SymmetricMode=True))
    assert np.array_equal(lu.perm_r, lu.perm_c), "the factorization pivoted"
    return bool((lu.U.diagonal() > 0).all())


def same(S, R):
    """S and R have the same pattern and bitwise the same values."""
    return S.shape == R.shape and np.array_equal(S.indptr, R.indptr) and np.array_equal(S.indices, R.indices) and np.array_equal(S.data, R.data)


def close(S, R, rtol=1e-12):
    """Same pattern, values within rtol * max|R|."""
    R = R.tocsr()
    R.sort_indices()
    assert S.shape == R.shape, (S.shape, R.shape)
    assert np.array_equal(S.indptr, R.indptr) and np.array_equal(S.indices, R.indices), "patterns differ"
    err = np.abs(S.data - R.data).max() / np.abs(R.data).max()
    assert err <= rtol, err


# ------------------------------------------------------------------------------------------------
# independent constructions


def ref_stencil(gen):
    """Poisson 7/27 and two-zone from Kronecker products of 1D matrices (x fastest)."""
    n, kd = gen.n, gen.nk_dense
    I = sp.identity(n, format="csr")
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))  # 1D second difference
    B = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(n, n))  # 1D 3-point neighbourhood
    face = sp.kron(I, sp.kron(I, T)) + sp.kron(I, sp.kron(T, I)) + sp.kron(T, sp.kron(I, I))  # 6 / -1
    cube = sp.kron(B, sp.kron(B, B))  # 1 on the 27 points
    dense = (np.arange(n**3) // (n * n) < kd).astype(float)
    Pd = sp.diags(dense)
    offface = (face - sp.diags(face.diagonal())) * -1.0  # face adjacency (1)
    corner = cube - sp.identity(n**3) - offface  # edge/corner adjacency (1)
    A = -offface - Pd @ corner @ Pd + sp.diags(np.where(dense > 0, 26.0, 6.0))
    A = A.tocsr()
    A.eliminate_zeros()
    return A


def ref_extruded(gen):
    """Brute-force P1 assembly: every tetrahedron's 4x4 stiffness from the inverse of [1 x y z],
    summed by scipy, surface rows/columns removed, permuted to the generator's ordering."""
    m, L = gen.mesh, gen.layers
    n = m.n
    full = lambda c, lvl: c * (L + 1) + lvl  # noqa: E731
    X = np.repeat(m.x, L + 1)
    Y = np.repeat(m.y, L + 1)
    Z = np.concatenate([-m.depth[c] * gen.max_depth * (1.0 - np.arange(L + 1) / L) for c in range(n)])
    tets = []
    for k in range(L):
        a, b, c = m.tri.T
        tets += [
            np.stack([full(a, k), full(b, k), full(c, k), full(c, k + 1)], 1),
            np.stack([full(a, k), full(b, k), full(b, k + 1), full(c, k + 1)], 1),
            np.stack([full(a, k), full(a, k + 1), full(b, k + 1), full(c, k + 1)], 1),
        ]
    tets = np.concatenate(tets)
    Mx = np.stack([np.ones(tets.shape), X[tets], Y[tets], Z[tets]], axis=2)  # (T, 4, 4)
    G = np.linalg.inv(Mx)[:, 1:, :]  # gradients of the 4 basis functions (T, 3, 4)
    vol = np.abs(np.linalg.det(Mx)) / 6.0
    Ke = vol[:, None, None] * np.einsum("tdi,tdj->tij", G, G)
    rows = np.repeat(tets, 4, axis=1).ravel()
    cols = np.tile(tets, (1, 4)).ravel()
    K = sp.csr_matrix((Ke.ravel(), (rows, cols)), shape=(n * (L + 1), n * (L + 1)))
    c_of, lvl_of = np.divmod(np.arange(n * (L + 1)), L + 1)
    keep = np.flatnonzero(lvl_of < L)
    order = np.empty(n * L, dtype=np.int64)
    order[gen.gid(c_of[keep], lvl_of[keep])] = keep
    return K[order][:, order]


def ref_powerlaw(gen):
    """Degree on the diagonal + shift, -1 for every neighbour, from the drawn edges."""
    n = gen.nrows
    u, v = (np.concatenate(a) for a in zip(*gen.edges()))
    keep = u != v
    adj = sp.csr_matrix((np.ones(2 * keep.sum()), (np.concatenate([u[keep], v[keep]]), np.concatenate([v[keep], u[keep]]))), shape=(n, n))
    adj.data[:] = 1.0  # repeated edges merged
    return (sp.diags(np.asarray(adj.sum(axis=1)).ravel() + gen.shift) - adj).tocsr()


def expected_row_nnz(name, gen):
    """Exact nonzeros per row, counted from the geometry (not from the matrix)."""
    if name in ("poisson7", "poisson27", "twozone"):
        n, kd = gen.n, gen.nk_dense
        r = np.arange(n**3)
        i, j, k = r % n, (r // n) % n, r // (n * n)
        span = [(x > 0).astype(int) + (x < n - 1) + 1 for x in (i, j, k)]  # 1D neighbourhood incl. self
        face = 1 + sum(s - 1 for s in span)
        cube = span[0] * span[1] * span[2]
        if name == "poisson7":
            return face
        if name == "poisson27":
            return cube
        # dense rows: the 3x3x3 neighbourhood cut to the dense planes, plus the face neighbour above
        # the last dense plane
        dspan_k = (k > 0).astype(int) + (k < kd - 1) + 1
        above = ((k == kd - 1) & (kd < n)).astype(int)
        return np.where(k < kd, span[0] * span[1] * dspan_k + above, face)
    if name == "extruded":
        m, L = gen.mesh, gen.layers
        e = m.edges
        low = np.bincount(e[:, 1], minlength=m.n)  # neighbours with a smaller 2D id
        high = np.bincount(e[:, 0], minlength=m.n)
        out = np.empty(m.n * L, dtype=np.int64)
        for k in range(L):
            out[gen.gid(np.arange(m.n), k)] = 1 + low + high + (k > 0) * (low + 1) + (k < L - 1) * (high + 1)
        return out
    return None


# ------------------------------------------------------------------------------------------------


def generator_of(name, rows, params):
    p = dict(params)
    seed = p.pop("seed", 0)
    if name in ("poisson7", "poisson27", "twozone"):
        return stencil.Stencil(name, rows, **p)
    if name == "extruded":
        return extruded.Extruded(rows, seed=seed, **p)
    return powerlaw.PowerLaw(rows, seed=seed, **p)


def run_case(checks, hashes, case, name, rows, params):
    state = {}

    def assemble():
        mats = {t: M.create(name, rows, mat_type=t, **params) for t in TYPES}
        N = mats["aij"].getSize()[0]
        d = M.describe(name, rows, **params)
        assert d["rows"] == N and d["name"] == name and d["description"] == M.GENERATORS[name], d
        P = C.size()
        for t, A in mats.items():
            assert A.getType() == ("seq" if P == 1 else "mpi") + t, (t, A.getType())
            assert A.getName() == name
            assert A.getOwnershipRange() == PETSc.Vec().createMPI((PETSc.DECIDE, N)).getOwnershipRange()
        S = {t: gather_csr(A) for t, A in mats.items()}
        for t in TYPES[1:]:
            assert same(S[t], S["aij"]), "%s assembled a different matrix than aij" % t
        for t in ("aij", "aijhybrid"):
            info = mats[t].getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)
            assert info["mallocs"] == 0 and info["nz_unneeded"] == 0 and info["nz_used"] == S["aij"].nnz, (t, info)
        if "nnz" in d:
            assert d["nnz"] == S["aij"].nnz, (d["nnz"], S["aij"].nnz)
        else:
            assert S["aij"].nnz <= d["nnz_estimate"], (S["aij"].nnz, d)
        if PETSc.Sys.hasExternalPackage("hypre"):
            H = M.create(name, rows, mat_type="hypre", **params)
            x = M.solution(mats["aij"])
            y1, y2 = mats["aij"].createVecLeft(), mats["aij"].createVecLeft()
            mats["aij"].mult(x, y1)
            H.mult(x, y2)
            assert C.rel_err(y2, y1) <= 1e-13
            H.destroy()
        state.update(mats=mats, S=S["aij"], N=N, describe=d)
        hashes[case] = csr_hash(S["aij"])
        C.comm.Barrier()

    def properties():
        if C.rank() != 0:  # the same gathered matrix on every rank
            return
        S, gen = state["S"], generator_of(name, rows, params)
        assert abs(S - S.T).max() == 0.0, "not symmetric"
        assert S.diagonal().min() > 0.0, "diagonal not positive"
        assert positive_definite(S), "not positive definite"
        nnz_row = np.diff(S.indptr)
        if "max_row_nnz" in state["describe"]:
            assert state["describe"]["max_row_nnz"] == nnz_row.max(), (state["describe"], nnz_row.max())
        want = expected_row_nnz(name, gen)
        if want is not None:
            assert np.array_equal(nnz_row, want), "nonzeros per row differ from the geometry"
        if name == "twozone":
            half = len(nnz_row) // 2
            ratio = nnz_row[:half].sum() / nnz_row[half:].sum()
            assert ratio >= 1.5, "equal row halves imbalanced by only %.2fx" % ratio
            state["imbalance"] = ratio
        if name == "powerlaw":
            assert nnz_row.max() >= 10 * nnz_row.mean(), (nnz_row.max(), nnz_row.mean())
            if gen.order == "degree":
                half = len(nnz_row) // 2
                assert nnz_row[:half].sum() >= 1.5 * nnz_row[half:].sum()
        state["row_nnz"] = [int(nnz_row.min()), float(nnz_row.mean()), int(nnz_row.max())]

    def reference():
        gen = generator_of(name, rows, params)
        # the same matrix in the other ordering (collective), to compare after permuting
        other = None
        if name == "extruded" and gen.ordering == "layer":
            other = dict(params, ordering="column")
        elif name == "powerlaw" and gen.order == "random":
            other = dict(params, order="degree")
        if other is not None:
            B = M.create(name, rows, **other)
            So = gather_csr(B)
            B.destroy()
        if C.rank() != 0:
            return
        S = state["S"]
        if name == "extruded":
            close(S, ref_extruded(gen))
            if other is not None:  # row (c, k) of the layer ordering is row (c, k) of the column ordering
                col = extruded.Extruded(rows, seed=params.get("seed", 0), layers=gen.layers)
                c, k = np.divmod(np.arange(gen.nrows), gen.layers)
                perm = np.empty(gen.nrows, dtype=np.int64)
                perm[gen.gid(c, k)] = col.gid(c, k)
                P = So[perm][:, perm]
                P.sort_indices()
                assert same(S, P), "layer ordering is not the permuted column ordering"
        elif name == "powerlaw":
            R = ref_powerlaw(gen)
            R.sort_indices()
            assert same(S, R), "power-law matrix differs from the Laplacian of its edges"
            if other is not None:  # vertex i of the degree order is row labels[i]
                lab = gen.labels()
                inv = np.empty_like(lab)
                inv[lab] = np.arange(len(lab))
                P = So[inv][:, inv]
                P.sort_indices()
                assert same(S, P), "random order is not a relabelling of the degree order"
        else:
            close(S, ref_stencil(gen), rtol=0.0)

    def cg():
        for t in ("aij", "aijhybrid"):
            A = state["mats"][t]
            b, x = M.rhs(A), A.createVecRight()
            ksp = PETSc.KSP().create(comm=A.getComm())
            ksp.setOperators(A)
            ksp.setType("cg")
            ksp.getPC().setType("jacobi")
            ksp.setTolerances(rtol=1e-12, max_it=5000)
            ksp.solve(b, x)
            assert ksp.getConvergedReason() > 0, (t, ksp.getConvergedReason())
            err = C.rel_err(x, M.solution(A))
            assert err < 1e-7, (t, err)
            state.setdefault("cg_its", {})[t] = ksp.getIterationNumber()
            ksp.destroy()

    for label, fn in (("assemble", assemble), ("properties", properties), ("reference", reference), ("cg", cg)):
        checks.run("%s:%s" % (case, label), fn)
    checks.info[case] = {k: state[k] for k in ("N", "row_nnz", "imbalance", "cg_its") if k in state}
    for A in state.get("mats", {}).values():
        A.destroy()


def file_round_trip(checks, hashes):
    tmp = C.comm.bcast(tempfile.mkdtemp(prefix="aijhyb-matrices-") if C.rank() == 0 else None, root=0)
    A = M.create("extruded", 1200, layers=4)
    S = gather_csr(A)
    paths = {"binary": os.path.join(tmp, "a.petsc"), "mtx": os.path.join(tmp, "a.mtx"), "mtx_symmetric": os.path.join(tmp, "s.mtx")}

    def write():
        viewer = PETSc.Viewer().createBinary(paths["binary"], mode="w", comm=A.getComm())
        A.view(viewer)
        viewer.destroy()
        if C.rank() == 0:
            scipy.io.mmwrite(paths["mtx"], S, precision=17, symmetry="general")
            scipy.io.mmwrite(paths["mtx_symmetric"], S, precision=17, symmetry="symmetric")
        C.comm.Barrier()

    def read(kind):
        d = M.describe("file", None, path=paths[kind])
        assert d["rows"] == S.shape[0] and d["cols"] == S.shape[1], d
        if kind == "mtx_symmetric":
            assert d["nnz_estimate"] >= S.nnz, d
        else:
            assert d["nnz"] == S.nnz, d
        for t in ("aij", "aijhybrid", "sell"):
            B = M.create("file", None, mat_type=t, path=paths[kind])
            assert B.getType().endswith(t), B.getType()
            assert same(gather_csr(B), S), "%s read back as %s differs" % (kind, t)
            B.destroy()

    checks.run("file:write", write)
    for kind in paths:
        checks.run("file:%s" % kind, read, kind)
    hashes["file"] = csr_hash(S)
    A.destroy()
    C.comm.Barrier()
    if C.rank() == 0:
        shutil.rmtree(tmp)


def errors():
    def raises(exc, fn, *a, **k):
        try:
            fn(*a, **k)
        except exc:
            return
        raise AssertionError("%s(%s, %s) did not raise %s" % (fn.__name__, a, k, exc.__name__))

    raises(ValueError, M.create, "nosuch", 100)
    raises(ValueError, M.describe, "nosuch", 100)
    raises(TypeError, M.create, "poisson7", 100, dense_fraction=0.5)
    raises(ValueError, M.describe, "twozone", 100, dense_fraction=1.5)
    raises(ValueError, M.describe, "extruded", 1000, ordering="diagonal")
    raises(ValueError, M.describe, "powerlaw", 1000, gamma=2.0)
    raises(ValueError, M.create, "file", None)
    raises(ValueError, M.describe, "poisson7", 0)
    raises(FileNotFoundError, M.create, "file", None, path="/nonexistent/a.mtx")
    # the checks of this worker can fail
    assert not positive_definite(sp.csr_matrix(np.array([[1.0, 2.0], [2.0, 1.0]])))
    assert positive_definite(sp.csr_matrix(np.array([[2.0, -1.0], [-1.0, 2.0]])))
    assert not same(sp.csr_matrix(np.eye(2)), sp.csr_matrix(np.eye(2) * (1.0 + 1e-16 + 2**-52)))
    assert set(M.GENERATORS) == {"poisson7", "poisson27", "extruded", "powerlaw", "twozone", "file"}


def small_chunks(hashes):
    """Generating the rows in chunks of a few rows gives the same matrices."""
    saved = stencil._CHUNK, extruded._CHUNK
    stencil._CHUNK = extruded._CHUNK = 97
    try:
        for case, name, rows, params in CASES:
            A = M.create(name, rows, **params)
            h = csr_hash(gather_csr(A))
            A.destroy()
            assert h == hashes[case], "%s: different matrix when generated in small chunks" % case
    finally:
        stencil._CHUNK, extruded._CHUNK = saved


checks = C.Checks()
hashes = {}
for case in CASES:
    run_case(checks, hashes, *case)
checks.run("small_chunks", small_chunks, hashes)
file_round_trip(checks, hashes)
checks.run("errors", errors)
C.report(checks.result(hashes=hashes, size=C.size(), cases=[c[0] for c in CASES]))
