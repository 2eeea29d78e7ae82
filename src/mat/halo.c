/*
   The halo exchange of an mpiaijhybrid matrix: one PetscSF, built at assembly from the ghost
   columns of the off-diagonal block (roots: the owned columns; leaves: the ghosts 0..nghost-1). Its
   type is chosen when it is built: PETSCSFNODEAWARE when -mat_aijhybrid_node_aware is set,
   otherwise what -sf_type says (PetscSFSetFromOptions(), default basic), like PETSc's own VecScatter
   of MATMPIAIJ. The products drive it through PetscSF's own begin/end, under the package's log
   events.
*/
#include "cache.h"

PetscErrorCode MatAIJHybridHaloReset(AIJHybridHalo *h)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&h->sf));
  PetscCall(MatDestroy(&h->block));
  PetscCall(PetscFree2(h->ghost, h->ghost_t));
  h->nghost = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collective: the SF of the current off-diagonal block of A, with the type and node size asked for */
static PetscErrorCode HaloCreate(AIJHybridHalo *h, Mat A, PetscBool node_aware, PetscInt node_size)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(PetscSFDestroy(&h->sf));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &h->sf));
  PetscCall(PetscSFSetGraphLayout(h->sf, A->cmap, Ao->cmap->n, NULL, PETSC_COPY_VALUES, garray));
  PetscCall(PetscSFSetFromOptions(h->sf)); /* -sf_type, -sf_nodeaware_node_size, as for MATMPIAIJ's VecScatter */
  if (node_aware) PetscCall(PetscSFSetType(h->sf, PETSCSFNODEAWARE));
  if (node_size > 0) PetscCall(PetscSFNodeAwareSetNodeSize(h->sf, node_size)); /* ignored by other types */
  PetscCall(PetscSFSetUp(h->sf));
  h->node_aware = node_aware;
  h->node_size  = node_size;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridHaloUpdate - collective: (re)build the halo SF of the mpiaij matrix A when the ghost
  pattern changed on some rank (rebuild, decided collectively by the caller), or when node_aware
  or node_size differ from those it was built with (logically collective settings, so the same
  decision on every rank); ghost buffers sized for it
*/
PetscErrorCode MatAIJHybridHaloUpdate(AIJHybridHalo *h, Mat A, PetscBool rebuild, PetscBool node_aware, PetscInt node_size)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  if (!rebuild && h->sf && h->node_aware == node_aware && h->node_size == node_size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(HaloCreate(h, A, node_aware, node_size));
  if (rebuild || Ao != h->block) {
    PetscCall(PetscObjectReference((PetscObject)Ao));
    PetscCall(MatDestroy(&h->block));
    h->block  = Ao;
    h->nghost = Ao->cmap->n;
    PetscCall(PetscFree2(h->ghost, h->ghost_t));
    PetscCall(PetscMalloc2(h->nghost, &h->ghost, h->nghost, &h->ghost_t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghost values of x into h->ghost */
PetscErrorCode MatAIJHybridHaloForwardBegin(AIJHybridHalo *h, const PetscScalar *x)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscCall(PetscSFBcastBegin(h->sf, MPIU_SCALAR, x, h->ghost, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridHaloForwardEnd(AIJHybridHalo *h, const PetscScalar *x)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(PetscSFBcastEnd(h->sf, MPIU_SCALAR, x, h->ghost, MPI_REPLACE));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ghost contributions h->ghost_t added to their owners' entries of y */
PetscErrorCode MatAIJHybridHaloReverseBegin(AIJHybridHalo *h, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscCall(PetscSFReduceBegin(h->sf, MPIU_SCALAR, h->ghost_t, y, MPIU_SUM));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloBegin, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridHaloReverseEnd(AIJHybridHalo *h, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscCall(PetscSFReduceEnd(h->sf, MPIU_SCALAR, h->ghost_t, y, MPIU_SUM));
  PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloEnd, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
