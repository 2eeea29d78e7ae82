/*
   Negative controls of the hardening runs (share/sanitizers/sanitize.py): each mode holds one deliberate
   defect of the kind the tool of that run must report, so that a run that reports nothing is known
   to be able to report something here.
     race     : two OpenMP threads increment one shared int     (ThreadSanitizer + archer)
     overflow : write one past the end of a heap block          (AddressSanitizer, valgrind memcheck)
     leak     : a heap block whose last pointer is dropped       (LeakSanitizer, valgrind leak check)
     ub       : signed integer overflow                          (UndefinedBehaviorSanitizer)
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";

  if (!strcmp(mode, "race")) {
    int shared = 0;
#pragma omp parallel num_threads(2)
    shared += 1;
    printf("race: %d\n", shared);
  } else if (!strcmp(mode, "overflow")) {
    int *a                    = malloc(4 * sizeof(int));
    sink                      = a;
    ((volatile int *)sink)[4] = 1;
    free(a);
  } else if (!strcmp(mode, "leak")) {
    sink = malloc(100);
    sink = NULL;
  } else if (!strcmp(mode, "ub")) {
    volatile int big = INT_MAX;
    printf("ub: %d\n", big + argc);
  } else {
    fprintf(stderr, "usage: canary race|overflow|leak|ub\n");
    return 2;
  }
  return 0;
}
