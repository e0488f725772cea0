#!/usr/bin/env bash
# Timing mode gives the same results on any number of host threads: runs a
# suite of the workload suite at `tiny`, and CUDA test programs, with
# timing.threads = 1, 2 and 4, and checks that each program's output, exit
# status and statistics are identical across the three, apart from host
# times. Prints the wall time per setting.
#   threads_determinism.sh WARPSIM WORK_DIR [--config C] [--suite S] [--programs P...]
# --suite: a suite of benchmarks/suites.toml ("none": no suite; default
# tiny-smoke); --programs: CUDA programs run as they are (no arguments).
# A program whose results differ between two runs on one thread (its kernels
# read host memory at the program's own addresses, e.g. cudaHostRegister,
# which address-space randomisation moves) is reported, not compared.
set -euo pipefail
warpsim=$1
work=$2
shift 2
config=()
suite=tiny-smoke
programs=()
while [ $# -gt 0 ]; do
  case $1 in
    --config) config=(--config "$2"); shift 2 ;;
    --suite) suite=$2; shift 2 ;;
    --programs) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do programs+=("$1"); shift; done ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

for t in 1 1b 2 4; do
  start=$(date +%s%N)
  dir="$work/threads-$t"
  mkdir -p "$dir/logs"
  if [ "$suite" != none ] && [ "$t" != 1b ]; then  # the suite's programs read no host memory
    "$warpsim" bench --suite "$suite" --preset tiny "${config[@]}" --set "timing.threads=${t%b}" \
      --out "$dir" > "$dir.log" 2>&1 || { cat "$dir.log"; fail "bench at threads=$t"; }
  fi
  for p in "${programs[@]}"; do
    name=cuda_$(basename "$p")
    status=0
    "$warpsim" run --quiet "${config[@]}" --set "timing.threads=${t%b}" --stats "$dir/logs/$name.stats.json" \
      -- "$p" < /dev/null > "$dir/logs/$name.out" 2> "$dir/logs/$name.err" || status=$?
    echo "$status" > "$dir/logs/$name.status"
  done
  echo "timing.threads=$t: $((($(date +%s%N) - start) / 1000000)) ms wall"
done

# Statistics without what measures the host (wall and simulation seconds).
strip_host_times() { python3 "$(dirname "$0")/../strip_host_times.py" "$1"; }

same_results() {  # same_results NAME T: threads-1's results and threads-T's are the same
  cmp -s "$work/threads-1/logs/$1.out" "$work/threads-$2/logs/$1.out" &&
    { [ ! -f "$work/threads-1/logs/$1.status" ] ||
      cmp -s "$work/threads-1/logs/$1.status" "$work/threads-$2/logs/$1.status"; } &&
    diff <(strip_host_times "$work/threads-1/logs/$1.stats.json") \
         <(strip_host_times "$work/threads-$2/logs/$1.stats.json") > "$work/$1-$2.diff"
}

checked=0
unstable=()
for out in "$work"/threads-1/logs/*.out; do
  name=$(basename "$out" .out)
  if [ -f "$work/threads-1/logs/$name.status" ] && ! same_results "$name" 1b; then
    unstable+=("$name")
    continue
  fi
  checked=$((checked + 1))
  for t in 2 4; do
    cmp -s "$out" "$work/threads-$t/logs/$name.out" || fail "$name: output differs at threads=$t"
    if [ -f "$work/threads-1/logs/$name.status" ]; then
      cmp -s "$work/threads-1/logs/$name.status" "$work/threads-$t/logs/$name.status" ||
        fail "$name: exit status differs at threads=$t"
    fi
    diff <(strip_host_times "$work/threads-1/logs/$name.stats.json") \
         <(strip_host_times "$work/threads-$t/logs/$name.stats.json") > "$work/$name-$t.diff" \
      || { head -20 "$work/$name-$t.diff"; fail "$name: statistics differ at threads=$t"; }
  done
done
[ "$checked" -gt 0 ] || fail "no program ran"
[ ${#unstable[@]} -eq 0 ] ||
  echo "not compared, their results differ between two runs on one thread: ${unstable[*]}"
echo "PASS: $checked programs, identical output and statistics at timing.threads = 1, 2 and 4"
