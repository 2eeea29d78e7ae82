#!/usr/bin/env bash
# Installs what petsc-aijhybrid needs to build, test and run, on Debian/Ubuntu, and nothing else.
# Idempotent: a second run finds everything present and installs nothing.
#
# What it installs (Debian bookworm packages):
#   petsc-dev                  PETSc 3.18 (real scalars, 32-bit indices), its headers and mpicc
#   libpetsc3.18-dev-examples  PETSc's examples and test harness (used by the harness tests)
#   python3-petsc4py python3-mpi4py python3-numpy python3-scipy python3-pytest python3-matplotlib
#                              the petsc4py layer and the test suite, for /usr/bin/python3
#   openmpi-bin libopenmpi-dev make gcc pkg-config
#   python3-hypothesis         the property-based fuzzing (tests/test_fuzz.py, make fuzz)
# With the argument "hardening" (make test-asan, test-valgrind, test-races) also:
#   valgrind clang libomp-dev  memcheck; clang with ThreadSanitizer and LLVM's OpenMP runtime with archer
#
# Instead, where apt or root is not available, or you have your own PETSc:
#   build PETSc >= 3.18 with OpenMPI or MPICH and petsc4py (e.g. `pip install petsc petsc4py`, or
#   PETSc's ./configure --with-petsc4py), then run, without this script:
#     make test PETSC_DIR=/path/to/petsc PETSC_ARCH=<arch or empty> PYTHON=/path/to/python
#   (PYTHON must be the interpreter whose petsc4py was built against that PETSc; it needs pytest).
#   With PETSC_DIR set in the environment this script only checks and installs nothing for PETSc.
set -euo pipefail

PKGS=(petsc-dev libpetsc3.18-dev-examples python3-petsc4py python3-mpi4py python3-numpy python3-scipy python3-matplotlib
      python3-pytest openmpi-bin libopenmpi-dev make gcc pkg-config python3-hypothesis clang-format-16)
if [ "${1:-}" = "hardening" ]; then PKGS+=(valgrind clang libomp-dev); fi

if [ -n "${PETSC_DIR:-}" ] && [ "${PETSC_DIR}" != "/usr/lib/petsc" ]; then
  if [ -f "${PETSC_DIR}/${PETSC_ARCH:-}/lib/petsc/conf/variables" ]; then
    echo "setup: using your PETSc in PETSC_DIR=${PETSC_DIR} PETSC_ARCH=${PETSC_ARCH:-}; installing nothing"
    exit 0
  fi
  echo "setup: PETSC_DIR=${PETSC_DIR} PETSC_ARCH=${PETSC_ARCH:-} has no lib/petsc/conf/variables" >&2
  exit 1
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup: this is not a Debian-like system; install PETSc >= 3.18 with petsc4py yourself and" >&2
  echo "       run 'make test PETSC_DIR=... PETSC_ARCH=... PYTHON=...' (see the top of share/setup.sh)" >&2
  exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present (${#PKGS[@]}): nothing to install"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else
    echo "setup: not root and no sudo: ask an administrator to run" >&2
    echo "         apt-get install ${missing[*]}" >&2
    echo "       or use your own PETSc (see the top of share/setup.sh)" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${missing[@]}"
echo "setup: done"
