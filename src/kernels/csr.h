/*
   Pure CSR kernels over a range of rows, on raw arrays. They call nothing: safe on any thread.

   Every row is summed left to right in its stored order, starting from 0 (mult) or from the
   value being added to (multadd), exactly as PETSc's SeqAIJ kernels do, so results do not
   depend on how rows are split between threads.
*/
#ifndef AIJHYBRID_KERNELS_CSR_H
#define AIJHYBRID_KERNELS_CSR_H

#include <petscsys.h>

/* y[i] = A(i,:) x for i in [rs, re) */
static inline void AIJHybridKernelMult(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscScalar sum = 0.0;
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) sum += aa[k] * x[aj[k]];
    y[i] = sum;
  }
}

/* y[i] = z[i] + A(i,:) x for i in [rs, re); z may be y */
static inline void AIJHybridKernelMultAdd(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscScalar *PETSC_RESTRICT x, const PetscScalar *z, PetscScalar *y)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscScalar sum = z[i];
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) sum += aa[k] * x[aj[k]];
    y[i] = sum;
  }
}

/* y[r] += A(r,:) x for r = rows[k], k in [ks, ke): the non-empty rows of an off-diagonal block */
static inline void AIJHybridKernelMultAddRows(PetscInt ks, PetscInt ke, const PetscInt *PETSC_RESTRICT rows, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscScalar *PETSC_RESTRICT x, PetscScalar *PETSC_RESTRICT y)
{
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt r   = rows[k];
    PetscScalar    sum = y[r];
    for (PetscInt l = ai[r]; l < ai[r + 1]; l++) sum += aa[l] * x[aj[l]];
    y[r] = sum;
  }
}

/* transpose through a cached CSC pattern: column c of A is row c of A^T, its entries are
   aa[perm[k]] at rows tj[k], k in [ti[c], ti[c+1]), in increasing row order.
   y[c] = z[c] + sum (z NULL: start from 0) for c in [cs, ce) */
static inline void AIJHybridKernelMultTransposeCSC(PetscInt cs, PetscInt ce, const PetscInt *PETSC_RESTRICT ti, const PetscInt *PETSC_RESTRICT tj, const PetscInt *PETSC_RESTRICT perm, const PetscScalar *PETSC_RESTRICT aa, const PetscScalar *PETSC_RESTRICT x, const PetscScalar *z, PetscScalar *y)
{
  for (PetscInt c = cs; c < ce; c++) {
    PetscScalar sum = z ? z[c] : 0.0;
    for (PetscInt k = ti[c]; k < ti[c + 1]; k++) sum += aa[perm[k]] * x[tj[k]];
    y[c] = sum;
  }
}

#endif
