/*
   Unit tests of the sparse product kernels (src/kernels/spgemm.c), one process, no PETSc objects.

   Random CSR matrices (sorted columns, empty rows and columns, rectangular, A in one or two column
   blocks as an MPIAIJ matrix stores it, values or implicit ones) are multiplied and transposed with
   the rows cut into 1 to 5 parts, each part run as one thread would run it (its own marker and map,
   the parts in any order), and compared with references written from the definitions on dense
   arrays:
     - flops: the summed lengths of the selected rows of B;
     - pattern: row r of C has exactly the columns c with some stored a_rk and b_kc, sorted;
     - values: bitwise equal to the dense sum over a_rk b_kc taken in A's stored order (block 0,
       then block 1), and so bitwise equal for every split;
     - the split output: columns below split in block 0, the others in block 1, in order;
     - transpose: rows of A^T with their entries in increasing row of A, perm/gather giving the
       values, bitwise equal for every split; the offsets of the threads' counts;
     - the integer sort against insertion sort, the prefix sum.
   Prints "N passed, N failed"; exits non-zero on any failure.
*/
#include "kernels/spgemm.h"
#include "unitcheck.h"

typedef struct {
  PetscInt     m, n, nz;
  PetscInt    *i, *j;
  PetscScalar *a;
} CSR;

/* an m x n random CSR matrix: about `density` entries per row, a fraction `empty` of empty rows,
   the columns >= ncolmax never used (empty columns) */
static void MakeCSR(PetscInt m, PetscInt n, PetscReal density, PetscReal empty, PetscInt ncolmax, CSR *A)
{
  char    *mark;
  PetscInt cap = (PetscInt)(m * (density + 1) * 2) + 1, nz = 0;

  A->m = m;
  A->n = n;
  PetscCallVoid(PetscCalloc1(n + 1, &mark));
  PetscCallVoid(PetscMalloc3(m + 1, &A->i, cap, &A->j, cap, &A->a));
  A->i[0] = 0;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt k = (Uniform() < empty || !ncolmax) ? 0 : RandInt((PetscInt)(2 * density) + 1);

    for (PetscInt q = 0; q < k; q++) mark[RandInt(ncolmax)] = 1;
    for (PetscInt c = 0; c < n; c++)
      if (mark[c] && nz < cap) {
        A->j[nz]   = c;
        A->a[nz++] = RandScalar();
        mark[c]    = 0;
      }
    A->i[r + 1] = nz;
  }
  A->nz = nz;
  PetscCallVoid(PetscFree(mark));
}

static void FreeCSR(CSR *A)
{
  PetscCallVoid(PetscFree3(A->i, A->j, A->a));
}

/* a random cut of [0, m) into T parts: bounds[0..T] */
static void RandomBounds(PetscInt m, PetscInt T, PetscInt *bounds)
{
  bounds[0] = 0;
  bounds[T] = m;
  for (PetscInt t = 1; t < T; t++) bounds[t] = RandInt(m + 1);
  for (PetscInt t = 1; t < T; t++) /* sort */
    for (PetscInt s = t; s > 1 && bounds[s - 1] > bounds[s]; s--) {
      PetscInt v    = bounds[s];
      bounds[s]     = bounds[s - 1];
      bounds[s - 1] = v;
    }
}

/* the dense reference of C = A B, A = [A0 | A1] (A1's columns shifted by n0; ones: A0's values are 1):
   cnz[r*p+c] marks the pattern, cv the values summed in A's stored order */
static void DenseProduct(const CSR *A0, const CSR *A1, PetscBool ones, const CSR *B, char *cnz, PetscScalar *cv)
{
  const PetscInt p = B->n;

  memset(cnz, 0, (size_t)(A0->m * p));
  for (PetscInt k = 0; k < A0->m * p; k++) cv[k] = 0.0;
  for (PetscInt r = 0; r < A0->m; r++) {
    for (PetscInt b = 0; b < (A1 ? 2 : 1); b++) {
      const CSR     *X   = b ? A1 : A0;
      const PetscInt off = b ? A0->n : 0;

      for (PetscInt k = X->i[r]; k < X->i[r + 1]; k++) {
        const PetscInt    row = X->j[k] + off;
        const PetscScalar v   = (!b && ones) ? (PetscScalar)1.0 : X->a[k];

        for (PetscInt l = B->i[row]; l < B->i[row + 1]; l++) {
          cnz[r * p + B->j[l]] = 1;
          cv[r * p + B->j[l]] += v * B->a[l];
        }
      }
    }
  }
}

