"""The manual pages of docs/manual/ (share/docs/manpages.py, `make manpages`):

- they are what the manual-page comments of the sources give today: a page that is missing, stale
  (its comment changed) or left over (its comment is gone) fails, with the command that remakes
  them;
- every public function of include/petscaijhybrid.h has a page, in PETSc's form: a synopsis (the
  definition), a collective line, its level, its input and output parameters exactly the
  definition's parameters, and a `.seealso:`; every type, enum and struct page has a synopsis, a
  level and a `.seealso:`;
- the generator itself, on a comment of each kind written here.
"""

import re
import sys

import pytest

import mpirun

sys.path.insert(0, str(mpirun.ROOT / "share" / "docs"))
import manpages  # noqa: E402

PAGES = manpages.collect()


def test_pages_are_current():
    files = manpages.render()
    have = {f.name: f.read_text() for f in manpages.OUT.glob("*.md")}
    missing = sorted(set(files) - set(have))
    stale = sorted(n for n in files if n in have and have[n] != files[n])
    extra = sorted(set(have) - set(files))
    assert not (missing or stale or extra), (
        "docs/manual/ is out of date: run `make manpages` (or python3 share/docs/manpages.py --write) and commit docs/manual/\n"
        "missing: %s\nstale: %s\nno such comment: %s" % (missing, stale, extra))


def test_every_public_function_has_a_page():
    funcs = manpages.public_functions()
    assert len(funcs) > 40, funcs  # the header's declarations were read
    missing = [f for f in funcs if f not in PAGES]
    assert not missing, "public functions of include/petscaijhybrid.h without a manual-page comment (/*@ ... @*/): %s" % missing


def params_of(synopsis):
    args = re.search(r"\((.*)\)", synopsis.splitlines()[-1]).group(1)
    return [a.strip().split()[-1].lstrip("*").rstrip("[]") for a in args.split(",") if a.strip() and a.strip() != "void"]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_has_petsc_form(name):
    p = PAGES[name]
    where = "%s (%s:%d)" % (name, p.path, p.line)
    assert p.summary, where
    assert p.level in ("beginner", "intermediate", "advanced", "developer", "deprecated"), "%s: Level: %s" % (where, p.level)
    assert p.synopsis, "%s: no C code after the comment to take the synopsis from" % where
    assert p.seealso, "%s: no .seealso:" % where
    if p.kind == "function":
        assert p.collective, "%s: no Collective / Not Collective line" % where
        doc = [n for title, kind, body in p.sections if kind == "list" and title.startswith(("Input", "Output")) for n, _ in body[0]]
        assert sorted(doc) == sorted(params_of(p.synopsis)), "%s: documented parameters %s, the definition's %s" % (where, doc, params_of(p.synopsis))


SAMPLE = '''
/*@
  FooSetBar - Sets the bar of a `Foo`
  over two lines

  Logically Collective

  Input Parameters:
+ foo - the object
- bar - the value,
        continued

  Options Database Key:
. -foo_bar <n> - the bar

  Level: intermediate

  Note:
  Some text with `FooGetBar()`.

.seealso: `FooGetBar()`, `Foo`
@*/
PetscErrorCode FooSetBar(Foo foo,
                         PetscInt bar)
{
  return 0;
}

/*E
   FooKind - kinds

   Values:
+  `FOO_A` - a
-  `FOO_B` - b

   Level: beginner

.seealso: `FooSetBar()`
E*/
typedef enum {
  FOO_A,
  FOO_B
} FooKind;
'''


def test_generator_on_a_sample(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "petscaijhybrid.h").write_text("PETSC_EXTERN PetscErrorCode FooSetBar(Foo, PetscInt);\n")
    (tmp_path / "src" / "foo.c").write_text(SAMPLE)
    pages = manpages.collect(tmp_path)
    assert sorted(pages) == ["FooKind", "FooSetBar"]
    p = pages["FooSetBar"]
    assert p.summary == "Sets the bar of a `Foo` over two lines" and p.collective == "Logically Collective" and p.level == "intermediate"
    assert p.synopsis.splitlines()[-1] == "PetscErrorCode FooSetBar(Foo foo, PetscInt bar)"
    assert p.seealso == ["FooGetBar()", "Foo"]
    md = manpages.markdown(p, {"FooSetBar", "FooKind"})
    assert "- `bar` - the value, continued" in md and "- `-foo_bar <n>` - the bar" in md and "Some text with `FooGetBar()`." in md
    e = manpages.markdown(pages["FooKind"], {"FooSetBar", "FooKind"})
    assert "- `FOO_A` - a" in e and "[`FooSetBar()`](FooSetBar.md)" in e and "typedef enum {" in e
    # a comment that does not begin with its name is refused, naming the file
    (tmp_path / "src" / "bad.c").write_text("/*@\n  no name here\n@*/\nint f(void);\n")
    with pytest.raises(ValueError, match="bad.c"):
        manpages.collect(tmp_path)
