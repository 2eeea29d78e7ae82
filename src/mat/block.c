/*
   The diagonal block of an mpiaijhybrid matrix is a plain seqaij matrix (MPIAIJ creates it, and
   recreates it on every preallocation); PCBJACOBI factors it on each rank. The matrix tags it with
   its thread count at every setup and product (a composed container holding a PetscInt), so that
   the factorization of the block (src/factor/) runs its solves with those threads.
*/
#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h>
#include "block.h"

#define AIJHYBRID_BLOCK_TAG "MatAIJHybridBlockThreads"

/* the tag's destroy: the container's context is the PetscInt it owns */
static PetscErrorCode BlockTagDestroy(void *arg)
{
  PetscInt *count = (PetscInt *)AIJHybridContainerContext(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree(count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tag the diagonal block Ad of an mpiaijhybrid matrix with its thread count (no allocation when
   the tag exists). The count lives in memory the container owns: a debug PETSc checks that a
   container's pointer can be read, so a number stored as the pointer itself is refused there. */
PetscErrorCode MatAIJHybridTagBlock(Mat Ad, PetscInt nthreads)
{
  PetscContainer c;
  PetscInt      *count;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)Ad, AIJHYBRID_BLOCK_TAG, (PetscObject *)&c));
  if (c) {
    PetscCall(PetscContainerGetPointer(c, (void **)&count));
    *count = nthreads;
  } else {
    PetscCall(PetscNew(&count));
    *count = nthreads;
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, count));
    PetscCall(AIJHybridContainerSetDestroy(c, BlockTagDestroy));
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
  PetscInt      *count;

  PetscFunctionBegin;
  *nthreads = 0;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJHYBRID, &hyb));
  if (hyb) { /* its own count, through the composed implementation of MatAIJHybridGetNumThreads() */
    PetscUseMethod(A, "MatAIJHybridGetNumThreads_C", (Mat, PetscInt *), (A, nthreads));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectQuery((PetscObject)A, AIJHYBRID_BLOCK_TAG, (PetscObject *)&c));
  if (c) {
    PetscCall(PetscContainerGetPointer(c, (void **)&count));
    *nthreads = *count;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
