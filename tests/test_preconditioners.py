"""The threaded preconditioners (issue 13): triangular solves of ILU/ICC factors, the CM-RCM
ordering, thread-local SOR.

- C unit tests of the pure parts: level schedules and solve kernels against PETSc-style serial
  loops, bitwise (tests/unit/test_levels.c); CM-RCM validity (tests/unit/test_cmrcm.c); SOR kernels
  against a reference sweep per block (tests/unit/test_sor.c); numeric-factorization kernels and
  plans against PETSc's routines transcribed, bitwise on 1 to 4 threads, every shift type
  (tests/unit/test_numeric.c); the measured-choice rule with made-up timings
  (tests/unit/test_choice.c).
- tests/unit/factor_solves.c at 1, 2 and 4 ranks (1-3 threads inside): every solve of ILU(0-2)
  and ICC(0-1) factors (natural, RCM, ND, CM-RCM orderings; random, banded, Poisson and inode
  block matrices; PCBJACOBI blocks on several ranks) bitwise equal to PETSc's serial solves, whole
  GMRES+ILU / CG+ICC residual histories bitwise equal to aij's; no leak under -malloc_dump.
- tests/unit/numeric_factor.c at 1, 2 and 4 ranks: the threaded numeric factorization bitwise
  PETSc's (matrices, orderings, levels, 1-4 threads, refactorization, shifts, zero pivots, the
  measured choice, PCBJACOBI/PCASM blocks).
- tests/unit/sor_blocks.c at 1, 2 and 3 ranks: MatSOR of aijhybrid bitwise equal to PETSc's own
  SeqAIJ sweep of each thread block (every flag MPIAIJ supports), aij's at one thread and with
  -mat_aijhybrid_sor_serial.
- The thread blocks (tests/unit/test_blocks.c): the split is PetscSplitOwnership()'s, the
  block-diagonal part and the orderings kept within the blocks against reference filters, the
  block schedules valid and refusing dependencies across blocks.
- tests/unit/factor_blocks.c (one rank, 2-3 threads): the thread-block ILU(0-2)/ICC(0-1)
  (-mat_aijhybrid_factor_blocks thread) bitwise equal, solve by solve, to PETSc's factors of each
  thread block made on its own, for every shift type (a matrix whose pivots fail), after a second
  numeric factorization too; its numeric factorization is the threads' (src/kernels/ilu.h; the inode
  arithmetic for the matrix with inodes); with orderings kept within the
  blocks, the threads' numeric factorization equals PETSc's of the same block-diagonal matrix.
- Thread blocks against PCBJACOBI (tests/workers/preconditioners.py): ILU/ICC at 1 rank x T threads
  apply the preconditioner of bjacobi + ILU/ICC at T ranks bit for bit (a digest of PCApply) and
  take as many iterations; at 2 ranks x T threads, bjacobi's does so against 2T ranks.
- Whole solves (tests/workers/preconditioners.py): SOR-preconditioned solves at R ranks x T threads
  converge like aij at R*T ranks with the same row blocks (same iterations, residuals equal to
  rounding); the factor of a default bjacobi/ILU solve reports threaded solves; cmrcm through
  -pc_factor_mat_ordering_type and -sub_pc_factor_mat_ordering_type.
"""
import os
import re
import subprocess

import pytest

import mpirun
from conftest import RANKS, cached_worker

