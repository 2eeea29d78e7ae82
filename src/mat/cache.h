/*
   The bottom layer of the aijhybrid types: the caches a product reads, each built from one CSR block
   (a seqaij matrix: the matrix itself, or the diagonal or off-diagonal block of an mpiaij one) and
   kept while the block's nonzero pattern and the parameters it was built with stay the same. They
   take the block and their own struct, never the matrix's context (src/mat/context.h).

     cache.c       block keys, thread partitions of the rows, CSC patterns for the transposes,
                   the positions and diagonals of the thread-local SOR sweeps
     firsttouch.c  copies of the blocks (and vectors) first touched by the threads that read them
     halo.c        the halo exchange: one PetscSF and its ghost buffers
*/
#ifndef AIJHYBRID_MAT_CACHE_H
#define AIJHYBRID_MAT_CACHE_H

#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h>
#include "../partition/partition.h"
#include "../kernels/csr.h"
#include "../threads/threads.h"

PETSC_INTERN PetscLogEvent MATAIJHYBRID_Partition, MATAIJHYBRID_HaloBegin, MATAIJHYBRID_HaloEnd, MATAIJHYBRID_Mult, MATAIJHYBRID_Transpose;
PETSC_INTERN PetscLogEvent MATAIJHYBRID_SOR;

/* thread-partition parameters: a cached partition is valid only for the values it was built with */
typedef struct {
  PetscInt                  nthreads;
  MatAIJHybridPartitionType type;
  PetscReal                 row_cost;
  PetscReal                 diffusion_tol;
  PetscInt                  diffusion_max_it;
  PetscReal                 task_share; /* < 0: nthreads equal parts; in [0, 1]: part 0 (thread 0 of task mode, which first
                                           drives the halo exchange) gets task_share times an equal share of the cost and
                                           parts 1..nthreads-1 share the rest */
} AIJHybridPartParams;

/* the identity and nonzero pattern of the CSR block a cache was built for */
typedef struct {
  Mat              block; /* referenced unless it is the matrix itself, so its address is not reused */
  PetscBool        owns_ref;
  PetscObjectState nzstate;  /* MatGetNonzeroState(block) */
  PetscInt         m, n, nz; /* rows, columns, nonzeros */
} AIJHybridBlockKey;

/* a row partition of one CSR block */
typedef struct {
  AIJHybridBlockKey   key;
  AIJHybridPartParams params;
  PetscBool           compressed; /* partition only the non-empty rows (off-diagonal block) */
  PetscInt            nrows;      /* rows partitioned */
  PetscInt           *rows;       /* compressed: the non-empty rows; NULL otherwise */
  PetscInt           *rowptr;     /* compressed: nrows+1 cumulative nonzeros of those rows */
  PetscInt           *bounds;     /* nthreads+1 */
  PetscReal           imbalance;
  PetscInt            sweeps;
  PetscLogDouble      build_time;
  PetscInt            builds;
} AIJHybridRowPart;

/* the CSC copy of one block for the race-free transpose, with a partition of its columns: the
   values in column order (tv, refreshed through perm when the values change), so a transposed
   product streams its arrays as a forward one does */
typedef struct {
  AIJHybridBlockKey key;
  PetscInt         *ti, *tj, *perm; /* n+1, nz, nz: tv[k] is the block's value perm[k] */
  PetscScalar      *tv;             /* nz */
  PetscObjectState  state[2];       /* of the matrix and of the block when tv was copied */
  PetscBool         tvalid;
  AIJHybridRowPart  part;
} AIJHybridTranspose;

/* the thread-local SOR sweeps: the in-block positions of each row for the products' partition of
   the diagonal block, and the (inverse) diagonal for its values */
typedef struct {
  AIJHybridBlockKey key;        /* the diagonal block the positions are for */
  PetscInt          partbuilds; /* ... and its partition (AIJHybridRowPart.builds) */
  PetscInt          m;
  PetscInt         *lo, *dg, *hi;  /* in-block entries of row i: [lo[i], hi[i]); diagonal at dg[i] (-1: none) */
  PetscScalar      *idiag, *mdiag; /* omega / (fshift + a_ii) (or 1 / a_ii), a_ii */
  PetscScalar      *bl, *t, *x1;   /* right-hand sides, the saved lower part, Eisenstat's second sweep */
  PetscBool         valid;         /* idiag/mdiag are for state, omega, fshift */
  PetscObjectState  state;
  PetscReal         omega, fshift;
} AIJHybridSOR;

