"""pip install .: builds libpetscaijhybrid with the makefile against the PETSc that petsc4py uses
(petsc4py.get_config(); without petsc4py, PETSC_DIR/PETSC_ARCH) and installs it inside the Python
package, as petsc_aijhybrid/lib/libpetscaijhybrid.so, where `import petsc_aijhybrid` finds it
(python/petsc_aijhybrid/_loader.py). The metadata is in pyproject.toml; the version is the header's.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent
LIBNAME = "libpetscaijhybrid.so"


def version():
    h = (ROOT / "include" / "petscaijhybrid.h").read_text()
    return ".".join(re.search(r"#define PETSCAIJHYBRID_VERSION_%s\s+(\d+)" % k, h).group(1) for k in ("MAJOR", "MINOR", "PATCH"))


def petsc():
    """(PETSC_DIR, PETSC_ARCH, what chose them)"""
    try:
        import petsc4py
    except ImportError:
        petsc4py = None
    if petsc4py is not None:
        conf = petsc4py.get_config()
        return conf["PETSC_DIR"], conf.get("PETSC_ARCH") or "", "petsc4py %s (%s)" % (petsc4py.__version__, os.path.dirname(petsc4py.__file__))
    if os.environ.get("PETSC_DIR"):
        return os.environ["PETSC_DIR"], os.environ.get("PETSC_ARCH", ""), "PETSC_DIR/PETSC_ARCH"
    raise SystemExit(
        "petsc-aijhybrid: no petsc4py to build against and no PETSC_DIR. Install with "
        "`pip install --no-build-isolation .` into a Python that has petsc4py (`pip install petsc petsc4py`, "
        "or a venv made with --system-site-packages over Debian's python3-petsc4py, then also --no-deps), "
        "or set PETSC_DIR (and PETSC_ARCH) to the PETSc to build against."
    )


class BuildWithLibrary(build_py):
    """the Python files, then the library (make lib) copied into the package"""

    def run(self):
        super().run()
        petsc_dir, petsc_arch, why = petsc()
        build = Path(self.get_finalized_command("build").build_temp).resolve() / "aijhybrid"
        print("petsc-aijhybrid: building %s against PETSC_DIR=%s PETSC_ARCH=%s (from %s) in %s" % (LIBNAME, petsc_dir, petsc_arch, why, build))
        env = dict(os.environ, PETSC_DIR=petsc_dir, PETSC_ARCH=petsc_arch)
        jobs = os.environ.get("AIJHYBRID_MAKE_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call(["make", "-C", str(ROOT), "-j", jobs, "lib", "BUILD=%s" % build, "PETSC_DIR=%s" % petsc_dir, "PETSC_ARCH=%s" % petsc_arch], env=env)
        dest = Path(self.build_lib) / "petsc_aijhybrid" / "lib"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "lib" / LIBNAME, dest / LIBNAME)


class BinaryDistribution(Distribution):
    """a platform wheel: it carries a shared library built for one PETSc"""

    def has_ext_modules(self):
        return True


os.makedirs(os.path.join(ROOT, "build", "pip"), exist_ok=True)
# setuptools' build tree apart from the makefile's build/ (whose lib/ holds the library of `make`)
setup(version=version(), cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution, options={"build": {"build_base": "build/pip"}, "egg_info": {"egg_base": "build/pip"}})
