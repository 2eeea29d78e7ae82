"""Bad input gives a clear error, never a crash or a hang (every launch has a timeout), and leaves
the matrix unchanged: invalid thread counts (0, -3, 5000; -1/-2/None mean "OpenMP default"),
row cost, diffusion parameters, partition names (Python ValueError, C enum), options with invalid
values (the message names the option and, for the partition, the valid values), products of an
unassembled matrix, vectors of the wrong global size, and of the wrong local size on some ranks only.
Also: an application that initialized MPI below MPI_THREAD_FUNNELED (build/tests/thread_single).
"""

import pytest

import mpirun
from conftest import cached_worker

pytestmark = pytest.mark.mpi

CHECKS = ["num_threads", "other_setters", "unassembled", "wrong_global_size", "wrong_local_size"]


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("ranks", (1, 2))
def test_bad_call(ranks, check):
    res = cached_worker("badinput", ranks, 2, timeout=60).check()
    assert res["checks"][check] == "ok", res["checks"][check]


@pytest.mark.parametrize(
    "option,value,expect",
    [
        ("-mat_aijhybrid_num_threads", "0", [">= 1"]),
        ("-mat_aijhybrid_partition", "bogus", ["bogus", "rows", "nnz", "diffusion", "optimal"]),
        ("-mat_aijhybrid_row_cost", "-1", [">= 0"]),
        ("-mat_aijhybrid_diffusion_tol", "-1", [">= 0"]),
    ],
)
@pytest.mark.parametrize("ranks", (1, 2))
def test_bad_option(ranks, option, value, expect):
    run = mpirun.run_worker("script", ranks, 1, args=("settype", option, value), timeout=60)
    assert not run.timed_out, run.describe()
    assert run.rc != 0 and run.result is None, run.describe()
    assert "Segmentation" not in run.output and "signal" not in run.output.lower(), run.describe()
    out = run.output
    assert option.lstrip("-").split("_", 2)[-1] in out or option in out or "mat_aijhybrid" in out, run.describe()
    for e in expect:
        assert e in out, "%r not in error output\n%s" % (e, run.describe())


THREAD_SINGLE = mpirun.BUILD / "tests" / "thread_single"


@pytest.mark.skipif(not THREAD_SINGLE.exists(), reason="build/tests/thread_single not built (tests/unit/thread_single.c missing or `make unit` not run)")
@pytest.mark.parametrize("ranks", (1, 2))
def test_mpi_thread_single(ranks):
    run = mpirun.run([THREAD_SINGLE], ranks, 2, timeout=120)
    assert run.rc == 0, run.describe()
    low = run.output.lower()
    assert "fail" not in low and "error" not in low and "mismatch" not in low and "differ" not in low, run.describe()
    assert "thread_single" in low or "mpi_thread_single" in low, run.describe()
    assert "products match aij" in low or "ok" in low or "success" in low, run.describe()
