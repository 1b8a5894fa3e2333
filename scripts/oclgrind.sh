#!/usr/bin/env bash
# Every OpenCL kernel under Oclgrind (docs/RELIABILITY.md, "Kernel checkers"): tests/kernel_check, the small driver
# that runs each kernel of each operation once with its results checked, under
#     oclgrind --data-races --uninitialized --check-api
# once with the default kernel shapes and once with REDSCAN_OPENCL_SHAPE=gpu (Oclgrind's device is a CPU, where
# AUTO takes the CPU-shaped kernels). Any message of Oclgrind's (a race, a read of an uninitialized value, an
# access out of bounds, a divergent barrier, an OpenCL API error) fails the run, as does a wrong result.
#
#   scripts/oclgrind.sh [BUILD_DIR]     (default: build; the tests must be built: tests/kernel_check)
# Installs oclgrind (Debian package) when missing. Logs: BUILD_DIR/oclgrind-<shape>.log.
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
status=0
for shape in auto gpu; do
    log=$dir/oclgrind-$shape.log
    report=$dir/oclgrind-$shape.report
    t0=$SECONDS
    REDSCAN_BACKEND=opencl REDSCAN_CACHE=0 REDSCAN_OPENCL_SHAPE=$shape \
        oclgrind --data-races --uninitialized --check-api --log "$report" "$drv" >"$log" 2>&1
    rc=$?
    reports=0
    [ -s "$report" ] && reports=$(grep -c . "$report")
    echo "oclgrind: shape $shape: $(tail -n 1 "$log"); exit $rc; $reports lines of Oclgrind reports; $((SECONDS - t0)) s"
    if [ "$rc" != 0 ] || [ "$reports" != 0 ]; then
        status=1
        grep -E 'FAIL' "$log" | head -n 10
        [ -s "$report" ] && head -n 40 "$report"
    fi
done
exit $status
