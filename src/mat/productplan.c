/*
   The threaded steps of the sparse products (see productplan.h): a row-wise product C = A B and a
   transpose, made at the symbolic phase and run at every numeric phase.

   Product C = A B (Gustavson's row-wise algorithm), three parallel regions at the symbolic phase:
     1. the flops of every row (an equal split of the rows), then on the main thread the prefix sum
        and the partition of the rows into T parts of about equal flops (+ 2 per row);
     2. each thread counts the columns of its rows with its own marker array; the main thread sums
        the counts into C's row pointers and allocates the column indices;
     3. each thread writes and sorts the columns of its rows.
   The numeric phase is one region: each thread computes its rows' values with its own map (column
   -> place in the row) and row buffer, and writes them where the caller says (one array, or the
   diagonal and off-diagonal blocks of an MPIAIJ matrix). A row is summed by one thread in the
   order of spgemm.h, so the values are the same for any thread count.

   Transpose: one region at the symbolic phase (counts per thread, offsets by column ranges, the
   row pointers by the main thread, fill), one at each numeric phase (the values gathered in the
   transpose's order).
*/
#include "productplan.h"
#include "../partition/partition.h"
#include "../threads/threads.h"
#include <string.h>

PetscLogEvent MATAIJHYBRID_SpGEMMSym, MATAIJHYBRID_SpGEMMNum, MATAIJHYBRID_ProdTranspose;

/* the threads a step of `flops` multiplications runs on when T are available */
PetscInt AIJHybridProductThreads(PetscInt T, PetscLogDouble flops)
{
  return flops < AIJHYBRID_PRODUCT_SERIAL_FLOPS ? 1 : PetscMax(1, T);
}

/* work arrays for T threads (or more), ncols columns and rows of rowmax entries, with the symbolic
   phase's value accumulators if acc (kept if large enough); thread t's slices start at t times
   the plan's own ncols (rowmax), nbits */
