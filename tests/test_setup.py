"""The threaded operations of a preconditioner's setup (issue 27 item 3) and the lazy halo exchange
(item 2):
- tests/unit/test_csrentry.c: the entry-wise kernels (scale, axpy on same, subset and union
  patterns, diagonal scaling, the diagonal) against plain references, bitwise, over random row splits;
- tests/workers/setupops.py at 1, 2, 4 ranks and 1 to 3 threads: MatAXPY (each MatStructure),
  MatAYPX, MatAXPY and MatCopy from an aij matrix, MatScale, MatDiagonalScale, MatGetDiagonal of aijhybrid bit for bit equal to aij's from
  the same input, the result still aijhybrid; an mpiaijhybrid matrix builds its halo exchange at its
  first product, not at assembly; a CG + GAMG hierarchy of aijhybrid equal to aij's.
"""

import os
import subprocess

import pytest

import mpirun
from conftest import RANKS, THREADS, cached_worker

CHECKS = ["scale", "diagonal_scale", "get_diagonal", "axpy_same", "axpy_subset", "axpy_different", "axpy_other_type", "lazy_halo", "gamg_hierarchy"]


def test_entry_kernels():
    exe = os.path.join(str(mpirun.BUILD), "tests", "test_csrentry")
    assert os.path.exists(exe), "build the unit tests first: make unit"
    out = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    print(out.stdout)
    assert out.returncode == 0, out.stdout + out.stderr
    last = out.stdout.strip().splitlines()[-1]
    npass, nfail = int(last.split()[0]), int(last.split()[2])
    assert nfail == 0 and npass >= 500, last


@pytest.mark.mpi
@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("ranks", RANKS)
def test_setup_operations_match_aij(ranks, threads):
    run = cached_worker("setupops", ranks, threads, timeout=600)
    res = run.check()
    assert set(res["checks"]) == set(CHECKS), res["checks"]
    bad = {k: v for k, v in res["checks"].items() if v != "ok"}
    assert not bad, bad
    if ranks > 1:
        assert res["info"]["halo_setups_assembly_first_second"] == [0, 1, 0]
