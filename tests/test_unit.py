"""C-level tests: the pure partitioners (tests/unit/test_partition.c, one process), the product stress
test (tests/unit/products_stress.c) and the
assembly paths of a C application (tests/unit/assembly_paths.c: MatSetUp without preallocation,
off-process ADD_VALUES), at 1 and 3 ranks with 2 threads, re-typing after MatSetUp, and MatZeroRows on rows
empty in the diagonal block (tests/unit/zerorows_empty.c), COO assembly (tests/unit/coo_blocks.c), under
-malloc_debug -malloc_dump."""
import os
import re
import subprocess

import pytest

import mpirun

BUILD = str(mpirun.BUILD)  # this build (AIJHYBRID_BUILD): flavours and other PETSc builds have their own


def run_unit(name, ranks, threads=2, args=(), malloc_debug=True, **kw):
    """tests/unit/<name>.c's program under -malloc_debug -malloc_dump (after args), ranks x threads:
    the run, which exited 0. malloc_debug=False: -malloc_dump only, PETSc's tracing allocator (the
    leak check, and each block's guards checked when it is freed) without -malloc_debug's check of
    the whole heap at every allocation, which is quadratic in the live allocations"""
    exe = os.path.join(BUILD, "tests", name)
    assert os.path.exists(exe), "build the unit tests first: make unit"
    run = mpirun.run([exe] + list(args) + (["-malloc_debug"] if malloc_debug else []) + ["-malloc_dump"], ranks=ranks, threads=threads, **kw)
    assert run.rc == 0, run.describe()
    return run


def leaks(run):
    """the -malloc_dump lines of unfreed memory in a run's output"""
    return [l for l in run.output.splitlines() if re.match(r"\s*\[\s*\d+\]\s*\d+ bytes", l)]


def test_partitioners():
    exe = os.path.join(BUILD, "tests", "test_partition")
    assert os.path.exists(exe), "build the unit tests first: make unit"
    out = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    print(out.stdout)
    assert out.returncode == 0, out.stdout + out.stderr
    last = out.stdout.strip().splitlines()[-1]
    npass, nfail = int(last.split()[0]), int(last.split()[2])
    assert nfail == 0 and npass > 1000, last


@pytest.mark.parametrize("ranks", (1, 3))
def test_assembly_paths(ranks):
    run = run_unit("assembly_paths", ranks)
    assert "MatMult matches aij" in run.output and "MatMultTranspose matches aij" in run.output, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks", (1, 2, 3))
def test_coo_blocks(ranks):
    """tests/unit/coo_blocks.c: COO assembly (twice, another pattern) gives aij's products, the blocks of
    mpiaijhybrid stay seqaij (MPIAIJ's COO preallocation converts them to the root type aijhybrid), and
    after the conversion back to aij the COO preallocation is AIJ's own; no leak under -malloc_dump"""
    run = run_unit("coo_blocks", ranks)
    want = "blocks seqaij and seqaij" if ranks > 1 else "seqaijhybrid matches aij"
    assert run.output.count("COO again: ") == 2 and run.output.count(want) >= 4, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks,threads", [(1, 1), (1, 3), (2, 2), (4, 1)])
def test_transpose_inplace(ranks, threads):
    """tests/unit/transpose_inplace.c: MatTranspose() in place (PCGAMG's MISK coarsening) of a non-square
    aijhybrid matrix: aij's bits, of our type, its name, prefix, settings (and composed objects where aij
    keeps them) kept, twice gives the matrix back; one rank: the threaded transpose put into the header;
    the same for MatAXPY of a new pattern (the threaded union put into Y's header); no leak under
    -malloc_dump"""
    run = run_unit("transpose_inplace", ranks, threads=threads)
    assert "transpose_inplace (%d rank(s), %d threads): 15 checks passed, 0 failed" % (ranks, threads) in run.output, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks", (1, 2))
def test_retype_after_setup(ranks):
    """MatSetUp(), then -mat_type aijhybrid through MatSetFromOptions(), then values: works as with aij."""
    run = run_unit("retype_after_setup", ranks, args=["-mat_type", "aijhybrid"])
    assert "aijhybrid set up before its type was chosen: MatMult matches aij" in run.output, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks", (1, 2, 3))
