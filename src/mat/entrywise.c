/*
   What the entry-wise operations of a preconditioner's setup (axpy.c, scale.c, diagonal.c) share:
   the threads an operation on so many entries runs with, the row partition it splits a CSR block
   with, and the arrays of a block. The kernels are src/kernels/csrentry.h.
*/
#include "aijhybridimpl.h"
#include "../kernels/csrentry.h"

/* the threads of an entry-wise operation of A on nz entries: those in force, fewer below AIJHYBRID_ENTRY_GRAIN entries each */
PetscErrorCode MatAIJHybridEntryThreads(Mat_AIJHybrid *ctx, PetscInt nz, PetscInt *T)
{
  AIJHybridPartParams params;

  PetscFunctionBegin;
  MatAIJHybridContextCurrentParams(ctx, &params);
  *T = AIJHybridEntryThreads(params.nthreads, nz);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bounds[0..T] (allocated here) of the m rows with row starts rowptr: parts of about equal nonzeros + rows */
PetscErrorCode MatAIJHybridEntryBounds(PetscInt m, const PetscInt *rowptr, PetscInt T, PetscInt **bounds)
{
  AIJHybridCost cost;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(T + 1, bounds));
  cost.n      = m;
  cost.rowptr = rowptr;
  cost.c      = 1.0;
  if (m == 0) {
    for (PetscInt t = 0; t <= T; t++) (*bounds)[t] = 0;
  } else PetscCall(AIJHybridPartitionGreedy(&cost, T, *bounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the blocks of A: the diagonal one (A itself when sequential) and the off-diagonal one (NULL when sequential) */
PetscErrorCode MatAIJHybridEntryBlocks(Mat A, Mat_AIJHybrid *ctx, Mat *Ad, Mat *Ao, const PetscInt **garray)
{
  PetscFunctionBegin;
  *Ad = A;
  *Ao = NULL;
  if (garray) *garray = NULL;
  if (ctx->info->mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, garray));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the row starts, column indices and number of rows and entries of the CSR block B */
PetscErrorCode MatAIJHybridEntryPattern(Mat B, PetscInt *m, PetscInt *nz, const PetscInt **bi, const PetscInt **bj)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(B, bi, bj, NULL, NULL));
  *m  = B->rmap->n;
  *nz = *m ? (*bi)[*m] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
