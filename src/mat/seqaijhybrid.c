/*
   MATSEQAIJHYBRID: a MATSEQAIJ whose products run with OpenMP threads over a cached row partition.
*/
#include "../aijhybrid.h"

/* everything a product needs, valid for the current pattern and parameters */
static PetscErrorCode MatAIJHybridSeqPrepare(Mat A, Mat_AIJHybrid **ctx, const PetscInt **ai, const PetscInt **aj, PetscScalar **aa)
{
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, ctx));
  PetscCall(MatAIJHybridContextCurrentParams(*ctx, &params));
  PetscCall(AIJHybridCheckOversubscription((PetscObject)A, params.nthreads));
  PetscCall(MatAIJHybridRowPartUpdate(&(*ctx)->diag, A, A, PETSC_FALSE, &params));
  if ((*ctx)->first_touch) PetscCall(MatAIJHybridMirrorUpdate(&(*ctx)->mdiag, A, A, &(*ctx)->diag, params.nthreads, ai, aj, aa));
  else PetscCall(MatSeqAIJGetCSRAndMemType(A, ai, aj, aa, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x, or y = z + A x when z is given (z may be y) */
static PetscErrorCode MatMultAdd_SeqAIJHybrid_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_AIJHybrid     *ctx = NULL;
  const PetscInt    *ai, *aj, *bounds;
  PetscScalar       *aa, *ya;
  const PetscScalar *xa, *za = NULL;
  PetscInt           T, pd;
  double             twall;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridSeqPrepare(A, &ctx, &ai, &aj, &aa));
  T      = ctx->diag.params.nthreads;
  bounds = ctx->diag.bounds;
  PetscCall(MatAIJHybridThreadStatsPrepare(ctx, T, MAT_AIJHYBRID_MODE_VECTOR));
  pd = MatAIJHybridPrefetchDistance(ctx);
  PetscCall(MatAIJHybridGetVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Mult, A, 0, 0, 0));
  twall = omp_get_wtime();
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();
    const double   t0  = omp_get_wtime();

    for (PetscInt t = tid; t < T; t += nth) AIJHybridKernelMultAdd(bounds[t], bounds[t + 1], ai, aj, aa, xa, za, ya, pd);
    ctx->tstat[AIJHYBRID_TSTAT_STRIDE * tid + AIJHYBRID_TSTAT_DIAG] += omp_get_wtime() - t0;
  }
  twall = omp_get_wtime() - twall;
  ctx->nprod++;
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Mult, A, 0, 0, 0));
  PetscCall(MatAIJHybridPrefetchRecord(A, ctx, pd, twall));
  PetscCall(MatAIJHybridRestoreVecArrays(x, z, y, &xa, &za, &ya));
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
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;
  AIJHybridTranspose *t;
  PetscScalar        *aa, *ya;
  const PetscScalar  *xa, *za = NULL;
  PetscInt            T;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  t   = &ctx->tdiag;
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  PetscCall(MatAIJHybridTransposeUpdate(t, A, A, &params));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &aa, NULL));
  T = t->part.params.nthreads;
  PetscCall(MatAIJHybridGetVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Transpose, A, 0, 0, 0));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt k = omp_get_thread_num(); k < T; k += nth) AIJHybridKernelMultTransposeCSC(t->part.bounds[k], t->part.bounds[k + 1], t->ti, t->tj, t->perm, aa, xa, za, ya);
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Transpose, A, 0, 0, 0));
  PetscCall(MatAIJHybridRestoreVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogFlops(2.0 * t->key.nz));
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

/* build the caches of an assembled matrix: the thread partition of its rows */
static PetscErrorCode MatAIJHybridSeqSetUp(Mat A)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(AIJHybridCountRanksOnNode(PetscObjectComm((PetscObject)A)));
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  PetscCall(AIJHybridCheckOversubscription((PetscObject)A, params.nthreads));
  PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag, A, A, PETSC_FALSE, &params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const AIJHybridTypeInfo AIJHybridSeqInfo = {MATSEQAIJHYBRID, MATSEQAIJ, "MatConvert_seqaijhybrid_seqaij_C", "MatConvert_seqaij_seqaijhybrid_C", MatMult_SeqAIJHybrid, MatMultAdd_SeqAIJHybrid, MatMultTranspose_SeqAIJHybrid, MatMultTransposeAdd_SeqAIJHybrid, MatAIJHybridSeqSetUp};

/*MC
   MATSEQAIJHYBRID - "seqaijhybrid" - a `MATSEQAIJ` matrix whose `MatMult()`, `MatMultAdd()`,
   `MatMultTranspose()` and `MatMultTransposeAdd()` run with OpenMP threads, each thread on a
   contiguous block of rows chosen once per nonzero pattern and cached with the matrix.

   Options Database Keys:
+  -mat_type aijhybrid                  - select the type (resolves to this one on one rank)
.  -mat_aijhybrid_num_threads <n>       - threads (default: what OpenMP gives the process)
.  -mat_aijhybrid_mode <mode>           - auto (default), vector or task (overlap of the halo exchange; mpi only)
.  -mat_aijhybrid_partition <type>      - rows, nnz (default), diffusion or optimal
.  -mat_aijhybrid_row_cost <c>          - per-row cost of the balanced partitions (default 2)
.  -mat_aijhybrid_diffusion_tol <tol>   - diffusion stopping tolerance
.  -mat_aijhybrid_diffusion_max_it <n>  - diffusion sweeps
.  -mat_aijhybrid_prefetch <d>          - software prefetch distance in nonzeros, 0 off (default -1: chosen from measured products)
.  -mat_aijhybrid_first_touch           - multiply copies of the blocks placed by their threads (NUMA)
.  -mat_aijhybrid_node_aware            - node-aware halo exchange, a PetscSF of type nodeaware (mpi only)
-  -mat_aijhybrid_node_size <k>         - emulated nodes of k consecutive ranks for it

   Level: beginner

.seealso: `MATAIJHYBRID`, `MATMPIAIJHYBRID`, `MATSEQAIJ`, `MatAIJHybridSetNumThreads()`
M*/
PetscErrorCode MatCreate_SeqAIJHybrid(Mat A)
{
  /* layouts already set up: MatSetType() is re-typing a matrix that was set up or preallocated */
  const PetscBool wasset = (PetscBool)(A->rmap->setupcalled && A->cmap->setupcalled);

  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATSEQAIJ));
  PetscCall(MatAIJHybridSnapshotBaseOps(A, PETSC_FALSE));
  PetscCall(MatConvert_AIJ_AIJHybrid(A, MATSEQAIJHYBRID, MAT_INPLACE_MATRIX, &A));
  /* MatSetType() dropped that preallocation; a matrix set up before -mat_type aijhybrid (MatSetUp(),
     then MatSetFromOptions()) must stay usable as it does with -mat_type aij, where re-typing is a
     no-op: set it up again (a later MatXAIJSetPreallocation() replaces this default one) */
  if (wasset) PetscCall(MatSetUp(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
