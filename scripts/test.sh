#!/usr/bin/env bash
# Tests: install missing system packages, configure and build in build/, run the suite with CTest
# (without the `large` label) under PoCL's default work-group method, then the `opencl` tests again with
# POCL_WORK_GROUP_METHOD=cbs. Ends with CTest's summary of both runs; exits non-zero if either fails.
# Extra arguments are passed to both ctest runs (e.g. -R reduce).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh

cmake_args=(-S . -B build)
if [[ "${CI:-}" == true ]] && { command -v nvcc >/dev/null 2>&1 || [[ -n "${CUDACXX:-}" ]]; }; then
  cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=${REDSCAN_CUDA_ARCHS:-90}")
fi
cmake "${cmake_args[@]}"
cmake --build build -j"$(nproc)"

jobs=${REDSCAN_TEST_JOBS:-2}
status=0

echo
echo "== ctest: all backends, default PoCL work-group method${POCL_WORK_GROUP_METHOD:+ ($POCL_WORK_GROUP_METHOD)}"
ctest --test-dir build --output-on-failure --no-tests=error -LE large -j"$jobs" "$@" 2>&1 \
  | tee build/ctest-default.log || status=1

echo
echo "== ctest: opencl with POCL_WORK_GROUP_METHOD=cbs"
POCL_WORK_GROUP_METHOD=cbs ctest --test-dir build --output-on-failure --no-tests=error -L opencl -LE large \
  -j"$jobs" "$@" 2>&1 | tee build/ctest-cbs.log || status=1

# CTest's summary of both runs (the lines from "tests passed" to the end of each log).
summary() { sed -n '/tests passed, /,$p' "$1"; }
echo
echo "== summary: default work-group method"
summary build/ctest-default.log
echo "== summary: POCL_WORK_GROUP_METHOD=cbs (opencl)"
summary build/ctest-cbs.log
if [[ $status == 0 ]]; then
  echo "== all tests passed (both runs)"
else
  echo "== FAILED (see above)"
fi
exit $status
