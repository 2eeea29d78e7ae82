"""The C sources keep PETSc's style: `make check-format` (clang-format-16 with .clang-format) finds
nothing to change."""
import shutil
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parent.parent


def test_clang_format_clean():
    if shutil.which("clang-format-16") is None:
        pytest.fail("clang-format-16 is missing: share/setup.sh installs it (apt-get install clang-format-16)")
    out = subprocess.run(["make", "--no-print-directory", "-C", str(TOP), "check-format"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, "run `make format`:\n" + out.stderr[-4000:]
