/*
   What the sparse products of the two types share (matproduct.c, matproductmpi.c): the threads of
   a product, the result's block sizes and creation, and the values the symbolic phase computes
   with the pattern when they are ready (MatPtAP() & co.). The threaded steps are in productplan.h.
*/
#ifndef AIJHYBRID_MAT_PRODUCT_H
#define AIJHYBRID_MAT_PRODUCT_H

#include "aijhybridimpl.h"
#include "productplan.h"

/* the operands' and the result's states when the symbolic phase computed the values too (MatPtAP()
   & co. make the values ready before the symbolic phase: product->api_user); the numeric phase
   right after it has nothing to do */
typedef struct {
  PetscBool        valid;
  Mat              A, B;     /* not referenced: compared only */
  PetscObjectState state[3]; /* of A, B and C */
} AIJHybridProductFresh;

PETSC_INTERN PetscErrorCode MatAIJHybridProductFreshSet(Mat, AIJHybridProductFresh *);
PETSC_INTERN PetscErrorCode MatAIJHybridProductFreshCheck(Mat, AIJHybridProductFresh *, PetscBool *);
PETSC_INTERN PetscErrorCode MatAIJHybridProductNumThreads(Mat, PetscInt *);
PETSC_INTERN PetscErrorCode MatAIJHybridProductBlockSizes(Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridProductCreateSeq(Mat, MatType, AIJHybridSpGEMM *);
PETSC_INTERN PetscErrorCode MatProductSymbolic_MPIAIJHybrid(Mat);

#endif
