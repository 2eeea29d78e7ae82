/*
   The node-aware PetscSF type, part 2: the collective setup and the node-aware operations.

   Setup (PetscSFNodeAwareBuild_Private): the roots get a global numbering (rank order); the
   distinct roots of other ranks that this rank's leaves reference are its "ghosts", the input of
   the pure plan builder (nodeplan.c), whose three rounds of sparse messages run here; each direction
   of the plan is compiled into a schedule (copies of a rank to itself folded away), and the leaves
   are listed in the orders PETSCSFBASIC uses, so that results are bitwise the same.

   An operation (PetscSFNodeAwareBegin/End_Private) uses a link: buffers and persistent requests for
   one direction and unit size, created on first use and kept. Begin posts every receive, packs every
   entry that comes from the source array, starts the steps that need nothing else, and does the
   leaves on this rank's own roots (as basic does at begin). End starts each remaining step once the
   receives it forwards have arrived, waits, and applies what arrived to the leaves (broadcast) or
   roots (reduction). While one operation of the SF waits, the others in flight are advanced too: a
   rank may relay for another operation that its peers end first.
*/
#include "sfnodeawareimpl.h"

/* the setup's log event, registered with the type (sfnodeaware.c) */
PetscLogEvent PETSCSF_NodeAwareSetUp;

/* ---------------------------------------------------------------------------------------------- */
/* kernels: dst[di[i]] (dst[i] when di is NULL) op= the unit at orig[i] (>= 0: S, < 0: R), unit by unit;
   filter > 0 only the entries from S, < 0 only those from R, 0 all */

typedef void (*NAKernel)(PetscInt, PetscInt, const PetscInt *, void *, const PetscInt *, const void *, const void *, PetscInt);

#define NA_KERNEL(NAME, T, STMT) \
  static void NAME(PetscInt n, PetscInt bs, const PetscInt *di, void *dstv, const PetscInt *orig, const void *Sv, const void *Rv, PetscInt filter) \
  { \
    T       *dst = (T *)dstv; \
    const T *S = (const T *)Sv, *R = (const T *)Rv; \
    if (bs == 1 && !filter) { /* the common case (MatMult, VecScatter without blocks): one element per unit */ \
      for (PetscInt i = 0; i < n; i++) { \
        const PetscInt o = orig[i]; \
        T             *d = dst + (di ? di[i] : i); \
        const T       *s = o >= 0 ? S + o : R + AIJHybridNodeOriginRecv(o); \
        const PetscInt k = 0; \
        STMT; \
      } \
      return; \
    } \
    for (PetscInt i = 0; i < n; i++) { \
      const PetscInt o = orig[i]; \
      if ((filter > 0 && o < 0) || (filter < 0 && o >= 0)) continue; \
      { \
        T       *d = dst + (di ? di[i] : i) * bs; \
        const T *s = o >= 0 ? S + o * bs : R + AIJHybridNodeOriginRecv(o) * bs; \
        for (PetscInt k = 0; k < bs; k++) STMT; \
      } \
    } \
  }

NA_KERNEL(Copy_Real, PetscReal, d[k] = s[k])
NA_KERNEL(Sum_Real, PetscReal, d[k] += s[k])
NA_KERNEL(Max_Real, PetscReal, d[k] = PetscMax(d[k], s[k]))
NA_KERNEL(Min_Real, PetscReal, d[k] = PetscMin(d[k], s[k]))
NA_KERNEL(Copy_PetscInt, PetscInt, d[k] = s[k])
NA_KERNEL(Sum_PetscInt, PetscInt, d[k] += s[k])
NA_KERNEL(Max_PetscInt, PetscInt, d[k] = PetscMax(d[k], s[k]))
NA_KERNEL(Min_PetscInt, PetscInt, d[k] = PetscMin(d[k], s[k]))
NA_KERNEL(Copy_Int, int, d[k] = s[k])
NA_KERNEL(Sum_Int, int, d[k] += s[k])
NA_KERNEL(Max_Int, int, d[k] = PetscMax(d[k], s[k]))
NA_KERNEL(Min_Int, int, d[k] = PetscMin(d[k], s[k]))
#if defined(PETSC_USE_COMPLEX)
NA_KERNEL(Copy_Complex, PetscComplex, d[k] = s[k])
NA_KERNEL(Sum_Complex, PetscComplex, d[k] += s[k])
#endif

