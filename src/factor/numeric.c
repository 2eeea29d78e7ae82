/*
   The threaded numeric factorization of PETSc's ILU(k) and ICC(k) factors (see numeric.h).

   Which factorizations: the factor's numeric routine, as PETSc's symbolic factorization installed
   it, must be one of those src/kernels/ilu.h reproduces: MatLUFactorNumeric_SeqAIJ() (ILU(k) of a
   matrix without inodes, any ordering), MatLUFactorNumeric_SeqAIJ_Inode() (with inodes) or
   MatCholeskyFactorNumeric_SeqAIJ() (ICC(k)). Those routines are internal to PETSc; the package
   learns their addresses, and what each leaves in the factor's operations (the solves), from
   small probe factorizations it runs once per process with PETSc's own factorization of seqaij
   (ProbePETSc(): operations called directly, so PETSc's factorization events do not count them).
   Anything else (another routine, a pattern not laid out as those routines expect, inodes PETSc
   splits in a way the kernel does not take, a matrix whose pattern changed since the symbolic
   factorization) keeps PETSc's serial routine, with the reason in AIJHybridNumericGetInfo() and
   -info.

   How: the rows (ILU with inodes: the nodes) level by level (src/factor/levels.h), each level's
   units split over the threads, point-to-point waits between threads; each thread a work array of
   n scalars (4 n with inodes); ICC also keeps the values each row stores (the kernel reads them,
   PETSc rewrites them in place). Only the main thread calls PETSc; the parallel region runs the
   kernels on raw arrays. Shifts: a pass is a whole factorization with the pass's diagonal shift;
   when a pivot fails (NONZERO, POSITIVE_DEFINITE) the next pass runs with PETSc's next shift, and
   POSITIVE_DEFINITE refines as PETSc does: the same passes, so the same bits. Zero pivots (NONE)
   are reported as PETSc's routine reports them: an error at the first when the matrix has
   MatSetErrorIfFailure(), else the factor's error type, row and value of the last.

   The plan (units, schedule, work arrays) is made at the first numeric factorization after a
   symbolic one, and again when the thread count changes; it depends on the pattern only. With the
   mode fixed to serial no plan is made.

   The choice (-mat_aijhybrid_factor_numeric auto): threaded is the default (A), PETSc's serial
   routine the other (B), decided by src/tune/choice.h. A timed use is one numeric factorization
   in which one slice of the levels (about 1/NSLICES of the units, the slices in turn) runs either
   threaded or serially on the main thread in ascending order (a valid order: a slice's units
   depend only on earlier levels and on earlier units of the slice), timed between two barriers,
   the rest threaded: the pair compares the same slice both ways, and a trial costs a fraction of
   a factorization, not whole serial ones. A factorization in which a slice runs serially has the
   same bits.
*/
#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h>
#include "../kernels/ilu.h"
#include "../threads/threads.h"
#include "levels.h"
#include "numericplan.h"
#include "numeric.h"

static PetscLogEvent MATAIJHYBRID_NumericPlan = 0;

#define NSLICES 6 /* slices of the levels timed in turn by the measured choice */

/* the measured choice of the numeric factorization (choice.h): pairs of uses = numeric
   factorizations, the slices in turn; 2 trials of 6 pairs at 2.5% each (6 of 6 needed, then 10 of all 12) */
static const AIJHybridChoiceRule NumericRule = {NSLICES, 2, 1, 2 * NSLICES, 0.05, 0.05};

/* ---------------------------------------------------------------- PETSc's routines, learnt */

typedef struct {
  PetscBool known;
  PetscErrorCode (*solve)(Mat, Vec, Vec);
  PetscErrorCode (*solveadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*solvetranspose)(Mat, Vec, Vec);
  PetscErrorCode (*solvetransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*matsolve)(Mat, Mat, Mat);
  PetscErrorCode (*matsolvetranspose)(Mat, Mat, Mat);
  PetscErrorCode (*forwardsolve)(Mat, Vec, Vec);
  PetscErrorCode (*backwardsolve)(Mat, Vec, Vec);
} OpSet;

/* what PETSc's numeric routine leaves in the factor: ILU by the factor's inodes, then by the
   ordering (MatLUFactorNumeric_SeqAIJ(), ..._Inode()); ICC by the ordering */
enum {
  OPS_ILU_INODE,
  OPS_ILU_NATURAL,
  OPS_ILU_PERMUTED,
  OPS_ICC_NATURAL,
  OPS_ICC_PERMUTED,
  NOPS
};

static struct {
  PetscBool          probed;
  AIJHybridNumericFn ilu_plain, ilu_inode, icc; /* PETSc's numeric routines (NULL: not learnt) */
  OpSet              ops[NOPS];
} PETScRoutines;

static void OpSetGet(Mat F, OpSet *s)
{
  s->known             = PETSC_TRUE;
  s->solve             = F->ops->solve;
  s->solveadd          = F->ops->solveadd;
  s->solvetranspose    = F->ops->solvetranspose;
  s->solvetransposeadd = F->ops->solvetransposeadd;
  s->matsolve          = F->ops->matsolve;
  s->matsolvetranspose = F->ops->matsolvetranspose;
  s->forwardsolve      = F->ops->forwardsolve;
  s->backwardsolve     = F->ops->backwardsolve;
}

