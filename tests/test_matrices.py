"""Benchmark matrix generators (aijhybrid_bench.matrices) at tiny sizes, at 1/2/4 ranks: each case
assembled identically as aij, aijhybrid, sell and aijperm with exact preallocation; symmetric,
positive diagonal, positive definite, the expected nonzeros per row, equal to an independent
construction, solvable by CG + Jacobi; bitwise the same global matrix at every rank count and when
generated in small chunks; PETSc binary and MatrixMarket round trips; argument errors.
"""

import pytest

from conftest import RANKS, cached_worker

pytestmark = pytest.mark.mpi

CASES = [
    "poisson7",
    "poisson27",
    "twozone",
    "twozone_half",
    "extruded",
    "extruded_layer",
    "extruded_1layer_seed3",
    "powerlaw",
    "powerlaw_random",
]
CASE_CHECKS = ["assemble", "properties", "reference", "cg"]
OTHER_CHECKS = ["small_chunks", "file:write", "file:binary", "file:mtx", "file:mtx_symmetric", "errors"]


def worker(ranks):
    return cached_worker("matrices", ranks, 2)


@pytest.mark.parametrize("ranks", RANKS)
def test_all_checks_present(ranks):
    res = worker(ranks).check()
    assert res["size"] == ranks
    assert res["cases"] == CASES
    want = {"%s:%s" % (c, k) for c in CASES for k in CASE_CHECKS} | set(OTHER_CHECKS)
    assert set(res["checks"]) == want


@pytest.mark.parametrize("check", CASE_CHECKS)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("ranks", RANKS)
def test_generator(ranks, case, check):
    status = worker(ranks).check()["checks"]["%s:%s" % (case, check)]
    assert status == "ok", status


@pytest.mark.parametrize("check", OTHER_CHECKS)
@pytest.mark.parametrize("ranks", RANKS)
def test_chunks_files_errors(ranks, check):
    status = worker(ranks).check()["checks"][check]
    assert status == "ok", status


@pytest.mark.parametrize("ranks", RANKS[1:])
def test_identical_matrix_at_any_rank_count(ranks):
    base = worker(RANKS[0]).check()["hashes"]
    here = worker(ranks).check()["hashes"]
    assert set(base) == set(CASES) | {"file"}
    diff = sorted(c for c in base if here.get(c) != base[c])
    assert not diff, "global matrix at %d ranks differs from %d rank(s) for %s" % (ranks, RANKS[0], diff)


def test_twozone_rows_imbalanced():
    """Equal row halves of the two-zone matrix differ by at least 1.5x in nonzeros (2 threads)."""
    info = worker(1).check()["info"]
    assert info["twozone"]["imbalance"] >= 1.5, info["twozone"]
