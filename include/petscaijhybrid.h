/*
   petsc-aijhybrid: hybrid MPI/OpenMP sparse matrix-vector products for PETSc AIJ matrices.

   Public interface. Everything here is callable from C applications that link
   libpetscaijhybrid and from petsc4py through the petsc_aijhybrid package.
*/
#ifndef PETSCAIJHYBRID_H
#define PETSCAIJHYBRID_H

#include <petscmat.h>

#define PETSCAIJHYBRID_VERSION_MAJOR 0
#define PETSCAIJHYBRID_VERSION_MINOR 1
#define PETSCAIJHYBRID_VERSION_PATCH 0

/*MC
   MATAIJHYBRID - "aijhybrid" - AIJ matrix whose products run with OpenMP threads inside each MPI rank.

   Root name: resolves to `MATSEQAIJHYBRID` on one rank and `MATMPIAIJHYBRID` otherwise.

   Options Database Keys:
+  -mat_type aijhybrid                    - sets the type in `MatSetFromOptions()`
.  -mat_aijhybrid_num_threads <n>         - OpenMP threads per rank, see `MatAIJHybridSetNumThreads()`
.  -mat_aijhybrid_mode <auto,vector,task> - overlap of the halo exchange with computation, see `MatAIJHybridSetMode()`
.  -mat_aijhybrid_partition <rows,nnz,diffusion,optimal> - thread partition of the rows, see `MatAIJHybridSetPartitionType()`
.  -mat_aijhybrid_row_cost <c>            - cost of a row in nonzeros for the balanced partitions, see `MatAIJHybridSetRowCost()`
.  -mat_aijhybrid_diffusion_tol <tol>     - diffusion partition tolerance, see `MatAIJHybridSetDiffusion()`
.  -mat_aijhybrid_diffusion_max_it <n>    - diffusion partition sweeps, see `MatAIJHybridSetDiffusion()`
.  -mat_aijhybrid_first_touch <bool>      - multiply copies placed by the threads, see `MatAIJHybridSetFirstTouch()`
.  -mat_aijhybrid_prefetch <d>            - software prefetch distance, or -1 for measured, see `MatAIJHybridSetPrefetch()`
.  -mat_aijhybrid_task_share <s>          - thread 0's share of the diagonal block in task mode, or -1 for measured, see `MatAIJHybridSetTaskShare()`
.  -mat_aijhybrid_node_aware <bool>       - node-aware halo exchange, see `MatAIJHybridSetNodeAware()`
-  -mat_aijhybrid_node_size <k>           - emulated nodes of k ranks for it, see `MatAIJHybridSetNodeSize()`

   Level: beginner

   Notes:
   What each option accepts and its default are listed once, in the options table of the README
   (generated from the table in `src/mat/options.c`, which also produces the `-help` lines and checks
   the values), and by `PetscAIJHybridOptionsView()`. A bad value, or an unknown
   `-mat_aijhybrid_` name, makes `MatSetFromOptions()` fail with a message naming the option before
   any option is applied; an option of the family that no matrix reads is reported at `PetscFinalize()`.

.seealso: `MatAIJHybridSetNumThreads()`, `MatAIJHybridSetMode()`, `PetscAIJHybridOptionsView()`
M*/
#define MATAIJHYBRID    "aijhybrid"
#define MATSEQAIJHYBRID "seqaijhybrid"
#define MATMPIAIJHYBRID "mpiaijhybrid"

/*E
   MatAIJHybridPartitionType - how the rows of a rank are split between its threads

   Values:
+  MAT_AIJHYBRID_PARTITION_ROWS      - equal numbers of rows (what `omp for schedule(static)` does)
.  MAT_AIJHYBRID_PARTITION_NNZ       - greedy contiguous blocks with equal cost, cost of a row = nonzeros + row_cost
.  MAT_AIJHYBRID_PARTITION_DIFFUSION - greedy start, then local diffusion of boundary rows between neighbouring threads
-  MAT_AIJHYBRID_PARTITION_OPTIMAL   - exact minimum-bottleneck contiguous partition

   Level: intermediate
E*/
typedef enum {
  MAT_AIJHYBRID_PARTITION_ROWS,
  MAT_AIJHYBRID_PARTITION_NNZ,
  MAT_AIJHYBRID_PARTITION_DIFFUSION,
  MAT_AIJHYBRID_PARTITION_OPTIMAL
} MatAIJHybridPartitionType;
PETSC_EXTERN const char *const MatAIJHybridPartitionTypes[];

/*E
   MatAIJHybridMode - how a product of an `MATMPIAIJHYBRID` matrix overlaps the halo exchange with computation

   Values:
+  MAT_AIJHYBRID_MODE_AUTO   - `MAT_AIJHYBRID_MODE_TASK` when the matrix has an off-process part and there is more than one thread, `MAT_AIJHYBRID_MODE_VECTOR` otherwise (default)
.  MAT_AIJHYBRID_MODE_VECTOR - the main thread completes the halo exchange, then all threads multiply both blocks
-  MAT_AIJHYBRID_MODE_TASK   - one parallel region: thread 0 drives the halo exchange while the other threads multiply the diagonal block; then all threads multiply the off-diagonal block

   Level: intermediate
E*/
typedef enum {
  MAT_AIJHYBRID_MODE_AUTO,
  MAT_AIJHYBRID_MODE_VECTOR,
  MAT_AIJHYBRID_MODE_TASK
} MatAIJHybridMode;
PETSC_EXTERN const char *const MatAIJHybridModes[];

