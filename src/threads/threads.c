/*
   The cores of this node and the ranks sharing them: the default thread count when OMP_NUM_THREADS
   is unset, and the one-time warning when threads x ranks exceed the cores of the node.

   Cores of the node: sysconf(_SC_NPROCESSORS_ONLN), the processors online on the node (not the
   affinity mask of this process, which a launcher's binding may shrink to one core).
   Ranks on the node: counted once per communicator with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
   at the first setup of a matrix on it (collective there, on the main thread, outside any parallel
   region; the count is kept as an attribute of the communicator so that every rank of it decides
   alike whether to count), and never fewer than the launcher reports in its environment
   (OMPI_COMM_WORLD_LOCAL_SIZE for OpenMPI, MPI_LOCALNRANKS for MPICH): a sequential matrix's
   communicator holds one rank, but its node may hold more. The largest count seen is kept.
*/
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "threads.h"
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static PetscMPIInt AIJHybridNodeKeyval    = MPI_KEYVAL_INVALID;
static PetscInt    AIJHybridRanksCounted  = 0; /* 0: not counted yet */
static PetscBool   AIJHybridOversubWarned = PETSC_FALSE;

int AIJHybridMPIThreadLevel = MPI_THREAD_SINGLE;

/* reads the thread level MPI was initialized with (PETSc asks for MPI_THREAD_FUNNELED and never
   checks; an application may have initialized MPI itself); called when the package is initialized */
PetscErrorCode AIJHybridQueryThreadLevel(void)
{
  int initialized;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Initialized(&initialized));
  if (initialized) PetscCallMPI(MPI_Query_thread(&AIJHybridMPIThreadLevel));
  if (AIJHybridMPIThreadLevel < MPI_THREAD_FUNNELED) PetscCall(PetscInfo(NULL, "MPI was initialized below MPI_THREAD_FUNNELED (level %d): aijhybrid keeps every MPI call outside its parallel regions\n", AIJHybridMPIThreadLevel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the online CPUs of the node, read once (sysconf reads /sys: microseconds, too slow per product) */
PetscInt AIJHybridNodeCores(void)
{
  static PetscInt cores = 0; /* 0: not read yet */

  if (!cores) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cores  = n > 0 ? (PetscInt)n : 1;
  }
  return cores;
}

/* NUMA domains of the node: the nodeN entries of /sys/devices/system/node, 1 where that cannot be read */
PetscInt AIJHybridNumaDomains(void)
{
  static PetscInt domains = 0; /* 0: not looked at yet */
  DIR            *dir;

  if (domains) return domains;
  domains = 0;
  if ((dir = opendir("/sys/devices/system/node"))) {
    struct dirent *e;
    while ((e = readdir(dir)))
      if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') domains++;
    closedir(dir);
  }
  if (!domains) domains = 1;
  return domains;
}

/* CPUs this process may run on: what libgomp gives a process by default */
static PetscInt AvailableCPUs(void)
{
  cpu_set_t set;

  if (sched_getaffinity(0, sizeof(set), &set) == 0) return (PetscInt)CPU_COUNT(&set);
  return AIJHybridNodeCores();
}

static PetscInt EnvRanksOnNode(void)
{
  const char *names[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};

  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    const char *v = getenv(names[k]);
    if (v && atoi(v) > 0) return (PetscInt)atoi(v);
  }
  return 1;
}

/* ranks sharing this node, as far as counted (the environment's figure before any count) */
PetscInt AIJHybridRanksOnNode(void)
{
  return PetscMax(AIJHybridRanksCounted, EnvRanksOnNode());
}