BUILD = os.environ.get("AIJHYBRID_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
LEAK = re.compile(r"^\s*\[\s*\d+\]\s*\d+ bytes ", re.M)


def exe(name):
    path = os.path.join(BUILD, "tests", name)
    assert os.path.exists(path), "build the unit tests first: make unit"
    return path


@pytest.mark.parametrize("name,minimum", [("test_levels", 2000), ("test_cmrcm", 500), ("test_sor", 1000), ("test_numeric", 4000), ("test_choice", 2400), ("test_blocks", 1200), ("test_misk", 250)])
def test_pure_units(name, minimum):
    """the pure kernels' C unit tests (tests/unit/<name>.c) against their simple references: level
    schedules, CM-RCM, SOR, the numeric factorizations, the measured choice, thread blocks, and the
    coarsener's MIS in rounds on 1 to 3 threads against the serial sweep (same roots); each prints its
    count of checks, at least the minimum given here."""
    env = dict(os.environ, OMP_NUM_THREADS="4", OMP_WAIT_POLICY="passive")
    out = subprocess.run([exe(name)], capture_output=True, text=True, timeout=600, env=env)
    print(out.stdout[-3000:])
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-3000:]
    npass, nfail = (int(v) for v in re.search(r"(\d+) passed, (\d+) failed", out.stdout).groups())
    assert nfail == 0 and npass >= minimum, out.stdout[-2000:]


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", RANKS)
def test_factor_solves_bitwise(ranks):
    args = [exe("factor_solves"), "-malloc_debug", "-malloc_dump"] + (["-quick"] if ranks > 2 else [])
    run = mpirun.run(args, ranks=ranks, threads=2, timeout=1200)
    assert run.rc == 0, run.describe()
    m = re.search(r"factor_solves: (\d+) checks passed", run.output)
    assert m and int(m.group(1)) >= (300 if ranks > 2 else 800), run.describe()
    # the matrices without inodes had their whole residual histories compared bitwise with aij
    assert run.output.count("residual history bitwise aij's") == 6, run.describe()
    assert not LEAK.search(run.output), "unfreed memory:\n" + run.output[-3000:]


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", RANKS)
def test_numeric_factor_bitwise(ranks):
    """tests/unit/numeric_factor.c: the threaded numeric ILU(0-2)/ICC(0-1) factorization of aijhybrid
    matrices gives PETSc's serial factor bitwise at 1 to 4 threads (Poisson, extruded, random,
    unsymmetric, inode matrices; natural, RCM, ND, CM-RCM orderings), after new values from the same
    plan, with every shift type and zero pivots reported as PETSc reports them; the measured choice
    keeps the bits; on several ranks PCBJACOBI and PCASM blocks bitwise mpiaij's."""
    args = [exe("numeric_factor"), "-malloc_debug", "-malloc_dump"] + (["-quick"] if ranks > 2 else [])
    run = mpirun.run(args, ranks=ranks, threads=2, timeout=1200)
    assert run.rc == 0, run.describe()
    m = re.search(r"numeric_factor: (\d+) checks passed", run.output)
    assert m and int(m.group(1)) >= (1000 if ranks > 2 else 2500), run.describe()
    assert run.output.count("auto (numeric):") == ranks, run.describe()
    assert not LEAK.search(run.output), "unfreed memory:\n" + run.output[-3000:]
    # zero pivots with MatSetErrorIfFailure(): the same error as PETSc's (without -malloc_dump: PETSc's
    # own routine does not free its work arrays when it stops there)
    run = mpirun.run([exe("numeric_factor"), "-quick", "-errors"], ranks=1, threads=2, timeout=1200)
    assert run.rc == 0 and "checks passed" in run.output, run.describe()


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", (1, 2, 3))
def test_sor_blocks_bitwise(ranks):
    run = mpirun.run([exe("sor_blocks"), "-malloc_debug", "-malloc_dump"], ranks=ranks, threads=2, timeout=900)
    assert run.rc == 0, run.describe()
    m = re.search(r"sor_blocks: (\d+) checks passed", run.output)
    assert m and int(m.group(1)) >= 600, run.describe()
    assert not LEAK.search(run.output), "unfreed memory:\n" + run.output[-3000:]


SOR_SOLVES = {
    "cg_ssor": ["-ksp_type", "cg", "-pc_type", "sor"],
    "gmres_sor_omega": ["-ksp_type", "gmres", "-pc_type", "sor", "-pc_sor_omega", "1.3"],
    "richardson_its_lits": ["-ksp_type", "richardson", "-ksp_norm_type", "unpreconditioned", "-pc_type", "sor", "-pc_sor_its", "2", "-pc_sor_lits", "2"],
    "gmres_local_forward": ["-ksp_type", "gmres", "-pc_type", "sor", "-pc_sor_local_forward"],
}


