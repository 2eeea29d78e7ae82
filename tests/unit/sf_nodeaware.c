/*
   The PetscSF type "nodeaware" against "basic" on random graphs (run at 1 to 8 ranks by
   tests/test_sf.py, under -malloc_debug -malloc_dump).

   For every seeded graph (roots and leaves in any layout, leaves with gaps (ilocal), several leaves
   of one root, leaves on the owning rank, ranks with no roots or no leaves, and graphs without
   repeated remote roots) and every node size (0: shared memory, 1..size emulated), the same
   operation on two SFs of the same graph, one basic and one nodeaware, must give bitwise the same
   root and leaf arrays (gaps included; a reduction with MPI_REPLACE into a root with several
   leaves must give one of their values, since basic's choice depends on the order messages arrive):
     - PetscSFBcast and PetscSFReduce with MPI_REPLACE, MPI_SUM, MPI_MAX, MPI_MIN on MPIU_SCALAR,
       MPIU_REAL, MPIU_INT, MPI_INT, blocks of 3 MPIU_SCALAR (as VecScatter with a block size), MPIU_2INT
       (replace), and units/operations the type leaves to basic (MPI_SIGNED_CHAR, MPI_PROD);
     - in place (rootdata == leafdata on an SF whose leaves are the roots of its own rank, as PETSc allows);
     - gather and scatter (multi-SF), PetscSFComputeDegree, PetscSFFetchAndOp, PetscSFGetRootRanks /
       GetLeafRanks, PetscSFCreateEmbeddedRootSF / LeafSF (graph and a broadcast on it), the local SF;
     - two operations in flight, ended in the reverse order of their begins.
   The operations counted by PetscSFNodeAwareGetStats() must be node-aware exactly where the type
   says it is (so that equal results do not come from a silent fall back to basic), and the message
   statistics must be consistent (inter-node messages at most one per ordered node pair).
   Misuse gives an error: an end without a begin, a second begin on the same data, an end of the
   other direction, PetscSFReset() and PetscSFDestroy() with an operation in flight, a bad node size.
   Prints "sf_nodeaware: N checks passed" on rank 0; exits non-zero on a failure.
*/
#include <petscaijhybrid.h>
#include "compat.h" /* PETSC_SUCCESS on 3.18, the rank-count type of PetscSFGetRootRanks() */
#include "unitcheck.h"

static MPI_Comm    comm;
static PetscMPIInt rank, size;

#define ALLCHECK(cond, ...) \
  do { \
    PetscMPIInt _l = (PetscMPIInt) !!(cond), _g; \
    PetscCallMPI(MPI_Allreduce(&_l, &_g, 1, MPI_INT, MPI_LAND, comm)); \
    CHECK(_g, __VA_ARGS__); \
  } while (0)

typedef struct {
  PetscInt     nroots, nleaves, leafspace;
  PetscInt    *ilocal; /* NULL: contiguous */
  PetscSFNode *iremote;
} Graph;

