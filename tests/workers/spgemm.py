"""Sparse products worker: MatMatMult (AB), MatTransposeMatMult (AtB), MatMatTransposeMult (ABt),
MatPtAP and MatRARt of aijhybrid operands against the same products of MATAIJ operands, on seeded
random matrices (square and rectangular, empty rows, sparse columns, a rank owning no rows, no
ghost columns, one below the one-thread cutoff), and the coarse levels of PCGAMG and of PCMG with
Galerkin coarse operators.

For each product: the result is aijhybrid with the first operand's settings; its pattern (local
rows, global columns) equals AIJ's; its values are within RTOL of AIJ's (max |C - C_aij| over
max |C_aij|); the same product with the operands' thread count set to 1, 2, 3 and 4 is bitwise
equal (and the hash of the result is reported so that launches with different OMP_NUM_THREADS can
be compared); MAT_REUSE_MATRIX after new values of the first operand gives AIJ's new product.

usage: spgemm.py [PETSc options]
"""

import hashlib
import sys
import zlib

import numpy as np

import common as C

C.init(sys.argv[1:])
from mpi4py import MPI  # noqa: E402

PETSc, ph = C.PETSc, C.ph
RTOL = 1e-12
# a hierarchy compounds the rounding of the levels above and, for PCGAMG, of the eigenvalue
# estimates that smooth the prolongators (aijhybrid's MatMult sums rows as SeqAIJ does without
# inodes): the coarse operators are compared with a tolerance 100 times looser
RTOL_HIERARCHY = 1e-10
HYB = ("seqaijhybrid", "mpiaijhybrid")
checks = C.Checks()
info = checks.info
hashes = {}


def csr(M):
    """this rank's rows of M: row pointers, global columns, values"""
    ia, ja, va = M.getValuesCSR()
    return np.asarray(ia), np.asarray(ja), np.asarray(va)


def digest(M):
    """sha256 of the whole of M (pattern and values, rank by rank), the same string on every rank"""
    ia, ja, va = csr(M)
    h = hashlib.sha256(ia.tobytes() + ja.tobytes() + va.tobytes()).hexdigest()
    parts = C.comm.allgather(h)
    return hashlib.sha256("".join(parts).encode()).hexdigest()


def same_pattern_values(Ch, Ca, what, rtol=RTOL):
    """Ch has Ca's pattern and values within rtol (relative to max |Ca|)"""
    ih, jh, vh = csr(Ch)
    ia, ja, va = csr(Ca)
    pat = np.array_equal(ih, ia) and np.array_equal(jh, ja)
    assert C.allok(pat), "%s: pattern differs from aij's (%d vs %d entries here)" % (what, len(jh), len(ja))
    num = float(np.max(np.abs(vh - va))) if len(va) else 0.0
    den = float(np.max(np.abs(va))) if len(va) else 0.0
    num, den = C.comm.allreduce(num, op=MPI.MAX), C.comm.allreduce(den, op=MPI.MAX)
    err = num / den if den > 0 else num
    key = "max_rel_err" if rtol == RTOL else "max_rel_err_hierarchy"
    info.setdefault(key, 0.0)
    info[key] = max(info[key], err)
    assert err <= rtol, "%s: values differ from aij's by %g (relative)" % (what, err)
    if rtol == RTOL and C.size() == 1:  # one rank: PETSc's seqaij products' summation order, bit for bit (docs/setup.md)
        assert np.array_equal(vh, va), "%s: values differ from seqaij's bitwise (by %g relative)" % (what, err)


def is_hyb(M, what):
    assert M.getType() in HYB, "%s: type %s is not aijhybrid" % (what, M.getType())


