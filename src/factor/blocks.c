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
  of the row; *bi (n+1) and *bj are the part's pattern. *sorted: the columns were sorted (else the
  part is not computed: nothing allocated).
*/
PetscErrorCode AIJHybridBlocksPattern(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt nblocks, const PetscInt bounds[], PetscInt lo[], PetscInt **bi, PetscInt **bj, PetscBool *sorted)
{
  PetscInt *hi, nz = 0;

  PetscFunctionBegin;
  *bi     = NULL;
  *bj     = NULL;
  *sorted = PETSC_TRUE;
  for (PetscInt i = 0; i < n && *sorted; i++)
    for (PetscInt p = ai[i] + 1; p < ai[i + 1]; p++)
      if (aj[p] <= aj[p - 1]) *sorted = PETSC_FALSE;
  if (!*sorted) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(n, &hi));
  for (PetscInt b = 0; b < nblocks; b++)
    for (PetscInt i = bounds[b]; i < bounds[b + 1]; i++) {
      PetscInt p = ai[i], q;

      while (p < ai[i + 1] && aj[p] < bounds[b]) p++;
      q = p;
      while (q < ai[i + 1] && aj[q] < bounds[b + 1]) q++;
      lo[i] = p;
      hi[i] = q;
      nz += q - p;
    }
  PetscCall(PetscMalloc2(n + 1, bi, nz, bj));
  (*bi)[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    (*bi)[i + 1] = (*bi)[i] + hi[i] - lo[i];
    for (PetscInt p = lo[i]; p < hi[i]; p++) (*bj)[(*bi)[i] + p - lo[i]] = aj[p];
  }
  PetscCall(PetscFree(hi));
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
