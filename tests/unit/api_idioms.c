#include <petscaijhybrid.h>
#include "compareaij.h"
/*
   PETSc's API idioms of the matrix type: the convenience constructors MatCreateSeqAIJHybrid() and
   MatCreateMPIAIJHybrid() (type, preallocation honoured, products equal to aij's), and the public
   Set/Get functions through composed implementations: a Set is ignored by another type, a Get
   refuses it, and both follow the type through MatConvert() in place. Prints one line per check
   group and "api_idioms: N checks passed" at the end; fails with a PETSc error otherwise.
*/
static PetscInt nchecks = 0;

#define CHECK(cond, ...) \
  do { \
    PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__); \
    nchecks++; \
  } while (0)

/* a tridiagonal matrix plus one far column per row, values by row, in A (preallocated: 4 per row, 2 off the diagonal block) */
static PetscErrorCode Fill(Mat A)
{
  PetscInt rs, re, N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE)); /* the constructors' preallocation must suffice */
  for (PetscInt i = rs; i < re; i++) {
    PetscInt    cols[4] = {i, (i + 1) % N, (i + N - 1) % N, (i * 7 + N / 2) % N}, ncols = 4;
    PetscScalar vals[4] = {4.0, -1.0, -1.0, 0.25 * (PetscReal)(i % 5)};

    if (N < 4) ncols = 1;
    else if (cols[3] == cols[0] || cols[3] == cols[1] || cols[3] == cols[2]) ncols = 3;
    PetscCall(MatSetValues(A, 1, &i, ncols, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* A x == B x and A^T y == B^T y (CompareAIJ(): no difference at all) */
static PetscErrorCode SameProducts(Mat A, Mat B, const char *what)
{
  PetscReal e[2], r[2];

  PetscFunctionBegin;
  PetscCall(CompareAIJ(A, B, PETSC_TRUE, e, r));
  CHECK(e[0] == 0, "%s: MatMult differs from aij by %g", what, (double)e[0]);
  CHECK(e[1] == 0, "%s: MatMultTranspose differs from aij by %g", what, (double)e[1]);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat            A, B, S;
  PetscMPIInt    size;
  PetscBool      match, flg;
  PetscInt       n = 40, T;
  MatType        type;
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  /* MatCreateMPIAIJHybrid(): the type of the rank count, AIJ's preallocation, aij's products */
  PetscCall(MatCreateMPIAIJHybrid(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, size * n, size * n, 4, NULL, 2, NULL, &A));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscStrcmp(type, size > 1 ? MATMPIAIJHYBRID : MATSEQAIJHYBRID, &match));
  CHECK(match, "MatCreateMPIAIJHybrid() made a %s", type);
  PetscCall(Fill(A));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, size * n, size * n, 4, NULL, 2, NULL, &B));
  PetscCall(Fill(B));
  PetscCall(SameProducts(A, B, "MatCreateMPIAIJHybrid"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "constructors: MatCreateMPIAIJHybrid gives %s, products equal to aij's\n", type));

  /* MatCreateSeqAIJHybrid() on each rank */
  PetscCall(MatCreateSeqAIJHybrid(PETSC_COMM_SELF, n, n, 4, NULL, &S));
  PetscCall(MatGetType(S, &type));
  PetscCall(PetscStrcmp(type, MATSEQAIJHYBRID, &match));
  CHECK(match, "MatCreateSeqAIJHybrid() made a %s", type);
  PetscCall(Fill(S));
  {
    Mat Sa;
    Vec x, y1, y2;

    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 4, NULL, &Sa));
    PetscCall(Fill(Sa));
    PetscCall(MatCreateVecs(S, &x, &y1));
    PetscCall(VecDuplicate(y1, &y2));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(S, x, y1));
    PetscCall(MatMult(Sa, x, y2));
    PetscCall(VecEqual(y1, y2, &flg));
    CHECK(flg, "MatCreateSeqAIJHybrid: MatMult differs from seqaij");
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
    PetscCall(MatDestroy(&Sa));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "constructors: MatCreateSeqAIJHybrid gives seqaijhybrid, products equal to seqaij's\n"));

  /* composed Set/Get: on aijhybrid they work */
  PetscCall(MatAIJHybridSetNumThreads(A, 2));
  PetscCall(MatAIJHybridGetNumThreads(A, &T));
  CHECK(T == 2, "MatAIJHybridGetNumThreads() gave %" PetscInt_FMT " after setting 2", T);
  PetscCall(MatAIJHybridSetSORSerial(A, PETSC_TRUE));
  PetscCall(MatAIJHybridGetSORSerial(A, &flg));
  CHECK(flg, "MatAIJHybridGetSORSerial() lost the setting");
  /* on aij a Set is ignored and a Get is refused */
  PetscCall(MatAIJHybridSetNumThreads(B, 3));
  PetscCall(MatAIJHybridSetSORSerial(B, PETSC_TRUE));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatAIJHybridGetNumThreads(B, &T);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr != 0, "MatAIJHybridGetNumThreads() accepted an aij matrix");
  /* the implementations follow the type: converted to aij in place, Get refuses; back, it works again */
  PetscCall(MatConvert(A, MATAIJ, MAT_INPLACE_MATRIX, &A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatAIJHybridGetSORSerial(A, &flg);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr != 0, "MatAIJHybridGetSORSerial() accepted the matrix converted to aij");
  PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INPLACE_MATRIX, &A));
  PetscCall(MatAIJHybridGetSORSerial(A, &flg));
  CHECK(!flg, "the matrix converted back to aijhybrid does not have the default settings");
  PetscCall(SameProducts(A, B, "converted back"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "composed Set/Get: work on aijhybrid, Set ignored and Get refused on aij, follow MatConvert\n"));

  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&S));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "api_idioms: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
