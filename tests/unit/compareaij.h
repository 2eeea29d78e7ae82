/*
   What the C tests that check a matrix against PETSc's aij on the same input share: the products of
   both with one random vector, their difference and the size of the reference.
*/
#ifndef AIJHYBRID_COMPAREAIJ_H
#define AIJHYBRID_COMPAREAIJ_H

#include <petscmat.h>

/*
   CompareAIJ - A (the reference, PETSc's aij) and B on the same random x: err[0] = |A x - B x|_inf,
   err[1] = |A^T y - B^T y|_inf with y = A x (transpose: PETSC_FALSE skips it, err[1] = 0); ref[] the
   inf-norms of A x and A^T y, for relative bounds
*/
static inline PetscErrorCode CompareAIJ(Mat A, Mat B, PetscBool transpose, PetscReal err[2], PetscReal ref[2])
{
  Vec x, y1, y2, z1, z2;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(A, x, y1));
  PetscCall(MatMult(B, x, y2));
  PetscCall(VecNorm(y1, NORM_INFINITY, &ref[0]));
  PetscCall(VecAXPY(y2, -1.0, y1));
  PetscCall(VecNorm(y2, NORM_INFINITY, &err[0]));
  err[1] = ref[1] = 0;
  if (transpose) {
    PetscCall(VecDuplicate(x, &z1));
    PetscCall(VecDuplicate(x, &z2));
    PetscCall(MatMultTranspose(A, y1, z1));
    PetscCall(MatMultTranspose(B, y1, z2));
    PetscCall(VecNorm(z1, NORM_INFINITY, &ref[1]));
    PetscCall(VecAXPY(z2, -1.0, z1));
    PetscCall(VecNorm(z2, NORM_INFINITY, &err[1]));
    PetscCall(VecDestroy(&z1));
    PetscCall(VecDestroy(&z2));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscFunctionReturn(0);
}

#endif
