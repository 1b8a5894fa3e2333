/* redscan bench: references measured in the same run as the library.
 *
 *   - plain C loops (reduce, scan, argmax, top-2) per op and dtype: the baseline of a CPU device (PoCL), where the
 *     "device" is this CPU;
 *   - an OpenMP read loop and copy loop (every core; built with OpenMP when CMake finds it, else one thread): the
 *     memory ceilings of this CPU;
 *   - clEnqueueCopyBuffer on a separate OpenCL context on the device the library uses (the library's context is
 *     private, so its buffers cannot be shared): the device's copy bandwidth. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_internal.h"
#include "bench_run.h" /* bench_now, bench_median (bench_report.c) */

#ifdef REDSCAN_HAVE_OPENCL
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#endif

/* ------------------------------------------------------------------ plain C loops */

/* (dtype, element type, accumulator type): signed sums and products wrap through the unsigned type. */
#define BR_TYPES(X)                                                                                                    \
    X(REDSCAN_INT32, int32_t, uint32_t)                                                                                \
    X(REDSCAN_UINT32, uint32_t, uint32_t)                                                                              \
    X(REDSCAN_INT64, int64_t, uint64_t)                                                                                \
    X(REDSCAN_UINT64, uint64_t, uint64_t)                                                                              \
    X(REDSCAN_FLOAT32, float, float)                                                                                   \
    X(REDSCAN_FLOAT64, double, double)

