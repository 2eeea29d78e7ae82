static char help[] = "Triangular solves of ILU/ICC factors of aijhybrid matrices against PETSc's serial solves, bitwise.\n\
  -m <m>        : grid points per direction (matrix sizes follow)\n\
  -threads <t>  : largest thread count (1..t)\n\
  -quick        : fewer configurations\n\n";

/*
   For matrices built identically as MATAIJ and as aijhybrid (3D Poisson 7-point, random, banded,
   and a 3-dof block matrix whose factors have inodes), real or complex as PETSc is built, on 1 or
   more ranks (PCILU/PCICC on one rank, PCBJACOBI with ILU/ICC blocks on several, the default
   preconditioner's layout), for ILU(0..2) and ICC(0..1) with the natural, RCM, nested dissection
   and CM-RCM orderings and 1 to 3 threads:
     - the aijhybrid factor runs threaded solves exactly when it has more than one thread
       (MatAIJHybridGetFactorInfo), with at least one level per solve;
     - MatSolve, MatSolveTranspose, MatSolveAdd and MatSolveTransposeAdd (the latter two with y
       distinct from x and in place) of the aijhybrid factor give the bits of the aij factor's
       (PETSc's serial routines), on the same local vectors;
     - a GMRES + ILU(0) (bjacobi on several ranks) and a CG + ICC(0) solve have residual histories
       bitwise equal to aij's, where aij's MatMult is the plain CSR loop (matrices without inodes),
       and bitwise equal across the thread counts always;
   all of these with -mat_aijhybrid_factor_solve threaded (set here unless given), so that every
   solve is a threaded one. Then the default measured choice (auto): every solve of the trial gives
   PETSc's bits, the first trial ends after its 22 solves with its 10 pairs recorded, and the solves
   in force are the ones its decision says (PETSc's only when they won 9 pairs of 10 by 5%).
   Prints "factor_solves: <n> checks passed".
*/
#include <petscaijhybrid.h>
#include <petscksp.h>
#include <string.h>
#include "unitcheck.h"
#include "factortest.h"

/* the matrices of the test, in this order */
static const MatKind matkinds[] = {MAT_POISSON, MAT_RANDOM, MAT_BANDED, MAT_BLOCK};

/* the matrix of kind (aij on PETSC_COMM_WORLD), symmetric when sym; MAT_BLOCK's off-diagonal values halved */
static PetscErrorCode Build(MatKind kind, PetscInt m, PetscBool sym, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(FactorTestBuild(PETSC_COMM_WORLD, kind, m, sym, kind == MAT_BLOCK ? 0.5 : 1.0, PETSC_FALSE, A));
  PetscFunctionReturn(0);
}

static PetscInt nchecks = 0;

