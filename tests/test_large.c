/* test_large (label "large", excluded from the default run with `ctest -LE large`): 64-bit sizes.
 * One reduce (sum, plain and widened to int64) and one inclusive sum scan (in place) of 2^31 + 17 INT32
 * elements, checked exactly in chunks. Skipped (77) when the device cannot hold the buffer: the test only tries
 * redscan_buffer_create and skips on REDSCAN_ERR_OUT_OF_MEMORY. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CHUNK ((size_t)1 << 24)

static int32_t value_at(uint64_t i) { return (int32_t)((uint32_t)(i * 2654435761u) >> 24) - 100; }

int main(void)
{
    h_open("test_large");
    const size_t n = ((size_t)1 << 31) + 17;
    if (sizeof(size_t) < 8) {
        printf("SKIP: 32-bit size_t\n");
        return H_SKIP;
    }
    redscan_buffer *b = NULL;
    redscan_status st = redscan_buffer_create(h_ctx, n * 4, &b);
    if (st == REDSCAN_ERR_OUT_OF_MEMORY) {
        printf("SKIP test_large: the device cannot allocate %zu bytes: %s\n", n * 4, h_last_error());
        redscan_destroy(h_ctx);
        return H_SKIP;
    }
    h_case("large n=2^31+17 int32");
    if (!CHECK_OK(st, "redscan_buffer_create(8 GiB)")) return h_done();
    int32_t *chunk = (int32_t *)h_malloc(CHUNK * 4);
    uint32_t sum32 = 0;
    int64_t sum64 = 0;
    double t0 = h_now();
    for (size_t off = 0; off < n && st == REDSCAN_OK; off += CHUNK) {
        size_t m = n - off < CHUNK ? n - off : CHUNK;
        for (size_t i = 0; i < m; i++) {
            chunk[i] = value_at(off + i);
            sum32 += (uint32_t)chunk[i];
            sum64 += chunk[i];
        }
        st = redscan_buffer_write(h_ctx, b, off * 4, chunk, m * 4);
    }
    if (!CHECK_OK(st, "redscan_buffer_write")) return h_done();
    printf("upload: %.1f s\n", h_now() - t0);

    t0 = h_now();
    if (h_case("large reduce sum int32 n=2^31+17")) {
        int32_t r = 0;
        if (CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_INT32, b, n, &r), "redscan_reduce"))
            CHECK((uint32_t)r == sum32, "got %" PRId32 ", want %" PRId32, r, (int32_t)sum32);
        redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_REDUCE_AUTO, 0};
        int64_t r64 = 0;
        if (CHECK_OK(redscan_reduce_ex(h_ctx, &d, b, n, &r64), "redscan_reduce_ex int32->int64"))
            CHECK(r64 == sum64, "got %" PRId64 ", want %" PRId64, r64, sum64);
        d.op = REDSCAN_MAX;
        d.out_dtype = 0;
        int32_t mx = 0;
        /* the last element decides the max: a dropped tail shows */
        int32_t big = INT32_MAX;
        if (CHECK_OK(redscan_buffer_write(h_ctx, b, (n - 1) * 4, &big, 4), "write last")) {
            if (CHECK_OK(redscan_reduce_ex(h_ctx, &d, b, n, &mx), "reduce max")) CHECK(mx == INT32_MAX, "max %" PRId32, mx);
            int32_t orig = value_at(n - 1);
            redscan_buffer_write(h_ctx, b, (n - 1) * 4, &orig, 4);
        }
    }
    printf("reduce: %.1f s\n", h_now() - t0);

    t0 = h_now();
    if (h_case("large inclusive scan sum int32 in place n=2^31+17")) {
        st = redscan_scan(h_ctx, REDSCAN_SUM, REDSCAN_INT32, 0, b, b, n);
        if (CHECK_OK(st, "redscan_scan in place")) {
            printf("scan: %.1f s\n", h_now() - t0);
            uint32_t acc = 0;
            size_t bad = 0;
            for (size_t off = 0; off < n; off += CHUNK) {
                size_t m = n - off < CHUNK ? n - off : CHUNK;
                if (!CHECK_OK(redscan_buffer_read(h_ctx, b, off * 4, chunk, m * 4), "redscan_buffer_read")) break;
                for (size_t i = 0; i < m; i++) {
                    acc += (uint32_t)value_at(off + i);
                    if ((uint32_t)chunk[i] != acc && bad++ < 3)
                        CHECK(0, "index %zu: got %" PRId32 ", want %" PRId32, off + i, chunk[i], (int32_t)acc);
                }
            }
            CHECK(!bad, "%zu wrong elements", bad);
        }
    }
    free(chunk);
    redscan_buffer_destroy(h_ctx, b);
    return h_done();
}
