/*
   Unit tests of the pure node-aware plan builder (src/sf/nodeplan.c), in one process: the
   plans of P simulated ranks are built by running the setup steps and routing their messages in
   memory, then executed in memory.

   Seeded random cases, P = 1..9 ranks, with rank -> node maps of k consecutive ranks (k = 1..P, the
   last node smaller), random labels (uneven, non-consecutive nodes), ranks owning nothing, ranks
   needing nothing, ghosts owned by the rank itself, ghosts in any order. Properties:
     - every message of every phase has exactly one matching receive of the same length;
     - forward: every ghost equals the owner's value (exact);
     - reverse: every owned entry equals, bitwise, y0 plus the contributions added in PetscSF's order
       (the owner's own first, then by ascending requesting rank);
     - every inter-node message is an F2 message, at most one per ordered node pair, and their number
       is the number of ordered node pairs with traffic; the standard count is the number of
       (owner, requester) rank pairs on different nodes with traffic; all other messages are on-node;
     - inter-node entries = sum over node pairs of the size of the union needed;
     - a rank sends at most ceil(nnodes / ranks of its node) inter-node messages;
     - bad input (duplicate ghost, out of range) is an error;
     - the compiled schedules (AIJHybridNodeScheduleCreate) of both directions, run in memory from
       their origins, give the same ghosts and the same bitwise sums, with no message of a rank to
       itself, the plan's number of messages to other ranks, and, with one rank per node, one
       direct message per rank pair that can start at the beginning of the exchange.
   Prints "N passed, N failed" and exits non-zero on any failure.
*/
#include "sf/nodeplan.h"
#include "unitcheck.h"

