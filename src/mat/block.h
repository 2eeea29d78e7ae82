/*
   What other concerns (src/factor/) may ask of a matrix about the aijhybrid types, without the
   private header of src/mat: the thread count of an aijhybrid matrix, or of the diagonal block of
   an mpiaijhybrid matrix (the plain seqaij matrix MatGetDiagonalBlock() returns, which PCBJACOBI
   factors on each rank); removing the type's composed functions from a factor that PETSc made
   with a copy of the matrix's function list (src/mat/aijhybrid.c); and the type's factor options
   (-mat_aijhybrid_factor_*, in the type's option table, src/mat/settings.c).
*/
#ifndef AIJHYBRID_MAT_BLOCK_H
#define AIJHYBRID_MAT_BLOCK_H

#include <petscaijhybrid.h>

PETSC_INTERN PetscErrorCode MatAIJHybridBlockThreads(Mat, PetscInt *);
PETSC_INTERN PetscErrorCode MatAIJHybridTagBlock(Mat, PetscInt);
PETSC_INTERN PetscErrorCode MatAIJHybridUntagBlock(Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridForgetComposed(Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridFactorOptions(Mat, MatAIJHybridFactorSolve *, PetscBool *);

#endif
