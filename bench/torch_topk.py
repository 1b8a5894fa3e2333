"""torch.topk of float32 on the GPU, timed like bench/topk_compare.cu (CUDA events, median of reps after a warm-up).

    python3 bench/torch_topk.py N K [reps]   prints: n k torch.topk median_ms GB/s (n * 4 bytes read)
"""
import sys

import torch

n, k = int(sys.argv[1]), int(sys.argv[2])
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
x = (torch.rand(n, device="cuda", dtype=torch.float32) - 0.5) * 2000
times = []
for r in range(reps + 1):
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    torch.topk(x, k)
    e1.record()
    torch.cuda.synchronize()
    if r:
        times.append(e0.elapsed_time(e1))
ms = sorted(times)[len(times) // 2]
print(f"{n} {k} torch.topk {ms:.4f} {n * 4 / ms / 1e6:.1f}")
