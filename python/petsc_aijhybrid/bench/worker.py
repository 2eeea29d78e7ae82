"""One benchmark job: runs under mpiexec/srun with one layout (ranks x threads) and measures, in this
one process set, every matrix x variant of its spec (written by the driver, petsc_aijhybrid.bench).

    python -m petsc_aijhybrid.bench.worker --spec SPEC.json --out PART.json [--stream-lib LIB]

Per matrix: generate it once as aij, make each variant from a copy (MatConvert in place) or generate
it with its type, set its options under its own prefix (PetscSF options, -sf_*, are set without a
prefix while the variant is built, since PETSc's VecScatter of MATMPIAIJ and the plugin's halo read
them there; an aij variant with them is assembled afresh, since a copy would share the original's
VecScatter), warm up, then time the products in
alternating rounds (each round visits every variant, the order rotating from round to round):
MPI barrier, MPI_Wtime, K products, barrier, MPI_Wtime; K is chosen from the warm-up so that a
batch lasts about timing.batch_seconds. The median over all batches is the product time. Then, for
aijhybrid variants, the partition info (petsc_aijhybrid.get_partition_info), the measured per-thread
times of the products (get_thread_times: exchange, diagonal and off-diagonal block per thread) and,
where the plugin offers it, get_exchange_stats() (also for an aij variant with -sf_type nodeaware: the
node-aware SF of its ghost pattern); then one CG + Jacobi solve per variant.
"""

import argparse
import importlib
import json
import math
import os
import resource
import shlex
import socket
import sys
import time
import traceback

PETSc = None
MPI = None
comm = None
ph = None

def is_hybrid(mat_type):
    """aijhybrid, seqaijhybrid, mpiaijhybrid."""
    return "aijhybrid" in mat_type


def log(msg):
    if comm.Get_rank() == 0:
        print("@@PROGRESS " + msg, flush=True)


