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


def _load(path):
    doc = json.loads(path.read_text())
    return dict(doc["case"], id=path.stem)


def _petsc_version():
    """(major, minor) of the PETSc under test (PETSC_DIR[/PETSC_ARCH], as the makefile exports it)"""
    d, a = os.environ.get("PETSC_DIR", "/usr/lib/petsc"), os.environ.get("PETSC_ARCH", "")
    for h in (os.path.join(d, "include", "petscversion.h"), os.path.join(d, a, "include", "petscversion.h")):
        if os.path.exists(h):
            v = {}
            for line in open(h):
                w = line.split()
                if len(w) == 3 and w[0] == "#define" and w[1] in ("PETSC_VERSION_MAJOR", "PETSC_VERSION_MINOR"):
                    v[w[1]] = int(w[2])
            return v["PETSC_VERSION_MAJOR"], v["PETSC_VERSION_MINOR"]
    raise AssertionError("petscversion.h not found under PETSC_DIR=%s" % d)


def _known_failure(path):
    """the corpus entry's known failure if it applies to the PETSc under test, else None"""
    kf = json.loads(path.read_text()).get("known_failure")
    return kf if kf and _petsc_version() >= tuple(kf["petsc_min"]) else None


KNOWN = [p for p in CORPUS if json.loads(p.read_text()).get("known_failure")]


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


def test_corpus_covers_every_rank_count():
    assert {_load(p)["ranks"] for p in CORPUS} >= {1, 2, 4}, [p.name for p in CORPUS]


@pytest.mark.parametrize("ranks", (1, 2, 4))
def test_fuzz_regressions(ranks, tmp_path):
    """every corpus case at its rank count, except known failures on the PETSc they fail with (those
    run one by one below: a crash would end the whole worker)"""
    cases = [_load(p) for p in CORPUS if _load(p)["ranks"] == ranks and not _known_failure(p)]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    res = mpirun.run_worker("fuzz", ranks, 3, args=("--cases", str(path)), timeout=300).check()
    assert len(res["cases"]) == len(cases)
    bad = {k: v["error"] for k, v in res["cases"].items() if v["status"] != "ok"}
    assert not bad, "\n\n".join("%s: %s" % kv for kv in bad.items())


@pytest.mark.parametrize("path", KNOWN, ids=[p.stem for p in KNOWN])
def test_fuzz_known_failures(path, tmp_path):
    """a corpus case with a recorded known failure (README, known gaps): it must still fail on the
    PETSc versions it names (strict: once it passes there, the record is stale and this test says
    so) and pass on the others"""
    case = _load(path)
    (tmp_path / "cases.json").write_text(json.dumps([case]))
    run = mpirun.run_worker("fuzz", case["ranks"], 3, args=("--cases", str(tmp_path / "cases.json")), timeout=300)
    ok = run.rc == 0 and run.result is not None and all(v["status"] == "ok" for v in run.result["cases"].values())
    kf = _known_failure(path)
    if kf:
        assert not ok, "known failure no longer fails on PETSc %d.%d: remove 'known_failure' from %s and the README entry" % (_petsc_version() + (path.name,))
        pytest.xfail(kf["why"])
    assert ok, run.describe()


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
