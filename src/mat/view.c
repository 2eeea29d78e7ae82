/*
   What the aijhybrid types add to MatView(): ASCII_INFO lines (threads, mode, partition, MPI
   thread level, imbalance, the halo PetscSF's type) and, for ASCII_INFO_DETAIL, one line per rank
   with the partition and the measured per-thread times, and the halo's message counts.
*/
#include "aijhybridimpl.h"
#include <petscviewer.h>

/* MatView lines (collective): ASCII_INFO the halo SF's type; ASCII_INFO_DETAIL adds the message statistics */
static PetscErrorCode ViewHalo(Mat A, PetscViewer viewer, Mat_AIJHybrid *ctx, PetscViewerFormat format)
{
  PetscMPIInt size;
  PetscBool   nodeaware = PETSC_FALSE;
  PetscSFType type      = NULL;
  char        nodes[96] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1 || !ctx->cache.halo.sf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFGetType(ctx->cache.halo.sf, &type));
  PetscCall(PetscObjectTypeCompare((PetscObject)ctx->cache.halo.sf, PETSCSFNODEAWARE, &nodeaware));
  if (nodeaware) {
    PetscInt k;
    PetscCall(PetscSFNodeAwareGetNodeSize(ctx->cache.halo.sf, &k));
    if (k > 0) PetscCall(PetscSNPrintf(nodes, sizeof(nodes), ", one inter-node message per node pair, emulated nodes of %" PetscInt_FMT " ranks", k));
    else PetscCall(PetscSNPrintf(nodes, sizeof(nodes), ", one inter-node message per node pair, nodes from MPI_COMM_TYPE_SHARED"));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: halo exchange: PetscSF of type %s%s\n", type ? type : "(none)", nodes));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL && A->assembled) {
    PetscSFNodeAwareStats st;
    PetscMPIInt           rank;
    PetscCall(MatAIJHybridGetExchangeStats(A, &st));
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "AIJHybrid: %" PetscInt_FMT " nodes; one exchange, all ranks: basic %" PetscInt_FMT " inter-node messages (%" PetscInt64_FMT " bytes) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT
                                     " bytes); node-aware %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " bytes) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " bytes); node-aware reverse %" PetscInt64_FMT " inter-node bytes + %" PetscInt64_FMT
                                     " on-node\n",
                                     st.nnodes, st.basic_total.inter_msgs, st.basic_total.inter_bytes, st.basic_total.on_msgs, st.basic_total.on_bytes, st.nodeaware_total.inter_msgs, st.nodeaware_total.inter_bytes, st.nodeaware_total.on_msgs,
                                     st.nodeaware_total.on_bytes, st.nodeaware_reverse_total.inter_bytes, st.nodeaware_reverse_total.on_bytes));
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer,
                                                 "AIJHybrid: [%d] node %" PetscInt_FMT " (%" PetscInt_FMT " ranks): sends basic %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT
                                                 " B); node-aware %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " B), reverse %" PetscInt64_FMT " + %" PetscInt64_FMT " B\n",
                                                 rank, st.node, st.node_ranks, st.basic.inter_msgs, st.basic.inter_bytes, st.basic.on_msgs, st.basic.on_bytes, st.nodeaware.inter_msgs, st.nodeaware.inter_bytes, st.nodeaware.on_msgs,
                                                 st.nodeaware.on_bytes, st.nodeaware_reverse.inter_bytes, st.nodeaware_reverse.on_bytes));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridView_Private(Mat A, PetscViewer viewer, Mat_AIJHybrid *ctx)
{
  PetscBool         iascii;
  PetscViewerFormat format;
  PetscMPIInt       size, rank;
  PetscReal         imb[2], gimb[2];
  const char       *level = "unknown";
  AIJHybridRowPart *dpart; /* the diagonal partition in force */

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  if (A->assembled) { /* what a product would run with: the exchange and the mode's partitions (collective, as MatView() is) */
    AIJHybridPrepared p;

    PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_FALSE, &p));
  }
  switch (AIJHybridMPIThreadLevel) {
  case MPI_THREAD_SINGLE:
    level = "MPI_THREAD_SINGLE";
    break;
  case MPI_THREAD_FUNNELED:
    level = "MPI_THREAD_FUNNELED";
    break;
  case MPI_THREAD_SERIALIZED:
    level = "MPI_THREAD_SERIALIZED";
    break;
  case MPI_THREAD_MULTIPLE:
    level = "MPI_THREAD_MULTIPLE";
    break;
  }
  dpart  = ctx->tune.task_slot ? &ctx->cache.diag_task_b : &ctx->cache.diag_task;
  dpart  = MatAIJHybridEffectiveMode(ctx, ctx->set.params.nthreads) == MAT_AIJHYBRID_MODE_TASK && dpart->bounds ? dpart : &ctx->cache.diag;
  imb[0] = dpart->bounds ? dpart->imbalance : 1.0;
  imb[1] = ctx->cache.offd.bounds ? ctx->cache.offd.imbalance : 1.0;
  PetscCallMPI(MPI_Allreduce(imb, gimb, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: %" PetscInt_FMT " OpenMP threads per rank, mode %s, partition %s (row cost %g), MPI thread level %s\n", ctx->set.params.nthreads,
                                   MatAIJHybridModes[MatAIJHybridEffectiveMode(ctx, ctx->set.params.nthreads)], MatAIJHybridPartitionTypes[ctx->set.params.type], (double)ctx->set.params.row_cost, level));
  if (MatAIJHybridEffectiveMode(ctx, ctx->set.params.nthreads) == MAT_AIJHYBRID_MODE_TASK) {
    PetscReal in_use = MatAIJHybridTaskShareInUse(ctx), share[2] = {-in_use, in_use}, gshare[2];

    PetscCallMPI(MPI_Allreduce(share, gshare, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
    if (-gshare[0] < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: task mode: thread 0's share of the diagonal block after the halo exchange is being measured (not yet on every rank)\n"));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: task mode: after the halo exchange thread 0 multiplies %.2f to %.2f (over ranks) of an equal part of the diagonal block (%s)\n", (double)-gshare[0], (double)gshare[1],
                                       ctx->set.task_share < 0 ? "chosen from measured products" : "set"));
  }
  if (ctx->set.first_touch) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: first touch: the products multiply copies of the blocks placed by their threads\n"));
  if (ctx->set.sor_serial) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: MatSOR runs AIJ's serial sweeps (-mat_aijhybrid_sor_serial)\n"));
  if (ctx->set.factor_blocks == MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: ILU/ICC factor the diagonal block of each thread's rows (-mat_aijhybrid_factor_blocks thread)\n"));
  {
    /* software prefetch (src/mat/tune.c): in force on the ranks, -1 while measured */
    PetscInt use = MatAIJHybridPrefetchInUse(ctx), loc[2] = {-use, use}, glob[2];

    PetscCallMPI(MPI_Allreduce(loc, glob, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (ctx->set.prefetch >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: software prefetch %" PetscInt_FMT " nonzeros ahead (set)\n", ctx->set.prefetch));
    else if (-glob[0] < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: software prefetch chosen from measured products (not yet on every rank)\n"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: software prefetch chosen from measured products: %" PetscInt_FMT " to %" PetscInt_FMT " nonzeros ahead (over ranks)\n", -glob[0], glob[1]));
  }
  {
    /* threads x ranks on a node above its cores (src/threads/threads.c): worst figures over the ranks */
    PetscInt loc[3] = {ctx->set.params.nthreads, AIJHybridRanksOnNode(), -AIJHybridNodeCores()}, glob[3];

    PetscCallMPI(MPI_Allreduce(loc, glob, 3, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (glob[0] * glob[1] > -glob[2])
      PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: warning: %" PetscInt_FMT " threads x %" PetscInt_FMT " ranks on a node = %" PetscInt_FMT " > %" PetscInt_FMT " cores (oversubscribed)\n", glob[0], glob[1], glob[0] * glob[1], -glob[2]));
  }
  if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: load imbalance (max/mean cost per thread, worst rank): diagonal block %.4g, off-diagonal block %.4g\n", (double)gimb[0], (double)gimb[1]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: load imbalance (max/mean cost per thread): %.4g\n", (double)gimb[0]));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
    char   line[4096];
    size_t len;

    PetscCall(PetscSNPrintf(line, sizeof(line), "AIJHybrid: [%d] rows %" PetscInt_FMT ": diagonal imbalance %.4g (%" PetscInt_FMT " sweeps, built %" PetscInt_FMT " times, last in %.3g s)", rank, A->rmap->n, (double)imb[0], dpart->sweeps,
                            dpart->builds, (double)dpart->build_time));
    if (size > 1) {
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, ", off-diagonal %" PetscInt_FMT " non-empty rows, imbalance %.4g, %" PetscInt_FMT " ghosts", ctx->cache.offd.nrows, (double)imb[1], ctx->cache.halo.nghost));
    }
    PetscCall(PetscStrlcat(line, dpart == &ctx->cache.diag_task ? "; task-mode thread row bounds (thread 0 first):" : "; thread row bounds:", sizeof(line)));
    for (PetscInt t = 0; dpart->bounds && t <= dpart->params.nthreads; t++) {
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %" PetscInt_FMT, dpart->bounds[t]));
    }
    if (ctx->stats.time && ctx->stats.nprod) {
      const PetscInt T = ctx->stats.nthreads;
      double         busy, mx = 0, sum = 0, comm = ctx->stats.time[AIJHYBRID_STATS_COMM], dmax = 0;

      PetscCall(PetscStrlen(line, &len));
      PetscCall(
        PetscSNPrintf(line + len, sizeof(line) - len, "\nAIJHybrid: [%d] %" PetscInt_FMT " products (%s mode); busy ms per product by thread (halo exchange + diagonal + off-diagonal):", rank, ctx->stats.nprod, MatAIJHybridModes[ctx->stats.mode]));
      for (PetscInt t = 0; t < T; t++) {
        const double *tt = ctx->stats.time + AIJHYBRID_STATS_STRIDE * t;
        busy             = tt[AIJHYBRID_STATS_DIAG] + tt[AIJHYBRID_STATS_OFFD] + tt[AIJHYBRID_STATS_COMM];
        mx               = PetscMax(mx, busy);
        sum += busy;
        if (t > 0 || ctx->stats.mode != MAT_AIJHYBRID_MODE_TASK) dmax = PetscMax(dmax, tt[AIJHYBRID_STATS_DIAG]);
        PetscCall(PetscStrlen(line, &len));
        PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %.4g", 1e3 * busy / ctx->stats.nprod));
      }
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "; measured imbalance %.3g", sum > 0 ? mx / (sum / T) : 1.0));
      if (ctx->stats.mode == MAT_AIJHYBRID_MODE_TASK && comm > 0) {
        PetscCall(PetscStrlen(line, &len));
        PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "; halo exchange %.4g ms against the other threads' diagonal parts %.4g ms per product: %.0f%% of the exchange hidden", 1e3 * comm / ctx->stats.nprod, 1e3 * dmax / ctx->stats.nprod,
                                100.0 * PetscMin(comm, dmax) / comm));
      }
    }
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "%s\n", line));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscCall(ViewHalo(A, viewer, ctx, format));
  PetscFunctionReturn(PETSC_SUCCESS);
}
