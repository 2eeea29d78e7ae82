/*
   Unit tests of the pure vector kernels (src/kernels/vec.h) against simple references:
   - the sums of a block equal, bit for bit, a plain loop that keeps the same 8 lanes and adds them
     pairwise, and agree with a naive sum to rounding;
   - every entry-wise map, run over a range cut into random pieces, equals the formula of PETSc's
     VECSEQ entry by entry (bitwise), including maxpy's order (the nv % 4 leading vectors, then fours);
   - the extremes of ranges folded in order equal one scan over the whole array written as PETSc's
     loops are (VecMax_Seq, VecMin_Seq, VecNorm_Seq NORM_INFINITY), with NaN and ties placed anywhere.
   - the sums of a run of blocks (multi-vector sums vector group by vector group) equal each block's
     own sums bit for bit;
   Runs in one process, no MPI communication.
*/
#include <math.h>
#include <petscsys.h>
#include "kernels/vec.h"
#include "unitcheck.h"

#define NMAX 5000

static void Fill(PetscScalar *a, PetscInt n)
{
  for (PetscInt i = 0; i < n; i++) a[i] = RandScalar();
}

/* the reference of a block's lanes: lane i % 8, pairwise combination */
static PetscScalar LaneRef(PetscInt n, const PetscScalar *t)
{
  PetscScalar l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (PetscInt i = 0; i < n; i++) l[i % 8] += t[i];
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

static void TestSums(void)
{
  PetscScalar    x[AIJHYBRID_VEC_BLOCK], y[AIJHYBRID_VEC_BLOCK], t[AIJHYBRID_VEC_BLOCK], out[8], *ys[3];
  PetscScalar    y1[AIJHYBRID_VEC_BLOCK], y2[AIJHYBRID_VEC_BLOCK], y3[AIJHYBRID_VEC_BLOCK];
  const PetscInt lens[] = {0, 1, 7, 8, 9, 63, 1000, AIJHYBRID_VEC_BLOCK};

  rng_state = 7;
  ys[0]     = y1;
  ys[1]     = y2;
  ys[2]     = y3;
  for (size_t c = 0; c < sizeof(lens) / sizeof(lens[0]); c++) {
    const PetscInt n     = lens[c];
    PetscScalar    naive = 0;
    Fill(x, n);
    Fill(y, n);
    Fill(y1, n);
    Fill(y2, n);
    Fill(y3, n);
    {
      AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_DOT, x, y, 0, NULL};
      AIJHybridVecReduceBlock(&r, 0, n, out);
      for (PetscInt i = 0; i < n; i++) t[i] = PetscConj(y[i]) * x[i];
      for (PetscInt i = 0; i < n; i++) naive += t[i];
      CHECK(out[0] == LaneRef(n, t), "dot n=%d: lanes differ from the reference", (int)n);
      CHECK(PetscAbsScalar(out[0] - naive) <= 1e-13 * (1 + n), "dot n=%d: %g off a naive sum", (int)n, (double)PetscAbsScalar(out[0] - naive));
    }
    {
      AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_TDOT, x, y, 0, NULL};
      AIJHybridVecReduceBlock(&r, 0, n, out);
      for (PetscInt i = 0; i < n; i++) t[i] = x[i] * y[i];
      CHECK(out[0] == LaneRef(n, t), "tdot n=%d", (int)n);
    }
    {
      AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_MDOT, x, NULL, 3, (const PetscScalar *const *)ys};
      AIJHybridVecReduceBlock(&r, 0, n, out);
      for (PetscInt j = 0; j < 3; j++) {
        for (PetscInt i = 0; i < n; i++) t[i] = x[i] * PetscConj(ys[j][i]);
        CHECK(out[j] == LaneRef(n, t), "mdot n=%d vector %d", (int)n, (int)j);
      }
    }
    {
      AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_MTDOT, x, NULL, 3, (const PetscScalar *const *)ys};
      AIJHybridVecReduceBlock(&r, 0, n, out);
      for (PetscInt j = 0; j < 3; j++) {
        for (PetscInt i = 0; i < n; i++) t[i] = x[i] * ys[j][i];
        CHECK(out[j] == LaneRef(n, t), "mtdot n=%d vector %d", (int)n, (int)j);
      }
    }
    {
      AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_NORM1SQ, x, NULL, 0, NULL};
      PetscScalar            t2[AIJHYBRID_VEC_BLOCK];
      AIJHybridVecReduceBlock(&r, 0, n, out);
      for (PetscInt i = 0; i < n; i++) {
        t[i]  = PetscAbsScalar(x[i]);
        t2[i] = PetscRealPart(x[i] * PetscConj(x[i]));
      }
      CHECK(out[0] == LaneRef(n, t), "norm1 n=%d", (int)n);
      CHECK(PetscAbsScalar(out[1] - LaneRef(n, t2)) <= 1e-15 * (1 + n), "sum of squares n=%d", (int)n);
    }
    {
      AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_DOTNORM2, x, y, 0, NULL};
      AIJHybridVecReduceBlock(&r, 0, n, out);
      for (PetscInt i = 0; i < n; i++) t[i] = x[i] * PetscConj(y[i]);
      CHECK(out[0] == LaneRef(n, t), "dotnorm2 dot n=%d", (int)n);
    }
    {
      AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_SUM, x, NULL, 0, NULL};
      AIJHybridVecReduceBlock(&r, 0, n, out);
      CHECK(out[0] == LaneRef(n, x), "sum n=%d", (int)n);
    }
  }
}

