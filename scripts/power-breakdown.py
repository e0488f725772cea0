#!/usr/bin/env python3
"""Energy breakdown of a `warpsim bench` run: per program, total energy,
average power and each component group's share (power.group.*), as a
Markdown table and a stacked-bar figure.

    scripts/power-breakdown.py BENCH_OUT_DIR [-o FIGURE.png] [--title TEXT]

Reads BENCH_OUT_DIR/results.json and each program's statistics file
(logs/<suite>_<name>.stats.json, which `warpsim bench` keeps). Programs
that did not pass, or ran without the energy model, are left out.
"""
import argparse
import json
import statistics
import sys
from pathlib import Path

GROUPS = ["sm", "l2", "noc", "mc", "dram", "constant"]


def load(out_dir):
    results = json.loads((Path(out_dir) / "results.json").read_text())
    rows = []
    for p in results["programs"]:
        if p["status"] != "pass":
            continue
        stats_file = Path(p["log"] + ".stats.json")
        if not stats_file.exists():
            continue
        power = json.loads(stats_file.read_text()).get("power", {})
        if "total_energy_J" not in power:
            continue
        total = power["total_energy_J"]
        shares = {g: power["group"][g]["energy_J"] / total if total else 0.0 for g in GROUPS}
        # The network's share of the dynamic energy (its static power left out).
        noc = power["component"]["noc"]
        noc_dynamic = sum(v for k, v in noc.items() if k != "static_J")
        dynamic = power["dynamic_energy_J"]
        rows.append(dict(program=p["program"], energy=total, watts=power["average_power_W"], shares=shares,
                         edp=power["edp_Js"], noc_dynamic=noc_dynamic / dynamic if dynamic else 0.0))
    return results, rows


def markdown(rows):
    out = ["| program | energy (mJ) | average W | " + " | ".join(f"{g} %" for g in GROUPS) +
           " | noc % of dynamic |",
           "|---|---:|---:|" + "---:|" * (len(GROUPS) + 1)]
    for r in rows:
        out.append(f"| {r['program']} | {r['energy'] * 1e3:.3f} | {r['watts']:.1f} | " +
                   " | ".join(f"{100 * r['shares'][g]:.1f}" for g in GROUPS) + f" | {100 * r['noc_dynamic']:.1f} |")
    if rows:
        mean = {g: statistics.mean(r["shares"][g] for r in rows) for g in GROUPS}
        watts = [r["watts"] for r in rows]
        out.append(f"| **mean** | | {statistics.mean(watts):.1f} | " +
                   " | ".join(f"{100 * mean[g]:.1f}" for g in GROUPS) +
                   f" | {100 * statistics.mean(r['noc_dynamic'] for r in rows):.1f} |")
        out.append("")
        out.append(f"Average power: {min(watts):.1f} to {max(watts):.1f} W over {len(rows)} programs; "
                   f"network share {100 * min(r['shares']['noc'] for r in rows):.1f}% to "
                   f"{100 * max(r['shares']['noc'] for r in rows):.1f}%, mean {100 * mean['noc']:.1f}%.")
    return "\n".join(out)


def figure(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(min(14, max(6, 0.5 * len(rows) + 3)), 4.5))
    names = [r["program"] for r in rows]
    bottom = [0.0] * len(rows)
    for g in GROUPS:
        vals = [100 * r["shares"][g] for r in rows]
        ax.bar(names, vals, bottom=bottom, label=g)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("share of energy (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    plt.setp(ax.get_xticklabels(), rotation=60 if len(rows) <= 20 else 90, ha="right",
             fontsize=8 if len(rows) <= 20 else 6)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("-o", "--figure")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    results, rows = load(args.out_dir)
    if not rows:
        sys.exit(f"{args.out_dir}: no passing program with power statistics")
    print(markdown(rows))
    if args.figure:
        figure(rows, args.figure, args.title or f"energy by component: suite {results['suite']}, config {results['config']}")


if __name__ == "__main__":
    main()
