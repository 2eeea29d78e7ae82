/*
   Software prefetch of the forward products (-mat_aijhybrid_prefetch): a fixed distance, or
   (the default) chosen per rank from measured products.

   Auto: the products after AIJHYBRID_PREFETCH_WARMUP warm-up products alternate between no
   prefetch and AIJHYBRID_DEFAULT_PREFETCH nonzeros ahead, AIJHYBRID_PREFETCH_TRIALS of each; the
   wall time of each product's threaded region (measured on the main thread around it) goes to
   its bin. Prefetch is kept if its median is below (1 - AIJHYBRID_PREFETCH_MARGIN) times the
   median without, otherwise it stays off: where it does not clearly help, the products run
   AIJ's loop. The trial starts again when the setting, the thread count, the mode or the nonzero
   pattern (a rebuilt partition) changes. Main thread only; no communication (results do not depend on
   the choice, so ranks may choose differently).
*/
#include "../aijhybrid.h"

/* start the trial again: the setting, the thread count or the mode changed
   (MatAIJHybridThreadStatsPrepare() calls it with the per-thread statistics) */
void MatAIJHybridPrefetchRestart(Mat_AIJHybrid *ctx)
{
  ctx->pf_count = 0;
  ctx->pf_use   = -1;
}

/* the distance the next product runs with; a rebuilt partition (a new pattern) restarts the trial */
PetscInt MatAIJHybridPrefetchDistance(Mat_AIJHybrid *ctx)
{
  const PetscInt builds = ctx->diag.builds + ctx->offd.builds + ctx->diag_task.builds;
  PetscInt       k;

  if (ctx->prefetch >= 0) return ctx->prefetch;
  if (ctx->pf_builds != builds) {
    ctx->pf_builds = builds;
    MatAIJHybridPrefetchRestart(ctx);
  }
  if (ctx->pf_use >= 0) return ctx->pf_use;
  k = ctx->pf_count - AIJHYBRID_PREFETCH_WARMUP;
  return (k >= 0 && k % 2) ? AIJHYBRID_DEFAULT_PREFETCH : 0;
}

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double Median(double *v, PetscInt n)
{
  qsort(v, (size_t)n, sizeof(double), CompareDouble);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* record the wall time of the product that ran with distance pd; decide when the trial is complete */
PetscErrorCode MatAIJHybridPrefetchRecord(Mat A, Mat_AIJHybrid *ctx, PetscInt pd, double seconds)
{
  PetscInt k;

  PetscFunctionBegin;
  if (ctx->prefetch >= 0 || ctx->pf_use >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  k = ctx->pf_count++ - AIJHYBRID_PREFETCH_WARMUP;
  if (k < 0) PetscFunctionReturn(PETSC_SUCCESS);
  ctx->pf_time[pd > 0][k / 2] = seconds;
  if (k == 2 * AIJHYBRID_PREFETCH_TRIALS - 1) {
    const double off = Median(ctx->pf_time[0], AIJHYBRID_PREFETCH_TRIALS), on = Median(ctx->pf_time[1], AIJHYBRID_PREFETCH_TRIALS);

    ctx->pf_use = on < (1.0 - AIJHYBRID_PREFETCH_MARGIN) * off ? AIJHYBRID_DEFAULT_PREFETCH : 0;
    PetscCall(PetscInfo(A, "software prefetch %s: median product %g s with %d nonzeros ahead, %g s without (%" PetscInt_FMT " threads)\n", ctx->pf_use ? "on" : "off", on, AIJHYBRID_DEFAULT_PREFETCH, off, ctx->tstat_T));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
