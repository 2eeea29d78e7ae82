"""The C sources keep PETSc's style: `make check-format` (clang-format-16 with .clang-format) finds
nothing to change, and no line exceeds PETSc's 250 columns."""
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


def test_no_c_line_over_250_columns():
    """PETSc's line limit (ColumnLimit 250 in .clang-format), which clang-format cannot enforce on
    what it does not break (a long string, a long initialiser row): no C line of the tree exceeds it"""
    files = subprocess.run(["git", "-C", str(TOP), "ls-files", "*.c", "*.h", "*.inc"], capture_output=True, text=True).stdout.split()
    assert files, "no C file found"
    long = ["%s:%d: %d columns" % (f, n, len(line)) for f in files for n, line in enumerate((TOP / f).read_text().splitlines(), 1) if len(line) > 250]
    assert not long, "\n".join(long)
