#!/usr/bin/env bash
# Records the statistics JSON of every CUDA test program (tests/cuda) and
# every workload at the `tiny` preset (benchmarks/), in timing mode, on each
# named GPU configuration: the input of scripts/compare-stats.py, which checks
# that a change to the simulator's structure left its results alone.
#
#   scripts/stats-snapshot.sh BUILD_DIR OUT_DIR [CONFIG...]   (default: gtx480 h100)
#
# OUT_DIR/<config>/cuda/<program>.json and OUT_DIR/<config>/bench/<suite>_<name>.json.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR [CONFIG...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
out=$2
shift 2
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(gtx480 h100)
warpsim=$build/tools/warpsim
jobs=$(nproc)

# The tests/cuda programs that run without arguments (gpu_probe needs a
# probe name; vector_add_static is refused by design: statically linked),
# and whose statistics are the same from run to run: per_thread_stream
# launches from several host threads (their order varies) and memory_api's
# kernels access mapped host memory (its addresses vary with the host's
# address-space layout, and so do the caches' sets and the DRAM rows).
programs=()
for p in "$build"/tests/cuda/*; do
  [ -f "$p" ] && [ -x "$p" ] || continue
  case "$(basename "$p")" in
    *.so | gpu_probe | vector_add_static | per_thread_stream | memory_api) continue ;;
  esac
  programs+=("$p")
done

for config in "${configs[@]}"; do
  mkdir -p "$out/$config/cuda" "$out/$config/bench"
  # Programs that fail on purpose (faulting kernels, unsupported calls) still
  # write their statistics; their exit status does not matter here.
  printf '%s\n' "${programs[@]}" |
    xargs -P "$jobs" -I{} sh -c \
      '"$0" run --quiet --config "$1" --stats "$2/$(basename "{}").json" -- "{}" >/dev/null 2>&1 || true' \
      "$warpsim" "$config" "$out/$config/cuda"
  "$warpsim" bench --suite all --preset tiny --config "$config" --jobs "$jobs" \
    --out "$out/$config/bench-run" >/dev/null 2>&1 || true
  for f in "$out/$config/bench-run"/logs/*.stats.json; do
    [ -f "$f" ] && cp "$f" "$out/$config/bench/$(basename "$f" .stats.json).json"
  done
  rm -rf "$out/$config/bench-run"
  echo "stats-snapshot: $config: $(ls "$out/$config/cuda" | wc -l) programs, $(ls "$out/$config/bench" | wc -l) workloads"
done
