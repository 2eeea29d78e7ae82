"""From the layout jobs' outputs to the run record's flat results, the terminal table and the
targets.

Targets are judged on the default configuration (an aijhybrid variant without options: what an
application gets from -mat_type aijhybrid) against the baseline measured in the same job: in the
same layout job for R x 1 layouts, and in a paired job (aijhybrid_bench.job) for R x T layouts,
whose baseline rows are labelled 'aij@RTx1'. A figure without such a baseline, or of another variant
(the best of several), is shown as indicative ("met": None), never as met.

A target judged on a confidence interval (the cost of a measured choice from the paired rounds of
its audit) has three outcomes: met when the whole interval meets the requirement, missed when none
of it does, and otherwise not resolved ("met": None, "resolved": False, with the interval): the
rounds could not tell, which is said, never counted as met or as missed (verdict_of())."""

import json

from . import model


def matrix_key(case):
    return "%s:%d" % (case["label"], case["rows"])


def flatten(jobs, baseline="aij"):
    """One result per (matrix, layout, variant) that was timed; repeated jobs of the same layout
    (layout_rounds > 1) are merged: samples concatenated, median over all of them. Skipped and
    equivalent variants are kept with their status and no time."""
    by = {}
    stream = {}
    for job in jobs:
        lay = job["layout"]
        stream.setdefault(lay, []).append(job["stream"]["triad_GBps"])
        pair = job.get("paired")
        if pair and pair.get("stream"):
            stream.setdefault(paired_stream_key(pair["layout"], lay), []).append(pair["stream"]["triad_GBps"])
        for case in job["cases"]:
            for v in case["variants"]:
                key = (matrix_key(case), lay, v["label"])
                r = by.get(key)
                ranks, threads = v.get("ranks", job["ranks"]), v.get("threads", job["threads"])
                if r is None:
                    r = {
                        "matrix": case["matrix"],
                        "matrix_label": case["label"],
                        "matrix_key": matrix_key(case),
                        "rows": case["rows"],
                        "nnz": case["nnz"],
                        "bytes": case["bytes"]["total"],
                        "past_cache": case.get("past_cache"),
                        "layout": lay,
                        "ranks": ranks,
                        "threads": threads,
                        "cores": ranks * threads,
                        "variant": v["label"],
                        "type": v["type"],
                        "mat_type": v.get("mat_type"),
                        "options": v.get("options_set", v.get("options", "")),
                        "default": is_default(v),
                        "status": v["status"],
                        "reason": v.get("reason"),
                        "equivalent_to": v.get("equivalent_to"),
                        "samples_s": [],
                        "jobs": 0,
                        "job_medians_s": [],
                    }
                    if v.get("paired_of"):
                        r.update(paired_of=v["paired_of"], run_as=v.get("run_as"), stream_key=paired_stream_key(v.get("run_as"), lay))
                    by[key] = r
                r["jobs"] += 1
                r["samples_s"].extend(v.get("samples_s") or [])
                if v.get("samples_s"):
                    r["job_medians_s"].append(model.median(v["samples_s"]))
                    r.setdefault("jobs_detail", []).append({"median_s": model.median(v["samples_s"]),
                                                            "choices": group_choices(zip(v["samples_s"], v["sample_choices"])) if v.get("sample_choices") else None})
                    if v.get("prefetch_audit"):
                        r["jobs_detail"][-1]["prefetch_audit"] = v["prefetch_audit"]
                if v.get("sample_choices"):
                    r.setdefault("_choices", []).extend(zip(v["samples_s"], v["sample_choices"]))
                for k in ("mode", "partition", "nthreads", "build", "build_s", "first_product_s", "rss_delta_bytes_sum", "batch", "exchange_stats"):
                    if k in v:
                        r[k] = v[k]
                pi = v.get("partition_info")
                if pi:
                    r["imbalance_model"] = pi["imbalance_max"]
                    r["imbalance_offdiag_model"] = pi["imbalance_offdiag_max"]
                    r["partition_build_s"] = pi["build_time_max_s"]
                    r["diffusion_sweeps"] = pi["sweeps_max"]
                if "measured_imbalance_max" in v:
                    r.setdefault("_meas", []).append(v["measured_imbalance_max"])
                if v.get("thread_times"):
                    r["thread_busy_ms"] = [d["busy_ms"] for d in v["thread_times"]]
                    hid = [d["halo_hidden_pct"] for d in v["thread_times"] if "halo_hidden_pct" in d]
                    if hid:
                        r["halo_hidden_pct_min"] = min(hid)
                s = v.get("solve")
                if s and "iterations" in s:
                    r.setdefault("_solve", []).append(s)
                elif s:
                    r["solve_error"] = s.get("error")
                for k, val in v.items():
                    if k.startswith("rel_diff_vs_"):
                        r["rel_diff_vs_reference"] = max(val, r.get("rel_diff_vs_reference") or 0.0)
                r["peak_rss_bytes_sum"] = max(r.get("peak_rss_bytes_sum", 0), case.get("peak_rss_bytes_sum", 0))
    stream_med = {lay: model.median(v) for lay, v in stream.items()}
    results = []
    for r in by.values():
        r["mult_s"] = model.median(r["samples_s"])
        r["mult_min_s"] = min(r["samples_s"]) if r["samples_s"] else None
        meas = r.pop("_meas", None)
        if meas:
            r["imbalance_measured"] = model.median(meas)
        sol = r.pop("_solve", None)
        if sol:
            r["cg_iterations"] = sol[0]["iterations"]
            r["cg_converged"] = all(s["converged"] for s in sol)
            r["cg_relative_residual"] = sol[0]["relative_residual"]
            r["solve_s"] = model.median([s["solve_s"] for s in sol])
        ch = r.pop("_choices", None)
        if ch:
            r["choices"] = group_choices(ch)
            r["choice"] = r["choices"][0]["choice"] if len(r["choices"]) == 1 else None
        model.derive(r, stream_med.get(r.get("stream_key") or r["layout"]))
        results.append(r)
    model.ratios(results, baseline)
    effective_times(results)
    return results, stream_med


