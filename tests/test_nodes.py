"""Several nodes on one machine (share/nodes/, docs/nodes.md, make test-nodes).

Without root (or where network namespaces, veth pairs, UTS namespaces or tc are not available) the
tests that need emulated hosts are skipped, with the reason. With them:

- the short check of make test-nodes (share/nodes/nodes.py quick, about half a minute): 4 emulated
  hosts, each rank's host name and MPI_COMM_TYPE_SHARED group, a message inside a host off the wire
  and one between hosts on it; the halo exchange of a 7-point Poisson and a power-law matrix at
  4 hosts x 2 ranks with basic and nodeaware PetscSFs (node detection by host name): TCP data
  segments per host pair counted on the hosts' interfaces equal the plan's messages (every message is
  one segment at these sizes), the bytes equal the plan's plus Open MPI's and TCP/IP's headers, and
  nodeaware sends at most one message per host pair;
- an interrupted run (SIGTERM while the hosts are up) leaves no namespace, link or process behind.

Always: the predictions of the wire (segments and bytes of a message) and the performance model's
communication patterns (share/nodes/model.py) against patterns built from the benchmark matrices'
own generators.
"""

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "share" / "nodes"))
sys.path.insert(0, str(ROOT / "python"))
import hosts  # noqa: E402
import model  # noqa: E402
import nodes  # noqa: E402

import mpirun  # noqa: E402

PYTHON = mpirun.PYTHON


@pytest.fixture(scope="module")
def emulation():
    why = hosts.unsupported_reason()
    if why:
        pytest.skip("no emulated hosts here: %s" % why)
    return True


def test_quick_wire_counts_match_the_plan(emulation, tmp_path):
    out = tmp_path / "quick.json"
    p = subprocess.run([PYTHON, str(ROOT / "share" / "nodes" / "nodes.py"), "quick", "--build", str(mpirun.BUILD), "--json", str(out)],
                       capture_output=True, text=True, timeout=900)
    assert out.exists(), p.stdout[-4000:] + p.stderr[-4000:]
    d = json.loads(out.read_text())
    bad = [c for c in d["checks"] if not c["ok"]]
    assert not bad and p.returncode == 0, json.dumps(bad, indent=1) + p.stdout[-3000:]
    names = {c["check"] for c in d["checks"]}
    for m in ("poisson7", "powerlaw"):
        for v in ("aij", "aij_nodeaware", "hybrid_nodeaware"):
            assert "counts-2x1 %s %s 2x1: data segments per host pair = plan's messages" % (m, v) in names
    rows = {(r["matrix"], r["variant"]): r for r in d["rows"]}
    # the power-law graph: 48 rank pairs across hosts for basic, 12 host pairs for nodeaware (4 x 3)
    pl_b, pl_n = rows[("powerlaw", "aij")], rows[("powerlaw", "aij_nodeaware")]
    assert pl_b["wire_segments"] == pl_b["plan_msgs"] > pl_n["wire_segments"] == pl_n["plan_msgs"] == pl_n["host_pairs_with_traffic"] <= 12
    assert pl_n["max_pair_segments"] == 1
    # the aijhybrid matrix's node-aware exchange sends what PETSc's MatMult on a nodeaware SF sends
    assert rows[("powerlaw", "hybrid_nodeaware")]["wire_segments"] == pl_n["wire_segments"]
    assert not hosts.our_namespaces() and not hosts.our_links()


