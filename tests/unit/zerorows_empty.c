/*
   MatZeroRows() with a diagonal value on rows that are empty in the diagonal block (src/mat/zerorows.c).

   Each rank owns 8 rows. Local row 1 has entries only in the off-diagonal block (none on one rank),
   local row 5 has no entry at all, the other rows have a diagonal and neighbours. Every rank zeroes
   its rows 1, 2, 5 and 6 with diagonal 1.5, rank 0 also lists rows 1 and 2 of every other rank and
   some rows twice, and the right-hand side is fixed (b = 1.5 x on the zeroed rows). Checked: each
   zeroed row holds exactly (r, 1.5), every other row is unchanged, b is right; with
   MAT_NEW_NONZERO_LOCATIONS false an empty row stays empty; with MAT_KEEP_NONZERO_PATTERN a missing
   diagonal is an error; a row out of range is an error and changes nothing. -error_paths 0 leaves the
   two errors out (PETSc's MatZeroRowsMapLocal_Private() leaks its row list on them, which the
   memory checkers of share/sanitizers would report).

   The matrix type comes from -mat_type (default aijhybrid). With -mat_type aij the program shows
   PETSc's own bug (rows after an empty one keep their old value; valgrind reports the write
   through a freed array): the reproducer for an upstream report.
*/
#include <petscaijhybrid.h>

#define NLOC 8

