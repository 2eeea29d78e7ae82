/*
   Smoke test for every PETSc flavour (real/complex scalars, 32/64-bit indices, debug or not):
   every multiply variant of aijhybrid (MatMult, MatMultAdd, MatMultTranspose, MatMultTransposeAdd,
   each with z distinct from y and z == y, and MatMultHermitianTranspose) against MATAIJ on a
   nonsymmetric matrix with complex entries (in complex builds) and ghost columns at any rank
   count, for 1, 2 and 3 threads and both modes; then a GMRES+Jacobi solve with each type.

   Prints "flavour: scalar <real|complex>, int <32|64>, debug <yes|no>" and one
   "<variant> matches aij" line per variant; exits non-zero on any mismatch.
*/
#include <petscaijhybrid.h>
#include <petscksp.h>
#include "compat.h" /* PETSC_SUCCESS on PETSc 3.18 */

/* entry value a + b i (complex builds) or a (real builds) */
static PetscScalar Value(PetscReal a, PetscReal b)
{
#if defined(PETSC_USE_COMPLEX)
  return a + b * PETSC_i;
#else
  (void)b;
  return a;
#endif
}

static PetscErrorCode Assemble(MatType type, PetscInt n, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 4, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 4, NULL, 3, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    /* diagonally dominant, nonsymmetric, couplings far away in the index space (ghosts) */
    PetscInt    cols[4] = {i, (i * 7 + 13) % n, (i * 11 + 5) % n, (n - 1 - i + n / 3) % n};
    PetscScalar vals[4] = {Value(8.0 + (PetscReal)(i % 5), 0.5), Value(-1.0, 0.25 * (PetscReal)(i % 3)), Value(0.5, -1.0), Value(-0.75, 0.125)};
    for (PetscInt k = 1; k < 4; k++) PetscCall(MatSetValues(*A, 1, &i, 1, &cols[k], &vals[k], ADD_VALUES));
    PetscCall(MatSetValues(*A, 1, &i, 1, &cols[0], &vals[0], ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  MULT,
  MULTADD,
  MULTADD_ALIAS,
  MULTT,
  MULTTADD,
  MULTTADD_ALIAS,
  MULTH,
  NVARIANTS
} Variant;
static const char *const VariantNames[] = {"MatMult", "MatMultAdd", "MatMultAdd(z == y)", "MatMultTranspose", "MatMultTransposeAdd", "MatMultTransposeAdd(z == y)", "MatMultHermitianTranspose"};

/* out = the variant applied with A; xr, xl: inputs of the right/left layouts, zl, zr: the added vectors */
static PetscErrorCode Apply(Mat A, Variant v, Vec xr, Vec xl, Vec zl, Vec zr, Vec out)
{
  PetscFunctionBeginUser;
  switch (v) {
  case MULT:
    PetscCall(MatMult(A, xr, out));
    break;
  case MULTADD:
    PetscCall(MatMultAdd(A, xr, zl, out));
    break;
  case MULTADD_ALIAS:
    PetscCall(VecCopy(zl, out));
    PetscCall(MatMultAdd(A, xr, out, out));
    break;
  case MULTT:
    PetscCall(MatMultTranspose(A, xl, out));
    break;
  case MULTTADD:
    PetscCall(MatMultTransposeAdd(A, xl, zr, out));
    break;
  case MULTTADD_ALIAS:
    PetscCall(VecCopy(zr, out));
    PetscCall(MatMultTransposeAdd(A, xl, out, out));
    break;
  case MULTH:
    PetscCall(MatMultHermitianTranspose(A, xl, out));
    break;
  default:
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "unknown variant");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A, H;
  Vec       xr, xl, zl, zr, ya, yh, b, sa, sh;
  PetscInt  n = 240, ita, ith;
  PetscReal err, nrm, imag = 0.0;
  KSP       ksp;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
#if defined(PETSC_USE_DEBUG)
  const char *debug = "yes";
#else
  const char *debug = "no";
#endif
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "flavour: scalar %s, int %d, debug %s\n", PetscDefined(USE_COMPLEX) ? "complex" : "real", (int)(8 * sizeof(PetscInt)), debug));
  PetscCall(Assemble(MATAIJ, n, &A));
  PetscCall(Assemble(MATAIJHYBRID, n, &H));
  PetscCall(MatCreateVecs(A, &xr, &xl));
  PetscCall(VecDuplicate(xl, &zl));
  PetscCall(VecDuplicate(xr, &zr));
  PetscCall(VecDuplicate(xl, &ya));
  PetscCall(VecDuplicate(xl, &yh));
  PetscCall(VecSetRandom(xr, NULL));
  PetscCall(VecSetRandom(xl, NULL));
  PetscCall(VecSetRandom(zl, NULL));
  PetscCall(VecSetRandom(zr, NULL));
  {
    /* complex builds: the inputs must have imaginary parts, or complex arithmetic is not exercised */
    const PetscScalar *a;
    PetscInt           m;
    PetscCall(VecGetLocalSize(xr, &m));
    PetscCall(VecGetArrayRead(xr, &a));
    for (PetscInt i = 0; i < m; i++) imag = PetscMax(imag, PetscAbsReal(PetscImaginaryPart(a[i])));
    PetscCall(VecRestoreArrayRead(xr, &a));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &imag, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCheck(!PetscDefined(USE_COMPLEX) || imag > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "complex build with purely real input vectors");
  }
  for (Variant v = MULT; v < NVARIANTS; v++) {
    Vec layout = v >= MULTT ? zr : zl; /* the output's layout */
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&yh));
    PetscCall(VecDuplicate(layout, &ya));
    PetscCall(VecDuplicate(layout, &yh));
    PetscCall(Apply(A, v, xr, xl, zl, zr, ya));
    PetscCall(VecNorm(ya, NORM_INFINITY, &nrm));
    for (PetscInt mode = 0; mode < 2; mode++) {
      PetscCall(MatAIJHybridSetMode(H, mode ? MAT_AIJHYBRID_MODE_TASK : MAT_AIJHYBRID_MODE_VECTOR));
      for (PetscInt t = 1; t <= 3; t++) {
        PetscCall(MatAIJHybridSetNumThreads(H, t));
        PetscCall(VecSet(yh, 0.0));
        PetscCall(Apply(H, v, xr, xl, zl, zr, yh));
        PetscCall(VecAXPY(yh, -1.0, ya));
        PetscCall(VecNorm(yh, NORM_INFINITY, &err));
        PetscCheck(err <= 1e-13 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s with %" PetscInt_FMT " threads, mode %s: differs from aij by %g (|y| %g)", VariantNames[v], t, mode ? "task" : "vector", (double)err, (double)nrm);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s matches aij\n", VariantNames[v]));
  }
  PetscCall(MatAIJHybridSetNumThreads(H, PETSC_DEFAULT));
  PetscCall(MatAIJHybridSetMode(H, MAT_AIJHYBRID_MODE_AUTO));

  /* the same solve with each type: same iteration count, same solution */
  PetscCall(VecDuplicate(xl, &b));
  PetscCall(VecDuplicate(xr, &sa));
  PetscCall(VecDuplicate(xr, &sh));
  PetscCall(VecCopy(zl, b));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, k ? H : A, k ? H : A));
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
    {
      PC pc;
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCJACOBI));
    }
    PetscCall(KSPSolve(ksp, b, k ? sh : sa));
    {
      KSPConvergedReason reason;
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "KSP with %s did not converge: %s", k ? "aijhybrid" : "aij", KSPConvergedReasons[reason]);
    }
    PetscCall(KSPGetIterationNumber(ksp, k ? &ith : &ita));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCheck(ita == ith, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSP iterations: %" PetscInt_FMT " with aij, %" PetscInt_FMT " with aijhybrid", ita, ith);
  PetscCall(VecNorm(sa, NORM_INFINITY, &nrm));
  PetscCall(VecAXPY(sh, -1.0, sa));
  PetscCall(VecNorm(sh, NORM_INFINITY, &err));
  PetscCheck(err <= 1e-8 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSP solutions differ by %g", (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP gmres/jacobi matches aij (%" PetscInt_FMT " iterations)\n", ita));

  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&zl));
  PetscCall(VecDestroy(&zr));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&sa));
  PetscCall(VecDestroy(&sh));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFinalize());
  return 0;
}
