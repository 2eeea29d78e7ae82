/*
   Unit tests of the SOR kernels (src/kernels/sor.h), one process, no PETSc objects.

   Random matrices (sorted columns, some rows without a diagonal entry elsewhere than in the
   block, empty off-block parts, an off-process part) are cut into 1 to 5 row blocks; each
   kernel on each block is compared bitwise with a plain reference written from the definition:
     - positions: lo/hi enclose exactly the entries whose columns lie in the block, dg the diagonal;
     - the right-hand side b - (off-block part) x, and Eisenstat's b + s a_ii x_i + (off-block part) x,
       entries taken in stored order, then the off-process ones;
     - apply upper: b_i a_ii / omega + sum of the block's upper entries times b;
     - the sweeps: forward, backward, symmetric, with and without zero initial guess, 1 to 3
       iterations, omega 1 and 1.3, against a reference that first copies the block into a matrix of
       its own (local indices) and sweeps that one as MatSOR_SeqAIJ does.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "kernels/sor.h"
#include "unitcheck.h"
#include <string.h>

typedef struct {
  PetscInt     m, ng;
  PetscInt    *ai, *aj, *oi, *oj;
  PetscScalar *aa, *oa;
} Matrix;

static void MakeMatrix(PetscInt m, PetscInt ng, Matrix *A)
{
  char *mark;

  A->m  = m;
  A->ng = ng;
  PetscCallVoid(PetscCalloc1(m + ng + 1, &mark));
  PetscCallVoid(PetscMalloc4(m + 1, &A->ai, 10 * m + 1, &A->aj, m + 1, &A->oi, 4 * m + 1, &A->oj));
  PetscCallVoid(PetscMalloc2(10 * m + 1, &A->aa, 4 * m + 1, &A->oa));
  A->ai[0] = A->oi[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt k = RandInt(9), nz = A->ai[i], no = A->oi[i];

    mark[i] = 1; /* diagonal */
    for (PetscInt q = 0; q < k; q++) mark[RandInt(m)] = 1;
    for (PetscInt j = 0; j < m; j++)
      if (mark[j]) {
        A->aj[nz]   = j;
        A->aa[nz++] = j == i ? 4.0 + Uniform() : 0.5 * RandScalar();
        mark[j]     = 0;
      }
    A->ai[i + 1] = nz;
    k            = ng ? RandInt(4) : 0;
    for (PetscInt q = 0; q < k; q++) mark[RandInt(ng)] = 1;
    for (PetscInt j = 0; j < ng; j++)
      if (mark[j]) {
        A->oj[no]   = j;
        A->oa[no++] = 0.5 * RandScalar();
        mark[j]     = 0;
      }
    A->oi[i + 1] = no;
  }
  PetscCallVoid(PetscFree(mark));
}

static void FreeMatrix(Matrix *A)
{
  PetscCallVoid(PetscFree4(A->ai, A->aj, A->oi, A->oj));
  PetscCallVoid(PetscFree2(A->aa, A->oa));
}

/* reference: MatSOR_SeqAIJ's sweeps on a matrix of its own (block copied with local indices) */
static void RefSweep(PetscInt m, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const PetscInt *diag, PetscReal omega, PetscBool fwd, PetscBool bwd, PetscBool zero, PetscInt its, const PetscScalar *b, PetscScalar *x)
{
  PetscScalar       *t, *idiag;
  const PetscScalar *xb;

  PetscCallVoid(PetscMalloc2(m + 1, &t, m + 1, &idiag));
  for (PetscInt i = 0; i < m; i++) idiag[i] = omega == 1.0 ? 1.0 / aa[diag[i]] : omega / aa[diag[i]];
  if (zero) {
    if (fwd) {
      for (PetscInt i = 0; i < m; i++) {
        PetscScalar sum = b[i];
        for (PetscInt p = ai[i]; p < diag[i]; p++) sum -= aa[p] * x[aj[p]];
        t[i] = sum;
        x[i] = sum * idiag[i];
      }
      xb = t;
    } else xb = b;
    if (bwd)
      for (PetscInt i = m - 1; i >= 0; i--) {
        PetscScalar sum = xb[i];
        for (PetscInt p = diag[i] + 1; p < ai[i + 1]; p++) sum -= aa[p] * x[aj[p]];
        x[i] = xb == b ? sum * idiag[i] : (1 - omega) * x[i] + sum * idiag[i];
      }
    its--;
  }
  while (its-- > 0) {
    if (fwd) {
      for (PetscInt i = 0; i < m; i++) {
        PetscScalar sum = b[i];
        for (PetscInt p = ai[i]; p < diag[i]; p++) sum -= aa[p] * x[aj[p]];
        t[i] = sum;
        for (PetscInt p = diag[i] + 1; p < ai[i + 1]; p++) sum -= aa[p] * x[aj[p]];
        x[i] = (1. - omega) * x[i] + sum * idiag[i];
      }
      xb = t;
    } else xb = b;
    if (bwd)
      for (PetscInt i = m - 1; i >= 0; i--) {
        PetscScalar sum = xb[i];
        if (xb == b) {
          for (PetscInt p = ai[i]; p < ai[i + 1]; p++) sum -= aa[p] * x[aj[p]];
          x[i] = (1. - omega) * x[i] + (sum + aa[diag[i]] * x[i]) * idiag[i];
        } else {
          for (PetscInt p = diag[i] + 1; p < ai[i + 1]; p++) sum -= aa[p] * x[aj[p]];
          x[i] = (1. - omega) * x[i] + sum * idiag[i];
        }
      }
  }
  PetscCallVoid(PetscFree2(t, idiag));
}

