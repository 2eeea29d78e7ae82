/*
   The diagnostics of the aijhybrid types: the public Get functions of what was built and measured
   (the thread partition, the per-thread times of the products, the halo PetscSF and its message
   counts), composed on the matrix like the settings (src/mat/settings.c). The MatView lines are
   next door (src/mat/view.c).
*/
#include "aijhybridimpl.h"

static PetscErrorCode MatAIJHybridGetPartitionInfo_AIJHybrid(Mat A, MatAIJHybridPartitionInfo *info)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  info->nthreads          = ctx->cache.diag.bounds ? ctx->cache.diag.params.nthreads : ctx->set.params.nthreads;
  info->type              = ctx->cache.diag.bounds ? ctx->cache.diag.params.type : ctx->set.params.type;
  info->imbalance         = ctx->cache.diag.bounds ? ctx->cache.diag.imbalance : 1.0;
  info->imbalance_offdiag = ctx->cache.offd.bounds ? ctx->cache.offd.imbalance : 1.0;
  info->sweeps            = ctx->cache.diag.sweeps;
  info->build_time        = ctx->cache.diag.build_time + ctx->cache.offd.build_time;
  info->builds            = ctx->cache.diag.builds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetPartition_AIJHybrid(Mat A, PetscInt *nthreads, const PetscInt *bounds[])
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(A->assembled && ctx->cache.diag.bounds, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  if (nthreads) *nthreads = ctx->cache.diag.params.nthreads;
  if (bounds) *bounds = ctx->cache.diag.bounds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetThreadTimes_AIJHybrid(Mat A, PetscInt *nthreads, PetscInt *nproducts, PetscReal times[])
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (nthreads) *nthreads = ctx->stats.time ? ctx->stats.nthreads : 0;
  if (nproducts) *nproducts = ctx->stats.nprod;
  if (times && ctx->stats.time) {
    for (PetscInt t = 0; t < ctx->stats.nthreads; t++) {
      const double *tt = ctx->stats.time + AIJHYBRID_STATS_STRIDE * t, n = ctx->stats.nprod ? (double)ctx->stats.nprod : 1.0;
      times[3 * t]     = (PetscReal)(tt[AIJHYBRID_STATS_COMM] / n);
      times[3 * t + 1] = (PetscReal)(tt[AIJHYBRID_STATS_DIAG] / n);
      times[3 * t + 2] = (PetscReal)(tt[AIJHYBRID_STATS_OFFD] / n);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridResetThreadTimes_AIJHybrid(Mat A)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridStatsReset(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetHaloSF_AIJHybrid(Mat A, PetscSF *sf)
{
  Mat_AIJHybrid    *ctx;
  AIJHybridPrepared p;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_FALSE, &p)); /* the exchange is built at the first use after an assembly: maybe now */
  *sf = ctx->cache.halo.sf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetExchangeStats_AIJHybrid(Mat A, PetscSFNodeAwareStats *stats)
{
  Mat_AIJHybrid *ctx;
  PetscBool      nodeaware;
  PetscSF        sf;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  {
    AIJHybridPrepared p;

    PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_FALSE, &p)); /* the exchange as the products use it */
  }
  nodeaware = PETSC_FALSE;
  if (ctx->cache.halo.sf) PetscCall(PetscObjectTypeCompare((PetscObject)ctx->cache.halo.sf, PETSCSFNODEAWARE, &nodeaware));
  if (nodeaware) {
    PetscCall(PetscSFNodeAwareGetStats(ctx->cache.halo.sf, stats));
  } else { /* count on a node-aware SF of the same graph (no ghosts on one rank) */
    PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &sf));
    if (ctx->cache.halo.sf) {
      Mat             Ad, Ao;
      const PetscInt *garray;
      PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
      PetscCall(PetscSFSetGraphLayout(sf, A->cmap, Ao->cmap->n, NULL, PETSC_COPY_VALUES, garray));
    } else PetscCall(PetscSFSetGraph(sf, 0, 0, NULL, PETSC_COPY_VALUES, NULL, PETSC_COPY_VALUES));
    PetscCall(PetscSFSetType(sf, PETSCSFNODEAWARE));
    if (ctx->set.node_size > 0) PetscCall(PetscSFNodeAwareSetNodeSize(sf, ctx->set.node_size));
    PetscCall(PetscSFNodeAwareGetStats(sf, stats));
    PetscCall(PetscSFDestroy(&sf));
  }
  stats->node_aware = nodeaware;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose (on) or remove the implementations of the public diagnostics functions on an aijhybrid matrix */
PetscErrorCode MatAIJHybridComposeDiagnostics(Mat A, PetscBool on)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetPartitionInfo_C", on ? MatAIJHybridGetPartitionInfo_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetPartition_C", on ? MatAIJHybridGetPartition_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetThreadTimes_C", on ? MatAIJHybridGetThreadTimes_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridResetThreadTimes_C", on ? MatAIJHybridResetThreadTimes_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetHaloSF_C", on ? MatAIJHybridGetHaloSF_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetExchangeStats_C", on ? MatAIJHybridGetExchangeStats_AIJHybrid : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetPartitionInfo - Gets figures on the cached thread partition of this rank's rows

  Not Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameter:
