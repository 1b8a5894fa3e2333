/* The CUDA backend's rs_backend_ops table: context setup and teardown around the per-file pieces
 * (cuda_device.c, cuda_memory.c, cuda_reduce.c, cuda_scan.c, cuda_timing.c). */
#include <stdlib.h>

#include "cuda_internal.h"

/* Both creations: the device from REDSCAN_CUDA_DEVICE and a stream of our own (attach = 0), or the caller's
 * stream on `device`. */
static redscan_status rs_cuda_start(redscan_ctx *ctx, int attach, int device, cudaStream_t stream)
{
    ctx->impl = NULL;
    rs_cuda *c = calloc(1, sizeof *c);
    if (!c) return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "out of host memory creating the CUDA context");
    redscan_status st = attach ? rs_cuda_attach(ctx, c, device, stream) : rs_cuda_open(ctx, c);
    if (st != REDSCAN_OK) {
        rs_cuda_close(c);
        free(c);
        return st;
    }
    ctx->impl = c;
    return REDSCAN_OK;
}

static redscan_status rs_cuda_init(redscan_ctx *ctx) { return rs_cuda_start(ctx, 0, 0, NULL); }

static redscan_status rs_cuda_init_attached(redscan_ctx *ctx, void *native, int device)
{
    return rs_cuda_start(ctx, 1, device, (cudaStream_t)native);
}

static void rs_cuda_shutdown(redscan_ctx *ctx)
{
    rs_cuda *c = rs_cuda_of(ctx);
    if (!c) return;
    /* A context on the caller's stream leaves the caller's current device as it found it, here as at creation. */
    int current = -1;
    const int restore = !c->own_stream && cudaGetDevice(&current) == cudaSuccess && current != c->device;
    if (cudaSetDevice(c->device) == cudaSuccess) {
        /* Wait for queued work before anything it uses goes away (on the caller's stream too, NULL being the legacy
         * default stream: its later work is none of ours, but our kernels still read the scratch). */
        (void)cudaStreamSynchronize(c->stream);
        rs_cuda_scratch_release(c);
        rs_cuda_result_release(c);
        rs_cuda_timing_release(c);
    }
    rs_cuda_close(c);
    if (restore) (void)cudaSetDevice(current);
    (void)cudaGetLastError();
    free(c);
    ctx->impl = NULL;
}

static void *rs_cuda_native(redscan_ctx *ctx, redscan_native what)
{
    return what == REDSCAN_NATIVE_CUDA_STREAM ? (void *)rs_cuda_of(ctx)->stream : NULL;
}

const rs_backend_ops rs_cuda_backend = {
    .name = "cuda",
    .narrow_types = 1, /* kernels_cu/common.cuh: the narrow storage types, rs_nsrc / rs_ndst for the scans */
    .init = rs_cuda_init,
    .shutdown = rs_cuda_shutdown,
    .probe = rs_cuda_probe,
    .buffer_create = rs_cuda_buffer_create,
    .buffer_destroy = rs_cuda_buffer_destroy,
    .buffer_write = rs_cuda_buffer_write,
    .buffer_read = rs_cuda_buffer_read,
    .init_attached = rs_cuda_init_attached,
    .reduce = rs_cuda_reduce,
    .store_empty = rs_cuda_store_empty,
    .scan = rs_cuda_scan,
    .argext = rs_cuda_argext,
    .topk = rs_cuda_topk,
    .segmented_reduce = rs_cuda_segmented_reduce,
    .segmented_argext = rs_cuda_segmented_argext,
    .segmented_scan = rs_cuda_segmented_scan,
    .scan_by_key = rs_cuda_scan_by_key,
    .scan_section_totals = rs_cuda_scan_section_totals,
    .scan_with_carries = rs_cuda_scan_with_carries,
    .synchronize = rs_cuda_synchronize,
    .reserve = rs_cuda_reserve,
    .result_slots = rs_cuda_result_slots,
    .result_take = rs_cuda_result_take,
    .buffer_wrap = rs_cuda_buffer_wrap,
    .buffer_unwrap = rs_cuda_buffer_unwrap,
    .native = rs_cuda_native,
    .profiling = rs_cuda_profiling,
    .time_begin = rs_cuda_time_begin,
    .time_end = rs_cuda_time_end,
};
