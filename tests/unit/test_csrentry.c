/*
   Unit tests of the entry-wise CSR kernels of the setup (src/kernels/csrentry.h), one process, no
   PETSc objects.

   Random CSR matrices (sorted columns, empty rows, rows with and without a diagonal entry, a few
   long rows) are cut into 1 to 5 random row or entry ranges; each kernel over the ranges is
   compared bitwise with a plain reference written from the definition, entry by entry:
     - scale, axpy on equal patterns: v a and y + a x (BLAS's product);
     - subset: X a random subset of Y's pattern (also through an increasing column map, as for two
       off-diagonal blocks with different ghost lists) is found to be one, and X with one entry
       more is not; y + (a x), and y + x for a = 1;
     - union: the counts and the columns of each row against a dense marker of the row, the values
       y + (a x), y alone, (a x) alone;
     - diagonal scaling (left, right, both) and the diagonal (first entry in the diagonal's
       column, 0 without one), with and without a column shift;
     - the thread count rule of small operations.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "kernels/csrentry.h"
#include "unitcheck.h"

typedef struct {
  PetscInt     m, n, nz;
  PetscInt    *i, *j;
  PetscScalar *a;
} CSR;

static void FreeCSR(CSR *A)
{
  PetscCallVoid(PetscFree3(A->i, A->j, A->a));
}

/* m x n, about k entries per row (a few rows 10 times longer, some empty), a diagonal entry in most rows */
static void RandomCSR(PetscInt m, PetscInt n, PetscInt k, CSR *A)
{
  char    *mark;
  PetscInt cap = m * (k + 1) * 4 + 10 * n + 1;

  A->m = m;
  A->n = n;
  PetscCallVoid(PetscCalloc1(n + 1, &mark));
  PetscCallVoid(PetscMalloc3(m + 1, &A->i, cap, &A->j, cap, &A->a));
  A->i[0] = 0;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt len = RandInt(8) == 0 ? 0 : RandInt(2 * k + 1), nz = A->i[r];

    if (RandInt(20) == 0) len *= 10;
    if (len > n) len = n;
    if (r < n && RandInt(4)) mark[r] = 1;
    for (PetscInt q = 0; q < len; q++) mark[RandInt(n)] = 1;
    for (PetscInt c = 0; c < n; c++)
      if (mark[c]) {
        A->j[nz]   = c;
        A->a[nz++] = RandScalar();
        mark[c]    = 0;
      }
    A->i[r + 1] = nz;
  }
  A->nz = A->i[m];
  PetscCallVoid(PetscFree(mark));
}

/* B: each entry of A kept with probability 1/2, values new */
static void SubsetCSR(const CSR *A, CSR *B)
{
  B->m = A->m;
  B->n = A->n;
  PetscCallVoid(PetscMalloc3(A->m + 1, &B->i, A->nz + 1, &B->j, A->nz + 1, &B->a));
  B->i[0] = 0;
  for (PetscInt r = 0; r < A->m; r++) {
    PetscInt nz = B->i[r];
    for (PetscInt k = A->i[r]; k < A->i[r + 1]; k++)
      if (RandInt(2)) {
        B->j[nz]   = A->j[k];
        B->a[nz++] = RandScalar();
      }
    B->i[r + 1] = nz;
  }
  B->nz = B->i[A->m];
}

/* bounds[0..T] of [0, n): random non-decreasing cuts */
static void RandomBounds(PetscInt n, PetscInt T, PetscInt *bounds)
{
  bounds[0] = 0;
  bounds[T] = n;
  for (PetscInt t = 1; t < T; t++) bounds[t] = RandInt(n + 1);
  for (PetscInt t = 1; t < T; t++)
    for (PetscInt u = t + 1; u < T; u++)
      if (bounds[u] < bounds[t]) {
        PetscInt s = bounds[u];
        bounds[u]  = bounds[t];
        bounds[t]  = s;
      }
}

