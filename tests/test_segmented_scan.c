/* test_segmented_scan: redscan_segmented_scan and its _async form (docs/SEMANTICS.md "Segmented scans",
 * docs/ALGORITHMS.md "Segmented scans").
 *
 * The rule under test: segment s = in[offsets[s] .. offsets[s+1]) is written to the same positions of out with the
 * bits of redscan_scan_ex (AUTO block and grid: coarsened, single_pass's order) of that slice alone, with the call's
 * exclusive and init (every segment starts at init). So every segment is checked bit for bit against the host
 * emulation ref_scan_emulate_single_pass (reference.c) of its slice, a few against the device's own redscan_scan_ex
 * (COARSENED x SINGLE_PASS) of the slice, and every element outside the segments must keep its poison.
 *
 *   ops x dtypes     every op x dtype (1..12), inclusive and exclusive with and without init, on a mixed layout
 *                    (empty, 1 .. 9, the chunk edges 2047 / 2048 / 2049, group edges 32 x 2048 +- 1, random); the
 *                    widenings on a rotating subset (all at level 2)
 *   layouts          one huge segment (several groups of 32 chunks: the chain), many empty, many one-element,
 *                    power-law and uniform lengths, short (every length 0 .. 40 many times and the edges of
 *                    the work division's classes: 8 / 9, rows of 256, 2048 / 2049), each with every offsets dtype;
 *                    CUDA's batches (batch-mix, short-pairs) and its warps of seg_scan_team (team-many) at their limits
 *   positions        one segment's content at several offsets among other segments: the same bits
 *   in place, async  in == out; the _async form with redscan_synchronize
 *   errors           host checks (status, message, nothing written) and the device checks (decreasing, negative,
 *                    past the end; blocking and _async)
 *   scan by key      every key dtype (int8 .. uint64), runs from the layouts above (keys that wrap, equal keys in
 *                    runs that are not adjacent), blocking / _async (R read on the device), in place, a widening;
 *                    its errors (keys shorter than n, float keys, out == keys, ...); the exact operators on both
 *                    paths (REDSCAN_SCAN_BY_KEY_PATH=one_pass and runs), the same bits
 *   workspace        the _async forms after redscan_reserve in a fresh context: scan by key with R << n and R = n,
 *                    a segmented scan over 2n segments; in fault-injection builds, no allocation (workspace_case)
 *   modes            the chunk path's look-back forced to its slow path (REDSCAN_SINGLE_PASS_SPINS=0 and 1) and
 *                    OpenCL's multi-pass path (REDSCAN_SEGMENTED_SCAN_PATH=multi_pass): the same bits, also for
 *                    the one-pass scan by key's and segmented scan's look-back; the knobs' bad values in `errors`
 *   exact paths      the segmented scan of the exact operators in one pass (REDSCAN_SEGMENTED_SCAN_PATH=one_pass)
 *                    and by the chunk path (single_pass) over every layout; the device checks on both */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#ifdef REDSCAN_TEST_FAULTS
#include "redscan_fault.h" /* fault-injection builds: the workspace case counts allocations */
#endif

static int g_have_fp64 = 1;
static int g_have_single_pass = 1;

static const redscan_dtype ALL_DTYPES[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64, REDSCAN_UINT64,
                                           REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_INT8,  REDSCAN_UINT8,
                                           REDSCAN_INT16,  REDSCAN_UINT16,  REDSCAN_FLOAT16, REDSCAN_BFLOAT16};
#define N_DTYPES (sizeof ALL_DTYPES / sizeof ALL_DTYPES[0])
static const redscan_dtype OFF_DTYPES[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64};
#define SENTINEL 0xA5

static int usable(redscan_dtype dt) { return dt != REDSCAN_FLOAT64 || g_have_fp64; }

/* the layouts from LAY_COUNT on are past the layouts loop: cases of their own */
typedef enum {
    LAY_MIXED = 0,
    LAY_HUGE,
    LAY_EMPTY,
    LAY_ONES,
    LAY_POWER,
    LAY_UNIFORM,
    LAY_SHORT,
    LAY_COUNT,
    LAY_BATCHES = LAY_COUNT,
    LAY_PAIRS,
    LAY_TEAMS
} layout;
static const char *lay_name(layout l)
{
    static const char *names[] = {"mixed",   "huge",  "many-empty", "many-ones",
                                  "power-law", "uniform", "short",     "batch-mix", "short-pairs", "team-many"};
    return names[l];
}

