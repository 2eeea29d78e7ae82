"""A SNES application with GAMG in the benchmark: PETSc's own snes tutorial ex5 (the 2D Bratu problem on
a DMDA, Newton with line search, its Jacobian assembled by the application), unmodified, with the
plugin loaded by -dll_append and the matrix type chosen by -dm_mat_type, as a user would run it.

The driver (``run``) starts one MPI job per (layout, matrix type, setting) with the layout's binding
(bench/layout.py), the jobs alternating round after round; each writes PETSc's -log_view, from which
the main stage's events are read (the slowest rank's time, as -log_view prints it): SNESSolve, the
application's callbacks (SNESFunctionEval, SNESJacobianEval), which run on one thread per rank
unless the application threads them, and the solver's share: SNESSolve less the callbacks (PCSetUp,
KSPSolve and SNES's own few vector operations). PCSetUp + KSPSolve would count some setups twice:
KSPSolve's event excludes the setup KSPSolve runs before it, but not the setups made inside it (GAMG's
coarse solver factors its matrix at its first application: PCApply > PCSetUpOnBlocks > PCSetUp is
logged in both events); both events are kept in the record beside it. Settings are option strings a user would add: PETSc's defaults
(the preconditioner rebuilt at every Newton step), -snes_lag_preconditioner, and GAMG reusing its
interpolation.

The executable is built from $PETSC_DIR/share/petsc/examples/src/snes/tutorials/ex5.c by
``make snes-ex5`` (part of ``make all`` where PETSc installed its examples) into <build>/snes/ex5.
A config's "snes" section (config.DEFAULTS) turns it on; the driver runs it after the layout jobs.

Report side: ``snes_table`` (medians; the solver time at 1xT against aij at Tx1) and ``snes_targets``
(issue 27: the solver's share of SNESSolve at 1x2 >= 1.0x aij 2x1).
"""

import math
import os
import re
import subprocess
import time

from . import layout as L
from . import model

EVENTS = ("SNESSolve", "SNESFunctionEval", "SNESJacobianEval", "SNESLineSearch", "KSPSolve", "PCSetUp", "PCApply", "MatMult", "MatPtAP",
          "MatAssemblyEnd", "MatSetValues")
DEFAULT_RUNS = [["1x1", "aij"], ["1x1", "aijhybrid"], ["2x1", "aij"], ["1x2", "aijhybrid"]]
DEFAULT_SETTINGS = [
    {"label": "default", "options": ""},
    {"label": "lag-pc-2", "options": "-snes_lag_preconditioner 2"},
    {"label": "reuse-interp", "options": "-pc_gamg_reuse_interpolation"},
]


def parse_log(text, stage="Main Stage"):
    """{event: (count, max time)} of one stage of a -log_view text"""
    ev, on = {}, False
    for line in text.splitlines():
        if line.startswith("--- Event Stage"):
            on = line.strip().endswith(": " + stage)
            continue
        if on:
            m = re.match(r"^(\S.*?)\s+(\d+)\s+\d+\.\d+\s+(\d\.\d+e[+-]\d+)\s", line)
            if m:
                ev[m.group(1).strip()] = (int(m.group(2)), float(m.group(3)))
            elif ev and (line.startswith("---") or line.startswith("=")):
                break
    return ev


def executable(build):
    return os.path.join(build, "snes", "ex5")


def library(build):
    """The plugin's library the runs load with -dll_append (AIJHYBRID_LIB, else the build's)."""
    return os.environ.get("AIJHYBRID_LIB") or os.path.join(build, "lib", "libpetscaijhybrid.so")


def scaled_grid(grid, scale=1.0):
    """The grid side for the driver's --scale (rows scale with its square), at least 16."""
    return max(16, int(round(int(grid) * math.sqrt(scale))))


def run(sc, exe, lib, launcher, binding, nodes, out, log=print, launcher_args=(), oversubscribe=False, scale=1.0):
    """The jobs of the config's "snes" section sc; a list of records (one per job); scale: the
    driver's --scale, applied to the number of unknowns."""
    grid = scaled_grid(sc.get("grid", 1000), scale)
    base = ["-da_grid_x", str(grid), "-da_grid_y", str(grid), "-par", str(sc.get("par", 6.0)), "-snes_type", "newtonls", "-ksp_type", sc.get("ksp", "cg"),
            "-pc_type", "gamg", "-snes_rtol", str(sc.get("snes_rtol", 1e-8)), "-ksp_rtol", str(sc.get("ksp_rtol", 1e-6)), "-snes_error_if_not_converged"]
    combos = []
    for lay, mtype in [tuple(x) for x in sc.get("runs") or DEFAULT_RUNS]:
        for s in sc.get("settings") or DEFAULT_SETTINGS:
            combos.append((lay, mtype, s))
    recs = []
    logs = os.path.join(out, "logs", "snes")
    os.makedirs(logs, exist_ok=True)
    rounds = int(sc.get("rounds", 3))
    for r in range(rounds):
        for lay, mtype, s in model.round_order(combos, r):
            pre, env_add = L.launch(lay, launcher, binding, nodes, launcher_args, oversubscribe)
            _, T = L.parse_layout(lay)
            logfile = os.path.join(logs, "r%d-%s-%s-%s.log" % (r, lay, mtype, s["label"]))
            cmd = pre + [exe] + base + ["-dm_mat_type", mtype, "-dll_append", lib, "-log_view", ":%s" % logfile] + s["options"].split()
            if "aijhybrid" in mtype:
                cmd += ["-mat_aijhybrid_num_threads", str(T), "-dm_vec_type", sc.get("vec_type", "hybrid")]
            env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "PETSC_OPTIONS"))}
            env.update(env_add)
            t0 = time.time()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=int(sc.get("timeout", 900)))
            except subprocess.TimeoutExpired as e:
                p = subprocess.CompletedProcess(cmd, -9, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "killed after %s s" % sc.get("timeout", 900))
            wall = time.time() - t0
            rec = {"round": r, "layout": lay, "type": mtype, "setting": s["label"], "options": s["options"], "grid": grid, "rc": p.returncode, "wall_s": wall,
                   "command": cmd}
            if p.returncode != 0 or not os.path.exists(logfile):
                rec["error"] = (p.stdout + p.stderr)[-2000:]
                log("  snes %s %s %s: FAILED (exit %d)" % (lay, mtype, s["label"], p.returncode))
            else:
                ev = parse_log(open(logfile).read())
                rec["events"] = {k: {"count": ev[k][0], "time_max_s": ev[k][1]} for k in EVENTS if k in ev}
                log("  snes %s %s %s: SNESSolve %.2f s" % (lay, mtype, s["label"], ev.get("SNESSolve", (0, float("nan")))[1]))
            recs.append(rec)
    return recs


