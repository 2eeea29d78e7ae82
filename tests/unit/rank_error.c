static char help[] = "A product that fails on some ranks only: the run must end with PETSc's error message, never hang.\n\
  -wrong_ranks <k> : ranks 0..k-1 pass vectors of the wrong local size (global size right); default 2\n\n";

/*
   At 3 or more ranks with -wrong_ranks 2, ranks 0 and 1 pass an x whose local sizes are one too many
   and one too few (the global size is right), the others a right x. MatMult()'s size check fails
   on ranks 0 and 1 only: PetscCall() returns from main() with the error after PETSc printed it,
   those processes exit without MPI_Finalize() and mpiexec ends the job, while the other ranks are
   inside the product, waiting in the halo exchange for ghost values that never come. With
   -on_error_abort, PETSc calls MPI_Abort() at the error instead. Either way the run ends; it must
   not hang (tests/test_bad_input.py runs this with a timeout, in task and vector modes).
   Prints "all ranks passed the product" if no rank failed (the run with -wrong_ranks 0).
*/
#include <petscaijhybrid.h>

int main(int argc, char **argv)
{
  Mat         A;
  Vec         x, y;
  PetscInt    n = 60, nl, wrong = 2, rs, re;
  PetscMPIInt rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-wrong_ranks", &wrong, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(A, MATAIJHYBRID));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 3, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, (i + n / 2) % n, -1.0, INSERT_VALUES)); /* a ghost on every rank */
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  nl = re - rs;
  if (wrong >= 2 && size >= 3 && rank < 2) nl += rank == 0 ? 1 : -1;
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nl, n, &x));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatCreateVecs(A, NULL, &y));
  PetscCall(MatMult(A, x, y));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all ranks passed the product\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
