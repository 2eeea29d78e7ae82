"""Bad-input worker: each wrong call must raise a PETSc error (or ValueError in the Python layer),
never crash or hang, and leave the matrix unchanged (products still equal to aij).

usage: badinput.py [PETSc options]
"""

import sys

import common as C

C.init(sys.argv[1:])
PETSc, ph = C.PETSc, C.ph
checks = C.Checks(abort_on_failure=True)
info = checks.info


def pair():
    c = C.Case("bad", 40, 40, 21, diag=True, density=4.0)
    return c.create("aij"), c.create("aijhybrid")


def same(Ah, Aa):
    x = C.rand_vec(Aa.createVecRight(), 1)
    ya, yh = Aa.createVecLeft(), Ah.createVecLeft()
    Aa.mult(x, ya)
    Ah.mult(x, yh)
    assert C.rel_err(yh, ya) <= 1e-13
    Aa.multTranspose(ya, x)
    xh = x.duplicate()
    Ah.multTranspose(ya, xh)
    assert C.rel_err(xh, x) <= 1e-13


def expect_error(fn, what):
    try:
        fn()
    except PETSc.Error as e:
        info[what] = int(e.ierr)
        return e
    raise AssertionError("%s did not raise" % what)


def t_num_threads():
    Aa, Ah = pair()
    ph.set_num_threads(Ah, 2)
    for bad in (0, -3, 5000):
        expect_error(lambda: ph.set_num_threads(Ah, bad), "set_num_threads(%d)" % bad)
        assert ph.get_num_threads(Ah) == 2, "thread count changed by a refused call"
        same(Ah, Aa)
    # -1 (PETSC_DECIDE) and -2 (PETSC_DEFAULT, Python None) go back to the OpenMP default
    default = int(__import__("os").environ["OMP_NUM_THREADS"])
    for v in (-1, -2, None):
        ph.set_num_threads(Ah, 3)
        ph.set_num_threads(Ah, v)
        assert ph.get_num_threads(Ah) == default, (v, ph.get_num_threads(Ah))
        same(Ah, Aa)


def t_other_setters():
    Aa, Ah = pair()
    expect_error(lambda: ph.set_row_cost(Ah, -1.0), "set_row_cost(-1)")
    expect_error(lambda: ph.set_row_cost(Ah, float("inf")), "set_row_cost(inf)")
    assert ph.get_row_cost(Ah) == 2.0
    expect_error(lambda: ph.set_diffusion(Ah, -1.0, 10), "set_diffusion(-1)")
    expect_error(lambda: ph.set_diffusion(Ah, 0.1, -1), "set_diffusion(max_it -1)")
    assert ph.get_diffusion(Ah) == (0.01, 50)
    for bad in (-0.5, 1.5, float("nan")):
        expect_error(lambda: ph.set_task_share(Ah, bad), "set_task_share(%g)" % bad)
    assert ph.get_task_share(Ah) == (None, 1.0)
    try:
        ph.set_partition_type(Ah, "bogus")
    except ValueError as e:
        assert all(k in str(e) for k in ("rows", "nnz", "diffusion", "optimal")), str(e)
    else:
        raise AssertionError("wrong partition name accepted")
    assert ph.get_partition_type(Ah) == "nnz"
    # C-level invalid enum value
    import ctypes

    err = ph._loader.lib().MatAIJHybridSetPartitionType(ctypes.c_void_p(Ah.handle), ctypes.c_int(7))
    assert err != 0, "enum value 7 accepted"
    assert ph.get_partition_type(Ah) == "nnz"
    # getters on a non-aijhybrid matrix
    expect_error(lambda: ph.get_num_threads(Aa), "get_num_threads(aij)")
    same(Ah, Aa)


def t_unassembled():
    Ah = PETSc.Mat().create()
    Ah.setSizes(10)
    Ah.setType("aijhybrid")
    Ah.setPreallocationNNZ(1)
    Ah.setValue(0, 0, 1.0) if Ah.getOwnershipRange()[0] == 0 else None
    x, y = Ah.createVecRight(), Ah.createVecLeft()
    expect_error(lambda: Ah.mult(x, y), "mult unassembled")
    expect_error(lambda: Ah.multTranspose(y, x), "multTranspose unassembled")
    expect_error(lambda: ph.get_partition(Ah), "get_partition unassembled")
    Ah.assemble()
    Ah.mult(x, y)


def t_wrong_global_size():
    Aa, Ah = pair()
    x = PETSc.Vec().createMPI(41)
    y = Ah.createVecLeft()
    expect_error(lambda: Ah.mult(x, y), "mult wrong global size")
    expect_error(lambda: Ah.multAdd(x, y, y), "multAdd wrong global size")
    expect_error(lambda: Ah.multTranspose(y, x), "multTranspose wrong global size")
    same(Ah, Aa)


def t_wrong_local_size():
    """global sizes right, local sizes wrong on rank 0 only (needs >= 2 ranks)"""
    Aa, Ah = pair()
    if C.size() < 2:
        return
    n = Ah.getLocalSize()[1]
    nl = n + 1 if C.rank() == 0 else (n - 1 if C.rank() == 1 else n)
    x = PETSc.Vec().createMPI((nl, 40))
    y = Ah.createVecLeft()
    expect_error(lambda: Ah.mult(x, y), "mult wrong local size")
    # (MatMultTransposeAdd does not check output local sizes in PETSc 3.18, for aij too: not tested)
    same(Ah, Aa)


for name, fn in [
    ("num_threads", t_num_threads),
    ("other_setters", t_other_setters),
    ("unassembled", t_unassembled),
    ("wrong_global_size", t_wrong_global_size),
    ("wrong_local_size", t_wrong_local_size),
]:
    checks.run(name, fn)
C.report(checks.result(size=C.size()))