#define BR_DEFINE(DT, T, A)                                                                                            \
    static void reduce_##T(redscan_op op, const T *x, size_t n, T *res)                                                \
    {                                                                                                                  \
        switch (op) {                                                                                                  \
        case REDSCAN_SUM: {                                                                                            \
            A s = 0;                                                                                                   \
            for (size_t i = 0; i < n; ++i)                                                                             \
                s += (A)x[i];                                                                                          \
            *res = (T)s;                                                                                               \
            break;                                                                                                     \
        }                                                                                                              \
        case REDSCAN_PROD: {                                                                                           \
            A s = 1;                                                                                                   \
            for (size_t i = 0; i < n; ++i)                                                                             \
                s *= (A)x[i];                                                                                          \
            *res = (T)s;                                                                                               \
            break;                                                                                                     \
        }                                                                                                              \
        case REDSCAN_MIN: {                                                                                            \
            T m = x[0];                                                                                                \
            for (size_t i = 1; i < n; ++i)                                                                             \
                m = x[i] < m ? x[i] : m;                                                                               \
            *res = m;                                                                                                  \
            break;                                                                                                     \
        }                                                                                                              \
        case REDSCAN_MAX: {                                                                                            \
            T m = x[0];                                                                                                \
            for (size_t i = 1; i < n; ++i)                                                                             \
                m = m < x[i] ? x[i] : m;                                                                               \
            *res = m;                                                                                                  \
            break;                                                                                                     \
        }                                                                                                              \
        }                                                                                                              \
    }                                                                                                                  \
    static void sum8_##T(const T *x, size_t n, T *res)                                                                 \
    {                                                                                                                  \
        A s[8] = {0};                                                                                                  \
        size_t i = 0;                                                                                                  \
        for (; i + 8 <= n; i += 8)                                                                                     \
            for (size_t k = 0; k < 8; ++k)                                                                             \
                s[k] += (A)x[i + k];                                                                                   \
        for (; i < n; ++i)                                                                                             \
            s[0] += (A)x[i];                                                                                           \
        *res = (T)(((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])));                                 \
    }                                                                                                                  \
    static void scan_##T(redscan_op op, int exclusive, const T *x, T *out, size_t n)                                   \
    {                                                                                                                  \
        switch (op) {                                                                                                  \
        case REDSCAN_SUM: {                                                                                            \
            A s = 0;                                                                                                   \
            if (exclusive)                                                                                             \
                for (size_t i = 0; i < n; ++i) {                                                                       \
                    out[i] = (T)s;                                                                                     \
                    s += (A)x[i];                                                                                      \
                }                                                                                                      \
            else                                                                                                       \
                for (size_t i = 0; i < n; ++i)                                                                         \
                    out[i] = (T)(s += (A)x[i]);                                                                        \
            break;                                                                                                     \
        }                                                                                                              \
        case REDSCAN_PROD: {                                                                                           \
            A s = 1;                                                                                                   \
            if (exclusive)                                                                                             \
                for (size_t i = 0; i < n; ++i) {                                                                       \
                    out[i] = (T)s;                                                                                     \
                    s *= (A)x[i];                                                                                      \
                }                                                                                                      \
            else                                                                                                       \
                for (size_t i = 0; i < n; ++i)                                                                         \
                    out[i] = (T)(s *= (A)x[i]);                                                                        \
            break;                                                                                                     \
        }                                                                                                              \
        case REDSCAN_MIN:                                                                                              \
        case REDSCAN_MAX: {                                                                                            \
            T m = x[0];                                                                                                \
            if (exclusive) {                                                                                           \
                /* a timing reference, not checked: out[0] gets x[0] in place of the identity */              \
                for (size_t i = 0; i < n; ++i) {                                                                       \
                    out[i] = m;                                                                                        \
                    m = op == REDSCAN_MIN ? (x[i] < m ? x[i] : m) : (m < x[i] ? x[i] : m);                             \
                }                                                                                                      \
            } else {                                                                                                   \
                for (size_t i = 0; i < n; ++i) {                                                                       \
                    m = op == REDSCAN_MIN ? (x[i] < m ? x[i] : m) : (m < x[i] ? x[i] : m);                             \
                    out[i] = m;                                                                                        \
                }                                                                                                      \
            }                                                                                                          \
            break;                                                                                                     \
        }                                                                                                              \
        }                                                                                                              \
    }                                                                                                                  \
    static size_t argmax_##T(const T *x, size_t n)                                                                     \
    {                                                                                                                  \
        size_t b = 0;                                                                                                  \
        for (size_t i = 1; i < n; ++i)                                                                                 \
            if (x[b] < x[i])                                                                                           \
                b = i;                                                                                                 \
        return b;                                                                                                      \
    }                                                                                                                  \
    static void top2_##T(const T *x, size_t n, size_t idx[2])                                                          \
    {                                                                                                                  \
        size_t b0 = 0, b1 = 1;                                                                                         \
        if (x[0] < x[1]) {                                                                                             \
            b0 = 1;                                                                                                    \
            b1 = 0;                                                                                                    \
        }                                                                                                              \
        for (size_t i = 2; i < n; ++i) {                                                                               \
            if (x[b1] < x[i]) {                                                                                        \
                if (x[b0] < x[i]) {                                                                                    \
                    b1 = b0;                                                                                           \
                    b0 = i;                                                                                            \
                } else {                                                                                               \
                    b1 = i;                                                                                            \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        idx[0] = b0;                                                                                                   \
        idx[1] = b1;                                                                                                   \
    }

BR_TYPES(BR_DEFINE)

void br_reduce(redscan_op op, redscan_dtype dt, const void *in, size_t n, void *result)
{
    if (n == 0)
        return;
    switch (dt) {
#define BR_CASE(DT, T, A)                                                                                              \
    case DT: reduce_##T(op, (const T *)in, n, (T *)result); break;
        BR_TYPES(BR_CASE)
#undef BR_CASE
    default: break; /* the narrow types have no C reference loops (the bench does not offer them yet) */
    }
}

void br_reduce_sum8(redscan_dtype dt, const void *in, size_t n, void *result)
{
    switch (dt) {
#define BR_CASE(DT, T, A)                                                                                              \
    case DT: sum8_##T((const T *)in, n, (T *)result); break;
        BR_TYPES(BR_CASE)
#undef BR_CASE
    default: break; /* the narrow types have no C reference loops (the bench does not offer them yet) */
    }
}

void br_scan(redscan_op op, redscan_dtype dt, int exclusive, const void *in, void *out, size_t n)
{
    if (n == 0)
        return;
    switch (dt) {
#define BR_CASE(DT, T, A)                                                                                              \
    case DT: scan_##T(op, exclusive, (const T *)in, (T *)out, n); break;
        BR_TYPES(BR_CASE)
#undef BR_CASE
    default: break; /* the narrow types have no C reference loops (the bench does not offer them yet) */
    }
}

size_t br_argmax(redscan_dtype dt, const void *in, size_t n)
{
    switch (dt) {
#define BR_CASE(DT, T, A)                                                                                              \
    case DT: return n ? argmax_##T((const T *)in, n) : 0;
        BR_TYPES(BR_CASE)
#undef BR_CASE
    default: break; /* the narrow types have no C reference loops (the bench does not offer them yet) */
    }
    return 0;
}

void br_top2(redscan_dtype dt, const void *in, size_t n, size_t idx[2])
{
    idx[0] = idx[1] = 0;
    if (n < 2)
        return;
    switch (dt) {
#define BR_CASE(DT, T, A)                                                                                              \
    case DT: top2_##T((const T *)in, n, idx); break;
        BR_TYPES(BR_CASE)
#undef BR_CASE
    default: break; /* the narrow types have no C reference loops (the bench does not offer them yet) */
    }
}

/* ------------------------------------------------------------------ OpenMP loops */

uint64_t br_omp_read(const void *in, size_t bytes)
{
    const uint64_t *p = in;
    const size_t w = bytes / 8;
    uint64_t s = 0;
#ifdef _OPENMP
#pragma omp parallel for simd reduction(+ : s) schedule(static)
#endif
    for (size_t i = 0; i < w; ++i)
        s += p[i];
    return s;
}

void br_omp_copy(void *dst, const void *src, size_t bytes)
{
    uint64_t *q = dst;
    const uint64_t *p = src;
    const size_t w = bytes / 8;
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
    for (size_t i = 0; i < w; ++i)
        q[i] = p[i];
}

int br_omp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 0;
#endif
}

/* ------------------------------------------------------------------ OpenCL copy on a separate context */

#ifdef REDSCAN_HAVE_OPENCL

struct br_ocl {
    cl_context context;
    cl_command_queue queue;  /* plain: host-clock timing */
    cl_command_queue pqueue; /* CL_QUEUE_PROFILING_ENABLE: event timing; NULL when the device cannot */
    cl_device_id device;
};

int br_ocl_open(const char *redscan_device_name, br_ocl **ocl, br_ocl_info *info, char *err, size_t len)
{
    *ocl = NULL;
    memset(info, 0, sizeof *info);
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
        snprintf(err, len, "no OpenCL platform");
        return 1;
    }
    cl_platform_id *plats = calloc(np, sizeof *plats);
    if (!plats || clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
        free(plats);
        snprintf(err, len, "clGetPlatformIDs failed");
        return 1;
    }
    cl_device_id found = NULL;
    for (cl_uint p = 0; p < np && !found; ++p) {
        char pname[256] = "";
        if (clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS)
            snprintf(pname, sizeof pname, "(unnamed platform)");
        pname[sizeof pname - 1] = '\0';
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
            continue;
        cl_device_id *devs = calloc(nd, sizeof *devs);
        if (devs && clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL) == CL_SUCCESS) {
            for (cl_uint d = 0; d < nd && !found; ++d) {
                char dname[256] = "", label[600];
                if (clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname, dname, NULL) != CL_SUCCESS)
                    snprintf(dname, sizeof dname, "(unnamed device)");
                dname[sizeof dname - 1] = '\0';
                /* the library's format: "%.120s / %.120s" */
                snprintf(label, sizeof label, "%.120s / %.120s", pname, dname);
                if (!strcmp(label, redscan_device_name)) {
                    found = devs[d];
                    snprintf(info->name, sizeof info->name, "%s", label);
                }
            }
        }
        free(devs);
    }
    free(plats);
    if (!found) {
        snprintf(err, len, "no OpenCL device is named '%s'", redscan_device_name);
        return 1;
    }
    cl_ulong gm = 0, ma = 0, cache = 0;
    cl_device_type type = 0;
    clGetDeviceInfo(found, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gm, &gm, NULL);
    clGetDeviceInfo(found, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ma, &ma, NULL);
    clGetDeviceInfo(found, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    clGetDeviceInfo(found, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->global_mem = gm;
    info->max_alloc = ma;
    info->cache_bytes = cache;
    info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;

    cl_int e = CL_SUCCESS;
    br_ocl *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, len, "out of host memory");
        return 1;
    }
    o->device = found;
    o->context = clCreateContext(NULL, 1, &found, NULL, NULL, &e);
    if (e == CL_SUCCESS)
        o->queue = clCreateCommandQueue(o->context, found, 0, &e);
    if (e == CL_SUCCESS) {
        cl_int pe = CL_SUCCESS;
        o->pqueue = clCreateCommandQueue(o->context, found, CL_QUEUE_PROFILING_ENABLE, &pe);
        if (pe != CL_SUCCESS)
            o->pqueue = NULL; /* no event timing of the copy: its device column stays empty */
    }
    if (e != CL_SUCCESS) {
        snprintf(err, len, "clCreateContext / clCreateCommandQueue failed (%d)", (int)e);
        br_ocl_close(o);
        return 1;
    }
    *ocl = o;
    return 0;
}

