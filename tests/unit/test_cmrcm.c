/*
   Unit tests of the CM-RCM ordering (src/factor/cmrcm.c), one process.

   On 2D 5-point and 3D 7-point and 27-point grids, random patterns (not symmetric, with and without
   the diagonal, duplicates), disconnected graphs and tiny cases, for 1 to 24 colors:
     - the result is a permutation;
     - the coloring is proper: no two vertices of one color are adjacent in A + A^T;
     - the colors come one after the other in the new order;
     - on grids, whose RCM levels are independent sets (5- and 7-point), exactly min(colors, levels)
       colors are used and every vertex has the color (level mod colors) (checked through the
       ILU(0) level count below);
     - the lower triangle of the reordered matrix (the L of ILU(0)) has at most as many levels as
       colors used, and exactly that many on the 5- and 7-point grids;
     - the same input gives the same output.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "factor/cmrcm.h"
#include "factor/levels.h"
#include "unitcheck.h"

typedef struct {
  PetscInt  n;
  PetscInt *ia, *ja;
} Pattern;

static void Free(Pattern *p)
{
  PetscCallVoid(PetscFree(p->ia));
  PetscCallVoid(PetscFree(p->ja));
}

/* grid of mx x my x mz points, stencil 5/7 (star) or 9/27 (box) */
static void Grid(PetscInt mx, PetscInt my, PetscInt mz, PetscBool box, Pattern *p)
{
  const PetscInt n  = mx * my * mz;
  PetscInt       nz = 0;

  p->n = n;
  PetscCallVoid(PetscMalloc1(n + 1, &p->ia));
  PetscCallVoid(PetscMalloc1(27 * n + 1, &p->ja));
  p->ia[0] = 0;
  for (PetscInt k = 0; k < mz; k++)
    for (PetscInt j = 0; j < my; j++)
      for (PetscInt i = 0; i < mx; i++) {
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              const PetscInt ii = i + di, jj = j + dj, kk = k + dk, far = PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk);

              if (ii < 0 || jj < 0 || kk < 0 || ii >= mx || jj >= my || kk >= mz) continue;
              if (!box && far > 1) continue;
              p->ja[nz++] = ii + mx * (jj + my * kk);
            }
        p->ia[i + mx * (j + my * k) + 1] = nz;
      }
}

/* random nonsymmetric pattern, some rows without diagonal, duplicate entries; components
   unconnected when split */
static void Random(PetscInt n, PetscInt deg, PetscBool split, Pattern *p)
{
  PetscInt nz = 0;

  p->n = n;
  PetscCallVoid(PetscMalloc1(n + 1, &p->ia));
  PetscCallVoid(PetscMalloc1((deg + 2) * n + 1, &p->ja));
  p->ia[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt k = RandInt(deg + 1), lo = split && i >= n / 2 ? n / 2 : 0, hi = split && i < n / 2 ? n / 2 : n;

    if (RandInt(4)) p->ja[nz++] = i;
    for (PetscInt q = 0; q < k; q++) p->ja[nz++] = lo + RandInt(hi - lo);
    if (k && RandInt(3) == 0) { /* a duplicate */
      p->ja[nz] = p->ja[nz - 1];
      nz++;
    }
    p->ia[i + 1] = nz;
  }
}

