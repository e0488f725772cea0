#!/usr/bin/env python3
"""Prints a warpsim statistics file without what measures the host.

    strip_host_times.py STATS.json

The determinism tests compare two runs' statistics: every field whose name
ends in "seconds" (wall time, simulation time) differs from run to run and
is left out; the rest is printed sorted, one field per line, so that `diff`
shows what differs. A missing file prints "(no statistics)".
"""
import json
import os
import sys


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if not k.endswith("seconds")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    if not os.path.isfile(sys.argv[1]):
        print("(no statistics)")
        return
    with open(sys.argv[1]) as f:
        print(json.dumps(strip(json.load(f)), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