static PetscErrorCode SameBits(Vec a, Vec b, const char *what)
{
  const PetscScalar *x, *y;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(!memcmp(&x[i], &y[i], sizeof(PetscScalar)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry %" PetscInt_FMT " differs: %.17g against PETSc's %.17g", what, i, (double)PetscRealPart(y[i]), (double)PetscRealPart(x[i]));
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  nchecks++;
  PetscFunctionReturn(0);
}

/* KSP preonly with the factor PC (PCBJACOBI blocks on several ranks); the factor matrix */
static PetscErrorCode FactorKSP(Mat A, PCType pctype, PetscInt levels, MatOrderingType ord, KSP *ksp, Mat *F)
{
  PC          pc, sub;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPGetPC(*ksp, &pc));
  if (size == 1) {
    sub = pc;
    PetscCall(PCSetType(sub, pctype));
  } else {
    KSP     *subksp;
    PetscInt nlocal, first;

    PetscCall(PCSetType(pc, PCBJACOBI));
    PetscCall(KSPSetUp(*ksp));
    PetscCall(PCBJacobiGetSubKSP(pc, &nlocal, &first, &subksp));
    PetscCall(KSPSetType(subksp[0], KSPPREONLY));
    PetscCall(KSPGetPC(subksp[0], &sub));
    PetscCall(PCSetType(sub, pctype));
  }
  PetscCall(PCFactorSetLevels(sub, levels));
  PetscCall(PCFactorSetMatOrderingType(sub, ord));
  PetscCall(KSPSetUp(*ksp));
  PetscCall(PCSetUpOnBlocks(pc));
  PetscCall(PCFactorGetMatrix(sub, F));
  PetscFunctionReturn(0);
}

/* x = F^-1 b (solve: MatSolve or MatSolveTranspose) of both factors, xh first set to NaN */
static PetscErrorCode CompareSolve(PetscErrorCode (*solve)(Mat, Vec, Vec), const char *name, Mat FA, Mat FH, Vec b, Vec xa, Vec xh, const char *label)
{
  char what[256];

  PetscFunctionBeginUser;
  PetscCall(solve(FA, b, xa));
  PetscCall(VecSet(xh, NAN));
  PetscCall(solve(FH, b, xh));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: %s", label, name));
  PetscCall(SameBits(xa, xh, what));
  PetscFunctionReturn(0);
}

/* x = y + F^-1 b (solveadd: MatSolveAdd or MatSolveTransposeAdd) of both factors, with y distinct from x, then in place */
static PetscErrorCode CompareSolveAdd(PetscErrorCode (*solveadd)(Mat, Vec, Vec, Vec), const char *name, Mat FA, Mat FH, Vec b, Vec y, Vec xa, Vec xh, const char *label)
{
  char what[256];

  PetscFunctionBeginUser;
  PetscCall(solveadd(FA, b, y, xa));
  PetscCall(VecSet(xh, NAN));
  PetscCall(solveadd(FH, b, y, xh));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: %s", label, name));
  PetscCall(SameBits(xa, xh, what));
  PetscCall(VecCopy(y, xa));
  PetscCall(VecCopy(y, xh));
  PetscCall(solveadd(FA, b, xa, xa));
  PetscCall(solveadd(FH, b, xh, xh));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: %s in place", label, name));
  PetscCall(SameBits(xa, xh, what));
  PetscFunctionReturn(0);
}

/* every solve of the two factors on the same local vectors */
static PetscErrorCode CompareSolves(Mat FA, Mat FH, PetscBool ilu, const char *label)
{
  Vec          b, y, xa, xh;
  PetscInt     n, lo;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(FA, &b, NULL));
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(VecGetOwnershipRange(b, &lo, NULL));
  PetscCall(VecGetArray(b, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = PetscSinReal(1.0 + (PetscReal)i) + 0.3;
  PetscCall(VecRestoreArray(b, &a));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecGetArray(y, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = PetscCosReal(0.5 + (PetscReal)i);
  PetscCall(VecRestoreArray(y, &a));
  PetscCall(VecDuplicate(b, &xa));
  PetscCall(VecDuplicate(b, &xh));

  PetscCall(CompareSolve(MatSolve, "MatSolve", FA, FH, b, xa, xh, label));
  PetscCall(CompareSolve(MatSolveTranspose, "MatSolveTranspose", FA, FH, b, xa, xh, label));
  if (ilu) {
    PetscCall(CompareSolveAdd(MatSolveAdd, "MatSolveAdd", FA, FH, b, y, xa, xh, label));
    PetscCall(CompareSolveAdd(MatSolveTransposeAdd, "MatSolveTransposeAdd", FA, FH, b, y, xa, xh, label));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&xh));
  PetscFunctionReturn(0);
}

/* residual history of a whole solve (GMRES + ILU(0) / CG + ICC(0), bjacobi on several ranks) */
static PetscErrorCode History(Mat A, PetscBool icc, PetscReal *hist, PetscInt *nh)
{
  KSP         ksp;
  PC          pc;
  Vec         b, x;
  PetscMPIInt size;
  PetscInt    mloc;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, icc ? KSPCG : KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  if (size == 1) PetscCall(PCSetType(pc, icc ? PCICC : PCILU));
  else {
    PetscCall(PCSetType(pc, PCBJACOBI));
    PetscCall(PetscOptionsSetValue(NULL, "-hist_sub_pc_type", icc ? "icc" : "ilu"));
    PetscCall(KSPSetOptionsPrefix(ksp, "hist_"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PCSetType(pc, PCBJACOBI));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPSetResidualHistory(ksp, hist, 200, PETSC_TRUE));
  /* hybrid vectors for aij and aijhybrid alike (MatCreateVecs of aijhybrid gives them): the Krylov
     arithmetic is then the same (its sums do not depend on the threads), so only the preconditioner differs */
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(MatGetLocalSize(A, &mloc, NULL));
  PetscCall(VecSetSizes(x, mloc, PETSC_DECIDE));
  PetscCall(VecSetType(x, VECHYBRID));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetResidualHistory(ksp, NULL, nh));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode HasInodes(Mat A, PetscBool *has)
{
  Mat         Ad    = A;
  PetscInt    nodes = 0, *sizes = NULL;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCall(MatInodeGetInodeSizes(Ad, &nodes, &sizes, NULL));
  {
    int loc = sizes != NULL, glob;
    PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPI_INT, MPI_LOR, PETSC_COMM_WORLD));
    *has = glob ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  m = 9, maxT = 3;
  PetscBool quick = PETSC_FALSE;
  struct {
    PCType          pc;
    PetscInt        levels;
    MatOrderingType ord;
  } configs[] = {
    {PCILU, 0, MATORDERINGNATURAL},
    {PCILU, 1, MATORDERINGNATURAL},
    {PCILU, 2, MATORDERINGRCM    },
    {PCILU, 0, MATORDERINGND     },
    {PCILU, 0, MATORDERINGCMRCM  },
    {PCILU, 1, MATORDERINGCMRCM  },
    {PCICC, 0, MATORDERINGNATURAL},
    {PCICC, 1, MATORDERINGNATURAL},
    {PCICC, 0, MATORDERINGRCM    },
    {PCICC, 0, MATORDERINGCMRCM  },
  };
  const PetscInt nconfigs = (PetscInt)(sizeof(configs) / sizeof(configs[0]));

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-threads", &maxT, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-quick", &quick, NULL));
  {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_aijhybrid_factor_solve", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_solve", "threaded"));
  }
  for (size_t k = 0; k < sizeof(matkinds) / sizeof(matkinds[0]); k++) {
    const MatKind kind = matkinds[k];

    for (PetscInt c = 0; c < nconfigs; c++) {
      const PetscBool icc = (PetscBool)!strcmp(configs[c].pc, PCICC);
      Mat             A, H, FA, FH;
      KSP             ka, kh;

      if (quick && c % 3) continue;
      PetscCall(Build(kind, kind == MAT_BLOCK ? 2 * m : m, icc, &A));
      PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
      PetscCall(FactorKSP(A, configs[c].pc, configs[c].levels, configs[c].ord, &ka, &FA));
      for (PetscInt T = 1; T <= maxT; T++) {
        MatAIJHybridFactorInfo info;
        char                   label[256];

        PetscCall(MatAIJHybridSetNumThreads(H, T)); /* after assembly: MatGetDiagonalBlock() passes it on to the block PCBJACOBI factors */
        PetscCall(FactorKSP(H, configs[c].pc, configs[c].levels, configs[c].ord, &kh, &FH));
        PetscCall(MatAIJHybridGetFactorInfo(FH, &info));
        PetscCheck(info.threaded == (T > 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s(%d) %s, %d threads: factor solves %s threaded", matnames[kind], configs[c].pc, (int)configs[c].levels, configs[c].ord, (int)T, info.threaded ? "are" : "are not");
        PetscCheck(T == 1 || (info.nthreads == T && info.levels_lower >= 1 && info.levels_upper >= 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "factor info wrong");
        PetscCall(MatAIJHybridGetFactorInfo(FA, &info));
        PetscCheck(!info.threaded, PETSC_COMM_SELF, PETSC_ERR_PLIB, "an aij factor has threaded solves");
        nchecks += 2;
        PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s(%d) %s, %d threads", matnames[kind], configs[c].pc, (int)configs[c].levels, configs[c].ord, (int)T));
        PetscCall(CompareSolves(FA, FH, (PetscBool)!icc, label));
        PetscCall(KSPDestroy(&kh));
      }
      PetscCall(KSPDestroy(&ka));
      PetscCall(MatDestroy(&H));
      PetscCall(MatDestroy(&A));
    }
    /* whole solves: residual histories */
    for (PetscInt icc = 0; icc < 2; icc++) {
      Mat       A, H;
      PetscReal ha[200], hh[200], h1[200];
      PetscInt  na, nh, n1 = 0;
      PetscBool inodes = PETSC_FALSE;

      PetscCall(Build(kind, kind == MAT_BLOCK ? 2 * m : m, (PetscBool)icc, &A));
      PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
      PetscCall(HasInodes(A, &inodes));
      PetscCall(History(A, (PetscBool)icc, ha, &na));
      for (PetscInt T = 1; T <= maxT; T++) {
        PetscCall(MatAIJHybridSetNumThreads(H, T));
        PetscCall(History(H, (PetscBool)icc, hh, &nh));
        if (T == 1) {
          n1 = nh;
          PetscCall(PetscArraycpy(h1, hh, nh));
        }
        PetscCheck(nh == n1 && !memcmp(hh, h1, (size_t)nh * sizeof(PetscReal)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s: residual history at %d threads differs from 1 thread", matnames[kind], icc ? "CG+ICC" : "GMRES+ILU", (int)T);
        nchecks++;
        if (!inodes) {
          PetscCheck(nh == na && !memcmp(hh, ha, (size_t)nh * sizeof(PetscReal)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s: residual history at %d threads differs from aij (%d and %d iterations)", matnames[kind], icc ? "CG+ICC" : "GMRES+ILU", (int)T,
                     (int)nh, (int)na);
          nchecks++;
        } else PetscCheck(nh == na, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %d iterations against aij's %d", matnames[kind], (int)nh, (int)na);
      }
      PetscCall(
        PetscPrintf(PETSC_COMM_WORLD, "%s %s: %d iterations, residual history %s aij's\n", matnames[kind], icc ? "CG+ICC(0)" : "GMRES+ILU(0)", (int)na, inodes ? "(inodes: aij's product is the inode loop) not compared bitwise with" : "bitwise"));
      PetscCall(MatDestroy(&H));
      PetscCall(MatDestroy(&A));
    }
  }
  /* the measured choice: -mat_aijhybrid_factor_solve auto, 2 threads */
  if (maxT >= 2) {
    Mat                    A, H, FA, FH;
    KSP                    ka, kh;
    Vec                    b, xa, xh;
    MatAIJHybridFactorInfo info;

    PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_solve", "auto"));
    PetscCall(Build(MAT_POISSON, m, PETSC_FALSE, &A));
    PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
    PetscCall(MatAIJHybridSetNumThreads(H, 2));
    PetscCall(FactorKSP(A, PCILU, 0, MATORDERINGNATURAL, &ka, &FA));
    PetscCall(FactorKSP(H, PCILU, 0, MATORDERINGNATURAL, &kh, &FH));
    PetscCall(MatCreateVecs(FA, &b, NULL));
    PetscCall(VecDuplicate(b, &xa));
    PetscCall(VecDuplicate(b, &xh));
    PetscCall(MatAIJHybridGetFactorInfo(FH, &info));
    PetscCheck(info.threaded && !info.decided && info.in_use && info.solve_choice.state == MAT_AIJHYBRID_CHOICE_MEASURING, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "auto: before any solve the choice must be open, the threaded solves (the default) in force (threaded %d decided %d in use %d)", (int)info.threaded, (int)info.decided, (int)info.in_use);
    for (PetscInt k = 0; k < 22; k++) { /* a warm-up pair and the first trial's 10 pairs */
      PetscCall(VecSetRandom(b, NULL));
      PetscCall(MatSolve(FA, b, xa));
      PetscCall(MatSolve(FH, b, xh));
      PetscCall(SameBits(xa, xh, "auto: MatSolve"));
      nchecks++;
    }
    PetscCall(MatAIJHybridGetFactorInfo(FH, &info));
    {
      const MatAIJHybridChoiceInfo *c = &info.solve_choice;
      const PetscLogDouble         *ta, *ts;
      PetscInt                      np;

      PetscCheck(info.decided && c->trials == 1 && c->pairs == 10 && c->decided_at == 22 && c->needed == 9 && info.time_threaded > 0 && info.time_serial > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "auto: the first trial did not end after 22 solves (decided %d, %d trials, %d pairs, decided at %d, %d wins needed, medians %g %g)", (int)info.decided, (int)c->trials, (int)c->pairs, (int)c->decided_at, (int)c->needed,
                 (double)info.time_threaded, (double)info.time_serial);
      PetscCheck(c->state == MAT_AIJHYBRID_CHOICE_THREADED || c->state == MAT_AIJHYBRID_CHOICE_SERIAL || c->state == MAT_AIJHYBRID_CHOICE_CANNOT_TELL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: state %d after a trial", (int)c->state);
      PetscCheck(info.in_use == (c->state != MAT_AIJHYBRID_CHOICE_SERIAL), PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: %s solves in force with the choice in state %d", info.in_use ? "threaded" : "serial", (int)c->state);
      PetscCheck((c->state == MAT_AIJHYBRID_CHOICE_THREADED) == (c->wins_threaded >= c->needed) && (c->state == MAT_AIJHYBRID_CHOICE_SERIAL) == (c->wins_serial >= c->needed), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "auto: state %d with %d and %d wins of %d needed", (int)c->state, (int)c->wins_threaded, (int)c->wins_serial, (int)c->needed);
      PetscCall(MatAIJHybridGetFactorChoiceSamples(FH, PETSC_FALSE, &np, &ta, &ts));
      PetscCheck(np == 10 && ta && ts, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: %d samples recorded", (int)np);
      {
        PetscInt wa = 0, ws = 0;

        for (PetscInt k = 0; k < np; k++) {
          PetscCheck(ta[k] > 0 && ts[k] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: sample %d not timed", (int)k);
          wa += ta[k] * 1.05 < ts[k];
          ws += ts[k] * 1.05 < ta[k];
        }
        PetscCheck(wa == c->wins_threaded && ws == c->wins_serial, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: the wins (%d, %d) are not those of the samples (%d, %d)", (int)c->wins_threaded, (int)c->wins_serial, (int)wa, (int)ws);
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "auto: medians threaded %g s, serial %g s, wins %d and %d of %d needed: %s\n", (double)info.time_threaded, (double)info.time_serial, (int)c->wins_threaded, (int)c->wins_serial, (int)c->needed,
                            c->state == MAT_AIJHYBRID_CHOICE_SERIAL ? "serial" : (c->state == MAT_AIJHYBRID_CHOICE_THREADED ? "threaded" : "cannot tell, threaded kept")));
    }
    nchecks += 2;
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&xa));
    PetscCall(VecDestroy(&xh));
    PetscCall(KSPDestroy(&ka));
    PetscCall(KSPDestroy(&kh));
    PetscCall(MatDestroy(&H));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "factor_solves: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