/* the map of args over [0, n) in random pieces */
static void MapPieces(const AIJHybridVecMapArgs *m, PetscInt n)
{
  PetscInt s = 0;
  while (s < n) {
    PetscInt e = s + (PetscInt)(Uniform() * 300);
    if (e > n) e = n;
    AIJHybridVecMapRange(m, s, e);
    s = e;
  }
}

static void TestMaps(void)
{
  static PetscScalar x[NMAX], y[NMAX], w[NMAX], w0[NMAX], ref[NMAX], v[NMAX], v0[NMAX], xs[9][NMAX];
  const PetscInt     n = 3001;
  const PetscScalar  a = RandScalar(), b = RandScalar(), c = RandScalar();
  const PetscScalar *xp[9];
  PetscScalar        alpha[9];

  rng_state = 11;
  Fill(x, n);
  Fill(y, n);
  Fill(w0, n);
  Fill(v0, n);
  for (PetscInt i = 0; i < n; i += 97) {
    y[i]  = 0.0; /* divisions by zero */
    w0[i] = 0.0; /* reciprocals of zero */
  }
  x[0] = 0.0; /* 0/0 */
  for (int op = AIJHYBRID_VEC_SET; op <= AIJHYBRID_VEC_CONJUGATE; op++) {
    AIJHybridVecMapArgs m = {(AIJHybridVecMapOp)op, a, b, c, x, y, w, v, 0, NULL, NULL};
    if (op == AIJHYBRID_VEC_MAXPY || op == AIJHYBRID_VEC_MAXPBY || op == AIJHYBRID_VEC_MAXPBY_ZERO) continue; /* below */
    memcpy(w, w0, sizeof(PetscScalar) * n);
    memcpy(v, v0, sizeof(PetscScalar) * n);
    MapPieces(&m, n);
    for (PetscInt i = 0; i < n; i++) {
      const PetscScalar wi = w0[i], xi = x[i], yi = y[i];
      switch (op) {
      case AIJHYBRID_VEC_SET:
        ref[i] = a;
        break;
      case AIJHYBRID_VEC_SCALE:
        ref[i] = AIJHybridMulBLAS(a, wi);
        break;
      case AIJHYBRID_VEC_COPY:
        ref[i] = xi;
        break;
      case AIJHYBRID_VEC_SWAP:
        ref[i] = v0[i];
        break;
      case AIJHYBRID_VEC_AXPY:
        ref[i] = wi + AIJHybridMulBLAS(a, xi);
        break;
      case AIJHYBRID_VEC_AYPX:
        ref[i] = xi + a * wi;
        break;
      case AIJHYBRID_VEC_AYPX_MINUS:
        ref[i] = xi - wi;
        break;
      case AIJHYBRID_VEC_AXPBY:
        ref[i] = a * xi + b * wi;
        break;
      case AIJHYBRID_VEC_AX:
        ref[i] = a * xi;
        break;
      case AIJHYBRID_VEC_AXPBYPCZ:
        ref[i] = a * xi + b * yi + c * wi;
        break;
      case AIJHYBRID_VEC_AXPBYPCZ_A1:
        ref[i] = xi + b * yi + c * wi;
        break;
      case AIJHYBRID_VEC_AXPBYPCZ_C1:
        ref[i] = a * xi + b * yi + wi;
        break;
      case AIJHYBRID_VEC_AXPBYPCZ_NOZ:
        ref[i] = a * xi + b * yi;
        break;
      case AIJHYBRID_VEC_WAXPY:
        ref[i] = yi + a * xi;
        break;
      case AIJHYBRID_VEC_WAXPY_PLUS:
        ref[i] = yi + xi;
        break;
      case AIJHYBRID_VEC_WAXPY_MINUS:
        ref[i] = yi - xi;
        break;
      case AIJHYBRID_VEC_SHIFT:
        ref[i] = wi + a;
        break;
      case AIJHYBRID_VEC_POINTWISE_MULT:
        ref[i] = xi * yi;
        break;
      case AIJHYBRID_VEC_POINTWISE_DIV:
#if PETSC_VERSION_LT(3, 26, 0)
        ref[i] = yi != (PetscScalar)0.0 ? xi / yi : 0.0;
#else
        ref[i] = yi == (PetscScalar)0.0 ? (xi == (PetscScalar)0.0 ? 1.0 : 0.0) : xi / yi;
#endif
        break;
      case AIJHYBRID_VEC_POINTWISE_MAX:
        ref[i] = PetscMax(PetscRealPart(xi), PetscRealPart(yi));
        break;
      case AIJHYBRID_VEC_POINTWISE_MIN:
        ref[i] = PetscMin(PetscRealPart(xi), PetscRealPart(yi));
        break;
      case AIJHYBRID_VEC_POINTWISE_MAXABS:
        ref[i] = PetscMax(PetscAbsScalar(xi), PetscAbsScalar(yi));
        break;
      case AIJHYBRID_VEC_RECIPROCAL:
        ref[i] = wi != (PetscScalar)0.0 ? 1.0 / wi : 0.0;
        break;
      case AIJHYBRID_VEC_ABS:
        ref[i] = PetscAbsScalar(wi);
        break;
      case AIJHYBRID_VEC_CONJUGATE:
        ref[i] = PetscConj(wi);
        break;
      }
    }
    CHECK(Same(w, ref, n), "map %d differs from its formula", op);
    if (op == AIJHYBRID_VEC_SWAP) CHECK(Same(v, w0, n), "swap: the second vector");
  }
  /* maxpy/maxpby: PETSc's VecMAXPY_Seq order */
  for (PetscInt nv = 1; nv <= 9; nv++) {
    for (PetscInt j = 0; j < nv; j++) {
      Fill(xs[j], n);
      xp[j]    = xs[j];
      alpha[j] = RandScalar();
    }
    for (int op = AIJHYBRID_VEC_MAXPY; op <= AIJHYBRID_VEC_MAXPBY_ZERO; op++) {
      AIJHybridVecMapArgs m = {(AIJHybridVecMapOp)op, 0, b, 0, NULL, NULL, w, NULL, nv, alpha, xp};
      memcpy(w, w0, sizeof(PetscScalar) * n);
      MapPieces(&m, n);
      for (PetscInt i = 0; i < n; i++) {
        PetscScalar    r = op == AIJHYBRID_VEC_MAXPY ? w0[i] : op == AIJHYBRID_VEC_MAXPBY ? AIJHybridMulBLAS(b, w0[i]) : 0.0;
        const PetscInt q = nv & 3;
        if (q == 3) r += alpha[0] * xs[0][i] + alpha[1] * xs[1][i] + alpha[2] * xs[2][i];
        if (q == 2) r += alpha[0] * xs[0][i] + alpha[1] * xs[1][i];
        if (q == 1) r += alpha[0] * xs[0][i];
        for (PetscInt j = q; j < nv; j += 4) r += alpha[j] * xs[j][i] + alpha[j + 1] * xs[j + 1][i] + alpha[j + 2] * xs[j + 2][i] + alpha[j + 3] * xs[j + 3][i];
        ref[i] = r;
      }
      CHECK(Same(w, ref, n), "maxpy op %d with %d vectors differs from VecMAXPY_Seq's order", op, (int)nv);
    }
    /* w among the xs (PETSc allows it): each term reads w as it is before its group is added */
    for (PetscInt k = 0; k < nv; k += PetscMax(1, nv - 1)) {
      for (int op = AIJHYBRID_VEC_MAXPY; op <= AIJHYBRID_VEC_MAXPBY_ZERO; op++) {
        AIJHybridVecMapArgs m = {(AIJHybridVecMapOp)op, 0, b, 0, NULL, NULL, w, NULL, nv, alpha, xp};
        const PetscInt      q = nv & 3;

        xp[k] = w;
        memcpy(w, w0, sizeof(PetscScalar) * n);
        MapPieces(&m, n);
        for (PetscInt i = 0; i < n; i++) {
          PetscScalar cur = op == AIJHYBRID_VEC_MAXPY ? w0[i] : op == AIJHYBRID_VEC_MAXPBY ? AIJHybridMulBLAS(b, w0[i]) : 0.0, xv[9];

          for (PetscInt j = 0; j < nv; j++) xv[j] = xs[j][i];
          if (q) {
            xv[k] = cur;
            cur += q == 3 ? alpha[0] * xv[0] + alpha[1] * xv[1] + alpha[2] * xv[2] : q == 2 ? alpha[0] * xv[0] + alpha[1] * xv[1] : alpha[0] * xv[0];
          }
          for (PetscInt j = q; j < nv; j += 4) {
            xv[k] = cur;
            cur += alpha[j] * xv[j] + alpha[j + 1] * xv[j + 1] + alpha[j + 2] * xv[j + 2] + alpha[j + 3] * xv[j + 3];
          }
          ref[i] = cur;
        }
        CHECK(Same(w, ref, n), "maxpy op %d with %d vectors, w the vector %d, differs from VecMAXPY_Seq's order", op, (int)nv, (int)k);
        xp[k] = xs[k];
      }
    }
  }
}

