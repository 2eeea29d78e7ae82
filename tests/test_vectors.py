"""The threaded vector types (VECHYBRID: seqhybrid / mpihybrid).

- tests/unit/test_veckernels.c: the pure kernels against simple references (one process);
- tests/unit/vec_ops.c: every operation against VECSEQ/VECMPI on the same values at 1, 2 and 4 ranks,
  1-3 threads, lengths 0 to 50001 and a rank owning nothing, NaN and Inf among the values: entry-wise
  results bitwise equal, sums bitwise equal across thread counts and within 1e-14 of PETSc's, the
  same errors for aliased arguments and the same flop counts; under -malloc_debug -malloc_dump at 2 ranks;
- tests/workers/vectors.py: where applications get vectors (MatCreateVecs of aijhybrid, -vec_type,
  -dm_vec_type, VecCreateMPI with -vec_hybrid_standard), whole KSP solves (residuals bitwise equal for
  1-3 threads, iterations as aij), GAMG levels, PETSc's log, the viewer.
"""

import os
import re
import subprocess

import pytest

import mpirun
from conftest import RANKS, cached_worker

pytestmark = pytest.mark.mpi

BUILD = os.environ.get("AIJHYBRID_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
CHECKS = ["matcreatevecs", "options", "dm", "solves", "gamg", "standard", "flops", "view"]
LEAK_LINE = re.compile(r"^\[\s*\d+\]\s*\d+ bytes ", re.M)


def exe(name):
    path = os.path.join(BUILD, "tests", name)
    assert os.path.exists(path), "build the unit tests first: make unit"
    return path


def test_vector_kernels():
    out = subprocess.run([exe("test_veckernels")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    m = re.search(r"vector kernels: (\d+) checks passed, (\d+) failed", out.stdout)
    assert m and int(m.group(2)) == 0 and int(m.group(1)) > 2000, out.stdout


@pytest.mark.parametrize("ranks", RANKS)
def test_vector_operations(ranks):
    """Every operation against the standard vectors; 4 ranks (12 threads on this machine's 2 cores)
    runs the -quick subset (threads 1 and 3, lengths 0, 7, 3000)."""
    args = [exe("vec_ops")] + (["-quick"] if ranks >= 4 else [])
    run = mpirun.run(args, ranks=ranks, threads=3, timeout=900)
    assert run.rc == 0, run.describe()
    m = re.search(r"vec_ops: %d ranks, (\d+) checks passed, (\d+) failed" % ranks, run.output)
    assert m and int(m.group(2)) == 0 and int(m.group(1)) > 50000, run.describe()


def test_vector_operations_free_everything():
    run = mpirun.run([exe("vec_ops"), "-quick", "-malloc_debug", "-malloc_dump"], ranks=2, threads=2, timeout=900)
    assert run.rc == 0, run.describe()
    assert not LEAK_LINE.findall(run.output), "memory still allocated at PetscFinalize:\n" + run.output[-4000:]


def vectors(ranks):
    return cached_worker("vectors", ranks, 3, timeout=600)


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("ranks", RANKS)
def test_vectors(ranks, check):
    res = vectors(ranks).check()
    assert set(res["checks"]) == set(CHECKS)
    assert res["checks"][check] == "ok", res["checks"][check]


def test_vector_flops_recorded():
    """The flop counts compared are not all zero (the comparison would be empty)."""
    flops = vectors(1).check()["info"]["flops_cg"]
    assert flops["VecAXPY"][1] > 0 and flops["VecNorm"][1] > 0 and flops["VecPointwiseMult"][1] > 0, flops
