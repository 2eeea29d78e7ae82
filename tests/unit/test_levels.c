/*
   Unit tests of the level schedules (src/factor/levels.c) and the level-scheduled triangular-solve
   kernels (src/kernels/trsv.h), one process, OpenMP threads.

   - Level schedules of random dependency patterns (forward and backward, 1 to 5 threads): every
     row once, dependencies in earlier levels, levels as few as the longest chain allows, parts
     contiguous (AIJHybridLevelsValid); a copy (AIJHybridLevelsCopy) equal; the transposed pattern lists every entry once, in the
     requested row order; a dependency on the wrong side is refused.
   - The kernels, run level by level on 1 to 4 threads exactly as src/factor/factor.c runs them
     (and on the in-place schedule of one thread block, where they walk the rows without an order),
     against serial reference solves written the way PETSc's routines loop (row by row, inode by
     inode, pushing columns for the transposed and ICC forward solves): bitwise equal. Random
     factors in PETSc's storage (ILU: L, then U rows in reverse with the inverse diagonal last;
     ICC: U rows with the inverse diagonal last), with and without inode structure, with and
     without permutations, real or complex scalars as PETSc is built.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "factor/levels.h"
#include "kernels/trsv.h"
#include "unitcheck.h"
#include <string.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

/* ----------------------------------------------------------------------- level schedules */

static void TestLevels(void)
{
  for (PetscInt trial = 0; trial < 60; trial++) {
    const PetscInt n = trial < 5 ? trial : 1 + RandInt(400), maxdeg = 1 + RandInt(8);
    PetscInt      *ptr, *ind, nz = 0;

    rng_state = 1000 + (unsigned long long)trial;
    PetscCallVoid(PetscMalloc2(n + 1, &ptr, n * (maxdeg + 1) + 1, &ind));
    for (PetscInt dir = 0; dir < 2; dir++) {
      const PetscBool forward = (PetscBool)(dir == 0);

      nz     = 0;
      ptr[0] = 0;
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt room = forward ? i : n - 1 - i, k = room ? RandInt(PetscMin(room, maxdeg) + 1) : 0;

        for (PetscInt q = 0; q < k; q++) ind[nz++] = forward ? RandInt(i) : i + 1 + RandInt(n - 1 - i); /* duplicates allowed */
        if (room && RandInt(3)) ind[nz++] = forward ? i - 1 : i + 1;                                    /* chains */
        ptr[i + 1] = nz;
      }
      for (PetscInt T = 1; T <= 5; T++)
        for (PetscInt mc = 1; mc <= 1024; mc *= 32) {
          AIJHybridLevels lv;
          PetscBool       ok;

          PetscCallVoid(AIJHybridLevelsBuild(n, ptr, ptr + 1, ind, forward, T, mc, &lv));
          PetscCallVoid(AIJHybridLevelsValid(&lv, ptr, ptr + 1, ind, forward, (PetscBool)(mc == 1), &ok));
          CHECK(ok, "level schedule invalid: trial %d n %d T %d chains %d %s", (int)trial, (int)n, (int)T, (int)mc, forward ? "forward" : "backward");
          CHECK(n || lv.nlevels == 0, "empty solve has levels");
          CHECK(mc > 1 || lv.nchains == n, "rows not their own units without chains");
          { /* a copy is the same schedule */
            AIJHybridLevels cp;

            PetscCallVoid(AIJHybridLevelsCopy(&lv, &cp));
            CHECK(cp.n == lv.n && cp.nlevels == lv.nlevels && cp.nthreads == lv.nthreads && cp.maxwidth == lv.maxwidth && cp.nchains == lv.nchains &&
                    (!n || (!memcmp(cp.order, lv.order, (size_t)n * sizeof(PetscInt)) && !memcmp(cp.lptr, lv.lptr, (size_t)(lv.nlevels + 1) * sizeof(PetscInt)) && !memcmp(cp.tb, lv.tb, (size_t)(lv.nlevels * (T + 1)) * sizeof(PetscInt)) &&
                            !memcmp(cp.need, lv.need, (size_t)(lv.nlevels * T * T) * sizeof(PetscInt)))) &&
                    (!n || cp.order != lv.order),
                  "copy of a schedule differs: trial %d T %d", (int)trial, (int)T);
            PetscCallVoid(AIJHybridLevelsDestroy(&cp));
          }
          PetscCallVoid(AIJHybridLevelsDestroy(&lv));
        }
      { /* transposed pattern: every entry once, rows ascending or descending in each column */
        for (PetscInt asc = 0; asc < 2; asc++) {
          AIJHybridCSC csc;
          PetscInt     bad = 0;

          PetscCallVoid(AIJHybridCSCBuild(n, ptr, ptr + 1, ind, (PetscBool)asc, &csc));
          for (PetscInt c = 0; c < n; c++)
            for (PetscInt q = csc.ptr[c]; q < csc.ptr[c + 1]; q++) {
              const PetscInt k = csc.row[q], p = csc.pos[q];

              if (p < ptr[k] || p >= ptr[k + 1] || ind[p] != c) bad++;
              if (q > csc.ptr[c] && (asc ? csc.row[q - 1] > k : csc.row[q - 1] < k)) bad++;
            }
          CHECK(!bad && (!n || csc.ptr[n] == nz), "CSC pattern wrong: trial %d (%d bad entries)", (int)trial, (int)bad);
          PetscCallVoid(AIJHybridCSCDestroy(&csc));
        }
      }
    }
    PetscCallVoid(PetscFree2(ptr, ind));
  }
  { /* a dependency on the wrong side of a row is refused */
    PetscInt        ptr[3] = {0, 1, 1}, ind[1] = {1};
    AIJHybridLevels lv;
    PetscErrorCode  ierr;

    PetscCallVoid(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = AIJHybridLevelsBuild(2, ptr, ptr + 1, ind, PETSC_TRUE, 1, 1, &lv);
    PetscCallVoid(PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "forward dependency on a later row accepted");
  }
}

