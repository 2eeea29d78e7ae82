"""STREAM triad of the benchmark driver in an MPI job: builds share/bench/stream.c into argv[1],
measures with the job's ranks and OMP_NUM_THREADS, reports the result (rank 0)."""
import json
import os
import sys
from pathlib import Path

from mpi4py import MPI

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from aijhybrid_bench import stream  # noqa: E402  (the benchmark package: no PETSc, no bindings)

comm = MPI.COMM_WORLD
T = int(os.environ.get("OMP_NUM_THREADS", "1"))
lib = None
if comm.Get_rank() == 0:
    lib, msg = stream.build(sys.argv[1])
lib = comm.bcast(lib, root=0)
res = stream.measure(comm, lib, T, 16 << 20, repeats=3)
res["thread_cpus"] = stream.thread_cpus(lib, T)
res["numpy"] = stream.measure(comm, None, T, 16 << 20, repeats=2)
res["cap"] = stream.memory_cap(comm, comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank())
comm.Barrier()
if comm.Get_rank() == 0:
    from common import write_result  # tests/workers is on PYTHONPATH (tests/mpirun.py)

    write_result(json.dumps(res))
