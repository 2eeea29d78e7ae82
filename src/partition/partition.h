/*
   Pure thread partitioners for contiguous row ranges.

   A partition of n rows into T threads is an array bounds[0..T] with bounds[0] = 0, bounds[T] = n,
   non-decreasing; thread t owns rows [bounds[t], bounds[t+1]). Every partitioner here returns
   strictly increasing bounds (no empty thread) whenever n >= T.

   The cost of a row range [i, j) is (rowptr[j] - rowptr[i]) + c * (j - i): its nonzeros plus a
   per-row overhead c >= 0. These functions touch nothing but their arguments: no MPI, no global
   state, no allocation except where documented, so they are unit tested on their own.
*/
#ifndef AIJHYBRID_PARTITION_H
#define AIJHYBRID_PARTITION_H

#include "../compat.h"

typedef struct {
  PetscInt        n;      /* number of rows */
  const PetscInt *rowptr; /* n+1 cumulative nonzero counts (need not start at 0) */
  PetscReal       c;      /* per-row cost in units of one nonzero */
} AIJHybridCost;

/* cost of rows [i, j) */
static inline PetscReal AIJHybridCostRange(const AIJHybridCost *cost, PetscInt i, PetscInt j)
{
  return (PetscReal)(cost->rowptr[j] - cost->rowptr[i]) + cost->c * (PetscReal)(j - i);
}

PETSC_INTERN PetscErrorCode AIJHybridPartitionRows(PetscInt, PetscInt, PetscInt[]);
PETSC_INTERN PetscErrorCode AIJHybridPartitionGreedy(const AIJHybridCost *, PetscInt, PetscInt[]);
PETSC_INTERN PetscErrorCode AIJHybridPartitionDiffusion(const AIJHybridCost *, PetscInt, PetscReal, PetscInt, PetscInt[], PetscInt *);
PETSC_INTERN PetscErrorCode AIJHybridPartitionOptimal(const AIJHybridCost *, PetscInt, PetscInt[]);
PETSC_INTERN PetscErrorCode AIJHybridPartitionTaskShare(const AIJHybridCost *, PetscInt, PetscReal, PetscInt *);
PETSC_INTERN PetscErrorCode AIJHybridPartitionImbalance(const AIJHybridCost *, PetscInt, const PetscInt[], PetscReal *);
PETSC_INTERN PetscErrorCode AIJHybridPartitionBottleneck(const AIJHybridCost *, PetscInt, const PetscInt[], PetscReal *);
PETSC_INTERN PetscErrorCode AIJHybridPartitionValid(PetscInt, PetscInt, const PetscInt[], PetscBool *);

#endif