def rss_now():
    """Resident set size of this process now, bytes."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB


def wtime_barrier():
    comm.Barrier()
    return MPI.Wtime()


def thread_times(A):
    """Per-rank dicts of the measured per-thread times of A's forward products
    (petsc_aijhybrid.get_thread_times), gathered to every rank."""
    t = ph.get_thread_times(A)
    ms = lambda v: [1e3 * x for x in v]  # noqa: E731
    busy = [c + d + o for c, d, o in zip(t["comm"], t["diag"], t["offd"])]
    d = {
        "rank": comm.Get_rank(),
        "products": t["products"],
        "mode": ph.get_mode(A),
        "busy_ms": ms(busy),
        "comm_ms": ms(t["comm"]),
        "diag_ms": ms(t["diag"]),
        "offd_ms": ms(t["offd"]),
        "measured_imbalance": (max(busy) / (sum(busy) / len(busy))) if busy and sum(busy) > 0 else 1.0,
    }
    if d["mode"] == "task" and len(busy) > 1 and t["comm"][0] > 0:
        others = max(t["diag"][1:])
        d["halo_ms"] = 1e3 * t["comm"][0]
        d["diag_ms_others"] = 1e3 * others
        d["halo_hidden_pct"] = 100.0 * min(t["comm"][0], others) / t["comm"][0]
        d["task_share"] = ph.get_task_share(A)[1]
    return comm.allgather(d)


def option_pairs(options):
    """'-a 1 -b -c x' -> [('a', '1'), ('b', None), ('c', 'x')]."""
    toks = shlex.split(options or "")
    out, i = [], 0
    while i < len(toks):
        k = toks[i]
        if not k.startswith("-"):
            raise ValueError("option string %r: %r is not an option" % (options, k))
        if i + 1 < len(toks) and not (toks[i + 1].startswith("-") and not _is_number(toks[i + 1])):
            out.append((k.lstrip("-"), toks[i + 1]))
            i += 2
        else:
            out.append((k.lstrip("-"), None))
            i += 1
    return out


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def software():
    import numpy
    import petsc4py

    v = PETSc.Sys.getVersion()
    return {
        "petsc_version": "%d.%d.%d" % tuple(v),
        "petsc4py_version": petsc4py.__version__,
        "petsc_int_bytes": PETSc.IntType().itemsize,
        "petsc_scalar": str(PETSc.ScalarType().dtype) if hasattr(PETSc.ScalarType(), "dtype") else str(PETSc.ScalarType),
        "hypre": bool(PETSc.Sys.hasExternalPackage("hypre")),
        "mpi_library": MPI.Get_library_version().strip().splitlines()[0],
        "mpi_thread_level": {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled", MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}.get(MPI.Query_thread()),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "plugin_version": getattr(ph, "__version__", None),
        "plugin_library": ph.library_path(),
        "plugin_has_exchange_stats": hasattr(ph, "get_exchange_stats"),
    }


def _affinity():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return None


def binding(stream_lib, nthreads):
    """Where each rank runs: its main thread's CPU set (after the OpenMP runtime, loaded with the
    plugin, pinned it to its place under OMP_PROC_BIND) and the CPU each OpenMP thread runs on."""
    from . import stream

    me = {"rank": comm.Get_rank(), "host": socket.gethostname(), "pid": os.getpid(),
          "main_thread_cpus": _affinity(), "thread_cpus": stream.thread_cpus(stream_lib, nthreads)}
    ranks = comm.gather(me, root=0)
    env = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND", "OMP_WAIT_POLICY")}
    return {"ranks": ranks, "env": env, "nodes": len({r["host"] for r in ranks}) if ranks else None}


class Variant:
    def __init__(self, spec, index):
        self.spec = spec
        self.label = spec["label"]
        self.index = index
        self.prefix = "bv%d_" % index
        self.A = self.x = self.y = None
        self.rec = {"label": self.label, "type": spec["type"], "options": spec.get("options", ""), "status": "ok"}
        self.samples = []
        self.batch = 1


def set_options(prefix, pairs):
    opts = PETSc.Options()
    for k, v in pairs:
        opts.setValue(prefix + k, "" if v is None else v)


def clear_options(prefix, pairs):
    opts = PETSc.Options()
    for k, _ in pairs:
        opts.delValue(prefix + k)


def sf_options(pairs):
    """The PetscSF options (-sf_*) of an option list: PETSc reads them without a prefix."""
    return [(k, val) for k, val in pairs if k.startswith("sf_")]


def build_variant(v, spec, case, base, matrices):
    T = spec["threads"]
    pairs = option_pairs(v.spec.get("options", ""))
    sfpairs = sf_options(pairs)
    pairs = [p for p in pairs if p not in sfpairs]
    if is_hybrid(v.spec["type"]) and not any(k == "mat_aijhybrid_num_threads" for k, _ in pairs):
        pairs.append(("mat_aijhybrid_num_threads", str(T)))
    v.rec["options_set"] = " ".join("-%s%s" % (k, "" if val is None else " " + val) for k, val in pairs + sfpairs)
    r0 = rss_now()
    t0 = wtime_barrier()
    build = v.spec.get("build", spec["build"])
    if build == "convert" and v.spec["type"] not in ("aij", "aijhybrid", "seqaijhybrid" if comm.Get_size() == 1 else "mpiaijhybrid"):
        build = "csr"  # PETSc 3.18's MatConvert_MPIAIJ_MPISELL leaves the column layout unset: assemble natively
    if sfpairs and build == "convert" and not is_hybrid(v.spec["type"]):
        build = "csr"  # a copy of an aij matrix shares its VecScatter: assemble one with the -sf_* options
    v.rec["build"] = build
    set_options("", sfpairs)
    if build == "direct":
        A = matrices.create(case["name"], case["rows"], mat_type=v.spec["type"], seed=spec["seed"], path=case.get("path"), **case["params"])
    elif build == "csr":
        A = copy_csr(base, v.spec["type"])
    else:
        A = base.duplicate(copy=True)
        if v.spec["type"] != "aij":
            A.convert(v.spec["type"])  # in place (petsc4py: out=None)
    A.setOptionsPrefix(v.prefix)
    set_options(v.prefix, pairs)
    A.setFromOptions()
    clear_options(v.prefix, pairs)
    x, y = A.createVecs()
    fill_x(x)
    y.set(0.0)
    t1 = wtime_barrier()
    # warm-up: also builds the plugin's caches (partition, exchange) on the first product
    nw = spec["timing"]["warmup"]
    A.mult(x, y)
    clear_options("", sfpairs)
    t2 = wtime_barrier()
    per = t2 - t1
    hybrid = is_hybrid(v.spec["type"])
    k = 1
    # batch size from the fastest warm-up product (robust to a slow one); aijhybrid: at least until
    # every rank has chosen its software prefetch from measured products (src/mat/prefetch.c)
    while k < nw or (hybrid and k < 64 and not comm.allreduce(ph.get_prefetch(A)[1] is not None, op=MPI.LAND)):
        t3 = wtime_barrier()
        A.mult(x, y)
        per = min(per, wtime_barrier() - t3)
        k += 1
    per = comm.allreduce(per, op=MPI.MAX)
    tm = spec["timing"]
    v.batch = int(min(tm["max_batch"], max(1, math.ceil(tm["batch_seconds"] / max(per, 1e-9)))))
    v.rec.update(
        mat_type=A.getType(),
        build_s=t1 - t0,
        first_product_s=t2 - t1,
        warmup_product_s=per,
        batch=v.batch,
        warmup_products=k,
        rss_delta_bytes_sum=comm.allreduce(rss_now() - r0, op=MPI.SUM),
    )
    v.A, v.x, v.y = A, x, y
    if hybrid:
        v.rec["prefetch"] = comm.allgather(ph.get_prefetch(A)[1])  # per rank: nonzeros ahead, 0 off
        v.rec["mode"] = ph.get_mode(A)
        v.rec["partition"] = ph.get_partition_type(A)
        v.rec["nthreads"] = ph.get_num_threads(A)
    return v


def preallocate(A, dnnz, onnz):
    """MatXAIJSetPreallocation (AIJ, BAIJ, hypre, ...) and the SELL preallocations, which petsc4py
    3.18's setPreallocationNNZ does not reach; called through the libpetsc the plugin links."""
    import ctypes

    import numpy as np

    lib = ph._loader.lib()
    I = ctypes.c_int64 if PETSc.IntType().itemsize == 8 else ctypes.c_int32
    d = np.ascontiguousarray(dnnz, dtype=PETSc.IntType)
    o = np.ascontiguousarray(onnz, dtype=PETSc.IntType)
    dp, op = d.ctypes.data_as(ctypes.c_void_p), o.ctypes.data_as(ctypes.c_void_p)
    mat = ctypes.c_void_p(A.handle)
    calls = [("MatXAIJSetPreallocation", (mat, I(1), dp, op, None, None)),
             ("MatSeqSELLSetPreallocation", (mat, I(0), dp)),
             ("MatMPISELLSetPreallocation", (mat, I(0), dp, I(0), op))]
    for name, args in calls:
        err = getattr(lib, name)(*args)
        if err:
            raise PETSc.Error(err)


