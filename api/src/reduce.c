/* Reductions and mean: argument checks, environment overrides, n = 0 identities, host staging. */
#include <string.h>

#include "check.h"
#include "stage.h"

static redscan_status check_desc(redscan_ctx *ctx, const char *fn, const redscan_reduce_desc *desc,
                                 rs_reduce_req *req)
{
    RS_TRY(rs_check_ptr(ctx, fn, "desc", desc));
    RS_TRY(rs_check_op(ctx, fn, "desc->op", desc->op));
    RS_TRY(rs_check_dtype(ctx, fn, "desc->dtype", desc->dtype));
    RS_TRY(rs_check_out_dtype(ctx, fn, desc->dtype, desc->out_dtype, &req->out_dtype));
    if ((int)desc->algo < REDSCAN_REDUCE_AUTO || (int)desc->algo > REDSCAN_REDUCE_SHUFFLE)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'desc->algo' has unknown value %d (expected AUTO, TREE, INTERLEAVED, "
                            "COARSENED, WARP_SYNC or SHUFFLE)",
                            fn, (int)desc->algo);
    if (desc->flags != 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc->flags' must be 0 (got %u)", fn,
                            desc->flags);
    req->op = desc->op;
    req->dtype = desc->dtype;
    req->algo = desc->algo == REDSCAN_REDUCE_AUTO ? ctx->env_reduce : desc->algo;
    return REDSCAN_OK;
}

/* Float sums and products return the canonical quiet NaN for any NaN: devices differ in the NaN bits an
 * addition makes (see RS_OUT in kernels_cl/common.clh). The kernels store it so; this keeps the host side of a
 * blocking call to the same rule whatever a device did. min/max keep the input's NaN. */
static void canonical_nan(const rs_reduce_req *req, rs_scalar *r)
{
    if (req->op != REDSCAN_SUM && req->op != REDSCAN_PROD) return;
    if (req->out_dtype == REDSCAN_FLOAT32 && r->f32 != r->f32) r->u32 = 0x7fc00000u;
    if (req->out_dtype == REDSCAN_FLOAT64 && r->f64 != r->f64) r->u64 = 0x7ff8000000000000ull;
    if (req->out_dtype == REDSCAN_FLOAT16 && (r->u16 & 0x7c00u) == 0x7c00u && (r->u16 & 0x3ffu)) r->u16 = 0x7e00u;
    if (req->out_dtype == REDSCAN_BFLOAT16 && (r->u16 & 0x7f80u) == 0x7f80u && (r->u16 & 0x7fu)) r->u16 = 0x7fc0u;
}

/* The one path of every reduction: enqueue it, its result going to out + offset (n = 0: the empty result). */
static redscan_status enqueue(redscan_ctx *ctx, const rs_reduce_req *req, const redscan_buffer *in, size_t n,
                              void *out, size_t offset)
{
    if (n == 0) return ctx->ops->store_empty(ctx, req->op, req->out_dtype, out, offset);
    return ctx->ops->reduce(ctx, req, in->handle, n, out, offset);
}

/* Blocking: the same enqueue into the context's result area, a wait, and the copy to the host. n = 0 needs no
 * device at all (and runs no device command, which profiling reports). */
static redscan_status run(redscan_ctx *ctx, const rs_reduce_req *req, const redscan_buffer *in, size_t n,
                          void *result)
{
    rs_scalar r = rs_empty_result(req->op, req->out_dtype);
    const size_t tsize = redscan_dtype_size(req->out_dtype);
    if (n > 0) {
        void *slot = NULL, *unused = NULL;
        RS_TRY(ctx->ops->result_slots(ctx, &slot, &unused));
        RS_TRY(rs_time_begin(ctx));
        redscan_status st = enqueue(ctx, req, in, n, slot, 0);
        if (st == REDSCAN_OK)
            st = ctx->ops->result_take(ctx, r.bytes, tsize, NULL, 0, "reduce");
        else
            (void)ctx->ops->synchronize(ctx, 1); /* nothing queued may outlive the failed call */
        RS_TRY(rs_time_end(ctx, st));
    }
    canonical_nan(req, &r);
    memcpy(result, &r, tsize);
    return REDSCAN_OK;
}

