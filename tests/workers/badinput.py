"""Bad-input worker: each wrong call must raise a PETSc error (or ValueError in the Python layer),
never crash or hang, and leave the matrix unchanged (products still equal to aij). Every option with
bad values (negative, zero, huge, not a number) through MatSetFromOptions, and the C Set functions
with out-of-range values: the message (PetscErrorMessage) names the option and the value; misspelt
names are left unused (PETSc's -options_left reports them).

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


def petsc_message():
    """the specific message of the last PETSc error (what SETERRQ/PetscCheck said)"""
    import ctypes

    text, specific = ctypes.c_char_p(), ctypes.c_char_p()
    ctypes.CDLL(None).PetscErrorMessage(ctypes.c_int(0), ctypes.byref(text), ctypes.byref(specific))
    return (specific.value or b"").decode(errors="replace")


from badoptions import BAD_OPTIONS, BAD_SETS, UNKNOWN_NAMES  # noqa: E402


def settings(Ah):
    return (ph.get_num_threads(Ah), ph.get_mode(Ah), ph.get_partition_type(Ah), ph.get_row_cost(Ah), ph.get_diffusion(Ah), ph.get_prefetch(Ah)[0],
            ph.get_first_touch(Ah), ph.get_task_share(Ah)[0], ph.get_node_aware(Ah), ph.get_node_size(Ah))


def refused(Ah, Aa, given, expect, what):
    """MatSetFromOptions with the options `given` (name -> value) fails with a message holding every
    string of `expect`; nothing changes; it works again once they are gone"""
    opts = PETSc.Options()
    before = settings(Ah)
    for name, value in given:
        opts["bad_" + name] = value
    try:
        expect_error(Ah.setFromOptions, what)
        msg = petsc_message()
    finally:
        for name, _ in given:
            opts.delValue("bad_" + name)
    for e in expect:
        assert e in msg, "%r not in the message for %s: %r" % (e, what, msg)
    after = settings(Ah)
    assert after == before, "settings changed by the refused %s: %s -> %s" % (what, before, after)
    Ah.setFromOptions()  # usable again
    assert settings(Ah) == before
    same(Ah, Aa)
    return msg


def t_option_values():
    """each bad value: MatSetFromOptions fails with a message naming the option and the value;
    the matrix keeps its settings, MatSetFromOptions works again once the option is gone, and the
    products still equal aij's"""
    Aa, Ah = pair()
    Ah.setOptionsPrefix("bad_")
    ph.set_num_threads(Ah, 2)
    messages = {}
    for name, value, expect in BAD_OPTIONS:
        key = "mat_aijhybrid_" + name
        msg = refused(Ah, Aa, [(key, value)], ["-bad_" + key] + expect, "-bad_%s %s" % (key, value))
        messages["-mat_aijhybrid_%s %s" % (name, value)] = msg
    info["messages"] = messages


def t_option_sets():
    """options are checked as a set before any is applied: a valid option next to a bad one is not
    applied either (-mat_aijhybrid_num_threads 3 -mat_aijhybrid_task_share 2 keeps 2 threads)"""
    Aa, Ah = pair()
    Ah.setOptionsPrefix("bad_")
    ph.set_num_threads(Ah, 2)
    for given, expect in BAD_SETS:
        refused(Ah, Aa, [("mat_aijhybrid_" + n, v) for n, v in given], expect, " ".join("-bad_mat_aijhybrid_%s %s" % nv for nv in given))
    assert ph.get_num_threads(Ah) == 2


def option_used(name):
    """PetscOptionsUsed(): did an object read the option (-options_left reports those none read)?"""
    import ctypes

    flg = ph.api._bool_type()()
    assert ph._loader.lib().PetscOptionsUsed(None, name.lstrip("-").encode(), ctypes.byref(flg)) == 0  # names are kept without the -
    return bool(flg.value)


