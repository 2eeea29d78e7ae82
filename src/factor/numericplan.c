/*
   Plans of the threaded numeric factorizations (see numericplan.h).
*/
#include "numericplan.h"

/*
  AIJHybridILUDiagonal - the diagonal positions of U in PETSc's ILU layout: L(i,:) at
  [bi[i], bi[i+1]) with columns < i; from bi[n] on U(n-1,:), U(n-2,:), ..., U(0,:), each ending with
  its diagonal, its other columns > i; nz entries in all. bdiag[i] is the position of U(i,i) and
  bdiag[n] = bi[n] - 1 (PETSc's factor->diag). ok: the pattern has this layout (bdiag is then set).
*/
PetscErrorCode AIJHybridILUDiagonal(PetscInt n, const PetscInt bi[], const PetscInt bj[], PetscInt nz, PetscInt bdiag[], PetscBool *ok)
{
  PetscInt p;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  for (PetscInt i = 0; i < n && *ok; i++) {
    if (bi[i + 1] < bi[i]) *ok = PETSC_FALSE;
    for (PetscInt q = bi[i]; q < bi[i + 1] && *ok; q++)
      if (bj[q] < 0 || bj[q] >= i) *ok = PETSC_FALSE;
  }
  p = n ? bi[n] : 0;
  if (p < 0 || p > nz) *ok = PETSC_FALSE;
  if (!*ok) PetscFunctionReturn(PETSC_SUCCESS);
  bdiag[n] = p - 1;
  for (PetscInt i = n - 1; i >= 0 && *ok; i--) {
    while (p < nz && bj[p] != i) {
      if (bj[p] <= i || bj[p] >= n) {
        *ok = PETSC_FALSE;
        break;
      }
      p++;
    }
    if (p >= nz) *ok = PETSC_FALSE;
    else bdiag[i] = p++;
  }
  if (*ok && p != nz) *ok = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridILUNodes - the nodes of MatLUFactorNumeric_SeqAIJ_Inode()

  Input: n rows; the matrix's inodes (nnodes, sizes: the number of rows of each); r: the row
  permutation (NULL: identity); rowsfollowr: PETSc >= 3.24 loads the p-th row of the node at
  factor row s from matrix row r[s+p], PETSc 3.18 to 3.23 from r[s]+p.
  Output: nf nodes, node u being factor rows nstart[u] .. nstart[u+1]-1 (nstart: nf+1 entries);
  arow[i]: the matrix row loaded as factor row i (n entries); ok: PETSc's routine runs on these
  nodes (no node over 4 rows, the nodes cover the n rows exactly, every row in range). Both arrays
  are allocated only when ok.

  PETSc splits each node of more than 4 rows into one of 4 and the rest, then walks the factor's
  rows: the node at row i has the size of the (split) node that contains matrix row r[i].
*/
PetscErrorCode AIJHybridILUNodes(PetscInt n, PetscInt nnodes, const PetscInt sizes[], const PetscInt r[], PetscBool rowsfollowr, PetscInt *nf, PetscInt **nstart, PetscInt **arow, PetscBool *ok)
{
  PetscInt *split, *nsmap, nsplit = 0, row = 0, i, j;

  PetscFunctionBegin;
  *ok     = PETSC_TRUE;
  *nf     = 0;
  *nstart = NULL;
  *arow   = NULL;
  PetscCall(PetscMalloc2(2 * nnodes + 1, &split, n + 1, &nsmap));
  for (PetscInt k = 0; k < nnodes && *ok; k++) {
    if (sizes[k] < 1) *ok = PETSC_FALSE;
    else if (sizes[k] > 4) {
      split[nsplit++] = 4;
      split[nsplit++] = sizes[k] - 4;
    } else split[nsplit++] = sizes[k];
  }
  for (PetscInt k = 0; k < nsplit && *ok; k++) {
    if (split[k] > 4 || row + split[k] > n) *ok = PETSC_FALSE;
    for (PetscInt q = 0; q < split[k] && *ok; q++) nsmap[row++] = k;
  }
  if (*ok && row != n) *ok = PETSC_FALSE;
  if (*ok) {
    PetscCall(PetscMalloc1(nsplit + 1, nstart));
    PetscCall(PetscMalloc1(n + 1, arow));
    (*nstart)[0] = 0;
    for (i = 0, j = 0; i < nsplit && *ok; i++) {
      const PetscInt m = split[nsmap[r ? r[j] : j]];

      if (j + m > n) {
        *ok = PETSC_FALSE;
        break;
      }
      for (PetscInt p = 0; p < m; p++) (*arow)[j + p] = r ? (rowsfollowr ? r[j + p] : r[j] + p) : j + p;
      j += m;
      (*nstart)[i + 1] = j;
    }
    if (*ok && j != n) *ok = PETSC_FALSE;
    for (PetscInt q = 0; q < n && *ok; q++)
      if ((*arow)[q] < 0 || (*arow)[q] >= n) *ok = PETSC_FALSE;
    if (*ok) *nf = nsplit;
    else {
      PetscCall(PetscFree(*nstart));
      PetscCall(PetscFree(*arow));
    }
  }
  PetscCall(PetscFree2(split, nsmap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridILUNodesCheck - whether AIJHybridILUNumericNode() reads, for every node of more than one
  row, only work entries the node set: the pattern of each of its rows (L, U and the diagonal)
  lies in the first row's (the entries it zeroes), and the matrix rows loaded have, from their
  start, as many entries as the first one's (the count PETSc loads for all of them) within the
  matrix (ai[n] entries). n rows; factor bi, bj, bdiag; nf nodes nstart; the matrix's ai; arow.
*/
PetscErrorCode AIJHybridILUNodesCheck(PetscInt n, const PetscInt bi[], const PetscInt bj[], const PetscInt bdiag[], PetscInt nf, const PetscInt nstart[], const PetscInt ai[], const PetscInt arow[], PetscBool *ok)
{
  PetscInt *mark;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(PetscMalloc1(n + 1, &mark));
  for (PetscInt i = 0; i < n; i++) mark[i] = -1;
  for (PetscInt u = 0; u < nf && *ok; u++) {
    const PetscInt s = nstart[u], m = nstart[u + 1] - s, nza = ai[arow[s] + 1] - ai[arow[s]];

    if (m == 1) continue;
    for (PetscInt q = bi[s]; q < bi[s + 1]; q++) mark[bj[q]] = u;
    for (PetscInt q = bdiag[s + 1] + 1; q <= bdiag[s]; q++) mark[bj[q]] = u;
    for (PetscInt p = 1; p < m && *ok; p++) {
      const PetscInt i = s + p;

      if (ai[arow[i]] + nza > ai[n]) *ok = PETSC_FALSE;
      for (PetscInt q = bi[i]; q < bi[i + 1] && *ok; q++)
        if (mark[bj[q]] != u) *ok = PETSC_FALSE;
      for (PetscInt q = bdiag[i + 1] + 1; q <= bdiag[i] && *ok; q++)
        if (mark[bj[q]] != u) *ok = PETSC_FALSE;
    }
  }
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridILUNodeDeps - the dependencies of the nodes (for AIJHybridLevelsBuild() over nf units):
  node u depends on the nodes of the columns of L(s,:), s its first row. Output dptr (nf+1) and
  dind (the node numbers, duplicates kept).
*/
PetscErrorCode AIJHybridILUNodeDeps(PetscInt n, const PetscInt bi[], const PetscInt bj[], PetscInt nf, const PetscInt nstart[], PetscInt **dptr, PetscInt **dind)
{
  PetscInt *node, nz = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &node));
  for (PetscInt u = 0; u < nf; u++)
    for (PetscInt i = nstart[u]; i < nstart[u + 1]; i++) node[i] = u;
  PetscCall(PetscMalloc1(nf + 1, dptr));
  for (PetscInt u = 0; u < nf; u++) nz += bi[nstart[u] + 1] - bi[nstart[u]];
  PetscCall(PetscMalloc1(nz + 1, dind));
  (*dptr)[0] = 0;
  for (PetscInt u = 0; u < nf; u++) {
    const PetscInt s = nstart[u];
    PetscInt       p = (*dptr)[u];

    for (PetscInt q = bi[s]; q < bi[s + 1]; q++) (*dind)[p++] = node[bj[q]];
    (*dptr)[u + 1] = p;
  }
  PetscCall(PetscFree(node));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridICCContributors - the contributors of each row of an ICC factor in PETSc's order

  Input: n rows of U (PETSc's ICC layout: row k at [ui[k], ui[k+1]), the strictly upper columns
  ascending, then the diagonal).
  Output: cptr (n+1), crow, cpos (ui[n] - n entries each): the rows i with an entry U(i,k) are
  crow[cptr[k] .. cptr[k+1]), the entry's position cpos[...], in the order
  MatCholeskyFactorNumeric_SeqAIJ() adds them. That routine keeps for each column a list of the
  rows whose next entry is in it (c2r: heads, and next pointers of the rows in the lists; il: each
  row's next entry); row k takes the rows of its column's list from the head, moves each to the
  list of its next column (pushed at the head), then pushes itself onto the list of its first
  column. The lists depend on the pattern only: this replays them.
*/
PetscErrorCode AIJHybridICCContributors(PetscInt n, const PetscInt ui[], const PetscInt uj[], PetscInt **cptr, PetscInt **crow, PetscInt **cpos)
{
  PetscInt *c2r, *il, nz = n ? ui[n] - n : 0, p = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n + 1, &c2r, n + 1, &il));
  PetscCall(PetscMalloc1(n + 1, cptr));
  PetscCall(PetscMalloc2(nz + 1, crow, nz + 1, cpos));
  for (PetscInt i = 0; i < n; i++) c2r[i] = n;
  if (n) il[0] = 0;
  (*cptr)[0] = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscInt i = c2r[k], jmin, jmax;

    while (i < k) {
      const PetscInt nexti = c2r[i], ili = il[i];

      PetscCheck(p < nz, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "ICC factor pattern: more contributions than strictly upper entries");
      (*crow)[p] = i;
      (*cpos)[p] = ili;
      p++;
      jmin = ili + 1;
      jmax = ui[i + 1];
      if (jmin < jmax) {
        const PetscInt j = uj[jmin];

        il[i]  = jmin;
        c2r[i] = c2r[j];
        c2r[j] = i;
      }
      i = nexti;
    }
    (*cptr)[k + 1] = p;
    jmin           = ui[k];
    jmax           = ui[k + 1] - 1;
    if (jmin < jmax) {
      const PetscInt j = uj[jmin];

      il[k]  = jmin;
      c2r[k] = c2r[j];
      c2r[j] = k;
    }
  }
  PetscCall(PetscFree2(c2r, il));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  AIJHybridICCPivotRow - the row MatCholeskyFactorNumeric_SeqAIJ() names for a zero pivot of row k
  (in its messages and MatFactorGetErrorZeroPivot()): it passes its loop variable, which then holds
  the first off-diagonal column of row k, or n when the row has none.
*/
PetscInt AIJHybridICCPivotRow(PetscInt n, const PetscInt ui[], const PetscInt uj[], PetscInt k)
{
  return ui[k + 1] - 1 > ui[k] ? uj[ui[k]] : n;
}
