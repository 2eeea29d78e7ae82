"""Benchmark configuration: a JSON file (share/bench/*.json) merged over DEFAULTS, and its expansion
into matrix cases, layouts and type variants.

A variant is one matrix type with its option string, e.g.
``{"label": "aijhybrid:task:nnz", "type": "aijhybrid", "options": "-mat_aijhybrid_mode task"}``.
New plugin options (first touch, node-aware exchange, ...) become new variants by a config edit.
"""

import copy
import json
import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
TOP = PACKAGE_DIR.parents[1]  # source tree: python/aijhybrid_bench -> top
# the source tree's share/bench, or, for an installed package, the copy make install puts beside it
CONFIG_DIR = TOP / "share" / "bench" if (TOP / "share" / "bench").is_dir() else PACKAGE_DIR / "data"

DEFAULTS = {
    "name": None,  # defaults to the file's stem
    "description": "",
    # matrices: generator name (aijhybrid_bench.matrices.GENERATORS), sizes in rows, generator params;
    # optional "label" (distinct labels for two entries of one generator) and "past_cache": F (grow the
    # rows until one product streams F x the last-level cache: matrix_cases)
    "matrices": [{"name": "poisson7", "rows": [10000], "params": {}}],
    # layouts: "RxT" = R MPI ranks x T OpenMP threads per rank
    "layouts": ["1x1"],
    # explicit variants; "aijhybrid" below adds one variant per mode x partition
    "variants": [{"label": "aij", "type": "aij"}],
    "aijhybrid": {"modes": ["vector", "task"], "partitions": ["rows", "nnz", "diffusion", "optimal"], "options": ""},
    "baseline": "aij",  # the variant ratios are taken against (at R = cores, T = 1)
    "timing": {
        "warmup": 3,  # products before timing (and to size the batches)
        "batch_seconds": 0.05,  # a batch of K products lasts about this long
        "rounds": 5,  # alternating rounds over all variants
        "batches_per_round": 2,  # batches per variant per round; samples = rounds x batches
        "max_batch": 100000,
        # the measured software prefetch of every aijhybrid variant that leaves it to measurement, against
        # these fixed distances on the variant's own matrix after the rounds (timing.audit_prefetch; the
        # record's choice audit): {"distances": [0, 512], "rounds": 20}, or None (an even count: the order alternates, model.round_order)
        "prefetch_audit": None,
    },
    "stream": {"array_mb": None, "repeats": 10},  # array_mb: per array per node; None: 4 x L3, >= 32 MB; at most stream.memory_cap()
    # one CG + Jacobi solve per variant (b = matrices.rhs(A), x0 = 0); "matrices" / "variants": label
    # lists to restrict it to (null: all; a listed variant measured as equivalent to another is solved
    # through that one); "max_rows": skip larger matrices
    "solve": {"enabled": True, "ksp": "cg", "pc": "jacobi", "rtol": 1e-8, "max_it": 20000, "matrices": None, "variants": None, "max_rows": None},
    # whole solves (bench/solves.py): methods (label, ksp, pc, options) x (variant, vector type) combinations,
    # set up once, solved `rounds` times alternating; PETSc's event times per solve; None: DEFAULT_METHODS;
    # vectors_by_type: {matrix type: [vector types]} in place of "vectors" for that type
    "solves": {"enabled": False, "methods": None, "vectors": ["standard", "hybrid"], "vectors_by_type": None, "rounds": 3, "rtol": 1e-8,
               "max_it": 5000, "matrices": None, "variants": None},
    # preconditioner setups (bench/pcsetup.py, issue 27): methods (label, ksp, pc, options; pc_parallel,
    # options_parallel on several ranks; rtol, max_it; variants: the labels a method runs with; opt_in: the
    # options are the plugin's that a user must ask for, shown against baseline_method's aij, never judged;
    # setup_repeats: setups more without solves after each timed one, the round's setup their median) x the
    # measured variants, a new KSP each round: KSPSetUp + KSPSetUpOnBlocks and one KSPSolve timed, PETSc's
    # events of each; warmup_rounds not recorded; "matrices": labels to restrict it to; None: DEFAULT_METHODS
    "setup": {"enabled": False, "methods": None, "rounds": 3, "warmup_rounds": 1, "rtol": 1e-8, "max_it": 2000, "matrices": None},
    # a SNES application with GAMG (bench/snes.py: PETSc's snes ex5 as built by `make snes-ex5`), run by the
    # driver after the layout jobs: runs [[layout, matrix type], ...] (None: aij 1x1, aijhybrid 1x1, aij
    # 2x1, aijhybrid 1x2), settings [{label, options}] (None: snes.DEFAULT_SETTINGS), rounds alternating;
    # grid x grid DMDA, Bratu parameter par, ksp, vec_type of the aijhybrid runs, timeout per run (s)
    "snes": {"enabled": False, "grid": 1000, "par": 6.0, "ksp": "cg", "runs": None, "settings": None, "rounds": 3, "vec_type": "hybrid",
             "timeout": 900},
    # vector operations on `length`-entry vectors, standard and hybrid, once per layout job; ops: None for all of VEC_OPS
    "vecops": {"enabled": False, "length": 1000000, "ops": None, "rounds": 5, "batch_seconds": 0.02, "threshold": None},
    # what makes the run fail (aijhybrid_bench.checks): a product farther than rel_diff_max from the
    # generated aij matrix's (relative 2-norm of y = A x), besides failed variants, jobs and solves
    "checks": {"rel_diff_max": 1e-12},
    "thread_times": True,  # record the measured per-thread times (petsc_aijhybrid.get_thread_times)
    "dedupe": True,  # skip aijhybrid variants that run the same code as an earlier one in this layout
    # "convert": generate aij once; aijhybrid = a copy converted in place, other types assembled from its CSR
    # with their type set first ("csr"); "direct": generate every variant with its type (per variant too)
    "build": "convert",
    "seed": 0,
    "binding": "pe",  # "pe": one rank per T cores (--map-by slot:PE=T --bind-to core) and OMP_PROC_BIND=close; "none"
    "launcher": "mpiexec",  # "mpiexec" (OpenMPI), "srun", or a list template with {ranks} {threads} {nodes} {ppn}
    "launcher_args": [],  # appended to the launcher's own arguments
    "layout_rounds": 1,  # run the layout jobs this many times, alternating (A B C A B C); medians over all
    # same-job baselines: a threaded layout R x T on one node runs as a paired job (aijhybrid_bench.job)
    # that also measures these pure-MPI variants at R*T x 1 on the same cores, labelled 'label@RTx1'
    # (null: the baseline); the targets of R x T layouts are judged against them
    "paired": {"enabled": True, "variants": None},
    "job_timeout": 3600,
    "env": {},  # extra environment for the jobs
}

