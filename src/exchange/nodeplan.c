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
  for (PetscInt k = 0; k < nghost; k++) PetscCheck(AIJHybridNodeOwner(topo->size, ranges, ghosts[k]) >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Ghost %" PetscInt_FMT " (global index %" PetscInt_FMT ") out of the layout [0, %" PetscInt_FMT ")", k, ghosts[k], ranges[topo->size]);
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
      peer[n] = req[j].d;
      len[n++] = 0;
    }
    if (j == 0 || req[j].d != req[j - 1].d || req[j].key != req[j - 1].key) len[n - 1] += 2; /* section header */
    len[n - 1]++;
  }
  PetscCall(MsgsAlloc(n, peer, len, out));
  for (PetscInt j = 0, hdr = 0; j < nghost; j++) {
    if (j == 0 || req[j].d != req[j - 1].d || req[j].key != req[j - 1].key) {
      hdr               = c;
      out->data[c++]    = req[j].key;
      out->data[c++]    = 0;
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
  const PetscInt M = topo->node[me];
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

PetscErrorCode AIJHybridNodePlanFinish(const AIJHybridNodeTopo *topo, const PetscInt ranges[], PetscMPIInt me, PetscInt nghost, const PetscInt ghosts[], const AIJHybridNodeMsgs *in1, const AIJHybridNodeMsgs *in2, const AIJHybridNodeMsgs *in3, AIJHybridNodePlan *plan)
{
  const PetscMPIInt P = topo->size;
  const PetscInt    Nme = topo->node[me], rstart = ranges[me], rend = ranges[me + 1];
  const PetscInt    nloc = topo->nptr[Nme + 1] - topo->nptr[Nme];
  const PetscMPIInt *locr = topo->nranks + topo->nptr[Nme]; /* ranks of my node, ascending */
  Req              *req;
  Via              *via;
  Acc              *acc;
  PetscInt          nvia, npairs = in2->off[in2->n] / 2, nuniq = 0, *uoff, *upos, *upos_by_c, *ndir, *ngat, *nrel, *cur, *pos2;
  PetscInt         *len, *rlen, n, m, nF1, nF2, nF3, nR3, nR2, nR1, nacc;
  PetscMPIInt      *dest, *src;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  plan->nghost = nghost;
  PetscCall(BuildRequests(topo, ranges, me, nghost, ghosts, &req));
  PetscCall(ParseVia(topo, me, in1, &nvia, &via));
  PetscCall(PetscCalloc4(P, &ndir, P, &ngat, P, &nrel, P, &cur));
  PetscCall(PetscMalloc2(P + 1, &dest, P + 1, &src));
  PetscCall(PetscMalloc2(P + 1, &len, P + 1, &rlen));
  PetscCall(PetscMalloc1(nghost, &plan->gpos));

  /* unique g of each union received (in2 message i: pairs sorted by (g, r)) */
  PetscCall(PetscMalloc1(in2->n + 1, &uoff));
  uoff[0] = 0;
  for (PetscInt i = 0; i < in2->n; i++) {
    for (PetscInt p = in2->off[i]; p < in2->off[i + 1]; p += 2)
      if (p == in2->off[i] || in2->data[p] != in2->data[p - 2]) nuniq++;
    uoff[i + 1] = nuniq;
  }
  PetscCall(PetscMalloc1(nuniq, &upos));

  /* ---- F1: direct sends and gathers from x; receives from the ranks of my node ---- */
  n = 0;
  for (PetscInt i = 0, j = 0; i < in1->n || j < in3->n;) { /* merge the direct requesters and the senders s */
    const PetscMPIInt a = i < in1->n ? in1->peer[i] : P, b = j < in3->n ? in3->peer[j] : P, d = PetscMin(a, b);
    const PetscInt   *g;
    PetscInt          l = 0;
    if (a == d) l += DirectSection(in1, i++, &g);
    if (b == d) {
      for (PetscInt c = in3->off[j]; c < in3->off[j + 1]; c += 2 + 2 * in3->data[c + 1])
        for (PetscInt e = 0; e < in3->data[c + 1]; e++)
          if (e == 0 || in3->data[c + 2 + 2 * e] != in3->data[c + 2 * e]) l++;
      j++;
    }
    if (l) {
      dest[n]  = d;
      len[n++] = l;
    }
  }
  for (PetscInt j = 0; j < nghost; j++)
    if (req[j].key == -1) ndir[req[j].d]++;
  for (PetscInt i = 0; i < in2->n; i++)
    for (PetscInt p = in2->off[i]; p < in2->off[i + 1]; p += 2)
      if (p == in2->off[i] || in2->data[p] != in2->data[p - 2]) ngat[AIJHybridNodeOwner(P, ranges, in2->data[p])]++;
  m = 0;
  for (PetscInt l = 0; l < nloc; l++) {
    const PetscMPIInt q = locr[l];
    if (ndir[q] + ngat[q]) {
      src[m]    = q;
      rlen[m++] = ndir[q] + ngat[q];
    }
  }
  PetscCall(PhaseAlloc(&plan->fwd[0], n, dest, len, m, src, rlen, 0));
  nF1 = plan->fwd[0].roff[m];
  { /* send indices: the direct section, then per t-section the unique g */
    AIJHybridNodePhase *ph = &plan->fwd[0];
    PetscInt            c0 = 0;
    for (PetscInt i = 0, j = 0; i < in1->n || j < in3->n;) {
      const PetscMPIInt a = i < in1->n ? in1->peer[i] : P, b = j < in3->n ? in3->peer[j] : P, d = PetscMin(a, b);
      const PetscInt   *g;
      if (a == d) {
        PetscInt nd = DirectSection(in1, i++, &g);
        for (PetscInt e = 0; e < nd; e++) {
          PetscCheck(g[e] >= rstart && g[e] < rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Direct request for %" PetscInt_FMT " not owned by rank %d", g[e], me);
          ph->sidx[c0++] = g[e] - rstart;
        }
      }
      if (b == d) {
        for (PetscInt c = in3->off[j]; c < in3->off[j + 1]; c += 2 + 2 * in3->data[c + 1])
          for (PetscInt e = 0; e < in3->data[c + 1]; e++) {
            const PetscInt gg = in3->data[c + 2 + 2 * e];
            PetscCheck(gg >= rstart && gg < rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Relay of %" PetscInt_FMT " not owned by rank %d", gg, me);
            if (e == 0 || gg != in3->data[c + 2 * e]) ph->sidx[c0++] = gg - rstart;
          }
        j++;
      }
    }
    /* receive positions: my direct ghosts, then the gathered entries in (t, g) order per owner */
    for (PetscInt r = 0; r < ph->nrecv; r++) cur[ph->rsrc[r]] = ph->roff[r];
    for (PetscInt j = 0; j < nghost; j++)
      if (req[j].key == -1) plan->gpos[req[j].k] = cur[req[j].d]++;
    for (PetscInt i = 0, u = 0; i < in2->n; i++)
      for (PetscInt p = in2->off[i]; p < in2->off[i + 1]; p += 2)
        if (p == in2->off[i] || in2->data[p] != in2->data[p - 2]) upos[u++] = cur[AIJHybridNodeOwner(P, ranges, in2->data[p])]++;
  }

  /* ---- F2: s sends each t its union; t receives from the senders s of the nodes it asked ---- */
  n = 0;
  for (PetscInt i = 0; i < in2->n; i++) {
    dest[n]  = in2->peer[i];
    len[n++] = uoff[i + 1] - uoff[i];
  }
  if (nvia) qsort(via, (size_t)nvia, sizeof(Via), CmpViaMgr);
  m = 0;
  for (PetscInt j = 0; j < nvia; j++) {
    if (j == 0 || via[j].s != via[j - 1].s) {
      src[m]    = via[j].s;
      rlen[m++] = 0;
    }
    if (j == 0 || via[j].s != via[j - 1].s || via[j].g != via[j - 1].g) rlen[m - 1]++;
  }
  PetscCall(PhaseAlloc(&plan->fwd[1], n, dest, len, m, src, rlen, nF1));
  nF2 = plan->fwd[1].roff[m] - nF1;
  PetscCall(PetscArraycpy(plan->fwd[1].sidx, upos, nuniq));
  PetscCall(PetscMalloc1(nvia, &upos_by_c));
  for (PetscInt j = 0, r = -1, u = -1; j < nvia; j++) {
    if (j == 0 || via[j].s != via[j - 1].s) {
      r++;
      u = plan->fwd[1].roff[r] - 1;
    }
    if (j == 0 || via[j].s != via[j - 1].s || via[j].g != via[j - 1].g) u++;
    upos_by_c[via[j].c] = u;
  }

  /* ---- F3: t sends each requester its via entries; r receives from its receivers t ---- */
  n = 0;
  for (PetscInt i = 0; i < in1->n; i++) {
    const PetscInt l = ViaCount(in1, i);
    if (l) {
      dest[n]  = in1->peer[i];
      len[n++] = l;
    }
  }
  m = 0;
  for (PetscInt j = 0; j < nghost; j++) {
    if (req[j].key < 0) continue;
    if (!m || src[m - 1] != req[j].d) {
      src[m]    = req[j].d;
      rlen[m++] = 0;
    }
    rlen[m - 1]++;
  }
  PetscCall(PhaseAlloc(&plan->fwd[2], n, dest, len, m, src, rlen, nF1 + nF2));
  nF3 = plan->fwd[2].roff[m] - nF1 - nF2;
  PetscCall(PetscArraycpy(plan->fwd[2].sidx, upos_by_c, nvia));
  for (PetscInt j = 0, c = nF1 + nF2; j < nghost; j++)
    if (req[j].key >= 0) plan->gpos[req[j].k] = c++;
  plan->nfbuf = nF1 + nF2 + nF3;

  /* ---- R3: r sends t its contributions (rbuf[k] = contribution of ghost k); t receives them in arrival order ---- */
  n = 0;
  for (PetscInt j = 0; j < nghost; j++) {
    if (req[j].key < 0) continue;
    if (!n || dest[n - 1] != req[j].d) {
      dest[n]  = req[j].d;
      len[n++] = 0;
    }
    len[n - 1]++;
  }
  m = 0;
  for (PetscInt i = 0; i < in1->n; i++) {
    const PetscInt l = ViaCount(in1, i);
    if (l) {
      src[m]    = in1->peer[i];
      rlen[m++] = l;
    }
  }
  PetscCall(PhaseAlloc(&plan->rev[0], n, dest, len, m, src, rlen, nghost));
  nR3 = plan->rev[0].roff[m] - nghost;
  for (PetscInt j = 0, c = 0; j < nghost; j++)
    if (req[j].key >= 0) plan->rev[0].sidx[c++] = req[j].k;

  /* ---- R2: t sends each s the contributions for its node, sorted by (g, r); s receives per t ---- */
  n = 0;
  for (PetscInt j = 0; j < nvia; j++) {
    if (j == 0 || via[j].s != via[j - 1].s) {
      dest[n]  = via[j].s;
      len[n++] = 0;
    }
    len[n - 1]++;
  }
  m = 0;
  for (PetscInt i = 0; i < in2->n; i++) {
    src[m]    = in2->peer[i];
    rlen[m++] = (in2->off[i + 1] - in2->off[i]) / 2;
  }
  PetscCall(PhaseAlloc(&plan->rev[1], n, dest, len, m, src, rlen, nghost + nR3));
  nR2 = plan->rev[1].roff[m] - nghost - nR3;
  for (PetscInt j = 0; j < nvia; j++) plan->rev[1].sidx[j] = nghost + via[j].c;
  PetscCall(PetscMalloc1(npairs, &pos2));
  for (PetscInt p = 0; p < npairs; p++) pos2[p] = nghost + nR3 + p;

  /* ---- R1: direct contributions and relayed pairs to the owners of my node; owners receive per source ---- */
  for (PetscInt i = 0; i < in2->n; i++)
    for (PetscInt p = in2->off[i]; p < in2->off[i + 1]; p += 2) nrel[AIJHybridNodeOwner(P, ranges, in2->data[p])]++;
  n = 0;
  for (PetscInt l = 0; l < nloc; l++) {
    const PetscMPIInt q = locr[l];
    if (ndir[q] + nrel[q]) {
      dest[n]  = q;
      len[n++] = ndir[q] + nrel[q];
    }
  }
  m = 0;
  for (PetscInt i = 0, j = 0; i < in1->n || j < in3->n;) {
    const PetscMPIInt a = i < in1->n ? in1->peer[i] : P, b = j < in3->n ? in3->peer[j] : P, d = PetscMin(a, b);
    const PetscInt   *g;
    PetscInt          l = 0;
    if (a == d) l += DirectSection(in1, i++, &g);
    if (b == d) {
      for (PetscInt c = in3->off[j]; c < in3->off[j + 1]; c += 2 + 2 * in3->data[c + 1]) l += in3->data[c + 1];
      j++;
    }
    if (l) {
      src[m]    = d;
      rlen[m++] = l;
    }
  }
  PetscCall(PhaseAlloc(&plan->rev[2], n, dest, len, m, src, rlen, nghost + nR3 + nR2));
  nR1 = plan->rev[2].roff[m] - nghost - nR3 - nR2;
  {
    AIJHybridNodePhase *ph = &plan->rev[2];
    for (PetscInt i = 0; i < ph->nsend; i++) cur[ph->sdest[i]] = ph->soff[i];
    for (PetscInt j = 0; j < nghost; j++)
      if (req[j].key == -1) ph->sidx[cur[req[j].d]++] = req[j].k;
    for (PetscInt i = 0, p = 0; i < in2->n; i++)
      for (PetscInt c = in2->off[i]; c < in2->off[i + 1]; c += 2, p++) ph->sidx[cur[AIJHybridNodeOwner(P, ranges, in2->data[c])]++] = pos2[p];
  }
  /* the owner's additions, in PetscSF's order: own contributions, then by ascending requesting rank */
  nacc = nR1;
  PetscCall(PetscMalloc1(nacc, &acc));
  {
    PetscInt c = 0, pos = nghost + nR3 + nR2;
    for (PetscInt i = 0, j = 0; i < in1->n || j < in3->n;) {
      const PetscMPIInt a = i < in1->n ? in1->peer[i] : P, b = j < in3->n ? in3->peer[j] : P, d = PetscMin(a, b);
      const PetscInt   *g;
      if (a == d) {
        PetscInt nd = DirectSection(in1, i++, &g);
        for (PetscInt e = 0; e < nd; e++, c++) {
          acc[c].root = g[e] - rstart;
          acc[c].leaf = d == me ? -1 : d;
          acc[c].pos  = pos++;
        }
      }
      if (b == d) {
        for (PetscInt cc = in3->off[j]; cc < in3->off[j + 1]; cc += 2 + 2 * in3->data[cc + 1])
          for (PetscInt e = 0; e < in3->data[cc + 1]; e++, c++) {
            acc[c].root = in3->data[cc + 2 + 2 * e] - rstart;
            acc[c].leaf = (PetscMPIInt)in3->data[cc + 3 + 2 * e];
            acc[c].pos  = pos++;
          }
        j++;
      }
    }
    PetscCheck(c == nacc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Inconsistent reverse plan");
  }
  if (nacc) qsort(acc, (size_t)nacc, sizeof(Acc), CmpAcc);
  plan->nacc = nacc;
  PetscCall(PetscMalloc1(nacc, &plan->accroot));
  PetscCall(PetscMalloc1(nacc, &plan->accpos));
  for (PetscInt j = 0; j < nacc; j++) {
    plan->accroot[j] = acc[j].root;
    plan->accpos[j]  = acc[j].pos;
  }
  plan->nrbuf = nghost + nR3 + nR2 + nR1;

  /* ---- statistics: the standard exchange sends each requesting rank one message with its entries ---- */
  PetscCall(PetscArrayzero(cur, P));
  for (PetscInt i = 0; i < in1->n; i++) {
    const PetscInt *g;
    cur[in1->peer[i]] += DirectSection(in1, i, &g);
  }
  for (PetscInt j = 0; j < in3->n; j++)
    for (PetscInt c = in3->off[j]; c < in3->off[j + 1]; c += 2 + 2 * in3->data[c + 1])
      for (PetscInt e = 0; e < in3->data[c + 1]; e++) cur[in3->data[c + 3 + 2 * e]]++;
  for (PetscMPIInt r = 0; r < P; r++) {
    const PetscInt inter = topo->node[r] != Nme;
    if (r == me || !cur[r]) continue;
    plan->standard.msgs[inter]++;
    plan->standard.entries[inter] += cur[r];
  }
  for (PetscInt i = 0; i < 3; i++) {
    PhaseCount(topo, me, &plan->fwd[i], &plan->forward);
    PhaseCount(topo, me, &plan->rev[i], &plan->reverse);
  }

  PetscCall(PetscFree(acc));
  PetscCall(PetscFree(pos2));
  PetscCall(PetscFree(upos_by_c));
  PetscCall(PetscFree(upos));
  PetscCall(PetscFree(uoff));
  PetscCall(PetscFree2(len, rlen));
  PetscCall(PetscFree2(dest, src));
  PetscCall(PetscFree4(ndir, ngat, nrel, cur));
  PetscCall(PetscFree(via));
  PetscCall(PetscFree(req));
  PetscFunctionReturn(PETSC_SUCCESS);
}
