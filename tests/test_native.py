"""Loading the plugin changes nothing of PETSc's own (issue 30, item 1).

tests/unit/native_probe.c is built against PETSc alone. It runs a set of solves on an `aij`
matrix (PCILU, PCICC, PCLU, PCCHOLESKY on one rank; PCBJACOBI and PCASM with ILU, ICC and LU
sub-solves, with one and two blocks per rank) and prints, for each, the type names of the KSP, PC,
sub-PC, sub-matrix and factor, the factor's solver type, every entry of their operation tables and
every function composed on the matrices (as the shared object holding it and its offset there),
what the solves compute (iterations, residual history and PCApply() digests, also after new values
through assembly and through MatScale()), and the creators MatSolverTypeGet() finds for PETSc's own
matrix types. Here:

- the output of a process that loaded the plugin (-dll_append) equals, line for line, that of a
  process that did not, at 1 and 2 ranks: every function pointer and type name PETSc uses is PETSc's;
- the converse with -mat_type aijhybrid: the diagonal blocks (PCBJACOBI) and sub-matrices (PCASM) of
  the matrix are seqaijhybrid, their ILU/ICC factors' solves are the plugin's, and the
  preconditioner is bitwise aij's (PCApply() digests and iteration counts equal those of the
  process without the plugin), also after new values, which shows the factors were rebuilt.

To probe more (vectors, scatters, ...), add a section to the probe: every line it prints takes part
in the first comparison.
"""

import os
import re

import pytest

import mpirun
from conftest import cached_worker  # noqa: F401  (the session's MPI settings)

pytestmark = pytest.mark.mpi

BUILD = os.environ.get("AIJHYBRID_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
PROBE = os.path.join(BUILD, "tests", "native_probe")
LINE = re.compile(r"^native \[(\d+)\] (\S+) = (.*)$")
LEAK = re.compile(r"^\s*\[\s*\d+\]\s*\d+ bytes ", re.M)
PLUGIN = "libpetscaijhybrid"

# the solves with an ILU/ICC factor, and whether their factor sits in a sub-PC (PCBJACOBI/PCASM)
FACTOR_CASES = {"ilu": False, "icc": False, "bjacobi_ilu": True, "bjacobi_icc": True, "bjacobi2": True, "asm_ilu": True, "asm_icc": True, "asm2": True}

_runs = {}


def probe(ranks, threads, args=()):
    """{(rank, key): value} of one run of the probe (cached for the session)."""
    key = (ranks, threads, tuple(args))
    if key not in _runs:
        assert os.path.exists(PROBE), "build the unit tests first: make unit"
        run = mpirun.run([PROBE, "-malloc_debug", "-malloc_dump"] + list(args), ranks=ranks, threads=threads, timeout=600)
        assert run.rc == 0 and "native: done" in run.out, run.describe()
        assert not LEAK.search(run.output), "unfreed memory:\n" + run.output[-3000:]
        values = {}
        for line in run.out.splitlines():
            m = LINE.match(line)
            if m:
                values[(int(m.group(1)), m.group(2))] = m.group(3)
        assert len(values) > 1000, run.describe()
        _runs[key] = values
    return _runs[key]


def differences(a, b, limit=40):
    keys = sorted(set(a) | set(b))
    diff = ["%s: %s  !=  %s" % (k, a.get(k, "(missing)"), b.get(k, "(missing)")) for k in keys if a.get(k) != b.get(k)]
    return "\n".join(diff[:limit]) + ("\n... %d differences" % len(diff) if len(diff) > limit else "")


@pytest.mark.parametrize("ranks", (1, 2))
def test_aij_unchanged_by_plugin(ranks, lib_path):
    plain = probe(ranks, 2)
    loaded = probe(ranks, 2, ["-dll_append", lib_path])
    assert plain == loaded, "loading the plugin changed what PETSc runs:\n" + differences(plain, loaded)
    # the comparison covers the cases and the factorizations PETSc registers
    cases = {k.split(".")[0] for (_, k) in plain}
    assert {"bjacobi_ilu", "bjacobi_icc", "bjacobi_lu", "bjacobi2", "asm_ilu", "asm_icc", "asm_lu", "asm2"} <= cases, cases
    if ranks == 1:
        assert {"ilu", "icc", "lu", "cholesky"} <= cases, cases
    assert not any(PLUGIN in v for v in loaded.values())
    assert plain[(0, "solvertype.petsc.seqaij.ILU")].startswith("libpetsc"), plain[(0, "solvertype.petsc.seqaij.ILU")]


@pytest.mark.parametrize("ranks", (1, 2))
def test_aijhybrid_blocks_and_factors_are_threaded(ranks, lib_path):
    plain = probe(ranks, 2)
    hyb = probe(ranks, 2, ["-dll_append", lib_path, "-mat_type", "aijhybrid", "-mat_aijhybrid_num_threads", "2", "-mat_aijhybrid_factor_solve", "threaded"])
    for rank in range(ranks):
        for case, sub in FACTOR_CASES.items():
            if (rank, case + ".factor.type") not in plain:
                continue  # not run at this rank count
            assert hyb[(rank, case + ".mat.type")] == ("seqaijhybrid" if ranks == 1 else "mpiaijhybrid")
            if sub:
                assert hyb[(rank, case + ".submat.type")] == "seqaijhybrid", (case, hyb[(rank, case + ".submat.type")])
            assert hyb[(rank, case + ".factor.type")] == plain[(rank, case + ".factor.type")]
            assert hyb[(rank, case + ".factor.solve")].startswith(PLUGIN), (case, hyb[(rank, case + ".factor.solve")])
            assert plain[(rank, case + ".factor.solve")].startswith("libpetsc"), (case, plain[(rank, case + ".factor.solve")])
        # the matrix's composed functions are taken off every factor (PETSc copies the matrix's list into
        # it): only the factor's own Gets are the plugin's
        for (r, k), v in hyb.items():
            if r == rank and ".factor.composed." in k and v.startswith(PLUGIN):
                assert k.endswith((".MatAIJHybridGetFactorInfo_C", ".MatAIJHybridGetFactorChoiceSamples_C")), (k, v)
        # the preconditioner is aij's, bit for bit, also after new values (the factors follow them)
        for (r, k), v in plain.items():
            if r == rank and k.endswith((".pcapply", ".iterations")):
                assert hyb[(r, k)] == v, (k, hyb[(r, k)], v)
