"""One MPI job on the emulated hosts (share/nodes/nodes.py starts it with mpirun): the halo exchange
of the benchmark matrices counted on the wire next to the plan's prediction, and timed.

    python3 worker.py --out FILE.json [--matrices poisson7:1728,powerlaw:2048] [--variants ...]
                      [--reps K] [--rounds R] [--batch-seconds S] [--cg-its N] [--threads T]

Node detection is the real one: MPI_COMM_TYPE_SHARED, i.e. the emulated host a rank runs on (no
-sf_nodeaware_node_size). Per matrix (aijhybrid_bench.matrices) and variant:

  aij            PETSc's MatMult, its VecScatter a basic PetscSF (-sf_type basic)
  aij_nodeaware  PETSc's MatMult on a nodeaware PetscSF (-sf_type nodeaware while it is assembled)
  hybrid         aijhybrid, its halo PetscSF basic (T threads per rank)
  hybrid_nodeaware  aijhybrid with -mat_aijhybrid_node_aware

Prediction: the plan's statistics (get_exchange_stats: the nodeaware type's plan and the basic SF of
the same graph), per host (the sum over its ranks of what each sends to other hosts), and the
messages themselves from the gathered ghost pattern (basic: one per rank pair with traffic; nodeaware:
one per ordered host pair, the union of what the ranks of the receiving host need); both must agree.

Wire: what each host sent on its interface in one MatMult (tc classes: data segments, pure ACKs;
TCP retransmissions), from K products between two counter readings by the first rank of each host,
minus the same window without products (barriers, a pause for delayed ACKs): an idle baseline. The
same for one CG + Jacobi iteration, and for one MPI_Allreduce of a double (CG does three per
iteration). Times: median over rounds of batches of products, the variants interleaved (order reversed
every round). Rank 0 writes the JSON result; nothing is printed while counters run (standard output
of remote ranks would cross the wire).
"""

import argparse
import json
import os
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hosts as H  # noqa: E402  (counters_here: the tc classes of this host)
import timing as T  # noqa: E402  (time_allreduce)

