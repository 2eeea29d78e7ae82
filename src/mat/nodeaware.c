/*
   The node-aware halo exchange of an MPIAIJHYBRID matrix: built (collectively) for the ghost
   pattern of the off-diagonal block, cached with the matrix, rebuilt when the pattern or the node
   size changes; its message statistics (MatAIJHybridGetExchangeStats()) and its MatView() lines.
*/
#include "../aijhybrid.h"
#include <petscviewer.h>

/*
  MatAIJHybridNodeAwareUpdate - collective: (re)build ctx->na for the current halo when it is
  needed (node-aware products, or force for the statistics) and missing or built for another node
  size. The halo setup destroys ctx->na whenever the ghost pattern changes on any rank, so whether
  it exists is the same on every rank; the options are logically collective.
*/
PetscErrorCode MatAIJHybridNodeAwareUpdate(Mat A, Mat_AIJHybrid *ctx, PetscBool force)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  if (!ctx->node_aware && !force) PetscFunctionReturn(PETSC_SUCCESS);
  if (ctx->na && ctx->na->node_size == ctx->node_size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AIJHybridNodeAwareDestroy(&ctx->na));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(AIJHybridNodeAwareCreate(PetscObjectComm((PetscObject)A), A->cmap, Ao->cmap->n, garray, ctx->node_size, &ctx->na));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetExchangeStats - Gets the message counts and bytes of one halo exchange of a `MATAIJHYBRID` matrix, standard and node-aware

  Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameter:
. stats - nodes, and per rank and in total the inter-node and on-node messages and bytes of the
          standard exchange (`PetscSF`, one message per owner and requesting rank) and of the
          node-aware one, for the ghost pattern of the off-diagonal block

  Level: intermediate

  Notes:
  Both exchanges are counted whichever one the products use (`MatAIJHybridSetNodeAware()`); the
  node-aware plan is built for the count if the products do not use it. On one rank every count is 0.

.seealso: `MATAIJHYBRID`, `PetscAIJHybridExchangeStats`, `MatAIJHybridSetNodeAware()`, `MatAIJHybridSetNodeSize()`
@*/
PetscErrorCode MatAIJHybridGetExchangeStats(Mat A, PetscAIJHybridExchangeStats *stats)
{
  Mat_AIJHybrid *ctx;
  PetscBool      flg, mpi;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not of type %s", ((PetscObject)A)->type_name, MATAIJHYBRID);
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJHYBRID, &mpi));
  if (mpi) {
    PetscCall(MatAIJHybridNodeAwareUpdate(A, ctx, PETSC_TRUE));
    PetscCall(AIJHybridExchangeStatsCompute(PetscObjectComm((PetscObject)A), ctx->na, ctx->node_aware, stats));
  } else { /* no exchange: a plan without ghosts gives the node and zero counts */
    AIJHybridNodeAware *na;
    PetscCall(AIJHybridNodeAwareCreate(PetscObjectComm((PetscObject)A), A->cmap, 0, NULL, ctx->node_size, &na));
    PetscCall(AIJHybridExchangeStatsCompute(PetscObjectComm((PetscObject)A), na, ctx->node_aware, stats));
    PetscCall(AIJHybridNodeAwareDestroy(&na));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatView lines (collective): ASCII_INFO the exchange in use; ASCII_INFO_DETAIL adds its message statistics */
PetscErrorCode MatAIJHybridViewNodeAware_Private(Mat A, PetscViewer viewer, Mat_AIJHybrid *ctx, PetscViewerFormat format)
{
  PetscMPIInt size;
  char        nodes[64];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  if (ctx->node_size > 0) PetscCall(PetscSNPrintf(nodes, sizeof(nodes), "emulated nodes of %" PetscInt_FMT " ranks", ctx->node_size));
  else PetscCall(PetscSNPrintf(nodes, sizeof(nodes), "nodes from MPI_COMM_TYPE_SHARED"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: halo exchange %s (%s)\n", ctx->node_aware ? "node-aware, one inter-node message per node pair" : "standard (PetscSF)", nodes));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL && A->assembled) {
    PetscAIJHybridExchangeStats st;
    PetscCall(MatAIJHybridGetExchangeStats(A, &st));
    PetscCall(AIJHybridExchangeStatsView(viewer, "AIJHybrid", &st, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