# the products, as petsc4py names them: result = f(first, second[, result])
PRODUCTS = {
    "AB": lambda X, Y, Z=None: X.matMult(Y, Z) if Z is not None else X.matMult(Y),
    "AtB": lambda X, Y, Z=None: X.transposeMatMult(Y, Z) if Z is not None else X.transposeMatMult(Y),
    "ABt": lambda X, Y, Z=None: X.matTransposeMult(Y, Z) if Z is not None else X.matTransposeMult(Y),
    "PtAP": lambda X, Y, Z=None: X.ptap(Y, Z) if Z is not None else X.ptap(Y),
    "RARt": lambda X, Y, Z=None: X.rart(Y, Z) if Z is not None else X.rart(Y),
    # MatTranspose (its second operand unused): new (on one rank the plugin's threaded transpose) and reused
    "At": lambda X, Y, Z=None: X.transpose(Z if Z is not None else PETSc.Mat()),
}


def operands(name, M, K, N, **kw):
    """the cases' matrices: A (M x M), and its partners: P (M x N: AB, PtAP; AtB's first operand),
    Bm (M x K: AtB's second), Q (K x M: ABt's second), R (K x M: RARt)"""
    seed = zlib.crc32(name.encode()) % 1000  # the same on every rank (str hashes are salted per process)
    dens = kw.pop("density", 5.0)
    A = C.Case(name + "A", M, M, seed + 1, density=dens, diag=True, **kw)
    P = C.Case(name + "P", M, N, seed + 2, density=max(1.0, dens / 2), **kw)
    Bm = C.Case(name + "B", M, K, seed + 3, density=max(1.0, dens / 2), **kw)
    Q = C.Case(name + "Q", K, M, seed + 4, density=dens, **dict(kw, rpat="decide", cpat=kw.get("rpat", "decide")))
    R = Q
    return {"A": A, "P": P, "Bm": Bm, "Q": Q, "R": R}


# product -> (first, second) operands
OPERANDS = {"AB": ("A", "P"), "AtB": ("P", "Bm"), "ABt": ("A", "Q"), "PtAP": ("A", "P"), "RARt": ("A", "R"), "At": ("P", "Bm")}


def run_case(name, M, K, N, **kw):
    cases = operands(name, M, K, N, **kw)
    aij = {k: c.create("aij") for k, c in cases.items()}
    for prod, (a, b) in OPERANDS.items():
        Xa, Ya = aij[a], aij[b]
        Xh, Yh = Xa.convert("aijhybrid", PETSc.Mat()), Ya.convert("aijhybrid", PETSc.Mat())
        ph.set_partition_type(Xh, "optimal")  # a setting the result must inherit
        Ca = PRODUCTS[prod](Xa, Ya)
        Ch = PRODUCTS[prod](Xh, Yh)
        what = "%s %s" % (name, prod)
        is_hyb(Ch, what)
        assert ph.get_partition_type(Ch) == "optimal", "%s: the result did not take the first operand's settings" % what
        same_pattern_values(Ch, Ca, what)
        ref = digest(Ch)
        hashes["%s_%s" % (name, prod)] = ref
        # the same product with 1..4 threads: bitwise equal
        for t in (1, 2, 3, 4):
            ph.set_num_threads(Xh, t)
            ph.set_num_threads(Yh, t)
            Ct = PRODUCTS[prod](Xh, Yh)
            assert ph.get_num_threads(Ct) == t, "%s: the result has %d threads, its operand %d" % (what, ph.get_num_threads(Ct), t)
            assert digest(Ct) == ref, "%s: %d threads differ bitwise from the default thread count" % (what, t)
            Ct.destroy()
        # new values of the first operand, MAT_REUSE_MATRIX
        for X in (Xa, Xh):  # (a shift would add diagonal entries to P, Q, R: another pattern)
            X.scale(-1.5)
        # (the reference is made anew: PETSc 3.18's MPIAIJ MatMatTransposeMult() fails with MAT_REUSE_MATRIX)
        Ca.destroy()
        Ca = PRODUCTS[prod](Xa, Ya)
        PRODUCTS[prod](Xh, Yh, Ch)
        is_hyb(Ch, what + " reused")
        same_pattern_values(Ch, Ca, what + " reused")
        # and of the second
        for Y in (Ya, Yh):
            Y.scale(0.5)
        Ca.destroy()
        Ca = PRODUCTS[prod](Xa, Ya)
        PRODUCTS[prod](Xh, Yh, Ch)
        same_pattern_values(Ch, Ca, what + " reused (second operand)")
        for Mat in (Xh, Yh, Ca, Ch):
            Mat.destroy()
        aij = {k: c.create("aij") for k, c in cases.items()}  # fresh operands for the next product


