"""Shared pytest configuration for the petsc-aijhybrid tests that launch MPI workers.

Tests are parametrized over MPI ranks (1, 2, 4) and OpenMP threads (1, 2, 3); each launch runs one
worker script (tests/workers/) under mpiexec and checks its JSON result. Launches are cached per
session so that many small tests can share one worker run.
"""

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mpirun  # noqa: E402

# `make test-flavours` narrows these through the environment (e.g. AIJHYBRID_TEST_RANKS=1,2)
RANKS = tuple(int(r) for r in os.environ.get("AIJHYBRID_TEST_RANKS", "1,2,4").split(","))
THREADS = tuple(int(t) for t in os.environ.get("AIJHYBRID_TEST_THREADS", "1,2,3").split(","))

_cache = {}


def cached_worker(name, ranks=1, threads=1, args=(), timeout=mpirun.DEFAULT_TIMEOUT, env=None):
    """run_worker, memoized for the session on all its arguments."""
    key = (name, ranks, threads, tuple(args), timeout, tuple(sorted((env or {}).items())))
    if key not in _cache:
        _cache[key] = mpirun.run_worker(name, ranks, threads, args, timeout, env)
    return _cache[key]


def pytest_configure(config):
    config.addinivalue_line("markers", "mpi: launches MPI workers with mpiexec")


def pytest_collection_modifyitems(config, items):
    problems = []
    if shutil.which(mpirun.MPIEXEC) is None:
        problems.append("mpiexec not found")
    if not os.path.exists(mpirun.PYTHON):
        problems.append("%s not found" % mpirun.PYTHON)
    if not mpirun.LIB.exists():
        problems.append("%s not built (run `make lib`)" % mpirun.LIB)
    if not problems:
        return
    skip = pytest.mark.skip(reason="; ".join(problems))
    here = Path(__file__).resolve().parent
    for item in items:
        if Path(str(item.fspath)).resolve().parent == here and item.fspath.basename in (
            "test_products.py",
            "test_operations.py",
            "test_registration.py",
            "test_bad_input.py",
            "test_options_view.py",
        ):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def lib_path():
    return str(mpirun.LIB)
