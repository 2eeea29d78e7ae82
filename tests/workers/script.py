"""Generic small worker: build a 2D Laplacian with the matrix type chosen by the mode, multiply, and
print facts (type, threads, partition) as JSON. Modes:
  plain      : import petsc_aijhybrid, A.setFromOptions() (type from -mat_type / options)
  noimport   : do NOT import petsc_aijhybrid (the plugin must come from -dll_append / PETSC_OPTIONS)
  settype    : import, A.setType('aijhybrid')
  optsdb     : import, set -mat_type aijhybrid through PETSc.Options(), then setFromOptions
  dm         : import, DMDA with -dm_mat_type from the options database
  twice      : import petsc_aijhybrid twice (reload) and call MatAIJHybridInitializePackage again
  prefix     : import, A.setOptionsPrefix('foo_'), setType('aijhybrid'), setFromOptions
  view       : import, setType, setFromOptions, assemble, A.viewFromOptions('-mat_view')
Every mode also reports the type of A's vectors, of a vector set up by VecSetFromOptions (-vec_type) and of a
VecCreateMPI vector, and whether that one carries the hybrid context (-vec_hybrid_standard).
Every mode then makes a PetscSF with PetscSFSetFromOptions() (type from -sf_type), a ring graph,
broadcasts over it, and reports its type and the result (-sf_view shows it).
usage: script.py MODE [PETSc options]
"""

import importlib
import sys

mode = sys.argv[1]
import common as C  # noqa: E402

C.init(sys.argv[2:], load_plugin=mode != "noimport")
PETSc = C.PETSc


def laplacian(A, n=12):
    C.fill_laplacian_2d(A, n)


out = {"mode": mode, "size": C.size()}
if mode == "dm":
    da = PETSc.DMDA().create(dim=2, sizes=(12, 12), stencil_width=1, setup=False)
    da.setFromOptions()
    da.setUp()
    A = da.createMat()
    A.zeroEntries()
    A.shift(1.0)
else:
    A = PETSc.Mat().create()
    A.setSizes(144)
    if mode == "prefix":
        A.setOptionsPrefix("foo_")
    if mode in ("settype", "prefix", "view"):
        A.setType("aijhybrid")
    if mode == "optsdb":
        PETSc.Options()["mat_type"] = "aijhybrid"
    A.setFromOptions()
    A.setPreallocationNNZ((5, 4))
    laplacian(A)
if mode == "twice":
    import petsc_aijhybrid

    importlib.reload(petsc_aijhybrid)
    import petsc_aijhybrid as again  # noqa: F401

    assert C.ph._loader.lib().MatAIJHybridInitializePackage() == 0
    assert C.ph.load() is C.ph._loader.lib()
    B = PETSc.Mat().create()
    B.setSizes(10)
    B.setType("aijhybrid")
    B.setUp()
    B.assemble()
    out["twice_type"] = B.getType()
x, y = A.createVecRight(), A.createVecLeft()
out["vec_type"] = x.getType()
v = PETSc.Vec().create()
v.setSizes((None, 100))
v.setFromOptions()  # -vec_type
out["fromoptions_vec_type"] = v.getType()
w = PETSc.Vec().createMPI((None, 100))  # -vec_hybrid_standard: the hybrid context on a standard vector
out["standard_vec_type"] = w.getType()
out["standard_vec_threaded"] = w.query("VecHybrid_Context") is not None
x.set(1.0)
A.mult(x, y)
out["type"] = A.getType()
ysum = complex(y.sum())  # complex PetscScalar: the matrix and x are real, so is the sum
assert ysum.imag == 0, ysum
out["ysum"] = ysum.real
if C.ph is not None and "aijhybrid" in A.getType():
    out["threads"] = C.ph.get_num_threads(A)
    out["partition"] = C.ph.get_partition_type(A)
    out["row_cost"] = C.ph.get_row_cost(A)
    out["diffusion"] = list(C.ph.get_diffusion(A))
    out["first_touch"] = C.ph.get_first_touch(A)
    out["task_share"] = C.ph.get_task_share(A)[0]
    out["prefetch"] = list(C.ph.get_prefetch(A))
    out["thread_times"] = C.ph.get_thread_times(A)
if mode == "view":
    A.viewFromOptions("-mat_view")
# a PetscSF whose type comes from the options (-sf_type): leaf i of rank r <- root i of rank r+1
import numpy as np  # noqa: E402

sf = PETSc.SF().create(comm=PETSc.COMM_WORLD)
sf.setFromOptions()
P, r = C.size(), C.rank()
sf.setGraph(3, None, np.array([(r + 1) % P, 0, (r + 1) % P, 1, (r + 1) % P, 2], dtype=PETSc.IntType))
sf.setUp()
root = np.array([10.0 * r + i for i in range(3)])
leaf = np.zeros(3)
from mpi4py import MPI  # noqa: E402

sf.bcastBegin(MPI.DOUBLE, root, leaf, MPI.REPLACE)
sf.bcastEnd(MPI.DOUBLE, root, leaf, MPI.REPLACE)
assert list(leaf) == [10.0 * ((r + 1) % P) + i for i in range(3)], leaf
out["sf_type"] = sf.getType()
sf.viewFromOptions("-sf_view")
sf.destroy()
C.report(out)
