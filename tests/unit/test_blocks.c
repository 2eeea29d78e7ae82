/*
   Unit tests of the thread blocks of a factorization (src/factor/blocks.c) and of their solve
   schedule (AIJHybridLevelsBlocks(), src/factor/levels.c), one process.

   - AIJHybridBlocksSplit: PetscSplitOwnership()'s local sizes of n rows over T ranks, for n from 0
     to 40 and T from 1 to 9.
   - AIJHybridBlocksPattern on random sorted CSR patterns: the block-diagonal part is, row by row,
     exactly the entries whose column is in the row's block (a reference filter), lo[] their first
     position; AIJHybridBlocksValues copies their values; an unsorted row is reported (nothing made).
   - AIJHybridBlocksRestrict of random permutations: a permutation, each block's positions holding
     its rows, in the order of the permutation (stable).
   - AIJHybridLevelsBlocks on the forward (L) and backward (U) patterns of a block-diagonal matrix:
     valid schedules (AIJHybridLevelsValid: every row once, dependencies before their rows), one
     level, part b the rows of block b, in place (its positions hold its rows in the serial order,
     so the kernels walk them without an order); a dependency across blocks is refused.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "factor/blocks.h"
#include "factor/levels.h"
#include "unitcheck.h"

static void TestSplit(void)
{
  for (PetscInt n = 0; n <= 40; n++)
    for (PetscInt T = 1; T <= 9; T++) {
      PetscInt  bounds[10];
      PetscBool ok = PETSC_TRUE;

      AIJHybridBlocksSplit(n, T, bounds);
      for (PetscInt t = 0; t < T; t++) /* PetscSplitOwnership()'s rule for rank t of T */
        if (bounds[t + 1] - bounds[t] != n / T + ((n % T) > t)) ok = PETSC_FALSE;
      CHECK(ok && bounds[0] == 0 && bounds[T] == n, "split of %d rows over %d blocks", (int)n, (int)T);
    }
}

/* a random sorted pattern of n rows (n columns), with the diagonal */
static PetscErrorCode RandomPattern(PetscInt n, PetscInt **ai, PetscInt **aj)
{
  PetscInt nz = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n + 1, ai, n * 12 + 1, aj));
  (*ai)[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt j = 0; j < n; j++)
      if (j == i || Uniform() < 10.0 / (n + 1)) {
        if (nz - (*ai)[i] >= 12) break;
        (*aj)[nz++] = j;
      }
    (*ai)[i + 1] = nz;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void TestPattern(void)
{
  for (PetscInt trial = 0; trial < 80; trial++) {
    const PetscInt n = trial < 3 ? trial : 2 + RandInt(120), T = 1 + RandInt(6);
    PetscInt      *ai, *aj, *bi, *bj, *lo, bounds[8];
    PetscScalar   *aa, *ba;
    PetscBool      sorted, ok = PETSC_TRUE;

    rng_state = 500 + (unsigned long long)trial;
    PetscCallVoid(RandomPattern(n, &ai, &aj));
    PetscCallVoid(PetscMalloc2(ai[n] + 1, &aa, ai[n] + 1, &ba));
    for (PetscInt k = 0; k < ai[n]; k++) aa[k] = RandScalar();
    PetscCallVoid(PetscMalloc1(n + 1, &lo));
    AIJHybridBlocksSplit(n, T, bounds);
    PetscCallVoid(AIJHybridBlocksPattern(n, ai, aj, T, bounds, lo, &bi, &bj, &sorted));
    CHECK(sorted, "sorted pattern reported unsorted");
    for (PetscInt b = 0; b < T && ok; b++)
      for (PetscInt i = bounds[b]; i < bounds[b + 1] && ok; i++) {
        PetscInt q = bi[i], first = -1;

        for (PetscInt p = ai[i]; p < ai[i + 1]; p++)
          if (aj[p] >= bounds[b] && aj[p] < bounds[b + 1]) {
            if (first < 0) first = p;
            if (q >= bi[i + 1] || bj[q] != aj[p]) ok = PETSC_FALSE;
            q++;
          }
        if (q != bi[i + 1] || (first >= 0 && lo[i] != first)) ok = PETSC_FALSE;
      }
    CHECK(ok, "block-diagonal part of %d rows, %d blocks", (int)n, (int)T);
    AIJHybridBlocksValues(0, n, lo, bi, aa, ba);
    for (PetscInt i = 0; i < n && ok; i++)
      for (PetscInt q = bi[i]; q < bi[i + 1]; q++)
        if (!Same(&ba[q], &aa[lo[i] + q - bi[i]], 1)) ok = PETSC_FALSE;
    CHECK(ok, "values of the block-diagonal part");
    PetscCallVoid(PetscFree2(bi, bj));
    if (n > 2 && ai[1] - ai[0] >= 2) { /* an unsorted row */
      const PetscInt t = aj[0];

      aj[0] = aj[1];
      aj[1] = t;
      PetscCallVoid(AIJHybridBlocksPattern(n, ai, aj, T, bounds, lo, &bi, &bj, &sorted));
      CHECK(!sorted && !bi && !bj, "unsorted pattern not reported");
    }
    PetscCallVoid(PetscFree(lo));
    PetscCallVoid(PetscFree2(aa, ba));
    PetscCallVoid(PetscFree2(ai, aj));
  }
}

