"""What every record of share/results/ carries (make records; docs/testing.md, "Records and CI"): the git
revision and whether the tree was clean, the identity of the code the record is about (code_id: a
hash of the tracked files of its scope at that revision), the PETSc it ran with, the machine (lscpu
model, family, model number, vector ISA, cores) and the date. The documents quote figures only from
records whose code_id is that of the checked-out revision (share/records/readme.py, tests/test_records.py).

No PETSc, MPI or petsc4py here: the records driver, the sanitizer driver and the tests import it.
"""

import datetime
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "share" / "results"
SCHEMA = 1

# The code a record is about: tracked files under the scope's paths, minus EXCLUDE (fnmatch patterns).
# Text that only describes or renders results (READMEs, the README generator, CI wiring, the results
# themselves) is not code.
EXCLUDE = ["share/results/*", "*.md", ".ci/*", "share/records/readme.py", "share/docs/*", "share/upstream/*", "share/slurm/*", ".gitignore"]
SCOPES = {
    # tests, sanitizers, fuzzing, PETSc's harness: everything
    "all": [""],
    # benchmarks: the library, the Python package (driver, generators), its configs, the build
    "bench": ["src/", "include/", "python/", "share/bench/", "makefile"],
}


def in_scope(path, scope):
    import fnmatch

    return any(path == p or path.startswith(p) for p in SCOPES[scope]) and not any(fnmatch.fnmatch(path, e) for e in EXCLUDE)


def _git(*args, check=False):
    p = subprocess.run(["git", "-C", str(ROOT)] + list(args), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), p.stderr))
    return p.stdout if p.returncode == 0 else None


def revision():
    out = _git("rev-parse", "HEAD")
    return out.strip() if out else None


def code_id(scope="all", rev="HEAD"):
    """sha256 of (mode, blob, path) of every tracked file of the scope at rev"""
    out = _git("ls-tree", "-r", "--full-tree", rev)
    if out is None:
        return None
    lines = [l for l in out.splitlines() if in_scope(l.split("\t", 1)[1], scope)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def dirty(scope="all"):
    """files of the scope that differ from HEAD (modified, staged, or untracked and not ignored)"""
    out = _git("status", "--porcelain", "--untracked-files=all")
    files = [line[3:].split(" -> ")[-1] for line in (out or "").splitlines() if line.strip()]
    return [f for f in files if in_scope(f, scope)]


def lscpu():
    out = {}
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    for line in text.splitlines():
        k, sep, v = line.partition(":")
        if sep:
            out[k.strip()] = v.strip()
    return out


def machine():
    c = lscpu()
    flags = set(c.get("Flags", "").split())
    isa = "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else "sse" if flags else None
    sockets = int(c.get("Socket(s)", "1") or 1)
    return {
        "cpu_model": c.get("Model name"),
        "cpu_vendor": c.get("Vendor ID"),
        "cpu_family": c.get("CPU family"),
        "cpu_model_number": c.get("Model"),
        "isa": isa,
        "cores": sockets * int(c.get("Core(s) per socket", "0") or 0) or os.cpu_count(),
        "numa_nodes": int(c.get("NUMA node(s)", "1") or 1),
        "l3_cache": c.get("L3 cache"),
        "hypervisor": c.get("Hypervisor vendor"),
        "hostname": os.uname().nodename,
    }


def machine_text(m):
    """one line: 'AMD EPYC (family 25, model 1, AVX2), 2 cores'"""
    if not m:
        return "unknown machine"
    return "%s (family %s, model %s, %s), %s cores" % (m.get("cpu_model"), m.get("cpu_family"), m.get("cpu_model_number"), (m.get("isa") or "?").upper().replace("AVX512", "AVX-512"), m.get("cores"))


def petsc_dir_default():
    return os.environ.get("PETSC_DIR") or "/usr/lib/petsc"


def petsc(petsc_dir=None, petsc_arch=None):
    """version and configuration of the PETSc in petsc_dir (read from its headers and variables)"""
    d = Path(petsc_dir or petsc_dir_default())
    arch = petsc_arch if petsc_arch is not None else os.environ.get("PETSC_ARCH", "")
    info = {"dir": str(d.resolve()) if d.exists() else str(d), "arch": arch}
    for h in (d / "include" / "petscversion.h", d / arch / "include" / "petscversion.h"):
        if h.exists():
            v = dict(re.findall(r"#define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR|RELEASE)\s+(\d+)", h.read_text()))
            info["version"] = "%s.%s.%s" % (v.get("MAJOR"), v.get("MINOR"), v.get("SUBMINOR"))
            break
    for h in (d / arch / "include" / "petscconf.h", d / "include" / "petscconf.h"):
        if h.exists():
            t = h.read_text()
            info["scalar"] = "complex" if re.search(r"#define PETSC_USE_COMPLEX 1", t) else "real"
            info["int_bits"] = 64 if re.search(r"#define PETSC_USE_64BIT_INDICES 1", t) else 32
            info["debug"] = bool(re.search(r"#define PETSC_USE_DEBUG 1", t))
            break
    return info


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def meta(name, scope="all", petsc_dir=None, petsc_arch=None, command=None, trial=False):
    """the metadata of a record made now, from the checked-out tree"""
    return {
        "record": name,
        "schema": SCHEMA,
        "date": now(),
        "git": {"revision": revision(), "dirty": bool(dirty(scope)), "dirty_files": dirty(scope)[:20], "scope": scope, "code_id": code_id(scope)},
        "petsc": petsc(petsc_dir, petsc_arch),
        "machine": machine(),
        "command": command,
        "trial": bool(trial),
    }


def path(name):
    return RESULTS / (name + ".json")


def write(name, result, meta_, duration_s=None, target=None):
    doc = {"meta": dict(meta_, duration_s=None if duration_s is None else round(duration_s, 1)), "result": result}
    p = Path(target) if target else path(name)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return p


def read(name_or_path):
    p = Path(name_or_path)
    if not p.suffix:
        p = path(str(name_or_path))
    if not p.exists():
        return None
    return json.loads(p.read_text())


def problems(doc, head_ids=None):
    """why a record may not be quoted as the current code's (empty list: it may)"""
    if doc is None:
        return ["no record"]
    m = doc.get("meta")
    if not m:
        return ["no metadata (made before records carried revisions)"]
    out = []
    for k in ("date", "git", "petsc", "machine"):
        if not m.get(k):
            out.append("no %s" % k)
    g = m.get("git") or {}
    if g.get("dirty"):
        out.append("made from a dirty tree (%s)" % ", ".join(g.get("dirty_files") or []))
    if m.get("trial"):
        out.append("a trial run (scaled down)")
    scope = g.get("scope", "all")
    want = (head_ids or {}).get(scope) or code_id(scope)
    if g.get("code_id") != want:
        out.append("made for other code (revision %s, scope %s)" % ((g.get("revision") or "?")[:10], scope))
    return out
