/* Twin of kernels_cl/scan_coarsened_cpu.cl: the CPU shape of the coarsened block scan in the reduce-then-scan grid
 * (tile_reduce_cpu_in_coarse, scan_tile_seeded_cpu_in_coarse). OpenCL-only: CUDA devices are GPUs, so the CUDA backend
 * runs the GPU-shaped kernels of the same expression, tile_reduce_in_coarse and scan_tile_seeded_in_coarse
 * (scan_grid.cu with scan_coarsened.cuh): section totals = each lane's 8 values folded left to right, then the
 * balanced pairwise tree over the 256 lanes; out = carry (+) L with L the coarsened three-phase block scan
 * (docs/ALGORITHMS.md, "Scans" and "CPU shape"). This translation unit is empty on purpose. */
