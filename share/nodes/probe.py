"""The emulated hosts checked, and their point-to-point figures (an MPI job: share/nodes/nodes.py starts it).

    python3 probe.py --out FILE.json [--sizes 8,1024,...] [--reps N]

Checks: each rank's host name (the UTS namespace's) and its MPI_COMM_TYPE_SHARED group (the ranks
of its emulated host); a message between two ranks of one host puts nothing on the wire (shared
memory), one between hosts crosses it (TCP). Figures (ping-pong, half the round trip, median of
--reps): latency and bandwidth inside a host (rank 0 <-> 1) and between hosts (rank 0 <-> the first
rank of host 1); per-host injection: both ranks of host 0 sending a large message at once to two
other hosts, against one alone (they share the host's rate); one MPI_Allreduce of a scalar over all ranks
and over one rank per host.
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
import hosts as H  # noqa: E402
import timing as T  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="8,1024,8192,65536,262144,1048576")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--big", type=int, default=4 << 20, help="bytes of the injection test")
    args = ap.parse_args()

    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    shm = comm.Split_type(MPI.COMM_TYPE_SHARED)
    host = socket.gethostname()
    names = comm.allgather(host)
    hosts = sorted(set(names), key=names.index)
    host_of = [hosts.index(h) for h in names]
    shm_members = comm.allgather(sorted(shm.allgather(rank)))
    res = {"ranks": size, "hostnames": names, "shm_groups": shm_members, "hosts": hosts}
    # the ranks of one host share exactly its MPI_COMM_TYPE_SHARED group
    res["shm_is_host"] = all(sorted(r for r in range(size) if host_of[r] == host_of[p]) == shm_members[p] for p in range(size))
    reader = shm.Get_rank() == 0

    def snapshot():
        return H.counters_here() if reader else None

    def gather(a, b):
        pairs = comm.allgather((a, b) if reader else None)
        return H.diff_counters({hosts[host_of[r]]: pairs[r][0] for r in range(size) if pairs[r]}, {hosts[host_of[r]]: pairs[r][1] for r in range(size) if pairs[r]})

    peer_in = 1 if size > 1 and host_of[1] == host_of[0] else None
    peer_out = next((r for r in range(size) if host_of[r] != host_of[0]), None)

    def pingpong(a, b, nbytes, reps):
        buf = np.zeros(max(1, nbytes // 8))
        ts = []
        for i in range(reps + 2):
            comm.Barrier()
            if rank == a:
                t0 = MPI.Wtime()
                comm.Send(buf, dest=b, tag=7)
                comm.Recv(buf, source=b, tag=7)
                ts.append((MPI.Wtime() - t0) / 2)
            elif rank == b:
                comm.Recv(buf, source=a, tag=7)
                comm.Send(buf, dest=a, tag=7)
        return statistics.median(ts[2:]) if rank == a else None

    # a message inside host 0 and one between hosts: what crosses the wire
    for key, peer in (("intra", peer_in), ("inter", peer_out)):
        if peer is None:
            continue
        comm.Barrier()
        time.sleep(0.3)
        c0 = snapshot()
        pingpong(0, peer, 1 << 20, 1)
        comm.Barrier()
        time.sleep(0.3)
        d = gather(c0, snapshot())
        res["wire_%s_1MiB" % key] = {h: d[h]["data"] for h in d}

    sizes = [int(s) for s in args.sizes.split(",")]
    for key, peer in (("intra", peer_in), ("inter", peer_out)):
        if peer is None:
            continue
        rows = []
        for n in sizes:
            reps = args.reps if n <= 65536 else max(5, args.reps // 4)
            t = pingpong(0, peer, n, reps)
            rows.append([n, t])
        res["pingpong_" + key] = comm.bcast(rows, root=0)

    # per-host injection: ranks of host 0 sending args.big bytes to other hosts, one alone, then all at once
    senders = [r for r in range(size) if host_of[r] == 0]
    targets = [next((q for q in range(size) if host_of[q] == h and q not in senders), None) for h in range(1, len(hosts))]
    targets = [t for t in targets if t is not None][: len(senders)]
    if len(senders) >= 2 and len(targets) >= 2:
        buf = np.zeros(args.big // 8)
        out = {}
        for label, active in (("one", senders[:1]), ("all", senders[: len(targets)])):
            ts = []
            for _ in range(3):
                comm.Barrier()
                t0 = MPI.Wtime()
                if rank in active:
                    comm.Send(buf, dest=targets[active.index(rank)], tag=9)
                elif rank in targets[: len(active)]:
                    comm.Recv(buf, source=active[targets.index(rank)], tag=9)
                comm.Barrier()
                ts.append(MPI.Wtime() - t0)
            out[label] = {"senders": len(active), "bytes_each": args.big, "seconds": statistics.median(ts)}
        res["injection"] = out
    # one MPI_Allreduce of a scalar (CG's reductions): every rank, and one rank per host (the others wait in a barrier)
    red = {}
    lead = comm.Split(0 if rank == min(r for r in range(size) if host_of[r] == host_of[rank]) else MPI.UNDEFINED, rank)
    for sub in (comm, lead):
        if sub != MPI.COMM_NULL:
            t = T.time_allreduce(sub, args.reps)
            if sub.Get_rank() == 0:
                red[str(sub.Get_size())] = t
        comm.Barrier()
    got = comm.allgather(red if rank == 0 else None)
    res["allreduce"] = got[0]
    if lead != MPI.COMM_NULL:
        lead.Free()
    if rank == 0:
        with open(args.out + ".part", "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        os.replace(args.out + ".part", args.out)
    comm.Barrier()


if __name__ == "__main__":
    main()
