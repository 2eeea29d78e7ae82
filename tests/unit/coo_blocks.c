#include <petscaijhybrid.h>
#include "compareaij.h"
/*
   COO assembly (MatSetPreallocationCOO, MatSetValuesCOO) of aijhybrid against aij: the same
   products, twice (a second COO preallocation with another pattern replaces the first), and on
   several ranks the blocks of the mpiaijhybrid matrix stay seqaij (MPIAIJ's COO preallocation
   converts them to the root type of the matrix's type, which would make them seqaijhybrid).
   After MatConvert() back to aij, COO assembly is AIJ's own again. Prints what it checked.
*/
static PetscErrorCode Fill(Mat M, PetscInt n, PetscInt shift)
{
  PetscInt     rs, re, k = 0, *ci, *cj;
  PetscScalar *v;
  PetscLayout  rmap;

  PetscFunctionBeginUser;
  /* before any preallocation the range comes from the layout (MatGetOwnershipRange() checks preallocation in debug builds) */
  PetscCall(MatGetLayouts(M, &rmap, NULL));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutGetRange(rmap, &rs, &re));
  PetscCall(PetscMalloc3(4 * (re - rs), &ci, 4 * (re - rs), &cj, 4 * (re - rs), &v));
  for (PetscInt i = rs; i < re; i++) { /* repeated entries add; some rows of other ranks; a negative index is ignored */
    ci[k] = i, cj[k] = i, v[k++] = 4.0;
    ci[k] = i, cj[k] = (i * 7 + shift) % n, v[k++] = -1.0;
    ci[k] = (i * 11 + 5 + shift) % n, cj[k] = i, v[k++] = 0.5;
    ci[k] = i % 5 ? i : -1, cj[k] = i, v[k++] = 1.0;
  }
  PetscCall(MatSetPreallocationCOO(M, k, ci, cj));
  PetscCall(MatSetValuesCOO(M, v, ADD_VALUES));
  PetscCall(PetscFree3(ci, cj, v));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(Mat A, Mat B, const char *what)
{
  PetscReal e[2], r[2];

  PetscFunctionBeginUser;
  PetscCall(CompareAIJ(A, B, PETSC_TRUE, e, r));
  PetscCheck(e[0] <= 1e-13 * r[0] && e[1] <= 1e-13 * r[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: products differ from aij: %g, %g", what, (double)e[0], (double)e[1]);
  PetscFunctionReturn(0);
}

/* on several ranks: the types of B's blocks must be seqaij; their names are printed */
static PetscErrorCode Blocks(Mat B, const char *what)
{
  PetscMPIInt size;
  Mat         Ad, Ao;
  PetscBool   ad, ao;
  MatType     tb, td, to;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatGetType(B, &tb));
  if (size == 1) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s matches aij\n", what, tb));
    PetscFunctionReturn(0);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(B, &Ad, &Ao, NULL));
  PetscCall(MatGetType(Ad, &td));
  PetscCall(MatGetType(Ao, &to));
  PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQAIJ, &ad));
  PetscCall(PetscObjectTypeCompare((PetscObject)Ao, MATSEQAIJ, &ao));
  PetscCheck(ad && ao, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the blocks of %s are %s and %s, not seqaij", what, tb, td, to);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s matches aij, blocks %s and %s\n", what, tb, td, to));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat      A, B;
  PetscInt n = 300;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  for (PetscInt shift = 13; shift <= 29; shift += 16) {
    for (int k = 0; k < 2; k++) {
      Mat *M = k ? &B : &A;

      PetscCall(MatCreate(PETSC_COMM_WORLD, M));
      PetscCall(MatSetSizes(*M, PETSC_DECIDE, PETSC_DECIDE, n, n));
      PetscCall(MatSetType(*M, k ? MATAIJHYBRID : MATAIJ));
      PetscCall(Fill(*M, n, shift));
    }
    PetscCall(Compare(A, B, "COO"));
    PetscCall(Blocks(B, "COO"));
    /* a second COO preallocation of the same matrices, another pattern */
    PetscCall(Fill(A, n, shift + 3));
    PetscCall(Fill(B, n, shift + 3));
    PetscCall(Compare(A, B, "COO again"));
    PetscCall(Blocks(B, "COO again"));
    /* back to aij in place: COO is AIJ's own again, its blocks seqaij */
    PetscCall(MatConvert(B, MATAIJ, MAT_INPLACE_MATRIX, &B));
    PetscCall(Fill(A, n, shift + 5));
    PetscCall(Fill(B, n, shift + 5));
    PetscCall(Compare(A, B, "COO after conversion to aij"));
    PetscCall(Blocks(B, "COO after conversion to aij"));
    { /* the conversion gave AIJ its own COO preallocation back */
      void (*fa)(void), (*fb)(void);

      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetPreallocationCOO_C", &fa));
      PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSetPreallocationCOO_C", &fb));
      PetscCheck(fa == fb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "after the conversion to aij, the COO preallocation is not AIJ's");
    }
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscFinalize());
  return 0;
}
