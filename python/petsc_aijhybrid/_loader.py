"""Find, check and load libpetscaijhybrid.so into a running petsc4py."""

import ctypes
import os
import re

_lib = None


def library_path():
    """Path of the shared library this package loads."""
    env = os.environ.get("AIJHYBRID_LIB")
    if env:
        return env
    try:
        from ._install import LIBRARY  # written by `make install`

        if os.path.exists(LIBRARY):
            return LIBRARY
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "lib", "libpetscaijhybrid.so")  # pip install (setup.py)
    if os.path.exists(packaged) and not os.environ.get("AIJHYBRID_BUILD"):
        return packaged
    build = os.environ.get("AIJHYBRID_BUILD", os.path.join(here, "..", "..", "build"))
    return os.path.normpath(os.path.join(build, "lib", "libpetscaijhybrid.so"))


def _petsc_lib_dir_of(lib):
    """Directory of the libpetsc the plugin was linked against (from its rpath)."""
    with open(lib, "rb") as f:
        data = f.read()
    for m in re.finditer(rb"[\x20-\x7e]*/lib(?=\x00)|[\x20-\x7e]+/lib[^\x00]*", data):
        s = m.group(0).decode("ascii", "ignore")
        for part in s.split(":"):
            if os.path.exists(os.path.join(part, "petsc", "conf", "petscvariables")):
                return os.path.realpath(part)
    return None


def petsc_version():
    """(major, minor, subminor) of the PETSc petsc4py runs."""
    from petsc4py import PETSc

    return PETSc.Sys.getVersion()


def _check_same_petsc(lib):
    import petsc4py

    conf = petsc4py.get_config()
    petsc_dir = conf.get("PETSC_DIR", "")
    arch = conf.get("PETSC_ARCH", "") or ""
    p4p_libdir = os.path.realpath(os.path.join(petsc_dir, arch, "lib"))
    plugin_libdir = _petsc_lib_dir_of(lib)
    if plugin_libdir is not None and plugin_libdir != p4p_libdir:
        raise ImportError(
            "petsc_aijhybrid: %s was built against the PETSc in %s, but petsc4py runs the PETSc in %s "
            "(PETSC_DIR=%s PETSC_ARCH=%s). Rebuild the plugin with that PETSC_DIR/PETSC_ARCH, or use the "
            "petsc4py built for the plugin's PETSc." % (lib, plugin_libdir, p4p_libdir, petsc_dir, arch)
        )


def load():
    """Load the library into the process and register the type (idempotent); returns it (a
    ctypes.CDLL, through which the C functions of the plugin and of the PETSc it links are reachable)."""
    global _lib
    from petsc4py import PETSc  # initializes PETSc if needed

    lib = library_path()
    if not os.path.exists(lib):
        raise ImportError(
            "petsc_aijhybrid: %s not found; build it with `make` in the source tree, or set AIJHYBRID_LIB" % lib
        )
    _check_same_petsc(lib)
    if _lib is None:
        _lib = ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
    ierr = _lib.MatAIJHybridInitializePackage()
    if ierr:
        raise PETSc.Error(ierr)
    return _lib


def lib():
    if _lib is None:
        load()
    return _lib


# calling the C API through ctypes (api.py, vec.py)


def int_type():
    """ctypes type of PetscInt in the PETSc petsc4py runs"""
    from petsc4py import PETSc

    return ctypes.c_int64 if PETSc.IntType().itemsize == 8 else ctypes.c_int32


def real_type():
    """ctypes type of PetscReal"""
    from petsc4py import PETSc

    return ctypes.c_double if PETSc.RealType().itemsize == 8 else ctypes.c_float


def call(name, *args):
    """call the C function name of the library (or of the PETSc it links); a nonzero PetscErrorCode
    raises PETSc.Error"""
    from petsc4py import PETSc

    ierr = getattr(lib(), name)(*args)
    if ierr:
        raise PETSc.Error(ierr)
