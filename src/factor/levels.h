/*
   Pure level schedules of triangular solves (no MPI, no PETSc objects, no global state; the
   schedule's arrays are allocated with PetscMalloc and freed by AIJHybridLevelsDestroy()).

   A solve visits n rows; row i may start only when the rows it depends on are done. The
   dependencies of row i are ind[start[i] .. end[i]) (any order, duplicates allowed); in a forward
   solve they are all < i, in a backward solve all > i (the serial order visits rows 0..n-1,
   respectively n-1..0). The level of a row is 0 if it depends on nothing, otherwise one more
   than the highest level of its dependencies: rows of one level depend only on earlier levels,
   so each level's rows may be computed in parallel, the levels one after the other.

   Chains: a row that depends on the row just before it in the serial order (i-1 forward, i+1
   backward; a grid line in the natural ordering, a mesh column in a column-by-column ordering)
   must follow it anyway. Runs of such rows, up to maxchain rows long, are kept together as one
   unit: one level, one thread, computed in the serial order. Without them every row of a 3D
   natural-ordering grid line would sit in its own level, and each level's rows would lie one grid
   line apart in memory; with them a level is a set of whole lines, each read contiguously, and
   there are fewer levels (2n-1 instead of 3n-2 for an n^3 grid).

   The schedule lists the rows level by level, ascending inside a level for a forward solve,
   descending for a backward one (so each chain's rows come one after the other, in the serial
   order), and splits each level into nthreads contiguous parts of about equal cost (cost of a
   row: its dependency count plus AIJHYBRID_LEVELS_ROW_COST), never inside a chain. A part's rows
   must be computed in their listed order; the rows of different parts of a level are independent.
*/
#ifndef AIJHYBRID_FACTOR_LEVELS_H
#define AIJHYBRID_FACTOR_LEVELS_H

#include "../compat.h"
#include <sched.h>

#define AIJHYBRID_LEVELS_ROW_COST 2

typedef struct {
  PetscInt  n;        /* rows */
  PetscInt  nlevels;  /* levels (0 when n = 0) */
  PetscInt  nthreads; /* parts per level */
  PetscInt *order;    /* n: the rows, level by level (ascending inside a level forward, descending backward) */
  PetscInt *lptr;     /* nlevels+1: level l is order[lptr[l] .. lptr[l+1]) */
  PetscInt *tb;       /* nlevels*(nthreads+1): part t of level l is order[tb[l*(nthreads+1)+t] .. tb[l*(nthreads+1)+t+1]) */
  PetscInt  maxwidth; /* rows of the widest level */
  PetscInt  nchains;  /* units scheduled (chains of rows, a row being a chain of one) */
  PetscInt *need;     /* nlevels*nthreads*nthreads: before part t of level l, part u must have done
                         need[(l*nthreads+t)*nthreads+u] levels (0: nothing of u is needed) */
  PetscBool inplace;  /* the rows at positions [a, b) of every part are the rows a .. b-1 (a thread
                         block's schedule, AIJHybridLevelsBlocks()): order is the identity forward
                         and reverses each part backward, and a kernel may walk the rows directly */
} AIJHybridLevels;

/* the order a kernel of src/kernels/trsv.h walks: NULL for an in-place schedule (the rows
   themselves), else lv->order */
static inline const PetscInt *AIJHybridLevelsOrder(const AIJHybridLevels *lv)
{
  return lv->inplace ? NULL : lv->order;
}

/*
   Point-to-point synchronisation of a level-scheduled solve (instead of a barrier after each
   level): part t of level l runs on thread t; progress[t * AIJHYBRID_LEVELS_STRIDE] counts the
   levels thread t has done. Before a level a thread waits until every other thread has done the
   levels its rows depend on (need); after it, it publishes its progress. A thread whose rows do
   not depend on the others' latest level runs on: threads drift apart by as many levels as the
   dependencies allow, and a thread that is delayed (preempted on a loaded machine) delays only
   the rows that need its results. Release/acquire atomics order the values written before a
   thread's progress before their reads by the threads that waited for it.
*/
#define AIJHYBRID_LEVELS_STRIDE 16 /* progress counters one cache line apart */

static inline void AIJHybridLevelsWait(const AIJHybridLevels *lv, PetscInt l, PetscInt t, PetscInt *progress)
{
  const PetscInt  T    = lv->nthreads;
  const PetscInt *need = lv->need + (l * T + t) * T;

  for (PetscInt u = 0; u < T; u++) {
    PetscInt spins = 0;

    if (u == t || !need[u]) continue;
    while (__atomic_load_n(&progress[u * AIJHYBRID_LEVELS_STRIDE], __ATOMIC_ACQUIRE) < need[u]) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if (++spins > 4096) { /* the other thread is not running: give its core a chance */
        sched_yield();
        spins = 0;
      }
    }
  }
}

static inline void AIJHybridLevelsDone(PetscInt l, PetscInt t, PetscInt *progress)
{
  __atomic_store_n(&progress[t * AIJHYBRID_LEVELS_STRIDE], l + 1, __ATOMIC_RELEASE);
}

#define AIJHYBRID_LEVELS_MAXCHAIN 1024 /* the longest chain kept as one unit */

PETSC_INTERN PetscErrorCode AIJHybridLevelsBuild(PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool, PetscInt, PetscInt, AIJHybridLevels *);
PETSC_INTERN PetscErrorCode AIJHybridLevelsBlocks(PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool, PetscInt, const PetscInt[], AIJHybridLevels *);
PETSC_INTERN PetscErrorCode AIJHybridLevelsDestroy(AIJHybridLevels *);
PETSC_INTERN PetscErrorCode AIJHybridLevelsCopy(const AIJHybridLevels *, AIJHybridLevels *);
PETSC_INTERN PetscErrorCode AIJHybridLevelsValid(const AIJHybridLevels *, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool, PetscBool, PetscBool *);

/*
   CSC (transposed) pattern of the strict triangle of a factor, for the column-oriented solves:
   column c lists the rows k with an entry (k, c), as (row, position of the value); ascending rows
   when ascending is true, descending otherwise. The entries of row k are pos[start[k] .. end[k])
   with columns ind[...]; the value of an entry is found at the same position in the value array.
*/
typedef struct {
  PetscInt  n;
  PetscInt *ptr; /* n+1 */
  PetscInt *row; /* ptr[n] */
  PetscInt *pos; /* ptr[n] */
} AIJHybridCSC;

PETSC_INTERN PetscErrorCode AIJHybridCSCBuild(PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscBool, AIJHybridCSC *);
PETSC_INTERN PetscErrorCode AIJHybridCSCDestroy(AIJHybridCSC *);

#endif