def t_square():
    run_case("square", 1600, 500, 400, density=6.0)


def t_rectangular_empty():
    # empty rows, columns without entries, a rank owning no rows (2 ranks and more)
    run_case("empty", 1200, 350, 700, density=3.0, empty=0.25, rpat="zero_middle")


def t_blockdiag():
    # entries only in each rank's own block: no ghost columns anywhere
    run_case("blockdiag", 1000, 1000, 1000, density=5.0, blockdiag=True)


def t_tiny():
    # below the one-thread cutoff
    run_case("tiny", 24, 9, 11, density=3.0)


def t_transpose_threaded():
    # above the one-thread cutoff (the products' 20000): on one rank the transposes are the threads' (src/mat/transpose.c)
    Ta = C.Case("transpose", 9000, 7000, 77, density=4.0, empty=0.1, rpat="zero_middle").create("aij")
    Th = Ta.convert("aijhybrid", PETSc.Mat())
    ph.set_partition_type(Th, "optimal")
    Ra = Ta.transpose(PETSc.Mat())
    for t in (1, 2, 3, 4):
        ph.set_num_threads(Th, t)
        Rh = Th.transpose(PETSc.Mat())
        what = "transpose with %d threads" % t
        is_hyb(Rh, what)
        assert ph.get_num_threads(Rh) == t and ph.get_partition_type(Rh) == "optimal", "%s: settings not inherited" % what
        assert Rh.getSize() == Ra.getSize() and Rh.getLocalSize() == Ra.getLocalSize(), what + ": sizes"
        ih, jh, vh = csr(Rh)
        ia, ja, va = csr(Ra)
        same = np.array_equal(ih, ia) and np.array_equal(jh, ja) and np.array_equal(vh, va)
        assert C.allok(same), what + ": differs from aij's bitwise"
        Rh.destroy()
    for M in (Ta, Th, Ra):
        M.destroy()


def poisson(n, mtype):
    A = PETSc.Mat().create()
    A.setSizes(((PETSc.DECIDE, n**3), (PETSc.DECIDE, n**3)))
    A.setType(mtype)
    A.setPreallocationNNZ((7, 6))
    rs, re = A.getOwnershipRange()
    for I in range(rs, re):
        k, r = divmod(I, n * n)
        j, i = divmod(r, n)
        A.setValue(I, I, 6.0)
        for di, dj, dk in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            if 0 <= i + di < n and 0 <= j + dj < n and 0 <= k + dk < n:
                A.setValue(I, I + di + n * dj + n * n * dk, -1.0)
    A.assemble()
    return A


def level_operators(pc):
    return [pc.getMGSmoother(l).getOperators()[0] for l in range(pc.getMGLevels())]


def spgemm_symbolic_count(M):
    """how many symbolic phases of the plugin's products this rank ran (its log event AIJHybSpGEMMSym)"""
    return int(PETSc.Log.Event("AIJHybSpGEMMSym", M.getClassId()).getPerfInfo()["count"])


