"""`pip install .` (pyproject.toml, setup.py) into a virtual environment, as the README says:

- with a system petsc4py (Debian's python3-petsc4py): a venv made with --system-site-packages,
  `pip install --no-build-isolation --no-deps .`, as DOLFINx and PFLARE document;
- with petsc and petsc4py from PyPI's sources (share/build-petsc.sh: what CI's newest-PETSc step and
  `pip install petsc petsc4py` give): a venv that sees that petsc4py (a .pth file; its numpy from the
  system), `pip install --no-build-isolation .`, dependencies checked by pip.

The test that matches the PETSc under test runs (PETSC_DIR: Debian's, or a prefix with petsc4py in
lib/python3/dist-packages); the other is skipped. Each installs from a copy of the tracked files
(the library is built afresh, as from a fresh clone), then, outside the source tree and without the
tree's environment, `import petsc_aijhybrid` must load the library from inside the installed package,
built against the PETSc petsc4py runs, and a CG solve at 2 ranks x 2 threads must run on the plugin's
types and converge.
"""

import os
import shutil
import subprocess
import sys

import pytest

import mpirun

PETSC_DIR = os.environ.get("PETSC_DIR") or "/usr/lib/petsc"
PETSC_ARCH = os.environ.get("PETSC_ARCH") or ""
DEBIAN = os.path.realpath(PETSC_DIR) == os.path.realpath("/usr/lib/petsc")
PREFIX_SITE = os.path.join(PETSC_DIR, PETSC_ARCH, "lib", "python3", "dist-packages")
PREFIX_P4P = os.path.isdir(PREFIX_SITE) and any(n.startswith("petsc4py-") and n.endswith(".dist-info") for n in os.listdir(PREFIX_SITE))

SOLVE = r"""
import os, sys
import petsc4py
petsc4py.init(sys.argv)
from petsc4py import PETSc
import petsc_aijhybrid as p
n = 20000
A = PETSc.Mat().create()
A.setSizes([n, n])
A.setType("aijhybrid")
A.setPreallocationNNZ([3, 2])
rs, re = A.getOwnershipRange()
for i in range(rs, re):
    cols = [j for j in (i - 1, i, i + 1) if 0 <= j < n]
    A.setValues(i, cols, [2.0 if j == i else -1.0 for j in cols])
A.assemble()
x, b = A.createVecs()
b.set(1.0)
ksp = PETSc.KSP().create()
ksp.setOperators(A)
ksp.setType("cg")
ksp.setTolerances(rtol=1e-8, max_it=100000)
ksp.solve(b, x)
PETSc.Sys.Print("RESULT", p.library_path(), A.getType(), x.getType(), p.get_num_threads(A), ksp.getConvergedReason() > 0, p.petsc_version()[:2])
"""


def tracked_copy(dest):
    """the files a fresh clone has"""
    files = subprocess.run(["git", "-C", str(mpirun.ROOT), "ls-files", "-z"], capture_output=True, text=True, check=True).stdout.split("\0")
    for f in filter(None, files):
        src = mpirun.ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)
    return dest


def clean_env():
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("AIJHYBRID_", "PYTHON", "OMPI_COMM_WORLD", "PMIX_", "PETSC_OPTIONS")) or k in ("PETSC_DIR", "PETSC_ARCH", "VIRTUAL_ENV"):
            del env[k]
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    return env


def run(cmd, env, cwd, timeout=900):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, cwd=str(cwd), timeout=timeout)
    return r.returncode, r.stdout + r.stderr


@pytest.mark.parametrize("flavour", ["system-petsc4py", "pypi-petsc4py"])
def test_pip_install(flavour, tmp_path):
    if flavour == "system-petsc4py" and not DEBIAN:
        pytest.skip("the PETSc under test is not Debian's (its petsc4py is tested by the other case)")
    if flavour == "pypi-petsc4py" and not PREFIX_P4P:
        pytest.skip("the PETSc under test has no petsc4py from PyPI's sources in %s (make test PETSC_DIR=<share/build-petsc.sh prefix> runs it)" % PREFIX_SITE)
    src = tracked_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    env = clean_env()
    rc, out = run([mpirun.PYTHON, "-m", "venv", "--system-site-packages", venv], env, tmp_path)
    assert rc == 0, out
    vpy = venv / "bin" / "python"
    site = run([vpy, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env, tmp_path)[1].strip()
    if flavour == "pypi-petsc4py":
        # the petsc4py built from PyPI's sources for this PETSc, seen by the venv first; PETSC_DIR as
        # its users set it (Debian's petsc4py.pth, still on the system path, then looks there too)
        with open(os.path.join(site, "petsc4py-from-prefix.pth"), "w") as f:
            f.write(PREFIX_SITE + "\n")
        env.update(PETSC_DIR=PETSC_DIR, PETSC_ARCH=PETSC_ARCH)
        pip = [vpy, "-m", "pip", "install", "--no-build-isolation", "--no-index", src]  # --no-index: the dependencies must be there already
    else:
        pip = [vpy, "-m", "pip", "install", "--no-build-isolation", "--no-deps", src]
    rc, out = run(pip, env, tmp_path)
    assert rc == 0, out[-8000:]
    assert "building libpetscaijhybrid.so against" in out or "Successfully installed petsc-aijhybrid" in out, out[-8000:]

    (tmp_path / "solve.py").write_text(SOLVE)
    env2 = dict(env, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    rc, out = run([mpirun.MPIEXEC, "-n", "2", "--bind-to", "none", vpy, tmp_path / "solve.py"], env2, tmp_path, timeout=300)
    assert rc == 0, out[-6000:]
    line = next((l for l in out.splitlines() if l.startswith("RESULT ")), None)
    assert line, out[-6000:]
    lib, mtype, vtype, nthreads, converged, version = line.split(" ", 6)[1:]
    assert lib.startswith(site) and lib.endswith("petsc_aijhybrid/lib/libpetscaijhybrid.so"), line
    assert (mtype, vtype, nthreads, converged) == ("mpiaijhybrid", "mpihybrid", "2", "True"), line
    want = run([vpy, "-c", "from petsc4py import PETSc; print(PETSc.Sys.getVersion()[:2])"], env, tmp_path)[1].strip()
    assert version == want, (line, want)
    # the library links the PETSc that petsc4py runs (the loader refuses another; check the link itself too)
    ldd = run(["ldd", lib], env, tmp_path)[1]
    conf = run([vpy, "-c", "import petsc4py, os; c = petsc4py.get_config(); print(os.path.realpath(os.path.join(c['PETSC_DIR'], c.get('PETSC_ARCH') or '', 'lib')))"], env, tmp_path)[1].strip()
    petsc_line = next(l for l in ldd.splitlines() if "libpetsc" in l)
    assert os.path.realpath(os.path.dirname(petsc_line.split("=>")[1].split("(")[0].strip())) == conf, (petsc_line, conf)
