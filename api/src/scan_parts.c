/* Scan parts (docs/ALGORITHMS.md, "Scan parts"; docs/SEMANTICS.md, "Scan parts"): the AUTO scan's two device passes
 * as public functions, so that a caller can chain the section totals itself (libredscan_mpi across ranks):
 *   redscan_scan_section_totals: S[j] of the sections of in[in_offset ..)
 *   redscan_scan_with_carries:   out[out_offset + i] = carries[i / SECTION] (+) L[i]
 * Here: the argument checks (everything before any backend runs, so a refused call enqueues and writes nothing),
 * then one backend entry each. Both only enqueue, like the _async functions. */
#include <stdint.h>

#include "check.h"

#if REDSCAN_SCAN_SECTION != RS_SEG_SCAN_TILE
#error "REDSCAN_SCAN_SECTION must be the coarsened block scan's SECTION"
#endif

static size_t div_up(size_t a, size_t b) { return a / b + (a % b != 0); }

/* The descriptor: rs_check_scan_desc's checks, then the parts' own rule (the AUTO scan's order, coarsened block, AUTO
 * grid; the environment's overrides are not applied: the parts define one expression). */
static redscan_status check_parts_desc(redscan_ctx *ctx, const char *fn, const redscan_scan_desc *desc,
                                       rs_scan_req *req)
{
    RS_TRY(rs_check_scan_desc(ctx, fn, desc, req));
    if (desc->block != REDSCAN_BLOCK_AUTO && desc->block != REDSCAN_BLOCK_COARSENED)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: argument 'desc->block' is %d: the scan parts run the AUTO scan's coarsened block "
                            "only (REDSCAN_BLOCK_AUTO or REDSCAN_BLOCK_COARSENED)",
                            fn, (int)desc->block);
    if (desc->grid != REDSCAN_GRID_AUTO)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "%s: argument 'desc->grid' is %d: the scan parts compute the AUTO grid's order only "
                            "(REDSCAN_GRID_AUTO)",
                            fn, (int)desc->grid);
    req->block = REDSCAN_BLOCK_COARSENED;
    req->grid = REDSCAN_GRID_AUTO;
    return REDSCAN_OK;
}

/* Elements [offset, offset + n) of `elem` bytes inside buf (a buffer of ctx); *first / *end: their byte range.
 * off_arg: the offset's argument name, NULL for the totals / carries (offset 0, n = their count).
 * Overflow-safe: offset + n and the byte counts are checked before they are formed. */
static redscan_status check_range(redscan_ctx *ctx, const char *fn, const char *arg, const char *off_arg,
                                  const redscan_buffer *buf, size_t offset, size_t n, size_t elem, size_t *first,
                                  size_t *end)
{
    RS_TRY(rs_check_ptr(ctx, fn, arg, buf));
    if (buf->owner != ctx)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument '%s' belongs to another context", fn,
                            arg);
    if (offset > SIZE_MAX - n)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' = %zu plus n = %zu overflows size_t", fn, off_arg, offset, n);
    size_t bytes = 0;
    RS_TRY(rs_check_count(ctx, fn, off_arg ? off_arg : "n", offset + n, elem, &bytes));
    if (bytes > buf->bytes && !off_arg)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' holds %zu bytes but ceil(n / %d) = %zu values of %zu bytes need %zu", fn,
                            arg, buf->bytes, REDSCAN_SCAN_SECTION, n, elem, bytes);
    if (bytes > buf->bytes)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument '%s' holds %zu bytes but %s = %zu plus n = %zu elements of %zu bytes need "
                            "%zu",
                            fn, arg, buf->bytes, off_arg, offset, n, elem, bytes);
    *first = offset * elem;
    *end = bytes;
    return REDSCAN_OK;
}

static int overlap(size_t a0, size_t a1, size_t b0, size_t b1) { return a0 < b1 && b0 < a1; }

static redscan_status check_n(redscan_ctx *ctx, const char *fn, size_t n)
{
    if (n == 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: argument 'n' is 0 (the scan parts need at least one element)", fn);
    return REDSCAN_OK;
}

redscan_status redscan_scan_section_totals(redscan_ctx *ctx, const redscan_scan_desc *desc, const redscan_buffer *in,
                                           size_t in_offset, size_t n, redscan_buffer *totals)
{
    static const char fn[] = "redscan_scan_section_totals";
    rs_scan_req req;
    size_t in0, in1, t0, t1;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_async(ctx);
    RS_TRY(check_parts_desc(ctx, fn, desc, &req));
    RS_TRY(check_n(ctx, fn, n));
    RS_TRY(check_range(ctx, fn, "in", "in_offset", in, in_offset, n, redscan_dtype_size(req.dtype), &in0, &in1));
    const size_t count = div_up(n, REDSCAN_SCAN_SECTION);
    RS_TRY(check_range(ctx, fn, "totals", NULL, totals, 0, count, redscan_dtype_size(rs_compute_dtype(req.out_dtype)),
                       &t0, &t1));
    if (totals == in)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: arguments 'in' and 'totals' are the same buffer (the totals are written while the "
                            "input is read)",
                            fn);
    return ctx->ops->scan_section_totals(ctx, &req, in->handle, in_offset, n, totals->handle);
}

redscan_status redscan_scan_with_carries(redscan_ctx *ctx, const redscan_scan_desc *desc, const redscan_buffer *in,
                                         size_t in_offset, redscan_buffer *out, size_t out_offset, size_t n,
                                         const redscan_buffer *carries)
{
    static const char fn[] = "redscan_scan_with_carries";
    rs_scan_req req;
    size_t in0, in1, o0, o1, c0, c1;
    RS_TRY(rs_check_ctx(fn, ctx));
    rs_time_async(ctx);
    RS_TRY(check_parts_desc(ctx, fn, desc, &req));
    RS_TRY(check_n(ctx, fn, n));
    RS_TRY(check_range(ctx, fn, "in", "in_offset", in, in_offset, n, redscan_dtype_size(req.dtype), &in0, &in1));
    RS_TRY(check_range(ctx, fn, "out", "out_offset", out, out_offset, n, redscan_dtype_size(req.out_dtype), &o0,
                       &o1));
    const size_t count = div_up(n, REDSCAN_SCAN_SECTION);
    RS_TRY(check_range(ctx, fn, "carries", NULL, carries, 0, count,
                       redscan_dtype_size(rs_compute_dtype(req.out_dtype)), &c0, &c1));
    if (in == out && overlap(in0, in1, o0, o1) && !(in_offset == out_offset && req.dtype == req.out_dtype))
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: arguments 'in' (from element %zu) and 'out' (from element %zu) overlap in one buffer; "
                            "in place needs in_offset == out_offset and out_dtype == dtype",
                            fn, in_offset, out_offset);
    if (carries == out && overlap(c0, c1, o0, o1))
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: arguments 'carries' and 'out' overlap in one buffer (the carries are read while the "
                            "output is written)",
                            fn);
    return ctx->ops->scan_with_carries(ctx, &req, in->handle, in_offset, out->handle, out_offset, n,
                                       carries->handle);
}
