"""The generated blocks of docs/nodes.md, from the records nodes and nodes-slurm (share/records/readme.py
calls these; make records makes the records). No PETSc here.

  nodes          the plan's messages and bytes against the wire, per matrix, layout and exchange
  nodes-times    MatMult and CG + Jacobi times at both rates, the model's predictions beside them, targets
  nodes-cluster  the model's predictions for the stated cluster: where node-aware and hybrid layouts win
  nodes-slurm    the share/slurm/ templates under a local SLURM
"""

VLABEL = {"aij": "aij, basic", "aij_nodeaware": "aij, nodeaware", "hybrid": "aijhybrid, basic", "hybrid_nodeaware": "aijhybrid, node-aware"}


def _rows(n):
    return "%.3g x 10^6" % (n / 1e6) if n >= 1e5 else str(n)


def _f(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


def render_wire(d, head):
    r = d["result"]
    if "error" in r:
        return head + "\n\nThe run did not complete: %s" % r["error"]
    c = r["constants"]
    lines = [head, "", "Per exchange (one MatMult), all hosts; wire = TCP data segments and their Ethernet frame bytes counted on the hosts' interfaces, "
             "minus an idle window; payload = frame bytes - %d per segment; expected = plan + %d bytes per message (Open MPI's headers). "
             "Pure ACKs are counted apart. Hosts %d, rate %s; load average %s at the start." % (c["segment_overhead_bytes"], c["mpi_header_bytes"], r["hosts"], r["rate"],
                                                                                             ", ".join("%.1f" % x for x in r.get("load_average_start", []))), "",
             "| run | matrix | rows | exchange | plan msgs | wire segments | max per host pair | plan bytes | wire payload | vs plan | ACKs |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in r.get("rows", []):
        if row["run"].startswith("onhost") or row["variant"] not in ("aij", "aij_nodeaware", "hybrid_nodeaware"):
            continue
        lines.append("| %s | %s | %s | %s | %d | %s | %s | %d | %.0f | %s | %s |" % (
            row["run"], row["matrix"], _rows(row["rows"]), VLABEL[row["variant"]], row["plan_msgs"], _f(row["wire_segments"], "%.1f"), _f(row["max_pair_segments"], "%.0f"),
            row["plan_bytes"], row["wire_payload"], "%+.2f%%" % (100 * row["payload_vs_plan"]) if row.get("payload_vs_plan") is not None else "-", _f(row["wire_acks"], "%.1f")))
    sf = r.get("sf_tests") or []
    if sf:
        lines += ["", "PETSc's SF tests across the hosts (%d runs, basic and nodeaware): %d pass, %d listed exceptions (%s), %d fail." % (
            len(sf), sum(s["status"] == "pass" for s in sf), sum(s["status"] == "exception" for s in sf),
            ", ".join(sorted({"%s %s" % (s["example"], s["sf_type"]) for s in sf if s["status"] == "exception"})) or "none", sum(s["status"] == "fail" for s in sf))]
    bad = [x for x in r.get("checks", []) if not x["ok"]]
    lines += ["", "Checks: %d, failed %d%s" % (len(r.get("checks", [])), len(bad), (": " + "; ".join("%s (%s)" % (x["check"], x["detail"]) for x in bad[:8])) if bad else ".")]
    return "\n".join(lines)


def render_times(d, head):
    r = d["result"]
    m = r.get("model") or {}
    if "error" in r or not m or "error" in m:
        return head + "\n\nNo model in this record: %s" % (r.get("error") or m.get("error") or "not fitted")
    lines = [head, "", "Medians of %s interleaved rounds (variants alternated A B C D D C B A); the hosts share this machine's cores, which other jobs shared too (load average %s at the start, %s at the end): "
             "indicative only. Model: the parameters fitted to every MatMult row; held out: the row's matrix left out of the fit (its times predicted from the other matrices'); "
             "CG solves are never fitted.%s" % (
                 r["runs"][0].get("rounds") if r.get("runs") else "-", ", ".join("%.1f" % x for x in r.get("load_average_start", [])), ", ".join("%.1f" % x for x in r.get("load_average_end", [])),
                 " The run with every rank on one host is the model's CPU input (its MatMult and CG times per nonzero and row, matrix and type): its rows say input and are not counted."
                 if any(v.get("mult_role") == "input" for v in m["validation"]) else ""), "",
             "| run | rate | matrix | variant | MatMult ms | model ms | error | held out ms | error | CG solve s | model s | error |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    pct = lambda x: "%+.0f%%" % (100 * x) if x is not None else "-"  # noqa: E731
    for v in m["validation"]:
        inp = v.get("mult_role") == "input"  # the on-host run: the CPU input, not a prediction
        lines.append("| %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s | %s |" % (
            v["run"], v["rate"], v["matrix"], VLABEL.get(v["variant"], v["variant"]), 1e3 * v["mult_s"], "input" if inp else "%.2f" % (1e3 * v["mult_pred_s"]), "-" if inp else pct(v["mult_err"]),
            _f(v.get("mult_heldout_s") and 1e3 * v["mult_heldout_s"], "%.2f"), pct(v.get("mult_heldout_err")),
            _f(v["cg_solve_s"], "%.3f"), "input" if inp else _f(v["cg_pred_s"], "%.3f"), "-" if inp else pct(v["cg_err"])))
    w = m["within_25"]
    q = m["params_here"]
    held = "%d of %d held out (fitted without their matrix)" % tuple(w["mult_heldout"])
    bw = ", ".join("%.3g at %.3g Mbit/s" % (v / 1e6, float(k) / 1e6) for k, v in sorted(q.get("B_all", {}).items(), key=lambda kv: -float(kv[0])))
    if "tau" in q:  # records of the model with a fitted CPU time per nonzero and per rank
        lines += ["", "Within 25%%: MatMult %d of %d rows fitted, %s; CG solves %d of %d (all predicted)." % (tuple(w["mult_fit"]) + (held,) + tuple(w["cg"])),
                  "Parameters of the emulated hosts: network L %.3g ms per phase, o %.3g ms per message; shared memory L_s %.3g ms, o_s %.3g ms; CPU %.3g ns per nonzero "
                  "and %.3g ms per rank and product (all hosts on this machine's cores); a host's bandwidth %s MB/s (probe, per rate; stated B_s %.3g GB/s)." % (
                      1e3 * q["L"], 1e3 * q["o"], 1e3 * q["L_s"], 1e3 * q["o_s"], 1e9 * q["tau"], 1e3 * q["kappa"], bw, q["B_s"] / 1e9)]
    else:  # the CPU time per nonzero measured by the on-host run, fixed costs per product and per byte on the wire fitted
        fitted = q.get("fitted") or ["c_aij", "c_hybrid"]  # records before fit_names: both fitted
        fixed = ", ".join("%.3g ms (%s)" % (1e3 * q.get(k, 0.0), t) for k, t in (("c_aij", "aij"), ("c_hybrid", "aijhybrid")) if k in fitted)
        fixed = fixed or "not fitted (every configuration's matrix size has its own on-host run: it cancels)"
        lines += ["", "Within 25%%: MatMult %d of %d rows fitted, %s; CG solves %d of %d (all predicted; the on-host rows are inputs)." % (tuple(w["mult_fit"]) + (held,) + tuple(w["cg"])),
                  "Parameters of the emulated hosts: network L %.3g ms per phase, o %.3g ms per message; shared memory L_s %.3g ms, o_s %.3g ms; CPU per nonzero measured "
                  "on one host (input; all hosts on this machine's cores): %s; fixed CPU cost per product %s; CPU %.3g ns per byte on the wire "
                  "(the kernel's TCP work)%s; a host's bandwidth %s MB/s (probe, per rate); on-host copies B_s %.3g GB/s (%s)." % (
                      1e3 * q["L"], 1e3 * q["o"], 1e3 * q["L_s"], 1e3 * q["o_s"],
                      ", ".join("%s %.3g ns" % (k.replace("mpiaijhybrid", "aijhybrid").replace("mpiaij", "aij"), 1e9 * v) for k, v in sorted(q.get("cpu_per_nnz", {}).items())),
                      fixed, 1e9 * q.get("beta", 0.0),
                      " and %.3g us per inter-host message, all hosts' (o_tcp)" % (1e6 * q["o_tcp"]) if "o_tcp" in q else "", bw, q["B_s"] / 1e9, q.get("B_s_source", "stated"))]
    import model

    if "rho" in q:
        lines[-1] += " Rendezvous waiting: %.2f of the bytes both directions of a connection have in common (fitted without %s)." % (
            q["rho"], ", ".join("%s: %s" % (k, "%.2f" % v if v is not None else "not seen, no rendezvous waiting in the others")
                                for k, v in sorted(m.get("rho_without", {}).items())) or "-")
        fits = [("the full fit", q["rho"])] + [("the fit without " + k, v) for k, v in sorted(m.get("rho_without", {}).items())]
        upper = [k for k, v in fits if model.at_bound(v, "upper")]
        lower = [k for k, v in fits if model.at_bound(v, "lower")]
        if upper:
            lines[-1] += (" **rho is at the upper bound of its fit (%g) in %s**: the measured times want more waiting than the model's term can give, "
                          "so the model underestimates the waiting of the rows that have it." % (model.FIT_BOUNDS[1], " and ".join(upper)))
        if lower:
            lines[-1] += (" **rho is at the lower bound of its fit (%g) in %s**: the measured times want no rendezvous waiting at all, "
                          "so the model's waiting term is not seen there." % (model.FIT_BOUNDS[0], " and ".join(lower)))
    if q.get("allreduce"):
        lines[-1] += " MPI_Allreduce (probe): %s." % ", ".join("%.3g ms at %s ranks" % (1e3 * v, k) for k, v in sorted(q["allreduce"].items(), key=lambda kv: int(kv[0])))
    ts = r.get("targets") or []
    if ts:
        lines += ["", "Targets evaluated on this record:", ""] + ["- %s: %s (%s)" % ("met" if t["met"] else "**missed**", t["target"], t["value"]) for t in ts]
    return "\n".join(lines)


def render_cluster(d, head):
    r = d["result"]
    m = r.get("model") or {}
    if not m or "error" in m:
        return head + "\n\nNo model in this record."
    q = m["params_cluster"]
    lines = [head, "", "Cluster: %s; network latency %.3g us, %.3g us per message and rank, %.3g us per message of a node's NIC; shared memory %.3g GB/s; %.3g ns per nonzero and core; %.0f GB/s of memory per node. "
             "Weak scaling: 2^20 rows per node; strong: 2^24 rows. Times per CG + Jacobi iteration." % (
                 q["name"], 1e6 * q["L"], 1e6 * q["o"], 1e6 * q["g_nic"], q["B_s"] / 1e9, 1e9 * q["t_nz"], q["B_mem"] / 1e9), "",
             "Columns 4-8 add each product and its exchange; the last two overlap them (basic hides its exchange behind the product, a relaying nodeaware sender only its on-node gather).", "",
             "| scaling | matrix | nodes | best layout | ms per CG iteration | 64x1 nodeaware vs basic | best layout with threads | vs 64x1 basic | overlapped: best layout | overlapped: 64x1 nodeaware vs basic |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    import model

    for s in model.cluster_summary(m["cluster"]):
        lines.append("| %s | %s | %d | %s | %.3g | %s | %s | %.2fx | %s | %s |" % (s["scaling"], s["matrix"], s["nodes"], s["best"], 1e3 * s["best_cg_it_s"],
                                                                               "%.2fx" % s["nodeaware_64x1_gain"] if s["nodeaware_64x1_gain"] else "-", s["best_hybrid"], s["hybrid_gain"],
                                                                               s.get("best_overlap", "-"), "%.2fx" % s["nodeaware_64x1_gain_overlap"] if s.get("nodeaware_64x1_gain_overlap") else "-"))
    return "\n".join(lines)


def render_slurm(d, head):
    r = d["result"]
    if "error" in r and not r.get("templates"):
        return head + "\n\nThe run did not complete: %s" % r["error"]
    lines = [head, "", "%s; nodes %s; matrices scaled by %g." % (r.get("slurm", "SLURM"), ", ".join("%s (%s)" % kv for kv in sorted((r.get("nodes") or {}).items())), r.get("scale", 0)), "",
             "| template | job | exit | record | time |", "| --- | --- | --- | --- | --- |"]
    for t, x in sorted(r.get("templates", {}).items()):
        lines.append("| `share/slurm/%s.sbatch` | %s | %d | %s | %.0f s |" % (t, x["job"] or "-", x["sbatch_exit"], ("written: " if x["ok"] else "**missing or incomplete**: ") + x["detail"], x["seconds"]))
    lines += ["", "Not exercised:", ""] + ["- " + s for s in r.get("not_exercised", [])]
    return "\n".join(lines)
