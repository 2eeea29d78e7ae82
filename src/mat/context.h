/*
   The data of an aijhybrid matrix (seqaijhybrid and mpiaijhybrid), kept in Mat->spptr, in four
   parts: the settings the options and Set functions write, the caches of src/mat/cache.h, the
   tuning measured from products, and the per-thread statistics.

     context.c  create, destroy, get, copy the settings, the parameters and mode in force
     tune.c     the statistics of the forward products and what is tuned from them after each
                product: thread 0's task-mode share and the software prefetch distance

   Every function here takes the context; only the operations (src/mat/aijhybridimpl.h) look it up
   from the matrix.
*/
#ifndef AIJHYBRID_MAT_CONTEXT_H
#define AIJHYBRID_MAT_CONTEXT_H

#include "cache.h"
#include "../tune/choice.h"

/* what differs between seqaijhybrid and mpiaijhybrid */
typedef struct {
  MatType     type, base;          /* e.g. seqaijhybrid, seqaij */
  const char *to_base, *from_base; /* names of the composed converters */
  PetscBool   mpi;                 /* an off-diagonal block and a halo exchange */
} AIJHybridTypeInfo;

/* what the options and the Set functions write; MatDuplicate() copies it */
typedef struct {
  AIJHybridPartParams      params;        /* params.task_share unused: see task_share */
  PetscBool                nthreads_set;  /* set by the user; otherwise follow omp_get_max_threads() */
  MatAIJHybridMode         mode;          /* requested; AUTO resolves per product */
  PetscBool                first_touch;   /* multiply copies of the blocks placed by their threads */
  PetscInt                 prefetch;      /* software prefetch distance in nonzeros, 0: none; -1: measured */
  PetscReal                task_share;    /* task mode: thread 0's diagonal share after the exchange; < 0: measured */
  PetscBool                node_aware;    /* the halo PetscSF's type is nodeaware (else what -sf_type says) */
  PetscInt                 node_size;     /* its emulated nodes; 0: the SF's own choice */
  PetscBool                sor_serial;    /* MatSOR runs AIJ's sweeps */
  MatAIJHybridFactorBlocks factor_blocks; /* ILU/ICC factor the block-diagonal part, one block per thread (src/factor/) */
} AIJHybridSettings;

/* the caches, each valid for a block's pattern and the parameters it was built with */
typedef struct {
  AIJHybridRowPart        diag, offd;   /* offd: mpi only, its non-empty rows */
  AIJHybridRowPart        diag_task;    /* task mode: the diagonal rows with thread 0's share in force */
  AIJHybridRowPart        diag_task_b;  /* task mode: the same with the other share while the two are compared (tune.c) */
  AIJHybridTranspose      tdiag, toffd; /* built on the first transpose product */
  AIJHybridFirstTouchCopy ftdiag, ftoffd;
  AIJHybridSOR            sor;
  AIJHybridHalo           halo;        /* mpi only */
  PetscBool               has_offproc; /* some rank has ghosts: set collectively at assembly */
} AIJHybridCaches;

/* mpi only: the diagonal block as MatGetDiagonalBlock() returns it (src/mat/block.c), a seqaijhybrid
   matrix sharing the CSR arrays of MPIAIJ's diagonal block; valid while that block, its nonzero
   state and its arrays stay the ones below */
typedef struct {
  Mat              view;    /* referenced by the context (and by whoever uses it, e.g. PCBJACOBI's sub-KSP) */
  Mat              Ad;      /* MPIAIJ's diagonal block it shares the arrays of (the view holds a reference) */
  PetscObjectState nzstate; /* Ad's nonzero state ... */
  PetscObjectState state;   /* ... and object state (values) the view was last made current for */
  const PetscInt  *i, *j;   /* Ad's arrays */
  PetscScalar     *a;
} AIJHybridBlockView;

/* software prefetch (tune.c) */
#define AIJHYBRID_DEFAULT_PREFETCH 512 /* nonzeros ahead */
#define AIJHYBRID_PREFETCH_MAX     1048576

/* thread 0's task-mode share (tune.c) */
#define AIJHYBRID_TASK_SHARE_PRODUCTS 16   /* products measured before the share is resized */
#define AIJHYBRID_TASK_SHARE_MAX      4    /* resizings at most, per pattern, thread count and mode */
#define AIJHYBRID_TASK_SHARE_TOL      0.05 /* a change of the share smaller than this ends them */

/* the rule of both measured choices (src/tune/choice.h): pairs of products per trial, trials, warm-up
   pairs, products of the default between trials (0: a trial that cannot tell is followed at once by the
   next, so the choice is settled within 1 + 3 * 16 pairs, 98 products, before a solve is far along), the
   minimum effect and the false-choice probability; each trial's test counts every pair so far */
#define AIJHYBRID_TUNE_PAIRS  16
#define AIJHYBRID_TUNE_TRIALS 3
#define AIJHYBRID_TUNE_WARMUP 1
#define AIJHYBRID_TUNE_WAIT   0
#define AIJHYBRID_TUNE_EFFECT 0.05
#define AIJHYBRID_TUNE_ALPHA  0.05

