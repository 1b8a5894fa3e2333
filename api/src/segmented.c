/* Segmented reduction and argmin / argmax: argument checks, the launch plan both backends follow, the fault message
 * (docs/SEMANTICS.md "Segments", docs/ALGORITHMS.md "Segments").
 *
 * What is checked where. On the host, before anything is enqueued (free: no data is read): the context, the
 * descriptor (as redscan_reduce_ex, and the algorithm must be AUTO or COARSENED), offsets_dtype, num_segments >= 1,
 * NULL buffers, buffers of another context, the offsets buffer holding num_segments + 1 offsets, the outputs holding
 * num_segments results, an output that is also an input. On the device (the offsets' values, which the host never
 * sees; seg_check, one work-item per offset, before the reduction kernels, which write nothing when it found a
 * fault): offsets that decrease, negative offsets (signed types), offsets[num_segments] past the elements `in`
 * holds. Those are reported by the blocking call, or for an _async call by the next redscan_synchronize. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

redscan_status rs_check_seg_reduce_desc(redscan_ctx *ctx, const char *fn, const redscan_reduce_desc *desc,
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
    /* One algorithm: the segment's bits are defined as the coarsened reduction of its slice. REDSCAN_REDUCE_ALGO is
     * not read, so the suite's forced-algorithm runs keep these results. */
    if (desc->algo != REDSCAN_REDUCE_AUTO && desc->algo != REDSCAN_REDUCE_COARSENED)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: argument 'desc->algo' is %s; segmented reductions run the coarsened algorithm only "
                            "(pass AUTO or COARSENED)",
                            fn, redscan_reduce_algo_name(desc->algo));
    if (desc->flags != 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc->flags' must be 0 (got %u)", fn,
                            desc->flags);
    req->op = desc->op;
    req->dtype = desc->dtype;
    req->algo = REDSCAN_REDUCE_COARSENED;
    return REDSCAN_OK;
}

/* in, offsets_dtype, offsets and num_segments, common to every segmented call. */
static redscan_status check_segments(redscan_ctx *ctx, const char *fn, redscan_dtype dtype, const redscan_buffer *in,
                                     redscan_dtype offsets_dtype, const redscan_buffer *offsets, size_t num_segments)
{
    RS_TRY(rs_check_buffer(ctx, fn, "in", in, 0, redscan_dtype_size(dtype)));
    if (offsets_dtype != REDSCAN_INT32 && offsets_dtype != REDSCAN_UINT32 && offsets_dtype != REDSCAN_INT64 &&
        offsets_dtype != REDSCAN_UINT64)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'offsets_dtype' is %d (%s); offsets are REDSCAN_INT32, _UINT32, _INT64 or "
                            "_UINT64",
                            fn, (int)offsets_dtype, redscan_dtype_name(offsets_dtype));
    if (num_segments == 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'num_segments' is 0: there is nothing to reduce (at least one segment)", fn);
    if (num_segments == SIZE_MAX)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'num_segments' = %zu: num_segments + 1 offsets overflow size_t", fn,
                            num_segments);
    RS_TRY(rs_check_ptr(ctx, fn, "offsets", offsets));
    if (offsets->owner != ctx)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'offsets' belongs to another context", fn);
    const size_t osize = redscan_dtype_size(offsets_dtype);
    if (num_segments + 1 > offsets->bytes / osize)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'offsets' holds %zu bytes but num_segments = %zu needs %zu + 1 offsets of %s",
                            fn, offsets->bytes, num_segments, num_segments, redscan_dtype_name(offsets_dtype));
    return REDSCAN_OK;
}

/* An output buffer: non-NULL, this context's, num_segments elements of `elem` bytes, not an input. */
static redscan_status check_output(redscan_ctx *ctx, const char *fn, const char *arg, const redscan_buffer *buf,
                                   size_t num_segments, size_t elem, const redscan_buffer *in,
                                   const redscan_buffer *offsets)
{
    size_t bytes;
    RS_TRY(rs_check_ptr(ctx, fn, arg, buf));
    if (buf->owner != ctx)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument '%s' belongs to another context", fn, arg);
    RS_TRY(rs_check_count(ctx, fn, "num_segments", num_segments, elem, &bytes));
    if (bytes > buf->bytes)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' holds %zu bytes but num_segments = %zu results need %zu", fn, arg,
                            buf->bytes, num_segments, bytes);
    if (buf == in || buf == offsets || buf->handle == in->handle || buf->handle == offsets->handle)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' is also an input (%s): segmented results cannot overwrite their input",
                            fn, arg, buf == in || buf->handle == in->handle ? "in" : "offsets");
    return REDSCAN_OK;
}

