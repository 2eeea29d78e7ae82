/*
   What src/factor/ may ask of the aijhybrid types without the private header of src/mat: removing
   the type's composed functions from a factor that PETSc made with a copy of the matrix's function
   list (src/mat/aijhybrid.c), and the type's factor options (-mat_aijhybrid_factor_*, read when a
   factor is made; src/mat/settings.c). The thread count of the matrix factored is public
   (MatAIJHybridGetNumThreads()): every matrix the package's factorizations are registered for is
   seqaijhybrid, the diagonal blocks and sub-matrices of mpiaijhybrid included.
*/
#ifndef AIJHYBRID_MAT_FACTORSUPPORT_H
#define AIJHYBRID_MAT_FACTORSUPPORT_H

#include <petscaijhybrid.h>

PETSC_INTERN PetscErrorCode MatAIJHybridForgetComposed(Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridFactorOptions(Mat, MatAIJHybridFactorSolve *, PetscBool *, MatAIJHybridFactorSolve *);

#endif
