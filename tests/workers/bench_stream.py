"""STREAM triad of the benchmark driver in an MPI job: builds share/bench/stream.c into argv[1],
measures with the job's ranks and OMP_NUM_THREADS, reports the result (rank 0)."""
import importlib.util
import json
import os
import sys
from pathlib import Path

from mpi4py import MPI

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "python" / "petsc_aijhybrid" / "bench"


def load_bench():
    """The bench package by path, without importing petsc_aijhybrid (which loads PETSc)."""
    spec = importlib.util.spec_from_file_location("aijh_bench", BENCH / "__init__.py", submodule_search_locations=[str(BENCH)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["aijh_bench"] = mod
    spec.loader.exec_module(mod)
    return importlib.import_module("aijh_bench.stream")


stream = load_bench()
comm = MPI.COMM_WORLD
T = int(os.environ.get("OMP_NUM_THREADS", "1"))
lib = None
if comm.Get_rank() == 0:
    lib, msg = stream.build(sys.argv[1])
lib = comm.bcast(lib, root=0)
res = stream.measure(comm, lib, T, 16 << 20, repeats=3)
res["thread_cpus"] = stream.thread_cpus(lib, T)
res["numpy"] = stream.measure(comm, None, T, 16 << 20, repeats=2)
comm.Barrier()
if comm.Get_rank() == 0:
    from common import write_result  # tests/workers is on PYTHONPATH (tests/mpirun.py)

    write_result(json.dumps(res))
