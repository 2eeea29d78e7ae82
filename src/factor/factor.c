/*
   Threaded triangular solves for PETSc's ILU(k) and ICC(k) factors of seqaijhybrid matrices.

   How a factor gets them, with no new option: the package registers its factorizations for its
   own type only, MATSEQAIJHYBRID, under MATSOLVERPETSC and MATSOLVERAIJHYBRID (PETSc's entries for
   its own types are left alone). MatGetFactor() without a solver type prefers the handler of the
   exact matrix type, so a seqaijhybrid matrix gets them by default, and so do the diagonal blocks
   (PCBJACOBI) and the sub-matrices (PCASM) of mpiaijhybrid matrices, which are seqaijhybrid
   (src/mat/block.c, src/mat/aijhybrid.c). FactorCreate() calls PETSc's seqaij factorization, found
   with MatSolverTypeGet(), and chains to the factor's operations:

     MatGetFactor          PETSc's factor (seqaij for ILU/LU, seqsbaij for ICC/Cholesky), then our symbolic op
     symbolic              PETSc's, then (all) the matrix's composed functions taken off the factor
                           (PETSc copies them into it) and (ILU/ICC) our numeric op; remembers the
                           permutations
     numeric (ILU/ICC)     PETSc's (so the factor's values are PETSc's), then our solves in place
                           of the ones PETSc just installed, with the thread count of the matrix
                           being factored; the level schedules are built once per symbolic
                           factorization (nonzero pattern) and thread count
     MatSolve, MatSolveAdd, MatSolveTranspose, MatSolveTransposeAdd (those PETSc's factor has)

   Each solve runs the rows level by level (src/factor/levels.h), each level's rows split over the
   threads, each row computed by a kernel (src/kernels/trsv.h) with the arithmetic of the PETSc
   routine the factor would run: MatSolve_SeqAIJ(_NaturalOrdering) or MatSolve_SeqAIJ_Inode
   (chosen as PETSc chooses: by the factor's inodes), MatSolveAdd_SeqAIJ,
   MatSolveTranspose(Add)_SeqAIJ, MatSolve_SeqSBAIJ_1(_NaturalOrdering) for ICC (also its
   transposed solve). So the results are bitwise PETSc's for any thread count. With one thread, or
   where a case is not covered (docs/preconditioners.md), the factor keeps PETSc's solves.
   Only the main thread calls PETSc; the parallel regions run the pure kernels on raw arrays.
*/
#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h>
#include "../mat/factorsupport.h"
#include "../kernels/trsv.h"
#include "levels.h"
#include "factor.h"

#include "../threads/threads.h"

PetscLogEvent MATAIJHYBRID_Levels;

/* the trial of -mat_aijhybrid_factor_solve auto: one warm-up pair, then this many solves each way */
#define AIJHYBRID_FACTOR_TRIALS 5

typedef PetscErrorCode (*AIJHybridSolveFn)(Mat, Vec, Vec);
typedef PetscErrorCode (*AIJHybridSolveAddFn)(Mat, Vec, Vec, Vec);

typedef struct {
  MatFactorType ftype; /* MAT_FACTOR_ILU, _ICC, _LU or _CHOLESKY */

  /* PETSc's operations of the factor, which ours chain to */
  PetscErrorCode (*destroy)(Mat);
  PetscErrorCode (*ilusymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *); /* ILU or LU */
  PetscErrorCode (*iccsymbolic)(Mat, Mat, IS, const MatFactorInfo *);     /* ICC or Cholesky */
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *);
  AIJHybridSolveFn    solve, solvetranspose;
  AIJHybridSolveAddFn solveadd, solvetransposeadd;

  /* permutations of the symbolic factorization (ICC: col = row) and their indices (NULL: identity) */
  IS              row, col;
  const PetscInt *r, *c;

  /* the schedules are for symbolic factorization number built_pattern and built_T threads */
  PetscInt        pattern, built_pattern, built_T, nthreads;
  PetscBool       threaded;       /* our solves are installed */
  PetscBool       inode;          /* PETSc's MatSolve is MatSolve_SeqAIJ_Inode */
  const char     *reason;         /* why the solves stay PETSc's */
  PetscInt        n, nz;          /* rows; nonzeros of the factor (ILU: L and U with the diagonal; ICC: U) */
  const PetscInt *fi, *fj;        /* the factor's row pointers and columns (kept by the factor until its next symbolic factorization) */
  PetscInt       *bdiag;          /* ILU: the diagonal positions of U (PETSc's factor->diag, recovered from the pattern) */
  PetscInt       *npair, *nskip;  /* ILU inodes: entries summed in pairs (forward), inode entries first in U (backward) */
  AIJHybridLevels lower, upper;   /* forward (ILU: L; ICC: U^T) and backward (U) solve */
  AIJHybridLevels lowerT, upperT; /* ILU transposed solves: U^T forward, L^T backward (built on first use) */
  AIJHybridCSC    cscU, cscL;     /* U by columns (ascending rows); ILU: L by columns (descending rows) */
  PetscScalar    *work, *work2;
  PetscInt       *progress; /* 2 * built_T * AIJHYBRID_LEVELS_STRIDE: the threads' levels done, forward and backward */
  PetscLogDouble  build_time;
  PetscInt        builds;
  PetscBool       check; /* -mat_aijhybrid_factor_check: compare every solve with PETSc's */

  /* -mat_aijhybrid_factor_solve: auto measures the first MatSolve()s both ways and keeps the faster
     (both give the same bits); threaded / serial force one */
  MatAIJHybridFactorSolve mode;
  PetscBool               decided, use_threads; /* decided: the choice is made; use_threads: threaded solves in force */
  PetscInt                trials;               /* MatSolve()s of the trial so far */
  PetscLogDouble          t_threaded[AIJHYBRID_FACTOR_TRIALS], t_serial[AIJHYBRID_FACTOR_TRIALS];
  PetscLogDouble          med_threaded, med_serial; /* medians of the trial (0 before) */
} Mat_AIJHybridFactor;

