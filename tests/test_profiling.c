/* test_profiling: redscan_set_profiling / redscan_last_device_time.
 *
 * With profiling on, every operation family (reductions in device and host forms, with a widening; scans with each
 * grid algorithm and in host form; mean; argmax, whose path argmin shares; top-k) gives a device time that is > 0
 * and finite, and the same result bits as the same call with profiling off. Errors: profiling off, nothing run since
 * it was switched on, an operation that ran no device command (n = 0) or whose arguments were refused, an operation
 * the device does not support, bad arguments. Buffer transfers leave the time as it was; switching off and on again
 * works; on OpenCL the context's queue has CL_QUEUE_PROFILING_ENABLE while profiling is on, and is like the default
 * queue again once it is off. Never asserts a speed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifdef REDSCAN_TEST_HAVE_OPENCL
#include <CL/cl.h>
#endif

#define N 100003 /* several tiles and groups: multi-launch reductions and scans */
#define K 5

/* Few distinct programs (OpenCL builds one per input type, output type and op the first time; a cold PoCL build
 * takes tens of seconds): float32 sum and max, int32 -> int64 sum, and the sub-group reduction. */
static float g_f[N];
static int32_t g_i[N];
static redscan_buffer *g_bf, *g_bi, *g_bout;

static const char *const k_names[] = {
    "reduce float32 sum (device)",
    "reduce_ex int32 -> int64 sum coarsened (device)",
    "reduce_host float32 max",
    "scan_ex float32 sum inclusive hierarchical (device)",
    "scan_ex int32 -> int64 sum exclusive reduce_then_scan (device)",
    "scan_ex int32 -> int64 sum inclusive single_pass (device)",
    "scan_host float32 sum",
    "mean_host int32",
    "mean int32 (device)",
    "argmax_host float32",
    "argmax float32 (device)",
    "topk float32 k=5 largest (device)",
    "topk_host float32 k=5 largest",
    "scan float32 sum in place (device)",
};
#define OP_COUNT ((int)(sizeof k_names / sizeof k_names[0]))

/* Result of a call that returns a scalar, an index or top-k in host memory (copied into res byte for byte). */
static redscan_status keep(redscan_status st, unsigned char *res, size_t *len, const void *a, size_t alen,
                           const void *b, size_t blen)
{
    memcpy(res, a, alen);
    if (b) memcpy(res + alen, b, blen);
    *len = alen + blen;
    return st;
}

/* One call of family `op` (k_names[op]); its host result (device-buffer scans: nothing, see fetch) into res, its
 * size into *len. */
static redscan_status run(int op, unsigned char *res, size_t *len)
{
    static unsigned char host_out[8 * (size_t)N];
    redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_AUTO, 0};
    redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    uint64_t idx[K];
    unsigned char val[K * 8];
    double mean = 0;
    *len = 0;
    switch (op) {
    case 0:
        *len = 4;
        return redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res);
    case 1:
        rd.dtype = REDSCAN_INT32;
        rd.out_dtype = REDSCAN_INT64;
        rd.algo = REDSCAN_REDUCE_COARSENED;
        *len = 8;
        return redscan_reduce_ex(h_ctx, &rd, g_bi, N, res);
    case 2:
        *len = 4;
        return redscan_reduce_host(h_ctx, REDSCAN_MAX, REDSCAN_FLOAT32, g_f, N, res);
    case 3:
        sd.grid = REDSCAN_GRID_HIERARCHICAL;
        return redscan_scan_ex(h_ctx, &sd, g_bf, g_bout, N);
    case 4:
        sd.dtype = REDSCAN_INT32;
        sd.out_dtype = REDSCAN_INT64;
        sd.exclusive = 1;
        sd.grid = REDSCAN_GRID_REDUCE_THEN_SCAN;
        return redscan_scan_ex(h_ctx, &sd, g_bi, g_bout, N);
    case 5:
        sd.dtype = REDSCAN_INT32;
        sd.out_dtype = REDSCAN_INT64;
        sd.grid = REDSCAN_GRID_SINGLE_PASS;
        return redscan_scan_ex(h_ctx, &sd, g_bi, g_bout, N);
    case 6:
        *len = 4 * (size_t)N;
        {
            redscan_status st = redscan_scan_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, 0, g_f, host_out, N);
            memcpy(res, host_out, *len);
            return st;
        }
    case 7:
        return keep(redscan_mean_host(h_ctx, REDSCAN_INT32, g_i, N, &mean), res, len, &mean, sizeof mean, NULL, 0);
    case 8:
        return keep(redscan_mean(h_ctx, REDSCAN_INT32, g_bi, N, &mean), res, len, &mean, sizeof mean, NULL, 0);
    case 9:
        return keep(redscan_argmax_host(h_ctx, REDSCAN_FLOAT32, g_f, N, idx, val), res, len, idx, 8, val, 4);
    case 10:
        return keep(redscan_argmax(h_ctx, REDSCAN_FLOAT32, g_bf, N, idx, val), res, len, idx, 8, val, 4);
    case 11:
        return keep(redscan_topk(h_ctx, REDSCAN_FLOAT32, g_bf, N, K, 1, val, idx), res, len, val, K * 4, idx,
                    sizeof idx);
    case 12:
        return keep(redscan_topk_host(h_ctx, REDSCAN_FLOAT32, g_f, N, K, 1, val, idx), res, len, val, K * 4, idx,
                    sizeof idx);
    case 13:
        /* on g_bout, which prepare() fills with the float input first */
        return redscan_scan(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, 0, g_bout, g_bout, N);
    }
    return REDSCAN_ERR_INVALID_ARGUMENT;
}

