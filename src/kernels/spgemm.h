/*
   Pure kernels of the sparse matrix-matrix products (src/mat/matproduct.c, matproductmpi.c): the
   row-wise (Gustavson) product C = A B in three phases over a range of rows of C, and the
   transpose of a CSR matrix, on raw arrays. They call nothing and allocate nothing: safe on any
   thread; the caller gives each thread its own work arrays.

   Product, rows r of [rs, re):
     flops     the work of row r: the lengths of the rows of B that A's row r selects (the cost
               the rows are partitioned by);
     count     the number of distinct columns of row r of C (its nonzero pattern: structural, every
               stored entry of A and B counts, as in PETSc's symbolic products);
     fill      its columns, sorted;
     rows      count, fill and (optionally) values in one pass, row after row into consecutive
               space for as long as the next row surely fits (a thread's own growing buffer);
     numeric   its values: c_rj = sum over the entries a_rk of A's row r, in stored order (block 0,
               then block 1), of a_rk b_kj, starting from 0: the order PETSc's row-wise SeqAIJ
               products use. Each row is summed by one thread in this fixed order, so the result
               does not depend on how the rows are split between threads.
   Transpose (count, offsets, fill, gather): the rows of A^T list their entries in increasing row
   of A whatever the split of A's rows between threads: thread t counts its rows' columns into its
   own array, the offsets place thread t's entries of each column after those of threads < t.

   Compact columns (the mpiaijhybrid products, src/mat/matproductmpi.c): a rank's rows number their
   columns [0, nloc) for its own (global cstart + c) and nloc + k for the global column colmap[k]
   of a sorted list of the others, so that a sorted row is its diagonal-block part then its
   off-diagonal part, each in the order of an MPIAIJ block. concat (two blocks into one row, the
   second's columns mapped), split count and split (back into the two blocks, the other columns
   made global), the maps between compact and global columns.

   A matrix is a CSR (AIJHybridCSR) of up to two column blocks, as an MPIAIJ matrix stores its
   rows: block 0 (i, j, a) then block 1 (oi, oj, oa) whose columns are shifted by ooff. The values
   a of block 0 may be NULL: every value is 1 (the sum of selected rows). A product's B has one block.
*/
#ifndef AIJHYBRID_KERNELS_SPGEMM_H
#define AIJHYBRID_KERNELS_SPGEMM_H

#include <petscsys.h>
#include <stdint.h>

typedef struct {
  const PetscInt    *i, *j;   /* block 0: row r has the columns j[i[r] .. i[r+1]) */
  const PetscScalar *a;       /* its values; NULL: all 1 */
  const PetscInt    *oi, *oj; /* block 1 (NULL: none): row r continues with oj[oi[r] .. oi[r+1]) + ooff */
  const PetscScalar *oa;
  PetscInt           ooff;
} AIJHybridCSR;

/* where the values of C go: its pattern (i, j: row r's sorted columns) and, per row, the first
   of its values in block 0 (a0 + i0[r], the columns < split) and in block 1 (a1 + i1[r], the
   others; a1 NULL when every column is < split) */
typedef struct {
  const PetscInt *i, *j;
  PetscInt        split;
  PetscScalar    *a0, *a1;
  const PetscInt *i0, *i1;
} AIJHybridCSROut;

PETSC_INTERN void     AIJHybridSpGEMMFlops(PetscInt, PetscInt, const AIJHybridCSR *, const PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridSpGEMMCount(PetscInt, PetscInt, const AIJHybridCSR *, const AIJHybridCSR *, PetscInt, PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridSpGEMMFill(PetscInt, PetscInt, const AIJHybridCSR *, const AIJHybridCSR *, PetscInt, PetscInt *, const PetscInt *, PetscInt *);
PETSC_INTERN PetscInt AIJHybridSpGEMMRows(PetscInt, PetscInt, const AIJHybridCSR *, const AIJHybridCSR *, const PetscInt *, PetscInt, PetscInt, PetscInt *, PetscScalar *, uint64_t *, PetscInt, PetscInt *, PetscScalar *, PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridSpGEMMNumeric(PetscInt, PetscInt, const AIJHybridCSR *, const AIJHybridCSR *, const AIJHybridCSROut *, PetscInt *, PetscScalar *);
PETSC_INTERN void     AIJHybridTransposeCount(PetscInt, PetscInt, const AIJHybridCSR *, PetscInt *);
PETSC_INTERN void     AIJHybridTransposeOffsets(PetscInt, PetscInt, PetscInt, PetscInt *const *, PetscInt *);
PETSC_INTERN void     AIJHybridTransposeFill(PetscInt, PetscInt, const AIJHybridCSR *, PetscInt, const PetscInt *, PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridTransposeGather(PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscInt AIJHybridPrefixSum(PetscInt, const PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridRowsConcat(PetscInt, PetscInt, const AIJHybridCSR *, const PetscInt *, const PetscInt *, PetscInt *, PetscScalar *);
PETSC_INTERN void     AIJHybridRowsSplitCount(PetscInt, PetscInt, const PetscInt *, const PetscInt *, PetscInt, PetscInt *);
PETSC_INTERN void     AIJHybridRowsSplit(PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscScalar *, const PetscInt *, PetscInt *, PetscScalar *);
PETSC_INTERN void     AIJHybridColumnsToCompact(PetscInt, PetscInt, const PetscInt *, PetscInt, PetscInt, PetscInt, const PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridColumnsToGlobal(PetscInt, PetscInt, const PetscInt *, PetscInt, PetscInt, const PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridSortInts(PetscInt, PetscInt *);

#endif
