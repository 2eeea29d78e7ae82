#include <petscaijhybrid.h>
#include "compareaij.h"
/*
   Assembly without preallocation (MatSetUp, then values set by any rank with ADD_VALUES): on
   PETSc >= 3.19 this goes through the hash-based assembly that swaps the operations table and
   restores it at assembly end. Products of aijhybrid must equal those of aij. Prints the errors.
*/
int main(int argc, char **argv)
{
  Mat       A, B;
  PetscInt  n = 300, rs, re;
  PetscReal e[2], r[2];
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  for (int k = 0; k < 2; k++) {
    Mat *M = k ? &B : &A;
    PetscCall(MatCreate(PETSC_COMM_WORLD, M));
    PetscCall(MatSetSizes(*M, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(*M, k ? MATAIJHYBRID : MATAIJ));
    PetscCall(MatSetUp(*M));
    PetscCall(MatGetOwnershipRange(*M, &rs, &re));
    for (PetscInt i = rs; i < re; i++) {
      PetscCall(MatSetValue(*M, i, i, 3.0, ADD_VALUES));
      PetscCall(MatSetValue(*M, i, (i * 7 + 13) % n, -1.0, ADD_VALUES));
      PetscCall(MatSetValue(*M, (i * 11 + 5) % n, i, 0.5, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(CompareAIJ(A, B, PETSC_TRUE, e, r));
  PetscCheck(e[0] <= 1e-13 * r[0], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMult differs from aij: %g", (double)e[0]);
  {
    MatType type;
    PetscCall(MatGetType(B, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: MatMult matches aij\n", type));
  }
  PetscCheck(e[1] <= 1e-13 * r[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMultTranspose differs from aij: %g", (double)e[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMultTranspose matches aij\n"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  return 0;
}
