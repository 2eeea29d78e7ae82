/*
   An application that initializes MPI itself at MPI_THREAD_SINGLE, then PETSc, links the plugin
   and calls MatAIJHybridInitializePackage(). Documented behaviour below MPI_THREAD_FUNNELED: the
   plugin still runs its threaded kernels (they make no MPI call), keeps every MPI call on the main
   thread outside parallel regions (vector mode even when task mode is asked for), and reports the
   level in -mat_view ::ascii_info.
   Prints "thread level <provided>: products match aij" on success, exits non-zero otherwise.
*/
#include <petscaijhybrid.h>
#include "compareaij.h"

int main(int argc, char **argv)
{
  int         provided;
  Mat         A, B;
  PetscInt    n = 2000, rs, re;
  PetscReal   e[2], r[2];
  PetscMPIInt rank;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(MatAIJHybridInitializePackage()); /* idempotent */
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(A, i, i, 2.0 + i % 7, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0 / (1 + i % 3), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatAIJHybridSetNumThreads(B, 2));
  PetscCall(MatAIJHybridSetMode(B, MAT_AIJHYBRID_MODE_TASK)); /* asked for, but below FUNNELED products run in vector mode */
  {
    MatAIJHybridMode mode;
    PetscCall(MatAIJHybridGetMode(B, &mode));
    PetscCheck(provided >= MPI_THREAD_FUNNELED || mode == MAT_AIJHYBRID_MODE_VECTOR, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "mode %s below MPI_THREAD_FUNNELED", MatAIJHybridModes[mode]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "products run in %s mode\n", MatAIJHybridModes[mode]));
  }
  PetscCall(MatViewFromOptions(B, NULL, "-mat_view"));
  PetscCall(CompareAIJ(A, B, PETSC_TRUE, e, r));
  PetscCheck(e[0] <= 1e-13 * r[0], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "aijhybrid product differs from aij: %g", (double)e[0]);
  PetscCheck(e[1] <= 1e-13 * r[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "aijhybrid transpose product differs from aij: %g", (double)e[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "thread level %s: products match aij\n", provided == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : "above MPI_THREAD_SINGLE"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  MPI_Finalize();
  return 0;
}
