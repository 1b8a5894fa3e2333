/* argmin / argmax / top-k: checks, host staging; results reach the caller only on success. */
#include <string.h>

#include "check.h"
#include "stage.h"

typedef redscan_status (*rs_select_fn)(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                       size_t n, void *arg);

/* Runs `fn` on a device buffer, or on a staged copy of the host array. */
static redscan_status on_device(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                const void *host_in, size_t n, rs_select_fn fn, void *arg)
{
    if (in) return fn(ctx, dtype, in, n, arg);
    redscan_buffer *tmp;
    RS_TRY(rs_stage_upload(ctx, host_in, n * redscan_dtype_size(dtype), &tmp));
    redscan_status st = fn(ctx, dtype, tmp, n, arg);
    redscan_buffer_destroy(ctx, tmp);
    return st;
}

static redscan_status check_input(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, const redscan_buffer *in,
                                  const void *host_in, size_t n)
{
    RS_TRY(rs_check_dtype(ctx, fn, "dtype", dtype));
    if (n == 0) return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'n' is 0: there is no element to select", fn);
    if (host_in) return rs_check_count(ctx, fn, "n", n, redscan_dtype_size(dtype), NULL);
    return rs_check_buffer(ctx, fn, "in", in, n, redscan_dtype_size(dtype));
}

/* Blocking: the async operation into the context's result area, then a wait and the copy out. A failed enqueue
 * still settles what it queued. Results reach the caller only on success. */
typedef struct {
    int topk;    /* 0: argmin/argmax */
    int largest; /* argext: want_max */
    size_t k;    /* argext: 1 */
    void *values;
    uint64_t *indices; /* may be NULL (top-k) */
} select_job;

static redscan_status select_run(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                                 void *arg)
{
    select_job *j = arg;
    void *slot_v = NULL, *slot_i = NULL;
    RS_TRY(ctx->ops->result_slots(ctx, &slot_v, &slot_i));
    RS_TRY(rs_time_begin(ctx));
    redscan_status st = j->topk ? ctx->ops->topk(ctx, dtype, in->handle, n, j->k, j->largest, slot_v,
                                                 j->indices ? slot_i : NULL)
                                : ctx->ops->argext(ctx, dtype, j->largest, in->handle, n, slot_i, slot_v);
    if (st == REDSCAN_OK)
        st = ctx->ops->result_take(ctx, j->values, j->k * redscan_dtype_size(dtype), j->indices,
                                   j->indices ? j->k * sizeof(uint64_t) : 0, j->topk ? "topk" : "argext");
    else
        (void)ctx->ops->synchronize(ctx, 1);
    return rs_time_end(ctx, st);
}

/* ---- argmin / argmax ---- */
static redscan_status argext(redscan_ctx *ctx, const char *fn, int want_max, redscan_dtype dtype,
                             const redscan_buffer *in, const void *host_in, size_t n, uint64_t *index, void *value)
{
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(rs_check_ptr(ctx, fn, "in", in ? (const void *)in : host_in));
    RS_TRY(check_input(ctx, fn, dtype, in, host_in, n));
    RS_TRY(rs_check_ptr(ctx, fn, "index", index));
    rs_scalar v;
    uint64_t idx = 0;
    select_job j = {0, want_max, 1, v.bytes, &idx};
    RS_TRY(on_device(ctx, dtype, in, host_in, n, select_run, &j));
    *index = idx;
    if (value) memcpy(value, v.bytes, redscan_dtype_size(dtype));
    return REDSCAN_OK;
}

static redscan_status argext_async(redscan_ctx *ctx, const char *fn, int want_max, redscan_dtype dtype,
                                   const redscan_buffer *in, size_t n, redscan_buffer *index, redscan_buffer *value)
{
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_async(ctx);
    RS_TRY(rs_check_ptr(ctx, fn, "in", in));
    RS_TRY(check_input(ctx, fn, dtype, in, NULL, n));
    RS_TRY(rs_check_buffer(ctx, fn, "index", index, 1, sizeof(uint64_t)));
    if (value) RS_TRY(rs_check_buffer(ctx, fn, "value", value, 1, redscan_dtype_size(dtype)));
    return ctx->ops->argext(ctx, dtype, want_max, in->handle, n, index->handle, value ? value->handle : NULL);
}

