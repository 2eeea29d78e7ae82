/*
   Pure plan builder of the node-aware halo exchange (no MPI: every function here works on its
   arguments only, allocating its outputs with PetscMalloc, so that one process can build and run the
   plans of any number of simulated ranks; tests/unit/test_nodeplan.c does).

   Design (docs/sf.md). Rank r on node N needs ghost g owned by rank q on node M.
     - q == r:            a copy from x (no message);
     - M == N, q != r:    q sends g to r directly (on-node);
     - M != N:            the node pair (M,N) is served by the sender s = rank (N mod ppn_M) of M and
                          the receiver t = rank (M mod ppn_N) of N (ranks of a node in ascending
                          order, ppn_X = rank count of node X); q sends g to s (on-node gather), s
                          sends the union of what node N needs from node M to t in ONE message, t
                          sends each rank r of N what r needs (on-node scatter). Different node pairs
                          land on different ranks, so no rank carries all inter-node traffic.
   Messages between one pair of ranks in one phase are combined into one.

   Forward (insert), three phases: F1 (from x: direct on-node sends and the gathers to s),
   F2 (s -> t, inter-node), F3 (t -> r, on-node); receives land in fbuf, ghost k = fbuf[gpos[k]].
   Reverse (add), the same messages the other way: R3 (r -> t), R2 (t -> s), R1 (s -> q and the direct
   r -> q), from and into rbuf, where rbuf[0..nghost) holds the ghost contributions. The reverse
   carries one value per (ghost, requesting rank) and never sums on the way: the owner adds the
   contributions to each entry in the order the standard PetscSF reduce does (its own first, then
   by ascending requesting rank), so the result is bitwise identical to the standard exchange.

   Setup (collective in nodeaware.c, simulated in the unit test) is three rounds of sparse messages
   between pure steps:
     AIJHybridNodePlanRequests (every r)  -> round 1 -> owners on r's node (direct) and receivers t (via)
     AIJHybridNodePlanUnions   (every t)  -> round 2 -> senders s: per node M, (g, r) pairs sorted
     AIJHybridNodePlanSplit    (every s)  -> round 3 -> owners q on s's node: the pairs q owns
     AIJHybridNodePlanFinish   (every rank, from its ghosts and the three rounds it received)
   Message encodings: round 1: sections [key, count, g_1..g_count], key -1 (direct) or the source
   node M, in ascending key, g ascending; round 2: pairs g, r sorted by (g, r); round 3: sections
   [t, npairs, (g, r) pairs], t ascending.

   Ghost indices of a rank must be distinct (any order); owners follow ranges[0..size].
*/
#ifndef AIJHYBRID_SF_NODEPLAN_H
#define AIJHYBRID_SF_NODEPLAN_H

#include "../compat.h"

/* rank -> node map */
typedef struct {
  PetscMPIInt  size;
  PetscInt     nnodes;
  PetscInt    *node;   /* [size] node of each rank, renumbered 0..nnodes-1 in the order of the nodes' first ranks */
  PetscInt    *lrank;  /* [size] index of the rank among its node's ranks (ascending) */
  PetscInt    *nptr;   /* [nnodes+1] */
  PetscMPIInt *nranks; /* [size] ranks of node X: nranks[nptr[X]..nptr[X+1]), ascending */
} AIJHybridNodeTopo;

/* messages of one rank in one setup round: to (outgoing) or from (incoming) peer[i], ascending */
typedef struct {
  PetscInt     n;
  PetscMPIInt *peer;
  PetscInt    *off;  /* [n+1] */
  PetscInt    *data; /* [off[n]] */
} AIJHybridNodeMsgs;

/* one phase of an exchange: packed sends from a source array, receives into a buffer */
typedef struct {
  PetscInt     nsend, nrecv;
  PetscMPIInt *sdest, *rsrc; /* ascending; a rank may appear (a copy to itself) */
  PetscInt    *soff, *sidx;  /* message i packs src[sidx[soff[i]..soff[i+1])] */
  PetscInt    *roff;         /* message j from rsrc[j] lands in buf[roff[j]..roff[j+1]) */
} AIJHybridNodePhase;

/* message statistics of one exchange direction on one rank: [0] on-node, [1] inter-node; sends to itself not counted */
typedef struct {
  PetscInt msgs[2];
  PetscInt entries[2];
} AIJHybridNodeCounts;

typedef struct {
  AIJHybridNodePhase  fwd[3]; /* F1 from x, F2 and F3 from fbuf; all receive into fbuf */
  AIJHybridNodePhase  rev[3]; /* R3, R2, R1: from rbuf into rbuf */
  PetscInt            nfbuf, nrbuf;
  PetscInt            nghost;
  PetscInt           *gpos; /* forward: ghost k = fbuf[gpos[k]] */
  PetscInt            nacc; /* reverse: y[accroot[j]] += rbuf[accpos[j]] for j = 0, 1, ... */
  PetscInt           *accroot, *accpos;
  AIJHybridNodeCounts standard; /* the standard exchange of the same pattern (one message per owner/requester pair) */
  AIJHybridNodeCounts forward, reverse;
} AIJHybridNodePlan;

