static char help[] = "Every product of aijhybrid against aij through the C API, for the sanitizer, memory-checker and race-detector runs.\n\
  -n <n>     : global rows (and columns)\n\
  -seed <s>  : pattern seed\n\
  -rounds <k>: reassembly rounds with new nonzeros (also off-process), MatZeroRows and MatDuplicate\n\n";

/*
   A C-level exercise of the whole product path (no Python, so that it runs under AddressSanitizer,
   valgrind and ThreadSanitizer): a matrix with empty rows, one long row, off-process entries and,
   with 2 or more ranks, a rank that owns no rows; every product (mult, multadd with z distinct and
   z == y, multtranspose, multtransposeadd likewise) for vector and task modes, the four partitions
   and 1 to 3 threads, compared with aij (relative error <= 1e-13) and bitwise with the first
   aijhybrid result; then rounds of reassembly with new nonzeros set by other ranks (ADD_VALUES),
   MatZeroRows and MatDuplicate, compared again. Prints "products_stress: <n> checks passed".
*/
#include <petscaijhybrid.h>
#include <math.h>
#include "unitcheck.h"

/* pattern of global row i: empty every 7th row, a long row at n/3, else a few random columns */
static PetscErrorCode SetRows(Mat A, PetscInt n, unsigned long long seed)
{
  PetscInt    rs, re, cols[64], nc;
  PetscScalar vals[64];

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    nc = 0;
    if (i % 7 == 3) continue;
    if (i == n / 3) {
      for (PetscInt j = 0; j < n && nc < 64; j += 2) cols[nc] = j, vals[nc++] = 1.0 / (1 + j);
    } else {
      PetscInt k = 1 + (PetscInt)(Hash(seed, (unsigned long long)i) % 5);
      cols[nc] = i, vals[nc++] = 4.0;
      for (PetscInt l = 0; l < k; l++) {
        PetscInt j = (PetscInt)(Hash(seed + 1 + l, (unsigned long long)i) % (unsigned long long)n);
        if (j == i) continue;
        cols[nc] = j, vals[nc++] = -1.0 / (1 + l);
      }
    }
    PetscCall(MatSetValues(A, 1, &i, nc, cols, vals, ADD_VALUES));
  }
  PetscFunctionReturn(0);
}

static PetscInt nchecks = 0;

/* |y - ref| <= 1e-13 (|A| |x| + |z|) in the infinity norm */
static PetscErrorCode Close(Vec y, Vec ref, PetscReal scale, const char *what)
{
  Vec       d;
  PetscReal e;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(y, &d));
  PetscCall(VecWAXPY(d, -1.0, ref, y));
  PetscCall(VecNorm(d, NORM_INFINITY, &e));
  PetscCall(VecDestroy(&d));
  PetscCheck(e <= 1e-13 * scale, PetscObjectComm((PetscObject)y), PETSC_ERR_PLIB, "%s differs from aij: %g (scale %g)", what, (double)e, (double)scale);
  nchecks++;
  PetscFunctionReturn(0);
}

/* every product of H against A; with first[] set, also bitwise against the stored results */
static PetscErrorCode Products(Mat A, Mat H, Vec first[6], PetscBool store, const char *label)
{
  Vec         xr, xl, zl, zr, ra, rh;
  PetscReal   nA1, nAinf, sr, sl;
  PetscBool   same;
  const char *names[6] = {"MatMult", "MatMultAdd", "MatMultAdd (z == y)", "MatMultTranspose", "MatMultTransposeAdd", "MatMultTransposeAdd (z == y)"};

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &xr, &xl));
  PetscCall(VecDuplicate(xl, &zl));
  PetscCall(VecDuplicate(xr, &zr));
  {
    PetscScalar *a;
    PetscInt     lo, hi;
    Vec          v[4] = {xr, xl, zl, zr};
    for (PetscInt k = 0; k < 4; k++) {
      PetscCall(VecGetOwnershipRange(v[k], &lo, &hi));
      PetscCall(VecGetArray(v[k], &a));
      for (PetscInt i = lo; i < hi; i++) a[i - lo] = (PetscScalar)((double)(Hash(k + 77, (unsigned long long)i) % 2001) / 1000.0 - 1.0);
      PetscCall(VecRestoreArray(v[k], &a));
    }
  }
  PetscCall(MatNorm(A, NORM_1, &nA1));
  PetscCall(MatNorm(A, NORM_INFINITY, &nAinf));
  sr = nAinf + 1.0; /* |x|, |z| <= 1 */
  sl = nA1 + 1.0;
  for (PetscInt k = 0; k < 6; k++) {
    const PetscBool tr = (PetscBool)(k >= 3);
    Vec             x = tr ? xl : xr, z = tr ? zr : zl;

    PetscCall(VecDuplicate(z, &ra));
    PetscCall(VecDuplicate(z, &rh));
    PetscCall(VecSet(rh, NAN));
    switch (k % 3) {
    case 0:
      if (tr) {
        PetscCall(MatMultTranspose(A, x, ra));
        PetscCall(MatMultTranspose(H, x, rh));
      } else {
        PetscCall(MatMult(A, x, ra));
        PetscCall(MatMult(H, x, rh));
      }
      break;
    case 1:
      if (tr) {
        PetscCall(MatMultTransposeAdd(A, x, z, ra));
        PetscCall(MatMultTransposeAdd(H, x, z, rh));
      } else {
        PetscCall(MatMultAdd(A, x, z, ra));
        PetscCall(MatMultAdd(H, x, z, rh));
      }
      break;
    case 2:
      PetscCall(VecCopy(z, ra));
      PetscCall(VecCopy(z, rh));
      if (tr) {
        PetscCall(MatMultTransposeAdd(A, x, ra, ra));
        PetscCall(MatMultTransposeAdd(H, x, rh, rh));
      } else {
        PetscCall(MatMultAdd(A, x, ra, ra));
        PetscCall(MatMultAdd(H, x, rh, rh));
      }
      break;
    }
    PetscCall(Close(rh, ra, tr ? sl : sr, names[k]));
    if (store) {
      PetscCall(VecDestroy(&first[k]));
      PetscCall(VecDuplicate(rh, &first[k]));
      PetscCall(VecCopy(rh, first[k]));
    } else {
      PetscCall(VecEqual(rh, first[k], &same));
      PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s (%s) differs bitwise from the first aijhybrid result", names[k], label);
      nchecks++;
    }
    PetscCall(VecDestroy(&ra));
    PetscCall(VecDestroy(&rh));
  }
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&zl));
  PetscCall(VecDestroy(&zr));
  PetscFunctionReturn(0);
}

