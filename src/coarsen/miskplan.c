/*
   Pure kernels of the aijhybrid coarsener (declared and described in miskplan.h). The greedy MIS is
   PETSc's MATCOARSENMISK on one rank (src/mat/coarsen/impls/misk/misk.c, the same in 3.18 and 3.26):
   visit the vertices in the greedy order; a vertex not yet taken with fewer than two entries in its
   row (a singleton) is left out; any other vertex not yet taken becomes a root and takes every
   neighbour not yet taken. The threaded kernels give the same result for any thread count.
*/
#include "miskplan.h"
#include <stdlib.h>
#include "../threads/threads.h"

#define MIS_NOT_DONE -2

/*
  AIJHybridMISGreedy - root[i] = the root of vertex i (root[r] = r for a root), -1 for a vertex in no
  aggregate; perm (n entries, or NULL for 0..n-1) is the greedy order. Returns the number of roots,
  -1 if perm has an entry outside 0..n-1.
*/
PetscInt AIJHybridMISGreedy(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscInt *perm, PetscInt *root)
{
  PetscInt nsel = 0;

  for (PetscInt i = 0; i < n; i++) root[i] = MIS_NOT_DONE;
  for (PetscInt kk = 0; kk < n; kk++) {
    const PetscInt lid = perm ? perm[kk] : kk;

    if (lid < 0 || lid >= n) return -1;
    if (root[lid] != MIS_NOT_DONE) continue;
    if (ai[lid + 1] - ai[lid] < 2) continue; /* singleton: stays out, can still be taken by a neighbour */
    root[lid] = lid;
    nsel++;
    for (PetscInt q = ai[lid]; q < ai[lid + 1]; q++) {
      const PetscInt j = aj[q];

      if (root[j] == MIS_NOT_DONE) root[j] = lid;
    }
  }
  for (PetscInt i = 0; i < n; i++)
    if (root[i] == MIS_NOT_DONE) root[i] = -1;
  return nsel;
}

#define MIS_OPEN 0 /* the states of AIJHybridMISGreedyRounds */
#define MIS_ROOT 1
#define MIS_OUT  2