static size_t make_lengths(layout lay, h_rng *r, size_t *len, size_t cap, size_t big)
{
    size_t S = 0;
    switch (lay) {
    case LAY_MIXED: {
        static const size_t fixed[] = {0, 1, 2, 0, 3, 7, 8, 9, 2047, 2048, 2049, 0, 255, 256, 257, 4095, 4097, 0};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) len[S++] = fixed[i];
        len[S++] = big;
        while (S < 40) len[S++] = (size_t)h_rng_below(r, 5000);
        len[S++] = 0;
        break;
    }
    case LAY_HUGE: len[S++] = big; break;
    case LAY_EMPTY:
        while (S < cap) len[S++] = h_rng_below(r, 1000) == 0 ? (size_t)h_rng_below(r, 5000) : 0;
        break;
    case LAY_ONES:
        while (S < cap) len[S++] = 1;
        break;
    case LAY_POWER:
        while (S < cap / 16) {
            const double u = h_rng_unit(r);
            const double x = 1.0 / ((1.0 - u) * (1.0 - u));
            len[S++] = x > (double)big ? big : (size_t)x - 1;
        }
        break;
    case LAY_UNIFORM:
        /* about 45 % of 257 .. 2048 values: on CUDA a batch of 256 segments with more than 64 of those lists them for
         * seg_scan_team (the first batch), one with fewer scans them itself (the last, partial batch) */
        while (S < cap / 64) len[S++] = (size_t)h_rng_below(r, 2 * 2048 + 2);
        break;
    case LAY_SHORT: {
        /* the work division's classes (docs/ALGORITHMS.md, "Segmented scans"): one work-item up to 8 elements, a
         * team of 32 up to 2048 (rows of 256; on CUDA, groups of 2, 4, 8, 16 and 32 lanes up to 16, 32, 64, 128 and
         * 256), the chunk path beyond; every length 0 .. 40 many times (7 of 10 segments), 41 .. 300 (1 of 10) and
         * the classes' edges, in random order */
        static const size_t edge[] = {8,   9,   16,   17,   31,   32,   33,   63,   64,   65,   127,  128,
                                      129, 255, 256,  257,  263,  264,  265,  511,  512,  513,  1792, 1800,
                                      2040, 2041, 2047, 2048, 2049, 2055, 4095, 4096, 4097};
        const size_t E = sizeof edge / sizeof edge[0];
        /* first, four batches of 256 segments for CUDA's staging, two for each pool (4096 values, rounds of 3840:
         * 8-byte types; 6144, rounds of 5888: 4-byte types): 16 x 255 = 4080 values then 240 empty segments (a packed
         * batch, over one round's 3840 values but within the 4096 staged at once), 31 x 255 = 7905 values in rounds of
         * 3840, whose third round holds no segment start (an empty round), then 24 x 255 = 6120 (packed in the larger
         * pool, over its round of 5888) and 47 x 255 = 11985 (rounds of 5888, the third empty) */
        static const size_t full[4] = {16, 31, 24, 47};
        for (size_t k = 0; k < 4 * 256 && S < cap / 10; k++) len[S++] = k % 256 < full[k / 256] ? 255 : 0;
        while (S < cap / 10) {
            const unsigned pick = (unsigned)h_rng_below(r, 10);
            len[S++] = pick < 7   ? (size_t)h_rng_below(r, 41)
                       : pick < 8 ? 41 + (size_t)h_rng_below(r, 260)
                                  : edge[h_rng_below(r, E)];
        }
        break;
    }
    case LAY_BATCHES:
        /* batches of 256 segments of six kinds in random order, enough of them that every block of CUDA's
         * seg_scan_short takes several, so that each kind follows each other (a batch there fetches the next one's
         * offsets and reuses shared memory without a barrier of its own: docs/ALGORITHMS.md, "Segmented scans"):
         * one value each (packed); 0 .. 31 each (packed or not, about the 4096 values of a pool); a 300-value
         * segment among ones (not packed, few values); 17 each (4352 values: over the 4096-value pool of 8-byte
         * types, in rounds); empty; a 3000-value segment (the chunk path) among 0 .. 7; 25 each (6400 values: over
         * the 6144-value pool of 4-byte types) */
        while (S + 256 <= cap) {
            const unsigned kind = (unsigned)h_rng_below(r, 7);
            for (size_t j = 0; j < 256; j++)
                len[S++] = kind == 0   ? 1
                           : kind == 1 ? (size_t)h_rng_below(r, 32)
                           : kind == 2 ? (j == 100 ? 300 : 1)
                           : kind == 3 ? 17
                           : kind == 4 ? 0
                           : kind == 5 ? (j == 7 ? 3000 : (size_t)h_rng_below(r, 8))
                                       : 25;
        }
        break;
    case LAY_PAIRS: {
        /* batches of 512 segments for CUDA's seg_scan_short_pairs (float32 read and written as it is, the mean
         * segment at most 7 values: these kinds average about 4), one of each kind first, then kinds in random order,
         * enough at level 1 that every block of the kernel takes several: ones (packed); 455 x 9 values and a 1
         * (exactly the 4096 values of a pool, 455 entries for the groups of 2 lanes); 511 x 8 and a 9 (4097 values:
         * deferred, both halves to seg_scan_short); a 257-value segment among ones (deferred: seg_scan_team); 4 x 200,
         * 8 x 100, 12 x 50, 18 x 30 and 20 x 12 among 0 .. 2 (at most 3880 values: every lane-group class, 2 .. 32
         * lanes, in both halves); a 3000-value segment among 0 .. 3 (deferred: the chunk path). The last batch is
         * partial (37 or 293 segments: one half or two), with or without a 300-value segment (deferred). */
        size_t b = 0;
        while (S + 512 + 293 <= cap) {
            const unsigned pick = (unsigned)h_rng_below(r, 9);
            const unsigned kind = b < 5 ? (unsigned)b + 1 : pick < 4 ? 0 : pick - 3;
            for (size_t j = 0; j < 512; j++)
                len[S++] = kind == 0   ? 1
                           : kind == 1 ? (j < 455 ? 9 : j == 455 ? 1 : 0)
                           : kind == 2 ? (j < 511 ? 8 : 9)
                           : kind == 3 ? (j == 300 ? 257 : 1)
                           : kind == 4 ? (j % 128 == 5    ? 200
                                          : j % 64 == 20 ? 100
                                          : j % 13 == 7  ? (j / 13 % 2 ? 30 : 12)
                                          : j % 37 == 17 ? 50
                                                         : (size_t)h_rng_below(r, 3))
                                       : (j == 7 ? 3000 : (size_t)h_rng_below(r, 4));
            b++;
        }
        const size_t m = h_rng_below(r, 2) ? 37 : 293, with_long = (size_t)h_rng_below(r, 2);
        for (size_t j = 0; j < m; j++) len[S++] = with_long && j == m - 5 ? 300 : (size_t)h_rng_below(r, 3);
        break;
    }
    case LAY_TEAMS: {
        /* CUDA's seg_scan_team (a warp a segment of 257 .. 2048 values, each warp going on to the list's next entries
         * for it): the class's edges first, then lengths 257 .. 2048 at random, every fourth segment empty; at
         * level 1 three quarters of cap = 9600, more than twice the warps of it that the H100 or H200 holds (132 SMs x
         * 6 blocks x 4 warps = 3168), so that each warp takes two segments or three and reuses its shared memory */
        static const size_t edge[] = {257, 2048, 511, 512, 513, 2047, 258, 1024};
        const size_t E = sizeof edge / sizeof edge[0];
        for (size_t k = 0; k < cap; k++)
            len[S++] = k < E ? edge[k] : k % 4 == 3 ? 0 : 257 + (size_t)h_rng_below(r, 2048 - 257 + 1);
        break;
    }
    default: break;
    }
    return S;
}

static void store_offsets(redscan_dtype odt, void *dst, const uint64_t *off, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        ref_val v = ref_zero();
        v.u64 = off[i];
        if (odt == REDSCAN_INT32 || odt == REDSCAN_UINT32) v.u32 = (uint32_t)off[i];
        ref_store(odt, dst, i, v);
    }
}

static redscan_buffer *offsets_buffer(redscan_dtype odt, const uint64_t *off, size_t count)
{
    const size_t os = ref_size(odt);
    unsigned char *h = (unsigned char *)h_malloc(count * os);
    store_offsets(odt, h, off, count);
    redscan_buffer *b = h_buffer_with(h, count * os, count * os, (redscan_dtype)0, ref_zero());
    free(h);
    return b;
}

/* init: 0 = NULL, 1 = a generated value of the output type */
typedef struct {
    int exclusive, init, inplace, async, device_checks;
} opts;

/* One segmented scan over a layout; every segment against the emulation; positions outside the segments keep their
 * bytes. Returns nothing; failures are counted. */