def t_unknown_names():
    """a misspelt -mat_aijhybrid_ name: MatSetFromOptions reads nothing of it (the settings stay) and
    leaves it unused, so that PETSc's -options_left reports it (tests/test_options_table.py)"""
    Aa, Ah = pair()
    Ah.setOptionsPrefix("bad_")
    ph.set_num_threads(Ah, 2)
    opts = PETSc.Options()
    for wrong in UNKNOWN_NAMES:
        name = "bad_mat_aijhybrid_" + wrong
        before = settings(Ah)
        opts[name] = "3"
        opts["bad_mat_aijhybrid_num_threads"] = "2"
        try:
            Ah.setFromOptions()
            used, known = option_used("-" + name), option_used("-bad_mat_aijhybrid_num_threads")
        finally:
            opts.delValue(name)
            opts.delValue("bad_mat_aijhybrid_num_threads")
        assert known and not used, "-%s: used %s (-bad_mat_aijhybrid_num_threads used %s)" % (name, used, known)
        assert settings(Ah) == before, (name, before, settings(Ah))
    same(Ah, Aa)


def t_copies():
    """the settings survive every copy into an aijhybrid matrix: MatCopy() with the same and with
    another nonzero pattern (AIJ builds the result as a new matrix and merges its data into D),
    MatAXPY()/MatAYPX() with another pattern, MatDuplicate(), MatTranspose() in place and new; and an in-place LU keeps them (one
    rank); the products equal aij's after each"""
    Aa, Ah = pair()
    c = C.Case("bad2", 40, 40, 7, diag=True, density=2.0)
    Da, Dh = c.create("aij"), c.create("aijhybrid")
    ph.set_num_threads(Dh, 3)
    ph.set_partition_type(Dh, "rows")
    ph.set_row_cost(Dh, 0.5)
    ph.set_sor_serial(Dh, True)
    # the mode the next product runs in is decided by that product where it depends on other ranks' ghosts
    assert ph.get_mode(Dh) == ("auto" if C.size() > 1 else "vector"), ph.get_mode(Dh)
    same(Dh, Da)  # as check() below: the mode in force is known after a product
    assert ph.get_mode(Dh) in ("task", "vector"), ph.get_mode(Dh)
    keep = settings(Dh) + (ph.get_sor_serial(Dh),)

    def check(what):
        same(Dh, Da)  # the product first: the mode in force is known once the halo exchange is built (at its first use)
        assert settings(Dh) + (ph.get_sor_serial(Dh),) == keep, "%s: settings %s -> %s" % (what, keep, settings(Dh) + (ph.get_sor_serial(Dh),))

    Ah.copy(Dh, PETSc.Mat.Structure.DIFFERENT)
    Aa.copy(Da, PETSc.Mat.Structure.DIFFERENT)
    check("MatCopy(DIFFERENT)")
    Ga, Gh = Da.duplicate(copy=True), Dh.duplicate(copy=True)  # Dh's pattern (the union of both)
    Ga.scale(3.0)
    Gh.scale(3.0)
    Gh.copy(Dh, PETSc.Mat.Structure.SAME)
    Ga.copy(Da, PETSc.Mat.Structure.SAME)
    check("MatCopy(SAME)")
    Dh.axpy(2.0, Ah, PETSc.Mat.Structure.DIFFERENT)
    Da.axpy(2.0, Aa, PETSc.Mat.Structure.DIFFERENT)
    check("MatAXPY(DIFFERENT)")
    Dh.aypx(0.5, Ah, PETSc.Mat.Structure.DIFFERENT)
    Da.aypx(0.5, Aa, PETSc.Mat.Structure.DIFFERENT)
    check("MatAYPX(DIFFERENT)")
    E = Dh.duplicate(copy=True)
    x, y = E.createVecs()
    E.mult(x, y)  # a product first, as in check()
    assert settings(E) + (ph.get_sor_serial(E),) == keep, "MatDuplicate"
    E.destroy()
    for inplace in (True, False):  # MatTranspose(): in place (PETSc merges the transpose into the matrix), and a new one
        Ta, Th = Da.duplicate(copy=True), Dh.duplicate(copy=True)
        if inplace:
            Ta.transpose()
            Th.transpose()
        else:
            Ta, Th = Ta.transpose(PETSc.Mat()), Th.transpose(PETSc.Mat())
        same(Th, Ta)
        assert settings(Th) + (ph.get_sor_serial(Th),) == keep, "MatTranspose(%s): %s" % ("in place" if inplace else "new", settings(Th))
    if C.size() == 1:
        F = Dh.duplicate(copy=True)
        rperm, cperm = F.getOrdering("natural")
        F.factorLU(rperm, cperm)
        assert settings(F) + (ph.get_sor_serial(F),) == keep, "in-place MatLUFactor: %s" % (settings(F),)
        x, b = F.createVecs()
        b.set(1.0)
        F.solve(b, x)
        F.destroy()


