/*
   Pure SOR kernels over one block of rows [rs, re) of a CSR matrix, on raw arrays. They call
   nothing: safe on any thread.

   A block is a contiguous range of rows and the same range of columns (a thread's rows of a
   rank's diagonal block). Entry positions of row i: [ai[i], lo[i]) and [hi[i], ai[i+1]) lie outside
   the block's columns (off-block), [lo[i], hi[i]) inside, the diagonal at dg[i] in between
   (AIJHybridSORPositions() finds them; columns sorted, as AIJ keeps them).

   AIJHybridSORSweep is MatSOR_SeqAIJ's sweep (without inodes) applied to the block alone: the
   same operations in the same order on the block's entries, with the right-hand side bl (b, or b
   minus the off-block part). idiag[i] = omega / (fshift + a_ii), or 1 / a_ii when omega = 1 and
   fshift <= 0, as MatInvertDiagonal_SeqAIJ computes it; mdiag[i] = a_ii.
*/
#ifndef AIJHYBRID_KERNELS_SOR_H
#define AIJHYBRID_KERNELS_SOR_H

#include <petscsys.h>

/* the in-block range [lo, hi) and the diagonal position dg of rows [rs, re) (dg = -1: no diagonal
   entry) */
static inline void AIJHybridSORPositions(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, PetscInt *PETSC_RESTRICT lo, PetscInt *PETSC_RESTRICT dg, PetscInt *PETSC_RESTRICT hi)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscInt p = ai[i];

    while (p < ai[i + 1] && aj[p] < rs) p++;
    lo[i] = p;
    dg[i] = -1;
    while (p < ai[i + 1] && aj[p] < re) {
      if (aj[p] == i) dg[i] = p;
      p++;
    }
    hi[i] = p;
  }
}

/* the right-hand side of a local sweep: bl[i] = b[i] - (off-block entries of row i) x, the entries
   left of the block, then right of it, then those of the off-process block (oi/oj/oa with the
   ghost values g; oi NULL: none), each subtracted in turn.
   eisenstat: instead bl[i] = b[i] + scale * (a_ii x[i]) + (off-block entries) x, each added in
   turn: the right-hand side of MatSOR_MPIAIJ's Eisenstat step. */
static inline void AIJHybridSORRhs(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT ai, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscInt *PETSC_RESTRICT lo, const PetscInt *PETSC_RESTRICT hi,
                                   const PetscInt *oi, const PetscInt *oj, const PetscScalar *oa, const PetscScalar *g, const PetscScalar *b, const PetscScalar *x, PetscBool eisenstat, PetscScalar scale, const PetscScalar *mdiag,
                                   PetscScalar *PETSC_RESTRICT bl)
{
  for (PetscInt i = rs; i < re; i++) {
    PetscScalar s = b[i];

    if (!eisenstat) {
      for (PetscInt p = ai[i]; p < lo[i]; p++) s -= aa[p] * x[aj[p]];
      for (PetscInt p = hi[i]; p < ai[i + 1]; p++) s -= aa[p] * x[aj[p]];
      if (oi)
        for (PetscInt p = oi[i]; p < oi[i + 1]; p++) s -= oa[p] * g[oj[p]];
    } else {
      s += scale * (mdiag[i] * x[i]);
      for (PetscInt p = ai[i]; p < lo[i]; p++) s += aa[p] * x[aj[p]];
      for (PetscInt p = hi[i]; p < ai[i + 1]; p++) s += aa[p] * x[aj[p]];
      if (oi)
        for (PetscInt p = oi[i]; p < oi[i + 1]; p++) s += oa[p] * g[oj[p]];
    }
    bl[i] = s;
  }
}

/* MatSOR_SeqAIJ's SOR_APPLY_UPPER on the block: x = (U + D/omega) b, U the block's strictly upper part */
static inline void AIJHybridSORApplyUpper(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscInt *PETSC_RESTRICT dg, const PetscInt *PETSC_RESTRICT hi,
                                          const PetscScalar *PETSC_RESTRICT mdiag, PetscReal omega, PetscReal fshift, const PetscScalar *b, PetscScalar *x)
{
  for (PetscInt i = rs; i < re; i++) {
    const PetscScalar d   = fshift + mdiag[i];
    PetscScalar       sum = b[i] * d / omega;

    for (PetscInt p = dg[i] + 1; p < hi[i]; p++) sum += aa[p] * b[aj[p]];
    x[i] = sum;
  }
}

/*
  AIJHybridSORSweep - its local sweeps over the block (MatSOR_SeqAIJ with its iterations), forward,
  backward or both (symmetric: forward then backward), from x (zero: from zero, the first sweep
  reading no old value of x). bl: the right-hand side; t: scratch of the rows (the lower part saved
  by a forward sweep for the backward one).
*/
static inline void AIJHybridSORSweep(PetscInt rs, PetscInt re, const PetscInt *PETSC_RESTRICT aj, const PetscScalar *PETSC_RESTRICT aa, const PetscInt *PETSC_RESTRICT lo, const PetscInt *PETSC_RESTRICT dg, const PetscInt *PETSC_RESTRICT hi,
                                     const PetscScalar *PETSC_RESTRICT idiag, const PetscScalar *PETSC_RESTRICT mdiag, PetscReal omega, PetscBool forward, PetscBool backward, PetscBool zero, PetscInt its, const PetscScalar *bl, PetscScalar *x,
                                     PetscScalar *t)
{
  const PetscScalar *xb;

  if (zero) {
    if (forward) {
      for (PetscInt i = rs; i < re; i++) {
        PetscScalar sum = bl[i];

        for (PetscInt p = lo[i]; p < dg[i]; p++) sum -= aa[p] * x[aj[p]];
        t[i] = sum;
        x[i] = sum * idiag[i];
      }
      xb = t;
    } else xb = bl;
    if (backward) {
      for (PetscInt i = re - 1; i >= rs; i--) {
        PetscScalar sum = xb[i];

        for (PetscInt p = dg[i] + 1; p < hi[i]; p++) sum -= aa[p] * x[aj[p]];
        if (xb == bl) x[i] = sum * idiag[i];
        else x[i] = (1 - omega) * x[i] + sum * idiag[i];
      }
    }
    its--;
  }
  while (its-- > 0) {
    if (forward) {
      for (PetscInt i = rs; i < re; i++) {
        PetscScalar sum = bl[i];

        for (PetscInt p = lo[i]; p < dg[i]; p++) sum -= aa[p] * x[aj[p]];
        t[i] = sum;
        for (PetscInt p = dg[i] + 1; p < hi[i]; p++) sum -= aa[p] * x[aj[p]];
        x[i] = (1. - omega) * x[i] + sum * idiag[i];
      }
      xb = t;
    } else xb = bl;
    if (backward) {
      for (PetscInt i = re - 1; i >= rs; i--) {
        PetscScalar sum = xb[i];

        if (xb == bl) {
          for (PetscInt p = lo[i]; p < hi[i]; p++) sum -= aa[p] * x[aj[p]];
          x[i] = (1. - omega) * x[i] + (sum + mdiag[i] * x[i]) * idiag[i];
        } else {
          for (PetscInt p = dg[i] + 1; p < hi[i]; p++) sum -= aa[p] * x[aj[p]];
          x[i] = (1. - omega) * x[i] + sum * idiag[i];
        }
      }
    }
  }
}

#endif
