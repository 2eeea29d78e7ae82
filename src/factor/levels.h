/*
   Pure level schedules of triangular solves (no MPI, no PETSc objects, no global state; the
   schedule's arrays are allocated with PetscMalloc and freed by AIJHybridLevelsDestroy()).

   A solve visits n rows; row i may start only when the rows it depends on are done. The
   dependencies of row i are ind[start[i] .. end[i]) (any order, duplicates allowed); in a forward
   solve they are all < i, in a backward solve all > i (the serial order visits rows 0..n-1,
   respectively n-1..0). The level of a row is 0 if it depends on nothing, otherwise one more
   than the highest level of its dependencies: rows of one level depend only on earlier levels,
   so each level's rows may be computed in parallel, the levels one after the other.

   The schedule lists the rows level by level (ascending row numbers inside a level) and splits
   each level into nthreads contiguous parts of about equal cost (cost of a row: its dependency
   count plus AIJHYBRID_LEVELS_ROW_COST).
*/
#ifndef AIJHYBRID_FACTOR_LEVELS_H
#define AIJHYBRID_FACTOR_LEVELS_H

#include "../compat.h"

#define AIJHYBRID_LEVELS_ROW_COST 2

typedef struct {
  PetscInt  n;        /* rows */
  PetscInt  nlevels;  /* levels (0 when n = 0) */
  PetscInt  nthreads; /* parts per level */
  PetscInt *order;    /* n: the rows, level by level, ascending inside a level */
  PetscInt *lptr;     /* nlevels+1: level l is order[lptr[l] .. lptr[l+1]) */
  PetscInt *tb;       /* nlevels*(nthreads+1): part t of level l is order[tb[l*(nthreads+1)+t] .. tb[l*(nthreads+1)+t+1]) */
  PetscInt  maxwidth; /* rows of the widest level */
} AIJHybridLevels;

PETSC_INTERN PetscErrorCode AIJHybridLevelsBuild(PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool, PetscInt, AIJHybridLevels *);
PETSC_INTERN PetscErrorCode AIJHybridLevelsDestroy(AIJHybridLevels *);
PETSC_INTERN PetscErrorCode AIJHybridLevelsValid(const AIJHybridLevels *, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool, PetscBool *);

/*
   CSC (transposed) pattern of the strict triangle of a factor, for the column-oriented solves:
   column c lists the rows k with an entry (k, c), as (row, position of the value); ascending rows
   when ascending is true, descending otherwise. The entries of row k are pos[start[k] .. end[k])
   with columns ind[...]; the value of an entry is found at the same position in the value array.
*/
typedef struct {
  PetscInt  n;
  PetscInt *ptr;  /* n+1 */
  PetscInt *row;  /* ptr[n] */
  PetscInt *pos;  /* ptr[n] */
} AIJHybridCSC;

PETSC_INTERN PetscErrorCode AIJHybridCSCBuild(PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool, AIJHybridCSC *);
PETSC_INTERN PetscErrorCode AIJHybridCSCDestroy(AIJHybridCSC *);

#endif