/*
   A compiled direction of a plan: what one rank does at run time. A plan's phases move data
   through a buffer, and a rank's message to itself is a copy inside it; compiling folds those
   copies away. Every value is named by its origin: o >= 0 is entry o of the source array (forward:
   the rank's roots; reverse: its per-ghost contributions), o < 0 is entry -1-o of the receive
   buffer. Each phase keeps only its messages to other ranks; a phase whose entries all come from
   the source array can start as soon as the exchange begins (with one rank per node, the forward
   and the reverse are then one direct message per rank pair, like PetscSF's basic type).
*/
typedef struct {
  PetscInt     nsend, nrecv;
  PetscMPIInt *sdest, *rsrc; /* ascending, never this rank */
  PetscInt    *soff;         /* [nsend+1] message i is entries soff[i]..soff[i+1]) of the send buffer */
  PetscInt    *sorig;        /* [soff[nsend] - soff[0]] the origin of each entry sent, indexed from soff[0] */
  PetscInt    *roff;         /* [nrecv+1] message j lands in entries roff[j]..roff[j+1]) of the receive buffer */
  PetscBool    from_src;     /* every entry sent comes from the source array */
} AIJHybridNodeStep;

typedef struct {
  AIJHybridNodeStep step[3]; /* forward F1, F2, F3; reverse R3, R2, R1 */
  PetscInt          nsbuf, nrbuf;
  PetscInt          nout;
  PetscInt         *outorig; /* forward: origin of ghost k (nout = nghost); reverse: of the j-th addition (nout = nacc) */
  PetscInt         *outidx;  /* reverse: the root (local index) of the j-th addition; forward: NULL */
} AIJHybridNodeSchedule;

#define AIJHybridNodeOriginRecv(o) (-1 - (o)) /* receive-buffer entry of a negative origin, and back */

PETSC_INTERN PetscErrorCode AIJHybridNodeScheduleCreate(const AIJHybridNodePlan *, PetscMPIInt, PetscBool, AIJHybridNodeSchedule *);
PETSC_INTERN PetscErrorCode AIJHybridNodeScheduleDestroy(AIJHybridNodeSchedule *);

PETSC_INTERN PetscErrorCode AIJHybridNodeTopoCreate(PetscMPIInt, const PetscInt[], AIJHybridNodeTopo *);
PETSC_INTERN PetscErrorCode AIJHybridNodeTopoDestroy(AIJHybridNodeTopo *);
PETSC_INTERN PetscErrorCode AIJHybridNodeMsgsDestroy(AIJHybridNodeMsgs *);
PETSC_INTERN PetscErrorCode AIJHybridNodePlanDestroy(AIJHybridNodePlan *);

PETSC_INTERN PetscErrorCode AIJHybridNodePlanRequests(const AIJHybridNodeTopo *, const PetscInt[], PetscMPIInt, PetscInt, const PetscInt[], AIJHybridNodeMsgs *);
PETSC_INTERN PetscErrorCode AIJHybridNodePlanUnions(const AIJHybridNodeTopo *, const PetscInt[], PetscMPIInt, const AIJHybridNodeMsgs *, AIJHybridNodeMsgs *);
PETSC_INTERN PetscErrorCode AIJHybridNodePlanSplit(const AIJHybridNodeTopo *, const PetscInt[], PetscMPIInt, const AIJHybridNodeMsgs *, AIJHybridNodeMsgs *);
PETSC_INTERN PetscErrorCode AIJHybridNodePlanFinish(const AIJHybridNodeTopo *, const PetscInt[], PetscMPIInt, PetscInt, const PetscInt[], const AIJHybridNodeMsgs *, const AIJHybridNodeMsgs *, const AIJHybridNodeMsgs *, AIJHybridNodePlan *);

/* the rank that sends node M's data to node N, and the rank of N that receives it */
static inline PetscMPIInt AIJHybridNodeSender(const AIJHybridNodeTopo *topo, PetscInt M, PetscInt N)
{
  return topo->nranks[topo->nptr[M] + N % (topo->nptr[M + 1] - topo->nptr[M])];
}
static inline PetscMPIInt AIJHybridNodeReceiver(const AIJHybridNodeTopo *topo, PetscInt M, PetscInt N)
{
  return topo->nranks[topo->nptr[N] + M % (topo->nptr[N + 1] - topo->nptr[N])];
}

/* owner of global index g under ranges[0..size] (empty ranks allowed); -1 if out of range */
static inline PetscMPIInt AIJHybridNodeOwner(PetscMPIInt size, const PetscInt ranges[], PetscInt g)
{
  PetscMPIInt lo = 0, hi = size; /* find the last p with ranges[p] <= g */

  if (g < ranges[0] || g >= ranges[size]) return -1;
  while (hi - lo > 1) {
    PetscMPIInt mid = lo + (hi - lo) / 2;
    if (ranges[mid] <= g) lo = mid;
    else hi = mid;
  }
  return lo;
}

#endif
