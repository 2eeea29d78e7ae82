/*
   Node-aware halo exchange with MPI (design in nodeplan.h and nodeaware.h): the collective setup
   runs the pure steps of nodeplan.c with three rounds of sparse point-to-point messages, then every
   exchange runs the three phases of the plan over persistent requests.
*/
#include "nodeaware.h"
#include "../aijhybrid.h"

/* node label of every rank: emulated nodes of node_size consecutive ranks, or the lowest rank sharing memory */
PetscErrorCode AIJHybridNodeLabels(MPI_Comm comm, PetscInt node_size, PetscInt label[])
{
  PetscMPIInt size, rank, leader, *all;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (node_size > 0) {
    for (PetscMPIInt p = 0; p < size; p++) label[p] = p / node_size;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    MPI_Comm shm;
    PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    PetscCallMPI(MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, shm));
    PetscCallMPI(MPI_Comm_free(&shm));
  }
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

/* persistent requests and buffers of one phase (dir 0 forward, 1 reverse) */
static PetscErrorCode PhaseSetUp(AIJHybridNodeAware *na, PetscInt dir, PetscInt p, PetscScalar *buf, PetscMPIInt tag)
{
  const AIJHybridNodePhase *ph = dir ? &na->plan.rev[p] : &na->plan.fwd[p];
  PetscMPIInt               nr = 0, ns = 0, cnt;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ph->soff[ph->nsend], &na->sbuf[dir][p]));
  PetscCall(PetscMalloc1(ph->nrecv, &na->rreq[dir][p]));
  PetscCall(PetscMalloc1(ph->nsend, &na->sreq[dir][p]));
  for (PetscInt j = 0; j < ph->nrecv; j++) {
    if (ph->rsrc[j] == na->rank) continue;
    PetscCall(PetscMPIIntCast(ph->roff[j + 1] - ph->roff[j], &cnt));
    PetscCallMPI(MPI_Recv_init(buf + ph->roff[j], cnt, MPIU_SCALAR, ph->rsrc[j], tag, na->comm, &na->rreq[dir][p][nr++]));
  }
  for (PetscInt i = 0; i < ph->nsend; i++) {
    if (ph->sdest[i] == na->rank) continue;
    PetscCall(PetscMPIIntCast(ph->soff[i + 1] - ph->soff[i], &cnt));
    PetscCallMPI(MPI_Send_init(na->sbuf[dir][p] + ph->soff[i], cnt, MPIU_SCALAR, ph->sdest[i], tag, na->comm, &na->sreq[dir][p][ns++]));
  }
  na->nrreq[dir][p] = nr;
  na->nsreq[dir][p] = ns;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridNodeAwareCreate - collective on comm: the node-aware exchange for this rank's ghosts
  (distinct global indices of the layout map, any order)
