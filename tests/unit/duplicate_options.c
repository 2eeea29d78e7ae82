/*
   MatDuplicate() of aijhybrid with every MatDuplicateOption, against aij's MatDuplicate() of the
   same matrix: the copy is of our type with the original's settings, the local CSR arrays (both
   blocks on several ranks, and the ghost map) identical bit for bit, MatEqual() with aij's copy,
   the same MatGetInfo(), the nonzero state copied where aij copies it, the same products; then
   the copy changed leaves the original as it was, and the original changed leaves the copy.
*/
#include <petscaijhybrid.h>
#include "unitcheck.h"
#include "compareaij.h"

/* m local rows and columns: row i of the global matrix has entries in (i * 3 + k * 7) mod N */
static PetscErrorCode Build(MatType type, PetscInt m, Mat *A)
{
  PetscInt rs, re, N;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, m, PETSC_DECIDE, PETSC_DECIDE));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 5, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(MatGetSize(*A, NULL, &N));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(*A, i, i, 4.0 + 1.0 / (1.0 + i), ADD_VALUES));
    if (i % 5 == 3) continue; /* some rows with the diagonal only */
    for (PetscInt k = 0; k < 3; k++) PetscCall(MatSetValue(*A, i, (i * 3 + k * 7) % N, 1.0 / (1.0 + i + 10.0 * k), ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* whether the CSR arrays of two sequential blocks are the same bit for bit */
static PetscErrorCode SameCSR(Mat A, Mat B, PetscBool *same)
{
  const PetscInt *ai, *aj, *bi, *bj;
  PetscScalar    *aa, *ba;
  PetscInt        m, n, mb, nb;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetSize(B, &mb, &nb));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, NULL));
  PetscCall(MatSeqAIJGetCSRAndMemType(B, &bi, &bj, &ba, NULL));
  *same = (PetscBool)(m == mb && n == nb && !memcmp(ai, bi, sizeof(PetscInt) * (m + 1)));
  if (*same) *same = (PetscBool)(!memcmp(aj, bj, sizeof(PetscInt) * ai[m]) && !memcmp(aa, ba, sizeof(PetscScalar) * ai[m]));
  PetscFunctionReturn(0);
}

