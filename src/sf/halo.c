/*
   Standard halo exchange on a PetscSF whose leaves are the ghost columns of the off-diagonal block.
*/
#include "halo.h"
#include "../aijhybrid.h"

/*
  AIJHybridHaloCreate - collective on comm: the exchange for ghosts garray[0..nghost-1] (global
  column indices, owned by other ranks per the column layout cmap)
*/
PetscErrorCode AIJHybridHaloCreate(MPI_Comm comm, PetscLayout cmap, PetscInt nghost, const PetscInt garray[], AIJHybridHalo *halo)
{
  PetscFunctionBegin;
  PetscCall(AIJHybridHaloDestroy(halo));
  PetscCall(PetscSFCreate(comm, &halo->sf));
  PetscCall(PetscSFSetGraphLayout(halo->sf, cmap, nghost, NULL, PETSC_OWN_POINTER, garray));
  PetscCall(PetscSFSetUp(halo->sf));
  halo->nghost = nghost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridHaloDestroy(AIJHybridHalo *halo)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&halo->sf));
  halo->nghost = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridHaloForwardBegin(AIJHybridHalo *halo, const PetscScalar x[], PetscScalar ghost[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscCall(PetscSFBcastBegin(halo->sf, MPIU_SCALAR, x, ghost, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridHaloForwardEnd(AIJHybridHalo *halo, const PetscScalar x[], PetscScalar ghost[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(PetscSFBcastEnd(halo->sf, MPIU_SCALAR, x, ghost, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridHaloReverseBegin(AIJHybridHalo *halo, const PetscScalar ghost[], PetscScalar y[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscCall(PetscSFReduceBegin(halo->sf, MPIU_SCALAR, ghost, y, MPIU_SUM));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AIJHybridHaloReverseEnd(AIJHybridHalo *halo, const PetscScalar ghost[], PetscScalar y[])
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(PetscSFReduceEnd(halo->sf, MPIU_SCALAR, ghost, y, MPIU_SUM));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
