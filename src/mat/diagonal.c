/*
   MatGetDiagonal of the aijhybrid types: each thread finds the diagonal entries of its rows of the
   diagonal block (src/kernels/csrentry.h), as MatGetDiagonal_SeqAIJ/MPIAIJ do (the first entry of
   the row in the diagonal's column, 0 when the row has none).
*/
#include "aijhybridimpl.h"
#include "../kernels/csrentry.h"

PetscErrorCode MatGetDiagonal_AIJHybrid(Mat A, Vec v)
{
  Mat_AIJHybrid     *ctx;
  Mat                Ad, Ao;
  PetscInt           m, nz, n, T, *bounds;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscScalar       *d;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (A->factortype != MAT_FACTOR_NONE) { /* a factor's diagonal: AIJ's */
    PetscCall((*ctx->parentops.getdiagonal)(A, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatAIJHybridEntryBlocks(A, ctx, &Ad, &Ao, NULL));
  if (Ao) {
    PetscCheck(A->rmap->N == A->cmap->N, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Supports only square matrix where A->A is diag block");
    PetscCheck(A->rmap->rstart == A->cmap->rstart && A->rmap->rend == A->cmap->rend, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "row partition must equal col partition");
  }
  PetscCall(VecGetLocalSize(v, &n));
  PetscCheck(n == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Nonconforming matrix and vector");
  PetscCall(MatAIJHybridEntryPattern(Ad, &m, &nz, &ai, &aj));
  PetscCall(MatAIJHybridEntryThreads(ctx, nz, &T));
  PetscCall(MatAIJHybridEntryBounds(m, ai, T, &bounds));
  PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
  PetscCall(VecGetArrayWrite(v, &d));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();

    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) AIJHybridKernelDiagonal(bounds[t], bounds[t + 1], 0, ai, aj, aa, d);
  }
  PetscCall(VecRestoreArrayWrite(v, &d));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
  PetscCall(PetscFree(bounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}
