#!/usr/bin/env bash
# Builds a PETSc release from PyPI's `petsc` source package into a prefix, then petsc4py of the same
# version for it, to check that petsc-aijhybrid builds and passes its tests against it (make
# test-versions, make records, CI's newest-PETSc step).
#
#   bash share/build-petsc.sh [PREFIX] [VERSION]     (defaults: /opt/petsc-latest, the newest release)
#   bash share/build-petsc.sh /opt/petsc-3.20 '3.20.*'
#   make test PETSC_DIR=PREFIX PETSC_ARCH= BUILD=$PWD/build/petsc-<tag>
#
# VERSION is a pip version specifier (3.22.5, 3.22.*). PETSc: the system MPI (mpicc), no Fortran, no
# external packages, -O2. Skipped if PREFIX already holds it (delete PREFIX to rebuild). Sources and
# the build tree go to $WORK (default /tmp/petsc-<version or latest>-src, one per version, so that
# two builds can run at once). Run it with `nice`: it keeps every core busy for a long while.
# petsc4py: PyPI's sdist, built with Cython >= 3 (from PyPI, in a throw-away venv that sees the
# system's numpy) for $PYTHON (default /usr/bin/python3) and installed into
# PREFIX/lib/python3/dist-packages, where Debian's petsc4py.pth looks when PETSC_DIR=PREFIX is set
# (elsewhere, add that directory to PYTHONPATH). Skipped if already there.
set -euo pipefail
PREFIX=${1:-/opt/petsc-latest}
VERSION=${2:-}
tag=${VERSION:-latest}
tag=${tag//[^0-9A-Za-z.]/}
WORK=${WORK:-/tmp/petsc-${tag%.}-src}
PYTHON=${PYTHON:-/usr/bin/python3}
SITE=$PREFIX/lib/python3/dist-packages
# both already there (a cache): nothing to do, no network
if [ -f "$PREFIX/include/petscversion.h" ] && [ -f "$PREFIX/lib/petsc/conf/petscvariables" ]; then
  have=$(awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) /{printf "%s%s", sep, $3; sep="."}' "$PREFIX/include/petscversion.h")
  if PETSC_DIR="$PREFIX" PETSC_ARCH= PYTHONPATH="$SITE" "$PYTHON" -c "import petsc4py, sys; sys.exit(petsc4py.__version__ != '$have')" 2>/dev/null; then
    echo "build-petsc: PETSc and petsc4py $have already in $PREFIX (delete it to rebuild)"
    exit 0
  fi
fi
mkdir -p "$WORK"
cd "$WORK"
# pip only inside a venv (Debian's Python refuses installs into the system); it sees the system's numpy
[ -x "$WORK/venv/bin/python" ] || "$PYTHON" -m venv --system-site-packages "$WORK/venv"
VPY=$WORK/venv/bin/python
"$VPY" -m pip install -q wheel setuptools
spec=petsc${VERSION:+==$VERSION}
if ! ls petsc-*.tar.gz >/dev/null 2>&1; then
  "$VPY" -m pip download -q --no-deps --no-build-isolation --no-binary :all: -d . "$spec"
fi
tarball=$(ls petsc-*.tar.gz | sort -V | tail -1)
if [ -f "$PREFIX/lib/petsc/conf/petscvariables" ]; then
  echo "build-petsc: PETSc already in $PREFIX (delete it to rebuild)"
else
  echo "build-petsc: $tarball -> $PREFIX"
  rm -rf src && mkdir src && tar -xzf "$tarball" -C src --strip-components=1
  (cd src
   "$PYTHON" ./configure --prefix="$PREFIX" --with-cc=mpicc --with-cxx=0 --with-fc=0 --with-debugging=0 \
     --with-shared-libraries=1 COPTFLAGS=-O2 --with-x=0
   make -j"$(nproc)" all
   make install)
fi
version=$(awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) /{printf "%s%s", sep, $3; sep="."}' "$PREFIX/include/petscversion.h")
echo "build-petsc: PETSc $version in $PREFIX"

# --- petsc4py of the same version, for $PYTHON
if PETSC_DIR="$PREFIX" PETSC_ARCH= PYTHONPATH="$SITE" "$PYTHON" -c "import petsc4py, sys; sys.exit(petsc4py.__version__ != '$version')" 2>/dev/null; then
  echo "build-petsc: petsc4py $version already in $SITE"
  exit 0
fi
# petsc4py <= 3.22 crashes Cython >= 3.1 (its docstring annotations); the newer ones build with the newest
minor=$(echo "$version" | cut -d. -f2)
if [ "$minor" -le 22 ]; then cython=${CYTHON_SPEC:-cython>=3.0,<3.1}; else cython=${CYTHON_SPEC:-cython>=3}; fi
"$VPY" -m pip install -q "$cython"
rm -f petsc4py-*.tar.gz
"$VPY" -m pip download -q --no-deps --no-build-isolation --no-binary :all: -d . "petsc4py==$version"
rm -rf wheel && PETSC_DIR="$PREFIX" PETSC_ARCH= nice "$VPY" -m pip wheel -q --no-deps --no-build-isolation -w wheel petsc4py-*.tar.gz
"$VPY" -m pip install -q --no-deps --upgrade --target "$SITE" wheel/petsc4py-*.whl
PETSC_DIR="$PREFIX" PETSC_ARCH= PYTHONPATH="$SITE" "$PYTHON" -c "from petsc4py import PETSc; print('build-petsc: petsc4py', PETSc.Sys.getVersion(), 'runs', PETSc.__file__)"
