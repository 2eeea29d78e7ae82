/*
   Pure entry-wise kernels on CSR blocks (sorted column indices in each row), over a range of rows
   or of entries: the sums, scalings and the diagonal of a preconditioner's setup (MatAXPY,
   MatScale, MatDiagonalScale, MatGetDiagonal). They call nothing: safe on any thread.

   Each entry of a result is computed from the same entries of the operands by the formula PETSc's
   SeqAIJ uses, in its operand order, so results do not depend on how rows are split and are the
   bits of PETSc's:
     scale              v = a v             (MatScale_SeqAIJ: BLAS scal's product)
     axpy, same pattern y = y + a x         (MatAXPY_SeqAIJ: BLAS axpy's product)
     axpy, subset       y = y + (a x)       (MatAXPY_Basic: a C product, MatSetValues(ADD_VALUES));
                                            x itself when a is 1
     axpy, union        b = y + (a x), y or (a x) where only one has the entry
                                            (MatAXPY_BasicWithPreallocation into a fresh matrix)
     diagonal scale     v = (v l_i) r_j     (MatDiagonalScale_SeqAIJ: left, then right)
     diagonal           d_i = the first entry of row i in column i + shift, 0 if none
   A column map xmap (NULL: identity) renames x's columns into y's (the off-diagonal blocks of two
   MPIAIJ matrices with different ghost lists); it must be increasing.
*/
#ifndef AIJHYBRID_KERNELS_CSRENTRY_H
#define AIJHYBRID_KERNELS_CSRENTRY_H

#include "vec.h" /* AIJHybridMulBLAS */

#define AIJHYBRID_ENTRY_GRAIN 16384 /* entries per thread below which a setup operation uses fewer threads */

/* threads for an entry-wise operation on nz entries with at most T: one per AIJHYBRID_ENTRY_GRAIN entries, at least 1 */
static inline PetscInt AIJHybridEntryThreads(PetscInt T, PetscInt nz)
{
  const PetscInt t = nz / AIJHYBRID_ENTRY_GRAIN;

  return t < 1 ? 1 : (t < T ? t : T);
}

/* v[k] = a v[k] for k in [ks, ke) */
static inline void AIJHybridKernelScale(PetscInt ks, PetscInt ke, PetscScalar a, PetscScalar *v)
{
  for (PetscInt k = ks; k < ke; k++) v[k] = AIJHybridMulBLAS(a, v[k]);
}

/* y[k] = y[k] + a x[k] for k in [ks, ke): equal patterns */
static inline void AIJHybridKernelAXPYSame(PetscInt ks, PetscInt ke, PetscScalar a, const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y)
{
  for (PetscInt k = ks; k < ke; k++) y[k] = y[k] + AIJHybridMulBLAS(a, x[k]);
}

/* x's column at position k, in y's numbering */
static inline PetscInt AIJHybridEntryCol(const PetscInt *xj, const PetscInt *xmap, PetscInt k)
{
  return xmap ? xmap[xj[k]] : xj[k];
}

/* whether every entry of x's rows [rs, re) has a column among those of the same row of y */
static inline PetscBool AIJHybridKernelSubsetRows(PetscInt rs, PetscInt re, const PetscInt *xi, const PetscInt *xj, const PetscInt *xmap, const PetscInt *yi, const PetscInt *yj)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscInt p = yi[i];

    for (PetscInt k = xi[i]; k < xi[i + 1]; k++) {
      const PetscInt c = AIJHybridEntryCol(xj, xmap, k);

      while (p < yi[i + 1] && yj[p] < c) p++;
      if (p == yi[i + 1] || yj[p] != c) return PETSC_FALSE;
      p++;
    }
  }
  return PETSC_TRUE;
}

/* y(i, c) = y(i, c) + a x(i, c) for the entries of x's rows [rs, re), all present in y (AIJHybridKernelSubsetRows()); a1: a is 1 (x added as is) */
static inline void AIJHybridKernelAXPYSubsetRows(PetscInt rs, PetscInt re, PetscScalar a, PetscBool a1, const PetscInt *xi, const PetscInt *xj, const PetscInt *xmap, const PetscScalar *xa, const PetscInt *yi, const PetscInt *yj, PetscScalar *ya)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscInt p = yi[i];

    for (PetscInt k = xi[i]; k < xi[i + 1]; k++) {
      const PetscInt c = AIJHybridEntryCol(xj, xmap, k);

      while (yj[p] < c) p++;
      ya[p] = ya[p] + (a1 ? xa[k] : a * xa[k]);
      p++;
    }
  }
}

