/* test_errors: every error status reachable through the public API.
 *
 * For each error: the status is the documented one, redscan_last_error(ctx) is non-empty and names the
 * argument (one of a few words, matched as a whole word, case-insensitive), outputs (host results, device
 * output buffers) keep the sentinel they were filled with, and the context still works afterwards (a small
 * reduce gives the right answer).
 *
 * Covered: NULL context / pointers, unknown op / dtype / algorithm / backend enum values, dtype 0, n * element size
 * overflowing size_t, a device buffer larger than the device (OUT_OF_MEMORY), ranges past a buffer's end (read, write,
 * reduce, scan in and out), out buffer too small (widening), out_dtype that is not a widening, in-place with a
 * widening, exclusive not 0/1, flags != 0, k = 0 / k > n / k > 256, mean/argmin/argmax/topk of n = 0, FLOAT64
 * (UNSUPPORTED only where the device lacks fp64), single-pass grid (runs; UNSUPPORTED while SINGLE_PASS_IMPLEMENTED is
 * 0; REDSCAN_SINGLE_PASS_SPINS=bogus is INVALID_ARGUMENT naming the variable), CUDA where it is unavailable
 * (BACKEND_UNAVAILABLE, no silent fallback), REDSCAN_BACKEND=bogus, REDSCAN_OPENCL_DEVICE=nomatch / out-of-range index
 * (and a case-insensitive substring that does match), REDSCAN_REDUCE_ALGO / REDSCAN_SCAN_BLOCK / REDSCAN_SCAN_GRID =
 * bogus (the message lists the accepted names), redscan_status_string for every status, the name and size helpers. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SINGLE_PASS_IMPLEMENTED 1

/* ---------------------------------------------------------------- helpers */

static void ctx_still_works(const char *after)
{
    int32_t x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int32_t r = 0;
    redscan_status st = redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_INT32, x, 10, &r);
    CHECK(st == REDSCAN_OK && r == 55, "context broken after %s: status %s, sum %d", after, redscan_status_string(st),
          (int)r);
}

/* The status, a non-empty message naming the argument, and a working context. */
static void expect_fail(redscan_status st, redscan_status want, const char *what, const char *keywords)
{
    CHECK_STATUS(st, want, what);
    const char *e = redscan_last_error(h_ctx);
    if (CHECK(e && *e, "%s: redscan_last_error is empty", what) && keywords)
        CHECK(h_names_any(e, keywords), "%s: last error \"%s\" names none of \"%s\"", what, e, keywords);
    ctx_still_works(what);
}

static redscan_buffer *mkbuf(size_t bytes)
{
    return h_buffer_with(NULL, 0, bytes, (redscan_dtype)0, ref_zero()); /* filled with 0xA5 */
}

static void buffer_untouched(redscan_buffer *b, size_t bytes, const char *what)
{
    unsigned char *back = (unsigned char *)h_malloc(bytes), *sent = (unsigned char *)h_malloc(bytes);
    memset(sent, 0xA5, bytes);
    if (CHECK_OK(redscan_buffer_read(h_ctx, b, 0, back, bytes), "redscan_buffer_read"))
        CHECK_MEM(back, sent, bytes, what);
    free(back);
    free(sent);
}

static int untouched(const void *p, size_t bytes)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != 0xA5) return 0;
    return 1;
}

/* ---------------------------------------------------------------- API misuse */

