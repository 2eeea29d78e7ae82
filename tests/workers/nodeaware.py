"""The matrix's node-aware halo exchange (a PetscSF of type nodeaware) worker.

usage: nodeaware.py products   -- every product of aijhybrid with the node-aware halo SF against MATAIJ
       nodeaware.py poisson    -- 3D 7-point Poisson, 16 ranks as 4 emulated nodes of 4: message counts
       nodeaware.py view       -- options, -help, MatView and PetscSFView lines
followed by PETSc options.

Expected message counts are computed here from the gathered ghost pattern, independently of the
library: a basic PetscSF sends one message per (owner, requesting rank) pair; the node-aware one
sends one inter-node message per ordered node pair with traffic, of the union of what the ranks of
the receiving node need from the sending node.
"""

import sys

import numpy as np

import common as C

MODE = sys.argv[1]
C.init(sys.argv[2:])
PETSc, ph = C.PETSc, C.ph
RTOL = 1e-13
checks = C.Checks()
SCALAR = np.dtype(PETSc.ScalarType).itemsize


def node_of(r, k):
    """Node of rank r for emulated nodes of k ranks; None: one machine, so one shared-memory node."""
    return 0 if k is None else r // k


def expected_counts(ghosts_all, ranges, k):
    """Totals expected from the pattern: {'std_inter', 'std_on', 'std_inter_bytes', 'na_inter',
    'na_inter_bytes', 'node_pairs', 'rank_pairs'}; ghosts_all[r] = global indices rank r needs."""
    P = len(ghosts_all)
    owner = lambda g: int(np.searchsorted(ranges, g, side="right") - 1)  # noqa: E731
    rank_pairs = {}
    unions = {}
    for r in range(P):
        for g in ghosts_all[r]:
            q = owner(int(g))
            if q == r:
                continue
            rank_pairs[(q, r)] = rank_pairs.get((q, r), 0) + 1
            M, N = node_of(q, k), node_of(r, k)
            if M != N:
                unions.setdefault((M, N), set()).add(int(g))
    e = dict(std_inter=0, std_on=0, std_inter_bytes=0)
    for (q, r), n in rank_pairs.items():
        inter = node_of(q, k) != node_of(r, k)
        e["std_inter" if inter else "std_on"] += 1
        if inter:
            e["std_inter_bytes"] += n * SCALAR
    e["na_inter"] = len(unions)
    e["na_inter_bytes"] = sum(len(u) for u in unions.values()) * SCALAR
    e["node_pairs"] = len(unions)
    e["rank_pairs_inter"] = e["std_inter"]
    return e


def check_stats(st, exp, k, what):
    P = C.size()
    t = st["total"]
    nnodes = 1 if k is None else (P + k - 1) // k
    assert st["nodes"] == nnodes, (what, st["nodes"], nnodes)
    assert t["basic"]["inter_msgs"] == exp["std_inter"], (what, t["basic"], exp)
    assert t["basic"]["on_msgs"] == exp["std_on"], (what, t["basic"], exp)
    assert t["basic"]["inter_bytes"] == exp["std_inter_bytes"], (what, t["basic"], exp)
    assert t["nodeaware"]["inter_msgs"] == exp["na_inter"], (what, t["nodeaware"], exp)
    assert t["nodeaware"]["inter_bytes"] == exp["na_inter_bytes"], (what, t["nodeaware"], exp)
    assert t["nodeaware_reverse"]["inter_msgs"] == exp["na_inter"], (what, t["nodeaware_reverse"], exp)
    assert t["nodeaware_reverse"]["inter_bytes"] >= t["nodeaware"]["inter_bytes"], (what, t)
    assert t["nodeaware"]["inter_msgs"] <= nnodes * (nnodes - 1), (what, t["nodeaware"])
    # the totals are the sums of the per-rank figures
    for kind in ("basic", "nodeaware", "nodeaware_reverse"):
        for f in ("inter_msgs", "on_msgs", "inter_bytes", "on_bytes"):
            assert C.comm.allreduce(st["rank"][kind][f]) == t[kind][f], (what, kind, f)


