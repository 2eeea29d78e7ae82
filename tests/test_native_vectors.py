"""Loading the plugin changes nothing of PETSc's own (issue 30, item 1): vectors and scatters (the
solves, factors and matrices: tests/test_native.py).

tests/unit/native_vectors.c is built against PETSc alone. It prints the constructors PETSc's type
list holds for seq, mpi and standard vectors, and for the vectors an application gets from PETSc
(VecCreateSeq(), VecCreateMPI(), VecCreate() + VecSetFromOptions(), their duplicates, MatCreateVecs()
of an aij matrix, a KSP's work vectors after a solve, the PetscSF of a VecScatter) the type name,
every entry of the operation table (as the shared object holding it and its offset there), the
functions composed on it and whether it carries the plugin's context. Here:

- the output of a process that loaded the plugin (-dll_append) equals, line for line, that of a
  process that did not, at 1 and 2 ranks;
- threading the standard vectors is an explicit opt-in: with -vec_hybrid_standard the constructors
  of seq and mpi in PETSc's type list are the plugin's and the vectors carry its context and
  operations under PETSc's type names; VecHybridSetStandard(PETSC_FALSE) puts PETSc's constructors
  back, after which the output equals again that of a process without the plugin.
"""

import os
import re

import pytest

import mpirun
from conftest import cached_worker  # noqa: F401  (the session's MPI settings)

pytestmark = pytest.mark.mpi

VECTORS = mpirun.BUILD / "tests" / "native_vectors"
LINE = re.compile(r"^native \[(\d+)\] (\S+) = (.*)$")
PLUGIN = "libpetscaijhybrid"

_runs = {}


def vectors(ranks, args=()):
    """{(rank, key): value} of one run of build/tests/native_vectors (cached for the session)"""
    key = (ranks, tuple(args))
    if key not in _runs:
        assert VECTORS.exists(), "build the unit tests first: make unit"
        run = mpirun.run([VECTORS] + list(args), ranks=ranks, threads=2, timeout=300)
        assert run.rc == 0 and "native: done" in run.out, run.describe()
        values = {}
        for line in run.out.splitlines():
            m = LINE.match(line)
            if m:
                values[(int(m.group(1)), m.group(2))] = m.group(3)
        assert len(values) > 500, run.describe()
        _runs[key] = values
    return _runs[key]


def dll(*extra):
    return ("-dll_append", str(mpirun.LIB)) + extra


def differences(a, b):
    return sorted("%s: %s | %s" % (k, a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k))


@pytest.mark.parametrize("ranks", (1, 2))
def test_loading_the_plugin_changes_no_vector(ranks):
    plain, loaded = vectors(ranks), vectors(ranks, dll())
    assert plain[(0, "VecList.seq")].startswith("libpetsc") and plain[(0, "VecList.mpi")].startswith("libpetsc"), plain[(0, "VecList.seq")]
    assert not [v for v in plain.values() if PLUGIN in v], "the plugin in a process that did not load it?"
    diff = differences(plain, loaded)
    assert not diff, "with the plugin loaded, PETSc's vectors differ:\n" + "\n".join(diff[:40])


@pytest.mark.parametrize("ranks", (1, 2))
def test_threaded_standard_vectors_are_an_explicit_opt_in(ranks):
    plain, opted = vectors(ranks), vectors(ranks, dll("-vec_hybrid_standard"))
    assert PLUGIN in opted[(0, "VecList.seq")] and PLUGIN in opted[(0, "VecList.mpi")], (opted[(0, "VecList.seq")], opted[(0, "VecList.mpi")])
    assert opted[(0, "VecList.standard")] == plain[(0, "VecList.standard")]
    std = "mpi" if ranks > 1 else "seq"
    for label, typ in (("VecCreateSeq", "seq"), ("VecCreateMPI", "mpi"), ("VecSetFromOptions", std), ("MatCreateVecs", std), ("KSPCreateVecs", std)):
        for lab in (label, label + ".duplicate"):
            assert opted[(0, lab + ".type")] == typ, (lab, opted[(0, lab + ".type")])
            assert opted[(0, lab + ".hybrid_context")] == "present", lab
            assert plain[(0, lab + ".hybrid_context")] == "none", lab
    assert opted[(0, "VecScatter.type")] == plain[(0, "VecScatter.type")]
    off = vectors(ranks, dll("-vec_hybrid_standard", "-standard_off"))
    diff = differences(plain, off)
    assert not diff, "after VecHybridSetStandard(PETSC_FALSE), PETSc's vectors differ:\n" + "\n".join(diff[:40])
