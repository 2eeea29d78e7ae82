/*
   The node-aware PetscSF type (PETSCSFNODEAWARE), as seen by the package that registers it: the
   registration of the type and of its log events. Everything else of the type is PETSc's PetscSF
   interface and the public functions in petscaijhybrid.h.
*/
#ifndef AIJHYBRID_SF_SFNODEAWARE_H
#define AIJHYBRID_SF_SFNODEAWARE_H

#include <petscsf.h>

PETSC_INTERN PetscErrorCode PetscSFNodeAwareInitializePackage(void);

#endif