def problems(recs):
    """Failed SNES runs (dicts as aijhybrid_bench.checks lists them)."""
    return [{"kind": "snes-failed", "layout": r["layout"], "matrix": "snes-ex5", "variant": "%s %s" % (r["type"], r["setting"]),
             "detail": "exit %s: %s" % (r["rc"], (r.get("error") or "")[-300:])} for r in recs or [] if not r.get("events")]


def flatten_snes(recs):
    """One row per (layout, type, setting): medians of SNESSolve, the callbacks (function + Jacobian
    evaluation), the solver (per run SNESSolve less the callbacks: see the module's note on why not
    PCSetUp + KSPSolve), PCSetUp and KSPSolve, and the solver's ratio against aij at R x 1 (R = cores).
    On several ranks each event is its slowest rank's, so the difference is an estimate there."""
    groups = {}
    for r in recs:
        if r.get("events"):
            groups.setdefault((r["layout"], r["type"], r["setting"]), []).append(r)
    rows = []
    for (lay, mtype, setting), rs in groups.items():
        t = lambda x, name: x["events"].get(name, {}).get("time_max_s", 0.0)  # noqa: E731
        g = lambda name: model.median([t(x, name) for x in rs])  # noqa: E731
        R, T = L.parse_layout(lay)
        row = {"layout": lay, "ranks": R, "threads": T, "cores": R * T, "type": mtype, "setting": setting, "samples": len(rs),
               "snes_s": g("SNESSolve"), "pcsetup_s": g("PCSetUp"), "kspsolve_s": g("KSPSolve"), "function_s": g("SNESFunctionEval"),
               "jacobian_s": g("SNESJacobianEval"), "newton_its": rs[0]["events"].get("SNESJacobianEval", {}).get("count"),
               "pcsetups": rs[0]["events"].get("PCSetUp", {}).get("count"), "grid": rs[0].get("grid"),
               "callbacks_s": model.median([t(x, "SNESFunctionEval") + t(x, "SNESJacobianEval") for x in rs]),
               "solver_s": model.median([t(x, "SNESSolve") - t(x, "SNESFunctionEval") - t(x, "SNESJacobianEval") for x in rs])}
        rows.append(row)
    for row in rows:
        ref = [q for q in rows if q["setting"] == row["setting"] and q["type"] == "aij" and q["ranks"] == row["cores"] and q["threads"] == 1]
        row["solver_vs_aij"] = ref[0]["solver_s"] / row["solver_s"] if ref and row["solver_s"] else None
        row["snes_vs_aij"] = ref[0]["snes_s"] / row["snes_s"] if ref and row["snes_s"] else None
    return sorted(rows, key=lambda r: (r["setting"], r["cores"], -r["ranks"], r["type"]))


def _f(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


def snes_table(rows):
    """The SNES runs' table (markdown lines)."""
    out = ["| setting | layout | type | SNESSolve s | solver s (SNESSolve - callbacks) | PCSetUp s (count) | callbacks s (function + Jacobian) | solver vs aij Rx1 | SNESSolve vs aij Rx1 |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s |" % (r["setting"], r["layout"], r["type"], _f(r["snes_s"]), _f(r["solver_s"]), _f(r["pcsetup_s"]),
                                                                    r["pcsetups"], _f(r["callbacks_s"]), _f(r["solver_vs_aij"], "%.2fx"), _f(r["snes_vs_aij"], "%.2fx")))
    return out


def snes_targets(rows):
    """Issue 27's SNES target: the solver (SNESSolve less the callbacks) at 1xT >= 1.0x aij at Tx1, the
    application's callbacks beside it. The runs are separate jobs alternating, not one job: shown,
    not judged."""
    out = []
    for r in rows:
        if r["ranks"] == 1 and r["threads"] >= 2 and "aijhybrid" in r["type"] and r["solver_vs_aij"] is not None:
            out.append({"target": "27: SNES ex5 solver (SNESSolve - callbacks) 1x%d vs aij %dx1 (%s; other jobs: not judged)" % (r["threads"], r["cores"], r["setting"]), "matrix": "snes-ex5", "layout": r["layout"],
                        "value": r["solver_vs_aij"], "required": 1.0, "met": None,
                        "detail": "callbacks %.2f s beside solver %.2f s" % (r["callbacks_s"], r["solver_s"])})
    return out