static void TestScaleAXPYSame(void)
{
  for (PetscInt trial = 0; trial < 40; trial++) {
    CSR         X, Y;
    PetscInt    T = 1 + RandInt(5), bounds[6];
    PetscScalar a = RandScalar(), *ref, *y;

    RandomCSR(1 + RandInt(60), 1 + RandInt(60), 1 + RandInt(6), &Y);
    X = Y; /* same pattern, its own values */
    PetscCallVoid(PetscMalloc3(Y.m + 1, &X.i, Y.nz + 1, &X.j, Y.nz + 1, &X.a));
    PetscCallVoid(PetscArraycpy(X.i, Y.i, Y.m + 1));
    PetscCallVoid(PetscArraycpy(X.j, Y.j, Y.nz));
    for (PetscInt k = 0; k < Y.nz; k++) X.a[k] = RandScalar();
    PetscCallVoid(PetscMalloc2(Y.nz + 1, &ref, Y.nz + 1, &y));
    RandomBounds(Y.nz, T, bounds);
    for (PetscInt k = 0; k < Y.nz; k++) ref[k] = AIJHybridMulBLAS(a, Y.a[k]);
    PetscCallVoid(PetscArraycpy(y, Y.a, Y.nz));
    for (PetscInt t = 0; t < T; t++) AIJHybridKernelScale(bounds[t], bounds[t + 1], a, y);
    CHECK(Same(y, ref, Y.nz), "scale trial %d", (int)trial);
    for (PetscInt k = 0; k < Y.nz; k++) ref[k] = Y.a[k] + AIJHybridMulBLAS(a, X.a[k]);
    PetscCallVoid(PetscArraycpy(y, Y.a, Y.nz));
    RandomBounds(Y.nz, T, bounds);
    for (PetscInt t = 0; t < T; t++) AIJHybridKernelAXPYSame(bounds[t], bounds[t + 1], a, X.a, y);
    CHECK(Same(y, ref, Y.nz), "axpy same trial %d", (int)trial);
    PetscCallVoid(PetscFree2(ref, y));
    FreeCSR(&X);
    FreeCSR(&Y);
  }
}

/* position of column c in row r of Y, -1 if absent */
static PetscInt Find(const CSR *Y, PetscInt r, PetscInt c)
{
  for (PetscInt p = Y->i[r]; p < Y->i[r + 1]; p++)
    if (Y->j[p] == c) return p;
  return -1;
}

static void TestSubset(void)
{
  for (PetscInt trial = 0; trial < 60; trial++) {
    CSR         X, Y;
    PetscInt    T = 1 + RandInt(5), bounds[6], *map = NULL, *xcol;
    PetscScalar a      = trial % 3 == 0 ? 1.0 : RandScalar(), *ref, *y;
    PetscBool   mapped = (PetscBool)(trial % 2), ok;

    RandomCSR(1 + RandInt(60), 1 + RandInt(60), 1 + RandInt(6), &Y);
    SubsetCSR(&Y, &X);
    PetscCallVoid(PetscMalloc1(X.nz + 1, &xcol));
    PetscCallVoid(PetscArraycpy(xcol, X.j, X.nz));
    if (mapped) { /* X numbers its columns by the increasing list of those it uses: map = that list */
      char    *used;
      PetscInt nused = 0, *local;

      PetscCallVoid(PetscCalloc1(Y.n, &used));
      PetscCallVoid(PetscMalloc1(Y.n + 1, &map));
      PetscCallVoid(PetscMalloc1(Y.n + 1, &local));
      for (PetscInt k = 0; k < X.nz; k++) used[X.j[k]] = 1;
      for (PetscInt c = 0; c < Y.n; c++)
        if (used[c]) {
          local[c]     = nused;
          map[nused++] = c;
        }
      for (PetscInt k = 0; k < X.nz; k++) X.j[k] = local[X.j[k]];
      PetscCallVoid(PetscFree(used));
      PetscCallVoid(PetscFree(local));
    }
    RandomBounds(Y.m, T, bounds);
    ok = PETSC_TRUE;
    for (PetscInt t = 0; t < T; t++) ok = (PetscBool)(ok && AIJHybridKernelSubsetRows(bounds[t], bounds[t + 1], X.i, X.j, map, Y.i, Y.j));
    CHECK(ok, "subset trial %d: a subset not recognised", (int)trial);
    PetscCallVoid(PetscMalloc2(Y.nz + 1, &ref, Y.nz + 1, &y));
    PetscCallVoid(PetscArraycpy(ref, Y.a, Y.nz));
    for (PetscInt r = 0; r < X.m; r++)
      for (PetscInt k = X.i[r]; k < X.i[r + 1]; k++) {
        PetscInt p = Find(&Y, r, xcol[k]);
        ref[p]     = ref[p] + (a == (PetscScalar)1.0 ? X.a[k] : a * X.a[k]);
      }
    PetscCallVoid(PetscArraycpy(y, Y.a, Y.nz));
    for (PetscInt t = 0; t < T; t++) AIJHybridKernelAXPYSubsetRows(bounds[t], bounds[t + 1], a, (PetscBool)(a == (PetscScalar)1.0), X.i, X.j, map, X.a, Y.i, Y.j, y);
    CHECK(Same(y, ref, Y.nz), "axpy subset trial %d (mapped %d)", (int)trial, (int)mapped);
    /* one entry of Y removed: X (if it had that entry) is no longer a subset */
    if (!mapped && X.nz) {
      CSR      Z = Y;
      PetscInt r = 0, kx = RandInt(X.nz), p, sub = 1;

      while (X.i[r + 1] <= kx) r++;
      p = Find(&Y, r, X.j[kx]);
      PetscCallVoid(PetscMalloc3(Y.m + 1, &Z.i, Y.nz + 1, &Z.j, Y.nz + 1, &Z.a));
      for (PetscInt q = 0, w = 0; q < Y.nz; q++)
        if (q != p) Z.j[w++] = Y.j[q];
      for (PetscInt s = 0; s <= Y.m; s++) Z.i[s] = Y.i[s] - (s > r ? 1 : 0);
      for (PetscInt t = 0; t < T; t++) sub = sub && AIJHybridKernelSubsetRows(bounds[t], bounds[t + 1], X.i, X.j, NULL, Z.i, Z.j);
      CHECK(!sub, "subset trial %d: a missing entry not seen", (int)trial);
      FreeCSR(&Z);
    }
    PetscCallVoid(PetscFree2(ref, y));
    PetscCallVoid(PetscFree(xcol));
    if (map) PetscCallVoid(PetscFree(map));
    FreeCSR(&X);
    FreeCSR(&Y);
  }
}