*/
PetscErrorCode AIJHybridNodeAwareCreate(MPI_Comm comm, PetscLayout map, PetscInt nghost, const PetscInt ghosts[], PetscInt node_size, AIJHybridNodeAware **nap)
{
  AIJHybridNodeAware *na;
  PetscMPIInt         size, tag;
  PetscInt           *label;
  const PetscInt     *ranges;
  AIJHybridNodeMsgs   o1 = {0}, i1 = {0}, o2 = {0}, i2 = {0}, o3 = {0}, i3 = {0};

  PetscFunctionBegin;
  PetscCall(PetscNew(&na));
  PetscCall(PetscCommDuplicate(comm, &na->comm, NULL));
  PetscCallMPI(MPI_Comm_rank(na->comm, &na->rank));
  PetscCallMPI(MPI_Comm_size(na->comm, &size));
  na->node_size = node_size;
  PetscCall(PetscLayoutSetUp(map));
  PetscCall(PetscLayoutGetRanges(map, &ranges));
  PetscCall(PetscMalloc1(size, &label));
  PetscCall(AIJHybridNodeLabels(na->comm, node_size, label));
  PetscCall(AIJHybridNodeTopoCreate(size, label, &na->topo));
  PetscCall(PetscFree(label));

  { /* bad ghosts fail on every rank, not in the middle of the collective setup */
    PetscInt   *sorted;
    PetscMPIInt bad[2] = {0, 0}, gbad[2];
    PetscCall(PetscMalloc1(nghost, &sorted));
    if (nghost) PetscCall(PetscArraycpy(sorted, ghosts, nghost));
    PetscCall(PetscSortInt(nghost, sorted));
    for (PetscInt k = 0; k < nghost; k++) {
      if (sorted[k] < 0 || sorted[k] >= map->N) bad[0] = 1;
      if (k && sorted[k] == sorted[k - 1]) bad[1] = 1;
    }
    PetscCall(PetscFree(sorted));
    PetscCallMPI(MPI_Allreduce(bad, gbad, 2, MPI_INT, MPI_MAX, na->comm));
    if (gbad[0] || gbad[1]) {
      PetscCall(AIJHybridNodeTopoDestroy(&na->topo));
      PetscCall(PetscCommDestroy(&na->comm));
      PetscCall(PetscFree(na));
      PetscCheck(!gbad[0], comm, PETSC_ERR_ARG_OUTOFRANGE, "A ghost index is out of the layout [0, %" PetscInt_FMT ") on some rank", map->N);
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "A global index appears twice among the ghosts of some rank: ghosts must be distinct");
    }
  }
  PetscCall(AIJHybridNodePlanRequests(&na->topo, ranges, na->rank, nghost, ghosts, &o1));
  PetscCall(ExchangeMsgs(na->comm, na->rank, &o1, &i1));
  PetscCall(AIJHybridNodePlanUnions(&na->topo, ranges, na->rank, &i1, &o2));
  PetscCall(ExchangeMsgs(na->comm, na->rank, &o2, &i2));
  PetscCall(AIJHybridNodePlanSplit(&na->topo, ranges, na->rank, &i2, &o3));
  PetscCall(ExchangeMsgs(na->comm, na->rank, &o3, &i3));
  PetscCall(AIJHybridNodePlanFinish(&na->topo, ranges, na->rank, nghost, ghosts, &i1, &i2, &i3, &na->plan));
  PetscCall(AIJHybridNodeMsgsDestroy(&o1));
  PetscCall(AIJHybridNodeMsgsDestroy(&i1));
  PetscCall(AIJHybridNodeMsgsDestroy(&o2));
  PetscCall(AIJHybridNodeMsgsDestroy(&i2));
  PetscCall(AIJHybridNodeMsgsDestroy(&o3));
  PetscCall(AIJHybridNodeMsgsDestroy(&i3));

  PetscCall(PetscMalloc1(na->plan.nfbuf, &na->fbuf));
  PetscCall(PetscMalloc1(na->plan.nrbuf, &na->rbuf));
  for (PetscInt dir = 0; dir < 2; dir++) {
    for (PetscInt p = 0; p < 3; p++) {
      PetscCall(PetscCommGetNewTag(na->comm, &tag));
      PetscCall(PhaseSetUp(na, dir, p, dir ? na->rbuf : na->fbuf, tag));
    }
  }
  *nap = na;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodeAwareDestroy(AIJHybridNodeAware **nap)
{
  AIJHybridNodeAware *na = *nap;

  PetscFunctionBegin;
  if (!na) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt dir = 0; dir < 2; dir++) {
    for (PetscInt p = 0; p < 3; p++) {
      for (PetscMPIInt i = 0; i < na->nrreq[dir][p]; i++) PetscCallMPI(MPI_Request_free(&na->rreq[dir][p][i]));
      for (PetscMPIInt i = 0; i < na->nsreq[dir][p]; i++) PetscCallMPI(MPI_Request_free(&na->sreq[dir][p][i]));
      PetscCall(PetscFree(na->rreq[dir][p]));
      PetscCall(PetscFree(na->sreq[dir][p]));
      PetscCall(PetscFree(na->sbuf[dir][p]));
    }
  }
  PetscCall(PetscFree(na->fbuf));
  PetscCall(PetscFree(na->rbuf));
  PetscCall(AIJHybridNodePlanDestroy(&na->plan));
  PetscCall(AIJHybridNodeTopoDestroy(&na->topo));
  PetscCall(PetscCommDestroy(&na->comm));
  PetscCall(PetscFree(*nap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* pack phase p of direction dir from src; the part for this rank goes straight to its receive section */
static PetscErrorCode PhaseStart(AIJHybridNodeAware *na, PetscInt dir, PetscInt p, const PetscScalar *src)
{
  const AIJHybridNodePhase *ph  = dir ? &na->plan.rev[p] : &na->plan.fwd[p];
  PetscScalar              *buf = dir ? na->rbuf : na->fbuf, *sb = na->sbuf[dir][p];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < ph->nsend; i++) {
    PetscScalar *to = sb + ph->soff[i];
    if (ph->sdest[i] == na->rank) {
      PetscInt j = 0;
      while (ph->rsrc[j] != na->rank) j++;
      to = buf + ph->roff[j];
    }
    for (PetscInt e = ph->soff[i], c = 0; e < ph->soff[i + 1]; e++, c++) to[c] = src[ph->sidx[e]];
  }
  if (na->nsreq[dir][p]) PetscCallMPI(MPI_Startall(na->nsreq[dir][p], na->sreq[dir][p]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PhaseWaitRecv(AIJHybridNodeAware *na, PetscInt dir, PetscInt p)
{
  PetscFunctionBegin;
  if (na->nrreq[dir][p]) PetscCallMPI(MPI_Waitall(na->nrreq[dir][p], na->rreq[dir][p], MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Begin(AIJHybridNodeAware *na, PetscInt dir, const PetscScalar *src)
{
  PetscFunctionBegin;
  PetscCheck(!na->active[dir], PETSC_COMM_SELF, PETSC_ERR_ORDER, "%s exchange already begun: end it first", dir ? "Reverse" : "Forward");
  na->active[dir] = PETSC_TRUE;
  for (PetscInt p = 0; p < 3; p++)
    if (na->nrreq[dir][p]) PetscCallMPI(MPI_Startall(na->nrreq[dir][p], na->rreq[dir][p]));
  PetscCall(PhaseStart(na, dir, 0, src));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode End(AIJHybridNodeAware *na, PetscInt dir)
{
  PetscScalar *buf = dir ? na->rbuf : na->fbuf;

  PetscFunctionBegin;
  PetscCheck(na->active[dir], PETSC_COMM_SELF, PETSC_ERR_ORDER, "%s exchange ended without begin", dir ? "Reverse" : "Forward");
  for (PetscInt p = 0; p < 2; p++) {
    PetscCall(PhaseWaitRecv(na, dir, p));
    PetscCall(PhaseStart(na, dir, p + 1, buf));
  }
  PetscCall(PhaseWaitRecv(na, dir, 2));
  for (PetscInt p = 0; p < 3; p++)
    if (na->nsreq[dir][p]) PetscCallMPI(MPI_Waitall(na->nsreq[dir][p], na->sreq[dir][p], MPI_STATUSES_IGNORE));
  na->active[dir] = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* forward: ghost[k] = x(ghosts[k]); x is the owned part of the vector */
PetscErrorCode AIJHybridNodeAwareForwardBegin(AIJHybridNodeAware *na, const PetscScalar x[], PetscScalar ghost[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscCall(Begin(na, 0, x));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodeAwareForwardEnd(AIJHybridNodeAware *na, const PetscScalar x[], PetscScalar ghost[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(End(na, 0));
  for (PetscInt k = 0; k < na->plan.nghost; k++) ghost[k] = na->fbuf[na->plan.gpos[k]];
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* reverse: y(ghosts[k]) += ghost[k], added in the order of the standard PetscSF reduce */
PetscErrorCode AIJHybridNodeAwareReverseBegin(AIJHybridNodeAware *na, const PetscScalar ghost[], PetscScalar y[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  if (na->plan.nghost) PetscCall(PetscArraycpy(na->rbuf, ghost, na->plan.nghost));
  PetscCall(Begin(na, 1, na->rbuf));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodeAwareReverseEnd(AIJHybridNodeAware *na, const PetscScalar ghost[], PetscScalar y[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(End(na, 1));
  for (PetscInt j = 0; j < na->plan.nacc; j++) y[na->plan.accroot[j]] += na->rbuf[na->plan.accpos[j]];
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
