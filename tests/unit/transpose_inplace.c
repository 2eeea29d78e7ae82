/*
   MatTranspose(A, MAT_INPLACE_MATRIX, &A) of aijhybrid (as PCGAMG's MISK coarsening calls it):
   against aij's in-place transpose of the same non-square matrix, the values bitwise (MatEqual of
   an aij copy), the type, sizes, the object's name, options prefix and the plugin's settings kept,
   its composed objects where aij keeps them (PETSc 3.18's aij drops them); twice in place gives the matrix back. On one rank the transpose is the
   plugin's threaded one put into A's header, on several AIJ's.
   The same for MatAXPY(Y, a, X, DIFFERENT_NONZERO_PATTERN), whose result (a new pattern, the
   plugin's threaded union on one rank) is put into Y's header too: aij's bits, type, name, prefix,
   settings, composed objects where aij keeps them.
*/
#include <petscaijhybrid.h>
#include "unitcheck.h"
#include "compareaij.h"

/* m local rows, n local columns: row i of the global matrix has entries in (i * 3 + k * 7) mod N */
static PetscErrorCode Build(MatType type, PetscInt m, PetscInt n, Mat *A)
{
  PetscInt rs, re, N;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, n, PETSC_DECIDE, PETSC_DECIDE));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 4, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 4, NULL, 4, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(MatGetSize(*A, NULL, &N));
  for (PetscInt i = rs; i < re; i++)
    for (PetscInt k = 0; k < 3; k++) PetscCall(MatSetValue(*A, i, (i * 3 + k * 7) % N, 1.0 / (1.0 + i + 10.0 * k), ADD_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* H (aijhybrid) equals A (aij) bitwise: an aij copy of H against A */
static PetscErrorCode SameBits(Mat A, Mat H, PetscBool *same)
{
  Mat C;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(H, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatEqual(A, C, same));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat         A, H, A0;
  Vec         tag;
  PetscObject got;
  PetscInt    m = 37, n = 23, M, N, T;
  PetscBool   same, isours, sor, kept;
  const char *prefix, *name;
  MatType     type;
  PetscReal   e[2], r[2];
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Build(MATAIJ, m, n, &A));
  PetscCall(Build(MATAIJHYBRID, m, n, &H));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A0));
  PetscCall(MatAIJHybridGetNumThreads(H, &T));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)H, "t_"));
  PetscCall(PetscObjectSetName((PetscObject)H, "H"));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3, &tag));
  PetscCall(PetscObjectCompose((PetscObject)H, "tag", (PetscObject)tag));
  PetscCall(PetscObjectCompose((PetscObject)A, "tag", (PetscObject)tag));
  PetscCall(MatAIJHybridSetSORSerial(H, PETSC_TRUE)); /* a setting that is not the default */

  PetscCall(MatTranspose(A, MAT_INPLACE_MATRIX, &A));
  PetscCall(MatTranspose(H, MAT_INPLACE_MATRIX, &H));
  PetscCall(MatGetSize(H, &M, &N));
  CHECK(M == size * n && N == size * m, "transpose is %" PetscInt_FMT " x %" PetscInt_FMT ", not %d x %d", M, N, (int)(size * n), (int)(size * m));
  PetscCall(PetscObjectTypeCompare((PetscObject)H, size > 1 ? MATMPIAIJHYBRID : MATSEQAIJHYBRID, &isours));
  PetscCall(MatGetType(H, &type));
  CHECK(isours, "the transpose in place is of type %s", type);
  PetscCall(SameBits(A, H, &same));
  CHECK(same, "the transpose in place differs from aij's (%d rank(s), %" PetscInt_FMT " threads)", (int)size, T);
  PetscCall(CompareAIJ(A, H, PETSC_TRUE, e, r));
  CHECK(e[0] <= 1e-14 * r[0] && e[1] <= 1e-14 * r[1], "products of the transpose differ from aij's: %g, transpose %g", (double)e[0], (double)e[1]);
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)H, &prefix));
  CHECK(prefix && !strcmp(prefix, "t_"), "options prefix %s after the transpose in place", prefix ? prefix : "(none)");
  PetscCall(PetscObjectGetName((PetscObject)H, &name));
  CHECK(!strcmp(name, "H"), "name %s after the transpose in place", name);
  PetscCall(PetscObjectQuery((PetscObject)A, "tag", &got));
  kept = (PetscBool)(got == (PetscObject)tag); /* PETSc 3.18's aij drops it, newer ones keep it */
  PetscCall(PetscObjectQuery((PetscObject)H, "tag", &got));
  CHECK(!kept || got == (PetscObject)tag, "the composed object is lost by the transpose in place, aij keeps it");
  PetscCall(MatAIJHybridGetSORSerial(H, &sor));
  CHECK(sor, "the setting is lost by the transpose in place");

  /* back: the matrix itself */
  PetscCall(MatTranspose(H, MAT_INPLACE_MATRIX, &H));
  PetscCall(SameBits(A0, H, &same));
  CHECK(same, "twice transposed in place is not the matrix");

  /* MatAXPY of a new pattern: A and H both the transpose again (n x m local), plus a matrix of the
     same sizes built as the original is (its pattern is not the transpose's) */
  {
    Mat XA, XH;

    PetscCall(MatTranspose(H, MAT_INPLACE_MATRIX, &H));
    PetscCall(Build(MATAIJ, n, m, &XA));
    PetscCall(Build(MATAIJHYBRID, n, m, &XH));
    PetscCall(MatAXPY(A, 2.0, XA, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(H, 2.0, XH, DIFFERENT_NONZERO_PATTERN));
    PetscCall(PetscObjectTypeCompare((PetscObject)H, size > 1 ? MATMPIAIJHYBRID : MATSEQAIJHYBRID, &isours));
    PetscCall(MatGetType(H, &type));
    CHECK(isours, "MatAXPY of a new pattern gives type %s", type);
    PetscCall(SameBits(A, H, &same));
    CHECK(same, "MatAXPY of a new pattern differs from aij's (%d rank(s), %" PetscInt_FMT " threads)", (int)size, T);
    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)H, &prefix));
    CHECK(prefix && !strcmp(prefix, "t_"), "options prefix %s after MatAXPY of a new pattern", prefix ? prefix : "(none)");
    PetscCall(PetscObjectGetName((PetscObject)H, &name));
    CHECK(!strcmp(name, "H"), "name %s after MatAXPY of a new pattern", name);
    PetscCall(PetscObjectQuery((PetscObject)A, "tag", &got));
    kept = (PetscBool)(got == (PetscObject)tag);
    PetscCall(PetscObjectQuery((PetscObject)H, "tag", &got));
    CHECK(!kept || got == (PetscObject)tag, "the composed object is lost by MatAXPY of a new pattern, aij keeps it");
    PetscCall(MatAIJHybridGetSORSerial(H, &sor));
    CHECK(sor, "the setting is lost by MatAXPY of a new pattern");
    PetscCall(MatDestroy(&XA));
    PetscCall(MatDestroy(&XH));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "transpose_inplace (%d rank(s), %" PetscInt_FMT " threads): %d checks passed, %d failed\n", (int)size, T, npass, nfail));
  PetscCall(VecDestroy(&tag));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&A0));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
