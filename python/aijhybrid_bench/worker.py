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

A paired job (spec "paired": a threaded layout R x T started as R*T ranks, see job.py) measures
the layout's variants on every T-th rank and the same-job baselines ('aij@RTx1') on all ranks, in
the same alternating rounds, solves and vector operations; each rank binds itself before OpenMP
starts (bind_paired).

The steps live in their own modules around a Job (job.py: the spec, the PETSc, MPI and plugin
modules, the groups of ranks): building (variants.py), timing (timing.py), collecting
(collect.py); whole solves and vector operations in solves.py; preconditioner setups in pcsetup.py.
"""

import argparse
import json
import os
import sys

from . import collect, timing, variants
from .job import Job, is_hybrid, peak_rss


def _solve_variants(job, case, active, equivalents, M):
    """One solve per measured variant (the spec's "solve"), for the matrices and sizes it names; a
    listed variant measured as equivalent to another is solved through that one."""
    sv = job.spec["solve"]
    if not sv.get("enabled", True) or (sv.get("matrices") and case["label"] not in sv["matrices"]) or (sv.get("max_rows") and M > sv["max_rows"]):
        return
    for v in active:
        labels = {v.spec.get("paired_of") or v.label} | set(equivalents.get(v.label, []))
        if sv.get("variants") and not labels & set(sv["variants"]):
            continue
        job.log("%s rows=%d: solving with %s" % (case["name"], M, v.label))

        def one(v=v):
            try:
                v.rec["solve"] = collect.solve(job, v, v.b, sv)
            except Exception as e:
                v.rec["solve"] = {"error": "%s: %s" % (type(e).__name__, e)}

        job.run_on(v.group, one)


def _whole_solves(job, case, active, equivalents, M):
    """The spec's "solves" (bench/solves.py) for this case, or None."""
    svs = job.spec.get("solves") or {}
    if not svs.get("enabled") or (svs.get("matrices") and case["label"] not in svs["matrices"]):
        return None
    from . import solves

    if any(m.get("matrices") for m in svs.get("methods") or []):  # methods of some matrices only
        svs = dict(svs, methods=[m for m in svs["methods"] if not m.get("matrices") or case["label"] in m["matrices"]])
        if not svs["methods"]:
            return None
    job.log("%s rows=%d: whole solves" % (case["name"], M))
    return solves.measure_solves(job.PETSc, job.MPI, job.ph, job.world, active, svs, job.log, equivalents, job.run_on)


def _setups(job, case, active, equivalents, M):
    """The spec's "setup" (bench/pcsetup.py) for this case, or None."""
    su = job.spec.get("setup") or {}
    if not su.get("enabled") or (su.get("matrices") and case["label"] not in su["matrices"]):
        return None
    from . import pcsetup

    job.log("%s rows=%d: preconditioner setups" % (case["name"], M))
    return pcsetup.measure_setup(job.PETSc, job.MPI, job.world, active, su, job.log, job.run_on, equivalents)


def _paired_specs(job):
    """The variants of the pair group: the spec's same-job baselines, relabelled 'label@RxT'."""
    pair = job.spec.get("paired")
    if not pair:
        return []
    byname = {v["label"]: v for v in job.spec["variants"]}
    return [dict(byname[l], label="%s@%s" % (l, pair["layout"]), paired_of=l, threaded=True) for l in pair["variants"]]


class _Elsewhere:
    """A variant of a group this rank is not in: it takes part in the rounds and solves by waiting."""

    def __init__(self, label, spec, group):
        self.label, self.spec, self.group, self.rec = label, spec, group, {}


class _Side:
    """What one group of ranks holds for a case: its aij matrix, right-hand side, reference product
    and built variants."""

    def __init__(self, job, case, group, specs, first_index):
        self.group = group
        self.base, self.rec = variants.generate(job, case, group)
        self.b = variants.rhs(job, self.base, self.rec)
        self.built = variants.build_all(job, case, self.base, group, specs, first_index)
        # the reference product of the generated aij matrix, to check every variant's y = A x against
        xr, self.yref = self.base.createVecs()
        timing.fill_x(xr)
        self.base.mult(xr, self.yref)
        xr.destroy()
        self.base.destroy()
        for v in self.built:
            v.b = self.b

    def release(self):
        for v in self.built:
            v.release()
        self.b.destroy()
        self.yref.destroy()


def run_case(job, case):
    """One matrix: generate, build the variants, time them, collect, solve; its record. In a paired
    job, the same for the same-job baselines on the pair group, timed in the same rounds."""
    groups = [(job.layout, job.spec["variants"], 0)] + ([(job.pair, _paired_specs(job), len(job.spec["variants"]))] if job.pair else [])
    sides = [job.run_on(g, lambda g=g, specs=specs, i=i: _Side(job, case, g, specs, i)) for g, specs, i in groups]
    rec = sides[0].rec if sides[0] else {}
    built = [v for side in sides if side for v in side.built]
    # rank 0 is in every group: its list of the measured variants (and of the variants measured as
    # equivalent to them) is every rank's, a rank outside a group waiting while its variants run
    plan = job.world.bcast(([(v.label, v.spec, i) for i, side in enumerate(sides) for v in side.built if v.A is not None],
                            {u.rec["equivalent_to"]: [w.label for w in built if w.rec.get("equivalent_to") == u.rec["equivalent_to"]] for u in built if u.rec.get("equivalent_to")},
                            rec.get("rows"), rec.get("nnz")) if job.rank == 0 else None, root=0)
    measured, equivalents, M, nnz = plan
    mine = {v.label: v for v in built}
    active = [mine[label] if label in mine else _Elsewhere(label, spec, groups[i][0]) for label, spec, i in measured]
    job.log("%s rows=%d nnz=%d: timing %d variants" % (case["name"], M, nnz, len(active)))
    timing.timed_rounds(job, active)
    for v in active:

        def finish(v=v):
            yref = next(s.yref for s in sides if s and s.group is v.group)
            v.rec["rel_diff_vs_aij"] = collect.check_against(v, yref)
            timing.summarize(v)
            collect.diagnostics(job, v)

        job.run_on(v.group, finish)
    pa = job.spec["timing"].get("prefetch_audit")
    for v in active if pa else []:
        if is_hybrid(v.spec["type"]) and "-mat_aijhybrid_prefetch" not in (v.spec.get("options") or ""):
            job.log("%s rows=%d: the measured prefetch of %s against %s on its matrix" % (case["name"], M, v.label, pa["distances"]))

            def audit(v=v):
                v.rec["prefetch_audit"] = timing.audit_prefetch(job, v, pa["distances"], int(pa["rounds"]))

            job.run_on(v.group, audit)
    _solve_variants(job, case, active, equivalents, M)
    whole = _whole_solves(job, case, active, equivalents, M)
    if whole is not None:
        rec["solves"] = whole
    setups = _setups(job, case, active, equivalents, M)
    if setups is not None:
        rec["setup"] = setups
    for side in sides:
        if side:
            side.release()
    rec["peak_rss_bytes_sum"] = job.sum(peak_rss())
    rec["variants"] = [v.rec for v in built]
    return rec


def _check_binding(job, out, stream_lib):
    """Warnings (rank 0) when OpenMP gave fewer threads than asked, or threads share CPUs."""
    if job.rank != 0 or not out["binding"]["ranks"]:
        return
    want = [job.threads if r.get("in_layout", True) else 1 for r in out["binding"]["ranks"]]
    got = [len(r["thread_cpus"] or []) for r in out["binding"]["ranks"]]
    if stream_lib and got != want:
        print("@@WARNING OpenMP gave %s threads, not %s" % (got, want), flush=True)
    per_host = {}
    for r in out["binding"]["ranks"]:
        if r.get("in_layout", True):
            per_host.setdefault(r["host"], []).extend(r["thread_cpus"] or [])
    shared = {h: len(c) - len(set(c)) for h, c in per_host.items() if len(c) != len(set(c))}
    if stream_lib and shared and os.environ.get("OMP_PROC_BIND") == "close":
        print("@@WARNING threads of this job share CPUs (%s): check the binding" % shared, flush=True)


def _stream(job, group, array_bytes):
    from . import stream

    st = job.spec["stream"]
    return job.run_on(group, lambda: stream.measure(group.comm, job.stream_lib, group.threads, array_bytes, st.get("repeats", 10)))


def _streams(job, arr):
    """The triad of the layout, and of the pair group in a paired job ({group layout: result})."""
    return {g.layout: _stream(job, g, arr * (1 << 20)) for g in job.groups()}


def run(job):
    """The whole job: binding, STREAM at start and end, vector operations, every case; its result."""
    T = job.threads
    t_start = job.MPI.Wtime()
    out = {"layout": job.spec["layout"], "ranks": job.spec["ranks"], "threads": T, "cores": job.spec["ranks"] * T}
    if job.pair:
        out["paired"] = {"layout": job.pair.layout, "ranks": job.pair.ranks, "threads": 1}
    out["software"] = job.run_on(job.layout, lambda: collect.software(job))
    out["binding"] = collect.binding(job)
    _check_binding(job, out, job.stream_lib)
    arr = job.spec["stream"].get("array_mb")
    if not arr:
        from .machine import l3_bytes

        arr = max(32 << 20, 4 * l3_bytes()) / float(1 << 20)
    job.log("STREAM triad (%.0f MB per array per node)" % arr)
    start = _streams(job, arr)
    out["stream"] = {"start": start[job.layout.layout]}
    if job.rank == 0:
        job.log("STREAM triad %.1f GB/s" % out["stream"]["start"]["triad_GBps"])
    if (job.spec.get("solves") or {}).get("enabled") or (job.spec.get("setup") or {}).get("enabled"):
        job.PETSc.Log.begin()  # the event times of the solves and setups come from PETSc's log
    if (job.spec.get("vecops") or {}).get("enabled"):
        from . import solves

        job.log("vector operations")
        sides = [(vt, job.layout, vt) for vt in job.spec["vecops"].get("vectors", ["standard", "hybrid"])]
        if job.pair:  # the standard vectors at R*T x 1 in the same job
            sides.append(("standard@%s" % job.pair.layout, job.pair, "standard"))
        out["vecops"] = solves.measure_vecops(job.PETSc, job.MPI, job.ph, sides, job.spec["vecops"], job.log, job.run_on)
    out["cases"] = [run_case(job, case) for case in job.spec["cases"]]
    end = _streams(job, arr)
    out["stream"]["end"] = end[job.layout.layout]
    if job.rank == 0:
        out["stream"]["triad_GBps"] = max(out["stream"]["start"]["triad_GBps"], out["stream"]["end"]["triad_GBps"])
        if job.pair:
            p = job.pair.layout
            out["paired"]["stream"] = {"start": start[p], "end": end[p], "triad_GBps": max(start[p]["triad_GBps"], end[p]["triad_GBps"])}
    out["elapsed_s"] = job.MPI.Wtime() - t_start
    return out


def bind_paired(spec):
    """A paired job binds each rank itself, before OpenMP starts (the launcher does not bind): see
    job.pin_paired."""
    from .job import pin_paired
    from .layout import _threads_per_core

    env = os.environ
    local = int(env.get("OMPI_COMM_WORLD_LOCAL_RANK") or env.get("SLURM_LOCALID") or env.get("MPI_LOCALRANKID") or 0)
    cpus, n = pin_paired(spec["threads"], local, sorted(os.sched_getaffinity(0)), _threads_per_core())
    os.sched_setaffinity(0, cpus)
    env.update(OMP_NUM_THREADS=str(n), OMP_PLACES="cores", OMP_PROC_BIND="close")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stream-lib", default=None)
    args, petsc_args = ap.parse_known_args(argv)
    with open(args.spec) as f:
        spec = json.load(f)
    if spec.get("paired"):
        bind_paired(spec)
    import petsc4py

    petsc4py.init([sys.argv[0]] + petsc_args)
    from mpi4py import MPI
    from petsc4py import PETSc

    import petsc_aijhybrid

    job = Job(spec, PETSc, MPI, petsc_aijhybrid, args.stream_lib)
    want = spec["paired"]["ranks"] if spec.get("paired") else spec["ranks"]
    if job.size != want:
        raise SystemExit("worker: started on %d ranks, the spec is for %s%s" % (job.size, spec["layout"], " paired with %s" % spec["paired"]["layout"] if spec.get("paired") else ""))
    out = run(job)
    if job.rank == 0:
        with open(args.out + ".tmp", "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
        os.replace(args.out + ".tmp", args.out)
    job.world.Barrier()


if __name__ == "__main__":
    main()
