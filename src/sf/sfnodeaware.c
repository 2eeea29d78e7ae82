/*
   The node-aware PetscSF type (PETSCSFNODEAWARE), part 1: the type as PETSc sees it.

   Like PETSc's sfneighbor.c, which reuses sfbasic.c and overrides setup and communication, this type
   overrides only what it does differently: setup, broadcast and reduction. PETSc's packing machinery
   (sfbasic.h, sfpack.h) is not installed, so every other operation runs on a PETSCSFBASIC SF of the
   same graph that the type keeps (sfnodecomm.c builds it): fetch-and-op, leaf ranks, and the
   broadcasts and reductions this type does not do node-aware (Decode() below says which). Each
   begun operation is recorded, node-aware or not, so that its end goes the same way and misuse
   (an end without a begin, two operations on the same data, a reset with an operation in flight)
   is a clear error.
*/
#include "sfnodeaware.h"
#include "sfnodeawareimpl.h"
#include "../options/options.h"
#include <petscviewer.h>

static PetscBool NodeAwarePackageInitialized = PETSC_FALSE;

/* reasons for the basic path, reported once per SF through PetscInfo() */
#define NA_WHY_DEVICE 1
#define NA_WHY_UNIT   2
#define NA_WHY_OP     4
#define NA_WHY_DUPSUM 8
#define NA_WHY_FETCH  16
#define NA_WHY_PLAIN  32

/* ---------------------------------------------------------------------------------------------- */
/* units and operations */

