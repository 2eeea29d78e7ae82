/*
   Unit tests of the measured choice (src/tune/choice.c), with made-up timings (no clock):
   - the critical counts of the sign test against binomial tails summed directly;
   - the sampling order (A B B A ...), the warm-up pairs not counted, a fixed choice never timed;
   - a forced noisy tie (alternating large wins of each side) cannot tell and keeps the default,
     through every re-trial; a clear difference decides in the first trial, for A and for B;
   - re-trials count every pair so far: after a tie and the wait, a trial won 7 of 10 by B cannot
     tell (7 of 20, 16 needed), nor can a third won 10 of 10 (17 of 30, 22 needed); B winning 8 of
     every 10 pairs (the other 2 ties) decides at the second trial (16 of 20), which two trials
     tested apart (9 of 10 each) never would; a made choice is final;
   - simulated noise (seeded, up to 40% per sample): over many choices between equal
     alternatives, or with the default up to the effect faster, the rate of false choices stays
     under alpha (with the sampling error of the simulation); a 30% difference within 10% noise is
     found nearly always, and never the wrong way; with 16 pairs per trial (the products' rule), a
     20% difference that a quarter of the samples lose (load) is found nearly always too.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "tune/choice.h"
#include "unitcheck.h"
#include <math.h>

static const AIJHybridChoiceRule rule10 = {10, 3, 1, 20, 0.05, 0.05};

/* one use: run what the choice asks, with the seconds of A or B given by ta/tb */
static PetscInt Use(AIJHybridChoice *c, double ta, double tb)
{
  PetscBool      timed;
  const PetscInt which = AIJHybridChoiceNext(c, &timed);

  if (timed) AIJHybridChoiceAdd(c, which, which ? tb : ta);
  return which;
}

static void TestCritical(void)
{
  const struct {
    PetscInt  n;
    PetscReal alpha;
    PetscInt  c;
  } known[] = {
    {10, 0.05 / 3, 9 },
    {20, 0.05 / 3, 16},
    {30, 0.05 / 3, 22},
    {5,  0.05,     5 },
    {4,  0.05,     5 },
    {10, 0.06,     8 },
    {0,  0.5,      1 }
  };

  for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
    const PetscInt c = AIJHybridChoiceCritical(known[k].n, known[k].alpha);
    CHECK(c == known[k].c, "critical count of %d pairs at %g: %d, not %d", (int)known[k].n, (double)known[k].alpha, (int)c, (int)known[k].c);
  }
  for (PetscInt n = 1; n <= 64; n++)
    for (PetscInt q = 0; q < 6; q++) {
      const PetscReal alpha = (PetscReal)(0.001 * pow(3.0, (double)q));
      const PetscInt  c     = AIJHybridChoiceCritical(n, alpha);
      long double     tail = 0, prev = 0;

      /* P(X >= c) <= alpha < P(X >= c - 1), summed directly */
      for (PetscInt j = 0; j <= n; j++) {
        long double b = 1;
        for (PetscInt i = 0; i < j; i++) b = b * (long double)(n - i) / (long double)(i + 1);
        if (j >= c) tail += b / powl(2.0L, (long double)n);
        if (j >= c - 1) prev += b / powl(2.0L, (long double)n);
      }
      CHECK((c > n || tail <= alpha) && (c == 0 || prev > alpha), "critical count of %d pairs at %g: %d (tails %Lg, %Lg)", (int)n, (double)alpha, (int)c, tail, prev);
    }
}

static void TestOrder(void)
{
  AIJHybridChoice c;
  PetscBool       timed;
  const PetscInt  expect[8] = {0, 1, 1, 0, 0, 1, 1, 0};

  AIJHybridChoiceInit(&c, &rule10);
  for (PetscInt k = 0; k < 8; k++) {
    const PetscInt w = AIJHybridChoiceNext(&c, &timed);
    CHECK(timed && w == expect[k], "use %d: %d (timed %d), expected %d", (int)k, (int)w, (int)timed, (int)expect[k]);
    AIJHybridChoiceAdd(&c, w, 1.0);
  }
  CHECK(c.npairs == 3, "one warm-up pair and 3 counted pairs: %d counted", (int)c.npairs);
  AIJHybridChoiceInit(&c, &rule10);
  AIJHybridChoiceFix(&c, 1);
  for (PetscInt k = 0; k < 5; k++) {
    const PetscInt w = AIJHybridChoiceNext(&c, &timed);
    CHECK(!timed && w == 1, "a fixed choice timed or changed");
  }
  CHECK(c.state == AIJHYBRID_CHOICE_FIXED, "a fixed choice left its state");
}