/* ----------------------------------------------------------------------- random factors */

typedef struct {
  PetscInt     n, nz;
  PetscInt    *bi, *bj, *bdiag; /* ILU layout */
  PetscScalar *ba;
  PetscInt    *nodes, nnodes; /* inode sizes (nnodes 0: none) */
  PetscInt    *npair, *nskip;
} ILUFactor;

/* random sorted subset of [lo, hi) of at most k elements, appended to out */
static PetscInt Subset(PetscInt lo, PetscInt hi, PetscInt k, PetscInt *out, char *mark)
{
  PetscInt cnt = 0;

  if (hi <= lo) return 0;
  for (PetscInt q = 0; q < k; q++) mark[lo + RandInt(hi - lo)] = 1;
  for (PetscInt j = lo; j < hi; j++)
    if (mark[j]) {
      out[cnt++] = j;
      mark[j]    = 0;
    }
  return cnt;
}

/* an ILU factor in PETSc's layout; with inodes, rows of a node share their pattern as
   MatSeqAIJCheckInode_FactorLU requires */
static void MakeILU(PetscInt n, PetscInt k, PetscBool inode, ILUFactor *f)
{
  PetscInt **Lc, **Uc, *Ln, *Un, *tmp;
  char      *mark;

  PetscCallVoid(PetscMemzero(f, sizeof(*f)));
  f->n = n;
  PetscCallVoid(PetscCalloc1(n + 1, &mark));
  PetscCallVoid(PetscMalloc4(n, &Lc, n, &Uc, n + 1, &Ln, n + 1, &Un));
  PetscCallVoid(PetscMalloc1(n + 1, &tmp));
  PetscCallVoid(PetscMalloc3(n + 1, &f->nodes, n + 1, &f->npair, n + 1, &f->nskip));
  for (PetscInt s = 0; s < n;) {
    const PetscInt draw = inode ? 1 + RandInt(5) : 1, m = PetscMin(draw, n - s), e = s + m - 1; /* (PetscMin evaluates twice) */
    PetscInt       nl, nu;

    if (s > 0 && RandInt(2)) mark[s - 1] = 1; /* often the row before: chains */
    nl = Subset(0, s, k, tmp, mark);          /* shared L columns, below the node */
    for (PetscInt j = 0; j < m; j++) {
      PetscCallVoid(PetscMalloc1(nl + j + 1, &Lc[s + j]));
      for (PetscInt q = 0; q < nl; q++) Lc[s + j][q] = tmp[q];
      for (PetscInt q = 0; q < j; q++) Lc[s + j][nl + q] = s + q;
      Ln[s + j] = nl + j;
    }
    if (e + 1 < n && RandInt(2)) mark[e + 1] = 1;
    nu = Subset(e + 1, n, k, tmp, mark); /* shared U columns, above the node */
    for (PetscInt j = 0; j < m; j++) {
      const PetscInt ku = m - 1 - j;

      PetscCallVoid(PetscMalloc1(nu + ku + 1, &Uc[s + j]));
      for (PetscInt q = 0; q < ku; q++) Uc[s + j][q] = s + j + 1 + q;
      for (PetscInt q = 0; q < nu; q++) Uc[s + j][ku + q] = tmp[q];
      Un[s + j]       = nu + ku;
      f->npair[s + j] = nl;
      f->nskip[s + j] = ku;
    }
    if (inode) f->nodes[f->nnodes++] = m;
    s += m;
  }
  {
    PetscInt nl = 0, nu = 0, p;

    for (PetscInt i = 0; i < n; i++) {
      nl += Ln[i];
      nu += Un[i] + 1;
    }
    f->nz = nl + nu;
    PetscCallVoid(PetscMalloc4(n + 1, &f->bi, f->nz + 1, &f->bj, n + 1, &f->bdiag, f->nz + 1, &f->ba));
    f->bi[0] = 0;
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt q = 0; q < Ln[i]; q++) {
        f->bj[f->bi[i] + q] = Lc[i][q];
        f->ba[f->bi[i] + q] = 0.3 * RandScalar();
      }
      f->bi[i + 1] = f->bi[i] + Ln[i];
    }
    f->bdiag[n] = f->bi[n] - 1;
    p           = f->bi[n];
    for (PetscInt i = n - 1; i >= 0; i--) {
      for (PetscInt q = 0; q < Un[i]; q++) {
        f->bj[p]   = Uc[i][q];
        f->ba[p++] = 0.3 * RandScalar();
      }
      f->bj[p]    = i;
      f->ba[p]    = 1.0 / (1.5 + Uniform()); /* inverse diagonal */
      f->bdiag[i] = p++;
    }
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscCallVoid(PetscFree(Lc[i]));
    PetscCallVoid(PetscFree(Uc[i]));
  }
  PetscCallVoid(PetscFree4(Lc, Uc, Ln, Un));
  PetscCallVoid(PetscFree(tmp));
  PetscCallVoid(PetscFree(mark));
}