static void TestProduct(PetscInt m, PetscInt n0, PetscInt n1, PetscInt p, PetscReal da, PetscReal db, PetscReal empty, PetscBool ones, PetscInt split)
{
  CSR             A0, A1, B;
  AIJHybridCSR    a, b;
  char           *cnz;
  PetscScalar    *cv, *ref = NULL, *buf, *v0, *v1;
  PetscInt       *flops, *cnt, *ci, *cj, *marker, *map, *i0, *i1, nzc, rowmax = 0;
  const PetscInt  n = n0 + n1;
  PetscBool       ok;
  AIJHybridCSROut out;

  MakeCSR(m, n0, da, empty, n0 > 3 ? n0 - 2 : n0, &A0);
  if (n1) MakeCSR(m, n1, da / 2, empty, n1, &A1);
  MakeCSR(n, p, db, empty, p > 3 ? p - 1 : p, &B);
  a.i    = A0.i;
  a.j    = A0.j;
  a.a    = ones ? NULL : A0.a;
  a.oi   = n1 ? A1.i : NULL;
  a.oj   = n1 ? A1.j : NULL;
  a.oa   = n1 ? A1.a : NULL;
  a.ooff = n0;
  b.i    = B.i;
  b.j    = B.j;
  b.a    = B.a;
  b.oi = b.oj = NULL;
  b.oa        = NULL;
  b.ooff      = 0;
  PetscCallVoid(PetscMalloc2((size_t)m * p + 1, &cnz, (size_t)m * p + 1, &cv));
  DenseProduct(&A0, n1 ? &A1 : NULL, ones, &B, cnz, cv);

  /* flops */
  PetscCallVoid(PetscMalloc5(m + 1, &flops, m + 1, &cnt, m + 1, &ci, p + 1, &marker, p + 1, &map));
  AIJHybridSpGEMMFlops(0, m, &a, B.i, flops);
  ok = PETSC_TRUE;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt f = 0;
    for (PetscInt k = A0.i[r]; k < A0.i[r + 1]; k++) f += B.i[A0.j[k] + 1] - B.i[A0.j[k]];
    if (n1)
      for (PetscInt k = A1.i[r]; k < A1.i[r + 1]; k++) f += B.i[A1.j[k] + n0 + 1] - B.i[A1.j[k] + n0];
    if (f != flops[r]) ok = PETSC_FALSE;
  }
  CHECK(ok, "flops of %" PetscInt_FMT "x%" PetscInt_FMT " times %" PetscInt_FMT "x%" PetscInt_FMT, m, n, n, p);

  for (PetscInt T = 1; T <= 5; T++) {
    PetscInt bounds[6];

    RandomBounds(m, T, bounds);
    /* count, part by part, each part with a fresh marker (as a thread's own) */
    for (PetscInt t = 0; t < T; t++) {
      for (PetscInt c = 0; c < p; c++) marker[c] = -1;
      AIJHybridSpGEMMCount(bounds[t], bounds[t + 1], &a, &b, 0, marker, cnt);
    }
    nzc = AIJHybridPrefixSum(m, cnt, ci);
    ok  = PETSC_TRUE;
    for (PetscInt r = 0; r < m; r++) {
      PetscInt c = 0;
      for (PetscInt q = 0; q < p; q++) c += cnz[r * p + q];
      if (c != cnt[r]) ok = PETSC_FALSE;
      rowmax = PetscMax(rowmax, cnt[r]);
    }
    CHECK(ok, "counts, %" PetscInt_FMT " parts", T);
    PetscCallVoid(PetscMalloc1(nzc + 1, &cj));
    for (PetscInt t = T - 1; t >= 0; t--) { /* parts in reverse order: any order gives the same */
      for (PetscInt c = 0; c < p; c++) marker[c] = -1;
      AIJHybridSpGEMMCount(bounds[t], bounds[t + 1], &a, &b, 0, marker, cnt); /* a count then a fill on one marker */
      AIJHybridSpGEMMFill(bounds[t], bounds[t + 1], &a, &b, m, marker, ci, cj);
    }
    ok = PETSC_TRUE;
    for (PetscInt r = 0; r < m && ok; r++) {
      PetscInt k = ci[r];
      for (PetscInt q = 0; q < p; q++)
        if (cnz[r * p + q]) {
          if (k >= ci[r + 1] || cj[k] != q) ok = PETSC_FALSE;
          k++;
        }
      if (k != ci[r + 1]) ok = PETSC_FALSE;
    }
    CHECK(ok, "pattern (sorted columns), %" PetscInt_FMT " parts", T);

    /* the one-pass kernel, each part in a buffer too small at first (grown and resumed as the
       symbolic phase does), with and without values, sorted by comparisons or through the bits */
    for (PetscInt mode = 0; mode < 4; mode++) {
      const PetscBool withvals = (PetscBool)(mode & 1), withbits = (PetscBool)(mode >> 1);
      PetscInt       *len, *pc, *out;
      PetscScalar    *acc, *pv, *outv;
      uint64_t       *bits;
      PetscBool       okp = PETSC_TRUE, okv = PETSC_TRUE, clear = PETSC_TRUE;

      PetscCallVoid(PetscMalloc5(m + 1, &len, p + 1, &acc, (p + 63) / 64 + 1, &bits, nzc + 1, &out, nzc + 1, &outv));
      memset(bits, 0, sizeof(uint64_t) * ((p + 63) / 64 + 1));
      for (PetscInt t = 0; t < T; t++) {
        PetscInt next = bounds[t], used = 0, cap = RandInt(8), n;

        for (PetscInt c = 0; c < p; c++) marker[c] = -1;
        PetscCallVoid(PetscMalloc2(cap + 1, &pc, cap + 1, &pv));
        while (next < bounds[t + 1]) {
          PetscInt    *nc;
          PetscScalar *nv;

          next = AIJHybridSpGEMMRows(next, bounds[t + 1], &a, &b, flops, p, m, marker, withvals ? acc : NULL, withbits ? bits : NULL, cap - used, pc + used, withvals ? pv + used : NULL, len, &n);
          used += n;
          if (next == bounds[t + 1]) break;
          cap = 2 * cap + PetscMin(flops[next], p); /* grow, keep what was written */
          PetscCallVoid(PetscMalloc2(cap + 1, &nc, cap + 1, &nv));
          memcpy(nc, pc, (size_t)used * sizeof(PetscInt));
          memcpy(nv, pv, (size_t)used * sizeof(PetscScalar));
          PetscCallVoid(PetscFree2(pc, pv));
          pc = nc;
          pv = nv;
        }
        if (used != ci[bounds[t + 1]] - ci[bounds[t]]) okp = PETSC_FALSE;
        for (PetscInt k = 0; k < used && okp; k++) {
          out[ci[bounds[t]] + k] = pc[k];
          if (withvals) outv[ci[bounds[t]] + k] = pv[k];
        }
        PetscCallVoid(PetscFree2(pc, pv));
      }
      for (PetscInt r = 0; r < m && okp; r++)
        if (len[r] != ci[r + 1] - ci[r]) okp = PETSC_FALSE;
      for (PetscInt k = 0; k < nzc && okp; k++)
        if (out[k] != cj[k]) okp = PETSC_FALSE;
      if (withvals && okp)
        for (PetscInt r = 0; r < m; r++)
          for (PetscInt k = ci[r]; k < ci[r + 1]; k++)
            if (memcmp(&outv[k], &cv[r * p + cj[k]], sizeof(PetscScalar))) okv = PETSC_FALSE;
      for (PetscInt w = 0; w < (p + 63) / 64; w++)
        if (bits[w]) clear = PETSC_FALSE;
      CHECK(okp, "one pass: pattern, %" PetscInt_FMT " parts, values %d, bits %d", T, (int)withvals, (int)withbits);
      CHECK(okv, "one pass: values bitwise equal to the reference, %" PetscInt_FMT " parts, bits %d", T, (int)withbits);
      CHECK(clear, "one pass: the bits are given back clear");
      PetscCallVoid(PetscFree5(len, acc, bits, out, outv));
    }

    /* numeric: one block, then split at `split` into two blocks with their own row starts */
    PetscCallVoid(PetscMalloc5(rowmax + 1, &buf, nzc + 1, &v0, nzc + 1, &v1, m + 1, &i0, m + 1, &i1));
    out.i     = ci;
    out.j     = cj;
    out.split = p;
    out.a0    = v0;
    out.i0    = ci;
    out.a1    = NULL;
    out.i1    = NULL;
    for (PetscInt t = 0; t < T; t++) AIJHybridSpGEMMNumeric(bounds[t], bounds[t + 1], &a, &b, &out, map, buf);
    ok = PETSC_TRUE;
    for (PetscInt r = 0; r < m; r++)
      for (PetscInt k = ci[r]; k < ci[r + 1]; k++)
        if (memcmp(&v0[k], &cv[r * p + cj[k]], sizeof(PetscScalar))) ok = PETSC_FALSE;
    CHECK(ok, "values bitwise equal to the reference, %" PetscInt_FMT " parts", T);
    if (!ref) {
      PetscCallVoid(PetscMalloc1(nzc + 1, &ref));
      PetscCallVoid(PetscArraycpy(ref, v0, nzc));
    } else CHECK(Same(ref, v0, nzc), "values bitwise equal across splits (%" PetscInt_FMT " parts)", T);

    {
      PetscInt d = 0, o = 0;
      for (PetscInt r = 0; r < m; r++) {
        i0[r] = d;
        i1[r] = o;
        for (PetscInt k = ci[r]; k < ci[r + 1]; k++) {
          if (cj[k] < split) d++;
          else o++;
        }
      }
      out.split = split;
      out.i0    = i0;
      out.a1    = v1;
      out.i1    = i1;
      for (PetscInt t = T - 1; t >= 0; t--) AIJHybridSpGEMMNumeric(bounds[t], bounds[t + 1], &a, &b, &out, map, buf);
      ok = PETSC_TRUE;
      for (PetscInt r = 0; r < m; r++) {
        PetscInt kd = i0[r], ko = i1[r];
        for (PetscInt k = ci[r]; k < ci[r + 1]; k++) {
          const PetscScalar *got = cj[k] < split ? &v0[kd++] : &v1[ko++];
          if (memcmp(got, &ref[k], sizeof(PetscScalar))) ok = PETSC_FALSE;
        }
      }
      CHECK(ok, "split output at column %" PetscInt_FMT ", %" PetscInt_FMT " parts", split, T);
    }
    PetscCallVoid(PetscFree5(buf, v0, v1, i0, i1));
    PetscCallVoid(PetscFree(cj));
  }
  PetscCallVoid(PetscFree(ref));
  PetscCallVoid(PetscFree5(flops, cnt, ci, marker, map));
  PetscCallVoid(PetscFree2(cnz, cv));
  FreeCSR(&A0);
  if (n1) FreeCSR(&A1);
  FreeCSR(&B);
}

