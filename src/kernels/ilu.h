/*
   Pure numeric-factorization kernels for ILU(k) and ICC(k) on raw arrays of PETSc's factor storage
   (the layouts of src/kernels/trsv.h). They call nothing of PETSc (no logging, no allocation, no
   error handling): safe on any thread. A level-scheduled factorization runs them on the units of
   one level (src/factor/levels.h), one part per thread, the levels in order; a thread-block
   factorization runs them on the rows of its block, in order.

   Each kernel computes every row with exactly the operations, in exactly the order, of the PETSc
   routine named beside it (read in PETSc 3.18 and 3.26, where their arithmetic is the same), so a
   factorization gives PETSc's bits whatever the rows' distribution over threads:
   - AIJHybridILUNumericRows: MatLUFactorNumeric_SeqAIJ() (ILU(k) of a matrix without inodes, any
     ordering; also LU with PETSc's "new" layout);
   - AIJHybridILUNumericNodes: MatLUFactorNumeric_SeqAIJ_Inode() (ILU(k) of a matrix with inodes:
     nodes of 1 to 4 rows computed together);
   - AIJHybridICCNumericRows: MatCholeskyFactorNumeric_SeqAIJ() (ICC(k) of a seqaij matrix into a
     seqsbaij factor of block size 1).
   Row i of an ILU factor depends on the rows of its strictly lower part L(i,:) (it reads their U
   rows and inverted diagonals): the dependencies of the forward triangular solve. Row k of an ICC
   factor depends on the rows i with an entry U(i,k) (its "contributors"): the dependencies of the
   ICC forward solve.

   Work arrays: rtmp is a dense array of n scalars per thread (AIJHybridILUNumericNodes: 4 n),
   never shared; its entries are set before they are read, so it needs no initialization. A row
   also writes entries of rtmp outside its own pattern (as PETSc's loops do); no later row reads
   them before setting them.

   Arguments common to the kernels: the units order[ks .. ke) (order NULL: the units ks .. ke-1);
   the matrix being factored as CSR ai, aj, aa; arow[i] the row of the matrix that is row i of the
   factor (NULL: i; PETSc's r[]); ic[c] the factor's column of matrix column c (NULL: c; PETSc's
   ic[], the inverse column permutation; ICC: the inverse of the row permutation); rule: the pivot
   rule and this pass's diagonal shift; st: this thread's account of the pivots (zero it before a
   pass, merge the threads' after with AIJHybridPivotMerge()).
*/
#ifndef AIJHYBRID_KERNELS_ILU_H
#define AIJHYBRID_KERNELS_ILU_H

#include <petscsys.h>
#include <math.h>

/* ---------------------------------------------------------------- pivots and shifts */

/* the shift types, with the values of PETSc's MatFactorShiftType */
#define AIJHYBRID_SHIFT_NONE              0
#define AIJHYBRID_SHIFT_NONZERO           1
#define AIJHYBRID_SHIFT_POSITIVE_DEFINITE 2
#define AIJHYBRID_SHIFT_INBLOCKS          3

typedef struct {
  PetscInt  type;        /* AIJHYBRID_SHIFT_* (MatFactorInfo.shifttype) */
  PetscReal zeropivot;   /* MatFactorInfo.zeropivot */
  PetscReal shiftamount; /* MatFactorInfo.shiftamount (INBLOCKS: added to a small pivot) */
  PetscReal shift;       /* the pass's shift of every diagonal (PETSc's sctx.shift_amount) */
} AIJHybridPivotRule;

typedef struct {
  PetscBool      newshift;  /* NONZERO, POSITIVE_DEFINITE: a pivot failed, the pass is void and PETSc's would have stopped there */
  PetscInt       nzero;     /* NONE: zero pivots (|pivot| <= zeropivot) */
  PetscInt       zfirst;    /* NONE: the first and the last such row in the serial order (-1: none) */
  PetscInt       zlast;     /*       (ILU: the row; ICC: the row k, see AIJHybridICCPivotRow()) */
  PetscReal      vfirst;    /* |pivot| of zfirst */
  PetscReal      vlast;     /* |pivot| of zlast */
  PetscInt       ninblocks; /* INBLOCKS: pivots shifted */
  PetscLogDouble flops;     /* the flops PETSc's routine logs for these rows */
} AIJHybridPivotStatus;

