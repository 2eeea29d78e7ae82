#!/usr/bin/env bash
# The newest PETSc release from PyPI's sources into PREFIX (default /opt/petsc-latest), with petsc4py:
# share/build-petsc.sh without a version.
exec bash "$(dirname "$0")/build-petsc.sh" "${1:-/opt/petsc-latest}"
