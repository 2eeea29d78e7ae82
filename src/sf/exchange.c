/*
   PetscAIJHybridExchange: the public halo-exchange object (standard PetscSF or node-aware), its
   message statistics and their ASCII view, shared with the matrix type (src/mat/mpiaijhybrid.c).
*/
#include "../aijhybrid.h"
#include <petscviewer.h>

struct _p_PetscAIJHybridExchange {
  MPI_Comm            comm;
  PetscLayout         map;
  PetscInt            nghost;
  PetscInt           *ghosts;
  PetscBool           node_aware;
  PetscInt            node_size;
  AIJHybridHalo       halo; /* standard exchange (when not node-aware) */
  AIJHybridNodeAware *na;   /* node-aware exchange (when node-aware, or built for the statistics) */
};

static void CountsFrom(const AIJHybridNodeCounts *c, PetscAIJHybridExchangeCounts *o)
{
  o->on_msgs     = c->msgs[0];
  o->inter_msgs  = c->msgs[1];
  o->on_bytes    = (PetscInt64)c->entries[0] * (PetscInt64)sizeof(PetscScalar);
  o->inter_bytes = (PetscInt64)c->entries[1] * (PetscInt64)sizeof(PetscScalar);
}

/* collective: statistics of the plan of na (this rank and totals over comm) */
PetscErrorCode AIJHybridExchangeStatsCompute(MPI_Comm comm, AIJHybridNodeAware *na, PetscBool node_aware, PetscAIJHybridExchangeStats *st)
{
  PetscAIJHybridExchangeCounts *mine[3] = {&st->standard, &st->nodeaware, &st->nodeaware_reverse}, *tot[3] = {&st->standard_total, &st->nodeaware_total, &st->nodeaware_reverse_total};
  PetscInt64                    loc[12], glob[12];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->node_aware = node_aware;
  st->nnodes     = na->topo.nnodes;
  st->node       = na->topo.node[na->rank];
  st->node_ranks = na->topo.nptr[st->node + 1] - na->topo.nptr[st->node];
  CountsFrom(&na->plan.standard, &st->standard);
  CountsFrom(&na->plan.forward, &st->nodeaware);
  CountsFrom(&na->plan.reverse, &st->nodeaware_reverse);
  for (PetscInt i = 0; i < 3; i++) {
    loc[4 * i + 0] = mine[i]->inter_msgs;
    loc[4 * i + 1] = mine[i]->on_msgs;
    loc[4 * i + 2] = mine[i]->inter_bytes;
    loc[4 * i + 3] = mine[i]->on_bytes;
  }
  PetscCallMPI(MPI_Allreduce(loc, glob, 12, MPIU_INT64, MPI_SUM, comm));
  for (PetscInt i = 0; i < 3; i++) {
    tot[i]->inter_msgs  = (PetscInt)glob[4 * i + 0];
    tot[i]->on_msgs     = (PetscInt)glob[4 * i + 1];
    tot[i]->inter_bytes = glob[4 * i + 2];
    tot[i]->on_bytes    = glob[4 * i + 3];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collective: ASCII lines of the statistics (totals; per rank with detail) */
PetscErrorCode AIJHybridExchangeStatsView(PetscViewer viewer, const char *prefix, const PetscAIJHybridExchangeStats *st, PetscBool detail)
{
  const PetscAIJHybridExchangeCounts *s = &st->standard_total, *n = &st->nodeaware_total, *r = &st->nodeaware_reverse_total;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s: %" PetscInt_FMT " nodes; one forward exchange, all ranks: standard %" PetscInt_FMT " inter-node messages (%" PetscInt64_FMT " bytes) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " bytes); node-aware %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " bytes) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " bytes); node-aware reverse %" PetscInt64_FMT " inter-node bytes + %" PetscInt64_FMT " on-node\n", prefix, st->nnodes, s->inter_msgs, s->inter_bytes, s->on_msgs, s->on_bytes, n->inter_msgs, n->inter_bytes, n->on_msgs, n->on_bytes, r->inter_bytes, r->on_bytes));
  if (detail) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] node %" PetscInt_FMT " (%" PetscInt_FMT " ranks): sends standard %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " B); node-aware %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " B), reverse %" PetscInt64_FMT " + %" PetscInt64_FMT " B\n", rank, st->node, st->node_ranks,
                                                 st->standard.inter_msgs, st->standard.inter_bytes, st->standard.on_msgs, st->standard.on_bytes, st->nodeaware.inter_msgs, st->nodeaware.inter_bytes, st->nodeaware.on_msgs, st->nodeaware.on_bytes, st->nodeaware_reverse.inter_bytes, st->nodeaware_reverse.on_bytes));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeCreate - Creates a halo exchange: each rank gets the values of the global
  indices it names (its ghosts) from their owners, and can add contributions back

  Collective

  Input Parameters:
