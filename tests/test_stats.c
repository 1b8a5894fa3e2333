/* test_stats: mean, argmin/argmax and top-k, host and device-buffer forms.
 *
 *   mean     integers: accumulated in 64 bits with wrap-around, divided in double - exact, bit for bit;
 *            floats: float64 accumulation: within the bound of the coarsened reduction (or the algorithm forced
 *            by REDSCAN_REDUCE_ALGO) and bit for bit equal to its documented order / n
 *   argmin / argmax: planted ties (lowest index wins), planted NaNs with distinct payloads (first NaN wins, and
 *            value receives that NaN's bits), +-inf, -0.0 vs +0.0 ties (equal: lowest index), integer extremes,
 *            every element the worst value (-inf / the minimum for argmax: the one-pass lists' padding value);
 *            value pointer NULL and non-NULL; the poisoned tail of the device buffer (a value that would win)
 *            must not be read
 *   top-k    k = 1, 2, 3, 16, 100, 256 and k = n for small n, largest and smallest, data with many ties, NaNs,
 *            infinities and signed zeros, every element the lowest / highest value of the type (the padding value
 *            of the one-pass lists); indices NULL and non-NULL; values and indices exactly the reference's
 *            (the documented total order: NaN first, then by value, ties by lower index); nothing written past k
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const redscan_dtype DTYPES[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64,
                                       REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
static int g_have_fp64 = 1;

static ref_val num(redscan_dtype dt, double x)
{
    ref_val v = ref_zero();
    switch (dt) {
    case REDSCAN_INT32: v.i32 = (int32_t)x; break;
    case REDSCAN_UINT32: v.u32 = (uint32_t)x; break;
    case REDSCAN_INT64: v.i64 = (int64_t)x; break;
    case REDSCAN_UINT64: v.u64 = (uint64_t)x; break;
    case REDSCAN_FLOAT32: v.f32 = (float)x; break;
    default: v.f64 = x; break;
    }
    return v;
}

/* ---------------------------------------------------------------- mean */

static void mean_case(redscan_dtype dt, size_t n, h_gen gen)
{
    uint64_t seed = h_seed(3, (uint64_t)dt, n, (uint64_t)gen, 0, 0);
    if (!h_case("mean %s n=%zu gen=%s seed=0x%" PRIx64, ref_dtype_str(dt), n, h_gen_name(gen), seed)) return;
    const size_t es = ref_size(dt), pad = 1 + n % 13;
    h_rng r;
    h_rng_init(&r, seed);
    unsigned char *x = (unsigned char *)h_malloc((n + pad) * es);
    h_generate(&r, dt, REDSCAN_SUM, gen, x, n);
    h_fill(dt, x + n * es, pad, h_poison(REDSCAN_SUM, dt));
    redscan_reduce_algo algo = h_env_reduce_algo();
    double want = ref_mean_exact(algo, dt, x, n);
    /* float bound on the sum, then one rounding for the division */
    ref_ld_acc acc;
    ref_ld_init(&acc, REDSCAN_SUM);
    if (ref_is_float(dt))
        for (size_t i = 0; i < n; i++) {
            ref_val v = ref_load(dt, x, i);
            ref_ld_add(&acc, REDSCAN_SUM, ref_to_ld(dt, v), ref_isnan(dt, v));
        }
    for (int form = 0; form < 2; form++) {
        double got = -12345.0;
        redscan_status st;
        redscan_buffer *b = NULL;
        if (form == 0) {
            st = redscan_mean_host(h_ctx, dt, x, n, &got);
        } else {
            b = h_buffer_with(x, n * es, (n + pad) * es, dt, h_poison(REDSCAN_SUM, dt));
            if (!b) break;
            st = redscan_mean(h_ctx, dt, b, n, &got);
        }
        const char *what = form ? "redscan_mean" : "redscan_mean_host";
        if (CHECK_OK(st, what)) {
            ref_val g = {.f64 = got}, w = {.f64 = want};
            char gs[96], ws[96];
            if (!ref_is_float(dt)) {
                CHECK(ref_bits_equal(REDSCAN_FLOAT64, g, w), "%s: got %s, want %s", what,
                      h_fmt(REDSCAN_FLOAT64, g, gs), h_fmt(REDSCAN_FLOAT64, w, ws));
            } else {
                long double ref = ref_ld_value(&acc, REDSCAN_SUM);
                if (isnan(ref)) {
                    CHECK(isnan(got), "%s: got %.17g, want NaN", what, got);
                } else if (isinf(ref)) {
                    CHECK(got == (double)ref, "%s: got %.17g, want %Lg", what, got, ref);
                } else {
                    unsigned depth = ref_reduce_depth(algo == REDSCAN_REDUCE_AUTO ? REDSCAN_REDUCE_COARSENED : algo, n);
                    long double m = ref / (long double)n;
                    long double bound = (long double)depth * DBL_EPSILON * acc.abs_sum / (long double)n +
                                        DBL_EPSILON * fabsl(m);
                    CHECK(fabsl((long double)got - m) <= bound, "%s: got %.17g, reference %.17Lg, bound %.3Lg", what,
                          got, m, bound);
                }
                if (h_exact_order())
                    CHECK(ref_result_equal(REDSCAN_SUM, REDSCAN_FLOAT64, g, w),
                          "%s: got %s, documented order (%s sum in float64) / n gives %s", what,
                          h_fmt(REDSCAN_FLOAT64, g, gs), h_algo_str(algo ? algo : REDSCAN_REDUCE_COARSENED),
                          h_fmt(REDSCAN_FLOAT64, w, ws));
            }
        }
        if (b) {
            unsigned char *back = (unsigned char *)h_malloc((n + pad) * es);
            if (CHECK_OK(redscan_buffer_read(h_ctx, b, 0, back, (n + pad) * es), "redscan_buffer_read"))
                CHECK_MEM(back, x, (n + pad) * es, "input buffer after mean");
            free(back);
            redscan_buffer_destroy(h_ctx, b);
        }
    }
    free(x);
}