const char *const MatAIJHybridFactorSolves[] = {"auto", "threaded", "serial", "MatAIJHybridFactorSolve", "MAT_AIJHYBRID_FACTOR_SOLVE_", NULL};

static PetscErrorCode FactorResetSchedules(Mat_AIJHybridFactor *ctx)
{
  PetscFunctionBegin;
  PetscCall(AIJHybridLevelsDestroy(&ctx->lower));
  PetscCall(AIJHybridLevelsDestroy(&ctx->upper));
  PetscCall(AIJHybridLevelsDestroy(&ctx->lowerT));
  PetscCall(AIJHybridLevelsDestroy(&ctx->upperT));
  PetscCall(AIJHybridCSCDestroy(&ctx->cscU));
  PetscCall(AIJHybridCSCDestroy(&ctx->cscL));
  PetscCall(PetscFree(ctx->bdiag));
  PetscCall(PetscFree2(ctx->npair, ctx->nskip));
  PetscCall(PetscFree2(ctx->work, ctx->work2));
  PetscCall(PetscFree(ctx->progress));
  ctx->built_pattern = -1;
  ctx->built_T       = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorResetPermutations(Mat_AIJHybridFactor *ctx)
{
  PetscFunctionBegin;
  if (ctx->r) PetscCall(ISRestoreIndices(ctx->row, &ctx->r));
  if (ctx->c) PetscCall(ISRestoreIndices(ctx->col, &ctx->c));
  PetscCall(ISDestroy(&ctx->row));
  PetscCall(ISDestroy(&ctx->col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorSetPermutations(Mat_AIJHybridFactor *ctx, IS row, IS col)
{
  PetscBool id;

  PetscFunctionBegin;
  PetscCall(PetscObjectReference((PetscObject)row));
  PetscCall(PetscObjectReference((PetscObject)col));
  PetscCall(FactorResetPermutations(ctx));
  ctx->row = row;
  ctx->col = col;
  PetscCall(ISIdentity(row, &id));
  if (!id) PetscCall(ISGetIndices(row, &ctx->r));
  PetscCall(ISIdentity(col, &id));
  if (!id) PetscCall(ISGetIndices(col, &ctx->c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_AIJHybridFactor(Mat F)
{
  Mat_AIJHybridFactor *ctx       = (Mat_AIJHybridFactor *)F->spptr;
  PetscErrorCode (*destroy)(Mat) = ctx->destroy;

  PetscFunctionBegin;
  PetscCall(FactorResetSchedules(ctx));
  PetscCall(FactorResetPermutations(ctx));
  PetscCall(PetscFree(ctx));
  F->spptr        = NULL;
  F->ops->destroy = destroy;
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatAIJHybridGetFactorInfo_C", NULL));
  PetscCall((*destroy)(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the implementation composed on the factors this package makes (FactorCreate()) */
static PetscErrorCode MatAIJHybridGetFactorInfo_Factor(Mat F, MatAIJHybridFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx;

  PetscFunctionBegin;
  if (F->ops->destroy != MatDestroy_AIJHybridFactor) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc replaced the factor's data */
  ctx                 = (Mat_AIJHybridFactor *)F->spptr;
  info->threaded      = ctx->threaded;
  info->in_use        = (PetscBool)(ctx->threaded && ctx->decided && ctx->use_threads);
  info->decided       = (PetscBool)(!ctx->threaded || ctx->decided);
  info->time_threaded = ctx->med_threaded;
  info->time_serial   = ctx->med_serial;
  info->nthreads      = ctx->threaded ? ctx->built_T : 1;
  info->levels_lower  = ctx->threaded ? ctx->lower.nlevels : 0;
  info->levels_upper  = ctx->threaded ? ctx->upper.nlevels : 0;
  info->inode         = ctx->inode;
  info->builds        = ctx->builds;
  info->build_time    = ctx->build_time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- level-scheduled runs */

typedef enum {
  SOLVE_ILU,
  SOLVE_ILU_ADD,
  SOLVE_ILU_T,
  SOLVE_ICC
} SolveKind;

/* one phase (forward or backward) of a solve: the levels of lv in order, part t of each on
   thread t, synchronised point to point (or by a barrier after each level when OpenMP gave fewer
   threads than parts); row(ks, ke) computes the rows order[ks .. ke) */
#define RUN_PHASE(lv, progress, row) \
  do { \
    const PetscInt T_ = (lv)->nthreads; \
    for (PetscInt l_ = 0; l_ < (lv)->nlevels; l_++) { \
      const PetscInt *tb_ = (lv)->tb + l_ * (T_ + 1); \
      if (nth == T_) { \
        AIJHybridLevelsWait((lv), l_, tid, (progress)); \
        { \
          const PetscInt ks = tb_[tid], ke = tb_[tid + 1]; \
          row; \
        } \
        AIJHybridLevelsDone(l_, tid, (progress)); \
      } else { \
        for (PetscInt t_ = tid; t_ < T_; t_ += nth) { \
          const PetscInt ks = tb_[t_], ke = tb_[t_ + 1]; \
          row; \
        } \
        _Pragma("omp barrier") \
      } \
    } \
  } while (0)

/*
  x = F^{-1} b (and friends), the forward phase then the backward phase (one barrier between
  them). Runs on all threads of the region; calls no PETSc. progress: 2 * T counters, zero.
  ILU:    tmp = L^{-1} P b, then x = Q U^{-1} tmp (inode arithmetic when ctx->inode)
  ILU_ADD x = y + Q U^{-1} L^{-1} P b (plain arithmetic, as MatSolveAdd_SeqAIJ)
  ILU_T:  tmp = U^{-T} Q^T b, then x = P^T L^{-T} tmp (+ y)
  ICC:    u/t = (U^T D)^{-1} P b, then x = P^T U^{-1} t
*/
static void SolveLevels(const Mat_AIJHybridFactor *ctx, SolveKind kind, const PetscInt *bi, const PetscInt *bj, const PetscScalar *ba, const PetscScalar *b, const PetscScalar *y, PetscScalar *tmp, PetscScalar *tmp2, PetscScalar *x,
                        PetscInt *progress)
{
  const PetscInt  nth = omp_get_num_threads(), tid = omp_get_thread_num();
  const PetscInt *r = ctx->r, *c = ctx->c;
  PetscInt       *pf = progress, *pb = progress + ctx->built_T * AIJHYBRID_LEVELS_STRIDE;

  switch (kind) {
  case SOLVE_ILU:
  case SOLVE_ILU_ADD: {
    const AIJHybridLevels *lo = &ctx->lower, *up = &ctx->upper;
    const PetscBool        inode = (PetscBool)(kind == SOLVE_ILU && ctx->inode);

    if (inode) RUN_PHASE(lo, pf, AIJHybridTrsvLowerInode(ks, ke, lo->order, ctx->npair, bi, bj, ba, r, b, tmp));
    else RUN_PHASE(lo, pf, AIJHybridTrsvLower(ks, ke, lo->order, bi, bj, ba, r, b, tmp));
#pragma omp barrier
    if (kind == SOLVE_ILU_ADD) RUN_PHASE(up, pb, AIJHybridTrsvUpperAdd(ks, ke, up->order, ctx->bdiag, bj, ba, c, tmp, y, x));
    else if (inode) RUN_PHASE(up, pb, AIJHybridTrsvUpperInode(ks, ke, up->order, ctx->nskip, ctx->bdiag, bj, ba, c, tmp, x));
    else RUN_PHASE(up, pb, AIJHybridTrsvUpper(ks, ke, up->order, ctx->bdiag, bj, ba, c, tmp, x));
  } break;
  case SOLVE_ILU_T: {
    const AIJHybridLevels *fw = &ctx->lowerT, *bw = &ctx->upperT;

    RUN_PHASE(fw, pf, AIJHybridTrsvUpperT(ks, ke, fw->order, ctx->cscU.ptr, ctx->cscU.row, ctx->cscU.pos, ctx->bdiag, ba, c, b, tmp));
#pragma omp barrier
    RUN_PHASE(bw, pb, AIJHybridTrsvLowerT(ks, ke, bw->order, ctx->cscL.ptr, ctx->cscL.row, ctx->cscL.pos, ba, r, tmp, y, x));
  } break;
  case SOLVE_ICC: {
    const AIJHybridLevels *fw = &ctx->lower, *bw = &ctx->upper;

    RUN_PHASE(fw, pf, AIJHybridTrsvICCForward(ks, ke, fw->order, ctx->cscU.ptr, ctx->cscU.row, ctx->cscU.pos, bi, ba, r, b, tmp2, tmp));
#pragma omp barrier
    RUN_PHASE(bw, pb, AIJHybridTrsvICCBackward(ks, ke, bw->order, bi, bj, ba, r, tmp, x));
  } break;
  }
}

/* ---------------------------------------------------------------- schedules */

/* the factor's pattern (ILU: seqaij; ICC: seqsbaij of block size 1), set by the symbolic factorization */
static PetscErrorCode FactorGetPattern(Mat F, Mat_AIJHybridFactor *ctx, const PetscInt **fi, const PetscInt **fj)
{
  PetscFunctionBegin;
  if (ctx->ftype == MAT_FACTOR_ILU) {
    PetscCall(MatSeqAIJGetCSRAndMemType(F, fi, fj, NULL, NULL));
  } else {
    const PetscInt *ui, *uj;
    PetscInt        n;
    PetscBool       done;

    PetscCall(MatGetRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ui, &uj, &done));
    PetscCheck(done && n == F->rmap->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: no row pattern of the ICC factor");
    *fi = ui; /* block size 1, not symmetrized: the factor's own arrays, valid after the restore */
    *fj = uj;
    PetscCall(MatRestoreRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ui, &uj, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's values (written in place by each numeric factorization) */
static PetscErrorCode FactorGetValues(Mat F, Mat_AIJHybridFactor *ctx, PetscScalar **fa)
{
  PetscFunctionBegin;
  if (ctx->ftype == MAT_FACTOR_ILU) {
    PetscCall(MatSeqAIJGetCSRAndMemType(F, NULL, NULL, fa, NULL));
  } else {
    PetscScalar *a;

    PetscCall(MatSeqSBAIJGetArray(F, &a));
    *fa = a;
    PetscCall(MatSeqSBAIJRestoreArray(F, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU: PETSc's diagonal positions of U, recovered from the pattern: U(n-1,:) starts at bi[n],
   then U(n-2,:), ... each ending with its diagonal (column i), every other column > i */
static PetscErrorCode ILURecoverDiag(Mat_AIJHybridFactor *ctx, const PetscInt *bi, const PetscInt *bj, PetscBool *ok)
{
  const PetscInt n = ctx->n, nz = ctx->nz;
  PetscInt       p;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(PetscMalloc1(n + 1, &ctx->bdiag));
  for (PetscInt i = 0; i < n && *ok; i++)
    for (PetscInt q = bi[i]; q < bi[i + 1]; q++)
      if (bj[q] < 0 || bj[q] >= i) *ok = PETSC_FALSE;
  p             = n ? bi[n] : 0;
  ctx->bdiag[n] = p - 1;
  for (PetscInt i = n - 1; i >= 0 && *ok; i--) {
    while (p < nz && bj[p] != i) {
      if (bj[p] <= i || bj[p] >= n) {
        *ok = PETSC_FALSE;
        break;
      }
      p++;
    }
    if (p >= nz) *ok = PETSC_FALSE;
    else ctx->bdiag[i] = p++;
  }
  if (*ok && p != nz) *ok = PETSC_FALSE;
  if (!*ok) PetscCall(PetscFree(ctx->bdiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU inodes: per-row arrays of MatSolve_SeqAIJ_Inode's arithmetic from the node sizes, after
   checking the pattern is the one that routine assumes (rows of a node share their columns) */
static PetscErrorCode ILUInodeArrays(Mat_AIJHybridFactor *ctx, PetscInt nnodes, const PetscInt sizes[], const PetscInt *bi, const PetscInt *bj, PetscBool *ok)
{
  const PetscInt *bdiag = ctx->bdiag;
  PetscInt        s     = 0;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(PetscMalloc2(ctx->n, &ctx->npair, ctx->n, &ctx->nskip));
  for (PetscInt k = 0; k < nnodes && *ok; k++) {
    const PetscInt m = sizes[k], e = s + m - 1;

    if (m < 1 || e >= ctx->n) {
      *ok = PETSC_FALSE;
      break;
    }
    {
      const PetscInt P = bi[s + 1] - bi[s], U0 = bdiag[e] - bdiag[e + 1] - 1;

      for (PetscInt j = 0; j < m && *ok; j++) {
        const PetscInt i = s + j, nl = bi[i + 1] - bi[i], nu = bdiag[i] - bdiag[i + 1] - 1, ku = m - 1 - j;

        if (nl != P + j || nu != U0 + ku) *ok = PETSC_FALSE;
        for (PetscInt q = 0; q < j && *ok; q++)
          if (bj[bi[i] + P + q] != s + q) *ok = PETSC_FALSE; /* the node's earlier rows, last in L */
        for (PetscInt q = 0; q < ku && *ok; q++)
          if (bj[bdiag[i + 1] + 1 + q] != i + 1 + q) *ok = PETSC_FALSE; /* the node's later rows, first in U */
        ctx->npair[i] = P;
        ctx->nskip[i] = ku;
      }
    }
    s += m;
  }
  if (*ok && s != ctx->n) *ok = PETSC_FALSE;
  if (!*ok) PetscCall(PetscFree2(ctx->npair, ctx->nskip));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (re)build what the solves need for the current pattern and T threads; sets ctx->reason when
   the solves must stay PETSc's */
static PetscErrorCode FactorBuild(Mat F, Mat_AIJHybridFactor *ctx, PetscInt T)
{
  const PetscInt *fi, *fj;
  PetscInt       *start = NULL, *end = NULL, n = F->rmap->n;
  PetscLogDouble  t0, t1;
  PetscBool       ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Levels, F, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(FactorResetSchedules(ctx));
  ctx->reason = NULL;
  ctx->n      = n;
  ctx->inode  = PETSC_FALSE;
  PetscCall(FactorGetPattern(F, ctx, &fi, &fj));
  ctx->fi = fi;
  ctx->fj = fj;
  if (ctx->ftype == MAT_FACTOR_ILU) {
    MatInfo   info;
    PetscInt  nnodes = 0, *sizes = NULL;
    PetscBool isseqaij;

    PetscCall(PetscObjectTypeCompare((PetscObject)F, MATSEQAIJ, &isseqaij));
    if (!isseqaij) ctx->reason = "the ILU factor is not a seqaij matrix";
    if (!ctx->reason) {
      PetscCall(MatGetInfo(F, MAT_LOCAL, &info));
      ctx->nz = (PetscInt)info.nz_used;
      PetscCall(ILURecoverDiag(ctx, fi, fj, &ok));
      if (!ok) ctx->reason = "the ILU factor's storage is not PETSc's L-then-reversed-U layout";
    }
    if (!ctx->reason) {
      PetscCall(MatInodeGetInodeSizes(F, &nnodes, &sizes, NULL));
      if (sizes) {
        PetscInt *ns;

        PetscCall(PetscMalloc1(nnodes, &ns));
#if PETSC_VERSION_LT(3, 24, 0)
        for (PetscInt k = 0; k < nnodes; k++) ns[k] = sizes[k]; /* node sizes */
#else
        for (PetscInt k = 0; k < nnodes; k++) ns[k] = sizes[k + 1] - sizes[k]; /* cumulative (inode.size_csr) */
#endif
        PetscCall(ILUInodeArrays(ctx, nnodes, ns, fi, fj, &ok));
        PetscCall(PetscFree(ns));
        if (!ok) ctx->reason = "the ILU factor's inodes do not have the pattern MatSolve_SeqAIJ_Inode assumes";
        else ctx->inode = PETSC_TRUE;
      }
    }
#if defined(PETSC_KERNEL_USE_UNROLL_4) || defined(PETSC_KERNEL_USE_UNROLL_2)
    if (!ctx->reason && !ctx->inode) ctx->reason = "PETSc was configured with an unrolled PetscSparseDenseMinusDot()";
#endif
    if (!ctx->reason) {
      const PetscInt *bdiag = ctx->bdiag;

      PetscCall(PetscMalloc1(n, &start));
      for (PetscInt i = 0; i < n; i++) start[i] = bdiag[i + 1] + 1;
      PetscCall(AIJHybridLevelsBuild(n, fi, fi + 1, fj, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &ctx->lower));
      PetscCall(AIJHybridLevelsBuild(n, start, bdiag, fj, PETSC_FALSE, T, AIJHYBRID_LEVELS_MAXCHAIN, &ctx->upper));
      PetscCall(PetscFree(start));
    }
  } else {
    PetscBool issbaij;

    PetscCall(PetscObjectTypeCompare((PetscObject)F, MATSEQSBAIJ, &issbaij));
    if (!issbaij || F->rmap->bs != 1) ctx->reason = "the ICC factor is not a seqsbaij matrix of block size 1";
    if (!ctx->reason) {
      ctx->nz = n ? fi[n] : 0;
      /* every row ends with its diagonal, the other columns above it */
      for (PetscInt i = 0; i < n && ok; i++) {
        if (fi[i + 1] <= fi[i] || fj[fi[i + 1] - 1] != i) ok = PETSC_FALSE;
        for (PetscInt q = fi[i]; q < fi[i + 1] - 1 && ok; q++)
          if (fj[q] <= i || fj[q] >= n) ok = PETSC_FALSE;
      }
      if (!ok) ctx->reason = "the ICC factor's storage is not PETSc's (diagonal last in each row)";
    }
    if (!ctx->reason) {
      PetscCall(PetscMalloc1(n, &end));
      for (PetscInt i = 0; i < n; i++) end[i] = fi[i + 1] - 1;
      PetscCall(AIJHybridCSCBuild(n, fi, end, fj, PETSC_TRUE, &ctx->cscU));
      PetscCall(AIJHybridLevelsBuild(n, ctx->cscU.ptr, ctx->cscU.ptr + 1, ctx->cscU.row, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &ctx->lower));
      PetscCall(AIJHybridLevelsBuild(n, fi, end, fj, PETSC_FALSE, T, AIJHYBRID_LEVELS_MAXCHAIN, &ctx->upper));
      PetscCall(PetscFree(end));
    }
  }
  if (!ctx->reason) {
    PetscCall(PetscMalloc2(n, &ctx->work, n, &ctx->work2));
    PetscCall(PetscMalloc1(2 * T * AIJHYBRID_LEVELS_STRIDE, &ctx->progress));
  }
  ctx->built_pattern = ctx->pattern;
  ctx->built_T       = T;
  PetscCall(PetscTime(&t1));
  ctx->build_time = t1 - t0;
  ctx->builds++;
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Levels, F, 0, 0, 0));
  if (ctx->reason) PetscCall(PetscInfo(F, "aijhybrid: PETSc's serial triangular solves kept: %s\n", ctx->reason));
  else
    PetscCall(PetscInfo(F, "aijhybrid: %s factor, %" PetscInt_FMT " rows, %" PetscInt_FMT " threads: %" PetscInt_FMT " forward and %" PetscInt_FMT " backward levels (widest %" PetscInt_FMT " and %" PetscInt_FMT " rows)%s, built in %g s\n",
                        ctx->ftype == MAT_FACTOR_ILU ? "ILU" : "ICC", n, T, ctx->lower.nlevels, ctx->upper.nlevels, ctx->lower.maxwidth, ctx->upper.maxwidth, ctx->inode ? ", inode arithmetic" : "", (double)ctx->build_time));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU transposed solves: the column patterns of U and L and their schedules, on first use */
static PetscErrorCode FactorBuildTranspose(Mat F, Mat_AIJHybridFactor *ctx)
{
  const PetscInt *fi = ctx->fi, *fj = ctx->fj;
  PetscInt       *start, n          = ctx->n;
  const PetscInt  T = ctx->built_T;

  PetscFunctionBegin;
  if (ctx->lowerT.order || !n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Levels, F, 0, 0, 0));
  PetscCall(PetscMalloc1(n, &start));
  for (PetscInt i = 0; i < n; i++) start[i] = ctx->bdiag[i + 1] + 1;
  PetscCall(AIJHybridCSCBuild(n, start, ctx->bdiag, fj, PETSC_TRUE, &ctx->cscU));
  PetscCall(AIJHybridCSCBuild(n, fi, fi + 1, fj, PETSC_FALSE, &ctx->cscL));
  PetscCall(PetscFree(start));
  PetscCall(AIJHybridLevelsBuild(n, ctx->cscU.ptr, ctx->cscU.ptr + 1, ctx->cscU.row, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &ctx->lowerT));
  PetscCall(AIJHybridLevelsBuild(n, ctx->cscL.ptr, ctx->cscL.ptr + 1, ctx->cscL.row, PETSC_FALSE, T, AIJHYBRID_LEVELS_MAXCHAIN, &ctx->upperT));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Levels, F, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- the solves */

/* -mat_aijhybrid_factor_check: x must hold the bits PETSc's own solve gives (petsc: x = F^-1 b;
   petscadd: x = y + F^-1 b, y distinct from x) */
static PetscErrorCode FactorCheck(Mat F, Mat_AIJHybridFactor *ctx, const char *what, AIJHybridSolveFn petsc, AIJHybridSolveAddFn petscadd, Vec b, Vec y, Vec x)
{
  Vec                ref;
  const PetscScalar *xa, *ra;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(x, &ref));
  if (petsc) PetscCall((*petsc)(F, b, ref));
  else PetscCall((*petscadd)(F, b, y, ref));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(ref, &ra));
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(!memcmp(&xa[i], &ra[i], sizeof(PetscScalar)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: threaded %s differs from PETSc's serial one in entry %" PetscInt_FMT " (%" PetscInt_FMT " threads)", what, i, ctx->built_T);
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(ref, &ra));
  PetscCall(VecDestroy(&ref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorSolveRun(Mat F, SolveKind kind, Vec bb, Vec yy, Vec xx)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;
  const PetscInt      *fi = ctx->fi, *fj = ctx->fj, n = ctx->n;
  PetscScalar         *fa, *x, *tmp, *tmp2 = ctx->work2;
  const PetscScalar   *b, *y = NULL;
  PetscBool            natural;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  if (kind == SOLVE_ILU_T) PetscCall(FactorBuildTranspose(F, ctx));
  PetscCall(FactorGetValues(F, ctx, &fa));
  if (yy && yy != xx) PetscCall(VecGetArrayRead(yy, &y));
  PetscCall(VecGetArrayRead(bb, &b));
  if (yy) PetscCall(VecGetArray(xx, &x));
  else PetscCall(VecGetArrayWrite(xx, &x));
  if (yy == xx) y = x;
  /* PETSc's natural-ordering solves use x as the work vector: so can we, except where x is added to */
  natural = (PetscBool)(!ctx->r && !ctx->c && !yy);
  tmp     = natural ? x : ctx->work;
  PetscCall(PetscArrayzero(ctx->progress, 2 * ctx->built_T * AIJHYBRID_LEVELS_STRIDE));
#pragma omp parallel num_threads(ctx->built_T)
  SolveLevels(ctx, kind, fi, fj, fa, b, y, tmp, tmp2, x, ctx->progress);
  PetscCall(VecRestoreArrayRead(bb, &b));
  if (yy) PetscCall(VecRestoreArray(xx, &x));
  else PetscCall(VecRestoreArrayWrite(xx, &x));
  if (yy && yy != xx) PetscCall(VecRestoreArrayRead(yy, &y));
  switch (kind) {
  case SOLVE_ILU:
  case SOLVE_ILU_T:
    PetscCall(PetscLogFlops(2.0 * ctx->nz - n));
    break;
  case SOLVE_ILU_ADD:
    PetscCall(PetscLogFlops(2.0 * ctx->nz));
    break;
  case SOLVE_ICC:
    PetscCall(PetscLogFlops(4.0 * ctx->nz - 3.0 * n));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscLogDouble Median(PetscLogDouble *t, PetscInt n)
{
  for (PetscInt i = 1; i < n; i++) /* insertion sort of a handful */
    for (PetscInt j = i; j > 0 && t[j - 1] > t[j]; j--) {
      PetscLogDouble s = t[j];
      t[j]             = t[j - 1];
      t[j - 1]         = s;
    }
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static void FactorInstall(Mat F, Mat_AIJHybridFactor *ctx, PetscBool threads);

/*
  -mat_aijhybrid_factor_solve auto: the first MatSolve()s alternate PETSc's serial solve and the
  threaded one (a warm-up pair, then AIJHYBRID_FACTOR_TRIALS each), timed on this rank; then the
  faster by median stays for every solve of the factor (MatSolve and friends) until its pattern or
  thread count changes. Both give the same bits, so the choice changes times only, and ranks choose
  independently. A level-scheduled solve waits at every level: on matrices whose levels are narrow,
  or threads that get descheduled, PETSc's serial loop is faster, and then it is the one kept.
*/
static PetscErrorCode FactorTrialSolve(Mat F, Mat_AIJHybridFactor *ctx, SolveKind kind, Vec b, Vec x)
{
  const PetscInt  k = ctx->trials++, round = k / 2 - 1;                 /* round -1: the warm-up pair */
  const PetscBool threaded = (PetscBool)(k % 2 == (round % 2 ? 1 : 0)); /* alternate which goes first */
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  if (threaded) PetscCall(FactorSolveRun(F, kind, b, NULL, x));
  else PetscCall((*ctx->solve)(F, b, x));
  PetscCall(PetscTime(&t1));
  if (round >= 0) {
    if (threaded) ctx->t_threaded[round] = t1 - t0;
    else ctx->t_serial[round] = t1 - t0;
  }
  if (round == AIJHYBRID_FACTOR_TRIALS - 1 && k % 2 == 1) {
    ctx->med_threaded = Median(ctx->t_threaded, AIJHYBRID_FACTOR_TRIALS);
    ctx->med_serial   = Median(ctx->t_serial, AIJHYBRID_FACTOR_TRIALS);
    ctx->decided      = PETSC_TRUE;
    FactorInstall(F, ctx, (PetscBool)(ctx->med_threaded < ctx->med_serial));
    PetscCall(PetscInfo(F, "aijhybrid: MatSolve median %g s threaded (%" PetscInt_FMT " threads, %" PetscInt_FMT "/%" PetscInt_FMT " levels) against %g s serial: %s solves kept\n", ctx->med_threaded, ctx->built_T, ctx->lower.nlevels,
                        ctx->upper.nlevels, ctx->med_serial, ctx->use_threads ? "threaded" : "serial"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_AIJHybridFactor(Mat F, Vec b, Vec x)
{
  Mat_AIJHybridFactor *ctx  = (Mat_AIJHybridFactor *)F->spptr;
  SolveKind            kind = ctx->ftype == MAT_FACTOR_ILU ? SOLVE_ILU : SOLVE_ICC;

  PetscFunctionBegin;
  if (!ctx->decided) PetscCall(FactorTrialSolve(F, ctx, kind, b, x));
  else PetscCall(FactorSolveRun(F, kind, b, NULL, x));
  if (ctx->check) PetscCall(FactorCheck(F, ctx, "MatSolve", ctx->solve, NULL, b, NULL, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a threaded solve of kind, compared with PETSc's (petsc or petscadd) under -mat_aijhybrid_factor_check
   unless y is x (whose values the solve overwrote) */
static PetscErrorCode FactorSolveChecked(Mat F, SolveKind kind, const char *what, AIJHybridSolveFn petsc, AIJHybridSolveAddFn petscadd, Vec b, Vec y, Vec x)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  PetscCall(FactorSolveRun(F, kind, b, y, x));
  if (ctx->check && y != x) PetscCall(FactorCheck(F, ctx, what, petsc, petscadd, b, y, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_AIJHybridFactor(Mat F, Vec b, Vec x)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  /* ICC: PETSc's transposed solve is its solve (the factor is symmetric) */
  PetscCall(FactorSolveChecked(F, ctx->ftype == MAT_FACTOR_ILU ? SOLVE_ILU_T : SOLVE_ICC, "MatSolveTranspose", ctx->solvetranspose, NULL, b, NULL, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveAdd_AIJHybridFactor(Mat F, Vec b, Vec y, Vec x)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  PetscCall(FactorSolveChecked(F, SOLVE_ILU_ADD, "MatSolveAdd", NULL, ctx->solveadd, b, y, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTransposeAdd_AIJHybridFactor(Mat F, Vec b, Vec y, Vec x)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  PetscCall(FactorSolveChecked(F, SOLVE_ILU_T, "MatSolveTransposeAdd", NULL, ctx->solvetransposeadd, b, y, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- factorization hooks */

/* threads: the threaded solves in force (MatSolve and friends); otherwise PETSc's, except that
   MatSolve stays ours while the trial of the auto choice runs */
static void FactorInstall(Mat F, Mat_AIJHybridFactor *ctx, PetscBool threads)
{
  F->ops->solve             = ctx->solve;
  F->ops->solveadd          = ctx->solveadd;
  F->ops->solvetranspose    = ctx->solvetranspose;
  F->ops->solvetransposeadd = ctx->solvetransposeadd;
  ctx->use_threads          = threads;
  if (ctx->solve && (threads || !ctx->decided)) F->ops->solve = MatSolve_AIJHybridFactor;
  if (!threads) return;
  if (ctx->solvetranspose) F->ops->solvetranspose = MatSolveTranspose_AIJHybridFactor;
  if (ctx->ftype == MAT_FACTOR_ILU) {
    if (ctx->solveadd) F->ops->solveadd = MatSolveAdd_AIJHybridFactor;
    if (ctx->solvetransposeadd) F->ops->solvetransposeadd = MatSolveTransposeAdd_AIJHybridFactor;
  }
}

/* a new symbolic factorization (new arrays): PETSc's solves until the next numeric one */
static void FactorSolvesOff(Mat F, Mat_AIJHybridFactor *ctx)
{
  if (!ctx->threaded) return;
  ctx->decided = PETSC_TRUE;
  FactorInstall(F, ctx, PETSC_FALSE);
  ctx->threaded = PETSC_FALSE;
}

/* the thread count of the matrix factored (seqaijhybrid: the only type the factorizations are
   registered for; 1 for any other matrix a numeric factorization is given) */
static PetscErrorCode FactorThreads(Mat A, PetscInt *T)
{
  PetscBool hybrid;

  PetscFunctionBegin;
  *T = 1;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJHYBRID, &hybrid));
  if (hybrid) PetscCall(MatAIJHybridGetNumThreads(A, T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after PETSc's numeric factorization: our solves with the threads of the matrix factored */
static PetscErrorCode FactorAfterNumeric(Mat F, Mat A)
{
  Mat_AIJHybridFactor    *ctx = (Mat_AIJHybridFactor *)F->spptr;
  PetscInt                T;
  MatAIJHybridFactorSolve mode    = MAT_AIJHYBRID_FACTOR_SOLVE_AUTO;
  PetscBool               rebuilt = PETSC_FALSE;

  PetscFunctionBegin;
  ctx->solve             = F->ops->solve;
  ctx->solveadd          = F->ops->solveadd;
  ctx->solvetranspose    = F->ops->solvetranspose;
  ctx->solvetransposeadd = F->ops->solvetransposeadd;
  ctx->threaded          = PETSC_FALSE;
  ctx->use_threads       = PETSC_FALSE;
  PetscCall(MatAIJHybridFactorOptions(A, &mode, &ctx->check)); /* checked even where unused */
  PetscCall(FactorThreads(A, &T));
  ctx->nthreads = T;
  if (T <= 1) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc's solves are the one-thread solves */
  if (ctx->built_pattern != ctx->pattern || ctx->built_T != T) {
    PetscCall(FactorBuild(F, ctx, T));
    rebuilt = PETSC_TRUE;
  }
  if (ctx->reason) PetscFunctionReturn(PETSC_SUCCESS);
  ctx->threaded = PETSC_TRUE;
  if (rebuilt || mode != ctx->mode) { /* a new trial: new schedules, thread count or mode */
    ctx->mode         = mode;
    ctx->trials       = 0;
    ctx->med_threaded = ctx->med_serial = 0;
    ctx->decided                        = (PetscBool)(ctx->mode != MAT_AIJHYBRID_FACTOR_SOLVE_AUTO);
    ctx->use_threads                    = (PetscBool)(ctx->mode != MAT_AIJHYBRID_FACTOR_SOLVE_SERIAL);
  } else ctx->use_threads = ctx->decided ? (PetscBool)(ctx->mode == MAT_AIJHYBRID_FACTOR_SOLVE_THREADED || ctx->med_threaded < ctx->med_serial) : PETSC_FALSE;
  FactorInstall(F, ctx, (PetscBool)(ctx->decided && ctx->use_threads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_AIJHybridFactor(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  PetscCall((*ctx->numeric)(F, A, info));
  PetscCall(FactorAfterNumeric(F, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatILUFactorSymbolic_AIJHybridFactor(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  FactorSolvesOff(F, ctx);
  PetscCall((*ctx->ilusymbolic)(F, A, row, col, info));
  PetscCall(MatAIJHybridForgetComposed(F)); /* copied from A with its function list */
  ctx->numeric            = F->ops->lufactornumeric;
  F->ops->lufactornumeric = MatLUFactorNumeric_AIJHybridFactor;
  PetscCall(FactorSetPermutations(ctx, row, col));
  ctx->pattern++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_AIJHybridFactor(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  FactorSolvesOff(F, ctx);
  PetscCall((*ctx->iccsymbolic)(F, A, perm, info));
  PetscCall(MatAIJHybridForgetComposed(F));
  ctx->numeric                  = F->ops->choleskyfactornumeric;
  F->ops->choleskyfactornumeric = MatLUFactorNumeric_AIJHybridFactor;
  PetscCall(FactorSetPermutations(ctx, perm, perm));
  ctx->pattern++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* LU and Cholesky stay PETSc's: the wrappers only take the plugin's composed functions off the
   factor, which PETSc's symbolic factorization copies from the matrix (MatDuplicateNoCreate_SeqAIJ()) */
static PetscErrorCode MatLUFactorSymbolic_AIJHybridFactor(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  PetscCall((*ctx->ilusymbolic)(F, A, row, col, info));
  PetscCall(MatAIJHybridForgetComposed(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorSymbolic_AIJHybridFactor(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  PetscCall((*ctx->iccsymbolic)(F, A, perm, info));
  PetscCall(MatAIJHybridForgetComposed(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FactorCreate - PETSc's factor of A (seqaijhybrid) as PETSc makes it for seqaij, with our symbolic
  factorization chained in front of PETSc's: for ILU/ICC the threaded solves follow, LU/Cholesky are
  only cleaned of the plugin's composed functions
*/
static PetscErrorCode FactorCreate(Mat A, MatFactorType ftype, Mat *F)
{
  PetscErrorCode (*petsc)(Mat, MatFactorType, Mat *) = NULL;
  Mat_AIJHybridFactor *ctx;

  PetscFunctionBegin;
  /* PETSc's own entry, not replaced: the first handler of "petsc" whose type is a prefix of seqaij */
  PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQAIJ, ftype, NULL, NULL, &petsc));
  PetscCheck(petsc, PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc has no %s factorization of %s", MatFactorTypes[ftype], MATSEQAIJ);
  PetscCall((*petsc)(A, ftype, F));
  if (!*F) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc >= 3.19 declines Hermitian ICC this way */
  PetscCheck(!(*F)->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: PETSc's factor already has a private pointer");
  PetscCall(PetscNew(&ctx));
  ctx->ftype         = ftype;
  ctx->built_pattern = -1;
  ctx->destroy       = (*F)->ops->destroy;
  (*F)->spptr        = ctx;
  (*F)->ops->destroy = MatDestroy_AIJHybridFactor;
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatAIJHybridGetFactorInfo_C", MatAIJHybridGetFactorInfo_Factor));
  switch (ftype) {
  case MAT_FACTOR_ILU:
    ctx->ilusymbolic             = (*F)->ops->ilufactorsymbolic;
    (*F)->ops->ilufactorsymbolic = MatILUFactorSymbolic_AIJHybridFactor;
    break;
  case MAT_FACTOR_ICC:
    ctx->iccsymbolic             = (*F)->ops->iccfactorsymbolic;
    (*F)->ops->iccfactorsymbolic = MatICCFactorSymbolic_AIJHybridFactor;
    break;
  case MAT_FACTOR_LU:
    ctx->ilusymbolic            = (*F)->ops->lufactorsymbolic;
    (*F)->ops->lufactorsymbolic = MatLUFactorSymbolic_AIJHybridFactor;
    break;
  default:
    ctx->iccsymbolic                  = (*F)->ops->choleskyfactorsymbolic;
    (*F)->ops->choleskyfactorsymbolic = MatCholeskyFactorSymbolic_AIJHybridFactor;
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the package's factorizations of seqaijhybrid, as "petsc" (the default: the exact type's handler) ... */
static PetscErrorCode MatGetFactor_SeqAIJHybrid_PETSc(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(FactorCreate(A, ftype, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ... and as "aijhybrid" (-pc_factor_mat_solver_type aijhybrid) */
static PetscErrorCode MatGetFactor_SeqAIJHybrid_AIJHybrid(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(FactorCreate(A, ftype, F));
  if (*F) {
    PetscCall(PetscFree((*F)->solvertype));
    PetscCall(PetscStrallocpy(MATSOLVERAIJHYBRID, &(*F)->solvertype));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetFactorInfo - How the triangular solves of a factor run

  Not Collective

  Input Parameter:
. F - a factor matrix, e.g. from `PCFactorGetMatrix()` of `PCILU`/`PCICC` (also the sub-`PC` of `PCBJACOBI`)

  Output Parameter:
. info - `threaded` (`PETSC_TRUE` when `MatSolve()` and friends run level-scheduled with threads),
         `nthreads`, `levels_lower`, `levels_upper` (levels of the forward and the backward solve),
         `inode` (the arithmetic of PETSc's inode solve), `builds` and `build_time` (level schedules
         built for this factor, seconds of the last build)

  Options Database Keys:
+ -mat_aijhybrid_factor_solve <auto,threaded,serial> - which solves run (see `MATAIJHYBRID`)
- -mat_aijhybrid_factor_check - (debugging) compare every threaded solve with PETSc's (see `MATAIJHYBRID`)

  Both are read when the factor is made, with the options prefix of the matrix factored, then
  without one (the diagonal block `PCBJACOBI` factors has the prefix of its sub-`KSP`, `sub_`).

  Level: intermediate

  Note:
  A factor of a matrix that is not aijhybrid, or of an aijhybrid matrix with one thread, or one
  whose case the package does not cover (docs/preconditioners.md; `-info` says why) keeps
  PETSc's solves: `threaded` is `PETSC_FALSE`.

.seealso: `MATAIJHYBRID`, `PCILU`, `PCICC`, `PCBJACOBI`
@*/
PetscErrorCode MatAIJHybridGetFactorInfo(Mat F, MatAIJHybridFactorInfo *info)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(F, MAT_CLASSID, 1);
  PetscCall(PetscMemzero(info, sizeof(*info))); /* any other factor: PETSc's solves */
  PetscTryMethod(F, "MatAIJHybridGetFactorInfo_C", (Mat, MatAIJHybridFactorInfo *), (F, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the package's factorizations for its own type only, seqaijhybrid, under "petsc" and "aijhybrid":
   PETSc's entries (seqaij and its other types) are left alone */
PetscErrorCode MatAIJHybridFactorRegister(void)
{
  const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC};

  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("AIJHybLevels", MAT_CLASSID, &MATAIJHYBRID_Levels));
  for (PetscInt k = 0; k < 4; k++) {
    PetscCall(MatSolverTypeRegister(MATSOLVERPETSC, MATSEQAIJHYBRID, ftypes[k], MatGetFactor_SeqAIJHybrid_PETSc));
    PetscCall(MatSolverTypeRegister(MATSOLVERAIJHYBRID, MATSEQAIJHYBRID, ftypes[k], MatGetFactor_SeqAIJHybrid_AIJHybrid));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
