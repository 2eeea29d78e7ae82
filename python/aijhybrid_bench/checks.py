"""What makes a benchmark record fail: the checks every run of the driver applies to its own record
(and share/bench/precond.py to its record), and the renderer of the documents applies again before it
quotes a record (share/records/readme.py).

A record fails when
- a layout job failed (exit code, timeout, no output);
- a variant failed to build or to run (status "error"; "skipped" for a package this PETSc lacks and
  "equivalent" for a variant that runs the code of another are not failures);
- a product differs from the generated aij matrix's by more than the bound (``rel_diff_vs_aij``:
  relative 2-norm difference of y = A x, bound ``checks.rel_diff_max`` of the config, 1e-12 unless it
  says otherwise: the plugin sums in aij's order, other types in theirs, a few 1e-15 apart);
- a solve failed or did not converge (the CG solve of each variant, every whole solve; a method run
  for a fixed number of iterations converges by reaching it);
- a preconditioner setup failed, or the solve after it did not converge (the ``setup`` section);
- a run of the SNES application failed (the ``snes`` section).

``problems(record)`` lists them (dicts: kind, layout, matrix, variant, detail); ``text()`` writes one
line each. Pure Python: no PETSc, no MPI.
"""

DEFAULT_REL_DIFF_MAX = 1e-12


def _p(kind, detail, layout=None, matrix=None, variant=None):
    return {"kind": kind, "layout": layout, "matrix": matrix, "variant": variant, "detail": detail}


def rel_diff_max(record):
    """The bound of the record's config (checks.rel_diff_max), else the default."""
    cfg = (record.get("config") or {}).get("checks") or {}
    return float(cfg.get("rel_diff_max", DEFAULT_REL_DIFF_MAX))


def problems(record, bound=None):
    """Every failure in a record of the driver (python -m aijhybrid_bench), see the module's doc."""
    bound = rel_diff_max(record) if bound is None else bound
    out = []
    for f in record.get("failures") or []:
        out.append(_p("job-failed", "the layout job exited with %s" % f.get("rc"), layout=f.get("layout")))
    for r in record.get("results") or []:
        where = dict(layout=r.get("layout"), matrix=r.get("matrix_key") or r.get("matrix"), variant=r.get("variant"))
        if r.get("status") == "error":
            out.append(_p("variant-failed", r.get("reason") or "error", **where))
            continue
        d = r.get("rel_diff_vs_reference")
        if d is not None and not d <= bound:  # NaN fails too
            out.append(_p("wrong-result", "y = A x differs from aij's by %.3g (bound %.3g)" % (d, bound), **where))
        if r.get("solve_error"):
            out.append(_p("solve-failed", r["solve_error"], **where))
        elif r.get("cg_converged") is False:
            out.append(_p("not-converged", "the CG solve did not converge (%s iterations)" % r.get("cg_iterations"), **where))
    for s in record.get("solves") or []:
        where = dict(layout=s.get("layout"), matrix="%s:%s" % (s.get("matrix"), s.get("rows")), variant="%s/%s %s" % (s.get("variant"), s.get("vectors"), s.get("method")))
        if s.get("status") != "ok":
            out.append(_p("solve-failed", s.get("reason") or s.get("status"), **where))
        elif s.get("converged") is not True:
            out.append(_p("not-converged", "the whole solve did not converge (%s iterations)" % s.get("iterations"), **where))
    if record.get("setup"):
        from .pcsetup import problems as setup_problems

        out += [_p(x["kind"], x["detail"], layout=x["layout"], matrix=x["matrix"], variant=x["variant"]) for x in setup_problems(record["setup"])]
    if record.get("snes"):
        from .snes import problems as snes_problems

        out += [_p(x["kind"], x["detail"], layout=x["layout"], matrix=x["matrix"], variant=x["variant"]) for x in snes_problems(record["snes"].get("runs"))]
    for v in record.get("vecops") or []:
        if v.get("status") != "ok":
            out.append(_p("variant-failed", "vector operation %s: %s" % (v.get("op"), v.get("status")), layout=v.get("layout")))
    return out


def precond_problems(doc):
    """Every failure in a record of share/bench/precond.py: failed jobs, and timed solves that did not
    converge (every round of every job; none when only PCApply was timed)."""
    out = [_p("job-failed", f.get("detail") or "failed", layout=f.get("layout")) for f in doc.get("failures") or []]
    if (doc.get("args") or {}).get("pc_only"):
        return out
    for r in doc.get("samples") or doc.get("records") or []:  # every job's records; a trimmed record: the combined ones
        if r.get("pc_only"):
            continue
        reasons = (r.get("samples") or {}).get("reasons") or [x for rs in r.get("reasons_all") or [] for x in rs] or [r.get("reason")]
        for i, reason in enumerate(reasons):
            if reason is None or reason <= 0:
                out.append(_p("not-converged", "solve ended with reason %s (job round %s, inner round %d)" % (reason, r.get("round"), i),
                              layout=r.get("layout"), matrix=r.get("matrix"), variant="%s %s %s" % (r.get("solve"), r.get("ordering"), r.get("type"))))
    return out


PRODUCTS_REL_DIFF = 1e-10  # the bound on a product's values against aij's (share/bench/products.py's REL_DIFF_BOUND)


def products_problems(doc):
    """Every failure in a record of share/bench/products.py, recomputed from its samples: a product
    whose pattern differs from PETSc's aij product of the same level at the same layout, or whose
    values differ by more than PRODUCTS_REL_DIFF of the largest entry, or a sample without the check."""
    out = []
    for r in doc.get("samples") or []:
        where = dict(layout=r.get("layout"), matrix=r.get("matrix"), variant="%s %s level %s" % (r.get("type"), r.get("op"), r.get("level")))
        if "same_pattern" not in r or "rel_diff_vs_aij" not in r:
            out.append(_p("unchecked", "no comparison with aij's product", **where))
        elif not r["same_pattern"]:
            out.append(_p("wrong-result", "pattern differs from aij's", **where))
        elif r["rel_diff_vs_aij"] > PRODUCTS_REL_DIFF:
            out.append(_p("wrong-result", "values %.2e off aij's (bound %.0e)" % (r["rel_diff_vs_aij"], PRODUCTS_REL_DIFF), **where))
    return out


def text(problems_):
    """One line per problem: kind: matrix, layout, variant: detail."""
    out = []
    for p in problems_:
        where = ", ".join(str(p[k]) for k in ("matrix", "layout", "variant") if p.get(k))
        out.append("%s: %s%s" % (p["kind"], where + ": " if where else "", p["detail"]))
    return out


def refusals(doc, name=""):
    """Why the documents may not quote a benchmark record at all (empty: they may): the record's own
    failures, recomputed from its content (a record cannot hide them by leaving its problems list
    out), and a non-zero exit of the command that made it (the meta block of make records)."""
    if doc is None:
        return []
    why = []
    if "results" in doc:
        why += text(problems(doc))
    elif "records" in doc:  # share/bench/precond.py
        why += text(precond_problems(doc))
    elif "medians" in doc:  # share/bench/products.py
        why += text(products_problems(doc))
    rc = (doc.get("meta") or {}).get("exit_code")
    if rc:
        why.append("the command that made it exited with %s" % rc)
    return why