def test_products_stress(ranks):
    """tests/unit/products_stress.c (the program the sanitizer runs use): every product against aij and
    bitwise across modes, partitions and 1-3 threads, with a rank owning nothing at 2 and 3 ranks,
    reassembly with new off-process nonzeros, MatZeroRows, MatDuplicate; no leak under -malloc_dump"""
    run = run_unit("products_stress", ranks)
    m = re.search(r"products_stress: (\d+) checks passed", run.output)
    assert m and int(m.group(1)) > 1000, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_zerorows_empty_diagonal_rows(ranks):
    """tests/unit/zerorows_empty.c: MatZeroRows with a diagonal on rows empty in the diagonal block (the
    PETSc SeqAIJ use-after-free that src/mat/zerorows.c avoids): zeroed rows hold (r, diag) alone, the
    others are unchanged, b is fixed, MAT_NEW_NONZERO_LOCATIONS / MAT_KEEP_NONZERO_PATTERN / a row out of
    range behave as documented. Leaks: only PETSc's own error paths (lrows of MatZeroRowsMapLocal_Private
    when the row is out of range or the diagonal is missing) may remain."""
    run = run_unit("zerorows_empty", ranks)
    passed = re.findall(r"zerorows_empty \((\w+)\): (\d+) checks passed", run.output)
    assert len(passed) == ranks, run.describe()
    assert all(t == ("seqaijhybrid" if ranks == 1 else "mpiaijhybrid") and int(n) >= 30 for t, n in passed), passed
    ours = [l for l in leaks(run) if "MatZeroRowsMapLocal_Private" not in l]
    assert not ours, "unfreed memory:\n" + "\n".join(ours)


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_api_idioms(ranks):
    """tests/unit/api_idioms.c: MatCreateSeqAIJHybrid()/MatCreateMPIAIJHybrid() (type, preallocation,
    products bitwise equal to aij's); public Set/Get through composed functions: ignored (Set) and
    refused (Get) on aij, following MatConvert() in place both ways; no leak under -malloc_dump"""
    run = run_unit("api_idioms", ranks)
    m = re.search(r"api_idioms: (\d+) checks passed", run.output)
    assert m and int(m.group(1)) >= 12, run.describe()
    assert "Set ignored and Get refused on aij" in run.output, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks", (1, 2))
def test_tune_choices(ranks):
    """tests/unit/tune_choice.c: the measured choices of the products (software prefetch; at 2 ranks in
    task mode also thread 0's share) from made-up product times handed over through the test hook:
    a noisy tie keeps the default through every trial and re-trial, an alternative 20% faster is
    chosen, a default 20% faster stays, a noisy first trial is followed at once by a re-trial that
    chooses an alternative 20% faster (the choice reads as measuring until then), a set value is in
    force without a measurement."""
    run = run_unit("tune_choice", ranks, timeout=300)
    m = re.search(r"tune_choice: (\d+) checks passed, 0 failed", run.output)
    assert m and int(m.group(1)) == (8 if ranks == 1 else 14), run.describe()


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_coarsen_misk(ranks):
    """tests/unit/coarsen_misk.c: the MatCoarsen type "aijhybrid" gives MISK's aggregates (every list
    entry by entry, the ghost matrix) on a Poisson 3D, an irregular and a singleton/empty-row graph,
    distances 1 and 2, no/identity/random ordering, 1-3 threads (one rank) and MISK's own on mpi
    graphs and aij; GAMG with -[pc_gamg_]mat_coarsen_type aijhybrid: the same iterations and residual
    history as with MISK, the coarsener used on one rank; no leak under -malloc_dump"""
    # -malloc_dump without -malloc_debug: PETSc's MISK makes many small list allocations, and the
    # heap check at each of them took 137 s of the 140 s at one rank (2.4 s without it)
    run = run_unit("coarsen_misk", ranks, malloc_debug=False, timeout=600)
    m = re.search(r"coarsen_misk \(%d rank\(s\)\): (\d+) checks passed, 0 failed" % ranks, run.output)
    # on several ranks PETSc 3.26's MISK never ends on the singleton graph: that graph is left out there (52)
    assert m and int(m.group(1)) in ((148,) if ranks == 1 else (76, 52)), run.describe()
    assert "residual histories identical: yes" in run.output, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks,threads", [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (4, 1), (4, 2), (4, 3)])
def test_duplicate_options(ranks, threads):
    """tests/unit/duplicate_options.c: MatDuplicate() of aijhybrid with MAT_DO_NOT_COPY_VALUES,
    MAT_COPY_VALUES and MAT_SHARE_NONZERO_PATTERN against aij's: of our type with the original's
    settings, the local arrays and ghost map bit for bit, MatEqual(), MatGetInfo(), the nonzero state
    copied as aij copies it, the same products; the copy and the original independent of each other
    afterwards; no leak under -malloc_dump"""
    run = run_unit("duplicate_options", ranks, threads=threads)
    assert "duplicate_options (%d rank(s), %d threads): 27 checks passed, 0 failed" % (ranks, threads) in run.output, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))


@pytest.mark.parametrize("ranks,threads", [(1, 1), (1, 2), (1, 3), (2, 2), (4, 1)])
def test_create_graph(ranks, threads):
    """tests/unit/create_graph.c: MatCreateGraph() of aijhybrid against aij's for PCGAMG's default
    (symmetrized, not scaled or filtered: made on one rank as A's transpose plus A, without AIJ's
    copy) and the other combinations, on a pattern that is not symmetric, one known to be
    structurally symmetric and a matrix known to be symmetric: the graph bit for bit, of our type on
    one rank, aij's symmetry flags; no leak under -malloc_dump"""
    run = run_unit("create_graph", ranks, threads=threads)
    assert "create_graph (%d rank(s), %d threads, 12 cases): 60 checks passed, 0 failed" % (ranks, threads) in run.output, run.describe()
    assert not leaks(run), "unfreed memory:\n" + "\n".join(leaks(run))
