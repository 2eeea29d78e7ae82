/*
   Unit tests of the pure partitioners in src/partition (no MPI communication, one process).

   Properties checked on seeded random cost profiles (uniform, heavy-tailed, a dense region beside a
   sparse one, zero-nonzero rows, more threads than rows):
     - every partitioner returns contiguous bounds covering every row once, no empty thread when
       rows >= threads;
     - optimal equals a brute-force optimum on small cases, and is never beaten by the others;
     - diffusion is never worse than its greedy start;
     - greedy is within one row's cost of the ideal max(total/T) bound;
     - rows gives equal row counts;
     - the task share part (task mode's thread 0) is the leading rows whose cost is nearest to the share
       of an equal part (checked against a scan of every r0), empty for share 0, and leaves every
       other thread a row when rows >= threads.
   Prints "N passed, N failed" and exits non-zero on any failure.
*/
#include "partition/partition.h"
#include "unitcheck.h"

/* exhaustive minimum bottleneck over all contiguous partitions of [s, n) into parts pieces */
static PetscReal BruteForce(const AIJHybridCost *cost, PetscInt s, PetscInt parts)
{
  PetscReal best;

  if (parts == 1 || s == cost->n) return AIJHybridCostRange(cost, s, cost->n);
  best = PETSC_MAX_REAL;
  for (PetscInt e = s; e <= cost->n; e++) {
    PetscReal rest = BruteForce(cost, e, parts - 1);
    PetscReal b    = PetscMax(AIJHybridCostRange(cost, s, e), rest);
    best           = PetscMin(best, b);
  }
  return best;
}

typedef enum {
  PROFILE_UNIFORM,
  PROFILE_HEAVY,
  PROFILE_REGION,
  PROFILE_ZEROS,
  PROFILE_ALLZERO,
  NPROFILES
} Profile;
static const char *profile_names[] = {"uniform", "heavy-tailed", "dense-region", "zero-rows", "all-zero"};

static void MakeRowptr(Profile p, PetscInt n, PetscInt *rowptr)
{
  rowptr[0] = 3; /* need not start at 0 */
  for (PetscInt i = 0; i < n; i++) {
    PetscInt len = 0;
    switch (p) {
    case PROFILE_UNIFORM:
      len = 5 + (PetscInt)(3 * Uniform());
      break;
    case PROFILE_HEAVY:
      len = (PetscInt)(2.0 / PetscPowReal(Uniform() + 1e-3, 0.8));
      break;
    case PROFILE_REGION:
      len = i < n / 3 ? 27 : 7;
      break;
    case PROFILE_ZEROS:
      len = Uniform() < 0.5 ? 0 : (PetscInt)(10 * Uniform());
      break;
    case PROFILE_ALLZERO:
    default:
      len = 0;
      break;
    }
    rowptr[i + 1] = rowptr[i] + len;
  }
}