/* whether row i lists j (rows sorted) */
static PetscBool RowHas(const PetscInt *ai, const PetscInt *aj, PetscInt i, PetscInt j)
{
  PetscInt lo = ai[i], hi = ai[i + 1];

  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;

    if (aj[mid] == j) return PETSC_TRUE;
    if (aj[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return PETSC_FALSE;
}

/* the state of open vertex v: MIS_OUT when a neighbour earlier in the order is a root, MIS_ROOT when
   every earlier one is decided and none is a root, else (still waiting) MIS_OPEN */
static PetscInt MISDecide(PetscInt v, const PetscInt *ai, const PetscInt *aj, const PetscInt *pos, const PetscInt *st)
{
  PetscBool wait = PETSC_FALSE;

  for (PetscInt q = ai[v]; q < ai[v + 1]; q++) {
    const PetscInt u = aj[q];
    PetscInt       su;

    if (u == v || pos[u] > pos[v]) continue;
#pragma omp atomic read
    su = st[u];
    if (su == MIS_ROOT) return MIS_OUT;
    if (su == MIS_OPEN) wait = PETSC_TRUE;
  }
  return wait ? MIS_OPEN : MIS_ROOT;
}

/* pos[v] = the place of v in the order perm (NULL: v); 0, -1 for an entry outside 0..n-1, -2 if perm is no permutation */
static PetscInt MISPlaces(PetscInt n, const PetscInt *perm, PetscInt nt, PetscInt *pos)
{
  PetscInt bad = 0, dup = 0;

#pragma omp parallel num_threads(nt)
  {
#pragma omp for schedule(static) reduction(max : bad)
    for (PetscInt k = 0; k < n; k++) {
      const PetscInt v = perm ? perm[k] : k;

      if (v < 0 || v >= n) bad = 1;
      else {
#pragma omp atomic write
        pos[v] = k;
      }
    } /* implicit barrier: bad is every thread's */
#pragma omp for schedule(static) reduction(max : dup)
    for (PetscInt k = 0; k < n; k++)
      if (perm && !bad && pos[perm[k]] != k) dup = 1; /* a vertex listed twice: another is not listed */
  }
  return bad ? -1 : (dup ? -2 : 0);
}

/*
  AIJHybridMISGreedyRounds - AIJHybridMISGreedy's result on nt threads, the same for any nt, for a
  graph whose rows are sorted and whose pattern is symmetric, and a greedy order that is a
  permutation (perm, or NULL for 0..n-1). With a symmetric pattern the serial sweep's rule reads: a
  vertex of two or more entries is a root exactly when none of its neighbours earlier in the order is
  one (it is taken at its turn exactly by an earlier root, whose row holds it), and a vertex that is
  no root belongs to its earliest root neighbour (the first root whose row took it), or to none. The
  roots are decided in rounds, a vertex once all its earlier neighbours are (Blelloch, Fineman and
  Shun, "Greedy sequential maximal independent set and matching are parallel on average", 2012: few
  rounds for a random order, which GAMG's shuffle gives); a round decides in place, so a decision
  made in it counts for the vertices after it; when a round decides fewer than 1/64 of the vertices
  still open (long chains of dependences) the serial sweep in the order decides the rest (every
  earlier vertex is decided when it comes). Each decision is the rule's, so neither the thread count
  nor where the rounds stop changes the result. work: 2 n entries; stats (2 entries, or NULL): the
  rounds run and the vertices the serial sweep decided. Returns the number of roots; -1 if perm has
  an entry outside 0..n-1; -2 if perm is not a permutation, a row is not sorted or the pattern is not
  symmetric (the caller then takes AIJHybridMISGreedy, which needs none of these).
*/
PetscInt AIJHybridMISGreedyRounds(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscInt *perm, PetscInt nt, PetscInt *work, PetscInt *root, PetscInt *stats)
{
  PetscInt *pos = work, *st = work + n, bad = 0, open = 0, nsel = 0, nrounds = 0, swept = 0;

  bad = MISPlaces(n, perm, nt, pos);
  if (bad) return bad;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1024) reduction(max : bad) reduction(+ : open)
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt q = ai[i]; q < ai[i + 1]; q++) {
      const PetscInt j = aj[q];

      if ((q + 1 < ai[i + 1] && aj[q + 1] <= j) || j < 0 || j >= n || (j != i && !RowHas(ai, aj, j, i))) bad = 1;
    }
    st[i] = ai[i + 1] - ai[i] < 2 ? MIS_OUT : MIS_OPEN; /* a singleton is never a root */
    open += st[i] == MIS_OPEN;
  }
  if (bad) return -2;
  while (open > 0) {
    PetscInt decided = 0;

#pragma omp parallel for num_threads(nt) schedule(dynamic, 1024) reduction(+ : decided)
    for (PetscInt v = 0; v < n; v++) {
      PetscInt sv;

#pragma omp atomic read
      sv = st[v];
      if (sv != MIS_OPEN) continue;
      sv = MISDecide(v, ai, aj, pos, st);
      if (sv != MIS_OPEN) {
#pragma omp atomic write
        st[v] = sv;
        decided++;
      }
    }
    nrounds++;
    if (64 * decided < open) { /* the serial sweep decides the rest */
      swept = open - decided;
      for (PetscInt k = 0; k < n; k++) {
        const PetscInt v = perm ? perm[k] : k;

        if (st[v] == MIS_OPEN) st[v] = MISDecide(v, ai, aj, pos, st);
      }
      break;
    }
    open -= decided;
  }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1024) reduction(+ : nsel)
  for (PetscInt v = 0; v < n; v++) {
    PetscInt r = -1;

    if (st[v] == MIS_ROOT) {
      r = v;
      nsel++;
    } else
      for (PetscInt q = ai[v]; q < ai[v + 1]; q++) {
        const PetscInt u = aj[q];

        if (u != v && st[u] == MIS_ROOT && (r < 0 || pos[u] < pos[r])) r = u;
      }
    root[v] = r;
  }
  if (stats) {
    stats[0] = nrounds;
    stats[1] = swept;
  }
  return nsel;
}

/*
  AIJHybridMISNumber - agg[i] = the aggregate (column of the aggregation matrix: roots numbered in
  increasing vertex order, as MISK's Prols) of vertex i, -1 for none. Returns the number of aggregates.
*/
PetscInt AIJHybridMISNumber(PetscInt n, const PetscInt *root, PetscInt *agg)
{
  PetscInt c = 0;

  for (PetscInt i = 0; i < n; i++)
    if (root[i] == i) agg[i] = c++;
  for (PetscInt i = 0; i < n; i++) agg[i] = root[i] >= 0 ? agg[root[i]] : -1;
  return c;
}

/* AIJHybridMISCompose - comp[i] = agg[comp[i]] (-1 stays -1): the rows of P_0 P_1 ... */
void AIJHybridMISCompose(PetscInt n, const PetscInt *agg, PetscInt *comp, PetscInt nt)
{
#pragma omp parallel for num_threads(nt) schedule(static)
  for (PetscInt i = 0; i < n; i++) comp[i] = comp[i] >= 0 ? agg[comp[i]] : -1;
}

