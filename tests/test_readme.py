"""The README as a user reads it:

- the three ways of using the plugin ("Use it") run exactly as written: every fenced block after a
  `<!-- snippet: NAME -->` line is written to NAME in a scratch directory, and the shell snippets
  run there in order with `bash -e`, after `make install` into a scratch prefix whose
  `lib/pkgconfig` (and PETSc's) is on `PKG_CONFIG_PATH`, its Python package on `PYTHONPATH` and
  the interpreter whose petsc4py runs this build's PETSc as `python3` on `PATH` (what the README's
  install section sets up); each must run the plugin's types, and every solve must converge;
- the README stays a front door: at most README_LINES lines, prose wrapped at 100 columns (tables
  and generated blocks aside), the order of its sections, no issue numbers, the two commands.
"""

import os
import re
import subprocess

import pytest

import mpirun

README = mpirun.ROOT / "README.md"
README_LINES = 300
SNIPPET = re.compile(r"^<!-- snippet: (\S+) -->\n```\w*\n(.*?)^```$", re.M | re.S)
SECTIONS = ["Install", "Use it", "Options", "Results", "Read more"]


def snippets():
    return [(m.group(1), m.group(2)) for m in SNIPPET.finditer(README.read_text())]


# what each shell snippet must show: the plugin's types ran, and the solves converged
EXPECT = {
    "app.sh": (["seqaijhybrid"], 2),
    "solve.sh": (["solved with 2 threads per rank"], 1),
    "solve-py.sh": (["seqaijhybrid seqhybrid threads: 2"], 1),
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """make install of this build into a scratch prefix, and the environment the README's install
    section describes"""
    tmp = tmp_path_factory.mktemp("readme")
    prefix = tmp / "prefix"
    env = dict(os.environ)
    for k in ("AIJHYBRID_LIB", "AIJHYBRID_BUILD", "PETSC_OPTIONS"):
        env.pop(k, None)
    r = subprocess.run(["make", "-C", str(mpirun.ROOT), "install", "PREFIX=" + str(prefix), "BUILD=" + str(mpirun.BUILD)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    petsc_dir = os.environ.get("PETSC_DIR") or "/usr/lib/petsc"
    petsc_arch = os.environ.get("PETSC_ARCH") or ""
    bindir = tmp / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(mpirun.PYTHON)
    env.update(
        PETSC_DIR=petsc_dir,
        PETSC_ARCH=petsc_arch,
        PKG_CONFIG_PATH=os.pathsep.join([str(prefix / "lib" / "pkgconfig"), os.path.join(petsc_dir, petsc_arch, "lib", "pkgconfig")] + ([env["PKG_CONFIG_PATH"]] if env.get("PKG_CONFIG_PATH") else [])),
        PYTHONPATH=os.pathsep.join([str(prefix / "lib" / "python3" / "dist-packages")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
        PATH=os.pathsep.join([str(bindir), env.get("PATH", "")]),
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        OMPI_MCA_btl_vader_single_copy_mechanism="none",
    )
    work = tmp / "work"
    work.mkdir()
    for name, text in snippets():
        (work / name).write_text(text)
    return work, env


def test_readme_has_the_three_snippets():
    names = [n for n, _ in snippets()]
    assert set(EXPECT) <= set(names), names
    assert "solve.c" in names and "solve.py" in names, names


@pytest.mark.parametrize("name", list(EXPECT))
def test_readme_snippet_runs(installed, name):
    work, env = installed
    # the shell snippets build on each other's files in one directory, in the README's order
    r = subprocess.run(["bash", "-e", name], cwd=str(work), capture_output=True, text=True, env=env, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode == 0, "%s failed (exit %d):\n%s" % (name, r.returncode, out[-6000:])
    words, converged = EXPECT[name]
    for w in words:
        assert w in out, "%s: %r not in the output:\n%s" % (name, w, out[-6000:])
    assert out.count("converged due to CONVERGED") == converged and "DIVERGED" not in out, out[-6000:]


def outside_generated(text):
    return re.sub(r"<!-- (record:[\w.-]+|options-table)[^\n]*-->.*?<!-- /(record:[\w.-]+|options-table) -->", "", text, flags=re.S)


def test_readme_is_a_front_door():
    text = README.read_text()
    lines = text.splitlines()
    assert len(lines) <= README_LINES, "README.md has %d lines (at most %d: move detail to docs/)" % (len(lines), README_LINES)
    long = [l for l in outside_generated(text).splitlines() if len(l) > 100 and not l.startswith("|")]
    assert not long, "README lines over 100 columns:\n" + "\n".join(long)
    heads = [l[3:] for l in lines if l.startswith("## ")]
    assert heads == SECTIONS, heads
    assert not re.search(r"\bissues? \d+|#\d+\b", outside_generated(text), re.I), "issue numbers in the README"
    for cmd in ("make run", "make test"):
        assert cmd in text, cmd
    for link in re.findall(r"\]\(((?:docs/|CHANGELOG)[^)#]*)", text):
        assert (mpirun.ROOT / link).exists(), link
