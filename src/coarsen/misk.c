/*
   MATCOARSENAIJHYBRID: the aggregates of PETSc's MATCOARSENMISK (greedy distance-k MIS), the same
   PetscCoarsenData lists (list heads, ids and their order) and the same ghost matrix, for a
   seqaijhybrid graph made without MISK's serial parts: the MIS on the CSR arrays (on the threads
   where the pattern is symmetric: AIJHybridMISGreedyRounds, the same roots), the aggregation
   matrices P_i kept as maps (row i of P_i has its one entry in the column agg_i[i]), the graph of
   the next MIS (the pattern of P^T G P: MISK's MatPtAP) and the rows of R = (P_0 ... P_{k-1})^T
   (MISK's MatMatMult, MatTranspose and MatGetRow loop) by threaded kernels (miskplan.c), and the
   list nodes written in one array. Any other graph (several ranks, another type, an ordering of
   another size, a distance MISK refuses) goes to MISK's own apply. The type starts as MISK
   (MatCoarsenCreate_MISK()): distance (MatCoarsenMISKSetDistance()), options and view are MISK's.
*/
#include "../compat.h"
#include <petsc/private/matimpl.h> /* struct _p_MatCoarsen */
#include <petscaijhybrid.h>
#include "coarsen.h"
#include "miskplan.h"

PETSC_EXTERN PetscErrorCode MatCoarsenCreate_MISK(MatCoarsen);

static PetscErrorCode (*MatCoarsenApply_MISK_Saved)(MatCoarsen) = NULL;
static PetscLogEvent MATAIJHYBRID_Coarsen;
/* the smallest graph whose first MIS (in GAMG's shuffled order) runs in rounds: the serial sweep's
   random row accesses are what the rounds save, and a graph in cache has few; the coarser graphs'
   MIS (natural order, rows in memory order) is the sweep's */
#define AIJHYBRID_MIS_ROUNDS_MIN 131072

