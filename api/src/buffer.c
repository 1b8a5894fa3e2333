/* Device buffers: the core checks ranges, the backend moves bytes. */
#include <stdlib.h>

#include "check.h"

static redscan_status make(redscan_ctx *ctx, const char *fn, size_t bytes, void *handle, int wrapped,
                           redscan_buffer **out)
{
    redscan_buffer *b = malloc(sizeof *b);
    if (!b) {
        if (wrapped) {
            if (ctx->ops->buffer_unwrap) ctx->ops->buffer_unwrap(ctx, handle);
        } else {
            ctx->ops->buffer_destroy(ctx, handle);
        }
        return rs_set_error(ctx, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    b->handle = handle;
    b->bytes = bytes;
    b->wrapped = wrapped;
    b->owner = ctx;
    *out = b;
    return REDSCAN_OK;
}

redscan_status redscan_buffer_create(redscan_ctx *ctx, size_t bytes, redscan_buffer **buf)
{
    static const char fn[] = "redscan_buffer_create";
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(rs_check_ptr(ctx, fn, "buf", buf));
    void *handle = NULL;
    RS_TRY(ctx->ops->buffer_create(ctx, bytes, &handle));
    return make(ctx, fn, bytes, handle, 0, buf);
}

static redscan_status wrap(redscan_ctx *ctx, const char *fn, redscan_backend want, void *native, size_t bytes,
                           redscan_buffer **buf)
{
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(rs_check_ptr(ctx, fn, "buf", buf));
    RS_TRY(rs_check_ptr(ctx, fn, want == REDSCAN_BACKEND_CUDA ? "device_ptr" : "cl_mem_object", native));
    const rs_backend_ops *expected = want == REDSCAN_BACKEND_CUDA ? &rs_cuda_backend : &rs_opencl_backend;
    if (ctx->ops != expected)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: the context runs the '%s' backend, not '%s'", fn,
                            ctx->ops->name, expected->name);
    if (!ctx->ops->buffer_wrap)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "%s: the '%s' backend cannot wrap memory", fn,
                            ctx->ops->name);
    void *handle = NULL;
    RS_TRY(ctx->ops->buffer_wrap(ctx, native, bytes, &handle));
    return make(ctx, fn, bytes, handle, 1, buf);
}

redscan_status redscan_buffer_wrap_cuda(redscan_ctx *ctx, void *device_ptr, size_t bytes, redscan_buffer **buf)
{
    return wrap(ctx, "redscan_buffer_wrap_cuda", REDSCAN_BACKEND_CUDA, device_ptr, bytes, buf);
}

redscan_status redscan_buffer_wrap_opencl(redscan_ctx *ctx, void *cl_mem_object, size_t bytes, redscan_buffer **buf)
{
    return wrap(ctx, "redscan_buffer_wrap_opencl", REDSCAN_BACKEND_OPENCL, cl_mem_object, bytes, buf);
}

/* offset + bytes within the buffer, without overflow */
static redscan_status check_range(redscan_ctx *ctx, const char *fn, const redscan_buffer *buf, size_t offset,
                                  size_t bytes)
{
    RS_TRY(rs_check_ptr(ctx, fn, "buf", buf));
    if (buf->owner != ctx)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'buf' belongs to another context", fn);
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: range offset %zu + bytes %zu is past the buffer's end (%zu bytes)", fn, offset, bytes,
                            buf->bytes);
    return REDSCAN_OK;
}

redscan_status redscan_buffer_write(redscan_ctx *ctx, redscan_buffer *buf, size_t offset, const void *src,
                                    size_t bytes)
{
    static const char fn[] = "redscan_buffer_write";
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(check_range(ctx, fn, buf, offset, bytes));
    if (bytes == 0) return REDSCAN_OK;
    RS_TRY(rs_check_ptr(ctx, fn, "src", src));
    return ctx->ops->buffer_write(ctx, buf->handle, offset, src, bytes);
}

redscan_status redscan_buffer_read(redscan_ctx *ctx, const redscan_buffer *buf, size_t offset, void *dst,
                                   size_t bytes)
{
    static const char fn[] = "redscan_buffer_read";
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(check_range(ctx, fn, buf, offset, bytes));
    if (bytes == 0) return REDSCAN_OK;
    RS_TRY(rs_check_ptr(ctx, fn, "dst", dst));
    return ctx->ops->buffer_read(ctx, buf->handle, offset, dst, bytes);
}

void redscan_buffer_destroy(redscan_ctx *ctx, redscan_buffer *buf)
{
    if (!ctx || !buf || buf->owner != ctx || !ctx->impl) return;
    if (buf->wrapped) {
        if (ctx->ops->buffer_unwrap) ctx->ops->buffer_unwrap(ctx, buf->handle);
    } else {
        ctx->ops->buffer_destroy(ctx, buf->handle);
    }
    free(buf);
}

redscan_status redscan_native_handle(redscan_ctx *ctx, redscan_native what, void **handle)
{
    static const char fn[] = "redscan_native_handle";
    RS_TRY(rs_check_ctx(fn, ctx));
    RS_TRY(rs_check_ptr(ctx, fn, "handle", handle));
    if ((int)what < REDSCAN_NATIVE_OPENCL_CONTEXT || (int)what > REDSCAN_NATIVE_CUDA_STREAM)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'what' has unknown value %d", fn,
                            (int)what);
    void *h = ctx->ops->native ? ctx->ops->native(ctx, what) : NULL;
    if (!h)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: the '%s' backend has no native object %d (OpenCL objects come from the opencl "
                            "backend, the stream from the cuda backend)",
                            fn, ctx->ops->name, (int)what);
    *handle = h;
    return REDSCAN_OK;
}

size_t redscan_buffer_size(const redscan_buffer *buf)
{
    return buf ? buf->bytes : 0;
}

void *redscan_buffer_native(const redscan_buffer *buf)
{
    return buf ? buf->handle : NULL;
}
