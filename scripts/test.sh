#!/usr/bin/env bash
# Tests: install missing system packages, configure and build in build/, run the suite with CTest
# (without the `large` label) under PoCL's default work-group method (loopvec), then the `opencl` tests again
# under a second method: cbs where this PoCL has it (PoCL >= 4), else workitemloops (PoCL 3.x, e.g. Debian 12,
# has no cbs and silently falls back to 'auto' = loopvec when asked for it, which would test nothing new).
# Ends with CTest's summary of both runs; exits non-zero if either fails.
# Extra arguments are passed to both ctest runs (e.g. -R reduce).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh

cmake_args=(-S . -B build)
# CUDA for the GPUs present only (none: no CUDA backend, except in CI); scripts/cuda-args.sh says why.
mapfile -t cuda_args < <(scripts/cuda-args.sh)
cmake_args+=("${cuda_args[@]}")
cmake "${cmake_args[@]}"
cmake --build build -j"$(nproc)"

jobs=${REDSCAN_TEST_JOBS:-2}
status=0

echo
echo "== ctest: all backends, default PoCL work-group method${POCL_WORK_GROUP_METHOD:+ ($POCL_WORK_GROUP_METHOD)}"
ctest --test-dir build --output-on-failure --no-tests=error -LE 'large|stress' -j"$jobs" "$@" 2>&1 \
  | tee build/ctest-default.log || status=1

second=${REDSCAN_SECOND_WG_METHOD:-}
if [[ -z "$second" ]]; then
  second=workitemloops
  for lib in /usr/lib/*/libpocl.so.2 /usr/lib/libpocl.so.2 /usr/local/lib/libpocl.so.2; do
    if [[ -e "$lib" ]] && grep -a -q -w cbs "$lib"; then second=cbs; break; fi
  done
fi
echo
echo "== ctest: opencl with POCL_WORK_GROUP_METHOD=$second (REDSCAN_TEST_LEVEL=${REDSCAN_SECOND_TEST_LEVEL:-0})"
# Every program and every algorithm combination again, at the quick level's sizes (REDSCAN_TEST_LEVEL=0), so
# that the two work-group methods fit in CI's time; REDSCAN_SECOND_TEST_LEVEL=1 runs the full sizes.
POCL_WORK_GROUP_METHOD=$second REDSCAN_TEST_LEVEL=${REDSCAN_SECOND_TEST_LEVEL:-0} ctest --test-dir build --output-on-failure --no-tests=error -L opencl -LE 'large|stress' \
  -j"$jobs" "$@" 2>&1 | tee build/ctest-second.log || status=1

# CTest's summary of both runs (the lines from "tests passed" to the end of each log).
summary() { sed -n '/tests passed, /,$p' "$1"; }
echo
echo "== summary: default work-group method"
summary build/ctest-default.log
echo "== summary: POCL_WORK_GROUP_METHOD=$second (opencl)"
summary build/ctest-second.log
if [[ $status == 0 ]]; then
  echo "== all tests passed (both runs)"
else
  echo "== FAILED (see above)"
fi
exit $status
