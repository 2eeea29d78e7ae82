"""The benchmark driver (python -m aijhybrid_bench): a smoke run at tiny sizes
(share/bench/smoke.json) checked for its JSON record and plots, and the pieces it is built from
(ratios, byte model, layout check, STREAM triad, thread-time parsing). No timing is asserted: only
that times exist, are positive, and that every type's product equals aij's.
"""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mpirun

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))


def bench_module(name):
    """aijhybrid_bench.<name>: the benchmark package imports neither PETSc nor the bindings (which
    would initialise PETSc and MPI inside pytest), so its pure modules are tested in-process."""
    return importlib.import_module("aijhybrid_bench." + name)


def driver(args, timeout=300):
    env = mpirun.environment(1)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("OMP_WAIT_POLICY", None)
    return subprocess.run([mpirun.PYTHON, "-m", "aijhybrid_bench"] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(ROOT))


needs_build = pytest.mark.skipif(not mpirun.LIB.exists(), reason="%s not built (run `make lib`)" % mpirun.LIB)


_MODULES = ("import sys\n{stmt}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('petsc_aijhybrid', 'aijhybrid_bench', 'petsc4py', 'mpi4py')))")


def _loaded_by(stmt):
    """The modules of the bindings, the benchmark package, petsc4py and mpi4py that `stmt` loads."""
    env = mpirun.environment(1)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([mpirun.PYTHON, "-c", _MODULES.format(stmt=stmt)], capture_output=True, text=True, timeout=120, env=env, cwd=str(ROOT))
    assert p.returncode == 0, p.stdout + p.stderr
    return eval(p.stdout.strip().splitlines()[-1])


@needs_build
def test_bindings_load_no_benchmark_code():
    """`import petsc_aijhybrid` loads the bindings and nothing of the benchmark driver or its matrix
    generators (their own package, aijhybrid_bench)."""
    mods = _loaded_by("import petsc_aijhybrid")
    assert "petsc_aijhybrid.api" in mods and "petsc4py.PETSc" in mods, mods
    assert not [m for m in mods if m.startswith("aijhybrid_bench")], mods
    assert sorted(m for m in mods if m.startswith("petsc_aijhybrid")) == ["petsc_aijhybrid", "petsc_aijhybrid._loader", "petsc_aijhybrid.api", "petsc_aijhybrid.vec"], mods
    assert not (ROOT / "python" / "petsc_aijhybrid" / "bench").exists() and not (ROOT / "python" / "petsc_aijhybrid" / "matrices").exists()


def test_benchmark_driver_loads_no_petsc():
    """The driver runs outside MPI and starts the jobs: importing it (and its pure modules) loads
    neither PETSc nor the bindings."""
    mods = _loaded_by("import aijhybrid_bench.__main__, aijhybrid_bench.config, aijhybrid_bench.report, aijhybrid_bench.matrices")
    assert "aijhybrid_bench.matrices" in mods, mods
    assert not [m for m in mods if m.split(".")[0] in ("petsc_aijhybrid", "petsc4py", "mpi4py")], mods


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    args = ["--config", "smoke", "--out", str(out)]
    if (os.cpu_count() or 1) < 2:
        args.append("--oversubscribe")  # correctness only: the smoke run times nothing it asserts
    p = driver(args)
    assert p.returncode == 0, "driver failed (exit %d)\n%s\n%s" % (p.returncode, p.stdout[-5000:], p.stderr[-5000:])
    with open(out / "smoke.json") as f:
        rec = json.load(f)
    return out, rec, p.stdout


@needs_build
def test_smoke_record_schema(smoke):
    out, rec, _ = smoke
    for key in ("schema", "date", "config", "machine", "software", "git", "byte_model", "stream", "binding", "results", "jobs", "plots"):
        assert key in rec, key
    assert rec["schema"] == "petsc-aijhybrid-bench/1"
    assert rec["config"]["name"] == "smoke"
    assert rec["software"]["petsc_version"].count(".") == 2
    assert rec["machine"]["cores"] >= 1 and rec["machine"]["memory_bytes"] > 0
    assert set(rec["binding"]) == {"1x1", "2x1", "1x2"}
    assert rec["binding"]["2x1"]["env"]["OMP_NUM_THREADS"] == "1"
    assert len(rec["binding"]["2x1"]["ranks"]) == 2
    assert rec["failures"] == []


