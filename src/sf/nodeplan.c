/*
   Pure plan builder of the node-aware halo exchange: see nodeplan.h for the design and the
   message encodings. No MPI, no global state; outputs are allocated with PetscMalloc.
*/
#include "nodeplan.h"
#include <stdlib.h>

typedef struct {
  PetscInt    label;
  PetscMPIInt p;
} LabelRank;

static int CmpLabelRank(const void *a, const void *b)
{
  const LabelRank *x = (const LabelRank *)a, *y = (const LabelRank *)b;
  if (x->label != y->label) return x->label < y->label ? -1 : 1;
  return x->p < y->p ? -1 : (x->p > y->p);
}

/* labels: any integers, equal for ranks on one node; nodes are numbered in the order of their lowest rank */
PetscErrorCode AIJHybridNodeTopoCreate(PetscMPIInt size, const PetscInt label[], AIJHybridNodeTopo *topo)
{
  LabelRank *lr;
  PetscInt  *first, *cnt, nn = 0;

  PetscFunctionBegin;
  PetscCheck(size >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need at least one rank");
  topo->size = size;
  PetscCall(PetscMalloc4(size, &topo->node, size, &topo->lrank, size + 1, &topo->nptr, size, &topo->nranks));
  PetscCall(PetscMalloc3(size, &lr, size, &first, size, &cnt));
  for (PetscMPIInt p = 0; p < size; p++) {
    lr[p].label = label[p];
    lr[p].p     = p;
  }
  qsort(lr, (size_t)size, sizeof(LabelRank), CmpLabelRank); /* groups by label, ranks ascending in each */
  for (PetscMPIInt i = 0; i < size; i++) {
    if (i == 0 || lr[i].label != lr[i - 1].label) {
      first[nn] = lr[i].p; /* lowest rank of the group */
      cnt[nn++] = 0;
    }
    topo->lrank[lr[i].p] = cnt[nn - 1]++;
    topo->node[lr[i].p]  = nn - 1; /* group number, renumbered below */
  }
  /* renumber the groups in the order of their lowest rank: first[] of the groups, ranked */
  {
    PetscInt *order, *newid;
    PetscCall(PetscMalloc2(nn, &order, nn, &newid));
    for (PetscInt X = 0; X < nn; X++) order[X] = X;
    PetscCall(PetscSortIntWithArray(nn, first, order)); /* first[] distinct */
    for (PetscInt X = 0; X < nn; X++) newid[order[X]] = X;
    for (PetscMPIInt p = 0; p < size; p++) topo->node[p] = newid[topo->node[p]];
    for (PetscInt X = 0; X < nn; X++) cnt[X] = 0;
    for (PetscMPIInt p = 0; p < size; p++) cnt[topo->node[p]]++;
    PetscCall(PetscFree2(order, newid));
  }
  topo->nnodes  = nn;
  topo->nptr[0] = 0;
  for (PetscInt X = 0; X < nn; X++) topo->nptr[X + 1] = topo->nptr[X] + cnt[X];
  for (PetscMPIInt p = 0; p < size; p++) topo->nranks[topo->nptr[topo->node[p]] + topo->lrank[p]] = p;
  PetscCall(PetscFree3(lr, first, cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodeTopoDestroy(AIJHybridNodeTopo *topo)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(topo->node, topo->lrank, topo->nptr, topo->nranks));
  topo->nnodes = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodeMsgsDestroy(AIJHybridNodeMsgs *m)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(m->peer));
  PetscCall(PetscFree(m->off));
  PetscCall(PetscFree(m->data));
  m->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PhaseDestroy(AIJHybridNodePhase *ph)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(ph->sdest));
  PetscCall(PetscFree(ph->soff));
  PetscCall(PetscFree(ph->sidx));
  PetscCall(PetscFree(ph->rsrc));
  PetscCall(PetscFree(ph->roff));
  ph->nsend = ph->nrecv = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodePlanDestroy(AIJHybridNodePlan *plan)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < 3; i++) {
    PetscCall(PhaseDestroy(&plan->fwd[i]));
    PetscCall(PhaseDestroy(&plan->rev[i]));
  }
  PetscCall(PetscFree(plan->gpos));
  PetscCall(PetscFree(plan->accroot));
  PetscCall(PetscFree(plan->accpos));
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* the requests of one rank: ghost k (global g) is asked from rank d under key -1 (direct) or M */
typedef struct {
  PetscMPIInt d;
  PetscInt    key, g, k;
} Req;

static int CmpReq(const void *a, const void *b)
{
  const Req *x = (const Req *)a, *y = (const Req *)b;
  if (x->d != y->d) return x->d < y->d ? -1 : 1;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  return 0;
}

