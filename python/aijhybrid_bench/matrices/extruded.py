"""A Fluidity-like pressure matrix: the P1 Laplacian on a 2D coastline mesh extruded into prisms.

The 2D mesh (``mesh2d``: an irregular basin with islands, graded towards the coast) is extruded
vertically into ``layers`` layers of prisms with sigma levels: the vertex of column c at level k
(k = 0 at the sea bed, ``layers`` at the surface) lies at depth ``D(c) (1 - k / layers)``, where the
depth D follows the bathymetry of the mesh and the layer thickness at the deepest point equals the
mean horizontal vertex spacing. The size grows linearly with ``layers`` (the paper's scaling).

Each prism is split into 3 tetrahedra by the global vertex numbering (on each vertical face, the
diagonal runs from the lower vertex of the smaller 2D id to the upper vertex of the larger), so
that the faces of neighbouring prisms match. The matrix is the assembled P1 stiffness matrix
(integral of grad(phi_i) . grad(phi_j)) with a homogeneous Dirichlet condition on the surface: the
surface vertices are eliminated, the unknowns are the levels 0 .. layers-1 of every column, so the
matrix has ``layers * n2d`` rows and is symmetric positive definite (every column reaches the
surface). The sea bed, coasts and island shores are natural (Neumann) boundaries.

A row couples a vertex to itself, to the vertices above and below it, to its 2D neighbours on the
same level, and, for each 2D neighbour, to one diagonal neighbour: one level up if the neighbour's
2D id is larger, one level down if it is smaller. Interior rows have ``2 * deg + 3`` nonzeros
(``deg``: 2D vertex degree, about 6): about 15.

Orderings (``ordering``): ``"column"`` (default, as Fluidity numbers extruded meshes: the levels of a
column are consecutive, ``row = c * layers + k``) or ``"layer"`` (level by level, ``row = k * n2d + c``).

Parallel assembly: every rank builds the (small) 2D mesh, computes the element matrices of the
prisms that touch its rows only, accumulates them per coupling (in the same order at any rank
count, so the global matrix is bitwise identical) and emits only its rows.
"""

import math

import numpy as np

from . import mesh2d

_CHUNK = 1 << 16  # rows expanded at a time (bounds temporary memory)
_H, _D, _V, _S = range(4)  # coupling kinds: horizontal edge, diagonal, vertical, self
ORDERINGS = ("column", "layer")


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def tet_stiffness(p0, p1, p2, p3):
    """P1 stiffness entries of tetrahedra with vertices p0..p3 (each a tuple of 3 coordinate arrays).

    Returns a dict {(i, j): array} for i <= j in 0..3: the integral of grad(phi_i) . grad(phi_j).
    Elementwise arithmetic only, so the value of one tetrahedron does not depend on the others.
    """
    e1 = tuple(a - b for a, b in zip(p1, p0))
    e2 = tuple(a - b for a, b in zip(p2, p0))
    e3 = tuple(a - b for a, b in zip(p3, p0))
    c = [None, _cross(e2, e3), _cross(e3, e1), _cross(e1, e2)]  # det(J) * grad(phi_i), i = 1..3
    c[0] = tuple(-(a + b + d) for a, b, d in zip(c[1], c[2], c[3]))
    scale = 1.0 / (6.0 * np.abs(_dot(e1, c[1])))  # volume / det^2 = 1 / (6 |det|)
    return {(i, j): _dot(c[i], c[j]) * scale for i in range(4) for j in range(i, 4)}


