/*
   Caches built at assembly and checked before every product: the thread partitions of the rows of
   each block, the CSC patterns of the blocks for the race-free transposes, and the positions and
   diagonals of the thread-local SOR sweeps. Each is keyed on the block's identity and nonzero
   pattern and on the partition parameters.
*/
#include "cache.h"
#include "../kernels/sor.h"
#include "productplan.h"

/* the log events of the matrix types (registered with the package, src/register.c) */
PetscLogEvent MATAIJHYBRID_Partition, MATAIJHYBRID_HaloBegin, MATAIJHYBRID_HaloEnd, MATAIJHYBRID_Mult, MATAIJHYBRID_Transpose;
PetscLogEvent MATAIJHYBRID_SOR;

/* the key of block as it is now, and its CSR row pointers and column indices */
PetscErrorCode MatAIJHybridBlockKeyRead(Mat block, AIJHybridBlockKey *key, const PetscInt **ai, const PetscInt **aj)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(key, sizeof(*key)));
  key->block = block;
  key->m     = block->rmap->n;
  key->n     = block->cmap->n;
  PetscCall(MatGetNonzeroState(block, &key->nzstate));
  PetscCall(MatSeqAIJGetCSRAndMemType(block, ai, aj, NULL, NULL));
  key->nz = key->m ? (*ai)[key->m] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool MatAIJHybridBlockKeySame(const AIJHybridBlockKey *a, const AIJHybridBlockKey *b)
{
  return (PetscBool)(a->block == b->block && a->nzstate == b->nzstate && a->m == b->m && a->n == b->n && a->nz == b->nz);
}