static void scan_case(redscan_op op, redscan_dtype dt, redscan_dtype odt, layout lay, redscan_dtype offdt,
                      size_t cap, size_t big, opts o)
{
    const uint64_t seed = h_seed(43, (uint64_t)op, (uint64_t)dt, (uint64_t)odt, (uint64_t)lay,
                                 (uint64_t)offdt * 16 + (uint64_t)(o.exclusive * 4 + o.init * 2 + o.inplace));
    if (!h_case("segmented_scan %s %s->%s %s offsets=%s %s init=%s%s%s seed=0x%" PRIx64, ref_op_str(op),
                ref_dtype_str(dt), ref_dtype_str(odt), lay_name(lay), ref_dtype_str(offdt),
                o.exclusive ? "exclusive" : "inclusive", o.init ? "value" : "null", o.inplace ? " in-place" : "",
                o.async ? " async" : "", seed))
        return;
    h_rng r;
    h_rng_init(&r, seed);
    size_t *len = (size_t *)h_malloc((cap + 64) * sizeof *len);
    const size_t S = make_lengths(lay, &r, len, cap, big);
    uint64_t *off = (uint64_t *)h_malloc((S + 1) * sizeof *off);
    const size_t lead = (size_t)h_rng_below(&r, 7);
    off[0] = lead;
    for (size_t s = 0; s < S; s++) off[s + 1] = off[s] + len[s];
    const size_t n = (size_t)off[S], tail = 1 + (size_t)h_rng_below(&r, 9), total = n + tail;
    if (lay == LAY_PAIRS) /* CUDA's rs_ss_pairs_fit: input windows of 2048 counted whole */
        CHECK((total + 2047) / 2048 * 2048 <= 7 * (uint64_t)S, "short-pairs: %zu values over %zu segments", total, S);
    const size_t es = ref_size(dt), os = ref_size(odt);
    unsigned char *x = (unsigned char *)h_malloc(total * es);
    h_fill(dt, x, lead, h_poison(op, dt));
    h_gen gen = (h_gen)(h_rng_below(&r, (uint64_t)h_gen_count(dt)));
    if (lay == LAY_SHORT) gen = GEN_PLAIN; /* order-sensitive values (float sums round), no NaN to hide them */
    h_generate(&r, dt, op, gen, x + lead * es, n - lead);
    h_fill(dt, x + n * es, tail, h_poison(op, dt));
    unsigned char initv[8] = {0};
    if (o.init) h_generate(&r, odt, op, GEN_PLAIN, initv, 1);

    /* expected: the poison / sentinel everywhere, each segment's emulation at its place */
    unsigned char *want = (unsigned char *)h_malloc(total * os), *got = (unsigned char *)h_malloc(total * os);
    if (o.inplace)
        memcpy(want, x, total * os);
    else
        memset(want, SENTINEL, total * os);
    for (size_t s = 0; s < S; s++)
        if (len[s])
            ref_scan_emulate_single_pass(REDSCAN_BLOCK_COARSENED, op, dt, odt, o.exclusive, o.init ? initv : NULL,
                                         x + off[s] * es, want + off[s] * os, len[s]);

    redscan_buffer *in = h_buffer_with(x, total * es, total * es, dt, ref_zero());
    redscan_buffer *ob = offsets_buffer(offdt, off, S + 1);
    redscan_buffer *out = o.inplace ? in : h_buffer_with(NULL, 0, total * os, (redscan_dtype)0, ref_zero());
    if (in && ob && out) {
        redscan_scan_desc d = {op, dt, odt == dt ? (redscan_dtype)0 : odt, o.exclusive, o.init ? initv : NULL,
                               REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
        redscan_status st;
        if (o.async) {
            st = redscan_segmented_scan_async(h_ctx, &d, in, offdt, ob, S, out);
            if (st == REDSCAN_OK) st = redscan_synchronize(h_ctx);
        } else {
            st = redscan_segmented_scan(h_ctx, &d, in, offdt, ob, S, out);
        }
        if (CHECK_OK(st, "redscan_segmented_scan") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, total * os), "redscan_buffer_read")) {
            size_t bad = 0;
            size_t s = 0; /* the segment of element i, or S */
            for (size_t i = 0; i < total && bad < 5; i++) {
                while (s < S && off[s + 1] <= i) s++;
                const int inside = s < S && i >= off[s];
                /* inside: bit for bit but for NaN payloads of sums / products (ref_result_equal); outside: untouched */
                if (inside ? !ref_result_equal(op, odt, ref_load(odt, got, i), ref_load(odt, want, i))
                           : memcmp(got + i * os, want + i * os, os) != 0) {
                    char gs[96], ws[96];
                    CHECK(0, "element %zu (segment %zu, offset %" PRIu64 ", length %zu, position %" PRIu64
                             "): got %s, want %s",
                          i, s, s < S ? off[s] : 0, s < S ? len[s] : 0, s < S ? i - off[s] : 0,
                          h_fmt(odt, ref_load(odt, got, i), gs), h_fmt(odt, ref_load(odt, want, i), ws));
                    bad++;
                }
            }
            CHECK(bad == 0, "segments");
        }
        /* the device's own scan of a few slices (explicit coarsened x single_pass: the same order) */
        for (int k = 0; k < o.device_checks && S > 0 && g_have_single_pass && !o.inplace; k++) {
            size_t s = k == 0 ? S - 1 : (size_t)h_rng_below(&r, S);
            for (size_t t = 0; t < S && len[s] == 0; t++) s = (s + 1) % S;
            if (len[s] == 0) break;
            redscan_buffer *slice = h_buffer_with(x + off[s] * es, len[s] * es, len[s] * es, dt, ref_zero());
            redscan_buffer *so = h_buffer(len[s] * os);
            unsigned char *dv = (unsigned char *)h_malloc(len[s] * os);
            redscan_scan_desc c = {op, dt, odt == dt ? (redscan_dtype)0 : odt, o.exclusive, o.init ? initv : NULL,
                                   REDSCAN_BLOCK_COARSENED, REDSCAN_GRID_SINGLE_PASS, 0};
            st = slice && so ? redscan_scan_ex(h_ctx, &c, slice, so, len[s]) : REDSCAN_ERR_DEVICE;
            if (st == REDSCAN_ERR_UNSUPPORTED) {
                g_have_single_pass = 0;
            } else if (CHECK_OK(st, "redscan_scan_ex (slice)") &&
                       CHECK_OK(redscan_buffer_read(h_ctx, so, 0, dv, len[s] * os), "read")) {
                CHECK(memcmp(dv, got + off[s] * os, len[s] * os) == 0,
                      "segment %zu (length %zu): differs from redscan_scan_ex of the slice", s, len[s]);
            }
            free(dv);
            redscan_buffer_destroy(h_ctx, slice);
            redscan_buffer_destroy(h_ctx, so);
        }
    }
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, ob);
    if (!o.inplace) redscan_buffer_destroy(h_ctx, out);
    free(want);
    free(got);
    free(x);
    free(off);
    free(len);
}

/* One segment's content at several places among other segments: the same bits each time. */
static void position_case(redscan_op op, redscan_dtype dt)
{
    const uint64_t seed = h_seed(44, (uint64_t)op, (uint64_t)dt, 0, 0, 0);
    if (!h_case("segmented_scan position %s %s seed=0x%" PRIx64, ref_op_str(op), ref_dtype_str(dt), seed)) return;
    h_rng r;
    h_rng_init(&r, seed);
    const size_t L = 3 * 2048 + 77, es = ref_size(dt);
    unsigned char *seg = (unsigned char *)h_malloc(L * es), *first = (unsigned char *)h_malloc(L * es);
    h_generate(&r, dt, op, GEN_PLAIN, seg, L);
    static const size_t before[] = {0, 1, 2047, 2048, 5000, 12345};
    for (size_t p = 0; p < sizeof before / sizeof before[0]; p++) {
        const size_t pre = before[p], n = pre + L + 100;
        unsigned char *x = (unsigned char *)h_malloc(n * es);
        h_generate(&r, dt, op, GEN_PLAIN, x, n);
        memcpy(x + pre * es, seg, L * es);
        uint64_t off[4] = {0, pre / 2, pre, pre + L};
        redscan_buffer *in = h_buffer_with(x, n * es, n * es, dt, ref_zero());
        redscan_buffer *ob = offsets_buffer(REDSCAN_UINT64, off, 4);
        redscan_buffer *out = h_buffer(n * es);
        unsigned char *got = (unsigned char *)h_malloc(n * es);
        redscan_scan_desc d = {op, dt, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
        if (in && ob && out && CHECK_OK(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, 3, out), "scan") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, n * es), "read")) {
            if (p == 0)
                memcpy(first, got + pre * es, L * es);
            else
                CHECK(memcmp(first, got + pre * es, L * es) == 0, "the segment after %zu elements differs", pre);
        }
        redscan_buffer_destroy(h_ctx, in);
        redscan_buffer_destroy(h_ctx, ob);
        redscan_buffer_destroy(h_ctx, out);
        free(got);
        free(x);
    }
    free(seg);
    free(first);
}

static void expect(redscan_status st, redscan_status want, const char *what, const char *words)
{
    if (CHECK_STATUS(st, want, what) && words)
        CHECK(h_names_any(h_last_error(), words), "%s: message \"%s\" does not name %s", what, h_last_error(), words);
}

/* The device's checks of the offsets (decreasing, past the end, negative; blocking and _async) with
 * REDSCAN_SEGMENTED_SCAN_PATH=path: the status and message, and `out` (40 bytes of `fill`) left as it was. */