void rs_seg_plan_make(uint64_t in_n, uint64_t num_segments, rs_seg_plan *plan)
{
    /* levels: what a segment of all in_n elements needs (each level divides the values by TILE, rounding up) */
    unsigned levels = 1;
    for (uint64_t m = in_n; m > RS_SEG_TILE; m = m / RS_SEG_TILE + (m % RS_SEG_TILE != 0)) levels++;
    plan->levels = levels;
    plan->tiles = in_n / RS_SEG_TILE + (in_n % RS_SEG_TILE != 0);
    /* seg_short queues the segments of RS_SEG_SHORT + 1 .. RS_SEG_TILE elements: at most this many */
    plan->queue = in_n / (RS_SEG_SHORT + 1) < num_segments ? in_n / (RS_SEG_SHORT + 1) : num_segments;
}

void rs_seg_ws_bytes(const rs_seg_plan *plan, size_t tsize, size_t bytes[4])
{
    const size_t tiles = (size_t)(plan->tiles ? plan->tiles : 1);
    bytes[0] = plan->levels > 1 ? 2 * tiles * tsize : tsize;        /* A: level-1 values */
    bytes[1] = plan->levels > 2 ? 2 * tiles * tsize : tsize;        /* B: levels 2, 3, ... */
    bytes[2] = plan->levels > 1 ? 2 * tiles * sizeof(uint64_t) : 8; /* marks: first[], cont[] */
    bytes[3] = (size_t)(2 + 2 * plan->queue) * sizeof(uint64_t);    /* count, 2 words a queued segment, counter */
}

redscan_status rs_seg_check_size(redscan_ctx *ctx, const char *fn, uint64_t in_n)
{
    if (in_n / (RS_SEG_SHORT + 1) > UINT32_MAX) /* seg_short's queue counts its entries in 32 bits */
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: argument 'in' holds %" PRIu64 " elements; a segmented reduction, argmin or argmax "
                            "takes fewer than 33 x 2^32",
                            fn, in_n);
    return REDSCAN_OK;
}

redscan_status rs_seg_fault(redscan_ctx *ctx, unsigned bits, unsigned index)
{
    char at[64];
    if (index == 0xffffffffu)
        snprintf(at, sizeof at, "at offsets[4294967295] or later");
    else
        snprintf(at, sizeof at, "first at offsets[%u]", index);
    return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                        "segmented call: argument 'offsets' is invalid (found on the device, %s):%s%s%s; the call "
                        "wrote nothing",
                        at, bits & RS_SEG_FAULT_DECREASING ? " offsets decrease (offsets[s] > offsets[s+1])" : "",
                        bits & RS_SEG_FAULT_NEGATIVE ? " a negative offset" : "",
                        bits & RS_SEG_FAULT_PAST_END ? " offsets[num_segments] exceeds the elements 'in' holds" : "");
}

/* ---- the calls: each _async form checks and enqueues; the blocking form adds a wait that reports faults ---- */

typedef struct {
    int argext;       /* 0: reduce */
    int want_max;     /* argext */
    rs_reduce_req req; /* reduce; argext: req.dtype */
} seg_job;

static redscan_status enqueue(redscan_ctx *ctx, const seg_job *j, const redscan_buffer *in,
                              redscan_dtype offsets_dtype, const redscan_buffer *offsets, size_t num_segments,
                              redscan_buffer *out, redscan_buffer *values)
{
    const size_t in_n = in->bytes / redscan_dtype_size(j->req.dtype);
    if (j->argext)
        return ctx->ops->segmented_argext(ctx, j->req.dtype, j->want_max, in->handle, in_n, offsets_dtype,
                                          offsets->handle, num_segments, out->handle, values ? values->handle : NULL);
    return ctx->ops->segmented_reduce(ctx, &j->req, in->handle, in_n, offsets_dtype, offsets->handle, num_segments,
                                      out->handle);
}

