/* Scans: argument checks, environment overrides, init resolution, host staging. */
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "check.h"
#include "stage.h"

redscan_status rs_check_scan_desc(redscan_ctx *ctx, const char *fn, const redscan_scan_desc *desc, rs_scan_req *req)
{
    RS_TRY(rs_check_ptr(ctx, fn, "desc", desc));
    RS_TRY(rs_check_op(ctx, fn, "desc->op", desc->op));
    RS_TRY(rs_check_dtype(ctx, fn, "desc->dtype", desc->dtype));
    RS_TRY(rs_check_out_dtype(ctx, fn, desc->dtype, desc->out_dtype, &req->out_dtype));
    if (desc->exclusive != 0 && desc->exclusive != 1)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'exclusive' must be 0 or 1 (got %d)", fn,
                            desc->exclusive);
    if ((int)desc->block < REDSCAN_BLOCK_AUTO || (int)desc->block > REDSCAN_BLOCK_COARSENED)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'desc->block' has unknown value %d (expected AUTO, KOGGE_STONE, "
                            "KOGGE_STONE_DB, BRENT_KUNG or COARSENED)",
                            fn, (int)desc->block);
    if ((int)desc->grid < REDSCAN_GRID_AUTO || (int)desc->grid > REDSCAN_GRID_SINGLE_PASS)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'desc->grid' has unknown value %d (expected AUTO, HIERARCHICAL, "
                            "REDUCE_THEN_SCAN or SINGLE_PASS)",
                            fn, (int)desc->grid);
    if (desc->flags != 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc->flags' must be 0 (got %u)", fn,
                            desc->flags);
    req->op = desc->op;
    req->dtype = desc->dtype;
    req->exclusive = desc->exclusive;
    req->block = desc->block == REDSCAN_BLOCK_AUTO ? ctx->env_block : desc->block;
    req->grid = desc->grid == REDSCAN_GRID_AUTO ? ctx->env_grid : desc->grid;
    req->init = rs_identity(desc->op, req->out_dtype);
    if (desc->init) memcpy(&req->init, desc->init, redscan_dtype_size(req->out_dtype));
    req->init = rs_to_compute(req->out_dtype, req->init); /* what the kernels combine in */
    return REDSCAN_OK;
}

/* Checks shared by the device-buffer forms. */
static redscan_status check_buffers(redscan_ctx *ctx, const char *fn, const rs_scan_req *req, const redscan_buffer *in,
                                    const redscan_buffer *out, size_t n)
{
    RS_TRY(rs_check_buffer(ctx, fn, "in", in, n, redscan_dtype_size(req->dtype)));
    RS_TRY(rs_check_buffer(ctx, fn, "out", out, n, redscan_dtype_size(req->out_dtype)));
    if (in == out && req->out_dtype != req->dtype)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: arguments 'in' and 'out' are the same buffer, which needs out_dtype == dtype "
                            "(a widening scan cannot run in place)",
                            fn);
    return REDSCAN_OK;
}

/* Blocking: the async scan, then a wait (a failure while the kernels run is reported by this call, and out is
 * complete on return); a failed enqueue still settles what it queued. Timed as one operation. */
static redscan_status run_blocking(redscan_ctx *ctx, const rs_scan_req *req, void *in, void *out, size_t n)
{
    RS_TRY(rs_time_begin(ctx));
    redscan_status st = ctx->ops->scan(ctx, req, in, out, n);
    if (st == REDSCAN_OK)
        st = ctx->ops->synchronize(ctx, 0);
    else
        (void)ctx->ops->synchronize(ctx, 1);
    return rs_time_end(ctx, st);
}

redscan_status redscan_scan_async(redscan_ctx *ctx, const redscan_scan_desc *desc, const redscan_buffer *in,
                                  redscan_buffer *out, size_t n)
{
    static const char fn[] = "redscan_scan_async";
    rs_scan_req req;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_async(ctx);
    RS_TRY(rs_check_scan_desc(ctx, fn, desc, &req));
    RS_TRY(check_buffers(ctx, fn, &req, in, out, n));
    if (n == 0) return REDSCAN_OK;
    return ctx->ops->scan(ctx, &req, in->handle, out->handle, n);
}

redscan_status redscan_scan_ex(redscan_ctx *ctx, const redscan_scan_desc *desc, const redscan_buffer *in,
                               redscan_buffer *out, size_t n)
{
    static const char fn[] = "redscan_scan_ex";
    rs_scan_req req;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(rs_check_scan_desc(ctx, fn, desc, &req));
    RS_TRY(check_buffers(ctx, fn, &req, in, out, n));
    if (n == 0) return REDSCAN_OK;
    return run_blocking(ctx, &req, in->handle, out->handle, n);
}

