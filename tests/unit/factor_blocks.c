static char help[] = "Thread-block ILU/ICC factorization (-mat_aijhybrid_factor_blocks thread) against PETSc's factorization of each block on its own, bitwise.\n\
  -m <m>        : grid points per direction (matrix sizes follow)\n\
  -threads <t>  : largest thread count (2..t)\n\n";

/*
   On one rank, for matrices built as MATSEQAIJ (3D Poisson, random unsymmetric, banded, a 3-dof
   block matrix with inodes, and one with zero and tiny diagonal entries that makes pivots fail),
   ILU(0..2) and ICC(0..1) with the natural ordering, every shift type (none, nonzero,
   positive_definite, inblocks) and 2 to 3 threads: the factor of the seqaijhybrid copy with
   -mat_aijhybrid_factor_blocks thread against PETSc's factors of the diagonal blocks of the thread
   rows (PetscSplitOwnership's split), each made on its own as PCBJACOBI makes them on as many
   ranks:
     - MatSolve() and MatSolveTranspose() (and for ILU MatSolveAdd()) give, on each block's rows,
       the bits of the block's own factor; the zero pivot recorded in the factor (none) is the
       last block's that has one, at its row;     - the factor reports the blocks, and a numeric factorization by the threads (for ILU of the
       matrix with inodes with the arithmetic of PETSc's inode factorization);
     - again after new values (a second numeric factorization of the same pattern).
   Then, with -mat_aijhybrid_factor_check, ILU(1)/ICC(1) with the RCM ordering (kept within the
   blocks): the threads' numeric factorization equals PETSc's of the same block-diagonal matrix and
   ordering, and the solves PETSc's.
   Prints "factor_blocks: <n> checks passed".
*/
#include "compat.h"
#include <petscaijhybrid.h>
#include <petscksp.h>
#include <string.h>
#include "unitcheck.h"
#include "factortest.h"

/* the matrices of the test, in this order */
static const MatKind matkinds[] = {MAT_POISSON, MAT_RANDOM, MAT_BANDED, MAT_BLOCK, MAT_WEAK};

/* MAT_WEAK: the rows with a zero or tiny diagonal and nothing else */
static PetscBool Isolated(PetscInt i)
{
  return (PetscBool)(Hash(99, (unsigned long long)i) % 17 < 2);
}

