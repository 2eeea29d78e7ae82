/*
   Level schedules and transposed patterns of triangular factors (see levels.h).
*/
#include "levels.h"

/* split order[s..e) (one level) into T contiguous parts of about equal cost, cutting only between
   chains (chain[] of each row): part t ends at the first chain boundary whose cost prefix reaches
   (t+1)/T of the level's cost */
static void SplitLevel(PetscInt s, PetscInt e, const PetscInt order[], const PetscInt chain[], const PetscInt start[], const PetscInt end[], PetscInt T, PetscInt tb[])
{
  PetscInt64 total = 0, acc = 0;
  PetscInt   k = s;

  for (PetscInt q = s; q < e; q++) total += (PetscInt64)(end[order[q]] - start[order[q]]) + AIJHYBRID_LEVELS_ROW_COST;
  tb[0] = s;
  for (PetscInt t = 1; t < T; t++) {
    const PetscInt64 target = (total * t + T / 2) / T;

    while (k < e) {
      PetscInt   k2 = k;
      PetscInt64 c  = 0;

      while (k2 < e && chain[order[k2]] == chain[order[k]]) { /* the whole chain at k */
        c += (PetscInt64)(end[order[k2]] - start[order[k2]]) + AIJHYBRID_LEVELS_ROW_COST;
        k2++;
      }
      if (acc + c > target && acc + c / 2 > target) break; /* nearer the target without it */
      acc += c;
      k = k2;
    }
    tb[t] = k;
  }
  tb[T] = e;
}

