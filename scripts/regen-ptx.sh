#!/usr/bin/env bash
# Regenerates the compiler-emitted PTX corpus in tests/ptx/gen/ from the CUDA
# sources in tests/ptx/src/.  See tests/ptx/README.md for what each variant is.
#
# Usage: scripts/regen-ptx.sh [-j N] [name ...]
#   name   regenerate only these sources (e.g. `vecadd reduce`); default: all.
#   -j N   parallel compiler jobs (default: number of CPUs).
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), CLANGXX (default
#   clang++-14, else clang++), CUDA_PATH (default /usr/local/cuda).
#
# Generated files are written exactly as the compilers emit them.  nvcc records
# the working directory and the source path in -G / -lineinfo output, so every
# compile runs in a fixed symlinked directory (/tmp/warpsim-ptx/src) to keep the
# output independent of where the repository is checked out.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$ROOT/tests/ptx/src"
GEN="$ROOT/tests/ptx/gen"
CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_PATH/bin/nvcc}"
if [[ -z "${CLANGXX:-}" ]]; then
  if command -v clang++-14 >/dev/null; then CLANGXX=clang++-14; else CLANGXX=clang++; fi
fi
STABLE=/tmp/warpsim-ptx
JOBS="$(nproc 2>/dev/null || echo 2)"

# Sources that clang 14 can compile with the self-written device environment in
# tests/ptx/src/clang/warpsim_cuda.h.  The others need CUDA's own headers
# (cuda_fp16.h, cooperative_groups, cub, mma.h, cuda/barrier, texture objects),
# which clang 14 cannot parse in CUDA 13's version.
CLANG_SOURCES=(vecadd reduce atomics shuffle fmath dmath intmath printf templates structs
  devfunc localarr sharedmem divergence globals warpops)

# No source needs extra nvcc flags: coop.cu uses grid_group::sync(), which no
# longer requires -rdc=true (verified with nvcc 13), so every file compiles with
# whole-program -ptx.

# --- one compile job: `regen-ptx.sh --job <name> <variant>` --------------------
if [[ "${1:-}" == "--job" ]]; then
  name="$2" variant="$3"
  cd "$STABLE/src"  # the symlink, so nvcc records /tmp/warpsim-ptx/src/...
  in="$name.cu"
  case "$variant" in
    sm75) out="$GEN/$name.sm75.ptx"; flags=(-arch=sm_75 -O3) ;;
    sm80) out="$GEN/$name.sm80.ptx"; flags=(-arch=sm_80) ;;
    sm90) out="$GEN/$name.sm90.ptx"; flags=(-arch=sm_90) ;;
    G) out="$GEN/$name.G.ptx"; flags=(-arch=sm_75 -G) ;;
    lineinfo) out="$GEN/$name.lineinfo.ptx"; flags=(-arch=sm_80 -lineinfo) ;;
    default) out="$GEN/$name.default.ptx"; flags=() ;;
    clang)
      out="$GEN/clang/$name.ptx"
      # -nocudainc: skip clang's CUDA wrapper headers and CUDA's include dir;
      #   clang/warpsim_cuda.h provides the device environment instead.
      # libdevice (math functions) is still linked from $CUDA_PATH/nvvm/libdevice.
      "$CLANGXX" -x cuda --cuda-device-only -S --cuda-gpu-arch=sm_75 \
        --cuda-path="$CUDA_PATH" -nocudainc -Wno-unknown-cuda-version \
        -std=c++17 -O3 -Iclang -include clang/warpsim_cuda.h \
        "$in" -o "$out.tmp"
      mv "$out.tmp" "$out"
      echo "  clang/$name.ptx"
      exit 0
      ;;
    *) echo "unknown variant $variant" >&2; exit 2 ;;
  esac
  "$NVCC" -ptx "${flags[@]}" "$in" -o "$out.tmp"
  mv "$out.tmp" "$out"
  echo "  $(basename "$out")"
  exit 0
fi

# --- driver --------------------------------------------------------------------
names=()
all=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    -j) JOBS="$2"; shift 2 ;;
    -j*) JOBS="${1#-j}"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) names+=("$1"); all=0; shift ;;
  esac
done
if [[ ${#names[@]} -eq 0 ]]; then
  for f in "$SRC"/*.cu; do names+=("$(basename "$f" .cu)"); done
fi
for n in "${names[@]}"; do
  [[ -f "$SRC/$n.cu" ]] || { echo "no such source: $SRC/$n.cu" >&2; exit 1; }
done

[[ -x "$NVCC" ]] || { echo "nvcc not found at $NVCC" >&2; exit 1; }
command -v "$CLANGXX" >/dev/null || { echo "clang++ not found ($CLANGXX)" >&2; exit 1; }
"$NVCC" --version | grep -i 'release' | sed 's/^/nvcc: /'
"$CLANGXX" --version | head -n1 | sed 's/^/clang: /'

mkdir -p "$GEN/clang" "$STABLE"
trap 'find "$GEN" -name "*.ptx.tmp" -delete' EXIT
if [[ $all -eq 1 ]]; then
  # Full regeneration: drop outputs of sources that no longer exist.
  rm -f "$GEN"/*.ptx "$GEN"/clang/*.ptx
fi
# Serialise concurrent regenerations (they share the fixed symlink).
exec 9>"$STABLE.lock"
flock 9
ln -sfn "$SRC" "$STABLE/src"

jobs_list=()
for n in "${names[@]}"; do
  for v in sm75 sm80 sm90 G lineinfo default; do jobs_list+=("$n $v"); done
  for c in "${CLANG_SOURCES[@]}"; do
    if [[ "$c" == "$n" ]]; then jobs_list+=("$n clang"); fi
  done
done

echo "compiling ${#jobs_list[@]} variants with $JOBS jobs"
export NVCC CLANGXX CUDA_PATH
printf '%s\n' "${jobs_list[@]}" |
  xargs -P "$JOBS" -L 1 bash "$ROOT/scripts/regen-ptx.sh" --job

du -sh "$GEN" | sed 's/^/corpus size: /'