static void null_context(void)
{
    if (!h_case("NULL context")) return;
    int32_t x[4] = {1, 2, 3, 4};
    unsigned char res[16];
    double m;
    uint64_t idx;
    redscan_buffer *b = NULL;
    redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    memset(res, 0xA5, sizeof res);
    CHECK_STATUS(redscan_create(NULL, REDSCAN_BACKEND_OPENCL), REDSCAN_ERR_INVALID_ARGUMENT, "redscan_create(NULL)");
    CHECK_STATUS(redscan_buffer_create(NULL, 64, &b), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_create(NULL ctx)");
    CHECK(b == NULL, "buffer_create(NULL ctx) set the buffer");
    CHECK_STATUS(redscan_reduce_host(NULL, REDSCAN_SUM, REDSCAN_INT32, x, 4, res), REDSCAN_ERR_INVALID_ARGUMENT,
                 "reduce_host(NULL ctx)");
    CHECK_STATUS(redscan_reduce_host_ex(NULL, &rd, x, 4, res), REDSCAN_ERR_INVALID_ARGUMENT, "reduce_host_ex(NULL ctx)");
    CHECK_STATUS(redscan_scan_host(NULL, REDSCAN_SUM, REDSCAN_INT32, 0, x, res, 4), REDSCAN_ERR_INVALID_ARGUMENT,
                 "scan_host(NULL ctx)");
    CHECK_STATUS(redscan_scan_host_ex(NULL, &sd, x, res, 4), REDSCAN_ERR_INVALID_ARGUMENT, "scan_host_ex(NULL ctx)");
    CHECK_STATUS(redscan_mean_host(NULL, REDSCAN_INT32, x, 4, &m), REDSCAN_ERR_INVALID_ARGUMENT, "mean_host(NULL ctx)");
    CHECK_STATUS(redscan_argmin_host(NULL, REDSCAN_INT32, x, 4, &idx, NULL), REDSCAN_ERR_INVALID_ARGUMENT,
                 "argmin_host(NULL ctx)");
    CHECK_STATUS(redscan_argmax_host(NULL, REDSCAN_INT32, x, 4, &idx, NULL), REDSCAN_ERR_INVALID_ARGUMENT,
                 "argmax_host(NULL ctx)");
    CHECK_STATUS(redscan_topk_host(NULL, REDSCAN_INT32, x, 4, 1, 1, res, NULL), REDSCAN_ERR_INVALID_ARGUMENT,
                 "topk_host(NULL ctx)");
    CHECK(untouched(res, sizeof res), "a NULL-context call wrote its result");
    CHECK(redscan_last_error(NULL) != NULL, "redscan_last_error(NULL) returned NULL");
}

/* The stream-ordered entry points refuse a NULL context and NULL creation arguments before anything else (the rest of
 * their arguments: tests/test_async.c). */
static void null_context_async(void)
{
    if (!h_case("NULL context, stream-ordered API")) return;
    redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    const redscan_status want = REDSCAN_ERR_INVALID_ARGUMENT;
    CHECK_STATUS(redscan_synchronize(NULL), want, "synchronize(NULL ctx)");
    CHECK_STATUS(redscan_reserve(NULL, REDSCAN_INT32, 16), want, "reserve(NULL ctx)");
    CHECK_STATUS(redscan_reserve_topk(NULL, REDSCAN_INT32, 16, 4), want, "reserve_topk(NULL ctx)");
    CHECK_STATUS(redscan_reduce_async(NULL, &rd, NULL, 4, NULL, 0), want, "reduce_async(NULL ctx)");
    CHECK_STATUS(redscan_scan_async(NULL, &sd, NULL, NULL, 4), want, "scan_async(NULL ctx)");
    CHECK_STATUS(redscan_argmin_async(NULL, REDSCAN_INT32, NULL, 4, NULL, NULL), want, "argmin_async(NULL ctx)");
    CHECK_STATUS(redscan_argmax_async(NULL, REDSCAN_INT32, NULL, 4, NULL, NULL), want, "argmax_async(NULL ctx)");
    CHECK_STATUS(redscan_topk_async(NULL, REDSCAN_INT32, NULL, 4, 1, 1, NULL, NULL), want, "topk_async(NULL ctx)");
    redscan_ctx *c = (redscan_ctx *)&rd; /* must come back NULL on failure */
    CHECK_STATUS(redscan_create_on_opencl_queue(NULL, (void *)&sd), want, "create_on_opencl_queue(NULL ctx)");
    CHECK_STATUS(redscan_create_on_opencl_queue(&c, NULL), want, "create_on_opencl_queue(NULL queue)");
    CHECK(c == NULL, "create_on_opencl_queue failed but left *ctx set");
    CHECK(strstr(redscan_last_error(NULL), "queue") != NULL, "create_on_opencl_queue(NULL queue): \"%s\"",
          redscan_last_error(NULL));
    c = (redscan_ctx *)&rd;
    CHECK_STATUS(redscan_create_on_cuda_stream(NULL, 0, NULL), want, "create_on_cuda_stream(NULL ctx)");
    CHECK_STATUS(redscan_create_on_cuda_stream(&c, -1, NULL), want, "create_on_cuda_stream(device -1)");
    CHECK(c == NULL, "create_on_cuda_stream failed but left *ctx set");
    CHECK(strstr(redscan_last_error(NULL), "device") != NULL, "create_on_cuda_stream(device -1): \"%s\"",
          redscan_last_error(NULL));
    if (redscan_backend_probe(REDSCAN_BACKEND_CUDA, NULL) != REDSCAN_OK) {
        /* No CUDA here: the reason, never a context. */
        redscan_status st = redscan_create_on_cuda_stream(&c, 0, NULL);
        CHECK_STATUS(st, REDSCAN_ERR_BACKEND_UNAVAILABLE, "create_on_cuda_stream without CUDA");
        CHECK(c == NULL && *redscan_last_error(NULL), "create_on_cuda_stream without CUDA: ctx %p, message \"%s\"",
              (void *)c, redscan_last_error(NULL));
        if (st == REDSCAN_OK) redscan_destroy(c);
    }
}

static void buffers(void)
{
    redscan_buffer *b = mkbuf(64);
    if (!b) return;
    unsigned char data[64], dst[80];
    memset(data, 0x11, sizeof data);
    if (h_case("buffer_create NULL out pointer"))
        expect_fail(redscan_buffer_create(h_ctx, 64, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_create(buf=NULL)",
                    "buf|buffer|out");
    if (h_case("buffer_create larger than the device")) {
        /* Device out of memory: more bytes than any device has (1 PiB, SIZE_MAX / 2, SIZE_MAX) is
         * REDSCAN_ERR_OUT_OF_MEMORY with a message naming the size, never another status or a crash. */
        const size_t sizes[] = {(size_t)1 << 50, SIZE_MAX / 2, SIZE_MAX};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            char what[96];
            snprintf(what, sizeof what, "buffer_create(%zu bytes)", sizes[i]);
            redscan_buffer *hb = NULL;
            redscan_status st = redscan_buffer_create(h_ctx, sizes[i], &hb);
            if (st == REDSCAN_OK && hb) redscan_buffer_destroy(h_ctx, hb);
            CHECK(hb == NULL, "%s did not fail, or failed but set the buffer", what);
            expect_fail(st, REDSCAN_ERR_OUT_OF_MEMORY, what, "bytes|memory|allocation");
        }
    }
    if (h_case("buffer_write past the end")) {
        expect_fail(redscan_buffer_write(h_ctx, b, 60, data, 8), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_write(60+8 > 64)",
                    "offset|bytes|size|range|end|buffer|buf");
        expect_fail(redscan_buffer_write(h_ctx, b, 0, data, 65), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_write(65 > 64)",
                    "offset|bytes|size|range|end|buffer|buf");
        expect_fail(redscan_buffer_write(h_ctx, b, SIZE_MAX, data, 2), REDSCAN_ERR_INVALID_ARGUMENT,
                    "buffer_write(offset SIZE_MAX, overflow)", "offset|bytes|size|range|end|buffer|buf|overflow|overflows");
        buffer_untouched(b, 64, "buffer after failed writes");
    }
    if (h_case("buffer_write NULL")) {
        expect_fail(redscan_buffer_write(h_ctx, b, 0, NULL, 8), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_write(src=NULL)",
                    "src|source");
        expect_fail(redscan_buffer_write(h_ctx, NULL, 0, data, 8), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_write(buf=NULL)",
                    "buf|buffer");
        buffer_untouched(b, 64, "buffer after failed writes");
    }
    if (h_case("buffer_read past the end / NULL")) {
        memset(dst, 0xA5, sizeof dst);
        expect_fail(redscan_buffer_read(h_ctx, b, 0, dst, 80), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_read(80 > 64)",
                    "offset|bytes|size|range|end|buffer|buf");
        expect_fail(redscan_buffer_read(h_ctx, b, 64, dst, 1), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_read(64+1 > 64)",
                    "offset|bytes|size|range|end|buffer|buf");
        expect_fail(redscan_buffer_read(h_ctx, b, SIZE_MAX - 3, dst, 8), REDSCAN_ERR_INVALID_ARGUMENT,
                    "buffer_read(offset overflow)", "offset|bytes|size|range|end|buffer|buf|overflow|overflows");
        CHECK(untouched(dst, sizeof dst), "buffer_read wrote dst on failure");
        expect_fail(redscan_buffer_read(h_ctx, b, 0, NULL, 8), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_read(dst=NULL)",
                    "dst|destination");
        expect_fail(redscan_buffer_read(h_ctx, NULL, 0, dst, 8), REDSCAN_ERR_INVALID_ARGUMENT, "buffer_read(buf=NULL)",
                    "buf|buffer");
    }
    if (h_case("buffer_size")) CHECK(redscan_buffer_size(b) == 64, "redscan_buffer_size = %zu, want 64", redscan_buffer_size(b));
    redscan_buffer_destroy(h_ctx, b);
}

static void reductions(void)
{
    redscan_buffer *b = mkbuf(64); /* 16 int32 */
    if (!b) return;
    int32_t x[16] = {0};
    unsigned char res[16];
    struct {
        const char *name;
        redscan_reduce_desc d;
        size_t n;
        const char *kw;
    } bad[] = {
        {"op 99", {(redscan_op)99, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0}, 4, "op|operator|operation"},
        {"op -1", {(redscan_op)-1, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0}, 4, "op|operator|operation"},
        {"dtype 0", {REDSCAN_SUM, (redscan_dtype)0, 0, REDSCAN_REDUCE_AUTO, 0}, 4, "dtype|type"},
        {"dtype 13", {REDSCAN_SUM, (redscan_dtype)13, 0, REDSCAN_REDUCE_AUTO, 0}, 4, "dtype|type"},
        {"algo 99", {REDSCAN_SUM, REDSCAN_INT32, 0, (redscan_reduce_algo)99, 0}, 4, "algo|algorithm"},
        {"out_dtype int32->uint64", {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_UINT64, REDSCAN_REDUCE_AUTO, 0}, 4, "out_dtype|widening"},
        {"out_dtype int32->float64", {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_FLOAT64, REDSCAN_REDUCE_AUTO, 0}, 4, "out_dtype|widening"},
        {"out_dtype int64->int32", {REDSCAN_SUM, REDSCAN_INT64, REDSCAN_INT32, REDSCAN_REDUCE_AUTO, 0}, 4, "out_dtype|widening"},
        {"out_dtype float64->float32", {REDSCAN_SUM, REDSCAN_FLOAT64, REDSCAN_FLOAT32, REDSCAN_REDUCE_AUTO, 0}, 4, "out_dtype|widening"},
        {"out_dtype float32->int64", {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_INT64, REDSCAN_REDUCE_AUTO, 0}, 4, "out_dtype|widening"},
        {"out_dtype uint32->int64", {REDSCAN_SUM, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_REDUCE_AUTO, 0}, 4, "out_dtype|widening"},
        {"out_dtype 99", {REDSCAN_SUM, REDSCAN_INT32, (redscan_dtype)99, REDSCAN_REDUCE_AUTO, 0}, 4, "out_dtype|widening"},
        {"flags 1", {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 1}, 4, "flags"},
        {"n past the buffer (int32 n=17 in 64 bytes)", {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0}, 17,
         "n|in|size|range|bytes|buffer|end"},
        {"n past the buffer (int64 n=9 in 64 bytes)", {REDSCAN_MAX, REDSCAN_INT64, 0, REDSCAN_REDUCE_TREE, 0}, 9,
         "n|in|size|range|bytes|buffer|end"},
        {"n * size overflows size_t", {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0}, SIZE_MAX / 4 + 2,
         "n|in|size|range|bytes|buffer|overflow|overflows|end"},
        {"n * size overflows size_t (int64)", {REDSCAN_SUM, REDSCAN_INT64, 0, REDSCAN_REDUCE_AUTO, 0}, SIZE_MAX / 8 + 1,
         "n|in|size|range|bytes|buffer|overflow|overflows|end"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!h_case("reduce_ex %s", bad[i].name)) continue;
        memset(res, 0xA5, sizeof res);
        expect_fail(redscan_reduce_ex(h_ctx, &bad[i].d, b, bad[i].n, res), REDSCAN_ERR_INVALID_ARGUMENT, "reduce_ex",
                    bad[i].kw);
        CHECK(untouched(res, sizeof res), "reduce_ex wrote the result on failure");
        /* host forms have no buffer to run past: only the argument checks (and the size_t overflow) apply */
        if (strncmp(bad[i].name, "n past", 6) != 0) {
            memset(res, 0xA5, sizeof res);
            expect_fail(redscan_reduce_host_ex(h_ctx, &bad[i].d, x, bad[i].n, res), REDSCAN_ERR_INVALID_ARGUMENT,
                        "reduce_host_ex", bad[i].kw);
            CHECK(untouched(res, sizeof res), "reduce_host_ex wrote the result on failure");
        }
        if (bad[i].d.out_dtype == 0 && bad[i].d.algo == REDSCAN_REDUCE_AUTO && bad[i].d.flags == 0) {
            memset(res, 0xA5, sizeof res);
            expect_fail(redscan_reduce(h_ctx, bad[i].d.op, bad[i].d.dtype, b, bad[i].n, res),
                        REDSCAN_ERR_INVALID_ARGUMENT, "redscan_reduce", bad[i].kw);
            CHECK(untouched(res, sizeof res), "redscan_reduce wrote the result on failure");
        }
    }
    if (h_case("reduce NULL pointers")) {
        redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
        memset(res, 0xA5, sizeof res);
        expect_fail(redscan_reduce_ex(h_ctx, NULL, b, 4, res), REDSCAN_ERR_INVALID_ARGUMENT, "reduce_ex(desc=NULL)",
                    "desc|descriptor");
        expect_fail(redscan_reduce_ex(h_ctx, &d, NULL, 4, res), REDSCAN_ERR_INVALID_ARGUMENT, "reduce_ex(in=NULL)",
                    "in|input|buffer");
        expect_fail(redscan_reduce_ex(h_ctx, &d, b, 4, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "reduce_ex(result=NULL)",
                    "result|out|output");
        expect_fail(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_INT32, NULL, 4, res), REDSCAN_ERR_INVALID_ARGUMENT,
                    "reduce(in=NULL)", "in|input|buffer");
        expect_fail(redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_INT32, NULL, 4, res), REDSCAN_ERR_INVALID_ARGUMENT,
                    "reduce_host(in=NULL)", "in|input");
        expect_fail(redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_INT32, x, 4, NULL), REDSCAN_ERR_INVALID_ARGUMENT,
                    "reduce_host(result=NULL)", "result|out|output");
        expect_fail(redscan_reduce_host_ex(h_ctx, NULL, x, 4, res), REDSCAN_ERR_INVALID_ARGUMENT,
                    "reduce_host_ex(desc=NULL)", "desc|descriptor");
        CHECK(untouched(res, sizeof res), "a failed reduce wrote the result");
    }
    redscan_buffer_destroy(h_ctx, b);
}