/*
  AIJHybridAggMembers - the members of each aggregate in increasing vertex order (the rows of the
  transpose of the aggregation matrix): mi (nagg + 1), mj (the vertices with agg >= 0); work holds
  nt * nagg entries. Thread t counts and places the vertices of its contiguous share, the shares in
  order, so the result does not depend on nt.
*/
void AIJHybridAggMembers(PetscInt n, const PetscInt *agg, PetscInt nagg, PetscInt nt, PetscInt *work, PetscInt *mi, PetscInt *mj)
{
#pragma omp parallel num_threads(nt)
  {
    const PetscInt t = omp_get_thread_num(), T = omp_get_num_threads();
    const PetscInt i0 = (PetscInt)(((long long)n * t) / T), i1 = (PetscInt)(((long long)n * (t + 1)) / T);
    PetscInt      *cnt = work + t * nagg;

    for (PetscInt c = 0; c < nagg; c++) cnt[c] = 0;
    for (PetscInt i = i0; i < i1; i++)
      if (agg[i] >= 0) cnt[agg[i]]++;
#pragma omp barrier
#pragma omp single
    {
      mi[0] = 0;
      for (PetscInt c = 0; c < nagg; c++) {
        PetscInt s = mi[c];

        for (PetscInt u = 0; u < T; u++) {
          const PetscInt k = work[u * nagg + c];

          work[u * nagg + c] = s;
          s += k;
        }
        mi[c + 1] = s;
      }
    } /* implicit barrier */
    for (PetscInt i = i0; i < i1; i++)
      if (agg[i] >= 0) mj[cnt[agg[i]]++] = i;
  }
}

/* AIJHybridAggNodes - the PetscCoarsenData nodes of the aggregates: list c is mj[mi[c]..mi[c+1]) as global ids (+ my0), in that order */
void AIJHybridAggNodes(PetscInt nagg, const PetscInt *mi, const PetscInt *mj, PetscInt my0, PetscInt nt, PetscCDIntNd *nodes, PetscCDIntNd **heads)
{
#pragma omp parallel for num_threads(nt) schedule(static)
  for (PetscInt c = 0; c < nagg; c++) {
    for (PetscInt p = mi[c]; p < mi[c + 1]; p++) {
      nodes[p].gid  = mj[p] + my0;
      nodes[p].next = p + 1 < mi[c + 1] ? &nodes[p + 1] : NULL;
    }
    heads[c] = mi[c] < mi[c + 1] ? &nodes[mi[c]] : NULL;
  }
}

static int CompareInt(const void *a, const void *b)
{
  const PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static void SortInt(PetscInt n, PetscInt *v)
{
  if (n > 32) qsort(v, (size_t)n, sizeof(PetscInt), CompareInt);
  else
    for (PetscInt i = 1; i < n; i++) {
      const PetscInt x = v[i];
      PetscInt       k = i;

      for (; k > 0 && v[k - 1] > x; k--) v[k] = v[k - 1];
      v[k] = x;
    }
}

/*
  AIJHybridAggGraph - the pattern of P^T G P for the graph G = (ai, aj) and the aggregation agg (P: a
  vertex to its aggregate, -1 for none), row r listing the aggregates J with an edge of G from a member
  of r (mi, mj) to a member of J. Two passes: with cj NULL, ci[r + 1] = the length of row r; then, with
  ci the offsets, the column indices of each row, sorted, into cj. marker holds nt * nagg entries.
*/
void AIJHybridAggGraph(PetscInt nagg, const PetscInt *mi, const PetscInt *mj, const PetscInt *ai, const PetscInt *aj, const PetscInt *agg, PetscInt nt, PetscInt *marker, PetscInt *ci, PetscInt *cj)
{
#pragma omp parallel num_threads(nt)
  {
    PetscInt *mark = marker + omp_get_thread_num() * nagg;

    for (PetscInt c = 0; c < nagg; c++) mark[c] = -1;
#pragma omp for schedule(dynamic, 256)
    for (PetscInt r = 0; r < nagg; r++) {
      PetscInt k = cj ? ci[r] : 0;

      for (PetscInt p = mi[r]; p < mi[r + 1]; p++)
        for (PetscInt q = ai[mj[p]]; q < ai[mj[p] + 1]; q++) {
          const PetscInt J = agg[aj[q]];

          if (J >= 0 && mark[J] != r) {
            mark[J] = r;
            if (cj) cj[k] = J;
            k++;
          }
        }
      if (cj) SortInt(ci[r + 1] - ci[r], cj + ci[r]);
      else ci[r + 1] = k;
    }
  }
}
