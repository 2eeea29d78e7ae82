"""The figures of README.md and docs/*.md against the records (share/records/, share/results/):

- every generated block of the documents is exactly what share/records/readme.py renders from the
  records for the checked-out code: a figure typed in by hand, or one from a record made for other
  code (a dirty tree, a trial, another code_id), fails here (make records, or make readme to
  withdraw it); every block is in exactly one document;
- no measured-looking figure (time, ratio, bandwidth, percentage, pass count) stands outside the
  blocks, in any document;
- every record in share/results/ carries its metadata (revision, clean flag, code_id, PETSc version,
  machine, date);
- the machinery itself: problems() refuses dirty, trial and other-code records; each renderer turns
  a record of the real format (tests/records/*.json, made by a trial run of make records) into
  figures when the record is current, and into the "no record" line when it is not.
"""

import copy
import json
import subprocess
import sys

import pytest

import mpirun

sys.path.insert(0, str(mpirun.ROOT / "share" / "records"))
import readme  # noqa: E402
import record  # noqa: E402

DOCUMENTS = readme.documents()
SAMPLES = mpirun.TESTS / "records"


@pytest.mark.skipif(record.revision() is None, reason="not a git checkout: the code a record is about cannot be identified")
def test_generated_blocks_are_the_records():
    bad = readme.check_all(DOCUMENTS)
    assert not bad, ("\n".join(bad) + "\n(run `make records` to make current records, or `make readme` to withdraw the figures; "
                     "a block belongs in exactly one of %s)" % ", ".join(p.name for p in DOCUMENTS))


# the texts whose figures must come from records: the documents and the changelog
WRITTEN = DOCUMENTS + [mpirun.ROOT / "CHANGELOG.md"]


@pytest.mark.parametrize("doc", [p.name for p in WRITTEN])
def test_no_measured_figure_outside_the_blocks(doc):
    """README.md, docs/*.md and CHANGELOG.md: no measured-looking figure outside the generated blocks
    unless its paragraph or list item cites the record it comes from (the stray-figure check)."""
    path = next(p for p in WRITTEN if p.name == doc)
    stray = readme.stray_figures(path.read_text())
    assert not stray, "figures outside the generated blocks of %s (put them in a record, cite it, or rephrase):\n" % doc + "\n".join(stray)


@pytest.mark.parametrize("doc", [p.name for p in WRITTEN])
def test_named_files_exist(doc):
    """Every file path README.md, docs/*.md and CHANGELOG.md name is in the tree (a line that says the
    file is gone or where it went may name the old one)."""
    path = next(p for p in WRITTEN if p.name == doc)
    missing = readme.missing_paths(path.read_text())
    assert not missing, "%s names files that do not exist:\n" % doc + "\n".join("%s   [%s]" % m for m in missing)


def test_stray_figure_check():
    """What the stray-figure check catches and what it leaves: measured figures in any form; not
    counts of repetitions, settings written as factors, layouts, sizes, versions, generated blocks,
    code blocks, or a list item that cites its record."""
    caught = ["made the restriction about 1.9 times slower than AIJ's.", "0.55x of VECSEQ, now 1.08x.", "about 10% slower than aij.",
              "the solve took 3 s.", "a 2x faster product", "471 passed, 1 skipped", "50 GB/s", "it ran 12 ms"]
    for text in caught:
        assert readme.stray_figures(text), text
    left = ["measured again, at most 4 times, until it settles", "more than 1.05 times its own", "at 1x2 and 2x1", "10^6 rows",
            "PETSc 3.18 run with standard vectors", "the 75% STREAM target",
            "- Records of c0e3a29: `test-default` (472 passed), `bench-claims`.",
            "- `bench-claims` record:\n  it was 1.5x faster.", "```\n1.5x faster\n```",
            "<!-- record:bench-claims -->\n1.5x\n<!-- /record:bench-claims -->"]
    for text in left:
        assert not readme.stray_figures(text), text
    # a citation covers its own list item only
    assert readme.stray_figures("- `bench-claims`: shown.\n- it was 1.5x faster.")


def test_missing_paths_check():
    assert readme.missing_paths("the prefetch trial (`src/mat/prefetch.c`)") == [("the prefetch trial (`src/mat/prefetch.c`)", "src/mat/prefetch.c")]
    assert readme.missing_paths("in `src/mat/tune.c` and `share/bench/precond.py`.") == []
    assert readme.missing_paths("`src/mat/prefetch.c` (now `src/mat/tune.c`)") == []
    assert readme.missing_paths("Removed: `src/mat/nodeaware.c`.") == []
    assert readme.missing_paths("`share/results/bench/<config>.json`, `share/results/test-*.json`") == []


