/* test_large (label "large", excluded from the default run with `ctest -LE large`): 64-bit sizes.
 * For each size (default 2^31 + 17; REDSCAN_LARGE_SIZES="2147483665,4294967301" adds 2^32 + 5) and for INT32 and
 * FLOAT32: a sum reduce (plain and widened), a max reduce whose answer is the last element (a dropped tail
 * shows), and an in-place inclusive sum scan, all checked exactly in chunks. FLOAT32 data is a +-1 random walk:
 * every partial sum any algorithm forms is a difference of two prefix sums, far below 2^24, so float results are
 * exact and comparable with ==. Skipped (77) when the device cannot hold the buffer (redscan_buffer_create
 * returns REDSCAN_ERR_OUT_OF_MEMORY). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CHUNK ((size_t)1 << 24)

static uint32_t mix(uint64_t i) { return (uint32_t)((i * 0x9E3779B97F4A7C15ull) >> 32); }
static int32_t int_at(uint64_t i) { return (int32_t)(mix(i) >> 24) - 100; }
static float float_at(uint64_t i) { return (mix(i) >> 31) ? 1.0f : -1.0f; }

/* Fill chunk [off, off+m) of the input and the running sums. */
static void make_chunk(redscan_dtype dt, size_t off, size_t m, void *chunk)
{
    for (size_t i = 0; i < m; i++) {
        if (dt == REDSCAN_INT32)
            ((int32_t *)chunk)[i] = int_at(off + i);
        else
            ((float *)chunk)[i] = float_at(off + i);
    }
}

static double value(redscan_dtype dt, uint64_t i) { return dt == REDSCAN_INT32 ? (double)int_at(i) : float_at(i); }

