/*
   The sparse products of mpiaijhybrid matrices (AB, AtB, ABt, PtAP, RARt; the choice of algorithm
   and the seqaijhybrid products are in matproduct.c). Each rank works on its local rows with
   compact columns (src/kernels/spgemm.h: its own columns first, then the others in increasing
   global order, so that a sorted row is its diagonal-block part then its off-diagonal part), and
   every local product is the threaded row-wise product of productplan.c. PETSc's communication
   is used for what comes from or goes to other ranks:

   AB   C = [Ad | Ao] Bext: Bext is B's local rows (its two blocks made one) followed by B's rows for
        A's ghost columns, fetched by MatCreateSubMatrices() (all columns; fetched again with
        MAT_REUSE_MATRIX when B's values changed). C's rows are written straight into its blocks.
   AtB  C = A^T B: the threads transpose [Ad | Ao] (the rows of A^T for A's own columns, then for
        its ghost columns), multiply both parts by B's local rows; the ghost part (contributions to
        rows other ranks own) is sent with a PetscSF to the owners (its pattern once, its values at
        every numeric phase), and each rank sums, row by row, its own part and the rows it
        received, in increasing rank of the sender (a product with a 0/1 selection matrix, so one
        thread sums each row in a fixed order).
   PtAP C = P^T (A P): AB then AtB on A P's local rows (A P never becomes a Mat).
   ABt  C = A (B^T), RARt C = (R^T)^T A (R^T): B^T (R^T) made an mpiaij matrix by the AtB steps
        with an identity, then AB (PtAP).

   The result's pattern is fixed at the symbolic phase (C is preallocated from the counts and its
   blocks' column indices are set at once); the numeric phase writes the values in place. The
   values of a row of C do not depend on the thread count; they differ from PETSc's MPIAIJ
   products only by rounding (another summation order), as PETSc's own algorithms differ from each
   other.
*/
#include "matproduct.h"
#include "../threads/threads.h"
#include <string.h>

/* the start of part t of n items in nth parts */
static inline PetscInt Part(PetscInt n, PetscInt nth, PetscInt t)
{
  return n / nth * t + PetscMin(t, n % nth);
}

/* local rows with compact columns: nloc own columns from the global column cstart, then ncm others colmap[] */
typedef struct {
  PetscInt     m, nloc, cstart, ncm, nz;
  PetscInt    *colmap;
  PetscInt    *i, *j;
  PetscScalar *a;
} CompactRows;

static PetscErrorCode CompactRowsDestroy(CompactRows *c)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(c->colmap));
  PetscCall(PetscFree(c->i));
  PetscCall(PetscFree(c->j));
  PetscCall(PetscFree(c->a));
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void CompactView(const CompactRows *c, AIJHybridCSR *v)
{
  PetscMemzero(v, sizeof(*v));
  v->i = c->i;
  v->j = c->j;
  v->a = c->a;
}

/* [Ad | Ao] of an MPIAIJ matrix as a CSR of two blocks (Ao's ghost g is column nloc + g); its entries in each block, its ghost columns */
static PetscErrorCode MPIView(Mat A, AIJHybridCSR *v, PetscInt *nzd, PetscInt *nzo, const PetscInt **garray, PetscInt *ngh)
{
  Mat             Ad, Ao;
  const PetscInt *i, *j, *oi, *oj;
  PetscScalar    *a, *oa;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, garray));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &i, &j, &a, NULL));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ao, &oi, &oj, &oa, NULL));
  v->i    = i;
  v->j    = j;
  v->a    = a;
  v->oi   = oi;
  v->oj   = oj;
  v->oa   = oa;
  v->ooff = A->cmap->n;
  *nzd    = A->rmap->n ? i[A->rmap->n] : 0;
  *nzo    = A->rmap->n ? oi[A->rmap->n] : 0;
  *ngh    = Ao->cmap->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   B's local rows as compact rows (AtB's B): its two blocks made one, its ghost columns its garray */
