/*
   The aijhybrid context kept in Mat->spptr: creation, destruction, the parameters in force, the
   mode a product runs in, and the per-thread statistics buffer.
*/
#include "../aijhybrid.h"

#define AIJHYBRID_DEFAULT_ROW_COST      2.0
#define AIJHYBRID_DEFAULT_DIFFUSION_TOL 0.01
#define AIJHYBRID_DEFAULT_DIFFUSION_IT  50

PetscErrorCode MatAIJHybridContextCreate(Mat A, Mat_AIJHybrid **ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(ctx));
  (*ctx)->parentops               = *A->ops;
  (*ctx)->params.nthreads         = AIJHybridDefaultNumThreads();
  (*ctx)->params.type             = MAT_AIJHYBRID_PARTITION_NNZ;
  (*ctx)->params.row_cost         = AIJHYBRID_DEFAULT_ROW_COST;
  (*ctx)->params.diffusion_tol    = AIJHYBRID_DEFAULT_DIFFUSION_TOL;
  (*ctx)->params.diffusion_max_it = AIJHYBRID_DEFAULT_DIFFUSION_IT;
  (*ctx)->params.lead             = -1.0; /* equal parts; only task mode's diagonal partition has a lead part */
  (*ctx)->task_share              = -1.0; /* measured */
  (*ctx)->prefetch                = -1; /* auto */
  (*ctx)->pf_use                  = -1; /* measuring */
  (*ctx)->task_lead               = 1.0;  /* until measured: thread 0 takes a whole share after the exchange */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridContextDestroy(Mat_AIJHybrid **ctx)
{
  PetscFunctionBegin;
  if (!*ctx) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridRowPartReset(&(*ctx)->diag));
  PetscCall(MatAIJHybridRowPartReset(&(*ctx)->offd));
  PetscCall(MatAIJHybridRowPartReset(&(*ctx)->diag_task));
  PetscCall(MatAIJHybridTransposeReset(&(*ctx)->tdiag));
  PetscCall(MatAIJHybridTransposeReset(&(*ctx)->toffd));
  PetscCall(MatAIJHybridMirrorReset(&(*ctx)->mdiag));
  PetscCall(MatAIJHybridMirrorReset(&(*ctx)->moffd));
  PetscCall(MatAIJHybridHaloReset(*ctx));
  PetscCall(PetscFree((*ctx)->tstat));
  PetscCall(MatAIJHybridSORReset(&(*ctx)->sor));
  PetscCall(PetscFree(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridContextCopyOptions(Mat_AIJHybrid *from, Mat_AIJHybrid *to)
{
  PetscFunctionBegin;
  to->params       = from->params;
  to->mode         = from->mode;
  to->nthreads_set = from->nthreads_set;
  to->first_touch  = from->first_touch;
  to->prefetch     = from->prefetch;
  to->task_share   = from->task_share;
  to->task_lead    = from->task_share >= 0 ? from->task_share : 1.0;
  to->node_aware   = from->node_aware;
  to->node_size    = from->node_size;
  to->sor_serial   = from->sor_serial;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* parameters in force now: the thread count follows OpenMP unless the user set it */
PetscErrorCode MatAIJHybridContextCurrentParams(Mat_AIJHybrid *ctx, AIJHybridPartParams *params)
{
  PetscFunctionBegin;
  if (!ctx->nthreads_set) ctx->params.nthreads = AIJHybridDefaultNumThreads();
  *params = ctx->params;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* zero the per-thread statistics: they start again */
PetscErrorCode MatAIJHybridThreadStatsReset(Mat_AIJHybrid *ctx)
{
  PetscFunctionBegin;
  if (ctx->tstat) PetscCall(PetscArrayzero(ctx->tstat, AIJHYBRID_TSTAT_STRIDE * ctx->tstat_T));
  ctx->nprod = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (re)allocate and zero the per-thread statistics when the thread count or the mode changes */
PetscErrorCode MatAIJHybridThreadStatsPrepare(Mat_AIJHybrid *ctx, PetscInt T, MatAIJHybridMode mode)
{
  PetscFunctionBegin;
  if (ctx->tstat && ctx->tstat_T == T && ctx->tstat_mode == mode) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(ctx->tstat));
  PetscCall(PetscCalloc1(AIJHYBRID_TSTAT_STRIDE * T, &ctx->tstat));
  ctx->tstat_T     = T;
  ctx->tstat_mode  = mode;
  ctx->nprod       = 0;
  ctx->task_adapts = 0;
  if (ctx->task_share < 0) ctx->task_lead = 1.0;
  MatAIJHybridPrefetchRestart(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridTaskShareAdapt - task mode with a measured share (the default): after
  AIJHYBRID_TASK_ADAPT_PRODUCTS products, size thread 0's diagonal share from the measured times.
  With C the halo-exchange time of thread 0 and D the diagonal time summed over the threads (the
  diagonal work of one product in thread-seconds), thread 0 and the T-1 others finish together when
  C + x0 = x and x0 + (T-1) x = D, that is x0 = (D - (T-1) C) / T, a share
  s = x0 / (D / T) = 1 - (T-1) C / D of an equal part, clipped to [0, 1]. Resized at most
  AIJHYBRID_TASK_ADAPT_MAX times, until it changes by less than AIJHYBRID_TASK_ADAPT_TOL; the
  statistics start again after each resize. Local to the rank, main thread only.
*/
PetscErrorCode MatAIJHybridTaskShareAdapt(Mat_AIJHybrid *ctx)
{
  const PetscInt T = ctx->tstat_T;
  double         C, D = 0.0, s;

  PetscFunctionBegin;
  if (ctx->task_share >= 0 || ctx->tstat_mode != MAT_AIJHYBRID_MODE_TASK || ctx->task_adapts >= AIJHYBRID_TASK_ADAPT_MAX || ctx->nprod < AIJHYBRID_TASK_ADAPT_PRODUCTS || T < 2) PetscFunctionReturn(PETSC_SUCCESS);
  C = ctx->tstat[AIJHYBRID_TSTAT_COMM];
  for (PetscInt t = 0; t < T; t++) D += ctx->tstat[AIJHYBRID_TSTAT_STRIDE * t + AIJHYBRID_TSTAT_DIAG];
  s = D > 0.0 ? 1.0 - (double)(T - 1) * C / D : 0.0;
  s = PetscMax(0.0, PetscMin(1.0, s));
  if (PetscAbsReal((PetscReal)s - ctx->task_lead) < AIJHYBRID_TASK_ADAPT_TOL) ctx->task_adapts = AIJHYBRID_TASK_ADAPT_MAX;
  else {
    ctx->task_lead = (PetscReal)s;
    ctx->task_adapts++;
    PetscCall(MatAIJHybridThreadStatsReset(ctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the mode a product runs in: task needs >= 2 threads, an off-process part somewhere, and MPI_THREAD_FUNNELED */
MatAIJHybridMode MatAIJHybridEffectiveMode(Mat_AIJHybrid *ctx, PetscInt nthreads)
{
  if (nthreads < 2 || !ctx->has_offproc || MatAIJHybrid_MPIThreadLevel < MPI_THREAD_FUNNELED) return MAT_AIJHYBRID_MODE_VECTOR;
  return ctx->mode == MAT_AIJHYBRID_MODE_VECTOR ? MAT_AIJHYBRID_MODE_VECTOR : MAT_AIJHYBRID_MODE_TASK;
}


/*
  The arrays of a product y = A x or y = z + A x (z may be y, or NULL): x read, z read (za = ya
  when z is y), y written (read too when z is given)
*/
PetscErrorCode MatAIJHybridGetVecArrays(Vec x, Vec z, Vec y, const PetscScalar **xa, const PetscScalar **za, PetscScalar **ya)
{
  PetscFunctionBegin;
  *za = NULL;
  PetscCall(VecGetArrayRead(x, xa));
  if (z && z != y) PetscCall(VecGetArrayRead(z, za));
  if (z) PetscCall(VecGetArray(y, ya));
  else PetscCall(VecGetArrayWrite(y, ya));
  if (z == y) *za = *ya;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridRestoreVecArrays(Vec x, Vec z, Vec y, const PetscScalar **xa, const PetscScalar **za, PetscScalar **ya)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(x, xa));
  if (z && z != y) PetscCall(VecRestoreArrayRead(z, za));
  if (z) PetscCall(VecRestoreArray(y, ya));
  else PetscCall(VecRestoreArrayWrite(y, ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}
