/*
   What the C unit tests share: pass/fail counting with CHECK(cond, printf-args), a seeded
   generator (64-bit LCG) whose sequence is the same on every machine (each test sets rng_state),
   random permutations drawn from it, and, for the tests that build matrices from (row, column), a
   hash of two integers.
*/
#ifndef AIJHYBRID_UNITCHECK_H
#define AIJHYBRID_UNITCHECK_H

#include <petscsys.h>
#include <stdio.h>
#include <string.h>

static int npass PETSC_UNUSED = 0, nfail PETSC_UNUSED = 0;

#define CHECK(cond, ...) \
  do { \
    if (cond) npass++; \
    else { \
      nfail++; \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__); \
      printf("\n"); \
    } \
  } while (0)

static unsigned long long rng_state PETSC_UNUSED = 12345;

/* uniform in [0, 1) */
static inline double Uniform(void)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* uniform in 0..n-1 for n >= 1, one draw (Uniform() * n rounds below n) */
static inline PetscInt RandInt(PetscInt n)
{
  return n ? (PetscInt)(Uniform() * (double)n) % n : 0;
}

/* a uniform random permutation of 0..n-1 in p (Fisher-Yates from the top, one draw per step) */
static inline void RandPerm(PetscInt n, PetscInt *p)
{
  for (PetscInt i = 0; i < n; i++) p[i] = i;
  for (PetscInt i = n - 1; i > 0; i--) {
    const PetscInt j = RandInt(i + 1), t = p[i];

    p[i] = p[j];
    p[j] = t;
  }
}

/* real and imaginary parts (complex builds) uniform in [-1, 1), drawn in that order */
static inline PetscScalar RandScalar(void)
{
  PetscScalar v = 2.0 * Uniform() - 1.0;
#if defined(PETSC_USE_COMPLEX)
  v += PETSC_i * (2.0 * Uniform() - 1.0);
#endif
  return v;
}

/* bitwise equality of n scalars */
static inline PetscBool Same(const PetscScalar *a, const PetscScalar *b, PetscInt n)
{
  return (PetscBool)(!n || !memcmp(a, b, (size_t)n * sizeof(PetscScalar)));
}

/* a well-mixed hash of (a, b): the tests' pseudo-random matrix patterns and values */
static inline unsigned long long Hash(unsigned long long a, unsigned long long b)
{
  unsigned long long h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 27;
  return h;
}

#endif
