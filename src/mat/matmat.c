/*
   Matrix products (MatMatMult, MatPtAP, ...) of aijhybrid matrices with other types.
*/
#include "aijhybridimpl.h"

/* the AIJ type an operand's implementation comes from: seqaij/mpiaij for ours, its own type otherwise */
static PetscErrorCode ProductBaseType(Mat M, const char **base)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSEQAIJHYBRID, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATMPIAIJHYBRID, &mpi));
  *base = seq ? MATSEQAIJ : (mpi ? MATMPIAIJ : ((PetscObject)M)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatProductSetFromOptions_AIJHybrid_Anytype - composed as "MatProductSetFromOptions_anytype_C":
  MatProductSetFromOptions() queries it when no implementation is registered for our type name
  with the other operands' types (e.g. MatPtAP of an aijhybrid A with a MAIJ prolongator). The
  storage is AIJ's, so the implementation registered for seqaij/mpiaij in our place is used.
*/
PetscErrorCode MatProductSetFromOptions_AIJHybrid_Anytype(Mat mat)
{
  Mat_Product *product = mat->product;
  Mat          ops[3];
  PetscInt     nops = product->type == MATPRODUCT_ABC ? 3 : 2;
  char         name[256];
  PetscErrorCode (*f)(Mat) = NULL;

  PetscFunctionBegin;
  { /* our algorithm's name means nothing to AIJ's implementations: their default */
    PetscBool ours;

    PetscCall(PetscStrcmp(product->alg, MATPRODUCTALGORITHMAIJHYBRID, &ours));
    if (ours) PetscCall(MatProductSetAlgorithm(mat, MATPRODUCTALGORITHMDEFAULT));
  }
  ops[0] = product->A;
  ops[1] = product->B;
  ops[2] = product->C;
  PetscCall(PetscStrncpy(name, "MatProductSetFromOptions", sizeof(name)));
  for (PetscInt k = 0; k < nops; k++) {
    const char *base = NULL;

    PetscCall(ProductBaseType(ops[k], &base));
    PetscCall(PetscStrlcat(name, "_", sizeof(name)));
    PetscCall(PetscStrlcat(name, base, sizeof(name)));
  }
  PetscCall(PetscStrlcat(name, "_C", sizeof(name)));
  for (PetscInt k = 0; k < nops && !f; k++) PetscCall(PetscObjectQueryFunction((PetscObject)ops[k], name, &f));
  PetscCall(PetscInfo(mat, "aijhybrid: querying %s as the AIJ implementation? %s\n", name, f ? "found" : "not found"));
  if (f) PetscCall((*f)(mat));
  PetscFunctionReturn(PETSC_SUCCESS);
}
