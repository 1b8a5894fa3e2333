#!/usr/bin/env bash
# issue 16 item 3: top-k (k = 2, 256) of float32 against the newest CUB's DeviceTopK and torch.topk on a GPU machine.
#   CCCL=/path/to/cccl LIB=/path/with/libredscan.so.0 bench/topk-compare.sh [sizes...]   (default 2^20 2^24 2^28)
# CCCL: a checkout of github.com/NVIDIA/cccl (header-only; 3.5 or newer for cub::DeviceTopK).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CCCL:?set CCCL to a CCCL checkout}" "${LIB:?set LIB to the folder of libredscan.so.0}"
BIN=${BIN:-/tmp/topk_compare}
nvcc -O3 -std=c++17 -arch=sm_90 -I"$CCCL/cub" -I"$CCCL/thrust" -I"$CCCL/libcudacxx/include" -Iapi/include \
    bench/topk_compare.cu -o "$BIN" -L"$LIB" -l:libredscan.so.0 -Xlinker -rpath="$LIB"
for e in "${@:-20 24 28}"; do
    n=$((1 << e))
    for k in 2 256; do
        "$BIN" "$n" "$k" 20
        python3 bench/torch_topk.py "$n" "$k" 20 || true
    done
done