PetscErrorCode MatAIJHybridBlockKeyRelease(AIJHybridBlockKey *key)
{
  PetscFunctionBegin;
  if (key->owns_ref) PetscCall(MatDestroy(&key->block));
  PetscCall(PetscMemzero(key, sizeof(*key)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* keep key in held; a block other than A (the matrix owning the cache) is referenced */
PetscErrorCode MatAIJHybridBlockKeyHold(AIJHybridBlockKey *held, const AIJHybridBlockKey *key, Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRelease(held));
  *held = *key;
  if (key->block != A) {
    PetscCall(PetscObjectReference((PetscObject)key->block));
    held->owns_ref = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridRowPartReset(AIJHybridRowPart *p)
{
  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRelease(&p->key));
  PetscCall(PetscFree(p->rows));
  PetscCall(PetscFree(p->rowptr));
  PetscCall(PetscFree(p->bounds));
  p->nrows = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridTransposeReset(AIJHybridTranspose *t)
{
  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRelease(&t->key));
  PetscCall(PetscFree4(t->ti, t->tj, t->perm, t->tv));
  t->tvalid = PETSC_FALSE;
  PetscCall(MatAIJHybridRowPartReset(&t->part));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool SameParams(const AIJHybridPartParams *a, const AIJHybridPartParams *b)
{
  return (PetscBool)(a->nthreads == b->nthreads && a->type == b->type && a->row_cost == b->row_cost && a->diffusion_tol == b->diffusion_tol && a->diffusion_max_it == b->diffusion_max_it && a->task_share == b->task_share);
}

/* bounds[0..T] of n rows with cumulative nonzeros rowptr into T parts by the partitioner of params */
static PetscErrorCode PartitionRange(PetscInt n, const PetscInt *rowptr, PetscInt T, const AIJHybridPartParams *params, PetscInt *bounds, PetscInt *sweeps)
{
  AIJHybridCost cost;

  PetscFunctionBegin;
  cost.n      = n;
  cost.rowptr = rowptr;
  cost.c      = params->type == MAT_AIJHYBRID_PARTITION_ROWS ? 1.0 : params->row_cost;
  *sweeps     = 0;
  if (n == 0) {
    for (PetscInt t = 0; t <= T; t++) bounds[t] = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (params->type) {
  case MAT_AIJHYBRID_PARTITION_ROWS:
    PetscCall(AIJHybridPartitionRows(n, T, bounds));
    break;
  case MAT_AIJHYBRID_PARTITION_NNZ:
    PetscCall(AIJHybridPartitionGreedy(&cost, T, bounds));
    break;
  case MAT_AIJHYBRID_PARTITION_DIFFUSION:
    PetscCall(AIJHybridPartitionDiffusion(&cost, T, params->diffusion_tol, params->diffusion_max_it, bounds, sweeps));
    break;
  case MAT_AIJHYBRID_PARTITION_OPTIMAL:
    PetscCall(AIJHybridPartitionOptimal(&cost, T, bounds));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  compute p->bounds for n rows with cumulative nonzeros rowptr; with a task share (params->task_share >= 0)
  part 0 is the leading rows whose cost is closest to task_share times an equal share, and parts 1..T-1
  split the remaining rows with the chosen partitioner
*/
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
  cost.c      = params->row_cost;
  if (params->task_share >= 0 && T > 1) {
    PetscInt r0 = 0;

    if (n > 0) PetscCall(AIJHybridPartitionTaskShare(&cost, T, params->task_share, &r0));
    p->bounds[0] = 0;
    PetscCall(PartitionRange(n - r0, rowptr + r0, T - 1, params, p->bounds + 1, &p->sweeps));
    for (PetscInt t = 1; t <= T; t++) p->bounds[t] += r0;
  } else PetscCall(PartitionRange(n, rowptr, T, params, p->bounds, &p->sweeps));
  /* imbalance is always reported in nonzeros + row cost, the quantity the kernel streams; with a
     task share part, over the parts 1..T-1 (part 0 is smaller by design) */
  if (n > 0 && params->task_share >= 0 && T > 1) {
    const PetscInt r0 = p->bounds[1];
    PetscInt      *rel;

    PetscCall(PetscMalloc1(T, &rel));
    for (PetscInt t = 0; t < T; t++) rel[t] = p->bounds[t + 1] - r0;
    cost.n      = n - r0;
    cost.rowptr = rowptr + r0;
    PetscCall(AIJHybridPartitionImbalance(&cost, T - 1, rel, &p->imbalance));
    PetscCall(PetscFree(rel));
  } else if (n > 0) PetscCall(AIJHybridPartitionImbalance(&cost, T, p->bounds, &p->imbalance));
  else p->imbalance = 1.0;
  p->params = *params;
  p->nrows  = n;
  PetscCall(PetscTime(&t1));
  p->build_time = t1 - t0;
  p->builds++;
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Partition, 0, 0, 0, 0));
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
  const PetscInt   *ai, *aj;
  AIJHybridBlockKey key;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRead(block, &key, &ai, &aj));
  if (!MatAIJHybridBlockKeySame(&p->key, &key) || p->compressed != compressed) {
    PetscInt builds = p->builds;

    PetscCall(MatAIJHybridRowPartReset(p));
    p->builds = builds;
    PetscCall(MatAIJHybridBlockKeyHold(&p->key, &key, A));
    p->compressed = compressed;
    if (compressed) {
      PetscInt k = 0;
      for (PetscInt i = 0; i < key.m; i++)
        if (ai[i + 1] > ai[i]) k++;
      PetscCall(PetscMalloc1(k, &p->rows));
      PetscCall(PetscMalloc1(k + 1, &p->rowptr));
      k = 0;
      for (PetscInt i = 0; i < key.m; i++)
        if (ai[i + 1] > ai[i]) {
          p->rows[k]   = i;
          p->rowptr[k] = ai[i];
          k++;
        }
      p->rowptr[k] = key.nz;
      p->nrows     = k;
    }
  } else if (p->bounds && SameParams(&p->params, params)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(RowPartBuildBounds(p, compressed ? p->nrows : key.m, compressed ? p->rowptr : ai, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridTransposeUpdate - (re)build the CSC pattern of block (entries of each column in
  increasing row order, so each transposed sum runs in the order SeqAIJ's transpose uses) and the
  thread partition of its columns. Its values are copied by MatAIJHybridTransposeValues().
*/
PetscErrorCode MatAIJHybridTransposeUpdate(AIJHybridTranspose *t, Mat A, Mat block, const AIJHybridPartParams *params)
{
  const PetscInt   *ai, *aj;
  AIJHybridBlockKey key;
  const PetscInt    m = block->rmap->n, n = block->cmap->n;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRead(block, &key, &ai, &aj));
  if (!t->ti || !MatAIJHybridBlockKeySame(&t->key, &key)) {
    const PetscInt     nz  = key.nz;
    const AIJHybridCSR csr = {ai, aj, NULL, NULL, NULL, NULL, 0};

    PetscCall(MatAIJHybridTransposeReset(t));
    PetscCall(MatAIJHybridBlockKeyHold(&t->key, &key, A));
    PetscCall(PetscLogEventBegin(MATAIJHYBRID_Partition, 0, 0, 0, 0));
    PetscCall(PetscMalloc4(n + 1, &t->ti, nz, &t->tj, nz, &t->perm, nz, &t->tv));
    /* on the threads of the products (fewer for a small block: AIJHybridProductThreads()) */
    PetscCall(AIJHybridTransposePattern(&csr, m, n, nz, AIJHybridProductThreads(params->nthreads, (PetscLogDouble)nz), t->ti, t->tj, t->perm));
    PetscCall(PetscLogEventEnd(MATAIJHYBRID_Partition, 0, 0, 0, 0));
    PetscCall(PetscFree(t->part.bounds)); /* force the column partition to be rebuilt */
  }
  if (!t->part.bounds || !SameParams(&t->part.params, params)) PetscCall(RowPartBuildBounds(&t->part, n, t->ti, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridTransposeValues - the values of block (of A) in the column order of t (built by
  MatAIJHybridTransposeUpdate()), copied again when the state of A or of block changed since the
  last copy (a public change of A's values increases A's state, also where PETSc changes the block
  through its operations directly, e.g. MatDiagonalScale_MPIAIJ; a change through the block's own
  calls increases the block's). Each thread copies the columns it multiplies (first touch).
*/
PetscErrorCode MatAIJHybridTransposeValues(AIJHybridTranspose *t, Mat A, Mat block, PetscInt nthreads, const PetscScalar **tv)
{
  PetscObjectState state[2];

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state[0]));
  PetscCall(PetscObjectStateGet((PetscObject)block, &state[1]));
  if (!t->tvalid || state[0] != t->state[0] || state[1] != t->state[1]) {
    const PetscScalar *aa;
    const PetscInt    *ti = t->ti, *perm = t->perm, *bounds = t->part.bounds, P = t->part.params.nthreads;
    PetscScalar       *v = t->tv;

    PetscCall(MatSeqAIJGetCSRAndMemType(block, NULL, NULL, (PetscScalar **)&aa, NULL));
#pragma omp parallel num_threads(nthreads)
    {
      const PetscInt nth = omp_get_num_threads();
      for (PetscInt p = omp_get_thread_num(); p < P; p += nth)
        for (PetscInt k = ti[bounds[p]]; k < ti[bounds[p + 1]]; k++) v[k] = aa[perm[k]];
    }
    t->state[0] = state[0];
    t->state[1] = state[1];
    t->tvalid   = PETSC_TRUE;
  }
  *tv = t->tv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

/*
  MatAIJHybridSORUpdate - the positions of the rows of the diagonal block Ad (of A) for its pattern
  and its thread partition diag, and the (inverse) diagonal for its values, omega and fshift
  (MatInvertDiagonal_SeqAIJ's rule)
*/
PetscErrorCode MatAIJHybridSORUpdate(AIJHybridSOR *s, Mat A, Mat Ad, const AIJHybridRowPart *diag, PetscReal omega, PetscReal fshift)
{
  AIJHybridBlockKey key;
  const PetscInt   *ai, *aj, *bounds = diag->bounds;
  const PetscInt    T = diag->params.nthreads;
  PetscObjectState  state;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRead(Ad, &key, &ai, &aj));
  if (!s->lo || !MatAIJHybridBlockKeySame(&s->key, &key) || s->partbuilds != diag->builds) {
    const PetscInt m = key.m;

    PetscCall(MatAIJHybridSORReset(s));
    PetscCall(MatAIJHybridBlockKeyHold(&s->key, &key, A));
    s->m          = m;
    s->partbuilds = diag->builds;
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