# ------------------------------------------------------------------------------------------------
def ghost_pattern(A):
    """Every rank's ghost columns (global) and the column ranges, from A's local rows."""
    ia, ja, _ = A.getValuesCSR()
    c0, c1 = A.getOwnershipRangeColumn()
    mine = np.unique(ja[(ja < c0) | (ja >= c1)]).astype(PETSc.IntType)
    ghosts_all = C.comm.allgather(mine)
    ranges = np.array(A.getOwnershipRangesColumn(), dtype=np.int64)
    return ghosts_all, ranges


def products_case(case):
    Aa = case.create("aij")
    Ah = case.create("aijhybrid")
    base = {}
    var = C.product_variants(Aa)
    for vname, fn, scale in var:
        ref = fn(Aa)
        b = fn(Ah)  # standard exchange
        err = C.rel_err(b, ref, scale if scale > 0 else None)
        assert err <= RTOL, "%s: standard exchange %g" % (vname, err)
        base[vname] = (b, ref, scale)
    mpi = C.size() > 1
    for k in (1, 2, None) if mpi else (None,):
        ph.set_node_aware(Ah, True)
        ph.set_node_size(Ah, k)
        assert ph.get_node_aware(Ah) and ph.get_node_size(Ah) == (k or 0)
        for mode in ("vector", "task"):
            ph.set_mode(Ah, mode)
            for t in (1, 2, 3):
                ph.set_num_threads(Ah, t)
                for vname, fn, _ in var:
                    b, ref, scale = base[vname]
                    for rep in range(2):
                        y = fn(Ah)
                        err = C.rel_err(y, ref, scale if scale > 0 else None)
                        assert err <= RTOL, "%s node size %s mode %s threads %d: relative error %g against aij" % (vname, k, mode, t, err)
                        assert C.same_bits(y, b), "%s node size %s mode %s threads %d: differs bitwise from the standard exchange" % (vname, k, mode, t)
                        y.destroy()
        if mpi:
            ghosts_all, ranges = ghost_pattern(Aa)
            st = ph.get_exchange_stats(Ah)
            check_stats(st, expected_counts(ghosts_all, ranges, k), k, case.name)
            # the halo SF is node-aware and ran every product's exchange node-aware (none on its basic SF)
            assert st["node_aware"] and st["ops_nodeaware"] > 0 and st["ops_basic"] == 0, (case.name, k, st["node_aware"], st["ops_nodeaware"], st["ops_basic"])
    ph.set_node_aware(Ah, False)
    for vname, fn, _ in var:  # and back to the standard exchange
        y = fn(Ah)
        assert C.same_bits(y, base[vname][0]), vname
        y.destroy()
    for b, ref, _ in base.values():
        b.destroy()
        ref.destroy()
    Aa.destroy()
    Ah.destroy()


def pattern_change():
    """Products, then new off-process nonzeros and reassembly, then products: the exchange follows."""
    P, me = C.size(), C.rank()
    case = C.Case("pattern_change", 60, 60, 31, blockdiag=True, density=2.0, diag=True)  # no off-process part at first
    mats = {}
    for t in ("aij", "aijhybrid"):
        A = case.create(t)
        if t == "aijhybrid":
            ph.set_node_aware(A, True)
            ph.set_node_size(A, 1)
        mats[t] = A
    x = C.rand_vec(mats["aij"].createVecRight(), 5)
    counts = []
    for step in range(3):
        ya, yh = mats["aij"].createVecLeft(), mats["aij"].createVecLeft()
        for _ in range(2):  # repeated multiplies
            mats["aij"].mult(x, ya)
            mats["aijhybrid"].mult(x, yh)
            assert C.rel_err(yh, ya) <= RTOL, "step %d: mult" % step
        xt, ta, th = mats["aij"].createVecLeft(), mats["aij"].createVecRight(), mats["aij"].createVecRight()
        xt.setRandom()
        mats["aij"].multTranspose(xt, ta)
        mats["aijhybrid"].multTranspose(xt, th)
        assert C.rel_err(th, ta) <= RTOL, "step %d: multTranspose" % step
        if P > 1:
            st = ph.get_exchange_stats(mats["aijhybrid"])
            ghosts_all, ranges = ghost_pattern(mats["aij"])
            check_stats(st, expected_counts(ghosts_all, ranges, 1), 1, "pattern change step %d" % step)
            counts.append(st["total"]["basic"]["on_msgs"] + st["total"]["basic"]["inter_msgs"])
        # a new nonzero in a column owned by rank me + step + 1: one more neighbour per rank
        rs, re = mats["aij"].getOwnershipRange()
        cr = mats["aij"].getOwnershipRangesColumn()
        for A in mats.values():
            A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
            if re > rs:
                A.setValue(rs, int(cr[(me + step + 1) % P]), 1.5 + step, addv=PETSc.InsertMode.ADD_VALUES)
            A.assemble()
        for v in (ya, yh, xt, ta, th):
            v.destroy()
    if P > 1:
        checks.info["pattern_change_message_totals"] = counts
        assert counts[0] == 0 and counts[1] == P and counts[2] == (2 * P if P > 2 else P), counts
    for A in mats.values():
        A.destroy()