redscan_status redscan_scan(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, int exclusive,
                            const redscan_buffer *in, redscan_buffer *out, size_t n)
{
    redscan_scan_desc d = {op, dtype, (redscan_dtype)0, exclusive, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    return redscan_scan_ex(ctx, &d, in, out, n);
}

redscan_status redscan_scan_host_ex(redscan_ctx *ctx, const redscan_scan_desc *desc, const void *in, void *out,
                                    size_t n)
{
    static const char fn[] = "redscan_scan_host_ex";
    rs_scan_req req;
    size_t in_bytes, out_bytes;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(rs_check_scan_desc(ctx, fn, desc, &req));
    RS_TRY(rs_check_count(ctx, fn, "n", n, redscan_dtype_size(req.dtype), &in_bytes));
    RS_TRY(rs_check_count(ctx, fn, "n", n, redscan_dtype_size(req.out_dtype), &out_bytes));
    /* Refused at every n, like redscan_scan_ex (in and out may be NULL only when n == 0). */
    if (in && in == out && req.out_dtype != req.dtype)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: arguments 'in' and 'out' are the same array, which needs out_dtype == dtype", fn);
    if (n == 0) return REDSCAN_OK;
    RS_TRY(rs_check_ptr(ctx, fn, "in", in));
    RS_TRY(rs_check_ptr(ctx, fn, "out", out));
    redscan_buffer *din, *dout;
    RS_TRY(rs_stage_upload(ctx, in, in_bytes, &din));
    redscan_status st = REDSCAN_OK;
    if (req.out_dtype == req.dtype) {
        dout = din; /* in place on the device: the staged copy is ours */
    } else {
        st = rs_stage_alloc(ctx, out_bytes, &dout);
    }
    if (st == REDSCAN_OK) {
        st = run_blocking(ctx, &req, din->handle, dout->handle, n);
        if (st == REDSCAN_OK) st = redscan_buffer_read(ctx, dout, 0, out, out_bytes);
        /* The download comes after the timed part: when it fails, the call failed and has no time either. */
        if (st != REDSCAN_OK && ctx->profiling) ctx->time_state = RS_TIME_FAILED;
        if (dout != din) redscan_buffer_destroy(ctx, dout);
    }
    redscan_buffer_destroy(ctx, din);
    return st;
}

redscan_status redscan_scan_host(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, int exclusive, const void *in,
                                 void *out, size_t n)
{
    redscan_scan_desc d = {op, dtype, (redscan_dtype)0, exclusive, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    return redscan_scan_host_ex(ctx, &d, in, out, n);
}

redscan_status rs_single_pass_spins(redscan_ctx *ctx, unsigned *spins)
{
    const char *v = getenv("REDSCAN_SINGLE_PASS_SPINS");
    *spins = 4096u;
    if (!v || !*v) return REDSCAN_OK;
    char *end = NULL;
    errno = 0;
    const unsigned long long x = strtoull(v, &end, 10);
    if (errno || !end || *end || v[0] == '-' || x > 0xffffffffull)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "scan: REDSCAN_SINGLE_PASS_SPINS=\"%s\" is not a number of polls (0 .. 4294967295; 0 "
                            "forces the single_pass fallback path, a testing knob)",
                            v);
    *spins = (unsigned)x;
    return REDSCAN_OK;
}

redscan_status rs_single_pass_per(redscan_ctx *ctx, uint64_t tiles, uint64_t groups, unsigned *per)
{
    const char *v = getenv("REDSCAN_SINGLE_PASS_TILES");
    if (!v || !*v) {
        /* Two tiles per ticket double the bytes a group has in flight and halve the look-backs, but also halve the
         * number of groups with work: worth it once every group would get two tickets (H100, float sum: 2^28
         * 0.85 -> 0.94 x CUB; 2^20, 512 tiles for 1056 groups: 0.96 -> 0.84). */
        *per = tiles >= 2 * groups ? 2u : 1u;
        return REDSCAN_OK;
    }
    if (strcmp(v, "1") && strcmp(v, "2"))
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "scan: REDSCAN_SINGLE_PASS_TILES=\"%s\" is not 1 or 2 (tiles a single_pass group takes "
                            "per ticket; unset: chosen by size; a testing knob)",
                            v);
    *per = (unsigned)(v[0] - '0');
    return REDSCAN_OK;
}
