/*
   The one step that makes the caches of an aijhybrid matrix valid for its current pattern and
   parameters: at assembly end (collective: the halo exchange is rebuilt where the ghost pattern
   changed on some rank) and before every product and MatSOR (local: the exchange is only checked).
   MatCreateVecs (vecs.c) needs only the diagonal partition and updates that alone. A seqaijhybrid
   matrix is the case without an off-diagonal block and exchange.
*/
#include "aijhybridimpl.h"

/*
  MatAIJHybridPrepare - the blocks, parameters, mode and diagonal partition a product of A runs
  with, every partition built for them. collective: at assembly, on every rank.
*/
PetscErrorCode MatAIJHybridPrepare(Mat A, Mat_AIJHybrid *ctx, PetscBool collective, AIJHybridPrepared *p)
{
  AIJHybridCaches *c = &ctx->cache;

  PetscFunctionBegin;
  p->Ad = A;
  p->Ao = NULL;
  if (ctx->info->mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &p->Ad, &p->Ao, NULL));
    if (collective) {
      const PetscInt nghost = p->Ao->cmap->n;
      PetscMPIInt    local[2], global[2];

      local[0] = (PetscMPIInt)(p->Ao != c->halo.block || nghost != c->halo.nghost || !c->halo.sf); /* changed here */
      local[1] = (PetscMPIInt)(nghost > 0);                                                        /* has ghosts */
      PetscCallMPI(MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
      c->has_offproc = (PetscBool)global[1];
      PetscCall(MatAIJHybridHaloUpdate(&c->halo, A, (PetscBool)global[0], ctx->set.node_aware, ctx->set.node_size));
    } else {
      PetscCheck(c->halo.sf && p->Ao == c->halo.block && p->Ao->cmap->n == c->halo.nghost, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "The off-diagonal block of this %s matrix changed without MatAssemblyEnd(); call MatAssemblyBegin/End() after changing the matrix", MATMPIAIJHYBRID);
      PetscCall(MatAIJHybridHaloUpdate(&c->halo, A, PETSC_FALSE, ctx->set.node_aware, ctx->set.node_size)); /* node-aware switched, or node size changed, since the assembly (logically collective settings) */
    }
  }
  if (collective) PetscCall(AIJHybridCountRanksOnNode(PetscObjectComm((PetscObject)A)));
  MatAIJHybridContextCurrentParams(ctx, &p->params);
  PetscCall(AIJHybridCheckOversubscription((PetscObject)A, p->params.nthreads));
  PetscCall(MatAIJHybridRowPartUpdate(&c->diag, A, p->Ad, PETSC_FALSE, &p->params));
  if (p->Ao) PetscCall(MatAIJHybridRowPartUpdate(&c->offd, A, p->Ao, PETSC_TRUE, &p->params));
  p->mode  = MatAIJHybridEffectiveMode(ctx, p->params.nthreads);
  p->dpart = &c->diag;
  if (p->mode == MAT_AIJHYBRID_MODE_TASK) {
    AIJHybridPartParams task = p->params;
    AIJHybridRowPart   *part = ctx->tune.task_slot ? &c->diag_task_b : &c->diag_task; /* while two shares are compared, each has its own partition (tune.c) */

    task.task_share = ctx->tune.task_share;
    PetscCall(MatAIJHybridRowPartUpdate(part, A, p->Ad, PETSC_FALSE, &task));
    p->dpart = part;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CSR arrays of the forward products: the first-touch copies, placed for the partitions in force, or the blocks' own */
PetscErrorCode MatAIJHybridPrepareArrays(Mat A, Mat_AIJHybrid *ctx, const AIJHybridPrepared *p, AIJHybridArrays *a)
{
  AIJHybridCaches *c = &ctx->cache;
  const PetscInt   T = p->params.nthreads;

  PetscFunctionBegin;
  a->oi = a->oj = NULL;
  a->oa         = NULL;
  if (ctx->set.first_touch) {
    PetscCall(MatAIJHybridFirstTouchUpdate(&c->ftdiag, A, p->Ad, p->dpart, T, &a->di, &a->dj, &a->da));
    if (p->Ao) PetscCall(MatAIJHybridFirstTouchUpdate(&c->ftoffd, A, p->Ao, &c->offd, T, &a->oi, &a->oj, &a->oa));
  } else {
    PetscCall(MatSeqAIJGetCSRAndMemType(p->Ad, &a->di, &a->dj, &a->da, NULL));
    if (p->Ao) PetscCall(MatSeqAIJGetCSRAndMemType(p->Ao, &a->oi, &a->oj, &a->oa, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The arrays of a product y = A x or y = z + A x (z may be y, or NULL): x read, z read (za = ya
  when z is y), y written (read too when z is given)
*/
PetscErrorCode MatAIJHybridGetVecArrays(Vec x, Vec z, Vec y, const PetscScalar **xa, const PetscScalar **za, PetscScalar **ya)
{
  PetscFunctionBegin;
  *za = NULL;
  PetscCall(VecGetArrayRead(x, xa));
  if (z && z != y) PetscCall(VecGetArrayRead(z, za));
  if (z) PetscCall(VecGetArray(y, ya));
  else PetscCall(VecGetArrayWrite(y, ya));
  if (z == y) *za = *ya;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatAIJHybridRestoreVecArrays(Vec x, Vec z, Vec y, const PetscScalar **xa, const PetscScalar **za, PetscScalar **ya)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(x, xa));
  if (z && z != y) PetscCall(VecRestoreArrayRead(z, za));
  if (z) PetscCall(VecRestoreArray(y, ya));
  else PetscCall(VecRestoreArrayWrite(y, ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}
