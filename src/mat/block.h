/*
   The diagonal block of an mpiaijhybrid matrix as a seqaijhybrid matrix sharing the arrays of
   MPIAIJ's block (src/mat/block.c): what MatGetDiagonalBlock() returns, and PCBJACOBI factors.
*/
#ifndef AIJHYBRID_MAT_BLOCK_H
#define AIJHYBRID_MAT_BLOCK_H

#include "context.h"

PETSC_INTERN PetscErrorCode MatAIJHybridBlockGet(Mat, Mat_AIJHybrid *, PetscBool, Mat *);

#endif
