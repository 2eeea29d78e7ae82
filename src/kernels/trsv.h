/*
   Pure triangular-solve kernels over a list of rows, on raw arrays of PETSc's factor storage. They
   call nothing: safe on any thread. A level-scheduled solve runs them on the rows of one level
   (src/factor/levels.h), one part per thread, the levels in order.

   Each kernel computes every row with exactly the operations, in exactly the order, of the PETSc
   routine named beside it (checked against PETSc 3.18 and 3.26, where these routines are the
   same), so a solve gives the bits of PETSc's serial solve whatever the rows' distribution over
   threads. Where PETSc pushes a computed value into later rows (column-oriented loops: the
   transposed solves, ICC's forward solve), the kernel pulls: row c sums the contributions of the
   rows k of its column in the order PETSc's loop over k adds them (ascending or descending k, as
   given by the column pattern), each contribution formed with the same operands.

   Storage (PETSc's "new" factor formats; see MatILUFactorSymbolic_SeqAIJ_ilu0() and
   MatICCFactorSymbolic_SeqAIJ()):
   - ILU/LU (MATSEQAIJ factor): L(i,:) strictly lower, unit diagonal not stored, at
     bj/ba[bi[i] .. bi[i+1]); U(i,:) strictly upper at [bdiag[i+1]+1, bdiag[i]) and the inverse of
     its diagonal at bdiag[i].
   - ICC/Cholesky (MATSEQSBAIJ factor): U(i,:) at uj/ua[ui[i] .. ui[i+1]): the strictly upper
     entries (stored with the sign the solve adds), then the inverse of the diagonal D(i).
   r, c: row and column permutations (NULL: natural ordering).

   Each kernel computes the rows at positions ks .. ke-1 of order, in that order. order NULL: the
   rows ks .. ke-1 themselves, in the solve's serial order (ascending for the forward kernels, L,
   U^T and ICC's forward solve; descending for the backward ones), as a thread block's schedule has
   them (AIJHybridLevelsBlocks()): the loop then walks the rows directly, with no index array to
   read and the row pointers advancing in order, as PETSc's serial loops do.
*/
#ifndef AIJHYBRID_KERNELS_TRSV_H
#define AIJHYBRID_KERNELS_TRSV_H

#include <petscsys.h>

/* run row(i) for the rows at positions [ks, ke) of order (NULL: ks .. ke-1, ascending when
   forward, else descending) */
#define AIJHYBRID_TRSV_ROWS(forward, ks, ke, order, row) \
  do { \
    if (order) \
      for (PetscInt q_ = (ks); q_ < (ke); q_++) row(order[q_]); \
    else if (forward) \
      for (PetscInt i_ = (ks); i_ < (ke); i_++) row(i_); \
    else \
      for (PetscInt i_ = (ke)-1; i_ >= (ks); i_--) row(i_); \
  } while (0)

/* ---------------------------------------------------------------- ILU: L y = P b (forward) */

/* MatSolve_SeqAIJ / _NaturalOrdering (PetscSparseDenseMinusDot without unrolling): one
   subtraction per entry, left to right */
static inline void AIJHybridTrsvLowerRow(PetscInt i, const PetscInt *PETSC_RESTRICT bi, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *r, const PetscScalar *b, PetscScalar *tmp)
{
  const PetscInt     nz  = bi[i + 1] - bi[i];
  const PetscInt    *vi  = bj + bi[i];
  const PetscScalar *v   = ba + bi[i];
  PetscScalar        sum = b[r ? r[i] : i];

  for (PetscInt j = 0; j < nz; j++) sum -= v[j] * tmp[vi[j]];
  tmp[i] = sum;
}