static void device_faults(const redscan_scan_desc *dp, redscan_buffer *in, redscan_buffer *ob, redscan_buffer *out,
                          const unsigned char *fill, const char *path)
{
    const size_t S = 4;
    const redscan_scan_desc d = *dp;
    const redscan_status BAD = REDSCAN_ERR_INVALID_ARGUMENT;
    unsigned char back[40];
    char *saved_path = h_env_swap("REDSCAN_SEGMENTED_SCAN_PATH", path);
    printf("device checks, REDSCAN_SEGMENTED_SCAN_PATH=%s\n", path);
    static const struct {
        uint64_t off[5];
        const char *words;
    } faulty[] = {{{0, 5, 2, 7, 10}, "decrease|offsets[1]"}, {{0, 2, 2, 7, 11}, "exceeds|offsets[4]"}};
    for (size_t f = 0; f < 2; f++)
        for (size_t o = 0; o < 4; o++) {
            redscan_buffer *fb = offsets_buffer(OFF_DTYPES[o], faulty[f].off, S + 1);
            expect(redscan_segmented_scan(h_ctx, &d, in, OFF_DTYPES[o], fb, S, out), BAD, "faulty offsets",
                   faulty[f].words);
            if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 40), "read"))
                CHECK_MEM(back, fill, 40, "faulty offsets: the output");
            redscan_buffer_destroy(h_ctx, fb);
        }
    {
        int32_t neg[5] = {-1, 2, 2, 7, 10};
        redscan_buffer *fb = h_buffer_with(neg, sizeof neg, sizeof neg, (redscan_dtype)0, ref_zero());
        expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_INT32, fb, S, out), BAD, "negative offset", "negative");
        redscan_buffer_destroy(h_ctx, fb);
        uint64_t bad_off[5] = {0, 2, 1, 7, 10};
        fb = offsets_buffer(REDSCAN_UINT64, bad_off, S + 1);
        expect(redscan_segmented_scan_async(h_ctx, &d, in, REDSCAN_UINT64, fb, S, out), REDSCAN_OK, "async faulty",
               NULL);
        expect(redscan_synchronize(h_ctx), BAD, "synchronize after async faulty offsets", "decrease|offsets[1]");
        expect(redscan_synchronize(h_ctx), REDSCAN_OK, "second synchronize", NULL);
        if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 40), "read"))
            CHECK_MEM(back, fill, 40, "async faulty offsets: the output");
        redscan_buffer_destroy(h_ctx, fb);
    }
    /* then good offsets, with the same buffers: the sums */
    int32_t got[10];
    static const int32_t want[10] = {1, 3, 3, 7, 12, 18, 25, 8, 17, 27};
    if (CHECK_OK(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, S, out), "after the faults") &&
        CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, sizeof got), "read"))
        CHECK_MEM(got, want, sizeof got, "sums after the faults");
    redscan_buffer_write(h_ctx, out, 0, fill, 40);
    h_env_restore("REDSCAN_SEGMENTED_SCAN_PATH", saved_path);
}

static void errors(void)
{
    if (!h_case("segmented_scan errors")) return;
    const size_t S = 4;
    int32_t x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    uint64_t off[5] = {0, 2, 2, 7, 10};
    unsigned char fill[80], back[80];
    memset(fill, SENTINEL, sizeof fill);
    redscan_buffer *in = h_buffer_with(x, sizeof x, sizeof x, (redscan_dtype)0, ref_zero());
    redscan_buffer *ob = offsets_buffer(REDSCAN_UINT64, off, S + 1);
    redscan_buffer *out = h_buffer(40), *small = h_buffer(39), *wide = h_buffer(80);
    if (!in || !ob || !out || !small || !wide) return;
    redscan_buffer_write(h_ctx, out, 0, fill, 40);
    redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    const redscan_status BAD = REDSCAN_ERR_INVALID_ARGUMENT;
    expect(redscan_segmented_scan(NULL, &d, in, REDSCAN_UINT64, ob, S, out), BAD, "NULL ctx", NULL);
    expect(redscan_segmented_scan(h_ctx, NULL, in, REDSCAN_UINT64, ob, S, out), BAD, "NULL desc", "desc");
    expect(redscan_segmented_scan(h_ctx, &d, NULL, REDSCAN_UINT64, ob, S, out), BAD, "NULL in", "in");
    expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, NULL, S, out), BAD, "NULL offsets", "offsets");
    expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, S, NULL), BAD, "NULL out", "out");
    expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_FLOAT64, ob, S, out), BAD, "offsets dtype", "offsets_dtype");
    expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, 0, out), BAD, "num_segments 0", "num_segments");
    expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, 5, out), BAD, "offsets too small", "offsets");
    expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, S, small), BAD, "out too small", "out");
    expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, S, ob), BAD, "out is offsets", "out");
    {
        redscan_scan_desc e = d;
        e.out_dtype = REDSCAN_INT64;
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "widened out too small", "out");
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, in), BAD, "widening in place", "same");
        e = d;
        e.exclusive = 2;
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "exclusive 2", "exclusive");
        e = d;
        e.block = REDSCAN_BLOCK_BRENT_KUNG;
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), REDSCAN_ERR_UNSUPPORTED,
               "block brent_kung", "coarsened");
        e = d;
        e.grid = REDSCAN_GRID_HIERARCHICAL;
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), REDSCAN_ERR_UNSUPPORTED,
               "grid hierarchical", "single_pass");
        e = d;
        e.grid = (redscan_grid_scan)9;
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "grid 9", "grid");
        e = d;
        e.op = (redscan_op)9;
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "op 9", "op");
        e = d;
        e.flags = 1;
        expect(redscan_segmented_scan(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "flags", "flags");
    }
    expect(redscan_segmented_scan_async(h_ctx, &d, in, REDSCAN_UINT64, ob, S, small), BAD, "async out too small",
           "out");
    if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 40), "read"))
        CHECK_MEM(back, fill, 40, "host checks: the output");
    /* the device's checks, on the chunk path and on the exact operators' one pass (int32 sums are exact: CUDA and
     * OpenCL GPUs take it by default, OpenCL CPU devices when asked) */
    for (int p = 0; p < 2; p++)
        device_faults(&d, in, ob, out, fill, p ? "one_pass" : "single_pass");
    /* the testing knobs: a bad value is refused naming the variable, before anything is written; multi_pass is
     * OpenCL's path only (CUDA: UNSUPPORTED) */
    static const char *const knobs[][2] = {{"REDSCAN_SEGMENTED_SCAN_PATH", "bogus"},
                                           {"REDSCAN_SINGLE_PASS_SPINS", "many"}};
    for (size_t k = 0; k < 2; k++) {
        char *saved = h_env_swap(knobs[k][0], knobs[k][1]);
        expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, S, out), BAD, knobs[k][0], knobs[k][0]);
        h_env_restore(knobs[k][0], saved);
        if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 40), "read"))
            CHECK_MEM(back, fill, 40, "bad knob: the output");
    }
    if (!strcmp(redscan_backend_name(h_ctx), "cuda")) {
        char *saved = h_env_swap("REDSCAN_SEGMENTED_SCAN_PATH", "multi_pass");
        expect(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, S, out), REDSCAN_ERR_UNSUPPORTED,
               "multi_pass on CUDA", "REDSCAN_SEGMENTED_SCAN_PATH");
        h_env_restore("REDSCAN_SEGMENTED_SCAN_PATH", saved);
        if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 40), "read"))
            CHECK_MEM(back, fill, 40, "multi_pass on CUDA: the output");
    }
    int32_t got[10];
    static const int32_t want[10] = {1, 3, 3, 7, 12, 18, 25, 8, 17, 27};
    if (CHECK_OK(redscan_segmented_scan(h_ctx, &d, in, REDSCAN_UINT64, ob, S, out), "after errors") &&
        CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, sizeof got), "read"))
        CHECK_MEM(got, want, sizeof got, "sums after errors");
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, ob);
    redscan_buffer_destroy(h_ctx, out);
    redscan_buffer_destroy(h_ctx, small);
    redscan_buffer_destroy(h_ctx, wide);
}

/* ---------------------------------------------------------------- scan by key */

static const redscan_dtype KEY_DTYPES[] = {REDSCAN_INT8,  REDSCAN_UINT8, REDSCAN_INT16, REDSCAN_UINT16,
                                           REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64};

