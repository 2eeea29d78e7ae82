/*
   The threaded operations of the hybrid vectors. Each one reads the arrays on the main thread, runs
   a pure kernel (src/kernels/vec.h) over the local entries, on the calling thread below the
   threshold or on the vector's threads in one parallel region, and (for the global sums) reduces
   over the ranks as VECMPI does. The special cases (coefficients 0, 1, -1, aliased vectors) and the
   flop counts are those of PETSc's VECSEQ / VECMPI.
*/
#include "vechybridimpl.h"

/* ---- sums ---------------------------------------------------------------------------------- */

#define VECHYBRID_STACK_SUMS 2048 /* block sums kept on the stack; more in a PetscMalloc()ed buffer */

/*
  The local sums of args over the n entries of run into out[0..nout-1]: the blocks of
  AIJHYBRID_VEC_BLOCK entries are summed (by any thread), then added in block order by the main
  thread. The thread count and the parts do not change a bit of the result.
*/
static PetscErrorCode VecHybridRunReduce(const VecHybridRun *run, const AIJHybridVecReduceArgs *args, PetscScalar out[])
{
  const PetscInt B = AIJHYBRID_VEC_BLOCK, S = AIJHYBRID_VEC_RUN, nout = AIJHybridVecReduceCount(args), K = (run->n + B - 1) / B;
  const PetscInt need = run->threaded ? K * nout : PetscMin(K, S) * nout;
  PetscScalar    stack[VECHYBRID_STACK_SUMS], *sums = stack;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < nout; j++) out[j] = 0.0;
  if (!K) PetscFunctionReturn(PETSC_SUCCESS);
  if (need > VECHYBRID_STACK_SUMS) PetscCall(PetscMalloc1(need, &sums));
  if (!run->threaded) {
    for (PetscInt k = 0; k < K; k += S) { /* S blocks at a time, then their sums in block order */
      const PetscInt ke = PetscMin(K, k + S);

      AIJHybridVecReduceBlocks(args, k * B, PetscMin(run->n, ke * B), nout, sums);
      for (PetscInt kk = 0; kk < ke - k; kk++)
        for (PetscInt j = 0; j < nout; j++) out[j] += sums[kk * nout + j];
    }
  } else {
#pragma omp parallel num_threads(run->T)
    {
      const PetscInt nth = omp_get_num_threads();
      for (PetscInt t = omp_get_thread_num(); t < run->T; t += nth) {
        PetscInt s, e;
        VecHybridRunPart(run, t, &s, &e);
        /* the blocks that start in this part, S at a time */
        const PetscInt k0 = (s + B - 1) / B, k1 = (e + B - 1) / B;
        for (PetscInt k = k0; k < k1; k += S) AIJHybridVecReduceBlocks(args, k * B, PetscMin(run->n, PetscMin(k1, k + S) * B), nout, sums + k * nout);
      }
    }
    for (PetscInt k = 0; k < K; k++)
      for (PetscInt j = 0; j < nout; j++) out[j] += sums[k * nout + j];
  }
  if (sums != stack) PetscCall(PetscFree(sums));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sums over the ranks of a vector: what VECMPI adds with MPI_Allreduce() (nothing on one rank) */
static PetscErrorCode VecHybridAllreduce(Vec v, PetscMPIInt count, MPI_Datatype type, void *buf)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)v), &size));
  if (size > 1) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, buf, count, type, MPIU_SUM, PetscObjectComm((PetscObject)v)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscLogDouble DotFlops(PetscInt n)
{
  return n > 0 ? 2.0 * n - 1 : 0.0;
}