static void mean_literal(void)
{
    /* independent of the reference: small literal cases */
    if (h_case("mean literal int32")) {
        int32_t x[4] = {INT32_MAX, INT32_MAX, INT32_MAX, 1};
        double m = 0;
        if (CHECK_OK(redscan_mean_host(h_ctx, REDSCAN_INT32, x, 4, &m), "mean_host"))
            CHECK(m == (3.0 * INT32_MAX + 1.0) / 4.0, "got %.17g, want %.17g (64-bit accumulation)", m,
                  (3.0 * INT32_MAX + 1.0) / 4.0);
    }
    if (h_case("mean literal uint32")) {
        uint32_t x[3] = {UINT32_MAX, UINT32_MAX, 3};
        double m = 0;
        if (CHECK_OK(redscan_mean_host(h_ctx, REDSCAN_UINT32, x, 3, &m), "mean_host"))
            CHECK(m == (2.0 * UINT32_MAX + 3.0) / 3.0, "got %.17g", m);
    }
    if (h_case("mean literal float32 accumulates in float64")) {
        const size_t n = (1u << 24) + 2;
        float *x = (float *)h_malloc(n * 4);
        for (size_t i = 0; i < n; i++) x[i] = 1.0f;
        x[n - 1] = 3.0f;
        double m = 0;
        if (CHECK_OK(redscan_mean_host(h_ctx, REDSCAN_FLOAT32, x, n, &m), "mean_host"))
            CHECK(m == ((double)n + 2.0) / (double)n, "got %.17g, want %.17g", m, ((double)n + 2.0) / (double)n);
        free(x);
    }
}

/* ---------------------------------------------------------------- argmin / argmax */

enum { AP_RANDOM, AP_TIES, AP_NAN, AP_INF, AP_ZEROS, AP_WORST, AP_COUNT };
static const char *AP_NAMES[] = {"random", "ties", "nan", "inf", "zeros", "all-worst"};

/* The lowest (-inf, or the integer minimum) or highest value of the type. */
static ref_val extreme(redscan_dtype dt, int highest)
{
    if (ref_is_float(dt)) return num(dt, highest ? INFINITY : -INFINITY);
    return highest ? ref_type_max(dt) : ref_type_min(dt);
}