static inline void AIJHybridPivotStatusInit(AIJHybridPivotStatus *st)
{
  st->newshift  = PETSC_FALSE;
  st->nzero     = 0;
  st->zfirst    = -1;
  st->zlast     = -1;
  st->vfirst    = 0;
  st->vlast     = 0;
  st->ninblocks = 0;
  st->flops     = 0;
}

/* adds the account of another thread (rows in the serial order: smaller first, larger last) */
static inline void AIJHybridPivotMerge(AIJHybridPivotStatus *st, const AIJHybridPivotStatus *o)
{
  st->newshift = (PetscBool)(st->newshift || o->newshift);
  if (o->nzero) {
    if (!st->nzero || o->zfirst < st->zfirst) {
      st->zfirst = o->zfirst;
      st->vfirst = o->vfirst;
    }
    if (!st->nzero || o->zlast > st->zlast) {
      st->zlast = o->zlast;
      st->vlast = o->vlast;
    }
  }
  st->nzero += o->nzero;
  st->ninblocks += o->ninblocks;
  st->flops += o->flops;
}

/* MatPivotCheck() for the pivot pv of row (serial position) row whose off-diagonal entries sum to
   rs in absolute value: returns the pivot to invert (INBLOCKS may shift it) */
static inline PetscScalar AIJHybridPivotCheck(const AIJHybridPivotRule *rule, PetscInt row, PetscScalar pv, PetscReal rs, AIJHybridPivotStatus *st)
{
  const PetscReal apv = PetscAbsScalar(pv);
  const PetscBool nan = (PetscBool)isnan(apv); /* PetscIsNanScalar() */

  switch (rule->type) {
  case AIJHYBRID_SHIFT_NONZERO:
    if (apv <= rule->zeropivot * rs && !nan) st->newshift = PETSC_TRUE;
    break;
  case AIJHYBRID_SHIFT_POSITIVE_DEFINITE:
    if (PetscRealPart(pv) <= rule->zeropivot * rs && !nan) st->newshift = PETSC_TRUE;
    break;
  case AIJHYBRID_SHIFT_INBLOCKS:
    if (apv <= rule->zeropivot && !nan) {
      pv += rule->shiftamount;
      st->ninblocks++;
    }
    break;
  default:
    if (apv <= rule->zeropivot && !nan) {
      if (!st->nzero || row < st->zfirst) {
        st->zfirst = row;
        st->vfirst = apv;
      }
      if (!st->nzero || row > st->zlast) {
        st->zlast = row;
        st->vlast = apv;
      }
      st->nzero++;
    }
  }
  return pv;
}

/*
   The shift state between passes (PETSc's FactorShiftCtx without the row fields): PETSc's routines
   repeat the whole factorization with a larger shift when a pivot fails (NONZERO: doubled from
   shiftamount; POSITIVE_DEFINITE: bisection of a fraction of shift_top), and after a successful
   pass with a positive-definite shift try a smaller one (MatPivotRefine). Every pass is a complete
   factorization with the shift of rule.shift; only the number of passes differs from none.
   (PETSc's ICC repeats after a failed pivot and does not refine.)
*/
typedef struct {
  PetscInt  nshift, nshift_max;
  PetscReal shift_amount, shift_lo, shift_hi, shift_top, shift_fraction;
} AIJHybridShift;

/* PETSc's MatPivotSetUp(): top is the largest row excess of the matrix (AIJHybridShiftTop()),
   used for POSITIVE_DEFINITE only */
static inline void AIJHybridShiftInit(AIJHybridShift *s, PetscInt type, PetscReal top)
{
  s->nshift = s->nshift_max = 0;
  s->shift_amount = s->shift_lo = s->shift_hi = s->shift_top = s->shift_fraction = 0;
  if (type == AIJHYBRID_SHIFT_POSITIVE_DEFINITE) {
    s->shift_top  = top * 1.1;
    s->nshift_max = 5;
    s->shift_lo   = 0.;
    s->shift_hi   = 1.;
  }
}

