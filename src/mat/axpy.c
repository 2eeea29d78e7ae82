/*
   MatAXPY (Y = Y + a X, and so MatAYPX) of the aijhybrid types, on the threads, with the bits of
   MatAXPY_SeqAIJ/MPIAIJ for each MatStructure (src/kernels/csrentry.h):

     SAME_NONZERO_PATTERN    y = y + a x entry by entry, on each block (AIJ: BLAS axpy per block);
     SUBSET_NONZERO_PATTERN  each entry of X added to Y's entry of the same row and column, then Y
                             assembled (AIJ: MatAXPY_Basic(), one MatSetValues(ADD_VALUES) per row);
                             the column lists are checked first, and if X has an entry Y lacks on
                             some rank, every rank runs AIJ's own (which inserts it);
     DIFFERENT/UNKNOWN       sequential: a new matrix on the union of the patterns (counted, then
                             its columns and values filled by the threads) replaces Y's data, as
                             AIJ's MatHeaderMerge() of a freshly filled matrix does; UNKNOWN with
                             equal patterns is SAME, as for SeqAIJ. mpiaijhybrid: AIJ's own.

   X of another type (aij): PETSc's MatAXPY_Basic(), whose sum MatAXPYGetPreallocation_AIJHybrid()
   preallocates entry by entry as AIJ does (composed as "MatAXPYGetPreallocation_C").

   The off-diagonal blocks of two mpiaij matrices number their ghost columns each by its own
   (sorted) ghost list: X's are renamed into Y's before the merge.
*/
#include "aijhybridimpl.h"
#include "../kernels/csrentry.h"

