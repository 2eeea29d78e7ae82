"""The matrix's node-aware halo exchange (-mat_aijhybrid_node_aware: its halo PetscSF is of type
nodeaware).

- C unit tests of the pure plan builder and its compiled schedules (tests/unit/test_nodeplan.c):
  simulated ranks 1..9 with arbitrary and uneven rank -> node maps, every phase matched, forward
  exact, reverse bitwise in PetscSF's order, message-count properties. (The SF type itself against
  basic: tests/test_sf.py.)
- Every product with the node-aware halo SF against MATAIJ (<= 1e-13) and bitwise against a basic
  halo SF, at 1/2/4 ranks, OMP_NUM_THREADS 1..3, 1..3 threads in-process, both modes, node sizes 1,
  2 and shared memory; no off-process part; ranks owning no rows; repeated products; a pattern change
  (new off-process nonzeros, reassembly) between products; every exchange counted as node-aware.
- Message counts on 3D 7-point Poisson, 16 ranks as 4 emulated nodes of 4 (4 x 2 x 2 process grid):
  at most one inter-node message per ordered node pair; the reduction of the inter-node message
  count is predicted as (inter-node rank pairs with traffic) / (ordered node pairs with traffic),
  both counted from the ghost pattern, and must equal the measured one (4 here).
- Options, -help, -mat_view and -sf_view lines.
"""

import re
import os
import subprocess

import pytest

import mpirun
from conftest import RANKS, THREADS, cached_worker

pytestmark = pytest.mark.mpi

BUILD = str(mpirun.BUILD)  # this build (AIJHYBRID_BUILD)
N_PRODUCT_CASES = 7


def _ok(run, n=None):
    res = run.check()
    bad = {k: v for k, v in res["checks"].items() if v != "ok"}
    assert not bad, "failing checks:\n" + "\n".join("%s: %s" % kv for kv in bad.items())
    if n is not None:
        assert len(res["checks"]) == n, sorted(res["checks"])
    return res


def test_plan_builder_unit():
    exe = os.path.join(BUILD, "tests", "test_nodeplan")
    assert os.path.exists(exe), "build the unit tests first: make unit"
    out = subprocess.run([exe, "-malloc_debug", "-malloc_dump"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    last = out.stdout.strip().splitlines()[-1]
    npass, nfail = int(last.split()[0]), int(last.split()[2])
    assert nfail == 0 and npass > 10000, last
    assert "bytes" not in out.stdout + out.stderr, "unfreed memory:\n" + out.stdout[-2000:]


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("ranks", RANKS)
def test_products_node_aware_match_aij(ranks, threads):
    res = _ok(cached_worker("nodeaware", ranks, threads, ["products", "-sf_nodeaware_always"], timeout=600), N_PRODUCT_CASES)
    if ranks > 1:
        # the pattern change went from no off-process part to one, then two neighbours per rank
        totals = res["info"]["pattern_change_message_totals"]
        assert totals[0] == 0 and totals[1] == ranks, totals


def test_poisson_16_ranks_4_nodes_message_counts():
    run = cached_worker("nodeaware", 16, 1, ["poisson", "-mat_aijhybrid_node_aware", "-mat_aijhybrid_node_size", "4"], timeout=600)
    info = _ok(run, 1)["info"]
    print(info)
    assert info["nodes"] == 4
    # at most one inter-node message per ordered node pair, and exactly one per pair with traffic
    assert info["nodeaware_inter_msgs"] == info["node_pairs_with_traffic"] <= 4 * 3
    # predicted reduction (from the pattern) = measured reduction
    assert info["predicted_reduction"] == info["inter_node_rank_pairs"] / info["node_pairs_with_traffic"]
    assert info["measured_reduction"] == info["standard_inter_msgs"] / info["nodeaware_inter_msgs"]
    assert info["measured_reduction"] == info["predicted_reduction"]
    # this process grid: each of the 8 neighbouring node pairs has 4 rank pairs, so the factor is 4 = ranks per node
    assert info["rank_pairs_per_node_pair"] == [4] * 8 and info["measured_reduction"] == 4.0
    # the 7-point stencil needs each ghost on one rank only: the same inter-node bytes
    assert info["nodeaware_inter_bytes"] == info["standard_inter_bytes"]
    # node pairs spread over the ranks: no rank sends more than one inter-node message here
    assert info["max_inter_msgs_one_rank"] == 1


def test_options_help_and_view():
    run = mpirun.run_worker("nodeaware", 3, 1, ["view", "-mat_aijhybrid_node_aware", "-mat_aijhybrid_node_size", "2", "-help"])
    info = _ok(run, 1)["info"]
    assert info["node_aware"] is True and info["node_size"] == 2
    out = run.out
    assert "-mat_aijhybrid_node_aware" in out and "MatAIJHybridSetNodeAware" in out
    # "-opt <now v" up to PETSc 3.25, "-opt: <now v" in 3.26
    assert re.search(r"-mat_aijhybrid_node_size:? <now 2", out) and "MatAIJHybridSetNodeSize" in out
    assert "AIJHybrid: halo exchange: PetscSF of type nodeaware, one inter-node message per node pair, emulated nodes of 2 ranks" in out
    assert "AIJHybrid: 2 nodes; one exchange, all ranks: basic" in out
    for r in range(3):
        assert ("[%d] node " % r) in out, out
    # PetscSFView of a node-aware SF: PETSc's lines (type nodeaware), then the type's
    assert "type: nodeaware" in out and "MultiSF sort=rank-order" in out
    assert "NodeAware: 3 nodes (emulated nodes of 1 ranks)" in out
    assert "NodeAware:   broadcast" in out and "NodeAware:   reduction" in out
    for r in range(3):
        assert ("NodeAware: [%d] node %d (1 ranks) sends" % (r, r)) in out, out
    # without the option: the basic halo SF is shown, and the statistics only in detail
    run = mpirun.run_worker("nodeaware", 2, 1, ["view"])
    _ok(run, 1)
    assert "AIJHybrid: halo exchange: PetscSF of type basic" in run.out
    assert "AIJHybrid: 1 nodes; one exchange, all ranks: basic 0 inter-node messages" in run.out
    # -sf_type nodeaware alone makes the halo SF node-aware too
    run = mpirun.run_worker("nodeaware", 2, 1, ["view", "-sf_type", "nodeaware", "-sf_nodeaware_node_size", "1"])
    info = _ok(run, 1)["info"]
    assert info["node_aware"] is False
    assert "AIJHybrid: halo exchange: PetscSF of type nodeaware, one inter-node message per node pair, emulated nodes of 1 ranks" in run.out