static inline void AIJHybridTrsvLower(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT bi, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *r, const PetscScalar *b,
                                      PetscScalar *tmp)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvLowerRow(i, bi, bj, ba, r, b, tmp)
  AIJHYBRID_TRSV_ROWS(PETSC_TRUE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* MatSolve_SeqAIJ_Inode: the first npair[i] entries of the row (the columns it shares with the
   first row of its inode) in pairs, sum -= (v0 t0 + v1 t1), an odd last one alone; then the
   entries inside the inode one at a time, left to right */
static inline void AIJHybridTrsvLowerInodeRow(PetscInt i, const PetscInt *PETSC_RESTRICT npair, const PetscInt *PETSC_RESTRICT bi, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *r, const PetscScalar *b,
                                              PetscScalar *tmp)
{
  const PetscInt     nz = bi[i + 1] - bi[i], np = npair[i];
  const PetscInt    *vi  = bj + bi[i];
  const PetscScalar *v   = ba + bi[i];
  PetscScalar        sum = b[r ? r[i] : i];
  PetscInt           j;

  for (j = 0; j < np - 1; j += 2) {
    const PetscScalar t0 = tmp[vi[j]], t1 = tmp[vi[j + 1]];

    sum -= v[j] * t0 + v[j + 1] * t1;
  }
  if (j == np - 1) sum -= v[j] * tmp[vi[j]];
  for (j = np; j < nz; j++) sum -= v[j] * tmp[vi[j]];
  tmp[i] = sum;
}

static inline void AIJHybridTrsvLowerInode(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT npair, const PetscInt *PETSC_RESTRICT bi, const PetscInt *PETSC_RESTRICT bj,
                                           const PetscScalar *PETSC_RESTRICT ba, const PetscInt *r, const PetscScalar *b, PetscScalar *tmp)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvLowerInodeRow(i, npair, bi, bj, ba, r, b, tmp)
  AIJHYBRID_TRSV_ROWS(PETSC_TRUE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* ---------------------------------------------------------------- ILU: U x = y (backward) */

/* MatSolve_SeqAIJ: sum = tmp[i] minus the U entries left to right, times the stored inverse
   diagonal; x[c[i]] = tmp[i] = result (x may be tmp when c is NULL) */
static inline void AIJHybridTrsvUpperRow(PetscInt i, const PetscInt *PETSC_RESTRICT bdiag, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *c, PetscScalar *tmp, PetscScalar *x)
{
  const PetscInt     nz  = bdiag[i] - bdiag[i + 1] - 1;
  const PetscInt    *vi  = bj + bdiag[i + 1] + 1;
  const PetscScalar *v   = ba + bdiag[i + 1] + 1;
  PetscScalar        sum = tmp[i];

  for (PetscInt j = 0; j < nz; j++) sum -= v[j] * tmp[vi[j]];
  sum             = sum * v[nz];
  tmp[i]          = sum;
  x[c ? c[i] : i] = sum;
}

static inline void AIJHybridTrsvUpper(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT bdiag, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *c, PetscScalar *tmp,
                                      PetscScalar *x)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvUpperRow(i, bdiag, bj, ba, c, tmp, x)
  AIJHYBRID_TRSV_ROWS(PETSC_FALSE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* MatSolve_SeqAIJ_Inode, backward: the row's first nskip[i] entries are the columns inside its
   inode (below it in the backward order); the entries after them in pairs (an odd last one
   alone), then the inode's entries one at a time from the last to the first */
static inline void AIJHybridTrsvUpperInodeRow(PetscInt i, const PetscInt *PETSC_RESTRICT nskip, const PetscInt *PETSC_RESTRICT bdiag, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *c, PetscScalar *tmp,
                                              PetscScalar *x)
{
  const PetscInt     nz = bdiag[i] - bdiag[i + 1] - 1, k = nskip[i], np = nz - k;
  const PetscInt    *vi  = bj + bdiag[i + 1] + 1;
  const PetscScalar *v   = ba + bdiag[i + 1] + 1;
  PetscScalar        sum = tmp[i];
  PetscInt           j;

  for (j = 0; j < np - 1; j += 2) {
    const PetscScalar t0 = tmp[vi[k + j]], t1 = tmp[vi[k + j + 1]];

    sum -= v[k + j] * t0 + v[k + j + 1] * t1;
  }
  if (j == np - 1) sum -= v[k + j] * tmp[vi[k + j]];
  for (j = k - 1; j >= 0; j--) sum -= v[j] * tmp[vi[j]];
  sum             = sum * v[nz];
  tmp[i]          = sum;
  x[c ? c[i] : i] = sum;
}

static inline void AIJHybridTrsvUpperInode(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT nskip, const PetscInt *PETSC_RESTRICT bdiag, const PetscInt *PETSC_RESTRICT bj,
                                           const PetscScalar *PETSC_RESTRICT ba, const PetscInt *c, PetscScalar *tmp, PetscScalar *x)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvUpperInodeRow(i, nskip, bdiag, bj, ba, c, tmp, x)
  AIJHYBRID_TRSV_ROWS(PETSC_FALSE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* MatSolveAdd_SeqAIJ, backward: as AIJHybridTrsvUpper, then x[c[i]] = y[c[i]] + tmp[i] (PETSc
   copies y into x, then adds; y may be x) */
static inline void AIJHybridTrsvUpperAddRow(PetscInt i, const PetscInt *PETSC_RESTRICT bdiag, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *c, PetscScalar *tmp, const PetscScalar *y, PetscScalar *x)
{
  const PetscInt     nz = bdiag[i] - bdiag[i + 1] - 1, ci = c ? c[i] : i;
  const PetscInt    *vi  = bj + bdiag[i + 1] + 1;
  const PetscScalar *v   = ba + bdiag[i + 1] + 1;
  PetscScalar        sum = tmp[i];

  for (PetscInt j = 0; j < nz; j++) sum -= v[j] * tmp[vi[j]];
  tmp[i] = sum * v[nz];
  x[ci]  = y[ci] + tmp[i];
}

static inline void AIJHybridTrsvUpperAdd(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT bdiag, const PetscInt *PETSC_RESTRICT bj, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *c,
                                         PetscScalar *tmp, const PetscScalar *y, PetscScalar *x)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvUpperAddRow(i, bdiag, bj, ba, c, tmp, y, x)
  AIJHYBRID_TRSV_ROWS(PETSC_FALSE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* ------------------------------------------------- ILU transposed: U^T y = b(c), then L^T */

/* MatSolveTranspose_SeqAIJ, forward solve with U^T: PETSc takes s = tmp[k] * (inverse diagonal
   of k), then tmp[j] -= s * U(k,j) for the entries of row k, k ascending. Pulled: column i
   (rows k ascending, value positions pos) starts from b[c[i]], subtracts s_k * U(k,i) for each k,
   then scales by its inverse diagonal */
static inline void AIJHybridTrsvUpperTRow(PetscInt i, const PetscInt *PETSC_RESTRICT cptr, const PetscInt *PETSC_RESTRICT crow, const PetscInt *PETSC_RESTRICT cpos, const PetscInt *PETSC_RESTRICT bdiag, const PetscScalar *PETSC_RESTRICT ba,
                                          const PetscInt *c, const PetscScalar *b, PetscScalar *tmp)
{
  PetscScalar s = b[c ? c[i] : i];

  for (PetscInt p = cptr[i]; p < cptr[i + 1]; p++) s -= tmp[crow[p]] * ba[cpos[p]];
  s *= ba[bdiag[i]];
  tmp[i] = s;
}

static inline void AIJHybridTrsvUpperT(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT cptr, const PetscInt *PETSC_RESTRICT crow, const PetscInt *PETSC_RESTRICT cpos,
                                       const PetscInt *PETSC_RESTRICT bdiag, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *c, const PetscScalar *b, PetscScalar *tmp)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvUpperTRow(i, cptr, crow, cpos, bdiag, ba, c, b, tmp)
  AIJHYBRID_TRSV_ROWS(PETSC_TRUE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* MatSolveTranspose(Add)_SeqAIJ, backward solve with L^T: PETSc does tmp[j] -= tmp[k] * L(k,j)
   for the entries of row k, k descending, then x[r[i]] = tmp[i] (Add: x = z + tmp). Pulled:
   column i (rows k descending) subtracts tmp[k] * L(k,i); z may be x, NULL for no addition */
static inline void AIJHybridTrsvLowerTRow(PetscInt i, const PetscInt *PETSC_RESTRICT cptr, const PetscInt *PETSC_RESTRICT crow, const PetscInt *PETSC_RESTRICT cpos, const PetscScalar *PETSC_RESTRICT ba, const PetscInt *r, PetscScalar *tmp,
                                          const PetscScalar *z, PetscScalar *x)
{
  const PetscInt ri = r ? r[i] : i;
  PetscScalar    s  = tmp[i];

  for (PetscInt p = cptr[i]; p < cptr[i + 1]; p++) s -= tmp[crow[p]] * ba[cpos[p]];
  tmp[i] = s;
  x[ri]  = z ? z[ri] + s : s;
}

static inline void AIJHybridTrsvLowerT(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT cptr, const PetscInt *PETSC_RESTRICT crow, const PetscInt *PETSC_RESTRICT cpos,
                                       const PetscScalar *PETSC_RESTRICT ba, const PetscInt *r, PetscScalar *tmp, const PetscScalar *z, PetscScalar *x)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvLowerTRow(i, cptr, crow, cpos, ba, r, tmp, z, x)
  AIJHYBRID_TRSV_ROWS(PETSC_FALSE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* ------------------------------------------------------------ ICC: U^T D y = P b, U x = y */

/* MatSolve_SeqSBAIJ_1 / _NaturalOrdering, forward: PETSc reads u = t[k] (every earlier row has
   added into it), adds U(k,j) * u to t[j] for the entries of row k, k ascending, then stores
   t[k] = u * (inverse of D(k)). Pulled: column i (rows k ascending) starts from b[r[i]], adds
   U(k,i) * u[k]; u keeps the unscaled values, t the scaled ones */
static inline void AIJHybridTrsvICCForwardRow(PetscInt i, const PetscInt *PETSC_RESTRICT cptr, const PetscInt *PETSC_RESTRICT crow, const PetscInt *PETSC_RESTRICT cpos, const PetscInt *PETSC_RESTRICT ui, const PetscScalar *PETSC_RESTRICT ua,
                                              const PetscInt *r, const PetscScalar *b, PetscScalar *u, PetscScalar *t)
{
  PetscScalar s = b[r ? r[i] : i];

  for (PetscInt p = cptr[i]; p < cptr[i + 1]; p++) s += ua[cpos[p]] * u[crow[p]];
  u[i] = s;
  t[i] = s * ua[ui[i + 1] - 1];
}

static inline void AIJHybridTrsvICCForward(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT cptr, const PetscInt *PETSC_RESTRICT crow, const PetscInt *PETSC_RESTRICT cpos,
                                           const PetscInt *PETSC_RESTRICT ui, const PetscScalar *PETSC_RESTRICT ua, const PetscInt *r, const PetscScalar *b, PetscScalar *u, PetscScalar *t)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvICCForwardRow(i, cptr, crow, cpos, ui, ua, r, b, u, t)
  AIJHYBRID_TRSV_ROWS(PETSC_TRUE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

/* MatSolve_SeqSBAIJ_1 / _NaturalOrdering, backward: t[k] += U(k,j) * t[j] over the strictly
   upper entries of row k from the last to the first; x[r[k]] = t[k] (x may be t when r is NULL) */
static inline void AIJHybridTrsvICCBackwardRow(PetscInt i, const PetscInt *PETSC_RESTRICT ui, const PetscInt *PETSC_RESTRICT uj, const PetscScalar *PETSC_RESTRICT ua, const PetscInt *r, PetscScalar *t, PetscScalar *x)
{
  PetscScalar s = t[i];

  for (PetscInt p = ui[i + 1] - 2; p >= ui[i]; p--) s += ua[p] * t[uj[p]];
  t[i]            = s;
  x[r ? r[i] : i] = s;
}

static inline void AIJHybridTrsvICCBackward(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT order, const PetscInt *PETSC_RESTRICT ui, const PetscInt *PETSC_RESTRICT uj, const PetscScalar *PETSC_RESTRICT ua, const PetscInt *r, PetscScalar *t,
                                            PetscScalar *x)
{
#define AIJHYBRID_TRSV_ROW(i) AIJHybridTrsvICCBackwardRow(i, ui, uj, ua, r, t, x)
  AIJHYBRID_TRSV_ROWS(PETSC_FALSE, ks, ke, order, AIJHYBRID_TRSV_ROW);
#undef AIJHYBRID_TRSV_ROW
}

#endif
