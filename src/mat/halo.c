/*
   The halo exchange of an MPIAIJHYBRID matrix: one PetscSF, built at assembly from the ghost
   columns of the off-diagonal block (roots: the owned columns; leaves: the ghosts 0..nghost-1). Its
   type is chosen once, when it is built: PETSCSFNODEAWARE when -mat_aijhybrid_node_aware is set,
   otherwise what -sf_type says (PetscSFSetFromOptions(), default basic), like PETSc's own VecScatter
   of MATMPIAIJ. The products drive it through PetscSF's own begin/end (src/mat/mpiaijhybrid.c).
   Also: its message statistics (MatAIJHybridGetExchangeStats()) and its MatView() lines.
*/
#include "../aijhybrid.h"
#include <petscviewer.h>

PetscErrorCode MatAIJHybridHaloReset(Mat_AIJHybrid *ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&ctx->halo));
  PetscCall(MatDestroy(&ctx->halo_block));
  PetscCall(PetscFree2(ctx->ghost, ctx->ghost_t));
  ctx->nghost = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collective: the SF of the current off-diagonal block, with the type and node size the options ask for */
static PetscErrorCode HaloCreate(Mat A, Mat_AIJHybrid *ctx)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(PetscSFDestroy(&ctx->halo));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &ctx->halo));
  PetscCall(PetscSFSetGraphLayout(ctx->halo, A->cmap, Ao->cmap->n, NULL, PETSC_COPY_VALUES, garray));
  PetscCall(PetscSFSetFromOptions(ctx->halo)); /* -sf_type, -sf_nodeaware_node_size, as for MATMPIAIJ's VecScatter */
  if (ctx->node_aware) PetscCall(PetscSFSetType(ctx->halo, PETSCSFNODEAWARE));
  if (ctx->node_size > 0) PetscCall(PetscSFNodeAwareSetNodeSize(ctx->halo, ctx->node_size)); /* ignored by other types */
  PetscCall(PetscSFSetUp(ctx->halo));
  ctx->halo_forced    = ctx->node_aware;
  ctx->halo_node_size = ctx->node_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridHaloUpdate - collective: (re)build the halo SF when the ghost pattern changed on some
  rank (rebuild, decided collectively by the caller), or when -mat_aijhybrid_node_aware or
  -mat_aijhybrid_node_size changed since it was built (logically collective options, so the same
  decision on every rank); ghost buffers sized for it