@pytest.mark.mpi
@pytest.mark.parametrize("ranks,threads", [(1, 2), (1, 3), (2, 2)])
@pytest.mark.parametrize("solve", sorted(SOR_SOLVES))
def test_sor_converges_like_more_ranks(ranks, threads, solve):
    """R ranks x T threads of thread-local SOR precondition like R*T ranks of aij with the same row
    blocks (12^3 rows: equal row blocks at every layout here): same iterations, same residuals to
    rounding (not bitwise: the off-block sums are ordered differently)."""
    opts = SOR_SOLVES[solve]
    ref = cached_worker("preconditioners", ranks * threads, 1, args=["-hybrid", "0"] + opts).check()
    hyb = cached_worker("preconditioners", ranks, threads, args=["-hybrid", "1", "-mat_aijhybrid_num_threads", str(threads), "-mat_aijhybrid_partition", "rows"] + opts).check()
    assert hyb["type"].endswith("aijhybrid")
    assert ref["reason"] > 0 and hyb["reason"] > 0, (ref["reason"], hyb["reason"])
    assert hyb["iterations"] == ref["iterations"], (hyb["iterations"], ref["iterations"])
    scale = ref["bnorm"]  # rounding differences are relative to the problem's scale
    assert len(hyb["history"]) == len(ref["history"])
    for a, b in zip(hyb["history"] + [hyb["residual"]], ref["history"] + [ref["residual"]]):
        assert abs(a - b) <= 1e-12 * scale, (hyb["history"], ref["history"], hyb["residual"], ref["residual"])


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", (1, 2))
def test_sor_serial_option_gives_aij(ranks):
    """-mat_aijhybrid_sor_serial: AIJ's own sweeps, the residuals of aij at the same ranks, bitwise."""
    opts = ["-ksp_type", "cg", "-pc_type", "sor"]
    ref = cached_worker("preconditioners", ranks, 1, args=["-hybrid", "0"] + opts).check()
    hyb = cached_worker("preconditioners", ranks, 2, args=["-hybrid", "1", "-mat_aijhybrid_num_threads", "2", "-mat_aijhybrid_sor_serial"] + opts).check()
    assert hyb["history"] == ref["history"]


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("threads", (1, 2, 3))
def test_default_solver_threaded_factor(ranks, threads):
    """PETSc's default solver (GMRES + bjacobi/ILU(0); ILU(0) on one rank) with aijhybrid: the
    factor's solves are threaded exactly when there is more than one thread, and the residual
    history is aij's, bitwise."""
    ref = cached_worker("preconditioners", ranks, 1, args=["-hybrid", "0"]).check()
    hyb = cached_worker("preconditioners", ranks, threads, args=["-hybrid", "1", "-mat_aijhybrid_num_threads", str(threads)]).check()
    assert hyb["history"] == ref["history"], (hyb["history"], ref["history"])
    if ranks == 1:
        assert hyb["factor"]["threaded"] == (threads > 1), hyb["factor"]
        if threads > 1:
            # natural ordering of a 12^3 grid: the grid lines are chains, one level per plane j + k
            assert hyb["factor"]["nthreads"] == threads and hyb["factor"]["levels_lower"] == 2 * 12 - 1, hyb["factor"]
            # the default measured choice (auto): its first trial ends after 22 solves (a warm-up
            # pair, 10 pairs); PETSc's solves are in force only when they won it
            f = hyb["factor"]
            c = f["solve_choice"]
            if c["uses"] >= 22:
                assert f["decided"] and c["trials"] >= 1 and len(c["samples"]) == 10 * c["trials"], f
                assert f["in_use"] == (c["state"] != "serial"), f
                assert (c["state"] == "serial") == (c["wins_serial"] >= c["needed"]), f
            else:
                assert not f["decided"] and f["in_use"] and c["state"] == "measuring", f


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", (1, 2))
def test_cmrcm_ordering_in_solves(ranks):
    """cmrcm through the factor PCs' own options: ILU(0) with 10 colors has at most 10 levels per
    solve on one rank (against 23 with the natural ordering); the solve converges, with the same
    residuals as aij's."""
    if ranks == 1:
        opts = ["-pc_type", "ilu", "-pc_factor_mat_ordering_type", "cmrcm", "-mat_ordering_cmrcm_colors", "10"]
    else:
        opts = ["-pc_type", "bjacobi", "-sub_pc_type", "ilu", "-sub_pc_factor_mat_ordering_type", "cmrcm", "-mat_ordering_cmrcm_colors", "10"]
    ref = cached_worker("preconditioners", ranks, 1, args=["-hybrid", "0"] + opts).check()  # the worker loads the plugin: cmrcm is registered
    hyb = cached_worker("preconditioners", ranks, 2, args=["-hybrid", "1", "-mat_aijhybrid_num_threads", "2"] + opts).check()
    assert ref["reason"] > 0 and hyb["history"] == ref["history"]
    if ranks == 1:
        f = hyb["factor"]
        assert f["threaded"] and 1 <= f["levels_lower"] <= 10 and 1 <= f["levels_upper"] <= 10, f


