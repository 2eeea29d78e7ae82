/*
   Pure plans of the threaded numeric factorizations (no MPI, no PETSc objects, no global state;
   arrays allocated with PetscMalloc, freed by the caller with PetscFree): what the kernels of
   src/kernels/ilu.h need besides the factor's pattern, and the dependencies their level schedules
   (src/factor/levels.h) are built from. Computed once per symbolic factorization (nonzero pattern).

   - AIJHybridILUDiagonal: the diagonal positions of U in PETSc's ILU layout (L rows, then the U
     rows from the last to the first, each ending with its diagonal), recovered from the pattern.
   - AIJHybridILUNodes: the nodes MatLUFactorNumeric_SeqAIJ_Inode() computes together, as it makes
     them from the inodes of the matrix and the row permutation, and the matrix row of each factor
     row it loads; AIJHybridILUNodesCheck: whether the kernel reads, on this pattern, only entries
     the node has set (else the bits would depend on what earlier rows left in the work array).
   - AIJHybridILUNodeDeps: the nodes each node depends on (those of its first row's L part).
   - AIJHybridICCContributors: for each row k of an ICC factor, the rows i with an entry U(i,k) and
     its position, in the order MatCholeskyFactorNumeric_SeqAIJ() adds them (its linked lists).
   - AIJHybridICCPivotRow: the row number PETSc's ICC reports for a zero pivot of row k.
*/
#ifndef AIJHYBRID_FACTOR_NUMERICPLAN_H
#define AIJHYBRID_FACTOR_NUMERICPLAN_H

#include "../compat.h"

PETSC_INTERN PetscErrorCode AIJHybridILUDiagonal(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscInt[], PetscBool *);
PETSC_INTERN PetscErrorCode AIJHybridILUNodes(PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscBool, PetscInt *, PetscInt **, PetscInt **, PetscBool *);
PETSC_INTERN PetscErrorCode AIJHybridILUNodesCheck(PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool *);
PETSC_INTERN PetscErrorCode AIJHybridILUNodeDeps(PetscInt, const PetscInt[], const PetscInt[], PetscInt, const PetscInt[], PetscInt **, PetscInt **);
PETSC_INTERN PetscErrorCode AIJHybridICCContributors(PetscInt, const PetscInt[], const PetscInt[], PetscInt **, PetscInt **, PetscInt **);
PETSC_INTERN PetscInt       AIJHybridICCPivotRow(PetscInt, const PetscInt[], const PetscInt[], PetscInt);

#endif
