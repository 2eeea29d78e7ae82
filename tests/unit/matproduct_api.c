#include <petscaijhybrid.h>
#include <petsc/private/matimpl.h> /* Mat_Product: the algorithm a product chose */
/*
   The MatProduct API on aijhybrid operands, against the same calls on aij operands:
     - MatProductCreate/SetType/SetAlgorithm(default)/SetFill/SetFromOptions/Symbolic/Numeric for
       AB, AtB, ABt, PtAP, RARt chooses "aijhybrid" and equals aij's product (the symbolic phase
       without values: the values come from the numeric phase);
     - MatProductReplaceMats() with new matrices of the same pattern (first operand, then second)
       and MatProductNumeric() again; MatPtAP(MAT_REUSE_MATRIX) after new values;
     - PETSc's algorithms on request: MatProductSetAlgorithm() with one of PETSc's names, the options
       -mat_product_algorithm and -matptap_via / -matmatmult_via, and "aijhybrid" asked for by name;
     - mixed operands (aijhybrid with aij): PETSc's implementation, same values;
     - MAT_FORCE_DIAGONAL_ENTRIES on AB and AtB: the diagonal allocated as aij's (PETSc's
       implementation), the option set after MatProductSetFromOptions() refused;
     - MatProductClear(): the result stays a usable matrix.
   Values are compared with a relative tolerance of 1e-12 (max norm of the difference over the
   reference's). Prints "matproduct_api: N checks passed"; fails with a PETSc error otherwise.
*/
static PetscInt nchecks = 0;

#define CHECK(cond, ...) \
  do { \
    PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__); \
    nchecks++; \
  } while (0)

