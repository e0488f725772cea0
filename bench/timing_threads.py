#!/usr/bin/env python3
"""The speed-up curve of parallel timing simulation (timing.threads).

    bench/timing_threads.py WARPSIM WORKLOAD_BIN [--threads 1,2,4,8,16]
        [--preset small] [--config NAME] [--programs micro/vecadd-aligned,...]
        [--repeat N]

Runs each program under `warpsim run --threads T` for every T and prints,
per program and thread count, the seconds spent simulating kernels (the best
of --repeat runs), the rate in simulated thread instructions per second and
the speed-up over the first thread count. The default programs are one
compute-bound (polybench/gemm), one memory-bound (micro/vecadd-aligned) and
one of many small kernels (rodinia/gaussian, 318 launches). Exits 1 if any
program's cycles or instructions differ between thread counts: the threads
must never change the results.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_PROGRAMS = "polybench/gemm,micro/vecadd-aligned,rodinia/gaussian"


def run(warpsim, binary, preset, threads, config, stats):
    cmd = [warpsim, "run", "--quiet", "--threads", str(threads), "--stats", stats]
    if config:
        cmd += ["--config", config]
    cmd += ["--", binary, preset]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    with open(stats) as f:
        s = json.load(f)
    return (s["warpsim"]["simulation_seconds"], s["gpu_tot_sim_cycle"], s["timing"]["thread_instructions"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warpsim")
    ap.add_argument("workloads", help="the built workload suite (build/<preset>/benchmarks)")
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--preset", default="small")
    ap.add_argument("--config", default="")
    ap.add_argument("--programs", default=DEFAULT_PROGRAMS)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()

    counts = [int(t) for t in a.threads.split(",")]
    print(f"host cores: {os.cpu_count()}; preset {a.preset}; GPU {a.config or 'built-in'}")
    print(f"{'program':28} {'threads':>7} {'sim s':>8} {'M thread-inst/s':>16} {'speed-up':>9}")
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        for program in a.programs.split(","):
            binary = os.path.join(a.workloads, program)
            base, first = None, None
            for t in counts:
                runs = [run(a.warpsim, binary, a.preset, t, a.config, os.path.join(tmp, "stats.json"))
                        for _ in range(max(1, a.repeat))]
                seconds = min(r[0] for r in runs)
                result = runs[0][1:]
                if first is None:
                    first, base = result, seconds
                elif result != first:
                    print(f"  {program}: cycles/instructions {result} at {t} threads, {first} at {counts[0]}")
                    same = False
                rate = result[1] / seconds / 1e6 if seconds > 0 else 0
                print(f"{program:28} {t:7d} {seconds:8.2f} {rate:16.1f} {base / seconds:8.2f}x", flush=True)
    if not same:
        sys.exit("FAIL: results differ between thread counts")


if __name__ == "__main__":
    main()
