/*
   What is tuned from measured forward products, after each product (MatAIJHybridTune()), and the
   per-thread statistics it is measured from. Main thread only; no communication (results do not
   depend on what is chosen, so ranks may choose differently).

   Thread 0's task-mode share (-mat_aijhybrid_task_share, default measured): after
   AIJHYBRID_TASK_SHARE_PRODUCTS products, the share of the diagonal block thread 0 multiplies
   after the halo exchange is sized from the measured times. With C the exchange time of thread 0
   and D the diagonal time summed over the threads (the diagonal work of one product in
   thread-seconds), thread 0 and the T-1 others finish together when C + x0 = x and
   x0 + (T-1) x = D, that is x0 = (D - (T-1) C) / T, a share s = x0 / (D / T) = 1 - (T-1) C / D of an
   equal part, clipped to [0, 1]. Resized at most AIJHYBRID_TASK_SHARE_MAX times, until it changes
   by less than AIJHYBRID_TASK_SHARE_TOL; the statistics start again after each resize.

   Software prefetch (-mat_aijhybrid_prefetch, default measured): the products after
   AIJHYBRID_PREFETCH_WARMUP warm-up products alternate between no prefetch and
   AIJHYBRID_DEFAULT_PREFETCH nonzeros ahead, AIJHYBRID_PREFETCH_TRIALS of each; the wall time of
   each product's threaded region goes to its bin. Prefetch is kept if its median is below
   (1 - AIJHYBRID_PREFETCH_MARGIN) times the median without, otherwise it stays off. The trial
   starts again when the setting, the thread count, the mode or the nonzero pattern (a rebuilt
   partition) changes.
*/
#include "context.h"

/* zero the per-thread statistics: they start again */
PetscErrorCode MatAIJHybridStatsReset(Mat_AIJHybrid *ctx)
{
  PetscFunctionBegin;
  if (ctx->stats.time) PetscCall(PetscArrayzero(ctx->stats.time, AIJHYBRID_STATS_STRIDE * ctx->stats.nthreads));
  ctx->stats.nprod = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (re)allocate and zero the statistics when the thread count or the mode changes: what was tuned for the old ones starts again */
PetscErrorCode MatAIJHybridStatsPrepare(Mat_AIJHybrid *ctx, PetscInt T, MatAIJHybridMode mode)
{
  AIJHybridStats *st = &ctx->stats;

  PetscFunctionBegin;
  if (st->time && st->nthreads == T && st->mode == mode) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(st->time));
  PetscCall(PetscCalloc1(AIJHYBRID_STATS_STRIDE * T, &st->time));
  st->nthreads           = T;
  st->mode               = mode;
  st->nprod              = 0;
  ctx->tune.task_resizes = 0;
  if (ctx->set.task_share < 0) ctx->tune.task_share = 1.0;
  MatAIJHybridPrefetchRestart(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* task mode with a measured share: resize thread 0's share from the statistics (see above) */
static PetscErrorCode TaskShareResize(Mat_AIJHybrid *ctx)
{
  const PetscInt T    = ctx->stats.nthreads;
  const double  *time = ctx->stats.time;
  double         C, D = 0.0, s;

  PetscFunctionBegin;
  if (ctx->set.task_share >= 0 || ctx->stats.mode != MAT_AIJHYBRID_MODE_TASK || ctx->tune.task_resizes >= AIJHYBRID_TASK_SHARE_MAX || ctx->stats.nprod < AIJHYBRID_TASK_SHARE_PRODUCTS || T < 2) PetscFunctionReturn(PETSC_SUCCESS);
  C = time[AIJHYBRID_STATS_COMM];
  for (PetscInt t = 0; t < T; t++) D += time[AIJHYBRID_STATS_STRIDE * t + AIJHYBRID_STATS_DIAG];
  s = D > 0.0 ? 1.0 - (double)(T - 1) * C / D : 0.0;
  s = PetscMax(0.0, PetscMin(1.0, s));
  if (PetscAbsReal((PetscReal)s - ctx->tune.task_share) < AIJHYBRID_TASK_SHARE_TOL) ctx->tune.task_resizes = AIJHYBRID_TASK_SHARE_MAX;
  else {
    ctx->tune.task_share = (PetscReal)s;
    ctx->tune.task_resizes++;
    PetscCall(MatAIJHybridStatsReset(ctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* start the prefetch trial again: the setting, the thread count or the mode changed */
void MatAIJHybridPrefetchRestart(Mat_AIJHybrid *ctx)
{
  ctx->tune.pf_count = 0;
  ctx->tune.pf_use   = -1;
}

/* the distance the next product runs with; a rebuilt partition (a new pattern) restarts the trial */
PetscInt MatAIJHybridPrefetchDistance(Mat_AIJHybrid *ctx)
{
  const PetscInt builds = ctx->cache.diag.builds + ctx->cache.offd.builds + ctx->cache.diag_task.builds;
  PetscInt       k;

  if (ctx->set.prefetch >= 0) return ctx->set.prefetch;
  if (ctx->tune.pf_builds != builds) {
    ctx->tune.pf_builds = builds;
    MatAIJHybridPrefetchRestart(ctx);
  }
  if (ctx->tune.pf_use >= 0) return ctx->tune.pf_use;
  k = ctx->tune.pf_count - AIJHYBRID_PREFETCH_WARMUP;
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
static PetscErrorCode PrefetchRecord(Mat A, Mat_AIJHybrid *ctx, PetscInt pd, double seconds)
{
  PetscInt k;

  PetscFunctionBegin;
  if (ctx->set.prefetch >= 0 || ctx->tune.pf_use >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  k = ctx->tune.pf_count++ - AIJHYBRID_PREFETCH_WARMUP;
  if (k < 0) PetscFunctionReturn(PETSC_SUCCESS);
  ctx->tune.pf_time[pd > 0][k / 2] = seconds;
  if (k == 2 * AIJHYBRID_PREFETCH_TRIALS - 1) {
    const double off = Median(ctx->tune.pf_time[0], AIJHYBRID_PREFETCH_TRIALS), on = Median(ctx->tune.pf_time[1], AIJHYBRID_PREFETCH_TRIALS);

    ctx->tune.pf_use = on < (1.0 - AIJHYBRID_PREFETCH_MARGIN) * off ? AIJHYBRID_DEFAULT_PREFETCH : 0;
    PetscCall(PetscInfo(A, "software prefetch %s: median product %g s with %d nonzeros ahead, %g s without (%" PetscInt_FMT " threads)\n", ctx->tune.pf_use ? "on" : "off", on, AIJHYBRID_DEFAULT_PREFETCH, off, ctx->stats.nthreads));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridTune - after a forward product that ran with prefetch distance pd and whose threaded
  region took seconds: count it, resize thread 0's task share, record it for the prefetch trial
*/
PetscErrorCode MatAIJHybridTune(Mat A, Mat_AIJHybrid *ctx, PetscInt pd, double seconds)
{
  PetscFunctionBegin;
  ctx->stats.nprod++;
  PetscCall(TaskShareResize(ctx));
  PetscCall(PrefetchRecord(A, ctx, pd, seconds));
  PetscFunctionReturn(PETSC_SUCCESS);
}
