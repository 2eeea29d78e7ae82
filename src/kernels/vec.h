/*
   Pure vector kernels on raw arrays, over a range of entries. They call nothing: safe on any thread.

   Entry-wise maps (AIJHybridVecMapRange): each entry is computed from the same entries of the
   inputs by a fixed formula, so a result does not depend on how the entries are split.

   Sums (AIJHybridVecReduceBlock): the entries are cut into blocks of AIJHYBRID_VEC_BLOCK starting at
   entry 0; a block is summed in a fixed order (AIJHYBRID_VEC_LANES interleaved partial sums, lane l
   taking the entries l, l + LANES, ... of the block, combined pairwise at the end), and the caller
   adds the block sums in block order. Which thread sums which block does not change a bit of the
   result: the sums are the same for any thread count. The lanes let the compiler use SIMD registers
   and keep several additions in flight (a single running sum is bound by the latency of one
   addition per entry, below the memory bandwidth of one core).

   Extremes (AIJHybridVecExtremeRange): max/min and the infinity norms, exact in any order; the
   first entry wins ties, and NaN is handled as PETSc's sequential loops do (see each case).
*/
#ifndef AIJHYBRID_KERNELS_VEC_H
#define AIJHYBRID_KERNELS_VEC_H

#include <petscsys.h>

#define AIJHYBRID_VEC_BLOCK     1024  /* entries of one block of a sum: fixed, results depend on it */
#define AIJHYBRID_VEC_LANES     8     /* partial sums within a block */
#define AIJHYBRID_VEC_RUN       16    /* blocks of a multi-vector sum each y is read over in a row (AIJHybridVecReduceBlocks()): any number gives the same bits */
#define AIJHYBRID_VEC_MAP_BLOCK 16384 /* entries of w kept in cache while the xs of maxpy stream past it in runs this long: any size gives the same bits */

/* entry-wise maps: w = f(x, y, w, ...) for the entries [s, e) */
typedef enum {
  AIJHYBRID_VEC_SET,              /* w = a */
  AIJHYBRID_VEC_SCALE,            /* w = a w (BLAS's product) */
  AIJHYBRID_VEC_COPY,             /* w = x */
  AIJHYBRID_VEC_SWAP,             /* w <-> v */
  AIJHYBRID_VEC_AXPY,             /* w = w + a x (BLAS's product) */
  AIJHYBRID_VEC_AYPX,             /* w = x + a w */
  AIJHYBRID_VEC_AYPX_MINUS,       /* w = x - w (aypx with a = -1) */
  AIJHYBRID_VEC_AXPBY,            /* w = a x + b w */
  AIJHYBRID_VEC_AX,               /* w = a x (axpby with b = 0) */
  AIJHYBRID_VEC_AXPBYPCZ,         /* w = a x + b y + c w */
  AIJHYBRID_VEC_AXPBYPCZ_A1,      /* w = x + b y + c w (a = 1: x is not multiplied, as in VECSEQ; with complex
                                     scalars 1 x is not x when x is infinite) */
  AIJHYBRID_VEC_AXPBYPCZ_C1,      /* w = a x + b y + w (c = 1) */
  AIJHYBRID_VEC_AXPBYPCZ_NOZ,     /* w = a x + b y (axpbypcz with c = 0: w's old values are not read) */
  AIJHYBRID_VEC_WAXPY,            /* w = a x + y */
  AIJHYBRID_VEC_WAXPY_PLUS,       /* w = x + y (waxpy with a = 1) */
  AIJHYBRID_VEC_WAXPY_MINUS,      /* w = y - x (waxpy with a = -1) */
  AIJHYBRID_VEC_MAXPY,            /* w = w + sum_j alpha[j] xs[j] */
  AIJHYBRID_VEC_MAXPBY,           /* w = b w + sum_j alpha[j] xs[j] */
  AIJHYBRID_VEC_MAXPBY_ZERO,      /* w = 0 + sum_j alpha[j] xs[j] (maxpby with b = 0: w's old values are not read) */
  AIJHYBRID_VEC_SHIFT,            /* w = w + a */
  AIJHYBRID_VEC_POINTWISE_MULT,   /* w = x .* y */
  AIJHYBRID_VEC_POINTWISE_DIV,    /* w = x ./ y; where y is 0: 0 (PETSc >= 3.26: 1 where x is 0 too) */
  AIJHYBRID_VEC_POINTWISE_MAX,    /* w = max(Re x, Re y) */
  AIJHYBRID_VEC_POINTWISE_MIN,    /* w = min(Re x, Re y) */
  AIJHYBRID_VEC_POINTWISE_MAXABS, /* w = max(|x|, |y|) */
  AIJHYBRID_VEC_RECIPROCAL,       /* w = 1 / w where w is not 0 (PETSc >= 3.19: zeros become +0) */
  AIJHYBRID_VEC_ABS,              /* w = |w| */
  AIJHYBRID_VEC_CONJUGATE         /* w = conj(w) */
} AIJHybridVecMapOp;

