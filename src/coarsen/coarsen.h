/*
   The package's MatCoarsen type MATCOARSENAIJHYBRID (src/coarsen/misk.c): PETSc's MISK aggregates,
   computed with threaded kernels for a seqaijhybrid graph, PETSc's MISK itself for any other graph.
*/
#ifndef AIJHYBRID_COARSEN_H
#define AIJHYBRID_COARSEN_H

#include <petscaijhybrid.h> /* MATCOARSENAIJHYBRID */

PETSC_INTERN PetscErrorCode MatAIJHybridCoarsenRegister(void);

#endif