static void TestTranspose(PetscInt m, PetscInt n0, PetscInt n1, PetscReal density, PetscReal empty)
{
  CSR            A0, A1;
  AIJHybridCSR   a;
  const PetscInt n = n0 + n1;
  PetscInt      *ti, *tj, *perm, *total, *cnt[5], *rti, *rtj, nz;
  PetscScalar   *tv, *rtv;
  PetscBool      ok;

  MakeCSR(m, n0, density, empty, n0 > 2 ? n0 - 1 : n0, &A0);
  if (n1) MakeCSR(m, n1, density / 2, empty, n1, &A1);
  a.i    = A0.i;
  a.j    = A0.j;
  a.a    = A0.a;
  a.oi   = n1 ? A1.i : NULL;
  a.oj   = n1 ? A1.j : NULL;
  a.oa   = n1 ? A1.a : NULL;
  a.ooff = n0;
  nz     = A0.nz + (n1 ? A1.nz : 0);
  /* reference: column by column, rows increasing, block 0 then block 1 (disjoint columns) */
  PetscCallVoid(PetscMalloc3(n + 1, &rti, nz + 1, &rtj, nz + 1, &rtv));
  rti[0] = 0;
  for (PetscInt c = 0, k = 0; c < n; c++) {
    for (PetscInt r = 0; r < m; r++) {
      const CSR     *X  = c < n0 ? &A0 : &A1;
      const PetscInt cc = c < n0 ? c : c - n0;
      for (PetscInt q = X->i[r]; q < X->i[r + 1]; q++)
        if (X->j[q] == cc) {
          rtj[k]   = r;
          rtv[k++] = X->a[q];
        }
    }
    rti[c + 1] = k;
  }
  PetscCallVoid(PetscMalloc5(n + 1, &ti, nz + 1, &tj, nz + 1, &perm, nz + 1, &tv, n + 1, &total));
  for (PetscInt t = 0; t < 5; t++) PetscCallVoid(PetscMalloc1(n + 1, &cnt[t]));
  for (PetscInt T = 1; T <= 5; T++) {
    PetscInt bounds[6], cb[6];

    RandomBounds(m, T, bounds);
    for (PetscInt t = 0; t < T; t++) {
      for (PetscInt c = 0; c < n; c++) cnt[t][c] = 0;
      AIJHybridTransposeCount(bounds[t], bounds[t + 1], &a, cnt[t]);
    }
    RandomBounds(n, T, cb); /* the offsets by column ranges, as threads would compute them */
    for (PetscInt t = 0; t < T; t++) AIJHybridTransposeOffsets(cb[t], cb[t + 1], T, cnt, total);
    CHECK(AIJHybridPrefixSum(n, total, ti) == nz, "transpose total, %" PetscInt_FMT " parts", T);
    for (PetscInt t = T - 1; t >= 0; t--) AIJHybridTransposeFill(bounds[t], bounds[t + 1], &a, A0.nz, ti, cnt[t], tj, perm);
    for (PetscInt t = 0; t < T; t++) AIJHybridTransposeGather(cb[t] ? ti[cb[t]] : 0, ti[cb[t + 1]], perm, A0.nz, A0.a, n1 ? A1.a : NULL, tv);
    ok = PETSC_TRUE;
    for (PetscInt c = 0; c <= n; c++)
      if (ti[c] != rti[c]) ok = PETSC_FALSE;
    for (PetscInt k = 0; k < nz && ok; k++)
      if (tj[k] != rtj[k]) ok = PETSC_FALSE;
    CHECK(ok, "transpose pattern (rows increasing) of %" PetscInt_FMT "x%" PetscInt_FMT " (%" PetscInt_FMT " + %" PetscInt_FMT " columns), %" PetscInt_FMT " parts", m, n, n0, n1, T);
    CHECK(Same(tv, rtv, nz), "transpose values, %" PetscInt_FMT " parts", T);
  }
  for (PetscInt t = 0; t < 5; t++) PetscCallVoid(PetscFree(cnt[t]));
  PetscCallVoid(PetscFree5(ti, tj, perm, tv, total));
  PetscCallVoid(PetscFree3(rti, rtj, rtv));
  FreeCSR(&A0);
  if (n1) FreeCSR(&A1);
}