typedef struct {
  AIJHybridVecMapOp         op;
  PetscScalar               a, b, c;
  const PetscScalar        *x, *y; /* inputs (may alias w) */
  PetscScalar              *w, *v; /* output; v: the second vector of a swap */
  PetscInt                  nv;    /* maxpy, maxpby: the vectors xs[0..nv-1] with coefficients alpha[] */
  const PetscScalar        *alpha;
  const PetscScalar *const *xs;
} AIJHybridVecMapArgs;

/* sums: out[0..nout-1] = the sums of one block, nout given by AIJHybridVecReduceCount() */
typedef enum {
  AIJHYBRID_VEC_DOT,      /* sum conj(y) x */
  AIJHYBRID_VEC_TDOT,     /* sum x y */
  AIJHYBRID_VEC_MDOT,     /* sum x conj(ys[j]), j < nv */
  AIJHYBRID_VEC_MTDOT,    /* sum x ys[j], j < nv */
  AIJHYBRID_VEC_NORM1,    /* sum |x| */
  AIJHYBRID_VEC_SUMSQ,    /* sum Re(conj(x) x) */
  AIJHYBRID_VEC_NORM1SQ,  /* sum |x|, sum |x|^2 */
  AIJHYBRID_VEC_DOTNORM2, /* sum x conj(y), sum Re(y conj(y)) */
  AIJHYBRID_VEC_SUM       /* sum x */
} AIJHybridVecReduceOp;

typedef struct {
  AIJHybridVecReduceOp      op;
  const PetscScalar        *x, *y;
  PetscInt                  nv;
  const PetscScalar *const *ys;
} AIJHybridVecReduceArgs;

/* extremes over [s, e): a value and the local index of the entry that has it */
typedef enum {
  AIJHYBRID_VEC_NORMINF, /* max |x|, starting from 0; a NaN ends the scan and is the result (index unused) */
  AIJHYBRID_VEC_MAX,     /* max Re x, the first index of it; NaN entries are passed over */
  AIJHYBRID_VEC_MIN      /* min Re x, likewise */
} AIJHybridVecExtremeOp;

static inline PetscInt AIJHybridVecReduceCount(const AIJHybridVecReduceArgs *r)
{
  switch (r->op) {
  case AIJHYBRID_VEC_MDOT:
  case AIJHYBRID_VEC_MTDOT:
    return r->nv;
  case AIJHYBRID_VEC_NORM1SQ:
  case AIJHYBRID_VEC_DOTNORM2:
    return 2;
  default:
    return 1;
  }
}