def paired_stream_key(run_as, layout):
    """The STREAM of a same-job baseline group: e.g. '2x1 in 1x2 jobs'."""
    return "%s in %s jobs" % (run_as, layout)


def is_default(v):
    """A variant of the default configuration: aijhybrid with no option of its own."""
    return "aijhybrid" in v["type"] and not (v.get("options") or "").strip() and not v.get("paired_of")


def group_choices(pairs):
    """[(sample seconds, choice of the sample per rank)] -> one entry per distinct choice, the most
    frequent first: choice, samples, the median of its samples (mult_s). A time is never paired with
    a choice it was not measured with."""
    groups = {}
    for t, c in pairs:
        groups.setdefault(json.dumps(c, sort_keys=True), []).append(t)
    out = [{"choice": json.loads(k), "samples": len(ts), "mult_s": model.median(ts)} for k, ts in groups.items()]
    return sorted(out, key=lambda g: -g["samples"])


def choice_text(c):
    """One choice of a sample (a list of per-rank dicts) in words: 'prefetch 512, share 0.83'."""
    if any(x is None or "changed" in x for x in c):
        return "changed during the batch"
    parts = []
    for key, name in (("prefetch", "prefetch"), ("task_share", "share")):
        vals = [x.get(key) for x in c if key in x]
        if not vals:
            continue
        txt = ["measuring" if v is None else ("%g" % v) for v in vals]
        parts.append("%s %s" % (name, txt[0] if len(set(txt)) == 1 else "/".join(txt)))
    return ", ".join(parts) or "-"


def choices_text(r):
    """The choices of a result: the one it ran with, or each with its share of the samples."""
    cs = r.get("choices")
    if not cs:
        return ""
    if len(cs) == 1:
        return choice_text(cs[0]["choice"])
    n = sum(c["samples"] for c in cs)
    return "mixed: " + "; ".join("%s in %d/%d (%.3f ms)" % (choice_text(c["choice"]), c["samples"], n, 1e3 * c["mult_s"]) for c in cs)


def effective_times(results):
    """r['mult_s_effective']: an equivalent variant ran the same code as its representative, and
    the plots draw it at that time."""
    rep = {(r["matrix_key"], r["layout"], r["variant"]): r for r in results}
    for r in results:
        src = rep.get((r["matrix_key"], r["layout"], r.get("equivalent_to"))) if r["status"] == "equivalent" else r
        r["mult_s_effective"] = src.get("mult_s") if src else None
    return results


def _f(v, fmt, width):
    if v is None:
        return " " * (width - 1) + "-"
    return (fmt % v).rjust(width)


