static char help[] = "MatSOR of aijhybrid against PETSc's own SeqAIJ sweep of each thread's block, bitwise.\n\
  -n <n>        : global rows\n\
  -threads <t>  : largest thread count\n\n";

/*
   The thread-local SOR of aijhybrid (src/mat/matsor.c) is defined as MPIAIJ's parallel SOR with the
   threads' row blocks in place of ranks. This program builds that reference from PETSc itself:
   for each thread block of each rank it takes the block as a SeqAIJ matrix of its own
   (MatCreateSubMatrix, inodes off) and sweeps it with PETSc's MatSOR, the right-hand side being b
   minus the entries outside the block times the previous values (the other blocks' and, through a
   scatter, the other ranks'), in the order documented in src/kernels/sor.h. For a random
   nonsymmetric matrix with off-process entries, at 1 to 3 threads, both partitions of rows and
   nonzeros, every flag MPIAIJ supports (local symmetric, forward, backward sweeps with and without
   zero initial guess, its and lits 1 and 2, omega 1 and 1.25, Eisenstat, apply upper):
     - MatSOR(aijhybrid) gives the bits of that reference (more than one thread);
     - with one thread, and with -mat_aijhybrid_sor_serial, it gives the bits of MatSOR(aij);
     - repeated calls give the same bits.
   Prints "sor_blocks: <n> checks passed".
*/
#include <petscaijhybrid.h>
#include <string.h>
#include "unitcheck.h"

static PetscScalar Val(unsigned long long a, unsigned long long b)
{
  PetscScalar v = (PetscReal)(Hash(a, b) % 2001) / 1000.0 - 1.0;
#if defined(PETSC_USE_COMPLEX)
  v += PETSC_i * ((PetscReal)(Hash(b, a) % 2001) / 4000.0 - 0.25);
#endif
  return v;
}

static PetscErrorCode Build(PetscInt n, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 16, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 16, NULL, 16, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscInt    cols[16], nc = 0;
    PetscScalar vals[16];

    cols[nc]   = i;
    vals[nc++] = 6.0 + (PetscReal)(Hash(3, (unsigned long long)i) % 100) / 100.0;
    for (PetscInt l = 0; l < 6; l++) { /* near and far columns */
      const PetscInt j = l < 3 ? (i + n + (PetscInt)(Hash(11 + l, (unsigned long long)i) % 15) - 7) % n : (PetscInt)(Hash(11 + l, (unsigned long long)i) % (unsigned long long)n);
      if (j == i) continue;
      cols[nc]   = j;
      vals[nc++] = Val((unsigned long long)i, (unsigned long long)j);
    }
    PetscCall(MatSetValues(*A, 1, &i, nc, cols, vals, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscInt nchecks = 0;

static PetscErrorCode SameBits(Vec a, const PetscScalar *ref, const char *what)
{
  const PetscScalar *x;
  PetscInt           n;
  int                same = 1, all;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  for (PetscInt i = 0; i < n; i++)
    if (memcmp(&x[i], &ref[i], sizeof(PetscScalar))) {
      if (same) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: local entry %" PetscInt_FMT ": %.17g against the reference %.17g\n", what, i, (double)PetscRealPart(x[i]), (double)PetscRealPart(ref[i])));
      same = 0;
    }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, PETSC_COMM_WORLD));
  PetscCheck(all, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s differs", what);
  nchecks++;
  PetscFunctionReturn(0);
}

typedef struct {
  Mat                Ad, Ao;
  const PetscInt    *ai, *aj, *oi, *oj, *bounds;
  const PetscScalar *aa, *oa;
  PetscInt           T, m, ng;
  Mat               *sub;  /* each block as a SeqAIJ matrix of its own */
  VecScatter         scat; /* ghost values */
  Vec                ghost;
} Ref;

static PetscErrorCode RefCreate(Mat A, Ref *r)
{
  const PetscInt *garray = NULL;
  PetscMPIInt     size;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(A, &r->Ad, &r->Ao, &garray));
  else r->Ad = A;
  PetscCall(MatAIJHybridGetPartition(A, &r->T, &r->bounds));
  PetscCall(MatSeqAIJGetCSRAndMemType(r->Ad, &r->ai, &r->aj, (PetscScalar **)&r->aa, NULL));
  PetscCall(MatGetLocalSize(r->Ad, &r->m, NULL));
  if (r->Ao) {
    IS  is;
    Vec x;

    PetscCall(MatSeqAIJGetCSRAndMemType(r->Ao, &r->oi, &r->oj, (PetscScalar **)&r->oa, NULL));
    PetscCall(MatGetLocalSize(r->Ao, NULL, &r->ng));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, r->ng, garray, PETSC_COPY_VALUES, &is));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, r->ng, &r->ghost));
    PetscCall(MatCreateVecs(A, &x, NULL));
    PetscCall(VecScatterCreate(x, is, r->ghost, NULL, &r->scat));
    PetscCall(VecDestroy(&x));
    PetscCall(ISDestroy(&is));
  }
  PetscCall(PetscMalloc1(r->T, &r->sub));
  for (PetscInt t = 0; t < r->T; t++) {
    IS is;

    PetscCall(ISCreateStride(PETSC_COMM_SELF, r->bounds[t + 1] - r->bounds[t], r->bounds[t], 1, &is));
    {
      Mat s; /* on one rank a submatrix of the seqaijhybrid matrix (possibly the matrix itself): a seqaij copy */

      PetscCall(MatCreateSubMatrix(r->Ad, is, is, MAT_INITIAL_MATRIX, &s));
      PetscCall(MatConvert(s, MATSEQAIJ, MAT_INITIAL_MATRIX, &r->sub[t]));
      PetscCall(MatDestroy(&s));
    }
    PetscCall(MatSetOption(r->sub[t], MAT_USE_INODES, PETSC_FALSE)); /* PETSc's plain SeqAIJ sweep */
    PetscCall(ISDestroy(&is));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RefDestroy(Ref *r)
{
  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < r->T; t++) PetscCall(MatDestroy(&r->sub[t]));
  PetscCall(PetscFree(r->sub));
  PetscCall(VecScatterDestroy(&r->scat));
  PetscCall(VecDestroy(&r->ghost));
  PetscFunctionReturn(0);
}

