/*
   Unit tests of the numeric-factorization kernels (src/kernels/ilu.h) and their plans
   (src/factor/numericplan.c), one process, OpenMP threads.

   References: serial transcriptions of PETSc's routines as they loop (MatLUFactorNumeric_SeqAIJ(),
   MatLUFactorNumeric_SeqAIJ_Inode() with its node sizes made from the matrix's inodes, the 3.18 and
   the 3.24+ way of loading a node's rows, MatCholeskyFactorNumeric_SeqAIJ() with its linked lists,
   MatPivotCheck() and the shift passes), their work arrays filled with other garbage than the
   kernels'. The kernels run level by level on 1 to 4 threads, as src/factor/numeric.c runs them
   (point-to-point waits, one work array and pivot account per thread, the shift passes), and must
   give the reference's values bitwise, its number of passes and shift, its zero pivots (first and
   last row and value) and its flop count.

   Matrices: random sparse patterns with the diagonal (and matrices with inodes: rows of a node
   share their columns, nodes of 1 to 5 rows), ILU patterns of the permuted matrix with random
   fill, random row/column permutations (inodes: permutations of whole nodes), ICC patterns of the
   upper triangle with fill; diagonally dominant values, or with zero diagonals to exercise every
   shift type and zero pivot rule; real or complex as PETSc is built. Also: the plans against
   direct transcriptions (PETSc's node sizes, ICC's reported pivot row), the ILU diagonal positions
   of random layouts, ICC rows in the serial order with the raw values kept in the factor itself.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "factor/levels.h"
#include "factor/numericplan.h"
#include "kernels/ilu.h"
#include "unitcheck.h"
#include <string.h>
#if defined(_OPENMP)
  #include <omp.h>
  #define TID omp_get_thread_num()
  #define NTH omp_get_num_threads()
#else
  #define TID 0
  #define NTH 1
#endif

#define MAXT 4

/* ---------------------------------------------------------------- test matrices */

typedef struct {
  PetscInt     n;
  PetscInt    *ai, *aj, *adiag;
  PetscScalar *aa;
  PetscInt     nnodes, *sizes; /* inodes (rows of a node share their columns); nnodes 0: none */
} CSR;

static void FreeCSR(CSR *A)
{
  PetscCallVoid(PetscFree4(A->ai, A->aj, A->adiag, A->aa));
  PetscCallVoid(PetscFree(A->sizes));
}

/* sorts cols[0..k) ascending, removing duplicates; returns the new count */
static PetscInt SortUnique(PetscInt k, PetscInt *cols)
{
  PetscInt m = 0;

  PetscCallAbort(PETSC_COMM_SELF, PetscSortInt(k, cols));
  for (PetscInt q = 0; q < k; q++)
    if (!m || cols[m - 1] != cols[q]) cols[m++] = cols[q];
  return m;
}

/* a random n x n matrix with its diagonal; deg random columns per row (sym: also the transposed
   ones); inode: consecutive rows in nodes of 1 to 5 with the same columns (the node's rows among
   them); values: off-diagonal in [-1, 1), the diagonal dominant unless zerodiag rows (every
   ~zerodiag-th row, 0: none) get a zero diagonal and no lower entries */
static void MakeCSR(PetscInt n, PetscInt deg, PetscBool sym, PetscBool inode, PetscInt zerodiag, CSR *A)
{
  PetscInt **rc, *rn, *node0, *tmp, nz = 0;

  PetscCallVoid(PetscMemzero(A, sizeof(*A)));
  A->n = n;
  PetscCallVoid(PetscMalloc4(n, &rc, n, &rn, n + 1, &node0, 12 * n + 100, &tmp));
  PetscCallVoid(PetscMalloc1(n + 1, &A->sizes));
  for (PetscInt s = 0; s < n;) { /* nodes */
    const PetscInt draw = inode ? 1 + RandInt(5) : 1, m = PetscMin(draw, n - s);

    for (PetscInt q = 0; q < m; q++) node0[s + q] = s;
    if (inode) A->sizes[A->nnodes++] = m;
    s += m;
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscCallVoid(PetscMalloc1(2 * n + 16, &rc[i]));
    rn[i] = 0;
  }
  for (PetscInt i = 0; i < n; i++) {
    if (node0[i] != i) continue;
    PetscInt k = 0, e = i;

    while (e + 1 < n && node0[e + 1] == i) e++;
    for (PetscInt j = i; j <= e; j++) tmp[k++] = j;
    for (PetscInt q = 0; q < deg; q++) tmp[k++] = RandInt(n);
    if (i > 0 && RandInt(2)) tmp[k++] = i - 1; /* chains */
    for (PetscInt j = i; j <= e; j++)
      for (PetscInt q = 0; q < k; q++) rc[j][rn[j]++] = tmp[q];
    if (sym)
      for (PetscInt q = 0; q < k; q++)
        for (PetscInt j = i; j <= e; j++) {
          const PetscInt c = tmp[q];
          if (rn[c] < 2 * n + 16) rc[c][rn[c]++] = j; /* (room for about 2n entries a row) */
        }
  }
  if (sym && inode) { /* the transposed entries break the shared columns: give each node the union */
    for (PetscInt i = 0; i < n; i++) {
      if (node0[i] != i) continue;
      PetscInt k = 0, e = i;

      while (e + 1 < n && node0[e + 1] == i) e++;
      for (PetscInt j = i; j <= e; j++)
        for (PetscInt q = 0; q < rn[j]; q++) tmp[k++] = rc[j][q];
      k = SortUnique(k, tmp);
      for (PetscInt j = i; j <= e; j++) {
        PetscCallVoid(PetscFree(rc[j]));
        PetscCallVoid(PetscMalloc1(k + 1, &rc[j]));
        for (PetscInt q = 0; q < k; q++) rc[j][q] = tmp[q];
        rn[j] = k;
      }
    }
  }
  for (PetscInt i = 0; i < n; i++) {
    rn[i] = SortUnique(rn[i], rc[i]);
    nz += rn[i];
  }
  PetscCallVoid(PetscMalloc4(n + 1, &A->ai, nz + 1, &A->aj, n + 1, &A->adiag, nz + 1, &A->aa));
  A->ai[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscBool zero = (PetscBool)(zerodiag && i % zerodiag == 1);
    PetscReal       sum  = 0;

    for (PetscInt q = 0; q < rn[i]; q++) {
      const PetscInt p = A->ai[i] + q;

      A->aj[p] = rc[i][q];
      if (rc[i][q] == i) A->adiag[i] = p;
      A->aa[p] = (zero && rc[i][q] < i) ? 0.0 : RandScalar();
      sum += PetscAbsScalar(A->aa[p]);
    }
    A->aa[A->adiag[i]] = zero ? 0.0 : 2.0 * sum + 1.0;
    A->ai[i + 1]       = A->ai[i] + rn[i];
  }
  for (PetscInt i = 0; i < n; i++) PetscCallVoid(PetscFree(rc[i]));
  PetscCallVoid(PetscFree4(rc, rn, node0, tmp));
}