def table(results, title=None, show_all=True, baseline="aij"):
    """The summary: per matrix and layout, every variant's MatMult time, the ratio against the
    baseline (aij) at the same core count, GF/s, GB/s, % of STREAM, imbalance and the CG solve."""
    cols = [("matrix", 22), ("layout", 6), ("variant", 24), ("MatMult ms", 11), (("vs " + baseline)[:8], 8), ("GF/s", 6),
            ("GB/s", 6), ("%STREAM", 7), ("imbal", 6), ("CG its", 6), ("solve s", 8), ("choices", 7)]
    head = " ".join(n.ljust(w) if i < 3 else n.rjust(w) for i, (n, w) in enumerate(cols))
    lines = []
    if title:
        lines.append(title)
    lines += [head, "-" * len(head)]
    order = {}
    for r in results:
        order.setdefault(r["matrix_key"], len(order))
    key = lambda r: (order[r["matrix_key"]], r["cores"], -r["ranks"], r["layout"])
    prev = None
    for r in sorted(results, key=key):
        if r["mult_s"] is None and not show_all:
            continue
        m = "%s %s" % (r["matrix_label"], _rows(r["rows"]))
        if prev is not None and prev != (r["matrix_key"], r["layout"]):
            if prev[0] != r["matrix_key"]:
                lines.append("")
        prev = (r["matrix_key"], r["layout"])
        if r["mult_s"] is None:
            note = r["status"] + (" " + r["equivalent_to"] if r.get("equivalent_to") else "") if r["status"] != "ok" else "no time"
            if r["status"] == "skipped":
                note = "skipped: " + (r.get("reason") or "")
            if r["status"] == "equivalent":
                note = "= %s" % r["equivalent_to"]
            lines.append("%s %s %s %s" % (m.ljust(22)[:22], r["layout"].ljust(6), r["variant"].ljust(24)[:24], note))
            continue
        ratio = ("%.2fx%s" % (r["ratio_vs_baseline"], "" if r.get("baseline_same_job") else "~")) if r.get("ratio_vs_baseline") else None
        lines.append(" ".join([
            m.ljust(22)[:22], r["layout"].ljust(6), r["variant"].ljust(24)[:24],
            _f(r["mult_s"] * 1e3, "%.3f", 11), (ratio or "-").rjust(8), _f(r["gflops"], "%.2f", 6), _f(r["gbps"], "%.1f", 6),
            _f(100 * r["stream_fraction"] if r.get("stream_fraction") else None, "%.0f%%", 7),
            _f(r.get("imbalance_measured", r.get("imbalance_model")), "%.2f", 6),
            _f(r.get("cg_iterations"), "%d", 6), _f(r.get("solve_s"), "%.3f", 8),
        ] + ([choices_text(r)] if r.get("choices") else [])))
    return "\n".join(lines)


def _rows(n):
    if n >= 1e6:
        return "%.3gM" % (n / 1e6)
    if n >= 1e3:
        return "%.3gk" % (n / 1e3)
    return str(n)


def legend(baseline="aij"):
    return ("MatMult ms: median over alternating rounds of batches (MPI barrier + MPI_Wtime around K products). "
            "vs %s: time of %s at Rx1 with R = this layout's cores (or, if it has none, in this layout) / this time (> 1: faster), "
            "measured in the same jobs (for RxT layouts: %s@RTx1, the paired jobs' baseline); '~': from other jobs, indicative. "
            "choices: what the plugin chose (software prefetch, task share) during the batches; several: each with its own median. "
            "GB/s: bytes of the model in aijhybrid_bench.model per product / time; %%STREAM: of the triad bandwidth "
            "measured in the same job. imbal: measured max/mean thread busy time (aijhybrid; worst rank), "
            "else the partition's cost model." % (baseline, baseline, baseline))


# the confidence level of the intervals a target is judged on (the paired cost of a measured choice)
LEVEL = 0.95


def resolve(lo, hi, required, at_most=False, coverage=None, level=LEVEL):
    """A requirement judged on an interval [lo, hi] of the value: True (met) when all of it meets it,
    False (missed) when none of it does, None (not resolved) when it straddles the requirement, or
    when the interval's coverage falls short of `level` (too few samples to say either)."""
    if lo is None or hi is None or (coverage is not None and coverage < level):
        return None
    if at_most:
        return True if hi <= required else False if lo > required else None
    return True if lo >= required else False if hi < required else None


def verdict_of(t):
    """A target line's verdict in words: met, missed, not resolved (judged on an interval that
    straddles the requirement), or shown (indicative, not judged)."""
    if t.get("met") is True:
        return "met"
    if t.get("met") is False:
        return "missed"
    return "not resolved" if t.get("resolved") is False else "shown"


def interval_verdict(lo, hi, required, at_most=False, coverage=None):
    """resolve() in words: met, missed or not resolved."""
    return {True: "met", False: "missed", None: "not resolved"}[resolve(lo, hi, required, at_most, coverage)]


def verdict_counts(ts):
    """{verdict: how many} of target lines, every verdict present (0 when none)."""
    out = {"met": 0, "missed": 0, "not resolved": 0, "shown": 0}
    for t in ts:
        out[verdict_of(t)] += 1
    return out


