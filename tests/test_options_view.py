"""Options and viewing: -help lists every -mat_aijhybrid_* option; the options take effect (also
with a prefix: -foo_mat_aijhybrid_num_threads); -mat_view ::ascii_info prints the 'AIJHybrid:'
lines (threads, partition, imbalance); ::ascii_info_detail prints per-rank '[r]' lines at 2 ranks;
-log_view lists the AIJHyb* events.
"""

import os

import pytest

import mpirun
from conftest import cached_worker

pytestmark = pytest.mark.mpi

OPTIONS = ["num_threads", "mode", "partition", "row_cost", "diffusion_tol", "diffusion_max_it", "first_touch", "task_share", "prefetch", "node_aware", "node_size", "sor_serial"]


def test_help_lists_every_option():
    """-help of a C application (examples/ex1, which calls MatSetFromOptions) lists every option
    with its valid values. (petsc4py 3.18 does not print Mat options for -help given through
    petsc4py.init, so the C example is used.)"""
    exe = str(mpirun.BUILD / "examples" / "ex1")
    assert os.path.exists(exe), "build the examples first: make examples"
    run = mpirun.run([exe, "-n", "4", "-mat_type", "aijhybrid", "-help"], ranks=1, threads=1)
    out = run.output
    assert run.rc == 0, run.describe()
    for o in OPTIONS:
        assert "-mat_aijhybrid_" + o in out, "-mat_aijhybrid_%s missing from -help\n%s" % (o, out[-3000:])
    assert "rows nnz diffusion optimal" in out and "auto vector task" in out, out[-3000:]


@pytest.mark.parametrize("ranks", (1, 2))
def test_options_take_effect(ranks):
    res = cached_worker(
        "script", ranks, 1,
        args=("settype", "-mat_aijhybrid_num_threads", "3", "-mat_aijhybrid_partition", "optimal", "-mat_aijhybrid_row_cost", "0.5", "-mat_aijhybrid_diffusion_tol", "0.2", "-mat_aijhybrid_diffusion_max_it", "7", "-mat_aijhybrid_first_touch", "-mat_aijhybrid_task_share", "0.25", "-mat_aijhybrid_prefetch", "64"),
    ).check()
    assert res["threads"] == 3 and res["partition"] == "optimal"
    assert res["row_cost"] == 0.5 and res["diffusion"] == [0.2, 7]
    assert res["first_touch"] is True and res["task_share"] == 0.25
    assert res["prefetch"] == [64, 64], res["prefetch"]
    # one product has run: the per-thread statistics cover it, one entry per thread
    tt = res["thread_times"]
    assert tt["nthreads"] == 3 and tt["products"] == 1, tt
    assert all(len(tt[k]) == 3 and min(tt[k]) >= 0 for k in ("comm", "diag", "offd")), tt
    assert max(tt["diag"]) > 0, tt


@pytest.mark.parametrize("ranks", (1, 2))
def test_options_prefix(ranks):
    res = cached_worker("script", ranks, 1, args=("prefix", "-foo_mat_aijhybrid_num_threads", "3", "-foo_mat_aijhybrid_partition", "rows", "-mat_aijhybrid_num_threads", "2")).check()
    assert res["threads"] == 3 and res["partition"] == "rows"


@pytest.mark.parametrize("ranks", (1, 2))
def test_view_info(ranks):
    run = cached_worker("script", ranks, 2, args=("view", "-mat_view", "::ascii_info"))
    run.check()
    lines = [l for l in run.out.splitlines() if "AIJHybrid:" in l]
    assert lines, run.describe()
    text = "\n".join(lines).lower()
    for word in ("thread", "partition", "imbalance"):
        assert word in text, (word, lines)


def test_view_info_detail_per_rank():
    run = cached_worker("script", 2, 2, args=("view", "-mat_view", "::ascii_info_detail"))
    run.check()
    for r in (0, 1):
        assert "[%d]" % r in run.out, run.describe()


@pytest.mark.parametrize("ranks", (1, 2))
def test_log_view_events(ranks):
    run = cached_worker("script", ranks, 1, args=("settype", "-log_view"))
    run.check()
    for ev in ("AIJHybMult", "AIJHybPartition"):
        assert ev in run.out, ev
    if ranks > 1:
        assert "AIJHybHaloBegin" in run.out and "AIJHybHaloEnd" in run.out