/* Runs of a layout's non-zero lengths, each with a key that differs from the one before (steps of 1..3 that wrap in
 * the key's width, so equal keys come back in runs that are not adjacent); every run against the emulation of its
 * slice. */
static void bykey_case(redscan_op op, redscan_dtype dt, redscan_dtype odt, redscan_dtype kdt, layout lay, size_t cap,
                       size_t big, opts o)
{
    const uint64_t seed = h_seed(45, (uint64_t)op, (uint64_t)dt, (uint64_t)odt, (uint64_t)lay,
                                 (uint64_t)kdt * 16 + (uint64_t)(o.exclusive * 4 + o.init * 2 + o.inplace));
    if (!h_case("scan_by_key %s %s->%s %s keys=%s %s init=%s%s%s seed=0x%" PRIx64, ref_op_str(op), ref_dtype_str(dt),
                ref_dtype_str(odt), lay_name(lay), ref_dtype_str(kdt), o.exclusive ? "exclusive" : "inclusive",
                o.init ? "value" : "null", o.inplace ? " in-place" : "", o.async ? " async" : "", seed))
        return;
    h_rng r;
    h_rng_init(&r, seed);
    size_t *len = (size_t *)h_malloc((cap + 64) * sizeof *len);
    size_t R = make_lengths(lay, &r, len, cap, big), m = 0;
    for (size_t i = 0; i < R; i++)
        if (len[i]) len[m++] = len[i];
    R = m;
    if (R == 0) len[R++] = 1;
    size_t n = 0;
    for (size_t i = 0; i < R; i++) n += len[i];
    if (lay == LAY_PAIRS) /* the blocking form's runs: CUDA's rs_ss_pairs_fit */
        CHECK((n + 2047) / 2048 * 2048 <= 7 * (uint64_t)R, "short-pairs: %zu values over %zu runs", n, R);
    const size_t es = ref_size(dt), os = ref_size(odt), ks = ref_size(kdt);
    unsigned char *x = (unsigned char *)h_malloc(n * es + 8), *keys = (unsigned char *)h_malloc(n * ks + 8);
    const h_gen gen = (h_gen)(h_rng_below(&r, (uint64_t)h_gen_count(dt)));
    h_generate(&r, dt, op, gen, x, n);
    uint64_t k = h_rng_below(&r, 1000), at = 0;
    for (size_t i = 0; i < R; i++) {
        for (size_t j = 0; j < len[i]; j++, at++) {
            ref_val v = ref_zero();
            v.u64 = k;
            if (ks == 1) v.u8 = (uint8_t)k;
            if (ks == 2) v.u16 = (uint16_t)k;
            if (ks == 4) v.u32 = (uint32_t)k;
            ref_store(kdt, keys, at, v);
        }
        k += 1 + h_rng_below(&r, 3);
    }
    unsigned char initv[8] = {0};
    if (o.init) h_generate(&r, odt, op, GEN_PLAIN, initv, 1);
    unsigned char *want = (unsigned char *)h_malloc(n * os + 8), *got = (unsigned char *)h_malloc(n * os + 8);
    at = 0;
    for (size_t i = 0; i < R; i++) {
        ref_scan_emulate_single_pass(REDSCAN_BLOCK_COARSENED, op, dt, odt, o.exclusive, o.init ? initv : NULL,
                                     x + at * es, want + at * os, len[i]);
        at += len[i];
    }
    /* one more element in every buffer: poison past n, which nothing may read or write */
    redscan_buffer *in = h_buffer_with(x, n * es, (n + 1) * es, dt, h_poison(op, dt));
    redscan_buffer *kb = h_buffer_with(keys, n * ks, (n + 1) * ks, (redscan_dtype)0, ref_zero());
    redscan_buffer *out = o.inplace ? in : h_buffer_with(NULL, 0, (n + 1) * os, (redscan_dtype)0, ref_zero());
    if (in && kb && out) {
        redscan_scan_desc d = {op, dt, odt == dt ? (redscan_dtype)0 : odt, o.exclusive, o.init ? initv : NULL,
                               REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
        redscan_status st;
        if (o.async) {
            st = redscan_scan_by_key_async(h_ctx, &d, kdt, kb, in, out, n);
            if (st == REDSCAN_OK) st = redscan_synchronize(h_ctx);
        } else {
            st = redscan_scan_by_key(h_ctx, &d, kdt, kb, in, out, n);
        }
        if (CHECK_OK(st, "redscan_scan_by_key") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, (n + 1) * os), "redscan_buffer_read")) {
            CHECK_ARRAY(op, odt, got, want, n, "runs");
            if (!o.inplace) {
                int untouched = 1;
                for (size_t b = 0; b < os; b++) untouched &= got[n * os + b] == SENTINEL;
                CHECK(untouched, "out[n] was written");
            }
        }
    }
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, kb);
    if (!o.inplace) redscan_buffer_destroy(h_ctx, out);
    free(want);
    free(got);
    free(x);
    free(keys);
    free(len);
}

static void bykey_errors(void)
{
    if (!h_case("scan_by_key errors")) return;
    int32_t x[6] = {1, 2, 3, 4, 5, 6};
    int16_t keys[6] = {7, 7, 1, 1, 1, 7};
    unsigned char fill[24], back[24];
    memset(fill, SENTINEL, sizeof fill);
    redscan_buffer *in = h_buffer_with(x, sizeof x, sizeof x, (redscan_dtype)0, ref_zero());
    redscan_buffer *kb = h_buffer_with(keys, sizeof keys, sizeof keys, (redscan_dtype)0, ref_zero());
    redscan_buffer *out = h_buffer(24);
    if (!in || !kb || !out) return;
    redscan_buffer_write(h_ctx, out, 0, fill, 24);
    redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    const redscan_status BAD = REDSCAN_ERR_INVALID_ARGUMENT;
    expect(redscan_scan_by_key(NULL, &d, REDSCAN_INT16, kb, in, out, 6), BAD, "NULL ctx", NULL);
    expect(redscan_scan_by_key(h_ctx, NULL, REDSCAN_INT16, kb, in, out, 6), BAD, "NULL desc", "desc");
    expect(redscan_scan_by_key(h_ctx, &d, REDSCAN_INT16, NULL, in, out, 6), BAD, "NULL keys", "keys");
    expect(redscan_scan_by_key(h_ctx, &d, REDSCAN_FLOAT32, kb, in, out, 6), BAD, "float keys", "key_dtype");
    expect(redscan_scan_by_key(h_ctx, &d, REDSCAN_FLOAT16, kb, in, out, 6), BAD, "float16 keys", "key_dtype");
    expect(redscan_scan_by_key(h_ctx, &d, (redscan_dtype)0, kb, in, out, 6), BAD, "key dtype 0", "key_dtype");
    expect(redscan_scan_by_key(h_ctx, &d, REDSCAN_INT32, kb, in, out, 6), BAD, "keys shorter than n", "keys");
    expect(redscan_scan_by_key(h_ctx, &d, REDSCAN_INT16, kb, in, out, 7), BAD, "in shorter than n", "in|keys");
    expect(redscan_scan_by_key(h_ctx, &d, REDSCAN_INT16, kb, in, kb, 3), BAD, "out is keys", "keys");
    {
        redscan_scan_desc e = d;
        e.block = REDSCAN_BLOCK_KOGGE_STONE;
        expect(redscan_scan_by_key(h_ctx, &e, REDSCAN_INT16, kb, in, out, 6), REDSCAN_ERR_UNSUPPORTED, "block",
               "coarsened");
        e = d;
        e.out_dtype = REDSCAN_INT64;
        expect(redscan_scan_by_key(h_ctx, &e, REDSCAN_INT16, kb, in, in, 3), BAD, "widening in place", "same");
        expect(redscan_scan_by_key_async(h_ctx, &e, REDSCAN_INT16, kb, in, out, 6), BAD, "async widened out small",
               "out");
    }
    { /* the path knob: a bad value is refused naming the variable, whatever the op, before anything is written */
        char *saved = h_env_swap("REDSCAN_SCAN_BY_KEY_PATH", "fast");
        expect(redscan_scan_by_key(h_ctx, &d, REDSCAN_INT16, kb, in, out, 6), BAD, "bad path knob",
               "REDSCAN_SCAN_BY_KEY_PATH");
        redscan_scan_desc e = d;
        e.dtype = REDSCAN_FLOAT32; /* float sums always take the runs' path */
        expect(redscan_scan_by_key_async(h_ctx, &e, REDSCAN_INT16, kb, in, out, 6), BAD, "bad path knob, float sum",
               "REDSCAN_SCAN_BY_KEY_PATH");
        h_env_restore("REDSCAN_SCAN_BY_KEY_PATH", saved);
    }
    if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 24), "read")) CHECK_MEM(back, fill, 24, "the output");
    CHECK_OK(redscan_scan_by_key(h_ctx, &d, REDSCAN_INT16, kb, in, out, 0), "n = 0");
    if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 24), "read")) CHECK_MEM(back, fill, 24, "n = 0: the output");
    int32_t got[6];
    static const int32_t want[6] = {1, 3, 3, 7, 12, 6};
    if (CHECK_OK(redscan_scan_by_key(h_ctx, &d, REDSCAN_INT16, kb, in, out, 6), "valid") &&
        CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, sizeof got), "read"))
        CHECK_MEM(got, want, sizeof got, "sums by key");
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, kb);
    redscan_buffer_destroy(h_ctx, out);
}

