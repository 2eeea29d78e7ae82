"""A product that fails on ranks 0 and 1 only (x of the wrong local size there, global size right),
under petsc4py, with the exception hook an MPI application in Python needs: print the error, then
MPI_Abort, so that the ranks waiting inside the product (in the halo exchange) are ended too.
Without such a hook the failing ranks' interpreters end in PetscFinalize()/MPI_Finalize() while the
others wait for ghost values: the run hangs, with aij exactly as with aijhybrid (README, Hardening).
(-on_error_abort does not help under petsc4py, which installs its own PETSc error handler.)

usage: rank_error.py [PETSc options]     (3 or more ranks)
"""

import sys

import common as C

C.init(sys.argv[1:])
PETSc = C.PETSc


def abort_on_exception(t, v, tb):
    sys.__excepthook__(t, v, tb)
    sys.stderr.flush()
    C.comm.Abort(5)


sys.excepthook = abort_on_exception

A = PETSc.Mat().create()
A.setSizes(60)
A.setType("aijhybrid")
A.setFromOptions()
A.setPreallocationNNZ((3, 2))
rs, re = A.getOwnershipRange()
for i in range(rs, re):
    A.setValue(i, i, 2.0)
    A.setValue(i, (i + 30) % 60, -1.0)  # a ghost on every rank
A.assemble()
r = C.rank()
nl = re - rs + ((1 if r == 0 else -1 if r == 1 else 0) if C.size() >= 3 else 0)
x = PETSc.Vec().createMPI((nl, 60))
x.set(1.0)
y = A.createVecLeft()
A.mult(x, y)
C.report({"passed": True})
