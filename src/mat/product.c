/*
   The products of both aijhybrid types: MatMult, MatMultAdd, MatMultTranspose, MatMultTransposeAdd.
   A product reads: prepare (src/mat/prepare.c), exchange and multiply, tune (src/mat/tune.c).
   seqaijhybrid is the case without an off-diagonal block and exchange.

   Forward, in one parallel region:
     task mode:   thread 0 (the main thread, so MPI_THREAD_FUNNELED suffices) begins and ends the
                  halo exchange of the ghost values of x while threads 1..T-1 multiply their parts
                  of the diagonal block; thread 0 then multiplies its own part, the leading rows,
                  sized so that it finishes with the others (src/mat/tune.c); a barrier; then all T
                  threads multiply the non-empty rows of the off-diagonal block;
     vector mode: the main thread completes the exchange before the region; every thread multiplies
                  its rows of the diagonal block, a barrier, and its share of the off-diagonal block.
   Part t of a partition runs on thread t mod nth (nth < T only if OpenMP gives fewer threads). No
   PETSc call is made by a thread other than 0; errors of thread 0 are kept and checked after the
   region. Each thread adds its busy time per phase to its own (padded) slot of the statistics.

   Transpose: threads compute the ghost contributions Ao^T x and the owned part Ad^T x over column
   partitions of the cached CSC copies of the blocks (no two threads write one entry; the values
   copied again when they change), then the main thread adds the ghost contributions to their
   owners (reverse exchange), in the order MATMPIAIJ uses. With one thread: AIJ's own transpose.
*/
#include "aijhybridimpl.h"

/* diagonal-block parts first, first + step, ... of a partition into Td parts: y = (z +) Ad x */
static inline void DiagParts(PetscInt first, PetscInt step, PetscInt Td, const PetscInt *bounds, const PetscInt *di, const PetscInt *dj, const PetscScalar *da, const PetscScalar *xa, const PetscScalar *za, PetscScalar *ya, PetscInt pd)
{
  for (PetscInt t = first; t < Td; t += step) AIJHybridKernelMultAdd(bounds[t], bounds[t + 1], di, dj, da, xa, za, ya, pd);
}