/* all modes, partitions and 1..maxT threads: equal to aij and bitwise to each other */
static PetscErrorCode Sweep(Mat A, Mat H, PetscInt maxT)
{
  Vec  first[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
  char label[128];

  PetscFunctionBeginUser;
  PetscCall(Products(A, H, first, PETSC_TRUE, "default"));
  for (PetscInt mode = MAT_AIJHYBRID_MODE_AUTO; mode <= MAT_AIJHYBRID_MODE_TASK; mode++) {
    for (PetscInt p = MAT_AIJHYBRID_PARTITION_ROWS; p <= MAT_AIJHYBRID_PARTITION_OPTIMAL; p++) {
      for (PetscInt T = 1; T <= maxT; T++) {
        PetscCall(MatAIJHybridSetMode(H, (MatAIJHybridMode)mode));
        PetscCall(MatAIJHybridSetPartitionType(H, (MatAIJHybridPartitionType)p));
        PetscCall(MatAIJHybridSetNumThreads(H, T));
        PetscCall(PetscSNPrintf(label, sizeof(label), "mode %s, partition %s, %" PetscInt_FMT " threads", MatAIJHybridModes[mode], MatAIJHybridPartitionTypes[p], T));
        PetscCall(Products(A, H, first, PETSC_FALSE, label));
      }
    }
  }
  PetscCall(MatAIJHybridSetNumThreads(H, PETSC_DEFAULT));
  PetscCall(MatAIJHybridSetMode(H, MAT_AIJHYBRID_MODE_AUTO));
  PetscCall(MatAIJHybridSetPartitionType(H, MAT_AIJHYBRID_PARTITION_NNZ));
  for (PetscInt k = 0; k < 6; k++) PetscCall(VecDestroy(&first[k]));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat         A, H, D;
  PetscInt    n = 40, rounds = 2, maxT = 3, m, rs, re;
  PetscInt    seed = 1;
  PetscMPIInt size, rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-rounds", &rounds, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_threads", &maxT, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  /* with 2 or more ranks, the middle rank owns no rows */
  if (size == 1) m = n;
  else if (rank == size / 2) m = 0;
  else m = n / (size - 1) + (rank - (rank > size / 2) < n % (size - 1) ? 1 : 0);
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, m, m, n, n, 8, NULL, 8, NULL, &A));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(SetRows(A, n, (unsigned long long)seed));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
  PetscCall(MatSetFromOptions(H));
  PetscCall(Sweep(A, H, maxT));

  for (PetscInt r = 0; r < rounds; r++) {
    PetscInt    row, col;
    PetscScalar v = 0.5 + r;

    /* new nonzeros: each rank adds one entry to a row it may not own, in a column it may not own */
    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    row = (PetscInt)(Hash(seed + 100 + r, (unsigned long long)rank) % (unsigned long long)n);
    col = (PetscInt)(Hash(seed + 200 + r, (unsigned long long)rank) % (unsigned long long)n);
    PetscCall(MatSetValues(A, 1, &row, 1, &col, &v, ADD_VALUES));
    PetscCall(MatSetValues(H, 1, &row, 1, &col, &v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
    PetscCall(Sweep(A, H, maxT));
    /* zero a few rows (keeps the pattern), then a duplicate */
    {
      PetscInt rows[3], nr = 0;
      for (PetscInt i = rs; i < re && nr < 3; i += 5) rows[nr++] = i;
      PetscCall(MatZeroRows(A, nr, rows, 2.0, NULL, NULL));
      PetscCall(MatZeroRows(H, nr, rows, 2.0, NULL, NULL));
    }
    PetscCall(Sweep(A, H, maxT));
    PetscCall(MatDuplicate(H, MAT_COPY_VALUES, &D));
    PetscCall(Sweep(A, D, 2));
    PetscCall(MatDestroy(&D));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "products_stress: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFinalize());
  return 0;
}