/* a permutation moving whole nodes (their rows stay consecutive and in order) */
static void NodePerm(const CSR *A, PetscInt *p)
{
  PetscInt *order, *start, k = 0;

  PetscCallVoid(PetscMalloc2(A->nnodes + 1, &order, A->nnodes + 1, &start));
  start[0] = 0;
  for (PetscInt u = 0; u < A->nnodes; u++) start[u + 1] = start[u] + A->sizes[u];
  RandPerm(A->nnodes, order);
  for (PetscInt u = 0; u < A->nnodes; u++)
    for (PetscInt q = 0; q < A->sizes[order[u]]; q++) p[k++] = start[order[u]] + q;
  PetscCallVoid(PetscFree2(order, start));
}

static void Invert(PetscInt n, const PetscInt *p, PetscInt *ip)
{
  for (PetscInt i = 0; i < n; i++) ip[p[i]] = i;
}

/* ---------------------------------------------------------------- factor patterns */

typedef struct {
  PetscInt     n, nz;
  PetscInt    *bi, *bj, *bdiag; /* ILU: PETSc's layout; ICC: bi/bj rows of U, diagonal last (bdiag unused) */
  PetscScalar *ba;
} Fac;

static void FreeFac(Fac *f)
{
  PetscCallVoid(PetscFree4(f->bi, f->bj, f->bdiag, f->ba));
}

/* ILU pattern of row i: the columns ic[c] of matrix row r[i], the diagonal, fill random columns;
   with nodes (node0[i]: the first row of i's node, never after i; NULL: none) every row of a node
   takes its first row's fill, so that the rows of a node keep equal column sets */
static void MakeILUPattern(const CSR *A, const PetscInt *r, const PetscInt *ic, PetscInt fill, const PetscInt *node0, Fac *f)
{
  const PetscInt n = A->n;
  PetscInt     **rc, *rn, *fills, nz = 0, p;

  PetscCallVoid(PetscMalloc3(n, &rc, n, &rn, n * fill + 1, &fills));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt q = 0; q < fill; q++) fills[i * fill + q] = node0 && node0[i] != i ? fills[node0[i] * fill + q] : RandInt(n);
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt ar = r ? r[i] : i;
    PetscInt       k  = 0;

    PetscCallVoid(PetscMalloc1(A->ai[ar + 1] - A->ai[ar] + fill + 2, &rc[i]));
    for (PetscInt q = A->ai[ar]; q < A->ai[ar + 1]; q++) rc[i][k++] = ic ? ic[A->aj[q]] : A->aj[q];
    rc[i][k++] = i;
    for (PetscInt q = 0; q < fill; q++) rc[i][k++] = fills[i * fill + q];
    rn[i] = SortUnique(k, rc[i]);
    nz += rn[i];
  }
  f->n  = n;
  f->nz = nz;
  PetscCallVoid(PetscMalloc4(n + 1, &f->bi, nz + 1, &f->bj, n + 1, &f->bdiag, nz + 1, &f->ba));
  PetscCallVoid(PetscArrayzero(f->ba, nz + 1));
  f->bi[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt k = f->bi[i];
    for (PetscInt q = 0; q < rn[i]; q++)
      if (rc[i][q] < i) f->bj[k++] = rc[i][q];
    f->bi[i + 1] = k;
  }
  f->bdiag[n] = f->bi[n] - 1;
  p           = f->bi[n];
  for (PetscInt i = n - 1; i >= 0; i--) {
    for (PetscInt q = 0; q < rn[i]; q++)
      if (rc[i][q] > i) f->bj[p++] = rc[i][q];
    f->bj[p]    = i;
    f->bdiag[i] = p++;
  }
  for (PetscInt i = 0; i < n; i++) PetscCallVoid(PetscFree(rc[i]));
  PetscCallVoid(PetscFree3(rc, rn, fills));
}

/* ICC pattern of row k: the columns ic[c] >= k of matrix row r[k], random fill above k, the diagonal last */
static void MakeICCPattern(const CSR *A, const PetscInt *r, const PetscInt *ic, PetscInt fill, Fac *f)
{
  const PetscInt n = A->n;
  PetscInt     **rc, *rn, nz = 0;

  PetscCallVoid(PetscMalloc2(n, &rc, n, &rn));
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt ar = r ? r[k] : k;
    PetscInt       m  = 0;

    PetscCallVoid(PetscMalloc1(A->ai[ar + 1] - A->ai[ar] + fill + 1, &rc[k]));
    for (PetscInt q = A->ai[ar]; q < A->ai[ar + 1]; q++) {
      const PetscInt c = ic ? ic[A->aj[q]] : A->aj[q];
      if (c > k) rc[k][m++] = c;
    }
    if (k + 1 < n)
      for (PetscInt q = 0; q < fill; q++) rc[k][m++] = k + 1 + RandInt(n - k - 1);
    rn[k] = SortUnique(m, rc[k]);
    nz += rn[k] + 1;
  }
  f->n  = n;
  f->nz = nz;
  PetscCallVoid(PetscMalloc4(n + 1, &f->bi, nz + 1, &f->bj, n + 1, &f->bdiag, nz + 1, &f->ba));
  PetscCallVoid(PetscArrayzero(f->ba, nz + 1));
  f->bi[0] = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscInt p = f->bi[k];
    for (PetscInt q = 0; q < rn[k]; q++) f->bj[p++] = rc[k][q];
    f->bj[p++]   = k;
    f->bi[k + 1] = p;
    f->bdiag[k]  = p - 1;
  }
  for (PetscInt k = 0; k < n; k++) PetscCallVoid(PetscFree(rc[k]));
  PetscCallVoid(PetscFree2(rc, rn));
}

/* ------------------------------------------------- references: PETSc's routines, transcribed */

typedef struct {
  PetscInt  shifttype;
  PetscReal zeropivot, shiftamount;
} Info;

typedef struct {
  PetscInt    nshift, nshift_max;
  PetscReal   shift_amount, shift_lo, shift_hi, shift_top, shift_fraction;
  PetscBool   newshift;
  PetscReal   rs;
  PetscScalar pv;
} Sctx;