/* right-hand side of each block: b -/+ (entries outside the block) x, left, right, off-process */
static PetscErrorCode RefRhs(Ref *r, Vec X, const PetscScalar *b, PetscBool eis, PetscScalar scale, PetscScalar *bl)
{
  const PetscScalar *g = NULL, *x;

  PetscFunctionBeginUser;
  if (r->scat) {
    PetscCall(VecScatterBegin(r->scat, X, r->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(r->scat, X, r->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(r->ghost, &g));
  }
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt t = 0; t < r->T; t++)
    for (PetscInt i = r->bounds[t]; i < r->bounds[t + 1]; i++) {
      PetscScalar s = b[i], d = 0.0;

      for (PetscInt p = r->ai[i]; p < r->ai[i + 1]; p++)
        if (r->aj[p] == i) d = r->aa[p];
      if (eis) s += scale * (d * x[i]);
      for (PetscInt p = r->ai[i]; p < r->ai[i + 1]; p++)
        if (r->aj[p] < r->bounds[t]) s = eis ? s + r->aa[p] * x[r->aj[p]] : s - r->aa[p] * x[r->aj[p]];
      for (PetscInt p = r->ai[i]; p < r->ai[i + 1]; p++)
        if (r->aj[p] >= r->bounds[t + 1]) s = eis ? s + r->aa[p] * x[r->aj[p]] : s - r->aa[p] * x[r->aj[p]];
      for (PetscInt p = r->oi ? r->oi[i] : 0; r->oi && p < r->oi[i + 1]; p++) s = eis ? s + r->oa[p] * g[r->oj[p]] : s - r->oa[p] * g[r->oj[p]];
      bl[i] = s;
    }
  PetscCall(VecRestoreArrayRead(X, &x));
  if (r->scat) PetscCall(VecRestoreArrayRead(r->ghost, &g));
  PetscFunctionReturn(0);
}

/* PETSc's MatSOR of block t: x[block] from rhs[block] */
static PetscErrorCode RefBlockSOR(Ref *r, PetscInt t, const PetscScalar *rhs, PetscReal omega, MatSORType flag, PetscInt lits, PetscScalar *x)
{
  Vec            bv, xv;
  const PetscInt len = r->bounds[t + 1] - r->bounds[t];

  PetscFunctionBeginUser;
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, len, rhs + r->bounds[t], &bv));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, len, x + r->bounds[t], &xv));
  if (len) PetscCall(MatSOR(r->sub[t], bv, omega, flag, 0.0, lits, 1, xv));
  PetscCall(VecDestroy(&bv));
  PetscCall(VecDestroy(&xv));
  PetscFunctionReturn(0);
}