static void FreeILU(ILUFactor *f)
{
  PetscCallVoid(PetscFree4(f->bi, f->bj, f->bdiag, f->ba));
  PetscCallVoid(PetscFree3(f->nodes, f->npair, f->nskip));
}

/* ------------------------------------------------------ references: PETSc's loops, serial */

/* MatSolve_SeqAIJ */
static void RefILUSolve(const ILUFactor *f, const PetscInt *r, const PetscInt *c, const PetscScalar *b, PetscScalar *tmp, PetscScalar *x)
{
  const PetscInt n = f->n;

  for (PetscInt i = 0; i < n; i++) {
    PetscScalar sum = b[r ? r[i] : i];
    for (PetscInt p = f->bi[i]; p < f->bi[i + 1]; p++) sum -= f->ba[p] * tmp[f->bj[p]];
    tmp[i] = sum;
  }
  for (PetscInt i = n - 1; i >= 0; i--) {
    PetscScalar sum = tmp[i];
    for (PetscInt p = f->bdiag[i + 1] + 1; p < f->bdiag[i]; p++) sum -= f->ba[p] * tmp[f->bj[p]];
    x[c ? c[i] : i] = tmp[i] = sum * f->ba[f->bdiag[i]];
  }
}

/* MatSolve_SeqAIJ_Inode: all rows of a node at once (sums[]), shared columns in pairs */
static void RefILUSolveInode(const ILUFactor *f, const PetscInt *r, const PetscInt *c, const PetscScalar *b, PetscScalar *tmp, PetscScalar *x)
{
  const PetscInt *bi = f->bi, *bj = f->bj, *ad = f->bdiag;
  PetscScalar     sums[8];
  PetscInt        row = 0;

  for (PetscInt nd = 0; nd < f->nnodes; nd++) {
    const PetscInt  m = f->nodes[nd], nz = bi[row + 1] - bi[row];
    const PetscInt *vi = bj + bi[row];
    PetscInt        j;

    for (PetscInt k = 0; k < m; k++) sums[k] = b[r ? r[row + k] : row + k];
    for (j = 0; j < nz - 1; j += 2) {
      const PetscScalar t0 = tmp[vi[j]], t1 = tmp[vi[j + 1]];
      for (PetscInt k = 0; k < m; k++) sums[k] -= f->ba[bi[row + k] + j] * t0 + f->ba[bi[row + k] + j + 1] * t1;
    }
    if (j == nz - 1)
      for (PetscInt k = 0; k < m; k++) sums[k] -= f->ba[bi[row + k] + j] * tmp[vi[j]];
    for (PetscInt q = 0; q < m; q++)
      for (PetscInt k = q + 1; k < m; k++) sums[k] -= f->ba[bi[row + k] + nz + q] * sums[q];
    for (PetscInt k = 0; k < m; k++) tmp[row + k] = sums[k];
    row += m;
  }
  row = f->n - 1;
  for (PetscInt nd = f->nnodes - 1; nd >= 0; nd--) {
    const PetscInt  m = f->nodes[nd], nz = ad[row] - ad[row + 1] - 1; /* the node's last row: shared only */
    const PetscInt *vi = bj + ad[row + 1] + 1;
    PetscInt        j;

    for (PetscInt k = 0; k < m; k++) sums[k] = tmp[row - k];
    for (j = 0; j < nz - 1; j += 2) {
      const PetscScalar t0 = tmp[vi[j]], t1 = tmp[vi[j + 1]];
      for (PetscInt k = 0; k < m; k++) {
        const PetscScalar *v = f->ba + ad[row - k + 1] + 1; /* row - k: k node entries first */
        sums[k] -= v[k + j] * t0 + v[k + j + 1] * t1;
      }
    }
    if (j == nz - 1)
      for (PetscInt k = 0; k < m; k++) sums[k] -= f->ba[ad[row - k + 1] + 1 + k + j] * tmp[vi[j]];
    for (PetscInt q = 0; q < m; q++) {
      const PetscInt    i  = row - q;
      const PetscScalar xi = sums[q] * f->ba[ad[i]];

      x[c ? c[i] : i] = tmp[i] = xi;
      for (PetscInt k = q + 1; k < m; k++) sums[k] -= f->ba[ad[row - k + 1] + 1 + (k - q - 1)] * xi;
    }
    row -= m;
  }
}