static PetscErrorCode BuildRequests(const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscMPIInt me, PetscInt nghost, const PetscInt ghosts[], Req **req)
{
  const PetscInt N = topo->node[me];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < nghost; k++)
    PetscCheck(AIJHybridNodeOwner(topo->size, ranges, ghosts[k]) >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Ghost %" PetscInt_FMT " (global index %" PetscInt_FMT ") out of the layout [0, %" PetscInt_FMT ")", k, ghosts[k], ranges[topo->size]);
  PetscCall(PetscMalloc1(nghost, req));
  for (PetscInt k = 0; k < nghost; k++) {
    const PetscInt    g = ghosts[k];
    const PetscMPIInt q = AIJHybridNodeOwner(topo->size, ranges, g);
    const PetscInt    M = topo->node[q];

    (*req)[k].g = g;
    (*req)[k].k = k;
    if (M == N) {
      (*req)[k].d   = q;
      (*req)[k].key = -1;
    } else {
      (*req)[k].d   = AIJHybridNodeReceiver(topo, M, N);
      (*req)[k].key = M;
    }
  }
  if (nghost) qsort(*req, (size_t)nghost, sizeof(Req), CmpReq);
  for (PetscInt j = 1; j < nghost; j++) {
    if ((*req)[j].g == (*req)[j - 1].g) {
      const PetscInt g = (*req)[j].g;
      PetscCall(PetscFree(*req));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Global index %" PetscInt_FMT " appears twice among the ghosts of rank %d", g, me);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* allocate msgs with n messages of the given sizes (data to be filled by the caller) */
static PetscErrorCode MsgsAlloc(PetscInt n, const PetscMPIInt peer[], const PetscInt len[], AIJHybridNodeMsgs *m)
{
  PetscFunctionBegin;
  m->n = n;
  PetscCall(PetscMalloc1(n, &m->peer));
  PetscCall(PetscMalloc1(n + 1, &m->off));
  m->off[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    m->peer[i]    = peer[i];
    m->off[i + 1] = m->off[i] + len[i];
  }
  PetscCall(PetscMalloc1(m->off[n], &m->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodePlanRequests(const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscMPIInt me, PetscInt nghost, const PetscInt ghosts[], AIJHybridNodeMsgs *out)
{
  Req         *req;
  PetscMPIInt *peer;
  PetscInt    *len, n = 0, c = 0;

  PetscFunctionBegin;
  PetscCall(BuildRequests(topo, ranges, me, nghost, ghosts, &req));
  PetscCall(PetscMalloc2(nghost, &peer, nghost, &len));
  for (PetscInt j = 0; j < nghost; j++) {
    if (j == 0 || req[j].d != req[j - 1].d) {
      peer[n]  = req[j].d;
      len[n++] = 0;
    }
    if (j == 0 || req[j].d != req[j - 1].d || req[j].key != req[j - 1].key) len[n - 1] += 2; /* section header */
    len[n - 1]++;
  }
  PetscCall(MsgsAlloc(n, peer, len, out));
  for (PetscInt j = 0, hdr = 0; j < nghost; j++) {
    if (j == 0 || req[j].d != req[j - 1].d || req[j].key != req[j - 1].key) {
      hdr            = c;
      out->data[c++] = req[j].key;
      out->data[c++] = 0;
    }
    out->data[hdr + 1]++;
    out->data[c++] = req[j].g;
  }
  PetscCall(PetscFree2(peer, len));
  PetscCall(PetscFree(req));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a via request received by t: rank r of t's node needs g from node M; c is its index in arrival order */
typedef struct {
  PetscInt    M, g, c;
  PetscMPIInt r, s;
} Via;

static int CmpViaMgr(const void *a, const void *b)
{
  const Via *x = (const Via *)a, *y = (const Via *)b;
  if (x->s != y->s) return x->s < y->s ? -1 : 1; /* one sender per source node: same order as M groups */
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  if (x->r != y->r) return x->r < y->r ? -1 : 1;
  return 0;
}

/* the via requests in in1, in arrival order (source ascending, then key, then g); checks the encoding */
static PetscErrorCode ParseVia(const AIJHybridNodeTopo *topo, PetscMPIInt me, const AIJHybridNodeMsgs *in1, PetscInt *nvia, Via **via)
{
  const PetscInt N = topo->node[me];
  PetscInt       n = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < in1->n; i++) {
    for (PetscInt c = in1->off[i]; c < in1->off[i + 1]; c += 2 + in1->data[c + 1]) {
      PetscCheck(c + 2 + in1->data[c + 1] <= in1->off[i + 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Corrupt request from rank %d", in1->peer[i]);
      if (in1->data[c] >= 0) n += in1->data[c + 1];
    }
  }
  PetscCall(PetscMalloc1(n, via));
  n = 0;
  for (PetscInt i = 0; i < in1->n; i++) {
    for (PetscInt c = in1->off[i]; c < in1->off[i + 1]; c += 2 + in1->data[c + 1]) {
      const PetscInt M = in1->data[c];
      if (M < 0) continue;
      PetscCheck(M < topo->nnodes && M != N && topo->node[in1->peer[i]] == N && AIJHybridNodeReceiver(topo, M, N) == me, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Misrouted request from rank %d", in1->peer[i]);
      for (PetscInt e = 0; e < in1->data[c + 1]; e++, n++) {
        (*via)[n].M = M;
        (*via)[n].g = in1->data[c + 2 + e];
        (*via)[n].r = in1->peer[i];
        (*via)[n].s = AIJHybridNodeSender(topo, M, N);
        (*via)[n].c = n;
      }
    }
  }
  *nvia = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodePlanUnions(const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscMPIInt me, const AIJHybridNodeMsgs *in1, AIJHybridNodeMsgs *out)
{
  Via         *via;
  PetscInt     nvia, n = 0, *len;
  PetscMPIInt *peer;

  PetscFunctionBegin;
  PetscCall(ParseVia(topo, me, in1, &nvia, &via));
  if (nvia) qsort(via, (size_t)nvia, sizeof(Via), CmpViaMgr);
  PetscCall(PetscMalloc2(nvia, &peer, nvia, &len));
  for (PetscInt j = 0; j < nvia; j++) {
    if (j == 0 || via[j].s != via[j - 1].s) {
      peer[n]  = via[j].s;
      len[n++] = 0;
    }
    len[n - 1] += 2;
  }
  PetscCall(MsgsAlloc(n, peer, len, out));
  for (PetscInt j = 0; j < nvia; j++) {
    out->data[2 * j]     = via[j].g;
    out->data[2 * j + 1] = via[j].r;
  }
  PetscCall(PetscFree2(peer, len));
  PetscCall(PetscFree(via));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a pair received by s from t, with its owner q */
typedef struct {
  PetscMPIInt q, t, r;
  PetscInt    g;
} Quad;

static int CmpQuad(const void *a, const void *b)
{
  const Quad *x = (const Quad *)a, *y = (const Quad *)b;
  if (x->q != y->q) return x->q < y->q ? -1 : 1;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  if (x->r != y->r) return x->r < y->r ? -1 : 1;
  return 0;
}

PetscErrorCode AIJHybridNodePlanSplit(const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscMPIInt me, const AIJHybridNodeMsgs *in2, AIJHybridNodeMsgs *out)
{
  const PetscInt M  = topo->node[me];
  const PetscInt np = in2->off[in2->n] / 2;
  Quad          *quad;
  PetscInt       n = 0, *len, c = 0;
  PetscMPIInt   *peer;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(np, &quad));
  for (PetscInt i = 0, j = 0; i < in2->n; i++) {
    const PetscMPIInt t = in2->peer[i];
    PetscCheck(topo->node[t] != M && AIJHybridNodeSender(topo, M, topo->node[t]) == me, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Misrouted union from rank %d", t);
    for (PetscInt p = in2->off[i]; p < in2->off[i + 1]; p += 2, j++) {
      quad[j].g = in2->data[p];
      quad[j].r = (PetscMPIInt)in2->data[p + 1];
      quad[j].t = t;
      quad[j].q = AIJHybridNodeOwner(topo->size, ranges, quad[j].g);
      PetscCheck(quad[j].q >= 0 && topo->node[quad[j].q] == M, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Global index %" PetscInt_FMT " sent to node %" PetscInt_FMT " that does not own it", quad[j].g, M);
    }
  }
  if (np) qsort(quad, (size_t)np, sizeof(Quad), CmpQuad);
  PetscCall(PetscMalloc2(np, &peer, np, &len));
  for (PetscInt j = 0; j < np; j++) {
    if (j == 0 || quad[j].q != quad[j - 1].q) {
      peer[n]  = quad[j].q;
      len[n++] = 0;
    }
    if (j == 0 || quad[j].q != quad[j - 1].q || quad[j].t != quad[j - 1].t) len[n - 1] += 2;
    len[n - 1] += 2;
  }
  PetscCall(MsgsAlloc(n, peer, len, out));
  for (PetscInt j = 0, hdr = 0; j < np; j++) {
    if (j == 0 || quad[j].q != quad[j - 1].q || quad[j].t != quad[j - 1].t) {
      hdr            = c;
      out->data[c++] = quad[j].t;
      out->data[c++] = 0;
    }
    out->data[hdr + 1]++;
    out->data[c++] = quad[j].g;
    out->data[c++] = quad[j].r;
  }
  PetscCall(PetscFree2(peer, len));
  PetscCall(PetscFree(quad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* Finish: every phase of this rank's plan */

/* a phase with n sends to dest[] of len[] entries and m receives from src[] of rlen[] entries at buffer offset base */
static PetscErrorCode PhaseAlloc(AIJHybridNodePhase *ph, PetscInt n, const PetscMPIInt dest[], const PetscInt len[], PetscInt m, const PetscMPIInt src[], const PetscInt rlen[], PetscInt base)
{
  PetscFunctionBegin;
  ph->nsend = n;
  ph->nrecv = m;
  PetscCall(PetscMalloc1(n, &ph->sdest));
  PetscCall(PetscMalloc1(n + 1, &ph->soff));
  PetscCall(PetscMalloc1(m, &ph->rsrc));
  PetscCall(PetscMalloc1(m + 1, &ph->roff));
  ph->soff[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    ph->sdest[i]    = dest[i];
    ph->soff[i + 1] = ph->soff[i] + len[i];
  }
  PetscCall(PetscMalloc1(ph->soff[n], &ph->sidx));
  ph->roff[0] = base;
  for (PetscInt j = 0; j < m; j++) {
    ph->rsrc[j]     = src[j];
    ph->roff[j + 1] = ph->roff[j] + rlen[j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void PhaseCount(const AIJHybridNodeTopo *topo, PetscMPIInt me, const AIJHybridNodePhase *ph, AIJHybridNodeCounts *cnt)
{
  for (PetscInt i = 0; i < ph->nsend; i++) {
    const PetscInt inter = topo->node[ph->sdest[i]] != topo->node[me];
    if (ph->sdest[i] == me) continue;
    cnt->msgs[inter]++;
    cnt->entries[inter] += ph->soff[i + 1] - ph->soff[i];
  }
}

typedef struct {
  PetscInt    root, pos;
  PetscMPIInt leaf; /* -1 for the owner itself: its own contributions come first, as in PetscSF */
} Acc;

static int CmpAcc(const void *a, const void *b)
{
  const Acc *x = (const Acc *)a, *y = (const Acc *)b;
  if (x->root != y->root) return x->root < y->root ? -1 : 1;
  if (x->leaf != y->leaf) return x->leaf < y->leaf ? -1 : 1;
  return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* number of entries of the direct section (key -1) of request message i, and its first entry */
static PetscInt DirectSection(const AIJHybridNodeMsgs *in1, PetscInt i, const PetscInt **g)
{
  const PetscInt c = in1->off[i];
  if (c < in1->off[i + 1] && in1->data[c] == -1) {
    *g = in1->data + c + 2;
    return in1->data[c + 1];
  }
  *g = NULL;
  return 0;
}

static PetscInt ViaCount(const AIJHybridNodeMsgs *in1, PetscInt i)
{
  PetscInt n = 0;
  for (PetscInt c = in1->off[i]; c < in1->off[i + 1]; c += 2 + in1->data[c + 1])
    if (in1->data[c] >= 0) n += in1->data[c + 1];
  return n;
}

/* the state shared by the steps of AIJHybridNodePlanFinish(): its inputs, what the three rounds told
   this rank, and scratch arrays of size P+1 for the message lists of one phase */
typedef struct {
  const AIJHybridNodeTopo *topo;
  const PetscInt          *ranges;
  PetscMPIInt              me, P;
  PetscInt                 nghost;
  const AIJHybridNodeMsgs *in1, *in2, *in3;
  PetscInt                 rstart, rend, nloc;
  const PetscMPIInt       *locr; /* ranks of my node, ascending */
  Req                     *req;  /* my ghosts' requests, sorted by (d, key, g) */
  Via                     *via;  /* via requests I received as a receiver t */
  PetscInt                 nvia;
  PetscInt                 npairs, nuniq;      /* pairs (g, r) and distinct g of the unions I received as a sender s */
  PetscInt                *uoff, *upos;        /* per union: offsets of its distinct g; their positions in fbuf (F1 receives) */
  PetscInt                *upos_by_c, *pos2;   /* via c: its position in fbuf (F2 receives); pair p: its position in rbuf (R2 receives) */
  PetscInt                *ndir, *ngat, *nrel; /* [P] per owner on my node: my direct ghosts, gathered g, relayed pairs */
  PetscInt                *cur;                /* [P] scratch cursors */
  PetscMPIInt             *dest, *src;         /* [P+1] scratch message lists */
  PetscInt                *len, *rlen;
  PetscInt                 nF1, nF2, nF3, nR3, nR2, nR1; /* entries each phase receives */
} Finish;

/* one merged pass over the direct requesters (in1) and the senders s (in3): the next peer d, and
   which of the two lists it came from */
static PetscMPIInt MergeNext(const Finish *F, PetscInt i, PetscInt j, PetscBool *from1, PetscBool *from3)
{
  const PetscMPIInt a = i < F->in1->n ? F->in1->peer[i] : F->P, b = j < F->in3->n ? F->in3->peer[j] : F->P, d = PetscMin(a, b);

  *from1 = (PetscBool)(a == d);
  *from3 = (PetscBool)(b == d);
  return d;
}

static inline PetscBool FirstOfUnion(const AIJHybridNodeMsgs *in2, PetscInt i, PetscInt p)
{
  return (PetscBool)(p == in2->off[i] || in2->data[p] != in2->data[p - 2]);
}

static PetscErrorCode FinishSetUp(Finish *F, const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscMPIInt me, PetscInt nghost, const PetscInt ghosts[], const AIJHybridNodeMsgs *in1, const AIJHybridNodeMsgs *in2, const AIJHybridNodeMsgs *in3,
                                  AIJHybridNodePlan *plan)
{
  const PetscMPIInt P = topo->size;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(F, sizeof(*F)));
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  F->topo      = topo;
  F->ranges    = ranges;
  F->me        = me;
  F->P         = P;
  F->nghost    = nghost;
  F->in1       = in1;
  F->in2       = in2;
  F->in3       = in3;
  F->rstart    = ranges[me];
  F->rend      = ranges[me + 1];
  F->nloc      = topo->nptr[topo->node[me] + 1] - topo->nptr[topo->node[me]];
  F->locr      = topo->nranks + topo->nptr[topo->node[me]];
  F->npairs    = in2->off[in2->n] / 2;
  plan->nghost = nghost;
  PetscCall(BuildRequests(topo, ranges, me, nghost, ghosts, &F->req));
  PetscCall(ParseVia(topo, me, in1, &F->nvia, &F->via));
  PetscCall(PetscCalloc4(P, &F->ndir, P, &F->ngat, P, &F->nrel, P, &F->cur));
  PetscCall(PetscMalloc2(P + 1, &F->dest, P + 1, &F->src));
  PetscCall(PetscMalloc2(P + 1, &F->len, P + 1, &F->rlen));
  PetscCall(PetscMalloc1(nghost, &plan->gpos));
  /* distinct g of each union received (in2 message i: pairs sorted by (g, r)) */
  PetscCall(PetscMalloc1(in2->n + 1, &F->uoff));
  F->uoff[0] = 0;
  for (PetscInt i = 0; i < in2->n; i++) {
    for (PetscInt p = in2->off[i]; p < in2->off[i + 1]; p += 2)
      if (FirstOfUnion(in2, i, p)) F->nuniq++;
    F->uoff[i + 1] = F->nuniq;
  }
  PetscCall(PetscMalloc1(F->nuniq, &F->upos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FinishDestroy(Finish *F)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(F->pos2));
  PetscCall(PetscFree(F->upos_by_c));
  PetscCall(PetscFree(F->upos));
  PetscCall(PetscFree(F->uoff));
  PetscCall(PetscFree2(F->len, F->rlen));
  PetscCall(PetscFree2(F->dest, F->src));
  PetscCall(PetscFree4(F->ndir, F->ngat, F->nrel, F->cur));
  PetscCall(PetscFree(F->via));
  PetscCall(PetscFree(F->req));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F1: direct sends and gathers from x to the ranks of my node; I receive my direct ghosts and what I gather as a sender s */
static PetscErrorCode FinishF1(Finish *F, AIJHybridNodePlan *plan)
{
  AIJHybridNodePhase *ph = &plan->fwd[0];
  PetscInt            n = 0, m = 0, c0 = 0;
  PetscBool           f1, f3;

  PetscFunctionBegin;
  for (PetscInt i = 0, j = 0; i < F->in1->n || j < F->in3->n;) {
    const PetscMPIInt d = MergeNext(F, i, j, &f1, &f3);
    const PetscInt   *g;
    PetscInt          l = 0;
    if (f1) l += DirectSection(F->in1, i++, &g);
    if (f3) {
      for (PetscInt c = F->in3->off[j]; c < F->in3->off[j + 1]; c += 2 + 2 * F->in3->data[c + 1])
        for (PetscInt e = 0; e < F->in3->data[c + 1]; e++)
          if (e == 0 || F->in3->data[c + 2 + 2 * e] != F->in3->data[c + 2 * e]) l++;
      j++;
    }
    if (l) {
      F->dest[n]  = d;
      F->len[n++] = l;
    }
  }
  for (PetscInt j = 0; j < F->nghost; j++)
    if (F->req[j].key == -1) F->ndir[F->req[j].d]++;
  for (PetscInt i = 0; i < F->in2->n; i++)
    for (PetscInt p = F->in2->off[i]; p < F->in2->off[i + 1]; p += 2)
      if (FirstOfUnion(F->in2, i, p)) F->ngat[AIJHybridNodeOwner(F->P, F->ranges, F->in2->data[p])]++;
  for (PetscInt l = 0; l < F->nloc; l++) {
    const PetscMPIInt q = F->locr[l];
    if (F->ndir[q] + F->ngat[q]) {
      F->src[m]    = q;
      F->rlen[m++] = F->ndir[q] + F->ngat[q];
    }
  }
  PetscCall(PhaseAlloc(ph, n, F->dest, F->len, m, F->src, F->rlen, 0));
  F->nF1 = ph->roff[m];
  /* send indices: the direct section, then per t-section the distinct g */
  for (PetscInt i = 0, j = 0; i < F->in1->n || j < F->in3->n;) {
    const PetscInt *g;
    (void)MergeNext(F, i, j, &f1, &f3);
    if (f1) {
      PetscInt nd = DirectSection(F->in1, i++, &g);
      for (PetscInt e = 0; e < nd; e++) {
        PetscCheck(g[e] >= F->rstart && g[e] < F->rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Direct request for %" PetscInt_FMT " not owned by rank %d", g[e], F->me);
        ph->sidx[c0++] = g[e] - F->rstart;
      }
    }
    if (f3) {
      for (PetscInt c = F->in3->off[j]; c < F->in3->off[j + 1]; c += 2 + 2 * F->in3->data[c + 1])
        for (PetscInt e = 0; e < F->in3->data[c + 1]; e++) {
          const PetscInt gg = F->in3->data[c + 2 + 2 * e];
          PetscCheck(gg >= F->rstart && gg < F->rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Relay of %" PetscInt_FMT " not owned by rank %d", gg, F->me);
          if (e == 0 || gg != F->in3->data[c + 2 * e]) ph->sidx[c0++] = gg - F->rstart;
        }
      j++;
    }
  }
  /* receive positions: my direct ghosts, then the gathered entries in (t, g) order per owner */
  for (PetscInt r = 0; r < ph->nrecv; r++) F->cur[ph->rsrc[r]] = ph->roff[r];
  for (PetscInt j = 0; j < F->nghost; j++)
    if (F->req[j].key == -1) plan->gpos[F->req[j].k] = F->cur[F->req[j].d]++;
  for (PetscInt i = 0, u = 0; i < F->in2->n; i++)
    for (PetscInt p = F->in2->off[i]; p < F->in2->off[i + 1]; p += 2)
      if (FirstOfUnion(F->in2, i, p)) F->upos[u++] = F->cur[AIJHybridNodeOwner(F->P, F->ranges, F->in2->data[p])]++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F2: as a sender s, each receiver t gets its union (one inter-node message); as a receiver t, I get one per sender s I asked */
static PetscErrorCode FinishF2(Finish *F, AIJHybridNodePlan *plan)
{
  AIJHybridNodePhase *ph  = &plan->fwd[1];
  Via                *via = F->via;
  PetscInt            n = 0, m = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < F->in2->n; i++) {
    F->dest[n]  = F->in2->peer[i];
    F->len[n++] = F->uoff[i + 1] - F->uoff[i];
  }
  if (F->nvia) qsort(via, (size_t)F->nvia, sizeof(Via), CmpViaMgr);
  for (PetscInt j = 0; j < F->nvia; j++) {
    if (j == 0 || via[j].s != via[j - 1].s) {
      F->src[m]    = via[j].s;
      F->rlen[m++] = 0;
    }
    if (j == 0 || via[j].s != via[j - 1].s || via[j].g != via[j - 1].g) F->rlen[m - 1]++;
  }
  PetscCall(PhaseAlloc(ph, n, F->dest, F->len, m, F->src, F->rlen, F->nF1));
  F->nF2 = ph->roff[m] - F->nF1;
  PetscCall(PetscArraycpy(ph->sidx, F->upos, F->nuniq));
  PetscCall(PetscMalloc1(F->nvia, &F->upos_by_c));
  for (PetscInt j = 0, r = -1, u = -1; j < F->nvia; j++) {
    if (j == 0 || via[j].s != via[j - 1].s) {
      r++;
      u = ph->roff[r] - 1;
    }
    if (j == 0 || via[j].s != via[j - 1].s || via[j].g != via[j - 1].g) u++;
    F->upos_by_c[via[j].c] = u;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the messages of F3, and reversed of R3, as a receiver t: one per requester of my node with via
   entries (in1 order), of that many entries */
static PetscInt ViaRequesters(const Finish *F, PetscMPIInt peer[], PetscInt len[])
{
  PetscInt n = 0;

  for (PetscInt i = 0; i < F->in1->n; i++) {
    const PetscInt l = ViaCount(F->in1, i);
    if (l) {
      peer[n]  = F->in1->peer[i];
      len[n++] = l;
    }
  }
  return n;
}

/* the messages of F3, and reversed of R3, as a requester: one per receiver t I asked (req is sorted
   by d), of my ghosts it relays */
static PetscInt MyReceivers(const Finish *F, PetscMPIInt peer[], PetscInt len[])
{
  PetscInt n = 0;

  for (PetscInt j = 0; j < F->nghost; j++) {
    if (F->req[j].key < 0) continue;
    if (!n || peer[n - 1] != F->req[j].d) {
      peer[n]  = F->req[j].d;
      len[n++] = 0;
    }
    len[n - 1]++;
  }
  return n;
}

/* F3: as a receiver t, each requester of my node gets its via entries; I receive mine from my receivers t */
static PetscErrorCode FinishF3(Finish *F, AIJHybridNodePlan *plan)
{
  AIJHybridNodePhase *ph = &plan->fwd[2];
  const PetscInt      n = ViaRequesters(F, F->dest, F->len), m = MyReceivers(F, F->src, F->rlen);

  PetscFunctionBegin;
  PetscCall(PhaseAlloc(ph, n, F->dest, F->len, m, F->src, F->rlen, F->nF1 + F->nF2));
  F->nF3 = ph->roff[m] - F->nF1 - F->nF2;
  PetscCall(PetscArraycpy(ph->sidx, F->upos_by_c, F->nvia));
  for (PetscInt j = 0, c = F->nF1 + F->nF2; j < F->nghost; j++)
    if (F->req[j].key >= 0) plan->gpos[F->req[j].k] = c++;
  plan->nfbuf = F->nF1 + F->nF2 + F->nF3;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R3: I send my receivers t my contributions (rbuf[k] = contribution of ghost k); as t, I receive them in arrival order */
static PetscErrorCode FinishR3(Finish *F, AIJHybridNodePlan *plan)
{
  AIJHybridNodePhase *ph = &plan->rev[0];
  const PetscInt      n = MyReceivers(F, F->dest, F->len), m = ViaRequesters(F, F->src, F->rlen);

  PetscFunctionBegin;
  PetscCall(PhaseAlloc(ph, n, F->dest, F->len, m, F->src, F->rlen, F->nghost));
  F->nR3 = ph->roff[m] - F->nghost;
  for (PetscInt j = 0, c = 0; j < F->nghost; j++)
    if (F->req[j].key >= 0) ph->sidx[c++] = F->req[j].k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R2: as a receiver t, I send each sender s the contributions for its node, sorted by (g, r); as s, I receive per t */
static PetscErrorCode FinishR2(Finish *F, AIJHybridNodePlan *plan)
{
  AIJHybridNodePhase *ph = &plan->rev[1];
  PetscInt            n = 0, m = 0;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < F->nvia; j++) {
    if (j == 0 || F->via[j].s != F->via[j - 1].s) {
      F->dest[n]  = F->via[j].s;
      F->len[n++] = 0;
    }
    F->len[n - 1]++;
  }
  for (PetscInt i = 0; i < F->in2->n; i++) {
    F->src[m]    = F->in2->peer[i];
    F->rlen[m++] = (F->in2->off[i + 1] - F->in2->off[i]) / 2;
  }
  PetscCall(PhaseAlloc(ph, n, F->dest, F->len, m, F->src, F->rlen, F->nghost + F->nR3));
  F->nR2 = ph->roff[m] - F->nghost - F->nR3;
  for (PetscInt j = 0; j < F->nvia; j++) ph->sidx[j] = F->nghost + F->via[j].c;
  PetscCall(PetscMalloc1(F->npairs, &F->pos2));
  for (PetscInt p = 0; p < F->npairs; p++) F->pos2[p] = F->nghost + F->nR3 + p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R1: my direct contributions and, as s, the relayed pairs go to their owners on my node; as an owner, I receive per source */
static PetscErrorCode FinishR1(Finish *F, AIJHybridNodePlan *plan)
{
  AIJHybridNodePhase *ph = &plan->rev[2];
  PetscInt            n = 0, m = 0;
  PetscBool           f1, f3;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < F->in2->n; i++)
    for (PetscInt p = F->in2->off[i]; p < F->in2->off[i + 1]; p += 2) F->nrel[AIJHybridNodeOwner(F->P, F->ranges, F->in2->data[p])]++;
  for (PetscInt l = 0; l < F->nloc; l++) {
    const PetscMPIInt q = F->locr[l];
    if (F->ndir[q] + F->nrel[q]) {
      F->dest[n]  = q;
      F->len[n++] = F->ndir[q] + F->nrel[q];
    }
  }
  for (PetscInt i = 0, j = 0; i < F->in1->n || j < F->in3->n;) {
    const PetscMPIInt d = MergeNext(F, i, j, &f1, &f3);
    const PetscInt   *g;
    PetscInt          l = 0;
    if (f1) l += DirectSection(F->in1, i++, &g);
    if (f3) {
      for (PetscInt c = F->in3->off[j]; c < F->in3->off[j + 1]; c += 2 + 2 * F->in3->data[c + 1]) l += F->in3->data[c + 1];
      j++;
    }
    if (l) {
      F->src[m]    = d;
      F->rlen[m++] = l;
    }
  }
  PetscCall(PhaseAlloc(ph, n, F->dest, F->len, m, F->src, F->rlen, F->nghost + F->nR3 + F->nR2));
  F->nR1 = ph->roff[m] - F->nghost - F->nR3 - F->nR2;
  for (PetscInt i = 0; i < ph->nsend; i++) F->cur[ph->sdest[i]] = ph->soff[i];
  for (PetscInt j = 0; j < F->nghost; j++)
    if (F->req[j].key == -1) ph->sidx[F->cur[F->req[j].d]++] = F->req[j].k;
  for (PetscInt i = 0, p = 0; i < F->in2->n; i++)
    for (PetscInt c = F->in2->off[i]; c < F->in2->off[i + 1]; c += 2, p++) ph->sidx[F->cur[AIJHybridNodeOwner(F->P, F->ranges, F->in2->data[c])]++] = F->pos2[p];
  plan->nrbuf = F->nghost + F->nR3 + F->nR2 + F->nR1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the owner's additions of what R1 delivered, in PetscSF's order: its own contributions, then by ascending requesting rank */
static PetscErrorCode FinishAccumulate(Finish *F, AIJHybridNodePlan *plan)
{
  const PetscInt nacc = F->nR1;
  Acc           *acc;
  PetscInt       c = 0, pos = F->nghost + F->nR3 + F->nR2;
  PetscBool      f1, f3;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nacc, &acc));
  for (PetscInt i = 0, j = 0; i < F->in1->n || j < F->in3->n;) {
    const PetscMPIInt d = MergeNext(F, i, j, &f1, &f3);
    const PetscInt   *g;
    if (f1) {
      PetscInt nd = DirectSection(F->in1, i++, &g);
      for (PetscInt e = 0; e < nd; e++, c++) {
        acc[c].root = g[e] - F->rstart;
        acc[c].leaf = d == F->me ? -1 : d;
        acc[c].pos  = pos++;
      }
    }
    if (f3) {
      for (PetscInt cc = F->in3->off[j]; cc < F->in3->off[j + 1]; cc += 2 + 2 * F->in3->data[cc + 1])
        for (PetscInt e = 0; e < F->in3->data[cc + 1]; e++, c++) {
          acc[c].root = F->in3->data[cc + 2 + 2 * e] - F->rstart;
          acc[c].leaf = (PetscMPIInt)F->in3->data[cc + 3 + 2 * e];
          acc[c].pos  = pos++;
        }
      j++;
    }
  }
  PetscCheck(c == nacc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Inconsistent reverse plan");
  if (nacc) qsort(acc, (size_t)nacc, sizeof(Acc), CmpAcc);
  plan->nacc = nacc;
  PetscCall(PetscMalloc1(nacc, &plan->accroot));
  PetscCall(PetscMalloc1(nacc, &plan->accpos));
  for (PetscInt j = 0; j < nacc; j++) {
    plan->accroot[j] = acc[j].root;
    plan->accpos[j]  = acc[j].pos;
  }
  PetscCall(PetscFree(acc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* statistics: the standard exchange sends each requesting rank one message with its entries; the node-aware phases as planned */
static PetscErrorCode FinishCounts(Finish *F, AIJHybridNodePlan *plan)
{
  const PetscInt Nme = F->topo->node[F->me];
  PetscInt      *cnt = F->cur;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(cnt, F->P));
  for (PetscInt i = 0; i < F->in1->n; i++) {
    const PetscInt *g;
    cnt[F->in1->peer[i]] += DirectSection(F->in1, i, &g);
  }
  for (PetscInt j = 0; j < F->in3->n; j++)
    for (PetscInt c = F->in3->off[j]; c < F->in3->off[j + 1]; c += 2 + 2 * F->in3->data[c + 1])
      for (PetscInt e = 0; e < F->in3->data[c + 1]; e++) cnt[F->in3->data[c + 3 + 2 * e]]++;
  for (PetscMPIInt r = 0; r < F->P; r++) {
    const PetscInt inter = F->topo->node[r] != Nme;
    if (r == F->me || !cnt[r]) continue;
    plan->standard.msgs[inter]++;
    plan->standard.entries[inter] += cnt[r];
  }
  for (PetscInt i = 0; i < 3; i++) {
    PhaseCount(F->topo, F->me, &plan->fwd[i], &plan->forward);
    PhaseCount(F->topo, F->me, &plan->rev[i], &plan->reverse);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodePlanFinish(const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscMPIInt me, PetscInt nghost, const PetscInt ghosts[], const AIJHybridNodeMsgs *in1, const AIJHybridNodeMsgs *in2, const AIJHybridNodeMsgs *in3,
                                       AIJHybridNodePlan *plan)
{
  Finish F;

  PetscFunctionBegin;
  PetscCall(FinishSetUp(&F, topo, ranges, me, nghost, ghosts, in1, in2, in3, plan));
  PetscCall(FinishF1(&F, plan));
  PetscCall(FinishF2(&F, plan));
  PetscCall(FinishF3(&F, plan));
  PetscCall(FinishR3(&F, plan));
  PetscCall(FinishR2(&F, plan));
  PetscCall(FinishR1(&F, plan));
  PetscCall(FinishAccumulate(&F, plan));
  PetscCall(FinishCounts(&F, plan));
  PetscCall(FinishDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* compiling one direction of a plan into a schedule (see nodeplan.h) */

#define ORIGIN_UNSET PETSC_MIN_INT

static PetscErrorCode StepDestroy(AIJHybridNodeStep *st)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(st->sdest));
  PetscCall(PetscFree(st->soff));
  PetscCall(PetscFree(st->sorig));
  PetscCall(PetscFree(st->rsrc));
  PetscCall(PetscFree(st->roff));
  st->nsend = st->nrecv = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodeScheduleDestroy(AIJHybridNodeSchedule *s)
{
  PetscFunctionBegin;
  for (PetscInt p = 0; p < 3; p++) PetscCall(StepDestroy(&s->step[p]));
  PetscCall(PetscFree(s->outorig));
  PetscCall(PetscFree(s->outidx));
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* origin of entry e of the source of phase p: forward F1 reads the roots, every other phase the plan's buffer */
static PetscErrorCode SourceOrigin(const PetscInt origin[], PetscInt nbuf, PetscBool roots, PetscInt e, PetscInt *o)
{
  PetscFunctionBegin;
  if (roots) *o = e;
  else {
    PetscCheck(e >= 0 && e < nbuf && origin[e] != ORIGIN_UNSET, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Plan reads buffer entry %" PetscInt_FMT " before it is filled", e);
    *o = origin[e];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNodeScheduleCreate(const AIJHybridNodePlan *plan, PetscMPIInt me, PetscBool forward, AIJHybridNodeSchedule *s)
{
  const AIJHybridNodePhase *phases = forward ? plan->fwd : plan->rev;
  const PetscInt            nbuf   = forward ? plan->nfbuf : plan->nrbuf;
  PetscInt                 *origin, rcur = 0, scur = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(PetscMalloc1(nbuf, &origin));
  for (PetscInt e = 0; e < nbuf; e++) origin[e] = ORIGIN_UNSET;
  if (!forward)
    for (PetscInt k = 0; k < plan->nghost; k++) origin[k] = k; /* the contributions */
  for (PetscInt p = 0; p < 3; p++) {
    const AIJHybridNodePhase *ph    = &phases[p];
    AIJHybridNodeStep        *st    = &s->step[p];
    const PetscBool           roots = (PetscBool)(forward && p == 0);
    PetscInt                  ns = 0, nr = 0, self_s = -1, self_r = -1;

    for (PetscInt i = 0; i < ph->nsend; i++) {
      if (ph->sdest[i] == me) self_s = i;
      else ns++;
    }
    for (PetscInt j = 0; j < ph->nrecv; j++) {
      if (ph->rsrc[j] == me) self_r = j;
      else nr++;
    }
    PetscCheck((self_s < 0) == (self_r < 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Phase %" PetscInt_FMT " sends to itself without receiving, or the other way", p);
    /* the copy to itself: its entries take the origins of what it copies */
    if (self_s >= 0) {
      const PetscInt n = ph->soff[self_s + 1] - ph->soff[self_s];
      PetscCheck(n == ph->roff[self_r + 1] - ph->roff[self_r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Copy to itself of %" PetscInt_FMT " entries into %" PetscInt_FMT, n, ph->roff[self_r + 1] - ph->roff[self_r]);
      for (PetscInt e = 0; e < n; e++) PetscCall(SourceOrigin(origin, nbuf, roots, ph->sidx[ph->soff[self_s] + e], &origin[ph->roff[self_r] + e]));
    }
    /* messages from other ranks land in the receive buffer, phase after phase */
    st->nrecv = nr;
    PetscCall(PetscMalloc1(nr, &st->rsrc));
    PetscCall(PetscMalloc1(nr + 1, &st->roff));
    st->roff[0] = rcur;
    for (PetscInt j = 0, c = 0; j < ph->nrecv; j++) {
      if (j == self_r) continue;
      st->rsrc[c] = ph->rsrc[j];
      for (PetscInt e = ph->roff[j]; e < ph->roff[j + 1]; e++) origin[e] = AIJHybridNodeOriginRecv(rcur++);
      st->roff[++c] = rcur;
    }
    /* messages to other ranks: each entry named by its origin */
    st->nsend = ns;
    PetscCall(PetscMalloc1(ns, &st->sdest));
    PetscCall(PetscMalloc1(ns + 1, &st->soff));
    st->soff[0] = scur;
    for (PetscInt i = 0, c = 0; i < ph->nsend; i++) {
      if (i == self_s) continue;
      st->sdest[c] = ph->sdest[i];
      scur += ph->soff[i + 1] - ph->soff[i];
      st->soff[++c] = scur;
    }
    PetscCall(PetscMalloc1(scur - st->soff[0], &st->sorig));
    st->from_src = PETSC_TRUE;
    for (PetscInt i = 0, c = 0; i < ph->nsend; i++) {
      if (i == self_s) continue;
      for (PetscInt e = ph->soff[i]; e < ph->soff[i + 1]; e++, c++) {
        PetscCall(SourceOrigin(origin, nbuf, roots, ph->sidx[e], &st->sorig[c]));
        if (st->sorig[c] < 0) st->from_src = PETSC_FALSE;
      }
    }
  }
  s->nsbuf = scur;
  s->nrbuf = rcur;
  if (forward) {
    s->nout = plan->nghost;
    PetscCall(PetscMalloc1(s->nout, &s->outorig));
    for (PetscInt k = 0; k < s->nout; k++) PetscCall(SourceOrigin(origin, nbuf, PETSC_FALSE, plan->gpos[k], &s->outorig[k]));
  } else {
    s->nout = plan->nacc;
    PetscCall(PetscMalloc1(s->nout, &s->outorig));
    PetscCall(PetscMalloc1(s->nout, &s->outidx));
    for (PetscInt j = 0; j < s->nout; j++) {
      PetscCall(SourceOrigin(origin, nbuf, PETSC_FALSE, plan->accpos[j], &s->outorig[j]));
      s->outidx[j] = plan->accroot[j];
    }
  }
  PetscCall(PetscFree(origin));
  PetscFunctionReturn(PETSC_SUCCESS);
}
