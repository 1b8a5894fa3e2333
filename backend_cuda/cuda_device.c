/* CUDA backend: probe, device choice (REDSCAN_CUDA_DEVICE), stream, device queries, error mapping.
 *
 * The CUDA runtime is linked statically: on a machine without the NVIDIA driver (or without a device) the
 * library still loads, and cudaGetDeviceCount reports why; probe and init turn that into
 * REDSCAN_ERR_BACKEND_UNAVAILABLE with the runtime's own words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

redscan_status rs_cuda_status(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return REDSCAN_OK;
    case cudaErrorMemoryAllocation: return REDSCAN_ERR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
    case cudaErrorStubLibrary:
    case cudaErrorDevicesUnavailable:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorSystemNotReady:
    case cudaErrorDeviceUninitialized:
    case cudaErrorCallRequiresNewerDriver: return REDSCAN_ERR_BACKEND_UNAVAILABLE;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNotSupported: return REDSCAN_ERR_UNSUPPORTED;
    case cudaErrorInvalidPtx:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorJitCompilerNotFound:
    case cudaErrorJitCompilationDisabled:
    case cudaErrorInvalidKernelImage: return REDSCAN_ERR_KERNEL_BUILD;
    default: return REDSCAN_ERR_DEVICE;
    }
}

redscan_status rs_cuda_fail(redscan_ctx *ctx, cudaError_t err, const char *what)
{
    redscan_status st = rs_cuda_status(err);
    if (st == REDSCAN_OK) st = REDSCAN_ERR_DEVICE;
    (void)cudaGetLastError(); /* a non-sticky error must not be blamed on the next launch */
    const char *hint = "";
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
        hint = " (the library was built without code for this GPU's architecture: rebuild with "
               "CMAKE_CUDA_ARCHITECTURES including it)";
    else if (st == REDSCAN_ERR_DEVICE && err != cudaErrorInvalidValue)
        hint = " (a kernel fault leaves the CUDA context unusable: create a new redscan context in a new process)";
    return rs_set_error(ctx, st, "%s: %s: %s%s", what, cudaGetErrorName(err), cudaGetErrorString(err), hint);
}

/* Versions as "13.0"; 0 -> "none". */
static void rs_cuda_version(int v, char *buf, size_t size)
{
    if (v <= 0)
        snprintf(buf, size, "none");
    else
        snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* Why the runtime sees no device, in one line (thread-local storage: probe hands out a pointer to it). */
static const char *rs_cuda_why(cudaError_t err, int count)
{
    static _Thread_local char why[512];
    int rt = 0, drv = 0;
    char rts[16], drvs[16];
    (void)cudaRuntimeGetVersion(&rt);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    (void)cudaGetLastError();
    rs_cuda_version(rt, rts, sizeof rts);
    rs_cuda_version(drv, drvs, sizeof drvs);
    if (err != cudaSuccess && drv == 0 && (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice))
        snprintf(why, sizeof why,
                 "no usable CUDA device: no NVIDIA driver found (libcuda.so.1 is not installed or cannot be loaded); "
                 "cudaGetDeviceCount: %s: %s (CUDA runtime %s)",
                 cudaGetErrorName(err), cudaGetErrorString(err), rts);
    else if (err != cudaSuccess)
        snprintf(why, sizeof why, "no usable CUDA device: cudaGetDeviceCount: %s: %s (CUDA runtime %s, driver %s)",
                 cudaGetErrorName(err), cudaGetErrorString(err), rts, drvs);
    else if (count <= 0)
        snprintf(why, sizeof why, "no CUDA device found (CUDA runtime %s, driver %s)", rts, drvs);
    else
        why[0] = '\0';
    return why;
}

redscan_status rs_cuda_probe(const char **reason)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count <= 0) {
        const char *why = rs_cuda_why(err, count);
        if (reason) *reason = why;
        /* whatever cudaGetDeviceCount failed with, there is no CUDA to use here */
        (void)cudaGetLastError();
        return REDSCAN_ERR_BACKEND_UNAVAILABLE;
    }
    if (reason) *reason = "";
    return REDSCAN_OK;
}

/* REDSCAN_CUDA_DEVICE: a decimal ordinal in [0, count). count < 0: only the syntax is checked (before the
 * driver is asked, so a malformed value is reported even where CUDA cannot run). */
