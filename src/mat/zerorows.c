/*
   MatZeroRows() with a nonzero diagonal, made safe from a use-after-free in PETSc's SeqAIJ.

   PETSc's MatZeroRows_SeqAIJ() (3.18 to 3.26 and main; not MAT_KEEP_NONZERO_PATTERN)
   takes the value array once, then walks the rows in the order given: a row with entries gets the
   diagonal in its first slot through that array, an empty row gets it by MatSetValues_SeqAIJ(),
   which reallocates the arrays when the row has no room (every empty row after an assembly). A row
   with entries that comes after such an empty row is written through the freed array: its diagonal
   value is lost (the row keeps its old first value at the diagonal's column) and the heap can be
   corrupted ("double free or corruption" on PETSc 3.26). MatZeroRows_MPIAIJ() hands the sorted
   local rows to its diagonal block, so a rank with an empty row in the diagonal block (a row whose
   entries are all off-process, or no entries) before a nonempty zeroed row hits it.

   The rows are zeroed here in an order with which that cannot happen: rows out of range first
   (PETSc's own check then fails before anything changed), then rows that are not empty or whose
   diagonal is outside the block, then the empty rows that get a diagonal entry, each once. Zeroing
   is the same whatever the order, so the result is what MatZeroRows() documents, with the same
   errors (MAT_NEW_NONZERO_LOCATIONS, MAT_KEEP_NONZERO_PATTERN) and no extra communication.
   For mpiaijhybrid the diagonal block's zerorows is replaced by the reordering one for the time of
   AIJ's MatZeroRows_MPIAIJ() only. tests/unit/zerorows_empty.c checks the result.
*/
#include "aijhybridimpl.h"

typedef PetscErrorCode (*AIJHybridZeroRowsFn)(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);

/* the diagonal block's own zerorows while MatZeroRows_MPIAIJ() runs (PETSc is not called from several threads) */
static AIJHybridZeroRowsFn AIJHybridBlockZeroRows;

/* whether row r of the sequential matrix A has no entry */
static PetscErrorCode MatAIJHybridRowEmpty(Mat A, PetscInt r, PetscBool *empty)
{
  PetscInt nz;

  PetscFunctionBegin;
  PetscCall(MatGetRow(A, r, &nz, NULL, NULL));
  *empty = nz ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(MatRestoreRow(A, r, NULL, NULL, NULL)); /* it zeroes the count it is given */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* zero the rows of the sequential matrix A with zerorows, empty rows that get a diagonal entry last */
static PetscErrorCode MatZeroRows_AIJHybrid_EmptyLast(Mat A, AIJHybridZeroRowsFn zerorows, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscInt      *order, *empty, nfirst = 0, nempty = 0, m, n, i;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  if (diag == 0.0 || N <= 0) {
    PetscCall((*zerorows)(A, N, rows, diag, x, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(PetscMalloc2(N, &order, N, &empty));
  for (i = 0; i < N; i++) /* out of range: AIJ's check fails before any row changed */
    if (rows[i] < 0 || rows[i] >= m) order[nfirst++] = rows[i];
  for (i = 0; i < N; i++) { /* then the rows that get no new entry, in the order given */
    const PetscInt r       = rows[i];
    PetscBool      isempty = PETSC_FALSE;

    if (r < 0 || r >= m) continue;
    if (r < n) PetscCall(MatAIJHybridRowEmpty(A, r, &isempty));
    if (isempty) empty[nempty++] = r;
    else order[nfirst++] = r;
  }
  /* then the empty rows with their diagonal in the block, each once (a row listed twice would come
     back with one entry after its first insertion) */
  PetscCall(PetscSortRemoveDupsInt(&nempty, empty));
  PetscCall(PetscArraycpy(order + nfirst, empty, nempty));
  ierr = (*zerorows)(A, nfirst + nempty, order, diag, x, b);
  PetscCall(PetscFree2(order, empty)); /* freed on error too: a row out of range is an error the caller can recover from */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal block's zerorows during MatZeroRows_MPIAIJ() */
static PetscErrorCode MatZeroRows_AIJHybrid_Block(Mat Ad, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCheck(AIJHybridBlockZeroRows, PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: block zerorows called outside MatZeroRows()");
  PetscCall(MatZeroRows_AIJHybrid_EmptyLast(Ad, AIJHybridBlockZeroRows, N, rows, diag, x, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroRows_AIJHybrid(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_AIJHybrid *ctx;
  Mat            Ad;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatAIJHybridGetContext(A, &ctx));
  if (!ctx->info->mpi) {
    PetscCall(MatZeroRows_AIJHybrid_EmptyLast(A, ctx->parentops.zerorows, N, rows, diag, x, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  PetscCheck(!AIJHybridBlockZeroRows, PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijhybrid: nested MatZeroRows()");
  PetscCall(PetscObjectReference((PetscObject)Ad)); /* alive until its operation is restored */
  AIJHybridBlockZeroRows = Ad->ops->zerorows;
  Ad->ops->zerorows      = MatZeroRows_AIJHybrid_Block;
  ierr                   = (*ctx->parentops.zerorows)(A, N, rows, diag, x, b);
  Ad->ops->zerorows      = AIJHybridBlockZeroRows; /* restored on error too */
  AIJHybridBlockZeroRows = NULL;
  PetscCall(MatDestroy(&Ad));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
