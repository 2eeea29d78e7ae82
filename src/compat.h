/*
   Version compatibility between PETSc 3.18 and the newest release (the PETSc versions checked: docs/testing.md).
*/
#ifndef AIJHYBRID_COMPAT_H
#define AIJHYBRID_COMPAT_H

#include <petscsys.h>

#if PETSC_VERSION_LT(3, 18, 0)
  #error "petsc-aijhybrid needs PETSc >= 3.18"
#endif
#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif
#if PETSC_VERSION_LT(3, 20, 0)
  #define PetscAssertPointer(p, n) PetscValidPointer(p, n)
#endif
/* the option items of PetscOptionsBegin()/End() (PetscOptionsObject): a pointer to the struct up to 3.22, the struct's handle from 3.23 */
#if PETSC_VERSION_LT(3, 23, 0)
typedef PetscOptionItems *AIJHybridOptionItems;
typedef PetscOptionItems  AIJHybridOptionItemsStruct;
#else
typedef PetscOptionItems           AIJHybridOptionItems;
typedef struct _n_PetscOptionItems AIJHybridOptionItemsStruct;
#endif

/* a container's destroy function gets the context up to PETSc 3.22 and the context's address from 3.23 */
#if PETSC_VERSION_LT(3, 23, 0)
  #define AIJHybridContainerSetDestroy(c, f) PetscContainerSetUserDestroy((c), (f))
  #define AIJHybridContainerContext(arg)     (arg)
#else
  #define AIJHybridContainerSetDestroy(c, f) PetscContainerSetCtxDestroy((c), (f))
  #define AIJHybridContainerContext(arg)     (*(void **)(arg))
#endif

/* a context destroy function (Mat_Product's data, ...) gets the context up to PETSc 3.22 and its
   address from 3.23 (PetscCtxDestroyFn), typed void ** in 3.23-3.24 and void * (PetscCtxRt) from
   3.25; AIJHybridContainerContext() reads it */
#if PETSC_VERSION_LT(3, 23, 0) || !PETSC_VERSION_LT(3, 25, 0)
typedef void *AIJHybridCtxDestroyArg;
#else
typedef void                     **AIJHybridCtxDestroyArg;
#endif

/* PetscSF ops and PetscSFGetLeafRanks()/GetRootRanks(): rank counts are PetscInt up to 3.21, PetscMPIInt from 3.22 */
#if PETSC_VERSION_LT(3, 22, 0)
typedef PetscInt AIJHybridSFRankCount;
#else
typedef PetscMPIInt                AIJHybridSFRankCount;
#endif

#endif
