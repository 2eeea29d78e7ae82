"""The PetscSF type nodeaware as PETSc applications meet it (-sf_type nodeaware), against basic.

usage: sf.py [PETSc options]

In one process set, every object is built twice from the same input, once while the options
database holds -sf_type basic and once with -sf_type nodeaware -sf_nodeaware_node_size k (k = 0,
shared-memory nodes, and 1..ranks), and must give bitwise the same results:
  - VecScatter on random index sets (ranks scattering to any rank, repeated targets in reverse),
    block size 1 and 2, forward and reverse with INSERT/ADD/MAX/MIN, SCATTER_LOCAL, and a scatter of
    one vector onto itself (a reverse INSERT into a block targeted several times: one of their values);
  - DMDA (2D, periodic in x, box stencil, 2 dof, a width-2 halo): global-to-local, local-to-global
    with ADD (several local points of one global point);
  - MATMPIAIJ MatMult / MatMultTranspose (PETSc's own VecScatter) and a CG + Jacobi solve (same
    iterations, same solution);
and the node-aware SFs must have run node-aware (PetscSFNodeAwareGetStats' operation counts) except
where the type leaves an operation to basic (a floating-point reduction with repeated remote roots).
"""

import sys

import numpy as np

import common as C

C.init(sys.argv[1:])
PETSc, ph = C.PETSc, C.ph
checks = C.Checks()
P, me = C.size(), C.rank()
OPTS = PETSc.Options()
REAL = np.dtype(PETSc.ScalarType).kind != "c"


def with_sf_type(kind, k, fn):
    """fn() with -sf_type kind (and the node size) in the options database."""
    OPTS["sf_type"] = kind
    if kind == "nodeaware":
        OPTS["sf_nodeaware_node_size"] = str(k)
    try:
        return fn()
    finally:
        OPTS.delValue("sf_type")
        if kind == "nodeaware":
            OPTS.delValue("sf_nodeaware_node_size")


def same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    ok = a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8))
    assert C.allok(ok), "%s: nodeaware differs from basic" % what


def vals(rng, n):
    v = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n))
    if not REAL:
        v = v + 1j * rng.standard_normal(n)
    return v.astype(PETSc.ScalarType)


def replace_check(xb, xn, ix, y0, bs, nx, what):
    """A reverse INSERT: an x block targeted once equals basic's; one targeted several times holds
    one of the values sent to it (which one is not defined: basic receives straight into x, in the
    order messages arrive)."""
    ixs, ys = C.comm.allgather(np.asarray(ix)), C.comm.allgather(np.asarray(y0))
    x0 = sum(nx[:me])
    cand = {}
    for r in range(P):
        for i, b in enumerate(ixs[r]):
            cand.setdefault(int(b), []).append(ys[r][bs * i:bs * i + bs].tobytes())
    ok = True
    for lb in range(nx[me]):
        got = xn[bs * lb:bs * lb + bs]
        c = cand.get(x0 + lb, [])
        if len(c) <= 1:
            ok = ok and got.tobytes() == xb[bs * lb:bs * lb + bs].tobytes()
        else:
            ok = ok and got.tobytes() in c
    assert C.allok(ok), "%s: nodeaware differs from basic, or a block holds none of the values sent to it" % what