/* symmetric when sym (for ICC); weak: some diagonal entries zero or tiny, negative ones too */
static PetscErrorCode Build(MatKind kind, PetscInt m, PetscBool sym, Mat *A)
{
  const PetscInt n = FactorTestSize(kind, m);
  PetscInt       cols[128], nc;
  PetscScalar    vals[128];

  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 64, NULL, A));
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar diag = 0.0;

    nc = 0;
    if (kind == MAT_POISSON || kind == MAT_WEAK || kind == MAT_BLOCK) { /* factortest.h's patterns, values of this test's own */
      const PetscReal base = kind == MAT_BLOCK ? -0.1 : -0.3, spread = kind == MAT_BLOCK ? 0.2 : 0.5;

      FactorTestPattern(kind, m, n, i, PETSC_FALSE, cols, &nc);
      for (PetscInt q = 0; q < nc; q++) vals[q] = base - spread * U01((unsigned long long)PetscMin(i, cols[q]), (unsigned long long)PetscMax(i, cols[q]));
    } else if (kind == MAT_RANDOM) {
      for (PetscInt l = 0; l < 4; l++) {
        const PetscInt j   = (PetscInt)(Hash(11 + l, (unsigned long long)i) % (unsigned long long)n);
        PetscBool      dup = PETSC_FALSE;

        for (PetscInt q = 0; q < nc; q++) dup = (PetscBool)(dup || cols[q] == j);
        if (j != i && !dup) {
          cols[nc] = j;
          vals[nc] = -0.2 - 0.6 * U01((unsigned long long)i, (unsigned long long)j);
          nc++;
        }
      }
    } else if (kind == MAT_BANDED) {
      for (PetscInt j = PetscMax(0, i - 5); j < PetscMin(n, i + 6); j++) {
        if (j == i || Hash((unsigned long long)PetscMin(i, j), (unsigned long long)PetscMax(i, j)) % 3 == 0) continue;
        cols[nc] = j;
        vals[nc] = -0.1 - 0.3 * U01((unsigned long long)PetscMin(i, j), (unsigned long long)PetscMax(i, j));
        nc++;
      }
    }
    if (kind == MAT_WEAK) { /* rows on their own with a zero or tiny diagonal (pivots that fail exactly), no coupling to them */
      PetscInt k = 0;

      for (PetscInt q = 0; q < nc; q++)
        if (!Isolated(i) && !Isolated(cols[q])) {
          cols[k]   = cols[q];
          vals[k++] = vals[q];
        }
      nc = k;
    }
    for (PetscInt q = 0; q < nc; q++) diag += PetscAbsScalar(vals[q]);
    cols[nc] = i;
    vals[nc] = 1.0 + diag + 0.5 * U01(5, (unsigned long long)i);
    if (kind == MAT_WEAK) { /* and negative diagonals, which fail positive-definite pivots */
      const unsigned long long h = Hash(99, (unsigned long long)i) % 17;

      if (h == 0) vals[nc] = 0.0;
      else if (h == 1) vals[nc] = 1e-15;
      else if (h == 2 || h == 3) vals[nc] = -0.5;
    }
    nc++;
    PetscCall(MatSetValues(*A, 1, &i, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (sym) { /* A + A^T over 2 */
    Mat At, S;

    PetscCall(MatTranspose(*A, MAT_INITIAL_MATRIX, &At));
    PetscCall(MatDuplicate(*A, MAT_COPY_VALUES, &S));
    PetscCall(MatAXPY(S, 1.0, At, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatScale(S, 0.5));
    PetscCall(MatDestroy(&At));
    PetscCall(MatDestroy(A));
    *A = S;
    PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt nchecks = 0, nzeropivots = 0;

/* the factor of A (ftype, levels, shift type, natural ordering; solver NULL: the default) */
static PetscErrorCode Factor(Mat A, MatSolverType solver, MatFactorType ftype, PetscInt levels, MatFactorShiftType shift, Mat *F)
{
  MatFactorInfo info;
  IS            row, col;

  PetscFunctionBeginUser;
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels      = (PetscReal)levels;
  info.fill        = 1.0;
  info.shifttype   = (PetscReal)shift;
  info.shiftamount = shift == MAT_SHIFT_INBLOCKS ? 1e-3 : 1e-6;
  info.zeropivot   = 1e-12;
  PetscCall(MatGetFactor(A, solver, ftype, F));
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
  if (ftype == MAT_FACTOR_ILU) {
    PetscCall(MatILUFactorSymbolic(*F, A, row, col, &info));
    PetscCall(MatLUFactorNumeric(*F, A, &info));
  } else {
    PetscCall(MatICCFactorSymbolic(*F, A, row, &info));
    PetscCall(MatCholeskyFactorNumeric(*F, A, &info));
  }
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* numeric factorization again (same pattern, new values) */
static PetscErrorCode Refactor(Mat F, Mat A, MatFactorType ftype, PetscInt levels, MatFactorShiftType shift)
{
  MatFactorInfo info;

  PetscFunctionBeginUser;
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels      = (PetscReal)levels;
  info.fill        = 1.0;
  info.shifttype   = (PetscReal)shift;
  info.shiftamount = shift == MAT_SHIFT_INBLOCKS ? 1e-3 : 1e-6;
  info.zeropivot   = 1e-12;
  if (ftype == MAT_FACTOR_ILU) PetscCall(MatLUFactorNumeric(F, A, &info));
  else PetscCall(MatCholeskyFactorNumeric(F, A, &info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = F^-1 b (and the transpose, and for ILU y + F^-1 b) of the blocks' factors FB[], each on its rows */
static PetscErrorCode BlockSolves(PetscInt nb, const PetscInt bounds[], Mat FB[], PetscBool ilu, Vec b, Vec y, Vec x, Vec xt, Vec xa)
{
  const PetscScalar *ba, *ya;
  PetscScalar       *xv, *xtv, *xav;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArray(x, &xv));
  PetscCall(VecGetArray(xt, &xtv));
  PetscCall(VecGetArray(xa, &xav));
  for (PetscInt k = 0; k < nb; k++) {
    const PetscInt m = bounds[k + 1] - bounds[k], o = bounds[k];
    Vec            bb, yb, xb, xtb, xab;

    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, m, ba + o, &bb));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, m, ya + o, &yb));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, m, xv + o, &xb));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, m, xtv + o, &xtb));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, m, xav + o, &xab));
    PetscCall(MatSolve(FB[k], bb, xb));
    PetscCall(MatSolveTranspose(FB[k], bb, xtb));
    if (ilu) PetscCall(MatSolveAdd(FB[k], bb, yb, xab));
    PetscCall(VecDestroy(&bb));
    PetscCall(VecDestroy(&yb));
    PetscCall(VecDestroy(&xb));
    PetscCall(VecDestroy(&xtb));
    PetscCall(VecDestroy(&xab));
  }
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArray(x, &xv));
  PetscCall(VecRestoreArray(xt, &xtv));
  PetscCall(VecRestoreArray(xa, &xav));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SameBits(Vec a, Vec b, const char *what)
{
  const PetscScalar *x, *y;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(!memcmp(&x[i], &y[i], sizeof(PetscScalar)) || (PetscIsNanScalar(x[i]) && PetscIsNanScalar(y[i])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry %" PetscInt_FMT " differs: %.17g against the block's %.17g", what, i,
               (double)PetscRealPart(x[i]), (double)PetscRealPart(y[i]));
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  nchecks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's factors FB[] of A's diagonal blocks AB[] for T threads (new: the blocks and a first
   factorization; otherwise the blocks' new values and a numeric factorization again), as PCBJACOBI
   makes them on T ranks */
static PetscErrorCode BlockFactors(Mat A, PetscInt T, PetscBool new, MatFactorType ftype, PetscInt levels, MatFactorShiftType shift, PetscInt bounds[], Mat AB[], Mat FB[])
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &n, NULL));
  bounds[0] = 0;
  for (PetscInt k = 0; k < T; k++) bounds[k + 1] = bounds[k] + n / T + ((n % T) > k); /* PetscSplitOwnership() */
  for (PetscInt k = 0; k < T; k++) {
    IS is;

    PetscCall(ISCreateStride(PETSC_COMM_SELF, bounds[k + 1] - bounds[k], bounds[k], 1, &is));
    PetscCall(MatCreateSubMatrix(A, is, is, new ? MAT_INITIAL_MATRIX : MAT_REUSE_MATRIX, &AB[k]));
    if (new) PetscCall(Factor(AB[k], MATSOLVERPETSC, ftype, levels, shift, &FB[k]));
    else PetscCall(Refactor(FB[k], AB[k], ftype, levels, shift));
    PetscCall(ISDestroy(&is));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the thread-block factor FH against PETSc's factors FB[] of the blocks */
static PetscErrorCode Compare(Mat FH, PetscInt T, const PetscInt bounds[], Mat FB[], MatFactorType ftype, const char *label)
{
  const PetscBool ilu = (PetscBool)(ftype == MAT_FACTOR_ILU);
  PetscInt        n = bounds[T], zrow = -1, zb = -1;
  Vec             b, y, x, xt, xa, r, rt, ra;
  PetscScalar    *v;
  MatFactorError  err;
  char            what[256];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < T; k++) {
    PetscCall(MatFactorGetError(FB[k], &err));
    if (err == MAT_FACTOR_NUMERIC_ZEROPIVOT) {
      PetscReal pv;

      PetscCall(MatFactorGetErrorZeroPivot(FB[k], &pv, &zrow));
      zrow += bounds[k];
      zb = k;
      nzeropivots++;
    }
  }
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &b));
  PetscCall(VecGetArray(b, &v));
  for (PetscInt i = 0; i < n; i++) v[i] = PetscSinReal(1.0 + (PetscReal)i) + 0.3;
  PetscCall(VecRestoreArray(b, &v));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecGetArray(y, &v));
  for (PetscInt i = 0; i < n; i++) v[i] = PetscCosReal(0.5 + (PetscReal)i);
  PetscCall(VecRestoreArray(y, &v));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &xt));
  PetscCall(VecDuplicate(b, &xa));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(b, &rt));
  PetscCall(VecDuplicate(b, &ra));
  PetscCall(BlockSolves(T, bounds, FB, ilu, b, y, r, rt, ra));
  PetscCall(MatSolve(FH, b, x));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: MatSolve", label));
  PetscCall(SameBits(x, r, what));
  PetscCall(MatSolveTranspose(FH, b, xt));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: MatSolveTranspose", label));
  PetscCall(SameBits(xt, rt, what));
  if (ilu) {
    PetscCall(MatSolveAdd(FH, b, y, xa));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: MatSolveAdd", label));
    PetscCall(SameBits(xa, ra, what));
  }
  /* the zero pivot recorded: the last block's */
  PetscCall(MatFactorGetError(FH, &err));
  PetscCheck((err == MAT_FACTOR_NUMERIC_ZEROPIVOT) == (zb >= 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: zero pivot %s, the blocks' factors %s", label, err ? "recorded" : "not recorded", zb >= 0 ? "have one" : "have none");
  if (zb >= 0) {
    PetscReal pv;
    PetscInt  row;

    PetscCall(MatFactorGetErrorZeroPivot(FH, &pv, &row));
    PetscCheck(row == zrow, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: zero pivot in row %" PetscInt_FMT ", the blocks' last in %" PetscInt_FMT, label, row, zrow);
  }
  nchecks++;
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&rt));
  PetscCall(VecDestroy(&ra));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt                 m = 7, maxT = 3;
  const MatFactorShiftType shifts[]     = {MAT_SHIFT_NONE, MAT_SHIFT_NONZERO, MAT_SHIFT_POSITIVE_DEFINITE, MAT_SHIFT_INBLOCKS};
  const char              *shiftnames[] = {"none", "nonzero", "positive_definite", "inblocks"};
  struct {
    MatFactorType ftype;
    PetscInt      levels;
  } configs[] = {
    {MAT_FACTOR_ILU, 0},
    {MAT_FACTOR_ILU, 1},
    {MAT_FACTOR_ILU, 2},
    {MAT_FACTOR_ICC, 0},
    {MAT_FACTOR_ICC, 1},
  };

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-threads", &maxT, NULL));
  PetscCheck(maxT <= 7, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "at most 7 threads");
  PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_solve", "threaded"));
  for (size_t k = 0; k < sizeof(matkinds) / sizeof(matkinds[0]); k++) {
    const MatKind kind = matkinds[k];

    for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); c++) {
      const PetscBool icc = (PetscBool)(configs[c].ftype == MAT_FACTOR_ICC);
      Mat             A, H;

      PetscCall(Build(kind, kind == MAT_BLOCK ? 2 * m : m, icc, &A));
      PetscCall(MatConvert(A, MATSEQAIJHYBRID, MAT_INITIAL_MATRIX, &H));
      PetscCall(MatAIJHybridSetFactorBlocks(H, MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD));
      for (size_t sh = 0; sh < sizeof(shifts) / sizeof(shifts[0]); sh++) {
        if (kind != MAT_WEAK && sh != 0 && sh != 2) continue; /* shifts matter where pivots fail */
#if !PETSC_VERSION_LT(3, 25, 0)
        /* PETSc >= 3.25's MatLUFactorNumeric_SeqAIJ_Inode() reads a->diag for the positive-definite
           shift, which SeqAIJ no longer sets: PETSc's own factors of the blocks (the reference) crash */
        if (kind == MAT_BLOCK && !icc && shifts[sh] == MAT_SHIFT_POSITIVE_DEFINITE) continue;
#endif
        for (PetscInt T = 2; T <= maxT; T++) {
          Mat                    FH, FB[8], AB[8];
          PetscInt               bounds[9];
          MatAIJHybridFactorInfo info;
          char                   label[256];
          PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s(%d) shift %s, %d threads", matnames[kind], icc ? "ICC" : "ILU", (int)configs[c].levels, shiftnames[sh], (int)T));
          PetscCall(MatAIJHybridSetNumThreads(H, T));
          PetscCall(Factor(H, NULL, configs[c].ftype, configs[c].levels, shifts[sh], &FH));
          PetscCall(MatAIJHybridGetFactorInfo(FH, &info));
          PetscCheck(info.blocks == T && info.threaded && info.in_use, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %d blocks, threaded solves %d in use %d", label, (int)info.blocks, (int)info.threaded, (int)info.in_use);
          PetscCheck(info.numeric_threaded, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: numeric factorization not by the threads", label);
          nchecks++;
          PetscCall(BlockFactors(A, T, PETSC_TRUE, configs[c].ftype, configs[c].levels, shifts[sh], bounds, AB, FB));
          PetscCall(Compare(FH, T, bounds, FB, configs[c].ftype, label));
          /* new values, the same pattern: a second numeric factorization (a zero pivot recorded stays, as PETSc's does) */
          PetscCall(MatScale(A, 1.5));
          PetscCall(MatShift(A, 0.25));
          PetscCall(MatCopy(A, H, SAME_NONZERO_PATTERN));
          PetscCall(Refactor(FH, H, configs[c].ftype, configs[c].levels, shifts[sh]));
          PetscCall(BlockFactors(A, T, PETSC_FALSE, configs[c].ftype, configs[c].levels, shifts[sh], bounds, AB, FB));
          PetscCall(PetscStrlcat(label, ", refactored", sizeof(label)));
          PetscCall(Compare(FH, T, bounds, FB, configs[c].ftype, label));
          for (PetscInt k = 0; k < T; k++) {
            PetscCall(MatDestroy(&FB[k]));
            PetscCall(MatDestroy(&AB[k]));
          }
          PetscCall(MatDestroy(&FH));
        }
      }
      PetscCall(MatDestroy(&H));
      PetscCall(MatDestroy(&A));
    }
  }
  /* orderings kept within the blocks: the threads' numeric factorization against PETSc's of the
     same block-diagonal matrix and ordering (-mat_aijhybrid_factor_check stops at a differing bit) */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_check", "1"));
  for (PetscInt icc = 0; icc < 2; icc++) {
    Mat           A, H, FH;
    MatFactorInfo info;
    IS            row, col;
    Vec           b, x;

    PetscCall(Build(MAT_RANDOM, m, (PetscBool)icc, &A));
    PetscCall(MatConvert(A, MATSEQAIJHYBRID, MAT_INITIAL_MATRIX, &H));
    PetscCall(MatAIJHybridSetFactorBlocks(H, MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD));
    PetscCall(MatAIJHybridSetNumThreads(H, maxT));
    PetscCall(MatFactorInfoInitialize(&info));
    info.levels = 1;
    info.fill   = 1.0;
    PetscCall(MatGetOrdering(H, MATORDERINGRCM, &row, &col));
    PetscCall(MatGetFactor(H, MATSOLVERAIJHYBRID, icc ? MAT_FACTOR_ICC : MAT_FACTOR_ILU, &FH));
    if (icc) {
      PetscCall(MatICCFactorSymbolic(FH, H, row, &info));
      PetscCall(MatCholeskyFactorNumeric(FH, H, &info));
    } else {
      PetscCall(MatILUFactorSymbolic(FH, H, row, col, &info));
      PetscCall(MatLUFactorNumeric(FH, H, &info));
    }
    PetscCall(MatCreateVecs(H, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(MatSolve(FH, b, x)); /* checked against PETSc's solve */
    PetscCall(MatSolveTranspose(FH, b, x));
    nchecks += 3;
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
    PetscCall(MatDestroy(&FH));
    PetscCall(MatDestroy(&H));
    PetscCall(MatDestroy(&A));
  }
  PetscCheck(nzeropivots > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no zero pivot was met: the matrix with weak diagonals does not test what it should");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "factor_blocks: %" PetscInt_FMT " checks passed (%" PetscInt_FMT " block factors with a zero pivot)\n", nchecks, nzeropivots));
  PetscCall(PetscFinalize());
  return 0;
}
