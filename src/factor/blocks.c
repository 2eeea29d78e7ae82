/*
   The thread blocks of a factorization (see blocks.h).
*/
#include "blocks.h"

/*
  AIJHybridBlocksSplit - bounds[0..nblocks] of nblocks blocks of consecutive rows out of n, the
  first n mod nblocks blocks one row longer: PETSc's PetscSplitOwnership() of n rows over nblocks
  ranks, so that the thread blocks of one rank are the ranks' row blocks of a run with nblocks
  ranks and PETSC_DECIDE local sizes
*/
void AIJHybridBlocksSplit(PetscInt n, PetscInt nblocks, PetscInt bounds[])
{
  bounds[0] = 0;
  for (PetscInt b = 0; b < nblocks; b++) bounds[b + 1] = bounds[b] + n / nblocks + ((n % nblocks) > b);
}

/*
  AIJHybridBlocksPattern - the block-diagonal part of an n x n CSR pattern ai, aj (columns sorted
  in each row) for the blocks bounds[0..nblocks]: row i of block b keeps its columns in
  [bounds[b], bounds[b+1]), which are consecutive, the nonzeros lo[i] .. lo[i] + bi[i+1] - bi[i] - 1
  of the row; *bi (n+1) and *bj are the part's pattern (PetscMalloc2()). *sorted: the columns were
  sorted (else the part is not computed: nothing allocated). Each block is the work of one thread
  (nblocks threads); the result does not depend on them.
*/
PetscErrorCode AIJHybridBlocksPattern(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt nblocks, const PetscInt bounds[], PetscInt lo[], PetscInt **bi, PetscInt **bj, PetscBool *sorted)
{
  PetscInt *cnt, *off, nz = 0, unsorted = 0;

  PetscFunctionBegin;
  *bi     = NULL;
  *bj     = NULL;
  *sorted = PETSC_TRUE;
  PetscCall(PetscMalloc2(n, &cnt, nblocks + 1, &off));
  /* per row: sorted, the first nonzero in the block and how many; per block: their sum */
#pragma omp parallel for num_threads(nblocks) schedule(static, 1) reduction(+ : unsorted)
  for (PetscInt b = 0; b < nblocks; b++) {
    PetscInt sum = 0;

    for (PetscInt i = bounds[b]; i < bounds[b + 1]; i++) {
      PetscInt p = ai[i], q;

      for (PetscInt k = ai[i] + 1; k < ai[i + 1]; k++) unsorted += aj[k] <= aj[k - 1];
      while (p < ai[i + 1] && aj[p] < bounds[b]) p++;
      q = p;
      while (q < ai[i + 1] && aj[q] < bounds[b + 1]) q++;
      lo[i]  = p;
      cnt[i] = q - p;
      sum += q - p;
    }
    off[b + 1] = sum;
  }
  if (unsorted) {
    *sorted = PETSC_FALSE;
    PetscCall(PetscFree2(cnt, off));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  off[0] = 0;
  for (PetscInt b = 0; b < nblocks; b++) off[b + 1] += off[b];
  nz = off[nblocks];
  PetscCall(PetscMalloc2(n + 1, bi, nz, bj));
  {
    PetscInt *BI = *bi, *BJ = *bj;

    BI[0] = 0;
#pragma omp parallel for num_threads(nblocks) schedule(static, 1)
    for (PetscInt b = 0; b < nblocks; b++) {
      PetscInt q = off[b];

      for (PetscInt i = bounds[b]; i < bounds[b + 1]; i++) {
        for (PetscInt p = lo[i]; p < lo[i] + cnt[i]; p++) BJ[q++] = aj[p];
        BI[i + 1] = q;
      }
    }
  }
  PetscCall(PetscFree2(cnt, off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridBlocksRestrict - an ordering that keeps the blocks: perm (perm[k] the row at position k;
  NULL: the identity) restricted to each block in turn, so that the positions bounds[b] ..
  bounds[b+1]-1 hold the rows of block b in the order perm visits them (a stable sort by block)
*/
PetscErrorCode AIJHybridBlocksRestrict(PetscInt n, PetscInt nblocks, const PetscInt bounds[], const PetscInt perm[], PetscInt out[])
{
  PetscInt *block, *next;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &block, nblocks, &next));
  for (PetscInt b = 0; b < nblocks; b++) {
    next[b] = bounds[b];
    for (PetscInt i = bounds[b]; i < bounds[b + 1]; i++) block[i] = b;
  }
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt r = perm ? perm[k] : k;

    out[next[block[r]]++] = r;
  }
  PetscCall(PetscFree2(block, next));
  PetscFunctionReturn(PETSC_SUCCESS);
}