static void TestUnion(void)
{
  for (PetscInt trial = 0; trial < 60; trial++) {
    CSR          X, Y;
    PetscInt     T = 1 + RandInt(5), bounds[6], m = 1 + RandInt(60), n = 1 + RandInt(60), *cnt, *bi, *bj;
    PetscScalar  a = trial % 3 == 0 ? 1.0 : RandScalar(), *ba;
    PetscScalar *dy, *dx;
    char        *iny, *inx;
    PetscBool    okc = PETSC_TRUE, okj = PETSC_TRUE, oka = PETSC_TRUE;

    RandomCSR(m, n, 1 + RandInt(6), &Y);
    RandomCSR(m, n, 1 + RandInt(6), &X);
    PetscCallVoid(PetscMalloc2(m, &cnt, m + 1, &bi));
    RandomBounds(m, T, bounds);
    for (PetscInt t = 0; t < T; t++) AIJHybridKernelUnionCount(bounds[t], bounds[t + 1], X.i, X.j, Y.i, Y.j, cnt + bounds[t]);
    bi[0] = 0;
    for (PetscInt r = 0; r < m; r++) bi[r + 1] = bi[r] + cnt[r];
    PetscCallVoid(PetscMalloc2(bi[m] + 1, &bj, bi[m] + 1, &ba));
    RandomBounds(m, T, bounds);
    if (trial % 2) { /* the columns and the values in one pass */
      for (PetscInt t = 0; t < T; t++) AIJHybridKernelUnionFill(bounds[t], bounds[t + 1], a, (PetscBool)(a == (PetscScalar)1.0), X.i, X.j, X.a, Y.i, Y.j, Y.a, bi, bj, ba);
    } else { /* the columns, then the values (other splits) */
      for (PetscInt t = 0; t < T; t++) AIJHybridKernelUnionFill(bounds[t], bounds[t + 1], a, (PetscBool)(a == (PetscScalar)1.0), X.i, X.j, NULL, Y.i, Y.j, NULL, bi, bj, NULL);
      RandomBounds(m, T, bounds);
      for (PetscInt t = 0; t < T; t++) AIJHybridKernelUnionFill(bounds[t], bounds[t + 1], a, (PetscBool)(a == (PetscScalar)1.0), X.i, X.j, X.a, Y.i, Y.j, Y.a, bi, NULL, ba);
    }
    PetscCallVoid(PetscMalloc4(n, &dy, n, &dx, n, &iny, n, &inx));
    for (PetscInt r = 0; r < m; r++) {
      PetscInt q = bi[r], count = 0, cs = RandInt(n + 1), ce = cs + RandInt(n + 1 - cs), nin, nout, refin = 0;

      PetscCallVoid(PetscArrayzero(iny, n));
      PetscCallVoid(PetscArrayzero(inx, n));
      for (PetscInt k = Y.i[r]; k < Y.i[r + 1]; k++) {
        iny[Y.j[k]] = 1;
        dy[Y.j[k]]  = Y.a[k];
      }
      for (PetscInt k = X.i[r]; k < X.i[r + 1]; k++) {
        inx[X.j[k]] = 1;
        dx[X.j[k]]  = a == (PetscScalar)1.0 ? X.a[k] : a * X.a[k];
      }
      for (PetscInt c = 0; c < n; c++) {
        PetscScalar v;

        if (!iny[c] && !inx[c]) continue;
        count++;
        if (c >= cs && c < ce) refin++;
        v = iny[c] && inx[c] ? dy[c] + dx[c] : (iny[c] ? dy[c] : dx[c]);
        if (q >= bi[r + 1] || bj[q] != c) okj = PETSC_FALSE;
        else if (!Same(&ba[q], &v, 1)) oka = PETSC_FALSE;
        q++;
      }
      if (count != cnt[r]) okc = PETSC_FALSE;
      /* one row, split by a column range (the MatAXPY() preallocation of X of another type) */
      AIJHybridKernelUnionRow(X.i[r + 1] - X.i[r], X.j + X.i[r], Y.i[r + 1] - Y.i[r], Y.j + Y.i[r], cs, ce, &nin, &nout);
      if (nin != refin || nout != count - refin) okc = PETSC_FALSE;
    }
    CHECK(okc, "union trial %d: counts", (int)trial);
    CHECK(okj, "union trial %d: columns", (int)trial);
    CHECK(oka, "union trial %d: values", (int)trial);
    PetscCallVoid(PetscFree4(dy, dx, iny, inx));
    PetscCallVoid(PetscFree2(bj, ba));
    PetscCallVoid(PetscFree2(cnt, bi));
    FreeCSR(&X);
    FreeCSR(&Y);
  }
}