def scatter_case(seed, k):
    rng = np.random.default_rng(seed)  # the same on every rank
    bs = 1 + seed % 2
    nx = [int(rng.integers(0, 9)) for _ in range(P)]
    ny = [int(rng.integers(0, 12)) for _ in range(P)]
    NX = sum(nx)
    lrng = np.random.default_rng(1000 * seed + me)
    x = PETSc.Vec().createMPI((bs * nx[me], bs * NX), bsize=bs, comm=PETSc.COMM_WORLD)
    y = PETSc.Vec().createMPI((bs * ny[me], bs * sum(ny)), bsize=bs, comm=PETSc.COMM_WORLD)
    ystart = sum(ny[:me])
    # y's local block i takes x's block ix[i] (any rank); the targets are y's own blocks (general IS)
    ix = lrng.integers(0, NX, ny[me]) if NX else np.zeros(0, dtype=int)
    if NX == 0:
        ny_me = 0
    else:
        ny_me = ny[me]
    isx = PETSc.IS().createBlock(bs, ix[:ny_me].astype(PETSc.IntType), comm=PETSc.COMM_WORLD)
    isy = PETSc.IS().createBlock(bs, (ystart + np.arange(ny_me)).astype(PETSc.IntType), comm=PETSc.COMM_WORLD)
    sc = {}
    for kind in ("basic", "nodeaware"):
        sc[kind] = with_sf_type(kind, k, lambda: PETSc.Scatter().create(x, isx, y, isy))
        assert sc[kind].getType() == kind, sc[kind].getType()
    x0, y0 = vals(lrng, bs * nx[me]), vals(lrng, bs * ny[me])
    modes = [(PETSc.InsertMode.INSERT_VALUES, "insert"), (PETSc.InsertMode.ADD_VALUES, "add")]
    if REAL:
        modes += [(PETSc.InsertMode.MAX_VALUES, "max"), (getattr(PETSc.InsertMode, "MIN_VALUES", 4), "min")]  # petsc4py 3.18 names no MIN_VALUES (4 in PETSc)
    for addv, aname in modes:
        for mode, mname in ((PETSc.ScatterMode.FORWARD, "forward"), (PETSc.ScatterMode.REVERSE, "reverse"), (PETSc.ScatterMode.FORWARD_LOCAL, "forward_local")):
            out = {}
            for kind in ("basic", "nodeaware"):
                x.setArray(x0)
                y.setArray(y0)
                if mode == PETSc.ScatterMode.REVERSE:
                    sc[kind].scatter(y, x, addv, mode)
                    out[kind] = (x.getArray().copy(), y.getArray().copy())
                else:
                    sc[kind].scatter(x, y, addv, mode)
                    out[kind] = (x.getArray().copy(), y.getArray().copy())
            what = "scatter seed %d bs %d k %d %s %s (x)" % (seed, bs, k, aname, mname)
            if addv == PETSc.InsertMode.INSERT_VALUES and mode == PETSc.ScatterMode.REVERSE:
                replace_check(out["basic"][0], out["nodeaware"][0], ix[:ny_me], y0, bs, nx, what)
            else:
                same(out["basic"][0], out["nodeaware"][0], what)
            same(out["basic"][1], out["nodeaware"][1], "scatter seed %d bs %d k %d %s %s (y)" % (seed, bs, k, aname, mname))
    st = ph.sf_get_stats(sc["nodeaware"])
    assert st["ops_nodeaware"] > 0, st
    for s in sc.values():
        s.destroy()
    for o in (x, y, isx, isy):
        o.destroy()


def self_scatter(k):
    """A scatter of one vector onto itself (x[i] -> x[n-1-i] over the whole vector), in place."""
    n = 5 + P
    x = PETSc.Vec().createMPI((n, n * P), comm=PETSc.COMM_WORLD)
    rs = x.getOwnershipRange()[0]
    N = n * P
    isf = PETSc.IS().createGeneral(np.arange(rs, rs + n, dtype=PETSc.IntType), comm=PETSc.COMM_WORLD)
    ist = PETSc.IS().createGeneral((N - 1 - np.arange(rs, rs + n)).astype(PETSc.IntType), comm=PETSc.COMM_WORLD)
    out = {}
    for kind in ("basic", "nodeaware"):
        sc = with_sf_type(kind, k, lambda: PETSc.Scatter().create(x, isf, x, ist))
        x.setArray(np.arange(rs, rs + n, dtype=float).astype(PETSc.ScalarType) + 0.5)
        sc.scatter(x, x, PETSc.InsertMode.ADD_VALUES, PETSc.ScatterMode.FORWARD)
        out[kind] = x.getArray().copy()
        sc.destroy()
    same(out["basic"], out["nodeaware"], "scatter of a vector onto itself, k %d" % k)
    for o in (x, isf, ist):
        o.destroy()


