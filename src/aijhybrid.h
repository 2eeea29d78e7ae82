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
#include "kernels/csr.h"
#include "threads/threads.h"


/* thread-partition parameters: a cached partition is valid only for the values it was built with */
typedef struct {
  PetscInt                  nthreads;
  MatAIJHybridPartitionType type;
  PetscReal                 row_cost;
  PetscReal                 diffusion_tol;
  PetscInt                  diffusion_max_it;
  PetscReal                 lead; /* < 0: nthreads equal parts; in [0, 1]: part 0 (thread 0 of task mode, which
                                     first drives the halo exchange) gets lead times an equal share of the
                                     cost and parts 1..nthreads-1 share the rest */
} AIJHybridPartParams;

/* the identity and nonzero pattern of the CSR block a cache was built for */
typedef struct {
  Mat              block;    /* referenced unless it is the matrix itself, so its address is not reused */
  PetscBool        owns_ref;
  PetscObjectState nzstate;  /* MatGetNonzeroState(block) */
  PetscInt         m, n, nz; /* rows, columns, nonzeros */
} AIJHybridBlockKey;

/* software prefetch (src/mat/prefetch.c) */
#define AIJHYBRID_DEFAULT_PREFETCH 512  /* nonzeros ahead: the measured best of 128 to 2048 (README, "What the type does") */
#define AIJHYBRID_PREFETCH_MAX     1048576
#define AIJHYBRID_PREFETCH_WARMUP  2    /* auto: products before the trial */
#define AIJHYBRID_PREFETCH_TRIALS  5    /* auto: products with and without prefetch each */
#define AIJHYBRID_PREFETCH_MARGIN  0.03 /* auto: prefetch kept if its median is this much faster */

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

/*
  A copy of one CSR block (same i, j, a) whose pages were first touched by the threads that
  multiply them (-mat_aijhybrid_first_touch): part t of the placement, the i entries
  [rowb[t], rowb[t+1]) and the nonzeros [nzb[t], nzb[t+1]), was written by thread t mod nthreads.
  Keyed on the block's pattern and the placement; its values are copied again when the block's
  object state changes. The arrays are mmap()ed so that their pages are fresh.
*/
typedef struct {
  AIJHybridBlockKey key;
  PetscObjectState  state;
  PetscInt          nparts, nthreads;
  PetscInt         *rowb, *nzb; /* nparts+1 each */
  PetscInt         *i, *j;
  PetscScalar      *a;
} AIJHybridMirror;

/* CSC pattern of one block for the race-free transpose, cached like AIJHybridRowPart */
typedef struct {
  AIJHybridBlockKey key;
  PetscInt         *ti, *tj, *perm; /* n+1, nz, nz */
  AIJHybridRowPart part;           /* partition of the columns (rows of the transpose) */
} AIJHybridTranspose;

/* MatSOR's thread-local sweeps (src/mat/sor.c): the in-block positions of each row for the
   products' thread partition of the diagonal block, and the (inverse) diagonal for its values */
typedef struct {
  AIJHybridBlockKey key;             /* the diagonal block the positions are for */
  PetscInt          partbuilds;      /* ... and its thread partition (ctx->diag.builds) */
  PetscInt          m;
  PetscInt         *lo, *dg, *hi;    /* in-block entries of row i: [lo[i], hi[i]); diagonal at dg[i] (-1: none) */
  PetscScalar      *idiag, *mdiag;   /* omega / (fshift + a_ii) (or 1 / a_ii), a_ii */
  PetscScalar      *bl, *t, *x1;     /* right-hand sides, the saved lower part, Eisenstat's second sweep */
  PetscBool         valid;           /* idiag/mdiag are for state, omega, fshift */
  PetscObjectState  state;
  PetscReal         omega, fshift;
} AIJHybridSOR;

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
  PetscBool          first_touch;  /* multiply thread-placed copies of the blocks */
  PetscInt           prefetch;     /* software prefetch distance of the forward kernels in nonzeros, 0: none; -1: auto */
  PetscInt           pf_use;       /* auto: the distance chosen, -1 while measuring (src/mat/prefetch.c) */
  PetscInt           pf_count;     /* auto: products measured in this trial */
  PetscInt           pf_builds;    /* auto: the partition builds the trial is for */
  double             pf_time[2][AIJHYBRID_PREFETCH_TRIALS]; /* auto: product times without / with */
  AIJHybridMirror    mdiag, moffd; /* those copies */
  PetscReal          task_share;   /* task mode: thread 0's diagonal share after the exchange; < 0: measured */
  PetscReal          task_lead;    /* the share in force */
  PetscInt           task_adapts;  /* measurements that resized it; AIJHYBRID_TASK_ADAPT_MAX ends them */
  PetscSF            halo;         /* mpi only: roots the owned columns, leaves the ghosts 0..nghost-1 (src/mat/halo.c) */
  PetscInt           nghost;
  PetscBool          halo_forced;  /* its type was set to nodeaware by node_aware (else it is what -sf_type says) */
  PetscInt           halo_node_size; /* node_size when it was built */
  Mat                halo_block;   /* off-diagonal block the halo was built for (referenced) */
  PetscScalar       *ghost, *ghost_t; /* ghost values (forward) and ghost contributions (transpose) */

  /* per-thread busy time of forward products, accumulated since the thread count or mode changed */
  double            *tstat;      /* AIJHYBRID_TSTAT_STRIDE doubles per thread (one cache line) */
  PetscInt           tstat_T;    /* threads the statistics are for */
  MatAIJHybridMode   tstat_mode; /* mode they are for */
  PetscInt           nprod;      /* products accumulated */

  /* the halo PetscSF's type (mpi only): nodeaware when node_aware, otherwise the one -sf_type gives (default basic) */
  PetscBool node_aware;
  PetscInt  node_size; /* nodeaware: 0 for the SF's own choice (-sf_nodeaware_node_size, default MPI_COMM_TYPE_SHARED); k > 0 emulated nodes of k ranks */

  /* MatSOR (src/mat/sor.c) */
  PetscBool    sor_serial; /* AIJ's sweeps instead of the thread-local ones */
  AIJHybridSOR sor;
} Mat_AIJHybrid;

