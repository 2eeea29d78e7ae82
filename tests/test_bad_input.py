"""Bad input gives a clear error, never a crash or a hang (every launch has a timeout), and leaves
the matrix unchanged: invalid thread counts (0, -3, 5000; -1/-2/None mean "OpenMP default"),
row cost, diffusion parameters, partition names (Python ValueError, C enum), options with invalid
values (the message names the option and, for the partition, the valid values), products of an
unassembled matrix, vectors of the wrong global size, and of the wrong local size on some ranks only.
Also: an application that initialized MPI below MPI_THREAD_FUNNELED (build/tests/thread_single);
a product that fails on some ranks only ends the run (C, with and without -on_error_abort; petsc4py
with an abort hook); the default thread count with OMP_NUM_THREADS unset; the oversubscription
warning. Every option with every kind of bad value, and the C Set functions: workers/badinput.py.
"""

import os
import sys

import pytest

import mpirun

sys.path.insert(0, str(mpirun.WORKERS))
from conftest import cached_worker

pytestmark = pytest.mark.mpi

CHECKS = ["option_values", "option_sets", "unknown_names", "copies", "python_api", "c_setters", "num_threads", "other_setters", "unassembled", "wrong_global_size", "wrong_local_size"]


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("ranks", (1, 2))
def test_bad_call(ranks, check):
    res = cached_worker("badinput", ranks, 2, timeout=60).check()
    assert res["checks"][check] == "ok", res["checks"][check]


def test_bad_options_cover_every_option():
    """workers/badoptions.py has bad values for every -mat_aijhybrid_* option MatSetFromOptions reads
    (-help of build/tests/options_table; the options of every type are checked generically by
    tests/test_options_table.py; the factor options, read when a factor is made, by
    tests/test_preconditioners.py)"""
    sys.path.insert(0, str(mpirun.ROOT / "share" / "docs"))
    import options as docs
    from badoptions import BAD_OPTIONS, BAD_SETS

    group = next(g for g in docs.registry(mpirun.BUILD) if g["title"] == "AIJHybrid options (hybrid MPI/OpenMP products)")
    names = {o["name"][len("mat_aijhybrid_"):] for o in group["options"]}
    assert len(names) == 13 and "num_threads" in names and "factor_blocks" in names, names
    assert {n for n, _, _ in BAD_OPTIONS} == names
    assert {n for given, _ in BAD_SETS for n, _ in given} >= names


@pytest.mark.parametrize(
    "option,value,expect",
    [
        ("-mat_aijhybrid_num_threads", "0", ["'0'", "at least 1 thread"]),
        ("-mat_aijhybrid_num_threads", "5000", ["'5000'", "allowed bound 4096"]),
        ("-mat_aijhybrid_partition", "bogus", ["'bogus'", "rows nnz diffusion optimal"]),
        ("-mat_aijhybrid_row_cost", "-1", ["'-1'"]),
        ("-mat_aijhybrid_diffusion_tol", "-1", ["'-1'"]),
        ("-mat_aijhybrid_num_threads", "abc", ["'abc'", "no integer value"]),
        ("-mat_aijhybrid_mode", "bogus", ["'bogus'", "auto vector task"]),
        ("-mat_aijhybrid_first_touch", "maybe", ["'maybe'", "Unknown logical value"]),
        ("-mat_aijhybrid_node_aware", "maybe", ["'maybe'", "Unknown logical value"]),
    ],
)
@pytest.mark.parametrize("ranks", (1, 2))
def test_bad_option(ranks, option, value, expect):
    run = mpirun.run_worker("script", ranks, 1, args=("settype", option, value), timeout=60)
    assert not run.timed_out, run.describe()
    assert run.rc != 0 and run.result is None, run.describe()
    assert "Segmentation" not in run.output and "signal" not in run.output.lower(), run.describe()
    out = run.output
    assert option in out, run.describe()
    for e in expect:
        assert e in out, "%r not in error output\n%s" % (e, run.describe())


THREAD_SINGLE = mpirun.BUILD / "tests" / "thread_single"


