/*
   The type layer shared by seqaijhybrid and mpiaijhybrid: turning an AIJ matrix into an aijhybrid
   one and back (install/strip), and the operations that only chain to AIJ and add the plugin's
   part (assembly end, duplicate, options, view, destroy, conversion to other types). What differs
   between the two types is in their AIJHybridTypeInfo: the products and the cache setup.
*/
#include "../aijhybrid.h"

/* AIJ's operations, as MatSetType(A, MATSEQAIJ/MATMPIAIJ) creates them, kept once per type */
static struct _MatOps AIJHybridBaseOps[2];
static PetscBool      AIJHybridBaseOpsSet[2];

PetscErrorCode MatAIJHybridSnapshotBaseOps(Mat A, PetscBool mpi)
{
  PetscFunctionBegin;
  if (!AIJHybridBaseOpsSet[mpi]) {
    AIJHybridBaseOps[mpi]    = *A->ops;
    AIJHybridBaseOpsSet[mpi] = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridGetContext - the context of an aijhybrid matrix; every operation of ours gets it here.
  A matrix that has our operations and type name but lost its context gets a new one: that happens
  when PETSc merges a plain AIJ matrix into it (MatHeaderMerge() keeps A's operations and type name
  and takes the other's data: in-place MatLUFactor()/MatCholeskyFactor(), ...). The operations we
  chain to are then AIJ's as created for the type.
*/
PetscErrorCode MatAIJHybridGetContext(Mat A, Mat_AIJHybrid **ctxout)
{
  Mat_AIJHybrid *ctx;
  PetscBool      mpi;

  PetscFunctionBegin;
  *ctxout = (Mat_AIJHybrid *)A->spptr;
  if (*ctxout) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJHYBRID, &mpi));
  PetscCheck(AIJHybridBaseOpsSet[mpi], PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: no AIJ operations recorded for %s", ((PetscObject)A)->type_name);
  PetscCall(PetscInfo(A, "aijhybrid: restoring the context of a matrix whose data was replaced\n"));
  PetscCall(MatAIJHybridContextCreate(A, &ctx));
  ctx->parentops = AIJHybridBaseOps[mpi];
  ctx->info      = mpi ? &AIJHybridMPIInfo : &AIJHybridSeqInfo;
  A->spptr       = ctx;
  *ctxout        = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_AIJHybrid(Mat A, MatAssemblyType mode)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall((*ctx->parentops.assemblyend)(A, mode));
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall((*ctx->info->setup)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJ's duplicate creates the copy with MatSetType(type_name) (our create runs) but not our assembly end */
static PetscErrorCode MatDuplicate_AIJHybrid(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall((*ctx->parentops.duplicate)(A, op, B));
  PetscCall(MatAIJHybridContextCopyOptions(ctx, (Mat_AIJHybrid *)(*B)->spptr)); /* *B was created as our type */
  if ((*B)->assembled) PetscCall((*ctx->info->setup)(*B));
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
  The graph a coarsener (GAMG's MIS, HEM, ...) works on is made by AIJ's creategraph as a matrix of
  the same type; some coarseners recognise only the exact type name mpiaij (PETSc 3.18's HEM
  crashes otherwise), and the graph is never multiplied by the application: hand it back as AIJ.
*/
#if PETSC_VERSION_LT(3, 21, 0)
static PetscErrorCode MatCreateGraph_AIJHybrid(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, Mat *graph)
#else
static PetscErrorCode MatCreateGraph_AIJHybrid(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph)
#endif
{
  Mat_AIJHybrid *ctx;
  PetscBool      ours;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
#if PETSC_VERSION_LT(3, 21, 0)
  PetscCall((*ctx->parentops.creategraph)(A, sym, scale, filter, graph));
#else
  PetscCall((*ctx->parentops.creategraph)(A, sym, scale, filter, num_idx, index, graph));
#endif
  PetscCall(PetscObjectTypeCompareAny((PetscObject)*graph, &ours, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  if (ours) PetscCall(MatConvert_AIJHybrid_AIJ(*graph, NULL, MAT_INPLACE_MATRIX, graph));
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
  info = ctx->info;
  B->ops->mult             = ctx->parentops.mult;
  B->ops->multadd          = ctx->parentops.multadd;
  B->ops->multtranspose    = ctx->parentops.multtranspose;
  B->ops->multtransposeadd = ctx->parentops.multtransposeadd;
  B->ops->assemblyend      = ctx->parentops.assemblyend;
  B->ops->destroy          = ctx->parentops.destroy;
  B->ops->duplicate        = ctx->parentops.duplicate;
  B->ops->setfromoptions   = ctx->parentops.setfromoptions;
  B->ops->view             = ctx->parentops.view;
  B->ops->convert          = ctx->parentops.convert;
  B->ops->creategraph      = ctx->parentops.creategraph;
  B->ops->getvecs          = ctx->parentops.getvecs;
  B->ops->zerorows         = ctx->parentops.zerorows;
  B->ops->sor              = ctx->parentops.sor;
  B->ops->getdiagonalblock = ctx->parentops.getdiagonalblock;
  PetscCall(MatAIJHybridContextDestroy(&ctx));
  B->spptr = NULL;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, info->to_base, NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, info->from_base, NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", NULL));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, info->base));
  PetscCall(PetscStrcmp(B->defaultvectype, VECHYBRID, &hybrid));
  if (hybrid) PetscCall(MatSetVecType(B, VECSTANDARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatConvert_AIJHybrid_AIJ - aijhybrid to seqaij/mpiaij, every MatReuse mode; composed as
  "MatConvert_<type>_<base>_C"
*/
PetscErrorCode MatConvert_AIJHybrid_AIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B = *newmat;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  {
    Mat_AIJHybrid *ctx;

    PetscCall(MatAIJHybridGetContext(B, &ctx));
    if (ctx->info == &AIJHybridMPIInfo) PetscCall(MatAIJHybridUntagBlock(B)); /* its block's factors are AIJ's again */
  }
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
PetscErrorCode MatConvert_AIJ_AIJHybrid(Mat A, MatType type, MatReuse reuse, Mat *newmat)
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
  PetscCall(MatAIJHybridContextCreate(B, &ctx));
  ctx->info                = info;
  B->spptr                 = ctx;
  B->ops->mult             = info->mult;
  B->ops->multadd          = info->multadd;
  B->ops->multtranspose    = info->multtranspose;
  B->ops->multtransposeadd = info->multtransposeadd;
  B->ops->assemblyend      = MatAssemblyEnd_AIJHybrid;
  B->ops->destroy          = MatDestroy_AIJHybrid;
  B->ops->duplicate        = MatDuplicate_AIJHybrid;
  B->ops->setfromoptions   = MatSetFromOptions_AIJHybrid;
  B->ops->view             = MatView_AIJHybrid;
  B->ops->convert          = MatConvert_AIJHybrid_Any;
  B->ops->getvecs          = MatCreateVecs_AIJHybrid;
  B->ops->zerorows         = MatZeroRows_AIJHybrid;
  if (ctx->parentops.sor) B->ops->sor = MatSOR_AIJHybrid; /* src/mat/sor.c */
  if (mpi && ctx->parentops.getdiagonalblock) B->ops->getdiagonalblock = MatGetDiagonalBlock_AIJHybrid; /* tags the block for its factors (src/mat/block.c) */
  if (ctx->parentops.creategraph) B->ops->creategraph = MatCreateGraph_AIJHybrid;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, info->to_base, MatConvert_AIJHybrid_AIJ));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, info->from_base, MatConvert_AIJ_AIJHybrid));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_AIJHybrid_Anytype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, info->type));
  PetscCall(PetscStrcmp(B->defaultvectype, VECSTANDARD, &standard));
  if (standard) PetscCall(MatSetVecType(B, VECHYBRID)); /* MatCreateVecs(): threaded vectors (unless the application chose a type) */
  if (B->assembled) PetscCall((*info->setup)(B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
