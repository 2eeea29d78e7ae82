/*
   CM-RCM ordering: cyclic multicoloring over a reverse Cuthill-McKee level structure (cmrcm.h).
*/
#include "cmrcm.h"
#include <stdlib.h>

/* symmetric adjacency without self loops and duplicates: neighbours of v are adj[xadj[v] .. xadj[v+1]) */
static PetscErrorCode Symmetrize(PetscInt n, const PetscInt ia[], const PetscInt ja[], PetscInt **xadj, PetscInt **adj)
{
  PetscInt *cnt, *x, *a, *mark;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, &cnt));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt p = ia[i]; p < ia[i + 1]; p++) {
      const PetscInt j = ja[p];

      PetscCheck(j >= 0 && j < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Column %" PetscInt_FMT " of row %" PetscInt_FMT " is outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix", j, i, n, n);
      if (j == i) continue;
      cnt[i + 1]++;
      cnt[j + 1]++;
    }
  for (PetscInt i = 0; i < n; i++) cnt[i + 1] += cnt[i];
  PetscCall(PetscMalloc1(n + 1, &x));
  PetscCall(PetscMalloc1(cnt[n], &a));
  for (PetscInt i = 0; i <= n; i++) x[i] = cnt[i];
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt p = ia[i]; p < ia[i + 1]; p++) {
      const PetscInt j = ja[p];

      if (j == i) continue;
      a[cnt[i]++] = j;
      a[cnt[j]++] = i;
    }
  /* remove duplicates, keeping the first occurrence; compact */
  PetscCall(PetscMalloc1(n, &mark));
  for (PetscInt i = 0; i < n; i++) mark[i] = -1;
  {
    PetscInt w = 0, s = 0;

    for (PetscInt v = 0; v < n; v++) {
      const PetscInt e = x[v + 1];

      x[v] = w;
      for (PetscInt p = s; p < e; p++) {
        if (mark[a[p]] == v) continue;
        mark[a[p]] = v;
        a[w++]     = a[p];
      }
      s = e;
    }
    x[n] = w;
  }
  PetscCall(PetscFree(mark));
  PetscCall(PetscFree(cnt));
  *xadj = x;
  *adj  = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt deg, v;
} DegVertex;

static int CompareDegVertex(const void *a, const void *b)
{
  const DegVertex *x = (const DegVertex *)a, *y = (const DegVertex *)b;

  if (x->deg != y->deg) return x->deg < y->deg ? -1 : 1;
  return x->v < y->v ? -1 : (x->v > y->v ? 1 : 0);
}

/* sort by (degree, index): insertion sort for the short lists of a mesh, qsort for long ones */
static void SortDegVertex(DegVertex *buf, PetscInt nb)
{
  if (nb > 32) {
    qsort(buf, (size_t)nb, sizeof(DegVertex), CompareDegVertex);
    return;
  }
  for (PetscInt k = 1; k < nb; k++) {
    const DegVertex x = buf[k];
    PetscInt        q = k - 1;

    while (q >= 0 && CompareDegVertex(&buf[q], &x) > 0) {
      buf[q + 1] = buf[q];
      q--;
    }
    buf[q + 1] = x;
  }
}

/*
  Breadth-first search of the component of start over unvisited vertices (mark[v] != stamp):
  appends the component to queue[*qn ...], sets dist[] and stamps mark[]; returns the
  eccentricity of start. cm: neighbours by increasing degree (then index), the Cuthill-McKee
  order (the trial searches for a start vertex need only the levels).
*/
static PetscInt BFS(PetscInt start, const PetscInt xadj[], const PetscInt adj[], PetscInt stamp, PetscInt mark[], PetscInt dist[], PetscInt queue[], PetscInt *qn, DegVertex *buf, PetscBool cm)
{
  PetscInt head = *qn, ecc = 0;

  mark[start]    = stamp;
  dist[start]    = 0;
  queue[(*qn)++] = start;
  while (head < *qn) {
    const PetscInt u  = queue[head++];
    PetscInt       nb = 0;

    for (PetscInt p = xadj[u]; p < xadj[u + 1]; p++) {
      const PetscInt w = adj[p];

      if (mark[w] == stamp) continue;
      mark[w] = stamp;
      dist[w] = dist[u] + 1;
      if (dist[w] > ecc) ecc = dist[w];
      if (!cm) {
        queue[(*qn)++] = w;
        continue;
      }
      buf[nb].deg = xadj[w + 1] - xadj[w];
      buf[nb++].v = w;
    }
    if (nb > 1) SortDegVertex(buf, nb);
    for (PetscInt k = 0; k < nb; k++) queue[(*qn)++] = buf[k].v;
  }
  return ecc;
}

