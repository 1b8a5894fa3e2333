#!/usr/bin/env bash
# issue 18 item 4: segmented reduce (float32 / int32 sum, float32 max) against CUB's DeviceSegmentedReduce (the
# toolkit's), a device copy of the same bytes and redscan's unsegmented reduce of the same bytes, over five
# segment-length distributions, on a GPU machine; then reduce by key (float32 / int32 sum, int32 keys) against CUB's
# DeviceReduce::ReduceByKey over runs of the uniform and powerlaw distributions; then, for all five distributions,
# inclusive scan by key (int32 keys = the segment index of each element) and segmented scan over the same segments
# (float32 / int32 sum) against CUB's DeviceScan::InclusiveSumByKey and redscan's unsegmented scan of n values
# (x_flat), every element checked (int32 exactly, float32 within 1e-5 * prefix sum|x|, scan by key and segmented scan
# bit for bit equal); the last line is the verdict with the mismatch counts (exit status 1 on any).
#   LIB=/path/with/libredscan.so.0 bench/segmented-compare.sh [log2 sizes...]   (default 26 28; REPS=20; PARTS=rks:
#   r segmented reduce and argmax, k reduce by key, s scan by key and segmented scan)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${LIB:?set LIB to the folder of libredscan.so.0}"
BIN=${BIN:-/tmp/segmented_compare}
nvcc -O3 -std=c++17 -arch=sm_90 -Iapi/include bench/segmented_compare.cu -o "$BIN" -L"$LIB" -l:libredscan.so.0 \
    -Xlinker -rpath="$LIB"
for e in ${@:-26 28}; do "$BIN" $((1 << e)) "${REPS:-20}" "${PARTS:-rks}"; done