+ comm       - communicator of the layout
. map        - the layout of the owned (root) entries; set up here if it is not yet
. nghost     - number of ghosts of this rank
. ghosts     - their global indices, distinct, in any order (copied); owned by any rank, this one included
. node_aware - `PETSC_TRUE` for the node-aware exchange (one inter-node message per ordered node pair), `PETSC_FALSE` for the standard one (a `PetscSF`)
- node_size  - `PETSC_DEFAULT` (or 0) for the nodes `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` finds; k > 0 emulates nodes of k consecutive ranks

  Output Parameter:
. ex - the exchange

  Level: intermediate

  Notes:
  Forward (`PetscAIJHybridExchangeForwardBegin()`/`End()`) inserts, reverse (`PetscAIJHybridExchangeReverseBegin()`/`End()`)
  adds. Both exchanges give bitwise identical results: the node-aware reverse carries one value per
  (ghost, rank) pair and the owner adds them in the order the standard `PetscSF` reduce does (its
  own first, then by ascending rank). All calls are MPI calls: make them on the main thread.

.seealso: `PetscAIJHybridExchange`, `PetscAIJHybridExchangeCreateFromVec()`, `PetscAIJHybridExchangeDestroy()`, `PetscAIJHybridExchangeGetStats()`
@*/
PetscErrorCode PetscAIJHybridExchangeCreate(MPI_Comm comm, PetscLayout map, PetscInt nghost, const PetscInt ghosts[], PetscBool node_aware, PetscInt node_size, PetscAIJHybridExchange *ex)
{
  PetscAIJHybridExchange e;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridInitializePackage());
  PetscCheck(nghost >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative number of ghosts %" PetscInt_FMT, nghost);
  PetscCheck(node_size >= 0 || node_size == PETSC_DEFAULT || node_size == PETSC_DECIDE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Invalid node size %" PetscInt_FMT ": must be > 0, or 0 / PETSC_DEFAULT for shared-memory nodes", node_size);
  PetscCall(PetscNew(&e));
  e->comm       = comm;
  e->nghost     = nghost;
  e->node_aware = node_aware;
  e->node_size  = node_size > 0 ? node_size : 0;
  PetscCall(PetscLayoutSetUp(map));
  PetscCall(PetscLayoutReference(map, &e->map));
  PetscCall(PetscMalloc1(nghost, &e->ghosts));
  if (nghost) PetscCall(PetscArraycpy(e->ghosts, ghosts, nghost));
  if (node_aware) PetscCall(AIJHybridNodeAwareCreate(comm, e->map, nghost, e->ghosts, e->node_size, &e->na));
  else PetscCall(AIJHybridHaloCreate(comm, e->map, nghost, e->ghosts, &e->halo)); /* the SF keeps its own remote indices */
  *ex = e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeCreateFromVec - Creates a halo exchange on the communicator and layout of a vector

  Collective

  Input Parameters:
+ x          - a vector whose layout holds the owned entries
. nghost     - number of ghosts of this rank
. ghosts     - their global indices (distinct, any order)
. node_aware - node-aware or standard exchange
- node_size  - `PETSC_DEFAULT` for shared-memory nodes, k > 0 for emulated nodes of k consecutive ranks

  Output Parameter:
. ex - the exchange

  Level: intermediate

.seealso: `PetscAIJHybridExchangeCreate()`, `PetscAIJHybridExchangeForwardVec()`
@*/
PetscErrorCode PetscAIJHybridExchangeCreateFromVec(Vec x, PetscInt nghost, const PetscInt ghosts[], PetscBool node_aware, PetscInt node_size, PetscAIJHybridExchange *ex)
{
  PetscLayout map;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(x, VEC_CLASSID, 1);
  PetscCall(VecGetLayout(x, &map));
  PetscCall(PetscAIJHybridExchangeCreate(PetscObjectComm((PetscObject)x), map, nghost, ghosts, node_aware, node_size, ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeDestroy - Destroys a halo exchange

  Collective

  Input Parameter:
. ex - the exchange (set to NULL)

  Level: intermediate

.seealso: `PetscAIJHybridExchangeCreate()`
@*/
PetscErrorCode PetscAIJHybridExchangeDestroy(PetscAIJHybridExchange *ex)
{
  PetscFunctionBegin;
  if (!ex || !*ex) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AIJHybridHaloDestroy(&(*ex)->halo));
  PetscCall(AIJHybridNodeAwareDestroy(&(*ex)->na));
  PetscCall(PetscLayoutDestroy(&(*ex)->map));
  PetscCall(PetscFree((*ex)->ghosts));
  PetscCall(PetscFree(*ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeForwardBegin - Begins copying the owners' values into the ghosts

  Collective

  Input Parameters:
+ ex    - the exchange
. x     - this rank's owned entries (local part of the layout)
- ghost - array of nghost entries to receive the values

  Level: intermediate

  Note:
  Do not change `x` before `PetscAIJHybridExchangeForwardEnd()`; read `ghost` only after it.

.seealso: `PetscAIJHybridExchangeForwardEnd()`, `PetscAIJHybridExchangeReverseBegin()`
@*/
PetscErrorCode PetscAIJHybridExchangeForwardBegin(PetscAIJHybridExchange ex, const PetscScalar x[], PetscScalar ghost[])
{
  PetscFunctionBegin;
  if (ex->node_aware) PetscCall(AIJHybridNodeAwareForwardBegin(ex->na, x, ghost));
  else PetscCall(AIJHybridHaloForwardBegin(&ex->halo, x, ghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeForwardEnd - Ends copying the owners' values into the ghosts

  Collective

  Input Parameters:
+ ex    - the exchange
. x     - the array given to `PetscAIJHybridExchangeForwardBegin()`
- ghost - the array given to `PetscAIJHybridExchangeForwardBegin()`: ghost[k] is the value of global index ghosts[k]

  Level: intermediate

.seealso: `PetscAIJHybridExchangeForwardBegin()`
@*/
PetscErrorCode PetscAIJHybridExchangeForwardEnd(PetscAIJHybridExchange ex, const PetscScalar x[], PetscScalar ghost[])
{
  PetscFunctionBegin;
  if (ex->node_aware) PetscCall(AIJHybridNodeAwareForwardEnd(ex->na, x, ghost));
  else PetscCall(AIJHybridHaloForwardEnd(&ex->halo, x, ghost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeReverseBegin - Begins adding ghost contributions to their owners

  Collective

  Input Parameters:
+ ex    - the exchange
. ghost - nghost contributions
- y     - this rank's owned entries, to be added to

  Level: intermediate

.seealso: `PetscAIJHybridExchangeReverseEnd()`
@*/
PetscErrorCode PetscAIJHybridExchangeReverseBegin(PetscAIJHybridExchange ex, const PetscScalar ghost[], PetscScalar y[])
{
  PetscFunctionBegin;
  if (ex->node_aware) PetscCall(AIJHybridNodeAwareReverseBegin(ex->na, ghost, y));
  else PetscCall(AIJHybridHaloReverseBegin(&ex->halo, ghost, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeReverseEnd - Ends adding ghost contributions to their owners: y(ghosts[k]) += ghost[k] on the owner

  Collective

  Input Parameters:
+ ex    - the exchange
. ghost - the array given to `PetscAIJHybridExchangeReverseBegin()`
- y     - the array given to `PetscAIJHybridExchangeReverseBegin()`

  Level: intermediate

.seealso: `PetscAIJHybridExchangeReverseBegin()`
@*/
PetscErrorCode PetscAIJHybridExchangeReverseEnd(PetscAIJHybridExchange ex, const PetscScalar ghost[], PetscScalar y[])
{
  PetscFunctionBegin;
  if (ex->node_aware) PetscCall(AIJHybridNodeAwareReverseEnd(ex->na, ghost, y));
  else PetscCall(AIJHybridHaloReverseEnd(&ex->halo, ghost, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeForwardVec - Forward exchange on vectors: ghost[k] = x(ghosts[k])

  Collective

  Input Parameters:
+ ex    - the exchange
. x     - vector with the exchange's layout
- ghost - vector with nghost local entries (any communicator)

  Level: intermediate

.seealso: `PetscAIJHybridExchangeReverseVec()`, `PetscAIJHybridExchangeForwardBegin()`
@*/
PetscErrorCode PetscAIJHybridExchangeForwardVec(PetscAIJHybridExchange ex, Vec x, Vec ghost)
{
  const PetscScalar *xa;
  PetscScalar       *ga;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCheck(n == ex->map->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vector has %" PetscInt_FMT " local entries, the exchange's layout %" PetscInt_FMT, n, ex->map->n);
  PetscCall(VecGetLocalSize(ghost, &n));
  PetscCheck(n == ex->nghost, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Ghost vector has %" PetscInt_FMT " local entries, the exchange %" PetscInt_FMT " ghosts", n, ex->nghost);
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(ghost, &ga));
  PetscCall(PetscAIJHybridExchangeForwardBegin(ex, xa, ga));
  PetscCall(PetscAIJHybridExchangeForwardEnd(ex, xa, ga));
  PetscCall(VecRestoreArrayWrite(ghost, &ga));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeReverseVec - Reverse exchange on vectors: y(ghosts[k]) += ghost[k]

  Collective

  Input Parameters:
+ ex    - the exchange
. ghost - vector with nghost local entries
- y     - vector with the exchange's layout, added to

  Level: intermediate

.seealso: `PetscAIJHybridExchangeForwardVec()`
@*/
PetscErrorCode PetscAIJHybridExchangeReverseVec(PetscAIJHybridExchange ex, Vec ghost, Vec y)
{
  const PetscScalar *ga;
  PetscScalar       *ya;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(y, &n));
  PetscCheck(n == ex->map->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vector has %" PetscInt_FMT " local entries, the exchange's layout %" PetscInt_FMT, n, ex->map->n);
  PetscCall(VecGetLocalSize(ghost, &n));
  PetscCheck(n == ex->nghost, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Ghost vector has %" PetscInt_FMT " local entries, the exchange %" PetscInt_FMT " ghosts", n, ex->nghost);
  PetscCall(VecGetArrayRead(ghost, &ga));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(PetscAIJHybridExchangeReverseBegin(ex, ga, ya));
  PetscCall(PetscAIJHybridExchangeReverseEnd(ex, ga, ya));
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(ghost, &ga));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeGetStats - Gets the message counts and bytes of the standard and the node-aware exchange of this pattern

  Collective

  Input Parameter:
. ex - the exchange

  Output Parameter:
. stats - this rank's and all ranks' messages (inter-node and on-node) of one exchange

  Level: intermediate

  Note:
  A standard exchange builds the node-aware plan on the first call (collectively) to count its messages.

.seealso: `PetscAIJHybridExchangeStats`, `MatAIJHybridGetExchangeStats()`
@*/
PetscErrorCode PetscAIJHybridExchangeGetStats(PetscAIJHybridExchange ex, PetscAIJHybridExchangeStats *stats)
{
  PetscFunctionBegin;
  if (!ex->na) PetscCall(AIJHybridNodeAwareCreate(ex->comm, ex->map, ex->nghost, ex->ghosts, ex->node_size, &ex->na));
  PetscCall(AIJHybridExchangeStatsCompute(ex->comm, ex->na, ex->node_aware, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscAIJHybridExchangeView - Views a halo exchange: kind, nodes and message statistics

  Collective

  Input Parameters:
+ ex     - the exchange
- viewer - an ASCII viewer (`PETSC_VIEWER_ASCII_INFO_DETAIL` adds one line per rank), or NULL for stdout

  Level: intermediate

.seealso: `PetscAIJHybridExchangeGetStats()`
@*/
PetscErrorCode PetscAIJHybridExchangeView(PetscAIJHybridExchange ex, PetscViewer viewer)
{
  PetscBool                   iascii;
  PetscViewerFormat           format;
  PetscAIJHybridExchangeStats st;

  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(ex->comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  PetscCall(PetscAIJHybridExchangeGetStats(ex, &st));
  PetscCall(PetscViewerASCIIPrintf(viewer, "PetscAIJHybridExchange: %s, nodes %s\n", ex->node_aware ? "node-aware" : "standard (PetscSF)", ex->node_size > 0 ? "emulated" : "from MPI_COMM_TYPE_SHARED"));
  PetscCall(AIJHybridExchangeStatsView(viewer, "PetscAIJHybridExchange", &st, (PetscBool)(format == PETSC_VIEWER_ASCII_INFO_DETAIL)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