def copy_csr(base, mat_type):
    """A matrix of mat_type with base's entries, type set before preallocation and assembly."""
    import numpy as np

    ia, ja, a = base.getValuesCSR()
    cs, ce = base.getOwnershipRangeColumn()
    inside = ((ja >= cs) & (ja < ce)).astype(np.int64)
    csum = np.concatenate([[0], np.cumsum(inside)])
    dnnz = (csum[ia[1:]] - csum[ia[:-1]]).astype(PETSc.IntType)
    onnz = (np.diff(ia) - dnnz).astype(PETSc.IntType)
    A = PETSc.Mat().create(comm=base.getComm())
    A.setSizes(base.getSizes(), base.getBlockSize())
    A.setType(mat_type)
    preallocate(A, dnnz, onnz)
    A.setValuesCSR(ia, ja, a)
    A.assemble()
    return A


def fill_x(x):
    """x_i = 1.5 + sin(0.37 i) (global index i): the same vector at any rank count, no zeros."""
    import numpy as np

    rs, re_ = x.getOwnershipRange()
    x.setArray(1.5 + np.sin(0.37 * np.arange(rs, re_, dtype=float)))


def check_against(v, yref):
    """Relative 2-norm difference of v's last y = A x from the generated aij matrix's (same x)."""
    d = v.y.copy()
    d.axpy(-1.0, yref)
    n = yref.norm()
    e = d.norm() / n if n else d.norm()
    d.destroy()
    return e


def dedupe_key(v):
    if not is_hybrid(v.spec["type"]):
        return None
    rest = tuple(sorted((k, val) for k, val in option_pairs(v.rec["options_set"]) if k not in ("mat_aijhybrid_mode", "mat_aijhybrid_partition")))
    return (v.rec["mat_type"], v.rec["mode"], v.rec["partition"] if v.rec["nthreads"] > 1 else "*", v.rec["nthreads"], rest)


