/*
   Threads of a rank: how many a rank uses by default, the cores and ranks of its node, the one-time
   oversubscription warning, and OpenMP stand-ins for a build without OpenMP. Shared by every type
   of the package (matrices, vectors, factors); depends on PETSc only.
*/
#ifndef AIJHYBRID_THREADS_H
#define AIJHYBRID_THREADS_H

#include "../compat.h"

#if defined(_OPENMP)
  #include <omp.h>
#else
static inline int omp_get_thread_num(void)
{
  return 0;
}
static inline int omp_get_num_threads(void)
{
  return 1;
}
static inline int omp_get_max_threads(void)
{
  return 1;
}
static inline double omp_get_wtime(void)
{
  return MPI_Wtime();
}
#endif

#define AIJHYBRID_MAX_THREADS 4096 /* the largest thread count an option accepts */

/* the thread level MPI was initialized with (MPI_THREAD_SINGLE until AIJHybridQueryThreadLevel()) */
PETSC_INTERN int            AIJHybridMPIThreadLevel;
PETSC_INTERN PetscErrorCode AIJHybridQueryThreadLevel(void);

PETSC_INTERN PetscInt       AIJHybridDefaultNumThreads(void);
PETSC_INTERN PetscInt       AIJHybridNodeCores(void);
PETSC_INTERN PetscInt       AIJHybridNumaDomains(void);
PETSC_INTERN PetscInt       AIJHybridRanksOnNode(void);
PETSC_INTERN PetscErrorCode AIJHybridCountRanksOnNode(MPI_Comm);
PETSC_INTERN PetscErrorCode AIJHybridCheckOversubscription(PetscObject, PetscInt);
PETSC_INTERN PetscErrorCode AIJHybridThreadsFinalize(void);

#endif
