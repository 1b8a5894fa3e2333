#!/usr/bin/env bash
# Stress run (docs/RELIABILITY.md, "Stress test"): tests/test_stress on the OpenCL backend (PoCL here) for a bounded
# time: REDSCAN_STRESS_THREADS threads x REDSCAN_STRESS_CONTEXTS contexts, a random mix of every operation through the
# host, device and stream-ordered APIs, bad-argument calls and context churn among them, every result checked.
# Prints the test's per-thread lines and its SUMMARY line; exits non-zero when the test fails (or does not build).
#
#   scripts/stress.sh [BUILD_DIR]      BUILD_DIR: default build (the one scripts/test.sh makes)
#
# Builds the test_stress target in BUILD_DIR first (configures BUILD_DIR as scripts/test.sh does when it has no
# CMakeCache.txt). Environment: REDSCAN_STRESS_SECONDS (default here 30, the CI budget; the test's own default is
# 120), REDSCAN_STRESS_THREADS, REDSCAN_STRESS_CONTEXTS and the other knobs of tests/test_stress.c, REDSCAN_TEST_SEED
# (default: the harness's fixed seed; "random" draws one and prints it), REDSCAN_BACKEND (default opencl),
# POCL_WORK_GROUP_METHOD. Like CTest, the run keeps the on-disk program cache off (REDSCAN_CACHE=0).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
dir=${1:-build}
start=$(date +%s)

if [[ ! -f "$dir/CMakeCache.txt" ]]; then
  cmake_args=(-S . -B "$dir")
  mapfile -t cuda_args < <(scripts/cuda-args.sh)
  cmake_args+=("${cuda_args[@]}")
  mkdir -p "$dir"
  cmake "${cmake_args[@]}" >"$dir/stress-configure.log" 2>&1 \
    || { echo "stress: cmake failed:"; tail -n 30 "$dir/stress-configure.log"; exit 1; }
fi
cmake --build "$dir" -j"$(nproc)" --target test_stress >"$dir/stress-build.log" 2>&1 \
  || { echo "stress: build failed:"; tail -n 40 "$dir/stress-build.log"; exit 1; }
echo "stress: test_stress built in $(( $(date +%s) - start )) s ($dir)"

export REDSCAN_BACKEND=${REDSCAN_BACKEND:-opencl}
export REDSCAN_STRESS_SECONDS=${REDSCAN_STRESS_SECONDS:-30}
echo "stress: REDSCAN_BACKEND=$REDSCAN_BACKEND REDSCAN_STRESS_SECONDS=$REDSCAN_STRESS_SECONDS" \
  "threads ${REDSCAN_STRESS_THREADS:-4} x contexts ${REDSCAN_STRESS_CONTEXTS:-2}${POCL_WORK_GROUP_METHOD:+, POCL_WORK_GROUP_METHOD=$POCL_WORK_GROUP_METHOD}"
t0=$(date +%s)
REDSCAN_CACHE=0 REDSCAN_CACHE_DIR="$PWD/$dir/program-cache" "$dir/tests/test_stress" 2>&1 | tee "$dir/stress.log"
status=${PIPESTATUS[0]}
if [[ $status == 77 ]]; then
  echo "stress: SKIPPED: the $REDSCAN_BACKEND backend is unavailable here (see above)"
  status=0
fi
echo "stress: $(( $(date +%s) - t0 )) s run, $(( $(date +%s) - start )) s in all, exit status $status (log: $dir/stress.log)"
exit "$status"
