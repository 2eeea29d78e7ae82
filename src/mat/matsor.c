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
#include "aijhybridimpl.h"
#include "../kernels/sor.h"

/* what one parallel region of the sweeps does, part by part (part t on thread t mod nth) */
typedef enum {
  SOR_RUN_SWEEP,     /* sweep from b (zero guess) or from x with bl = b - off-block x */
  SOR_RUN_EISENSTAT, /* bl = b + scale D x + off-block x, forward sweep from zero into x1, x += x1 */
  SOR_RUN_APPLYUPPER /* x = (U + D/omega) b */
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
/* the ghost values of the current x, through the exchange of the products */
static PetscErrorCode SORGhosts(AIJHybridHalo *halo, SORData *d)
{
  PetscFunctionBegin;
  PetscCall(MatAIJHybridHaloForwardBegin(halo, d->x));
  PetscCall(MatAIJHybridHaloForwardEnd(halo, d->x));
  d->g = halo->ghost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSOR_AIJHybrid(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;
  AIJHybridPrepared   p;
  AIJHybridHalo      *halo = NULL;
  const PetscBool     zero = (PetscBool) !!(flag & SOR_ZERO_INITIAL_GUESS);
  PetscBool           mpi, forward = PETSC_FALSE, backward = PETSC_FALSE;
  SORRun              run = SOR_RUN_SWEEP;
  Mat                 Ad, Ao;
  SORData             d;
  const PetscScalar  *oa     = NULL;
  PetscInt            sweeps = 0;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  MatAIJHybridContextCurrentParams(ctx, &params);
  if (ctx->set.sor_serial || params.nthreads == 1) {
    PetscCall((*ctx->parentops.sor)(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mpi = ctx->info->mpi;
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
    forward  = (PetscBool) !!(flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP));
    backward = (PetscBool) !!(flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP));
  }

  PetscCall(MatAIJHybridPrepare(A, ctx, PETSC_FALSE, &p));
  Ad = p.Ad;
  Ao = p.Ao;
  if (Ao) halo = &ctx->cache.halo;
  PetscCall(MatAIJHybridSORUpdate(&ctx->cache.sor, A, Ad, &ctx->cache.diag, omega, fshift));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &d.ai, &d.aj, (PetscScalar **)&d.aa, NULL));
  d.oi = d.oj = NULL;
  d.oa        = NULL;
  if (Ao) {
    PetscCall(MatSeqAIJGetCSRAndMemType(Ao, &d.oi, &d.oj, (PetscScalar **)&oa, NULL));
    d.oa = oa;
  }
  d.bounds = ctx->cache.diag.bounds;
  d.T      = ctx->cache.diag.params.nthreads;
  d.g      = NULL;
  PetscCall(VecGetArrayRead(bb, &d.b));
  PetscCall(VecGetArray(xx, &d.x));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_SOR, A, 0, 0, 0));
  if (run == SOR_RUN_APPLYUPPER) {
#pragma omp parallel num_threads(d.T)
    SORRegion(&d, &ctx->cache.sor, run, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, lits, omega, fshift);
    sweeps = 1;
  } else if (run == SOR_RUN_EISENSTAT) {
#pragma omp parallel num_threads(d.T)
    SORRegion(&d, &ctx->cache.sor, SOR_RUN_SWEEP, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, lits, omega, fshift);
    if (halo) PetscCall(SORGhosts(halo, &d));
#pragma omp parallel num_threads(d.T)
    SORRegion(&d, &ctx->cache.sor, SOR_RUN_EISENSTAT, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, lits, omega, fshift);
    sweeps = 2 * lits;
  } else {
    if (zero) {
#pragma omp parallel num_threads(d.T)
      SORRegion(&d, &ctx->cache.sor, SOR_RUN_SWEEP, PETSC_FALSE, forward, backward, PETSC_TRUE, lits, omega, fshift);
      sweeps += lits;
      its--;
    }
    while (its-- > 0) {
      if (halo) PetscCall(SORGhosts(halo, &d));
#pragma omp parallel num_threads(d.T)
      SORRegion(&d, &ctx->cache.sor, SOR_RUN_SWEEP, PETSC_TRUE, forward, backward, PETSC_FALSE, lits, omega, fshift);
      sweeps += lits;
    }
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_SOR, A, 0, 0, 0));
  PetscCall(VecRestoreArrayRead(bb, &d.b));
  PetscCall(VecRestoreArray(xx, &d.x));
  PetscCall(PetscLogFlops(2.0 * (ctx->cache.sor.key.nz + (Ao ? ctx->cache.offd.key.nz : 0)) * sweeps));
  PetscFunctionReturn(PETSC_SUCCESS);
}
