/*
   The measured choices of the forward products (src/mat/tune.c: software prefetch, thread 0's
   task-mode share), driven by made-up product times handed over through the test hook
   MatAIJHybridSetTestClock_C (no real time is asserted):
   - a noisy tie (both alternatives drawn from the same distribution, +-20%) keeps the default
     through every trial and re-trial: no prefetch, share 1; the other alternative is never in
     force outside the trials' own products;
   - an alternative faster by 20% (+-2% noise) is chosen: prefetch on, the sized share;
   - a default faster by 20% stays;
   - an alternative faster by 20% in 3 of every 4 pairs, the 4th an exact tie: the first trial
     cannot tell (12 of 16, 13 needed), the re-trial, at once (AIJHYBRID_TUNE_WAIT 0), counts all
     32 pairs and chooses it (24, 23 needed), and the choice reads as measuring until then;
   - a set prefetch distance or share is in force from the first product, and nothing is measured.
   The share's cases need task mode: 2 ranks or more (each with 2 threads).
   Prints "tune_choice: N checks passed, M failed"; exits non-zero on a failure.
*/
#include <petscaijhybrid.h>
#include "unitcheck.h"

typedef enum {
  AIJHYBRID_TUNE_PREFETCH_SAMPLE,
  AIJHYBRID_TUNE_SHARE_SAMPLE,
  AIJHYBRID_TUNE_SHARE_SIZED
} TuneEvent; /* as AIJHybridTuneEvent of src/mat/context.h */

/* the samples of each alternative when no trial decides: one warm-up pair, then 3 trials of 16 pairs
   (AIJHYBRID_TUNE_WARMUP, _TRIALS, _PAIRS of src/mat/context.h) */
#define PAIRS       16
#define FULL_TRIALS (1 + 3 * PAIRS)

typedef enum {
  TIE,
  OTHER_FASTER,
  DEFAULT_FASTER,
  FASTER_WITH_TIES /* OTHER_FASTER, but the warm-up pair and every 4th counted pair an exact tie */
} Scenario;

typedef struct {
  Scenario prefetch, share;
  PetscInt samples[2][2]; /* [prefetch, share][alternative]: samples handed over */
} Clock;

/* the seconds of a product that ran alternative alt (0: the default) */
static double Seconds(Scenario s, PetscInt alt)
{
  switch (s) {
  case TIE:
    return 1e-3 * (1.0 + 0.4 * (Uniform() - 0.5));
  case OTHER_FASTER:
    return (alt ? 0.8e-3 : 1e-3) * (1.0 + 0.04 * (Uniform() - 0.5));
  default:
    return (alt ? 1e-3 : 0.8e-3) * (1.0 + 0.04 * (Uniform() - 0.5));
  }
}

static double FakeClock(void *ctx, TuneEvent what, PetscInt alt)
{
  Clock         *c = (Clock *)ctx;
  const PetscInt k = what == AIJHYBRID_TUNE_SHARE_SAMPLE;
  Scenario       s = k ? c->share : c->prefetch;

  if (what == AIJHYBRID_TUNE_SHARE_SIZED) return 0.5;
  c->samples[k][alt ? 1 : 0]++;
  if (s == FASTER_WITH_TIES) {
    const PetscInt pair = (c->samples[k][0] + c->samples[k][1] - 1) / 2; /* 0: the warm-up pair */

    if (pair == 0 || pair % 4 == 0) return 1e-3;
    s = OTHER_FASTER;
  }
  return Seconds(s, alt);
}

/* a 1D Laplacian-like matrix of type aijhybrid, 2 threads per rank */
static PetscErrorCode Matrix(PetscInt n, PetscBool task, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, MATAIJHYBRID));
  PetscCall(MatSeqAIJSetPreallocation(*A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 3, NULL, 2, NULL));
  PetscCall(MatAIJHybridSetNumThreads(*A, 2));
  if (task) PetscCall(MatAIJHybridSetMode(*A, MAT_AIJHYBRID_MODE_TASK));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(*A, i, i, 4.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt  pf_measuring, pf_on, share_measuring, share_other; /* products seen in each state */
  PetscInt  pf_final;
  PetscReal share_final;
} Seen;