*/
PetscErrorCode MatAIJHybridHaloUpdate(Mat A, Mat_AIJHybrid *ctx, PetscBool rebuild)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  if (!rebuild && ctx->halo && ctx->halo_forced == ctx->node_aware && ctx->halo_node_size == ctx->node_size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(HaloCreate(A, ctx));
  if (rebuild || Ao != ctx->halo_block) {
    PetscCall(PetscObjectReference((PetscObject)Ao));
    PetscCall(MatDestroy(&ctx->halo_block));
    ctx->halo_block = Ao;
    ctx->nghost     = Ao->cmap->n;
    PetscCall(PetscFree2(ctx->ghost, ctx->ghost_t));
    PetscCall(PetscMalloc2(ctx->nghost, &ctx->ghost, ctx->nghost, &ctx->ghost_t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetHaloSF - Gets the `PetscSF` of the halo exchange of a `MATAIJHYBRID` matrix

  Not Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameter:
. sf - its roots are the owned columns, its leaves the ghost columns of the off-diagonal block in
       the order of `MatMPIAIJGetSeqAIJ()`'s column map; NULL on one rank (no exchange). Owned by the
       matrix: do not destroy it; it is replaced when the nonzero pattern or the halo options change.

  Level: intermediate

  Note:
  Its type is `PETSCSFNODEAWARE` with `MatAIJHybridSetNodeAware()` (`-mat_aijhybrid_node_aware`),
  otherwise the one `-sf_type` gave when it was built (default `PETSCSFBASIC`). `PetscSFView()`
  shows it, with the nodes and message counts of a node-aware one.

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetNodeAware()`, `MatAIJHybridGetExchangeStats()`, `PETSCSFNODEAWARE`
@*/
PetscErrorCode MatAIJHybridGetHaloSF(Mat A, PetscSF *sf)
{
  Mat_AIJHybrid *ctx;
  PetscBool      flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Matrix of type %s is not of type %s", ((PetscObject)A)->type_name, MATAIJHYBRID);
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *sf = ctx->halo;
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
  Mat_AIJHybrid *ctx;
  PetscBool      flg, nodeaware;
  PetscSF        sf;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not of type %s", ((PetscObject)A)->type_name, MATAIJHYBRID);
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (ctx->halo) PetscCall(MatAIJHybridHaloUpdate(A, ctx, PETSC_FALSE));
  nodeaware = PETSC_FALSE;
  if (ctx->halo) PetscCall(PetscObjectTypeCompare((PetscObject)ctx->halo, PETSCSFNODEAWARE, &nodeaware));
  if (nodeaware) {
    PetscCall(PetscSFNodeAwareGetStats(ctx->halo, stats));
  } else { /* count on a node-aware SF of the same graph (no ghosts on one rank) */
    PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &sf));
    if (ctx->halo) {
      Mat             Ad, Ao;
      const PetscInt *garray;
      PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
      PetscCall(PetscSFSetGraphLayout(sf, A->cmap, Ao->cmap->n, NULL, PETSC_COPY_VALUES, garray));
    } else PetscCall(PetscSFSetGraph(sf, 0, 0, NULL, PETSC_COPY_VALUES, NULL, PETSC_COPY_VALUES));
    PetscCall(PetscSFSetType(sf, PETSCSFNODEAWARE));
    if (ctx->node_size > 0) PetscCall(PetscSFNodeAwareSetNodeSize(sf, ctx->node_size));
    PetscCall(PetscSFNodeAwareGetStats(sf, stats));
    PetscCall(PetscSFDestroy(&sf));
  }
  stats->node_aware = nodeaware;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatView lines (collective): ASCII_INFO the halo SF's type; ASCII_INFO_DETAIL adds the message statistics */
PetscErrorCode MatAIJHybridViewHalo_Private(Mat A, PetscViewer viewer, Mat_AIJHybrid *ctx, PetscViewerFormat format)
{
  PetscMPIInt size;
  PetscBool   nodeaware = PETSC_FALSE;
  PetscSFType type      = NULL;
  char        nodes[96] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1 || !ctx->halo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFGetType(ctx->halo, &type));
  PetscCall(PetscObjectTypeCompare((PetscObject)ctx->halo, PETSCSFNODEAWARE, &nodeaware));
  if (nodeaware) {
    PetscInt k;
    PetscCall(PetscSFNodeAwareGetNodeSize(ctx->halo, &k));
    if (k > 0) PetscCall(PetscSNPrintf(nodes, sizeof(nodes), ", one inter-node message per node pair, emulated nodes of %" PetscInt_FMT " ranks", k));
    else PetscCall(PetscSNPrintf(nodes, sizeof(nodes), ", one inter-node message per node pair, nodes from MPI_COMM_TYPE_SHARED"));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: halo exchange: PetscSF of type %s%s\n", type ? type : "(none)", nodes));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL && A->assembled) {
    PetscSFNodeAwareStats st;
    PetscMPIInt           rank;
    PetscCall(MatAIJHybridGetExchangeStats(A, &st));
    PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: %" PetscInt_FMT " nodes; one exchange, all ranks: basic %" PetscInt_FMT " inter-node messages (%" PetscInt64_FMT " bytes) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " bytes); node-aware %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " bytes) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " bytes); node-aware reverse %" PetscInt64_FMT " inter-node bytes + %" PetscInt64_FMT " on-node\n", st.nnodes, st.basic_total.inter_msgs, st.basic_total.inter_bytes, st.basic_total.on_msgs,
                                     st.basic_total.on_bytes, st.nodeaware_total.inter_msgs, st.nodeaware_total.inter_bytes, st.nodeaware_total.on_msgs, st.nodeaware_total.on_bytes, st.nodeaware_reverse_total.inter_bytes, st.nodeaware_reverse_total.on_bytes));
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] node %" PetscInt_FMT " (%" PetscInt_FMT " ranks): sends basic %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " B); node-aware %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " B), reverse %" PetscInt64_FMT " + %" PetscInt64_FMT " B\n", rank, st.node, st.node_ranks, st.basic.inter_msgs,
                                                 st.basic.inter_bytes, st.basic.on_msgs, st.basic.on_bytes, st.nodeaware.inter_msgs, st.nodeaware.inter_bytes, st.nodeaware.on_msgs, st.nodeaware.on_bytes, st.nodeaware_reverse.inter_bytes, st.nodeaware_reverse.on_bytes));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