static int run_size(size_t n, redscan_dtype dt, void *chunk)
{
    const char *name = redscan_dtype_name(dt);
    redscan_buffer *b = NULL;
    redscan_status st = redscan_buffer_create(h_ctx, n * 4, &b);
    if (st == REDSCAN_ERR_OUT_OF_MEMORY) {
        printf("SKIP n=%zu %s: the device cannot allocate %zu bytes: %s\n", n, name, n * 4, h_last_error());
        return 0;
    }
    h_case("large %s n=%zu", name, n);
    if (!CHECK_OK(st, "redscan_buffer_create")) return 1;
    uint32_t sum32 = 0;
    int64_t sum64 = 0; /* int32 data: exact; float data: exact integer walk */
    double t0 = h_now();
    for (size_t off = 0; off < n && st == REDSCAN_OK; off += CHUNK) {
        size_t m = n - off < CHUNK ? n - off : CHUNK;
        make_chunk(dt, off, m, chunk);
        for (size_t i = 0; i < m; i++) {
            double v = value(dt, off + i);
            sum32 += (uint32_t)(int32_t)v;
            sum64 += (int64_t)v;
        }
        st = redscan_buffer_write(h_ctx, b, off * 4, chunk, m * 4);
    }
    if (!CHECK_OK(st, "redscan_buffer_write")) goto out;
    printf("%s n=%zu: upload %.1f s\n", name, n, h_now() - t0);

    t0 = h_now();
    if (h_case("large reduce sum %s n=%zu", name, n)) {
        if (dt == REDSCAN_INT32) {
            int32_t r = 0;
            if (CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, dt, b, n, &r), "reduce sum"))
                CHECK((uint32_t)r == sum32, "got %" PRId32 ", want %" PRId32, r, (int32_t)sum32);
            redscan_reduce_desc d = {REDSCAN_SUM, dt, REDSCAN_INT64, REDSCAN_REDUCE_AUTO, 0};
            int64_t r64 = 0;
            if (CHECK_OK(redscan_reduce_ex(h_ctx, &d, b, n, &r64), "reduce sum int32->int64"))
                CHECK(r64 == sum64, "got %" PRId64 ", want %" PRId64, r64, sum64);
        } else {
            float r = 0;
            if (CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, dt, b, n, &r), "reduce sum"))
                CHECK(r == (float)sum64, "got %.1f, want %" PRId64, r, sum64);
            redscan_reduce_desc d = {REDSCAN_SUM, dt, REDSCAN_FLOAT64, REDSCAN_REDUCE_AUTO, 0};
            double r64 = 0;
            if (CHECK_OK(redscan_reduce_ex(h_ctx, &d, b, n, &r64), "reduce sum float32->float64"))
                CHECK(r64 == (double)sum64, "got %.1f, want %" PRId64, r64, sum64);
        }
    }
    if (h_case("large reduce max %s n=%zu (answer in the last element)", name, n)) {
        unsigned char big[4], orig[4], got[4] = {0};
        const int32_t ibig = INT32_MAX;
        const float fbig = 1e30f;
        memcpy(big, dt == REDSCAN_INT32 ? (const void *)&ibig : (const void *)&fbig, 4);
        if (CHECK_OK(redscan_buffer_read(h_ctx, b, (n - 1) * 4, orig, 4), "read last") &&
            CHECK_OK(redscan_buffer_write(h_ctx, b, (n - 1) * 4, big, 4), "write last")) {
            if (CHECK_OK(redscan_reduce(h_ctx, REDSCAN_MAX, dt, b, n, got), "reduce max"))
                CHECK(!memcmp(got, big, 4), "max is not the planted last element");
            CHECK_OK(redscan_buffer_write(h_ctx, b, (n - 1) * 4, orig, 4), "restore last");
        }
    }
    printf("%s n=%zu: reduce %.1f s\n", name, n, h_now() - t0);

    t0 = h_now();
    if (h_case("large inclusive scan sum %s in place n=%zu", name, n)) {
        st = redscan_scan(h_ctx, REDSCAN_SUM, dt, 0, b, b, n);
        if (CHECK_OK(st, "redscan_scan in place")) {
            printf("%s n=%zu: scan %.1f s\n", name, n, h_now() - t0);
            uint32_t iacc = 0;
            int64_t facc = 0;
            size_t bad = 0;
            for (size_t off = 0; off < n; off += CHUNK) {
                size_t m = n - off < CHUNK ? n - off : CHUNK;
                if (!CHECK_OK(redscan_buffer_read(h_ctx, b, off * 4, chunk, m * 4), "redscan_buffer_read")) break;
                for (size_t i = 0; i < m; i++) {
                    int ok;
                    if (dt == REDSCAN_INT32) {
                        iacc += (uint32_t)int_at(off + i);
                        ok = (uint32_t)((int32_t *)chunk)[i] == iacc;
                    } else {
                        facc += (int64_t)float_at(off + i);
                        ok = ((float *)chunk)[i] == (float)facc;
                    }
                    if (!ok && bad++ < 3) CHECK(0, "%s scan: index %zu is wrong", name, off + i);
                }
            }
            CHECK(!bad, "%zu wrong elements", bad);
        }
    }
out:
    redscan_buffer_destroy(h_ctx, b);
    return 1;
}

int main(void)
{
    h_open("test_large");
    if (sizeof(size_t) < 8) {
        printf("SKIP: 32-bit size_t\n");
        redscan_destroy(h_ctx);
        return H_SKIP;
    }
    size_t sizes[8];
    int nsizes = 0;
    const char *env = getenv("REDSCAN_LARGE_SIZES");
    if (env && *env) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", env);
        for (char *tok = strtok(buf, ","); tok && nsizes < 8; tok = strtok(NULL, ","))
            sizes[nsizes++] = (size_t)strtoull(tok, NULL, 0);
    } else {
        sizes[nsizes++] = ((size_t)1 << 31) + 17;
    }
    void *chunk = h_malloc(CHUNK * 4);
    int ran = 0;
    for (int s = 0; s < nsizes; s++) {
        ran += run_size(sizes[s], REDSCAN_INT32, chunk);
        ran += run_size(sizes[s], REDSCAN_FLOAT32, chunk);
    }
    free(chunk);
    if (!ran) {
        printf("SKIP test_large: no size fits this device\n");
        redscan_destroy(h_ctx);
        return H_SKIP;
    }
    return h_done();
}