/* ---------------------------------------------------------------- the workspace of the _async forms
 * redscan_scan_by_key_async does not know the run count R on the host: its kernels read R on the device and skip the
 * n - R segments past it, and the segmented scan's arrays are indexed by a chunk's position in the input, so they do
 * not grow with the segment count. A fresh context: redscan_reserve(INT32, n), then, each against the emulation of
 * every segment, scan by key _async with R = 4 (a run of 33 chunks: the chain, runs ending on chunk edges) and with
 * R = n (every key its own run), and segmented_scan_async over 2n segments (most of them empty). In fault-injection
 * builds (REDSCAN_TEST_FAULTS) none of those calls may allocate: reserve sized them all, whatever their segment count
 * (a workspace of n padded segments, or a reserve that skips these operations, fails there). */
#define WS_N (33 * 2048 + 4100)

/* want = every segment of offsets off[0 .. S] scanned alone (inclusive, SUM, INT32, init NULL) */
static void ws_emulate(const int32_t *x, const uint64_t *off, size_t S, int32_t *want)
{
    for (size_t s = 0; s < S; s++)
        ref_scan_emulate_single_pass(REDSCAN_BLOCK_COARSENED, REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 0, NULL,
                                     x + off[s], want + off[s], (size_t)(off[s + 1] - off[s]));
}

static void workspace_case(void)
{
    if (!h_case("scan_by_key_async / segmented_scan_async workspace: reserve, R << n, R = n, 2n segments")) return;
    const size_t n = WS_N, S2 = 2 * (size_t)WS_N;
    redscan_ctx *c = NULL;
    if (!CHECK_OK(redscan_create(&c, REDSCAN_BACKEND_AUTO), "redscan_create")) return;
    int32_t *x = (int32_t *)h_malloc(n * 4), *want = (int32_t *)h_malloc(n * 4), *got = (int32_t *)h_malloc(n * 4);
    int32_t *k_few = (int32_t *)h_malloc(n * 4), *k_all = (int32_t *)h_malloc(n * 4);
    uint64_t *off_few = (uint64_t *)h_malloc(5 * 8), *off_all = (uint64_t *)h_malloc((n + 1) * 8);
    uint64_t *off_seg = (uint64_t *)h_malloc((S2 + 1) * 8);
    h_rng r;
    h_rng_init(&r, h_seed(46, 0, 0, 0, 0, 0));
    h_generate(&r, REDSCAN_INT32, REDSCAN_SUM, GEN_PLAIN, x, n);
    /* runs: [0, 2048), [2048, 2048 + 33 x 2048) (33 chunks), one element, the rest */
    const uint64_t few[5] = {0, 2048, 34 * 2048, 34 * 2048 + 1, n};
    memcpy(off_few, few, sizeof few);
    for (size_t s = 0; s < 4; s++)
        for (uint64_t i = few[s]; i < few[s + 1]; i++) k_few[i] = (int32_t)(s % 2) - 7; /* -7, -6, -7, -6 */
    for (size_t i = 0; i <= n; i++) off_all[i] = i;
    for (size_t i = 0; i < n; i++) k_all[i] = (int32_t)i;
    for (size_t s = 0; s <= S2; s++) off_seg[s] = s / 2; /* segment 2i is empty, 2i + 1 is element i */
    redscan_buffer *in = NULL, *out = NULL, *kf = NULL, *ka = NULL, *ob = NULL;
    int ok = CHECK_OK(redscan_reserve(c, REDSCAN_INT32, n), "redscan_reserve");
    ok &= CHECK_OK(redscan_buffer_create(c, n * 4, &in), "in") &&
          CHECK_OK(redscan_buffer_create(c, n * 4, &out), "out") &&
          CHECK_OK(redscan_buffer_create(c, n * 4, &kf), "keys") &&
          CHECK_OK(redscan_buffer_create(c, n * 4, &ka), "keys") &&
          CHECK_OK(redscan_buffer_create(c, (S2 + 1) * 8, &ob), "offsets");
    ok = ok && CHECK_OK(redscan_buffer_write(c, in, 0, x, n * 4), "write in") &&
         CHECK_OK(redscan_buffer_write(c, kf, 0, k_few, n * 4), "write keys") &&
         CHECK_OK(redscan_buffer_write(c, ka, 0, k_all, n * 4), "write keys") &&
         CHECK_OK(redscan_buffer_write(c, ob, 0, off_seg, (S2 + 1) * 8), "write offsets") &&
         CHECK_OK(redscan_synchronize(c), "synchronize");
    const redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    for (int pass = 0; ok && pass < 3; pass++) {
        static const char *const what[3] = {"scan_by_key_async, 4 runs", "scan_by_key_async, n runs",
                                            "segmented_scan_async, 2n segments"};
        memset(got, SENTINEL, n * 4); /* out poisoned: every element must be written by this pass */
        if (!CHECK_OK(redscan_buffer_write(c, out, 0, got, n * 4), "poison out")) break;
#ifdef REDSCAN_TEST_FAULTS
        redscan_fault_arm(REDSCAN_FAULT_ALLOC, 0); /* count only */
#endif
        redscan_status st = pass == 0   ? redscan_scan_by_key_async(c, &d, REDSCAN_INT32, kf, in, out, n)
                            : pass == 1 ? redscan_scan_by_key_async(c, &d, REDSCAN_INT32, ka, in, out, n)
                                        : redscan_segmented_scan_async(c, &d, in, REDSCAN_UINT64, ob, S2, out);
        if (!CHECK_OK(st, what[pass]) || !CHECK_OK(redscan_synchronize(c), "redscan_synchronize")) break;
#ifdef REDSCAN_TEST_FAULTS
        CHECK(redscan_fault_count(REDSCAN_FAULT_ALLOC) == 0, "%s after redscan_reserve: %" PRIu64 " allocations",
              what[pass], redscan_fault_count(REDSCAN_FAULT_ALLOC));
#endif
        if (pass == 0) ws_emulate(x, off_few, 4, want);
        else ws_emulate(x, off_all, n, want);
        if (CHECK_OK(redscan_buffer_read(c, out, 0, got, n * 4), "read"))
            CHECK_ARRAY(REDSCAN_SUM, REDSCAN_INT32, got, want, n, what[pass]);
    }
    redscan_buffer *bs[] = {in, out, kf, ka, ob};
    for (int i = 0; i < 5; i++)
        if (bs[i]) redscan_buffer_destroy(c, bs[i]);
    redscan_destroy(c);
    free(x), free(want), free(got), free(k_few), free(k_all), free(off_few), free(off_all), free(off_seg);
}

