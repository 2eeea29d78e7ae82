"""One benchmark job: runs under mpiexec/srun with one layout (ranks x threads) and measures, in this
one process set, every matrix x variant of its spec (written by the driver, aijhybrid_bench).

    python -m aijhybrid_bench.worker --spec SPEC.json --out PART.json [--stream-lib LIB]

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

The steps live in their own modules around a Job (bench/job.py: the spec and the PETSc, MPI and
plugin modules): building (bench/variants.py), timing (bench/timing.py), collecting
(bench/collect.py); whole solves and vector operations in bench/solves.py.
"""

import argparse
import json
import os
import sys

from . import collect, timing, variants
from .job import Job, peak_rss


def _solve_variants(job, case, built, active, b, M):
    """One solve per measured variant (the spec's "solve"), for the matrices and sizes it names; a
    listed variant measured as equivalent to another is solved through that one."""
    sv = job.spec["solve"]
    if not sv.get("enabled", True) or (sv.get("matrices") and case["label"] not in sv["matrices"]) or (sv.get("max_rows") and M > sv["max_rows"]):
        return
    for v in active:
        labels = {v.label} | {u.label for u in built if u.rec.get("equivalent_to") == v.label}
        if sv.get("variants") and not labels & set(sv["variants"]):
            continue
        job.log("%s rows=%d: solving with %s" % (case["name"], M, v.label))
        try:
            v.rec["solve"] = collect.solve(job, v, b, sv)
        except Exception as e:
            v.rec["solve"] = {"error": "%s: %s" % (type(e).__name__, e)}


def _whole_solves(job, case, built, active, b, M):
    """The spec's "solves" (bench/solves.py) for this case, or None."""
    svs = job.spec.get("solves") or {}
    if not svs.get("enabled") or (svs.get("matrices") and case["label"] not in svs["matrices"]):
        return None
    from . import solves

    job.log("%s rows=%d: whole solves" % (case["name"], M))
    equivalents = {}
    for u in built:
        if u.rec.get("equivalent_to"):
            equivalents.setdefault(u.rec["equivalent_to"], []).append(u.label)
    return solves.measure_solves(job.PETSc, job.MPI, job.ph, job.comm, active, b, svs, job.log, equivalents)


def run_case(job, case):
    """One matrix: generate, build the variants, time them, collect, solve; its record."""
    base, rec = variants.generate(job, case)
    M = rec["rows"]
    b = variants.rhs(job, base, rec)
    built = variants.build_all(job, case, base)
    # the reference product of the generated aij matrix, to check every variant's y = A x against
    xr, yref = base.createVecs()
    timing.fill_x(xr)
    base.mult(xr, yref)
    xr.destroy()
    base.destroy()
    active = [v for v in built if v.A is not None]
    job.log("%s rows=%d nnz=%d: timing %d variants" % (case["name"], M, rec["nnz"], len(active)))
    timing.timed_rounds(job, active)
    for v in active:
        v.rec["rel_diff_vs_aij"] = collect.check_against(v, yref)
        timing.summarize(v)
        collect.diagnostics(job, v)
    _solve_variants(job, case, built, active, b, M)
    whole = _whole_solves(job, case, built, active, b, M)
    if whole is not None:
        rec["solves"] = whole
    for v in active:
        v.release()
    b.destroy()
    yref.destroy()
    rec["peak_rss_bytes_sum"] = job.sum(peak_rss())
    rec["variants"] = [v.rec for v in built]
    return rec


def _check_binding(job, out, stream_lib):
    """Warnings (rank 0) when OpenMP gave fewer threads than asked, or threads share CPUs."""
    if job.rank != 0 or not out["binding"]["ranks"]:
        return
    T = job.threads
    got = [len(r["thread_cpus"] or []) for r in out["binding"]["ranks"]]
    if stream_lib and min(got) != T:
        print("@@WARNING OpenMP gave %s threads, not %d" % (got, T), flush=True)
    per_host = {}
    for r in out["binding"]["ranks"]:
        per_host.setdefault(r["host"], []).extend(r["thread_cpus"] or [])
    shared = {h: len(c) - len(set(c)) for h, c in per_host.items() if len(c) != len(set(c))}
    if stream_lib and shared and os.environ.get("OMP_PROC_BIND") == "close":
        print("@@WARNING threads of this job share CPUs (%s): check the binding" % shared, flush=True)


def _stream(job, array_bytes):
    from . import stream

    st = job.spec["stream"]
    return stream.measure(job.comm, job.stream_lib, job.threads, array_bytes, st.get("repeats", 10))


def run(job):
    """The whole job: binding, STREAM at start and end, vector operations, every case; its result."""
    T = job.threads
    t_start = job.MPI.Wtime()
    out = {"layout": job.spec["layout"], "ranks": job.spec["ranks"], "threads": T, "cores": job.spec["ranks"] * T}
    out["software"] = collect.software(job)
    out["binding"] = collect.binding(job)
    _check_binding(job, out, job.stream_lib)
    arr = job.spec["stream"].get("array_mb")
    if not arr:
        from .machine import l3_bytes

        arr = max(32 << 20, 4 * l3_bytes()) / float(1 << 20)
    job.log("STREAM triad (%.0f MB per array per node)" % arr)
    out["stream"] = {"start": _stream(job, arr * (1 << 20))}
    job.log("STREAM triad %.1f GB/s" % out["stream"]["start"]["triad_GBps"])
    if (job.spec.get("solves") or {}).get("enabled"):
        job.PETSc.Log.begin()  # the event times of the solves come from PETSc's log
    if (job.spec.get("vecops") or {}).get("enabled"):
        from . import solves

        job.log("vector operations")
        out["vecops"] = solves.measure_vecops(job.PETSc, job.MPI, job.ph, job.comm, T, job.spec["vecops"], job.log)
    out["cases"] = [run_case(job, case) for case in job.spec["cases"]]
    out["stream"]["end"] = _stream(job, arr * (1 << 20))
    out["stream"]["triad_GBps"] = max(out["stream"]["start"]["triad_GBps"], out["stream"]["end"]["triad_GBps"])
    out["elapsed_s"] = job.MPI.Wtime() - t_start
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stream-lib", default=None)
    args, petsc_args = ap.parse_known_args(argv)
    import petsc4py

    petsc4py.init([sys.argv[0]] + petsc_args)
    from mpi4py import MPI
    from petsc4py import PETSc

    import petsc_aijhybrid

    with open(args.spec) as f:
        spec = json.load(f)
    job = Job(spec, PETSc, MPI, petsc_aijhybrid, args.stream_lib)
    if job.size != spec["ranks"]:
        raise SystemExit("worker: started on %d ranks, the spec is for %s" % (job.size, spec["layout"]))
    out = run(job)
    if job.rank == 0:
        with open(args.out + ".tmp", "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
        os.replace(args.out + ".tmp", args.out)
    job.comm.Barrier()


if __name__ == "__main__":
    main()
