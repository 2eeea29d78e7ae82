/*
   The node-aware PetscSF type, part 2: the collective setup and the node-aware operations.

   Setup (PetscSFNodeAwareBuild_Private): the roots get a global numbering (rank order); the
   distinct roots of other ranks that this rank's leaves reference are its "ghosts", the input of
   the pure plan builder (nodeplan.c), whose three rounds of sparse messages run here; each direction
   of the plan is compiled into a schedule (copies of a rank to itself folded away), and the leaves
   are listed in the orders PETSCSFBASIC uses, so that results are bitwise the same. Messages whose
   entries are consecutive in the source are sent from it, and broadcast messages that go to
   consecutive leaves are received into them (MPI_REPLACE), as basic does for contiguous indices.

   An operation (PetscSFNodeAwareBegin/End_Private) uses a link: buffers and persistent requests for
   one direction and unit size, created on first use and kept (a request is initialized again when
   its message's buffer moves, e.g. a broadcast into other leaves). Begin posts every receive, packs
   every entry that comes from the source array, does the leaves on this rank's own roots (as basic
   does at begin) and starts the steps that need nothing else. End starts each remaining step once
   the receives it forwards have arrived, waits, and applies what arrived to the leaves (broadcast)
   or roots (reduction). While one operation of the SF waits, the others in flight are advanced
   too: a rank may relay for another operation that its peers end first.
*/
#include "sfnodeawareimpl.h"

/* ---------------------------------------------------------------------------------------------- */
/* kernels: dst[di[i]] (dst[i] when di is NULL) op= the unit at orig[i] (>= 0: S, < 0: R), unit by unit;
   filter > 0 only the entries from S, < 0 only those from R, 0 all; orig NULL: the origins are
   consecutive, from S on */

typedef void (*NAKernel)(PetscInt, PetscInt, const PetscInt *, void *, const PetscInt *, const void *, const void *, PetscInt);

#define NA_KERNEL(NAME, T, STMT) \
  static void NAME(PetscInt n, PetscInt bs, const PetscInt *di, void *dstv, const PetscInt *orig, const void *Sv, const void *Rv, PetscInt filter) \
  { \
    T       *dst = (T *)dstv; \
    const T *S = (const T *)Sv, *R = (const T *)Rv; \
    if (!orig) { /* a run of consecutive origins: S points at the first */ \
      for (PetscInt i = 0; i < n; i++) { \
        T       *d = dst + (di ? di[i] : i) * bs; \
        const T *s = S + i * bs; \
        for (PetscInt k = 0; k < bs; k++) STMT; \
      } \
      return; \
    } \
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

/* the kernel of a (unit, op) the caller has accepted (PetscSFNodeAwareDecode_Private() in sfnodeaware.c) */
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

/* runs [r0, r1) of a list (see NARuns): memcpy for a replace into consecutive destinations, the kernel from the run's consecutive origins otherwise */
static void ApplyRuns(NAUnit u, NAOp op, const NARuns *runs, PetscInt r0, PetscInt r1, const PetscInt *di, void *dst, const PetscInt *orig, const void *S, const void *R, PetscInt filter)
{
  const size_t ub = u.unitbytes;
  PetscInt     bs;
  NAKernel     k = Kernel(u, op, &bs);

  for (PetscInt r = r0; r < r1; r++) {
    const PetscInt i0 = runs->start[r], n = runs->start[r + 1] - i0, o = orig[i0];
    const char    *src;
    if ((filter > 0 && o < 0) || (filter < 0 && o >= 0) || !n) continue; /* a run keeps to one side */
    src = o >= 0 ? (const char *)S + (size_t)o * ub : (const char *)R + (size_t)AIJHybridNodeOriginRecv(o) * ub;
    if (op == NA_OP_REPLACE && (!di || runs->contig[r])) memcpy((char *)dst + (size_t)(di ? di[i0] : i0) * ub, src, (size_t)n * ub);
    else if (di) k(n, bs, di + i0, dst, NULL, src, NULL, 0);
    else k(n, bs, NULL, (char *)dst + (size_t)i0 * ub, NULL, src, NULL, 0);
  }
}

/* a whole list: run by run when its runs are long, pair by pair otherwise (and always when the arrays may overlap) */
static inline void ApplyList(NAUnit u, NAOp op, const NARuns *runs, PetscBool noalias, PetscInt n, const PetscInt *di, void *dst, const PetscInt *orig, const void *S, const void *R, PetscInt filter)
{
  if (runs->use && noalias) ApplyRuns(u, op, runs, 0, runs->nr, di, dst, orig, S, R, filter);
  else Apply(u, op, n, di, dst, orig, S, R, filter);
}

/* ---------------------------------------------------------------------------------------------- */
/* setup */

/* cut n pairs (di[i] or i, orig[i]) into runs of consecutive origins; also at the positions in cut[0..ncut) (message boundaries) */
static PetscErrorCode RunsCreate(PetscInt n, const PetscInt *di, const PetscInt *orig, PetscInt ncut, const PetscInt *cut, NARuns *runs)
{
  PetscInt c = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n + 1, &runs->start, n, &runs->contig));
  runs->nr = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscBool brk = (PetscBool)(i == 0);
    while (c < ncut && cut[c] < i) c++;
    if (c < ncut && cut[c] == i) brk = PETSC_TRUE;
    if (!brk) brk = (PetscBool)(orig[i] != orig[i - 1] + 1 || (orig[i] < 0) != (orig[i - 1] < 0));
    if (brk) {
      runs->contig[runs->nr]  = PETSC_TRUE;
      runs->start[runs->nr++] = i;
    } else if (di && di[i] != di[i - 1] + 1) runs->contig[runs->nr - 1] = PETSC_FALSE;
  }
  runs->start[runs->nr] = n;
  runs->use             = (PetscBool)(n && 4 * runs->nr <= n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunsDestroy(NARuns *runs)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(runs->start, runs->contig));
  runs->nr  = 0;
  runs->use = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the runs of every list the operations walk */