static PetscErrorCode LocalRowsSetUp(Mat B, PetscInt T, CompactRows *x)
{
  AIJHybridCSR    vb;
  PetscInt        nzd, nzo, ngh, m = B->rmap->n;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MPIView(B, &vb, &nzd, &nzo, &garray, &ngh));
  x->m      = m;
  x->nloc   = B->cmap->n;
  x->cstart = B->cmap->rstart;
  x->ncm    = ngh;
  x->nz     = nzd + nzo;
  PetscCall(PetscMalloc1(ngh + 1, &x->colmap));
  PetscCall(PetscArraycpy(x->colmap, garray, ngh));
  PetscCall(PetscMalloc1(m + 1, &x->i));
  PetscCall(PetscMalloc1(x->nz + 1, &x->j));
  PetscCall(PetscMalloc1(x->nz + 1, &x->a));
  x->i[0] = 0;
  for (PetscInt r = 0; r < m; r++) x->i[r + 1] = x->i[r] + (vb.i[r + 1] - vb.i[r]) + (vb.oi[r + 1] - vb.oi[r]);
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridRowsConcat(Part(m, nth, tid), Part(m, nth, tid + 1), &vb, NULL, x->i, x->j, x->a);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* B's local values into x (made by LocalRowsSetUp()) */
static PetscErrorCode LocalRowsValues(Mat B, PetscInt T, CompactRows *x)
{
  AIJHybridCSR    vb;
  PetscInt        nzd, nzo, ngh, m = B->rmap->n;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MPIView(B, &vb, &nzd, &nzo, &garray, &ngh));
  PetscCheck(nzd + nzo == x->nz && ngh == x->ncm, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The nonzero pattern of an operand changed since the symbolic phase of its product");
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridRowsConcat(Part(m, nth, tid), Part(m, nth, tid + 1), &vb, NULL, x->i, NULL, x->a);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   AB: C = [Ad | Ao] Bext */
typedef struct {
  Mat             *sub; /* sub[0]: B's rows for A's ghost columns, all columns */
  IS               isrow, iscol;
  Mat              B; /* the B the rows were fetched from, and its state then */
  PetscObjectState state;
  PetscInt        *gmap; /* B's ghost column g is compact column nloc + gmap[g] of rows */
  PetscInt         mB;   /* B's local rows: the first rows of rows */
  CompactRows      rows; /* B's local rows, then sub[0]'s */
  AIJHybridSpGEMM  plan; /* C = [Ad | Ao] rows; its pattern gathered */
} ABCore;

static PetscErrorCode ABCoreDestroy(ABCore *c)
{
  PetscFunctionBegin;
  if (c->sub) PetscCall(MatDestroySubMatrices(1, &c->sub));
  PetscCall(ISDestroy(&c->isrow));
  PetscCall(ISDestroy(&c->iscol));
  PetscCall(PetscFree(c->gmap));
  PetscCall(CompactRowsDestroy(&c->rows));
  PetscCall(AIJHybridSpGEMMDestroy(&c->plan));
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the values of Bext: B's rows fetched again if B changed since they were */
static PetscErrorCode ABCoreValues(ABCore *c, Mat B, PetscInt T)
{
  PetscObjectState   state;
  AIJHybridCSR       vb;
  PetscInt           nzd, nzo, ngh, nzs;
  const PetscInt    *garray, *si;
  const PetscScalar *sa;
  CompactRows       *x = &c->rows;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)B, &state));
  if (B != c->B || state != c->state) {
    PetscCall(MatCreateSubMatrices(B, 1, &c->isrow, &c->iscol, MAT_REUSE_MATRIX, &c->sub));
    c->B     = B;
    c->state = state;
  }
  PetscCall(MPIView(B, &vb, &nzd, &nzo, &garray, &ngh));
  PetscCall(MatSeqAIJGetCSRAndMemType(c->sub[0], &si, NULL, (PetscScalar **)&sa, NULL));
  nzs = x->m > c->mB ? si[x->m - c->mB] : 0;
  PetscCheck(nzd + nzo + nzs == x->nz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The nonzero pattern of an operand changed since the symbolic phase of its product");
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num(), s = Part(nzs, nth, tid);

    AIJHybridRowsConcat(Part(c->mB, nth, tid), Part(c->mB, nth, tid + 1), &vb, NULL, x->i, NULL, x->a);
    memcpy(x->a + x->i[c->mB] + s, sa + s, (size_t)(Part(nzs, nth, tid + 1) - s) * sizeof(PetscScalar));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the pattern of C = A B (rows: A's local rows; compact columns: c->rows') */
static PetscErrorCode ABCoreSymbolic(ABCore *c, Mat A, Mat B, PetscInt T, AIJHybridProductWork *work)
{
  AIJHybridCSR    va, vb, vr;
  PetscInt        nzd, nzo, ngA, ngB, nzs, ncm = 0, mB = B->rmap->n, nloc = B->cmap->n, cstart = B->cmap->rstart;
  const PetscInt *garrayA, *garrayB, *si, *sj;
  CompactRows    *x = &c->rows;

  PetscFunctionBegin;
  PetscCall(MPIView(A, &va, &nzd, &nzo, &garrayA, &ngA));
  PetscCall(MPIView(B, &vb, &nzd, &nzo, &garrayB, &ngB));
  /* B's rows for A's ghost columns */
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ngA, garrayA, PETSC_COPY_VALUES, &c->isrow));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, B->cmap->N, 0, 1, &c->iscol));
  PetscCall(MatCreateSubMatrices(B, 1, &c->isrow, &c->iscol, MAT_INITIAL_MATRIX, &c->sub));
  c->B = B;
  PetscCall(PetscObjectStateGet((PetscObject)B, &c->state));
  PetscCall(MatSeqAIJGetCSRAndMemType(c->sub[0], &si, &sj, NULL, NULL));
  nzs = ngA ? si[ngA] : 0;
  /* the compact columns: B's own, then B's ghosts and the other columns of the fetched rows */
  PetscCall(PetscMalloc1(ngB + nzs + 1, &x->colmap));
  PetscCall(PetscArraycpy(x->colmap, garrayB, ngB));
  ncm = ngB;
  for (PetscInt k = 0; k < nzs; k++)
    if (sj[k] < cstart || sj[k] >= cstart + nloc) x->colmap[ncm++] = sj[k];
  PetscCall(PetscSortRemoveDupsInt(&ncm, x->colmap));
  PetscCall(PetscMalloc1(ngB + 1, &c->gmap));
  for (PetscInt g = 0; g < ngB; g++) PetscCall(PetscFindInt(garrayB[g], ncm, x->colmap, &c->gmap[g]));
  x->m      = mB + ngA;
  x->nloc   = nloc;
  x->cstart = cstart;
  x->ncm    = ncm;
  c->mB     = mB;
  PetscCall(PetscMalloc1(x->m + 1, &x->i));
  x->i[0] = 0;
  for (PetscInt r = 0; r < mB; r++) x->i[r + 1] = x->i[r] + (vb.i[r + 1] - vb.i[r]) + (vb.oi[r + 1] - vb.oi[r]);
  for (PetscInt r = 0; r < ngA; r++) x->i[mB + r + 1] = x->i[mB] + si[r + 1];
  x->nz = x->i[x->m];
  PetscCall(PetscMalloc1(x->nz + 1, &x->j));
  PetscCall(PetscMalloc1(x->nz + 1, &x->a));
  vb.ooff = nloc;
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridRowsConcat(Part(mB, nth, tid), Part(mB, nth, tid + 1), &vb, c->gmap, x->i, x->j, NULL);
    AIJHybridColumnsToCompact(Part(nzs, nth, tid), Part(nzs, nth, tid + 1), sj, cstart, nloc, ncm, x->colmap, x->j + x->i[mB]);
  }
  /* the product's pattern */
  CompactView(x, &vr);
  PetscCall(AIJHybridSpGEMMSymbolic(&c->plan, A->rmap->n, &va, &vr, nloc + ncm, T, PETSC_FALSE, work));
  PetscCall(PetscMalloc1(c->plan.nz + 1, &c->plan.cj));
  PetscCall(AIJHybridSpGEMMGather(&c->plan, c->plan.cj, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = A B into out */
static PetscErrorCode ABCoreNumeric(ABCore *c, Mat A, Mat B, PetscInt T, const AIJHybridCSROut *out, AIJHybridProductWork *work)
{
  AIJHybridCSR    va, vr;
  PetscInt        nzd, nzo, ngA;
  const PetscInt *garrayA;

  PetscFunctionBegin;
  PetscCall(ABCoreValues(c, B, T));
  PetscCall(MPIView(A, &va, &nzd, &nzo, &garrayA, &ngA));
  CompactView(&c->rows, &vr);
  PetscCall(AIJHybridSpGEMMRun(&c->plan, &va, &vr, out, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   AtB: C = A^T X, X the local rows of B (compact) */
typedef struct {
  AIJHybridTransposePlan ta;       /* [Ad | Ao]^T: rows for A's own columns, then for its ghosts */
  AIJHybridSpGEMM        own, rem; /* Q = ta X: rows [0, n), rows [n, n + ngA); patterns gathered */
  PetscScalar           *remv;     /* rem's values (sent) */
  PetscSF                sf;       /* rem's entries -> their places among the entries each owner receives */
  PetscInt               nin;      /* rows received */
  CompactRows            mb;       /* own's rows, then the rows received, in C's compact columns;
                                      values: own's, then the received ones */
  PetscInt       *si, *sj;         /* S (n rows): row r selects own's row r and the rows received for r */
  AIJHybridSpGEMM merge;           /* C = S mb; pattern gathered */
} AtBCore;

static PetscErrorCode AtBCoreDestroy(AtBCore *c)
{
  PetscFunctionBegin;
  PetscCall(AIJHybridTransposeDestroy(&c->ta));
  PetscCall(AIJHybridSpGEMMDestroy(&c->own));
  PetscCall(AIJHybridSpGEMMDestroy(&c->rem));
  PetscCall(PetscFree(c->remv));
  PetscCall(PetscSFDestroy(&c->sf));
  PetscCall(CompactRowsDestroy(&c->mb));
  PetscCall(PetscFree2(c->si, c->sj));
  PetscCall(AIJHybridSpGEMMDestroy(&c->merge));
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the rows of ta from row r0 on, as a CSR */
static void TransposeRowsView(const AIJHybridTransposePlan *t, PetscInt r0, AIJHybridCSR *v)
{
  PetscMemzero(v, sizeof(*v));
  v->i = t->ti + r0;
  v->j = t->tj;
  v->a = t->tv;
}

/* the pattern of C = A^T X (rows: A's local columns; compact columns: c->mb's) */
static PetscErrorCode AtBCoreSymbolic(AtBCore *c, Mat A, const CompactRows *X, PetscInt T, AIJHybridProductWork *work)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  AIJHybridCSR       va, vx, vown, vrem, vs, vmb;
  PetscInt           nzd, nzo, ngA, n = A->cmap->n, nin = 0, nrecv, ncm, *lens, *ranks, *inlens, *inranks, *order, *slotoff, *leafoff, *roff, *sendcols, *recvcols, *degoff;
  const PetscInt    *garrayA, *deg;
  const PetscSFNode *rremote;
  PetscSFNode       *iremote;
  PetscSF            rows;
  PetscMPIInt        rank;
  const PetscInt     ncolsX = X->nloc + X->ncm;
  CompactRows       *mb     = &c->mb;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MPIView(A, &va, &nzd, &nzo, &garrayA, &ngA));
  PetscCall(AIJHybridTransposeSymbolic(&c->ta, &va, A->rmap->n, n + ngA, nzd, nzd + nzo, T, PETSC_TRUE));
  CompactView(X, &vx);
  TransposeRowsView(&c->ta, 0, &vown);
  TransposeRowsView(&c->ta, n, &vrem);
  PetscCall(AIJHybridSpGEMMSymbolic(&c->own, n, &vown, &vx, ncolsX, T, PETSC_FALSE, work));
  PetscCall(PetscMalloc1(c->own.nz + 1, &c->own.cj));
  PetscCall(AIJHybridSpGEMMGather(&c->own, c->own.cj, NULL));
  PetscCall(AIJHybridSpGEMMSymbolic(&c->rem, ngA, &vrem, &vx, ncolsX, T, PETSC_FALSE, work));
  PetscCall(PetscMalloc1(c->rem.nz + 1, &c->rem.cj));
  PetscCall(AIJHybridSpGEMMGather(&c->rem, c->rem.cj, NULL));
  PetscCall(PetscMalloc1(c->rem.nz + 1, &c->remv));

  /* the rows of rem go to the owners of A's ghost columns: their lengths and senders first */
  PetscCall(PetscSFCreate(comm, &rows));
  PetscCall(PetscSFSetGraphLayout(rows, A->cmap, ngA, NULL, PETSC_COPY_VALUES, garrayA));
  PetscCall(PetscSFComputeDegreeBegin(rows, &deg));
  PetscCall(PetscSFComputeDegreeEnd(rows, &deg));
  PetscCall(PetscMalloc1(n + 1, &degoff));
  degoff[0] = 0;
  for (PetscInt r = 0; r < n; r++) degoff[r + 1] = degoff[r] + deg[r];
  nin = degoff[n];
  PetscCall(PetscMalloc4(ngA + 1, &lens, ngA + 1, &ranks, nin + 1, &inlens, nin + 1, &inranks));
  for (PetscInt k = 0; k < ngA; k++) {
    lens[k]  = c->rem.ci[k + 1] - c->rem.ci[k];
    ranks[k] = rank;
  }
  PetscCall(PetscSFGatherBegin(rows, MPIU_INT, lens, inlens));
  PetscCall(PetscSFGatherEnd(rows, MPIU_INT, lens, inlens));
  PetscCall(PetscSFGatherBegin(rows, MPIU_INT, ranks, inranks));
  PetscCall(PetscSFGatherEnd(rows, MPIU_INT, ranks, inranks));
  /* the rows received, by root then by sender (one row per sender and root: a sender's ghosts are
     distinct), and their places; each sender learns the place of each row it sends */
  PetscCall(PetscMalloc4(nin + 1, &order, nin + 1, &slotoff, ngA + 1, &leafoff, nin + 1, &roff));
  for (PetscInt s = 0; s < nin; s++) order[s] = s;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt *key = inranks + degoff[r], *val = order + degoff[r];

    PetscCall(PetscSortIntWithArray(deg[r], key, val)); /* inranks now sorted: sender of the q-th row received */
  }
  roff[0] = 0;
  for (PetscInt q = 0; q < nin; q++) {
    roff[q + 1]       = roff[q] + inlens[order[q]];
    slotoff[order[q]] = roff[q];
  }
  nrecv = roff[nin];
  PetscCall(PetscSFScatterBegin(rows, MPIU_INT, slotoff, leafoff));
  PetscCall(PetscSFScatterEnd(rows, MPIU_INT, slotoff, leafoff));
  /* the entries: one leaf per entry sent, rooted at its place at the owner */
  PetscCall(PetscSFGetGraph(rows, NULL, NULL, NULL, &rremote));
  PetscCall(PetscMalloc1(c->rem.nz + 1, &iremote));
  for (PetscInt k = 0; k < ngA; k++)
    for (PetscInt e = c->rem.ci[k]; e < c->rem.ci[k + 1]; e++) {
      iremote[e].rank  = rremote[k].rank;
      iremote[e].index = leafoff[k] + e - c->rem.ci[k];
    }
  PetscCall(PetscSFCreate(comm, &c->sf));
  PetscCall(PetscSFSetGraph(c->sf, nrecv, c->rem.nz, NULL, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(c->sf));
  PetscCall(PetscSFDestroy(&rows));
  /* their global columns */
  PetscCall(PetscMalloc2(c->rem.nz + 1, &sendcols, nrecv + 1, &recvcols));
  AIJHybridColumnsToGlobal(0, c->rem.nz, c->rem.cj, X->cstart, X->nloc, X->colmap, sendcols);
  PetscCall(PetscSFReduceBegin(c->sf, MPIU_INT, sendcols, recvcols, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(c->sf, MPIU_INT, sendcols, recvcols, MPI_REPLACE));

  /* C's compact columns: X's, and the other columns received */
  PetscCall(PetscMalloc1(X->ncm + nrecv + 1, &mb->colmap));
  PetscCall(PetscArraycpy(mb->colmap, X->colmap, X->ncm));
  ncm = X->ncm;
  for (PetscInt k = 0; k < nrecv; k++)
    if (recvcols[k] < X->cstart || recvcols[k] >= X->cstart + X->nloc) mb->colmap[ncm++] = recvcols[k];
  PetscCall(PetscSortRemoveDupsInt(&ncm, mb->colmap));
  mb->ncm    = ncm;
  mb->nloc   = X->nloc;
  mb->cstart = X->cstart;
  /* mb: own's rows, then the rows received, in C's compact columns */
  mb->m  = n + nin;
  mb->nz = c->own.nz + nrecv;
  PetscCall(PetscMalloc1(mb->m + 1, &mb->i));
  PetscCall(PetscMalloc1(mb->nz + 1, &mb->j));
  PetscCall(PetscMalloc1(mb->nz + 1, &mb->a));
  PetscCall(PetscArraycpy(mb->i, c->own.ci, n + 1));
  for (PetscInt q = 0; q < nin; q++) mb->i[n + q + 1] = c->own.nz + roff[q + 1];
  {
    PetscInt *ownglobal;

    PetscCall(PetscMalloc1(c->own.nz + 1, &ownglobal));
#pragma omp parallel num_threads(T)
    {
      const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num(), no = c->own.nz;

      AIJHybridColumnsToGlobal(Part(no, nth, tid), Part(no, nth, tid + 1), c->own.cj, X->cstart, X->nloc, X->colmap, ownglobal);
      AIJHybridColumnsToCompact(Part(no, nth, tid), Part(no, nth, tid + 1), ownglobal, mb->cstart, mb->nloc, ncm, mb->colmap, mb->j);
      AIJHybridColumnsToCompact(Part(nrecv, nth, tid), Part(nrecv, nth, tid + 1), recvcols, mb->cstart, mb->nloc, ncm, mb->colmap, mb->j + no);
    }
    PetscCall(PetscFree(ownglobal));
  }
  /* S: row r = own's row r, then the rows received for r (q in [degoff[r], degoff[r + 1])) */
  PetscCall(PetscMalloc2(n + 1, &c->si, n + nin + 1, &c->sj));
  for (PetscInt r = 0, p = 0; r < n; r++) {
    c->si[r]   = p;
    c->sj[p++] = r;
    for (PetscInt q = degoff[r]; q < degoff[r + 1]; q++) c->sj[p++] = n + q;
    c->si[r + 1] = p;
  }
  if (!n) c->si[0] = 0;
  c->nin = nin;
  PetscCall(PetscMemzero(&vs, sizeof(vs)));
  vs.i = c->si;
  vs.j = c->sj;
  CompactView(mb, &vmb);
  PetscCall(AIJHybridSpGEMMSymbolic(&c->merge, n, &vs, &vmb, mb->nloc + ncm, T, PETSC_FALSE, work));
  PetscCall(PetscMalloc1(c->merge.nz + 1, &c->merge.cj));
  PetscCall(AIJHybridSpGEMMGather(&c->merge, c->merge.cj, NULL));
  PetscCall(PetscFree2(sendcols, recvcols));
  PetscCall(PetscFree4(order, slotoff, leafoff, roff));
  PetscCall(PetscFree4(lens, ranks, inlens, inranks));
  PetscCall(PetscFree(degoff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = A^T X (X's values current) into out */
static PetscErrorCode AtBCoreNumeric(AtBCore *c, Mat A, const CompactRows *X, PetscInt T, const AIJHybridCSROut *out, AIJHybridProductWork *work)
{
  AIJHybridCSR    va, vx, vown, vrem, vs, vmb;
  PetscInt        nzd, nzo, ngA, n = A->cmap->n;
  const PetscInt *garrayA;
  AIJHybridCSROut orem = {c->rem.ci, c->rem.cj, c->rem.ncols, c->remv, NULL, c->rem.ci, NULL};
  AIJHybridCSROut oown = {c->own.ci, c->own.cj, c->own.ncols, c->mb.a, NULL, c->own.ci, NULL};

  PetscFunctionBegin;
  PetscCall(MPIView(A, &va, &nzd, &nzo, &garrayA, &ngA));
  PetscCheck(nzd + nzo == c->ta.nz && n + ngA == c->ta.n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The nonzero pattern of an operand changed since the symbolic phase of its product");
  PetscCall(AIJHybridTransposeRun(&c->ta, va.a, va.oa, NULL));
  CompactView(X, &vx);
  TransposeRowsView(&c->ta, 0, &vown);
  TransposeRowsView(&c->ta, n, &vrem);
  /* the contributions to other ranks first, sent while the own rows are computed */
  PetscCall(AIJHybridSpGEMMRun(&c->rem, &vrem, &vx, &orem, work));
  PetscCall(PetscSFReduceBegin(c->sf, MPIU_SCALAR, c->remv, c->mb.a + c->own.nz, MPI_REPLACE));
  PetscCall(AIJHybridSpGEMMRun(&c->own, &vown, &vx, &oown, work));
  PetscCall(PetscSFReduceEnd(c->sf, MPIU_SCALAR, c->remv, c->mb.a + c->own.nz, MPI_REPLACE));
  PetscCall(PetscMemzero(&vs, sizeof(vs)));
  vs.i = c->si;
  vs.j = c->sj;
  CompactView(&c->mb, &vmb);
  PetscCall(AIJHybridSpGEMMRun(&c->merge, &vs, &vmb, out, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   The result: an MPIAIJ matrix (of type `type`) with the compact pattern of p (columns below nloc
   its own, the others colmap[]), values zero */
static PetscErrorCode CreateMPIResult(Mat C, MatType type, PetscInt m, PetscInt n, PetscInt M, PetscInt N, const AIJHybridSpGEMM *p, PetscInt nloc, const PetscInt *colmap, PetscInt T)
{
  Mat          Cd, Co;
  PetscInt    *dcnt, *ocnt, *di, *oi, *dj, *oj, nzd = 0, nzo = 0;
  PetscScalar *da, *oa;

  PetscFunctionBegin;
  PetscCall(MatSetSizes(C, m, n, M, N));
  if (C->product) PetscCall(MatAIJHybridProductBlockSizes(C));
  PetscCall(MatSetType(C, type));
  PetscCall(PetscMalloc4(m + 1, &dcnt, m + 1, &ocnt, m + 1, &di, m + 1, &oi));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridRowsSplitCount(Part(m, nth, tid), Part(m, nth, tid + 1), p->ci, p->cj, nloc, dcnt);
  }
  for (PetscInt r = 0; r < m; r++) {
    ocnt[r] = p->ci[r + 1] - p->ci[r] - dcnt[r];
    di[r]   = nzd;
    oi[r]   = nzo;
    nzd += dcnt[r];
    nzo += ocnt[r];
  }
  di[m] = nzd;
  oi[m] = nzo;
  PetscCall(MatMPIAIJSetPreallocation(C, 0, dcnt, 0, ocnt));
  PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, &Co, NULL));
  PetscCall(PetscMalloc2(nzd + 1, &dj, nzo + 1, &oj));
#pragma omp parallel num_threads(T)
  {
    const PetscInt nth = omp_get_num_threads(), tid = omp_get_thread_num();

    AIJHybridRowsSplit(Part(m, nth, tid), Part(m, nth, tid + 1), p->ci, p->cj, NULL, nloc, colmap, di, dj, NULL, oi, oj, NULL);
  }
  PetscCall(MatSeqAIJSetColumnIndices(Cd, dj));
  PetscCall(MatSeqAIJSetColumnIndices(Co, oj));
  PetscCall(PetscFree2(dj, oj));
  PetscCall(PetscFree4(dcnt, ocnt, di, oi));
  PetscCall(MatSeqAIJGetArrayWrite(Cd, &da));
  PetscCall(PetscArrayzero(da, nzd));
  PetscCall(MatSeqAIJRestoreArrayWrite(Cd, &da));
  PetscCall(MatSeqAIJGetArrayWrite(Co, &oa));
  PetscCall(PetscArrayzero(oa, nzo));
  PetscCall(MatSeqAIJRestoreArrayWrite(Co, &oa));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where the values of C (made by CreateMPIResult() from p) go: its two blocks */
typedef struct {
  Mat          Cd, Co;
  PetscScalar *da, *oa;
} MPIResultArrays;

static PetscErrorCode MPIResultGet(Mat C, const AIJHybridSpGEMM *p, PetscInt nloc, MPIResultArrays *r, AIJHybridCSROut *out)
{
  const PetscInt *di, *oi;
  PetscInt        m = C->rmap->n;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(C, &r->Cd, &r->Co, NULL));
  PetscCall(MatSeqAIJGetCSRAndMemType(r->Cd, &di, NULL, NULL, NULL));
  PetscCall(MatSeqAIJGetCSRAndMemType(r->Co, &oi, NULL, NULL, NULL));
  PetscCheck((m ? di[m] + oi[m] : 0) == p->nz, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The nonzero pattern of the product changed since its symbolic phase");
  PetscCall(MatSeqAIJGetArrayWrite(r->Cd, &r->da));
  PetscCall(MatSeqAIJGetArrayWrite(r->Co, &r->oa));
  out->i     = p->ci;
  out->j     = p->cj;
  out->split = nloc;
  out->a0    = r->da;
  out->i0    = di;
  out->a1    = r->oa;
  out->i1    = oi;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPIResultRestore(MPIResultArrays *r)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJRestoreArrayWrite(r->Cd, &r->da));
  PetscCall(MatSeqAIJRestoreArrayWrite(r->Co, &r->oa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   the products */
typedef struct {
  PetscInt             T;
  Mat                  Xt;    /* ABt: B^T, RARt: R^T (mpiaij) */
  CompactRows          ident; /* the identity of B's (R's) local rows, for that transpose */
  AtBCore              tcore; /* that transpose */
  ABCore               ab;    /* AB: A B; ABt: A B^T; PtAP: A P; RARt: A R^T */
  CompactRows          x;     /* AtB: B's local rows; PtAP, RARt: A P's (A R^T's) local rows (x.a: ab's values) */
  PetscBool            xview; /* x borrows ab's pattern (PtAP, RARt) */
  AtBCore              atb;   /* AtB: A^T B; PtAP: P^T (A P); RARt: R (A R^T) */
  AIJHybridProductWork work;
} ProductMPI;

static PetscErrorCode ProductMPIDestroy(AIJHybridCtxDestroyArg arg)
{
  ProductMPI *d = (ProductMPI *)AIJHybridContainerContext(arg);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&d->Xt));
  PetscCall(CompactRowsDestroy(&d->ident));
  PetscCall(AtBCoreDestroy(&d->tcore));
  PetscCall(ABCoreDestroy(&d->ab));
  if (d->xview) { /* borrowed: not freed twice */
    d->x.i = d->x.j = NULL;
    d->x.colmap     = NULL;
  }
  PetscCall(CompactRowsDestroy(&d->x));
  PetscCall(AtBCoreDestroy(&d->atb));
  PetscCall(AIJHybridProductWorkDestroy(&d->work));
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the transpose of B (mpi) as an mpiaij matrix: the AtB steps with the identity of B's local rows */
static PetscErrorCode TransposeSymbolic(ProductMPI *d, Mat B)
{
  CompactRows *id = &d->ident;
  PetscInt     m  = B->rmap->n;

  PetscFunctionBegin;
  id->m      = m;
  id->nloc   = m;
  id->cstart = B->rmap->rstart;
  id->nz     = m;
  PetscCall(PetscMalloc1(1, &id->colmap));
  PetscCall(PetscMalloc1(m + 1, &id->i));
  PetscCall(PetscMalloc1(m + 1, &id->j));
  PetscCall(PetscMalloc1(m + 1, &id->a));
  for (PetscInt r = 0; r <= m; r++) id->i[r] = r;
  for (PetscInt r = 0; r < m; r++) {
    id->j[r] = r;
    id->a[r] = 1.0;
  }
  PetscCall(AtBCoreSymbolic(&d->tcore, B, id, d->T, &d->work));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)B), &d->Xt));
  PetscCall(CreateMPIResult(d->Xt, MATMPIAIJ, B->cmap->n, B->rmap->n, B->cmap->N, B->rmap->N, &d->tcore.merge, d->tcore.mb.nloc, d->tcore.mb.colmap, d->T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransposeNumeric(ProductMPI *d, Mat B)
{
  MPIResultArrays r;
  AIJHybridCSROut out;

  PetscFunctionBegin;
  PetscCall(MPIResultGet(d->Xt, &d->tcore.merge, d->tcore.mb.nloc, &r, &out));
  PetscCall(AtBCoreNumeric(&d->tcore, B, &d->ident, d->T, &out, &d->work));
  PetscCall(MPIResultRestore(&r));
  PetscCall(PetscObjectStateIncrease((PetscObject)d->Xt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_MPIAIJHybrid(Mat C)
{
  Mat_Product    *product = C->product;
  ProductMPI     *d       = (ProductMPI *)product->data;
  Mat             A = product->A, B = product->B;
  MatProductType  type = product->type;
  MPIResultArrays r;
  AIJHybridCSROut out;

  PetscFunctionBegin;
  if (type == MATPRODUCT_ABt || type == MATPRODUCT_RARt) PetscCall(TransposeNumeric(d, B));
  if (type == MATPRODUCT_AB || type == MATPRODUCT_ABt) {
    PetscCall(MPIResultGet(C, &d->ab.plan, d->ab.rows.nloc, &r, &out));
    PetscCall(ABCoreNumeric(&d->ab, A, type == MATPRODUCT_AB ? B : d->Xt, d->T, &out, &d->work));
    PetscCall(MPIResultRestore(&r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (type == MATPRODUCT_AtB) PetscCall(LocalRowsValues(B, d->T, &d->x));
  else { /* PtAP, RARt: x = A P */ AIJHybridCSROut xout = {d->ab.plan.ci, d->ab.plan.cj, d->ab.plan.ncols, d->x.a, NULL, d->ab.plan.ci, NULL};

    PetscCall(ABCoreNumeric(&d->ab, A, type == MATPRODUCT_PtAP ? B : d->Xt, d->T, &xout, &d->work));
  }
  PetscCall(MPIResultGet(C, &d->atb.merge, d->atb.mb.nloc, &r, &out));
  PetscCall(AtBCoreNumeric(&d->atb, type == MATPRODUCT_AtB ? A : (type == MATPRODUCT_PtAP ? B : d->Xt), &d->x, d->T, &out, &d->work));
  PetscCall(MPIResultRestore(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductSymbolic_MPIAIJHybrid(Mat C)
{
  Mat_Product   *product = C->product;
  Mat            A = product->A, B = product->B, P;
  MatProductType type = product->type;
  ProductMPI    *d;
  MatType        ctype = ((PetscObject)A)->type_name;

  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  product->data    = d;
  product->destroy = ProductMPIDestroy;
  PetscCall(MatAIJHybridProductNumThreads(A, &d->T));
  switch (type) {
  case MATPRODUCT_AB:
  case MATPRODUCT_ABt:
    if (type == MATPRODUCT_ABt) PetscCall(TransposeSymbolic(d, B));
    P = type == MATPRODUCT_AB ? B : d->Xt;
    PetscCheck(A->cmap->rstart == P->rmap->rstart && A->cmap->rend == P->rmap->rend, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "Matrix local dimensions are incompatible, A columns (%" PetscInt_FMT ", %" PetscInt_FMT ") != B rows (%" PetscInt_FMT ", %" PetscInt_FMT ")", A->cmap->rstart, A->cmap->rend, P->rmap->rstart, P->rmap->rend);
    PetscCall(ABCoreSymbolic(&d->ab, A, P, d->T, &d->work));
    PetscCall(CreateMPIResult(C, ctype, A->rmap->n, P->cmap->n, A->rmap->N, P->cmap->N, &d->ab.plan, d->ab.rows.nloc, d->ab.rows.colmap, d->T));
    break;
  case MATPRODUCT_AtB:
    PetscCheck(A->rmap->rstart == B->rmap->rstart && A->rmap->rend == B->rmap->rend, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Matrix local dimensions are incompatible, A (%" PetscInt_FMT ", %" PetscInt_FMT ") != B (%" PetscInt_FMT ", %" PetscInt_FMT ")",
               A->rmap->rstart, A->rmap->rend, B->rmap->rstart, B->rmap->rend);
    PetscCall(LocalRowsSetUp(B, d->T, &d->x));
    PetscCall(AtBCoreSymbolic(&d->atb, A, &d->x, d->T, &d->work));
    PetscCall(CreateMPIResult(C, ctype, A->cmap->n, B->cmap->n, A->cmap->N, B->cmap->N, &d->atb.merge, d->atb.mb.nloc, d->atb.mb.colmap, d->T));
    break;
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
    if (type == MATPRODUCT_RARt) PetscCall(TransposeSymbolic(d, B));
    P = type == MATPRODUCT_PtAP ? B : d->Xt;
    PetscCheck(A->rmap->rstart == P->rmap->rstart && A->rmap->rend == P->rmap->rend && A->cmap->rstart == P->rmap->rstart && A->cmap->rend == P->rmap->rend, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "Matrix local dimensions are incompatible, A (%" PetscInt_FMT ", %" PetscInt_FMT ") x (%" PetscInt_FMT ", %" PetscInt_FMT ") and the rows of P (%" PetscInt_FMT ", %" PetscInt_FMT ")", A->rmap->rstart, A->rmap->rend, A->cmap->rstart,
               A->cmap->rend, P->rmap->rstart, P->rmap->rend);
    PetscCall(ABCoreSymbolic(&d->ab, A, P, d->T, &d->work));
    /* x: A P's local rows, borrowing ab's pattern and compact columns */
    d->xview    = PETSC_TRUE;
    d->x.m      = A->rmap->n;
    d->x.nloc   = d->ab.rows.nloc;
    d->x.cstart = d->ab.rows.cstart;
    d->x.ncm    = d->ab.rows.ncm;
    d->x.colmap = d->ab.rows.colmap;
    d->x.i      = d->ab.plan.ci;
    d->x.j      = d->ab.plan.cj;
    d->x.nz     = d->ab.plan.nz;
    PetscCall(PetscMalloc1(d->x.nz + 1, &d->x.a));
    PetscCall(AtBCoreSymbolic(&d->atb, P, &d->x, d->T, &d->work));
    PetscCall(CreateMPIResult(C, ctype, P->cmap->n, P->cmap->n, P->cmap->N, P->cmap->N, &d->atb.merge, d->atb.mb.nloc, d->atb.mb.colmap, d->T));
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "Product type %s is not an aijhybrid product", MatProductTypes[type]);
  }
  PetscCall(PetscInfo(C, "aijhybrid: %s of %" PetscInt_FMT "x%" PetscInt_FMT " (local %" PetscInt_FMT "x%" PetscInt_FMT ") on %" PetscInt_FMT " thread(s)\n", MatProductTypes[type], C->rmap->N, C->cmap->N, C->rmap->n, C->cmap->n, d->T));
  C->ops->productnumeric = MatProductNumeric_MPIAIJHybrid;
  PetscFunctionReturn(PETSC_SUCCESS);
}