static PetscErrorCode Build(Mat *A)
{
  PetscInt    rs, re, N;
  PetscMPIInt size, rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, NLOC, NLOC, PETSC_DECIDE, PETSC_DECIDE));
  PetscCall(MatSetType(*A, MATAIJHYBRID));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 3, NULL, 1, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  PetscCall(MatGetSize(*A, &N, NULL));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt l = i - rs;

    if (l == 5) continue; /* no entry */
    if (l == 1) {         /* only off-process entries: in the next rank's rows */
      if (size > 1) PetscCall(MatSetValue(*A, i, (re + 3) % N, 0.25 + rank, INSERT_VALUES));
      continue;
    }
    PetscCall(MatSetValue(*A, i, i, 4.0 + i, INSERT_VALUES));
    if (i + 1 < N) PetscCall(MatSetValue(*A, i, i + 1, -1.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -2.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* the rows every rank zeroes: its rows 1, 2, 5, 6 (2 twice), and on rank 0 rows 1 and 2 of every rank */
static PetscErrorCode ZeroedRows(Mat A, PetscInt *n, PetscInt rows[])
{
  PetscInt    rs;
  PetscMPIInt size, rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  *n           = 0;
  rows[(*n)++] = rs + 2;
  rows[(*n)++] = rs + 1;
  rows[(*n)++] = rs + 6;
  rows[(*n)++] = rs + 5;
  rows[(*n)++] = rs + 2;
  if (rank == 0)
    for (PetscMPIInt p = 0; p < size; p++) {
      rows[(*n)++] = p * NLOC + 1;
      rows[(*n)++] = p * NLOC + 2;
    }
  PetscFunctionReturn(0);
}

static PetscBool Zeroed(PetscInt l)
{
  return (PetscBool)(l == 1 || l == 2 || l == 5 || l == 6);
}

/* row i of A against the expectation: (i, diag) alone if zeroed (nothing if empty_stays), else row i of B */
static PetscErrorCode CheckRow(Mat A, Mat B, PetscInt i, PetscBool zeroed, PetscScalar diag, PetscBool empty_stays, PetscInt *nchecks)
{
  PetscInt           na, nb;
  const PetscInt    *ca, *cb;
  const PetscScalar *va, *vb;

  PetscFunctionBeginUser;
  PetscCall(MatGetRow(A, i, &na, &ca, &va));
  if (zeroed) {
    if (empty_stays) PetscCheck(na == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT ": %" PetscInt_FMT " entries, expected none", i, na);
    else {
      PetscCheck(na == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "zeroed row %" PetscInt_FMT ": %" PetscInt_FMT " entries, expected 1", i, na);
      PetscCheck(ca[0] == i && va[0] == diag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "zeroed row %" PetscInt_FMT ": (%" PetscInt_FMT ", %g), expected (%" PetscInt_FMT ", %g)", i, ca[0], (double)PetscRealPart(va[0]), i, (double)PetscRealPart(diag));
    }
  } else {
    PetscCall(MatGetRow(B, i, &nb, &cb, &vb));
    PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT ": %" PetscInt_FMT " entries, was %" PetscInt_FMT, i, na, nb);
    for (PetscInt k = 0; k < na; k++) PetscCheck(ca[k] == cb[k] && va[k] == vb[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " entry %" PetscInt_FMT " changed", i, k);
    PetscCall(MatRestoreRow(B, i, &nb, &cb, &vb));
  }
  PetscCall(MatRestoreRow(A, i, &na, &ca, &va));
  (*nchecks)++;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat            A, A0;
  Vec            x, b;
  PetscInt       rows[5 + 2 * 64], n, rs, re, nchecks = 0, nglobal;
  PetscScalar    diag = 1.5;
  PetscMPIInt    size;
  MatType        t;
  char           type[64];
  PetscBool      error_paths = PETSC_TRUE;
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size <= 64, PETSC_COMM_WORLD, PETSC_ERR_SUP, "at most 64 ranks");
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-error_paths", &error_paths, NULL));

  /* zeroed rows get (r, diag), the others are unchanged, b = diag x on the zeroed rows */
  PetscCall(Build(&A));
  PetscCall(MatGetType(A, &t));
  PetscCall(PetscStrncpy(type, t, sizeof(type)));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A0));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSet(b, -7.0));
  PetscCall(ZeroedRows(A, &n, rows));
  PetscCall(MatZeroRows(A, n, rows, diag, x, b));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) PetscCall(CheckRow(A, A0, i, Zeroed(i - rs), diag, PETSC_FALSE, &nchecks));
  {
    const PetscScalar *xa, *ba;

    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayRead(b, &ba));
    for (PetscInt l = 0; l < re - rs; l++) {
      const PetscScalar want = Zeroed(l) ? diag * xa[l] : -7.0;

      PetscCheck(ba[l] == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "b[%" PetscInt_FMT "] = %g, expected %g", rs + l, (double)PetscRealPart(ba[l]), (double)PetscRealPart(want));
      nchecks++;
    }
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
  }
  PetscCall(MatDestroy(&A));

  /* MAT_NEW_NONZERO_LOCATIONS false: an empty row gets no diagonal (as MatZeroRows() documents for aij) */
  PetscCall(Build(&A));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
  PetscCall(ZeroedRows(A, &n, rows));
  PetscCall(MatZeroRows(A, n, rows, diag, NULL, NULL));
  for (PetscInt i = rs; i < re; i++) PetscCall(CheckRow(A, A0, i, Zeroed(i - rs), diag, (PetscBool)(i - rs == 1 || i - rs == 5), &nchecks));
  PetscCall(MatDestroy(&A));

  if (error_paths) {
    /* MAT_KEEP_NONZERO_PATTERN: a missing diagonal is an error on every rank (each zeroes its empty row 5) */
    PetscCall(Build(&A));
    PetscCall(MatSetOption(A, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    rows[0] = rs + 5;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatZeroRows(A, 1, rows, diag, NULL, NULL);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_ARG_WRONGSTATE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a missing diagonal with MAT_KEEP_NONZERO_PATTERN gave error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_WRONGSTATE);
    nchecks++;
    PetscCall(MatDestroy(&A));

    /* a row out of range is an error, and nothing changed */
    PetscCall(Build(&A));
    PetscCall(MatGetSize(A, &nglobal, NULL));
    rows[0] = rs + 5;
    rows[1] = rs + 2;
    rows[2] = nglobal + 3;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatZeroRows(A, 3, rows, diag, NULL, NULL);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a row out of range gave error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE);
    for (PetscInt i = rs; i < re; i++) PetscCall(CheckRow(A, A0, i, PETSC_FALSE, diag, PETSC_FALSE, &nchecks));
    PetscCall(MatDestroy(&A));
  }

  PetscCall(PetscPrintf(PETSC_COMM_SELF, "zerorows_empty (%s): %" PetscInt_FMT " checks passed\n", type, nchecks));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A0));
  PetscCall(PetscFinalize());
  return 0;
}
