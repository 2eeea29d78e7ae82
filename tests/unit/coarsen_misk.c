/*
   The MatCoarsen type "aijhybrid" (src/coarsen/misk.c) against PETSc's MISK: on the graphs of a
   3D Poisson problem (52^3 on one rank, so that its first MIS runs in rounds on 2 and 3 threads;
   20^3 on several), an irregular symmetric graph and a graph with singletons, empty rows and
   one-sided edges (symmetric on several ranks), for distances 1 and 2 and the natural order (no ordering set, and the identity)
   and a random greedy ordering, the PetscCoarsenData of both entry by entry (the same lists in the
   same order) and the same ghost matrix, with 1, 2 and 3 threads of the graph; the same for an aij
   graph (MISK's own apply); on several ranks mpiaijhybrid graphs go to MISK. End to end: CG with
   GAMG on the Poisson problem takes the same iterations with the same residual history (bitwise)
   with the option choosing the coarsener, which on one rank is used (its log event counted).
*/
#include <petscaijhybrid.h>
#include <petscksp.h>
#include <petsc/private/matimpl.h> /* the PetscCD list functions (private from PETSc 3.20 on) */
#include "unitcheck.h"

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif

typedef enum {
  G_POISSON,
  G_IRREGULAR,
  G_SINGLETONS
} GraphKind;
static const char *KindName[] = {"poisson", "irregular", "singletons"};

/* the graph of kind k, of type `type`; the pattern depends on the global row only (and on several
   ranks the singleton graph is symmetric) */
