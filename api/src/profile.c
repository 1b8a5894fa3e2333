/* Profiling: the device time of the last operation (redscan_set_profiling, redscan_last_device_time).
 *
 * The core marks each operation's boundaries (rs_time_forget at its entry, rs_time_begin / rs_time_end around its
 * backend call); the backend does the device side (CUDA events, OpenCL profiling events). While profiling is off
 * these are a flag test and nothing else, so the default path neither slows down nor allocates. */
#include <math.h>

#include "check.h"

redscan_status redscan_set_profiling(redscan_ctx *ctx, int on)
{
    static const char fn[] = "redscan_set_profiling";
    RS_TRY(rs_check_ctx(fn, ctx));
    if (on != 0 && on != 1)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'on' must be 0 or 1 (got %d)", fn, on);
    if (!ctx->ops->profiling)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "%s: the %s backend cannot time its device commands", fn,
                            ctx->ops->name);
    if (on != ctx->profiling) {
        redscan_status st = ctx->ops->profiling(ctx, on);
        if (st != REDSCAN_OK) {
            /* the backend has undone what it started; which state it is in is the one it reports */
            return st;
        }
        ctx->profiling = on;
    }
    ctx->time_state = RS_TIME_NONE;
    return REDSCAN_OK;
}

redscan_status redscan_last_device_time(redscan_ctx *ctx, double *seconds)
{
    static const char fn[] = "redscan_last_device_time";
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(rs_check_ptr(ctx, fn, "seconds", seconds));
    const char *why = NULL;
    if (!ctx->profiling)
        why = "profiling is off (redscan_set_profiling(ctx, 1) switches it on)";
    else if (ctx->time_state == RS_TIME_NONE)
        why = "no operation has run since profiling was switched on";
    else if (ctx->time_state == RS_TIME_EMPTY)
        why = "the last operation ran no device command (n = 0, or its arguments were refused)";
    else if (ctx->time_state == RS_TIME_FAILED)
        why = "the last operation failed";
    else if (ctx->time_state == RS_TIME_ASYNC)
        why = "the last operation was an _async call, which is not timed (its work runs after it returns: time it "
              "with events on the stream or queue)";
    if (why) return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: no device time: %s", fn, why);
    *seconds = ctx->device_time;
    return REDSCAN_OK;
}

void rs_time_forget(redscan_ctx *ctx)
{
    if (ctx->profiling) ctx->time_state = RS_TIME_EMPTY;
}

void rs_time_async(redscan_ctx *ctx)
{
    if (ctx->profiling) ctx->time_state = RS_TIME_ASYNC;
}

redscan_status rs_time_begin(redscan_ctx *ctx)
{
    if (!ctx->profiling) return REDSCAN_OK;
    ctx->time_state = RS_TIME_FAILED; /* until rs_time_end says otherwise */
    return ctx->ops->time_begin(ctx);
}

redscan_status rs_time_end(redscan_ctx *ctx, redscan_status st)
{
    if (!ctx->profiling) return st;
    double s = 0;
    redscan_status tst = ctx->ops->time_end(ctx, st == REDSCAN_OK, &s);
    if (st != REDSCAN_OK) return st;
    if (tst != REDSCAN_OK) return tst;
    /* Two timestamps of one device clock: never negative in principle; a clock that says otherwise is a device
     * fault worth reporting rather than a time to hand out. */
    if (!(s >= 0) || !isfinite(s))
        return rs_set_error(ctx, REDSCAN_ERR_DEVICE, "device timing gave %g s for the operation", s);
    ctx->device_time = s;
    ctx->time_state = RS_TIME_OK;
    return REDSCAN_OK;
}
