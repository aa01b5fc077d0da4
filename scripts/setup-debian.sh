#!/usr/bin/env bash
# Installs dgsolve's Debian 12 dependencies (as root, or through sudo) when any is missing,
# then configures and builds into ${DG_BUILD_DIR:-build}. Safe to run again: it only does
# what is not done yet.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DG_BUILD_DIR:-$here/build}
jobs=${DG_JOBS:-$(nproc 2>/dev/null || echo 2)}

pkgs=(cmake g++ make pkg-config mpich libmpich-dev libhdf5-mpich-dev hdf5-tools libmetis-dev
      libyaml-cpp-dev catch2 libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libblas-dev
      liblapack-dev libmuparser-dev python3 python3-numpy python3-h5py python3-matplotlib
      clang-format)
if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release ${DG_CMAKE_ARGS:-}
fi
cmake --build "$build" -j "$jobs"