def t_gamg():
    ops, interp, ran = {}, {}, {}
    PETSc.Log.begin()  # the events' counts: the plugin's algorithm ran, not PETSc's on aijhybrid matrices
    for mtype in ("aij", "aijhybrid"):
        A = poisson(24, mtype)
        before = spgemm_symbolic_count(A)
        ksp = PETSc.KSP().create()
        ksp.setOperators(A)
        ksp.setType("cg")
        pc = ksp.getPC()
        pc.setType("gamg")
        ksp.setUp()
        ops[mtype] = level_operators(pc)
        interp[mtype] = [pc.getMGInterpolation(l) for l in range(1, pc.getMGLevels())]
        ran[mtype] = spgemm_symbolic_count(A) - before
    assert ran["aij"] == 0, "the plugin's products ran %d times in aij's hierarchy" % ran["aij"]
    assert C.allok(ran["aijhybrid"] > 0), "the plugin's products did not run in aijhybrid's hierarchy (%d here)" % ran["aijhybrid"]
    info["gamg_interp_types"] = [P.getType() for P in interp["aijhybrid"]]
    for l, P in enumerate(interp["aijhybrid"]):
        is_hyb(P, "GAMG interpolation %d" % (l + 1))
    assert len(ops["aij"]) == len(ops["aijhybrid"]) >= 3, (len(ops["aij"]), len(ops["aijhybrid"]))
    info["gamg_levels"] = len(ops["aij"])
    info["gamg_types"] = [M.getType() for M in ops["aijhybrid"]]
    for l, (Ma, Mh) in enumerate(zip(ops["aij"], ops["aijhybrid"])):
        is_hyb(Mh, "GAMG level %d" % l)
        assert Mh.getSize() == Ma.getSize(), (l, Mh.getSize(), Ma.getSize())
        same_pattern_values(Mh, Ma, "GAMG level %d" % l, RTOL_HIERARCHY)


def t_pcmg_galerkin():
    """PCMG, 3 levels, interpolations given (aggregates of 8 consecutive rows, then 4), Galerkin coarse operators"""
    ops = {}
    n = 16
    for mtype in ("aij", "aijhybrid"):
        A = poisson(n, mtype)
        sizes = [n**3, n**3 // 8, n**3 // 32]
        P = []
        for fine, coarse, agg in ((sizes[0], sizes[1], 8), (sizes[1], sizes[2], 4)):
            Pl = PETSc.Mat().create()
            Pl.setSizes(((PETSc.DECIDE, fine), (PETSc.DECIDE, coarse)))
            Pl.setType(mtype)
            Pl.setPreallocationNNZ((2, 2))
            rs, re = Pl.getOwnershipRange()
            for i in range(rs, re):
                Pl.setValue(i, i // agg, 1.0)
                if i // agg + 1 < coarse:
                    Pl.setValue(i, i // agg + 1, 0.25)
            Pl.assemble()
            P.append(Pl)
        ksp = PETSc.KSP().create()
        ksp.setOperators(A)
        ksp.setType("cg")
        pc = ksp.getPC()
        pc.setType("mg")
        pc.setMGLevels(3)
        pc.setMGInterpolation(2, P[0])
        pc.setMGInterpolation(1, P[1])
        opts = PETSc.Options()
        opts["pc_mg_galerkin"] = "both"
        pc.setFromOptions()
        del opts["pc_mg_galerkin"]
        ksp.setUp()
        ops[mtype] = level_operators(pc)
    info["pcmg_types"] = [M.getType() for M in ops["aijhybrid"]]
    for l, (Ma, Mh) in enumerate(zip(ops["aij"], ops["aijhybrid"])):
        is_hyb(Mh, "PCMG level %d" % l)
        same_pattern_values(Mh, Ma, "PCMG level %d" % l, RTOL_HIERARCHY)


for name, fn in [
    ("square", t_square),
    ("rectangular_empty", t_rectangular_empty),
    ("blockdiag", t_blockdiag),
    ("tiny", t_tiny),
    ("transpose_threaded", t_transpose_threaded),
    ("gamg", t_gamg),
    ("pcmg_galerkin", t_pcmg_galerkin),
]:
    checks.run(name, fn)

C.report(checks.result(size=C.size(), hashes=hashes))
