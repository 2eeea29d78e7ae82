/*
   petsc-aijhybrid: hybrid MPI/OpenMP sparse matrix-vector products for PETSc AIJ matrices.

   Public interface. Everything here is callable from C applications that link
   libpetscaijhybrid and from petsc4py through the petsc_aijhybrid package.
*/
#ifndef PETSCAIJHYBRID_H
#define PETSCAIJHYBRID_H

#include <petscmat.h>
#include <petscvec.h>
#include <petscsf.h>

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
.  -mat_aijhybrid_node_size <k>           - emulated nodes of k ranks for it, see `MatAIJHybridSetNodeSize()`
.  -mat_aijhybrid_sor_serial <bool>       - `MatSOR()` runs AIJ's serial sweeps, see `MatAIJHybridSetSORSerial()`
.  -mat_aijhybrid_factor_solve <auto,threaded,serial> - triangular solves of ILU/ICC factors: measured choice (default), threaded or PETSc's serial ones, see `MatAIJHybridGetFactorInfo()`
.  -mat_aijhybrid_factor_check <bool>     - (debugging) compare every threaded triangular solve and numeric factorization with PETSc's, see `MatAIJHybridGetFactorInfo()`
.  -mat_aijhybrid_factor_numeric <auto,threaded,serial> - numeric ILU/ICC factorization: measured choice (default), level-scheduled threaded (PETSc's bits) or PETSc's serial one, see `MatAIJHybridGetFactorInfo()`
-  -mat_aijhybrid_factor_blocks <none,thread> - ILU/ICC factor the whole matrix or the diagonal block of each thread's rows, see `MatAIJHybridSetFactorBlocks()`

   Level: beginner

   Notes:
   `MatSetFromOptions()` reads the options (with the matrix's options prefix) as PETSc's own types do:
   `-help` lists them with their current values, and a misspelt name is reported by `-options_left`
   (by default in debug builds). A bad value makes `MatSetFromOptions()` fail with a message naming
   the option and the value, before any option is applied. The factor options (solve, check, numeric) are read,
   and checked the same way, when a factor is made: with the options prefix of the matrix factored, then
   without one. The README's options table is generated from `-help`.

.seealso: `MatAIJHybridSetNumThreads()`, `MatAIJHybridSetMode()`
M*/
#define MATAIJHYBRID    "aijhybrid"
#define MATSEQAIJHYBRID "seqaijhybrid"
#define MATMPIAIJHYBRID "mpiaijhybrid"

/*MC
   MATPRODUCTALGORITHMAIJHYBRID - "aijhybrid" - the `MatProductAlgorithm` of the threaded sparse products of
   `MATAIJHYBRID` matrices (AB, AtB, ABt, PtAP, RARt: `MatMatMult()`, `MatTransposeMatMult()`,
   `MatMatTransposeMult()`, `MatPtAP()`, `MatRARt()`, `MatProductCreate()`), the default when both operands are
   `MATSEQAIJHYBRID` or both `MATMPIAIJHYBRID`

   Options Database Keys:
+  -mat_product_algorithm <alg> - `aijhybrid`, or one of PETSc's algorithms for AIJ (then PETSc's implementation runs)
-  -matmatmult_via, -mattransposematmult_via, -matmattransmult_via, -matptap_via, -matrart_via <alg> - the same for
   `MatMatMult()`, `MatTransposeMatMult()`, `MatMatTransposeMult()`, `MatPtAP()`, `MatRARt()`

   Level: intermediate

   Note:
   Each row of the result is computed by one thread in a fixed order: the result does not depend on the
   thread count. It is of the first operand's type, with its settings.

.seealso: `MatProductSetAlgorithm()`, `MatPtAP()`, `MatMatMult()`, `MATAIJHYBRID`
M*/
#define MATPRODUCTALGORITHMAIJHYBRID "aijhybrid"

/*E
   MatAIJHybridPartitionType - how the rows of a rank are split between its threads

   Values:
+  MAT_AIJHYBRID_PARTITION_ROWS      - equal numbers of rows (what `omp for schedule(static)` does)
.  MAT_AIJHYBRID_PARTITION_NNZ       - greedy contiguous blocks with equal cost, cost of a row = nonzeros + row_cost
.  MAT_AIJHYBRID_PARTITION_DIFFUSION - greedy start, then local diffusion of boundary rows between neighbouring threads
-  MAT_AIJHYBRID_PARTITION_OPTIMAL   - exact minimum-bottleneck contiguous partition

   Level: intermediate

.seealso: `MatAIJHybridSetPartitionType()`, `MatAIJHybridGetPartitionType()`, `MatAIJHybridPartitionInfo`, `MATAIJHYBRID`
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

.seealso: `MatAIJHybridSetMode()`, `MatAIJHybridGetMode()`, `MatAIJHybridSetTaskShare()`, `MATAIJHYBRID`
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

.seealso: `MatAIJHybridGetPartitionInfo()`, `MatAIJHybridSetPartitionType()`, `MATAIJHYBRID`
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

PETSC_EXTERN PetscErrorCode MatCreateSeqAIJHybrid(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MatCreateMPIAIJHybrid(MPI_Comm, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], PetscInt, const PetscInt[], Mat *);
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

/* ---- the node-aware PetscSF type (src/sf/) ---- */

/*MC
   PETSCSFNODEAWARE - "nodeaware" - a `PetscSF` type whose broadcasts and reductions send one message
   per ordered pair of nodes: what the ranks of node N need from the ranks of node M is gathered on
   one rank of M, sent as one message to one rank of N and redistributed there; data between ranks
   of one node goes directly. The node pairs are spread over the ranks of each node.

   Options Database Keys:
+  -sf_type nodeaware             - select the type (every `VecScatter` and `PetscSFSetFromOptions()` reads it)
.  -sf_nodeaware_node_size <k>    - emulate nodes of k consecutive ranks (default 0: the nodes `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` finds)
-  -sf_nodeaware_always <bool>    - run the node-aware plan even on one node or with one rank per node, where its messages are basic's and basic sends them by default

   Level: intermediate

   Notes:
   Node-aware: `PetscSFBcastBegin()`/`End()` and `PetscSFReduceBegin()`/`End()` with `MPI_REPLACE`,
   `MPI_SUM` (`MPIU_SUM`), and `MPI_MAX`/`MPI_MIN` on real and integer units, for units that are
   `MPIU_SCALAR`, `MPIU_REAL`, `MPIU_INT`, `MPI_INT` or contiguous blocks of one of them (what
   `VecScatter` with a block size uses), and `MPI_2INT`/`MPIU_2INT` with `MPI_REPLACE`; so also the
   gathers and scatters of `PetscSFGatherBegin()`/`PetscSFScatterBegin()` (their multi-SF is of this
   type) and `PetscSFComputeDegreeBegin()`. Results are bitwise those of `PETSCSFBASIC`: a reduction
   adds a root's contributions in basic's order (this rank's leaves first, then by ascending rank).

   Everything else runs on a `PETSCSFBASIC` SF of the same graph that this type keeps:
   `PetscSFFetchAndOpBegin()`, other operations and units, memory on a device, and a reduction with
   `MPI_SUM` on floating-point units when some rank has several leaves on one root of another rank
   (basic adds them one by one; to keep its order and result, that case is not node-aware).

   Every rank of the communicator must take part in every operation (a rank without roots or leaves
   may relay for its node), and operations on different `PetscSF`s must be ended in the same order on
   all ranks, as with `PETSCSFNEIGHBOR`. Ending one begun operation of an SF while another one of
   the same SF is in flight is fine.

.seealso: `PetscSFType`, `PetscSFSetType()`, `PetscSFNodeAwareSetNodeSize()`, `PetscSFNodeAwareGetStats()`, `MatAIJHybridSetNodeAware()`
M*/
#define PETSCSFNODEAWARE "nodeaware"

/*S
   PetscSFNodeAwareCounts - messages and their size in one operation, split into inter-node and on-node

   Fields:
+  inter_msgs    - messages to ranks on other nodes
.  on_msgs       - messages to other ranks on the same node (a rank's copy to itself is not a message)
.  inter_entries - units they carry
.  on_entries    - units they carry
.  inter_bytes   - inter_entries times the size of a `PetscScalar` (the unit of `VecScatter` and the matrix halo)
-  on_bytes      - on_entries times the size of a `PetscScalar`

   Level: intermediate

.seealso: `PetscSFNodeAwareStats`
S*/
typedef struct {
  PetscInt   inter_msgs, on_msgs;
  PetscInt64 inter_entries, on_entries, inter_bytes, on_bytes;
} PetscSFNodeAwareCounts;

/*S
   PetscSFNodeAwareStats - the nodes and the messages of a node-aware `PetscSF` and of a basic one of the same graph

   Fields:
+  nnodes            - number of nodes
.  node              - node of this rank
.  node_ranks        - ranks on that node
.  node_aware        - `MatAIJHybridGetExchangeStats()`: whether the matrix's halo `PetscSF` is of type `PETSCSFNODEAWARE`; otherwise `PETSC_TRUE`
.  basic             - messages this rank sends in one broadcast of `PETSCSFBASIC` (a reduction sends as many in total)
.  nodeaware         - messages this rank sends in one node-aware broadcast
.  nodeaware_reverse - messages this rank sends in one node-aware reduction (one unit per root and leaf rank: nothing is combined on the way)
.  *_total           - the same summed over all ranks
.  ops_nodeaware     - broadcasts and reductions this SF has run node-aware so far (this rank)
-  ops_basic         - operations it has run on its basic SF (other units or operations, fetch-and-op, ...)

   Level: intermediate

.seealso: `PetscSFNodeAwareGetStats()`, `PETSCSFNODEAWARE`
S*/
typedef struct {
  PetscInt               nnodes, node, node_ranks;
  PetscBool              node_aware;
  PetscSFNodeAwareCounts basic, nodeaware, nodeaware_reverse;
  PetscSFNodeAwareCounts basic_total, nodeaware_total, nodeaware_reverse_total;
  PetscInt64             ops_nodeaware, ops_basic;
} PetscSFNodeAwareStats;

PETSC_EXTERN PetscErrorCode PetscSFNodeAwareSetNodeSize(PetscSF, PetscInt);
PETSC_EXTERN PetscErrorCode PetscSFNodeAwareGetNodeSize(PetscSF, PetscInt *);
PETSC_EXTERN PetscErrorCode PetscSFNodeAwareSetAlways(PetscSF, PetscBool);
PETSC_EXTERN PetscErrorCode PetscSFNodeAwareGetAlways(PetscSF, PetscBool *);
PETSC_EXTERN PetscErrorCode PetscSFNodeAwareGetStats(PetscSF, PetscSFNodeAwareStats *);

/* ---- the matrix's halo exchange ---- */
PETSC_EXTERN PetscErrorCode MatAIJHybridGetHaloSF(Mat, PetscSF *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetNodeAware(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetNodeAware(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetNodeSize(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetNodeSize(Mat, PetscInt *);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetExchangeStats(Mat, PetscSFNodeAwareStats *);

/* ---- threaded vectors (src/vec/) ---- */

/*MC
   VECHYBRID - "hybrid" - a vector whose operations run with OpenMP threads inside each MPI rank.

   Root name: resolves to `VECSEQHYBRID` on one rank and `VECMPIHYBRID` otherwise. Same storage as
   `VECSEQ` / `VECMPI`; the operations a Krylov method or a pointwise preconditioner calls in its loop
   (dot products, norms, AXPY and its kin, pointwise products, ...) run on the rank's threads, and
   every sum (`VecDot()`, `VecNorm()`, `VecMDot()`, `VecSum()`, ...) is the same, bit for bit, for any
   thread count.

   Options Database Keys:
+  -vec_type hybrid                 - select the type where the application calls `VecSetFromOptions()` (`-dm_vec_type hybrid` for DM vectors)
.  -vec_hybrid_num_threads <n>      - threads per rank (default: as `MATAIJHYBRID`, from `OMP_NUM_THREADS` or the cores per rank)
.  -vec_hybrid_threshold <n>        - local length from which the operations are threaded
.  -vec_hybrid_first_touch <bool>   - each thread first writes its own entries (default: on with several NUMA domains)
-  -vec_hybrid_standard             - give every standard vector (`VecCreateMPI()`, ...) the threaded operations, keeping its type name

   Level: beginner

   Note:
   `MatCreateVecs()` of a `MATAIJHYBRID` matrix returns `VECHYBRID` vectors with the matrix's threads,
   each thread operating on an equal part of the entries, or, where first touch places them, on the
   entries of the rows it multiplies.

.seealso: `VECSEQHYBRID`, `VECMPIHYBRID`, `VecHybridSetNumThreads()`, `VecHybridSetStandard()`, `MATAIJHYBRID`
M*/
#define VECHYBRID    "hybrid"
#define VECSEQHYBRID "seqhybrid"
#define VECMPIHYBRID "mpihybrid"

PETSC_EXTERN PetscErrorCode VecCreateSeqHybrid(MPI_Comm, PetscInt, Vec *);
PETSC_EXTERN PetscErrorCode VecCreateMPIHybrid(MPI_Comm, PetscInt, PetscInt, Vec *);
PETSC_EXTERN PetscErrorCode VecCreateHybridWithLayout(MPI_Comm, PetscLayout, PetscInt, const PetscInt[], Vec *);
PETSC_EXTERN PetscErrorCode VecHybridSetNumThreads(Vec, PetscInt);
PETSC_EXTERN PetscErrorCode VecHybridGetNumThreads(Vec, PetscInt *);
PETSC_EXTERN PetscErrorCode VecHybridSetPartition(Vec, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode VecHybridGetPartition(Vec, PetscInt *, const PetscInt *[]);
PETSC_EXTERN PetscErrorCode VecHybridSetThreshold(Vec, PetscInt);
PETSC_EXTERN PetscErrorCode VecHybridGetThreshold(Vec, PetscInt *);
PETSC_EXTERN PetscErrorCode VecHybridSetFirstTouch(Vec, PetscBool);
PETSC_EXTERN PetscErrorCode VecHybridGetFirstTouch(Vec, PetscBool *);
PETSC_EXTERN PetscErrorCode VecHybridSetStandard(PetscBool);
PETSC_EXTERN PetscErrorCode VecHybridGetStandard(PetscBool *);

/* ---- preconditioners: threaded triangular solves, CM-RCM ordering, threaded SOR, the coarsener (src/factor/, src/mat/matsor.c, src/coarsen/) ---- */

/*MC
   MATORDERINGCMRCM - "cmrcm" - cyclic multicoloring over a reverse Cuthill-McKee level structure: a
   `MatOrderingType` whose colors are independent sets taken level by level, so that the triangular
   solves of an ILU(0)/ICC(0) factor have as many levels as colors

   Options Database Keys:
+  -pc_factor_mat_ordering_type cmrcm     - for `PCILU`, `PCICC` (`-sub_pc_factor_mat_ordering_type` with `PCBJACOBI`)
-  -mat_ordering_cmrcm_colors <ncolors>   - number of colors (default 24)

   Level: intermediate

.seealso: `MatAIJHybridSetCMRCMColors()`, `MatGetOrdering()`, `MATAIJHYBRID`
M*/
#define MATORDERINGCMRCM "cmrcm"

/*MC
   MATCOARSENAIJHYBRID - "aijhybrid": the aggregates of `MATCOARSENMISK` (the same lists, in the same
   order, for the same greedy ordering and distance), computed with threads for a `MATSEQAIJHYBRID` graph

   Level: intermediate

   Options Database Keys:
+  -pc_gamg_mat_coarsen_type aijhybrid - in `PCGAMG` of PETSc 3.22 and later (after the PC's prefix)
.  -mat_coarsen_type aijhybrid - in `PCGAMG` of PETSc 3.18 to 3.21 (after the PC's prefix), or for a `MatCoarsen` of one's own
-  -mat_coarsen_misk_distance k - the distance, as `MATCOARSENMISK`

   Notes:
   On one rank with a `MATSEQAIJHYBRID` graph the MIS runs on the graph's arrays (the first MIS of a
   large graph with a greedy ordering, `PCGAMG`'s shuffled one, on several threads where the graph's
   pattern is symmetric, as `PCGAMG`'s graphs are: the roots decided in rounds, each vertex once its
   neighbours earlier in the ordering are, which gives the serial sweep's roots; `-info` reports the
   rounds), the aggregation matrices are maps, the graph of the next MIS (the pattern of MISK's `MatPtAP()`) and the lists are
   made with the graph's threads (`MatAIJHybridGetNumThreads()`), the same for any thread count. For
   any other graph the coarsener is `MATCOARSENMISK` itself. The distance, options and view are MISK's
   (`MatCoarsenMISKSetDistance()`). `PCGAMG` chooses its coarsener only from the options database, so
   the type is opt-in.

.seealso: `MATCOARSENMISK`, `MatCoarsenSetType()`, `MatCoarsenMISKSetDistance()`, `MATSEQAIJHYBRID`
M*/
#define MATCOARSENAIJHYBRID "aijhybrid"

/*MC
   MATSOLVERAIJHYBRID - "aijhybrid" - the package's ILU, ICC, LU and Cholesky factorizations of
   `MATSEQAIJHYBRID` matrices: PETSc's own (`MATSOLVERPETSC`) with threaded triangular solves for ILU/ICC

   Options Database Key:
.  -pc_factor_mat_solver_type aijhybrid - asks for them by name

   Level: intermediate

   Notes:
   They are registered for `MATSEQAIJHYBRID` only, under this name and under `MATSOLVERPETSC`; nothing
   of PETSc's factorizations of its own types changes when the package is loaded. A `MATSEQAIJHYBRID`
   matrix gets them by default (`MatGetFactor()` with no solver type prefers the handler registered
   for the exact matrix type), and so do the diagonal blocks (`PCBJACOBI`) and sub-matrices (`PCASM`) of
   `MATMPIAIJHYBRID` matrices, which are `MATSEQAIJHYBRID`. Naming `petsc` explicitly
   (`-pc_factor_mat_solver_type petsc`) gives PETSc's `MATSEQAIJ` factorization with its serial solves,
   since `MatSolverTypeGet()` then takes the first handler of that package whose type is a prefix
   of the matrix's (`seqaij`, registered first).

.seealso: `MatAIJHybridGetFactorInfo()`, `MatAIJHybridFactorSolve`, `MATSEQAIJHYBRID`, `MatGetFactor()`
M*/
#define MATSOLVERAIJHYBRID "aijhybrid"

/*E
   MatAIJHybridFactorSolve - how the triangular solves (and the numeric factorization) of an ILU/ICC factor of a `MATAIJHYBRID` matrix run with threads

   Values:
+  `MAT_AIJHYBRID_FACTOR_SOLVE_AUTO`     - measured choice: threaded unless PETSc's serial routine is measured faster beyond the noise (default)
.  `MAT_AIJHYBRID_FACTOR_SOLVE_THREADED` - always the level-scheduled threaded routine
-  `MAT_AIJHYBRID_FACTOR_SOLVE_SERIAL`   - always PETSc's serial routine

   Options Database Keys:
+  -mat_aijhybrid_factor_solve <auto,threaded,serial> - the triangular solves, read when the factor is made
-  -mat_aijhybrid_factor_numeric <auto,threaded,serial> - the numeric factorization, read at each one

   Level: intermediate

   Note:
   Both give the same bits; the choice changes only the time.

.seealso: `MatAIJHybridGetFactorInfo()`, `MATAIJHYBRID`
E*/
typedef enum {
  MAT_AIJHYBRID_FACTOR_SOLVE_AUTO,
  MAT_AIJHYBRID_FACTOR_SOLVE_THREADED,
  MAT_AIJHYBRID_FACTOR_SOLVE_SERIAL
} MatAIJHybridFactorSolve;
PETSC_EXTERN const char *const MatAIJHybridFactorSolves[];

/*E
   MatAIJHybridFactorBlocks - what the ILU/ICC factorizations of a `MATAIJHYBRID` matrix factor

   Values:
+  `MAT_AIJHYBRID_FACTOR_BLOCKS_NONE`   - the whole matrix (default)
-  `MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD` - the diagonal block of each thread's rows, as `PCBJACOBI` over as many ranks

   Options Database Key:
.  -mat_aijhybrid_factor_blocks <none,thread> - see `MatAIJHybridSetFactorBlocks()`

   Level: intermediate

.seealso: `MatAIJHybridSetFactorBlocks()`, `MatAIJHybridGetFactorInfo()`
E*/
typedef enum {
  MAT_AIJHYBRID_FACTOR_BLOCKS_NONE,
  MAT_AIJHYBRID_FACTOR_BLOCKS_THREAD
} MatAIJHybridFactorBlocks;
PETSC_EXTERN const char *const MatAIJHybridFactorBlocksTypes[];

/*E
   MatAIJHybridChoiceState - where a measured choice between threaded and serial stands (`MatAIJHybridChoiceInfo`)

   Values:
+  `MAT_AIJHYBRID_CHOICE_MEASURING`   - a trial is under way (the threaded variant in force between its timed uses)
.  `MAT_AIJHYBRID_CHOICE_THREADED`    - the last trial found the threaded variant faster
.  `MAT_AIJHYBRID_CHOICE_SERIAL`      - the last trial found PETSc's serial routine faster: it runs from then on
.  `MAT_AIJHYBRID_CHOICE_CANNOT_TELL` - the last trial could not tell (the difference was within the noise): the threaded variant, the default, stays; a later trial may decide
.  `MAT_AIJHYBRID_CHOICE_FIXED`       - no measurement: the option (`threaded` or `serial`) decides
-  `MAT_AIJHYBRID_CHOICE_NONE`        - no choice: only PETSc's serial routine runs (one thread, or a case the package does not thread)

   Level: intermediate

   Note:
   The rule (a sign test on interleaved pairs of timings with a 5% margin; the probability of choosing
   a variant that is not faster by the margin is at most 5%) is described in `docs/preconditioners.md`.

.seealso: `MatAIJHybridGetFactorInfo()`, `MatAIJHybridChoiceInfo`
E*/
typedef enum {
  MAT_AIJHYBRID_CHOICE_MEASURING,
  MAT_AIJHYBRID_CHOICE_THREADED,
  MAT_AIJHYBRID_CHOICE_SERIAL,
  MAT_AIJHYBRID_CHOICE_CANNOT_TELL,
  MAT_AIJHYBRID_CHOICE_FIXED,
  MAT_AIJHYBRID_CHOICE_NONE
} MatAIJHybridChoiceState;

/*S
   MatAIJHybridChoiceInfo - the record of a measured choice between threaded and serial (`MatAIJHybridFactorInfo`)

   Fields:
+  state           - `MatAIJHybridChoiceState`
.  trials          - trials completed
.  pairs           - timed pairs counted in all trials (their times: `MatAIJHybridGetFactorChoiceSamples()`)
.  wins_threaded   - pairs of the last trial in which the threaded variant was faster by more than the margin
.  wins_serial     - pairs of the last trial in which the serial one was
.  needed          - the wins the last trial needed to choose
.  uses            - uses so far (solves, or numeric factorizations)
.  decided_at      - the use that completed the last trial (-1: none yet)
.  median_threaded - median seconds of the threaded variant in the last trial's pairs
-  median_serial   - median seconds of the serial one

   Level: intermediate

.seealso: `MatAIJHybridGetFactorInfo()`, `MatAIJHybridChoiceState`
S*/
typedef struct {
  MatAIJHybridChoiceState state;
  PetscInt                trials, pairs, wins_threaded, wins_serial, needed, uses, decided_at;
  PetscLogDouble          median_threaded, median_serial;
} MatAIJHybridChoiceInfo;

/*S
   MatAIJHybridFactorInfo - how the numeric factorization and the triangular solves of a factor run (`MatAIJHybridGetFactorInfo()`)

   Fields:
+  threaded      - `PETSC_TRUE` if level-scheduled threaded solves are built for the factor (`PETSC_FALSE`: PETSc's serial solves only)
.  nthreads      - threads of the solves
.  levels_lower  - levels of the forward solve (ILU: with L; ICC: with U^T D)
.  levels_upper  - levels of the backward solve (with U)
.  inode         - the solves reproduce PETSc's inode variant (`MatSolve_SeqAIJ_Inode()`)
.  builds        - level schedules built for this factor
.  build_time    - seconds of the last build
.  in_use        - the threaded solves are in force (chosen by `-mat_aijhybrid_factor_solve`, or measured faster)
.  decided       - `PETSC_FALSE` while a trial of the measured choice of `MAT_AIJHYBRID_FACTOR_SOLVE_AUTO` runs
.  time_threaded - median seconds of a threaded `MatSolve()` in the last trial (0 without one)
.  time_serial   - median seconds of PETSc's serial `MatSolve()` in it
.  solve_choice  - the record of the measured choice of the solves
.  blocks        - thread blocks of the factor (`MatAIJHybridSetFactorBlocks()`): the factor is that of the
                   block-diagonal part of the matrix with this many blocks, each solved by its thread
                   without waiting for the others; 0: the factor of the whole matrix
.  numeric_threaded       - the last numeric factorization ran on the threads: each thread block by its thread, or (without blocks) level-scheduled with PETSc's bits
.  numeric_inode          - it reproduces PETSc's inode routine (`MatLUFactorNumeric_SeqAIJ_Inode()`)
.  numeric_levels         - levels of its schedule (0: none)
.  numeric_count          - numeric factorizations since the last symbolic one
.  numeric_threaded_count - how many of them ran threaded
.  numeric_plans          - plans (schedules) made for the numeric factorization of this factor
.  numeric_plan_time      - seconds of the last one
-  numeric_choice         - the record of the measured choice of the numeric factorization (`-mat_aijhybrid_factor_numeric auto`)

   Level: intermediate

.seealso: `MatAIJHybridGetFactorInfo()`, `MatAIJHybridFactorSolve`, `MATAIJHYBRID`
S*/
typedef struct {
  PetscBool              threaded;
  PetscInt               nthreads;
  PetscInt               levels_lower, levels_upper;
  PetscBool              inode;
  PetscInt               builds;
  PetscLogDouble         build_time;
  PetscBool              in_use, decided;
  PetscLogDouble         time_threaded, time_serial;
  MatAIJHybridChoiceInfo solve_choice;
  PetscInt               blocks;
  PetscBool              numeric_threaded, numeric_inode;
  PetscInt               numeric_levels, numeric_count, numeric_threaded_count, numeric_plans;
  PetscLogDouble         numeric_plan_time;
  MatAIJHybridChoiceInfo numeric_choice;
} MatAIJHybridFactorInfo;

PETSC_EXTERN PetscErrorCode MatAIJHybridGetFactorInfo(Mat, MatAIJHybridFactorInfo *);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetFactorChoiceSamples(Mat, PetscBool, PetscInt *, const PetscLogDouble *[], const PetscLogDouble *[]);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetCMRCMColors(PetscInt);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetCMRCMColors(PetscInt *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetSORSerial(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetSORSerial(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatAIJHybridSetFactorBlocks(Mat, MatAIJHybridFactorBlocks);
PETSC_EXTERN PetscErrorCode MatAIJHybridGetFactorBlocks(Mat, MatAIJHybridFactorBlocks *);

#endif