/* Device-buffer scans: read the output (a transfer, not an operation) into res. */
static void fetch(int op, unsigned char *res, size_t *len)
{
    if (op != 3 && op != 4 && op != 5 && op != 13) return;
    *len = (op == 4 || op == 5 ? 8 : 4) * (size_t)N; /* the int64 outputs of the widening scans */
    CHECK_OK(redscan_buffer_read(h_ctx, g_bout, 0, res, *len), "read the scan's output");
}

/* The in-place scan runs on g_bout: give it the float input again before each run. */
static void prepare(int op)
{
    if (op == 13) CHECK_OK(redscan_buffer_write(h_ctx, g_bout, 0, g_f, sizeof g_f), "write the in-place input");
}

static int error_says(const char *text)
{
    const char *e = redscan_last_error(h_ctx);
    return e && strstr(e, text) != NULL;
}

/* last_device_time must fail with INVALID_ARGUMENT and a message containing `text`. */
static void check_no_time(const char *text)
{
    double t = -1;
    if (CHECK_STATUS(redscan_last_device_time(h_ctx, &t), REDSCAN_ERR_INVALID_ARGUMENT, "no device time"))
        CHECK(error_says(text), "the message '%s' does not say '%s'", redscan_last_error(h_ctx), text);
    CHECK(t == -1, "seconds written on failure (%g)", t);
}

static double device_time(const char *what)
{
    double t = -1;
    if (!CHECK_OK(redscan_last_device_time(h_ctx, &t), what)) return -1;
    CHECK(t > 0 && isfinite(t), "%s: device time %g s, want > 0 and finite", what, t);
    return t;
}

#ifdef REDSCAN_TEST_HAVE_OPENCL
/* On OpenCL: whether the context's (current) queue was made with CL_QUEUE_PROFILING_ENABLE; -1 elsewhere. */
static int queue_profiles(void)
{
    void *q = NULL;
    if (strcmp(redscan_backend_name(h_ctx), "opencl") != 0) return -1;
    if (!CHECK_OK(redscan_native_handle(h_ctx, REDSCAN_NATIVE_OPENCL_QUEUE, &q), "native queue")) return -1;
    cl_command_queue_properties props = 0;
    CHECK(clGetCommandQueueInfo((cl_command_queue)q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) == CL_SUCCESS,
          "clGetCommandQueueInfo");
    return (props & CL_QUEUE_PROFILING_ENABLE) != 0;
}
#else
static int queue_profiles(void) { return -1; }
#endif