/* MatSolveAdd_SeqAIJ (x distinct from y) */
static void RefILUSolveAdd(const ILUFactor *f, const PetscInt *r, const PetscInt *c, const PetscScalar *b, const PetscScalar *y, PetscScalar *tmp, PetscScalar *x)
{
  for (PetscInt i = 0; i < f->n; i++) x[i] = y[i];
  for (PetscInt i = 0; i < f->n; i++) {
    PetscScalar sum = b[r ? r[i] : i];
    for (PetscInt p = f->bi[i]; p < f->bi[i + 1]; p++) sum -= f->ba[p] * tmp[f->bj[p]];
    tmp[i] = sum;
  }
  for (PetscInt i = f->n - 1; i >= 0; i--) {
    PetscScalar sum = tmp[i];
    for (PetscInt p = f->bdiag[i + 1] + 1; p < f->bdiag[i]; p++) sum -= f->ba[p] * tmp[f->bj[p]];
    tmp[i] = sum * f->ba[f->bdiag[i]];
    x[c ? c[i] : i] += tmp[i];
  }
}

/* MatSolveTranspose(Add)_SeqAIJ: push columns (y NULL: no addition) */
static void RefILUSolveT(const ILUFactor *f, const PetscInt *r, const PetscInt *c, const PetscScalar *b, const PetscScalar *y, PetscScalar *tmp, PetscScalar *x)
{
  const PetscInt n = f->n;

  for (PetscInt i = 0; i < n; i++) tmp[i] = b[c ? c[i] : i];
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s1 = tmp[i];
    s1 *= f->ba[f->bdiag[i]];
    for (PetscInt p = f->bdiag[i + 1] + 1; p < f->bdiag[i]; p++) tmp[f->bj[p]] -= s1 * f->ba[p];
    tmp[i] = s1;
  }
  for (PetscInt i = n - 1; i >= 0; i--) {
    const PetscScalar s1 = tmp[i];
    for (PetscInt p = f->bi[i]; p < f->bi[i + 1]; p++) tmp[f->bj[p]] -= s1 * f->ba[p];
  }
  if (y) {
    for (PetscInt i = 0; i < n; i++) x[i] = y[i];
    for (PetscInt i = 0; i < n; i++) x[r ? r[i] : i] += tmp[i];
  } else
    for (PetscInt i = 0; i < n; i++) x[r ? r[i] : i] = tmp[i];
}

