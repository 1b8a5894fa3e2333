/* rbk_async_time: wall time of redscan_reduce_by_key (blocking) against redscan_reduce_by_key_async + synchronize on
 * any backend (PoCL included), the check that the _async form costs about what the blocking form does: before the
 * reduction kernels read the run count on the device, the _async form ran its levels over n padded segments and was
 * 500x slower on the H100 (docs/ALGORITHMS.md, "Reduce by key"). Prints times only; asserts nothing but the run
 * counts and that both forms give the same aggregates (bits).
 *
 *   cc -O2 -std=c11 -Iapi/include bench/rbk_async_time.c -o /tmp/rbk_async_time -Lbuild -lredscan \
 *      -Wl,-rpath,$PWD/build
 *   REDSCAN_BACKEND=opencl /tmp/rbk_async_time [log2 n (default 22)] [mean run length (default 1000)]
 *
 * int32 keys (run r has key r), float32 values, sum; the median of 5 timed calls after one untimed call. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "redscan.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define REPS 5
#define TRY(call)                                                                                                     \
    do {                                                                                                              \
        redscan_status st_ = (call);                                                                                  \
        if (st_ != REDSCAN_OK) {                                                                                      \
            fprintf(stderr, "rbk_async_time: %s: %s\n", #call, ctx ? redscan_last_error(ctx) : "");                   \
            return 1;                                                                                                 \
        }                                                                                                             \
    } while (0)

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? atoi(argv[1]) : 22;
    const size_t mean = argc > 2 ? (size_t)strtoull(argv[2], NULL, 0) : 1000;
    if (lg < 1 || lg > 30 || mean < 1) {
        fprintf(stderr, "usage: rbk_async_time [log2 n, 1..30] [mean run length >= 1]\n");
        return 2;
    }
    const size_t n = (size_t)1 << lg;
    int32_t *keys = malloc(n * 4);
    float *x = malloc(n * 4), *a1 = malloc(n * 4), *a2 = malloc(n * 4);
    if (!keys || !x || !a1 || !a2) return 1;
    /* run lengths uniform in [1, 2 mean - 1] from a fixed LCG: the same data every run */
    uint64_t s = 0x9e3779b97f4a7c15ull;
    size_t want_runs = 0;
    for (size_t i = 0; i < n; want_runs++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = 1 + (size_t)((s >> 33) % (2 * mean - 1));
        for (size_t j = 0; j < len && i < n; j++, i++) keys[i] = (int32_t)want_runs;
    }
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)((s >> 40) % 2001) / 1000.0f - 1.0f;
    }
    redscan_ctx *ctx = NULL;
    TRY(redscan_create(&ctx, REDSCAN_BACKEND_AUTO));
    redscan_buffer *bk, *bx, *buk, *bagg, *bruns;
    TRY(redscan_buffer_create(ctx, n * 4, &bk));
    TRY(redscan_buffer_create(ctx, n * 4, &bx));
    TRY(redscan_buffer_create(ctx, n * 4, &buk));
    TRY(redscan_buffer_create(ctx, n * 4, &bagg));
    TRY(redscan_buffer_create(ctx, 8, &bruns));
    TRY(redscan_buffer_write(ctx, bk, 0, keys, n * 4));
    TRY(redscan_buffer_write(ctx, bx, 0, x, n * 4));
    const redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_FLOAT32, (redscan_dtype)0, REDSCAN_REDUCE_AUTO, 0};
    double tb[REPS], ta[REPS];
    size_t runs = 0;
    uint64_t runs_async = 0;
    for (int r = -1; r < REPS; r++) { /* r = -1: untimed (program builds, scratch) */
        double t0 = now_ms();
        TRY(redscan_reduce_by_key(ctx, &d, REDSCAN_INT32, bk, bx, n, buk, bagg, &runs));
        double t1 = now_ms();
        if (r >= 0) tb[r] = t1 - t0;
    }
    TRY(redscan_buffer_read(ctx, bagg, 0, a1, runs * 4));
    for (int r = -1; r < REPS; r++) {
        double t0 = now_ms();
        TRY(redscan_reduce_by_key_async(ctx, &d, REDSCAN_INT32, bk, bx, n, buk, bagg, bruns));
        TRY(redscan_synchronize(ctx));
        double t1 = now_ms();
        if (r >= 0) ta[r] = t1 - t0;
    }
    TRY(redscan_buffer_read(ctx, bruns, 0, &runs_async, 8));
    TRY(redscan_buffer_read(ctx, bagg, 0, a2, runs * 4));
    qsort(tb, REPS, sizeof tb[0], cmp_d);
    qsort(ta, REPS, sizeof ta[0], cmp_d);
    const int same = runs == want_runs && runs_async == want_runs && !memcmp(a1, a2, runs * 4);
    printf("rbk_async_time: %s / %s, n = 2^%d, %zu runs (mean length %zu): blocking %.3f ms, _async %.3f ms "
           "(median of %d), ratio %.2f; run counts and aggregates %s\n",
           redscan_backend_name(ctx), redscan_device_name(ctx), lg, runs, mean, tb[REPS / 2], ta[REPS / 2], REPS,
           ta[REPS / 2] / tb[REPS / 2], same ? "agree" : "DIFFER");
    redscan_buffer_destroy(ctx, bk);
    redscan_buffer_destroy(ctx, bx);
    redscan_buffer_destroy(ctx, buk);
    redscan_buffer_destroy(ctx, bagg);
    redscan_buffer_destroy(ctx, bruns);
    redscan_destroy(ctx);
    free(keys);
    free(x);
    free(a1);
    free(a2);
    return same ? 0 : 1;
}
