/*
   VECHYBRID ("hybrid" -> "seqhybrid" / "mpihybrid"): a VECSEQ / VECMPI vector whose operations run
   with OpenMP threads inside each rank (src/vec/vecops.c).

   A hybrid vector is made by the standard constructor (same storage: every routine that reads a
   standard vector's array reads this one), then given a context (threads, the threads' parts of the
   entries, the threshold below which an operation stays on the calling thread) in a composed
   container, its operations, and its type name. Duplicates keep the type and the settings.

   Also the switch that threads the standard vectors (-vec_hybrid_standard, VecHybridSetStandard()).
   KSP makes its work vectors by duplicating the application's solution vector, so an application
   that creates its vectors with VecCreateMPI() (not with MatCreateVecs() of an aijhybrid matrix, nor
   with -vec_type hybrid) would solve with unthreaded vector operations. With the switch, the
   constructors of VECSEQ and VECMPI in PETSc's type list are replaced by ones that make the same
   vector and install the hybrid layer, keeping the type name seq / mpi: every vector made through
   VecSetType() from then on and their duplicates are threaded. Vectors made around the type list
   (VecCreateSeqWithArray(), VecCreateMPIWithArray(), VecCreateGhost*(), vectors made before the
   switch) keep PETSc's operations.
*/
#include "vechybridimpl.h"

/* the settings of the next hybrid vector this package makes (VecDuplicate(), VecCreateHybridWithLayout()), or NULL */
static const Vec_Hybrid *VecHybridTemplate = NULL;
static PetscInt          VecHybridCreated  = 0; /* hybrid contexts installed: tells whether a parent's duplicate ran our create */

static PetscErrorCode (*VecCreate_SeqStandard)(Vec) = NULL; /* PETSc's constructors, saved from VecList */
static PetscErrorCode (*VecCreate_MPIStandard)(Vec) = NULL;
static PetscBool VecHybridStandard                  = PETSC_FALSE;

static PetscErrorCode VecHybridSaveStandardConstructors(void)
{
  PetscFunctionBegin;
  if (VecCreate_SeqStandard && VecCreate_MPIStandard) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecInitializePackage());
  PetscCall(PetscFunctionListFind(VecList, VECSEQ, &VecCreate_SeqStandard));
  PetscCall(PetscFunctionListFind(VecList, VECMPI, &VecCreate_MPIStandard));
  PetscCheck(VecCreate_SeqStandard && VecCreate_MPIStandard, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's %s and %s vector types are not registered", VECSEQ, VECMPI);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* make v a standard vector with PETSc's own constructor (v's sizes set, its operations cleared by VecSetType()) */
static PetscErrorCode VecHybridCreateStandard(Vec v, PetscBool mpi)
{
  PetscFunctionBegin;
  PetscCall(VecHybridSaveStandardConstructors());
  PetscCall((*(mpi ? VecCreate_MPIStandard : VecCreate_SeqStandard))(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecCreate_SeqThreaded(Vec v)
{
  PetscFunctionBegin;
  PetscCall((*VecCreate_SeqStandard)(v));
  PetscCall(VecHybridInstall(v, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecCreate_MPIThreaded(Vec v)
{
  PetscFunctionBegin;
  PetscCall((*VecCreate_MPIStandard)(v));
  PetscCall(VecHybridInstall(v, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridSetStandard - Gives every standard vector made from now on the threaded operations of `VECHYBRID`, keeping its type name

  Not Collective

  Input Parameter:
. flg - `PETSC_TRUE` to thread the standard vectors made from now on, `PETSC_FALSE` to stop

  Options Database Key:
. -vec_hybrid_standard - read when the package is initialized (`-dll_append`, `MatAIJHybridInitializePackage()`, `import petsc_aijhybrid`)

  Level: intermediate

  Notes:
  For applications that make their own vectors (`VecCreateMPI()`, `VecDuplicate()` of those, as KSP
  does for its work vectors): the constructors of `VECSEQ` and `VECMPI` are replaced by ones that give
  the vector the hybrid context and operations. Every vector made through `VecSetType()` is covered
  (`VecCreateSeq()`, `VecCreateMPI()`, `VecSetFromOptions()`, DM vectors, `MatCreateVecs()` of any
  matrix type) and its duplicates; vectors made with a user array (`VecCreateMPIWithArray()`,
  `VecCreateSeqWithArray()`), ghosted vectors and vectors made before the call are not.

  The vectors keep their type names (`seq`, `mpi`), so code that compares type names sees no difference;
  `VecView()` with `::ascii_info` shows the threads.

.seealso: `VECHYBRID`, `VecHybridGetStandard()`, `VecHybridSetNumThreads()`
@*/
PetscErrorCode VecHybridSetStandard(PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(VecHybridSaveStandardConstructors());
  PetscCall(VecRegister(VECSEQ, flg ? VecCreate_SeqThreaded : VecCreate_SeqStandard));
  PetscCall(VecRegister(VECMPI, flg ? VecCreate_MPIThreaded : VecCreate_MPIStandard));
  VecHybridStandard = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridGetStandard - Tells whether standard vectors are made with the threaded operations of `VECHYBRID`

  Not Collective

  Output Parameter:
. flg - the setting

  Level: intermediate

.seealso: `VECHYBRID`, `VecHybridSetStandard()`
@*/
PetscErrorCode VecHybridGetStandard(PetscBool *flg)
{
  PetscFunctionBegin;
  PetscAssertPointer(flg, 1);
  *flg = VecHybridStandard;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscFinalize() destroys the type list: the switch is off in the next PetscInitialize() */
PetscErrorCode VecHybridStandardFinalize(void)
{
  PetscFunctionBegin;
  VecHybridStandard = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -vec_hybrid_standard, read when the package is registered (checked as every option of the table) */
PetscErrorCode VecHybridStandardFromOptions(void)
{
  AIJHybridOptionValue v;

  PetscFunctionBegin;
  PetscCall(AIJHybridOptionGet(NULL, NULL, &VecHybridOptionTable, VECHYBRID_OPT_STANDARD, &v));
  if (v.set && v.i) PetscCall(VecHybridSetStandard(PETSC_TRUE));
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
  PetscCall(VecHybridContextClear(v)); /* ctx freed */
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
    PetscCall(PetscViewerASCIIPrintf(viewer, "Hybrid vector: %" PetscInt_FMT " to %" PetscInt_FMT " entries per thread (%s), threaded from a local length of %" PetscInt_FMT ", first touch %s\n", -glob[2], glob[3],
                                     ctx->bounds ? "the rows of the matrix's threads" : "equal parts", ctx->threshold, ctx->first_touch ? "on" : "off"));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    if (format == PETSC_VIEWER_ASCII_INFO) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall((*ctx->view)(v, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecSetFromOptions_Hybrid(Vec v, AIJHybridOptionItems PetscOptionsObject)
{
  Vec_Hybrid          *ctx;
  AIJHybridOptionValue val[VECHYBRID_OPT_COUNT] = {
    {PETSC_FALSE, 0, 0}
  };
  PetscBool standard;

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
