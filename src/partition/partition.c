/*
   Contiguous thread partitioners: equal rows, greedy on cost prefix sums, greedy + local diffusion
   (Lange et al., ISC 2013, section 2.3) and the exact minimum-bottleneck partition (Nicol's
   algorithm for the chains-on-chains problem). See partition.h for the conventions.
*/
#include "partition.h"

/* cost prefix P(i) = cost of rows [0, i) */
static inline PetscReal Prefix(const AIJHybridCost *cost, PetscInt i)
{
  return AIJHybridCostRange(cost, 0, i);
}

/* index i in [lo, hi] whose prefix is nearest to target (ties go to the smaller index) */
static PetscInt NearestPrefix(const AIJHybridCost *cost, PetscInt lo, PetscInt hi, PetscReal target)
{
  PetscInt a = lo, b = hi;

  /* smallest i in [lo, hi] with P(i) >= target, or hi */
  while (a < b) {
    PetscInt mid = a + (b - a) / 2;
    if (Prefix(cost, mid) >= target) b = mid;
    else a = mid + 1;
  }
  if (a > lo && target - Prefix(cost, a - 1) <= Prefix(cost, a) - target) a--;
  return a;
}

/* largest e in [s, n] with cost(s, e) <= B */
static PetscInt LargestFit(const AIJHybridCost *cost, PetscInt s, PetscReal B)
{
  PetscInt a = s, b = cost->n;

  while (a < b) {
    PetscInt mid = a + (b - a + 1) / 2;
    if (AIJHybridCostRange(cost, s, mid) <= B) a = mid;
    else b = mid - 1;
  }
  return a;
}

/* make bounds non-decreasing and, when n >= T, strictly increasing, by splitting rows off
   neighbouring parts (never merging: part costs can only shrink or become single rows) */
static void FixBounds(PetscInt n, PetscInt T, PetscInt bounds[])
{
  bounds[0] = 0;
  bounds[T] = n;
  if (n >= T) {
    for (PetscInt t = T - 1; t >= 1; t--) bounds[t] = PetscMin(bounds[t], bounds[t + 1] - 1);
    for (PetscInt t = 1; t < T; t++) bounds[t] = PetscMax(bounds[t], bounds[t - 1] + 1);
  } else {
    /* more threads than rows: one row per thread for the first n threads, the rest empty */
    for (PetscInt t = 1; t < T; t++) bounds[t] = PetscMin(t, n);
  }
}

