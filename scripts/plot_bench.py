#!/usr/bin/env python3
"""Plot the CSV of `redscan bench --csv FILE`: GB/s against n, one line per algorithm, with CUB (when the run had
--compare cub), the plain C loop and OpenMP read loop (CPU devices) and the device copy measured in the same run.

    scripts/plot_bench.py bench.csv                      # -> bench.png
    scripts/plot_bench.py bench.csv -o out.png --ops reduce.sum,scan.sum --dtypes float32
    scripts/plot_bench.py cuda.csv opencl.csv -o both.png  # several runs: lines labelled by file name

One panel per (operation, dtype). GB/s counts what the bench counts: reduce, argmax, top2 n*size bytes read; scan and
copy 2*n*size (read + write). The dashed grey line is the device copy at the same n (same rotation of buffers), the
dotted one the copy peak of the run. Needs matplotlib; without it the script says so and exits with status 2.

Clocks (--clock): `device` (default) draws each row's primary GB/s, the CSV's `gbps`: device events for redscan,
CUB and the device copy where the run had them (the `timing` column says which), the host clock for the C loops;
CUB's host-clock GB/s is drawn as a thin line next to its device line. `host` draws `host_gbps` for every row: the
host clock around each blocking call, what a caller waits. CSVs from before the host columns have `gbps` only.
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict


def load(paths, clock):
    rows = []
    for path in paths:
        label = os.path.splitext(os.path.basename(path))[0] if len(paths) > 1 else ""
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                try:
                    r["n"] = int(r["n"])
                    r["gbps"] = float(r["gbps"] or 0)
                    r["host_gbps"] = float(r.get("host_gbps") or 0)
                except (KeyError, ValueError):
                    continue
                if clock == "host" and r.get("host_median_ms") is not None:
                    r["gbps"] = r["host_gbps"]
                r["run"] = label
                rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="CSV file(s) written by redscan bench --csv")
    ap.add_argument("-o", "--output", help="PNG to write (default: the first CSV's name with .png)")
    ap.add_argument("--ops", help="comma-separated operations to draw, e.g. reduce.sum,scan.sum,argmax")
    ap.add_argument("--dtypes", help="comma-separated dtypes to draw, e.g. float32,int32")
    ap.add_argument("--linear", action="store_true", help="linear GB/s axis (default: logarithmic)")
    ap.add_argument("--clock", choices=("device", "host"), default="device",
                    help="device: each row's primary GB/s (device events where measured); host: host-clock GB/s")
    args = ap.parse_args()

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: matplotlib is not installed (pip install matplotlib, or apt-get install "
              "python3-matplotlib); the CSV itself has every number", file=sys.stderr)
        return 2

    rows = load(args.csv, args.clock)
    ops = set(args.ops.split(",")) if args.ops else None
    dtypes = set(args.dtypes.split(",")) if args.dtypes else None

    # panels: (op, dtype) of redscan's own rows
    panels = []
    for r in rows:
        if r["kind"] != "ours" or r["op"] == "*":
            continue
        key = (r["op"], r["dtype"])
        if (ops and r["op"] not in ops) or (dtypes and r["dtype"] not in dtypes) or key in panels:
            continue
        panels.append(key)
    if not panels:
        print("plot_bench.py: no rows to draw (check --ops / --dtypes against the CSV)", file=sys.stderr)
        return 1

    def series(pred):
        """{label: [(n, gbps)]} over rows matching pred, passing rows with a time only."""
        out = defaultdict(list)
        for r in rows:
            if pred(r) and r["gbps"] > 0 and r["check"] in ("pass", "ref"):
                algo = "redscan" if r["algo"] == "-" else r["algo"]
                label = algo + (" [" + r["run"] + "]" if r["run"] else "")
                out[label].append((r["n"], r["gbps"]))
        return {k: sorted(v) for k, v in out.items()}

    peaks = defaultdict(float)
    for r in rows:
        if r["op"] == "copy_peak" and r["gbps"] > 0:
            label = r["algo"] + (" [" + r["run"] + "]" if r["run"] else "")
            peaks[label] = max(peaks[label], r["gbps"])

    ncols = 2 if len(panels) > 1 else 1
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(7.5 * ncols, 4.8 * nrows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)

    for ax, (op, dtype) in zip(axes.flat, panels):
        ours = series(lambda r: r["kind"] == "ours" and r["op"] == op and r["dtype"] == dtype)
        for label, pts in sorted(ours.items()):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, lw=1.2, label=label)
        refs = series(lambda r: r["kind"] == "ref" and r["op"] == op and r["dtype"] == dtype)
        if args.clock == "device":  # CUB's host clock next to its events (what cub_hostclk rows were)
            for label, pts in list(refs.items()):
                if label.startswith("cub") and "hostclk" not in label:
                    host = sorted((r["n"], r["host_gbps"]) for r in rows
                                  if r["kind"] == "ref" and r["op"] == op and r["dtype"] == dtype
                                  and r["algo"] == "cub" and r["host_gbps"] > 0 and r["check"] == "pass"
                                  and label == "cub" + (" [" + r["run"] + "]" if r["run"] else ""))
                    if host:
                        refs[label.replace("cub", "cub host clock", 1)] = host
        for label, pts in sorted(refs.items()):
            style = dict(color="black", lw=2.4) if label.startswith("cub") else dict(color="dimgray", lw=1.6)
            if "hostclk" in label or "host clock" in label or "8acc" in label:
                style.update(lw=1.0, alpha=0.6)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="s", ms=3, ls="-.", label=label, **style)
        # the ceilings: the device copy at the same n, the OpenMP read loop, the run's copy peak
        ceil = series(lambda r: r["kind"] == "ref" and r["op"] in ("copy", "read") and r["dtype"] == dtype)
        for label, pts in sorted(ceil.items()):
            host = label.startswith("omp_")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color="silver" if host else "gray",
                    ls=":" if "read" in label else "--", lw=1.0,
                    label=label + (" (read)" if "read" in label else " (copy, read+write)"))
        for label, g in sorted(peaks.items()):
            ax.axhline(g, color="gray", ls=":", lw=1.0)
            ax.annotate(f"copy peak {g:.0f} GB/s ({label})", xy=(0.01, g), xycoords=("axes fraction", "data"),
                        fontsize=7, color="gray", va="bottom")
        ax.set_xscale("log", base=2)
        if not args.linear:
            ax.set_yscale("log")
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s" + (" (read + write)" if op.startswith(("scan", "exscan")) else " (read)"))
        ax.set_title(f"{op} {dtype}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2, loc="lower right")

    out = args.output or os.path.splitext(args.csv[0])[0] + ".png"
    fig.suptitle("redscan bench: " + ", ".join(os.path.basename(p) for p in args.csv) + f" ({args.clock} clock)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"plot_bench.py: wrote {out} ({len(panels)} panel{'s' if len(panels) != 1 else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
