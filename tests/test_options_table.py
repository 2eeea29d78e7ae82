"""The options of the package's types, read the PETSc way (each type's SetFromOptions, or where a type
reads them, with PETSc's readers through src/options/options.h) and listed by -help, against
everything that states them:

- build/tests/options_table (one object of every type, each reading its options) lists under -help
  the options of every family, grouped under their types' titles; the README's options table is what
  share/docs/options.py generates from that listing;
- -help of an application (examples/ex1 with each family's selecting options, at 2 ranks) lists the
  same options;
- the manual page of each type and of each option's Set function name the option;
- every option refuses bad values of its kind (not a number, a fraction for an integer, an integer
  beyond PetscInt, no value, not finite, an unknown boolean or enum name) and values just outside its
  range, with a message naming the option and the value; the values at the ends of the range pass;
- a misspelt name, or an option with a prefix no object has, is reported by PETSc's -options_left at
  PetscFinalize, as PETSc's own options are, and the package prints no report of its own.
"""

import re
import sys

import pytest

import mpirun

sys.path.insert(0, str(mpirun.ROOT / "share" / "docs"))
import options as docs  # noqa: E402

pytestmark = pytest.mark.mpi

EX1 = mpirun.BUILD / "examples" / "ex1"
TABLE = mpirun.BUILD / "tests" / "options_table"
GROUPS = None

# values just outside each integer and real option's range (and in its gaps), and the ends of the
# range, which must pass: the ranges are stated in the readers' calls, these are their tests
OUTSIDE = {
    "mat_aijhybrid_num_threads": ["-2", "0", "4097"],
    "mat_aijhybrid_row_cost": ["-0.5", "1e400"],
    "mat_aijhybrid_diffusion_tol": ["-1e-9"],
    "mat_aijhybrid_diffusion_max_it": ["-1"],
    "mat_aijhybrid_prefetch": ["-2", "1048577"],
    "mat_aijhybrid_task_share": ["-2", "-0.5", "1.5"],
    "mat_aijhybrid_node_size": ["-1"],
    "vec_hybrid_num_threads": ["-1000", "0", "4097"],
    "vec_hybrid_threshold": ["-1"],
    "sf_nodeaware_node_size": ["-3"],
    "mat_ordering_cmrcm_colors": ["0"],
}
ENDS = {
    "mat_aijhybrid_num_threads": ["-1", "1", "2"],
    "mat_aijhybrid_row_cost": ["0", "1e300"],
    "mat_aijhybrid_diffusion_tol": ["0"],
    "mat_aijhybrid_diffusion_max_it": ["0"],
    "mat_aijhybrid_prefetch": ["-1", "0", "1048576"],
    "mat_aijhybrid_task_share": ["-1", "0", "1"],
    "mat_aijhybrid_node_size": ["0", "1"],
    "vec_hybrid_num_threads": ["-1", "1"],
    "vec_hybrid_threshold": ["0"],
    "sf_nodeaware_node_size": ["0", "1"],
    "mat_ordering_cmrcm_colors": ["1"],
}
BAD_OF_KIND = {
    "int": ["abc", "1.5", "99999999999999999999", "4294967299", ""],
    "real": ["abc", "nan", "inf", ""],
    "bool": ["maybe", "2"],
    "enum": ["bogus", ""],
}


def groups():
    global GROUPS
    if GROUPS is None:
        GROUPS = docs.registry(mpirun.BUILD)
    return GROUPS


def all_options():
    return [o for g in groups() for o in g["options"]]


def select_args():
    args = ["-pc_type", "bjacobi", "-sub_pc_type", "icc", "-sub_pc_factor_mat_ordering_type", "cmrcm"]
    for _, select, _ in docs.FAMILIES:
        if "ordering" not in select:
            args += select.split()
    return args


def test_help_lists_every_family():
    """the listing itself: every family, with its options (a vanished option must fail)"""
    names = [o["name"] for o in all_options()]
    assert len(names) == len(set(names)), names
    for fam, n in (("mat_aijhybrid_", 16), ("vec_hybrid_", 4), ("sf_nodeaware_", 2), ("mat_ordering_cmrcm_", 1)):
        got = [x for x in names if x.startswith(fam)]
        assert len(got) == n, (fam, got)
    assert "mat_aijhybrid_num_threads" in names and "mat_aijhybrid_factor_solve" in names and "vec_hybrid_standard" in names
    for o in all_options():
        assert o["help"] and o["man"] and o["default"], o
        assert o["kind"] != "enum" or len(o["choices"]) >= 2, o
    titles = [g["title"] for g in groups()]
    assert "AIJHybrid options (hybrid MPI/OpenMP products)" in titles and "PetscSF node-aware options" in titles, titles


def test_readme_table_is_generated_from_help():
    readme = (mpirun.ROOT / "README.md").read_text()
    got = docs.block(readme)
    assert got is not None, "README.md has no options-table block"
    assert got == docs.markdown(groups()), "README's options table differs from -help: run share/docs/options.py --write README.md"


def test_every_int_and_real_option_has_range_tests():
    ranged = {o["name"] for o in all_options() if o["kind"] in ("int", "real")}
    assert ranged == set(OUTSIDE) == set(ENDS), (sorted(ranged ^ set(OUTSIDE)), sorted(ranged ^ set(ENDS)))


