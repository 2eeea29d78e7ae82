/*
   Package registration: the matrix types, the root name "aijhybrid", the PetscSF type "nodeaware"
   (src/sf/, registered by its own package function), log events, the MPI thread level
   check, and the hook PETSc's -dll_append calls when it loads libpetscaijhybrid.so.
*/
#include "threads/threads.h"
#include "mat/aijhybridimpl.h"
#include "mat/productplan.h"
#include "vec/vechybridimpl.h"
#include "sf/sfnodeaware.h"
#include "factor/factor.h"
#include "coarsen/coarsen.h"

static PetscBool MatAIJHybridPackageInitialized = PETSC_FALSE;

/*@C
  MatAIJHybridFinalizePackage - Called by `PetscFinalize()`: forgets that the package was initialized

  Not Collective

  Level: developer

.seealso: `MatAIJHybridInitializePackage()`
@*/
PetscErrorCode MatAIJHybridFinalizePackage(void)
{
  PetscFunctionBegin;
  MatAIJHybridPackageInitialized = PETSC_FALSE;
  PetscCall(AIJHybridThreadsFinalize());
  PetscCall(VecHybridStandardFinalize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  MatAIJHybridInitializePackage - Registers the types of the package: `MATSEQAIJHYBRID`,
  `MATMPIAIJHYBRID` and the root name `MATAIJHYBRID`, the vector types `VECHYBRID`, `VECSEQHYBRID`
  and `VECMPIHYBRID` (and `-vec_hybrid_standard`), the `PetscSF` type `PETSCSFNODEAWARE`, and the log events of the package. Idempotent; called by the `-dll_append` hook
  and by `import petsc_aijhybrid`, and by applications that link the library.

  Not Collective

  Level: beginner

  Note:
  Checks the thread level MPI was initialized with once. All MPI calls of the package are made by
  the main thread outside parallel regions, so `MPI_THREAD_FUNNELED` (PETSc's default request)
  suffices; below it (an application that called `MPI_Init()` itself) the package still works,
  reports the level in `MatView()` and through `PetscInfo()`.

.seealso: `MATAIJHYBRID`, `MatAIJHybridFinalizePackage()`
@*/
PetscErrorCode MatAIJHybridInitializePackage(void)
{
  PetscFunctionBegin;
  if (MatAIJHybridPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  MatAIJHybridPackageInitialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(MatRegister(MATSEQAIJHYBRID, MatCreate_SeqAIJHybrid));
  PetscCall(MatRegister(MATMPIAIJHYBRID, MatCreate_MPIAIJHybrid));
  PetscCall(MatRegisterRootName(MATAIJHYBRID, MATSEQAIJHYBRID, MATMPIAIJHYBRID));
  PetscCall(VecInitializePackage());
  PetscCall(VecRegister(VECHYBRID, VecCreate_Hybrid));
  PetscCall(VecRegister(VECSEQHYBRID, VecCreate_SeqHybrid));
  PetscCall(VecRegister(VECMPIHYBRID, VecCreate_MPIHybrid));
  PetscCall(VecHybridStandardFromOptions()); /* -vec_hybrid_standard */
  PetscCall(PetscSFNodeAwareInitializePackage());
  PetscCall(PetscLogEventRegister("AIJHybPartition", MAT_CLASSID, &MATAIJHYBRID_Partition));
  PetscCall(PetscLogEventRegister("AIJHybHaloBegin", MAT_CLASSID, &MATAIJHYBRID_HaloBegin));
  PetscCall(PetscLogEventRegister("AIJHybHaloEnd", MAT_CLASSID, &MATAIJHYBRID_HaloEnd));
  PetscCall(PetscLogEventRegister("AIJHybMult", MAT_CLASSID, &MATAIJHYBRID_Mult));
  PetscCall(PetscLogEventRegister("AIJHybMultTransp", MAT_CLASSID, &MATAIJHYBRID_Transpose));
  PetscCall(PetscLogEventRegister("AIJHybSOR", MAT_CLASSID, &MATAIJHYBRID_SOR));
  PetscCall(PetscLogEventRegister("AIJHybHaloSetUp", MAT_CLASSID, &MATAIJHYBRID_HaloSetUp));
  PetscCall(PetscLogEventRegister("AIJHybSpGEMMSym", MAT_CLASSID, &MATAIJHYBRID_SpGEMMSym));
  PetscCall(PetscLogEventRegister("AIJHybSpGEMMNum", MAT_CLASSID, &MATAIJHYBRID_SpGEMMNum));
  PetscCall(PetscLogEventRegister("AIJHybProdTransp", MAT_CLASSID, &MATAIJHYBRID_ProdTranspose));
  PetscCall(MatAIJHybridFactorRegister());   /* threaded solves of ILU/ICC factors (src/factor/factor.c) */
  PetscCall(MatAIJHybridOrderingRegister()); /* the "cmrcm" ordering (src/factor/ordering.c) */
  PetscCall(MatAIJHybridCoarsenRegister());  /* the MatCoarsen type "aijhybrid" (src/coarsen/misk.c) */
  PetscCall(AIJHybridQueryThreadLevel());
  PetscCall(PetscRegisterFinalize(MatAIJHybridFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sizeof(PetscBool) in the PETSc the library was built for (an enum up to 3.2x, C's bool after):
   the Python layer (python/petsc_aijhybrid/api.py) lays out the structures of the API with it */
PETSC_EXTERN int PetscAIJHybridBoolSize(void)
{
  return (int)sizeof(PetscBool);
}

/*
  PetscDLLibraryRegister_petscaijhybrid - called by PETSc when libpetscaijhybrid.so is loaded with
  -dll_append (the name follows from the library's file name)
*/
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscaijhybrid(void)
{
  PetscFunctionBegin;
  PetscCall(MatAIJHybridInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
