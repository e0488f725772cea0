#!/usr/bin/env bash
# Installs CUDA 11.8 from Debian 12's non-free component (package
# nvidia-cuda-toolkit: nvcc, headers, libcudart.so.11.0) so that the build
# adds the `cuda11` integration tests: programs built with CUDA 11.8's nvcc
# and run under warpsim's libcudart.so.11.0. About 3 GB and a few minutes,
# so CI does not do it on every run; afterwards:
#
#   cmake --preset default && cmake --build --preset default && ctest --preset default -L cuda11
#
# A no-op when the toolkit is already there.
set -euo pipefail

if [ -x /usr/lib/nvidia-cuda-toolkit/bin/nvcc ]; then
  echo "install-cuda11: CUDA 11.8 is already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
list=/etc/apt/sources.list.d/warpsim-non-free.sources
if ! grep -rqs "non-free" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "install-cuda11: enabling Debian's contrib and non-free components ($list)"
  $SUDO tee "$list" > /dev/null <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# clang 14 is the host compiler CUDA 11.8 accepts on Debian 12 (g++ 12 is too new for it).
$SUDO apt-get install -y -qq --no-install-recommends nvidia-cuda-toolkit clang
echo "install-cuda11: done; reconfigure the build (cmake --preset default) to add the cuda11 tests"