static void argext_data(h_rng *r, redscan_dtype dt, int want_max, int pattern, unsigned char *x, size_t n)
{
    const int isf = ref_is_float(dt);
    h_generate(r, dt, want_max ? REDSCAN_MAX : REDSCAN_MIN, pattern == AP_RANDOM ? GEN_EDGE : GEN_PLAIN, x, n);
    if (isf && pattern != AP_NAN) /* GEN_PLAIN/EDGE for min/max never make NaN, but be explicit */
        for (size_t i = 0; i < n; i++)
            if (ref_isnan(dt, ref_load(dt, x, i))) ref_store(dt, x, i, num(dt, 1.0));
    switch (pattern) {
    case AP_TIES: {
        /* the extreme value at several positions, one of them possibly 0 or n-1 */
        ref_val ext = want_max ? ref_type_max(dt) : ref_type_min(dt);
        if (isf) ext = num(dt, want_max ? 1e30 : -1e30);
        size_t count = 2 + (size_t)h_rng_below(r, 4);
        for (size_t c = 0; c < count; c++) ref_store(dt, x, (size_t)h_rng_below(r, n), ext);
        if (h_rng_below(r, 3) == 0) ref_store(dt, x, n - 1, ext);
        if (h_rng_below(r, 4) == 0) ref_store(dt, x, 0, ext);
        break;
    }
    case AP_NAN: {
        size_t count = 1 + (size_t)h_rng_below(r, 3);
        for (size_t c = 0; c < count; c++)
            ref_store(dt, x, (size_t)h_rng_below(r, n), h_nan(dt, (uint32_t)(c + 1) * 0x1111u, (int)(c & 1)));
        break;
    }
    case AP_INF: {
        size_t count = 1 + (size_t)h_rng_below(r, 3);
        for (size_t c = 0; c < count; c++)
            ref_store(dt, x, (size_t)h_rng_below(r, n), num(dt, (want_max ? 1.0 : -1.0) * INFINITY));
        ref_store(dt, x, (size_t)h_rng_below(r, n), num(dt, (want_max ? -1.0 : 1.0) * INFINITY));
        break;
    }
    case AP_WORST:
        /* every element the worst value there is (argmax: -inf / the minimum): the value the one-pass kernels'
         * lists start from as padding, so every element ties with the padding's value; index 0 must win */
        for (size_t i = 0; i < n; i++) ref_store(dt, x, i, extreme(dt, !want_max));
        break;
    case AP_ZEROS:
        /* argmin: values >= 0 with zeros of both signs; argmax: values <= 0 */
        for (size_t i = 0; i < n; i++) {
            uint64_t k = h_rng_below(r, 4);
            double v = k == 0 ? 0.0 : k == 1 ? -0.0 : (double)(1 + h_rng_below(r, 100));
            if (want_max && v != 0) v = -v;
            ref_store(dt, x, i, num(dt, v));
        }
        break;
    default:
        break;
    }
}

