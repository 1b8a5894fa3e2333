/* Fault injection for the CUDA backend (fault builds only: -DREDSCAN_FAULT_INJECTION; api/src/fault.h).
 *
 * Included by cuda_internal.h, so every host file of the backend sees it: cudaMalloc / cudaFree, cudaHostAlloc /
 * cudaFreeHost (the result area), the transfers (cudaMemcpyAsync, cudaMemsetAsync), events and the kernel
 * launchers of cu_launch.h are renamed to wrappers
 * (cuda_fault.c) that count a point, fail the armed one with a realistic error without calling CUDA (the launch
 * does not happen), and follow live allocations and events. Call sites stay as they are, so an injected failure takes the
 * error path a real one would. CUDA kernels are compiled ahead of time: there are no BUILD points. A normal build
 * renames nothing. */
#ifndef REDSCAN_CUDA_FAULT_H
#define REDSCAN_CUDA_FAULT_H

#ifdef REDSCAN_FAULT_INJECTION
#include <cuda_runtime_api.h>

#include "cu_launch.h"

cudaError_t rs_fault_cudaMalloc(void **ptr, size_t size);
cudaError_t rs_fault_cudaFree(void *ptr);
cudaError_t rs_fault_cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t rs_fault_cudaFreeHost(void *ptr);
cudaError_t rs_fault_cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                     cudaStream_t stream);
cudaError_t rs_fault_cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream);
cudaError_t rs_fault_cudaEventCreate(cudaEvent_t *event);
cudaError_t rs_fault_cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t rs_fault_cudaEventDestroy(cudaEvent_t event);

cudaError_t rs_fault_cu_reduce_tree(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                    void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_reduce_interleaved(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                           void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_reduce_coarsened(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                         void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_reduce_warp_sync(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                         void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_reduce_shuffle(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                       void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_argext(int dtype, int want_max, const void *vals, const unsigned long long *idx,
                               unsigned long long count, unsigned long long n, void *out_vals,
                               unsigned long long *out_idx, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_topk(int dtype, int largest, const void *vals, const unsigned long long *idx,
                             unsigned long long count, unsigned long long n, unsigned k, void *out_vals,
                             unsigned long long *out_idx, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_scan_sections(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                      void *totals, unsigned long long n, int exclusive, const void *seed, int seeded,
                                      unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_scan_tile_reduce(int block, int in_dtype, int out_dtype, int op, const void *in, void *totals,
                                         unsigned long long n, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_scan_tile_seeded(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                         const void *carry, unsigned long long n, int exclusive, unsigned grid,
                                         cudaStream_t stream);
cudaError_t rs_fault_cu_scan_add_carry(int dtype, int op, void *data, const void *carry, unsigned long long n,
                                       unsigned long long section, unsigned grid, cudaStream_t stream);
cudaError_t rs_fault_cu_scan_single_pass(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                         unsigned long long *flags, unsigned long long n, int exclusive,
                                         const void *init, unsigned spins, int inplace, unsigned per,
                                         unsigned grid, cudaStream_t stream);

#ifndef RS_CUDA_FAULT_WRAPPERS /* cuda_fault.c calls the real functions */
#define cudaMalloc rs_fault_cudaMalloc
#define cudaFree rs_fault_cudaFree
#define cudaHostAlloc rs_fault_cudaHostAlloc
#define cudaFreeHost rs_fault_cudaFreeHost
#define cudaMemcpyAsync rs_fault_cudaMemcpyAsync
#define cudaMemsetAsync rs_fault_cudaMemsetAsync
#define cudaEventCreate rs_fault_cudaEventCreate
#define cudaEventCreateWithFlags rs_fault_cudaEventCreateWithFlags
#define cudaEventDestroy rs_fault_cudaEventDestroy
#define rs_cu_reduce_tree rs_fault_cu_reduce_tree
#define rs_cu_reduce_interleaved rs_fault_cu_reduce_interleaved
#define rs_cu_reduce_coarsened rs_fault_cu_reduce_coarsened
#define rs_cu_reduce_warp_sync rs_fault_cu_reduce_warp_sync
#define rs_cu_reduce_shuffle rs_fault_cu_reduce_shuffle
#define rs_cu_argext rs_fault_cu_argext
#define rs_cu_topk rs_fault_cu_topk
#define rs_cu_scan_sections rs_fault_cu_scan_sections
#define rs_cu_scan_tile_reduce rs_fault_cu_scan_tile_reduce
#define rs_cu_scan_tile_seeded rs_fault_cu_scan_tile_seeded
#define rs_cu_scan_add_carry rs_fault_cu_scan_add_carry
#define rs_cu_scan_single_pass rs_fault_cu_scan_single_pass
#endif

#endif /* REDSCAN_FAULT_INJECTION */
#endif /* REDSCAN_CUDA_FAULT_H */