redscan_status redscan_reduce_async(redscan_ctx *ctx, const redscan_reduce_desc *desc, const redscan_buffer *in,
                                    size_t n, redscan_buffer *result, size_t result_index)
{
    static const char fn[] = "redscan_reduce_async";
    rs_reduce_req req;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_async(ctx);
    RS_TRY(check_desc(ctx, fn, desc, &req));
    RS_TRY(rs_check_buffer(ctx, fn, "in", in, n, redscan_dtype_size(req.dtype)));
    RS_TRY(rs_check_ptr(ctx, fn, "result", result));
    const size_t tsize = redscan_dtype_size(req.out_dtype);
    RS_TRY(rs_check_buffer(ctx, fn, "result", result, 0, tsize));
    if (result_index >= result->bytes / tsize)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'result_index' = %zu is past the end of 'result' (%zu bytes hold %zu "
                            "elements of %s)",
                            fn, result_index, result->bytes, result->bytes / tsize,
                            redscan_dtype_name(req.out_dtype));
    return enqueue(ctx, &req, in, n, result->handle, result_index * tsize);
}

redscan_status redscan_reduce_ex(redscan_ctx *ctx, const redscan_reduce_desc *desc, const redscan_buffer *in,
                                 size_t n, void *result)
{
    static const char fn[] = "redscan_reduce_ex";
    rs_reduce_req req;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(check_desc(ctx, fn, desc, &req));
    RS_TRY(rs_check_buffer(ctx, fn, "in", in, n, redscan_dtype_size(req.dtype)));
    RS_TRY(rs_check_ptr(ctx, fn, "result", result));
    return run(ctx, &req, in, n, result);
}

redscan_status redscan_reduce(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, const redscan_buffer *in,
                              size_t n, void *result)
{
    redscan_reduce_desc d = {op, dtype, (redscan_dtype)0, REDSCAN_REDUCE_AUTO, 0};
    return redscan_reduce_ex(ctx, &d, in, n, result);
}

redscan_status redscan_reduce_host_ex(redscan_ctx *ctx, const redscan_reduce_desc *desc, const void *in, size_t n,
                                      void *result)
{
    static const char fn[] = "redscan_reduce_host_ex";
    rs_reduce_req req;
    size_t bytes;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(check_desc(ctx, fn, desc, &req));
    RS_TRY(rs_check_count(ctx, fn, "n", n, redscan_dtype_size(req.dtype), &bytes));
    if (n > 0) RS_TRY(rs_check_ptr(ctx, fn, "in", in));
    RS_TRY(rs_check_ptr(ctx, fn, "result", result));
    if (n == 0) return run(ctx, &req, NULL, 0, result);
    redscan_buffer *tmp;
    RS_TRY(rs_stage_upload(ctx, in, bytes, &tmp));
    redscan_status st = run(ctx, &req, tmp, n, result);
    redscan_buffer_destroy(ctx, tmp);
    return st;
}

redscan_status redscan_reduce_host(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, const void *in, size_t n,
                                   void *result)
{
    redscan_reduce_desc d = {op, dtype, (redscan_dtype)0, REDSCAN_REDUCE_AUTO, 0};
    return redscan_reduce_host_ex(ctx, &d, in, n, result);
}

/* mean: sum accumulated in 64-bit integers (wrap-around) or float64, divided on the host. */
static redscan_status mean_common(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, const redscan_buffer *in,
                                  const void *host_in, size_t n, double *mean)
{
    rs_time_forget(ctx);
    RS_TRY(rs_check_dtype(ctx, fn, "dtype", dtype));
    RS_TRY(rs_check_ptr(ctx, fn, "mean", mean));
    if (n == 0) return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'n' is 0: the mean of nothing is undefined", fn);
    redscan_dtype acc = rs_widening_of(dtype) ? rs_widening_of(dtype) : dtype;
    redscan_reduce_desc d = {REDSCAN_SUM, dtype, acc, REDSCAN_REDUCE_AUTO, 0};
    rs_scalar sum;
    if (in)
        RS_TRY(redscan_reduce_ex(ctx, &d, in, n, &sum));
    else
        RS_TRY(redscan_reduce_host_ex(ctx, &d, host_in, n, &sum));
    double total = acc == REDSCAN_INT64 ? (double)sum.i64 : acc == REDSCAN_UINT64 ? (double)sum.u64 : sum.f64;
    *mean = total / (double)n;
    return REDSCAN_OK;
}

redscan_status redscan_mean(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n, double *mean)
{
    static const char fn[] = "redscan_mean";
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(rs_check_ptr(ctx, fn, "in", in));
    return mean_common(ctx, fn, dtype, in, NULL, n, mean);
}

redscan_status redscan_mean_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, double *mean)
{
    static const char fn[] = "redscan_mean_host";
    RS_TRY(rs_check_ctx(fn, ctx));
    if (n > 0) RS_TRY(rs_check_ptr(ctx, fn, "in", in));
    return mean_common(ctx, fn, dtype, NULL, in, n, mean);
}