#define AIJHYBRID_TSTAT_STRIDE 8
#define AIJHYBRID_TSTAT_DIAG   0 /* diagonal block */
#define AIJHYBRID_TSTAT_OFFD   1 /* off-diagonal block */
#define AIJHYBRID_TSTAT_COMM   2 /* halo exchange driven by thread 0 (task mode) */

#define AIJHYBRID_TASK_ADAPT_PRODUCTS 16   /* products measured before thread 0's share is resized */
#define AIJHYBRID_TASK_ADAPT_MAX      4    /* resizings at most, per pattern, thread count and mode */
#define AIJHYBRID_TASK_ADAPT_TOL      0.05 /* a change of the share smaller than this ends them */

PETSC_INTERN PetscLogEvent MATAIJHYBRID_Partition, MATAIJHYBRID_HaloBegin, MATAIJHYBRID_HaloEnd, MATAIJHYBRID_Mult, MATAIJHYBRID_Transpose;
PETSC_INTERN PetscLogEvent MATAIJHYBRID_SOR;
PETSC_INTERN int           MatAIJHybrid_MPIThreadLevel;

/* context (src/mat/context.c), caches (cache.c), options (options.c), views (view.c), products with other types (product.c), MatZeroRows (zerorows.c), the halo PetscSF (halo.c) */
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
PETSC_INTERN PetscErrorCode MatAIJHybridBlockKeyRead(Mat, AIJHybridBlockKey *, const PetscInt **, const PetscInt **);
PETSC_INTERN PetscBool      MatAIJHybridBlockKeySame(const AIJHybridBlockKey *, const AIJHybridBlockKey *);
PETSC_INTERN PetscErrorCode MatAIJHybridBlockKeyHold(AIJHybridBlockKey *, const AIJHybridBlockKey *, Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridBlockKeyRelease(AIJHybridBlockKey *);
PETSC_INTERN PetscErrorCode MatAIJHybridMirrorUpdate(AIJHybridMirror *, Mat, Mat, const AIJHybridRowPart *, PetscInt, const PetscInt **, const PetscInt **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatAIJHybridMirrorReset(AIJHybridMirror *);
PETSC_INTERN PetscErrorCode MatAIJHybridThreadStatsReset(Mat_AIJHybrid *);
PETSC_INTERN PetscErrorCode MatAIJHybridTaskShareAdapt(Mat_AIJHybrid *);
PETSC_INTERN PetscInt       MatAIJHybridPrefetchDistance(Mat_AIJHybrid *);
PETSC_INTERN void           MatAIJHybridPrefetchRestart(Mat_AIJHybrid *);
PETSC_INTERN PetscErrorCode MatAIJHybridPrefetchRecord(Mat, Mat_AIJHybrid *, PetscInt, double);
PETSC_INTERN PetscErrorCode MatCreateVecs_AIJHybrid(Mat, Vec *, Vec *);
PETSC_INTERN PetscErrorCode MatZeroRows_AIJHybrid(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);
PETSC_INTERN PetscErrorCode MatAIJHybridHaloUpdate(Mat, Mat_AIJHybrid *, PetscBool);
PETSC_INTERN PetscErrorCode MatAIJHybridHaloReset(Mat_AIJHybrid *);
PETSC_INTERN PetscErrorCode MatAIJHybridViewHalo_Private(Mat, PetscViewer, Mat_AIJHybrid *, PetscViewerFormat);

/* MatSOR (src/mat/sor.c); the diagonal block's thread tag for its factors (src/mat/block.c); the
   ghost values of x for MatSOR through the products' exchange (src/mat/mpiaijhybrid.c) */
PETSC_INTERN PetscErrorCode MatSOR_AIJHybrid(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN PetscErrorCode MatAIJHybridSORReset(AIJHybridSOR *);
PETSC_INTERN PetscErrorCode MatAIJHybridTagBlock(Mat, PetscInt);
PETSC_INTERN PetscErrorCode MatAIJHybridUntagBlock(Mat);
PETSC_INTERN PetscErrorCode MatGetDiagonalBlock_AIJHybrid(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatAIJHybridMPIGhosts(Mat, const PetscScalar[], Mat *, Mat *, PetscScalar **);


/* type constructors and converters */
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJHybrid(Mat);
PETSC_INTERN PetscErrorCode MatAIJHybridSnapshotBaseOps(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatAIJHybridGetContext(Mat, Mat_AIJHybrid **);
PETSC_INTERN PetscErrorCode MatConvert_AIJ_AIJHybrid(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_AIJHybrid_AIJ(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN const AIJHybridTypeInfo AIJHybridSeqInfo, AIJHybridMPIInfo;

/* the -mat_aijhybrid_* options (src/mat/options.c; the mechanism: src/options/optiontable.h) */
PETSC_INTERN const struct AIJHybridOptionTable_s MatAIJHybridOptionTable;


#endif
