"""Products: MatMult, MatMultAdd (z distinct and z == y), MatMultTranspose and MatMultTransposeAdd
(distinct and aliased) of aijhybrid match MATAIJ (relative error <= 1e-13, and bitwise equal to AIJ
without its inode kernel: the order SeqAIJ uses) on seeded random
matrices (tiny, ranks owning no rows, empty rows, rectangular, block size 2/3, block diagonal by
rank, heavy rows), at 1/2/4 ranks and OMP_NUM_THREADS 1/2/3; the results are bitwise identical for
1, 2 and 3 threads and all four partition types in one process, and across launches with
different OMP_NUM_THREADS (sha256 of the gathered result vectors).
"""

import pytest

from conftest import RANKS, THREADS, cached_worker

pytestmark = pytest.mark.mpi

N_CASES = 18  # cases in workers/products.py: a vanished case must fail, not pass silently
TIMEOUT = 300  # every case x modes x partitions x threads x shares x prefetch: minutes on 2 loaded cores (a hang is still caught)


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("ranks", RANKS)
def test_products_match_aij_and_thread_invariant(ranks, threads):
    run = cached_worker("products", ranks, threads, timeout=TIMEOUT)
    res = run.check()
    bad = {k: v for k, v in res["checks"].items() if v != "ok"}
    assert not bad, "failing cases:\n" + "\n".join("%s: %s" % kv for kv in bad.items())
    assert len(res["checks"]) == N_CASES, sorted(res["checks"])
    assert res["size"] == ranks
    assert res["max_rel_err"] <= 1e-13
    # the default thread count follows OMP_NUM_THREADS
    assert res["info"]["default_threads"] == threads, res["info"]
    assert len(res["hashes"]) == 6 * N_CASES
    # README: every row (column of a transpose) summed in the order SeqAIJ uses: every product bitwise
    # equal to AIJ's without its inode kernel (-mat_no_inode; the inode kernel adds pairs of products)
    assert len(res["bitwise_aij"]) == 6 * N_CASES and all(res["bitwise_aij"].values()), res["bitwise_aij"]


@pytest.mark.parametrize("ranks", RANKS)
def test_products_bitwise_identical_across_launches(ranks):
    hashes = {t: cached_worker("products", ranks, t, timeout=TIMEOUT).check()["hashes"] for t in THREADS}
    base = hashes[THREADS[0]]
    for t in THREADS[1:]:
        diff = sorted(k for k in base if hashes[t].get(k) != base[k])
        assert not diff, "results with OMP_NUM_THREADS=%d differ bitwise from OMP_NUM_THREADS=%d for %s" % (t, THREADS[0], diff)
        assert set(hashes[t]) == set(base)