/* y = A x, or y = z + A x when z is given (z may be y) */
static PetscErrorCode MatMultAdd_AIJHybrid_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_AIJHybrid     *ctx;
  AIJHybridPrepared  p;
  AIJHybridArrays    a;
  AIJHybridHalo     *halo;
  const PetscInt    *dbounds, *obounds, *orows;
  PetscScalar       *ya, *ghost;
  const PetscScalar *xa, *za = NULL;
  PetscInt           T, To, pd;
  double             twall, tkernel = 0.0, *stats;
  PetscErrorCode     ierr = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_FALSE, &p));
  PetscCall(MatAIJHybridPrepareArrays(A, ctx, &p, &a));
  T = p.params.nthreads;
  PetscCall(MatAIJHybridStatsPrepare(ctx, T, p.mode));
  pd      = MatAIJHybridPrefetchDistance(ctx);
  halo    = p.Ao ? &ctx->cache.halo : NULL;
  To      = p.Ao ? ctx->cache.offd.params.nthreads : 0;
  dbounds = p.dpart->bounds;
  obounds = ctx->cache.offd.bounds;
  orows   = ctx->cache.offd.rows;
  ghost   = halo ? halo->ghost : NULL;
  stats   = ctx->stats.time;
  PetscCall(MatAIJHybridGetVecArrays(x, z, y, &xa, &za, &ya));

  if (halo && p.mode == MAT_AIJHYBRID_MODE_VECTOR) {
    PetscCall(MatAIJHybridHaloForwardBegin(halo, xa));
    PetscCall(MatAIJHybridHaloForwardEnd(halo, xa));
  }
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Mult, A, 0, 0, 0));
  for (PetscInt t = 0; t < T; t++) stats[AIJHYBRID_STATS_STRIDE * t + AIJHYBRID_STATS_LAST] = 0.0;
  twall = omp_get_wtime();
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();
    double        *tt = stats + AIJHYBRID_STATS_STRIDE * tid, t0 = omp_get_wtime(), t1;

    if (p.mode == MAT_AIJHYBRID_MODE_TASK && tid == 0) {
      ierr = MatAIJHybridHaloForwardBegin(halo, xa);
      if (!ierr) ierr = MatAIJHybridHaloForwardEnd(halo, xa);
      t1 = omp_get_wtime();
      tt[AIJHYBRID_STATS_COMM] += t1 - t0;
      t0 = t1;
    }
    DiagParts(tid, nth, T, dbounds, a.di, a.dj, a.da, xa, za, ya, pd);
    t1 = omp_get_wtime();
    tt[AIJHYBRID_STATS_DIAG] += t1 - t0;
    tt[AIJHYBRID_STATS_LAST] = t1 - t0;
    if (To) {
#pragma omp barrier
      t0 = omp_get_wtime();
      if (!ierr) {
        for (PetscInt t = tid; t < To; t += nth) AIJHybridKernelMultAddRows(obounds[t], obounds[t + 1], orows, a.oi, a.oj, a.oa, ghost, ya, pd);
      }
      t1 = omp_get_wtime();
      tt[AIJHYBRID_STATS_OFFD] += t1 - t0;
      tt[AIJHYBRID_STATS_LAST] += t1 - t0;
    }
  }
  twall = omp_get_wtime() - twall;
  PetscCall(ierr);
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Mult, A, 0, 0, 0));
  for (PetscInt t = 0; t < T; t++) tkernel = PetscMax(tkernel, stats[AIJHYBRID_STATS_STRIDE * t + AIJHYBRID_STATS_LAST]);
  PetscCall(MatAIJHybridTune(A, ctx, pd, twall, tkernel));
  PetscCall(MatAIJHybridRestoreVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogFlops(2.0 * (ctx->cache.diag.key.nz + (p.Ao ? ctx->cache.offd.key.nz : 0)) - (z ? 0 : A->rmap->n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMult_AIJHybrid(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_AIJHybrid_Private(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultAdd_AIJHybrid(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_AIJHybrid_Private(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A^T x, or y = z + A^T x */
static PetscErrorCode MatMultTransposeAdd_AIJHybrid_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPrepared   p;
  AIJHybridTranspose *td, *to      = NULL;
  PetscScalar        *ya, *ghost_t = NULL;
  const PetscScalar  *xa, *za = NULL, *dv, *ov = NULL;
  PetscInt            T;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_FALSE, &p));
  T = p.params.nthreads;
  if (T == 1) { /* AIJ's own transpose: the same sums in the same order, faster alone, no CSC copy */
    if (z) PetscCall((*ctx->parentops.multtransposeadd)(A, x, z, y));
    else PetscCall((*ctx->parentops.multtranspose)(A, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  td = &ctx->cache.tdiag;
  PetscCall(MatAIJHybridTransposeUpdate(td, A, p.Ad, &p.params));
  PetscCall(MatAIJHybridTransposeValues(td, A, p.Ad, T, &dv));
  if (p.Ao) {
    to = &ctx->cache.toffd;
    PetscCall(MatAIJHybridTransposeUpdate(to, A, p.Ao, &p.params));
    PetscCall(MatAIJHybridTransposeValues(to, A, p.Ao, T, &ov));
    ghost_t = ctx->cache.halo.ghost_t;
  }
  PetscCall(MatAIJHybridGetVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Transpose, A, 0, 0, 0));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) {
      if (to) AIJHybridKernelMultTransposeCSC(to->part.bounds[t], to->part.bounds[t + 1], to->ti, to->tj, ov, xa, NULL, ghost_t);
      AIJHybridKernelMultTransposeCSC(td->part.bounds[t], td->part.bounds[t + 1], td->ti, td->tj, dv, xa, za, ya);
    }
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Transpose, A, 0, 0, 0));
  if (to) {
    PetscCall(MatAIJHybridHaloReverseBegin(&ctx->cache.halo, ya));
    PetscCall(MatAIJHybridHaloReverseEnd(&ctx->cache.halo, ya));
  }
  PetscCall(MatAIJHybridRestoreVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogFlops(2.0 * (td->key.nz + (to ? to->key.nz : 0))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultTranspose_AIJHybrid(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAdd_AIJHybrid_Private(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultTransposeAdd_AIJHybrid(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAdd_AIJHybrid_Private(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
