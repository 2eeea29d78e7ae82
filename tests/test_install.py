"""`make install PREFIX=...`: library, header, pkg-config file, examples and Python package land in
the prefix; pkg-config resolves the flags (Requires: PETSc >= 3.18); the installed Python package
loads the installed library; a C program built with the pkg-config flags runs; the installed
examples build with their makefile (PETSc's variables, the installed library) and ex1 runs on the
plugin's type."""
import os
import subprocess

import mpirun

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PETSC_PC = [d for d in (os.path.join(os.environ.get("PETSC_DIR") or "/usr/lib/petsc", os.environ.get("PETSC_ARCH") or "", "lib", "pkgconfig"),) if os.path.isdir(d)]


def test_make_install(tmp_path):
    prefix = str(tmp_path / "prefix")
    env = dict(os.environ)
    env.pop("AIJHYBRID_LIB", None)
    env.pop("AIJHYBRID_BUILD", None)
    # this build's library (flavours and other PETSc builds have their own BUILD; never relink another)
    r = subprocess.run(["make", "-C", REPO, "install", "PREFIX=" + prefix, "BUILD=" + str(mpirun.BUILD)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    for f in ("lib/libpetscaijhybrid.so", "include/petscaijhybrid.h", "lib/pkgconfig/petscaijhybrid.pc",
              "lib/python3/dist-packages/petsc_aijhybrid/__init__.py", "lib/python3/dist-packages/aijhybrid_bench/__init__.py",
              "share/petsc-aijhybrid/examples/makefile", "share/petsc-aijhybrid/examples/ex1.c"):
        assert os.path.exists(os.path.join(prefix, f)), f
    # the bindings package holds the bindings only; the benchmark driver and generators are their own package
    assert sorted(os.listdir(os.path.join(prefix, "lib/python3/dist-packages/petsc_aijhybrid"))) == ["__init__.py", "_args.py", "_install.py", "_loader.py", "api.py", "vec.py"]
    pc = open(os.path.join(prefix, "lib/pkgconfig/petscaijhybrid.pc")).read()
    assert "Requires: PETSc >= 3.18" in pc, pc

    env["PKG_CONFIG_PATH"] = ":".join([os.path.join(prefix, "lib/pkgconfig")] + PETSC_PC)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "petscaijhybrid"], capture_output=True, text=True, env=env)
    assert flags.returncode == 0, flags.stderr
    assert "-lpetscaijhybrid" in flags.stdout and "-I" + os.path.join(prefix, "include") in flags.stdout, flags.stdout

    # a C application built only from the pkg-config flags
    exe = str(tmp_path / "thread_single")
    # (PETSc's own .pc carries no rpath: a PETSc outside the loader's path, e.g. /opt/petsc-latest, needs one)
    petsc_libdir = subprocess.run(["pkg-config", "--variable=libdir", "PETSc"], capture_output=True, text=True, env=env).stdout.strip()
    rpath = ["-Wl,-rpath," + petsc_libdir] if petsc_libdir else []
    cc = subprocess.run(["mpicc", os.path.join(REPO, "tests/unit/thread_single.c"), "-o", exe] + flags.stdout.split() + rpath, capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
    run = mpirun.run([exe], ranks=1, threads=2)
    assert run.rc == 0 and "products match aij" in run.output, run.describe()

    # the installed examples, built by their makefile against the installed library (what Spack's smoke test runs)
    ex = os.path.join(prefix, "share/petsc-aijhybrid/examples")
    petsc_dir = os.environ.get("PETSC_DIR") or "/usr/lib/petsc"
    mk = subprocess.run(["make", "-C", ex, "ex1", "PETSC_DIR=" + petsc_dir, "PETSC_ARCH=" + (os.environ.get("PETSC_ARCH") or "")], capture_output=True, text=True, env=env, timeout=300)
    assert mk.returncode == 0, mk.stdout + mk.stderr
    run = mpirun.run([os.path.join(ex, "ex1"), "-n", "12", "-mat_type", "aijhybrid"], ranks=2, threads=2)
    assert run.rc == 0 and "matrix type mpiaijhybrid, 2 rank(s) x 2 thread(s)" in run.output, run.describe()

    # the installed Python package loads the installed library
    env["PYTHONPATH"] = os.path.join(prefix, "lib/python3/dist-packages")
    code = ("import petsc_aijhybrid as p; from petsc4py import PETSc\n"
            "A = PETSc.Mat().create(); A.setSizes([3, 3]); A.setType('aijhybrid'); A.setUp(); A.assemble()\n"
            "print(p.library_path(), A.getType())")
    py = subprocess.run([mpirun.PYTHON, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert py.returncode == 0, py.stdout + py.stderr
    assert py.stdout.split() == [os.path.join(prefix, "lib/libpetscaijhybrid.so"), "seqaijhybrid"], py.stdout

    # the installed generators and benchmark driver, with their configs and STREAM kernel
    code = ("from aijhybrid_bench import matrices; from aijhybrid_bench import config, stream\n"
            "A = matrices.create('poisson7', 1000); cfg = config.load('quick')\n"
            "print(A.getSize()[0], cfg['name'], config.CONFIG_DIR, stream.SOURCE.is_file())")
    py = subprocess.run([mpirun.PYTHON, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert py.returncode == 0, py.stdout + py.stderr
    out = py.stdout.split()
    assert out[0] == "1000" and out[1] == "quick" and out[2].startswith(prefix) and out[3] == "True", py.stdout
