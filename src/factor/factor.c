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
     numeric (ILU/ICC)     level-scheduled on the threads with PETSc's bits, or PETSc's serial
                           routine (src/factor/numeric.c, -mat_aijhybrid_factor_numeric), then our
                           solves in place of the ones PETSc's routine installs, with the thread
                           count of the matrix being factored; the level schedules are built once
                           per symbolic factorization (nonzero pattern) and thread count (the
                           forward solve's is the numeric factorization's when that has one)
     MatSolve, MatSolveAdd, MatSolveTranspose, MatSolveTransposeAdd (those PETSc's factor has)

   Each solve runs the rows level by level (src/factor/levels.h), each level's rows split over the
   threads, each row computed by a kernel (src/kernels/trsv.h) with the arithmetic of the PETSc
   routine the factor would run: MatSolve_SeqAIJ(_NaturalOrdering) or MatSolve_SeqAIJ_Inode
   (chosen as PETSc chooses: by the factor's inodes), MatSolveAdd_SeqAIJ,
   MatSolveTranspose(Add)_SeqAIJ, MatSolve_SeqSBAIJ_1(_NaturalOrdering) for ICC (also its
   transposed solve). So the results are bitwise PETSc's for any thread count. With one thread, or
   where a case is not covered (docs/preconditioners.md), the factor keeps PETSc's solves.

   Thread blocks (-mat_aijhybrid_factor_blocks thread, a setting of the matrix): the factorization
   is that of B, the block-diagonal part of the matrix for one block of rows per thread, split as
   PETSc splits rows over ranks (src/factor/blocks.h), with the orderings kept within the blocks,
   which is PCBJACOBI's preconditioner on as many ranks. The symbolic factorization is PETSc's, of B,
   on the main thread; the numeric one runs each block on its thread with the kernels of
   src/kernels/ilu.h (PETSc's arithmetic, the block's own pivot shifts), or, where they do not apply,
   is PETSc's on the main thread; the solves run each block on its thread, one level whose parts are
   the blocks (AIJHybridLevelsBlocks()), nothing to wait for.

   Only the main thread calls PETSc; the parallel regions run the pure kernels on raw arrays.
*/
#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h>
#include "../mat/factorsupport.h"
#include "../kernels/trsv.h"
#include "../kernels/ilu.h"
#include "levels.h"
#include "blocks.h"
#include "numericplan.h"
#include "numeric.h"
#include "factor.h"

#include "../threads/threads.h"

PetscLogEvent MATAIJHYBRID_Levels;

/* the measured choice of -mat_aijhybrid_factor_solve auto (src/tune/choice.h): threaded (A, the
   default) or PETSc's serial solves (B); MatSolve()s in pairs, one warm-up pair, trials of 10 pairs
   (9 wins beyond a 5% margin needed; each trial's test counts every pair so far: 16 of 20, 22 of 30), up
   to 3 trials 100 solves apart, 5% false-choice probability */
static const AIJHybridChoiceRule SolveRule = {10, 3, 1, 100, 0.05, 0.05};

typedef PetscErrorCode (*AIJHybridSolveFn)(Mat, Vec, Vec);
typedef PetscErrorCode (*AIJHybridSolveAddFn)(Mat, Vec, Vec, Vec);

typedef struct {
  MatFactorType ftype; /* MAT_FACTOR_ILU, _ICC, _LU or _CHOLESKY */

  /* PETSc's operations of the factor, which ours chain to */
  PetscErrorCode (*destroy)(Mat);
  PetscErrorCode (*ilusymbolic)(Mat, Mat, IS, IS, const MatFactorInfo *); /* ILU or LU */
  PetscErrorCode (*iccsymbolic)(Mat, Mat, IS, const MatFactorInfo *);     /* ICC or Cholesky */
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *);
  AIJHybridNumeric    num; /* the level-scheduled numeric factorization of the whole matrix (src/factor/numeric.h) */
  AIJHybridSolveFn    solve, solvetranspose;
  AIJHybridSolveAddFn solveadd, solvetransposeadd;

  /* permutations of the symbolic factorization (ICC: col = row) and their indices (NULL: identity) */
  IS              row, col;
  const PetscInt *r, *c;

  /* -mat_aijhybrid_factor_blocks thread: the factor is that of B, the block-diagonal part of the
     matrix for nblocks blocks of rows bounds[b] .. bounds[b+1]-1 (0 blocks: the matrix's own factor);
     the permutations keep each block's rows in the block, so the factor's rows of block b are the
     same positions. Row i of B is the matrix's nonzeros alo[i] .. alo[i] + (bi[i+1] - bi[i]) - 1. */
  PetscInt         nblocks;
  PetscInt        *bounds, *alo;
  Mat              B;
  PetscInt        *Bi, *Bj; /* B's arrays, kept by the factor (MatCreateSeqAIJWithArrays()) */
  PetscScalar     *Ba;
  PetscInt        *badiag;           /* B's diagonal positions */
  PetscInt        *ic;               /* the inverse of the column permutation (ICC: of the permutation); NULL: identity */
  PetscObjectState anzstate;         /* the matrix's nonzero state B is for */
  const char      *blocks_off;       /* why thread blocks were asked for and not made (NULL: not asked, or made) */
  const char      *kernel_off;       /* why the blocks' numeric factorization is PETSc's, on one thread (NULL: the threads' kernels) */
  PetscBool        own_solves;       /* the package's kernels made the factor: PETSc's solves were never installed, ours are the only ones */
  PetscBool        numeric_threaded; /* the last numeric factorization ran on the threads (thread blocks; else see num) */
  /* the plan of the threads' numeric factorization (src/factor/numericplan.h), for symbolic factorization plan_pattern:
     ILU of a matrix with inodes: nf nodes nstart, factor row i loading matrix row narow[i], block b
     the nodes bnode[b] .. bnode[b+1]-1; ICC: the contributors of each row (cptr, crow, cpos) */
  PetscInt  plan_pattern, nf;
  PetscInt *nstart, *narow, *bnode;
  PetscInt *cptr, *crow, *cpos;
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

  /* -mat_aijhybrid_factor_solve: auto measures MatSolve()s both ways and keeps PETSc's only when
     measured faster (both give the same bits); threaded / serial force one */
  MatAIJHybridFactorSolve mode;
  PetscInt                trial_builds; /* the schedules (builds) the choice is for */
  AIJHybridChoice         choice;       /* A: threaded, B: PETSc's serial solves (src/tune/choice.h) */
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

static PetscErrorCode FactorResetPlan(Mat_AIJHybridFactor *ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(ctx->nstart));
  PetscCall(PetscFree(ctx->narow));
  PetscCall(PetscFree(ctx->bnode));
  PetscCall(PetscFree(ctx->cptr));
  PetscCall(PetscFree2(ctx->crow, ctx->cpos));
  ctx->nf           = 0;
  ctx->plan_pattern = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorResetBlocks(Mat_AIJHybridFactor *ctx)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&ctx->B));
  PetscCall(PetscFree2(ctx->Bi, ctx->Bj));
  PetscCall(PetscFree(ctx->Ba));
  PetscCall(PetscFree2(ctx->bounds, ctx->alo));
  PetscCall(PetscFree(ctx->badiag));
  PetscCall(PetscFree(ctx->ic));
  PetscCall(FactorResetPlan(ctx));
  ctx->nblocks    = 0;
  ctx->blocks_off = NULL;
  ctx->kernel_off = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_AIJHybridFactor(Mat F)
{
  Mat_AIJHybridFactor *ctx       = (Mat_AIJHybridFactor *)F->spptr;
  PetscErrorCode (*destroy)(Mat) = ctx->destroy;

  PetscFunctionBegin;
  PetscCall(FactorResetSchedules(ctx));
  PetscCall(FactorResetPermutations(ctx));
  PetscCall(FactorResetBlocks(ctx));
  PetscCall(AIJHybridNumericDestroy(&ctx->num));
  PetscCall(PetscFree(ctx));
  F->spptr        = NULL;
  F->ops->destroy = destroy;
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatAIJHybridGetFactorInfo_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatAIJHybridGetFactorChoiceSamples_C", NULL));
  PetscCall((*destroy)(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the threaded solves are in force (not PETSc's chosen or forced) */
static PetscBool SolveThreaded(const Mat_AIJHybridFactor *ctx)
{
  return (PetscBool)(ctx->choice.in_force == 0);
}

/* the public record of a measured choice (NULL: none made, PETSc's serial routine only) */
static void ChoiceInfo(const AIJHybridChoice *c, MatAIJHybridChoiceInfo *ci)
{
  ci->state           = !c ? MAT_AIJHYBRID_CHOICE_NONE : (MatAIJHybridChoiceState)c->state;
  ci->trials          = c ? c->trial : 0;
  ci->pairs           = c ? c->npairs : 0;
  ci->wins_threaded   = c ? c->wins_a : 0;
  ci->wins_serial     = c ? c->wins_b : 0;
  ci->needed          = c ? c->needed : 0;
  ci->uses            = c ? c->uses : 0;
  ci->decided_at      = c ? c->decided_at : -1;
  ci->median_threaded = c ? c->median_a : 0;
  ci->median_serial   = c ? c->median_b : 0;
}

/* the implementation composed on the factors this package makes (FactorCreate()) */
static PetscErrorCode MatAIJHybridGetFactorInfo_Factor(Mat F, MatAIJHybridFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx;

  PetscFunctionBegin;
  if (F->ops->destroy != MatDestroy_AIJHybridFactor) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc replaced the factor's data */
  ctx                 = (Mat_AIJHybridFactor *)F->spptr;
  info->threaded      = ctx->threaded;
  info->in_use        = (PetscBool)(ctx->threaded && SolveThreaded(ctx));
  info->decided       = (PetscBool)(!ctx->threaded || ctx->choice.state != AIJHYBRID_CHOICE_MEASURING);
  info->time_threaded = ctx->threaded ? ctx->choice.median_a : 0;
  info->time_serial   = ctx->threaded ? ctx->choice.median_b : 0;
  ChoiceInfo(ctx->threaded ? &ctx->choice : NULL, &info->solve_choice);
  info->nthreads     = ctx->threaded ? ctx->built_T : 1;
  info->levels_lower = ctx->threaded ? ctx->lower.nlevels : 0;
  info->levels_upper = ctx->threaded ? ctx->upper.nlevels : 0;
  info->inode        = ctx->inode;
  info->builds       = ctx->builds;
  info->build_time   = ctx->build_time;
  info->blocks       = ctx->nblocks;
  if (ctx->nblocks) { /* each block by its thread, no measured choice */
    info->numeric_threaded = ctx->numeric_threaded;
    ChoiceInfo(NULL, &info->numeric_choice);
  } else {
    AIJHybridNumericInfo ni;

    PetscCall(AIJHybridNumericGetInfo(ctx->num, &ni));
    info->numeric_threaded       = ni.threaded;
    info->numeric_inode          = ni.inode;
    info->numeric_levels         = ni.nlevels;
    info->numeric_count          = ni.calls;
    info->numeric_threaded_count = ni.threaded_calls;
    info->numeric_plans          = ni.plans;
    info->numeric_plan_time      = ni.plan_time;
    ChoiceInfo(ni.reason ? NULL : ni.choice, &info->numeric_choice);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the implementation of MatAIJHybridGetFactorChoiceSamples() composed on the factors this package wraps */
static PetscErrorCode MatAIJHybridGetFactorChoiceSamples_Factor(Mat F, PetscBool numeric, PetscInt *n, const PetscLogDouble *threaded[], const PetscLogDouble *serial[])
{
  Mat_AIJHybridFactor   *ctx;
  const AIJHybridChoice *c = NULL;

  PetscFunctionBegin;
  if (F->ops->destroy != MatDestroy_AIJHybridFactor) PetscFunctionReturn(PETSC_SUCCESS);
  ctx = (Mat_AIJHybridFactor *)F->spptr;
  if (numeric) {
    AIJHybridNumericInfo ni;

    PetscCall(AIJHybridNumericGetInfo(ctx->num, &ni));
    if (!ni.reason && !ctx->nblocks) c = ni.choice;
  } else if (ctx->threaded) c = &ctx->choice;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  *n        = c->npairs;
  *threaded = c->a;
  *serial   = c->b;
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

/* the backward phase may follow the forward one without a barrier: both in place over the same
   parts (thread blocks), so each thread's backward rows need only the rows its own forward phase
   computed, as block Jacobi's ranks go on without waiting for each other */
static inline PetscBool PhasesIndependent(const AIJHybridLevels *fw, const AIJHybridLevels *bw)
{
  if (!fw->inplace || !bw->inplace || fw->nthreads != bw->nthreads || fw->nlevels != 1 || bw->nlevels != 1) return PETSC_FALSE;
  for (PetscInt t = 0; t <= fw->nthreads; t++)
    if (fw->tb[t] != bw->tb[t]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* the barrier between the phases (none when they are independent) */
#define PHASE_BARRIER(fw, bw) \
  do { \
    if (!PhasesIndependent((fw), (bw))) { _Pragma("omp barrier") } \
  } while (0)

/*
  x = F^{-1} b (and friends), the forward phase then the backward phase (one barrier between
  them, unless PhasesIndependent()). Runs on all threads of the region; calls no PETSc. progress: 2 * T counters, zero.
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

    if (inode) RUN_PHASE(lo, pf, AIJHybridTrsvLowerInode(ks, ke, AIJHybridLevelsOrder(lo), ctx->npair, bi, bj, ba, r, b, tmp));
    else RUN_PHASE(lo, pf, AIJHybridTrsvLower(ks, ke, AIJHybridLevelsOrder(lo), bi, bj, ba, r, b, tmp));
    PHASE_BARRIER(lo, up);
    if (kind == SOLVE_ILU_ADD) RUN_PHASE(up, pb, AIJHybridTrsvUpperAdd(ks, ke, AIJHybridLevelsOrder(up), ctx->bdiag, bj, ba, c, tmp, y, x));
    else if (inode) RUN_PHASE(up, pb, AIJHybridTrsvUpperInode(ks, ke, AIJHybridLevelsOrder(up), ctx->nskip, ctx->bdiag, bj, ba, c, tmp, x));
    else RUN_PHASE(up, pb, AIJHybridTrsvUpper(ks, ke, AIJHybridLevelsOrder(up), ctx->bdiag, bj, ba, c, tmp, x));
  } break;
  case SOLVE_ILU_T: {
    const AIJHybridLevels *fw = &ctx->lowerT, *bw = &ctx->upperT;

    RUN_PHASE(fw, pf, AIJHybridTrsvUpperT(ks, ke, AIJHybridLevelsOrder(fw), ctx->cscU.ptr, ctx->cscU.row, ctx->cscU.pos, ctx->bdiag, ba, c, b, tmp));
    PHASE_BARRIER(fw, bw);
    RUN_PHASE(bw, pb, AIJHybridTrsvLowerT(ks, ke, AIJHybridLevelsOrder(bw), ctx->cscL.ptr, ctx->cscL.row, ctx->cscL.pos, ba, r, tmp, y, x));
  } break;
  case SOLVE_ICC: {
    const AIJHybridLevels *fw = &ctx->lower, *bw = &ctx->upper;

    RUN_PHASE(fw, pf, AIJHybridTrsvICCForward(ks, ke, AIJHybridLevelsOrder(fw), ctx->cscU.ptr, ctx->cscU.row, ctx->cscU.pos, bi, ba, r, b, tmp2, tmp));
    PHASE_BARRIER(fw, bw);
    RUN_PHASE(bw, pb, AIJHybridTrsvICCBackward(ks, ke, AIJHybridLevelsOrder(bw), bi, bj, ba, r, tmp, x));
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

/* ILU: PETSc's diagonal positions of U: the numeric plan's for this pattern when it has them, else
   recovered from the pattern (AIJHybridILUDiagonal(), which checks the layout) */
static PetscErrorCode ILURecoverDiag(Mat_AIJHybridFactor *ctx, const PetscInt *bi, const PetscInt *bj, PetscBool *ok)
{
  const PetscInt *known = NULL;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(PetscMalloc1(ctx->n + 1, &ctx->bdiag));
  if (!ctx->nblocks) PetscCall(AIJHybridNumericGetDiagonal(ctx->num, bi, bj, ctx->nz, &known));
  if (known) PetscCall(PetscArraycpy(ctx->bdiag, known, ctx->n + 1));
  else PetscCall(AIJHybridILUDiagonal(ctx->n, bi, bj, ctx->nz, ctx->bdiag, ok));
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

/* the schedule of one triangular solve with T threads: level-scheduled, or with thread blocks, one
   level whose part b is block b (the dependencies are checked to stay in their blocks) */
static PetscErrorCode FactorSchedule(Mat_AIJHybridFactor *ctx, PetscInt n, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscBool forward, PetscInt T, AIJHybridLevels *lv)
{
  PetscFunctionBegin;
  if (ctx->nblocks) PetscCall(AIJHybridLevelsBlocks(n, start, end, ind, forward, ctx->nblocks, ctx->bounds, lv));
  else PetscCall(AIJHybridLevelsBuild(n, start, end, ind, forward, T, AIJHYBRID_LEVELS_MAXCHAIN, lv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the forward solve's schedule: the numeric factorization's when it has one over the rows for T
   threads (the same dependencies: L's rows, U's columns), else made by FactorSchedule() */
static PetscErrorCode FactorLowerSchedule(Mat_AIJHybridFactor *ctx, PetscInt n, const PetscInt start[], const PetscInt end[], const PetscInt ind[], PetscInt T, AIJHybridLevels *lv)
{
  const AIJHybridLevels *nlv = NULL;

  PetscFunctionBegin;
  if (!ctx->nblocks) PetscCall(AIJHybridNumericGetRowLevels(ctx->num, T, &nlv));
  if (nlv && nlv->n == n) PetscCall(AIJHybridLevelsCopy(nlv, lv));
  else PetscCall(FactorSchedule(ctx, n, start, end, ind, PETSC_TRUE, T, lv));
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
      PetscCall(FactorLowerSchedule(ctx, n, fi, fi + 1, fj, T, &ctx->lower));
      PetscCall(FactorSchedule(ctx, n, start, bdiag, fj, PETSC_FALSE, T, &ctx->upper));
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
      PetscCall(FactorLowerSchedule(ctx, n, ctx->cscU.ptr, ctx->cscU.ptr + 1, ctx->cscU.row, T, &ctx->lower));
      PetscCall(FactorSchedule(ctx, n, fi, end, fj, PETSC_FALSE, T, &ctx->upper));
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
  PetscCall(FactorSchedule(ctx, n, ctx->cscU.ptr, ctx->cscU.ptr + 1, ctx->cscU.row, PETSC_TRUE, T, &ctx->lowerT));
  PetscCall(FactorSchedule(ctx, n, ctx->cscL.ptr, ctx->cscL.ptr + 1, ctx->cscL.row, PETSC_FALSE, T, &ctx->upperT));
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

static void FactorInstall(Mat F, Mat_AIJHybridFactor *ctx);

/*
  MatSolve with -mat_aijhybrid_factor_solve auto: the measured choice (src/tune/choice.h) asks each
  solve which to run and whether to time it; the trial's solves alternate PETSc's serial solve and
  the threaded one in pairs, timed on this rank. When a trial chooses PETSc's solves they are
  installed for every solve of the factor (MatSolve and friends) until its pattern, thread count or
  mode changes; otherwise the threaded ones stay (a "cannot tell" may be tried again later). Both
  give the same bits, so the choice changes times only, and ranks choose independently. A
  level-scheduled solve waits at every level: on matrices whose levels are narrow, or threads that
  get descheduled, PETSc's serial loop can be faster.
*/
static PetscErrorCode MatSolve_AIJHybridFactor(Mat F, Vec b, Vec x)
{
  Mat_AIJHybridFactor *ctx  = (Mat_AIJHybridFactor *)F->spptr;
  SolveKind            kind = ctx->ftype == MAT_FACTOR_ILU ? SOLVE_ILU : SOLVE_ICC;
  PetscBool            timed;
  const PetscInt       which = AIJHybridChoiceNext(&ctx->choice, &timed);
  PetscLogDouble       t0 = 0, t1 = 0;

  PetscFunctionBegin;
  if (timed) PetscCall(PetscTime(&t0));
  if (which == 0 || !ctx->solve) PetscCall(FactorSolveRun(F, kind, b, NULL, x));
  else PetscCall((*ctx->solve)(F, b, x));
  if (timed) {
    PetscCall(PetscTime(&t1));
    AIJHybridChoiceAdd(&ctx->choice, which, t1 - t0);
    if (ctx->choice.decided_at == ctx->choice.uses) { /* this solve completed a trial */
      PetscCall(PetscInfo(F,
                          "aijhybrid: MatSolve, trial %" PetscInt_FMT " of the measured choice (%" PetscInt_FMT " threads, %" PetscInt_FMT "/%" PetscInt_FMT " levels): threaded faster in %" PetscInt_FMT " pairs, serial in %" PetscInt_FMT
                          " (%" PetscInt_FMT " needed; medians %g s and %g s): %s\n",
                          ctx->choice.trial, ctx->built_T, ctx->lower.nlevels, ctx->upper.nlevels, ctx->choice.wins_a, ctx->choice.wins_b, ctx->choice.needed, ctx->choice.median_a, ctx->choice.median_b,
                          ctx->choice.state == AIJHYBRID_CHOICE_A ? "threaded solves" : (ctx->choice.state == AIJHYBRID_CHOICE_B ? "PETSc's serial solves" : "cannot tell, threaded solves kept")));
      FactorInstall(F, ctx);
    }
  }
  if (ctx->check && which == 0 && ctx->solve) PetscCall(FactorCheck(F, ctx, "MatSolve", ctx->solve, NULL, b, NULL, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a threaded solve of kind, compared with PETSc's (petsc or petscadd) under -mat_aijhybrid_factor_check
   unless y is x (whose values the solve overwrote) */
static PetscErrorCode FactorSolveChecked(Mat F, SolveKind kind, const char *what, AIJHybridSolveFn petsc, AIJHybridSolveAddFn petscadd, Vec b, Vec y, Vec x)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;

  PetscFunctionBegin;
  PetscCall(FactorSolveRun(F, kind, b, y, x));
  if (ctx->check && y != x && (petsc || petscadd)) PetscCall(FactorCheck(F, ctx, what, petsc, petscadd, b, y, x));
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

/* the solves in force: PETSc's where the choice (or the option) says serial, else ours (MatSolve
   through MatSolve_AIJHybridFactor(), which also runs the trials of the measured choice) */
static void FactorInstall(Mat F, Mat_AIJHybridFactor *ctx)
{
  const PetscBool own = ctx->own_solves; /* no PETSc solves: ours, all of them (those PETSc's numeric factorization installs) */

  F->ops->solve             = ctx->solve;
  F->ops->solveadd          = ctx->solveadd;
  F->ops->solvetranspose    = ctx->solvetranspose;
  F->ops->solvetransposeadd = ctx->solvetransposeadd;
  if (!ctx->threaded || !SolveThreaded(ctx)) return;
  if (ctx->solve || own) F->ops->solve = MatSolve_AIJHybridFactor;
  if (ctx->solvetranspose || own) F->ops->solvetranspose = MatSolveTranspose_AIJHybridFactor;
  if (ctx->ftype == MAT_FACTOR_ILU) {
    if (ctx->solveadd || own) F->ops->solveadd = MatSolveAdd_AIJHybridFactor;
    if (ctx->solvetransposeadd || own) F->ops->solvetransposeadd = MatSolveTransposeAdd_AIJHybridFactor;
  }
}

/* a new symbolic factorization (new arrays): PETSc's solves until the next numeric one */
static void FactorSolvesOff(Mat F, Mat_AIJHybridFactor *ctx)
{
  if (!ctx->threaded) return;
  ctx->threaded = PETSC_FALSE;
  FactorInstall(F, ctx);
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

/* a new symbolic factorization: PETSc's solves of the old one are not to be used */
static void FactorForgetSolves(Mat_AIJHybridFactor *ctx)
{
  ctx->solve = ctx->solvetranspose = NULL;
  ctx->solveadd = ctx->solvetransposeadd = NULL;
}

/* after a numeric factorization (petsc: PETSc's, which installed its solves; otherwise the package's
   kernels, and PETSc's solves are those of an earlier PETSc factorization of this pattern, or none):
   our solves with the threads of the matrix factored */
static PetscErrorCode FactorAfterNumeric(Mat F, Mat A, PetscBool petsc)
{
  Mat_AIJHybridFactor    *ctx = (Mat_AIJHybridFactor *)F->spptr;
  PetscInt                T;
  MatAIJHybridFactorSolve mode = MAT_AIJHYBRID_FACTOR_SOLVE_AUTO, nmode = MAT_AIJHYBRID_FACTOR_SOLVE_AUTO;
  PetscBool               rebuilt = PETSC_FALSE;

  PetscFunctionBegin;
  if (petsc) {
    ctx->solve             = F->ops->solve;
    ctx->solveadd          = F->ops->solveadd;
    ctx->solvetranspose    = F->ops->solvetranspose;
    ctx->solvetransposeadd = F->ops->solvetransposeadd;
  }
  ctx->own_solves = (PetscBool)!ctx->solve;
  ctx->threaded   = PETSC_FALSE;
  PetscCall(MatAIJHybridFactorOptions(A, &mode, &ctx->check, &nmode)); /* checked even where unused */
  PetscCall(FactorThreads(A, &T));
  if (ctx->nblocks) T = ctx->nblocks; /* one thread per block, as many as at the symbolic factorization */
  ctx->nthreads = T;
  if (T <= 1) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc's solves are the one-thread solves */
  if (ctx->built_pattern != ctx->pattern || ctx->built_T != T) PetscCall(FactorBuild(F, ctx, T));
  rebuilt = (PetscBool)(ctx->builds != ctx->trial_builds); /* here or before the numeric factorization (thread blocks) */
  if (ctx->reason) PetscFunctionReturn(PETSC_SUCCESS);
  ctx->threaded = PETSC_TRUE;
  if (ctx->own_solves) mode = MAT_AIJHYBRID_FACTOR_SOLVE_THREADED; /* no serial solves to choose */
  if (rebuilt || mode != ctx->mode) {                              /* a new choice: new schedules, thread count or mode */
    ctx->trial_builds = ctx->builds;
    ctx->mode         = mode;
    AIJHybridChoiceInit(&ctx->choice, &SolveRule);
    if (mode == MAT_AIJHYBRID_FACTOR_SOLVE_THREADED) AIJHybridChoiceFix(&ctx->choice, 0);
    else if (mode == MAT_AIJHYBRID_FACTOR_SOLVE_SERIAL) AIJHybridChoiceFix(&ctx->choice, 1);
  }
  FactorInstall(F, ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- thread blocks */

/* an ordering kept within the blocks (AIJHybridBlocksRestrict()); the identity stays itself */
static PetscErrorCode FactorBlocksOrdering(Mat_AIJHybridFactor *ctx, IS perm, IS *out)
{
  PetscBool       identity;
  const PetscInt *p;
  PetscInt       *q, n = ctx->bounds[ctx->nblocks];

  PetscFunctionBegin;
  PetscCall(ISIdentity(perm, &identity));
  if (identity) {
    PetscCall(PetscObjectReference((PetscObject)perm));
    *out = perm;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(n, &q));
  PetscCall(ISGetIndices(perm, &p));
  PetscCall(AIJHybridBlocksRestrict(n, ctx->nblocks, ctx->bounds, p, q));
  PetscCall(ISRestoreIndices(perm, &p));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, q, PETSC_OWN_POINTER, out));
  PetscCall(ISSetPermutation(*out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FactorBlocksSetUp - at a symbolic factorization of A: with -mat_aijhybrid_factor_blocks thread and
  T > 1 threads, B the block-diagonal part of A for T blocks split as PETSc splits rows over ranks,
  and the orderings row, col (ICC: col NULL) kept within the blocks (*brow, *bcol: new references);
  otherwise no blocks (*Afactor is A, the orderings themselves). B's values are set before each
  numeric factorization.
*/
static PetscErrorCode FactorBlocksSetUp(Mat_AIJHybridFactor *ctx, Mat A, IS row, IS col, Mat *Afactor, IS *brow, IS *bcol)
{
  MatAIJHybridFactorBlocks fb = MAT_AIJHYBRID_FACTOR_BLOCKS_NONE;
  PetscBool                hybrid, sorted;
  PetscInt                 T, n = A->rmap->n, *bi, *bj;
  const PetscInt          *ai, *aj;
  PetscScalar             *ba;

  PetscFunctionBegin;
  PetscCall(FactorResetBlocks(ctx));
  *Afactor = A;
  *brow    = row;
  *bcol    = col;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJHYBRID, &hybrid));
  if (hybrid) PetscCall(MatAIJHybridGetFactorBlocks(A, &fb));
  if (fb != MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FactorThreads(A, &T));
  if (T < 2) {
    ctx->blocks_off = "one thread: the matrix is the one block";
    PetscCall(PetscInfo(A, "aijhybrid: -mat_aijhybrid_factor_blocks thread: %s\n", ctx->blocks_off));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, NULL, NULL));
  PetscCall(PetscMalloc2(T + 1, &ctx->bounds, n, &ctx->alo));
  AIJHybridBlocksSplit(n, T, ctx->bounds);
  PetscCall(AIJHybridBlocksPattern(n, ai, aj, T, ctx->bounds, ctx->alo, &bi, &bj, &sorted));
  if (!sorted) {
    PetscCall(PetscFree2(ctx->bounds, ctx->alo));
    ctx->blocks_off = "the matrix's columns are not sorted";
    PetscCall(PetscInfo(A, "aijhybrid: -mat_aijhybrid_factor_blocks thread: %s\n", ctx->blocks_off));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ctx->nblocks = T;
  PetscCall(MatGetNonzeroState(A, &ctx->anzstate));
  /* B on the arrays themselves, kept by the factor: MatSeqAIJSetPreallocationCSR() would insert
     every nonzero with MatSetValues() (most of the symbolic factorization's time at 10^6 rows);
     assembled, so inodes are as PETSc finds them in a rank's block. The values are zeroed here by
     each block's thread (their first touch, so pages sit by the thread that factors the block) and
     set before each numeric factorization by the same threads. */
  PetscCall(PetscMalloc1(bi[n], &ba));
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (PetscInt b = 0; b < T; b++) /* zero (PETSc's assembly may read them) by the block's thread, their first touch */
    for (PetscInt p = bi[ctx->bounds[b]]; p < bi[ctx->bounds[b + 1]]; p++) ba[p] = 0.0;
  ctx->Bi = bi;
  ctx->Bj = bj;
  ctx->Ba = ba;
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, bi, bj, ba, &ctx->B));
  PetscCall(MatPropagateSymmetryOptions(A, ctx->B));
  PetscCall(FactorBlocksOrdering(ctx, row, brow));
  if (col) PetscCall(FactorBlocksOrdering(ctx, col, bcol));
  *Afactor = ctx->B;
  { /* for the kernels: B's diagonal positions, the inverse of the column ordering (ICC: of the ordering) */
    const PetscInt *Bi, *Bj;
    PetscBool       identity;
    IS              c       = col ? *bcol : *brow, cinv;
    PetscInt        missing = 0, *bd;

    PetscCall(MatSeqAIJGetCSRAndMemType(ctx->B, &Bi, &Bj, NULL, NULL));
    PetscCall(PetscMalloc1(n, &ctx->badiag));
    bd = ctx->badiag;
#pragma omp parallel for num_threads(T) schedule(static, 1) reduction(+ : missing)
    for (PetscInt b = 0; b < T; b++)
      for (PetscInt i = ctx->bounds[b]; i < ctx->bounds[b + 1]; i++) {
        bd[i] = -1;
        for (PetscInt p = Bi[i]; p < Bi[i + 1]; p++)
          if (Bj[p] == i) bd[i] = p;
        missing += bd[i] < 0;
      }
    if (missing) ctx->kernel_off = "a diagonal entry is missing";
    PetscCall(ISIdentity(c, &identity));
    if (!identity) {
      const PetscInt *ci;

      PetscCall(ISInvertPermutation(c, PETSC_DECIDE, &cinv));
      PetscCall(ISGetIndices(cinv, &ci));
      PetscCall(PetscMalloc1(n, &ctx->ic));
      PetscCall(PetscArraycpy(ctx->ic, ci, n));
      PetscCall(ISRestoreIndices(cinv, &ci));
      PetscCall(ISDestroy(&cinv));
    }
  }
  PetscCall(PetscInfo(A, "aijhybrid: %s factorization of the block-diagonal part, %" PetscInt_FMT " thread blocks; numeric factorization: %s%s\n", ctx->ftype == MAT_FACTOR_ILU ? "ILU" : "ICC", T,
                      ctx->kernel_off ? "PETSc's on one thread: " : "the threads' kernels", ctx->kernel_off ? ctx->kernel_off : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B's values from A's, each thread its block's rows */
static PetscErrorCode FactorBlocksValues(Mat_AIJHybridFactor *ctx, Mat A)
{
  const PetscScalar *aa;
  PetscScalar       *ba;
  const PetscInt    *bi, *bounds = ctx->bounds, *alo = ctx->alo;
  PetscObjectState   nzstate;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, &nzstate));
  PetscCheck(nzstate == ctx->anzstate, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "aijhybrid: the matrix's nonzero pattern changed since the symbolic factorization");
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(MatSeqAIJGetCSRAndMemType(ctx->B, &bi, NULL, NULL, NULL));
  PetscCall(MatSeqAIJGetArrayWrite(ctx->B, &ba));
#pragma omp parallel for num_threads(ctx->nblocks) schedule(static, 1)
  for (PetscInt b = 0; b < ctx->nblocks; b++) AIJHybridBlocksValues(bounds[b], bounds[b + 1], alo, bi, aa, ba);
  PetscCall(MatSeqAIJRestoreArrayWrite(ctx->B, &ba));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FactorBlocksPlan - what the kernels of src/kernels/ilu.h need besides the factor's pattern, once per
  symbolic factorization: ILU of a matrix with inodes, whose numeric factorization PETSc makes with
  MatLUFactorNumeric_SeqAIJ_Inode(), the nodes it computes together (each within a block); ICC, the
  order in which each row's contributors are added. Sets ctx->kernel_off where they do not apply.
*/
static PetscErrorCode FactorBlocksPlan(Mat_AIJHybridFactor *ctx)
{
  const PetscInt n = ctx->n, nb = ctx->nblocks;

  PetscFunctionBegin;
  if (ctx->plan_pattern == ctx->pattern) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FactorResetPlan(ctx));
  ctx->plan_pattern = ctx->pattern;
  if (ctx->ftype == MAT_FACTOR_ILU) {
    PetscInt  nnodes = 0, *sizes = NULL, *ns;
    PetscBool ok;

    PetscCall(MatInodeGetInodeSizes(ctx->B, &nnodes, &sizes, NULL));
    if (!sizes) PetscFunctionReturn(PETSC_SUCCESS); /* MatLUFactorNumeric_SeqAIJ(): row by row */
    PetscCall(PetscMalloc1(nnodes, &ns));
#if PETSC_VERSION_LT(3, 24, 0)
    for (PetscInt k = 0; k < nnodes; k++) ns[k] = sizes[k];
    PetscCall(AIJHybridILUNodes(n, nnodes, ns, ctx->r, PETSC_FALSE, &ctx->nf, &ctx->nstart, &ctx->narow, &ok));
#else
    for (PetscInt k = 0; k < nnodes; k++) ns[k] = sizes[k + 1] - sizes[k];     /* cumulative (inode.size_csr) */
    PetscCall(AIJHybridILUNodes(n, nnodes, ns, ctx->r, PETSC_TRUE, &ctx->nf, &ctx->nstart, &ctx->narow, &ok));
#endif
    PetscCall(PetscFree(ns));
    if (ok) {
      const PetscInt *Bi;

      PetscCall(MatSeqAIJGetCSRAndMemType(ctx->B, &Bi, NULL, NULL, NULL));
      PetscCall(AIJHybridILUNodesCheck(n, ctx->fi, ctx->fj, ctx->bdiag, ctx->nf, ctx->nstart, Bi, ctx->narow, &ok));
    }
    if (ok) { /* each block a run of whole nodes */
      PetscCall(PetscMalloc1(nb + 1, &ctx->bnode));
      for (PetscInt b = 0, u = 0; b <= nb && ok; b++) {
        while (u < ctx->nf && ctx->nstart[u] < ctx->bounds[b]) u++;
        ctx->bnode[b] = u;
        if ((u < ctx->nf ? ctx->nstart[u] : n) != ctx->bounds[b]) ok = PETSC_FALSE;
      }
    }
    if (!ok) {
      ctx->kernel_off = "the inode nodes of PETSc's numeric factorization are not the ones the kernels compute";
      PetscCall(FactorResetPlan(ctx));
      ctx->plan_pattern = ctx->pattern;
    }
  } else PetscCall(AIJHybridICCContributors(n, ctx->fi, ctx->fj, &ctx->cptr, &ctx->crow, &ctx->cpos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  BlockNumeric - (pure, run by one thread) the numeric factorization of block b: its rows (or inode  nodes) in order, in passes as PETSc's shift strategies make them (MatPivotCheck(); ILU: MatPivotRefine()),
  with the block's own shift: what PETSc's factorization of the block alone does. *st: the last
  pass's pivots; *sh: the shifts; *flops: all passes'.
*/
static void BlockNumeric(const Mat_AIJHybridFactor *ctx, PetscInt b, const PetscInt *Bi, const PetscInt *Bj, const PetscScalar *Ba, PetscScalar *fa, const AIJHybridPivotRule *given, PetscScalar *rtmp, AIJHybridPivotStatus *st, AIJHybridShift *sh,
                         PetscLogDouble *flops)
{
  const PetscInt     s = ctx->bounds[b], e = ctx->bounds[b + 1], *ic = ctx->ic, *r = ctx->r;
  AIJHybridPivotRule rule = *given;

  AIJHybridShiftInit(sh, rule.type, rule.type == AIJHYBRID_SHIFT_POSITIVE_DEFINITE ? AIJHybridShiftTop(e - s, Bi + s, ctx->badiag + s, Ba, rule.zeropivot) : 0);
  *flops = 0;
  for (;;) {
    rule.shift = sh->shift_amount;
    AIJHybridPivotStatusInit(st);
    if (ctx->ftype == MAT_FACTOR_ICC) AIJHybridICCNumericRows(s, e, NULL, Bi, Bj, Ba, r, ic, ctx->fi, ctx->fj, fa, fa, ctx->cptr, ctx->crow, ctx->cpos, &rule, rtmp, st);
    else if (ctx->nstart) AIJHybridILUNumericNodes(ctx->bnode[b], ctx->bnode[b + 1], NULL, ctx->nstart, ctx->n, Bi, Bj, Ba, ctx->narow, ic, ctx->fi, ctx->fj, ctx->bdiag, fa, &rule, rtmp, st);
    else AIJHybridILUNumericRows(s, e, NULL, Bi, Bj, Ba, r, ic, ctx->fi, ctx->fj, ctx->bdiag, fa, &rule, rtmp, st);
    *flops += st->flops;
    if (st->newshift) AIJHybridShiftFailed(sh, &rule);
    else if (ctx->ftype == MAT_FACTOR_ICC || !AIJHybridShiftRefine(sh, rule.type)) break; /* (MatCholeskyFactorNumeric_SeqAIJ() does not refine) */
  }
}

/*
  FactorBlocksNumeric - the numeric factorization of B, each block by its thread with the kernels of
  src/kernels/ilu.h (*done), unless they do not cover the case (ctx->kernel_off, or a factor layout
  the solves do not recognise: ctx->reason), which PETSc's numeric factorization then does on one
  thread. What PETSc's routine does besides the values is done here: the zero pivot recorded in the
  factor (or the error of a matrix that must not fail), the flops logged, the factor marked assembled.
*/
static PetscErrorCode FactorBlocksNumeric(Mat F, Mat_AIJHybridFactor *ctx, Mat A, const MatFactorInfo *info, PetscBool *done, PetscBool *shifted)
{
  const PetscInt        nb = ctx->nblocks;
  const PetscInt       *Bi, *Bj;
  const PetscScalar    *Ba;
  PetscScalar          *fa, *rtmp;
  AIJHybridPivotStatus *st;
  AIJHybridShift       *sh;
  PetscLogDouble       *flops, total = 0;
  AIJHybridPivotRule    rule;
  PetscFunctionBegin;
  *done    = PETSC_FALSE;
  *shifted = PETSC_FALSE;
  if (ctx->kernel_off) PetscFunctionReturn(PETSC_SUCCESS);
  F->assembled = PETSC_TRUE;                                                                        /* as PETSc's numeric factorization leaves it; its inodes, known since the symbolic one, can be read */
  if (ctx->built_pattern != ctx->pattern || ctx->built_T != nb) PetscCall(FactorBuild(F, ctx, nb)); /* the factor's layout, checked */
  if (ctx->reason) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FactorBlocksPlan(ctx));
  if (ctx->kernel_off) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJGetCSRAndMemType(ctx->B, &Bi, &Bj, NULL, NULL));
  PetscCall(MatSeqAIJGetArrayRead(ctx->B, &Ba));
  PetscCall(FactorGetValues(F, ctx, &fa));
  rule.type        = (PetscInt)info->shifttype;
  rule.zeropivot   = info->zeropivot;
  rule.shiftamount = info->shiftamount;
  rule.shift       = 0;
  /* the blocks touch disjoint entries of rtmp (the inode kernel: of its 4 stripes of n) */
  PetscCall(PetscMalloc4((ctx->nstart ? 4 : 1) * ctx->n, &rtmp, nb, &st, nb, &sh, nb, &flops));
#pragma omp parallel num_threads(nb)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    for (PetscInt b = tid; b < nb; b += nth) BlockNumeric(ctx, b, Bi, Bj, Ba, fa, &rule, rtmp, &st[b], &sh[b], &flops[b]);
  }
  PetscCall(MatSeqAIJRestoreArrayRead(ctx->B, &Ba));
  for (PetscInt b = 0; b < nb; b++) {
    total += flops[b];
    if (st[b].nzero) { /* MatPivotCheck_none(): the last in the serial order is the one recorded */
      const PetscInt row = ctx->ftype == MAT_FACTOR_ICC ? AIJHybridICCPivotRow(ctx->bounds[b + 1], ctx->fi, ctx->fj, st[b].zlast) : st[b].zlast;

      PetscCheck(!A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot row %" PetscInt_FMT " value %g tolerance %g", row, (double)st[b].vlast, (double)info->zeropivot);
      PetscCall(PetscInfo(A, "Detected zero pivot in factorization in row %" PetscInt_FMT " value %g tolerance %g\n", row, (double)st[b].vlast, (double)info->zeropivot));
      F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
      F->factorerror_zeropivot_value = st[b].vlast;
      F->factorerror_zeropivot_row   = row;
    }
    if (sh[b].nshift) *shifted = PETSC_TRUE;
    if (sh[b].nshift || st[b].ninblocks)
      PetscCall(PetscInfo(A, "aijhybrid: thread block %" PetscInt_FMT ": %" PetscInt_FMT " shift passes, shift amount %g, %" PetscInt_FMT " pivots shifted in blocks\n", b, sh[b].nshift, (double)sh[b].shift_amount, st[b].ninblocks));
  }
  PetscCall(PetscFree4(rtmp, st, sh, flops));
  PetscCall(PetscLogFlops(total + ctx->n));
  F->preallocated = PETSC_TRUE;
  *done           = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_aijhybrid_factor_check: PETSc's numeric factorization of B again, which must give the
   kernels' bits (it also installs PETSc's solves, which the solves are then checked against).
   Not where a block needed a shifted pass: PETSc's factorization of B shifts all the blocks with the
   amount the whole matrix needs, the blocks' (as PCBJACOBI's on as many ranks) their own. */
static PetscErrorCode FactorBlocksCheck(Mat F, Mat_AIJHybridFactor *ctx, const MatFactorInfo *info)
{
  PetscScalar *fa, *mine;
  PetscInt     nz = ctx->ftype == MAT_FACTOR_ILU ? ctx->nz : ctx->fi[ctx->n];

  PetscFunctionBegin;
  PetscCall(FactorGetValues(F, ctx, &fa));
  PetscCall(PetscMalloc1(nz, &mine));
  PetscCall(PetscArraycpy(mine, fa, nz));
  PetscCall((*ctx->numeric)(F, ctx->B, info));
  PetscCall(FactorGetValues(F, ctx, &fa));
  for (PetscInt k = 0; k < nz; k++)
    PetscCheck(!memcmp(&mine[k], &fa[k], sizeof(PetscScalar)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: the threads' numeric factorization differs from PETSc's in entry %" PetscInt_FMT " of the factor (%" PetscInt_FMT " thread blocks)", k,
               ctx->nblocks);
  PetscCall(PetscFree(mine));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- factorization hooks */

static PetscErrorCode MatLUFactorNumeric_AIJHybridFactor(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor    *ctx   = (Mat_AIJHybridFactor *)F->spptr;
  PetscBool               petsc = PETSC_TRUE, check = PETSC_FALSE;
  MatAIJHybridFactorSolve mode = MAT_AIJHYBRID_FACTOR_SOLVE_AUTO, nmode = MAT_AIJHYBRID_FACTOR_SOLVE_AUTO;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridFactorOptions(A, &mode, &check, &nmode));
  if (ctx->nblocks) { /* the factor of B */
    PetscBool done, shifted;

    PetscCall(FactorBlocksValues(ctx, A));
    PetscCall(FactorBlocksNumeric(F, ctx, A, info, &done, &shifted));
    if (check && shifted)
      PetscCall(PetscInfo(A, "aijhybrid: -mat_aijhybrid_factor_check: a thread block needed a shifted pass: the numeric factorization is not compared with PETSc's of the whole block-diagonal matrix, which shifts all blocks alike\n"));
    check = (PetscBool)(check && !shifted);
    if (done && check) PetscCall(FactorBlocksCheck(F, ctx, info));
    else if (!done) PetscCall((*ctx->numeric)(F, ctx->B, info));
    petsc                 = (PetscBool)(!done || check);
    ctx->numeric_threaded = done;
  } else { /* the whole matrix: level-scheduled on the threads with PETSc's bits, or PETSc's routine (src/factor/numeric.c); either leaves PETSc's solves */
    PetscInt T;

    PetscCall(FactorThreads(A, &T));
    PetscCall(AIJHybridNumericFactor(ctx->num, F, A, info, T, nmode, check));
    ctx->numeric_threaded = PETSC_FALSE;
  }
  PetscCall(FactorAfterNumeric(F, A, petsc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatILUFactorSymbolic_AIJHybridFactor(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;
  Mat                  Af;
  IS                   brow, bcol;

  PetscFunctionBegin;
  FactorSolvesOff(F, ctx);
  FactorForgetSolves(ctx);
  PetscCall(FactorBlocksSetUp(ctx, A, row, col, &Af, &brow, &bcol));
  PetscCall((*ctx->ilusymbolic)(F, Af, brow, bcol, info));
  PetscCall(MatAIJHybridForgetComposed(F)); /* copied from A with its function list */
  ctx->numeric            = F->ops->lufactornumeric;
  F->ops->lufactornumeric = MatLUFactorNumeric_AIJHybridFactor;
  PetscCall(AIJHybridNumericSymbolic(ctx->num, F, Af, brow, bcol, ctx->numeric));
  PetscCall(FactorSetPermutations(ctx, brow, bcol));
  if (ctx->nblocks) {
    PetscCall(ISDestroy(&brow));
    PetscCall(ISDestroy(&bcol));
  }
  ctx->pattern++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_AIJHybridFactor(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  Mat_AIJHybridFactor *ctx = (Mat_AIJHybridFactor *)F->spptr;
  Mat                  Af;
  IS                   bperm, none;

  PetscFunctionBegin;
  FactorSolvesOff(F, ctx);
  FactorForgetSolves(ctx);
  PetscCall(FactorBlocksSetUp(ctx, A, perm, NULL, &Af, &bperm, &none));
  PetscCall((*ctx->iccsymbolic)(F, Af, bperm, info));
  PetscCall(MatAIJHybridForgetComposed(F));
  ctx->numeric                  = F->ops->choleskyfactornumeric;
  F->ops->choleskyfactornumeric = MatLUFactorNumeric_AIJHybridFactor;
  PetscCall(AIJHybridNumericSymbolic(ctx->num, F, Af, bperm, bperm, ctx->numeric));
  PetscCall(FactorSetPermutations(ctx, bperm, bperm));
  if (ctx->nblocks) PetscCall(ISDestroy(&bperm));
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
  PetscCall(AIJHybridNumericCreate(ftype, &ctx->num));
  ctx->ftype         = ftype;
  ctx->built_pattern = -1;
  ctx->plan_pattern  = -1;
  ctx->destroy       = (*F)->ops->destroy;
  (*F)->spptr        = ctx;
  (*F)->ops->destroy = MatDestroy_AIJHybridFactor;
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatAIJHybridGetFactorInfo_C", MatAIJHybridGetFactorInfo_Factor));
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatAIJHybridGetFactorChoiceSamples_C", MatAIJHybridGetFactorChoiceSamples_Factor));
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
  MatAIJHybridGetFactorInfo - How the numeric factorization and the triangular solves of a factor run

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
. -mat_aijhybrid_factor_numeric <auto,threaded,serial> - which numeric factorization runs (see `MATAIJHYBRID`)
- -mat_aijhybrid_factor_check - (debugging) compare every threaded solve and numeric factorization with PETSc's (see `MATAIJHYBRID`)

  They are read when the factor is made, with the options prefix of the matrix factored, then
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
  info->solve_choice.state = info->numeric_choice.state = MAT_AIJHYBRID_CHOICE_NONE;
  info->solve_choice.decided_at = info->numeric_choice.decided_at = -1;
  PetscTryMethod(F, "MatAIJHybridGetFactorInfo_C", (Mat, MatAIJHybridFactorInfo *), (F, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatAIJHybridGetFactorChoiceSamples - The timings a measured choice of a factor was made from

  Not Collective

  Input Parameters:
+ F       - a factor matrix (see `MatAIJHybridGetFactorInfo()`)
- numeric - `PETSC_TRUE`: the choice of the numeric factorization (`-mat_aijhybrid_factor_numeric`); `PETSC_FALSE`: of the triangular solves (`-mat_aijhybrid_factor_solve`)

  Output Parameters:
+ n        - the timed pairs counted so far, in all trials (0: no measured choice)
. threaded - seconds of the threaded variant in each pair (owned by the factor; valid until its next symbolic factorization)
- serial   - seconds of PETSc's serial routine in each pair

  Level: intermediate

  Note:
  A pair of the solves is two `MatSolve()`s; a pair of the numeric factorization is one slice of the
  levels run threaded in one factorization and serially in another (see `docs/preconditioners.md`).
  The trials, wins and decision are in `MatAIJHybridFactorInfo`.

.seealso: `MatAIJHybridGetFactorInfo()`, `MatAIJHybridChoiceInfo`
@*/
PetscErrorCode MatAIJHybridGetFactorChoiceSamples(Mat F, PetscBool numeric, PetscInt *n, const PetscLogDouble *threaded[], const PetscLogDouble *serial[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(F, MAT_CLASSID, 1);
  *n        = 0;
  *threaded = *serial = NULL;
  PetscTryMethod(F, "MatAIJHybridGetFactorChoiceSamples_C", (Mat, PetscBool, PetscInt *, const PetscLogDouble *[], const PetscLogDouble *[]), (F, numeric, n, threaded, serial));
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
