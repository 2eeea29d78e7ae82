/*
   The public PetscAIJHybridExchange from C: on a seeded random pattern (ranks owning nothing, ranks
   needing nothing, ghosts in any order), the node-aware exchange for every emulated node size and
   for shared-memory nodes gives the same ghosts (exact) and the same reverse sums (bitwise) as the
   standard one, through the array and the Vec interfaces, twice in a row; the statistics count one
   inter-node message at most per ordered node pair. Prints "exchange API matches" on success.
*/
#include <petscaijhybrid.h>
#include <string.h>

static unsigned long long state = 4242;
static PetscReal          Uniform(void)
{
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscReal)(state >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
  PetscMPIInt size, rank;
  PetscInt    nloc = 0, N, ng = 0, *ghosts, rstart;
  Vec         x, y, gstd, gna;
  PetscMPIInt ok = 1, gok;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  for (PetscMPIInt r = 0; r <= rank; r++) nloc = r % 3 == 1 ? 0 : 3 + (PetscInt)(8 * Uniform()); /* same sequence on every rank */
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nloc, PETSC_DETERMINE, &x));
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(PetscMalloc1(N, &ghosts));
  for (PetscInt g = N - 1; g >= 0 && rank != 2; g--) /* rank 2 needs nothing; descending order */
    if ((g < rstart || g >= rstart + nloc) && Uniform() < 0.4) ghosts[ng++] = g;
  {
    PetscScalar *xa;
    PetscCall(VecGetArray(x, &xa));
    for (PetscInt i = 0; i < nloc; i++) xa[i] = (PetscScalar)(rstart + i) + 0.5;
    PetscCall(VecRestoreArray(x, &xa));
  }
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, ng, &gstd));
  PetscCall(VecDuplicate(gstd, &gna));
  PetscCall(VecDuplicate(x, &y));
  for (PetscInt k = 0; k <= size; k++) { /* k = 0: shared-memory nodes */
    PetscAIJHybridExchange      std, na;
    PetscAIJHybridExchangeStats st;
    const PetscScalar          *a, *b;
    PetscScalar                *c, *ys, *yn;

    PetscCall(PetscAIJHybridExchangeCreateFromVec(x, ng, ghosts, PETSC_FALSE, PETSC_DEFAULT, &std));
    PetscCall(PetscAIJHybridExchangeCreateFromVec(x, ng, ghosts, PETSC_TRUE, k ? k : PETSC_DEFAULT, &na));
    for (PetscInt rep = 0; rep < 2; rep++) {
      PetscCall(PetscAIJHybridExchangeForwardVec(std, x, gstd));
      PetscCall(PetscAIJHybridExchangeForwardVec(na, x, gna));
      PetscCall(VecGetArrayRead(gstd, &a));
      PetscCall(VecGetArrayRead(gna, &b));
      for (PetscInt i = 0; i < ng; i++)
        if (a[i] != b[i] || a[i] != (PetscScalar)ghosts[i] + 0.5) ok = 0;
      PetscCall(VecRestoreArrayRead(gstd, &a));
      PetscCall(VecRestoreArrayRead(gna, &b));
      /* reverse on arrays: contributions of varied magnitude */
      PetscCall(PetscMalloc3(ng, &c, nloc, &ys, nloc, &yn));
      for (PetscInt i = 0; i < ng; i++) c[i] = (Uniform() - 0.5) * PetscPowReal(10.0, (PetscReal)(PetscInt)(12 * Uniform()) - 6);
      for (PetscInt i = 0; i < nloc; i++) ys[i] = yn[i] = 1e-3 * (PetscScalar)i;
      PetscCall(PetscAIJHybridExchangeReverseBegin(std, c, ys));
      PetscCall(PetscAIJHybridExchangeReverseEnd(std, c, ys));
      PetscCall(PetscAIJHybridExchangeReverseBegin(na, c, yn));
      PetscCall(PetscAIJHybridExchangeReverseEnd(na, c, yn));
      for (PetscInt i = 0; i < nloc; i++)
        if (memcmp(&ys[i], &yn[i], sizeof(PetscScalar)) != 0) ok = 0; /* bitwise */
      PetscCall(PetscFree3(c, ys, yn));
    }
    /* the Vec reverse */
    PetscCall(VecSet(y, 1.0));
    PetscCall(VecSet(gna, 2.0));
    PetscCall(PetscAIJHybridExchangeReverseVec(na, gna, y));
    PetscCall(PetscAIJHybridExchangeGetStats(na, &st));
    if (st.nodeaware_total.inter_msgs > st.nnodes * (st.nnodes - 1) || st.nodeaware_total.inter_msgs > st.standard_total.inter_msgs || !st.node_aware) ok = 0;
    if (k == 1 && st.nodeaware_total.inter_msgs != st.standard_total.inter_msgs) ok = 0; /* one rank per node: nothing to aggregate */
    if (k == 0 && (st.nnodes != 1 || st.nodeaware_total.inter_msgs != 0)) ok = 0;      /* one machine */
    if (k == size) PetscCall(PetscAIJHybridExchangeView(na, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(PetscAIJHybridExchangeDestroy(&std));
    PetscCall(PetscAIJHybridExchangeDestroy(&na));
  }
  PetscCallMPI(MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_LAND, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", gok ? "exchange API matches" : "exchange API MISMATCH"));
  PetscCall(PetscFree(ghosts));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&gstd));
  PetscCall(VecDestroy(&gna));
  PetscCall(PetscFinalize());
  return gok ? 0 : 1;
}