/* compact columns: rows of sorted compact columns (nloc own, ncm others) split into two blocks and
   back, mapped to global columns and back; two blocks concatenated with a column map */
static void TestCompact(PetscInt m, PetscInt nloc, PetscInt ncm, PetscInt cstart)
{
  CSR          X;
  PetscInt    *colmap, *dcnt, *di, *oi, *dj, *oj, *g, *back, *cat, *cmap1, nd = 0, no = 0;
  PetscScalar *da, *oa, *cav;
  PetscBool    ok;
  AIJHybridCSR x;

  /* colmap: ncm sorted global columns outside [cstart, cstart + nloc) */
  PetscCallVoid(PetscMalloc1(ncm + 1, &colmap));
  for (PetscInt k = 0, c = 0; k < ncm; k++) {
    c += 1 + RandInt(3);
    if (c >= cstart && c < cstart + nloc) c = cstart + nloc + RandInt(2);
    colmap[k] = c;
  }
  MakeCSR(m, nloc + ncm, 4.0, 0.2, nloc + ncm, &X);
  PetscCallVoid(PetscMalloc5(m + 1, &dcnt, m + 1, &di, m + 1, &oi, X.nz + 1, &dj, X.nz + 1, &oj));
  PetscCallVoid(PetscMalloc5(X.nz + 1, &da, X.nz + 1, &oa, X.nz + 1, &g, X.nz + 1, &back, X.nz + 1, &cat));
  AIJHybridRowsSplitCount(0, m, X.i, X.j, nloc, dcnt);
  ok = PETSC_TRUE;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt c = 0;
    for (PetscInt k = X.i[r]; k < X.i[r + 1]; k++) c += X.j[k] < nloc;
    if (c != dcnt[r]) ok = PETSC_FALSE;
    di[r] = nd;
    oi[r] = no;
    nd += dcnt[r];
    no += X.i[r + 1] - X.i[r] - dcnt[r];
  }
  di[m] = nd;
  oi[m] = no;
  CHECK(ok, "split counts of %" PetscInt_FMT " rows (%" PetscInt_FMT " own + %" PetscInt_FMT " other columns)", m, nloc, ncm);
  for (PetscInt t = 0; t < 3; t++) AIJHybridRowsSplit(m * t / 3, m * (t + 1) / 3, X.i, X.j, X.a, nloc, colmap, di, dj, da, oi, oj, oa);
  ok = PETSC_TRUE;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt pd = di[r], po = oi[r];
    for (PetscInt k = X.i[r]; k < X.i[r + 1]; k++) {
      if (X.j[k] < nloc) {
        if (dj[pd] != X.j[k] || memcmp(&da[pd], &X.a[k], sizeof(PetscScalar))) ok = PETSC_FALSE;
        pd++;
      } else {
        if (oj[po] != colmap[X.j[k] - nloc] || memcmp(&oa[po], &X.a[k], sizeof(PetscScalar))) ok = PETSC_FALSE;
        po++;
      }
    }
  }
  CHECK(ok, "split into the diagonal (local columns) and off-diagonal (global columns) blocks");
  AIJHybridColumnsToGlobal(0, X.nz, X.j, cstart, nloc, colmap, g);
  AIJHybridColumnsToCompact(0, X.nz / 2, g, cstart, nloc, ncm, colmap, back);
  AIJHybridColumnsToCompact(X.nz / 2, X.nz, g, cstart, nloc, ncm, colmap, back);
  ok = PETSC_TRUE;
  for (PetscInt k = 0; k < X.nz; k++)
    if (back[k] != X.j[k] || (X.j[k] < nloc && g[k] != cstart + X.j[k])) ok = PETSC_FALSE;
  CHECK(ok, "compact -> global -> compact");
  if (ncm) {
    PetscInt missing = PetscMax(colmap[ncm - 1], cstart + nloc) + 1, out;
    AIJHybridColumnsToCompact(0, 1, &missing, cstart, nloc, ncm, colmap, &out);
    CHECK(out == -1, "a global column neither own nor in colmap gives -1");
  }
  /* concat: block 0 = the diagonal block, block 1 = the off-diagonal block with its columns as
     positions in colmap (cmap1: the identity here, shifted by ooff = nloc) back into one row */
  PetscCallVoid(PetscMalloc2(ncm + 1, &cmap1, X.nz + 1, &cav));
  for (PetscInt k = 0; k < ncm; k++) cmap1[k] = k;
  for (PetscInt k = 0; k < no; k++) AIJHybridColumnsToCompact(k, k + 1, oj, cstart, nloc, ncm, colmap, oj), oj[k] -= nloc;
  x.i    = di;
  x.j    = dj;
  x.a    = da;
  x.oi   = oi;
  x.oj   = oj;
  x.oa   = oa;
  x.ooff = nloc;
  AIJHybridRowsConcat(0, m, &x, cmap1, X.i, cat, cav);
  ok = PETSC_TRUE;
  for (PetscInt k = 0; k < X.nz; k++)
    if (cat[k] != X.j[k]) ok = PETSC_FALSE;
  CHECK(ok && Same(cav, X.a, X.nz), "concat of the two blocks gives the rows back");
  PetscCallVoid(PetscFree2(cmap1, cav));
  PetscCallVoid(PetscFree5(dcnt, di, oi, dj, oj));
  PetscCallVoid(PetscFree5(da, oa, g, back, cat));
  PetscCallVoid(PetscFree(colmap));
  FreeCSR(&X);
}

