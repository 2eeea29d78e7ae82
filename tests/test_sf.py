"""The PetscSF type nodeaware against basic.

- tests/unit/sf_nodeaware.c at 1 to 8 ranks (oversubscribed), every node size (0 = shared memory,
  1..ranks emulated), on seeded random graphs: every operation of PETSc's PetscSF interface on the
  units PETSc uses, bitwise equal to basic (a replace-reduction into a root with several leaves: one
  of their values), node-aware exactly where the type says, misuse errors, no leak (-malloc_dump).
- tests/workers/sf.py at 1 to 4 ranks: what applications meet through -sf_type nodeaware
  (VecScatter with block sizes and every InsertMode/ScatterMode, DMDA ghost updates, MATMPIAIJ's
  products and a CG solve), bitwise against the same objects built with -sf_type basic.
- registration: -sf_type nodeaware through -dll_append in a petsc4py application that does not
  import the package, through the import, and (above) MatAIJHybridInitializePackage() in C.
"""

import os
import re

import pytest

import mpirun
from conftest import cached_worker

pytestmark = pytest.mark.mpi

BUILD = os.environ.get("AIJHYBRID_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))


@pytest.mark.parametrize("ranks", range(1, 9))
def test_sf_type_against_basic_random_graphs(ranks):
    exe = os.path.join(BUILD, "tests", "sf_nodeaware")
    assert os.path.exists(exe), "build the unit tests first: make unit"
    cases = 4 if ranks <= 4 else 2
    run = mpirun.run([exe, "-cases", cases, "-malloc_debug", "-malloc_dump"], ranks=ranks, threads=1, timeout=900)
    assert run.rc == 0, run.describe()
    m = re.search(r"sf_nodeaware: (\d+) checks passed, 0 failed", run.output)
    assert m and int(m.group(1)) > 400 * ranks, run.describe()
    leaks = [l for l in run.output.splitlines() if re.match(r"\s*\[\s*\d+\]\s*\d+ bytes", l)]
    assert not leaks, "unfreed memory:\n" + "\n".join(leaks)


@pytest.mark.parametrize("ranks", (1, 2, 3, 4))
def test_sf_type_in_applications(ranks):
    res = cached_worker("sf", ranks, 1, ["-sf_nodeaware_always"], timeout=900).check()
    bad = {k: v for k, v in res["checks"].items() if v != "ok"}
    assert not bad, "failing checks:\n" + "\n".join("%s: %s" % kv for kv in bad.items())
    assert len(res["checks"]) == 7 * (ranks + 1), sorted(res["checks"])


@pytest.mark.parametrize("ranks", (1, 3))
def test_sf_type_registration(ranks, lib_path):
    """The three ways: -dll_append in an application that does not import the package (petsc4py; with
    aij's own VecScatter on the type too), `import petsc_aijhybrid`, and MatAIJHybridInitializePackage()
    from C (tests/unit/sf_nodeaware.c above); -sf_view shows PETSc's lines and the type's."""
    opts = ("-sf_type", "nodeaware", "-sf_nodeaware_node_size", "1", "-sf_view")
    run = mpirun.run_worker("script", ranks, 1, ("noimport", "-dll_append", lib_path, "-mat_type", "aij") + opts)
    res = run.check()
    assert res["sf_type"] == "nodeaware" and res["type"] in ("seqaij", "mpiaij"), res
    assert "type: nodeaware" in run.out and "NodeAware: %d nodes (emulated nodes of 1 ranks)" % ranks in run.out, run.describe()
    ref = cached_worker("script", ranks, 1, args=("noimport", "-mat_type", "aij")).check()
    assert ref["sf_type"] == "basic" and res["ysum"] == ref["ysum"]
    res = cached_worker("script", ranks, 1, args=("plain", "-mat_type", "aij") + opts[:4]).check()
    assert res["sf_type"] == "nodeaware"
    run = mpirun.run_worker("script", 1, 1, ("noimport", "-sf_type", "nodeaware"))
    assert run.rc != 0 and "nodeaware" in run.output, run.describe()