/* the largest row excess sum_j |a_ij| - |a_ii| - Re(a_ii) over the rows of the matrix, starting
   from zeropivot, summed in PETSc's order (MatLUFactorNumeric_SeqAIJ(), ..._Inode(),
   MatCholeskyFactorNumeric_SeqAIJ()); adiag[i]: the position of a_ii */
static inline PetscReal AIJHybridShiftTop(PetscInt n, const PetscInt *ai, const PetscInt *adiag, const PetscScalar *aa, PetscReal zeropivot)
{
  PetscReal top = zeropivot;

  for (PetscInt i = 0; i < n; i++) {
    const PetscScalar d  = aa[adiag[i]];
    PetscReal         rs = -PetscAbsScalar(d) - PetscRealPart(d);

    for (PetscInt j = ai[i]; j < ai[i + 1]; j++) rs += PetscAbsScalar(aa[j]);
    if (rs > top) top = rs;
  }
  return top;
}

/* a pass failed (st.newshift): the update PETSc's MatPivotCheck_nz()/_pd() makes at the first
   failing pivot; the next pass uses s->shift_amount */
static inline void AIJHybridShiftFailed(AIJHybridShift *s, const AIJHybridPivotRule *rule)
{
  if (rule->type == AIJHYBRID_SHIFT_NONZERO) {
    if (!s->nshift) s->shift_amount = rule->shiftamount;
    else s->shift_amount *= 2.0;
  } else {
    if (s->nshift == s->nshift_max) s->shift_fraction = s->shift_hi;
    else {
      s->shift_lo       = s->shift_fraction;
      s->shift_fraction = (s->shift_hi + s->shift_lo) / (PetscReal)2.;
    }
    s->shift_amount = s->shift_fraction * s->shift_top;
  }
  s->nshift++;
}

/* a pass succeeded: PETSc's MatPivotRefine() (ILU only: MatCholeskyFactorNumeric_SeqAIJ() does not
   refine); PETSC_TRUE when another pass follows */
