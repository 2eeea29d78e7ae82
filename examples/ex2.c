static char help[] = "The aijhybrid API: thread partitions of a matrix whose row lengths change along the rows.\n\
The first third of the rows carry a 27-point stencil, the rest a 7-point one; equal row blocks are\n\
then imbalanced in nonzeros. For each partition type the example prints the imbalance (max/mean\n\
cost per thread, worst rank) and checks that every product is bitwise identical across\n\
partitions, modes and thread counts, and equal to MATAIJ.\n\
  -n <n> : grid points per direction\n\n";

#include <petscaijhybrid.h>

/* 3D grid, 27-point couplings in the first third of the rows (by index), 7-point in the rest */
static PetscErrorCode Assemble(MPI_Comm comm, PetscInt n, Mat *A)
{
  PetscInt N = n * n * n, rs, re;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, N, N, 27, NULL, 27, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt row = rs; row < re; row++) {
    PetscInt    i = row % n, j = (row / n) % n, k = row / (n * n), cols[27], nc = 0;
    PetscScalar vals[27];
    PetscBool   dense = (PetscBool)(row < N / 3);

    for (PetscInt dk = -1; dk <= 1; dk++)
      for (PetscInt dj = -1; dj <= 1; dj++)
        for (PetscInt di = -1; di <= 1; di++) {
          PetscInt d = PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk);
          if (!dense && d > 1) continue;
          if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n || k + dk < 0 || k + dk >= n) continue;
          cols[nc]   = row + di + dj * n + dk * n * n;
          vals[nc++] = d == 0 ? 26.0 : -1.0 / d;
        }
    PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat                       A, H;
  Vec                       x, y, yref, ythread;
  PetscInt                  n = 12;
  PetscReal                 err, nrm, imb, gimb;
  MatAIJHybridPartitionInfo info;
  PetscBool                 first = PETSC_TRUE, same;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(Assemble(PETSC_COMM_WORLD, n, &A));
  PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
  PetscCall(MatSetFromOptions(H));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecDuplicate(y, &ythread));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(A, x, yref));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nrm));

  for (PetscInt p = MAT_AIJHYBRID_PARTITION_ROWS; p <= MAT_AIJHYBRID_PARTITION_OPTIMAL; p++) {
    for (PetscInt mode = MAT_AIJHYBRID_MODE_VECTOR; mode <= MAT_AIJHYBRID_MODE_TASK; mode++) {
      for (PetscInt T = 1; T <= 4; T++) {
        PetscCall(MatAIJHybridSetPartitionType(H, (MatAIJHybridPartitionType)p));
        PetscCall(MatAIJHybridSetMode(H, (MatAIJHybridMode)mode));
        PetscCall(MatAIJHybridSetNumThreads(H, T));
        PetscCall(MatMult(H, x, y));
        if (first) {
          PetscCall(VecCopy(y, ythread));
          first = PETSC_FALSE;
        }
        PetscCall(VecEqual(y, ythread, &same)); /* bitwise */
        PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "product differs bitwise: partition %s, mode %s, %" PetscInt_FMT " threads", MatAIJHybridPartitionTypes[p], MatAIJHybridModes[mode], T);
        if (T == 4 && mode == MAT_AIJHYBRID_MODE_VECTOR) {
          PetscCall(MatAIJHybridGetPartitionInfo(H, &info));
          imb = info.imbalance;
          PetscCallMPI(MPI_Allreduce(&imb, &gimb, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "partition %-9s 4 threads: imbalance %.3f\n", MatAIJHybridPartitionTypes[p], (double)gimb));
        }
      }
    }
  }
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_INFINITY, &err));
  PetscCheck(err <= 1e-13 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "aijhybrid differs from aij: %g", (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all products bitwise identical across partitions, modes and 1-4 threads, and equal to aij\n"));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&ythread));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   test:
      suffix: 1
      args: -n 12

   test:
      suffix: 2
      nsize: 2
      args: -n 12

   test:
      suffix: 4
      nsize: 4
      args: -n 12

TEST*/
