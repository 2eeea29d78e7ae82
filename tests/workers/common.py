"""Helpers shared by the test workers: PETSc start-up, seeded random matrices built identically as
MATAIJ and as aijhybrid, vector utilities, and the result/failure protocol read by tests/mpirun.py.

Every rank generates the same global entries from the seed and inserts the rows it owns, so a case
is the same matrix at any rank count.
"""

import hashlib
import json
import os
import sys
import time
import traceback

import numpy as np

PETSc = None
ph = None
comm = None  # mpi4py communicator (COMM_WORLD)

PARTITIONS = ("rows", "nnz", "diffusion", "optimal")
COMPLEX = False  # PetscScalar is complex: matrices and vectors get imaginary parts (set by init)
IMAG_SEED = 1000003  # offset of the seeds of the imaginary parts (real parts unchanged)


def init(options=(), load_plugin=True):
    """Initialize petsc4py with `options`, import petsc_aijhybrid (unless told not to)."""
    global PETSc, ph, comm, COMPLEX
    import petsc4py

    petsc4py.init([sys.argv[0]] + list(options))
    from petsc4py import PETSc as _P

    PETSc = _P
    COMPLEX = np.dtype(PETSc.ScalarType).kind == "c"
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if load_plugin:
        import petsc_aijhybrid

        ph = petsc_aijhybrid
    return PETSc


def rank():
    return comm.Get_rank()


def size():
    return comm.Get_size()


def write_result(text):
    """Rank 0's JSON result: into the file the launcher (tests/mpirun.py) names, else onto stdout as
    one write (one line even with PYTHONUNBUFFERED, which makes print() two writes)."""
    path = os.environ.get("AIJHYBRID_RESULT_FILE")
    if path:
        with open(path + ".part", "w") as f:
            f.write(text)
        os.replace(path + ".part", path)  # complete or absent, never half-written
    else:
        sys.stdout.write("@@RESULT " + text + "\n")
        sys.stdout.flush()


def report(result):
    """Rank 0 reports the JSON result, after every rank's output so far."""
    sys.stdout.flush()
    comm.Barrier()
    if rank() == 0:
        write_result(json.dumps(result, sort_keys=True))


class Checks:
    """Named checks run collectively; each records 'ok' or the failure on any rank."""

    def __init__(self, abort_on_failure=True):
        self.abort_on_failure = abort_on_failure
        self.status = {}
        self.info = {}
        self.times = {}

    def run(self, name, fn, *args):
        msg = "ok"
        t0 = time.time()
        try:
            fn(*args)
        except Exception as e:  # PETSc.Error, AssertionError, ...
            msg = "FAIL on rank %d: %s: %s\n%s" % (rank(), type(e).__name__, e, traceback.format_exc(limit=6))
            # other ranks may be waiting in a collective call that this rank will never make:
            # report and abort the whole job rather than hang until the timeout
            sys.stderr.write("[check %s] %s\n" % (name, msg))
            sys.stderr.flush()
            if self.abort_on_failure:
                comm.Abort(3)
        self.times[name] = round(time.time() - t0, 3)
        msgs = comm.allgather(msg)
        bad = [m for m in msgs if m != "ok"]
        self.status[name] = bad[0] if bad else "ok"
        if bad:
            print("[check %s] %s" % (name, bad[0]), file=sys.stderr, flush=True)

    def result(self, **extra):
        r = {"checks": self.status, "info": self.info, "times": self.times}
        r.update(extra)
        return r


def allok(flag):
    """True on every rank iff flag on every rank."""
    return bool(comm.allreduce(bool(flag), op=__import__("mpi4py").MPI.LAND))


# ----------------------------------------------------------------------------------------------
# sizes and random matrices


