"""The performance model: flops and bytes of one product y = A x, and the derived figures.

Byte model (minimum traffic of CSR SpMV, every byte read or written once, counted like STREAM:
no write-allocate), for a matrix with M rows, N columns and nnz nonzeros, s = sizeof(PetscScalar)
and i = sizeof(PetscInt):

    bytes = nnz * (s + i)      values and column indices
          + (M + P) * i        row pointers (M + 1 per rank; P ranks)
          + N * s              x, read once (ghost values read again are not counted)
          + M * s              y, written once

With s = 8 and i = 4: 12 bytes per nonzero + 20 bytes per row (square matrix). For a 7-point
stencil that is ~14.9 bytes per nonzero, so at STREAM bandwidth B the ceiling is
2 * nnz / bytes * B ~ B / 7.4 flops per byte.

flops = 2 * nnz (one multiply and one add per nonzero).
"""

import statistics


def bytes_per_product(rows, cols, nnz, ranks=1, scalar_bytes=8, int_bytes=4):
    return {
        "values_indices": nnz * (scalar_bytes + int_bytes),
        "row_pointers": (rows + ranks) * int_bytes,
        "x": cols * scalar_bytes,
        "y": rows * scalar_bytes,
        "total": nnz * (scalar_bytes + int_bytes) + (rows + ranks) * int_bytes + cols * scalar_bytes + rows * scalar_bytes,
    }


def gflops(nnz, seconds):
    return 2.0 * nnz / seconds / 1e9 if seconds and seconds > 0 else None


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9 if seconds and seconds > 0 else None