static PetscErrorCode Build(GraphKind kind, MatType type, Mat *G)
{
  PetscInt    nx, N, rs, re;
  PetscMPIInt size;
  PetscBool   sym;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  nx  = size == 1 ? 52 : 20; /* one rank: large enough for the first MIS in rounds (AIJHYBRID_MIS_ROUNDS_MIN, misk.c) */
  N   = kind == G_POISSON ? nx * nx * nx : (kind == G_IRREGULAR ? 3000 : 600);
  sym = (PetscBool)(size > 1);
  PetscCall(MatCreate(PETSC_COMM_WORLD, G));
  PetscCall(MatSetSizes(*G, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*G, type));
  PetscCall(MatSeqAIJSetPreallocation(*G, 40, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*G, 40, NULL, 40, NULL));
  PetscCall(MatSetOption(*G, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*G, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    if (kind == G_POISSON) {
      const PetscInt x = i % nx, y = (i / nx) % nx, z = i / (nx * nx);

      PetscCall(MatSetValue(*G, i, i, 6.0, ADD_VALUES));
      if (x > 0) PetscCall(MatSetValue(*G, i, i - 1, -1.0, ADD_VALUES));
      if (x < nx - 1) PetscCall(MatSetValue(*G, i, i + 1, -1.0, ADD_VALUES));
      if (y > 0) PetscCall(MatSetValue(*G, i, i - nx, -1.0, ADD_VALUES));
      if (y < nx - 1) PetscCall(MatSetValue(*G, i, i + nx, -1.0, ADD_VALUES));
      if (z > 0) PetscCall(MatSetValue(*G, i, i - nx * nx, -1.0, ADD_VALUES));
      if (z < nx - 1) PetscCall(MatSetValue(*G, i, i + nx * nx, -1.0, ADD_VALUES));
    } else if (kind == G_IRREGULAR) { /* i's edges to a few random rows, both ways, and a few near ones */
      const PetscInt deg = (PetscInt)(Hash(i, 1) % 7);

      PetscCall(MatSetValue(*G, i, i, 1.0, ADD_VALUES));
      for (PetscInt e = 0; e < deg; e++) {
        const PetscInt j = (PetscInt)(Hash(i, 10 + e) % (unsigned long long)N);

        PetscCall(MatSetValue(*G, i, j, 1.0, ADD_VALUES));
        PetscCall(MatSetValue(*G, j, i, 1.0, ADD_VALUES));
      }
      if (Hash(i, 2) % 3 && i + 1 < N) {
        PetscCall(MatSetValue(*G, i, i + 1, 1.0, ADD_VALUES));
        PetscCall(MatSetValue(*G, i + 1, i, 1.0, ADD_VALUES));
      }
    } else if (!sym) { /* every 5th row empty, every 7th the diagonal only, others a chain and one-sided edges */
      if (i % 5 == 0) continue;
      PetscCall(MatSetValue(*G, i, i, 1.0, ADD_VALUES));
      if (i % 7 == 0) continue;
      if (i + 1 < N && (i + 1) % 5) PetscCall(MatSetValue(*G, i, i + 1, 1.0, ADD_VALUES));
      if (i > 0) PetscCall(MatSetValue(*G, i, i - 1, 1.0, ADD_VALUES));
      if (Hash(i, 3) % 4 == 0) PetscCall(MatSetValue(*G, i, (PetscInt)(Hash(i, 4) % (unsigned long long)N), 1.0, ADD_VALUES));
    } else { /* the same, symmetric (MISK on several ranks waits for ever for a ghost neighbour that has no edge back) */
      const PetscInt j = (PetscInt)(Hash(i, 4) % (unsigned long long)N);

      if (i % 5 == 0) continue;
      PetscCall(MatSetValue(*G, i, i, 1.0, ADD_VALUES));
      if (i % 7 == 0) continue;
      if (i + 1 < N && (i + 1) % 5 && (i + 1) % 7) {
        PetscCall(MatSetValue(*G, i, i + 1, 1.0, ADD_VALUES));
        PetscCall(MatSetValue(*G, i + 1, i, 1.0, ADD_VALUES));
      }
      if (Hash(i, 3) % 4 == 0 && j % 5 && j % 7 && j != i) {
        PetscCall(MatSetValue(*G, i, j, 1.0, ADD_VALUES));
        PetscCall(MatSetValue(*G, j, i, 1.0, ADD_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(*G, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*G, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the aggregates of G by coarsener `type` at distance k with ordering perm (NULL: none set) */
static PetscErrorCode Coarsen(Mat G, MatCoarsenType type, PetscInt k, IS perm, PetscCoarsenData **lists)
{
  MatCoarsen crs;

  PetscFunctionBeginUser;
  PetscCall(MatCoarsenCreate(PETSC_COMM_WORLD, &crs));
  PetscCall(MatCoarsenSetType(crs, type));
  PetscCall(MatCoarsenSetAdjacency(crs, G));
  if (perm) PetscCall(MatCoarsenSetGreedyOrdering(crs, perm));
  PetscCall(MatCoarsenSetStrictAggs(crs, PETSC_TRUE));
  PetscCall(MatCoarsenMISKSetDistance(crs, k));
  PetscCall(MatCoarsenApply(crs));
  PetscCall(MatCoarsenGetData(crs, lists));
  PetscCall(MatCoarsenDestroy(&crs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the two PetscCoarsenData are the same: size, every list entry by entry, the ghost matrix */
static PetscErrorCode SameLists(PetscCoarsenData *a, PetscCoarsenData *b, PetscBool *same, PetscInt *nagg)
{
  Mat ma, mb;

  PetscFunctionBeginUser;
  *same = (PetscBool)(a->size == b->size);
  *nagg = 0;
  for (PetscInt c = 0; *same && c < a->size; c++) {
    PetscCDIntNd *pa, *pb;

    PetscCall(PetscCDGetHeadPos(a, c, &pa));
    PetscCall(PetscCDGetHeadPos(b, c, &pb));
    if (pa) (*nagg)++;
    while (pa && pb) {
      PetscInt ia, ib;

      PetscCall(PetscCDIntNdGetID(pa, &ia));
      PetscCall(PetscCDIntNdGetID(pb, &ib));
      if (ia != ib) *same = PETSC_FALSE;
      PetscCall(PetscCDGetNextPos(a, c, &pa));
      PetscCall(PetscCDGetNextPos(b, c, &pb));
    }
    if (pa || pb) *same = PETSC_FALSE;
  }
  PetscCall(PetscCDGetMat(a, &ma));
  PetscCall(PetscCDGetMat(b, &mb));
  if (!ma || !mb) *same = (PetscBool)(*same && !ma && !mb);
  else {
    PetscBool eq, st;
    MatType   tb;

    PetscCall(MatEqual(ma, mb, &eq));
    PetscCall(MatGetType(mb, &tb));
    PetscCall(PetscObjectTypeCompare((PetscObject)ma, tb, &st));
    *same = (PetscBool)(*same && eq && st);
  }
#if PETSC_VERSION_LT(3, 19, 0) /* PetscCDGetMat() gives the matrix up */
  PetscCall(MatDestroy(&ma));
  PetscCall(MatDestroy(&mb));
#endif
  {
    int all = *same ? 1 : 0;

    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    *same = all ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG + GAMG on the Poisson graph as operator; with `ours` the coarsener chosen by the option */
static PetscErrorCode Solve(Mat A, PetscBool ours, PetscInt *its, PetscReal hist[], PetscInt *nhist)
{
  KSP         ksp;
  PC          pc;
  Vec         x, b;
  const char *prefix = ours ? "ours_" : "misk_";

  PetscFunctionBeginUser;
#if PETSC_VERSION_LT(3, 22, 0) /* PCGAMG's coarsener has the PC's prefix up to 3.21, with pc_gamg_ from 3.22 */
  if (ours) PetscCall(PetscOptionsSetValue(NULL, "-ours_mat_coarsen_type", "aijhybrid"));
#else
  if (ours) PetscCall(PetscOptionsSetValue(NULL, "-ours_pc_gamg_mat_coarsen_type", "aijhybrid"));
#endif
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPSetResidualHistory(ksp, hist, 200, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  {
    const PetscReal *h;

    PetscCall(KSPGetResidualHistory(ksp, &h, nhist));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;
  PetscInt    total = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int kind = G_POISSON; kind <= G_SINGLETONS; kind++) {
    for (int ti = 0; ti < 2; ti++) {
      MatType  type = ti ? MATAIJ : MATAIJHYBRID;
      Mat      G;
      PetscInt nloc, rs;

      if (kind == G_SINGLETONS && size > 1 && !PETSC_VERSION_LT(3, 19, 0)) continue; /* PETSc 3.26's own MISK never ends on it on several ranks (3.18's does) */
      PetscCall(Build((GraphKind)kind, type, &G));
      PetscCall(MatGetLocalSize(G, &nloc, NULL));
      PetscCall(MatGetOwnershipRange(G, &rs, NULL));
      for (PetscInt k = 1; k <= 2; k++) {
        for (int pi = 0; pi < 3; pi++) { /* no ordering, the identity, a random one */
          IS        perm = NULL;
          PetscInt *p;

          if (pi) {
            PetscCall(PetscMalloc1(nloc, &p));
            for (PetscInt i = 0; i < nloc; i++) p[i] = i;
            rng_state = 1000 + 17 * (unsigned long long)rs + (unsigned long long)kind;
            if (pi == 2)
              for (PetscInt i = nloc - 1; i > 0; i--) {
                PetscInt j = RandInt(i + 1), t = p[i];

                p[i] = p[j];
                p[j] = t;
              }
            PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nloc, p, PETSC_OWN_POINTER, &perm));
          }
          for (PetscInt T = 1; T <= (ti || size > 1 ? 1 : 3); T++) { /* threads: one rank's aijhybrid graph */
            PetscCoarsenData *a, *b;
            PetscBool         same;
            PetscInt          nagg;

            if (!ti) PetscCall(MatAIJHybridSetNumThreads(G, T));
            PetscCall(Coarsen(G, MATCOARSENMISK, k, perm, &a));
            PetscCall(Coarsen(G, "aijhybrid", k, perm, &b));
            PetscCall(SameLists(a, b, &same, &nagg));
            CHECK(same, "%s %s k=%" PetscInt_FMT " ordering %d threads %" PetscInt_FMT ": aggregates differ from MISK's", KindName[kind], type, k, pi, T);
            CHECK(nagg > 0, "%s: no aggregate", KindName[kind]);
            total += nagg;
            PetscCall(PetscCDDestroy(a));
            PetscCall(PetscCDDestroy(b));
          }
          PetscCall(ISDestroy(&perm));
        }
      }
      PetscCall(MatDestroy(&G));
    }
  }
  { /* end to end: GAMG with MISK and with ours */
    Mat                A;
    PetscInt           its[2], nh[2];
    PetscReal          hist[2][201];
    PetscLogEvent      ev;
    PetscEventPerfInfo info;
    int                count;

    PetscCall(Build(G_POISSON, MATAIJHYBRID, &A));
    PetscCall(MatAIJHybridSetNumThreads(A, 2));
    PetscCall(PetscLogEventGetId("AIJHybCoarsen", &ev));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
    count = info.count;
    PetscCall(Solve(A, PETSC_FALSE, &its[0], hist[0], &nh[0]));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
    CHECK(info.count == count, "the aijhybrid coarsener ran without the option (%d times)", info.count - count);
    PetscCall(Solve(A, PETSC_TRUE, &its[1], hist[1], &nh[1]));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
    CHECK(size > 1 ? info.count == count : info.count > count, "the aijhybrid coarsener ran %d times on %d rank(s)", info.count - count, (int)size);
    CHECK(its[0] == its[1] && nh[0] == nh[1] && its[0] > 0, "GAMG iterations %" PetscInt_FMT " with MISK, %" PetscInt_FMT " with aijhybrid", its[0], its[1]);
    CHECK(nh[0] == nh[1] && !memcmp(hist[0], hist[1], (size_t)nh[0] * sizeof(PetscReal)), "GAMG residual histories differ");
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "GAMG: %" PetscInt_FMT " iterations with MISK and with aijhybrid, residual histories identical: %s\n", its[0], its[1] == its[0] && !memcmp(hist[0], hist[1], (size_t)nh[0] * sizeof(PetscReal)) ? "yes" : "no"));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "coarsen_misk (%d rank(s)): %d checks passed, %d failed (%" PetscInt_FMT " aggregates compared on rank 0)\n", (int)size, npass, nfail, total));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
