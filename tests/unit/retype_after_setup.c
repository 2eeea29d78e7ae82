/*
   An application that sets its matrix up before the options choose the type (as PETSc's
   ksp/tests/ex47 does): MatSetUp(), then MatSetFromOptions() with -mat_type aijhybrid, then values
   through MatDiagonalSet() and MatSetValues() without any new preallocation. MatSetType() drops
   the preallocation of the old type; aijhybrid sets the matrix up again so this works as with
   -mat_type aij. Products are compared with an aij matrix built the same way.
*/
#include <petscaijhybrid.h>
#include "compareaij.h"

static PetscErrorCode Build(MatType type, Mat *A)
{
  Vec      d;
  PetscInt rs, re, N;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, 6, 6, PETSC_DECIDE, PETSC_DECIDE));
  PetscCall(MatSetUp(*A));
  if (type) PetscCall(MatSetType(*A, type));
  else PetscCall(MatSetFromOptions(*A));
  PetscCall(MatCreateVecs(*A, &d, NULL));
  PetscCall(VecSet(d, 4.0));
  PetscCall(MatDiagonalSet(*A, d, INSERT_VALUES));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(MatGetSize(*A, &N, NULL));
  for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(*A, i, (i + 1) % N, -1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat       A, H;
  PetscReal e[2], r[2];
  MatType   type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(Build(MATAIJ, &A));
  PetscCall(Build(NULL, &H)); /* type from -mat_type */
  PetscCall(MatGetType(H, &type));
  PetscCall(CompareAIJ(A, H, PETSC_TRUE, e, r));
  PetscCheck(e[0] <= 1e-13 * r[0] && e[1] <= 1e-13 * r[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s differs from aij: %g, transpose %g", type, (double)e[0], (double)e[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s set up before its type was chosen: MatMult matches aij\n", type));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFinalize());
  return 0;
}
