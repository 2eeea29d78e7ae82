/*
   The aijhybrid types, top to bottom: seqaijhybrid and mpiaijhybrid are seqaij and mpiaij whose
   operations below are replaced (install) and restored (strip). The products, MatSOR,
   MatCreateVecs and MatZeroRows are in their own files (src/mat/aijhybridimpl.h); here are the
   operations that chain to AIJ and add the plugin's part (assembly end, duplicate, sub-matrices,
   transpose, options, view, destroy, conversions), the constructors and the manual pages of the
   two types. A matrix AIJ derives from one of ours takes its settings. What differs
   between the two types is their AIJHybridTypeInfo.
*/
#include "aijhybridimpl.h"
#include "block.h"
#include "factorsupport.h"

static PetscErrorCode MatConvert_AIJ_AIJHybrid(Mat, MatType, MatReuse, Mat *);
static PetscErrorCode MatAXPYGetPreallocation_AIJHybrid_KeepSettings(Mat, Mat, Mat *);
static PetscErrorCode MatConvert_AIJHybrid_AIJ(Mat, MatType, MatReuse, Mat *);
static PetscErrorCode MatAIJHybridStrip(Mat);
static PetscErrorCode MatDestroy_AIJHybrid(Mat);

/* ours: A is seqaijhybrid or mpiaijhybrid */
static PetscErrorCode MatAIJHybridIsType(Mat A, PetscBool *ours)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, ours, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B, if it is ours, takes the settings set; its caches follow if it is assembled (collective on B) */
static PetscErrorCode MatAIJHybridTakeSettings(const AIJHybridSettings *set, Mat B)
{
  Mat_AIJHybrid    *ctx;
  AIJHybridPrepared p;
  PetscBool         ours;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridIsType(B, &ours));
  if (!ours) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridGetContext(B, &ctx));
  MatAIJHybridContextCopySettings(set, ctx);
  if (B->assembled) PetscCall(MatAIJHybridPrepare(B, ctx, PETSC_TRUE, &p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridInheritSettings - B, a copy of A or a matrix AIJ's implementation derived from it (a
  sub-matrix, a transpose) and made of A's type, takes A's settings, so that what the options or
  the Set functions chose for A holds for the matrices a solver makes from it (the coarse levels of
  PCMG/PCGAMG, the sub-matrix of an active set). Nothing when either is not aijhybrid.
*/
static PetscErrorCode MatAIJHybridInheritSettings(Mat A, Mat B)
{
  Mat_AIJHybrid *ctx;
  PetscBool      ours;

  PetscFunctionBegin;
  if (!A || !B || A == B) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridIsType(A, &ours));
  if (!ours) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridTakeSettings(&ctx->set, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ's assembly, then the caches for the new pattern (collective). A product (MatMatMult(),
   MatPtAP(), ...: PETSc makes it of its first operand's type) takes the settings of its first
   aijhybrid operand at its first assembly. */
static PetscErrorCode MatAssemblyEnd_AIJHybrid(Mat A, MatAssemblyType mode)
{
  Mat_AIJHybrid    *ctx;
  AIJHybridPrepared p;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall((*ctx->parentops.assemblyend)(A, mode));
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
  if (!ctx->assembled_once && A->product) {
    Mat       operand[3] = {A->product->A, A->product->B, A->product->C};
    PetscBool ours       = PETSC_FALSE;

    for (PetscInt k = 0; k < 3 && !ours; k++) {
      Mat_AIJHybrid *octx;

      if (!operand[k] || operand[k] == A) continue;
      PetscCall(MatAIJHybridIsType(operand[k], &ours));
      if (!ours) continue;
      PetscCall(MatAIJHybridGetContext(operand[k], &octx));
      MatAIJHybridContextCopySettings(&octx->set, ctx);
    }
  }
  ctx->assembled_once = PETSC_TRUE;
  PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_TRUE, &p));
  if (ctx->block.view) PetscCall(MatAIJHybridBlockGet(A, ctx, PETSC_FALSE, NULL)); /* the diagonal block handed out follows (src/mat/block.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ's sub-matrix, of our type (MPIAIJ makes a parallel one mpiaij: converted in place; reused
   later, it stays ours), with A's settings */
static PetscErrorCode MatCreateSubMatrix_AIJHybrid(Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *B)
{
  Mat_AIJHybrid *ctx;
  PetscBool      base;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall((*ctx->parentops.createsubmatrix)(A, isrow, iscol, reuse, B));
  if (reuse != MAT_INITIAL_MATRIX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)*B, ctx->info->base, &base));
  if (base) PetscCall(MatConvert_AIJ_AIJHybrid(*B, ctx->info->type, MAT_INPLACE_MATRIX, B));
  PetscCall(MatAIJHybridInheritSettings(A, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJ's sequential sub-matrices (PCASM's blocks), seqaijhybrid with A's settings: SeqAIJ makes them
  of A's type; MPIAIJ makes them of its diagonal block's type, seqaij, and they are converted in
  place (a reuse fills them through their data and assembles them: they stay ours)
*/
static PetscErrorCode MatCreateSubMatrices_AIJHybrid(Mat A, PetscInt n, const IS isrow[], const IS iscol[], MatReuse reuse, Mat *B[])
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall((*ctx->parentops.createsubmatrices)(A, n, isrow, iscol, reuse, B));
  for (PetscInt k = 0; k < n; k++) {
    PetscBool seqaij;

    PetscCall(PetscObjectTypeCompare((PetscObject)(*B)[k], MATSEQAIJ, &seqaij));
    if (seqaij && reuse == MAT_INITIAL_MATRIX) PetscCall(MatConvert_AIJ_AIJHybrid((*B)[k], MATSEQAIJHYBRID, MAT_INPLACE_MATRIX, &(*B)[k]));
    PetscCall(MatAIJHybridInheritSettings(A, (*B)[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatDestroySubMatrices() of sub-matrices that are ours: SeqAIJ's implementation (which MPIAIJ's
  sub-matrices need, to free what a reuse keeps) destroys them through the destroy operation they
  had when AIJ made them, not their current one, so the layer of each one about to be destroyed
  is stripped first where AIJ would not call it
*/
static PetscErrorCode MatDestroySubMatrices_AIJHybrid(PetscInt n, Mat *mat[])
{
  Mat_AIJHybrid *ctx;
  PetscErrorCode (*destroysubmatrices)(PetscInt, Mat *[]);

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext((*mat)[0], &ctx));
  destroysubmatrices = ctx->parentops.destroysubmatrices;
  for (PetscInt k = 0; k < n; k++) {
    Mat       C = (*mat)[k];
    PetscBool ours;

    if (!C || ((PetscObject)C)->refct > 1) continue; /* still referenced elsewhere: destroyed later through its destroy operation */
    PetscCall(MatAIJHybridIsType(C, &ours));
    /* made of our type by AIJ (the type of MPIAIJ's diagonal block can be ours), AIJ wrapped our
       destroy and calls it; converted after AIJ made it, our destroy is outermost and not called */
    if (ours && C->ops->destroy == MatDestroy_AIJHybrid) PetscCall(MatAIJHybridStrip(C));
  }
  if (destroysubmatrices) PetscCall((*destroysubmatrices)(n, mat));
  else PetscCall(MatDestroyMatrices(n, mat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the transpose (of our type), with A's settings: a new one of seqaijhybrid on the threads
   (src/mat/transpose.c, AIJ's bits), also in place (AIJ's would make a seqaij transpose and convert
   it to our type: one more preparation of the caches), else AIJ's; in place, A's settings are put
   back */
static PetscErrorCode MatTranspose_AIJHybrid(Mat A, MatReuse reuse, Mat *B)
{
  Mat_AIJHybrid    *ctx;
  AIJHybridSettings keep;
  PetscBool         seq;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  keep = ctx->set;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJHYBRID, &seq));
  if (seq && reuse == MAT_INITIAL_MATRIX) PetscCall(MatAIJHybridTransposeSeq(A, B));
  else if (seq && reuse == MAT_INPLACE_MATRIX) {
    Mat C; /* the threads' transpose, made of our type, put into A's header */

    PetscCall(MatAIJHybridTransposeSeq(A, &C));
    PetscCall(MatAIJHybridReplaceKeepingHeader(A, &C));
  } else PetscCall((*ctx->parentops.transpose)(A, reuse, B));
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatAIJHybridInheritSettings(A, *B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatAIJHybridTakeSettings(&keep, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ's duplicate creates the copy with MatSetType(type_name) (our create runs) but not our assembly end */
static PetscErrorCode MatDuplicate_AIJHybrid(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall((*ctx->parentops.duplicate)(A, op, B));
  PetscCall(MatAIJHybridInheritSettings(A, *B)); /* *B was created as our type */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_AIJHybrid(Mat A, AIJHybridOptionItems PetscOptionsObject)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (ctx->parentops.setfromoptions) PetscCall((*ctx->parentops.setfromoptions)(A, PetscOptionsObject));
  PetscCall(MatAIJHybridSetFromOptions_Private(A, PetscOptionsObject, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_AIJHybrid(Mat A, PetscViewer viewer)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall((*ctx->parentops.view)(A, viewer));
  PetscCall(MatAIJHybridView_Private(A, viewer, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The graph a coarsener (GAMG's MIS, MISK, HEM) works on is made by AIJ's creategraph as a matrix of
  the same type. On one rank it stays ours: the coarseners read it as SeqAIJ (MIS and MISK by its
  base type; HEM reads a graph on one rank through SeqAIJ's layout), and MISK's products on it
  (P^T G P of every distance, the aggregates' P R) are then the threaded ones, with the same
  pattern, so the same aggregates. On several ranks some coarseners recognise only the exact type
  name mpiaij (PETSc 3.18's HEM crashes otherwise): hand it back as AIJ there. PCGAMG's default
  graph on one rank is made without AIJ's copy of A (GraphSymmetrized()).
*/
/*
  GraphSymmetrized - the graph of PCGAMG's default (symmetrized, neither scaled nor filtered: AIJ's
  creategraph with block size 1, A not known to be symmetric) on one rank: AIJ copies A, transposes
  the copy and adds the transpose to the copy (MatAXPY(), which for a pattern not known to be
  structurally symmetric replaces the copy by the sum: the copy is thrown away). Here the sum is
  A's transpose (the threads') plus A, without the copy: the same matrix bit for bit (each entry is
  a + t or t + a, and IEEE addition commutes; 1.0 * a is a), of our type with A's settings, its
  symmetry flags those AIJ's leaves (A's, as its copy has them, where the pattern is known to be
  structurally symmetric and the sum is made in place; else the sum's own), then MAT_SYMMETRIC.
*/
static PetscErrorCode GraphSymmetrized(Mat A, Mat *graph)
{
  PetscBool set, same;

  PetscFunctionBegin;
  PetscCall(MatIsStructurallySymmetricKnown(A, &set, &same));
  same = (PetscBool)(set && same);
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, graph));
  PetscCall(PetscObjectCompose((PetscObject)*graph, "MatTransposeParent", NULL)); /* MatTranspose()'s note for a reuse: the graph is not a transpose kept for one */
  if (same) PetscCall(MatPropagateSymmetryOptions(A, *graph));
  PetscCall(MatAXPY(*graph, 1.0, A, same ? SAME_NONZERO_PATTERN : DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatSetOption(*graph, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if PETSC_VERSION_LT(3, 21, 0)
static PetscErrorCode MatCreateGraph_AIJHybrid(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, Mat *graph)
#else
static PetscErrorCode MatCreateGraph_AIJHybrid(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph)
#endif
{
  Mat_AIJHybrid *ctx;
  PetscBool      ours;
  PetscMPIInt    size;
  PetscInt       bs;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetBlockSize(A, &bs));
  if (size == 1 && sym && !scale && filter < 0 && bs == 1) {
    PetscBool set, flg;

    PetscCall(MatIsSymmetricKnown(A, &set, &flg));
    if (!set || !flg) {
      PetscCall(GraphSymmetrized(A, graph));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#if PETSC_VERSION_LT(3, 21, 0)
  PetscCall((*ctx->parentops.creategraph)(A, sym, scale, filter, graph));
#else
  PetscCall((*ctx->parentops.creategraph)(A, sym, scale, filter, num_idx, index, graph));
#endif
  PetscCall(MatAIJHybridIsType(*graph, &ours));
  if (ours && size > 1) PetscCall(MatConvert_AIJHybrid_AIJ(*graph, NULL, MAT_INPLACE_MATRIX, graph));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetDiagonalBlock() of an mpiaijhybrid matrix (what PCBJACOBI factors): a seqaijhybrid matrix
   with A's settings sharing the arrays of AIJ's block (src/mat/block.c) */
static PetscErrorCode MatGetDiagonalBlock_AIJHybrid(Mat A, Mat *a)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridBlockGet(A, ctx, PETSC_TRUE, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  COO assembly of mpiaijhybrid: MPIAIJ's MatSetPreallocationCOO() makes new blocks and converts them
  to the root type of the matrix's type, which for us is aijhybrid: the blocks would become
  seqaijhybrid (with per-thread partitions of their own, never used; the parallel type works on
  their arrays). MPIAIJ's routine runs, then both blocks are converted back to seqaij in place, so
  the blocks of an mpiaijhybrid matrix are seqaij whatever assembled them. MPIAIJ's routine is read
  from a plain mpiaij matrix (the one composed on B may be ours, copied by a duplicate).
*/
typedef PetscErrorCode (*AIJHybridCOOFn)(Mat, PetscCount, PetscInt[], PetscInt[]);

static PetscErrorCode MatAIJHybridParentCOO(AIJHybridCOOFn *f)
{
  static AIJHybridCOOFn parent = NULL;

  PetscFunctionBegin;
  if (!parent) {
    Mat M;

    PetscCall(MatCreate(PETSC_COMM_SELF, &M));
    PetscCall(MatSetType(M, MATMPIAIJ));
    PetscCall(PetscObjectQueryFunction((PetscObject)M, "MatSetPreallocationCOO_C", &parent));
    PetscCall(MatDestroy(&M));
  }
  *f = parent;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetPreallocationCOO_AIJHybrid(Mat A, PetscCount n, PetscInt i[], PetscInt j[])
{
  AIJHybridCOOFn parent = NULL;
  Mat            blk[2];

  PetscFunctionBegin;
  PetscCall(MatAIJHybridParentCOO(&parent));
  PetscCheck(parent, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "aijhybrid: MPIAIJ has no COO preallocation in this PETSc");
  PetscCall((*parent)(A, n, i, j));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], NULL));
  for (PetscInt b = 0; b < 2; b++) {
    PetscBool ours;

    PetscCall(MatAIJHybridIsType(blk[b], &ours));
    if (ours) PetscCall(MatConvert(blk[b], MATSEQAIJ, MAT_INPLACE_MATRIX, &blk[b]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose ours (on) or MPIAIJ's again (off), on an mpi matrix that has COO preallocation */
static PetscErrorCode MatAIJHybridComposeCOO(Mat B, PetscBool on)
{
  AIJHybridCOOFn parent = NULL, cur = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSetPreallocationCOO_C", &cur));
  if (!cur) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridParentCOO(&parent));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", on ? MatSetPreallocationCOO_AIJHybrid : parent));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridComposeType - every function the type composes on B (the converters between info's
  type and its base, the product and AXPY hooks, the Set/Get implementations, the diagnostics), or,
  with on false, none of them: the one list the conversion, the strip and the factors share
*/
static PetscErrorCode MatAIJHybridComposeType(Mat B, const AIJHybridTypeInfo *info, PetscBool on)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, info->to_base, on ? MatConvert_AIJHybrid_AIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, info->from_base, on ? MatConvert_AIJ_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", on ? MatProductSetFromOptions_AIJHybrid_Anytype : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatAXPYGetPreallocation_C", on ? MatAXPYGetPreallocation_AIJHybrid_KeepSettings : NULL));
  PetscCall(MatAIJHybridComposeSettings(B, on));
  PetscCall(MatAIJHybridComposeDiagnostics(B, on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridForgetComposed - remove the type's composed functions (those of either type) from F,
  a matrix of another type that PETSc gave a copy of an aijhybrid matrix's function list (the
  factors of MatDuplicateNoCreate_SeqAIJ())
*/
PetscErrorCode MatAIJHybridForgetComposed(Mat F)
{
  PetscFunctionBegin;
  PetscCall(MatAIJHybridComposeType(F, &AIJHybridSeqInfo, PETSC_FALSE));
  PetscCall(MatAIJHybridComposeType(F, &AIJHybridMPIInfo, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* strip the hybrid layer from B in place: B becomes a plain seqaij/mpiaij again */
static PetscErrorCode MatAIJHybridStrip(Mat B)
{
  Mat_AIJHybrid           *ctx;
  const AIJHybridTypeInfo *info;
  PetscBool                hybrid;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(B, &ctx));
  info                       = ctx->info;
  B->ops->mult               = ctx->parentops.mult;
  B->ops->multadd            = ctx->parentops.multadd;
  B->ops->multtranspose      = ctx->parentops.multtranspose;
  B->ops->multtransposeadd   = ctx->parentops.multtransposeadd;
  B->ops->assemblyend        = ctx->parentops.assemblyend;
  B->ops->destroy            = ctx->parentops.destroy;
  B->ops->duplicate          = ctx->parentops.duplicate;
  B->ops->setfromoptions     = ctx->parentops.setfromoptions;
  B->ops->view               = ctx->parentops.view;
  B->ops->convert            = ctx->parentops.convert;
  B->ops->creategraph        = ctx->parentops.creategraph;
  B->ops->getvecs            = ctx->parentops.getvecs;
  B->ops->zerorows           = ctx->parentops.zerorows;
  B->ops->sor                = ctx->parentops.sor;
  B->ops->getdiagonalblock   = ctx->parentops.getdiagonalblock;
  B->ops->transpose          = ctx->parentops.transpose;
  B->ops->createsubmatrix    = ctx->parentops.createsubmatrix;
  B->ops->createsubmatrices  = ctx->parentops.createsubmatrices;
  B->ops->destroysubmatrices = ctx->parentops.destroysubmatrices;
  B->ops->getinfo            = ctx->parentops.getinfo; /* the diagonal block's (src/mat/block.c) */
  B->ops->axpy               = ctx->parentops.axpy;
  B->ops->scale              = ctx->parentops.scale;
  B->ops->diagonalscale      = ctx->parentops.diagonalscale;
  B->ops->getdiagonal        = ctx->parentops.getdiagonal;
  B->ops->lufactor           = ctx->parentops.lufactor;

  B->ops->productsetfromoptions = ctx->parentops.productsetfromoptions; /* src/mat/matproduct.c */
  PetscCall(MatAIJHybridContextDestroy(B));
  PetscCall(MatAIJHybridComposeType(B, info, PETSC_FALSE));
  if (info->mpi) PetscCall(MatAIJHybridComposeCOO(B, PETSC_FALSE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, info->base));
  PetscCall(PetscStrcmp(B->defaultvectype, VECHYBRID, &hybrid));
  if (hybrid) PetscCall(MatSetVecType(B, VECSTANDARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatConvert_AIJHybrid_AIJ - aijhybrid to seqaij/mpiaij, every MatReuse mode; composed as
  "MatConvert_<type>_<base>_C"
*/
static PetscErrorCode MatConvert_AIJHybrid_AIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B = *newmat;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(MatAIJHybridStrip(B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* conversion to any other type: through seqaij/mpiaij, whose converters are fast */
static PetscErrorCode MatConvert_AIJHybrid_Any(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat tmp = NULL;

  PetscFunctionBegin;
  if (reuse == MAT_INPLACE_MATRIX) {
    PetscCall(MatConvert_AIJHybrid_AIJ(A, NULL, MAT_INPLACE_MATRIX, &A));
    PetscCall(MatConvert(A, type, MAT_INPLACE_MATRIX, &A));
  } else {
    PetscCall(MatConvert_AIJHybrid_AIJ(A, NULL, MAT_INITIAL_MATRIX, &tmp));
    PetscCall(MatPropagateSymmetryOptions(A, tmp)); /* e.g. conversion to sbaij requires them */
    PetscCall(MatConvert(tmp, type, reuse, newmat));
    PetscCall(MatDestroy(&tmp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y = Y + a X (src/mat/axpy.c). With another nonzero pattern (also MatCopy() and MatAYPX() with
   DIFFERENT_NONZERO_PATTERN) the sum is made as a new matrix whose data, and with it its context, is
   put into Y (MatHeaderMerge()/MatHeaderReplace()): Y's settings are put back */
static PetscErrorCode MatAXPY_AIJHybrid_KeepSettings(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_AIJHybrid    *ctx;
  AIJHybridSettings keep;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(Y, &ctx));
  keep = ctx->set;
  PetscCall(MatAXPY_AIJHybrid(Y, a, X, str));
  if (str != SAME_NONZERO_PATTERN) PetscCall(MatAIJHybridTakeSettings(&keep, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "MatAXPYGetPreallocation_C": the sum PETSc's MatAXPY_Basic() makes for an X of another type
   (src/mat/axpy.c), with Y's settings, which it keeps when its data is put into Y */
static PetscErrorCode MatAXPYGetPreallocation_AIJHybrid_KeepSettings(Mat Y, Mat X, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatAXPYGetPreallocation_AIJHybrid(Y, X, B));
  PetscCall(MatAIJHybridInheritSettings(Y, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ's in-place LU: PETSc puts the factor's data into A (MatHeaderMerge()), which keeps A's
   operations and drops its context; A, now the factor, gets a context with its settings back */
static PetscErrorCode MatLUFactor_AIJHybrid(Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_AIJHybrid           *ctx;
  AIJHybridSettings        keep;
  struct _MatOps           parentops;
  const AIJHybridTypeInfo *type;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  keep      = ctx->set;
  parentops = ctx->parentops;
  type      = ctx->info;
  PetscCall((*parentops.lufactor)(A, row, col, info)); /* ctx freed by the merge */
  if (!A->spptr) {                                     /* (PETSc 3.18's merge also takes the factor's composed functions: ours composed again) */
    PetscCall(MatAIJHybridContextCreate(A, type, &ctx));
    ctx->parentops = parentops;
    MatAIJHybridContextCopySettings(&keep, ctx);
    PetscCall(MatAIJHybridComposeSettings(A, PETSC_TRUE));
    PetscCall(MatAIJHybridComposeDiagnostics(A, PETSC_TRUE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_AIJHybrid(Mat A)
{
  Mat_AIJHybrid *ctx;
  PetscErrorCode (*destroy)(Mat);

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  destroy = ctx->parentops.destroy;
  PetscCall(MatAIJHybridStrip(A));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatConvert_AIJ_AIJHybrid - seqaij/mpiaij to aijhybrid (new, in place, or into an existing
  aijhybrid matrix); called by the create functions and, composed as "MatConvert_<base>_<type>_C",
  by MatConvert() and MatSetType() on an assembled matrix
*/
static PetscErrorCode MatConvert_AIJ_AIJHybrid(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                      B = *newmat;
  Mat_AIJHybrid           *ctx;
  const AIJHybridTypeInfo *info;
  PetscBool                mpi, standard;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  info = mpi ? &AIJHybridMPIInfo : &AIJHybridSeqInfo;
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(MatAIJHybridContextCreate(B, info, &ctx));
  B->ops->mult             = MatMult_AIJHybrid;
  B->ops->multadd          = MatMultAdd_AIJHybrid;
  B->ops->multtranspose    = MatMultTranspose_AIJHybrid;
  B->ops->multtransposeadd = MatMultTransposeAdd_AIJHybrid;
  B->ops->assemblyend      = MatAssemblyEnd_AIJHybrid;
  B->ops->destroy          = MatDestroy_AIJHybrid;
  B->ops->duplicate        = MatDuplicate_AIJHybrid;
  B->ops->setfromoptions   = MatSetFromOptions_AIJHybrid;
  B->ops->view             = MatView_AIJHybrid;
  B->ops->convert          = MatConvert_AIJHybrid_Any;
  B->ops->getvecs          = MatCreateVecs_AIJHybrid;
  B->ops->zerorows         = MatZeroRows_AIJHybrid;
  if (ctx->parentops.createsubmatrix) B->ops->createsubmatrix = MatCreateSubMatrix_AIJHybrid;
  if (ctx->parentops.createsubmatrices) B->ops->createsubmatrices = MatCreateSubMatrices_AIJHybrid;
  if (!mpi) B->ops->destroysubmatrices = MatDestroySubMatrices_AIJHybrid;
  if (ctx->parentops.transpose) B->ops->transpose = MatTranspose_AIJHybrid;
  if (ctx->parentops.lufactor) B->ops->lufactor = MatLUFactor_AIJHybrid;
  if (ctx->parentops.sor) B->ops->sor = MatSOR_AIJHybrid;
  if (mpi && ctx->parentops.getdiagonalblock) B->ops->getdiagonalblock = MatGetDiagonalBlock_AIJHybrid;
  if (ctx->parentops.creategraph) B->ops->creategraph = MatCreateGraph_AIJHybrid;
  if (ctx->parentops.axpy) B->ops->axpy = MatAXPY_AIJHybrid_KeepSettings;
  if (ctx->parentops.scale) B->ops->scale = MatScale_AIJHybrid;
  if (ctx->parentops.diagonalscale) B->ops->diagonalscale = MatDiagonalScale_AIJHybrid;
  if (ctx->parentops.getdiagonal) B->ops->getdiagonal = MatGetDiagonal_AIJHybrid;
  if (ctx->parentops.productsetfromoptions) B->ops->productsetfromoptions = MatProductSetFromOptions_AIJHybrid; /* src/mat/matproduct.c */
  PetscCall(MatAIJHybridComposeType(B, info, PETSC_TRUE));
  if (mpi) PetscCall(MatAIJHybridComposeCOO(B, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, info->type));
  PetscCall(PetscStrcmp(B->defaultvectype, VECSTANDARD, &standard));
  if (standard) PetscCall(MatSetVecType(B, VECHYBRID)); /* MatCreateVecs(): threaded vectors (unless the application chose a type) */
  if (B->assembled) {
    AIJHybridPrepared p;
    PetscCall(MatAIJHybridPrepare(B, ctx, PETSC_TRUE, &p));
  }
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the constructor of both types: AIJ's, then our layer */
static PetscErrorCode MatCreate_AIJHybrid(Mat A, PetscBool mpi)
{
  /* layouts already set up: MatSetType() is re-typing a matrix that was set up or preallocated */
  const PetscBool wasset = (PetscBool)(A->rmap->setupcalled && A->cmap->setupcalled);

  PetscFunctionBegin;
  PetscCall(MatSetType(A, mpi ? MATMPIAIJ : MATSEQAIJ));
  PetscCall(MatConvert_AIJ_AIJHybrid(A, mpi ? MATMPIAIJHYBRID : MATSEQAIJHYBRID, MAT_INPLACE_MATRIX, &A));
  /* MatSetType() dropped that preallocation; a matrix set up before -mat_type aijhybrid (MatSetUp(),
     then MatSetFromOptions()) must stay usable as it does with -mat_type aij, where re-typing is a
     no-op: set it up again (a later MatXAIJSetPreallocation() replaces this default one) */
  if (wasset) PetscCall(MatSetUp(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSEQAIJHYBRID - "seqaijhybrid" - a `MATSEQAIJ` matrix whose `MatMult()`, `MatMultAdd()`,
   `MatMultTranspose()`, `MatMultTransposeAdd()` and `MatSOR()` run with OpenMP threads, each thread
   on a contiguous block of rows chosen once per nonzero pattern and cached with the matrix.

   The options are those of `MATAIJHYBRID`.

   Level: beginner

.seealso: `MATAIJHYBRID`, `MATMPIAIJHYBRID`, `MATSEQAIJ`, `MatCreateSeqAIJHybrid()`, `MatAIJHybridSetNumThreads()`
M*/
PetscErrorCode MatCreate_SeqAIJHybrid(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_AIJHybrid(A, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATMPIAIJHYBRID - "mpiaijhybrid" - a `MATMPIAIJ` matrix whose products run with OpenMP threads
   inside each MPI rank: the main thread does the halo exchange (in task mode while the other
   threads multiply the diagonal block), then the threads multiply the diagonal block and the
   off-diagonal block over contiguous row partitions computed once per nonzero pattern and cached
   with the matrix. All MPI calls stay on the main thread, so `MPI_THREAD_FUNNELED` suffices.

   The options are those of `MATAIJHYBRID`.

   Level: beginner

.seealso: `MATAIJHYBRID`, `MATSEQAIJHYBRID`, `MATMPIAIJ`, `MatCreateMPIAIJHybrid()`, `MatAIJHybridSetNumThreads()`
M*/
PetscErrorCode MatCreate_MPIAIJHybrid(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_AIJHybrid(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatCreateSeqAIJHybrid - Creates a sequential `MATSEQAIJHYBRID` matrix, preallocated like `MatCreateSeqAIJ()`

  Collective

  Input Parameters:
+ comm - `PETSC_COMM_SELF` (or a communicator of one rank)
. m    - number of rows
. n    - number of columns
. nz   - nonzeros per row (the same for all rows)
- nnz  - nonzeros per row, or `NULL`

  Output Parameter:
. A - the matrix

  Level: intermediate

  Note:
  The options of `MATAIJHYBRID` are read by `MatSetFromOptions()`, as for any matrix.

.seealso: `MATSEQAIJHYBRID`, `MatCreateMPIAIJHybrid()`, `MatCreateSeqAIJ()`
@*/
PetscErrorCode MatCreateSeqAIJHybrid(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetType(*A, MATSEQAIJHYBRID));
  PetscCall(MatSeqAIJSetPreallocation(*A, nz, nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatCreateMPIAIJHybrid - Creates a `MATAIJHYBRID` matrix (`MATMPIAIJHYBRID` on more than one rank), preallocated like `MatCreateAIJ()`

  Collective

  Input Parameters:
+ comm  - the communicator
. m     - local rows (or `PETSC_DECIDE`)
. n     - local columns (or `PETSC_DECIDE`)
. M     - global rows (or `PETSC_DETERMINE`)
. N     - global columns (or `PETSC_DETERMINE`)
. d_nz  - nonzeros per row of the diagonal block
. d_nnz - nonzeros per row of the diagonal block, or `NULL`
. o_nz  - nonzeros per row of the off-diagonal block
- o_nnz - nonzeros per row of the off-diagonal block, or `NULL`

  Output Parameter:
. A - the matrix

  Level: intermediate

.seealso: `MATMPIAIJHYBRID`, `MatCreateSeqAIJHybrid()`, `MatCreateAIJ()`
@*/
PetscErrorCode MatCreateMPIAIJHybrid(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[], Mat *A)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) {
    PetscCall(MatSetType(*A, MATMPIAIJHYBRID));
    PetscCall(MatMPIAIJSetPreallocation(*A, d_nz, d_nnz, o_nz, o_nnz));
  } else {
    PetscCall(MatSetType(*A, MATSEQAIJHYBRID));
    PetscCall(MatSeqAIJSetPreallocation(*A, d_nz, d_nnz));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