static void argext_case(redscan_dtype dt, int want_max, size_t n, int pattern)
{
    const int isf = ref_is_float(dt);
    if (!isf && (pattern == AP_NAN || pattern == AP_INF || pattern == AP_ZEROS)) return;
    uint64_t seed = h_seed(4, (uint64_t)dt, (uint64_t)want_max, n, (uint64_t)pattern, 0);
    const char *fn = want_max ? "argmax" : "argmin";
    if (!h_case("%s %s n=%zu data=%s seed=0x%" PRIx64, fn, ref_dtype_str(dt), n, AP_NAMES[pattern], seed)) return;
    const size_t es = ref_size(dt), pad = 1 + n % 29;
    h_rng r;
    h_rng_init(&r, seed);
    unsigned char *x = (unsigned char *)h_malloc((n + pad) * es);
    argext_data(&r, dt, want_max, pattern, x, n);
    /* poison: a value that would win if read */
    ref_val poison = isf ? h_nan(dt, 0xbad, 1) : want_max ? ref_type_max(dt) : ref_type_min(dt);
    h_fill(dt, x + n * es, pad, poison);
    uint64_t want = ref_argext(dt, want_max, x, n);
    ref_val wantv = ref_load(dt, x, want);
    redscan_buffer *b = h_buffer_with(x, n * es, (n + pad) * es, dt, poison);
    for (int form = 0; form < 2; form++) {
        for (int with_value = 0; with_value < 2; with_value++) {
            if (form == 1 && !b) continue;
            uint64_t idx = UINT64_MAX;
            unsigned char val[16];
            memset(val, 0xA5, sizeof val);
            redscan_status st;
            void *vp = with_value ? val : NULL;
            if (form == 0) st = want_max ? redscan_argmax_host(h_ctx, dt, x, n, &idx, vp) : redscan_argmin_host(h_ctx, dt, x, n, &idx, vp);
            else st = want_max ? redscan_argmax(h_ctx, dt, b, n, &idx, vp) : redscan_argmin(h_ctx, dt, b, n, &idx, vp);
            char what[64];
            snprintf(what, sizeof what, "%s%s value=%s", fn, form ? "" : "_host", with_value ? "ptr" : "NULL");
            if (!CHECK_OK(st, what)) continue;
            char gs[96], ws[96];
            CHECK(idx == want, "%s: index %" PRIu64 " (value %s), want %" PRIu64 " (value %s)", what, idx,
                  idx < n ? h_fmt(dt, ref_load(dt, x, idx), gs) : "out of range", want, h_fmt(dt, wantv, ws));
            if (with_value) {
                ref_val g = ref_load(dt, val, 0);
                CHECK(ref_bits_equal(dt, g, wantv), "%s: value %s, want %s", what, h_fmt(dt, g, gs), h_fmt(dt, wantv, ws));
                unsigned char sent[16];
                memset(sent, 0xA5, 16);
                CHECK(memcmp(val + es, sent, 16 - es) == 0, "%s wrote past the value", what);
            }
        }
    }
    if (b) {
        unsigned char *back = (unsigned char *)h_malloc((n + pad) * es);
        if (CHECK_OK(redscan_buffer_read(h_ctx, b, 0, back, (n + pad) * es), "redscan_buffer_read"))
            CHECK_MEM(back, x, (n + pad) * es, "input buffer after argmin/argmax");
        free(back);
        redscan_buffer_destroy(h_ctx, b);
    }
    free(x);
}

/* ---------------------------------------------------------------- top-k */

enum { TP_TIES, TP_RANDOM, TP_NAN, TP_SPECIAL, TP_LOWEST, TP_HIGHEST, TP_COUNT };
static const char *TP_NAMES[] = {"ties", "random", "nan", "inf+zeros", "all-lowest", "all-highest"};

static void topk_data(h_rng *r, redscan_dtype dt, int pattern, unsigned char *x, size_t n)
{
    const int isf = ref_is_float(dt);
    if (pattern == TP_LOWEST || pattern == TP_HIGHEST) {
        /* every element the type's lowest (highest) value: the padding value of the one-pass lists for largest
         * (smallest), so every element ties with it; the first k indices must come back */
        for (size_t i = 0; i < n; i++) ref_store(dt, x, i, extreme(dt, pattern == TP_HIGHEST));
        return;
    }
    for (size_t i = 0; i < n; i++) {
        ref_val v;
        if (pattern == TP_RANDOM) {
            v = ref_zero();
            v.u64 = h_rng_u64(r);
            if (ref_size(dt) == 4) v.b[4] = v.b[5] = v.b[6] = v.b[7] = 0;
            if (isf) v = num(dt, (h_rng_unit(r) - 0.5) * 1e6);
        } else {
            /* a small set of values: many ties */
            int64_t k = (int64_t)h_rng_below(r, 24) - 12;
            if (!ref_is_signed(dt) && !isf) k += 12;
            v = isf ? num(dt, 0.5 * (double)k) : num(dt, (double)k);
            if (isf && k == 0 && (h_rng_u64(r) & 1)) v = num(dt, -0.0);
        }
        ref_store(dt, x, i, v);
    }
    if (!isf) {
        if (pattern != TP_RANDOM && n > 4) {
            ref_store(dt, x, (size_t)h_rng_below(r, n), ref_type_max(dt));
            ref_store(dt, x, (size_t)h_rng_below(r, n), ref_type_min(dt));
        }
        return;
    }
    if (pattern == TP_NAN) {
        size_t count = 1 + (size_t)h_rng_below(r, n < 300 ? 3 : 40);
        for (size_t c = 0; c < count; c++)
            ref_store(dt, x, (size_t)h_rng_below(r, n), h_nan(dt, (uint32_t)(c + 1) * 0x101u, (int)(c % 3 == 1)));
    }
    if (pattern == TP_SPECIAL) {
        for (size_t c = 0; c < 3; c++) {
            ref_store(dt, x, (size_t)h_rng_below(r, n), num(dt, INFINITY));
            ref_store(dt, x, (size_t)h_rng_below(r, n), num(dt, -INFINITY));
            ref_store(dt, x, (size_t)h_rng_below(r, n), num(dt, -0.0));
            ref_store(dt, x, (size_t)h_rng_below(r, n), num(dt, 0.0));
        }
    }
}

