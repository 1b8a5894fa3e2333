/* The OpenCL backend table of a library built without OpenCL (REDSCAN_WITH_OPENCL=OFF): it exists so the core can
 * name the backend and say why it cannot be used. Only probe and the two creations are ever reached: they fail,
 * so no context of this backend exists and no other entry of the table is called. */
#include "backend.h"

static const char rs_ocl_off_reason[] = "built without OpenCL (REDSCAN_WITH_OPENCL=OFF)";

static redscan_status rs_ocl_off_probe(const char **reason)
{
    if (reason) *reason = rs_ocl_off_reason;
    return REDSCAN_ERR_BACKEND_UNAVAILABLE;
}

static redscan_status rs_ocl_off_init(redscan_ctx *ctx)
{
    ctx->impl = NULL;
    return rs_set_error(ctx, REDSCAN_ERR_BACKEND_UNAVAILABLE, "OpenCL backend unavailable: %s", rs_ocl_off_reason);
}

static redscan_status rs_ocl_off_init_attached(redscan_ctx *ctx, void *native, int device)
{
    (void)native, (void)device;
    return rs_ocl_off_init(ctx);
}

static void rs_ocl_off_shutdown(redscan_ctx *ctx) { (void)ctx; }

const rs_backend_ops rs_opencl_backend = {
    .name = "opencl",
    .init = rs_ocl_off_init,
    .init_attached = rs_ocl_off_init_attached,
    .shutdown = rs_ocl_off_shutdown,
    .probe = rs_ocl_off_probe,
};
