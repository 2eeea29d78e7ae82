/*
   The test matrices of the factorization tests (factor_solves.c, numeric_factor.c, factor_blocks.c):
   the kinds (MatKind, their names in matnames[]), their sizes, the off-diagonal pattern of each row
   (FactorTestPattern()), the pseudo-random values from (row, column) hashes (U01(), Off()) and the
   assembly of an aij matrix of a kind row by row, diagonally dominant (FactorTestBuild()). Every
   value comes from a hash of its row and column, so a matrix is the same on any number of ranks.
   factor_blocks.c builds its own values (and random and banded patterns) on these patterns.
   Include after unitcheck.h (Hash()).
*/
#ifndef AIJHYBRID_FACTORTEST_H
#define AIJHYBRID_FACTORTEST_H

#include <petscmat.h>

typedef enum {
  MAT_POISSON,      /* 3D Poisson 7-point, m^3 rows */
  MAT_EXTRUDED,     /* an extruded mesh (9-point base, 6 layers) numbered column by column, 6 m^2 rows */
  MAT_RANDOM,       /* 4 random columns per row (and, when symmetric, the transposed ones), m^3 rows */
  MAT_CONVECTION,   /* 2D 5-point, 2m x 2m, upwind convection (unsymmetric values), 4 m^2 rows */
  MAT_RANDOM_UNSYM, /* MAT_RANDOM's pattern, unsymmetric */
  MAT_BANDED,       /* a random pattern within 6 of the diagonal, m^3 rows */
  MAT_BLOCK,        /* 3 dofs per node of an m x m grid, 5-point coupling, full 3x3 blocks (inodes), 3 m^2 rows */
  MAT_WEAK,         /* factor_blocks.c: Poisson's pattern with rows on their own with a zero or tiny diagonal */
  NMATKINDS
} MatKind;
static const char *matnames[] PETSC_UNUSED = {"poisson", "extruded", "random", "convection", "random-unsym", "banded", "block3", "weak"};

/* uniform in [0, 1) from (a, b) */
static inline PetscReal U01(unsigned long long a, unsigned long long b)
{
  return (PetscReal)(Hash(a, b) % 1000003) / 1000003.0;
}

/* an off-diagonal value; symmetric in (i, j) when sym */
static inline PetscScalar Off(PetscInt i, PetscInt j, PetscBool sym)
{
  const PetscInt a = sym ? PetscMin(i, j) : i, b = sym ? PetscMax(i, j) : j;
  PetscScalar    v = -0.2 - 0.6 * U01((unsigned long long)a, (unsigned long long)b);
#if defined(PETSC_USE_COMPLEX)
  v += PETSC_i * 0.1 * (U01((unsigned long long)b, (unsigned long long)a) - 0.5);
#endif
  return v;
}

/* the number of rows of the matrix of kind with m points per direction */
static inline PetscInt FactorTestSize(MatKind kind, PetscInt m)
{
  switch (kind) {
  case MAT_EXTRUDED:
    return 6 * m * m;
  case MAT_CONVECTION:
    return 4 * m * m;
  case MAT_BLOCK:
    return 3 * m * m;
  default:
    return m * m * m;
  }
}