/*
  AIJHybridPartitionRows - equal row counts, the first n % T threads get one more row.
*/
PetscErrorCode AIJHybridPartitionRows(PetscInt n, PetscInt T, PetscInt bounds[])
{
  PetscFunctionBegin;
  for (PetscInt t = 0; t <= T; t++) bounds[t] = t * (n / T) + PetscMin(t, n % T);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridPartitionGreedy - thread t ends at the row boundary whose cost prefix is nearest to
  (t+1)/T of the total; O(T log n).
*/
PetscErrorCode AIJHybridPartitionGreedy(const AIJHybridCost *cost, PetscInt T, PetscInt bounds[])
{
  const PetscInt  n     = cost->n;
  const PetscReal total = Prefix(cost, n);

  PetscFunctionBegin;
  bounds[0] = 0;
  for (PetscInt t = 1; t < T; t++) bounds[t] = NearestPrefix(cost, bounds[t - 1], n, total * (PetscReal)t / (PetscReal)T);
  FixBounds(n, T, bounds);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridPartitionTaskShare - the leading rows [0, r0) whose cost is closest to share times an equal
  part (total / T), share in [0, 1]: the rows of a thread that first has other work (task mode's
  thread 0 drives the halo exchange, then multiplies these rows). Ties go to the smaller r0;
  share 0 gives r0 = 0; when n >= T, r0 <= n - (T - 1) so that the other T - 1 parts can each
  have a row.
*/
PetscErrorCode AIJHybridPartitionTaskShare(const AIJHybridCost *cost, PetscInt T, PetscReal share, PetscInt *r0)
{
  PetscFunctionBegin;
  PetscCheck(T >= 1 && share >= 0.0 && share <= 1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Task share %g must be in [0, 1] and parts %" PetscInt_FMT " >= 1", (double)share, T);
  *r0 = NearestPrefix(cost, 0, cost->n, share * Prefix(cost, cost->n) / (PetscReal)T);
  if (cost->n >= T) *r0 = PetscMin(*r0, cost->n - (T - 1)); /* leave every other part a row */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridPartitionBottleneck - the largest cost of one thread's rows
*/
PetscErrorCode AIJHybridPartitionBottleneck(const AIJHybridCost *cost, PetscInt T, const PetscInt bounds[], PetscReal *bottleneck)
{
  PetscReal mx = 0.0;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < T; t++) mx = PetscMax(mx, AIJHybridCostRange(cost, bounds[t], bounds[t + 1]));
  *bottleneck = mx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridPartitionImbalance - max over mean cost per thread (1 is perfect; 1 for zero total cost)
*/
PetscErrorCode AIJHybridPartitionImbalance(const AIJHybridCost *cost, PetscInt T, const PetscInt bounds[], PetscReal *imbalance)
{
  PetscReal mx, total = Prefix(cost, cost->n);

  PetscFunctionBegin;
  PetscCall(AIJHybridPartitionBottleneck(cost, T, bounds, &mx));
  *imbalance = total > 0.0 ? mx / (total / (PetscReal)T) : 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridPartitionValid - bounds cover [0, n) contiguously, non-decreasing, and strictly
  increasing when n >= T
*/
PetscErrorCode AIJHybridPartitionValid(PetscInt n, PetscInt T, const PetscInt bounds[], PetscBool *valid)
{
  PetscFunctionBegin;
  *valid = (PetscBool)(T >= 1 && bounds[0] == 0 && bounds[T] == n);
  for (PetscInt t = 0; t < T && *valid; t++) {
    if (bounds[t + 1] < bounds[t]) *valid = PETSC_FALSE;
    if (n >= T && bounds[t + 1] == bounds[t]) *valid = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridPartitionDiffusion - greedy start, then sweeps of local diffusion: each boundary between
  threads t and t+1 moves so that half the load difference of the pair flows from the heavier to
  the lighter one (one symmetric Gauss-Seidel sweep: left to right, then right to left). Stops when
  max/mean <= 1 + tol, when a sweep moves no boundary, or after max_it sweeps. The best partition
  seen is returned, so the result is never worse than the greedy start.

  Output: bounds, and the number of sweeps done in *sweeps.
*/
PetscErrorCode AIJHybridPartitionDiffusion(const AIJHybridCost *cost, PetscInt T, PetscReal tol, PetscInt max_it, PetscInt bounds[], PetscInt *sweeps)
{
  const PetscInt n = cost->n;
  PetscReal      best, current;
  PetscInt      *work;

  PetscFunctionBegin;
  *sweeps = 0;
  PetscCall(AIJHybridPartitionGreedy(cost, T, bounds));
  if (T < 2 || n < T) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AIJHybridPartitionImbalance(cost, T, bounds, &best));
  if (best <= 1.0 + tol) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(T + 1, &work));
  PetscCall(PetscArraycpy(work, bounds, T + 1));
  for (PetscInt it = 0; it < max_it; it++) {
    PetscBool moved = PETSC_FALSE;

    for (PetscInt pass = 0; pass < 2; pass++) {
      for (PetscInt k = 1; k < T; k++) {
        const PetscInt  b      = pass == 0 ? k : T - k; /* boundary between threads b-1 and b */
        const PetscReal Ll     = AIJHybridCostRange(cost, work[b - 1], work[b]);
        const PetscReal Lr     = AIJHybridCostRange(cost, work[b], work[b + 1]);
        const PetscReal target = Prefix(cost, work[b]) - 0.5 * (Ll - Lr);
        const PetscInt  nb     = NearestPrefix(cost, work[b - 1] + 1, work[b + 1] - 1, target);

        if (nb != work[b]) {
          /* accept only moves that lower the larger load of the pair: diffusion never oscillates */
          const PetscReal nl = AIJHybridCostRange(cost, work[b - 1], nb), nr = AIJHybridCostRange(cost, nb, work[b + 1]);
          if (PetscMax(nl, nr) < PetscMax(Ll, Lr)) {
            work[b] = nb;
            moved   = PETSC_TRUE;
          }
        }
      }
    }
    (*sweeps)++;
    PetscCall(AIJHybridPartitionImbalance(cost, T, work, &current));
    if (current < best) {
      best = current;
      PetscCall(PetscArraycpy(bounds, work, T + 1));
    }
    if (!moved || best <= 1.0 + tol) break;
  }
  PetscCall(PetscFree(work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* can rows [s, n) be split into at most parts pieces of cost <= B? */
static PetscBool Probe(const AIJHybridCost *cost, PetscInt s, PetscInt parts, PetscReal B)
{
  for (PetscInt p = 0; p < parts && s < cost->n; p++) {
    PetscInt e = LargestFit(cost, s, B);
    if (e == s) return PETSC_FALSE; /* one row costs more than B */
    s = e;
  }
  return (PetscBool)(s == cost->n);
}

/*
  AIJHybridPartitionOptimal - exact minimum-bottleneck contiguous partition (Nicol's algorithm,
  O((T log n)^2)). For each part p starting at s, the smallest end e for which the remaining rows
  fit in the remaining parts with bottleneck cost(s, e) gives a candidate; an optimum below it
  ends part p at e-1. The bounds are then the greedy fill with the optimal bottleneck, with empty
  threads split off their neighbours (splitting never raises the bottleneck).
*/
PetscErrorCode AIJHybridPartitionOptimal(const AIJHybridCost *cost, PetscInt T, PetscInt bounds[])
{
  const PetscInt n    = cost->n;
  PetscReal      best = Prefix(cost, n);
  PetscInt       s    = 0, t;

  PetscFunctionBegin;
  for (PetscInt p = 0; p < T - 1 && s < n; p++) {
    PetscInt  lo = s + 1, hi = n;
    PetscReal cand;

    while (lo < hi) {
      PetscInt mid = lo + (hi - lo) / 2;
      if (Probe(cost, s, T - p, AIJHybridCostRange(cost, s, mid))) hi = mid;
      else lo = mid + 1;
    }
    /* keep only candidates that are feasible for the whole chain; the optimum is among them */
    cand = AIJHybridCostRange(cost, s, lo);
    if (cand < best && Probe(cost, 0, T, cand)) best = cand;
    s = lo - 1;
  }
  if (s < n && AIJHybridCostRange(cost, s, n) < best && Probe(cost, 0, T, AIJHybridCostRange(cost, s, n))) best = AIJHybridCostRange(cost, s, n);
  bounds[0] = 0;
  s         = 0;
  for (t = 1; t < T; t++) {
    s         = LargestFit(cost, s, best);
    bounds[t] = s;
  }
  FixBounds(n, T, bounds);
  PetscFunctionReturn(PETSC_SUCCESS);
}
