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
   with -vec_type hybrid) would solve with unthreaded vector operations. With the switch (an explicit
   opt-in: without it PETSc's type list is never touched), the
   constructors of VECSEQ and VECMPI in PETSc's type list are replaced by ones that make the same
   vector and install the hybrid layer, keeping the type name seq / mpi: every vector made through
   VecSetType() from then on and their duplicates are threaded. Vectors made around the type list
   (VecCreateSeqWithArray(), VecCreateMPIWithArray(), VecCreateGhost*(), vectors made before the
   switch) keep PETSc's operations.
*/
#include "vechybridimpl.h"

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
  if (flg == VecHybridStandard) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc's type list is touched only to switch */
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

/* -vec_hybrid_standard, read when the package is registered */
PetscErrorCode VecHybridStandardFromOptions(void)
{
  PetscBool standard = PETSC_FALSE, set;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Hybrid vectors for the standard types (petsc-aijhybrid)", "Vec");
  PetscCall(AIJHybridOptionsBool("-vec_hybrid_standard", "Give every standard vector made afterwards (VecCreateMPI(), ...) the threaded operations, keeping its type name (read when the package is registered)", "VecHybridSetStandard", standard,
                                 &standard, &set));
  PetscOptionsEnd();
  if (set && standard) PetscCall(VecHybridSetStandard(PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridSetOps(Vec, Vec_Hybrid *);

static PetscErrorCode VecDuplicate_Hybrid(Vec x, Vec *y)
{
  Vec_Hybrid *ctx, *yctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(x, &ctx));
  /* the standard duplicate: VecDuplicate_Seq() makes the copy with VecSetType() (our create runs, with
     the defaults), VecDuplicate_MPI() does not (the copy is named "mpi"); both copy x's composed
     objects, so the copy holds x's context, which is replaced by a copy of its own */
  PetscCall((*ctx->duplicate)(x, y));
  PetscCall(VecHybridComposeContext(*y, ctx, &yctx));
  yctx->standard       = ctx->standard;
  yctx->mpi            = ctx->mpi;
  yctx->duplicate      = ctx->duplicate;
  yctx->destroy        = ctx->destroy;
  yctx->view           = ctx->view;
  yctx->setfromoptions = ctx->setfromoptions;
  PetscCall(VecHybridSetOps(*y, yctx));
  if (!ctx->standard) PetscCall(PetscObjectChangeTypeName((PetscObject)*y, ((PetscObject)x)->type_name));
  PetscCall(VecHybridPlace(*y, yctx, PETSC_FALSE)); /* the fresh (zero) array, on x's threads and parts */
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

/* the -vec_hybrid_* options of v (its prefix): every option read first, then the values applied */
static PetscErrorCode VecHybridOptions(Vec v, AIJHybridOptionItems PetscOptionsObject)
{
  Vec_Hybrid *ctx;
  PetscInt    nthreads, threshold;
  PetscBool   first_touch, fthreads, fthreshold, ftouch;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  nthreads    = ctx->nthreads_set ? ctx->nthreads : PETSC_DECIDE;
  threshold   = ctx->threshold;
  first_touch = ctx->first_touch;
  PetscOptionsHeadBegin(PetscOptionsObject, "Hybrid vector options (OpenMP threads in each rank)");
  PetscCall(AIJHybridOptionsRangeInt("-vec_hybrid_num_threads", "OpenMP threads per MPI rank for the vector operations, 1 to 4096, or -1: as -mat_aijhybrid_num_threads (a vector from MatCreateVecs(): the matrix's)", "VecHybridSetNumThreads",
                                     nthreads, &nthreads, &fthreads, PETSC_DECIDE, AIJHYBRID_MAX_THREADS));
  PetscCall(AIJHybridOptionsCheck(PetscOptionsObject, "-vec_hybrid_num_threads", (PetscBool)(nthreads != 0), "at least 1 thread, or -1 for the default"));
  PetscCall(AIJHybridOptionsRangeInt("-vec_hybrid_threshold", "Local length from which an operation runs on the threads (shorter: on the calling thread)", "VecHybridSetThreshold", threshold, &threshold, &fthreshold, 0, PETSC_MAX_INT));
  PetscCall(
    AIJHybridOptionsBool("-vec_hybrid_first_touch", "The threads first write their own entries (NUMA placement; default: true where the node has several NUMA domains, else false)", "VecHybridSetFirstTouch", first_touch, &first_touch, &ftouch));
  PetscOptionsHeadEnd();
  if (fthreads) PetscCall(VecHybridSetNumThreads(v, nthreads));
  if (fthreshold) PetscCall(VecHybridSetThreshold(v, threshold));
  if (ftouch) PetscCall(VecHybridSetFirstTouch(v, first_touch));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecSetFromOptions_Hybrid(Vec v, AIJHybridOptionItems PetscOptionsObject)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(v, &ctx));
  if (ctx->setfromoptions) PetscCall((*ctx->setfromoptions)(v, PetscOptionsObject));
  PetscCall(VecHybridOptions(v, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VecHybridInstall - give a standard vector (VECSEQ or VECMPI, just made) the hybrid context with the
  defaults and the -vec_hybrid_* options of its prefix, and the operations; standard: keep the type
  name (-vec_hybrid_standard), else seqhybrid / mpihybrid
*/
PetscErrorCode VecHybridInstall(Vec v, PetscBool standard)
{
  Vec_Hybrid *ctx;
  PetscBool   mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)v, VECMPI, &mpi));
  PetscCall(VecHybridComposeContext(v, NULL, &ctx));
  ctx->standard       = standard;
  ctx->mpi            = mpi;
  ctx->duplicate      = v->ops->duplicate;
  ctx->destroy        = v->ops->destroy;
  ctx->view           = v->ops->view;
  ctx->setfromoptions = v->ops->setfromoptions;
  PetscCall(AIJHybridCountRanksOnNode(PetscObjectComm((PetscObject)v)));
  PetscCall(VecHybridSetOps(v, ctx));
  if (!standard) PetscCall(PetscObjectChangeTypeName((PetscObject)v, mpi ? VECMPIHYBRID : VECSEQHYBRID));
  { /* the options (listed by -help where VecSetFromOptions() reads them) */
    AIJHybridOptionItemsStruct items;

    PetscCall(AIJHybridOptionsQuiet((PetscObject)v, &items));
    PetscCall(VecHybridOptions(v, &items));
  }
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

  Notes:
  The `-vec_hybrid_*` options (without prefix) are read as for every hybrid vector;
  `-vec_hybrid_num_threads`, when given, takes the place of `nthreads` and `bounds` (equal parts).
  With first touch the threads write their parts first (NUMA placement). `MatCreateVecs()` of a
  `MATAIJHYBRID` matrix uses it (with the matrix's thread partition where first touch places the entries).

.seealso: `VECHYBRID`, `VecHybridSetPartition()`, `VecCreateMPIHybrid()`
@*/
PetscErrorCode VecCreateHybridWithLayout(MPI_Comm comm, PetscLayout map, PetscInt nthreads, const PetscInt bounds[], Vec *v)
{
  Vec_Hybrid *ctx;

  PetscFunctionBegin;
  PetscCall(VecCreate(comm, v));
  PetscCall(PetscLayoutReference(map, &(*v)->map));
  PetscCall(VecSetType(*v, VECHYBRID)); /* the defaults and the -vec_hybrid_* options */
  PetscCall(VecHybridGetContext(*v, &ctx));
  if (nthreads >= 1 && !ctx->nthreads_set) PetscCall(VecHybridSetPartition(*v, nthreads, bounds)); /* -vec_hybrid_num_threads wins */
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
