"""A seeded 2D unstructured triangular mesh of an irregular, coastline-like domain, with a depth.

Domain (inside the unit square): a basin whose coast is a random Fourier curve in polar coordinates
around (0.5, 0.5), radius 0.33 +- 45% (bays and peninsulas), with four islands (holes) whose shores
are wiggly circles. The coastline depends only on the seed, not on the number of points.

Points: points along every shore at the local spacing h, and a jittered lattice of spacing h (at
least h/2 from the shore) thinned at random, keeping every point near the coast and 30% far from
it (resolution graded towards the coast, as in coastal ocean meshes); triangulated by Delaunay
(scipy.spatial, qhull); triangles whose centroid lies on land are removed and unused points
dropped. The vertices are renumbered by reverse Cuthill-McKee (scipy.sparse.csgraph), the
locality-preserving renumbering a model applies to its mesh; each triangle lists its vertices in
increasing order.

Depth (relative, in (0, 1]): 0.1 at the coast, growing smoothly to 1 offshore.

Everything is computed with numpy from the seed: the same mesh on every rank and at every rank
count. ``mesh(n_target, seed)`` is cached.
"""

import functools
import math

import numpy as np

_KEEP_MIN, _KEEP_SCALE = 0.3, 0.03  # keep probability: 1 at the coast, _KEEP_MIN offshore
_DEPTH_MIN, _DEPTH_SCALE = 0.1, 0.06
_MIN_POINTS = 100


class Coast:
    """The coastline of seed ``seed``: outer shore and islands, as a signed distance-like function."""

    CENTER = 0.5
    RADIUS = 0.33

    def __init__(self, seed):
        rng = np.random.default_rng([seed, 2])
        self.k = np.arange(2, 41)
        amp = self.k**-1.1 * rng.uniform(0.5, 1.0, self.k.size)
        self.amp = amp * (0.45 / amp.sum())
        self.phase = rng.uniform(0.0, 2.0 * np.pi, self.k.size)
        rmin = self.shore(np.linspace(0.0, 2.0 * np.pi, 4096)).min()
        self.islands = []  # (x, y, radius, phase of a 3-lobed wiggle)
        for _ in range(4):
            psi, rho = rng.uniform(0.0, 2.0 * np.pi), rng.uniform(0.15, 0.55) * rmin
            self.islands.append(
                (self.CENTER + rho * np.cos(psi), self.CENTER + rho * np.sin(psi), rng.uniform(0.025, 0.05), rng.uniform(0.0, 2.0 * np.pi))
            )

    def shore(self, theta):
        """Radius of the outer coast at polar angle theta (around the center)."""
        r = np.ones_like(theta)
        for k, a, p in zip(self.k, self.amp, self.phase):  # elementwise: the same bits on every rank
            r += a * np.cos(k * theta + p)
        return self.RADIUS * r

    def shores(self):
        """The outer coast and the island shores as closed polylines (x, y), finely sampled."""
        theta = np.linspace(0.0, 2.0 * np.pi, 1 << 16)
        r = self.shore(theta)
        lines = [(self.CENTER + r * np.cos(theta), self.CENTER + r * np.sin(theta))]
        phi = np.linspace(0.0, 2.0 * np.pi, 1 << 12)
        for cx, cy, s, ph in self.islands:
            ri = s * (1.0 + 0.25 * np.cos(3.0 * phi + ph))
            lines.append((cx + ri * np.cos(phi), cy + ri * np.sin(phi)))
        return lines

    def shore_points(self, h):
        """Points along every shore at arc-length spacing about h (those inside another island
        dropped), and the total shore length."""
        xs, ys, total = [], [], []
        for x, y in self.shores():
            cum = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))])
            npts = max(3, int(round(cum[-1] / h))) if h else 0
            at = np.arange(npts) * (cum[-1] / max(npts, 1))
            xs.append(np.interp(at, cum, x))
            ys.append(np.interp(at, cum, y))
            total.append(cum[-1])
        x, y = np.concatenate(xs), np.concatenate(ys)
        keep = self.distance(x, y) > -0.25 * h
        return x[keep], y[keep], math.fsum(total)

    def distance(self, x, y):
        """Approximate distance to the coast (radial gaps), positive at sea, negative on land."""
        dx, dy = x - self.CENTER, y - self.CENTER
        d = self.shore(np.arctan2(dy, dx)) - np.hypot(dx, dy)
        for cx, cy, s, ph in self.islands:
            ix, iy = x - cx, y - cy
            d = np.minimum(d, np.hypot(ix, iy) - s * (1.0 + 0.25 * np.cos(3.0 * np.arctan2(iy, ix) + ph)))
        return d