static void CheckValid(const char *name, PetscInt n, PetscInt T, const PetscInt *bounds, const char *profile)
{
  PetscBool valid;
  AIJHybridPartitionValid(n, T, bounds, &valid);
  CHECK(valid, "%s partition invalid: n=%" PetscInt_FMT " T=%" PetscInt_FMT " profile=%s", name, n, T, profile);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int trial = 0; trial < 400; trial++) {
    const Profile   p     = (Profile)(trial % NPROFILES);
    const PetscInt  small = trial % 2 == 0;
    const PetscInt  n     = small ? 1 + (PetscInt)(10 * Uniform()) : 1 + (PetscInt)(5000 * Uniform());
    const PetscInt  T     = 1 + (PetscInt)((small ? 5 : 16) * Uniform());
    const PetscReal c     = (trial / NPROFILES) % 3 == 0 ? 0.0 : (trial % 3 == 1 ? 1.0 : 2.5);
    PetscInt       *rowptr, *brows, *bgreedy, *bdiff, *bopt, sweeps;
    AIJHybridCost   cost;
    PetscReal       total, maxrow = 0, mrows, mgreedy, mdiff, mopt, imb;

    PetscCall(PetscMalloc5(n + 1, &rowptr, T + 1, &brows, T + 1, &bgreedy, T + 1, &bdiff, T + 1, &bopt));
    MakeRowptr(p, n, rowptr);
    cost.n      = n;
    cost.rowptr = rowptr;
    cost.c      = c;
    total       = AIJHybridCostRange(&cost, 0, n);
    for (PetscInt i = 0; i < n; i++) maxrow = PetscMax(maxrow, AIJHybridCostRange(&cost, i, i + 1));

    PetscCall(AIJHybridPartitionRows(n, T, brows));
    PetscCall(AIJHybridPartitionGreedy(&cost, T, bgreedy));
    PetscCall(AIJHybridPartitionDiffusion(&cost, T, 0.0, 100, bdiff, &sweeps));
    PetscCall(AIJHybridPartitionOptimal(&cost, T, bopt));
    CheckValid("rows", n, T, brows, profile_names[p]);
    CheckValid("greedy", n, T, bgreedy, profile_names[p]);
    CheckValid("diffusion", n, T, bdiff, profile_names[p]);
    CheckValid("optimal", n, T, bopt, profile_names[p]);
    for (PetscInt t = 0; t < T; t++) CHECK(brows[t + 1] - brows[t] == n / T + (t < n % T), "rows: unequal counts n=%" PetscInt_FMT " T=%" PetscInt_FMT, n, T);

    PetscCall(AIJHybridPartitionBottleneck(&cost, T, brows, &mrows));
    PetscCall(AIJHybridPartitionBottleneck(&cost, T, bgreedy, &mgreedy));
    PetscCall(AIJHybridPartitionBottleneck(&cost, T, bdiff, &mdiff));
    PetscCall(AIJHybridPartitionBottleneck(&cost, T, bopt, &mopt));
    CHECK(mdiff <= mgreedy, "diffusion worse than greedy: %g > %g (n=%" PetscInt_FMT " T=%" PetscInt_FMT " %s)", (double)mdiff, (double)mgreedy, n, T, profile_names[p]);
    CHECK(mopt <= mgreedy && mopt <= mdiff && mopt <= mrows, "optimal beaten: opt %g greedy %g diff %g rows %g", (double)mopt, (double)mgreedy, (double)mdiff, (double)mrows);
    CHECK(mgreedy <= total / T + maxrow + 1e-9 * (1 + total), "greedy above ideal + max row: %g > %g + %g", (double)mgreedy, (double)(total / T), (double)maxrow);
    PetscCall(AIJHybridPartitionImbalance(&cost, T, bopt, &imb));
    CHECK(imb >= 1.0 - 1e-12, "imbalance below 1: %g", (double)imb);
    if (small && T <= 5) {
      PetscReal bf = BruteForce(&cost, 0, T);
      CHECK(PetscAbsReal(bf - mopt) <= 1e-12 * (1 + bf), "optimal %g != brute force %g (n=%" PetscInt_FMT " T=%" PetscInt_FMT " c=%g %s)", (double)mopt, (double)bf, n, T, (double)c, profile_names[p]);
    }
    PetscCall(PetscFree5(rowptr, brows, bgreedy, bdiff, bopt));
  }

  /* the case the paper's diffusion is for: a dense region beside a sparse one */
  {
    const PetscInt n = 30000, T = 4;
    PetscInt      *rowptr, b[5], sweeps;
    AIJHybridCost  cost;
    PetscReal      imb_rows, imb_nnz, imb_diff;

    PetscCall(PetscMalloc1(n + 1, &rowptr));
    MakeRowptr(PROFILE_REGION, n, rowptr);
    cost.n      = n;
    cost.rowptr = rowptr;
    cost.c      = 2.0;
    PetscCall(AIJHybridPartitionRows(n, T, b));
    PetscCall(AIJHybridPartitionImbalance(&cost, T, b, &imb_rows));
    PetscCall(AIJHybridPartitionGreedy(&cost, T, b));
    PetscCall(AIJHybridPartitionImbalance(&cost, T, b, &imb_nnz));
    PetscCall(AIJHybridPartitionDiffusion(&cost, T, 1e-4, 50, b, &sweeps));
    PetscCall(AIJHybridPartitionImbalance(&cost, T, b, &imb_diff));
    CHECK(imb_rows > 1.5, "rows should be imbalanced on a dense region: %g", (double)imb_rows);
    CHECK(imb_nnz < 1.001 && imb_diff < 1.001, "balanced partitions should be near 1: nnz %g diffusion %g", (double)imb_nnz, (double)imb_diff);
    printf("dense region, 4 threads: imbalance rows %.4f nnz %.4f diffusion %.4f (%" PetscInt_FMT " sweeps)\n", (double)imb_rows, (double)imb_nnz, (double)imb_diff, sweeps);
    PetscCall(PetscFree(rowptr));
  }

  /* the part of task mode's thread 0 (its task share) */
  for (int trial = 0; trial < 300; trial++) {
    const Profile   p     = (Profile)(trial % NPROFILES);
    const PetscInt  n     = 1 + (PetscInt)((trial % 2 ? 40 : 3000) * Uniform());
    const PetscInt  T     = 1 + (PetscInt)(8 * Uniform());
    const PetscReal share = trial % 5 == 0 ? 0.0 : (trial % 5 == 1 ? 1.0 : Uniform());
    PetscInt       *rowptr, r0, best = 0;
    AIJHybridCost   cost;
    PetscReal       target, bestd = PETSC_MAX_REAL;

    PetscCall(PetscMalloc1(n + 1, &rowptr));
    MakeRowptr(p, n, rowptr);
    cost.n      = n;
    cost.rowptr = rowptr;
    cost.c      = trial % 3 ? 2.0 : 0.0;
    target      = share * AIJHybridCostRange(&cost, 0, n) / T;
    PetscCall(AIJHybridPartitionTaskShare(&cost, T, share, &r0));
    for (PetscInt r = 0; r <= n; r++) { /* nearest, ties to the smaller r */
      const PetscReal d = PetscAbsReal(AIJHybridCostRange(&cost, 0, r) - target);
      if (d < bestd) {
        bestd = d;
        best  = r;
      }
    }
    if (n >= T) best = PetscMin(best, n - (T - 1));
    CHECK(r0 >= 0 && r0 <= n, "task share: r0 %" PetscInt_FMT " outside [0, %" PetscInt_FMT "]", r0, n);
    CHECK(PetscAbsReal(AIJHybridCostRange(&cost, 0, r0) - target) <= PetscAbsReal(AIJHybridCostRange(&cost, 0, best) - target) + 1e-9,
          "task share: r0 %" PetscInt_FMT " not nearest (%" PetscInt_FMT ") to %g (n=%" PetscInt_FMT " T=%" PetscInt_FMT " share %g %s)", r0, best, (double)target, n, T, (double)share, profile_names[p]);
    if (share == 0.0) CHECK(r0 == 0, "task share: share 0 gives %" PetscInt_FMT " rows", r0);
    if (n >= T) CHECK(n - r0 >= T - 1, "task share: %" PetscInt_FMT " rows left for %" PetscInt_FMT " threads", n - r0, T - 1);
    PetscCall(PetscFree(rowptr));
  }

  /* more threads than rows, and zero rows */
  {
    PetscInt      rowptr[4] = {0, 5, 5, 9}, b[8], sweeps;
    AIJHybridCost cost      = {3, rowptr, 1.0};
    PetscCall(AIJHybridPartitionGreedy(&cost, 7, b));
    CheckValid("greedy T>n", 3, 7, b, "tiny");
    for (PetscInt t = 0; t < 7; t++) CHECK(b[t + 1] - b[t] == (t < 3 ? 1 : 0), "T>n: thread %" PetscInt_FMT " has %" PetscInt_FMT " rows", t, b[t + 1] - b[t]);
    PetscCall(AIJHybridPartitionDiffusion(&cost, 7, 0.0, 10, b, &sweeps));
    CheckValid("diffusion T>n", 3, 7, b, "tiny");
    PetscCall(AIJHybridPartitionOptimal(&cost, 7, b));
    CheckValid("optimal T>n", 3, 7, b, "tiny");
    cost.n = 0;
    PetscCall(AIJHybridPartitionOptimal(&cost, 3, b));
    CheckValid("optimal n=0", 0, 3, b, "empty");
    PetscCall(AIJHybridPartitionGreedy(&cost, 3, b));
    CheckValid("greedy n=0", 0, 3, b, "empty");
  }

  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
