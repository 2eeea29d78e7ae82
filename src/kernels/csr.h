/*
   Pure CSR kernels over a range of rows, on raw arrays. They call nothing: safe on any thread.

   Every row is summed left to right in its stored order, starting from 0 (mult) or from the
   value being added to (multadd), exactly as PETSc's SeqAIJ kernels do, so results do not
   depend on how rows are split between threads.

   Software prefetch (-mat_aijhybrid_prefetch, src/mat/tune.c; pd > 0): before each row the
   forward kernels ask for the cache lines of the values and column indices up to pd nonzeros past
   the row's end, each line once, into all cache levels. It changes no arithmetic.
*/
#ifndef AIJHYBRID_KERNELS_CSR_H
#define AIJHYBRID_KERNELS_CSR_H

#include <petscsys.h>

#if defined(__GNUC__)
  #define AIJHybridPrefetchLine(p) __builtin_prefetch((p), 0, 3)
#elif defined(PETSC_Prefetch) && defined(PETSC_PREFETCH_HINT_T0)
  #define AIJHybridPrefetchLine(p) PETSC_Prefetch((p), 0, PETSC_PREFETCH_HINT_T0)
#else
  #define AIJHybridPrefetchLine(p) ((void)(p))
#endif
#if defined(PETSC_LEVEL1_DCACHE_LINESIZE) && PETSC_LEVEL1_DCACHE_LINESIZE >= 16
  #define AIJHYBRID_LINE_BYTES PETSC_LEVEL1_DCACHE_LINESIZE
#else
  #define AIJHYBRID_LINE_BYTES 64
#endif

/* the prefetch position of a kernel: entries below pa (values) and pj (column indices) were asked
   for; lim caps them (the end of the kernel's nonzeros: no address past the arrays is formed) */
typedef struct {
  PetscInt pa, pj, lim;
} AIJHybridPrefetch;

static inline void AIJHybridPrefetchInit(AIJHybridPrefetch *p, PetscInt first, PetscInt end)
{
  p->pa  = first;
  p->pj  = first;
  p->lim = end;
}

/* ask for the lines of aa[] and aj[] up to (not including) nonzero upto, capped by p->lim */
static inline void AIJHybridPrefetchTo(AIJHybridPrefetch *p, PetscInt upto, const PetscInt *aj, const PetscScalar *aa)
{
  const PetscInt sa = AIJHYBRID_LINE_BYTES / (PetscInt)sizeof(PetscScalar), sj = AIJHYBRID_LINE_BYTES / (PetscInt)sizeof(PetscInt);

  if (upto > p->lim) upto = p->lim;
  for (; p->pa < upto; p->pa += sa) AIJHybridPrefetchLine(aa + p->pa);
  for (; p->pj < upto; p->pj += sj) AIJHybridPrefetchLine(aj + p->pj);
}

/* y[i] = z[i] + A(i,:) x for i in [rs, re) (z NULL: y[i] = A(i,:) x); z may be y. pd: prefetch
   distance in nonzeros, 0 for none (the tests on z and pd are once per row, outside the nonzero loop) */
static inline void AIJHybridKernelMultAdd(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscScalar *PETSC_RESTRICT x, const PetscScalar *z, PetscScalar *y,
                                          PetscInt pd)
{
  AIJHybridPrefetch p = {0, 0, 0};

  if (rs >= re) return;
  if (pd > 0) AIJHybridPrefetchInit(&p, ai[rs], ai[re]);
  for (PetscInt i = rs; i < re; i++) {
    PetscScalar sum = z ? z[i] : 0.0;
    if (pd > 0) AIJHybridPrefetchTo(&p, ai[i + 1] + pd, aj, aa);
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) sum += aa[k] * x[aj[k]];
    y[i] = sum;
  }
}

/* y[r] += A(r,:) x for r = rows[k], k in [ks, ke): the non-empty rows of an off-diagonal block, in
   increasing order. pd: prefetch distance in nonzeros, 0 for none */
static inline void AIJHybridKernelMultAddRows(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT rows, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa,
                                              const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y, PetscInt pd)
{
  AIJHybridPrefetch p = {0, 0, 0};

  if (ks >= ke) return;
  if (pd > 0) AIJHybridPrefetchInit(&p, ai[rows[ks]], ai[rows[ke - 1] + 1]);
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt r   = rows[k];
    PetscScalar    sum = y[r];
    if (pd > 0) AIJHybridPrefetchTo(&p, ai[r + 1] + pd, aj, aa);
    for (PetscInt l = ai[r]; l < ai[r + 1]; l++) sum += aa[l] * x[aj[l]];
    y[r] = sum;
  }
}

/* transpose through a cached CSC copy: column c of A is row c of A^T, its entries are tv[k] at rows
   tj[k], k in [ti[c], ti[c+1]), in increasing row order (the order SeqAIJ's transpose adds them).
   y[c] = z[c] + sum (z NULL: start from 0) for c in [cs, ce) */
static inline void AIJHybridKernelMultTransposeCSC(PetscInt cs, PetscInt ce, const PetscInt *PETSC_RESTRICT ti, const PetscInt *PETSC_RESTRICT tj, const PetscScalar *PETSC_RESTRICT tv, const PetscScalar *PETSC_RESTRICT x, const PetscScalar *z,
                                                   PetscScalar *y)
{
  for (PetscInt c = cs; c < ce; c++) {
    PetscScalar sum = z ? z[c] : 0.0;
    for (PetscInt k = ti[c]; k < ti[c + 1]; k++) sum += tv[k] * x[tj[k]];
    y[c] = sum;
  }
}

#endif
