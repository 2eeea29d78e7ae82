static char help[] = "Solves a 3D Poisson problem (7-point Laplacian) with CG + Jacobi on any matrix type.\n\
Use -mat_type aijhybrid to run the products with OpenMP threads inside each rank.\n\
  -n <n>          : grid points per direction (n^3 unknowns)\n\
  -mult_reps <k>  : after the solve, time k extra MatMult calls\n\
  -timing         : print times and a machine-readable RESULT line\n\
  -final_mat_view : view the matrix after the products (::ascii_info_detail shows per-thread times)\n\n";

/*
   An ordinary PETSc application: nothing here is specific to the plugin except that it links the
   library and calls MatAIJHybridInitializePackage() so that -mat_type aijhybrid is known (an
   unmodified application would use -dll_append instead).
*/
#include <petscksp.h>
#include <petscaijhybrid.h>

int main(int argc, char **argv)
{
  Mat            A;
  Vec            x, b, u;
  KSP            ksp;
  PetscInt       n = 10, reps = 50, its, rs, re;
  PetscReal      rnorm, bnorm;
  PetscBool      timing = PETSC_FALSE;
  PetscMPIInt    size;
  MatType        type;
  PetscLogDouble t0, t1, tsolve, tmult;
  PetscInt       nthreads = 1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mult_reps", &reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &timing, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  /* assemble the 7-point Laplacian by rows, each rank its own rows, in natural ordering */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n * n * n, n * n * n));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 7, NULL, 6, NULL));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt row = rs; row < re; row++) {
    PetscInt    i = row % n, j = (row / n) % n, k = row / (n * n), cols[7], nc = 0;
    PetscScalar vals[7];

    if (k > 0) cols[nc] = row - n * n, vals[nc++] = -1.0;
    if (j > 0) cols[nc] = row - n, vals[nc++] = -1.0;
    if (i > 0) cols[nc] = row - 1, vals[nc++] = -1.0;
    cols[nc] = row, vals[nc++] = 6.0;
    if (i < n - 1) cols[nc] = row + 1, vals[nc++] = -1.0;
    if (j < n - 1) cols[nc] = row + n, vals[nc++] = -1.0;
    if (k < n - 1) cols[nc] = row + n * n, vals[nc++] = -1.0;
    PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatGetType(A, &type));
  {
    PetscBool hybrid;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &hybrid, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
    if (hybrid) PetscCall(MatAIJHybridGetNumThreads(A, &nthreads));
  }

  /* right-hand side b = A * ones, so the solution is known */
  PetscCall(MatCreateVecs(A, &x, &b));
  { /* a vector the application makes itself: its type from -vec_type (default: standard) */
    PetscInt mloc;
    PetscCall(MatGetLocalSize(A, &mloc, NULL));
    PetscCall(VecCreate(PETSC_COMM_WORLD, &u));
    PetscCall(VecSetSizes(u, mloc, PETSC_DECIDE));
    PetscCall(VecSetFromOptions(u));
  }
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b));
  PetscCall(VecNorm(b, NORM_2, &bnorm));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscBarrier((PetscObject)A));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t1));
  tsolve = t1 - t0;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(MatMult(A, x, u));
  PetscCall(VecAXPY(u, -1.0, b));
  PetscCall(VecNorm(u, NORM_2, &rnorm));

  /* time products alone: mean over reps after one warm-up */
  PetscCall(MatMult(A, x, u));
  PetscCall(PetscBarrier((PetscObject)A));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(A, x, u));
  PetscCall(PetscBarrier((PetscObject)A));
  PetscCall(PetscTime(&t1));
  tmult = reps ? (t1 - t0) / reps : 0.0;
  PetscCall(MatViewFromOptions(A, NULL, "-final_mat_view")); /* e.g. ::ascii_info_detail: per-thread times */

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "3D Poisson %" PetscInt_FMT "^3, matrix type %s, %d rank(s) x %" PetscInt_FMT " thread(s)\n", n, type, size, nthreads));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CG + Jacobi: %" PetscInt_FMT " iterations, relative residual %s 1e-7\n", its, rnorm / bnorm < 1e-7 ? "<" : ">="));
  if (timing) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %.4f s, MatMult %.6f s\n", tsolve, tmult));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "RESULT type=%s ranks=%d threads=%" PetscInt_FMT " n=%" PetscInt_FMT " its=%" PetscInt_FMT " relres=%.3e solve=%.6f mult=%.8f\n", type, size, nthreads, n, its, (double)(rnorm / bnorm), tsolve, tmult));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
      suffix: aij
      args: -n 12 -mat_type aij

   test:
      suffix: hybrid
      args: -n 12 -mat_type aijhybrid -mat_aijhybrid_num_threads 2

   test:
      suffix: hybrid_2
      nsize: 2
      args: -n 12 -mat_type aijhybrid -mat_aijhybrid_num_threads 2 -mat_aijhybrid_partition diffusion

   test:
      suffix: hybrid_4
      nsize: 4
      args: -n 12 -mat_type aijhybrid -mat_aijhybrid_num_threads 3 -mat_aijhybrid_partition optimal

   test:
      suffix: hybrid_nodeaware
      nsize: 4
      args: -n 12 -mat_type aijhybrid -mat_aijhybrid_num_threads 2 -mat_aijhybrid_node_aware -mat_aijhybrid_node_size 2

TEST*/