typedef struct {
  PetscInt       nzero, firstrow, lastrow; /* zero pivots (NONE): the first (error) and last (recorded) */
  PetscReal      firstval, lastval;
  PetscLogDouble flops; /* of every pass */
} Outcome;

/* MatPivotCheck() */
static void RefPivotCheck(const Info *info, Sctx *sctx, PetscInt row, Outcome *out)
{
  if (info->shifttype == AIJHYBRID_SHIFT_NONZERO) {
    PetscReal _zero = info->zeropivot * sctx->rs;
    if (PetscAbsScalar(sctx->pv) <= _zero && !isnan(PetscAbsScalar(sctx->pv))) {
      if (!sctx->nshift) sctx->shift_amount = info->shiftamount;
      else sctx->shift_amount *= 2.0;
      sctx->newshift = PETSC_TRUE;
      (sctx->nshift)++;
    } else sctx->newshift = PETSC_FALSE;
  } else if (info->shifttype == AIJHYBRID_SHIFT_POSITIVE_DEFINITE) {
    PetscReal _zero = info->zeropivot * sctx->rs;
    if (PetscRealPart(sctx->pv) <= _zero && !isnan(PetscAbsScalar(sctx->pv))) {
      if (sctx->nshift == sctx->nshift_max) sctx->shift_fraction = sctx->shift_hi;
      else {
        sctx->shift_lo       = sctx->shift_fraction;
        sctx->shift_fraction = (sctx->shift_hi + sctx->shift_lo) / 2.;
      }
      sctx->shift_amount = sctx->shift_fraction * sctx->shift_top;
      sctx->nshift++;
      sctx->newshift = PETSC_TRUE;
    } else sctx->newshift = PETSC_FALSE;
  } else if (info->shifttype == AIJHYBRID_SHIFT_INBLOCKS) {
    if (PetscAbsScalar(sctx->pv) <= info->zeropivot && !isnan(PetscAbsScalar(sctx->pv))) {
      sctx->pv += info->shiftamount;
      sctx->shift_amount = 0.0;
      sctx->nshift++;
    }
    sctx->newshift = PETSC_FALSE;
  } else {
    sctx->newshift = PETSC_FALSE;
    if (PetscAbsScalar(sctx->pv) <= info->zeropivot && !isnan(PetscAbsScalar(sctx->pv))) {
      if (!out->nzero) {
        out->firstrow = row;
        out->firstval = PetscAbsScalar(sctx->pv);
      }
      out->nzero++;
      out->lastrow = row;
      out->lastval = PetscAbsScalar(sctx->pv);
    }
  }
}

static void RefSetUp(const CSR *A, const Info *info, Sctx *sctx)
{
  PetscCallVoid(PetscMemzero(sctx, sizeof(*sctx)));
  if (info->shifttype == AIJHYBRID_SHIFT_POSITIVE_DEFINITE) {
    sctx->shift_top = info->zeropivot;
    for (PetscInt i = 0; i < A->n; i++) {
      PetscScalar d  = A->aa[A->adiag[i]];
      PetscReal   rs = -PetscAbsScalar(d) - PetscRealPart(d);
      for (PetscInt j = A->ai[i]; j < A->ai[i + 1]; j++) rs += PetscAbsScalar(A->aa[j]);
      if (rs > sctx->shift_top) sctx->shift_top = rs;
    }
    sctx->shift_top *= 1.1;
    sctx->nshift_max = 5;
    sctx->shift_lo   = 0.;
    sctx->shift_hi   = 1.;
  }
}

static PetscBool RefRefine(const Info *info, Sctx *sctx)
{
  if (info->shifttype == AIJHYBRID_SHIFT_POSITIVE_DEFINITE && !sctx->newshift && sctx->shift_fraction > 0 && sctx->nshift < sctx->nshift_max) {
    sctx->shift_hi       = sctx->shift_fraction;
    sctx->shift_fraction = (sctx->shift_hi + sctx->shift_lo) / 2.;
    sctx->shift_amount   = sctx->shift_fraction * sctx->shift_top;
    sctx->newshift       = PETSC_TRUE;
    sctx->nshift++;
  }
  return sctx->newshift;
}

static void Garbage(PetscScalar *w, PetscInt n, PetscReal g)
{
  for (PetscInt i = 0; i < n; i++) w[i] = g * (PetscReal)(i % 7 + 1);
}

/* MatLUFactorNumeric_SeqAIJ() */
static void RefILU(const CSR *A, const PetscInt *r, const PetscInt *ic, Fac *f, const Info *info, Sctx *sctx, Outcome *out)
{
  const PetscInt n = A->n, *bi = f->bi, *bj = f->bj, *bdiag = f->bdiag;
  PetscScalar   *rtmp, *ba = f->ba;

  PetscCallVoid(PetscMalloc1(n + 1, &rtmp));
  Garbage(rtmp, n + 1, 12345.0);
  RefSetUp(A, info, sctx);
  do {
    sctx->newshift = PETSC_FALSE;
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt  ri = r ? r[i] : i;
      PetscInt        nz, nzL, row;
      const PetscInt *bjtmp;
      PetscReal       rs;

      nz    = bi[i + 1] - bi[i];
      bjtmp = bj + bi[i];
      for (PetscInt j = 0; j < nz; j++) rtmp[bjtmp[j]] = 0.0;
      nz    = bdiag[i] - bdiag[i + 1];
      bjtmp = bj + bdiag[i + 1] + 1;
      for (PetscInt j = 0; j < nz; j++) rtmp[bjtmp[j]] = 0.0;
      nz = A->ai[ri + 1] - A->ai[ri];
      for (PetscInt j = 0; j < nz; j++) rtmp[ic ? ic[A->aj[A->ai[ri] + j]] : A->aj[A->ai[ri] + j]] = A->aa[A->ai[ri] + j];
      rtmp[i] += sctx->shift_amount;
      bjtmp = bj + bi[i];
      row   = *bjtmp++;
      nzL   = bi[i + 1] - bi[i];
      for (PetscInt k = 0; k < nzL; k++) {
        PetscScalar *pc = rtmp + row;
        if (*pc != 0.0) {
          PetscScalar    *pv         = ba + bdiag[row];
          PetscScalar     multiplier = *pc * (*pv);
          const PetscInt *pj         = bj + bdiag[row + 1] + 1;
          *pc                        = multiplier;
          pv                         = ba + bdiag[row + 1] + 1;
          nz                         = bdiag[row] - bdiag[row + 1] - 1;
          for (PetscInt j = 0; j < nz; j++) rtmp[pj[j]] -= multiplier * pv[j];
          out->flops += 1 + 2.0 * nz;
        }
        row = *bjtmp++;
      }
      rs = 0.0;
      nz = bi[i + 1] - bi[i];
      for (PetscInt j = 0; j < nz; j++) {
        ba[bi[i] + j] = rtmp[bj[bi[i] + j]];
        rs += PetscAbsScalar(ba[bi[i] + j]);
      }
      nz = bdiag[i] - bdiag[i + 1] - 1;
      for (PetscInt j = 0; j < nz; j++) {
        ba[bdiag[i + 1] + 1 + j] = rtmp[bj[bdiag[i + 1] + 1 + j]];
        rs += PetscAbsScalar(ba[bdiag[i + 1] + 1 + j]);
      }
      sctx->rs = rs;
      sctx->pv = rtmp[i];
      RefPivotCheck(info, sctx, i, out);
      if (sctx->newshift) break;
      rtmp[i]      = sctx->pv;
      ba[bdiag[i]] = 1.0 / rtmp[i];
    }
  } while (RefRefine(info, sctx));
  PetscCallVoid(PetscFree(rtmp));
}