@pytest.mark.skipif(not THREAD_SINGLE.exists(), reason="%s not built (make unit)" % THREAD_SINGLE)
@pytest.mark.parametrize("ranks", (1, 2))
def test_mpi_thread_single(ranks):
    run = mpirun.run([THREAD_SINGLE, "-mat_view", "::ascii_info"], ranks, 2, timeout=120)
    assert run.rc == 0, run.describe()
    # documented: task mode asked for, vector mode run; the level in the view
    assert "products run in vector mode" in run.output, run.describe()
    assert "mode vector" in run.output and "MPI thread level MPI_THREAD_SINGLE" in run.output, run.describe()
    low = run.output.lower()
    assert "fail" not in low and "error" not in low and "mismatch" not in low and "differ" not in low, run.describe()
    assert "thread_single" in low or "mpi_thread_single" in low, run.describe()
    assert "products match aij" in low or "ok" in low or "success" in low, run.describe()


# ------------------------------------------------------------------------------------------------
# a product that fails on some ranks only: the run ends with the error, it does not hang

RANK_ERROR = mpirun.BUILD / "tests" / "rank_error"  # this build's (flavours, other PETSc builds)


@pytest.mark.skipif(not RANK_ERROR.exists(), reason="%s not built (make unit)" % RANK_ERROR)
@pytest.mark.parametrize("abort", (False, True), ids=("plain", "on_error_abort"))
@pytest.mark.parametrize("mode", ("task", "vector"))
def test_error_on_some_ranks_ends_the_run(mode, abort):
    """C application, 3 ranks x 2 threads: ranks 0 and 1 fail MatMult's size check while rank 2 is in
    the product; PETSc's message, then the job ends (mpiexec ends it when the failing processes exit,
    or PETSc calls MPI_Abort with -on_error_abort)."""
    args = [RANK_ERROR, "-mat_aijhybrid_mode", mode, "-mat_aijhybrid_num_threads", "2"] + (["-on_error_abort"] if abort else [])
    run = mpirun.run(args, ranks=3, threads=2, timeout=90)
    assert not run.timed_out, "the run hung\n" + run.describe()
    assert run.rc != 0, run.describe()
    assert "local dim" in run.output, run.describe()
    assert ("Nonconforming object sizes" in run.output) or abort, run.describe()
    assert "all ranks passed" not in run.output, run.describe()


@pytest.mark.skipif(not RANK_ERROR.exists(), reason="%s not built (make unit)" % RANK_ERROR)
def test_error_control_run_passes():
    """the same program with right sizes everywhere passes (the failure above is the sizes')"""
    run = mpirun.run([RANK_ERROR, "-wrong_ranks", "0", "-mat_aijhybrid_mode", "task", "-mat_aijhybrid_num_threads", "2"], ranks=3, threads=2, timeout=90)
    assert run.rc == 0 and "all ranks passed the product" in run.output, run.describe()


def test_error_on_some_ranks_python_with_abort_hook():
    """petsc4py with an exception hook that calls MPI_Abort: the run ends with the error"""
    run = mpirun.run_worker("rank_error", 3, 2, args=("-mat_aijhybrid_num_threads", "2", "-mat_aijhybrid_mode", "task"), timeout=90)
    assert not run.timed_out, "the run hung\n" + run.describe()
    assert run.rc != 0 and run.result is None, run.describe()
    assert "error code 60" in run.output or "Nonconforming" in run.output, run.describe()


# ------------------------------------------------------------------------------------------------
# default thread count with OMP_NUM_THREADS unset, and the oversubscription warning


