#!/usr/bin/env bash
# The same benchmark command on two builds of redscan, one after the other on one machine: whether a change made
# anything slower (issue 14: the blocking calls, which became the async path plus a wait, against the commit
# before). OLD is a source tree of the older commit, e.g. made with
#     mkdir -p build-old-src && git archive 60bb9c3 | tar -x -C build-old-src
# (build-* is ignored by git, so it travels to a lent GPU machine as a carried path).
#
#   scripts/compare-builds.sh OLD_SRC_DIR [redscan bench arguments...]
#     default arguments: --backend cuda --sizes 2^16,2^20,2^24 --ops sum,argmax,top2 --dtypes float32
#     --algos coarsened,coarsened/reduce_then_scan --compare cub (the AUTO algorithms on a GPU; on a machine
#     without nvcc: --backend opencl, 2^16 and 2^20, no --compare)
# Builds OLD_SRC_DIR in build-old and this tree in build-new (Release; CUDA for the present GPUs as
# scripts/cuda-args.sh says), then runs `redscan bench ARGS` with each, new, old, new, and prints the three tables.
set -euo pipefail
cd "$(dirname "$0")/.."
old_src=${1:?usage: scripts/compare-builds.sh OLD_SRC_DIR [bench arguments]}
shift
if [ $# -eq 0 ]; then
    if command -v nvcc >/dev/null && command -v nvidia-smi >/dev/null; then
        set -- --backend cuda --sizes 2^16,2^20,2^24 --ops sum,argmax,top2 --dtypes float32 \
            --algos coarsened,coarsened/reduce_then_scan --compare cub
    else
        set -- --backend opencl --sizes 2^16,2^20 --ops sum,argmax,top2 --dtypes float32 \
            --algos coarsened,coarsened/reduce_then_scan
    fi
fi
read -r -a cuda_args <<<"$(scripts/cuda-args.sh)"
jobs=$(nproc)
build() { # source dir, build dir
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DREDSCAN_BUILD_TESTS=OFF "${cuda_args[@]}" >"$2.configure.log" 2>&1
    cmake --build "$2" -j"$jobs" --target redscan_cli >"$2.build.log" 2>&1
}
mkdir -p build-new build-old
build "$old_src" build-old & old_pid=$!
build . build-new & new_pid=$!
wait "$old_pid" || { echo "compare-builds: the old build failed (build-old.build.log)"; tail -n 20 build-old.build.log; exit 1; }
wait "$new_pid" || { echo "compare-builds: the new build failed (build-new.build.log)"; tail -n 20 build-new.build.log; exit 1; }
for which in new old new; do
    echo "== $which ($(cd "build-$which" && ./redscan --version 2>/dev/null | head -n 1 || true)): redscan bench $*"
    "build-$which/redscan" bench "$@" 2>&1 | grep -v '^\[bench'
done
