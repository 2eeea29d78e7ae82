/*
   MATMPIAIJHYBRID: a MATMPIAIJ whose products run with OpenMP threads inside each rank.

   One product, top to bottom (MatMultAdd_MPIAIJHybrid_Private), in one parallel region:
     task mode:   thread 0 (the main thread) drives the halo exchange of the ghost values of x
                  while threads 1..T-1 multiply the diagonal block over their rows;
     vector mode: the main thread completes the exchange first, then all threads do the diagonal block;
     then, after a barrier, all threads multiply the non-empty rows of the off-diagonal block
     over a separate partition. Every MPI call is made by the main thread.
   The halo exchange is one PetscSF (src/mat/halo.c: basic, or nodeaware with
   -mat_aijhybrid_node_aware, or what -sf_type says). The partitions, the exchange and the ghost
   buffers are prepared at assembly end and cached on the nonzero pattern; a product only checks
   that they are still valid.
*/
#include "../aijhybrid.h"

/*
  MatAIJHybridMPISetUp - collective: rebuild the halo exchange if any rank's off-diagonal block
  (its ghost columns) changed, and the local partitions if their keys changed
*/
static PetscErrorCode MatAIJHybridMPISetUp(Mat A)
{
  Mat_AIJHybrid      *ctx;
  Mat                 Ad, Ao;
  PetscInt            nghost;
  PetscMPIInt         local[2], global[2];
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  nghost   = Ao->cmap->n;
  local[0] = (PetscMPIInt)(Ao != ctx->halo_block || nghost != ctx->nghost || !ctx->halo); /* changed here */
  local[1] = (PetscMPIInt)(nghost > 0);                                                  /* has ghosts */
  PetscCallMPI(MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  ctx->has_offproc = (PetscBool)global[1];
  PetscCall(MatAIJHybridHaloUpdate(A, ctx, (PetscBool)global[0])); /* on every rank when the pattern changed somewhere */
  PetscCall(AIJHybridCountRanksOnNode(PetscObjectComm((PetscObject)A)));
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  PetscCall(AIJHybridCheckOversubscription((PetscObject)A, params.nthreads));
  PetscCall(MatAIJHybridTagBlock(Ad, params.nthreads)); /* for the factors of the block (PCBJACOBI), src/mat/block.c */
  PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag, A, Ad, PETSC_FALSE, &params));
  PetscCall(MatAIJHybridRowPartUpdate(&ctx->offd, A, Ao, PETSC_TRUE, &params));
  if (MatAIJHybridEffectiveMode(ctx, params.nthreads) == MAT_AIJHYBRID_MODE_TASK) {
    params.lead = ctx->task_lead;
    PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag_task, A, Ad, PETSC_FALSE, &params));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* local checks before a product: the exchange must match the blocks (it is only rebuilt collectively) */
