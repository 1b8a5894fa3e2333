#!/usr/bin/env bash
# Main job: install missing system packages, configure and build in build/, then print `redscan info` and run
# the verified benchmark sweep `redscan bench` on the selected backend (REDSCAN_BACKEND, default auto).
# Arguments are passed to `redscan bench`, e.g.  scripts/bench.sh --quick   or   scripts/bench.sh --csv out.csv
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh

cmake_args=(-S . -B build)
# CUDA for the GPUs present only (none: no CUDA backend, except in CI); scripts/cuda-args.sh says why.
mapfile -t cuda_args < <(scripts/cuda-args.sh)
cmake_args+=("${cuda_args[@]}")
cmake "${cmake_args[@]}"
cmake --build build -j"$(nproc)"

echo
build/redscan info
echo
build/redscan bench "$@"
