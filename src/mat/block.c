/*
   The diagonal block of an mpiaijhybrid matrix as MatGetDiagonalBlock() returns it (PCBJACOBI
   factors it on each rank): a seqaijhybrid matrix with the parent's settings, so that its
   factorizations and solves are the package's (src/factor/), made with MatCreateSeqAIJWithArrays()
   on the CSR arrays of MPIAIJ's own diagonal block: no copy of the values, which it shares.

   MPIAIJ keeps its block (MatMPIAIJGetSeqAIJ()) as a plain seqaij matrix, which its own operations
   and assembly use, and recreates it (or its arrays) on every preallocation; so the view is made
   again when the block, its nonzero state or its arrays are not the ones it was made on. When only
   the values changed (the block's object state), the view is assembled again: that increases its
   object state, so that a PCSetUp() of its factor refactors (PETSc decides that from the state of
   the matrix factored), and drops what SeqAIJ computed from the old values (the inverted diagonal
   of MatSOR()). Both happen when the block is asked for and at the parent's final assembly.
*/
#include "aijhybridimpl.h"
#include "block.h"

#define AIJHYBRID_BLOCK_OF "MatAIJHybridBlockOf"

/* MatGetInfo() of the view: that of MPIAIJ's block it shares the arrays of (a matrix made on given
   arrays reports no allocated nonzeros and its own assemblies) */
static PetscErrorCode MatGetInfo_AIJHybridBlock(Mat view, MatInfoType flag, MatInfo *info)
{
  Mat            Ad = NULL;
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)view, AIJHYBRID_BLOCK_OF, (PetscObject *)&Ad));
  if (Ad) PetscCall(MatGetInfo(Ad, flag, info));
  else {
    PetscCall(MatAIJHybridGetContext(view, &ctx));
    PetscCall((*ctx->parentops.getinfo)(view, flag, info));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the view is still one of Ad's current arrays: same block, pattern, arrays, and the view was not
   turned into something else (an in-place factorization merges the factor into it) */
static PetscErrorCode BlockViewCurrent(AIJHybridBlockView *b, Mat Ad, PetscObjectState nzstate, const PetscInt *i, const PetscInt *j, const PetscScalar *a, PetscBool *current)
{
  const PetscInt *vi, *vj;
  PetscScalar    *va;
  PetscBool       hybrid;

  PetscFunctionBegin;
  *current = PETSC_FALSE;
  if (!b->view || b->Ad != Ad || b->nzstate != nzstate || b->i != i || b->j != j || b->a != a) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)b->view, MATSEQAIJHYBRID, &hybrid));
  if (!hybrid || b->view->factortype != MAT_FACTOR_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJGetCSRAndMemType(b->view, &vi, &vj, &va, NULL));
  *current = (PetscBool)(vi == i && vj == j && va == a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridBlockGet - the diagonal block of the mpiaijhybrid matrix A as a seqaijhybrid matrix
  sharing the arrays of MPIAIJ's block, current for A's values and settings; *view (may be NULL)
  is borrowed, as MatGetDiagonalBlock()'s result is. create: make it if there is none (otherwise an
  existing one is only brought up to date, or dropped if it no longer matches the block).
*/
PetscErrorCode MatAIJHybridBlockGet(Mat A, Mat_AIJHybrid *ctx, PetscBool create, Mat *view)
{
  AIJHybridBlockView *b = &ctx->block;
  Mat                 Ad;
  const PetscInt     *i, *j;
  PetscScalar        *a;
  PetscObjectState    nzstate, state;
  PetscBool           current;
  Mat_AIJHybrid      *vctx;

  PetscFunctionBegin;
  if (view) *view = NULL;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &i, &j, &a, NULL));
  PetscCall(MatGetNonzeroState(Ad, &nzstate));
  PetscCall(PetscObjectStateGet((PetscObject)Ad, &state));
  PetscCall(BlockViewCurrent(b, Ad, nzstate, i, j, a, &current));
  if (!current) PetscCall(MatDestroy(&b->view)); /* whoever still holds it keeps it alive; it is not ours to refresh */
  if (!b->view && !create) PetscFunctionReturn(PETSC_SUCCESS);
  if (!b->view) {
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, Ad->rmap->n, Ad->cmap->n, (PetscInt *)i, (PetscInt *)j, a, &b->view));
    PetscCall(MatSetBlockSizesFromMats(b->view, Ad, Ad));
    PetscCall(PetscObjectCompose((PetscObject)b->view, AIJHYBRID_BLOCK_OF, (PetscObject)Ad)); /* its arrays live as long as the view */
    PetscCall(MatConvert(b->view, MATSEQAIJHYBRID, MAT_INPLACE_MATRIX, &b->view));
    b->view->ops->getinfo = MatGetInfo_AIJHybridBlock; /* restored by the strip (src/mat/aijhybrid.c) */
    b->Ad                 = Ad;
    b->nzstate            = nzstate;
    b->i                  = i;
    b->j                  = j;
    b->a                  = a;
  } else if (b->state != state) { /* new values: a new object state, SeqAIJ's value caches dropped */
    PetscCall(MatAssemblyBegin(b->view, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(b->view, MAT_FINAL_ASSEMBLY));
  }
  b->state = state;
  PetscCall(MatAIJHybridGetContext(b->view, &vctx));
  MatAIJHybridContextCopySettings(&ctx->set, vctx);
  PetscCall(MatPropagateSymmetryOptions(Ad, b->view));
  if (view) *view = b->view;
  PetscFunctionReturn(PETSC_SUCCESS);
}
