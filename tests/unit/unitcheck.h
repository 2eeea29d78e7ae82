/*
   What the C unit tests share: pass/fail counting with CHECK(cond, printf-args) and a seeded
   generator (64-bit LCG) whose sequence is the same on every machine. Each test sets rng_state.
*/
#ifndef AIJHYBRID_UNITCHECK_H
#define AIJHYBRID_UNITCHECK_H

#include <stdio.h>

static int npass = 0, nfail = 0;

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

static unsigned long long rng_state = 12345;

/* uniform in [0, 1) */
static inline double Uniform(void)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

#endif
