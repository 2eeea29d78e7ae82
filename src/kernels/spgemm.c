/*
   Row-wise sparse products and transposes on raw CSR arrays (see spgemm.h).
*/
#include "spgemm.h"
#include <stdint.h>

/* the entries of block 0 and block 1 of row r of A: [*ks0, *ke0), [*ks1, *ke1) */
static inline void RowRanges(const AIJHybridCSR *A, PetscInt r, PetscInt *ks0, PetscInt *ke0, PetscInt *ks1, PetscInt *ke1)
{
  *ks0 = A->i[r];
  *ke0 = A->i[r + 1];
  *ks1 = A->oi ? A->oi[r] : 0;
  *ke1 = A->oi ? A->oi[r + 1] : 0;
}

/*
  AIJHybridSpGEMMFlops - flops[r] = the number of products of row r of C = A B: the summed lengths
  of the rows of B (row pointers bi) selected by the entries of row r of A, for r in [rs, re)
*/
void AIJHybridSpGEMMFlops(PetscInt rs, PetscInt re, const AIJHybridCSR *A, const PetscInt *bi, PetscInt *flops)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt ks0, ke0, ks1, ke1, f = 0;

    RowRanges(A, r, &ks0, &ke0, &ks1, &ke1);
    for (PetscInt k = ks0; k < ke0; k++) f += bi[A->j[k] + 1] - bi[A->j[k]];
    for (PetscInt k = ks1; k < ke1; k++) f += bi[A->oj[k] + A->ooff + 1] - bi[A->oj[k] + A->ooff];
    flops[r] = f;
  }
}

/* count the columns of the rows of B selected by aj[ks..ke) (+ off) not yet marked with stamp */
static inline PetscInt CountBlock(const PetscInt *aj, PetscInt ks, PetscInt ke, PetscInt off, const PetscInt *bi, const PetscInt *bj, PetscInt stamp, PetscInt *marker)
{
  PetscInt cnt = 0;

  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt row = aj[k] + off;

    for (PetscInt l = bi[row]; l < bi[row + 1]; l++) {
      const PetscInt c = bj[l];

      if (marker[c] != stamp) {
        marker[c] = stamp;
        cnt++;
      }
    }
  }
  return cnt;
}

/*
  AIJHybridSpGEMMCount - cnt[r] = the number of distinct columns of row r of C = A B, for r in
  [rs, re). marker: one entry per column of B, none equal to stamp0 + r for r in [rs, re) (e.g.
  all -1 and stamp0 >= 0); row r marks with stamp0 + r.
*/
void AIJHybridSpGEMMCount(PetscInt rs, PetscInt re, const AIJHybridCSR *A, const AIJHybridCSR *B, PetscInt stamp0, PetscInt *marker, PetscInt *cnt)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt ks0, ke0, ks1, ke1;

    RowRanges(A, r, &ks0, &ke0, &ks1, &ke1);
    cnt[r] = CountBlock(A->j, ks0, ke0, 0, B->i, B->j, stamp0 + r, marker) + CountBlock(A->oj, ks1, ke1, A->ooff, B->i, B->j, stamp0 + r, marker);
  }
}

/* append to cj[*pos..] the columns of the rows of B selected by aj[ks..ke) (+ off) not yet marked with stamp */
static inline void FillBlock(const PetscInt *aj, PetscInt ks, PetscInt ke, PetscInt off, const PetscInt *bi, const PetscInt *bj, PetscInt stamp, PetscInt *marker, PetscInt *cj, PetscInt *pos)
{
  PetscInt p = *pos;

  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt row = aj[k] + off;

    for (PetscInt l = bi[row]; l < bi[row + 1]; l++) {
      const PetscInt c = bj[l];

      if (marker[c] != stamp) {
        marker[c] = stamp;
        cj[p++]   = c;
      }
    }
  }
  *pos = p;
}

