/*
   Options of the aijhybrid types: -mat_aijhybrid_* and the Set/Get functions of the public API.
*/
#include "../aijhybrid.h"

const char *const MatAIJHybridModes[]          = {"auto", "vector", "task", "MatAIJHybridMode", "MAT_AIJHYBRID_MODE_", NULL};
const char *const MatAIJHybridPartitionTypes[] = {"rows", "nnz", "diffusion", "optimal", "MatAIJHybridPartitionType", "MAT_AIJHYBRID_PARTITION_", NULL};

PetscErrorCode MatAIJHybridSetFromOptions_Private(Mat A, AIJHybridOptionItems PetscOptionsObject, Mat_AIJHybrid *ctx)
{
  PetscInt  nthreads = ctx->params.nthreads, maxit = ctx->params.diffusion_max_it;
  PetscEnum type     = (PetscEnum)ctx->params.type, mode;
  PetscReal rc = ctx->params.row_cost, tol = ctx->params.diffusion_tol;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridCheckOptionValues(A)); /* src/mat/optcheck.c: values that are no number, named with the option */
  PetscOptionsHeadBegin(PetscOptionsObject, "AIJHybrid options (hybrid MPI/OpenMP products)");
  PetscCall(PetscOptionsInt("-mat_aijhybrid_num_threads", "OpenMP threads per MPI rank for products (default: OMP_NUM_THREADS; unset: cores of the node / ranks on it)", "MatAIJHybridSetNumThreads", nthreads, &nthreads, &set));
  if (set) PetscCall(MatAIJHybridSetNumThreads(A, nthreads));
  PetscCall(PetscOptionsEnum("-mat_aijhybrid_mode", "Overlap of the halo exchange with computation", "MatAIJHybridSetMode", MatAIJHybridModes, (PetscEnum)ctx->mode, &mode, &set));
  if (set) PetscCall(MatAIJHybridSetMode(A, (MatAIJHybridMode)mode));
  PetscCall(PetscOptionsEnum("-mat_aijhybrid_partition", "Thread partition of the rows", "MatAIJHybridSetPartitionType", MatAIJHybridPartitionTypes, type, &type, &set));
  if (set) PetscCall(MatAIJHybridSetPartitionType(A, (MatAIJHybridPartitionType)type));
  PetscCall(PetscOptionsReal("-mat_aijhybrid_row_cost", "Cost of one row in units of one nonzero, for the balanced partitions", "MatAIJHybridSetRowCost", rc, &rc, &set));
  if (set) PetscCall(MatAIJHybridSetRowCost(A, rc));
  PetscCall(PetscOptionsReal("-mat_aijhybrid_diffusion_tol", "Diffusion partition: stop when max/mean cost <= 1 + tol", "MatAIJHybridSetDiffusion", tol, &tol, &set));
  PetscCall(PetscOptionsInt("-mat_aijhybrid_diffusion_max_it", "Diffusion partition: maximum number of sweeps", "MatAIJHybridSetDiffusion", maxit, &maxit, &set));
  PetscCall(MatAIJHybridSetDiffusion(A, tol, maxit));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */

