/* The OpenCL backend table of a library built with REDSCAN_WITH_OPENCL=OFF: it exists so the core can name
 * the backend and say why it cannot be used; nothing past probe/init is ever reached (init fails, so no
 * context of this backend exists). */
#include "backend.h"

static const char rs_ocl_off_reason[] = "built without OpenCL (REDSCAN_WITH_OPENCL=OFF)";

static redscan_status rs_ocl_off_probe(const char **reason)
{
    if (reason) *reason = rs_ocl_off_reason;
    return REDSCAN_ERR_BACKEND_UNAVAILABLE;
}

static redscan_status rs_ocl_off_error(redscan_ctx *ctx)
{
    return rs_set_error(ctx, REDSCAN_ERR_BACKEND_UNAVAILABLE, "OpenCL backend unavailable: %s", rs_ocl_off_reason);
}

static redscan_status rs_ocl_off_init(redscan_ctx *ctx)
{
    ctx->impl = NULL;
    return rs_ocl_off_error(ctx);
}

static void rs_ocl_off_shutdown(redscan_ctx *ctx) { (void)ctx; }

/* The rest report the same, in case a caller reaches them anyway. */
static redscan_status rs_ocl_off_buffer_create(redscan_ctx *ctx, size_t bytes, void **handle)
{
    (void)bytes;
    (void)handle;
    return rs_ocl_off_error(ctx);
}
static void rs_ocl_off_buffer_destroy(redscan_ctx *ctx, void *handle)
{
    (void)ctx;
    (void)handle;
}
static redscan_status rs_ocl_off_buffer_write(redscan_ctx *ctx, void *handle, size_t offset, const void *src,
                                              size_t bytes)
{
    (void)handle, (void)offset, (void)src, (void)bytes;
    return rs_ocl_off_error(ctx);
}
static redscan_status rs_ocl_off_buffer_read(redscan_ctx *ctx, void *handle, size_t offset, void *dst, size_t bytes)
{
    (void)handle, (void)offset, (void)dst, (void)bytes;
    return rs_ocl_off_error(ctx);
}
static redscan_status rs_ocl_off_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n,
                                        rs_scalar *result)
{
    (void)req, (void)in, (void)n, (void)result;
    return rs_ocl_off_error(ctx);
}
static redscan_status rs_ocl_off_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, void *out, size_t n)
{
    (void)req, (void)in, (void)out, (void)n;
    return rs_ocl_off_error(ctx);
}
static redscan_status rs_ocl_off_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n,
                                        uint64_t *index, rs_scalar *value)
{
    (void)dtype, (void)want_max, (void)in, (void)n, (void)index, (void)value;
    return rs_ocl_off_error(ctx);
}
static redscan_status rs_ocl_off_topk(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k,
                                      int largest, void *values, uint64_t *indices)
{
    (void)dtype, (void)in, (void)n, (void)k, (void)largest, (void)values, (void)indices;
    return rs_ocl_off_error(ctx);
}

const rs_backend_ops rs_opencl_backend = {
    .name = "opencl",
    .init = rs_ocl_off_init,
    .shutdown = rs_ocl_off_shutdown,
    .probe = rs_ocl_off_probe,
    .buffer_create = rs_ocl_off_buffer_create,
    .buffer_destroy = rs_ocl_off_buffer_destroy,
    .buffer_write = rs_ocl_off_buffer_write,
    .buffer_read = rs_ocl_off_buffer_read,
    .reduce = rs_ocl_off_reduce,
    .scan = rs_ocl_off_scan,
    .argext = rs_ocl_off_argext,
    .topk = rs_ocl_off_topk,
};
