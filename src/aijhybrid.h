/*
   Private implementation header of petsc-aijhybrid: the context kept in Mat->spptr by both
   seqaijhybrid and mpiaijhybrid, the caches built at assembly, and version compatibility.
*/
#ifndef AIJHYBRID_IMPL_H
#define AIJHYBRID_IMPL_H

#include "compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h>
#include "partition/partition.h"
#include "exchange/halo.h"
#include "kernels/csr.h"

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
#endif


/* thread-partition parameters: a cached partition is valid only for the values it was built with */
typedef struct {
  PetscInt                  nthreads;
  MatAIJHybridPartitionType type;
  PetscReal                 row_cost;
  PetscReal                 diffusion_tol;
  PetscInt                  diffusion_max_it;
} AIJHybridPartParams;

/* the identity and nonzero pattern of the CSR block a cache was built for */
typedef struct {
  Mat              block;    /* referenced unless it is the matrix itself, so its address is not reused */
  PetscBool        owns_ref;
  PetscObjectState nzstate;  /* MatGetNonzeroState(block) */
  PetscInt         m, n, nz; /* rows, columns, nonzeros */
} AIJHybridBlockKey;

/* a row partition of one CSR block, cached on the block's key */
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

/* CSC pattern of one block for the race-free transpose, cached like AIJHybridRowPart */
typedef struct {
  AIJHybridBlockKey key;
  PetscInt         *ti, *tj, *perm; /* n+1, nz, nz */
  AIJHybridRowPart part;           /* partition of the columns (rows of the transpose) */
} AIJHybridTranspose;

/* what differs between seqaijhybrid and mpiaijhybrid (src/mat/type.c does the rest) */
typedef struct {
  MatType     type, base;         /* e.g. seqaijhybrid, seqaij */
  const char *to_base, *from_base; /* names of the composed converters */
  PetscErrorCode (*mult)(Mat, Vec, Vec);
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec);
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec);
  PetscErrorCode (*setup)(Mat); /* build the caches of an assembled matrix (collective) */
} AIJHybridTypeInfo;

typedef struct {
  struct _MatOps           parentops; /* AIJ's operations, saved when the type was set; we chain to them */
  const AIJHybridTypeInfo *info;      /* seq or mpi specifics */

  /* options */
  AIJHybridPartParams params;
  PetscBool           nthreads_set; /* set by the user; otherwise follow omp_get_max_threads() */

  /* caches */
  MatAIJHybridMode    mode;         /* requested; AUTO resolves per product */
  AIJHybridRowPart   diag, offd;   /* offd: mpi only */
  AIJHybridRowPart   diag_task;    /* task mode: the diagonal rows over threads 1..T-1 */
  PetscBool          has_offproc;  /* some rank has ghosts: set collectively at setup */
  AIJHybridTranspose tdiag, toffd; /* built on first transpose product */
  AIJHybridHalo      halo;         /* mpi only */
  Mat                halo_block;   /* off-diagonal block the halo was built for (referenced) */
  PetscScalar       *ghost, *ghost_t; /* ghost values (forward) and ghost contributions (transpose) */

  /* per-thread busy time of forward products, accumulated since the thread count or mode changed */
  double            *tstat;      /* AIJHYBRID_TSTAT_STRIDE doubles per thread (one cache line) */
  PetscInt           tstat_T;    /* threads the statistics are for */
  MatAIJHybridMode   tstat_mode; /* mode they are for */
  PetscInt           nprod;      /* products accumulated */
} Mat_AIJHybrid;

#define AIJHYBRID_TSTAT_STRIDE 8
#define AIJHYBRID_TSTAT_DIAG   0 /* diagonal block */
#define AIJHYBRID_TSTAT_OFFD   1 /* off-diagonal block */
#define AIJHYBRID_TSTAT_COMM   2 /* halo exchange driven by thread 0 (task mode) */

PETSC_INTERN PetscLogEvent MATAIJHYBRID_Partition, MATAIJHYBRID_HaloBegin, MATAIJHYBRID_HaloEnd, MATAIJHYBRID_Mult, MATAIJHYBRID_Transpose;
PETSC_INTERN int           MatAIJHybrid_MPIThreadLevel;

/* context (src/mat/context.c), caches (cache.c), options (options.c), views (view.c), products with other types (product.c) */
PETSC_INTERN PetscInt       MatAIJHybridDefaultNumThreads(void);
PETSC_INTERN PetscErrorCode MatAIJHybridGetVecArrays(Vec, Vec, Vec, const PetscScalar **, const PetscScalar **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatAIJHybridRestoreVecArrays(Vec, Vec, Vec, const PetscScalar **, const PetscScalar **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatAIJHybridContextCreate(Mat, Mat_AIJHybrid **);
PETSC_INTERN PetscErrorCode MatAIJHybridContextDestroy(Mat_AIJHybrid **);
PETSC_INTERN PetscErrorCode MatAIJHybridContextCopyOptions(Mat_AIJHybrid *, Mat_AIJHybrid *);
PETSC_INTERN PetscErrorCode MatAIJHybridContextCurrentParams(Mat_AIJHybrid *, AIJHybridPartParams *);
PETSC_INTERN PetscErrorCode MatAIJHybridSetFromOptions_Private(Mat, AIJHybridOptionItems, Mat_AIJHybrid *);
PETSC_INTERN MatAIJHybridMode MatAIJHybridEffectiveMode(Mat_AIJHybrid *, PetscInt);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_AIJHybrid_Anytype(Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridThreadStatsPrepare(Mat_AIJHybrid *, PetscInt, MatAIJHybridMode);
PETSC_INTERN PetscErrorCode MatAIJHybridView_Private(Mat, PetscViewer, Mat_AIJHybrid *);
PETSC_INTERN PetscErrorCode MatAIJHybridRowPartUpdate(AIJHybridRowPart *, Mat, Mat, PetscBool, const AIJHybridPartParams *);
PETSC_INTERN PetscErrorCode MatAIJHybridRowPartReset(AIJHybridRowPart *);
PETSC_INTERN PetscErrorCode MatAIJHybridTransposeUpdate(AIJHybridTranspose *, Mat, Mat, const AIJHybridPartParams *);
PETSC_INTERN PetscErrorCode MatAIJHybridTransposeReset(AIJHybridTranspose *);

/* cores and ranks of this node (src/mat/resources.c) */
PETSC_INTERN PetscInt       MatAIJHybridNodeCores(void);
PETSC_INTERN PetscInt       MatAIJHybridRanksOnNode(void);
PETSC_INTERN PetscErrorCode MatAIJHybridCountRanksOnNode(MPI_Comm);
PETSC_INTERN PetscErrorCode MatAIJHybridCheckOversubscription(Mat, PetscInt);
PETSC_INTERN PetscErrorCode MatAIJHybridResourcesFinalize(void);
PETSC_INTERN PetscErrorCode MatAIJHybridCheckOptionValues(Mat);

/* type constructors and converters */
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJHybrid(Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridSnapshotBaseOps(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatAIJHybridGetContext(Mat, Mat_AIJHybrid **);
PETSC_INTERN PetscErrorCode MatConvert_AIJ_AIJHybrid(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_AIJHybrid_AIJ(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN const AIJHybridTypeInfo AIJHybridSeqInfo, AIJHybridMPIInfo;


#endif