static redscan_status run(redscan_ctx *ctx, int async, const seg_job *j, const redscan_buffer *in,
                          redscan_dtype offsets_dtype, const redscan_buffer *offsets, size_t num_segments,
                          redscan_buffer *out, redscan_buffer *values)
{
    if (async) return enqueue(ctx, j, in, offsets_dtype, offsets, num_segments, out, values);
    RS_TRY(rs_time_begin(ctx));
    redscan_status st = enqueue(ctx, j, in, offsets_dtype, offsets, num_segments, out, values);
    if (st == REDSCAN_OK)
        st = ctx->ops->synchronize(ctx, 0); /* device failures, and faulty offsets (rs_seg_fault) */
    else
        (void)ctx->ops->synchronize(ctx, 1); /* nothing queued may outlive the failed call */
    return rs_time_end(ctx, st);
}

static redscan_status segmented_reduce(redscan_ctx *ctx, const char *fn, int async, const redscan_reduce_desc *desc,
                                       const redscan_buffer *in, redscan_dtype offsets_dtype,
                                       const redscan_buffer *offsets, size_t num_segments, redscan_buffer *out)
{
    seg_job j = {0, 0, {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_REDUCE_COARSENED}};
    RS_TRY(rs_check_ctx(fn, ctx));
    if (async)
        rs_time_async(ctx);
    else
        rs_time_forget(ctx);
    RS_TRY(rs_check_seg_reduce_desc(ctx, fn, desc, &j.req));
    RS_TRY(check_segments(ctx, fn, j.req.dtype, in, offsets_dtype, offsets, num_segments));
    RS_TRY(rs_seg_check_size(ctx, fn, in->bytes / redscan_dtype_size(j.req.dtype)));
    RS_TRY(check_output(ctx, fn, "out", out, num_segments, redscan_dtype_size(j.req.out_dtype), in, offsets));
    return run(ctx, async, &j, in, offsets_dtype, offsets, num_segments, out, NULL);
}

static redscan_status segmented_argext(redscan_ctx *ctx, const char *fn, int async, int want_max, redscan_dtype dtype,
                                       const redscan_buffer *in, redscan_dtype offsets_dtype,
                                       const redscan_buffer *offsets, size_t num_segments, redscan_buffer *indices,
                                       redscan_buffer *values)
{
    seg_job j = {1, want_max, {REDSCAN_MIN, dtype, dtype, REDSCAN_REDUCE_COARSENED}};
    RS_TRY(rs_check_ctx(fn, ctx));
    if (async)
        rs_time_async(ctx);
    else
        rs_time_forget(ctx);
    RS_TRY(rs_check_dtype(ctx, fn, "dtype", dtype));
    RS_TRY(check_segments(ctx, fn, dtype, in, offsets_dtype, offsets, num_segments));
    RS_TRY(rs_seg_check_size(ctx, fn, in->bytes / redscan_dtype_size(dtype)));
    RS_TRY(check_output(ctx, fn, "indices", indices, num_segments, sizeof(uint64_t), in, offsets));
    if (values) {
        RS_TRY(check_output(ctx, fn, "values", values, num_segments, redscan_dtype_size(dtype), in, offsets));
        if (values == indices || values->handle == indices->handle)
            return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                                "%s: arguments 'indices' and 'values' are the same buffer", fn);
    }
    return run(ctx, async, &j, in, offsets_dtype, offsets, num_segments, indices, values);
}

redscan_status redscan_segmented_reduce(redscan_ctx *ctx, const redscan_reduce_desc *desc, const redscan_buffer *in,
                                        redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                        size_t num_segments, redscan_buffer *out)
{
    return segmented_reduce(ctx, "redscan_segmented_reduce", 0, desc, in, offsets_dtype, offsets, num_segments, out);
}

redscan_status redscan_segmented_reduce_async(redscan_ctx *ctx, const redscan_reduce_desc *desc,
                                              const redscan_buffer *in, redscan_dtype offsets_dtype,
                                              const redscan_buffer *offsets, size_t num_segments,
                                              redscan_buffer *out)
{
    return segmented_reduce(ctx, "redscan_segmented_reduce_async", 1, desc, in, offsets_dtype, offsets, num_segments,
                            out);
}