static inline PetscBool AIJHybridShiftRefine(AIJHybridShift *s, PetscInt type)
{
  if (type == AIJHYBRID_SHIFT_POSITIVE_DEFINITE && s->shift_fraction > 0 && s->nshift < s->nshift_max) {
    s->shift_hi       = s->shift_fraction;
    s->shift_fraction = (s->shift_hi + s->shift_lo) / (PetscReal)2.;
    s->shift_amount   = s->shift_fraction * s->shift_top;
    s->nshift++;
    return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* ---------------------------------------------------------------- ILU (seqaij factor) */

/* one row i of MatLUFactorNumeric_SeqAIJ() / the one-row node of ..._Inode() */
static inline void AIJHybridILUNumericRow(PetscInt i, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscInt *arow, const PetscInt *ic, const PetscInt *PETSC_RESTRICT bi,
                                          const PetscInt *PETSC_RESTRICT bj, const PetscInt *PETSC_RESTRICT bdiag, PetscScalar *ba, const AIJHybridPivotRule *rule, PetscScalar *PETSC_RESTRICT rtmp, AIJHybridPivotStatus *st)
{
  const PetscInt     ar = arow ? arow[i] : i, nzL = bi[i + 1] - bi[i], nzU = bdiag[i] - bdiag[i + 1] - 1;
  const PetscInt    *Lj = bj + bi[i], *Uj = bj + bdiag[i + 1] + 1, *ajr = aj + ai[ar];
  const PetscScalar *v  = aa + ai[ar];
  PetscScalar       *La = ba + bi[i], *Ua = ba + bdiag[i + 1] + 1, pv;
  PetscReal          rs    = 0.0;
  PetscLogDouble     flops = 0;

  for (PetscInt j = 0; j < nzL; j++) rtmp[Lj[j]] = 0.0;
  for (PetscInt j = 0; j <= nzU; j++) rtmp[Uj[j]] = 0.0; /* with the diagonal, last */
  if (ic)
    for (PetscInt j = 0; j < ai[ar + 1] - ai[ar]; j++) rtmp[ic[ajr[j]]] = v[j];
  else
    for (PetscInt j = 0; j < ai[ar + 1] - ai[ar]; j++) rtmp[ajr[j]] = v[j];
  rtmp[i] += rule->shift;
  for (PetscInt k = 0; k < nzL; k++) {
    const PetscInt row = Lj[k];

    if (rtmp[row] != 0.0) {
      const PetscScalar  multiplier = rtmp[row] * ba[bdiag[row]];
      const PetscInt     nz         = bdiag[row] - bdiag[row + 1] - 1;
      const PetscInt    *pj         = bj + bdiag[row + 1] + 1;
      const PetscScalar *pv2        = ba + bdiag[row + 1] + 1;

      rtmp[row] = multiplier;
      for (PetscInt j = 0; j < nz; j++) rtmp[pj[j]] -= multiplier * pv2[j];
      flops += 1 + 2.0 * nz;
    }
  }
  for (PetscInt j = 0; j < nzL; j++) {
    La[j] = rtmp[Lj[j]];
    rs += PetscAbsScalar(La[j]);
  }
  for (PetscInt j = 0; j < nzU; j++) {
    Ua[j] = rtmp[Uj[j]];
    rs += PetscAbsScalar(Ua[j]);
  }
  pv           = AIJHybridPivotCheck(rule, i, rtmp[i], rs, st);
  ba[bdiag[i]] = 1.0 / pv;
  st->flops += flops;
}

/* rows order[ks .. ke) of MatLUFactorNumeric_SeqAIJ() */
static inline void AIJHybridILUNumericRows(PetscInt ks, PetscInt ke, const PetscInt *order, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscInt *arow, const PetscInt *ic, const PetscInt *bi, const PetscInt *bj,
                                           const PetscInt *bdiag, PetscScalar *ba, const AIJHybridPivotRule *rule, PetscScalar *rtmp, AIJHybridPivotStatus *st)
{
  for (PetscInt q = ks; q < ke; q++) AIJHybridILUNumericRow(order ? order[q] : q, ai, aj, aa, arow, ic, bi, bj, bdiag, ba, rule, rtmp, st);
}

/*
   one node of MatLUFactorNumeric_SeqAIJ_Inode(): rows s .. s+m-1 (1 <= m <= 4), computed together.
   The node's rows are loaded with the columns of the first one's matrix row (arow[s]) and the values
   of their own (arow[s+p]), zeroed and eliminated over the pattern of the first one (L(s,:), then
   U(s,:) with its diagonal); a pivot row of L(s,:) is applied when any of the node's rows has a
   nonzero in its column; then row by row: row s+p is stored and its pivot inverted, and the later
   rows of the node are eliminated with it when any of them has a nonzero in its column. With
   m = 1 this is AIJHybridILUNumericRow(). rtmp: 4 n scalars (n = the stride of its four parts).
*/
static inline void AIJHybridILUNumericNode(PetscInt s, PetscInt m, PetscInt n, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscInt *arow, const PetscInt *ic,
                                           const PetscInt *PETSC_RESTRICT bi, const PetscInt *PETSC_RESTRICT bj, const PetscInt *PETSC_RESTRICT bdiag, PetscScalar *ba, const AIJHybridPivotRule *rule, PetscScalar *rtmp, AIJHybridPivotStatus *st)
{
  PetscScalar       *rt[4] = {rtmp, rtmp + n, rtmp + 2 * n, rtmp + 3 * n}, mul[4];
  const PetscScalar *v[4];
  const PetscInt     a0 = arow ? arow[s] : s, nza = ai[a0 + 1] - ai[a0], nzL = bi[s + 1] - bi[s], nzU = bdiag[s] - bdiag[s + 1];
  const PetscInt    *ajr = aj + ai[a0], *Lj = bj + bi[s], *Uj = bj + bdiag[s + 1] + 1;
  PetscLogDouble     flops = 0;

  if (m == 1) {
    AIJHybridILUNumericRow(s, ai, aj, aa, arow, ic, bi, bj, bdiag, ba, rule, rtmp, st);
    return;
  }
  for (PetscInt p = 0; p < m; p++) v[p] = aa + ai[arow ? arow[s + p] : s + p];
  for (PetscInt j = 0; j < nzL; j++)
    for (PetscInt p = 0; p < m; p++) rt[p][Lj[j]] = 0.0;
  for (PetscInt j = 0; j < nzU; j++) /* with the diagonal */
    for (PetscInt p = 0; p < m; p++) rt[p][Uj[j]] = 0.0;
  for (PetscInt j = 0; j < nza; j++) {
    const PetscInt col = ic ? ic[ajr[j]] : ajr[j];

    for (PetscInt p = 0; p < m; p++) rt[p][col] = v[p][j];
  }
  for (PetscInt p = 0; p < m; p++) rt[p][s + p] += rule->shift;
  for (PetscInt k = 0; k < nzL; k++) {
    const PetscInt row = Lj[k];
    PetscBool      any = PETSC_FALSE;

    for (PetscInt p = 0; p < m; p++)
      if (rt[p][row] != 0.0) any = PETSC_TRUE;
    if (any) {
      const PetscScalar  dinv = ba[bdiag[row]];
      const PetscInt     nz   = bdiag[row] - bdiag[row + 1] - 1;
      const PetscInt    *pj   = bj + bdiag[row + 1] + 1;
      const PetscScalar *pv   = ba + bdiag[row + 1] + 1;

      for (PetscInt p = 0; p < m; p++) {
        mul[p]     = rt[p][row] * dinv;
        rt[p][row] = mul[p];
      }
      for (PetscInt j = 0; j < nz; j++)
        for (PetscInt p = 0; p < m; p++) rt[p][pj[j]] -= mul[p] * pv[j];
      flops += m + 2.0 * m * nz;
    }
  }
  for (PetscInt p = 0; p < m; p++) {
    const PetscInt     i = s + p, nl = bi[i + 1] - bi[i], nu = bdiag[i] - bdiag[i + 1] - 1;
    const PetscInt    *li = bj + bi[i], *ui = bj + bdiag[i + 1] + 1;
    PetscScalar       *la = ba + bi[i], *ua = ba + bdiag[i + 1] + 1, pv;
    const PetscScalar *r   = rt[p];
    PetscReal          rs  = 0.0;
    PetscBool          any = PETSC_FALSE;

    for (PetscInt j = 0; j < nl; j++) {
      la[j] = r[li[j]];
      rs += PetscAbsScalar(la[j]);
    }
    for (PetscInt j = 0; j < nu; j++) {
      ua[j] = r[ui[j]];
      rs += PetscAbsScalar(ua[j]);
    }
    pv           = AIJHybridPivotCheck(rule, i, r[i], rs, st);
    ba[bdiag[i]] = 1.0 / pv;
    /* the later rows of the node, with row i (its U part, inverted diagonal) */
    for (PetscInt q = p + 1; q < m; q++)
      if (rt[q][i] != 0.0) any = PETSC_TRUE;
    if (any) {
      const PetscScalar dinv = ba[bdiag[i]];

      for (PetscInt q = p + 1; q < m; q++) {
        mul[q]   = rt[q][i] * dinv;
        rt[q][i] = mul[q];
      }
      for (PetscInt j = 0; j < nu; j++) {
        const PetscInt col = ui[j];

        for (PetscInt q = p + 1; q < m; q++) rt[q][col] -= mul[q] * r[col];
      }
      /* what PETSc logs: (m-p-1) (1 + 2 nz), except 4 nz for the second row of a node of four */
      flops += (m == 4 && p == 1) ? 4.0 * nu : (m - p - 1) * (1 + 2.0 * nu);
    }
  }
  st->flops += flops;
}

/* nodes order[ks .. ke) of MatLUFactorNumeric_SeqAIJ_Inode(): node u is rows nstart[u] .. nstart[u+1]-1 */
static inline void AIJHybridILUNumericNodes(PetscInt ks, PetscInt ke, const PetscInt *order, const PetscInt *nstart, PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscInt *arow, const PetscInt *ic,
                                            const PetscInt *bi, const PetscInt *bj, const PetscInt *bdiag, PetscScalar *ba, const AIJHybridPivotRule *rule, PetscScalar *rtmp, AIJHybridPivotStatus *st)
{
  for (PetscInt q = ks; q < ke; q++) {
    const PetscInt u = order ? order[q] : q;

    AIJHybridILUNumericNode(nstart[u], nstart[u + 1] - nstart[u], n, ai, aj, aa, arow, ic, bi, bj, bdiag, ba, rule, rtmp, st);
  }
}

/* ---------------------------------------------------------------- ICC (seqsbaij factor) */

/*
   one row k of MatCholeskyFactorNumeric_SeqAIJ(): U(k,:) at ua[ui[k] .. ui[k+1]), strictly upper
   entries then the diagonal. PETSc adds the contributing rows i (U(i,k) != 0) in the order of its
   linked lists; the plan gives that order: row k's contributors are crow[cptr[k] .. cptr[k+1]),
   with the position of U(i,k) in cpos (AIJHybridICCContributors()). For each, in that order:
     uikdi = -U(i,k) * dinv(i); dk += uikdi * U(i,k); stored U(i,k) = uikdi;
     rtmp[c] += uikdi * U(i,c) for the later entries c of row i,
   where U(i,.) are the values row i stored (PETSc reads them from the factor before the rows after
   k overwrite them). raw keeps those values, so that the rows of one level may run at once: every
   U(i,c) that row i stores goes to both ua and raw; the kernel reads raw and rewrites ua. raw may
   be ua itself when the rows run in the serial order (one thread).
*/
static inline void AIJHybridICCNumericRow(PetscInt k, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscInt *arow, const PetscInt *ic, const PetscInt *PETSC_RESTRICT ui,
                                          const PetscInt *PETSC_RESTRICT uj, PetscScalar *ua, PetscScalar *raw, const PetscInt *PETSC_RESTRICT cptr, const PetscInt *PETSC_RESTRICT crow, const PetscInt *PETSC_RESTRICT cpos,
                                          const AIJHybridPivotRule *rule, PetscScalar *PETSC_RESTRICT rtmp, AIJHybridPivotStatus *st)
{
  const PetscInt ar = arow ? arow[k] : k, jmin = ui[k], jmax = ui[k + 1] - 1;
  PetscScalar    dk;
  PetscReal      rs = 0.0;

  for (PetscInt j = jmin; j <= jmax; j++) rtmp[uj[j]] = 0.0;
  for (PetscInt j = ai[ar]; j < ai[ar + 1]; j++) {
    const PetscInt col = ic ? ic[aj[j]] : aj[j];

    if (col >= k) rtmp[col] = aa[j]; /* the upper triangle only */
  }
  rtmp[k] += rule->shift;
  dk = rtmp[k];
  for (PetscInt p = cptr[k]; p < cptr[k + 1]; p++) {
    const PetscInt    i = crow[p], ili = cpos[p], iend = ui[i + 1] - 1; /* row i's diagonal, at iend, is not added: column i < k */
    const PetscScalar uik = raw[ili], uikdi = -uik * ua[iend];

    dk += uikdi * uik;
    ua[ili] = uikdi;
    for (PetscInt j = ili + 1; j < iend; j++) rtmp[uj[j]] += uikdi * raw[j];
  }
  for (PetscInt j = jmin; j < jmax; j++) {
    const PetscScalar u = rtmp[uj[j]];

    ua[j]  = u;
    raw[j] = u;
    rs += PetscAbsScalar(u);
  }
  dk       = AIJHybridPivotCheck(rule, k, dk, rs, st);
  ua[jmax] = 1.0 / dk;
}

/* rows order[ks .. ke) of MatCholeskyFactorNumeric_SeqAIJ() */
static inline void AIJHybridICCNumericRows(PetscInt ks, PetscInt ke, const PetscInt *order, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscInt *arow, const PetscInt *ic, const PetscInt *ui, const PetscInt *uj,
                                           PetscScalar *ua, PetscScalar *raw, const PetscInt *cptr, const PetscInt *crow, const PetscInt *cpos, const AIJHybridPivotRule *rule, PetscScalar *rtmp, AIJHybridPivotStatus *st)
{
  for (PetscInt q = ks; q < ke; q++) AIJHybridICCNumericRow(order ? order[q] : q, ai, aj, aa, arow, ic, ui, uj, ua, raw, cptr, crow, cpos, rule, rtmp, st);
}

#endif
