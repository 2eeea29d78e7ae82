/*
   Pure helpers of the thread-block factorization (-mat_aijhybrid_factor_blocks thread): the rows of
   a matrix split into one block of consecutive rows per thread, as PETSc splits rows over ranks; the
   block-diagonal part of the matrix (every entry whose row and column fall in the same block), the
   matrix PCBJACOBI would factor block by block on as many ranks; and orderings made to keep each
   block's rows in the block. No MPI, no PETSc objects, no global state; arrays allocated with
   PetscMalloc, freed by the caller with PetscFree.
*/
#ifndef AIJHYBRID_FACTOR_BLOCKS_H
#define AIJHYBRID_FACTOR_BLOCKS_H

#include "../compat.h"

PETSC_INTERN void           AIJHybridBlocksSplit(PetscInt, PetscInt, PetscInt[]);
PETSC_INTERN PetscErrorCode AIJHybridBlocksPattern(PetscInt, const PetscInt[], const PetscInt[], PetscInt, const PetscInt[], PetscInt[], PetscInt **, PetscInt **, PetscBool *);
PETSC_INTERN PetscErrorCode AIJHybridBlocksRestrict(PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscInt[]);

/* the values of the block-diagonal part for rows [rs, re): row i is the nonzeros lo[i] .. of the
   matrix's row, bi[i+1] - bi[i] of them (AIJHybridBlocksPattern()) */
static inline void AIJHybridBlocksValues(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT lo, const PetscInt *PETSC_RESTRICT bi, const PetscScalar *PETSC_RESTRICT aa, PetscScalar *PETSC_RESTRICT ba)
{
  for (PetscInt i = rs; i < re; i++) {
    const PetscScalar *v = aa + lo[i];
    PetscScalar       *w = ba + bi[i];
    const PetscInt     m = bi[i + 1] - bi[i];

    for (PetscInt k = 0; k < m; k++) w[k] = v[k];
  }
}

#endif
