#!/usr/bin/env bash
# One call on a GPU machine (the lent H100): build for sm_90 with the tests; run the whole suite on three paths
# (CUDA; OpenCL on the NVIDIA GPU; OpenCL on PoCL), the .cuda tests under compute-sanitizer (memcheck,
# racecheck, synccheck, initcheck), the cross-backend parity test, the > 2^31 and > 2^32 element cases and the
# benchmark. Prints one summary table at the end; logs are packed into $OUT/gpu-logs.tgz (the device tool brings
# back at most 8 files), the summary is $OUT/summary.txt.
#
#   scripts/gpu-check.sh [--quick] [steps...]
#     --quick: only memcheck among the sanitizers, and no benchmark (neither bench nor async)
#     steps (default all but first): build first suites parity large sanitize bench async stress (first: time to
#     the first result per family, scripts/first-result.sh on CUDA and NVIDIA's OpenCL; async: the per-call time of
#     back-to-back stream-ordered calls, `redscan bench --async`, next to the blocking calls and CUB, on CUDA and
#     NVIDIA's OpenCL; stress: tests/test_stress for STRESS_SECONDS (default 60) on CUDA, then on NVIDIA's OpenCL,
#     docs/RELIABILITY.md "Stress test")   (the device tool allows 10 minutes a command, so a lent machine runs it
#     as three calls: "build suites parity large", "build sanitize bench async", then "build stress"; a later build is
#     a no-op on a warm machine)
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL=${OUT:-$PWD/gpu-logs}
OUT=$(mktemp -d /tmp/redscan-gpu.XXXX)
mkdir -p "$FINAL"
QUICK=0
[ "${1:-}" = "--quick" ] && { QUICK=1; shift; }
STEPS=" ${*:-build suites parity large sanitize bench async stress} "
want() { [[ "$STEPS" == *" $1 "* ]]; }
JOBS=$(nproc)
declare -a ROWS

row() { ROWS+=("$(printf '%-44s %-6s %s' "$1" "$2" "$3")"); }
run_step() { # name logfile command...
    local name=$1 log=$2; shift 2
    local t0=$SECONDS
    if "$@" >"$OUT/$log" 2>&1; then row "$name" PASS "$((SECONDS - t0))s  $log"; else row "$name" FAIL "$((SECONDS - t0))s  $log (rc $?)"; fi
    tail -n 3 "$OUT/$log"
}
ctest_summary() { grep -E 'tests passed|tests failed' "$OUT/$1" | tail -n 1; }

# NVIDIA's OpenCL driver is installed but not registered with the ICD loader on the lent machines.
if [ -e /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 ] || ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
if ! command -v cmake >/dev/null || ! dpkg -s ocl-icd-opencl-dev >/dev/null 2>&1; then
    scripts/install-deps.sh >"$OUT/deps.log" 2>&1 || true
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$OUT/gpu.txt" 2>&1
clinfo -l >"$OUT/clinfo.txt" 2>&1

run_step "configure + build (sm_90)" build.log bash -c \
    "cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DREDSCAN_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build build-gpu -j$JOBS"
if [ ! -x build-gpu/redscan ]; then
    tail -n 60 "$OUT/build.log"; tar czf "$FINAL/gpu-logs.tgz" -C "$OUT" .; printf '%s\n' "${ROWS[@]}"; exit 1
fi
build-gpu/redscan info >"$OUT/info.txt" 2>&1

# Time to the first result per family (docs/PERFORMANCE.md): CUDA and NVIDIA's OpenCL, fresh processes, caches
# cold and warm (scripts/first-result.sh); on CUDA also the create / first-call split with lazy and eager module
# loading, to show where the time goes.
if want first; then
    (REDSCAN_CLI=build-gpu/redscan REDSCAN_BACKEND=cuda scripts/first-result.sh 3 >"$OUT/first-cuda.md" 2>&1
     REDSCAN_CLI=build-gpu/redscan REDSCAN_BACKEND=opencl REDSCAN_OPENCL_DEVICE=nvidia scripts/first-result.sh 3 \
         >"$OUT/first-ocl-nvidia.md" 2>&1
     for mode in LAZY EAGER; do
         for i in 1 2 3; do CUDA_MODULE_LOADING=$mode REDSCAN_BACKEND=cuda build-gpu/redscan first-result --op all \
             | sed "s/^/$mode: /"; done
     done >"$OUT/first-cuda-split.txt" 2>&1
     cat "$OUT/first-cuda.md" "$OUT/first-ocl-nvidia.md" "$OUT/first-cuda-split.txt") >"$OUT/first.log" 2>&1
    row "first result per family" INFO "first.log"
    cat "$OUT/first.log"
fi

cd build-gpu
if want suites; then
# The three paths at once: PoCL keeps the CPU busy while the GPU runs the other two.
(ctest -L cuda -LE 'large|stress' -E test_parity --output-on-failure -j4 >"$OUT/ctest-cuda.log" 2>&1; echo $? >"$OUT/rc-cuda") &
(REDSCAN_OPENCL_DEVICE=nvidia ctest -L opencl -LE 'large|stress' -E test_parity --output-on-failure -j4 \
    >"$OUT/ctest-ocl-nvidia.log" 2>&1; echo $? >"$OUT/rc-ocl-nvidia") &