static PetscErrorCode BuildRuns(PetscSF sf)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  PetscCall(RunsCreate(na->nlocal, na->lleaf, na->lroot, 0, NULL, &na->run_local[NA_BCAST]));
  PetscCall(RunsCreate(na->nlocal, na->lroot, na->lleaf, 0, NULL, &na->run_local[NA_REDUCE]));
  PetscCall(RunsCreate(na->nfwd, na->fleaf, na->forig, 0, NULL, &na->run_fwd));
  PetscCall(RunsCreate(na->nfwd_nd, na->fleaf_nd, na->forig_nd, 0, NULL, &na->run_fwd_nd));
  PetscCall(RunsCreate(na->sched[NA_REDUCE].nout, na->sched[NA_REDUCE].outidx, na->sched[NA_REDUCE].outorig, 0, NULL, &na->run_rev));
  PetscCall(RunsCreate(na->nrev1, na->r1ghost, na->r1leaf, 0, NULL, &na->run_r1));
  for (PetscInt d = 0; d < 2; d++) {
    for (PetscInt p = 0; p < 3; p++) {
      const AIJHybridNodeStep *st = &na->sched[d].step[p];
      const PetscInt           n  = st->soff[st->nsend] - st->soff[0];
      PetscInt                *cut;
      PetscCall(PetscMalloc1(st->nsend, &cut));
      for (PetscInt i = 0; i < st->nsend; i++) cut[i] = st->soff[i] - st->soff[0];
      PetscCall(RunsCreate(n, NULL, st->sorig, st->nsend, cut, &na->run_send[d][p]));
      PetscCall(PetscFree(cut));
      PetscCall(PetscMalloc1(st->nsend + 1, &na->run_msg[d][p]));
      PetscCall(PetscMalloc1(st->nsend, &na->run_msg_use[d][p]));
      for (PetscInt i = 0, r = 0; i <= st->nsend; i++) {
        const PetscInt e = i < st->nsend ? st->soff[i] - st->soff[0] : n;
        while (r < na->run_send[d][p].nr && na->run_send[d][p].start[r] < e) r++;
        na->run_msg[d][p][i] = r;
      }
      for (PetscInt i = 0; i < st->nsend; i++) na->run_msg_use[d][p][i] = (PetscBool)(4 * (na->run_msg[d][p][i + 1] - na->run_msg[d][p][i]) <= st->soff[i + 1] - st->soff[i]);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
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
  for (PetscInt w = 0; w < 2; w++) {
    na->cnt_fwd.msgs[w]    = plan.forward.msgs[w];
    na->cnt_fwd.entries[w] = plan.forward.entries[w];
    na->cnt_rev.msgs[w]    = plan.reverse.msgs[w];
    na->cnt_rev.entries[w] = plan.reverse.entries[w];
  }
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

/* ---------------------------------------------------------------------------------------------- */
/* messages without a copy */

/*
  The messages that need no copy: a message whose entries are consecutive entries of the source is
  sent from the source (the roots of a broadcast, the leaves or contributions of a reduction); a
  broadcast message whose entries each go to one leaf, at consecutive leaf locations, and nowhere
  else, is received into the leaves when the operation is MPI_REPLACE. With one rank per node and
  contiguous ghosts (a matrix's halo) a broadcast is then, as basic's, a message from the roots into
  the leaves.
*/
static PetscErrorCode BuildDirect(PetscSF sf)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;
  PetscInt          *uses, *leafof;
  const PetscInt     nrb = na->sched[NA_BCAST].nrbuf;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 2; d++) {
    for (PetscInt p = 0; p < 3; p++) {
      const AIJHybridNodeStep *st = &na->sched[d].step[p];
      PetscCall(PetscMalloc1(st->nsend, &na->sdirect[d][p]));
      for (PetscInt i = 0; i < st->nsend; i++) {
        const PetscInt *o = st->sorig + st->soff[i] - st->soff[0], n = st->soff[i + 1] - st->soff[i];
        PetscBool       run = (PetscBool)(n > 0 && o[0] >= 0);
        for (PetscInt e = 1; run && e < n; e++) run = (PetscBool)(o[e] == o[0] + e);
        na->sdirect[d][p][i] = run ? o[0] : -1;
      }
    }
  }
  /* reduction: the contributions are the leaves themselves when each ghost has one leaf, at leaf base + ghost */
  na->rev_leaves = (PetscBool)(na->nrev2 == 0);
  na->revbase    = na->nrev1 ? na->r1leaf[0] - na->r1ghost[0] : 0;
  for (PetscInt a = 0; a < na->nrev1 && na->rev_leaves; a++) na->rev_leaves = (PetscBool)(na->r1leaf[a] == na->revbase + na->r1ghost[a]);
  /* broadcast: receive entries used once, by one leaf */
  PetscCall(PetscCalloc2(nrb, &uses, nrb, &leafof));
  for (PetscInt p = 0; p < 3; p++) {
    const AIJHybridNodeStep *st = &na->sched[NA_BCAST].step[p];
    for (PetscInt e = 0; e < st->soff[st->nsend] - st->soff[0]; e++)
      if (st->sorig[e] < 0) uses[AIJHybridNodeOriginRecv(st->sorig[e])] += 2; /* forwarded: never in place */
  }
  for (PetscInt m = 0; m < na->nfwd; m++) {
    if (na->forig[m] >= 0) continue;
    uses[AIJHybridNodeOriginRecv(na->forig[m])]++;
    leafof[AIJHybridNodeOriginRecv(na->forig[m])] = na->fleaf[m];
  }
  for (PetscInt p = 0; p < 3; p++) {
    const AIJHybridNodeStep *st = &na->sched[NA_BCAST].step[p];
    PetscCall(PetscMalloc1(st->nrecv, &na->rdirect[p]));
    for (PetscInt j = 0; j < st->nrecv; j++) {
      PetscBool run = (PetscBool)(!sf->allow_multi_leaves && st->roff[j + 1] > st->roff[j]);
      for (PetscInt r = st->roff[j]; run && r < st->roff[j + 1]; r++) run = (PetscBool)(uses[r] == 1 && leafof[r] == leafof[st->roff[j]] + (r - st->roff[j]));
      na->rdirect[p][j] = run ? leafof[st->roff[j]] : -1;
      if (run)
        for (PetscInt r = st->roff[j]; r < st->roff[j + 1]; r++) uses[r] = -1; /* received in place */
    }
  }
  PetscCall(PetscMalloc2(na->nfwd, &na->fleaf_nd, na->nfwd, &na->forig_nd));
  na->nfwd_nd = 0;
  for (PetscInt m = 0; m < na->nfwd; m++) {
    if (na->forig[m] < 0 && uses[AIJHybridNodeOriginRecv(na->forig[m])] == -1) continue;
    na->fleaf_nd[na->nfwd_nd]   = na->fleaf[m];
    na->forig_nd[na->nfwd_nd++] = na->forig[m];
  }
  PetscCall(PetscFree2(uses, leafof));
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
  PetscMPIInt        size, rank, bad[2] = {0, 0}, gbad[2];
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
  PetscCall(BuildDirect(sf));
  PetscCall(BuildRuns(sf));
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
  PetscSF_NodeAware           *na = (PetscSF_NodeAware *)sf->data;
  const AIJHybridNodeSchedule *s  = &na->sched[dir];
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
  PetscCall(PetscMalloc(dir == NA_REDUCE && !na->rev_leaves ? (size_t)na->nghost * ub : 0, &link->cbuf));
  for (PetscInt p = 0; p < 3; p++) {
    PetscCall(PetscMPIIntCast(s->step[p].nrecv, &link->nrreq[p]));
    PetscCall(PetscMPIIntCast(s->step[p].nsend, &link->nsreq[p]));
    PetscCall(PetscMalloc2(link->nrreq[p], &link->rreq[p], link->nrreq[p], &link->rbufp[p]));
    PetscCall(PetscMalloc2(link->nsreq[p], &link->sreq[p], link->nsreq[p], &link->sbufp[p]));
    for (PetscMPIInt j = 0; j < link->nrreq[p]; j++) link->rreq[p][j] = MPI_REQUEST_NULL;
    for (PetscMPIInt i = 0; i < link->nsreq[p]; i++) link->sreq[p][i] = MPI_REQUEST_NULL;
  }
  *out = link;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LinkDestroy(NALink *link)
{
  NALink l = *link;

  PetscFunctionBegin;
  for (PetscInt p = 0; p < 3; p++) {
    for (PetscMPIInt j = 0; j < l->nrreq[p]; j++)
      if (l->rreq[p][j] != MPI_REQUEST_NULL) PetscCallMPI(MPI_Request_free(&l->rreq[p][j]));
    for (PetscMPIInt i = 0; i < l->nsreq[p]; i++)
      if (l->sreq[p][i] != MPI_REQUEST_NULL) PetscCallMPI(MPI_Request_free(&l->sreq[p][i]));
    PetscCall(PetscFree2(l->rreq[p], l->rbufp[p]));
    PetscCall(PetscFree2(l->sreq[p], l->sbufp[p]));
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
  PetscCheck(!na->inuse && !na->nfb, PetscObjectComm((PetscObject)sf), PETSC_ERR_ARG_WRONGSTATE, "PetscSF of type %s reset, destroyed or rebuilt with an operation in flight: end it first (PetscSFBcastEnd(), PetscSFReduceEnd(), PetscSFFetchAndOpEnd(), ...)", PETSCSFNODEAWARE);
  while (na->avail) {
    NALink next = na->avail->next;
    PetscCall(LinkDestroy(&na->avail));
    na->avail = next;
  }
  for (PetscInt d = 0; d < 2; d++) {
    PetscCall(AIJHybridNodeScheduleDestroy(&na->sched[d]));
    for (PetscInt p = 0; p < 3; p++) {
      PetscCall(PetscFree(na->sdirect[d][p]));
      PetscCall(RunsDestroy(&na->run_send[d][p]));
      PetscCall(PetscFree(na->run_msg[d][p]));
      PetscCall(PetscFree(na->run_msg_use[d][p]));
    }
  }
  PetscCall(RunsDestroy(&na->run_local[NA_BCAST]));
  PetscCall(RunsDestroy(&na->run_local[NA_REDUCE]));
  PetscCall(RunsDestroy(&na->run_fwd));
  PetscCall(RunsDestroy(&na->run_fwd_nd));
  PetscCall(RunsDestroy(&na->run_rev));
  PetscCall(RunsDestroy(&na->run_r1));
  for (PetscInt p = 0; p < 3; p++) PetscCall(PetscFree(na->rdirect[p]));
  PetscCall(PetscFree2(na->lroot, na->lleaf));
  PetscCall(PetscFree2(na->fleaf, na->forig));
  PetscCall(PetscFree2(na->fleaf_nd, na->forig_nd));
  PetscCall(PetscFree4(na->r1leaf, na->r1ghost, na->r2leaf, na->r2ghost));
  PetscCall(PetscSFDestroy(&na->basic));
  PetscCall(PetscMemzero(&na->cnt_basic, sizeof(NACounts)));
  PetscCall(PetscMemzero(&na->cnt_fwd, sizeof(NACounts)));
  PetscCall(PetscMemzero(&na->cnt_rev, sizeof(NACounts)));
  na->nlocal = na->nghost = na->nfwd = na->nfwd_nd = na->nrev1 = na->nrev2 = 0;
  na->built                                                                = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* operations */

/* pack the messages of step q that are not sent from the source: their entries from the source (filter 1) or from the receive buffer (filter -1) */
static void StepPack(PetscSF_NodeAware *na, NALink link, PetscInt q, PetscInt filter)
{
  const AIJHybridNodeStep *st = &na->sched[link->dir].step[q];

  if (st->from_src && filter < 0) return; /* nothing from the receive buffer */
  for (PetscInt i = 0; i < st->nsend; i++) {
    if (link->direct && na->sdirect[link->dir][q][i] >= 0) continue;
    if (na->run_msg_use[link->dir][q][i]) /* runs index the step's entries: the step's part of the send buffer */
      ApplyRuns(link->u, NA_OP_REPLACE, &na->run_send[link->dir][q], na->run_msg[link->dir][q][i], na->run_msg[link->dir][q][i + 1], NULL, link->sbuf + (size_t)st->soff[0] * link->unitbytes, st->sorig, link->src, link->rbuf, filter);
    else Apply(link->u, NA_OP_REPLACE, st->soff[i + 1] - st->soff[i], NULL, link->sbuf + (size_t)st->soff[i] * link->unitbytes, st->sorig + (st->soff[i] - st->soff[0]), link->src, link->rbuf, st->from_src ? 0 : filter);
  }
}

/* send the messages of step q (packed, or from the source) */
static PetscErrorCode StepSend(PetscSF sf, NALink link, PetscInt q)
{
  PetscSF_NodeAware       *na = (PetscSF_NodeAware *)sf->data;
  const AIJHybridNodeStep *st = &na->sched[link->dir].step[q];
  const PetscInt          *sd = na->sdirect[link->dir][q];
  const size_t             ub = link->unitbytes;
  PetscMPIInt              total;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < st->nsend; i++) {
    char *buf = (char *)((link->direct && sd[i] >= 0) ? link->src + (size_t)sd[i] * ub : link->sbuf + (size_t)st->soff[i] * ub);
    if (link->sreq[q][i] == MPI_REQUEST_NULL || link->sbufp[q][i] != buf) {
      PetscMPIInt cnt;
      if (link->sreq[q][i] != MPI_REQUEST_NULL) PetscCallMPI(MPI_Request_free(&link->sreq[q][i]));
      PetscCall(PetscMPIIntCast(st->soff[i + 1] - st->soff[i], &cnt));
      PetscCallMPI(MPI_Send_init(buf, cnt, link->mpiunit, st->sdest[i], link->tag[q], PetscObjectComm((PetscObject)sf), &link->sreq[q][i]));
      link->sbufp[q][i] = buf;
    }
  }
  PetscCall(PetscMPIIntCast(st->soff[st->nsend] - st->soff[0], &total));
  if (link->nsreq[q]) PetscCallMPI(MPI_Startall_isend(total, link->mpiunit, link->nsreq[q], link->sreq[q])); /* counted in PETSc's message log, as basic's */
  link->started[q] = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscSFNodeAwareBegin_Private(PetscSF sf, PetscInt dir, MPI_Datatype unit, NAUnit u, NAOp op, const void *rootdata, const void *leafdata)
{
  PetscSF_NodeAware           *na = (PetscSF_NodeAware *)sf->data;
  const AIJHybridNodeSchedule *s  = &na->sched[dir];
  NALink                       link = NULL, *p;

  PetscFunctionBegin;
  for (p = &na->avail; *p; p = &(*p)->next) {
    if ((*p)->dir == dir && (*p)->unitbytes == u.unitbytes) {
      link = *p;
      *p   = link->next;
      break;
    }
  }
  if (!link) {
    PetscCall(LinkCreate(sf, dir, u.unitbytes, &link));
    for (PetscInt q = 0; q < 3; q++) PetscCall(PetscObjectGetNewTag((PetscObject)sf, &link->tag[q])); /* every rank creates its links in the same order */
  }
  link->unit     = unit;
  link->u        = u;
  link->op       = op;
  link->rootdata = rootdata;
  link->leafdata = leafdata;
  link->direct   = (PetscBool)(rootdata != leafdata); /* in place: pack everything at begin, unpack at end */
  link->inplace  = (PetscBool)(link->direct && dir == NA_BCAST && op == NA_OP_REPLACE);
  link->next     = NULL;
  for (PetscInt q = 0; q < 3; q++) link->started[q] = PETSC_FALSE;
  for (p = &na->inuse; *p; p = &(*p)->next) { }
  *p = link; /* in the order the operations began */

  /* every receive first (those in place go to leaves this operation's other writes do not touch) */
  for (PetscInt q = 0; q < 3; q++) {
    const AIJHybridNodeStep *st = &s->step[q];
    PetscMPIInt              total;
    for (PetscInt j = 0; j < st->nrecv; j++) {
      char *buf = (link->inplace && na->rdirect[q][j] >= 0) ? (char *)leafdata + (size_t)na->rdirect[q][j] * u.unitbytes : link->rbuf + (size_t)st->roff[j] * u.unitbytes;
      if (link->rreq[q][j] == MPI_REQUEST_NULL || link->rbufp[q][j] != buf) {
        PetscMPIInt cnt;
        if (link->rreq[q][j] != MPI_REQUEST_NULL) PetscCallMPI(MPI_Request_free(&link->rreq[q][j]));
        PetscCall(PetscMPIIntCast(st->roff[j + 1] - st->roff[j], &cnt));
        PetscCallMPI(MPI_Recv_init(buf, cnt, link->mpiunit, st->rsrc[j], link->tag[q], PetscObjectComm((PetscObject)sf), &link->rreq[q][j]));
        link->rbufp[q][j] = buf;
      }
    }
    PetscCall(PetscMPIIntCast(st->roff[st->nrecv] - st->roff[0], &total));
    if (link->nrreq[q]) PetscCallMPI(MPI_Startall_irecv(total, link->mpiunit, link->nrreq[q], link->rreq[q]));
  }
  if (dir == NA_BCAST) link->src = (const char *)rootdata;
  else if (na->rev_leaves) link->src = (const char *)leafdata + (size_t)na->revbase * u.unitbytes;
  else { /* each ghost's contribution, from this rank's leaves in leaf order */
    ApplyList(u, NA_OP_REPLACE, &na->run_r1, PETSC_TRUE, na->nrev1, na->r1ghost, link->cbuf, na->r1leaf, leafdata, NULL, 0);
    Apply(u, op, na->nrev2, na->r2ghost, link->cbuf, na->r2leaf, leafdata, NULL, 0);
    link->src = link->cbuf;
  }
  /* everything read from the source now, before the leaves on this rank's roots (as basic does at begin) */
  for (PetscInt q = 0; q < 3; q++) StepPack(na, link, q, 1);
  if (dir == NA_BCAST) ApplyList(u, op, &na->run_local[NA_BCAST], link->direct, na->nlocal, na->lleaf, (void *)leafdata, na->lroot, rootdata, NULL, 0);
  else ApplyList(u, op, &na->run_local[NA_REDUCE], link->direct, na->nlocal, na->lroot, (void *)rootdata, na->lleaf, leafdata, NULL, 0);
  for (PetscInt q = 0; q < 3; q++)
    if (s->step[q].from_src) PetscCall(StepSend(sf, link, q));
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
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  for (PetscInt q = 0; q < 3; q++) {
    if (link->started[q]) continue;
    PetscCall(ReceivesDone(link, q, wait, done));
    if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
    StepPack(na, link, q, -1);
    PetscCall(StepSend(sf, link, q));
  }
  PetscCall(ReceivesDone(link, 3, wait, done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* end the operation of link (found in the in-use list by the caller) */
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
  if (link->dir == NA_BCAST) {
    if (link->inplace) ApplyList(link->u, link->op, &na->run_fwd_nd, link->direct, na->nfwd_nd, na->fleaf_nd, (void *)link->leafdata, na->forig_nd, link->rootdata, link->rbuf, 0);
    else ApplyList(link->u, link->op, &na->run_fwd, link->direct, na->nfwd, na->fleaf, (void *)link->leafdata, na->forig, link->rootdata, link->rbuf, 0);
  } else ApplyList(link->u, link->op, &na->run_rev, link->direct, s->nout, s->outidx, (void *)link->rootdata, s->outorig, link->src, link->rbuf, 0);
  for (PetscInt q = 0; q < 3; q++)
    if (link->nsreq[q]) PetscCallMPI(MPI_Waitall(link->nsreq[q], link->sreq[q], MPI_STATUSES_IGNORE));
  for (p = &na->inuse; *p != link; p = &(*p)->next) { }
  *p             = link->next;
  link->rootdata = link->leafdata = NULL;
  link->src                       = NULL;
  link->next                      = na->avail;
  na->avail                       = link;
  PetscFunctionReturn(PETSC_SUCCESS);
}
