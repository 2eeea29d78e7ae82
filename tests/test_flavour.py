"""The PETSc flavour the plugin was built for (real/complex scalars, 32/64-bit indices, debug or
optimised PETSc), checked in C and in petsc4py:

- tests/unit/flavour_smoke.c at 1 and 2 ranks with 2 threads, under -malloc_debug -malloc_dump:
  every multiply variant (mult, multadd, multtranspose, multtransposeadd, z distinct and z == y,
  multhermitiantranspose) against MATAIJ for 1-3 threads and both modes, on a matrix and vectors
  with imaginary parts in complex builds, and a GMRES+Jacobi solve with each type;
- petsc4py with petsc_aijhybrid loaded runs the same flavour as the library (scalar and index
  widths), loads the library of this build, and an aijhybrid product with complex entries (complex
  builds) matches aij.

`make test-flavours` sets AIJHYBRID_EXPECT_FLAVOUR (e.g. "scalar complex, int 64, debug no"): the
flavour found must then be that one, so that a wrong PETSC_DIR cannot pass as another flavour.
"""
import os
import json
import re

import pytest

import mpirun

EXPECT = os.environ.get("AIJHYBRID_EXPECT_FLAVOUR")
VARIANTS = ("MatMult", "MatMultAdd", "MatMultAdd(z == y)", "MatMultTranspose", "MatMultTransposeAdd",
            "MatMultTransposeAdd(z == y)", "MatMultHermitianTranspose")
LEAK = re.compile(r"^\s*\[\s*\d+\]\s*\d+ bytes", re.M)

PROBE = r"""
import json, os, numpy as np, petsc4py
petsc4py.init()
from petsc4py import PETSc
import petsc_aijhybrid as ph
cplx = np.dtype(PETSc.ScalarType).kind == "c"
n = 30
mats = {}
for t in ("aij", "aijhybrid"):
    A = PETSc.Mat().createAIJ([n, n], nnz=3)
    A.setType(t)
    A.setPreallocationNNZ(3)
    for i in range(n):
        A.setValue(i, i, 4.0 + (1j if cplx else 0), addv=True)
        A.setValue(i, (7 * i + 3) % n, -1.0 + (0.5j if cplx else 0), addv=True)
    A.assemble()
    mats[t] = A
x = mats["aij"].createVecRight()
x.setArray(np.arange(n) + (1j * np.arange(n)[::-1] if cplx else 0))
ya, yh = mats["aij"].createVecLeft(), mats["aijhybrid"].createVecLeft()
mats["aij"].mult(x, ya)
mats["aijhybrid"].mult(x, yh)
err = float(np.max(np.abs(ya.getArray() - yh.getArray())))
print("@@PROBE " + json.dumps(dict(scalar="complex" if cplx else "real", int=8 * np.dtype(PETSc.IntType).itemsize,
      type=mats["aijhybrid"].getType(), lib=os.path.realpath(ph.library_path()), err=err,
      imag=float(np.max(np.abs(np.imag(ya.getArray())))), version=".".join(map(str, PETSc.Sys.getVersion())))))
"""


def smoke(ranks):
    exe = mpirun.BUILD / "tests" / "flavour_smoke"
    assert exe.exists(), "build the unit tests first: make unit"
    run = mpirun.run([exe, "-malloc_debug", "-malloc_dump"], ranks=ranks, threads=2)
    assert run.rc == 0, run.describe()
    return run


@pytest.mark.parametrize("ranks", (1, 2))
def test_c_smoke_every_product_and_ksp(ranks):
    run = smoke(ranks)
    out = run.output
    flavour = re.search(r"^flavour: (.*)$", out, re.M)
    assert flavour, run.describe()
    if EXPECT:
        assert flavour.group(1) == EXPECT, "built against %r, expected %r" % (flavour.group(1), EXPECT)
    for v in VARIANTS:
        assert "\n%s matches aij\n" % v in "\n" + out, "%s: no match line\n%s" % (v, run.describe())
    assert re.search(r"^KSP gmres/jacobi matches aij \(\d+ iterations\)$", out, re.M), run.describe()
    assert not LEAK.search(out), "unfreed memory:\n" + out[-4000:]


def test_petsc4py_runs_the_same_flavour():
    flavour = re.search(r"^flavour: scalar (\w+), int (\d+), debug (\w+)$", smoke(1).output, re.M)
    assert flavour, "no flavour line from flavour_smoke"
    run = mpirun.run([mpirun.PYTHON, "-c", PROBE], ranks=1, threads=2)
    assert run.rc == 0, run.describe()
    m = re.search(r"^@@PROBE (.*)$", run.out, re.M)
    assert m, run.describe()
    probe = json.loads(m.group(1))
    assert (probe["scalar"], probe["int"]) == (flavour.group(1), int(flavour.group(2))), (probe, flavour.group(0))
    assert probe["lib"] == os.path.realpath(str(mpirun.LIB)), probe
    assert probe["type"] == "seqaijhybrid", probe
    assert probe["err"] <= 1e-13 * 200, probe
    if probe["scalar"] == "complex":
        assert probe["imag"] > 0, probe

