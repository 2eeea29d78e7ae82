"""C unit tests of the pure partitioners (tests/unit/test_partition.c), run as one process."""
import os
import subprocess

BUILD = os.environ.get("AIJHYBRID_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))


def test_partitioners():
    exe = os.path.join(BUILD, "tests", "test_partition")
    assert os.path.exists(exe), "build the unit tests first: make unit"
    out = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    print(out.stdout)
    assert out.returncode == 0, out.stdout + out.stderr
    last = out.stdout.strip().splitlines()[-1]
    npass, nfail = int(last.split()[0]), int(last.split()[2])
    assert nfail == 0 and npass > 1000, last