/* deliver out[r] (r = 0..P-1) into in[d], sources ascending */
static PetscErrorCode Route(PetscMPIInt P, const AIJHybridNodeMsgs out[], AIJHybridNodeMsgs in[])
{
  PetscFunctionBegin;
  for (PetscMPIInt d = 0; d < P; d++) {
    PetscInt     n = 0, len = 0;
    PetscMPIInt *peer;
    PetscInt    *l;

    for (PetscMPIInt r = 0; r < P; r++)
      for (PetscInt i = 0; i < out[r].n; i++)
        if (out[r].peer[i] == d) {
          n++;
          len += out[r].off[i + 1] - out[r].off[i];
        }
    in[d].n = n;
    PetscCall(PetscMalloc2(n, &peer, n, &l));
    PetscCall(PetscMalloc1(n, &in[d].peer));
    PetscCall(PetscMalloc1(n + 1, &in[d].off));
    PetscCall(PetscMalloc1(len, &in[d].data));
    in[d].off[0] = 0;
    n            = 0;
    for (PetscMPIInt r = 0; r < P; r++)
      for (PetscInt i = 0; i < out[r].n; i++)
        if (out[r].peer[i] == d) {
          const PetscInt ln = out[r].off[i + 1] - out[r].off[i];
          in[d].peer[n]     = r;
          PetscCall(PetscArraycpy(in[d].data + in[d].off[n], out[r].data + out[r].off[i], ln));
          in[d].off[n + 1] = in[d].off[n] + ln;
          n++;
        }
    PetscCall(PetscFree2(peer, l));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the recv section of phase ph[d] from r, or -1 */
static PetscInt FindRecv(const AIJHybridNodePhase *ph, PetscMPIInt r)
{
  for (PetscInt j = 0; j < ph->nrecv; j++)
    if (ph->rsrc[j] == r) return j;
  return -1;
}

/* check the matching of one phase over all ranks, then run it: src[r] -> buf[d] */
static void RunPhase(PetscMPIInt P, AIJHybridNodePlan plan[], PetscInt which, PetscBool fwd, PetscScalar *src[], PetscScalar *buf[], const char *name)
{
  PetscInt nsend = 0, nrecv = 0;
  for (PetscMPIInt r = 0; r < P; r++) {
    const AIJHybridNodePhase *ph = fwd ? &plan[r].fwd[which] : &plan[r].rev[which];
    nrecv += ph->nrecv;
    for (PetscInt i = 0; i < ph->nsend; i++) {
      const PetscMPIInt         d  = ph->sdest[i];
      const AIJHybridNodePhase *pd = fwd ? &plan[d].fwd[which] : &plan[d].rev[which];
      const PetscInt            j  = FindRecv(pd, r);
      nsend++;
      CHECK(j >= 0 && pd->roff[j + 1] - pd->roff[j] == ph->soff[i + 1] - ph->soff[i], "%s: message %d -> %d of %" PetscInt_FMT " entries has no matching receive", name, r, d, ph->soff[i + 1] - ph->soff[i]);
      if (j < 0 || pd->roff[j + 1] - pd->roff[j] != ph->soff[i + 1] - ph->soff[i]) continue;
      CHECK(ph->soff[i + 1] > ph->soff[i], "%s: empty message %d -> %d", name, r, d);
      for (PetscInt e = 0; e < ph->soff[i + 1] - ph->soff[i]; e++) buf[d][pd->roff[j] + e] = src[r][ph->sidx[ph->soff[i] + e]];
    }
  }
  CHECK(nsend == nrecv, "%s: %" PetscInt_FMT " sends, %" PetscInt_FMT " receives", name, nsend, nrecv);
}

/* value of an origin on rank r */
static inline PetscScalar Origin(PetscInt o, const PetscScalar *src, const PetscScalar *rb)
{
  return o >= 0 ? src[o] : rb[AIJHybridNodeOriginRecv(o)];
}

/* run the compiled schedules s[r] (one direction) of all ranks: sources src[r] -> receive buffers rb[r] */
static PetscErrorCode RunSchedules(PetscMPIInt P, const AIJHybridNodeSchedule s[], PetscScalar *src[], PetscScalar *rb[], const char *desc)
{
  PetscFunctionBegin;
  for (PetscInt p = 0; p < 3; p++) {
    PetscScalar **sb;
    PetscInt      nsend = 0, nrecv = 0;
    PetscCall(PetscMalloc1(P, &sb));
    for (PetscMPIInt r = 0; r < P; r++) { /* pack every rank's messages of this phase first: a phase must not read its own receives */
      const AIJHybridNodeStep *st = &s[r].step[p];
      const PetscInt           n  = st->soff[st->nsend] - st->soff[0];
      PetscCall(PetscMalloc1(n, &sb[r]));
      for (PetscInt e = 0; e < n; e++) {
        CHECK(st->sorig[e] >= 0 || AIJHybridNodeOriginRecv(st->sorig[e]) < s[r].step[p].roff[0], "%s: phase %" PetscInt_FMT " of rank %d sends an entry it receives in the same phase", desc, p, r);
        sb[r][e] = Origin(st->sorig[e], src[r], rb[r]);
      }
      if (st->from_src)
        for (PetscInt e = 0; e < n; e++) CHECK(st->sorig[e] >= 0, "%s: phase %" PetscInt_FMT " marked as from the source", desc, p);
      nrecv += st->nrecv;
    }
    for (PetscMPIInt r = 0; r < P; r++) {
      const AIJHybridNodeStep *st = &s[r].step[p];
      for (PetscInt i = 0; i < st->nsend; i++) {
        const PetscMPIInt        d  = st->sdest[i];
        const AIJHybridNodeStep *sd = &s[d].step[p];
        PetscInt                 j  = -1;
        nsend++;
        CHECK(d != r, "%s: phase %" PetscInt_FMT ": rank %d sends to itself", desc, p, r);
        for (PetscInt jj = 0; jj < sd->nrecv; jj++)
          if (sd->rsrc[jj] == r) j = jj;
        CHECK(j >= 0 && sd->roff[j + 1] - sd->roff[j] == st->soff[i + 1] - st->soff[i], "%s: phase %" PetscInt_FMT ": message %d -> %d has no matching receive", desc, p, r, d);
        if (j < 0 || sd->roff[j + 1] - sd->roff[j] != st->soff[i + 1] - st->soff[i]) continue;
        for (PetscInt e = 0; e < st->soff[i + 1] - st->soff[i]; e++) rb[d][sd->roff[j] + e] = sb[r][st->soff[i] - st->soff[0] + e];
      }
    }
    CHECK(nsend == nrecv, "%s: phase %" PetscInt_FMT ": %" PetscInt_FMT " sends, %" PetscInt_FMT " receives", desc, p, nsend, nrecv);
    for (PetscMPIInt r = 0; r < P; r++) PetscCall(PetscFree(sb[r]));
    PetscCall(PetscFree(sb));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscMPIInt P;
  PetscInt   *label;  /* [P] */
  PetscInt   *ranges; /* [P+1] */
  PetscInt   *ng;     /* [P] */
  PetscInt  **ghosts;
} Case;

static PetscErrorCode RunCase(const Case *cs, const char *desc)
{
  const PetscMPIInt  P = cs->P;
  AIJHybridNodeTopo  topo;
  AIJHybridNodeMsgs *o1, *i1, *o2, *i2, *o3, *i3;
  AIJHybridNodePlan *plan;
  PetscScalar      **x, **fbuf, **rbuf, **y, **yref, **y0;
  PetscInt           nn, *pairs, std_inter = 0, na_inter = 0, inter_entries = 0, exp_entries = 0, nstd_pairs = 0, nna_pairs = 0;
  PetscInt           tot_std_inter = 0, tot_std_on = 0;

  PetscFunctionBegin;
  PetscCall(AIJHybridNodeTopoCreate(P, cs->label, &topo));
  nn = topo.nnodes;
  PetscCall(PetscCalloc6(P, &o1, P, &i1, P, &o2, P, &i2, P, &o3, P, &i3));
  PetscCall(PetscCalloc1(P, &plan));
  for (PetscMPIInt r = 0; r < P; r++) PetscCall(AIJHybridNodePlanRequests(&topo, cs->ranges, r, cs->ng[r], cs->ghosts[r], &o1[r]));
  PetscCall(Route(P, o1, i1));
  for (PetscMPIInt r = 0; r < P; r++) PetscCall(AIJHybridNodePlanUnions(&topo, cs->ranges, r, &i1[r], &o2[r]));
  PetscCall(Route(P, o2, i2));
  for (PetscMPIInt r = 0; r < P; r++) PetscCall(AIJHybridNodePlanSplit(&topo, cs->ranges, r, &i2[r], &o3[r]));
  PetscCall(Route(P, o3, i3));
  for (PetscMPIInt r = 0; r < P; r++) PetscCall(AIJHybridNodePlanFinish(&topo, cs->ranges, r, cs->ng[r], cs->ghosts[r], &i1[r], &i2[r], &i3[r], &plan[r]));

  /* forward */
  PetscCall(PetscMalloc5(P, &x, P, &fbuf, P, &rbuf, P, &y, P, &yref));
  PetscCall(PetscMalloc1(P, &y0));
  for (PetscMPIInt r = 0; r < P; r++) {
    const PetscInt nloc = cs->ranges[r + 1] - cs->ranges[r];
    PetscCall(PetscMalloc1(nloc, &x[r]));
    PetscCall(PetscMalloc1(nloc, &y[r]));
    PetscCall(PetscMalloc1(nloc, &yref[r]));
    for (PetscInt i = 0; i < nloc; i++) x[r][i] = (PetscScalar)(cs->ranges[r] + i) + 0.25;
    PetscCall(PetscMalloc1(plan[r].nfbuf, &fbuf[r]));
    for (PetscInt i = 0; i < plan[r].nfbuf; i++) fbuf[r][i] = -1e300;
    PetscCall(PetscMalloc1(plan[r].nrbuf, &rbuf[r]));
  }
  RunPhase(P, plan, 0, PETSC_TRUE, x, fbuf, "F1");
  RunPhase(P, plan, 1, PETSC_TRUE, fbuf, fbuf, "F2");
  RunPhase(P, plan, 2, PETSC_TRUE, fbuf, fbuf, "F3");
  {
    PetscInt bad = 0;
    for (PetscMPIInt r = 0; r < P; r++)
      for (PetscInt k = 0; k < cs->ng[r]; k++)
        if (fbuf[r][plan[r].gpos[k]] != (PetscScalar)cs->ghosts[r][k] + 0.25) bad++;
    CHECK(bad == 0, "%s: %" PetscInt_FMT " wrong ghost values after the forward exchange", desc, bad);
  }

  /* reverse: contributions of awkward magnitudes so that the order of the additions shows */
  for (PetscMPIInt r = 0; r < P; r++) {
    const PetscInt nloc = cs->ranges[r + 1] - cs->ranges[r];
    for (PetscInt k = 0; k < cs->ng[r]; k++) rbuf[r][k] = (Uniform() - 0.5) * PetscPowReal(10.0, (PetscReal)RandInt(17) - 8);
    PetscCall(PetscMalloc1(nloc, &y0[r]));
    for (PetscInt i = 0; i < nloc; i++) y0[r][i] = y[r][i] = yref[r][i] = Uniform() * 1e-3;
  }
  /* reference: owner's own contribution first, then by ascending rank (PetscSF's order) */
  for (PetscMPIInt q = 0; q < P; q++) {
    for (PetscInt k = 0; k < cs->ng[q]; k++) {
      const PetscInt g = cs->ghosts[q][k];
      if (g >= cs->ranges[q] && g < cs->ranges[q + 1]) yref[q][g - cs->ranges[q]] += rbuf[q][k];
    }
  }
  for (PetscMPIInt r = 0; r < P; r++)
    for (PetscInt k = 0; k < cs->ng[r]; k++) {
      const PetscInt    g = cs->ghosts[r][k];
      const PetscMPIInt q = AIJHybridNodeOwner(P, cs->ranges, g);
      if (q != r) yref[q][g - cs->ranges[q]] += rbuf[r][k];
    }
  RunPhase(P, plan, 0, PETSC_FALSE, rbuf, rbuf, "R3");
  RunPhase(P, plan, 1, PETSC_FALSE, rbuf, rbuf, "R2");
  RunPhase(P, plan, 2, PETSC_FALSE, rbuf, rbuf, "R1");
  {
    PetscInt bad = 0;
    for (PetscMPIInt q = 0; q < P; q++) {
      for (PetscInt j = 0; j < plan[q].nacc; j++) y[q][plan[q].accroot[j]] += rbuf[q][plan[q].accpos[j]];
      for (PetscInt i = 0; i < cs->ranges[q + 1] - cs->ranges[q]; i++)
        if (memcmp(&y[q][i], &yref[q][i], sizeof(PetscScalar))) bad++;
    }
    CHECK(bad == 0, "%s: %" PetscInt_FMT " entries differ bitwise from the standard order after the reverse exchange", desc, bad);
  }

  /* the compiled schedules: the same results without copies to itself */
  {
    AIJHybridNodeSchedule *sf, *sr;
    PetscScalar          **rb, **ctb;
    PetscInt               bad = 0, badsum = 0;
    PetscBool              one_per_node = (PetscBool)(topo.nnodes == P);
    PetscCall(PetscCalloc2(P, &sf, P, &sr));
    PetscCall(PetscMalloc2(P, &rb, P, &ctb));
    for (PetscMPIInt r = 0; r < P; r++) {
      PetscInt nmsg[2] = {0, 0};
      PetscCall(AIJHybridNodeScheduleCreate(&plan[r], r, PETSC_TRUE, &sf[r]));
      PetscCall(AIJHybridNodeScheduleCreate(&plan[r], r, PETSC_FALSE, &sr[r]));
      for (PetscInt p = 0; p < 3; p++) {
        nmsg[0] += sf[r].step[p].nsend;
        nmsg[1] += sr[r].step[p].nsend;
      }
      CHECK(nmsg[0] == plan[r].forward.msgs[0] + plan[r].forward.msgs[1] && nmsg[1] == plan[r].reverse.msgs[0] + plan[r].reverse.msgs[1], "%s: rank %d: compiled messages %" PetscInt_FMT "/%" PetscInt_FMT " differ from the plan's", desc, r, nmsg[0],
            nmsg[1]);
      if (one_per_node) {
        CHECK(!sf[r].step[0].nsend && !sf[r].step[2].nsend && !sr[r].step[0].nsend && !sr[r].step[2].nsend && sf[r].step[1].from_src && sr[r].step[1].from_src, "%s: rank %d: one rank per node is not one direct step", desc, r);
        CHECK(nmsg[0] == plan[r].standard.msgs[0] + plan[r].standard.msgs[1], "%s: rank %d: one rank per node sends %" PetscInt_FMT " messages, the standard exchange %" PetscInt_FMT, desc, r, nmsg[0], plan[r].standard.msgs[1]);
      }
      PetscCall(PetscMalloc1(PetscMax(sf[r].nrbuf, sr[r].nrbuf), &rb[r]));
      PetscCall(PetscMalloc1(cs->ng[r], &ctb[r]));
      for (PetscInt k = 0; k < cs->ng[r]; k++) ctb[r][k] = rbuf[r][k]; /* the contributions, unchanged by the plan's run */
    }
    PetscCall(RunSchedules(P, sf, x, rb, desc));
    for (PetscMPIInt r = 0; r < P; r++)
      for (PetscInt k = 0; k < cs->ng[r]; k++)
        if (Origin(sf[r].outorig[k], x[r], rb[r]) != (PetscScalar)cs->ghosts[r][k] + 0.25) bad++;
    CHECK(bad == 0, "%s: compiled forward: %" PetscInt_FMT " wrong ghost values", desc, bad);
    PetscCall(RunSchedules(P, sr, ctb, rb, desc));
    for (PetscMPIInt q = 0; q < P; q++) {
      for (PetscInt j = 0; j < sr[q].nout; j++) y0[q][sr[q].outidx[j]] += Origin(sr[q].outorig[j], ctb[q], rb[q]);
      for (PetscInt i = 0; i < cs->ranges[q + 1] - cs->ranges[q]; i++)
        if (memcmp(&y0[q][i], &yref[q][i], sizeof(PetscScalar))) badsum++;
    }
    CHECK(badsum == 0, "%s: compiled reverse: %" PetscInt_FMT " entries differ bitwise from the standard order", desc, badsum);
    for (PetscMPIInt r = 0; r < P; r++) {
      PetscCall(AIJHybridNodeScheduleDestroy(&sf[r]));
      PetscCall(AIJHybridNodeScheduleDestroy(&sr[r]));
      PetscCall(PetscFree(rb[r]));
      PetscCall(PetscFree(ctb[r]));
    }
    PetscCall(PetscFree2(rb, ctb));
    PetscCall(PetscFree2(sf, sr));
  }

  /* message counts */
  PetscCall(PetscCalloc1(P * P + nn * nn, &pairs)); /* [q*P + r]: rank pair with traffic; then node pairs */
  for (PetscMPIInt r = 0; r < P; r++)
    for (PetscInt k = 0; k < cs->ng[r]; k++) {
      const PetscMPIInt q = AIJHybridNodeOwner(P, cs->ranges, cs->ghosts[r][k]);
      if (q == r) continue;
      pairs[q * P + r] = 1;
      if (topo.node[q] != topo.node[r]) pairs[P * P + topo.node[q] * nn + topo.node[r]] = 1;
    }
  for (PetscMPIInt q = 0; q < P; q++)
    for (PetscMPIInt r = 0; r < P; r++)
      if (pairs[q * P + r] && topo.node[q] != topo.node[r]) nstd_pairs++;
  for (PetscInt M = 0; M < nn; M++)
    for (PetscInt N = 0; N < nn; N++)
      if (pairs[P * P + M * nn + N]) {
        /* the union of what N needs from M */
        PetscInt *seen, nu = 0, tot = cs->ranges[P];
        nna_pairs++;
        PetscCall(PetscCalloc1(tot, &seen));
        for (PetscMPIInt r = 0; r < P; r++)
          if (topo.node[r] == N)
            for (PetscInt k = 0; k < cs->ng[r]; k++) {
              const PetscInt g = cs->ghosts[r][k];
              if (topo.node[AIJHybridNodeOwner(P, cs->ranges, g)] == M && !seen[g]) {
                seen[g] = 1;
                nu++;
              }
            }
        exp_entries += nu;
        PetscCall(PetscFree(seen));
      }
  {
    PetscInt  badpairs = 0, badon = 0, badspread = 0, fwdtot[2] = {0, 0}, revtot[2] = {0, 0};
    PetscInt *used;
    PetscCall(PetscCalloc1(nn * nn, &used));
    for (PetscMPIInt r = 0; r < P; r++) {
      const PetscInt ppn  = topo.nptr[topo.node[r] + 1] - topo.nptr[topo.node[r]];
      PetscInt       mine = 0;
      for (PetscInt ph = 0; ph < 3; ph++) {
        const AIJHybridNodePhase *f = &plan[r].fwd[ph];
        for (PetscInt i = 0; i < f->nsend; i++) {
          const PetscMPIInt d = f->sdest[i];
          if (topo.node[d] == topo.node[r]) continue;
          if (ph != 1) badon++;
          mine++;
          na_inter++;
          inter_entries += f->soff[i + 1] - f->soff[i];
          if (used[topo.node[r] * nn + topo.node[d]]++) badpairs++;
        }
      }
      if (mine > (nn + ppn - 1) / ppn) badspread++;
      std_inter += plan[r].standard.msgs[1];
      tot_std_inter += plan[r].standard.msgs[1];
      tot_std_on += plan[r].standard.msgs[0];
      CHECK(plan[r].forward.msgs[1] == mine, "%s: forward statistics of rank %d", desc, r);
      for (PetscInt w = 0; w < 2; w++) {
        fwdtot[w] += plan[r].forward.msgs[w];
        revtot[w] += plan[r].reverse.msgs[w];
      }
    }
    PetscCall(PetscFree(used));
    CHECK(fwdtot[0] == revtot[0] && fwdtot[1] == revtot[1], "%s: reverse message totals differ from forward", desc);
    CHECK(badon == 0, "%s: %" PetscInt_FMT " inter-node messages outside phase F2", desc, badon);
    CHECK(badpairs == 0, "%s: %" PetscInt_FMT " extra inter-node messages for one node pair", desc, badpairs);
    CHECK(badspread == 0, "%s: %" PetscInt_FMT " ranks carry more than their share of node pairs", desc, badspread);
    CHECK(na_inter == nna_pairs, "%s: %" PetscInt_FMT " inter-node messages, %" PetscInt_FMT " node pairs with traffic", desc, na_inter, nna_pairs);
    CHECK(std_inter == nstd_pairs, "%s: standard %" PetscInt_FMT " inter-node messages, %" PetscInt_FMT " rank pairs", desc, std_inter, nstd_pairs);
    CHECK(inter_entries == exp_entries, "%s: %" PetscInt_FMT " inter-node entries, unions hold %" PetscInt_FMT, desc, inter_entries, exp_entries);
    {
      PetscInt nall = 0;
      for (PetscMPIInt q = 0; q < P; q++)
        for (PetscMPIInt r = 0; r < P; r++) nall += pairs[q * P + r];
      CHECK(tot_std_inter + tot_std_on == nall, "%s: standard message total", desc);
    }
  }

  PetscCall(PetscFree(pairs));
  for (PetscMPIInt r = 0; r < P; r++) {
    PetscCall(PetscFree(x[r]));
    PetscCall(PetscFree(y[r]));
    PetscCall(PetscFree(yref[r]));
    PetscCall(PetscFree(y0[r]));
    PetscCall(PetscFree(fbuf[r]));
    PetscCall(PetscFree(rbuf[r]));
    PetscCall(AIJHybridNodePlanDestroy(&plan[r]));
    PetscCall(AIJHybridNodeMsgsDestroy(&o1[r]));
    PetscCall(AIJHybridNodeMsgsDestroy(&i1[r]));
    PetscCall(AIJHybridNodeMsgsDestroy(&o2[r]));
    PetscCall(AIJHybridNodeMsgsDestroy(&i2[r]));
    PetscCall(AIJHybridNodeMsgsDestroy(&o3[r]));
    PetscCall(AIJHybridNodeMsgsDestroy(&i3[r]));
  }
  PetscCall(PetscFree5(x, fbuf, rbuf, y, yref));
  PetscCall(PetscFree(y0));
  PetscCall(PetscFree(plan));
  PetscCall(PetscFree6(o1, i1, o2, i2, o3, i3));
  PetscCall(AIJHybridNodeTopoDestroy(&topo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a random case: layout kind 0 = nodes of k consecutive ranks, 1 = random labels */
static PetscErrorCode MakeCase(PetscMPIInt P, PetscInt kind, PetscInt k, PetscReal density, PetscBool allow_self, Case *cs)
{
  PetscInt total = 0;

  PetscFunctionBegin;
  cs->P = P;
  PetscCall(PetscMalloc4(P, &cs->label, P + 1, &cs->ranges, P, &cs->ng, P, &cs->ghosts));
  for (PetscMPIInt p = 0; p < P; p++) cs->label[p] = kind == 0 ? p / k : 7 * RandInt(k) + 3; /* labels need not be 0..n-1 */
  cs->ranges[0] = 0;
  for (PetscMPIInt p = 0; p < P; p++) cs->ranges[p + 1] = cs->ranges[p] + (Uniform() < 0.15 ? 0 : RandInt(12));
  total = cs->ranges[P];
  for (PetscMPIInt r = 0; r < P; r++) {
    PetscInt *mark, n = 0;
    cs->ng[r] = 0;
    PetscCall(PetscMalloc1(total, &cs->ghosts[r]));
    if (!total || Uniform() < 0.1) continue; /* needs nothing */
    PetscCall(PetscCalloc1(total, &mark));
    for (PetscInt g = 0; g < total; g++) {
      const PetscBool own = (PetscBool)(g >= cs->ranges[r] && g < cs->ranges[r + 1]);
      if ((!own || allow_self) && Uniform() < density) mark[g] = 1;
    }
    for (PetscInt g = 0; g < total; g++)
      if (mark[g]) cs->ghosts[r][n++] = g;
    for (PetscInt i = n - 1; i > 0; i--) { /* any order */
      PetscInt j = RandInt(i + 1), t = cs->ghosts[r][i];
      cs->ghosts[r][i] = cs->ghosts[r][j];
      cs->ghosts[r][j] = t;
    }
    cs->ng[r] = n;
    PetscCall(PetscFree(mark));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeCase(Case *cs)
{
  PetscFunctionBegin;
  for (PetscMPIInt r = 0; r < cs->P; r++) PetscCall(PetscFree(cs->ghosts[r]));
  PetscCall(PetscFree4(cs->label, cs->ranges, cs->ng, cs->ghosts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestBadInput(void)
{
  AIJHybridNodeTopo topo;
  AIJHybridNodeMsgs out      = {0};
  PetscInt          label[2] = {0, 0}, ranges[3] = {0, 3, 6}, dup[2] = {4, 4}, oor[1] = {6};
  PetscErrorCode    ierr;

  PetscFunctionBegin;
  PetscCall(AIJHybridNodeTopoCreate(2, label, &topo));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = AIJHybridNodePlanRequests(&topo, ranges, 0, 2, dup, &out);
  CHECK(ierr == PETSC_ERR_ARG_WRONG, "duplicate ghost accepted (error %d)", (int)ierr);
  ierr = AIJHybridNodePlanRequests(&topo, ranges, 0, 1, oor, &out);
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "ghost out of range accepted (error %d)", (int)ierr);
  PetscCall(PetscPopErrorHandler());
  PetscCall(AIJHybridNodeTopoDestroy(&topo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char desc[256];

  rng_state = 987654321; /* this test's sequence */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  /* topology: renumbering and the pair rule */
  {
    AIJHybridNodeTopo topo;
    PetscInt          label[6] = {9, 4, 9, 4, 4, 2};
    PetscCall(AIJHybridNodeTopoCreate(6, label, &topo));
    CHECK(topo.nnodes == 3 && topo.node[0] == 0 && topo.node[1] == 1 && topo.node[5] == 2 && topo.lrank[4] == 2, "topology renumbering");
    CHECK(AIJHybridNodeSender(&topo, 1, 2) == 4 && AIJHybridNodeReceiver(&topo, 1, 2) == 5 && AIJHybridNodeSender(&topo, 0, 1) == 2 && AIJHybridNodeReceiver(&topo, 0, 1) == 1, "pair rule");
    PetscCall(AIJHybridNodeTopoDestroy(&topo));
  }
  for (PetscMPIInt P = 1; P <= 9; P++) {
    for (PetscInt k = 1; k <= P; k++) {
      for (PetscInt kind = 0; kind < 2; kind++) {
        for (PetscInt rep = 0; rep < 4; rep++) {
          Case      cs;
          PetscReal density = rep == 0 ? 0.05 : rep == 1 ? 0.3 : rep == 2 ? 0.9 : 0.15;
          PetscCall(MakeCase(P, kind, k, density, (PetscBool)(rep == 3), &cs));
          PetscCall(PetscSNPrintf(desc, sizeof(desc), "P=%d %s k=%" PetscInt_FMT " density %.2f%s", P, kind ? "random labels" : "consecutive", k, (double)density, rep == 3 ? " self ghosts" : ""));
          PetscCall(RunCase(&cs, desc));
          PetscCall(FreeCase(&cs));
        }
      }
    }
  }
  PetscCall(TestBadInput());
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
