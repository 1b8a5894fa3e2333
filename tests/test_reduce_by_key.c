/* test_reduce_by_key: redscan_reduce_by_key and redscan_reduce_by_key_async (docs/SEMANTICS.md "Segments",
 * docs/ALGORITHMS.md "Reduce by key").
 *
 * The rule under test: a run is a maximal run of equal adjacent keys; run r gives unique_keys[r] = its key and
 * aggregates[r] = the bits of redscan_reduce_ex (COARSENED) of its slice alone; *num_runs = the run count R. So every
 * case checks the keys and R against a host loop, every aggregate against the host emulation of the coarsened order
 * (ref_reduce_emulate, reference.c) bit for bit, and a few against the device's own redscan_reduce_ex of the run's
 * slice. Each case runs the blocking form (R read back) and the _async form (R in a device word, the kernels stopping
 * at it); neither writes unique_keys or aggregates at R or past it (up to index n, one element more than asked).
 *
 *   key layouts   one run (all keys equal), all distinct (n runs of 1), random lengths with runs of 4095 / 4096 / 4097
 *                 and runs much longer than 4096 (two levels of partials; at level 2 a run of 2^24 + 5: three),
 *                 power-law lengths, and ~2.75M values in runs of up to 4000 (~336 tickets of byk_single, 4 tiles of
 *                 2048 each; with multi_pass many tiles per group of byk_count / byk_scatter)
 *   key values    steps that wrap in the key's width (equal keys come back, never adjacent), or runs whose keys
 *                 differ only in their top bits or their sign (a comparison of fewer bits would merge them)
 *   key types     int8, uint8, int16, uint16, int32, int64, uint64
 *   values        int32, float32, float64, int8, float16, with widenings int8 -> int32, float16 -> float32 and a
 *                 float16 output; sum, prod, min, max
 *   offsets       the runs' offsets by byk_single's slow path (REDSCAN_SINGLE_PASS_SPINS=0 / 1) and, on OpenCL, by
 *                 the three kernels of devices without 64-bit atomics (REDSCAN_SEGMENTED_SCAN_PATH=multi_pass)
 *   errors        every host check (status, a message naming the argument, outputs and *num_runs untouched), the
 *                 offsets' knobs' bad values (and multi_pass on CUDA), n = 0, and a small hand-computed case afterwards
 * Level 0 keeps the sizes small: PoCL compiles one program per (dtype, out dtype, op), plus one for the keys. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#ifdef REDSCAN_TEST_FAULTS
#include "redscan_fault.h" /* fault-injection builds: the workspace case counts allocations */
#endif

#define SENTINEL 0xA5 /* h_buffer_with's fill when fill_dt is 0 */

static int g_have_fp64 = 1;

/* LAY_TILES (not among the LAY_COUNT that the loops rotate): one case of n >= big, many tiles of 2048 */
typedef enum { LAY_ONE = 0, LAY_DISTINCT, LAY_RANDOM, LAY_POWER, LAY_COUNT, LAY_TILES = LAY_COUNT } layout;
static const char *lay_name(layout l)
{
    static const char *names[] = {"one-run", "all-distinct", "random", "power-law", "many-tiles"};
    return names[l];
}

/* Run lengths (all >= 1) of a layout into len; returns the count. big: the long runs. */
static size_t make_runs(layout lay, h_rng *r, size_t *len, size_t cap, size_t big)
{
    size_t R = 0;
    switch (lay) {
    case LAY_ONE: len[R++] = big; break;
    case LAY_DISTINCT:
        while (R < cap) len[R++] = 1;
        break;
    case LAY_RANDOM: {
        static const size_t fixed[] = {1, 2, 3, 4095, 4096, 4097, 31, 32, 33, 1, 8191, 8192, 8193, 1};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) len[R++] = fixed[i];
        len[R++] = big; /* several chunks: a second level */
        while (R < 60) len[R++] = 1 + (size_t)h_rng_below(r, h_rng_below(r, 4) ? 40 : 9000);
        len[R++] = big / 3 + 7;
        len[R++] = 1;
        break;
    }
    case LAY_POWER: /* lengths ~ 1 / x^2: mostly short, a few long (about 2 sqrt(big) on average: cap / 8 runs) */
        while (R < cap / 8) {
            const double u = h_rng_unit(r);
            const double x = 1.0 / ((1.0 - u) * (1.0 - u));
            len[R++] = x > (double)big ? big : (size_t)x;
        }
        break;
    case LAY_TILES: /* up to big values (at most cap runs): 3 runs in 4 of 1 .. 4000, the others of 1 .. 3 */
        for (size_t n = 0; n < big && R < cap; n += len[R++])
            len[R] = h_rng_below(r, 4) ? 1 + (size_t)h_rng_below(r, 4000) : 1 + (size_t)h_rng_below(r, 3);
        break;
    default: break;
    }
    return R;
}

