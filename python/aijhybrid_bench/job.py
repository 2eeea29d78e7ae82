"""What one benchmark job (aijhybrid_bench.worker) works with: the spec the driver wrote, the
modules of the PETSc, MPI and plugin it runs, the groups of ranks its variants run on, and the
helpers every step uses (progress lines, timed barriers, memory).

A job measures its layout (R ranks x T threads). A *paired* job (spec "paired", threaded layouts
on one node) measures in the same job the pure-MPI baseline on the same cores: it starts R x T
ranks, one per core; the layout's variants run on every T-th rank with T threads each (the
``layout`` group), the baseline on all of them with one thread each (the ``pair`` group). While a
group that leaves ranks out runs, the ranks outside it wait without spinning (a non-blocking barrier
polled with sleeps), so that their cores are the threads' (``Job.run_on``)."""

import importlib
import os
import resource
import time


class Group:
    """Ranks x threads one set of variants runs on: `comm` (None on ranks outside it), `layout`
    ('RxT'), `ranks`, `threads`, and `partial` (True when some ranks of the job are outside it)."""

    def __init__(self, MPI, comm, layout, ranks, threads, partial):
        self.MPI = MPI
        self.comm = comm
        self.layout = layout
        self.ranks = ranks
        self.threads = threads
        self.partial = partial

    @property
    def member(self):
        return self.comm is not None

    @property
    def rank(self):
        return self.comm.Get_rank()

    @property
    def size(self):
        return self.comm.Get_size()

    def wtime_barrier(self):
        """MPI_Wtime() after a barrier: every rank of the group at the same point."""
        self.comm.Barrier()
        return self.MPI.Wtime()

    def sum(self, value):
        return self.comm.allreduce(value, op=self.MPI.SUM)

    def max(self, value):
        return self.comm.allreduce(value, op=self.MPI.MAX)

    def all(self, flag):
        return self.comm.allreduce(bool(flag), op=self.MPI.LAND)


class Job:
    """One layout's job: `spec` (the driver's JSON), `PETSc`, `MPI`, `world` (COMM_WORLD), `ph` (the
    petsc_aijhybrid package), `matrices` (the spec's generator module), `stream_lib` (the STREAM
    library, or None); `layout` (the Group of the layout) and `pair` (the Group of the same-job
    baseline, or None); `comm` is the layout's communicator (None on the ranks a paired job leaves
    out of it)."""

    def __init__(self, spec, PETSc, MPI, ph, stream_lib=None):
        self.spec = spec
        self.PETSc = PETSc
        self.MPI = MPI
        self.world = MPI.COMM_WORLD
        self.ph = ph
        self.stream_lib = stream_lib
        self.matrices = importlib.import_module(spec["matrices_module"])
        self.threads = spec["threads"]
        pair = spec.get("paired")
        if pair:
            inside = self.world.Get_rank() % self.threads == 0
            comm = self.world.Split(0 if inside else MPI.UNDEFINED, self.world.Get_rank())
            self.layout = Group(MPI, comm if inside else None, spec["layout"], spec["ranks"], self.threads, True)
            self.pair = Group(MPI, self.world, pair["layout"], self.world.Get_size(), 1, False)
        else:
            self.layout = Group(MPI, self.world, spec["layout"], spec["ranks"], self.threads, False)
            self.pair = None
        self.comm = self.layout.comm

    @property
    def rank(self):
        """Rank in the job (COMM_WORLD): rank 0 is in every group and writes the output."""
        return self.world.Get_rank()

    @property
    def size(self):
        return self.world.Get_size()

    def groups(self):
        return [self.layout] + ([self.pair] if self.pair else [])

    def log(self, msg):
        """A progress line for the driver (rank 0)."""
        if self.rank == 0:
            print("@@PROGRESS " + msg, flush=True)

    def run_on(self, group, fn):
        """run_on(self.world, group, fn)."""
        return run_on(self.world, group, fn)

    def sum(self, value):
        return self.world.allreduce(value, op=self.MPI.SUM)


def run_on(world, group, fn):
    """fn() on the ranks of group (its value there, None elsewhere). When the group leaves ranks of
    world out, those wait until it is done without spinning, and everyone leaves together; an
    exception of fn is raised after that wait."""
    if not group.partial:
        return fn()
    value, err = None, None
    if group.member:
        try:
            value = fn()
        except Exception as e:  # raised below, once the ranks outside have been released
            err = e
    req = world.Ibarrier()
    if group.member:
        req.Wait()
    else:
        while not req.Test():
            time.sleep(0.001)
    if err is not None:
        raise err
    return value


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


def pin_paired(threads, local_rank, cpus, threads_per_core=1):
    """A paired job's binding of one rank (before OpenMP starts): the CPUs it may run on and its
    OpenMP threads. Ranks are numbered on their node; rank k takes core k (its cores are the
    node's CPUs in order, threads_per_core at a time); every T-th rank (k % T == 0) runs the layout's
    variants with T threads and takes the cores of the T-1 ranks after it too. Returns
    (cpus, OMP_NUM_THREADS)."""
    cores = [cpus[i:i + threads_per_core] for i in range(0, len(cpus), threads_per_core)]
    if local_rank % threads == 0:
        mine = cores[local_rank:local_rank + threads]
        n = threads
    else:
        mine = cores[local_rank:local_rank + 1]
        n = 1
    if not mine or len(mine) < n:
        raise ValueError("paired job: local rank %d needs %d core(s) from %d" % (local_rank, n, len(cores)))
    return sorted(c for core in mine for c in core), n
