/*
   Level schedules and transposed patterns of triangular factors (see levels.h).
*/
#include "levels.h"

/* split order[s..e) (one level) into T contiguous parts of about equal cost: part t ends at the
   first row whose cost prefix reaches (t+1)/T of the level's cost */
static void SplitLevel(PetscInt s, PetscInt e, const PetscInt order[], const PetscInt start[], const PetscInt end[], PetscInt T, PetscInt tb[])
{
  PetscInt64 total = 0, acc = 0;
  PetscInt   k = s;

  for (PetscInt q = s; q < e; q++) total += (PetscInt64)(end[order[q]] - start[order[q]]) + AIJHYBRID_LEVELS_ROW_COST;
  tb[0] = s;
  for (PetscInt t = 1; t < T; t++) {
    const PetscInt64 target = (total * t + T / 2) / T;

    while (k < e && acc + (PetscInt64)(end[order[k]] - start[order[k]]) + AIJHYBRID_LEVELS_ROW_COST <= target) {
      acc += (PetscInt64)(end[order[k]] - start[order[k]]) + AIJHYBRID_LEVELS_ROW_COST;
      k++;
    }
    tb[t] = k;
  }
  tb[T] = e;
}

/*
  AIJHybridLevelsBuild - the level schedule of a triangular solve over n rows

  Input: n; start, end, ind: the dependencies of row i are ind[start[i] .. end[i]) (for a CSR
  pattern pass start = rowptr, end = rowptr + 1); forward: the serial solve visits 0..n-1 (every
  dependency of i is < i), otherwise n-1..0 (every dependency > i); nthreads >= 1.
  Output: lv (free with AIJHybridLevelsDestroy()). A dependency on the wrong side of a row is an
  error (PETSC_ERR_ARG_OUTOFRANGE): the solve it describes has no serial order.
*/
PetscErrorCode AIJHybridLevelsBuild(PetscInt n, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool forward, PetscInt nthreads, AIJHybridLevels *lv)
{
  PetscInt *level, *count, nl = 0;

  PetscFunctionBegin;
  PetscCheck(nthreads >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Level schedule for %" PetscInt_FMT " threads", nthreads);
  lv->n        = n;
  lv->nthreads = nthreads;
  lv->maxwidth = 0;
  PetscCall(PetscMalloc1(n, &level));
  /* level of each row, in the serial order of the solve */
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt i = forward ? q : n - 1 - q;
    PetscInt       l = 0;

    for (PetscInt p = start[i]; p < end[i]; p++) {
      const PetscInt d = ind[p];

      PetscCheck(forward ? (d >= 0 && d < i) : (d > i && d < n), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " of a %s solve depends on row %" PetscInt_FMT, i, forward ? "forward" : "backward", d);
      if (level[d] + 1 > l) l = level[d] + 1;
    }
    level[i] = l;
    if (l + 1 > nl) nl = l + 1;
  }
  lv->nlevels = nl;
  PetscCall(PetscMalloc3(n, &lv->order, nl + 1, &lv->lptr, nl * (nthreads + 1), &lv->tb));
  /* counting sort by level, stable: ascending rows inside a level */
  PetscCall(PetscCalloc1(nl + 1, &count));
  for (PetscInt i = 0; i < n; i++) count[level[i] + 1]++;
  for (PetscInt l = 0; l < nl; l++) count[l + 1] += count[l];
  for (PetscInt l = 0; l <= nl; l++) lv->lptr[l] = count[l];
  for (PetscInt i = 0; i < n; i++) lv->order[count[level[i]]++] = i;
  for (PetscInt l = 0; l < nl; l++) {
    SplitLevel(lv->lptr[l], lv->lptr[l + 1], lv->order, start, end, nthreads, lv->tb + l * (nthreads + 1));
    lv->maxwidth = PetscMax(lv->maxwidth, lv->lptr[l + 1] - lv->lptr[l]);
  }
  PetscCall(PetscFree(count));
  PetscCall(PetscFree(level));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridLevelsDestroy(AIJHybridLevels *lv)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(lv->order, lv->lptr, lv->tb));
  PetscCall(PetscMemzero(lv, sizeof(*lv)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridLevelsValid - checks a schedule against the dependencies it was built from: every row
  once; a row's dependencies in earlier levels (so a level's rows are independent); the parts of a
  level contiguous and covering it; levels as few as the longest dependency chain allows (no row
  could move to an earlier level). For the unit tests.
*/
PetscErrorCode AIJHybridLevelsValid(const AIJHybridLevels *lv, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool forward, PetscBool *valid)
{
  PetscInt *lev, n = lv->n, T = lv->nthreads;
  PetscBool ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &lev));
  for (PetscInt i = 0; i < n; i++) lev[i] = -1;
  if (n && (lv->nlevels < 1 || lv->lptr[0] != 0 || lv->lptr[lv->nlevels] != n)) ok = PETSC_FALSE;
  for (PetscInt l = 0; ok && l < lv->nlevels; l++) {
    const PetscInt *tb = lv->tb + l * (T + 1);

    if (lv->lptr[l + 1] <= lv->lptr[l]) ok = PETSC_FALSE; /* no empty level */
    if (tb[0] != lv->lptr[l] || tb[T] != lv->lptr[l + 1]) ok = PETSC_FALSE;
    for (PetscInt t = 0; t < T; t++)
      if (tb[t + 1] < tb[t]) ok = PETSC_FALSE;
    for (PetscInt q = lv->lptr[l]; ok && q < lv->lptr[l + 1]; q++) {
      const PetscInt i = lv->order[q];

      if (i < 0 || i >= n || lev[i] != -1) ok = PETSC_FALSE;
      else lev[i] = l;
      if (q > lv->lptr[l] && lv->order[q - 1] >= i) ok = PETSC_FALSE;
    }
  }
  for (PetscInt i = 0; ok && i < n; i++) {
    PetscInt maxdep = -1;

    if (lev[i] < 0) ok = PETSC_FALSE;
    for (PetscInt p = start[i]; ok && p < end[i]; p++) {
      const PetscInt d = ind[p];

      if (forward ? d >= i : d <= i) ok = PETSC_FALSE;
      else if (lev[d] >= lev[i]) ok = PETSC_FALSE;
      else maxdep = PetscMax(maxdep, lev[d]);
    }
    if (ok && lev[i] != maxdep + 1) ok = PETSC_FALSE; /* as early as its dependencies allow */
  }
  PetscCall(PetscFree(lev));
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