redscan_status redscan_segmented_argmin(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                        redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                        size_t num_segments, redscan_buffer *indices, redscan_buffer *values)
{
    return segmented_argext(ctx, "redscan_segmented_argmin", 0, 0, dtype, in, offsets_dtype, offsets, num_segments,
                            indices, values);
}

redscan_status redscan_segmented_argmax(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                        redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                        size_t num_segments, redscan_buffer *indices, redscan_buffer *values)
{
    return segmented_argext(ctx, "redscan_segmented_argmax", 0, 1, dtype, in, offsets_dtype, offsets, num_segments,
                            indices, values);
}

redscan_status redscan_segmented_argmin_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                              redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                              size_t num_segments, redscan_buffer *indices, redscan_buffer *values)
{
    return segmented_argext(ctx, "redscan_segmented_argmin_async", 1, 0, dtype, in, offsets_dtype, offsets,
                            num_segments, indices, values);
}

redscan_status redscan_segmented_argmax_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                              redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                              size_t num_segments, redscan_buffer *indices, redscan_buffer *values)
{
    return segmented_argext(ctx, "redscan_segmented_argmax_async", 1, 1, dtype, in, offsets_dtype, offsets,
                            num_segments, indices, values);
}

/* ---- segmented scan ---- */

redscan_status rs_seg_scan_path(redscan_ctx *ctx, int *multi)
{
    const char *v = getenv("REDSCAN_SEGMENTED_SCAN_PATH");
    *multi = 0;
    if (!v || !*v || strcmp(v, "auto") == 0 || strcmp(v, "single_pass") == 0 || strcmp(v, "one_pass") == 0)
        return REDSCAN_OK;
    if (strcmp(v, "multi_pass") == 0) {
        *multi = 1;
        return REDSCAN_OK;
    }
    return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                        "segmented scan: REDSCAN_SEGMENTED_SCAN_PATH=\"%s\" is not one of auto, single_pass, "
                        "multi_pass, one_pass (a testing knob: multi_pass forces OpenCL's four-kernel chunk path, "
                        "single_pass the single-pass chunk path, one_pass the exact operators' one pass)",
                        v);
}

int rs_seg_scan_one_pass(const rs_scan_req *req, int device_ok)
{
    if (!rs_byk_exact(req)) return 0;
    const char *v = getenv("REDSCAN_SEGMENTED_SCAN_PATH");
    if (!v || !*v || strcmp(v, "auto") == 0) return device_ok;
    return strcmp(v, "one_pass") == 0;
}

int rs_byk_exact(const rs_scan_req *req)
{
    if (req->dtype != req->out_dtype) return 0;
    switch (req->dtype) {
    case REDSCAN_INT32: case REDSCAN_UINT32: case REDSCAN_INT64: case REDSCAN_UINT64: return 1;
    case REDSCAN_FLOAT32: case REDSCAN_FLOAT64: return req->op == REDSCAN_MIN || req->op == REDSCAN_MAX;
    default: return 0;
    }
}

redscan_status rs_byk_path(redscan_ctx *ctx, const rs_scan_req *req, int *path)
{
    const char *v = getenv("REDSCAN_SCAN_BY_KEY_PATH");
    const int exact = rs_byk_exact(req);
    if (!v || !*v || strcmp(v, "auto") == 0) {
        *path = exact ? RS_BYK_AUTO : RS_BYK_RUNS;
    } else if (strcmp(v, "one_pass") == 0) {
        *path = exact ? RS_BYK_ONE_PASS : RS_BYK_RUNS;
    } else if (strcmp(v, "runs") == 0) {
        *path = RS_BYK_RUNS;
    } else {
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "scan by key: REDSCAN_SCAN_BY_KEY_PATH=\"%s\" is not one of auto, one_pass, runs (a testing "
                            "knob: one_pass forces the one-pass kernel of the exact operators, runs the runs' offsets "
                            "and the segmented scan)",
                            v);
    }
    return REDSCAN_OK;
}

