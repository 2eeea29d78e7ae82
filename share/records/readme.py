#!/usr/bin/env python3
"""The generated figures of README.md and docs/*.md, from the records of share/results/ (make
records, make readme).

usage: readme.py [--write [FILE ...] | --check [FILE ...] | --print NAME]

Without FILE, every document: README.md and docs/*.md (DOCUMENTS). A document holds each generated
block between `<!-- record:NAME -->` and `<!-- /record:NAME -->`; NAME is one of RENDERERS below,
and each appears in exactly one document. A block shows figures only from records that may be
quoted for the checked-out code (record.problems(): metadata complete, clean tree, not a trial,
code_id of its scope equal to HEAD's); for any other record it says that there is no current
record. --check fails when a block differs from what the records give (tests/test_records.py):
figures of a record made for other code cannot stay in the documents, and no figure can be typed
in by hand.

Figures outside the blocks: stray_figures() lists the lines outside them that look like measured
figures (times, ratios, "N times slower", bandwidths, percentages, pass counts); the test requires
none in README.md, docs/*.md and CHANGELOG.md, except the phrases in NOT_MEASURED (targets, limits
and settings, not results) and in a paragraph or list item that cites the record they come from.
missing_paths() lists the file paths a document names that are not in the tree.
"""

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import record  # noqa: E402

ROOT = record.ROOT
sys.path.insert(0, str(ROOT / "python"))
from aijhybrid_bench import checks, pcsetup, report  # noqa: E402  (pure: what makes a benchmark record fail, the choices in words, the setups' tables)
OPEN = re.compile(r"^<!-- record:([\w.-]+) -->$", re.M)
NONE = "_No record of this revision's code yet: `make records` makes it (see docs/testing.md, \"Records and CI\")._"


def documents():
    """the documents that hold generated blocks: README.md, then docs/*.md (not the manual pages)"""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


class Ctx:
    def __init__(self, results=None, strict=True):
        self.results = Path(results or record.RESULTS)
        self.strict = strict  # False: show any record (previews of trials; never for the README)
        self.ids = {s: record.code_id(s) for s in record.SCOPES}
        self._docs = {}
        self.refused = {}  # record name -> why it may not be quoted at all (aijhybrid_bench.checks.refusals)
        self.touched = set()  # the records the block being rendered asked for

    def doc(self, name):
        """(record, None) if it may be quoted, else (None, reason)"""
        if name not in self._docs:
            d = record.read(self.results / (name + ".json"))
            if d is None and name.startswith("bench-"):
                d = record.read(self.results / "bench" / (name[len("bench-"):] + ".json"))
            p = record.problems(d, self.ids)
            if not self.strict and d is not None and d.get("meta"):
                p = []
            refused = checks.refusals(d) if name.startswith("bench-") else []
            if refused:  # a failed run is never quoted, current or not
                self.refused[name] = refused
                p = p + ["it reports failures"]
            self._docs[name] = (d, None) if not p else (None, "; ".join(p))
        self.touched.add(name)
        return self._docs[name]


def refusal(ctx, names):
    """The text of a block whose records are refused: each record named with its failures."""
    lines = ["**Refused: the record%s %s report%s failures, so no figure of %s is quoted** (`make records` after fixing them):" % (
        "s" if len(names) > 1 else "", ", ".join("`%s`" % n for n in names), "" if len(names) > 1 else "s", "them" if len(names) > 1 else "it"), ""]
    for n in names:
        lines += ["- `%s`: %s" % (n, w) for w in ctx.refused[n]]
    return "\n".join(lines)


def machine_line(m):
    """record.machine_text() with the L3 cache lscpu gave (beside any bandwidth figure: a kind whose L3
    is large may hold a benchmark's matrix), e.g. 'AMD EPYC (family 26, model 2, AVX-512), 2 cores, L3 32 MiB'"""
    l3 = (m or {}).get("l3_cache")
    return record.machine_text(m) + (", L3 %s" % re.sub(r"\s*\(.*\)$", "", l3) if l3 else "")


def provenance(d, path):
    m = d["meta"]
    g = m["git"]
    return "Record `%s`: revision %s (%s tree), PETSc %s, %s, %s." % (
        path, g["revision"][:10], "dirty" if g.get("dirty") else "clean", m["petsc"].get("version"), machine_line(m["machine"]), m["date"][:10])


def _n(v, fmt="%d"):
    return "-" if v is None else fmt % v


def _min(s):
    return "-" if s is None else ("%.0f s" % s if s < 120 else "%.0f min" % (s / 60.0))


# ------------------------------------------------------------------------------------------------
# tests


