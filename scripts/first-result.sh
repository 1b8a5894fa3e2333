#!/usr/bin/env bash
# Time to the first result of a new process, per family of operations (docs/PERFORMANCE.md, "Time to the first
# result"). Every measurement is a fresh process of `redscan first-result --op OP` (redscan_create, then the first
# call of that family on 65536 float32 values, checked), with the caches involved either cold (empty directories)
# or warm (filled by the process before):
#   - redscan's program cache (REDSCAN_CACHE_DIR, docs/CACHE.md),
#   - PoCL's kernel cache (POCL_CACHE_DIR), and NVIDIA's (CUDA_CACHE_PATH) on a GPU machine.
# Prints a Markdown table: median (min .. max) over RUNS runs of the time from main to the checked result, and the
# create / call split of the median run.
#
#   scripts/first-result.sh [RUNS]                 RUNS per cell (default 3)
#   scripts/first-result.sh --write [RUNS]         also replace the table in docs/PERFORMANCE.md (between the
#                                                  first-result markers of the backend's section)
#   REDSCAN_CLI=build-x/redscan scripts/first-result.sh
#   REDSCAN_BACKEND=cuda scripts/first-result.sh   (default opencl; REDSCAN_OPENCL_DEVICE picks the device)
#
# Touches neither ~/.cache/redscan nor ~/.cache/pocl nor ~/.nv: every directory is below a temporary one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
write=0
if [[ "${1:-}" == --write ]]; then write=1; shift; fi
runs=${1:-3}
cli=${REDSCAN_CLI:-build/redscan}
[[ -x $cli ]] || { echo "first-result.sh: $cli not found (build first, or set REDSCAN_CLI)" >&2; exit 2; }
export REDSCAN_BACKEND=${REDSCAN_BACKEND:-opencl}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/redscan-first-result.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ops=(sum scan mean argmax topk)

# one process with the caches below $1: prints "<total ms> <create ms> <call ms>"
one() {
  local dir=$1 op=$2 line
  mkdir -p "$dir/redscan" "$dir/pocl" "$dir/nv"
  line=$(REDSCAN_CACHE_DIR=$dir/redscan POCL_CACHE_DIR=$dir/pocl CUDA_CACHE_PATH=$dir/nv "$cli" first-result --op "$op") || {
    echo "first-result.sh: redscan first-result --op $op failed" >&2
    exit 1
  }
  # "first result T ms (create C ms, OP X ms; ..."
  sed -E 's/^first result ([0-9.]+) ms \(create ([0-9.]+) ms, [a-z]+ ([0-9.]+) ms.*/\1 \2 \3/' <<<"$line"
}

# median (min .. max) of the totals, and the split of the median run
cell() {
  sort -n -k1,1 | awk '{ t[NR] = $1; c[NR] = $2; o[NR] = $3 }
    END { m = int((NR + 1) / 2); printf "%.0f ms (%.0f .. %.0f; create %.0f + call %.0f)", t[m], t[1], t[NR], c[m], o[m] }'
}

device=$("$cli" info 2>/dev/null | sed -n "s/^  REDSCAN_BACKEND=[a-z]* -> *//p" | head -n 1)
table=$(
  echo "| operation (first call, float32, n = 65536) | cold caches | warm caches |"
  echo "| --- | ---: | ---: |"
  for op in "${ops[@]}"; do
    cold=$(for ((i = 0; i < runs; i++)); do rm -rf "$tmp/cold"; one "$tmp/cold" "$op"; done | cell)
    rm -rf "$tmp/warm"; one "$tmp/warm" "$op" >/dev/null # fill
    warm=$(for ((i = 0; i < runs; i++)); do one "$tmp/warm" "$op"; done | cell)
    echo "| $op | $cold | $warm |"
  done
)
header="\`scripts/first-result.sh $runs\`, $REDSCAN_BACKEND${device:+ ($device)}, $($cli --version | head -n 1), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg) at the end; median (min .. max) of $runs fresh processes per cell:"
echo "$header"
echo
echo "$table"

if [[ $write == 1 ]]; then
  doc=docs/PERFORMANCE.md
  begin="<!-- first-result:$REDSCAN_BACKEND:begin -->"
  end="<!-- first-result:$REDSCAN_BACKEND:end -->"
  grep -qF "$begin" "$doc" || { echo "first-result.sh: no '$begin' marker in $doc" >&2; exit 1; }
  block=$(printf '%s\n%s\n\n%s\n%s' "$begin" "$header" "$table" "$end")
  BLOCK=$block awk -v b="$begin" -v e="$end" '
    $0 == b { print ENVIRON["BLOCK"]; skip = 1; next }
    $0 == e { skip = 0; next }
    !skip { print }' "$doc" >"$tmp/doc" && cp "$tmp/doc" "$doc"
  echo "first-result.sh: table written to $doc"
fi