/* the named type under a unit made of MPI_Type_dup() and MPI_Type_contiguous(), and how many of it */
static PetscErrorCode UnwrapUnit(MPI_Datatype unit, MPI_Datatype *named, PetscInt *count, PetscBool *ok)
{
  MPI_Datatype t    = unit;
  PetscInt     mult = 1;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  while (1) {
    int          ni, na, nd, combiner, ints[1];
    MPI_Datatype inner;

    PetscCallMPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    if (combiner == MPI_COMBINER_NAMED) {
      *named = t;
      *count = mult;
      *ok    = PETSC_TRUE;
      break;
    }
    if ((combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS) || ni > 1 || na || nd != 1) {
      if (t != unit) PetscCallMPI(MPI_Type_free(&t));
      break;
    }
    PetscCallMPI(MPI_Type_get_contents(t, ni, 0, 1, ints, NULL, &inner));
    if (combiner == MPI_COMBINER_CONTIGUOUS) mult *= ints[0];
    if (t != unit) PetscCallMPI(MPI_Type_free(&t));
    t = inner;
  }
  /* a named type returned by MPI_Type_get_contents() is predefined: not freed */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether (unit, op) of direction dir is node-aware on sf, and as what; why: the reason if not */
static PetscErrorCode Decode(PetscSF sf, PetscInt dir, MPI_Datatype unit, MPI_Op op, NAUnit *u, NAOp *nop, PetscBool *ok, PetscInt *why)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;
  MPI_Datatype       named;
  PetscInt           count;
  PetscBool          known;
  size_t             esize = 0;

  PetscFunctionBegin;
  *ok  = PETSC_FALSE;
  *why = NA_WHY_UNIT;
  PetscCall(UnwrapUnit(unit, &named, &count, &known));
  if (!known || count < 1) PetscFunctionReturn(PETSC_SUCCESS);
  if (named == MPIU_REAL) {
    u->base = NA_BASE_REAL;
    esize   = sizeof(PetscReal);
#if defined(PETSC_USE_COMPLEX)
  } else if (named == MPIU_SCALAR) {
    u->base = NA_BASE_COMPLEX;
    esize   = sizeof(PetscComplex);
#endif
  } else if (named == MPIU_INT) {
    u->base = NA_BASE_PETSCINT;
    esize   = sizeof(PetscInt);
  } else if (named == MPI_INT) {
    u->base = NA_BASE_INT;
    esize   = sizeof(int);
  } else if (named == MPI_2INT) {
    u->base = NA_BASE_PAIR;
    esize   = 2 * sizeof(int);
  } else PetscFunctionReturn(PETSC_SUCCESS);
  u->bs        = count;
  u->unitbytes = (size_t)count * esize;

  *why = NA_WHY_OP;
  if (op == MPI_REPLACE) *nop = NA_OP_REPLACE;
  else if (op == MPI_SUM || op == MPIU_SUM) *nop = NA_OP_SUM;
  else if (op == MPI_MAX || op == MPIU_MAX) *nop = NA_OP_MAX;
  else if (op == MPI_MIN || op == MPIU_MIN) *nop = NA_OP_MIN;
  else PetscFunctionReturn(PETSC_SUCCESS);
  if (u->base == NA_BASE_PAIR && *nop != NA_OP_REPLACE) PetscFunctionReturn(PETSC_SUCCESS);
  if (u->base == NA_BASE_COMPLEX && (*nop == NA_OP_MAX || *nop == NA_OP_MIN)) PetscFunctionReturn(PETSC_SUCCESS);

  /* basic adds a root's contributions leaf by leaf; combining a rank's leaves first would change floating-point sums */
  *why = NA_WHY_DUPSUM;
  if (dir == NA_REDUCE && *nop == NA_OP_SUM && (u->base == NA_BASE_REAL || u->base == NA_BASE_COMPLEX) && na->dupleaves) PetscFunctionReturn(PETSC_SUCCESS);
  /* one node, or one rank per node: the plan's messages are basic's (rank to rank), so basic sends them
     (its packing is the faster), unless -sf_nodeaware_always */
  *why = NA_WHY_PLAIN;
  if (na->plain && !na->always) PetscFunctionReturn(PETSC_SUCCESS);
  *why = 0;
  *ok  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SayWhy(PetscSF sf, PetscInt why)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;
  const char        *what;

  PetscFunctionBegin;
  if (na->info_said & why) PetscFunctionReturn(PETSC_SUCCESS);
  na->info_said |= why;
  switch (why) {
  case NA_WHY_DEVICE:
    what = "data in device memory";
    break;
  case NA_WHY_UNIT:
    what = "a unit other than MPIU_SCALAR, MPIU_REAL, MPIU_INT, MPI_INT, contiguous blocks of them, or MPI_2INT";
    break;
  case NA_WHY_OP:
    what = "an operation other than MPI_REPLACE, MPI_SUM, MPI_MAX, MPI_MIN on this unit";
    break;
  case NA_WHY_DUPSUM:
    what = "a floating-point sum where a rank has several leaves on one root of another rank (basic's order of additions kept)";
    break;
  case NA_WHY_PLAIN:
    what = "every operation on one node, or with one rank per node (the plan's messages are basic's; -sf_nodeaware_always runs the plan)";
    break;
  default:
    what = "fetch-and-op";
  }
  PetscCall(PetscInfo(sf, "%s: %s goes through the basic SF of the same graph\n", PETSCSFNODEAWARE, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* operations in flight */

/* collective: build (again) when the graph or the node size changed since the last build */
static PetscErrorCode EnsureBuilt(PetscSF sf)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  if (na->built && na->built_node_size == na->node_size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFNodeAwareBuild_Private(sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const DirNames[] = {"broadcast", "reduction", "fetch-and-op"};

/* an operation with this data is already in flight: PETSc cannot tell their ends apart */
static PetscErrorCode CheckNotInFlight(PetscSF sf, MPI_Datatype unit, const void *rootdata, const void *leafdata)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  if (!rootdata && !leafdata) PetscFunctionReturn(PETSC_SUCCESS); /* this rank has nothing to tell them apart by; as basic */
  for (NALink l = na->inuse; l; l = l->next)
    PetscCheck(!(l->unit == unit && l->rootdata == rootdata && l->leafdata == leafdata), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
               "A %s on this %s PetscSF with the same unit, rootdata (%p) and leafdata (%p) is in flight: end it before beginning another one", DirNames[l->dir], PETSCSFNODEAWARE, rootdata, leafdata);
  for (PetscInt i = 0; i < na->nfb; i++)
    PetscCheck(!(na->fb[i].unit == unit && na->fb[i].rootdata == rootdata && na->fb[i].leafdata == leafdata), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
               "A %s on this %s PetscSF with the same unit, rootdata (%p) and leafdata (%p) is in flight: end it before beginning another one", DirNames[na->fb[i].dir], PETSCSFNODEAWARE, rootdata, leafdata);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FallbackPush(PetscSF sf, PetscInt dir, MPI_Datatype unit, const void *rootdata, const void *leafdata)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  na->ops_basic++;
  if (na->nfb == na->mfb) {
    NAFallback *fb;
    na->mfb = 2 * na->mfb + 4;
    PetscCall(PetscMalloc1(na->mfb, &fb));
    if (na->nfb) PetscCall(PetscArraycpy(fb, na->fb, na->nfb));
    PetscCall(PetscFree(na->fb));
    na->fb = fb;
  }
  na->fb[na->nfb].dir      = dir;
  na->fb[na->nfb].unit     = unit;
  na->fb[na->nfb].rootdata = rootdata;
  na->fb[na->nfb].leafdata = leafdata;
  na->nfb++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what every end does: finds the operation begun with these arguments and ends it if node-aware;
   one on the basic SF is taken off the list and *basic set: the caller ends it there */
static PetscErrorCode EndNodeAware(PetscSF sf, PetscInt dir, MPI_Datatype unit, const void *rootdata, const void *leafdata, PetscBool *basic)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  *basic = PETSC_FALSE;
  for (NALink l = na->inuse; l; l = l->next) { /* oldest first: with no data to tell them apart, ends come in the order of the begins */
    if (l->dir == dir && l->unit == unit && l->rootdata == rootdata && l->leafdata == leafdata) {
      PetscCall(PetscSFNodeAwareEnd_Private(sf, l));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  for (PetscInt i = 0; i < na->nfb; i++) {
    if (na->fb[i].dir == dir && na->fb[i].unit == unit && na->fb[i].rootdata == rootdata && na->fb[i].leafdata == leafdata) {
      for (PetscInt j = i + 1; j < na->nfb; j++) na->fb[j - 1] = na->fb[j];
      na->nfb--;
      *basic = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "End of a %s on a %s PetscSF that was not begun with this unit, rootdata (%p) and leafdata (%p): call the matching Begin first, with the same arguments", DirNames[dir], PETSCSFNODEAWARE, rootdata,
          leafdata);
}

/* ---------------------------------------------------------------------------------------------- */
/* PetscSF operations */

static PetscErrorCode PetscSFSetUp_NodeAware(PetscSF sf)
{
  PetscFunctionBegin;
  PetscCall(PetscSFNodeAwareBuild_Private(sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFReset_NodeAware(PetscSF sf)
{
  PetscFunctionBegin;
  PetscCall(PetscSFNodeAwareFree_Private(sf)); /* refuses while an operation is in flight */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFDestroy_NodeAware(PetscSF sf)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  PetscCall(PetscSFReset_NodeAware(sf));
  PetscCall(PetscFree(na->fb));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareSetNodeSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareSetAlways_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareGetAlways_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareGetNodeSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareGetStats_C", NULL));
  PetscCall(PetscFree(sf->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the -sf_nodeaware_* options of sf (its prefix): both read first, then the values applied */
static PetscErrorCode PetscSFNodeAwareOptions(PetscSF sf, AIJHybridOptionItems PetscOptionsObject)
{
  PetscSF_NodeAware *na        = (PetscSF_NodeAware *)sf->data;
  PetscInt           node_size = na->node_size;
  PetscBool          always    = na->always, fsize, falways;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "PetscSF node-aware options");
  PetscCall(AIJHybridOptionsRangeInt("-sf_nodeaware_node_size", "Emulate nodes of k consecutive ranks (0: the nodes MPI_COMM_TYPE_SHARED finds)", "PetscSFNodeAwareSetNodeSize", node_size, &node_size, &fsize, 0, PETSC_MAX_INT));
  PetscCall(AIJHybridOptionsBool("-sf_nodeaware_always", "Run the node-aware plan even on one node or with one rank per node, where its messages are basic's and basic sends them by default", "PetscSFNodeAwareSetAlways", always, &always, &falways));
  PetscOptionsHeadEnd();
  if (fsize) PetscCall(PetscSFNodeAwareSetNodeSize(sf, node_size));
  if (falways) PetscCall(PetscSFNodeAwareSetAlways(sf, always));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFSetFromOptions_NodeAware(PetscSF sf, AIJHybridOptionItems PetscOptionsObject)
{
  PetscFunctionBegin;
  PetscCall(PetscSFNodeAwareOptions(sf, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFDuplicate_NodeAware(PetscSF sf, PetscSFDuplicateOption opt, PetscSF newsf)
{
  PetscFunctionBegin;
  ((PetscSF_NodeAware *)newsf->data)->node_size = ((PetscSF_NodeAware *)sf->data)->node_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what every begin does first: the in-flight check, a build if none is in flight, and the node-aware
   begin when (unit, op) of dir has one (fetch-and-op never); *basic: the caller begins it on the
   basic SF (then FallbackPush()) */
static PetscErrorCode BeginNodeAware(PetscSF sf, PetscInt dir, MPI_Datatype unit, PetscMemType rootmtype, const void *rootdata, PetscMemType leafmtype, const void *leafdata, MPI_Op op, PetscBool *basic)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;
  NAUnit             u;
  NAOp               nop;
  PetscBool          ok  = PETSC_FALSE;
  PetscInt           why = dir == NA_FETCH ? NA_WHY_FETCH : NA_WHY_DEVICE;

  PetscFunctionBegin;
  PetscCall(CheckNotInFlight(sf, unit, rootdata, leafdata));
  if (!na->inuse && !na->nfb) PetscCall(EnsureBuilt(sf));
  if (dir != NA_FETCH && PetscMemTypeHost(rootmtype) && PetscMemTypeHost(leafmtype)) PetscCall(Decode(sf, dir, unit, op, &u, &nop, &ok, &why));
  *basic = (PetscBool)!ok;
  if (ok) {
    PetscCall(PetscSFNodeAwareBegin_Private(sf, dir, unit, u, nop, rootdata, leafdata));
    na->ops_nodeaware++;
  } else PetscCall(SayWhy(sf, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFBcastBegin_NodeAware(PetscSF sf, MPI_Datatype unit, PetscMemType rootmtype, const void *rootdata, PetscMemType leafmtype, void *leafdata, MPI_Op op)
{
  PetscSF_NodeAware *na    = (PetscSF_NodeAware *)sf->data;
  PetscBool          basic = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BeginNodeAware(sf, NA_BCAST, unit, rootmtype, rootdata, leafmtype, leafdata, op, &basic));
  if (basic) {
    PetscCall(PetscSFBcastWithMemTypeBegin(na->basic, unit, rootmtype, rootdata, leafmtype, leafdata, op));
    PetscCall(FallbackPush(sf, NA_BCAST, unit, rootdata, leafdata));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFBcastEnd_NodeAware(PetscSF sf, MPI_Datatype unit, const void *rootdata, void *leafdata, MPI_Op op)
{
  PetscSF_NodeAware *na    = (PetscSF_NodeAware *)sf->data;
  PetscBool          basic = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(EndNodeAware(sf, NA_BCAST, unit, rootdata, leafdata, &basic));
  if (basic) PetscCall(PetscSFBcastEnd(na->basic, unit, rootdata, leafdata, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFReduceBegin_NodeAware(PetscSF sf, MPI_Datatype unit, PetscMemType leafmtype, const void *leafdata, PetscMemType rootmtype, void *rootdata, MPI_Op op)
{
  PetscSF_NodeAware *na    = (PetscSF_NodeAware *)sf->data;
  PetscBool          basic = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BeginNodeAware(sf, NA_REDUCE, unit, rootmtype, rootdata, leafmtype, leafdata, op, &basic));
  if (basic) {
    PetscCall(PetscSFReduceWithMemTypeBegin(na->basic, unit, leafmtype, leafdata, rootmtype, rootdata, op));
    PetscCall(FallbackPush(sf, NA_REDUCE, unit, rootdata, leafdata));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFReduceEnd_NodeAware(PetscSF sf, MPI_Datatype unit, const void *leafdata, void *rootdata, MPI_Op op)
{
  PetscSF_NodeAware *na    = (PetscSF_NodeAware *)sf->data;
  PetscBool          basic = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(EndNodeAware(sf, NA_REDUCE, unit, rootdata, leafdata, &basic));
  if (basic) PetscCall(PetscSFReduceEnd(na->basic, unit, leafdata, rootdata, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFFetchAndOpBegin_NodeAware(PetscSF sf, MPI_Datatype unit, PetscMemType rootmtype, void *rootdata, PetscMemType leafmtype, const void *leafdata, void *leafupdate, MPI_Op op)
{
  PetscSF_NodeAware *na    = (PetscSF_NodeAware *)sf->data;
  PetscBool          basic = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BeginNodeAware(sf, NA_FETCH, unit, rootmtype, rootdata, leafmtype, leafdata, op, &basic)); /* always on basic */
  PetscCall(PetscSFFetchAndOpWithMemTypeBegin(na->basic, unit, rootmtype, rootdata, leafmtype, leafdata, leafmtype, leafupdate, op));
  PetscCall(FallbackPush(sf, NA_FETCH, unit, rootdata, leafdata));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFFetchAndOpEnd_NodeAware(PetscSF sf, MPI_Datatype unit, void *rootdata, const void *leafdata, void *leafupdate, MPI_Op op)
{
  PetscSF_NodeAware *na    = (PetscSF_NodeAware *)sf->data;
  PetscBool          basic = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(EndNodeAware(sf, NA_FETCH, unit, rootdata, leafdata, &basic)); /* always on basic */
  PetscCall(PetscSFFetchAndOpEnd(na->basic, unit, rootdata, leafdata, leafupdate, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFGetLeafRanks_NodeAware(PetscSF sf, AIJHybridSFRankCount *niranks, const PetscMPIInt **iranks, const PetscInt **ioffset, const PetscInt **irootloc)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  PetscCheck(na->basic, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The %s PetscSF is not set up for its graph: its type was set after PetscSFSetUp(); call a collective operation (or PetscSFReset() and PetscSFSetGraph()) first", PETSCSFNODEAWARE);
  PetscCall(PetscSFGetLeafRanks(na->basic, niranks, iranks, ioffset, irootloc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this rank's and all ranks' counts (collective) */
static void CountsOut(const AIJHybridNodeCounts *c, PetscSFNodeAwareCounts *o)
{
  o->on_msgs       = c->msgs[0];
  o->inter_msgs    = c->msgs[1];
  o->on_entries    = c->entries[0];
  o->inter_entries = c->entries[1];
  o->on_bytes      = o->on_entries * (PetscInt64)sizeof(PetscScalar);
  o->inter_bytes   = o->inter_entries * (PetscInt64)sizeof(PetscScalar);
}

static PetscErrorCode PetscSFNodeAwareGetStats_NodeAware(PetscSF sf, PetscSFNodeAwareStats *st)
{
  PetscSF_NodeAware      *na = (PetscSF_NodeAware *)sf->data;
  PetscSFNodeAwareCounts *mine[3], *tot[3];
  PetscInt64              loc[12], glob[12];

  PetscFunctionBegin;
  PetscCheck(sf->graphset, PetscObjectComm((PetscObject)sf), PETSC_ERR_ARG_WRONGSTATE, "Set the graph of the PetscSF first");
  PetscCall(PetscSFSetUp(sf));
  if (!na->inuse && !na->nfb) PetscCall(EnsureBuilt(sf)); /* with operations in flight, the plan is the current one */
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->nnodes        = na->nnodes;
  st->node          = na->node;
  st->node_ranks    = na->node_ranks;
  st->node_aware    = PETSC_TRUE;
  st->ops_nodeaware = na->ops_nodeaware;
  st->ops_basic     = na->ops_basic;
  CountsOut(&na->cnt_basic, &st->basic);
  CountsOut(&na->cnt_fwd, &st->nodeaware);
  CountsOut(&na->cnt_rev, &st->nodeaware_reverse);
  mine[0] = &st->basic;
  mine[1] = &st->nodeaware;
  mine[2] = &st->nodeaware_reverse;
  tot[0]  = &st->basic_total;
  tot[1]  = &st->nodeaware_total;
  tot[2]  = &st->nodeaware_reverse_total;
  for (PetscInt i = 0; i < 3; i++) {
    loc[4 * i + 0] = mine[i]->inter_msgs;
    loc[4 * i + 1] = mine[i]->on_msgs;
    loc[4 * i + 2] = mine[i]->inter_entries;
    loc[4 * i + 3] = mine[i]->on_entries;
  }
  PetscCallMPI(MPI_Allreduce(loc, glob, 12, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)sf)));
  for (PetscInt i = 0; i < 3; i++) {
    tot[i]->inter_msgs    = (PetscInt)glob[4 * i + 0];
    tot[i]->on_msgs       = (PetscInt)glob[4 * i + 1];
    tot[i]->inter_entries = glob[4 * i + 2];
    tot[i]->on_entries    = glob[4 * i + 3];
    tot[i]->inter_bytes   = tot[i]->inter_entries * (PetscInt64)sizeof(PetscScalar);
    tot[i]->on_bytes      = tot[i]->on_entries * (PetscInt64)sizeof(PetscScalar);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFView_NodeAware(PetscSF sf, PetscViewer viewer)
{
  PetscSF_NodeAware    *na = (PetscSF_NodeAware *)sf->data;
  PetscBool             iascii;
  PetscViewerFormat     format;
  PetscSFNodeAwareStats st;
  char                  nodes[64];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format == PETSC_VIEWER_ASCII_MATLAB) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  MultiSF sort=%s\n", sf->rankorder ? "rank-order" : "unordered")); /* as basic prints */
  if (na->node_size > 0) PetscCall(PetscSNPrintf(nodes, sizeof(nodes), "emulated nodes of %" PetscInt_FMT " ranks", na->node_size));
  else PetscCall(PetscSNPrintf(nodes, sizeof(nodes), "nodes from MPI_COMM_TYPE_SHARED"));
  if (!sf->graphset || !na->built || na->inuse || na->nfb) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  NodeAware: %s; not set up for a graph\n", nodes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscSFNodeAwareGetStats_NodeAware(sf, &st));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  NodeAware: %" PetscInt_FMT " nodes (%s); messages and bytes (one PetscScalar per leaf) of one operation, all ranks:\n", st.nnodes, nodes));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "  NodeAware:   broadcast  %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " B); basic %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT
                                   " on-node (%" PetscInt64_FMT " B)\n",
                                   st.nodeaware_total.inter_msgs, st.nodeaware_total.inter_bytes, st.nodeaware_total.on_msgs, st.nodeaware_total.on_bytes, st.basic_total.inter_msgs, st.basic_total.inter_bytes, st.basic_total.on_msgs,
                                   st.basic_total.on_bytes));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  NodeAware:   reduction  %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT " B)\n", st.nodeaware_reverse_total.inter_msgs,
                                   st.nodeaware_reverse_total.inter_bytes, st.nodeaware_reverse_total.on_msgs, st.nodeaware_reverse_total.on_bytes));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sf), &rank));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer,
                                                 "  NodeAware: [%d] node %" PetscInt_FMT " (%" PetscInt_FMT " ranks) sends: broadcast %" PetscInt_FMT " inter-node (%" PetscInt64_FMT " B) + %" PetscInt_FMT " on-node (%" PetscInt64_FMT
                                                 " B), reduction %" PetscInt_FMT " + %" PetscInt_FMT ", basic %" PetscInt_FMT " + %" PetscInt_FMT "\n",
                                                 rank, st.node, st.node_ranks, st.nodeaware.inter_msgs, st.nodeaware.inter_bytes, st.nodeaware.on_msgs, st.nodeaware.on_bytes, st.nodeaware_reverse.inter_msgs, st.nodeaware_reverse.on_msgs,
                                                 st.basic.inter_msgs, st.basic.on_msgs));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* Set/Get */

static PetscErrorCode PetscSFNodeAwareSetNodeSize_NodeAware(PetscSF sf, PetscInt k)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  if (k == PETSC_DEFAULT || k == PETSC_DECIDE) k = 0;
  PetscCheck(k >= 0, PetscObjectComm((PetscObject)sf), PETSC_ERR_ARG_OUTOFRANGE, "Invalid node size %" PetscInt_FMT " for -sf_nodeaware_node_size: must be >= 1, or 0 for the nodes MPI_COMM_TYPE_SHARED finds", k);
  PetscCheck(k == na->node_size || (!na->inuse && !na->nfb), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Cannot change the node size of a %s PetscSF with an operation in flight", PETSCSFNODEAWARE);
  na->node_size = k; /* rebuilt by the next collective operation */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFNodeAwareSetAlways_NodeAware(PetscSF sf, PetscBool flg)
{
  PetscSF_NodeAware *na = (PetscSF_NodeAware *)sf->data;

  PetscFunctionBegin;
  na->always = flg; /* read by each operation's begin: no rebuild */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFNodeAwareGetAlways_NodeAware(PetscSF sf, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((PetscSF_NodeAware *)sf->data)->always;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFNodeAwareGetNodeSize_NodeAware(PetscSF sf, PetscInt *k)
{
  PetscFunctionBegin;
  *k = ((PetscSF_NodeAware *)sf->data)->node_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PetscSFNodeAwareSetNodeSize - Sets the nodes a `PETSCSFNODEAWARE` `PetscSF` works with

  Logically Collective

  Input Parameters:
+ sf - the star forest (any other type ignores the call)
- k  - k > 0 emulates nodes of k consecutive ranks (the last node may be smaller); 0 or `PETSC_DEFAULT`
       (default) takes the nodes `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` finds

  Options Database Key:
. -sf_nodeaware_node_size <k> - node size

  Level: intermediate

  Note:
  Emulated nodes test and measure the node-aware path on one machine. The plan is built again by
  the next communication (collectively).

.seealso: `PETSCSFNODEAWARE`, `PetscSFNodeAwareGetNodeSize()`, `PetscSFNodeAwareGetStats()`
@*/
PetscErrorCode PetscSFNodeAwareSetNodeSize(PetscSF sf, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sf, PETSCSF_CLASSID, 1);
  PetscValidLogicalCollectiveInt(sf, k, 2);
  PetscTryMethod(sf, "PetscSFNodeAwareSetNodeSize_C", (PetscSF, PetscInt), (sf, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PetscSFNodeAwareGetNodeSize - Gets the node size set for a `PETSCSFNODEAWARE` `PetscSF`

  Not Collective

  Input Parameter:
. sf - the star forest, of type `PETSCSFNODEAWARE`

  Output Parameter:
. k - ranks per emulated node, or 0 for the nodes `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` finds

  Level: intermediate

.seealso: `PETSCSFNODEAWARE`, `PetscSFNodeAwareSetNodeSize()`
@*/
PetscErrorCode PetscSFNodeAwareGetNodeSize(PetscSF sf, PetscInt *k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sf, PETSCSF_CLASSID, 1);
  PetscUseMethod(sf, "PetscSFNodeAwareGetNodeSize_C", (PetscSF, PetscInt *), (sf, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PetscSFNodeAwareSetAlways - Makes a `PETSCSFNODEAWARE` `PetscSF` run its node-aware plan even where the plan combines nothing

  Logically Collective

  Input Parameters:
+ sf  - the star forest, of type `PETSCSFNODEAWARE`
- flg - `PETSC_TRUE`: the node-aware plan on one node and with one rank per node too; `PETSC_FALSE`
        (default): there basic sends the messages

  Options Database Key:
. -sf_nodeaware_always <bool> - run the node-aware plan always

  Level: developer

  Note:
  On one node, or with one rank per node, the plan's messages are basic's (rank to rank), and basic,
  whose packing is faster, sends them: the type then costs what basic costs. Tests set it to check
  the node-aware machinery on few ranks.

.seealso: `PETSCSFNODEAWARE`, `PetscSFNodeAwareGetAlways()`, `PetscSFNodeAwareSetNodeSize()`
@*/
PetscErrorCode PetscSFNodeAwareSetAlways(PetscSF sf, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sf, PETSCSF_CLASSID, 1);
  PetscValidLogicalCollectiveBool(sf, flg, 2);
  PetscTryMethod(sf, "PetscSFNodeAwareSetAlways_C", (PetscSF, PetscBool), (sf, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PetscSFNodeAwareGetAlways - Tells whether a `PETSCSFNODEAWARE` `PetscSF` runs its node-aware plan even where the plan combines nothing

  Not Collective

  Input Parameter:
. sf - the star forest, of type `PETSCSFNODEAWARE`

  Output Parameter:
. flg - the setting

  Level: developer

.seealso: `PETSCSFNODEAWARE`, `PetscSFNodeAwareSetAlways()`
@*/
PetscErrorCode PetscSFNodeAwareGetAlways(PetscSF sf, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sf, PETSCSF_CLASSID, 1);
  PetscUseMethod(sf, "PetscSFNodeAwareGetAlways_C", (PetscSF, PetscBool *), (sf, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PetscSFNodeAwareGetStats - Gets the nodes and the messages of a `PETSCSFNODEAWARE` `PetscSF`, and those of a basic one of the same graph

  Collective

  Input Parameter:
. sf - the star forest, of type `PETSCSFNODEAWARE`, with its graph set

  Output Parameter:
. stats - nodes, and per rank and in total the inter-node and on-node messages, units and bytes of one
          broadcast and one reduction of this type and of one broadcast of `PETSCSFBASIC`

  Level: intermediate

  Note:
  Messages count what this rank sends to other ranks; bytes are for one `PetscScalar` per unit.

.seealso: `PETSCSFNODEAWARE`, `PetscSFNodeAwareStats`, `PetscSFView()`, `MatAIJHybridGetExchangeStats()`
@*/
PetscErrorCode PetscSFNodeAwareGetStats(PetscSF sf, PetscSFNodeAwareStats *stats)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(sf, PETSCSF_CLASSID, 1);
  PetscUseMethod(sf, "PetscSFNodeAwareGetStats_C", (PetscSF, PetscSFNodeAwareStats *), (sf, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFCreate_NodeAware(PetscSF sf)
{
  PetscSF_NodeAware *na;

  PetscFunctionBegin;
  sf->ops->SetUp           = PetscSFSetUp_NodeAware;
  sf->ops->Reset           = PetscSFReset_NodeAware;
  sf->ops->Destroy         = PetscSFDestroy_NodeAware;
  sf->ops->SetFromOptions  = PetscSFSetFromOptions_NodeAware;
  sf->ops->View            = PetscSFView_NodeAware;
  sf->ops->Duplicate       = PetscSFDuplicate_NodeAware;
  sf->ops->BcastBegin      = PetscSFBcastBegin_NodeAware;
  sf->ops->BcastEnd        = PetscSFBcastEnd_NodeAware;
  sf->ops->ReduceBegin     = PetscSFReduceBegin_NodeAware;
  sf->ops->ReduceEnd       = PetscSFReduceEnd_NodeAware;
  sf->ops->FetchAndOpBegin = PetscSFFetchAndOpBegin_NodeAware;
  sf->ops->FetchAndOpEnd   = PetscSFFetchAndOpEnd_NodeAware;
  sf->ops->GetLeafRanks    = PetscSFGetLeafRanks_NodeAware;
  /* GetRootRanks, GetGraph, CreateLocalSF, CreateEmbeddedRootSF/LeafSF: PETSc's generic versions, on this type's operations */

  PetscCall(PetscNew(&na));
  sf->data = (void *)na;
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareSetNodeSize_C", PetscSFNodeAwareSetNodeSize_NodeAware));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareGetNodeSize_C", PetscSFNodeAwareGetNodeSize_NodeAware));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareSetAlways_C", PetscSFNodeAwareSetAlways_NodeAware));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareGetAlways_C", PetscSFNodeAwareGetAlways_NodeAware));
  PetscCall(PetscObjectComposeFunction((PetscObject)sf, "PetscSFNodeAwareGetStats_C", PetscSFNodeAwareGetStats_NodeAware));
  { /* the options, read here too for an SF given this type after PetscSFSetFromOptions() (the matrix's
       halo SF); listed by -help where PetscSFSetFromOptions() reads them */
    AIJHybridOptionItemsStruct items;

    PetscCall(AIJHybridOptionsQuiet((PetscObject)sf, &items));
    PetscCall(PetscSFNodeAwareOptions(sf, &items));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscSFNodeAwareFinalizePackage(void)
{
  PetscFunctionBegin;
  NodeAwarePackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  PetscSFNodeAwareInitializePackage - registers PETSCSFNODEAWARE and its log event (idempotent);
  called by the package's initialization (src/register.c)
*/
PetscErrorCode PetscSFNodeAwareInitializePackage(void)
{
  PetscFunctionBegin;
  if (NodeAwarePackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  NodeAwarePackageInitialized = PETSC_TRUE;
  PetscCall(PetscSFInitializePackage());
  PetscCall(PetscSFRegister(PETSCSFNODEAWARE, PetscSFCreate_NodeAware));
  PetscCall(PetscLogEventRegister("SFNodeAwSetUp", PETSCSF_CLASSID, &PETSCSF_NodeAwareSetUp));
  PetscCall(PetscRegisterFinalize(PetscSFNodeAwareFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}