static redscan_status rs_cuda_pick(redscan_ctx *ctx, int count, int *device)
{
    const char *text = getenv("REDSCAN_CUDA_DEVICE");
    *device = 0;
    if (!text) return REDSCAN_OK;
    const char *p = text;
    while (*p == ' ' || *p == '\t') p++;
    unsigned long v = 0;
    int digits = 0, overflow = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > 1000000) overflow = 1;
    }
    while (*p == ' ' || *p == '\t') p++;
    if (digits == 0 || *p != '\0' || overflow)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "REDSCAN_CUDA_DEVICE='%s' is not understood; accepted values: a CUDA device ordinal "
                            "(a decimal number from 0 to the device count - 1)",
                            text);
    if (count >= 0 && v >= (unsigned long)count)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "REDSCAN_CUDA_DEVICE='%s' is out of range; accepted values: 0..%d (%d CUDA device%s here)",
                            text, count - 1, count, count == 1 ? "" : "s");
    *device = (int)v;
    return REDSCAN_OK;
}

static redscan_status rs_cuda_attr(redscan_ctx *ctx, int *value, enum cudaDeviceAttr attr, int device,
                                   const char *what)
{
    cudaError_t err = cudaDeviceGetAttribute(value, attr, device);
    return err == cudaSuccess ? REDSCAN_OK : rs_cuda_fail(ctx, err, what);
}

/* Make c->device current and check it can run redscan's kernels; fills the device fields and the name. */
static redscan_status rs_cuda_setup(redscan_ctx *ctx, rs_cuda *c)
{
    redscan_status st;
    cudaError_t err = cudaSetDevice(c->device);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaSetDevice");
    if ((st = rs_cuda_attr(ctx, &c->max_threads, cudaDevAttrMaxThreadsPerBlock, c->device,
                           "cudaDeviceGetAttribute(MaxThreadsPerBlock)")) != REDSCAN_OK ||
        (st = rs_cuda_attr(ctx, &c->shared_per_block, cudaDevAttrMaxSharedMemoryPerBlock, c->device,
                           "cudaDeviceGetAttribute(MaxSharedMemoryPerBlock)")) != REDSCAN_OK ||
        (st = rs_cuda_attr(ctx, &c->sm_count, cudaDevAttrMultiProcessorCount, c->device,
                           "cudaDeviceGetAttribute(MultiProcessorCount)")) != REDSCAN_OK ||
        (st = rs_cuda_attr(ctx, &c->cc_major, cudaDevAttrComputeCapabilityMajor, c->device,
                           "cudaDeviceGetAttribute(ComputeCapabilityMajor)")) != REDSCAN_OK ||
        (st = rs_cuda_attr(ctx, &c->cc_minor, cudaDevAttrComputeCapabilityMinor, c->device,
                           "cudaDeviceGetAttribute(ComputeCapabilityMinor)")) != REDSCAN_OK)
        return st;

    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    err = cudaGetDeviceProperties(&prop, c->device);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaGetDeviceProperties");
    prop.name[sizeof prop.name - 1] = '\0';
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s", prop.name);

    if (c->max_threads < RS_GROUP)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "CUDA device %d (%s) allows %d threads per block; redscan's kernels need %d",
                            c->device, prop.name, c->max_threads, RS_GROUP);
    if (c->shared_per_block < RS_CUDA_SHARED_NEEDED)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "CUDA device %d (%s) has %d bytes of shared memory per block; redscan's kernels need %d",
                            c->device, prop.name, c->shared_per_block, RS_CUDA_SHARED_NEEDED);

    return REDSCAN_OK;
}

redscan_status rs_cuda_open(redscan_ctx *ctx, rs_cuda *c)
{
    int count = 0;
    redscan_status st = rs_cuda_pick(ctx, -1, &c->device);
    if (st != REDSCAN_OK) return st;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count <= 0) {
        const char *why = rs_cuda_why(err, count);
        (void)cudaGetLastError();
        return rs_set_error(ctx, REDSCAN_ERR_BACKEND_UNAVAILABLE, "%s", why);
    }
    if ((st = rs_cuda_pick(ctx, count, &c->device)) != REDSCAN_OK) return st;

    if ((st = rs_cuda_setup(ctx, c)) != REDSCAN_OK) return st;

    err = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        c->stream = NULL;
        return rs_cuda_fail(ctx, err, "cudaStreamCreateWithFlags");
    }
    c->own_stream = 1;
    return REDSCAN_OK;
}