PUREMPI_DEFAULT_TYPES = ("aij", "sell", "aijperm", "hypre", "aijsell", "aijcrl", "baij")


class ConfigError(ValueError):
    pass


def _merge(base, over):
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and v and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def find(name_or_path):
    """Path of a config: an existing file, or share/bench/<name>.json."""
    p = Path(name_or_path)
    if p.exists():
        return p
    q = CONFIG_DIR / (name_or_path if name_or_path.endswith(".json") else name_or_path + ".json")
    if q.exists():
        return q
    raise ConfigError("no config %s (looked for %s and %s)" % (name_or_path, p, q))


def load(name_or_path):
    path = find(name_or_path)
    with open(path) as f:
        raw = json.load(f)
    cfg = _merge(DEFAULTS, raw)
    cfg["name"] = cfg["name"] or path.stem
    cfg["source"] = str(path)
    cfg["raw"] = raw
    validate(cfg)
    return cfg


def parse_layout(s):
    """'2x4' -> (2, 4); 'RxT@N' (on N nodes) -> (R, T) as well (see layout_nodes)."""
    try:
        r, t = str(s).lower().split("@")[0].split("x")
        r, t = int(r), int(t)
        n = layout_nodes(s)
    except ValueError:
        raise ConfigError("layout %r is not RANKSxTHREADS or RANKSxTHREADS@NODES (e.g. 2x1, 64x8@16)" % (s,))
    if r < 1 or t < 1 or (n is not None and (n < 1 or n > r)):
        raise ConfigError("layout %r: ranks and threads must be >= 1, nodes between 1 and the ranks" % (s,))
    return r, t