static void TestScripted(void)
{
  AIJHybridChoice c;
  PetscInt        w;

  /* a forced noisy tie: each pair a 50% win, for A and B in turn; never decided, A always kept */
  AIJHybridChoiceInit(&c, &rule10);
  for (PetscInt u = 0; u < 2000; u++) {
    const PetscBool odd = (PetscBool)((c.npairs + (c.warm ? 1 : 0)) % 2);
    PetscBool       timed;

    w = AIJHybridChoiceNext(&c, &timed);
    if (timed) AIJHybridChoiceAdd(&c, w, (w == 1) == odd ? 1.0 : 1.5);
    else CHECK(w == 0, "the default not in force outside a trial after a tie (use %d)", (int)u);
  }
  CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial == 3 && c.npairs == 30 && c.in_force == 0, "noisy tie: state %s after %d trials (%d pairs), %s in force", AIJHybridChoiceStateName(c.state), (int)c.trial, (int)c.npairs,
        c.in_force ? "B" : "A");
  CHECK(c.wins_a == 15 && c.wins_b == 15 && c.needed == 22, "noisy tie: wins %d and %d of 30, %d needed", (int)c.wins_a, (int)c.wins_b, (int)c.needed);

  /* clear differences decide in the first trial */
  for (PetscInt side = 0; side < 2; side++) {
    AIJHybridChoiceInit(&c, &rule10);
    for (PetscInt u = 0; u < 22; u++) Use(&c, side ? 1.0 : 0.7, side ? 0.7 : 1.0);
    CHECK(c.state == (side ? AIJHYBRID_CHOICE_B : AIJHYBRID_CHOICE_A) && c.trial == 1 && c.decided_at == 22 && c.in_force == side, "30%% faster %s: %s after %d trials", side ? "B" : "A", AIJHybridChoiceStateName(c.state), (int)c.trial);
    CHECK(fabs(c.median_ratio - (side ? 0.7 : 1 / 0.7)) < 1e-12 && c.median_a == (side ? 1.0 : 0.7), "medians of a clear choice wrong");
    for (PetscInt u = 0; u < 50; u++) {
      PetscBool timed;
      w = AIJHybridChoiceNext(&c, &timed);
      CHECK(!timed && w == side, "a made choice measured again or changed");
    }
  }

  /* a difference under the effect (3%) never decides */
  AIJHybridChoiceInit(&c, &rule10);
  for (PetscInt u = 0; u < 400; u++) Use(&c, 1.0, 1.03);
  CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.wins_a == 0 && c.wins_b == 0, "a 3%% difference decided with a 5%% effect");

  /* re-trials count every pair so far: a tie, the wait on the default, a second trial with B faster
     in 7 pairs of 10 (7 of 20, 16 needed), the wait, a third with B faster in every pair (17 of 30,
     22 needed): a difference that shows in the last trial alone does not outweigh the earlier ties */
  AIJHybridChoiceInit(&c, &rule10);
  for (PetscInt u = 0; u < 22; u++) Use(&c, 1.0, 1.0);
  CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial == 1, "a tie: %s", AIJHybridChoiceStateName(c.state));
  for (PetscInt u = 0; u < rule10.wait; u++) {
    PetscBool timed;
    w = AIJHybridChoiceNext(&c, &timed);
    CHECK(!timed && w == 0, "the wait after a tie measures or runs B");
  }
  for (PetscInt u = 0; u < 20; u++) Use(&c, 1.0, u < 14 ? 0.5 : 1.0);
  CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial == 2 && c.wins_b == 7 && c.needed == 16 && c.in_force == 0, "second trial: %s, %d wins of %d needed", AIJHybridChoiceStateName(c.state), (int)c.wins_b, (int)c.needed);
  for (PetscInt u = 0; u < rule10.wait + 20; u++) Use(&c, 1.0, 0.5);
  CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial == 3 && c.npairs == 30 && c.wins_b == 17 && c.needed == 22 && c.in_force == 0, "third trial: %s with %d wins of B (%d needed)", AIJHybridChoiceStateName(c.state), (int)c.wins_b,
        (int)c.needed);
  for (PetscInt u = 0; u < 100; u++) Use(&c, 1.0, 0.5);
  CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial == 3 && c.in_force == 0, "measured again after the last trial");

  /* B faster in 8 pairs of every 10, the other 2 exact ties: 8 of 10 (9 needed) cannot tell, then 16
     of 20 (16 needed) chooses B at the second trial, from all its pairs; a made choice is final */
  AIJHybridChoiceInit(&c, &rule10);
  for (PetscInt u = 0; u < 2 + 2 * 10; u++) Use(&c, 1.0, !c.warm && c.npairs % 5 == 4 ? 1.0 : 0.7); /* the pair under way is pair npairs */
  CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial == 1 && c.wins_b == 8 && c.needed == 9, "8 of 10 pairs: %s, %d wins of %d needed", AIJHybridChoiceStateName(c.state), (int)c.wins_b, (int)c.needed);
  for (PetscInt u = 0; u < rule10.wait + 2 * 10; u++) Use(&c, 1.0, !c.warm && c.npairs % 5 == 4 ? 1.0 : 0.7);
  CHECK(c.state == AIJHYBRID_CHOICE_B && c.trial == 2 && c.npairs == 20 && c.wins_b == 16 && c.needed == 16 && c.in_force == 1, "8 of every 10 pairs: %s after %d trials, %d wins of %d needed", AIJHybridChoiceStateName(c.state), (int)c.trial,
        (int)c.wins_b, (int)c.needed);
  CHECK(fabs(c.median_ratio - 0.7) < 1e-12, "the medians of all 20 pairs: ratio %g", c.median_ratio);
  for (PetscInt u = 0; u < 100; u++) Use(&c, 1.0, 1.0);
  CHECK(c.state == AIJHYBRID_CHOICE_B && c.trial == 2, "a made choice measured again");

  /* wait 0: the re-trials follow at once and the state stays "measuring" between them; a tie
     settles as "cannot tell" after the last trial, a difference in the second trial decides there */
  {
    AIJHybridChoiceRule rule0 = rule10;

    rule0.wait = 0;
    AIJHybridChoiceInit(&c, &rule0);
    for (PetscInt u = 0; u < 22 + 20; u++) {
      PetscBool timed;

      CHECK(c.state == AIJHYBRID_CHOICE_MEASURING, "wait 0: %s between trials (use %d)", AIJHybridChoiceStateName(c.state), (int)u);
      w = AIJHybridChoiceNext(&c, &timed);
      CHECK(timed, "wait 0: a use between trials not measured");
      AIJHybridChoiceAdd(&c, w, 1.0);
    }
    CHECK(c.state == AIJHYBRID_CHOICE_MEASURING && c.trial == 2 && c.wins_a == 0 && c.wins_b == 0, "wait 0, two tied trials: %s after %d", AIJHybridChoiceStateName(c.state), (int)c.trial);
    for (PetscInt u = 0; u < 20; u++) Use(&c, 1.0, 1.0);
    CHECK(c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial == 3 && c.in_force == 0 && c.decided_at == 62, "wait 0, a tie: %s after %d trials, at use %d", AIJHybridChoiceStateName(c.state), (int)c.trial, (int)c.decided_at);
    AIJHybridChoiceInit(&c, &rule0);
    for (PetscInt u = 0; u < 22; u++) Use(&c, 1.0, u < 8 ? 1.0 : 0.5); /* B faster in 7 of the first 10 pairs */
    CHECK(c.state == AIJHYBRID_CHOICE_MEASURING && c.trial == 1 && c.wins_b == 7, "wait 0, 7 of 10: %s after %d trials", AIJHybridChoiceStateName(c.state), (int)c.trial);
    for (PetscInt u = 0; u < 20; u++) Use(&c, 1.0, 0.5);
    CHECK(c.state == AIJHYBRID_CHOICE_B && c.trial == 2 && c.wins_b == 17 && c.decided_at == 42 && c.in_force == 1, "wait 0, B faster in the second trial: %s after %d trials", AIJHybridChoiceStateName(c.state), (int)c.trial);
  }
}

/* log-normal-ish noise: exp(s * (sum of 3 uniforms - 1.5)) */
static double Noise(double s)
{
  return exp(s * (Uniform() + Uniform() + Uniform() - 1.5));
}

/* runs a choice to its end (at most 1000 uses) with true times ta, tb and noise s, a fraction q of B's
   samples taking A's time (B's advantage lost to load); returns its state */
static AIJHybridChoiceState Simulate(const AIJHybridChoiceRule *rule, double ta, double tb, double s, double q)
{
  AIJHybridChoice c;

  AIJHybridChoiceInit(&c, rule);
  for (PetscInt u = 0; u < 1000 && (c.state == AIJHYBRID_CHOICE_MEASURING || (c.state == AIJHYBRID_CHOICE_CANNOT_TELL && c.trial < c.rule.trials)); u++) {
    const double na = Noise(s), nb = Noise(s);

    Use(&c, ta * na, (q > 0 && Uniform() < q ? ta : tb) * nb);
  }
  return c.state;
}

static void TestSimulated(void)
{
  const PetscInt            N     = 3000;
  const AIJHybridChoiceRule r5    = {5, 1, 0, 0, 0.05, 0.05};  /* the numeric factorization's kind: one trial of 5 pairs */
  const AIJHybridChoiceRule r16   = {16, 3, 1, 0, 0.05, 0.05}; /* the products' rule (src/mat/context.h) */
  const double              slack = 3 * sqrt(0.05 * 0.95 / N);

  rng_state = 31415;
  for (PetscInt k = 0; k < 6; k++) {
    const AIJHybridChoiceRule *rule = k >= 4 ? &r16 : k % 2 ? &r5 : &rule10;
    const double               s    = k < 2 || k == 4 ? 0.4 : 0.1;
    PetscInt                   ca = 0, cb = 0, slow = 0, found = 0, wrong = 0;

    for (PetscInt t = 0; t < N; t++) { /* equal alternatives */
      const AIJHybridChoiceState st = Simulate(rule, 1.0, 1.0, s, 0);
      ca += st == AIJHYBRID_CHOICE_A;
      cb += st == AIJHYBRID_CHOICE_B;
    }
    for (PetscInt t = 0; t < N; t++) slow += Simulate(rule, 1.0, 1.0 / 1.05, s, 0) == AIJHYBRID_CHOICE_A; /* A slower by the effect */
    for (PetscInt t = 0; t < N; t++) {
      const AIJHybridChoiceState st = Simulate(rule, 1.0, 0.7, 0.1, 0);
      found += st == AIJHYBRID_CHOICE_B;
      wrong += st == AIJHYBRID_CHOICE_A;
    }
    CHECK((double)ca / N <= rule->alpha + slack && (double)cb / N <= rule->alpha + slack, "noise %g, %d pairs: equal alternatives chosen %d (A) and %d (B) times of %d", s, (int)rule->pairs, (int)ca, (int)cb, (int)N);
    CHECK((double)slow / N <= rule->alpha + slack, "noise %g, %d pairs: the slower default chosen %d times of %d", s, (int)rule->pairs, (int)slow, (int)N);
    CHECK(found >= 0.99 * N && wrong == 0, "30%% faster B within 10%% noise, %d pairs: found %d times of %d, the wrong way %d times", (int)rule->pairs, (int)found, (int)N, (int)wrong);
    printf("rule %d pairs x %d trials, noise %g: equal alternatives chosen %.4f (A) %.4f (B); slower default %.4f; 30%% difference found %.4f\n", (int)rule->pairs, (int)rule->trials, s, (double)ca / N, (double)cb / N, (double)slow / N,
           (double)found / N);
  }
  { /* B 20% faster, 10% noise, a quarter of B's samples lose the advantage: the products' rule finds it */
    PetscInt found = 0, wrong = 0;

    for (PetscInt t = 0; t < N; t++) {
      const AIJHybridChoiceState st = Simulate(&r16, 1.0, 0.8, 0.1, 0.25);
      found += st == AIJHYBRID_CHOICE_B;
      wrong += st == AIJHYBRID_CHOICE_A;
    }
    CHECK(found >= 0.98 * N && wrong == 0, "20%% faster B, a quarter of its samples lost, 16 pairs: found %d times of %d, the wrong way %d times", (int)found, (int)N, (int)wrong);
    printf("rule 16 pairs x 3 trials, noise 0.1, 20%% difference in 3 of 4 samples: found %.4f\n", (double)found / N);
  }
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  TestCritical();
  TestOrder();
  TestScripted();
  TestSimulated();
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
