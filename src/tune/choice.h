/*
   A measured choice between two alternatives that give the same results and differ only in time
   (threaded or serial triangular solves, threaded or serial numeric factorization, prefetch on or
   off, ...). Pure: no PETSc objects, no clock, no allocation, no global state; the caller times
   each use it is told to time and hands the seconds over (tests hand over made-up ones).

   A is the default: it stays in force while the choice is measured, and whenever the rule cannot
   tell. B is the other alternative.

   Sampling: the uses of a trial come in pairs, the two alternatives one right after the other,
   A first in even pairs and B first in odd ones (A B B A A B ...), so that neither always runs
   after the other and slow drifts of the machine fall on both alike. The first `warmup` pairs of
   the first trial are run and not counted (first-touch, caches, schedules being built).

   The rule (a one-sided sign test with a minimum effect, on the paired samples): pair k, with
   times (a_k, b_k), is a win for A when a_k (1 + effect) < b_k, a win for B when
   b_k (1 + effect) < a_k, a tie otherwise. After N pairs, A is chosen when its wins reach c, B
   when B's do, where c is the smallest count with P(Binomial(N, 1/2) >= c) <= alpha / trials;
   otherwise the rule cannot tell and A stays.

   What it accepts: if A is in truth not faster than B by more than the effect (the median of the
   pairs' b/a is at most 1 + effect), a pair is a win for A with probability at most 1/2, so with
   independent pairs A is chosen in one test with probability at most alpha / trials, and in all
   the trials together (Bonferroni) at most alpha; the same for B. So the probability of a false
   choice -- one for an alternative that is not faster than the other by more than the effect,
   in particular one for the slower alternative -- is at most alpha for each alternative. Noise
   alone (a tie, however noisy) leaves both counts below c with probability at least 1 - 2 alpha.
   The effect is the margin under which no choice is worth making: it must exceed the differences
   the machine's noise makes between two runs of the same alternative most of the time, or the
   rule rarely tells. Pairs on a shared machine are not fully independent (load comes in bursts);
   the alternating order and the margin are what keep that from deciding.

   Re-trials: after "cannot tell", once `wait` further uses have run the default, another trial
   of `pairs` new pairs starts, and the test at its end counts every pair so far, the earlier
   trials' too: N grows by `pairs` at each trial (with pairs 10: c = 9 of 10, 16 of 20, 22 of 30).
   The pairs are interleaved, so a change of the machine's load falls on both alternatives of a
   pair alike and earlier pairs stay valid evidence; counting them all gives the test the power a
   trial of its own lacks when some pairs are ties (a burst of load, a flush of the caches): an
   alternative 20% faster that wins 8 of every 10 pairs is chosen at 16 of 20, where two trials
   tested apart (9 of 10 each) never tell. Each test is at level alpha / trials, so all trials
   together (Bonferroni over the tests, however dependent) still choose falsely with probability at
   most alpha. At most `trials` trials. With wait 0 the next trial follows at once and the choice
   stays "measuring" until a test decides or the last cannot tell: it is then settled within
   warmup + trials * pairs pairs, and whoever reads the state sees no "cannot tell" that a re-trial
   will change. A made choice is final. Every pair is kept (a, b) for the record; the medians
   reported are those of all the pairs of the last test.

   With pairs 16, trials 3, alpha 0.05 (alpha / trials = 1/60): c = 13 of 16, 23 of 32, 32 of 48;
   with pairs 5, trials 1, alpha 0.05: c = 5 of 5 (P = 1/32).
*/
#ifndef AIJHYBRID_TUNE_CHOICE_H
#define AIJHYBRID_TUNE_CHOICE_H

#include <petscsys.h>

#define AIJHYBRID_CHOICE_MAXPAIRS 64 /* pairs kept in all (pairs * trials at most) */

typedef enum {
  AIJHYBRID_CHOICE_MEASURING,   /* a trial is under way (A in force between its timed uses) */
  AIJHYBRID_CHOICE_A,           /* A chosen (measured faster by more than the effect) */
  AIJHYBRID_CHOICE_B,           /* B chosen */
  AIJHYBRID_CHOICE_CANNOT_TELL, /* the last trial could not tell: A stays (a re-trial may follow) */
  AIJHYBRID_CHOICE_FIXED        /* no measurement: the caller forced an alternative */
} AIJHybridChoiceState;

typedef struct {
  PetscInt  pairs;  /* pairs per trial, >= 1 */
  PetscInt  trials; /* trials at most (the first and the re-trials), >= 1 */
  PetscInt  warmup; /* pairs run and not counted before the first trial */
  PetscInt  wait;   /* uses of the default after a "cannot tell" before the next trial */
  PetscReal effect; /* the minimum relative difference worth a choice (0.05: 5%) */
  PetscReal alpha;  /* the accepted probability of a false choice, all trials together */
} AIJHybridChoiceRule;

typedef struct {
  AIJHybridChoiceRule  rule;
  AIJHybridChoiceState state;
  PetscInt             in_force;                         /* 0: A, 1: B (what runs when not timed) */
  PetscInt             npairs;                           /* counted pairs so far */
  PetscInt             half;                             /* samples of the pair under way (0 or 1) */
  PetscInt             warm;                             /* warm-up pairs still to run */
  double               a[AIJHYBRID_CHOICE_MAXPAIRS];     /* seconds of A in the counted pairs */
  double               b[AIJHYBRID_CHOICE_MAXPAIRS];     /* seconds of B */
  double               pending;                          /* the first sample of the pair under way */
  PetscInt             trial;                            /* trials completed */
  PetscInt             waited;                           /* uses of the default since the last "cannot tell" */
  PetscInt             uses;                             /* uses so far (AIJHybridChoiceNext() calls) */
  PetscInt             decided_at;                       /* the use that completed the last trial (-1: none yet) */
  PetscInt             wins_a, wins_b, needed;           /* the last test: wins of each among all pairs so far, and the wins needed */
  double               median_a, median_b, median_ratio; /* all pairs of the last test: medians of a, b and of b/a */
} AIJHybridChoice;

PETSC_INTERN void                 AIJHybridChoiceInit(AIJHybridChoice *, const AIJHybridChoiceRule *);
PETSC_INTERN void                 AIJHybridChoiceFix(AIJHybridChoice *, PetscInt);
PETSC_INTERN PetscInt             AIJHybridChoiceNext(AIJHybridChoice *, PetscBool *);
PETSC_INTERN void                 AIJHybridChoiceAdd(AIJHybridChoice *, PetscInt, double);
PETSC_INTERN AIJHybridChoiceState AIJHybridChoiceTest(PetscInt, const double[], const double[], PetscReal, PetscReal, PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN PetscInt             AIJHybridChoiceCritical(PetscInt, PetscReal);
PETSC_INTERN const char          *AIJHybridChoiceStateName(AIJHybridChoiceState);

#endif
