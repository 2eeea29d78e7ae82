/*
   The measured choice between two alternatives (see choice.h).
*/
#include "choice.h"
#include <math.h>
#include <string.h>

/*
  AIJHybridChoiceCritical - the smallest c with P(Binomial(n, 1/2) >= c) <= alpha, or n + 1 when
  even c = n has a larger probability (the test can then never choose)
*/
PetscInt AIJHybridChoiceCritical(PetscInt n, PetscReal alpha)
{
  double tail = 0, binom = 1; /* binom = C(n, j), from j = n down */

  for (PetscInt j = n; j >= 0; j--) {
    if (j < n) binom = binom * (double)(j + 1) / (double)(n - j);
    if (tail + binom * ldexp(1.0, -(int)n) > (double)alpha) return j + 1;
    tail += binom * ldexp(1.0, -(int)n);
  }
  return 0;
}

/*
  AIJHybridChoiceTest - the rule on n pairs (a[k], b[k]) at level alpha (choice.h): wins of A and B
  beyond the effect, the wins needed, and AIJHYBRID_CHOICE_A, _B or _CANNOT_TELL
*/
AIJHybridChoiceState AIJHybridChoiceTest(PetscInt n, const double a[], const double b[], PetscReal effect, PetscReal alpha, PetscInt *wins_a, PetscInt *wins_b, PetscInt *needed)
{
  *wins_a = *wins_b = 0;
  for (PetscInt k = 0; k < n; k++) {
    if (a[k] * (1.0 + effect) < b[k]) (*wins_a)++;
    else if (b[k] * (1.0 + effect) < a[k]) (*wins_b)++;
  }
  *needed = AIJHybridChoiceCritical(n, alpha);
  if (*needed <= n && *wins_a >= *needed) return AIJHYBRID_CHOICE_A;
  if (*needed <= n && *wins_b >= *needed) return AIJHYBRID_CHOICE_B;
  return AIJHYBRID_CHOICE_CANNOT_TELL;
}

static double Median(PetscInt n, const double v[])
{
  double s[AIJHYBRID_CHOICE_MAXPAIRS];

  if (!n) return 0;
  for (PetscInt i = 0; i < n; i++) { /* insertion sort of a few dozen */
    PetscInt j = i;

    while (j > 0 && s[j - 1] > v[i]) {
      s[j] = s[j - 1];
      j--;
    }
    s[j] = v[i];
  }
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* AIJHybridChoiceInit - a choice with this rule (clamped to what it can keep), measuring from the first use */
void AIJHybridChoiceInit(AIJHybridChoice *c, const AIJHybridChoiceRule *rule)
{
  memset(c, 0, sizeof(*c));
  c->rule        = *rule;
  c->rule.pairs  = PetscMax(1, PetscMin(rule->pairs, AIJHYBRID_CHOICE_MAXPAIRS));
  c->rule.trials = PetscMax(1, PetscMin(rule->trials, AIJHYBRID_CHOICE_MAXPAIRS / c->rule.pairs));
  c->rule.warmup = PetscMax(0, rule->warmup);
  c->rule.wait   = PetscMax(0, rule->wait);
  c->state       = AIJHYBRID_CHOICE_MEASURING;
  c->warm        = c->rule.warmup;
  c->decided_at  = -1;
}

/* AIJHybridChoiceFix - no measurement: alternative which (0: A, 1: B) always */
void AIJHybridChoiceFix(AIJHybridChoice *c, PetscInt which)
{
  c->state    = AIJHYBRID_CHOICE_FIXED;
  c->in_force = which ? 1 : 0;
}

/*
  AIJHybridChoiceNext - the alternative the next use runs (0: A, 1: B); timed: time that use and
  hand its seconds to AIJHybridChoiceAdd() (else the use is not part of a measurement)
*/
PetscInt AIJHybridChoiceNext(AIJHybridChoice *c, PetscBool *timed)
{
  c->uses++;
  if (c->state == AIJHYBRID_CHOICE_CANNOT_TELL && c->trial < c->rule.trials && c->waited++ >= c->rule.wait) c->state = AIJHYBRID_CHOICE_MEASURING;
  if (c->state != AIJHYBRID_CHOICE_MEASURING) {
    *timed = PETSC_FALSE;
    return c->in_force;
  }
  *timed = PETSC_TRUE;
  { /* pair k: A B when k is even, B A when odd (warm-up pairs count from 0 too) */
    const PetscInt k = c->rule.warmup - c->warm + c->npairs, first = k % 2;

    return c->half ? 1 - first : first;
  }
}

/* AIJHybridChoiceAdd - the seconds of the use AIJHybridChoiceNext() asked to time (which: what it ran) */
void AIJHybridChoiceAdd(AIJHybridChoice *c, PetscInt which, double seconds)
{
  if (c->state != AIJHYBRID_CHOICE_MEASURING) return;
  if (!c->half) {
    c->pending = seconds;
    c->half    = 1;
    return;
  }
  c->half = 0;
  if (c->warm) {
    c->warm--;
    return;
  }
  c->a[c->npairs] = which ? c->pending : seconds;
  c->b[c->npairs] = which ? seconds : c->pending;
  c->npairs++;
  if (c->npairs == c->rule.pairs * (c->trial + 1)) { /* the trial is complete: test every pair so far */
    double ratio[AIJHYBRID_CHOICE_MAXPAIRS];

    c->state = AIJHybridChoiceTest(c->npairs, c->a, c->b, c->rule.effect, c->rule.alpha / (PetscReal)c->rule.trials, &c->wins_a, &c->wins_b, &c->needed);
    c->trial++;
    c->waited     = 0;
    c->decided_at = c->uses;
    c->in_force   = c->state == AIJHYBRID_CHOICE_B ? 1 : 0;
    if (c->state == AIJHYBRID_CHOICE_CANNOT_TELL && c->trial < c->rule.trials && !c->rule.wait) c->state = AIJHYBRID_CHOICE_MEASURING; /* the next trial at once */
    for (PetscInt k = 0; k < c->npairs; k++) ratio[k] = c->a[k] > 0 ? c->b[k] / c->a[k] : 0;
    c->median_a     = Median(c->npairs, c->a);
    c->median_b     = Median(c->npairs, c->b);
    c->median_ratio = Median(c->npairs, ratio);
  }
}

const char *AIJHybridChoiceStateName(AIJHybridChoiceState s)
{
  switch (s) {
  case AIJHYBRID_CHOICE_MEASURING:
    return "measuring";
  case AIJHYBRID_CHOICE_A:
    return "chose A";
  case AIJHYBRID_CHOICE_B:
    return "chose B";
  case AIJHYBRID_CHOICE_CANNOT_TELL:
    return "cannot tell";
  default:
    return "fixed";
  }
}
