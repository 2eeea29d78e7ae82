"""What one benchmark job (aijhybrid_bench.worker) works with: the spec the driver wrote, the
modules of the PETSc, MPI and plugin it runs, and the helpers every step uses (progress lines,
timed barriers, memory)."""

import importlib
import os
import resource


class Job:
    """One layout's job: `spec` (the driver's JSON), `PETSc`, `MPI`, `comm` (COMM_WORLD), `ph` (the
    petsc_aijhybrid package), `matrices` (the spec's generator module), `stream_lib` (the STREAM
    library, or None)."""

    def __init__(self, spec, PETSc, MPI, ph, stream_lib=None):
        self.spec = spec
        self.PETSc = PETSc
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.ph = ph
        self.stream_lib = stream_lib
        self.matrices = importlib.import_module(spec["matrices_module"])
        self.threads = spec["threads"]

    @property
    def rank(self):
        return self.comm.Get_rank()

    @property
    def size(self):
        return self.comm.Get_size()

    def log(self, msg):
        """A progress line for the driver (rank 0)."""
        if self.rank == 0:
            print("@@PROGRESS " + msg, flush=True)

    def wtime_barrier(self):
        """MPI_Wtime() after a barrier: every rank at the same point."""
        self.comm.Barrier()
        return self.MPI.Wtime()

    def sum(self, value):
        return self.comm.allreduce(value, op=self.MPI.SUM)

    def max(self, value):
        return self.comm.allreduce(value, op=self.MPI.MAX)

    def all(self, flag):
        return self.comm.allreduce(bool(flag), op=self.MPI.LAND)


def is_hybrid(mat_type):
    """aijhybrid, seqaijhybrid, mpiaijhybrid."""
    return "aijhybrid" in mat_type


def rss_now():
    """Resident set size of this process now, bytes."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def peak_rss():
    """Peak resident set size of this process, bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB
