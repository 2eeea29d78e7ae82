/*
   Makes one object of every type of the package and lets each read its options, as an application
   would (MatSetFromOptions(), VecSetFromOptions(), PetscSFSetFromOptions(), a CM-RCM ordering, an
   ILU factor of an aijhybrid matrix). Run with -help, it lists every option the package reads, under
   the titles of their types, with the current values of new objects (the defaults): the source of
   the README's options table (share/docs/options.py) and of the checks of tests/test_options_table.py.
*/
#include <petscaijhybrid.h>

int main(int argc, char **argv)
{
  Mat           A, F;
  Vec           v;
  PetscSF       sf;
  IS            rperm, cperm;
  MatFactorInfo info;
  PetscInt      n = 8, rs, re;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  /* the types from the options, as an application selects them (MatSetType() before MatSetFromOptions()
     would keep PETSc from listing the matrix's options: seqaij's constructor opens their section) */
  PetscCall(PetscOptionsInsertString(NULL, "-mat_type aijhybrid -vec_type hybrid -sf_type nodeaware"));
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, n, n, n, n));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  PetscCall(VecCreate(PETSC_COMM_SELF, &v));
  PetscCall(VecSetSizes(v, n, n));
  PetscCall(VecSetFromOptions(v));

  PetscCall(PetscSFCreate(PETSC_COMM_SELF, &sf));
  PetscCall(PetscSFSetFromOptions(sf));

  PetscCall(MatGetOrdering(A, MATORDERINGCMRCM, &rperm, &cperm));
  PetscCall(MatGetFactor(A, MATSOLVERAIJHYBRID, MAT_FACTOR_ILU, &F)); /* "petsc" would find seqaij's, whose name begins seqaijhybrid's */
  PetscCall(MatFactorInfoInitialize(&info));
  info.fill = 1.0;
  PetscCall(MatILUFactorSymbolic(F, A, rperm, cperm, &info));
  PetscCall(MatLUFactorNumeric(F, A, &info));

  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(MatDestroy(&F));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
