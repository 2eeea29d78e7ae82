/*
   The aijhybrid matrix types above their context (src/mat/context.h), layer by layer:

     prepare.c      one step that makes the caches valid, for assembly (collective) and before every
                    product or MatSOR (local); seq is the case without an off-diagonal block
     product.c      MatMult, MatMultAdd and the transposes of both types: prepare, exchange and
                    multiply, tune
     matsor.c       MatSOR: thread-local sweeps
     vecs.c         MatCreateVecs: hybrid vectors with the matrix's threads and diagonal partition
     zerorows.c     MatZeroRows made safe from a use-after-free of SeqAIJ
     axpy.c         MatAXPY: threaded sums of two matrices (same, subset and union patterns)
     scale.c        MatScale, MatDiagonalScale: threaded scalings of the entries
     diagonal.c     MatGetDiagonal: the diagonal found by the threads
     entrywise.c    what those three share: threads and row partitions of an entry-wise operation
     header.c       an in-place operation's result put into the operand's header, which keeps its
                    name, prefix, composed objects and product data (MatTranspose, MatAXPY)
     matproduct.c   sparse products (MatMatMult, MatPtAP, ...): the threaded algorithm or PETSc's,
                    the products of seqaijhybrid matrices (steps in productplan.c)
     matproductmpi.c the products of mpiaijhybrid matrices
     matmat.c       products with other types (aij, MAIJ, dense, ...) through AIJ's implementations
     settings.c     the -mat_aijhybrid_* options and the public Set/Get functions (composed)
     diagnostics.c  the public Get functions of what was measured or built (composed)
     view.c         the MatView lines
     aijhybrid.c    turning AIJ into aijhybrid and back, the operations that chain to AIJ, the
                    constructors, the manual pages of the two types

   The registration (src/register.c) uses the constructors and the log events.
*/
#ifndef AIJHYBRID_MAT_IMPL_H
#define AIJHYBRID_MAT_IMPL_H

#include "context.h"

/* prepare.c: what a product runs with, valid for the current pattern and parameters */
typedef struct {
  Mat                     Ad, Ao; /* diagonal block (seq: the matrix), off-diagonal block (seq: NULL) */
  AIJHybridPartParams     params; /* in force (threads) */
  MatAIJHybridMode        mode;   /* the mode the product runs in */
  const AIJHybridRowPart *dpart;  /* the diagonal partition for the mode */
} AIJHybridPrepared;

/* the CSR arrays the forward products read: first-touch copies or the blocks' own */
typedef struct {
  const PetscInt *di, *dj, *oi, *oj;
  PetscScalar    *da, *oa;
} AIJHybridArrays;

PETSC_INTERN PetscLogEvent  MATAIJHYBRID_HaloSetUp;
PETSC_INTERN PetscErrorCode MatAIJHybridPrepare(Mat, Mat_AIJHybrid *, PetscBool, AIJHybridPrepared *);
PETSC_INTERN PetscErrorCode MatAIJHybridTransposeSeq(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatAIJHybridReplaceKeepingHeader(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatAIJHybridPrepareArrays(Mat, Mat_AIJHybrid *, const AIJHybridPrepared *, AIJHybridArrays *);
PETSC_INTERN PetscErrorCode MatAIJHybridGetVecArrays(Vec, Vec, Vec, const PetscScalar **, const PetscScalar **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatAIJHybridRestoreVecArrays(Vec, Vec, Vec, const PetscScalar **, const PetscScalar **, PetscScalar **);

/* the operations */
PETSC_INTERN PetscErrorCode MatMult_AIJHybrid(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultAdd_AIJHybrid(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTranspose_AIJHybrid(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_AIJHybrid(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatSOR_AIJHybrid(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN PetscErrorCode MatCreateVecs_AIJHybrid(Mat, Vec *, Vec *);
PETSC_INTERN PetscErrorCode MatZeroRows_AIJHybrid(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_AIJHybrid_Anytype(Mat);
PETSC_INTERN PetscErrorCode MatAXPY_AIJHybrid(Mat, PetscScalar, Mat, MatStructure);
PETSC_INTERN PetscErrorCode MatAXPYGetPreallocation_AIJHybrid(Mat, Mat, Mat *);
PETSC_INTERN PetscErrorCode MatScale_AIJHybrid(Mat, PetscScalar);
PETSC_INTERN PetscErrorCode MatDiagonalScale_AIJHybrid(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatGetDiagonal_AIJHybrid(Mat, Vec);

/* entrywise.c: what the entry-wise operations (axpy.c, scale.c, diagonal.c) share */
PETSC_INTERN PetscErrorCode MatAIJHybridEntryThreads(Mat_AIJHybrid *, PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode MatAIJHybridEntryBounds(PetscInt, const PetscInt *, PetscInt, PetscInt **);
PETSC_INTERN PetscErrorCode MatAIJHybridEntryBlocks(Mat, Mat_AIJHybrid *, Mat *, Mat *, const PetscInt **);
PETSC_INTERN PetscErrorCode MatAIJHybridEntryPattern(Mat, PetscInt *, PetscInt *, const PetscInt **, const PetscInt **);
PETSC_INTERN PetscErrorCode MatProductSetFromOptions_AIJHybrid(Mat);

/* settings.c, diagnostics.c, view.c */
PETSC_INTERN PetscErrorCode MatAIJHybridSetFromOptions_Private(Mat, AIJHybridOptionItems, Mat_AIJHybrid *);
PETSC_INTERN PetscErrorCode MatAIJHybridComposeSettings(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatAIJHybridComposeDiagnostics(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatAIJHybridView_Private(Mat, PetscViewer, Mat_AIJHybrid *);

/* aijhybrid.c */
PETSC_INTERN PetscErrorCode MatCreate_SeqAIJHybrid(Mat);
PETSC_INTERN PetscErrorCode MatCreate_MPIAIJHybrid(Mat);

#endif
