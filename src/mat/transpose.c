/*
   MatTranspose(A, MAT_INITIAL_MATRIX, &B) of a seqaijhybrid matrix on its threads. PCGAMG makes its
   strength graph symmetric with a transpose at every setup; AIJ's is one thread over every nonzero.

   The plan of the products' transposes (AIJHybridTransposeSymbolic(), src/mat/productplan.c): each
   thread counts the columns of its rows, then writes its share of every row of A^T after the shares
   of the threads before it. Row c of B lists column c of A in increasing row order, the order
   MatTranspose_SeqAIJ() writes, and the values are copies: B is AIJ's transpose bit for bit, for
   any number of threads. B is made through PETSc's public interface (preallocation, column
   indices, the value array) as a matrix of A's type; the caller gives it A's settings.
*/
#include "matproduct.h"

PetscErrorCode MatAIJHybridTransposeSeq(Mat A, Mat *B)
{
  AIJHybridTransposePlan tp;
  AIJHybridCSR           va;
  const PetscInt        *ai, *aj;
  PetscScalar           *aa, *ba;
  PetscInt               T, m = A->rmap->n, n = A->cmap->n, nz, *nnz;
  Mat                    C;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&tp, sizeof(tp)));
  PetscCall(PetscMemzero(&va, sizeof(va)));
  PetscCall(MatAIJHybridProductNumThreads(A, &T));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, NULL));
  nz   = m ? ai[m] : 0;
  va.i = ai;
  va.j = aj;
  PetscCall(AIJHybridTransposeSymbolic(&tp, &va, m, n, nz, nz, T, PETSC_FALSE));
  PetscCall(MatCreate(PETSC_COMM_SELF, &C));
  PetscCall(MatSetSizes(C, n, m, n, m));
  PetscCall(MatSetBlockSizes(C, PetscAbs(A->cmap->bs), PetscAbs(A->rmap->bs)));
  PetscCall(MatSetType(C, ((PetscObject)A)->type_name));
  PetscCall(PetscMalloc1(n + 1, &nnz));
  for (PetscInt c = 0; c < n; c++) nnz[c] = tp.ti[c + 1] - tp.ti[c];
  PetscCall(MatSeqAIJSetPreallocation(C, 0, nnz));
  PetscCall(PetscFree(nnz));
  PetscCall(MatSeqAIJSetColumnIndices(C, tp.tj));
  PetscCall(MatSeqAIJGetArrayWrite(C, &ba));
  PetscCall(AIJHybridTransposeRun(&tp, aa, NULL, ba));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &ba));
  PetscCall(AIJHybridTransposeDestroy(&tp));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  *B = C;
  PetscFunctionReturn(PETSC_SUCCESS);
}
