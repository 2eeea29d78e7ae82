"""Timing the products of the built variants: the batch size of each from its warm-up, then
alternating rounds (each round visits every variant, the order rotating from round to round):
MPI barrier, MPI_Wtime, K products, barrier, MPI_Wtime. The median over all batches is the
product time. In a paired job (job.py) the variants of both groups alternate in the same rounds.

Each batch also records the choices the plugin had in force for an aijhybrid variant (``choice``:
the software prefetch distance and, in task mode, thread 0's share), read before and after the
batch on each rank: a batch during which a choice changed is marked so, and no time is ever paired
with a choice of another batch (report.flatten groups the samples by choice)."""

import math

from . import model
from .job import is_hybrid


def fill_x(x):
    """x_i = 1.5 + sin(0.37 i) (global index i): the same vector at any rank count, no zeros."""
    import numpy as np

    rs, re_ = x.getOwnershipRange()
    x.setArray(1.5 + np.sin(0.37 * np.arange(rs, re_, dtype=float)))


def calibrate(job, v, first):
    """Warm v up and choose its batch: K products last about timing.batch_seconds, K from the fastest
    warm-up product (robust to a slow one); an aijhybrid variant warms up until every rank's measured
    choices are settled (src/mat/tune.c: thread 0's task share, then software prefetch; their
    re-trials follow at once, so at most 64 + 98 + 98 products), 320 products at most; a choice
    still measured after that shows in the batches' choices."""
    g, tm = v.group, job.spec["timing"]
    fastest = [first]

    def timed():
        t0 = g.wtime_barrier()
        v.A.mult(v.x, v.y)
        fastest[0] = min(fastest[0], g.wtime_barrier() - t0)

    k = _warm_up(job, v, is_hybrid(v.spec["type"]), timed, done=1)
    per = g.max(fastest[0])
    v.batch = int(min(tm["max_batch"], max(1, math.ceil(tm["batch_seconds"] / max(per, 1e-9)))))
    v.rec.update(warmup_product_s=per, batch=v.batch, warmup_products=k)


def choice(job, v):
    """The choices in force on this rank for v's next product (no communication): a dict with the
    software prefetch distance (None while it is being measured) and, in task mode, thread 0's
    share; None for other types."""
    if not is_hybrid(v.spec["type"]):
        return None
    ph = job.ph
    c = {"prefetch": ph.get_prefetch(v.A)[1]}  # None while measured
    if ph.get_mode(v.A) == "task":
        share = ph.get_task_share(v.A)[1]  # None while sized or compared
        c["task_share"] = None if share is None else round(float(share), 4)
    return c


def _batches(job, v, bpr):
    comm, MPI = v.group.comm, job.MPI
    A, x, y, K = v.A, v.x, v.y, v.batch
    for _ in range(bpr):
        before = choice(job, v)
        comm.Barrier()
        t0 = MPI.Wtime()
        for _ in range(K):
            A.mult(x, y)
        comm.Barrier()
        v.samples.append((MPI.Wtime() - t0) / K)
        after = choice(job, v)
        v.choices.append(before if before == after else {"changed": [before, after]})


def _settled(job, v):
    """every rank's measured choices of v decided (none reads None)"""
    c = choice(job, v)
    return v.group.all(c and all(x is not None for x in c.values()))


def _warm_up(job, v, measured, product=None, done=0):
    """Products of v (`product`, default one A.mult) until timing.warmup of them have run and, when
    `measured`, every rank's measured choices are settled (320 products at most: a choice still
    measured after that shows in the batches' choices). Returns the number of products run,
    counting the `done` ones run before."""
    product = product or (lambda: v.A.mult(v.x, v.y))
    k = done
    while k < job.spec["timing"]["warmup"] or (measured and k < 320 and not _settled(job, v)):
        product()
        k += 1
    return k


def audit_prefetch(job, v, distances, rounds):
    """The measured software prefetch of v against fixed distances on v's own matrix (issue 31: the
    variants that fix it are other matrices, whose pages land elsewhere, so their times differ by
    more than the choice's cost). `rounds` rounds, in the order of audit_order (alternated: every pair
    of alternatives in both orders every two rounds; an even count balances them): for each
    alternative (None: measured, then each fixed distance) MatAIJHybridSetPrefetch(), warm-up products
    (for the measured one until every rank has decided again, 320 at most: a new decision in each
    round) and one barrier-timed batch of v's K products. Returns {"distances", "rounds", "samples_s":
    {"auto" or str(distance): [seconds per product, one per round]}, "choices": [per round, per rank:
    the distance the measured batch ran with, "changed" or None for measuring], "settle_products":
    [products until decided, per round], "orders": [per round, the alternatives in the order they
    ran: "auto" or str(distance)]}. Leaves v measuring again. On v's group."""
    A, x, y, g, ph = v.A, v.x, v.y, v.group, job.ph
    comm, MPI = g.comm, job.MPI
    alts = [None] + [int(d) for d in distances]
    name = lambda a: "auto" if a is None else str(a)  # noqa: E731
    out = {"distances": [int(d) for d in distances], "rounds": rounds, "samples_s": {name(a): [] for a in alts}, "choices": [],
           "settle_products": [], "orders": []}
    for r in range(rounds):
        order = model.round_order(alts, r)
        out["orders"].append([name(a) for a in order])
        for a in order:
            ph.set_prefetch(A, a)
            k = _warm_up(job, v, a is None)
            before = choice(job, v)["prefetch"]
            comm.Barrier()
            t0 = MPI.Wtime()
            for _ in range(v.batch):
                A.mult(x, y)
            comm.Barrier()
            out["samples_s"][name(a)].append((MPI.Wtime() - t0) / v.batch)
            if a is None:
                after = choice(job, v)["prefetch"]
                out["choices"].append(comm.allgather(before if before == after else "changed"))
                out["settle_products"].append(k)
    ph.set_prefetch(A, None)
    return out


def timed_rounds(job, active):
    """The timing samples of every active variant (seconds per product, one per batch) and the
    choices in force during each."""
    timing = job.spec["timing"]
    rounds, bpr = timing["rounds"], timing["batches_per_round"]
    for r in range(rounds):
        for v in model.round_order(active, r) if active else []:
            job.run_on(v.group, lambda v=v: _batches(job, v, bpr))
        job.log("  round %d/%d done" % (r + 1, rounds))


def summarize(v):
    """v's product time: the median of its samples, with the extremes and the count; for an
    aijhybrid variant the choices of each sample, per rank (sample_choices[i][rank])."""
    s = sorted(v.samples)
    v.rec.update(samples_s=v.samples, mult_s=s[len(s) // 2] if len(s) % 2 else 0.5 * (s[len(s) // 2 - 1] + s[len(s) // 2]),
                 mult_min_s=s[0], mult_max_s=s[-1], products=len(s) * v.batch)
    if any(c is not None for c in v.choices):
        per_rank = v.group.comm.allgather(v.choices)
        v.rec["sample_choices"] = [[rc[i] for rc in per_rank] for i in range(len(v.samples))]
