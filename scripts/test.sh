#!/usr/bin/env bash
# Tests: install missing system packages, configure and build in build/, run the suite with CTest
# (without the `large` label) under PoCL's default work-group method (loopvec), then the `opencl` tests again
# under a second method: cbs where this PoCL has it (PoCL >= 4), else workitemloops (PoCL 3.x, e.g. Debian 12,
# has no cbs and silently falls back to 'auto' = loopvec when asked for it, which would test nothing new).
# The later passes leave out the `cli` and `mpi` tests (host layers above the API) and run test_random for 20 s.
# Ends with CTest's summary of both runs; exits non-zero if either fails.
# Extra arguments are passed to both ctest runs (e.g. -R reduce).
# A third run (issue 15) takes the opencl tests at REDSCAN_TEST_LEVEL=0 to Intel's OpenCL CPU runtime
# (scripts/intel-ocl.sh), PoCL visible beside it so that test_parity compares the two: REDSCAN_INTEL_OCL=auto (the
# default) runs it where the runtime is installed, 1 installs it if missing and runs it (the default in CI), 0 leaves
# it out. Its summary is printed with the others, and its failure fails the script.
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
# Later passes (this one and Intel's) leave out the tests of the host layers above the API, labels `cli` (the redscan
# tool) and `mpi` (libredscan_mpi): their kernels are the other tests' kernels; the first pass runs them. test_random
# takes REDSCAN_SECOND_RANDOM_SECONDS (default 20) there instead of its 60 s. Together that was about 7 minutes of
# test time in the two passes of a cold CI run (2026-12-06, docs/PERFORMANCE.md "CI and the README commands").
later_exclude='large|stress|cli|mpi'
later_random=${REDSCAN_SECOND_RANDOM_SECONDS:-20}
# Every algorithm combination again, at the quick level's sizes (REDSCAN_TEST_LEVEL=0), so that the two work-group
# methods fit in CI's time; REDSCAN_SECOND_TEST_LEVEL=1 runs the full sizes. test_scan and test_reduce take a subset
# of their type table here (REDSCAN_TEST_SUBSET=1, tests/harness.c: every block, grid, algorithm and op, with 9
# of the 27 type entries; about a third of their programs), since PoCL compiles each program cold: test_scan cost the
# second pass 5-6 minutes with the whole table, test_reduce 104-109 s. test_narrow then runs its one-element calls
# over every float16 / bfloat16 pattern for the specials and a sixteenth of the rest (latency-bound: ~50 s).
later_subset=${REDSCAN_TEST_SUBSET:-1}
POCL_WORK_GROUP_METHOD=$second REDSCAN_TEST_LEVEL=${REDSCAN_SECOND_TEST_LEVEL:-0} REDSCAN_RANDOM_SECONDS=$later_random \
  REDSCAN_TEST_SUBSET=$later_subset ctest --test-dir build --output-on-failure --no-tests=error -L opencl -LE "$later_exclude" \
  -j"$jobs" "$@" 2>&1 | tee build/ctest-second.log || status=1

# Third run: Intel's OpenCL CPU runtime (issue 15; docs/RELIABILITY.md, "Intel's OpenCL CPU runtime"). Only this run
# sees it: OCL_ICD_VENDORS names a folder with the system's ICDs and Intel's, so the runs above stay on PoCL alone.
# REDSCAN_OPENCL_DEVICE names Intel's platform in full (a device of PoCL's can be named after an Intel CPU; with
# Intel's runtime missing the tests fail instead of running on PoCL). test_parity has PoCL and Intel as its paths
# (REDSCAN_PARITY_MIN_PATHS=2: fewer is a failure, not a skip). Intel's runtime keeps no compiled programs on disk,
# so each process would compile every program it uses again: the run uses redscan's program cache
# (REDSCAN_TEST_PROGRAM_CACHE=1, build/program-cache; on PoCL, PoCL's own cache does that job).
# test_scan, test_reduce and test_narrow take the same subsets as the second pass (REDSCAN_TEST_SUBSET=1):
# test_scan's two shards cost this pass 77 + 124 s cold with the whole table, test_reduce 70 s; the PoCL default pass
# still runs the whole table.
intel=${REDSCAN_INTEL_OCL:-auto}
[[ -z "${REDSCAN_INTEL_OCL:-}" && "${CI:-}" == true ]] && intel=1
intel_ran=0
if [[ $intel == 1 ]] || { [[ $intel == auto ]] && scripts/intel-ocl.sh status >/dev/null 2>&1; }; then
  echo
  echo "== ctest: opencl on Intel's OpenCL CPU runtime (REDSCAN_TEST_LEVEL=0, PoCL beside it for test_parity)"
  if intel_env=$(scripts/intel-ocl.sh --env); then
    intel_ran=1
    (
      eval "$intel_env"
      export REDSCAN_OPENCL_DEVICE='Intel(R) OpenCL' REDSCAN_TEST_LEVEL=0 REDSCAN_PARITY_MIN_PATHS=2 REDSCAN_TEST_PROGRAM_CACHE=1
      export REDSCAN_TEST_SUBSET=$later_subset REDSCAN_RANDOM_SECONDS=$later_random
      build/redscan info | sed -n 's/^  opencl backend -> */device: /p' || true
      ctest --test-dir build --output-on-failure --no-tests=error -L opencl -LE "$later_exclude" -j"$jobs" "$@"
    ) 2>&1 | tee build/ctest-intel.log || status=1
  else
    echo "== Intel's OpenCL CPU runtime could not be installed (REDSCAN_INTEL_OCL=$intel): FAILED"
    status=1
  fi
fi

# CTest's summary of both runs (the lines from "tests passed" to the end of each log).
summary() { sed -n '/tests passed, /,$p' "$1"; }
echo
echo "== summary: default work-group method"
summary build/ctest-default.log
echo "== summary: POCL_WORK_GROUP_METHOD=$second (opencl)"
summary build/ctest-second.log
if [[ $intel_ran == 1 ]]; then
  echo "== summary: Intel's OpenCL CPU runtime (opencl, level 0)"
  summary build/ctest-intel.log
fi
if [[ $status == 0 ]]; then
  echo "== all tests passed (all runs)"
else
  echo "== FAILED (see above)"
fi
exit $status
