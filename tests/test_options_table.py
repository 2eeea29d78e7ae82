"""The options of every type the package registers, described once in a table per type
(src/options/optiontable.h) and listed by build/tests/options_table (PetscAIJHybridOptionsView()),
against everything that states them:

- the README's options table is the one share/docs/options.py generates from the tables;
- -help of a program that creates every type (examples/ex1 with each table's selecting options, at
  2 ranks) lists exactly the registered options of each family (a name of a family that is in -help
  but in no table, or in a table but not in -help, fails), with the stated defaults as the current
  values of a new object;
- the manual page of each type (the table's manpage, e.g. MATAIJHYBRID) and the manual page of each
  option's Set function name the option;
- every option refuses bad values drawn from its kind and range (not a number, a fraction for an
  integer, beyond PetscInt, non-finite, below or above the range, an unknown boolean or enum name)
  with a message naming the option and what it accepts, and an unknown name of each family
  (a misspelling) is refused; an option of a family that no object reads is reported at PetscFinalize.

New types join by registering their table (src/register.c): these tests then cover them unchanged.
"""

import math
import re
import sys

import pytest

import mpirun

sys.path.insert(0, str(mpirun.ROOT / "share" / "docs"))
import options as docs  # noqa: E402

pytestmark = pytest.mark.mpi

EX1 = mpirun.BUILD / "examples" / "ex1"
TABLES = None


def tables():
    global TABLES
    if TABLES is None:
        TABLES = docs.registry(mpirun.BUILD)
    return TABLES


def all_options():
    return [(t, o) for t in tables() for o in t["options"]]


def select_args():
    args = []
    for t in tables():
        args += t["select"].split()
    return args


def test_registry_lists_the_matrix_options():
    """the registry itself: the matrix family with its fifteen options, the vector, PetscSF and
    CM-RCM ordering families (a vanished table must fail)"""
    fam = {t["family"]: t for t in tables()}
    assert {"mat_aijhybrid_", "vec_hybrid_", "sf_nodeaware_", "mat_ordering_cmrcm_"} <= set(fam), fam.keys()
    assert len(fam["vec_hybrid_"]["options"]) == 4 and len(fam["sf_nodeaware_"]["options"]) == 2, fam
    assert [o["name"] for o in fam["mat_ordering_cmrcm_"]["options"]] == ["mat_ordering_cmrcm_colors"], fam
    names = [o["name"] for o in fam["mat_aijhybrid_"]["options"]]
    assert len(names) == 15 and "mat_aijhybrid_num_threads" in names and "mat_aijhybrid_first_touch" in names, names
    for t, o in all_options():
        assert o["name"].startswith(t["family"]), o
        assert "|" not in o["help"] and o["accepts"] and o["default"] and o["man"], o


def test_readme_table_is_generated_from_the_registry():
    readme = (mpirun.ROOT / "README.md").read_text()
    got = docs.block(readme)
    assert got is not None, "README.md has no options-table block"
    want = docs.markdown(tables())
    assert got == want, "README's options table differs from the registered tables: run share/docs/options.py --write README.md"


# ------------------------------------------------------------------------------------------------
# -help


def help_output():
    assert EX1.exists(), "build the examples first: make examples"
    run = mpirun.run([EX1, "-n", "4"] + select_args() + ["-help"], ranks=2, threads=1, timeout=120)
    assert run.rc == 0, run.describe()
    return run.out


HELP = {}


def help_entries():
    """{option name without prefix: current value shown} for every option of a registered family"""
    if not HELP:
        fams = [t["family"] for t in tables()]
        for line in help_output().splitlines():
            m = re.match(r"\s*-([A-Za-z0-9_]+):?\s*(?:<([^>]*)>)?", line)
            if not m:
                continue
            name = m.group(1)
            for f in fams:
                k = 0 if name.startswith(f) else name.find("_" + f) + 1
                if k > 0 or name.startswith(f):
                    value = (m.group(2) or "").strip()
                    value = re.sub(r"^now\s+", "", value).split(" : ")[0].strip()
                    HELP.setdefault(name[k:], value)
                    break
    return HELP


def test_help_lists_exactly_the_registered_options():
    seen = set(help_entries())
    registered = {o["name"] for _, o in all_options()}
    assert registered - seen == set(), "registered but not in -help of %s: %s" % (" ".join(select_args()), sorted(registered - seen))
    assert seen - registered == set(), "in -help but in no option table (add them to their type's table): %s" % sorted(seen - registered)


def _value(kind, word):
    """the value a word states for an option of this kind, or None when it is no value"""
    try:
        if kind == "int":
            return int(word)
        if kind == "real":
            return float(word)
    except ValueError:
        return None
    if kind == "bool":
        return {"true": True, "false": False}.get(word.lower())
    return word