redscan_status rs_cuda_attach(redscan_ctx *ctx, rs_cuda *c, int device, cudaStream_t stream)
{
    int count = 0, current = -1;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count <= 0) {
        const char *why = rs_cuda_why(err, count);
        (void)cudaGetLastError();
        return rs_set_error(ctx, REDSCAN_ERR_BACKEND_UNAVAILABLE, "%s", why);
    }
    if (device >= count)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "argument 'device' = %d is out of range: %d CUDA device%s "
                            "here (0..%d)", device, count, count == 1 ? "" : "s", count - 1);
    if ((err = cudaGetDevice(&current)) != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaGetDevice");
    c->device = device;
    redscan_status st = rs_cuda_setup(ctx, c);
#if CUDART_VERSION >= 12080
    /* The stream must be the device's: a launch on another device's stream fails, and only at the first call. */
    if (st == REDSCAN_OK && stream) {
        int owner = -1;
        err = cudaStreamGetDevice(stream, &owner);
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            st = rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "argument 'stream' is not a usable CUDA stream (%s: %s)",
                              cudaGetErrorName(err), cudaGetErrorString(err));
        } else if (owner != device) {
            st = rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                              "argument 'stream' belongs to CUDA device %d, not to argument 'device' = %d", owner,
                              device);
        }
    }
#endif
    /* The caller's current device as it was: creating a context is not a cudaSetDevice. */
    err = cudaSetDevice(current);
    if (st == REDSCAN_OK && err != cudaSuccess) st = rs_cuda_fail(ctx, err, "cudaSetDevice (back to the caller's)");
    if (st != REDSCAN_OK) return st;
    c->stream = stream;
    c->own_stream = 0;
    return REDSCAN_OK;
}

redscan_status rs_cuda_synchronize(redscan_ctx *ctx, int quiet)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return quiet ? REDSCAN_OK : st;
    if (!quiet) {
        st = rs_cuda_sync(ctx, "redscan_synchronize: the stream's work");
        return st == REDSCAN_OK ? rs_cuda_seg_report(ctx) : st; /* faulty offsets of segmented calls */
    }
    (void)cudaStreamSynchronize(rs_cuda_of(ctx)->stream);
    (void)cudaGetLastError();
    return REDSCAN_OK;
}

void rs_cuda_close(rs_cuda *c)
{
    if (!c) return;
    if (c->stream && c->own_stream) {
        if (cudaSetDevice(c->device) == cudaSuccess) {
            (void)cudaStreamSynchronize(c->stream);
            (void)cudaStreamDestroy(c->stream);
        }
    }
    c->stream = NULL;
    (void)cudaGetLastError();
}

redscan_status rs_cuda_use(redscan_ctx *ctx)
{
    rs_cuda *c = rs_cuda_of(ctx);
    int current = -1;
    cudaError_t err = cudaGetDevice(&current);
    if (err == cudaSuccess && current != c->device) err = cudaSetDevice(c->device);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaSetDevice");
    (void)cudaGetLastError();
    return REDSCAN_OK;
}

redscan_status rs_cuda_sync(redscan_ctx *ctx, const char *what)
{
    /* A timed operation ends with a wait: its stop event goes in just before, so the wait is not timed. */
    if (rs_cuda_of(ctx)->timing) {
        redscan_status st = rs_cuda_time_stop(ctx);
        if (st != REDSCAN_OK) return st;
    }
    cudaError_t err = cudaStreamSynchronize(rs_cuda_of(ctx)->stream);
    return err == cudaSuccess ? REDSCAN_OK : rs_cuda_fail(ctx, err, what);
}

unsigned rs_cuda_grid_for(const rs_cuda *c, uint64_t tiles)
{
    /* 8 blocks of 256 threads fill an SM's 2048 threads; the kernels loop over the remaining tiles. */
    uint64_t cap = (uint64_t)(c->sm_count > 0 ? c->sm_count : 1) * 8;
    if (cap < 16) cap = 16;
    if (tiles == 0) tiles = 1;
    return (unsigned)(tiles < cap ? tiles : cap);
}

redscan_status rs_cuda_check_aligned(redscan_ctx *ctx, const void *p, size_t elem, const char *what)
{
    if (elem > 1 && (uintptr_t)p % elem != 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: device pointer %p is not aligned to its %zu-byte elements (wrapped memory must be)",
                            what, p, elem);
    return REDSCAN_OK;
}
