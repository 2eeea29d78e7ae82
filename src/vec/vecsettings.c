/*
   The settings of a hybrid vector: the public Set/Get functions, each calling the implementation
   composed on the vector (PetscTryMethod/PetscUseMethod), so that a Set is ignored by other types
   and a Get refuses them.
*/
#include "vechybridimpl.h"

static PetscErrorCode VecHybridCheckNumThreads(Vec v, PetscInt nthreads)
{
  PetscFunctionBegin;
  PetscCheck(nthreads == PETSC_DEFAULT || nthreads == PETSC_DECIDE || (nthreads >= 1 && nthreads <= AIJHYBRID_MAX_THREADS), PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_OUTOFRANGE,
             "Invalid number of threads %" PetscInt_FMT " for -vec_hybrid_num_threads: expected an integer from 1 to %d, or -1 (PETSC_DECIDE) for the default", nthreads, AIJHYBRID_MAX_THREADS);
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
    PetscCheck(bounds[0] == 0 && bounds[nthreads] == n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The parts of the threads must go from 0 to the local length %" PetscInt_FMT ", not from %" PetscInt_FMT " to %" PetscInt_FMT, n, bounds[0],
               bounds[nthreads]);
    for (PetscInt t = 0; t < nthreads; t++)
      PetscCheck(bounds[t] <= bounds[t + 1], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The parts of the threads must not decrease: bounds[%" PetscInt_FMT "] = %" PetscInt_FMT " > bounds[%" PetscInt_FMT "] = %" PetscInt_FMT, t, bounds[t], t + 1,
                 bounds[t + 1]);
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
  PetscCheck(threshold >= 0, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_OUTOFRANGE, "Invalid threshold %" PetscInt_FMT " for -vec_hybrid_threshold: expected an integer >= 0 (a local length), or -1 for the default %d", threshold,
             VECHYBRID_DEFAULT_THRESHOLD);
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

/* compose (on) or remove the implementations of the public Set/Get functions on a hybrid vector */
PetscErrorCode VecHybridComposeFunctions(Vec v, PetscBool on)
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
  `MatCreateVecs()` of a `MATAIJHYBRID` matrix gives its vectors equal parts (every entry costs a
  vector operation the same), or, where first touch is on, the thread partition of the matrix's rows,
  so that each thread's entries lie where the thread that multiplies those rows runs.

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
  How the default was chosen: docs/vectors.md. Results do not depend on it.

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