def ceiling_gflops(stream_gbps, nnz, nbytes):
    """GF/s at which a product moving nbytes would run at the STREAM bandwidth."""
    return 2.0 * nnz * stream_gbps / nbytes if stream_gbps and nbytes else None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def round_order(alts, r):
    """The order of round r of alternating rounds (the timed products, the setups, the solves, the SNES
    runs and the prefetch audit: timing, pcsetup, solves, snes): round 2j runs the alternatives rotated by j, round
    2j + 1 the same order reversed. Every two rounds each pair of alternatives runs once in each order
    (the measured batch before and after the fixed one it is paired with: an order effect, such as the
    cache or clock state the batch before leaves, falls on both sides of the ratio alike), and every
    2 len(alts) rounds each alternative runs once in each position, for any number of alternatives.
    (A rotation alone runs a pair in one
    order in two rounds of three; reversing every other round while the rotation advances each round
    balances an odd number only: with two, the first always runs first.)"""
    n = len(alts)
    j = (r // 2) % n
    order = alts[j:] + alts[:j]
    return order[::-1] if r % 2 else order


def grouped_round_order(groups, r):
    """The order of round r when the alternatives come in groups (groups[i]: the group of alternative
    i, e.g. the preconditioner of a setup, whose variants are the ones compared): [(i, timed)]. The
    groups run in round_order's order, and within each its alternatives in round_order's order, the
    group opened by an untimed run of its first alternative (a primer, where there is more than one
    group): every timed alternative runs right after one of its own group, so what a group leaves
    behind (whatever it is: heap, cache or clock state) never falls on whichever of the
    next group's alternatives happens to run first."""
    names = list(dict.fromkeys(groups))
    out = []
    for g in round_order(names, r):
        members = round_order([i for i, k in enumerate(groups) if k == g], r)
        if len(names) > 1:
            out.append((members[0], False))
        out += [(i, True) for i in members]
    return out


def median_interval_ranks(n, level=0.90):
    """The order statistics of a distribution-free confidence interval of the median of n samples
    (the sign test): (k, n + 1 - k, coverage), 1-based ranks of the sorted samples, the narrowest
    symmetric pair whose coverage P(s_k <= median <= s_(n+1-k)) = 1 - 2 P(Bin(n, 1/2) < k) reaches
    `level`; the extremes (1, n) and their coverage when even they fall short (few samples). E.g. at
    0.95: 7 samples (1, 7), 98.4%; 12 -> (3, 10), 96.1%; 20 -> (6, 15), 95.9%; 30 -> (10, 21)."""
    from math import comb

    if n < 1:
        return None, None, None
    cover = lambda k: 1.0 - 2.0 * sum(comb(n, i) for i in range(k)) / 2.0 ** n  # noqa: E731  [s[k-1], s[n-k]]
    k = 1
    while k + 1 <= (n + 1) // 2 and cover(k + 1) >= level:
        k += 1
    return k, n + 1 - k, cover(k)


def median_interval(xs, level=0.90):
    """A distribution-free confidence interval of the median of xs (order statistics, the sign test):
    (lo, hi, coverage) with the narrowest symmetric pair of order statistics whose coverage reaches
    `level` (median_interval_ranks); (min, max, coverage) when even that pair falls short (few
    samples: then coverage < level, and the caller must not read it as an interval at `level`)."""
    s = sorted(x for x in xs if x is not None)
    k, k2, cover = median_interval_ranks(len(s), level)
    if k is None:
        return None, None, None
    return s[k - 1], s[k2 - 1], cover


def ratios(results, baseline="aij"):
    """Set r['ratio_vs_baseline'] = t(baseline, same matrix, layout cores x 1) / t(r) on every result;
    where the baseline has no such layout (a baseline that is itself threaded), its time in r's own
    layout; None where neither was measured. Measured in the same jobs (each job's median of both),
    the ratio is the median over the jobs of their own ratios (r['ratio_jobs']), so that a job
    slower than the others slows both sides of its ratio. Also r['baseline_layout'] and r['baseline_same_job']:
    True when the baseline was measured in the same jobs as r (the same R x 1 layout, or, for an
    R x T layout, the paired baseline 'aij@RTx1' of its paired jobs), False when it comes from other
    jobs (R x T against the R*T x 1 layout's jobs)."""
    base, same, paired = {}, {}, {}
    for r in results:
        if not r.get("mult_s"):
            continue
        if r.get("paired_of") == baseline:
            paired[(r["matrix_key"], r["layout"])] = (r["mult_s"], r.get("run_as"), r.get("job_medians_s"))
        elif r["variant"] == baseline:
            same[(r["matrix_key"], r["layout"])] = (r["mult_s"], r["layout"], r.get("job_medians_s"))
            if r["threads"] == 1:
                base[(r["matrix_key"], r["ranks"])] = (r["mult_s"], r["layout"])
    for r in results:
        key = (r["matrix_key"], r["layout"])
        if r["threads"] == 1 and not r.get("paired_of") and key in same:
            b, sj = same[key], True
        elif key in paired:
            b, sj = paired[key], True
        elif base.get((r["matrix_key"], r["ranks"] * r["threads"])):
            b, sj = base[(r["matrix_key"], r["ranks"] * r["threads"])], False
        else:
            b, sj = same.get(key), True
        if b and r.get("mult_s"):
            r["ratio_vs_baseline"] = b[0] / r["mult_s"]
            r["baseline_layout"] = b[1]
            r["baseline_same_job"] = sj
            bj, rj = b[2] if len(b) > 2 else None, r.get("job_medians_s")
            if sj and bj and rj and len(bj) == len(rj) and all(bj) and all(rj):
                # the same jobs measured both: the median of the jobs' own ratios (a slow job slows both)
                r["ratio_vs_baseline"] = median([x / y for x, y in zip(bj, rj)])
                r["ratio_jobs"] = [x / y for x, y in zip(bj, rj)]
        else:
            r["ratio_vs_baseline"] = None
            r["baseline_layout"] = None
            r["baseline_same_job"] = None
    return results


def derive(r, stream_gbps):
    """Fill GF/s, GB/s, fraction of STREAM and the ceiling into a result with mult_s, nnz, bytes."""
    t = r.get("mult_s")
    r["gflops"] = gflops(r["nnz"], t)
    r["gbps"] = gbps(r["bytes"], t)
    r["stream_GBps"] = stream_gbps
    r["stream_fraction"] = (r["gbps"] / stream_gbps) if (r["gbps"] and stream_gbps) else None
    r["ceiling_gflops"] = ceiling_gflops(stream_gbps, r["nnz"], r["bytes"])
    return r