/*
  AIJHybridSpGEMMFill - the sorted columns of row r of C = A B into cj[ci[r] .. ci[r+1]) for r in
  [rs, re) (ci from the counts of AIJHybridSpGEMMCount()); marker as there, with stamps
  stamp0 + r that differ from the ones the count used.
*/
void AIJHybridSpGEMMFill(PetscInt rs, PetscInt re, const AIJHybridCSR *A, const AIJHybridCSR *B, PetscInt stamp0, PetscInt *marker, const PetscInt *ci, PetscInt *cj)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt ks0, ke0, ks1, ke1, pos = ci[r];

    RowRanges(A, r, &ks0, &ke0, &ks1, &ke1);
    FillBlock(A->j, ks0, ke0, 0, B->i, B->j, stamp0 + r, marker, cj, &pos);
    FillBlock(A->oj, ks1, ke1, A->ooff, B->i, B->j, stamp0 + r, marker, cj, &pos);
    AIJHybridSortInts(pos - ci[r], cj + ci[r]);
  }
}

/* floor(log2(n)) for n >= 1 */
static inline PetscInt Log2(PetscInt n)
{
  PetscInt l = 0;

  while (n >>= 1) l++;
  return l;
}

/*
  Sorted columns of a row whose columns are cols[0..n) (marked in bits, within [lo, hi]): by sorting
  them, or, when the words of bits spanning [lo, hi] are fewer than n log2(n) (a dense row: the
  coarse levels of PCGAMG), by reading the set bits in increasing order. Either way bits ends clear.
*/
static inline void SortRow(PetscInt n, PetscInt *cols, uint64_t *bits, PetscInt lo, PetscInt hi)
{
  const PetscInt w0 = lo >> 6, w1 = hi >> 6;

  if (!bits) {
    AIJHybridSortInts(n, cols);
    return;
  }
  if (n > 8 && w1 - w0 + 1 < n * Log2(n)) {
    PetscInt p = 0;

    for (PetscInt w = w0; w <= w1; w++) {
      uint64_t word = bits[w];

      while (word) {
        cols[p++] = (w << 6) + (PetscInt)__builtin_ctzll(word);
        word &= word - 1;
      }
      bits[w] = 0;
    }
  } else {
    for (PetscInt q = 0; q < n; q++) bits[cols[q] >> 6] = 0;
    AIJHybridSortInts(n, cols);
  }
}

/*
  AIJHybridSpGEMMRows - rows rs, rs + 1, ... of C = A B into consecutive space: for as long as the
  next row surely fits in what is left of cap entries (its bound min(flops[r], ncols)), its sorted
  columns go to cols and its length to len[r]; with vals, its values too (summed as
  AIJHybridSpGEMMNumeric() sums them, in acc: one scalar per column of B). marker as for
  AIJHybridSpGEMMCount() (row r marks with stamp0 + r); bits (NULL: the rows are sorted by
  comparisons) a zeroed bit per column of B, given back zeroed, with which dense rows are put in
  order. Returns the first row not taken (re when all were) and the entries written in *used.
*/
PetscInt AIJHybridSpGEMMRows(PetscInt rs, PetscInt re, const AIJHybridCSR *A, const AIJHybridCSR *B, const PetscInt *flops, PetscInt ncols, PetscInt stamp0, PetscInt *marker, PetscScalar *acc, uint64_t *bits, PetscInt cap, PetscInt *cols,
                             PetscScalar *vals, PetscInt *len, PetscInt *used)
{
  const PetscInt    *bi = B->i, *bj = B->j;
  const PetscScalar *ba  = B->a;
  PetscInt           pos = 0, r;

  for (r = rs; r < re; r++) {
    const PetscInt stamp = stamp0 + r, start = pos;
    PetscInt       ks[2], ke[2], lo = ncols, hi = -1;

    if (pos + PetscMin(flops[r], ncols) > cap) break;
    RowRanges(A, r, &ks[0], &ke[0], &ks[1], &ke[1]);
    for (PetscInt blk = 0; blk < 2; blk++) {
      const PetscInt    *aj = blk ? A->oj : A->j, off = blk ? A->ooff : 0;
      const PetscScalar *aa = blk ? A->oa : A->a;

      for (PetscInt k = ks[blk]; k < ke[blk]; k++) {
        const PetscInt    row = aj[k] + off;
        const PetscScalar v   = aa ? aa[k] : (PetscScalar)1.0;

        for (PetscInt l = bi[row]; l < bi[row + 1]; l++) {
          const PetscInt c = bj[l];

          if (marker[c] != stamp) {
            marker[c]   = stamp;
            cols[pos++] = c;
            if (vals) acc[c] = (PetscScalar)0.0 + v * ba[l]; /* from 0, as the numeric phase (-0 becomes +0 alike) */
            if (bits) {
              bits[c >> 6] |= (uint64_t)1 << (c & 63);
              lo = PetscMin(lo, c);
              hi = PetscMax(hi, c);
            }
          } else if (vals) acc[c] += v * ba[l];
        }
      }
    }
    SortRow(pos - start, cols + start, bits, lo, hi);
    if (vals)
      for (PetscInt q = start; q < pos; q++) vals[q] = acc[cols[q]];
    len[r] = pos - start;
  }
  *used = pos;
  return r;
}