. info - threads, partition type, imbalance (max/mean cost) of the diagonal and off-diagonal
         blocks, diffusion sweeps, build time, number of builds

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetPartition()`, `MatAIJHybridPartitionInfo`
@*/
PetscErrorCode MatAIJHybridGetPartitionInfo(Mat A, MatAIJHybridPartitionInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetPartitionInfo_C", (Mat, MatAIJHybridPartitionInfo *), (A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatAIJHybridGetPartition - Gets the cached thread partition of this rank's rows (diagonal block)

  Not Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameters:
+ nthreads - number of threads
- bounds   - array of nthreads+1 row offsets: thread t owns local rows [bounds[t], bounds[t+1]); owned by the matrix, do not free

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetPartitionInfo()`
@*/
PetscErrorCode MatAIJHybridGetPartition(Mat A, PetscInt *nthreads, const PetscInt *bounds[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetPartition_C", (Mat, PetscInt *, const PetscInt *[]), (A, nthreads, bounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetThreadTimes - Gets the measured busy time of each thread, per product, in the
  forward products (`MatMult()`, `MatMultAdd()`) since the statistics last started

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ nthreads  - number of threads the statistics are for (0 before the first product)
. nproducts - number of products they accumulate
- times     - if not `NULL`, an array of 3*nthreads entries the caller provides: for thread t,
              times[3t] is its halo-exchange time (task mode, thread 0), times[3t+1] its
              diagonal-block time and times[3t+2] its off-diagonal-block time, in seconds per product

  Level: advanced

  Notes:
  Call once with `times` `NULL` to learn `nthreads`. The statistics start again when the thread
  count or the mode changes, when the task-mode share of thread 0 is resized, and after
  `MatAIJHybridResetThreadTimes()`. They are taken with `omp_get_wtime()` by each thread; with
  `-mat_view ::ascii_info_detail` they are printed for every rank.

.seealso: `MATAIJHYBRID`, `MatAIJHybridResetThreadTimes()`, `MatAIJHybridGetPartitionInfo()`
@*/
PetscErrorCode MatAIJHybridGetThreadTimes(Mat A, PetscInt *nthreads, PetscInt *nproducts, PetscReal times[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetThreadTimes_C", (Mat, PetscInt *, PetscInt *, PetscReal[]), (A, nthreads, nproducts, times));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridResetThreadTimes - Starts the per-thread time statistics again (e.g. after a warm-up)

  Not Collective

  Input Parameter:
. A - the matrix

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetThreadTimes()`
@*/
PetscErrorCode MatAIJHybridResetThreadTimes(Mat A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridResetThreadTimes_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetHaloSF - Gets the `PetscSF` of the halo exchange of a `MATAIJHYBRID` matrix

  Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameter:
. sf - its roots are the owned columns, its leaves the ghost columns of the off-diagonal block in
       the order of `MatMPIAIJGetSeqAIJ()`'s column map; NULL on one rank (no exchange). Owned by the
       matrix: do not destroy it; it is replaced when the nonzero pattern or the halo options change.

  Level: intermediate

  Notes:
  The exchange is built, by all ranks together, at the first use of the matrix after an assembly
  that changed its nonzero pattern: a product, `MatSOR()`, a right `MatDiagonalScale()`, `MatView()`
  or this call.

  Its type is `PETSCSFNODEAWARE` with `MatAIJHybridSetNodeAware()` (`-mat_aijhybrid_node_aware`),
  otherwise the one `-sf_type` gave when it was built (default `PETSCSFBASIC`). `PetscSFView()`
  shows it, with the nodes and message counts of a node-aware one.

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetNodeAware()`, `MatAIJHybridGetExchangeStats()`, `PETSCSFNODEAWARE`
@*/
PetscErrorCode MatAIJHybridGetHaloSF(Mat A, PetscSF *sf)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetHaloSF_C", (Mat, PetscSF *), (A, sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetExchangeStats - Gets the nodes and the messages of one halo exchange of a `MATAIJHYBRID` matrix, node-aware and basic

  Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameter:
. stats - nodes, and per rank and in total the inter-node and on-node messages and bytes of one
          exchange of `PETSCSFBASIC` (one message per owner and requesting rank) and of
          `PETSCSFNODEAWARE`, for the ghost pattern of the off-diagonal block

  Level: intermediate

  Notes:
  `stats->node_aware` says whether the matrix's halo `PetscSF` is node-aware; when it is not, a
  node-aware `PetscSF` of the same graph (with the node size of `MatAIJHybridSetNodeSize()`) is
  built to count its messages. On one rank every count is 0.

.seealso: `MATAIJHYBRID`, `PetscSFNodeAwareGetStats()`, `MatAIJHybridGetHaloSF()`, `MatAIJHybridSetNodeAware()`
@*/
PetscErrorCode MatAIJHybridGetExchangeStats(Mat A, PetscSFNodeAwareStats *stats)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetExchangeStats_C", (Mat, PetscSFNodeAwareStats *), (A, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}
