#!/usr/bin/env bash
# warpsim next to GPGPU-Sim 4.2 on the same binaries (docs/fidelity.md): runs
# the workloads of tests/fidelity/gpgpusim-4.2-*.csv at `tiny` on gtx480 and
# v100, joins them with GPGPU-Sim's cycles with `warpsim correlate`, and
# checks every program's simulated time against GPGPU-Sim's: within 30% on
# gtx480 (before Fermi's hashed L1 set index polybench/atax took 7.7x, before
# its issue interval hotspot and pathfinder were 37% and 42% faster), within
# 45% on v100 (whose latency-bound programs are 34-38% faster by the two
# configurations' clocks; before the unsectored L1I they were 46-75% slower).
#   gpgpusim_test.sh WARPSIM BENCHMARKS_DIR WORK_DIR
set -euo pipefail
warpsim=$1
bench=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

compare() {  # compare CONFIG FIXTURE BOUND: |simulated / measured - 1| < BOUND
  local config=$1 fixture=$2 bound=$3
  mkdir -p "$work/$config"
  for program in $(tail -n +2 "$fixture" | cut -d, -f1); do
    "$warpsim" run --config "$config" --stats "$work/$config/${program//\//-}.json" -- "$bench/$program" tiny \
      > "$work/$config/${program//\//-}.log" 2>&1 || { cat "$work/$config/${program//\//-}.log"; fail "$program on $config"; }
  done
  "$warpsim" correlate "$fixture" "$work/$config" --label GPGPU-Sim -o "$work/$config-correlation" \
    --title "warpsim $config vs GPGPU-Sim 4.2, tiny" > "$work/$config-correlation.txt" 2>&1 \
    || { cat "$work/$config-correlation.txt"; fail "correlate $config"; }
  cat "$work/$config-correlation.txt"
  local expected actual
  expected=$(($(wc -l < "$fixture") - 1))
  actual=$(($(wc -l < "$work/$config-correlation/pairs.csv") - 1))
  [ "$actual" = "$expected" ] || fail "$config: $actual pairs, expected $expected"
  [ -s "$work/$config-correlation/correlation.png" ] || fail "$config: no plot"
  # error = simulated / measured - 1.
  awk -F, -v c="$config" -v b="$bound" 'NR > 1 && ($7 + 0 <= -b || $7 + 0 >= b) { print "FAIL: " c " " $1 ": error " $7; bad = 1 }
                          END { exit bad }' "$work/$config-correlation/pairs.csv" >&2
}

compare gtx480 "$here/gpgpusim-4.2-gtx480-tiny.csv" 0.30
compare v100 "$here/gpgpusim-4.2-qv100-tiny.csv" 0.45
echo "PASS"