static void topk_case(redscan_dtype dt, size_t n, int pattern, const size_t *ks, size_t nk, int device)
{
    const int isf = ref_is_float(dt);
    if (!isf && (pattern == TP_NAN || pattern == TP_SPECIAL)) return;
    uint64_t seed = h_seed(5, (uint64_t)dt, n, (uint64_t)pattern, 0, 0);
    const size_t es = ref_size(dt), pad = 1 + n % 31;
    h_rng r;
    h_rng_init(&r, seed);
    unsigned char *x = (unsigned char *)h_malloc((n + pad) * es);
    topk_data(&r, dt, pattern, x, n);
    redscan_buffer *b = NULL;
    for (int largest = 0; largest < 2; largest++) {
        ref_val poison = isf ? h_nan(dt, 0xbad, 0) : largest ? ref_type_max(dt) : ref_type_min(dt);
        h_fill(dt, x + n * es, pad, poison);
        if (device) {
            h_case("topk setup %s n=%zu", ref_dtype_str(dt), n);
            b = h_buffer_with(x, n * es, (n + pad) * es, dt, poison);
        }
        size_t kmax = 0;
        for (size_t i = 0; i < nk; i++) kmax = ks[i] > kmax ? ks[i] : kmax;
        unsigned char *wv = (unsigned char *)h_malloc(kmax * es);
        uint64_t *wi = (uint64_t *)h_malloc(kmax * sizeof *wi);
        ref_topk(dt, largest, x, n, kmax, wv, wi);
        unsigned char *gv = (unsigned char *)h_malloc((kmax + 4) * es);
        uint64_t *gi = (uint64_t *)h_malloc((kmax + 4) * sizeof *gi);
        for (size_t ki = 0; ki < nk; ki++) {
            size_t k = ks[ki];
            for (int with_idx = 0; with_idx < 2; with_idx++) {
                for (int form = 0; form < 1 + (device && b); form++) {
                    /* large n: one of the four (indices, form) variants per k, rotating */
                    if (n > 5000 && (unsigned)(with_idx * 2 + form) != (unsigned)(ki + (size_t)largest + (size_t)pattern) % 4u)
                        continue;
                    if (!h_case("topk %s %s n=%zu k=%zu data=%s indices=%s %s seed=0x%" PRIx64,
                                largest ? "largest" : "smallest", ref_dtype_str(dt), n, k, TP_NAMES[pattern],
                                with_idx ? "ptr" : "NULL", form ? "device" : "host", seed))
                        continue;
                    memset(gv, 0xA5, (kmax + 4) * es);
                    memset(gi, 0xA5, (kmax + 4) * sizeof *gi);
                    redscan_status st =
                        form ? redscan_topk(h_ctx, dt, b, n, k, largest, gv, with_idx ? gi : NULL)
                             : redscan_topk_host(h_ctx, dt, x, n, k, largest, gv, with_idx ? gi : NULL);
                    if (!CHECK_OK(st, form ? "redscan_topk" : "redscan_topk_host")) continue;
                    /* the reference's first k of its top-kmax are the top-k (a strict total order) */
                    CHECK_BITS(dt, gv, wv, k, "values");
                    if (with_idx) {
                        size_t bad = 0;
                        for (size_t i = 0; i < k; i++)
                            if (gi[i] != wi[i] && bad++ < 3) {
                                char a[96], c[96];
                                CHECK(0, "indices[%zu] = %" PRIu64 " (value %s), want %" PRIu64 " (value %s)", i, gi[i],
                                      gi[i] < n ? h_fmt(dt, ref_load(dt, x, gi[i]), a) : "out of range", wi[i],
                                      h_fmt(dt, ref_load(dt, x, wi[i]), c));
                            }
                        CHECK(!bad, "%zu of %zu indices differ", bad, k);
                        unsigned char sent[4 * 8];
                        memset(sent, 0xA5, sizeof sent);
                        CHECK(memcmp(gi + k, sent, 4 * sizeof *gi) == 0, "indices written past k");
                    }
                    unsigned char sent[4 * 8];
                    memset(sent, 0xA5, sizeof sent);
                    CHECK(memcmp(gv + k * es, sent, 4 * es) == 0, "values written past k");
                }
            }
        }
        if (b) {
            unsigned char *back = (unsigned char *)h_malloc((n + pad) * es);
            if (CHECK_OK(redscan_buffer_read(h_ctx, b, 0, back, (n + pad) * es), "redscan_buffer_read"))
                CHECK_MEM(back, x, (n + pad) * es, "input buffer after topk");
            free(back);
            redscan_buffer_destroy(h_ctx, b);
            b = NULL;
        }
        free(gv);
        free(gi);
        free(wv);
        free(wi);
    }
    free(x);
}

