"""PETSc's own PetscSF tests (src/vec/is/sf/tests of PETSc's examples) across the emulated hosts, with
-sf_type basic and with -sf_type nodeaware (nodes found by MPI_COMM_TYPE_SHARED: the emulated hosts),
each against PETSc's reference output.

The subset: every test of that directory that runs on 2 or more ranks on a CPU build (no window,
CUDA, HIP or Kokkos variants), with its arguments, output file and filter as its /*TEST*/ block
gives them. The ranks fill the hosts two by two (a test of 7 ranks runs on 4 hosts as 2+2+2+1), so
that each test sends messages both inside a host (shared memory) and between hosts (TCP). As the
harness's --inject sf does (tests/harness/harness.py), the node-aware run's output has the type name
mapped back (nodeaware -> basic) and the type's own "NodeAware:" view lines removed before the
comparison with PETSc's petscdiff.
"""

import os
import re
import shlex
import subprocess

EXAMPLES = "/usr/share/petsc/3.18/share/petsc/examples/src/vec/is/sf/tests"
PETSCDIFF = "/usr/lib/petsc/lib/petsc/bin/petscdiff"
F_TYPE = 'grep -v "type" | grep -v "sort"'
# (example, ranks, arguments, reference output, filter, petscdiff arguments)
TESTS = [
    ("ex1", 2, "", "ex1_basic_2.out", None, ""),
    ("ex1", 3, "", "ex1_basic_3.out", None, ""),
    ("ex3", 2, "-op replace", "ex3_1.out", None, ""),
    ("ex3", 2, "-op sum", "ex3_2.out", None, ""),
    ("ex3", 3, "-op replace", "ex3_3.out", None, ""),
    ("ex3", 3, "-op sum", "ex3_4.out", None, ""),
    ("ex5", 7, "-view -nl 5 -explicit_inverse 0", "ex5_2.out", F_TYPE, ""),
    ("ex5", 7, "-view -nl 5 -explicit_inverse 1", "ex5_2.out", F_TYPE, ""),
    ("ex6", 2, "", "ex6_1.out", None, ""),
    ("ex7", 2, "", "ex7_1.out", None, ""),
    ("ex8", 2, "", "ex8_1.out", 'grep -v "type"', "-j"),
    ("ex8", 3, "", "ex8_2.out", 'grep -v "type" | grep -v "Process "', "-j"),
    ("ex9", 7, "-world2sub", "ex9_1.out", None, ""),
    ("ex9", 7, "-sub2sub", "ex9_2.out", None, ""),
    ("ex9", 7, "-world2subs", "ex9_3.out", None, ""),
    ("ex11", 2, "", "ex11_1.out", None, ""),
    ("ex12", 3, "", "ex12_1.out", None, ""),
    ("ex13", 3, "", "ex13_1.out", None, ""),
    ("ex14", 4, "", "ex14_1.out", None, ""),
    ("ex15", 2, "", "ex15_1.out", None, "-j"),
    ("ex16", 3, "-testnum 0", "ex16_0.out", None, ""),
    ("ex16", 3, "-testnum 1", "ex16_1.out", None, ""),
    ("ex16", 3, "-testnum 2", "ex16_2.out", None, ""),
]


def available():
    """None if PETSc's SF tests and petscdiff are installed (Debian's libpetsc3.18-dev-examples), else why not"""
    for p in (EXAMPLES, PETSCDIFF):
        if not os.path.exists(p):
            return "%s not found (Debian's libpetsc3.18-dev-examples and petsc-dev)" % p
    return None


def build(workdir, names):
    """Compile the examples into workdir with mpicc and PETSc's pkg-config flags; {name: path or error}"""
    os.makedirs(workdir, exist_ok=True)
    flags = shlex.split(subprocess.run(["pkg-config", "--cflags", "--libs", "PETSc"], capture_output=True, text=True, check=True).stdout)
    out = {}
    for n in sorted(set(names)):
        exe = os.path.join(workdir, n)
        p = subprocess.run(["mpicc", "-O1", os.path.join(EXAMPLES, n + ".c"), "-o", exe] + flags + ["-lm"], capture_output=True, text=True)
        out[n] = exe if p.returncode == 0 else "build failed: " + (p.stderr or "")[-500:]
    return out


def to_basic(text):
    """the node-aware run's output as basic would print it"""
    lines = [l for l in text.splitlines(True) if not l.lstrip().startswith("NodeAware:")]
    return re.sub(r"\bnodeaware\b", "basic", "".join(lines))


def run(hosts, lib, workdir, log=print, tests=TESTS):
    """Every test with -sf_type basic and nodeaware on the hosts (a hosts.Hosts); a list of records"""
    exes = build(workdir, [t[0] for t in tests])
    res = []
    for ex, np_, args, ref, filt, dargs in tests:
        for sf in ("basic", "nodeaware"):
            name = "%s %s (%d ranks, -sf_type %s)" % (ex, args or "", np_, sf)
            rec = {"example": ex, "ranks": np_, "args": args, "sf_type": sf, "output_file": ref, "hosts": (np_ + 1) // 2}
            if not os.path.exists(exes[ex]):
                rec.update(status="fail", reason=exes[ex])
                res.append(rec)
                continue
            argv = [exes[ex]] + shlex.split(args) + ["-dll_append", lib, "-sf_type", sf, "-options_left", "0"]
            rc, out, err, sec = hosts.mpirun(argv, 2, nranks=np_, hosts=(np_ + 1) // 2, timeout=120, cwd=os.path.dirname(exes[ex]))
            text = to_basic(out) if sf == "nodeaware" else out
            if filt:
                text = subprocess.run(["/bin/sh", "-c", filt], input=text, capture_output=True, text=True).stdout
            got = os.path.join(workdir, "%s-%s-%d-%s.out" % (ex, re.sub(r"\W+", "_", args), np_, sf))
            with open(got, "w") as f:
                f.write(text)
            d = subprocess.run([PETSCDIFF] + shlex.split(dargs) + [os.path.join(EXAMPLES, "output", ref), got], capture_output=True, text=True)
            ok = rc == 0 and d.returncode == 0
            rec.update(status="pass" if ok else "fail", seconds=round(sec, 1), exit_code=rc)
            if not ok:
                rec["reason"] = ("exit %d: %s" % (rc, err.strip()[-800:])) if rc else "output differs: " + d.stdout[-800:]
            log("sf test %-45s %s" % (name, rec["status"]))
            res.append(rec)
    return res
