#!/usr/bin/env python3
"""Property-based fuzzing of aijhybrid with hypothesis: hypothesis draws a case description (a JSON
dict: matrix shape, block size, row and column layouts with ranks that own nothing, density, empty
rows, long rows, block-diagonal structure, assembly path, threads 1-3, mode, partition, row cost,
diffusion parameters, a second configuration, and a list of reassembly steps), and a persistent MPI
worker (tests/workers/fuzz.py --serve, one mpiexec per rank count, kept alive across cases to
amortise start-up) runs it and checks the properties listed there. A failing case is shrunk by
hypothesis over the description (each shrink step is another case sent to the worker) and, with
--save, written to tests/fuzz_regressions/ where `make test` replays it.

Optional options (node-aware exchange, node size, first touch, task-mode share): when `-help` of
the built examples lists them, the configurations also draw them (see OPTIONAL_DIMENSIONS: one line
per option); the worker passes every 'opt_<name>' key of a configuration through the options database
as -<prefix>mat_aijhybrid_<name>, so no worker change is needed.

usage: fuzz_driver.py [--examples N] [--ranks 1 2 4] [--seed S] [--save] [--timeout SECONDS]
"""

import argparse
import hashlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mpirun  # noqa: E402

REGRESSIONS = HERE / "fuzz_regressions"
BUILD = mpirun.BUILD
POOL_THREADS = 3  # OMP_NUM_THREADS of the workers; cases set 1..3 threads per matrix
CASE_TIMEOUT = 120

# optional strategy dimensions, each guarded by its option being listed by -help: (option, key, values)
OPTIONAL_DIMENSIONS = [
    ("-mat_aijhybrid_node_aware", "opt_node_aware", ("0", "1")),
    ("-mat_aijhybrid_node_size", "opt_node_size", ("1", "2", "3", "4")),
    ("-mat_aijhybrid_first_touch", "opt_first_touch", ("0", "1")),
    ("-mat_aijhybrid_task_share", "opt_task_share", ("-1", "0", "0.5", "1")),
    ("-mat_aijhybrid_prefetch", "opt_prefetch", ("-1", "0", "1", "512")),
]


def available_options():
    """the -mat_aijhybrid_* options -help lists (examples/ex1 calls MatSetFromOptions). Fails, never
    returns an empty set silently: a -help that cannot be read would make the optional dimensions vanish."""
    exe = BUILD / "examples" / "ex1"
    if not exe.exists():
        raise RuntimeError("%s not built (make examples): the fuzzer reads the options from its -help" % exe)
    run = mpirun.run([exe, "-n", "2", "-mat_type", "aijhybrid", "-help"], ranks=1, threads=1, timeout=60)
    found = {w.split("<")[0].rstrip(":") for w in run.output.split() if w.startswith("-mat_aijhybrid_")}
    if run.rc != 0 or "-mat_aijhybrid_num_threads" not in found:
        raise RuntimeError("cannot read the options from -help of %s:\n%s" % (exe, run.describe()))
    return found


# ------------------------------------------------------------------------------------------------
# the strategy