/* PETSc's loops: VecMax_Seq / VecMin_Seq (start from x[0], strict comparison) and NORM_INFINITY */
static void RefExtreme(AIJHybridVecExtremeOp op, const PetscScalar *x, PetscInt n, PetscReal *v, PetscInt *k)
{
  if (op == AIJHYBRID_VEC_NORMINF) {
    PetscReal max = 0.0;
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal t = PetscAbsScalar(x[i]);
      if (t > max) max = t;
      if (t != t) {
        max = t;
        break;
      }
    }
    *v = max;
    *k = -1;
    return;
  }
  *v = PetscRealPart(x[0]);
  *k = 0;
  for (PetscInt i = 1; i < n; i++) {
    const PetscReal t = PetscRealPart(x[i]);
    if (op == AIJHYBRID_VEC_MAX ? t > *v : t < *v) {
      *v = t;
      *k = i;
    }
  }
}

static PetscBool SameReal(PetscReal a, PetscReal b)
{
  return (PetscBool)((a != a && b != b) || a == b);
}

static void TestExtremes(void)
{
  static PetscScalar x[NMAX];
  const PetscInt     n = 2000;

  rng_state = 13;
  for (int trial = 0; trial < 400; trial++) {
    const int nan_at = trial % 5 == 0 ? 0 : trial % 5 == 1 ? -1 : (int)(Uniform() * n);
    Fill(x, n);
    for (PetscInt i = 0; i < n; i++) /* ties */
      if (Uniform() < 0.05) x[i] = 0.5;
    if (trial % 3 == 0) x[(PetscInt)(Uniform() * n)] = PETSC_INFINITY;
    if (nan_at >= 0) x[nan_at] = (PetscReal)NAN;
    for (int op = AIJHYBRID_VEC_NORMINF; op <= AIJHYBRID_VEC_MIN; op++) {
      PetscReal v = 0.0, rv, pv;
      PetscInt  k = -1, rk, pk, s = 0;
      RefExtreme((AIJHybridVecExtremeOp)op, x, n, &rv, &rk);
      if (op != AIJHYBRID_VEC_NORMINF && PetscIsNanReal(PetscRealPart(x[0]))) {
        v = PetscRealPart(x[0]); /* the callers' rule (src/vec/vecops.c) */
        k = 0;
      } else {
        while (s < n) { /* random pieces, some empty */
          PetscInt e = s + (PetscInt)(Uniform() * 500);
          if (e > n) e = n;
          AIJHybridVecExtremeRange((AIJHybridVecExtremeOp)op, x, s, e, &pv, &pk);
          AIJHybridVecExtremeCombine((AIJHybridVecExtremeOp)op, &v, &k, pv, pk);
          s = e;
        }
      }
      CHECK(SameReal(v, rv), "extreme %d trial %d: %g, PETSc's loop %g", op, trial, (double)v, (double)rv);
      if (op != AIJHYBRID_VEC_NORMINF) CHECK(k == rk, "extreme %d trial %d: index %d, PETSc's loop %d", op, trial, (int)k, (int)rk);
    }
  }
}

