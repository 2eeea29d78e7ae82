/*
   What is chosen from measured forward products, after each product (MatAIJHybridTune()), and the
   per-thread statistics it is measured from. Main thread only; no communication (results do not
   depend on what is chosen, so ranks may choose differently).

   Both choices are made by the rule of src/tune/choice.h (interleaved pairs of products, one with
   each alternative; a sign test with a minimum effect AIJHYBRID_TUNE_EFFECT and a false-choice
   probability AIJHYBRID_TUNE_ALPHA; the default kept when it cannot tell; the re-trials follow at
   once (AIJHYBRID_TUNE_WAIT 0), at most AIJHYBRID_TUNE_TRIALS trials, so that a choice is settled
   within its first 98 measured products and never changes in the middle of a solve that long). The share's samples are the
   wall time of a product's threaded region, the prefetch's the kernel time of its slowest thread
   (MatAIJHybridTune()). They never measure at the same time: the prefetch trial waits while the
   share is measured.

   Thread 0's task-mode share (-mat_aijhybrid_task_share, default measured). Sizing: after
   AIJHYBRID_TASK_SHARE_PRODUCTS products, the share of the diagonal block thread 0 multiplies
   after the halo exchange is sized from the measured times. With C the exchange time of thread 0
   and D the diagonal time summed over the threads (the diagonal work of one product in
   thread-seconds), thread 0 and the T-1 others finish together when C + x0 = x and
   x0 + (T-1) x = D, that is x0 = (D - (T-1) C) / T, a share s = x0 / (D / T) = 1 - (T-1) C / D of an
   equal part, clipped to [0, 1]. Resized at most AIJHYBRID_TASK_SHARE_MAX times, until it changes
   by less than AIJHYBRID_TASK_SHARE_TOL; the statistics start again after each resize. Choice:
   the sized share is then compared with share 1 (an equal part, the default) by the rule, each
   with its own cached partition (diag_task, diag_task_b); share 1 stays unless the sized share is
   measured faster. With -mat_aijhybrid_first_touch the two are not compared (the copies would be
   placed anew at each product): share 1.

   Software prefetch (-mat_aijhybrid_prefetch, default measured): none (the default) against
   AIJHYBRID_DEFAULT_PREFETCH nonzeros ahead.

   Both start again when the setting, the thread count, the mode or the nonzero pattern (a rebuilt
   partition) changes.

   Tests replace the measured seconds by a clock of their own (MatAIJHybridSetTestClock_C, composed
   by src/mat/settings.c; not part of the API): tests/unit/tune_choice.c.
*/
#include "context.h"

