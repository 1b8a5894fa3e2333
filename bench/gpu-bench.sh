#!/usr/bin/env bash
# One call on a GPU machine (the lent H100): build the tool for sm_90 (Release, no tests), then run the benchmark
#   1. on the CUDA backend against CUB on the same device memory, and
#   2. on the OpenCL backend on the same GPU (REDSCAN_OPENCL_DEVICE=nvidia), CUB again as the reference,
# and plot both (when matplotlib is importable). Everything lands in $OUT (default ./bench-out): bench-*.csv,
# bench-*.txt (the tables), bench-*.err (progress), info.txt, nvidia-smi.txt, build.log, bench-*.png.
# See docs/PERFORMANCE.md.
#
#   bench/gpu-bench.sh                  both runs
#   ONLY=cuda bench/gpu-bench.sh        only the CUDA run (ONLY=opencl: only the OpenCL one)
#   SIZES=2^10..2^28 bench/gpu-bench.sh other sizes (default 2^16,2^20,2^24,2^28)
#   EXTRA="--reps 50" bench/gpu-bench.sh  more options for both runs
#   BUILD=build-gpu (default)           the build folder
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
SIZES=${SIZES:-2^16,2^20,2^24,2^28}
ONLY=${ONLY:-}
BUILD=${BUILD:-build-gpu}
EXTRA=${EXTRA:-}
COMMON=(--sizes "$SIZES" --ops "sum,max,argmax,top2" --dtypes "float32,int32")
# shellcheck disable=SC2206
EXTRA_ARGS=($EXTRA)

# NVIDIA's OpenCL driver is installed but not registered with the ICD loader on the lent machines.
if [ -e /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 ] || ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /etc/OpenCL/vendors && [ -e /etc/OpenCL/vendors/nvidia.icd ] ||
        echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
if ! command -v cmake >/dev/null || ! dpkg -s ocl-icd-opencl-dev >/dev/null 2>&1; then
    scripts/install-deps.sh >"$OUT/deps.log" 2>&1 || true
fi
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >"$OUT/nvidia-smi.txt" 2>&1

t0=$SECONDS
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DREDSCAN_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DREDSCAN_BUILD_TESTS=OFF && cmake --build "$BUILD" -j"$(nproc)" --target redscan_cli; } >"$OUT/build.log" 2>&1; then
    tail -n 40 "$OUT/build.log"
    echo "gpu-bench: build failed (log: $OUT/build.log)"
    exit 1
fi
echo "gpu-bench: built in $((SECONDS - t0)) s"
"$BUILD"/redscan info >"$OUT/info.txt" 2>&1

rc=0
run() { # name, env..., -- args...
    local name=$1; shift
    local t=$SECONDS
    # 280 s each keeps both runs and the build within one 10-minute call; the CSV is written row by row, so a run
    # cut short still leaves every row it finished.
    env "$@" >"$OUT/bench-$name.txt" 2>"$OUT/bench-$name.err"
    local r=$?
    [ $r -ne 0 ] && rc=$r
    echo "gpu-bench: $name: exit $r after $((SECONDS - t)) s"
    grep -E '^[0-9]+ cases:' "$OUT/bench-$name.txt" || tail -n 5 "$OUT/bench-$name.err"
}
if [ "$ONLY" != opencl ]; then
    run cuda timeout 280 "$BUILD"/redscan bench --backend cuda --compare cub "${COMMON[@]}" \
        --csv "$OUT/bench-cuda.csv" "${EXTRA_ARGS[@]}"
fi
if [ "$ONLY" != cuda ]; then
    run opencl-nvidia REDSCAN_OPENCL_DEVICE=nvidia timeout 280 "$BUILD"/redscan bench --backend opencl --compare cub \
        "${COMMON[@]}" --csv "$OUT/bench-opencl-nvidia.csv" "${EXTRA_ARGS[@]}"
fi

for f in "$OUT"/bench-*.csv; do
    if [ -s "$f" ]; then
        python3 scripts/plot_bench.py "$f" -o "${f%.csv}.png" --ops reduce.sum,reduce.max,scan.sum,scan.max,argmax,top2
    fi
done
# float32 rows at the largest size, for a first look (the whole tables are in $OUT): op dtype algo n, dev_ms (device
# events: CUDA events / OpenCL profiling events), host_ms (host clock around the blocking call), GB/s and %copy from
# dev_ms, vs_ref (dev_ms against CUB's CUDA events), vs_host (host clocks against CUB's host clock), check.
for f in "$OUT"/bench-*.txt; do
    echo "== $f: float32 at the largest n"
    awk '$2 == "float32" && $4 ~ /^[0-9]+$/ { n = $4 + 0; if (n > max) { max = n; k = 0 } if (n == max) row[k++] = $0 }
         END { for (i = 0; i < k; ++i) print row[i] }' "$f" | cut -c1-130 | head -n 45
done
exit $rc
