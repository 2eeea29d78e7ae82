/*
   Pure CM-RCM ordering (cyclic multicoloring over a reverse Cuthill-McKee level structure, after
   Washio, Maruyama, Osoda, Shimizu and Doi, and Nakajima's GeoFEM/T2K solvers; see the Nakajima
   slides in the project's reference folder). No MPI, no PETSc objects, no global state; allocation
   only with PetscMalloc, freed before returning.

   Graph: the structure of A + A^T without the diagonal (the pattern passed need not be symmetric).
   1. Reverse Cuthill-McKee: per connected component, a breadth-first search from a
      pseudo-peripheral vertex (George and Liu), neighbours visited by increasing degree; the
      order reversed. The level of a vertex is its distance from the component's start, counted
      from the component's far end (so the first vertices of the RCM order are in level 0).
   2. Cyclic multicoloring: in RCM order, each vertex takes color (level mod ncolors) if no
      neighbour has it yet, else the next free one cyclically, else a new color beyond ncolors
      (only where a level is not an independent set and all ncolors colors are taken around a
      vertex, e.g. ncolors below what the graph needs). The coloring is proper: two vertices of
      one color are never adjacent.
   3. The new order lists the colors one after the other, each color's vertices in RCM order.

   For a triangular factor whose pattern is that of the reordered matrix (ILU(0), ICC(0)), the
   rows of one color depend only on rows of earlier colors: the solves have at most as many levels
   as colors, each as wide as a color.
*/
#ifndef AIJHYBRID_FACTOR_CMRCM_H
#define AIJHYBRID_FACTOR_CMRCM_H

#include "../compat.h"

#define AIJHYBRID_CMRCM_DEFAULT_COLORS 24

PETSC_INTERN PetscErrorCode AIJHybridCMRCM(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscInt[], PetscInt[], PetscInt *);

#endif