def layout_nodes(s):
    """N of 'RxT@N' (None without @: the ranks spread over every node of the allocation)."""
    parts = str(s).split("@")
    return int(parts[1]) if len(parts) > 1 else None


def layout_name(r, t):
    return "%dx%d" % (r, t)


def expand_variants(cfg):
    """The explicit variants followed by the aijhybrid mode x partition grid, with defaults filled in."""
    out, after = [], []
    for v in cfg["variants"]:
        v = dict(v)
        v.setdefault("label", v["type"])
        v.setdefault("options", "")
        v.setdefault("threaded", "aijhybrid" in v["type"])
        (after if v.pop("after_grid", False) else out).append(v)
    grid = cfg.get("aijhybrid")
    if grid:
        for mode in grid.get("modes") or []:
            for part in grid.get("partitions") or []:
                opts = "-mat_aijhybrid_mode %s -mat_aijhybrid_partition %s %s" % (mode, part, grid.get("options", ""))
                out.append({"label": "aijhybrid:%s:%s" % (mode, part), "type": "aijhybrid", "options": opts.strip(), "threaded": True})
    out += after  # "after_grid": true: listed after the grid (an equivalent variant points to the first)
    labels = [v["label"] for v in out]
    dup = sorted({l for l in labels if labels.count(l) > 1})
    if dup:
        raise ConfigError("duplicate variant labels: %s" % ", ".join(dup))
    return out


def past_cache_rows(name, rows, params, multiple, llc_bytes):
    """The rows to generate matrix `name` with so that one MatMult streams at least `multiple` times
    the last-level cache (llc_bytes) from memory: `rows` itself when it already does, else the
    smallest size (to 1%) the generator's geometry gives above it. The bytes are the driver's byte
    model (model.bytes_per_product) with real scalars and 32-bit indices, the smallest of the PETSc
    flavours, so that the matrix is past the cache in every flavour. Returns (rows, bytes)."""
    import math

    from .matrices import describe
    from .model import bytes_per_product

    target, r = float(multiple) * llc_bytes, int(rows)
    for _ in range(8):
        d = describe(name, r, **params)
        nb = bytes_per_product(d["rows"], d["rows"], d.get("nnz") or d["nnz_estimate"])["total"]
        if nb >= target:
            return r, nb
        r = int(math.ceil(r * target / nb * 1.01))
    return r, nb


def matrix_cases(cfg, scale=1.0, only=None, llc_bytes=0):
    """[(name, rows, params, path)] for every matrix and size; rows scaled (>= 1000) by `scale`, and
    the parameters that shape a generated domain with them (matrices.scaled_params). A matrix with
    "past_cache": F (memory-bound benchmarks on a machine whose last-level cache could hold the
    matrix) is first grown until one product streams F times llc_bytes (past_cache_rows; with
    llc_bytes 0, unknown, it keeps its rows and says so); its case records how under "past_cache"."""
    from .matrices import scaled_params

    cases = []
    for m in cfg["matrices"]:
        if only and m["name"] not in only:
            continue
        rows = m.get("rows", [None])
        if not isinstance(rows, list):
            rows = [rows]
        for r in rows:
            past = None
            if m.get("past_cache") and r is not None:
                past = {"multiple": float(m["past_cache"]), "llc_bytes": int(llc_bytes), "rows_given": int(r)}
                if llc_bytes > 0:
                    r, past["bytes"] = past_cache_rows(m["name"], r, m.get("params", {}), m["past_cache"], llc_bytes)
                else:
                    past["unknown_cache"] = True
            rr = None if r is None else max(1000, int(round(float(r) * scale)))
            params = dict(m.get("params", {})) if r is None else scaled_params(m["name"], m.get("params", {}), scale)
            case = {"name": m["name"], "rows": rr, "params": params, "path": m.get("path"), "label": m.get("label") or m["name"]}
            if past:
                case["past_cache"] = past
            cases.append(case)
    return cases


