/* The OpenCL backend's rs_backend_ops table: context setup and teardown around the per-file pieces
 * (ocl_device.c, ocl_program.c, ocl_memory.c, ocl_reduce.c, ocl_scan.c). */
#include <stdlib.h>

#include "ocl_internal.h"

static redscan_status rs_ocl_init(redscan_ctx *ctx)
{
    ctx->impl = NULL;
    /* rs_ocl_full, not rs_ocl: ocl_memory.c keeps its scratch slots behind the public part. */
    rs_ocl_full *full = calloc(1, sizeof *full);
    rs_ocl *o = full ? &full->base : NULL;
    if (!o) return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "out of host memory creating the OpenCL context");
    redscan_status st = rs_ocl_open(ctx, o);
    if (st != REDSCAN_OK) {
        rs_ocl_close(o);
        free(full);
        return st;
    }
    ctx->impl = o;
    return REDSCAN_OK;
}

static void rs_ocl_shutdown(redscan_ctx *ctx)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (!o) return;
    /* Wait for queued work before anything it uses goes away. */
    if (o->queue) clFinish(o->queue);
    rs_ocl_programs_release(o);
    rs_ocl_scratch_release(o);
    rs_ocl_close(o);
    free(rs_ocl_full_of(o));
    ctx->impl = NULL;
}

const rs_backend_ops rs_opencl_backend = {
    .name = "opencl",
    .init = rs_ocl_init,
    .shutdown = rs_ocl_shutdown,
    .probe = rs_ocl_probe,
    .buffer_create = rs_ocl_buffer_create,
    .buffer_destroy = rs_ocl_buffer_destroy,
    .buffer_write = rs_ocl_buffer_write,
    .buffer_read = rs_ocl_buffer_read,
    .reduce = rs_ocl_reduce,
    .scan = rs_ocl_scan,
    .argext = rs_ocl_argext,
    .topk = rs_ocl_topk,
};
