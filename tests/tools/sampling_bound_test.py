#!/usr/bin/env python3
"""scripts/sampling-bound.py on hand-made power traces with known answers."""
import os
import subprocess
import sys
import tempfile

HEADER = "launch,kernel,first_cycle,end_cycle,seconds,sm_W,l2_W,noc_W,mc_W,dram_W,constant_W,total_W,warp_instructions\n"


def trace(path, launches):
    """launches: [(kernel, [instructions per 1000-cycle row])]."""
    with open(path, "w") as f:
        f.write(HEADER)
        cycle = 0
        for n, (kernel, rows) in enumerate(launches, 1):
            for instructions in rows:
                f.write(f"{n},{kernel},{cycle},{cycle + 1000},0,0,0,0,0,0,0,0,{instructions}\n")
                cycle += 1000


def main():
    script = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        # A steady IPC of 2: every extrapolation is exact.
        trace(os.path.join(d, "steady.csv"), [("k", [2000] * 10)])
        # IPC 1 for the first fifth, 2 after: both rate estimates say 18,000
        # cycles for a launch of 10,000 (+80%).
        trace(os.path.join(d, "phased.csv"), [("k", [1000, 1000] + [2000] * 8)])
        # Five launches of one kernel at IPC 2: launch-level, one simulated and
        # four estimated exactly (10,000 of 28,000 cycles). The rate estimates
        # are exact too; the 3,000- and 4,000-cycle launches have no row end
        # within their first fifth, so they count as simulated in full
        # (2,000 + 3,000 + 4,000 + 1,000 + 1,000 cycles).
        trace(os.path.join(d, "repeated.csv"), [("k", [2000] * n) for n in (10, 3, 4, 5, 6)])
        out = subprocess.run([sys.executable, script] + [os.path.join(d, n) for n in
                                                           ("steady.csv", "phased.csv", "repeated.csv")],
                             capture_output=True, text=True, check=True).stdout
    rows = {l.split("|")[1].strip(): [c.strip() for c in l.split("|")[4:7]]
            for l in out.splitlines() if l.startswith("| ") and not l.startswith("| program")}
    want = {
        "steady": ["+0.0%, 20%", "+0.0%, 20%", "+0.0%, 100%"],
        "phased": ["+80.0%, 20%", "+80.0%, 20%", "+0.0%, 100%"],
        "repeated": ["+0.0%, 39%", "+0.0%, 39%", "+0.0%, 36%"],
    }
    ok = True
    for name, cells in want.items():
        if rows.get(name) != cells:
            print(f"{name}: got {rows.get(name)}, want {cells}\n{out}")
            ok = False
    if "- so-far: 2 of 3 programs within 5%" not in out:
        print(f"summary wrong:\n{out}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