TEST_ROWS = [
    ("test-default", "Debian `petsc-dev` (`/usr/lib/petsc`)", "`make test`", "CI"),
    ("test-complex", "Debian `libpetsc-complex-dev`", "`make test-flavours`", "records"),
    ("test-int64", "Debian `libpetsc64-real-dev`", "`make test-flavours`", "records"),
    ("test-int64-complex", "Debian `libpetsc64-complex-dev`", "`make test-flavours`", "records"),
    ("test-debug", "Debian `libpetsc-real3.18-dbg` (C tests only)", "`make test-flavours`", "CI"),
    ("test-latest", "newest release from PyPI's sources", "`make test PETSC_DIR=...`", "CI"),
    ("test-3.20", "3.20 from PyPI's sources (`/opt/petsc-3.20`)", "`make test-versions`", "records"),
    ("test-3.22", "3.22 from PyPI's sources (`/opt/petsc-3.22`)", "`make test-versions`", "records"),
]


def render_tests(ctx):
    lines = ["| PETSc | version | scalars / indices | command | runs in | result | time | record |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, what, cmd, where in TEST_ROWS:
        d, why = ctx.doc(name)
        if d is None:
            lines.append("| %s | - | - | %s | %s | no record of this code | - | `%s` |" % (what, cmd, where, name))
            continue
        r, m = d["result"], d["meta"]
        p = m["petsc"]
        if "error" in r:
            res = "did not run: %s" % r["error"]
        else:
            parts = ["%d passed" % r["passed"]]
            for k in ("failed", "errors", "skipped", "xfailed", "deselected"):
                if r.get(k):
                    parts.append("%d %s" % (r[k], k))
            res = ", ".join(parts)
        lines.append("| %s | %s | %s / %s-bit | %s | %s | %s | %s | `%s` %s, %s |" % (what, p.get("version"), p.get("scalar"), p.get("int_bits"), cmd, where, res, _min(m.get("duration_s")), name, m["git"]["revision"][:10], m["date"][:10]))
    machines = {record.machine_text(ctx.doc(n)[0]["meta"]["machine"]) for n, *_ in TEST_ROWS if ctx.doc(n)[0]}
    if machines:
        lines += ["", "Machine: %s (times are of this shared machine, not results)." % "; ".join(sorted(machines))]
    return "\n".join(lines)


def render_hardening(ctx):
    lines = ["| target | runs | canaries | failed | time | record |", "| --- | --- | --- | --- | --- | --- |"]
    for kind in ("asan", "valgrind", "races"):
        name = "hardening-" + kind
        d, why = ctx.doc(name)
        if d is None:
            lines.append("| `make test-%s` | no record of this code | | | | `%s` |" % (kind, name))
            continue
        r, m = d["result"], d["meta"]
        if "error" in r:
            lines.append("| `make test-%s` | did not run: %s | | | | `%s` |" % (kind, r["error"], name))
            continue
        kinds = ", ".join("%d %s" % (v, k) for k, v in sorted(r["by_kind"].items()) if k != "canary")
        lines.append("| `make test-%s` | %d (%s) | %d reported | %d | %s | `%s` %s, %s |" % (kind, r["runs"], kinds, r["canaries"], r["failed"], _min(m.get("duration_s")), name, m["git"]["revision"][:10], m["date"][:10]))
    return "\n".join(lines)


def render_fuzz(ctx):
    lines = ["| PETSc | seed | examples | cases at 1 / 2 / 4 ranks | products | partitions | reassembly steps | optional dimensions drawn | max rel. error | failure | time | record |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in ("fuzz-default", "fuzz-latest"):
        d, why = ctx.doc(name)
        if d is None:
            lines.append("| | | | no record of this code | | | | | | | | `%s` |" % name)
            continue
        r, m = d["result"], d["meta"]
        if "error" in r:
            lines.append("| %s | | | did not run: %s | | | | | | | | `%s` |" % (m["petsc"].get("version"), r["error"], name))
            continue
        byr = r.get("cases_by_ranks", {})
        lines.append("| %s | %d | %d | %s | %d | %d | %d | %d of %d | %.3g | %s | %s | `%s` %s, %s |" % (
            m["petsc"].get("version"), r["seed"], r["examples"], " / ".join(str(byr.get(k, 0)) for k in ("1", "2", "4")), r["products"], r["partitions"],
            r["reassembly_steps"], len(r.get("optional_drawn", {})), len(r.get("optional_dimensions", [])), r["max_rel_err"], "none" if not r.get("failure") else "**yes** (see record)",
            _min(r.get("seconds")), name, m["git"]["revision"][:10], m["date"][:10]))
    return "\n".join(lines)


# the harness's classes (tests/harness/harness.py), in the order the block gives them, each with what it means
HARNESS_CLASSES = [
    ("regression", "**%d regressions**"),
    ("pass", "%d pass"),
    ("type-name-only", "%d type-name-only"),
    ("exception", "%d listed exceptions"),
    ("sor-thread-local", "%d sor-thread-local (their output changes with the plugin's thread-local `MatSOR`, with more than one thread "
                         "a different preconditioner by design, that of more ranks; each passes when run again with `-mat_aijhybrid_sor_serial`)"),
    ("baseline-fail", "%d fail already in the baseline run"),
    ("skip", "%d skipped for packages this PETSc lacks"),
    ("todo", "%d todo"),
]


def harness_classes(r):
    """Every test of a harness record in its class, one line each, in words: the classes sum to the
    tests (a class the list does not know is given by its name; a difference is said, loudly)."""
    c = dict(r["classes"])
    c["regression"] = len(r.get("regressions", []))
    parts = [fmt % c.get(k, 0) for k, fmt in HARNESS_CLASSES if c.get(k) or k in ("regression", "pass")]
    parts += ["%d %s" % (v, k) for k, v in sorted(c.items()) if k not in dict(HARNESS_CLASSES) and v]
    total = sum(v for k, v in c.items())
    parts.append("%d in all" % total + ("" if total == r["tests"] else " **(the classes count %d tests, the run %d)**" % (total, r["tests"])))
    return "\n".join("- " + p for p in parts)


def harness_block(name, what):
    def render(ctx):
        d, why = ctx.doc(name)
        if d is None:
            return NONE
        r, m = d["result"], d["meta"]
        if "error" in r:
            return "The last run did not complete: %s (`share/results/%s.json`)." % (r["error"], name)
        txt = "%d tests of PETSc %s's %s, %s; both runs %s:\n\n%s\n" % (
            r["tests"], m["petsc"].get("version"), ", ".join("`%s`" % s for s in r.get("search") or []), what, _min(m.get("duration_s")), harness_classes(r))
        return txt + "\n" + provenance(d, "share/results/%s.json" % name)

    return render


def render_precond(ctx):
    d, why = ctx.doc("bench-precond")
    if d is None:
        return NONE
    sys.path.insert(0, str(ROOT / "share" / "bench"))
    import precond  # noqa: E402  (its table, so the README shows what the script prints)

    lines = [provenance(d, "share/results/bench/precond.json"), "", precond.table(d["records"])]
    # the measured choice of the triangular solves, per record: the rounds of each choice with their own medians
    chosen = ["%s %s %s %s: %s" % (r["matrix"], r["solve"], r["ordering"], r["layout"], precond.choice_text(r)) for r in d["records"] if r.get("by_choice") and r["type"] == "aijhybrid"]
    if chosen:
        lines += ["", "Triangular solves kept by the measured choice (`-mat_aijhybrid_factor_solve auto`) in the timed rounds; "
                  "where the rounds differ, each choice with its own rounds and medians:", ""] + ["- " + c for c in chosen]
    if d.get("choice_summary"):
        lines += ["", bench_choices(d).strip("\n")]
    ts = d.get("targets") or []
    if ts:
        lines += ["", "Targets evaluated on this record (each against measurements of the same jobs):", ""] + ["- %s: %s %s" % (_verdict(t), t["target"], t["value"]) for t in ts]
    return "\n".join(lines)


def render_products(ctx):
    d, why = ctx.doc("bench-products")
    if d is None:
        return NONE
    sys.path.insert(0, str(ROOT / "share" / "bench"))
    import products  # noqa: E402  (its table, so the document shows what the script prints)

    layouts = (d.get("args") or {}).get("layouts", "1x1,2x1,1x2").split(",")
    levels = d.get("levels") or {}
    lines = [provenance(d, "share/results/bench/products.json"), ""]
    lines += ["Levels multiplied: %s. Seconds: the median over %d rounds of each product summed over the levels (every result checked against aij's product at the same layout)." % (
        "; ".join("%s %d (rows %s)" % (m, len(v), ", ".join(str(x.get("rows")) for x in v)) for m, v in sorted(levels.items())), (d.get("args") or {}).get("rounds", 0)), ""]
    lines.append(products.markdown(products.from_medians(d["medians"]), layouts))
    ts = d.get("targets") or []
    if ts:
        lines += ["", "Targets evaluated on this record (medians of the same jobs' rounds):", ""] + ["- %s: %s %s" % (_verdict(t), t["target"], t["value"]) for t in ts]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# benchmarks


def _bench(ctx, config):
    d, why = ctx.doc("bench-" + config)
    return d


def _ms(r):
    return "%.2f" % (r["mult_s"] * 1e3) if r.get("mult_s") else "-"


def _ratio(r):
    """the ratio against the baseline; '~' when the baseline was measured in other jobs (indicative)"""
    return "%.2fx%s" % (r["ratio_vs_baseline"], "~" if r.get("baseline_same_job") is False else "") if r.get("ratio_vs_baseline") else "-"


def _variant(r):
    """the variant, with the choices the plugin made during its batches (each with its own median when several)"""
    c = report.choices_text(r)
    return "%s (%s)" % (r["variant"], c) if c else r["variant"]


def _pct(v):
    return "%.0f%%" % (100 * v) if v else "-"


def _rows(n):
    return "%.3g x 10^6" % (n / 1e6) if n >= 1e5 else str(n)


def _order(results):
    mats, lays = [], []
    for r in results:
        if r["matrix_key"] not in mats:
            mats.append(r["matrix_key"])
        if r["layout"] not in lays:
            lays.append(r["layout"])
    return mats, lays


def bench_table(d, best=False):
    """matrix x layout x variant: MatMult ms, vs aij at the same cores, GF/s, % STREAM, imbalance, CG"""
    res = [r for r in d["results"] if r.get("mult_s")]
    mats, lays = _order(res)
    base = d.get("baseline") or "aij"
    lines = ["| matrix | layout | variant | MatMult ms | vs %s, same cores | GF/s | %% STREAM | imbalance | CG its | solve s |" % base, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for mk in mats:
        first = True
        for lay in lays:
            rs = [r for r in res if r["matrix_key"] == mk and r["layout"] == lay]
            names = {}
            if best:  # the default configuration, and the best aijhybrid variant labelled as such
                keep = [r for r in rs if "aijhybrid" not in r["type"]]  # (full: the baseline is aij)
                hyb = [r for r in rs if "aijhybrid" in r["type"]]
                keep += [r for r in hyb if r.get("default")]
                if len(hyb) > 1:
                    top = min(hyb, key=lambda r: r["mult_s"])
                    names[id(top)] = "best of %d aijhybrid variants: %s" % (len(hyb), _variant(top))
                    keep += [] if top in keep else [top]
                rs = keep
            for r in rs:
                label = "%s %s" % (r["matrix_label"], _rows(r["rows"])) if first else ""
                first = False
                lines.append("| %s | %s | %s | %s | %s | %.2f | %s | %s | %s | %s |" % (
                    label, lay, names.get(id(r)) or _variant(r), _ms(r), _ratio(r), r.get("gflops") or 0, _pct(r.get("stream_fraction")),
                    _n(r.get("imbalance_measured"), "%.2f"), _n(r.get("cg_iterations")), _n(r.get("solve_s"), "%.2f")))
    return "\n".join(lines)


def bench_ratios(d):
    """one row per matrix: every variant's ratio against aij at each layout (with its % of STREAM)"""
    res = [r for r in d["results"] if r.get("mult_s")]
    mats, lays = _order(res)
    variants = []
    for r in res:
        if r["variant"] != "aij" and r["variant"] not in variants:
            variants.append(r["variant"])
    cols = [(v, l) for v in variants for l in lays if any(r["variant"] == v and r["layout"] == l for r in res)]
    lines = ["| matrix | rows | " + " | ".join("%s %s" % c for c in cols) + " |", "| --- | --- | " + " | ".join("---" for _ in cols) + " |"]
    for mk in mats:
        cells = []
        for v, l in cols:
            r = next((r for r in res if r["matrix_key"] == mk and r["variant"] == v and r["layout"] == l), None)
            cells.append("-" if r is None else "%s (%s)" % (_ratio(r), _pct(r.get("stream_fraction"))))
        r0 = next(r for r in res if r["matrix_key"] == mk)
        lines.append("| %s | %s | %s |" % (r0["matrix_label"], _rows(r0["rows"]), " | ".join(cells)))
    return "\n".join(lines)


def bench_exchange(d):
    """the exchange statistics (nodeaware config): inter-node and on-node messages and bytes of the halo pattern
    as a basic and as a node-aware PetscSF (get_exchange_stats; every rank reports the totals over the ranks), and
    the products of the four variants"""
    res = [r for r in d["results"] if r.get("exchange_stats") or r.get("mult_s")]
    mats, _ = _order(res)
    variants = (("aij", "aij"), ("aij_nodeaware", "aij with `-sf_type nodeaware`"), ("standard", "aijhybrid, basic SF"), ("node_aware", "aijhybrid `-mat_aijhybrid_node_aware`"))
    lines = [
        "| matrix | PetscSF | inter-node msgs | inter-node MB | on-node msgs | on-node MB | MatMult ms (%s) |" % " / ".join(v[1] for v in variants),
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for mk in mats:
        rs = [r for r in res if r["matrix_key"] == mk]
        st = next((r["exchange_stats"][0]["total"] for r in rs if r.get("exchange_stats")), None)
        times = " / ".join(_ms(next((r for r in rs if r["variant"] == v), {})) for v, _ in variants)
        label = "%s %s" % (rs[0]["matrix_label"], _rows(rs[0]["rows"]))
        for kind, keys in (("basic", ("basic", "standard")), ("nodeaware", ("nodeaware",))):  # "standard": records before the SF type
            t = next((st[k] for k in keys if k in st), None) if st else None
            if t is None:
                continue
            lines.append("| %s | %s | %d | %.2f | %d | %.2f | %s |" % (label if kind == "basic" else "", kind, t["inter_msgs"], t["inter_bytes"] / 1e6, t["on_msgs"], t["on_bytes"] / 1e6, times if kind == "basic" else ""))
    return "\n".join(lines)


def bench_choices(d):
    """the measured choices against the fixed alternatives of the same jobs (aijhybrid_bench.report.choice_audit;
    a driver's record judged again from its own rounds by report.rejudged, so the rule is the one described)"""
    _, ss, _ = report.rejudged(d)
    if not ss:
        return ""
    paired = any(x.get("cost_max_interval") for x in ss)
    lines = ["", "", "Measured choices against the fixed alternatives measured in the same jobs (per job: right when it ran with the "
             "faster fixed one, no real difference when those are within 10%; cost: its median over the faster fixed one's; "
             "same matrix: the fixed ones set on the measured variant's own matrix and timed in the same rounds, a new decision in each, "
             "and the cost paired: the median over the rounds of its batch's time over the same round's batch of the faster fixed one"
             + (", with a distribution-free interval of that median in each job; the worst job's cost lies between the largest lower end and the "
                "largest upper end of the jobs' intervals, and the target (at most 3% slower) is met only when that upper end is at most 3%, "
                "missed when the lower end is above 3%, and otherwise not resolved: the rounds cannot tell" if paired else "") + "):", "",
             "| matrix | layout | variant | choice | jobs | right | wrong | mixed | no real difference | cost, median | cost, worst job | "
             "interval of the worst job's cost | cost target |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for x in ss:
        iv = x.get("cost_max_interval")
        interval = ("%+.1f%% to %+.1f%% (%d rounds, jobs' intervals %.0f%% each, %.0f%% together)" % (
            100 * iv[0], 100 * iv[1], x["paired_rounds"], 100 * x["cost_interval_coverage_min"], 100 * x["cost_max_interval_coverage"]) if iv else "-")
        what = x.get("variant") or "%s %s" % (x.get("solve"), x.get("ordering"))
        target = _verdict(report.choice_targets([x])[0])  # its first line: the worst job's cost
        lines.append("| %s | %s | %s | %s | %d | %d | %d | %d | %d | %+.1f%% | %+.1f%% | %s | %s |" % (x["matrix"], x["layout"], what, x["choice"] + (", same matrix" if x.get("same_matrix") else ""), x["jobs"], x["right"], x["wrong"], x["mixed"],
                                                                                                   x["no_difference"], 100 * x["cost_median"], 100 * x["cost_max"], interval, target))
    return "\n".join(lines)


def _verdict(t):
    """a target line's verdict in the documents (aijhybrid_bench.report.verdict_of): met, **missed**,
    not resolved (judged on an interval that straddles the requirement), shown, not judged"""
    return {"met": "met", "missed": "**missed**", "not resolved": "not resolved", "shown": "shown, not judged"}[report.verdict_of(t)]


def _interval(t):
    """the interval a target line was judged on, in the units of its value"""
    return "; interval %.3f to %.3f" % tuple(t["interval"]) if t.get("interval") else ""


def _tally(ts):
    c = report.verdict_counts(ts)
    return "%d met, %d missed, %d not resolved, %d shown" % (c["met"], c["missed"], c["not resolved"], c["shown"])


def bench_targets(d):
    ts = report.rejudged(d)[2]
    if not ts:
        return ""
    return "\n".join(["", "", "Targets evaluated on this record (of the default configuration against aij of the same jobs; "
                       "\"shown\": indicative, not a target; \"not resolved\": judged on an interval that straddles the requirement, "
                       "so the record can say neither met nor missed): %s." % _tally(ts), ""]
                      + ["- %s: %s %s %s: %.2f (needs %s%.2f%s), %s" % (_verdict(t), t["target"], t["matrix"], t["layout"], t["value"], "<= " if t.get("at_most") else "", t["required"], _interval(t), t["detail"]) for t in ts])


def bench_setup(d):
    """the setup config's tables (aijhybrid_bench.pcsetup): setup and solve against aij at R x 1, then
    the events above 3 percent of PCSetUp per (matrix, method, layout, variant)"""
    rows = d.get("setup") or []
    if not rows:
        return "_The record has no preconditioner setups._"
    return "\n".join(pcsetup.setup_table(rows) + ["", "Events above %d percent of PCSetUp (share of PCSetUp, slowest rank, medians; `*`: holds others, inclusive):" % round(100 * pcsetup.SHARE_MIN), ""]
                     + ["- " + line.replace("*", "\\*") for line in pcsetup.events_table(rows)])


def bench_block(config, kind):
    def render(ctx):
        d = _bench(ctx, config)
        if d is None:
            return NONE
        body = {"table": lambda: bench_table(d), "best": lambda: bench_table(d, best=True), "ratios": lambda: bench_ratios(d), "exchange": lambda: bench_exchange(d),
                "setup": lambda: bench_setup(d)}[kind]()
        stream = ", ".join("%s %.1f GB/s" % (k, v["triad_GBps"]) for k, v in (d.get("stream") or {}).items() if isinstance(v, dict) and v.get("triad_GBps"))
        head = provenance(d, "share/results/bench/%s.json" % config) + (" STREAM triad per layout: %s." % stream if stream else "")
        head += " Ratios against aij of the same jobs (`aij@2x1`: measured in the 1x2 jobs); `~`: against aij of other jobs, indicative."
        return head + "\n\n" + body + bench_choices(d) + bench_targets(d)

    return render


# the README's one table: the record of the config `make run` runs (share/run.py)
RUN_CONFIG = "run"


def _sec(v):
    return "-" if v is None else "%.2f" % v


def summary_table(d):
    """aij at R x 1 against aijhybrid at R x 1 and 1 x R (R: the record's largest core count): MatMult per
    matrix, then setup and solve of each whole solve (aijhybrid with the hybrid vectors its MatCreateVecs gives)"""
    res = [r for r in d["results"] if r.get("mult_s")]
    cores = max(int(l.split("x")[0]) * int(l.split("x")[1]) for l in {r["layout"] for r in res})
    lays = ["%dx1" % cores, "%dx1" % cores, "1x%d" % cores]
    head = "aij %s | aijhybrid %s | aijhybrid %s" % tuple(lays)
    lines = ["| %d cores | %s | 1x%d against aij %dx1 of the same jobs |" % (cores, head, cores, cores), "| --- | --- | --- | --- | --- |"]

    def mult(mk, variant, lay):
        return next((r for r in res if r["matrix_key"] == mk and r["variant"] == variant and r["layout"] == lay), None)

    mats, _ = _order(res)
    for mk in mats:
        a, h, t = mult(mk, "aij", lays[0]), mult(mk, "aijhybrid", lays[1]), mult(mk, "aijhybrid", lays[2])
        if a is None or t is None:
            continue
        label = "MatMult ms, %s %s" % (a["matrix_label"], _rows(a["rows"]))
        if a.get("past_cache") and a["past_cache"].get("llc_bytes"):  # grown past the L3 (the config's past_cache)
            label += " (%d MB, %.3gx the L3)" % (a["bytes"] / 1e6, a["bytes"] / a["past_cache"]["llc_bytes"])
        lines.append("| %s | %s | %s | %s | %s |" % (label, _ms(a), _ms(h) if h else "-", _ms(t), _ratio(t)))
    solves = [x for x in (d.get("solves") or []) if x.get("status") == "ok"]
    methods = []  # (method, matrix label, rows): a method may run on some of the matrices
    for x in solves:
        if (x["method"], x["matrix"], x["rows"]) not in methods:
            methods.append((x["method"], x["matrix"], x["rows"]))

    def solve(mm, variant, lay):
        vec = "standard" if variant.startswith("aij@") or variant == "aij" else "hybrid"
        return next((x for x in solves if (x["method"], x["matrix"], x["rows"]) == mm and x["variant"] == variant and x["layout"] == lay and x.get("vectors", vec) == vec), None)

    for mm in methods:
        m = mm[0]
        a, h, t = solve(mm, "aij", lays[0]), solve(mm, "aijhybrid", lays[1]), solve(mm, "aijhybrid", lays[2])
        if a is None or t is None:
            continue
        same = solve(mm, "aij@%s" % lays[0], lays[2])  # aij at R x 1 in the 1 x R jobs (paired)
        ref, mark = (same, "") if same else (a, "~")
        for what, key in (("setup", "setup_s"), ("solve", "solve_s")):
            if what == "setup" and max(a[key], t[key]) < 0.05:  # no setup to speak of (Jacobi)
                continue
            va, vt = a[key], t[key]
            lines.append("| %s %s s, %s %s (%d its) | %s | %s | %s | %s |" % (
                m.replace("+", " + ").upper().replace("JACOBI", "Jacobi"), what, a["matrix"], _rows(a["rows"]), a["iterations"], _sec(va), _sec(h[key]) if h else "-", _sec(vt),
                "%.2fx%s" % (ref[key] / vt, mark) if vt else "-"))
    return "\n".join(lines)


def render_summary(ctx):
    d = _bench(ctx, RUN_CONFIG)
    if d is None:
        return NONE
    stream = ", ".join("%s %.1f GB/s" % (k, v["triad_GBps"]) for k, v in (d.get("stream") or {}).items() if isinstance(v, dict) and v.get("triad_GBps"))
    head = provenance(d, "share/results/bench/%s.json" % RUN_CONFIG) + (" STREAM triad per layout: %s." % stream if stream else "")
    head += " The last column: aij at R x 1 measured in the 1 x R jobs themselves; `~`: from the R x 1 jobs (indicative)."
    if d["meta"].get("duration_s"):  # make run's time less the library's build
        head += " The job (`make bench CONFIG=run`, what `make run` runs after building the library) took %s." % _min(d["meta"]["duration_s"])
    return head + "\n\n" + summary_table(d)


def nodes_block(record_name, fn):
    """a block of docs/nodes.md (share/nodes/blocks.py renders it from the record)"""

    def render(ctx):
        d, why = ctx.doc(record_name)
        if d is None:
            return NONE
        return fn(d, provenance(d, "share/results/%s.json" % record_name))

    return render


sys.path.insert(0, str(ROOT / "share" / "nodes"))
import blocks as nodes_blocks  # noqa: E402

RENDERERS = {
    "summary": render_summary,
    "tests": render_tests,
    "hardening": render_hardening,
    "fuzz": render_fuzz,
    "harness": harness_block("harness-default", "`-mat_type aijhybrid -vec_type hybrid` injected against `-mat_type aij`"),
    "harness-sf": harness_block("harness-sf", "`-sf_type nodeaware -sf_nodeaware_node_size 2` injected against `-sf_type basic`"),
    "bench-precond": render_precond,
    "bench-products": render_products,
    "bench-quick": bench_block("quick", "table"),
    "bench-claims": bench_block("claims", "ratios"),
    "bench-full": bench_block("full", "best"),
    "bench-rowcost": bench_block("rowcost", "table"),
    "bench-taskshare": bench_block("taskshare", "table"),
    "bench-nodeaware": bench_block("nodeaware", "exchange"),
    "bench-setup": bench_block("setup", "setup"),
    "nodes": nodes_block("nodes", nodes_blocks.render_wire),
    "nodes-times": nodes_block("nodes", nodes_blocks.render_times),
    "nodes-cluster": nodes_block("nodes", nodes_blocks.render_cluster),
    "nodes-slurm": nodes_block("nodes-slurm", nodes_blocks.render_slurm),
}


# ------------------------------------------------------------------------------------------------


def blocks(text):
    """[(name, start of content, end of content)] of the README's generated blocks"""
    out = []
    for m in OPEN.finditer(text):
        name = m.group(1)
        close = "<!-- /record:%s -->" % name
        j = text.find(close, m.end())
        if j < 0:
            raise ValueError("block %s is not closed (%s)" % (name, close))
        out.append((name, m.end(), j))
    return out


def render_block(name, ctx):
    """One block: what its renderer gives, or, when a record it asked for is refused, the refusal."""
    ctx.touched = set()
    body = RENDERERS[name](ctx)
    bad = sorted(ctx.touched & set(ctx.refused))
    return refusal(ctx, bad) if bad else body


def render(text, ctx=None):
    ctx = ctx or Ctx()
    out, pos = [], 0
    for name, a, b in blocks(text):
        if name not in RENDERERS:
            raise ValueError("unknown block %s (known: %s)" % (name, ", ".join(RENDERERS)))
        out += [text[pos:a], "\n", render_block(name, ctx), "\n"]
        pos = b
    out.append(text[pos:])
    return "".join(out)


# measured-looking figures outside the generated blocks: times, bandwidths, percentages, ratios
# ("1.5x", "2x faster", "1.9 times slower"), pass counts
FIGURE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|us|µs|GB/s|GF/s|MB/s|min|minutes|hours?)\b|\b\d+\.\d+x\b|\b\d+x\s+(?:slower|faster)\b|\b\d+(?:\.\d+)?\s?%"
                    r"|\b\d+(?:\.\d+)?\s+times\s+(?:slower|faster|as\s+(?:fast|slow)|more|less|higher|lower|larger|smaller|better|worse)\b"
                    r"|(?<![\d.])\b\d+ (?:passed|failed|regressions?|runs?)\b|\b\d+(?:\.\d+)? s\b")
NOT_MEASURED = [
    "75%",  # the STREAM target of the issues
    "limit 90 min", "aim 45",  # CI's limit and aim
]
# a paragraph or list item that names the record its figures come from may quote them
CITES_RECORD = re.compile(r"share/results/|\b[Rr]ecords? of [0-9a-f]{7}|`(?:test|bench|fuzz|harness|hardening)-[\w.-]+`")


def outside_blocks(text):
    spans = [(a, b) for _, a, b in blocks(text)]
    keep, pos = [], 0
    for a, b in spans:
        keep.append(text[pos:a])
        pos = b
    keep.append(text[pos:])
    return "".join(keep)


def units(text):
    """The paragraphs and list items of a markdown text, outside code blocks and comments: lists of
    lines (a list item runs until the next item, a blank line or a heading)."""
    out, cur, in_code = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code or line.startswith("<!--"):
            continue
        item = re.match(r"\s*(?:[-*]|\d+\.) ", line) or line.startswith("#") or line.startswith("|")
        if not line.strip() or item:
            if cur:
                out.append(cur)
            cur = [line] if line.strip() else []
        else:
            cur.append(line)
    if cur:
        out.append(cur)
    return out


def stray_figures(text):
    """Lines outside the generated blocks with a measured-looking figure (FIGURE), unless the phrase
    is a setting or target (NOT_MEASURED) or their paragraph or list item cites a record (CITES_RECORD)."""
    out = []
    for unit in units(outside_blocks(text)):
        if CITES_RECORD.search(" ".join(unit)):
            continue
        for line in unit:
            for m in FIGURE.finditer(line):
                ctx = line[max(0, m.start() - 12): m.end() + 12]
                if any(p in ctx for p in NOT_MEASURED):
                    continue
                out.append("%s   [%s]" % (line.strip()[:160], m.group(0)))
    return out


# file paths named in the documents: every one must exist, unless its line says it is gone
PATH = re.compile(r"(?<![\w./-])((?:src|include|python|share|tests|docs|examples|\.ci)/[\w./+-]*[\w/])(?![\w<*{-])")
GONE = re.compile(r"\b(?:removed|is gone|are gone|renamed|moved|replaced)\b|\bnow `|\(now\b|, now\b|\bthen `|\bis now\b", re.I)


def missing_paths(text, root=None):
    """(line, path) of the file paths a document names that do not exist in the tree (placeholders
    with <, *, { left aside), unless the line says the file is gone or where it went"""
    root = Path(root or ROOT)
    out = []
    for line in text.splitlines():
        for m in PATH.finditer(line):
            p = m.group(1).rstrip(".")
            if not (root / p).exists() and not GONE.search(line):
                out.append((line.strip()[:160], p))
    return out


def check_all(paths, ctx=None):
    """(problems) of the documents together: every renderer's block in exactly one of them, each block
    what the records give"""
    ctx = ctx or Ctx()
    where, out = {}, []
    for p in paths:
        text = Path(p).read_text()
        for n, a, b in blocks(text):
            where.setdefault(n, []).append(Path(p).name)
        new = render(text, ctx)
        if new != text:
            nb = {x[0]: x for x in blocks(new)}
            out += ["%s: block %s differs from what the records give" % (Path(p).name, n) for n, a, b in blocks(text) if text[a:b] != new[nb[n][1]:nb[n][2]]]
    for n in RENDERERS:
        if len(where.get(n, [])) != 1:
            out.append("block %s is in %s (it must be in exactly one document)" % (n, ", ".join(where.get(n, [])) or "no document"))
    for n in where:
        if n not in RENDERERS:
            out.append("unknown block %s in %s" % (n, ", ".join(where[n])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="FILE", nargs="*")
    g.add_argument("--check", metavar="FILE", nargs="*")
    g.add_argument("--print", metavar="NAME")
    ap.add_argument("--results", default=None)
    ap.add_argument("--any", action="store_true", help="with --print: show the records whatever their provenance (a preview)")
    args = ap.parse_args()
    ctx = Ctx(args.results, strict=not (args.any and args.print))
    rc = _main(args, ctx)
    for name, why in sorted(ctx.refused.items()):  # loudly: a failed run is an error, not a missing figure
        print("readme: REFUSED record %s (it reports failures):\n  %s" % (name, "\n  ".join(why)), file=sys.stderr)
    return 1 if ctx.refused else rc


def _main(args, ctx):
    if args.print:
        print(render_block(args.print, ctx))
        return 0
    paths = [Path(p) for p in ((args.write if args.write is not None else args.check) or documents())]
    if args.write is not None:
        for p in paths:
            text = p.read_text()
            new = render(text, ctx)
            if new != text:
                p.write_text(new)
            print("%s: blocks %s" % (p.relative_to(ROOT) if p.is_absolute() and ROOT in p.parents else p, ", ".join(n for n, _, _ in blocks(new)) or "(none)"))
        return 0
    bad = check_all(paths, ctx) if not (args.check) else [x for p in paths for x in check_all([p], ctx) if "exactly one" not in x]
    if bad:
        print("generated blocks that differ from the records (run make readme, or make records):\n  " + "\n  ".join(bad))
        return 1
    print("generated blocks match the records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