/* nprod products of A with the made-up clock; what the Get functions said after each */
static PetscErrorCode Run(Mat A, Clock *clock, PetscInt nprod, Seen *seen)
{
  PetscErrorCode (*set)(Mat, double (*)(void *, TuneEvent, PetscInt), void *) = NULL;
  Vec x, y;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatAIJHybridSetTestClock_C", &set));
  PetscCheck(set, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no test clock hook on this matrix");
  PetscCall(set(A, FakeClock, clock));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(PetscMemzero(seen, sizeof(*seen)));
  for (PetscInt k = 0; k < nprod; k++) {
    PetscInt  pf;
    PetscReal share;

    PetscCall(MatMult(A, x, y));
    PetscCall(MatAIJHybridGetPrefetch(A, NULL, &pf));
    PetscCall(MatAIJHybridGetTaskShare(A, NULL, &share));
    if (pf < 0) seen->pf_measuring++;
    else if (pf > 0) seen->pf_on++;
    if (share < 0) seen->share_measuring++;
    else if (share != 1.0) seen->share_other++;
    seen->pf_final    = pf;
    seen->share_final = share;
  }
  PetscCall(set(A, NULL, NULL));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;
  Mat         A;
  Seen        seen;
  Clock       clock;
  PetscInt    nprod = 3000;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  /* software prefetch (vector mode) */
  PetscCall(Matrix(4000, PETSC_FALSE, &A));
  clock = (Clock){TIE, TIE, {{0}}};
  PetscCall(Run(A, &clock, nprod, &seen));
  CHECK(seen.pf_final == 0 && seen.pf_on == 0, "prefetch, noisy tie: the default (none) kept, never on (on after %" PetscInt_FMT " products, final %" PetscInt_FMT ")", seen.pf_on, seen.pf_final);
  CHECK(clock.samples[0][0] == FULL_TRIALS && clock.samples[0][1] == FULL_TRIALS, "prefetch, noisy tie: every trial and re-trial ran, in pairs (%" PetscInt_FMT " / %" PetscInt_FMT " samples)", clock.samples[0][0], clock.samples[0][1]);
  clock = (Clock){OTHER_FASTER, TIE, {{0}}};
  PetscCall(Run(A, &clock, 300, &seen));
  CHECK(seen.pf_final == 512, "prefetch 20%% faster: chosen (final %" PetscInt_FMT ")", seen.pf_final);
  /* settled within its first trial (2 (1 + PAIRS) products); at 2 ranks (task mode) after the share's sizing (16 products
     per sizing, 4 at most) and its choice (a tie here: 3 trials, 2 FULL_TRIALS products) */
  CHECK(seen.pf_measuring > 0 && seen.pf_measuring < (size > 1 ? 16 * 4 + 2 * FULL_TRIALS : 0) + 2 * (1 + PAIRS), "prefetch 20%% faster: measured over %" PetscInt_FMT " products, then decided", seen.pf_measuring);
  clock = (Clock){DEFAULT_FASTER, TIE, {{0}}};
  PetscCall(Run(A, &clock, 200, &seen));
  CHECK(seen.pf_final == 0 && seen.pf_on == 0, "no prefetch 20%% faster: kept (final %" PetscInt_FMT ")", seen.pf_final);
  PetscCall(MatAIJHybridSetMode(A, MAT_AIJHYBRID_MODE_VECTOR)); /* on several ranks auto is task mode, where the prefetch trials wait for the share's */
  clock = (Clock){FASTER_WITH_TIES, TIE, {{0}}};
  PetscCall(Run(A, &clock, 150, &seen));
  PetscCall(MatAIJHybridSetMode(A, MAT_AIJHYBRID_MODE_AUTO));
  CHECK(seen.pf_final == 512 && clock.samples[0][0] + clock.samples[0][1] == 2 * (1 + 2 * PAIRS), "prefetch 20%% faster in 3 of 4 pairs: the second trial, at once, chooses it from all pairs (final %" PetscInt_FMT ", %" PetscInt_FMT " samples)",
        seen.pf_final, clock.samples[0][0] + clock.samples[0][1]);
  CHECK(seen.pf_measuring + 1 == clock.samples[0][0] + clock.samples[0][1], "3 of 4 pairs: the choice reads as measuring until the re-trial decides (%" PetscInt_FMT " of %" PetscInt_FMT " products)", seen.pf_measuring,
        clock.samples[0][0] + clock.samples[0][1]);
  PetscCall(MatAIJHybridSetPrefetch(A, 256));
  clock = (Clock){OTHER_FASTER, TIE, {{0}}};
  PetscCall(Run(A, &clock, 50, &seen));
  CHECK(seen.pf_final == 256 && seen.pf_measuring == 0 && clock.samples[0][0] + clock.samples[0][1] == 0, "prefetch set: in force, nothing measured");
  PetscCall(MatDestroy(&A));

  /* thread 0's share (task mode: 2 ranks or more), then software prefetch */
  if (size > 1) {
    PetscCall(Matrix(4000 * size, PETSC_TRUE, &A));
    clock = (Clock){TIE, TIE, {{0}}};
    PetscCall(Run(A, &clock, nprod, &seen));
    CHECK(seen.share_final == 1.0 && seen.share_other == 0, "share, noisy tie: share 1 kept, the sized one never in force (%" PetscInt_FMT " products, final %g)", seen.share_other, (double)seen.share_final);
    CHECK(clock.samples[1][0] == FULL_TRIALS && clock.samples[1][1] == FULL_TRIALS, "share, noisy tie: every trial and re-trial ran, in pairs (%" PetscInt_FMT " / %" PetscInt_FMT ")", clock.samples[1][0], clock.samples[1][1]);
    CHECK(seen.pf_final == 0 && seen.pf_on == 0 && clock.samples[0][0] > 0, "share and prefetch, noisy ties: prefetch measured too, none kept");
    clock = (Clock){TIE, OTHER_FASTER, {{0}}};
    PetscCall(Run(A, &clock, 400, &seen));
    CHECK(seen.share_final == 0.5, "sized share 20%% faster: chosen (final %g)", (double)seen.share_final);
    clock = (Clock){TIE, DEFAULT_FASTER, {{0}}};
    PetscCall(Run(A, &clock, 400, &seen));
    CHECK(seen.share_final == 1.0 && seen.share_other == 0, "share 1 20%% faster: kept (final %g)", (double)seen.share_final);
    PetscCall(MatAIJHybridSetTaskShare(A, 0.25));
    clock = (Clock){TIE, OTHER_FASTER, {{0}}};
    PetscCall(Run(A, &clock, 50, &seen));
    CHECK(seen.share_final == 0.25 && seen.share_measuring == 0 && clock.samples[1][0] + clock.samples[1][1] == 0, "share set: in force, nothing measured");
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tune_choice: %d checks passed, %d failed\n", npass, nfail));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
