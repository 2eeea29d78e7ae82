/*
   MatAIJHybridReplaceKeepingHeader - the in-place operations' last step (MatTranspose with
   MAT_INPLACE_MATRIX, MatAXPY of a new pattern): the result put into the operand's header
*/
#include "aijhybridimpl.h"

/* A's data replaced by C's (destroyed), as AIJ's in-place operations do with MatHeaderMerge(), which
   PETSc 3.18 does not export: MatHeaderReplace() with what MatHeaderMerge() keeps of A moved to C
   first (its name, options prefix, composed objects and product data) */
PetscErrorCode MatAIJHybridReplaceKeepingHeader(Mat A, Mat *C)
{
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)A, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*C, prefix));
  if (((PetscObject)A)->name) PetscCall(PetscObjectSetName((PetscObject)*C, ((PetscObject)A)->name));
  PetscCall(PetscObjectListDestroy(&((PetscObject)*C)->olist));
  PetscCall(PetscObjectListDuplicate(((PetscObject)A)->olist, &((PetscObject)*C)->olist));
  (*C)->product = A->product;
  A->product    = NULL;
  PetscCall(MatHeaderReplace(A, C));
  PetscFunctionReturn(PETSC_SUCCESS);
}