/* MatLUFactorNumeric_SeqAIJ_Inode(): node sizes from the matrix's inodes (split over 4, laid along
   the permuted rows); old: rows of a node loaded from r[i] + p (PETSc < 3.24), else r[i + p] */
static void RefILUInode(const CSR *A, const PetscInt *r, const PetscInt *ic, Fac *f, const Info *info, PetscBool old, Sctx *sctx, Outcome *out)
{
  const PetscInt n = A->n, *bi = f->bi, *bj = f->bj, *bdiag = f->bdiag;
  PetscScalar   *rt[4], *ba = f->ba;
  PetscInt      *tmp_vec1, *tmp_vec2, *nsmap, node_max, i, j, row;

  PetscCallVoid(PetscMalloc1(4 * n + 4, &rt[0]));
  Garbage(rt[0], 4 * n + 4, -777.0);
  for (PetscInt p = 1; p < 4; p++) rt[p] = rt[0] + p * n;
  PetscCallVoid(PetscMalloc3(2 * n + 1, &tmp_vec1, n + 1, &nsmap, 2 * n + 1, &tmp_vec2));
  for (i = 0, j = 0; i < A->nnodes; ++i, ++j) {
    if (A->sizes[i] > 4) {
      tmp_vec1[j] = 4;
      ++j;
      tmp_vec1[j] = A->sizes[i] - tmp_vec1[j - 1];
    } else tmp_vec1[j] = A->sizes[i];
  }
  node_max = j;
  for (i = 0, row = 0; i < node_max; i++)
    for (j = 0; j < tmp_vec1[i]; j++, row++) nsmap[row] = i;
  for (i = 0, j = 0; i < node_max; i++) {
    tmp_vec2[i] = tmp_vec1[nsmap[r ? r[j] : j]];
    j += tmp_vec2[i];
  }
  RefSetUp(A, info, sctx);
  do {
    sctx->newshift = PETSC_FALSE;
    for (PetscInt inod = 0, i = 0; inod < node_max; inod++) {
      const PetscInt     m = tmp_vec2[inod], a0 = r ? r[i] : i, nz0 = A->ai[a0 + 1] - A->ai[a0];
      const PetscInt    *ajtmp = A->aj + A->ai[a0];
      const PetscScalar *v[4];
      PetscScalar        mul[4];
      PetscInt           nz;

      for (PetscInt p = 0; p < m; p++) v[p] = A->aa + A->ai[r ? (old ? r[i] + p : r[i + p]) : i + p];
      for (PetscInt q = bi[i]; q < bi[i + 1]; q++)
        for (PetscInt p = 0; p < m; p++) rt[p][bj[q]] = 0.0;
      for (PetscInt q = bdiag[i + 1] + 1; q <= bdiag[i]; q++)
        for (PetscInt p = 0; p < m; p++) rt[p][bj[q]] = 0.0;
      for (PetscInt jj = 0; jj < nz0; jj++)
        for (PetscInt p = 0; p < m; p++) rt[p][ic ? ic[ajtmp[jj]] : ajtmp[jj]] = v[p][jj];
      for (PetscInt p = 0; p < m; p++) rt[p][i + p] += sctx->shift_amount;
      for (PetscInt k = bi[i]; k < bi[i + 1]; k++) {
        const PetscInt prow    = bj[k];
        PetscBool      nonzero = PETSC_FALSE;
        for (PetscInt p = 0; p < m; p++) nonzero = (PetscBool)(nonzero || rt[p][prow] != 0.0);
        if (nonzero) {
          const PetscScalar *pv = ba + bdiag[prow + 1] + 1;
          const PetscInt    *pj = bj + bdiag[prow + 1] + 1;
          for (PetscInt p = 0; p < m; p++) {
            mul[p]      = rt[p][prow] * ba[bdiag[prow]];
            rt[p][prow] = mul[p];
          }
          nz = bdiag[prow] - bdiag[prow + 1] - 1;
          for (PetscInt jj = 0; jj < nz; jj++)
            for (PetscInt p = 0; p < m; p++) rt[p][pj[jj]] -= mul[p] * pv[jj];
          out->flops += m + 2.0 * m * nz;
        }
      }
      for (PetscInt p = 0; p < m && !sctx->newshift; p++) {
        const PetscInt ii      = i + p;
        PetscReal      rs      = 0.0;
        PetscBool      nonzero = PETSC_FALSE;

        for (PetscInt q = bi[ii]; q < bi[ii + 1]; q++) {
          ba[q] = rt[p][bj[q]];
          rs += PetscAbsScalar(ba[q]);
        }
        for (PetscInt q = bdiag[ii + 1] + 1; q < bdiag[ii]; q++) {
          ba[q] = rt[p][bj[q]];
          rs += PetscAbsScalar(ba[q]);
        }
        sctx->rs = rs;
        sctx->pv = rt[p][ii];
        RefPivotCheck(info, sctx, ii, out);
        if (sctx->newshift) break;
        ba[bdiag[ii]] = 1.0 / sctx->pv;
        for (PetscInt q = p + 1; q < m; q++) nonzero = (PetscBool)(nonzero || rt[q][ii] != 0.0);
        if (p < m - 1 && nonzero) {
          nz = bdiag[ii] - bdiag[ii + 1] - 1;
          for (PetscInt q = p + 1; q < m; q++) {
            mul[q]    = rt[q][ii] * ba[bdiag[ii]];
            rt[q][ii] = mul[q];
          }
          for (PetscInt jj = 0; jj < nz; jj++) {
            const PetscInt col = bj[bdiag[ii + 1] + 1 + jj];
            for (PetscInt q = p + 1; q < m; q++) rt[q][col] -= mul[q] * rt[p][col];
          }
          out->flops += (m == 4 && p == 1) ? 4.0 * nz : (m - p - 1) * (1 + 2.0 * nz);
        }
      }
      if (sctx->newshift) break;
      i += m;
    }
  } while (RefRefine(info, sctx));
  PetscCallVoid(PetscFree3(tmp_vec1, nsmap, tmp_vec2));
  PetscCallVoid(PetscFree(rt[0]));
}