static void TestSort(void)
{
  for (PetscInt trial = 0; trial < 300; trial++) {
    const PetscInt n = RandInt(trial < 100 ? 40 : 3000), range = 1 + RandInt(trial % 3 ? 100000 : 8);
    PetscInt      *a, *b;
    PetscBool      ok = PETSC_TRUE;

    PetscCallVoid(PetscMalloc2(n + 1, &a, n + 1, &b));
    for (PetscInt k = 0; k < n; k++) a[k] = b[k] = trial % 7 == 0 ? k : (trial % 7 == 1 ? n - k : RandInt(range));
    AIJHybridSortInts(n, a);
    for (PetscInt k = 1; k < n; k++) /* insertion sort of b */
      for (PetscInt s = k; s > 0 && b[s - 1] > b[s]; s--) {
        PetscInt v = b[s];
        b[s]       = b[s - 1];
        b[s - 1]   = v;
      }
    for (PetscInt k = 0; k < n; k++)
      if (a[k] != b[k]) ok = PETSC_FALSE;
    CHECK(ok, "sort of %" PetscInt_FMT " integers in [0, %" PetscInt_FMT ")", n, range);
    PetscCallVoid(PetscFree2(a, b));
  }
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rng_state = 20261126;
  TestSort();
  /* m, n0 (A's block 0 columns = B's first rows), n1 (block 1), p (B's columns), densities, empty rows, ones, split */
  TestProduct(1, 1, 0, 1, 1.0, 1.0, 0.0, PETSC_FALSE, 1);
  TestProduct(0, 4, 0, 3, 2.0, 2.0, 0.0, PETSC_FALSE, 1);
  TestProduct(7, 5, 0, 9, 2.0, 2.0, 0.3, PETSC_FALSE, 4);
  TestProduct(40, 30, 0, 25, 3.0, 4.0, 0.1, PETSC_FALSE, 10);
  TestProduct(60, 20, 0, 80, 5.0, 3.0, 0.2, PETSC_TRUE, 40);
  TestProduct(50, 30, 12, 45, 3.0, 3.0, 0.1, PETSC_FALSE, 30);
  TestProduct(33, 12, 9, 70, 4.0, 6.0, 0.0, PETSC_TRUE, 0);
  TestProduct(80, 60, 20, 20, 6.0, 2.0, 0.5, PETSC_FALSE, 20);
  TestProduct(120, 100, 40, 150, 8.0, 8.0, 0.05, PETSC_FALSE, 75);
  TestProduct(60, 50, 0, 300, 12.0, 10.0, 0.0, PETSC_FALSE, 100); /* dense rows: their columns read from the bits */
  TestProduct(80, 60, 0, 5000, 4.0, 3.0, 0.1, PETSC_FALSE, 2500); /* sparse rows over many columns: sorted */
  for (PetscInt k = 0; k < 20; k++) TestProduct(1 + RandInt(60), 1 + RandInt(50), RandInt(2) ? RandInt(20) : 0, 1 + RandInt(60), 1.0 + 5 * Uniform(), 1.0 + 5 * Uniform(), 0.3 * Uniform(), (PetscBool)RandInt(2), RandInt(60));
  TestTranspose(1, 1, 0, 1.0, 0.0);
  TestTranspose(0, 3, 0, 1.0, 0.0);
  TestTranspose(30, 20, 0, 3.0, 0.2);
  TestTranspose(50, 40, 15, 4.0, 0.1);
  TestTranspose(20, 80, 10, 6.0, 0.3);
  for (PetscInt k = 0; k < 20; k++) TestTranspose(RandInt(70), 1 + RandInt(60), RandInt(2) ? RandInt(20) : 0, 1.0 + 5 * Uniform(), 0.3 * Uniform());
  TestCompact(1, 1, 0, 0);
  TestCompact(0, 3, 2, 5);
  TestCompact(20, 10, 0, 7);
  TestCompact(40, 25, 30, 13);
  TestCompact(30, 0, 12, 0);
  for (PetscInt k = 0; k < 10; k++) TestCompact(RandInt(50), RandInt(40), RandInt(40), RandInt(100));
  printf("%d passed, %d failed\n", npass, nfail);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