/* the kernel of a (unit, op) the caller has accepted (Decode() in sfnodeaware.c) */
static NAKernel Kernel(NAUnit u, NAOp op, PetscInt *bs)
{
  *bs = u.bs;
  switch (u.base) {
  case NA_BASE_REAL:
    return op == NA_OP_SUM ? Sum_Real : op == NA_OP_MAX ? Max_Real : op == NA_OP_MIN ? Min_Real : Copy_Real;
  case NA_BASE_PETSCINT:
    return op == NA_OP_SUM ? Sum_PetscInt : op == NA_OP_MAX ? Max_PetscInt : op == NA_OP_MIN ? Min_PetscInt : Copy_PetscInt;
  case NA_BASE_INT:
    return op == NA_OP_SUM ? Sum_Int : op == NA_OP_MAX ? Max_Int : op == NA_OP_MIN ? Min_Int : Copy_Int;
  case NA_BASE_PAIR: /* pairs of int, moved only */
    *bs = 2 * u.bs;
    return Copy_Int;
#if defined(PETSC_USE_COMPLEX)
  case NA_BASE_COMPLEX:
    return op == NA_OP_SUM ? Sum_Complex : Copy_Complex;
#endif
  default:
    return NULL;
  }
}

static inline void Apply(NAUnit u, NAOp op, PetscInt n, const PetscInt *di, void *dst, const PetscInt *orig, const void *S, const void *R, PetscInt filter)
{
  PetscInt bs;
  NAKernel k = Kernel(u, op, &bs);

  if (n) k(n, bs, di, dst, orig, S, R, filter);
}

/* ---------------------------------------------------------------------------------------------- */
/* setup */

