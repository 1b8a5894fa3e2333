/* Twin of kernels_cl/cpu_shape.clh: the vector helpers of the OpenCL CPU-shaped kernels. Nothing here: the CPU shape
 * (docs/ALGORITHMS.md, "CPU shape") is OpenCL-only, because CUDA devices are GPUs, which run the GPU-shaped kernels.
 * The expressions the CPU shape computes are those of reduce_coarsened.cu and of the coarsened block scan in the
 * reduce-then-scan grid (scan_coarsened.cuh, scan_grid.cu), bit for bit. The file exists so that kernels_cl and
 * kernels_cu keep mirroring each other file for file. */
#pragma once