typedef enum { KEYS_STEP = 0, KEYS_HIGH } key_style;

/* The key of each run: different from the one before. STEP: +1..3, wrapping in the key's width. HIGH: the previous key
 * with one of its top three bits flipped (the sign bit of a signed type among them). Returned as bits, in a uint64. */
static void make_run_keys(key_style style, redscan_dtype kdt, h_rng *r, uint64_t *rk, size_t R)
{
    const unsigned bits = (unsigned)ref_size(kdt) * 8;
    const uint64_t mask = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    uint64_t k = h_rng_u64(r) & mask;
    for (size_t i = 0; i < R; i++) {
        rk[i] = k;
        if (style == KEYS_STEP)
            k = (k + 1 + h_rng_below(r, 3)) & mask;
        else
            k ^= (uint64_t)1 << (bits - 1 - (unsigned)h_rng_below(r, 3));
    }
}

static void store_key(redscan_dtype kdt, void *dst, size_t i, uint64_t bits)
{
    const size_t ks = ref_size(kdt);
    unsigned char *p = (unsigned char *)dst + i * ks;
    if (ks == 1) *p = (unsigned char)bits;
    if (ks == 2) {
        const uint16_t v = (uint16_t)bits;
        memcpy(p, &v, 2);
    }
    if (ks == 4) {
        const uint32_t v = (uint32_t)bits;
        memcpy(p, &v, 4);
    }
    if (ks == 8) memcpy(p, &bits, 8);
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

/* ---------------------------------------------------------------- the cases */

typedef struct {
    redscan_op op;
    redscan_dtype dt, odt, kdt;
    layout lay;
    key_style style;
    size_t cap, big;
    int device_checks;
} rbk_case;

/* The outputs of one call (blocking or _async) against the expectations. */
static void check_outputs(const rbk_case *c, int async, const unsigned char *x, const size_t *len,
                          const uint64_t *rk, size_t R, size_t n, redscan_buffer *uk, redscan_buffer *agg,
                          uint64_t got_runs)
{
    const size_t ks = ref_size(c->kdt), os = ref_size(c->odt);
    const char *form = async ? "async" : "blocking";
    unsigned char *gk = (unsigned char *)h_malloc((n + 1) * ks), *ga = (unsigned char *)h_malloc((n + 1) * os);
    if (!CHECK(got_runs == R, "%s: num_runs %" PRIu64 ", want %zu", form, got_runs, R) ||
        !CHECK_OK(redscan_buffer_read(h_ctx, uk, 0, gk, (n + 1) * ks), "read unique_keys") ||
        !CHECK_OK(redscan_buffer_read(h_ctx, agg, 0, ga, (n + 1) * os), "read aggregates")) {
        free(gk);
        free(ga);
        return;
    }
    unsigned char *wk = (unsigned char *)h_malloc(R * ks);
    for (size_t i = 0; i < R; i++) store_key(c->kdt, wk, i, rk[i]);
    CHECK_MEM(gk, wk, R * ks, "unique_keys");
    size_t bad = 0, at = 0;
    const size_t es = ref_size(c->dt);
    for (size_t i = 0; i < R; i++) {
        const ref_val w = ref_reduce_emulate(REDSCAN_REDUCE_COARSENED, c->op, c->dt, c->odt, x + at * es, len[i]);
        const ref_val g = ref_load(c->odt, ga, i);
        if (!ref_result_equal(c->op, c->odt, g, w) && bad++ < 5) {
            char gs[96], ws[96];
            CHECK(0, "%s: run %zu (at %zu, length %zu): got %s, want %s", form, i, at, len[i], h_fmt(c->odt, g, gs),
                  h_fmt(c->odt, w, ws));
        }
        at += len[i];
    }
    CHECK(bad == 0, "%s: %zu aggregates differ", form, bad);
    /* past R: nothing written by either form (the _async form's kernels read R on the device and stop there) */
    CHECK(all_bytes(ga + R * os, (n + 1 - R) * os, SENTINEL), "%s: aggregates past num_runs were written", form);
    CHECK(all_bytes(gk + R * ks, (n + 1 - R) * ks, SENTINEL), "%s: unique_keys past num_runs were written", form);
    /* the device's own reduction of a few runs' slices: the same bits (the first and last runs among them) */
    if (!async)
        for (int k = 0; k < c->device_checks; k++) {
            const size_t i = k == 0 ? 0 : k == 1 ? R - 1 : R / 2;
            size_t start = 0;
            for (size_t j = 0; j < i; j++) start += len[j];
            redscan_buffer *slice = h_buffer_with(x + start * es, len[i] * es, len[i] * es, c->dt, ref_zero());
            if (!slice) break;
            redscan_reduce_desc d = {c->op, c->dt, c->odt == c->dt ? (redscan_dtype)0 : c->odt,
                                     REDSCAN_REDUCE_COARSENED, 0};
            ref_val dv = ref_zero();
            if (CHECK_OK(redscan_reduce_ex(h_ctx, &d, slice, len[i], &dv), "redscan_reduce_ex (run slice)")) {
                const ref_val g = ref_load(c->odt, ga, i);
                char gs[96], ws[96];
                CHECK(ref_result_equal(c->op, c->odt, g, dv), "run %zu (length %zu): got %s, redscan_reduce_ex %s", i,
                      len[i], h_fmt(c->odt, g, gs), h_fmt(c->odt, dv, ws));
            }
            redscan_buffer_destroy(h_ctx, slice);
        }
    free(wk);
    free(gk);
    free(ga);
}

static void run_case(const rbk_case *c)
{
    const uint64_t seed = h_seed(53, (uint64_t)c->op, (uint64_t)c->dt, (uint64_t)c->odt, (uint64_t)c->kdt,
                                 (uint64_t)c->lay * 4 + (uint64_t)c->style);
    if (!h_case("reduce_by_key %s %s->%s keys=%s %s %s seed=0x%" PRIx64, ref_op_str(c->op), ref_dtype_str(c->dt),
                ref_dtype_str(c->odt), ref_dtype_str(c->kdt), lay_name(c->lay),
                c->style == KEYS_HIGH ? "high-bit keys" : "stepped keys", seed))
        return;
    h_rng r;
    h_rng_init(&r, seed);
    size_t *len = (size_t *)h_malloc((c->cap + 64) * sizeof *len);
    const size_t R = make_runs(c->lay, &r, len, c->cap, c->big);
    uint64_t *rk = (uint64_t *)h_malloc(R * sizeof *rk);
    make_run_keys(c->style, c->kdt, &r, rk, R);
    size_t n = 0;
    for (size_t i = 0; i < R; i++) n += len[i];
    const size_t es = ref_size(c->dt), ks = ref_size(c->kdt), os = ref_size(c->odt);
    unsigned char *x = (unsigned char *)h_malloc(n * es), *keys = (unsigned char *)h_malloc(n * ks);
    h_generate(&r, c->dt, c->op, (h_gen)h_rng_below(&r, (uint64_t)h_gen_count(c->dt)), x, n);
    for (size_t i = 0, at = 0; i < R; i++)
        for (size_t j = 0; j < len[i]; j++) store_key(c->kdt, keys, at++, rk[i]);

    /* inputs with one more element (poison / a key that would start a run if read); outputs with one more, 0xA5 */
    redscan_buffer *in = h_buffer_with(x, n * es, (n + 1) * es, c->dt, h_poison(c->op, c->dt));
    redscan_buffer *kb = h_buffer_with(keys, n * ks, (n + 1) * ks, (redscan_dtype)0, ref_zero());
    redscan_buffer *uk = h_buffer_with(NULL, 0, (n + 1) * ks, (redscan_dtype)0, ref_zero());
    redscan_buffer *agg = h_buffer_with(NULL, 0, (n + 1) * os, (redscan_dtype)0, ref_zero());
    redscan_buffer *nr = h_buffer_with(NULL, 0, 8, (redscan_dtype)0, ref_zero());
    redscan_reduce_desc d = {c->op, c->dt, c->odt == c->dt ? (redscan_dtype)0 : c->odt, REDSCAN_REDUCE_AUTO, 0};
    if (in && kb && uk && agg && nr) {
        size_t got = (size_t)-1;
        if (CHECK_OK(redscan_reduce_by_key(h_ctx, &d, c->kdt, kb, in, n, uk, agg, &got), "redscan_reduce_by_key"))
            check_outputs(c, 0, x, len, rk, R, n, uk, agg, got);
        /* the _async form into fresh outputs */
        unsigned char *fill = (unsigned char *)h_malloc((n + 1) * (ks > os ? ks : os));
        memset(fill, SENTINEL, (n + 1) * (ks > os ? ks : os));
        uint64_t runs = 0;
        if (CHECK_OK(redscan_buffer_write(h_ctx, uk, 0, fill, (n + 1) * ks), "reset unique_keys") &&
            CHECK_OK(redscan_buffer_write(h_ctx, agg, 0, fill, (n + 1) * os), "reset aggregates") &&
            CHECK_OK(redscan_reduce_by_key_async(h_ctx, &d, c->kdt, kb, in, n, uk, agg, nr),
                     "redscan_reduce_by_key_async") &&
            CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize") &&
            CHECK_OK(redscan_buffer_read(h_ctx, nr, 0, &runs, 8), "read num_runs"))
            check_outputs(c, 1, x, len, rk, R, n, uk, agg, runs);
        free(fill);
    }
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, kb);
    redscan_buffer_destroy(h_ctx, uk);
    redscan_buffer_destroy(h_ctx, agg);
    redscan_buffer_destroy(h_ctx, nr);
    free(x);
    free(keys);
    free(rk);
    free(len);
}