@needs_build
def test_smoke_results(smoke):
    _, rec, stdout = smoke
    res = rec["results"]
    hypre = rec["software"]["hypre"]
    seen = {(r["matrix"], r["layout"], r["variant"]): r for r in res}
    for m in ("poisson7", "twozone"):
        for lay in ("1x1", "2x1", "1x2"):
            threaded_only = lay == "1x2"
            for v in ("aij", "sell", "hypre"):
                key = (m, lay, v)
                if threaded_only:
                    assert key not in seen, key  # pure-MPI types run only with one thread per rank
                    continue
                r = seen[key]
                if v == "hypre" and not hypre:
                    assert r["status"] == "skipped"
                    continue
                assert r["status"] == "ok", r
            timed = [r for r in res if r["matrix"] == m and r["layout"] == lay and r["status"] == "ok"]
            assert timed, (m, lay)
            for r in timed:
                assert r["mult_s"] > 0 and r["gflops"] > 0 and r["gbps"] > 0 and r["stream_fraction"] > 0
                assert len(r["samples_s"]) == 2  # rounds x batches_per_round
                assert r["rel_diff_vs_reference"] <= 1e-12, r  # every type's product equals aij's
                assert r["cg_converged"] and r["cg_iterations"] > 0 and r["solve_s"] > 0
            # with one thread the four aijhybrid variants run the same code: measured once
            hyb = [r for r in res if r["matrix"] == m and r["layout"] == lay and r["type"] == "aijhybrid" and r["variant"] != "aijhybrid:first_touch"]
            assert len(hyb) == 4
            if lay in ("1x1", "2x1"):  # one thread: one measured, three equivalent to it
                assert [r["status"] for r in hyb].count("ok") == 1
                assert all(r["equivalent_to"] == "aijhybrid:vector:rows" for r in hyb if r["status"] == "equivalent")
            else:
                # one rank: task mode falls back to vector; rows and nnz are both measured
                ok = [r for r in hyb if r["status"] == "ok"]
                assert sorted(r["partition"] for r in ok) == ["nnz", "rows"]
                for r in ok:
                    assert r["nthreads"] == 2
                    assert r["partition_build_s"] >= 0 and r["imbalance_model"] >= 1.0
                    # measured per-thread times (get_thread_times): one rank, two threads
                    assert len(r["thread_busy_ms"]) == 1 and len(r["thread_busy_ms"][0]) == 2, r
                    assert all(t > 0 for t in r["thread_busy_ms"][0]) and r["imbalance_measured"] >= 1.0
            ft = seen[(m, lay, "aijhybrid:first_touch")]
            assert ft["status"] == "ok" and ft["rel_diff_vs_reference"] <= 1e-12, ft
        # the same CG iterations for aij and aijhybrid (the same sums in the same order); other
        # types sum in another order: within a few iterations
        its = {r["cg_iterations"] for r in res if r["matrix"] == m and r.get("cg_iterations") and "aij" in r["type"] and r["type"] not in ("aijperm",)}
        assert len(its) == 1, its
        others = [r["cg_iterations"] for r in res if r["matrix"] == m and r.get("cg_iterations")]
        assert max(others) - min(others) <= 2 + 0.05 * min(others), others
    for r in res:
        if r["variant"] == "aij" and r["status"] == "ok":
            assert r["ratio_vs_baseline"] == pytest.approx(1.0)
        if r["layout"] == "1x2" and r["status"] == "ok":
            assert r["baseline_layout"] == "2x1" and r["ratio_vs_baseline"] > 0
    for lay, s in rec["stream"].items():
        assert s["triad_GBps"] > 0, lay
    assert rec["jobs"][0]["cases"][0]["peak_rss_bytes_sum"] > 0
    assert "vs aij" in stdout and "%STREAM" in stdout