(REDSCAN_OPENCL_DEVICE=portable ctest -L opencl -LE 'large|stress' -E test_parity --output-on-failure -j"$JOBS" \
    >"$OUT/ctest-ocl-pocl.log" 2>&1; echo $? >"$OUT/rc-ocl-pocl") &
t0=$SECONDS
wait
for p in cuda ocl-nvidia ocl-pocl; do
    r=$(cat "$OUT/rc-$p" 2>/dev/null || echo 1)
    [ "$r" = 0 ] && res=PASS || res=FAIL
    row "suite: $p" $res "$((SECONDS - t0))s  ctest-$p.log: $(ctest_summary ctest-$p.log)"
    grep -E '\(Failed\)|\*\*\*|Timeout' "$OUT/ctest-$p.log" | head -n 8
done
fi
cd ..

# compute-sanitizer: the suite's programs in their quick mode (smaller sizes) on CUDA.
SAN_TESTS=${SAN_TESTS:-"test_reduce test_stats test_scan test_errors"}
for tool in memcheck racecheck synccheck initcheck; do
    want sanitize || break
    [ $QUICK = 1 ] && [ $tool != memcheck ] && continue
    for t in $SAN_TESTS; do
        REDSCAN_BACKEND=cuda REDSCAN_TEST_LEVEL=0 run_step "compute-sanitizer $tool: $t" "san-$tool-$t.log" \
            timeout "${SAN_TIMEOUT:-150}" compute-sanitizer --tool $tool --error-exitcode 99 build-gpu/tests/$t
    done
done

want parity && run_step "parity: cuda = opencl(nvidia) = opencl(pocl)" parity.log \
    env REDSCAN_PARITY_DEVICES="cuda;opencl:nvidia;opencl:portable" build-gpu/tests/test_parity
want large && run_step "large: 2^31+17, 2^32+5 (int32, float32)" large.log \
    env REDSCAN_BACKEND=cuda REDSCAN_LARGE_SIZES=2147483665,4294967301 build-gpu/tests/test_large

if [ $QUICK = 0 ] && want bench; then
    run_step "bench: cuda vs CUB" bench-cuda.log build-gpu/redscan bench --backend cuda --csv "$OUT/bench-cuda.csv"
    REDSCAN_OPENCL_DEVICE=nvidia run_step "bench: opencl (nvidia)" bench-ocl.log \
        build-gpu/redscan bench --backend opencl --csv "$OUT/bench-ocl.csv"
fi

# Latency of the stream-ordered API (issue 14): per op and size (2^16, 2^20), R _async calls back to back with one
# redscan_synchronize, the same R blocking calls, and CUB pipelined the same way; the tables are printed here.
if [ $QUICK = 0 ] && want async; then
    run_step "async: cuda, per call vs blocking vs CUB" async-cuda.log \
        timeout 300 build-gpu/redscan bench --async --backend cuda --compare cub --csv "$OUT/async-cuda.csv"
    REDSCAN_OPENCL_DEVICE=nvidia run_step "async: opencl (nvidia), per call vs CUB" async-ocl.log \
        timeout 300 build-gpu/redscan bench --async --backend opencl --compare cub --csv "$OUT/async-ocl.csv"
    for log in async-cuda.log async-ocl.log; do
        echo "== $log"
        grep -v '^\[bench' "$OUT/$log" | sed -n '/^op /,/ rows: /p'
    done
fi

# Stress (issue 15): one process, 4 threads x 2 contexts, a random mix of every operation through the host, device and
# stream-ordered APIs with bad-argument calls and context churn among them, every result checked; STRESS_SECONDS on
# CUDA, then on NVIDIA's OpenCL (one after the other: each keeps the GPU and the CPU's references busy).
if want stress; then
    # The test reports a thread still busy 120 s after its budget as hung (with the operation it is in) before
    # timeout stops it; both runs fit in one 10-minute call of the device tool.
    S=${STRESS_SECONDS:-60}
    run_step "stress: cuda, ${S}s" stress-cuda.log \
        env REDSCAN_BACKEND=cuda REDSCAN_STRESS_SECONDS="$S" REDSCAN_STRESS_GRACE=120 timeout $((S + 180)) \
        build-gpu/tests/test_stress
    run_step "stress: opencl (nvidia), ${S}s" stress-ocl.log \
        env REDSCAN_BACKEND=opencl REDSCAN_OPENCL_DEVICE=nvidia REDSCAN_STRESS_SECONDS="$S" REDSCAN_STRESS_GRACE=120 \
        timeout $((S + 180)) build-gpu/tests/test_stress
    for log in stress-cuda.log stress-ocl.log; do
        echo "== $log"
        grep -E '^thread [0-9]+:|SUMMARY|^FAIL|replay' "$OUT/$log" | head -n 30
    done
fi

{
echo
echo "== redscan gpu-check $(date -u +%Y-%m-%dT%H:%MZ) on $(cat "$OUT/gpu.txt" | head -n 1)"
printf '%-44s %-6s %s\n' step result "time / log"
printf '%s\n' "${ROWS[@]}"
} | tee "$OUT/summary.txt"
cp "$OUT/summary.txt" "$FINAL/" 2>/dev/null; cp "$OUT"/*.csv "$FINAL/" 2>/dev/null
tar czf "$FINAL/gpu-logs.tgz" -C "$OUT" .
! printf '%s\n' "${ROWS[@]}" | grep -q ' FAIL '
