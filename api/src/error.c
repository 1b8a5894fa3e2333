/* Error state: a per-context last-error message, and a per-thread slot for failures that have no context
 * yet (redscan_create) or were called with ctx == NULL. The library never prints. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

static _Thread_local char rs_thread_error[RS_ERROR_MAX];

redscan_status rs_set_error(redscan_ctx *ctx, redscan_status status, const char *fmt, ...)
{
    char *dst = ctx ? ctx->last_error : rs_thread_error;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, RS_ERROR_MAX, fmt, ap);
    va_end(ap);
    return status;
}

void rs_clear_error(redscan_ctx *ctx)
{
    if (ctx)
        ctx->last_error[0] = '\0';
    else
        rs_thread_error[0] = '\0';
}

void redscan_set_last_error(redscan_ctx *ctx, const char *message)
{
    (void)rs_set_error(ctx, REDSCAN_OK, "%s", message ? message : "");
}

const char *redscan_last_error(const redscan_ctx *ctx)
{
    return ctx ? ctx->last_error : rs_thread_error;
}

const char *redscan_status_string(redscan_status status)
{
    switch (status) {
    case REDSCAN_OK: return "REDSCAN_OK: success";
    case REDSCAN_ERR_INVALID_ARGUMENT: return "REDSCAN_ERR_INVALID_ARGUMENT: an argument or environment value is invalid";
    case REDSCAN_ERR_UNSUPPORTED: return "REDSCAN_ERR_UNSUPPORTED: not supported by this backend or device";
    case REDSCAN_ERR_BACKEND_UNAVAILABLE: return "REDSCAN_ERR_BACKEND_UNAVAILABLE: the backend cannot run here";
    case REDSCAN_ERR_OUT_OF_MEMORY: return "REDSCAN_ERR_OUT_OF_MEMORY: host or device memory exhausted";
    case REDSCAN_ERR_KERNEL_BUILD: return "REDSCAN_ERR_KERNEL_BUILD: a device program failed to build";
    case REDSCAN_ERR_DEVICE: return "REDSCAN_ERR_DEVICE: the device or its driver reported an error";
    }
    return "unknown redscan_status";
}
