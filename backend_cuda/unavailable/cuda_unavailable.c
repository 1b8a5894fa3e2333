/* The CUDA backend table of a library built without CUDA (no nvcc at build time, or REDSCAN_WITH_CUDA=OFF): it
 * exists so the core can name the backend and say why it cannot be used. Only probe and the two creations are ever
 * reached: they fail, so no context of this backend exists and no other entry of the table is called. */
#include "backend.h"

static const char rs_cuda_off_reason[] = "built without CUDA (nvcc not found at build time)";

static redscan_status rs_cuda_off_probe(const char **reason)
{
    if (reason) *reason = rs_cuda_off_reason;
    return REDSCAN_ERR_BACKEND_UNAVAILABLE;
}

static redscan_status rs_cuda_off_init(redscan_ctx *ctx)
{
    ctx->impl = NULL;
    return rs_set_error(ctx, REDSCAN_ERR_BACKEND_UNAVAILABLE, "CUDA backend unavailable: %s", rs_cuda_off_reason);
}

static redscan_status rs_cuda_off_init_attached(redscan_ctx *ctx, void *native, int device)
{
    (void)native, (void)device;
    return rs_cuda_off_init(ctx);
}

static void rs_cuda_off_shutdown(redscan_ctx *ctx) { (void)ctx; }

const rs_backend_ops rs_cuda_backend = {
    .name = "cuda",
    .init = rs_cuda_off_init,
    .init_attached = rs_cuda_off_init_attached,
    .shutdown = rs_cuda_off_shutdown,
    .probe = rs_cuda_off_probe,
};