def dmda_case(k):
    out = {}
    for kind in ("basic", "nodeaware"):
        def make():
            da = PETSc.DMDA().create(dim=2, sizes=(7 + P, 5), dof=2, stencil_width=2, stencil_type=PETSc.DMDA.StencilType.BOX,
                                     boundary_type=(PETSc.DM.BoundaryType.PERIODIC, PETSc.DM.BoundaryType.NONE), comm=PETSc.COMM_WORLD)
            da.setUp()
            g, l = da.createGlobalVec(), da.createLocalVec()  # the scatters are made with the DM
            return da, g, l
        da, g, l = with_sf_type(kind, k, make)
        rng = np.random.default_rng(77 + me)
        g.setArray(vals(rng, g.getLocalSize()))
        da.globalToLocal(g, l, addv=PETSc.InsertMode.INSERT_VALUES)
        r1 = l.getArray().copy()
        l.setArray(vals(rng, l.getLocalSize()))
        g.set(0.25)
        da.localToGlobal(l, g, addv=PETSc.InsertMode.ADD_VALUES)
        r2 = g.getArray().copy()
        out[kind] = (r1, r2)
        for o in (g, l, da):
            o.destroy()
    for i, what in enumerate(("globalToLocal", "localToGlobal ADD")):
        same(out["basic"][i], out["nodeaware"][i], "DMDA %s, k %d" % (what, k))


def aij_case(k):
    case = C.Case("aij_sf", 90, 90, 21, density=6.0, diag=True)
    mats = {kind: with_sf_type(kind, k, lambda: case.create("aij")) for kind in ("basic", "nodeaware")}
    xs = C.rand_vec(mats["basic"].createVecRight(), 3)
    xl = C.rand_vec(mats["basic"].createVecLeft(), 4)
    res = {}
    for kind, A in mats.items():
        y, z = A.createVecLeft(), A.createVecRight()
        A.mult(xs, y)
        A.multTranspose(xl, z)
        ksp = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
        ksp.setOperators(A)
        ksp.setType("cg")
        ksp.getPC().setType("jacobi")
        ksp.setTolerances(rtol=1e-10)
        b = xl.duplicate()
        b.set(1.0)
        sol = b.duplicate()
        ksp.solve(b, sol)
        res[kind] = (y.getArray().copy(), z.getArray().copy(), sol.getArray().copy(), ksp.getIterationNumber())
        for o in (y, z, ksp, b, sol):
            o.destroy()
    same(res["basic"][0], res["nodeaware"][0], "aij MatMult, k %d" % k)
    same(res["basic"][1], res["nodeaware"][1], "aij MatMultTranspose, k %d" % k)
    same(res["basic"][2], res["nodeaware"][2], "aij CG solution, k %d" % k)
    assert res["basic"][3] == res["nodeaware"][3], res
    if P > 1:  # aij's own VecScatter is node-aware: its statistics equal those of the same pattern's SF
        st = ph.get_exchange_stats(mats["nodeaware"], node_size=k)
        checks.info.setdefault("aij_inter_msgs", {})[str(k)] = (st["total"]["basic"]["inter_msgs"], st["total"]["nodeaware"]["inter_msgs"])
    for o in list(mats.values()) + [xs, xl]:
        o.destroy()


for k in range(P + 1):
    for seed in range(4):
        checks.run("scatter_seed_%d_k%d" % (seed, k), scatter_case, seed, k)
    checks.run("self_scatter_k%d" % k, self_scatter, k)
    checks.run("dmda_k%d" % k, dmda_case, k)
    checks.run("aij_k%d" % k, aij_case, k)
C.report(checks.result(size=P))
