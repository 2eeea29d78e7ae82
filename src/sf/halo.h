/*
   The standard halo exchange of an MPIAIJ-like matrix, built from the ghost column map (garray):
   forward (owned x -> ghost values, insert) and reverse (ghost contributions -> owned y, add).
   Every call here is MPI: call it on the main thread only.
*/
#ifndef AIJHYBRID_SF_HALO_H
#define AIJHYBRID_SF_HALO_H

#include "../compat.h"
#include <petscsf.h>

typedef struct {
  PetscSF  sf;     /* roots: owned entries of the column layout; leaves: ghosts 0..nghost-1 */
  PetscInt nghost;
} AIJHybridHalo;

PETSC_INTERN PetscErrorCode AIJHybridHaloCreate(MPI_Comm, PetscLayout, PetscInt, const PetscInt[], AIJHybridHalo *);
PETSC_INTERN PetscErrorCode AIJHybridHaloDestroy(AIJHybridHalo *);
PETSC_INTERN PetscErrorCode AIJHybridHaloForwardBegin(AIJHybridHalo *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode AIJHybridHaloForwardEnd(AIJHybridHalo *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode AIJHybridHaloReverseBegin(AIJHybridHalo *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode AIJHybridHaloReverseEnd(AIJHybridHalo *, const PetscScalar[], PetscScalar[]);

#endif
