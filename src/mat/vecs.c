/*
   MatCreateVecs of the aijhybrid types: vectors with the matrix's threads and partition.
*/
#include "aijhybridimpl.h"
#include <petsc/private/vecimpl.h>

static PetscErrorCode CreateVec(Mat A, PetscLayout map, Vec *v)
{
  PetscInt bs;

  PetscFunctionBegin;
  PetscCall(PetscLayoutGetBlockSize(map, &bs));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)A), v));
  PetscCall(VecSetSizes(*v, map->n, PETSC_DETERMINE));
  PetscCall(VecSetBlockSize(*v, bs));
  PetscCall(VecSetType(*v, A->defaultvectype));
  PetscCall(PetscLayoutReference(map, &(*v)->map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  CreateHybridVec - a VECHYBRID vector of the layout with T threads: equal parts of the entries (the
  split vector operations balance best, each entry costing the same), or the matrix's row partition
  rows (when given) where the entries are placed by first touch (the vector's option, or the matrix's
  touch), so that each thread's part of x and y lies where the thread that multiplies those rows runs.
*/
static PetscErrorCode CreateHybridVec(Mat A, PetscLayout map, PetscInt T, const PetscInt rows[], PetscBool touch, Vec *v)
{
  PetscBool first_touch;
  PetscInt  nthreads;

  PetscFunctionBegin;
  PetscCall(VecCreateHybridWithLayout(PetscObjectComm((PetscObject)A), map, T, NULL, v));
  PetscCall(VecHybridGetFirstTouch(*v, &first_touch));
  PetscCall(VecHybridGetNumThreads(*v, &nthreads)); /* T unless -vec_hybrid_num_threads says otherwise */
  if (rows && nthreads == T && (first_touch || touch)) PetscCall(VecHybridSetPartition(*v, T, rows));
  if (touch) PetscCall(VecHybridSetFirstTouch(*v, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatCreateVecs_AIJHybrid - VECHYBRID vectors (the default vector type of aijhybrid matrices) with the
  matrix's threads, each thread on an equal part of the entries, or, where first touch is on (the
  matrix's or the vectors' option), on the entries of the rows it multiplies (the vector-mode
  partition of the diagonal block, once the matrix is assembled), first touched by that thread.
  Other vector types: with the matrix's first touch on and the standard CPU type, standard vectors
  first touched by the threads of the row partition; otherwise what AIJ gives.
*/
PetscErrorCode MatCreateVecs_AIJHybrid(Mat A, Vec *right, Vec *left)
{
  Mat_AIJHybrid      *ctx;
  PetscBool           standard, hybrid;
  PetscInt            T;
  const PetscInt     *bounds;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  MatAIJHybridContextCurrentParams(ctx, &params); /* the parameters in force */
  PetscCall(PetscStrbeginswith(A->defaultvectype, VECHYBRID, &hybrid));
  if (!hybrid) PetscCall(PetscStrcmp(A->defaultvectype, VECSEQHYBRID, &hybrid));
  if (!hybrid) PetscCall(PetscStrcmp(A->defaultvectype, VECMPIHYBRID, &hybrid));
  if (hybrid) {
    const PetscInt   *rows;
    AIJHybridRowPart *diag = &ctx->cache.diag;

    if (A->assembled) { /* the partition of the products to come (the thread count may have changed since the last) */
      Mat Ad = A;
      if (ctx->info->mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
      PetscCall(MatAIJHybridRowPartUpdate(diag, A, Ad, PETSC_FALSE, &params));
    }
    rows = diag->bounds && diag->params.nthreads == params.nthreads && diag->nrows == A->rmap->n ? diag->bounds : NULL;
    if (right) {
      PetscBool same;
      PetscCall(PetscLayoutCompare(A->rmap, A->cmap, &same));
      PetscCall(CreateHybridVec(A, A->cmap, params.nthreads, same ? rows : NULL, ctx->set.first_touch, right));
    }
    if (left) PetscCall(CreateHybridVec(A, A->rmap, params.nthreads, rows, ctx->set.first_touch, left));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrcmp(A->defaultvectype, VECSTANDARD, &standard));
  if (!standard) PetscCall(PetscStrcmp(A->defaultvectype, VECSEQ, &standard));
  if (!standard) PetscCall(PetscStrcmp(A->defaultvectype, VECMPI, &standard));
  if (!ctx->set.first_touch || !standard) {
    if (ctx->parentops.getvecs) {
      PetscCall((*ctx->parentops.getvecs)(A, right, left));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    /* what MatCreateVecs() does for a type without getvecs */
    if (right) PetscCall(CreateVec(A, A->cmap, right));
    if (left) PetscCall(CreateVec(A, A->rmap, left));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* first touch by the threads of the row partition */
  T      = params.nthreads;
  bounds = ctx->cache.diag.bounds && ctx->cache.diag.params.nthreads == T ? ctx->cache.diag.bounds : NULL;
  if (right) PetscCall(MatAIJHybridFirstTouchVecCreate(PetscObjectComm((PetscObject)A), A->cmap, T, bounds && ctx->cache.diag.nrows == A->cmap->n ? bounds : NULL, right));
  if (left) PetscCall(MatAIJHybridFirstTouchVecCreate(PetscObjectComm((PetscObject)A), A->rmap, T, bounds && ctx->cache.diag.nrows == A->rmap->n ? bounds : NULL, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}
