/*
   MatCreateGraph() of aijhybrid (what PCGAMG coarsens) against aij's on the same matrix, for
   PCGAMG's default (symmetrized, neither scaled nor filtered, made on one rank without AIJ's copy
   of the matrix) and the other combinations (AIJ's own): the graph bit for bit (an aij copy,
   MatEqual()), of type aijhybrid on one rank, with aij's symmetry flags; for a pattern that is not
   structurally symmetric, one known to be, and a matrix known to be symmetric.
*/
#include <petscaijhybrid.h>
#include "unitcheck.h"

/* m local rows: row i has a diagonal (but row 5), an entry to the right, one far away (not mirrored:
   the pattern is not symmetric), values of both signs; sym: a symmetric matrix (a tridiagonal) */
static PetscErrorCode Build(MatType type, PetscInt m, PetscBool sym, Mat *A)
{
  PetscInt rs, re, N;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, m, PETSC_DECIDE, PETSC_DECIDE));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 4, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 4, NULL, 4, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(MatGetSize(*A, NULL, &N));
  for (PetscInt i = rs; i < re; i++) {
    if (i != 5) PetscCall(MatSetValue(*A, i, i, 4.0 + 1.0 / (1.0 + i), ADD_VALUES));
    if (sym) {
      if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0 / (1.0 + i), ADD_VALUES));
      if (i + 1 < N) PetscCall(MatSetValue(*A, i, i + 1, -1.0 / (2.0 + i), ADD_VALUES));
    } else {
      if (i + 1 < N) PetscCall(MatSetValue(*A, i, i + 1, -0.5 - 1.0 / (3.0 + i), ADD_VALUES));
      PetscCall(MatSetValue(*A, i, (i * 7 + 3) % N, 0.25 / (1.0 + i), ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode Graph(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, Mat *G)
{
  PetscFunctionBeginUser;
#if PETSC_VERSION_LT(3, 21, 0)
  PetscCall(MatCreateGraph(A, symmetrize, scale, filter, G));
#else
  PetscCall(MatCreateGraph(A, symmetrize, scale, filter, 0, NULL, G));
#endif
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;
  PetscInt    T, ncase = 0;
  const struct {
    PetscBool sym, scale;
    PetscReal filter;
  } combo[] = {
    {PETSC_TRUE,  PETSC_FALSE, -1.0}, /* PCGAMG's default */
    {PETSC_TRUE,  PETSC_TRUE,  -1.0},
    {PETSC_TRUE,  PETSC_TRUE,  0.01},
    {PETSC_FALSE, PETSC_FALSE, -1.0},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (PetscInt kind = 0; kind < 3; kind++) { /* 0: pattern not symmetric; 1: the same, known structurally symmetric (a lie AIJ believes too); 2: symmetric, known */
    for (size_t c = 0; c < sizeof(combo) / sizeof(combo[0]); c++) {
      Mat         A, H, GA, GH, C;
      PetscBool   same, ours, setA, flgA, setH, flgH;
      PetscObject tp;

      PetscCall(Build(MATAIJ, 29, (PetscBool)(kind == 2), &A));
      PetscCall(Build(MATAIJHYBRID, 29, (PetscBool)(kind == 2), &H));
      PetscCall(MatAIJHybridGetNumThreads(H, &T));
      if (kind == 1) {
        PetscCall(MatSetOption(A, MAT_STRUCTURALLY_SYMMETRIC, PETSC_TRUE));
        PetscCall(MatSetOption(H, MAT_STRUCTURALLY_SYMMETRIC, PETSC_TRUE));
      }
      if (kind == 2) {
        PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
        PetscCall(MatSetOption(H, MAT_SYMMETRIC, PETSC_TRUE));
      }
      if (kind == 1 && combo[c].sym) { /* a structurally symmetric pattern: SAME_NONZERO_PATTERN's sum needs it, make it so */
        PetscCall(MatDestroy(&A));
        PetscCall(MatDestroy(&H));
        PetscCall(Build(MATAIJ, 29, PETSC_TRUE, &A));
        PetscCall(Build(MATAIJHYBRID, 29, PETSC_TRUE, &H));
        PetscCall(MatSetOption(A, MAT_STRUCTURALLY_SYMMETRIC, PETSC_TRUE));
        PetscCall(MatSetOption(H, MAT_STRUCTURALLY_SYMMETRIC, PETSC_TRUE));
      }
      PetscCall(Graph(A, combo[c].sym, combo[c].scale, combo[c].filter, &GA));
      PetscCall(Graph(H, combo[c].sym, combo[c].scale, combo[c].filter, &GH));
      PetscCall(MatConvert(GH, MATAIJ, MAT_INITIAL_MATRIX, &C));
      PetscCall(MatEqual(GA, C, &same));
      CHECK(same, "graph of case %d, combination %d differs from aij's (%d rank(s), %" PetscInt_FMT " threads)", (int)kind, (int)c, (int)size, T);
      PetscCall(MatDestroy(&C));
      PetscCall(PetscObjectTypeCompare((PetscObject)GH, MATSEQAIJHYBRID, &ours));
      CHECK(size > 1 || ours, "graph of case %d, combination %d is not aijhybrid on one rank", (int)kind, (int)c);
      PetscCall(MatIsSymmetricKnown(GA, &setA, &flgA));
      PetscCall(MatIsSymmetricKnown(GH, &setH, &flgH));
      CHECK(setA == setH && (!setA || flgA == flgH), "symmetry flag of the graph of case %d, combination %d: aij %d/%d, ours %d/%d", (int)kind, (int)c, setA, flgA, setH, flgH);
      PetscCall(MatIsStructurallySymmetricKnown(GA, &setA, &flgA));
      PetscCall(MatIsStructurallySymmetricKnown(GH, &setH, &flgH));
      CHECK(setA == setH && (!setA || flgA == flgH), "structural symmetry flag of the graph of case %d, combination %d: aij %d/%d, ours %d/%d", (int)kind, (int)c, setA, flgA, setH, flgH);
      PetscCall(PetscObjectQuery((PetscObject)GH, "MatTransposeParent", &tp));
      CHECK(!tp, "the graph of case %d, combination %d carries a transpose's reuse note", (int)kind, (int)c);
      ncase++;
      PetscCall(MatDestroy(&GA));
      PetscCall(MatDestroy(&GH));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&H));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "create_graph (%d rank(s), %" PetscInt_FMT " threads, %" PetscInt_FMT " cases): %d checks passed, %d failed\n", (int)size, T, ncase, npass, nfail));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