/* MatCholeskyFactorNumeric_SeqAIJ(); pivot rows as it reports them */
static void RefICC(const CSR *A, const PetscInt *rip, const PetscInt *riip, Fac *f, const Info *info, Sctx *sctx, Outcome *out)
{
  const PetscInt mbs = A->n, *bi = f->bi, *bj = f->bj, *bdiag = f->bdiag;
  PetscScalar   *rtmp, *ba = f->ba;
  PetscInt      *il, *c2r, i, j, k, jmin, jmax, nexti, ili;

  PetscCallVoid(PetscMalloc3(mbs + 1, &rtmp, mbs + 1, &il, mbs + 1, &c2r));
  Garbage(rtmp, mbs + 1, 4321.0);
  RefSetUp(A, info, sctx);
  do {
    sctx->newshift = PETSC_FALSE;
    for (i = 0; i < mbs; i++) c2r[i] = mbs;
    if (mbs) il[0] = 0;
    for (k = 0; k < mbs; k++) {
      PetscScalar dk, uikdi, *bval;
      PetscReal   rs;

      for (j = bi[k]; j < bi[k + 1]; j++) rtmp[bj[j]] = 0.0;
      bval = ba + bi[k];
      for (j = A->ai[rip ? rip[k] : k]; j < A->ai[(rip ? rip[k] : k) + 1]; j++) {
        const PetscInt col = riip ? riip[A->aj[j]] : A->aj[j];
        if (col >= k) {
          rtmp[col] = A->aa[j];
          *bval++   = 0.0;
        }
      }
      rtmp[k] += sctx->shift_amount;
      dk = rtmp[k];
      i  = c2r[k];
      while (i < k) {
        nexti = c2r[i];
        ili   = il[i];
        uikdi = -ba[ili] * ba[bdiag[i]];
        dk += uikdi * ba[ili];
        ba[ili] = uikdi;
        jmin    = ili + 1;
        jmax    = bi[i + 1];
        if (jmin < jmax) {
          for (j = jmin; j < jmax; j++) rtmp[bj[j]] += uikdi * ba[j];
          il[i]  = jmin;
          j      = bj[jmin];
          c2r[i] = c2r[j];
          c2r[j] = i;
        }
        i = nexti;
      }
      rs   = 0.0;
      jmin = bi[k];
      jmax = bi[k + 1] - 1;
      if (jmin < jmax) {
        for (j = jmin; j < jmax; j++) {
          ba[j] = rtmp[bj[j]];
          rs += PetscAbsScalar(ba[j]);
        }
        il[k]  = jmin;
        i      = bj[jmin];
        c2r[k] = c2r[i];
        c2r[i] = k;
      }
      sctx->rs = rs;
      sctx->pv = dk;
      RefPivotCheck(info, sctx, i, out);
      if (sctx->newshift) break;
      dk           = sctx->pv;
      ba[bdiag[k]] = 1.0 / dk;
    }
  } while (sctx->newshift); /* no refinement in PETSc's ICC */
  PetscCallVoid(PetscFree3(rtmp, il, c2r));
}

/* ---------------------------------------------------------------- the kernels, level by level */

typedef enum {
  JOB_ILU,
  JOB_INODE,
  JOB_ICC
} JobKind;

typedef struct {
  JobKind            kind;
  const CSR         *A;
  const PetscInt    *arow, *ic, *nstart, *cptr, *crow, *cpos;
  Fac               *f;
  PetscScalar       *raw;
  AIJHybridPivotRule rule;
} Job;

static PetscInt progress[MAXT * AIJHYBRID_LEVELS_STRIDE];

/* one pass over the schedule on T threads; the threads' accounts merged into st */
static PetscBool Pass(const Job *job, const AIJHybridLevels *lv, PetscInt T, PetscScalar *work, PetscInt stride, AIJHybridPivotStatus *st)
{
  AIJHybridPivotStatus ts[MAXT];
  PetscBool            full = PETSC_TRUE;

  for (PetscInt k = 0; k < MAXT * AIJHYBRID_LEVELS_STRIDE; k++) progress[k] = 0;
  for (PetscInt t = 0; t < T; t++) AIJHybridPivotStatusInit(&ts[t]);
#pragma omp parallel num_threads(T)
  {
    const PetscInt tid = TID;

    if (NTH != T) {
#pragma omp atomic write
      full = PETSC_FALSE;
    } else {
      PetscScalar *rtmp = work + tid * stride;
      const CSR   *A    = job->A;
      Fac         *f    = job->f;

      for (PetscInt l = 0; l < lv->nlevels; l++) {
        const PetscInt ks = lv->tb[l * (T + 1) + tid], ke = lv->tb[l * (T + 1) + tid + 1];

        AIJHybridLevelsWait(lv, l, tid, progress);
        if (job->kind == JOB_ILU) AIJHybridILUNumericRows(ks, ke, lv->order, A->ai, A->aj, A->aa, job->arow, job->ic, f->bi, f->bj, f->bdiag, f->ba, &job->rule, rtmp, &ts[tid]);
        else if (job->kind == JOB_INODE) AIJHybridILUNumericNodes(ks, ke, lv->order, job->nstart, A->n, A->ai, A->aj, A->aa, job->arow, job->ic, f->bi, f->bj, f->bdiag, f->ba, &job->rule, rtmp, &ts[tid]);
        else AIJHybridICCNumericRows(ks, ke, lv->order, A->ai, A->aj, A->aa, job->arow, job->ic, f->bi, f->bj, f->ba, job->raw, job->cptr, job->crow, job->cpos, &job->rule, rtmp, &ts[tid]);
        AIJHybridLevelsDone(l, tid, progress);
      }
    }
  }
  AIJHybridPivotStatusInit(st);
  for (PetscInt t = 0; t < T; t++) AIJHybridPivotMerge(st, &ts[t]);
  return full;
}

/* the passes of a factorization (AIJHybridShift), as src/factor/numeric.c makes them: final shift
   state, the last pass's account; flops of every pass in st->flops */
