/* OpenCL backend: device buffers, blocking transfers, per-context scratch (grow-only).
 *
 * Buffers are plain cl_mem handles (the core stores them in redscan_buffer.handle). A zero-byte request
 * allocates one byte, since OpenCL rejects empty buffers and the API allows them. Transfers are blocking, so
 * the caller's host memory is free to reuse on return and the in-order queue has finished every launch
 * before a result is read. */
#include <string.h>

#include "ocl_internal.h"

/* Allocation failures, reported as OUT_OF_MEMORY with a message naming the size. */
static redscan_status rs_ocl_alloc(redscan_ctx *ctx, size_t bytes, const char *what, cl_mem *mem)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if ((cl_ulong)bytes > o->max_alloc)
        return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY,
                            "%s of %zu bytes exceeds the device's largest allocation (%llu bytes)", what, bytes,
                            (unsigned long long)o->max_alloc);
    cl_int err;
    cl_mem m = clCreateBuffer(o->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    if (err != CL_SUCCESS) {
        /* CL_INVALID_BUFFER_SIZE: larger than the driver will give, whatever max_alloc said. */
        redscan_status st = err == CL_INVALID_BUFFER_SIZE ? REDSCAN_ERR_OUT_OF_MEMORY : rs_ocl_status(err);
        return rs_set_error(ctx, st, "%s of %zu bytes: clCreateBuffer: %s (%d)", what, bytes, rs_ocl_error_name(err),
                            (int)err);
    }
    *mem = m;
    return REDSCAN_OK;
}

redscan_status rs_ocl_buffer_create(redscan_ctx *ctx, size_t bytes, void **handle)
{
    cl_mem m = NULL;
    redscan_status st = rs_ocl_alloc(ctx, bytes, "device buffer", &m);
    if (st == REDSCAN_OK) *handle = m;
    return st;
}

void rs_ocl_buffer_destroy(redscan_ctx *ctx, void *handle)
{
    (void)ctx;
    /* The release waits for nothing: OpenCL frees the memory once queued commands using it are done. */
    if (handle) clReleaseMemObject((cl_mem)handle);
}

redscan_status rs_ocl_buffer_write(redscan_ctx *ctx, void *handle, size_t offset, const void *src, size_t bytes)
{
    if (bytes == 0) return REDSCAN_OK; /* OpenCL rejects empty transfers */
    rs_ocl *o = rs_ocl_of(ctx);
    cl_int err = clEnqueueWriteBuffer(o->queue, (cl_mem)handle, CL_TRUE, offset, bytes, src, 0, NULL,
                                      rs_ocl_time_event(o));
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clEnqueueWriteBuffer");
    rs_ocl_time_note(o);
    return REDSCAN_OK;
}

redscan_status rs_ocl_buffer_read(redscan_ctx *ctx, void *handle, size_t offset, void *dst, size_t bytes)
{
    if (bytes == 0) return REDSCAN_OK;
    rs_ocl *o = rs_ocl_of(ctx);
    cl_int err =
        clEnqueueReadBuffer(o->queue, (cl_mem)handle, CL_TRUE, offset, bytes, dst, 0, NULL, rs_ocl_time_event(o));
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clEnqueueReadBuffer");
    rs_ocl_time_note(o); /* a reduction's result copy is the last command of its operation */
    return REDSCAN_OK;
}

/* A grow-only buffer (*mem of *held bytes) made to hold at least `bytes`: partial results of every call fit in what
 * earlier calls needed most of the time, so steady use allocates nothing. Growth at least doubles (capped at the
 * device limit) to keep reallocations few; when the doubling does not fit, exactly what is needed is asked.
 * The new buffer is made before the old one is released, unless only that makes room: a checker that reuses the
 * released memory at once for the larger buffer (Oclgrind 21.10) took the new bytes past the old size as never
 * written, although every kernel wrote them (docs/RELIABILITY.md, "Kernel checkers"). OpenCL keeps a released
 * buffer alive until launches already queued on it are done. */
static redscan_status rs_ocl_grow(redscan_ctx *ctx, cl_mem *mem, size_t *held, size_t bytes)
{
    size_t want = bytes;
    if (*held <= ((size_t)-1) / 2 && want < 2 * *held) want = 2 * *held;
    if ((cl_ulong)want > rs_ocl_of(ctx)->max_alloc) want = bytes;
    cl_mem m = NULL;
    redscan_status st = rs_ocl_alloc(ctx, want, "scratch buffer", &m);
    if (st != REDSCAN_OK && want > bytes) st = rs_ocl_alloc(ctx, want = bytes, "scratch buffer", &m);
    if (st != REDSCAN_OK && *mem) {
        /* The old buffer and the new one need not fit at the same time. */
        clReleaseMemObject(*mem);
        *mem = NULL;
        *held = 0;
        st = rs_ocl_alloc(ctx, want = bytes, "scratch buffer", &m);
    }
    if (st != REDSCAN_OK) return st;
    if (*mem) clReleaseMemObject(*mem);
    *mem = m;
    *held = want;
    return REDSCAN_OK;
}