static void errors_and_states(void)
{
    double t = 0;
    unsigned char res[64];
    h_case("arguments and states");
    CHECK_STATUS(redscan_set_profiling(NULL, 1), REDSCAN_ERR_INVALID_ARGUMENT, "set_profiling(NULL)");
    CHECK_STATUS(redscan_last_device_time(NULL, &t), REDSCAN_ERR_INVALID_ARGUMENT, "last_device_time(NULL)");
    CHECK_STATUS(redscan_last_device_time(h_ctx, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "seconds NULL");
    CHECK_STATUS(redscan_set_profiling(h_ctx, 2), REDSCAN_ERR_INVALID_ARGUMENT, "on = 2");
    CHECK_STATUS(redscan_set_profiling(h_ctx, -1), REDSCAN_ERR_INVALID_ARGUMENT, "on = -1");

    /* off (the default): no time, even after an operation. The default queue is made without
     * CL_QUEUE_PROFILING_ENABLE, though a driver may profile anyway (PoCL does under POCL_DEBUG): what is checked is
     * that switching off gives back a queue like the default one. */
    const int default_profiles = queue_profiles();
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res), "reduce (profiling off)");
    check_no_time("profiling is off");

    CHECK_OK(redscan_set_profiling(h_ctx, 1), "switch on");
    CHECK(queue_profiles() != 0, "the queue has no CL_QUEUE_PROFILING_ENABLE while profiling is on");
    check_no_time("no operation has run");
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res), "reduce");
    double t0 = device_time("reduce");

    /* transfers are not operations */
    CHECK_OK(redscan_buffer_write(h_ctx, g_bout, 0, g_f, 64), "buffer write");
    CHECK_OK(redscan_buffer_read(h_ctx, g_bout, 0, res, 64), "buffer read");
    t = -1;
    if (CHECK_OK(redscan_last_device_time(h_ctx, &t), "time after transfers"))
        CHECK(t == t0, "a transfer changed the device time from %g to %g", t0, t);

    /* operations that run no device command, or are refused, leave no time */
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, 0, res), "reduce n = 0");
    check_no_time("ran no device command");
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res), "reduce");
    device_time("reduce again");
    CHECK_OK(redscan_scan(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, 0, g_bf, g_bout, 0), "scan n = 0");
    check_no_time("ran no device command");
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res), "reduce");
    CHECK_STATUS(redscan_reduce(h_ctx, REDSCAN_SUM, (redscan_dtype)99, g_bf, N, res), REDSCAN_ERR_INVALID_ARGUMENT,
                 "reduce with a bad dtype");
    check_no_time("ran no device command");
    uint64_t index;
    CHECK_STATUS(redscan_argmax(h_ctx, REDSCAN_FLOAT32, g_bf, 0, &index, NULL), REDSCAN_ERR_INVALID_ARGUMENT,
                 "argmax n = 0");
    check_no_time("ran no device command");

    /* an operation the device may not support: failed -> no time; else a time */
    redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_WARP_SYNC, 0};
    redscan_status st = redscan_reduce_ex(h_ctx, &rd, g_bf, N, res);
    if (st == REDSCAN_ERR_UNSUPPORTED)
        check_no_time("failed");
    else if (CHECK_OK(st, "warp_sync reduce"))
        device_time("warp_sync reduce");

    /* switching on again is allowed and forgets the last time; off drops it; on again works */
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res), "reduce");
    CHECK_OK(redscan_set_profiling(h_ctx, 1), "switch on twice");
    check_no_time("no operation has run");
    CHECK_OK(redscan_set_profiling(h_ctx, 0), "switch off");
    CHECK(queue_profiles() == default_profiles, "after profiling is off the queue's CL_QUEUE_PROFILING_ENABLE is %d, "
          "the default queue's was %d", queue_profiles(), default_profiles);
    check_no_time("profiling is off");
    CHECK_OK(redscan_set_profiling(h_ctx, 0), "switch off twice");
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res), "reduce (off again)");
    check_no_time("profiling is off");
    CHECK_OK(redscan_set_profiling(h_ctx, 1), "switch on again");
    CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT32, g_bf, N, res), "reduce (on again)");
    device_time("reduce after switching on again");
    CHECK_OK(redscan_set_profiling(h_ctx, 0), "switch off at the end");
}

/* Each family: with profiling off, then on (twice: a first call may build programs and grow scratch). */
static void families(void)
{
    static unsigned char want[8 * (size_t)N], got[8 * (size_t)N];
    for (int op = 0; op < OP_COUNT; op++) {
        const char *name = k_names[op];
        size_t wlen = 0, glen = 0;
        if (!h_case("%s", name)) continue;
        CHECK_OK(redscan_set_profiling(h_ctx, 0), "profiling off");
        prepare(op);
        redscan_status st = run(op, want, &wlen);
        if (st == REDSCAN_ERR_UNSUPPORTED) {
            if (h_verbose()) printf("  %s: unsupported here (%s)\n", name, redscan_last_error(h_ctx));
            continue;
        }
        if (!CHECK_OK(st, "profiling off")) continue;
        fetch(op, want, &wlen);
        CHECK_OK(redscan_set_profiling(h_ctx, 1), "profiling on");
        for (int rep = 0; rep < 2; rep++) {
            memset(got, 0xA5, wlen);
            prepare(op);
            if (!CHECK_OK(run(op, got, &glen), "profiling on")) break;
            double t = device_time(name);
            fetch(op, got, &glen);
            double after = -2;
            if (CHECK_OK(redscan_last_device_time(h_ctx, &after), "time after reading the output"))
                CHECK(after == t, "reading the output changed the device time from %g to %g", t, after);
            CHECK(glen == wlen, "result of %zu bytes, want %zu", glen, wlen);
            CHECK_MEM(got, want, wlen, "result with profiling on vs off");
        }
    }
    CHECK_OK(redscan_set_profiling(h_ctx, 0), "profiling off");
}

int main(void)
{
    h_open("test_profiling");
    for (int i = 0; i < N; i++) {
        g_f[i] = (float)((i * 37) % 1001 - 500) / 256.0f;
        g_i[i] = (int32_t)((uint32_t)i * 2654435761u) >> 3;
    }
    g_bf = h_buffer_with(g_f, sizeof g_f, sizeof g_f, 0, (ref_val){0});
    g_bi = h_buffer_with(g_i, sizeof g_i, sizeof g_i, 0, (ref_val){0});
    g_bout = h_buffer(8 * (size_t)N);
    if (g_bf && g_bi && g_bout) {
        errors_and_states();
        families();
    }
    redscan_buffer_destroy(h_ctx, g_bf);
    redscan_buffer_destroy(h_ctx, g_bi);
    redscan_buffer_destroy(h_ctx, g_bout);
    return h_done();
}
