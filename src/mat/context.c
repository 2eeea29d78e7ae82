/*
   The context of an aijhybrid matrix, kept in Mat->spptr (src/mat/context.h): creation with the
   defaults, destruction of its caches, the look-up the operations make, and the parameters and
   mode in force.
*/
#include "context.h"

/* what differs between the two types */
const AIJHybridTypeInfo AIJHybridSeqInfo = {MATSEQAIJHYBRID, MATSEQAIJ, "MatConvert_seqaijhybrid_seqaij_C", "MatConvert_seqaij_seqaijhybrid_C", PETSC_FALSE};
const AIJHybridTypeInfo AIJHybridMPIInfo = {MATMPIAIJHYBRID, MATMPIAIJ, "MatConvert_mpiaijhybrid_mpiaij_C", "MatConvert_mpiaij_mpiaijhybrid_C", PETSC_TRUE};

#define AIJHYBRID_DEFAULT_ROW_COST      2.0
#define AIJHYBRID_DEFAULT_DIFFUSION_TOL 0.01
#define AIJHYBRID_DEFAULT_DIFFUSION_IT  50

/* a context with the defaults, attached to A (A->spptr); A's operations are the ones it chains to */
PetscErrorCode MatAIJHybridContextCreate(Mat A, const AIJHybridTypeInfo *info, Mat_AIJHybrid **ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(ctx));
  A->spptr                            = *ctx;
  (*ctx)->parentops                   = *A->ops;
  (*ctx)->info                        = info;
  (*ctx)->set.params.nthreads         = AIJHybridDefaultNumThreads();
  (*ctx)->set.params.type             = MAT_AIJHYBRID_PARTITION_NNZ;
  (*ctx)->set.params.row_cost         = AIJHYBRID_DEFAULT_ROW_COST;
  (*ctx)->set.params.diffusion_tol    = AIJHYBRID_DEFAULT_DIFFUSION_TOL;
  (*ctx)->set.params.diffusion_max_it = AIJHYBRID_DEFAULT_DIFFUSION_IT;
  (*ctx)->set.params.task_share       = -1.0; /* equal parts; only task mode's diagonal partition has a share for thread 0 */
  (*ctx)->set.task_share              = -1.0; /* measured */
  (*ctx)->set.prefetch                = -1;   /* measured */
  (*ctx)->tune.task_share             = 1.0;  /* until measured: thread 0 takes a whole share after the exchange; the choices start at the first product (tune.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the context of A and its caches, detached from A */
PetscErrorCode MatAIJHybridContextDestroy(Mat A)
{
  Mat_AIJHybrid   *ctx = (Mat_AIJHybrid *)A->spptr;
  AIJHybridCaches *c;

  PetscFunctionBegin;
  if (!ctx) PetscFunctionReturn(PETSC_SUCCESS);
  c = &ctx->cache;
  PetscCall(MatAIJHybridRowPartReset(&c->diag));
  PetscCall(MatAIJHybridRowPartReset(&c->offd));
  PetscCall(MatAIJHybridRowPartReset(&c->diag_task));
  PetscCall(MatAIJHybridRowPartReset(&c->diag_task_b));
  PetscCall(MatAIJHybridTransposeReset(&c->tdiag));
  PetscCall(MatAIJHybridTransposeReset(&c->toffd));
  PetscCall(MatAIJHybridFirstTouchReset(&c->ftdiag));
  PetscCall(MatAIJHybridFirstTouchReset(&c->ftoffd));
  PetscCall(MatAIJHybridSORReset(&c->sor));
  PetscCall(MatAIJHybridHaloReset(&c->halo));
  PetscCall(MatDestroy(&ctx->block.view));
  PetscCall(PetscFree(ctx->stats.time));
  PetscCall(PetscFree(ctx));
  A->spptr = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridGetContext - the context of an aijhybrid matrix, for its operations and public
  functions. PETSc replaces a matrix's data (and so its context) without its operations only
  through MatHeaderMerge(), where our operations take care of it (aijhybrid.c: MatAXPY(), in-place
  MatLUFactor() and MatTranspose()); a matrix of our type without a context is refused.
*/
PetscErrorCode MatAIJHybridGetContext(Mat A, Mat_AIJHybrid **ctx)
{
  PetscBool mpi, seq;

  PetscFunctionBegin;
  /* the type name first: PETSc copies a matrix's composed functions into some matrices made from it
     (MatDuplicateNoCreate_SeqAIJ() into ILU/LU factors), whose spptr is not ours. No name: our
     destroy called by MatHeaderMerge(), which clears it for the time of the call. */
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJHYBRID, &mpi));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJHYBRID, &seq));
  PetscCheck(mpi || seq || !((PetscObject)A)->type_name, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not of type %s", ((PetscObject)A)->type_name, MATAIJHYBRID);
  *ctx = (Mat_AIJHybrid *)A->spptr;
  PetscCheck(*ctx, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Matrix of type %s has no %s context: PETSc replaced its data outside the type's operations", ((PetscObject)A)->type_name, MATAIJHYBRID);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the settings of from, for a copy of its matrix (MatDuplicate()) or a matrix derived from it */
void MatAIJHybridContextCopySettings(const AIJHybridSettings *from, Mat_AIJHybrid *to)
{
  to->set             = *from;
  to->tune.task_share = from->task_share >= 0 ? from->task_share : 1.0;
}

/* the partition parameters in force now: the thread count follows OpenMP unless the user set it */
void MatAIJHybridContextCurrentParams(Mat_AIJHybrid *ctx, AIJHybridPartParams *params)
{
  if (!ctx->set.nthreads_set) ctx->set.params.nthreads = AIJHybridDefaultNumThreads();
  *params = ctx->set.params;
}

/* the mode a product runs in: task needs >= 2 threads, an off-process part somewhere, and MPI_THREAD_FUNNELED */
MatAIJHybridMode MatAIJHybridEffectiveMode(const Mat_AIJHybrid *ctx, PetscInt nthreads)
{
  if (nthreads < 2 || !ctx->cache.has_offproc || AIJHybridMPIThreadLevel < MPI_THREAD_FUNNELED) return MAT_AIJHYBRID_MODE_VECTOR;
  return ctx->set.mode == MAT_AIJHYBRID_MODE_VECTOR ? MAT_AIJHYBRID_MODE_VECTOR : MAT_AIJHYBRID_MODE_TASK;
}