/* what a test clock (MatAIJHybridSetTestClock_C, tune.c) is asked for */
typedef enum {
  AIJHYBRID_TUNE_PREFETCH_SAMPLE, /* the seconds of a product of the prefetch choice (alternative 0: none, 1: prefetch) */
  AIJHYBRID_TUNE_SHARE_SAMPLE,    /* the seconds of a product of the share choice (0: share 1, 1: the sized share) */
  AIJHYBRID_TUNE_SHARE_SIZED      /* the share the model sizes (returned instead of the measured one) */
} AIJHybridTuneEvent;
typedef double (*AIJHybridTuneClock)(void *, AIJHybridTuneEvent, PetscInt);

/* the phase of thread 0's task-mode share */
typedef enum {
  AIJHYBRID_SHARE_SIZING,   /* measuring the model's share (resizes) */
  AIJHYBRID_SHARE_CHOOSING, /* comparing the sized share with share 1 (share_choice) */
  AIJHYBRID_SHARE_DONE      /* share_choice made (or nothing to compare) */
} AIJHybridSharePhase;

/* what is tuned from measured products */
typedef struct {
  PetscReal           task_share;   /* the share of the next product (AIJHybridSettings.task_share, or measured) */
  PetscInt            task_slot;    /* its partition: 0 diag_task, 1 diag_task_b (the sized share while compared) */
  PetscInt            task_resizes; /* measurements that resized it */
  AIJHybridSharePhase share_phase;
  PetscReal           share_sized;  /* the model's share, compared with share 1 */
  AIJHybridChoice     share_choice; /* A: share 1, B: share_sized */
  PetscInt            share_alt;    /* the alternative of the next product, and whether it is timed */
  PetscBool           share_timed;
  AIJHybridChoice     pf_choice; /* A: no prefetch, B: AIJHYBRID_DEFAULT_PREFETCH nonzeros ahead */
  PetscInt            pf_alt;    /* the alternative of the product under way, and whether it is timed */
  PetscBool           pf_timed;
  PetscInt            pf_builds; /* the partition builds the choices are for */
  AIJHybridTuneClock  clock;     /* tests only: the seconds the choices record (NULL: measured) */
  void               *clock_ctx;
} AIJHybridTuning;

/* per-thread busy time of the forward products, since the thread count or mode changed */
#define AIJHYBRID_STATS_STRIDE 8 /* doubles per thread: one cache line */
#define AIJHYBRID_STATS_DIAG   0 /* diagonal block */
#define AIJHYBRID_STATS_OFFD   1 /* off-diagonal block */
#define AIJHYBRID_STATS_COMM   2 /* halo exchange driven by thread 0 (task mode) */
#define AIJHYBRID_STATS_LAST   3 /* the last product's kernel time (diagonal + off-diagonal), not accumulated */

typedef struct {
  double          *time;     /* AIJHYBRID_STATS_STRIDE per thread */
  PetscInt         nthreads; /* threads they are for */
  MatAIJHybridMode mode;     /* mode they are for */
  PetscInt         nprod;    /* products accumulated */
} AIJHybridStats;

typedef struct {
  struct _MatOps           parentops; /* AIJ's operations, saved when the type was set; we chain to them */
  const AIJHybridTypeInfo *info;
  AIJHybridSettings        set;
  AIJHybridCaches          cache;
  AIJHybridBlockView       block; /* mpi only */
  AIJHybridTuning          tune;
  AIJHybridStats           stats;
  PetscBool                assembled_once; /* a first final assembly ran (a product takes its operand's settings there) */
} Mat_AIJHybrid;

PETSC_INTERN const AIJHybridTypeInfo AIJHybridSeqInfo, AIJHybridMPIInfo;

/* context.c */
PETSC_INTERN PetscErrorCode   MatAIJHybridContextCreate(Mat, const AIJHybridTypeInfo *, Mat_AIJHybrid **);
PETSC_INTERN PetscErrorCode   MatAIJHybridContextDestroy(Mat);
PETSC_INTERN PetscErrorCode   MatAIJHybridGetContext(Mat, Mat_AIJHybrid **);
PETSC_INTERN void             MatAIJHybridContextCopySettings(const AIJHybridSettings *, Mat_AIJHybrid *);
PETSC_INTERN void             MatAIJHybridContextCurrentParams(Mat_AIJHybrid *, AIJHybridPartParams *);
PETSC_INTERN MatAIJHybridMode MatAIJHybridEffectiveMode(const Mat_AIJHybrid *, PetscInt);

/* tune.c */
PETSC_INTERN PetscErrorCode MatAIJHybridStatsPrepare(Mat_AIJHybrid *, PetscInt, MatAIJHybridMode);
PETSC_INTERN PetscErrorCode MatAIJHybridStatsReset(Mat_AIJHybrid *);
PETSC_INTERN PetscInt       MatAIJHybridPrefetchDistance(Mat_AIJHybrid *);
PETSC_INTERN PetscInt       MatAIJHybridPrefetchInUse(const Mat_AIJHybrid *);
PETSC_INTERN void           MatAIJHybridPrefetchRestart(Mat_AIJHybrid *);
PETSC_INTERN void           MatAIJHybridTaskShareRestart(Mat_AIJHybrid *);
PETSC_INTERN PetscReal      MatAIJHybridTaskShareInUse(const Mat_AIJHybrid *);
PETSC_INTERN PetscErrorCode MatAIJHybridTune(Mat, Mat_AIJHybrid *, PetscInt, double, double);
PETSC_INTERN PetscErrorCode MatAIJHybridSetTestClock_AIJHybrid(Mat, AIJHybridTuneClock, void *);

#endif