/* ---------------------------------------------------------------- errors */

static void expect(redscan_status st, redscan_status want, const char *what, const char *words)
{
    if (CHECK_STATUS(st, want, what) && words)
        CHECK(h_names_any(h_last_error(), words), "%s: message \"%s\" does not name %s", what, h_last_error(), words);
}

static void check_untouched(redscan_buffer *b, size_t bytes, const char *what)
{
    unsigned char back[64];
    if (CHECK_OK(redscan_buffer_read(h_ctx, b, 0, back, bytes), "read"))
        CHECK(all_bytes(back, bytes, SENTINEL), "%s: an output was written", what);
}

static void errors(void)
{
    if (!h_case("reduce_by_key errors")) return;
    const size_t n = 8;
    const int16_t keys[8] = {1, 1, 2, 2, 2, 1, 3, 3};
    const int32_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    redscan_buffer *kb = h_buffer_with(keys, sizeof keys, sizeof keys, (redscan_dtype)0, ref_zero());
    redscan_buffer *in = h_buffer_with(x, sizeof x, sizeof x, (redscan_dtype)0, ref_zero());
    redscan_buffer *uk = h_buffer_with(NULL, 0, n * 2, (redscan_dtype)0, ref_zero());
    redscan_buffer *agg = h_buffer_with(NULL, 0, n * 4, (redscan_dtype)0, ref_zero());
    redscan_buffer *nr = h_buffer_with(NULL, 0, 8, (redscan_dtype)0, ref_zero());
    redscan_buffer *small_uk = h_buffer_with(NULL, 0, n * 2 - 1, (redscan_dtype)0, ref_zero());
    redscan_buffer *small_agg = h_buffer_with(NULL, 0, n * 4 - 1, (redscan_dtype)0, ref_zero());
    redscan_buffer *small_nr = h_buffer_with(NULL, 0, 4, (redscan_dtype)0, ref_zero());
    if (!kb || !in || !uk || !agg || !nr || !small_uk || !small_agg || !small_nr) return;
    const redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    const redscan_status BAD = REDSCAN_ERR_INVALID_ARGUMENT;
    const redscan_dtype K = REDSCAN_INT16;
    size_t runs = 12345;

    expect(redscan_reduce_by_key(NULL, &d, K, kb, in, n, uk, agg, &runs), BAD, "NULL ctx", NULL);
    expect(redscan_reduce_by_key(h_ctx, NULL, K, kb, in, n, uk, agg, &runs), BAD, "NULL desc", "desc");
    expect(redscan_reduce_by_key(h_ctx, &d, K, NULL, in, n, uk, agg, &runs), BAD, "NULL keys", "keys");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, NULL, n, uk, agg, &runs), BAD, "NULL in", "in");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, NULL, agg, &runs), BAD, "NULL unique_keys", "unique_keys");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, uk, NULL, &runs), BAD, "NULL aggregates", "aggregates");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, uk, agg, NULL), BAD, "NULL num_runs", "num_runs");
    expect(redscan_reduce_by_key(h_ctx, &d, REDSCAN_FLOAT32, kb, in, n, uk, agg, &runs), BAD, "float keys",
           "key_dtype");
    expect(redscan_reduce_by_key(h_ctx, &d, REDSCAN_BFLOAT16, kb, in, n, uk, agg, &runs), BAD, "bfloat16 keys",
           "key_dtype");
    expect(redscan_reduce_by_key(h_ctx, &d, (redscan_dtype)0, kb, in, n, uk, agg, &runs), BAD, "key dtype 0",
           "key_dtype");
    expect(redscan_reduce_by_key(h_ctx, &d, REDSCAN_INT32, kb, in, n, uk, agg, &runs), BAD, "keys shorter than n",
           "keys");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n + 1, uk, agg, &runs), BAD, "n past the inputs", "keys|in");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, small_uk, agg, &runs), BAD, "unique_keys too small",
           "unique_keys");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, uk, small_agg, &runs), BAD, "aggregates too small",
           "aggregates");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, kb, agg, &runs), BAD, "unique_keys is keys", "unique_keys");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, uk, in, &runs), BAD, "aggregates is in", "aggregates");
    expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, agg, agg, &runs), BAD, "aggregates is unique_keys",
           "aggregates");
    {
        redscan_reduce_desc e = d;
        e.op = (redscan_op)9;
        expect(redscan_reduce_by_key(h_ctx, &e, K, kb, in, n, uk, agg, &runs), BAD, "bad op", "op");
        e = d;
        e.dtype = (redscan_dtype)13;
        expect(redscan_reduce_by_key(h_ctx, &e, K, kb, in, n, uk, agg, &runs), BAD, "bad dtype", "dtype");
        e = d;
        e.out_dtype = REDSCAN_FLOAT64;
        expect(redscan_reduce_by_key(h_ctx, &e, K, kb, in, n, uk, agg, &runs), BAD, "bad out_dtype", "out_dtype");
        e = d;
        e.out_dtype = REDSCAN_INT64; /* a widening: aggregates (8 int32 = 32 bytes) holds 4 int64 only */
        expect(redscan_reduce_by_key(h_ctx, &e, K, kb, in, n, uk, agg, &runs), BAD, "widened aggregates too small",
               "aggregates");
        e = d;
        e.algo = REDSCAN_REDUCE_TREE;
        expect(redscan_reduce_by_key(h_ctx, &e, K, kb, in, n, uk, agg, &runs), REDSCAN_ERR_UNSUPPORTED, "algo tree",
               "coarsened");
        e = d;
        e.algo = (redscan_reduce_algo)77;
        expect(redscan_reduce_by_key(h_ctx, &e, K, kb, in, n, uk, agg, &runs), BAD, "algo 77", "algo");
        e = d;
        e.flags = 1;
        expect(redscan_reduce_by_key(h_ctx, &e, K, kb, in, n, uk, agg, &runs), BAD, "flags", "flags");
    }
    expect(redscan_reduce_by_key_async(h_ctx, &d, K, kb, in, n, uk, agg, NULL), BAD, "async NULL num_runs",
           "num_runs");
    expect(redscan_reduce_by_key_async(h_ctx, &d, K, kb, in, n, uk, agg, small_nr), BAD, "async num_runs too small",
           "num_runs");
    expect(redscan_reduce_by_key_async(h_ctx, &d, K, kb, in, n, uk, agg, agg), BAD, "async num_runs is aggregates",
           "num_runs");
    expect(redscan_reduce_by_key_async(h_ctx, &d, K, kb, in, n, uk, agg, kb), BAD, "async num_runs is keys",
           "num_runs");
    /* the offsets' testing knobs: a bad value is refused naming the variable; multi_pass is refused on CUDA (its
     * offsets have one path); nothing is written either way */
    {
        char *saved = h_env_swap("REDSCAN_SINGLE_PASS_SPINS", "many");
        expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, uk, agg, &runs), BAD, "REDSCAN_SINGLE_PASS_SPINS=many",
               "REDSCAN_SINGLE_PASS_SPINS");
        h_env_restore("REDSCAN_SINGLE_PASS_SPINS", saved);
        saved = h_env_swap("REDSCAN_SEGMENTED_SCAN_PATH", "bogus");
        expect(redscan_reduce_by_key_async(h_ctx, &d, K, kb, in, n, uk, agg, nr), BAD,
               "async REDSCAN_SEGMENTED_SCAN_PATH=bogus", "REDSCAN_SEGMENTED_SCAN_PATH");
        h_env_restore("REDSCAN_SEGMENTED_SCAN_PATH", saved);
        if (strcmp(redscan_backend_name(h_ctx), "cuda") == 0) {
            saved = h_env_swap("REDSCAN_SEGMENTED_SCAN_PATH", "multi_pass");
            expect(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, uk, agg, &runs), REDSCAN_ERR_UNSUPPORTED,
                   "multi_pass on CUDA", "REDSCAN_SEGMENTED_SCAN_PATH");
            h_env_restore("REDSCAN_SEGMENTED_SCAN_PATH", saved);
        }
    }
    CHECK(runs == 12345, "num_runs was written by a refused call (%zu)", runs);
    check_untouched(uk, n * 2, "host checks (unique_keys)");
    check_untouched(agg, n * 4, "host checks (aggregates)");
    check_untouched(nr, 8, "host checks (num_runs)");

    /* n = 0: no runs, nothing written (as redscan_scan_by_key accepts n = 0) */
    if (CHECK_OK(redscan_reduce_by_key(h_ctx, &d, K, kb, in, 0, uk, agg, &runs), "n = 0"))
        CHECK(runs == 0, "n = 0: num_runs %zu", runs);
    if (CHECK_OK(redscan_reduce_by_key_async(h_ctx, &d, K, kb, in, 0, uk, agg, nr), "async n = 0") &&
        CHECK_OK(redscan_synchronize(h_ctx), "synchronize")) {
        uint64_t r0 = 1;
        if (CHECK_OK(redscan_buffer_read(h_ctx, nr, 0, &r0, 8), "read num_runs"))
            CHECK(r0 == 0, "async n = 0: num_runs %" PRIu64, r0);
    }
    check_untouched(uk, n * 2, "n = 0 (unique_keys)");
    check_untouched(agg, n * 4, "n = 0 (aggregates)");

    /* the context works afterwards: a case small enough to compute by hand */
    int16_t gk[8];
    int32_t ga[8];
    static const int16_t want_k[4] = {1, 2, 1, 3};
    static const int32_t want_a[4] = {3, 12, 6, 15};
    if (CHECK_OK(redscan_reduce_by_key(h_ctx, &d, K, kb, in, n, uk, agg, &runs), "after errors") &&
        CHECK(runs == 4, "num_runs %zu, want 4", runs) &&
        CHECK_OK(redscan_buffer_read(h_ctx, uk, 0, gk, sizeof gk), "read") &&
        CHECK_OK(redscan_buffer_read(h_ctx, agg, 0, ga, sizeof ga), "read")) {
        CHECK_MEM(gk, want_k, sizeof want_k, "unique keys");
        CHECK_MEM(ga, want_a, sizeof want_a, "sums");
    }
    redscan_buffer_destroy(h_ctx, kb);
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, uk);
    redscan_buffer_destroy(h_ctx, agg);
    redscan_buffer_destroy(h_ctx, nr);
    redscan_buffer_destroy(h_ctx, small_uk);
    redscan_buffer_destroy(h_ctx, small_agg);
    redscan_buffer_destroy(h_ctx, small_nr);
}