@pytest.mark.mpi
def test_factor_and_ordering_options_with_prefixes():
    """-mat_aijhybrid_factor_solve/_check/_numeric and -mat_ordering_cmrcm_colors are read when the factor is
    made, with the prefix of the matrix factored, then without one; a bad value there is refused
    naming the option and the value, also for a matrix whose MatSetFromOptions never saw it."""
    opts = ["-hybrid", "1", "-p_mat_aijhybrid_num_threads", "2", "-prefix", "p_", "-pc_type", "ilu", "-pc_factor_mat_ordering_type", "cmrcm"]
    # with the matrix's prefix: forced serial solves, 5 colors
    hyb = cached_worker("preconditioners", 1, 2, args=opts + ["-p_mat_aijhybrid_factor_solve", "serial", "-p_mat_ordering_cmrcm_colors", "5", "-p_mat_aijhybrid_factor_numeric", "serial"]).check()
    f = hyb["factor"]
    assert f["threaded"] and f["decided"] and not f["in_use"] and f["levels_lower"] <= 5, f
    assert not f["numeric_threaded"] and f["numeric_threaded_count"] == 0 and f["numeric_choice"]["state"] == "fixed", f
    # without a prefix (the prefixed name not given): forced threaded solves, 7 colors
    hyb = cached_worker("preconditioners", 1, 2, args=opts + ["-mat_aijhybrid_factor_solve", "threaded", "-mat_ordering_cmrcm_colors", "7", "-mat_aijhybrid_factor_numeric", "threaded"]).check()
    f = hyb["factor"]
    assert f["decided"] and f["in_use"] and 5 < f["levels_lower"] <= 7, f
    assert f["numeric_threaded"] and f["numeric_threaded_count"] == f["numeric_count"] >= 1 and f["numeric_choice"]["state"] == "fixed", f
    # bad values: refused when the factor is made or the matrix ordered (with or without the prefix:
    # the prefixed matrix's MatSetFromOptions does not read them), naming the option and the value
    for name, value, why in (("mat_aijhybrid_factor_solve", "bogus", "auto threaded serial"),
                             ("p_mat_aijhybrid_factor_check", "maybe", "Unknown logical value"),
                             ("p_mat_aijhybrid_factor_numeric", "sometimes", "auto threaded serial"),
                             ("mat_aijhybrid_factor_numeric", "2", "auto threaded serial"),
                             ("mat_ordering_cmrcm_colors", "0", "allowed bound 1"),
                             ("p_mat_ordering_cmrcm_colors", "x", "no integer value")):
        run = mpirun.run_worker("preconditioners", 1, 2, opts + ["-" + name, value], 120)
        assert run.rc != 0 and "Invalid value '%s' for -%s:" % (value, name) in run.output and why in run.output, run.describe()
    # a misspelt name of the ordering's family, with and without the prefix: nothing reads it, PETSc's
    # -options_left reports it
    for wrong in ("mat_ordering_cmrcm_color", "p_mat_ordering_cmrcm_color"):
        run = mpirun.run_worker("preconditioners", 1, 2, opts + ["-" + wrong, "3", "-options_left"], 120)
        assert run.rc == 0 and "Option left: name:-%s value: 3" % wrong in run.output, run.describe()


@pytest.mark.mpi
def test_factor_blocks_bitwise():
    run = mpirun.run([exe("factor_blocks"), "-malloc_debug", "-malloc_dump"], ranks=1, threads=3, timeout=900)
    assert run.rc == 0, run.describe()
    m = re.search(r"factor_blocks: (\d+) checks passed \((\d+) block factors with a zero pivot\)", run.output)
    assert m and int(m.group(1)) >= 900 and int(m.group(2)) > 0, run.describe()
    assert not LEAK.search(run.output), "unfreed memory:\n" + run.output[-3000:]


