#!/usr/bin/env bash
# Installs warpsim's build and test dependencies from Debian's archive.
# A no-op (no apt-get call at all) when everything is already present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  flex bison
  zlib1g-dev libzstd-dev liblz4-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  clang libclang-rt-14-dev
  # warpsim plot/report/study (matplotlib), the Slurm backend's test (a
  # real single-node cluster) and the report's test (headless Chromium).
  python3-matplotlib python3-toml
  slurm-wlm munge
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all dependencies present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
