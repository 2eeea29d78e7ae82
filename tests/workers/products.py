"""Products worker: every multiply variant of aijhybrid against MATAIJ on seeded random matrices,
bitwise identical across thread counts (1, 2, 3 set in-process), partition types and modes
(vector, task); prints the
sha256 of each gathered default-thread result so that pytest can compare launches made with
different OMP_NUM_THREADS.

usage: products.py [PETSc options]
"""

import sys

import numpy as np

import common as C

C.init(sys.argv[1:])
PETSc, ph = C.PETSc, C.ph
RTOL = 1e-13


def cases():
    meta = np.random.default_rng(20240611)
    cs = [
        C.Case("tiny_1x1", 1, 1, 1, density=1.0, diag=True),
        C.Case("tiny_2x3", 2, 3, 2, density=2.0),
        C.Case("tiny_3x2", 3, 2, 3, density=2.0, build="values"),
        C.Case("square_random_sizes", 37, 37, 4, rpat="random", density=4.0),
        C.Case("rank_without_rows_middle", 120, 120, 5, rpat="zero_middle", density=5.0, diag=True),
        C.Case("rect_zero_first_rows_zero_last_cols", 90, 150, 6, rpat="zero_first", cpat="zero_last", density=6.0),
        C.Case("empty_rows", 100, 100, 7, empty=0.4, density=4.0),
        C.Case("tall", 200, 50, 8, density=3.0, build="values"),
        C.Case("wide", 50, 200, 9, density=8.0),
        C.Case("bs2", 96, 96, 10, bs=2, density=6.0, build="values"),
        C.Case("bs3_rect", 99, 63, 11, bs=3, density=5.0),
        C.Case("block_diagonal_by_rank", 160, 160, 12, blockdiag=True, density=5.0, build="convert"),
        C.Case("heavy_rows", 150, 150, 13, rpat="random", heavy=3, density=3.0),
        C.Case("all_rows_empty", 20, 20, 14, density=0.0),
        C.Case("converted_random", 80, 80, 15, density=7.0, build="convert"),
    ]
    for k in range(3):
        M, N = (int(v) for v in meta.integers(1, 70, size=2))
        cs.append(C.Case("random_size_%d_%dx%d" % (k, M, N), M, N, 100 + k, rpat=("random", "decide", "zero_last")[k], cpat="random", density=float(meta.uniform(0.5, 6))))
    return cs


checks = C.Checks()
bitwise = {}  # case/variant -> bitwise equal to aij without inodes
inode_diff = {}  # case/variant -> differs in bits from aij as assembled (its inode kernel)
hashes = {}
errors = {}