/*
  AIJHybridLevelsBuild - the level schedule of a triangular solve over n rows

  Input: n; start, end, ind: the dependencies of row i are ind[start[i] .. end[i]) (for a CSR
  pattern pass start = rowptr, end = rowptr + 1); forward: the serial solve visits 0..n-1 (every
  dependency of i is < i), otherwise n-1..0 (every dependency > i); nthreads >= 1; maxchain >= 1:
  the longest chain kept as one unit (1: every row is its own unit).
  Output: lv (free with AIJHybridLevelsDestroy()). A dependency on the wrong side of a row is an
  error (PETSC_ERR_ARG_OUTOFRANGE): the solve it describes has no serial order.
*/
PetscErrorCode AIJHybridLevelsBuild(PetscInt n, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool forward, PetscInt nthreads, PetscInt maxchain, AIJHybridLevels *lv)
{
  PetscInt *level, *chain, *clev, *count, nl = 0, nc = 0, len = 0;

  PetscFunctionBegin;
  PetscCheck(nthreads >= 1 && maxchain >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Level schedule for %" PetscInt_FMT " threads, chains of %" PetscInt_FMT, nthreads, maxchain);
  lv->n        = n;
  lv->nthreads = nthreads;
  lv->maxwidth = 0;
  lv->inplace  = PETSC_FALSE;
  PetscCall(PetscMalloc3(n, &level, n, &chain, n, &clev));
  /* chains and their levels, in the serial order of the solve: a row joins the chain of the row
     before it if it depends on it; a chain's level is one more than the highest level of the other
     chains its rows depend on (those chains are complete: they precede it in the serial order) */
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt i = forward ? q : n - 1 - q, prev = forward ? i - 1 : i + 1;
    PetscBool      joins = PETSC_FALSE;

    for (PetscInt p = start[i]; p < end[i]; p++) {
      const PetscInt d = ind[p];

      PetscCheck(forward ? (d >= 0 && d < i) : (d > i && d < n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " of a %s solve depends on row %" PetscInt_FMT, i, forward ? "forward" : "backward", d);
      if (d == prev) joins = PETSC_TRUE;
    }
    if (!(joins && q > 0 && len < maxchain)) { /* a new chain */
      clev[nc++] = 0;
      len        = 0;
    }
    chain[i] = nc - 1;
    len++;
    for (PetscInt p = start[i]; p < end[i]; p++) {
      const PetscInt c = chain[ind[p]];

      if (c != nc - 1 && clev[c] + 1 > clev[nc - 1]) clev[nc - 1] = clev[c] + 1;
    }
  }
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(max : nl)
  for (PetscInt i = 0; i < n; i++) {
    level[i] = clev[chain[i]];
    if (level[i] + 1 > nl) nl = level[i] + 1;
  }
  lv->nchains = nc;
  lv->nlevels = nl;
  PetscCall(PetscMalloc3(n, &lv->order, nl + 1, &lv->lptr, nl * (nthreads + 1), &lv->tb));
  /* counting sort by level, stable: ascending rows inside a level (forward), descending (backward) */
  PetscCall(PetscCalloc1(nl + 1, &count));
  for (PetscInt i = 0; i < n; i++) count[level[i] + 1]++;
  for (PetscInt l = 0; l < nl; l++) count[l + 1] += count[l];
  for (PetscInt l = 0; l <= nl; l++) lv->lptr[l] = count[l];
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt i = forward ? q : n - 1 - q;

    lv->order[count[level[i]]++] = i;
  }
  PetscCall(PetscCalloc1(nl * nthreads * nthreads, &lv->need));
  /* the levels are independent from here on, so the threads of this region share them out (the
     schedule of nthreads parts per level does not depend on how many threads OpenMP gives the
     region, nor on which level each computes): each level split into parts, then what each part
     needs of the other threads, the levels of the parts its rows depend on (chain[] is reused for
     the part of each row: a level's rows are set by its splitter, after splitting, and read by
     the needs of later levels, after the barrier) */
  {
    PetscInt maxwidth = 0;

#pragma omp parallel num_threads(nthreads)
    {
#pragma omp for schedule(dynamic, 16) reduction(max : maxwidth)
      for (PetscInt l = 0; l < nl; l++) {
        PetscInt *tb = lv->tb + l * (nthreads + 1);

        SplitLevel(lv->lptr[l], lv->lptr[l + 1], lv->order, chain, start, end, nthreads, tb);
        maxwidth = PetscMax(maxwidth, lv->lptr[l + 1] - lv->lptr[l]);
        for (PetscInt t = 0; t < nthreads; t++)
          for (PetscInt q = tb[t]; q < tb[t + 1]; q++) chain[lv->order[q]] = t;
      }
#pragma omp for schedule(dynamic, 16)
      for (PetscInt l = 0; l < nl; l++)
        for (PetscInt t = 0; t < nthreads; t++) {
          PetscInt *need = lv->need + (l * nthreads + t) * nthreads;

          for (PetscInt q = lv->tb[l * (nthreads + 1) + t]; q < lv->tb[l * (nthreads + 1) + t + 1]; q++) {
            const PetscInt i = lv->order[q];

            for (PetscInt p = start[i]; p < end[i]; p++) {
              const PetscInt d = ind[p], u = chain[d];

              if (u != t && level[d] + 1 > need[u]) need[u] = level[d] + 1;
            }
          }
        }
    }
    lv->maxwidth = maxwidth;
  }
  PetscCall(PetscFree(count));
  PetscCall(PetscFree3(level, chain, clev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridLevelsBlocks - the schedule of a triangular solve over n rows that fall into nblocks
  independent blocks of consecutive rows, bounds[b] .. bounds[b+1]-1 (the factor of a
  block-diagonal matrix): one level whose part b is block b, its rows in the serial order
  (ascending forward, descending backward), waiting for nothing. The dependencies (start, end,
  ind, as for AIJHybridLevelsBuild()) are checked: one outside the row's block, or on the wrong
  side of the row, is an error (PETSC_ERR_ARG_OUTOFRANGE). The schedule is in place (lv->inplace):
  the kernels walk each block's rows directly (AIJHybridLevelsOrder() is NULL).
*/
PetscErrorCode AIJHybridLevelsBlocks(PetscInt n, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool forward, PetscInt nblocks, const PetscInt bounds[], AIJHybridLevels *lv)
{
  PetscFunctionBegin;
  PetscCheck(nblocks >= 1 && bounds[0] == 0 && bounds[nblocks] == n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block schedule of %" PetscInt_FMT " rows in %" PetscInt_FMT " blocks", n, nblocks);
  for (PetscInt b = 0; b < nblocks; b++) PetscCheck(bounds[b + 1] >= bounds[b], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block %" PetscInt_FMT " of a block schedule has negative size", b);
  { /* the dependencies, each block by a thread: its first bad row and the row it depends on */
    PetscInt *bad;

    PetscCall(PetscMalloc1(2 * nblocks, &bad));
#pragma omp parallel for num_threads(nblocks) schedule(static, 1)
    for (PetscInt b = 0; b < nblocks; b++) {
      bad[2 * b] = -1;
      for (PetscInt i = bounds[b]; i < bounds[b + 1] && bad[2 * b] < 0; i++)
        for (PetscInt p = start[i]; p < end[i]; p++) {
          const PetscInt d = ind[p];

          if (forward ? (d < bounds[b] || d >= i) : (d <= i || d >= bounds[b + 1])) {
            bad[2 * b]     = i;
            bad[2 * b + 1] = d;
            break;
          }
        }
    }
    PetscInt b = 0, i, d;

    while (b < nblocks && bad[2 * b] < 0) b++; /* the first block with a bad row */
    i = b < nblocks ? bad[2 * b] : -1;
    d = b < nblocks ? bad[2 * b + 1] : -1;
    PetscCall(PetscFree(bad));
    PetscCheck(i < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " of block %" PetscInt_FMT " of a %s solve depends on row %" PetscInt_FMT, i, b, forward ? "forward" : "backward", d);
  }
  lv->n        = n;
  lv->nthreads = nblocks;
  lv->nlevels  = n ? 1 : 0;
  lv->maxwidth = n;
  lv->nchains  = nblocks;
  lv->inplace  = PETSC_TRUE; /* the order below: each block's rows in place */
  PetscCall(PetscMalloc3(n, &lv->order, lv->nlevels + 1, &lv->lptr, lv->nlevels * (nblocks + 1), &lv->tb));
  PetscCall(PetscCalloc1(lv->nlevels * nblocks * nblocks, &lv->need));
  lv->lptr[0] = 0;
  if (n) {
    lv->lptr[1] = n;
    for (PetscInt b = 0; b <= nblocks; b++) lv->tb[b] = bounds[b];
#pragma omp parallel for num_threads(nblocks) schedule(static, 1)
    for (PetscInt b = 0; b < nblocks; b++)
      for (PetscInt q = bounds[b]; q < bounds[b + 1]; q++) lv->order[q] = forward ? q : bounds[b + 1] - 1 - (q - bounds[b]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridLevelsDestroy(AIJHybridLevels *lv)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(lv->order, lv->lptr, lv->tb));
  PetscCall(PetscFree(lv->need));
  PetscCall(PetscMemzero(lv, sizeof(*lv)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridLevelsValid - checks a schedule against the dependencies it was built from: every row
  once; the parts of each level contiguous and covering it; every dependency of a row in an
  earlier level, or in the same part of the same level listed before it (a chain). With minimal,
  also that no row could be in an earlier level (for schedules built with maxchain 1). For the
  unit tests.
*/
PetscErrorCode AIJHybridLevelsValid(const AIJHybridLevels *lv, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool forward, PetscBool minimal, PetscBool *valid)
{
  PetscInt *lev, *pos, *part, n = lv->n, T = lv->nthreads;
  PetscBool ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(n, &lev, n, &pos, n, &part));
  for (PetscInt i = 0; i < n; i++) lev[i] = -1;
  if (n && (lv->nlevels < 1 || lv->lptr[0] != 0 || lv->lptr[lv->nlevels] != n)) ok = PETSC_FALSE;
  for (PetscInt l = 0; ok && l < lv->nlevels; l++) {
    const PetscInt *tb = lv->tb + l * (T + 1);

    if (lv->lptr[l + 1] <= lv->lptr[l]) ok = PETSC_FALSE; /* no empty level */
    if (tb[0] != lv->lptr[l] || tb[T] != lv->lptr[l + 1]) ok = PETSC_FALSE;
    for (PetscInt t = 0; t < T && ok; t++) {
      if (tb[t + 1] < tb[t]) ok = PETSC_FALSE;
      for (PetscInt q = tb[t]; ok && q < tb[t + 1]; q++) {
        const PetscInt i = lv->order[q];

        if (i < 0 || i >= n || lev[i] != -1) ok = PETSC_FALSE;
        else {
          lev[i]  = l;
          pos[i]  = q;
          part[i] = t;
        }
      }
    }
  }
  for (PetscInt i = 0; ok && i < n; i++) {
    PetscInt maxdep = -1;

    if (lev[i] < 0) ok = PETSC_FALSE;
    for (PetscInt p = start[i]; ok && p < end[i]; p++) {
      const PetscInt d = ind[p];

      if (forward ? d >= i : d <= i) ok = PETSC_FALSE;
      else if (lev[d] > lev[i]) ok = PETSC_FALSE;
      else if (lev[d] == lev[i] && (part[d] != part[i] || pos[d] > pos[i])) ok = PETSC_FALSE;
      else {
        maxdep = PetscMax(maxdep, lev[d]);
        if (part[d] != part[i] && lv->need[(lev[i] * T + part[i]) * T + part[d]] < lev[d] + 1) ok = PETSC_FALSE; /* the wait would not cover it */
      }
    }
    if (ok && minimal && lev[i] != maxdep + 1) ok = PETSC_FALSE; /* as early as its dependencies allow */
  }
  PetscCall(PetscFree3(lev, pos, part));
  *valid = ok;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridCSCBuild - the transposed pattern of n rows whose entries are positions
  [start[k], end[k]) with columns ind[]: column c lists (row k, position p) for every entry of
  column c, rows ascending (ascending = PETSC_TRUE) or descending. Columns must be in [0, n).
*/
PetscErrorCode AIJHybridCSCBuild(PetscInt n, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool ascending, AIJHybridCSC *csc)
{
  PetscInt *fill, nz = 0;

  PetscFunctionBegin;
  csc->n = n;
  PetscCall(PetscCalloc1(n + 1, &csc->ptr));
  for (PetscInt k = 0; k < n; k++) {
    for (PetscInt p = start[k]; p < end[k]; p++) {
      PetscCheck(ind[p] >= 0 && ind[p] < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Column %" PetscInt_FMT " of row %" PetscInt_FMT " out of range", ind[p], k);
      csc->ptr[ind[p] + 1]++;
    }
    nz += end[k] - start[k];
  }
  for (PetscInt c = 0; c < n; c++) csc->ptr[c + 1] += csc->ptr[c];
  PetscCall(PetscMalloc2(nz, &csc->row, nz, &csc->pos));
  PetscCall(PetscMalloc1(n, &fill));
  for (PetscInt c = 0; c < n; c++) fill[c] = csc->ptr[c];
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt k = ascending ? q : n - 1 - q;

    for (PetscInt p = start[k]; p < end[k]; p++) {
      const PetscInt c = ind[p];

      csc->row[fill[c]] = k;
      csc->pos[fill[c]] = p;
      fill[c]++;
    }
  }
  PetscCall(PetscFree(fill));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridCSCDestroy(AIJHybridCSC *csc)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(csc->ptr));
  PetscCall(PetscFree2(csc->row, csc->pos));
  PetscCall(PetscMemzero(csc, sizeof(*csc)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJHybridLevelsCopy - a copy of a schedule (free with AIJHybridLevelsDestroy()) */
PetscErrorCode AIJHybridLevelsCopy(const AIJHybridLevels *src, AIJHybridLevels *dst)
{
  const PetscInt T = src->nthreads, nl = src->nlevels;

  PetscFunctionBegin;
  *dst = *src;
  PetscCall(PetscMalloc3(src->n, &dst->order, nl + 1, &dst->lptr, nl * (T + 1), &dst->tb));
  PetscCall(PetscMalloc1(nl * T * T, &dst->need));
  PetscCall(PetscArraycpy(dst->order, src->order, src->n));
  PetscCall(PetscArraycpy(dst->lptr, src->lptr, nl + 1));
  PetscCall(PetscArraycpy(dst->tb, src->tb, nl * (T + 1)));
  PetscCall(PetscArraycpy(dst->need, src->need, nl * T * T));
  PetscFunctionReturn(PETSC_SUCCESS);
}