/*
  PetscSFNodeAwareNodeLabels_Private - collective on comm: a node label for every rank, the same for
  ranks of one node: emulated nodes of node_size consecutive ranks, or (node_size 0) the lowest rank
  sharing memory (MPI_COMM_TYPE_SHARED)
*/
PetscErrorCode PetscSFNodeAwareNodeLabels_Private(MPI_Comm comm, PetscInt node_size, PetscInt label[])
{
  PetscMPIInt size, rank, leader, *all;
  MPI_Comm    shm;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (node_size > 0) {
    for (PetscMPIInt p = 0; p < size; p++) label[p] = p / node_size;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
  PetscCallMPI(MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, shm));
  PetscCallMPI(MPI_Comm_free(&shm));
  PetscCall(PetscMalloc1(size, &all));
  PetscCallMPI(MPI_Allgather(&leader, 1, MPI_INT, all, 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) label[p] = all[p];
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one setup round: deliver out (this rank's messages) and receive in (sorted by source); collective */
static PetscErrorCode ExchangeMsgs(MPI_Comm comm, PetscMPIInt me, const AIJHybridNodeMsgs *out, AIJHybridNodeMsgs *in)
{
  PetscMPIInt  nto = 0, nfrom, *toranks, *fromranks, tag, *order, *peers;
  PetscInt    *tolen, *fromlen, **rbuf, selfi = -1, n, *lens;
  MPI_Request *reqs;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(out->n, &toranks, out->n, &tolen));
  for (PetscInt i = 0; i < out->n; i++) {
    if (out->peer[i] == me) {
      selfi = i;
      continue;
    }
    toranks[nto] = out->peer[i];
    tolen[nto++] = out->off[i + 1] - out->off[i];
  }
  PetscCall(PetscCommBuildTwoSided(comm, 1, MPIU_INT, nto, toranks, tolen, &nfrom, &fromranks, &fromlen));
  PetscCall(PetscCommGetNewTag(comm, &tag));
  PetscCall(PetscMalloc3(nfrom + nto, &reqs, nfrom, &rbuf, nfrom + 1, &order));
  for (PetscMPIInt i = 0; i < nfrom; i++) {
    PetscMPIInt cnt;
    PetscCall(PetscMalloc1(fromlen[i], &rbuf[i]));
    PetscCall(PetscMPIIntCast(fromlen[i], &cnt));
    PetscCallMPI(MPI_Irecv(rbuf[i], cnt, MPIU_INT, fromranks[i], tag, comm, &reqs[i]));
  }
  for (PetscInt i = 0, j = 0; i < out->n; i++) {
    PetscMPIInt cnt;
    if (i == selfi) continue;
    PetscCall(PetscMPIIntCast(out->off[i + 1] - out->off[i], &cnt));
    PetscCallMPI(MPI_Isend(out->data + out->off[i], cnt, MPIU_INT, out->peer[i], tag, comm, &reqs[nfrom + j++]));
  }
  PetscCallMPI(MPI_Waitall(nfrom + nto, reqs, MPI_STATUSES_IGNORE));
  /* sort by source, the message to itself at its place */
  n = nfrom + (selfi >= 0);
  PetscCall(PetscMalloc2(n, &peers, n, &lens));
  for (PetscMPIInt i = 0; i < nfrom; i++) {
    order[i] = i;
    peers[i] = fromranks[i];
  }
  if (selfi >= 0) {
    order[nfrom] = -1; /* the message to itself */
    peers[nfrom] = me;
  }
  PetscCall(PetscSortMPIIntWithArray((PetscMPIInt)n, peers, order));
  in->n = n;
  PetscCall(PetscMalloc1(n, &in->peer));
  PetscCall(PetscMalloc1(n + 1, &in->off));
  in->off[0] = 0;
  for (PetscInt k = 0; k < n; k++) {
    lens[k]        = order[k] < 0 ? out->off[selfi + 1] - out->off[selfi] : fromlen[order[k]];
    in->peer[k]    = peers[k];
    in->off[k + 1] = in->off[k] + lens[k];
  }
  PetscCall(PetscMalloc1(in->off[n], &in->data));
  for (PetscInt k = 0; k < n; k++) PetscCall(PetscArraycpy(in->data + in->off[k], order[k] < 0 ? out->data + out->off[selfi] : rbuf[order[k]], lens[k]));
  PetscCall(PetscFree2(peers, lens));
  for (PetscMPIInt i = 0; i < nfrom; i++) PetscCall(PetscFree(rbuf[i]));
  PetscCall(PetscFree3(reqs, rbuf, order));
  PetscCall(PetscFree(fromranks));
  PetscCall(PetscFree(fromlen));
  PetscCall(PetscFree2(toranks, tolen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collective: the plan of this rank's ghosts, compiled into the two schedules; the counts of the plan */
static PetscErrorCode BuildSchedules(PetscSF sf, const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscInt nghost, const PetscInt ghosts[])
{
  PetscSF_NodeAware *na   = (PetscSF_NodeAware *)sf->data;
  MPI_Comm           comm = PetscObjectComm((PetscObject)sf);
  PetscMPIInt        rank;
  AIJHybridNodeMsgs  o1 = {0}, i1 = {0}, o2 = {0}, i2 = {0}, o3 = {0}, i3 = {0};
  AIJHybridNodePlan  plan;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(AIJHybridNodePlanRequests(topo, ranges, rank, nghost, ghosts, &o1));
  PetscCall(ExchangeMsgs(comm, rank, &o1, &i1));
  PetscCall(AIJHybridNodePlanUnions(topo, ranges, rank, &i1, &o2));
  PetscCall(ExchangeMsgs(comm, rank, &o2, &i2));
  PetscCall(AIJHybridNodePlanSplit(topo, ranges, rank, &i2, &o3));
  PetscCall(ExchangeMsgs(comm, rank, &o3, &i3));
  PetscCall(AIJHybridNodePlanFinish(topo, ranges, rank, nghost, ghosts, &i1, &i2, &i3, &plan));
  PetscCall(AIJHybridNodeScheduleCreate(&plan, rank, PETSC_TRUE, &na->sched[NA_BCAST]));
  PetscCall(AIJHybridNodeScheduleCreate(&plan, rank, PETSC_FALSE, &na->sched[NA_REDUCE]));
  na->cnt_fwd = plan.forward;
  na->cnt_rev = plan.reverse;
  PetscCall(AIJHybridNodePlanDestroy(&plan));
  PetscCall(AIJHybridNodeMsgsDestroy(&o1));
  PetscCall(AIJHybridNodeMsgsDestroy(&i1));
  PetscCall(AIJHybridNodeMsgsDestroy(&o2));
  PetscCall(AIJHybridNodeMsgsDestroy(&i2));
  PetscCall(AIJHybridNodeMsgsDestroy(&o3));
  PetscCall(AIJHybridNodeMsgsDestroy(&i3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a leaf on another rank's root: its global root number, owner rank and position among the leaves */
typedef struct {
  PetscInt    g, i;
  PetscMPIInt rank;
} RemoteLeaf;

static int CmpByRoot(const void *a, const void *b)
{
  const RemoteLeaf *x = (const RemoteLeaf *)a, *y = (const RemoteLeaf *)b;
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  return x->i < y->i ? -1 : (x->i > y->i);
}

static int CmpByRank(const void *a, const void *b)
{
  const RemoteLeaf *x = (const RemoteLeaf *)a, *y = (const RemoteLeaf *)b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return x->i < y->i ? -1 : (x->i > y->i);
}

/* the messages basic sends in one broadcast: one per leaf rank of this rank's roots */
static PetscErrorCode BasicCounts(PetscSF sf, const AIJHybridNodeTopo *topo)
{
  PetscSF_NodeAware   *na = (PetscSF_NodeAware *)sf->data;
  AIJHybridSFRankCount niranks;
  const PetscMPIInt   *iranks;
  const PetscInt      *ioffset;
  PetscMPIInt          rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sf), &rank));
  PetscCall(PetscSFGetLeafRanks(na->basic, &niranks, &iranks, &ioffset, NULL));
  for (PetscInt i = 0; i < (PetscInt)niranks; i++) {
    const PetscInt inter = topo->node[iranks[i]] != topo->node[rank];
    if (iranks[i] == rank || ioffset[i + 1] == ioffset[i]) continue;
    na->cnt_basic.msgs[inter]++;
    na->cnt_basic.entries[inter] += ioffset[i + 1] - ioffset[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PetscSFNodeAwareBuild_Private - collective: everything the node-aware operations need, for the
  current graph and node size
*/
PetscErrorCode PetscSFNodeAwareBuild_Private(PetscSF sf)
{
  PetscSF_NodeAware *na   = (PetscSF_NodeAware *)sf->data;
  MPI_Comm           comm = PetscObjectComm((PetscObject)sf);
  PetscMPIInt        size, rank, bad[2]       = {0, 0}, gbad[2];
  PetscInt           nroots, nleaves, nremote = 0, *label, *nr, *ranges, *ghosts, *leafghost;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;
  AIJHybridNodeTopo  topo;
  RemoteLeaf        *rl;

  PetscFunctionBegin;
  PetscCheck(sf->pattern == PETSCSF_PATTERN_GENERAL, comm, PETSC_ERR_SUP, "PetscSF type %s needs a general graph (PetscSFSetGraph()), not one set with PetscSFSetGraphWithPattern()", PETSCSFNODEAWARE);
  PetscCall(PetscLogEventBegin(PETSCSF_NodeAwareSetUp, sf, 0, 0, 0));
  PetscCall(PetscSFNodeAwareFree_Private(sf));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &ilocal, &iremote));

  /* PETSc's own rank fields of the SF (PetscSFGetRootRanks(), PetscSFView()), set up as basic does */
  if (sf->nranks < 0) {
    MPI_Group group;
    PetscCallMPI(MPI_Comm_group(PETSC_COMM_SELF, &group));
    PetscCall(PetscSFSetUpRanks(sf, group));
    PetscCallMPI(MPI_Group_free(&group));
  }
  /* the basic SF of the same graph */
  PetscCall(PetscSFCreate(comm, &na->basic));
  PetscCall(PetscSFSetType(na->basic, PETSCSFBASIC));
  na->basic->allow_multi_leaves = sf->allow_multi_leaves;
  PetscCall(PetscSFSetGraph(na->basic, nroots, nleaves, (PetscInt *)ilocal, PETSC_COPY_VALUES, (PetscSFNode *)iremote, PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(na->basic));

  /* nodes, and the roots numbered globally in rank order */
  PetscCall(PetscMalloc3(size, &label, size, &nr, size + 1, &ranges));
  PetscCall(PetscSFNodeAwareNodeLabels_Private(comm, na->node_size, label));
  PetscCall(AIJHybridNodeTopoCreate(size, label, &topo));
  na->nnodes     = topo.nnodes;
  na->plain      = (PetscBool)(topo.nnodes == 1 || topo.nnodes == size);
  na->node       = topo.node[rank];
  na->node_ranks = topo.nptr[na->node + 1] - topo.nptr[na->node];
  PetscCallMPI(MPI_Allgather(&nroots, 1, MPIU_INT, nr, 1, MPIU_INT, comm));
  ranges[0] = 0;
  for (PetscMPIInt p = 0; p < size; p++) ranges[p + 1] = ranges[p] + nr[p];

  /* the leaves: on this rank's roots (in leaf order), and on other ranks' roots */
  for (PetscInt i = 0; i < nleaves; i++) {
    if (iremote[i].rank < 0 || iremote[i].rank >= size || iremote[i].index < 0 || iremote[i].index >= nr[iremote[i].rank]) bad[0] = 1;
    else if (iremote[i].rank == rank) na->nlocal++;
    else nremote++;
  }
  PetscCall(PetscMalloc2(na->nlocal, &na->lroot, na->nlocal, &na->lleaf));
  PetscCall(PetscMalloc1(nremote, &rl));
  if (!bad[0]) {
    for (PetscInt i = 0, l = 0, m = 0; i < nleaves; i++) {
      if (iremote[i].rank == rank) {
        na->lroot[l]   = iremote[i].index;
        na->lleaf[l++] = ilocal ? ilocal[i] : i;
      } else {
        rl[m].g      = ranges[iremote[i].rank] + iremote[i].index;
        rl[m].i      = i;
        rl[m++].rank = (PetscMPIInt)iremote[i].rank;
      }
    }
  }
  if (bad[0]) nremote = 0; /* rl is not filled: the error follows on every rank */
  /* the ghosts: distinct roots of other ranks, ascending; leaf -> ghost */
  if (nremote) qsort(rl, (size_t)nremote, sizeof(RemoteLeaf), CmpByRoot);
  PetscCall(PetscMalloc1(nremote, &ghosts));
  PetscCall(PetscMalloc1(nleaves, &leafghost));
  na->nghost = 0;
  for (PetscInt m = 0; m < nremote; m++) {
    if (m == 0 || rl[m].g != rl[m - 1].g) ghosts[na->nghost++] = rl[m].g;
    else bad[1] = 1; /* several leaves on one remote root */
    leafghost[rl[m].i] = na->nghost - 1;
  }
  PetscCallMPI(MPI_Allreduce(bad, gbad, 2, MPI_INT, MPI_MAX, comm));
  if (gbad[0]) {
    PetscCall(PetscFree(ghosts));
    PetscCall(PetscFree(leafghost));
    PetscCall(PetscFree(rl));
    PetscCall(PetscFree3(label, nr, ranges));
    PetscCall(AIJHybridNodeTopoDestroy(&topo));
    PetscCall(PetscLogEventEnd(PETSCSF_NodeAwareSetUp, sf, 0, 0, 0));
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "A leaf of some rank references a root that does not exist (rank out of the communicator, or index out of that rank's roots)");
  }
  na->dupleaves = (PetscBool)gbad[1];

  PetscCall(BuildSchedules(sf, &topo, ranges, na->nghost, ghosts));
  PetscCall(BasicCounts(sf, &topo));

  /* broadcast: unpack in basic's order, by root rank and then leaf */
  na->nfwd = nremote;
  PetscCall(PetscMalloc2(nremote, &na->fleaf, nremote, &na->forig));
  if (nremote) qsort(rl, (size_t)nremote, sizeof(RemoteLeaf), CmpByRank);
  for (PetscInt m = 0; m < nremote; m++) {
    na->fleaf[m] = ilocal ? ilocal[rl[m].i] : rl[m].i;
    na->forig[m] = na->sched[NA_BCAST].outorig[leafghost[rl[m].i]];
  }
  /* reduction: each ghost's contribution is its first leaf, combined with its further leaves in leaf order */
  {
    PetscBool *seen;
    PetscCall(PetscCalloc1(na->nghost, &seen));
    for (PetscInt m = 0; m < nremote; m++) {
      if (!seen[leafghost[rl[m].i]]) na->nrev1++;
      seen[leafghost[rl[m].i]] = PETSC_TRUE;
    }
    na->nrev2 = nremote - na->nrev1;
    PetscCall(PetscMalloc4(na->nrev1, &na->r1leaf, na->nrev1, &na->r1ghost, na->nrev2, &na->r2leaf, na->nrev2, &na->r2ghost));
    PetscCall(PetscArrayzero(seen, na->nghost));
    for (PetscInt i = 0, a = 0, b = 0; i < nleaves; i++) {
      PetscInt k, loc;
      if (iremote[i].rank == rank) continue;
      k   = leafghost[i];
      loc = ilocal ? ilocal[i] : i;
      if (!seen[k]) {
        na->r1leaf[a]    = loc;
        na->r1ghost[a++] = k;
      } else {
        na->r2leaf[b]    = loc;
        na->r2ghost[b++] = k;
      }
      seen[k] = PETSC_TRUE;
    }
    PetscCall(PetscFree(seen));
  }
  PetscCall(PetscFree(ghosts));
  PetscCall(PetscFree(leafghost));
  PetscCall(PetscFree(rl));
  PetscCall(PetscFree3(label, nr, ranges));
  PetscCall(AIJHybridNodeTopoDestroy(&topo));
  na->built           = PETSC_TRUE;
  na->built_node_size = na->node_size;
  PetscCall(PetscLogEventEnd(PETSCSF_NodeAwareSetUp, sf, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* links */

static PetscErrorCode LinkCreate(PetscSF sf, PetscInt dir, size_t ub, NALink *out)
{
  PetscSF_NodeAware           *na   = (PetscSF_NodeAware *)sf->data;
  const AIJHybridNodeSchedule *s    = &na->sched[dir];
  MPI_Comm                     comm = PetscObjectComm((PetscObject)sf);
  NALink                       link;
  PetscMPIInt                  iub;

  PetscFunctionBegin;
  PetscCall(PetscNew(&link));
  link->dir       = dir;
  link->unitbytes = ub;
  PetscCall(PetscMPIIntCast((PetscInt)ub, &iub));
  PetscCallMPI(MPI_Type_contiguous(iub, MPI_BYTE, &link->mpiunit));
  PetscCallMPI(MPI_Type_commit(&link->mpiunit));
  PetscCall(PetscMalloc((size_t)s->nsbuf * ub, &link->sbuf));
  PetscCall(PetscMalloc((size_t)s->nrbuf * ub, &link->rbuf));
  PetscCall(PetscMalloc(dir == NA_REDUCE ? (size_t)na->nghost * ub : 0, &link->cbuf));
  for (PetscInt p = 0; p < 3; p++) {
    const AIJHybridNodeStep *st = &s->step[p];
    PetscMPIInt              tag, cnt;

    PetscCall(PetscObjectGetNewTag((PetscObject)sf, &tag));
    PetscCall(PetscMalloc1(st->nrecv, &link->rreq[p]));
    PetscCall(PetscMalloc1(st->nsend, &link->sreq[p]));
    for (PetscInt j = 0; j < st->nrecv; j++) {
      PetscCall(PetscMPIIntCast(st->roff[j + 1] - st->roff[j], &cnt));
      PetscCallMPI(MPI_Recv_init(link->rbuf + (size_t)st->roff[j] * ub, cnt, link->mpiunit, st->rsrc[j], tag, comm, &link->rreq[p][j]));
    }
    for (PetscInt i = 0; i < st->nsend; i++) {
      PetscCall(PetscMPIIntCast(st->soff[i + 1] - st->soff[i], &cnt));
      PetscCallMPI(MPI_Send_init(link->sbuf + (size_t)st->soff[i] * ub, cnt, link->mpiunit, st->sdest[i], tag, comm, &link->sreq[p][i]));
    }
    PetscCall(PetscMPIIntCast(st->nrecv, &link->nrreq[p]));
    PetscCall(PetscMPIIntCast(st->nsend, &link->nsreq[p]));
  }
  *out = link;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LinkDestroy(NALink *link)
{
  NALink l = *link;

  PetscFunctionBegin;
  for (PetscInt p = 0; p < 3; p++) {
    for (PetscMPIInt j = 0; j < l->nrreq[p]; j++) PetscCallMPI(MPI_Request_free(&l->rreq[p][j]));
    for (PetscMPIInt i = 0; i < l->nsreq[p]; i++) PetscCallMPI(MPI_Request_free(&l->sreq[p][i]));
    PetscCall(PetscFree(l->rreq[p]));
    PetscCall(PetscFree(l->sreq[p]));
  }
  PetscCall(PetscFree(l->sbuf));
  PetscCall(PetscFree(l->rbuf));
  PetscCall(PetscFree(l->cbuf));
  PetscCallMPI(MPI_Type_free(&l->mpiunit));
  PetscCall(PetscFree(*link));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* free what PetscSFNodeAwareBuild_Private() built (no operation may be in flight) */
PetscErrorCode PetscSFNodeAwareFree_Private(PetscSF sf)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  PetscCheck(!na->inuse && !na->nfb, PetscObjectComm((PetscObject)sf), PETSC_ERR_ARG_WRONGSTATE,
             "PetscSF of type %s reset, destroyed or rebuilt with an operation in flight: end it first (PetscSFBcastEnd(), PetscSFReduceEnd(), PetscSFFetchAndOpEnd(), ...)", PETSCSFNODEAWARE);
  while (na->avail) {
    NALink next = na->avail->next;
    PetscCall(LinkDestroy(&na->avail));
    na->avail = next;
  }
  for (PetscInt d = 0; d < 2; d++) PetscCall(AIJHybridNodeScheduleDestroy(&na->sched[d]));
  PetscCall(PetscFree2(na->lroot, na->lleaf));
  PetscCall(PetscFree2(na->fleaf, na->forig));
  PetscCall(PetscFree4(na->r1leaf, na->r1ghost, na->r2leaf, na->r2ghost));
  PetscCall(PetscSFDestroy(&na->basic));
  PetscCall(PetscMemzero(&na->cnt_basic, sizeof(AIJHybridNodeCounts)));
  PetscCall(PetscMemzero(&na->cnt_fwd, sizeof(AIJHybridNodeCounts)));
  PetscCall(PetscMemzero(&na->cnt_rev, sizeof(AIJHybridNodeCounts)));
  na->nlocal = na->nghost = na->nfwd = na->nrev1 = na->nrev2 = 0;
  na->built                                                  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* operations */

/* the source array of a link's schedule: the roots (broadcast) or the per-ghost contributions (reduction) */
static inline const void *Source(NALink link)
{
  return link->dir == NA_BCAST ? link->rootdata : (const void *)link->cbuf;
}

/* step st's send buffer: the entries of its origins, filter as Apply()'s (R: the receive buffer) */
static inline void Pack(NALink link, const AIJHybridNodeStep *st, const void *R, PetscInt filter)
{
  Apply(link->u, NA_OP_REPLACE, st->soff[st->nsend] - st->soff[0], NULL, link->sbuf + (size_t)st->soff[0] * link->unitbytes, st->sorig, Source(link), R, filter);
}

/* start the sends of step q (st), its buffer packed */
static PetscErrorCode StartSends(NALink link, const AIJHybridNodeStep *st, PetscInt q)
{
  PetscMPIInt cnt;

  PetscFunctionBegin;
  PetscCall(PetscMPIIntCast(st->soff[st->nsend] - st->soff[0], &cnt));
  if (link->nsreq[q]) PetscCallMPI(MPI_Startall_isend(cnt, link->mpiunit, link->nsreq[q], link->sreq[q]));
  link->started[q] = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscSFNodeAwareBegin_Private(PetscSF sf, PetscInt dir, MPI_Datatype unit, NAUnit u, NAOp op, const void *rootdata, const void *leafdata)
{
  PetscSF_NodeAware           *na   = (PetscSF_NodeAware *)sf->data;
  const AIJHybridNodeSchedule *s    = &na->sched[dir];
  NALink                       link = NULL, *p;

  PetscFunctionBegin;
  for (p = &na->avail; *p; p = &(*p)->next) {
    if ((*p)->dir == dir && (*p)->unitbytes == u.unitbytes) {
      link = *p;
      *p   = link->next;
      break;
    }
  }
  if (!link) PetscCall(LinkCreate(sf, dir, u.unitbytes, &link));
  link->unit     = unit;
  link->u        = u;
  link->op       = op;
  link->rootdata = rootdata;
  link->leafdata = leafdata;
  link->next     = NULL;
  for (PetscInt q = 0; q < 3; q++) link->started[q] = PETSC_FALSE;
  for (p = &na->inuse; *p; p = &(*p)->next) { }
  *p = link; /* in the order the operations began */

  if (dir == NA_REDUCE) { /* each ghost's contribution, from this rank's leaves in leaf order */
    Apply(u, NA_OP_REPLACE, na->nrev1, na->r1ghost, link->cbuf, na->r1leaf, leafdata, NULL, 0);
    Apply(u, op, na->nrev2, na->r2ghost, link->cbuf, na->r2leaf, leafdata, NULL, 0);
  }
  for (PetscInt q = 0; q < 3; q++) { /* PETSc's message log counts them (-log_view), as basic's */
    const AIJHybridNodeStep *st = &s->step[q];
    PetscMPIInt              cnt;
    PetscCall(PetscMPIIntCast(st->roff[st->nrecv] - st->roff[0], &cnt));
    if (link->nrreq[q]) PetscCallMPI(MPI_Startall_irecv(cnt, link->mpiunit, link->nrreq[q], link->rreq[q]));
  }
  for (PetscInt q = 0; q < 3; q++) {
    const AIJHybridNodeStep *st = &s->step[q];
    Pack(link, st, NULL, st->from_src ? 0 : 1);
    if (st->from_src) PetscCall(StartSends(link, st, q));
  }
  /* the leaves on this rank's roots, as basic does at begin */
  if (dir == NA_BCAST) Apply(u, op, na->nlocal, na->lleaf, (void *)leafdata, na->lroot, rootdata, NULL, 0);
  else Apply(u, op, na->nlocal, na->lroot, (void *)rootdata, na->lleaf, leafdata, NULL, 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* receives of steps before q complete? (wait for them, or test) */
static PetscErrorCode ReceivesDone(NALink link, PetscInt q, PetscBool wait, PetscBool *done)
{
  PetscFunctionBegin;
  *done = PETSC_TRUE;
  for (PetscInt p = 0; p < q; p++) {
    if (!link->nrreq[p]) continue;
    if (wait) PetscCallMPI(MPI_Waitall(link->nrreq[p], link->rreq[p], MPI_STATUSES_IGNORE));
    else {
      int flag;
      PetscCallMPI(MPI_Testall(link->nrreq[p], link->rreq[p], &flag, MPI_STATUSES_IGNORE));
      if (!flag) {
        *done = PETSC_FALSE;
        break;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* start every step of link whose receives are in; done: all started and all receives in */
static PetscErrorCode Advance(PetscSF sf, NALink link, PetscBool wait, PetscBool *done)
{
  PetscSF_NodeAware           *na = (PetscSF_NodeAware *)sf->data;
  const AIJHybridNodeSchedule *s  = &na->sched[link->dir];

  PetscFunctionBegin;
  for (PetscInt q = 0; q < 3; q++) {
    const AIJHybridNodeStep *st = &s->step[q];
    if (link->started[q]) continue;
    PetscCall(ReceivesDone(link, q, wait, done));
    if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
    Pack(link, st, link->rbuf, -1);
    PetscCall(StartSends(link, st, q));
  }
  PetscCall(ReceivesDone(link, 3, wait, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* end the operation of link (taken from the in-use list by the caller's lookup) */
PetscErrorCode PetscSFNodeAwareEnd_Private(PetscSF sf, NALink link)
{
  PetscSF_NodeAware           *na = (PetscSF_NodeAware *)sf->data;
  const AIJHybridNodeSchedule *s  = &na->sched[link->dir];
  PetscBool                    done;
  NALink                      *p;

  PetscFunctionBegin;
  if (na->inuse == link && !link->next) PetscCall(Advance(sf, link, PETSC_TRUE, &done));
  else {
    do { /* others in flight: this rank may have to relay for them before peers can serve this one */
      PetscCall(Advance(sf, link, PETSC_FALSE, &done));
      if (done) break;
      for (NALink other = na->inuse; other; other = other->next) {
        PetscBool d;
        if (other != link) PetscCall(Advance(sf, other, PETSC_FALSE, &d));
      }
    } while (!done);
  }
  if (link->dir == NA_BCAST) Apply(link->u, link->op, na->nfwd, na->fleaf, (void *)link->leafdata, na->forig, link->rootdata, link->rbuf, 0);
  else Apply(link->u, link->op, s->nout, s->outidx, (void *)link->rootdata, s->outorig, link->cbuf, link->rbuf, 0);
  for (PetscInt q = 0; q < 3; q++)
    if (link->nsreq[q]) PetscCallMPI(MPI_Waitall(link->nsreq[q], link->sreq[q], MPI_STATUSES_IGNORE));
  for (p = &na->inuse; *p != link; p = &(*p)->next) { }
  *p             = link->next;
  link->rootdata = link->leafdata = NULL;
  link->next                      = na->avail;
  na->avail                       = link;
  PetscFunctionReturn(PETSC_SUCCESS);
}