def _judged(target, matrix, layout, value, required, detail, same_job=True, at_most=False, interval=None, coverage=None, unresolved=None):
    """A target line: judged (met True/False) when of the default against a same-job baseline, else
    shown as indicative (met None); at_most: met when the value is at most the required one.
    interval [lo, hi] (with its coverage): judged on the interval instead of the value (resolve()):
    met, missed, or not resolved (met None, "resolved" False); the line keeps the interval.
    unresolved (a reason): the measurement cannot tell (e.g. an A/A control wider than the bound):
    not resolved whatever the value, the reason in the detail."""
    met = (value <= required if at_most else value >= required) if same_job else None
    extra = {"at_most": True} if at_most else {}
    if interval is not None:
        met = resolve(interval[0], interval[1], required, at_most, coverage) if same_job else None
        extra.update(interval=list(interval), interval_coverage=coverage, resolved=met is not None or not same_job)
    if unresolved and same_job:
        met = None
        extra.update(resolved=False, unresolved=unresolved)
        detail = (detail + "; " if detail else "") + "not resolved: " + unresolved
    return dict({"target": target, "matrix": matrix, "layout": layout, "value": value, "required": required, "met": met, "detail": detail}, **extra)


def _jobs_detail(r):
    """The per-job ratios behind a same-job ratio (one per job that measured both)."""
    rj = r.get("ratio_jobs") or []
    return "; median of the jobs' %s" % ", ".join("%.2f" % x for x in rj) if len(rj) > 1 else ""


def targets(results, baseline="aij"):
    """The MatMult targets, evaluated where the run has the records they need, on the default
    configuration (is_default) against the baseline of the same jobs (model.ratios):
    - at 1x1 >= 1.0x aij 1x1, and at 1xT >= 1.0x aij Tx1 (measured in the paired jobs);
    - where equal row blocks are imbalanced by >= 1.5x in nonzeros (the rows partition's cost model,
      at T >= 2), the default (partition nnz) >= 1.3x the rows partition in the same mode;
    - at the largest core count >= 75% of the STREAM triad of the same jobs, on the largest poisson7.
    Lines that are not judged (met None): the same ratio without a same-job baseline, and the best
    of several aijhybrid variants where the run has more than the default ("best of N variants").
    Returns dicts with target, matrix, layout, value, required, met, detail."""
    out = []
    if baseline != "aij":
        return out  # the targets are ratios against aij
    ok = [r for r in results if r.get("mult_s")]
    hyb = [r for r in ok if "aijhybrid" in r["type"] and not r.get("paired_of")]
    mats = []
    for r in ok:
        if r["matrix_key"] not in mats:
            mats.append(r["matrix_key"])
    for mk in mats:
        for lay in sorted({r["layout"] for r in hyb if r["matrix_key"] == mk and r["ranks"] == 1}):
            rs = [r for r in hyb if r["matrix_key"] == mk and r["layout"] == lay and r.get("ratio_vs_baseline")]
            d = next((r for r in rs if r.get("default")), None)
            if d:
                sj = bool(d.get("baseline_same_job"))
                what = "aijhybrid %s vs %s %s%s" % (lay, baseline, d["baseline_layout"], ", same job" if sj else " of other jobs (not judged)")
                out.append(_judged(what, mk, lay, d["ratio_vs_baseline"], 1.0, d["variant"] + _jobs_detail(d), sj))
            if len(rs) > 1:
                best = max(rs, key=lambda r: r["ratio_vs_baseline"])
                out.append(_judged("best of %d aijhybrid variants %s vs %s %s (shown, not a target)" % (len(rs), lay, baseline, best["baseline_layout"]), mk, lay,
                                   best["ratio_vs_baseline"], 1.0, best["variant"], same_job=False))
        for lay in sorted({r["layout"] for r in hyb if r["matrix_key"] == mk and r["threads"] >= 2}):
            rs = [r for r in hyb if r["matrix_key"] == mk and r["layout"] == lay]
            d = next((r for r in rs if r.get("default")), None)
            if not d:
                continue
            rows = [r for r in rs if r.get("partition") == "rows" and r.get("mode") == d.get("mode")]
            for rr in rows:
                if (rr.get("imbalance_model") or 1.0) < 1.5:
                    continue
                v = rr["mult_s"] / d["mult_s"]
                out.append(_judged("default (partition %s) vs rows (rows imbalance %.2f)" % (d.get("partition"), rr["imbalance_model"]), mk, lay, v, 1.3,
                                   "%s vs %s" % (d["variant"], rr["variant"])))
    p7 = [r for r in hyb if r["matrix"] == "poisson7" and r.get("stream_fraction") and r.get("default")]
    if p7:
        big = max(r["rows"] for r in p7)
        cmax = max(r["cores"] for r in p7)
        for r in sorted((r for r in p7 if r["rows"] == big and r["cores"] == cmax), key=lambda r: r["layout"]):
            out.append(_judged("aijhybrid at %d cores, fraction of STREAM (same jobs)" % cmax, r["matrix_key"], r["layout"], r["stream_fraction"], 0.75, r["variant"]))
    return out


