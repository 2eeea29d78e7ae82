/*
   Every operation of the hybrid vectors against PETSc's standard vectors (VECSEQ on one rank, VECMPI
   otherwise) on the same values, at the rank count it is launched with, for 1, 2 and 3 threads, the
   operations threaded (threshold 0) and at the default threshold, local lengths 0, 1, 7, 100, 3000
   and 50001 (one rank owning nothing too), with and without NaN and Inf among the values:
   - entry-wise operations (AXPY and its kin with coefficients 0, 1, -1 and others, MAXPY/MAXPBY with
     1 to 7 vectors, scale, set, copy, swap, shift, the pointwise operations with zeros in the divisor,
     reciprocal, abs, conjugate): local arrays bitwise equal to the standard vectors';
   - sums (dot, tdot, mdot, mtdot, the norms, dotnorm2, sum, and their split Begin/End forms): bitwise
     equal for every thread count and threshold, and within 1e-14 of the standard vectors (relative
     to the sum of the magnitudes of the terms), NaN where theirs is NaN;
   - max/min: the same value and index;
   - the same errors for aliased arguments (VecAXPY(x, a, x), VecWAXPY(w, a, x, w), VecMAXPY with y
     among the x, ...) and the same flop counts (PetscGetFlops()) as the standard vectors;
   - VecDuplicate()/VecDuplicateVecs() keep the type and the settings, and a copy's settings are its own.
   Prints one line per failure and a summary; exits 1 on any failure.
*/
#include <petscaijhybrid.h>
#include <math.h>
#include "unitcheck.h"

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif

#define NV 7 /* vectors of mdot / maxpy */

typedef struct {
  PetscInt    n;         /* local length */
  PetscBool   special;   /* NaN and Inf among the values */
  PetscInt    T;         /* threads */
  PetscInt    threshold; /* -1: default */
  const char *name;
} Config;

static PetscMPIInt rank, size;
static char        where[256];

/* the local values of vector k of a configuration: the same for the standard and the hybrid vectors */
static void Values(PetscInt k, PetscInt n, PetscBool special, PetscScalar *a)
{
  rng_state = 1000003ULL * (unsigned long long)(k + 1) + 7919ULL * (unsigned long long)rank + (unsigned long long)n;
  for (PetscInt i = 0; i < n; i++) {
#if defined(PETSC_USE_COMPLEX)
    a[i] = PetscCMPLX(2.0 * Uniform() - 1.0, 2.0 * Uniform() - 1.0);
#else
    a[i] = 2.0 * Uniform() - 1.0;
#endif
    if (Uniform() < 0.02) a[i] = 0.0;  /* zeros: divisions, reciprocals */
    if (Uniform() < 0.02) a[i] = 0.25; /* ties of max/min */
  }
  if (special && n > 2) {
    if (k == 0 && rank == 0) a[0] = NAN;
    if (k == 1) a[n / 2] = INFINITY;
    if (k == 2) a[n - 1] = NAN;
#if defined(PETSC_USE_COMPLEX)
    if (k == 3) a[1] = PetscCMPLX(-INFINITY, NAN); /* a product with it: NaN by BLAS's formula, where C's recovers an infinity */
#endif
  }
}

static PetscErrorCode SetValues(Vec v, PetscInt k, PetscBool special)
{
  PetscScalar *a;
  PetscInt     n, lock;

  PetscFunctionBegin;
  /* a call that failed on purpose (aliased arguments) may have left its read lock (PETSc >= 3.19 keeps
     the locks in optimized builds too, and its interfaces return on error without popping them) */
  PetscCall(VecLockGet(v, &lock));
  for (; lock > 0; lock--) PetscCall(VecLockReadPop(v));
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArray(v, &a));
  Values(k, n, special, a);
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a check on this rank (the collective results are the same on every rank; the local arrays are this rank's) */
#define GCHECK(ok, ...) \
  do { \
    if (ok) npass++; \
    else { \
      nfail++; \
      if (nfail < 40) { \
        printf("FAIL [rank %d, %s] ", (int)rank, where); \
        printf(__VA_ARGS__); \
        printf("\n"); \
      } \
    } \
  } while (0)

static PetscBool SameArrays(Vec a, Vec b)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscBool          same;

  VecGetLocalSize(a, &n);
  VecGetArrayRead(a, &x);
  VecGetArrayRead(b, &y);
  same = (PetscBool)(n == 0 || !memcmp(x, y, sizeof(PetscScalar) * (size_t)n));
  VecRestoreArrayRead(a, &x);
  VecRestoreArrayRead(b, &y);
  return same;
}

