#!/usr/bin/env bash
# Prints the CMake arguments for the CUDA part of a scripted build (scripts/bench.sh, scripts/test.sh), one per line.
# A plain `cmake -S . -B build` (a packager's build) is untouched and gets CMakeLists.txt's list of architectures.
#   - REDSCAN_CUDA_ARCHS set: those architectures (e.g. "90", "80;90").
#   - nvcc here and a GPU visible to nvidia-smi: the architectures of the GPUs present (nvcc's time grows with each
#     one: five architectures took 27 minutes on two cores).
#   - nvcc here, no GPU, CI=true: compute_90 PTX ("90-virtual") and sm_75 machine code ("75-real"), unoptimised
#     (REDSCAN_CUDA_CHECK_ONLY=ON: cicc -O0), so that CI still compiles and links the CUDA backend. Nothing runs it
#     there; ptxas (PTX to sm_90 machine code) was about 40 % of nvcc's time (93 of 235 s for scan_single_pass.cu,
#     2026-12-06) and cicc's optimiser most of the rest (segmented_scan.cu to PTX: 116 s, 30 s at -O0, 2026-12-07).
#     Every GPU run builds optimised machine code for its own GPU (scripts/gpu-check.sh), so ptxas's checks of that
#     architecture are made there; sm_75, the oldest of CMakeLists.txt's default list, is built here because no GPU
#     run builds it: inline PTX that needs sm_80 broke every plain `cmake` build with nvcc 13 from 2026-11-27 to
#     2026-12-07 unseen (the check-only build of the library for 75-real: about 2.6 minutes on two cores).
#   - nvcc here, no GPU, otherwise: no CUDA backend (it could not run here); the library says so at run time.
#     REDSCAN_CUDA_ARCHS=90 builds it anyway.
# Every case but CI's prints REDSCAN_CUDA_CHECK_ONLY=OFF, so a build folder reused from a CI-style build gets optimised
# device code again.
set -euo pipefail
have_nvcc=0
{ command -v nvcc >/dev/null 2>&1 || [[ -n "${CUDACXX:-}" ]] || [[ -x /usr/local/cuda/bin/nvcc ]]; } && have_nvcc=1
if [[ -n "${REDSCAN_CUDA_ARCHS:-}" ]]; then
  echo "-DCMAKE_CUDA_ARCHITECTURES=$REDSCAN_CUDA_ARCHS"
  echo "-DREDSCAN_CUDA_CHECK_ONLY=OFF"
  exit 0
fi
[[ $have_nvcc == 1 ]] || exit 0 # CMake finds no CUDA compiler and builds OpenCL alone
caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | grep -E '^[0-9]+$' | sort -u \
  | paste -sd ';' || true)
if [[ -n $caps ]]; then
  echo "-DCMAKE_CUDA_ARCHITECTURES=$caps"
  echo "-DREDSCAN_CUDA_CHECK_ONLY=OFF"
elif [[ "${CI:-}" == true ]]; then
  echo "-DCMAKE_CUDA_ARCHITECTURES=75-real;90-virtual"
  echo "-DREDSCAN_CUDA_CHECK_ONLY=ON"
else
  echo "cuda-args: nvcc is here but no NVIDIA GPU: building without the CUDA backend (REDSCAN_CUDA_ARCHS=90 builds it)" >&2
  echo "-DREDSCAN_WITH_CUDA=OFF"
  echo "-DREDSCAN_CUDA_CHECK_ONLY=OFF"
fi