/* symmetric adjacency test: a and b adjacent in A + A^T */
static PetscBool Adjacent(const Pattern *p, PetscInt a, PetscInt b)
{
  for (PetscInt q = p->ia[a]; q < p->ia[a + 1]; q++)
    if (p->ja[q] == b) return PETSC_TRUE;
  for (PetscInt q = p->ia[b]; q < p->ia[b + 1]; q++)
    if (p->ja[q] == a) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* levels of the L of ILU(0) of the reordered matrix: new row k depends on new columns < k of
   A + A^T (the symmetric structure PETSc's ILU of a structurally symmetric matrix has) */
static PetscInt LowerLevels(const Pattern *p, const PetscInt perm[])
{
  const PetscInt  n = p->n;
  PetscInt       *inv, *ptr, *ind, nz = 0, nl;
  AIJHybridLevels lv;

  PetscCallAbort(PETSC_COMM_SELF, PetscMalloc3(n, &inv, n + 1, &ptr, 2 * (p->n ? p->ia[n] : 0) + 1, &ind));
  for (PetscInt k = 0; k < n; k++) inv[perm[k]] = k;
  ptr[0] = 0;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt i = perm[k];

    for (PetscInt q = p->ia[i]; q < p->ia[i + 1]; q++)
      if (inv[p->ja[q]] < k) ind[nz++] = inv[p->ja[q]];
    for (PetscInt j = 0; j < n && nz < 2 * p->ia[n]; j++) /* columns j with an entry (j, i): transpose */
      for (PetscInt q = p->ia[j]; q < p->ia[j + 1]; q++)
        if (p->ja[q] == i && inv[j] < k) ind[nz++] = inv[j];
    ptr[k + 1] = nz;
  }
  PetscCallAbort(PETSC_COMM_SELF, AIJHybridLevelsBuild(n, ptr, ptr + 1, ind, PETSC_TRUE, 1, 1, &lv));
  nl = lv.nlevels;
  PetscCallAbort(PETSC_COMM_SELF, AIJHybridLevelsDestroy(&lv));
  PetscCallAbort(PETSC_COMM_SELF, PetscFree3(inv, ptr, ind));
  return nl;
}

static void Check(const char *name, const Pattern *p, PetscInt ncolors, PetscBool independent_levels)
{
  const PetscInt n = p->n;
  PetscInt      *perm, *perm2, *color, *seen, nused, nused2, bad = 0;

  PetscCallVoid(PetscMalloc4(n + 1, &perm, n + 1, &perm2, n + 1, &color, n + 1, &seen));
  PetscCallVoid(AIJHybridCMRCM(n, p->ia, p->ja, ncolors, perm, color, &nused));
  /* permutation */
  for (PetscInt i = 0; i < n; i++) seen[i] = 0;
  for (PetscInt k = 0; k < n; k++) {
    if (perm[k] < 0 || perm[k] >= n || seen[perm[k]]) bad++;
    else seen[perm[k]] = 1;
  }
  CHECK(!bad, "%s, %d colors: not a permutation (%d bad)", name, (int)ncolors, (int)bad);
  if (bad) goto done;
  /* proper coloring, colors in blocks */
  for (PetscInt i = 0; i < n; i++) {
    if (color[i] < 0 || color[i] >= nused) bad++;
    for (PetscInt q = p->ia[i]; q < p->ia[i + 1]; q++)
      if (p->ja[q] != i && color[p->ja[q]] == color[i]) bad++;
  }
  CHECK(!bad, "%s, %d colors: two adjacent vertices share a color (%d)", name, (int)ncolors, (int)bad);
  for (PetscInt k = 1; k < n; k++)
    if (color[perm[k]] < color[perm[k - 1]]) bad++;
  CHECK(!bad, "%s, %d colors: the colors are not one after the other", name, (int)ncolors);
  if (n) CHECK(nused >= 1 && (!independent_levels || nused <= ncolors), "%s, %d colors: %d used", name, (int)ncolors, (int)nused);
  /* the L of ILU(0) of the reordered matrix: at most one level per color */
  if (n <= 4000) {
    const PetscInt nl = LowerLevels(p, perm);

    CHECK(nl <= nused, "%s, %d colors: %d ILU(0) levels > %d colors", name, (int)ncolors, (int)nl, (int)nused);
    if (independent_levels) CHECK(nl == nused, "%s, %d colors: %d ILU(0) levels for %d colors", name, (int)ncolors, (int)nl, (int)nused);
  }
  /* within a color: no two vertices adjacent also means the color's rows never depend on each
     other; deterministic */
  PetscCallVoid(AIJHybridCMRCM(n, p->ia, p->ja, ncolors, perm2, NULL, &nused2));
  for (PetscInt k = 0; k < n; k++)
    if (perm[k] != perm2[k]) bad++;
  CHECK(!bad && nused == nused2, "%s, %d colors: not deterministic", name, (int)ncolors);
done:
  PetscCallVoid(PetscFree4(perm, perm2, color, seen));
}

int main(int argc, char **argv)
{
  Pattern p;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (PetscInt k = 1; k <= 24; k += (k < 6 ? 1 : 6)) {
    char name[64];

    Grid(12, 9, 1, PETSC_FALSE, &p);
    Check("2D 5-point 12x9", &p, k, k > 1);
    if (k > 1) { /* levels of a star grid from a corner are independent: exactly min(k, levels) colors */
      PetscInt *perm, nused;
      PetscCall(PetscMalloc1(p.n, &perm));
      PetscCall(AIJHybridCMRCM(p.n, p.ia, p.ja, k, perm, NULL, &nused));
      CHECK(nused == PetscMin(k, 12 + 9 - 1), "2D grid, %d colors: %d used", (int)k, (int)nused);
      PetscCall(PetscFree(perm));
    }
    Free(&p);
    Grid(7, 6, 5, PETSC_FALSE, &p);
    Check("3D 7-point 7x6x5", &p, k, k > 1);
    Free(&p);
    Grid(6, 5, 4, PETSC_TRUE, &p);
    Check("3D 27-point 6x5x4", &p, k, PETSC_FALSE);
    Free(&p);
    for (PetscInt t = 0; t < 6; t++) {
      rng_state = 99 + (unsigned long long)(t + 10 * k);
      Random(1 + RandInt(600), 1 + RandInt(7), (PetscBool)(t % 2), &p);
      PetscCall(PetscSNPrintf(name, sizeof(name), "random %d (n %d)", (int)t, (int)p.n));
      Check(name, &p, k, PETSC_FALSE);
      Free(&p);
    }
    for (PetscInt n = 0; n < 4; n++) { /* tiny: n rows, a path */
      Random(n, 0, PETSC_FALSE, &p);
      Check("tiny", &p, k, PETSC_FALSE);
      Free(&p);
    }
  }
  { /* adjacency helper sanity (the property checks rely on it) */
    Grid(3, 1, 1, PETSC_FALSE, &p);
    CHECK(Adjacent(&p, 0, 1) && !Adjacent(&p, 0, 2), "grid adjacency");
    Free(&p);
  }
  { /* invalid input */
    PetscInt       ia[2] = {0, 1}, ja[1] = {5}, perm[1], nused;
    PetscErrorCode ierr;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = AIJHybridCMRCM(1, ia, ja, 4, perm, NULL, &nused);
    CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "column out of range accepted");
    ierr = AIJHybridCMRCM(1, ia, ia, 0, perm, NULL, &nused);
    CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "zero colors accepted");
    PetscCall(PetscPopErrorHandler());
  }
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