def keep_probability(d):
    """Probability of keeping a lattice point at distance d from the coast."""
    return _KEEP_MIN + (1.0 - _KEEP_MIN) * np.exp(-np.maximum(d, 0.0) / _KEEP_SCALE)


def depth(d):
    """Relative sea depth at distance d from the coast."""
    return _DEPTH_MIN + (1.0 - _DEPTH_MIN) * (1.0 - np.exp(-np.maximum(d, 0.0) / _DEPTH_SCALE))


class Mesh2D:
    """Vertices ``x``, ``y``, ``depth`` (n), triangles ``tri`` (T x 3, increasing vertex ids), edges
    ``edges`` (E x 2, a < b, sorted), and ``tri_edges`` (T x 3: edge ids of the sides (v0, v1),
    (v0, v2), (v1, v2) of each triangle)."""

    def __init__(self, x, y, dep, tri):
        self.x, self.y, self.depth, self.tri = x, y, dep, tri
        self.n = len(x)
        sides = np.concatenate([tri[:, [0, 1]], tri[:, [0, 2]], tri[:, [1, 2]]])
        keys, inverse = np.unique(sides[:, 0] * self.n + sides[:, 1], return_inverse=True)
        self.edges = np.stack([keys // self.n, keys % self.n], axis=1)
        self.tri_edges = inverse.reshape(3, -1).T.copy()

    def area(self):
        x, y, t = self.x, self.y, self.tri
        cross = (x[t[:, 1]] - x[t[:, 0]]) * (y[t[:, 2]] - y[t[:, 0]]) - (x[t[:, 2]] - x[t[:, 0]]) * (y[t[:, 1]] - y[t[:, 0]])
        return 0.5 * math.fsum(np.abs(cross))

    def degree(self):
        """Number of neighbours of each vertex."""
        return np.bincount(self.edges.ravel(), minlength=self.n)


@functools.lru_cache(maxsize=4)
def mesh(n_target, seed=0):
    """The mesh of seed ``seed`` with about max(n_target, 100) vertices."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee
    from scipy.spatial import Delaunay

    n_target = max(int(n_target), _MIN_POINTS)
    coast = Coast(seed)
    # spacing h such that (kept lattice points) + (shore points) ~ n_target: with I the integral of
    # the keep probability over the sea (Monte Carlo) and P the shore length, I / h^2 lattice
    # points, less P / (2 h) within h / 2 of the shore, plus P / h on it
    rng = np.random.default_rng([seed, 3])
    q = rng.random((2, 1 << 16))
    d = coast.distance(q[0], q[1])
    area = math.fsum(np.where(d > 0, keep_probability(d), 0.0)) / d.size  # fsum: same bits everywhere
    perimeter = coast.shore_points(0.0)[2]
    h = 2.0 * area / (math.sqrt(0.25 * perimeter**2 + 4.0 * area * n_target) - 0.5 * perimeter)
    m = int(np.ceil(1.0 / h))
    jj, ii = np.divmod(np.arange(m * m), m)
    u = np.random.default_rng([seed, 4, m]).random((3, m * m))
    x = (ii + 0.2 + 0.6 * u[0]) * h
    y = (jj + 0.2 + 0.6 * u[1]) * h
    d = coast.distance(x, y)
    sel = (d > 0.5 * h) & (u[2] < keep_probability(d))  # the shore points take the band near the coast
    sx, sy, _ = coast.shore_points(h)
    pts = np.stack([np.concatenate([x[sel], sx]), np.concatenate([y[sel], sy])], axis=1)
    tri = Delaunay(pts).simplices
    cen = (pts[tri[:, 0]] + pts[tri[:, 1]] + pts[tri[:, 2]]) / 3.0
    tri = tri[coast.distance(cen[:, 0], cen[:, 1]) > 0]
    used, tri = np.unique(tri, return_inverse=True)
    tri = tri.reshape(-1, 3)
    pts = pts[used]
    n = len(pts)
    a = np.concatenate([tri[:, 0], tri[:, 1], tri[:, 2]])
    b = np.concatenate([tri[:, 1], tri[:, 2], tri[:, 0]])
    graph = coo_matrix((np.ones(2 * len(a)), (np.concatenate([a, b]), np.concatenate([b, a]))), shape=(n, n)).tocsr()
    perm = reverse_cuthill_mckee(graph, symmetric_mode=True)  # new -> old
    new = np.empty(n, dtype=np.int64)
    new[perm] = np.arange(n)
    pts = pts[perm]
    tri = np.sort(new[tri], axis=1)
    return Mesh2D(pts[:, 0], pts[:, 1], depth(coast.distance(pts[:, 0], pts[:, 1])), tri)