@needs_build
def test_smoke_solves_and_vector_operations(smoke):
    """Whole solves (bench/solves.py): every (variant, vectors) combination of every method in every layout
    it runs in, solved twice, PETSc's event times per solve; the vector operations of both types."""
    _, rec, stdout = smoke
    rows = rec["solves"]
    seen = {(r["layout"], r["method"], r["variant"], r["vectors"]): r for r in rows}
    for lay in ("1x1", "2x1", "1x2"):
        for method in ("cg+jacobi", "cg+gamg"):
            combos = [("aijhybrid:vector:nnz", "standard"), ("aijhybrid:vector:nnz", "hybrid")] + ([("aij", "standard")] if lay != "1x2" else [])
            its = set()
            for variant, vectors in combos:
                r = seen[(lay, method, variant, vectors)]
                assert r["status"] == "ok" and r["converged"] and r["solve_s"] > 0, r
                ev = r["events_s"]
                assert ev.get("MatMult", 0) > 0 and ev.get("PCApply", 0) > 0 and r["vec_s"] > 0, r
                its.add(r["iterations"])
            assert max(its) - min(its) <= 1, (lay, method, its)  # the same method: the sums differ in rounding only
    assert seen[("1x2", "cg+jacobi", "aijhybrid:vector:nnz", "hybrid")]["ratio_vs_aij"] > 0
    ops = {(r["layout"], r["op"]) for r in rec["vecops"] if r["status"] == "ok" and r["standard_s"] > 0 and r["hybrid_s"] > 0}
    for lay in ("1x1", "2x1", "1x2"):
        for op in ("dot", "norm2", "axpy", "axpbypcz", "mdot30", "maxpy30"):
            assert (lay, op) in ops, (lay, op)
    assert "Whole solves" in stdout and "Vector operations" in stdout


@needs_build
def test_smoke_plots(smoke):
    out, rec, _ = smoke
    assert len(rec["plots"]) == 6  # 2 matrices x (GF/s bars, strong scaling, threads per rank at 2 cores)
    kinds = sorted(p.rsplit("-", 1)[1] for p in rec["plots"])
    assert kinds == ["2cores.png"] * 2 + ["gflops.png"] * 2 + ["scaling.png"] * 2
    for p in rec["plots"]:
        data = (out / p).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, p


def test_ratios():
    model = bench_module("model")
    mk = lambda v, r, t, s: {"matrix_key": "m:1", "variant": v, "ranks": r, "threads": t, "layout": "%dx%d" % (r, t), "mult_s": s}
    res = [mk("aij", 1, 1, 10.0), mk("aij", 2, 1, 5.0), mk("hyb", 1, 1, 8.0), mk("hyb", 1, 2, 4.0), mk("hyb", 2, 2, 2.0),
           dict(mk("hyb2", 2, 1, None), mult_s=None)]
    model.ratios(res, "aij")
    got = {(r["variant"], r["layout"]): r["ratio_vs_baseline"] for r in res}
    assert got[("aij", "1x1")] == 1.0 and got[("aij", "2x1")] == 1.0
    assert got[("hyb", "1x1")] == pytest.approx(1.25)
    assert got[("hyb", "1x2")] == pytest.approx(1.25)  # against aij 2x1: same cores
    assert got[("hyb", "2x2")] is None  # no aij at 4 cores
    assert got[("hyb2", "2x1")] is None
    assert res[3]["baseline_layout"] == "2x1"
    # a threaded baseline (no R x 1 layout): the same layout
    res = [mk("rows", 1, 2, 6.0), mk("nnz", 1, 2, 4.0)]
    model.ratios(res, "rows")
    assert res[1]["ratio_vs_baseline"] == pytest.approx(1.5) and res[1]["baseline_layout"] == "1x2"


def test_byte_model():
    model = bench_module("model")
    b = model.bytes_per_product(rows=100, cols=100, nnz=500, ranks=2, scalar_bytes=8, int_bytes=4)
    assert b["total"] == 500 * 12 + 102 * 4 + 100 * 8 + 100 * 8
    r = model.derive({"mult_s": 1e-3, "nnz": 500, "bytes": b["total"]}, stream_gbps=0.01)
    assert r["gflops"] == pytest.approx(1e-3)
    assert r["gbps"] == pytest.approx(b["total"] / 1e-3 / 1e9)
    assert r["stream_fraction"] == pytest.approx(r["gbps"] / 0.01)
    assert r["ceiling_gflops"] == pytest.approx(2 * 500 * 0.01 / b["total"])


