#!/usr/bin/env python3
"""Sampled simulation next to the full one: cycles and speed per program.

    scripts/sample-accuracy.py FULL_DIR SAMPLED_DIR [--markdown FILE]
        [--max-error PCT --min-within FRACTION]

FULL_DIR and SAMPLED_DIR are `warpsim bench --out` directories of the same
suite and preset, the second run with `--set timing.sample=true`. Prints one
row per program that passed in both: launches, CTAs per launch, cycles of
each run, the sampled run's error and 95% interval, the simulation seconds of
each and the speed-up. The summary counts the programs within --max-error
(default 5%) and gives the speed-up on the programs with more than 100 CTAs
per launch. With --min-within, exits 1 when fewer programs than that
fraction are within --max-error (a check for tests).
"""
import argparse
import json
import math
import os
import sys


def load(directory):
    with open(os.path.join(directory, "results.json")) as f:
        doc = json.load(f)
    return {r["program"]: r for r in doc["programs"]}


def stats(row):
    try:
        with open(row["log"] + ".stats.json") as f:
            return json.load(f)
    except (OSError, KeyError, ValueError):
        return {}


def number(doc, key):
    """A statistic by its dotted name (the JSON nests at the dots)."""
    v = doc
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v:
            return 0.0
        v = v[part]
    return float(v) if isinstance(v, (int, float)) else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("full")
    ap.add_argument("sampled")
    ap.add_argument("--markdown")
    ap.add_argument("--max-error", type=float, default=5.0, help="percent")
    ap.add_argument("--min-within", type=float, help="fraction of programs that must be within --max-error")
    a = ap.parse_args()

    full, part = load(a.full), load(a.sampled)
    lines = ["| program | launches | CTAs/launch | sampled launches | cycles (full) | cycles (sampled) "
             "| error | 95% interval | sim s (full) | sim s (sampled) | speed-up |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    errors, big_speedups, all_speedups = [], [], []
    for program in sorted(full):
        f, p = full[program], part.get(program)
        if p is None or f.get("status") != "pass" or p.get("status") != "pass":
            lines.append(f"| {program} | not compared: {f.get('status')} / {p.get('status') if p else 'missing'} "
                         "| | | | | | | | | |")
            continue
        sf, sp = stats(f), stats(p)
        launches = number(sf, "runtime.kernels_launched") or 1
        ctas = number(sf, "gpu_tot_ctas") / launches
        cf, cp = float(f["cycles"]), float(p["cycles"])
        err = 100.0 * (cp - cf) / cf if cf else 0.0
        ci = number(sp, "timing.sampled_cycles_ci95")
        sampled = int(number(sp, "timing.sampled_launches"))
        tf, tp = float(f["simulation_seconds"]), float(p["simulation_seconds"])
        speedup = tf / tp if tp > 0 else float("nan")
        errors.append(abs(err))
        all_speedups.append(speedup)
        if ctas > 100:
            big_speedups.append((program, speedup))
        lines.append(f"| {program} | {int(launches)} | {ctas:.0f} | {sampled} | {cf:.0f} | {cp:.0f} | {err:+.1f}% "
                     f"| +-{100.0 * ci / cp if cp else 0:.1f}% | {tf:.2f} | {tp:.2f} | {speedup:.1f}x |")

    def geomean(xs):
        xs = [x for x in xs if x > 0 and not math.isnan(x)]
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    within = sum(1 for e in errors if e <= a.max_error)
    summary = [
        f"programs compared: {len(errors)}",
        f"within {a.max_error:g}% of the full run's cycles: {within} ({100.0 * within / max(1, len(errors)):.0f}%)",
        f"mean absolute error {sum(errors) / max(1, len(errors)):.2f}%, largest {max(errors, default=0):.1f}%",
        f"speed-up (simulation seconds), all programs: geomean {geomean(all_speedups):.2f}x",
        f"programs with more than 100 CTAs per launch: {len(big_speedups)}, geomean speed-up "
        f"{geomean([s for _, s in big_speedups]):.2f}x, at least 5x: "
        f"{sum(1 for _, s in big_speedups if s >= 5)}",
    ]
    text = "\n".join(lines) + "\n\n" + "\n".join("- " + s for s in summary) + "\n"
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.min_within is not None and within < a.min_within * len(errors):
        print(f"FAIL: {within} of {len(errors)} programs within {a.max_error:g}%", file=sys.stderr)
        return 1
    if not errors:
        print("FAIL: no program passed in both runs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