/* a 2D 5-point Laplacian on an n x n grid (values varying with the row and `shift`) */
static PetscErrorCode Laplacian(MPI_Comm comm, PetscInt n, PetscReal shift, MatType type, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 4, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt g = rs; g < re; g++) {
    PetscInt i = g / n, j = g % n;

    PetscCall(MatSetValue(*A, g, g, 4.0 + shift + 0.01 * (PetscReal)(g % 7), INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(*A, g, g - n, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, g, g + n, -1.0 - shift, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(*A, g, g - 1, -1.0, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(*A, g, g + 1, -1.0 + 0.5 * shift, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* an N x N/4 aggregation-like interpolation: row i has N/4 columns i/4 and i/4 + 1 */
static PetscErrorCode Interpolation(MPI_Comm comm, PetscInt N, PetscReal w, MatType type, Mat *P)
{
  PetscInt rs, re, nc = N / 4;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, P));
  PetscCall(MatSetSizes(*P, PETSC_DECIDE, PETSC_DECIDE, N, nc));
  PetscCall(MatSetType(*P, type));
  PetscCall(MatSeqAIJSetPreallocation(*P, 2, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*P, 2, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*P, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(*P, i, PetscMin(i / 4, nc - 1), 1.0, INSERT_VALUES));
    if (i / 4 + 1 < nc) PetscCall(MatSetValue(*P, i, i / 4 + 1, w, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* max |X - Y| / max |Y| */
static PetscErrorCode RelDiff(Mat X, Mat Y, PetscReal *err)
{
  Mat       D;
  PetscReal nd, ny;

  PetscFunctionBegin;
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatAXPY(D, -1.0, Y, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_MAX, &nd));
  PetscCall(MatNorm(Y, NORM_MAX, &ny));
  *err = ny > 0 ? nd / ny : nd;
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

/* X (any type) has Y's (aij) size, nonzero count and values (within 1e-12) */
static PetscErrorCode SameProduct(Mat X, Mat Y, const char *what)
{
  PetscReal err = 0.0;
  MatInfo   ix, iy;
  PetscInt  m, n, my, ny;

  PetscFunctionBegin;
  PetscCall(MatGetSize(X, &m, &n));
  PetscCall(MatGetSize(Y, &my, &ny));
  CHECK(m == my && n == ny, "%s: size %" PetscInt_FMT "x%" PetscInt_FMT " instead of %" PetscInt_FMT "x%" PetscInt_FMT, what, m, n, my, ny);
  PetscCall(MatGetInfo(X, MAT_GLOBAL_SUM, &ix));
  PetscCall(MatGetInfo(Y, MAT_GLOBAL_SUM, &iy));
  CHECK(ix.nz_used == iy.nz_used, "%s: %g entries instead of %g", what, (double)ix.nz_used, (double)iy.nz_used);
  PetscCall(RelDiff(X, Y, &err));
  CHECK(err <= 1e-12, "%s: relative difference %g from aij's", what, (double)err);
  PetscFunctionReturn(0);
}

static PetscErrorCode IsAlgorithm(Mat C, const char *alg, const char *what)
{
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(C->product->alg, alg, &same));
  CHECK(same, "%s: algorithm %s, expected %s", what, C->product->alg, alg);
  PetscFunctionReturn(0);
}

static PetscErrorCode IsHybrid(Mat C, const char *what)
{
  PetscBool hyb;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)C, &hyb, MATSEQAIJHYBRID, MATMPIAIJHYBRID, ""));
  CHECK(hyb, "%s: result of type %s", what, ((PetscObject)C)->type_name);
  PetscFunctionReturn(0);
}

/* the reference product of the aij operands */
static PetscErrorCode Reference(MatProductType type, Mat A, Mat B, Mat *C)
{
  PetscFunctionBegin;
  switch (type) {
  case MATPRODUCT_AB:
    PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatTransposeMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatMatTransposeMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatPtAP(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatRARt(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, C));
    break;
  default:
    break;
  }
  PetscFunctionReturn(0);
}

/* PETSc's mat/tests/ex81 matrix: tridiagonal of n rows with an empty row and column 0, so that its
   products lack the diagonal entry (0,0) */
static PetscErrorCode EmptyFirst(MPI_Comm comm, PetscInt n, MatType type, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 3, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = PetscMax(rs, 1); i < re; i++)
    for (PetscInt j = PetscMax(i - 1, 1); j <= PetscMin(i + 1, n - 1); j++) PetscCall(MatSetValue(*A, i, j, i == j ? 2.0 : -1.0 - 0.01 * (PetscReal)i, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  const PetscInt n = 32, N = n * n;
  Mat            Aa, Ah, A2a, A2h, Pa, Ph, P2a, P2h, Ra, Rh, Ba, Bh, C, Cref;
  MatProductType types[] = {MATPRODUCT_AB, MATPRODUCT_AtB, MATPRODUCT_ABt, MATPRODUCT_PtAP, MATPRODUCT_RARt};
  char           what[128];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatAIJHybridInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCall(Laplacian(comm, n, 0.0, MATAIJ, &Aa));
  PetscCall(Laplacian(comm, n, 0.3, MATAIJ, &A2a)); /* same pattern, other values */
  PetscCall(Interpolation(comm, N, 0.5, MATAIJ, &Pa));
  PetscCall(Interpolation(comm, N, -0.25, MATAIJ, &P2a));
  PetscCall(MatTranspose(Pa, MAT_INITIAL_MATRIX, &Ra));
  PetscCall(MatConvert(Aa, MATAIJHYBRID, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(MatConvert(A2a, MATAIJHYBRID, MAT_INITIAL_MATRIX, &A2h));
  PetscCall(MatConvert(Pa, MATAIJHYBRID, MAT_INITIAL_MATRIX, &Ph));
  PetscCall(MatConvert(P2a, MATAIJHYBRID, MAT_INITIAL_MATRIX, &P2h));
  PetscCall(MatConvert(Ra, MATAIJHYBRID, MAT_INITIAL_MATRIX, &Rh));

  /* the whole API, every product type; then new matrices of the same pattern */
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
    MatProductType type = types[k];
    Mat            Xh = Ah, Yh = Ph, Xa = Aa, Ya = Pa, X2h = A2h, X2a = A2a, Y2h = P2h, Y2a = P2a;

    if (type == MATPRODUCT_AtB) { /* P^T P2 */
      Xh  = Ph;
      Xa  = Pa;
      X2h = P2h;
      X2a = P2a;
    }
    if (type == MATPRODUCT_ABt || type == MATPRODUCT_RARt) { /* A R^T: R = P^T, and its other values (P2^T) */
      Yh = Rh;
      Ya = Ra;
      PetscCall(MatTranspose(P2a, MAT_INITIAL_MATRIX, &Y2a));
      PetscCall(MatConvert(Y2a, MATAIJHYBRID, MAT_INITIAL_MATRIX, &Y2h));
    }
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatProduct %s", MatProductTypes[type]));
    PetscCall(MatProductCreate(Xh, Yh, NULL, &C));
    PetscCall(MatProductSetType(C, type));
    PetscCall(MatProductSetAlgorithm(C, MATPRODUCTALGORITHMDEFAULT));
    PetscCall(MatProductSetFill(C, PETSC_DEFAULT));
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(IsAlgorithm(C, MATPRODUCTALGORITHMAIJHYBRID, what));
    PetscCall(MatProductSymbolic(C));
    PetscCall(MatProductNumeric(C));
    PetscCall(IsHybrid(C, what));
    PetscCall(Reference(type, Xa, Ya, &Cref));
    PetscCall(SameProduct(C, Cref, what));
    PetscCall(MatDestroy(&Cref));
    /* a new first operand */
    PetscCall(MatProductReplaceMats(X2h, NULL, NULL, C));
    PetscCall(MatProductNumeric(C));
    PetscCall(Reference(type, X2a, Ya, &Cref));
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatProduct %s, first operand replaced", MatProductTypes[type]));
    PetscCall(SameProduct(C, Cref, what));
    PetscCall(MatDestroy(&Cref));
    /* a new second operand */
    PetscCall(MatProductReplaceMats(NULL, Y2h, NULL, C));
    PetscCall(MatProductNumeric(C));
    PetscCall(Reference(type, X2a, Y2a, &Cref));
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatProduct %s, both operands replaced", MatProductTypes[type]));
    PetscCall(SameProduct(C, Cref, what));
    PetscCall(MatDestroy(&Cref));
    /* cleared: the result stays a matrix */
    PetscCall(MatProductClear(C));
    PetscCall(Reference(type, X2a, Y2a, &Cref));
    PetscCall(PetscSNPrintf(what, sizeof(what), "MatProduct %s, cleared", MatProductTypes[type]));
    PetscCall(SameProduct(C, Cref, what));
    PetscCall(MatDestroy(&Cref));
    PetscCall(MatDestroy(&C));
    if (type == MATPRODUCT_ABt || type == MATPRODUCT_RARt) {
      PetscCall(MatDestroy(&Y2a));
      PetscCall(MatDestroy(&Y2h));
    }
  }
  PetscCall(PetscPrintf(comm, "matproduct_api: MatProductCreate/.../ReplaceMats/Clear match aij for AB, AtB, ABt, PtAP, RARt\n"));

  /* MatPtAP with MAT_REUSE_MATRIX after new values (the symbolic phase made the values too) */
  PetscCall(MatPtAP(Ah, Ph, MAT_INITIAL_MATRIX, 2.0, &C));
  PetscCall(IsAlgorithm(C, MATPRODUCTALGORITHMAIJHYBRID, "MatPtAP"));
  PetscCall(MatScale(Ah, 3.0));
  PetscCall(MatScale(Aa, 3.0));
  PetscCall(MatPtAP(Ah, Ph, MAT_REUSE_MATRIX, 2.0, &C));
  PetscCall(MatPtAP(Aa, Pa, MAT_INITIAL_MATRIX, 2.0, &Cref));
  PetscCall(SameProduct(C, Cref, "MatPtAP reused after new values"));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&C));

  /* PETSc's algorithms: by MatProductSetAlgorithm(), by the options, and ours by name */
  {
    PetscMPIInt size;
    const char *petscptap, *petscab;

    PetscCallMPI(MPI_Comm_size(comm, &size));
    petscptap = size > 1 ? "nonscalable" : "rap";
    petscab   = size > 1 ? "seqmpi" : "heap";
    PetscCall(MatProductCreate(Ah, Ph, NULL, &C));
    PetscCall(MatProductSetType(C, MATPRODUCT_PtAP));
    PetscCall(MatProductSetAlgorithm(C, petscptap));
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(IsAlgorithm(C, petscptap, "MatProductSetAlgorithm() with one of PETSc's"));
    PetscCall(MatProductSymbolic(C));
    PetscCall(MatProductNumeric(C));
    PetscCall(MatPtAP(Aa, Pa, MAT_INITIAL_MATRIX, 2.0, &Cref));
    PetscCall(SameProduct(C, Cref, "PETSc's PtAP on aijhybrid operands"));
    PetscCall(MatDestroy(&C));

    PetscCall(PetscOptionsSetValue(NULL, "-mat_product_algorithm", petscptap));
    PetscCall(MatProductCreate(Ah, Ph, NULL, &C));
    PetscCall(MatProductSetType(C, MATPRODUCT_PtAP));
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(IsAlgorithm(C, petscptap, "-mat_product_algorithm with one of PETSc's"));
    PetscCall(MatDestroy(&C));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_product_algorithm", MATPRODUCTALGORITHMAIJHYBRID));
    PetscCall(MatProductCreate(Ah, Ph, NULL, &C));
    PetscCall(MatProductSetType(C, MATPRODUCT_PtAP));
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(IsAlgorithm(C, MATPRODUCTALGORITHMAIJHYBRID, "-mat_product_algorithm aijhybrid"));
    PetscCall(MatDestroy(&C));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_product_algorithm"));

    PetscCall(PetscOptionsSetValue(NULL, "-matptap_via", petscptap));
    PetscCall(MatPtAP(Ah, Ph, MAT_INITIAL_MATRIX, 2.0, &C));
    PetscCall(IsAlgorithm(C, petscptap, "-matptap_via with one of PETSc's"));
    PetscCall(SameProduct(C, Cref, "-matptap_via"));
    PetscCall(MatDestroy(&C));
    PetscCall(PetscOptionsClearValue(NULL, "-matptap_via"));
    PetscCall(MatDestroy(&Cref));

    PetscCall(PetscOptionsSetValue(NULL, "-matmatmult_via", petscab));
    PetscCall(MatMatMult(Ah, Ph, MAT_INITIAL_MATRIX, 2.0, &C));
    PetscCall(IsAlgorithm(C, petscab, "-matmatmult_via with one of PETSc's"));
    PetscCall(MatMatMult(Aa, Pa, MAT_INITIAL_MATRIX, 2.0, &Cref));
    PetscCall(SameProduct(C, Cref, "-matmatmult_via"));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cref));
    PetscCall(PetscOptionsClearValue(NULL, "-matmatmult_via"));
  }
  PetscCall(PetscPrintf(comm, "matproduct_api: PETSc's algorithms chosen by MatProductSetAlgorithm() and by the options\n"));

  /* mixed operands: PETSc's implementation */
  PetscCall(MatPtAP(Ah, Pa, MAT_INITIAL_MATRIX, 2.0, &C));
  PetscCall(MatPtAP(Aa, Pa, MAT_INITIAL_MATRIX, 2.0, &Cref));
  PetscCall(SameProduct(C, Cref, "PtAP of aijhybrid with aij"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatMatMult(Pa, Rh, MAT_INITIAL_MATRIX, 2.0, &C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatMatMult(Pa, Ra, MAT_INITIAL_MATRIX, 2.0, &Cref));
  PetscCall(SameProduct(C, Cref, "AB of aij with aijhybrid"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatConvert(Ph, MATDENSE, MAT_INITIAL_MATRIX, &Ba));
  PetscCall(MatMatMult(Ah, Ba, MAT_INITIAL_MATRIX, 2.0, &Bh));
  PetscCall(MatMatMult(Aa, Ba, MAT_INITIAL_MATRIX, 2.0, &Cref));
  PetscCall(SameProduct(Bh, Cref, "AB of aijhybrid with dense"));
  PetscCall(MatDestroy(&Ba));
  PetscCall(MatDestroy(&Bh));
  PetscCall(MatDestroy(&Cref));
  PetscCall(PetscPrintf(comm, "matproduct_api: mixed operands through PETSc's implementations\n"));

  /* MAT_FORCE_DIAGONAL_ENTRIES on the product (PETSc's mat/tests/ex81): AB and AtB allocate the
     missing diagonal as aij's do (PETSc's implementation); set too late, the plugin's refuses it */
  {
    Mat            Ea, Eh;
    MatProductType ftypes[] = {MATPRODUCT_AB, MATPRODUCT_AtB};
    PetscErrorCode ierr;

    PetscCall(EmptyFirst(comm, 40, MATAIJ, &Ea));
    PetscCall(MatConvert(Ea, MATAIJHYBRID, MAT_INITIAL_MATRIX, &Eh));
    for (PetscInt k = 0; k < 2; k++) {
      Mat X[2] = {Ea, Eh}, R[2];

      for (PetscInt t = 0; t < 2; t++) {
        PetscCall(MatProductCreate(X[t], X[t], NULL, &R[t]));
        PetscCall(MatProductSetType(R[t], ftypes[k]));
        PetscCall(MatSetOption(R[t], MAT_FORCE_DIAGONAL_ENTRIES, PETSC_TRUE));
        PetscCall(MatProductSetFromOptions(R[t]));
        PetscCall(MatProductSymbolic(R[t]));
        PetscCall(MatProductNumeric(R[t]));
        PetscCall(MatSetOption(R[t], MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
        PetscCall(MatShift(R[t], 100.0)); /* fails if an entry of the diagonal is missing */
      }
      PetscCall(PetscSNPrintf(what, sizeof(what), "MAT_FORCE_DIAGONAL_ENTRIES %s", MatProductTypes[ftypes[k]]));
      PetscCall(SameProduct(R[1], R[0], what));
      PetscCall(MatDestroy(&R[0]));
      PetscCall(MatDestroy(&R[1]));
    }
    PetscCall(MatProductCreate(Eh, Eh, NULL, &C));
    PetscCall(MatProductSetType(C, MATPRODUCT_AB));
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(IsAlgorithm(C, MATPRODUCTALGORITHMAIJHYBRID, "AB without MAT_FORCE_DIAGONAL_ENTRIES"));
    PetscCall(MatSetOption(C, MAT_FORCE_DIAGONAL_ENTRIES, PETSC_TRUE));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatProductSymbolic(C);
    PetscCall(PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_SUP, "MAT_FORCE_DIAGONAL_ENTRIES after MatProductSetFromOptions(): error %d, expected %d", (int)ierr, (int)PETSC_ERR_SUP);
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Ea));
    PetscCall(MatDestroy(&Eh));
  }
  PetscCall(PetscPrintf(comm, "matproduct_api: MAT_FORCE_DIAGONAL_ENTRIES as aij\n"));

  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&A2a));
  PetscCall(MatDestroy(&A2h));
  PetscCall(MatDestroy(&Pa));
  PetscCall(MatDestroy(&Ph));
  PetscCall(MatDestroy(&P2a));
  PetscCall(MatDestroy(&P2h));
  PetscCall(MatDestroy(&Ra));
  PetscCall(MatDestroy(&Rh));
  PetscCall(PetscPrintf(comm, "matproduct_api: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(PetscFinalize());
  return 0;
}
