/*
   What the aijhybrid types add to MatView(): ASCII_INFO lines (threads, mode, partition, MPI
   thread level, imbalance) and, for ASCII_INFO_DETAIL, one line per rank with the partition and the
   measured per-thread times.
*/
#include "../aijhybrid.h"
#include <petscviewer.h>

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
  switch (MatAIJHybrid_MPIThreadLevel) {
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
  dpart  = MatAIJHybridEffectiveMode(ctx, ctx->params.nthreads) == MAT_AIJHYBRID_MODE_TASK && ctx->diag_task.bounds ? &ctx->diag_task : &ctx->diag;
  imb[0] = dpart->bounds ? dpart->imbalance : 1.0;
  imb[1] = ctx->offd.bounds ? ctx->offd.imbalance : 1.0;
  PetscCallMPI(MPI_Allreduce(imb, gimb, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: %" PetscInt_FMT " OpenMP threads per rank, mode %s, partition %s (row cost %g), MPI thread level %s\n", ctx->params.nthreads, MatAIJHybridModes[MatAIJHybridEffectiveMode(ctx, ctx->params.nthreads)], MatAIJHybridPartitionTypes[ctx->params.type], (double)ctx->params.row_cost, level));
  if (MatAIJHybridEffectiveMode(ctx, ctx->params.nthreads) == MAT_AIJHYBRID_MODE_TASK) {
    PetscReal share[2] = {-ctx->task_lead, ctx->task_lead}, gshare[2];

    PetscCallMPI(MPI_Allreduce(share, gshare, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: task mode: after the halo exchange thread 0 multiplies %.2f to %.2f (over ranks) of an equal part of the diagonal block (%s)\n", (double)-gshare[0], (double)gshare[1], ctx->task_share < 0 ? "sized from measured times" : "set"));
  }
  if (ctx->first_touch) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: first touch: the products multiply copies of the blocks placed by their threads\n"));
  if (ctx->sor_serial) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: MatSOR runs AIJ's serial sweeps (-mat_aijhybrid_sor_serial)\n"));
  {
    /* software prefetch (src/mat/prefetch.c): in force on the ranks, -1 while measured */
    PetscInt use = ctx->prefetch >= 0 ? ctx->prefetch : ctx->pf_use, loc[2] = {-use, use}, glob[2];

    PetscCallMPI(MPI_Allreduce(loc, glob, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (ctx->prefetch >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: software prefetch %" PetscInt_FMT " nonzeros ahead (set)\n", ctx->prefetch));
    else if (-glob[0] < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: software prefetch chosen from measured products (not yet on every rank)\n"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: software prefetch chosen from measured products: %" PetscInt_FMT " to %" PetscInt_FMT " nonzeros ahead (over ranks)\n", -glob[0], glob[1]));
  }
  {
    /* threads x ranks on a node above its cores (src/threads/threads.c): worst figures over the ranks */
    PetscInt loc[3] = {ctx->params.nthreads, AIJHybridRanksOnNode(), -AIJHybridNodeCores()}, glob[3];

    PetscCallMPI(MPI_Allreduce(loc, glob, 3, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (glob[0] * glob[1] > -glob[2]) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: warning: %" PetscInt_FMT " threads x %" PetscInt_FMT " ranks on a node = %" PetscInt_FMT " > %" PetscInt_FMT " cores (oversubscribed)\n", glob[0], glob[1], glob[0] * glob[1], -glob[2]));
  }
  if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: load imbalance (max/mean cost per thread, worst rank): diagonal block %.4g, off-diagonal block %.4g\n", (double)gimb[0], (double)gimb[1]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: load imbalance (max/mean cost per thread): %.4g\n", (double)gimb[0]));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
    char   line[4096];
    size_t len;

    PetscCall(PetscSNPrintf(line, sizeof(line), "[%d] rows %" PetscInt_FMT ": diagonal imbalance %.4g (%" PetscInt_FMT " sweeps, built %" PetscInt_FMT " times, last in %.3g s)", rank, A->rmap->n, (double)imb[0], dpart->sweeps, dpart->builds, (double)dpart->build_time));
    if (size > 1) {
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, ", off-diagonal %" PetscInt_FMT " non-empty rows, imbalance %.4g, %" PetscInt_FMT " ghosts", ctx->offd.nrows, (double)imb[1], ctx->nghost));
    }
    PetscCall(PetscStrlcat(line, dpart == &ctx->diag_task ? "; task-mode thread row bounds (thread 0 first):" : "; thread row bounds:", sizeof(line)));
    for (PetscInt t = 0; dpart->bounds && t <= dpart->params.nthreads; t++) {
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %" PetscInt_FMT, dpart->bounds[t]));
    }
    if (ctx->tstat && ctx->nprod) {
      const PetscInt T = ctx->tstat_T;
      double         busy, mx = 0, sum = 0, comm = ctx->tstat[AIJHYBRID_TSTAT_COMM], dmax = 0;

      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "\n[%d] %" PetscInt_FMT " products (%s mode); busy ms per product by thread (halo exchange + diagonal + off-diagonal):", rank, ctx->nprod, MatAIJHybridModes[ctx->tstat_mode]));
      for (PetscInt t = 0; t < T; t++) {
        const double *tt = ctx->tstat + AIJHYBRID_TSTAT_STRIDE * t;
        busy             = tt[AIJHYBRID_TSTAT_DIAG] + tt[AIJHYBRID_TSTAT_OFFD] + tt[AIJHYBRID_TSTAT_COMM];
        mx               = PetscMax(mx, busy);
        sum += busy;
        if (t > 0 || ctx->tstat_mode != MAT_AIJHYBRID_MODE_TASK) dmax = PetscMax(dmax, tt[AIJHYBRID_TSTAT_DIAG]);
        PetscCall(PetscStrlen(line, &len));
        PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %.4g", 1e3 * busy / ctx->nprod));
      }
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "; measured imbalance %.3g", sum > 0 ? mx / (sum / T) : 1.0));
      if (ctx->tstat_mode == MAT_AIJHYBRID_MODE_TASK && comm > 0) {
        PetscCall(PetscStrlen(line, &len));
        PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "; halo exchange %.4g ms against the other threads' diagonal parts %.4g ms per product: %.0f%% of the exchange hidden", 1e3 * comm / ctx->nprod, 1e3 * dmax / ctx->nprod, 100.0 * PetscMin(comm, dmax) / comm));
      }
    }
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "%s\n", line));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscCall(MatAIJHybridViewHalo_Private(A, viewer, ctx, format));
  PetscFunctionReturn(PETSC_SUCCESS);
}

