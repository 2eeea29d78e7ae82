/*
   The aijhybrid context shared by seqaijhybrid and mpiaijhybrid: options and their Set/Get API,
   the cached thread partitions and transpose patterns, and the lines added to MatView.
*/
#include "../aijhybrid.h"
#include <petscviewer.h>

const char *const MatAIJHybridModes[]          = {"auto", "vector", "task", "MatAIJHybridMode", "MAT_AIJHYBRID_MODE_", NULL};
const char *const MatAIJHybridPartitionTypes[] = {"rows", "nnz", "diffusion", "optimal", "MatAIJHybridPartitionType", "MAT_AIJHYBRID_PARTITION_", NULL};

#define AIJHYBRID_DEFAULT_ROW_COST      2.0
#define AIJHYBRID_DEFAULT_DIFFUSION_TOL 0.01
#define AIJHYBRID_DEFAULT_DIFFUSION_IT  50

static PetscInt DefaultNumThreads(void)
{
  return (PetscInt)omp_get_max_threads();
}

PetscErrorCode MatAIJHybridContextCreate(Mat A, Mat_AIJHybrid **ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(ctx));
  (*ctx)->parentops               = *A->ops;
  (*ctx)->params.nthreads         = DefaultNumThreads();
  (*ctx)->params.type             = MAT_AIJHYBRID_PARTITION_NNZ;
  (*ctx)->params.row_cost         = AIJHYBRID_DEFAULT_ROW_COST;
  (*ctx)->params.diffusion_tol    = AIJHYBRID_DEFAULT_DIFFUSION_TOL;
  (*ctx)->params.diffusion_max_it = AIJHYBRID_DEFAULT_DIFFUSION_IT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridRowPartReset(AIJHybridRowPart *p)
{
  PetscFunctionBegin;
  if (p->owns_ref) PetscCall(MatDestroy(&p->block));
  p->block    = NULL;
  p->owns_ref = PETSC_FALSE;
  PetscCall(PetscFree(p->rows));
  PetscCall(PetscFree(p->rowptr));
  PetscCall(PetscFree(p->bounds));
  p->nrows = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridTransposeReset(AIJHybridTranspose *t)
{
  PetscFunctionBegin;
  if (t->owns_ref) PetscCall(MatDestroy(&t->block));
  t->block    = NULL;
  t->owns_ref = PETSC_FALSE;
  PetscCall(PetscFree3(t->ti, t->tj, t->perm));
  PetscCall(MatAIJHybridRowPartReset(&t->part));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridContextDestroy(Mat_AIJHybrid **ctx)
{
  PetscFunctionBegin;
  if (!*ctx) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatAIJHybridRowPartReset(&(*ctx)->diag));
  PetscCall(MatAIJHybridRowPartReset(&(*ctx)->offd));
  PetscCall(MatAIJHybridRowPartReset(&(*ctx)->diag_task));
  PetscCall(MatAIJHybridTransposeReset(&(*ctx)->tdiag));
  PetscCall(MatAIJHybridTransposeReset(&(*ctx)->toffd));
  PetscCall(AIJHybridHaloDestroy(&(*ctx)->halo));
  PetscCall(MatDestroy(&(*ctx)->halo_block));
  PetscCall(PetscFree2((*ctx)->ghost, (*ctx)->ghost_t));
  PetscCall(PetscFree((*ctx)->tstat));
  PetscCall(PetscFree(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridContextCopyOptions(Mat_AIJHybrid *from, Mat_AIJHybrid *to)
{
  PetscFunctionBegin;
  to->params       = from->params;
  to->mode         = from->mode;
  to->nthreads_set = from->nthreads_set;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* parameters in force now: the thread count follows OpenMP unless the user set it */
PetscErrorCode MatAIJHybridContextCurrentParams(Mat_AIJHybrid *ctx, AIJHybridPartParams *params)
{
  PetscFunctionBegin;
  if (!ctx->nthreads_set) ctx->params.nthreads = DefaultNumThreads();
  *params = ctx->params;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool SameParams(const AIJHybridPartParams *a, const AIJHybridPartParams *b)
{
  return (PetscBool)(a->nthreads == b->nthreads && a->type == b->type && a->row_cost == b->row_cost && a->diffusion_tol == b->diffusion_tol && a->diffusion_max_it == b->diffusion_max_it);
}

/* compute p->bounds for n rows with cumulative nonzeros rowptr */
static PetscErrorCode RowPartBuildBounds(AIJHybridRowPart *p, PetscInt n, const PetscInt *rowptr, const AIJHybridPartParams *params)
{
  const PetscInt T = params->nthreads;
  AIJHybridCost  cost;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Partition, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscFree(p->bounds));
  PetscCall(PetscMalloc1(T + 1, &p->bounds));
  cost.n      = n;
  cost.rowptr = rowptr;
  cost.c      = params->type == MAT_AIJHYBRID_PARTITION_ROWS ? 1.0 : params->row_cost;
  p->sweeps   = 0;
  if (n == 0) {
    for (PetscInt t = 0; t <= T; t++) p->bounds[t] = 0;
  } else {
    switch (params->type) {
    case MAT_AIJHYBRID_PARTITION_ROWS:
      PetscCall(AIJHybridPartitionRows(n, T, p->bounds));
      break;
    case MAT_AIJHYBRID_PARTITION_NNZ:
      PetscCall(AIJHybridPartitionGreedy(&cost, T, p->bounds));
      break;
    case MAT_AIJHYBRID_PARTITION_DIFFUSION:
      PetscCall(AIJHybridPartitionDiffusion(&cost, T, params->diffusion_tol, params->diffusion_max_it, p->bounds, &p->sweeps));
      break;
    case MAT_AIJHYBRID_PARTITION_OPTIMAL:
      PetscCall(AIJHybridPartitionOptimal(&cost, T, p->bounds));
      break;
    }
  }
  /* imbalance is always reported in nonzeros + row cost, the quantity the kernel streams */
  cost.c = params->row_cost;
  if (n > 0) PetscCall(AIJHybridPartitionImbalance(&cost, T, p->bounds, &p->imbalance));
  else p->imbalance = 1.0;
  p->params = *params;
  p->nrows  = n;
  PetscCall(PetscTime(&t1));
  p->build_time = t1 - t0;
  p->builds++;
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Partition, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BlockCSR(Mat block, PetscInt *m, const PetscInt **ai, const PetscInt **aj, PetscObjectState *state)
{
  PetscFunctionBegin;
  *m = block->rmap->n;
  PetscCall(MatGetNonzeroState(block, state));
  PetscCall(MatSeqAIJGetCSRAndMemType(block, ai, aj, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridRowPartUpdate - (re)build the thread partition of block's rows if the block, its
  nonzero pattern or the parameters changed since it was built; otherwise nothing. Local, cheap
  when valid (a few comparisons), so it is safe to call before every product.

  A is the matrix owning the context: a block other than A is referenced so that its address
  cannot be reused by a new block while the cache remembers it.
*/
PetscErrorCode MatAIJHybridRowPartUpdate(AIJHybridRowPart *p, Mat A, Mat block, PetscBool compressed, const AIJHybridPartParams *params)
{
  const PetscInt  *ai, *aj;
  PetscInt         m, nz;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(BlockCSR(block, &m, &ai, &aj, &state));
  nz = m ? ai[m] : 0;
  if (p->bounds && p->block == block && p->nzstate == state && p->m == m && p->nz == nz && p->compressed == compressed && SameParams(&p->params, params)) PetscFunctionReturn(PETSC_SUCCESS);
  if (p->block != block || p->nzstate != state || p->m != m || p->nz != nz || p->compressed != compressed) {
    PetscInt builds = p->builds;

    PetscCall(MatAIJHybridRowPartReset(p));
    p->builds = builds;
    if (block != A) {
      PetscCall(PetscObjectReference((PetscObject)block));
      p->owns_ref = PETSC_TRUE;
    }
    p->block      = block;
    p->nzstate    = state;
    p->m          = m;
    p->nz         = nz;
    p->compressed = compressed;
    if (compressed) {
      PetscInt k = 0;
      for (PetscInt i = 0; i < m; i++)
        if (ai[i + 1] > ai[i]) k++;
      PetscCall(PetscMalloc1(k, &p->rows));
      PetscCall(PetscMalloc1(k + 1, &p->rowptr));
      k = 0;
      for (PetscInt i = 0; i < m; i++)
        if (ai[i + 1] > ai[i]) {
          p->rows[k]   = i;
          p->rowptr[k] = ai[i];
          k++;
        }
      p->rowptr[k] = nz;
      p->nrows     = k;
    }
  }
  PetscCall(RowPartBuildBounds(p, compressed ? p->nrows : m, compressed ? p->rowptr : ai, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridTransposeUpdate - (re)build the CSC pattern of block (entries of each column in
  increasing row order, so each transposed sum runs in the order SeqAIJ's transpose uses) and the
  thread partition of its columns. Values are read through perm from the block at product time,
  so changed values need no rebuild.
*/
PetscErrorCode MatAIJHybridTransposeUpdate(AIJHybridTranspose *t, Mat A, Mat block, const AIJHybridPartParams *params)
{
  const PetscInt  *ai, *aj;
  PetscInt         m, n = block->cmap->n, nz;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(BlockCSR(block, &m, &ai, &aj, &state));
  nz = m ? ai[m] : 0;
  if (!(t->ti && t->block == block && t->nzstate == state && t->m == m && t->n == n && t->nz == nz)) {
    PetscInt *fill;

    PetscCall(MatAIJHybridTransposeReset(t));
    if (block != A) {
      PetscCall(PetscObjectReference((PetscObject)block));
      t->owns_ref = PETSC_TRUE;
    }
    t->block   = block;
    t->nzstate = state;
    t->m       = m;
    t->n       = n;
    t->nz      = nz;
    PetscCall(PetscLogEventBegin(MATAIJHYBRID_Partition, 0, 0, 0, 0));
    PetscCall(PetscMalloc3(n + 1, &t->ti, nz, &t->tj, nz, &t->perm));
    PetscCall(PetscArrayzero(t->ti, n + 1));
    for (PetscInt k = 0; k < nz; k++) t->ti[aj[k] + 1]++;
    for (PetscInt c = 0; c < n; c++) t->ti[c + 1] += t->ti[c];
    PetscCall(PetscMalloc1(n, &fill));
    PetscCall(PetscArraycpy(fill, t->ti, n));
    for (PetscInt i = 0; i < m; i++) {
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        const PetscInt pos = fill[aj[k]]++;
        t->tj[pos]         = i;
        t->perm[pos]       = k;
      }
    }
    PetscCall(PetscFree(fill));
    PetscCall(PetscLogEventEnd(MATAIJHYBRID_Partition, 0, 0, 0, 0));
    PetscCall(PetscFree(t->part.bounds)); /* force the column partition to be rebuilt */
  }
  if (!t->part.bounds || !SameParams(&t->part.params, params)) PetscCall(RowPartBuildBounds(&t->part, n, t->ti, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridSetFromOptions_Private(Mat A, AIJHybridOptionItems PetscOptionsObject, Mat_AIJHybrid *ctx)
{
  PetscInt  nthreads = ctx->params.nthreads, maxit = ctx->params.diffusion_max_it;
  PetscEnum type     = (PetscEnum)ctx->params.type, mode;
  PetscReal rc = ctx->params.row_cost, tol = ctx->params.diffusion_tol;
  PetscBool set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "AIJHybrid options (hybrid MPI/OpenMP products)");
  PetscCall(PetscOptionsInt("-mat_aijhybrid_num_threads", "OpenMP threads per MPI rank for products (default: what OpenMP gives the process)", "MatAIJHybridSetNumThreads", nthreads, &nthreads, &set));
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

/* (re)allocate and zero the per-thread statistics when the thread count or the mode changes */
PetscErrorCode MatAIJHybridThreadStatsPrepare(Mat_AIJHybrid *ctx, PetscInt T, MatAIJHybridMode mode)
{
  PetscFunctionBegin;
  if (ctx->tstat && ctx->tstat_T == T && ctx->tstat_mode == mode) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(ctx->tstat));
  PetscCall(PetscCalloc1(AIJHYBRID_TSTAT_STRIDE * T, &ctx->tstat));
  ctx->tstat_T    = T;
  ctx->tstat_mode = mode;
  ctx->nprod      = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the mode a product runs in: task needs >= 2 threads, an off-process part somewhere, and MPI_THREAD_FUNNELED */
MatAIJHybridMode MatAIJHybridEffectiveMode(Mat_AIJHybrid *ctx, PetscInt nthreads)
{
  if (nthreads < 2 || !ctx->has_offproc || MatAIJHybrid_MPIThreadLevel < MPI_THREAD_FUNNELED) return MAT_AIJHYBRID_MODE_VECTOR;
  return ctx->mode == MAT_AIJHYBRID_MODE_VECTOR ? MAT_AIJHYBRID_MODE_VECTOR : MAT_AIJHYBRID_MODE_TASK;
}

PetscErrorCode MatAIJHybridView_Private(Mat A, PetscViewer viewer, Mat_AIJHybrid *ctx)
{
  PetscBool         iascii;
  PetscViewerFormat format;
  PetscMPIInt       size, rank;
  PetscReal         imb[2], gimb[2];
  const char       *level = "unknown";

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  switch (MatAIJHybrid_MPIThreadLevel) {
  case MPI_THREAD_SINGLE:
    level = "MPI_THREAD_SINGLE";
    break;
  case MPI_THREAD_FUNNELED:
    level = "MPI_THREAD_FUNNELED";
    break;
  case MPI_THREAD_SERIALIZED:
    level = "MPI_THREAD_SERIALIZED";
    break;
  case MPI_THREAD_MULTIPLE:
    level = "MPI_THREAD_MULTIPLE";
    break;
  }
  imb[0] = ctx->diag.bounds ? ctx->diag.imbalance : 1.0;
  imb[1] = ctx->offd.bounds ? ctx->offd.imbalance : 1.0;
  PetscCallMPI(MPI_Allreduce(imb, gimb, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: %" PetscInt_FMT " OpenMP threads per rank, mode %s, partition %s (row cost %g), MPI thread level %s\n", ctx->params.nthreads, MatAIJHybridModes[MatAIJHybridEffectiveMode(ctx, ctx->params.nthreads)], MatAIJHybridPartitionTypes[ctx->params.type], (double)ctx->params.row_cost, level));
  if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: load imbalance (max/mean cost per thread, worst rank): diagonal block %.4g, off-diagonal block %.4g\n", (double)gimb[0], (double)gimb[1]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "AIJHybrid: load imbalance (max/mean cost per thread): %.4g\n", (double)gimb[0]));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
    char   line[4096];
    size_t len;

    PetscCall(PetscSNPrintf(line, sizeof(line), "[%d] rows %" PetscInt_FMT ": diagonal imbalance %.4g (%" PetscInt_FMT " sweeps, built %" PetscInt_FMT " times, last in %.3g s)", rank, A->rmap->n, (double)imb[0], ctx->diag.sweeps, ctx->diag.builds, (double)ctx->diag.build_time));
    if (size > 1) {
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, ", off-diagonal %" PetscInt_FMT " non-empty rows, imbalance %.4g, %" PetscInt_FMT " ghosts", ctx->offd.nrows, (double)imb[1], ctx->halo_nghost));
    }
    PetscCall(PetscStrlcat(line, "; thread row bounds:", sizeof(line)));
    for (PetscInt t = 0; ctx->diag.bounds && t <= ctx->diag.params.nthreads; t++) {
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %" PetscInt_FMT, ctx->diag.bounds[t]));
    }
    if (ctx->tstat && ctx->nprod) {
      const PetscInt T = ctx->tstat_T;
      double         busy, mx = 0, sum = 0, comm = ctx->tstat[AIJHYBRID_TSTAT_COMM], dmax = 0;

      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "\n[%d] %" PetscInt_FMT " products (%s mode); busy ms per product by thread (halo exchange + diagonal + off-diagonal):", rank, ctx->nprod, MatAIJHybridModes[ctx->tstat_mode]));
      for (PetscInt t = 0; t < T; t++) {
        const double *tt = ctx->tstat + AIJHYBRID_TSTAT_STRIDE * t;
        busy             = tt[AIJHYBRID_TSTAT_DIAG] + tt[AIJHYBRID_TSTAT_OFFD] + tt[AIJHYBRID_TSTAT_COMM];
        mx               = PetscMax(mx, busy);
        sum += busy;
        dmax = PetscMax(dmax, tt[AIJHYBRID_TSTAT_DIAG]);
        PetscCall(PetscStrlen(line, &len));
        PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, " %.4g", 1e3 * busy / ctx->nprod));
      }
      PetscCall(PetscStrlen(line, &len));
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "; measured imbalance %.3g", sum > 0 ? mx / (sum / T) : 1.0));
      if (ctx->tstat_mode == MAT_AIJHYBRID_MODE_TASK && comm > 0) {
        PetscCall(PetscStrlen(line, &len));
        PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "; halo exchange %.4g ms against diagonal block %.4g ms per product: %.0f%% of the exchange hidden", 1e3 * comm / ctx->nprod, 1e3 * dmax / ctx->nprod, 100.0 * PetscMin(comm, dmax) / comm));
      }
    }
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "%s\n", line));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
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
  *ctx = flg ? MatAIJHybridGetContext(A) : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatAIJHybridSetNumThreads - Sets the number of OpenMP threads each rank uses for the products of an `MATAIJHYBRID` matrix

  Logically Collective

  Input Parameters:
+ A        - the matrix (ignored unless it is `MATAIJHYBRID`)
- nthreads - number of threads, at least 1, or `PETSC_DEFAULT` for what OpenMP gives the process

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
    ctx->params.nthreads = DefaultNumThreads();
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