def test_application_help_lists_them(tmp_path):
    """-help of examples/ex1 (MatSetFromOptions, VecSetFromOptions, the VecScatter's PetscSF, PCBJACOBI
    with ICC and the CM-RCM ordering on the blocks) at 2 ranks lists every option (some with the
    sub_ prefix of the blocks), the matrix's under their head in the matrix's section. Rank 0's output
    alone: rank 1 prints the -help of its own block's solver, and mpiexec interleaves the two streams
    at any byte"""
    assert EX1.exists(), "build the examples first: make examples"
    each = 'exec "$0" "$@" > "%s/out.$OMPI_COMM_WORLD_RANK"' % tmp_path
    run = mpirun.run(["sh", "-c", each, EX1, "-n", "4"] + select_args() + ["-help"], ranks=2, threads=1, timeout=120)
    assert run.rc == 0, run.describe()
    out = (tmp_path / "out.0").read_text()
    listed = {o["name"] for g in docs.parse(out) for o in g["options"]}
    stripped = {n[n.find(f):] for n in listed for f, _, _ in docs.FAMILIES if f in n}
    missing = {o["name"] for o in all_options()} - stripped
    assert not missing, "not in -help of ex1 %s: %s" % (" ".join(select_args()), sorted(missing))
    mat = out[out.index("AIJHybrid options (hybrid MPI/OpenMP products)"):]
    assert re.match(r"AIJHybrid options \(hybrid MPI/OpenMP products\)\n  -mat_aijhybrid_num_threads", mat), mat[:300]


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
    for g in groups():
        for o in g["options"]:
            for page in (g["manpage"], o["man"]):
                text = manual_page(page, sources)
                if text is None:
                    missing.append("no manual page %s" % page)
                elif "-" + o["name"] not in text:
                    missing.append("%s does not list -%s" % (page, o["name"]))
    assert not missing, "\n".join(sorted(set(missing)))


# ------------------------------------------------------------------------------------------------
# bad values, refused naming the option and the value; the ends of the ranges accepted


def _cases():
    try:
        opts = all_options()
    except RuntimeError:  # not built: the tests above fail with the reason
        return []
    return [(o["name"], v) for o in opts for v in BAD_OF_KIND[o["kind"]] + OUTSIDE.get(o["name"], [])]


def _table(args, ranks=1):
    return mpirun.run([TABLE] + args, ranks=ranks, threads=1, timeout=60)


@pytest.mark.parametrize("name,value", _cases())
def test_bad_value_is_refused_naming_the_option(name, value):
    run = _table(["-" + name] + ([value] if value else []))
    assert not run.timed_out and run.rc != 0, run.describe()
    out = run.output
    assert "Segmentation" not in out and "signal" not in out.lower(), run.describe()
    if value:
        assert "Invalid value '%s' for -%s:" % (value, name) in out, run.describe()
    else:
        assert "Option -%s needs a value" % name in out, run.describe()


def test_ends_of_the_ranges_are_accepted():
    for k in range(3):
        args = []
        for name, values in ENDS.items():
            if k < len(values):
                args += ["-" + name, values[k]]
        run = _table(args)
        assert run.rc == 0, run.describe()


def test_bad_value_changes_nothing():
    """a bad value after good ones: nothing applied (the C programs' and petsc4py's MatSetFromOptions
    alike; petsc4py's check with every option: tests/workers/badinput.py)"""
    run = _table(["-mat_aijhybrid_num_threads", "3", "-mat_aijhybrid_sor_serial", "-mat_aijhybrid_task_share", "2", "-mat_view", "::ascii_info"])
    assert run.rc != 0 and "Invalid value '2' for -mat_aijhybrid_task_share" in run.output, run.describe()


# ------------------------------------------------------------------------------------------------
# unused options: PETSc's -options_left


@pytest.mark.parametrize("name", ["mat_aijhybrid_num_thread", "zzz_mat_aijhybrid_num_threads", "vec_hybrid_threads", "zzz_sf_nodeaware_node_size", "mat_ordering_cmrcm_color"])
def test_unused_option_is_reported_by_options_left(name):
    """a misspelling, or a prefix no object has: nothing reads it; PETSc's -options_left reports it at
    PetscFinalize (by default in debug builds), the package prints nothing of its own"""
    run = mpirun.run([EX1, "-n", "4"] + select_args() + ["-" + name, "1", "-options_left"], ranks=2, threads=1, timeout=60)
    assert run.rc == 0, run.describe()
    assert "Option left: name:-%s value: 1" % name in run.out, run.describe()
    assert "petsc-aijhybrid: option" not in run.output, run.describe()
    quiet = mpirun.run([EX1, "-n", "4"] + select_args() + ["-" + name, "1", "-options_left", "no"], ranks=2, threads=1, timeout=60)
    assert quiet.rc == 0 and "Option left" not in quiet.out and "not used" not in quiet.out, quiet.describe()


def test_every_option_used():
    """with every option of every family given, -options_left reports none of them"""
    args = []
    for o in all_options():
        value = {"int": ENDS.get(o["name"], ["1"])[-1], "real": ENDS.get(o["name"], ["1"])[-1], "bool": "false", "enum": o["choices"][0] if o["choices"] else ""}[o["kind"]]
        if o["name"] == "mat_aijhybrid_num_threads" or o["name"] == "vec_hybrid_num_threads":
            value = "1"
        args += ["-" + o["name"], value]
    run = _table(args + ["-options_left"])
    assert run.rc == 0, run.describe()
    left = re.findall(r"Option left: name:-(\S+)", run.out)
    assert not [n for n in left if docs.family(n)], (left, run.describe())