/* H (aijhybrid) equals A (aij) bit for bit: the local arrays (and ghost maps), and MatEqual() of an aij copy of H */
static PetscErrorCode SameBits(Mat A, Mat H, PetscBool *arrays, PetscBool *equal)
{
  PetscMPIInt size;
  PetscBool   same;
  Mat         C;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) PetscCall(SameCSR(A, H, &same));
  else {
    Mat             Ad, Ao, Hd, Ho;
    const PetscInt *ag, *hg;
    PetscInt        nghost;

    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &ag));
    PetscCall(MatMPIAIJGetSeqAIJ(H, &Hd, &Ho, &hg));
    PetscCall(SameCSR(Ad, Hd, &same));
    if (same) PetscCall(SameCSR(Ao, Ho, &same));
    PetscCall(MatGetSize(Ao, NULL, &nghost));
    if (same) same = (PetscBool)(!memcmp(ag, hg, sizeof(PetscInt) * nghost));
  }
  { /* an int, not MPIU_BOOL (deprecated since PETSc 3.24) */
    int mine = (int)same, all;

    PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, PETSC_COMM_WORLD));
    *arrays = (PetscBool)(all != 0);
  }
  PetscCall(MatConvert(H, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatEqual(A, C, equal));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const MatDuplicateOption ops[]   = {MAT_DO_NOT_COPY_VALUES, MAT_COPY_VALUES, MAT_SHARE_NONZERO_PATTERN};
  const char *const        names[] = {"MAT_DO_NOT_COPY_VALUES", "MAT_COPY_VALUES", "MAT_SHARE_NONZERO_PATTERN"};
  Mat                      A, H;
  PetscInt                 m = 41, T, rs;
  PetscMPIInt              size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Build(MATAIJ, m, &A));
  PetscCall(Build(MATAIJHYBRID, m, &H));
  PetscCall(MatAIJHybridSetRowCost(H, 3.5)); /* a setting that is not the default */
  PetscCall(MatAIJHybridGetNumThreads(H, &T));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  for (int o = 0; o < 3; o++) {
    Mat              Ac, Hc;
    PetscBool        ours, arrays, equal;
    PetscReal        cost, e[2], r[2];
    MatInfo          ia, ih;
    PetscObjectState sa, sac, sh, shc;

    PetscCall(MatDuplicate(A, ops[o], &Ac));
    PetscCall(MatDuplicate(H, ops[o], &Hc));
    PetscCall(PetscObjectTypeCompare((PetscObject)Hc, size > 1 ? MATMPIAIJHYBRID : MATSEQAIJHYBRID, &ours));
    CHECK(ours, "%s: the copy is not of our type", names[o]);
    PetscCall(MatAIJHybridGetRowCost(Hc, &cost));
    CHECK(cost == 3.5, "%s: the copy's row cost is %g, not the original's 3.5", names[o], (double)cost);
    PetscCall(SameBits(Ac, Hc, &arrays, &equal));
    CHECK(arrays, "%s: the copy's local arrays differ from aij's copy", names[o]);
    CHECK(equal, "%s: MatEqual() of the copy and aij's copy is false", names[o]);
    PetscCall(MatGetInfo(Ac, MAT_GLOBAL_SUM, &ia));
    PetscCall(MatGetInfo(Hc, MAT_GLOBAL_SUM, &ih));
    CHECK(ia.nz_used == ih.nz_used && ia.nz_allocated == ih.nz_allocated && ia.nz_unneeded == ih.nz_unneeded && ia.mallocs == ih.mallocs, "%s: MatGetInfo() differs: nz %g/%g allocated %g/%g unneeded %g/%g mallocs %g/%g", names[o], ia.nz_used,
          ih.nz_used, ia.nz_allocated, ih.nz_allocated, ia.nz_unneeded, ih.nz_unneeded, ia.mallocs, ih.mallocs);
    PetscCall(MatGetNonzeroState(A, &sa));
    PetscCall(MatGetNonzeroState(Ac, &sac));
    PetscCall(MatGetNonzeroState(H, &sh));
    PetscCall(MatGetNonzeroState(Hc, &shc));
    CHECK((sa == sac) == (sh == shc), "%s: nonzero state copied by aij %d, by aijhybrid %d", names[o], (int)(sa == sac), (int)(sh == shc));
    PetscCall(CompareAIJ(Ac, Hc, PETSC_TRUE, e, r));
    CHECK(e[0] <= 1e-14 * (1 + r[0]) && e[1] <= 1e-14 * (1 + r[1]), "%s: products of the copy differ from aij's copy by %g, %g", names[o], (double)e[0], (double)e[1]);

    /* the copy changed (values, and a new nonzero where the pattern is not shared), the original not */
    PetscCall(MatScale(Ac, 2.0));
    PetscCall(MatScale(Hc, 2.0));
    PetscCall(MatShift(Ac, 1.0));
    PetscCall(MatShift(Hc, 1.0));
    PetscCall(SameBits(A, H, &arrays, &equal));
    CHECK(arrays && equal, "%s: changing the copy changed the original", names[o]);
    /* the original changed (and put back), the copy not */
    PetscCall(MatScale(A, 3.0));
    PetscCall(MatScale(H, 3.0));
    PetscCall(MatSetValue(A, rs, rs, 7.0, ADD_VALUES));
    PetscCall(MatSetValue(H, rs, rs, 7.0, ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
    PetscCall(SameBits(Ac, Hc, &arrays, &equal));
    CHECK(arrays && equal, "%s: changing the original changed the copy", names[o]);
    PetscCall(MatDestroy(&Ac));
    PetscCall(MatDestroy(&Hc));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "duplicate_options (%d rank(s), %" PetscInt_FMT " threads): %d checks passed, %d failed\n", size, T, npass, nfail));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