static PetscBool Factor(Job *job, const AIJHybridLevels *lv, PetscInt T, const Info *info, PetscScalar *work, PetscInt stride, AIJHybridShift *sh, AIJHybridPivotStatus *st)
{
  PetscBool      again, full = PETSC_TRUE;
  PetscLogDouble flops = 0;

  job->rule.type        = info->shifttype;
  job->rule.zeropivot   = info->zeropivot;
  job->rule.shiftamount = info->shiftamount;
  AIJHybridShiftInit(sh, info->shifttype, info->shifttype == AIJHYBRID_SHIFT_POSITIVE_DEFINITE ? AIJHybridShiftTop(job->A->n, job->A->ai, job->A->adiag, job->A->aa, info->zeropivot) : 0);
  do {
    job->rule.shift = sh->shift_amount;
    full            = (PetscBool)(Pass(job, lv, T, work, stride, st) && full);
    flops += st->flops;
    if (st->newshift) {
      AIJHybridShiftFailed(sh, &job->rule);
      again = PETSC_TRUE;
    } else again = job->kind != JOB_ICC && AIJHybridShiftRefine(sh, info->shifttype); /* PETSc's ICC does not refine */
  } while (again);
  st->flops = flops;
  return full;
}

static const char *shiftname[] = {"none", "nonzero", "positive_definite", "inblocks"};

/* compares a kernel factorization with the reference's */
static void Compare(const char *what, PetscInt trial, PetscInt T, const Info *info, const Fac *ref, const Fac *got, const Sctx *sctx, const Outcome *out, const AIJHybridShift *sh, const AIJHybridPivotStatus *st, PetscBool full,
                    const PetscInt *icc_ui, const PetscInt *icc_uj)
{
  CHECK(full, "%s trial %d: OpenMP gave fewer than %d threads", what, (int)trial, (int)T);
  CHECK(Same(ref->ba, got->ba, ref->nz), "%s trial %d T %d shift %s: factor values differ from PETSc's routine", what, (int)trial, (int)T, shiftname[info->shifttype]);
  if (info->shifttype == AIJHYBRID_SHIFT_INBLOCKS) CHECK(st->ninblocks == sctx->nshift, "%s trial %d T %d: %d inblocks shifts, PETSc %d", what, (int)trial, (int)T, (int)st->ninblocks, (int)sctx->nshift);
  else
    CHECK(sh->nshift == sctx->nshift && sh->shift_amount == sctx->shift_amount, "%s trial %d T %d shift %s: %d shifts (amount %g), PETSc %d (%g)", what, (int)trial, (int)T, shiftname[info->shifttype], (int)sh->nshift, (double)sh->shift_amount,
          (int)sctx->nshift, (double)sctx->shift_amount);
  CHECK(st->nzero == out->nzero, "%s trial %d T %d: %d zero pivots, PETSc %d", what, (int)trial, (int)T, (int)st->nzero, (int)out->nzero);
  if (st->nzero && out->nzero) {
    const PetscInt f = icc_ui ? AIJHybridICCPivotRow(ref->n, icc_ui, icc_uj, st->zfirst) : st->zfirst, l = icc_ui ? AIJHybridICCPivotRow(ref->n, icc_ui, icc_uj, st->zlast) : st->zlast;

    CHECK(f == out->firstrow && l == out->lastrow && st->vfirst == out->firstval && st->vlast == out->lastval, "%s trial %d T %d: zero pivots first %d (%g) last %d (%g), PETSc %d (%g) and %d (%g)", what, (int)trial, (int)T, (int)f,
          (double)st->vfirst, (int)l, (double)st->vlast, (int)out->firstrow, (double)out->firstval, (int)out->lastrow, (double)out->lastval);
  }
  if (!sctx->nshift) CHECK(st->flops == out->flops, "%s trial %d T %d: %g flops, PETSc logs %g", what, (int)trial, (int)T, (double)st->flops, (double)out->flops);
}

static void CopyFac(const Fac *f, Fac *g)
{
  *g = *f;
  PetscCallVoid(PetscMalloc4(f->n + 1, &g->bi, f->nz + 1, &g->bj, f->n + 1, &g->bdiag, f->nz + 1, &g->ba));
  PetscCallVoid(PetscArraycpy(g->bi, f->bi, f->n + 1));
  PetscCallVoid(PetscArraycpy(g->bj, f->bj, f->nz));
  PetscCallVoid(PetscArraycpy(g->bdiag, f->bdiag, f->n + 1));
  for (PetscInt q = 0; q < f->nz; q++) g->ba[q] = -99.0; /* nothing of the reference's values */
}

static Info RandomInfo(PetscInt trial, PetscBool zerodiag)
{
  Info info;

  info.shifttype   = zerodiag ? (trial / 4) % 4 : (trial % 5 == 0 ? AIJHYBRID_SHIFT_POSITIVE_DEFINITE : AIJHYBRID_SHIFT_NONE);
  info.zeropivot   = 1e-12;
  info.shiftamount = 1e-10 + 0.1 * Uniform();
  return info;
}

/* ---------------------------------------------------------------- ILU */