def _cores():
    return os.sysconf("SC_NPROCESSORS_ONLN")


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_default_threads_without_omp_num_threads(ranks):
    """OMP_NUM_THREADS unset (libgomp would give every rank all CPUs): cores of the node / ranks on it, at least 1"""
    res = mpirun.run_worker("script", ranks, 1, args=("settype",), timeout=90, env={"OMP_NUM_THREADS": None}).check()
    avail = len(os.sched_getaffinity(0))  # --bind-to none: the ranks may run on what this process may
    assert res["threads"] == max(1, min(avail, _cores() // ranks)), (res, avail, _cores())


def test_default_threads_follow_omp_num_threads():
    res = mpirun.run_worker("script", 2, 3, args=("settype",), timeout=90).check()
    assert res["threads"] == 3, res


EX1 = mpirun.BUILD / "examples" / "ex1"


@pytest.mark.skipif(not EX1.exists(), reason="build/examples/ex1 not built")
@pytest.mark.parametrize("omp", ("99999999", "5000"))
def test_omp_num_threads_beyond_the_bound_is_clamped_and_said_once(omp):
    """OMP_NUM_THREADS above the bound of -mat_aijhybrid_num_threads (4096) made that many threads
    (99999999: a hang while memory grew); now the package uses 4096 and says so once per process"""
    run = mpirun.run([EX1, "-n", "4", "-mat_type", "aijhybrid", "-vec_type", "hybrid", "-mult_reps", "2"], ranks=1, threads=1, env={"OMP_NUM_THREADS": omp}, timeout=120)
    assert not run.timed_out and run.rc == 0, run.describe()
    said = [l for l in run.output.splitlines() if "petsc-aijhybrid: OpenMP gives %s threads (OMP_NUM_THREADS=%s)" % (omp, omp) in l]
    assert len(said) == 1 and "use 4096" in said[0], run.describe()
    assert "1 rank(s) x 4096 thread(s)" in run.out, run.describe()


@pytest.mark.skipif(not EX1.exists(), reason="build/examples/ex1 not built")
@pytest.mark.parametrize("value", ("-1000", "0", "abc", "-2"))
def test_vector_options_checked_for_vectors_of_matcreatevecs(value):
    """the vectors of MatCreateVecs() read the -vec_hybrid_* options when they are made: a bad value
    fails naming the option (it was silently unused); -2 is no option value (only -1 is documented)"""
    run = mpirun.run([EX1, "-n", "4", "-mat_type", "aijhybrid", "-vec_hybrid_num_threads", value], ranks=2, threads=1, timeout=120)
    assert not run.timed_out and run.rc != 0, run.describe()
    assert "Invalid value '%s' for -vec_hybrid_num_threads" % value in run.output, run.describe()


def test_vector_thread_count_option_reaches_vectors_of_matcreatevecs():
    """an explicit -vec_hybrid_num_threads wins over the matrix's count for the vectors of
    MatCreateVecs(); without it they take the matrix's"""
    code = ("import sys, petsc4py; petsc4py.init(sys.argv[1:]); from petsc4py import PETSc; import petsc_aijhybrid as ph\n"
            "A = PETSc.Mat().createAIJ([40, 40], nnz=1); A.setType('aijhybrid'); A.setFromOptions(); A.setUp()\n"
            "[A.setValue(i, i, 1.0) for i in range(*A.getOwnershipRange())]; A.assemble()\n"
            "x, y = A.createVecs(); print('THREADS', ph.get_num_threads(A), ph.get_num_threads(x), ph.get_num_threads(y))")
    for extra, want in (([], "THREADS 2 2 2"), (["-vec_hybrid_num_threads", "3"], "THREADS 2 3 3")):
        run = mpirun.run([mpirun.PYTHON, "-c", code, "-mat_aijhybrid_num_threads", "2"] + extra, ranks=1, threads=1, timeout=120)
        assert run.rc == 0 and want in run.out, (want, run.describe())


def test_oversubscription_warning():
    """threads x ranks above the cores: one PetscInfo warning per process with the numbers, and a
    line in -mat_view ::ascii_info"""
    c = _cores()
    run = mpirun.run_worker("script", 2, 1, args=("view", "-mat_aijhybrid_num_threads", str(c), "-mat_view", "::ascii_info", "-info"), timeout=90)
    run.check()
    info = [l for l in run.out.splitlines() if "aijhybrid warning" in l]
    expect = "%d threads x 2 ranks on this node = %d > %d cores" % (c, 2 * c, c)
    assert info and all(expect in l for l in info), (expect, info, run.describe())
    assert len(info) <= 2, "more than one warning per process:\n" + "\n".join(info)
    assert "AIJHybrid: warning: %d threads x 2 ranks on a node = %d > %d cores (oversubscribed)" % (c, 2 * c, c) in run.out, run.describe()


def test_no_oversubscription_warning_within_the_cores():
    run = mpirun.run_worker("script", 1, 1, args=("view", "-mat_aijhybrid_num_threads", "1", "-mat_view", "::ascii_info", "-info"), timeout=90)
    run.check()
    assert "aijhybrid warning" not in run.out and "oversubscribed" not in run.out, run.describe()