/* the reference of MatSOR(H, b, omega, flag, 0, its, lits, x): x in X's array */
static PetscErrorCode RefSOR(Ref *r, Vec B, PetscReal omega, MatSORType flag, PetscInt its, PetscInt lits, Vec X)
{
  const PetscScalar *b;
  PetscScalar       *x, *bl, *x1;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(r->m, &bl, r->m, &x1));
  PetscCall(VecGetArrayRead(B, &b));
  if (flag == SOR_APPLY_UPPER) {
    PetscCall(VecGetArray(X, &x));
    for (PetscInt t = 0; t < r->T; t++) PetscCall(RefBlockSOR(r, t, b, omega, flag, lits, x));
    PetscCall(VecRestoreArray(X, &x));
  } else if (flag & SOR_EISENSTAT) {
    PetscCall(VecGetArray(X, &x));
    for (PetscInt t = 0; t < r->T; t++) PetscCall(RefBlockSOR(r, t, b, omega, (MatSORType)(SOR_ZERO_INITIAL_GUESS | SOR_LOCAL_BACKWARD_SWEEP), lits, x));
    PetscCall(VecRestoreArray(X, &x));
    PetscCall(RefRhs(r, X, b, PETSC_TRUE, (omega - 2.0) / omega, bl));
    PetscCall(VecGetArray(X, &x));
    for (PetscInt t = 0; t < r->T; t++) PetscCall(RefBlockSOR(r, t, bl, omega, (MatSORType)(SOR_ZERO_INITIAL_GUESS | SOR_LOCAL_FORWARD_SWEEP), lits, x1));
    for (PetscInt i = 0; i < r->m; i++) x[i] += x1[i];
    PetscCall(VecRestoreArray(X, &x));
  } else {
    const MatSORType sweep = (flag & SOR_LOCAL_SYMMETRIC_SWEEP) == SOR_LOCAL_SYMMETRIC_SWEEP ? SOR_SYMMETRIC_SWEEP : (flag & SOR_LOCAL_FORWARD_SWEEP ? SOR_FORWARD_SWEEP : SOR_BACKWARD_SWEEP);

    if (flag & SOR_ZERO_INITIAL_GUESS) {
      PetscCall(VecGetArray(X, &x));
      for (PetscInt t = 0; t < r->T; t++) PetscCall(RefBlockSOR(r, t, b, omega, flag, lits, x));
      PetscCall(VecRestoreArray(X, &x));
      its--;
    }
    while (its-- > 0) {
      PetscCall(RefRhs(r, X, b, PETSC_FALSE, 0.0, bl)); /* every block's from the previous x */
      PetscCall(VecGetArray(X, &x));
      for (PetscInt t = 0; t < r->T; t++) PetscCall(RefBlockSOR(r, t, bl, omega, sweep, lits, x));
      PetscCall(VecRestoreArray(X, &x));
    }
  }
  PetscCall(VecRestoreArrayRead(B, &b));
  PetscCall(PetscFree2(bl, x1));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    n = 600, maxT = 3;
  Mat         A, H;
  Vec         b, x0, xa, xh, xr;
  MatSORType  flags[] = {SOR_LOCAL_SYMMETRIC_SWEEP, SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP, SOR_EISENSTAT, SOR_APPLY_UPPER};
  const char *names[] = {"local symmetric", "local forward", "local backward", "Eisenstat", "apply upper"};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatAIJHybridInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-threads", &maxT, NULL));
  PetscCall(Build(n, &A));
  PetscCall(MatConvert(A, MATAIJHYBRID, MAT_INITIAL_MATRIX, &H));
  PetscCall(MatCreateVecs(A, &x0, &b));
  PetscCall(VecDuplicate(x0, &xa));
  PetscCall(VecDuplicate(x0, &xh));
  PetscCall(VecDuplicate(x0, &xr));
  {
    PetscScalar *a;
    PetscInt     lo, hi;

    PetscCall(VecGetOwnershipRange(b, &lo, &hi));
    PetscCall(VecGetArray(b, &a));
    for (PetscInt i = lo; i < hi; i++) a[i - lo] = Val(99, (unsigned long long)i);
    PetscCall(VecRestoreArray(b, &a));
    PetscCall(VecGetArray(x0, &a));
    for (PetscInt i = lo; i < hi; i++) a[i - lo] = Val(98, (unsigned long long)i);
    PetscCall(VecRestoreArray(x0, &a));
  }
  for (PetscInt T = 1; T <= maxT; T++)
    for (PetscInt part = 0; part < 2; part++) {
      Ref r;

      PetscCall(MatAIJHybridSetNumThreads(H, T));
      PetscCall(MatAIJHybridSetPartitionType(H, part ? MAT_AIJHYBRID_PARTITION_NNZ : MAT_AIJHYBRID_PARTITION_ROWS));
      PetscCall(MatMult(H, x0, xh)); /* the partition in force */
      PetscCall(RefCreate(H, &r));
      for (PetscInt f = 0; f < 5; f++)
        for (PetscInt zero = 0; zero < (f < 3 ? 2 : 1); zero++)
          for (PetscInt its = 1; its <= (f < 3 ? 2 : 1); its++)
            for (PetscInt lits = 1; lits <= 2; lits++)
              for (PetscInt w = 0; w < 2; w++) {
                const PetscReal    omega = w ? 1.25 : 1.0;
                const MatSORType   flag  = (MatSORType)(flags[f] | (zero ? SOR_ZERO_INITIAL_GUESS : 0));
                char               what[256];
                const PetscScalar *ha;
                PetscMPIInt        size;

                PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
                if (T == 1 && size > 1 && f == 3) continue; /* PETSc's MatSOR_MPIAIJ Eisenstat needs MatMultDiagonalBlock, which a SeqAIJ block without inodes lacks (PETSc 3.18) */

                PetscCall(PetscSNPrintf(what, sizeof(what), "MatSOR %s%s its %d lits %d omega %g, %d threads (%s partition)", names[f], zero ? " zero guess" : "", (int)its, (int)lits, (double)omega, (int)T, part ? "nnz" : "rows"));
                PetscCall(VecCopy(x0, xh));
                PetscCall(MatSOR(H, b, omega, flag, 0.0, its, lits, xh));
                if (T == 1) { /* AIJ's own sweep */
                  PetscCall(VecCopy(x0, xa));
                  PetscCall(MatSOR(A, b, omega, flag, 0.0, its, lits, xa));
                } else {
                  PetscCall(VecCopy(x0, xa));
                  PetscCall(RefSOR(&r, b, omega, flag, its, lits, xa));
                }
                PetscCall(VecGetArrayRead(xa, &ha));
                PetscCall(SameBits(xh, ha, what));
                PetscCall(VecRestoreArrayRead(xa, &ha));
                /* the same bits again */
                PetscCall(VecCopy(x0, xr));
                PetscCall(MatSOR(H, b, omega, flag, 0.0, its, lits, xr));
                PetscCall(VecGetArrayRead(xh, &ha));
                PetscCall(SameBits(xr, ha, "repeated MatSOR"));
                PetscCall(VecRestoreArrayRead(xh, &ha));
                if (T > 1 && part == 0 && f == 0) { /* -mat_aijhybrid_sor_serial: AIJ's sweep */
                  PetscCall(MatAIJHybridSetSORSerial(H, PETSC_TRUE));
                  PetscCall(VecCopy(x0, xh));
                  PetscCall(MatSOR(H, b, omega, flag, 0.0, its, lits, xh));
                  PetscCall(VecCopy(x0, xa));
                  PetscCall(MatSOR(A, b, omega, flag, 0.0, its, lits, xa));
                  PetscCall(VecGetArrayRead(xa, &ha));
                  PetscCall(SameBits(xh, ha, "MatSOR with -mat_aijhybrid_sor_serial"));
                  PetscCall(VecRestoreArrayRead(xa, &ha));
                  PetscCall(MatAIJHybridSetSORSerial(H, PETSC_FALSE));
                }
              }
      PetscCall(RefDestroy(&r));
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "sor_blocks: %" PetscInt_FMT " checks passed\n", nchecks));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&xr));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFinalize());
  return 0;
}
