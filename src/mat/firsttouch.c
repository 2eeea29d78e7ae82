/*
   NUMA first touch (-mat_aijhybrid_first_touch): the products multiply copies of the CSR blocks
   whose pages were first written by the threads that read them, so that on a machine with several
   memory domains the operating system places each thread's rows in its own domain (Linux places a
   page where it is first touched). The vectors MatCreateVecs() makes for the matrix are first
   touched the same way.

   The copies are mmap()ed, not PetscMalloc()ed: a large malloc() may reuse heap pages the main
   thread has already touched, an anonymous mapping never does. They cost as much memory as the
   blocks they copy (PETSc's memory logging does not see them) and a copy of the values whenever
   the values change (the block's object state), done in parallel by the same threads.
*/
#include "cache.h"
#include <petsc/private/vecimpl.h>
#include <sys/mman.h>

static PetscErrorCode FreshPages(size_t bytes, void **p)
{
  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(PETSC_SUCCESS);
  *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  PetscCheck(*p != MAP_FAILED, PETSC_COMM_SELF, PETSC_ERR_MEM, "mmap() of %zu bytes for -mat_aijhybrid_first_touch failed", bytes);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReleasePages(size_t bytes, void **p)
{
  PetscFunctionBegin;
  if (*p) PetscCheck(!munmap(*p, bytes), PETSC_COMM_SELF, PETSC_ERR_SYS, "munmap() failed");
  *p = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridFirstTouchReset(AIJHybridFirstTouchCopy *m)
{
  const PetscInt rows = m->key.m, nz = m->key.nz;

  PetscFunctionBegin;
  PetscCall(ReleasePages(sizeof(PetscInt) * (rows + 1), (void **)&m->i));
  PetscCall(ReleasePages(sizeof(PetscInt) * nz, (void **)&m->j));
  PetscCall(ReleasePages(sizeof(PetscScalar) * nz, (void **)&m->a));
  PetscCall(PetscFree2(m->rowb, m->nzb));
  PetscCall(MatAIJHybridBlockKeyRelease(&m->key));
  m->nparts = m->nthreads = 0;
  m->state                = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the placement a row partition asks for, entry t of P+1: part t's first i entry and first nonzero */
static inline void PlacementAt(const AIJHybridRowPart *part, PetscInt m, const PetscInt *ai, PetscInt t, PetscInt *rowb, PetscInt *nzb)
{
  const PetscInt P = part->params.nthreads, b = part->bounds[t];

  if (t == 0) {
    *rowb = 0;
    *nzb  = 0;
  } else if (part->compressed) {
    *rowb = b < part->nrows ? part->rows[b] : m + 1;
    *nzb  = part->rowptr[b];
  } else {
    *rowb = t == P ? m + 1 : b;
    *nzb  = ai[b];
  }
}

/* whether the cached placement rowb, nzb (P+1 entries each) is the one part asks for */
static PetscBool PlacementSame(const AIJHybridRowPart *part, PetscInt m, const PetscInt *ai, const PetscInt *rowb, const PetscInt *nzb)
{
  for (PetscInt t = 0; t <= part->params.nthreads; t++) {
    PetscInt r, z;

    PlacementAt(part, m, ai, t, &r, &z);
    if (r != rowb[t] || z != nzb[t]) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/*
  MatAIJHybridFirstTouchUpdate - the arrays of m, the first-touch copy of block (of A), (re)placed
  when the pattern, the partition or the thread count changed and refreshed when the values
  changed. part is the partition the product runs over, with part t on thread t mod nthreads.
*/
PetscErrorCode MatAIJHybridFirstTouchUpdate(AIJHybridFirstTouchCopy *m, Mat A, Mat block, const AIJHybridRowPart *part, PetscInt nthreads, const PetscInt **i, const PetscInt **j, PetscScalar **a)
{
  const PetscInt   *ai, *aj;
  PetscScalar      *aa;
  AIJHybridBlockKey key;
  PetscObjectState  state;
  const PetscInt    P = part->params.nthreads;
  PetscBool         place;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridBlockKeyRead(block, &key, &ai, &aj));
  PetscCall(MatSeqAIJGetCSRAndMemType(block, NULL, NULL, &aa, NULL));
  PetscCall(PetscObjectStateGet((PetscObject)block, &state));
  /* compared in place: no allocation on the products that reuse the copy */
  place = (PetscBool)(!MatAIJHybridBlockKeySame(&m->key, &key) || m->nparts != P || m->nthreads != nthreads || !PlacementSame(part, key.m, ai, m->rowb, m->nzb));
  if (place) {
    PetscCall(MatAIJHybridFirstTouchReset(m));
    PetscCall(MatAIJHybridBlockKeyHold(&m->key, &key, A));
    PetscCall(FreshPages(sizeof(PetscInt) * (key.m + 1), (void **)&m->i));
    PetscCall(FreshPages(sizeof(PetscInt) * key.nz, (void **)&m->j));
    PetscCall(FreshPages(sizeof(PetscScalar) * key.nz, (void **)&m->a));
    PetscCall(PetscMalloc2(P + 1, &m->rowb, P + 1, &m->nzb));
    for (PetscInt t = 0; t <= P; t++) PlacementAt(part, key.m, ai, t, &m->rowb[t], &m->nzb[t]);
    m->nparts   = P;
    m->nthreads = nthreads;
  }
  if (place || state != m->state) {
    const PetscInt *rb = m->rowb, *zb = m->nzb;
    PetscInt       *mi = m->i, *mj = m->j;
    PetscScalar    *ma = m->a;

#pragma omp parallel num_threads(nthreads)
    {
      const PetscInt nth = omp_get_num_threads();
      for (PetscInt t = omp_get_thread_num(); t < P; t += nth) {
        if (place) {
          for (PetscInt r = rb[t]; r < rb[t + 1]; r++) mi[r] = ai[r];
          for (PetscInt k = zb[t]; k < zb[t + 1]; k++) mj[k] = aj[k];
        }
        for (PetscInt k = zb[t]; k < zb[t + 1]; k++) ma[k] = aa[k];
      }
    }
    m->state = state;
  }
  *i = m->i;
  *j = m->j;
  *a = m->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the array of a vector made by MatCreateVecs(), unmapped when the vector is destroyed */
typedef struct {
  void  *p;
  size_t bytes;
} FirstTouchArray;

/* the container's destroy: it gets the context up to PETSc 3.22, the context's address from 3.23 */
static PetscErrorCode FirstTouchArrayDestroy(void *ctx)
{
#if PETSC_VERSION_LT(3, 23, 0)
  FirstTouchArray *fa = (FirstTouchArray *)ctx;
#else
  FirstTouchArray *fa = *(FirstTouchArray **)ctx;
#endif

  PetscFunctionBegin;
  PetscCall(ReleasePages(fa->bytes, &fa->p));
  PetscCall(PetscFree(fa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridFirstTouchVecCreate - a standard vector of layout map whose entries [bounds[t],
  bounds[t+1]) were first written by thread t of T (equal parts when bounds is NULL)
*/
PetscErrorCode MatAIJHybridFirstTouchVecCreate(MPI_Comm comm, PetscLayout map, PetscInt T, const PetscInt bounds[], Vec *v)
{
  const PetscInt   n = map->n;
  FirstTouchArray *fa;
  PetscScalar     *x;
  PetscContainer   container;
  PetscMPIInt      size;
  PetscInt         bs;

  PetscFunctionBegin;
  PetscCall(PetscNew(&fa));
  fa->bytes = sizeof(PetscScalar) * n;
  PetscCall(FreshPages(fa->bytes, &fa->p));
  x = (PetscScalar *)fa->p;
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();
    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) {
      const PetscInt s = bounds ? bounds[t] : (n * t) / T, e = bounds ? bounds[t + 1] : (n * (t + 1)) / T;
      for (PetscInt r = s; r < e; r++) x[r] = 0.0;
    }
  }
  PetscCall(PetscLayoutGetBlockSize(map, &bs));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) PetscCall(VecCreateMPIWithArray(comm, bs, n, map->N, x, v));
  else PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, bs, n, x, v));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, fa));
#if PETSC_VERSION_LT(3, 23, 0)
  PetscCall(PetscContainerSetUserDestroy(container, FirstTouchArrayDestroy));
#else
  PetscCall(PetscContainerSetCtxDestroy(container, FirstTouchArrayDestroy));
#endif
  PetscCall(PetscObjectCompose((PetscObject)*v, "MatAIJHybrid_FirstTouchArray", (PetscObject)container));
  PetscCall(PetscLayoutReference(map, &(*v)->map));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(PETSC_SUCCESS);
}
