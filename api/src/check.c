/* Argument checks: one place that validates before any backend runs. */
#include <stdint.h>

#include "check.h"

static redscan_status bad(redscan_ctx *ctx, const char *fn, const char *arg, const char *what)
{
    return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument '%s' %s", fn, arg, what);
}

redscan_status rs_check_ctx(const char *fn, redscan_ctx *ctx)
{
    if (!ctx) return rs_set_error(NULL, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    if (!ctx->ops || !ctx->impl) return bad(ctx, fn, "ctx", "is not a started context");
    rs_clear_error(ctx);
    return REDSCAN_OK;
}

redscan_status rs_check_ptr(redscan_ctx *ctx, const char *fn, const char *arg, const void *p)
{
    return p ? REDSCAN_OK : bad(ctx, fn, arg, "is NULL");
}

redscan_status rs_check_op(redscan_ctx *ctx, const char *fn, const char *arg, redscan_op op)
{
    if ((int)op < REDSCAN_SUM || (int)op > REDSCAN_MAX)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' has unknown value %d (expected REDSCAN_SUM, _PROD, _MIN or _MAX)", fn,
                            arg, (int)op);
    return REDSCAN_OK;
}

redscan_status rs_check_dtype(redscan_ctx *ctx, const char *fn, const char *arg, redscan_dtype dtype)
{
    if (redscan_dtype_size(dtype) == 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' has unknown value %d (expected REDSCAN_INT32 .. REDSCAN_BFLOAT16, 1..12)",
                            fn, arg, (int)dtype);
    if (rs_dtype_is_narrow(dtype) && ctx && ctx->ops && !ctx->ops->narrow_types)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: argument '%s' is %s: the %s backend has no kernels for the narrow types (int8, uint8, "
                            "int16, uint16, float16, bfloat16) yet",
                            fn, arg, redscan_dtype_name(dtype), ctx->ops->name);
    return REDSCAN_OK;
}

redscan_status rs_check_out_dtype(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, redscan_dtype out_dtype,
                                  redscan_dtype *resolved)
{
    if ((int)out_dtype == 0 || out_dtype == dtype) {
        *resolved = dtype;
        return REDSCAN_OK;
    }
    if (rs_widening_ok(dtype, out_dtype)) {
        *resolved = out_dtype;
        return REDSCAN_OK;
    }
    return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                        "%s: argument 'desc->out_dtype' (%d, %s) is neither 0, the input type %s, nor a widening of it "
                        "(int32->int64, uint32->uint64, float32->float64; int8, int16 -> int32, int64; uint8, uint16 -> "
                        "uint32, uint64; float16, bfloat16 -> float32, float64)",
                        fn, (int)out_dtype, redscan_dtype_name(out_dtype), redscan_dtype_name(dtype));
}

redscan_status rs_check_count(redscan_ctx *ctx, const char *fn, const char *arg, size_t n, size_t elem,
                              size_t *bytes)
{
    if (elem && n > SIZE_MAX / elem)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' = %zu elements of %zu bytes overflows size_t", fn, arg, n, elem);
    if (bytes) *bytes = n * elem;
    return REDSCAN_OK;
}

redscan_status rs_check_buffer(redscan_ctx *ctx, const char *fn, const char *arg, const redscan_buffer *buf,
                               size_t n, size_t elem)
{
    size_t bytes = 0;
    RS_TRY(rs_check_ptr(ctx, fn, arg, buf));
    if (buf->owner != ctx) return bad(ctx, fn, arg, "belongs to another context");
    RS_TRY(rs_check_count(ctx, fn, "n", n, elem, &bytes));
    if (bytes > buf->bytes)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' holds %zu bytes but n = %zu elements need %zu", fn, arg, buf->bytes, n,
                            bytes);
    return REDSCAN_OK;
}