def split(total, nparts, pattern, rng):
    """Local sizes summing to total. pattern: 'decide' (balanced), 'zero_first', 'zero_middle',
    'zero_last' (that rank owns nothing, when there are >= 2 ranks), 'random'."""
    if nparts == 1:
        return [total]
    if pattern == "random":
        cuts = np.sort(rng.integers(0, total + 1, nparts - 1))
        b = np.concatenate([[0], cuts, [total]])
        return [int(v) for v in np.diff(b)]
    zero = {"zero_first": 0, "zero_middle": nparts // 2, "zero_last": nparts - 1}.get(pattern)
    owners = [p for p in range(nparts) if p != zero]
    sizes = [0] * nparts
    for k, p in enumerate(owners):
        sizes[p] = total // len(owners) + (1 if k < total % len(owners) else 0)
    return sizes


class Case:
    """A seeded random sparse matrix. Fields: name, M, N (global, in rows/cols), bs, row/col size
    patterns, density (mean entries per row), empty row fraction, blockdiag (entries only in the
    rank's own diagonal block), heavy (a few very long rows), build ('csr', 'values', 'convert')."""

    def __init__(self, name, M, N, seed, bs=1, rpat="decide", cpat=None, density=5.0, empty=0.0, blockdiag=False, heavy=0, diag=False, build="csr"):
        self.name, self.M, self.N, self.seed, self.bs = name, M, N, seed, bs
        self.rpat, self.cpat = rpat, cpat or rpat
        self.density, self.empty, self.blockdiag, self.heavy = density, empty, blockdiag, heavy
        self.diag, self.build = diag, build
        rng = np.random.default_rng(seed)
        irng = np.random.default_rng(seed + IMAG_SEED) if COMPLEX else None
        P = size()
        mb, nb = M // bs, N // bs
        assert mb * bs == M and nb * bs == N
        self.mloc = [s * bs for s in split(mb, P, self.rpat, rng)]
        self.nloc = list(self.mloc) if (blockdiag or (self.cpat == self.rpat and M == N)) else [s * bs for s in split(nb, P, self.cpat, rng)]
        rstart = np.concatenate([[0], np.cumsum(self.mloc)])
        cstart = np.concatenate([[0], np.cumsum(self.nloc)])
        owner = np.searchsorted(rstart, np.arange(M), side="right") - 1
        self.rows = []  # per global row: (cols sorted, vals)
        heavy_rows = set(rng.choice(M, size=min(heavy, M), replace=False).tolist()) if heavy and M else set()
        for i in range(M):
            if empty and rng.random() < empty and not (diag and i < N):
                self.rows.append((np.zeros(0, dtype=PETSc.IntType), np.zeros(0)))
                continue
            if blockdiag:
                lo, hi = int(cstart[owner[i]]), int(cstart[owner[i] + 1])
            else:
                lo, hi = 0, N
            width = hi - lo
            k = int(rng.poisson(density)) if i not in heavy_rows else max(1, width // 2)
            k = min(k, width)
            cols = rng.choice(width, size=k, replace=False) + lo if k else np.zeros(0, dtype=np.int64)
            if diag and i < N:
                cols = np.union1d(cols, [i])
            cols = np.unique(cols).astype(PETSc.IntType)
            vals = rng.standard_normal(len(cols))
            if COMPLEX:
                vals = vals + 1j * irng.standard_normal(len(cols))
            if diag and i < N:
                vals[np.searchsorted(cols, i)] = 2.0 * len(cols) + 1.0
            self.rows.append((cols, vals))
        r = rank()
        self.rstart, self.rend = int(rstart[r]), int(rstart[r + 1])
        self.cstart, self.cend = int(cstart[r]), int(cstart[r + 1])

    def local_csr(self):
        ia, ja, va = [0], [], []
        for i in range(self.rstart, self.rend):
            c, v = self.rows[i]
            ja.append(c)
            va.append(v)
            ia.append(ia[-1] + len(c))
        ja = np.concatenate(ja).astype(PETSc.IntType) if ja else np.zeros(0, dtype=PETSc.IntType)
        va = np.concatenate(va).astype(PETSc.ScalarType) if va else np.zeros(0, dtype=PETSc.ScalarType)
        return np.array(ia, dtype=PETSc.IntType), ja, va

    def sizes(self):
        r = rank()
        return ((self.mloc[r], self.M), (self.nloc[r], self.N))

    def create(self, mtype, build=None, inodes=True):
        """the case's matrix of type mtype; inodes=False: AIJ without its inode kernel (which sums
        pairs of products first), set between preallocation and values"""
        build = build or self.build
        if not inodes:
            build = "values"
        if build == "convert" and mtype != "aij":
            A = self.create("aij", "csr")
            B = A.convert(mtype, PETSc.Mat())
            A.destroy()
            return B
        A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
        A.setSizes(self.sizes(), self.bs)
        A.setType(mtype)
        ia, ja, va = self.local_csr()
        if build == "csr":
            A.setPreallocationCSR((ia, ja, va))
        else:
            dnnz = np.array([np.count_nonzero((c >= self.cstart) & (c < self.cend)) for c, _ in self.rows[self.rstart:self.rend]], dtype=PETSc.IntType)
            onnz = np.diff(ia) - dnnz
            A.setPreallocationNNZ((dnnz, onnz) if len(dnnz) else (0, 0))
            if not inodes:
                A.setOption(PETSc.Mat.Option.USE_INODES, False)
            for k, i in enumerate(range(self.rstart, self.rend)):
                if ia[k + 1] > ia[k]:
                    A.setValues([i], ja[ia[k]:ia[k + 1]], va[ia[k]:ia[k + 1]], addv=PETSc.InsertMode.INSERT_VALUES)
        A.assemble()
        return A


def rand_vec(layout_vec, seed, name=""):
    """A vector with the layout of layout_vec filled from a global seeded sequence."""
    v = layout_vec.duplicate()
    rs, re = v.getOwnershipRange()
    g = np.random.default_rng(seed).standard_normal(v.getSize())
    if COMPLEX:
        g = g + 1j * np.random.default_rng(seed + IMAG_SEED).standard_normal(v.getSize())
    v.setArray(g[rs:re].astype(PETSc.ScalarType))
    return v


def nan_vec(layout_vec):
    v = layout_vec.duplicate()
    v.set(np.nan)
    return v


def gather(v):
    """Global array of v on rank 0 (None elsewhere)."""
    parts = comm.gather(np.array(v.getArray(readonly=True), copy=True), root=0)
    return np.concatenate(parts) if rank() == 0 else None


def sha(v):
    """sha256 of v's global bytes, the same string on every rank."""
    g = gather(v)
    h = hashlib.sha256(np.ascontiguousarray(g).tobytes()).hexdigest() if rank() == 0 else None
    return comm.bcast(h, root=0)


def same_bits(u, v):
    return allok(np.array_equal(u.getArray(readonly=True).view(np.uint8), v.getArray(readonly=True).view(np.uint8)))


def max_abs(v):
    a = v.getArray(readonly=True)
    loc = float(np.max(np.abs(a))) if len(a) else 0.0
    if np.isnan(a).any():
        loc = np.inf
    return comm.allreduce(loc, op=__import__("mpi4py").MPI.MAX)


def rel_err(u, ref, scale=None):
    """max|u-ref| / scale (scale defaults to max|ref|), inf if u has NaN/inf; 0/0 -> 0."""
    d = u.copy()
    d.axpy(-1.0, ref)
    num = max_abs(d)
    d.destroy()
    den = scale if scale is not None else max_abs(ref)
    if num == 0.0:
        return 0.0
    return num / den if den > 0 else np.inf


def check_partition(A, nthreads=None):
    """get_partition: nthreads+1 non-decreasing bounds from 0 to the local row count."""
    b = ph.get_partition(A)
    m = A.getLocalSize()[0]
    info = ph.get_partition_info(A)
    assert len(b) == info["nthreads"] + 1, (b, info)
    if nthreads is not None:
        assert info["nthreads"] == nthreads, (info, nthreads)
    assert b[0] == 0 and b[-1] == m, (b, m)
    assert all(b[i] <= b[i + 1] for i in range(len(b) - 1)), b
    return b


def fill_laplacian_2d(A, n):
    """Set the 5-point Laplacian of an n x n grid into this rank's rows of A and assemble it."""
    rs, re = A.getOwnershipRange()
    for I in range(rs, re):
        i, j = divmod(I, n)
        A.setValue(I, I, 4.0)
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= i + di < n and 0 <= j + dj < n:
                A.setValue(I, (i + di) * n + j + dj, -1.0)
    A.assemble()


def product_variants(Aa, seed=10):
    """(name, product, scale) of every multiply variant (mult, multAdd with z distinct and z == y,
    and the same for the transpose), on vectors seeded seed+1..seed+4 and laid out like Aa; scale
    is a bound of the result's magnitude for relative errors. Each product returns a new vector."""
    xr = rand_vec(Aa.createVecRight(), seed + 1)
    xl = rand_vec(Aa.createVecLeft(), seed + 2)
    zl = rand_vec(Aa.createVecLeft(), seed + 3)
    zr = rand_vec(Aa.createVecRight(), seed + 4)
    s_mult = Aa.norm(PETSc.NormType.INFINITY) * max_abs(xr)
    s_t = Aa.norm(PETSc.NormType.NORM_1) * max_abs(xl)

    def variants(mult, multadd, x, z):
        """A.mult(x), A.multAdd(x, z) and the same with z as the result (names of A's methods)"""

        def plain(A):
            y = nan_vec(z)
            getattr(A, mult)(x, y)
            return y

        def add(A):
            y = nan_vec(z)
            getattr(A, multadd)(x, z, y)
            return y

        def alias(A):
            y = z.copy()
            getattr(A, multadd)(x, y, y)
            return y

        return plain, add, alias

    mult, multadd, multadd_alias = variants("mult", "multAdd", xr, zl)
    multt, multtadd, multtadd_alias = variants("multTranspose", "multTransposeAdd", xl, zr)
    return [
        ("mult", mult, s_mult),
        ("multAdd", multadd, s_mult + max_abs(zl)),
        ("multAdd_z_is_y", multadd_alias, s_mult + max_abs(zl)),
        ("multTranspose", multt, s_t),
        ("multTransposeAdd", multtadd, s_t + max_abs(zr)),
        ("multTransposeAdd_z_is_y", multtadd_alias, s_t + max_abs(zr)),
    ]
