/*
   MatSOR of the aijhybrid types (PCSOR, PCEISENSTAT, multigrid smoothers): thread-local sweeps.

   What MPIAIJ does across ranks, done across the threads of a rank: each thread's block of rows
   (the rows of the products' thread partition of the diagonal block, and the same columns) is
   swept locally with the values of the other blocks (other threads', and other ranks' ghosts)
   from the previous sweep. So T threads on a rank precondition like T ranks of MPIAIJ with those
   rows each, and the result depends on the thread count and partition, never on the timing:
   every block is swept by one thread in one fixed order, its right-hand side is computed before
   any block is swept (a barrier between).

   One sweep of MatSOR(A, b, omega, flag, fshift, its, lits, x), per MatSOR_MPIAIJ:
     zero initial guess: each block sweeps b (no off-block values: they are zero), its--;
     its times: the main thread updates the ghost values of x; every thread computes its rows of
       b - (off-block part) x, barrier, sweeps its block lits times from x;
     SOR_EISENSTAT: a local backward sweep of b from zero (x); ghosts; the right-hand side
       b + (omega-2)/omega D x + (off-block part) x; a local forward sweep of it from zero (x1);
       x += x1;
     SOR_APPLY_UPPER: x = (U + D/omega) b with U the blocks' strictly upper parts.
   The local sweep is MatSOR_SeqAIJ's on the block (src/kernels/sor.h). The flags MPIAIJ accepts
   are accepted on more than one rank (the local sweeps, Eisenstat, apply upper); on one rank
   those SeqAIJ accepts, the global sweeps running as the same thread-local sweeps (a global
   sweep is sequential by definition).

   With one thread, or with -mat_aijhybrid_sor_serial, MatSOR is AIJ's own (MatSOR_SeqAIJ,
   MatSOR_MPIAIJ): results identical to aij's.
*/
#include "../aijhybrid.h"
#include "../kernels/sor.h"