def strategies(ranks_allowed, options=frozenset()):
    from hypothesis import strategies as st

    PATTERNS = ("decide", "zero_first", "zero_middle", "zero_last", "random")
    extra = [(key, values) for opt, key, values in OPTIONAL_DIMENSIONS if opt in options]

    @st.composite
    def config(draw):
        c = {
            "threads": draw(st.integers(1, 3)),
            "mode": draw(st.sampled_from(("auto", "vector", "task"))),
            "partition": draw(st.sampled_from(("nnz", "rows", "diffusion", "optimal"))),
            "row_cost": draw(st.one_of(st.just(2.0), st.just(0.0), st.floats(0.0, 20.0, allow_nan=False))),
            "diffusion_tol": draw(st.one_of(st.just(0.01), st.floats(0.0, 1.0, allow_nan=False))),
            "diffusion_max_it": draw(st.integers(0, 60)),
        }
        for key, values in extra:
            c[key] = draw(st.sampled_from(values))
        return c

    op = st.fixed_dictionaries(
        {
            "op": st.sampled_from(("add_anywhere", "add_local", "set_existing", "zero_rows")),
            "seed": st.integers(0, 2**31 - 1),
            "count": st.integers(1, 12),
            "diag": st.booleans(),
        }
    )

    COEF = st.sampled_from((0.0, 1.0, -1.0, 2.5, -0.75))
    VEC_OPS = ("axpy", "aypx", "axpby", "axpbypcz", "waxpy", "maxpy", "scale", "set", "shift", "pointwisemult", "pointwisedivide",
               "reciprocal", "abs", "copy", "swap", "dot", "tdot", "norm1", "norm2", "norminf", "sum", "max", "min")
    vec_op = st.fixed_dictionaries({"op": st.sampled_from(VEC_OPS), "a": COEF, "b": COEF, "c": COEF, "k": st.integers(1, 6)})

    @st.composite
    def vectors(draw):
        """hybrid vectors (issue 11): a sequence of vector operations and maybe a GMRES solve"""
        return {
            "threads": draw(st.integers(1, 3)),
            "threshold": draw(st.sampled_from((0, 20000))),
            "special": draw(st.booleans()),  # NaN, Inf and zeros among the values
            "ops": draw(st.lists(vec_op, min_size=1, max_size=8)),
            "solve": draw(st.booleans()),
        }

    @st.composite
    def case(draw):
        bs = draw(st.sampled_from((1, 2, 3)))
        mb = draw(st.integers(1, 40 // bs))
        square = draw(st.booleans())
        nb = mb if square else draw(st.integers(1, 40 // bs))
        rpat = draw(st.sampled_from(PATTERNS))
        d = {
            "ranks": draw(st.sampled_from(tuple(ranks_allowed))),
            "M": mb * bs,
            "N": nb * bs,
            "bs": bs,
            "rpat": rpat,
            "cpat": rpat if square else draw(st.sampled_from(PATTERNS)),
            "density": draw(st.one_of(st.just(3.0), st.floats(0.0, 12.0, allow_nan=False))),
            "empty": draw(st.one_of(st.just(0.0), st.floats(0.0, 0.95, allow_nan=False))),
            "heavy": draw(st.integers(0, 2)),
            "blockdiag": draw(st.booleans()) if square else False,
            "diag": draw(st.booleans()),
            "build": draw(st.sampled_from(("csr", "values", "convert"))),
            "seed": draw(st.integers(0, 2**31 - 1)),
            "config": draw(config()),
            "alt": draw(config()),
            "reassembly": draw(st.lists(op, max_size=3)),
            "vectors": draw(vectors()),
        }
        return d

    return case()


# ------------------------------------------------------------------------------------------------
# persistent MPI workers


class Worker:
    """tests/workers/fuzz.py --serve on `ranks` ranks; one case per line on its stdin"""

    def __init__(self, ranks, threads=POOL_THREADS):
        self.ranks = ranks
        cmd = mpirun.mpiexec_cmd(ranks) + [mpirun.PYTHON, str(mpirun.WORKERS / "fuzz.py"), "--serve"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=mpirun.environment(threads), cwd=str(mpirun.ROOT), text=True, bufsize=1, start_new_session=True)
        self.lines = queue.Queue()
        self.err = deque(maxlen=80)
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.err.append), daemon=True).start()

    @staticmethod
    def _pump(stream, put):
        for line in stream:
            put(line)
        put(None)

    def alive(self):
        return self.proc.poll() is None

    def run(self, case, timeout=CASE_TIMEOUT):
        try:
            self.proc.stdin.write(json.dumps(case) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return {"status": "fail", "error": "worker died before the case:\n" + "".join(l for l in self.err if l)}
        deadline = time.time() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                self.kill()
                return {"status": "fail", "error": "hang: no answer within %d s (worker killed)\n%s" % (timeout, "".join(l for l in self.err if l))}
            if line is None:
                self.proc.wait()
                return {"status": "fail", "error": "worker exited (code %s) during the case:\n%s" % (self.proc.returncode, "".join(l for l in self.err if l))}
            if line.startswith("@@CASE "):
                return json.loads(line[len("@@CASE "):])

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def close(self):
        if self.alive():
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=60)
            except Exception:
                self.kill()


class Pool:
    def __init__(self):
        self.workers = {}
        self.count = {}
        self.stats = {"products": 0, "partitions": 0, "max_rel_err": 0.0, "reassembly_steps": 0, "vector_ops": 0, "solves": 0}
        self.drawn = {}  # optional dimension key -> values drawn in the configurations of the cases run

    def run(self, case):
        r = case["ranks"]
        for c in (case.get("config", {}), case.get("alt", {})):
            for key, value in c.items():
                if key.startswith("opt_"):
                    self.drawn.setdefault(key, set()).add(value)
        w = self.workers.get(r)
        if w is None or not w.alive():
            w = self.workers[r] = Worker(r)
        res = w.run(case)
        if res.get("status") == "ok":
            s = res["stats"]
            self.stats["products"] += s["products"]
            self.stats["partitions"] += s["partitions"]
            self.stats["max_rel_err"] = max(self.stats["max_rel_err"], s["max_rel_err"])
            self.stats["reassembly_steps"] += len(case.get("reassembly", []))
            self.stats["vector_ops"] += s.get("vector_ops", 0)
            self.stats["solves"] += s.get("solves", 0)
        self.count[r] = self.count.get(r, 0) + 1
        return res

    def close(self):
        for w in self.workers.values():
            w.close()


# ------------------------------------------------------------------------------------------------


def fuzz(examples, ranks=(1, 2, 4), seed=0, pool=None, mutate=None, options=None, verbose=False):
    """Run `examples` hypothesis examples. Returns (n_cases, failure): failure is None or a dict with
    the shrunk case and its error. `mutate(case)` may change a drawn case (tests of the fuzzer)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    own = pool is None
    pool = pool or Pool()
    options = available_options() if options is None else options
    state = {"n": 0, "last_fail": None}

    @hseed(seed)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink], print_blob=False, report_multiple_bugs=False)
    @given(strategies(ranks, options))
    def prop(d):
        d = dict(d, id=state["n"])
        if mutate:
            d = mutate(d)
        state["n"] += 1
        res = pool.run(d)
        if verbose:
            print("case %d (%d ranks, %dx%d, T=%d %s %s): %s" % (d["id"], d["ranks"], d["M"], d["N"], d["config"]["threads"], d["config"]["mode"], d["config"]["partition"], res["status"]), flush=True)
        if res["status"] != "ok":
            state["last_fail"] = {"case": d, "error": res.get("error", "")}
            raise AssertionError(res.get("error", ""))

    failure = None
    try:
        prop()
    except AssertionError:
        failure = state["last_fail"]
    finally:
        if own:
            pool.close()
    return state["n"], failure


def save_regression(failure, note="found by make fuzz"):
    REGRESSIONS.mkdir(exist_ok=True)
    case = {k: v for k, v in failure["case"].items() if k != "id"}
    h = hashlib.sha256(json.dumps(case, sort_keys=True).encode()).hexdigest()[:12]
    path = REGRESSIONS / ("found-%s.json" % h)
    path.write_text(json.dumps({"note": note, "error": failure["error"][:2000], "case": case}, indent=1, sort_keys=True) + "\n")
    return path


def summary(n, failure, pool, seed, examples, ranks, dims, elapsed):
    """the record of a run (make records, CI): what was run and what was checked"""
    return {
        "seed": seed,
        "examples": examples,
        "cases": n,
        "ranks": list(ranks),
        "cases_by_ranks": {str(k): v for k, v in sorted(pool.count.items())},
        "optional_dimensions": dims,
        "optional_drawn": {k: sorted(v) for k, v in sorted(pool.drawn.items())},
        "products": pool.stats["products"],
        "partitions": pool.stats["partitions"],
        "reassembly_steps": pool.stats["reassembly_steps"],
        "vector_ops": pool.stats["vector_ops"],
        "solves": pool.stats["solves"],
        "max_rel_err": pool.stats["max_rel_err"],
        "failure": None if failure is None else {"case": failure["case"], "error": failure["error"][:4000]},
        "seconds": round(elapsed, 1),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=400)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--seed", type=int, default=None, help="default: time-based (printed)")
    ap.add_argument("--save", action="store_true", default=True, help="write a shrunk failure to tests/fuzz_regressions/ (default)")
    ap.add_argument("--no-save", dest="save", action="store_false")
    ap.add_argument("--json", default=None, help="write the summary of the run (seed, counts, checks) here")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    options = available_options()
    dims = [opt for opt, _, _ in OPTIONAL_DIMENSIONS if opt in options]
    print("fuzz: %d examples, ranks %s, seed %d, optional dimensions: %s" % (args.examples, args.ranks, seed, ", ".join(dims) or "none (options not in -help)"), flush=True)
    t0 = time.time()
    pool = Pool()
    try:
        n, failure = fuzz(args.examples, tuple(args.ranks), seed, pool=pool, options=options, verbose=args.verbose)
    finally:
        pool.close()
    el = time.time() - t0
    print("fuzz: %d cases run (by ranks: %s) in %.0f s; %d products and %d partitions checked, %d reassembly steps, %d vector operations, %d solves, max relative error %.3g" % (n, dict(sorted(pool.count.items())), el, pool.stats["products"], pool.stats["partitions"], pool.stats["reassembly_steps"], pool.stats["vector_ops"], pool.stats["solves"], pool.stats["max_rel_err"]))
    print("fuzz: optional dimensions drawn: %s" % ", ".join("%s %s" % (k, sorted(v)) for k, v in sorted(pool.drawn.items())))
    missing = [key for opt, key, _ in OPTIONAL_DIMENSIONS if opt in options and key not in pool.drawn]
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(summary(n, failure, pool, seed, args.examples, args.ranks, dims, el), indent=1, sort_keys=True) + "\n")
    if failure:
        print("fuzz: FAILURE (shrunk case):\n%s\n%s" % (json.dumps(failure["case"], sort_keys=True), failure["error"]))
        if args.save:
            print("fuzz: saved as %s (replayed by make test)" % save_regression(failure))
        return 1
    if missing and n >= 50:
        print("fuzz: FAILURE: optional dimensions listed by -help but never drawn: %s" % ", ".join(missing))
        return 1
    print("fuzz: no failure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
