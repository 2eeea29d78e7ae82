/*
   The context of a hybrid vector (src/vec/vechybridimpl.h), composed on it in a container: made
   from the options or copied from another vector, the thread count in force, how an operation runs
   (VecHybridGetRun(), VecHybridRunMap()), and the first touch of the threads' entries.
*/
#include "vechybridimpl.h"
#include <sys/mman.h>
#include <unistd.h>

static const char VecHybridContextName[] = "VecHybrid_Context";

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
PetscErrorCode VecHybridUpdateThreads(Vec_Hybrid *ctx)
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

/*
  First touch: Linux places a page in the memory of the NUMA domain of the thread that first writes
  it. The standard constructor allocated (and zeroed) the array on the main thread (ctx->array, the
  array the vector owns: an array the user placed or replaced stays where it is); here the whole
  pages inside the array are given back (madvise MADV_DONTNEED: their next write maps a fresh page)
  and every thread writes its own part again: the entries it reads in the operations. keep: copy the
  values back (else they are zero, as after creation).
*/
PetscErrorCode VecHybridPlace(Vec v, Vec_Hybrid *ctx, PetscBool keep)
{
  PetscScalar       *a, *copy = NULL;
  const PetscScalar *cur;
  VecHybridRun       run;
  const size_t       page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t          lo, hi;

  PetscFunctionBegin;
  if (!ctx->first_touch) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(v, &cur)); /* the array in use: the vector's own, or one placed by the user (left where it is) */
  PetscCall(VecRestoreArrayRead(v, &cur));
  if (!cur || cur != ctx->array) PetscFunctionReturn(PETSC_SUCCESS);
  a = (PetscScalar *)ctx->array;
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

/* compose a new context on v (just made): a copy of from's settings, or the defaults (the options
   are read by the caller, VecHybridInstall()) */
PetscErrorCode VecHybridComposeContext(Vec v, const Vec_Hybrid *from, Vec_Hybrid **out)
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
    ctx->nthreads    = AIJHybridDefaultNumThreads();
    ctx->threshold   = VECHYBRID_DEFAULT_THRESHOLD;
    ctx->first_touch = (PetscBool)(AIJHybridNumaDomains() > 1);
  }
  PetscCall(VecGetArrayRead(v, &ctx->array)); /* v just made: the array it owns */
  PetscCall(VecRestoreArrayRead(v, &ctx->array));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, ctx));
  PetscCall(AIJHybridContainerSetDestroy(c, VecHybridContextDestroy));
  PetscCall(PetscObjectCompose((PetscObject)v, VecHybridContextName, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  if (out) *out = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* remove v's context (freed with its container) */
PetscErrorCode VecHybridContextClear(Vec v)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectCompose((PetscObject)v, VecHybridContextName, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
