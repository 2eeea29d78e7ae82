/*
   The threaded steps of the sparse matrix products (src/mat/productplan.c), on raw CSR arrays: the
   product C = A B (AIJHybridSpGEMM: rows balanced by their flops, pattern counted then filled,
   values) and the transpose (AIJHybridTransposePlan), each made once at the symbolic phase and run
   again with new values at every numeric phase. All the allocation and every PETSc call is on the
   main thread, before or after a parallel region; the regions run the pure kernels of
   src/kernels/spgemm.h. The matrix products of the two types (matproduct.c, matproductmpi.c) are
   built from these steps.
*/
#ifndef AIJHYBRID_MAT_PRODUCTPLAN_H
#define AIJHYBRID_MAT_PRODUCTPLAN_H

#include "../compat.h"
#include <petscmat.h>
#include "../kernels/spgemm.h"

PETSC_INTERN PetscLogEvent MATAIJHYBRID_SpGEMMSym, MATAIJHYBRID_SpGEMMNum, MATAIJHYBRID_ProdTranspose;

/* a step of a product with fewer multiplications than this runs on one thread (measured: docs/setup.md,
   "What stays PETSc's"; a build may set another value with -DAIJHYBRID_PRODUCT_SERIAL_FLOPS=n, as the
   measurement does) */
#if !defined(AIJHYBRID_PRODUCT_SERIAL_FLOPS)
  #define AIJHYBRID_PRODUCT_SERIAL_FLOPS 20000
#endif

/* the work arrays of the threads, shared by the steps of one product: per thread a map (marker)
   over the columns of B and a row of values */
typedef struct {
  PetscInt     T, ncols, rowmax, nacc; /* allocated for */
  PetscInt    *map;                    /* T * ncols */
  PetscScalar *buf;                    /* T * rowmax */
  PetscScalar *acc;                    /* T * nacc: the symbolic phase's values, column by column */
  uint64_t    *bits;                   /* T * nbits, zero: the symbolic phase's columns, one bit each */
  PetscInt     nbits;
} AIJHybridProductWork;

/* C = A B: A has m rows, B ncols columns */
typedef struct {
  PetscInt       m, ncols;
  PetscInt       T;       /* threads it runs on */
  PetscInt      *bounds;  /* T + 1: the rows of each thread */
  PetscInt      *ci, *cj; /* C's pattern (cj: from AIJHybridSpGEMMGather(), or NULL where it lives in the matrix C) */
  PetscInt       nz, rowmax;
  PetscLogDouble flops; /* multiply-adds */
  /* what the symbolic phase wrote, part by part, until AIJHybridSpGEMMGather() */
  PetscInt    **pcols;
  PetscScalar **pvals; /* NULL when the symbolic phase made no values */
  PetscInt     *pused, *pcap;
  PetscInt      rounds; /* regions the symbolic phase took (buffers grown rounds - 1 times) */
} AIJHybridSpGEMM;

/* A^T of an m x n matrix A of one or two column blocks (see AIJHybridCSR): row c of A^T lists the
   entries of column c of A in increasing row, perm[] where each value is in A */
typedef struct {
  PetscInt     m, n, nz, nz0; /* rows, columns, entries of A, entries of its block 0 */
  PetscInt     T;
  PetscInt    *ti, *tj, *perm;
  PetscScalar *tv; /* its values, kept by the plan (NULL when made without) */
} AIJHybridTransposePlan;

PETSC_INTERN PetscInt       AIJHybridProductThreads(PetscInt, PetscLogDouble);
PETSC_INTERN PetscErrorCode AIJHybridProductWorkEnsure(AIJHybridProductWork *, PetscInt, PetscInt, PetscInt, PetscBool);
PETSC_INTERN PetscErrorCode AIJHybridProductWorkDestroy(AIJHybridProductWork *);
PETSC_INTERN PetscErrorCode AIJHybridSpGEMMSymbolic(AIJHybridSpGEMM *, PetscInt, const AIJHybridCSR *, const AIJHybridCSR *, PetscInt, PetscInt, PetscBool, AIJHybridProductWork *);
PETSC_INTERN PetscErrorCode AIJHybridSpGEMMGather(AIJHybridSpGEMM *, PetscInt *, PetscScalar *);
PETSC_INTERN PetscErrorCode AIJHybridSpGEMMRun(const AIJHybridSpGEMM *, const AIJHybridCSR *, const AIJHybridCSR *, const AIJHybridCSROut *, AIJHybridProductWork *);
PETSC_INTERN PetscErrorCode AIJHybridSpGEMMDestroy(AIJHybridSpGEMM *);
PETSC_INTERN PetscErrorCode AIJHybridTransposePattern(const AIJHybridCSR *, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode AIJHybridTransposeSymbolic(AIJHybridTransposePlan *, const AIJHybridCSR *, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, PetscBool);
PETSC_INTERN PetscErrorCode AIJHybridTransposeRun(AIJHybridTransposePlan *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode AIJHybridTransposeDestroy(AIJHybridTransposePlan *);

#endif