VARIANTS = ("aij", "aij_nodeaware", "hybrid", "hybrid_nodeaware")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--matrices", default="poisson7:1728,extruded:1024:layers=8,powerlaw:512", help="name:rows[:param=value...],...")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--reps", type=int, default=20, help="products (CG iterations, allreduces) between two counter readings")
    ap.add_argument("--rounds", type=int, default=7, help="timed rounds (0: no timing)")
    ap.add_argument("--batch-seconds", type=float, default=0.2)
    ap.add_argument("--cg-its", type=int, default=20, help="CG + Jacobi iterations counted and timed (0: none)")
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    ap.add_argument("--pause", type=float, default=0.25, help="seconds before a counter reading (delayed ACKs)")
    args, petsc_args = ap.parse_known_args()

    import petsc4py

    petsc4py.init([sys.argv[0]] + petsc_args)
    import numpy as np
    from mpi4py import MPI
    from petsc4py import PETSc

    import petsc_aijhybrid as ph
    from aijhybrid_bench import matrices

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    shm = comm.Split_type(MPI.COMM_TYPE_SHARED)
    host = socket.gethostname()
    hosts_of = comm.allgather(host)
    host_names = sorted(set(hosts_of), key=hosts_of.index)
    host_of = [host_names.index(h) for h in hosts_of]
    reader = shm.Get_rank() == 0  # reads this host's counters
    scalar = np.dtype(PETSc.ScalarType).itemsize
    res = {"ranks": size, "hosts": host_names, "host_of_rank": host_of, "ranks_per_host": [host_of.count(i) for i in range(len(host_names))],
           "threads": args.threads, "shm_sizes": comm.allgather(shm.Get_size()), "petsc": "%d.%d.%d" % PETSc.Sys.getVersion(),
           "mpi": MPI.Get_library_version().splitlines()[0], "reps": args.reps, "rounds": args.rounds, "batch_seconds": args.batch_seconds,
           "cg_its": args.cg_its, "scalar_bytes": scalar, "matrices": []}

    # ---- counters: each host's first rank reads its own, locally; they are gathered only after both
    # readings of a window, so that the window holds nothing but two barriers and what it measures
    def snapshot():
        return H.counters_here() if reader else None

    def gather(a, b):
        pairs = comm.allgather((a, b) if reader else None)
        return H.diff_counters({host_names[host_of[r]]: pairs[r][0] for r in range(size) if pairs[r]},
                               {host_names[host_of[r]]: pairs[r][1] for r in range(size) if pairs[r]})

    def window(fn, reps):
        """wire counters of fn() run reps times, between two readings (a pause first: delayed ACKs)"""
        comm.Barrier()
        time.sleep(args.pause)
        a = snapshot()
        comm.Barrier()
        for _ in range(reps):
            fn()
        comm.Barrier()
        time.sleep(args.pause)
        b = snapshot()
        return gather(a, b)

    def per_rep(d, base, reps):
        """(window - baseline) / reps, per host: {"data", "ack", "other": [bytes, packets], "to": {host: [...]}, "retrans": n}"""
        def sub(x, y):
            if isinstance(x, dict):
                return {k: sub(x[k], y.get(k, [0, 0])) for k in x}
            return [(x[0] - y[0]) / reps, (x[1] - y[1]) / reps]

        out = {}
        for h in d:
            out[h] = {k: sub(d[h][k], base[h][k]) for k in ("data", "ack", "other", "to")}
            out[h]["retrans"] = d[h]["tcp"]["RetransSegs"]
        return out

    def baseline():
        """the median of three windows without products, per host and counter"""
        ws = [window(lambda: None, 0) for _ in range(3)]

        def med(vals):
            if isinstance(vals[0], dict):
                return {k: med([v.get(k, [0, 0]) for v in vals]) for k in vals[0]}
            if isinstance(vals[0], list):
                return [statistics.median(v[0] for v in vals), statistics.median(v[1] for v in vals)]
            return min(vals)

        return {h: med([w[h] for w in ws]) for h in ws[0]}

    base = baseline()
    comm.Barrier()
    time.sleep(args.pause)
    a = snapshot()
    time.sleep(1.0)
    b = snapshot()
    idle = gather(a, b)  # one second without MPI traffic: the daemons' own (none expected)
    res["baseline_window"] = base
    res["idle_1s"] = idle

    # one MPI_Allreduce of a double (CG: its dots and norm)
    sb, rb = np.ones(1), np.zeros(1)
    for _ in range(3):
        comm.Allreduce(sb, rb)
    w = window(lambda: comm.Allreduce(sb, rb), args.reps * 5)
    res["allreduce"] = per_rep(w, base, args.reps * 5)
    # and its time in this job (its own ranks, threads and hosts): the median call, on the slowest rank
    res["allreduce_s"] = T.time_allreduce(comm, args.reps)

    # ---- the ghost pattern and the messages each exchange sends
    def pattern(A):
        ia, ja, _ = A.getValuesCSR()
        c0, c1 = A.getOwnershipRangeColumn()
        mine = np.unique(ja[(ja < c0) | (ja >= c1)]).astype(np.int64)
        return comm.allgather(mine), np.array(A.getOwnershipRangesColumn(), dtype=np.int64)

    def messages(ghosts_all, ranges):
        """inter-host messages of one forward exchange: basic [(from rank, to rank, entries)], nodeaware [(from host, to host, entries)]"""
        rank_pairs, unions = {}, {}
        for r in range(size):
            owners = np.searchsorted(ranges, ghosts_all[r], side="right") - 1
            for q, g in zip(owners.tolist(), ghosts_all[r].tolist()):
                if q == r or host_of[q] == host_of[r]:
                    continue
                rank_pairs[(q, r)] = rank_pairs.get((q, r), 0) + 1
                unions.setdefault((host_of[q], host_of[r]), set()).add(g)
        return sorted((q, r, n) for (q, r), n in rank_pairs.items()), sorted((M, N, len(u)) for (M, N), u in unions.items())

    opts = PETSc.Options()
    variants = args.variants.split(",")
    for spec in args.matrices.split(","):
        name, rows, *kv = spec.split(":")  # name:rows[:param=value...]
        rows = int(rows)
        params = {k: (int(v) if v.isdigit() else v) for k, v in (p.split("=", 1) for p in kv)}
        mrec = {"matrix": name, "rows_requested": rows, "params": params, "variants": {}}
        mats = {}
        for v in variants:
            if v == "aij_nodeaware":
                opts.setValue("sf_type", "nodeaware")  # read by the VecScatter MatAssemblyEnd creates
            A = matrices.create(name, rows, mat_type="aij" if v.startswith("aij") else "aijhybrid", **params)
            opts.delValue("sf_type") if v == "aij_nodeaware" else None
            if v.startswith("hybrid"):
                ph.set_num_threads(A, args.threads)
                ph.set_node_aware(A, v == "hybrid_nodeaware")
            x, y = A.createVecs()
            x.setArray(1.0 + (np.arange(*x.getOwnershipRange()) % 7) / 7.0)
            mats[v] = (A, x, y)
        A0 = mats[variants[0]][0]
        M, _ = A0.getSize()
        mrec.update(rows=M, nnz=int(A0.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["nz_used"]))
        ghosts_all, ranges = pattern(A0)
        basic_msgs, na_msgs = messages(ghosts_all, ranges)
        mrec["messages"] = {"basic": [[q, r, n * scalar] for q, r, n in basic_msgs], "nodeaware": [[M_, N_, n * scalar] for M_, N_, n in na_msgs]}
        rank_nnz = comm.allgather(int(A0.getInfo(PETSc.Mat.InfoType.LOCAL)["nz_used"]))
        rank_rows = comm.allgather(A0.getLocalSize()[0])
        mrec["rank_nnz"], mrec["rank_rows"] = rank_nnz, rank_rows
        mrec["rank_ghosts"] = [len(g) for g in ghosts_all]

        # the plan's statistics, per host
        for v in variants:
            A, x, y = mats[v]
            for _ in range(3):
                A.mult(x, y)  # warm-up: connections, the plan, caches
            st = ph.get_exchange_stats(A) if v.startswith("hybrid") else ph.get_exchange_stats(A, node_size=None)
            kind = "nodeaware" if v.endswith("nodeaware") else "basic"
            per = comm.allgather({k: st["rank"][k] for k in ("basic", "nodeaware")})
            plan = {}
            for hi, hn in enumerate(host_names):
                rs = [r for r in range(size) if host_of[r] == hi]
                plan[hn] = {f: sum(per[r][kind][f] for r in rs) for f in ("inter_msgs", "inter_bytes", "on_msgs", "on_bytes")}
            mrec["variants"][v] = {"kind": kind, "type": A.getType(), "nodes_seen": st["nodes"], "plan": plan,
                                   "plan_total": {f: st["total"][kind][f] for f in ("inter_msgs", "inter_bytes", "on_msgs", "on_bytes")},
                                   "node_aware_ops": st["ops_nodeaware"] if v.startswith("hybrid") else None}

        # the wire, per product
        for v in variants:
            A, x, y = mats[v]
            w = window(lambda: A.mult(x, y), args.reps)
            mrec["variants"][v]["wire"] = per_rep(w, base, args.reps)

        # CG + Jacobi: wire per iteration (solves of N and 2N iterations: the difference over N, so that
        # the start of a solve cancels), per solve of N iterations
        if args.cg_its > 0:
            for v in variants:
                A, x, y = mats[v]
                ksp = PETSc.KSP().create(comm=A.getComm())
                ksp.setOperators(A)
                ksp.setType("cg")
                ksp.getPC().setType("jacobi")
                b = A.createVecLeft()
                A.mult(x, b)
                sol = A.createVecRight()
                ksp.setUp()

                def solve(its, ksp=ksp, b=b, sol=sol):
                    ksp.setTolerances(rtol=0.0, atol=0.0, max_it=its)  # exactly its iterations
                    sol.set(0.0)
                    ksp.solve(b, sol)
                    return ksp.getIterationNumber()

                solve(args.cg_its)  # warm-up
                w1 = window(lambda: solve(args.cg_its), 1)
                w2 = window(lambda: solve(2 * args.cg_its), 1)
                its = ksp.getIterationNumber()
                mrec["variants"][v]["cg_wire"] = per_rep(w2, w1, args.cg_its)
                mrec["variants"][v]["cg_solve_wire"] = per_rep(w1, base, 1)
                mrec["variants"][v]["cg_its"] = [args.cg_its, its]
                mats[v] = (A, x, y, ksp, b, sol, solve)

        # times, interleaved
        if args.rounds > 0:
            batch = {}
            for v in variants:
                A, x, y = mats[v][:3]
                comm.Barrier()
                t0 = MPI.Wtime()
                n = 0
                while True:
                    A.mult(x, y)
                    n += 1
                    if comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX) > args.batch_seconds / 4 or n >= 1000:
                        break
                batch[v] = max(3, int(4 * n))
            times = {v: [] for v in variants}
            cg_times = {v: [] for v in variants}
            for r in range(args.rounds):
                order = variants if r % 2 == 0 else variants[::-1]
                for v in order:
                    A, x, y = mats[v][:3]
                    comm.Barrier()
                    t0 = MPI.Wtime()
                    for _ in range(batch[v]):
                        A.mult(x, y)
                    comm.Barrier()
                    times[v].append((MPI.Wtime() - t0) / batch[v])
                if args.cg_its > 0:
                    for v in order:
                        solve = mats[v][6]
                        comm.Barrier()
                        t0 = MPI.Wtime()
                        its = solve(args.cg_its)
                        comm.Barrier()
                        cg_times[v].append(MPI.Wtime() - t0)
            for v in variants:
                mrec["variants"][v].update(mult_batch=batch[v], mult_s=statistics.median(times[v]), mult_s_rounds=times[v], mult_s_min=min(times[v]))
                if args.cg_its > 0:
                    mrec["variants"][v].update(cg_solve_s=statistics.median(cg_times[v]), cg_solve_s_rounds=cg_times[v])
        for v in variants:
            for o in mats[v]:
                if hasattr(o, "destroy"):
                    o.destroy()
        res["matrices"].append(mrec)

    if rank == 0:
        with open(args.out + ".part", "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        os.replace(args.out + ".part", args.out)
    comm.Barrier()


if __name__ == "__main__":
    main()