static PetscErrorCode MatAIJHybridGetContextChecked(Mat A, PetscBool required, Mat_AIJHybrid **ctx)
{
  PetscBool flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  PetscCheck(flg || !required, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not of type %s", ((PetscObject)A)->type_name, MATAIJHYBRID);
  *ctx = NULL;
  if (flg) PetscCall(MatAIJHybridGetContext(A, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetNumThreads - Sets the number of OpenMP threads each rank uses for the products of an `MATAIJHYBRID` matrix

  Logically Collective

  Input Parameters:
+ A        - the matrix (ignored unless it is `MATAIJHYBRID`)
- nthreads - number of threads, at least 1, or `PETSC_DEFAULT` for the default: what OpenMP gives the process or, with `OMP_NUM_THREADS` unset, the cores of the node divided by the ranks on it

  Options Database Key:
. -mat_aijhybrid_num_threads <n> - number of threads

  Level: intermediate

  Note:
  The thread partition is rebuilt at the next product.

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetNumThreads()`
@*/
PetscErrorCode MatAIJHybridSetNumThreads(Mat A, PetscInt nthreads)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_FALSE, &ctx));
  PetscValidLogicalCollectiveInt(A, nthreads, 2);
  if (!ctx) PetscFunctionReturn(PETSC_SUCCESS);
  if (nthreads == PETSC_DEFAULT || nthreads == PETSC_DECIDE) {
    ctx->nthreads_set    = PETSC_FALSE;
    ctx->params.nthreads = MatAIJHybridDefaultNumThreads();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(nthreads >= 1, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid number of threads %" PetscInt_FMT " for -mat_aijhybrid_num_threads: must be >= 1", nthreads);
  PetscCheck(nthreads <= 4096, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid number of threads %" PetscInt_FMT " for -mat_aijhybrid_num_threads: must be <= 4096", nthreads);
  ctx->params.nthreads = nthreads;
  ctx->nthreads_set    = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetNumThreads - Gets the number of OpenMP threads per rank of an `MATAIJHYBRID` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. nthreads - number of threads

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetNumThreads()`
@*/
PetscErrorCode MatAIJHybridGetNumThreads(Mat A, PetscInt *nthreads)
{
  Mat_AIJHybrid      *ctx = NULL;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_TRUE, &ctx));
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  *nthreads = params.nthreads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetPartitionType - Sets how the rows of each rank are split between its threads

  Logically Collective

  Input Parameters:
+ A    - the matrix (ignored unless it is `MATAIJHYBRID`)
- type - `MAT_AIJHYBRID_PARTITION_ROWS`, `MAT_AIJHYBRID_PARTITION_NNZ` (default), `MAT_AIJHYBRID_PARTITION_DIFFUSION` or `MAT_AIJHYBRID_PARTITION_OPTIMAL`

  Options Database Key:
. -mat_aijhybrid_partition <rows,nnz,diffusion,optimal> - partition type

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridPartitionType`, `MatAIJHybridGetPartitionType()`, `MatAIJHybridSetRowCost()`
@*/
PetscErrorCode MatAIJHybridSetPartitionType(Mat A, MatAIJHybridPartitionType type)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_FALSE, &ctx));
  PetscValidLogicalCollectiveEnum(A, type, 2);
  PetscCheck((int)type >= (int)MAT_AIJHYBRID_PARTITION_ROWS && (int)type <= (int)MAT_AIJHYBRID_PARTITION_OPTIMAL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid partition type %d for -mat_aijhybrid_partition: valid are rows, nnz, diffusion, optimal", (int)type);
  if (ctx) ctx->params.type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetPartitionType - Gets the partition type of an `MATAIJHYBRID` matrix

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. type - the partition type

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetPartitionType()`
@*/
PetscErrorCode MatAIJHybridGetPartitionType(Mat A, MatAIJHybridPartitionType *type)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_TRUE, &ctx));
  *type = ctx->params.type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetMode - Sets how the products of an `MATMPIAIJHYBRID` matrix overlap the halo exchange with computation

  Logically Collective

  Input Parameters:
+ A    - the matrix (ignored unless it is `MATAIJHYBRID`)
- mode - `MAT_AIJHYBRID_MODE_AUTO` (default), `MAT_AIJHYBRID_MODE_VECTOR` or `MAT_AIJHYBRID_MODE_TASK`

  Options Database Key:
. -mat_aijhybrid_mode <auto,vector,task> - the mode

  Level: intermediate

  Note:
  Task mode needs at least two threads (one drives the exchange); with one thread, one rank, or no
  off-process part it runs as vector mode. On one rank there is no exchange and both modes are the same.

.seealso: `MATAIJHYBRID`, `MatAIJHybridMode`, `MatAIJHybridGetMode()`
@*/
PetscErrorCode MatAIJHybridSetMode(Mat A, MatAIJHybridMode mode)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_FALSE, &ctx));
  PetscValidLogicalCollectiveEnum(A, mode, 2);
  PetscCheck((int)mode >= (int)MAT_AIJHYBRID_MODE_AUTO && (int)mode <= (int)MAT_AIJHYBRID_MODE_TASK, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid mode %d for -mat_aijhybrid_mode: valid are auto, vector, task", (int)mode);
  if (ctx) ctx->mode = mode;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetMode - Gets the mode the products of an `MATAIJHYBRID` matrix run in

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. mode - `MAT_AIJHYBRID_MODE_VECTOR` or `MAT_AIJHYBRID_MODE_TASK` as the next product will run
         (what `MAT_AIJHYBRID_MODE_AUTO` resolves to), or `MAT_AIJHYBRID_MODE_AUTO` for an
         unassembled matrix

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetMode()`
@*/
PetscErrorCode MatAIJHybridGetMode(Mat A, MatAIJHybridMode *mode)
{
  Mat_AIJHybrid      *ctx = NULL;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_TRUE, &ctx));
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  if (!A->assembled) *mode = ctx->mode;
  else *mode = MatAIJHybridEffectiveMode(ctx, params.nthreads);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetRowCost - Sets the cost of one row, in units of one nonzero, used by the balanced partitions

  Logically Collective

  Input Parameters:
+ A    - the matrix (ignored unless it is `MATAIJHYBRID`)
- cost - per-row cost, >= 0 (default 2)

  Options Database Key:
. -mat_aijhybrid_row_cost <c> - per-row cost

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetRowCost()`, `MatAIJHybridSetPartitionType()`
@*/
PetscErrorCode MatAIJHybridSetRowCost(Mat A, PetscReal cost)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_FALSE, &ctx));
  PetscValidLogicalCollectiveReal(A, cost, 2);
  PetscCheck(cost >= 0.0 && cost < PETSC_MAX_REAL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid row cost %g for -mat_aijhybrid_row_cost: must be finite and >= 0", (double)cost);
  if (ctx) ctx->params.row_cost = cost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetRowCost - Gets the per-row cost used by the balanced partitions

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. cost - per-row cost

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetRowCost()`
@*/
PetscErrorCode MatAIJHybridGetRowCost(Mat A, PetscReal *cost)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_TRUE, &ctx));
  *cost = ctx->params.row_cost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetDiffusion - Sets the stopping criteria of the diffusion partition

  Logically Collective

  Input Parameters:
+ A      - the matrix (ignored unless it is `MATAIJHYBRID`)
. tol    - stop when max/mean cost per thread <= 1 + tol (>= 0, default 0.01)
- max_it - maximum number of diffusion sweeps (>= 0, default 50)

  Options Database Keys:
+ -mat_aijhybrid_diffusion_tol <tol>      - tolerance
- -mat_aijhybrid_diffusion_max_it <max_it> - sweeps

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetDiffusion()`, `MAT_AIJHYBRID_PARTITION_DIFFUSION`
@*/
PetscErrorCode MatAIJHybridSetDiffusion(Mat A, PetscReal tol, PetscInt max_it)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_FALSE, &ctx));
  PetscCheck(tol >= 0.0 && tol < PETSC_MAX_REAL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid tolerance %g for -mat_aijhybrid_diffusion_tol: must be finite and >= 0", (double)tol);
  PetscCheck(max_it >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid sweep count %" PetscInt_FMT " for -mat_aijhybrid_diffusion_max_it: must be >= 0", max_it);
  if (ctx) {
    ctx->params.diffusion_tol    = tol;
    ctx->params.diffusion_max_it = max_it;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetDiffusion - Gets the stopping criteria of the diffusion partition

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ tol    - tolerance on max/mean - 1
- max_it - maximum number of sweeps

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetDiffusion()`
@*/
PetscErrorCode MatAIJHybridGetDiffusion(Mat A, PetscReal *tol, PetscInt *max_it)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_TRUE, &ctx));
  if (tol) *tol = ctx->params.diffusion_tol;
  if (max_it) *max_it = ctx->params.diffusion_max_it;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetPartitionInfo - Gets figures on the cached thread partition of this rank's rows

  Not Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameter:
. info - threads, partition type, imbalance (max/mean cost) of the diagonal and off-diagonal
         blocks, diffusion sweeps, build time, number of builds

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetPartition()`, `MatAIJHybridPartitionInfo`
@*/
PetscErrorCode MatAIJHybridGetPartitionInfo(Mat A, MatAIJHybridPartitionInfo *info)
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_TRUE, &ctx));
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  info->nthreads          = ctx->diag.bounds ? ctx->diag.params.nthreads : ctx->params.nthreads;
  info->type              = ctx->diag.bounds ? ctx->diag.params.type : ctx->params.type;
  info->imbalance         = ctx->diag.bounds ? ctx->diag.imbalance : 1.0;
  info->imbalance_offdiag = ctx->offd.bounds ? ctx->offd.imbalance : 1.0;
  info->sweeps            = ctx->diag.sweeps;
  info->build_time        = ctx->diag.build_time + ctx->offd.build_time;
  info->builds            = ctx->diag.builds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatAIJHybridGetPartition - Gets the cached thread partition of this rank's rows (diagonal block)

  Not Collective

  Input Parameter:
. A - an assembled `MATAIJHYBRID` matrix

  Output Parameters:
+ nthreads - number of threads
- bounds   - array of nthreads+1 row offsets: thread t owns local rows [bounds[t], bounds[t+1]); owned by the matrix, do not free

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetPartitionInfo()`
@*/
PetscErrorCode MatAIJHybridGetPartition(Mat A, PetscInt *nthreads, const PetscInt *bounds[])
{
  Mat_AIJHybrid *ctx = NULL;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContextChecked(A, PETSC_TRUE, &ctx));
  PetscCheck(A->assembled && ctx->diag.bounds, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
  if (nthreads) *nthreads = ctx->diag.params.nthreads;
  if (bounds) *bounds = ctx->diag.bounds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

