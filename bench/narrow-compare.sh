#!/usr/bin/env bash
# issue 17 item 3: reduce and scan of int8 / float16 / bfloat16 against CUB (the toolkit's) and a device copy, on a
# GPU machine.   LIB=/path/with/libredscan.so.0 bench/narrow-compare.sh [log2 sizes...]   (default 24 28)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${LIB:?set LIB to the folder of libredscan.so.0}"
BIN=${BIN:-/tmp/narrow_compare}
nvcc -O3 -std=c++17 -arch=sm_90 -Iapi/include bench/narrow_compare.cu -o "$BIN" -L"$LIB" -l:libredscan.so.0 \
    -Xlinker -rpath="$LIB"
for e in ${@:-24 28}; do "$BIN" $((1 << e)) 20; done
