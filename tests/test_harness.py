"""PETSc's own test harness with and without the aijhybrid plugin (tests/harness/harness.py).

Each test runs harness.py over a selection of PETSc 3.18 KSP and SNES tutorials twice (baseline with
-mat_type aij, then -dll_append <lib> -mat_type aijhybrid -vec_type hybrid -dm_vec_type hybrid, the
matrix and vector types of the plugin) and requires no regression; one test
runs our own examples (examples/*.c) through the same harness and requires all of them to pass;
one runs a representative part of PETSc's SF and VecScatter tests and a few KSP/SNES tutorials with
the PetscSF type injected (--inject sf: -sf_type nodeaware -sf_nodeaware_node_size 2 against
-sf_type basic; `make test-harness-sf` runs the whole suites).
The library is build/lib/libpetscaijhybrid.so, or $AIJHYBRID_LIB.  About 5-8 minutes in all on
2 cores (the first run also copies the harness tree and compiles the tutorials).
"""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
HARNESS = os.path.join(HERE, "harness", "harness.py")
LIB = os.environ.get("AIJHYBRID_LIB") or os.path.join(os.environ.get("AIJHYBRID_BUILD") or os.path.join(REPO, "build"), "lib", "libpetscaijhybrid.so")  # as tests/mpirun.py
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
TIMEOUT = 1800

T = "ksp_ksp_tutorials-"
S = "snes_tutorials-"

# Every pattern below matches tests of PETSc 3.18's src/ksp/ksp/tutorials.  Tests that fail
# here already in the baseline (e.g. ex52_superlu_ilu, ex34_hyprestruct) or need packages this
# PETSc lacks are reported but not compared.
SUBSETS = {
    # the classic: one matrix, dozens of Krylov methods and preconditioners
    # (ILU/Jacobi/SOR/ASM/bjacobi/Chebyshev, LU with UMFPACK/MUMPS/SPQR, telescope...)
    "ex2": [T + "ex2_*"],
    # matrices created by DMDA (-dm_mat_type), geometric multigrid and Galerkin coarse grids
    "dmda_mg": [T + "ex45_*", T + "ex32_*", T + "ex29_*", T + "ex50_*", T + "ex34_*", T + "ex25_*"],
    # factorizations: PETSc LU, MUMPS LU/Cholesky, SuperLU(_dist), ICC, LU with matrix reuse,
    # bjacobi/ASM with ILU blocks and redundant solves
    "factorization": [T + "ex52_*", T + "ex18_*", T + "ex6_*", T + "ex5_*", T + "ex7_*"],
    # algebraic multigrid: GAMG (smoothed aggregation, classical), ML on 2D/3D elasticity, and
    # HMG (GAMG/BoomerAMG inner solvers, products with MAIJ interpolations)
    "amg": [T + "ex54_*", T + "ex55_*", T + "ex56_*", T + "ex4_*"],
    # nonlinear solves: Newton with DMDA matrices and vectors (Bratu: multigrid, FAS, matrix-free
    # Jacobians, NGMRES), the 1D and 2D examples
    "snes": [S + "ex1_*", S + "ex2_*", S + "ex5_*"],
    # Mat tests that caught the plugin's own gaps (harness-default of 0beb21d): MatCopy() and
    # MatAXPY() with DIFFERENT_NONZERO_PATTERN from an aij matrix at block size 2 (the allocation),
    # products with MAT_FORCE_DIAGONAL_ENTRIES, COO assembly with transposes and products on 7 ranks
    # (sub-matrices AIJ made of our type)
    "mat": ["mat_tests-ex37_*", "mat_tests-ex81_*", "mat_tests-ex123_*"],
}
# subsets that make no DM: the matrix type injected without -dm_mat_type (reported unused after 3.18)
SUBSET_ARGS = {"mat": ["--inject", "mat-only"]}


def harness_module():
    """tests/harness/harness.py, imported"""
    sys.path.insert(0, os.path.dirname(HARNESS))
    try:
        import harness
    finally:
        sys.path.pop(0)
    return harness


def harness_tree_or_skip():
    """PETSc's test harness of the PETSc under test (harness.py's own search), or skip: a PETSc
    installed without its examples tree (e.g. Debian's without libpetsc3.18-dev-examples) has none."""
    harness = harness_module()
    petsc_dir = os.environ.get("PETSC_DIR") or "/usr/lib/petsc"
    try:
        return harness.find_examples_tree(petsc_dir)
    except SystemExit as e:
        pytest.skip("no PETSc test harness for PETSC_DIR=%s: %s" % (petsc_dir, e))