/* MatSolve_SeqSBAIJ_1 on an ICC factor: ui/uj/ua with the inverse diagonal last in each row */
static void RefICCSolve(PetscInt n, const PetscInt *ui, const PetscInt *uj, const PetscScalar *ua, const PetscInt *rp, const PetscScalar *b, PetscScalar *t, PetscScalar *x)
{
  for (PetscInt k = 0; k < n; k++) t[k] = b[rp ? rp[k] : k];
  for (PetscInt k = 0; k < n; k++) {
    const PetscScalar xk = t[k];
    const PetscInt    nz = ui[k + 1] - ui[k] - 1;
    for (PetscInt j = 0; j < nz; j++) t[uj[ui[k] + j]] += ua[ui[k] + j] * xk;
    t[k] = xk * ua[ui[k] + nz];
  }
  for (PetscInt k = n - 1; k >= 0; k--) {
    const PetscInt nz = ui[k + 1] - ui[k] - 1, ad = ui[k + 1] - 1;
    for (PetscInt j = 0; j < nz; j++) t[k] += ua[ad - 1 - j] * t[uj[ad - 1 - j]];
    x[rp ? rp[k] : k] = t[k];
  }
}

/* ---------------------------------------------------------------- level-scheduled runs */

static void Part(const AIJHybridLevels *lv, PetscInt l, PetscInt t, PetscInt *ks, PetscInt *ke)
{
  *ks = lv->tb[l * (lv->nthreads + 1) + t];
  *ke = lv->tb[l * (lv->nthreads + 1) + t + 1];
}

#if defined(_OPENMP)
  #define TID omp_get_thread_num()
  #define NTH omp_get_num_threads()
#else
  #define TID 0
  #define NTH 1
#endif

static PetscBool P2P = PETSC_FALSE; /* point-to-point waits (AIJHybridLevelsWait/Done) instead of barriers */
static PetscInt  progress[2 * 8 * AIJHYBRID_LEVELS_STRIDE];

/* before and after part t of level l (progress: the phase's counters) */
#define BEFORE(lv, l, t, pr) \
  do { \
    if (P2P) AIJHybridLevelsWait((lv), (l), (t), (pr)); \
  } while (0)
#define AFTER(lv, l, t, pr) \
  do { \
    if (P2P) AIJHybridLevelsDone((l), (t), (pr)); \
    else { \
      _Pragma("omp barrier") \
    } \
  } while (0)

