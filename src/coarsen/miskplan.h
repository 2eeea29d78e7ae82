/*
   Pure kernels of the aijhybrid coarsener (src/coarsen/misk.c): PETSc's greedy MIS of MATCOARSENMISK
   on one rank's CSR graph, the aggregate graph (the pattern of P^T G P for the 0/1 aggregation
   matrix P), the members of each aggregate in increasing order and the linked-list nodes of
   PetscCoarsenData. Raw arrays only, no PETSc calls: the threaded ones open their own parallel
   region with the thread count given; the caller allocates every array.
*/
#ifndef AIJHYBRID_MISKPLAN_H
#define AIJHYBRID_MISKPLAN_H

#include "../compat.h"
#include <petscmat.h>

PETSC_INTERN PetscInt AIJHybridMISGreedy(PetscInt, const PetscInt *, const PetscInt *, const PetscInt *, PetscInt *);
PETSC_INTERN PetscInt AIJHybridMISGreedyRounds(PetscInt, const PetscInt *, const PetscInt *, const PetscInt *, PetscInt, PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN PetscInt AIJHybridMISNumber(PetscInt, const PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridMISCompose(PetscInt, const PetscInt *, PetscInt *, PetscInt);
PETSC_INTERN void     AIJHybridAggMembers(PetscInt, const PetscInt *, PetscInt, PetscInt, PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridAggGraph(PetscInt, const PetscInt *, const PetscInt *, const PetscInt *, const PetscInt *, const PetscInt *, PetscInt, PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN void     AIJHybridAggNodes(PetscInt, const PetscInt *, const PetscInt *, PetscInt, PetscInt, PetscCDIntNd *, PetscCDIntNd **);

#endif
