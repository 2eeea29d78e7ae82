/*
   STREAM triad (a[i] = b[i] + s*c[i]) for the benchmark driver, loaded with ctypes into each rank
   of a benchmark job so that the bandwidth is measured by the same processes, with the same ranks x
   threads layout and binding, as the products it is compared with. MPI stays in Python: the driver
   puts a barrier and MPI_Wtime around each aijh_stream_triad() call and sums the bytes over ranks.

   Arrays are allocated here and first touched by the thread that later works on each chunk (static
   schedule), as in McCalpin's stream.c. Bytes counted per element: 24 (read b, read c, write a),
   STREAM's convention; write-allocate traffic is not counted.

   Build: cc -O3 -fopenmp -fPIC -shared stream.c -o libaijhstream.so
*/
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double *a, *b, *c;
  long    n;
  int     nthreads;
} AIJHStream;

static void *aligned(long n)
{
  void *p = NULL;
  if (posix_memalign(&p, 64, (size_t)n * sizeof(double))) return NULL;
  return p;
}

/* allocates three arrays of n doubles, first touched in parallel by nthreads threads */
AIJHStream *aijh_stream_create(long n, int nthreads)
{
  AIJHStream *s = calloc(1, sizeof(*s));
  if (!s) return NULL;
  s->n        = n;
  s->nthreads = nthreads;
  s->a        = aligned(n);
  s->b        = aligned(n);
  s->c        = aligned(n);
  if (!s->a || !s->b || !s->c) {
    free(s->a);
    free(s->b);
    free(s->c);
    free(s);
    return NULL;
  }
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (long i = 0; i < n; i++) {
    s->a[i] = 1.0;
    s->b[i] = 2.0;
    s->c[i] = 0.5;
  }
  return s;
}

/* one triad pass; returns a[n/2] so the compiler cannot drop the loop */
double aijh_stream_triad(AIJHStream *s, double scalar)
{
  double *restrict a = s->a, *restrict b = s->b, *restrict c = s->c;
  long n = s->n;
#pragma omp parallel for num_threads(s->nthreads) schedule(static)
  for (long i = 0; i < n; i++) a[i] = b[i] + scalar * c[i];
  return a[n / 2];
}

/* the cpu each of the nthreads threads runs on (sched_getcpu), into cpus[0..nthreads-1];
   returns the number of threads OpenMP actually gave */
int aijh_stream_thread_cpus(int nthreads, int *cpus)
{
  int got = 0;
#pragma omp parallel num_threads(nthreads)
  {
    int t = omp_get_thread_num();
    if (t < nthreads) cpus[t] = sched_getcpu();
#pragma omp single
    got = omp_get_num_threads();
  }
  return got;
}

void aijh_stream_destroy(AIJHStream *s)
{
  if (!s) return;
  free(s->a);
  free(s->b);
  free(s->c);
  free(s);
}