def t_python_api():
    """the Python API refuses wrong types and integers beyond PetscInt before they reach C (ctypes
    would make "no" a true flag, 2**32 + 3 three threads with 32-bit PetscInt, 2.7 two), and an
    uncreated petsc4py object (a null handle: a crash in an optimized PETSc); nothing changes"""
    Aa, Ah = pair()
    ph.set_num_threads(Ah, 2)
    before, standard = settings(Ah), ph.get_standard()
    v = ph.create_vec((None, 100), nthreads=2)
    bad = [
        ("set_first_touch(A, 'no')", lambda: ph.set_first_touch(Ah, "no"), TypeError),
        ("set_node_aware(A, 'yes')", lambda: ph.set_node_aware(Ah, "yes"), TypeError),
        ("set_sor_serial(A, 1)", lambda: ph.set_sor_serial(Ah, 1), TypeError),
        ("set_standard('maybe')", lambda: ph.set_standard("maybe"), TypeError),
        ("set_first_touch(v, 'no')", lambda: ph.set_first_touch(v, "no"), TypeError),
        ("set_num_threads(A, 2.7)", lambda: ph.set_num_threads(Ah, 2.7), TypeError),
        ("set_num_threads(A, '3')", lambda: ph.set_num_threads(Ah, "3"), TypeError),
        ("set_num_threads(A, True)", lambda: ph.set_num_threads(Ah, True), TypeError),
        ("set_num_threads(v, 2.7)", lambda: ph.set_num_threads(v, 2.7), TypeError),
        ("set_prefetch(A, '64')", lambda: ph.set_prefetch(Ah, "64"), TypeError),
        ("set_node_size(A, 1.5)", lambda: ph.set_node_size(Ah, 1.5), TypeError),
        ("set_diffusion(A, 0.1, 2.5)", lambda: ph.set_diffusion(Ah, 0.1, 2.5), TypeError),
        ("set_row_cost(A, '1')", lambda: ph.set_row_cost(Ah, "1"), TypeError),
        ("set_task_share(A, True)", lambda: ph.set_task_share(Ah, True), TypeError),
        ("set_threshold(v, 1e3)", lambda: ph.set_threshold(v, 1e3), TypeError),
        ("set_partition_type(A, 1)", lambda: ph.set_partition_type(Ah, 1), ValueError),
        ("set_cmrcm_colors(2.0)", lambda: ph.set_cmrcm_colors(2.0), TypeError),
        ("set_num_threads(None-like object)", lambda: ph.set_num_threads(object(), 2), TypeError),
    ]
    bits = 8 * PETSc.IntType().itemsize
    for big in (2**32 + 3, 2**32 - 1, 2**64 + 2):
        # beyond PetscInt: refused in Python; within a 64-bit PetscInt: refused by C (above 4096)
        bad.append(("set_num_threads(A, %d)" % big, lambda big=big: ph.set_num_threads(Ah, big), ValueError if big >= 2 ** (bits - 1) else PETSc.Error))
    uncreated = PETSc.Mat()
    for name, call in (("set_num_threads", lambda: ph.set_num_threads(uncreated, 2)), ("get_num_threads", lambda: ph.get_num_threads(uncreated)),
                       ("get_partition_info", lambda: ph.get_partition_info(uncreated)), ("get_exchange_stats", lambda: ph.get_exchange_stats(uncreated)),
                       ("set_threshold(Vec())", lambda: ph.set_threshold(PETSc.Vec(), 5)), ("sf_get_stats(SF())", lambda: ph.sf_get_stats(PETSc.SF()))):
        bad.append(("%s(uncreated)" % name, call, ValueError))
    for what, call, kind in bad:
        try:
            call()
        except kind as e:
            info[what] = str(e) if not isinstance(e, PETSc.Error) else int(e.ierr)
        else:
            raise AssertionError("%s: no %s" % (what, kind.__name__))
        assert settings(Ah) == before and ph.get_standard() == standard and ph.get_num_threads(v) == 2, "%s changed something" % what
    same(Ah, Aa)


