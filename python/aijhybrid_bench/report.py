"""From the layout jobs' outputs to the run record's flat results, and the terminal table."""

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
        for case in job["cases"]:
            for v in case["variants"]:
                key = (matrix_key(case), lay, v["label"])
                r = by.get(key)
                if r is None:
                    r = {
                        "matrix": case["matrix"],
                        "matrix_label": case["label"],
                        "matrix_key": matrix_key(case),
                        "rows": case["rows"],
                        "nnz": case["nnz"],
                        "bytes": case["bytes"]["total"],
                        "layout": lay,
                        "ranks": job["ranks"],
                        "threads": job["threads"],
                        "cores": job["ranks"] * job["threads"],
                        "variant": v["label"],
                        "type": v["type"],
                        "mat_type": v.get("mat_type"),
                        "options": v.get("options_set", v.get("options", "")),
                        "status": v["status"],
                        "reason": v.get("reason"),
                        "equivalent_to": v.get("equivalent_to"),
                        "samples_s": [],
                        "jobs": 0,
                    }
                    by[key] = r
                r["jobs"] += 1
                r["samples_s"].extend(v.get("samples_s") or [])
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
        model.derive(r, stream_med.get(r["layout"]))
        results.append(r)
    model.ratios(results, baseline)
    effective_times(results)
    return results, stream_med


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
            ("GB/s", 6), ("%STREAM", 7), ("imbal", 6), ("CG its", 6), ("solve s", 8)]
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
        ratio = ("%.2fx" % r["ratio_vs_baseline"]) if r.get("ratio_vs_baseline") else None
        lines.append(" ".join([
            m.ljust(22)[:22], r["layout"].ljust(6), r["variant"].ljust(24)[:24],
            _f(r["mult_s"] * 1e3, "%.3f", 11), (ratio or "-").rjust(8), _f(r["gflops"], "%.2f", 6), _f(r["gbps"], "%.1f", 6),
            _f(100 * r["stream_fraction"] if r.get("stream_fraction") else None, "%.0f%%", 7),
            _f(r.get("imbalance_measured", r.get("imbalance_model")), "%.2f", 6),
            _f(r.get("cg_iterations"), "%d", 6), _f(r.get("solve_s"), "%.3f", 8),
        ]))
    return "\n".join(lines)


def _rows(n):
    if n >= 1e6:
        return "%.3gM" % (n / 1e6)
    if n >= 1e3:
        return "%.3gk" % (n / 1e3)
    return str(n)


def legend(baseline="aij"):
    return ("MatMult ms: median over alternating rounds of batches (MPI barrier + MPI_Wtime around K products). "
            "vs %s: time of %s at Rx1 with R = this layout's cores (or, if it has none, in this layout) / this time (> 1: faster). "
            "GB/s: bytes of the model in aijhybrid_bench.model per product / time; %%STREAM: of the triad bandwidth "
            "measured in the same job. imbal: measured max/mean thread busy time (aijhybrid; worst rank), "
            "else the partition's cost model." % (baseline, baseline))


def targets(results, baseline="aij"):
    """The targets of issues 3 and 5, evaluated where the run has the records they need:
    - aijhybrid at 1x1 >= 1.0x aij 1x1, and at 1xT >= 1.0x aij Tx1 (best aijhybrid variant);
    - where equal row blocks are imbalanced by >= 1.5x in nonzeros (the rows partition's cost
      model, at T >= 2), the best balanced partition (nnz, diffusion, optimal) >= 1.3x rows;
    - aijhybrid at the largest core count >= 75% of the STREAM triad on the largest poisson7.
    Returns dicts with target, matrix, layout, value, required, met, detail."""
    out = []
    if baseline != "aij":
        return out  # the targets are ratios against aij
    ok = [r for r in results if r.get("mult_s")]
    hyb = [r for r in ok if "aijhybrid" in r["type"]]
    mats = []
    for r in ok:
        if r["matrix_key"] not in mats:
            mats.append(r["matrix_key"])
    for mk in mats:
        for lay in sorted({r["layout"] for r in hyb if r["matrix_key"] == mk and r["ranks"] == 1}):
            rs = [r for r in hyb if r["matrix_key"] == mk and r["layout"] == lay and r.get("ratio_vs_baseline")]
            if rs:
                best = max(rs, key=lambda r: r["ratio_vs_baseline"])
                out.append({"target": "aijhybrid %s vs %s %s" % (lay, baseline, best["baseline_layout"]), "matrix": mk, "layout": lay,
                            "value": best["ratio_vs_baseline"], "required": 1.0, "met": best["ratio_vs_baseline"] >= 1.0,
                            "detail": best["variant"]})
        for lay in sorted({r["layout"] for r in hyb if r["matrix_key"] == mk and r["threads"] >= 2}):
            rs = [r for r in hyb if r["matrix_key"] == mk and r["layout"] == lay]
            rows = [r for r in rs if r.get("partition") == "rows"]
            bal = [r for r in rs if r.get("partition") in ("nnz", "diffusion", "optimal")]
            for rr in rows:
                peers = [b for b in bal if b.get("mode") == rr.get("mode") and b["type"] == rr["type"]]
                if not peers or (rr.get("imbalance_model") or 1.0) < 1.5:
                    continue
                best = min(peers, key=lambda b: b["mult_s"])
                v = rr["mult_s"] / best["mult_s"]
                out.append({"target": "balanced vs rows (rows imbalance %.2f)" % rr["imbalance_model"], "matrix": mk, "layout": lay,
                            "value": v, "required": 1.3, "met": v >= 1.3, "detail": "%s vs %s" % (best["variant"], rr["variant"])})
    p7 = [r for r in hyb if r["matrix"] == "poisson7" and r.get("stream_fraction")]
    if p7:
        big = max(r["rows"] for r in p7)
        cmax = max(r["cores"] for r in p7)
        rs = [r for r in p7 if r["rows"] == big and r["cores"] == cmax]
        best = max(rs, key=lambda r: r["stream_fraction"])
        out.append({"target": "aijhybrid at %d cores, fraction of STREAM" % cmax, "matrix": best["matrix_key"], "layout": best["layout"],
                    "value": best["stream_fraction"], "required": 0.75, "met": best["stream_fraction"] >= 0.75, "detail": best["variant"]})
    return out


def targets_text(ts):
    if not ts:
        return ""
    lines = ["Targets (issues 3, 5 and 11; this run):"]
    for t in ts:
        lines.append("  %-4s %-48s %-18s %-6s %6.2f (need %.2f)  %s" % ("met" if t["met"] else "MISS", t["target"], t["matrix"], t["layout"],
                                                                    t["value"], t["required"], t["detail"]))
    return "\n".join(lines)
