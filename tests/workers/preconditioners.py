"""Worker: whole solves with the threaded preconditioners (tests/test_preconditioners.py).

One solve of a 3D Poisson 7-point matrix (m^3 rows; -m, default 12) with the KSP/PC given by the
options (-ksp_type, -pc_type, ... as usual), the matrix aij (-hybrid 0) or aijhybrid (-hybrid 1,
its options -mat_aijhybrid_* as given; -prefix P: the matrix's options prefix); b = 1, x0 = 0,
hybrid vectors for both. Reports the iterations, the residual
history, the converged reason, a digest of one PCApply() (the preconditioner's bits) and, for
factor PCs (also the first block of PCBJACOBI/PCASM), the factor's threaded-solve info.
"""
import hashlib
import sys

import numpy as np

import common as C

C.init(sys.argv[1:])
PETSc = C.PETSc
opts = PETSc.Options()
m = opts.getInt("m", 12)
hybrid = opts.getBool("hybrid", False)
prefix = opts.getString("prefix", "")
n = m * m * m

A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
A.setSizes(n)
A.setType("aij")
A.setPreallocationNNZ((7, 6))
rs, re = A.getOwnershipRange()
for r in range(rs, re):
    i, j, k = r % m, (r // m) % m, r // (m * m)
    A.setValue(r, r, 6.0)
    for di, dj, dk in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
        ii, jj, kk = i + di, j + dj, k + dk
        if 0 <= ii < m and 0 <= jj < m and 0 <= kk < m:
            A.setValue(r, ii + m * (jj + m * kk), -1.0)
A.assemble()
if prefix:
    A.setOptionsPrefix(prefix)
if hybrid:
    A.convert("aijhybrid")
    A.setFromOptions()

ksp = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
ksp.setOperators(A)
ksp.setTolerances(rtol=1e-8, max_it=400)
ksp.setConvergenceHistory()
ksp.setFromOptions()
# hybrid vectors for aij and aijhybrid alike (aijhybrid's createVecLeft gives them): the Krylov
# arithmetic is the same (its sums do not depend on the threads), so only the preconditioner differs
b = PETSc.Vec().create(comm=PETSc.COMM_WORLD)
b.setSizes((A.getLocalSize()[0], n))
b.setType("hybrid")
b.set(1.0)
x = b.duplicate()
x.set(0.0)
ksp.solve(b, x)

info = {}
pc = ksp.getPC()
if hybrid:
    sub = pc
    if pc.getType() == "asm":
        sub = pc.getASMSubKSP()[0].getPC()
    elif pc.getType() == "bjacobi" and hasattr(pc, "getBJacobiSubKSP"):  # (not in petsc4py 3.18)
        sub = pc.getBJacobiSubKSP()[0].getPC()
    if sub.getType() in ("ilu", "icc"):
        info = C.ph.get_factor_info(sub.getFactorMatrix())
# the preconditioner's bits: a digest of PCApply() of a fixed vector, gathered in the global order
v = b.duplicate()
rs, re = v.getOwnershipRange()
v.setArray(np.sin(0.37 * np.arange(rs, re)) + 1.0)
y = b.duplicate()
pc.apply(v, y)
parts = C.comm.gather(y.getArray(readonly=True).copy(), root=0)
pcapply = hashlib.sha256(np.concatenate(parts).tobytes()).hexdigest() if C.rank() == 0 else None
hist = [float(v) for v in ksp.getConvergenceHistory()]
r = b.duplicate()
A.mult(x, r)
r.aypx(-1.0, b)
C.report({"pcapply": pcapply, "iterations": ksp.getIterationNumber(), "reason": int(ksp.getConvergedReason()), "history": hist, "factor": info, "type": A.getType(),
          "residual": float(r.norm()), "bnorm": float(b.norm())})
