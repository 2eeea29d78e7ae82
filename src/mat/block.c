/*
   The diagonal block of an mpiaijhybrid matrix is a plain seqaij matrix (MPIAIJ creates it, and
   recreates it on every preallocation); PCBJACOBI factors it on each rank. The matrix tags it with
   its thread count at every setup and product (a composed container holding the number itself),
   so that the factorization of the block (src/factor/) runs its solves with those threads.
*/
#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h>
#include "block.h"

#define AIJHYBRID_BLOCK_TAG "MatAIJHybridBlockThreads"

/* tag the diagonal block Ad of an mpiaijhybrid matrix with its thread count (no allocation when
   the tag exists: the count is kept in the container's pointer) */
PetscErrorCode MatAIJHybridTagBlock(Mat Ad, PetscInt nthreads)
{
  PetscContainer c;
  void          *p;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)Ad, AIJHYBRID_BLOCK_TAG, (PetscObject *)&c));
  if (c) {
    PetscCall(PetscContainerGetPointer(c, (void **)&p));
    if ((PetscInt)(intptr_t)p != nthreads) PetscCall(PetscContainerSetPointer(c, (void *)(intptr_t)nthreads));
  } else {
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, (void *)(intptr_t)nthreads));
    PetscCall(PetscObjectCompose((PetscObject)Ad, AIJHYBRID_BLOCK_TAG, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* remove the tag from the diagonal block of A (converted back to mpiaij): its factors are AIJ's */
PetscErrorCode MatAIJHybridUntagBlock(Mat A)
{
  Mat Ad;

  PetscFunctionBegin;
  if (!A->preallocated) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  if (Ad) PetscCall(PetscObjectCompose((PetscObject)Ad, AIJHYBRID_BLOCK_TAG, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridBlockThreads - the thread count of a seqaijhybrid matrix, or of the diagonal block of
  an mpiaijhybrid matrix (as tagged at the matrix's last setup or product); 0 for any other matrix
*/
PetscErrorCode MatAIJHybridBlockThreads(Mat A, PetscInt *nthreads)
{
  PetscBool      hyb;
  PetscContainer c;
  void          *p;

  PetscFunctionBegin;
  *nthreads = 0;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJHYBRID, &hyb));
  if (hyb) { /* its own count, through the composed implementation of MatAIJHybridGetNumThreads() */
    PetscUseMethod(A, "MatAIJHybridGetNumThreads_C", (Mat, PetscInt *), (A, nthreads));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectQuery((PetscObject)A, AIJHYBRID_BLOCK_TAG, (PetscObject *)&c));
  if (c) {
    PetscCall(PetscContainerGetPointer(c, (void **)&p));
    *nthreads = (PetscInt)(intptr_t)p;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