/* buf[map[c]] += a_k b_kc over the rows of B selected by aj[ks..ke) (+ off), a_k = aa[k] (1 if aa is NULL) */
static inline void AccumulateBlock(const PetscInt *aj, const PetscScalar *aa, PetscInt ks, PetscInt ke, PetscInt off, const PetscInt *bi, const PetscInt *bj, const PetscScalar *ba, const PetscInt *map, PetscScalar *buf)
{
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt    row = aj[k] + off;
    const PetscScalar v   = aa ? aa[k] : (PetscScalar)1.0;

    for (PetscInt l = bi[row]; l < bi[row + 1]; l++) buf[map[bj[l]]] += v * ba[l];
  }
}

/*
  AIJHybridSpGEMMNumeric - the values of rows [rs, re) of C = A B into the blocks of out. map: one
  entry per column of B (any content); buf: the length of the longest row of C.
*/
void AIJHybridSpGEMMNumeric(PetscInt rs, PetscInt re, const AIJHybridCSR *A, const AIJHybridCSR *B, const AIJHybridCSROut *out, PetscInt *map, PetscScalar *buf)
{
  for (PetscInt r = rs; r < re; r++) {
    const PetscInt  c0 = out->i[r], len = out->i[r + 1] - c0;
    const PetscInt *cj = out->j + c0;
    PetscInt        ks0, ke0, ks1, ke1, nd;

    for (PetscInt q = 0; q < len; q++) {
      map[cj[q]] = q;
      buf[q]     = 0.0;
    }
    RowRanges(A, r, &ks0, &ke0, &ks1, &ke1);
    AccumulateBlock(A->j, A->a, ks0, ke0, 0, B->i, B->j, B->a, map, buf);
    AccumulateBlock(A->oj, A->oa, ks1, ke1, A->ooff, B->i, B->j, B->a, map, buf);
    nd = len;
    if (out->a1)
      for (nd = 0; nd < len && cj[nd] < out->split; nd++) { }
    for (PetscInt q = 0; q < nd; q++) out->a0[out->i0[r] + q] = buf[q];
    for (PetscInt q = nd; q < len; q++) out->a1[out->i1[r] + q - nd] = buf[q];
  }
}

/* the row of A^T (the column of A) an entry of block 0 or 1 of A belongs to */
static inline PetscInt TransposeRow0(const AIJHybridCSR *A, PetscInt k)
{
  return A->j[k];
}
static inline PetscInt TransposeRow1(const AIJHybridCSR *A, PetscInt k)
{
  return A->oj[k] + A->ooff;
}

/*
  AIJHybridTransposeCount - cnt[c] += the entries of column c (block 1: c = oj + ooff) in the rows
  [rs, re) of A: one thread's own count array, zeroed by the caller
*/
void AIJHybridTransposeCount(PetscInt rs, PetscInt re, const AIJHybridCSR *A, PetscInt *cnt)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt ks0, ke0, ks1, ke1;

    RowRanges(A, r, &ks0, &ke0, &ks1, &ke1);
    for (PetscInt k = ks0; k < ke0; k++) cnt[TransposeRow0(A, k)]++;
    for (PetscInt k = ks1; k < ke1; k++) cnt[TransposeRow1(A, k)]++;
  }
}

/*
  AIJHybridTransposeOffsets - for the columns c in [cs, ce): cnt[t][c] (the counts of T threads)
  becomes the number of entries of c counted by threads < t, and total[c] their sum
*/
void AIJHybridTransposeOffsets(PetscInt cs, PetscInt ce, PetscInt T, PetscInt *const *cnt, PetscInt *total)
{
  for (PetscInt c = cs; c < ce; c++) {
    PetscInt s = 0;

    for (PetscInt t = 0; t < T; t++) {
      const PetscInt v = cnt[t][c];

      cnt[t][c] = s;
      s += v;
    }
    total[c] = s;
  }
}

