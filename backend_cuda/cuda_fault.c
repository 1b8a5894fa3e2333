/* The CUDA wrappers of fault builds (see cuda_fault.h): count a point, fail the armed one as the runtime would
 * (nothing allocated, copied or launched), follow live allocations and events. */
#ifdef REDSCAN_FAULT_INJECTION
#define RS_CUDA_FAULT_WRAPPERS
#include "cuda_internal.h"

#include "fault.h"

/* ---- memory and transfers */
cudaError_t rs_fault_cudaMalloc(void **ptr, size_t size)
{
    if (RS_FAULT_HIT(RS_FAULT_ALLOC)) return cudaErrorMemoryAllocation;
    cudaError_t err = cudaMalloc(ptr, size);
    if (err == cudaSuccess) RS_FAULT_TRACK(RS_LIVE_MEMORY, +1);
    return err;
}

cudaError_t rs_fault_cudaFree(void *ptr)
{
    cudaError_t err = cudaFree(ptr);
    if (err == cudaSuccess && ptr) RS_FAULT_TRACK(RS_LIVE_MEMORY, -1);
    return err;
}

cudaError_t rs_fault_cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    if (RS_FAULT_HIT(RS_FAULT_ALLOC)) return cudaErrorMemoryAllocation;
    cudaError_t err = cudaHostAlloc(ptr, size, flags);
    if (err == cudaSuccess) RS_FAULT_TRACK(RS_LIVE_MEMORY, +1);
    return err;
}

cudaError_t rs_fault_cudaFreeHost(void *ptr)
{
    cudaError_t err = cudaFreeHost(ptr);
    if (err == cudaSuccess && ptr) RS_FAULT_TRACK(RS_LIVE_MEMORY, -1);
    return err;
}

/* cudaErrorInvalidValue: what the runtime answers for a bad copy; it leaves the context usable. */
cudaError_t rs_fault_cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    if (RS_FAULT_HIT(RS_FAULT_TRANSFER)) return cudaErrorInvalidValue;
    return cudaMemcpyAsync(dst, src, count, kind, stream);
}

cudaError_t rs_fault_cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    if (RS_FAULT_HIT(RS_FAULT_TRANSFER)) return cudaErrorInvalidValue;
    return cudaMemsetAsync(ptr, value, count, stream);
}

/* ---- events (no points: only followed) */
cudaError_t rs_fault_cudaEventCreate(cudaEvent_t *event)
{
    cudaError_t err = cudaEventCreate(event);
    if (err == cudaSuccess) RS_FAULT_TRACK(RS_LIVE_EVENT, +1);
    return err;
}

cudaError_t rs_fault_cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    cudaError_t err = cudaEventCreateWithFlags(event, flags);
    if (err == cudaSuccess) RS_FAULT_TRACK(RS_LIVE_EVENT, +1);
    return err;
}

cudaError_t rs_fault_cudaEventDestroy(cudaEvent_t event)
{
    cudaError_t err = cudaEventDestroy(event);
    if (err == cudaSuccess) RS_FAULT_TRACK(RS_LIVE_EVENT, -1);
    return err;
}

/* ---- launches: cudaErrorLaunchOutOfResources, the usual reason a launch is refused (not sticky) */
#define RS_LAUNCH(call) (RS_FAULT_HIT(RS_FAULT_LAUNCH) ? cudaErrorLaunchOutOfResources : (call))

#define RS_REDUCE_WRAPPER(stem)                                                                                 \
    cudaError_t rs_fault_cu_##stem(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,   \
                                   void *partials, unsigned grid, cudaStream_t stream)                         \
    {                                                                                                           \
        return RS_LAUNCH(rs_cu_##stem(in_dtype, out_dtype, op, in, n, partials, grid, stream));                 \
    }
RS_REDUCE_WRAPPER(reduce_tree)
RS_REDUCE_WRAPPER(reduce_interleaved)
RS_REDUCE_WRAPPER(reduce_coarsened)
RS_REDUCE_WRAPPER(reduce_warp_sync)
RS_REDUCE_WRAPPER(reduce_shuffle)

cudaError_t rs_fault_cu_argext(int dtype, int want_max, const void *vals, const unsigned long long *idx,
                               unsigned long long count, unsigned long long n, void *out_vals,
                               unsigned long long *out_idx, unsigned grid, cudaStream_t stream)
{
    return RS_LAUNCH(rs_cu_argext(dtype, want_max, vals, idx, count, n, out_vals, out_idx, grid, stream));
}

cudaError_t rs_fault_cu_topk(int dtype, int largest, const void *vals, const unsigned long long *idx,
                             unsigned long long count, unsigned long long n, unsigned k, void *out_vals,
                             unsigned long long *out_idx, unsigned grid, cudaStream_t stream)
{
    return RS_LAUNCH(rs_cu_topk(dtype, largest, vals, idx, count, n, k, out_vals, out_idx, grid, stream));
}

cudaError_t rs_fault_cu_scan_sections(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                      void *totals, unsigned long long n, int exclusive, const void *seed, int seeded,
                                      unsigned grid, cudaStream_t stream)
{
    return RS_LAUNCH(rs_cu_scan_sections(block, in_dtype, out_dtype, op, in, out, totals, n, exclusive, seed, seeded,
                                         grid, stream));
}

cudaError_t rs_fault_cu_scan_tile_reduce(int block, int in_dtype, int out_dtype, int op, const void *in, void *totals,
                                         unsigned long long n, unsigned grid, cudaStream_t stream)
{
    return RS_LAUNCH(rs_cu_scan_tile_reduce(block, in_dtype, out_dtype, op, in, totals, n, grid, stream));
}

cudaError_t rs_fault_cu_scan_tile_seeded(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                         const void *carry, unsigned long long n, int exclusive, unsigned grid,
                                         cudaStream_t stream)
{
    return RS_LAUNCH(
        rs_cu_scan_tile_seeded(block, in_dtype, out_dtype, op, in, out, carry, n, exclusive, grid, stream));
}

cudaError_t rs_fault_cu_scan_add_carry(int dtype, int op, void *data, const void *carry, unsigned long long n,
                                       unsigned long long section, unsigned grid, cudaStream_t stream)
{
    return RS_LAUNCH(rs_cu_scan_add_carry(dtype, op, data, carry, n, section, grid, stream));
}

cudaError_t rs_fault_cu_scan_single_pass(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                         unsigned long long *flags, unsigned long long n, int exclusive,
                                         const void *init, unsigned spins, int inplace, unsigned per,
                                         unsigned grid, cudaStream_t stream)
{
    return RS_LAUNCH(rs_cu_scan_single_pass(block, in_dtype, out_dtype, op, in, out, flags, n, exclusive, init, spins,
                                            inplace, per, grid, stream));
}
#else
/* Normal build: nothing here (ISO C wants a declaration in every translation unit). */
typedef int rs_cuda_fault_not_built;
#endif
