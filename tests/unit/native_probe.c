static char help[] = "What PETSc runs for a set of solves, printed as key = value lines, to compare a process that loaded the plugin with one that did not.\n\
  -m <m>       : grid points per direction of the 3D Poisson matrix\n\
  -cases <...> : the solves to run (default: all that the rank count allows)\n\n";

/*
   Built against PETSc only (not linked with the plugin): tests/test_native.py runs it as is and
   with -dll_append libpetscaijhybrid.so, and compares the outputs.

   For each solve (a KSP with its own options prefix; the matrix type comes from -mat_type, with
   MatSetFromOptions()): the KSP, PC, sub-PC and sub-matrix type names, the factor's type name and
   solver type, and every function PETSc would call through them: each entry of their operation
   tables and each function composed on the matrices, printed as the shared object that holds it
   and its offset there (the same in two processes of the same programs, whatever the load
   address). Then what the solves compute: iterations and a digest of the residual history, and a
   digest of one PCApply(), after the first solve, after new values set by MatSetValues() and
   assembly, and after MatScale() (no assembly): a preconditioner that was not rebuilt from the new
   values shows there. Also the creators MatSolverTypeGet() finds for PETSc's own types.

   Each rank prints its own lines, prefixed "native [rank] ". To probe something else, add a
   section that prints through Key()/Fn()/Ops() (vectors, scatters, ...).
*/
#define _GNU_SOURCE /* dladdr() */
#include <dlfcn.h>
#include "compat.h"
#include <petscksp.h>
#include <petsc/private/matimpl.h>
#include <petsc/private/kspimpl.h>
#include <petsc/private/pcimpl.h>
#include <string.h>

typedef void (*AnyFn)(void);

static PetscErrorCode Key(const char *key, const char *value)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "native [%d] %s = %s\n", rank, key, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a function pointer as <shared object>+<offset> (0 for NULL) */
static void FnName(AnyFn f, char *buf, size_t len)
{
  Dl_info     info;
  const char *base;

  if (!f) {
    snprintf(buf, len, "0");
    return;
  }
  if (!dladdr((void *)(size_t)f, &info) || !info.dli_fname) {
    snprintf(buf, len, "unknown");
    return;
  }
  base = strrchr(info.dli_fname, '/');
  snprintf(buf, len, "%s+0x%zx", base ? base + 1 : info.dli_fname, (size_t)f - (size_t)info.dli_fbase);
}