static void OpSetPut(const OpSet *s, Mat F)
{
  F->ops->solve             = s->solve;
  F->ops->solveadd          = s->solveadd;
  F->ops->solvetranspose    = s->solvetranspose;
  F->ops->solvetransposeadd = s->solvetransposeadd;
  F->ops->matsolve          = s->matsolve;
  F->ops->matsolvetranspose = s->matsolvetranspose;
  F->ops->forwardsolve      = s->forwardsolve;
  F->ops->backwardsolve     = s->backwardsolve;
}

/* a probe matrix: nb x nb block tridiagonal with dense bs x bs blocks (bs > 1: inodes), diagonally dominant */
static PetscErrorCode ProbeMatrix(PetscInt nb, PetscInt bs, Mat *A)
{
  const PetscInt n = nb * bs;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetOptionsPrefix(*A, "aijhybrid_probe_")); /* the application's -mat_view and friends are not for the probes */
  PetscCall(MatSetSizes(*A, n, n, n, n));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 3 * bs, NULL));
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt b = i / bs;

    for (PetscInt c = PetscMax(0, b - 1) * bs; c < PetscMin(nb, b + 2) * bs; c++) PetscCall(MatSetValue(*A, i, c, c == i ? 10.0 : -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one probe: PETSc's factor of A, the numeric routine its symbolic factorization installs, the
   operations its numeric factorization leaves; ILU: whether the factor has inodes */
static PetscErrorCode ProbeFactor(Mat A, MatFactorType ftype, PetscBool permuted, AIJHybridNumericFn *numeric, OpSet *ops, PetscBool *finode)
{
  PetscErrorCode (*getfactor)(Mat, MatFactorType, Mat *) = NULL;
  Mat           F                                        = NULL;
  IS            perm;
  PetscInt      n, nn = 0, *sizes = NULL;
  MatFactorInfo info;

  PetscFunctionBegin;
  *numeric = NULL;
  *finode  = PETSC_FALSE;
  PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQAIJ, ftype, NULL, NULL, &getfactor));
  if (getfactor) PetscCall((*getfactor)(A, ftype, &F));
  if (!F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetSize(A, &n, NULL));
  if (permuted) PetscCall(ISCreateStride(PETSC_COMM_SELF, n, n - 1, -1, &perm));
  else PetscCall(ISCreateStride(PETSC_COMM_SELF, n, 0, 1, &perm));
  PetscCall(ISSetPermutation(perm));
  PetscCall(MatFactorInfoInitialize(&info));
  info.fill   = 1.0;
  info.levels = 0;
  if (ftype == MAT_FACTOR_ILU) {
    PetscCall((*F->ops->ilufactorsymbolic)(F, A, perm, perm, &info));
    *numeric = F->ops->lufactornumeric;
  } else {
    info.shifttype = (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE;
    PetscCall((*F->ops->iccfactorsymbolic)(F, A, perm, &info));
    *numeric = F->ops->choleskyfactornumeric;
  }
  PetscCall((**numeric)(F, A, &info));
  OpSetGet(F, ops);
  if (ftype == MAT_FACTOR_ILU) {
    PetscCall(MatInodeGetInodeSizes(F, &nn, &sizes, NULL));
    *finode = (PetscBool)(sizes != NULL);
  }
  PetscCall(ISDestroy(&perm));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* learns PETSc's numeric routines and what they leave in a factor (once per process) */
static PetscErrorCode ProbePETSc(void)
{
  Mat                plain, blocks;
  AIJHybridNumericFn f;
  OpSet              s;
  PetscBool          finode;
  PetscInt           nn = 0, *sizes = NULL;

  PetscFunctionBegin;
  if (PETScRoutines.probed) PetscFunctionReturn(PETSC_SUCCESS);
  PETScRoutines.probed = PETSC_TRUE;
  PetscCall(ProbeMatrix(6, 1, &plain));  /* tridiagonal: no inodes */
  PetscCall(ProbeMatrix(6, 2, &blocks)); /* 2 x 2 blocks: inodes of 2 */
  PetscCall(MatInodeGetInodeSizes(plain, &nn, &sizes, NULL));
  if (!sizes) { /* ILU without inodes, natural and permuted */
    PetscCall(ProbeFactor(plain, MAT_FACTOR_ILU, PETSC_FALSE, &f, &s, &finode));
    if (f && !finode) {
      PETScRoutines.ilu_plain            = f;
      PETScRoutines.ops[OPS_ILU_NATURAL] = s;
      PetscCall(ProbeFactor(plain, MAT_FACTOR_ILU, PETSC_TRUE, &f, &s, &finode));
      if (f == PETScRoutines.ilu_plain && !finode) PETScRoutines.ops[OPS_ILU_PERMUTED] = s;
    }
    PetscCall(ProbeFactor(plain, MAT_FACTOR_ICC, PETSC_FALSE, &f, &s, &finode));
    if (f) {
      PETScRoutines.icc                  = f;
      PETScRoutines.ops[OPS_ICC_NATURAL] = s;
      PetscCall(ProbeFactor(plain, MAT_FACTOR_ICC, PETSC_TRUE, &f, &s, &finode));
      if (f == PETScRoutines.icc) PETScRoutines.ops[OPS_ICC_PERMUTED] = s;
    }
  }
  sizes = NULL;
  PetscCall(MatInodeGetInodeSizes(blocks, &nn, &sizes, NULL));
  if (sizes) { /* ILU with inodes: its own routine; the factor's inodes give the inode solve */
    PetscCall(ProbeFactor(blocks, MAT_FACTOR_ILU, PETSC_FALSE, &f, &s, &finode));
    if (f && f != PETScRoutines.ilu_plain) {
      PETScRoutines.ilu_inode = f;
      if (finode) PETScRoutines.ops[OPS_ILU_INODE] = s;
    }
  }
  PetscCall(MatDestroy(&plain));
  PetscCall(MatDestroy(&blocks));
  PetscCall(PetscInfo(NULL, "aijhybrid: PETSc's numeric factorizations learnt: ILU %s, ILU with inodes %s (inode solves %s), ICC %s\n", PETScRoutines.ilu_plain ? "yes" : "no", PETScRoutines.ilu_inode ? "yes" : "no",
                      PETScRoutines.ops[OPS_ILU_INODE].known ? "yes" : "no", PETScRoutines.icc ? "yes" : "no"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- the factorization object */

typedef enum {
  KIND_NONE,  /* PETSc's serial routine only (reason) */
  KIND_ILU,   /* MatLUFactorNumeric_SeqAIJ() */
  KIND_INODE, /* MatLUFactorNumeric_SeqAIJ_Inode() */
  KIND_ICC    /* MatCholeskyFactorNumeric_SeqAIJ() */
} NumericKind;

struct _n_AIJHybridNumeric {
  MatFactorType      ftype;
  NumericKind        kind;
  AIJHybridNumericFn petsc;  /* PETSc's numeric routine of the factor */
  const char        *reason; /* why PETSc's serial routine runs */
  PetscObjectState   anz;    /* the matrix's nonzero state at the symbolic factorization */
  PetscInt           n;
  PetscInt          *r, *ic; /* the factor's row of each matrix row ... (NULL: identity): PETSc's r and ic (ICC: perm and its inverse) */
  PetscBool          natural;

  /* the plan (planned: made for the current symbolic factorization and nthreads threads) */
  PetscBool       planned;
  PetscInt        nthreads;
  const PetscInt *fi, *fj;            /* the factor's pattern (the factor's own arrays) */
  PetscInt        nz;                 /* entries of the factor */
  PetscInt       *bdiag;              /* ILU: U's diagonal positions */
  PetscInt        nunits, *nstart;    /* ILU with inodes: the nodes */
  PetscInt       *arow;               /* ILU with inodes: the matrix row of each factor row */
  PetscInt       *cptr, *crow, *cpos; /* ICC: the contributors */
  PetscInt       *adiag;              /* the matrix's diagonal positions (positive-definite shift) */
  AIJHybridLevels lv;
  PetscInt       *slice;        /* NSLICES + 1 level boundaries of the timed slices */
  PetscInt       *srows, *sptr; /* the units of each slice, ascending from sptr[s] (-1: not sorted yet) */
  PetscScalar    *work, *raw;   /* work arrays of the threads; ICC: the stored values */
  PetscInt       *progress;     /* nthreads * AIJHYBRID_LEVELS_STRIDE */

  /* record */
  PetscBool               threaded;
  PetscInt                calls, threaded_calls, plans;
  PetscLogDouble          plan_time;
  AIJHybridChoice         choice;
  MatAIJHybridFactorSolve mode;
};

PetscErrorCode AIJHybridNumericCreate(MatFactorType ftype, AIJHybridNumeric *num)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(num));
  (*num)->ftype  = ftype;
  (*num)->reason = "no symbolic factorization yet";
  (*num)->mode   = (MatAIJHybridFactorSolve)-1;
  AIJHybridChoiceInit(&(*num)->choice, &NumericRule);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NumericResetPlan(AIJHybridNumeric num)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(num->bdiag));
  PetscCall(PetscFree(num->nstart));
  PetscCall(PetscFree(num->arow));
  PetscCall(PetscFree(num->cptr));
  PetscCall(PetscFree2(num->crow, num->cpos));
  PetscCall(PetscFree(num->adiag));
  PetscCall(AIJHybridLevelsDestroy(&num->lv));
  PetscCall(PetscFree3(num->slice, num->srows, num->sptr));
  PetscCall(PetscFree(num->work));
  PetscCall(PetscFree(num->raw));
  PetscCall(PetscFree(num->progress));
  num->planned  = PETSC_FALSE;
  num->nthreads = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNumericDestroy(AIJHybridNumeric *num)
{
  PetscFunctionBegin;
  if (!*num) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(NumericResetPlan(*num));
  PetscCall(PetscFree2((*num)->r, (*num)->ic));
  PetscCall(PetscFree(*num));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* indices of a permutation IS (NULL: identity) and of its inverse, copied */
static PetscErrorCode PermutationArrays(IS row, IS col, PetscInt n, PetscInt **r, PetscInt **ic, PetscBool *natural)
{
  PetscBool       idr, idc;
  const PetscInt *ri, *ci;

  PetscFunctionBegin;
  PetscCall(ISIdentity(row, &idr));
  PetscCall(ISIdentity(col, &idc));
  *natural = (PetscBool)(idr && idc);
  *r = *ic = NULL;
  if (*natural) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(n, r, n, ic));
  PetscCall(ISGetIndices(row, &ri));
  PetscCall(ISGetIndices(col, &ci));
  for (PetscInt i = 0; i < n; i++) {
    (*r)[i]  = ri[i];
    (*ic)[i] = -1;
  }
  for (PetscInt i = 0; i < n; i++)
    if (ci[i] >= 0 && ci[i] < n) (*ic)[ci[i]] = i;
  PetscCall(ISRestoreIndices(row, &ri));
  PetscCall(ISRestoreIndices(col, &ci));
  for (PetscInt i = 0; i < n; i++) PetscCheck((*ic)[i] >= 0 && (*r)[i] >= 0 && (*r)[i] < n, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "aijhybrid: the factor's ordering is not a permutation");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridNumericSymbolic - after PETSc's symbolic factorization of F (A, row, col: its
  arguments; ICC: col = row): which numeric routine it installed (petsc), the permutations
*/
PetscErrorCode AIJHybridNumericSymbolic(AIJHybridNumeric num, Mat F, Mat A, IS row, IS col, AIJHybridNumericFn petsc)
{
  PetscBool isseqaij;

  PetscFunctionBegin;
  PetscCall(NumericResetPlan(num));
  PetscCall(PetscFree2(num->r, num->ic));
  PetscCall(ProbePETSc());
  num->petsc  = petsc;
  num->kind   = KIND_NONE;
  num->reason = NULL;
  num->n      = A->rmap->n;
  num->anz    = A->nonzerostate;
  num->calls = num->threaded_calls = 0;
  num->threaded                    = PETSC_FALSE;
  num->mode                        = (MatAIJHybridFactorSolve)-1; /* a new pattern: a new measured choice */
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseqaij));
  if (!isseqaij) PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJHYBRID, &isseqaij));
  if (!isseqaij) num->reason = "the matrix factored is not a seqaij matrix";
  else if (num->ftype == MAT_FACTOR_ILU) {
    if (petsc && petsc == PETScRoutines.ilu_plain) num->kind = KIND_ILU;
    else if (petsc && petsc == PETScRoutines.ilu_inode) num->kind = KIND_INODE;
    else num->reason = "PETSc's symbolic ILU installed a numeric routine the package does not reproduce";
  } else if (num->ftype == MAT_FACTOR_ICC) {
    if (petsc && petsc == PETScRoutines.icc) num->kind = KIND_ICC;
    else num->reason = "PETSc's symbolic ICC installed a numeric routine the package does not reproduce";
  } else num->reason = "not an ILU or ICC factor";
  if (num->kind != KIND_NONE) PetscCall(PermutationArrays(row, col, num->n, &num->r, &num->ic, &num->natural));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the slices of the levels for the measured choice: NSLICES consecutive level ranges of about
   equal units (their units in ascending order are made by SliceRows() when first run serially) */
