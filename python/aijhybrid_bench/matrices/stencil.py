"""3D grid stencils: Poisson 7-point, Poisson 27-point, and the two-zone 27/7-point matrix.

The unknowns are the n^3 interior points of a cube with homogeneous Dirichlet boundary conditions
(the boundary values are eliminated), numbered lexicographically, x fastest:
``row = (k * n + j) * n + i``. Every off-diagonal entry is -1.

- ``poisson7``: the 6 face neighbours, 6 on the diagonal (the standard finite-difference Laplacian).
- ``poisson27``: all 26 neighbours of the 3x3x3 cube, 26 on the diagonal.
- ``twozone``: the planes ``k < nk_dense`` (the first ``dense_fraction`` of the rows) couple to all 26
  neighbours that also lie in these planes, every other pair of points couples only through faces;
  the diagonal is 26 in the dense planes and 6 elsewhere. Interior rows of the two zones have 27 and
  7 nonzeros: equal row blocks carry very different numbers of nonzeros.

All three are symmetric, weakly diagonally dominant with strict dominance on the boundary rows, and
irreducible: symmetric positive definite.
"""

import numpy as np

_CHUNK = 1 << 16  # rows generated at a time (bounds temporary memory)

_CUBE = np.array([(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
_FACE = np.abs(_CUBE).sum(axis=1) <= 1  # the self point and the 6 face neighbours


def _box_nnz(a, b, c, points):
    """Entries of the 7- or 27-point stencil restricted to an a x b x c box (self included)."""
    if min(a, b, c) <= 0:
        return 0
    if points == 27:
        return (3 * a - 2) * (3 * b - 2) * (3 * c - 2)
    return a * b * c + 2 * ((a - 1) * b * c + a * (b - 1) * c + a * b * (c - 1))


def grid_side(rows):
    """The side n of the n^3 grid closest to ``rows`` points (at least 2)."""
    return max(2, int(round(rows ** (1.0 / 3.0))))


class Stencil:
    """A 3D grid stencil matrix; ``kind`` is 'poisson7', 'poisson27' or 'twozone'."""

    DESCRIPTIONS = {
        "poisson7": "3D Poisson, 7-point stencil, Dirichlet, n^3 grid, lexicographic order",
        "poisson27": "3D Poisson, 27-point stencil (26 on the diagonal, -1 off), Dirichlet, n^3 grid, lexicographic order",
        "twozone": "27-point stencil in the first planes (dense_fraction of the rows) beside a 7-point stencil, n^3 grid, lexicographic order",
    }

    def __init__(self, kind, rows, dense_fraction=None):
        """``dense_fraction``: share of the rows in the dense zone of 'twozone' (default 0.25)."""
        if kind not in self.DESCRIPTIONS:
            raise ValueError("unknown stencil %r" % kind)
        if kind != "twozone" and dense_fraction is not None:
            raise TypeError("dense_fraction is a parameter of 'twozone' only")
        if dense_fraction is None:
            dense_fraction = 0.25
        if not 0.0 <= dense_fraction <= 1.0:
            raise ValueError("dense_fraction must be in [0, 1], got %r" % dense_fraction)
        self.kind = kind
        self.n = grid_side(rows)
        self.nrows = self.n**3
        n = self.n
        if kind == "poisson7":
            self.nk_dense = 0
        elif kind == "poisson27":
            self.nk_dense = n
        else:
            self.nk_dense = int(round(dense_fraction * n))
        self.nnz = _box_nnz(n, n, self.nk_dense, 27) + _box_nnz(n, n, n, 7) - _box_nnz(n, n, self.nk_dense, 7)

    def describe(self):
        d = {"rows": self.nrows, "nnz": self.nnz, "grid": [self.n] * 3, "ordering": "lexicographic (x fastest)"}
        if self.kind == "twozone":
            d["dense_planes"] = self.nk_dense
            d["dense_rows"] = self.nk_dense * self.n * self.n
        return d

    def local_chunks(self, rstart, rend):
        """Rows [rstart, rend) in consecutive chunks: (nonzeros per row, sorted global columns, values)."""
        for lo in range(rstart, rend, _CHUNK):
            yield self._chunk(lo, min(rend, lo + _CHUNK))

    def _chunk(self, lo, hi):
        n, kd = self.n, self.nk_dense
        r = np.arange(lo, hi, dtype=np.int64)
        i, j, k = r % n, (r // n) % n, r // (n * n)
        # neighbours in (dz, dy, dx) lexicographic order: increasing global index
        ni = i[:, None] + _CUBE[None, :, 2]
        nj = j[:, None] + _CUBE[None, :, 1]
        nk = k[:, None] + _CUBE[None, :, 0]
        valid = (ni >= 0) & (ni < n) & (nj >= 0) & (nj < n) & (nk >= 0) & (nk < n)
        # face couplings everywhere, the others only between two points of the dense planes
        valid &= _FACE[None, :] | ((k[:, None] < kd) & (nk < kd))
        cols = (nk * n + nj) * n + ni
        vals = np.where(_CUBE[None, :].any(axis=2), -1.0, np.where(k < kd, 26.0, 6.0)[:, None])
        return valid.sum(axis=1), cols[valid], vals[valid]