/* y = y + a x on equal patterns, the blocks X and Y */
static PetscErrorCode AXPYSameBlock(Mat_AIJHybrid *ctx, Mat Y, PetscScalar a, Mat X)
{
  PetscInt           m, nz, T;
  const PetscInt    *yi, *yj;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridEntryPattern(Y, &m, &nz, &yi, &yj));
  PetscCall(MatAIJHybridEntryThreads(ctx, nz, &T));
  PetscCall(MatSeqAIJGetArray(Y, &ya));
  PetscCall(MatSeqAIJGetArrayRead(X, &xa));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridKernelAXPYSame(nz / nth * tid + PetscMin(tid, nz % nth), nz / nth * (tid + 1) + PetscMin(tid + 1, nz % nth), a, xa, ya);
  }
  PetscCall(MatSeqAIJRestoreArrayRead(X, &xa));
  PetscCall(MatSeqAIJRestoreArray(Y, &ya));
  PetscCall(PetscObjectStateIncrease((PetscObject)Y));
  PetscCall(PetscLogFlops(2.0 * nz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the blocks X and Y have the same pattern (SeqAIJ's test for UNKNOWN_NONZERO_PATTERN) */
static PetscErrorCode SamePattern(Mat Y, Mat X, PetscBool *same)
{
  PetscInt        my, mx, nzy, nzx;
  const PetscInt *yi, *yj, *xi, *xj;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridEntryPattern(Y, &my, &nzy, &yi, &yj));
  PetscCall(MatAIJHybridEntryPattern(X, &mx, &nzx, &xi, &xj));
  *same = (PetscBool)(nzx == nzy);
  if (*same) PetscCall(PetscArraycmp(xi, yi, my + 1, same));
  if (*same) PetscCall(PetscArraycmp(xj, yj, nzy, same));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X's ghost columns renamed into Y's (both ghost lists increasing); *map NULL where some ghost of X is not one of Y's */
static PetscErrorCode GhostMap(Mat Xo, const PetscInt *xg, Mat Yo, const PetscInt *yg, PetscInt **map)
{
  const PetscInt nx = Xo->cmap->n, ny = Yo->cmap->n;
  PetscInt       p = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nx, map));
  for (PetscInt k = 0; k < nx; k++) {
    while (p < ny && yg[p] < xg[k]) p++;
    if (p == ny || yg[p] != xg[k] || (k && xg[k] <= xg[k - 1])) {
      PetscCall(PetscFree(*map));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    (*map)[k] = p;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a row partition of the block Y with the arrays the subset kernels read */
typedef struct {
  PetscInt           m, T, *bounds, *map;
  const PetscInt    *xi, *xj, *yi, *yj;
  const PetscScalar *xa;
  PetscScalar       *ya;
} SubsetBlock;

static PetscErrorCode SubsetBlockSetUp(Mat_AIJHybrid *ctx, Mat Y, Mat X, PetscInt *map, SubsetBlock *b)
{
  PetscInt nzy, nzx, mx;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridEntryPattern(Y, &b->m, &nzy, &b->yi, &b->yj));
  PetscCall(MatAIJHybridEntryPattern(X, &mx, &nzx, &b->xi, &b->xj));
  PetscCall(MatAIJHybridEntryThreads(ctx, nzx + nzy, &b->T));
  PetscCall(MatAIJHybridEntryBounds(b->m, b->yi, b->T, &b->bounds));
  b->map = map;
  b->xa  = NULL;
  b->ya  = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether every entry of the block X is in the block Y */
static PetscBool SubsetBlockCheck(const SubsetBlock *b)
{
  int ok = 1;

#pragma omp parallel num_threads(b->T) reduction(&& : ok)
  {
    const PetscInt nth = omp_get_num_threads();

    for (PetscInt t = omp_get_thread_num(); t < b->T; t += nth) ok = ok && AIJHybridKernelSubsetRows(b->bounds[t], b->bounds[t + 1], b->xi, b->xj, b->map, b->yi, b->yj);
  }
  return ok ? PETSC_TRUE : PETSC_FALSE;
}

static void SubsetBlockAdd(const SubsetBlock *b, PetscScalar a)
{
  const PetscBool a1 = (PetscBool)(a == (PetscScalar)1.0);

#pragma omp parallel num_threads(b->T)
  {
    const PetscInt nth = omp_get_num_threads();

    for (PetscInt t = omp_get_thread_num(); t < b->T; t += nth) AIJHybridKernelAXPYSubsetRows(b->bounds[t], b->bounds[t + 1], a, a1, b->xi, b->xj, b->map, b->xa, b->yi, b->yj, b->ya);
  }
}

/* Y = Y + a X with X's pattern in Y's: in place, then Y assembled as MatAXPY_Basic() does; *done false (on every rank) if X has an entry Y lacks */
static PetscErrorCode AXPYSubset(Mat_AIJHybrid *ctx, Mat Y, PetscScalar a, Mat X, PetscBool *done)
{
  Mat             Yd, Yo, Xd, Xo;
  const PetscInt *yg, *xg;
  PetscInt       *map = NULL, nb;
  SubsetBlock     b[2];
  PetscBool       ok;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridEntryBlocks(Y, ctx, &Yd, &Yo, &yg));
  Xd = X;
  Xo = NULL;
  xg = NULL;
  if (Yo) PetscCall(MatMPIAIJGetSeqAIJ(X, &Xd, &Xo, &xg));
  nb = Yo ? 2 : 1;
  if (Yo) PetscCall(GhostMap(Xo, xg, Yo, yg, &map));
  ok = (PetscBool)(!Yo || map);
  PetscCall(SubsetBlockSetUp(ctx, Yd, Xd, NULL, &b[0]));
  if (Yo) PetscCall(SubsetBlockSetUp(ctx, Yo, Xo, map, &b[1]));
  for (PetscInt k = 0; k < nb && ok; k++) ok = SubsetBlockCheck(&b[k]);
  if (Yo) {
    PetscMPIInt lok = (PetscMPIInt)ok, gok;

    PetscCallMPI(MPI_Allreduce(&lok, &gok, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)Y)));
    ok = (PetscBool)gok;
  }
  if (ok) {
    for (PetscInt k = 0; k < nb; k++) {
      Mat Bx = k ? Xo : Xd, By = k ? Yo : Yd;

      PetscCall(MatSeqAIJGetArrayRead(Bx, &b[k].xa));
      PetscCall(MatSeqAIJGetArray(By, &b[k].ya));
      SubsetBlockAdd(&b[k], a);
      PetscCall(MatSeqAIJRestoreArray(By, &b[k].ya));
      PetscCall(MatSeqAIJRestoreArrayRead(Bx, &b[k].xa));
    }
    PetscCall(MatAssemblyBegin(Y, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Y, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscLogFlops((a == (PetscScalar)1.0 ? 1.0 : 2.0) * (b[0].xi[b[0].m] + (Yo ? b[1].xi[b[1].m] : 0))));
  }
  for (PetscInt k = 0; k < nb; k++) PetscCall(PetscFree(b[k].bounds));
  PetscCall(PetscFree(map));
  *done = ok;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sequential Y = Y + a X on the union of the patterns: a new matrix of Y's type and settings whose data replaces Y's */
static PetscErrorCode AXPYUnion(Mat_AIJHybrid *ctx, Mat Y, PetscScalar a, Mat X)
{
  const PetscBool    a1 = (PetscBool)(a == (PetscScalar)1.0);
  PetscInt           m, mx, nzy, nzx, T, *bounds, *cnt, *bi, *bj;
  const PetscInt    *yi, *yj, *xi, *xj;
  const PetscScalar *xa, *ya;
  PetscScalar       *ba;
  Mat                B;
  Mat_AIJHybrid     *bctx;
  const char        *prefix;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridEntryPattern(Y, &m, &nzy, &yi, &yj));
  PetscCall(MatAIJHybridEntryPattern(X, &mx, &nzx, &xi, &xj));
  PetscCall(MatAIJHybridEntryThreads(ctx, nzx + nzy, &T));
  PetscCall(MatAIJHybridEntryBounds(m, yi, T, &bounds));
  PetscCall(PetscMalloc2(m, &cnt, m + 1, &bi));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();

    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) AIJHybridKernelUnionCount(bounds[t], bounds[t + 1], xi, xj, yi, yj, cnt + bounds[t]);
  }
  bi[0] = 0;
  for (PetscInt i = 0; i < m; i++) bi[i + 1] = bi[i] + cnt[i];
  PetscCall(MatCreate(PetscObjectComm((PetscObject)Y), &B));
  PetscCall(MatGetOptionsPrefix(Y, &prefix));
  PetscCall(MatSetOptionsPrefix(B, prefix));
  PetscCall(MatSetSizes(B, Y->rmap->n, Y->cmap->n, Y->rmap->N, Y->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(B, Y, Y));
  PetscCall(MatSetType(B, ((PetscObject)Y)->type_name)); /* sizes not set up yet: no default preallocation */
  PetscCall(MatAIJHybridGetContext(B, &bctx));
  MatAIJHybridContextCopySettings(&ctx->set, bctx);
  PetscCall(MatSeqAIJSetPreallocation(B, 0, cnt));
  PetscCall(PetscMalloc1(bi[m], &bj));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();

    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) AIJHybridKernelUnionFill(bounds[t], bounds[t + 1], a, a1, xi, xj, NULL, yi, yj, NULL, bi, bj, NULL);
  }
  PetscCall(MatSeqAIJSetColumnIndices(B, bj));
  PetscCall(PetscFree(bj));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSeqAIJGetArrayRead(X, &xa));
  PetscCall(MatSeqAIJGetArrayRead(Y, &ya));
  PetscCall(MatSeqAIJGetArrayWrite(B, &ba));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads();

    for (PetscInt t = omp_get_thread_num(); t < T; t += nth) AIJHybridKernelUnionFill(bounds[t], bounds[t + 1], a, a1, xi, xj, xa, yi, yj, ya, bi, NULL, ba);
  }
  PetscCall(MatSeqAIJRestoreArrayWrite(B, &ba));
  PetscCall(MatSeqAIJRestoreArrayRead(Y, &ya));
  PetscCall(MatSeqAIJRestoreArrayRead(X, &xa));
  PetscCall(PetscFree2(cnt, bi));
  PetscCall(PetscFree(bounds));
  PetscCall(PetscLogFlops((a1 ? 1.0 : 2.0) * nzx));
  PetscCall(MatAIJHybridReplaceKeepingHeader(Y, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAXPY_AIJHybrid(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Mat_AIJHybrid *ctx;
  PetscBool      same, done;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(Y, &ctx));
  if (ctx->info->mpi) {
    Mat Yd, Yo, Xd, Xo;

    if (str == SAME_NONZERO_PATTERN) {
      PetscCall(MatMPIAIJGetSeqAIJ(Y, &Yd, &Yo, NULL));
      PetscCall(MatMPIAIJGetSeqAIJ(X, &Xd, &Xo, NULL));
      if (PetscDefined(USE_DEBUG)) { /* what MatAXPY_SeqAIJ() checks on each block */
        PetscCall(SamePattern(Yd, Xd, &same));
        if (same) PetscCall(SamePattern(Yo, Xo, &same));
        PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatStructure is not SAME_NONZERO_PATTERN");
      }
      PetscCall(AXPYSameBlock(ctx, Yd, a, Xd));
      PetscCall(AXPYSameBlock(ctx, Yo, a, Xo));
      PetscCall(PetscObjectStateIncrease((PetscObject)Y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (str == SUBSET_NONZERO_PATTERN) {
      PetscCall(AXPYSubset(ctx, Y, a, X, &done));
      if (done) PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall((*ctx->parentops.axpy)(Y, a, X, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (str == UNKNOWN_NONZERO_PATTERN || (PetscDefined(USE_DEBUG) && str == SAME_NONZERO_PATTERN)) {
    PetscCall(SamePattern(Y, X, &same));
    if (same) str = SAME_NONZERO_PATTERN;
    else PetscCheck(str != SAME_NONZERO_PATTERN, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "MatStructure is not SAME_NONZERO_PATTERN");
  }
  if (str == SAME_NONZERO_PATTERN) PetscCall(AXPYSameBlock(ctx, Y, a, X));
  else if (str == SUBSET_NONZERO_PATTERN) {
    PetscCall(AXPYSubset(ctx, Y, a, X, &done));
    if (!done) PetscCall((*ctx->parentops.axpy)(Y, a, X, str));
  } else PetscCall(AXPYUnion(ctx, Y, a, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* buf holds at least n integers (its contents not kept) */
static PetscErrorCode IntsEnsure(PetscInt **buf, PetscInt *cap, PetscInt n)
{
  PetscFunctionBegin;
  if (n > *cap) {
    *cap = PetscMax(n, 2 * *cap);
    PetscCall(PetscFree(*buf));
    PetscCall(PetscMalloc1(*cap, buf));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAXPYGetPreallocation_AIJHybrid - B for MatAXPY(Y, a, X, DIFFERENT_NONZERO_PATTERN) when X is of
  another type than Y (an aij matrix, say): PETSc's MatAXPY_Basic() fills B, made here of Y's type
  and preallocated with the union of each row of Y and X, entry by entry as AIJ's MatAXPY() does for
  two AIJ matrices (PETSc's general preallocator would count whole blocks of Y's block size).
  Through the public row access, on one thread, as MatAXPY_Basic() then is.
*/
PetscErrorCode MatAXPYGetPreallocation_AIJHybrid(Mat Y, Mat X, Mat *B)
{
  PetscInt rstart, rend, cstart, cend, m, xcap = 0, ycap = 0, *dnnz, *onnz, *xs = NULL, *ys = NULL;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(Y, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(Y, &cstart, &cend));
  m = rend - rstart;
  PetscCall(PetscCalloc2(m, &dnnz, m, &onnz));
  PetscCall(MatGetRowUpperTriangular(X));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt *cols;
    PetscInt        nx, ny;

    /* each row copied: one row of a matrix may be got at a time; restoring it zeroes the count */
    PetscCall(MatGetRow(X, r, &nx, &cols, NULL));
    PetscCall(IntsEnsure(&xs, &xcap, nx));
    PetscCall(PetscArraycpy(xs, cols, nx));
    PetscCall(MatRestoreRow(X, r, NULL, &cols, NULL));
    PetscCall(MatGetRow(Y, r, &ny, &cols, NULL));
    PetscCall(IntsEnsure(&ys, &ycap, ny));
    PetscCall(PetscArraycpy(ys, cols, ny));
    PetscCall(MatRestoreRow(Y, r, NULL, &cols, NULL));
    PetscCall(PetscSortInt(nx, xs));
    PetscCall(PetscSortInt(ny, ys));
    AIJHybridKernelUnionRow(nx, xs, ny, ys, cstart, cend, &dnnz[r - rstart], &onnz[r - rstart]);
  }
  PetscCall(MatRestoreRowUpperTriangular(X));
  PetscCall(PetscFree(xs));
  PetscCall(PetscFree(ys));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)Y), B));
  PetscCall(MatSetType(*B, ((PetscObject)Y)->type_name)); /* before the layouts: no default preallocation */
  PetscCall(MatSetLayouts(*B, Y->rmap, Y->cmap));
  PetscCall(MatSeqAIJSetPreallocation(*B, 0, dnnz));
  PetscCall(MatMPIAIJSetPreallocation(*B, 0, dnnz, 0, onnz));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