def t_c_setters():
    """the C Set functions with out-of-range values (enums too): refused, message names the option, nothing changed"""
    import ctypes

    Aa, Ah = pair()
    lib = ph._loader.lib()
    I = ph.api._int_type()
    R = ph.api._real_type()
    h = ctypes.c_void_p(Ah.handle)
    ph.set_num_threads(Ah, 2)
    calls = [
        ("MatAIJHybridSetNumThreads(-3)", lambda: lib.MatAIJHybridSetNumThreads(h, I(-3)), "mat_aijhybrid_num_threads"),
        ("MatAIJHybridSetNumThreads(0)", lambda: lib.MatAIJHybridSetNumThreads(h, I(0)), "mat_aijhybrid_num_threads"),
        ("MatAIJHybridSetMode(7)", lambda: lib.MatAIJHybridSetMode(h, ctypes.c_int(7)), "mat_aijhybrid_mode"),
        ("MatAIJHybridSetMode(-1)", lambda: lib.MatAIJHybridSetMode(h, ctypes.c_int(-1)), "mat_aijhybrid_mode"),
        ("MatAIJHybridSetPartitionType(-1)", lambda: lib.MatAIJHybridSetPartitionType(h, ctypes.c_int(-1)), "mat_aijhybrid_partition"),
        ("MatAIJHybridSetRowCost(nan)", lambda: lib.MatAIJHybridSetRowCost(h, R(float("nan"))), "mat_aijhybrid_row_cost"),
        ("MatAIJHybridSetDiffusion(nan, 5)", lambda: lib.MatAIJHybridSetDiffusion(h, R(float("nan")), I(5)), "mat_aijhybrid_diffusion_tol"),
        ("MatAIJHybridSetDiffusion(0.1, -4)", lambda: lib.MatAIJHybridSetDiffusion(h, R(0.1), I(-4)), "mat_aijhybrid_diffusion_max_it"),
        ("MatAIJHybridSetPrefetch(-3)", lambda: lib.MatAIJHybridSetPrefetch(h, I(-3)), "mat_aijhybrid_prefetch"),
        ("MatAIJHybridSetPrefetch(2^21)", lambda: lib.MatAIJHybridSetPrefetch(h, I(1 << 21)), "mat_aijhybrid_prefetch"),
    ]
    before = (ph.get_num_threads(Ah), ph.get_mode(Ah), ph.get_partition_type(Ah), ph.get_row_cost(Ah), ph.get_diffusion(Ah), ph.get_prefetch(Ah))
    for what, call, option in calls:
        err = call()
        assert err != 0, "%s accepted" % what
        msg = petsc_message()
        assert option in msg, "%s: message does not name %s: %r" % (what, option, msg)
        after = (ph.get_num_threads(Ah), ph.get_mode(Ah), ph.get_partition_type(Ah), ph.get_row_cost(Ah), ph.get_diffusion(Ah), ph.get_prefetch(Ah))
        assert after == before, "%s changed the settings: %s -> %s" % (what, before, after)
    same(Ah, Aa)


for name, fn in [
    ("option_values", t_option_values),
    ("option_sets", t_option_sets),
    ("unknown_names", t_unknown_names),
    ("copies", t_copies),
    ("python_api", t_python_api),
    ("c_setters", t_c_setters),
    ("num_threads", t_num_threads),
    ("other_setters", t_other_setters),
    ("unassembled", t_unassembled),
    ("wrong_global_size", t_wrong_global_size),
    ("wrong_local_size", t_wrong_local_size),
]:
    checks.run(name, fn)
C.report(checks.result(size=C.size()))