def test_every_record_has_its_metadata():
    docs = sorted(record.RESULTS.glob("*.json")) + sorted((record.RESULTS / "bench").glob("*.json"))
    for p in docs:
        d = json.loads(p.read_text())
        m = d.get("meta")
        assert m, "%s has no meta block" % p
        for k in ("date", "git", "petsc", "machine"):
            assert m.get(k), "%s: no %s" % (p, k)
        assert m["git"].get("revision") and m["git"].get("code_id") and "dirty" in m["git"], p
        assert m["petsc"].get("version") and m["machine"].get("cpu_model"), p


# ------------------------------------------------------------------------------------------------
# the machinery


def current(doc):
    """a copy of a sample record that claims to be about the checked-out code"""
    d = copy.deepcopy(doc)
    g = d["meta"]["git"]
    g["code_id"] = record.code_id(g.get("scope", "all"))
    g["revision"] = "5a3b1e" + "0" * 34  # one marker for every sample, looked for in the output
    g["dirty"] = False
    g["dirty_files"] = []
    d["meta"]["trial"] = False
    return d


def samples():
    return {p.stem: json.loads(p.read_text()) for p in sorted(SAMPLES.glob("*.json"))}


def test_samples_cover_every_renderer():
    names = set(samples())
    need = {"test-default", "hardening-asan", "fuzz-default", "harness-default", "harness-sf"} | {"bench-" + k[len("bench-"):] for k in readme.RENDERERS if k.startswith("bench-")}
    need.add("bench-" + readme.RUN_CONFIG)  # the summary block's record
    assert need <= names, sorted(need - names)


def test_problems_refuse_what_may_not_be_quoted():
    d = current(samples()["test-default"])
    assert record.problems(d) == []
    for change, word in (("dirty", "dirty"), ("trial", "trial"), ("code", "other code"), ("meta", "no metadata")):
        e = copy.deepcopy(d)
        if change == "dirty":
            e["meta"]["git"]["dirty"] = True
        elif change == "trial":
            e["meta"]["trial"] = True
        elif change == "code":
            e["meta"]["git"]["code_id"] = "0" * 64
        else:
            del e["meta"]
        p = record.problems(e)
        assert p and any(word in x for x in p), (change, p)


def _results_dir(tmp_path, docs):
    (tmp_path / "bench").mkdir()
    for name, d in docs.items():
        if name.startswith("bench-"):
            (tmp_path / "bench" / (name[len("bench-"):] + ".json")).write_text(json.dumps(d))
        else:
            (tmp_path / (name + ".json")).write_text(json.dumps(d))
    return tmp_path


@pytest.mark.parametrize("block", sorted(readme.RENDERERS))
def test_renderer_on_a_current_and_a_stale_record(block, tmp_path):
    docs = {k: current(v) for k, v in samples().items()}
    (tmp_path / "cur").mkdir()
    out = readme.RENDERERS[block](readme.Ctx(_results_dir(tmp_path / "cur", docs)))
    if block in ("harness", "harness-sf", "summary") or block.startswith("bench-"):  # one record each: it must be shown
        assert "no record" not in out.lower(), out
    rev = next(iter(docs.values()))["meta"]["git"]["revision"][:10]
    assert rev in out, out
    if block == "bench-precond":  # share/bench/precond.py's record: its PCApply times
        res = docs[block]["records"]
        assert res and "%.3f" % (1e3 * res[0]["pc_apply_s"]) in out, out
    elif block == "summary":  # the record of make run's config: aij's MatMult at R x 1 is in the table
        d = docs["bench-" + readme.RUN_CONFIG]
        r = max((r for r in d["results"] if r.get("mult_s") and r["variant"] == "aij"), key=lambda r: int(r["layout"].split("x")[0]))
        assert "%.2f" % (r["mult_s"] * 1e3) in out, out
        # and every whole solve of aij at R x 1 (a method may run on some matrices only), its solve time
        for x in d.get("solves") or []:
            if x.get("status") == "ok" and x["variant"] == "aij":
                assert "%s s, %s %s (%d its) | %.2f |" % ("solve", x["matrix"], readme._rows(x["rows"]), x["iterations"], x["solve_s"]) in out, (x, out)
    elif block == "bench-products":  # share/bench/products.py's record: its medians and targets
        med = docs[block]["medians"][0]
        assert "%.3f" % med["median_s"] in out and docs[block]["targets"][0]["target"] in out, out
    elif block == "bench-setup":  # the setup config's record: the preconditioner setups' table and events
        rows = docs[block]["setup"]
        assert rows and "| %.3f |" % rows[0]["setup_s"] in out and "Events above" in out, out
    elif block.startswith("bench-"):
        cfg = block[len("bench-"):]
        res = [r for r in docs[block]["results"] if r.get("mult_s")]
        assert res and ("%.2f" % (res[0]["mult_s"] * 1e3) in out or block in ("bench-claims", "bench-nodeaware")), out
    # the same records made for other code: no figure left
    stale = copy.deepcopy(docs)
    for d in stale.values():
        d["meta"]["git"]["code_id"] = "f" * 64
    (tmp_path / "stale").mkdir()
    out = readme.RENDERERS[block](readme.Ctx(_results_dir(tmp_path / "stale", stale)))
    assert rev not in out, out
    assert "no record" in out.lower(), out


