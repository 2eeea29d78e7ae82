#!/usr/bin/python3
"""A performance model of MatMult and CG + Jacobi with basic and nodeaware PetscSFs and R x T layouts
(docs/nodes.md): fitted to the emulated hosts (share/nodes/nodes.py full), validated against every
configuration measured there, and used to predict a stated cluster at 16 to 1024 nodes.

    python3 model.py RESULT.json            the fit, the validation and the cluster predictions of a run (its result,
                                            or a record of share/results/, e.g. share/results/nodes.json)
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
leaves its core to the others: MatMult T = max(CPU, wire) + latencies, CPU = tau_mt nnz + c_t + beta * wire
bytes + o_tcp * inter-host messages (all hosts'), wire = max over hosts of (max(bytes out, bytes in) + rho * waiting) / B. A nodeaware exchange
with more than one rank per host relays: a sender whose F2 messages carry other ranks' entries starts them only in
PetscSFBcastEnd, after its local product (relayed_senders, from the plan's sender rule and the basic messages of the
same matrix); then T = max(CPU + u relay, wire + own) + latencies (relay_core: relay the wire time of the relayed
messages, u = 1 for rendezvous or CPU >= wire, else CPU / wire; own the relaying rank's share of the product).
That is a CG iteration's product (its reductions synchronise the ranks); MatMults back to back (the measured
MatMult rows) with eager messages and the wire dominating pipeline the next product behind the relay: wire + own.
B_s is the probe's on-host ping-pong bandwidth (5 GB/s stated for records without it).
tau_mt, the CPU time per nonzero of matrix m and type t (aij, aijhybrid), is MEASURED, not fitted: the on-host
run (every rank on one host: shared memory, no network) of the same matrix, size and type with as many ranks and
threads as the configuration (8 x 1 for the 2x1 layouts, 4 x 2 for the 1x2 ones: 8 ranks on 2 cores switch far more
than 4), its fixed cost per product c_t taken off, divided by its nonzeros (onhost_inputs, onhost_input, cpu_time);
it includes that run's shared-memory exchange and its oversubscription of the cores. The small `counts` matrices
have on-host runs of their own (records before them extrapolate from the large size's time per nonzero; records
without the 4 x 2 run use the 8 x 1 one for every layout). The on-host rows are therefore inputs: predicted as
their own times, not counted. c_t is a fixed CPU cost per product of each type (what does not scale with nonzeros);
with an on-host run of every size it cancels from the CPU term (it still enters the relaying rank's own product)
and is barely determined; beta the CPU time per byte on the wire and o_tcp per inter-host message, all hosts'
messages (the kernel's and MPI's TCP work runs on the same cores: 8 ranks sending 6 messages each pay for 48).
"waiting": Open MPI's TCP rendezvous (messages above the eager limit) sends its clear-to-send back on the same TCP
connection as the receiver's own data to the sender, so on a rate-limited link it queues behind that data; per
connection (basic: a rank pair, nodeaware: a host pair) the rendezvous bytes both directions have in common, half
to each end host. B comes from the probe (one rank sending 4 MiB to another host, at each rate), the reductions of
CG from each configuration's own MPI_Allreduce timing (its ranks, threads and rate: the row's allreduce_s; the
probe's timings, all ranks or one rank per host, for older records); the rest of a CG iteration (vector operations,
Jacobi) is also measured on host per row of the same matrix and type: (solve - 2 reductions) / iterations - product
- 3 reductions. L, o, L_s, o_s, rho, c_aij, c_hybrid, beta and o_tcp are fitted (least squares of log(model / measured))
to the MatMult times at both rates, from a fixed set of starts (start_points: the reference FIT_START and a
two-level design around it, with its fold-over), keeping the lowest cost (multi_start): the same record gives the
same fit. rho is only seen where the wire dominates (at 1 Gbit/s the fit's cost hardly changes between rho 0 and
0.4, so a fit to the first rate alone drifted between records).
MatMult is validated leaving one matrix out: each matrix's times predicted by the parameters fitted to the other
matrices' times, with its own on-host measurement as an input (like the probe's bandwidth: measured on this
machine, no network in it); a fold whose matrices have no rendezvous waiting does not fit rho (it stays at its
start value and is reported as not seen). Every CG solve is a prediction (the on-host ones are inputs).

Cluster (CLUSTER): 64 cores and a 100 Gbit/s NIC per node, network latency 2 us, 1 us per message
and rank, 0.05 us per message of a node's NIC; shared memory and t_nz stated, of this machine's kind (not
taken from the fit: the emulated hosts' tau_mt is per nonzero of 8 ranks on 2 cores, exchange included, and
their c_t, beta and rho belong to kernel TCP on shared cores); 200 GB/s of memory per node. Communication patterns at scale: poisson7 exactly (intervals
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
    return sum(nodeaware_phases(p, q).values())


def nodeaware_phases(p, q):
    """the phases of one nodeaware exchange of the busiest node: f1 (gather on the node), f2 (between nodes), f3
    (scatter on the node) and direct (on-node messages of the plan's own)"""
    g = q.get("g_nic", 0.0)
    f2 = 0.0
    if p["m2"] > 0:
        f2 = q["L"] + max(q["o"] * p["m2_rank"], g * p["m2"], (p["b2"] * F_TCP + p["m2"] * H_MSG) / q["B"], (p["b2_in"] * F_TCP + p["m2_in"] * H_MSG) / q["B"])
    f1 = (q["L_s"] + q["o_s"] * p["m1"] + _copy(p["b1"] / p.get("s1", 1), p["b1"], q)) if p["m1"] > 0 else 0.0
    f3 = (q["L_s"] + q["o_s"] * p["m3"] + _copy(p["b3"] / p.get("s3", 1), p["b3"], q)) if p["m3"] > 0 else 0.0
    direct = (q["L_s"] + q["o_s"] * p["m_on"] + _copy(p["b_on"], p.get("b_on_node", 0.0), q)) if p["m_on"] > 0 else 0.0
    return {"f1": f1, "f2": f2, "f3": f3, "direct": direct}


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


def overlapped(compute_s, p, kind, q, exchange_s=None):
    """MatMult with the exchange overlapped with a product of compute_s seconds, the other bound of t_mult (which
    adds them): basic posts every message at PetscSFBcastBegin, so the product hides up to all of its exchange
    (exchange_s, t_exchange's when not given); a nodeaware sender whose inter-node messages carry other ranks' entries
    starts them only in PetscSFBcastEnd, after its product (the relay of the emulated hosts: relayed_senders,
    relay_core; on the cluster every sender is taken to relay, its upper bound), so only the on-node gather and direct
    messages hide behind the product, the inter-node phase and the on-node scatter follow it."""
    if kind == "basic":
        return max(compute_s, t_exchange(p, kind, q) if exchange_s is None else exchange_s)
    ph = nodeaware_phases(p, q)
    return max(compute_s, ph["f1"] + ph["direct"]) + ph["f2"] + ph["f3"]


def t_mult_overlap(p, kind, nnz_node, rows_node, q, cores, threads=1):
    """t_mult's other bound: the product and the exchange overlapped (overlapped())"""
    return overlapped(t_compute(nnz_node, rows_node, q, cores, threads), p, kind, q)


def t_cg_it(t_mult_s, rows_node, q, cores, P, ppn, threads=1):
    """one CG iteration of a node: a MatMult of t_mult_s seconds (t_mult or t_mult_overlap), three allreduces and the
    vector passes at the node's memory bandwidth"""
    bmem = q["B_mem"] * (q.get("numa_penalty", 1.0) if threads > cores / q.get("numa", 1) else 1.0)
    return t_mult_s + 3 * t_allreduce(P, ppn, q) + VEC_PASSES * SCALAR * rows_node / bmem


# ------------------------------------------------------------------------------------------------
# fit to the emulated hosts and validation


EAGER = 65536  # Open MPI's btl_tcp_eager_limit: a larger message waits for the receiver (rendezvous: one more round trip)
FIT = ("L", "o", "L_s", "o_s", "rho", "c_aij", "c_hybrid", "beta", "o_tcp")
FIT_BOUNDS = (1e-12, 1.0)  # every fitted parameter (seconds, or rho's fraction) within these
# the fit's reference start; the others are a two-level design around it (start_points)
FIT_START = {"L": 1e-3, "o": 1e-4, "L_s": 1e-4, "o_s": 1e-5, "rho": 0.3, "c_aij": 1e-5, "c_hybrid": 1e-5, "beta": 1e-9, "o_tcp": 1e-6}


def host_ranks(row):
    """the ranks of each emulated host of a measured configuration, in rank order (host index = plan_hosts' order)"""
    host_of = row["host_of_rank"]
    return [[r for r in range(len(host_of)) if host_of[r] == h] for h in range(len(row["plan_hosts"]))]


def pair_sender(ranks, M, N):
    """the rank of host M that sends host M's messages to host N in a nodeaware exchange (src/sf/nodeplan.h: N mod
    the ranks of M); ranks: host_ranks()"""
    return ranks[M][N % len(ranks[M])]


def relayed_senders(row, basic_messages=None):
    """the ranks whose inter-host phase (F2) of a nodeaware exchange relays entries of other ranks of their host,
    and so starts only in PetscSFBcastEnd, after the rank's local product (src/sf/sfnodecomm.c: a step whose entries
    all come from the rank's own roots starts at PetscSFBcastBegin, the others in Advance from the End). The sender of
    host pair (M, N) is the rank N mod ppn_M of M (src/sf/nodeplan.h); it relays when a basic message from M to N
    (basic_messages: [(from rank, to rank, bytes)] of the same matrix and ranks) comes from another rank of M. Without
    basic_messages every sender is taken to relay. Empty for basic and for one rank per host (no relays)."""
    host_of = row["host_of_rank"]
    ranks = host_ranks(row)
    if row["sf"] != "nodeaware" or not ranks or max(len(x) for x in ranks) <= 1:
        return set()
    sender = lambda M, N: pair_sender(ranks, M, N)  # noqa: E731
    if basic_messages is None:
        return {sender(M, N) for M, N, _ in row["messages"]}
    return {sender(host_of[q], host_of[r]) for q, r, _ in basic_messages if q != sender(host_of[q], host_of[r])}


def row_figures(row, basic_messages=None, cores=None):
    """what the model of the emulated hosts needs of a measured configuration, from its plan and messages (a nodeaware
    row's relays from basic_messages, see relayed_senders; cores: this machine's, for a rank's share of the product)"""
    host_of = row["host_of_rank"]
    hosts = sorted(row["plan_hosts"])
    nh = len(hosts)
    P = len(host_of)
    out, inn, rndv = [0.0] * nh, [0.0] * nh, [0] * nh
    msgs_rank = {}
    conn = {}  # rendezvous bytes per connection and direction (basic: rank pairs; nodeaware: host pairs)
    hof = (lambda r: host_of[r]) if row["sf"] == "basic" else (lambda r: r)  # noqa: E731  (nodeaware: messages are host pairs)
    relays = relayed_senders(row, basic_messages)
    ranks = host_ranks(row)
    r_out, r_in = [0.0] * nh, [0.0] * nh  # bytes of relayed messages (nodeaware: host pairs whose sender relays)
    for a, b, nbytes in row["messages"]:
        ha, hb = hof(a), hof(b)
        out[ha] += nbytes * F_TCP + H_MSG
        inn[hb] += nbytes * F_TCP + H_MSG
        if relays and pair_sender(ranks, a, b) in relays:
            r_out[ha] += nbytes * F_TCP + H_MSG
            r_in[hb] += nbytes * F_TCP + H_MSG
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
    return {"P": P, "nh": nh, "ppn": ppn, "nnz": sum(row["rank_nnz"]), "rows": sum(row["rank_rows"]), "matrix": row.get("matrix"), "type": row.get("type"),
            "wire_hosts": [(max(out[h], inn[h]), overlap[h]) for h in range(nh)], "wire_total": sum(out), "wire_msgs": len(row["messages"]),
            "relay_hosts": [min(1.0, max(r_out[h], r_in[h]) / max(out[h], inn[h])) if max(out[h], inn[h]) else 0.0 for h in range(nh)],
            "rank_share": (cores / P) if cores else 0.0, "relay_assumed": bool(relays) and basic_messages is None,
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


def fixed_cost(mtype, q):
    """the fixed CPU cost of one product of a matrix type (aij, aijhybrid): what does not scale with the nonzeros"""
    return q.get("c_hybrid" if mtype == "mpiaijhybrid" else "c_aij", 0.0)


def cpu_time(f, q):
    """the CPU time of one product of a configuration on this machine's cores: the on-host run's time per nonzero of
    the same matrix and type (f["onhost"], measured; its fixed cost per product taken off) times the nonzeros, plus
    the type's fixed cost per product, plus beta per byte and o_tcp per message on the wire (all hosts': the kernel's
    and MPI's TCP work runs on the same cores). Without an on-host measurement: q["tau"] per nonzero (stated)."""
    ref = f.get("onhost")
    tau = cpu_per_nnz(ref, f.get("type"), q) if ref else q.get("tau", 0.0)
    return tau * f["nnz"] + fixed_cost(f.get("type"), q) + q.get("beta", 0.0) * f.get("wire_total", 0.0) + q.get("o_tcp", 0.0) * f.get("wire_msgs", 0)


def cpu_per_nnz(ref, mtype, q):
    """the CPU time per nonzero of a matrix type's products measured by its on-host run ref (onhost_inputs), the
    type's fixed cost per product taken off"""
    return max(0.0, ref["mult_s"] - fixed_cost(mtype, q)) / ref["nnz"]


def relay_core(cpu, wire, relay, f, q, loop=False):
    """MatMult without latencies when a nodeaware exchange relays (relay: the busiest host's wire time of relayed
    messages, their rendezvous waiting included): those bytes leave only after the relaying rank's local product.
    Where the cores are busy (CPU >= wire) every rank's product ends with the others' (shared cores): CPU + relay.
    Where the wire dominates, an eager message's bytes queue in the socket behind the previous product's, so the
    relay costs the relaying rank's own product (rank_share of the on-host product: its cores / ranks) and the part
    cpu / wire of the relayed time (the cores' utilisation); a rendezvous message's body waits for the receiver's
    clear-to-send, sent from its End: nothing queues ahead, CPU + relay at any rate.
    loop: MatMults back to back with nothing between them (the measured MatMult rows): where the wire dominates and
    the messages are eager, the ranks that are not relaying start the next product while the relayed bytes are on
    the wire, so the products hide behind it and the relay costs only the relaying rank's own product: wire + own.
    CG's reductions synchronise the ranks between its products, so a CG iteration pays the bound above."""
    ref = f.get("onhost")
    own = (cpu_per_nnz(ref, f.get("type"), q) * f["nnz"] + fixed_cost(f.get("type"), q)) * f.get("rank_share", 0.0) if ref else 0.0
    if loop and not f.get("rndv") and wire > cpu:
        return wire + own
    u = 1.0 if f.get("rndv") or wire <= 0 else min(1.0, cpu / wire)
    return max(cpu + u * relay, wire + own)


def predict_here(f, q, B):
    """MatMult (back to back, as the worker times it) and CG solve times of a configuration on the emulated hosts:
    every host shares this machine's cores, so a rank waiting for the wire leaves its core to the others:
    T = max(CPU, wire) + latencies; a nodeaware relay as relay_core() says, for the MatMult loop (loop=True) and for
    CG's products (between reductions). A configuration on one host (the on-host run) is its own CPU input: T = CPU
    (its measured time)."""
    cpu = cpu_time(f, q)
    if f["nh"] <= 1 and f.get("onhost"):
        tm = tm_loop = cpu
    else:
        wires = [(b + q.get("rho", 0.0) * w) / B for b, w in f["wire_hosts"]]
        wire = max(wires, default=0.0)
        core = max(cpu, wire)
        relay = max((phi * t for phi, t in zip(f.get("relay_hosts") or [], wires)), default=0.0)
        core_loop = core
        if relay > 0:
            core_loop = max(core, relay_core(cpu, wire, relay, f, q, loop=True))
            core = max(core, relay_core(cpu, wire, relay, f, q))
        # a phase waits for its ranks to run (more ranks than cores): L per dependent phase, 2 L more for a rendezvous
        # (messages above the eager limit, concurrent: once), o and o_s per message of the busiest rank
        lat = q["L"] * (f["net_phases"] + 2 * f["rndv"]) + q["o"] * f["m_rank"] + q["L_s"] * f["on_phases"] + q["o_s"] * f["m_on_rank"] + f["b_on"] / q["B_s"]
        tm_loop = core_loop + lat
        tm = core + lat
    # the reduction as the configuration's own job timed it; else the probe's for this many ranks (one per host, or all)
    red = f.get("allreduce_s") or (q.get("allreduce") or {}).get(f["P"])
    if red is None:
        inter, intra = allreduce_rounds(f["P"], f["ppn"])
        red = inter * (q["L"] + q["o"]) + intra * (q["L_s"] + q["o_s"])
    # the rest of a CG iteration (vector operations, Jacobi): measured on host per row of the same matrix and type;
    # without that measurement, VEC_PASSES vector passes at tau per 12 bytes
    ref = f.get("onhost")
    if ref and ref.get("cg_rest_s") is not None:
        vec = ref["cg_rest_s"] * f["rows"] / ref["rows"]
    else:
        vec = q.get("tau", 0.0) * f["rows"] * VEC_PASSES * SCALAR / 12.0
    tc = (f["cg_its"] * (tm + 3 * red + vec) + 2 * red) if f.get("cg_its") else None
    return tm_loop, tc


def _rows_of(r):
    """the global rows of a measured configuration (its matrix's size)"""
    return r.get("rows") or sum(r["rank_rows"])


def onhost_inputs(rows, by_layout=False):
    """the on-host runs' measurements (every rank on one host: shared memory only, no network), per (matrix, rows,
    type), or per (matrix, rows, type, ranks, threads) with by_layout: its MatMult time, nonzeros and rows, and the
    time of a CG iteration besides its product and its three reductions (cg_rest_s: (solve - 2 reductions) /
    iterations - product - 3 reductions, with the job's own reduction time), and its layout (each validation row
    names the on-host run that gave its CPU input: cpu_input). Per (matrix, rows, type), the run with the most ranks
    (the reference: the layout with one thread per rank). The rows tell the sizes of a matrix apart (the small
    `counts` ones and the large ones have on-host runs of their own)."""
    out = {}
    for r in sorted((r for r in rows if len(set(r["host_of_rank"])) == 1 and r.get("mult_s")), key=lambda r: -len(r["host_of_rank"])):
        key = (r["matrix"], _rows_of(r), r["type"]) + ((len(r["host_of_rank"]), r.get("threads") or 1) if by_layout else ())
        if key in out:
            continue  # one on-host run per key: the first row of it
        rest = None
        if r.get("cg_solve_s") and r.get("cg_its") and r.get("allreduce_s") is not None:
            rest = max(0.0, (r["cg_solve_s"] - 2 * r["allreduce_s"]) / r["cg_its"] - r["mult_s"] - 3 * r["allreduce_s"])
        out[key] = {"mult_s": r["mult_s"], "nnz": sum(r["rank_nnz"]), "rows": sum(r["rank_rows"]), "cg_rest_s": rest,
                    "layout": "%dx%d" % (len(r["host_of_rank"]), r.get("threads") or 1)}
    return out


def onhost_input(inputs, row):
    """the CPU input of a measured configuration: the on-host run of its matrix (and size) and type with as many ranks
    and threads (the same oversubscription of this machine's cores: 8 ranks on 2 cores switch far more than 4), else
    the reference on-host run of that matrix and size (onhost_inputs; records before the per-layout on-host runs),
    else the largest size of the matrix that has one (records before the on-host runs of the `counts` matrices: their
    time per nonzero extrapolated); None without any; inputs: the pair (onhost_inputs(rows), onhost_inputs(rows,
    by_layout=True))"""
    ref, lay = inputs
    m, n, t = row["matrix"], _rows_of(row), row["type"]
    got = lay.get((m, n, t, len(row["host_of_rank"]), row.get("threads") or 1)) or ref.get((m, n, t))
    if got is None:
        other = sorted((k for k in ref if k[0] == m and k[2] == t), key=lambda k: -k[1])
        got = ref[other[0]] if other else None
    return got


def probe_bandwidth(probe):
    """a host's injection bandwidth: one rank sending 4 MiB to another host (the probe's injection test)"""
    inj = (probe or {}).get("injection") or {}
    one = inj.get("one")
    return one["bytes_each"] * F_TCP / one["seconds"] if one else None


B_S_STATED = 5e9  # on-host copies without a probe measurement (records before the probe's pingpong_intra)


def probe_intra_bandwidth(probe):
    """the on-host (shared-memory) bandwidth between two ranks of one host: the slope of the probe's ping-pong inside
    host 0 between its two largest sizes (latency taken off); None without that measurement"""
    pp = sorted((probe or {}).get("pingpong_intra") or [])
    if len(pp) < 2 or pp[-1][1] <= pp[-2][1]:
        return None
    (n0, t0), (n1, t1) = pp[-2], pp[-1]
    return (n1 - n0) / (t1 - t0)


def probe_allreduce(probe):
    """{ranks: seconds} of one MPI_Allreduce of a scalar, as the probe timed it (all ranks; one rank per host)"""
    return {int(k): v for k, v in ((probe or {}).get("allreduce") or {}).items()}


def bound_side(value, bounds=FIT_BOUNDS):
    """"upper" or "lower" where a fitted value sits at that bound of its fit (within 1%): the data wanted it
    further that way; None inside (or no value)"""
    if value is None:
        return None
    if value >= 0.99 * bounds[1]:
        return "upper"
    if value <= 1.01 * bounds[0]:
        return "lower"
    return None


def at_bound(value, side=None):
    """True where a fitted value sits at a bound of its fit (within 1%): either bound, or only side ("upper", "lower")"""
    s = bound_side(value)
    return s is not None and (side is None or s == side)


def _rel(pred, meas):
    return (pred - meas) / meas if meas else None


def start_points(names, q0=None):
    """the fit's starting points, in log space: q0 first, then the rows of a two-level design over the parameters
    (Sylvester-Hadamard, its first column dropped) and the same rows with the levels swapped (fold-over); low is
    q0 / 100, high 10 q0 (rho: 0.05 and 0.9), within FIT_BOUNDS. Fixed: the same starts for every record and fold."""
    q0 = q0 or FIT_START
    lo = {k: (0.05 if k == "rho" else max(FIT_BOUNDS[0], q0[k] / 100)) for k in names}
    hi = {k: (0.9 if k == "rho" else min(FIT_BOUNDS[1], q0[k] * 10)) for k in names}
    H = np.array([[1]])
    while H.shape[0] < len(names) + 1:
        H = np.block([[H, H], [H, -H]])
    design = H[:, 1:len(names) + 1]
    starts = [[math.log(q0[k]) for k in names]]
    for sign in (1, -1):
        for row in design:
            starts.append([math.log(hi[k] if sign * v > 0 else lo[k]) for k, v in zip(names, row)])
    return starts


def multi_start(resid, starts, lower, upper):
    """least squares of resid from each start (within the bounds): (x, cost, index of its start) of the lowest cost;
    ties go to the earlier start, so the result does not depend on anything but the starts"""
    from scipy.optimize import least_squares

    best = None
    for i, x0 in enumerate(starts):
        sol = least_squares(resid, np.clip(x0, lower, upper), bounds=(lower, upper), xtol=1e-12, ftol=1e-12, gtol=1e-12)
        if best is None or sol.cost < best[1] * (1 - 1e-9):
            best = (np.array(sol.x), float(sol.cost), i)
    return best


def _fit(figs, q0, names=FIT):
    """least squares of log(model / measured) MatMult over figs [(row, figures, B)] but the on-host rows (inputs),
    from every start of start_points: (parameters, cost). Parameters not in names stay at q0's value."""

    def unpack(x):
        return dict(q0, **{k: math.exp(v) for k, v in zip(names, x)})

    fitted = [(r, f, b) for r, f, b in figs if not _is_input(f)]

    def resid(x):
        q = unpack(x)
        return [math.log(predict_here(f, q, b)[0] / r["mult_s"]) for r, f, b in fitted]

    n = len(names)
    x, cost, _ = multi_start(resid, start_points(names, q0), np.full(n, math.log(FIT_BOUNDS[0])), np.full(n, math.log(FIT_BOUNDS[1])))
    return unpack(x), cost


def _is_input(f):
    """the on-host run's rows: their MatMult and CG times are the CPU inputs, not predictions"""
    return f["nh"] <= 1 and bool(f.get("onhost"))


def fit_names(figs):
    """the parameters the rows determine: FIT, but a type's fixed cost per product (c_aij, c_hybrid) only where some
    configuration of that type takes its CPU input from an on-host run of another size (extrapolated per nonzero);
    where every size has its own on-host run the fixed cost cancels from the model (cpu_time, relay_core) and is not
    fitted (it stays at its start value, unused)"""
    extrapolated = {f.get("type") for r, f, b in figs if not _is_input(f) and f.get("onhost") and f["onhost"]["nnz"] != f["nnz"]}
    unused = {"c_aij"} if "mpiaij" not in extrapolated else set()
    unused |= {"c_hybrid"} if "mpiaijhybrid" not in extrapolated else set()
    return tuple(k for k in FIT if k not in unused)


def fit_and_validate(result):
    """the emulated hosts' parameters (B from the probe at each rate; the CPU time per nonzero of each matrix and type
    measured by the on-host run; L, o, L_s, o_s, rho and the fixed costs per product c_aij, c_hybrid fitted to the
    MatMult times at every rate, from several starts), MatMult validated leaving one matrix out (each matrix predicted
    by the parameters of the others and its own on-host input), every CG solve predicted, and the cluster predictions"""
    rows = [r for r in result.get("rows", []) if r.get("mult_s")]
    if not rows or "error" in result.get("probe", {"error": 1}):
        return {"error": "no timed configurations or no probe"}
    inputs = (onhost_inputs(rows), onhost_inputs(rows, by_layout=True))
    missing = sorted({"%s %s" % (r["matrix"], r["type"]) for r in rows if onhost_input(inputs, r) is None})
    if missing:
        return {"error": "no on-host run (every rank on one host) of %s: the CPU input of its products" % ", ".join(missing)}
    rates = {r["label"]: r.get("rate_bps") for r in result["runs"]}
    first = max(v for v in rates.values() if v)
    B = {first: probe_bandwidth(result["probe"]) or first / 8}
    for r in result["runs"]:
        if r.get("rate_bps") and r["rate_bps"] not in B:
            B[r["rate_bps"]] = probe_bandwidth(result.get("probe_slow")) or B[first] * r["rate_bps"] / first
    figs = []
    basic = {(r["run"], r["matrix"]): r["messages"] for r in rows if r["sf"] == "basic"}  # same ranks and pattern
    cores = (result.get("machine") or {}).get("cores")
    for r in rows:
        f = row_figures(r, basic.get((r["run"], r["matrix"])), cores)
        f["onhost"] = onhost_input(inputs, r)
        figs.append((r, f, B[rates[r["run"]]]))
    bs = probe_intra_bandwidth(result["probe"])
    q0 = dict(FIT_START, B_s=bs or B_S_STATED, allreduce=probe_allreduce(result["probe"]))
    names = fit_names(figs)
    q, cost = _fit(figs, q0, names)
    matrices = sorted({r["matrix"] for r in rows})
    # rho only acts on rendezvous waiting: a fold whose matrices have none does not fit it (it stays at its start value)
    waits = {m: any(w > 0 for r, f, b in figs if r["matrix"] != m and not _is_input(f) for _, w in f["wire_hosts"]) for m in matrices}
    folds = {m: _fit([x for x in figs if x[0]["matrix"] != m], q0, names if waits[m] else tuple(k for k in names if k != "rho"))[0]
             for m in matrices} if len(matrices) > 1 else {}
    val = []
    for r, f, b in figs:
        tm, tc = predict_here(f, q, b)
        th = predict_here(f, folds[r["matrix"]], b)[0] if folds else None
        v = {"run": r["run"], "layout": r["layout"], "rate": r["rate"], "matrix": r["matrix"], "rows": r["rows"], "variant": r["variant"], "mult_role": "fit",
             "mult_s": r["mult_s"], "mult_pred_s": tm, "mult_err": _rel(tm, r["mult_s"]), "mult_heldout_s": th, "mult_heldout_err": _rel(th, r["mult_s"]) if th else None,
             "cg_solve_s": r.get("cg_solve_s"), "cg_pred_s": tc, "cg_err": _rel(tc, r.get("cg_solve_s")) if tc and r.get("cg_solve_s") else None,
             "cpu_input": (f["onhost"] or {}).get("layout")}
        if _is_input(f):  # the on-host rows are the CPU inputs: shown, not counted
            v.update(mult_role="input", mult_err=None, mult_heldout_s=None, mult_heldout_err=None, cg_err=None)
        val.append(v)
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
    cpu = {"%s %d %s" % k: cpu_per_nnz(v, k[2], q) for k, v in sorted(inputs[0].items())}
    cpu_layout = {"%s %d %s %dx%d" % k: cpu_per_nnz(v, k[2], q) for k, v in sorted(inputs[1].items())}
    q_out = dict(q, fitted=list(names), B_first=B[first], B_s_source="probe pingpong_intra" if bs else "stated (no on-host ping-pong in the probe)",
                 relays_assumed=sorted({"%s %s" % (r["run"], r["matrix"]) for r, f, b in figs if f.get("relay_assumed")}), B_all={str(k): v for k, v in B.items()}, allreduce={str(k): v for k, v in q["allreduce"].items()}, cpu_per_nnz=cpu,
                 cpu_per_nnz_layout=cpu_layout)
    targets = [
        {"target": "model within 25% of the measured MatMult times of each matrix, fitted without that matrix (the on-host run is an input)", "met": held_m[1] > 0 and held_m[0] == held_m[1], "value": "%d of %d" % tuple(held_m)},
        {"target": "model within 25% of the measured CG + Jacobi solve times (none fitted; the on-host run's are inputs)", "met": cg[1] > 0 and cg[0] == cg[1], "value": "%d of %d" % tuple(cg)},
        {"target": "at the first rate, MatMult with nodeaware at 4 x 2 faster than basic where the model says it should be",
         "met": all(w["measured_faster"] for w in says), "value": ("; ".join("%s %s: model %.2f, measured %.2f" % (w["matrix"], w["pair"], w["model_ratio"], w["measured_ratio"]) for w in says)
                                                                  or "the model says nodeaware is not faster anywhere at this rate (best model ratio %.2f)" % max([w["model_ratio"] for w in wins if w["rate"] == first_label] or [0]))},
    ]
    qc = cluster_params(q, result)
    return {"params_here": q_out, "fit_cost": cost, "rho_without": {m: (f["rho"] if waits[m] else None) for m, f in folds.items()}, "params_cluster": qc, "validation": val,
            "within_25": {"mult_fit": fit_m, "mult_heldout": held_m, "cg": cg}, "nodeaware_wins": wins, "cluster": cluster_predictions(qc), "targets": targets}


def cluster_params(q, result):
    """the stated cluster (CLUSTER), as it is: none of the emulated hosts' parameters carry over. Their CPU time per
    nonzero (params_here cpu_per_nnz) is that of 8 ranks on 2 cores with the on-host exchange included, an upper
    bound of a core's t_nz; c_t, beta and rho are costs of kernel TCP on shared cores, which an RDMA network with
    a core per rank does not have. q and result are kept for a cluster stated from a record's measurements."""
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
                        c, x = t_compute(nnz_node, rows / N, q, q["cores"], T), t_exchange(pat[kind], kind, q)
                        tm, tmo = c + x, overlapped(c, pat[kind], kind, q, x)
                        out.append({"scaling": scaling, "matrix": m, "nodes": N, "rows": rows, "layout": lay, "sf": kind,
                                    "mult_s": tm, "cg_it_s": t_cg_it(tm, rows / N, q, q["cores"], P, R, T), "mult_overlap_s": tmo,
                                    "cg_it_overlap_s": t_cg_it(tmo, rows / N, q, q["cores"], P, R, T), "exchange_s": x, "compute_s": c,
                                    "inter_msgs_node": pat["basic_max_node"][0] if kind == "basic" else pat["na_max_node"][0]})
    return out


def cluster_summary(rows):
    """per (scaling, matrix, nodes): the best configuration and the gains of nodeaware and of hybrid layouts, with
    the product and the exchange added (t_mult), and nodeaware's gain and the best configuration with them
    overlapped (t_mult_overlap: the bracket's other end)"""
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
        if all("cg_it_overlap_s" in r for r in rs):
            bo = min(rs, key=lambda r: r["cg_it_overlap_s"])
            out[-1].update(best_overlap="%s %s" % (bo["layout"], bo["sf"]),
                           nodeaware_64x1_gain_overlap=flat["cg_it_overlap_s"] / flat_na["cg_it_overlap_s"] if flat_na else None)
    return out


def report(result):
    m = result.get("model") or {}
    if not m or "error" in m:
        return "model: %s" % (m.get("error") if m else "not fitted")
    lines = ["model parameters here: " + ", ".join("%s %.3g" % (k, v) for k, v in sorted(m["params_here"].items()) if isinstance(v, (int, float))) + "; B_s: %s" % m["params_here"].get("B_s_source", "stated")]
    if m["params_here"].get("cpu_per_nnz"):
        lines.append("CPU per nonzero (on-host run, input): " + ", ".join("%s %.3g ns" % (k, 1e9 * v) for k, v in sorted(m["params_here"]["cpu_per_nnz"].items())))
    lines.append("rho fitted without each matrix: " + ", ".join("%s %s" % (k, "%.3g" % v if v is not None else "not seen") for k, v in sorted(m.get("rho_without", {}).items())))
    lines.append("%-12s %-8s %-9s %-18s %10s %10s %7s %10s %7s %10s %10s %7s" % ("run", "layout", "matrix", "variant", "MatMult ms", "model ms", "err", "held out", "err", "CG s", "model s", "err"))
    pct = lambda x: "%+.0f%%" % (100 * x) if x is not None else "-"  # noqa: E731
    for v in m["validation"]:
        inp = v.get("mult_role") == "input"
        lines.append("%-12s %-8s %-9s %-18s %10.3f %10.3f %7s %10s %7s %10s %10s %7s" % (
            v["run"], v["layout"], v["matrix"], v["variant"], 1e3 * v["mult_s"], 1e3 * v["mult_pred_s"], "input" if inp else pct(v["mult_err"]),
            "%.3f" % (1e3 * v["mult_heldout_s"]) if v.get("mult_heldout_s") else "-", pct(v.get("mult_heldout_err")),
            "%.4f" % v["cg_solve_s"] if v["cg_solve_s"] else "-", "%.4f" % v["cg_pred_s"] if v["cg_pred_s"] else "-", "input" if inp else pct(v["cg_err"])))
    lines.append("within 25%%: MatMult fitted %d/%d, held out %d/%d; CG %d/%d" % tuple(m["within_25"]["mult_fit"] + m["within_25"]["mult_heldout"] + m["within_25"]["cg"]))
    lines.append("cluster (%s):" % m["params_cluster"]["name"])
    for s in cluster_summary(m["cluster"]):
        lines.append("  %-6s %-9s %5d nodes: best %-16s %.3g ms/CG it; 64x1 nodeaware %s; best hybrid %-14s %.2fx; overlapped: best %s, 64x1 nodeaware %s" % (
            s["scaling"], s["matrix"], s["nodes"], s["best"], 1e3 * s["best_cg_it_s"], "%.2fx" % s["nodeaware_64x1_gain"] if s["nodeaware_64x1_gain"] else "-", s["best_hybrid"], s["hybrid_gain"],
            s.get("best_overlap", "-"), "%.2fx" % s["nodeaware_64x1_gain_overlap"] if s.get("nodeaware_64x1_gain_overlap") else "-"))
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
    if "rows" not in res and isinstance(res.get("result"), dict):
        res = res["result"]  # a record of share/results/ (meta, result): its result
    res["model"] = fit_and_validate(res)
    print(report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
