"""Timings shared by the jobs of the emulated hosts (probe.py, worker.py).

time_allreduce(comm, reps): the time of one MPI_Allreduce of a double over `comm`, as CG's dots and norm pay
it: 10 x reps + 10 calls, the median of all but the first 10 on each rank, the slowest rank's (every rank of
`comm` returns it). Collective over `comm`.
"""
import statistics


def time_allreduce(comm, reps):
    import numpy as np
    from mpi4py import MPI

    x, y = np.ones(1), np.empty(1)
    ts = []
    for _ in range(reps * 10 + 10):
        t0 = MPI.Wtime()
        comm.Allreduce(x, y)
        ts.append(MPI.Wtime() - t0)
    return comm.allreduce(statistics.median(ts[10:]), op=MPI.MAX)