/*S
   MatAIJHybridPartitionInfo - figures describing the cached thread partition of the local rows

   Fields:
+  nthreads     - number of threads the partition is for
.  type         - the partitioner used
.  imbalance    - max/mean cost per thread of the diagonal block (1 is perfect)
.  imbalance_offdiag - same for the off-diagonal block (1 when there is none)
.  sweeps       - diffusion sweeps done (0 for the other partitioners)
.  build_time   - seconds spent computing the partitions at the last (re)build
-  builds       - number of times the partitions were (re)built for this matrix

   Level: intermediate
S*/
typedef struct {
  PetscInt                  nthreads;
  MatAIJHybridPartitionType type;
  PetscReal                 imbalance;
  PetscReal                 imbalance_offdiag;
  PetscInt                  sweeps;
  PetscLogDouble            build_time;
  PetscInt                  builds;
} MatAIJHybridPartitionInfo;

PETSC_EXTERN PetscErrorCode MatAIJHybridInitializePackage(void);
PETSC_EXTERN PetscErrorCode MatAIJHybridFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscAIJHybridOptionsView(PetscViewer);

PETSC_EXTERN PetscErrorCode MatAIJHybridSetNumThreads(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetNumThreads(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetPartitionType(Mat, MatAIJHybridPartitionType);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetPartitionType(Mat, MatAIJHybridPartitionType *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetMode(Mat, MatAIJHybridMode);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetMode(Mat, MatAIJHybridMode *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetRowCost(Mat, PetscReal);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetRowCost(Mat, PetscReal *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetDiffusion(Mat, PetscReal, PetscInt);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetDiffusion(Mat, PetscReal *, PetscInt *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetFirstTouch(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetFirstTouch(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetPrefetch(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetPrefetch(Mat, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetTaskShare(Mat, PetscReal);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetTaskShare(Mat, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetPartitionInfo(Mat, MatAIJHybridPartitionInfo *);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetThreadTimes(Mat, PetscInt *, PetscInt *, PetscReal[]);
PETSC_EXTERN PetscErrorCode MatAIJHybridResetThreadTimes(Mat);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetPartition(Mat, PetscInt *, const PetscInt *[]);

/* ---- node-aware halo exchange (src/exchange/) ---- */

/*S
   PetscAIJHybridExchange - a halo exchange for any ghosted pattern: each rank names the global
   indices (of a `PetscLayout`) it needs; forward copies the owners' values into the ghosts (insert),
   reverse adds ghost contributions to the owners (add). Standard (a `PetscSF`) or node-aware: what
   the ranks of one node need from another node travels as one message per node pair, gathered and
   redistributed on the nodes.

   Level: intermediate

.seealso: `PetscAIJHybridExchangeCreate()`, `MatAIJHybridSetNodeAware()`
S*/
typedef struct _p_PetscAIJHybridExchange *PetscAIJHybridExchange;

/*S
   PetscAIJHybridExchangeCounts - messages and bytes of one exchange, split into inter-node and on-node

   Fields:
+  inter_msgs  - messages to ranks on other nodes
.  inter_bytes - their bytes
.  on_msgs     - messages to other ranks on the same node (a rank's copy to itself is not a message)
-  on_bytes    - their bytes

   Level: intermediate
S*/
typedef struct {
  PetscInt   inter_msgs, on_msgs;
  PetscInt64 inter_bytes, on_bytes;
} PetscAIJHybridExchangeCounts;

/*S
   PetscAIJHybridExchangeStats - message statistics of the standard and the node-aware exchange of one ghost pattern

   Fields:
+  nnodes            - number of nodes
.  node              - node of this rank
.  node_ranks        - ranks on that node
.  node_aware        - whether the exchange in use is the node-aware one
.  standard          - messages this rank sends in one forward standard exchange (reverse: the same)
.  nodeaware         - messages this rank sends in one forward node-aware exchange
.  nodeaware_reverse - messages this rank sends in one reverse node-aware exchange (one value per ghost and requesting rank: nothing is summed on the way)
-  *_total           - the same summed over all ranks

   Level: intermediate
S*/
typedef struct {
  PetscInt                     nnodes, node, node_ranks;
  PetscBool                    node_aware;
  PetscAIJHybridExchangeCounts standard, nodeaware, nodeaware_reverse;
  PetscAIJHybridExchangeCounts standard_total, nodeaware_total, nodeaware_reverse_total;
} PetscAIJHybridExchangeStats;

PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeCreate(MPI_Comm, PetscLayout, PetscInt, const PetscInt[], PetscBool, PetscInt, PetscAIJHybridExchange *);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeCreateFromVec(Vec, PetscInt, const PetscInt[], PetscBool, PetscInt, PetscAIJHybridExchange *);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeDestroy(PetscAIJHybridExchange *);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeForwardBegin(PetscAIJHybridExchange, const PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeForwardEnd(PetscAIJHybridExchange, const PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeReverseBegin(PetscAIJHybridExchange, const PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeReverseEnd(PetscAIJHybridExchange, const PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeForwardVec(PetscAIJHybridExchange, Vec, Vec);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeReverseVec(PetscAIJHybridExchange, Vec, Vec);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeGetStats(PetscAIJHybridExchange, PetscAIJHybridExchangeStats *);
PETSC_EXTERN PetscErrorCode PetscAIJHybridExchangeView(PetscAIJHybridExchange, PetscViewer);

PETSC_EXTERN PetscErrorCode MatAIJHybridSetNodeAware(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetNodeAware(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetNodeSize(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetNodeSize(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetExchangeStats(Mat, PetscAIJHybridExchangeStats *);

#endif