static PetscErrorCode VecDotLocal_Hybrid_Private(Vec x, Vec y, AIJHybridVecReduceOp op, PetscScalar *z)
{
  VecHybridRun           run;
  AIJHybridVecReduceArgs r = {op, NULL, NULL, 0, NULL};

  PetscFunctionBegin;
  PetscCall(VecHybridGetRun(x, &run));
  PetscCall(VecGetArrayRead(x, &r.x));
  PetscCall(VecGetArrayRead(y, &r.y));
  PetscCall(VecHybridRunReduce(&run, &r, z));
  PetscCall(VecRestoreArrayRead(y, &r.y));
  PetscCall(VecRestoreArrayRead(x, &r.x));
  PetscCall(PetscLogFlops(DotFlops(run.n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDot_Local_Hybrid(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecDotLocal_Hybrid_Private(x, y, AIJHYBRID_VEC_DOT, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecTDot_Local_Hybrid(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecDotLocal_Hybrid_Private(x, y, AIJHYBRID_VEC_TDOT, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDot_Hybrid(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecDotLocal_Hybrid_Private(x, y, AIJHYBRID_VEC_DOT, z));
  PetscCall(VecHybridAllreduce(x, 1, MPIU_SCALAR, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecTDot_Hybrid(Vec x, Vec y, PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecDotLocal_Hybrid_Private(x, y, AIJHYBRID_VEC_TDOT, z));
  PetscCall(VecHybridAllreduce(x, 1, MPIU_SCALAR, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMDotLocal_Hybrid_Private(Vec x, PetscInt nv, const Vec y[], AIJHybridVecReduceOp op, PetscScalar *z)
{
  VecHybridRun           run;
  AIJHybridVecReduceArgs r = {op, NULL, NULL, nv, NULL};
  const PetscScalar    **ya;

  PetscFunctionBegin;
  if (nv <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecHybridGetRun(x, &run));
  PetscCall(PetscMalloc1(nv, &ya));
  PetscCall(VecGetArrayRead(x, &r.x));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecGetArrayRead(y[j], &ya[j]));
  r.ys = ya;
  PetscCall(VecHybridRunReduce(&run, &r, z));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecRestoreArrayRead(y[j], &ya[j]));
  PetscCall(VecRestoreArrayRead(x, &r.x));
  PetscCall(PetscFree(ya));
  PetscCall(PetscLogFlops(nv * DotFlops(run.n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMDot_Local_Hybrid(Vec x, PetscInt nv, const Vec y[], PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecMDotLocal_Hybrid_Private(x, nv, y, AIJHYBRID_VEC_MDOT, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMTDot_Local_Hybrid(Vec x, PetscInt nv, const Vec y[], PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecMDotLocal_Hybrid_Private(x, nv, y, AIJHYBRID_VEC_MTDOT, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMDot_Hybrid(Vec x, PetscInt nv, const Vec y[], PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecMDotLocal_Hybrid_Private(x, nv, y, AIJHYBRID_VEC_MDOT, z));
  if (nv > 0) PetscCall(VecHybridAllreduce(x, (PetscMPIInt)nv, MPIU_SCALAR, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMTDot_Hybrid(Vec x, PetscInt nv, const Vec y[], PetscScalar *z)
{
  PetscFunctionBegin;
  PetscCall(VecMDotLocal_Hybrid_Private(x, nv, y, AIJHYBRID_VEC_MTDOT, z));
  if (nv > 0) PetscCall(VecHybridAllreduce(x, (PetscMPIInt)nv, MPIU_SCALAR, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the infinity norm and the extremes: per part, folded in part order as one scan would */
static PetscErrorCode VecHybridRunExtreme(const VecHybridRun *run, AIJHybridVecExtremeOp op, const PetscScalar *xa, PetscReal *val, PetscInt *idx)
{
  PetscReal stackv[64], *pv = stackv;
  PetscInt  stackk[64], *pk = stackk;

  PetscFunctionBegin;
  if (!run->threaded) {
    AIJHybridVecExtremeRange(op, xa, 0, run->n, val, idx);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (run->T > 64) PetscCall(PetscMalloc2(run->T, &pv, run->T, &pk));
#pragma omp parallel num_threads(run->T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt t = omp_get_thread_num(); t < run->T; t += nth) {
      PetscInt s, e;
      VecHybridRunPart(run, t, &s, &e);
      AIJHybridVecExtremeRange(op, xa, s, e, &pv[t], &pk[t]);
    }
  }
  *val = 0.0;
  *idx = -1;
  for (PetscInt t = 0; t < run->T; t++) AIJHybridVecExtremeCombine(op, val, idx, pv[t], pk[t]);
  if (pv != stackv) PetscCall(PetscFree2(pv, pk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of PETSc's VecNorm_Seq() */
static PetscLogDouble NormFlops(NormType type, PetscInt n)
{
  if (n <= 0 || type == NORM_INFINITY) return 0.0;
  if (type == NORM_1) return n - 1.0;
  if (type == NORM_1_AND_2) return (n - 1.0) + (2.0 * n - 1.0);
  return 2.0 * n - 1.0;
}

/* the local sums of a norm: NORM_1 and NORM_INFINITY as they are, NORM_2 as the sum of squares (z[1] too for NORM_1_AND_2) */
static PetscErrorCode VecNormLocalSums_Hybrid(Vec x, NormType type, PetscReal *z, PetscInt *n)
{
  VecHybridRun       run;
  const PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(VecHybridGetRun(x, &run));
  PetscCall(VecGetArrayRead(x, &xa));
  if (type == NORM_INFINITY) {
    PetscInt idx;
    PetscCall(VecHybridRunExtreme(&run, AIJHYBRID_VEC_NORMINF, xa, z, &idx));
  } else {
    AIJHybridVecReduceArgs r = {type == NORM_1 ? AIJHYBRID_VEC_NORM1 : type == NORM_1_AND_2 ? AIJHYBRID_VEC_NORM1SQ : AIJHYBRID_VEC_SUMSQ, xa, NULL, 0, NULL};
    PetscScalar            s[2];
    PetscCall(VecHybridRunReduce(&run, &r, s));
    z[0] = PetscRealPart(s[0]);
    if (type == NORM_1_AND_2) z[1] = PetscRealPart(s[1]);
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  *n = run.n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local norm (norm_local, called by VecNormBegin()): NORM_2 with its square root, as VecNorm_Seq() */
static PetscErrorCode VecNorm_Local_Hybrid(Vec x, NormType type, PetscReal *z)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecNormLocalSums_Hybrid(x, type, z, &n));
  if (type == NORM_2 || type == NORM_FROBENIUS) z[0] = PetscSqrtReal(z[0]);
  else if (type == NORM_1_AND_2) z[1] = PetscSqrtReal(z[1]);
  PetscCall(PetscLogFlops(NormFlops(type, n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the norm: local sums reduced over the ranks (sums of squares for NORM_2), then the square root */
static PetscErrorCode VecNorm_Hybrid(Vec x, NormType type, PetscReal *z)
{
  Vec_Hybrid *ctx;
  PetscInt    n;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(x, &ctx));
  PetscCall(VecNormLocalSums_Hybrid(x, type, z, &n));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)x), &size));
  if (size > 1) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, z, type == NORM_1_AND_2 ? 2 : 1, MPIU_REAL, type == NORM_INFINITY ? MPIU_MAX : MPIU_SUM, PetscObjectComm((PetscObject)x)));
  if (type == NORM_2 || type == NORM_FROBENIUS) z[0] = PetscSqrtReal(z[0]);
  else if (type == NORM_1_AND_2) z[1] = PetscSqrtReal(z[1]);
#if PETSC_VERSION_LT(3, 19, 0)
  if (ctx->mpi && (type == NORM_2 || type == NORM_FROBENIUS)) PetscCall(PetscLogFlops(2.0 * n)); /* VecNorm_MPI() of 3.18 */
  else PetscCall(PetscLogFlops(NormFlops(type, n)));
#else
  PetscCall(PetscLogFlops(NormFlops(type, n)));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dp = s . conj(t), nm = t . conj(t) in one pass */
static PetscErrorCode VecDotNorm2_Hybrid(Vec s, Vec t, PetscScalar *dp, PetscScalar *nm)
{
  VecHybridRun           run;
  AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_DOTNORM2, NULL, NULL, 0, NULL};
  PetscScalar            z[2];

  PetscFunctionBegin;
  PetscCall(VecHybridGetRun(s, &run));
  PetscCall(VecGetArrayRead(s, &r.x));
  PetscCall(VecGetArrayRead(t, &r.y));
  PetscCall(VecHybridRunReduce(&run, &r, z));
  PetscCall(VecRestoreArrayRead(t, &r.y));
  PetscCall(VecRestoreArrayRead(s, &r.x));
  PetscCall(VecHybridAllreduce(s, 2, MPIU_SCALAR, z));
  *dp = z[0];
  *nm = z[1];
  PetscCall(PetscLogFlops(4.0 * run.n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local sum (VecSum() adds over the ranks itself) */
static PetscErrorCode VecSum_Hybrid(Vec x, PetscScalar *sum)
{
  VecHybridRun           run;
  AIJHybridVecReduceArgs r = {AIJHYBRID_VEC_SUM, NULL, NULL, 0, NULL};

  PetscFunctionBegin;
  PetscCall(VecHybridGetRun(x, &run));
  PetscCall(VecGetArrayRead(x, &r.x));
  PetscCall(VecHybridRunReduce(&run, &r, sum));
  PetscCall(VecRestoreArrayRead(x, &r.x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- entry-wise operations ------------------------------------------------------------------- */

/*
  run the map args over the entries of w (args->w is w's array, read and written) on the threads of
  v, the vector whose operation runs (w, except for VecCopy(), which PETSc calls on its source)
*/
static PetscErrorCode VecHybridMapOn(Vec v, Vec w, AIJHybridVecMapArgs *args, Vec x, Vec y, PetscBool read_w, PetscLogDouble flops_per_entry)
{
  VecHybridRun run;

  PetscFunctionBegin;
  PetscCall(VecHybridGetRun(v, &run));
  if (x && x != w) PetscCall(VecGetArrayRead(x, &args->x));
  if (y && y != w && y != x) PetscCall(VecGetArrayRead(y, &args->y));
  if (read_w) PetscCall(VecGetArray(w, &args->w));
  else PetscCall(VecGetArrayWrite(w, &args->w));
  if (x == w) args->x = args->w;
  if (y == w) args->y = args->w;
  else if (y && y == x) args->y = args->x;
  PetscCall(VecHybridRunMap(&run, args));
  if (read_w) PetscCall(VecRestoreArray(w, &args->w));
  else PetscCall(VecRestoreArrayWrite(w, &args->w));
  if (y && y != w && y != x) PetscCall(VecRestoreArrayRead(y, &args->y));
  if (x && x != w) PetscCall(VecRestoreArrayRead(x, &args->x));
  if (flops_per_entry > 0) PetscCall(PetscLogFlops(flops_per_entry * run.n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecHybridMap(Vec w, AIJHybridVecMapArgs *args, Vec x, Vec y, PetscBool read_w, PetscLogDouble flops_per_entry)
{
  PetscFunctionBegin;
  PetscCall(VecHybridMapOn(w, w, args, x, y, read_w, flops_per_entry));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecSet_Hybrid(Vec x, PetscScalar alpha)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_SET};

  PetscFunctionBegin;
  m.a = alpha == (PetscScalar)0.0 ? (PetscScalar)0.0 : alpha; /* VecSet_Seq() zeroes the array: -0 becomes +0 */
  PetscCall(VecHybridMap(x, &m, NULL, NULL, PETSC_FALSE, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecScale_Seq(): 0 sets the entries (NaN and Inf are gone), 1 does nothing */
static PetscErrorCode VecScale_Hybrid(Vec x, PetscScalar alpha)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_SCALE};

  PetscFunctionBegin;
  if (alpha == (PetscScalar)0.0) PetscCall(VecSet_Hybrid(x, alpha));
  else if (alpha != (PetscScalar)1.0) {
    m.a = alpha;
    PetscCall(VecHybridMap(x, &m, NULL, NULL, PETSC_TRUE, 1));
  }
#if PETSC_VERSION_LT(3, 19, 0)
  if (alpha == (PetscScalar)0.0 || alpha == (PetscScalar)1.0) PetscCall(PetscLogFlops(x->map->n)); /* 3.18 counts n flops for every alpha */
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecCopy_Hybrid(Vec x, Vec y)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_COPY};

  PetscFunctionBegin;
  if (x != y) PetscCall(VecHybridMapOn(x, y, &m, x, NULL, PETSC_FALSE, 0)); /* on the threads of x, whose operation this is */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecSwap_Hybrid(Vec x, Vec y)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_SWAP};

  PetscFunctionBegin;
  if (x == y) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArray(y, &m.v));
  PetscCall(VecHybridMap(x, &m, NULL, NULL, PETSC_TRUE, 0));
  PetscCall(VecRestoreArray(y, &m.v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = y + alpha x */
static PetscErrorCode VecAXPY_Hybrid(Vec y, PetscScalar alpha, Vec x)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_AXPY};

  PetscFunctionBegin;
  if (alpha == (PetscScalar)0.0) PetscFunctionReturn(PETSC_SUCCESS);
  m.a = alpha;
  PetscCall(VecHybridMap(y, &m, x, NULL, PETSC_TRUE, 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = x + alpha y (VecAYPX_Seq(): 0 is VecCopy(), 1 is VecAXPY(), -1 is x - y) */
static PetscErrorCode VecAYPX_Hybrid(Vec y, PetscScalar alpha, Vec x)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_AYPX};

  PetscFunctionBegin;
  if (alpha == (PetscScalar)0.0) PetscCall(VecCopy(x, y));
  else if (alpha == (PetscScalar)1.0) PetscCall(VecAXPY_Hybrid(y, 1.0, x));
  else if (alpha == (PetscScalar)-1.0) {
    m.op = AIJHYBRID_VEC_AYPX_MINUS;
    PetscCall(VecHybridMap(y, &m, x, NULL, PETSC_TRUE, 1));
  } else {
    m.a = alpha;
    PetscCall(VecHybridMap(y, &m, x, NULL, PETSC_TRUE, 2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = alpha x + beta y, with the branches of VecAXPBY_Seq() in its order */
static PetscErrorCode VecAXPBY_Hybrid(Vec y, PetscScalar alpha, PetscScalar beta, Vec x)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_AXPBY};

  PetscFunctionBegin;
  m.a = alpha;
  m.b = beta;
  if (alpha == (PetscScalar)0.0) PetscCall(VecScale_Hybrid(y, beta));
  else if (beta == (PetscScalar)1.0) PetscCall(VecAXPY_Hybrid(y, alpha, x));
  else if (alpha == (PetscScalar)1.0) PetscCall(VecAYPX_Hybrid(y, beta, x));
  else if (beta == (PetscScalar)0.0) {
    m.op = AIJHYBRID_VEC_AX;
    PetscCall(VecHybridMap(y, &m, x, NULL, PETSC_FALSE, 1));
  } else PetscCall(VecHybridMap(y, &m, x, NULL, PETSC_TRUE, 3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = alpha x + beta y + gamma z, with the branches of VecAXPBYPCZ_Seq() (x, y, z distinct: the interface checks) */
static PetscErrorCode VecAXPBYPCZ_Hybrid(Vec z, PetscScalar alpha, PetscScalar beta, PetscScalar gamma, Vec x, Vec y)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_AXPBYPCZ};

  PetscFunctionBegin;
  m.a = alpha;
  m.b = beta;
  m.c = gamma;
  if (alpha == (PetscScalar)1.0) {
    m.op = AIJHYBRID_VEC_AXPBYPCZ_A1;
    PetscCall(VecHybridMap(z, &m, x, y, PETSC_TRUE, 4));
  } else if (gamma == (PetscScalar)1.0) {
    m.op = AIJHYBRID_VEC_AXPBYPCZ_C1;
    PetscCall(VecHybridMap(z, &m, x, y, PETSC_TRUE, 4));
  } else if (gamma == (PetscScalar)0.0) {
    m.op = AIJHYBRID_VEC_AXPBYPCZ_NOZ;
    PetscCall(VecHybridMap(z, &m, x, y, PETSC_FALSE, 3));
  } else PetscCall(VecHybridMap(z, &m, x, y, PETSC_TRUE, 5));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = alpha x + y (w is neither x nor y: the interface checks) */
static PetscErrorCode VecWAXPY_Hybrid(Vec w, PetscScalar alpha, Vec x, Vec y)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_WAXPY};

  PetscFunctionBegin;
  m.a = alpha;
  if (alpha == (PetscScalar)0.0) {
    m.op = AIJHYBRID_VEC_COPY;
    PetscCall(VecHybridMap(w, &m, y, NULL, PETSC_FALSE, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (alpha == (PetscScalar)1.0) m.op = AIJHYBRID_VEC_WAXPY_PLUS;
  else if (alpha == (PetscScalar)-1.0) m.op = AIJHYBRID_VEC_WAXPY_MINUS;
  PetscCall(VecHybridMap(w, &m, x, y, PETSC_FALSE, m.op == AIJHYBRID_VEC_WAXPY ? 2 : 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (beta y +) sum_j alpha[j] x[j] (y is none of the x[j]: the interface checks) */
static PetscErrorCode VecMAXPBY_Hybrid_Private(Vec y, PetscInt nv, const PetscScalar alpha[], AIJHybridVecMapOp op, PetscScalar beta, Vec x[])
{
  AIJHybridVecMapArgs m = {.op = op};
  const PetscScalar **xa;

  PetscFunctionBegin;
  if (nv <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(nv, &xa));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecGetArrayRead(x[j], &xa[j]));
  m.nv    = nv;
  m.alpha = alpha;
  m.b     = beta;
  m.xs    = xa;
  PetscCall(VecHybridMap(y, &m, NULL, NULL, (PetscBool)(op != AIJHYBRID_VEC_MAXPBY_ZERO), 2.0 * nv + (op == AIJHYBRID_VEC_MAXPBY ? 1 : 0)));
  for (PetscInt j = 0; j < nv; j++) PetscCall(VecRestoreArrayRead(x[j], &xa[j]));
  PetscCall(PetscFree(xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMAXPY_Hybrid(Vec y, PetscInt nv, const PetscScalar alpha[], Vec x[])
{
  PetscFunctionBegin;
  PetscCall(VecMAXPBY_Hybrid_Private(y, nv, alpha, AIJHYBRID_VEC_MAXPY, 1.0, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if !PETSC_VERSION_LT(3, 20, 0)
/* what VecMAXPBY() does for VECSEQ/VECMPI, VecSet(y, 0) or VecScale(y, beta) then VecMAXPY(), in one pass */
static PetscErrorCode VecMAXPBY_Hybrid(Vec y, PetscInt nv, const PetscScalar alpha[], PetscScalar beta, Vec x[])
{
  PetscFunctionBegin;
  if (beta == (PetscScalar)0.0) PetscCall(VecMAXPBY_Hybrid_Private(y, nv, alpha, AIJHYBRID_VEC_MAXPBY_ZERO, beta, x));
  else PetscCall(VecMAXPBY_Hybrid_Private(y, nv, alpha, beta == (PetscScalar)1.0 ? AIJHYBRID_VEC_MAXPY : AIJHYBRID_VEC_MAXPBY, beta, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* x = x + alpha (PETSc >= 3.20 counts n flops) */
static PetscErrorCode VecShift_Hybrid(Vec x, PetscScalar alpha)
{
  AIJHybridVecMapArgs m = {.op = AIJHYBRID_VEC_SHIFT};

  PetscFunctionBegin;
  m.a = alpha;
  PetscCall(VecHybridMap(x, &m, NULL, NULL, PETSC_TRUE, PETSC_VERSION_LT(3, 20, 0) ? 0 : 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = f(x, y) entry by entry; any of w, x, y may be the same vector */
static PetscErrorCode VecPointwise_Hybrid_Private(AIJHybridVecMapOp op, Vec w, Vec x, Vec y)
{
  AIJHybridVecMapArgs m = {.op = op};

  PetscFunctionBegin;
  PetscCall(VecHybridMap(w, &m, x, y, (PetscBool)(w == x || w == y), 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecPointwiseMult_Hybrid(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwise_Hybrid_Private(AIJHYBRID_VEC_POINTWISE_MULT, w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecPointwiseDivide_Hybrid(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwise_Hybrid_Private(AIJHYBRID_VEC_POINTWISE_DIV, w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecPointwiseMax_Hybrid(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwise_Hybrid_Private(AIJHYBRID_VEC_POINTWISE_MAX, w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecPointwiseMin_Hybrid(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwise_Hybrid_Private(AIJHYBRID_VEC_POINTWISE_MIN, w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecPointwiseMaxAbs_Hybrid(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwise_Hybrid_Private(AIJHYBRID_VEC_POINTWISE_MAXABS, w, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = f(x) entry by entry, no flops (VecRestoreArray() increases the state: some interfaces do not) */
static PetscErrorCode VecUnary_Hybrid_Private(AIJHybridVecMapOp op, Vec x)
{
  AIJHybridVecMapArgs m = {.op = op};

  PetscFunctionBegin;
  PetscCall(VecHybridMap(x, &m, NULL, NULL, PETSC_TRUE, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecReciprocal_Hybrid(Vec x)
{
  PetscFunctionBegin;
  PetscCall(VecUnary_Hybrid_Private(AIJHYBRID_VEC_RECIPROCAL, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecAbs_Hybrid(Vec x)
{
  PetscFunctionBegin;
  PetscCall(VecUnary_Hybrid_Private(AIJHYBRID_VEC_ABS, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecConjugate_Hybrid(Vec x)
{
  PetscFunctionBegin;
  if (PetscDefined(USE_COMPLEX)) PetscCall(VecUnary_Hybrid_Private(AIJHYBRID_VEC_CONJUGATE, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- extremes ------------------------------------------------------------------------------- */

/*
  VecMax()/VecMin() as VecMax_Seq() and VecMax_MPI(): on real parts; the first index of ties; a NaN
  is passed over unless it is the first local entry (the scan starts from it and nothing replaces
  it); an empty rank gives -PETSC_MAX_REAL (+ for min) and index -1; over the ranks the largest
  (smallest) value with the smallest global index (PETSc's MPIU_MAXLOC / MPIU_MINLOC)
*/
static PetscErrorCode VecMaxMin_Hybrid_Private(Vec x, AIJHybridVecExtremeOp op, PetscInt *idx, PetscReal *z)
{
  Vec_Hybrid        *ctx;
  VecHybridRun       run;
  const PetscScalar *xa;
  PetscInt           k = -1;
  PetscReal          v;

  PetscFunctionBegin;
  PetscCall(VecHybridGetContext(x, &ctx));
  PetscCall(VecHybridGetRun(x, &run));
  PetscCall(VecGetArrayRead(x, &xa));
  if (!run.n) v = op == AIJHYBRID_VEC_MAX ? PETSC_MIN_REAL : PETSC_MAX_REAL;
  else if (PetscIsNanReal(PetscRealPart(xa[0]))) {
    v = PetscRealPart(xa[0]);
    k = 0;
  } else PetscCall(VecHybridRunExtreme(&run, op, xa, &v, &k));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (ctx->mpi) {
    MPI_Comm comm = PetscObjectComm((PetscObject)x);
    if (!idx) PetscCallMPI(MPI_Allreduce(&v, z, 1, MPIU_REAL, op == AIJHYBRID_VEC_MAX ? MPIU_MAX : MPIU_MIN, comm));
    else {
      struct {
        PetscReal v;
        PetscInt  i;
      } in, out;
      in.v = v;
      in.i = k + x->map->rstart;
      PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPIU_REAL_INT, op == AIJHYBRID_VEC_MAX ? MPIU_MAXLOC : MPIU_MINLOC, comm));
      *z   = out.v;
      *idx = out.i;
    }
  } else {
    *z = v;
    if (idx) *idx = k;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMax_Hybrid(Vec x, PetscInt *idx, PetscReal *z)
{
  PetscFunctionBegin;
  PetscCall(VecMaxMin_Hybrid_Private(x, AIJHYBRID_VEC_MAX, idx, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecMin_Hybrid(Vec x, PetscInt *idx, PetscReal *z)
{
  PetscFunctionBegin;
  PetscCall(VecMaxMin_Hybrid_Private(x, AIJHYBRID_VEC_MIN, idx, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- several vectors -------------------------------------------------------------------------- */

/* duplicates one by one (PETSc 3.26's VECSEQ makes them in one block, then re-types each: not for a derived type) */
static PetscErrorCode VecDuplicateVecs_Hybrid(Vec v, PetscInt m, Vec *V[])
{
  PetscFunctionBegin;
  PetscCheck(m > 0, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_OUTOFRANGE, "m must be > 0: m = %" PetscInt_FMT, m);
  PetscCall(PetscMalloc1(m, V));
  for (PetscInt i = 0; i < m; i++) PetscCall(VecDuplicate(v, *V + i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecDestroyVecs_Hybrid(PetscInt m, Vec V[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) PetscCall(VecDestroy(&V[i]));
  PetscCall(PetscFree(V));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- installation ---------------------------------------------------------------------------- */

/* give v (a VECSEQ or VECMPI vector) the threaded operations; assigned by name: the layout of _VecOps changes between releases */
PetscErrorCode VecHybridInstallOps(Vec v)
{
  PetscFunctionBegin;
  v->ops->duplicatevecs = VecDuplicateVecs_Hybrid;
  v->ops->destroyvecs   = VecDestroyVecs_Hybrid;
  v->ops->dot           = VecDot_Hybrid;
  v->ops->tdot          = VecTDot_Hybrid;
  v->ops->mdot          = VecMDot_Hybrid;
  v->ops->mtdot         = VecMTDot_Hybrid;
  v->ops->norm          = VecNorm_Hybrid;
  v->ops->dotnorm2      = VecDotNorm2_Hybrid;
  v->ops->dot_local     = VecDot_Local_Hybrid;
  v->ops->tdot_local    = VecTDot_Local_Hybrid;
  v->ops->mdot_local    = VecMDot_Local_Hybrid;
  v->ops->mtdot_local   = VecMTDot_Local_Hybrid;
  v->ops->norm_local    = VecNorm_Local_Hybrid;
  v->ops->sum           = VecSum_Hybrid;
  v->ops->max           = VecMax_Hybrid;
  v->ops->min           = VecMin_Hybrid;
  v->ops->set           = VecSet_Hybrid;
  v->ops->scale         = VecScale_Hybrid;
  v->ops->copy          = VecCopy_Hybrid;
  v->ops->swap          = VecSwap_Hybrid;
  v->ops->axpy          = VecAXPY_Hybrid;
  v->ops->aypx          = VecAYPX_Hybrid;
  v->ops->axpby         = VecAXPBY_Hybrid;
  v->ops->axpbypcz      = VecAXPBYPCZ_Hybrid;
  v->ops->waxpy         = VecWAXPY_Hybrid;
  v->ops->maxpy         = VecMAXPY_Hybrid;
#if !PETSC_VERSION_LT(3, 20, 0)
  v->ops->maxpby = VecMAXPBY_Hybrid;
#endif
  v->ops->shift           = VecShift_Hybrid;
  v->ops->pointwisemult   = VecPointwiseMult_Hybrid;
  v->ops->pointwisedivide = VecPointwiseDivide_Hybrid;
  v->ops->pointwisemax    = VecPointwiseMax_Hybrid;
  v->ops->pointwisemin    = VecPointwiseMin_Hybrid;
  v->ops->pointwisemaxabs = VecPointwiseMaxAbs_Hybrid;
  v->ops->reciprocal      = VecReciprocal_Hybrid;
  v->ops->abs             = VecAbs_Hybrid;
  v->ops->conjugate       = VecConjugate_Hybrid;
  PetscFunctionReturn(PETSC_SUCCESS);
}