# the measured choices of the plugin and the option that fixes each (src/mat/tune.c)
CHOICES = (("prefetch", "mat_aijhybrid_prefetch"), ("task_share", "mat_aijhybrid_task_share"))


def _own_options(r):
    """A result's options without the thread count the driver adds: {name: value}."""
    import shlex

    toks, out, i = shlex.split(r.get("options") or ""), {}, 0
    while i < len(toks):
        k = toks[i].lstrip("-")
        if i + 1 < len(toks) and not toks[i + 1].startswith("-"):
            out[k], i = toks[i + 1], i + 2
        else:
            out[k], i = None, i + 1
    out.pop("mat_aijhybrid_num_threads", None)
    return out


def _chosen(choices, key):
    """What a job's batches ran with for one choice: the value of every rank when one, 'measuring'
    when some batches measured, 'per rank a/b' when ranks differ, 'changed' when it changed."""
    vals = set()
    for g in choices or []:
        c = g["choice"]
        if any(x is None or "changed" in x for x in c):
            vals.add("changed")
            continue
        per = [x.get(key) for x in c]
        if any(v is None for v in per):
            vals.add("measuring")
        else:
            vals.add(per[0] if len(set(per)) == 1 else "per rank " + "/".join("%g" % v for v in per))
    return sorted(vals, key=str)


def choice_audit(results, spread=0.10, cost_max=0.03):
    """How the measured choices did against the fixed alternatives measured in the same jobs: for
    every aijhybrid result that leaves a choice to measurement (prefetch, task share) and has results
    that fix it (the same options plus -mat_aijhybrid_prefetch D / -mat_aijhybrid_task_share S) in
    the same layout, one row per job: what it ran with, the fixed alternatives' medians, the spread
    between them, the cost of the measured choice against the better fixed one (its median over the
    better one's, minus 1), and a verdict: "right" (it ran with the better one), "wrong", "no real
    difference" (the fixed ones within `spread` of each other), "mixed" (several values in the job:
    the cost says what they cost). Returns (rows, summary per result)."""
    rows, summary = [], []
    hyb = [r for r in results if "aijhybrid" in r["type"] and r.get("mult_s") and not r.get("paired_of")]
    for auto in hyb:
        own = _own_options(auto)
        for key, opt in CHOICES:
            if opt in own:
                continue  # fixed here
            where = {"matrix": auto["matrix_key"], "layout": auto["layout"], "variant": auto["variant"], "choice": key}
            audits = [d.get("prefetch_audit") for d in auto.get("jobs_detail") or []]
            if key == "prefetch" and audits and all(audits):  # measured against the fixed distances on its own matrix
                jobrows = [dict(where, job=j, same_matrix=True, **judge_audit(a, spread, cost_max)) for j, a in enumerate(audits)]
                rows += jobrows
                summary.append(dict(audit_summary(where, jobrows, spread, cost_max), same_matrix=True))
                continue
            fixed = [r for r in hyb if r is not auto and r["matrix_key"] == auto["matrix_key"] and r["layout"] == auto["layout"]
                     and opt in _own_options(r) and {k: v for k, v in _own_options(r).items() if k != opt} == own]
            if key == "task_share":  # its alternatives: share 1 and a sized share that no fixed variant can name: judged by the cost against share 1
                fixed = [f for f in fixed if float(_own_options(f)[opt]) == 1.0]
            if not fixed or not auto.get("jobs_detail"):
                continue
            jobs = len(auto["jobs_detail"])
            if any(len(f.get("jobs_detail") or []) != jobs for f in fixed):
                continue  # not measured in the same jobs
            jobrows = [dict(where, job=j, **judge_job(_chosen(auto["jobs_detail"][j]["choices"], key), auto["jobs_detail"][j]["median_s"],
                                                       {float(_own_options(f)[opt]): f["jobs_detail"][j]["median_s"] for f in fixed}, spread, cost_max))
                       for j in range(jobs)]
            rows += jobrows
            summary.append(audit_summary(where, jobrows, spread, cost_max))
    return rows, summary


