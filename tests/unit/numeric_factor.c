static char help[] = "The threaded numeric factorization of ILU/ICC factors of aijhybrid matrices against PETSc's serial one, bitwise.\n\
  -m <m>        : grid points per direction (matrix sizes follow)\n\
  -threads <t>  : largest thread count (1..t)\n\
  -quick        : fewer configurations\n\
  -errors       : also the errors of MatSetErrorIfFailure() (PETSc's routine leaks its work arrays then: not with -malloc_dump)\n\
  -bench        : time instead: PETSc's numeric ILU(0)/ICC(0) of aij against aijhybrid's with 1 and -threads threads\n\
  -reps <r>     : (bench) timed rounds, interleaved\n\n";

/*
   On each rank, for matrices built identically as MATSEQAIJ and as seqaijhybrid (3D Poisson
   7-point, an extruded mesh ordered column by column, a random symmetric pattern, an unsymmetric
   convection-diffusion stencil, a random unsymmetric pattern, a 3-dof block matrix whose rows form
   inodes), real or complex as PETSc is built, ILU(0..2) and ICC(0..1) with the natural, RCM, nested
   dissection and CM-RCM orderings, 1 to -threads threads, -mat_aijhybrid_factor_numeric threaded
   (set here):
     - the aijhybrid factor's numeric factorization runs threaded exactly when it has more than one
       thread (MatAIJHybridGetFactorInfo), and its values are PETSc's (the aij factor's), bitwise;
     - after new values of the same pattern (a refactorization, as a Newton step makes) again,
       from the same plan;
   with zero diagonals: every shift type (none, nonzero, positive definite, inblocks) gives PETSc's
   values; without a shift the zero pivot is reported as PETSc reports it (factor error type, row,
   value), and with MatSetErrorIfFailure() the same error; with the measured choice (auto) several
   refactorizations give PETSc's bits while a slice of the levels runs serially or threaded, and
   the choice's record is consistent. On several ranks also PCBJACOBI and PCASM with ILU/ICC blocks
   of mpiaijhybrid against mpiaij: the blocks' factors bitwise equal.
   Prints "numeric_factor: <n> checks passed".
*/
#include <petscaijhybrid.h>
#include <petscksp.h>
#include <string.h>
#include "unitcheck.h"
#include "factortest.h"

static PetscInt nchecks = 0;

/* the matrices of the test, in this order */
static const MatKind matkinds[] = {MAT_POISSON, MAT_EXTRUDED, MAT_RANDOM, MAT_CONVECTION, MAT_RANDOM_UNSYM, MAT_BLOCK};

/* the matrix of kind on comm (type aij), symmetric for Poisson, extruded, random, block3; zerodiag:
   every 7th row has a zero diagonal and no entries left of it (a zero pivot without a shift) */
static PetscErrorCode Build(MPI_Comm comm, MatKind kind, PetscInt m, PetscBool zerodiag, Mat *A)
{
  const PetscBool sym = (PetscBool)(kind == MAT_POISSON || kind == MAT_EXTRUDED || kind == MAT_RANDOM || kind == MAT_BLOCK);

  PetscFunctionBeginUser;
  PetscCall(FactorTestBuild(comm, kind, m, sym, 1.0, zerodiag, A));
  PetscFunctionReturn(0);
}

/* the values of a factor (ILU: seqaij; ICC: seqsbaij) and their count */
static PetscErrorCode FactorValues(Mat F, PetscBool ilu, const PetscScalar **a, PetscInt *nz)
{
  PetscFunctionBeginUser;
  if (ilu) {
    MatInfo      info;
    PetscScalar *v;

    PetscCall(MatSeqAIJGetCSRAndMemType(F, NULL, NULL, &v, NULL));
    *a = v;
    PetscCall(MatGetInfo(F, MAT_LOCAL, &info));
    *nz = (PetscInt)info.nz_used;
  } else {
    const PetscInt *ui, *uj;
    PetscInt        n;
    PetscBool       done;
    PetscScalar    *v;

    PetscCall(MatSeqSBAIJGetArray(F, &v));
    *a = v;
    PetscCall(MatSeqSBAIJRestoreArray(F, &v));
    PetscCall(MatGetRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ui, &uj, &done));
    *nz = ui[n];
    PetscCall(MatRestoreRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ui, &uj, &done));
  }
  PetscFunctionReturn(0);
}