/*
  AIJHybridTransposeFill - the entries of rows [rs, re) of A into the rows of A^T (row pointers
  ti): entry k of column c goes to position ti[c] + off[c]++ with its row of A in tj and its place
  in A's values in perm (k for block 0, nz0 + k for block 1). off: this thread's offsets from
  AIJHybridTransposeOffsets().
*/
void AIJHybridTransposeFill(PetscInt rs, PetscInt re, const AIJHybridCSR *A, PetscInt nz0, const PetscInt *ti, PetscInt *off, PetscInt *tj, PetscInt *perm)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt ks0, ke0, ks1, ke1;

    RowRanges(A, r, &ks0, &ke0, &ks1, &ke1);
    for (PetscInt k = ks0; k < ke0; k++) {
      const PetscInt c = TransposeRow0(A, k), pos = ti[c] + off[c]++;

      tj[pos]   = r;
      perm[pos] = k;
    }
    for (PetscInt k = ks1; k < ke1; k++) {
      const PetscInt c = TransposeRow1(A, k), pos = ti[c] + off[c]++;

      tj[pos]   = r;
      perm[pos] = nz0 + k;
    }
  }
}

/* AIJHybridTransposeGather - tv[p] = the value perm[p] of A (a0[perm[p]] below nz0, a1[perm[p] - nz0] above) for p in [ps, pe) */
void AIJHybridTransposeGather(PetscInt ps, PetscInt pe, const PetscInt *perm, PetscInt nz0, const PetscScalar *a0, const PetscScalar *a1, PetscScalar *tv)
{
  for (PetscInt p = ps; p < pe; p++) {
    const PetscInt k = perm[p];

    tv[p] = k < nz0 ? a0[k] : a1[k - nz0];
  }
}

/* AIJHybridPrefixSum - ptr[0] = 0, ptr[r+1] = ptr[r] + cnt[r] for r < n; returns ptr[n] */
PetscInt AIJHybridPrefixSum(PetscInt n, const PetscInt *cnt, PetscInt *ptr)
{
  ptr[0] = 0;
  for (PetscInt r = 0; r < n; r++) ptr[r + 1] = ptr[r] + cnt[r];
  return ptr[n];
}

static inline void InsertionSort(PetscInt n, PetscInt *a)
{
  for (PetscInt k = 1; k < n; k++) {
    const PetscInt v = a[k];
    PetscInt       p = k;

    for (; p > 0 && a[p - 1] > v; p--) a[p] = a[p - 1];
    a[p] = v;
  }
}

/* AIJHybridSortInts - sort a[0..n) increasingly: quicksort (median of three, the smaller part
   first, the larger one iterated: O(log n) depth) down to short runs, then insertion sort */
void AIJHybridSortInts(PetscInt n, PetscInt *a)
{
  while (n > 16) {
    const PetscInt m = n / 2;
    PetscInt       pivot, i = 0, j = n - 1, t;

    /* median of a[0], a[m], a[n-1] */
    if (a[m] < a[0]) (t = a[m], a[m] = a[0], a[0] = t);
    if (a[n - 1] < a[0]) (t = a[n - 1], a[n - 1] = a[0], a[0] = t);
    if (a[n - 1] < a[m]) (t = a[n - 1], a[n - 1] = a[m], a[m] = t);
    pivot = a[m];
    /* Hoare partition: [0, j] <= pivot <= [j+1, n) */
    for (;;) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i >= j) break;
      t    = a[i];
      a[i] = a[j];
      a[j] = t;
      i++;
      j--;
    }
    if (j + 1 < n - j - 1) {
      AIJHybridSortInts(j + 1, a);
      a += j + 1;
      n -= j + 1;
    } else {
      AIJHybridSortInts(n - j - 1, a + j + 1);
      n = j + 1;
    }
  }
  InsertionSort(n, a);
}