int main(void)
{
    h_open("test_segmented_scan");
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
    printf("errors: %.1f s\n", h_now() - t0);

    /* every op x dtype on the mixed layout (a segment of 33 x 2048 + 5: two groups of chunks, the chain) */
    t0 = h_now();
    const size_t mixed_big = 33 * 2048 + 5;
    for (size_t di = 0; di < N_DTYPES; di++) {
        const redscan_dtype dt = ALL_DTYPES[di];
        if (!usable(dt)) continue;
        for (int op = 0; op < 4; op++) {
            /* PoCL compiles one program per (dtype, op): a quarter of the pairs at level 1 (the CI's first pass),
             * an eighth at level 0 (its second and third), rotating so that every dtype and every op is met;
             * all of them at level 2 */
            if (L < 2 && (di + (size_t)op) % (L == 0 ? 8 : 4) != 0) continue;
            const size_t v = di + (size_t)op;
            opts o = {(int)(v % 2), (int)((v / 2) % 2), 0, 0, v % 4 == 0 ? 1 : 0};
            scan_case((redscan_op)op, dt, dt, LAY_MIXED, OFF_DTYPES[v % 4], 64, mixed_big, o);
            /* scan by key of the same op x dtype (the same program: no build of its own), a key width each, its
             * runs against the emulation (level 1 and up: the level-0 passes keep the fixed cases below) */
            if (L >= 1) {
                const opts ok = {(int)((v / 2) % 2), (int)(v % 2), (int)(v % 3 == 1), v % 5 == 0, 0};
                bykey_case((redscan_op)op, dt, dt, KEY_DTYPES[v % 8], LAY_MIXED, 64, mixed_big, ok);
            }
            if (L >= 1) {
                o.exclusive = !o.exclusive;
                o.init = !o.init;
                o.inplace = v % 3 == 0;
                scan_case((redscan_op)op, dt, dt, LAY_MIXED, OFF_DTYPES[(v + 1) % 4], 64, 2 * 2048 + 1, o);
            }
            redscan_dtype wide[2];
            const int nw = ref_widenings(dt, wide);
            for (int w = 0; w < nw; w++) {
                if (!usable(wide[w])) continue;
                if (L < 2 && (v + (size_t)w) % (L == 0 ? 4 : 2) != 0) continue;
                const opts ow = {(int)(w % 2), 1, 0, 0, 0};
                scan_case((redscan_op)op, dt, wide[w], LAY_MIXED, REDSCAN_INT64, 64, 3 * 2048 + 5, ow);
                if (L >= 1) /* scan by key into the wider type, the same program */
                    bykey_case((redscan_op)op, dt, wide[w], KEY_DTYPES[(v + (size_t)w + 3) % 8], LAY_MIXED, 64,
                               3 * 2048 + 5, ow);
            }
        }
    }
    printf("ops x dtypes: %.1f s\n", h_now() - t0);

    t0 = h_now();
    const size_t cap = L == 0 ? 20000 : L == 1 ? 60000 : 1000000;
    const size_t big = L == 0 ? 70000 : L == 1 ? 300000 : 5000000;
    for (int lay = 1; lay < LAY_COUNT; lay++)
        for (size_t o = 0; o < 4; o++) {
            const opts op1 = {(int)(o % 2), (int)(o / 2), 0, o == 3, o == 0 ? 2 : 0};
            scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, (layout)lay, OFF_DTYPES[o], cap, big, op1);
            if (o == (size_t)lay % 4) {
                const opts op2 = {1, 1, 0, 0, 1};
                scan_case(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, (layout)lay, OFF_DTYPES[o], cap, big, op2);
                const opts op3 = {0, 0, 1, 0, 0};
                scan_case(REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT16, (layout)lay, OFF_DTYPES[o], cap, big, op3);
            }
        }
    if (L >= 2) {
        const opts oh = {0, 1, 0, 0, 1};
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_HUGE, REDSCAN_UINT64, 4, (1u << 24) + 5, oh);
    }
    {
        /* many batches a block: 4096 batches of 256 segments at level 1 (the H100 holds 660 blocks of
         * seg_scan_short), 256 at level 0; offsets of both widths, in place, exclusive, and scan by key's runs */
        const size_t nb = (L == 0 ? 256 : 4096) * 256;
        const opts a = {0, 1, 0, 1, 0}, b = {1, 0, 1, 0, 0};
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_BATCHES, REDSCAN_INT32, nb, 0, a);
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_BATCHES, REDSCAN_UINT64, nb, 0, b);
        bykey_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_INT32, LAY_BATCHES, nb, 0, a);
    }
    {
        /* CUDA's seg_scan_short_pairs: 2048 batches of 512 segments at level 1 (the H100 holds 792 blocks of it), 64
         * at level 0; offsets of three widths, async, in place, exclusive; scan by key over the same runs, blocking
         * (the run count read back: the host chooses the kernel) and async (the kernel chooses on the run count) */
        const size_t np = (L == 0 ? 64 : 2048) * 512 + 293;
        const opts a = {0, 1, 0, 1, 0}, b = {1, 0, 1, 0, 0}, c = {1, 1, 0, 0, 2}, k = {0, 1, 0, 0, 0};
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_PAIRS, REDSCAN_INT32, np, 0, a);
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_PAIRS, REDSCAN_UINT64, np, 0, b);
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_PAIRS, REDSCAN_INT64, np, 0, c);
        bykey_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_INT32, LAY_PAIRS, np, 0, k);
        bykey_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_UINT64, LAY_PAIRS, np, 0, a);
    }
    {
        /* CUDA's seg_scan_team with several segments a warp at level 1 (team-many): float32 in place, exclusive, init
         * (the values by cp.async), float16 -> float32 (loads through registers), float64 (two warps a block), and
         * scan by key over the same runs */
        const size_t nt = L == 0 ? 400 : 9600;
        const opts a = {1, 1, 1, 0, 0}, b = {0, 0, 0, 1, 0};
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_TEAMS, REDSCAN_INT32, nt, 0, a);
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT32, LAY_TEAMS, REDSCAN_UINT64, nt, 0, b);
        if (usable(REDSCAN_FLOAT64))
            scan_case(REDSCAN_SUM, REDSCAN_FLOAT64, REDSCAN_FLOAT64, LAY_TEAMS, REDSCAN_INT64, nt, 0, b);
        bykey_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_INT32, LAY_TEAMS, nt, 0, b);
    }
    printf("layouts: %.1f s\n", h_now() - t0);

    t0 = h_now();
    for (int op = 0; op < 4; op++) position_case((redscan_op)op, REDSCAN_FLOAT32);
    printf("positions: %.1f s\n", h_now() - t0);

    /* scan by key: every key dtype (each with another op x dtype), the layouts, async, in place */
    t0 = h_now();
    bykey_errors();
    for (size_t k = 0; k < sizeof KEY_DTYPES / sizeof KEY_DTYPES[0]; k++) {
        const redscan_dtype dt = k % 2 ? REDSCAN_FLOAT32 : REDSCAN_INT32; /* programs built above */
        const redscan_op op = k % 4 < 2 ? REDSCAN_SUM : REDSCAN_MAX;
        const opts o = {(int)(k % 2), (int)((k / 2) % 2), k == 5, k == 3, 0};
        bykey_case(op, dt, dt, KEY_DTYPES[k], (layout)(k % LAY_COUNT), cap / 4, big, o);
    }
    {
        const opts o = {0, 1, 0, 1, 0};
        bykey_case(REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT32, REDSCAN_UINT8, LAY_ONES, cap / 4, big, o);
        bykey_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_INT64, LAY_HUGE, cap, big, o);
    }
    workspace_case();
    printf("scan by key: %.1f s\n", h_now() - t0);

    /* scan by key's two paths for the exact operators (REDSCAN_SCAN_BY_KEY_PATH; docs/ALGORITHMS.md "Scan by key"):
     * the one-pass kernel, which CUDA and OpenCL GPUs take by default and OpenCL CPU devices only when asked, and the
     * runs' offsets with the segmented scan. Both must give the rule's bits. A run across many tiles (the look-back
     * over AGGs), 8-byte slots, runs of one (float min: the first NaN, the leftmost of equal values), the tile edges,
     * every op. PoCL builds a program per row and path: the level-0 passes (CI's second and third) take rows 0-1;
     * the runs' half takes the rows whose segmented-scan program the cases above build anyway at this level (on CPU
     * devices the runs' path is what every exact case above already runs). */
    t0 = h_now();
    {
        static const struct {
            redscan_op op;
            redscan_dtype dt, kdt;
            layout lay;
            int runs_level; /* the runs' half from this level up */
        } px[] = {{REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, LAY_HUGE, 0},
                  {REDSCAN_PROD, REDSCAN_UINT64, REDSCAN_INT64, LAY_POWER, 1},
                  {REDSCAN_MIN, REDSCAN_FLOAT32, REDSCAN_UINT8, LAY_ONES, 2},
                  {REDSCAN_MIN, REDSCAN_INT64, REDSCAN_UINT16, LAY_SHORT, 1},
                  {REDSCAN_MAX, REDSCAN_FLOAT64, REDSCAN_INT32, LAY_UNIFORM, 1}};
        static const char *const paths[] = {"one_pass", "runs"};
        for (size_t p = 0; p < 2; p++) {
            char *saved = h_env_swap("REDSCAN_SCAN_BY_KEY_PATH", paths[p]);
            printf("path REDSCAN_SCAN_BY_KEY_PATH=%s\n", paths[p]);
            for (size_t i = 0; i < (L == 0 ? 2 : sizeof px / sizeof px[0]); i++) {
                if (!usable(px[i].dt) || (p == 1 && L < px[i].runs_level)) continue;
                const opts o = {(int)(i % 2), (int)((i / 2) % 2), i == 2, i == 3, 0};
                bykey_case(px[i].op, px[i].dt, px[i].dt, px[i].kdt, px[i].lay, cap / 4, big, o);
            }
            h_env_restore("REDSCAN_SCAN_BY_KEY_PATH", saved);
        }
    }
    printf("scan by key paths: %.1f s\n", h_now() - t0);

    /* the segmented scan's two paths for the exact operators (REDSCAN_SEGMENTED_SCAN_PATH=one_pass / single_pass;
     * docs/ALGORITHMS.md "Segmented scans"): scan by key's kernel with the heads from the offsets, which CUDA and
     * OpenCL GPUs take by default (so every exact case above ran it there) and OpenCL CPU devices only when asked,
     * and the chunk path with the segment classes, which CPU devices take by default. Every layout: one segment over
     * many tiles (the look-back), runs of empty segments (several offsets on one head), one-element and short
     * segments (several heads in a thread's positions and in a bitmap word); the lead and tail outside the segments
     * are not written; in place and _async. Only the (dtype, op) pairs whose two programs the cases above build at
     * the level. */
    t0 = h_now();
    {
        static const char *const paths[] = {"one_pass", "single_pass"};
        for (size_t p = 0; p < 2; p++) {
            char *saved = h_env_swap("REDSCAN_SEGMENTED_SCAN_PATH", paths[p]);
            printf("path REDSCAN_SEGMENTED_SCAN_PATH=%s\n", paths[p]);
            for (int lay = 0; lay < LAY_COUNT; lay++) {
                const opts o = {lay % 2, (lay / 2) % 2, lay == 3, lay == 4, 0};
                scan_case(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, (layout)lay, OFF_DTYPES[(lay + p) % 4], cap,
                          lay == LAY_MIXED ? mixed_big : big, o);
            }
            if (L >= 1) {
                const opts o1 = {1, 1, 0, 0, 0}, o2 = {0, 1, 1, 0, 0}, o3 = {1, 0, 0, 1, 0};
                scan_case(REDSCAN_PROD, REDSCAN_UINT64, REDSCAN_UINT64, LAY_POWER, REDSCAN_INT64, cap, big, o1);
                scan_case(REDSCAN_MIN, REDSCAN_INT64, REDSCAN_INT64, LAY_SHORT, REDSCAN_UINT32, cap, big, o2);
                if (usable(REDSCAN_FLOAT64))
                    scan_case(REDSCAN_MAX, REDSCAN_FLOAT64, REDSCAN_FLOAT64, LAY_MIXED, REDSCAN_UINT64, 64, mixed_big,
                              o3);
            }
            h_env_restore("REDSCAN_SEGMENTED_SCAN_PATH", saved);
        }
    }
    printf("segmented scan paths: %.1f s\n", h_now() - t0);

    /* the chunk path's other modes, the same bits: the look-back's slow path alone (spins = 0: every prefix value
     * computed from the input by the waiting group) and mixed with published values (spins = 1), and OpenCL's
     * multi-pass path (devices without 64-bit atomics) */
    t0 = h_now();
    for (size_t m = 0; m < H_LOOKBACK_MODES; m++) {
        char *saved;
        if (!h_mode_enter(&h_lookback_modes[m], &saved)) continue;
        const opts o1 = {0, 1, 0, 0, 0}, o2 = {1, 0, 0, 1, 0}, o3 = {0, 0, 1, 0, 0};
        /* a segment of two groups of 32 chunks (the chain), chunk edges, short ones around */
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_MIXED, REDSCAN_UINT64, 64, mixed_big, o1);
        scan_case(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, LAY_MIXED, REDSCAN_INT32, 64, 3 * 32 * 2048 + 7, o2);
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_POWER, REDSCAN_INT64, cap / 4, 70000, o3);
        const opts ok = {0, 1, 0, 1, 0};
        bykey_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_INT32, LAY_HUGE, 4, 5 * 2048 * 32 + 3, ok);
        /* the one-pass kernel's look-back: every empty slot computed from the input (spins = 0: a run over 80 tiles
         * computes them all again for each tile) or some of them (spins = 1) */
        char *saved_path = h_env_swap("REDSCAN_SCAN_BY_KEY_PATH", "one_pass");
        const opts oi = {1, 1, 1, 0, 0};
        bykey_case(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_INT32, LAY_HUGE, 4, 5 * 2048 * 32 + 3, ok);
        bykey_case(REDSCAN_PROD, REDSCAN_UINT64, REDSCAN_UINT64, REDSCAN_INT64, LAY_POWER, cap / 4, 70000, oi);
        h_env_restore("REDSCAN_SCAN_BY_KEY_PATH", saved_path);
        /* the same look-back in the segmented scan's one pass (the slow path's heads from the bitmap) */
        if (strcmp(h_lookback_modes[m].var, "REDSCAN_SEGMENTED_SCAN_PATH") != 0) {
            saved_path = h_env_swap("REDSCAN_SEGMENTED_SCAN_PATH", "one_pass");
            scan_case(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, LAY_HUGE, REDSCAN_UINT32, 4, 5 * 2048 * 32 + 3, oi);
            scan_case(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, LAY_POWER, REDSCAN_INT64, cap / 4, 70000, o2);
            h_env_restore("REDSCAN_SEGMENTED_SCAN_PATH", saved_path);
        }
        h_env_restore(h_lookback_modes[m].var, saved);
    }
    printf("modes: %.1f s\n", h_now() - t0);
    return h_done();
}