/* the two factors hold the same values, bitwise; threaded: the aijhybrid one's last numeric factorization ran threaded */
static PetscErrorCode SameFactor(Mat FA, Mat FH, PetscBool ilu, PetscBool threaded, const char *label)
{
  const PetscScalar     *a, *h;
  PetscInt               na, nh;
  MatAIJHybridFactorInfo info;

  PetscFunctionBeginUser;
  PetscCall(FactorValues(FA, ilu, &a, &na));
  PetscCall(FactorValues(FH, ilu, &h, &nh));
  PetscCheck(na == nh, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " factor entries against PETSc's %" PetscInt_FMT, label, nh, na);
  for (PetscInt q = 0; q < na; q++)
    PetscCheck(!memcmp(&a[q], &h[q], sizeof(PetscScalar)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: factor entry %" PetscInt_FMT " of %" PetscInt_FMT " is %.17g, PETSc's %.17g", label, q, na, (double)PetscRealPart(h[q]), (double)PetscRealPart(a[q]));
  PetscCall(MatAIJHybridGetFactorInfo(FH, &info));
  PetscCheck(info.numeric_threaded == threaded, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the numeric factorization ran %s", label, info.numeric_threaded ? "threaded" : "serially");
  nchecks += 2;
  PetscFunctionReturn(0);
}

/* symbolic then numeric factorization of A into F (ILU or ICC with levels, ordering ord) */
static PetscErrorCode Factor(Mat A, PetscBool ilu, PetscInt levels, MatOrderingType ord, PetscReal shifttype, Mat *F, MatFactorInfo *info)
{
  IS r, c;

  PetscFunctionBeginUser;
  PetscCall(MatFactorInfoInitialize(info));
  info->levels      = levels;
  info->fill        = 5.0;
  info->shifttype   = shifttype;
  info->shiftamount = 1e-6;
  PetscCall(MatGetOrdering(A, ord, &r, &c));
  PetscCall(MatGetFactor(A, NULL, ilu ? MAT_FACTOR_ILU : MAT_FACTOR_ICC, F)); /* the default solver type (the exact matrix type first): the package's for seqaijhybrid, PETSc's for seqaij */
  if (ilu) {
    PetscCall(MatILUFactorSymbolic(*F, A, r, c, info));
    PetscCall(MatLUFactorNumeric(*F, A, info));
  } else {
    PetscCall(MatICCFactorSymbolic(*F, A, r, info));
    PetscCall(MatCholeskyFactorNumeric(*F, A, info));
  }
  PetscCall(ISDestroy(&r));
  PetscCall(ISDestroy(&c));
  PetscFunctionReturn(0);
}

static PetscErrorCode Refactor(Mat F, Mat A, PetscBool ilu, const MatFactorInfo *info)
{
  PetscFunctionBeginUser;
  if (ilu) PetscCall(MatLUFactorNumeric(F, A, info));
  else PetscCall(MatCholeskyFactorNumeric(F, A, info));
  PetscFunctionReturn(0);
}

/* new values, same pattern: A <- 1.25 A + 0.5 I (diagonally dominant stays so) */
static PetscErrorCode NewValues(Mat A)
{
  PetscFunctionBeginUser;
  PetscCall(MatScale(A, 1.25));
  PetscCall(MatShift(A, 0.5));
  PetscFunctionReturn(0);
}

/* the sequential cases on PETSC_COMM_SELF */
static PetscErrorCode TestSequential(PetscInt m, PetscInt maxT, PetscBool quick)
{
  const MatOrderingType ords[] = {MATORDERINGNATURAL, MATORDERINGRCM, MATORDERINGND, MATORDERINGCMRCM};

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(matkinds) / sizeof(matkinds[0]); k++) {
    const MatKind kind = matkinds[k];
    Mat           A, H;

    PetscCall(Build(PETSC_COMM_SELF, kind, m, PETSC_FALSE, &A));
    for (PetscInt T = 1; T <= maxT; T++) {
      PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
      PetscCall(MatAIJHybridSetNumThreads(H, T));
      for (PetscInt f = 0; f < 2; f++) {
        const PetscBool ilu = (PetscBool)(f == 0);

        if (!ilu && (kind == MAT_CONVECTION || kind == MAT_RANDOM_UNSYM)) continue; /* ICC: symmetric matrices */
        for (PetscInt o = 0; o < 4; o++)
          for (PetscInt levels = 0; levels <= (ilu ? 2 : 1); levels++) {
            Mat           FA, FH;
            MatFactorInfo info;
            char          label[256];

            if (quick && (o % 2 || levels == 2)) continue;
            PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s(%d) %s, %d threads", matnames[kind], ilu ? "ILU" : "ICC", (int)levels, ords[o], (int)T));
            PetscCall(Factor(A, ilu, levels, ords[o], ilu ? MAT_SHIFT_NONE : MAT_SHIFT_POSITIVE_DEFINITE, &FA, &info));
            PetscCall(Factor(H, ilu, levels, ords[o], ilu ? MAT_SHIFT_NONE : MAT_SHIFT_POSITIVE_DEFINITE, &FH, &info));
            PetscCall(SameFactor(FA, FH, ilu, (PetscBool)(T > 1), label));
            /* a refactorization with new values of the same pattern, from the same plan */
            PetscCall(NewValues(A));
            PetscCall(NewValues(H));
            PetscCall(Refactor(FA, A, ilu, &info));
            PetscCall(Refactor(FH, H, ilu, &info));
            PetscCall(PetscStrlcat(label, ", refactored", sizeof(label)));
            PetscCall(SameFactor(FA, FH, ilu, (PetscBool)(T > 1), label));
            {
              MatAIJHybridFactorInfo fi;

              PetscCall(MatAIJHybridGetFactorInfo(FH, &fi));
              PetscCheck(fi.numeric_count == 2 && fi.numeric_threaded_count == (T > 1 ? 2 : 0) && fi.numeric_plans == (T > 1 ? 1 : 0) && (T == 1 || fi.numeric_levels > 0), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                         "%s: %d numeric factorizations, %d threaded, %d plans, %d levels", label, (int)fi.numeric_count, (int)fi.numeric_threaded_count, (int)fi.numeric_plans, (int)fi.numeric_levels);
              PetscCheck(fi.numeric_inode == (ilu && kind == MAT_BLOCK), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: inode arithmetic %d", label, (int)fi.numeric_inode);
              nchecks += 2;
            }
            PetscCall(MatDestroy(&FA));
            PetscCall(MatDestroy(&FH));
          }
      }
      PetscCall(MatDestroy(&H));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* zero diagonals: every shift type gives PETSc's values; without a shift, PETSc's zero pivot report
   and, with MatSetErrorIfFailure(), PETSc's error */
static PetscErrorCode TestShifts(PetscInt m, PetscInt maxT, PetscBool errors)
{
  const MatKind   kinds[]  = {MAT_POISSON, MAT_CONVECTION, MAT_BLOCK};
  const PetscReal shifts[] = {MAT_SHIFT_NONE, MAT_SHIFT_NONZERO, MAT_SHIFT_POSITIVE_DEFINITE, MAT_SHIFT_INBLOCKS};
  const char     *names[]  = {"none", "nonzero", "positive_definite", "inblocks"};

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 3; k++) {
    Mat A, H;

    PetscCall(Build(PETSC_COMM_SELF, kinds[k], m, PETSC_TRUE, &A));
    PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
    PetscCall(MatAIJHybridSetNumThreads(H, PetscMin(maxT, 2 + k % 2)));
    for (PetscInt f = 0; f < 2; f++) {
      const PetscBool ilu = (PetscBool)(f == 0);

      if (!ilu && kinds[k] == MAT_CONVECTION) continue;
      for (PetscInt o = 0; o < 2; o++)
        for (PetscInt st = 0; st < 4; st++) {
          const MatOrderingType ord = o ? MATORDERINGRCM : MATORDERINGNATURAL;
          Mat                   FA, FH;
          MatFactorInfo         info;
          MatFactorError        ea, eh;
          char                  label[256];

          PetscCall(PetscSNPrintf(label, sizeof(label), "zero diagonals: %s %s(0) %s, shift %s", matnames[kinds[k]], ilu ? "ILU" : "ICC", ord, names[st]));
          PetscCall(Factor(A, ilu, 0, ord, shifts[st], &FA, &info));
          PetscCall(Factor(H, ilu, 0, ord, shifts[st], &FH, &info));
          PetscCall(SameFactor(FA, FH, ilu, (PetscBool)(maxT > 1), label));
          PetscCall(MatFactorGetError(FA, &ea));
          PetscCall(MatFactorGetError(FH, &eh));
          PetscCheck(ea == eh && (st || ea == MAT_FACTOR_NUMERIC_ZEROPIVOT), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: factor error %d, PETSc's %d", label, (int)eh, (int)ea);
          if (ea) {
            PetscReal va, vh;
            PetscInt  ra, rh;

            PetscCall(MatFactorGetErrorZeroPivot(FA, &va, &ra));
            PetscCall(MatFactorGetErrorZeroPivot(FH, &vh, &rh));
            PetscCheck(va == vh && ra == rh, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: zero pivot in row %" PetscInt_FMT " (%g), PETSc's in row %" PetscInt_FMT " (%g)", label, rh, (double)vh, ra, (double)va);
          }
          nchecks += 2;
          if (!st && errors) { /* MatSetErrorIfFailure(): PETSc's error, at its first zero pivot (PETSc's routine leaks its work arrays then) */
            PetscErrorCode ierr[2];
            char          *msg[2] = {NULL, NULL};
            const char    *text;

            for (PetscInt w = 0; w < 2; w++) {
              Mat M = w ? H : A, F = w ? FH : FA;

              PetscCall(MatSetErrorIfFailure(M, PETSC_TRUE));
              PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
              ierr[w] = ilu ? MatLUFactorNumeric(F, M, &info) : MatCholeskyFactorNumeric(F, M, &info);
              PetscCall(PetscPopErrorHandler());
#if PETSC_VERSION_LT(3, 19, 0)
              PetscCall(PetscErrorMessage(ierr[w], NULL, (char **)&text));
#else
              PetscCall(PetscErrorMessage(ierr[w], NULL, &text));
#endif
              PetscCall(PetscStrallocpy(text ? text : "", &msg[w]));
              PetscCall(MatSetErrorIfFailure(M, PETSC_FALSE));
            }
            PetscCheck(ierr[0] == PETSC_ERR_MAT_LU_ZRPVT && ierr[1] == ierr[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, error if failure: error %d, PETSc's %d", label, (int)ierr[1], (int)ierr[0]);
            PetscCheck(!strcmp(msg[0], msg[1]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s, error if failure: \"%s\", PETSc's \"%s\"", label, msg[1], msg[0]);
            PetscCall(PetscFree(msg[0]));
            PetscCall(PetscFree(msg[1]));
            nchecks++;
          }
          PetscCall(MatDestroy(&FA));
          PetscCall(MatDestroy(&FH));
        }
    }
    PetscCall(MatDestroy(&H));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* -mat_aijhybrid_factor_numeric serial: PETSc's routine, no plan made (its cost is not paid), PETSc's
   bits; the mode read at each numeric factorization, so switching to threaded plans then */
static PetscErrorCode TestSerialMode(PetscInt m, PetscInt T)
{
  Mat A, H;

  PetscFunctionBeginUser;
  PetscCall(Build(PETSC_COMM_SELF, MAT_POISSON, m, PETSC_FALSE, &A));
  PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
  PetscCall(MatAIJHybridSetNumThreads(H, T));
  for (PetscInt f = 0; f < 2; f++) {
    const PetscBool        ilu = (PetscBool)(f == 0);
    Mat                    FA, FH;
    MatFactorInfo          info;
    MatAIJHybridFactorInfo fi;
    const char            *label = ilu ? "ILU(0), numeric serial" : "ICC(0), numeric serial";

    PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_numeric", "serial"));
    PetscCall(Factor(A, ilu, 0, MATORDERINGNATURAL, ilu ? MAT_SHIFT_NONE : MAT_SHIFT_POSITIVE_DEFINITE, &FA, &info));
    PetscCall(Factor(H, ilu, 0, MATORDERINGNATURAL, ilu ? MAT_SHIFT_NONE : MAT_SHIFT_POSITIVE_DEFINITE, &FH, &info));
    PetscCall(SameFactor(FA, FH, ilu, PETSC_FALSE, label));
    PetscCall(Refactor(FA, A, ilu, &info));
    PetscCall(Refactor(FH, H, ilu, &info));
    PetscCall(SameFactor(FA, FH, ilu, PETSC_FALSE, label));
    PetscCall(MatAIJHybridGetFactorInfo(FH, &fi));
    PetscCheck(fi.numeric_count == 2 && fi.numeric_threaded_count == 0 && fi.numeric_plans == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %d numeric factorizations, %d threaded, %d plans (none expected)", label, (int)fi.numeric_count,
               (int)fi.numeric_threaded_count, (int)fi.numeric_plans);
    /* the mode is read at each numeric factorization: threaded from now on, planned once */
    PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_numeric", "threaded"));
    PetscCall(Refactor(FA, A, ilu, &info));
    PetscCall(Refactor(FH, H, ilu, &info));
    PetscCall(SameFactor(FA, FH, ilu, PETSC_TRUE, "numeric serial, then threaded"));
    PetscCall(MatAIJHybridGetFactorInfo(FH, &fi));
    PetscCheck(fi.numeric_threaded_count == 1 && fi.numeric_plans == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "numeric serial, then threaded: %d threaded, %d plans", (int)fi.numeric_threaded_count, (int)fi.numeric_plans);
    nchecks++;
    PetscCall(MatDestroy(&FA));
    PetscCall(MatDestroy(&FH));
  }
  PetscCall(MatDestroy(&H));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* the measured choice (auto): refactorizations with a slice of the levels serial or threaded give
   PETSc's bits; the record of the choice is consistent */
static PetscErrorCode TestAuto(PetscInt m)
{
  Mat                           A, H, FA, FH;
  MatFactorInfo                 info;
  MatAIJHybridFactorInfo        fi;
  const MatAIJHybridChoiceInfo *c = &fi.numeric_choice;
  const PetscLogDouble         *ta, *ts;
  PetscInt                      np, threaded = 0;
  const PetscInt                calls = 30;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_numeric", "auto"));
  PetscCall(Build(PETSC_COMM_SELF, MAT_POISSON, m, PETSC_FALSE, &A));
  PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
  PetscCall(MatAIJHybridSetNumThreads(H, 2));
  PetscCall(Factor(A, PETSC_TRUE, 0, MATORDERINGNATURAL, MAT_SHIFT_NONE, &FA, &info));
  PetscCall(Factor(H, PETSC_TRUE, 0, MATORDERINGNATURAL, MAT_SHIFT_NONE, &FH, &info));
  for (PetscInt k = 0; k < calls; k++) {
    PetscCall(MatAIJHybridGetFactorInfo(FH, &fi));
    threaded += fi.numeric_threaded;
    PetscCall(SameFactor(FA, FH, PETSC_TRUE, fi.numeric_threaded, "auto"));
    PetscCall(NewValues(A));
    PetscCall(NewValues(H));
    PetscCall(Refactor(FA, A, PETSC_TRUE, &info));
    PetscCall(Refactor(FH, H, PETSC_TRUE, &info));
  }
  PetscCall(MatAIJHybridGetFactorInfo(FH, &fi));
  PetscCall(MatAIJHybridGetFactorChoiceSamples(FH, PETSC_TRUE, &np, &ta, &ts));
  /* a warm-up pair, then trials of 6 pairs: the first ends at use 14 */
  PetscCheck(c->uses == calls + 1 && c->trials >= 1 && c->decided_at >= 14 && np == c->pairs && np >= 6 * c->trials && np < 6 * (c->trials + 1) && c->needed == 6, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "auto: %d uses, %d trials, %d pairs (%d samples), decided at %d, %d needed", (int)c->uses, (int)c->trials, (int)c->pairs, (int)np, (int)c->decided_at, (int)c->needed);
  PetscCheck(c->state != MAT_AIJHYBRID_CHOICE_MEASURING || c->trials < 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: still measuring after %d trials", (int)c->trials);
  PetscCheck((c->state == MAT_AIJHYBRID_CHOICE_SERIAL) == (c->wins_serial >= c->needed) && (c->state == MAT_AIJHYBRID_CHOICE_THREADED) == (c->wins_threaded >= c->needed), PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: state %d with wins %d and %d of %d",
             (int)c->state, (int)c->wins_threaded, (int)c->wins_serial, (int)c->needed);
  PetscCheck(c->state == MAT_AIJHYBRID_CHOICE_MEASURING || fi.numeric_threaded == (c->state != MAT_AIJHYBRID_CHOICE_SERIAL), PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: the last factorization ran %s in state %d",
             fi.numeric_threaded ? "threaded" : "serially", (int)c->state);
  for (PetscInt k = 0; k < np; k++) PetscCheck(ta[k] > 0 && ts[k] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "auto: pair %d not timed", (int)k);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "auto (numeric): %d trials, wins %d threaded and %d serial of %d needed, medians %g s and %g s: %s\n", (int)c->trials, (int)c->wins_threaded, (int)c->wins_serial, (int)c->needed, (double)c->median_threaded,
                        (double)c->median_serial, c->state == MAT_AIJHYBRID_CHOICE_SERIAL ? "serial" : (c->state == MAT_AIJHYBRID_CHOICE_THREADED ? "threaded" : "cannot tell, threaded kept")));
  nchecks += 4;
  PetscCall(MatDestroy(&FA));
  PetscCall(MatDestroy(&FH));
  PetscCall(MatDestroy(&H));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_numeric", "threaded"));
  PetscFunctionReturn(0);
}

/* the factor of the first block of a PCBJACOBI or PCASM preconditioner */
static PetscErrorCode BlockFactor(Mat A, PCType outer, PetscBool ilu, PetscInt levels, MatOrderingType ord, KSP *ksp, Mat *F)
{
  PC       pc, sub;
  KSP     *subksp;
  PetscInt nlocal, first;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, outer));
  PetscCall(KSPSetUp(*ksp));
  if (!strcmp(outer, PCBJACOBI)) PetscCall(PCBJacobiGetSubKSP(pc, &nlocal, &first, &subksp));
  else PetscCall(PCASMGetSubKSP(pc, &nlocal, &first, &subksp));
  PetscCall(KSPGetPC(subksp[0], &sub));
  PetscCall(PCSetType(sub, ilu ? PCILU : PCICC));
  PetscCall(PCFactorSetLevels(sub, levels));
  PetscCall(PCFactorSetMatOrderingType(sub, ord));
  PetscCall(PCSetUpOnBlocks(pc));
  PetscCall(PCFactorGetMatrix(sub, F));
  PetscFunctionReturn(0);
}

/* several ranks: the blocks of PCBJACOBI and PCASM of mpiaijhybrid against mpiaij's */
static PetscErrorCode TestParallel(PetscInt m, PetscInt maxT)
{
  const MatKind kinds[] = {MAT_POISSON, MAT_CONVECTION, MAT_BLOCK};

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 3; k++) {
    Mat A, H;

    PetscCall(Build(PETSC_COMM_WORLD, kinds[k], m, PETSC_FALSE, &A));
    PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
    PetscCall(MatAIJHybridSetNumThreads(H, PetscMin(maxT, 2)));
    for (PetscInt outer = 0; outer < 2; outer++)
      for (PetscInt f = 0; f < 2; f++) {
        const PetscBool ilu = (PetscBool)(f == 0);
        const PCType    pct = outer ? PCASM : PCBJACOBI;
        KSP             ka, kh;
        Mat             FA, FH;
        char            label[256];

        if (!ilu && kinds[k] == MAT_CONVECTION) continue;
        PetscCall(PetscSNPrintf(label, sizeof(label), "%s blocks of %s: %s(%d) %s", pct, matnames[kinds[k]], ilu ? "ILU" : "ICC", (int)f, f ? MATORDERINGRCM : MATORDERINGNATURAL));
        PetscCall(BlockFactor(A, pct, ilu, f, f ? MATORDERINGRCM : MATORDERINGNATURAL, &ka, &FA));
        PetscCall(BlockFactor(H, pct, ilu, f, f ? MATORDERINGRCM : MATORDERINGNATURAL, &kh, &FH));
        PetscCall(SameFactor(FA, FH, ilu, (PetscBool)(maxT > 1), label)); /* the blocks and sub-matrices of mpiaijhybrid are seqaijhybrid */
        PetscCall(KSPDestroy(&ka));
        PetscCall(KSPDestroy(&kh));
      }
    PetscCall(MatDestroy(&H));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

static int CompareDoubles(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : (x > y ? 1 : 0);
}

/*
  -bench: the numeric ILU(0) and ICC(0) factorization of the 3D Poisson matrix (m^3 rows, natural
  ordering) by PETSc (aij), by aijhybrid with one thread (PETSc's routine through the package's
  factor) and by aijhybrid with T threads (threaded), refactorized reps times, the three in a
  rotating order within each round; medians and their ratios
*/
static PetscErrorCode Bench(PetscInt m, PetscInt T, PetscInt reps)
{
  PetscFunctionBeginUser;
  PetscCheck(reps >= 1 && reps <= 1000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-reps 1 to 1000");
  for (PetscInt f = 0; f < 2; f++) {
    const PetscBool        ilu = (PetscBool)(f == 0);
    Mat                    A, H[2], F[3];
    Mat                    M[3];
    MatFactorInfo          info;
    double                *t[3], med[3];
    MatAIJHybridFactorInfo fi;

    PetscCall(Build(PETSC_COMM_SELF, MAT_POISSON, m, PETSC_FALSE, &A));
    for (PetscInt h = 0; h < 2; h++) {
      PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H[h]));
      PetscCall(MatAIJHybridSetNumThreads(H[h], h ? T : 1));
    }
    M[0] = A;
    M[1] = H[0];
    M[2] = H[1];
    for (PetscInt v = 0; v < 3; v++) {
      PetscCall(Factor(M[v], ilu, 0, MATORDERINGNATURAL, ilu ? MAT_SHIFT_NONE : MAT_SHIFT_POSITIVE_DEFINITE, &F[v], &info)); /* the first numeric factorization (and the plan) not timed */
      PetscCall(PetscMalloc1(reps, &t[v]));
    }
    for (PetscInt k = 0; k < reps; k++)
      for (PetscInt q = 0; q < 3; q++) {
        const PetscInt v = (k + q) % 3;
        double         t0;

        t0 = MPI_Wtime();
        PetscCall(Refactor(F[v], M[v], ilu, &info));
        t[v][k] = MPI_Wtime() - t0;
      }
    for (PetscInt v = 0; v < 3; v++) {
      qsort(t[v], (size_t)reps, sizeof(double), CompareDoubles);
      med[v] = reps % 2 ? t[v][reps / 2] : 0.5 * (t[v][reps / 2 - 1] + t[v][reps / 2]);
    }
    PetscCall(SameFactor(F[0], F[2], ilu, (PetscBool)(T > 1), "bench"));
    PetscCall(MatAIJHybridGetFactorInfo(F[2], &fi));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench %s(0) Poisson %d^3, medians of %d interleaved: PETSc (aij) %.4f s; aijhybrid 1 thread %.4f s (%.3fx PETSc's speed); aijhybrid %d threads %.4f s (%.3fx PETSc's, %.3fx 1 thread); plan %.4f s once\n",
                          ilu ? "ILU" : "ICC", (int)m, (int)reps, med[0], med[1], med[0] / med[1], (int)T, med[2], med[0] / med[2], med[1] / med[2], (double)fi.numeric_plan_time));
    for (PetscInt v = 0; v < 3; v++) {
      PetscCall(MatDestroy(&F[v]));
      PetscCall(PetscFree(t[v]));
    }
    PetscCall(MatDestroy(&H[0]));
    PetscCall(MatDestroy(&H[1]));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  m = 8, maxT = 4;
  PetscBool quick = PETSC_FALSE, errors = PETSC_FALSE, bench = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-threads", &maxT, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-quick", &quick));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-errors", &errors));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_aijhybrid_factor_numeric", "threaded"));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-bench", &bench));
  if (bench) {
    PetscInt reps = 21;

    PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
    PetscCall(Bench(m, maxT, reps));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(TestSequential(m, maxT, quick));
  PetscCall(TestShifts(m, maxT, errors));
  if (maxT >= 2) PetscCall(TestSerialMode(m, 2));
  if (maxT >= 2) PetscCall(TestAuto(quick ? m : 2 * m));
  {
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (size > 1) PetscCall(TestParallel(m, maxT));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "numeric_factor: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