void br_ocl_close(br_ocl *o)
{
    if (!o)
        return;
    if (o->queue) {
        clFinish(o->queue);
        clReleaseCommandQueue(o->queue);
    }
    if (o->pqueue) {
        clFinish(o->pqueue);
        clReleaseCommandQueue(o->pqueue);
    }
    if (o->context)
        clReleaseContext(o->context);
    free(o);
}

/* reps copies (after one warm-up) on q, cycling over nbuf regions; each timed by its profiling event when
 * `events`, else by the host clock around enqueue + clFinish. Times into t[0..reps). */
static cl_int time_copies(cl_command_queue q, int events, cl_mem src, cl_mem dst, size_t bytes, size_t stride,
                          int nbuf, int reps, double *t)
{
    cl_int e = clEnqueueCopyBuffer(q, src, dst, 0, 0, bytes, 0, NULL, NULL); /* warm-up */
    if (e == CL_SUCCESS)
        e = clFinish(q);
    for (int r = 0; r < reps && e == CL_SUCCESS; ++r) {
        size_t off = (size_t)((r + 1) % nbuf) * stride;
        cl_event ev = NULL;
        double t0 = bench_now();
        e = clEnqueueCopyBuffer(q, src, dst, off, off, bytes, 0, NULL, events ? &ev : NULL);
        if (e == CL_SUCCESS)
            e = clFinish(q);
        t[r] = bench_now() - t0;
        if (ev) {
            cl_ulong start = 0, end = 0;
            if (e == CL_SUCCESS)
                e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
            if (e == CL_SUCCESS)
                e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
            t[r] = end > start ? (double)(end - start) * 1e-9 : 0.0;
            clReleaseEvent(ev);
        }
    }
    return e;
}