def timed_rounds(active, timing):
    rounds, bpr = timing["rounds"], timing["batches_per_round"]
    n = len(active)
    for r in range(rounds):
        order = active[r % n:] + active[: r % n] if n else []
        if r % 2:
            order = order[::-1]
        for v in order:
            A, x, y, K = v.A, v.x, v.y, v.batch
            for _ in range(bpr):
                comm.Barrier()
                t0 = MPI.Wtime()
                for _ in range(K):
                    A.mult(x, y)
                comm.Barrier()
                v.samples.append((MPI.Wtime() - t0) / K)
        log("  round %d/%d done" % (r + 1, rounds))


def gather_partition(v):
    info = ph.get_partition_info(v.A)
    allinfo = comm.gather(info, root=0)
    if comm.Get_rank() != 0:
        return None
    return {
        "nthreads": allinfo[0]["nthreads"],
        "type": allinfo[0]["type"],
        "imbalance_max": max(i["imbalance"] for i in allinfo),
        "imbalance_offdiag_max": max(i["imbalance_offdiag"] for i in allinfo),
        "sweeps_max": max(i["sweeps"] for i in allinfo),
        "build_time_max_s": max(i["build_time"] for i in allinfo),
        "builds": allinfo[0]["builds"],
        "per_rank": allinfo,
    }


def solve(v, b, cfg):
    A = v.A
    ksp = PETSc.KSP().create(comm=A.getComm())
    ksp.setOptionsPrefix(v.prefix + "bench_")
    ksp.setOperators(A)
    ksp.setType(cfg["ksp"])
    ksp.getPC().setType(cfg["pc"])
    ksp.setTolerances(rtol=cfg["rtol"], max_it=cfg["max_it"])
    xs = v.x.duplicate()
    xs.set(0.0)
    t0 = wtime_barrier()
    ksp.setUp()
    t1 = wtime_barrier()
    ksp.solve(b, xs)
    t2 = wtime_barrier()
    r = b.duplicate()
    A.mult(xs, r)
    r.aypx(-1.0, b)
    bn = b.norm()
    out = {
        "ksp": cfg["ksp"],
        "pc": cfg["pc"],
        "rtol": cfg["rtol"],
        "iterations": ksp.getIterationNumber(),
        "reason": int(ksp.getConvergedReason()),
        "converged": ksp.getConvergedReason() > 0,
        "setup_s": t1 - t0,
        "solve_s": t2 - t1,
        "relative_residual": r.norm() / bn if bn else None,
    }
    for o in (ksp, xs, r):
        o.destroy()
    return out