static const AIJHybridChoiceRule TuneRule = {AIJHYBRID_TUNE_PAIRS, AIJHYBRID_TUNE_TRIALS, AIJHYBRID_TUNE_WARMUP, AIJHYBRID_TUNE_WAIT, AIJHYBRID_TUNE_EFFECT, AIJHYBRID_TUNE_ALPHA};

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
  st->nthreads = T;
  st->mode     = mode;
  st->nprod    = 0;
  MatAIJHybridTaskShareRestart(ctx);
  MatAIJHybridPrefetchRestart(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the share is measured on this matrix: not set, task mode with threads */
static PetscBool ShareMeasured(const Mat_AIJHybrid *ctx)
{
  return (PetscBool)(ctx->set.task_share < 0 && ctx->stats.mode == MAT_AIJHYBRID_MODE_TASK && ctx->stats.nthreads >= 2);
}

/* the share is being sized, or a trial of its choice is under way */
static PetscBool ShareBusy(const Mat_AIJHybrid *ctx)
{
  const AIJHybridTuning *t = &ctx->tune;

  return (PetscBool)(ShareMeasured(ctx) && (t->share_phase == AIJHYBRID_SHARE_SIZING || (t->share_phase == AIJHYBRID_SHARE_CHOOSING && t->share_choice.state == AIJHYBRID_CHOICE_MEASURING)));
}

/* the share and its partition for the next product, from the share choice's alternative in force or under trial */
static void ShareApply(Mat_AIJHybrid *ctx, PetscInt alt)
{
  ctx->tune.task_share = alt ? ctx->tune.share_sized : 1.0;
  ctx->tune.task_slot  = alt ? 1 : 0;
}

/* start the share again: the setting, the thread count, the mode or the pattern changed */
void MatAIJHybridTaskShareRestart(Mat_AIJHybrid *ctx)
{
  AIJHybridTuning *t = &ctx->tune;

  t->task_resizes = 0;
  t->task_slot    = 0;
  t->share_timed  = PETSC_FALSE;
  t->share_alt    = 0;
  t->share_sized  = 1.0;
  t->task_share   = ctx->set.task_share >= 0 ? ctx->set.task_share : 1.0;
  t->share_phase  = ctx->set.task_share >= 0 ? AIJHYBRID_SHARE_DONE : AIJHYBRID_SHARE_SIZING;
  AIJHybridChoiceInit(&t->share_choice, &TuneRule);
  if (ctx->set.task_share >= 0) AIJHybridChoiceFix(&t->share_choice, 0);
}

/* the share in force on this rank, or -1 while it is sized or compared */
PetscReal MatAIJHybridTaskShareInUse(const Mat_AIJHybrid *ctx)
{
  return ShareBusy(ctx) ? -1.0 : ctx->tune.task_share;
}

/* the share sizing has converged: compare the sized share with share 1 (or keep share 1: nothing to compare, or first touch) */
static PetscErrorCode ShareSized(Mat A, Mat_AIJHybrid *ctx)
{
  AIJHybridTuning *t = &ctx->tune;

  PetscFunctionBegin;
  t->share_sized = t->clock ? (PetscReal)t->clock(t->clock_ctx, AIJHYBRID_TUNE_SHARE_SIZED, 0) : t->task_share;
  AIJHybridChoiceInit(&t->share_choice, &TuneRule);
  if (PetscAbsReal(t->share_sized - 1.0) < AIJHYBRID_TASK_SHARE_TOL || ctx->set.first_touch) {
    AIJHybridChoiceFix(&t->share_choice, 0);
    t->share_phase = AIJHYBRID_SHARE_DONE;
    ShareApply(ctx, 0);
    PetscCall(PetscInfo(A, "task share: sized %g; share 1 kept (%s)\n", (double)t->share_sized, ctx->set.first_touch ? "first touch: not compared" : "no difference to compare"));
  } else {
    t->share_phase = AIJHYBRID_SHARE_CHOOSING;
    t->share_alt   = AIJHybridChoiceNext(&t->share_choice, &t->share_timed);
    ShareApply(ctx, t->share_alt);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* task mode with a measured share: resize thread 0's share from the statistics (see above) */
static PetscErrorCode TaskShareResize(Mat A, Mat_AIJHybrid *ctx)
{
  const PetscInt T    = ctx->stats.nthreads;
  const double  *time = ctx->stats.time;
  double         C, D = 0.0, s;

  PetscFunctionBegin;
  if (ctx->stats.nprod < AIJHYBRID_TASK_SHARE_PRODUCTS) PetscFunctionReturn(PETSC_SUCCESS);
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
  if (ctx->tune.task_resizes >= AIJHYBRID_TASK_SHARE_MAX) PetscCall(ShareSized(A, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after a product with a measured share: size it, or record the product for its choice and pick the next product's share */
static PetscErrorCode TaskShareTune(Mat A, Mat_AIJHybrid *ctx, double seconds)
{
  AIJHybridTuning *t = &ctx->tune;

  PetscFunctionBegin;
  if (!ShareMeasured(ctx) || t->share_phase == AIJHYBRID_SHARE_DONE) PetscFunctionReturn(PETSC_SUCCESS);
  if (t->share_phase == AIJHYBRID_SHARE_SIZING) {
    PetscCall(TaskShareResize(A, ctx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (t->share_timed) {
    const AIJHybridChoiceState before = t->share_choice.state;

    AIJHybridChoiceAdd(&t->share_choice, t->share_alt, t->clock ? t->clock(t->clock_ctx, AIJHYBRID_TUNE_SHARE_SAMPLE, t->share_alt) : seconds);
    if (t->share_choice.state != before)
      PetscCall(PetscInfo(A, "task share %g against 1: %s after trial %" PetscInt_FMT " (wins %" PetscInt_FMT " / %" PetscInt_FMT ", %" PetscInt_FMT " needed; median product %g s with share 1, %g s with %g)\n", (double)t->share_sized,
                          AIJHybridChoiceStateName(t->share_choice.state), t->share_choice.trial, t->share_choice.wins_a, t->share_choice.wins_b, t->share_choice.needed, t->share_choice.median_a, t->share_choice.median_b, (double)t->share_sized));
  }
  if (t->share_choice.state == AIJHYBRID_CHOICE_A || t->share_choice.state == AIJHYBRID_CHOICE_B || (t->share_choice.state == AIJHYBRID_CHOICE_CANNOT_TELL && t->share_choice.trial >= t->share_choice.rule.trials))
    t->share_phase = AIJHYBRID_SHARE_DONE;
  if (t->share_phase == AIJHYBRID_SHARE_DONE) {
    t->share_timed = PETSC_FALSE;
    ShareApply(ctx, t->share_choice.in_force);
  } else {
    t->share_alt = AIJHybridChoiceNext(&t->share_choice, &t->share_timed);
    ShareApply(ctx, t->share_alt);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* start the prefetch choice again: the setting, the thread count, the mode or the pattern changed */
void MatAIJHybridPrefetchRestart(Mat_AIJHybrid *ctx)
{
  AIJHybridChoiceInit(&ctx->tune.pf_choice, &TuneRule);
  if (ctx->set.prefetch >= 0) AIJHybridChoiceFix(&ctx->tune.pf_choice, ctx->set.prefetch > 0);
  ctx->tune.pf_alt   = 0;
  ctx->tune.pf_timed = PETSC_FALSE;
}

/* the distance the next product runs with; a rebuilt partition (a new pattern) starts both choices again */
PetscInt MatAIJHybridPrefetchDistance(Mat_AIJHybrid *ctx)
{
  AIJHybridTuning *t      = &ctx->tune;
  const PetscInt   builds = ctx->cache.diag.builds + ctx->cache.offd.builds;

  t->pf_timed = PETSC_FALSE;
  if (ctx->set.prefetch >= 0) return ctx->set.prefetch;
  if (t->pf_builds != builds) {
    t->pf_builds = builds;
    MatAIJHybridPrefetchRestart(ctx);
    if (ctx->set.task_share < 0) MatAIJHybridTaskShareRestart(ctx);
  }
  if (ShareBusy(ctx)) t->pf_alt = t->pf_choice.in_force; /* the prefetch trial waits while the share is measured */
  else t->pf_alt = AIJHybridChoiceNext(&t->pf_choice, &t->pf_timed);
  return t->pf_alt ? AIJHYBRID_DEFAULT_PREFETCH : 0;
}

/* the distance in force on this rank: the one set, or the one chosen; -1 while it is measured (or waits to be) */
PetscInt MatAIJHybridPrefetchInUse(const Mat_AIJHybrid *ctx)
{
  const AIJHybridChoice *c = &ctx->tune.pf_choice;

  if (ctx->set.prefetch >= 0) return ctx->set.prefetch;
  if (c->state == AIJHYBRID_CHOICE_MEASURING) return -1;
  return c->in_force ? AIJHYBRID_DEFAULT_PREFETCH : 0;
}

/* record the product that ran with the prefetch alternative pf_alt, if it was a timed one */
static PetscErrorCode PrefetchTune(Mat A, Mat_AIJHybrid *ctx, double seconds)
{
  AIJHybridTuning     *t = &ctx->tune;
  AIJHybridChoiceState before;

  PetscFunctionBegin;
  if (!t->pf_timed) PetscFunctionReturn(PETSC_SUCCESS);
  before = t->pf_choice.state;
  AIJHybridChoiceAdd(&t->pf_choice, t->pf_alt, t->clock ? t->clock(t->clock_ctx, AIJHYBRID_TUNE_PREFETCH_SAMPLE, t->pf_alt) : seconds);
  t->pf_timed = PETSC_FALSE;
  if (t->pf_choice.state != before)
    PetscCall(PetscInfo(A,
                        "software prefetch: %s after trial %" PetscInt_FMT " (wins %" PetscInt_FMT " without / %" PetscInt_FMT " with %d nonzeros ahead, %" PetscInt_FMT " needed; median product %g s without, %g s with; %" PetscInt_FMT " threads)\n",
                        AIJHybridChoiceStateName(t->pf_choice.state), t->pf_choice.trial, t->pf_choice.wins_a, t->pf_choice.wins_b, AIJHYBRID_DEFAULT_PREFETCH, t->pf_choice.needed, t->pf_choice.median_a, t->pf_choice.median_b, ctx->stats.nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridTune - after a forward product that ran with prefetch distance pd, whose threaded
  region took seconds and whose slowest thread spent kernel seconds multiplying (its diagonal and
  off-diagonal rows, without the halo exchange and the waits): count it, then size or compare
  thread 0's task share (by the region's time: the share trades the exchange against the
  multiplication), record it for the prefetch choice (by the kernel time: prefetch changes only the
  multiplication, and the waits for other ranks would add their noise)
*/
PetscErrorCode MatAIJHybridTune(Mat A, Mat_AIJHybrid *ctx, PetscInt pd, double seconds, double kernel)
{
  PetscFunctionBegin;
  (void)pd;
  ctx->stats.nprod++;
  PetscCall(PrefetchTune(A, ctx, kernel));
  PetscCall(TaskShareTune(A, ctx, seconds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tests only (composed as MatAIJHybridSetTestClock_C): the seconds the choices record come from clock (NULL: measured), and both start again */
PetscErrorCode MatAIJHybridSetTestClock_AIJHybrid(Mat A, AIJHybridTuneClock clock, void *cctx)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  ctx->tune.clock     = clock;
  ctx->tune.clock_ctx = cctx;
  MatAIJHybridTaskShareRestart(ctx);
  MatAIJHybridPrefetchRestart(ctx);
  PetscCall(MatAIJHybridStatsReset(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
