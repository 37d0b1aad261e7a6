#!/usr/bin/env python3
"""Plot porter-bench results: bars per workload and path, lines for the stage sweep.

usage: plot.py RESULTS_DIR   (reads RESULTS_DIR/results.csv and, if present, results.json;
                              writes RESULTS_DIR/bars_<workload>.png and sweep_<workload>.png)

Bars: every implementation of a workload at its default stage count (and the best stage of each
porter path), as a ratio to the ceiling of its kind (cudaMemcpy D2D for bandwidth, cuBLAS for
sgemm and smallgemm; the Triton and torch peers' rows with them), annotated with the absolute rate. Lines: rate against stage count, one line
per path and per hand-written pipeline; the stage porter's planner recommends is marked.
"""
import csv
import json
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # pragma: no cover - told to the user
    sys.stderr.write(
        "plot.py: matplotlib is not installed for %s.\n"
        "  Debian/Ubuntu: apt-get install python3-matplotlib (then run /usr/bin/python3 bench/plot.py DIR)\n"
        "  pip: python3 -m pip install matplotlib\n" % sys.executable
    )
    sys.exit(3)

COLORS = {
    "porter/tma": "#1f77b4",
    "porter/cp_async": "#ff7f0e",
    "porter/staged": "#2ca02c",
    "manual/cp_async": "#d62728",
    "manual/tma": "#17becf",
    "manual-cuda-pipeline/cp_async": "#e377c2",
    "cub": "#393b79",
    "memcpy": "#7f7f7f",
    "copy-kernel": "#bcbd22",
    "cublas": "#7f7f7f",
    "kokkos-range": "#9467bd",
    "kokkos-mdrange": "#9467bd",
    "kokkos-team": "#8c564b",
    "triton": "#e7298a",
    "torch": "#66a61e",
    "torch-copy": "#a6761d",
}


def read_rows(path):
    meta, lines = {}, []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                k, _, v = line[1:].partition(":")
                meta[k.strip()] = v.strip()
            else:
                lines.append(line)
    rows = list(csv.DictReader(lines))
    for r in rows:
        for k in ("stages", "sweep_only"):
            r[k] = int(r[k] or 0)
        for k in ("rate", "ratio", "ms_median"):
            try:
                r[k] = float(r[k])
            except (TypeError, ValueError):
                r[k] = float("nan")
    return meta, rows


def label(r):
    return r["impl"] + ("/" + r["path"] if r["path"] not in ("-", "") else "")


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = argv[1]
    meta, rows = read_rows(os.path.join(out, "results.csv"))
    planner = []
    jpath = os.path.join(out, "results.json")
    if os.path.exists(jpath):
        with open(jpath) as f:
            planner = json.load(f).get("planner", [])
    device = meta.get("device", "no GPU")
    groups = []
    for r in rows:
        g = (r["workload"], r["size"])
        if g not in groups:
            groups.append(g)
    written = []
    for workload, size in groups:
        grp = [r for r in rows if (r["workload"], r["size"]) == (workload, size) and r["status"] == "ok"]
        if not grp:
            continue
        unit = grp[0]["unit"]
        ceiling = next((r["ceiling"] for r in grp if r["ceiling"]), "")
        # ---- bars: default-stage rows and the best stage of each pipelined implementation ----
        bars = [r for r in grp if not r["sweep_only"]]
        for impl in sorted({label(r) for r in grp if r["stages"] > 0}):
            cand = [r for r in grp if label(r) == impl]
            best = max(cand, key=lambda r: r["rate"])
            if best["sweep_only"] or all(b is not best for b in bars):
                bars.append(dict(best, _best=True))
        names = [label(r) + (" S=%d" % r["stages"] if r["stages"] else "") + (" (best)" if r.get("_best") else "") for r in bars]
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(bars) + 2), 4.5))
        xs = range(len(bars))
        ax.bar(xs, [r["ratio"] for r in bars], color=[COLORS.get(label(r), "#17becf") for r in bars])
        for x, r in zip(xs, bars):
            ax.text(x, r["ratio"], "%.0f" % r["rate"] if unit == "GB/s" else "%.1f" % r["rate"], ha="center", va="bottom", fontsize=8)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(names, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel("ratio to %s (labels: %s)" % (ceiling, unit))
        ax.set_title("%s %s on %s" % (workload, size, device), fontsize=10)
        fig.tight_layout()
        name = "bars_%s_%s.png" % (workload, size.split()[0].replace("^", "p"))
        fig.savefig(os.path.join(out, name), dpi=120)
        plt.close(fig)
        written.append(name)
        # ---- lines: the stage sweep ----
        sweep = [r for r in grp if r["stages"] > 0]
        impls = sorted({label(r) for r in sweep})
        if not impls or len({r["stages"] for r in sweep}) < 2:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for impl in impls:
            pts = sorted((r["stages"], r["rate"]) for r in sweep if label(r) == impl)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=impl, color=COLORS.get(impl))
            path = impl.split("/")[1] if impl.startswith("porter/") else None
            for p in planner:
                if path and p["path"] == path and p["workload"] == "%s %s" % (workload, size):
                    y = next((v for s, v in pts if s == p["planned_stages"]), None)
                    if y is not None:
                        ax.plot([p["planned_stages"]], [y], marker="*", markersize=16, color=COLORS.get(impl), markeredgecolor="black")
        ax.set_xlabel("pipeline stages (star: the planner's choice)")
        ax.set_ylabel(unit)
        ax.set_xticks(range(1, 9))
        ax.set_title("stage sweep: %s %s on %s" % (workload, size, device), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        name = "sweep_%s_%s.png" % (workload, size.split()[0].replace("^", "p"))
        fig.savefig(os.path.join(out, name), dpi=120)
        plt.close(fig)
        written.append(name)
    print("plot.py: wrote %s" % (", ".join(written) if written else "nothing (no measured rows)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
