/*
   The sparse matrix products of aijhybrid matrices through PETSc's MatProduct interface (MatMatMult,
   MatTransposeMatMult, MatMatTransposeMult, MatPtAP, MatRARt and MatProductCreate/SetType/
   SetFromOptions/Symbolic/Numeric): the choice between the plugin's threaded algorithm and PETSc's,
   and the products of seqaijhybrid matrices (mpiaijhybrid: matproductmpi.c).

   Choice (MatProductSetFromOptions_AIJHybrid, the productsetfromoptions operation of both types):
   the algorithm "aijhybrid" (MATPRODUCTALGORITHMAIJHYBRID) is the default when A and B are both
   seqaijhybrid or both mpiaijhybrid and the product is AB, AtB, ABt, PtAP or RARt. Any other
   algorithm asked for by MatProductSetAlgorithm() or by the option PETSc reads for the product
   (-mat_product_algorithm, or -matmatmult_via, -mattransposematmult_via, -matmattransmult_via,
   -matptap_via, -matrart_via under MatMatMult() & co.) selects PETSc's own implementation, as do
   ABC products, structure-only products and mixed operand types (aijhybrid with aij, MAIJ, dense,
   ...: matmat.c).

   Algorithm: every product is made of row-wise products (Gustavson) and transposes, each threaded
   over rows with each row of the result computed by one thread (src/mat/productplan.c):
     AB    C = A B
     AtB   C = (A^T) B           A^T explicit, by the threads
     ABt   C = A (B^T)
     PtAP  C = (P^T) (A P)       A P kept as raw arrays between the phases
     RARt  C = R (A (R^T))
   These are the orders of PETSc's SeqAIJ products ("sorted" AB, "at*b", the default ABt, the
   "scalable" PtAP, "r*a*rt"): each entry of C is summed in the same order, so the values equal
   PETSc's bit for bit. The symbolic phase makes the plans (row partitions balanced by flops, the
   patterns in one pass) and C (preallocated from the counts, its column indices set at once);
   under MatMatMult(), MatPtAP() & co. (product->api_user: the values are ready) it computes the
   values in the same pass, and the numeric phase that follows at once finds them current (the
   operands' and C's states unchanged) and does nothing; any other numeric phase refreshes the
   transposes' values and writes C's values in place. The result is of A's type and takes A's
   settings at its first assembly (aijhybrid.c), so products of products (PCGAMG and PCMG coarse
   levels) stay threaded. Steps with fewer than AIJHYBRID_PRODUCT_SERIAL_FLOPS multiplications run
   on one thread.
*/
#include "matproduct.h"

/* the option PETSc reads for the algorithm of a product made by MatMatMult() & co. (api_user) */
static const char *ProductViaOption(MatProductType type)
{
  switch (type) {
  case MATPRODUCT_AB:
    return "-matmatmult_via";
  case MATPRODUCT_AtB:
    return "-mattransposematmult_via";
  case MATPRODUCT_ABt:
    return "-matmattransmult_via";
  case MATPRODUCT_PtAP:
    return "-matptap_via";
  case MATPRODUCT_RARt:
    return "-matrart_via";
  default:
    return "-mat_product_algorithm";
  }
}

/* ours: the product C of two operands of the same aijhybrid type runs the plugin's algorithm:
   neither MatProductSetAlgorithm() nor the option PETSc reads asks for another one */
static PetscErrorCode ProductChooseAlgorithm(Mat C, PetscBool *ours)
{
  Mat_Product *product = C->product;
  const char  *name    = product->api_user ? ProductViaOption(product->type) : "-mat_product_algorithm";
  char         alg[256];
  PetscBool    set, isdefault, isours;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(product->alg, MATPRODUCTALGORITHMDEFAULT, &isdefault));
  PetscCall(PetscStrcmp(product->alg, MATPRODUCTALGORITHMAIJHYBRID, &isours));
  *ours = (PetscBool)(isdefault || isours);
  if (!*ours) PetscFunctionReturn(PETSC_SUCCESS); /* MatProductSetAlgorithm() chose one of PETSc's */
  PetscCall(PetscStrncpy(alg, MATPRODUCTALGORITHMAIJHYBRID, sizeof(alg)));
  PetscOptionsBegin(PetscObjectComm((PetscObject)C), ((PetscObject)C)->prefix, "MatProduct of aijhybrid matrices", "Mat");
  PetscCall(PetscOptionsString(name, "Algorithm: aijhybrid (threaded, the default for aijhybrid operands) or one of PETSc's for AIJ", "MatProductSetAlgorithm", MATPRODUCTALGORITHMAIJHYBRID, alg, sizeof(alg), &set));
  PetscOptionsEnd();
  if (set) {
    PetscCall(PetscStrcmp(alg, MATPRODUCTALGORITHMDEFAULT, &isdefault));
    PetscCall(PetscStrcmp(alg, MATPRODUCTALGORITHMAIJHYBRID, &isours));
    *ours = (PetscBool)(isdefault || isours);
  }
  if (*ours) PetscCall(MatProductSetAlgorithm(C, MATPRODUCTALGORITHMAIJHYBRID));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the threads a product whose first operand is A runs on: A's, as its products do */
