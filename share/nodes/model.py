#!/usr/bin/python3
"""A performance model of MatMult and CG + Jacobi with basic and nodeaware PetscSFs and R x T layouts
(docs/nodes.md): fitted to the emulated hosts (share/nodes/nodes.py full), validated against every
configuration measured there, and used to predict a stated cluster at 16 to 1024 nodes.

    python3 model.py RESULT.json            the fit, the validation and the cluster predictions of a run
    python3 model.py --cluster              the cluster predictions with the default parameters

Model (one node = one emulated host here; all times in seconds):

  compute   T_c = max(nnz_node * t_nz / cores_node, bytes_node / B_mem)    bytes = 12 nnz + 20 rows
  basic     T_x = L + max(o * m_rank, (b_out * f + m_node * h) / B, (b_in * f + m_in * h) / B)
                + L_s + o_s * m_on + b_on / B_s                            (network, then on-node copies)
  nodeaware T_x = [L_s + o_s * m1 + b1 / B_s]                               F1: gather on the sender node
                + L + max(o * m2_rank, (b2 * f + m2 * h) / B, in-bytes / B)   F2: one message per node pair
                + [L_s + o_s * m3 + b3 / B_s]                               F3: scatter on the receiver node
  MatMult   T = T_c + T_x
  CG its    T = N (T_MatMult + 3 T_allreduce + T_vec) + 2 T_allreduce        (PETSc's CG, zero initial guess)
            T_allreduce = sum over the log2(P) rounds of recursive doubling: L + o between nodes, L_s + o_s inside
            T_vec = 14 vector passes * 8 bytes * rows_node / B_mem

m: messages (m_rank the most one rank sends, m_node a node's), b: bytes of data, f = 1 + 66/1448 (TCP/IP
headers per segment), h = 22 + 66 bytes per message (Open MPI's header, one segment's headers).
Parameters: L latency per network phase, o per-message cost of a rank (MPI + TCP), B a node's
injection (and ejection) bandwidth, shared by its ranks; L_s, o_s, B_s the same inside a node (shared
memory); t_nz time per nonzero of one core, B_mem memory bandwidth of a node.

Emulated hosts (predict_here): the 4 hosts share this machine's 2 cores, so a rank waiting for the wire
leaves its core to the others: MatMult T = max(CPU, wire) + latencies, CPU = tau nnz + kappa P,
wire = max over hosts of (max(bytes out, bytes in) + rho * waiting) / B. "waiting": Open MPI's TCP
rendezvous (messages above the eager limit) sends its clear-to-send back on the same TCP connection as
the receiver's own data to the sender, so on a rate-limited link it queues behind that data; per
connection (basic: a rank pair, nodeaware: a host pair) the rendezvous bytes both directions have in
common, half to each end host. B comes from the probe (one rank sending 4 MiB to another host, at each
rate), the reductions of CG from each configuration's own MPI_Allreduce timing (its ranks, threads and
rate: the row's allreduce_s; the probe's timings, all ranks or one rank per host, for older records);
tau, kappa, L, o, L_s, o_s and rho are fitted to the MatMult times at both rates and of the on-host run
(8 ranks on one host, no network): rho is only seen where the wire dominates (at 1 Gbit/s the fit's
cost hardly changes between rho 0 and 0.4, so a fit to the first rate alone drifted between records).
MatMult is validated leaving one matrix out (each matrix's times predicted by the parameters fitted
to the other matrices, whose rho is shown beside the full fit's); every CG solve is a prediction.

Cluster (CLUSTER): 64 cores and a 100 Gbit/s NIC per node, network latency 2 us, 1 us per message
and rank, 0.05 us per message of a node's NIC; shared memory as measured here; t_nz as measured here
per core; 200 GB/s of memory per node. Communication patterns at scale: poisson7 exactly (intervals
of the lexicographic grid under PETSc's row blocks), extruded as a band of the width its
reverse-Cuthill-McKee fronts have (fitted to the generator), powerlaw as the expectation of the
random graph (Chung-Lu endpoints of the generator).
"""

import argparse
import json
import math
import statistics
import sys

import numpy as np

SCALAR = 8
F_TCP = 1 + 66.0 / 1448
H_MSG = 22 + 66
VEC_PASSES = 14  # CG + Jacobi per iteration: 2 dots (2 vectors each), 1 norm, 2 AXPY + 1 AYPX (3 each), Jacobi (3)

# the stated cluster; shared-memory and per-core figures are replaced by this machine's when fitted
CLUSTER = {"name": "64 cores in 4 NUMA domains and 100 Gbit/s per node", "cores": 64, "numa": 4, "numa_penalty": 0.75, "B": 100e9 / 8, "L": 2e-6, "o": 1e-6,
           "g_nic": 0.05e-6, "L_s": 0.5e-6, "o_s": 0.3e-6, "B_s": 8e9, "t_nz": 1.25e-9, "B_mem": 200e9}
