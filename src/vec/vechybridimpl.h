/*
   Private header of the threaded vector types (src/vec/), in layers: veccontext.c (the context every
   hybrid vector carries) below vecops.c (the operations) and vecsettings.c (the public Set/Get),
   below vechybrid.c (the type). Depends on PETSc, the public header, the thread
   resources and the pure vector kernels only.
*/
#ifndef AIJHYBRID_VEC_VECHYBRIDIMPL_H
#define AIJHYBRID_VEC_VECHYBRIDIMPL_H

#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/vecimpl.h>
#include "../threads/threads.h"
#include "../kernels/vec.h"
#include "../options/options.h"

#define VECHYBRID_DEFAULT_THRESHOLD 20000 /* local length from which operations are threaded (docs/vectors.md) */

PETSC_INTERN PetscErrorCode VecHybridStandardFromOptions(void);

/*
  The context of a hybrid vector, composed on it in a container (its data stays VECSEQ's or VECMPI's,
  so every routine that reads a standard vector's array reads this one).
*/
typedef struct {
  PetscInt           nthreads;     /* threads of the operations */
  PetscBool          nthreads_set; /* set by an option, a Set function or the matrix that made the vector; otherwise the default, which follows OpenMP */
  PetscInt          *bounds;       /* nthreads + 1 bounds of the threads' entries (thread t: [bounds[t], bounds[t+1])), or NULL: equal parts */
  PetscInt           threshold;    /* local length from which the operations run threaded */
  PetscBool          first_touch;  /* the threads' entries are first written by their threads (NUMA placement) */
  const PetscScalar *array;        /* the array the vector owns, as made (first touch moves no other: a user's placed array) */
  PetscBool          standard;     /* a standard vector with the threaded operations (-vec_hybrid_standard): type name kept */
  PetscBool          mpi;          /* VECMPI underneath (reductions over the ranks), else VECSEQ */
  /* the operations of the standard type the hybrid ones replace or chain to */
  PetscErrorCode (*duplicate)(Vec, Vec *);
  PetscErrorCode (*destroy)(Vec);
  PetscErrorCode (*view)(Vec, PetscViewer);
  PetscErrorCode (*setfromoptions)(Vec, AIJHybridOptionItems);
} Vec_Hybrid;

/* how one operation runs over n local entries: on the calling thread, or on T threads over parts */
typedef struct {
  PetscInt        n, T;
  const PetscInt *bounds; /* T + 1, or NULL: equal parts */
  PetscBool       threaded;
} VecHybridRun;

/* the entries [*s, *e) of part t of a run */
static inline void VecHybridRunPart(const VecHybridRun *run, PetscInt t, PetscInt *s, PetscInt *e)
{
  if (run->bounds) {
    *s = run->bounds[t];
    *e = run->bounds[t + 1];
  } else {
    *s = (PetscInt)(((PetscInt64)run->n * t) / run->T);
    *e = (PetscInt)(((PetscInt64)run->n * (t + 1)) / run->T);
  }
}

/* veccontext.c: the context, how an operation runs, first touch */
PETSC_INTERN PetscErrorCode VecHybridGetContext(Vec, Vec_Hybrid **);
PETSC_INTERN PetscErrorCode VecHybridComposeContext(Vec, const Vec_Hybrid *, Vec_Hybrid **);
PETSC_INTERN PetscErrorCode VecHybridContextClear(Vec);
PETSC_INTERN PetscErrorCode VecHybridUpdateThreads(Vec_Hybrid *);
PETSC_INTERN PetscErrorCode VecHybridGetRun(Vec, VecHybridRun *);
PETSC_INTERN PetscErrorCode VecHybridRunMap(const VecHybridRun *, const AIJHybridVecMapArgs *);
PETSC_INTERN PetscErrorCode VecHybridPlace(Vec, Vec_Hybrid *, PetscBool);

/* vecops.c: the operations; vecsettings.c: the Set/Get implementations */
PETSC_INTERN PetscErrorCode VecHybridInstallOps(Vec);
PETSC_INTERN PetscErrorCode VecHybridComposeFunctions(Vec, PetscBool);

/* vechybrid.c: the type, the -vec_hybrid_standard switch, the constructors registered by the package (src/register.c) */
PETSC_INTERN PetscErrorCode VecHybridInstall(Vec, PetscBool);
PETSC_INTERN PetscErrorCode VecHybridStandardFinalize(void);
PETSC_INTERN PetscErrorCode VecCreate_Hybrid(Vec);
PETSC_INTERN PetscErrorCode VecCreate_SeqHybrid(Vec);
PETSC_INTERN PetscErrorCode VecCreate_MPIHybrid(Vec);

#endif
