#!/usr/bin/env bash
# A/B of library variants for the segmented kernels (issue 18) in one call on a GPU machine, everything written to
# $OUT (or ./ab-out): the whole log (ab.log, nothing left to a terminal's tail) and its tables (ab-tables.md, by
# bench/segmented_ab_table.py). The variants are folders, each holding a libredscan.so.0 built from one tree (the
# last one is the candidate: the sanitizers and ncu run on it); the test binaries and the bench binary are shared.
#
#   VARIANTS="base=/v/base new=/v/new" [TESTS=build-gpu/tests] [BIN=segmented_compare] [LIMIT=500] \
#       bench/segmented-ab.sh [steps...]
#
# steps, in the order given (default: tests sanitize scan28 reduce28):
#   tests      test_segmented_scan, test_segmented, test_narrow, test_reduce_by_key under CUDA at REDSCAN_TEST_LEVEL
#              (default 1), every variant
#   sanitize   compute-sanitizer memcheck, racecheck, synccheck of test_segmented_scan, the candidate, one run per
#              REDSCAN_TEST_FILTER word of FILTERS (default: team-many short power-law batch-mix)
#   scan28 scan26 reduce28 reduce26 rbk28
#              segmented_compare at 2^28 or 2^26, parts s (scans), r (segmented reduce) or k (reduce by key), the
#              variants alternating, RUNS rounds (default 2), REPS timed calls a run (default 10), DISTS (default all)
#   ncu        the candidate's kernel NCU_KERNEL (an exact name, e.g. seg_scan_short: a regex would also catch
#              seg_scan_short_pairs) over NCU_DISTS (default powerlaw), parts NCU_PARTS (default s), 2^28: a report
#              with source counters (ncu.ncu-rep, which the device tool may not bring back: too big) and its CSVs
# A step that would start after LIMIT seconds is skipped and says so, so a call ends inside the device tool's limit.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${VARIANTS:?set VARIANTS to name=folder pairs}"
OUTDIR=${OUT:-$PWD/ab-out}
mkdir -p "$OUTDIR"
LOG=$OUTDIR/ab.log
TESTS=${TESTS:-build-gpu/tests}
LIMIT=${LIMIT:-500}
T0=$SECONDS
read -r -a PAIRS <<<"$VARIANTS"
LAST=${PAIRS[${#PAIRS[@]} - 1]}
say() { echo "$*" | tee -a "$LOG"; }
left() { ((SECONDS - T0 < LIMIT)) || { say "-- skipped (past LIMIT=$LIMIT s): $*"; return 1; }; }
with() { # folder command...: the command with that variant's library first on the loader's path
    local dir=$1
    shift
    LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}
if [ -z "${BIN:-}" ]; then
    BIN=$OUTDIR/segmented_compare
    nvcc -O3 -std=c++17 -arch=sm_90 -Iapi/include bench/segmented_compare.cu -o "$BIN" -L"${LAST#*=}" \
        -l:libredscan.so.0 >>"$LOG" 2>&1 || { say "nvcc of the bench failed (see $LOG)"; exit 1; }
fi
export REDSCAN_BACKEND=cuda
say "== $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null); variants: $VARIANTS"

compare() { # size parts
    local r v
    for ((r = 1; r <= ${RUNS:-2}; r++)); do
        for v in "${PAIRS[@]}"; do
            left "${v%%=*} run $r $1 $2" || continue
            say "== ${v%%=*} run $r $1 $2"
            with "${v#*=}" env ${DISTS:+SEGMENTED_COMPARE_DISTS=$DISTS} "$BIN" "$1" "${REPS:-10}" "$2" >>"$LOG" 2>&1
        done
    done
}

for step in ${*:-tests sanitize scan28 reduce28}; do
    case $step in
    tests)
        for v in "${PAIRS[@]}"; do
            for t in test_segmented_scan test_segmented test_narrow test_reduce_by_key; do
                left "${v%%=*} $t" || continue
                with "${v#*=}" env REDSCAN_TEST_LEVEL="${REDSCAN_TEST_LEVEL:-1}" "$TESTS/$t" >"$OUTDIR/test.out" 2>&1
                say "== ${v%%=*} $t (rc $?): $(tail -n 1 "$OUTDIR/test.out")"
            done
        done
        ;;
    sanitize)
        for tool in memcheck racecheck synccheck; do
            for f in ${FILTERS:-team-many short power-law batch-mix}; do
                left "$tool $f" || continue
                with "${LAST#*=}" env REDSCAN_TEST_FILTER="$f" compute-sanitizer --tool "$tool" --error-exitcode 9 \
                    "$TESTS/test_segmented_scan" >"$OUTDIR/san.out" 2>&1
                say "== ${LAST%%=*} $tool $f (rc $?): $(grep -E 'checks|SUMMARY' "$OUTDIR/san.out" | tr '\n' ' ')"
            done
        done
        ;;
    scan28) compare 268435456 s ;;
    scan26) compare 67108864 s ;;
    reduce28) compare 268435456 r ;;
    reduce26) compare 67108864 r ;;
    rbk28) compare 268435456 k ;;
    ncu)
        K=${NCU_KERNEL:-seg_scan_short}
        left "ncu $K" || continue
        with "${LAST#*=}" env SEGMENTED_COMPARE_DISTS="${NCU_DISTS:-powerlaw}" ncu --kernel-name "$K" --launch-count 1 \
            --section SourceCounters --section LaunchStats --section Occupancy \
            --section SpeedOfLight --section MemoryWorkloadAnalysis --import-source yes -o "$OUTDIR/ncu" -f \
            "$BIN" 268435456 1 "${NCU_PARTS:-s}" >>"$LOG" 2>&1
        # the CUDA lines need the sources at the paths the library was built from; the SASS view does not
        ncu -i "$OUTDIR/ncu.ncu-rep" --page source --csv --print-source cuda,sass >"$OUTDIR/ncu-source.csv" 2>&1
        ncu -i "$OUTDIR/ncu.ncu-rep" --page source --csv --print-source sass >"$OUTDIR/ncu-sass.csv" 2>&1
        ncu -i "$OUTDIR/ncu.ncu-rep" --page details --csv >"$OUTDIR/ncu-details.csv" 2>&1
        say "== ncu $K: ncu-details.csv, ncu-source.csv, ncu-sass.csv in $OUTDIR"
        ;;
    *) say "unknown step $step" ;;
    esac
done
python3 bench/segmented_ab_table.py "$LOG" >"$OUTDIR/ab-tables.md"
grep -E "^== .*\(rc|RESULTS DIFFER|results agree|worst|skipped" "$LOG"
say "== segmented-ab: $((SECONDS - T0)) s; tables in $OUTDIR/ab-tables.md"
