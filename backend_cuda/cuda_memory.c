/* CUDA backend: device buffers, transfers, wrapped caller memory, per-context scratch.
 *
 * Buffers are plain device pointers from cudaMalloc (256-byte aligned; the core stores them in
 * redscan_buffer.handle). A zero-byte request allocates one byte so that every buffer has a distinct handle.
 * Transfers go through the context's stream and are waited for, so the caller's host memory is free to reuse
 * on return and every earlier launch has finished before a result is read. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

#define RS_CUDA_ALIGN 256

redscan_status rs_cuda_buffer_create(redscan_ctx *ctx, size_t bytes, void **handle)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    /* More than the device has can never be allocated: OUT_OF_MEMORY, whatever the runtime answers for absurd sizes
     * (tests/test_errors.c asks for up to SIZE_MAX bytes). */
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess && bytes > total_bytes)
        return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY,
                            "device buffer of %zu bytes is larger than the device's memory (%zu bytes)", bytes,
                            total_bytes);
    (void)cudaGetLastError();
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "cudaMalloc of %zu bytes (device buffer)", bytes);
        return rs_cuda_fail(ctx, err, what);
    }
    *handle = p;
    return REDSCAN_OK;
}

void rs_cuda_buffer_destroy(redscan_ctx *ctx, void *handle)
{
    if (!handle || rs_cuda_use(ctx) != REDSCAN_OK) return;
    /* Every operation waits for its stream before it returns, so nothing queued still uses the buffer. */
    (void)cudaFree(handle);
    (void)cudaGetLastError();
}

redscan_status rs_cuda_buffer_write(redscan_ctx *ctx, void *handle, size_t offset, const void *src, size_t bytes)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK || bytes == 0) return st;
    cudaError_t err = cudaMemcpyAsync((char *)handle + offset, src, bytes, cudaMemcpyHostToDevice,
                                      rs_cuda_of(ctx)->stream);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMemcpyAsync (host to device)");
    return rs_cuda_sync(ctx, "cudaMemcpyAsync (host to device)");
}

redscan_status rs_cuda_read_back(redscan_ctx *ctx, const void *src, void *dst, size_t bytes, const char *what)
{
    if (bytes == 0) return rs_cuda_sync(ctx, what);
    cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, rs_cuda_of(ctx)->stream);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, what);
    return rs_cuda_sync(ctx, what);
}

redscan_status rs_cuda_buffer_read(redscan_ctx *ctx, void *handle, size_t offset, void *dst, size_t bytes)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK || bytes == 0) return st;
    return rs_cuda_read_back(ctx, (const char *)handle + offset, dst, bytes, "cudaMemcpyAsync (device to host)");
}

/* A caller's device pointer is used as is; it must be device (or managed) memory of the context's device. */
redscan_status rs_cuda_buffer_wrap(redscan_ctx *ctx, void *native, size_t bytes, void **handle)
{
    (void)bytes;
    rs_cuda *c = rs_cuda_of(ctx);
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    struct cudaPointerAttributes attr;
    memset(&attr, 0, sizeof attr);
    cudaError_t err = cudaPointerGetAttributes(&attr, native);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "redscan_buffer_wrap_cuda: argument 'device_ptr' (%p) is not CUDA memory: %s: %s", native,
                            cudaGetErrorName(err), cudaGetErrorString(err));
    }
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "redscan_buffer_wrap_cuda: argument 'device_ptr' (%p) is not device memory (memory type %d)",
                            native, (int)attr.type);
    if (attr.type == cudaMemoryTypeDevice && attr.device != c->device)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "redscan_buffer_wrap_cuda: argument 'device_ptr' (%p) belongs to CUDA device %d, the "
                            "context uses device %d",
                            native, attr.device, c->device);
    *handle = native;
    return REDSCAN_OK;
}

void rs_cuda_buffer_unwrap(redscan_ctx *ctx, void *handle)
{
    (void)ctx;
    (void)handle; /* the caller owns the memory */
}

/* Grow-only: partial results of every call fit in what earlier calls needed most of the time, so steady use
 * allocates nothing. Growth at least doubles to keep reallocations few; if the doubled size does not fit,
 * exactly what is needed is tried. */
redscan_status rs_cuda_scratch(redscan_ctx *ctx, size_t bytes, void **mem)
{
    rs_cuda *c = rs_cuda_of(ctx);
    if (c->scratch && c->scratch_bytes >= bytes) {
        *mem = c->scratch;
        return REDSCAN_OK;
    }
    size_t want = bytes;
    if (c->scratch_bytes <= ((size_t)-1) / 2 && want < 2 * c->scratch_bytes) want = 2 * c->scratch_bytes;
    /* Free first: the old scratch and the new one need not fit at the same time (cudaFree waits for the
     * device, and every operation has waited for its stream already). */
    if (c->scratch) (void)cudaFree(c->scratch);
    c->scratch = NULL;
    c->scratch_bytes = 0;
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, want ? want : 1);
    if (err == cudaErrorMemoryAllocation && want > bytes) {
        (void)cudaGetLastError();
        want = bytes;
        err = cudaMalloc(&p, want ? want : 1);
    }
    if (err != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "cudaMalloc of %zu bytes (scratch)", want);
        return rs_cuda_fail(ctx, err, what);
    }
    c->scratch = p;
    c->scratch_bytes = want;
    *mem = p;
    return REDSCAN_OK;
}