static PetscErrorCode PlanSlices(AIJHybridNumeric num)
{
  const AIJHybridLevels *lv = &num->lv;
  const PetscInt         nu = lv->n;
  PetscInt               l  = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(NSLICES + 1, &num->slice, nu + 1, &num->srows, NSLICES + 1, &num->sptr));
  num->slice[0] = 0;
  for (PetscInt s = 1; s <= NSLICES; s++) {
    const PetscInt target = (PetscInt)(((PetscInt64)nu * s) / NSLICES);

    while (l < lv->nlevels && lv->lptr[l + 1] <= target) l++;
    if (l < lv->nlevels && lv->lptr[l + 1] - target < target - lv->lptr[l]) l++; /* the nearer boundary */
    num->slice[s] = s == NSLICES ? lv->nlevels : PetscMax(l, num->slice[s - 1]);
  }
  for (PetscInt s = 0; s <= NSLICES; s++) num->sptr[s] = -1; /* not sorted yet */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the units of slice s in ascending order (the serial order of PETSc's routine) */
static PetscErrorCode SliceRows(AIJHybridNumeric num, PetscInt s)
{
  const AIJHybridLevels *lv = &num->lv;
  const PetscInt         a = lv->lptr[num->slice[s]], b = lv->lptr[num->slice[s + 1]];

  PetscFunctionBegin;
  if (num->sptr[s] == a) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscArraycpy(num->srows + a, lv->order + a, b - a));
  PetscCall(PetscSortInt(b - a, num->srows + a));
  num->sptr[s] = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's pattern (ILU: seqaij, with its nonzero count; ICC: seqsbaij of block size 1) */
static PetscErrorCode FactorPattern(AIJHybridNumeric num, Mat F)
{
  PetscFunctionBegin;
  if (num->ftype == MAT_FACTOR_ILU) {
    MatInfo info;

    PetscCall(MatSeqAIJGetCSRAndMemType(F, &num->fi, &num->fj, NULL, NULL));
    PetscCall(MatGetInfo(F, MAT_LOCAL, &info));
    num->nz = (PetscInt)info.nz_used;
  } else {
    const PetscInt *ui, *uj;
    PetscInt        n;
    PetscBool       done;

    PetscCall(MatGetRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ui, &uj, &done));
    PetscCheck(done && n == num->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: no row pattern of the ICC factor");
    num->fi = ui; /* block size 1, not symmetrized: the factor's own arrays */
    num->fj = uj;
    num->nz = n ? ui[n] : 0;
    PetscCall(MatRestoreRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ui, &uj, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* makes the plan for T threads; sets num->reason (and makes none) where the case is not covered */
static PetscErrorCode NumericPlan(AIJHybridNumeric num, Mat F, Mat A, PetscInt T)
{
  const PetscInt  n = num->n;
  const PetscInt *ai, *aj;
  PetscInt        nunits = n, width = 1;
  PetscBool       ok = PETSC_TRUE;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  if (!MATAIJHYBRID_NumericPlan) PetscCall(PetscLogEventRegister("AIJHybNumPlan", MAT_CLASSID, &MATAIJHYBRID_NumericPlan));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_NumericPlan, F, A, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(NumericResetPlan(num));
  PetscCall(FactorPattern(num, F));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, NULL, NULL));
  if (num->kind == KIND_ILU || num->kind == KIND_INODE) {
    PetscBool isseqaij;

    PetscCall(PetscObjectTypeCompare((PetscObject)F, MATSEQAIJ, &isseqaij));
    if (!isseqaij) num->reason = "the ILU factor is not a seqaij matrix";
    if (!num->reason) {
      PetscCall(PetscMalloc1(n + 1, &num->bdiag));
      PetscCall(AIJHybridILUDiagonal(n, num->fi, num->fj, num->nz, num->bdiag, &ok));
      if (!ok) num->reason = "the ILU factor's storage is not PETSc's L-then-reversed-U layout";
    }
    if (!num->reason && num->kind == KIND_INODE) {
      PetscInt nn = 0, *sizes = NULL, *ns;

      PetscCall(MatInodeGetInodeSizes(A, &nn, &sizes, NULL));
      if (!sizes) num->reason = "the matrix has no inodes (PETSc's inode routine would refuse it)";
      else {
        PetscCall(PetscMalloc1(nn + 1, &ns));
#if PETSC_VERSION_LT(3, 24, 0)
        for (PetscInt k = 0; k < nn; k++) ns[k] = sizes[k]; /* node sizes */
        PetscCall(AIJHybridILUNodes(n, nn, ns, num->r, PETSC_FALSE, &nunits, &num->nstart, &num->arow, &ok));
#else
        for (PetscInt k = 0; k < nn; k++) ns[k] = sizes[k + 1] - sizes[k]; /* cumulative (inode.size_csr) */
        PetscCall(AIJHybridILUNodes(n, nn, ns, num->r, PETSC_TRUE, &nunits, &num->nstart, &num->arow, &ok));
#endif
        PetscCall(PetscFree(ns));
        if (!ok) num->reason = "the matrix's inodes do not give nodes of at most 4 rows covering the factor";
        if (!num->reason) {
          PetscCall(AIJHybridILUNodesCheck(n, num->fi, num->fj, num->bdiag, nunits, num->nstart, ai, num->arow, &ok));
          if (!ok) num->reason = "the ILU factor's nodes do not share their pattern as the inode routine assumes";
        }
      }
      width = 4;
    }
    if (!num->reason) {
      if (num->kind == KIND_INODE) {
        PetscInt *dptr, *dind;

        PetscCall(AIJHybridILUNodeDeps(n, num->fi, num->fj, nunits, num->nstart, &dptr, &dind));
        PetscCall(AIJHybridLevelsBuild(nunits, dptr, dptr + 1, dind, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &num->lv));
        PetscCall(PetscFree(dptr));
        PetscCall(PetscFree(dind));
      } else PetscCall(AIJHybridLevelsBuild(n, num->fi, num->fi + 1, num->fj, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &num->lv));
    }
  } else {
    PetscBool issbaij;

    PetscCall(PetscObjectTypeCompare((PetscObject)F, MATSEQSBAIJ, &issbaij));
    if (!issbaij || F->rmap->bs != 1) num->reason = "the ICC factor is not a seqsbaij matrix of block size 1";
    for (PetscInt k = 0; k < n && !num->reason; k++) { /* strictly upper columns ascending, the diagonal last */
      const PetscInt *fi = num->fi, *fj = num->fj;

      if (fi[k + 1] <= fi[k] || fj[fi[k + 1] - 1] != k) ok = PETSC_FALSE;
      for (PetscInt q = fi[k]; q < fi[k + 1] - 1 && ok; q++)
        if (fj[q] <= k || fj[q] >= n || (q > fi[k] && fj[q] <= fj[q - 1])) ok = PETSC_FALSE;
      if (!ok) num->reason = "the ICC factor's storage is not PETSc's (ascending columns, the diagonal last)";
    }
    if (!num->reason) {
      PetscCall(AIJHybridICCContributors(n, num->fi, num->fj, &num->cptr, &num->crow, &num->cpos));
      PetscCall(AIJHybridLevelsBuild(n, num->cptr, num->cptr + 1, num->crow, PETSC_TRUE, T, AIJHYBRID_LEVELS_MAXCHAIN, &num->lv));
      PetscCall(PetscMalloc1(num->nz + 1, &num->raw));
    }
  }
  if (!num->reason) {
    PetscCall(PetscMalloc1(n + 1, &num->adiag)); /* PETSc's a->diag: the first entry of column i, else the row's end */
#pragma omp parallel for num_threads(T) schedule(static)
    for (PetscInt i = 0; i < n; i++) {
      num->adiag[i] = ai[i + 1];
      for (PetscInt q = ai[i]; q < ai[i + 1]; q++)
        if (aj[q] == i) {
          num->adiag[i] = q;
          break;
        }
    }
    PetscCall(PetscMalloc1((size_t)T * width * (n + 1), &num->work));
    PetscCall(PetscCalloc1(T * AIJHYBRID_LEVELS_STRIDE, &num->progress));
    num->nunits   = nunits;
    num->nthreads = T;
    num->planned  = PETSC_TRUE;
  } else num->kind = KIND_NONE;
  PetscCall(PetscTime(&t1));
  num->plan_time = t1 - t0;
  num->plans++;
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_NumericPlan, F, A, 0, 0));
  if (num->reason) PetscCall(PetscInfo(F, "aijhybrid: PETSc's serial numeric factorization kept: %s\n", num->reason));
  else
    PetscCall(PetscInfo(F, "aijhybrid: threaded numeric %s factorization: %" PetscInt_FMT " rows, %" PetscInt_FMT " %s, %" PetscInt_FMT " threads, %" PetscInt_FMT " levels (widest %" PetscInt_FMT "), planned in %g s\n",
                        num->ftype == MAT_FACTOR_ILU ? "ILU" : "ICC", n, nunits, num->kind == KIND_INODE ? "nodes" : "units", T, num->lv.nlevels, num->lv.maxwidth, (double)num->plan_time));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- one pass */

typedef struct {
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscScalar       *fa;
} Arrays;

/* units order[ks .. ke) with the kernel of the plan */
static inline void RunUnits(const AIJHybridNumeric num, const Arrays *x, PetscInt ks, PetscInt ke, const PetscInt *order, const AIJHybridPivotRule *rule, PetscScalar *rtmp, AIJHybridPivotStatus *st)
{
  switch (num->kind) {
  case KIND_ILU:
    AIJHybridILUNumericRows(ks, ke, order, x->ai, x->aj, x->aa, num->r, num->ic, num->fi, num->fj, num->bdiag, x->fa, rule, rtmp, st);
    break;
  case KIND_INODE:
    AIJHybridILUNumericNodes(ks, ke, order, num->nstart, num->n, x->ai, x->aj, x->aa, num->arow, num->ic, num->fi, num->fj, num->bdiag, x->fa, rule, rtmp, st);
    break;
  case KIND_ICC:
    AIJHybridICCNumericRows(ks, ke, order, x->ai, x->aj, x->aa, num->r, num->ic, num->fi, num->fj, x->fa, num->raw, num->cptr, num->crow, num->cpos, rule, rtmp, st);
    break;
  default:
    break;
  }
}

/* levels [l0, l1) on the threads of the region: part t of a level on thread t with point-to-point
   waits, or (OpenMP gave fewer threads than parts) parts t, t + nth, ... and a barrier after each */
static inline void RunLevels(const AIJHybridNumeric num, const Arrays *x, PetscInt l0, PetscInt l1, const AIJHybridPivotRule *rule, PetscScalar *rtmp, AIJHybridPivotStatus *st, PetscInt tid, PetscInt nth)
{
  const AIJHybridLevels *lv = &num->lv;
  const PetscInt         T  = lv->nthreads;

  for (PetscInt l = l0; l < l1; l++) {
    const PetscInt *tb = lv->tb + l * (T + 1);

    if (nth == T) {
      AIJHybridLevelsWait(lv, l, tid, num->progress);
      RunUnits(num, x, tb[tid], tb[tid + 1], lv->order, rule, rtmp, st);
      AIJHybridLevelsDone(l, tid, num->progress);
    } else {
      for (PetscInt t = tid; t < T; t += nth) RunUnits(num, x, tb[t], tb[t + 1], lv->order, rule, rtmp, st);
#pragma omp barrier
    }
  }
}

/*
  one pass of the factorization on the plan's threads with the pass's rule; st: one account per
  thread. slice >= 0: the levels of that slice run between two barriers, timed (seconds), on the
  threads or (serial) on the main thread in ascending order.
*/
static void NumericPass(const AIJHybridNumeric num, const Arrays *x, const AIJHybridPivotRule *rule, PetscInt slice, PetscBool serial, double *seconds, AIJHybridPivotStatus *st)
{
  const PetscInt T = num->nthreads, nl = num->lv.nlevels;
  const PetscInt l0 = slice >= 0 ? num->slice[slice] : nl, l1 = slice >= 0 ? num->slice[slice + 1] : nl;
  const PetscInt stride = (num->kind == KIND_INODE ? 4 : 1) * (num->n + 1);
  double         t0     = 0;

  for (PetscInt t = 0; t < T * AIJHYBRID_LEVELS_STRIDE; t++) num->progress[t] = 0;
#pragma omp parallel num_threads(T)
  {
    const PetscInt tid = omp_get_thread_num(), nth = omp_get_num_threads();
    PetscScalar   *rtmp = num->work + tid * stride;

    AIJHybridPivotStatusInit(&st[tid]);
    RunLevels(num, x, 0, l0, rule, rtmp, &st[tid], tid, nth);
    if (slice >= 0) {
#pragma omp barrier
      if (tid == 0) t0 = omp_get_wtime();
      if (serial) {
        if (tid == 0) {
          RunUnits(num, x, num->lv.lptr[num->slice[slice]], num->lv.lptr[num->slice[slice + 1]], num->srows, rule, rtmp, &st[0]);
          for (PetscInt u = 0; u < T; u++) __atomic_store_n(&num->progress[u * AIJHYBRID_LEVELS_STRIDE], l1, __ATOMIC_RELEASE);
        }
      } else RunLevels(num, x, l0, l1, rule, rtmp, &st[tid], tid, nth);
#pragma omp barrier
      if (tid == 0) *seconds += omp_get_wtime() - t0;
    }
    RunLevels(num, x, l1, nl, rule, rtmp, &st[tid], tid, nth);
  }
}

/* the values of an ICC factor (written in place; the restore clears its argument) */
static PetscErrorCode SBAIJValues(Mat F, PetscScalar **fa)
{
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(MatSeqSBAIJGetArray(F, &a));
  *fa = a;
  PetscCall(MatSeqSBAIJRestoreArray(F, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the threaded factorization: the passes of PETSc's shift rule; the zero pivots and shifts
   reported as PETSc's routine reports them */
static PetscErrorCode NumericThreaded(AIJHybridNumeric num, Mat F, Mat A, const MatFactorInfo *info, PetscInt slice, PetscBool serial, double *seconds)
{
  const PetscInt       n = num->n, T = num->nthreads;
  Arrays               x;
  AIJHybridPivotRule   rule;
  AIJHybridShift       sh;
  AIJHybridPivotStatus st[AIJHYBRID_MAX_THREADS > 64 ? 64 : AIJHYBRID_MAX_THREADS], *sts = st, all;
  PetscLogDouble       flops = 0;
  PetscBool            again, natural;
  PetscScalar         *aa;

  PetscFunctionBegin;
  if (T > 64) PetscCall(PetscMalloc1(T, &sts));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &x.ai, &x.aj, &aa, NULL));
  x.aa = aa;
  if (num->ftype == MAT_FACTOR_ILU) PetscCall(MatSeqAIJGetCSRAndMemType(F, NULL, NULL, &x.fa, NULL));
  else PetscCall(SBAIJValues(F, &x.fa));
  rule.type        = (PetscInt)info->shifttype;
  rule.zeropivot   = info->zeropivot;
  rule.shiftamount = info->shiftamount;
  AIJHybridShiftInit(&sh, rule.type, rule.type == AIJHYBRID_SHIFT_POSITIVE_DEFINITE ? AIJHybridShiftTop(n, x.ai, num->adiag, x.aa, info->zeropivot) : 0);
  do {
    rule.shift = sh.shift_amount;
    NumericPass(num, &x, &rule, slice, serial, seconds, sts);
    AIJHybridPivotStatusInit(&all);
    for (PetscInt t = 0; t < T; t++) AIJHybridPivotMerge(&all, &sts[t]);
    flops += all.flops;
    if (all.newshift) {
      AIJHybridShiftFailed(&sh, &rule);
      again = PETSC_TRUE;
    } else again = num->kind != KIND_ICC && AIJHybridShiftRefine(&sh, rule.type); /* (PETSc's ICC does not refine) */
  } while (again);
  if (T > 64) PetscCall(PetscFree(sts));

  if (all.nzero) { /* shift type NONE: PETSc's MatPivotCheck_none() at each zero pivot */
    const PetscInt first = num->kind == KIND_ICC ? AIJHybridICCPivotRow(n, num->fi, num->fj, all.zfirst) : all.zfirst;
    const PetscInt last  = num->kind == KIND_ICC ? AIJHybridICCPivotRow(n, num->fi, num->fj, all.zlast) : all.zlast;

    PetscCheck(!A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero pivot row %" PetscInt_FMT " value %g tolerance %g", first, (double)all.vfirst, (double)info->zeropivot);
    PetscCall(PetscInfo(A, "Detected zero pivot in factorization in row %" PetscInt_FMT " value %g tolerance %g\n", first, (double)all.vfirst, (double)info->zeropivot));
    if (all.nzero > 1) PetscCall(PetscInfo(A, "Detected zero pivot in factorization in row %" PetscInt_FMT " value %g tolerance %g (the last of %" PetscInt_FMT ")\n", last, (double)all.vlast, (double)info->zeropivot, all.nzero));
    F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    F->factorerror_zeropivot_value = all.vlast;
    F->factorerror_zeropivot_row   = last;
  }
  /* what PETSc's routine leaves in the factor */
  F->assembled    = PETSC_TRUE;
  F->preallocated = PETSC_TRUE;
  if (num->ftype == MAT_FACTOR_ILU) {
    PetscInt nn = 0, *sizes = NULL;

    PetscCall(MatInodeGetInodeSizes(F, &nn, &sizes, NULL));
    natural = num->natural;
    OpSetPut(&PETScRoutines.ops[sizes ? OPS_ILU_INODE : (natural ? OPS_ILU_NATURAL : OPS_ILU_PERMUTED)], F);
    PetscCall(PetscLogFlops(flops));
  } else OpSetPut(&PETScRoutines.ops[num->natural ? OPS_ICC_NATURAL : OPS_ICC_PERMUTED], F);
  PetscCall(PetscLogFlops(F->cmap->n));
  if (sh.nshift || all.ninblocks) {
    if (rule.type == AIJHYBRID_SHIFT_POSITIVE_DEFINITE) {
      PetscCall(PetscInfo(A, "number of shift_pd tries %" PetscInt_FMT ", shift_amount %g, diagonal shifted up by %e fraction top_value %e\n", sh.nshift, (double)sh.shift_amount, (double)sh.shift_fraction, (double)sh.shift_top));
    } else if (rule.type == AIJHYBRID_SHIFT_NONZERO) {
      PetscCall(PetscInfo(A, "number of shift_nz tries %" PetscInt_FMT ", shift_amount %g\n", sh.nshift, (double)sh.shift_amount));
    } else if (rule.type == AIJHYBRID_SHIFT_INBLOCKS) {
      PetscCall(PetscInfo(A, "number of shift_inblocks applied %" PetscInt_FMT ", each shift_amount %g\n", all.ninblocks, (double)info->shiftamount));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_aijhybrid_factor_check: the values just computed against PETSc's serial routine's, bitwise
   (PETSc's values and operations are left in the factor) */
static PetscErrorCode NumericCheck(AIJHybridNumeric num, Mat F, Mat A, const MatFactorInfo *info)
{
  PetscScalar *fa, *copy;

  PetscFunctionBegin;
  if (num->ftype == MAT_FACTOR_ILU) PetscCall(MatSeqAIJGetCSRAndMemType(F, NULL, NULL, &fa, NULL));
  else PetscCall(SBAIJValues(F, &fa));
  PetscCall(PetscMalloc1(num->nz + 1, &copy));
  PetscCall(PetscArraycpy(copy, fa, num->nz));
  PetscCall((*num->petsc)(F, A, info));
  for (PetscInt q = 0; q < num->nz; q++)
    PetscCheck(!memcmp(&copy[q], &fa[q], sizeof(PetscScalar)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: threaded numeric factorization differs from PETSc's in entry %" PetscInt_FMT " of %" PetscInt_FMT " (%" PetscInt_FMT " threads)", q, num->nz,
               num->nthreads);
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridNumericFactor - the numeric factorization of F from A with T threads: threaded where
  the case is covered and the mode (and in auto mode the measured choice) says so, else PETSc's
  routine; check: compare a threaded one with PETSc's, bitwise
*/
PetscErrorCode AIJHybridNumericFactor(AIJHybridNumeric num, Mat F, Mat A, const MatFactorInfo *info, PetscInt T, MatAIJHybridFactorSolve mode, PetscBool check)
{
  PetscInt  which = 1, slice = -1;
  PetscBool timed   = PETSC_FALSE, covered;
  double    seconds = 0;

  PetscFunctionBegin;
  num->calls++;
  num->threaded = PETSC_FALSE;
  covered       = (PetscBool)(num->kind != KIND_NONE && T > 1);
  if (covered && A->nonzerostate != num->anz) { /* PETSc's routine then does what it does with the factor's pattern */
    covered = PETSC_FALSE;
    PetscCall(PetscInfo(F, "aijhybrid: PETSc's serial numeric factorization: the matrix's nonzero pattern changed since the symbolic factorization\n"));
  }
  if (mode == MAT_AIJHYBRID_FACTOR_SOLVE_SERIAL) covered = PETSC_FALSE; /* fixed serial: no plan is made (nor its cost paid) */
  if (covered && (!num->planned || num->nthreads != T)) {
    PetscCall(NumericPlan(num, F, A, T));
    covered = (PetscBool)(num->kind != KIND_NONE);
  }
  if (mode != num->mode) { /* a new mode: a new choice */
    num->mode = mode;
    AIJHybridChoiceInit(&num->choice, &NumericRule);
    if (mode == MAT_AIJHYBRID_FACTOR_SOLVE_THREADED) AIJHybridChoiceFix(&num->choice, 0);
    else if (mode == MAT_AIJHYBRID_FACTOR_SOLVE_SERIAL) AIJHybridChoiceFix(&num->choice, 1);
  }
  if (covered) which = AIJHybridChoiceNext(&num->choice, &timed);
  if (timed) {
    slice = (num->choice.rule.warmup - num->choice.warm + num->choice.npairs) % NSLICES;
    if (!num->slice) PetscCall(PlanSlices(num)); /* made for the first timed factorization */
    if (which == 1) PetscCall(SliceRows(num, slice));
  }
  if (which == 0 || timed) {
    PetscCall(NumericThreaded(num, F, A, info, slice, (PetscBool)(timed && which == 1), &seconds));
    if (timed) AIJHybridChoiceAdd(&num->choice, which, seconds);
    num->threaded = PETSC_TRUE;
    num->threaded_calls++;
    if (timed && num->choice.state != AIJHYBRID_CHOICE_MEASURING && num->choice.decided_at == num->choice.uses)
      PetscCall(PetscInfo(F, "aijhybrid: numeric factorization, trial %" PetscInt_FMT " of the measured choice: a slice faster threaded in %" PetscInt_FMT " pairs, serial in %" PetscInt_FMT " (%" PetscInt_FMT " needed; medians %g s and %g s): %s\n",
                          num->choice.trial, num->choice.wins_a, num->choice.wins_b, num->choice.needed, num->choice.median_a, num->choice.median_b,
                          num->choice.state == AIJHYBRID_CHOICE_A ? "threaded" : (num->choice.state == AIJHYBRID_CHOICE_B ? "PETSc's serial routine from now on" : "cannot tell, threaded kept")));
    if (check) PetscCall(NumericCheck(num, F, A, info));
  } else PetscCall((*num->petsc)(F, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridNumericGetInfo(AIJHybridNumeric num, AIJHybridNumericInfo *info)
{
  PetscFunctionBegin;
  info->reason         = num->kind == KIND_NONE ? num->reason : NULL;
  info->threaded       = num->threaded;
  info->inode          = (PetscBool)(num->kind == KIND_INODE);
  info->nthreads       = num->planned ? num->nthreads : 0;
  info->nlevels        = num->planned ? num->lv.nlevels : 0;
  info->calls          = num->calls;
  info->threaded_calls = num->threaded_calls;
  info->plans          = num->plans;
  info->plan_time      = num->plan_time;
  info->choice         = &num->choice;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJHybridNumericGetDiagonal - the ILU plan's diagonal positions of U (AIJHybridILUDiagonal()) for
   the factor pattern fi, fj of nz entries, else NULL: what a planned factorization already found */
PetscErrorCode AIJHybridNumericGetDiagonal(AIJHybridNumeric num, const PetscInt *fi, const PetscInt *fj, PetscInt nz, const PetscInt **bdiag)
{
  PetscFunctionBegin;
  *bdiag = (num->planned && num->bdiag && num->fi == fi && num->fj == fj && num->nz == nz) ? num->bdiag : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJHybridNumericGetRowLevels - the plan's schedule when it is over the rows (ILU without inodes:
   the dependencies of L; ICC: those of U^T) for T threads, else NULL */
PetscErrorCode AIJHybridNumericGetRowLevels(AIJHybridNumeric num, PetscInt T, const AIJHybridLevels **lv)
{
  PetscFunctionBegin;
  *lv = (num->planned && num->nthreads == T && (num->kind == KIND_ILU || num->kind == KIND_ICC)) ? &num->lv : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
