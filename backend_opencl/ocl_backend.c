/* The OpenCL backend's rs_backend_ops table: context setup and teardown around the per-file pieces
 * (ocl_device.c, ocl_program.c, ocl_memory.c, ocl_reduce.c, ocl_scan.c, ocl_timing.c). */
#include <stdlib.h>

#include "ocl_internal.h"

/* Both creations: the device from REDSCAN_OPENCL_DEVICE (queue NULL) or the caller's queue, then the shape and the
 * program cache. */
static redscan_status rs_ocl_start(redscan_ctx *ctx, cl_command_queue queue)
{
    ctx->impl = NULL;
    /* rs_ocl_full, not rs_ocl: ocl_memory.c keeps its scratch slots behind the public part. */
    rs_ocl_full *full = calloc(1, sizeof *full);
    rs_ocl *o = full ? &full->base : NULL;
    if (!o) return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "out of host memory creating the OpenCL context");
    rs_ocl_shape shape;
    redscan_status st = rs_ocl_shape_from_env(ctx, &shape); /* before the device is opened: fail fast */
    if (st != REDSCAN_OK) {
        free(full);
        return st;
    }
    full->shape = (int)shape;
    st = queue ? rs_ocl_attach(ctx, o, queue) : rs_ocl_open(ctx, o);
    if (st == REDSCAN_OK) st = rs_ocl_shape_check(ctx, o); /* a forced CPU shape needs a CPU device */
    if (st != REDSCAN_OK) {
        rs_ocl_close(o);
        free(full);
        return st;
    }
    rs_ocl_cache_open(ctx, o); /* never fails: without it, programs are built from source */
    ctx->impl = o;
    return REDSCAN_OK;
}

static redscan_status rs_ocl_init(redscan_ctx *ctx) { return rs_ocl_start(ctx, NULL); }

static redscan_status rs_ocl_init_attached(redscan_ctx *ctx, void *native, int device)
{
    (void)device; /* the queue's own */
    return rs_ocl_start(ctx, (cl_command_queue)native);
}

static void rs_ocl_shutdown(redscan_ctx *ctx)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (!o) return;
    /* Wait for queued work before anything it uses goes away. */
    if (o->queue) clFinish(o->queue);
    rs_ocl_programs_release(o);
    rs_ocl_scratch_release(o);
    rs_ocl_cache_close(o);
    rs_ocl_timing_release(o);
    rs_ocl_close(o);
    free(rs_ocl_full_of(o));
    ctx->impl = NULL;
}

/* Wrap a cl_mem the caller made in some context: it must be this context's and hold `bytes`. */
static redscan_status rs_ocl_buffer_wrap(redscan_ctx *ctx, void *native, size_t bytes, void **handle)
{
    cl_mem mem = (cl_mem)native;
    cl_context owner = NULL;
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "redscan_buffer_wrap_opencl: argument 'cl_mem_object' is not a valid cl_mem (%s)",
                            rs_ocl_error_name(err));
    if (owner != rs_ocl_of(ctx)->context)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "redscan_buffer_wrap_opencl: argument 'cl_mem_object' belongs to another cl_context; "
                            "only memory of the context's own OpenCL context can be wrapped");
    if (size < bytes)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "redscan_buffer_wrap_opencl: argument 'bytes' = %zu exceeds the cl_mem's size %zu", bytes,
                            size);
    err = clRetainMemObject(mem); /* released by unwrap; the caller keeps its own reference */
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clRetainMemObject");
    *handle = mem;
    return REDSCAN_OK;
}

static void rs_ocl_buffer_unwrap(redscan_ctx *ctx, void *handle)
{
    (void)ctx;
    clReleaseMemObject((cl_mem)handle);
}

static void *rs_ocl_native(redscan_ctx *ctx, redscan_native what)
{
    rs_ocl *o = rs_ocl_of(ctx);
    switch (what) {
    case REDSCAN_NATIVE_OPENCL_CONTEXT: return o->context;
    case REDSCAN_NATIVE_OPENCL_QUEUE: return o->queue;
    case REDSCAN_NATIVE_OPENCL_DEVICE: return o->device;
    default: return NULL;
    }
}

const rs_backend_ops rs_opencl_backend = {
    .name = "opencl",
    .narrow_types = 1, /* kernels_cl/common.clh: IN_T / T / OUT_T of the narrow types */
    .init = rs_ocl_init,
    .shutdown = rs_ocl_shutdown,
    .probe = rs_ocl_probe,
    .buffer_create = rs_ocl_buffer_create,
    .buffer_destroy = rs_ocl_buffer_destroy,
    .buffer_write = rs_ocl_buffer_write,
    .buffer_read = rs_ocl_buffer_read,
    .init_attached = rs_ocl_init_attached,
    .reduce = rs_ocl_reduce,
    .store_empty = rs_ocl_store_empty,
    .scan = rs_ocl_scan,
    .argext = rs_ocl_argext,
    .topk = rs_ocl_topk,
    .segmented_reduce = rs_ocl_segmented_reduce,
    .segmented_argext = rs_ocl_segmented_argext,
    .segmented_scan = rs_ocl_segmented_scan,
    .scan_by_key = rs_ocl_scan_by_key,
    .scan_section_totals = rs_ocl_scan_section_totals,
    .scan_with_carries = rs_ocl_scan_with_carries,
    .synchronize = rs_ocl_synchronize,
    .reserve = rs_ocl_reserve,
    .result_slots = rs_ocl_result_slots,
    .result_take = rs_ocl_result_take,
    .buffer_wrap = rs_ocl_buffer_wrap,
    .buffer_unwrap = rs_ocl_buffer_unwrap,
    .native = rs_ocl_native,
    .cache_stats = rs_ocl_cache_stats,
    .profiling = rs_ocl_profiling,
    .time_begin = rs_ocl_time_begin,
    .time_end = rs_ocl_time_end,
};
