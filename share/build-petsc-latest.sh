#!/usr/bin/env bash
# Builds the newest PETSc release from PyPI's `petsc` source package into a prefix, to check that
# petsc-aijhybrid builds against it (about 25 minutes on 2 cores; not part of `make test`).
#
#   bash share/build-petsc-latest.sh [PREFIX] [VERSION]     (defaults: /opt/petsc-latest, newest)
#   make lib PETSC_DIR=PREFIX BUILD=build/petsc-latest
#
# It uses the system MPI (mpicc) and no Fortran, no external packages.
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
echo "build-petsc-latest: $tarball -> $PREFIX"
rm -rf src && mkdir src && tar -xzf "$tarball" -C src --strip-components=1
cd src
python3 ./configure --prefix="$PREFIX" --with-cc=mpicc --with-cxx=0 --with-fc=0 --with-debugging=0 \
  --with-shared-libraries=1 COPTFLAGS=-O2 --with-x=0
make -j"$(nproc)" all
make install
echo "build-petsc-latest: installed $(awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) /{printf "%s%s", sep, $3; sep="."}' "$PREFIX/include/petscversion.h") in $PREFIX"