static void TestILU(void)
{
  for (PetscInt trial = 0; trial < 80; trial++) {
    const PetscInt  n = trial < 3 ? trial + 1 : 5 + RandInt(250), deg = 1 + RandInt(4), fill = RandInt(3);
    const PetscBool perm = (PetscBool)(trial % 3 == 1), zd = (PetscBool)(trial % 4 >= 2 && trial >= 3);
    CSR             A;
    Fac             ref, got;
    PetscInt       *r = NULL, *c = NULL, *ic = NULL, *bdiag;
    Info            info;
    Sctx            sctx;
    Outcome         out = {0, -1, -1, 0, 0, 0};
    PetscBool       ok;
    PetscScalar    *work;

    rng_state = 4242 + (unsigned long long)trial;
    MakeCSR(n, deg, (PetscBool)(trial % 2), PETSC_FALSE, zd ? 5 : 0, &A);
    info = RandomInfo(trial, zd);
    if (perm) {
      PetscCallVoid(PetscMalloc3(n, &r, n, &c, n, &ic));
      RandPerm(n, r);
      /* a positive-definite shift moves the diagonal: with other columns there, PETSc's passes may never end */
      if (trial % 2 || info.shifttype == AIJHYBRID_SHIFT_POSITIVE_DEFINITE) PetscCallVoid(PetscArraycpy(c, r, n));
      else RandPerm(n, c);
      Invert(n, c, ic);
    }
    MakeILUPattern(&A, r, ic, fill, NULL, &ref);
    /* the plan: the diagonal positions of the layout */
    PetscCallVoid(PetscMalloc1(n + 1, &bdiag));
    PetscCallVoid(AIJHybridILUDiagonal(n, ref.bi, ref.bj, ref.nz, bdiag, &ok));
    CHECK(ok && !memcmp(bdiag, ref.bdiag, (size_t)(n + 1) * sizeof(PetscInt)), "ILU trial %d: diagonal positions not recovered", (int)trial);
    CopyFac(&ref, &got);
    RefILU(&A, r, ic, &ref, &info, &sctx, &out);
    PetscCallVoid(PetscMalloc1(MAXT * (n + 1), &work));
    for (PetscInt T = 1; T <= MAXT; T++) {
      AIJHybridLevels lv;
      Job             job = {
        JOB_ILU, &A, r, ic, NULL, NULL, NULL, NULL, &got, NULL, {0, 0, 0, 0}
      };
      AIJHybridShift       sh;
      AIJHybridPivotStatus st;
      PetscBool            full;

      Garbage(work, MAXT * (n + 1), (PetscReal)T);
      for (PetscInt q = 0; q < got.nz; q++) got.ba[q] = -99.0;
      PetscCallVoid(AIJHybridLevelsBuild(n, ref.bi, ref.bi + 1, ref.bj, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &lv));
      full = Factor(&job, &lv, T, &info, work, n + 1, &sh, &st);
      Compare("ILU", trial, T, &info, &ref, &got, &sctx, &out, &sh, &st, full, NULL, NULL);
      PetscCallVoid(AIJHybridLevelsDestroy(&lv));
    }
    PetscCallVoid(PetscFree(work));
    PetscCallVoid(PetscFree(bdiag));
    FreeFac(&ref);
    FreeFac(&got);
    if (perm) PetscCallVoid(PetscFree3(r, c, ic));
    FreeCSR(&A);
  }
  { /* layouts that are not PETSc's are refused */
    PetscInt  bi[3] = {0, 0, 1}, bj[4] = {1, 1, 0, 0}, bdiag[3];
    PetscBool ok;

    PetscCallVoid(AIJHybridILUDiagonal(2, bi, bj, 4, bdiag, &ok)); /* L(1,:) has column 1 */
    CHECK(!ok, "ILU layout with a diagonal entry in L accepted");
    bj[0] = 0;
    bj[1] = 0; /* U(1,:) then U(0,:) with a column below the diagonal */
    PetscCallVoid(AIJHybridILUDiagonal(2, bi, bj, 4, bdiag, &ok));
    CHECK(!ok, "ILU layout with U(1,:) out of order accepted");
  }
}

/* ---------------------------------------------------------------- ILU with inodes */

static void TestILUInode(void)
{
  for (PetscInt trial = 0; trial < 60; trial++) {
    const PetscInt  n = trial < 3 ? trial + 2 : 6 + RandInt(250), deg = 1 + RandInt(4);
    const PetscBool perm = (PetscBool)(trial % 3 == 1), zd = (PetscBool)(trial % 4 >= 2 && trial >= 3), old = (PetscBool)(trial % 2);
    CSR             A;
    Fac             ref, got;
    PetscInt       *r = NULL, *ic = NULL, *node0, nf, *nstart, *arow, *dptr, *dind;
    Info            info;
    Sctx            sctx;
    Outcome         out = {0, -1, -1, 0, 0, 0};
    PetscBool       ok;
    PetscScalar    *work;

    rng_state = 9191 + (unsigned long long)trial;
    MakeCSR(n, deg, (PetscBool)(trial % 2), PETSC_TRUE, zd ? 7 : 0, &A);
    if (perm) {
      PetscCallVoid(PetscMalloc2(n, &r, n, &ic));
      NodePerm(&A, r);
      Invert(n, r, ic);
    }
    /* the factor's pattern keeps the (permuted) nodes' column sets equal */
    PetscCallVoid(PetscMalloc1(n, &node0));
    {
      PetscInt s = 0, *inv;

      PetscCallVoid(PetscMalloc1(n, &inv));
      for (PetscInt u = 0; u < A.nnodes; u++) {
        for (PetscInt q = 0; q < A.sizes[u]; q++) inv[s + q] = s; /* matrix row -> first row of its node */
        s += A.sizes[u];
      }
      for (PetscInt i = 0; i < n; i++) node0[i] = r ? ic[inv[r[i]]] : inv[i];
      PetscCallVoid(PetscFree(inv));
    }
    MakeILUPattern(&A, r, ic, trial % 3 == 0 ? RandInt(3) : 0, node0, &ref);
    /* the plan: PETSc's nodes and loaded rows, checked against the transcription */
    PetscCallVoid(AIJHybridILUNodes(n, A.nnodes, A.sizes, r, (PetscBool)!old, &nf, &nstart, &arow, &ok));
    CHECK(ok, "inode trial %d: PETSc's nodes not made", (int)trial);
    if (!ok) {
      FreeFac(&ref);
      FreeCSR(&A);
      PetscCallVoid(PetscFree(node0));
      if (perm) PetscCallVoid(PetscFree2(r, ic));
      continue;
    }
    PetscCallVoid(AIJHybridILUNodesCheck(n, ref.bi, ref.bj, ref.bdiag, nf, nstart, A.ai, arow, &ok));
    CHECK(ok, "inode trial %d: a pattern with equal column sets in each node refused", (int)trial);
    PetscCallVoid(AIJHybridILUNodeDeps(n, ref.bi, ref.bj, nf, nstart, &dptr, &dind));
    info = RandomInfo(trial, zd);
    CopyFac(&ref, &got);
    RefILUInode(&A, r, ic, &ref, &info, old, &sctx, &out);
    PetscCallVoid(PetscMalloc1(MAXT * 4 * (n + 1), &work));
    for (PetscInt T = 1; T <= MAXT; T++) {
      AIJHybridLevels lv;
      Job             job = {
        JOB_INODE, &A, arow, ic, nstart, NULL, NULL, NULL, &got, NULL, {0, 0, 0, 0}
      };
      AIJHybridShift       sh;
      AIJHybridPivotStatus st;
      PetscBool            full, valid;

      Garbage(work, MAXT * 4 * (n + 1), 3.0 + (PetscReal)T);
      for (PetscInt q = 0; q < got.nz; q++) got.ba[q] = -99.0;
      PetscCallVoid(AIJHybridLevelsBuild(nf, dptr, dptr + 1, dind, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &lv));
      PetscCallVoid(AIJHybridLevelsValid(&lv, dptr, dptr + 1, dind, PETSC_TRUE, PETSC_FALSE, &valid));
      CHECK(valid, "inode trial %d: node schedule invalid", (int)trial);
      /* the kernel's work array: 4 n per thread, stride n (Pass gives each thread 4 (n+1)) */
      full = Factor(&job, &lv, T, &info, work, 4 * (n + 1), &sh, &st);
      Compare(old ? "ILU inode (3.18)" : "ILU inode (3.24+)", trial, T, &info, &ref, &got, &sctx, &out, &sh, &st, full, NULL, NULL);
      PetscCallVoid(AIJHybridLevelsDestroy(&lv));
    }
    PetscCallVoid(PetscFree(work));
    PetscCallVoid(PetscFree(nstart));
    PetscCallVoid(PetscFree(arow));
    PetscCallVoid(PetscFree(dptr));
    PetscCallVoid(PetscFree(dind));
    PetscCallVoid(PetscFree(node0));
    FreeFac(&ref);
    FreeFac(&got);
    if (perm) PetscCallVoid(PetscFree2(r, ic));
    FreeCSR(&A);
  }
  { /* nodes: PETSc's split and permuted sizes; refusals */
    const PetscInt sizes[3] = {5, 2, 1}, r[8] = {5, 6, 0, 1, 2, 3, 4, 7};
    PetscInt       nf, *nstart, *arow;
    PetscBool      ok;

    PetscCallVoid(AIJHybridILUNodes(8, 3, sizes, NULL, PETSC_TRUE, &nf, &nstart, &arow, &ok));
    CHECK(ok && nf == 4 && nstart[1] == 4 && nstart[2] == 5 && nstart[3] == 7 && nstart[4] == 8, "nodes of 5, 2, 1 rows: not 4, 1, 2, 1");
    if (ok) {
      PetscCallVoid(PetscFree(nstart));
      PetscCallVoid(PetscFree(arow));
    }
    PetscCallVoid(AIJHybridILUNodes(8, 3, sizes, r, PETSC_FALSE, &nf, &nstart, &arow, &ok)); /* the nodes follow r: 2, 4, 1, 1 */
    CHECK(ok && nf == 4 && nstart[1] == 2 && nstart[2] == 6 && nstart[3] == 7 && arow[1] == 6 && arow[3] == 1, "permuted nodes not PETSc's");
    if (ok) {
      PetscCallVoid(PetscFree(nstart));
      PetscCallVoid(PetscFree(arow));
    }
    {
      const PetscInt big[1] = {9};
      PetscCallVoid(AIJHybridILUNodes(9, 1, big, NULL, PETSC_TRUE, &nf, &nstart, &arow, &ok));
      CHECK(!ok, "a node of 9 rows (5 after the split) accepted");
    }
  }
}

