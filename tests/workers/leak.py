"""Leak worker: creates, uses and destroys aijhybrid matrices (create, duplicate, conversions both
ways, products, transposes, zeroRows, new nonzeros, MatMatMult, a CG solve) under the PETSc
options given (the test passes -malloc_debug -malloc_dump, which print '[ r] N bytes func() at
file:line' for every block still allocated at PetscFinalize). With 'leak' as first argument it leaks
one matrix on purpose (to show the test can fail).
"""

import ctypes
import sys

import common as C

deliberate = len(sys.argv) > 1 and sys.argv[1] == "leak"
C.init(sys.argv[2:] if deliberate else sys.argv[1:])
PETSc, ph = C.PETSc, C.ph


def work():
    c = C.Case("leak", 50, 50, 3, diag=True, rpat="zero_middle", density=4.0)
    Aa, Ah = c.create("aij"), c.create("aijhybrid")
    x, y = Ah.createVecRight(), Ah.createVecLeft()
    x.set(1.0)
    for t in (1, 2, 3):
        ph.set_num_threads(Ah, t)
        Ah.mult(x, y)
        Ah.multAdd(x, y, y)
        Ah.multTranspose(y, x)
        Ah.multTransposeAdd(y, x, x)
    B = Ah.duplicate(copy=True)
    B.mult(x, y)
    D = Ah.convert("aij", PETSc.Mat())
    E = Aa.convert("aijhybrid", PETSc.Mat())
    E.convert("aij", E)
    E.convert("aijhybrid", E)
    F = Ah.convert("dense", PETSc.Mat())
    G = Ah.matMult(Ah)
    G.mult(x, y)
    T = Ah.transpose(PETSc.Mat())
    T.multTranspose(x, y)
    rs, re = Ah.getOwnershipRange()
    B.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
    if re > rs:
        B.setValue(rs, (re + 3) % 50, 1.0, addv=True)
    B.assemble()
    B.mult(x, y)
    B.multTranspose(y, x)
    B.zeroRows(list(range(rs, re, 4)), diag=1.0)
    B.mult(x, y)
    ksp = PETSc.KSP().create()
    ksp.setOperators(Ah)
    ksp.setType("cg")
    ksp.getPC().setType("jacobi")
    ksp.solve(y, x)
    for o in (ksp, Aa, Ah, x, y, B, D, E, F, G, T):
        o.destroy()
    if deliberate:
        L = c.create("aijhybrid")
        L.mult(L.createVecRight(), L.createVecLeft())
        ctypes.CDLL(None).PetscObjectReference(ctypes.c_void_p(L.handle))  # never released
        L.destroy()


work()
C.report({"ok": True, "size": C.size()})
