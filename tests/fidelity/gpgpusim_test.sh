#!/usr/bin/env bash
# warpsim next to GPGPU-Sim 4.2 on the same binaries (docs/fidelity.md): runs
# the workloads of tests/fidelity/gpgpusim-4.2-*.csv at `tiny` on gtx480 and
# v100, joins them with GPGPU-Sim's cycles with `warpsim correlate`, and
# checks that every program's simulated time is within a factor of two of
# GPGPU-Sim's (polybench/atax was 7.7x before the L1's hashed set index).
#   gpgpusim_test.sh WARPSIM BENCHMARKS_DIR WORK_DIR
set -euo pipefail
warpsim=$1
bench=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

compare() {  # compare CONFIG FIXTURE
  local config=$1 fixture=$2
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
  # error = simulated / measured - 1: within a factor of two is (-0.5, 1.0).
  awk -F, -v c="$config" 'NR > 1 && ($7 + 0 <= -0.5 || $7 + 0 >= 1.0) { print "FAIL: " c " " $1 ": error " $7; bad = 1 }
                          END { exit bad }' "$work/$config-correlation/pairs.csv" >&2
}

compare gtx480 "$here/gpgpusim-4.2-gtx480-tiny.csv"
compare v100 "$here/gpgpusim-4.2-qv100-tiny.csv"
echo "PASS"
