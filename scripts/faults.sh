#!/usr/bin/env bash
# Fault injection run (docs/RELIABILITY.md): builds the library with -DREDSCAN_FAULT_INJECTION=ON in its own build
# directory and runs tests/test_faults on OpenCL (PoCL here): every device allocation, transfer, program build and
# launch point of every operation made to fail in turn, with statuses, untouched outputs, a usable context and no
# leaked buffer / program / kernel / event checked. Then test_errors in the same build (the hooks change nothing
# when not armed). Exits non-zero when either fails.
#
# Environment: REDSCAN_FAULTS_BUILD_DIR (default build-faults), REDSCAN_FAULTS_CUDA=1 to compile the CUDA backend
# too (its wrappers; minutes of nvcc, and the .cuda tests only run where a GPU is), REDSCAN_TEST_JOBS (default 2).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
dir=${REDSCAN_FAULTS_BUILD_DIR:-build-faults}
start=$(date +%s)

cmake_args=(-S . -B "$dir" -DREDSCAN_FAULT_INJECTION=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [[ "${REDSCAN_FAULTS_CUDA:-0}" == 1 ]]; then
  cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=${REDSCAN_CUDA_ARCHS:-90}")
else
  cmake_args+=(-DREDSCAN_WITH_CUDA=OFF)
fi
mkdir -p "$dir"
cmake "${cmake_args[@]}" >"$dir/faults-configure.log" 2>&1 \
  || { echo "faults: cmake failed:"; tail -n 30 "$dir/faults-configure.log"; exit 1; }
cmake --build "$dir" -j"$(nproc)" --target test_faults test_errors >"$dir/faults-build.log" 2>&1 \
  || { echo "faults: build failed:"; tail -n 40 "$dir/faults-build.log"; exit 1; }
echo "faults: built in $(( $(date +%s) - start )) s ($dir)"

ctest --test-dir "$dir" --output-on-failure --no-tests=error -R '^test_(faults|errors)\.' -j"${REDSCAN_TEST_JOBS:-2}" \
  2>&1 | tee "$dir/faults-ctest.log"
status=${PIPESTATUS[0]}
# The per-operation point counts of the OpenCL walk (one line each), for the log.
if [[ -f "$dir/Testing/Temporary/LastTest.log" ]]; then
  grep -E '^  .* points|armed runs|test_faults: [0-9]+ checks' "$dir/Testing/Temporary/LastTest.log" | head -n 60
fi
echo "faults: $(( $(date +%s) - start )) s, exit status $status"
exit "$status"