def test_layout_check():
    L = bench_module("layout")
    C = bench_module("config")
    assert L.check_layouts(["1x1", "2x1", "1x2"], 1, 2) == []
    bad = L.check_layouts(["2x2", "1x1", "3x1", "1x3"], 1, 2)
    assert [p.split(":")[0] for p in bad] == ["2x2", "3x1", "1x3"]
    # per node: 8 ranks x 4 threads on 2 nodes of 16 cores fits; 8 x 8 does not
    assert L.check_layouts(["8x4"], 2, 16) == []
    assert len(L.check_layouts(["8x8"], 2, 16)) == 1
    assert len(L.check_layouts(["64x8@16"], 8, 32)) == 1  # more nodes than allocated
    assert L.check_layouts(["4x8@1", "64x8@16"], 16, 32) == []
    with pytest.raises(C.ConfigError):
        C.parse_layout("2by1")
    with pytest.raises(C.ConfigError):
        C.parse_layout("0x1")
    argv, env = L.launch("2x4", "mpiexec", "pe", 1)
    assert argv[:3] == ["mpiexec", "-n", "2"] and "slot:PE=4" in argv
    assert env["OMP_NUM_THREADS"] == "4" and env["OMP_PROC_BIND"] == "close" and env["OMP_PLACES"] == "cores"
    argv, env = L.launch("64x8@16", "srun", "pe", 16)
    assert "--cpus-per-task=8" in argv and "--ntasks-per-node=4" in argv and argv[argv.index("-N") + 1] == "16"


def test_driver_refuses_too_many_cores(tmp_path):
    p = driver(["--config", "smoke", "--cores", "2", "--layouts", "1x1,2x2", "--out", str(tmp_path)], timeout=120)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "refusing" in p.stderr and "2x2" in p.stderr
    assert not (tmp_path / "smoke.json").exists()


def test_config_expansion():
    C = bench_module("config")
    for name in ("run", "quick", "full", "smoke", "cluster-fig2", "cluster-fig3"):
        cfg = C.load(name)
        vs = C.expand_variants(cfg)
        assert vs[0]["label"] == cfg["baseline"] == "aij"
        assert C.matrix_cases(cfg)
    full = C.expand_variants(C.load("full"))
    hyb = [v for v in full if v["type"] == "aijhybrid"]
    assert len(hyb) == 9 and all(v["threaded"] for v in hyb)  # 2 modes x 4 partitions, first touch
    assert {v["label"] for v in full} >= {"aij", "sell", "aijperm", "hypre", "aijhybrid:task:optimal"}


def test_solve_combinations():
    """which (variant, vector type) pairs the whole solves run: make run's config solves aij on
    standard vectors and aijhybrid on hybrid ones only (vectors_by_type); the default solves
    aijhybrid with both; equivalents are solved through the variant measured."""
    C, S = bench_module("config"), bench_module("solves")

    class V:
        def __init__(self, label, typ):
            self.label, self.spec = label, {"type": typ}

    vs = [V("aij", "aij"), V("aijhybrid", "aijhybrid"), V("sell", "sell")]
    run = C.load("run")["solves"]
    assert [(v.label, vt) for v, vt, _ in S.combinations(vs, run)] == [("aij", "standard"), ("aijhybrid", "hybrid")]
    default = dict(C.DEFAULTS["solves"], variants=None)
    assert [(v.label, vt) for v, vt, _ in S.combinations(vs, default)] == [("aij", "standard"), ("aijhybrid", "standard"), ("aijhybrid", "hybrid"), ("sell", "standard")]
    eq = S.combinations([V("aijhybrid:vector:rows", "aijhybrid")], dict(default, variants=["aijhybrid:task:rows"]), {"aijhybrid:vector:rows": ["aijhybrid:task:rows"]})
    assert [(v.label, vt, label) for v, vt, label in eq] == [("aijhybrid:vector:rows", "standard", "aijhybrid:task:rows"), ("aijhybrid:vector:rows", "hybrid", "aijhybrid:task:rows")]


def test_option_pairs():
    W = bench_module("variants")
    assert W.option_pairs("-a 1 -b -c -2 -d x") == [("a", "1"), ("b", None), ("c", "-2"), ("d", "x")]


@needs_build
@pytest.mark.parametrize("ranks,threads", [(1, 1), (1, 2), (2, 1)])
def test_stream_triad(tmp_path, ranks, threads):
    run = mpirun.run_worker("bench_stream", ranks, threads, args=[str(tmp_path)], timeout=120)
    res = run.check()
    assert res["method"] == "c-openmp" and res["triad_GBps"] > 0 and res["triad_GBps_median"] > 0
    assert res["threads_per_rank"] == threads and len(res["thread_cpus"]) == threads
    assert res["numpy"]["method"] == "numpy" and res["numpy"]["triad_GBps"] > 0


@needs_build
def test_replot(smoke, tmp_path):
    out, rec, _ = smoke
    p = driver(["--replot", str(out / "smoke.json"), "--out", str(tmp_path)], timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "vs aij" in p.stdout
    assert sorted(os.listdir(tmp_path)) == sorted(rec["plots"])
