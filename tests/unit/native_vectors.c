static char help[] = "What PETSc's vectors and scatters are made of, printed as key = value lines, to compare a process that loaded the plugin with one that did not.\n\
  -standard_off : with the plugin loaded and -vec_hybrid_standard given, switch it off (VecHybridSetStandard(PETSC_FALSE)) before probing\n\n";

/*
   The vector part of issue 30's item 1. Built against PETSc only (not linked with the plugin):
   tests/test_native.py runs it as is and with -dll_append libpetscaijhybrid.so, and compares.

   It prints the constructors PETSc's type list holds for the standard vector types, and for the
   vectors an application gets from PETSc (VecCreateSeq(), VecCreateMPI(), VecCreate() +
   VecSetFromOptions(), VecDuplicate() of each, MatCreateVecs() of an aij matrix, the work vectors of
   a KSP, the vectors and the PetscSF of a VecScatter): the type name, every entry of the operation
   table (as <shared object>+<offset>: the same in two processes of the same programs), the names
   of the functions composed on it, and whether it holds the plugin's vector context. With the plugin loaded and
   -vec_hybrid_standard (the explicit opt-in), the standard vectors are the plugin's; -standard_off
   switches it off again through VecHybridSetStandard(PETSC_FALSE) (found with dlsym(): the program
   does not link the plugin), after which everything must be PETSc's again.

   Each rank prints its own lines, prefixed "native [rank] ".
*/
#define _GNU_SOURCE /* dladdr(), RTLD_DEFAULT */
#include <dlfcn.h>
#include "compat.h"
#include <petscksp.h>
#include <petsc/private/vecimpl.h>
#include <petsc/private/sfimpl.h>
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
static PetscErrorCode Fn(const char *key, AnyFn f)
{
  char        buf[PETSC_MAX_PATH_LEN];
  Dl_info     info;
  const char *base;

  PetscFunctionBeginUser;
  if (!f) PetscCall(PetscStrncpy(buf, "0", sizeof(buf)));
  else if (!dladdr((void *)(size_t)f, &info) || !info.dli_fname) PetscCall(PetscStrncpy(buf, "unknown", sizeof(buf)));
  else {
    base = strrchr(info.dli_fname, '/');
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s+0x%zx", base ? base + 1 : info.dli_fname, (size_t)f - (size_t)info.dli_fbase));
  }
  PetscCall(Key(key, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* type name, operation table and composed objects and functions of an object */
static PetscErrorCode Probe(const char *label, PetscObject obj, const void *ops, size_t size)
{
  const AnyFn *f = (const AnyFn *)ops;
  const char **names;
  int          n;
  char         key[256], list[1024] = "";
  PetscObject  ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.type", label));
  PetscCall(Key(key, obj->type_name));
  for (size_t k = 0; k < size / sizeof(AnyFn); k++) {
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s.ops[%d]", label, (int)k));
    PetscCall(Fn(key, f[k]));
  }
  PetscCall(PetscFunctionListGet(obj->qlist, &names, &n));
  for (int k = 0; k < n; k++) {
    PetscCall(PetscStrlcat(list, " ", sizeof(list)));
    PetscCall(PetscStrlcat(list, names[k] ? names[k] : "?", sizeof(list)));
  }
  PetscCall(PetscFree(names));
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.composed_functions", label));
  PetscCall(Key(key, n ? list : "none"));
  PetscCall(PetscObjectQuery(obj, "VecHybrid_Context", &ctx)); /* the plugin's vector context (PETSc 3.18 has no public walk of the composed objects) */
  PetscCall(PetscSNPrintf(key, sizeof(key), "%s.hybrid_context", label));
  PetscCall(Key(key, ctx ? "present" : "none"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecProbe(const char *label, Vec v)
{
  Vec  w;
  char dup[256];

  PetscFunctionBeginUser;
  PetscCall(Probe(label, (PetscObject)v, v->ops, sizeof(struct _VecOps)));
  PetscCall(VecDuplicate(v, &w));
  PetscCall(PetscSNPrintf(dup, sizeof(dup), "%s.duplicate", label));
  PetscCall(Probe(dup, (PetscObject)w, w->ops, sizeof(struct _VecOps)));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode (*set_standard)(PetscBool) = NULL;
  PetscErrorCode (*create)(Vec)             = NULL;
  const char *types[]                       = {VECSEQ, VECMPI, VECSTANDARD};
  char        key[256];
  PetscMPIInt size;
  PetscInt    n   = 40, rs, re;
  PetscBool   off = PETSC_FALSE;
  Vec         v, x, y, *work;
  Mat         A;
  KSP         ksp;
  IS          is;
  VecScatter  sc;
  PetscSF     sf;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-standard_off", &off, NULL));
  *(void **)&set_standard = dlsym(RTLD_DEFAULT, "VecHybridSetStandard");
  if (off) {
    PetscCheck(set_standard, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-standard_off needs the plugin loaded (-dll_append)");
    PetscCall((*set_standard)(PETSC_FALSE));
  }

  /* the constructors PETSc's type list holds (registered when the Vec package initializes: made so here) */
  PetscCall(VecInitializePackage());
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
    PetscCall(PetscFunctionListFind(VecList, types[k], &create));
    PetscCall(PetscSNPrintf(key, sizeof(key), "VecList.%s", types[k]));
    PetscCall(Fn(key, (AnyFn)create));
  }

  /* the vectors of an application */
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &v));
  PetscCall(VecProbe("VecCreateSeq", v));
  PetscCall(VecDestroy(&v));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, n, PETSC_DETERMINE, &v));
  PetscCall(VecProbe("VecCreateMPI", v));
  PetscCall(VecDestroy(&v));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &v));
  PetscCall(VecSetSizes(v, n, PETSC_DETERMINE));
  PetscCall(VecSetFromOptions(v));
  PetscCall(VecProbe("VecSetFromOptions", v));

  /* an aij matrix's vectors, a KSP's work vectors (a solve on it), a scatter */
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, n, n, PETSC_DETERMINE, PETSC_DETERMINE, 3, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(A, i, i, 4.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i + 1 < n * size) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecProbe("MatCreateVecs", x));
  PetscCall(VecSet(y, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, y, x));
  PetscCall(KSPCreateVecs(ksp, 1, &work, 0, NULL));
  PetscCall(VecProbe("KSPCreateVecs", work[0]));
  PetscCall(VecDestroyVecs(1, &work));
  PetscCall(ISCreateStride(PETSC_COMM_WORLD, n, (rs + n) % (n * size), 1, &is));
  PetscCall(VecScatterCreate(v, is, x, NULL, &sc));
  sf = (PetscSF)sc;
  PetscCall(Probe("VecScatter", (PetscObject)sf, sf->ops, sizeof(struct _PetscSFOps)));

  PetscCall(VecScatterDestroy(&sc));
  PetscCall(ISDestroy(&is));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "native: done\n"));
  PetscCall(PetscFinalize());
  return 0;
}