def judge_job(ran, median_s, fixed, spread=0.10, cost_max=0.03, paired=None):
    """One job of a measured choice: ran (the values its samples ran with), its median, and the
    medians of the fixed alternatives {value: seconds} of the same job; see choice_audit. paired
    (optional): {value: [per-round ratio of the measured choice's time over that fixed one's, -1]}
    from rounds that timed both: then the cost is the median of the better one's paired ratios
    (the rounds' common drift cancels), with its confidence interval at LEVEL (model.median_interval:
    the order statistics cost_interval_ranks of the paired_rounds ratios) and the cost target judged
    on it (cost_verdict, resolve()): "met" when its upper end is at most cost_max, "missed" when its
    lower end is above, else "not resolved" (also when the rounds are too few for LEVEL)."""
    best = min(fixed, key=fixed.get)
    sp = max(fixed.values()) / fixed[best] - 1.0
    cost = median_s / fixed[best] - 1.0
    extra = {}
    if paired and paired.get(best):
        xs = [x for x in paired[best] if x is not None]
        lo, hi, cover = model.median_interval(xs, LEVEL)
        k1, k2, _ = model.median_interval_ranks(len(xs), LEVEL)  # which order statistics they are, for the record
        extra = {"cost_unpaired": cost, "cost_interval": [lo, hi], "cost_interval_coverage": cover, "cost_interval_ranks": [k1, k2], "paired_rounds": len(xs),
                 "cost_verdict": interval_verdict(lo, hi, cost_max, True, cover)}
        cost = model.median(xs)
    if len(ran) != 1 or ran[0] not in fixed:  # several values, or one that is none of the alternatives (measuring, per rank, changed)
        verdict = "mixed"
    elif len(fixed) > 1 and sp < spread:
        verdict = "no real difference"
    elif ran[0] == best or (len(fixed) == 1 and cost <= cost_max):
        verdict = "right"
    else:
        verdict = "wrong"
    return dict({"ran_with": ran, "fixed_s": {str(k): v for k, v in sorted(fixed.items(), key=lambda kv: str(kv[0]))}, "better_fixed": best, "spread": sp,
                 "cost": cost, "verdict": verdict}, **extra)


def paired_ratios(measured, fixed):
    """The per-round ratios measured / fixed - 1 of two variants timed in the same rounds (the i-th
    sample of each in round i); a round missing either sample is left out."""
    return [a / b - 1.0 for a, b in zip(measured, fixed) if a and b]


def aa_control(row, aa, cost_max=0.03):
    """A job's audit row (judge_job) with its A/A control: aa {value: per-round ratios of a second
    instance of that fixed alternative (the same code, another object) over the first}, each
    control's median and interval (model.median_interval at LEVEL) in aa_control. aa_within: whether
    the better fixed alternative's control interval lies within +-cost_max at LEVEL, i.e. two
    instances of the same code were shown to differ by less than the bound. Where not, the paired
    cost cannot be told from what separates two instances of the same code: a cost_verdict becomes
    "not resolved", the reason in cost_verdict_reason."""
    ctl = {}
    for f, xs in aa.items():
        lo, hi, cover = model.median_interval(xs, LEVEL)
        ctl[str(f)] = {"median": model.median(xs), "interval": [lo, hi], "coverage": cover, "rounds": len(xs)}
    b = ctl.get(str(row["better_fixed"]))
    within = bool(b) and within_bound(b["interval"], cost_max, b["coverage"])
    out = dict(row, aa_control=ctl, aa_within=within)
    if not within and "cost_verdict" in row:
        out["cost_verdict"] = "not resolved"
        out["cost_verdict_reason"] = aa_reason(b["interval"] if b else None, cost_max)
    return out


def within_bound(interval, bound, coverage=None):
    """Whether all of a ratio's interval (as relative change) lies within +-bound (resolve() on both
    sides: an interval of too little coverage is not within)."""
    lo, hi = interval
    return resolve(lo, hi, bound, True, coverage) is True and resolve(lo, hi, -bound, False, coverage) is True


def aa_reason(interval, cost_max=0.03):
    """Why an A/A control leaves a cost unresolved, in words."""
    if not interval or None in interval:
        return "no A/A control of the better fixed alternative"
    return "A/A control: two instances of the better fixed alternative differ by %+.1f%% to %+.1f%% (paired), not within +-%.0f%%" % (
        100 * interval[0], 100 * interval[1], 100 * cost_max)