def run_harness(tmp_path, *args):
    if not os.path.isfile(LIB):
        pytest.skip("plugin library %s not built (make lib, or set AIJHYBRID_LIB)" % LIB)
    harness_tree_or_skip()
    out_json = str(tmp_path / "summary.json")
    cmd = [PYTHON, HARNESS, "--lib", LIB, "--json", out_json] + list(args)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=TIMEOUT)
    text = p.stdout
    # the summary is everything from the first "=====" rule on
    i = text.find("=" * 78)
    summary = text[i:] if i >= 0 else text[-6000:]
    data = None
    if os.path.isfile(out_json):
        with open(out_json) as fh:
            data = json.load(fh)
    return p.returncode, summary, data, " ".join(cmd)


def test_examples(tmp_path):
    """Our examples (examples/ex*.c, linked against the plugin) all pass in PETSc's harness."""
    rc, summary, data, cmd = run_harness(tmp_path, "--examples-only")
    assert rc == 0, "%s\n%s" % (cmd, summary)
    assert data and data["runs"]["examples"]["executed"] > 0, summary


def test_examples_carry_test_blocks_with_outputs():
    """every example has a /*TEST ... TEST*/ block in PETSc's format, every test of it a reference
    output in examples/output/<ex>_<suffix>.out, and every output file a test (the harness run above
    compares them)"""
    import glob
    import re

    tests = set()
    for src in sorted(glob.glob(os.path.join(REPO, "examples", "ex*.c"))):
        text = open(src).read()
        m = re.search(r"/\*TEST\n(.*?)\nTEST\*/", text, re.S)
        assert m, "%s has no /*TEST ... TEST*/ block" % src
        name = os.path.basename(src)[:-2]
        suffixes = re.findall(r"^\s*suffix:\s*(\S+)", m.group(1), re.M)
        assert suffixes and len(suffixes) == len(re.findall(r"^\s*test:", m.group(1), re.M)), (src, suffixes)
        tests |= {"%s_%s.out" % (name, s) for s in suffixes}
    outputs = {os.path.basename(p) for p in glob.glob(os.path.join(REPO, "examples", "output", "*.out"))}
    assert tests == outputs, "tests without output: %s; outputs without test: %s" % (sorted(tests - outputs), sorted(outputs - tests))


@pytest.mark.parametrize("subset", sorted(SUBSETS))
def test_ksp_tutorials(tmp_path, subset):
    """No KSP tutorial that passes with -mat_type aij fails with -mat_type aijhybrid."""
    args = ["--no-examples"] + SUBSET_ARGS.get(subset, [])
    for pattern in SUBSETS[subset]:
        args += ["--search", pattern]
    # After PETSc 3.18 some reference outputs sit so close to a tolerance that the hybrid vectors'
    # summation order (fixed blocks, not BLAS's; the same for every thread count) moves a
    # multigrid or Newton iteration count by one (e.g. ksp ex25 on 3.26: residuals equal to 12
    # digits, one more outer iteration). There the subsets inject the matrix type with standard
    # vectors; on 3.18 they inject both (docs/testing.md: a known gap).
    if harness_module().petsc_version(os.environ.get("PETSC_DIR") or "/usr/lib/petsc") > (3, 18, 99):
        args += ["--vectors", "standard"]
    rc, summary, data, cmd = run_harness(tmp_path, *args)
    assert rc == 0, "%s\n%s" % (cmd, summary)
    assert data["runs"]["baseline"]["executed"] > 0 and data["runs"]["plugin"]["executed"] > 0, summary
    assert not data["regressions"], summary


# PetscSF tests (every operation, several -sf_type runs of one example, multi-SF, embedded SFs,
# VecScatter with blocks), VecScatter tests, and tutorials whose DMDA/MATMPIAIJ scatters cross nodes
SF_SUBSET = ["vec_is_sf_tests-ex1_*", "vec_is_sf_tests-ex3_*", "vec_is_sf_tests-ex4_*", "vec_is_sf_tests-ex5_*",
             "vec_is_sf_tests-ex9_*", "vec_is_sf_tests-ex16_*", "vec_vec_tests-ex8_*", "vec_vec_tests-ex24_*",
             T + "ex45_*", "snes_tutorials-ex5_*",
             # no PetscSF (one rank): the injected -sf_nodeaware_node_size is unused and must not show in
             # the output (PETSc reports unused options only with -options_left; the harness filters nothing);
             # the three tutorials whose output the package's own unused-option report changed (issue 30)
             "snes_tutorials-ex1_*", "snes_tutorials-ex2_*", "snes_tutorials-ex6_*"]


def test_sf_injection(tmp_path):
    """No test that passes with -sf_type basic fails with -sf_type nodeaware (emulated nodes of 2)."""
    args = ["--no-examples", "--inject", "sf"]
    for pattern in SF_SUBSET:
        args += ["--search", pattern]
    rc, summary, data, cmd = run_harness(tmp_path, *args)
    assert rc == 0, "%s\n%s" % (cmd, summary)
    assert data["runs"]["baseline"]["executed"] > 0 and data["runs"]["plugin"]["executed"] > 0, summary
    assert not data["regressions"], summary
    # the tests that choose their own -sf_type (ex1_window*, ex4_2_window*, ...) are listed, not left out
    assert data["own_option"], summary
