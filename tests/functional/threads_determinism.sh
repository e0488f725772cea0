#!/usr/bin/env bash
# Functional mode gives the same results on any number of host threads: runs a
# suite of the workload suite at `tiny` with functional.threads = 1 (every
# CTA in order), 0 (the default: all cores for kernels whose CTAs cannot act
# on one another) and 4 (every kernel on 4 threads, racing ones too), and
# checks that each program's output and statistics are identical across the
# three, apart from host times. Prints the suite's wall time per setting.
#   threads_determinism.sh WARPSIM WORK_DIR [SUITE]   (default suite: tiny-smoke)
set -euo pipefail
warpsim=$1
work=$2
suite=${3:-tiny-smoke}
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

for t in 1 0 4; do
  start=$(date +%s%N)
  "$warpsim" bench --suite "$suite" --preset tiny --mode functional --set "functional.threads=$t" \
    --out "$work/threads-$t" > "$work/threads-$t.log" 2>&1 || { cat "$work/threads-$t.log"; fail "bench at threads=$t"; }
  echo "functional.threads=$t: $((($(date +%s%N) - start) / 1000000)) ms wall for suite $suite"
done

# Statistics without what measures the host (wall and simulation seconds).
strip_host_times() { python3 "$(dirname "$0")/../strip_host_times.py" "$1"; }

programs=0
for out in "$work"/threads-1/logs/*.out; do
  name=$(basename "$out" .out)
  programs=$((programs + 1))
  for t in 0 4; do
    cmp -s "$out" "$work/threads-$t/logs/$name.out" || fail "$name: output differs at threads=$t"
    diff <(strip_host_times "$work/threads-1/logs/$name.stats.json") \
         <(strip_host_times "$work/threads-$t/logs/$name.stats.json") > "$work/$name-$t.diff" \
      || { head -20 "$work/$name-$t.diff"; fail "$name: statistics differ at threads=$t"; }
  done
done
[ "$programs" -gt 0 ] || fail "no program ran"
echo "PASS: $programs programs, identical output and statistics at functional.threads = 1, 0 and 4"
