"""Sparse matrix products of aijhybrid (MatMatMult, MatTransposeMatMult, MatMatTransposeMult,
MatPtAP, MatRARt; src/mat/matproduct.c, matproductmpi.c) and MatTranspose (src/mat/transpose.c) against MATAIJ's, at 1/2/4 ranks and
OMP_NUM_THREADS 1/2/3 (tests/workers/spgemm.py): the pattern equal to AIJ's, the values within
1e-12 relative to the largest entry (on one rank bit for bit PETSc's seqaij values), the result aijhybrid with the first operand's settings,
bitwise equal with 1, 2, 3 and 4 threads set on the operands and across launches with different
OMP_NUM_THREADS, MAT_REUSE_MATRIX after new values of either operand; square, rectangular, empty
rows, a rank owning no rows, no ghost columns, below the one-thread cutoff; the coarse levels of
PCGAMG (operators and interpolations, made by the plugin's products: its log event counted) and PCMG
(Galerkin) are aijhybrid and equal to AIJ's within 1e-10 (a hierarchy compounds the
rounding of its levels and, for PCGAMG, of its eigenvalue estimates). The MatProduct API itself
(tests/unit/matproduct_api.c): Create/SetType/SetAlgorithm/SetFromOptions/Symbolic/Numeric,
ReplaceMats, Clear, PETSc's algorithms by name and by option, mixed operand types,
MAT_FORCE_DIAGONAL_ENTRIES. The kernels:
tests/unit/test_spgemm.c.
"""

import os
import re
import subprocess

import pytest

import mpirun
from conftest import RANKS, THREADS, cached_worker

pytestmark = pytest.mark.mpi

CHECKS = {"square", "rectangular_empty", "blockdiag", "tiny", "transpose_threaded", "gamg", "pcmg_galerkin"}
PRODUCTS = ("AB", "AtB", "ABt", "PtAP", "RARt", "At")
CASES = ("square", "empty", "blockdiag", "tiny")
TIMEOUT = 600  # four cases x five products x four thread counts, GAMG and PCMG twice: minutes on 2 loaded cores


def spgemm(ranks, threads):
    return cached_worker("spgemm", ranks, threads, timeout=TIMEOUT)


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("ranks", RANKS)
def test_products_match_aij(ranks, threads):
    res = spgemm(ranks, threads).check()
    assert set(res["checks"]) == CHECKS, sorted(res["checks"])
    bad = {k: v for k, v in res["checks"].items() if v != "ok"}
    assert not bad, "failing checks:\n" + "\n".join("%s: %s" % kv for kv in bad.items())
    assert res["size"] == ranks
    assert res["info"]["max_rel_err"] <= 1e-12
    assert res["info"]["max_rel_err_hierarchy"] <= 1e-10
    assert set(res["hashes"]) == {"%s_%s" % (c, p) for c in CASES for p in PRODUCTS}


@pytest.mark.parametrize("ranks", RANKS)
def test_coarse_levels_are_aijhybrid(ranks):
    info = spgemm(ranks, THREADS[-1]).check()["info"]
    hyb = "seqaijhybrid" if ranks == 1 else "mpiaijhybrid"
    assert info["gamg_levels"] >= 3 and info["gamg_types"] == [hyb] * info["gamg_levels"], info["gamg_types"]
    assert info["gamg_interp_types"] == [hyb] * (info["gamg_levels"] - 1), info["gamg_interp_types"]
    assert info["pcmg_types"] == [hyb] * 3, info["pcmg_types"]


@pytest.mark.parametrize("ranks", RANKS)
def test_products_bitwise_across_launches(ranks):
    hashes = {t: spgemm(ranks, t).check()["hashes"] for t in THREADS}
    base = hashes[THREADS[0]]
    for t in THREADS[1:]:
        diff = sorted(k for k in base if hashes[t].get(k) != base[k])
        assert not diff, "products with OMP_NUM_THREADS=%d differ bitwise from OMP_NUM_THREADS=%d: %s" % (t, THREADS[0], diff)


def test_spgemm_kernels():
    exe = os.path.join(str(mpirun.BUILD), "tests", "test_spgemm")
    assert os.path.exists(exe), "build the unit tests first: make unit"
    out = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    npass, nfail = (int(v) for v in re.search(r"(\d+) passed, (\d+) failed", out.stdout).groups())
    assert nfail == 0 and npass >= 1400, out.stdout[-2000:]


@pytest.mark.parametrize("ranks", RANKS)
def test_matproduct_api(ranks):
    exe = os.path.join(str(mpirun.BUILD), "tests", "matproduct_api")
    assert os.path.exists(exe), "build the unit tests first: make unit"
    run = mpirun.run([exe, "-malloc_debug", "-malloc_dump"], ranks=ranks, threads=2)
    assert run.rc == 0, run.describe()
    m = re.search(r"matproduct_api: (\d+) checks passed", run.output)
    assert m and int(m.group(1)) >= 100, run.describe()
    leaks = [l for l in run.output.splitlines() if re.match(r"\s*\[\s*\d+\]\s*\d+ bytes", l)]
    assert not leaks, "unfreed memory:\n" + "\n".join(leaks)
