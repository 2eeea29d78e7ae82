/*
   Threaded operations on standard vectors (-vec_hybrid_standard, VecHybridSetStandard()).

   KSP makes its work vectors by duplicating the application's solution vector, so an application
   that creates its vectors with VecCreateMPI() (not with MatCreateVecs() of an aijhybrid matrix, nor
   with -vec_type hybrid) would solve with unthreaded vector operations. With this switch, the
   constructors of VECSEQ and VECMPI in PETSc's type list are replaced by ones that make the same
   vector and give it the hybrid context and operations, keeping the type name seq / mpi: every
   vector made through VecSetType() from then on (VecCreateSeq(), VecCreateMPI(), VecCreate() +
   VecSetType() or VecSetFromOptions() with the standard types, DM vectors, MatCreateVecs() of
   other matrix types) and their duplicates are threaded. Vectors made around the type list
   (VecCreateSeqWithArray(), VecCreateMPIWithArray(), VecCreateGhost*(), vectors made before the
   switch) keep PETSc's operations.
*/
#include "vechybrid.h"

static PetscErrorCode (*VecCreate_SeqStandard)(Vec) = NULL; /* PETSc's constructors, saved from VecList */
static PetscErrorCode (*VecCreate_MPIStandard)(Vec) = NULL;
static PetscBool VecHybridStandard                  = PETSC_FALSE;

static PetscErrorCode VecHybridSaveStandardConstructors(void)
{
  PetscFunctionBegin;
  if (VecCreate_SeqStandard && VecCreate_MPIStandard) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecInitializePackage());
  PetscCall(PetscFunctionListFind(VecList, VECSEQ, &VecCreate_SeqStandard));
  PetscCall(PetscFunctionListFind(VecList, VECMPI, &VecCreate_MPIStandard));
  PetscCheck(VecCreate_SeqStandard && VecCreate_MPIStandard, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's %s and %s vector types are not registered", VECSEQ, VECMPI);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* make v a standard vector with PETSc's own constructor (v's sizes set, its operations cleared by VecSetType()) */
PetscErrorCode VecHybridCreateStandard(Vec v, PetscBool mpi)
{
  PetscFunctionBegin;
  PetscCall(VecHybridSaveStandardConstructors());
  PetscCall((*(mpi ? VecCreate_MPIStandard : VecCreate_SeqStandard))(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecCreate_SeqThreaded(Vec v)
{
  PetscFunctionBegin;
  PetscCall((*VecCreate_SeqStandard)(v));
  PetscCall(VecHybridInstall(v, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VecCreate_MPIThreaded(Vec v)
{
  PetscFunctionBegin;
  PetscCall((*VecCreate_MPIStandard)(v));
  PetscCall(VecHybridInstall(v, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridSetStandard - Gives every standard vector made from now on the threaded operations of `VECHYBRID`, keeping its type name

  Not Collective

  Input Parameter:
. flg - `PETSC_TRUE` to thread the standard vectors made from now on, `PETSC_FALSE` to stop

  Options Database Key:
. -vec_hybrid_standard - read when the package is initialized (`-dll_append`, `MatAIJHybridInitializePackage()`, `import petsc_aijhybrid`)

  Level: intermediate

  Notes:
  For applications that make their own vectors (`VecCreateMPI()`, `VecDuplicate()` of those, as KSP
  does for its work vectors): the constructors of `VECSEQ` and `VECMPI` are replaced by ones that give
  the vector the hybrid context and operations. Every vector made through `VecSetType()` is covered
  (`VecCreateSeq()`, `VecCreateMPI()`, `VecSetFromOptions()`, DM vectors, `MatCreateVecs()` of any
  matrix type) and its duplicates; vectors made with a user array (`VecCreateMPIWithArray()`,
  `VecCreateSeqWithArray()`), ghosted vectors and vectors made before the call are not.

  The vectors keep their type names (`seq`, `mpi`), so code that compares type names sees no difference;
  `VecView()` with `::ascii_info` shows the threads.

.seealso: `VECHYBRID`, `VecHybridGetStandard()`, `VecHybridSetNumThreads()`
@*/
PetscErrorCode VecHybridSetStandard(PetscBool flg)
{
  PetscFunctionBegin;
  PetscCall(VecHybridSaveStandardConstructors());
  PetscCall(VecRegister(VECSEQ, flg ? VecCreate_SeqThreaded : VecCreate_SeqStandard));
  PetscCall(VecRegister(VECMPI, flg ? VecCreate_MPIThreaded : VecCreate_MPIStandard));
  VecHybridStandard = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  VecHybridGetStandard - Tells whether standard vectors are made with the threaded operations of `VECHYBRID`

  Not Collective

  Output Parameter:
. flg - the setting

  Level: intermediate

.seealso: `VECHYBRID`, `VecHybridSetStandard()`
@*/
PetscErrorCode VecHybridGetStandard(PetscBool *flg)
{
  PetscFunctionBegin;
  PetscAssertPointer(flg, 1);
  *flg = VecHybridStandard;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscFinalize() destroys the type list: the switch is off in the next PetscInitialize() */
PetscErrorCode VecHybridStandardFinalize(void)
{
  PetscFunctionBegin;
  VecHybridStandard = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -vec_hybrid_standard, read when the package is registered (checked as every option of the table) */
PetscErrorCode VecHybridStandardFromOptions(void)
{
  AIJHybridOptionValue v;

  PetscFunctionBegin;
  PetscCall(AIJHybridOptionGet(NULL, NULL, &VecHybridOptionTable, VECHYBRID_OPT_STANDARD, &v));
  if (v.set && v.i) PetscCall(VecHybridSetStandard(PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
