"""Setup-operations worker: the entry-wise operations of a preconditioner's setup (MatAXPY with each
MatStructure, MatAYPX, MatScale, MatDiagonalScale, MatGetDiagonal) done on aijhybrid and on MATAIJ
from the same input, the results compared bit for bit (pattern, values, as getValuesCSR gives them)
and the result's type checked; the halo exchange built lazily (a matrix assembled and never
multiplied builds none; the first product builds it on every rank); a CG + GAMG hierarchy of
aijhybrid equal to aij's.

The large cases (over 10^5 entries per rank at up to 4 ranks) run the threaded kernels with the
thread count of the launch; the small ones (empty rows, a rank without rows, rectangular) one
thread each.

usage: setupops.py [PETSc options]
"""

import sys

import numpy as np

import common as C

C.init(sys.argv[1:])
PETSc, ph = C.PETSc, C.ph
checks = C.Checks()
info = checks.info
HYB = ("seqaijhybrid", "mpiaijhybrid")
S = PETSc.Mat.Structure


class LargeCase:
    """A seeded random square matrix of M rows generated with numpy at once (the rows of this rank
    only are kept): about `density` entries per row, mostly in a band of width M/20 around the
    diagonal (so that ranks share ghost columns), a few anywhere, a fraction `empty` of rows empty
    (no diagonal either), the diagonal in the others. The same global matrix at any rank count."""

    def __init__(self, name, M, seed, density=6.0, empty=0.0):
        self.name, self.M, self.N, self.seed, self.density, self.empty = name, M, M, seed, density, empty
        self.rpat = self.cpat = "decide"
        self.diag = True
        rng = np.random.default_rng(seed)
        cnt = rng.poisson(density, M)
        emp = rng.random(M) < empty
        cnt[emp] = 0
        rows = np.repeat(np.arange(M), cnt)
        w = max(1, M // 40)
        off = rng.integers(-w, w + 1, len(rows))
        far = rng.random(len(rows)) < 0.05
        cols = np.where(far, rng.integers(0, M, len(rows)), (rows + off) % M)
        rows = np.concatenate([rows, np.nonzero(~emp)[0]])  # the diagonal
        cols = np.concatenate([cols, np.nonzero(~emp)[0]])
        key = np.unique(rows.astype(np.int64) * M + cols)
        self.grow, self.gcol = key // M, key % M
        self.gval = rng.standard_normal(len(key))
        if C.COMPLEX:
            self.gval = self.gval + 1j * rng.standard_normal(len(key))
        d = self.grow == self.gcol
        self.gval[d] = 20.0 + np.abs(self.gval[d])
        P, r = C.size(), C.rank()
        self.rstart = r * (M // P) + min(r, M % P)
        self.rend = self.rstart + M // P + (1 if r < M % P else 0)

    def sizes(self):
        n = self.rend - self.rstart
        return ((n, self.M), (n, self.N))

    def create(self, mtype):
        lo, hi = np.searchsorted(self.grow, [self.rstart, self.rend])
        ia = np.searchsorted(self.grow[lo:hi], np.arange(self.rstart, self.rend + 1)).astype(PETSc.IntType)
        A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
        A.setSizes(self.sizes())
        A.setType(mtype)
        A.setPreallocationCSR((ia, self.gcol[lo:hi].astype(PETSc.IntType), self.gval[lo:hi].astype(PETSc.ScalarType)))
        A.assemble()
        return A


_CASES = []


def cases():
    """the cases, generated once: two large ones (over 10^5 entries per rank: the threaded kernels), three small edge cases"""
    if not _CASES:
        _CASES.extend([
            LargeCase("large", 120000, 1, density=6.0),
            LargeCase("large_empty_rows", 100000, 2, density=7.0, empty=0.2),
            C.Case("small_rank_without_rows", 120, 120, 3, rpat="zero_middle", density=5.0, diag=True),
            C.Case("small_rect", 90, 150, 4, rpat="zero_first", cpat="zero_last", density=6.0),
            C.Case("small_empty", 60, 60, 5, empty=0.5, density=3.0),
        ])
    return _CASES


_OTHER = {}


def other_case(c):
    """a case of c's shape with another pattern (generated once)"""
    if c.name not in _OTHER:
        _OTHER[c.name] = _other_case(c)
    return _OTHER[c.name]


def _other_case(c):
    if isinstance(c, LargeCase):
        return LargeCase(c.name + "_other", c.M, c.seed + 100, density=c.density, empty=c.empty)
    return C.Case(c.name + "_other", c.M, c.N, c.seed + 100, rpat=c.rpat, cpat=c.cpat, density=c.density, empty=c.empty, diag=c.diag)


def same_csr(A, B, what):
    """A and B (local rows) have the same pattern and the same bits, on every rank"""
    ia, ja, va = A.getValuesCSR()
    ib, jb, vb = B.getValuesCSR()
    ok = np.array_equal(ia, ib) and np.array_equal(ja, jb) and np.array_equal(np.asarray(va).view(np.uint8), np.asarray(vb).view(np.uint8))
    assert C.allok(ok), "%s: result differs from aij's (pattern or bits)" % what


def hyb(A, what):
    assert A.getType() in HYB, "%s: type %s is not aijhybrid" % (what, A.getType())


def pair(c, values_seed=None):
    """the case as aij and aijhybrid; values_seed: every value scaled by a seeded factor per row and column (same pattern, other values)"""
    Aa, Ah = c.create("aij"), c.create("aijhybrid")
    if values_seed is not None:
        l = C.rand_vec(Aa.createVecLeft(), values_seed)
        r = C.rand_vec(Aa.createVecRight(), values_seed + 1)
        for A in (Aa, Ah):
            A.diagonalScale(l, r)
    return Aa, Ah


def subset_of(A, seed, mtype, extra=False):
    """a matrix of type mtype with about half of A's entries (other values); extra: and one entry A lacks on rank 0's first row"""
    rng = np.random.default_rng(seed + C.rank())
    ia, ja, va = A.getValuesCSR()
    M, N = A.getSize()
    m = len(ia) - 1
    keep = rng.random(len(ja)) < 0.5
    rowof = np.repeat(np.arange(m), np.diff(ia))
    rk, jb = rowof[keep], ja[keep]
    if extra and C.rank() == 0 and m:
        missing = np.setdiff1d(np.arange(N), ja[ia[0]:ia[1]])
        if len(missing):
            pos = np.searchsorted(jb[rk == 0], missing[0])
            rk, jb = np.insert(rk, pos, 0), np.insert(jb, pos, missing[0])
    ib = np.concatenate([[0], np.cumsum(np.bincount(rk, minlength=m))]).astype(PETSc.IntType)
    vb = rng.standard_normal(len(jb)).astype(PETSc.ScalarType)
    B = PETSc.Mat().create(comm=A.getComm())
    B.setSizes(A.getSizes())
    B.setType(mtype)
    B.setPreallocationCSR((ib, jb.astype(PETSc.IntType), vb))
    B.assemble()
    return B


def t_scale():
    for c in cases():
        Aa, Ah = pair(c)
        for a in (0.37, -2.0, 0.0):
            Aa.scale(a)
            Ah.scale(a)
            same_csr(Ah, Aa, "%s: scale %g" % (c.name, a))
        hyb(Ah, "scale")


def t_diagonal_scale():
    for c in cases():
        Aa, Ah = pair(c)
        l = C.rand_vec(Aa.createVecLeft(), 3)
        r = C.rand_vec(Aa.createVecRight(), 4)
        for left, right, what in ((l, None, "left"), (None, r, "right"), (l, r, "both")):
            Aa.diagonalScale(left, right)
            Ah.diagonalScale(left, right)
            same_csr(Ah, Aa, "%s: diagonal scale %s" % (c.name, what))
        hyb(Ah, "diagonal scale")


def t_get_diagonal():
    for c in cases():
        if c.M != c.N or c.rpat != c.cpat:
            continue
        Aa, Ah = pair(c)
        da, dh = Aa.getDiagonal(), Ah.getDiagonal()
        assert C.same_bits(da, dh), "%s: diagonal differs" % c.name


def t_axpy_same():
    for c in cases():
        for structure in (S.SAME_NONZERO_PATTERN, S.UNKNOWN_NONZERO_PATTERN):
            Ya, Yh = pair(c)
            Xa, Xh = pair(c, values_seed=11)
            Ya.axpy(0.7, Xa, structure)
            Yh.axpy(0.7, Xh, structure)
            same_csr(Yh, Ya, "%s: axpy same (%s)" % (c.name, structure))
            hyb(Yh, "axpy same")


def t_axpy_subset():
    for c in cases():
        for a in (1.0, -0.3):
            Ya, Yh = pair(c)
            Xa, Xh = subset_of(Ya, 21, "aij"), subset_of(Ya, 21, "aijhybrid")
            Ya.axpy(a, Xa, S.SUBSET_NONZERO_PATTERN)
            Yh.axpy(a, Xh, S.SUBSET_NONZERO_PATTERN)
            same_csr(Yh, Ya, "%s: axpy subset a=%g" % (c.name, a))
            hyb(Yh, "axpy subset")
            # MatAYPX as GAMG's prolongator smoothing calls it: Y = a Y + X, X's pattern in Y's
            Ya.aypx(-1.4 / 3.0, Xa, S.SUBSET_NONZERO_PATTERN)
            Yh.aypx(-1.4 / 3.0, Xh, S.SUBSET_NONZERO_PATTERN)
            same_csr(Yh, Ya, "%s: aypx subset" % c.name)
            # an entry of X that Y lacks (on rank 0): inserted, as AIJ does where new entries are allowed
            Xa, Xh = subset_of(Ya, 22, "aij", extra=True), subset_of(Ya, 22, "aijhybrid", extra=True)
            for Y in (Ya, Yh):
                Y.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
            Ya.axpy(a, Xa, S.SUBSET_NONZERO_PATTERN)
            Yh.axpy(a, Xh, S.SUBSET_NONZERO_PATTERN)
            same_csr(Yh, Ya, "%s: axpy 'subset' with an entry more" % c.name)
            hyb(Yh, "axpy subset with an entry more")


def t_axpy_different():
    for c in cases():
        other = other_case(c)
        for structure in (S.DIFFERENT_NONZERO_PATTERN, S.UNKNOWN_NONZERO_PATTERN):
            for a in (1.0, 0.25):
                Ya, Yh = pair(c)
                Xa, Xh = other.create("aij"), other.create("aijhybrid")
                Yh.setName("Y")
                Ya.axpy(a, Xa, structure)
                Yh.axpy(a, Xh, structure)
                same_csr(Yh, Ya, "%s: axpy different (%s) a=%g" % (c.name, structure, a))
                hyb(Yh, "axpy different")
                assert Yh.getName() == "Y", "name lost: %s" % Yh.getName()
                # the result multiplies as aij's
                x = C.rand_vec(Ya.createVecRight(), 5)
                ya, yh = Ya.createVecLeft(), Yh.createVecLeft()
                Ya.mult(x, ya)
                Yh.mult(x, yh)
                assert C.rel_err(yh, ya) <= 1e-13, "%s: product after axpy different" % c.name
        # the graph GAMG builds: A + A^T (MatCreateGraph's symmetrization)
        Ya, Yh = pair(c)
        if c.M == c.N and c.rpat == c.cpat:
            Ta, Th = Ya.transpose(PETSc.Mat()), Yh.transpose(PETSc.Mat())
            Ya.axpy(1.0, Ta, S.DIFFERENT_NONZERO_PATTERN)
            Yh.axpy(1.0, Th, S.DIFFERENT_NONZERO_PATTERN)
            same_csr(Yh, Ya, "%s: A + A^T" % c.name)


def t_axpy_other_type():
    """Y aijhybrid + a X with X aij (another type: PETSc's MatAXPY_Basic() fills the matrix that the
    plugin's MatAXPYGetPreallocation_C preallocates) and MatCopy() with another pattern, at block
    size 1 and 2: pattern, bits and allocation as aij + aij, the result aijhybrid"""
    for c in cases():
        other = other_case(c)
        for a in (1.0, 0.25):
            Ya, Yh = pair(c)
            Xa = other.create("aij")
            Ya.axpy(a, Xa, S.DIFFERENT_NONZERO_PATTERN)
            Yh.axpy(a, Xa, S.DIFFERENT_NONZERO_PATTERN)
            same_csr(Yh, Ya, "%s: aijhybrid + aij, a=%g" % (c.name, a))
            hyb(Yh, "aijhybrid + aij")
            alloc = (Yh.getInfo()["nz_allocated"], Ya.getInfo()["nz_allocated"])
            assert C.allok(alloc[0] == alloc[1]), "%s: aijhybrid + aij allocates %d entries, aij + aij %d" % (c.name, alloc[0], alloc[1])
    # the tridiagonal matrix of PETSc's mat/tests/ex37 at block size 2: copied with another pattern
    n = 10 * C.size()
    for bs in (1, 2):
        made = {}
        for t in ("aij", "aijhybrid"):
            A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
            A.setSizes((n, n), bsize=bs)
            A.setType(t)
            A.setPreallocationNNZ((3, 3))
            r0, r1 = A.getOwnershipRange()
            for i in range(r0, r1):
                for j in (i - 1, i, i + 1):
                    if 0 <= j < n:
                        A.setValue(i, j, 2.0 if i == j else -1.0)
            A.assemble()
            made[t] = A
        src = made["aij"].copy()  # aij, the pattern of both
        for t, A in made.items():
            src.copy(A, S.DIFFERENT_NONZERO_PATTERN)
        same_csr(made["aijhybrid"], made["aij"], "MatCopy(aij, aijhybrid, DIFFERENT) bs %d" % bs)
        hyb(made["aijhybrid"], "MatCopy into aijhybrid")
        alloc = [made[t].getInfo()["nz_allocated"] for t in ("aijhybrid", "aij")]
        assert C.allok(alloc[0] == alloc[1]), "MatCopy(aij, aijhybrid, DIFFERENT) bs %d allocates %d entries, aij %d" % (bs, alloc[0], alloc[1])


def t_lazy_halo():
    """an mpiaijhybrid matrix builds its halo exchange at its first use, not at assembly"""
    if C.size() == 1:
        return
    c = cases()[0]
    A = c.create("aijhybrid")
    PETSc.Log.begin()
    ev = PETSc.Log.Event("AIJHybHaloSetUp")
    stage = PETSc.Log.Stage("lazy_halo")
    stage.push()
    B = A.duplicate(copy=True)
    B.scale(2.0)
    B.assemble()
    n0 = ev.getPerfInfo(stage.id)["count"]
    x = C.rand_vec(B.createVecRight(), 1)
    y = B.createVecLeft()
    B.mult(x, y)
    n1 = ev.getPerfInfo(stage.id)["count"]
    B.mult(x, y)
    n2 = ev.getPerfInfo(stage.id)["count"]
    stage.pop()
    info["halo_setups_assembly_first_second"] = [n0, n1 - n0, n2 - n1]
    assert (n0, n1 - n0, n2 - n1) == (0, 1, 0), "halo set-ups at assembly, first and second product: %s" % [n0, n1 - n0, n2 - n1]
    Aa = c.create("aij")
    Aa.scale(2.0)
    ya = Aa.createVecLeft()
    Aa.mult(x, ya)
    assert C.rel_err(y, ya) <= 1e-13, "product after a lazy halo set-up"


def t_gamg_hierarchy():
    """CG + GAMG on a 3D Poisson matrix: the hierarchy of aijhybrid (interpolations, coarse operators) equal to aij's, every level aijhybrid"""
    from aijhybrid_bench import matrices

    levels = {}
    for t in ("aij", "aijhybrid"):
        A = matrices.create("poisson7", 30 ** 3, mat_type=t)
        ksp = PETSc.KSP().create(comm=A.getComm())
        ksp.setOperators(A)
        ksp.setType("cg")
        pc = ksp.getPC()
        pc.setType("gamg")
        ksp.setUp()
        mats = []
        for lev in range(1, pc.getMGLevels()):
            mats.append(("P%d" % lev, pc.getMGInterpolation(lev)))
        for lev in range(pc.getMGLevels()):
            mats.append(("A%d" % lev, pc.getMGSmoother(lev).getOperators()[0]))
        levels[t] = (ksp, mats)
    names = [n for n, _ in levels["aij"][1]]
    assert names == [n for n, _ in levels["aijhybrid"][1]], "hierarchies differ in depth"
    info["gamg_levels"] = len(names)
    for (n, Ma), (_, Mh) in zip(levels["aij"][1], levels["aijhybrid"][1]):
        hyb(Mh, "GAMG " + n)
        ia, ja, va = Ma.getValuesCSR()
        ib, jb, vb = Mh.getValuesCSR()
        same = np.array_equal(ia, ib) and np.array_equal(ja, jb)
        assert C.allok(same), "GAMG %s: pattern differs" % n
        err = float(np.max(np.abs(np.asarray(va) - np.asarray(vb)))) if len(va) else 0.0
        scale = float(np.max(np.abs(np.asarray(va)))) if len(va) else 1.0
        assert C.allok(err <= 1e-12 * scale), "GAMG %s: values differ by %g (scale %g)" % (n, err, scale)


for name, fn in [
    ("scale", t_scale),
    ("diagonal_scale", t_diagonal_scale),
    ("get_diagonal", t_get_diagonal),
    ("axpy_same", t_axpy_same),
    ("axpy_subset", t_axpy_subset),
    ("axpy_different", t_axpy_different),
    ("axpy_other_type", t_axpy_other_type),
    ("lazy_halo", t_lazy_halo),
    ("gamg_hierarchy", t_gamg_hierarchy),
]:
    checks.run(name, fn)
C.report(checks.result())
