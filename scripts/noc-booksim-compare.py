#!/usr/bin/env python3
"""warpsim's flit-level mesh side by side with BookSim 2 on the same networks.

Runs `warpsim noc run` on each case below with the router, buffers,
allocators, packet sizes, traffic and rates of the BookSim 2 runs, and prints
a Markdown table: zero-load latency (packet latency at the lowest rate) and
saturation throughput (accepted flits/node/cycle at the last rate whose
latency is at most 3x the zero-load latency and which is stable), ours next
to BookSim's. At the lowest rate each simulator samples a few hundred
packets, whose mean hop count (routers passed) differs by chance: the table
also gives warpsim's zero-load latency at BookSim's sample's hop count (its
own latency plus the per-hop latency times the difference in mean hops),
which is the like-for-like figure; both simulators' per-packet latency is
exactly per_hop x hops + constant on these networks.

The BookSim column was measured with BookSim 2 (Jiang et al., ISPASS 2013;
github.com/booksim/booksim2 at commit 28f43299, built with its own Makefile,
seed 0, 3 x 5,000 warm-up cycles, 5,000-cycle sample periods, at most 20,
latency threshold 500): router iq, dor routing (XY), iSLIP VC and switch
allocation with 1 iteration, routing/VC-alloc/switch-alloc/switch delays of 1
unless the case says otherwise, 1-cycle channels, Bernoulli injection,
uniform destinations including the source. warpsim measures the same way
(docs/noc-traffic.md).

Usage: scripts/noc-booksim-compare.py [--warpsim PATH] [--cases a1,b,...] [--json-dir DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

MESH = ["--set", "interconnect.topology=mesh", "--set", "interconnect.router.subnets=physical"]


def mesh(k, vcs, buf, extra=()):
    return MESH + ["--nodes", str(k * k), "--set", f"interconnect.mesh.columns={k}",
                   "--set", f"interconnect.mesh.rows={k}", "--set", f"interconnect.router.vcs={vcs}",
                   "--set", f"interconnect.router.vc_buffer_flits={buf}"] + list(extra)


# name: (description, warpsim arguments, rates, BookSim zero-load, BookSim saturation throughput,
#        BookSim's mean hop count at the lowest rate, the per-hop latency both share)
CASES = {
    "a1": ("8x8, 2 VC x 4, P=1, uniform", mesh(8, 2, 4) + ["--packet-flits", "1"],
           [0.001, 0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.22, 0.24, 0.26, 0.28, 0.3], 33.19, 0.2599, 6.24, 5),
    "a2": ("8x8, 2 VC x 4, P=5, uniform", mesh(8, 2, 4) + ["--packet-flits", "5"],
           [0.001, 0.005, 0.01, 0.02, 0.03, 0.04, 0.045, 0.05, 0.055, 0.06, 0.065], 38.08, 0.2765, 6.2, 5),
    "a3": ("8x8, 2 VC x 4, P={1,5}, uniform", mesh(8, 2, 4) + ["--packet-flits", "mixed"],
           [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.07, 0.08, 0.085, 0.09, 0.095, 0.1], 35.77, 0.2703, 6.26, 5),
    "b": ("8x8, 8 VC x 8, P=5, uniform", mesh(8, 8, 8) + ["--packet-flits", "5"],
          [0.001, 0.005, 0.01, 0.02, 0.04, 0.05, 0.06, 0.065, 0.07, 0.075, 0.08, 0.09], 37.22, 0.4012, 6.23, 5),
    "c1": ("6x6, 2 VC x 8, P=1, uniform", mesh(6, 2, 8) + ["--packet-flits", "1"],
           [0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.35, 0.4, 0.43], 26.25, 0.3496, 4.85, 5),
    "c2": ("6x6, 2 VC x 8, P=5, uniform", mesh(6, 2, 8) + ["--packet-flits", "5"],
           [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.07, 0.08, 0.085, 0.09, 0.1, 0.11], 30.27, 0.4517, 4.85, 5),
    "d1": ("8x8, 2 VC x 4, P=5, transpose", mesh(8, 2, 4) + ["--packet-flits", "5", "--traffic", "transpose"],
           [0.001, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035], 37.10, 0.1248, 6.01, 5),
    "d2": ("8x8, 2 VC x 4, P=5, all to node 27", mesh(8, 2, 4) + ["--packet-flits", "5", "--traffic", "hotspot",
                                                                  "--hotspot", "27"],
           [0.0005, 0.001, 0.0015, 0.002, 0.0025, 0.0028, 0.003, 0.0031, 0.0033], 32.98, 0.0149, 5.06, 5),
    "d3": ("8x8, 2 VC x 4, P=5, 20% to node 27", mesh(8, 2, 4) + ["--packet-flits", "5", "--traffic", "hotspot",
                                                                  "--hotspot", "27:16,*:1"],
           [0.001, 0.005, 0.008, 0.01, 0.012, 0.013, 0.014, 0.015, 0.016], 37.51, 0.0698, 6.08, 5),
    "e": ("8x8, 2 VC x 4, P=1, 2-cycle router (routing 0, speculative)",
          mesh(8, 2, 4, ["--set", "interconnect.router.routing_delay=0", "--set",
                         "interconnect.router.speculative=true"]) + ["--packet-flits", "1"],
          [0.001, 0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.32, 0.34, 0.36, 0.4], 20.71, 0.3598, 6.24, 3),
}


def saturation(points):
    """Zero-load latency and the saturation throughput by BookSim's rule."""
    zero = points[0]["packet_latency"]
    last = None
    for p in points:
        if not p["stable"] or p["packet_latency"] > 3 * zero:
            break
        last = p
    return zero, (last["accepted"] if last else None), (last["rate"] if last else None)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warpsim", default=os.path.join(here, "..", "build", "default", "tools", "warpsim"))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--json-dir", default=None, help="keep each case's `noc run --json` output here")
    args = ap.parse_args()
    out_dir = args.json_dir or tempfile.mkdtemp(prefix="noc-booksim-")
    os.makedirs(out_dir, exist_ok=True)
    print("| case | network and traffic | zero-load latency, BookSim (hops) | warpsim (hops) "
          "| warpsim at BookSim's hops | difference | saturation throughput, BookSim | warpsim | difference |")
    print("|---|---|---|---|---|---|---|---|---|")
    worst = (0.0, 0.0)
    for name in args.cases.split(","):
        desc, argv, rates, bs_zero, bs_sat, bs_hops, per_hop = CASES[name]
        path = os.path.join(out_dir, f"{name}.json")
        cmd = [args.warpsim, "noc", "run", *argv, "--sweep", ",".join(str(r) for r in rates), "--json", path]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            points = json.load(f)["points"]
        zero, sat, rate = saturation(points)
        hops = points[0]["hops"]
        like = zero + per_hop * (bs_hops - hops)
        dz = (like - bs_zero) / bs_zero * 100
        ds = (sat - bs_sat) / bs_sat * 100 if sat else float("nan")
        worst = (max(worst[0], abs(dz)), max(worst[1], abs(ds)))
        print(f"| {name} | {desc} | {bs_zero:.2f} ({bs_hops:.2f}) | {zero:.2f} ({hops:.2f}) | {like:.2f} | {dz:+.1f}% "
              f"| {bs_sat:.4f} | "
              f"{sat:.4f} (at {rate}) | {ds:+.1f}% |", flush=True)
    print(f"\nlargest difference: zero-load {worst[0]:.1f}%, saturation throughput {worst[1]:.1f}%")
    return 0 if worst[0] <= 2.0 and worst[1] <= 10.0 else 1


if __name__ == "__main__":
    sys.exit(main())