/* kind 0: solve, 1: solve inode, 2: solve add (y), 3: transpose (+ y) */
static void ThreadedILU(const ILUFactor *f, const AIJHybridLevels *lo, const AIJHybridLevels *up, const AIJHybridCSC *cu, const AIJHybridCSC *cl, int kind, const PetscInt *r, const PetscInt *c, const PetscScalar *b, const PetscScalar *y,
                        PetscScalar *tmp, PetscScalar *x, PetscInt T)
{
  PetscInt *pf = progress, *pb = progress + 8 * AIJHYBRID_LEVELS_STRIDE;

  for (PetscInt k = 0; k < 2 * 8 * AIJHYBRID_LEVELS_STRIDE; k++) progress[k] = 0;
#pragma omp parallel num_threads(T)
  {
    const PetscInt tid = TID;
    PetscInt       ks, ke;

    if (NTH == T) {
      for (PetscInt l = 0; l < lo->nlevels; l++) {
        BEFORE(lo, l, tid, pf);
        Part(lo, l, tid, &ks, &ke);
        if (kind == 3) AIJHybridTrsvUpperT(ks, ke, AIJHybridLevelsOrder(lo), cu->ptr, cu->row, cu->pos, f->bdiag, f->ba, c, b, tmp);
        else if (kind == 1) AIJHybridTrsvLowerInode(ks, ke, AIJHybridLevelsOrder(lo), f->npair, f->bi, f->bj, f->ba, r, b, tmp);
        else AIJHybridTrsvLower(ks, ke, AIJHybridLevelsOrder(lo), f->bi, f->bj, f->ba, r, b, tmp);
        AFTER(lo, l, tid, pf);
      }
#pragma omp barrier
      for (PetscInt l = 0; l < up->nlevels; l++) {
        BEFORE(up, l, tid, pb);
        Part(up, l, tid, &ks, &ke);
        if (kind == 3) AIJHybridTrsvLowerT(ks, ke, AIJHybridLevelsOrder(up), cl->ptr, cl->row, cl->pos, f->ba, r, tmp, y, x);
        else if (kind == 2) AIJHybridTrsvUpperAdd(ks, ke, AIJHybridLevelsOrder(up), f->bdiag, f->bj, f->ba, c, tmp, y, x);
        else if (kind == 1) AIJHybridTrsvUpperInode(ks, ke, AIJHybridLevelsOrder(up), f->nskip, f->bdiag, f->bj, f->ba, c, tmp, x);
        else AIJHybridTrsvUpper(ks, ke, AIJHybridLevelsOrder(up), f->bdiag, f->bj, f->ba, c, tmp, x);
        AFTER(up, l, tid, pb);
      }
    }
  }
}

/* the schedule of pass TT: level schedules of 1-4 threads, rows or chains as units (TT 2-8), or
   the in-place schedule of one thread block (TT 9: AIJHybridLevelsBlocks(), the kernels walk the
   rows without an order) */