def test_defaults_are_what_help_shows():
    """the default each table states (first word) is the current value -help shows for a new object;
    defaults that depend on the run (first word no value: OMP_NUM_THREADS, NUMA-dependent) are not
    compared"""
    entries = help_entries()
    compared = 0
    for _, o in all_options():
        stated = _value(o["kind"], o["default"].split()[0].rstrip(";,"))
        if stated is None:
            assert o["kind"] in ("int", "real") or o["default"].startswith("NUMA-dependent"), "default of -%s is no %s value: %r" % (o["name"], o["kind"], o["default"])
            continue
        shown = _value(o["kind"], entries[o["name"]].rstrip("."))
        if o["kind"] == "real":
            shown = float(entries[o["name"]])
        assert shown == stated, "-%s: stated default %r, -help shows %r" % (o["name"], o["default"], entries[o["name"]])
        compared += 1
    assert compared >= len(all_options()) - 3, compared  # the two thread counts and vector first touch


# ------------------------------------------------------------------------------------------------
# manual pages


def _sources():
    files = sorted((mpirun.ROOT / "include").glob("*.h")) + sorted((mpirun.ROOT / "src").rglob("*.[ch]"))
    return {p: p.read_text() for p in files}


def manual_page(name, sources):
    """the text of the manual page of `name` (/*MC name - ... M*/ or /*@ name - ... @*/)"""
    for text in sources.values():
        m = re.search(r"/\*(MC|@C?)\s+%s - (.*?)(M|@)\*/" % re.escape(name), text, re.S)
        if m:
            return m.group(2)
    return None


def test_manual_pages_name_every_option():
    sources = _sources()
    missing = []
    for t, o in all_options():
        for page in (t["manpage"], o["man"]):
            text = manual_page(page, sources)
            if text is None:
                missing.append("no manual page %s" % page)
            elif "-" + o["name"] not in text:
                missing.append("%s does not list -%s" % (page, o["name"]))
    assert not missing, "\n".join(sorted(set(missing)))


# ------------------------------------------------------------------------------------------------
# bad values and unknown names, generated from each option's kind and range


def bad_values(o):
    """values each option must refuse: not of its kind, and just outside its range"""
    kind, rng = o["kind"], o["range"]
    if kind == "bool":
        return ["maybe"]
    if kind == "enum":
        return ["bogus"]
    lo, hi = float(rng[0]), float(rng[1])
    special = {float(s) for s in rng[2:]}
    if kind == "int":
        vals = ["abc", "99999999999999999999"]
        outside = [int(v) for v in (lo - 1, hi + 1) if abs(v) < 2**31 - 1 and v not in special]
    else:
        vals = ["nan"]
        outside = [v for v in (lo - 0.5, hi + 0.5) if math.isfinite(v) and abs(v) < 1e300 and v not in special]
    return vals + [str(v) for v in outside[:1]]


def _cases():
    try:
        return [(o["name"], v) for _, o in all_options() for v in bad_values(o)]
    except RuntimeError:  # not built: the registry tests above fail with the reason
        return []


@pytest.mark.parametrize("name,value", _cases())
def test_bad_value_is_refused_naming_the_option(name, value):
    o = next(o for _, o in all_options() if o["name"] == name)
    run = mpirun.run([EX1, "-n", "4"] + select_args() + ["-" + name, value], ranks=2, threads=1, timeout=60)  # 2 ranks: an SF exists
    assert not run.timed_out and run.rc != 0, run.describe()
    out = run.output
    assert "Segmentation" not in out and "signal" not in out.lower(), run.describe()
    assert "-" + name in out and o["accepts"] in out, "message must name -%s and say it accepts %r\n%s" % (name, o["accepts"], run.describe())
    assert "'%s'" % value in out, run.describe()


def _families():
    try:
        return [t["family"] for t in tables()]
    except RuntimeError:
        return ["mat_aijhybrid_"]


@pytest.mark.parametrize("family", _families())
def test_unknown_name_of_a_family_is_refused(family):
    t = next(t for t in tables() if t["family"] == family)
    first = t["options"][0]["name"]
    wrong = first[:-1]  # a misspelling: the last letter missing
    run = mpirun.run([EX1, "-n", "4"] + select_args() + ["-" + wrong, "1"], ranks=2, threads=1, timeout=60)
    assert not run.timed_out and run.rc != 0, run.describe()
    assert "Unknown option -%s" % wrong in run.output and "-" + first in run.output, run.describe()


def test_option_no_object_reads_is_reported_at_finalize():
    """a prefix no object has: nothing can refuse it while the program runs; PetscFinalize reports it"""
    for t in tables():
        name = "zzz_" + t["options"][0]["name"]
        run = mpirun.run([EX1, "-n", "4"] + select_args() + ["-" + name, "1"], ranks=2, threads=1, timeout=60)
        assert run.rc == 0, run.describe()
        assert "WARNING! petsc-aijhybrid: option -%s 1 was not used by any object" % name in run.out, run.describe()
    # and not without reason: every option used, no warning
    run = mpirun.run([EX1, "-n", "4"] + select_args(), ranks=2, threads=1, timeout=60)
    assert run.rc == 0 and "petsc-aijhybrid: option" not in run.out, run.describe()