PetscErrorCode MatAIJHybridProductNumThreads(Mat A, PetscInt *T)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  MatAIJHybridContextCurrentParams(ctx, &params);
  *T = params.nthreads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block sizes of the result, as PETSc's products set them */
PetscErrorCode MatAIJHybridProductBlockSizes(Mat C)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, B = product->B;

  PetscFunctionBegin;
  switch (product->type) {
  case MATPRODUCT_AB:
    PetscCall(MatSetBlockSizesFromMats(C, A, B));
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatSetBlockSizes(C, PetscAbs(A->cmap->bs), PetscAbs(B->cmap->bs)));
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatSetBlockSizes(C, PetscAbs(A->rmap->bs), PetscAbs(B->rmap->bs)));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatSetBlockSizes(C, PetscAbs(B->cmap->bs), PetscAbs(B->cmap->bs)));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatSetBlockSizes(C, PetscAbs(B->rmap->bs), PetscAbs(B->rmap->bs)));
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operands and the result as the symbolic phase left them, when it computed the values too */
PetscErrorCode MatAIJHybridProductFreshSet(Mat C, AIJHybridProductFresh *f)
{
  PetscFunctionBegin;
  f->A = C->product->A;
  f->B = C->product->B;
  PetscCall(PetscObjectStateGet((PetscObject)f->A, &f->state[0]));
  PetscCall(PetscObjectStateGet((PetscObject)f->B, &f->state[1]));
  PetscCall(PetscObjectStateGet((PetscObject)C, &f->state[2]));
  f->valid = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fresh: the values the symbolic phase computed are still C's (same operands, none changed, C
   unchanged: the numeric phase right after MatPtAP()'s symbolic one); the next call says no */
PetscErrorCode MatAIJHybridProductFreshCheck(Mat C, AIJHybridProductFresh *f, PetscBool *fresh)
{
  PetscObjectState s[3];

  PetscFunctionBegin;
  *fresh = PETSC_FALSE;
  if (!f->valid) PetscFunctionReturn(PETSC_SUCCESS);
  f->valid = PETSC_FALSE;
  if (f->A != C->product->A || f->B != C->product->B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectStateGet((PetscObject)f->A, &s[0]));
  PetscCall(PetscObjectStateGet((PetscObject)f->B, &s[1]));
  PetscCall(PetscObjectStateGet((PetscObject)C, &s[2]));
  *fresh = (PetscBool)(s[0] == f->state[0] && s[1] == f->state[1] && s[2] == f->state[2]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* seqaijhybrid */

/* the steps of one product (see the header): a transpose, a first product and its values, the last product */
typedef struct {
  AIJHybridTransposePlan tr;    /* AtB: A^T; ABt: B^T; PtAP: P^T; RARt: R^T */
  AIJHybridSpGEMM        first; /* PtAP: A P; RARt: A R^T */
  PetscScalar           *xa;    /* the values of the first product */
  AIJHybridSpGEMM        last;  /* C; its pattern is C's own once C is made */
  AIJHybridProductWork   work;
  PetscInt               nzA, nzB; /* the operands' entries at the symbolic phase */
  AIJHybridProductFresh  fresh;    /* the symbolic phase computed the values too */
} ProductSeq;

static PetscErrorCode ProductSeqDestroy(AIJHybridCtxDestroyArg arg)
{
  ProductSeq *d = (ProductSeq *)AIJHybridContainerContext(arg);

  PetscFunctionBegin;
  PetscCall(AIJHybridTransposeDestroy(&d->tr));
  PetscCall(AIJHybridSpGEMMDestroy(&d->first));
  PetscCall(AIJHybridSpGEMMDestroy(&d->last));
  PetscCall(PetscFree(d->xa));
  PetscCall(AIJHybridProductWorkDestroy(&d->work));
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CSR of a seqaij matrix, and its entries */
static PetscErrorCode SeqView(Mat M, AIJHybridCSR *v, PetscInt *nz)
{
  const PetscInt *i, *j;
  PetscScalar    *a;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(M, &i, &j, &a, NULL));
  PetscCall(PetscMemzero(v, sizeof(*v)));
  v->i = i;
  v->j = j;
  v->a = a;
  *nz  = M->rmap->n ? i[M->rmap->n] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void PlanView(const AIJHybridSpGEMM *p, const PetscScalar *a, AIJHybridCSR *v)
{
  PetscMemzero(v, sizeof(*v));
  v->i = p->ci;
  v->j = p->cj;
  v->a = a;
}

static void TransposeView(const AIJHybridTransposePlan *t, AIJHybridCSR *v)
{
  PetscMemzero(v, sizeof(*v));
  v->i = t->ti;
  v->j = t->tj;
  v->a = t->tv;
}

/* the operands of the last product of C (and of the first, if any) */
static PetscErrorCode ProductSeqOperands(Mat C, ProductSeq *d, AIJHybridCSR *a, AIJHybridCSR *b, AIJHybridCSR *fa, AIJHybridCSR *fb)
{
  Mat_Product *product = C->product;
  AIJHybridCSR va, vb, vt;
  PetscInt     nzA = 0, nzB = 0;

  PetscFunctionBegin;
  PetscCall(SeqView(product->A, &va, &nzA));
  PetscCall(SeqView(product->B, &vb, &nzB));
  d->nzA = nzA;
  d->nzB = nzB;
  TransposeView(&d->tr, &vt);
  switch (product->type) {
  case MATPRODUCT_AB:
    *a = va;
    *b = vb;
    break;
  case MATPRODUCT_AtB:
    *a = vt;
    *b = vb;
    break;
  case MATPRODUCT_ABt:
    *a = va;
    *b = vt;
    break;
  case MATPRODUCT_PtAP:
    *fa = va;
    *fb = vb;
    *a  = vt;
    PlanView(&d->first, d->xa, b);
    break;
  case MATPRODUCT_RARt:
    *fa = va;
    *fb = vt;
    *a  = vb;
    PlanView(&d->first, d->xa, b);
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "Product type %s is not an aijhybrid product", MatProductTypes[product->type]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_SeqAIJHybrid(Mat C)
{
  Mat_Product    *product = C->product;
  ProductSeq     *d       = (ProductSeq *)product->data;
  Mat             A = product->A, B = product->B, T = NULL;
  AIJHybridCSR    a, b, fa, fb, vT = {NULL, NULL, NULL, NULL, NULL, NULL, 0};
  AIJHybridCSROut out;
  const PetscInt *ci, *cj;
  PetscScalar    *ca;
  PetscInt        nzA = d->nzA, nzB = d->nzB, nzT = 0;
  PetscBool       fresh;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridProductFreshCheck(C, &d->fresh, &fresh));
  if (fresh) PetscFunctionReturn(PETSC_SUCCESS); /* MatPtAP() & co.: the symbolic phase's values are current */
  PetscCall(ProductSeqOperands(C, d, &a, &b, &fa, &fb));
  PetscCheck(d->nzA == nzA && d->nzB == nzB, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "The nonzero pattern of an operand of this %s product changed since its symbolic phase (%" PetscInt_FMT " and %" PetscInt_FMT " entries, now %" PetscInt_FMT " and %" PetscInt_FMT ")", MatProductTypes[product->type], nzA, nzB, d->nzA,
             d->nzB);
  /* the transposed operand's new values */
  if (product->type == MATPRODUCT_AtB) T = A;
  if (product->type == MATPRODUCT_ABt || product->type == MATPRODUCT_PtAP || product->type == MATPRODUCT_RARt) T = B;
  if (T) {
    PetscCall(SeqView(T, &vT, &nzT));
    PetscCall(AIJHybridTransposeRun(&d->tr, vT.a, NULL, NULL));
  }
  if (product->type == MATPRODUCT_PtAP || product->type == MATPRODUCT_RARt) {
    AIJHybridCSROut xout = {d->first.ci, d->first.cj, d->first.ncols, d->xa, NULL, d->first.ci, NULL};

    PetscCall(AIJHybridSpGEMMRun(&d->first, &fa, &fb, &xout, &d->work));
  }
  PetscCall(MatSeqAIJGetCSRAndMemType(C, &ci, &cj, NULL, NULL));
  PetscCheck((C->rmap->n ? ci[C->rmap->n] : 0) == d->last.nz, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The nonzero pattern of the product changed since its symbolic phase");
  PetscCall(MatSeqAIJGetArrayWrite(C, &ca));
  out.i     = ci;
  out.j     = cj;
  out.split = d->last.ncols;
  out.a0    = ca;
  out.i0    = ci;
  out.a1    = NULL;
  out.i1    = NULL;
  PetscCall(AIJHybridSpGEMMRun(&d->last, &a, &b, &out, &d->work));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &ca));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C (sizes set) becomes a matrix of type `type` with the pattern of plan p (which the symbolic
   phase left part by part: gathered here) and its values (or zeros), assembled */
PetscErrorCode MatAIJHybridProductCreateSeq(Mat C, MatType type, AIJHybridSpGEMM *p)
{
  PetscInt    *nnz, *cj;
  PetscScalar *ca;

  PetscFunctionBegin;
  PetscCall(MatSetType(C, type));
  PetscCall(PetscMalloc1(p->m + 1, &nnz));
  for (PetscInt r = 0; r < p->m; r++) nnz[r] = p->ci[r + 1] - p->ci[r];
  PetscCall(MatSeqAIJSetPreallocation(C, 0, nnz));
  PetscCall(PetscFree(nnz));
  PetscCall(PetscMalloc1(p->nz + 1, &cj));
  PetscCall(MatSeqAIJGetArrayWrite(C, &ca));
  if (!p->pvals) PetscCall(PetscArrayzero(ca, p->nz));
  PetscCall(AIJHybridSpGEMMGather(p, cj, p->pvals ? ca : NULL));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &ca));
  PetscCall(MatSeqAIJSetColumnIndices(C, cj));
  PetscCall(PetscFree(cj));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_SeqAIJHybrid(Mat C)
{
  Mat_Product   *product = C->product;
  Mat            A = product->A, B = product->B;
  ProductSeq    *d;
  AIJHybridCSR   va, vb, a, b, fa, fb;
  PetscInt       T = 1, nzA = 0, nzB = 0, m = 0, n = 0;
  MatProductType type   = product->type;
  PetscBool      values = product->api_user; /* MatPtAP() & co.: the values are ready, made with the pattern */

  PetscFunctionBegin;
  PetscCall(MatAIJHybridProductNumThreads(A, &T));
  PetscCall(PetscNew(&d));
  product->data    = d;
  product->destroy = ProductSeqDestroy;
  PetscCall(SeqView(A, &va, &nzA));
  PetscCall(SeqView(B, &vb, &nzB));
  switch (type) { /* the transpose, the size of C */
  case MATPRODUCT_AB:
    m = A->rmap->n;
    n = B->cmap->n;
    break;
  case MATPRODUCT_AtB:
    PetscCall(AIJHybridTransposeSymbolic(&d->tr, &va, A->rmap->n, A->cmap->n, nzA, nzA, T, PETSC_TRUE));
    if (values) PetscCall(AIJHybridTransposeRun(&d->tr, va.a, NULL, NULL));
    m = A->cmap->n;
    n = B->cmap->n;
    break;
  case MATPRODUCT_ABt:
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
    PetscCall(AIJHybridTransposeSymbolic(&d->tr, &vb, B->rmap->n, B->cmap->n, nzB, nzB, T, PETSC_TRUE));
    if (values) PetscCall(AIJHybridTransposeRun(&d->tr, vb.a, NULL, NULL));
    m = type == MATPRODUCT_ABt ? A->rmap->n : (type == MATPRODUCT_PtAP ? B->cmap->n : B->rmap->n);
    n = type == MATPRODUCT_ABt ? B->rmap->n : m;
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "Product type %s is not an aijhybrid product", MatProductTypes[type]);
  }
  if (type == MATPRODUCT_PtAP || type == MATPRODUCT_RARt) { /* the first product: A P or A R^T */
    PetscCall(ProductSeqOperands(C, d, &a, &b, &fa, &fb));
    PetscCall(AIJHybridSpGEMMSymbolic(&d->first, A->rmap->n, &fa, &fb, type == MATPRODUCT_PtAP ? B->cmap->n : B->rmap->n, T, values, &d->work));
    PetscCall(PetscMalloc1(d->first.nz + 1, &d->first.cj));
    PetscCall(PetscMalloc1(d->first.nz + 1, &d->xa));
    PetscCall(AIJHybridSpGEMMGather(&d->first, d->first.cj, values ? d->xa : NULL));
  }
  PetscCall(ProductSeqOperands(C, d, &a, &b, &fa, &fb));
  PetscCall(AIJHybridSpGEMMSymbolic(&d->last, m, &a, &b, n, T, values, &d->work));
  PetscCall(MatSetSizes(C, m, n, m, n));
  PetscCall(MatAIJHybridProductBlockSizes(C));
  PetscCall(MatAIJHybridProductCreateSeq(C, ((PetscObject)A)->type_name, &d->last)); /* C holds the pattern now */
  if (values) PetscCall(MatAIJHybridProductFreshSet(C, &d->fresh));
  PetscCall(PetscInfo(C, "aijhybrid: %s of %" PetscInt_FMT "x%" PetscInt_FMT " with %" PetscInt_FMT " entries on %" PetscInt_FMT " thread(s), %g multiplications (+ %g for the first product), %s\n", MatProductTypes[type], m, n, d->last.nz, d->last.T,
                      (double)d->last.flops, (double)d->first.flops, values ? "values made with the pattern" : "values at the numeric phase"));
  C->ops->productnumeric = MatProductNumeric_SeqAIJHybrid;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */

/* MAT_FORCE_DIAGONAL_ENTRIES set on C: PETSc's AB and AtB (all their algorithms) then allocate the
   missing diagonal entries of C, which the plugin's patterns do not: such products are PETSc's */
static PetscBool ProductForcesDiagonal(Mat C)
{
  return (PetscBool)(C->force_diagonals && (C->product->type == MATPRODUCT_AB || C->product->type == MATPRODUCT_AtB));
}

static PetscErrorCode MatProductSymbolic_AIJHybrid(Mat C)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCheck(!ProductForcesDiagonal(C), PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "MAT_FORCE_DIAGONAL_ENTRIES set after MatProductSetFromOptions(): set it before, or choose one of PETSc's algorithms, to have the diagonal entries allocated");
  PetscCall(MatAIJHybridGetContext(C->product->A, &ctx));
  if (ctx->info->mpi) PetscCall(MatProductSymbolic_MPIAIJHybrid(C));
  else PetscCall(MatProductSymbolic_SeqAIJHybrid(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatProductSetFromOptions_AIJHybrid - the productsetfromoptions operation of both types: the
  plugin's algorithm where it applies (see the header), PETSc's otherwise
*/
PetscErrorCode MatProductSetFromOptions_AIJHybrid(Mat C)
{
  Mat_Product   *product = C->product;
  Mat            A = product->A, B = product->B;
  Mat_AIJHybrid *ctx;
  PetscBool      same, ours = PETSC_FALSE, supported;

  PetscFunctionBegin;
  supported = (PetscBool)(!C->structure_only && (product->type == MATPRODUCT_AB || product->type == MATPRODUCT_AtB || product->type == MATPRODUCT_ABt || product->type == MATPRODUCT_PtAP || product->type == MATPRODUCT_RARt));
  if (ProductForcesDiagonal(C)) supported = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, ((PetscObject)A)->type_name, &same));
  if (!same) { /* a seqaijhybrid with an mpiaijhybrid operand: what PETSc does for different types */
    PetscCall(MatProductSetFromOptions_AIJHybrid_Anytype(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (supported) PetscCall(ProductChooseAlgorithm(C, &ours));
  if (ours) {
    C->ops->productsymbolic = MatProductSymbolic_AIJHybrid;
    PetscCall(PetscInfo(C, "aijhybrid: the threaded algorithm for %s of %s matrices\n", MatProductTypes[product->type], ((PetscObject)A)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(PetscInfo(C, "aijhybrid: PETSc's algorithm %s for %s\n", product->alg, MatProductTypes[product->type]));
  if (ctx->parentops.productsetfromoptions) PetscCall((*ctx->parentops.productsetfromoptions)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}
