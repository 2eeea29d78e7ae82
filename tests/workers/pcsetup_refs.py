"""pcsetup worker: the benchmark's one setup-and-solve (aijhybrid_bench.pcsetup._one) on an aijhybrid
2D Laplacian, CG + GAMG and GMRES + ILU(0) (block Jacobi on several ranks), three times each:
the matrix's reference count before and after each run. A preconditioner that outlives its run
holds a reference to the matrix (and its whole hierarchy stays allocated until PETSc finalizes:
a petsc4py PC wrapper kept past KSPDestroy goes to petsc4py's garbage, which is how the setup
benchmark grew by gigabytes per matrix). The same check of a run that keeps its PC past the KSP
shows the count catches it.
"""

import sys
import types

import common as C

C.init(sys.argv[1:])
PETSc = C.PETSc
from mpi4py import MPI  # noqa: E402

from aijhybrid_bench import pcsetup  # noqa: E402

n = 40
A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
A.setSizes([n * n, n * n])
A.setType("aijhybrid")
A.setPreallocationNNZ(5)
C.fill_laplacian_2d(A, n)
b = A.createVecLeft()
b.set(1.0)
comm = MPI.COMM_WORLD
group = types.SimpleNamespace(comm=comm, size=comm.size, ranks=comm.size, threads=2, member=True, partial=False)
variant = types.SimpleNamespace(A=A, b=b, group=group, spec={"type": "aijhybrid"}, label="aijhybrid")
cfg = {"rtol": 1e-6, "max_it": 500}
checks = C.Checks()
counts = {}
kept = []


def runs(method, keep_pc=False):
    c = pcsetup._Combo(method, variant, "aijhybrid", 0)
    c.stage = PETSc.Log.Stage("refs_" + method["label"])
    seen = [A.getRefCount()]
    for _ in range(3):
        if keep_pc:  # the old code's order: a PC wrapper that outlives its KSP
            ksp = PETSc.KSP().create(comm=A.getComm())
            ksp.setOperators(A)
            ksp.setType(method["ksp"])
            ksp.getPC().setType("gamg")
            ksp.setUp()
            kept.append(ksp.getPC())
            ksp.destroy()
        else:
            rec = pcsetup._one(PETSc, MPI, comm, c, cfg, comm.size > 1)
            assert rec["reason"] > 0, rec["reason"]
        seen.append(A.getRefCount())
    counts[method["label"] + (" (PC kept)" if keep_pc else "")] = seen
    return seen


def same_count(method):
    seen = runs(method)
    assert len(set(seen)) == 1, "the matrix's reference count grew run after run: %s" % seen


def kept_pc_grows():
    seen = runs(pcsetup.DEFAULT_METHODS[0], keep_pc=True)
    assert seen[-1] > seen[0], "a kept PC was not seen: %s" % seen


for m in pcsetup.DEFAULT_METHODS:
    checks.run("refs " + m["label"], same_count, m)
checks.run("kept PC is seen", kept_pc_grows)
kept.clear()
if hasattr(PETSc, "garbage_cleanup"):
    PETSc.garbage_cleanup(comm)
checks.info["refcounts"] = counts
b.destroy()
A.destroy()
C.report(checks.result())