/* the aggregates of graph G (seqaijhybrid, n rows) at distance k for the greedy order perm (NULL: 0..n-1) */
static PetscErrorCode MatCoarsenApply_AIJHybrid_Seq(Mat G, PetscInt k, IS perm, PetscCoarsenData **a_lists)
{
  const PetscInt   *gi, *gj, *perm_ix = NULL;
  PetscInt         *ci = NULL, *cj = NULL, *root, *agg, *comp, *misw, *mi, *mj, *work, n, cn, nagg = 0, nt, my0;
  PetscInt          stats[2];
  PetscBool         rounds;
  PetscCoarsenData *lists;
  Mat               mat;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(G, &n, NULL));
  PetscCall(MatGetOwnershipRange(G, &my0, NULL));
  PetscCall(MatAIJHybridGetNumThreads(G, &nt));
  nt = PetscMax(nt, 1);
  PetscCall(MatSeqAIJGetCSRAndMemType(G, &gi, &gj, NULL, NULL));
  PetscCall(PetscMalloc4(n, &root, n, &agg, n, &comp, nt > 1 ? 2 * n : 0, &misw));
  if (perm) PetscCall(ISGetIndices(perm, &perm_ix));
  cn = n;
  for (PetscInt it = 0; it < k; it++) {
    const PetscInt *ai = it ? ci : gi, *aj = it ? cj : gj;
    PetscInt        nsel;

    /* MISK: the ordering on the first MIS, the natural order on the coarser graphs; the first of a large
       graph in rounds on the threads where its pattern is symmetric (GAMG's graphs are), else the serial sweep: the same roots */
    nsel   = nt > 1 && !it && perm_ix && cn >= AIJHYBRID_MIS_ROUNDS_MIN ? AIJHybridMISGreedyRounds(cn, ai, aj, perm_ix, nt, misw, root, stats) : -2;
    rounds = nsel != -2;
    if (!rounds) nsel = AIJHybridMISGreedy(cn, ai, aj, it ? NULL : perm_ix, root);
    PetscCheck(nsel >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The greedy ordering has an entry outside 0..%" PetscInt_FMT, cn - 1);
    nagg = AIJHybridMISNumber(cn, root, agg);
    if (rounds)
      PetscCall(PetscInfo(G, "MIS %" PetscInt_FMT " of %" PetscInt_FMT ": %" PetscInt_FMT " of %" PetscInt_FMT " vertices selected, %" PetscInt_FMT " rounds on %" PetscInt_FMT " threads, %" PetscInt_FMT " vertices left to the serial sweep\n", it + 1,
                          k, nsel, cn, stats[0], nt, stats[1]));
    else PetscCall(PetscInfo(G, "MIS %" PetscInt_FMT " of %" PetscInt_FMT ": %" PetscInt_FMT " of %" PetscInt_FMT " vertices selected (serial sweep)\n", it + 1, k, nsel, cn));
    if (!it) PetscCall(PetscArraycpy(comp, agg, n));
    else AIJHybridMISCompose(n, agg, comp, nt);
    if (it < k - 1) { /* the graph of the next MIS: the pattern of P^T A P */
      PetscInt *ni, *nj;

      PetscCall(PetscMalloc3(nagg + 1, &mi, cn + 1, &mj, nt * nagg + 1, &work));
      PetscCall(PetscMalloc1(nagg + 1, &ni));
      AIJHybridAggMembers(cn, agg, nagg, nt, work, mi, mj);
      AIJHybridAggGraph(nagg, mi, mj, ai, aj, agg, nt, work, ni, NULL); /* work: nt * nagg markers, free again */
      ni[0] = 0;
      for (PetscInt r = 0; r < nagg; r++) ni[r + 1] += ni[r];
      PetscCall(PetscMalloc1(ni[nagg] + 1, &nj));
      AIJHybridAggGraph(nagg, mi, mj, ai, aj, agg, nt, work, ni, nj);
      PetscCall(PetscFree3(mi, mj, work));
      PetscCall(PetscFree(ci)); /* the previous coarse graph (NULL at the first) */
      PetscCall(PetscFree(cj));
      ci = ni; /* the next MIS's graph */
      cj = nj;
      cn = nagg;
    }
  }
  PetscCall(PetscFree(ci));
  PetscCall(PetscFree(cj));
  if (perm) PetscCall(ISRestoreIndices(perm, &perm_ix));

  /* the rows of R: the members of each final aggregate in increasing order, as MISK's MatGetRow() loop appends them */
  PetscCall(PetscMalloc3(nagg + 1, &mi, n + 1, &mj, nt * nagg + 1, &work));
  AIJHybridAggMembers(n, comp, nagg, nt, work, mi, mj);
  PetscCall(PetscCDCreate(n, &lists));
  if (mi[nagg] > 0) {
    PetscCDIntNd *nodes;

    PetscCall(PetscMalloc1(mi[nagg], &nodes));
    AIJHybridAggNodes(nagg, mi, mj, my0, nt, nodes, lists->array);
    /* the nodes are the list's first pool chunk (freed by PetscCDDestroy()); later appends get new chunks of PETSc's default size */
    lists->pool_list.array = nodes;
    lists->new_node        = nodes + mi[nagg];
    lists->new_left        = 0;
    lists->chk_sz          = 10;
  }
  PetscCall(PetscFree3(mi, mj, work));
  PetscCall(PetscFree4(root, agg, comp, misw));

  /* MISK's matrix of the ghost ids of each list: none on one rank, an empty assembled AIJ matrix */
  PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)G), n, n, PETSC_DETERMINE, PETSC_DETERMINE, 0, NULL, 0, NULL, &mat));
  PetscCall(MatAssemblyBegin(mat, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(mat, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscCDSetMat(lists, mat));
  *a_lists = lists;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenApply_AIJHybrid(MatCoarsen coarse)
{
  Mat         G = coarse->graph;
  PetscInt    k, n, np;
  PetscMPIInt size;
  PetscBool   seq;

  PetscFunctionBegin;
  PetscCall(MatCoarsenMISKGetDistance(coarse, &k));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)G), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)G, MATSEQAIJHYBRID, &seq));
  PetscCall(MatGetLocalSize(G, &n, NULL));
  np = n;
  if (coarse->perm) PetscCall(ISGetLocalSize(coarse->perm, &np));
  if (!seq || size > 1 || k < 1 || k > 4 || np != n) {
    PetscCall((*MatCoarsenApply_MISK_Saved)(coarse));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_Coarsen, G, 0, 0, 0));
  PetscCall(MatCoarsenApply_AIJHybrid_Seq(G, k, coarse->perm, &coarse->agg_lists));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_Coarsen, G, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenCreate_AIJHybrid(MatCoarsen coarse)
{
  PetscFunctionBegin;
  PetscCall(MatCoarsenCreate_MISK(coarse));
  MatCoarsenApply_MISK_Saved = coarse->ops->apply;
  coarse->ops->apply         = MatCoarsenApply_AIJHybrid;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* registers MATCOARSENAIJHYBRID and its log event (called by MatAIJHybridInitializePackage()) */
PetscErrorCode MatAIJHybridCoarsenRegister(void)
{
  PetscFunctionBegin;
  PetscCall(MatCoarsenRegister(MATCOARSENAIJHYBRID, MatCoarsenCreate_AIJHybrid));
  PetscCall(PetscLogEventRegister("AIJHybCoarsen", MAT_CLASSID, &MATAIJHYBRID_Coarsen));
  PetscFunctionReturn(PETSC_SUCCESS);
}