int main(void)
{
    h_open("test_stats");
    {
        double one = 1.0, r = 0;
        if (redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &r) == REDSCAN_ERR_UNSUPPORTED) {
            g_have_fp64 = 0;
            printf("note: the device has no fp64; FLOAT64 cases are skipped\n");
        }
    }
    const int L = h_level();
    double t0 = h_now();

    /* mean */
    mean_literal();
    static const size_t mean_sizes[] = {1, 2, 3, 255, 256, 257, 4095, 4096, 4097, 65537, (1u << 20) + 3};
    for (size_t di = 0; di < 6; di++) {
        if (DTYPES[di] == REDSCAN_FLOAT64 && !g_have_fp64) continue;
        int ng = h_gen_count(DTYPES[di]);
        for (size_t si = 0; si < sizeof mean_sizes / sizeof mean_sizes[0]; si++) {
            if (mean_sizes[si] < 5000 || L >= 2)
                for (int g = 0; g < ng; g++) mean_case(DTYPES[di], mean_sizes[si], (h_gen)g);
            else
                mean_case(DTYPES[di], mean_sizes[si], (h_gen)((si + di) % (size_t)ng));
        }
    }
    printf("mean: %.1f s\n", h_now() - t0);

    /* argmin / argmax */
    t0 = h_now();
    static const size_t arg_sizes[] = {1, 2, 3, 7, 255, 256, 257, 2047, 2048, 2049, 4097, 65537, (1u << 20) + 3};
    for (size_t di = 0; di < 6; di++) {
        if (DTYPES[di] == REDSCAN_FLOAT64 && !g_have_fp64) continue;
        for (int want_max = 0; want_max < 2; want_max++)
            for (size_t si = 0; si < sizeof arg_sizes / sizeof arg_sizes[0]; si++)
                for (int p = 0; p < AP_COUNT; p++) {
                    if (arg_sizes[si] > 100000 && L < 2 && (p + (int)di) % 3 != 0) continue;
                    argext_case(DTYPES[di], want_max, arg_sizes[si], p);
                }
    }
    printf("argmin/argmax: %.1f s\n", h_now() - t0);

    /* top-k */
    t0 = h_now();
    static const size_t topk_sizes[] = {1, 2, 3, 5, 16, 100, 255, 256, 257, 1000, 1023, 1024, 1025, 2049, 4096,
                                        5000, 65537, (1u << 20) + 3};
    for (size_t di = 0; di < 6; di++) {
        if (DTYPES[di] == REDSCAN_FLOAT64 && !g_have_fp64) continue;
        for (size_t si = 0; si < sizeof topk_sizes / sizeof topk_sizes[0]; si++) {
            size_t n = topk_sizes[si];
            static const size_t kall[] = {1, 2, 3, 16, 100, 256};
            size_t ks[8], nk = 0;
            for (size_t i = 0; i < 6; i++)
                if (kall[i] <= n) ks[nk++] = kall[i];
            if (n <= REDSCAN_TOPK_MAX && (nk == 0 || ks[nk - 1] != n)) ks[nk++] = n;
            for (int p = 0; p < TP_COUNT; p++) {
                if (n > 100000 && L < 2 && (p + (int)di) % 4 != 0) continue;
                topk_case(DTYPES[di], n, p, ks, nk, 1);
            }
        }
    }
    printf("top-k: %.1f s\n", h_now() - t0);
    return h_done();
}