/* the columns of one row in x (nx increasing) or y (ny increasing), their union: *nin of them in [cs, ce), *nout outside */
static inline void AIJHybridKernelUnionRow(PetscInt nx, const PetscInt *x, PetscInt ny, const PetscInt *y, PetscInt cs, PetscInt ce, PetscInt *nin, PetscInt *nout)
{
  PetscInt k = 0, p = 0, in = 0, out = 0;

  while (k < nx || p < ny) {
    PetscInt c;

    if (p == ny || (k < nx && x[k] < y[p])) c = x[k++];
    else if (k == nx || y[p] < x[k]) c = y[p++];
    else c = x[k++], p++;
    if (c >= cs && c < ce) in++;
    else out++;
  }
  *nin  = in;
  *nout = out;
}

/* cnt[i - rs] = the number of columns of row i of x or y (their union), rows [rs, re) */
static inline void AIJHybridKernelUnionCount(PetscInt rs, PetscInt re, const PetscInt *xi, const PetscInt *xj, const PetscInt *yi, const PetscInt *yj, PetscInt *cnt)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscInt out;

    AIJHybridKernelUnionRow(xi[i + 1] - xi[i], xj + xi[i], yi[i + 1] - yi[i], yj + yi[i], PETSC_MIN_INT, PETSC_MAX_INT, &cnt[i - rs], &out);
  }
}

/*
  rows [rs, re) of b = y + a x on the union of their patterns: bj, ba from position bi[i] of each row
  (bi: the row starts of the counts of AIJHybridKernelUnionCount()); either may be NULL (the pattern
  only, the values only); a1: a is 1
*/
static inline void AIJHybridKernelUnionFill(PetscInt rs, PetscInt re, PetscScalar a, PetscBool a1, const PetscInt *xi, const PetscInt *xj, const PetscScalar *xa, const PetscInt *yi, const PetscInt *yj, const PetscScalar *ya, const PetscInt *bi,
                                            PetscInt *bj, PetscScalar *ba)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscInt k = xi[i], p = yi[i], q = bi[i];

    while (k < xi[i + 1] || p < yi[i + 1]) {
      const PetscBool takex = (PetscBool)(k < xi[i + 1] && (p == yi[i + 1] || xj[k] <= yj[p]));
      const PetscBool takey = (PetscBool)(p < yi[i + 1] && (k == xi[i + 1] || yj[p] <= xj[k]));

      if (bj) bj[q] = takex ? xj[k] : yj[p];
      if (ba) {
        const PetscScalar ax = takex ? (a1 ? xa[k] : a * xa[k]) : 0;

        ba[q] = takex && takey ? ya[p] + ax : (takex ? ax : ya[p]);
      }
      q++;
      if (takex) k++;
      if (takey) p++;
    }
  }
}

/* rows [rs, re) of v: v = v l_i (l not NULL), then v = v r_j (r not NULL) */
static inline void AIJHybridKernelDiagonalScaleRows(PetscInt rs, PetscInt re, const PetscInt *ai, const PetscInt *aj, const PetscScalar *l, const PetscScalar *r, PetscScalar *v)
{
  for (PetscInt i = rs; i < re; i++) {
    if (l) {
      const PetscScalar x = l[i];
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) v[k] *= x;
    }
    if (r)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) v[k] *= r[aj[k]];
  }
}

/* d[i] for rows [rs, re): the first entry of row i in column i + shift, 0 if the row has none */
static inline void AIJHybridKernelDiagonal(PetscInt rs, PetscInt re, PetscInt shift, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscScalar *d)
{
  for (PetscInt i = rs; i < re; i++) {
    d[i] = 0.0;
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] == i + shift) {
        d[i] = aa[k];
        break;
      }
  }
}

#endif
