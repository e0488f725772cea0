#!/usr/bin/env python3
"""Average power of a `warpsim bench` run next to measured power: a table
with the ratio per program, the mean absolute percentage error, Pearson's
correlation, and a scatter plot with the y = x line.

    scripts/power-compare.py BENCH_OUT_DIR MEASURED.csv [-o FIGURE.png] [--title TEXT]

MEASURED.csv has the columns program,measured_W (lines starting with '#'
are comments; docs/data/accelwattch-v100-power.csv is one). The simulated
figure is each program's power.average_power_W (its kernels' time).
"""
import argparse
import csv
import json
import math
import statistics
import sys
from pathlib import Path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("measured")
    ap.add_argument("-o", "--figure")
    ap.add_argument("--title", default="average power: warpsim against measured")
    args = ap.parse_args()
    results = json.loads((Path(args.out_dir) / "results.json").read_text())
    simulated = {p["program"]: p.get("average_power_W") for p in results["programs"] if p["status"] == "pass"}
    with open(args.measured) as f:
        measured = {r["program"]: float(r["measured_W"])
                    for r in csv.DictReader(line for line in f if not line.startswith("#"))}
    pairs = [(p, simulated[p], m) for p, m in measured.items() if simulated.get(p)]
    if len(pairs) < 2:
        sys.exit("fewer than two programs in both")
    print("| program | warpsim W | measured W | warpsim / measured |")
    print("|---|---:|---:|---:|")
    for p, s, m in pairs:
        print(f"| {p} | {s:.1f} | {m:.1f} | {s / m:.2f} |")
    sims, meas = [s for _, s, _ in pairs], [m for _, _, m in pairs]
    mape = 100 * statistics.mean(abs(s - m) / m for s, m in zip(sims, meas))
    r = statistics.correlation(sims, meas)
    print(f"\n{len(pairs)} programs: warpsim {min(sims):.1f} to {max(sims):.1f} W, measured {min(meas):.1f} to "
          f"{max(meas):.1f} W; mean absolute percentage error {mape:.1f}%, Pearson correlation {r:.2f}.")
    if args.figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5.5, 5))
        ax.scatter(meas, sims)
        for p, s, m in pairs:
            ax.annotate(p.split("/")[-1], (m, s), fontsize=7, xytext=(3, 3), textcoords="offset points")
        lo = 0.8 * min(sims + meas)
        hi = 1.1 * max(sims + meas)
        ax.plot([lo, hi], [lo, hi], "k--", linewidth=1, label="y = x")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("measured average power (W)")
        ax.set_ylabel("warpsim average power (W)")
        ax.set_title(args.title, fontsize=10)
        ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(args.figure, dpi=120)


if __name__ == "__main__":
    main()
