"""Registration: an unmodified petsc4py application gets aijhybrid through -dll_append (command
line and PETSC_OPTIONS) without importing petsc_aijhybrid; importing the package twice and calling
MatAIJHybridInitializePackage again is harmless; setType, -mat_type via PETSc.Options() and
-dm_mat_type work; a plugin built against another PETSc is refused with a clear ImportError; the
C example (build/examples/ex1) converges at 1 and 2 ranks with -mat_type aijhybrid.
"""

import os
import re
import shutil
import subprocess
import tempfile

import pytest

import mpirun
from conftest import cached_worker

pytestmark = pytest.mark.mpi


def hyb(ranks):
    return "seqaijhybrid" if ranks == 1 else "mpiaijhybrid"


@pytest.mark.parametrize("ranks", (1, 2))
def test_dll_append_command_line(ranks, lib_path):
    res = cached_worker("script", ranks, 2, args=("noimport", "-dll_append", lib_path, "-mat_type", "aijhybrid")).check()
    assert res["type"] == hyb(ranks)
    ref = cached_worker("script", ranks, 2, args=("noimport", "-mat_type", "aij")).check()
    assert ref["type"] in ("seqaij", "mpiaij")
    assert res["ysum"] == pytest.approx(ref["ysum"], rel=1e-14)


@pytest.mark.parametrize("ranks", (1, 2))
def test_dll_append_vector_types(ranks, lib_path):
    """The vector types come with -dll_append too: MatCreateVecs of aijhybrid gives hybrid vectors,
    -vec_type hybrid reaches VecSetFromOptions, -vec_hybrid_standard (read at registration) threads a
    VecCreateMPI vector keeping its type name; without the options a VecCreateMPI vector is plain."""
    vt = "seqhybrid" if ranks == 1 else "mpihybrid"
    res = cached_worker("script", ranks, 2, args=("noimport", "-dll_append", lib_path, "-mat_type", "aijhybrid", "-vec_type", "hybrid", "-vec_hybrid_standard")).check()
    assert res["vec_type"] == vt and res["fromoptions_vec_type"] == vt, res
    assert res["standard_vec_type"] == "mpi" and res["standard_vec_threaded"], res
    plain = cached_worker("script", ranks, 2, args=("noimport", "-dll_append", lib_path, "-mat_type", "aijhybrid")).check()
    assert plain["vec_type"] == vt and plain["fromoptions_vec_type"] in ("seq", "mpi") and not plain["standard_vec_threaded"], plain


@pytest.mark.parametrize("ranks", (1, 2))
def test_dll_append_petsc_options(ranks, lib_path):
    res = cached_worker("script", ranks, 1, args=("noimport",), env={"PETSC_OPTIONS": "-dll_append %s -mat_type aijhybrid" % lib_path}).check()
    assert res["type"] == hyb(ranks)


def test_without_plugin_type_is_unknown():
    run = mpirun.run_worker("script", 1, 1, args=("noimport", "-mat_type", "aijhybrid"), timeout=60)
    assert run.rc != 0 and "aijhybrid" in run.output, run.describe()


@pytest.mark.parametrize("ranks", (1, 2))
def test_import_twice_and_initialize_again(ranks):
    res = cached_worker("script", ranks, 1, args=("twice", "-mat_type", "aijhybrid")).check()
    assert res["type"] == hyb(ranks) and res["twice_type"] == hyb(ranks)


@pytest.mark.parametrize("mode", ("settype", "optsdb", "plain"))
@pytest.mark.parametrize("ranks", (1, 2))
def test_selecting_the_type(ranks, mode):
    args = (mode, "-mat_type", "aijhybrid") if mode == "plain" else (mode,)
    res = cached_worker("script", ranks, 2, args=args).check()
    assert res["type"] == hyb(ranks)
    assert res["threads"] == 2


@pytest.mark.parametrize("ranks", (1, 2))
def test_dm_mat_type(ranks):
    res = cached_worker("script", ranks, 1, args=("dm", "-dm_mat_type", "aijhybrid")).check()
    assert res["type"] == hyb(ranks)


def _run_python(code, env_extra):
    env = mpirun.environment(1, env_extra)
    return subprocess.run([mpirun.PYTHON, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_check_same_petsc_refuses_other_petsc_dir(tmp_path):
    code = (
        "import petsc4py, petsc_aijhybrid._loader as L\n"
        "petsc4py.get_config = lambda: {'PETSC_DIR': %r, 'PETSC_ARCH': ''}\n"
        "try:\n    L._check_same_petsc(L.library_path())\nexcept ImportError as e:\n    print('REFUSED', e)\n"
        "else:\n    print('ACCEPTED')\n" % str(tmp_path)
    )
    p = _run_python(code, None)
    assert "REFUSED" in p.stdout, p.stdout + p.stderr
    assert str(tmp_path) in p.stdout and "PETSC_DIR" in p.stdout


def test_plugin_linked_to_other_petsc_is_refused(lib_path):
    """A copy of the library whose runpath names another PETSc installation must not load."""
    data = open(lib_path, "rb").read()
    real = None
    for mm in re.finditer(rb"(/[\x21-\x7e]+/lib)\x00", data):
        s = mm.group(1).decode()
        if os.path.exists(os.path.join(s, "petsc", "conf", "petscvariables")):
            real = mm.group(1)
            break
    if real is None:
        pytest.skip("no PETSc runpath found in the library")
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="p") as d:  # short: /opt/petsc-latest/lib leaves little room
        fake = os.path.join(d, "x")
        pad = len(real) - len(fake) - len("/lib")
        if pad < 1:
            pytest.skip("runpath too short to rewrite")
        fake_dir = fake + "y" * pad
        fake_lib = fake_dir + "/lib"
        assert len(fake_lib) == len(real)
        os.makedirs(os.path.join(fake_lib, "petsc", "conf"))
        open(os.path.join(fake_lib, "petsc", "conf", "petscvariables"), "w").close()
        copy = os.path.join(d, "libpetscaijhybrid.so")
        open(copy, "wb").write(data.replace(real + b"\x00", fake_lib.encode() + b"\x00"))
        p = _run_python("import petsc_aijhybrid", {"AIJHYBRID_LIB": copy})
        assert p.returncode != 0, p.stdout + p.stderr
        assert "ImportError" in p.stderr and fake_lib in p.stderr, p.stderr


EX1 = mpirun.BUILD / "examples" / "ex1"


@pytest.mark.skipif(not EX1.exists(), reason="build/examples/ex1 not built (examples/ex1.c missing or `make examples` not run)")
@pytest.mark.parametrize("ranks", (1, 2))
def test_c_example_converges(ranks):
    run = mpirun.run([EX1, "-mat_type", "aijhybrid", "-ksp_converged_reason", "-ksp_type", "cg", "-pc_type", "jacobi"], ranks, 2, timeout=120)
    assert run.rc == 0, run.describe()
    assert "CONVERGED" in run.output or "converged" in run.output.lower(), run.describe()
    assert "DIVERGED" not in run.output, run.describe()


def test_library_stays_loaded_after_petsc_finalize(lib_path):
    """PetscFinalize() dlcloses -dll_append libraries. Unloading the plugin would unload the OpenMP
    runtime with it when nothing else links one (PETSc 3.26 built without OpenMP: ex50 of the KSP
    tutorials then crashed at exit in libgomp's idle threads): the library is linked -z nodelete."""
    out = subprocess.run(["readelf", "-d", lib_path], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert re.search(r"FLAGS_1\)\s+Flags:.*\bNODELETE\b", out.stdout), out.stdout