/* ---------------------------------------------------------------- main */

/* After redscan_reserve(INT32, n) on a fresh context, the _async forms of reduce by key (runs of 1, 20, 3000 and
 * 9000 + values: every class of the segmented reduction, seg_short, seg_medium and seg_tiles) and of the segmented
 * reduction (2n segments, every other one empty) allocate nothing (fault-injection builds count it) and give the
 * host's int32 sums. */
#define WS_N 71684
static void workspace_case(void)
{
    if (!h_case("reduce_by_key_async / segmented_reduce_async workspace: reserve, then no allocation")) return;
    const size_t n = WS_N, S2 = 2 * (size_t)WS_N;
    redscan_ctx *c = NULL;
    if (!CHECK_OK(redscan_create(&c, REDSCAN_BACKEND_AUTO), "redscan_create")) return;
    int32_t *x = (int32_t *)h_malloc(n * 4), *keys = (int32_t *)h_malloc(n * 4), *got = (int32_t *)h_malloc(S2 * 4);
    int32_t *want = (int32_t *)h_malloc(S2 * 4);
    uint64_t *off = (uint64_t *)h_malloc((S2 + 1) * 8);
    h_rng r;
    h_rng_init(&r, h_seed(47, 0, 0, 0, 0, 0));
    h_generate(&r, REDSCAN_INT32, REDSCAN_SUM, GEN_PLAIN, x, n);
    size_t R = 0;
    for (size_t i = 0; i < n; R++) { /* runs of 1, 20, 3000 and 9000 in turn, the last one cut at n */
        static const size_t lens[4] = {1, 20, 3000, 9000};
        const size_t len = lens[R % 4] < n - i ? lens[R % 4] : n - i;
        for (size_t j = 0; j < len; j++) keys[i + j] = (int32_t)(R % 2);
        i += len;
    }
    for (size_t sg = 0; sg <= S2; sg++) off[sg] = sg / 2; /* segment 2i is empty, 2i + 1 is element i */
    redscan_buffer *in = NULL, *kb = NULL, *uk = NULL, *agg = NULL, *nr = NULL, *ob = NULL;
    int ok = CHECK_OK(redscan_reserve(c, REDSCAN_INT32, n), "redscan_reserve");
    ok = ok && CHECK_OK(redscan_buffer_create(c, n * 4, &in), "in") &&
         CHECK_OK(redscan_buffer_create(c, n * 4, &kb), "keys") &&
         CHECK_OK(redscan_buffer_create(c, n * 4, &uk), "unique_keys") &&
         CHECK_OK(redscan_buffer_create(c, S2 * 4, &agg), "aggregates") &&
         CHECK_OK(redscan_buffer_create(c, 8, &nr), "num_runs") &&
         CHECK_OK(redscan_buffer_create(c, (S2 + 1) * 8, &ob), "offsets");
    ok = ok && CHECK_OK(redscan_buffer_write(c, in, 0, x, n * 4), "write in") &&
         CHECK_OK(redscan_buffer_write(c, kb, 0, keys, n * 4), "write keys") &&
         CHECK_OK(redscan_buffer_write(c, ob, 0, off, (S2 + 1) * 8), "write offsets") &&
         CHECK_OK(redscan_synchronize(c), "synchronize");
    const redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    for (int pass = 0; ok && pass < 2; pass++) {
        static const char *const what[2] = {"reduce_by_key_async, runs of 1 .. 9000", "segmented_reduce_async, 2n"};
        const size_t count = pass == 0 ? R : S2;
        memset(got, 0xA5, S2 * 4); /* poisoned: every result must be written */
        if (!CHECK_OK(redscan_buffer_write(c, agg, 0, got, S2 * 4), "poison aggregates")) break;
#ifdef REDSCAN_TEST_FAULTS
        redscan_fault_arm(REDSCAN_FAULT_ALLOC, 0); /* count only */
#endif
        const redscan_status st = pass == 0 ? redscan_reduce_by_key_async(c, &d, REDSCAN_INT32, kb, in, n, uk, agg, nr)
                                            : redscan_segmented_reduce_async(c, &d, in, REDSCAN_UINT64, ob, S2, agg);
        if (!CHECK_OK(st, what[pass]) || !CHECK_OK(redscan_synchronize(c), "redscan_synchronize")) break;
#ifdef REDSCAN_TEST_FAULTS
        CHECK(redscan_fault_count(REDSCAN_FAULT_ALLOC) == 0, "%s after redscan_reserve: %" PRIu64 " allocations",
              what[pass], redscan_fault_count(REDSCAN_FAULT_ALLOC));
#endif
        memset(want, 0, count * 4);
        for (size_t i = 0, run = 0; i < n; i++) { /* int32 sums wrap: unsigned arithmetic, any order */
            if (pass == 0 && i > 0 && keys[i] != keys[i - 1]) run++;
            const size_t at = pass == 0 ? run : 2 * i + 1;
            want[at] = (int32_t)((uint32_t)want[at] + (uint32_t)x[i]);
        }
        if (CHECK_OK(redscan_buffer_read(c, agg, 0, got, count * 4), "read"))
            CHECK_ARRAY(REDSCAN_SUM, REDSCAN_INT32, got, want, count, what[pass]);
    }
    redscan_buffer *bs[] = {in, kb, uk, agg, nr, ob};
    for (int i = 0; i < 6; i++)
        if (bs[i]) redscan_buffer_destroy(c, bs[i]);
    redscan_destroy(c);
    free(x), free(keys), free(got), free(want), free(off);
}