static void TestDiagonal(void)
{
  for (PetscInt trial = 0; trial < 60; trial++) {
    CSR          A;
    PetscInt     T = 1 + RandInt(5), bounds[6], m = 1 + RandInt(60), n = 1 + RandInt(60), shift = trial % 4 == 0 ? RandInt(5) : 0;
    PetscScalar *l, *r, *v, *ref, *d, *dref;
    PetscInt     which = trial % 3; /* 0 left, 1 right, 2 both */

    RandomCSR(m, n, 1 + RandInt(6), &A);
    PetscCallVoid(PetscMalloc6(m, &l, n, &r, A.nz + 1, &v, A.nz + 1, &ref, m, &d, m, &dref));
    for (PetscInt i = 0; i < m; i++) l[i] = RandScalar();
    for (PetscInt c = 0; c < n; c++) r[c] = RandScalar();
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt k = A.i[i]; k < A.i[i + 1]; k++) {
        PetscScalar x = A.a[k];
        if (which != 1) x = x * l[i];
        if (which != 0) x = x * r[A.j[k]];
        ref[k] = x;
      }
    PetscCallVoid(PetscArraycpy(v, A.a, A.nz));
    RandomBounds(m, T, bounds);
    for (PetscInt t = 0; t < T; t++) AIJHybridKernelDiagonalScaleRows(bounds[t], bounds[t + 1], A.i, A.j, which != 1 ? l : NULL, which != 0 ? r : NULL, v);
    CHECK(Same(v, ref, A.nz), "diagonal scale trial %d (kind %d)", (int)trial, (int)which);
    for (PetscInt i = 0; i < m; i++) {
      PetscInt p = Find(&A, i, i + shift);
      dref[i]    = p >= 0 ? A.a[p] : 0.0;
      d[i]       = 7.0; /* overwritten */
    }
    RandomBounds(m, T, bounds);
    for (PetscInt t = 0; t < T; t++) AIJHybridKernelDiagonal(bounds[t], bounds[t + 1], shift, A.i, A.j, A.a, d);
    CHECK(Same(d, dref, m), "diagonal trial %d (shift %d)", (int)trial, (int)shift);
    PetscCallVoid(PetscFree6(l, r, v, ref, d, dref));
    FreeCSR(&A);
  }
}

static void TestThreads(void)
{
  CHECK(AIJHybridEntryThreads(4, 0) == 1, "no entries: one thread");
  CHECK(AIJHybridEntryThreads(4, AIJHYBRID_ENTRY_GRAIN - 1) == 1, "below one grain: one thread");
  CHECK(AIJHybridEntryThreads(4, 2 * AIJHYBRID_ENTRY_GRAIN) == 2, "two grains: two threads");
  CHECK(AIJHybridEntryThreads(4, 100 * AIJHYBRID_ENTRY_GRAIN) == 4, "many grains: all threads");
  CHECK(AIJHybridEntryThreads(1, 100 * AIJHYBRID_ENTRY_GRAIN) == 1, "one thread in force");
}

int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rng_state = 20261126;
  TestScaleAXPYSame();
  TestSubset();
  TestUnion();
  TestDiagonal();
  TestThreads();
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