BLOCK_SOLVES = {
    "ilu": (["-pc_type", "ilu"], ["-pc_type", "bjacobi", "-sub_pc_type", "ilu"]),
    "ilu1": (["-pc_type", "ilu", "-pc_factor_levels", "1"], ["-pc_type", "bjacobi", "-sub_pc_type", "ilu", "-sub_pc_factor_levels", "1"]),
    "icc": (["-ksp_type", "cg", "-pc_type", "icc"], ["-ksp_type", "cg", "-pc_type", "bjacobi", "-sub_pc_type", "icc"]),
}


@pytest.mark.mpi
@pytest.mark.parametrize("threads", (1, 2, 3))
@pytest.mark.parametrize("solve", sorted(BLOCK_SOLVES))
def test_thread_blocks_are_bjacobi(threads, solve):
    """-mat_aijhybrid_factor_blocks thread at 1 rank x T threads: the preconditioner of bjacobi with
    ILU/ICC blocks at T ranks x 1 thread (aij, PETSc's own; PETSc's default split of the 12^3 rows),
    bit for bit (PCApply), the same iterations; the residuals agree to rounding only (the products and
    the dot products sum in another order on T ranks). With one thread there is one block: the exact
    factorization, which is bjacobi's on one rank."""
    hyb_opts, ref_opts = BLOCK_SOLVES[solve]
    ref = cached_worker("preconditioners", threads, 1, args=["-hybrid", "0"] + ref_opts).check()
    hyb = cached_worker("preconditioners", 1, threads, args=["-hybrid", "1", "-mat_aijhybrid_num_threads", str(threads), "-mat_aijhybrid_factor_blocks", "thread", "-mat_aijhybrid_factor_solve", "threaded"] + hyb_opts).check()
    assert ref["reason"] > 0 and hyb["reason"] > 0, (ref["reason"], hyb["reason"])
    f = hyb["factor"]
    assert f["blocks"] == (threads if threads > 1 else 0) and f["numeric_threaded"] == (threads > 1), f
    assert f["threaded"] == (threads > 1) and (threads == 1 or f["in_use"]), f
    assert hyb["pcapply"] == ref["pcapply"], "the thread-block preconditioner differs from bjacobi's at %d ranks" % threads
    assert hyb["iterations"] == ref["iterations"], (hyb["iterations"], ref["iterations"])
    scale = ref["bnorm"]
    for a, b in zip(hyb["history"], ref["history"]):
        assert abs(a - b) <= 1e-10 * scale, (hyb["history"], ref["history"])


@pytest.mark.mpi
@pytest.mark.parametrize("threads", (2, 3))
@pytest.mark.parametrize("solve", ("ilu", "icc"))
def test_thread_blocks_on_ranks_are_bjacobi(threads, solve):
    """2 ranks x T threads, bjacobi with thread blocks in each rank's block: bjacobi's preconditioner at
    2T ranks, bit for bit, the same iterations (12^3 rows: 2T ranks split them as 2 ranks then T
    threads do; for other sizes the blocks can differ by a row)."""
    hyb_opts, ref_opts = BLOCK_SOLVES[solve]
    ref = cached_worker("preconditioners", 2 * threads, 1, args=["-hybrid", "0"] + ref_opts).check()
    hyb = cached_worker("preconditioners", 2, threads, args=["-hybrid", "1", "-mat_aijhybrid_num_threads", str(threads), "-mat_aijhybrid_factor_blocks", "thread", "-mat_aijhybrid_factor_solve", "threaded"] + ref_opts).check()
    assert ref["reason"] > 0 and hyb["reason"] > 0, (ref["reason"], hyb["reason"])
    assert hyb["pcapply"] == ref["pcapply"], "bjacobi with %d thread blocks per rank differs from bjacobi at %d ranks" % (threads, 2 * threads)
    assert hyb["iterations"] == ref["iterations"], (hyb["iterations"], ref["iterations"])
