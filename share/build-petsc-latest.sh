#!/usr/bin/env bash
# Builds the newest PETSc release from PyPI's `petsc` source package into a prefix, then petsc4py of
# the same version for it, to check that petsc-aijhybrid builds and passes its tests against it
# (about 25 minutes for PETSc and 10 for petsc4py on 2 cores; not part of `make test` nor of CI).
#
#   bash share/build-petsc-latest.sh [PREFIX] [VERSION]     (defaults: /opt/petsc-latest, newest)
#   make test PETSC_DIR=PREFIX PETSC_ARCH= BUILD=$PWD/build/petsc-latest
#
# PETSc: the system MPI (mpicc), no Fortran, no external packages. Skipped if PREFIX already holds
# it (delete PREFIX to rebuild).
# petsc4py: PyPI's sdist, built with Cython >= 3 (from PyPI, in a throw-away venv that sees the
# system's numpy) for $PYTHON (default /usr/bin/python3) and installed into
# PREFIX/lib/python3/dist-packages, where Debian's petsc4py.pth looks when PETSC_DIR=PREFIX is set
# (elsewhere, add that directory to PYTHONPATH). Skipped if already there.
set -euo pipefail
PREFIX=${1:-/opt/petsc-latest}
VERSION=${2:-}
WORK=${WORK:-/tmp/petsc-latest-src}
mkdir -p "$WORK"
cd "$WORK"
python3 -m pip install -q wheel setuptools >/dev/null
spec=petsc${VERSION:+==$VERSION}
if ! ls petsc-*.tar.gz >/dev/null 2>&1; then
  python3 -m pip download -q --no-deps --no-build-isolation --no-binary :all: -d . "$spec" || true
fi
tarball=$(ls petsc-*.tar.gz | sort -V | tail -1)
if [ -f "$PREFIX/lib/petsc/conf/petscvariables" ]; then
  echo "build-petsc-latest: PETSc already in $PREFIX (delete it to rebuild)"
else
  echo "build-petsc-latest: $tarball -> $PREFIX"
  rm -rf src && mkdir src && tar -xzf "$tarball" -C src --strip-components=1
  (cd src
   python3 ./configure --prefix="$PREFIX" --with-cc=mpicc --with-cxx=0 --with-fc=0 --with-debugging=0 \
     --with-shared-libraries=1 COPTFLAGS=-O2 --with-x=0
   make -j"$(nproc)" all
   make install)
fi
version=$(awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) /{printf "%s%s", sep, $3; sep="."}' "$PREFIX/include/petscversion.h")
echo "build-petsc-latest: PETSc $version in $PREFIX"

# --- petsc4py of the same version, for $PYTHON
PYTHON=${PYTHON:-/usr/bin/python3}
SITE=$PREFIX/lib/python3/dist-packages
if PETSC_DIR="$PREFIX" PETSC_ARCH= PYTHONPATH="$SITE" "$PYTHON" -c "import petsc4py, sys; sys.exit(petsc4py.__version__ != '$version')" 2>/dev/null; then
  echo "build-petsc-latest: petsc4py $version already in $SITE"
  exit 0
fi
"$PYTHON" -m venv --system-site-packages "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q 'cython>=3'
rm -f petsc4py-*.tar.gz
"$WORK/venv/bin/python" -m pip download -q --no-deps --no-build-isolation --no-binary :all: -d . "petsc4py==$version"
rm -rf wheel && PETSC_DIR="$PREFIX" PETSC_ARCH= nice "$WORK/venv/bin/python" -m pip wheel -q --no-deps --no-build-isolation -w wheel petsc4py-*.tar.gz
"$WORK/venv/bin/python" -m pip install -q --no-deps --upgrade --target "$SITE" wheel/petsc4py-*.whl
PETSC_DIR="$PREFIX" PETSC_ARCH= PYTHONPATH="$SITE" "$PYTHON" -c "from petsc4py import PETSc; print('build-petsc-latest: petsc4py', PETSc.Sys.getVersion(), 'runs', PETSc.__file__)"
