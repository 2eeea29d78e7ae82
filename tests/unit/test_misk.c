/*
   Unit tests of the coarsener's greedy MIS kernels (src/coarsen/miskplan.c), one process, no PETSc
   objects: AIJHybridMISGreedyRounds (the roots decided in rounds on threads) against
   AIJHybridMISGreedy (PETSc's MISK sweep on one rank, the reference), entry for entry, on 1 to 3
   threads:
     - random graphs with a symmetric pattern (sorted rows, with or without the diagonal, isolated
       vertices, rows whose one entry is off the diagonal), random greedy orders and the natural one;
     - 3D 7-point grids in the natural, the reversed and a random order (GAMG's shuffle);
     - what the rounds refuse (-2: the caller takes the serial sweep): an order that lists a vertex
       twice, a pattern that is not symmetric, a row that is not sorted; an order with an entry out
       of range: -1 like the sweep;
     - the rule itself on a path (roots every other vertex from the first in the order);
     - the rounds finish a shuffled 3D grid nearly alone (at most 40 rounds, the serial sweep gets at
       most 1% of the vertices).
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "coarsen/miskplan.h"
#include "unitcheck.h"

typedef struct {
  PetscInt  n;
  PetscInt *i, *j;
} Graph;

/* a symmetric pattern from an n x n 0/1 array (row r: the columns c with adj[r n + c], in order) */
static void FromDense(PetscInt n, const char *adj, Graph *G)
{
  PetscInt nz = 0;

  for (PetscInt k = 0; k < n * n; k++) nz += adj[k] != 0;
  G->n = n;
  PetscCallVoid(PetscMalloc2(n + 1, &G->i, nz + 1, &G->j));
  G->i[0] = nz = 0;
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt c = 0; c < n; c++)
      if (adj[r * n + c]) G->j[nz++] = c;
    G->i[r + 1] = nz;
  }
}

/* random symmetric pattern: about `degree` neighbours a vertex, a fraction `isolated` of vertices with none, the diagonal with probability `diag` */
static void RandomGraph(PetscInt n, PetscReal degree, PetscReal isolated, PetscReal diag, Graph *G)
{
  char *adj, *iso;

  PetscCallVoid(PetscCalloc2(n * n + 1, &adj, n + 1, &iso));
  for (PetscInt v = 0; v < n; v++) iso[v] = Uniform() < isolated;
  for (PetscInt e = 0; e < (PetscInt)(n * degree / 2); e++) {
    const PetscInt a = RandInt(n), b = RandInt(n);

    if (a != b && !iso[a] && !iso[b]) adj[a * n + b] = adj[b * n + a] = 1;
  }
  for (PetscInt v = 0; v < n; v++)
    if (Uniform() < diag) adj[v * n + v] = 1;
  FromDense(n, adj, G);
  PetscCallVoid(PetscFree2(adj, iso));
}

/* the 7-point pattern of an m^3 grid, lexicographic */
static void Grid(PetscInt m, Graph *G)
{
  const PetscInt n  = m * m * m;
  PetscInt       nz = 0;

  G->n = n;
  PetscCallVoid(PetscMalloc2(n + 1, &G->i, 7 * n + 1, &G->j));
  G->i[0] = 0;
  for (PetscInt z = 0; z < m; z++)
    for (PetscInt y = 0; y < m; y++)
      for (PetscInt x = 0; x < m; x++) {
        const PetscInt v = (z * m + y) * m + x;

        if (z > 0) G->j[nz++] = v - m * m;
        if (y > 0) G->j[nz++] = v - m;
        if (x > 0) G->j[nz++] = v - 1;
        G->j[nz++] = v;
        if (x < m - 1) G->j[nz++] = v + 1;
        if (y < m - 1) G->j[nz++] = v + m;
        if (z < m - 1) G->j[nz++] = v + m * m;
        G->i[v + 1] = nz;
      }
}

static void FreeGraph(Graph *G)
{
  PetscCallVoid(PetscFree2(G->i, G->j));
}

/* the rounds on 1 to 3 threads give the sweep's roots, entry for entry, and its count; stats: the last run's */
static void Compare(const char *what, const Graph *G, const PetscInt *perm, PetscInt *stats)
{
  PetscInt *ref, *root, *work, nref;

  PetscCallVoid(PetscMalloc3(G->n + 1, &ref, G->n + 1, &root, 2 * G->n + 1, &work));
  nref = AIJHybridMISGreedy(G->n, G->i, G->j, perm, ref);
  CHECK(nref >= 0, "%s: the sweep failed (%" PetscInt_FMT ")", what, nref);
  for (PetscInt nt = 1; nt <= 3; nt++) {
    PetscInt nsel, diff = 0;

    for (PetscInt v = 0; v < G->n; v++) root[v] = -7;
    nsel = AIJHybridMISGreedyRounds(G->n, G->i, G->j, perm, nt, work, root, stats);
    for (PetscInt v = 0; v < G->n; v++) diff += root[v] != ref[v];
    CHECK(nsel == nref && diff == 0, "%s, %" PetscInt_FMT " thread(s): %" PetscInt_FMT " roots against %" PetscInt_FMT ", %" PetscInt_FMT " of %" PetscInt_FMT " vertices differ", what, nt, nsel, nref, diff, G->n);
  }
  PetscCallVoid(PetscFree3(ref, root, work));
}