/* the sums of a run of blocks (AIJHybridVecReduceBlocks(): vector group by vector group) equal, bit
   for bit, the sums of each block alone (AIJHybridVecReduceBlock()), for every operation, vector
   counts around the groups of four, and runs that end inside a block */
static void TestBlockRuns(void)
{
  enum {
    NB = 5,
    NV = 9
  };
  static PetscScalar         x[NB * AIJHYBRID_VEC_BLOCK], y[NB * AIJHYBRID_VEC_BLOCK], yv[NV][NB * AIJHYBRID_VEC_BLOCK];
  const PetscScalar         *ys[NV];
  PetscScalar                run[NB * NV], one[NV];
  const PetscInt             ends[] = {1, 8, AIJHYBRID_VEC_BLOCK, AIJHYBRID_VEC_BLOCK + 3, 3 * AIJHYBRID_VEC_BLOCK - 1, NB * AIJHYBRID_VEC_BLOCK};
  const AIJHybridVecReduceOp ops[]  = {AIJHYBRID_VEC_DOT, AIJHYBRID_VEC_TDOT, AIJHYBRID_VEC_MDOT, AIJHYBRID_VEC_MTDOT, AIJHYBRID_VEC_NORM1, AIJHYBRID_VEC_SUMSQ, AIJHYBRID_VEC_NORM1SQ, AIJHYBRID_VEC_DOTNORM2, AIJHYBRID_VEC_SUM};

  rng_state = 11;
  Fill(x, NB * AIJHYBRID_VEC_BLOCK);
  Fill(y, NB * AIJHYBRID_VEC_BLOCK);
  for (PetscInt j = 0; j < NV; j++) {
    Fill(yv[j], NB * AIJHYBRID_VEC_BLOCK);
    ys[j] = yv[j];
  }
  for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
    for (PetscInt nv = 1; nv <= NV; nv++) {
      const PetscBool        multi = (PetscBool)(ops[o] == AIJHYBRID_VEC_MDOT || ops[o] == AIJHYBRID_VEC_MTDOT);
      AIJHybridVecReduceArgs r     = {ops[o], x, y, multi ? nv : 0, multi ? ys : NULL};
      const PetscInt         nout  = AIJHybridVecReduceCount(&r);

      if (!multi && nv > 1) break;
      for (size_t c = 0; c < sizeof(ends) / sizeof(ends[0]); c++)
        for (PetscInt s = 0; s < ends[c]; s += AIJHYBRID_VEC_BLOCK) { /* a run from every block start before the end */
          const PetscInt e    = ends[c];
          PetscBool      same = PETSC_TRUE;

          AIJHybridVecReduceBlocks(&r, s, e, nout, run);
          for (PetscInt bs = s, k = 0; bs < e; bs += AIJHYBRID_VEC_BLOCK, k++) {
            AIJHybridVecReduceBlock(&r, bs, PetscMin(e, bs + AIJHYBRID_VEC_BLOCK), one);
            for (PetscInt j = 0; j < nout; j++) same = (PetscBool)(same && run[k * nout + j] == one[j]);
          }
          CHECK(same, "op %d, %d vectors, blocks from %d to %d: a run's sums differ from the blocks' own", (int)ops[o], (int)nv, (int)s, (int)e);
        }
    }
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  TestSums();
  TestBlockRuns();
  TestMaps();
  TestExtremes();
  printf("vector kernels: %d checks passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