def judge_audit(audit, spread=0.10, cost_max=0.03):
    """One job's timing.audit_prefetch (the measured prefetch and the fixed distances timed in the
    same rounds on the same matrix) judged as judge_job does: what the measured batches ran with (a
    distance, 'per rank a/b', 'measuring' or 'changed'), the better fixed one by the medians, the
    cost paired: each round's measured batch against the same round's batch of the better fixed one
    (they ran in the same round, one after the other), the median of those ratios, judged on its
    interval (judge_job). With the rounds' orders (model.round_order; records before it rotated the
    order without alternating it): how many rounds ran the measured batch before the better fixed one
    (measured_first_rounds) and the median paired cost of those rounds and of the others
    (cost_measured_first, cost_measured_after), so that an order effect shows."""
    ran = set()
    for per_rank in audit["choices"]:
        if any(c is None for c in per_rank):
            ran.add("measuring")
        elif any(c == "changed" for c in per_rank):
            ran.add("changed")
        else:
            ran.add(per_rank[0] if len(set(per_rank)) == 1 else "per rank " + "/".join("%g" % c for c in per_rank))
    fixed = {float(d): model.median(audit["samples_s"][str(d)]) for d in audit["distances"]}
    auto = audit["samples_s"]["auto"]
    paired = {float(d): paired_ratios(auto, audit["samples_s"][str(d)]) for d in audit["distances"]}
    ran = sorted(ran, key=str)
    row = judge_job(ran, model.median(auto), fixed, spread, cost_max, paired)
    orders = audit.get("orders")
    if orders and len(orders) == len(auto):
        b = next(str(d) for d in audit["distances"] if float(d) == row["better_fixed"])
        pairs = [(a / f - 1.0, o.index("auto") < o.index(b)) for a, f, o in zip(auto, audit["samples_s"][b], orders) if a and f]
        row.update(measured_first_rounds=sum(first for _, first in pairs), cost_measured_first=model.median([c for c, first in pairs if first]),
                   cost_measured_after=model.median([c for c, first in pairs if not first]))
    return row


def audit_summary(where, jobrows, spread=0.10, cost_max=0.03):
    """The jobs of one measured choice together: verdict counts, median and worst cost, and whether
    the jobs whose fixed alternatives differ by more than `spread` made the same decision. Where every
    job's cost has an interval (judge_job, paired): the interval of the worst job's cost
    (cost_max_interval), the smallest of the jobs' coverages, the coverage of all of them together (a
    lower bound), the rounds, and the cost target judged on it (cost_verdict: met, missed, not
    resolved against `cost_max`)."""
    verdicts = [r["verdict"] for r in jobrows]
    costs = [r["cost"] for r in jobrows]
    decisive = [r["ran_with"] for r in jobrows if r["spread"] >= spread]
    out = dict(where, jobs=len(jobrows), right=verdicts.count("right"), wrong=verdicts.count("wrong"), mixed=verdicts.count("mixed"),
               no_difference=verdicts.count("no real difference"), cost_max=max(costs), cost_median=model.median(costs),
               same_decision=len({str(d) for d in decisive}) <= 1, decisive_jobs=len(decisive))
    ivs = [r.get("cost_interval") for r in jobrows]
    if jobrows and all(iv and None not in iv for iv in ivs):
        # the worst job's cost lies between the largest lower end and the largest upper end of the jobs'
        # intervals whenever each job's interval holds its cost: together with at least 1 - the sum of
        # the jobs' miss probabilities (cost_max_interval_coverage)
        covs = [r["cost_interval_coverage"] for r in jobrows]
        out.update(cost_max_interval=[max(iv[0] for iv in ivs), max(iv[1] for iv in ivs)], cost_interval_coverage_min=min(covs),
                   cost_max_interval_coverage=max(0.0, 1.0 - sum(1.0 - c for c in covs)), paired_rounds=min(r["paired_rounds"] for r in jobrows))
        out["cost_verdict"] = interval_verdict(out["cost_max_interval"][0], out["cost_max_interval"][1], cost_max, True, min(covs))
    if jobrows and all("aa_within" in r for r in jobrows):
        # the A/A controls of the better fixed alternatives: their widest span over the jobs
        ivs = [r["aa_control"].get(str(r["better_fixed"]), {}).get("interval") or [None, None] for r in jobrows]
        los, his = [iv[0] for iv in ivs if iv[0] is not None], [iv[1] for iv in ivs if iv[1] is not None]
        out.update(aa_interval=[min(los), max(his)] if los and his else None, aa_within=all(r["aa_within"] for r in jobrows))
        if not out["aa_within"] and "cost_verdict" in out:
            out["cost_verdict"] = "not resolved"
            out["cost_verdict_reason"] = aa_reason(out["aa_interval"], cost_max)
    return out