/*
  The default thread count: what OpenMP gives the process, except when OMP_NUM_THREADS is unset and
  OpenMP gives every CPU of the process (libgomp's default, which oversubscribes a node running
  several ranks): then the cores of the node divided by the ranks on it, at least 1, at most what
  OpenMP gives. A count set by the application (omp_set_num_threads(), OMP_THREAD_LIMIT) is kept, up
  to AIJHYBRID_MAX_THREADS (a larger one is clamped, said once on stderr). Main thread only.
*/
PetscInt AIJHybridDefaultNumThreads(void)
{
  static PetscInt  available = -1; /* -1: not looked at yet; 0: OMP_NUM_THREADS set */
  static PetscBool clamped   = PETSC_FALSE;
  PetscInt         omp       = (PetscInt)omp_get_max_threads();

  if (available < 0) available = getenv("OMP_NUM_THREADS") ? 0 : AvailableCPUs(); /* once, on the main thread */
  if (omp > AIJHYBRID_MAX_THREADS) {                                              /* bounded as the options are (OMP_NUM_THREADS=99999999 would make that many threads) */
    if (!clamped)
      (void)PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "petsc-aijhybrid: OpenMP gives %" PetscInt_FMT " threads (OMP_NUM_THREADS=%s): the products and vector operations use %d, the most -mat_aijhybrid_num_threads accepts\n", omp,
                         getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "unset", AIJHYBRID_MAX_THREADS);
    clamped = PETSC_TRUE;
    omp     = AIJHYBRID_MAX_THREADS;
  }
  if (!available || omp != available) return omp;
  return PetscMax(1, PetscMin(omp, AIJHybridNodeCores() / AIJHybridRanksOnNode()));
}

/* collective on comm (main thread, outside parallel regions): count the ranks of comm on this node once */
PetscErrorCode AIJHybridCountRanksOnNode(MPI_Comm comm)
{
  void       *val;
  PetscMPIInt found, n;
  MPI_Comm    node;

  PetscFunctionBegin;
  if (AIJHybridNodeKeyval == MPI_KEYVAL_INVALID) PetscCallMPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &AIJHybridNodeKeyval, NULL));
  PetscCallMPI(MPI_Comm_get_attr(comm, AIJHybridNodeKeyval, &val, &found));
  if (found) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &n));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCallMPI(MPI_Comm_set_attr(comm, AIJHybridNodeKeyval, (void *)(intptr_t)n));
  AIJHybridRanksCounted = PetscMax(AIJHybridRanksCounted, (PetscInt)n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridCheckOversubscription - called at setup with the thread count in force: the first
  time threads x ranks on the node exceed its cores, say so once per process through PetscInfo()
  on obj (-mat_view ::ascii_info repeats it for every matrix concerned)
*/
PetscErrorCode AIJHybridCheckOversubscription(PetscObject obj, PetscInt nthreads)
{
  PetscInt ranks, cores;

  PetscFunctionBegin;
  if (AIJHybridOversubWarned) PetscFunctionReturn(PETSC_SUCCESS); /* once per process */
  ranks = AIJHybridRanksOnNode();
  cores = AIJHybridNodeCores();
  if (nthreads * ranks > cores) {
    AIJHybridOversubWarned = PETSC_TRUE;
    PetscCall(PetscInfo(obj,
                        "aijhybrid warning: %" PetscInt_FMT " threads x %" PetscInt_FMT " ranks on this node = %" PetscInt_FMT " > %" PetscInt_FMT
                        " cores (oversubscribed: products will be slow); set OMP_NUM_THREADS (or the objects' num_threads options) to at most %" PetscInt_FMT "\n",
                        nthreads, ranks, nthreads * ranks, cores, PetscMax(1, cores / ranks)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* forget the count and the keyval (PetscFinalize) */
PetscErrorCode AIJHybridThreadsFinalize(void)
{
  PetscFunctionBegin;
  if (AIJHybridNodeKeyval != MPI_KEYVAL_INVALID) PetscCallMPI(MPI_Comm_free_keyval(&AIJHybridNodeKeyval));
  AIJHybridRanksCounted  = 0;
  AIJHybridOversubWarned = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