NODES = (16, 64, 256, 1024)
LAYOUTS = ("64x1", "16x4", "4x16", "1x64")


def split(n, p):
    """PETSc's row blocks: starts of p blocks of n rows (and n)"""
    r = np.arange(p + 1, dtype=np.int64)
    return r * (n // p) + np.minimum(r, n % p)


# ------------------------------------------------------------------------------------------------
# communication patterns of one forward exchange (what the cluster predictions need)


def _interval_pattern(nrows, P, ppn, shifts):
    """ghosts of a contiguous block [s, e): the union of [s + d, e + d) over the shifts d, minus [s, e)
    (exact for the 7-point stencil when blocks hold at least a plane). Basic: per rank; nodeaware: per node."""
    starts = split(nrows, P)
    nn = (P + ppn - 1) // ppn
    nstarts = np.array([starts[min(P, k * ppn)] for k in range(nn + 1)])
    nstarts[-1] = nrows

    def ghosts(s, e):
        iv = sorted((max(0, s + d), min(nrows, e + d)) for d in shifts)
        out = []
        for a, b in iv:
            for lo, hi in ((a, min(b, s)), (max(a, e), b)):
                if hi > lo:
                    if out and lo <= out[-1][1]:
                        out[-1] = (out[-1][0], max(out[-1][1], hi))
                    else:
                        out.append((lo, hi))
        return out

    def owners(iv, bounds):
        """{owner: entries} of intervals under block bounds"""
        res = {}
        for lo, hi in iv:
            q0 = int(np.searchsorted(bounds, lo, side="right") - 1)
            q1 = int(np.searchsorted(bounds, hi - 1, side="right") - 1)
            for q in range(q0, q1 + 1):
                n = min(hi, bounds[q + 1]) - max(lo, bounds[q])
                if n > 0:
                    res[q] = res.get(q, 0) + int(n)
        return res

    node_of = lambda r: r // ppn  # noqa: E731
    b_out = np.zeros((nn, 2), dtype=np.int64)  # per node: inter messages and entries sent
    b_in = np.zeros((nn, 2), dtype=np.int64)
    on_node = np.zeros((nn, 2), dtype=np.int64)
    rank_msgs = np.zeros((P, 2), dtype=np.int64)  # per rank: inter, on-node messages sent
    rank_on = np.zeros(P, dtype=np.int64)  # per rank: on-node entries sent
    for r in range(P):
        for q, n in owners(ghosts(int(starts[r]), int(starts[r + 1])), starts).items():
            if q == r:
                continue
            if node_of(q) != node_of(r):
                b_out[node_of(q)] += (1, n)
                b_in[node_of(r)] += (1, n)
                rank_msgs[q, 0] += 1
            else:
                on_node[node_of(q)] += (1, n)
                rank_msgs[q, 1] += 1
                rank_on[q] += n
    n_out = np.zeros((nn, 2), dtype=np.int64)
    n_in = np.zeros((nn, 2), dtype=np.int64)
    for N in range(nn):
        for M, n in owners(ghosts(int(nstarts[N]), int(nstarts[N + 1])), nstarts).items():
            if M != N:
                n_out[M] += (1, n)
                n_in[N] += (1, n)
    return _pattern(b_out, b_in, on_node, rank_msgs, n_out, n_in, ppn, rank_on)


def _pattern(b_out, b_in, on_node, rank_msgs, n_out, n_in, ppn, rank_on):
    """the figures the time model uses, for the busiest node (by bytes out, then messages)"""
    k = int(np.lexsort((b_out[:, 0], b_out[:, 1]))[-1])
    kn = int(np.lexsort((n_out[:, 0], n_out[:, 1]))[-1])
    frac = (ppn - 1) / ppn if ppn > 1 else 0.0
    return {"basic_inter_msgs": int(b_out[:, 0].sum()), "basic_inter_entries": int(b_out[:, 1].sum()),
            "na_inter_msgs": int(n_out[:, 0].sum()), "na_inter_entries": int(n_out[:, 1].sum()),
            "basic_max_node": (int(b_out[k, 0]), int(b_out[k, 1])), "na_max_node": (int(n_out[kn, 0]), int(n_out[kn, 1])),
            "basic": {"m_rank": int(rank_msgs[:, 0].max()), "m_node": int(b_out[k, 0]), "b_out": float(b_out[k, 1] * SCALAR),
                      "m_in": int(b_in[:, 0].max()), "b_in": float(b_in[:, 1].max() * SCALAR),
                      "m_on": int(rank_msgs[:, 1].max()), "b_on": float(rank_on.max() * SCALAR), "b_on_node": float(on_node[:, 1].max() * SCALAR)},
            "nodeaware": {"m2": int(n_out[kn, 0]), "m2_rank": int(math.ceil(n_out[kn, 0] / ppn)), "b2": float(n_out[kn, 1] * SCALAR),
                          "m2_in": int(n_in[:, 0].max()), "b2_in": float(n_in[:, 1].max() * SCALAR),
                          "m1": int(min(ppn - 1, n_out[kn, 0])), "b1": float(n_out[kn, 1] * SCALAR * frac), "s1": max(1, min(ppn, int(n_out[kn, 0]))),
                          "m3": int(min(ppn - 1, b_in[:, 0].max())), "b3": float(b_in[:, 1].max() * SCALAR * frac), "s3": max(1, min(ppn, int(n_in[:, 0].max()))),
                          "m_on": int(rank_msgs[:, 1].max()), "b_on": float(rank_on.max() * SCALAR), "b_on_node": float(on_node[:, 1].max() * SCALAR)}}


def stencil_pattern(n, P, ppn):
    """3D 7-point Poisson on an n^3 grid, lexicographic rows, PETSc's row blocks, nodes of ppn consecutive ranks"""
    return _interval_pattern(n ** 3, P, ppn, (-n * n, -n, -1, 1, n, n * n))


EXTRUDED_FRONT = 10.6  # width of the extruded mesh's band / sqrt(2D vertices), in columns (fitted: fit_extruded_front)


def extruded_pattern(rows, P, ppn, layers=64):
    """the extruded mesh in column ordering with reverse Cuthill-McKee 2D numbering, as a stencil: a column
    couples to the next and previous columns of its front (+-layers rows) and to columns of the
    adjacent fronts (+-w rows, w = EXTRUDED_FRONT sqrt(2D vertices) columns)"""
    n2d = max(1, rows // layers)
    w = int(EXTRUDED_FRONT * math.sqrt(n2d)) * layers
    return _interval_pattern(rows, P, ppn, (-w, -layers, layers, w))


def powerlaw_pattern(rows, P, ppn, gamma=2.5, mean_degree=8.0):
    """expectations for the power-law graph of aijhybrid_bench.matrices.powerlaw (endpoints floor(n u^a),
    a = 1 / (1 - 1 / (gamma - 1)), rows * mean_degree / 2 edges): for every rank pair the chance that a
    message is needed, for every block the expected distinct columns needed; the busiest node is node 0
    (the hubs)"""
    n = rows
    a = 1.0 / (1.0 - 1.0 / (gamma - 1.0))
    E = n * mean_degree / 2.0
    starts = split(n, P).astype(float)
    cdf = lambda x: (np.asarray(x, dtype=float) / n) ** (1.0 / a)  # noqa: E731  P(endpoint < x)
    prob = np.diff(cdf(starts))  # P(B_q)
    nn = (P + ppn - 1) // ppn
    nb = np.array([starts[min(P, k * ppn)] for k in range(nn + 1)])
    nb[-1] = n
    nprob = np.diff(cdf(nb))

    def distinct(lo, hi, lam):
        """expected distinct vertices v in [lo, hi) adjacent to a block of edge rate lam (array): sum of 1 - exp(-lam p_v)"""
        lam = np.atleast_1d(lam)
        edges = np.unique(np.concatenate([[lo, hi], np.geomspace(max(lo, 1), hi, 24)])).clip(lo, hi)
        tot = np.zeros_like(lam)
        for x0, x1 in zip(edges[:-1], edges[1:]):
            if x1 <= x0:
                continue
            pv = (cdf(x1) - cdf(x0)) / (x1 - x0)  # mean endpoint probability of a vertex in the bin
            tot += (x1 - x0) * (1.0 - np.exp(-lam * pv))
        return tot

    lam_rank = 2.0 * E * prob
    lam_node = 2.0 * E * nprob
    r0 = np.arange(min(ppn, P))  # the ranks of node 0
    others = np.arange(min(ppn, P), P)
    # basic: node 0's ranks send to every rank of other nodes with probability 1 - exp(-2E P(B_q) P(B_r))
    pm = 1.0 - np.exp(-2.0 * E * np.outer(prob[r0], prob[others])) if len(others) else np.zeros((len(r0), 0))
    m_node = float(pm.sum())
    m_rank = float(pm.sum(axis=1).max()) if len(others) else 0.0
    b_out = sum(float(distinct(starts[q], starts[q + 1], lam_rank[others]).sum()) for q in r0) * SCALAR
    b_in = sum(float(distinct(nb[1], n, lam_rank[r]).sum()) for r in r0) * SCALAR if nn > 1 else 0.0  # what node 0's ranks need from other nodes
    m_in = float((1.0 - np.exp(-2.0 * E * np.outer(prob[r0], prob[others]))).sum()) if len(others) else 0.0
    # on-node (basic): node 0's ranks among themselves
    pon = 1.0 - np.exp(-2.0 * E * np.outer(prob[r0], prob[r0]))
    np.fill_diagonal(pon, 0.0)
    b_on = sum(float(distinct(starts[q], starts[q + 1], lam_rank[[r for r in r0 if r != q]]).sum()) for q in r0) * SCALAR if len(r0) > 1 else 0.0
    # nodeaware: node 0 to every other node, the union of what its ranks need
    m2 = float((1.0 - np.exp(-2.0 * E * nprob[0] * nprob[1:])).sum()) if nn > 1 else 0.0
    b2 = float(distinct(nb[0], nb[1], lam_node[1:]).sum()) * SCALAR if nn > 1 else 0.0
    b2_in = float(distinct(nb[1], n, np.array([lam_node[0]])).sum()) * SCALAR if nn > 1 else 0.0
    frac = (ppn - 1) / ppn if ppn > 1 else 0.0
    # totals (all nodes), for the check against measured plans: sum over every node pair / rank pair
    tot_b = float((1.0 - np.exp(-2.0 * E * np.outer(prob, prob)))[np.not_equal.outer(np.arange(P) // ppn, np.arange(P) // ppn)].sum()) if P <= 4096 else None
    tot_n = float((1.0 - np.exp(-2.0 * E * np.outer(nprob, nprob)))[~np.eye(nn, dtype=bool)].sum()) if nn <= 4096 else None
    return {"basic_inter_msgs": tot_b, "na_inter_msgs": tot_n, "basic_max_node": (m_node, b_out / SCALAR), "na_max_node": (m2, b2 / SCALAR),
            "basic": {"m_rank": m_rank, "m_node": m_node, "b_out": b_out, "m_in": m_in, "b_in": b_in, "m_on": float(pon.sum(axis=1).max()), "b_on": b_on / len(r0), "b_on_node": b_on},
            "nodeaware": {"m2": m2, "m2_rank": math.ceil(m2 / ppn), "b2": b2, "m2_in": m2, "b2_in": b2_in, "m1": min(ppn - 1, m2), "b1": b2 * frac, "s1": max(1, min(ppn, int(round(m2)))),
                          "m3": min(ppn - 1, m_in), "b3": b_in * frac, "s3": max(1, min(ppn, int(round(m2)))), "m_on": float(pon.sum(axis=1).max()), "b_on": b_on / len(r0), "b_on_node": b_on}}


def pattern(matrix, rows, P, ppn):
    if matrix == "poisson7":
        return stencil_pattern(max(2, round(rows ** (1.0 / 3.0))), P, ppn)
    if matrix == "extruded":
        return extruded_pattern(rows, P, ppn)
    if matrix == "powerlaw":
        return powerlaw_pattern(rows, P, ppn)
    raise ValueError(matrix)


NNZ_PER_ROW = {"poisson7": 6.9, "extruded": 14.4, "powerlaw": 8.9}


# ------------------------------------------------------------------------------------------------
# times


def t_exchange(p, kind, q):
    """one forward exchange: p the pattern of the busiest node (pattern()["basic"] / ["nodeaware"]), q the parameters"""
    g = q.get("g_nic", 0.0)
    if kind == "basic":
        net = 0.0
        if p["m_node"] > 0:
            net = q["L"] + max(q["o"] * p["m_rank"], g * p["m_node"], (p["b_out"] * F_TCP + p["m_node"] * H_MSG) / q["B"], (p["b_in"] * F_TCP + p["m_in"] * H_MSG) / q["B"])
        on = (q["L_s"] + q["o_s"] * p["m_on"] + _copy(p["b_on"], p.get("b_on_node", 0.0), q)) if p["m_on"] > 0 else 0.0
        return net + on
    f2 = 0.0
    if p["m2"] > 0:
        f2 = q["L"] + max(q["o"] * p["m2_rank"], g * p["m2"], (p["b2"] * F_TCP + p["m2"] * H_MSG) / q["B"], (p["b2_in"] * F_TCP + p["m2_in"] * H_MSG) / q["B"])
    f1 = (q["L_s"] + q["o_s"] * p["m1"] + _copy(p["b1"] / p.get("s1", 1), p["b1"], q)) if p["m1"] > 0 else 0.0
    f3 = (q["L_s"] + q["o_s"] * p["m3"] + _copy(p["b3"] / p.get("s3", 1), p["b3"], q)) if p["m3"] > 0 else 0.0
    direct = (q["L_s"] + q["o_s"] * p["m_on"] + _copy(p["b_on"], p.get("b_on_node", 0.0), q)) if p["m_on"] > 0 else 0.0
    return f1 + f2 + f3 + direct


def _copy(b_rank, b_node, q):
    """on-node copies: each rank's at B_s, all of a node's together at most at its memory bandwidth (read + write)"""
    return max(b_rank / q["B_s"], 2.0 * b_node / q.get("B_mem", float("inf")))


def t_compute(nnz_node, rows_node, q, cores, threads=1):
    """a node's share of a product: its cores at t_nz per nonzero, or its memory bandwidth; a rank whose threads
    span several NUMA domains reaches numa_penalty of it (pages first touched by one domain, remote accesses)"""
    bmem = q["B_mem"] * (q.get("numa_penalty", 1.0) if threads > cores / q.get("numa", 1) else 1.0)
    return max(nnz_node * q["t_nz"] / cores, (12.0 * nnz_node + 20.0 * rows_node) / bmem)


def t_allreduce(P, ppn, q):
    t, d = 0.0, 1
    while d < P:
        t += (q["L"] + q["o"]) if d >= ppn else (q["L_s"] + q["o_s"])
        d *= 2
    return t


def t_mult(p, kind, nnz_node, rows_node, q, cores, threads=1):
    return t_compute(nnz_node, rows_node, q, cores, threads) + t_exchange(p, kind, q)


def t_cg_it(p, kind, nnz_node, rows_node, q, cores, P, ppn, threads=1):
    bmem = q["B_mem"] * (q.get("numa_penalty", 1.0) if threads > cores / q.get("numa", 1) else 1.0)
    return t_mult(p, kind, nnz_node, rows_node, q, cores, threads) + 3 * t_allreduce(P, ppn, q) + VEC_PASSES * SCALAR * rows_node / bmem


# ------------------------------------------------------------------------------------------------
# fit to the emulated hosts and validation


EAGER = 65536  # Open MPI's btl_tcp_eager_limit: a larger message waits for the receiver (rendezvous: one more round trip)
FIT = ("tau", "kappa", "L", "o", "L_s", "o_s", "rho")
FIT_BOUNDS = (1e-12, 1.0)  # every fitted parameter (seconds, or rho's fraction) within these


def row_figures(row):
    """what the model of the emulated hosts needs of a measured configuration, from its plan and messages"""
    host_of = row["host_of_rank"]
    hosts = sorted(row["plan_hosts"])
    nh = len(hosts)
    P = len(host_of)
    out, inn, rndv = [0.0] * nh, [0.0] * nh, [0] * nh
    msgs_rank = {}
    conn = {}  # rendezvous bytes per connection and direction (basic: rank pairs; nodeaware: host pairs)
    hof = (lambda r: host_of[r]) if row["sf"] == "basic" else (lambda r: r)  # noqa: E731  (nodeaware: messages are host pairs)
    for a, b, nbytes in row["messages"]:
        ha, hb = hof(a), hof(b)
        out[ha] += nbytes * F_TCP + H_MSG
        inn[hb] += nbytes * F_TCP + H_MSG
        if nbytes + 22 > EAGER:
            rndv[ha] += 1
            conn[(a, b)] = conn.get((a, b), 0.0) + nbytes * F_TCP
        key = a if row["sf"] == "basic" else (a, b)
        msgs_rank[key] = msgs_rank.get(key, 0) + 1
    # a rendezvous message's clear-to-send goes back on the same TCP connection, behind the receiver's own
    # data to the sender: per connection, the bytes both directions have in common wait, half at each end
    overlap = [0.0] * nh
    for (a, b), v in conn.items():
        overlap[hof(b)] += min(v, conn.get((b, a), 0.0)) / 2
    ppn = max(host_of.count(h) for h in range(nh)) if nh else P
    m_rank = max(msgs_rank.values(), default=0) if row["sf"] == "basic" else int(math.ceil(max((sum(1 for (x, _) in msgs_rank if x == h) for h in range(nh)), default=0) / ppn))
    on_b = max((row["plan_hosts"][h]["on_bytes"] for h in hosts), default=0)
    on_m = max((row["plan_hosts"][h]["on_msgs"] for h in hosts), default=0)
    return {"P": P, "nh": nh, "ppn": ppn, "nnz": sum(row["rank_nnz"]), "rows": sum(row["rank_rows"]),
            "wire_hosts": [(max(out[h], inn[h]), overlap[h]) for h in range(nh)],
            "rndv": 1 if max(rndv, default=0) else 0, "net_phases": 1 if row["messages"] else 0, "m_rank": m_rank,
            "on_phases": (2 if row["sf"] == "nodeaware" and row["messages"] and ppn > 1 else 0) + (1 if on_m else 0),
            "m_on_rank": int(math.ceil(on_m / ppn)) if on_m else 0, "b_on": on_b, "cg_its": row.get("cg_its"),
            "allreduce_s": row.get("allreduce_s")}


def allreduce_rounds(P, ppn):
    inter = intra = 0
    d = 1
    while d < P:
        if d >= ppn:
            inter += 1
        else:
            intra += 1
        d *= 2
    return inter, intra


def predict_here(f, q, B):
    """MatMult and CG solve times of a configuration on the emulated hosts: every host shares this machine's
    cores, so a rank waiting for the wire leaves its core to the others: T = max(CPU, wire) + latencies"""
    cpu = q["tau"] * f["nnz"] + q["kappa"] * f["P"]
    wire = max((b + q.get("rho", 0.0) * w for b, w in f["wire_hosts"]), default=0.0) / B
    # a phase waits for its ranks to run (more ranks than cores): L per dependent phase, 2 L more for a rendezvous
    # (messages above the eager limit, concurrent: once), o and o_s per message of the busiest rank
    lat = q["L"] * (f["net_phases"] + 2 * f["rndv"]) + q["o"] * f["m_rank"] + q["L_s"] * f["on_phases"] + q["o_s"] * f["m_on_rank"] + f["b_on"] / q["B_s"]
    tm = max(cpu, wire) + lat
    # the reduction as the configuration's own job timed it; else the probe's for this many ranks (one per host, or all)
    red = f.get("allreduce_s") or (q.get("allreduce") or {}).get(f["P"])
    if red is None:
        inter, intra = allreduce_rounds(f["P"], f["ppn"])
        red = inter * (q["L"] + q["o"]) + intra * (q["L_s"] + q["o_s"])
    vec = q["tau"] * f["rows"] * VEC_PASSES * SCALAR / 12.0 + q["kappa"] * f["P"]
    tc = (f["cg_its"] * (tm + 3 * red + vec) + 2 * red) if f.get("cg_its") else None
    return tm, tc


def probe_bandwidth(probe):
    """a host's injection bandwidth: one rank sending 4 MiB to another host (the probe's injection test)"""
    inj = (probe or {}).get("injection") or {}
    one = inj.get("one")
    return one["bytes_each"] * F_TCP / one["seconds"] if one else None


def probe_allreduce(probe):
    """{ranks: seconds} of one MPI_Allreduce of a scalar, as the probe timed it (all ranks; one rank per host)"""
    return {int(k): v for k, v in ((probe or {}).get("allreduce") or {}).items()}


def at_bound(value):
    """True where a fitted value sits at a bound of its fit (within 1%): the data wanted it further"""
    return value is not None and (value >= 0.99 * FIT_BOUNDS[1] or value <= 1.01 * FIT_BOUNDS[0])


def _rel(pred, meas):
    return (pred - meas) / meas if meas else None


def _fit(figs, q0):
    """least squares of log(model / measured) MatMult over figs [(row, figures, B)]: (parameters, cost)"""
    from scipy.optimize import least_squares

    def unpack(x):
        return dict(q0, **{k: math.exp(v) for k, v in zip(FIT, x)})

    def resid(x):
        q = unpack(x)
        return [math.log(predict_here(f, q, b)[0] / r["mult_s"]) for r, f, b in figs]

    sol = least_squares(resid, [math.log(q0[k]) for k in FIT], bounds=([math.log(FIT_BOUNDS[0])] * len(FIT), [math.log(FIT_BOUNDS[1])] * len(FIT)))
    return unpack(sol.x), float(sol.cost)


def fit_and_validate(result):
    """the emulated hosts' parameters (B from the probe at each rate; tau, kappa, L, o, L_s, o_s, rho fitted to the
    MatMult times at every rate and the on-host run), MatMult validated leaving one matrix out (each matrix
    predicted by the parameters of the others), every CG solve predicted, and the cluster predictions"""
    rows = [r for r in result.get("rows", []) if r.get("mult_s")]
    if not rows or "error" in result.get("probe", {"error": 1}):
        return {"error": "no timed configurations or no probe"}
    rates = {r["label"]: r.get("rate_bps") for r in result["runs"]}
    first = max(v for v in rates.values() if v)
    B = {first: probe_bandwidth(result["probe"]) or first / 8}
    for r in result["runs"]:
        if r.get("rate_bps") and r["rate_bps"] not in B:
            B[r["rate_bps"]] = probe_bandwidth(result.get("probe_slow")) or B[first] * r["rate_bps"] / first
    figs = [(r, row_figures(r), B[rates[r["run"]]]) for r in rows]
    q0 = {"tau": 5e-9, "kappa": 1e-4, "L": 1e-3, "o": 1e-4, "L_s": 1e-4, "o_s": 1e-5, "rho": 0.3, "B_s": 5e9,
          "allreduce": probe_allreduce(result["probe"])}
    q, cost = _fit(figs, q0)
    matrices = sorted({r["matrix"] for r in rows})
    folds = {m: _fit([x for x in figs if x[0]["matrix"] != m], q0)[0] for m in matrices} if len(matrices) > 1 else {}
    val = []
    for r, f, b in figs:
        tm, tc = predict_here(f, q, b)
        th = predict_here(f, folds[r["matrix"]], b)[0] if folds else None
        val.append({"run": r["run"], "layout": r["layout"], "rate": r["rate"], "matrix": r["matrix"], "rows": r["rows"], "variant": r["variant"],
                    "mult_s": r["mult_s"], "mult_pred_s": tm, "mult_err": _rel(tm, r["mult_s"]), "mult_heldout_s": th, "mult_heldout_err": _rel(th, r["mult_s"]) if th else None,
                    "cg_solve_s": r.get("cg_solve_s"), "cg_pred_s": tc, "cg_err": _rel(tc, r.get("cg_solve_s")) if tc and r.get("cg_solve_s") else None})
    within = lambda xs: [sum(1 for x in xs if x is not None and abs(x) <= 0.25), sum(1 for x in xs if x is not None)]  # noqa: E731
    held_m = within([v["mult_heldout_err"] for v in val])
    fit_m = within([v["mult_err"] for v in val])
    cg = within([v["cg_err"] for v in val])
    wins = []
    for r in val:
        if r["variant"] in ("aij_nodeaware", "hybrid_nodeaware") and r["layout"] == "2x1" and not r["run"].startswith("onhost"):
            b = next((x for x in val if x["run"] == r["run"] and x["matrix"] == r["matrix"] and x["variant"] == r["variant"].replace("_nodeaware", "")), None)
            if b:
                wins.append({"run": r["run"], "rate": r["rate"], "matrix": r["matrix"], "pair": "%s / %s" % (b["variant"], r["variant"]),
                             "measured_ratio": b["mult_s"] / r["mult_s"], "model_ratio": b["mult_pred_s"] / r["mult_pred_s"],
                             "model_says_faster": b["mult_pred_s"] / r["mult_pred_s"] > 1.05, "measured_faster": b["mult_s"] / r["mult_s"] > 1.0})
    first_label = result.get("rate")
    says = [w for w in wins if w["model_says_faster"] and w["rate"] == first_label]
    q_out = dict(q, B_first=B[first], B_all={str(k): v for k, v in B.items()}, allreduce={str(k): v for k, v in q["allreduce"].items()})
    targets = [
        {"target": "model within 25% of the measured MatMult times of each matrix, fitted without that matrix", "met": held_m[1] > 0 and held_m[0] == held_m[1], "value": "%d of %d" % tuple(held_m)},
        {"target": "model within 25% of the measured CG + Jacobi solve times (none fitted)", "met": cg[1] > 0 and cg[0] == cg[1], "value": "%d of %d" % tuple(cg)},
        {"target": "at the first rate, MatMult with nodeaware at 4 x 2 faster than basic where the model says it should be",
         "met": all(w["measured_faster"] for w in says), "value": ("; ".join("%s %s: model %.2f, measured %.2f" % (w["matrix"], w["pair"], w["model_ratio"], w["measured_ratio"]) for w in says)
                                                                  or "the model says nodeaware is not faster anywhere at this rate (best model ratio %.2f)" % max([w["model_ratio"] for w in wins if w["rate"] == first_label] or [0]))},
    ]
    # rho only acts on rendezvous waiting: a fold whose matrices have none leaves it at its start value (None: not seen)
    waits = {m: any(w > 0 for r, f, b in figs if r["matrix"] != m for _, w in f["wire_hosts"]) for m in folds}
    return {"params_here": q_out, "fit_cost": cost, "rho_without": {m: (f["rho"] if waits[m] else None) for m, f in folds.items()}, "params_cluster": cluster_params(q, result), "validation": val,
            "within_25": {"mult_fit": fit_m, "mult_heldout": held_m, "cg": cg}, "nodeaware_wins": wins, "cluster": cluster_predictions(cluster_params(q, result)), "targets": targets}


def cluster_params(q, result):
    """the stated cluster, with this machine's time per nonzero of one core where it was measured (the on-host run at
    one rank per core would be cleaner; the fitted tau is per nonzero of the whole machine, so times its cores)"""
    return dict(CLUSTER)


# ------------------------------------------------------------------------------------------------
# the cluster


def cluster_predictions(q, nodes=NODES, layouts=LAYOUTS, weak_rows_per_node=1 << 20, strong_rows=1 << 24, matrices=("poisson7", "extruded", "powerlaw")):
    out = []
    for scaling in ("weak", "strong"):
        for m in matrices:
            for N in nodes:
                rows = weak_rows_per_node * N if scaling == "weak" else strong_rows
                nnz_node = NNZ_PER_ROW[m] * rows / N
                for lay in layouts:
                    R, T = (int(x) for x in lay.split("x"))
                    P = R * N
                    pat = pattern(m, rows, P, R)
                    for kind in ("basic", "nodeaware"):
                        if kind == "nodeaware" and R == 1:
                            continue  # one rank per node: the plan is basic's
                        tm = t_mult(pat[kind], kind, nnz_node, rows / N, q, q["cores"], T)
                        it = t_cg_it(pat[kind], kind, nnz_node, rows / N, q, q["cores"], P, R, T)
                        out.append({"scaling": scaling, "matrix": m, "nodes": N, "rows": rows, "layout": lay, "sf": kind,
                                    "mult_s": tm, "cg_it_s": it, "exchange_s": t_exchange(pat[kind], kind, q), "compute_s": t_compute(nnz_node, rows / N, q, q["cores"], T),
                                    "inter_msgs_node": pat["basic_max_node"][0] if kind == "basic" else pat["na_max_node"][0]})
    return out


def cluster_summary(rows):
    """per (scaling, matrix, nodes): the best configuration and the gains of nodeaware and of hybrid layouts"""
    out = []
    keys = sorted({(r["scaling"], r["matrix"], r["nodes"]) for r in rows}, key=lambda k: (k[0], k[1], k[2]))
    for k in keys:
        rs = [r for r in rows if (r["scaling"], r["matrix"], r["nodes"]) == k]
        best = min(rs, key=lambda r: r["cg_it_s"])
        flat = next(r for r in rs if r["layout"] == "64x1" and r["sf"] == "basic")
        flat_na = next((r for r in rs if r["layout"] == "64x1" and r["sf"] == "nodeaware"), None)
        hyb = min((r for r in rs if r["layout"] != "64x1"), key=lambda r: r["cg_it_s"])
        out.append({"scaling": k[0], "matrix": k[1], "nodes": k[2], "best": "%s %s" % (best["layout"], best["sf"]), "best_cg_it_s": best["cg_it_s"],
                    "flat_basic_cg_it_s": flat["cg_it_s"], "nodeaware_64x1_gain": flat["cg_it_s"] / flat_na["cg_it_s"] if flat_na else None,
                    "best_hybrid": "%s %s" % (hyb["layout"], hyb["sf"]), "hybrid_gain": flat["cg_it_s"] / hyb["cg_it_s"]})
    return out


def report(result):
    m = result.get("model") or {}
    if not m or "error" in m:
        return "model: %s" % (m.get("error") if m else "not fitted")
    lines = ["model parameters here: " + ", ".join("%s %.3g" % (k, v) for k, v in sorted(m["params_here"].items()) if not isinstance(v, dict))]
    lines.append("rho fitted without each matrix: " + ", ".join("%s %s" % (k, "%.3g" % v if v is not None else "not seen") for k, v in sorted(m.get("rho_without", {}).items())))
    lines.append("%-12s %-8s %-9s %-18s %10s %10s %7s %10s %7s %10s %10s %7s" % ("run", "layout", "matrix", "variant", "MatMult ms", "model ms", "err", "held out", "err", "CG s", "model s", "err"))
    pct = lambda x: "%+.0f%%" % (100 * x) if x is not None else "-"  # noqa: E731
    for v in m["validation"]:
        lines.append("%-12s %-8s %-9s %-18s %10.3f %10.3f %7s %10s %7s %10s %10s %7s" % (
            v["run"], v["layout"], v["matrix"], v["variant"], 1e3 * v["mult_s"], 1e3 * v["mult_pred_s"], pct(v["mult_err"]),
            "%.3f" % (1e3 * v["mult_heldout_s"]) if v.get("mult_heldout_s") else "-", pct(v.get("mult_heldout_err")),
            "%.4f" % v["cg_solve_s"] if v["cg_solve_s"] else "-", "%.4f" % v["cg_pred_s"] if v["cg_pred_s"] else "-", pct(v["cg_err"])))
    lines.append("within 25%%: MatMult fitted %d/%d, held out %d/%d; CG %d/%d" % tuple(m["within_25"]["mult_fit"] + m["within_25"]["mult_heldout"] + m["within_25"]["cg"]))
    lines.append("cluster (%s):" % m["params_cluster"]["name"])
    for s in cluster_summary(m["cluster"]):
        lines.append("  %-6s %-9s %5d nodes: best %-16s %.3g ms/CG it; 64x1 nodeaware %s; best hybrid %-14s %.2fx" % (
            s["scaling"], s["matrix"], s["nodes"], s["best"], 1e3 * s["best_cg_it_s"], "%.2fx" % s["nodeaware_64x1_gain"] if s["nodeaware_64x1_gain"] else "-", s["best_hybrid"], s["hybrid_gain"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", nargs="?")
    ap.add_argument("--cluster", action="store_true")
    args = ap.parse_args()
    if args.cluster or not args.result:
        for s in cluster_summary(cluster_predictions(CLUSTER)):
            print(s)
        return 0
    res = json.load(open(args.result))
    res["model"] = fit_and_validate(res)
    print(report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