static PetscErrorCode Fn(const char *key, AnyFn f)
{
  char buf[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  FnName(f, buf, sizeof(buf));
  PetscCall(Key(key, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every entry of an operation table (a struct of function pointers), by position */
static PetscErrorCode Ops(const char *label, const void *ops, size_t size)
{
  const AnyFn *f = (const AnyFn *)ops;
  char         key[256];

  PetscFunctionBeginUser;
  for (size_t k = 0; k < size / sizeof(AnyFn); k++) {
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s.ops[%d]", label, (int)k));
    PetscCall(Fn(key, f[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the functions composed on an object, by name */
static PetscErrorCode Composed(const char *label, PetscObject obj)
{
  const char **names = NULL;
  int          n     = 0;
  char         key[512];

  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListGet(obj->qlist, &names, &n));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.composed", label));
  PetscCall(Key(key, n ? "" : "none"));
  for (int k = 0; k < n; k++) {
    void (*f)(void) = NULL;

    if (names[k]) PetscCall(PetscObjectQueryFunction(obj, names[k], &f));
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s.composed.%s", label, names[k] ? names[k] : "(no name)"));
    PetscCall(Fn(key, f));
  }
  PetscCall(PetscFree(names));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProbe(const char *label, Mat A)
{
  char key[256];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.type", label));
  PetscCall(Key(key, ((PetscObject)A)->type_name));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.solvertype", label));
  PetscCall(Key(key, A->solvertype ? A->solvertype : "none"));
  PetscCall(Ops(label, A->ops, sizeof(struct _MatOps)));
  /* a few of them by name, for readable tests */
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.mult", label));
  PetscCall(Fn(key, (AnyFn)A->ops->mult));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.solve", label));
  PetscCall(Fn(key, (AnyFn)A->ops->solve));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.solvetranspose", label));
  PetscCall(Fn(key, (AnyFn)A->ops->solvetranspose));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.destroy", label));
  PetscCall(Fn(key, (AnyFn)A->ops->destroy));
  PetscCall(Composed(label, (PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a 64-bit FNV-1a digest of bytes, as hex */
static void Digest(const void *data, size_t len, char *buf, size_t buflen)
{
  const unsigned char *p = (const unsigned char *)data;
  unsigned long long   h = 1469598103934665603ULL;

  for (size_t k = 0; k < len; k++) h = (h ^ p[k]) * 1099511628211ULL;
  snprintf(buf, buflen, "%016llx", h);
}

static PetscErrorCode Poisson(PetscInt m, Mat *A)
{
  PetscInt n = m * m * m, rs, re;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 7, NULL, 6, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    const PetscInt i = r % m, j = (r / m) % m, k = r / (m * m);
    PetscInt       cols[7], nc = 0;
    PetscScalar    vals[7];

    cols[nc]   = r;
    vals[nc++] = 6.0 + 0.01 * (PetscReal)(r % 7);
    if (i > 0) cols[nc] = r - 1, vals[nc++] = -1.0;
    if (i < m - 1) cols[nc] = r + 1, vals[nc++] = -1.0;
    if (j > 0) cols[nc] = r - m, vals[nc++] = -1.0;
    if (j < m - 1) cols[nc] = r + m, vals[nc++] = -1.0;
    if (k > 0) cols[nc] = r - m * m, vals[nc++] = -1.0;
    if (k < m - 1) cols[nc] = r + m * m, vals[nc++] = -1.0;
    PetscCall(MatSetValues(*A, 1, &r, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sub-PC holding the factor: the PC itself, or block 0 of PCBJACOBI/PCASM */
static PetscErrorCode SubPC(PC pc, PC *sub, PetscInt *nsub)
{
  PetscBool bjacobi, asm_;
  KSP      *subksp;
  PetscInt  first;

  PetscFunctionBeginUser;
  *sub  = pc;
  *nsub = 0;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &bjacobi));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCASM, &asm_));
  if (bjacobi) PetscCall(PCBJacobiGetSubKSP(pc, nsub, &first, &subksp));
  if (asm_) PetscCall(PCASMGetSubKSP(pc, nsub, &first, &subksp));
  if ((bjacobi || asm_) && *nsub > 0) PetscCall(KSPGetPC(subksp[0], sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* iterations, residual history digest, PCApply digest of one solve */
static PetscErrorCode Results(const char *label, KSP ksp, Vec b, Vec x)
{
  PetscInt           its, nh;
  const PetscReal   *hist;
  PC                 pc;
  Vec                y;
  const PetscScalar *ya;
  PetscInt           n;
  char               key[256], buf[64];

  PetscFunctionBeginUser;
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetResidualHistory(ksp, &hist, &nh));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.iterations", label));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)its));
  PetscCall(Key(key, buf));
  Digest(hist, (size_t)nh * sizeof(PetscReal), buf, sizeof(buf));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.history", label));
  PetscCall(Key(key, buf));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PCApply(pc, b, y));
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(VecGetArrayRead(y, &ya));
  Digest(ya, (size_t)n * sizeof(PetscScalar), buf, sizeof(buf));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecDestroy(&y));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.pcapply", label));
  PetscCall(Key(key, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Case(const char *name, const char *opts, PetscInt m)
{
  Mat          A, F = NULL;
  KSP          ksp;
  PC           pc, sub;
  Vec          b, x;
  PetscInt     nsub, rs, re;
  PetscReal    hist[1000];
  char         prefix[64], label[256];
  PetscScalar *ba;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", name));
  PetscCall(PetscOptionsPrefixPush(NULL, prefix));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(PetscOptionsPrefixPop(NULL));
  PetscCall(Poisson(m, &A));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSetResidualHistory(ksp, hist, 1000, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecGetOwnershipRange(b, &rs, &re));
  PetscCall(VecGetArray(b, &ba));
  for (PetscInt i = rs; i < re; i++) ba[i - rs] = PetscSinReal(0.1 * (PetscReal)i) + 1.0;
  PetscCall(VecRestoreArray(b, &ba));

  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.first", name));
  PetscCall(Results(label, ksp, b, x));

  /* what PETSc runs, after the first solve */
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(SubPC(pc, &sub, &nsub));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.ksp", name));
  PetscCall(Key(label, ((PetscObject)ksp)->type_name));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.ksp", name));
  PetscCall(Ops(label, ksp->ops, sizeof(struct _KSPOps)));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.pc", name));
  PetscCall(Key(label, ((PetscObject)pc)->type_name));
  PetscCall(Ops(label, pc->ops, sizeof(struct _PCOps)));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.mat", name));
  PetscCall(MatProbe(label, A));
  if (sub != pc) {
    char n_[32];

    PetscCall(PetscSNPrintf(label, sizeof(label), "%s.nsub", name));
    PetscCall(PetscSNPrintf(n_, sizeof(n_), "%d", (int)nsub));
    PetscCall(Key(label, n_));
    PetscCall(PetscSNPrintf(label, sizeof(label), "%s.subpc", name));
    PetscCall(Key(label, ((PetscObject)sub)->type_name));
    PetscCall(Ops(label, sub->ops, sizeof(struct _PCOps)));
    PetscCall(PetscSNPrintf(label, sizeof(label), "%s.submat", name));
    PetscCall(MatProbe(label, sub->pmat));
  }
  PetscCall(PCFactorGetMatrix(sub, &F));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.factor", name));
  PetscCall(MatProbe(label, F));

  /* new values through MatSetValues() and assembly: the preconditioner must follow */
  for (PetscInt i = rs; i < re; i++) {
    PetscScalar v = 0.5 + 0.001 * (PetscReal)(i % 13);
    PetscCall(MatSetValues(A, 1, &i, 1, &i, &v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.assembled", name));
  PetscCall(Results(label, ksp, b, x));
  /* and through MatScale() (MPIAIJ scales its blocks without assembling them) */
  PetscCall(MatScale(A, 0.25));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s.scaled", name));
  PetscCall(Results(label, ksp, b, x));

  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the creators MatSolverTypeGet() finds for PETSc's own types, with and without a solver type named */
static PetscErrorCode SolverTypes(void)
{
  const char         *mtypes[] = {MATSEQAIJ, MATMPIAIJ, MATSEQBAIJ, MATSEQSBAIJ, MATSEQDENSE, MATSEQAIJPERM, MATSEQAIJSELL};
  const char         *stypes[] = {NULL, MATSOLVERPETSC};
  const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC};

  PetscFunctionBeginUser;
  for (size_t s = 0; s < sizeof(stypes) / sizeof(stypes[0]); s++)
    for (size_t t = 0; t < sizeof(mtypes) / sizeof(mtypes[0]); t++)
      for (size_t f = 0; f < sizeof(ftypes) / sizeof(ftypes[0]); f++) {
        PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;
        char key[256];

        PetscCall(MatSolverTypeGet(stypes[s], mtypes[t], ftypes[f], NULL, NULL, &create));
        PetscCall(PetscSNPrintf(key, sizeof(key), "solvertype.%s.%s.%s", stypes[s] ? stypes[s] : "default", mtypes[t], MatFactorTypes[ftypes[f]]));
        PetscCall(Fn(key, (AnyFn)create));
      }
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    m = 10;
  PetscMPIInt size;
  char        cases[1024] = "";
  PetscBool   set;
  struct {
    const char *name, *opts;
    PetscBool   serial; /* one rank only (PETSc's factorizations of mpiaij) */
  } all[] = {
    {"ilu",         "-pc_type ilu",                                                           PETSC_TRUE },
    {"icc",         "-ksp_type cg -pc_type icc",                                              PETSC_TRUE },
    {"lu",          "-pc_type lu",                                                            PETSC_TRUE },
    {"cholesky",    "-ksp_type cg -pc_type cholesky",                                         PETSC_TRUE },
    {"bjacobi_ilu", "-pc_type bjacobi -sub_pc_type ilu",                                      PETSC_FALSE},
    {"bjacobi_icc", "-ksp_type cg -pc_type bjacobi -sub_pc_type icc",                         PETSC_FALSE},
    {"bjacobi_lu",  "-pc_type bjacobi -sub_pc_type lu",                                       PETSC_FALSE},
    {"bjacobi2",    "-pc_type bjacobi -pc_bjacobi_local_blocks 2 -sub_pc_type ilu",           PETSC_FALSE},
    {"asm_ilu",     "-pc_type asm -sub_pc_type ilu",                                          PETSC_FALSE},
    {"asm_icc",     "-ksp_type cg -pc_type asm -pc_asm_type basic -sub_pc_type icc",          PETSC_FALSE},
    {"asm_lu",      "-pc_type asm -sub_pc_type lu",                                           PETSC_FALSE},
    {"asm2",        "-pc_type asm -pc_asm_local_blocks 2 -pc_asm_overlap 2 -sub_pc_type ilu", PETSC_FALSE},
  };

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-m", &m, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-cases", cases, sizeof(cases), &set));
  PetscCall(MatInitializePackage()); /* registers PETSc's factorizations, as the first matrix would */
  /* PCASM's local subdomains (asm2) from a deterministic split: the default partitioner here (PT-Scotch)
     gives different subdomains from run to run */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_partitioning_type", "current"));
  PetscCall(SolverTypes());
  for (size_t c = 0; c < sizeof(all) / sizeof(all[0]); c++) {
    if (set) { /* a comma-separated list of names */
      char     *tok, *save = NULL, list[1024];
      PetscBool found = PETSC_FALSE;

      PetscCall(PetscStrncpy(list, cases, sizeof(list)));
      for (tok = strtok_r(list, ",", &save); tok && !found; tok = strtok_r(NULL, ",", &save)) found = (PetscBool)!strcmp(tok, all[c].name);
      if (!found) continue;
    } else if (all[c].serial && size > 1) continue;
    PetscCall(Case(all[c].name, all[c].opts, m));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "native: done\n"));
  PetscCall(PetscFinalize());
  return 0;
}
