"""Timing the products of the built variants: the batch size of each from its warm-up, then
alternating rounds (each round visits every variant, the order rotating from round to round):
MPI barrier, MPI_Wtime, K products, barrier, MPI_Wtime. The median over all batches is the
product time."""

import math

from .job import is_hybrid


def fill_x(x):
    """x_i = 1.5 + sin(0.37 i) (global index i): the same vector at any rank count, no zeros."""
    import numpy as np

    rs, re_ = x.getOwnershipRange()
    x.setArray(1.5 + np.sin(0.37 * np.arange(rs, re_, dtype=float)))


def calibrate(job, v, first):
    """Warm v up and choose its batch: K products last about timing.batch_seconds, K from the fastest
    warm-up product (robust to a slow one); an aijhybrid variant warms up at least until every rank
    has chosen its software prefetch from measured products (src/mat/tune.c)."""
    A, x, y, ph = v.A, v.x, v.y, job.ph
    tm = job.spec["timing"]
    per, k = first, 1
    hybrid = is_hybrid(v.spec["type"])
    while k < tm["warmup"] or (hybrid and k < 64 and not job.all(ph.get_prefetch(A)[1] is not None)):
        t0 = job.wtime_barrier()
        A.mult(x, y)
        per = min(per, job.wtime_barrier() - t0)
        k += 1
    per = job.max(per)
    v.batch = int(min(tm["max_batch"], max(1, math.ceil(tm["batch_seconds"] / max(per, 1e-9)))))
    v.rec.update(warmup_product_s=per, batch=v.batch, warmup_products=k)


def timed_rounds(job, active):
    """The timing samples of every active variant (seconds per product, one per batch)."""
    timing, comm, MPI = job.spec["timing"], job.comm, job.MPI
    rounds, bpr = timing["rounds"], timing["batches_per_round"]
    n = len(active)
    for r in range(rounds):
        order = active[r % n:] + active[: r % n] if n else []
        if r % 2:
            order = order[::-1]
        for v in order:
            A, x, y, K = v.A, v.x, v.y, v.batch
            for _ in range(bpr):
                comm.Barrier()
                t0 = MPI.Wtime()
                for _ in range(K):
                    A.mult(x, y)
                comm.Barrier()
                v.samples.append((MPI.Wtime() - t0) / K)
        job.log("  round %d/%d done" % (r + 1, rounds))


def summarize(v):
    """v's product time: the median of its samples, with the extremes and the count."""
    s = sorted(v.samples)
    v.rec.update(samples_s=v.samples, mult_s=s[len(s) // 2] if len(s) % 2 else 0.5 * (s[len(s) // 2 - 1] + s[len(s) // 2]),
                 mult_min_s=s[0], mult_max_s=s[-1], products=len(s) * v.batch)
