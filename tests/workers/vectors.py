"""Vectors worker: the hybrid vector types in the places an application gets its vectors from, and
whole solves with them.

Checks (each at the launcher's rank count, OMP_NUM_THREADS threads at most):
- matcreatevecs: MatCreateVecs() of an aijhybrid matrix gives hybrid vectors with the matrix's threads,
  each thread on an equal part of the entries, or on the matrix's rows of that thread where first touch
  is on (the vectors' option or the matrix's), duplicates the same; a matrix converted back to aij, or
  given another vector type, does not;
- options: Vec.setType('hybrid'), -vec_type hybrid with -vec_hybrid_num_threads / _threshold /
  _first_touch through setFromOptions(), the Python helpers, bad values refused with the option named;
- dm: -dm_vec_type hybrid: DMDA global and local vectors are hybrid, global-to-local and back work;
- solves: CG + Jacobi and GMRES + Jacobi (VecMDot, VecMAXPY) on aijhybrid with hybrid vectors: the
  residual history bitwise the same for 1, 2 and 3 threads (first touch on too), the same iterations
  as aij with standard vectors and a solution within 1e-10;
- gamg: CG + GAMG with hybrid vectors: the coarse operators are aijhybrid with hybrid vectors, same
  iterations as aij;
- standard: set_standard() (-vec_hybrid_standard): VecCreateMPI vectors and their duplicates keep the
  type name and get the threaded operations; a KSP solve with them matches aij;
- flops: PETSc's log shows the same Vec events with the same flop counts for a CG + Jacobi solve with
  hybrid and with standard vectors;
- view: -vec_view ::ascii_info shows the type and the threads.

usage: vectors.py [PETSc options]
"""

import io
import os
import sys
import tempfile

import numpy as np

import common as C

C.init(sys.argv[1:])
PETSc, ph = C.PETSc, C.ph
checks = C.Checks()
info = checks.info
HYBV = ("seqhybrid", "mpihybrid")
STDV = ("seq", "mpi")
MAXT = int(os.environ.get("OMP_NUM_THREADS", "3"))


def laplacian(n, mtype):
    A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
    A.setSizes(((None, n * n), (None, n * n)))
    A.setType(mtype)
    A.setPreallocationNNZ((5, 4))
    C.fill_laplacian_2d(A, n)
    return A


def skewed(mtype, m=3000, k=12):
    """Rows of unequal cost: the first third of each rank's rows 2k+1 nonzeros, the rest one, so that
    the nonzero-balanced thread partition is far from equal parts."""
    A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
    A.setSizes(((m, None), (m, None)))
    A.setType(mtype)
    A.setPreallocationNNZ((2 * k + 1, 0))
    rs, re = A.getOwnershipRange()
    for r in range(rs, re):
        w = k if r - rs < m // 3 else 0
        cols = list(range(max(rs, r - w), min(re, r + w + 1)))
        A.setValues([r], cols, [2.0 * w + 2.0 if c == r else -1.0 for c in cols])
    A.assemble()
    return A


