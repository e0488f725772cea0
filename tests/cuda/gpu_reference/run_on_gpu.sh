#!/usr/bin/env bash
# Runs the CUDA test programs and the probe on a real GPU (README.md): builds every program of
# tests/cuda with -DTEST_KEEP_GOING (every failed check is listed; the run goes on) and the
# probe, runs them with the real libcudart, prints one line per program and writes the output
# to OUTDIR (default: gpu-run): tests.log, and probe/<mode>.txt to compare with h100/.
# Needs nvcc (CUDA 12 or 13) and a GPU; run from the repository root or anywhere.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src="$here/.."
out=$(mkdir -p "${1:-gpu-run}" && cd "${1:-gpu-run}" && pwd)
bin="$out/bin"
mkdir -p "$bin" "$out/probe"
: "${CUDA_HOME:=/usr/local/cuda}"
export PATH="$CUDA_HOME/bin:$PATH"
export LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -n 1

# program, then its sources and extra nvcc flags (tests/cuda/CMakeLists.txt builds them alike)
programs=(
  "vector_add vector_add.cu" "device_api device_api.cu" "memory_api memory_api.cu"
  "symbols symbols.cu" "dynamic_shared dynamic_shared.cu" "params params.cu" "printf printf.cu"
  "streams_events streams_events.cu" "textures textures.cu" "cooperative cooperative.cu"
  "func_attrs func_attrs.cu" "error_config error_config.cu" "error_oob error_oob.cu"
  "error_uaf error_uaf.cu" "managed_memory managed_memory.cu"
  "launch_bounds_regs launch_bounds_regs.cu" "graph_capture graph_capture.cu"
  "graph_explicit graph_explicit.cu" "graph_errors graph_errors.cu"
  "graph_memory graph_memory.cu" "mem_pool mem_pool.cu" "device_malloc device_malloc.cu"
  "device_assert device_assert.cu"
  "dynamic_parallelism dynamic_parallelism.cu -rdc=true -lcudadevrt"
  "rdc rdc_main.cu rdc_lib.cu -rdc=true" "multi_tu multi_tu_main.cu multi_tu_other.cu"
  "per_thread_stream per_thread_stream.cu --default-stream per-thread"
  "thrust_test thrust_test.cu" "cub_test cub_test.cu" "unsupported_api unsupported_api.cu")
jobs=$(nproc 2>/dev/null || echo 4)
printf '%s\n' "${programs[@]}" | (cd "$src" && xargs -P "$jobs" -L 1 bash -c \
  'n=$0; nvcc -DTEST_KEEP_GOING -cudart shared -o "'"$bin"'/$n" "$@" > "'"$bin"'/$n.build" 2>&1 ||
   { echo "BUILD FAILED $n"; tail -n 5 "'"$bin"'/$n.build"; }')
nvcc -rdc=true -lcudadevrt -cudart shared -o "$bin/probe" "$here/probe.cu" ||
  echo "BUILD FAILED probe"

: > "$out/tests.log"
for p in "${programs[@]}"; do
  n=${p%% *}
  [ -x "$bin/$n" ] || continue
  (cd "$bin" && timeout 300 "./$n" > "$n.out" 2> "$n.err")
  rc=$?
  echo "$n rc=$rc: $(tail -n 1 "$bin/$n.out")"
  { echo "######## $n rc=$rc"; cat "$bin/$n.out"; echo "--- stderr"; cat "$bin/$n.err"; } >> "$out/tests.log"
done

# probe modes, named as the files in h100/
probes=(
  "sticky sticky" "heap-1MiB heap 1048576" "heap-3MiB heap 3145728" "heap-4MiB heap 4194304"
  "heap-5MiB heap 5242880" "heap-8MiB heap 8388608" "heap-16MiB heap 16777216"
  "fifo-4KiB-4000 fifo 4096 4000" "fifo-64KiB-4000 fifo 65536 4000"
  "fifo-1MiB-4000 fifo 1048576 4000" "fifo-1MiB-40000 fifo 1048576 40000"
  "fifo-512KiB-40000 fifo 524288 40000" "fifo-4KiB-4000-wide fifo 4096 4000 wide"
  "dp dp" "dp2 dp2" "capture capture" "graphmem graphmem" "graphmem2 graphmem2"
  "pool pool" "pool2 pool2")
if [ -x "$bin/probe" ]; then
  for p in "${probes[@]}"; do
    name=${p%% *}
    # shellcheck disable=SC2086
    (cd "$bin" && timeout 120 ./probe ${p#* } > "$out/probe/$name.txt" 2>&1)
    if [ -f "$here/h100/$name.txt" ] && ! cmp -s "$here/h100/$name.txt" "$out/probe/$name.txt"; then
      echo "probe $name: differs from h100/$name.txt"
    fi
  done
fi
echo "output in $out"