/* the columns of row i of the matrix of kind (n rows) but the diagonal, into cols (room for 128); sym: MAT_RANDOM's pattern symmetric */
static inline void FactorTestPattern(MatKind kind, PetscInt m, PetscInt n, PetscInt i, PetscBool sym, PetscInt cols[], PetscInt *ncols)
{
  PetscInt nc = 0;

  switch (kind) {
  case MAT_POISSON:
  case MAT_WEAK: {
    const PetscInt x = i % m, y = (i / m) % m, z = i / (m * m);
    const PetscInt nb[6][3] = {
      {-1, 0,  0 },
      {1,  0,  0 },
      {0,  -1, 0 },
      {0,  1,  0 },
      {0,  0,  -1},
      {0,  0,  1 }
    };
    for (PetscInt q = 0; q < 6; q++) {
      const PetscInt xx = x + nb[q][0], yy = y + nb[q][1], zz = z + nb[q][2];
      if (xx < 0 || yy < 0 || zz < 0 || xx >= m || yy >= m || zz >= m) continue;
      cols[nc++] = xx + m * (yy + m * zz);
    }
  } break;
  case MAT_EXTRUDED: { /* columns of `layers` cells, numbered column by column; a 9-point base */
    const PetscInt layers = 6, k = i % layers, c = i / layers, x = c % m, y = c / m;
    if (k > 0) cols[nc++] = i - 1;
    if (k < layers - 1) cols[nc++] = i + 1;
    for (PetscInt dx = -1; dx <= 1; dx++)
      for (PetscInt dy = -1; dy <= 1; dy++) {
        const PetscInt xx = x + dx, yy = y + dy;
        if ((!dx && !dy) || xx < 0 || yy < 0 || xx >= m || yy >= m) continue;
        cols[nc++] = k + layers * (xx + m * yy);
      }
  } break;
  case MAT_RANDOM: /* a few random columns; symmetric: also the j whose random columns hit i */
  case MAT_RANDOM_UNSYM:
    for (PetscInt l = 0; l < 4; l++) {
      const PetscInt j = (PetscInt)(Hash(77 + l, (unsigned long long)i) % (unsigned long long)n);
      if (j != i) cols[nc++] = j;
    }
    if (sym)
      for (PetscInt j = 0; j < n; j++)
        for (PetscInt l = 0; l < 4; l++)
          if ((PetscInt)(Hash(77 + l, (unsigned long long)j) % (unsigned long long)n) == i && j != i && nc < 120) cols[nc++] = j;
    break;
  case MAT_CONVECTION: { /* 2D 5-point, 2m x 2m */
    const PetscInt w = 2 * m, x = i % w, y = i / w;
    if (x > 0) cols[nc++] = i - 1;
    if (x < w - 1) cols[nc++] = i + 1;
    if (y > 0) cols[nc++] = i - w;
    if (y < w - 1) cols[nc++] = i + w;
  } break;
  case MAT_BANDED:
    for (PetscInt j = PetscMax(0, i - 6); j < PetscMin(n, i + 7); j++) {
      if (j == i || Hash((unsigned long long)PetscMin(i, j), (unsigned long long)PetscMax(i, j)) % 3 == 0) continue;
      cols[nc++] = j;
    }
    break;
  case MAT_BLOCK: { /* 3 dofs per node of an m x m grid, 5-point coupling, full 3x3 blocks */
    const PetscInt node = i / 3, x = node % m, y = node / m;
    const PetscInt nb[5][2] = {
      {0,  0 },
      {-1, 0 },
      {1,  0 },
      {0,  -1},
      {0,  1 }
    };
    for (PetscInt q = 0; q < 5; q++) {
      const PetscInt xx = x + nb[q][0], yy = y + nb[q][1];
      if (xx < 0 || yy < 0 || xx >= m || yy >= m) continue;
      for (PetscInt d = 0; d < 3; d++) {
        const PetscInt j = 3 * (xx + m * yy) + d;
        if (j != i) cols[nc++] = j;
      }
    }
  } break;
  default:
    break;
  }
  *ncols = nc;
}

/*
   the matrix of kind on comm (type aij, rows split by PETSC_DECIDE), diagonally dominant: the
   off-diagonal values offscale * Off() (symmetric when sym; MAT_CONVECTION's left of the diagonal
   2.5 times, upwind), the diagonal 1 + the sum of their magnitudes + a hash in [0, 0.5); zerodiag:
   every 7th row has a zero diagonal and no entries left of it (a zero pivot without a shift)
*/
static inline PetscErrorCode FactorTestBuild(MPI_Comm comm, MatKind kind, PetscInt m, PetscBool sym, PetscReal offscale, PetscBool zerodiag, Mat *A)
{
  const PetscInt n = FactorTestSize(kind, m);
  PetscInt       rs, re, cols[128], nc;
  PetscScalar    vals[128];

  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 128, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 128, NULL, 128, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscScalar diag = 0.0;

    FactorTestPattern(kind, m, n, i, sym, cols, &nc);
    for (PetscInt q = 0; q < nc; q++) {
      vals[q] = offscale * Off(i, cols[q], sym);
      if (kind == MAT_CONVECTION && cols[q] < i) vals[q] *= 2.5; /* upwind */
      if (zerodiag && i % 7 == 3 && cols[q] < i) vals[q] = 0.0;
      if (zerodiag && sym && cols[q] % 7 == 3 && cols[q] > i) vals[q] = 0.0; /* (symmetric: and the transposed entries) */
      diag += PetscAbsScalar(vals[q]);
    }
    cols[nc]   = i;
    vals[nc++] = (zerodiag && i % 7 == 3) ? 0.0 : 1.0 + diag + 0.5 * U01(5, (unsigned long long)i);
    PetscCall(MatSetValues(*A, 1, &i, nc, cols, vals, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (sym) PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

#endif