static PetscBool SameBits(const void *a, const void *b, size_t bytes)
{
  return (PetscBool)!memcmp(a, b, bytes);
}

/* one part (real or imaginary) of a sum against the standard vectors': both NaN, the same infinity, or finite and within 1e-14 scale */
static PetscBool ClosePart(PetscReal a, PetscReal b, PetscReal scale)
{
  if (a == b) return PETSC_TRUE;
  if (PetscIsNanReal(a) || PetscIsNanReal(b)) return (PetscBool)(PetscIsNanReal(a) && PetscIsNanReal(b));
  if (PetscIsInfOrNanReal(a) || PetscIsInfOrNanReal(b)) return (PetscBool)(a == b);
  return (PetscBool)(PetscAbsReal(a - b) <= 1e-14 * scale);
}

/* a sum against the standard vectors', part by part */
static PetscBool Close(PetscScalar a, PetscScalar b, PetscReal scale)
{
  return (PetscBool)(ClosePart(PetscRealPart(a), PetscRealPart(b), scale) && ClosePart(PetscImaginaryPart(a), PetscImaginaryPart(b), scale));
}

/* the vectors of one configuration: four of each kind (x, y, z, w) and NV for mdot/maxpy */
typedef struct {
  Vec s[4], h[4], sv[NV], hv[NV];
  Vec m[4]; /* standard vectors that a hybrid one operates with (mixed types) */
} TestVecs;

static PetscErrorCode MakeVec(PetscInt n, PetscBool hybrid, const Config *c, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(VecCreate(PETSC_COMM_WORLD, v));
  PetscCall(VecSetSizes(*v, n, PETSC_DETERMINE));
  PetscCall(VecSetType(*v, hybrid ? VECHYBRID : VECSTANDARD));
  if (hybrid) {
    PetscCall(VecHybridSetNumThreads(*v, c->T));
    PetscCall(VecHybridSetThreshold(*v, c->threshold));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Reset(TestVecs *V, const Config *c)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < 4; k++) {
    PetscCall(SetValues(V->s[k], k, c->special));
    PetscCall(SetValues(V->h[k], k, c->special));
    PetscCall(SetValues(V->m[k], k, c->special));
  }
  for (PetscInt k = 0; k < NV; k++) {
    PetscCall(SetValues(V->sv[k], 10 + k, c->special));
    PetscCall(SetValues(V->hv[k], 10 + k, c->special));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sum of the magnitudes of the local terms x_i y_i over the ranks: the scale of a dot product's rounding */
static PetscReal DotScale(Vec x, Vec y)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscReal          s = 0, g;

  VecGetLocalSize(x, &n);
  VecGetArrayRead(x, &a);
  VecGetArrayRead(y, &b);
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal t = PetscAbsScalar(a[i]) * PetscAbsScalar(b[i]);
    if (!PetscIsInfOrNanReal(t)) s += t; /* the finite terms: a part of the result that is finite is compared with them */
  }
  VecRestoreArrayRead(x, &a);
  VecRestoreArrayRead(y, &b);
  (void)MPI_Allreduce(&s, &g, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD);
  return g + 1e-300;
}