/* Where each part starts (origin may be NULL) and the bytes of the whole; (size_t)-1 when that overflows. */
static size_t rs_cuda_split_layout(size_t count, const size_t *bytes, size_t *origin)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        const size_t size = bytes[i] ? bytes[i] : 1;
        if (size > ((size_t)-1) - total - RS_CUDA_ALIGN) return (size_t)-1;
        if (origin) origin[i] = total;
        total = (total + size + RS_CUDA_ALIGN - 1) / RS_CUDA_ALIGN * RS_CUDA_ALIGN;
    }
    return total;
}

size_t rs_cuda_split_total(size_t count, const size_t *bytes) { return rs_cuda_split_layout(count, bytes, NULL); }

redscan_status rs_cuda_scratch_split(redscan_ctx *ctx, size_t count, const size_t *bytes, void **parts)
{
    size_t origin[RS_CUDA_SPLIT_MAX];
    if (count > RS_CUDA_SPLIT_MAX)
        return rs_set_error(ctx, REDSCAN_ERR_DEVICE, "internal: scratch split into %zu parts", count);
    const size_t total = rs_cuda_split_layout(count, bytes, origin);
    if (total == (size_t)-1)
        return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "scratch of more than %zu bytes", (size_t)-1);
    void *whole = NULL;
    redscan_status st = rs_cuda_scratch(ctx, total, &whole);
    if (st != REDSCAN_OK) return st;
    for (size_t i = 0; i < count; i++) parts[i] = (char *)whole + origin[i];
    return REDSCAN_OK;
}

void rs_cuda_scratch_release(rs_cuda *c)
{
    if (c->ticket) (void)cudaFree(c->ticket);
    c->ticket = NULL;
    if (c->seg_flags) (void)cudaFree(c->seg_flags);
    c->seg_flags = NULL;
    if (c->scratch) (void)cudaFree(c->scratch);
    (void)cudaGetLastError();
    c->scratch = NULL;
    c->scratch_bytes = 0;
}

redscan_status rs_cuda_ticket(redscan_ctx *ctx, unsigned **word)
{
    rs_cuda *c = rs_cuda_of(ctx);
    if (!c->ticket) {
        void *p = NULL;
        cudaError_t err = cudaMalloc(&p, sizeof(unsigned));
        if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMalloc (scan ticket)");
        /* Zeroed once, here; every kernel that takes tickets from it leaves it zeroed. Synchronous: it happens
         * once per context, in reserve or in the first scan that needs it. */
        err = cudaMemset(p, 0, sizeof(unsigned));
        if (err != cudaSuccess) {
            (void)cudaFree(p);
            return rs_cuda_fail(ctx, err, "cudaMemset (scan ticket)");
        }
        c->ticket = p;
    }
    *word = c->ticket;
    return REDSCAN_OK;
}

redscan_status rs_cuda_reserve(redscan_ctx *ctx, redscan_dtype dtype, size_t n, size_t k_max)
{
    RS_CUDA_TRY(rs_cuda_use(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    size_t need = rs_cuda_select_reserve(c, dtype, n, k_max);
    size_t scan = rs_cuda_scan_reserve(dtype, n);
    if (scan > need) need = scan;
    if ((scan = rs_cuda_seg_scan_reserve(dtype, n)) > need) need = scan;
    if ((scan = rs_cuda_seg_reduce_reserve(dtype, n)) > need) need = scan;
    if (rs_widening_of(dtype)) {
        scan = rs_cuda_scan_reserve(rs_widening_of(dtype), n);
        if (scan > need) need = scan;
        if ((scan = rs_cuda_seg_scan_reserve(rs_widening_of(dtype), n)) > need) need = scan;
        if ((scan = rs_cuda_seg_reduce_reserve(rs_widening_of(dtype), n)) > need) need = scan;
    }
    if (need == (size_t)-1)
        return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "workspace of more than %zu bytes", (size_t)-1);
    void *mem = NULL;
    unsigned *ticket = NULL;
    RS_CUDA_TRY(rs_cuda_scratch(ctx, need, &mem));
    RS_CUDA_TRY(rs_cuda_ticket(ctx, &ticket));
    RS_CUDA_TRY(rs_cuda_seg_words(ctx));
    /* The pinned area the n = 0 reduction copies its result from (cuda_result.c). */
    return rs_cuda_result_area(ctx);
}