static redscan_status check_scan_desc(redscan_ctx *ctx, const char *fn, const redscan_scan_desc *desc,
                                      rs_scan_req *req)
{
    RS_TRY(rs_check_ptr(ctx, fn, "desc", desc));
    RS_TRY(rs_check_op(ctx, fn, "desc->op", desc->op));
    RS_TRY(rs_check_dtype(ctx, fn, "desc->dtype", desc->dtype));
    RS_TRY(rs_check_out_dtype(ctx, fn, desc->dtype, desc->out_dtype, &req->out_dtype));
    if (desc->exclusive != 0 && desc->exclusive != 1)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'exclusive' must be 0 or 1 (got %d)", fn,
                            desc->exclusive);
    if ((int)desc->block < REDSCAN_BLOCK_AUTO || (int)desc->block > REDSCAN_BLOCK_COARSENED)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc->block' has unknown value %d", fn,
                            (int)desc->block);
    if ((int)desc->grid < REDSCAN_GRID_AUTO || (int)desc->grid > REDSCAN_GRID_SINGLE_PASS)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc->grid' has unknown value %d", fn,
                            (int)desc->grid);
    /* One order: the AUTO scan's (coarsened block, single_pass's expression) of each segment. The environment's
     * overrides are not read, so the suite's forced-algorithm runs keep these results. */
    if (desc->block != REDSCAN_BLOCK_AUTO && desc->block != REDSCAN_BLOCK_COARSENED)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: argument 'desc->block' is %s; segmented scans run the coarsened block only (pass AUTO "
                            "or COARSENED)",
                            fn, redscan_block_scan_name(desc->block));
    if (desc->grid != REDSCAN_GRID_AUTO && desc->grid != REDSCAN_GRID_SINGLE_PASS)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: argument 'desc->grid' is %s; segmented scans have single_pass's order only (pass AUTO "
                            "or SINGLE_PASS)",
                            fn, redscan_grid_scan_name(desc->grid));
    if (desc->flags != 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc->flags' must be 0 (got %u)", fn,
                            desc->flags);
    req->op = desc->op;
    req->dtype = desc->dtype;
    req->exclusive = desc->exclusive;
    req->block = REDSCAN_BLOCK_COARSENED;
    req->grid = REDSCAN_GRID_SINGLE_PASS;
    req->init = rs_identity(desc->op, req->out_dtype);
    if (desc->init) memcpy(&req->init, desc->init, redscan_dtype_size(req->out_dtype));
    req->init = rs_to_compute(req->out_dtype, req->init);
    return REDSCAN_OK;
}

static redscan_status segmented_scan(redscan_ctx *ctx, const char *fn, int async, const redscan_scan_desc *desc,
                                     const redscan_buffer *in, redscan_dtype offsets_dtype,
                                     const redscan_buffer *offsets, size_t num_segments, redscan_buffer *out)
{
    rs_scan_req req;
    RS_TRY(rs_check_ctx(fn, ctx));
    if (async)
        rs_time_async(ctx);
    else
        rs_time_forget(ctx);
    RS_TRY(check_scan_desc(ctx, fn, desc, &req));
    RS_TRY(check_segments(ctx, fn, req.dtype, in, offsets_dtype, offsets, num_segments));
    const size_t in_n = in->bytes / redscan_dtype_size(req.dtype);
    RS_TRY(rs_check_ptr(ctx, fn, "out", out));
    if (out->owner != ctx)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'out' belongs to another context", fn);
    if ((out == in || out->handle == in->handle) && req.out_dtype != req.dtype)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: arguments 'in' and 'out' are the same buffer, which needs out_dtype == dtype", fn);
    if (out->bytes / redscan_dtype_size(req.out_dtype) < in_n)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'out' holds %zu bytes but 'in' holds %zu elements: out needs as many of %s",
                            fn, out->bytes, in_n, redscan_dtype_name(req.out_dtype));
    if (out == offsets || out->handle == offsets->handle)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'out' is also 'offsets'", fn);
    if (!ctx->ops->segmented_scan)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "%s: the %s backend has no segmented scan", fn,
                            ctx->ops->name);
    if (async)
        return ctx->ops->segmented_scan(ctx, &req, in->handle, in_n, offsets_dtype, offsets->handle, num_segments,
                                        out->handle);
    RS_TRY(rs_time_begin(ctx));
    redscan_status st =
        ctx->ops->segmented_scan(ctx, &req, in->handle, in_n, offsets_dtype, offsets->handle, num_segments, out->handle);
    if (st == REDSCAN_OK)
        st = ctx->ops->synchronize(ctx, 0);
    else
        (void)ctx->ops->synchronize(ctx, 1);
    return rs_time_end(ctx, st);
}

