/*
   VECHYBRID ("hybrid" -> "seqhybrid" / "mpihybrid"): a VECSEQ / VECMPI vector whose operations run
   with OpenMP threads inside each rank (src/vec/ops.c).

   A hybrid vector is made by the standard constructor (same storage: every routine that reads a
   standard vector's array reads this one), then given a context (threads, the threads' parts of the
   entries, the threshold below which an operation stays on the calling thread) in a composed
   container, its operations, and its type name. Duplicates keep the type and the settings.
*/
#include "vechybrid.h"
#include <sys/mman.h>
#include <unistd.h>

static const char VecHybridContextName[] = "VecHybrid_Context";

/* the settings of the next hybrid vector this package makes (VecDuplicate(), VecCreateHybridWithLayout()), or NULL */
static const Vec_Hybrid *VecHybridTemplate = NULL;
static PetscInt          VecHybridCreated  = 0; /* hybrid contexts installed: tells whether a parent's duplicate ran our create */

PetscErrorCode VecHybridGetContext(Vec v, Vec_Hybrid **ctx)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)v, VecHybridContextName, (PetscObject *)&c));
  PetscCheck(c, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_WRONG, "Vector of type %s has no hybrid context", ((PetscObject)v)->type_name);
  PetscCall(PetscContainerGetPointer(c, (void **)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the thread count in force: the default follows OpenMP unless a count was set (the parts were for the old count) */
static PetscErrorCode VecHybridUpdateThreads(Vec_Hybrid *ctx)
{
  PetscFunctionBegin;
  if (!ctx->nthreads_set && ctx->nthreads != AIJHybridDefaultNumThreads()) {
    ctx->nthreads = AIJHybridDefaultNumThreads();
    PetscCall(PetscFree(ctx->bounds));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* how an operation on v runs now */
PetscErrorCode VecHybridGetRun(Vec v, VecHybridRun *run)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  PetscCall(VecHybridUpdateThreads(ctx));
  run->n        = v->map->n;
  run->T        = ctx->nthreads;
  run->bounds   = ctx->bounds;
  run->threaded = (PetscBool)(run->T > 1 && run->n >= ctx->threshold);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an entry-wise map of the whole local range, on the threads of run (or on the calling thread) */
PetscErrorCode VecHybridRunMap(const VecHybridRun *run, const AIJHybridVecMapArgs *args)
{
  PetscFunctionBegin;
  if (!run->threaded) {
    AIJHybridVecMapRange(args, 0, run->n);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#pragma omp parallel num_threads(run->T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt t = omp_get_thread_num(); t < run->T; t += nth) {
      PetscInt s, e;
      VecHybridRunPart(run, t, &s, &e);
      AIJHybridVecMapRange(args, s, e);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the array v owns (NULL when it has none, or when a user's array was placed or given at creation) */
static PetscScalar *VecHybridOwnArray(Vec v)
{
  PetscScalar **hdr = (PetscScalar **)v->data; /* a standard vector's data starts with VECHEADER: array, array_allocated, unplacedarray */

  if (!v->petscnative || !hdr || !hdr[0] || hdr[0] != hdr[1]) return NULL;
  return hdr[0];
}

/*
  First touch: Linux places a page in the memory of the NUMA domain of the thread that first writes
  it. The standard constructor allocated (and zeroed) the array on the main thread; here the whole
  pages inside the array are given back (madvise MADV_DONTNEED: their next write maps a fresh page)
  and every thread writes its own part again: the entries it reads in the operations. keep: copy the
  values back (else they are zero, as after creation).
*/
static PetscErrorCode VecHybridPlace(Vec v, Vec_Hybrid *ctx, PetscBool keep)
{
  PetscScalar *a = VecHybridOwnArray(v), *copy = NULL;
  VecHybridRun run;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t    lo, hi;

  PetscFunctionBegin;
  if (!ctx->first_touch || !a) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecHybridGetRun(v, &run));
  lo = ((uintptr_t)a + page - 1) / page * page;
  hi = ((uintptr_t)(a + run.n)) / page * page;
  if (run.T < 2 || hi <= lo) PetscFunctionReturn(PETSC_SUCCESS);
  if (keep) {
    PetscCall(PetscMalloc1(run.n, &copy));
    PetscCall(PetscArraycpy(copy, a, run.n));
  }
  PetscCheck(!madvise((void *)lo, hi - lo, MADV_DONTNEED), PETSC_COMM_SELF, PETSC_ERR_SYS, "madvise(MADV_DONTNEED) failed for the first touch of a hybrid vector");
#pragma omp parallel num_threads(run.T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt t = omp_get_thread_num(); t < run.T; t += nth) {
      PetscInt s, e;
      VecHybridRunPart(&run, t, &s, &e);
      if (copy) memcpy(a + s, copy + s, sizeof(PetscScalar) * (size_t)(e - s));
      else memset(a + s, 0, sizeof(PetscScalar) * (size_t)(e - s));
    }
  }
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridContextDestroy(void *arg)
{
  Vec_Hybrid *ctx = (Vec_Hybrid *)AIJHybridContainerContext(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree(ctx->bounds));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridCheckNumThreads(Vec v, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscCheck(nthreads == PETSC_DEFAULT || nthreads == PETSC_DECIDE || (nthreads >= 1 && nthreads <= AIJHYBRID_MAX_THREADS), PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_OUTOFRANGE, "Invalid number of threads %" PetscInt_FMT " for -vec_hybrid_num_threads: expected an integer from 1 to %d, or -1 (PETSC_DECIDE) for the default", nthreads, AIJHYBRID_MAX_THREADS);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridSetNumThreads_Hybrid(Vec v, PetscInt nthreads)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridCheckNumThreads(v, nthreads));
  PetscCall(VecHybridGetContext(v, &ctx));
  if (nthreads == PETSC_DEFAULT || nthreads == PETSC_DECIDE) {
    ctx->nthreads_set = PETSC_FALSE;
    PetscCall(VecHybridUpdateThreads(ctx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ctx->nthreads_set = PETSC_TRUE;
  if (nthreads != ctx->nthreads) {
    ctx->nthreads = nthreads;
    PetscCall(PetscFree(ctx->bounds)); /* equal parts */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridGetNumThreads_Hybrid(Vec v, PetscInt *nthreads)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  PetscCall(VecHybridUpdateThreads(ctx));
  *nthreads = ctx->nthreads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridSetPartition_Hybrid(Vec v, PetscInt nthreads, const PetscInt bounds[])
{
  Vec_Hybrid *ctx;
  PetscInt    n = v->map->n;

  PetscFunctionBegin;
  PetscCheck(nthreads >= 1 && nthreads <= AIJHYBRID_MAX_THREADS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Invalid number of threads %" PetscInt_FMT ": expected an integer from 1 to %d", nthreads, AIJHYBRID_MAX_THREADS);
  if (bounds) {
    PetscCheck(bounds[0] == 0 && bounds[nthreads] == n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The parts of the threads must go from 0 to the local length %" PetscInt_FMT ", not from %" PetscInt_FMT " to %" PetscInt_FMT, n, bounds[0], bounds[nthreads]);
    for (PetscInt t = 0; t < nthreads; t++) PetscCheck(bounds[t] <= bounds[t + 1], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The parts of the threads must not decrease: bounds[%" PetscInt_FMT "] = %" PetscInt_FMT " > bounds[%" PetscInt_FMT "] = %" PetscInt_FMT, t, bounds[t], t + 1, bounds[t + 1]);
  }
  PetscCall(VecHybridGetContext(v, &ctx));
  ctx->nthreads     = nthreads;
  ctx->nthreads_set = PETSC_TRUE;
  PetscCall(PetscFree(ctx->bounds));
  if (bounds) {
    PetscCall(PetscMalloc1(nthreads + 1, &ctx->bounds));
    PetscCall(PetscArraycpy(ctx->bounds, bounds, nthreads + 1));
  }
  PetscCall(VecHybridPlace(v, ctx, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridGetPartition_Hybrid(Vec v, PetscInt *nthreads, const PetscInt *bounds[])
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  PetscCall(VecHybridUpdateThreads(ctx));
  if (nthreads) *nthreads = ctx->nthreads;
  if (bounds) *bounds = ctx->bounds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridSetThreshold_Hybrid(Vec v, PetscInt threshold)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  if (threshold == PETSC_DEFAULT || threshold == PETSC_DECIDE) threshold = VECHYBRID_DEFAULT_THRESHOLD;
  PetscCheck(threshold >= 0, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_OUTOFRANGE, "Invalid threshold %" PetscInt_FMT " for -vec_hybrid_threshold: expected an integer >= 0 (a local length), or -1 for the default %d", threshold, VECHYBRID_DEFAULT_THRESHOLD);
  PetscCall(VecHybridGetContext(v, &ctx));
  ctx->threshold = threshold;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridGetThreshold_Hybrid(Vec v, PetscInt *threshold)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  *threshold = ctx->threshold;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridSetFirstTouch_Hybrid(Vec v, PetscBool flg)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  if (flg && !ctx->first_touch) {
    ctx->first_touch = PETSC_TRUE;
    PetscCall(VecHybridPlace(v, ctx, PETSC_TRUE));
  }
  ctx->first_touch = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridGetFirstTouch_Hybrid(Vec v, PetscBool *flg)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  *flg = ctx->first_touch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridComposeFunctions(Vec v, PetscBool on)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridSetNumThreads_C", on ? VecHybridSetNumThreads_Hybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridGetNumThreads_C", on ? VecHybridGetNumThreads_Hybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridSetPartition_C", on ? VecHybridSetPartition_Hybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridGetPartition_C", on ? VecHybridGetPartition_Hybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridSetThreshold_C", on ? VecHybridSetThreshold_Hybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridGetThreshold_C", on ? VecHybridGetThreshold_Hybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridSetFirstTouch_C", on ? VecHybridSetFirstTouch_Hybrid : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)v, "VecHybridGetFirstTouch_C", on ? VecHybridGetFirstTouch_Hybrid : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose a new context on v: a copy of from's settings, or the defaults and the options of v's prefix */
static PetscErrorCode VecHybridComposeContext(Vec v, const Vec_Hybrid *from, Vec_Hybrid **out)
{
  Vec_Hybrid    *ctx;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ctx));
  if (from) {
    ctx->nthreads     = from->nthreads;
    ctx->nthreads_set = from->nthreads_set;
    ctx->threshold    = from->threshold;
    ctx->first_touch  = from->first_touch;
    if (from->bounds && from->bounds[from->nthreads] == v->map->n) {
      PetscCall(PetscMalloc1(from->nthreads + 1, &ctx->bounds));
      PetscCall(PetscArraycpy(ctx->bounds, from->bounds, from->nthreads + 1));
    }
  } else {
    PetscOptions         options = ((PetscObject)v)->options;
    const char          *prefix  = ((PetscObject)v)->prefix;
    AIJHybridOptionValue T, threshold, ft;

    PetscCall(AIJHybridOptionGet(options, prefix, &VecHybridOptionTable, VECHYBRID_OPT_NUM_THREADS, &T));
    ctx->nthreads_set = (PetscBool)(T.set && T.i >= 1);
    ctx->nthreads     = ctx->nthreads_set ? T.i : AIJHybridDefaultNumThreads();
    PetscCall(AIJHybridOptionGet(options, prefix, &VecHybridOptionTable, VECHYBRID_OPT_THRESHOLD, &threshold));
    ctx->threshold = threshold.set && threshold.i >= 0 ? threshold.i : VECHYBRID_DEFAULT_THRESHOLD;
    PetscCall(AIJHybridOptionGet(options, prefix, &VecHybridOptionTable, VECHYBRID_OPT_FIRST_TOUCH, &ft));
    ctx->first_touch = ft.set ? (PetscBool)ft.i : (PetscBool)(AIJHybridNumaDomains() > 1);
  }
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, ctx));
  PetscCall(AIJHybridContainerSetDestroy(c, VecHybridContextDestroy));
  PetscCall(PetscObjectCompose((PetscObject)v, VecHybridContextName, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  if (out) *out = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridSetOps(Vec, Vec_Hybrid *);

static PetscErrorCode VecDuplicate_Hybrid(Vec x, Vec *y)
{
  Vec_Hybrid    *ctx, *yctx;
  PetscInt       created = VecHybridCreated;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(x, &ctx));
  /* the standard duplicate: VecDuplicate_Seq() makes the copy with VecSetType() (our create runs, with
     x's settings from the template), VecDuplicate_MPI() does not (the copy is named "mpi"); both copy
     x's composed objects, so the copy holds x's context, which is replaced by one of its own */
  VecHybridTemplate = ctx;
  ierr              = (*ctx->duplicate)(x, y);
  VecHybridTemplate = NULL;
  PetscCall(ierr);
  PetscCall(VecHybridComposeContext(*y, ctx, &yctx));
  yctx->standard       = ctx->standard;
  yctx->mpi            = ctx->mpi;
  yctx->duplicate      = ctx->duplicate;
  yctx->destroy        = ctx->destroy;
  yctx->view           = ctx->view;
  yctx->setfromoptions = ctx->setfromoptions;
  PetscCall(VecHybridSetOps(*y, yctx));
  if (!ctx->standard) PetscCall(PetscObjectChangeTypeName((PetscObject)*y, ((PetscObject)x)->type_name));
  if (VecHybridCreated == created) PetscCall(VecHybridPlace(*y, yctx, PETSC_FALSE)); /* our create did not run: place the fresh (zero) array */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDestroy_Hybrid(Vec v)
{
  Vec_Hybrid *ctx;
  PetscErrorCode (*destroy)(Vec);

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  destroy = ctx->destroy;
  PetscCall(VecHybridComposeFunctions(v, PETSC_FALSE));
  PetscCall(PetscObjectCompose((PetscObject)v, VecHybridContextName, NULL)); /* ctx freed */
  PetscCall((*destroy)(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecView_Hybrid(Vec v, PetscViewer viewer)
{
  Vec_Hybrid       *ctx;
  PetscBool         iascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) PetscCall(PetscViewerGetFormat(viewer, &format));
  if (iascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    VecHybridRun run;
    PetscInt     loc[4], glob[4], lo = PETSC_MAX_INT, hi = 0;

    PetscCall(VecHybridGetRun(v, &run));
    for (PetscInt t = 0; t < run.T; t++) {
      PetscInt s, e;
      VecHybridRunPart(&run, t, &s, &e);
      lo = PetscMin(lo, e - s);
      hi = PetscMax(hi, e - s);
    }
    loc[0] = run.T;
    loc[1] = -run.T;
    loc[2] = -lo;
    loc[3] = hi;
    PetscCallMPI(MPI_Allreduce(loc, glob, 4, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)v)));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (glob[0] == -glob[1]) PetscCall(PetscViewerASCIIPrintf(viewer, "Hybrid vector: %" PetscInt_FMT " threads per rank%s\n", glob[0], ctx->standard ? " (threaded operations on a standard vector, -vec_hybrid_standard)" : ""));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "Hybrid vector: %" PetscInt_FMT " to %" PetscInt_FMT " threads per rank%s\n", -glob[1], glob[0], ctx->standard ? " (threaded operations on a standard vector, -vec_hybrid_standard)" : ""));
    PetscCall(PetscViewerASCIIPrintf(viewer, "Hybrid vector: %" PetscInt_FMT " to %" PetscInt_FMT " entries per thread (%s), threaded from a local length of %" PetscInt_FMT ", first touch %s\n", -glob[2], glob[3], ctx->bounds ? "the rows of the matrix's threads" : "equal parts", ctx->threshold, ctx->first_touch ? "on" : "off"));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    if (format == PETSC_VIEWER_ASCII_INFO) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall((*ctx->view)(v, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The -vec_hybrid_* options, each described once (src/options/optiontable.h): read when a vector is
  made (VecHybridContextCreate), by VecSetFromOptions() (with -help) and, for -vec_hybrid_standard,
  when the package is registered. The README's options table and the manual pages are tested
  against this list.
*/
static const AIJHybridOption VecHybridOptionList[VECHYBRID_OPT_COUNT] = {
  [VECHYBRID_OPT_NUM_THREADS] = {"vec_hybrid_num_threads", AIJHYBRID_OPTION_INT, 1, AIJHYBRID_MAX_THREADS, 2, {PETSC_DECIDE, PETSC_DEFAULT}, NULL, "an integer from 1 to 4096, or -1 (PETSC_DECIDE) for the default", "OMP_NUM_THREADS; unset: the cores of the node / the ranks on it (as -mat_aijhybrid_num_threads)", "OpenMP threads per MPI rank for the vector operations", "VecHybridSetNumThreads"},
  [VECHYBRID_OPT_THRESHOLD]   = {"vec_hybrid_threshold", AIJHYBRID_OPTION_INT, 0, PETSC_MAX_INT, 2, {PETSC_DECIDE, PETSC_DEFAULT}, NULL, "an integer >= 0 (a local length), or -1 for the default", "20000", "Local length from which an operation runs on the threads (shorter: on the calling thread)", "VecHybridSetThreshold"},
  [VECHYBRID_OPT_FIRST_TOUCH] = {"vec_hybrid_first_touch", AIJHYBRID_OPTION_BOOL, 0, 0, 0, {0, 0}, NULL, "a boolean (true, false, yes, no, on, off, 1, 0; no value: true)", "NUMA-dependent: true where the node has several NUMA domains, else false", "The threads first write their own entries (NUMA placement)", "VecHybridSetFirstTouch"},
  [VECHYBRID_OPT_STANDARD]    = {"vec_hybrid_standard", AIJHYBRID_OPTION_BOOL, 0, 0, 0, {0, 0}, NULL, "a boolean (true, false, yes, no, on, off, 1, 0; no value: true)", "false", "Give every standard vector made afterwards (VecCreateMPI(), ...) the threaded operations, keeping its type name (read when the package is registered)", "VecHybridSetStandard"},
};

const struct AIJHybridOptionTable_s VecHybridOptionTable = {"vec_hybrid_", "Hybrid vector options (OpenMP threads in each rank)", "-vec_type hybrid", "VECHYBRID", VECHYBRID_OPT_COUNT, VecHybridOptionList};

static PetscErrorCode VecSetFromOptions_Hybrid(Vec v, AIJHybridOptionItems PetscOptionsObject)
{
  Vec_Hybrid          *ctx;
  AIJHybridOptionValue val[VECHYBRID_OPT_COUNT] = {{PETSC_FALSE, 0, 0}};
  PetscBool            standard;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  if (ctx->setfromoptions) PetscCall((*ctx->setfromoptions)(v, PetscOptionsObject));
  PetscCall(VecHybridGetStandard(&standard));
  /* the current values, shown by -help */
  val[VECHYBRID_OPT_NUM_THREADS].i = ctx->nthreads;
  val[VECHYBRID_OPT_THRESHOLD].i   = ctx->threshold;
  val[VECHYBRID_OPT_FIRST_TOUCH].i = ctx->first_touch;
  val[VECHYBRID_OPT_STANDARD].i    = standard;
  /* every option read and checked before any is applied */
  PetscCall(AIJHybridOptionsProcess(PetscOptionsObject, (PetscObject)v, &VecHybridOptionTable, val));
  if (val[VECHYBRID_OPT_NUM_THREADS].set) PetscCall(VecHybridSetNumThreads(v, val[VECHYBRID_OPT_NUM_THREADS].i));
  if (val[VECHYBRID_OPT_THRESHOLD].set) PetscCall(VecHybridSetThreshold(v, val[VECHYBRID_OPT_THRESHOLD].i));
  if (val[VECHYBRID_OPT_FIRST_TOUCH].set) PetscCall(VecHybridSetFirstTouch(v, (PetscBool)val[VECHYBRID_OPT_FIRST_TOUCH].i));
  if (val[VECHYBRID_OPT_STANDARD].set && (PetscBool)val[VECHYBRID_OPT_STANDARD].i != standard) PetscCall(VecHybridSetStandard((PetscBool)val[VECHYBRID_OPT_STANDARD].i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VecHybridInstall - give a standard vector (VECSEQ or VECMPI, just made) the hybrid context and
  operations; standard: keep the type name (-vec_hybrid_standard), else seqhybrid / mpihybrid
*/
PetscErrorCode VecHybridInstall(Vec v, PetscBool standard)
{
  Vec_Hybrid *ctx;
  PetscBool   mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)v, VECMPI, &mpi));
  PetscCall(VecHybridComposeContext(v, VecHybridTemplate, &ctx));
  VecHybridTemplate   = NULL; /* for this vector only */
  ctx->standard       = standard;
  ctx->mpi            = mpi;
  ctx->duplicate      = v->ops->duplicate;
  ctx->destroy        = v->ops->destroy;
  ctx->view           = v->ops->view;
  ctx->setfromoptions = v->ops->setfromoptions;
  PetscCall(AIJHybridCountRanksOnNode(PetscObjectComm((PetscObject)v)));
  PetscCall(VecHybridSetOps(v, ctx));
  if (!standard) PetscCall(PetscObjectChangeTypeName((PetscObject)v, mpi ? VECMPIHYBRID : VECSEQHYBRID));
  VecHybridCreated++;
  PetscCall(VecHybridPlace(v, ctx, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operations and composed functions of a hybrid vector */
static PetscErrorCode VecHybridSetOps(Vec v, Vec_Hybrid *ctx)
{
  PetscFunctionBegin;
  (void)ctx;
  PetscCall(VecHybridInstallOps(v));
  v->ops->duplicate      = VecDuplicate_Hybrid;
  v->ops->destroy        = VecDestroy_Hybrid;
  v->ops->view           = VecView_Hybrid;
  v->ops->setfromoptions = VecSetFromOptions_Hybrid;
  PetscCall(VecHybridComposeFunctions(v, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   VECSEQHYBRID - "seqhybrid" - a `VECSEQ` vector whose operations run with OpenMP threads.

   Level: beginner

.seealso: `VECHYBRID`, `VECMPIHYBRID`, `VecCreateSeqHybrid()`
M*/
PetscErrorCode VecCreate_SeqHybrid(Vec v)
{
  PetscFunctionBegin;
  PetscCall(VecHybridCreateStandard(v, PETSC_FALSE));
  PetscCall(VecHybridInstall(v, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   VECMPIHYBRID - "mpihybrid" - a `VECMPI` vector whose operations run with OpenMP threads inside each rank.

   Level: beginner

.seealso: `VECHYBRID`, `VECSEQHYBRID`, `VecCreateMPIHybrid()`
M*/
PetscErrorCode VecCreate_MPIHybrid(Vec v)
{
  PetscFunctionBegin;
  PetscCall(VecHybridCreateStandard(v, PETSC_TRUE));
  PetscCall(VecHybridInstall(v, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the root name: seqhybrid on one rank, mpihybrid otherwise (made here directly: in PETSc 3.18 a
   nested VecSetType() would take a vector re-typed from mpihybrid to hybrid for one already made) */
PetscErrorCode VecCreate_Hybrid(Vec v)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)v), &size));
  if (size > 1) PetscCall(VecCreate_MPIHybrid(v));
  else PetscCall(VecCreate_SeqHybrid(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */

/*@
  VecHybridSetNumThreads - Sets the number of OpenMP threads each rank uses for the operations of a `VECHYBRID` vector

  Logically Collective

  Input Parameters:
+ v        - the vector (ignored unless it is `VECHYBRID`, or a standard vector threaded by `-vec_hybrid_standard`)
- nthreads - threads, from 1, or `PETSC_DEFAULT` for the default (what the `MATAIJHYBRID` matrices use: OpenMP's count, or the cores of the node per rank when `OMP_NUM_THREADS` is unset)

  Options Database Key:
. -vec_hybrid_num_threads <n> - the number of threads

  Level: intermediate

  Note:
  A count other than the current one drops the partition set with `VecHybridSetPartition()`: the entries are split in equal parts.

.seealso: `VECHYBRID`, `VecHybridGetNumThreads()`, `VecHybridSetPartition()`
@*/
PetscErrorCode VecHybridSetNumThreads(Vec v, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(v, nthreads, 2);
  PetscTryMethod(v, "VecHybridSetNumThreads_C", (Vec, PetscInt), (v, nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridGetNumThreads - Gets the number of OpenMP threads each rank uses for the operations of a `VECHYBRID` vector

  Not Collective

  Input Parameter:
. v - the vector

  Output Parameter:
. nthreads - the number of threads

  Level: intermediate

.seealso: `VECHYBRID`, `VecHybridSetNumThreads()`
@*/
PetscErrorCode VecHybridGetNumThreads(Vec v, PetscInt *nthreads)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscUseMethod(v, "VecHybridGetNumThreads_C", (Vec, PetscInt *), (v, nthreads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridSetPartition - Sets the threads and which local entries each thread operates on

  Not Collective

  Input Parameters:
+ v        - the vector
. nthreads - the number of threads
- bounds   - `nthreads` + 1 non-decreasing local indices from 0 to the local length: thread t takes the entries [bounds[t], bounds[t+1]); or `NULL` for equal parts

  Level: advanced

  Notes:
  `MatCreateVecs()` of a `MATAIJHYBRID` matrix gives its vectors the thread partition of the matrix's
  rows, so that each thread operates on the entries of the rows it multiplies.

  With first touch (`-vec_hybrid_first_touch`) the pages of the array are placed again: each thread
  writes its part first (the values are kept).

  The sums (`VecDot()`, `VecNorm()`, ...) do not depend on the partition nor on the thread count.

.seealso: `VECHYBRID`, `VecHybridGetPartition()`, `VecHybridSetNumThreads()`
@*/
PetscErrorCode VecHybridSetPartition(Vec v, PetscInt nthreads, const PetscInt bounds[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscTryMethod(v, "VecHybridSetPartition_C", (Vec, PetscInt, const PetscInt[]), (v, nthreads, bounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  VecHybridGetPartition - Gets the threads and which local entries each thread operates on

  Not Collective

  Input Parameter:
. v - the vector

  Output Parameters:
+ nthreads - the number of threads
- bounds   - `nthreads` + 1 local indices (thread t takes [bounds[t], bounds[t+1])), or `NULL` for equal parts; owned by the vector

  Level: advanced

.seealso: `VECHYBRID`, `VecHybridSetPartition()`
@*/
PetscErrorCode VecHybridGetPartition(Vec v, PetscInt *nthreads, const PetscInt *bounds[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscUseMethod(v, "VecHybridGetPartition_C", (Vec, PetscInt *, const PetscInt *[]), (v, nthreads, bounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridSetThreshold - Sets the local length from which the operations of a `VECHYBRID` vector run on its threads

  Logically Collective

  Input Parameters:
+ v         - the vector
- threshold - a local length; shorter vectors operate on the calling thread (no parallel region); `PETSC_DEFAULT` for the default

  Options Database Key:
. -vec_hybrid_threshold <n> - the threshold

  Level: advanced

  Note:
  The default was measured on a 2-core AMD EPYC: README, "Threaded vectors". Results do not depend on it.

.seealso: `VECHYBRID`, `VecHybridGetThreshold()`
@*/
PetscErrorCode VecHybridSetThreshold(Vec v, PetscInt threshold)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscTryMethod(v, "VecHybridSetThreshold_C", (Vec, PetscInt), (v, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridGetThreshold - Gets the local length from which the operations of a `VECHYBRID` vector run on its threads

  Not Collective

  Input Parameter:
. v - the vector

  Output Parameter:
. threshold - the threshold

  Level: advanced

.seealso: `VECHYBRID`, `VecHybridSetThreshold()`
@*/
PetscErrorCode VecHybridGetThreshold(Vec v, PetscInt *threshold)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscUseMethod(v, "VecHybridGetThreshold_C", (Vec, PetscInt *), (v, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridSetFirstTouch - Sets whether each thread first writes the entries it operates on (NUMA placement)

  Not Collective

  Input Parameters:
+ v   - the vector
- flg - `PETSC_TRUE` to place the pages of the array by the threads' parts

  Options Database Key:
. -vec_hybrid_first_touch <bool> - default: on where the node has more than one NUMA domain

  Level: advanced

  Note:
  Linux places a page in the memory of the NUMA domain of the thread that first writes it. With
  first touch, the array is placed when the vector is made and again by `VecHybridSetPartition()`
  (the values are kept). It changes no result.

.seealso: `VECHYBRID`, `VecHybridGetFirstTouch()`, `VecHybridSetPartition()`
@*/
PetscErrorCode VecHybridSetFirstTouch(Vec v, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscTryMethod(v, "VecHybridSetFirstTouch_C", (Vec, PetscBool), (v, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridGetFirstTouch - Gets whether each thread first writes the entries it operates on

  Not Collective

  Input Parameter:
. v - the vector

  Output Parameter:
. flg - the setting

  Level: advanced

.seealso: `VECHYBRID`, `VecHybridSetFirstTouch()`
@*/
PetscErrorCode VecHybridGetFirstTouch(Vec v, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscUseMethod(v, "VecHybridGetFirstTouch_C", (Vec, PetscBool *), (v, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecCreateHybridWithLayout - Creates a `VECHYBRID` vector of a layout, with its threads and the entries of each thread

  Collective

  Input Parameters:
+ comm     - the communicator of the vector
. map      - the layout (referenced by the vector)
. nthreads - threads per rank, or `PETSC_DEFAULT`
- bounds   - `nthreads` + 1 local indices (thread t takes [bounds[t], bounds[t+1])), or `NULL` for equal parts

  Output Parameter:
. v - the vector, zero

  Level: developer

  Note:
  With first touch the threads write their parts first (NUMA placement). `MatCreateVecs()` of a
  `MATAIJHYBRID` matrix uses it with the matrix's thread partition.

.seealso: `VECHYBRID`, `VecHybridSetPartition()`, `VecCreateMPIHybrid()`
@*/
PetscErrorCode VecCreateHybridWithLayout(MPI_Comm comm, PetscLayout map, PetscInt nthreads, const PetscInt bounds[], Vec *v)
{
  Vec_Hybrid tmpl;

  PetscFunctionBegin;
  PetscCall(VecCreate(comm, v));
  PetscCall(PetscLayoutReference(map, &(*v)->map));
  PetscCall(PetscMemzero(&tmpl, sizeof(tmpl)));
  tmpl.nthreads_set = (PetscBool)(nthreads >= 1);
  tmpl.nthreads     = tmpl.nthreads_set ? nthreads : AIJHybridDefaultNumThreads();
  tmpl.bounds       = tmpl.nthreads_set ? (PetscInt *)bounds : NULL;
  tmpl.threshold    = VECHYBRID_DEFAULT_THRESHOLD;
  tmpl.first_touch  = (PetscBool)(AIJHybridNumaDomains() > 1);
  {
    AIJHybridOptionValue threshold, ft;

    PetscCall(AIJHybridOptionGet(NULL, NULL, &VecHybridOptionTable, VECHYBRID_OPT_THRESHOLD, &threshold));
    if (threshold.set && threshold.i >= 0) tmpl.threshold = threshold.i;
    PetscCall(AIJHybridOptionGet(NULL, NULL, &VecHybridOptionTable, VECHYBRID_OPT_FIRST_TOUCH, &ft));
    if (ft.set) tmpl.first_touch = (PetscBool)ft.i;
  }
  VecHybridTemplate = &tmpl;
  PetscCall(VecSetType(*v, VECHYBRID));
  VecHybridTemplate = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecCreateSeqHybrid - Creates a `VECSEQHYBRID` vector

  Collective

  Input Parameters:
+ comm - `PETSC_COMM_SELF`
- n    - the length

  Output Parameter:
. v - the vector, zero

  Level: beginner

.seealso: `VECHYBRID`, `VecCreateMPIHybrid()`, `VecCreateSeq()`
@*/
PetscErrorCode VecCreateSeqHybrid(MPI_Comm comm, PetscInt n, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(VecCreate(comm, v));
  PetscCall(VecSetSizes(*v, n, n));
  PetscCall(VecSetType(*v, VECSEQHYBRID));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecCreateMPIHybrid - Creates a `VECMPIHYBRID` vector

  Collective

  Input Parameters:
+ comm - the communicator
. n    - the local length, or `PETSC_DECIDE`
- N    - the global length, or `PETSC_DETERMINE`

  Output Parameter:
. v - the vector, zero

  Level: beginner

.seealso: `VECHYBRID`, `VecCreateSeqHybrid()`, `VecCreateMPI()`
@*/
PetscErrorCode VecCreateMPIHybrid(MPI_Comm comm, PetscInt n, PetscInt N, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(VecCreate(comm, v));
  PetscCall(VecSetSizes(*v, n, N));
  PetscCall(VecSetType(*v, VECMPIHYBRID));
  PetscFunctionReturn(PETSC_SUCCESS);
}
