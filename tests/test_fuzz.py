"""Property-based fuzzing (tests/fuzz_driver.py drives hypothesis, tests/workers/fuzz.py checks each
case under MPI): a fixed-seed quick run at 1, 2 and 4 ranks, the corpus tests/fuzz_regressions/*.json
replayed at the rank count each case records, and two tests that the fuzzer can fail (a wrong
reference is caught) and shrinks a failure to its smallest description. `make fuzz` runs long.
"""

import json
import os

import pytest

import fuzz_driver
import mpirun

pytestmark = pytest.mark.mpi

QUICK_EXAMPLES = int(os.environ.get("FUZZ_QUICK_EXAMPLES", "40"))
QUICK_SEED = 20261122
CORPUS = sorted(fuzz_driver.REGRESSIONS.glob("*.json"))


DOCS = {p: json.loads(p.read_text()) for p in CORPUS}  # each corpus file read once


def _load(path):
    return dict(DOCS[path]["case"], id=path.stem)


def test_fuzz_quick_fixed_seed():
    pool = fuzz_driver.Pool()
    try:
        n, failure = fuzz_driver.fuzz(QUICK_EXAMPLES, (1, 2, 4), QUICK_SEED, pool=pool)
    finally:
        pool.close()
    assert failure is None, "fuzzing found a failure; shrunk case (add it to tests/fuzz_regressions/ with make fuzz):\n%s\n%s" % (json.dumps(failure["case"], sort_keys=True), failure["error"])
    assert n == QUICK_EXAMPLES, n
    assert set(pool.count) == {1, 2, 4}, pool.count
    assert pool.stats["products"] >= 18 * QUICK_EXAMPLES, pool.stats  # 6 variants x 3 configurations at least
    assert pool.stats["reassembly_steps"] > 0 and pool.stats["partitions"] > 0, pool.stats
    assert pool.stats["max_rel_err"] <= 1e-13, pool.stats
    assert pool.stats["vector_ops"] > QUICK_EXAMPLES and pool.stats["solves"] > 0, pool.stats  # every case draws vector operations
    # every optional dimension was drawn, with more than one value (they are all built in: a -help
    # that could not be read would have made them vanish)
    want = {key for _, key, _ in fuzz_driver.OPTIONAL_DIMENSIONS}
    assert set(pool.drawn) == want, (sorted(pool.drawn), sorted(want))
    assert all(len(v) >= 2 for v in pool.drawn.values()), pool.drawn


def test_fuzz_reads_every_optional_option_from_help():
    options = fuzz_driver.available_options()
    assert {opt for opt, _, _ in fuzz_driver.OPTIONAL_DIMENSIONS} <= options, sorted(options)


def test_corpus_covers_every_rank_count():
    assert {_load(p)["ranks"] for p in CORPUS} >= {1, 2, 4}, [p.name for p in CORPUS]


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_fuzz_regressions(ranks, tmp_path):
    """every corpus case at its rank count"""
    cases = [c for c in (_load(p) for p in CORPUS) if c["ranks"] == ranks]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    res = mpirun.run_worker("fuzz", ranks, 3, args=("--cases", str(path)), timeout=300).check()
    assert len(res["cases"]) == len(cases)
    bad = {k: v["error"] for k, v in res["cases"].items() if v["status"] != "ok"}
    assert not bad, "\n\n".join("%s: %s" % kv for kv in bad.items())


def test_fuzz_catches_a_wrong_reference():
    """negative control: the same case with the aij reference shifted by 1e-9 (relative) must fail"""
    case = dict(_load(CORPUS[0]), perturb=1e-9)
    pool = fuzz_driver.Pool()
    try:
        res = pool.run(case)
    finally:
        pool.close()
    assert res["status"] == "fail" and "relative error" in res["error"], res


def test_fuzz_shrinks_a_failure():
    """a property that fails for every matrix with 7 rows or more: hypothesis, through the MPI worker,
    shrinks the failing description to 7 rows, no reassembly step, one thread"""
    pool = fuzz_driver.Pool()
    try:
        n, failure = fuzz_driver.fuzz(25, (1,), 5, pool=pool, options=set(), mutate=lambda d: dict(d, perturb=1e-6) if d["M"] >= 7 else d)
    finally:
        pool.close()
    assert failure is not None, "no failing case drawn in %d cases" % n
    c = failure["case"]
    assert c["M"] == 7 and c["bs"] == 1 and c["reassembly"] == [] and c["config"]["threads"] == 1, c
