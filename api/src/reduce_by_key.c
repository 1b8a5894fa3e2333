/* redscan_reduce_by_key and its _async form: the argument checks and the call (docs/SEMANTICS.md "Segments",
 * docs/ALGORITHMS.md "Reduce by key").
 *
 * Everything is checked on the host before anything is enqueued: the context, the descriptor (as
 * redscan_segmented_reduce: algo AUTO or COARSENED), key_dtype an integer type, keys and in holding n elements,
 * unique_keys holding n keys and aggregates n results of out_dtype (the worst case: every key its own run; CUB's
 * DeviceReduce::ReduceByKey asks the same), no output that is an input or another output, num_runs non-NULL (and for
 * _async a buffer of at least one uint64). The runs' offsets are built on the device from the keys and are valid by
 * construction, so nothing is checked there. */
#include "check.h"

/* An output buffer of the call: non-NULL, this context's, `count` elements of `elem` bytes. */
static redscan_status check_out(redscan_ctx *ctx, const char *fn, const char *arg, const redscan_buffer *buf,
                                size_t count, size_t elem)
{
    size_t bytes;
    RS_TRY(rs_check_ptr(ctx, fn, arg, buf));
    if (buf->owner != ctx)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument '%s' belongs to another context", fn, arg);
    RS_TRY(rs_check_count(ctx, fn, "n", count, elem, &bytes));
    if (bytes > buf->bytes)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' holds %zu bytes but n = %zu needs room for %zu (n runs at most)", fn,
                            arg, buf->bytes, count, bytes);
    return REDSCAN_OK;
}

static int same(const redscan_buffer *a, const redscan_buffer *b)
{
    return a && b && (a == b || a->handle == b->handle);
}

/* No buffer of the call is another one: outputs never overlap an input or each other (the kernels read the keys
 * after the first outputs are written). */
static redscan_status check_distinct(redscan_ctx *ctx, const char *fn, const redscan_buffer *const *bufs,
                                     const char *const *names, int count, int first_output)
{
    for (int i = first_output; i < count; i++)
        for (int j = 0; j < i; j++)
            if (same(bufs[i], bufs[j]))
                return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                                    "%s: argument '%s' is also '%s': the outputs of reduce by key must not overlap its "
                                    "inputs or each other",
                                    fn, names[i], names[j]);
    return REDSCAN_OK;
}

static redscan_status reduce_by_key(redscan_ctx *ctx, const char *fn, const redscan_reduce_desc *desc,
                                    redscan_dtype key_dtype, const redscan_buffer *keys, const redscan_buffer *in,
                                    size_t n, redscan_buffer *unique_keys, redscan_buffer *aggregates,
                                    int async, size_t *num_runs_host, redscan_buffer *num_runs_dev)
{
    rs_reduce_req req = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_REDUCE_COARSENED};
    RS_TRY(rs_check_ctx(fn, ctx));
    if (async)
        rs_time_async(ctx);
    else
        rs_time_forget(ctx);
    RS_TRY(rs_check_seg_reduce_desc(ctx, fn, desc, &req));
    RS_TRY(rs_check_key_dtype(ctx, fn, key_dtype));
    /* keys or in shorter than n can only be seen here, from the buffers' sizes */
    RS_TRY(rs_check_buffer(ctx, fn, "keys", keys, n, redscan_dtype_size(key_dtype)));
    RS_TRY(rs_check_buffer(ctx, fn, "in", in, n, redscan_dtype_size(req.dtype)));
    RS_TRY(rs_seg_check_size(ctx, fn, n));
    RS_TRY(check_out(ctx, fn, "unique_keys", unique_keys, n, redscan_dtype_size(key_dtype)));
    RS_TRY(check_out(ctx, fn, "aggregates", aggregates, n, redscan_dtype_size(req.out_dtype)));
    if (async)
        RS_TRY(check_out(ctx, fn, "num_runs", num_runs_dev, 1, sizeof(uint64_t)));
    else
        RS_TRY(rs_check_ptr(ctx, fn, "num_runs", num_runs_host));
    {
        const redscan_buffer *bufs[] = {keys, in, unique_keys, aggregates, num_runs_dev};
        const char *names[] = {"keys", "in", "unique_keys", "aggregates", "num_runs"};
        RS_TRY(check_distinct(ctx, fn, bufs, names, async ? 5 : 4, 2));
    }
    if (!ctx->ops->reduce_by_key)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "%s: the %s backend has no reduce by key", fn,
                            ctx->ops->name);
    if (n == 0) {
        /* No runs. The _async form still owes num_runs its 0, by a device command in stream order: the stored
         * "reduction of nothing" of a uint64 sum is exactly a uint64 zero. */
        if (async) return ctx->ops->store_empty(ctx, REDSCAN_SUM, REDSCAN_UINT64, num_runs_dev->handle, 0);
        *num_runs_host = 0;
        return REDSCAN_OK;
    }
    if (async)
        return ctx->ops->reduce_by_key(ctx, &req, key_dtype, keys->handle, in->handle, n, unique_keys->handle,
                                       aggregates->handle, num_runs_dev->handle, NULL);
    uint64_t runs = 0;
    RS_TRY(rs_time_begin(ctx));
    redscan_status st = ctx->ops->reduce_by_key(ctx, &req, key_dtype, keys->handle, in->handle, n,
                                                unique_keys->handle, aggregates->handle, NULL, &runs);
    if (st == REDSCAN_OK)
        st = ctx->ops->synchronize(ctx, 0);
    else
        (void)ctx->ops->synchronize(ctx, 1); /* nothing queued may outlive the failed call */
    if (st == REDSCAN_OK) *num_runs_host = (size_t)runs;
    return rs_time_end(ctx, st);
}

redscan_status redscan_reduce_by_key(redscan_ctx *ctx, const redscan_reduce_desc *desc, redscan_dtype key_dtype,
                                     const redscan_buffer *keys, const redscan_buffer *in, size_t n,
                                     redscan_buffer *unique_keys, redscan_buffer *aggregates, size_t *num_runs)
{
    return reduce_by_key(ctx, "redscan_reduce_by_key", desc, key_dtype, keys, in, n, unique_keys, aggregates, 0,
                         num_runs, NULL);
}

redscan_status redscan_reduce_by_key_async(redscan_ctx *ctx, const redscan_reduce_desc *desc,
                                           redscan_dtype key_dtype, const redscan_buffer *keys,
                                           const redscan_buffer *in, size_t n, redscan_buffer *unique_keys,
                                           redscan_buffer *aggregates, redscan_buffer *num_runs)
{
    return reduce_by_key(ctx, "redscan_reduce_by_key_async", desc, key_dtype, keys, in, n, unique_keys, aggregates, 1,
                         NULL, num_runs);
}
