#!/usr/bin/env bash
# Main job: install missing system packages, configure and build in build/, then print `redscan info` and run
# the verified benchmark sweep `redscan bench` on the selected backend (REDSCAN_BACKEND, default auto).
# Arguments are passed to `redscan bench`, e.g.  scripts/bench.sh --quick   or   scripts/bench.sh --csv out.csv
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh

cmake_args=(-S . -B build)
# CUDA is built automatically when nvcc is found; in CI one architecture keeps the compile short.
if [[ "${CI:-}" == true ]] && { command -v nvcc >/dev/null 2>&1 || [[ -n "${CUDACXX:-}" ]]; }; then
  cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=${REDSCAN_CUDA_ARCHS:-90}")
fi
cmake "${cmake_args[@]}"
cmake --build build -j"$(nproc)"

echo
build/redscan info
echo
build/redscan bench "$@"