/* block [rs, re) of A as a matrix of its own */
static void Extract(const Matrix *A, PetscInt rs, PetscInt re, PetscInt *bi, PetscInt *bj, PetscScalar *ba, PetscInt *bd)
{
  PetscInt nz = 0;

  bi[0] = 0;
  for (PetscInt i = rs; i < re; i++) {
    bd[i - rs] = -1;
    for (PetscInt p = A->ai[i]; p < A->ai[i + 1]; p++)
      if (A->aj[p] >= rs && A->aj[p] < re) {
        if (A->aj[p] == i) bd[i - rs] = nz;
        bj[nz]   = A->aj[p] - rs;
        ba[nz++] = A->aa[p];
      }
    bi[i - rs + 1] = nz;
  }
}

static void TestBlocks(void)
{
  for (PetscInt trial = 0; trial < 40; trial++) {
    const PetscInt m = 1 + RandInt(120), ng = trial % 3 ? RandInt(20) : 0, T = 1 + RandInt(5);
    Matrix         A;
    PetscInt      *bounds, *lo, *dg, *hi, *bi, *bj, *bd, bad = 0;
    PetscScalar   *b, *x, *g, *bl, *ref, *ba, *t, *mdiag, *idiag, *xr, *xk;

    rng_state = 31 + (unsigned long long)trial;
    MakeMatrix(m, ng, &A);
    PetscCallVoid(PetscMalloc4(T + 1, &bounds, m, &lo, m, &dg, m, &hi));
    PetscCallVoid(PetscMalloc3(m + 1, &bi, A.ai[m] + 1, &bj, m, &bd));
    PetscCallVoid(PetscMalloc5(m, &b, m, &x, ng + 1, &g, m, &bl, m, &ref));
    PetscCallVoid(PetscMalloc5(A.ai[m] + 1, &ba, m, &t, m, &mdiag, m, &idiag, m, &xr));
    PetscCallVoid(PetscMalloc1(m, &xk));
    bounds[0] = 0;
    for (PetscInt q = 1; q < T; q++) {
      const PetscInt r = RandInt(m + 1);
      bounds[q]        = PetscMax(bounds[q - 1], r);
    }
    bounds[T] = m;
    for (PetscInt q = 1; q < T; q++)
      if (bounds[q] < bounds[q - 1]) bounds[q] = bounds[q - 1];
    for (PetscInt i = 0; i < m; i++) b[i] = RandScalar(), x[i] = RandScalar();
    for (PetscInt j = 0; j < ng; j++) g[j] = RandScalar();
    for (PetscInt q = 0; q < T; q++) AIJHybridSORPositions(bounds[q], bounds[q + 1], A.ai, A.aj, lo, dg, hi);
    for (PetscInt q = 0; q < T; q++)
      for (PetscInt i = bounds[q]; i < bounds[q + 1]; i++) {
        for (PetscInt p = A.ai[i]; p < A.ai[i + 1]; p++) {
          const PetscBool in = (PetscBool)(A.aj[p] >= bounds[q] && A.aj[p] < bounds[q + 1]);
          if (in != (PetscBool)(p >= lo[i] && p < hi[i])) bad++;
          if ((A.aj[p] == i) != (p == dg[i])) bad++;
        }
      }
    CHECK(!bad, "positions wrong: trial %d", (int)trial);
    for (PetscInt i = 0; i < m; i++) {
      mdiag[i] = A.aa[dg[i]];
      idiag[i] = 1.0 / mdiag[i];
    }
    for (PetscInt e = 0; e < 2; e++) { /* right-hand sides against the definition */
      const PetscScalar scale = -0.4;

      for (PetscInt q = 0; q < T; q++) AIJHybridSORRhs(bounds[q], bounds[q + 1], A.ai, A.aj, A.aa, lo, hi, ng ? A.oi : NULL, A.oj, A.oa, g, b, x, (PetscBool)e, scale, mdiag, bl);
      for (PetscInt q = 0; q < T; q++)
        for (PetscInt i = bounds[q]; i < bounds[q + 1]; i++) {
          PetscScalar s = b[i];
          if (e) s += scale * (mdiag[i] * x[i]);
          for (PetscInt p = A.ai[i]; p < A.ai[i + 1]; p++)
            if (A.aj[p] < bounds[q] || A.aj[p] >= bounds[q + 1]) s = e ? s + A.aa[p] * x[A.aj[p]] : s - A.aa[p] * x[A.aj[p]];
          for (PetscInt p = A.oi[i]; ng && p < A.oi[i + 1]; p++) s = e ? s + A.oa[p] * g[A.oj[p]] : s - A.oa[p] * g[A.oj[p]];
          ref[i] = s;
        }
      CHECK(Same(bl, ref, m), "%s right-hand side differs: trial %d", e ? "Eisenstat" : "local", (int)trial);
    }
    for (PetscInt q = 0; q < T; q++) { /* apply upper */
      const PetscReal omega = 1.3;
      AIJHybridSORApplyUpper(bounds[q], bounds[q + 1], A.aj, A.aa, dg, hi, mdiag, omega, 0.0, b, xk);
      for (PetscInt i = bounds[q]; i < bounds[q + 1]; i++) {
        PetscScalar s = b[i] * mdiag[i] / omega;
        for (PetscInt p = dg[i] + 1; p < A.ai[i + 1]; p++)
          if (A.aj[p] < bounds[q + 1]) s += A.aa[p] * b[A.aj[p]];
        ref[i] = s;
      }
    }
    CHECK(Same(xk, ref, m), "apply upper differs: trial %d", (int)trial);
    /* the sweeps */
    for (PetscInt kind = 1; kind < 4; kind++)
      for (PetscInt zero = 0; zero < 2; zero++)
        for (PetscInt its = 1; its <= 3; its++)
          for (PetscInt w = 0; w < 2; w++) {
            const PetscReal omega = w ? 1.3 : 1.0;
            const PetscBool fwd = (PetscBool)(kind & 1), bwd = (PetscBool)(kind & 2);

            for (PetscInt i = 0; i < m; i++) idiag[i] = omega == 1.0 ? 1.0 / mdiag[i] : omega / mdiag[i];
            for (PetscInt i = 0; i < m; i++) xk[i] = xr[i] = zero ? NAN : x[i];
            for (PetscInt q = 0; q < T; q++) {
              const PetscInt rs = bounds[q], re = bounds[q + 1];

              AIJHybridSORSweep(rs, re, A.aj, A.aa, lo, dg, hi, idiag, mdiag, omega, fwd, bwd, (PetscBool)zero, its, b, xk, t);
              Extract(&A, rs, re, bi, bj, ba, bd);
              if (zero)
                for (PetscInt i = rs; i < re; i++) xr[i] = 0.0; /* the reference reads no old value either (NAN * 0 would stay NAN) */
              RefSweep(re - rs, bi, bj, ba, bd, omega, fwd, bwd, (PetscBool)zero, its, b + rs, xr + rs);
            }
            CHECK(Same(xk, xr, m), "sweep differs: trial %d kind %d zero %d its %d omega %g T %d", (int)trial, (int)kind, (int)zero, (int)its, (double)omega, (int)T);
          }
    PetscCallVoid(PetscFree(xk));
    PetscCallVoid(PetscFree5(ba, t, mdiag, idiag, xr));
    PetscCallVoid(PetscFree5(b, x, g, bl, ref));
    PetscCallVoid(PetscFree3(bi, bj, bd));
    PetscCallVoid(PetscFree4(bounds, lo, dg, hi));
    FreeMatrix(&A);
  }
}

int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  TestBlocks();
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
