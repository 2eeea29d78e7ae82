"""The checks the Python API makes before a value reaches C: ctypes would turn a string into a true
flag ("no" is true), wrap an integer beyond PetscInt around (2**32 + 3 is 3), truncate a float to an
integer, and pass an uncreated petsc4py object as a null handle (a crash in an optimized PETSc). The
ranges of the values are the C functions' to check (their errors name the option)."""

import ctypes
import numbers

from ._loader import int_type, real_type


def flag(value, what):
    """a PetscBool for C from True/False (also numpy's booleans); anything else is refused"""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return ctypes.c_int(1 if value else 0)
    raise TypeError("%s must be True or False, not %r" % (what, value))


def integer(value, what):
    """a PetscInt for C from an integer (not a bool, float or string) that PetscInt holds"""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an integer, not %r" % (what, value))
    it = int_type()
    bits = 8 * ctypes.sizeof(it)
    if not -(1 << (bits - 1)) <= int(value) < (1 << (bits - 1)):
        raise ValueError("%s = %d is beyond the %d-bit integers of this PETSc" % (what, int(value), bits))
    return it(int(value))


def real(value, what):
    """a PetscReal for C from a real number (not a bool or string)"""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a real number, not %r" % (what, value))
    return real_type()(float(value))


def handle(obj, kind, what="the argument"):
    """the C handle of a created petsc4py object of class kind ("Mat", "Vec", "SF")"""
    from petsc4py import PETSc

    cls = (PETSc.SF, PETSc.Scatter) if kind == "SF" else getattr(PETSc, kind)  # a VecScatter is a PetscSF
    if not isinstance(obj, cls):
        raise TypeError("%s must be a petsc4py PETSc.%s, not %s" % (what, kind, type(obj).__name__))
    if not obj.handle:
        raise ValueError("%s is a PETSc.%s that was not created (call create() or a constructor first)" % (what, kind))
    return ctypes.c_void_p(obj.handle)
