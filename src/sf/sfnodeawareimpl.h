/*
   Private header of the node-aware PetscSF type: its data (sf->data) and what its two files share.

   sfnodeaware.c  the type: PETSc's PetscSF operations, the choice between the node-aware path and
                  the basic SF of the same graph, options, view, the public Set/Get/Stats functions
   sfnodecomm.c   the collective setup (nodes, the three rounds of the plan builder of nodeplan.c,
                  the compiled schedules, the leaf lists) and the node-aware operations themselves:
                  links (buffers and persistent requests per unit size and direction), packing,
                  begin, progress and end
*/
#ifndef AIJHYBRID_SF_SFNODEAWAREIMPL_H
#define AIJHYBRID_SF_SFNODEAWAREIMPL_H

#include "../compat.h"
#include <petscaijhybrid.h>
#include <petsc/private/sfimpl.h>
#include "nodeplan.h"

/* the element type of a unit; PAIR (MPI_2INT, MPIU_2INT of 32-bit indices) only moves */
typedef enum {
  NA_BASE_REAL,
  NA_BASE_COMPLEX,
  NA_BASE_PETSCINT,
  NA_BASE_INT,
  NA_BASE_PAIR
} NABase;

typedef enum {
  NA_OP_REPLACE,
  NA_OP_SUM,
  NA_OP_MAX,
  NA_OP_MIN
} NAOp;

typedef struct {
  NABase   base;
  PetscInt bs;        /* elements of the base type per unit */
  size_t   unitbytes; /* bs * size of the base type */
} NAUnit;

#define NA_BCAST  0
#define NA_REDUCE 1
#define NA_FETCH  2 /* fetch-and-op: always on the basic SF */

/* buffers and persistent requests of one operation in flight; reused by later operations of the same direction and unit size */
typedef struct _n_NALink *NALink;
struct _n_NALink {
  PetscInt     dir;
  size_t       unitbytes;
  MPI_Datatype mpiunit;            /* unitbytes contiguous bytes */
  char        *sbuf, *rbuf, *cbuf; /* send and receive buffers of the schedule; reduce: the per-ghost contributions */
  MPI_Request *rreq[3], *sreq[3];
  PetscMPIInt  nrreq[3], nsreq[3];
  /* the operation in flight */
  MPI_Datatype unit;
  NAUnit       u;
  NAOp         op;
  const void  *rootdata, *leafdata;
  PetscBool    started[3]; /* sends of step p started */
  NALink       next;
};

/* an operation in flight on the basic SF */
typedef struct {
  MPI_Datatype unit;
  const void  *rootdata, *leafdata;
  PetscInt     dir; /* NA_BCAST, NA_REDUCE or NA_FETCH */
} NAFallback;

typedef struct {
  PetscInt  node_size; /* requested: 0 for the nodes MPI_COMM_TYPE_SHARED finds, k > 0 emulated nodes of k ranks */
  PetscBool always;    /* the node-aware path even where the plan combines nothing (one node, or one rank per node) */
  PetscBool built;     /* the setup below is for the current graph */
  PetscInt  built_node_size;
  PetscSF   basic;     /* the same graph, type basic: every operation that is not node-aware */
  PetscBool dupleaves; /* some rank has several leaves on one root of another rank (same on all ranks) */

  PetscInt  nnodes, node, node_ranks;
  PetscBool plain; /* one node, or one rank per node: the plan's messages are basic's (set by the build) */

  /* leaves on roots of this rank, in leaf order: the copies done at begin, as basic does */
  PetscInt nlocal, *lroot, *lleaf;
  /* leaves on roots of other ranks: nghost distinct roots (the plan's ghosts) */
  PetscInt              nghost;
  PetscInt              nfwd, *fleaf, *forig;        /* bcast: leaf location and origin, by root rank then leaf (basic's order) */
  PetscInt              nrev1, *r1leaf, *r1ghost;    /* reduce: the first leaf of each ghost, copied to its contribution */
  PetscInt              nrev2, *r2leaf, *r2ghost;    /* reduce: further leaves of a ghost, combined in leaf order */
  AIJHybridNodeSchedule sched[2];                    /* NA_BCAST, NA_REDUCE */
  AIJHybridNodeCounts   cnt_basic, cnt_fwd, cnt_rev; /* this rank's messages in one operation of basic, forward, reverse */

  NALink      avail, inuse; /* inuse: in the order the operations began */
  NAFallback *fb;           /* operations in flight on the basic SF */
  PetscInt    nfb, mfb;
  PetscInt    info_said;                /* fallback reasons already reported through PetscInfo() (bit mask) */
  PetscInt64  ops_nodeaware, ops_basic; /* operations begun each way */
} PetscSF_NodeAware;

PETSC_INTERN PetscErrorCode PetscSFNodeAwareBuild_Private(PetscSF);
PETSC_INTERN PetscErrorCode PetscSFNodeAwareFree_Private(PetscSF);
PETSC_INTERN PetscErrorCode PetscSFNodeAwareBegin_Private(PetscSF, PetscInt, MPI_Datatype, NAUnit, NAOp, const void *, const void *);
PETSC_INTERN PetscErrorCode PetscSFNodeAwareEnd_Private(PetscSF, NALink);
PETSC_INTERN PetscErrorCode PetscSFNodeAwareNodeLabels_Private(MPI_Comm, PetscInt, PetscInt[]);

PETSC_INTERN PetscLogEvent PETSCSF_NodeAwareSetUp;

#endif