/*
  A copy of one CSR block (same i, j, a) whose pages were first touched by the threads that
  multiply them (-mat_aijhybrid_first_touch): part t of the placement, the i entries
  [rowb[t], rowb[t+1]) and the nonzeros [nzb[t], nzb[t+1]), was written by thread t mod nthreads.
  Its values are copied again when the block's object state changes.
*/
typedef struct {
  AIJHybridBlockKey key;
  PetscObjectState  state;
  PetscInt          nparts, nthreads;
  PetscInt         *rowb, *nzb; /* nparts+1 each */
  PetscInt         *i, *j;
  PetscScalar      *a;
} AIJHybridFirstTouchCopy;

/* the halo exchange of an mpiaijhybrid matrix: roots the owned columns, leaves the ghosts 0..nghost-1 */
typedef struct {
  PetscSF          sf;
  PetscInt         nghost;
  Mat              block;           /* the off-diagonal block it was built for (referenced) */
  PetscBool        node_aware;      /* it was built with the type forced to nodeaware */
  PetscInt         node_size;       /* ... and this node size (0: the SF's own choice) */
  PetscScalar     *ghost, *ghost_t; /* ghost values (forward) and ghost contributions (transpose) */
  PetscObjectState nzstate;         /* the matrix's nonzero state it was last checked for (prepare.c) */
} AIJHybridHalo;

/* cache.c */
PETSC_INTERN PetscErrorCode MatAIJHybridBlockKeyRead(Mat, AIJHybridBlockKey *, const PetscInt **, const PetscInt **);
PETSC_INTERN PetscBool      MatAIJHybridBlockKeySame(const AIJHybridBlockKey *, const AIJHybridBlockKey *);
PETSC_INTERN PetscErrorCode MatAIJHybridBlockKeyHold(AIJHybridBlockKey *, const AIJHybridBlockKey *, Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridBlockKeyRelease(AIJHybridBlockKey *);
PETSC_INTERN PetscErrorCode MatAIJHybridRowPartUpdate(AIJHybridRowPart *, Mat, Mat, PetscBool, const AIJHybridPartParams *);
PETSC_INTERN PetscErrorCode MatAIJHybridRowPartReset(AIJHybridRowPart *);
PETSC_INTERN PetscErrorCode MatAIJHybridTransposeUpdate(AIJHybridTranspose *, Mat, Mat, const AIJHybridPartParams *);
PETSC_INTERN PetscErrorCode MatAIJHybridTransposeValues(AIJHybridTranspose *, Mat, Mat, PetscInt, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatAIJHybridTransposeReset(AIJHybridTranspose *);
PETSC_INTERN PetscErrorCode MatAIJHybridSORUpdate(AIJHybridSOR *, Mat, Mat, const AIJHybridRowPart *, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode MatAIJHybridSORReset(AIJHybridSOR *);

/* firsttouch.c */
PETSC_INTERN PetscErrorCode MatAIJHybridFirstTouchUpdate(AIJHybridFirstTouchCopy *, Mat, Mat, const AIJHybridRowPart *, PetscInt, const PetscInt **, const PetscInt **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatAIJHybridFirstTouchReset(AIJHybridFirstTouchCopy *);
PETSC_INTERN PetscErrorCode MatAIJHybridFirstTouchVecCreate(MPI_Comm, PetscLayout, PetscInt, const PetscInt[], Vec *);

/* halo.c */
PETSC_INTERN PetscErrorCode MatAIJHybridHaloUpdate(AIJHybridHalo *, Mat, PetscBool, PetscBool, PetscInt);
PETSC_INTERN PetscErrorCode MatAIJHybridHaloReset(AIJHybridHalo *);
PETSC_INTERN PetscErrorCode MatAIJHybridHaloForwardBegin(AIJHybridHalo *, const PetscScalar *);
PETSC_INTERN PetscErrorCode MatAIJHybridHaloForwardEnd(AIJHybridHalo *, const PetscScalar *);
PETSC_INTERN PetscErrorCode MatAIJHybridHaloReverseBegin(AIJHybridHalo *, PetscScalar *);
PETSC_INTERN PetscErrorCode MatAIJHybridHaloReverseEnd(AIJHybridHalo *, PetscScalar *);

#endif