PetscErrorCode AIJHybridProductWorkEnsure(AIJHybridProductWork *w, PetscInt T, PetscInt ncols, PetscInt rowmax, PetscBool acc)
{
  PetscFunctionBegin;
  if (T > w->T) { /* everything is per thread: start again (fewer threads use the first slices) */
    PetscCall(AIJHybridProductWorkDestroy(w));
    w->T = T;
  }
  T = w->T;
  if (ncols > w->ncols || rowmax > w->rowmax || !w->map) {
    w->ncols  = PetscMax(ncols, w->ncols);
    w->rowmax = PetscMax(rowmax, w->rowmax);
    PetscCall(PetscFree2(w->map, w->buf));
    PetscCall(PetscMalloc2((size_t)T * w->ncols + 1, &w->map, (size_t)T * w->rowmax + 1, &w->buf));
  }
  if (w->nbits < (ncols + 63) / 64) {
    PetscCall(PetscFree(w->bits));
    w->nbits = (ncols + 63) / 64;
    PetscCall(PetscCalloc1((size_t)T * w->nbits + 1, &w->bits));
  }
  if (acc && w->nacc < ncols) {
    PetscCall(PetscFree(w->acc));
    w->nacc = ncols;
    PetscCall(PetscMalloc1((size_t)T * w->nacc + 1, &w->acc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridProductWorkDestroy(AIJHybridProductWork *w)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(w->map, w->buf));
  PetscCall(PetscFree(w->acc));
  PetscCall(PetscFree(w->bits));
  PetscCall(PetscMemzero(w, sizeof(*w)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* free what the symbolic phase wrote part by part */
static PetscErrorCode SpGEMMFreeParts(AIJHybridSpGEMM *p)
{
  PetscFunctionBegin;
  for (PetscInt t = 0; p->pcols && t < p->T; t++) {
    PetscCall(PetscFree(p->pcols[t]));
    if (p->pvals) PetscCall(PetscFree(p->pvals[t]));
  }
  PetscCall(PetscFree(p->pcols));
  PetscCall(PetscFree(p->pvals));
  PetscCall(PetscFree2(p->pused, p->pcap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridSpGEMMDestroy(AIJHybridSpGEMM *p)
{
  PetscFunctionBegin;
  PetscCall(SpGEMMFreeParts(p));
  PetscCall(PetscFree(p->bounds));
  PetscCall(PetscFree(p->ci));
  PetscCall(PetscFree(p->cj));
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bounds[0..T] of m rows of cumulative cost prefix[] (prefix[0] = 0) */
static PetscErrorCode PartitionByCost(PetscInt m, const PetscInt *prefix, PetscInt T, PetscInt *bounds)
{
  AIJHybridCost cost;

  PetscFunctionBegin;
  if (m == 0 || T == 1) {
    for (PetscInt t = 0; t <= T; t++) bounds[t] = t == T ? m : 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  cost.n      = m;
  cost.rowptr = prefix;
  cost.c      = 0.0;
  PetscCall(AIJHybridPartitionGreedy(&cost, T, bounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define SPGEMM_SAMPLE_ROWS  64  /* rows per part counted to estimate the space of its rows */
#define SPGEMM_SAMPLE_SLACK 1.2 /* the estimate's margin */

/*
  AIJHybridSpGEMMSymbolic - the plan of C = A B (m rows, B of ncols columns) on at most T threads:
  the row partition, C's row pointers p->ci, its longest row and its flops; C's sorted columns
  (and, with values, its values) are left part by part for AIJHybridSpGEMMGather(). work is made
  large enough for the numeric phase.

  One pass over the products: each part writes its rows into its own buffer, sized from the counts
  of a sample of its rows; a part whose next row might not fit stops, the main thread enlarges its
  buffer and the parts go on (a few rounds at most).
*/
PetscErrorCode AIJHybridSpGEMMSymbolic(AIJHybridSpGEMM *p, PetscInt m, const AIJHybridCSR *A, const AIJHybridCSR *B, PetscInt ncols, PetscInt T, PetscBool values, AIJHybridProductWork *work)
{
  PetscInt      *flops, *len, *next, *scnt, *sub, shift = 0, rowmax = 0;
  PetscInt64     total = 0;
  const PetscInt T0    = PetscMax(1, T);
  PetscBool      done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_SpGEMMSym, 0, 0, 0, 0));
  PetscCall(AIJHybridSpGEMMDestroy(p));
  p->m     = m;
  p->ncols = ncols;
  PetscCall(PetscMalloc2(m + 1, &flops, m + 1, &len));
  PetscCall(PetscMalloc1(m + 1, &p->ci));
  /* the flops of each row; the partition by them (in p->ci until the lengths) on the main thread */
#pragma omp parallel num_threads(T0)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridSpGEMMFlops(m / nth * tid + PetscMin(tid, m % nth), m / nth * (tid + 1) + PetscMin(tid + 1, m % nth), A, B->i, flops);
  }
  for (PetscInt r = 0; r < m; r++) total += flops[r] + 2;
  p->flops = (PetscLogDouble)(total - 2 * (PetscInt64)m);
  while ((total >> shift) >= (PetscInt64)PETSC_MAX_INT) shift++;
  p->T = T = PetscMin(AIJHybridProductThreads(T0, p->flops), PetscMax(1, m));
  PetscCall(PetscMalloc1(T + 1, &p->bounds));
  {
    PetscInt64 s = 0;

    p->ci[0] = 0;
    for (PetscInt r = 0; r < m; r++) {
      s += flops[r] + 2;
      p->ci[r + 1] = (PetscInt)(s >> shift);
    }
  }
  PetscCall(PartitionByCost(m, p->ci, T, p->bounds));
  PetscCall(AIJHybridProductWorkEnsure(work, T, ncols, 0, values));
  PetscCall(PetscCalloc1(T, &p->pcols));
  PetscCall(PetscMalloc1(T, &next));
  if (values) PetscCall(PetscCalloc1(T, &p->pvals));
  PetscCall(PetscCalloc2(T, &p->pused, T, &p->pcap));
  PetscCall(PetscMalloc2(T, &scnt, T, &sub));
  /* the counts of a sample of each part's rows (stamps r), and the bound of those rows' lengths */
  {
    PetscInt *map = work->map;

#pragma omp parallel num_threads(T)
    {
      const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();
      PetscInt      *marker = map + (size_t)tid * ncols;

      for (PetscInt c = 0; c < ncols; c++) marker[c] = -1;
      for (PetscInt t = tid; t < T; t += nth) {
        const PetscInt rs = p->bounds[t], re = p->bounds[t + 1], step = PetscMax(1, (re - rs) / SPGEMM_SAMPLE_ROWS);

        scnt[t] = sub[t] = 0;
        for (PetscInt r = rs; r < re; r += step) {
          AIJHybridSpGEMMCount(r, r + 1, A, B, 0, marker, len);
          scnt[t] += len[r];
          sub[t] += PetscMin(flops[r], ncols);
        }
      }
    }
  }
  for (PetscInt t = 0; t < T; t++) {
    PetscInt64 bound = 0;

    for (PetscInt r = p->bounds[t]; r < p->bounds[t + 1]; r++) bound += PetscMin(flops[r], ncols);
    next[t]    = p->bounds[t];
    p->pcap[t] = (PetscInt)PetscMin(bound, (PetscInt64)(SPGEMM_SAMPLE_SLACK * (double)bound * (sub[t] ? (double)scnt[t] / (double)sub[t] : 1.0)) + 16);
  }
  /* rounds: each part writes rows while they fit (stamps m + r), then the main thread enlarges */
  p->rounds = 0;
  do {
    PetscInt    *map   = work->map;
    PetscScalar *acc   = work->acc;
    uint64_t    *bits  = work->bits;
    PetscInt     nbits = work->nbits;

    for (PetscInt t = 0; t < T; t++) {
      if (next[t] == p->bounds[t + 1] && p->pcols[t]) continue;
      if (!p->pcols[t]) {
        PetscCall(PetscMalloc1(p->pcap[t] + 1, &p->pcols[t]));
        if (values) PetscCall(PetscMalloc1(p->pcap[t] + 1, &p->pvals[t]));
      } else { /* grow: the rows left, at the density of the rows done */
        const PetscInt rs = p->bounds[t], r0 = next[t], re = p->bounds[t + 1];
        PetscInt64     donef = 0, leftf = 0, need;
        PetscInt      *cols;
        PetscScalar   *vals;

        for (PetscInt r = rs; r < r0; r++) donef += PetscMin(flops[r], ncols);
        for (PetscInt r = r0; r < re; r++) leftf += PetscMin(flops[r], ncols);
        need       = p->pused[t] + PetscMin(leftf, (PetscInt64)(SPGEMM_SAMPLE_SLACK * (double)leftf * (donef ? (double)p->pused[t] / (double)donef : 1.0)) + PetscMin(flops[r0], ncols) + 16);
        p->pcap[t] = (PetscInt)PetscMax(need, 2 * (PetscInt64)p->pcap[t]);
        p->pcap[t] = (PetscInt)PetscMin((PetscInt64)p->pcap[t], p->pused[t] + leftf + 1);
        PetscCall(PetscMalloc1(p->pcap[t] + 1, &cols));
        PetscCall(PetscArraycpy(cols, p->pcols[t], p->pused[t]));
        PetscCall(PetscFree(p->pcols[t]));
        p->pcols[t] = cols;
        if (values) {
          PetscCall(PetscMalloc1(p->pcap[t] + 1, &vals));
          PetscCall(PetscArraycpy(vals, p->pvals[t], p->pused[t]));
          PetscCall(PetscFree(p->pvals[t]));
          p->pvals[t] = vals;
        }
      }
    }
    p->rounds++;
#pragma omp parallel num_threads(T)
    {
      const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();
      PetscInt      *marker = map + (size_t)tid * ncols;
      PetscScalar   *a      = values ? acc + (size_t)tid * ncols : NULL;

      for (PetscInt t = tid; t < T; t += nth) {
        PetscInt used = 0;

        if (next[t] == p->bounds[t + 1]) continue;
        next[t] = AIJHybridSpGEMMRows(next[t], p->bounds[t + 1], A, B, flops, ncols, m, marker, a, bits + (size_t)tid * nbits, p->pcap[t] - p->pused[t], p->pcols[t] + p->pused[t], values ? p->pvals[t] + p->pused[t] : NULL, len, &used);
        p->pused[t] += used;
      }
    }
    done = PETSC_TRUE;
    for (PetscInt t = 0; t < T; t++)
      if (next[t] < p->bounds[t + 1]) done = PETSC_FALSE;
  } while (!done);
  p->nz = AIJHybridPrefixSum(m, len, p->ci);
  for (PetscInt r = 0; r < m; r++) rowmax = PetscMax(rowmax, len[r]);
  p->rowmax = rowmax;
  PetscCall(PetscFree2(scnt, sub));
  PetscCall(PetscFree2(flops, len));
  PetscCall(PetscFree(next));
  PetscCall(AIJHybridProductWorkEnsure(work, T, ncols, rowmax, PETSC_FALSE));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_SpGEMMSym, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridSpGEMMGather - the columns (into cj, if given) and values (into ca, if given: the
  symbolic phase made them) the symbolic phase left part by part, each part copied by a thread to
  its rows' place; the parts are freed
*/
PetscErrorCode AIJHybridSpGEMMGather(AIJHybridSpGEMM *p, PetscInt *cj, PetscScalar *ca)
{
  const PetscInt T = p->T;

  PetscFunctionBegin;
  PetscCheck(p->pcols, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nothing to gather");
  PetscCheck(!ca || p->pvals, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The symbolic phase made no values");
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    for (PetscInt t = tid; t < T; t += nth) {
      const PetscInt start = p->ci[p->bounds[t]], n = p->pused[t];

      if (cj) memcpy(cj + start, p->pcols[t], (size_t)n * sizeof(PetscInt));
      if (ca) memcpy(ca + start, p->pvals[t], (size_t)n * sizeof(PetscScalar));
    }
  }
  PetscCall(SpGEMMFreeParts(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridSpGEMMRun - the values of C = A B into out (whose pattern is the plan's), on the plan's
  threads
*/
PetscErrorCode AIJHybridSpGEMMRun(const AIJHybridSpGEMM *p, const AIJHybridCSR *A, const AIJHybridCSR *B, const AIJHybridCSROut *out, AIJHybridProductWork *work)
{
  const PetscInt T = p->T, ncols = p->ncols, rowmax = p->rowmax;
  PetscInt      *map;
  PetscScalar   *buf;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_SpGEMMNum, 0, 0, 0, 0));
  PetscCall(AIJHybridProductWorkEnsure(work, T, ncols, rowmax, PETSC_FALSE));
  map = work->map;
  buf = work->buf;
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    for (PetscInt t = tid; t < T; t += nth) AIJHybridSpGEMMNumeric(p->bounds[t], p->bounds[t + 1], A, B, out, map + tid * ncols, buf + tid * rowmax);
  }
  PetscCall(PetscLogFlops(2.0 * p->flops));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_SpGEMMNum, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridTransposeDestroy(AIJHybridTransposePlan *t)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(t->ti, t->tj, t->perm));
  PetscCall(PetscFree(t->tv));
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridTransposePattern - the pattern of A^T for the m x n matrix A (nz0 of its entries in
  block 0) into ti (n + 1 row pointers), tj (A's row of each entry) and perm (its place in A's
  values, block 1 after block 0), on at most T threads: each thread counts and places the entries
  of its rows, so every row of A^T lists A's rows in increasing order, the same arrays for any T
*/
PetscErrorCode AIJHybridTransposePattern(const AIJHybridCSR *A, PetscInt m, PetscInt n, PetscInt nz0, PetscInt T, PetscInt *ti, PetscInt *tj, PetscInt *perm)
{
  PetscInt *cnt, **cntp, *total, *rb, *cb;

  PetscFunctionBegin;
  T = PetscMax(1, PetscMin(T, m));
  PetscCall(PetscMalloc5((size_t)T * n + 1, &cnt, T, &cntp, n + 1, &total, T + 1, &rb, T + 1, &cb));
  for (PetscInt t = 0; t < T; t++) cntp[t] = cnt + (size_t)t * n;
  PetscCall(AIJHybridPartitionRows(m, T, rb));
  PetscCall(AIJHybridPartitionRows(n, T, cb));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    for (PetscInt t = tid; t < T; t += nth) {
      for (PetscInt c = 0; c < n; c++) cntp[t][c] = 0;
      AIJHybridTransposeCount(rb[t], rb[t + 1], A, cntp[t]);
    }
#pragma omp barrier
    for (PetscInt t = tid; t < T; t += nth) AIJHybridTransposeOffsets(cb[t], cb[t + 1], T, cntp, total);
#pragma omp barrier
    if (tid == 0) (void)AIJHybridPrefixSum(n, total, ti);
#pragma omp barrier
    for (PetscInt t = tid; t < T; t += nth) AIJHybridTransposeFill(rb[t], rb[t + 1], A, nz0, ti, cntp[t], tj, perm);
  }
  PetscCall(PetscFree5(cnt, cntp, total, rb, cb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridTransposeSymbolic - the pattern of A^T for the m x n matrix A (nz entries, nz0 of them
  in block 0) on at most T threads; the values follow with AIJHybridTransposeRun(), into tp->tv if
  keep (the products' operands) or into the caller's array
*/
PetscErrorCode AIJHybridTransposeSymbolic(AIJHybridTransposePlan *tp, const AIJHybridCSR *A, PetscInt m, PetscInt n, PetscInt nz0, PetscInt nz, PetscInt T, PetscBool keep)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_ProdTranspose, 0, 0, 0, 0));
  PetscCall(AIJHybridTransposeDestroy(tp));
  T       = PetscMin(AIJHybridProductThreads(T, (PetscLogDouble)nz), PetscMax(1, m));
  tp->m   = m;
  tp->n   = n;
  tp->nz  = nz;
  tp->nz0 = nz0;
  tp->T   = T;
  PetscCall(PetscMalloc3(n + 1, &tp->ti, nz + 1, &tp->tj, nz + 1, &tp->perm));
  if (keep) PetscCall(PetscMalloc1(nz + 1, &tp->tv));
  PetscCall(AIJHybridTransposePattern(A, m, n, nz0, T, tp->ti, tp->tj, tp->perm));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_ProdTranspose, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJHybridTransposeRun - the values of A^T (block 0's values a0, block 1's a1) into tv (NULL: the
   plan's tp->tv), in A^T's row order */
PetscErrorCode AIJHybridTransposeRun(AIJHybridTransposePlan *tp, const PetscScalar *a0, const PetscScalar *a1, PetscScalar *tv)
{
  const PetscInt  T = tp->T, nz = tp->nz, nz0 = tp->nz0;
  const PetscInt *perm = tp->perm;

  PetscFunctionBegin;
  if (!tv) tv = tp->tv;
  PetscCheck(tv || !nz, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "The transpose plan keeps no values: give an array");
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_ProdTranspose, 0, 0, 0, 0));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridTransposeGather(nz / nth * tid + PetscMin(tid, nz % nth), nz / nth * (tid + 1) + PetscMin(tid + 1, nz % nth), perm, nz0, a0, a1, tv);
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_ProdTranspose, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