/* a random graph, the same for a seed at any rank count: every rank draws its part from the seed and its rank */
static PetscErrorCode MakeGraph(PetscInt seed, PetscBool distinct_remote, Graph *g)
{
  PetscInt *nr, anyroots = 0;

  PetscFunctionBegin;
  rng_state = (unsigned long long)(1000003 * seed + 17);
  PetscCall(PetscMalloc1(size, &nr));
  for (PetscMPIInt p = 0; p < size; p++) {
    nr[p] = Uniform() < 0.2 ? 0 : 1 + RandInt(12);
    anyroots += nr[p];
  }
  rng_state  = (unsigned long long)(1000003 * seed + 7919 * (rank + 1));
  g->nroots  = nr[rank];
  g->nleaves = (Uniform() < 0.15 || !anyroots) ? 0 : RandInt(24);
  PetscCall(PetscMalloc1(g->nleaves, &g->iremote));
  for (PetscInt i = 0; i < g->nleaves; i++) {
    PetscMPIInt p;
    do p = (Uniform() < 0.3 && nr[rank]) ? rank : (PetscMPIInt)RandInt(size);
    while (!nr[p]);
    g->iremote[i].rank  = p;
    g->iremote[i].index = RandInt(nr[p]);
  }
  if (distinct_remote) { /* drop leaves that repeat a root of another rank */
    PetscInt n = 0;
    for (PetscInt i = 0; i < g->nleaves; i++) {
      PetscBool rep = PETSC_FALSE;
      for (PetscInt j = 0; j < n && g->iremote[i].rank != rank; j++) rep = (PetscBool)(rep || (g->iremote[j].rank == g->iremote[i].rank && g->iremote[j].index == g->iremote[i].index));
      if (!rep) g->iremote[n++] = g->iremote[i];
    }
    g->nleaves = n;
  }
  g->ilocal    = NULL;
  g->leafspace = g->nleaves;
  if (Uniform() < 0.6) { /* leaves with gaps, in any order */
    PetscInt *perm;
    g->leafspace = 2 * g->nleaves + 3;
    PetscCall(PetscMalloc1(g->leafspace, &perm));
    for (PetscInt i = 0; i < g->leafspace; i++) perm[i] = i;
    for (PetscInt i = g->leafspace - 1; i > 0; i--) {
      PetscInt j = RandInt(i + 1), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    PetscCall(PetscMalloc1(g->nleaves, &g->ilocal));
    for (PetscInt i = 0; i < g->nleaves; i++) g->ilocal[i] = perm[i];
    PetscCall(PetscFree(perm));
  }
  PetscCall(PetscFree(nr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeGraph(Graph *g)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(g->ilocal));
  PetscCall(PetscFree(g->iremote));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeSF(const Graph *g, PetscSFType type, PetscInt node_size, PetscSF *sf)
{
  PetscFunctionBegin;
  PetscCall(PetscSFCreate(comm, sf));
  PetscCall(PetscSFSetType(*sf, type));
  if (node_size >= 0) PetscCall(PetscSFNodeAwareSetNodeSize(*sf, node_size));
  if (node_size >= 0) PetscCall(PetscSFNodeAwareSetAlways(*sf, PETSC_TRUE)); /* the node-aware plan at every node size */
  PetscCall(PetscSFSetGraph(*sf, g->nroots, g->nleaves, g->ilocal, PETSC_COPY_VALUES, g->iremote, PETSC_COPY_VALUES));
  PetscCall(PetscSFSetUp(*sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the units tested */
typedef enum {
  U_SCALAR,
  U_REAL,
  U_PINT,
  U_INT,
  U_BLOCK3,
  U_2INT,
  U_CHAR,
  U_N
} UnitKind;
static const char  *UnitNames[] = {"MPIU_SCALAR", "MPIU_REAL", "MPIU_INT", "MPI_INT", "3 x MPIU_SCALAR", "MPIU_2INT", "MPI_SIGNED_CHAR"};
static MPI_Datatype Block3;

static MPI_Datatype UnitType(UnitKind k)
{
  switch (k) {
  case U_SCALAR:
    return MPIU_SCALAR;
  case U_REAL:
    return MPIU_REAL;
  case U_PINT:
    return MPIU_INT;
  case U_INT:
    return MPI_INT;
  case U_BLOCK3:
    return Block3;
  case U_2INT:
    return MPIU_2INT;
  default:
    return MPI_SIGNED_CHAR;
  }
}
static size_t UnitBytes(UnitKind k)
{
  switch (k) {
  case U_SCALAR:
    return sizeof(PetscScalar);
  case U_REAL:
    return sizeof(PetscReal);
  case U_PINT:
    return sizeof(PetscInt);
  case U_INT:
    return sizeof(int);
  case U_BLOCK3:
    return 3 * sizeof(PetscScalar);
  case U_2INT:
    return 2 * sizeof(PetscInt);
  default:
    return 1;
  }
}
static PetscBool Floating(UnitKind k)
{
  return (PetscBool)(k == U_SCALAR || k == U_REAL || k == U_BLOCK3);
}
static PetscBool IsComplex(UnitKind k)
{
  return (PetscBool)(PetscDefined(USE_COMPLEX) && (k == U_SCALAR || k == U_BLOCK3));
}

/* fill n units of kind k with values of awkward magnitudes (floats) or small integers */
static void Fill(UnitKind k, PetscInt n, void *a)
{
  if (k == U_SCALAR || k == U_BLOCK3) {
    PetscScalar *x = (PetscScalar *)a;
    for (PetscInt i = 0; i < n * (k == U_BLOCK3 ? 3 : 1); i++) {
      x[i] = (Uniform() - 0.5) * PetscPowReal(10.0, (PetscReal)RandInt(17) - 8);
#if defined(PETSC_USE_COMPLEX)
      x[i] += PETSC_i * (Uniform() - 0.5);
#endif
    }
  } else if (k == U_REAL) {
    PetscReal *x = (PetscReal *)a;
    for (PetscInt i = 0; i < n; i++) x[i] = (Uniform() - 0.5) * PetscPowReal(10.0, (PetscReal)RandInt(17) - 8);
  } else if (k == U_PINT || k == U_2INT) {
    PetscInt *x = (PetscInt *)a;
    for (PetscInt i = 0; i < n * (k == U_2INT ? 2 : 1); i++) x[i] = RandInt(2001) - 1000;
  } else if (k == U_INT) {
    int *x = (int *)a;
    for (PetscInt i = 0; i < n; i++) x[i] = (int)RandInt(2001) - 1000;
  } else {
    signed char *x = (signed char *)a;
    for (PetscInt i = 0; i < n; i++) x[i] = (signed char)(RandInt(200) - 100);
  }
}

static PetscErrorCode OpsCount(PetscSF sf, PetscInt64 *nodeaware, PetscInt64 *basic)
{
  PetscSFNodeAwareStats st;

  PetscFunctionBegin;
  PetscCall(PetscSFNodeAwareGetStats(sf, &st));
  *nodeaware = st.ops_nodeaware;
  *basic     = st.ops_basic;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a whole broadcast and a whole reduction (begin, then end) */
static PetscErrorCode Bcast(PetscSF sf, MPI_Datatype unit, const void *rootdata, void *leafdata, MPI_Op op)
{
  PetscFunctionBegin;
  PetscCall(PetscSFBcastBegin(sf, unit, rootdata, leafdata, op));
  PetscCall(PetscSFBcastEnd(sf, unit, rootdata, leafdata, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Reduce(PetscSF sf, MPI_Datatype unit, const void *leafdata, void *rootdata, MPI_Op op)
{
  PetscFunctionBegin;
  PetscCall(PetscSFReduceBegin(sf, unit, leafdata, rootdata, op));
  PetscCall(PetscSFReduceEnd(sf, unit, leafdata, rootdata, op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one operation (dir 0 bcast, 1 reduce) on both SFs from the same input; same bytes after, and node-aware where it should be */
static PetscErrorCode CompareOp(PetscSF sfb, PetscSF sfn, const Graph *g, PetscBool dups, UnitKind k, MPI_Op op, PetscInt dir, const char *desc)
{
  const size_t ub = UnitBytes(k);
  char        *r0, *l0, *rb, *lb, *rn, *ln;
  PetscInt64   before = 0, after = 0, bb = 0, ba = 0;
  PetscBool    expect;
  const char  *opname = op == MPI_REPLACE ? "replace" : op == MPI_SUM ? "sum" : op == MPI_MAX ? "max" : op == MPI_MIN ? "min" : "prod";

  PetscFunctionBegin;
  PetscCall(PetscMalloc6(g->nroots * ub, &r0, g->leafspace * ub, &l0, g->nroots * ub, &rb, g->leafspace * ub, &lb, g->nroots * ub, &rn, g->leafspace * ub, &ln));
  Fill(k, g->nroots, r0);
  Fill(k, g->leafspace, l0);
  PetscCall(PetscMemcpy(rb, r0, g->nroots * ub));
  PetscCall(PetscMemcpy(rn, r0, g->nroots * ub));
  PetscCall(PetscMemcpy(lb, l0, g->leafspace * ub));
  PetscCall(PetscMemcpy(ln, l0, g->leafspace * ub));
  PetscCall(OpsCount(sfn, &before, &bb));
  if (dir == 0) {
    PetscCall(Bcast(sfb, UnitType(k), rb, lb, op));
    PetscCall(Bcast(sfn, UnitType(k), rn, ln, op));
  } else {
    PetscCall(Reduce(sfb, UnitType(k), lb, rb, op));
    PetscCall(Reduce(sfn, UnitType(k), ln, rn, op));
  }
  PetscCall(OpsCount(sfn, &after, &ba));
  expect = (PetscBool)(k != U_CHAR && op != MPI_PROD && !(dir == 1 && op == MPI_SUM && Floating(k) && dups));
  if (dir == 1 && op == MPI_REPLACE) {
    /* a root with several leaves gets one of their values: which one is not defined (basic receives
       straight into the roots, in the order the messages arrive); it must be one of them */
    const PetscInt *deg;
    PetscInt        nm = 0, off = 0, bad = 0;
    char           *gl;
    PetscCall(PetscSFComputeDegreeBegin(sfb, &deg));
    PetscCall(PetscSFComputeDegreeEnd(sfb, &deg));
    for (PetscInt i = 0; i < g->nroots; i++) nm += deg[i];
    PetscCall(PetscMalloc1(nm * ub + 1, &gl));
    PetscCall(PetscSFGatherBegin(sfb, UnitType(k), l0, gl));
    PetscCall(PetscSFGatherEnd(sfb, UnitType(k), l0, gl));
    for (PetscInt i = 0; i < g->nroots; off += deg[i], i++) {
      PetscBool found = PETSC_FALSE;
      if (deg[i] <= 1) {
        if (memcmp(rb + i * ub, rn + i * ub, ub)) bad++;
        continue;
      }
      for (PetscInt j = 0; j < deg[i]; j++) found = (PetscBool)(found || !memcmp(rn + i * ub, gl + (off + j) * ub, ub));
      if (!found) bad++;
    }
    PetscCall(PetscFree(gl));
    ALLCHECK(!bad && !memcmp(lb, ln, g->leafspace * ub), "%s: reduce replace on %s: %" PetscInt_FMT " roots differ from basic or hold none of their leaves' values", desc, UnitNames[k], bad);
  } else ALLCHECK(!memcmp(rb, rn, g->nroots * ub) && !memcmp(lb, ln, g->leafspace * ub), "%s: %s %s on %s differs from basic", desc, dir ? "reduce" : "bcast", opname, UnitNames[k]);
  ALLCHECK(after - before == (expect ? 1 : 0) && ba - bb == (expect ? 0 : 1), "%s: %s %s on %s ran %s, expected %s", desc, dir ? "reduce" : "bcast", opname, UnitNames[k], after > before ? "node-aware" : "on basic",
           expect ? "node-aware" : "on basic");
  PetscCall(PetscFree6(r0, l0, rb, lb, rn, ln));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompareArraysInt(PetscInt n1, const PetscInt *a, PetscInt n2, const PetscInt *b, PetscBool *same)
{
  PetscFunctionBegin;
  *same = (PetscBool)(n1 == n2 && (!n1 || !memcmp(a, b, n1 * sizeof(PetscInt))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lists of PetscSFGetRootRanks() (x: their remote offsets) or PetscSFGetLeafRanks() (x NULL) of two SFs: ranks, offsets, entries */
static PetscErrorCode CompareRanks(AIJHybridSFRankCount nb, const PetscMPIInt *rkb, const PetscInt *ob, const PetscInt *mb, const PetscInt *xb, AIJHybridSFRankCount nn, const PetscMPIInt *rkn, const PetscInt *on, const PetscInt *mn,
                                   const PetscInt *xn, PetscBool *same)
{
  PetscBool s2;

  PetscFunctionBegin;
  *same = (PetscBool)(nb == nn && (!nb || !memcmp(rkb, rkn, nb * sizeof(PetscMPIInt))));
  if (*same) {
    PetscCall(CompareArraysInt(nb + 1, ob, nn + 1, on, &s2));
    *same = (PetscBool)(*same && s2);
    PetscCall(CompareArraysInt(ob[nb], mb, on[nn], mn, &s2));
    *same = (PetscBool)(*same && s2);
    if (xb) {
      PetscCall(CompareArraysInt(ob[nb], xb, on[nn], xn, &s2));
      *same = (PetscBool)(*same && s2);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the other operations: every one through PETSc's interface on both SFs */
static PetscErrorCode CompareOthers(PetscSF sfb, PetscSF sfn, const Graph *g, const char *desc)
{
  PetscFunctionBegin;
  { /* degree, gather, scatter */
    const PetscInt *db, *dn;
    PetscInt        nm = 0, *lv, *mb, *mn, *lsb, *lsn;
    PetscBool       same;
    PetscCall(PetscSFComputeDegreeBegin(sfb, &db));
    PetscCall(PetscSFComputeDegreeEnd(sfb, &db));
    PetscCall(PetscSFComputeDegreeBegin(sfn, &dn));
    PetscCall(PetscSFComputeDegreeEnd(sfn, &dn));
    PetscCall(CompareArraysInt(g->nroots, db, g->nroots, dn, &same));
    ALLCHECK(same, "%s: degrees differ", desc);
    for (PetscInt i = 0; i < g->nroots; i++) nm += db[i];
    PetscCall(PetscMalloc5(g->leafspace, &lv, nm, &mb, nm, &mn, g->leafspace, &lsb, g->leafspace, &lsn));
    for (PetscInt i = 0; i < g->leafspace; i++) lv[i] = 1000 * rank + i;
    for (PetscInt i = 0; i < nm; i++) mb[i] = mn[i] = -1;
    PetscCall(PetscSFGatherBegin(sfb, MPIU_INT, lv, mb));
    PetscCall(PetscSFGatherEnd(sfb, MPIU_INT, lv, mb));
    PetscCall(PetscSFGatherBegin(sfn, MPIU_INT, lv, mn));
    PetscCall(PetscSFGatherEnd(sfn, MPIU_INT, lv, mn));
    PetscCall(CompareArraysInt(nm, mb, nm, mn, &same));
    ALLCHECK(same, "%s: gathers differ", desc);
    for (PetscInt i = 0; i < nm; i++) mb[i] = mn[i] = 7 * i + 3 + 100000 * rank;
    for (PetscInt i = 0; i < g->leafspace; i++) lsb[i] = lsn[i] = -5;
    PetscCall(PetscSFScatterBegin(sfb, MPIU_INT, mb, lsb));
    PetscCall(PetscSFScatterEnd(sfb, MPIU_INT, mb, lsb));
    PetscCall(PetscSFScatterBegin(sfn, MPIU_INT, mn, lsn));
    PetscCall(PetscSFScatterEnd(sfn, MPIU_INT, mn, lsn));
    PetscCall(CompareArraysInt(g->leafspace, lsb, g->leafspace, lsn, &same));
    ALLCHECK(same, "%s: scatters differ", desc);
    {
      PetscSF     multi;
      PetscSFType t;
      PetscBool   isna;
      PetscCall(PetscSFGetMultiSF(sfn, &multi));
      PetscCall(PetscSFGetType(multi, &t));
      PetscCall(PetscStrcmp(t, PETSCSFNODEAWARE, &isna));
      ALLCHECK(isna, "%s: the multi-SF is of type %s", desc, t);
    }
    PetscCall(PetscFree5(lv, mb, mn, lsb, lsn));
  }
  { /* fetch-and-op */
    PetscInt *rb, *rn, *lv, *ub, *un;
    PetscBool same;
    PetscCall(PetscMalloc5(g->nroots, &rb, g->nroots, &rn, g->leafspace, &lv, g->leafspace, &ub, g->leafspace, &un));
    for (PetscInt i = 0; i < g->nroots; i++) rb[i] = rn[i] = 10 * i;
    for (PetscInt i = 0; i < g->leafspace; i++) {
      lv[i] = i + 1;
      ub[i] = un[i] = -1;
    }
    PetscCall(PetscSFFetchAndOpBegin(sfb, MPIU_INT, rb, lv, ub, MPI_SUM));
    PetscCall(PetscSFFetchAndOpEnd(sfb, MPIU_INT, rb, lv, ub, MPI_SUM));
    PetscCall(PetscSFFetchAndOpBegin(sfn, MPIU_INT, rn, lv, un, MPI_SUM));
    PetscCall(PetscSFFetchAndOpEnd(sfn, MPIU_INT, rn, lv, un, MPI_SUM));
    PetscCall(CompareArraysInt(g->nroots, rb, g->nroots, rn, &same));
    ALLCHECK(same, "%s: fetch-and-op roots differ", desc);
    PetscCall(CompareArraysInt(g->leafspace, ub, g->leafspace, un, &same));
    ALLCHECK(same, "%s: fetch-and-op leaf updates differ", desc);
    PetscCall(PetscFree5(rb, rn, lv, ub, un));
  }
  { /* root and leaf ranks */
    AIJHybridSFRankCount nb, nn;
    const PetscMPIInt   *rkb, *rkn;
    const PetscInt      *ob, *on, *mb, *mn, *xb, *xn;
    PetscBool            same;
    PetscCall(PetscSFGetRootRanks(sfb, &nb, &rkb, &ob, &mb, &xb));
    PetscCall(PetscSFGetRootRanks(sfn, &nn, &rkn, &on, &mn, &xn));
    PetscCall(CompareRanks(nb, rkb, ob, mb, xb, nn, rkn, on, mn, xn, &same));
    ALLCHECK(same, "%s: root ranks differ", desc);
    PetscCall(PetscSFGetLeafRanks(sfb, &nb, &rkb, &ob, &mb));
    PetscCall(PetscSFGetLeafRanks(sfn, &nn, &rkn, &on, &mn));
    PetscCall(CompareRanks(nb, rkb, ob, mb, NULL, nn, rkn, on, mn, NULL, &same));
    ALLCHECK(same, "%s: leaf ranks differ", desc);
  }
  { /* embedded SFs: the same graphs, and a broadcast on them */
    PetscInt *sel, nsel = 0;
    PetscCall(PetscMalloc1(PetscMax(g->nroots, g->nleaves), &sel));
    for (PetscInt i = 0; i < g->nroots; i++)
      if (Uniform() < 0.5) sel[nsel++] = i;
    for (PetscInt pass = 0; pass < 2; pass++) {
      PetscSF            eb, en;
      PetscInt           nrb, nlb, nrn, nln;
      const PetscInt    *ilb, *iln;
      const PetscSFNode *irb, *irn;
      PetscBool          same;
      if (pass == 0) {
        PetscCall(PetscSFCreateEmbeddedRootSF(sfb, nsel, sel, &eb));
        PetscCall(PetscSFCreateEmbeddedRootSF(sfn, nsel, sel, &en));
      } else {
        nsel = 0;
        for (PetscInt i = 0; i < g->nleaves; i++)
          if (Uniform() < 0.5) sel[nsel++] = i;
        PetscCall(PetscSFCreateEmbeddedLeafSF(sfb, nsel, sel, &eb));
        PetscCall(PetscSFCreateEmbeddedLeafSF(sfn, nsel, sel, &en));
      }
      PetscCall(PetscSFGetGraph(eb, &nrb, &nlb, &ilb, &irb));
      PetscCall(PetscSFGetGraph(en, &nrn, &nln, &iln, &irn));
      same = (PetscBool)(nrb == nrn && nlb == nln && (!nlb || !memcmp(irb, irn, nlb * sizeof(PetscSFNode))) && ((!ilb && !iln) || (ilb && iln && !memcmp(ilb, iln, nlb * sizeof(PetscInt)))));
      ALLCHECK(same, "%s: embedded %s SF graphs differ", desc, pass ? "leaf" : "root");
      {
        PetscScalar *r, *lb, *ln;
        PetscCall(PetscMalloc3(g->nroots, &r, g->leafspace, &lb, g->leafspace, &ln));
        Fill(U_SCALAR, g->nroots, r);
        for (PetscInt i = 0; i < g->leafspace; i++) lb[i] = ln[i] = -1.0;
        PetscCall(Bcast(eb, MPIU_SCALAR, r, lb, MPI_REPLACE));
        PetscCall(Bcast(en, MPIU_SCALAR, r, ln, MPI_REPLACE));
        ALLCHECK(!memcmp(lb, ln, g->leafspace * sizeof(PetscScalar)), "%s: broadcast on the embedded %s SF differs", desc, pass ? "leaf" : "root");
        PetscCall(PetscFree3(r, lb, ln));
      }
      PetscCall(PetscSFDestroy(&eb));
      PetscCall(PetscSFDestroy(&en));
    }
    PetscCall(PetscFree(sel));
  }
  { /* two operations in flight, ended in the reverse order */
    PetscScalar *r, *l1b, *l1n;
    PetscInt    *ri, *l2b, *l2n;
    PetscCall(PetscMalloc6(g->nroots, &r, g->leafspace, &l1b, g->leafspace, &l1n, g->nroots, &ri, g->leafspace, &l2b, g->leafspace, &l2n));
    Fill(U_SCALAR, g->nroots, r);
    for (PetscInt i = 0; i < g->nroots; i++) ri[i] = 3 * i + rank;
    for (PetscInt i = 0; i < g->leafspace; i++) {
      l1b[i] = l1n[i] = 0.5;
      l2b[i] = l2n[i] = -1;
    }
    PetscCall(PetscSFBcastBegin(sfb, MPIU_SCALAR, r, l1b, MPI_REPLACE));
    PetscCall(PetscSFBcastBegin(sfb, MPIU_INT, ri, l2b, MPI_SUM));
    PetscCall(PetscSFBcastEnd(sfb, MPIU_INT, ri, l2b, MPI_SUM));
    PetscCall(PetscSFBcastEnd(sfb, MPIU_SCALAR, r, l1b, MPI_REPLACE));
    PetscCall(PetscSFBcastBegin(sfn, MPIU_SCALAR, r, l1n, MPI_REPLACE));
    PetscCall(PetscSFBcastBegin(sfn, MPIU_INT, ri, l2n, MPI_SUM));
    PetscCall(PetscSFBcastEnd(sfn, MPIU_INT, ri, l2n, MPI_SUM));
    PetscCall(PetscSFBcastEnd(sfn, MPIU_SCALAR, r, l1n, MPI_REPLACE));
    ALLCHECK(!memcmp(l1b, l1n, g->leafspace * sizeof(PetscScalar)) && !memcmp(l2b, l2n, g->leafspace * sizeof(PetscInt)), "%s: two operations in flight, ended in reverse order, differ", desc);
    PetscCall(PetscFree6(r, l1b, l1n, ri, l2b, l2n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* in place: an SF on one rank's own roots, rootdata == leafdata (as VecScatter on one vector) */
static PetscErrorCode CompareInPlace(PetscInt node_size, const char *desc)
{
  PetscInt     n = 8 + rank, nl = n / 2;
  PetscSFNode *rem;
  PetscInt    *il;
  PetscSF      sfb, sfn;
  PetscScalar *ab, *an;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nl, &rem, nl, &il));
  for (PetscInt i = 0; i < nl; i++) { /* leaf n-1-i <- root i (disjoint halves) */
    rem[i].rank  = rank;
    rem[i].index = i;
    il[i]        = n - 1 - i;
  }
  for (PetscInt t = 0; t < 2; t++) {
    PetscSF *sf = t ? &sfn : &sfb;
    PetscCall(PetscSFCreate(comm, sf));
    PetscCall(PetscSFSetType(*sf, t ? PETSCSFNODEAWARE : PETSCSFBASIC));
    if (t) PetscCall(PetscSFNodeAwareSetNodeSize(*sf, node_size));
    if (t) PetscCall(PetscSFNodeAwareSetAlways(*sf, PETSC_TRUE));
    PetscCall(PetscSFSetGraph(*sf, n, nl, il, PETSC_COPY_VALUES, rem, PETSC_COPY_VALUES));
  }
  PetscCall(PetscMalloc2(n, &ab, n, &an));
  for (PetscInt i = 0; i < n; i++) ab[i] = an[i] = 1.0 + i;
  PetscCall(Bcast(sfb, MPIU_SCALAR, ab, ab, MPI_SUM));
  PetscCall(Bcast(sfn, MPIU_SCALAR, an, an, MPI_SUM));
  PetscCall(Reduce(sfb, MPIU_SCALAR, ab, ab, MPI_SUM));
  PetscCall(Reduce(sfn, MPIU_SCALAR, an, an, MPI_SUM));
  ALLCHECK(!memcmp(ab, an, n * sizeof(PetscScalar)), "%s: in place differs from basic", desc);
  PetscCall(PetscFree2(ab, an));
  PetscCall(PetscFree2(rem, il));
  PetscCall(PetscSFDestroy(&sfb));
  PetscCall(PetscSFDestroy(&sfn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* statistics: totals add up, at most one inter-node message per ordered node pair, nothing inter-node on one node */
static PetscErrorCode CheckStats(PetscSF sfn, const char *desc)
{
  PetscSFNodeAwareStats st;
  PetscInt64            loc[3], tot[3];

  PetscFunctionBegin;
  PetscCall(PetscSFNodeAwareGetStats(sfn, &st));
  loc[0] = st.nodeaware.inter_msgs;
  loc[1] = st.basic.inter_msgs + st.basic.on_msgs;
  loc[2] = st.nodeaware_reverse.inter_msgs;
  PetscCallMPI(MPI_Allreduce(loc, tot, 3, MPIU_INT64, MPI_SUM, comm));
  ALLCHECK(tot[0] == st.nodeaware_total.inter_msgs && tot[1] == st.basic_total.inter_msgs + st.basic_total.on_msgs && tot[2] == st.nodeaware_reverse_total.inter_msgs, "%s: totals are not the sums", desc);
  ALLCHECK(st.nodeaware_total.inter_msgs <= st.nnodes * (st.nnodes - 1) && st.nodeaware_total.inter_msgs <= st.basic_total.inter_msgs, "%s: %" PetscInt_FMT " inter-node messages for %" PetscInt_FMT " nodes (basic %" PetscInt_FMT ")", desc,
           st.nodeaware_total.inter_msgs, st.nnodes, st.basic_total.inter_msgs);
  ALLCHECK(st.nodeaware_total.inter_msgs == st.nodeaware_reverse_total.inter_msgs, "%s: reduction and broadcast inter-node messages differ", desc);
  ALLCHECK(st.nnodes > 1 || (st.basic_total.inter_msgs == 0 && st.nodeaware_total.inter_msgs == 0), "%s: inter-node messages on one node", desc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMisuse(void)
{
  Graph          g;
  PetscSF        sf;
  PetscScalar   *r, *l;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MakeGraph(4242, PETSC_FALSE, &g));
  PetscCall(MakeSF(&g, PETSCSFNODEAWARE, 1, &sf));
  PetscCall(PetscMalloc2(g.nroots + 1, &r, g.leafspace + 1, &l));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscSFBcastEnd(sf, MPIU_SCALAR, r, l, MPI_REPLACE);
  ALLCHECK(ierr == PETSC_ERR_ARG_WRONGSTATE, "an end without a begin: error %d", (int)ierr);
  PetscCall(PetscSFBcastBegin(sf, MPIU_SCALAR, r, l, MPI_REPLACE));
  ierr = PetscSFBcastBegin(sf, MPIU_SCALAR, r, l, MPI_REPLACE);
  ALLCHECK(ierr == PETSC_ERR_ARG_WRONGSTATE, "a second begin on the same data: error %d", (int)ierr);
  ierr = PetscSFReduceEnd(sf, MPIU_SCALAR, l, r, MPI_SUM);
  ALLCHECK(ierr == PETSC_ERR_ARG_WRONGSTATE, "the end of a reduction for a begun broadcast: error %d", (int)ierr);
  ierr = PetscSFReset(sf);
  ALLCHECK(ierr == PETSC_ERR_ARG_WRONGSTATE, "PetscSFReset() with a broadcast in flight: error %d", (int)ierr);
  ierr = PetscSFNodeAwareSetNodeSize(sf, 2);
  ALLCHECK(size == 1 || ierr == PETSC_ERR_ARG_WRONGSTATE, "a new node size with a broadcast in flight: error %d", (int)ierr);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscSFBcastEnd(sf, MPIU_SCALAR, r, l, MPI_REPLACE)); /* still usable: nothing was lost */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, l, r, MPI_SUM));
  ierr = PetscSFDestroy(&sf); /* the last reference: the destroy must refuse, and the SF stay */
  ALLCHECK(ierr == PETSC_ERR_ARG_WRONGSTATE && sf, "PetscSFDestroy() with a reduction in flight: error %d", (int)ierr);
  ierr = PetscSFNodeAwareSetNodeSize(sf, -3);
  PetscCall(PetscPopErrorHandler());
  ALLCHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "node size -3: error %d", (int)ierr);
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, l, r, MPI_SUM));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree2(r, l));
  PetscCall(FreeGraph(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     desc[128];
  PetscInt ncases = 6;
  MPI_Op   ops[]  = {MPI_REPLACE, MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage()); /* registers the type */
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cases", &ncases, NULL));
  PetscCallMPI(MPI_Type_contiguous(3, MPIU_SCALAR, &Block3));
  PetscCallMPI(MPI_Type_commit(&Block3));
  for (PetscInt seed = 1; seed <= ncases; seed++) {
    for (PetscInt distinct = 0; distinct < 2; distinct++) {
      Graph    g;
      PetscSF  sfb;
      PetscInt dups = 0, gdups;
      PetscCall(MakeGraph(seed, (PetscBool)distinct, &g));
      for (PetscInt i = 0; i < g.nleaves; i++)
        for (PetscInt j = 0; j < i; j++) dups |= (g.iremote[i].rank != rank && g.iremote[i].rank == g.iremote[j].rank && g.iremote[i].index == g.iremote[j].index);
      PetscCallMPI(MPI_Allreduce(&dups, &gdups, 1, MPIU_INT, MPI_MAX, comm));
      PetscCall(MakeSF(&g, PETSCSFBASIC, -1, &sfb));
      for (PetscInt k = 0; k <= size; k++) {
        PetscSF sfn;
        PetscCall(PetscSNPrintf(desc, sizeof(desc), "seed %" PetscInt_FMT "%s node size %" PetscInt_FMT, seed, distinct ? " distinct remote roots" : "", k));
        PetscCall(MakeSF(&g, PETSCSFNODEAWARE, k, &sfn));
        for (PetscInt u = 0; u < U_N; u++) {
          for (PetscInt o = 0; o < 5; o++) {
            if (o == 4 && u != U_REAL) continue;                        /* one operation basic has and this type leaves to it */
            if (o > 0 && (u == U_2INT || u == U_CHAR)) continue;        /* replace only */
            if ((o == 2 || o == 3) && IsComplex((UnitKind)u)) continue; /* no order on complex numbers */
            for (PetscInt dir = 0; dir < 2; dir++) PetscCall(CompareOp(sfb, sfn, &g, (PetscBool)gdups, (UnitKind)u, ops[o], dir, desc));
          }
        }
        PetscCall(CompareOthers(sfb, sfn, &g, desc));
        PetscCall(CheckStats(sfn, desc));
        if (k == 1) { /* a new node size on a used SF: rebuilt, still the same results */
          PetscCall(PetscSFNodeAwareSetNodeSize(sfn, size));
          PetscCall(PetscSFNodeAwareSetAlways(sfn, PETSC_TRUE));
          PetscCall(CompareOp(sfb, sfn, &g, (PetscBool)gdups, U_SCALAR, MPI_SUM, 1, desc));
        }
        PetscCall(PetscSFDestroy(&sfn));
      }
      PetscCall(PetscSFDestroy(&sfb));
      PetscCall(FreeGraph(&g));
    }
  }
  for (PetscInt k = 0; k <= size; k++) {
    PetscCall(PetscSNPrintf(desc, sizeof(desc), "in place, node size %" PetscInt_FMT, k));
    PetscCall(CompareInPlace(k, desc));
  }
  PetscCall(TestMisuse());
  PetscCallMPI(MPI_Type_free(&Block3));
  if (!rank) printf("sf_nodeaware: %d checks passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