static void scans(void)
{
    redscan_buffer *in = mkbuf(64), *out = mkbuf(64), *big = mkbuf(256);
    if (!in || !out || !big) goto done;
    int32_t x[16] = {0}, y[40];
    const redscan_scan_desc ok = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    struct {
        const char *name;
        int field; /* which field to break */
        int value;
        const char *kw;
    } bad[] = {
        {"op 99", 0, 99, "op|operator|operation"},
        {"dtype 0", 1, 0, "dtype|type"},
        {"dtype 13", 1, 13, "dtype|type"},
        {"out_dtype uint64 for int32", 2, REDSCAN_UINT64, "out_dtype|widening"},
        {"out_dtype float64 for int32", 2, REDSCAN_FLOAT64, "out_dtype|widening"},
        {"out_dtype 42", 2, 42, "out_dtype|widening"},
        {"exclusive 2", 3, 2, "exclusive"},
        {"exclusive -1", 3, -1, "exclusive"},
        {"block 99", 4, 99, "block"},
        {"grid 99", 5, 99, "grid"},
        {"flags 1", 6, 1, "flags"},
        {"flags 0x80000000", 6, (int)0x80000000u, "flags"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!h_case("scan_ex %s", bad[i].name)) continue;
        redscan_scan_desc d = ok;
        switch (bad[i].field) {
        case 0: d.op = (redscan_op)bad[i].value; break;
        case 1: d.dtype = (redscan_dtype)bad[i].value; break;
        case 2: d.out_dtype = (redscan_dtype)bad[i].value; break;
        case 3: d.exclusive = bad[i].value; break;
        case 4: d.block = (redscan_block_scan)bad[i].value; break;
        case 5: d.grid = (redscan_grid_scan)bad[i].value; break;
        default: d.flags = (unsigned)bad[i].value; break;
        }
        expect_fail(redscan_scan_ex(h_ctx, &d, in, big, 16), REDSCAN_ERR_INVALID_ARGUMENT, "scan_ex", bad[i].kw);
        buffer_untouched(big, 256, "output buffer after a failed scan");
        memset(y, 0xA5, sizeof y);
        expect_fail(redscan_scan_host_ex(h_ctx, &d, x, y, 16), REDSCAN_ERR_INVALID_ARGUMENT, "scan_host_ex", bad[i].kw);
        CHECK(untouched(y, sizeof y), "scan_host_ex wrote the output on failure");
        if (bad[i].field <= 1 || bad[i].field == 3) {
            expect_fail(redscan_scan(h_ctx, d.op, d.dtype, d.exclusive, in, big, 16), REDSCAN_ERR_INVALID_ARGUMENT,
                        "redscan_scan", bad[i].kw);
            buffer_untouched(big, 256, "output buffer after a failed redscan_scan");
            memset(y, 0xA5, sizeof y);
            expect_fail(redscan_scan_host(h_ctx, d.op, d.dtype, d.exclusive, x, y, 16), REDSCAN_ERR_INVALID_ARGUMENT,
                        "redscan_scan_host", bad[i].kw);
            CHECK(untouched(y, sizeof y), "redscan_scan_host wrote the output on failure");
        }
    }
    if (h_case("scan ranges")) {
        redscan_scan_desc d = ok;
        expect_fail(redscan_scan_ex(h_ctx, &d, in, big, 17), REDSCAN_ERR_INVALID_ARGUMENT, "scan_ex(in too small)",
                    "n|in|input|size|range|bytes|buffer|end");
        buffer_untouched(big, 256, "output after scan_ex(in too small)");
        expect_fail(redscan_scan_ex(h_ctx, &d, big, out, 17), REDSCAN_ERR_INVALID_ARGUMENT, "scan_ex(out too small)",
                    "n|out|output|size|range|bytes|buffer|end");
        buffer_untouched(out, 64, "output after scan_ex(out too small)");
        d.out_dtype = REDSCAN_INT64; /* 16 int32 in 64 bytes, 16 int64 need 128 */
        expect_fail(redscan_scan_ex(h_ctx, &d, in, out, 16), REDSCAN_ERR_INVALID_ARGUMENT,
                    "scan_ex(widened out too small)", "n|out|output|size|range|bytes|buffer|end|out_dtype");
        buffer_untouched(out, 64, "output after scan_ex(widened out too small)");
        expect_fail(redscan_scan_ex(h_ctx, &d, big, big, 16), REDSCAN_ERR_INVALID_ARGUMENT,
                    "scan_ex(in place with a widening)", "in|out|place|in_place|inplace|in-place|out_dtype|alias|aliasing");
        buffer_untouched(big, 256, "buffer after scan_ex(in place with a widening)");
        /* the same refusal at n = 0, on both forms (the host form once returned OK there) */
        expect_fail(redscan_scan_ex(h_ctx, &d, big, big, 0), REDSCAN_ERR_INVALID_ARGUMENT,
                    "scan_ex(in place with a widening, n = 0)", "in|out|place|in_place|inplace|in-place|out_dtype|alias|aliasing");
        {
            int32_t same[4] = {1, 2, 3, 4};
            expect_fail(redscan_scan_host_ex(h_ctx, &d, same, same, 0), REDSCAN_ERR_INVALID_ARGUMENT,
                        "scan_host_ex(in place with a widening, n = 0)",
                        "in|out|place|in_place|inplace|in-place|out_dtype|alias|aliasing|same");
            CHECK(same[0] == 1 && same[3] == 4, "scan_host_ex wrote the array on failure");
        }
        d = ok;
        expect_fail(redscan_scan_ex(h_ctx, &d, big, big, SIZE_MAX / 4 + 2), REDSCAN_ERR_INVALID_ARGUMENT,
                    "scan_ex(n * size overflows)", "n|in|out|size|range|bytes|buffer|overflow|overflows|end");
        buffer_untouched(big, 256, "buffer after scan_ex(n overflow)");
        expect_fail(redscan_scan(h_ctx, REDSCAN_SUM, REDSCAN_INT32, 0, in, out, 17), REDSCAN_ERR_INVALID_ARGUMENT,
                    "redscan_scan(n past the buffers)", "n|in|out|input|output|size|range|bytes|buffer|end");
        buffer_untouched(out, 64, "output after redscan_scan(n past the buffers)");
    }
    if (h_case("scan NULL pointers")) {
        redscan_scan_desc d = ok;
        expect_fail(redscan_scan_ex(h_ctx, NULL, in, big, 4), REDSCAN_ERR_INVALID_ARGUMENT, "scan_ex(desc=NULL)",
                    "desc|descriptor");
        expect_fail(redscan_scan_ex(h_ctx, &d, NULL, big, 4), REDSCAN_ERR_INVALID_ARGUMENT, "scan_ex(in=NULL)",
                    "in|input");
        expect_fail(redscan_scan_ex(h_ctx, &d, in, NULL, 4), REDSCAN_ERR_INVALID_ARGUMENT, "scan_ex(out=NULL)",
                    "out|output");
        memset(y, 0xA5, sizeof y);
        expect_fail(redscan_scan_host(h_ctx, REDSCAN_SUM, REDSCAN_INT32, 0, NULL, y, 4), REDSCAN_ERR_INVALID_ARGUMENT,
                    "scan_host(in=NULL)", "in|input");
        CHECK(untouched(y, sizeof y), "scan_host wrote the output on failure");
        expect_fail(redscan_scan_host(h_ctx, REDSCAN_SUM, REDSCAN_INT32, 0, x, NULL, 4), REDSCAN_ERR_INVALID_ARGUMENT,
                    "scan_host(out=NULL)", "out|output");
        expect_fail(redscan_scan_host_ex(h_ctx, NULL, x, y, 4), REDSCAN_ERR_INVALID_ARGUMENT, "scan_host_ex(desc=NULL)",
                    "desc|descriptor");
        buffer_untouched(big, 256, "output after scans with NULL pointers");
    }
    if (h_case("single_pass grid")) {
        redscan_scan_desc d = ok;
        d.grid = REDSCAN_GRID_SINGLE_PASS;
        redscan_status st = redscan_scan_ex(h_ctx, &d, in, big, 16);
        if (SINGLE_PASS_IMPLEMENTED) {
            CHECK_OK(st, "scan_ex(single_pass)");
            /* the testing knobs: a value that is not a number of polls / a tile count is an error naming the
             * variable, and the output keeps its bytes */
            static const char *const knobs[][2] = {{"REDSCAN_SINGLE_PASS_SPINS", "bogus"},
                                                   {"REDSCAN_SINGLE_PASS_TILES", "3"},
                                                   {"REDSCAN_SINGLE_PASS_TILES", "two"}};
            unsigned char sent[256];
            memset(sent, 0xA5, sizeof sent);
            for (size_t ki = 0; ki < sizeof knobs / sizeof knobs[0]; ki++) {
                if (!CHECK_OK(redscan_buffer_write(h_ctx, big, 0, sent, sizeof sent), "redscan_buffer_write")) break;
                const char *var = knobs[ki][0], *bad = knobs[ki][1];
                const char *old = getenv(var);
                char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
                setenv(var, bad, 1);
                st = redscan_scan_ex(h_ctx, &d, in, big, 16);
                if (saved) setenv(var, saved, 1);
                else unsetenv(var);
                free(saved);
                char what[96], words[96];
                snprintf(what, sizeof what, "scan_ex(single_pass, %s=%s)", var, bad);
                snprintf(words, sizeof words, "%s|%s", var, bad);
                expect_fail(st, REDSCAN_ERR_INVALID_ARGUMENT, what, words);
                snprintf(what, sizeof what, "output after %s=%s", var, bad);
                buffer_untouched(big, 256, what);
            }
        } else {
            expect_fail(st, REDSCAN_ERR_UNSUPPORTED, "scan_ex(single_pass)", "single_pass|single|pass|look-back|lookback");
            buffer_untouched(big, 256, "output after an UNSUPPORTED scan");
        }
    }
done:
    if (in) redscan_buffer_destroy(h_ctx, in);
    if (out) redscan_buffer_destroy(h_ctx, out);
    if (big) redscan_buffer_destroy(h_ctx, big);
}