def run_case(spec, case, matrices, stream_lib):
    T = spec["threads"]
    rec = {"matrix": case["name"], "label": case["label"], "rows_requested": case["rows"], "params": case["params"], "path": case.get("path")}
    try:
        rec["description"] = matrices.describe(case["name"], case["rows"], seed=spec["seed"], path=case.get("path"), **case["params"])
    except Exception as e:  # describe is informational
        rec["description"] = {"error": "%s: %s" % (type(e).__name__, e)}
    log("%s rows=%s: generating" % (case["name"], case["rows"]))
    r0 = rss_now()
    t0 = wtime_barrier()
    base = matrices.create(case["name"], case["rows"], mat_type="aij", seed=spec["seed"], path=case.get("path"), **case["params"])
    rec["generate_s"] = wtime_barrier() - t0
    rec["generate_rss_delta_bytes_sum"] = comm.allreduce(rss_now() - r0, op=MPI.SUM)
    M, N = base.getSize()
    info = base.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)
    nnz = int(info["nz_used"])
    ranks = comm.Get_size()
    from . import model

    rec.update(rows=M, cols=N, nnz=nnz, nnz_per_row=nnz / M if M else 0,
               int_bytes=PETSc.IntType().itemsize, scalar_bytes=PETSc.ScalarType().itemsize)
    rec["bytes"] = model.bytes_per_product(M, N, nnz, ranks, rec["scalar_bytes"], rec["int_bytes"])
    rl = base.getOwnershipRange()
    local = comm.gather((rl[1] - rl[0], int(base.getInfo(PETSc.Mat.InfoType.LOCAL)["nz_used"])), root=0)
    if comm.Get_rank() == 0:
        rec["rank_rows"] = [l[0] for l in local]
        rec["rank_nnz"] = [l[1] for l in local]
    # right-hand side for the solves
    if hasattr(matrices, "rhs"):
        b = matrices.rhs(base)
        rec["rhs"] = "matrices.rhs"
    else:
        ones = base.createVecRight()
        ones.set(1.0)
        b = base.createVecLeft()
        base.mult(ones, b)
        ones.destroy()
        rec["rhs"] = "A * ones"
    hypre = bool(PETSc.Sys.hasExternalPackage("hypre"))
    variants, seen = [], {}
    for i, vs in enumerate(spec["variants"]):
        v = Variant(vs, i)
        if T > 1 and not vs.get("threaded"):
            continue  # a pure-MPI type: measured in the layouts with one thread per rank
        req = vs.get("requires")
        if vs["type"] == "hypre" and not hypre:
            req = "hypre"
        if req and not PETSc.Sys.hasExternalPackage(req):
            v.rec.update(status="skipped", reason="PETSc has no %s" % req)
            variants.append(v)
            continue
        log("%s rows=%d: building %s" % (case["name"], M, v.label))
        try:
            build_variant(v, spec, case, base, matrices)
        except Exception as e:
            v.rec.update(status="error", reason="%s: %s" % (type(e).__name__, e))
            sys.stderr.write("[rank %d] variant %s failed:\n%s" % (comm.Get_rank(), v.label, traceback.format_exc()))
            variants.append(v)
            continue
        key = dedupe_key(v) if spec["dedupe"] else None
        if key is not None and key in seen:
            v.rec.update(status="equivalent", equivalent_to=seen[key],
                         reason="runs the same code as %s here (mode %s, %d thread(s))" % (seen[key], v.rec["mode"], v.rec["nthreads"]))
            for o in (v.A, v.x, v.y):
                o.destroy()
            v.A = None
        elif key is not None:
            seen[key] = v.label
        variants.append(v)
    # reference product of the generated aij matrix, to check every variant's y = A x against
    xr, yref = base.createVecs()
    fill_x(xr)
    base.mult(xr, yref)
    xr.destroy()
    base.destroy()
    active = [v for v in variants if v.A is not None]
    log("%s rows=%d nnz=%d: timing %d variants" % (case["name"], M, nnz, len(active)))
    timed_rounds(active, spec["timing"])
    for v in active:
        v.rec["rel_diff_vs_aij"] = check_against(v, yref)
        s = sorted(v.samples)
        v.rec.update(samples_s=v.samples, mult_s=s[len(s) // 2] if len(s) % 2 else 0.5 * (s[len(s) // 2 - 1] + s[len(s) // 2]),
                     mult_min_s=s[0], mult_max_s=s[-1], products=len(s) * v.batch)
        if is_hybrid(v.spec["type"]):
            v.rec["partition_info"] = gather_partition(v)
            if spec["thread_times"]:
                tt = thread_times(v.A)
                v.rec["thread_times"] = tt
                v.rec["measured_imbalance_max"] = max(d["measured_imbalance"] for d in tt)
            if hasattr(ph, "get_exchange_stats"):
                st = comm.gather(ph.get_exchange_stats(v.A), root=0)
                v.rec["exchange_stats"] = st
        elif hasattr(ph, "halo_sf") and comm.Get_size() > 1 and dict(sf_options(option_pairs(v.spec.get("options", "")))).get("sf_type") == "nodeaware":
            k = dict(sf_options(option_pairs(v.spec.get("options", "")))).get("sf_nodeaware_node_size")
            v.rec["exchange_stats"] = comm.gather(ph.get_exchange_stats(v.A, node_size=int(k) if k else None), root=0)
    sv = spec["solve"]
    if sv.get("enabled", True) and (not sv.get("matrices") or case["label"] in sv["matrices"]) and not (sv.get("max_rows") and M > sv["max_rows"]):
        for v in active:
            # a listed variant measured as equivalent to v is solved through v
            labels = {v.label} | {u.label for u in variants if u.rec.get("equivalent_to") == v.label}
            if sv.get("variants") and not labels & set(sv["variants"]):
                continue
            log("%s rows=%d: solving with %s" % (case["name"], M, v.label))
            try:
                v.rec["solve"] = solve(v, b, spec["solve"])
            except Exception as e:
                v.rec["solve"] = {"error": "%s: %s" % (type(e).__name__, e)}
    svs = spec.get("solves") or {}
    if svs.get("enabled") and (not svs.get("matrices") or case["label"] in svs["matrices"]):
        from . import solves

        log("%s rows=%d: whole solves" % (case["name"], M))
        equivalents = {}
        for u in variants:
            if u.rec.get("equivalent_to"):
                equivalents.setdefault(u.rec["equivalent_to"], []).append(u.label)
        rec["solves"] = solves.measure_solves(PETSc, MPI, ph, comm, active, b, svs, log, equivalents)
    for v in active:
        for o in (v.A, v.x, v.y):
            o.destroy()
        v.A = None
    b.destroy()
    yref.destroy()
    rec["peak_rss_bytes_sum"] = comm.allreduce(peak_rss(), op=MPI.SUM)
    rec["variants"] = [v.rec for v in variants]
    return rec


def main(argv=None):
    global PETSc, MPI, comm, ph
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stream-lib", default=None)
    args, petsc_args = ap.parse_known_args(argv)
    import petsc4py

    petsc4py.init([sys.argv[0]] + petsc_args)
    from petsc4py import PETSc as _P
    from mpi4py import MPI as _M

    PETSc, MPI, comm = _P, _M, _M.COMM_WORLD
    import petsc_aijhybrid

    ph = petsc_aijhybrid
    from . import stream

    with open(args.spec) as f:
        spec = json.load(f)
    if comm.Get_size() != spec["ranks"]:
        raise SystemExit("worker: started on %d ranks, the spec is for %s" % (comm.Get_size(), spec["layout"]))
    matrices = importlib.import_module(spec["matrices_module"])
    t_start = MPI.Wtime()
    T = spec["threads"]
    out = {"layout": spec["layout"], "ranks": spec["ranks"], "threads": T, "cores": spec["ranks"] * T}
    out["software"] = software()
    out["binding"] = binding(args.stream_lib, T)
    if comm.Get_rank() == 0 and out["binding"]["ranks"]:
        got = [len(r["thread_cpus"] or []) for r in out["binding"]["ranks"]]
        if args.stream_lib and min(got) != T:
            print("@@WARNING OpenMP gave %s threads, not %d" % (got, T), flush=True)
        per_host = {}
        for r in out["binding"]["ranks"]:
            per_host.setdefault(r["host"], []).extend(r["thread_cpus"] or [])
        shared = {h: len(c) - len(set(c)) for h, c in per_host.items() if len(c) != len(set(c))}
        if args.stream_lib and shared and os.environ.get("OMP_PROC_BIND") == "close":
            print("@@WARNING threads of this job share CPUs (%s): check the binding" % shared, flush=True)
    st = spec["stream"]
    arr = st.get("array_mb")
    if not arr:
        from .machine import l3_bytes

        arr = max(32 << 20, 4 * l3_bytes()) / float(1 << 20)
    log("STREAM triad (%.0f MB per array per node)" % arr)
    out["stream"] = {"start": stream.measure(comm, args.stream_lib, T, arr * (1 << 20), st.get("repeats", 10))}
    log("STREAM triad %.1f GB/s" % out["stream"]["start"]["triad_GBps"])
    if (spec.get("solves") or {}).get("enabled"):
        PETSc.Log.begin()  # the event times of the solves come from PETSc's log
    if (spec.get("vecops") or {}).get("enabled"):
        from . import solves

        log("vector operations")
        out["vecops"] = solves.measure_vecops(PETSc, MPI, ph, comm, T, spec["vecops"], log)
    out["cases"] = []
    for case in spec["cases"]:
        out["cases"].append(run_case(spec, case, matrices, args.stream_lib))
    out["stream"]["end"] = stream.measure(comm, args.stream_lib, T, arr * (1 << 20), st.get("repeats", 10))
    out["stream"]["triad_GBps"] = max(out["stream"]["start"]["triad_GBps"], out["stream"]["end"]["triad_GBps"])
    out["elapsed_s"] = MPI.Wtime() - t_start
    if comm.Get_rank() == 0:
        with open(args.out + ".tmp", "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
        os.replace(args.out + ".tmp", args.out)
    comm.Barrier()


if __name__ == "__main__":
    main()
