"""A matrix with heavy-tailed row lengths: the Laplacian of a power-law random graph, shifted.

Graph (Chung-Lu-like): ``round(rows * mean_degree / 2)`` edges whose two endpoints are drawn
independently with probability proportional to ``(i + 1) ** (-1 / (gamma - 1))`` (vertex 0 the most
likely), so that the degrees follow a power law of exponent ``gamma``; self-loops are dropped and
repeated edges merged. With ``order="degree"`` (default) the rows are in the generator's numbering,
decreasing expected degree (the hubs first, where balancing rows fails most); ``order="random"``
relabels the vertices by a seeded permutation.

Matrix: ``L + shift * I`` with L the graph Laplacian (degree on the diagonal, -1 for each
neighbour): symmetric, strictly diagonally dominant, positive definite.

Edges are drawn in fixed chunks, each from its own seeded stream; every rank draws them all and
keeps the endpoints in its rows (memory proportional to its rows; time proportional to the
global edge count, about 0.1 s per million edges): the same matrix at any rank count.
"""

import numpy as np

_EDGE_CHUNK = 1 << 20  # edges per seeded stream: part of the graph's definition
ORDERS = ("degree", "random")


class PowerLaw:
    """The power-law graph matrix of ``rows`` rows (see the module documentation)."""

    DESCRIPTION = "Laplacian of a power-law random graph plus a diagonal shift (heavy-tailed row lengths), hubs first"

    def __init__(self, rows, seed=0, gamma=2.5, mean_degree=8.0, shift=1.0, order="degree"):
        if not gamma > 2.0:
            raise ValueError("gamma must be > 2 (finite mean degree), got %r" % gamma)
        if order not in ORDERS:
            raise ValueError("unknown order %r: valid are %s" % (order, ", ".join(ORDERS)))
        if not shift > 0.0:
            raise ValueError("shift must be > 0 (positive definite), got %r" % shift)
        self.nrows = max(2, int(rows))
        self.seed, self.gamma, self.shift, self.order = seed, float(gamma), float(shift), order
        self.nedges = int(round(self.nrows * float(mean_degree) / 2.0))
        # endpoint = floor(n u^a) has P(i) ~ (i+1)^(1/a - 1) = (i+1)^(-1/(gamma-1))
        self.exponent = 1.0 / (1.0 - 1.0 / (self.gamma - 1.0))

    def describe(self):
        return {
            "rows": self.nrows,
            "nnz_estimate": self.nrows + 2 * self.nedges,  # an upper bound: before merging repeated edges
            "edges_drawn": self.nedges,
            "gamma": self.gamma,
            "order": self.order,
        }

    def labels(self):
        """Row of each vertex of the generator's numbering: None (identity) for order="degree"."""
        return np.random.default_rng([self.seed, 1]).permutation(self.nrows) if self.order == "random" else None

    def edges(self):
        """The drawn edges, chunk by chunk: (u, v) arrays of rows (self-loops and repeats included)."""
        n = self.nrows
        label = self.labels()
        for chunk, lo in enumerate(range(0, self.nedges, _EDGE_CHUNK)):
            u = np.random.default_rng([self.seed, 0, chunk]).random((2, min(_EDGE_CHUNK, self.nedges - lo)))
            ends = np.minimum((n * u**self.exponent).astype(np.int64), n - 1)
            yield (ends[0], ends[1]) if label is None else (label[ends[0]], label[ends[1]])

    def local_chunks(self, rstart, rend):
        """Rows [rstart, rend) as one chunk: (nonzeros per row, sorted global columns, values)."""
        n, m = self.nrows, rend - rstart
        keys = [(np.arange(m, dtype=np.int64) * n + np.arange(rstart, rend))]  # the diagonal
        for u, v in self.edges():
            keep = u != v
            u, v = u[keep], v[keep]
            for a, b in ((u, v), (v, u)):
                mine = (a >= rstart) & (a < rend)
                keys.append((a[mine] - rstart) * n + b[mine])
        keys = np.unique(np.concatenate(keys))
        row, col = keys // n, keys % n
        counts = np.bincount(row, minlength=m)
        diag = counts - 1 + self.shift  # degree = off-diagonal entries of the row
        va = np.where(col == row + rstart, diag[row], -1.0)
        yield counts, col, va