/*
  AIJHybridRowsConcat - rows [rs, re) of X (two blocks) made one: row r at ci[r] is block 0's
  columns, then block 1's, each column c of block 1 written as (cmap1 ? cmap1[c] : c) + X->ooff;
  cj or ca may be NULL (no columns, or no values: X's values then need not exist)
*/
void AIJHybridRowsConcat(PetscInt rs, PetscInt re, const AIJHybridCSR *X, const PetscInt *cmap1, const PetscInt *ci, PetscInt *cj, PetscScalar *ca)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt ks0, ke0, ks1, ke1, p = ci[r];

    RowRanges(X, r, &ks0, &ke0, &ks1, &ke1);
    for (PetscInt k = ks0; k < ke0; k++, p++) {
      if (cj) cj[p] = X->j[k];
      if (ca) ca[p] = X->a[k];
    }
    for (PetscInt k = ks1; k < ke1; k++, p++) {
      if (cj) cj[p] = (cmap1 ? cmap1[X->oj[k]] : X->oj[k]) + X->ooff;
      if (ca) ca[p] = X->oa[k];
    }
  }
}

/* AIJHybridRowsSplitCount - dcnt[r] = the entries of row r (sorted columns cj[ci[r]..ci[r+1])) below split, r in [rs, re) */
void AIJHybridRowsSplitCount(PetscInt rs, PetscInt re, const PetscInt *ci, const PetscInt *cj, PetscInt split, PetscInt *dcnt)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt lo = ci[r], hi = ci[r + 1];

    while (lo < hi) { /* first entry >= split */
      const PetscInt mid = lo + (hi - lo) / 2;

      if (cj[mid] < split) lo = mid + 1;
      else hi = mid;
    }
    dcnt[r] = lo - ci[r];
  }
}

/*
  AIJHybridRowsSplit - rows [rs, re) of the compact rows (ci, cj, ca; columns below split are
  local, the others split + k for the global column colmap[k]) into a diagonal block (di, dj, da:
  the local columns) and an off-diagonal block (oi, oj, oa: the global columns); any of the column
  or value arrays may be NULL
*/
void AIJHybridRowsSplit(PetscInt rs, PetscInt re, const PetscInt *ci, const PetscInt *cj, const PetscScalar *ca, PetscInt split, const PetscInt *colmap, const PetscInt *di, PetscInt *dj, PetscScalar *da, const PetscInt *oi, PetscInt *oj,
                        PetscScalar *oa)
{
  for (PetscInt r = rs; r < re; r++) {
    PetscInt pd = di[r], po = oi[r];

    for (PetscInt k = ci[r]; k < ci[r + 1]; k++) {
      if (cj[k] < split) {
        if (dj) dj[pd] = cj[k];
        if (da) da[pd] = ca[k];
        pd++;
      } else {
        if (oj) oj[po] = colmap[cj[k] - split];
        if (oa) oa[po] = ca[k];
        po++;
      }
    }
  }
}

/*
  AIJHybridColumnsToCompact - out[k] = the compact column of the global column g[k], k in [ks, ke):
  g - cstart when cstart <= g < cstart + nloc, else nloc + (its place in colmap[0..ncm), sorted;
  -1 if it is not there)
*/
void AIJHybridColumnsToCompact(PetscInt ks, PetscInt ke, const PetscInt *g, PetscInt cstart, PetscInt nloc, PetscInt ncm, const PetscInt *colmap, PetscInt *out)
{
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt c = g[k];

    if (c >= cstart && c < cstart + nloc) out[k] = c - cstart;
    else {
      PetscInt lo = 0, hi = ncm;

      while (lo < hi) {
        const PetscInt mid = lo + (hi - lo) / 2;

        if (colmap[mid] < c) lo = mid + 1;
        else hi = mid;
      }
      out[k] = (lo < ncm && colmap[lo] == c) ? nloc + lo : -1;
    }
  }
}

/* AIJHybridColumnsToGlobal - out[k] = the global column of the compact column c[k] (see AIJHybridColumnsToCompact()), k in [ks, ke) */
void AIJHybridColumnsToGlobal(PetscInt ks, PetscInt ke, const PetscInt *c, PetscInt cstart, PetscInt nloc, const PetscInt *colmap, PetscInt *out)
{
  for (PetscInt k = ks; k < ke; k++) out[k] = c[k] < nloc ? cstart + c[k] : colmap[c[k] - nloc];
}
