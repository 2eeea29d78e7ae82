"""The halo exchange of the benchmark matrices alone: PetscSF basic against nodeaware.

    mpiexec -n R python -m aijhybrid_bench.sfexchange [--matrices poisson7,extruded,...]
            [--rows N] [--node-sizes 1,0] [--rounds 15] [--batch-seconds 0.05] [--out FILE.json]

For each matrix (generated as aij by aijhybrid_bench.matrices, as the benchmark driver does), the
graph of its halo exchange (roots: the owned columns; leaves: the ghost columns of the local rows)
is given to two PetscSFs, one basic and one nodeaware (for each node size asked: 1 = every rank its
own node, 0 = the nodes MPI_COMM_TYPE_SHARED finds, k = emulated nodes of k ranks). Both exchanges
are timed in the same job, alternating (the order reversed from round to round): per round and SF,
a barrier, K broadcasts (MPI_REPLACE of PetscScalar, as MatMult) then a barrier, and the same for
reductions (MPIU_SUM, as MatMultTranspose); K is sized from warm-up so that a batch lasts
--batch-seconds. Reported: the median time per exchange over the rounds, its ratio nodeaware/basic
(< 1: the node-aware type is faster), the ratio of the fastest batches (robust to other jobs on a
shared machine), and both SFs' message counts (PetscSFNodeAwareGetStats). Rank 0
prints a table and writes the JSON record. Times from a shared machine are provisional.
"""

import argparse
import json
import statistics
import sys
import time


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matrices", default="poisson7,poisson27,extruded,powerlaw,twozone")
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--node-sizes", default="1,0")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--batch-seconds", type=float, default=0.05)
    ap.add_argument("--out", default=None)
    args, petsc_args = ap.parse_known_args(argv)

    import petsc4py

    petsc4py.init([sys.argv[0]] + petsc_args)
    import numpy as np
    from mpi4py import MPI
    from petsc4py import PETSc

    import petsc_aijhybrid as ph
    from aijhybrid_bench import matrices

    comm = MPI.COMM_WORLD
    size = comm.Get_size()
    dtype = PETSc.ScalarType
    unit = MPI.DOUBLE if np.dtype(dtype) == np.float64 else MPI.C_DOUBLE_COMPLEX
    record = {"ranks": size, "rows": args.rows, "rounds": args.rounds, "batch_seconds": args.batch_seconds,
              "petsc": "%d.%d.%d" % PETSc.Sys.getVersion(), "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
              "load_average_start": __import__("os").getloadavg(), "results": []}

    def batch(sf, root, leaf, op, k, reduce):
        comm.Barrier()
        t0 = MPI.Wtime()
        for _ in range(k):
            if reduce:
                sf.reduceBegin(unit, leaf, root, op)
                sf.reduceEnd(unit, leaf, root, op)
            else:
                sf.bcastBegin(unit, root, leaf, op)
                sf.bcastEnd(unit, root, leaf, op)
        comm.Barrier()
        return (MPI.Wtime() - t0) / k

    for name in args.matrices.split(","):
        A = matrices.create(name, args.rows)
        ref = ph.halo_sf(A)  # the graph, node-aware
        nroots, local, remote = ref.getGraph()
        ref.destroy()
        nleaves = len(remote) // 2 if remote.ndim == 1 else len(remote)
        rem = np.asarray(remote, dtype=PETSc.IntType).reshape(-1)
        A.destroy()
        for k in [int(s) for s in args.node_sizes.split(",")]:
            sfs = {}
            for t in ("basic", "nodeaware"):
                sf = PETSc.SF().create(comm=PETSc.COMM_WORLD)
                sf.setType(t)
                if t == "nodeaware":
                    ph.sf_set_node_size(sf, k)
                sf.setGraph(nroots, None, rem)
                sf.setUp()
                sfs[t] = sf
            root = np.arange(nroots, dtype=dtype) + 1.0
            leaf = np.zeros(nleaves, dtype=dtype)
            res = {"matrix": name, "node_size": k, "nleaves_max": comm.allreduce(nleaves, op=MPI.MAX), "times": {}}
            for reduce in (False, True):
                op = MPI.SUM if reduce else MPI.REPLACE
                what = "reduce" if reduce else "bcast"
                # warm-up, and K from the slower of the two
                per = 0.0
                for t in sfs:
                    for _ in range(5):
                        batch(sfs[t], root, leaf, op, 1, reduce)
                    per = max(per, batch(sfs[t], root, leaf, op, 10, reduce))
                K = int(max(1, min(20000, args.batch_seconds / max(comm.allreduce(per, op=MPI.MAX), 1e-7))))
                samples = {t: [] for t in sfs}
                order = list(sfs)
                for r in range(args.rounds):
                    for t in (order if r % 2 == 0 else order[::-1]):
                        samples[t].append(batch(sfs[t], root, leaf, op, K, reduce))
                med = {t: statistics.median(v) for t, v in samples.items()}
                low = {t: min(v) for t, v in samples.items()}
                res["times"][what] = {"batch": K, "median_s": med, "min_s": low, "samples_s": samples, "ratio_nodeaware_vs_basic": med["nodeaware"] / med["basic"],
                                      "ratio_of_minima": low["nodeaware"] / low["basic"]}
            st = ph.sf_get_stats(sfs["nodeaware"])
            res["messages"] = {"nodes": st["nodes"], "basic": st["total"]["basic"], "nodeaware": st["total"]["nodeaware"], "nodeaware_reverse": st["total"]["nodeaware_reverse"],
                               "ops_nodeaware": comm.allreduce(st["ops_nodeaware"]), "ops_basic": comm.allreduce(st["ops_basic"])}
            for sf in sfs.values():
                sf.destroy()
            record["results"].append(res)
            if comm.Get_rank() == 0:
                b, rd = res["times"]["bcast"], res["times"]["reduce"]
                print("%-9s node size %d (%d nodes): bcast basic %.1f us, nodeaware %.1f us (x%.3f, minima x%.3f); reduce basic %.1f us, nodeaware %.1f us (x%.3f, minima x%.3f); inter-node msgs basic %d nodeaware %d"
                      % (name, k, st["nodes"], 1e6 * b["median_s"]["basic"], 1e6 * b["median_s"]["nodeaware"], b["ratio_nodeaware_vs_basic"], b["ratio_of_minima"],
                         1e6 * rd["median_s"]["basic"], 1e6 * rd["median_s"]["nodeaware"], rd["ratio_nodeaware_vs_basic"], rd["ratio_of_minima"],
                         st["total"]["basic"]["inter_msgs"], st["total"]["nodeaware"]["inter_msgs"]), flush=True)
    record["load_average_end"] = __import__("os").getloadavg()
    if comm.Get_rank() == 0 and args.out:
        with open(args.out, "w") as fh:
            json.dump(record, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