PetscErrorCode MatAIJHybridSORReset(AIJHybridSOR *s)
{
  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRelease(&s->key));
  PetscCall(PetscFree3(s->lo, s->dg, s->hi));
  PetscCall(PetscFree5(s->idiag, s->mdiag, s->bl, s->t, s->x1));
  s->m     = 0;
  s->valid = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block positions of the rows for the current pattern and partition, and the (inverse)
   diagonal for the current values, omega and fshift (MatInvertDiagonal_SeqAIJ's rule) */
static PetscErrorCode SORPrepare(Mat A, Mat_AIJHybrid *ctx, Mat Ad, PetscReal omega, PetscReal fshift)
{
  AIJHybridSOR     *s = &ctx->sor;
  AIJHybridBlockKey key;
  const PetscInt   *ai, *aj, *bounds = ctx->diag.bounds;
  const PetscInt    T = ctx->diag.params.nthreads;
  PetscObjectState  state;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRead(Ad, &key, &ai, &aj));
  if (!s->lo || !MatAIJHybridBlockKeySame(&s->key, &key) || s->partbuilds != ctx->diag.builds) {
    const PetscInt m = key.m;

    PetscCall(MatAIJHybridSORReset(s));
    PetscCall(MatAIJHybridBlockKeyHold(&s->key, &key, A));
    s->m          = m;
    s->partbuilds = ctx->diag.builds;
    PetscCall(PetscMalloc3(m, &s->lo, m, &s->dg, m, &s->hi));
    PetscCall(PetscMalloc5(m, &s->idiag, m, &s->mdiag, m, &s->bl, m, &s->t, m, &s->x1));
    for (PetscInt t = 0; t < T; t++) AIJHybridSORPositions(bounds[t], bounds[t + 1], ai, aj, s->lo, s->dg, s->hi);
  }
  PetscCall(PetscObjectStateGet((PetscObject)Ad, &state));
  if (!s->valid || state != s->state || omega != s->omega || fshift != s->fshift) {
    const PetscScalar *aa;

    PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
    if (omega == 1.0 && fshift <= 0.0) {
      for (PetscInt i = 0; i < s->m; i++) {
        s->mdiag[i] = s->dg[i] >= 0 ? aa[s->dg[i]] : 0.0;
        if (!PetscAbsScalar(s->mdiag[i])) { /* zero diagonal */
          if (fshift) {
            PetscCall(PetscInfo(A, "Zero diagonal on row %" PetscInt_FMT "\n", i));
            A->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
            A->factorerror_zeropivot_value = 0.0;
            A->factorerror_zeropivot_row   = i;
          } else {
            PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
            SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Zero diagonal on row %" PetscInt_FMT, i);
          }
        }
        s->idiag[i] = 1.0 / s->mdiag[i];
      }
    } else {
      for (PetscInt i = 0; i < s->m; i++) {
        s->mdiag[i] = s->dg[i] >= 0 ? aa[s->dg[i]] : 0.0;
        s->idiag[i] = omega / (fshift + s->mdiag[i]);
      }
    }
    PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
    s->state  = state;
    s->omega  = omega;
    s->fshift = fshift;
    s->valid  = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what one parallel region of the sweeps does, part by part (part t on thread t mod nth) */
typedef enum {
  SOR_RUN_SWEEP,      /* sweep from b (zero guess) or from x with bl = b - off-block x */
  SOR_RUN_EISENSTAT,  /* bl = b + scale D x + off-block x, forward sweep from zero into x1, x += x1 */
  SOR_RUN_APPLYUPPER  /* x = (U + D/omega) b */
} SORRun;

typedef struct {
  const PetscInt    *bounds, *ai, *aj, *oi, *oj;
  const PetscScalar *aa, *oa, *g, *b;
  PetscScalar       *x;
  PetscInt           T;
} SORData;

static void SORRegion(const SORData *d, AIJHybridSOR *s, SORRun run, PetscBool rhs, PetscBool forward, PetscBool backward, PetscBool zero, PetscInt lits, PetscReal omega, PetscReal fshift)
{
  const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

  switch (run) {
  case SOR_RUN_APPLYUPPER:
    for (PetscInt t = tid; t < d->T; t += nth) AIJHybridSORApplyUpper(d->bounds[t], d->bounds[t + 1], d->aj, d->aa, s->dg, s->hi, s->mdiag, omega, fshift, d->b, d->x);
    break;
  case SOR_RUN_SWEEP:
    if (rhs) {
      for (PetscInt t = tid; t < d->T; t += nth) AIJHybridSORRhs(d->bounds[t], d->bounds[t + 1], d->ai, d->aj, d->aa, s->lo, s->hi, d->oi, d->oj, d->oa, d->g, d->b, d->x, PETSC_FALSE, 0.0, s->mdiag, s->bl);
#pragma omp barrier
    }
    for (PetscInt t = tid; t < d->T; t += nth) AIJHybridSORSweep(d->bounds[t], d->bounds[t + 1], d->aj, d->aa, s->lo, s->dg, s->hi, s->idiag, s->mdiag, omega, forward, backward, zero, lits, rhs ? s->bl : d->b, d->x, s->t);
    break;
  case SOR_RUN_EISENSTAT: {
    const PetscScalar scale = (omega - 2.0) / omega;

    for (PetscInt t = tid; t < d->T; t += nth) AIJHybridSORRhs(d->bounds[t], d->bounds[t + 1], d->ai, d->aj, d->aa, s->lo, s->hi, d->oi, d->oj, d->oa, d->g, d->b, d->x, PETSC_TRUE, scale, s->mdiag, s->bl);
#pragma omp barrier
    for (PetscInt t = tid; t < d->T; t += nth) {
      AIJHybridSORSweep(d->bounds[t], d->bounds[t + 1], d->aj, d->aa, s->lo, s->dg, s->hi, s->idiag, s->mdiag, omega, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, lits, s->bl, s->x1, s->t);
      for (PetscInt i = d->bounds[t]; i < d->bounds[t + 1]; i++) d->x[i] += s->x1[i];
    }
  } break;
  }
}

/*
  MatSOR_AIJHybrid - thread-local SOR sweeps (see the top of this file)
*/
PetscErrorCode MatSOR_AIJHybrid(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;
  const PetscBool     zero = (PetscBool)!!(flag & SOR_ZERO_INITIAL_GUESS);
  PetscBool           mpi, forward = PETSC_FALSE, backward = PETSC_FALSE;
  SORRun              run = SOR_RUN_SWEEP;
  Mat                 Ad = A, Ao = NULL;
  SORData             d;
  PetscScalar        *ghost = NULL;
  const PetscScalar  *oa = NULL;
  PetscInt            sweeps = 0;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  if (ctx->sor_serial || params.nthreads == 1) {
    PetscCall((*ctx->parentops.sor)(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mpi = (PetscBool)(ctx->info == &AIJHybridMPIInfo);
  /* the flags of MatSOR_MPIAIJ (several ranks) and MatSOR_SeqAIJ (one rank) */
  if (flag == SOR_APPLY_UPPER) run = SOR_RUN_APPLYUPPER;
  else if (mpi) {
    if ((flag & SOR_LOCAL_SYMMETRIC_SWEEP) == SOR_LOCAL_SYMMETRIC_SWEEP) forward = backward = PETSC_TRUE;
    else if (flag & SOR_LOCAL_FORWARD_SWEEP) forward = PETSC_TRUE;
    else if (flag & SOR_LOCAL_BACKWARD_SWEEP) backward = PETSC_TRUE;
    else if (flag & SOR_EISENSTAT) run = SOR_RUN_EISENSTAT;
    else SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Parallel SOR not supported");
  } else {
    PetscCheck(flag != SOR_APPLY_LOWER, PETSC_COMM_SELF, PETSC_ERR_SUP, "SOR_APPLY_LOWER is not implemented");
    if (flag & SOR_EISENSTAT) run = SOR_RUN_EISENSTAT;
    forward  = (PetscBool)!!(flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP));
    backward = (PetscBool)!!(flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP));
  }

  if (mpi) {
    PetscCall(MatAIJHybridMPIGhosts(A, NULL, &Ad, &Ao, NULL)); /* checks, partitions; no exchange */
  } else {
    PetscCall(AIJHybridCheckOversubscription((PetscObject)A, params.nthreads));
    PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag, A, A, PETSC_FALSE, &params));
  }
  PetscCall(SORPrepare(A, ctx, Ad, omega, fshift));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &d.ai, &d.aj, (PetscScalar **)&d.aa, NULL));
  d.oi = d.oj = NULL;
  d.oa = NULL;
  if (Ao) {
    PetscCall(MatSeqAIJGetCSRAndMemType(Ao, &d.oi, &d.oj, (PetscScalar **)&oa, NULL));
    d.oa = oa;
  }
  d.bounds = ctx->diag.bounds;
  d.T      = ctx->diag.params.nthreads;
  d.g      = NULL;
  PetscCall(VecGetArrayRead(bb, &d.b));
  PetscCall(VecGetArray(xx, &d.x));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_SOR, A, 0, 0, 0));
  if (run == SOR_RUN_APPLYUPPER) {
#pragma omp parallel num_threads(d.T)
    SORRegion(&d, &ctx->sor, run, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, lits, omega, fshift);
    sweeps = 1;
  } else if (run == SOR_RUN_EISENSTAT) {
#pragma omp parallel num_threads(d.T)
    SORRegion(&d, &ctx->sor, SOR_RUN_SWEEP, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, lits, omega, fshift);
    if (mpi) PetscCall(MatAIJHybridMPIGhosts(A, d.x, NULL, NULL, &ghost));
    d.g = ghost;
#pragma omp parallel num_threads(d.T)
    SORRegion(&d, &ctx->sor, SOR_RUN_EISENSTAT, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, lits, omega, fshift);
    sweeps = 2 * lits;
  } else {
    if (zero) {
#pragma omp parallel num_threads(d.T)
      SORRegion(&d, &ctx->sor, SOR_RUN_SWEEP, PETSC_FALSE, forward, backward, PETSC_TRUE, lits, omega, fshift);
      sweeps += lits;
      its--;
    }
    while (its-- > 0) {
      if (mpi) PetscCall(MatAIJHybridMPIGhosts(A, d.x, NULL, NULL, &ghost));
      d.g = ghost;
#pragma omp parallel num_threads(d.T)
      SORRegion(&d, &ctx->sor, SOR_RUN_SWEEP, PETSC_TRUE, forward, backward, PETSC_FALSE, lits, omega, fshift);
      sweeps += lits;
    }
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_SOR, A, 0, 0, 0));
  PetscCall(VecRestoreArrayRead(bb, &d.b));
  PetscCall(VecRestoreArray(xx, &d.x));
  PetscCall(PetscLogFlops(2.0 * (ctx->sor.key.nz + (Ao ? ctx->offd.key.nz : 0)) * sweeps));
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
  Mat_AIJHybrid *ctx;
  PetscBool      flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, serial, 2);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not of type %s", ((PetscObject)A)->type_name, MATAIJHYBRID);
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  ctx->sor_serial = serial;
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
  Mat_AIJHybrid *ctx;
  PetscBool      flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &flg, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  PetscCheck(flg, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not of type %s", ((PetscObject)A)->type_name, MATAIJHYBRID);
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  *serial = ctx->sor_serial;
  PetscFunctionReturn(PETSC_SUCCESS);
}