/* Slot i: grow-only (rs_ocl_grow). */
static redscan_status rs_ocl_slot(redscan_ctx *ctx, size_t i, size_t bytes, cl_mem *mem)
{
    rs_ocl_full *f = rs_ocl_full_of(rs_ocl_of(ctx));
    if (!f->slot[i] || f->slot_bytes[i] < bytes) RS_OCL_TRY(rs_ocl_grow(ctx, &f->slot[i], &f->slot_bytes[i], bytes));
    cl_int err = clRetainMemObject(f->slot[i]);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clRetainMemObject (scratch)");
    *mem = f->slot[i];
    return REDSCAN_OK;
}

redscan_status rs_ocl_scratch_split(redscan_ctx *ctx, size_t count, const size_t *bytes, cl_mem *parts)
{
    if (count > RS_OCL_SPLIT_MAX)
        return rs_set_error(ctx, REDSCAN_ERR_DEVICE, "internal: %zu scratch parts asked, at most %d", count,
                            RS_OCL_SPLIT_MAX);
    for (size_t i = 0; i < count; i++) {
        redscan_status st = rs_ocl_slot(ctx, i, bytes[i], &parts[i]);
        if (st != REDSCAN_OK) {
            /* Give back the parts retained so far and clear them: callers release every non-NULL part when they
             * are done, and a second release would free a slot the context still holds. */
            for (size_t j = 0; j <= i; j++) {
                if (j < i) clReleaseMemObject(parts[j]);
                parts[j] = NULL;
            }
            return st;
        }
    }
    return REDSCAN_OK;
}

void rs_ocl_scratch_release(rs_ocl *o)
{
    rs_ocl_full *f = rs_ocl_full_of(o);
    for (size_t i = 0; i < RS_OCL_SPLIT_MAX; i++) {
        if (f->slot[i]) clReleaseMemObject(f->slot[i]);
        f->slot[i] = NULL;
        f->slot_bytes[i] = 0;
    }
    for (int i = 0; i < 2; i++) {
        if (o->result[i]) clReleaseMemObject(o->result[i]);
        o->result[i] = NULL;
    }
    if (f->seg_flags) clReleaseMemObject(f->seg_flags);
    if (f->seg_sticky) clReleaseMemObject(f->seg_sticky);
    f->seg_flags = NULL;
    f->seg_sticky = NULL;
}

/* ---- stream-ordered operation ---- */

redscan_status rs_ocl_synchronize(redscan_ctx *ctx, int quiet)
{
    cl_int err = clFinish(rs_ocl_of(ctx)->queue);
    if (quiet) return REDSCAN_OK;
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clFinish");
    return rs_ocl_seg_report(ctx); /* faulty offsets of segmented calls since the last wait */
}

redscan_status rs_ocl_reserve(redscan_ctx *ctx, redscan_dtype dtype, size_t n, size_t k_max)
{
    rs_ocl *o = rs_ocl_of(ctx);
    size_t need[RS_OCL_SPLIT_MAX] = {0};
    rs_ocl_select_reserve(o, dtype, n, k_max, need);
    rs_ocl_scan_reserve(dtype, n, need);
    rs_ocl_seg_scan_reserve(dtype, n, need);
    rs_ocl_seg_reduce_reserve(dtype, n, need);
    if (rs_widening_of(dtype)) {
        rs_ocl_scan_reserve(rs_widening_of(dtype), n, need);
        rs_ocl_seg_scan_reserve(rs_widening_of(dtype), n, need);
        rs_ocl_seg_reduce_reserve(rs_widening_of(dtype), n, need);
    }
    RS_OCL_TRY(rs_ocl_seg_words(ctx));
    for (size_t i = 0; i < RS_OCL_SPLIT_MAX; i++) {
        if (!need[i]) continue;
        cl_mem part = NULL;
        redscan_status st = rs_ocl_slot(ctx, i, need[i], &part);
        if (st != REDSCAN_OK) return st;
        clReleaseMemObject(part); /* the context keeps its own reference */
    }
    return REDSCAN_OK;
}

redscan_status rs_ocl_result_slots(redscan_ctx *ctx, void **values, void **indices)
{
    rs_ocl *o = rs_ocl_of(ctx);
    for (int i = 0; i < 2; i++)
        if (!o->result[i]) RS_OCL_TRY(rs_ocl_alloc(ctx, RS_RESULT_BYTES, "result area", &o->result[i]));
    *values = o->result[0];
    *indices = o->result[1];
    return REDSCAN_OK;
}

/* Blocking reads: each waits for the in-order queue, so for the operation that wrote the area. */
redscan_status rs_ocl_result_take(redscan_ctx *ctx, void *values, size_t value_bytes, void *indices,
                                  size_t index_bytes, const char *what)
{
    (void)what;
    rs_ocl *o = rs_ocl_of(ctx);
    RS_OCL_TRY(rs_ocl_buffer_read(ctx, o->result[0], 0, values, value_bytes));
    if (indices) RS_OCL_TRY(rs_ocl_buffer_read(ctx, o->result[1], 0, indices, index_bytes));
    return REDSCAN_OK;
}