static void stats(void)
{
    int32_t x[16] = {5, 3, 9, 1, 7, 1, 2, 8, 6, 4, 0, 11, 13, 12, 10, 14};
    redscan_buffer *b = h_buffer_with(x, sizeof x, sizeof x, (redscan_dtype)0, ref_zero());
    if (!b) return;
    double m;
    uint64_t idx;
    unsigned char val[16];
    int32_t tv[300];
    uint64_t ti[300];
#define RESET() (memset(&m, 0xA5, sizeof m), memset(&idx, 0xA5, sizeof idx), memset(val, 0xA5, sizeof val), \
                 memset(tv, 0xA5, sizeof tv), memset(ti, 0xA5, sizeof ti))
#define UNTOUCHED(what)                                                                                        \
    CHECK(untouched(&m, sizeof m) && untouched(&idx, sizeof idx) && untouched(val, sizeof val) &&            \
              untouched(tv, sizeof tv) && untouched(ti, sizeof ti),                                            \
          "%s wrote an output on failure", what)
    if (h_case("mean errors")) {
        RESET();
        expect_fail(redscan_mean_host(h_ctx, REDSCAN_INT32, x, 0, &m), REDSCAN_ERR_INVALID_ARGUMENT, "mean_host(n=0)", "n|empty");
        expect_fail(redscan_mean(h_ctx, REDSCAN_INT32, b, 0, &m), REDSCAN_ERR_INVALID_ARGUMENT, "mean(n=0)", "n|empty");
        expect_fail(redscan_mean(h_ctx, REDSCAN_INT32, b, 17, &m), REDSCAN_ERR_INVALID_ARGUMENT, "mean(n past buffer)",
                    "n|in|size|range|bytes|buffer|end");
        expect_fail(redscan_mean_host(h_ctx, (redscan_dtype)0, x, 4, &m), REDSCAN_ERR_INVALID_ARGUMENT, "mean_host(dtype 0)",
                    "dtype|type");
        expect_fail(redscan_mean_host(h_ctx, REDSCAN_INT32, x, 4, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "mean_host(mean=NULL)",
                    "mean|result|out|output");
        expect_fail(redscan_mean_host(h_ctx, REDSCAN_INT32, NULL, 4, &m), REDSCAN_ERR_INVALID_ARGUMENT, "mean_host(in=NULL)",
                    "in|input");
        UNTOUCHED("mean");
    }
    for (int want_max = 0; want_max < 2; want_max++) {
        if (!h_case("%s errors", want_max ? "argmax" : "argmin")) continue;
        RESET();
#define ARGH(dt, in, n, ip, vp) (want_max ? redscan_argmax_host(h_ctx, dt, in, n, ip, vp) : redscan_argmin_host(h_ctx, dt, in, n, ip, vp))
#define ARGD(dt, in, n, ip, vp) (want_max ? redscan_argmax(h_ctx, dt, in, n, ip, vp) : redscan_argmin(h_ctx, dt, in, n, ip, vp))
        expect_fail(ARGH(REDSCAN_INT32, x, 0, &idx, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*_host(n=0)", "n|empty");
        expect_fail(ARGD(REDSCAN_INT32, b, 0, &idx, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*(n=0)", "n|empty");
        expect_fail(ARGD(REDSCAN_INT32, b, 17, &idx, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*(n past buffer)",
                    "n|in|size|range|bytes|buffer|end");
        expect_fail(ARGD(REDSCAN_INT64, b, 9, &idx, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*(int64 n past buffer)",
                    "n|in|size|range|bytes|buffer|end");
        expect_fail(ARGH(REDSCAN_INT32, x, 4, NULL, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*_host(index=NULL)", "index");
        expect_fail(ARGH((redscan_dtype)13, x, 4, &idx, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*_host(dtype 13)", "dtype|type");
        expect_fail(ARGH(REDSCAN_INT32, NULL, 4, &idx, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*_host(in=NULL)", "in|input");
        expect_fail(ARGD(REDSCAN_INT32, NULL, 4, &idx, val), REDSCAN_ERR_INVALID_ARGUMENT, "arg*(in=NULL)", "in|input|buffer");
        UNTOUCHED("argmin/argmax");
        /* value pointer NULL is fine */
        idx = 99;
        CHECK_OK(ARGH(REDSCAN_INT32, x, 16, &idx, NULL), "arg*_host(value=NULL)");
        CHECK(idx == (want_max ? 15u : 10u), "arg*_host: index %" PRIu64, idx);
    }
    if (h_case("topk errors")) {
        RESET();
        expect_fail(redscan_topk_host(h_ctx, REDSCAN_INT32, x, 16, 0, 1, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk_host(k=0)", "k");
        expect_fail(redscan_topk_host(h_ctx, REDSCAN_INT32, x, 16, 17, 1, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk_host(k>n)", "k|n");
        expect_fail(redscan_topk(h_ctx, REDSCAN_INT32, b, 16, 17, 0, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk(k>n)", "k|n");
        int32_t *many = (int32_t *)h_malloc(1000 * 4);
        for (int i = 0; i < 1000; i++) many[i] = i;
        expect_fail(redscan_topk_host(h_ctx, REDSCAN_INT32, many, 1000, REDSCAN_TOPK_MAX + 1, 1, tv, ti),
                    REDSCAN_ERR_INVALID_ARGUMENT, "topk_host(k=257)", "k|REDSCAN_TOPK_MAX");
        expect_fail(redscan_topk_host(h_ctx, REDSCAN_INT32, many, 1000, SIZE_MAX, 1, tv, ti),
                    REDSCAN_ERR_INVALID_ARGUMENT, "topk_host(k=SIZE_MAX)", "k|REDSCAN_TOPK_MAX");
        free(many);
        expect_fail(redscan_topk_host(h_ctx, REDSCAN_INT32, x, 0, 1, 1, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk_host(n=0)", "n|k|empty");
        expect_fail(redscan_topk(h_ctx, REDSCAN_INT32, b, 0, 1, 1, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT, "topk(n=0)",
                    "n|k|empty");
        expect_fail(redscan_topk(h_ctx, REDSCAN_INT32, b, 17, 1, 1, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk(n past buffer)", "n|in|size|range|bytes|buffer|end");
        expect_fail(redscan_topk_host(h_ctx, REDSCAN_INT32, x, 16, 2, 1, NULL, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk_host(values=NULL)", "values|value|out|output");
        expect_fail(redscan_topk_host(h_ctx, (redscan_dtype)0, x, 16, 2, 1, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk_host(dtype 0)", "dtype|type");
        expect_fail(redscan_topk_host(h_ctx, REDSCAN_INT32, NULL, 16, 2, 1, tv, ti), REDSCAN_ERR_INVALID_ARGUMENT,
                    "topk_host(in=NULL)", "in|input");
        UNTOUCHED("topk");
        CHECK_OK(redscan_topk_host(h_ctx, REDSCAN_INT32, x, 16, 3, 1, tv, NULL), "topk_host(indices=NULL)");
        CHECK(tv[0] == 14 && tv[1] == 13 && tv[2] == 12, "topk_host: %d %d %d, want 14 13 12", (int)tv[0], (int)tv[1],
              (int)tv[2]);
    }
#undef RESET
#undef UNTOUCHED
    redscan_buffer_destroy(h_ctx, b);
}

static void fp64(void)
{
    if (!h_case("float64 support")) return;
    double x[3] = {1.0, 2.0, 0.5}, r = -1;
    redscan_status st = redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, x, 3, &r);
    if (st == REDSCAN_ERR_UNSUPPORTED) {
        printf("note: device without fp64: FLOAT64 is UNSUPPORTED (%s)\n", h_last_error());
        CHECK(h_names_any(h_last_error(), "fp64|double|float64|cl_khr_fp64"), "UNSUPPORTED float64: last error \"%s\"",
              h_last_error());
        CHECK(r == -1, "result written on UNSUPPORTED");
        ctx_still_works("float64 UNSUPPORTED");
        float xf[2] = {1, 2};
        double rd = -1;
        redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_REDUCE_AUTO, 0};
        CHECK_STATUS(redscan_reduce_host_ex(h_ctx, &d, xf, 2, &rd), REDSCAN_ERR_UNSUPPORTED, "float32->float64 without fp64");
    } else {
        CHECK(st == REDSCAN_OK && r == 3.5, "float64 sum: status %s, result %g", redscan_status_string(st), r);
    }
}

/* ---------------------------------------------------------------- backends and the environment */

static char *save_env(const char *name)
{
    const char *v = getenv(name);
    if (!v) return NULL;
    char *c = (char *)h_malloc(strlen(v) + 1);
    strcpy(c, v);
    return c;
}

static void restore_env(const char *name, char *saved)
{
    if (saved) setenv(name, saved, 1);
    else unsetenv(name);
    free(saved);
}

/* Create with `backend` under name=value; returns the status; destroys a context that was created. */
static redscan_status create_with(const char *name, const char *value, redscan_backend backend, char *msg, size_t msz)
{
    char *saved = save_env(name);
    if (value) setenv(name, value, 1);
    else unsetenv(name);
    redscan_ctx *c = NULL;
    redscan_status st = redscan_create(&c, backend);
    const char *e = redscan_last_error(NULL);
    snprintf(msg, msz, "%s", e ? e : "");
    if (st == REDSCAN_OK && c) redscan_destroy(c);
    restore_env(name, saved);
    return st;
}

static void backends(void)
{
    char msg[8192];
    if (h_case("unknown backend enum")) {
        redscan_ctx *c = NULL;
        redscan_status st = redscan_create(&c, (redscan_backend)42);
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, "redscan_create(backend 42)");
        CHECK(*redscan_last_error(NULL), "redscan_create(backend 42): empty redscan_last_error(NULL)");
        if (st == REDSCAN_OK && c) redscan_destroy(c);
    }
    if (h_case("cuda backend")) {
        const char *reason = NULL;
        redscan_status probe = redscan_backend_probe(REDSCAN_BACKEND_CUDA, &reason);
        if (probe != REDSCAN_OK) {
            CHECK(probe == REDSCAN_ERR_BACKEND_UNAVAILABLE, "probe(cuda) returned %s", redscan_status_string(probe));
            CHECK(reason && *reason, "probe(cuda) unavailable without a reason");
            printf("note: CUDA unavailable here: %s\n", reason ? reason : "(null)");
            redscan_ctx *c = NULL;
            redscan_status st = redscan_create(&c, REDSCAN_BACKEND_CUDA);
            CHECK_STATUS(st, REDSCAN_ERR_BACKEND_UNAVAILABLE, "redscan_create(CUDA)");
            const char *e = redscan_last_error(NULL);
            CHECK(e && *e, "redscan_create(CUDA) failed with an empty redscan_last_error(NULL)");
            if (st == REDSCAN_OK && c) redscan_destroy(c);
            /* REDSCAN_BACKEND=cuda through AUTO: an error, never a silent switch to OpenCL */
            st = create_with("REDSCAN_BACKEND", "cuda", REDSCAN_BACKEND_AUTO, msg, sizeof msg);
            CHECK_STATUS(st, REDSCAN_ERR_BACKEND_UNAVAILABLE, "redscan_create(AUTO) with REDSCAN_BACKEND=cuda");
            CHECK(msg[0], "REDSCAN_BACKEND=cuda: empty reason");
        } else {
            printf("note: CUDA is available here; checking that a context opens\n");
            redscan_ctx *c = NULL;
            CHECK_OK(redscan_create(&c, REDSCAN_BACKEND_CUDA), "redscan_create(CUDA)");
            if (c) {
                CHECK(strcmp(redscan_backend_name(c), "cuda") == 0, "backend name %s", redscan_backend_name(c));
                redscan_destroy(c);
            }
        }
        const char *r2 = NULL;
        CHECK(redscan_backend_probe(REDSCAN_BACKEND_OPENCL, &r2) == REDSCAN_OK || strcmp(redscan_backend_name(h_ctx), "opencl") != 0,
              "probe(opencl) fails while an OpenCL context runs: %s", r2 ? r2 : "");
        CHECK(redscan_backend_compiled(REDSCAN_BACKEND_OPENCL) || strcmp(redscan_backend_name(h_ctx), "opencl") != 0,
              "redscan_backend_compiled(OPENCL) is 0 while an OpenCL context runs");
    }
    if (h_case("REDSCAN_BACKEND=bogus")) {
        redscan_status st = create_with("REDSCAN_BACKEND", "bogus", REDSCAN_BACKEND_AUTO, msg, sizeof msg);
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, "redscan_create(AUTO) with REDSCAN_BACKEND=bogus");
        CHECK(h_names_any(msg, "REDSCAN_BACKEND|bogus"), "message \"%s\" names neither REDSCAN_BACKEND nor the value", msg);
        CHECK(h_has_word(msg, "cuda") && h_has_word(msg, "opencl"), "message \"%s\" does not list the accepted values", msg);
        CHECK(getenv("REDSCAN_BACKEND") == NULL || strcmp(getenv("REDSCAN_BACKEND"), "bogus") != 0, "env not restored");
    }
    if (h_case("REDSCAN_BACKEND=opencl / auto")) {
        if (redscan_backend_probe(REDSCAN_BACKEND_OPENCL, NULL) == REDSCAN_OK) {
            CHECK_OK(create_with("REDSCAN_BACKEND", "opencl", REDSCAN_BACKEND_AUTO, msg, sizeof msg), "REDSCAN_BACKEND=opencl");
            CHECK_OK(create_with("REDSCAN_BACKEND", "auto", REDSCAN_BACKEND_AUTO, msg, sizeof msg), "REDSCAN_BACKEND=auto");
            CHECK_OK(create_with("REDSCAN_BACKEND", NULL, REDSCAN_BACKEND_AUTO, msg, sizeof msg), "REDSCAN_BACKEND unset");
        }
    }
    if (strcmp(redscan_backend_name(h_ctx), "opencl") == 0) {
        if (h_case("REDSCAN_OPENCL_DEVICE=nomatch")) {
            redscan_status st = create_with("REDSCAN_OPENCL_DEVICE", "nomatch-xyzzy", REDSCAN_BACKEND_OPENCL, msg, sizeof msg);
            CHECK(st != REDSCAN_OK, "REDSCAN_OPENCL_DEVICE=nomatch-xyzzy: redscan_create succeeded");
            CHECK(msg[0], "REDSCAN_OPENCL_DEVICE=nomatch-xyzzy: empty redscan_last_error(NULL)");
            CHECK(strstr(msg, "nomatch-xyzzy") || strstr(msg, "REDSCAN_OPENCL_DEVICE"),
                  "message \"%s\" names neither REDSCAN_OPENCL_DEVICE nor the value", msg);
            st = create_with("REDSCAN_OPENCL_DEVICE", "999", REDSCAN_BACKEND_OPENCL, msg, sizeof msg);
            CHECK(st != REDSCAN_OK, "REDSCAN_OPENCL_DEVICE=999: redscan_create succeeded");
            CHECK(msg[0], "REDSCAN_OPENCL_DEVICE=999: empty message");
        }
        if (h_case("REDSCAN_OPENCL_DEVICE=0 and a case-insensitive substring")) {
            CHECK_OK(create_with("REDSCAN_OPENCL_DEVICE", "0", REDSCAN_BACKEND_OPENCL, msg, sizeof msg),
                     "REDSCAN_OPENCL_DEVICE=0");
            char sub[8] = {0};
            const char *dn = redscan_device_name(h_ctx);
            size_t len = strlen(dn);
            if (len >= 4) {
                for (size_t i = 0; i < 4; i++) sub[i] = (char)toupper((unsigned char)dn[i]);
                redscan_status st = create_with("REDSCAN_OPENCL_DEVICE", sub, REDSCAN_BACKEND_OPENCL, msg, sizeof msg);
                CHECK(st == REDSCAN_OK, "REDSCAN_OPENCL_DEVICE=%s (a substring of \"%s\"): %s: %s", sub, dn,
                      redscan_status_string(st), msg);
            }
        }
    }
    /* algorithm names: a bogus value fails and lists the accepted names */
    if (h_case("REDSCAN_REDUCE_ALGO=bogus")) {
        redscan_status st = create_with("REDSCAN_REDUCE_ALGO", "bogus", REDSCAN_BACKEND_AUTO, msg, sizeof msg);
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, "redscan_create with REDSCAN_REDUCE_ALGO=bogus");
        for (int a = REDSCAN_REDUCE_TREE; a <= REDSCAN_REDUCE_COARSENED; a++) {
            const char *nm = redscan_reduce_algo_name((redscan_reduce_algo)a);
            CHECK(nm && *nm && strstr(msg, nm), "message \"%s\" does not list \"%s\"", msg, nm ? nm : "(null)");
        }
        CHECK(strstr(msg, "REDSCAN_REDUCE_ALGO") || strstr(msg, "bogus"), "message \"%s\" names neither the variable nor the value", msg);
    }
    if (h_case("REDSCAN_SCAN_BLOCK=bogus")) {
        redscan_status st = create_with("REDSCAN_SCAN_BLOCK", "bogus", REDSCAN_BACKEND_AUTO, msg, sizeof msg);
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, "redscan_create with REDSCAN_SCAN_BLOCK=bogus");
        for (int b = REDSCAN_BLOCK_KOGGE_STONE; b <= REDSCAN_BLOCK_COARSENED; b++) {
            const char *nm = redscan_block_scan_name((redscan_block_scan)b);
            CHECK(nm && *nm && h_has_word(msg, nm), "message \"%s\" does not list \"%s\"", msg, nm ? nm : "(null)");
        }
        CHECK(strstr(msg, "REDSCAN_SCAN_BLOCK") || strstr(msg, "bogus"), "message \"%s\" names neither the variable nor the value", msg);
    }
    if (h_case("REDSCAN_SCAN_GRID=bogus")) {
        redscan_status st = create_with("REDSCAN_SCAN_GRID", "bogus", REDSCAN_BACKEND_AUTO, msg, sizeof msg);
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, "redscan_create with REDSCAN_SCAN_GRID=bogus");
        for (int g = REDSCAN_GRID_HIERARCHICAL; g <= REDSCAN_GRID_REDUCE_THEN_SCAN; g++) {
            const char *nm = redscan_grid_scan_name((redscan_grid_scan)g);
            CHECK(nm && *nm && h_has_word(msg, nm), "message \"%s\" does not list \"%s\"", msg, nm ? nm : "(null)");
        }
        CHECK(strstr(msg, "REDSCAN_SCAN_GRID") || strstr(msg, "bogus"), "message \"%s\" names neither the variable nor the value", msg);
    }
    if (h_case("accepted algorithm names create a context")) {
        for (int a = REDSCAN_REDUCE_TREE; a <= REDSCAN_REDUCE_COARSENED; a++)
            CHECK_OK(create_with("REDSCAN_REDUCE_ALGO", redscan_reduce_algo_name((redscan_reduce_algo)a),
                                 REDSCAN_BACKEND_AUTO, msg, sizeof msg),
                     redscan_reduce_algo_name((redscan_reduce_algo)a));
        for (int b = REDSCAN_BLOCK_KOGGE_STONE; b <= REDSCAN_BLOCK_COARSENED; b++)
            CHECK_OK(create_with("REDSCAN_SCAN_BLOCK", redscan_block_scan_name((redscan_block_scan)b),
                                 REDSCAN_BACKEND_AUTO, msg, sizeof msg),
                     redscan_block_scan_name((redscan_block_scan)b));
        for (int g = REDSCAN_GRID_HIERARCHICAL; g <= REDSCAN_GRID_SINGLE_PASS; g++)
            CHECK_OK(create_with("REDSCAN_SCAN_GRID", redscan_grid_scan_name((redscan_grid_scan)g),
                                 REDSCAN_BACKEND_AUTO, msg, sizeof msg),
                     redscan_grid_scan_name((redscan_grid_scan)g));
    }
    ctx_still_works("the environment cases");
}

static void strings(void)
{
    if (!h_case("status strings and names")) return;
    const char *seen[7];
    for (int s = REDSCAN_OK; s <= REDSCAN_ERR_DEVICE; s++) {
        const char *t = redscan_status_string((redscan_status)s);
        seen[s] = t;
        CHECK(t && *t, "redscan_status_string(%d) is empty", s);
        for (int p = 0; p < s; p++)
            CHECK(!t || !seen[p] || strcmp(t, seen[p]) != 0, "statuses %d and %d share the string \"%s\"", p, s, t ? t : "");
    }
    const char *u = redscan_status_string((redscan_status)99);
    CHECK(u && *u, "redscan_status_string(99) is NULL or empty");
    static const redscan_dtype dts[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
    for (int i = 0; i < 6; i++) {
        CHECK(redscan_dtype_size(dts[i]) == ref_size(dts[i]), "redscan_dtype_size(%s) = %zu", ref_dtype_str(dts[i]),
              redscan_dtype_size(dts[i]));
        const char *nm = redscan_dtype_name(dts[i]);
        CHECK(nm && *nm, "redscan_dtype_name(%d) empty", (int)dts[i]);
    }
    /* the narrow types (issue 17): names and sizes; both backends run them (a sum of four int values is checked
     * here; tests/test_narrow covers the rest); a widening to another kind is INVALID_ARGUMENT, checked before any
     * backend runs */
    static const struct {
        int dt;
        size_t size;
        const char *name;
    } narrow[] = {{7, 1, "int8"}, {8, 1, "uint8"}, {9, 2, "int16"}, {10, 2, "uint16"}, {11, 2, "float16"},
                  {12, 2, "bfloat16"}};
    for (int i = 0; i < 6; i++) {
        const redscan_dtype nd = (redscan_dtype)narrow[i].dt;
        CHECK(redscan_dtype_size(nd) == narrow[i].size, "redscan_dtype_size(%d) = %zu", narrow[i].dt,
              redscan_dtype_size(nd));
        CHECK(strcmp(redscan_dtype_name(nd), narrow[i].name) == 0, "redscan_dtype_name(%d) = %s", narrow[i].dt,
              redscan_dtype_name(nd));
        unsigned char xs[8] = {1, 2, 3, 4, 5, 6, 7, 8}, res[8] = {0};
        const redscan_status st = redscan_reduce_host(h_ctx, REDSCAN_SUM, nd, xs, 4, res);
        CHECK(st == REDSCAN_OK, "reduce_host(%s) returned %s (%s)", narrow[i].name, redscan_status_string(st),
              redscan_last_error(h_ctx));
        /* the integers' sum in their own width: 1+2+3+4, or 0x0201+0x0403+0x0605+0x0807 */
        if (st == REDSCAN_OK && narrow[i].dt <= 10) {
            const unsigned got = narrow[i].size == 1 ? res[0] : (unsigned)(res[0] | res[1] << 8);
            const unsigned want = narrow[i].size == 1 ? 10u : 0x1410u;
            CHECK(got == want, "reduce_host(%s) of 4 values = 0x%x, want 0x%x", narrow[i].name, got, want);
        }
        /* widenings: the 32- and 64-bit type of the same kind only */
        const int is_float = narrow[i].dt >= 11, is_unsigned = narrow[i].dt == 8 || narrow[i].dt == 10;
        const redscan_dtype wrong = is_float ? REDSCAN_INT32 : is_unsigned ? REDSCAN_INT64 : REDSCAN_UINT32;
        redscan_reduce_desc wd = {REDSCAN_SUM, nd, wrong, REDSCAN_REDUCE_AUTO, 0};
        const redscan_status ws = redscan_reduce_host_ex(h_ctx, &wd, xs, 4, res);
        CHECK(ws == REDSCAN_ERR_INVALID_ARGUMENT && strstr(redscan_last_error(h_ctx), "widening"),
              "reduce_host_ex(%s -> %s) was not refused as a bad widening (%s)", narrow[i].name,
              redscan_dtype_name(wrong), redscan_last_error(h_ctx));
    }
    CHECK(redscan_dtype_size((redscan_dtype)0) == 0, "redscan_dtype_size(0) = %zu", redscan_dtype_size((redscan_dtype)0));
    CHECK(redscan_dtype_size((redscan_dtype)99) == 0, "redscan_dtype_size(99) = %zu", redscan_dtype_size((redscan_dtype)99));
    for (int op = 0; op < 4; op++) CHECK(redscan_op_name((redscan_op)op) && *redscan_op_name((redscan_op)op), "op name %d", op);
    CHECK(redscan_op_name((redscan_op)99) != NULL, "redscan_op_name(99) is NULL");
    CHECK(redscan_dtype_name((redscan_dtype)99) != NULL, "redscan_dtype_name(99) is NULL");
    CHECK(redscan_reduce_algo_name((redscan_reduce_algo)99) != NULL, "redscan_reduce_algo_name(99) is NULL");
    CHECK(redscan_block_scan_name((redscan_block_scan)99) != NULL, "redscan_block_scan_name(99) is NULL");
    CHECK(redscan_grid_scan_name((redscan_grid_scan)99) != NULL, "redscan_grid_scan_name(99) is NULL");
    CHECK(strcmp(redscan_backend_name(h_ctx), "opencl") == 0 || strcmp(redscan_backend_name(h_ctx), "cuda") == 0,
          "backend name \"%s\"", redscan_backend_name(h_ctx));
    CHECK(redscan_device_name(h_ctx) && *redscan_device_name(h_ctx), "empty device name");
}

int main(void)
{
    h_open("test_errors");
    strings();
    null_context();
    null_context_async();
    buffers();
    reductions();
    scans();
    stats();
    fp64();
    backends();
    return h_done();
}
