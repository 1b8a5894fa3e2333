/* CUDA backend: the result area, where the last pass of a reduction, argmin/argmax or top-k writes its result.
 *
 * It is pinned host memory mapped into the device's address space (cudaHostAllocMapped), allocated on the first
 * call that needs it and kept until shutdown. The last kernel writes the result there itself, so a call ends
 * with its last kernel: no device-to-host copy command follows it. A 4-byte cudaMemcpyAsync into the caller's
 * (pageable) memory used to cost the call about 10 us of device time on the H100, most of the gap between a
 * redscan reduction and CUB's (docs/PERFORMANCE.md). The host reads the area only after the stream has been
 * waited for, which makes the kernel's writes visible; a context is used by one thread at a time, so one area
 * per context suffices. The blocking entry points hand these addresses to the same operations the _async calls run
 * (rs_cuda_result_slots), then wait and copy out (rs_cuda_result_take).
 * The area also holds the table of empty results that an n = 0 _async reduction copies from (rs_cuda_store_empty). */
#include <string.h>

#include "cuda_internal.h"

/* Values and indices of the largest top-k (k = RS_CU_TOPK_MAX, 8-byte values), one after the other, then the
 * table of empty results: 8 bytes for each (op, dtype). */
#define RS_CUDA_RESULT_HALF RS_RESULT_BYTES
#define RS_CUDA_OPS 4
#define RS_CUDA_DTYPES 12 /* INT32 .. BFLOAT16 (the narrow types too) */
#define RS_CUDA_EMPTY_AT (2 * RS_CUDA_RESULT_HALF)
#define RS_CUDA_AREA_BYTES (RS_CUDA_EMPTY_AT + RS_CUDA_OPS * RS_CUDA_DTYPES * 8)
_Static_assert(RS_CUDA_RESULT_HALF >= (size_t)RS_CU_TOPK_MAX * 8, "the result area holds the largest top-k");

redscan_status rs_cuda_result_area(redscan_ctx *ctx)
{
    rs_cuda *c = rs_cuda_of(ctx);
    if (c->result_host) return REDSCAN_OK;
    void *host = NULL, *dev = NULL;
    cudaError_t err = cudaHostAlloc(&host, RS_CUDA_AREA_BYTES, cudaHostAllocMapped);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaHostAlloc (result area, mapped)");
    err = cudaHostGetDevicePointer(&dev, host, 0);
    if (err != cudaSuccess) {
        (void)cudaFreeHost(host);
        return rs_cuda_fail(ctx, err, "cudaHostGetDevicePointer (result area)");
    }
    /* Written once, never changed: a copy from it may be captured into a CUDA graph and replayed at any time. */
    for (int op = 0; op < RS_CUDA_OPS; op++)
        for (int d = 1; d <= RS_CUDA_DTYPES; d++) {
            const rs_scalar v = rs_empty_result((redscan_op)op, (redscan_dtype)d);
            memcpy((char *)host + RS_CUDA_EMPTY_AT + ((size_t)op * RS_CUDA_DTYPES + (size_t)(d - 1)) * 8, v.bytes, 8);
        }
    c->result_host = host;
    c->result_dev = dev;
    return REDSCAN_OK;
}

redscan_status rs_cuda_store_empty(redscan_ctx *ctx, redscan_op op, redscan_dtype out_dtype, void *out,
                                   size_t out_offset)
{
    RS_CUDA_TRY(rs_cuda_use(ctx));
    const size_t tsize = redscan_dtype_size(out_dtype);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, (char *)out + out_offset, tsize, "reduce: the result element"));
    RS_CUDA_TRY(rs_cuda_result_area(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    /* From pinned memory, so the copy is asynchronous and can be captured in a graph. */
    const char *src = (const char *)c->result_host + RS_CUDA_EMPTY_AT +
                      ((size_t)op * RS_CUDA_DTYPES + (size_t)(out_dtype - 1)) * 8;
    cudaError_t err = cudaMemcpyAsync((char *)out + out_offset, src, tsize, cudaMemcpyHostToDevice, c->stream);
    return err == cudaSuccess ? REDSCAN_OK : rs_cuda_fail(ctx, err, "cudaMemcpyAsync (reduction of nothing)");
}

redscan_status rs_cuda_result_slots(redscan_ctx *ctx, void **values, void **indices)
{
    if (!rs_cuda_of(ctx)->result_host) { /* the allocation needs the device; later calls only hand out addresses */
        RS_CUDA_TRY(rs_cuda_use(ctx));
        RS_CUDA_TRY(rs_cuda_result_area(ctx));
    }
    rs_cuda *c = rs_cuda_of(ctx);
    *values = c->result_dev;
    if (indices) *indices = (char *)c->result_dev + RS_CUDA_RESULT_HALF;
    return REDSCAN_OK;
}

redscan_status rs_cuda_result_take(redscan_ctx *ctx, void *values, size_t value_bytes, void *indices,
                                   size_t index_bytes, const char *what)
{
    /* Called right after the operation, which made the device current: a stream wait needs nothing more. */
    RS_CUDA_TRY(rs_cuda_sync(ctx, what));
    const rs_cuda *c = rs_cuda_of(ctx);
    memcpy(values, c->result_host, value_bytes);
    if (indices) memcpy(indices, (const char *)c->result_host + RS_CUDA_RESULT_HALF, index_bytes);
    return REDSCAN_OK;
}

void rs_cuda_result_release(rs_cuda *c)
{
    if (c->result_host) (void)cudaFreeHost(c->result_host);
    (void)cudaGetLastError();
    c->result_host = c->result_dev = NULL;
}