def validate(cfg):
    if not cfg["matrices"]:
        raise ConfigError("config %s lists no matrices" % cfg["name"])
    for m in cfg["matrices"]:
        pc = m.get("past_cache")
        if pc is not None and (isinstance(pc, bool) or not isinstance(pc, (int, float)) or not pc > 0 or m.get("name") == "file"):
            raise ConfigError("matrix %s: past_cache must be a positive multiple of the last-level cache (not for files), not %r" % (m.get("label") or m.get("name"), pc))
    for l in cfg["layouts"]:
        parse_layout(l)
    variants = expand_variants(cfg)
    if cfg["baseline"] not in [v["label"] for v in variants]:
        raise ConfigError("baseline variant %r is not among the variants" % cfg["baseline"])
    if cfg["binding"] not in ("pe", "none"):
        raise ConfigError("binding must be 'pe' or 'none', not %r" % cfg["binding"])
    labels = [v["label"] for v in variants]
    for l in paired_variants(cfg):  # (an aijhybrid variant runs there with one thread per rank: its kernels as pure MPI)
        if l not in labels:
            raise ConfigError("paired.variants: %r is not a variant of the config" % (l,))
    if not float(cfg["checks"].get("rel_diff_max", 0)) > 0:
        raise ConfigError("checks.rel_diff_max must be a positive bound, not %r" % (cfg["checks"].get("rel_diff_max"),))
    t = cfg["timing"]
    if t["rounds"] < 1 or t["batches_per_round"] < 1 or t["warmup"] < 1:
        raise ConfigError("timing: rounds, batches_per_round and warmup must be >= 1")
    pa = t.get("prefetch_audit")
    if pa is not None and (not pa.get("distances") or int(pa.get("rounds", 0)) < 1 or any(int(d) < 0 for d in pa["distances"])):
        raise ConfigError("timing.prefetch_audit: distances (>= 0) and rounds (>= 1), or null, not %r" % (pa,))
    return cfg


def paired_variants(cfg):
    """The labels of the same-job baselines: the config's paired.variants, or its baseline where that
    is a pure-MPI variant (none for a threaded baseline: it runs in the layout's own job)."""
    p = cfg.get("paired") or {}
    if not p.get("enabled"):
        return []
    if p.get("variants"):
        return list(p["variants"])
    base = [v for v in expand_variants(cfg) if v["label"] == cfg["baseline"]]
    return [cfg["baseline"]] if base and not base[0]["threaded"] else []


def pair_layout(cfg, layout, nodes, oversubscribed):
    """The R*T x 1 layout a threaded layout R x T is paired with in its jobs, or None: pairing needs
    one node, the driver's own binding ("pe"), mpiexec or srun, and cores for R*T ranks."""
    r, t = parse_layout(layout)
    n = layout_nodes(layout) or nodes
    if t < 2 or n != 1 or oversubscribed or cfg["binding"] != "pe" or cfg["launcher"] not in ("mpiexec", "srun") or not paired_variants(cfg):
        return None
    return layout_name(r * t, 1)


def worker_spec(cfg, layout, cases, variants, pair=None):
    """What one layout job needs (written as JSON for the worker); pair: the layout of its same-job
    baseline (pair_layout), or None."""
    r, t = parse_layout(layout)
    return {
        "paired": {"layout": pair, "ranks": parse_layout(pair)[0], "variants": paired_variants(cfg)} if pair else None,
        "config": cfg["name"],
        "layout": layout,
        "ranks": r,
        "threads": t,
        "cases": cases,
        "variants": variants,
        "timing": cfg["timing"],
        "stream": cfg["stream"],
        "solve": cfg["solve"],
        "solves": cfg["solves"],
        "setup": cfg["setup"],
        "vecops": cfg["vecops"],
        "thread_times": cfg["thread_times"],
        "dedupe": cfg["dedupe"],
        "build": cfg["build"],
        "seed": cfg["seed"],
        "matrices_module": os.environ.get("AIJHYBRID_BENCH_MATRICES", "aijhybrid_bench.matrices"),
    }