/*
  AIJHybridCMRCM - CM-RCM ordering of the n x n pattern (ia, ja) with ncolors >= 1 colors

  Output: perm[k] = the old index of the vertex put at position k; color (optional, length n):
  the color of each old vertex; nused: the colors used (ncolors, more where the graph needs
  them, fewer when it has fewer levels).
*/
PetscErrorCode AIJHybridCMRCM(PetscInt n, const PetscInt ia[], const PetscInt ja[], PetscInt ncolors, PetscInt perm[], PetscInt color[], PetscInt *nused)
{
  PetscInt  *xadj = NULL, *adj = NULL, *mark, *dist, *queue, *rcm, *col, *level, *forbid, *cnt, qn = 0, maxcolor = -1, stamp = 0, maxdeg = 0;
  DegVertex *buf;

  PetscFunctionBegin;
  PetscCheck(ncolors >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CM-RCM needs at least one color, not %" PetscInt_FMT, ncolors);
  *nused = 0;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Symmetrize(n, ia, ja, &xadj, &adj));
  for (PetscInt v = 0; v < n; v++) maxdeg = PetscMax(maxdeg, xadj[v + 1] - xadj[v]);
  PetscCall(PetscMalloc5(n, &mark, n, &dist, n, &queue, n, &rcm, n, &level));
  PetscCall(PetscMalloc1(maxdeg + 1, &buf));
  for (PetscInt v = 0; v < n; v++) mark[v] = -1;

  /* Cuthill-McKee order component by component from pseudo-peripheral vertices; the final
     search of each component also gives its levels */
  for (PetscInt v0 = 0; v0 < n; v0++) {
    PetscInt start = v0, ecc, comp0 = qn, compn;

    if (mark[v0] >= 0 && mark[v0] % 2 == 1) continue; /* placed (odd stamps mark final placements) */
    /* pseudo-peripheral start: from the end of the last level, the vertex of least degree, while
       the eccentricity grows (trial searches use even stamps and a scratch part of queue) */
    stamp = 2 * (stamp / 2 + 1);
    compn = qn;
    ecc   = BFS(start, xadj, adj, stamp, mark, dist, queue, &compn, buf, PETSC_FALSE);
    for (PetscInt it = 0; it < 5; it++) {
      PetscInt best = -1, e;

      for (PetscInt q = qn; q < compn; q++) {
        const PetscInt w = queue[q];

        if (dist[w] == ecc && (best < 0 || xadj[w + 1] - xadj[w] < xadj[best + 1] - xadj[best])) best = w;
      }
      if (best < 0 || best == start) break;
      stamp += 2;
      compn = qn;
      e     = BFS(best, xadj, adj, stamp, mark, dist, queue, &compn, buf, PETSC_FALSE);
      if (e <= ecc) break;
      start = best;
      ecc   = e;
    }
    /* the final search from start: the component's Cuthill-McKee order and levels */
    stamp = 2 * (stamp / 2) + 1;
    qn    = comp0;
    ecc   = BFS(start, xadj, adj, stamp, mark, dist, queue, &qn, buf, PETSC_TRUE);
    for (PetscInt q = comp0; q < qn; q++) level[queue[q]] = ecc - dist[queue[q]]; /* counted from the far end */
    stamp++;                                                                      /* next trials: a fresh even stamp */
  }
  /* reverse: rcm[k] = the k-th vertex of the RCM order */
  for (PetscInt k = 0; k < n; k++) rcm[k] = queue[n - 1 - k];

  /* cyclic multicoloring in RCM order */
  PetscCall(PetscMalloc1(n, &col));
  PetscCall(PetscMalloc1(ncolors + maxdeg + 1, &forbid));
  for (PetscInt c = 0; c < ncolors + maxdeg + 1; c++) forbid[c] = -1;
  for (PetscInt v = 0; v < n; v++) col[v] = -1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt v = rcm[k], pref = level[v] % ncolors;
    PetscInt       c = -1;

    for (PetscInt p = xadj[v]; p < xadj[v + 1]; p++)
      if (col[adj[p]] >= 0) forbid[col[adj[p]]] = v;
    for (PetscInt d = 0; d < ncolors; d++) {
      const PetscInt t = (pref + d) % ncolors;

      if (forbid[t] != v) {
        c = t;
        break;
      }
    }
    for (PetscInt t = ncolors; c < 0; t++)
      if (forbid[t] != v) c = t; /* at most deg(v) colors are forbidden: t < ncolors + maxdeg + 1 */
    col[v]   = c;
    maxcolor = PetscMax(maxcolor, c);
  }
  *nused = maxcolor + 1;

  /* colors one after the other, each in RCM order */
  PetscCall(PetscCalloc1(*nused + 1, &cnt));
  for (PetscInt v = 0; v < n; v++) cnt[col[v] + 1]++;
  for (PetscInt c = 0; c < *nused; c++) cnt[c + 1] += cnt[c];
  for (PetscInt k = 0; k < n; k++) perm[cnt[col[rcm[k]]]++] = rcm[k];
  if (color)
    for (PetscInt v = 0; v < n; v++) color[v] = col[v];

  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree(forbid));
  PetscCall(PetscFree(col));
  PetscCall(PetscFree(buf));
  PetscCall(PetscFree5(mark, dist, queue, rcm, level));
  PetscCall(PetscFree(xadj));
  PetscCall(PetscFree(adj));
  PetscFunctionReturn(PETSC_SUCCESS);
}
