/*
   MatScale and MatDiagonalScale of the aijhybrid types: the entries of each block scaled by the
   threads (src/kernels/csrentry.h), the bits of MatScale_SeqAIJ/MPIAIJ and
   MatDiagonalScale_SeqAIJ/MPIAIJ. The values are written through MatSeqAIJGetArray()/
   MatSeqAIJRestoreArray() of each block, which mark what SeqAIJ derived from the old values (its
   inverted diagonal) as out of date. For mpiaijhybrid a right scaling reads the ghost values
   of the scaling vector through the matrix's halo exchange (src/mat/halo.c), as MPIAIJ does
   through its VecScatter.
*/
#include "aijhybridimpl.h"
#include "../kernels/csrentry.h"

/* v = a v on the entries of the block B */
static PetscErrorCode ScaleBlock(Mat_AIJHybrid *ctx, Mat B, PetscScalar a)
{
  PetscInt        m, nz, T;
  const PetscInt *bi, *bj;
  PetscScalar    *v;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridEntryPattern(B, &m, &nz, &bi, &bj));
  PetscCall(MatAIJHybridEntryThreads(ctx, nz, &T));
  PetscCall(MatSeqAIJGetArray(B, &v));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridKernelScale(nz / nth * tid + PetscMin(tid, nz % nth), nz / nth * (tid + 1) + PetscMin(tid + 1, nz % nth), a, v);
  }
  PetscCall(MatSeqAIJRestoreArray(B, &v));
  PetscCall(PetscLogFlops(nz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatScale_AIJHybrid(Mat A, PetscScalar a)
{
  Mat_AIJHybrid *ctx;
  Mat            Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridEntryBlocks(A, ctx, &Ad, &Ao, NULL));
  PetscCall(ScaleBlock(ctx, Ad, a));
  if (Ao) PetscCall(ScaleBlock(ctx, Ao, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows of the block B scaled by l (may be NULL), columns by r (may be NULL: r indexed by B's columns) */
static PetscErrorCode DiagonalScaleBlock(Mat_AIJHybrid *ctx, Mat B, const PetscScalar *l, const PetscScalar *r)
{
  PetscInt        m, nz, T, *bounds;
  const PetscInt *bi, *bj;
  PetscScalar    *v;

  PetscFunctionBegin;
  if (!l && !r) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridEntryPattern(B, &m, &nz, &bi, &bj));
  PetscCall(MatAIJHybridEntryThreads(ctx, nz, &T));
  PetscCall(MatAIJHybridEntryBounds(m, bi, T, &bounds));
  PetscCall(MatSeqAIJGetArray(B, &v));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();

    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) AIJHybridKernelDiagonalScaleRows(bounds[t], bounds[t + 1], bi, bj, l, r, v);
  }
  PetscCall(MatSeqAIJRestoreArray(B, &v));
  PetscCall(PetscFree(bounds));
  PetscCall(PetscLogFlops((l ? nz : 0) + (r ? nz : 0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagonalScale_AIJHybrid(Mat A, Vec ll, Vec rr)
{
  Mat_AIJHybrid     *ctx;
  Mat                Ad, Ao;
  const PetscScalar *l = NULL, *r = NULL;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridEntryBlocks(A, ctx, &Ad, &Ao, NULL));
  if (ll) {
    PetscCall(VecGetLocalSize(ll, &n));
    PetscCheck(n == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Left scaling vector of local size %" PetscInt_FMT " for a matrix of %" PetscInt_FMT " local rows", n, A->rmap->n);
    PetscCall(VecGetArrayRead(ll, &l));
  }
  if (rr) {
    PetscCall(VecGetLocalSize(rr, &n));
    PetscCheck(n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Right scaling vector of local size %" PetscInt_FMT " for a matrix of %" PetscInt_FMT " local columns", n, A->cmap->n);
    PetscCall(VecGetArrayRead(rr, &r));
  }
  if (Ao && rr) { /* the ghost values of r, through the matrix's exchange (collective: decided on rr, not on r, which is NULL on a rank without columns) */
    AIJHybridPrepared p;

    PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_FALSE, &p));
    PetscCall(MatAIJHybridHaloForwardBegin(&ctx->cache.halo, r));
    PetscCall(MatAIJHybridHaloForwardEnd(&ctx->cache.halo, r));
  }
  PetscCall(DiagonalScaleBlock(ctx, Ad, l, r));
  if (Ao) PetscCall(DiagonalScaleBlock(ctx, Ao, l, rr ? ctx->cache.halo.ghost : NULL));
  if (ll) PetscCall(VecRestoreArrayRead(ll, &l));
  if (rr) PetscCall(VecRestoreArrayRead(rr, &r));
  PetscFunctionReturn(PETSC_SUCCESS);
}