static void TestRestrict(void)
{
  for (PetscInt trial = 0; trial < 60; trial++) {
    const PetscInt n = trial < 3 ? trial : 1 + RandInt(200), T = 1 + RandInt(7);
    PetscInt      *perm, *out, *seen, bounds[9];
    PetscBool      ok = PETSC_TRUE;

    rng_state = 900 + (unsigned long long)trial;
    PetscCallVoid(PetscMalloc3(n + 1, &perm, n + 1, &out, n + 1, &seen));
    for (PetscInt i = 0; i < n; i++) perm[i] = i;
    for (PetscInt i = n - 1; i > 0; i--) { /* Fisher-Yates */
      const PetscInt j = RandInt(i + 1), t = perm[i];

      perm[i] = perm[j];
      perm[j] = t;
    }
    AIJHybridBlocksSplit(n, T, bounds);
    PetscCallVoid(AIJHybridBlocksRestrict(n, T, bounds, trial % 5 ? perm : NULL, out));
    for (PetscInt i = 0; i < n; i++) seen[i] = 0;
    for (PetscInt b = 0; b < T; b++) {
      PetscInt last = -1;

      for (PetscInt q = bounds[b]; q < bounds[b + 1]; q++) {
        const PetscInt r  = out[q];
        PetscInt       at = -1;

        if (r < bounds[b] || r >= bounds[b + 1] || seen[r]++) {
          ok = PETSC_FALSE;
          continue;
        }
        for (PetscInt k = 0; k < n; k++) /* its position in the permutation: after the block's previous row */
          if ((trial % 5 ? perm[k] : k) == r) at = k;
        if (at <= last) ok = PETSC_FALSE;
        last = at;
      }
    }
    CHECK(ok, "restricted ordering of %d rows, %d blocks", (int)n, (int)T);
    PetscCallVoid(PetscFree3(perm, out, seen));
  }
}

static void TestSchedule(void)
{
  for (PetscInt trial = 0; trial < 60; trial++) {
    const PetscInt  n = trial < 3 ? trial : 2 + RandInt(150), T = 1 + RandInt(6);
    PetscInt       *ai, *aj, *lo, *bi, *bj, *lptr, *lind, *uptr, *uind, bounds[8], nl = 0, nu = 0;
    PetscBool       sorted, ok;
    AIJHybridLevels lv;

    rng_state = 1300 + (unsigned long long)trial;
    PetscCallVoid(RandomPattern(n, &ai, &aj));
    PetscCallVoid(PetscMalloc1(n + 1, &lo));
    AIJHybridBlocksSplit(n, T, bounds);
    PetscCallVoid(AIJHybridBlocksPattern(n, ai, aj, T, bounds, lo, &bi, &bj, &sorted));
    /* its strictly lower (forward dependencies) and strictly upper (backward) parts */
    PetscCallVoid(PetscMalloc4(n + 1, &lptr, bi[n] + 1, &lind, n + 1, &uptr, bi[n] + 1, &uind));
    lptr[0] = uptr[0] = 0;
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt q = bi[i]; q < bi[i + 1]; q++) {
        if (bj[q] < i) lind[nl++] = bj[q];
        if (bj[q] > i) uind[nu++] = bj[q];
      }
      lptr[i + 1] = nl;
      uptr[i + 1] = nu;
    }
    for (PetscInt dir = 0; dir < 2; dir++) {
      const PetscBool forward = (PetscBool)(dir == 0);
      const PetscInt *ptr = forward ? lptr : uptr, *ind = forward ? lind : uind;

      PetscCallVoid(AIJHybridLevelsBlocks(n, ptr, ptr + 1, ind, forward, T, bounds, &lv));
      PetscCallVoid(AIJHybridLevelsValid(&lv, ptr, ptr + 1, ind, forward, PETSC_FALSE, &ok));
      CHECK(ok && lv.nlevels == (n ? 1 : 0) && lv.nthreads == T, "block schedule of %d rows, %d blocks, %s", (int)n, (int)T, forward ? "forward" : "backward");
      for (PetscInt b = 0; b < T && n; b++) CHECK(lv.tb[b] == bounds[b] && lv.tb[b + 1] == bounds[b + 1], "part %d is block %d", (int)b, (int)b);
      CHECK(lv.inplace && !AIJHybridLevelsOrder(&lv), "block schedule not in place");
      for (PetscInt b = 0; b < T && n; b++) /* in place: the positions of part b hold its rows, in the serial order */
        for (PetscInt q = bounds[b]; q < bounds[b + 1]; q++) CHECK(lv.order[q] == (forward ? q : bounds[b] + bounds[b + 1] - 1 - q), "block schedule row at position %d", (int)q);
      PetscCallVoid(AIJHybridLevelsDestroy(&lv));
    }
    if (T > 1 && bounds[1] > 0 && bounds[1] < n) { /* a dependency across blocks is refused: row bounds[1] (block 1) on row 0 (block 0) */
      const PetscInt i = bounds[1], cind[1] = {0};
      PetscInt      *dptr;
      PetscErrorCode ierr;

      PetscCallVoid(PetscCalloc1(n + 1, &dptr));
      for (PetscInt k = i + 1; k <= n; k++) dptr[k] = 1;
      PetscCallVoid(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = AIJHybridLevelsBlocks(n, dptr, dptr + 1, cind, PETSC_TRUE, T, bounds, &lv);
      PetscCallVoid(PetscPopErrorHandler());
      CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "a dependency across blocks was accepted");
      PetscCallVoid(PetscFree(dptr));
    }
    PetscCallVoid(PetscFree4(lptr, lind, uptr, uind));
    PetscCallVoid(PetscFree2(bi, bj));
    PetscCallVoid(PetscFree(lo));
    PetscCallVoid(PetscFree2(ai, aj));
  }
}

int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  TestSplit();
  TestPattern();
  TestRestrict();
  TestSchedule();
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