int br_ocl_time_copy(br_ocl *o, size_t bytes, int nbuf, int reps, bench_times *bt, char *err, size_t len)
{
    memset(bt, 0, sizeof *bt);
    if (!o || nbuf < 1 || reps < 1 || bytes == 0) {
        snprintf(err, len, "br_ocl_time_copy: bad arguments");
        return 1;
    }
    const size_t stride = (bytes + 4095) & ~(size_t)4095;
    const size_t total = stride * (size_t)nbuf;
    cl_int e = CL_SUCCESS;
    cl_mem src = clCreateBuffer(o->context, CL_MEM_READ_WRITE, total, NULL, &e), dst = NULL;
    if (e == CL_SUCCESS)
        dst = clCreateBuffer(o->context, CL_MEM_READ_WRITE, total, NULL, &e);
    const cl_uint pattern = 0x3F800000u;
    /* touch every page (first-touch allocation on CPU devices) before timing */
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(o->queue, src, &pattern, sizeof pattern, 0, total, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(o->queue, dst, &pattern, sizeof pattern, 0, total, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clFinish(o->queue);
    double *t = calloc((size_t)reps, sizeof *t);
    if (!t && e == CL_SUCCESS)
        e = CL_OUT_OF_HOST_MEMORY;
    if (e == CL_SUCCESS)
        e = time_copies(o->queue, 0, src, dst, bytes, stride, nbuf, reps, t);
    if (e == CL_SUCCESS) {
        bt->host_med_s = bench_median(t, reps);
        bt->host_min_s = t[0];
    }
    if (e == CL_SUCCESS && o->pqueue) {
        e = time_copies(o->pqueue, 1, src, dst, bytes, stride, nbuf, reps, t);
        if (e == CL_SUCCESS) {
            bt->dev_med_s = bench_median(t, reps);
            bt->dev_min_s = t[0];
        }
    }
    if (e != CL_SUCCESS)
        snprintf(err, len, "OpenCL copy of %zu bytes (%d buffers) failed (error %d)", bytes, nbuf, (int)e);
    free(t);
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    return e != CL_SUCCESS;
}

#else /* no OpenCL in this build */

int br_ocl_open(const char *redscan_device_name, br_ocl **ocl, br_ocl_info *info, char *err, size_t len)
{
    (void)redscan_device_name;
    *ocl = NULL;
    memset(info, 0, sizeof *info);
    snprintf(err, len, "built without OpenCL");
    return 1;
}

void br_ocl_close(br_ocl *ocl) { (void)ocl; }

int br_ocl_time_copy(br_ocl *ocl, size_t bytes, int nbuf, int reps, bench_times *t, char *err, size_t len)
{
    (void)ocl;
    (void)bytes;
    (void)nbuf;
    (void)reps;
    memset(t, 0, sizeof *t);
    snprintf(err, len, "built without OpenCL");
    return 1;
}

#endif
