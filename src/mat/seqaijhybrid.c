/*
   MATSEQAIJHYBRID: a MATSEQAIJ whose products run with OpenMP threads over a cached row partition.
*/
#include "../aijhybrid.h"

static PetscErrorCode MatConvert_SeqAIJHybrid_SeqAIJ(Mat, MatType, MatReuse, Mat *);

/* everything a product needs, valid for the current pattern and parameters */
static PetscErrorCode MatAIJHybridSeqPrepare(Mat A, Mat_AIJHybrid **ctx, const PetscInt **ai, const PetscInt **aj, PetscScalar **aa)
{
  AIJHybridPartParams params;

  PetscFunctionBegin;
  *ctx = MatAIJHybridGetContext(A);
  PetscCall(MatAIJHybridContextCurrentParams(*ctx, &params));
  PetscCall(MatAIJHybridRowPartUpdate(&(*ctx)->diag, A, A, PETSC_FALSE, &params));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, ai, aj, aa, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x, or y = z + A x when z is given (z may be y) */
static PetscErrorCode MatMultAdd_SeqAIJHybrid_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_AIJHybrid     *ctx;
  const PetscInt    *ai, *aj, *bounds;
  PetscScalar       *aa, *ya;
  const PetscScalar *xa, *za = NULL;
  PetscInt           T;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridSeqPrepare(A, &ctx, &ai, &aj, &aa));
  T      = ctx->diag.params.nthreads;
  bounds = ctx->diag.bounds;
  PetscCall(VecGetArrayRead(x, &xa));
  if (z && z != y) PetscCall(VecGetArrayRead(z, &za));
  if (z) PetscCall(VecGetArray(y, &ya));
  else PetscCall(VecGetArrayWrite(y, &ya));
  if (z == y) za = ya;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Diag, A, 0, 0, 0));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) {
      if (za) AIJHybridKernelMultAdd(bounds[t], bounds[t + 1], ai, aj, aa, xa, za, ya);
      else AIJHybridKernelMult(bounds[t], bounds[t + 1], ai, aj, aa, xa, ya);
    }
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Diag, A, 0, 0, 0));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (z && z != y) PetscCall(VecRestoreArrayRead(z, &za));
  if (z) PetscCall(VecRestoreArray(y, &ya));
  else PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(PetscLogFlops(2.0 * (A->rmap->n ? ai[A->rmap->n] : 0) - (z ? 0 : A->rmap->n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_SeqAIJHybrid(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_SeqAIJHybrid_Private(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqAIJHybrid(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_SeqAIJHybrid_Private(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A^T x, or y = z + A^T x, through the cached CSC pattern: each thread owns columns */
static PetscErrorCode MatMultTransposeAdd_SeqAIJHybrid_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_AIJHybrid      *ctx = MatAIJHybridGetContext(A);
  AIJHybridPartParams params;
  AIJHybridTranspose *t = &ctx->tdiag;
  PetscScalar        *aa, *ya;
  const PetscScalar  *xa, *za = NULL;
  PetscInt            T;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  PetscCall(MatAIJHybridTransposeUpdate(t, A, A, &params));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &aa, NULL));
  T = t->part.params.nthreads;
  PetscCall(VecGetArrayRead(x, &xa));
  if (z && z != y) PetscCall(VecGetArrayRead(z, &za));
  if (z) PetscCall(VecGetArray(y, &ya));
  else PetscCall(VecGetArrayWrite(y, &ya));
  if (z == y) za = ya;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Transpose, A, 0, 0, 0));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt k = omp_get_thread_num(); k < T; k += nth) AIJHybridKernelMultTransposeCSC(t->part.bounds[k], t->part.bounds[k + 1], t->ti, t->tj, t->perm, aa, xa, za, ya);
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Transpose, A, 0, 0, 0));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (z && z != y) PetscCall(VecRestoreArrayRead(z, &za));
  if (z) PetscCall(VecRestoreArray(y, &ya));
  else PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(PetscLogFlops(2.0 * t->nz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_SeqAIJHybrid(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAdd_SeqAIJHybrid_Private(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_SeqAIJHybrid(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAdd_SeqAIJHybrid_Private(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_SeqAIJHybrid(Mat A, MatAssemblyType mode)
{
  Mat_AIJHybrid      *ctx = MatAIJHybridGetContext(A);
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall((*ctx->parentops.assemblyend)(A, mode));
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag, A, A, PETSC_FALSE, &params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_SeqAIJHybrid(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_AIJHybrid *ctx = MatAIJHybridGetContext(A);

  PetscFunctionBegin;
  PetscCall((*ctx->parentops.duplicate)(A, op, B)); /* creates *B as seqaijhybrid */
  PetscCall(MatAIJHybridContextCopyOptions(ctx, MatAIJHybridGetContext(*B)));
  if ((*B)->assembled) {
    AIJHybridPartParams params;

    PetscCall(MatAIJHybridContextCurrentParams(MatAIJHybridGetContext(*B), &params));
    PetscCall(MatAIJHybridRowPartUpdate(&MatAIJHybridGetContext(*B)->diag, *B, *B, PETSC_FALSE, &params));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_SeqAIJHybrid(Mat A, AIJHybridOptionItems PetscOptionsObject)
{
  Mat_AIJHybrid *ctx = MatAIJHybridGetContext(A);

  PetscFunctionBegin;
  if (ctx->parentops.setfromoptions) PetscCall((*ctx->parentops.setfromoptions)(A, PetscOptionsObject));
  PetscCall(MatAIJHybridSetFromOptions_Private(A, PetscOptionsObject, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SeqAIJHybrid(Mat A, PetscViewer viewer)
{
  Mat_AIJHybrid *ctx = MatAIJHybridGetContext(A);

  PetscFunctionBegin;
  PetscCall((*ctx->parentops.view)(A, viewer));
  PetscCall(MatAIJHybridView_Private(A, viewer, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* conversion to any other type: through seqaij, whose converters are fast */
static PetscErrorCode MatConvert_SeqAIJHybrid_Any(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat tmp = NULL;

  PetscFunctionBegin;
  if (reuse == MAT_INPLACE_MATRIX) {
    PetscCall(MatConvert_SeqAIJHybrid_SeqAIJ(A, MATSEQAIJ, MAT_INPLACE_MATRIX, &A));
    PetscCall(MatConvert(A, type, MAT_INPLACE_MATRIX, &A));
  } else {
    PetscCall(MatConvert_SeqAIJHybrid_SeqAIJ(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &tmp));
    PetscCall(MatConvert(tmp, type, reuse, newmat));
    PetscCall(MatDestroy(&tmp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* strip the hybrid layer from B in place: B becomes a plain seqaij */
static PetscErrorCode MatAIJHybridSeqStrip(Mat B)
{
  Mat_AIJHybrid *ctx = MatAIJHybridGetContext(B);

  PetscFunctionBegin;
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
  PetscCall(MatAIJHybridContextDestroy(&ctx));
  B->spptr = NULL;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijhybrid_seqaij_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaij_seqaijhybrid_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", NULL));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatConvert_SeqAIJHybrid_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B = *newmat;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(MatAIJHybridSeqStrip(B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqAIJHybrid(Mat A)
{
  Mat_AIJHybrid *ctx = MatAIJHybridGetContext(A);
  PetscErrorCode (*destroy)(Mat) = ctx->parentops.destroy;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridSeqStrip(A));
  PetscCall((*destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatConvert_SeqAIJ_SeqAIJHybrid - converts a seqaij matrix (new, in place, or into an existing
  seqaijhybrid) into a seqaijhybrid one; called by MatCreate_SeqAIJHybrid() and MatConvert().
*/
PetscErrorCode MatConvert_SeqAIJ_SeqAIJHybrid(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat            B = *newmat;
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(MatAIJHybridContextCreate(B, &ctx));
  B->spptr                 = ctx;
  B->ops->mult             = MatMult_SeqAIJHybrid;
  B->ops->multadd          = MatMultAdd_SeqAIJHybrid;
  B->ops->multtranspose    = MatMultTranspose_SeqAIJHybrid;
  B->ops->multtransposeadd = MatMultTransposeAdd_SeqAIJHybrid;
  B->ops->assemblyend      = MatAssemblyEnd_SeqAIJHybrid;
  B->ops->destroy          = MatDestroy_SeqAIJHybrid;
  B->ops->duplicate        = MatDuplicate_SeqAIJHybrid;
  B->ops->setfromoptions   = MatSetFromOptions_SeqAIJHybrid;
  B->ops->view             = MatView_SeqAIJHybrid;
  B->ops->convert          = MatConvert_SeqAIJHybrid_Any;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaijhybrid_seqaij_C", MatConvert_SeqAIJHybrid_SeqAIJ));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatConvert_seqaij_seqaijhybrid_C", MatConvert_SeqAIJ_SeqAIJHybrid));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_AIJHybrid_Anytype));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATSEQAIJHYBRID));
  if (B->assembled) {
    AIJHybridPartParams params;

    PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
    PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag, B, B, PETSC_FALSE, &params));
  }
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATSEQAIJHYBRID - "seqaijhybrid" - a `MATSEQAIJ` matrix whose `MatMult()`, `MatMultAdd()`,
   `MatMultTranspose()` and `MatMultTransposeAdd()` run with OpenMP threads, each thread on a
   contiguous block of rows chosen once per nonzero pattern and cached with the matrix.

   Options Database Keys:
+  -mat_type aijhybrid                  - select the type (resolves to this one on one rank)
.  -mat_aijhybrid_num_threads <n>       - threads (default: what OpenMP gives the process)
.  -mat_aijhybrid_partition <type>      - rows, nnz (default), diffusion or optimal
.  -mat_aijhybrid_row_cost <c>          - per-row cost of the balanced partitions (default 2)
.  -mat_aijhybrid_diffusion_tol <tol>   - diffusion stopping tolerance
-  -mat_aijhybrid_diffusion_max_it <n>  - diffusion sweeps

   Level: beginner

.seealso: `MATAIJHYBRID`, `MATMPIAIJHYBRID`, `MATSEQAIJ`, `MatAIJHybridSetNumThreads()`
M*/
PetscErrorCode MatCreate_SeqAIJHybrid(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATSEQAIJ));
  PetscCall(MatConvert_SeqAIJ_SeqAIJHybrid(A, MATSEQAIJHYBRID, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