def choice_targets(summary, spread=0.10, cost_max=0.03):
    """The targets of the measured choices, on the audit of this run: where the fixed alternatives
    differ by more than `spread`, the same decision in every job; never more than `cost_max` slower
    than the better fixed alternative of its job (judged: the choice and the alternatives ran in the
    same jobs). Where the jobs' costs are paired with intervals (the prefetch audit on the measured
    variant's own matrix), the worst job's cost is judged on its interval (audit_summary's
    cost_max_interval, resolve()): met only when every job's interval lies at or below `cost_max`,
    missed when one lies wholly above, else not resolved, the interval given; without intervals, on
    the worst job's value. Each line is marked kind "choice"."""
    out = []
    for s in summary:
        what = "measured %s of %s vs fixed, %d job(s)" % (s["choice"].replace("_", " "), s.get("variant") or "%s %s" % (s.get("solve"), s.get("ordering")), s["jobs"])
        detail = "right %d, wrong %d, mixed %d, no real difference %d" % (s["right"], s["wrong"], s["mixed"], s["no_difference"])
        iv = s.get("cost_max_interval")
        if iv:
            detail += "; interval of the worst job's paired cost: the largest ends of the jobs' intervals (%d rounds, each %.0f%% or more, together %.0f%% or more)" % (
                s["paired_rounds"], 100 * s["cost_interval_coverage_min"], 100 * s["cost_max_interval_coverage"])
        if s.get("aa_interval"):
            detail += "; A/A control (a second instance of the better fixed alternative against the first, paired): %+.1f%% to %+.1f%%" % (
                100 * s["aa_interval"][0], 100 * s["aa_interval"][1])
        out.append(dict(_judged("%s: cost against the better fixed choice, worst job" % what, s["matrix"], s["layout"], s["cost_max"], cost_max, detail, at_most=True,
                                interval=iv, coverage=s.get("cost_interval_coverage_min") if iv else None,
                                unresolved=aa_reason(s.get("aa_interval"), cost_max) if s.get("aa_within") is False else None), kind="choice"))
        if s["decisive_jobs"]:
            out.append(dict(_judged("%s: the same decision in the %d job(s) where the fixed ones differ by > %d%%" % (what, s["decisive_jobs"], round(100 * spread)),
                                    s["matrix"], s["layout"], 1.0 if s["same_decision"] else 0.0, 1.0, ""), kind="choice"))
    return out


def is_choice_target(t):
    """A target line of choice_targets (records before the "kind" key: by its wording)."""
    return t.get("kind") == "choice" or (t.get("target", "").startswith("measured ") and " vs fixed, " in t.get("target", ""))


def rejudged(record):
    """(choice_audit rows, choice_summary, targets) of a driver's record, the measured choices judged by
    this code's rules from the record's own measurements: where its results hold prefetch audits
    (the rounds themselves), the audit and its targets are computed again from them (a record made
    before a rule changed is judged by the rule the documents describe); else the record's own."""
    rows, summary, ts = record.get("choice_audit") or [], record.get("choice_summary") or [], record.get("targets") or []
    res = record.get("results") or []
    if any(d.get("prefetch_audit") for r in res for d in r.get("jobs_detail") or []):
        rows, summary = choice_audit(res)
        ts = [t for t in ts if not is_choice_target(t)] + choice_targets(summary)
    return rows, summary, ts


def choice_audit_text(rows, summary):
    if not summary:
        return ""
    lines = ["Measured choices against the fixed alternatives of the same jobs (cost: median over the better fixed one's, -1; "
             "'same matrix': timed in the same rounds on the measured variant's own matrix, the cost paired: the median of the rounds' ratios, "
             "the worst job's given with its interval and judged on it: met, missed, or not resolved when it straddles the limit):"]
    for s in summary:
        iv = s.get("cost_max_interval")
        ivtxt = " (%+.1f%% to %+.1f%%, %d rounds: %s)" % (100 * iv[0], 100 * iv[1], s["paired_rounds"], s["cost_verdict"]) if iv else ""
        lines.append("  %-18s %-6s %-22s %-22s right %d, wrong %d, mixed %d, no real difference %d of %d job(s); cost median %+.1f%%, worst %+.1f%%%s" % (
            s["matrix"], s["layout"], s["variant"], s["choice"] + (", same matrix" if s.get("same_matrix") else ""), s["right"], s["wrong"], s["mixed"], s["no_difference"], s["jobs"], 100 * s["cost_median"], 100 * s["cost_max"], ivtxt))
    return "\n".join(lines)


def targets_text(ts):
    if not ts:
        return ""
    lines = ["Targets (the default configuration against aij of the same job; 'shown': indicative, not judged; "
             "'unresolved': judged on an interval that straddles the requirement):"]
    for t in ts:
        v = {"met": "met", "missed": "MISS", "not resolved": "unresolved", "shown": "shown"}[verdict_of(t)]
        iv = (" [%.3f, %.3f]" % tuple(t["interval"])) if t.get("interval") else ""
        lines.append("  %-10s %-60s %-18s %-6s %6.2f%s (need %s%.2f)  %s" % (v, t["target"], t["matrix"], t["layout"], t["value"], iv, "<= " if t.get("at_most") else "", t["required"], t["detail"]))
    c = verdict_counts(ts)
    lines.append("  (%d met, %d missed, %d not resolved, %d shown)" % (c["met"], c["missed"], c["not resolved"], c["shown"]))
    return "\n".join(lines)