/* ---------------------------------------------------------------- ICC */

static void TestICC(void)
{
  for (PetscInt trial = 0; trial < 80; trial++) {
    const PetscInt  n = trial < 3 ? trial + 1 : 5 + RandInt(250), deg = 1 + RandInt(4), fill = RandInt(3);
    const PetscBool perm = (PetscBool)(trial % 3 == 1), zd = (PetscBool)(trial % 4 >= 2 && trial >= 3);
    CSR             A;
    Fac             ref, got;
    PetscInt       *rip = NULL, *riip = NULL, *cptr, *crow, *cpos;
    Info            info;
    Sctx            sctx;
    Outcome         out = {0, -1, -1, 0, 0, 0};
    PetscScalar    *work, *raw;

    rng_state = 5151 + (unsigned long long)trial;
    MakeCSR(n, deg, (PetscBool)(trial % 4 != 3), PETSC_FALSE, zd ? 6 : 0, &A);
    if (perm) {
      PetscCallVoid(PetscMalloc2(n, &rip, n, &riip));
      RandPerm(n, rip);
      Invert(n, rip, riip);
    }
    MakeICCPattern(&A, rip, riip, fill, &ref);
    PetscCallVoid(AIJHybridICCContributors(n, ref.bi, ref.bj, &cptr, &crow, &cpos));
    CHECK(cptr[n] == ref.nz - n, "ICC trial %d: %d contributions for %d strictly upper entries", (int)trial, (int)cptr[n], (int)(ref.nz - n));
    info = RandomInfo(trial, zd);
    CopyFac(&ref, &got);
    RefICC(&A, rip, riip, &ref, &info, &sctx, &out);
    PetscCallVoid(PetscMalloc2(MAXT * (n + 1), &work, ref.nz + 1, &raw));
    for (PetscInt T = 1; T <= MAXT; T++) {
      AIJHybridLevels lv;
      Job             job = {
        JOB_ICC, &A, rip, riip, NULL, cptr, crow, cpos, &got, raw, {0, 0, 0, 0}
      };
      AIJHybridShift       sh;
      AIJHybridPivotStatus st;
      PetscBool            full;

      Garbage(work, MAXT * (n + 1), 7.0 * (PetscReal)T);
      Garbage(raw, ref.nz + 1, 11.0);
      for (PetscInt q = 0; q < got.nz; q++) got.ba[q] = -99.0;
      PetscCallVoid(AIJHybridLevelsBuild(n, cptr, cptr + 1, crow, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &lv));
      full = Factor(&job, &lv, T, &info, work, n + 1, &sh, &st);
      Compare("ICC", trial, T, &info, &ref, &got, &sctx, &out, &sh, &st, full, ref.bi, ref.bj);
      PetscCallVoid(AIJHybridLevelsDestroy(&lv));
    }
    { /* one thread in the serial order, the raw values in the factor itself */
      AIJHybridPivotRule   rule = {info.shifttype, info.zeropivot, info.shiftamount, 0};
      AIJHybridPivotStatus st;

      if (!sctx.nshift || info.shifttype == AIJHYBRID_SHIFT_INBLOCKS) {
        for (PetscInt q = 0; q < got.nz; q++) got.ba[q] = -99.0;
        AIJHybridPivotStatusInit(&st);
        AIJHybridICCNumericRows(0, n, NULL, A.ai, A.aj, A.aa, rip, riip, got.bi, got.bj, got.ba, got.ba, cptr, crow, cpos, &rule, work, &st);
        CHECK(Same(ref.ba, got.ba, ref.nz), "ICC trial %d: serial order with raw = factor differs from PETSc's", (int)trial);
      }
    }
    PetscCallVoid(PetscFree2(work, raw));
    PetscCallVoid(PetscFree(cptr));
    PetscCallVoid(PetscFree2(crow, cpos));
    FreeFac(&ref);
    FreeFac(&got);
    if (perm) PetscCallVoid(PetscFree2(rip, riip));
    FreeCSR(&A);
  }
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  setvbuf(stdout, NULL, _IOLBF, 0);
  TestILU();
  printf("ILU done (%d checks so far, %d failing)\n", npass + nfail, nfail);
  TestILUInode();
  printf("ILU with inodes done (%d checks so far, %d failing)\n", npass + nfail, nfail);
  TestICC();
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
