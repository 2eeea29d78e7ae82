/*
   The factor concern of petsc-aijhybrid: threaded (level-scheduled) triangular solves for PETSc's
   ILU(k) and ICC(k) factors of aijhybrid matrices, and the CM-RCM ordering. What src/register.c
   calls.
*/
#ifndef AIJHYBRID_FACTOR_H
#define AIJHYBRID_FACTOR_H

#include <petscmat.h>

PETSC_INTERN PetscLogEvent MATAIJHYBRID_Levels, MATAIJHYBRID_Ordering;

PETSC_INTERN PetscErrorCode MatAIJHybridFactorRegister(void);
PETSC_INTERN PetscErrorCode MatAIJHybridOrderingRegister(void);

#endif
