#!/usr/bin/env bash
# Time to the first result of a new process (docs/PERFORMANCE.md, "Time to the first result"), with the redscan
# program cache (docs/CACHE.md) and PoCL's own kernel cache each cold (an empty directory) or warm (filled by the
# run before). Every measurement is a fresh process of `redscan first-result` (redscan_create + one float32 sum of
# 4096 elements); the script prints the median and the range of RUNS runs per configuration, as the tool measures
# them (from main) and as seen from outside (fork + exec + exit, which adds loading the libraries).
#
#   scripts/first-result.sh [RUNS]          RUNS per configuration (default 5)
#   REDSCAN_CLI=build-x/redscan scripts/first-result.sh
#
# Uses REDSCAN_CACHE_DIR and POCL_CACHE_DIR below a temporary directory; touches neither ~/.cache/redscan nor
# ~/.cache/pocl. A cold PoCL cache makes every run compile kernels: expect seconds per run (and, for the first entry
# written, PoCL compiling every kernel of the program: tens of seconds on a small CPU).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-5}
cli=${REDSCAN_CLI:-build/redscan}
[[ -x $cli ]] || { echo "first-result.sh: $cli not found (build first, or set REDSCAN_CLI)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/redscan-first-result.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export REDSCAN_BACKEND=opencl

# one run: prints "<inside ms> <outside ms> <cache counters>"
one() {
  local t0 t1 line
  t0=$(date +%s%N)
  line=$("$cli" first-result)
  t1=$(date +%s%N)
  local inside=${line#first result }
  inside=${inside%% ms*}
  echo "$inside $(( (t1 - t0) / 1000 )) ${line#*program cache: }"
}

# median and range of column 1 (inside ms), median of column 2 (outside us), over the lines on stdin
summary() {
  local lines inside outside
  lines=$(cat)
  inside=$(sort -n -k1,1 <<<"$lines" | awk '{ v[NR] = $1; $1 = ""; $2 = ""; note = $0 }
    END { printf "%9.1f ms  (%.1f .. %.1f)", v[int((NR + 1) / 2)], v[1], v[NR]; printf "|%s", note }')
  outside=$(sort -n -k2,2 <<<"$lines" | awk '{ v[NR] = $2 / 1000 } END { printf "%7.1f ms", v[int((NR + 1) / 2)] }')
  echo "${inside%%|*}   outside $outside   ${inside#*|}"
}

# configuration: $1 label, $2 redscan state (cold|warm|off), $3 pocl state (cold|warm)
measure() {
  local label=$1 rs=$2 pocl=$3 i
  local rdir=$tmp/redscan-$rs pdir=$tmp/pocl-$pocl
  for ((i = 0; i < runs; i++)); do
    [[ $rs == cold ]] && rm -rf "$rdir"
    [[ $pocl == cold ]] && { rm -rf "$pdir"; mkdir -p "$pdir"; }
    if [[ $rs == off ]]; then
      REDSCAN_CACHE=0 POCL_CACHE_DIR=$pdir one
    else
      REDSCAN_CACHE_DIR=$rdir POCL_CACHE_DIR=$pdir one
    fi
  done | summary | sed "s/^/$(printf '%-34s' "$label")/"
}

echo "== redscan first-result, $runs runs each: $($cli --version), $(nproc) cores, $(date -u +%Y-%m-%d)"
# fill the warm directories once (not measured): the redscan entry and PoCL's kernels for it
mkdir -p "$tmp/pocl-warm"
REDSCAN_CACHE_DIR=$tmp/redscan-warm POCL_CACHE_DIR=$tmp/pocl-warm "$cli" first-result >/dev/null
printf '%-34s%s\n' "configuration" "   median (min .. max), from main; outside = whole process"
measure "redscan warm, PoCL warm" warm warm
measure "redscan off,  PoCL warm" off warm
measure "redscan warm, PoCL cold" warm cold
measure "redscan off,  PoCL cold" off cold
measure "redscan cold, PoCL cold" cold cold
