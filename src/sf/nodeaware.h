/*
   Node-aware halo exchange: runs the plan of nodeplan.h with MPI.

   Data that the ranks of node N need from the ranks of node M travel as ONE message from one rank of
   M (the sender of the pair, rank N mod ppn_M of M) to one rank of N (the receiver, rank M mod ppn_N
   of N), gathered on M and redistributed on N by on-node messages; data from the same node goes
   directly. Node pairs spread over the ranks of each node. Built once (collectively, three rounds of
   sparse messages); each exchange then uses persistent point-to-point requests and preallocated
   buffers, no collective. Every call here is MPI: call it on the main thread only.

   Nodes: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) when node_size <= 0, otherwise emulated nodes of
   node_size consecutive ranks (the last one may be smaller).
*/
#ifndef AIJHYBRID_SF_NODEAWARE_H
#define AIJHYBRID_SF_NODEAWARE_H

#include "nodeplan.h"
#include <petscaijhybrid.h>

typedef struct _AIJHybridNodeAware {
  MPI_Comm          comm; /* PETSc inner communicator (PetscCommDuplicate) */
  PetscMPIInt       rank;
  PetscInt          node_size; /* as requested: <= 0 for shared-memory nodes */
  AIJHybridNodeTopo topo;
  AIJHybridNodePlan plan;
  PetscScalar      *fbuf, *rbuf;   /* receive buffers of the forward and reverse phases */
  PetscScalar      *sbuf[2][3];    /* packed sends per direction and phase */
  MPI_Request      *rreq[2][3], *sreq[2][3];
  PetscMPIInt       nrreq[2][3], nsreq[2][3];
  PetscBool         active[2]; /* a forward / reverse exchange has begun and not ended */
} AIJHybridNodeAware;

PETSC_INTERN PetscErrorCode AIJHybridNodeAwareCreate(MPI_Comm, PetscLayout, PetscInt, const PetscInt[], PetscInt, AIJHybridNodeAware **);
PETSC_INTERN PetscErrorCode AIJHybridNodeAwareDestroy(AIJHybridNodeAware **);
PETSC_INTERN PetscErrorCode AIJHybridNodeAwareForwardBegin(AIJHybridNodeAware *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode AIJHybridNodeAwareForwardEnd(AIJHybridNodeAware *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode AIJHybridNodeAwareReverseBegin(AIJHybridNodeAware *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode AIJHybridNodeAwareReverseEnd(AIJHybridNodeAware *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode AIJHybridNodeLabels(MPI_Comm, PetscInt, PetscInt[]);

/* statistics of a node-aware plan and their ASCII lines (src/sf/exchange.c), collective */
PETSC_INTERN PetscErrorCode AIJHybridExchangeStatsCompute(MPI_Comm, AIJHybridNodeAware *, PetscBool, PetscAIJHybridExchangeStats *);
PETSC_INTERN PetscErrorCode AIJHybridExchangeStatsView(PetscViewer, const char *, const PetscAIJHybridExchangeStats *, PetscBool);

#endif