def equal_parts(n, T):
    return [(n * t) // T for t in range(T + 1)]


def check_matcreatevecs():
    A = laplacian(40, "aijhybrid")
    for T in range(1, MAXT + 1):
        ph.set_num_threads(A, T)
        x, b = A.createVecs()
        for v in (x, b):
            assert v.getType() in HYBV, v.getType()
            assert ph.get_num_threads(v) == T, (ph.get_num_threads(v), T)
        # the operations work on them
        b.set(1.0)
        A.mult(b, x)
        assert abs(x.sum() - A.getSize()[0] * 0.0 - sum_rows(A)) < 1e-9 * A.getSize()[0]
    # which entries each thread takes: equal parts, or the matrix's rows where first touch places them
    S = skewed("aijhybrid")
    opts = PETSc.Options()
    for T in range(1, MAXT + 1):
        ph.set_num_threads(S, T)
        S.createVecs()  # the partition of the products to come, made for T threads
        rows, equal = ph.get_partition(S), equal_parts(S.getLocalSize()[0], T)
        assert T == 1 or rows != equal, (rows, equal)  # else the checks below could not tell
        for touch in ("0", "1"):
            opts["vec_hybrid_first_touch"] = touch
            for v in S.createVecs():
                expect = rows if touch == "1" else equal
                assert ph.get_first_touch(v) == (touch == "1")
                assert ph.get_partition(v) == expect, (touch, ph.get_partition(v), expect)
                assert ph.get_partition(v.duplicate()) == expect
            del opts["vec_hybrid_first_touch"]
        ph.set_first_touch(S, True)  # the matrix's first touch: its vectors are placed by its rows
        for v in S.createVecs():
            assert ph.get_first_touch(v) and ph.get_partition(v) == rows, (ph.get_partition(v), rows)
        ph.set_first_touch(S, False)
        info["matcreatevecs_parts_T%d" % T] = rows
    # back to aij: standard vectors
    B = A.convert("aij", PETSc.Mat())
    assert B.createVecs()[0].getType() in STDV, B.createVecs()[0].getType()
    # a vector type chosen by the application is kept
    A2 = laplacian(20, "aijhybrid")
    A2.setVecType("standard")
    assert A2.createVecs()[0].getType() in STDV
    info["matcreatevecs_type"] = A.createVecs()[0].getType()


def sum_rows(A):
    e = A.createVecRight()
    e.set(1.0)
    y = A.createVecLeft()
    A.mult(e, y)
    return y.sum()


def check_options():
    opts = PETSc.Options()
    v = PETSc.Vec().create(comm=PETSc.COMM_WORLD)
    v.setSizes((None, 1000))
    v.setType("hybrid")
    assert v.getType() in HYBV
    v.setType("hybrid")  # again: PETSc 3.18 makes the vector anew (3.26 keeps it): it must work either way
    v.set(2.0)
    assert v.getType() in HYBV and abs(v.sum() - 2000.0) < 1e-9 and v.duplicate().getType() == v.getType()
    opts["vec_type"] = "hybrid"
    opts["vec_hybrid_num_threads"] = 2
    opts["vec_hybrid_threshold"] = 123
    opts["vec_hybrid_first_touch"] = "1"
    try:
        w = PETSc.Vec().create(comm=PETSc.COMM_WORLD)
        w.setSizes((None, 1000))
        w.setFromOptions()
        assert w.getType() in HYBV, w.getType()
        assert ph.get_num_threads(w) == 2 and ph.get_threshold(w) == 123 and ph.get_first_touch(w), (ph.get_num_threads(w), ph.get_threshold(w), ph.get_first_touch(w))
        # bad values: an error naming the option
        for name, bad in (("vec_hybrid_num_threads", "0"), ("vec_hybrid_threshold", "-5")):
            opts[name] = bad
            u = PETSc.Vec().create(comm=PETSc.COMM_WORLD)
            u.setSizes((None, 10))
            try:
                u.setFromOptions()
            except PETSc.Error:
                pass
            else:
                raise AssertionError("-%s %s was accepted" % (name, bad))
            finally:
                del opts[name]
                u.destroy()
    finally:
        for k in ("vec_type", "vec_hybrid_num_threads", "vec_hybrid_threshold", "vec_hybrid_first_touch"):
            if opts.hasName(k):
                del opts[k]
    # helpers
    h = ph.create_vec((None, 5000), nthreads=3)
    assert h.getType() in HYBV and ph.get_num_threads(h) == 3
    ph.set_threshold(h, 0)
    assert ph.get_threshold(h) == 0
    n = h.getLocalSize()
    ph.set_partition(h, [0, n // 4, n // 4, n])
    assert ph.get_partition(h) == [0, n // 4, n // 4, n], ph.get_partition(h)
    h.set(2.0)
    assert abs(h.sum() - 2.0 * 5000) < 1e-9
    try:
        ph.set_partition(h, [0, n + 1, n])
    except PETSc.Error:
        pass
    else:
        raise AssertionError("a decreasing partition was accepted")


def check_dm():
    opts = PETSc.Options()
    opts["dm_vec_type"] = "hybrid"
    try:
        da = PETSc.DMDA().create(dim=2, sizes=(30, 30), stencil_width=1, comm=PETSc.COMM_WORLD, setup=False)
        da.setFromOptions()
        da.setUp()
    finally:
        del opts["dm_vec_type"]
    g = da.createGlobalVec()
    loc = da.createLocalVec()
    assert g.getType() in HYBV and loc.getType() == "seqhybrid", (g.getType(), loc.getType())
    rs, re = g.getOwnershipRange()
    g.setArray(np.arange(rs, re, dtype=PETSc.ScalarType))
    da.globalToLocal(g, loc)
    h = g.duplicate()
    da.localToGlobal(loc, h)
    assert C.same_bits(g, h)
    info["dm_types"] = [g.getType(), loc.getType()]


def solve(A, ksp_type, pc_type, b, x, monitor=None, prefix="v_", extra=()):
    ksp = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
    ksp.setOptionsPrefix(prefix)
    ksp.setOperators(A)
    ksp.setType(ksp_type)
    ksp.getPC().setType(pc_type)
    ksp.setTolerances(rtol=1e-10, max_it=2000)
    hist = []
    ksp.setMonitor(lambda k, it, rn: hist.append(rn))
    for key, val in extra:
        PETSc.Options()[prefix + key] = val
    ksp.setFromOptions()
    x.set(0.0)
    ksp.solve(b, x)
    for key, _ in extra:
        del PETSc.Options()[prefix + key]
    its = ksp.getIterationNumber()
    reason = ksp.getConvergedReason()
    ksp.destroy()
    return its, reason, hist


def check_solves():
    n = 48
    Aa = laplacian(n, "aij")
    xa, ba = Aa.createVecs()
    C.rand_vec(ba, 3).copy(ba)
    out = {}
    for ksp_type in ("cg", "gmres"):
        its_a, reason_a, _ = solve(Aa, ksp_type, "jacobi", ba, xa)
        assert reason_a > 0, reason_a
        ref_hist = None
        for T in range(1, MAXT + 1):
            for first_touch in (False, True):
                Ah = laplacian(n, "aijhybrid")
                ph.set_num_threads(Ah, T)
                xh, bh = Ah.createVecs()
                assert xh.getType() in HYBV
                ph.set_threshold(xh, 0)  # threaded at any length
                ph.set_threshold(bh, 0)
                if first_touch:
                    ph.set_first_touch(xh, True)
                bh.setArray(ba.getArray(readonly=True))
                its, reason, hist = solve(Ah, ksp_type, "jacobi", bh, xh)
                assert reason > 0 and its == its_a, (ksp_type, T, its, its_a, reason)
                e = C.rel_err(xh, xa)
                assert e < 1e-10, (ksp_type, T, e)
                h = np.array(hist)
                if ref_hist is None:
                    ref_hist = h
                else:
                    assert np.array_equal(h.view(np.uint8), ref_hist.view(np.uint8)), "%s: residuals with %d threads differ from 1 thread's: %s vs %s" % (ksp_type, T, h[:5], ref_hist[:5])
        out[ksp_type] = its_a
    info["solve_iterations"] = out


def check_gamg():
    Aa = laplacian(40, "aij")
    Ah = laplacian(40, "aijhybrid")
    xa, ba = Aa.createVecs()
    ba.set(1.0)
    xh, bh = Ah.createVecs()
    bh.set(1.0)
    its_a, ra, _ = solve(Aa, "cg", "gamg", ba, xa, prefix="ga_")
    ksp = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
    ksp.setOptionsPrefix("ga_")
    ksp.setOperators(Ah)
    ksp.setType("cg")
    ksp.getPC().setType("gamg")
    ksp.setTolerances(rtol=1e-10, max_it=2000)
    ksp.setFromOptions()
    ksp.solve(bh, xh)
    assert ksp.getConvergedReason() > 0 and ksp.getIterationNumber() == its_a, (ksp.getIterationNumber(), its_a)
    pc = ksp.getPC()
    levels = pc.getMGLevels()
    types = []
    for lev in range(levels):
        Al = pc.getMGSmoother(lev).getOperators()[0]
        types.append((Al.getType(), Al.createVecs()[0].getType()))
    for mt, vt in types:
        assert mt in ("seqaijhybrid", "mpiaijhybrid") and vt in HYBV, types
    info["gamg_levels"] = types
    assert C.rel_err(xh, xa) < 1e-8


def check_standard():
    assert not ph.get_standard()
    ph.set_standard(True)
    try:
        v = PETSc.Vec().createMPI((None, 3000), comm=PETSc.COMM_WORLD)
        assert v.getType() in STDV, v.getType()
        assert ph.get_num_threads(v) >= 1  # the hybrid context is there
        d = v.duplicate()
        assert d.getType() in STDV and ph.get_num_threads(d) == ph.get_num_threads(v)
        A = laplacian(30, "aij")
        x = PETSc.Vec().createMPI((A.getLocalSize()[0], None), comm=PETSc.COMM_WORLD)
        b = x.duplicate()
        b.set(1.0)
        its, reason, hist = solve(A, "cg", "jacobi", b, x)
    finally:
        ph.set_standard(False)
    w = PETSc.Vec().createMPI((None, 30), comm=PETSc.COMM_WORLD)
    try:
        ph.get_num_threads(w)
    except PETSc.Error:
        pass
    else:
        raise AssertionError("a standard vector made after set_standard(False) has the hybrid context")
    xa = PETSc.Vec().createMPI((A.getLocalSize()[0], None), comm=PETSc.COMM_WORLD)
    ba = xa.duplicate()
    ba.set(1.0)
    its_a, ra, _ = solve(A, "cg", "jacobi", ba, xa)
    assert reason > 0 and its == its_a, (its, its_a)
    assert C.rel_err(x, xa) < 1e-10


EVENTS = ("VecDot", "VecTDot", "VecNorm", "VecAXPY", "VecAYPX", "VecAXPBYCZ", "VecWAXPY", "VecMAXPY", "VecMDot", "VecPointwiseMult", "VecScale", "VecCopy", "VecSet", "VecNormalize")


def events_of(stage):
    out = {}
    for name in EVENTS:
        pi = PETSc.Log.Event(name).getPerfInfo(stage.id)
        out[name] = (int(pi["count"]), float(pi["flops"]))
    return out


def check_flops():
    PETSc.Log.begin()
    res = {}
    for label, mtype in (("standard", "aij"), ("hybrid", "aijhybrid")):
        A = laplacian(32, mtype)
        x, b = A.createVecs()
        assert (x.getType() in HYBV) == (label == "hybrid")
        b.set(1.0)
        for ksp_type in ("cg", "gmres"):
            stage = PETSc.Log.Stage("vec_%s_%s" % (label, ksp_type))
            stage.push()
            solve(A, ksp_type, "jacobi", b, x, prefix="fl_")
            stage.pop()
            res[(label, ksp_type)] = events_of(stage)
    for ksp_type in ("cg", "gmres"):
        s, h = dict(res[("standard", ksp_type)]), dict(res[("hybrid", ksp_type)])
        # VecMAXPBY (GMRES's solution update from PETSc 3.20): the standard vectors have no maxpby operation,
        # so PETSc does VecSet(y, 0) (logged) and VecMAXPY; the hybrid vectors do it in one pass, one
        # VecMAXPY event; the flops are the same (a VecSet has none)
        ss, hs = s.pop("VecSet"), h.pop("VecSet")
        assert hs[0] <= ss[0] and hs[1] == ss[1] == 0.0, (ksp_type, ss, hs)
        if PETSc.Sys.getVersion() < (3, 20, 0):
            assert hs == ss, (ksp_type, ss, hs)
        assert s == h, "%s: the Vec events differ:\n standard %s\n hybrid   %s" % (ksp_type, s, h)
        assert s["VecTDot"][1] + s["VecDot"][1] > 0 if ksp_type == "cg" else s["VecMDot"][1] > 0, s
    info["flops_cg"] = {k: v for k, v in res[("hybrid", "cg")].items() if v[0]}


def check_view():
    v = ph.create_vec((None, 100), nthreads=2)
    fd, path = tempfile.mkstemp(suffix=".txt")
    os.close(fd)
    path = C.comm.bcast(path, root=0)
    vw = PETSc.Viewer().createASCII(path, comm=PETSc.COMM_WORLD)
    vw.pushFormat(PETSc.Viewer.Format.ASCII_INFO)
    v.view(vw)
    vw.popFormat()
    vw.destroy()
    C.comm.Barrier()
    if C.rank() == 0:
        text = open(path).read()
        os.remove(path)
        assert "type: %s" % v.getType() in text and "Hybrid vector: 2 threads per rank" in text, text
        info["view"] = text


for name in ("matcreatevecs", "options", "dm", "solves", "gamg", "standard", "flops", "view"):
    checks.run(name, globals()["check_" + name])

C.report(checks.result())
