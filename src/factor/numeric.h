/*
   The threaded numeric factorization of PETSc's ILU(k) and ICC(k) factors of seqaijhybrid
   matrices (src/factor/numeric.c), for the factor's numeric operation (src/factor/factor.c):

     AIJHybridNumericCreate      with the factor (ILU or ICC)
     AIJHybridNumericSymbolic    after PETSc's symbolic factorization: which PETSc routine it
                                 installed (only the ones reproduced bitwise are threaded), the
                                 permutations; the plan is made at the next numeric factorization
     AIJHybridNumericFactor      the numeric factorization: threaded (level-scheduled, the kernels
                                 of src/kernels/ilu.h, PETSc's bits) or PETSc's serial routine, as
                                 the mode and the measured choice say
     AIJHybridNumericGetInfo     what ran and why, the measured choice (src/tune/choice.h)
     AIJHybridNumericGetRowLevels its schedule over the rows, when it has one for T threads: the
                                 schedule of the forward triangular solve (the same dependencies),
                                 which the solves copy instead of building it again
     AIJHybridNumericGetDiagonal  the ILU plan's diagonal positions of U, which the solves copy
                                 instead of finding them again
     AIJHybridNumericDestroy
*/
#ifndef AIJHYBRID_FACTOR_NUMERIC_H
#define AIJHYBRID_FACTOR_NUMERIC_H

#include <petscaijhybrid.h>
#include "../tune/choice.h"
#include "levels.h"

typedef struct _n_AIJHybridNumeric *AIJHybridNumeric;
typedef PetscErrorCode (*AIJHybridNumericFn)(Mat, Mat, const MatFactorInfo *);

typedef struct {
  const char            *reason;   /* why the numeric factorization is PETSc's serial one (NULL: it may be threaded) */
  PetscBool              threaded; /* the last numeric factorization ran threaded (all of it, or all but a timed slice) */
  PetscBool              inode;    /* the plan reproduces MatLUFactorNumeric_SeqAIJ_Inode() */
  PetscInt               nthreads; /* threads of the plan */
  PetscInt               nlevels;  /* levels of its schedule */
  PetscInt               calls;    /* numeric factorizations since the symbolic one */
  PetscInt               threaded_calls;
  PetscInt               plans;     /* plans made for this factor */
  PetscLogDouble         plan_time; /* seconds of the last one */
  const AIJHybridChoice *choice;    /* the measured choice (A: threaded, B: serial) */
} AIJHybridNumericInfo;

PETSC_INTERN PetscErrorCode AIJHybridNumericCreate(MatFactorType, AIJHybridNumeric *);
PETSC_INTERN PetscErrorCode AIJHybridNumericDestroy(AIJHybridNumeric *);
PETSC_INTERN PetscErrorCode AIJHybridNumericSymbolic(AIJHybridNumeric, Mat, Mat, IS, IS, AIJHybridNumericFn);
PETSC_INTERN PetscErrorCode AIJHybridNumericFactor(AIJHybridNumeric, Mat, Mat, const MatFactorInfo *, PetscInt, MatAIJHybridFactorSolve, PetscBool);
PETSC_INTERN PetscErrorCode AIJHybridNumericGetInfo(AIJHybridNumeric, AIJHybridNumericInfo *);
PETSC_INTERN PetscErrorCode AIJHybridNumericGetRowLevels(AIJHybridNumeric, PetscInt, const AIJHybridLevels **);
PETSC_INTERN PetscErrorCode AIJHybridNumericGetDiagonal(AIJHybridNumeric, const PetscInt *, const PetscInt *, PetscInt, const PetscInt **);

#endif