# ------------------------------------------------------------------------------------------------
# failed runs are refused


def _failed(doc, kind):
    """a copy of a benchmark record with one failure of the given kind"""
    d = copy.deepcopy(doc)
    if kind == "variant":
        r = next(r for r in d["results"] if r.get("mult_s"))
        r.update(status="error", reason="TypeError: no such type")
    elif kind == "wrong":
        next(r for r in d["results"] if r.get("mult_s"))["rel_diff_vs_reference"] = 1e-6
    elif kind == "job":
        d["failures"] = [{"layout": "2x1", "rc": 1, "tail": ""}]
    elif kind == "exit":
        d["meta"]["exit_code"] = 1
    elif kind == "products":  # one product whose values are not aij's
        d["samples"][0]["rel_diff_vs_aij"] = 1e-6
    elif kind == "precond":
        for r in d.get("samples") or d["records"]:  # (the sample record is trimmed: no per-job records)
            r["reason"] = -3
            r.get("samples", {}).pop("reasons", None)
            r.pop("reasons_all", None)
    return d


@pytest.mark.parametrize("block,kind", [("bench-quick", "variant"), ("bench-claims", "wrong"), ("bench-full", "job"), ("bench-rowcost", "exit"), ("bench-precond", "precond"), ("bench-products", "products")])
def test_renderer_refuses_a_failed_record(block, kind, tmp_path):
    """A current benchmark record that reports a failure (a failed variant or job, a product that
    differs from aij's, an unconverged solve, a non-zero exit) is never quoted: its block names the
    record and its failures instead of any figure, and readme.py exits non-zero naming it."""
    docs = {k: current(v) for k, v in samples().items()}
    docs[block] = _failed(docs[block], kind)
    (tmp_path / "res").mkdir()
    res = _results_dir(tmp_path / "res", docs)
    ctx = readme.Ctx(res)
    out = readme.render_block(block, ctx)
    assert out.startswith("**Refused") and "`%s`" % block in out, out
    rev = docs[block]["meta"]["git"]["revision"][:10]
    assert rev not in out and "ms |" not in out, out
    assert block in ctx.refused
    doc = tmp_path / "DOC.md"
    doc.write_text("x\n<!-- record:%s -->\n<!-- /record:%s -->\n" % (block, block))
    p = subprocess.run([sys.executable, str(mpirun.ROOT / "share" / "records" / "readme.py"), "--write", str(doc), "--results", str(res)], capture_output=True, text=True)
    assert p.returncode != 0 and "REFUSED record %s" % block in p.stderr, p.stdout + p.stderr
    assert "**Refused" in doc.read_text()


def test_no_record_in_the_tree_reports_a_failure():
    """The benchmark records in share/results/ report no failure (aijhybrid_bench.checks)."""
    for p in sorted((record.RESULTS / "bench").glob("*.json")):
        why = readme.checks.refusals(json.loads(p.read_text()))
        assert not why, "%s reports failures:\n%s" % (p, "\n".join(why))


def test_harness_block_counts_every_test():
    """The harness blocks give every test in its class, one line each, the thread-local SOR ones with
    their reason, and the lines add up to the tests of the run (nothing left out of the total); a
    class the renderer does not know is still counted, and a total that does not match is said."""
    r = {"tests": 2459, "regressions": [], "classes": {"pass": 837, "type-name-only": 217, "exception": 12, "sor-thread-local": 35,
                                                       "baseline-fail": 323, "skip": 935, "todo": 100}}
    lines = readme.harness_classes(r).splitlines()
    assert lines[0] == "- **0 regressions**" and lines[-1] == "- 2459 in all", lines
    sor = [l for l in lines if "sor-thread-local" in l]
    assert len(sor) == 1 and sor[0].startswith("- 35 sor-thread-local (") and "-mat_aijhybrid_sor_serial" in sor[0], sor
    import re

    counted = [int(re.match(r"- (?:\*\*)?(\d+)", l).group(1)) for l in lines[:-1]]
    assert sum(counted) == 2459
    r2 = dict(r, classes=dict(r["classes"], newclass=4), tests=2463)
    assert "- 4 newclass" in readme.harness_classes(r2) and "2463 in all" in readme.harness_classes(r2)
    r3 = dict(r, tests=2500)
    assert "the classes count 2459 tests, the run 2500" in readme.harness_classes(r3)
