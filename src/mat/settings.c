/*
   The settings of the aijhybrid types: the -mat_aijhybrid_* options and the public Set/Get
   functions. Each public function calls the implementation composed on the matrix
   ("MatAIJHybridSet..._C", PetscTryMethod/PetscUseMethod), so that a Set is ignored by other
   types and a Get refuses them, as for PETSc's own types.
*/
#include "aijhybridimpl.h"
#include "factorsupport.h"
#include "../options/options.h"

const char *const MatAIJHybridModes[]             = {"auto", "vector", "task", "MatAIJHybridMode", "MAT_AIJHYBRID_MODE_", NULL};
const char *const MatAIJHybridPartitionTypes[]    = {"rows", "nnz", "diffusion", "optimal", "MatAIJHybridPartitionType", "MAT_AIJHYBRID_PARTITION_", NULL};
const char *const MatAIJHybridFactorBlocksTypes[] = {"none", "thread", "MatAIJHybridFactorBlocks", "MAT_AIJHYBRID_FACTOR_BLOCKS_", NULL};

/*
  The -mat_aijhybrid_* options, read by MatSetFromOptions() (the factor options when a factor is made:
  MatAIJHybridFactorOptions()). Every option is read first, the values applied after, so that a bad
  value leaves the matrix as it was. The current value -help shows for a new matrix is the default.
*/
PetscErrorCode MatAIJHybridSetFromOptions_Private(Mat A, AIJHybridOptionItems PetscOptionsObject, Mat_AIJHybrid *ctx)
{
  AIJHybridSettings s        = ctx->set;
  PetscInt          nthreads = s.nthreads_set ? s.params.nthreads : PETSC_DECIDE;
  PetscBool         fthreads, fmode, fpart, fcost, ftol, fmaxit, ftouch, fprefetch, fshare, faware, fsize, fsor, fblocks;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "AIJHybrid options (hybrid MPI/OpenMP products)");
  PetscCall(AIJHybridOptionsRangeInt("-mat_aijhybrid_num_threads", "OpenMP threads per MPI rank for the products, 1 to 4096, or -1: OMP_NUM_THREADS, unset: the cores of the node / the ranks on it", "MatAIJHybridSetNumThreads", nthreads, &nthreads,
                                     &fthreads, PETSC_DECIDE, AIJHYBRID_MAX_THREADS));
  PetscCall(AIJHybridOptionsCheck(PetscOptionsObject, "-mat_aijhybrid_num_threads", (PetscBool)(nthreads != 0), "at least 1 thread, or -1 for the default"));
  PetscCall(AIJHybridOptionsEnum("-mat_aijhybrid_mode", "Overlap of the halo exchange with computation (auto: task with threads and an off-process part, else vector)", "MatAIJHybridSetMode", MatAIJHybridModes, s.mode, &s.mode, &fmode));
  PetscCall(AIJHybridOptionsEnum("-mat_aijhybrid_partition", "Thread partition of the rows", "MatAIJHybridSetPartitionType", MatAIJHybridPartitionTypes, s.params.type, &s.params.type, &fpart));
  PetscCall(AIJHybridOptionsRangeReal("-mat_aijhybrid_row_cost", "Cost of one row in units of one nonzero, for the balanced partitions (>= 0)", "MatAIJHybridSetRowCost", s.params.row_cost, &s.params.row_cost, &fcost, 0.0, PETSC_MAX_REAL));
  PetscCall(AIJHybridOptionsRangeReal("-mat_aijhybrid_diffusion_tol", "Diffusion partition: stop when max/mean cost <= 1 + tol (>= 0)", "MatAIJHybridSetDiffusion", s.params.diffusion_tol, &s.params.diffusion_tol, &ftol, 0.0, PETSC_MAX_REAL));
  PetscCall(AIJHybridOptionsRangeInt("-mat_aijhybrid_diffusion_max_it", "Diffusion partition: maximum number of sweeps (>= 0)", "MatAIJHybridSetDiffusion", s.params.diffusion_max_it, &s.params.diffusion_max_it, &fmaxit, 0, PETSC_MAX_INT));
  PetscCall(
    AIJHybridOptionsBool("-mat_aijhybrid_first_touch", "Multiply copies of the blocks first touched by the threads that read them (NUMA placement; doubles the matrix memory)", "MatAIJHybridSetFirstTouch", s.first_touch, &s.first_touch, &ftouch));
  PetscCall(AIJHybridOptionsRangeInt("-mat_aijhybrid_prefetch", "Software prefetch distance of the forward products in nonzeros, 0 (none) to 1048576, or -1 to choose it per rank from measured products (512 or none)", "MatAIJHybridSetPrefetch",
                                     s.prefetch, &s.prefetch, &fprefetch, -1, AIJHYBRID_PREFETCH_MAX));
  PetscCall(AIJHybridOptionsRangeReal("-mat_aijhybrid_task_share", "Task mode: share of an equal part of the diagonal block thread 0 multiplies after the halo exchange, 0 to 1, or -1 to size it from measured times", "MatAIJHybridSetTaskShare",
                                      s.task_share, &s.task_share, &fshare, -1.0, 1.0));
  PetscCall(AIJHybridOptionsCheck(PetscOptionsObject, "-mat_aijhybrid_task_share", (PetscBool)(s.task_share >= 0.0 || s.task_share == -1.0), "a share from 0 to 1, or -1 to size it from measured times"));
  PetscCall(AIJHybridOptionsBool("-mat_aijhybrid_node_aware", "Node-aware halo exchange (PetscSF type nodeaware): one inter-node message per ordered node pair, gathered and redistributed on the nodes (false: the type -sf_type gives)",
                                 "MatAIJHybridSetNodeAware", s.node_aware, &s.node_aware, &faware));
  PetscCall(AIJHybridOptionsRangeInt("-mat_aijhybrid_node_size", "Emulate nodes of k consecutive ranks for the node-aware exchange (0: the PetscSF's -sf_nodeaware_node_size, else nodes from MPI_COMM_TYPE_SHARED)", "MatAIJHybridSetNodeSize",
                                     s.node_size, &s.node_size, &fsize, 0, PETSC_MAX_INT));
  PetscCall(AIJHybridOptionsBool("-mat_aijhybrid_sor_serial", "MatSOR runs AIJ's serial sweeps instead of thread-local ones (each thread's rows swept with the other threads' values from the previous sweep)", "MatAIJHybridSetSORSerial", s.sor_serial,
                                 &s.sor_serial, &fsor));
  PetscCall(AIJHybridOptionsEnum("-mat_aijhybrid_factor_blocks", "ILU/ICC: factor the whole matrix (none) or, like PCBJACOBI over as many ranks, the diagonal block of each thread's rows, all at once (thread)", "MatAIJHybridSetFactorBlocks",
                                 MatAIJHybridFactorBlocksTypes, s.factor_blocks, &s.factor_blocks, &fblocks));
  PetscOptionsHeadEnd();
  if (fthreads) PetscCall(MatAIJHybridSetNumThreads(A, nthreads));
  if (fmode) PetscCall(MatAIJHybridSetMode(A, s.mode));
  if (fpart) PetscCall(MatAIJHybridSetPartitionType(A, s.params.type));
  if (fcost) PetscCall(MatAIJHybridSetRowCost(A, s.params.row_cost));
  if (ftol || fmaxit) PetscCall(MatAIJHybridSetDiffusion(A, s.params.diffusion_tol, s.params.diffusion_max_it));
  if (ftouch) PetscCall(MatAIJHybridSetFirstTouch(A, s.first_touch));
  if (fprefetch) PetscCall(MatAIJHybridSetPrefetch(A, s.prefetch));
  if (fshare) PetscCall(MatAIJHybridSetTaskShare(A, s.task_share));
  if (faware) PetscCall(MatAIJHybridSetNodeAware(A, s.node_aware));
  if (fsize) PetscCall(MatAIJHybridSetNodeSize(A, s.node_size));
  if (fsor) PetscCall(MatAIJHybridSetSORSerial(A, s.sor_serial));
  if (fblocks) PetscCall(MatAIJHybridSetFactorBlocks(A, s.factor_blocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridFactorOptions - the factor options (-mat_aijhybrid_factor_solve, -mat_aijhybrid_factor_check,
  -mat_aijhybrid_factor_numeric) for a factor of A, read when the factor is made (and at each numeric
  factorization): with A's options prefix, then without one (A may be the diagonal block PCBJACOBI
  factors, prefixed sub_). mode, check and numeric keep their values where the options are not given.
*/
PetscErrorCode MatAIJHybridFactorOptions(Mat A, MatAIJHybridFactorSolve *mode, PetscBool *check, MatAIJHybridFactorSolve *numeric)
{
  const char *prefix;
  PetscBool   fmode = PETSC_FALSE, fcheck = PETSC_FALSE, fnumeric = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)A, &prefix));
  for (PetscInt k = 0; k < (prefix ? 2 : 1); k++) {
    MatAIJHybridFactorSolve m = *mode, nm = *numeric;
    PetscBool               c = *check, fm, fc, fn;

    PetscOptionsBegin(PetscObjectComm((PetscObject)A), k ? NULL : prefix, "Threaded triangular solves and numeric factorization of ILU/ICC factors (petsc-aijhybrid)", "Mat");
    PetscCall(AIJHybridOptionsEnum("-mat_aijhybrid_factor_solve", "Triangular solves of ILU/ICC factors: measured choice, threaded, or PETSc's serial ones", "MatAIJHybridGetFactorInfo", MatAIJHybridFactorSolves, m, &m, &fm));
    PetscCall(AIJHybridOptionsBool("-mat_aijhybrid_factor_check", "Debugging: compare every threaded triangular solve and numeric factorization of an ILU/ICC factor with PETSc's own", "MatAIJHybridGetFactorInfo", c, &c, &fc));
    PetscCall(AIJHybridOptionsEnum("-mat_aijhybrid_factor_numeric", "Numeric factorization of ILU/ICC factors: measured choice (threaded unless measured slower), level-scheduled threaded, or PETSc's serial one", "MatAIJHybridGetFactorInfo",
                                   MatAIJHybridFactorSolves, nm, &nm, &fn));
    PetscOptionsEnd();
    if (fm && !fmode) *mode = m; /* the prefixed option, read first, wins */
    if (fc && !fcheck) *check = c;
    if (fn && !fnumeric) *numeric = nm;
    fmode    = (PetscBool)(fmode || fm);
    fcheck   = (PetscBool)(fcheck || fc);
    fnumeric = (PetscBool)(fnumeric || fn);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetNumThreads_AIJHybrid(Mat A, PetscInt nthreads)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (nthreads == PETSC_DEFAULT || nthreads == PETSC_DECIDE) {
    ctx->set.nthreads_set    = PETSC_FALSE;
    ctx->set.params.nthreads = AIJHybridDefaultNumThreads();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(nthreads >= 1, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid number of threads %" PetscInt_FMT " for -mat_aijhybrid_num_threads: must be >= 1", nthreads);
  PetscCheck(nthreads <= 4096, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid number of threads %" PetscInt_FMT " for -mat_aijhybrid_num_threads: must be <= 4096", nthreads);
  ctx->set.params.nthreads = nthreads;
  ctx->set.nthreads_set    = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetNumThreads_AIJHybrid(Mat A, PetscInt *nthreads)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  MatAIJHybridContextCurrentParams(ctx, &params);
  *nthreads = params.nthreads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetPartitionType_AIJHybrid(Mat A, MatAIJHybridPartitionType type)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck((int)type >= (int)MAT_AIJHYBRID_PARTITION_ROWS && (int)type <= (int)MAT_AIJHYBRID_PARTITION_OPTIMAL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE,
             "Invalid partition type %d for -mat_aijhybrid_partition: valid are rows, nnz, diffusion, optimal", (int)type);
  ctx->set.params.type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetPartitionType_AIJHybrid(Mat A, MatAIJHybridPartitionType *type)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *type = ctx->set.params.type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetMode_AIJHybrid(Mat A, MatAIJHybridMode mode)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck((int)mode >= (int)MAT_AIJHYBRID_MODE_AUTO && (int)mode <= (int)MAT_AIJHYBRID_MODE_TASK, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid mode %d for -mat_aijhybrid_mode: valid are auto, vector, task", (int)mode);
  ctx->set.mode = mode;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetMode_AIJHybrid(Mat A, MatAIJHybridMode *mode)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  MatAIJHybridContextCurrentParams(ctx, &params);
  if (!A->assembled) *mode = ctx->set.mode;
  else if (ctx->info->mpi && (!ctx->cache.halo.sf || ctx->cache.halo.nzstate != A->nonzerostate) && params.nthreads > 1 && ctx->set.mode != MAT_AIJHYBRID_MODE_VECTOR && AIJHybridMPIThreadLevel >= MPI_THREAD_FUNNELED)
    *mode = MAT_AIJHYBRID_MODE_AUTO; /* decided at the next use, which builds the halo exchange and learns whether some rank has ghosts (src/mat/prepare.c) */
  else *mode = MatAIJHybridEffectiveMode(ctx, params.nthreads);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetRowCost_AIJHybrid(Mat A, PetscReal cost)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(cost >= 0.0 && cost < PETSC_MAX_REAL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid row cost %g for -mat_aijhybrid_row_cost: must be finite and >= 0", (double)cost);
  ctx->set.params.row_cost = cost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetRowCost_AIJHybrid(Mat A, PetscReal *cost)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *cost = ctx->set.params.row_cost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetDiffusion_AIJHybrid(Mat A, PetscReal tol, PetscInt max_it)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(tol >= 0.0 && tol < PETSC_MAX_REAL, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid tolerance %g for -mat_aijhybrid_diffusion_tol: must be finite and >= 0", (double)tol);
  PetscCheck(max_it >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid sweep count %" PetscInt_FMT " for -mat_aijhybrid_diffusion_max_it: must be >= 0", max_it);
  ctx->set.params.diffusion_tol    = tol;
  ctx->set.params.diffusion_max_it = max_it;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetDiffusion_AIJHybrid(Mat A, PetscReal *tol, PetscInt *max_it)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (tol) *tol = ctx->set.params.diffusion_tol;
  if (max_it) *max_it = ctx->set.params.diffusion_max_it;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetFirstTouch_AIJHybrid(Mat A, PetscBool flg)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  ctx->set.first_touch = flg;
  if (!flg) {
    PetscCall(MatAIJHybridFirstTouchReset(&ctx->cache.ftdiag));
    PetscCall(MatAIJHybridFirstTouchReset(&ctx->cache.ftoffd));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetFirstTouch_AIJHybrid(Mat A, PetscBool *flg)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *flg = ctx->set.first_touch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetPrefetch_AIJHybrid(Mat A, PetscInt distance)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(distance == PETSC_DEFAULT || distance == PETSC_DECIDE || (distance >= 0 && distance <= AIJHYBRID_PREFETCH_MAX), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE,
             "Invalid prefetch distance %" PetscInt_FMT " for -mat_aijhybrid_prefetch: must be from 0 (none) to %d nonzeros, or -1 to choose it from measured products", distance, AIJHYBRID_PREFETCH_MAX);
  ctx->set.prefetch = distance < 0 ? -1 : distance;
  MatAIJHybridPrefetchRestart(ctx);
  MatAIJHybridTaskShareRestart(ctx); /* the share's choice too: they are made one after the other (tune.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetPrefetch_AIJHybrid(Mat A, PetscInt *distance, PetscInt *in_use)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (distance) *distance = ctx->set.prefetch;
  if (in_use) *in_use = MatAIJHybridPrefetchInUse(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetTaskShare_AIJHybrid(Mat A, PetscReal share)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(share == (PetscReal)PETSC_DETERMINE || (share >= 0.0 && share <= 1.0), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid task share %g for -mat_aijhybrid_task_share: must be in [0, 1], or -1 to measure it",
             (double)share);
  ctx->set.task_share = share < 0 ? -1.0 : share;
  MatAIJHybridTaskShareRestart(ctx);
  MatAIJHybridPrefetchRestart(ctx);
  PetscCall(MatAIJHybridStatsReset(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetTaskShare_AIJHybrid(Mat A, PetscReal *share, PetscReal *in_use)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (share) *share = ctx->set.task_share;
  if (in_use) *in_use = MatAIJHybridTaskShareInUse(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetNodeAware_AIJHybrid(Mat A, PetscBool flg)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  ctx->set.node_aware = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetNodeAware_AIJHybrid(Mat A, PetscBool *flg)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *flg = ctx->set.node_aware;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetNodeSize_AIJHybrid(Mat A, PetscInt k)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (k == PETSC_DEFAULT || k == PETSC_DECIDE) k = 0;
  PetscCheck(k >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid node size %" PetscInt_FMT " for -mat_aijhybrid_node_size: must be >= 1, or 0 for the nodes MPI_COMM_TYPE_SHARED finds", k);
  ctx->set.node_size = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetNodeSize_AIJHybrid(Mat A, PetscInt *k)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *k = ctx->set.node_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetSORSerial_AIJHybrid(Mat A, PetscBool serial)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  ctx->set.sor_serial = serial;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetSORSerial_AIJHybrid(Mat A, PetscBool *serial)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *serial = ctx->set.sor_serial;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridSetFactorBlocks_AIJHybrid(Mat A, MatAIJHybridFactorBlocks blocks)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCheck(blocks == MAT_AIJHYBRID_FACTOR_BLOCKS_NONE || blocks == MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Invalid value %d for -mat_aijhybrid_factor_blocks: must be none or thread",
             (int)blocks);
  ctx->set.factor_blocks = blocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAIJHybridGetFactorBlocks_AIJHybrid(Mat A, MatAIJHybridFactorBlocks *blocks)
{
  Mat_AIJHybrid *ctx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *blocks = ctx->set.factor_blocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose (on) or remove the implementations of the public settings functions on an aijhybrid matrix */
PetscErrorCode MatAIJHybridComposeSettings(Mat A, PetscBool on)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetNumThreads_C", on ? MatAIJHybridSetNumThreads_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetNumThreads_C", on ? MatAIJHybridGetNumThreads_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetPartitionType_C", on ? MatAIJHybridSetPartitionType_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetPartitionType_C", on ? MatAIJHybridGetPartitionType_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetMode_C", on ? MatAIJHybridSetMode_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetMode_C", on ? MatAIJHybridGetMode_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetRowCost_C", on ? MatAIJHybridSetRowCost_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetRowCost_C", on ? MatAIJHybridGetRowCost_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetDiffusion_C", on ? MatAIJHybridSetDiffusion_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetDiffusion_C", on ? MatAIJHybridGetDiffusion_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetFirstTouch_C", on ? MatAIJHybridSetFirstTouch_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetFirstTouch_C", on ? MatAIJHybridGetFirstTouch_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetPrefetch_C", on ? MatAIJHybridSetPrefetch_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetPrefetch_C", on ? MatAIJHybridGetPrefetch_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetTaskShare_C", on ? MatAIJHybridSetTaskShare_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetTaskShare_C", on ? MatAIJHybridGetTaskShare_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetTestClock_C", on ? MatAIJHybridSetTestClock_AIJHybrid : NULL)); /* tests only (src/mat/tune.c) */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetNodeAware_C", on ? MatAIJHybridSetNodeAware_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetNodeAware_C", on ? MatAIJHybridGetNodeAware_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetNodeSize_C", on ? MatAIJHybridSetNodeSize_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetNodeSize_C", on ? MatAIJHybridGetNodeSize_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetSORSerial_C", on ? MatAIJHybridSetSORSerial_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetSORSerial_C", on ? MatAIJHybridGetSORSerial_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridSetFactorBlocks_C", on ? MatAIJHybridSetFactorBlocks_AIJHybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatAIJHybridGetFactorBlocks_C", on ? MatAIJHybridGetFactorBlocks_AIJHybrid : NULL));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, nthreads, 2);
  PetscTryMethod(A, "MatAIJHybridSetNumThreads_C", (Mat, PetscInt), (A, nthreads));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetNumThreads_C", (Mat, PetscInt *), (A, nthreads));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, type, 2);
  PetscTryMethod(A, "MatAIJHybridSetPartitionType_C", (Mat, MatAIJHybridPartitionType), (A, type));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetPartitionType_C", (Mat, MatAIJHybridPartitionType *), (A, type));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, mode, 2);
  PetscTryMethod(A, "MatAIJHybridSetMode_C", (Mat, MatAIJHybridMode), (A, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetMode - Gets the mode the products of an `MATAIJHYBRID` matrix run in

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. mode - `MAT_AIJHYBRID_MODE_VECTOR` or `MAT_AIJHYBRID_MODE_TASK` as the next product will run
         (what `MAT_AIJHYBRID_MODE_AUTO` resolves to), or `MAT_AIJHYBRID_MODE_AUTO` while that is not
         decided: an unassembled matrix, or an `MATMPIAIJHYBRID` matrix not used since its nonzero
         pattern changed where task mode depends on whether some rank has off-process columns (the
         next product, collectively, finds out)

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetMode()`
@*/
PetscErrorCode MatAIJHybridGetMode(Mat A, MatAIJHybridMode *mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetMode_C", (Mat, MatAIJHybridMode *), (A, mode));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveReal(A, cost, 2);
  PetscTryMethod(A, "MatAIJHybridSetRowCost_C", (Mat, PetscReal), (A, cost));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetRowCost_C", (Mat, PetscReal *), (A, cost));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscTryMethod(A, "MatAIJHybridSetDiffusion_C", (Mat, PetscReal, PetscInt), (A, tol, max_it));
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
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetDiffusion_C", (Mat, PetscReal *, PetscInt *), (A, tol, max_it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetFirstTouch - Sets whether the products multiply copies of the matrix blocks whose
  memory pages were first touched by the threads that read them (NUMA placement)

  Logically Collective

  Input Parameters:
+ A   - the matrix (ignored unless it is `MATAIJHYBRID`)
- flg - `PETSC_TRUE` to place the copies, `PETSC_FALSE` (default) to multiply AIJ's own arrays

  Options Database Key:
. -mat_aijhybrid_first_touch <bool> - first touch

  Level: advanced

  Notes:
  On a machine with several memory domains (NUMA nodes) per rank, Linux places a memory page in the
  domain of the thread that first writes it. PETSc's AIJ arrays are written by the main thread,
  so they all land in its domain. With first touch, the products use a copy of each block (and
  `MatCreateVecs()` makes vectors) whose rows were first written by the thread that multiplies
  them, with the thread partition in force. The copy costs the memory of the matrix again and a
  copy of the values whenever they change; its placement follows the partition (it is placed
  again when the partition, the thread count or the mode changes). Results are identical with
  and without it. With one memory domain per rank it has no use.

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetFirstTouch()`, `MatAIJHybridSetNumThreads()`
@*/
PetscErrorCode MatAIJHybridSetFirstTouch(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, flg, 2);
  PetscTryMethod(A, "MatAIJHybridSetFirstTouch_C", (Mat, PetscBool), (A, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetFirstTouch - Gets whether the products multiply first-touched copies of the blocks

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. flg - `PETSC_TRUE` if first touch is on

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetFirstTouch()`
@*/
PetscErrorCode MatAIJHybridGetFirstTouch(Mat A, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetFirstTouch_C", (Mat, PetscBool *), (A, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetPrefetch - Sets how far ahead, in nonzeros, the forward products (`MatMult()`,
  `MatMultAdd()`) of an `MATAIJHYBRID` matrix ask for the matrix entries with software prefetch

  Logically Collective

  Input Parameters:
+ A        - the matrix (ignored unless it is `MATAIJHYBRID`)
- distance - the distance in nonzeros, 0 to turn software prefetch off, or `PETSC_DECIDE` (-1, the
             default) to choose per rank between 0 and 512 from measured products

  Options Database Key:
. -mat_aijhybrid_prefetch <distance> - the distance, 0 for none, -1 for measured

  Level: advanced

  Notes:
  Before each row, a thread asks for the cache lines of the values and column indices up to
  `distance` nonzeros past the end of the row, each line once. Where the hardware prefetchers do
  not keep up with the streams of a CSR product (short rows, regular column access) this can make
  the product faster; where the x accesses are irregular it can make it slower (docs/matrix.md,
  "Products"). So by default each
  rank measures, in pairs of products one without and one with a distance of 512 (in alternating
  order, after one warm-up pair), and turns prefetch on only when the product without takes more
  than 1.05 times the one with in at least 13 of 16 pairs (a sign test: the probability of turning
  it on when it is not faster by that much is at most 0.05 over all trials); otherwise the next 16
  pairs are measured at once and the test counts all pairs so far (23 of 32, then 32 of 48), 3
  trials at most, and it stays off if none decides: the choice is settled within 98 products. In
  task mode the trial waits until thread 0's share is chosen (`MatAIJHybridSetTaskShare()`). It
  starts again when the thread count, the mode or the nonzero pattern changes. Results do not
  depend on it. The transpose products do not prefetch.

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetPrefetch()`
@*/
PetscErrorCode MatAIJHybridSetPrefetch(Mat A, PetscInt distance)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, distance, 2);
  PetscTryMethod(A, "MatAIJHybridSetPrefetch_C", (Mat, PetscInt), (A, distance));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetPrefetch - Gets the software prefetch distance of the forward products

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ distance - what was set: the distance in nonzeros (0: none), or -1 for measured
- in_use   - the distance in force on this rank: the one set, or the one chosen, or -1 while it is
             being measured (or waits to be); may be `NULL`

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetPrefetch()`
@*/
PetscErrorCode MatAIJHybridGetPrefetch(Mat A, PetscInt *distance, PetscInt *in_use)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetPrefetch_C", (Mat, PetscInt *, PetscInt *), (A, distance, in_use));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetTaskShare - Sets how much of the diagonal block thread 0 multiplies in task mode,
  after it has driven the halo exchange

  Logically Collective

  Input Parameters:
+ A     - the matrix (ignored unless it is `MATAIJHYBRID`)
- share - a fraction in [0, 1] of an equal part (0: thread 0 only communicates; 1: it takes as
          many rows as each other thread), or `PETSC_DETERMINE` (-1, the default) to size it from
          the measured times

  Options Database Key:
. -mat_aijhybrid_task_share <s> - the share, or -1 for measured

  Level: advanced

  Note:
  Measured (the default): the first 16 products run with share 1, then a share is sized as
  1 - (T-1) C / D from the measured exchange time C of thread 0 and diagonal time D summed over the
  T threads, so that thread 0 would finish its exchange and its rows when the others finish theirs;
  it is sized again, at most 4 times, until it settles. Then the sized share is compared with
  share 1 in pairs of products, as `MatAIJHybridSetPrefetch()` compares prefetch: it is taken only
  when faster by that margin in at least 13 of 16 pairs, otherwise share 1 stays (the next 16 pairs
  measured at once and counted with the earlier ones, 3 trials at most). With
  `-mat_aijhybrid_first_touch` the two are not compared (the copies of the block would be placed
  anew at each product) and share 1 stays. Results do not
  depend on the share.

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetTaskShare()`, `MatAIJHybridSetMode()`
@*/
PetscErrorCode MatAIJHybridSetTaskShare(Mat A, PetscReal share)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveReal(A, share, 2);
  PetscTryMethod(A, "MatAIJHybridSetTaskShare_C", (Mat, PetscReal), (A, share));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetTaskShare - Gets the share of the diagonal block thread 0 multiplies in task mode

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameters:
+ share  - what was set: a fraction in [0, 1], or -1 for measured
- in_use - the share in force on this rank (the one set, or the one chosen), or -1 while it is
           being sized or compared; may be `NULL`

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetTaskShare()`
@*/
PetscErrorCode MatAIJHybridGetTaskShare(Mat A, PetscReal *share, PetscReal *in_use)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetTaskShare_C", (Mat, PetscReal *, PetscReal *), (A, share, in_use));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetNodeAware - Makes the halo exchange of an `MATMPIAIJHYBRID` matrix a node-aware `PetscSF` (`PETSCSFNODEAWARE`)

  Logically Collective

  Input Parameters:
+ A   - the matrix (ignored unless it is `MATAIJHYBRID`)
- flg - `PETSC_TRUE` for a `PETSCSFNODEAWARE` halo `PetscSF`; `PETSC_FALSE` (default): the type `-sf_type` gives (default `PETSCSFBASIC`)

  Options Database Key:
. -mat_aijhybrid_node_aware - make the halo exchange node-aware

  Level: intermediate

  Notes:
  What the ranks of node N need from the ranks of node M is gathered on one rank of M, sent as one
  message to one rank of N and redistributed there; data from the same node goes directly. The node
  pairs are spread over the ranks of each node. `MatMult()`, `MatMultAdd()` (broadcast) and
  `MatMultTranspose()`, `MatMultTransposeAdd()` (reduction, add) use it in both modes; results are
  bitwise identical to a basic `PetscSF`. `-sf_type nodeaware` does the same for this matrix and for
  every other `PetscSF` of the application (`MATMPIAIJ`'s products, DM ghost updates, `VecScatter`).
  The `PetscSF` is built again, collectively, at the next assembly or product.

.seealso: `MATAIJHYBRID`, `PETSCSFNODEAWARE`, `MatAIJHybridGetNodeAware()`, `MatAIJHybridSetNodeSize()`, `MatAIJHybridGetHaloSF()`, `MatAIJHybridGetExchangeStats()`
@*/
PetscErrorCode MatAIJHybridSetNodeAware(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, flg, 2);
  PetscTryMethod(A, "MatAIJHybridSetNodeAware_C", (Mat, PetscBool), (A, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetNodeAware - Gets whether the halo exchange of an `MATAIJHYBRID` matrix is made node-aware by `MatAIJHybridSetNodeAware()`

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. flg - `PETSC_TRUE` when set (with `PETSC_FALSE`, `-sf_type nodeaware` may still make it node-aware: see `MatAIJHybridGetHaloSF()`)

  Level: intermediate

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetNodeAware()`, `MatAIJHybridGetHaloSF()`
@*/
PetscErrorCode MatAIJHybridGetNodeAware(Mat A, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetNodeAware_C", (Mat, PetscBool *), (A, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetNodeSize - Sets the nodes of the matrix's halo `PetscSF` when it is node-aware

  Logically Collective

  Input Parameters:
+ A - the matrix (ignored unless it is `MATAIJHYBRID`)
- k - k > 0 emulates nodes of k consecutive ranks (the last node may be smaller); 0 or `PETSC_DEFAULT`
      (default) leaves it to the `PetscSF` (`-sf_nodeaware_node_size`, default the nodes
      `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` finds)

  Options Database Key:
. -mat_aijhybrid_node_size <k> - node size

  Level: advanced

  Note:
  Emulated nodes test and measure the node-aware path on one machine. The same as
  `PetscSFNodeAwareSetNodeSize()` on the matrix's halo `PetscSF`, kept across its rebuilds.

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetNodeSize()`, `MatAIJHybridSetNodeAware()`
@*/
PetscErrorCode MatAIJHybridSetNodeSize(Mat A, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, k, 2);
  PetscTryMethod(A, "MatAIJHybridSetNodeSize_C", (Mat, PetscInt), (A, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetNodeSize - Gets the node size set with `MatAIJHybridSetNodeSize()`

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. k - ranks per emulated node, or 0 when left to the `PetscSF`

  Level: advanced

.seealso: `MATAIJHYBRID`, `MatAIJHybridSetNodeSize()`, `PetscSFNodeAwareGetNodeSize()`
@*/
PetscErrorCode MatAIJHybridGetNodeSize(Mat A, PetscInt *k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetNodeSize_C", (Mat, PetscInt *), (A, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetSORSerial - Makes `MatSOR()` of an `MATAIJHYBRID` matrix run AIJ's own (serial) sweeps
  instead of the thread-local ones

  Logically Collective

  Input Parameters:
+ A      - the matrix
- serial - `PETSC_TRUE` for AIJ's sweeps (results identical to `MATAIJ`), `PETSC_FALSE` (default)
           for thread-local sweeps: each thread's block of rows swept with the other blocks' values
           from the previous sweep, as `MATMPIAIJ` does across ranks

  Options Database Key:
. -mat_aijhybrid_sor_serial - use AIJ's sweeps

  Level: intermediate

  Note:
  With one thread `MatSOR()` is AIJ's either way. The thread-local sweeps give the same result
  for a given thread count and partition (`-mat_aijhybrid_partition`), whatever the timing.

.seealso: `MATAIJHYBRID`, `MatSOR()`, `PCSOR`, `PCEISENSTAT`, `MatAIJHybridGetSORSerial()`
@*/
PetscErrorCode MatAIJHybridSetSORSerial(Mat A, PetscBool serial)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, serial, 2);
  PetscTryMethod(A, "MatAIJHybridSetSORSerial_C", (Mat, PetscBool), (A, serial));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetSORSerial - Tells whether `MatSOR()` of an `MATAIJHYBRID` matrix runs AIJ's own sweeps

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. serial - `PETSC_TRUE` for AIJ's sweeps, `PETSC_FALSE` for thread-local sweeps

  Level: intermediate

.seealso: `MatAIJHybridSetSORSerial()`
@*/
PetscErrorCode MatAIJHybridGetSORSerial(Mat A, PetscBool *serial)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetSORSerial_C", (Mat, PetscBool *), (A, serial));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetFactorBlocks - Chooses what the ILU/ICC factorizations of an `MATAIJHYBRID` matrix factor:
  the whole matrix, or the diagonal block of each thread's rows, as `PCBJACOBI` does across ranks

  Logically Collective

  Input Parameters:
+ A      - the matrix
- blocks - `MAT_AIJHYBRID_FACTOR_BLOCKS_NONE` (default): the exact factorization of the matrix, with
           level-scheduled threaded solves; `MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD`: the factorization of its
           block-diagonal part, one block of consecutive rows per thread, each block's numeric
           factorization and solves run by its thread independently of the others

  Options Database Key:
. -mat_aijhybrid_factor_blocks <none,thread> - what ILU/ICC factor

  Level: intermediate

  Notes:
  The blocks split the rows as `PetscSplitOwnership()` splits them over ranks, so on one rank with T
  threads `PCILU`/`PCICC` give the preconditioner of `PCBJACOBI` with ILU/ICC blocks on T ranks
  (the same iteration counts); on R ranks, each rank's diagonal block (`PCBJACOBI`'s) is split again
  over its threads. A weaker preconditioner than the exact factorization (the couplings between
  the blocks are dropped) whose solves need no synchronisation: see the documentation of the
  preconditioners for when to choose which. It applies to factors made after it is set, of the
  matrix, of its diagonal block (`MatGetDiagonalBlock()`) and of its sub-matrices
  (`MatCreateSubMatrices()`); with one thread, or an ordering that moves rows between blocks, see
  `MatAIJHybridGetFactorInfo()`.

.seealso: `MATAIJHYBRID`, `MatAIJHybridGetFactorBlocks()`, `MatAIJHybridGetFactorInfo()`, `PCILU`, `PCICC`, `PCBJACOBI`
@*/
PetscErrorCode MatAIJHybridSetFactorBlocks(Mat A, MatAIJHybridFactorBlocks blocks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, blocks, 2);
  PetscTryMethod(A, "MatAIJHybridSetFactorBlocks_C", (Mat, MatAIJHybridFactorBlocks), (A, blocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridGetFactorBlocks - Tells what the ILU/ICC factorizations of an `MATAIJHYBRID` matrix factor

  Not Collective

  Input Parameter:
. A - the matrix

  Output Parameter:
. blocks - `MAT_AIJHYBRID_FACTOR_BLOCKS_NONE` or `MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD`

  Level: intermediate

.seealso: `MatAIJHybridSetFactorBlocks()`
@*/
PetscErrorCode MatAIJHybridGetFactorBlocks(Mat A, MatAIJHybridFactorBlocks *blocks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscUseMethod(A, "MatAIJHybridGetFactorBlocks_C", (Mat, MatAIJHybridFactorBlocks *), (A, blocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}