/* the lanes of a block summed pairwise: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) */
static inline PetscScalar AIJHybridVecLanesSum(const PetscScalar l[AIJHYBRID_VEC_LANES])
{
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/*
  a b as the reference BLAS computes it (zscal, zaxpy, compiled as Fortran): with complex scalars the
  plain formula, (ar br - ai bi) + i (ar bi + ai br), where C's a * b (C99 Annex G) recovers an
  infinity from a NaN + i NaN result. PETSc's VECSEQ multiplies through BLAS in VecScale and VecAXPY,
  through C everywhere else (its complex dot products are C loops, petscblaslapack.h): the kernels do
  the same, in PETSc's operand order, so that NaN and Inf come out where PETSc's do.
*/
static inline PetscScalar AIJHybridMulBLAS(PetscScalar a, PetscScalar b)
{
#if defined(PETSC_USE_COMPLEX)
  const PetscReal ar = PetscRealPart(a), ai = PetscImaginaryPart(a), br = PetscRealPart(b), bi = PetscImaginaryPart(b);
  return PetscCMPLX(ar * br - ai * bi, ar * bi + ai * br);
#else
  return a * b;
#endif
}

/* |v|^2 as PETSc's complex 2-norm takes it: the real part of conj(v) v (a C product) */
static inline PetscReal AIJHybridVecAbsSq(PetscScalar v)
{
#if defined(PETSC_USE_COMPLEX)
  return PetscRealPart(PetscConj(v) * v);
#else
  return v * v;
#endif
}

/*
  The lane loop of a block of n entries: lane l accumulates term for i = l, l + LANES, ...; the last
  n % LANES entries go to lanes 0, 1, ... in order; result is the pairwise sum of the lanes. term is
  an expression in the index i (declared by the macro).
*/
#define AIJHYBRID_VEC_LANE_SUM(n, result, term) \
  do { \
    PetscScalar l_[AIJHYBRID_VEC_LANES] = {0, 0, 0, 0, 0, 0, 0, 0}; \
    PetscInt    b_                      = 0; \
    for (; b_ + AIJHYBRID_VEC_LANES <= (n); b_ += AIJHYBRID_VEC_LANES) \
      for (PetscInt k_ = 0; k_ < AIJHYBRID_VEC_LANES; k_++) { \
        const PetscInt i = b_ + k_; \
        l_[k_] += (term); \
      } \
    for (PetscInt k_ = 0; b_ + k_ < (n); k_++) { \
      const PetscInt i = b_ + k_; \
      l_[k_] += (term); \
    } \
    (result) = AIJHybridVecLanesSum(l_); \
  } while (0)

/*
  four sums x conj(y_j) (conjugate) or x y_j of one block in one pass over x: each exactly as
  AIJHYBRID_VEC_LANE_SUM computes it alone (its own lanes, the same terms in the same order), so the
  grouping changes no bit; x is read once per four vectors, four streams run at once
*/
static inline void AIJHybridVecMDot4(PetscInt n, const PetscScalar *PETSC_RESTRICT x, const PetscScalar *PETSC_RESTRICT y0, const PetscScalar *PETSC_RESTRICT y1, const PetscScalar *PETSC_RESTRICT y2, const PetscScalar *PETSC_RESTRICT y3,
                                     PetscBool conjugate, PetscScalar out[4])
{
  PetscScalar l0[AIJHYBRID_VEC_LANES] = {0, 0, 0, 0, 0, 0, 0, 0}, l1[AIJHYBRID_VEC_LANES] = {0, 0, 0, 0, 0, 0, 0, 0};
  PetscScalar l2[AIJHYBRID_VEC_LANES] = {0, 0, 0, 0, 0, 0, 0, 0}, l3[AIJHYBRID_VEC_LANES] = {0, 0, 0, 0, 0, 0, 0, 0};
  PetscInt    b = 0;

#define AIJHYBRID_VEC_MDOT4_TERMS(i, k) \
  do { \
    if (conjugate) { \
      l0[k] += x[i] * PetscConj(y0[i]); \
      l1[k] += x[i] * PetscConj(y1[i]); \
      l2[k] += x[i] * PetscConj(y2[i]); \
      l3[k] += x[i] * PetscConj(y3[i]); \
    } else { \
      l0[k] += x[i] * y0[i]; \
      l1[k] += x[i] * y1[i]; \
      l2[k] += x[i] * y2[i]; \
      l3[k] += x[i] * y3[i]; \
    } \
  } while (0)
  for (; b + AIJHYBRID_VEC_LANES <= n; b += AIJHYBRID_VEC_LANES)
    for (PetscInt k = 0; k < AIJHYBRID_VEC_LANES; k++) AIJHYBRID_VEC_MDOT4_TERMS(b + k, k);
  for (PetscInt k = 0; b + k < n; k++) AIJHYBRID_VEC_MDOT4_TERMS(b + k, k);
#undef AIJHYBRID_VEC_MDOT4_TERMS
  out[0] = AIJHybridVecLanesSum(l0);
  out[1] = AIJHybridVecLanesSum(l1);
  out[2] = AIJHybridVecLanesSum(l2);
  out[3] = AIJHybridVecLanesSum(l3);
}

/* the sums of the block [s, e) (at most AIJHYBRID_VEC_BLOCK entries) into out[] */
static inline void AIJHybridVecReduceBlock(const AIJHybridVecReduceArgs *r, PetscInt s, PetscInt e, PetscScalar out[])
{
  const PetscInt     n = e - s;
  const PetscScalar *x = r->x + s, *y = r->y ? r->y + s : NULL;

  switch (r->op) {
  case AIJHYBRID_VEC_DOT:
    AIJHYBRID_VEC_LANE_SUM(n, out[0], PetscConj(y[i]) * x[i]);
    break;
  case AIJHYBRID_VEC_TDOT:
    AIJHYBRID_VEC_LANE_SUM(n, out[0], x[i] * y[i]);
    break;
  case AIJHYBRID_VEC_MDOT:
  case AIJHYBRID_VEC_MTDOT: {
    const PetscBool conjugate = (PetscBool)(r->op == AIJHYBRID_VEC_MDOT);
    PetscInt        j         = 0;

    for (; j + 4 <= r->nv; j += 4) AIJHybridVecMDot4(n, x, r->ys[j] + s, r->ys[j + 1] + s, r->ys[j + 2] + s, r->ys[j + 3] + s, conjugate, out + j);
    for (; j < r->nv; j++) {
      const PetscScalar *yj = r->ys[j] + s;
      if (conjugate) AIJHYBRID_VEC_LANE_SUM(n, out[j], x[i] * PetscConj(yj[i]));
      else AIJHYBRID_VEC_LANE_SUM(n, out[j], x[i] * yj[i]);
    }
  } break;
  case AIJHYBRID_VEC_NORM1:
    AIJHYBRID_VEC_LANE_SUM(n, out[0], PetscAbsScalar(x[i]));
    break;
  case AIJHYBRID_VEC_SUMSQ:
    AIJHYBRID_VEC_LANE_SUM(n, out[0], AIJHybridVecAbsSq(x[i]));
    break;
  case AIJHYBRID_VEC_NORM1SQ:
    AIJHYBRID_VEC_LANE_SUM(n, out[0], PetscAbsScalar(x[i]));
    AIJHYBRID_VEC_LANE_SUM(n, out[1], AIJHybridVecAbsSq(x[i]));
    break;
  case AIJHYBRID_VEC_DOTNORM2:
    AIJHYBRID_VEC_LANE_SUM(n, out[0], x[i] * PetscConj(y[i]));
    AIJHYBRID_VEC_LANE_SUM(n, out[1], PetscRealPart(y[i] * PetscConj(y[i])));
    break;
  case AIJHYBRID_VEC_SUM:
    AIJHYBRID_VEC_LANE_SUM(n, out[0], x[i]);
    break;
  }
}

/*
  the sums of the consecutive blocks from s (a multiple of AIJHYBRID_VEC_BLOCK) to e, block k of them
  into out[k * nout + j]: each block's sums are AIJHybridVecReduceBlock()'s, bit for bit, but the
  multi-vector sums run vector group by vector group over all the blocks, so each y streams over
  e - s entries in a row (the hardware prefetcher follows it) while that part of x stays in cache;
  block by block, the nv y's would each be read in runs of one block, which, with tens of vectors
  (GMRES's orthogonalization), leaves the loads waiting on memory
*/
static inline void AIJHybridVecReduceBlocks(const AIJHybridVecReduceArgs *r, PetscInt s, PetscInt e, PetscInt nout, PetscScalar out[])
{
  const PetscInt B = AIJHYBRID_VEC_BLOCK;

  if (r->op == AIJHYBRID_VEC_MDOT || r->op == AIJHYBRID_VEC_MTDOT) {
    const PetscBool conjugate = (PetscBool)(r->op == AIJHYBRID_VEC_MDOT);
    PetscInt        j         = 0;

    for (; j + 4 <= r->nv; j += 4)
      for (PetscInt bs = s, k = 0; bs < e; bs += B, k++) AIJHybridVecMDot4(PetscMin(B, e - bs), r->x + bs, r->ys[j] + bs, r->ys[j + 1] + bs, r->ys[j + 2] + bs, r->ys[j + 3] + bs, conjugate, out + k * nout + j);
    for (; j < r->nv; j++)
      for (PetscInt bs = s, k = 0; bs < e; bs += B, k++) {
        const PetscInt     n = PetscMin(B, e - bs);
        const PetscScalar *x = r->x + bs, *yj = r->ys[j] + bs;

        if (conjugate) AIJHYBRID_VEC_LANE_SUM(n, out[k * nout + j], x[i] * PetscConj(yj[i]));
        else AIJHYBRID_VEC_LANE_SUM(n, out[k * nout + j], x[i] * yj[i]);
      }
  } else {
    for (PetscInt bs = s, k = 0; bs < e; bs += B, k++) AIJHybridVecReduceBlock(r, bs, PetscMin(e, bs + B), out + k * nout);
  }
}

/* maxpy / maxpby over [s, e): with restrict-qualified operands when w is none of the xs, plainly
   otherwise (PETSc allows w among the xs; the two compilations give the same bits) */
#define AIJHYBRID_VEC_MAXPY_NAME AIJHybridVecMAXPYRangeDistinct
#define AIJHYBRID_VEC_MAP_QUAL   PETSC_RESTRICT
#include "vecmaxpy.inc"
#undef AIJHYBRID_VEC_MAXPY_NAME
#undef AIJHYBRID_VEC_MAP_QUAL
#define AIJHYBRID_VEC_MAXPY_NAME AIJHybridVecMAXPYRangeAliased
#define AIJHYBRID_VEC_MAP_QUAL
#include "vecmaxpy.inc"
#undef AIJHYBRID_VEC_MAXPY_NAME
#undef AIJHYBRID_VEC_MAP_QUAL

static inline void AIJHybridVecMAXPYRange(const AIJHybridVecMapArgs *m, PetscInt s, PetscInt e)
{
  for (PetscInt j = 0; j < m->nv; j++) {
    if (m->xs[j] == m->w) {
      AIJHybridVecMAXPYRangeAliased(m, s, e);
      return;
    }
  }
  AIJHybridVecMAXPYRangeDistinct(m, s, e);
}

/* the map of the entries [s, e): with restrict-qualified operands when they are distinct arrays (so
   the compiler vectorizes every loop without run-time overlap checks), plainly where w is x or y
   (PETSc's vectors are either the same array or disjoint) */
#define AIJHYBRID_VEC_MAP_NAME AIJHybridVecMapRangeDistinct
#define AIJHYBRID_VEC_MAP_QUAL PETSC_RESTRICT
#include "vecmap.inc"
#undef AIJHYBRID_VEC_MAP_NAME
#undef AIJHYBRID_VEC_MAP_QUAL
#define AIJHYBRID_VEC_MAP_NAME AIJHybridVecMapRangeAliased
#define AIJHYBRID_VEC_MAP_QUAL
#include "vecmap.inc"
#undef AIJHYBRID_VEC_MAP_NAME
#undef AIJHYBRID_VEC_MAP_QUAL

static inline void AIJHybridVecMapRange(const AIJHybridVecMapArgs *m, PetscInt s, PetscInt e)
{
  if (m->w != m->x && m->w != m->y) AIJHybridVecMapRangeDistinct(m, m->w, m->x, m->y, s, e);
  else AIJHybridVecMapRangeAliased(m, m->w, m->x, m->y, s, e);
}

/*
  The extreme of [s, e) into *val and *idx (an index in [s, e); -1 if MAX/MIN found no entry that is
  not NaN). Ranges combined in order with AIJHybridVecExtremeCombine() give the result of one scan
  over their union, as PETSc's loops scan: for MAX/MIN the caller applies PETSc's rule for a NaN in
  the first entry (VecMax_Seq() starts from it and nothing replaces a NaN).
*/
static inline void AIJHybridVecExtremeRange(AIJHybridVecExtremeOp op, const PetscScalar *xa, PetscInt s, PetscInt e, PetscReal *val, PetscInt *idx)
{
  PetscReal v = 0.0;
  PetscInt  k = -1;

  switch (op) {
  case AIJHYBRID_VEC_NORMINF:
    for (PetscInt i = s; i < e; i++) {
      const PetscReal t = PetscAbsScalar(xa[i]);
      if (t > v) v = t;
      if (t != t) {
        v = t;
        break;
      }
    }
    break;
  case AIJHYBRID_VEC_MAX:
    for (PetscInt i = s; i < e; i++) {
      const PetscReal t = PetscRealPart(xa[i]);
      if (t != t) continue;
      if (k < 0 || t > v) {
        v = t;
        k = i;
      }
    }
    break;
  case AIJHYBRID_VEC_MIN:
    for (PetscInt i = s; i < e; i++) {
      const PetscReal t = PetscRealPart(xa[i]);
      if (t != t) continue;
      if (k < 0 || t < v) {
        v = t;
        k = i;
      }
    }
    break;
  }
  *val = v;
  *idx = k;
}

/* fold the result (v, k) of the next range into (*val, *idx), the result of the ranges before it */
static inline void AIJHybridVecExtremeCombine(AIJHybridVecExtremeOp op, PetscReal *val, PetscInt *idx, PetscReal v, PetscInt k)
{
  switch (op) {
  case AIJHYBRID_VEC_NORMINF:
    if (*val != *val) return; /* a NaN ended the scan */
    if (v != v || v > *val) *val = v;
    break;
  case AIJHYBRID_VEC_MAX:
  case AIJHYBRID_VEC_MIN:
    if (k < 0) return;
    if (*idx < 0 || (op == AIJHYBRID_VEC_MAX ? v > *val : v < *val)) {
      *val = v;
      *idx = k;
    }
    break;
  }
}

#endif
