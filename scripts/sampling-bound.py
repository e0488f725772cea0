#!/usr/bin/env python3
"""What the first part of each launch says about the whole: rate extrapolations from power traces.

    scripts/sampling-bound.py TRACE.csv [TRACE.csv ...] [--fraction F] [--max-error PCT]
        [--bench DIR]

Each TRACE.csv is one program's `warpsim run --power-trace` of a full timing run (a short
`--set power.trace_interval=N`, such as 100, resolves short launches); the program is named
by the file's stem. For each launch the script takes the trace up to the fraction F of its
cycles (default 0.2: what a sampled run 5x faster could simulate) and extrapolates the
launch's cycles from the instructions it issued in all (known from the functional executor
in a sampled run) in three ways:

  so-far    at the IPC from the launch's start to F
  recent    at the IPC from F/2 to F, after the time already simulated
  launches  every round(1/F)-th launch of a kernel simulated in full, the others at the IPC
            of the kernel's last simulated launch (launch-level sampling)

Launches shorter than 2,000 cycles count as simulated in full by the first two. It prints,
per program, the error of each estimate against the trace's own cycles and the simulated
fraction of cycles, then how many programs each estimate brings within --max-error (default
5%). With --bench DIR (a `warpsim bench --out` directory of the same full runs, whose
program suite/name goes with the trace suite_name.csv), it also counts the programs with
more than 100 CTAs per launch, with the geometric mean of their full cycles over simulated
ones (the speed-up a sampled run could have at most). It is a bound on the simplest extrapolations, not on every possible one: an estimate
that misses by far here has to learn from something other than the IPC so far.
"""
import argparse
import bisect
import csv
import json
import math
import os
import sys
from collections import defaultdict

SHORT = 2000  # cycles: launches shorter than this are simulated in full


def read_trace(path):
    """Launches in order: (kernel, cycles, instructions, [(cycle, instructions so far)])."""
    launches = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if "warp_instructions" not in row:
                raise SystemExit(f"{path}: no warp_instructions column (a trace from an older warpsim)")
            key = int(row["launch"])
            if key not in launches:
                launches[key] = [row["kernel"], int(row["first_cycle"]), 0, [(0, 0)]]
            l = launches[key]
            l[2] += int(row["warp_instructions"])
            l[3].append((int(row["end_cycle"]) - l[1], l[2]))
    return [(k, p[-1][0], i, p) for k, _, i, p in (launches[n] for n in sorted(launches))]


def so_far(points, t):
    """The last point at or before cycle t."""
    k = bisect.bisect_right([c for c, _ in points], t) - 1
    return points[max(k, 0)]


def rate_estimate(launch, fraction, recent):
    """(estimated cycles, simulated cycles) of one launch stopped at `fraction` of it."""
    _, cycles, instructions, points = launch
    if fraction >= 1 or cycles < SHORT:
        return cycles, cycles
    t, i = so_far(points, fraction * cycles)
    if t <= 0 or i <= 0:
        return cycles, cycles
    if not recent:
        return t * instructions / i, t
    th, ih = so_far(points, t / 2)
    if t <= th or i <= ih:
        return cycles, cycles
    return t + (instructions - i) * (t - th) / (i - ih), t


def launches_estimate(launches, fraction):
    every = max(1, round(1 / fraction))
    seen = defaultdict(int)
    ipc = {}
    estimate = simulated = 0.0
    for kernel, cycles, instructions, _ in launches:
        if seen[kernel] % every == 0 or kernel not in ipc or ipc[kernel] <= 0:
            estimate += cycles
            simulated += cycles
            ipc[kernel] = instructions / cycles if cycles else 0.0
        else:
            estimate += instructions / ipc[kernel]
        seen[kernel] += 1
    return estimate, simulated


def ctas_per_launch(bench):
    """program -> CTAs per launch, from a bench directory's statistics files."""
    with open(os.path.join(bench, "results.json")) as f:
        rows = json.load(f)["programs"]
    out = {}
    for r in rows:
        try:
            with open(r["log"] + ".stats.json") as f:
                stats = json.load(f)
            out[r["program"]] = stats["gpu_tot_ctas"] / max(1, stats["runtime"]["kernels_launched"])
        except (OSError, KeyError, ValueError):
            pass
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--fraction", type=float, default=0.2, help="of each launch's cycles, 0 to 1")
    ap.add_argument("--max-error", type=float, default=5.0, help="percent")
    ap.add_argument("--bench", help="bench directory of the full runs, for CTAs per launch")
    a = ap.parse_args()
    if not 0 < a.fraction <= 1:
        ap.error("--fraction must be in (0, 1]")
    ctas = ctas_per_launch(a.bench) if a.bench else {}

    names = ("so-far", "recent", "launches")
    within = dict.fromkeys(names, 0)
    big_within = dict.fromkeys(names, 0)
    big_log_speedup = dict.fromkeys(names, 0.0)
    big = 0
    print("| program | launches | cycles | " + " | ".join(f"{n}: error, simulated" for n in names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    programs = 0
    for path in a.traces:
        launches = read_trace(path)
        cycles = sum(l[1] for l in launches)
        if cycles == 0:
            continue
        programs += 1
        name = os.path.splitext(os.path.basename(path))[0]
        is_big = ctas.get(name.replace("_", "/", 1), 0) > 100
        big += is_big
        cells = []
        for n in names:
            if n == "launches":
                est, sim = launches_estimate(launches, a.fraction)
            else:
                parts = [rate_estimate(l, a.fraction, n == "recent") for l in launches]
                est, sim = sum(p[0] for p in parts), sum(p[1] for p in parts)
            err = 100.0 * (est - cycles) / cycles
            ok = abs(err) <= a.max_error
            within[n] += ok
            if is_big:
                big_within[n] += ok
                big_log_speedup[n] += math.log(cycles / max(sim, 1.0))
            cells.append(f"{err:+.1f}%, {100.0 * sim / cycles:.0f}%")
        print(f"| {name} | {len(launches)} | {cycles} | " + " | ".join(cells) + " |")
    print()
    for n in names:
        line = f"- {n}: {within[n]} of {programs} programs within {a.max_error:g}%"
        if big:
            line += (f"; of the {big} with more than 100 CTAs per launch, {big_within[n]}, "
                     f"at most {math.exp(big_log_speedup[n] / big):.2f}x faster (geomean)")
        print(line)
    return 0 if programs else 1


if __name__ == "__main__":
    sys.exit(main())