static PetscErrorCode Schedule(PetscInt TT, PetscInt n, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool forward, AIJHybridLevels *lv)
{
  const PetscInt bounds[2] = {0, n};

  PetscFunctionBegin;
  if (TT == 9) PetscCall(AIJHybridLevelsBlocks(n, start, end, ind, forward, 1, bounds, lv));
  else PetscCall(AIJHybridLevelsBuild(n, start, end, ind, forward, TT / 2, TT % 2 ? 1 : AIJHYBRID_LEVELS_MAXCHAIN, lv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void TestILU(void)
{
  for (PetscInt trial = 0; trial < 48; trial++) {
    const PetscInt  n = trial < 3 ? trial + 1 : 5 + RandInt(300), k = 1 + RandInt(6);
    const PetscBool inode = (PetscBool)(trial % 2), perm = (PetscBool)(trial % 3 == 0);
    ILUFactor       f;
    PetscInt       *r = NULL, *c = NULL, *ustart;
    PetscScalar    *b, *y, *tmp, *xr, *xt;

    rng_state = 777 + (unsigned long long)trial;
    MakeILU(n, k, inode, &f);
    PetscCallVoid(PetscMalloc5(n, &b, n, &y, n, &tmp, n, &xr, n, &xt));
    PetscCallVoid(PetscMalloc1(n, &ustart));
    for (PetscInt i = 0; i < n; i++) {
      b[i]      = RandScalar();
      y[i]      = RandScalar();
      ustart[i] = f.bdiag[i + 1] + 1;
    }
    if (perm) {
      PetscCallVoid(PetscMalloc2(n, &r, n, &c));
      RandPerm(n, r);
      RandPerm(n, c);
    }
    for (PetscInt TT = 2; TT <= 9; TT++) {
      const PetscInt  T = TT == 9 ? 1 : TT / 2; /* Schedule() */
      AIJHybridLevels lo, up, loT, upT;
      AIJHybridCSC    cu, cl;

      PetscCallVoid(Schedule(TT, n, f.bi, f.bi + 1, f.bj, PETSC_TRUE, &lo));
      PetscCallVoid(Schedule(TT, n, ustart, f.bdiag, f.bj, PETSC_FALSE, &up));
      PetscCallVoid(AIJHybridCSCBuild(n, ustart, f.bdiag, f.bj, PETSC_TRUE, &cu));
      PetscCallVoid(AIJHybridCSCBuild(n, f.bi, f.bi + 1, f.bj, PETSC_FALSE, &cl));
      PetscCallVoid(Schedule(TT, n, cu.ptr, cu.ptr + 1, cu.row, PETSC_TRUE, &loT));
      PetscCallVoid(Schedule(TT, n, cl.ptr, cl.ptr + 1, cl.row, PETSC_FALSE, &upT));
      CHECK(lo.inplace == (TT == 9) && up.inplace == (TT == 9) && loT.inplace == (TT == 9) && upT.inplace == (TT == 9), "ILU schedules of pass %d: in place %d %d %d %d", (int)TT, (int)lo.inplace, (int)up.inplace, (int)loT.inplace, (int)upT.inplace);

      if (inode) RefILUSolveInode(&f, r, c, b, tmp, xr);
      else RefILUSolve(&f, r, c, b, tmp, xr);
      for (PetscInt i = 0; i < n; i++) xt[i] = NAN;
      ThreadedILU(&f, &lo, &up, NULL, NULL, inode ? 1 : 0, r, c, b, NULL, tmp, xt, T);
      CHECK(Same(xr, xt, n), "ILU solve%s differs: trial %d n %d T %d%s", inode ? " (inode)" : "", (int)trial, (int)n, (int)T, perm ? " permuted" : "");
      if (!perm) { /* natural ordering: the solve may work in x itself, as PETSc's does */
        ThreadedILU(&f, &lo, &up, NULL, NULL, inode ? 1 : 0, NULL, NULL, b, NULL, xt, xt, T);
        CHECK(Same(xr, xt, n), "ILU solve in place differs: trial %d T %d", (int)trial, (int)T);
      }
      RefILUSolveAdd(&f, r, c, b, y, tmp, xr);
      ThreadedILU(&f, &lo, &up, NULL, NULL, 2, r, c, b, y, tmp, xt, T);
      CHECK(Same(xr, xt, n), "ILU solve-add differs: trial %d T %d", (int)trial, (int)T);
      for (PetscInt i = 0; i < n; i++) xt[i] = y[i];
      ThreadedILU(&f, &lo, &up, NULL, NULL, 2, r, c, b, xt, tmp, xt, T); /* y == x */
      CHECK(Same(xr, xt, n), "ILU solve-add in place differs: trial %d T %d", (int)trial, (int)T);
      RefILUSolveT(&f, r, c, b, NULL, tmp, xr);
      ThreadedILU(&f, &loT, &upT, &cu, &cl, 3, r, c, b, NULL, tmp, xt, T);
      CHECK(Same(xr, xt, n), "ILU transposed solve differs: trial %d T %d", (int)trial, (int)T);
      RefILUSolveT(&f, r, c, b, y, tmp, xr);
      ThreadedILU(&f, &loT, &upT, &cu, &cl, 3, r, c, b, y, tmp, xt, T);
      CHECK(Same(xr, xt, n), "ILU transposed solve-add differs: trial %d T %d", (int)trial, (int)T);

      PetscCallVoid(AIJHybridLevelsDestroy(&lo));
      PetscCallVoid(AIJHybridLevelsDestroy(&up));
      PetscCallVoid(AIJHybridLevelsDestroy(&loT));
      PetscCallVoid(AIJHybridLevelsDestroy(&upT));
      PetscCallVoid(AIJHybridCSCDestroy(&cu));
      PetscCallVoid(AIJHybridCSCDestroy(&cl));
    }
    if (perm) PetscCallVoid(PetscFree2(r, c));
    PetscCallVoid(PetscFree(ustart));
    PetscCallVoid(PetscFree5(b, y, tmp, xr, xt));
    FreeILU(&f);
  }
}

static void TestICC(void)
{
  for (PetscInt trial = 0; trial < 40; trial++) {
    const PetscInt  n = trial < 3 ? trial + 1 : 5 + RandInt(300), k = 1 + RandInt(6);
    const PetscBool perm = (PetscBool)(trial % 2);
    PetscInt       *ui, *uj, *end, *rp = NULL, nz = 0, *cols;
    PetscScalar    *ua, *b, *t, *u, *xr, *xt;
    char           *mark;

    rng_state = 4242 + (unsigned long long)trial;
    PetscCallVoid(PetscCalloc1(n + 1, &mark));
    PetscCallVoid(PetscMalloc3(n + 1, &ui, n * (k + 2) + 1, &uj, n, &end));
    PetscCallVoid(PetscMalloc1(n * (k + 2) + 1, &ua));
    PetscCallVoid(PetscMalloc1(n + 1, &cols));
    ui[0] = 0;
    for (PetscInt i = 0; i < n; i++) {
      PetscInt m;

      if (i + 1 < n && RandInt(2)) mark[i + 1] = 1; /* chains */
      m = Subset(i + 1, n, k, cols, mark);

      for (PetscInt q = 0; q < m; q++) {
        uj[nz]   = cols[q];
        ua[nz++] = 0.3 * RandScalar();
      }
      uj[nz]    = i;
      ua[nz++]  = 1.0 / (1.5 + Uniform());
      ui[i + 1] = nz;
      end[i]    = nz - 1;
    }
    PetscCallVoid(PetscMalloc5(n, &b, n, &t, n, &u, n, &xr, n, &xt));
    for (PetscInt i = 0; i < n; i++) b[i] = RandScalar();
    if (perm) {
      PetscCallVoid(PetscMalloc1(n, &rp));
      RandPerm(n, rp);
    }
    RefICCSolve(n, ui, uj, ua, rp, b, t, xr);
    for (PetscInt TT = 2; TT <= 9; TT++) {
      const PetscInt  T = TT == 9 ? 1 : TT / 2; /* Schedule() */
      AIJHybridLevels fw, bw;
      AIJHybridCSC    cu;

      PetscCallVoid(AIJHybridCSCBuild(n, ui, end, uj, PETSC_TRUE, &cu));
      PetscCallVoid(Schedule(TT, n, cu.ptr, cu.ptr + 1, cu.row, PETSC_TRUE, &fw));
      PetscCallVoid(Schedule(TT, n, ui, end, uj, PETSC_FALSE, &bw));
      for (PetscInt pass = 0; pass < (perm ? 1 : 2); pass++) {
        PetscScalar *tt = pass ? xt : t; /* natural ordering: t may be x */

        for (PetscInt i = 0; i < n; i++) xt[i] = NAN;
        for (PetscInt k = 0; k < 2 * 8 * AIJHYBRID_LEVELS_STRIDE; k++) progress[k] = 0;
#pragma omp parallel num_threads(T)
        {
          const PetscInt tid = TID;
          PetscInt       ks, ke, *pf = progress, *pb = progress + 8 * AIJHYBRID_LEVELS_STRIDE;

          if (NTH == T) {
            for (PetscInt l = 0; l < fw.nlevels; l++) {
              BEFORE(&fw, l, tid, pf);
              Part(&fw, l, tid, &ks, &ke);
              AIJHybridTrsvICCForward(ks, ke, AIJHybridLevelsOrder(&fw), cu.ptr, cu.row, cu.pos, ui, ua, rp, b, u, tt);
              AFTER(&fw, l, tid, pf);
            }
#pragma omp barrier
            for (PetscInt l = 0; l < bw.nlevels; l++) {
              BEFORE(&bw, l, tid, pb);
              Part(&bw, l, tid, &ks, &ke);
              AIJHybridTrsvICCBackward(ks, ke, AIJHybridLevelsOrder(&bw), ui, uj, ua, rp, tt, xt);
              AFTER(&bw, l, tid, pb);
            }
          }
        }
        CHECK(Same(xr, xt, n), "ICC solve differs: trial %d n %d T %d%s%s", (int)trial, (int)n, (int)T, perm ? " permuted" : "", pass ? " in place" : "");
      }
      PetscCallVoid(AIJHybridLevelsDestroy(&fw));
      PetscCallVoid(AIJHybridLevelsDestroy(&bw));
      PetscCallVoid(AIJHybridCSCDestroy(&cu));
    }
    PetscCallVoid(PetscFree(rp));
    PetscCallVoid(PetscFree5(b, t, u, xr, xt));
    PetscCallVoid(PetscFree(cols));
    PetscCallVoid(PetscFree(ua));
    PetscCallVoid(PetscFree3(ui, uj, end));
    PetscCallVoid(PetscFree(mark));
  }
}

int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  TestLevels();
  for (int mode = 0; mode < 2; mode++) { /* barriers, then point-to-point waits */
    P2P = (PetscBool)mode;
    TestILU();
    TestICC();
  }
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