redscan_status redscan_segmented_scan(redscan_ctx *ctx, const redscan_scan_desc *desc, const redscan_buffer *in,
                                      redscan_dtype offsets_dtype, const redscan_buffer *offsets, size_t num_segments,
                                      redscan_buffer *out)
{
    return segmented_scan(ctx, "redscan_segmented_scan", 0, desc, in, offsets_dtype, offsets, num_segments, out);
}

redscan_status redscan_segmented_scan_async(redscan_ctx *ctx, const redscan_scan_desc *desc, const redscan_buffer *in,
                                            redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                            size_t num_segments, redscan_buffer *out)
{
    return segmented_scan(ctx, "redscan_segmented_scan_async", 1, desc, in, offsets_dtype, offsets, num_segments,
                          out);
}

/* ---- scan by key ---- */

redscan_status rs_check_key_dtype(redscan_ctx *ctx, const char *fn, redscan_dtype key_dtype)
{
    switch (key_dtype) {
    case REDSCAN_INT8: case REDSCAN_UINT8: case REDSCAN_INT16: case REDSCAN_UINT16: case REDSCAN_INT32:
    case REDSCAN_UINT32: case REDSCAN_INT64: case REDSCAN_UINT64: return REDSCAN_OK;
    default:
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'key_dtype' is %d (%s); keys are an integer type (REDSCAN_INT8 .. _UINT64)",
                            fn, (int)key_dtype, redscan_dtype_name(key_dtype));
    }
}

static redscan_status scan_by_key(redscan_ctx *ctx, const char *fn, int async, const redscan_scan_desc *desc,
                                  redscan_dtype key_dtype, const redscan_buffer *keys, const redscan_buffer *in,
                                  redscan_buffer *out, size_t n)
{
    rs_scan_req req;
    RS_TRY(rs_check_ctx(fn, ctx));
    if (async)
        rs_time_async(ctx);
    else
        rs_time_forget(ctx);
    RS_TRY(check_scan_desc(ctx, fn, desc, &req));
    RS_TRY(rs_check_key_dtype(ctx, fn, key_dtype));
    /* keys shorter than n can only be seen here, from the buffer's size */
    RS_TRY(rs_check_buffer(ctx, fn, "keys", keys, n, redscan_dtype_size(key_dtype)));
    RS_TRY(rs_check_buffer(ctx, fn, "in", in, n, redscan_dtype_size(req.dtype)));
    RS_TRY(rs_check_buffer(ctx, fn, "out", out, n, redscan_dtype_size(req.out_dtype)));
    if (out == keys || out->handle == keys->handle)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'out' is also 'keys'", fn);
    if ((out == in || out->handle == in->handle) && req.out_dtype != req.dtype)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: arguments 'in' and 'out' are the same buffer, which needs out_dtype == dtype", fn);
    if (!ctx->ops->scan_by_key)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "%s: the %s backend has no scan by key", fn, ctx->ops->name);
    int path;
    RS_TRY(rs_byk_path(ctx, &req, &path));
    if (n == 0) return REDSCAN_OK;
    if (async) return ctx->ops->scan_by_key(ctx, &req, key_dtype, keys->handle, in->handle, out->handle, n, 0, path);
    RS_TRY(rs_time_begin(ctx));
    redscan_status st =
        ctx->ops->scan_by_key(ctx, &req, key_dtype, keys->handle, in->handle, out->handle, n, 1, path);
    if (st == REDSCAN_OK)
        st = ctx->ops->synchronize(ctx, 0);
    else
        (void)ctx->ops->synchronize(ctx, 1);
    return rs_time_end(ctx, st);
}

redscan_status redscan_scan_by_key(redscan_ctx *ctx, const redscan_scan_desc *desc, redscan_dtype key_dtype,
                                   const redscan_buffer *keys, const redscan_buffer *in, redscan_buffer *out, size_t n)
{
    return scan_by_key(ctx, "redscan_scan_by_key", 0, desc, key_dtype, keys, in, out, n);
}

redscan_status redscan_scan_by_key_async(redscan_ctx *ctx, const redscan_scan_desc *desc, redscan_dtype key_dtype,
                                         const redscan_buffer *keys, const redscan_buffer *in, redscan_buffer *out,
                                         size_t n)
{
    return scan_by_key(ctx, "redscan_scan_by_key_async", 1, desc, key_dtype, keys, in, out, n);
}
