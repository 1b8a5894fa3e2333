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

/* ---- argmin / argmax ---- */
typedef struct {
    int want_max;
    uint64_t index;
    rs_scalar value;
} argext_job;

static redscan_status argext_run(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                                 void *arg)
{
    argext_job *j = arg;
    RS_TRY(rs_time_begin(ctx));
    return rs_time_end(ctx, ctx->ops->argext(ctx, dtype, j->want_max, in->handle, n, &j->index, &j->value));
}

static redscan_status argext(redscan_ctx *ctx, const char *fn, int want_max, redscan_dtype dtype,
                             const redscan_buffer *in, const void *host_in, size_t n, uint64_t *index, void *value)
{
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(rs_check_ptr(ctx, fn, "in", in ? (const void *)in : host_in));
    RS_TRY(check_input(ctx, fn, dtype, in, host_in, n));
    RS_TRY(rs_check_ptr(ctx, fn, "index", index));
    argext_job j = {want_max, 0, {0}};
    RS_TRY(on_device(ctx, dtype, in, host_in, n, argext_run, &j));
    *index = j.index;
    if (value) memcpy(value, &j.value, redscan_dtype_size(dtype));
    return REDSCAN_OK;
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

/* ---- top-k ---- */
typedef struct {
    size_t k;
    int largest;
    uint64_t indices[REDSCAN_TOPK_MAX];
    rs_scalar values[REDSCAN_TOPK_MAX];
} topk_job;

static redscan_status topk_run(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n, void *arg)
{
    topk_job *j = arg;
    RS_TRY(rs_time_begin(ctx));
    return rs_time_end(ctx, ctx->ops->topk(ctx, dtype, in->handle, n, j->k, j->largest, j->values, j->indices));
}

static redscan_status topk(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, const redscan_buffer *in,
                           const void *host_in, size_t n, size_t k, int largest, void *values, uint64_t *indices)
{
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_forget(ctx);
    RS_TRY(rs_check_ptr(ctx, fn, "in", in ? (const void *)in : host_in));
    RS_TRY(check_input(ctx, fn, dtype, in, host_in, n));
    RS_TRY(rs_check_ptr(ctx, fn, "values", values));
    if (k == 0 || k > REDSCAN_TOPK_MAX || k > n)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'k' = %zu is out of range (1 <= k <= min(n = %zu, %d))", fn, k, n,
                            REDSCAN_TOPK_MAX);
    if (largest != 0 && largest != 1)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'largest' must be 0 or 1 (got %d)", fn,
                            largest);
    topk_job j;
    j.k = k;
    j.largest = largest;
    RS_TRY(on_device(ctx, dtype, in, host_in, n, topk_run, &j));
    /* the backend writes k packed elements of dtype into values */
    memcpy(values, j.values, k * redscan_dtype_size(dtype));
    if (indices) memcpy(indices, j.indices, k * sizeof *indices);
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