# ------------------------------------------------------------------------------------------------
def poisson16():
    """3D 7-point Poisson on an 8^3 grid over a 4 x 2 x 2 process grid (rank = px + 4 py + 8 pz, x
    fastest, as DMDA numbers them), nodes of 4 consecutive ranks (-mat_aijhybrid_node_size 4 in the
    options): every rank has one neighbour in y and one in z on other nodes, so each of the 8
    ordered pairs of neighbouring nodes (a 2 x 2 grid of nodes) carries 4 standard messages."""
    P, me = C.size(), C.rank()
    assert P == 16, P
    n, pgrid = 8, (4, 2, 2)
    box = [n // p for p in pgrid]
    nloc = box[0] * box[1] * box[2]

    def gidx(i, j, k):
        px, py, pz = i // box[0], j // box[1], k // box[2]
        r = px + pgrid[0] * (py + pgrid[1] * pz)
        li, lj, lk = i - px * box[0], j - py * box[1], k - pz * box[2]
        return r * nloc + li + box[0] * (lj + box[1] * lk)

    px, py, pz = me % 4, (me // 4) % 2, me // 8
    rows = {}
    for k in range(pz * box[2], (pz + 1) * box[2]):
        for j in range(py * box[1], (py + 1) * box[1]):
            for i in range(px * box[0], (px + 1) * box[0]):
                cols = {gidx(i, j, k): 6.0}
                for d in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
                    a, b, c = i + d[0], j + d[1], k + d[2]
                    if 0 <= a < n and 0 <= b < n and 0 <= c < n:
                        cols[gidx(a, b, c)] = -1.0
                rows[gidx(i, j, k)] = cols
    ia, ja, va = [0], [], []
    for g in sorted(rows):
        cs = sorted(rows[g])
        ja += cs
        va += [rows[g][c] for c in cs]
        ia.append(len(ja))
    csr = (np.array(ia, dtype=PETSc.IntType), np.array(ja, dtype=PETSc.IntType), np.array(va, dtype=PETSc.ScalarType))
    mats = {}
    for t in ("aij", "aijhybrid"):
        A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
        A.setSizes(((nloc, n ** 3), (nloc, n ** 3)))
        A.setType(t)
        A.setFromOptions()  # -mat_aijhybrid_node_aware -mat_aijhybrid_node_size 4 from the command line
        A.setPreallocationCSR(csr)
        A.assemble()
        mats[t] = A
    Ah = mats["aijhybrid"]
    assert ph.get_node_aware(Ah) and ph.get_node_size(Ah) == 4, (ph.get_node_aware(Ah), ph.get_node_size(Ah))
    x = C.rand_vec(Ah.createVecRight(), 3)
    ya, yh = Ah.createVecLeft(), Ah.createVecLeft()
    mats["aij"].mult(x, ya)
    for mode in ("vector", "task"):
        ph.set_mode(Ah, mode)
        Ah.mult(x, yh)
        assert C.rel_err(yh, ya) <= RTOL, mode
    mats["aij"].multTranspose(x, ya)
    Ah.multTranspose(x, yh)
    assert C.rel_err(yh, ya) <= RTOL, "transpose"
    ghosts_all, ranges = ghost_pattern(mats["aij"])
    exp = expected_counts(ghosts_all, ranges, 4)
    st = ph.get_exchange_stats(Ah)
    check_stats(st, exp, 4, "poisson")
    t = st["total"]
    nnodes = st["nodes"]
    inter_per_pair = {}
    for (q, r) in [(q, r) for r in range(P) for q in set(int(np.searchsorted(ranges, g, side="right") - 1) for g in ghosts_all[r]) if q != r]:
        if q // 4 != r // 4:
            inter_per_pair[(q // 4, r // 4)] = inter_per_pair.get((q // 4, r // 4), 0) + 1
    predicted = exp["rank_pairs_inter"] / exp["node_pairs"]
    measured = t["basic"]["inter_msgs"] / t["nodeaware"]["inter_msgs"]
    assert measured == predicted, (measured, predicted)
    assert t["nodeaware"]["inter_msgs"] <= nnodes * (nnodes - 1)
    checks.info.update(
        nodes=nnodes,
        standard_inter_msgs=t["basic"]["inter_msgs"],
        standard_inter_bytes=t["basic"]["inter_bytes"],
        standard_on_msgs=t["basic"]["on_msgs"],
        nodeaware_inter_msgs=t["nodeaware"]["inter_msgs"],
        nodeaware_inter_bytes=t["nodeaware"]["inter_bytes"],
        nodeaware_on_msgs=t["nodeaware"]["on_msgs"],
        node_pairs_with_traffic=exp["node_pairs"],
        inter_node_rank_pairs=exp["rank_pairs_inter"],
        rank_pairs_per_node_pair=sorted(inter_per_pair.values()),
        predicted_reduction=predicted,
        measured_reduction=measured,
        max_inter_msgs_one_rank=C.comm.allreduce(st["rank"]["nodeaware"]["inter_msgs"], op=__import__("mpi4py").MPI.MAX),
    )
    for v in (x, ya, yh):
        v.destroy()
    for A in mats.values():
        A.destroy()


def view():
    """Options from the database, then MatView at ASCII_INFO and ASCII_INFO_DETAIL (pytest reads stdout)."""
    case = C.Case("view", 40, 40, 3, density=3.0, diag=True)
    A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
    A.setSizes(case.sizes())
    A.setType("aijhybrid")
    A.setFromOptions()
    A.setPreallocationCSR(case.local_csr())
    A.assemble()
    checks.info["node_aware"] = ph.get_node_aware(A)
    checks.info["node_size"] = ph.get_node_size(A)
    for fmt in (PETSc.Viewer.Format.ASCII_INFO, PETSc.Viewer.Format.ASCII_INFO_DETAIL):
        v = PETSc.Viewer.STDOUT(PETSc.COMM_WORLD)
        v.pushFormat(fmt)
        A.view(v)
        v.popFormat()
    sf = ph.halo_sf(A)  # a node-aware SF of the same ghost pattern: PetscSFView
    ph.sf_set_node_size(sf, 1)
    sf.setUp()
    v = PETSc.Viewer.STDOUT(PETSc.COMM_WORLD)
    v.pushFormat(PETSc.Viewer.Format.ASCII_INFO_DETAIL)
    sf.view(v)
    v.popFormat()
    sf.destroy()
    try:
        ph.set_node_size(A, -3)
    except PETSc.Error:
        pass
    else:
        raise AssertionError("node size -3 accepted")
    A.destroy()


if MODE == "products":
    cs = [
        C.Case("square_random_sizes", 37, 37, 4, rpat="random", density=4.0),
        C.Case("rank_without_rows_middle", 120, 120, 5, rpat="zero_middle", density=5.0, diag=True),
        C.Case("rect_zero_first_rows_zero_last_cols", 90, 150, 6, rpat="zero_first", cpat="zero_last", density=6.0),
        C.Case("empty_rows", 100, 100, 7, empty=0.4, density=4.0),
        C.Case("block_diagonal_by_rank", 160, 160, 12, blockdiag=True, density=5.0, build="convert"),
        C.Case("bs2", 96, 96, 10, bs=2, density=6.0, build="values"),
    ]
    for case in cs:
        checks.run(case.name, products_case, case)
    checks.run("pattern_change", pattern_change)
elif MODE == "view":
    checks.run("view", view)
elif MODE == "poisson":
    checks.run("poisson16", poisson16)
else:
    raise SystemExit("unknown mode %s" % MODE)

C.report(checks.result(size=C.size()))