def run_case(case):
    Aa = case.create("aij")
    Ah = case.create("aijhybrid")
    Ap = case.create("aij", inodes=False)  # AIJ's plain kernel: rows summed in stored order
    assert Ah.getType() == ("seqaijhybrid" if C.size() == 1 else "mpiaijhybrid"), Ah.getType()
    assert Ah.getBlockSize() == case.bs, (Ah.getBlockSize(), case.bs)
    default_threads = ph.get_num_threads(Ah)
    any_ghosts = False
    if C.size() > 1:
        from mpi4py import MPI

        c0, c1 = Aa.getOwnershipRangeColumn()
        cols = Aa.getValuesCSR()[1]
        any_ghosts = C.comm.allreduce(bool(np.any((cols < c0) | (cols >= c1))), op=MPI.LOR)
    checks.info["default_threads"] = default_threads
    for vname, fn, scale in C.product_variants(Aa):
        ref = fn(Aa)
        base = fn(Ah)
        err = C.rel_err(base, ref, scale if scale > 0 else None)
        errors["%s/%s" % (case.name, vname)] = err
        assert err <= RTOL, "%s: relative error %g > %g against aij" % (vname, err, RTOL)
        hashes["%s/%s" % (case.name, vname)] = C.sha(base)
        # the order SeqAIJ uses (README): forward products bitwise equal to AIJ's without inodes
        plain = fn(Ap)
        equal = C.same_bits(base, plain)
        bitwise["%s/%s" % (case.name, vname)] = equal
        assert equal, "%s: not bitwise equal to aij's product (inodes off), relative difference %g" % (vname, C.rel_err(base, plain))
        inode_diff["%s/%s" % (case.name, vname)] = not C.same_bits(base, ref)  # aij with its inode kernel where it chose it
        plain.destroy()
        again = fn(Ah)
        assert C.same_bits(again, base), "%s: repeated product differs" % vname
        for mode in ("vector", "task"):
            ph.set_mode(Ah, mode)
            for part in C.PARTITIONS:
                ph.set_partition_type(Ah, part)
                for t in (1, 2, 3):
                    ph.set_num_threads(Ah, t)
                    y = fn(Ah)
                    assert C.same_bits(y, base), "%s: mode %s, partition %s with %d threads differs bitwise from the default (%d threads, nnz, auto)" % (vname, mode, part, t, default_threads)
                    if vname == "mult":
                        C.check_partition(Ah, t)
                        info = ph.get_partition_info(Ah)
                        assert info["type"] == part, info
                        expect = "task" if (mode == "task" and t > 1 and C.size() > 1 and any_ghosts) else "vector"
                        assert ph.get_mode(Ah) == expect, (ph.get_mode(Ah), expect, mode, t)
                    y.destroy()
        # thread 0's task-mode share of the diagonal block, fixed and measured (resized after 16 products,
        # then compared with share 1: None while measured)
        ph.set_mode(Ah, "task")
        for share in (0.0, 0.5, 1.0, None):
            ph.set_task_share(Ah, share)
            for t in (2, 3):
                ph.set_num_threads(Ah, t)
                for _ in range(20 if share is None else 1):
                    y = fn(Ah)
                    assert C.same_bits(y, base), "%s: task share %s with %d threads differs bitwise" % (vname, share, t)
                    y.destroy()
                got, in_use = ph.get_task_share(Ah)
                assert got == share and (in_use is None or 0.0 <= in_use <= 1.0), (got, in_use, share)
                if share is not None:
                    assert in_use == share, (in_use, share)
                if vname == "mult":
                    C.check_partition(Ah, t)
        ph.set_task_share(Ah, None)
        # software prefetch: fixed distances (1: every next line; 10^6: past every array end, capped)
        # and measured (src/mat/tune.c: settled within a warm-up pair and 3 trials of 16 pairs of forward
        # products in vector mode, the re-trials following at once; in task mode it waits while thread 0's
        # share is measured); results never depend on it
        for pd in (0, 1, 8, 512, 10**6, None):
            ph.set_prefetch(Ah, pd)
            for mode in ("vector", "task"):
                ph.set_mode(Ah, mode)
                for t in (1, 2, 3):
                    ph.set_num_threads(Ah, t)
                    for _ in range(2 * (1 + 3 * 16) if pd is None else 1):
                        y = fn(Ah)
                        assert C.same_bits(y, base), "%s: prefetch %s, mode %s with %d threads differs bitwise" % (vname, pd, mode, t)
                        y.destroy()
                    got, in_use = ph.get_prefetch(Ah)
                    assert got == pd, (got, pd)
                    if pd is not None:
                        assert in_use == pd, (in_use, pd)
                    elif "Transpose" not in vname and ph.get_mode(Ah) == "vector":  # the transposes do not prefetch and are not measured
                        assert in_use in (0, 512), "measured prefetch not settled after 98 products: %s" % (in_use,)
                    else:
                        assert in_use in (None, 0, 512), in_use
        ph.set_prefetch(Ah, None)
        ph.set_mode(Ah, "auto")
        # first touch: copies of the blocks placed by their threads, refreshed when the values change
        ph.set_first_touch(Ah, True)
        assert ph.get_first_touch(Ah)
        for mode in ("vector", "task"):
            ph.set_mode(Ah, mode)
            for t in (1, 2, 3):
                ph.set_num_threads(Ah, t)
                y = fn(Ah)
                assert C.same_bits(y, base), "%s: first touch, mode %s with %d threads differs bitwise" % (vname, mode, t)
                y.destroy()
        for A in (Aa, Ah):
            A.scale(2.0)
        y, r = fn(Ah), fn(Aa)
        assert C.rel_err(y, r, 2 * scale if scale > 0 else None) <= RTOL, "%s: first touch after MatScale" % vname
        for v in (y, r):
            v.destroy()
        for A in (Aa, Ah):
            A.scale(0.5)
        y = fn(Ah)
        assert C.same_bits(y, base), "%s: first touch after scaling back" % vname
        y.destroy()
        ph.set_first_touch(Ah, False)
        ph.set_num_threads(Ah, None)
        ph.set_partition_type(Ah, "nnz")
        ph.set_mode(Ah, "auto")
        assert ph.get_num_threads(Ah) == default_threads
        for v in (ref, base, again):
            v.destroy()
    Aa.destroy()
    Ah.destroy()
    Ap.destroy()


for case in cases():
    checks.run(case.name, run_case, case)

import os  # noqa: E402

C.report(checks.result(bitwise_aij=bitwise, differs_from_inode_aij=sorted(k for k, v in inode_diff.items() if v), hashes=hashes, max_rel_err=max(errors.values()) if errors else 0.0, omp_num_threads=os.environ.get("OMP_NUM_THREADS"), size=C.size()))