redscan_status redscan_argmin(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                              uint64_t *index, void *value)
{
    return argext(ctx, "redscan_argmin", 0, dtype, in, NULL, n, index, value);
}

redscan_status redscan_argmax(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                              uint64_t *index, void *value)
{
    return argext(ctx, "redscan_argmax", 1, dtype, in, NULL, n, index, value);
}

redscan_status redscan_argmin_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, uint64_t *index,
                                   void *value)
{
    return argext(ctx, "redscan_argmin_host", 0, dtype, NULL, in, n, index, value);
}

redscan_status redscan_argmax_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, uint64_t *index,
                                   void *value)
{
    return argext(ctx, "redscan_argmax_host", 1, dtype, NULL, in, n, index, value);
}

redscan_status redscan_argmin_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                                    redscan_buffer *index, redscan_buffer *value)
{
    return argext_async(ctx, "redscan_argmin_async", 0, dtype, in, n, index, value);
}

redscan_status redscan_argmax_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                                    redscan_buffer *index, redscan_buffer *value)
{
    return argext_async(ctx, "redscan_argmax_async", 1, dtype, in, n, index, value);
}

/* ---- top-k ---- */
static redscan_status check_k(redscan_ctx *ctx, const char *fn, size_t n, size_t k, int largest)
{
    if (k == 0 || k > REDSCAN_TOPK_MAX || k > n)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'k' = %zu is out of range (1 <= k <= min(n = %zu, %d))", fn, k, n,
                            REDSCAN_TOPK_MAX);
    if (largest != 0 && largest != 1)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'largest' must be 0 or 1 (got %d)", fn,
                            largest);
    return REDSCAN_OK;
}

static redscan_status topk(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, const redscan_buffer *in,
                           const void *host_in, size_t n, size_t k, int largest, void *values, uint64_t *indices)
{
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(rs_check_ptr(ctx, fn, "in", in ? (const void *)in : host_in));
    RS_TRY(check_input(ctx, fn, dtype, in, host_in, n));
    RS_TRY(rs_check_ptr(ctx, fn, "values", values));
    RS_TRY(check_k(ctx, fn, n, k, largest));
    /* Copied out only on success: a failed call leaves the caller's arrays as they were. */
    rs_scalar v[REDSCAN_TOPK_MAX];
    uint64_t idx[REDSCAN_TOPK_MAX];
    select_job j = {1, largest, k, v, indices ? idx : NULL};
    RS_TRY(on_device(ctx, dtype, in, host_in, n, select_run, &j));
    memcpy(values, v, k * redscan_dtype_size(dtype));
    if (indices) memcpy(indices, idx, k * sizeof *indices);
    return REDSCAN_OK;
}

redscan_status redscan_topk(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n, size_t k,
                            int largest, void *values, uint64_t *indices)
{
    return topk(ctx, "redscan_topk", dtype, in, NULL, n, k, largest, values, indices);
}

redscan_status redscan_topk_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, size_t k,
                                 int largest, void *values, uint64_t *indices)
{
    return topk(ctx, "redscan_topk_host", dtype, NULL, in, n, k, largest, values, indices);
}

redscan_status redscan_topk_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                                  size_t k, int largest, redscan_buffer *values, redscan_buffer *indices)
{
    static const char fn[] = "redscan_topk_async";
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_async(ctx);
    RS_TRY(rs_check_ptr(ctx, fn, "in", in));
    RS_TRY(check_input(ctx, fn, dtype, in, NULL, n));
    RS_TRY(check_k(ctx, fn, n, k, largest));
    RS_TRY(rs_check_buffer(ctx, fn, "values", values, k, redscan_dtype_size(dtype)));
    if (indices) RS_TRY(rs_check_buffer(ctx, fn, "indices", indices, k, sizeof(uint64_t)));
    return ctx->ops->topk(ctx, dtype, in->handle, n, k, largest, values->handle, indices ? indices->handle : NULL);
}
