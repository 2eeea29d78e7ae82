/*
   The one step that makes the caches of an aijhybrid matrix valid for its current pattern and
   parameters, in two kinds:
     assembly (MatAssemblyEnd, a conversion, settings taken over): the thread partitions of the
       blocks, which are local and cheap; nothing that communicates but counting the ranks of the
       communicator on the node, once per communicator;
     use (every product, MatSOR, MatDiagonalScale, and what views or hands out the exchange): the
       same, and first the halo exchange. The exchange is checked, and rebuilt where the ghost
       pattern changed on some rank, by all ranks together the first time the matrix is used after
       its nonzero state changed: A->nonzerostate is the same on every rank (MPIAIJ's assembly
       sums it over the ranks), and these operations are collective, so every rank decides alike
       and at the same call. The intermediate matrices of a preconditioner's setup (products,
       transposes, graphs) that are never multiplied never build one.
   MatCreateVecs (vecs.c) needs only the diagonal partition and updates that alone. A seqaijhybrid
   matrix is the case without an off-diagonal block and exchange.
*/
#include "aijhybridimpl.h"

PetscLogEvent MATAIJHYBRID_HaloSetUp;

/*
  the halo exchange of the mpiaijhybrid matrix A (off-diagonal block Ao) valid: collective when A's
  nonzero state changed since it was last checked (on every rank alike), local otherwise
*/
static PetscErrorCode HaloEnsure(Mat A, Mat_AIJHybrid *ctx, Mat Ao)
{
  AIJHybridCaches *c      = &ctx->cache;
  const PetscInt   nghost = Ao->cmap->n;

  PetscFunctionBegin;
  /* the matrix's nonzero state does not always move when MPIAIJ's assembly replaces the
     off-diagonal block (PETSc 3.18: a row zeroed, then a new off-process nonzero gives a new block
     with ghosts and the same state), so a new block is a change too; the assembly replaces it on
     every rank or on none (a rank that disassembles makes all do), so all ranks still agree */
  if (!c->halo.sf || c->halo.nzstate != A->nonzerostate || Ao != c->halo.block) {
    PetscMPIInt local[2], global[2];

    PetscCall(PetscLogEventBegin(MATAIJHYBRID_HaloSetUp, A, 0, 0, 0));
    local[0] = (PetscMPIInt)(Ao != c->halo.block || nghost != c->halo.nghost || !c->halo.sf); /* changed here */
    local[1] = (PetscMPIInt)(nghost > 0);                                                     /* has ghosts */
    PetscCallMPI(MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    c->has_offproc = (PetscBool)global[1];
    PetscCall(MatAIJHybridHaloUpdate(&c->halo, A, (PetscBool)global[0], ctx->set.node_aware, ctx->set.node_size));
    c->halo.nzstate = A->nonzerostate;
    PetscCall(PetscLogEventEnd(MATAIJHYBRID_HaloSetUp, A, 0, 0, 0));
  } else {
    PetscCheck(nghost == c->halo.nghost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The off-diagonal block of this %s matrix changed without MatAssemblyEnd(); call MatAssemblyBegin/End() after changing the matrix", MATMPIAIJHYBRID);
    PetscCall(MatAIJHybridHaloUpdate(&c->halo, A, PETSC_FALSE, ctx->set.node_aware, ctx->set.node_size)); /* node-aware switched, or node size changed, since it was built (logically collective settings) */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MatAIJHybridPrepare - the blocks, parameters, mode and diagonal partition a product of A runs
  with, every partition built for them. assembly: at assembly (no exchange, no mode: p->mode and
  p->dpart are those of vector mode); otherwise before a use of A (collective, see above).
*/
PetscErrorCode MatAIJHybridPrepare(Mat A, Mat_AIJHybrid *ctx, PetscBool assembly, AIJHybridPrepared *p)
{
  AIJHybridCaches *c = &ctx->cache;

  PetscFunctionBegin;
  p->Ad = A;
  p->Ao = NULL;
  if (ctx->info->mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &p->Ad, &p->Ao, NULL));
    if (!assembly) PetscCall(HaloEnsure(A, ctx, p->Ao));
  }
  if (assembly) PetscCall(AIJHybridCountRanksOnNode(PetscObjectComm((PetscObject)A)));
  MatAIJHybridContextCurrentParams(ctx, &p->params);
  PetscCall(AIJHybridCheckOversubscription((PetscObject)A, p->params.nthreads));
  PetscCall(MatAIJHybridRowPartUpdate(&c->diag, A, p->Ad, PETSC_FALSE, &p->params));
  if (p->Ao) PetscCall(MatAIJHybridRowPartUpdate(&c->offd, A, p->Ao, PETSC_TRUE, &p->params));
  p->mode  = assembly ? MAT_AIJHYBRID_MODE_VECTOR : MatAIJHybridEffectiveMode(ctx, p->params.nthreads);
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
