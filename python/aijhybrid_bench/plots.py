"""matplotlib PNGs of a run (Agg backend, no display needed).

- <name>-<matrix>-gflops.png: GF/s by variant, grouped by layout, with the STREAM ceiling of each
  layout (triad bandwidth of that job x flops per byte of the model) drawn over its group.
- <name>-<matrix>-scaling.png (two or more core counts): MatMult time and parallel efficiency
  against cores: pure-MPI aij, each aijhybrid variant at its most-threaded layout per core count,
  the ideal line from aij at the fewest cores. Here and below a variant measured as equivalent to
  another in a layout is drawn at that one's time.
- <name>-<matrix>-threads-<C>cores.png (two or more layouts with C cores: the paper's Figure 2):
  MatMult time against threads per rank at a fixed core count.
"""

import os
import re

from .config import parse_layout


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _safe(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)


def _layout_key(lay):
    r, t = parse_layout(lay)
    return (r * t, -r)


def plot_all(results, stream, outdir, name, title="", baseline="aij"):
    """Write the PNGs; returns their paths."""
    plt = _plt()
    paths = []
    mats = []
    for r in results:
        if r["matrix_key"] not in mats:
            mats.append(r["matrix_key"])
    for mk in mats:
        rs = [r for r in results if r["matrix_key"] == mk and r.get("mult_s")]
        if not rs:
            continue
        label = "%s, %d rows, %d nonzeros" % (rs[0]["matrix_label"], rs[0]["rows"], rs[0]["nnz"])
        stem = os.path.join(outdir, "%s-%s" % (name, _safe(mk.replace(":", "-"))))
        paths.append(_bars(plt, rs, stream, stem + "-gflops.png", label, title))
        # scaling and threads-per-rank lines: equivalent variants at their representative's time
        eff = [dict(r, mult_s=r["mult_s_effective"]) for r in results if r["matrix_key"] == mk and r.get("mult_s_effective")]
        p = _scaling(plt, eff, stem + "-scaling.png", label, title, baseline)
        if p:
            paths.append(p)
        paths.extend(_threads(plt, eff, stem, label, title))
    return paths


def _bars(plt, rs, stream, path, label, title):
    layouts = sorted({r["layout"] for r in rs}, key=_layout_key)
    variants = []
    for r in rs:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    cmap = plt.get_cmap("tab20")
    width = 0.8 / max(1, len(variants))
    fig, ax = plt.subplots(figsize=(max(7, 1.2 + len(layouts) * len(variants) * 0.28), 4.8))
    for j, v in enumerate(variants):
        xs, ys = [], []
        for i, lay in enumerate(layouts):
            m = [r for r in rs if r["layout"] == lay and r["variant"] == v]
            if m:
                xs.append(i - 0.4 + (j + 0.5) * width)
                ys.append(m[0]["gflops"])
        if xs:
            ax.bar(xs, ys, width=width * 0.95, label=v, color=cmap(j % 20))
    first = True
    for i, lay in enumerate(layouts):
        c = [r.get("ceiling_gflops") for r in rs if r["layout"] == lay and r.get("ceiling_gflops")]
        if c:
            ax.hlines(c[0], i - 0.45, i + 0.45, colors="k", linestyles="--", label="STREAM ceiling" if first else None)
            ax.text(i, c[0], " %.1f GB/s" % stream.get(lay, 0), ha="center", va="bottom", fontsize=7)
            first = False
    ax.set_xticks(range(len(layouts)))
    ax.set_xticklabels(["%s\n(%d cores)" % (l, _layout_key(l)[0]) for l in layouts])
    ax.set_xlabel("ranks x threads per rank")
    ax.set_ylabel("MatMult GF/s")
    ax.set_title("%s\n%s" % (title, label) if title else label, fontsize=9)
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _scaling(plt, rs, path, label, title, baseline):
    cores = sorted({r["cores"] for r in rs})
    if len(cores) < 2:
        return None
    series = {}
    mpi = {r["cores"]: r["mult_s"] for r in rs if r["variant"] == baseline and r["threads"] == 1}
    if mpi:
        series["%s (pure MPI)" % baseline] = sorted(mpi.items())
    for v in sorted({r["variant"] for r in rs if "aijhybrid" in r["type"]}):
        pts = {}
        for c in cores:
            m = [r for r in rs if r["variant"] == v and r["cores"] == c]
            if m:
                best = max(m, key=lambda r: (r["threads"], -r["mult_s"]))
                pts[c] = (best["mult_s"], best["threads"], best["status"])
        if all(st == "equivalent" for _, _, st in pts.values()):
            continue  # the same line as the variant it is equivalent to
        pts = {c: (t, th) for c, (t, th, _) in pts.items()}
        if len(pts) >= 2:
            ts = sorted({t for _, t in pts.values()})
            series["%s (%s thr/rank)" % (v, "/".join(map(str, ts)))] = sorted((c, t) for c, (t, _) in pts.items())
    if not series:
        return None
    if mpi:
        c0 = min(mpi)
        t0 = mpi[c0]
    else:
        c0, t0 = min((c, t) for s in series.values() for c, t in s)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
    mpi_name = "%s (pure MPI)" % baseline
    for name, pts in series.items():
        c, t = zip(*pts)
        style = "k-o" if name == mpi_name else "-s"
        a1.plot(c, [x * 1e3 for x in t], style, label=name, markersize=4)
        a2.plot(c, [t0 * c0 / (x * cc) for cc, x in pts], style, label=name, markersize=4)
    a1.plot(cores, [t0 * c0 / c * 1e3 for c in cores], "k:", label="ideal")
    a2.plot(cores, [1.0] * len(cores), "k:", label="ideal")
    for a in (a1, a2):
        a.set_xscale("log", base=2)
        a.set_xticks(cores)
        a.set_xticklabels([str(c) for c in cores])
        a.set_xlabel("cores")
    a1.set_yscale("log")
    a1.set_ylabel("MatMult ms")
    a2.set_ylabel("parallel efficiency vs %s at %d core(s)" % (baseline, c0))
    a2.set_ylim(bottom=0)
    a1.set_title("strong scaling: %s" % label, fontsize=9)
    a2.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _threads(plt, rs, stem, label, title):
    paths = []
    for c in sorted({r["cores"] for r in rs}):
        lays = sorted({r["layout"] for r in rs if r["cores"] == c}, key=lambda l: parse_layout(l)[1])
        if len(lays) < 2:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for v in sorted({r["variant"] for r in rs if r["cores"] == c}):
            pts = sorted((r["threads"], r["mult_s"]) for r in rs if r["cores"] == c and r["variant"] == v)
            if not pts:
                continue
            t, y = zip(*pts)
            ax.plot(t, [x * 1e3 for x in y], "-o" if len(pts) > 1 else "o", label=v, markersize=4)
        ths = sorted({parse_layout(l)[1] for l in lays})
        ax.set_xscale("log", base=2)
        ax.set_xticks(ths)
        ax.set_xticklabels(["%dx%d" % (c // t, t) for t in ths])
        ax.set_xlabel("ranks x threads per rank (%d cores)" % c)
        ax.set_ylabel("MatMult ms")
        ax.set_title("%s\n%s, %d cores" % (title, label, c) if title else "%s, %d cores" % (label, c), fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        p = "%s-threads-%dcores.png" % (stem, c)
        fig.savefig(p, dpi=110)
        plt.close(fig)
        paths.append(p)
    return paths