def test_interrupted_run_leaves_nothing(emulation):
    p = subprocess.Popen([PYTHON, str(ROOT / "share" / "nodes" / "nodes.py"), "run", "--hosts", "2", "--ranks-per-host", "1", "--", "sleep", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t0 = time.time()
    while time.time() - t0 < 120:  # the hosts are up and mpirun started the ranks
        if len(hosts.our_namespaces()) == 2 and all(subprocess.run(["ip", "netns", "pids", n], capture_output=True, text=True).stdout.split() for n in hosts.our_namespaces()):
            break
        time.sleep(0.5)
    else:
        p.kill()
        pytest.fail("the hosts did not come up:\n" + p.communicate()[0][-3000:])
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    out = p.communicate(timeout=120)[0]
    assert p.returncode == 130, out[-3000:]
    assert "interrupted" in out
    assert not hosts.our_namespaces() and not hosts.our_links(), (hosts.our_namespaces(), hosts.our_links())


# ------------------------------------------------------------------------------------------------
# no root needed


def test_wire_prediction_of_a_message():
    # one segment up to MSS - header, then one more per MSS
    assert nodes.segments(0) == (1, nodes.HDR + hosts.SEG_OVERHEAD)
    assert nodes.segments(hosts.MSS - nodes.HDR) == (1, hosts.MSS + hosts.SEG_OVERHEAD)
    assert nodes.segments(hosts.MSS - nodes.HDR + 1)[0] == 2
    pred = nodes.host_pair_prediction([(0, 2, 800), (1, 2, 800), (1, 3, 8)], [0, 0, 1, 1], "basic")
    assert pred == {(0, 1): [3, 1608, 3, 1608 + 3 * (nodes.HDR + hosts.SEG_OVERHEAD)]}


def ghost_pattern_from_generator(name, rows, size, nodes_of, **params):
    """the inter-node messages of one forward exchange, from the matrix generator's rows (no PETSc):
    basic [(q, r, entries)] and nodeaware [(M, N, entries)]"""
    from aijhybrid_bench import matrices
    from aijhybrid_bench.matrices._assemble import ownership

    gen = matrices._generator(name, rows, 0, params)
    n = gen.nrows
    ranges = [ownership(n, size, r)[0] for r in range(size)] + [n]
    need = []
    for r in range(size):
        cols = set()
        for chunk in gen.local_chunks(ranges[r], ranges[r + 1]):
            cols.update(int(c) for c in np.asarray(chunk[1]).ravel().tolist())
        need.append(sorted(c for c in cols if not ranges[r] <= c < ranges[r + 1]))
    pairs, unions = {}, {}
    for r in range(size):
        for g in need[r]:
            q = int(np.searchsorted(ranges, g, side="right") - 1)
            if nodes_of[q] != nodes_of[r]:
                pairs[(q, r)] = pairs.get((q, r), 0) + 1
                unions.setdefault((nodes_of[q], nodes_of[r]), set()).add(g)
    return sorted((q, r, c) for (q, r), c in pairs.items()), sorted((a, b, len(u)) for (a, b), u in unions.items())


@pytest.mark.parametrize("rows,size,ppn", [(1728, 8, 2), (4096, 16, 4), (32768, 32, 8)])
def test_stencil_pattern_model_is_exact(rows, size, ppn):
    """the model's 7-point Poisson pattern (intervals of planes) = the generator's, message by message totals"""
    nodes_of = [r // ppn for r in range(size)]
    basic, na = ghost_pattern_from_generator("poisson7", rows, size, nodes_of)
    pat = model.stencil_pattern(round(rows ** (1 / 3)), size, ppn)
    assert pat["basic_inter_msgs"] == len(basic) and pat["basic_inter_entries"] == sum(c for _, _, c in basic)
    assert pat["na_inter_msgs"] == len(na) and pat["na_inter_entries"] == sum(c for _, _, c in na)
    # the busiest node: its outgoing inter-node messages and entries
    for kind, msgs, key in (("basic", basic, lambda m: nodes_of[m[0]]), ("na", na, lambda m: m[0])):
        per = {}
        for m in msgs:
            e = per.setdefault(key(m), [0, 0])
            e[0] += 1
            e[1] += m[2]
        assert pat[kind + "_max_node"] == max(map(tuple, per.values()), key=lambda e: (e[1], e[0]), default=(0, 0))


def test_model_rendezvous_waiting_per_connection():
    """the bytes that wait for a rendezvous clear-to-send: per connection, what both directions' rendezvous
    messages have in common, half at each end; eager messages and one-way traffic wait for nothing"""
    big, small = 3 * model.EAGER, 1000
    row = {"host_of_rank": [0, 0, 1, 1], "plan_hosts": {"a": {"on_bytes": 0, "on_msgs": 0}, "b": {"on_bytes": 0, "on_msgs": 0}},
           "sf": "basic", "rank_nnz": [1, 1, 1, 1], "rank_rows": [1, 1, 1, 1], "messages": [(0, 2, big), (2, 0, 2 * big), (1, 3, big), (3, 1, small)]}
    f = model.row_figures(row)
    common = big * model.F_TCP  # rank pair 0 <-> 2: min(big, 2 big), half at each end; pair 1 <-> 3: the way back is eager
    assert [w for _, w in f["wire_hosts"]] == pytest.approx([common / 2, common / 2])
    out0 = 2 * big * model.F_TCP + 2 * model.H_MSG
    in0 = (2 * big + small) * model.F_TCP + 2 * model.H_MSG
    assert f["wire_hosts"][0][0] == pytest.approx(max(out0, in0))
    # nodeaware rows list host pairs: one connection per pair
    f = model.row_figures(dict(row, sf="nodeaware", messages=[(0, 1, big), (1, 0, big)]))
    assert [w for _, w in f["wire_hosts"]] == pytest.approx([big * model.F_TCP / 2] * 2)
    # the prediction: rho of the waiting bytes on the wire, the reductions in CG (the probe's, or the job's own)
    f["cg_its"] = 2
    q = {"tau": 0.0, "kappa": 0.0, "L": 0.0, "o": 0.0, "L_s": 0.0, "o_s": 0.0, "B_s": 1e9, "rho": 1.0, "allreduce": {4: 1e-3}}
    tm, tc = model.predict_here(f, q, 1e6)
    assert tm == pytest.approx((big * model.F_TCP + model.H_MSG + big * model.F_TCP / 2) / 1e6)
    assert tc == pytest.approx(2 * (tm + 3e-3) + 2e-3)
    # a configuration whose own job timed the reduction uses that, not the probe's
    tm2, tc2 = model.predict_here(dict(f, allreduce_s=5e-4), q, 1e6)
    assert tm2 == pytest.approx(tm) and tc2 == pytest.approx(2 * (tm + 1.5e-3) + 1e-3)


def test_relay_costs_less_in_a_matmult_loop_than_between_reductions():
    """model.predict_here(): a nodeaware exchange whose sender relays eager messages while the wire dominates costs,
    in the MatMult loop (the first value predict_here() returns: products back to back), the wire plus the relaying rank's own product (the
    next product runs behind the relay), and in a CG iteration (reductions between products) the bound of
    relay_core(): CPU + (CPU / wire) relay; with rendezvous messages, or the cores busier than the wire, both pay
    CPU + relay. o_tcp is charged per inter-host message of all hosts, with the CPU."""
    onhost = {"mult_s": 4e-3, "nnz": 1_000_000, "rows": 100_000, "cg_rest_s": 0.0, "layout": "8x1"}
    f = {"type": "mpiaij", "nnz": 1_000_000, "rows": 100_000, "nh": 4, "P": 8, "ppn": 2, "onhost": onhost, "cg_its": 10,
         "allreduce_s": 0.0, "wire_hosts": [(5e3, 0.0)] * 4, "relay_hosts": [1.0] * 4, "rank_share": 0.25, "wire_total": 2e4,
         "wire_msgs": 12, "net_phases": 0, "rndv": 0, "m_rank": 0, "on_phases": 0, "m_on_rank": 0, "b_on": 0}
    q = {"L": 0.0, "o": 0.0, "L_s": 0.0, "o_s": 0.0, "rho": 0.0, "c_aij": 0.0, "beta": 0.0, "B_s": 1e9}
    cpu, wire, own = 4e-3, 5e-3, 1e-3  # CPU from the on-host run; wire 5e3 bytes at 1e6 B/s; own: a quarter of the product
    tm, tc = model.predict_here(f, q, 1e6)
    assert tm == pytest.approx(wire + own)
    assert tc == pytest.approx(10 * (cpu + cpu / wire * wire))
    tm, tc = model.predict_here(dict(f, rndv=1), q, 1e6)
    assert tm == pytest.approx(cpu + wire) and tc == pytest.approx(10 * (cpu + wire))
    tm, tc = model.predict_here(f, q, 2e6)  # the cores busier than the wire: CPU + relay either way
    assert tm == pytest.approx(cpu + wire / 2) and tc == pytest.approx(10 * (cpu + wire / 2))
    assert model.cpu_time(f, dict(q, o_tcp=1e-5)) == pytest.approx(cpu + 12 * 1e-5)


def test_model_fit_recovers_its_parameters_and_holds_out_each_matrix():
    """model.fit_and_validate() on the communication patterns of the tracked nodes record, its MatMult times
    replaced by the model's own at known parameters (the on-host rows: a known CPU time per nonzero of each
    matrix and type plus the type's fixed cost): the fit to every rate recovers them (rho too, which only the
    power-law graph's rendezvous traffic shows), every matrix left out is predicted by the others' fit and its
    own on-host input, the on-host rows are inputs (not counted), a fold without rendezvous waiting says rho
    was not seen instead of reporting its start value, and the times block renders the fit."""
    import blocks

    rec = ROOT / "share" / "results" / "nodes.json"
    d = json.loads(rec.read_text()) if rec.exists() else {}
    res = d.get("result") or {}
    rows = [r for r in res.get("rows", []) if r.get("mult_s")]
    if not rows or "error" in res.get("probe", {"error": 1}) or not any(len(set(r["host_of_rank"])) == 1 for r in rows):
        pytest.skip("the tracked nodes record has no timed rows or no on-host run")
    truth = {"L": 2e-5, "o": 9e-6, "L_s": 2e-6, "o_s": 3e-5, "rho": 0.6, "c_aij": 1e-5, "c_hybrid": 3e-5, "beta": 1e-9, "o_tcp": 5e-6, "B_s": 5e9, "allreduce": {}}
    tau = {"poisson7": 5e-10, "extruded": 4e-10, "powerlaw": 2e-9}
    onhost = [dict(r, mult_s=tau[r["matrix"]] * sum(r["rank_nnz"]) + model.fixed_cost(r["type"], truth)) for r in rows if len(set(r["host_of_rank"])) == 1]
    inputs = (model.onhost_inputs(onhost), model.onhost_inputs(onhost, by_layout=True))
    rates = {r["label"]: r.get("rate_bps") for r in res["runs"]}
    first = max(v for v in rates.values() if v)
    B = {rate: model.probe_bandwidth(res["probe"] if rate == first else res.get("probe_slow")) for rate in set(rates.values()) if rate}

    basic = {(r["run"], r["matrix"]): r["messages"] for r in rows if r["sf"] == "basic"}
    truth["B_s"] = model.probe_intra_bandwidth(res["probe"]) or model.B_S_STATED  # as fit_and_validate takes it

    def timed(r):
        f = dict(model.row_figures(r, basic.get((r["run"], r["matrix"])), (res.get("machine") or {}).get("cores")), onhost=model.onhost_input(inputs, r))
        return dict(r, mult_s=model.predict_here(f, truth, B[rates[r["run"]]])[0])

    synth = dict(res, rows=onhost + [timed(r) for r in rows if len(set(r["host_of_rank"])) > 1])
    m = model.fit_and_validate(synth)
    q = m["params_here"]
    assert q["rho"] == pytest.approx(truth["rho"], rel=0.05)
    assert q["beta"] == pytest.approx(truth["beta"], rel=0.1) and q["o_tcp"] == pytest.approx(truth["o_tcp"], rel=0.2)
    # a type's fixed cost is fitted only where some configuration's CPU is extrapolated from another size's on-host run
    for c, t in (("c_aij", "mpiaij"), ("c_hybrid", "mpiaijhybrid")):
        extrapolated = any(r["type"] == t and len(set(r["host_of_rank"])) > 1 and model.onhost_input(inputs, r)["nnz"] != sum(r["rank_nnz"]) for r in rows)
        assert (c in q["fitted"]) == extrapolated
    if "c_hybrid" in q["fitted"]:
        assert q["c_hybrid"] == pytest.approx(truth["c_hybrid"], rel=0.2)
    large = max(r["rows"] for r in onhost if r["matrix"] == "powerlaw")
    assert q["cpu_per_nnz"]["powerlaw %d mpiaij" % large] == pytest.approx(tau["powerlaw"], rel=0.01)
    inp = [v for v in m["validation"] if v["mult_role"] == "input"]
    assert len(inp) == len(onhost) and all(v["mult_err"] is None and v["cg_err"] is None and v["mult_pred_s"] == pytest.approx(v["mult_s"]) for v in inp)
    assert m["within_25"]["mult_fit"][1] == len(synth["rows"]) - len(onhost)
    fitted = [v for v in m["validation"] if v["mult_role"] != "input"]
    assert all(abs(v["mult_err"]) < 0.02 for v in fitted)
    # each row names the on-host run its CPU input came from: the one with its ranks and threads where there is one
    for v, r in zip(m["validation"], synth["rows"]):
        own = "%dx%d" % (len(r["host_of_rank"]), r.get("threads") or 1)
        assert v["cpu_input"] == model.onhost_input(inputs, r)["layout"], (v, own)
        if (r["matrix"], r["rows"], r["type"], len(r["host_of_rank"]), r.get("threads") or 1) in inputs[1]:
            assert v["cpu_input"] == own, (v, own)
    waits = {mx: any(w > 0 for r in rows if r["matrix"] == mx for _, w in model.row_figures(r)["wire_hosts"]) for mx in {r["matrix"] for r in rows}}
    # a matrix left out is predicted by the others' fit, except its rendezvous waiting when no other matrix has any
    seen = [v for v in fitted if m["rho_without"][v["matrix"]] is not None or not waits[v["matrix"]]]
    assert len(seen) >= len(fitted) // 2
    assert all(v["mult_heldout_err"] is not None and abs(v["mult_heldout_err"]) < 0.10 for v in seen), [(v["matrix"], v["run"], v["variant"], v["mult_heldout_err"]) for v in seen if v["mult_heldout_err"] is None or abs(v["mult_heldout_err"]) >= 0.10]
    for matrix, rho in m["rho_without"].items():
        others_wait = any(w for k, w in waits.items() if k != matrix)
        assert (rho is None) == (not others_wait)
        if others_wait:
            assert rho == pytest.approx(truth["rho"], rel=0.1)
    text = blocks.render_times(dict(d, result=dict(synth, model=m)), "head")
    assert "is the model's CPU input" in text and "fixed CPU cost per product" in text and "| input | - |" in text


def test_multi_start_keeps_the_best_start():
    """model.multi_start(): from every start, the lowest cost wins, whichever start found it; ties go to the
    earlier start; the same starts give the same answer"""
    # a double well in x: a shallow minimum near x = -1 (cost 0.5), the deep one at x = 2 (cost 0)
    def resid(x):
        return [(x[0] + 1) * (x[0] - 2), 1.0 / (1.0 + math.exp(8 * (x[0] - 0.5)))]

    lo, hi = np.array([-4.0]), np.array([4.0])
    x, cost, i = model.multi_start(resid, [[-1.5], [3.0]], lo, hi)
    assert i == 1 and x[0] == pytest.approx(2.0, abs=1e-3)
    one = model.multi_start(resid, [[-1.5]], lo, hi)
    assert one[1] > cost + 0.1  # the first start alone stays in the shallow well
    assert model.multi_start(resid, [[3.0], [2.5]], lo, hi)[2] == 0  # the same minimum twice: the earlier start
    a, b = model.multi_start(resid, [[-1.5], [3.0]], lo, hi), model.multi_start(resid, [[-1.5], [3.0]], lo, hi)
    assert a[1] == b[1] and list(a[0]) == list(b[0])


def test_start_points_are_a_fixed_design_within_the_bounds():
    """model.start_points(): the reference start first, then a two-level design and its fold-over, every value
    within FIT_BOUNDS; the same list every time"""
    pts = model.start_points(model.FIT)
    assert pts == model.start_points(model.FIT)
    assert pts[0] == [math.log(model.FIT_START[k]) for k in model.FIT]
    size = 1
    while size < len(model.FIT) + 1:
        size *= 2  # the smallest Hadamard matrix with a column per parameter besides its first
    assert len(pts) == 1 + 2 * size == len({tuple(p) for p in pts})  # the design's rows and their fold-over, all distinct
    lo, hi = (math.log(b) for b in model.FIT_BOUNDS)
    assert all(lo <= v <= hi for p in pts for v in p)
    # every parameter at both levels in the design
    for j in range(len(model.FIT)):
        assert len({p[j] for p in pts[1:]}) == 2


def test_cpu_term_is_taken_from_the_on_host_rows():
    """model.onhost_inputs(): the on-host run's rows (one host) per (matrix, rows, type), nothing from the rows across
    hosts; per (matrix, rows, type, ranks, threads) with by_layout, and model.onhost_input() takes the on-host run
    with a configuration's matrix size, ranks and threads, else the reference one of that size (the most ranks), else
    (older records) the largest size's; model.cpu_time() and predict_here(): a configuration's CPU is the on-host time per nonzero of its
    matrix and type (the type's fixed cost taken off) times its nonzeros, plus the fixed cost and beta per byte on
    the wire; an on-host row predicts its own time; the rest of a CG iteration is the on-host one's per row"""
    def row(matrix, mtype, hosts, mult, nnz, nrows, cg=None):
        return {"matrix": matrix, "type": mtype, "host_of_rank": hosts, "mult_s": mult, "rank_nnz": [nnz // len(hosts)] * len(hosts),
                "rank_rows": [nrows // len(hosts)] * len(hosts), "cg_solve_s": cg, "cg_its": 10, "allreduce_s": 1e-4}
    rows = [row("poisson7", "mpiaij", [0] * 8, 1e-3, 2_000_000, 262144, cg=0.05), row("poisson7", "mpiaijhybrid", [0] * 8, 2e-3, 2_000_000, 262144),
            row("poisson7", "mpiaij", [0, 0, 1, 1], 9.0, 2_000_000, 262144), row("extruded", "mpiaij", [0, 1], 1.0, 4_000_000, 262144)]
    inp = model.onhost_inputs(rows)
    assert set(inp) == {("poisson7", 262144, "mpiaij"), ("poisson7", 262144, "mpiaijhybrid")}
    # per layout: an on-host run of 4 ranks x 2 threads is the input of the configurations with as many ranks and
    # threads; the others (and every configuration of a record without it) take the reference run (the most ranks)
    r42 = dict(row("poisson7", "mpiaij", [0] * 4, 4e-4, 2_000_000, 262144), threads=2)
    both = (model.onhost_inputs(rows + [r42]), model.onhost_inputs(rows + [r42], by_layout=True))
    assert both[0] == inp and set(both[1]) == {("poisson7", 262144, "mpiaij", 8, 1), ("poisson7", 262144, "mpiaijhybrid", 8, 1), ("poisson7", 262144, "mpiaij", 4, 2)}
    assert model.onhost_input(both, dict(rows[2], threads=2))["mult_s"] == 4e-4  # 4 ranks on 2 hosts, 2 threads each
    assert model.onhost_input(both, dict(rows[2], threads=1))["mult_s"] == 1e-3
    assert model.onhost_input((inp, model.onhost_inputs(rows, by_layout=True)), dict(rows[2], threads=2))["mult_s"] == 1e-3
    # sizes apart: a small size of the matrix takes its own on-host run; without one (older records), the largest
    # size's; a matrix or type without any on-host run has no input
    small = row("poisson7", "mpiaij", [0] * 8, 5e-5, 11_000, 1728)
    sizes = (model.onhost_inputs(rows + [small]), model.onhost_inputs(rows + [small], by_layout=True))
    assert sizes[0][("poisson7", 1728, "mpiaij")]["mult_s"] == 5e-5 and sizes[0][("poisson7", 262144, "mpiaij")]["mult_s"] == 1e-3
    assert model.onhost_input(sizes, row("poisson7", "mpiaij", [0, 0, 1, 1], 1.0, 11_000, 1728))["mult_s"] == 5e-5
    assert model.onhost_input(sizes, row("poisson7", "mpiaij", [0, 0, 1, 1], 1.0, 2_000_000, 262144))["mult_s"] == 1e-3
    assert model.onhost_input(both, row("poisson7", "mpiaij", [0, 0, 1, 1], 1.0, 11_000, 1728))["mult_s"] == 1e-3
    assert model.onhost_input(both, row("extruded", "mpiaij", [0, 1], 1.0, 4_000_000, 262144)) is None
    assert inp[("poisson7", 262144, "mpiaij")]["mult_s"] == 1e-3 and inp[("poisson7", 262144, "mpiaij")]["nnz"] == 2_000_000
    assert inp[("poisson7", 262144, "mpiaij")]["cg_rest_s"] == pytest.approx((0.05 - 2e-4) / 10 - 1e-3 - 3e-4)
    assert inp[("poisson7", 262144, "mpiaijhybrid")]["cg_rest_s"] is None
    q = {"c_aij": 1e-4, "c_hybrid": 5e-4, "beta": 1e-9}
    f = {"type": "mpiaij", "nnz": 20_000, "onhost": inp[("poisson7", 262144, "mpiaij")], "wire_total": 1e5}
    assert model.cpu_time(f, q) == pytest.approx((1e-3 - 1e-4) / 2_000_000 * 20_000 + 1e-4 + 1e-4)
    fh = dict(f, type="mpiaijhybrid", onhost=inp[("poisson7", 262144, "mpiaijhybrid")], wire_total=0.0)
    assert model.cpu_time(fh, q) == pytest.approx((2e-3 - 5e-4) / 100 + 5e-4)
    # the on-host row itself: its measured MatMult and CG times
    fo = {"type": "mpiaij", "nnz": 2_000_000, "rows": 262144, "nh": 1, "P": 8, "ppn": 8, "onhost": inp[("poisson7", 262144, "mpiaij")], "cg_its": 10, "allreduce_s": 1e-4,
          "wire_hosts": [], "wire_total": 0.0, "net_phases": 0, "rndv": 0, "m_rank": 0, "on_phases": 1, "m_on_rank": 3, "b_on": 1e5}
    tm, tc = model.predict_here(fo, dict(q, L=1e-3, o=1e-3, L_s=1e-3, o_s=1e-3, B_s=1e9), 1e8)
    assert tm == pytest.approx(1e-3) and tc == pytest.approx(0.05)


def test_times_block_says_when_rho_is_at_its_bound():
    """share/nodes/blocks.py: the record's times block says in bold when the fitted rho (full fit or a fold)
    sits at a bound of its fit, naming which (upper: more waiting wanted; lower: none), and says nothing of the
    kind when it is inside"""
    import blocks

    rec = ROOT / "share" / "results" / "nodes.json"
    d = json.loads(rec.read_text()) if rec.exists() else {}
    m = (d.get("result") or {}).get("model") or {}
    if "rho" not in m.get("params_here", {}):
        pytest.skip("the tracked nodes record has no fitted model")

    def render(rho, without):
        model_ = dict(m, params_here=dict(m["params_here"], rho=rho), rho_without=without)
        return blocks.render_times(dict(d, result=dict(d["result"], model=model_)), "head")

    assert "upper bound" not in render(0.5, {"a": 0.4, "b": None})
    text = render(0.5, {"a": 1.0, "b": None})
    assert "upper bound of its fit (1) in the fit without a**" in text
    assert "in the full fit and the fit without a**" in render(model.FIT_BOUNDS[1], {"a": 0.999, "b": 0.3})
    # the lower bound is named as such, never as the upper one
    text = render(model.FIT_BOUNDS[0], {"a": 0.4, "b": None})
    assert "upper bound" not in text and "lower bound of its fit (%g) in the full fit**" % model.FIT_BOUNDS[0] in text
    text = render(0.5, {"a": 1.0, "b": 1.0005 * model.FIT_BOUNDS[0]})
    assert "upper bound of its fit (1) in the fit without a**" in text and "lower bound of its fit (%g) in the fit without b**" % model.FIT_BOUNDS[0] in text


def test_at_bound_names_the_side():
    """model.at_bound(): either bound, or only the side asked for; None and values inside are at neither"""
    lo, hi = model.FIT_BOUNDS
    assert model.bound_side(hi) == "upper" and model.bound_side(lo) == "lower" and model.bound_side(math.sqrt(lo * hi)) is None
    assert model.bound_side(None) is None and not model.at_bound(None)
    assert model.at_bound(hi) and model.at_bound(hi, "upper") and not model.at_bound(hi, "lower")
    assert model.at_bound(lo) and model.at_bound(lo, "lower") and not model.at_bound(lo, "upper")


def test_relayed_bytes_leave_after_the_product():
    """model.relayed_senders() and relay_core(): a nodeaware sender that forwards other ranks' entries (its F2 step is
    not from its own roots) sends only after its local product. Hand-made 2 hosts x 2 ranks: host pair (0, 1) is
    served by rank 1 (1 mod 2), which relays when rank 0 owns some of what host 1 needs; one rank per host and basic
    never relay. Where the cores are busy the relayed wire time adds to the CPU and grows with the relayed bytes;
    where the wire dominates with eager messages the relay costs the relaying rank's own product (its share of the
    cores) plus the busy fraction of the relayed time; a rendezvous relay is never overlapped."""
    hosts = [0, 0, 1, 1]
    plan = {"aijhn-n0": {}, "aijhn-n1": {}}
    na = {"sf": "nodeaware", "host_of_rank": hosts, "plan_hosts": plan, "messages": [[0, 1, 4096], [1, 0, 4096]]}
    # host 1's needs from host 0 come from rank 1 only (its own roots) and host 0's from rank 2 (sender of (1, 0): rank 2)
    assert model.relayed_senders(na, [[1, 2, 4096], [2, 1, 4096]]) == set()
    # rank 0 owns part of what host 1 needs: rank 1 relays it
    assert model.relayed_senders(na, [[0, 2, 2048], [1, 3, 2048], [2, 1, 4096]]) == {1}
    assert model.relayed_senders(na) == {1, 2}  # no basic messages: every sender taken to relay
    assert model.relayed_senders(dict(na, sf="basic"), [[0, 2, 2048]]) == set()
    assert model.relayed_senders(dict(na, host_of_rank=[0, 1], plan_hosts=plan), [[0, 1, 4096]]) == set()
    f = {"type": "mpiaij", "nnz": 8_000_000, "onhost": {"mult_s": 4e-3, "nnz": 8_000_000, "rows": 1, "cg_rest_s": None}, "rank_share": 0.25, "rndv": 0}
    q = {"c_aij": 0.0}
    own = 4e-3 * 0.25
    # CPU-bound: all of the relayed time after the CPU, more relayed bytes, longer
    assert model.relay_core(4e-3, 1e-3, 1e-3, f, q) == pytest.approx(5e-3)
    assert model.relay_core(4e-3, 2e-3, 2e-3, f, q) > model.relay_core(4e-3, 2e-3, 1e-3, f, q) > 4e-3
    # wire-bound, eager: the rank's own product, and the relayed time in the cores' busy fraction
    assert model.relay_core(1e-3, 10e-3, 10e-3, f, q) == pytest.approx(max(1e-3 + 0.1 * 10e-3, 10e-3 + own))
    # rendezvous: the body waits for the receiver's End, no overlap at any rate
    assert model.relay_core(1e-3, 10e-3, 10e-3, dict(f, rndv=1), q) == pytest.approx(11e-3)
    # predict_here: a relaying row is slower than the same row without relays, by the relayed wire's share
    row = {"type": "mpiaij", "nnz": 8_000_000, "rows": 1, "nh": 2, "P": 4, "ppn": 2, "onhost": f["onhost"], "cg_its": None, "wire_hosts": [(1e5, 0.0), (1e5, 0.0)],
           "wire_total": 2e5, "net_phases": 1, "rndv": 0, "m_rank": 1, "on_phases": 3, "m_on_rank": 1, "b_on": 0, "rank_share": 0.5}
    qq = dict(q, L=0.0, o=0.0, L_s=0.0, o_s=0.0, B_s=1e9, beta=0.0)
    base = model.predict_here(dict(row, relay_hosts=[0.0, 0.0]), qq, 1e8)[0]
    half = model.predict_here(dict(row, relay_hosts=[0.5, 0.0]), qq, 1e8)[0]
    full = model.predict_here(dict(row, relay_hosts=[1.0, 1.0]), qq, 1e8)[0]
    assert base == pytest.approx(4e-3) and half == pytest.approx(4e-3 + 0.5e-3) and full == pytest.approx(5e-3)


def test_cluster_overlap_bound_hides_basic_exchange_not_relayed_phases():
    """model.t_mult_overlap(): the overlapped bound of the cluster's MatMult. basic hides its whole exchange behind
    the product (max, never above t_mult's sum); nodeaware hides only its on-node gather and direct messages, the
    inter-node phase and the scatter after the product (every sender taken to relay); cluster_summary() reports
    both bounds, and the overlapped gain of nodeaware on a stencil matrix is no better than the added one there."""
    q = dict(model.CLUSTER)
    for m, rows in (("poisson7", 1 << 24), ("powerlaw", 1 << 22)):
        N, R, T = 16, 16, 4
        pat = model.pattern(m, rows, R * N, R)
        nnz, rn = model.NNZ_PER_ROW[m] * rows / N, rows / N
        c = model.t_compute(nnz, rn, q, q["cores"], T)
        b_add, b_ov = model.t_mult(pat["basic"], "basic", nnz, rn, q, q["cores"], T), model.t_mult_overlap(pat["basic"], "basic", nnz, rn, q, q["cores"], T)
        assert b_ov == pytest.approx(max(c, model.t_exchange(pat["basic"], "basic", q))) and c <= b_ov <= b_add
        ph = model.nodeaware_phases(pat["nodeaware"], q)
        assert sum(ph.values()) == pytest.approx(model.t_exchange(pat["nodeaware"], "nodeaware", q)) and ph["f2"] > 0
        n_ov = model.t_mult_overlap(pat["nodeaware"], "nodeaware", nnz, rn, q, q["cores"], T)
        assert n_ov == pytest.approx(max(c, ph["f1"] + ph["direct"]) + ph["f2"] + ph["f3"]) and c + ph["f2"] <= n_ov <= model.t_mult(pat["nodeaware"], "nodeaware", nnz, rn, q, q["cores"], T) + 1e-15
    rows = model.cluster_predictions(q, nodes=(16,), matrices=("poisson7",))
    s = [x for x in model.cluster_summary(rows) if x["scaling"] == "strong"][0]
    assert s["nodeaware_64x1_gain_overlap"] is not None and s["nodeaware_64x1_gain_overlap"] <= s["nodeaware_64x1_gain"] + 1e-12 and s["best_overlap"]


def test_on_host_bandwidth_from_the_probe():
    """model.probe_intra_bandwidth(): the slope of the probe's on-host ping-pong between its two largest sizes; None
    without it (the fit then states B_s)"""
    assert model.probe_intra_bandwidth({"pingpong_intra": [[8, 2e-5], [65536, 1e-4], [1048576, 5e-4]]}) == pytest.approx((1048576 - 65536) / 4e-4)
    assert model.probe_intra_bandwidth({}) is None and model.probe_intra_bandwidth(None) is None