static void TestRandom(PetscInt n, PetscReal degree, PetscReal isolated, PetscReal diag)
{
  Graph     G;
  PetscInt *perm;
  char      what[128];

  RandomGraph(n, degree, isolated, diag, &G);
  PetscCallVoid(PetscMalloc1(n + 1, &perm));
  RandPerm(n, perm);
  PetscCallVoid(PetscSNPrintf(what, sizeof(what), "random graph n=%" PetscInt_FMT " degree %.1f, random order", n, (double)degree));
  Compare(what, &G, perm, NULL);
  PetscCallVoid(PetscSNPrintf(what, sizeof(what), "random graph n=%" PetscInt_FMT " degree %.1f, natural order", n, (double)degree));
  Compare(what, &G, NULL, NULL);
  PetscCallVoid(PetscFree(perm));
  FreeGraph(&G);
}

static void TestGrid(PetscInt m)
{
  Graph     G;
  PetscInt *perm, stats[2];

  Grid(m, &G);
  PetscCallVoid(PetscMalloc1(G.n + 1, &perm));
  RandPerm(G.n, perm);
  Compare("grid, random order", &G, perm, stats);
  if (m >= 24) CHECK(stats[0] <= 40 && stats[1] * 100 <= G.n, "grid %" PetscInt_FMT "^3, random order: %" PetscInt_FMT " rounds, %" PetscInt_FMT " vertices left to the sweep", m, stats[0], stats[1]);
  Compare("grid, natural order", &G, NULL, NULL);
  for (PetscInt k = 0; k < G.n; k++) perm[k] = G.n - 1 - k;
  Compare("grid, reversed order", &G, perm, NULL);
  PetscCallVoid(PetscFree(perm));
  FreeGraph(&G);
}

/* what the rounds refuse, and the rule on a path */
static void TestRefusals(void)
{
  const PetscInt n       = 6;
  char           adj[36] = {0};
  Graph          G;
  PetscInt       perm[6], root[6], work[12], nsel;

  for (PetscInt v = 0; v < n; v++) adj[v * n + v] = 1; /* with the diagonal: no singletons */
  for (PetscInt v = 0; v + 1 < n; v++) adj[v * n + v + 1] = adj[(v + 1) * n + v] = 1;
  FromDense(n, adj, &G);
  nsel = AIJHybridMISGreedyRounds(n, G.i, G.j, NULL, 2, work, root, NULL);
  CHECK(nsel == 3 && root[0] == 0 && root[1] == 0 && root[2] == 2 && root[3] == 2 && root[4] == 4 && root[5] == 4, "path, natural order: %" PetscInt_FMT " roots", nsel);
  for (PetscInt k = 0; k < n; k++) perm[k] = n - 1 - k;
  nsel = AIJHybridMISGreedyRounds(n, G.i, G.j, perm, 2, work, root, NULL);
  CHECK(nsel == 3 && root[5] == 5 && root[4] == 5 && root[3] == 3 && root[1] == 1 && root[0] == 1, "path, reversed order: %" PetscInt_FMT " roots", nsel);
  for (PetscInt k = 0; k < n; k++) perm[k] = k;
  perm[4] = 1; /* 1 twice, 4 never */
  CHECK(AIJHybridMISGreedyRounds(n, G.i, G.j, perm, 2, work, root, NULL) == -2, "an order listing a vertex twice is refused");
  perm[4] = n; /* out of range */
  CHECK(AIJHybridMISGreedyRounds(n, G.i, G.j, perm, 2, work, root, NULL) == -1 && AIJHybridMISGreedy(n, G.i, G.j, perm, root) == -1, "an entry out of range: -1");
  FreeGraph(&G);
  adj[0 * n + 0] = adj[n * n - 1] = 0; /* without the diagonal the ends are singletons: out, unless a root takes them */
  FromDense(n, adj, &G);
  nsel = AIJHybridMISGreedyRounds(n, G.i, G.j, NULL, 2, work, root, NULL);
  CHECK(nsel == 2 && root[0] == 1 && root[1] == 1 && root[2] == 1 && root[3] == 3 && root[4] == 3 && root[5] == -1, "path with singleton ends: %" PetscInt_FMT " roots", nsel);
  FreeGraph(&G);
  adj[0 * n + 0] = adj[n * n - 1] = 1;
  adj[0 * n + 3]                  = 1; /* 0 -> 3 but not 3 -> 0 */
  FromDense(n, adj, &G);
  CHECK(AIJHybridMISGreedyRounds(n, G.i, G.j, NULL, 2, work, root, NULL) == -2, "a pattern that is not symmetric is refused");
  FreeGraph(&G);
  adj[0 * n + 3] = 0;
  FromDense(n, adj, &G);
  {
    const PetscInt t = G.j[G.i[1]]; /* row 1 is (0, 1, 2): swap the first two */

    G.j[G.i[1]]     = G.j[G.i[1] + 1];
    G.j[G.i[1] + 1] = t;
  }
  CHECK(AIJHybridMISGreedyRounds(n, G.i, G.j, NULL, 2, work, root, NULL) == -2, "a row that is not sorted is refused");
  FreeGraph(&G);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rng_state = 20261129;
  TestRefusals();
  TestRandom(1, 0.0, 0.0, 1.0);
  TestRandom(2, 2.0, 0.0, 0.0);
  TestRandom(40, 3.0, 0.1, 1.0);
  TestRandom(200, 6.0, 0.05, 0.5);
  TestRandom(300, 1.5, 0.2, 0.0); /* many rows with one entry off the diagonal */
  for (PetscInt k = 0; k < 20; k++) TestRandom(1 + RandInt(400), 8.0 * Uniform(), 0.2 * Uniform(), Uniform());
  TestGrid(1);
  TestGrid(4);
  TestGrid(24);
  TestGrid(48);
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