class Extruded:
    """The extruded pressure matrix of about ``rows`` rows (see the module documentation)."""

    DESCRIPTION = "P1 pressure Laplacian on a coastline mesh extruded into prism layers (split into tets), surface Dirichlet"

    @staticmethod
    def scaled_params(params, scale):
        """The parameters of this matrix scaled down (or up) by ``scale`` in rows: the layers by
        ``scale^(1/3)`` like the columns per side, so the domain keeps its proportions (and a CG
        solve its iteration count's order) instead of turning into a thin column of many layers."""
        out = dict(params)
        out["layers"] = max(1, int(round(int(params.get("layers", 32)) * scale ** (1.0 / 3.0))))
        return out

    def __init__(self, rows, seed=0, layers=32, ordering="column"):
        if ordering not in ORDERINGS:
            raise ValueError("unknown ordering %r: valid are %s" % (ordering, ", ".join(ORDERINGS)))
        if int(layers) < 1:
            raise ValueError("layers must be >= 1, got %r" % layers)
        self.layers, self.ordering = int(layers), ordering
        self.mesh = mesh2d.mesh(max(1, int(round(rows / self.layers))), seed)
        n, L, E = self.mesh.n, self.layers, len(self.mesh.edges)
        self.nrows = n * L
        self.nnz = L * (4 * E + 3 * n) - (2 * E + 2 * n)  # sum of row_nnz(): 2 deg + 3 per row, less at the ends
        spacing = math.sqrt(self.mesh.area() / n)
        self.max_depth = L * spacing

    def row_nnz(self):
        """Nonzeros of the rows of each level (array L x n2d): the 2D neighbours and the vertex itself,
        plus, below the top level, the vertex above and the neighbours of larger id, and, above the
        sea bed, the vertex below and the neighbours of smaller id."""
        e, n, L = self.mesh.edges, self.mesh.n, self.layers
        low, high = np.bincount(e[:, 1], minlength=n), np.bincount(e[:, 0], minlength=n)
        k = np.arange(L)[:, None]
        return 1 + low + high + (k > 0) * (low + 1) + (k < L - 1) * (high + 1)

    def describe(self):
        return {
            "rows": self.nrows,
            "nnz": self.nnz,
            "layers": self.layers,
            "ordering": self.ordering,
            "mesh2d_vertices": self.mesh.n,
            "mesh2d_triangles": len(self.mesh.tri),
            "max_row_nnz": int(self.row_nnz().max()),
        }

    def gid(self, c, k):
        """Global row of the vertex of 2D id c at level k."""
        return c * self.layers + k if self.ordering == "column" else k * self.mesh.n + c

    def local_chunks(self, rstart, rend):
        """Rows [rstart, rend) in consecutive chunks: (nonzeros per row, sorted global columns, values)."""
        values = self._couplings(rstart, rend)
        ptr, t_dst, t_off, t_kind, t_idx = self._template()
        n, L, E = self.mesh.n, self.layers, len(self.mesh.edges)
        width = np.array([E, E, n, n])
        base = np.cumsum([0, (L + 1) * E, L * E, L * n])
        for lo in range(rstart, rend, _CHUNK):
            g = np.arange(lo, min(rend, lo + _CHUNK), dtype=np.int64)
            c, k = (g // L, g % L) if self.ordering == "column" else (g % n, g // n)
            cnt = ptr[c + 1] - ptr[c]
            row = np.repeat(np.arange(len(g)), cnt)
            t = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt) + np.repeat(ptr[c], cnt)
            kk = k[row]
            level = kk + t_off[t]
            ok = (level >= 0) & (level < L)
            row, t, kk, level = row[ok], t[ok], kk[ok], level[ok]
            kind = t_kind[t]
            yield (
                np.bincount(row, minlength=len(g)),
                self.gid(t_dst[t], level),
                values[base[kind] + (kk + np.minimum(t_off[t], 0)) * width[kind] + t_idx[t]],
            )

    def _template(self):
        """Per 2D vertex c, the couplings of a row (c, k), sorted by global column for the ordering:
        CSR pointer over c, then per coupling the neighbour c', the level offset, the kind and the
        index of its value (edge id for _H/_D, vertex id for _V/_S)."""
        n, e = self.mesh.n, self.mesh.edges
        ids = np.arange(len(e))
        verts = np.arange(n)
        # (source, neighbour, level offset, kind, index): the neighbour with the larger 2D id is
        # coupled on the same level and one level up, the one with the smaller id on the same level
        # and one level down; a vertex to itself and the vertices below and above
        parts = [
            (e[:, 0], e[:, 1], 0, _H, ids),
            (e[:, 0], e[:, 1], 1, _D, ids),
            (e[:, 1], e[:, 0], 0, _H, ids),
            (e[:, 1], e[:, 0], -1, _D, ids),
            (verts, verts, -1, _V, verts),
            (verts, verts, 0, _S, verts),
            (verts, verts, 1, _V, verts),
        ]
        src, dst, off, kind, idx = (np.concatenate([np.broadcast_to(p[i], p[0].shape) for p in parts]) for i in range(5))
        order = np.lexsort((off, dst, src) if self.ordering == "column" else (dst, off, src))
        ptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
        return ptr, dst[order], off[order], kind[order], idx[order]

    def _couplings(self, rstart, rend):
        """Assembled values of every coupling that a row in [rstart, rend) needs, in one flat array:
        _H[level, edge] (levels 0..L), _D[level, edge] (edge (a, b), a < b: a at level, b at level+1),
        _V[level, vertex] (vertex at level and level+1), _S[level, vertex]."""
        m = self.mesh
        n, L, E = m.n, self.layers, len(m.edges)
        flat = np.zeros((L + 1) * E + L * E + L * n + (L + 1) * n)
        H, rest = np.split(flat, [(L + 1) * E])
        H = H.reshape(L + 1, E)
        D, rest = np.split(rest, [L * E])
        D = D.reshape(L, E)
        V, S = np.split(rest, [L * n])
        V, S = V.reshape(L, n), S.reshape(L + 1, n)
        verts = np.arange(n)
        owned = [(self.gid(verts, k) >= rstart) & (self.gid(verts, k) < rend) for k in range(L)] + [np.zeros(n, dtype=bool)]
        for k in range(L):
            touch = (owned[k] | owned[k + 1])[m.tri].any(axis=1)
            if not touch.any():
                continue
            tri, te = m.tri[touch], m.tri_edges[touch]
            v0, v1, v2 = tri.T
            e01, e02, e12 = te.T
            zb, zt = -m.depth * self.max_depth * (1.0 - k / L), -m.depth * self.max_depth * (1.0 - (k + 1) / L)
            b = [(m.x[v], m.y[v], zb[v]) for v in (v0, v1, v2)]
            t = [(m.x[v], m.y[v], zt[v]) for v in (v0, v1, v2)]
            K1 = tet_stiffness(b[0], b[1], b[2], t[2])
            K2 = tet_stiffness(b[0], b[1], t[1], t[2])
            K3 = tet_stiffness(b[0], t[0], t[1], t[2])
            contrib = [
                (H[k], E, [(e01, K1[0, 1]), (e02, K1[0, 2]), (e12, K1[1, 2]), (e01, K2[0, 1])]),
                (H[k + 1], E, [(e12, K2[2, 3]), (e01, K3[1, 2]), (e02, K3[1, 3]), (e12, K3[2, 3])]),
                (D[k], E, [(e02, K1[0, 3]), (e12, K1[1, 3]), (e01, K2[0, 2]), (e02, K2[0, 3]), (e12, K2[1, 3]), (e01, K3[0, 2]), (e02, K3[0, 3])]),
                (V[k], n, [(v2, K1[2, 3]), (v1, K2[1, 2]), (v0, K3[0, 1])]),
                (S[k], n, [(v0, K1[0, 0]), (v1, K1[1, 1]), (v2, K1[2, 2]), (v0, K2[0, 0]), (v1, K2[1, 1]), (v0, K3[0, 0])]),
                (S[k + 1], n, [(v2, K1[3, 3]), (v1, K2[2, 2]), (v2, K2[3, 3]), (v0, K3[1, 1]), (v1, K3[2, 2]), (v2, K3[3, 3])]),
            ]
            for target, size, pairs in contrib:
                idx = np.concatenate([p[0] for p in pairs])
                target += np.bincount(idx, weights=np.concatenate([p[1] for p in pairs]), minlength=size)
        return flat