static PetscErrorCode MatAIJHybridMPIPrepare(Mat A, Mat *Ad, Mat *Ao, MatAIJHybridMode *mode)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridPartParams params;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, NULL));
  PetscCheck(ctx->halo && *Ao == ctx->halo_block && (*Ao)->cmap->n == ctx->nghost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The off-diagonal block of this %s matrix changed without MatAssemblyEnd(); call MatAssemblyBegin/End() after changing the matrix", MATMPIAIJHYBRID);
  PetscCall(MatAIJHybridHaloUpdate(A, ctx, PETSC_FALSE)); /* node-aware switched, or node size changed, since the setup (logically collective options) */
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  PetscCall(AIJHybridCheckOversubscription((PetscObject)A, params.nthreads));
  PetscCall(MatAIJHybridTagBlock(*Ad, params.nthreads));
  PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag, A, *Ad, PETSC_FALSE, &params));
  PetscCall(MatAIJHybridRowPartUpdate(&ctx->offd, A, *Ao, PETSC_TRUE, &params));
  *mode = MatAIJHybridEffectiveMode(ctx, params.nthreads);
  if (*mode == MAT_AIJHYBRID_MODE_TASK) {
    params.lead = ctx->task_lead;
    PetscCall(MatAIJHybridRowPartUpdate(&ctx->diag_task, A, *Ad, PETSC_FALSE, &params));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the halo exchange: PetscSF's own begin/end on the matrix's halo SF (src/mat/halo.c), under the package's log events */
static PetscErrorCode HaloForwardBegin(Mat_AIJHybrid *ctx, const PetscScalar *x, PetscScalar *ghost)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscCall(PetscSFBcastBegin(ctx->halo, MPIU_SCALAR, x, ghost, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode HaloForwardEnd(Mat_AIJHybrid *ctx, const PetscScalar *x, PetscScalar *ghost)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(PetscSFBcastEnd(ctx->halo, MPIU_SCALAR, x, ghost, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode HaloReverseBegin(Mat_AIJHybrid *ctx, const PetscScalar *ghost, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscCall(PetscSFReduceBegin(ctx->halo, MPIU_SCALAR, ghost, y, MPIU_SUM));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode HaloReverseEnd(Mat_AIJHybrid *ctx, const PetscScalar *ghost, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(PetscSFReduceEnd(ctx->halo, MPIU_SCALAR, ghost, y, MPIU_SUM));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* diagonal-block parts first, first + step, ... of a partition into Td parts: y = (z +) Ad x */
static inline void DiagParts(PetscInt first, PetscInt step, PetscInt Td, const PetscInt *bounds, const PetscInt *di, const PetscInt *dj, const PetscScalar *da, const PetscScalar *xa, const PetscScalar *za, PetscScalar *ya, PetscInt pd)
{
  for (PetscInt t = first; t < Td; t += step) AIJHybridKernelMultAdd(bounds[t], bounds[t + 1], di, dj, da, xa, za, ya, pd);
}

/*
  y = A x, or y = z + A x when z is given (z may be y).

  vector mode: the main thread completes the halo exchange; then, in one parallel region, every
               thread multiplies its rows of the diagonal block, a barrier, and every thread its
               share of the non-empty rows of the off-diagonal block.
  task mode:   one parallel region: thread 0 (the main thread, so MPI_THREAD_FUNNELED suffices)
               begins and ends the halo exchange while threads 1..T-1 multiply their parts of the
               diagonal block; thread 0 then multiplies its own part, the leading rows, sized from
               the measured exchange time so that it finishes with the others
               (MatAIJHybridTaskShareAdapt(), or fixed by -mat_aijhybrid_task_share); a barrier;
               then all T threads multiply the off-diagonal block.
  Part t of a partition runs on thread t mod nth (nth < T only if OpenMP gives fewer threads). No
  PETSc call is made by a thread other than 0; errors of thread 0 are kept and checked after the
  region. Each thread adds its busy time per phase to its own (padded) slot of ctx->tstat with
  omp_get_wtime(): no PETSc call on workers.
*/
static PetscErrorCode MatMultAdd_MPIAIJHybrid_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_AIJHybrid          *ctx;
  Mat                     Ad, Ao;
  const AIJHybridRowPart *dpart;
  const PetscInt         *di, *dj, *oi, *oj, *dbounds, *obounds, *orows;
  PetscScalar            *da, *oa, *ya, *ghost;
  const PetscScalar      *xa, *za = NULL;
  PetscInt                T, To, pd;
  double                  twall;
  MatAIJHybridMode        mode;
  PetscErrorCode          ierr = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridMPIPrepare(A, &Ad, &Ao, &mode));
  T     = ctx->diag.params.nthreads;
  dpart = mode == MAT_AIJHYBRID_MODE_TASK ? &ctx->diag_task : &ctx->diag;
  PetscCall(MatAIJHybridThreadStatsPrepare(ctx, T, mode));
  pd = MatAIJHybridPrefetchDistance(ctx);
  if (ctx->first_touch) {
    PetscCall(MatAIJHybridMirrorUpdate(&ctx->mdiag, A, Ad, dpart, T, &di, &dj, &da));
    PetscCall(MatAIJHybridMirrorUpdate(&ctx->moffd, A, Ao, &ctx->offd, T, &oi, &oj, &oa));
  } else {
    PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &di, &dj, &da, NULL));
    PetscCall(MatSeqAIJGetCSRAndMemType(Ao, &oi, &oj, &oa, NULL));
  }
  To      = ctx->offd.params.nthreads;
  dbounds = dpart->bounds;
  obounds = ctx->offd.bounds;
  orows   = ctx->offd.rows;
  ghost   = ctx->ghost;
  PetscCall(MatAIJHybridGetVecArrays(x, z, y, &xa, &za, &ya));

  if (mode == MAT_AIJHYBRID_MODE_VECTOR) {
    PetscCall(HaloForwardBegin(ctx, xa, ghost));
    PetscCall(HaloForwardEnd(ctx, xa, ghost));
  }
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Mult, A, 0, 0, 0));
  twall = omp_get_wtime();
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();
    double        *tt  = ctx->tstat + AIJHYBRID_TSTAT_STRIDE * tid, t0 = omp_get_wtime(), t1;

    if (mode == MAT_AIJHYBRID_MODE_TASK && tid == 0) {
      ierr = HaloForwardBegin(ctx, xa, ghost);
      if (!ierr) ierr = HaloForwardEnd(ctx, xa, ghost);
      t1 = omp_get_wtime();
      tt[AIJHYBRID_TSTAT_COMM] += t1 - t0;
      t0 = t1;
    }
    DiagParts(tid, nth, T, dbounds, di, dj, da, xa, za, ya, pd);
    t1 = omp_get_wtime();
    tt[AIJHYBRID_TSTAT_DIAG] += t1 - t0;
#pragma omp barrier
    t0 = omp_get_wtime();
    if (!ierr) {
      for (PetscInt t = tid; t < To; t += nth) AIJHybridKernelMultAddRows(obounds[t], obounds[t + 1], orows, oi, oj, oa, ghost, ya, pd);
    }
    t1 = omp_get_wtime();
    tt[AIJHYBRID_TSTAT_OFFD] += t1 - t0;
  }
  twall = omp_get_wtime() - twall;
  ctx->nprod++;
  PetscCall(ierr);
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Mult, A, 0, 0, 0));
  PetscCall(MatAIJHybridTaskShareAdapt(ctx));
  PetscCall(MatAIJHybridPrefetchRecord(A, ctx, pd, twall));

  PetscCall(MatAIJHybridRestoreVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogFlops(2.0 * (ctx->diag.key.nz + ctx->offd.key.nz) - (z ? 0 : A->rmap->n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIAIJHybrid(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_MPIAIJHybrid_Private(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIAIJHybrid(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAdd_MPIAIJHybrid_Private(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  y = A^T x, or y = z + A^T x: threads compute the ghost contributions Ao^T x and the owned part
  Ad^T x over column partitions of the cached CSC patterns (no two threads write one entry), then
  the main thread adds the ghost contributions to their owners (reverse exchange), in the same
  order as MATMPIAIJ does.
*/
static PetscErrorCode MatMultTransposeAdd_MPIAIJHybrid_Private(Mat A, Vec x, Vec z, Vec y)
{
  Mat_AIJHybrid      *ctx;
  AIJHybridTranspose *td, *to;
  AIJHybridPartParams params;
  MatAIJHybridMode    mode;
  Mat                 Ad, Ao;
  PetscScalar        *da, *oa, *ya, *ghost_t;
  const PetscScalar  *xa, *za = NULL;
  PetscInt            T;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  td  = &ctx->tdiag;
  to  = &ctx->toffd;
  PetscCall(MatAIJHybridMPIPrepare(A, &Ad, &Ao, &mode));
  PetscCall(MatAIJHybridContextCurrentParams(ctx, &params));
  PetscCall(MatAIJHybridTransposeUpdate(td, A, Ad, &params));
  PetscCall(MatAIJHybridTransposeUpdate(to, A, Ao, &params));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, NULL, NULL, &da, NULL));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ao, NULL, NULL, &oa, NULL));
  T       = params.nthreads;
  ghost_t = ctx->ghost_t;
  PetscCall(MatAIJHybridGetVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Transpose, A, 0, 0, 0));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) {
      AIJHybridKernelMultTransposeCSC(to->part.bounds[t], to->part.bounds[t + 1], to->ti, to->tj, to->perm, oa, xa, NULL, ghost_t);
      AIJHybridKernelMultTransposeCSC(td->part.bounds[t], td->part.bounds[t + 1], td->ti, td->tj, td->perm, da, xa, za, ya);
    }
  }
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Transpose, A, 0, 0, 0));
  PetscCall(HaloReverseBegin(ctx, ghost_t, ya));
  PetscCall(HaloReverseEnd(ctx, ghost_t, ya));
  PetscCall(MatAIJHybridRestoreVecArrays(x, z, y, &xa, &za, &ya));
  PetscCall(PetscLogFlops(2.0 * (td->key.nz + to->key.nz)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_MPIAIJHybrid(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAdd_MPIAIJHybrid_Private(A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_MPIAIJHybrid(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAdd_MPIAIJHybrid_Private(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridMPIGhosts - for MatSOR (src/mat/sor.c): the checks and partitions of a product and,
  when x is given, the ghost values of x through the exchange the products use (collective then).
  Ad, Ao, ghost may be NULL.
*/
PetscErrorCode MatAIJHybridMPIGhosts(Mat A, const PetscScalar x[], Mat *Ad, Mat *Ao, PetscScalar **ghost)
{
  Mat_AIJHybrid   *ctx;
  Mat              ad, ao;
  MatAIJHybridMode mode;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  PetscCall(MatAIJHybridMPIPrepare(A, &ad, &ao, &mode));
  if (x) {
    PetscCall(HaloForwardBegin(ctx, x, ctx->ghost));
    PetscCall(HaloForwardEnd(ctx, x, ctx->ghost));
  }
  if (Ad) *Ad = ad;
  if (Ao) *Ao = ao;
  if (ghost) *ghost = ctx->ghost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const AIJHybridTypeInfo AIJHybridMPIInfo = {MATMPIAIJHYBRID, MATMPIAIJ, "MatConvert_mpiaijhybrid_mpiaij_C", "MatConvert_mpiaij_mpiaijhybrid_C", MatMult_MPIAIJHybrid, MatMultAdd_MPIAIJHybrid, MatMultTranspose_MPIAIJHybrid, MatMultTransposeAdd_MPIAIJHybrid, MatAIJHybridMPISetUp};

/*MC
   MATMPIAIJHYBRID - "mpiaijhybrid" - a `MATMPIAIJ` matrix whose products run with OpenMP threads
   inside each MPI rank: the main thread does the halo exchange, then the threads multiply the
   diagonal block and the off-diagonal block over contiguous row partitions computed once per
   nonzero pattern and cached with the matrix. All MPI calls stay on the main thread, so
   `MPI_THREAD_FUNNELED` suffices.

   Options Database Keys:
+  -mat_type aijhybrid                  - select the type (resolves to this one on more than one rank)
.  -mat_aijhybrid_num_threads <n>       - threads per rank (default: what OpenMP gives the process)
.  -mat_aijhybrid_mode <mode>           - auto (default), vector or task (overlap of the halo exchange; mpi only)
.  -mat_aijhybrid_partition <type>      - rows, nnz (default), diffusion or optimal
.  -mat_aijhybrid_row_cost <c>          - per-row cost of the balanced partitions (default 2)
.  -mat_aijhybrid_diffusion_tol <tol>   - diffusion stopping tolerance
.  -mat_aijhybrid_diffusion_max_it <n>  - diffusion sweeps
.  -mat_aijhybrid_task_share <s>        - task mode: thread 0's share of the diagonal block after the exchange (default -1: measured)
.  -mat_aijhybrid_prefetch <d>          - software prefetch distance in nonzeros, 0 off (default -1: chosen from measured products)
.  -mat_aijhybrid_first_touch           - multiply copies of the blocks placed by their threads (NUMA)
.  -mat_aijhybrid_node_aware            - the halo PetscSF is of type nodeaware (one inter-node message per ordered node pair); otherwise -sf_type decides (default basic)
-  -mat_aijhybrid_node_size <k>         - its emulated nodes of k consecutive ranks (default: -sf_nodeaware_node_size, else MPI_COMM_TYPE_SHARED)

   Level: beginner

.seealso: `MATAIJHYBRID`, `MATSEQAIJHYBRID`, `MATMPIAIJ`, `MatAIJHybridSetNumThreads()`
M*/
PetscErrorCode MatCreate_MPIAIJHybrid(Mat A)
{
  /* layouts already set up: MatSetType() is re-typing a matrix that was set up or preallocated */
  const PetscBool wasset = (PetscBool)(A->rmap->setupcalled && A->cmap->setupcalled);

  PetscFunctionBegin;
  PetscCall(MatSetType(A, MATMPIAIJ));
  PetscCall(MatAIJHybridSnapshotBaseOps(A, PETSC_TRUE));
  PetscCall(MatConvert_AIJ_AIJHybrid(A, MATMPIAIJHYBRID, MAT_INPLACE_MATRIX, &A));
  /* MatSetType() dropped that preallocation; a matrix set up before -mat_type aijhybrid (MatSetUp(),
     then MatSetFromOptions()) must stay usable as it does with -mat_type aij, where re-typing is a
     no-op: set it up again (a later MatXAIJSetPreallocation() replaces this default one) */
  if (wasset) PetscCall(MatSetUp(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
