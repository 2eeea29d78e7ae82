"""Launch test workers under mpiexec and collect their JSON results.

A worker writes its JSON result (rank 0 only) to the file named by ``AIJHYBRID_RESULT_FILE`` when it
finishes (a file, not a stdout line: with ``-info`` other ranks' output can land on the same line of the
merged stdout); ``run_worker`` returns a ``Run`` with the parsed result, the exit code and the captured
output. Every launch has a timeout: a
hang kills the whole process group (mpiexec and its ranks) and is reported as a failure, never a
blocked test session.
"""

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
WORKERS = TESTS / "workers"
PYTHON = os.environ.get("AIJHYBRID_PYTHON", "/usr/bin/python3")  # the interpreter petsc4py/mpi4py are installed for
BUILD = Path(os.environ.get("AIJHYBRID_BUILD") or ROOT / "build")
LIB = Path(os.environ.get("AIJHYBRID_LIB") or BUILD / "lib" / "libpetscaijhybrid.so")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec")
DEFAULT_TIMEOUT = 120
RESULT_FILE_ENV = "AIJHYBRID_RESULT_FILE"


class Run:
    def __init__(self, cmd, rc, out, err, elapsed, timed_out, result_text=None):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err
        self.elapsed, self.timed_out = elapsed, timed_out
        self.result = json.loads(result_text) if result_text else None

    @property
    def output(self):
        return self.out + self.err

    def describe(self, limit=6000):
        """What to show when a test fails: the command, exit code and the tail of the output."""
        text = "command: %s\nexit code: %s%s (%.1f s)\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            " ".join(map(str, self.cmd)),
            self.rc,
            " TIMED OUT" if self.timed_out else "",
            self.elapsed,
            self.out[-limit:],
            self.err[-limit:],
        )
        return text

    def check(self):
        """The parsed result of a worker that must have succeeded; fails the test otherwise."""
        assert not self.timed_out, "worker hung (killed after timeout)\n" + self.describe()
        assert self.rc == 0, "worker failed\n" + self.describe()
        assert self.result is not None, "worker printed no result\n" + self.describe()
        return self.result


def environment(threads=1, extra=None):
    env = dict(os.environ)
    # never inherit MPI/PETSc state of the calling process (e.g. a singleton-initialized pytest)
    for k in list(env):
        if k.startswith(("OMPI_COMM_WORLD", "OMPI_MCA_ess", "OMPI_MCA_orte", "PMIX_", "PETSC_OPTIONS")):
            del env[k]
    env.update(
        OMP_NUM_THREADS=str(threads),
        OMP_WAIT_POLICY="passive",  # oversubscribed (ranks x threads > cores): do not spin
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        OMPI_MCA_rmaps_base_oversubscribe="1",
        OMPI_MCA_btl_vader_single_copy_mechanism="none",
        PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(WORKERS)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
        PYTHONUNBUFFERED="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    if extra:
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = str(v)
    return env


def mpiexec_cmd(ranks):
    return [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-n", str(ranks)]


def run(argv, ranks=1, threads=1, timeout=DEFAULT_TIMEOUT, env=None, cwd=None):
    """Run argv (a program and its arguments) on `ranks` MPI ranks with OMP_NUM_THREADS=threads."""
    cmd = mpiexec_cmd(ranks) + [str(a) for a in argv]
    with tempfile.TemporaryDirectory(prefix="aijhybrid-run-") as tmp:
        result_file = os.path.join(tmp, "result.json")
        t0 = time.time()
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            # its own Open MPI session directory: concurrent launches share /tmp/ompi.<host>.<uid>
            # otherwise, which one's cleanup can remove while another makes its directory there
            env=environment(threads, dict(env or {}, **{RESULT_FILE_ENV: result_file, "OMPI_MCA_orte_tmpdir_base": tmp})),
            cwd=str(cwd or ROOT),
            text=True,
            start_new_session=True,
        )
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # mpiexec and every rank it started
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
        result_text = open(result_file).read() if os.path.exists(result_file) else None
    return Run(cmd, proc.returncode, out, err, time.time() - t0, timed_out, result_text)


def run_worker(name, ranks=1, threads=1, args=(), timeout=DEFAULT_TIMEOUT, env=None):
    """Run tests/workers/<name>.py with arguments `args` (worker arguments, then PETSc options)."""
    return run([PYTHON, WORKERS / (name + ".py")] + list(args), ranks, threads, timeout, env)