/*
  An entry-wise operation on the standard and the hybrid vectors from the same values: the same
  error (or none), the same flops, bitwise the same values of all four vectors afterwards
*/
#define ENTRYWISE(desc, call_s, call_h) \
  do { \
    PetscLogDouble f0, f1, f2; \
    PetscErrorCode es, eh; \
    PetscCall(Reset(&V, c)); \
    PetscCall(PetscGetFlops(&f0)); \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    es = (call_s); \
    PetscCall(PetscGetFlops(&f1)); \
    eh = (call_h); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCall(PetscGetFlops(&f2)); \
    GCHECK((es != 0) == (eh != 0), "%s: error %d with the standard vectors, %d with the hybrid ones", desc, (int)es, (int)eh); \
    GCHECK(f1 - f0 == f2 - f1, "%s: %g flops with the standard vectors, %g with the hybrid ones", desc, (double)(f1 - f0), (double)(f2 - f1)); \
    for (PetscInt k_ = 0; k_ < 4; k_++) GCHECK(SameArrays(V.s[k_], V.h[k_]), "%s: vector %d differs from the standard vectors'", desc, (int)k_); \
    for (PetscInt k_ = 0; k_ < NV; k_++) GCHECK(SameArrays(V.sv[k_], V.hv[k_]), "%s: vector list %d differs", desc, (int)k_); \
  } while (0)

/*
  An operation of a hybrid vector (h[d]) with standard vectors (m[k], k != d) as its other
  arguments against the same operation on standard vectors only: the same values everywhere
*/
#define MIXED(desc, d, call_s, call_m) \
  do { \
    PetscErrorCode es, em; \
    PetscCall(Reset(&V, c)); \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    es = (call_s); \
    em = (call_m); \
    PetscCall(PetscPopErrorHandler()); \
    GCHECK(!es && !em, "%s (mixed types): errors %d and %d", desc, (int)es, (int)em); \
    for (PetscInt k_ = 0; k_ < 4; k_++) GCHECK(SameArrays(V.s[k_], k_ == (d) ? V.h[k_] : V.m[k_]), "%s (mixed types): vector %d differs", desc, (int)k_); \
  } while (0)

/* results of the sums of one configuration, to compare across thread counts and thresholds */
#define NSUMS 64
typedef struct {
  PetscScalar v[NSUMS];
  PetscInt    n;
} Sums;

static PetscErrorCode Record(Sums *s, PetscScalar v)
{
  PetscFunctionBegin;
  PetscCheck(s->n < NSUMS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "too many sums");
  s->v[s->n++] = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckSums(TestVecs *Vp, const Config *c, Sums *sums)
{
  TestVecs       V = *Vp;
  Vec           *s = V.s, *h = V.h;
  PetscScalar    a, b, ma[NV], mb[NV];
  PetscReal      ra[2], rb[2];
  PetscInt       ia, ib;
  PetscLogDouble f0, f1, f2;

  PetscFunctionBegin;
  sums->n = 0;
  PetscCall(Reset(&V, c));
  /* dot, tdot */
  PetscCall(PetscGetFlops(&f0));
  PetscCall(VecDot(s[0], s[1], &a));
  PetscCall(PetscGetFlops(&f1));
  PetscCall(VecDot(h[0], h[1], &b));
  PetscCall(PetscGetFlops(&f2));
  GCHECK(Close(a, b, DotScale(s[0], s[1])), "dot: %g vs %g", (double)PetscRealPart(a), (double)PetscRealPart(b));
  GCHECK(f1 - f0 == f2 - f1, "dot flops %g vs %g", (double)(f1 - f0), (double)(f2 - f1));
  PetscCall(Record(sums, b));
  PetscCall(VecTDot(s[0], s[1], &a));
  PetscCall(VecTDot(h[0], h[1], &b));
  GCHECK(Close(a, b, DotScale(s[0], s[1])), "tdot");
  PetscCall(Record(sums, b));
  /* mdot, mtdot over 1..NV vectors */
  for (PetscInt nv = 1; nv <= NV; nv += 3) {
    PetscCall(PetscGetFlops(&f0));
    PetscCall(VecMDot(s[2], nv, V.sv, ma));
    PetscCall(PetscGetFlops(&f1));
    PetscCall(VecMDot(h[2], nv, V.hv, mb));
    PetscCall(PetscGetFlops(&f2));
    GCHECK(f1 - f0 == f2 - f1, "mdot(%d) flops %g vs %g", (int)nv, (double)(f1 - f0), (double)(f2 - f1));
    for (PetscInt j = 0; j < nv; j++) {
      GCHECK(Close(ma[j], mb[j], DotScale(s[2], V.sv[j])), "mdot(%d)[%d]", (int)nv, (int)j);
      PetscCall(Record(sums, mb[j]));
    }
    PetscCall(VecMTDot(s[2], nv, V.sv, ma));
    PetscCall(VecMTDot(h[2], nv, V.hv, mb));
    for (PetscInt j = 0; j < nv; j++) GCHECK(Close(ma[j], mb[j], DotScale(s[2], V.sv[j])), "mtdot(%d)[%d]", (int)nv, (int)j);
    PetscCall(Record(sums, mb[nv - 1]));
  }
  /* norms (the cache is cleared by the writes of Reset) */
  for (NormType t = NORM_1; t <= NORM_1_AND_2; t = (NormType)(t + 1)) {
    /* PETSc 3.19 to 3.22.3 sum the local Frobenius norms of an MPI vector without squaring them
       (fixed in 3.22.4): the reference there is the standard vector's 2-norm, the same number */
    const NormType ts = t == NORM_FROBENIUS && size > 1 && !PETSC_VERSION_LT(3, 19, 0) && PETSC_VERSION_LT(3, 22, 4) ? NORM_2 : t;

    PetscCall(Reset(&V, c));
    PetscCall(PetscGetFlops(&f0));
    PetscCall(VecNorm(s[1], ts, ra));
    PetscCall(PetscGetFlops(&f1));
    PetscCall(VecNorm(h[1], t, rb));
    PetscCall(PetscGetFlops(&f2));
    GCHECK(f1 - f0 == f2 - f1, "norm %d flops %g vs %g", (int)t, (double)(f1 - f0), (double)(f2 - f1));
    GCHECK(Close(ra[0], rb[0], t == NORM_INFINITY ? 0.0 : t == NORM_1 || t == NORM_1_AND_2 ? DotScale(s[1], s[1]) + ra[0] : ra[0] + 1e-300), "norm %d: %.17g vs %.17g", (int)t, (double)ra[0], (double)rb[0]);
    PetscCall(Record(sums, rb[0]));
    if (t == NORM_1_AND_2) {
      GCHECK(Close(ra[1], rb[1], ra[1] + 1e-300), "norm 1 and 2: the 2-norm %.17g vs %.17g", (double)ra[1], (double)rb[1]);
      PetscCall(Record(sums, rb[1]));
    }
  }
  /* the split forms */
  PetscCall(Reset(&V, c));
  PetscCall(VecNormBegin(s[3], NORM_2, ra));
  PetscCall(VecDotBegin(s[3], s[0], &a));
  PetscCall(VecMDotBegin(s[3], 3, V.sv, ma));
  PetscCall(VecNormEnd(s[3], NORM_2, ra));
  PetscCall(VecDotEnd(s[3], s[0], &a));
  PetscCall(VecMDotEnd(s[3], 3, V.sv, ma));
  PetscCall(VecNormBegin(h[3], NORM_2, rb));
  PetscCall(VecDotBegin(h[3], h[0], &b));
  PetscCall(VecMDotBegin(h[3], 3, V.hv, mb));
  PetscCall(VecNormEnd(h[3], NORM_2, rb));
  PetscCall(VecDotEnd(h[3], h[0], &b));
  PetscCall(VecMDotEnd(h[3], 3, V.hv, mb));
  GCHECK(Close(ra[0], rb[0], ra[0] + 1e-300), "VecNormBegin/End: %g vs %g", (double)ra[0], (double)rb[0]);
  GCHECK(Close(a, b, DotScale(s[3], s[0])), "VecDotBegin/End");
  for (PetscInt j = 0; j < 3; j++)
    GCHECK(Close(ma[j], mb[j], DotScale(s[3], V.sv[j])), "VecMDotBegin/End[%d]: %g%+gi vs %g%+gi", (int)j, (double)PetscRealPart(ma[j]), (double)PetscImaginaryPart(ma[j]), (double)PetscRealPart(mb[j]), (double)PetscImaginaryPart(mb[j]));
  PetscCall(Record(sums, rb[0]));
  PetscCall(Record(sums, b));
  PetscCall(Record(sums, mb[2]));
  /* dotnorm2, sum */
  {
    PetscScalar dpa, dpb;
    PetscReal   nma, nmb;
    PetscCall(PetscGetFlops(&f0));
    PetscCall(VecDotNorm2(s[0], s[1], &dpa, &nma));
    PetscCall(PetscGetFlops(&f1));
    PetscCall(VecDotNorm2(h[0], h[1], &dpb, &nmb));
    PetscCall(PetscGetFlops(&f2));
    GCHECK(f1 - f0 == f2 - f1, "dotnorm2 flops %g vs %g", (double)(f1 - f0), (double)(f2 - f1));
    GCHECK(Close(dpa, dpb, DotScale(s[0], s[1])) && Close(nma, nmb, DotScale(s[1], s[1])), "dotnorm2");
    PetscCall(Record(sums, dpb));
    PetscCall(Record(sums, nmb));
  }
  PetscCall(PetscGetFlops(&f0));
  PetscCall(VecSum(s[2], &a));
  PetscCall(PetscGetFlops(&f1));
  PetscCall(VecSum(h[2], &b));
  PetscCall(PetscGetFlops(&f2));
  GCHECK(f1 - f0 == f2 - f1, "sum flops %g vs %g", (double)(f1 - f0), (double)(f2 - f1));
  GCHECK(Close(a, b, DotScale(s[2], s[2]) + 1.0), "sum: %g vs %g", (double)PetscRealPart(a), (double)PetscRealPart(b));
  PetscCall(Record(sums, b));
  /* max, min: exact, with the index; without the index */
  for (PetscInt k = 0; k < 4; k++) {
    PetscCall(VecMax(s[k], &ia, &ra[0]));
    PetscCall(VecMax(h[k], &ib, &rb[0]));
    GCHECK(SameBits(&ra[0], &rb[0], sizeof(PetscReal)) && ia == ib, "max of vector %d: %g at %d vs %g at %d", (int)k, (double)ra[0], (int)ia, (double)rb[0], (int)ib);
    PetscCall(VecMin(s[k], &ia, &ra[0]));
    PetscCall(VecMin(h[k], &ib, &rb[0]));
    GCHECK(SameBits(&ra[0], &rb[0], sizeof(PetscReal)) && ia == ib, "min of vector %d: %g at %d vs %g at %d", (int)k, (double)ra[0], (int)ia, (double)rb[0], (int)ib);
    PetscCall(VecMax(s[k], NULL, &ra[0]));
    PetscCall(VecMax(h[k], NULL, &rb[0]));
    GCHECK(SameBits(&ra[0], &rb[0], sizeof(PetscReal)), "max without index of vector %d", (int)k);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckEntrywise(TestVecs *Vp, const Config *c)
{
  TestVecs          V = *Vp;
  Vec              *s = V.s, *h = V.h, *m = V.m;
  const PetscScalar coef[] = {0.0, 1.0, -1.0, 2.5};
  const PetscInt    ncoef  = 4;
  PetscScalar       alpha[NV];
  char              d[128];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < ncoef; i++) {
    const PetscScalar a = coef[i];
    PetscCall(PetscSNPrintf(d, sizeof(d), "axpy %g", (double)PetscRealPart(a)));
    ENTRYWISE(d, VecAXPY(s[1], a, s[0]), VecAXPY(h[1], a, h[0]));
    PetscCall(PetscSNPrintf(d, sizeof(d), "aypx %g", (double)PetscRealPart(a)));
    ENTRYWISE(d, VecAYPX(s[1], a, s[0]), VecAYPX(h[1], a, h[0]));
    PetscCall(PetscSNPrintf(d, sizeof(d), "waxpy %g", (double)PetscRealPart(a)));
    ENTRYWISE(d, VecWAXPY(s[3], a, s[0], s[1]), VecWAXPY(h[3], a, h[0], h[1]));
    PetscCall(PetscSNPrintf(d, sizeof(d), "waxpy %g x == y", (double)PetscRealPart(a)));
    ENTRYWISE(d, VecWAXPY(s[3], a, s[0], s[0]), VecWAXPY(h[3], a, h[0], h[0]));
    PetscCall(PetscSNPrintf(d, sizeof(d), "scale %g", (double)PetscRealPart(a)));
    ENTRYWISE(d, VecScale(s[0], a), VecScale(h[0], a));
    PetscCall(PetscSNPrintf(d, sizeof(d), "shift %g", (double)PetscRealPart(a)));
    ENTRYWISE(d, VecShift(s[0], a), VecShift(h[0], a));
    PetscCall(PetscSNPrintf(d, sizeof(d), "set %g", (double)PetscRealPart(a)));
    ENTRYWISE(d, VecSet(s[0], a), VecSet(h[0], a));
    for (PetscInt j = 0; j < ncoef; j++) {
      const PetscScalar b = coef[j];
      PetscCall(PetscSNPrintf(d, sizeof(d), "axpby %g %g", (double)PetscRealPart(a), (double)PetscRealPart(b)));
      ENTRYWISE(d, VecAXPBY(s[1], a, b, s[0]), VecAXPBY(h[1], a, b, h[0]));
      for (PetscInt k = 0; k < ncoef; k += 1 + (i + j) % 2) {
        const PetscScalar g = coef[k];
        PetscCall(PetscSNPrintf(d, sizeof(d), "axpbypcz %g %g %g", (double)PetscRealPart(a), (double)PetscRealPart(b), (double)PetscRealPart(g)));
        ENTRYWISE(d, VecAXPBYPCZ(s[2], a, b, g, s[0], s[1]), VecAXPBYPCZ(h[2], a, b, g, h[0], h[1]));
      }
    }
  }
  ENTRYWISE("set -0", VecSet(s[0], -0.0), VecSet(h[0], -0.0));
  /* maxpy, maxpby with 1 to NV vectors, one coefficient 0 */
  for (PetscInt nv = 1; nv <= NV; nv++) {
    for (PetscInt j = 0; j < nv; j++) alpha[j] = j == 1 ? 0.0 : 0.5 + j;
    PetscCall(PetscSNPrintf(d, sizeof(d), "maxpy %d", (int)nv));
    ENTRYWISE(d, VecMAXPY(s[1], nv, alpha, V.sv), VecMAXPY(h[1], nv, alpha, V.hv));
#if !PETSC_VERSION_LT(3, 20, 0)
    for (PetscInt i = 0; i < 3; i++) {
      PetscCall(PetscSNPrintf(d, sizeof(d), "maxpby %d %g", (int)nv, (double)PetscRealPart(coef[i])));
      ENTRYWISE(d, VecMAXPBY(s[1], nv, alpha, coef[i], V.sv), VecMAXPBY(h[1], nv, alpha, coef[i], V.hv));
    }
#endif
  }
  ENTRYWISE("copy", VecCopy(s[0], s[1]), VecCopy(h[0], h[1]));
  ENTRYWISE("swap", VecSwap(s[0], s[1]), VecSwap(h[0], h[1]));
  ENTRYWISE("pointwise mult", VecPointwiseMult(s[3], s[0], s[1]), VecPointwiseMult(h[3], h[0], h[1]));
  ENTRYWISE("pointwise mult w w w", VecPointwiseMult(s[3], s[3], s[3]), VecPointwiseMult(h[3], h[3], h[3]));
  ENTRYWISE("pointwise mult w x w", VecPointwiseMult(s[3], s[0], s[3]), VecPointwiseMult(h[3], h[0], h[3]));
  ENTRYWISE("pointwise divide", VecPointwiseDivide(s[3], s[0], s[1]), VecPointwiseDivide(h[3], h[0], h[1]));
  ENTRYWISE("pointwise divide w w x", VecPointwiseDivide(s[3], s[3], s[0]), VecPointwiseDivide(h[3], h[3], h[0]));
  ENTRYWISE("pointwise max", VecPointwiseMax(s[3], s[0], s[1]), VecPointwiseMax(h[3], h[0], h[1]));
  ENTRYWISE("pointwise min", VecPointwiseMin(s[3], s[0], s[1]), VecPointwiseMin(h[3], h[0], h[1]));
  ENTRYWISE("pointwise maxabs", VecPointwiseMaxAbs(s[3], s[0], s[1]), VecPointwiseMaxAbs(h[3], h[0], h[1]));
  ENTRYWISE("reciprocal", VecReciprocal(s[0]), VecReciprocal(h[0]));
  ENTRYWISE("abs", VecAbs(s[0]), VecAbs(h[0]));
  ENTRYWISE("conjugate", VecConjugate(s[0]), VecConjugate(h[0]));
  /* aliased arguments: what PETSc's interface does with them (an error, or another operation) */
  ENTRYWISE("axpy x x", VecAXPY(s[0], 2.0, s[0]), VecAXPY(h[0], 2.0, h[0]));
  ENTRYWISE("aypx x x", VecAYPX(s[0], 2.0, s[0]), VecAYPX(h[0], 2.0, h[0]));
  ENTRYWISE("axpby x x", VecAXPBY(s[0], 2.0, 3.0, s[0]), VecAXPBY(h[0], 2.0, 3.0, h[0]));
  ENTRYWISE("waxpy w a x w", VecWAXPY(s[3], 2.0, s[0], s[3]), VecWAXPY(h[3], 2.0, h[0], h[3]));
  ENTRYWISE("waxpy w a w y", VecWAXPY(s[3], 2.0, s[3], s[0]), VecWAXPY(h[3], 2.0, h[3], h[0]));
  {
    Vec sx[2] = {s[0], s[1]}, hx[2] = {h[0], h[1]};
    alpha[0] = 1.5;
    alpha[1] = -2.0;
    ENTRYWISE("maxpy y among x", VecMAXPY(s[1], 2, alpha, sx), VecMAXPY(h[1], 2, alpha, hx));
  }
  /* a hybrid vector's operation with standard vectors as the other arguments (PETSc dispatches on one argument) */
  MIXED("copy", 0, VecCopy(s[0], s[1]), VecCopy(h[0], m[1]));
  MIXED("swap", 0, VecSwap(s[0], s[1]), VecSwap(h[0], m[1]));
  MIXED("axpy", 1, VecAXPY(s[1], 2.5, s[0]), VecAXPY(h[1], 2.5, m[0]));
  MIXED("waxpy", 3, VecWAXPY(s[3], 2.5, s[0], s[1]), VecWAXPY(h[3], 2.5, m[0], m[1]));
  MIXED("axpbypcz", 2, VecAXPBYPCZ(s[2], 2.0, 3.0, 4.0, s[0], s[1]), VecAXPBYPCZ(h[2], 2.0, 3.0, 4.0, m[0], m[1]));
  MIXED("pointwise mult", 3, VecPointwiseMult(s[3], s[0], s[1]), VecPointwiseMult(h[3], m[0], m[1]));
  {
    PetscScalar a, b;
    PetscCall(Reset(&V, c));
    PetscCall(VecDot(s[0], s[1], &a));
    PetscCall(VecDot(h[0], m[1], &b));
    GCHECK(Close(a, b, DotScale(s[0], s[1])), "dot (mixed types)");
  }
  ENTRYWISE("axpbypcz z among x y", VecAXPBYPCZ(s[0], 1.0, 2.0, 3.0, s[0], s[1]), VecAXPBYPCZ(h[0], 1.0, 2.0, 3.0, h[0], h[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* duplicates keep the type and the settings; the settings of a copy are its own */
static PetscErrorCode CheckDuplicate(Vec h, const Config *c)
{
  Vec       d, *dv;
  PetscInt  T, th;
  PetscBool same;
  VecType   th_type, d_type;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(h, &d));
  PetscCall(VecGetType(h, &th_type));
  PetscCall(VecGetType(d, &d_type));
  PetscCall(PetscStrcmp(th_type, d_type, &same));
  GCHECK(same, "duplicate: type %s of a %s", d_type, th_type);
  PetscCall(VecHybridGetNumThreads(d, &T));
  PetscCall(VecHybridGetThreshold(d, &th));
  GCHECK(T == c->T && th == (c->threshold < 0 ? 20000 : c->threshold), "duplicate: %d threads threshold %d, not %d and %d", (int)T, (int)th, (int)c->T, (int)c->threshold);
  PetscCall(VecHybridSetNumThreads(d, c->T == 1 ? 2 : 1));
  PetscCall(VecHybridGetNumThreads(h, &T));
  GCHECK(T == c->T, "duplicate: setting the copy's threads changed the original's to %d", (int)T);
  PetscCall(VecDestroy(&d));
  PetscCall(VecDuplicateVecs(h, 3, &dv));
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(VecGetType(dv[k], &d_type));
    PetscCall(PetscStrcmp(th_type, d_type, &same));
    PetscCall(VecHybridGetNumThreads(dv[k], &T));
    GCHECK(same && T == c->T, "VecDuplicateVecs: %s with %d threads", d_type, (int)T);
  }
  PetscCall(VecDestroyVecs(3, &dv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt lengths[] = {0, 1, 7, 100, 3000, 50001};
  PetscBool      quick     = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-quick", &quick, NULL));
  for (size_t li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++) {
    for (int empty = 0; empty <= (size > 1); empty++) {
      for (int special = 0; special <= 1; special++) {
        Sums base, sums;
        for (PetscInt T = 1; T <= 3; T++) {
          for (int thr = 0; thr <= 1; thr++) {
            Config   c = {lengths[li], (PetscBool)special, T, thr ? -1 : 0, NULL};
            TestVecs V;
            PetscInt n = c.n;

            if (quick && (T == 2 || li % 2)) continue;
            if (empty && rank == size / 2) n = 0; /* one rank owns nothing */
            PetscCall(PetscSNPrintf(where, sizeof(where), "n=%d%s%s T=%d threshold=%s", (int)c.n, empty ? " (a rank owns nothing)" : "", special ? " NaN/Inf" : "", (int)T, thr ? "default" : "0"));
            for (PetscInt k = 0; k < 4; k++) {
              PetscCall(MakeVec(n, PETSC_FALSE, &c, &V.s[k]));
              PetscCall(MakeVec(n, PETSC_TRUE, &c, &V.h[k]));
              PetscCall(MakeVec(n, PETSC_FALSE, &c, &V.m[k]));
            }
            for (PetscInt k = 0; k < NV; k++) {
              PetscCall(MakeVec(n, PETSC_FALSE, &c, &V.sv[k]));
              PetscCall(MakeVec(n, PETSC_TRUE, &c, &V.hv[k]));
            }
            PetscCall(CheckSums(&V, &c, &sums));
            if (T == 1 && thr == 0) base = sums;
            else GCHECK(sums.n == base.n && SameBits(sums.v, base.v, sizeof(PetscScalar) * (size_t)sums.n), "the sums differ from those of 1 thread, threshold 0");
            PetscCall(CheckEntrywise(&V, &c));
            PetscCall(CheckDuplicate(V.h[0], &c));
            for (PetscInt k = 0; k < 4; k++) {
              PetscCall(VecDestroy(&V.s[k]));
              PetscCall(VecDestroy(&V.h[k]));
              PetscCall(VecDestroy(&V.m[k]));
            }
            for (PetscInt k = 0; k < NV; k++) {
              PetscCall(VecDestroy(&V.sv[k]));
              PetscCall(VecDestroy(&V.hv[k]));
            }
          }
        }
      }
    }
  }
  {
    int local[2] = {npass, nfail}, global[2];
    (void)MPI_Allreduce(local, global, 2, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
    npass = global[0];
    nfail = global[1];
  }
  if (!rank) printf("vec_ops: %d ranks, %d checks passed, %d failed\n", (int)size, npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