int main(void)
{
    h_open("test_reduce_by_key");
    {
        double one = 1.0, r = 0;
        if (redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &r) == REDSCAN_ERR_UNSUPPORTED) {
            g_have_fp64 = 0;
            printf("note: the device has no fp64; FLOAT64 cases are skipped\n");
        }
    }
    const int L = h_level();
    double t0 = h_now();
    errors();
    workspace_case();
    printf("errors, workspace: %.1f s\n", h_now() - t0);

    /* sizes: `big` the long runs (two levels of partials at every level), cap the run count of the many-run layouts */
    const size_t big = L == 0 ? 70001 : L == 1 ? 300001 : 2000001, cap = L == 0 ? 3000 : L == 1 ? 20000 : 200000;
    /* (op, value type, output type, key type): every op, the five value types, the widenings and a float16 output,
     * the seven key types; each compiles a program (the int32 sum's is shared with the errors above) */
    static const struct {
        redscan_op op;
        redscan_dtype dt, odt, kdt;
    } combos[] = {
        {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_INT8},
        {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_UINT16},
        {REDSCAN_MAX, REDSCAN_FLOAT64, REDSCAN_FLOAT64, REDSCAN_INT64},
        {REDSCAN_SUM, REDSCAN_INT8, REDSCAN_INT32, REDSCAN_INT32},
        {REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT32, REDSCAN_UINT64},
        {REDSCAN_PROD, REDSCAN_FLOAT16, REDSCAN_FLOAT16, REDSCAN_INT16},
        {REDSCAN_MIN, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_UINT64},
        {REDSCAN_PROD, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_INT64},
        {REDSCAN_MAX, REDSCAN_INT8, REDSCAN_INT8, REDSCAN_UINT8},
    };
    t0 = h_now();
    for (size_t i = 0; i < sizeof combos / sizeof combos[0]; i++) {
        if (combos[i].dt == REDSCAN_FLOAT64 && !g_have_fp64) continue;
        /* a layout and a key style per combination, rotating; the float32 sum (i = 1) takes every layout and both
         * styles below */
        const rbk_case c = {combos[i].op, combos[i].dt, combos[i].odt, combos[i].kdt, (layout)(i % LAY_COUNT),
                            (key_style)(i % 2), cap, big, i % 3 == 0 ? 3 : 1};
        run_case(&c);
        if (L >= 1) { /* the other style on the random layout */
            rbk_case e = c;
            e.lay = LAY_RANDOM;
            e.style = (key_style)(1 - c.style);
            run_case(&e);
        }
    }
    printf("types x ops: %.1f s\n", h_now() - t0);

    /* every layout x key style on one program (float32 sum, uint16 keys), and high-bit keys of every key type on the
     * int32 sum (keys that differ only in their top bits or sign) */
    t0 = h_now();
    for (int lay = 0; lay < LAY_COUNT; lay++)
        for (int style = 0; style < 2; style++) {
            const rbk_case c = {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_UINT16, (layout)lay,
                                (key_style)style, cap, big, 2};
            run_case(&c);
        }
    static const redscan_dtype KEYS[] = {REDSCAN_INT8,  REDSCAN_UINT8, REDSCAN_INT16, REDSCAN_UINT16,
                                         REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64};
    for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++) {
        const rbk_case c = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, KEYS[k], LAY_POWER, KEYS_HIGH, cap / 4, big, 0};
        run_case(&c);
    }
    { /* about 2.75M values in ~1800 runs: ~1340 tiles of 2048 (~336 tickets of 4 tiles) with runs across tiles and
       * tickets, so byk_single's look-backs go back over many tickets' counts (on a GPU, hundreds of groups in
       * flight); with multi_pass (a device without
       * 64-bit atomics) each group of byk_count / byk_scatter a share of many tiles, and on a GPU more groups than
       * byk_prefix's 256 work-items */
        const rbk_case c = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_INT32, LAY_TILES, KEYS_STEP, 4000,
                            2750001, 0};
        run_case(&c);
    }
    /* The runs' offsets by their other paths, the same runs: byk_single's look-back with no poll of a slot (spins 0:
     * every ticket before a group's own recounted from the keys; ~37 tickets at level 0, more than a look-back
     * window of 32, ~74 above) or one (spins 1:
     * recounts mixed with published counts), and on OpenCL the three-kernel path of devices without 64-bit atomics
     * (REDSCAN_SEGMENTED_SCAN_PATH=multi_pass). */
    for (size_t m = 0; m < H_LOOKBACK_MODES; m++) {
        char *saved;
        if (!h_mode_enter(&h_lookback_modes[m], &saved)) continue;
        const rbk_case tiles = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_INT32, LAY_TILES, KEYS_STEP, 4000,
                                L == 0 ? 300001 : 600001, 0};
        run_case(&tiles);
        const rbk_case distinct = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_UINT8, LAY_DISTINCT, KEYS_STEP,
                                   L == 0 ? 20000 : 70000, big, 0}; /* 3 / 9 tickets, every key a head */
        run_case(&distinct);
        h_env_restore(h_lookback_modes[m].var, saved);
    }
    if (L >= 2) { /* a run of 2^24 + 5 values: three levels of partials */
        const rbk_case c = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_INT64, LAY_ONE, KEYS_HIGH, 1,
                            (1u << 24) + 5, 1};
        run_case(&c);
    }
    printf("layouts x keys: %.1f s\n", h_now() - t0);
    return h_done();
}
