#!/usr/bin/env bash
# Every OpenCL kernel under Oclgrind (docs/RELIABILITY.md, "Kernel checkers"): tests/kernel_check, the small driver
# that runs each kernel of each operation with its results checked bit for bit, once per family of operations
# (reduce, scan, single_pass, select, segmented) in its own process, the processes in parallel, in two passes:
#   - GPU shapes (REDSCAN_OPENCL_SHAPE=gpu: every GPU-shaped kernel, which on this CPU device AUTO would not take):
#       oclgrind --data-races --uninitialized --check-api
#   - the device's own shapes (AUTO's CPU-shaped kernels):
#       oclgrind --data-races --check-api
#     without --uninitialized: Oclgrind 21.10's uninitialized-value plugin crashes (SIGSEGV inside the plugin) on
#     the shufflevector with undef mask elements that clang emits for a vector literal built from swizzles, as the
#     CPU-shaped kernels do; scripts/oclgrind-repro/shuffle_crash.c shows it with a three-line kernel.
# Each family runs in a process of its own because the same plugin takes a buffer's bytes past the first
# clEnqueueFillBuffer pattern for uninitialized for ever after, whatever kernels write there (the single_pass grid
# zero-fills its flags in the scratch slot that the other scan grids use next); scripts/oclgrind-repro/fill_shadow.c.
# Any message of Oclgrind's (a race, a read of an uninitialized value, an access out of bounds, a divergent
# barrier, an OpenCL API error), a crash or a wrong result fails the run.
#
#   scripts/oclgrind.sh [BUILD_DIR]     (default: build; the tests must be built: tests/kernel_check)
# Installs oclgrind (Debian package) when missing. Logs: BUILD_DIR/oclgrind/<shape>-<family>.{log,report}.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
drv=$dir/tests/kernel_check
[ -x "$drv" ] || { echo "oclgrind: $drv is not built (cmake --build $dir --target kernel_check)"; exit 1; }
if ! command -v oclgrind >/dev/null; then
    sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
    $sudo_ apt-get install -y oclgrind >/dev/null 2>&1 || { $sudo_ apt-get update >/dev/null 2>&1 && $sudo_ apt-get install -y oclgrind >/dev/null 2>&1; } \
        || { echo "oclgrind: cannot install the oclgrind package"; exit 1; }
fi
logs=$dir/oclgrind
rm -rf "$logs"
mkdir -p "$logs"

# One job: shape family. Writes <shape>-<family>.{log,report,result}.
job() {
    local shape=$1 family=$2 checks="--data-races --check-api"
    [ "$shape" = gpu ] && checks="--data-races --uninitialized --check-api"
    local base=$logs/$shape-$family t0=$SECONDS rc reports=0
    # shellcheck disable=SC2086 # $checks is a list of options
    # One Oclgrind worker thread per job: the jobs already run one per core.
    OCLGRIND_NUM_THREADS=${OCLGRIND_NUM_THREADS:-1} REDSCAN_BACKEND=opencl REDSCAN_CACHE=0 REDSCAN_OPENCL_SHAPE=$shape \
        oclgrind $checks --log "$base.report" "$drv" "$family" >"$base.log" 2>&1
    rc=$?
    [ -s "$base.report" ] && reports=$(grep -c 'Kernel:' "$base.report")
    local verdict=ok
    { [ "$rc" != 0 ] || [ -s "$base.report" ] || ! grep -q ' 0 failures' "$base.log"; } && verdict=FAILED
    printf '%-6s %-5s %-12s %-36s exit %3s, %4s reports, %4d s  %s\n' "$verdict" "$shape" "$family" \
        "$(tail -n 1 "$base.log" | sed 's/^kernel_check: //' | cut -c1-36)" "$rc" "$reports" $((SECONDS - t0)) "($checks)" \
        | tee "$base.result"
}
export -f job
export drv logs

t0=$SECONDS
# The slowest jobs first, so that the parallel run ends sooner.
printf '%s\n' "gpu scan" "gpu single_pass" "auto scan" "gpu reduce" "auto single_pass" "gpu select" "auto reduce" "gpu segmented" \
    "auto select" | xargs -P "$(nproc)" -L 1 bash -c 'job "$0" "$1"'
status=0
for r in "$logs"/*.result; do
    if grep -q '^FAILED' "$r"; then
        status=1
        base=${r%.result}
        echo "== $(basename "$base"): first lines of the log and of Oclgrind's report"
        grep -E 'FAIL|Segmentation|error' "$base.log" | head -n 10
        [ -s "$base.report" ] && head -n 30 "$base.report"
    fi
done
echo "oclgrind: $(ls "$logs"/*.result | wc -l) jobs, $(grep -l '^FAILED' "$logs"/*.result | wc -l) failed, $((SECONDS - t0)) s"
exit $status
