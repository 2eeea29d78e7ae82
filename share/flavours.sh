#!/usr/bin/env bash
# Builds petsc-aijhybrid against each of Debian's other PETSc flavours and runs its tests there
# (`make test-flavours`; `make test` covers the default flavour, real scalars and 32-bit indices).
#
#   bash share/flavours.sh [NAME...]        (default: every flavour below)
#
#   name           PETSc (Debian bookworm, 3.18)                               petsc4py
#   complex        libpetsc-complex-dev     /usr/lib/petscdir/petsc-complex    python3-petsc4py-complex
#   int64          libpetsc64-real-dev      /usr/lib/petscdir/petsc64-real     python3-petsc4py-64-real
#   int64-complex  libpetsc64-complex-dev   /usr/lib/petscdir/petsc64-complex  python3-petsc4py-64-complex
#   debug          libpetsc-real3.18-dbg    /usr/lib/petscdir/petsc3.18/<triplet>-real-debug   (none)
#
# Missing packages are installed with apt (idempotent). Each flavour gets its own build directory
# build/flavours/<name> (the library keeps its name libpetscaijhybrid.so) and runs, with PETSC_DIR
# pointing at it (Debian's petsc4py.pth picks that flavour's petsc4py from PETSC_DIR):
#   - flavours with petsc4py: every pytest test except PETSc's harness and `make install`, at 1 and 2
#     ranks and 1 and 2 threads per launch (AIJHYBRID_TEST_RANKS/THREADS; the workers themselves
#     also switch 1-3 threads in-process); the shared matrices and vectors get imaginary parts in
#     complex builds (tests/workers/common.py);
#   - debug (Debian ships no petsc4py for it): the C tests (tests/test_flavour.py C smoke: every
#     multiply against aij and a KSP solve at 1 and 2 ranks; tests/test_unit.py).
# Prints one result line per flavour; exits non-zero if any flavour failed.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
TRIPLET=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)

# name | PETSC_DIR | packages | expected flavour line of tests/unit/flavour_smoke.c | has petsc4py
FLAVOURS=(
  "complex|/usr/lib/petscdir/petsc-complex|libpetsc-complex-dev python3-petsc4py-complex|scalar complex, int 32, debug no|yes"
  "int64|/usr/lib/petscdir/petsc64-real|libpetsc64-real-dev python3-petsc4py-64-real|scalar real, int 64, debug no|yes"
  "int64-complex|/usr/lib/petscdir/petsc64-complex|libpetsc64-complex-dev python3-petsc4py-64-complex|scalar complex, int 64, debug no|yes"
  "debug|/usr/lib/petscdir/petsc3.18/$TRIPLET-real-debug|libpetsc-real3.18-dbg|scalar real, int 32, debug yes|no"
)

want=("$@")
selected=()
for f in "${FLAVOURS[@]}"; do
  name=${f%%|*}
  if [ ${#want[@]} -eq 0 ] || [[ " ${want[*]} " == *" $name "* ]]; then selected+=("$f"); fi
done
[ ${#selected[@]} -gt 0 ] || { echo "flavours: unknown flavour(s) ${want[*]}; known: complex int64 int64-complex debug" >&2; exit 2; }

# --- packages
missing=()
for f in "${selected[@]}"; do
  IFS='|' read -r name dir pkgs expect p4p <<<"$f"
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "flavours: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q && $SUDO apt-get install -y -q "${missing[@]}" || { echo "flavours: apt-get failed" >&2; exit 1; }
fi

# --- build and test each flavour
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
results=()
status=0
for f in "${selected[@]}"; do
  IFS='|' read -r name dir pkgs expect p4p <<<"$f"
  dir=$(readlink -f "$dir")
  build=$TOP/build/flavours/$name
  echo "== flavour $name: PETSC_DIR=$dir BUILD=$build"
  if ! make --no-print-directory -j"$(nproc)" -C "$TOP" all PETSC_DIR="$dir" PETSC_ARCH= BUILD="$build"; then
    results+=("$name: BUILD FAILED")
    status=1
    continue
  fi
  if [ "$p4p" = yes ]; then
    # (the 2-rank -malloc_debug rerun of every operation is left to `make test`: minutes per flavour)
    sel=(tests --ignore=tests/test_harness.py --ignore=tests/test_install.py -k "not all_operations_free_everything")
  else
    sel=(tests/test_flavour.py::test_c_smoke_every_product_and_ksp tests/test_unit.py)
  fi
  log=$build/pytest.log
  (cd "$TOP" && PETSC_DIR="$dir" PETSC_ARCH= AIJHYBRID_BUILD="$build" AIJHYBRID_PYTHON="$PYTHON" \
    AIJHYBRID_TEST_RANKS=1,2 AIJHYBRID_TEST_THREADS=1,2 AIJHYBRID_EXPECT_FLAVOUR="$expect" PYTHONPATH="$TOP/python" \
    "$PYTHON" -m pytest -ra "${sel[@]}" ${PYTEST_ARGS:-}) 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  summary=$(grep -E '^=+ .*(passed|failed|error).* =+$' "$log" | tail -1 | sed -e 's/^=* //' -e 's/ =*$//')
  results+=("$name ($expect): ${summary:-no summary} [exit $rc]")
  [ "$rc" = 0 ] || status=1
done

echo "== flavours:"
printf '   %s\n' "${results[@]}"
exit $status
