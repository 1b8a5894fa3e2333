/* Stream-ordered operation: waiting for the context's stream / queue and sizing the workspace ahead of _async
 * calls (docs/ASYNC.md). The _async entry points themselves live next to their blocking forms (reduce.c, scan.c,
 * select.c), which are those calls followed by a wait. */
#include "check.h"

redscan_status redscan_synchronize(redscan_ctx *ctx)
{
    static const char fn[] = "redscan_synchronize";
    RS_TRY(rs_check_ctx(fn, ctx));
    return ctx->ops->synchronize(ctx, 0);
}

/* Top-k up to k = 8 runs one pass whose workspace does not grow with k; larger k keeps k candidates per tile of
 * 1024, which redscan_reserve_topk sizes on request only (at k = 256 that is about n / 4 values and indices). */
#define RS_RESERVE_TOPK_DEFAULT 8

static redscan_status reserve(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, size_t n, size_t k)
{
    RS_TRY(rs_check_dtype(ctx, fn, "dtype", dtype));
    /* The widest element any operation on dtype writes is 8 bytes (a widening, a top-k index). */
    RS_TRY(rs_check_count(ctx, fn, "n", n, 8, NULL));
    if (n == 0) return REDSCAN_OK;
    return ctx->ops->reserve(ctx, dtype, n, k < n ? k : n);
}

redscan_status redscan_reserve(redscan_ctx *ctx, redscan_dtype dtype, size_t n)
{
    static const char fn[] = "redscan_reserve";
    RS_TRY(rs_check_ctx(fn, ctx));
    return reserve(ctx, fn, dtype, n, RS_RESERVE_TOPK_DEFAULT);
}

redscan_status redscan_reserve_topk(redscan_ctx *ctx, redscan_dtype dtype, size_t n, size_t k)
{
    static const char fn[] = "redscan_reserve_topk";
    RS_TRY(rs_check_ctx(fn, ctx));
    if (k == 0 || k > REDSCAN_TOPK_MAX)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'k' = %zu is out of range (1 .. %d)", fn,
                            k, REDSCAN_TOPK_MAX);
    return reserve(ctx, fn, dtype, n, k > RS_RESERVE_TOPK_DEFAULT ? k : RS_RESERVE_TOPK_DEFAULT);
}
