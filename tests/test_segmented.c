/* test_segmented: redscan_segmented_reduce / _argmin / _argmax and their _async forms (docs/SEMANTICS.md and
 * docs/ALGORITHMS.md, "Segments").
 *
 * The rule under test: segment s = in[offsets[s] .. offsets[s+1]) gives the bits of redscan_reduce_ex with the
 * coarsened algorithm on that slice alone (an empty segment: the reduction of nothing), and argmin / argmax the index
 * of redscan_argmin / _argmax of the slice plus offsets[s]. So every segment is checked against the host emulation
 * of the coarsened order (ref_reduce_emulate, reference.c) bit for bit, and a few against the device's own
 * redscan_reduce_ex / redscan_argmin of the slice.
 *
 *   ops x dtypes     every op x every dtype (1..12) on a mixed layout (empty, 1, 2, chunk edges 4095/4096/4097, a
 *                    multi-chunk segment, random lengths); the widenings at level >= 1 on a rotating subset, all at 2
 *   layouts          one huge segment, many empty, many one-element, power-law lengths, uniform lengths, lengths at
 *                    the limits of CUDA's short path, queued batches and packed batches, then 90 % one-element;
 *                    at level 2 a segment of 2^24 + 5 int8 values (three levels of partials); 48000 segments of
 *                    33 .. 300 values (more than seg_medium's warps: CUDA's dealt share and counter tasks); short
 *                    pairs (CUDA's seg_short with two segments a thread where n <= 7 S, at its limits)
 *   offsets dtypes   INT32, UINT32, INT64, UINT64, offsets not starting at 0, elements before and after the segments
 *                    holding poison (a value that would change the result if read)
 *   position         one segment's content placed at several offsets among different neighbours: the same bits
 *   device identity  a few segments per case against redscan_reduce_ex (COARSENED) / redscan_argmin of the slice
 *   zero ties        float min / max and float32 argmin / argmax (level 0: float32 min on three layouts) over
 *                    every layout with values whose leaves, batches and segments often end at +-0 or NaN (CUDA's
 *                    fast float32 leaves and argmin / argmax batches, and their fallback to the left fold)
 *   argmin / argmax  every dtype, ties, NaNs, infinities, signed zeros; values NULL or not; empty segments
 *                    (UINT64_MAX and the worst value)
 *   errors           every host check (status, message, nothing written) and the device checks: offsets that
 *                    decrease, are negative, run past `in`, in the blocking form and in the _async form (reported by
 *                    redscan_synchronize, once); the context works afterwards
 * Level 0 runs fewer dtype / op combinations (PoCL compiles one program per combination). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int g_have_fp64 = 1;

static const redscan_dtype ALL_DTYPES[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64, REDSCAN_UINT64,
                                           REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_INT8,  REDSCAN_UINT8,
                                           REDSCAN_INT16,  REDSCAN_UINT16,  REDSCAN_FLOAT16, REDSCAN_BFLOAT16};
#define N_DTYPES (sizeof ALL_DTYPES / sizeof ALL_DTYPES[0])
static const redscan_dtype OFF_DTYPES[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64};

static int usable(redscan_dtype dt) { return dt != REDSCAN_FLOAT64 || g_have_fp64; }

/* h_nan for every float type (it knows float32 / float64 only); the payload is kept small enough for float16. */
static ref_val nan_of(redscan_dtype dt, uint32_t payload, int negative)
{
    if (!ref_is_narrow_float(dt)) return h_nan(dt, payload, negative);
    ref_val v = ref_zero();
    v.u16 = (uint16_t)((dt == REDSCAN_FLOAT16 ? 0x7e00u | (payload & 0x1ffu) : 0x7fc0u | (payload & 0x3fu)) |
                       (negative ? 0x8000u : 0));
    return v;
}

/* Float values for min / max whose results are often a signed zero or a NaN: CUDA folds float32 leaves with PTX
 * min.NaN / max.NaN and takes the left fold where that gives NaN or +-0 (kernels_cu/segmented.cu, rs_seg_leaf), so
 * both must give the tile expression's bits. Signed zeros, +-1, +-inf, the smallest subnormals and NaNs with payloads
 * (1 in 128), in runs of 1..2048 values that either allow the values that beat zero (positive for max, negative for
 * min) or hold none: then a leaf's, a segment's or a run's result is a zero of either sign, an infinity or a NaN. */
static int g_zero_ties; /* reduce_case: values from gen_zero_ties instead of h_generate */
static void gen_zero_ties(h_rng *r, redscan_dtype dt, redscan_op op, unsigned char *dst, size_t n)
{
    const float beat = op == REDSCAN_MIN ? -1.0f : 1.0f, tiny = dt == REDSCAN_FLOAT32 ? 1e-45f : 5.9604645e-8f;
    size_t left = 0;
    int allow = 0;
    for (size_t i = 0; i < n; i++) {
        if (left == 0) {
            left = 1 + (size_t)h_rng_below(r, 2048);
            allow = (int)(h_rng_u64(r) & 1);
        }
        left--;
        const uint64_t k = h_rng_below(r, 128);
        ref_val v = ref_zero();
        if (k == 0) {
            v = nan_of(dt, (uint32_t)h_rng_below(r, 30) + 1, (int)(h_rng_u64(r) & 1));
        } else {
            const float sign = allow && (k & 1) ? beat : -beat;
            const float mag[] = {1.0f, INFINITY, tiny, 0.5f * (float)(1 + h_rng_below(r, 64))};
            const uint64_t m = k % 6;
            const float x = m == 0 ? 0.0f : m == 1 ? -0.0f : sign * mag[m - 2];
            if (dt == REDSCAN_FLOAT32) v.f32 = x;
            else v.u16 = ref_f32_to_narrow(dt, x);
        }
        ref_store(dt, dst, i, v);
    }
}

/* ---------------------------------------------------------------- layouts */

/* LAY_MANY_MEDIUM and LAY_SHORT_PAIRS (past LAY_COUNT: not in the layout loops) are cases of their own below */
typedef enum {
    LAY_MIXED = 0,
    LAY_HUGE,
    LAY_EMPTY,
    LAY_ONES,
    LAY_POWER,
    LAY_UNIFORM,
    LAY_SHORTMIX,
    LAY_COUNT,
    LAY_MANY_MEDIUM = LAY_COUNT,
    LAY_SHORT_PAIRS
} layout;
static const char *lay_name(layout l)
{
    static const char *names[] = {"mixed",   "huge",      "many-empty",  "many-ones",  "power-law",
                                  "uniform", "short-mix", "many-medium", "short-pairs"};
    return names[l];
}

/* CUDA's seg_short takes two segments a thread, batches of 512, where the mean segment holds at most 7 values
 * (kernels_cu/segmented.cu, rs_seg_pairs_fit: n <= 7 S, n counted in whole tiles of 4096), else one, batches of 256,
 * packed where n <= 16 S. short-mix is meant for the second, short-pairs for the first: a case checks that its layout
 * still is (the results do not depend on it, so nothing else would notice). */
static int seg_pairs_fit(size_t n, size_t S) { return (n + 4095) / 4096 * 4096 <= 7 * S; }

/* Segment lengths of a layout into len (returns the count); `scale` shrinks the big ones at level 0. */
static size_t make_lengths(layout lay, h_rng *r, size_t *len, size_t cap, size_t big)
{
    size_t S = 0;
    switch (lay) {
    case LAY_MIXED: {
        /* first, segments longer than a tile at tile edges (CUDA's seg_tiles_marks): 8192 from 0 (a tile's first
         * chunk, ending on an edge), an empty one on that edge, 4097 from 8192 (its second chunk of one value in tile
         * 3), two empty, 5000 from 12289 (its first chunk in tile 3 too: both marks of one tile) */
        static const size_t fixed[] = {8192, 0, 4097, 0, 0, 5000, 0, 1, 2, 0, 3, 4095, 4096, 4097, 0, 31, 32, 33, 1023,
                                       1024, 1025, 8191, 8193, 0};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) len[S++] = fixed[i];
        len[S++] = big; /* several chunks: a second level */
        while (S < 40) len[S++] = (size_t)h_rng_below(r, 9000);
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
    case LAY_POWER: /* lengths ~ 1 / x^2: mostly short, a few long */
        while (S < cap / 16) {
            const double u = h_rng_unit(r);
            double x = 1.0 / ((1.0 - u) * (1.0 - u));
            len[S++] = x > (double)big ? big : (size_t)x - 1;
        }
        break;
    case LAY_UNIFORM:
        while (S < cap / 64) len[S++] = (size_t)h_rng_below(r, 2 * 4096 + 2);
        break;
    case LAY_SHORTMIX: { /* lengths at the limits of CUDA's short paths (kernels_cu/segmented.cu: seg_short's thread
                          * up to 32 values, for argmin / argmax a group of 8 lanes for 5..32 in a warp with at most
                          * four such, and runs of more than four; seg_medium's batches of queued segments up to 128), then
                          * 80 % one-element segments and 20 % of 2..100 values (a mean of 7 .. 16 values: one segment
                          * a thread, packed; short-pairs takes the bench's "ones", 90 % and 10 %, mean 6) */
        static const size_t edge[] = {32, 33, 128, 129, 127, 1, 0, 33, 33, 33, 33, 129, 128, 128, 128, 128, 128, 4096,
                                      4097, 1, 2, 100, 0, 100, 31, 65, 4, 5, 3, 8, 9, 6, 7, 17, 64, 0, 5, 96, 4, 1};
        for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) len[S++] = edge[i];
        /* then batches of 256 segments (CUDA's seg_short takes segments 256 b .. 256 b + 255 together) at the limits
         * of its packed batches (no segment over 128 values and at most 4096 values of 4 bytes or 2048 of 8 in all):
         * 4096 values in 31 x 128 + 2 x 64 (33 segments for the block's 32 lane groups, 4-byte values packed, 8-byte
         * not), 4097, 2048 (packed for every type), 2049; the rest empty */
        static const size_t batch[][3] = {{31, 64, 64}, {32, 1, 0}, {16, 0, 0}, {16, 1, 0}}; /* 128s, then two */
        while (S % 256) len[S++] = 1;
        for (size_t b = 0; b < sizeof batch / sizeof batch[0] && S + 256 <= cap; b++) {
            const size_t first = S;
            for (size_t i = 0; i < batch[b][0]; i++) len[S++] = 128;
            len[S++] = batch[b][1];
            len[S++] = batch[b][2];
            while (S < first + 256) len[S++] = 0;
        }
        while (S < cap) len[S++] = h_rng_below(r, 5) ? 1 : 2 + (size_t)h_rng_below(r, 99);
        break;
    }
    case LAY_SHORT_PAIRS: { /* CUDA's seg_short with two segments a thread (batches of 512 segments, segment j 256 + t
                             * of a batch thread t's) at the limits of its packed batches, then 92 % one-element
                             * segments and 8 % of 2..100 values (a mean of about 5): the cases' counts (cap) end with a
                             * partial batch whose second half is empty (20000, 60000) or not (3000). Batches:
                             * 4093 values in 16 x 128 in the first half and 15 x 128 + 64 + 61 in the second (packed
                             * whatever the lead: the pool starts at the first value rounded down to 16 bytes; 33
                             * segments, so one lane group takes a second round); 4097 (not packed);
                             * 300 segments of 9 values from the list's back (more than 256 entries, groups of 8 lanes
                             * in 10 rounds); from 20000 segments on, also 300 of 33 values (not packed: more than 256
                             * queued entries) and one of 5000 values (longer than a tile) beside one of 200 */
        while (S % 512) len[S++] = 1;
        const size_t first = S;
        for (size_t i = 0; i < 16; i++) len[S++] = 128;
        while (S < first + 256) len[S++] = 0;
        for (size_t i = 0; i < 15; i++) len[S++] = 128;
        len[S++] = 64, len[S++] = 61;
        while (S < first + 512) len[S++] = 0;
        for (size_t i = 0; i < 32; i++) len[S++] = 128;
        len[S++] = 1;
        while (S < first + 1024) len[S++] = 0;
        for (size_t i = 0; i < 300; i++) len[S++] = 9;
        while (S < first + 1536) len[S++] = 0;
        if (cap >= 20000) {
            for (size_t i = 0; i < 300; i++) len[S++] = 33;
            while (S < first + 2048) len[S++] = 0;
            len[S++] = 5000, len[S++] = 200;
            while (S < first + 2560) len[S++] = 1;
        }
        while (S < cap) len[S++] = h_rng_below(r, 25) < 23 ? 1 : 2 + (size_t)h_rng_below(r, 99);
        break;
    }
    case LAY_MANY_MEDIUM: /* every segment queued for seg_medium (33 .. 300 values, too many for packed batches) */
        while (S < cap) len[S++] = 33 + (size_t)h_rng_below(r, 268);
        break;
    default: break;
    }
    return S;
}

/* offsets[s] (uint64) as offsets_dtype into dst */
static void store_offsets(redscan_dtype odt, void *dst, const uint64_t *off, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        ref_val v = ref_zero();
        v.u64 = off[i];
        if (odt == REDSCAN_INT32 || odt == REDSCAN_UINT32) v.u32 = (uint32_t)off[i];
        ref_store(odt, dst, i, v);
    }
}

/* A device copy of `count` offsets in odt. */
static redscan_buffer *offsets_buffer(redscan_dtype odt, const uint64_t *off, size_t count)
{
    const size_t os = ref_size(odt);
    unsigned char *h = (unsigned char *)h_malloc(count * os);
    store_offsets(odt, h, off, count);
    redscan_buffer *b = h_buffer_with(h, count * os, count * os, (redscan_dtype)0, ref_zero());
    free(h);
    return b;
}

/* ---------------------------------------------------------------- reduce */

/* The expected result of one segment: the coarsened order of its slice, or the reduction of nothing. */
static ref_val want_segment(redscan_op op, redscan_dtype dt, redscan_dtype odt, const unsigned char *x, size_t len)
{
    if (len == 0) return ref_empty_result(op, odt);
    return ref_reduce_emulate(REDSCAN_REDUCE_COARSENED, op, dt, odt, x, len);
}

/* One segmented reduction over layout `lay`; checks every segment; device_checks: segments also compared with
 * redscan_reduce_ex of the slice on the device. */
static void reduce_case(redscan_op op, redscan_dtype dt, redscan_dtype odt, layout lay, redscan_dtype offdt,
                        size_t cap, size_t big, int device_checks, int async)
{
    const uint64_t seed = h_seed(41, (uint64_t)op, (uint64_t)dt, (uint64_t)odt, (uint64_t)lay, (uint64_t)offdt);
    if (!h_case("segmented_reduce %s %s->%s %s offsets=%s%s%s seed=0x%" PRIx64, ref_op_str(op), ref_dtype_str(dt),
                ref_dtype_str(odt), lay_name(lay), ref_dtype_str(offdt), async ? " async" : "",
                g_zero_ties ? " zero-ties" : "", seed))
        return;
    h_rng r;
    h_rng_init(&r, seed);
    size_t *len = (size_t *)h_malloc((cap + 64) * sizeof *len);
    const size_t S = make_lengths(lay, &r, len, cap, big);
    uint64_t *off = (uint64_t *)h_malloc((S + 1) * sizeof *off);
    const size_t lead = (size_t)h_rng_below(&r, 7); /* elements before the first segment: poison */
    off[0] = lead;
    for (size_t s = 0; s < S; s++) off[s + 1] = off[s] + len[s];
    const size_t n = (size_t)off[S], tail = 1 + (size_t)h_rng_below(&r, 9), es = ref_size(dt);
    if (lay == LAY_SHORT_PAIRS) CHECK(seg_pairs_fit(n + tail, S), "short-pairs: n = %zu <= 7 S (S = %zu)", n + tail, S);
    if (lay == LAY_SHORTMIX)
        CHECK(!seg_pairs_fit(n + tail, S) && n + tail <= 16 * S, "short-mix: 7 S < n = %zu <= 16 S (S = %zu)", n + tail,
              S);
    unsigned char *x = (unsigned char *)h_malloc((n + tail) * es);
    h_fill(dt, x, lead, h_poison(op, dt));
    const h_gen gen = (h_gen)(h_rng_below(&r, (uint64_t)h_gen_count(dt)));
    if (g_zero_ties) gen_zero_ties(&r, dt, op, x + lead * es, n - lead);
    else h_generate(&r, dt, op, gen, x + lead * es, n - lead);
    h_fill(dt, x + n * es, tail, h_poison(op, dt));

    const size_t os = ref_size(odt);
    redscan_buffer *in = h_buffer_with(x, (n + tail) * es, (n + tail) * es, dt, ref_zero());
    redscan_buffer *ob = offsets_buffer(offdt, off, S + 1);
    redscan_buffer *out = h_buffer_with(NULL, 0, (S + 1) * os, (redscan_dtype)0, ref_zero()); /* 0xA5 */
    unsigned char *got = (unsigned char *)h_malloc((S + 1) * os);
    if (in && ob && out) {
        redscan_reduce_desc d = {op, dt, odt == dt ? (redscan_dtype)0 : odt, REDSCAN_REDUCE_AUTO, 0};
        redscan_status st;
        if (async) {
            st = redscan_segmented_reduce_async(h_ctx, &d, in, offdt, ob, S, out);
            if (st == REDSCAN_OK) st = redscan_synchronize(h_ctx);
        } else {
            st = redscan_segmented_reduce(h_ctx, &d, in, offdt, ob, S, out);
        }
        if (CHECK_OK(st, "redscan_segmented_reduce") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, (S + 1) * os), "redscan_buffer_read")) {
            size_t bad = 0;
            for (size_t s = 0; s < S && bad < 5; s++) {
                const ref_val w = want_segment(op, dt, odt, x + off[s] * es, len[s]);
                const ref_val g = ref_load(odt, got, s);
                if (!ref_result_equal(op, odt, g, w)) {
                    char gs[96], ws[96];
                    CHECK(0, "segment %zu (offset %" PRIu64 ", length %zu): got %s, want %s", s, off[s], len[s],
                          h_fmt(odt, g, gs), h_fmt(odt, w, ws));
                    bad++;
                } else {
                    CHECK(1, "segment");
                }
            }
            /* nothing past num_segments results (the buffer holds one more, filled by h_buffer with 0xA5) */
            int untouched = 1;
            for (size_t b = 0; b < os; b++) untouched &= got[S * os + b] == 0xA5;
            CHECK(untouched, "out[num_segments] was written");
        }
        /* the device's own reduce of a few slices: the same bits */
        for (int k = 0; k < device_checks && S > 0; k++) {
            const size_t s = k == 0 ? S - 1 : (size_t)h_rng_below(&r, S);
            if (len[s] == 0) continue;
            redscan_buffer *slice = h_buffer_with(x + off[s] * es, len[s] * es, len[s] * es, dt, ref_zero());
            if (!slice) break;
            redscan_reduce_desc c = {op, dt, odt == dt ? (redscan_dtype)0 : odt, REDSCAN_REDUCE_COARSENED, 0};
            ref_val dv = ref_zero();
            if (CHECK_OK(redscan_reduce_ex(h_ctx, &c, slice, len[s], &dv), "redscan_reduce_ex (slice)")) {
                const ref_val g = ref_load(odt, got, s);
                char gs[96], ws[96];
                CHECK(ref_result_equal(op, odt, g, dv), "segment %zu (length %zu): got %s, redscan_reduce_ex %s", s,
                      len[s], h_fmt(odt, g, gs), h_fmt(odt, dv, ws));
            }
            redscan_buffer_destroy(h_ctx, slice);
        }
    }
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, ob);
    redscan_buffer_destroy(h_ctx, out);
    free(got);
    free(x);
    free(off);
    free(len);
}

/* One segment's content at several places, among other segments: the same bits each time (and the reference's). */
static void position_case(redscan_op op, redscan_dtype dt)
{
    const uint64_t seed = h_seed(43, (uint64_t)op, (uint64_t)dt, 0, 0, 0);
    if (!h_case("segmented_reduce position %s %s seed=0x%" PRIx64, ref_op_str(op), ref_dtype_str(dt), seed)) return;
    h_rng r;
    h_rng_init(&r, seed);
    const size_t es = ref_size(dt), L = 3 * 4096 + 1234, n = 4 * L + 10000;
    unsigned char *seg = (unsigned char *)h_malloc(L * es), *x = (unsigned char *)h_malloc(n * es);
    h_generate(&r, dt, op, GEN_EDGE, seg, L);
    static const size_t starts[] = {0, 1, 3, 4095, 4097, 5003};
    ref_val first = ref_zero();
    for (size_t p = 0; p < sizeof starts / sizeof starts[0]; p++) {
        h_generate(&r, dt, op, GEN_PLAIN, x, n);
        const size_t at = starts[p] + p * 7;
        memcpy(x + at * es, seg, L * es);
        uint64_t off[4] = {0, at, at + L, n};
        const size_t S = 3;
        redscan_buffer *in = h_buffer_with(x, n * es, n * es, dt, ref_zero());
        redscan_buffer *ob = offsets_buffer(REDSCAN_UINT64, off, S + 1);
        redscan_buffer *out = h_buffer(S * es);
        redscan_reduce_desc d = {op, dt, 0, REDSCAN_REDUCE_COARSENED, 0};
        unsigned char got[3 * 8];
        if (in && ob && out && CHECK_OK(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, ob, S, out), "reduce") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, S * es), "read")) {
            const ref_val g = ref_load(dt, got, 1);
            if (p == 0) {
                first = g;
                const ref_val w = ref_reduce_emulate(REDSCAN_REDUCE_COARSENED, op, dt, dt, seg, L);
                char gs[96], ws[96];
                CHECK(ref_result_equal(op, dt, g, w), "segment at %zu: got %s, want %s", at, h_fmt(dt, g, gs),
                      h_fmt(dt, w, ws));
            } else {
                char gs[96], ws[96];
                CHECK(ref_bits_equal(dt, g, first), "segment at %zu: got %s, at %zu it was %s", at, h_fmt(dt, g, gs),
                      starts[0], h_fmt(dt, first, ws));
            }
        }
        redscan_buffer_destroy(h_ctx, in);
        redscan_buffer_destroy(h_ctx, ob);
        redscan_buffer_destroy(h_ctx, out);
    }
    free(seg);
    free(x);
}

/* ---------------------------------------------------------------- argmin / argmax */

/* h_gen_ties, and for float16 / bfloat16 (which it does not know) a small set of patterns of their own: many ties,
 * signed zeros, infinities and NaNs with payloads. */
static void gen_ties(h_rng *r, redscan_dtype dt, void *dst, size_t n)
{
    if (!ref_is_narrow_float(dt)) {
        h_gen_ties(r, dt, dst, n);
        return;
    }
    const int h = dt == REDSCAN_FLOAT16;
    const uint16_t set[] = {h ? 0x3c00 : 0x3f80, h ? 0xbc00 : 0xbf80, 0x0000, 0x8000, h ? 0x4000 : 0x4000,
                            h ? 0xc200 : 0xc040, h ? 0x0001 : 0x0001, h ? 0x7bff : 0x7f7f};
    const int specials = (int)h_rng_below(r, 2);
    for (size_t i = 0; i < n; i++) {
        ref_val v = ref_zero();
        v.u16 = set[h_rng_below(r, sizeof set / sizeof set[0])];
        if (specials && h_rng_below(r, 64) == 0) {
            const uint64_t k = h_rng_below(r, 3);
            v = k == 2 ? nan_of(dt, (uint32_t)h_rng_below(r, 30) + 1, (int)(h_rng_u64(r) & 1)) : ref_zero();
            if (k < 2) v.u16 = (uint16_t)((h ? 0x7c00 : 0x7f80) | (k ? 0x8000 : 0));
        }
        ref_store(dt, dst, i, v);
    }
}

static void argext_case(redscan_dtype dt, int want_max, layout lay, int with_values, int device_checks, int async)
{
    const uint64_t seed = h_seed(47, (uint64_t)dt, (uint64_t)want_max, (uint64_t)lay, (uint64_t)with_values, 0);
    const int zero_ties = g_zero_ties && dt == REDSCAN_FLOAT32;
    if (!h_case("segmented_%s %s %s values=%d%s%s seed=0x%" PRIx64, want_max ? "argmax" : "argmin",
                ref_dtype_str(dt), lay_name(lay), with_values, async ? " async" : "", zero_ties ? " zero-ties" : "",
                seed))
        return;
    h_rng r;
    h_rng_init(&r, seed);
    const size_t cap = 3000;
    size_t *len = (size_t *)h_malloc((cap + 64) * sizeof *len);
    const size_t S = make_lengths(lay, &r, len, cap, 3 * 4096 + 77);
    uint64_t *off = (uint64_t *)h_malloc((S + 1) * sizeof *off);
    off[0] = (size_t)h_rng_below(&r, 5);
    for (size_t s = 0; s < S; s++) off[s + 1] = off[s] + len[s];
    const size_t n = (size_t)off[S], es = ref_size(dt), tail = 3;
    if (lay == LAY_SHORT_PAIRS) CHECK(seg_pairs_fit(n + tail, S), "short-pairs: n = %zu <= 7 S (S = %zu)", n + tail, S);
    unsigned char *x = (unsigned char *)h_malloc((n + tail) * es);
    if (zero_ties) gen_zero_ties(&r, dt, want_max ? REDSCAN_MAX : REDSCAN_MIN, x, n + tail);
    else gen_ties(&r, dt, x, n + tail);
    /* poison before and after: a NaN (floats) or the best value would win if read */
    const ref_val poison = ref_is_float(dt) ? nan_of(dt, 77, 0) : want_max ? ref_type_max(dt) : ref_type_min(dt);
    h_fill(dt, x, (size_t)off[0], poison);
    h_fill(dt, x + n * es, tail, poison);

    redscan_buffer *in = h_buffer_with(x, (n + tail) * es, (n + tail) * es, dt, ref_zero());
    redscan_buffer *ob = offsets_buffer(REDSCAN_INT64, off, S + 1);
    redscan_buffer *bi = h_buffer(S * 8), *bv = with_values ? h_buffer(S * es) : NULL;
    uint64_t *gi = (uint64_t *)h_malloc(S * 8);
    unsigned char *gv = (unsigned char *)h_malloc(S * es);
    if (in && ob && bi && (bv || !with_values)) {
        redscan_status st;
        if (async) {
            st = want_max ? redscan_segmented_argmax_async(h_ctx, dt, in, REDSCAN_INT64, ob, S, bi, bv)
                          : redscan_segmented_argmin_async(h_ctx, dt, in, REDSCAN_INT64, ob, S, bi, bv);
            if (st == REDSCAN_OK) st = redscan_synchronize(h_ctx);
        } else {
            st = want_max ? redscan_segmented_argmax(h_ctx, dt, in, REDSCAN_INT64, ob, S, bi, bv)
                          : redscan_segmented_argmin(h_ctx, dt, in, REDSCAN_INT64, ob, S, bi, bv);
        }
        if (CHECK_OK(st, "redscan_segmented_arg*") &&
            CHECK_OK(redscan_buffer_read(h_ctx, bi, 0, gi, S * 8), "read indices") &&
            (!with_values || CHECK_OK(redscan_buffer_read(h_ctx, bv, 0, gv, S * es), "read values"))) {
            size_t bad = 0;
            const ref_val worst = want_max ? ref_type_min(dt) : ref_type_max(dt);
            for (size_t s = 0; s < S && bad < 5; s++) {
                const uint64_t wi = len[s] ? off[s] + ref_argext(dt, want_max, x + off[s] * es, len[s]) : UINT64_MAX;
                const ref_val wv = len[s] ? ref_load(dt, x, (size_t)wi) : worst;
                int ok = gi[s] == wi;
                if (with_values) ok &= ref_bits_equal(dt, ref_load(dt, gv, s), wv);
                if (!ok) {
                    char gs[96], ws[96];
                    CHECK(0, "segment %zu (offset %" PRIu64 ", length %zu): got index %" PRIu64 " value %s, want %" PRIu64
                          " value %s",
                          s, off[s], len[s], gi[s], with_values ? h_fmt(dt, ref_load(dt, gv, s), gs) : "-", wi,
                          h_fmt(dt, wv, ws));
                    bad++;
                } else {
                    CHECK(1, "segment");
                }
            }
            for (int k = 0; k < device_checks && S > 0; k++) {
                const size_t s = (size_t)h_rng_below(&r, S);
                if (len[s] == 0) continue;
                uint64_t idx = 0;
                const redscan_status st2 =
                    want_max ? redscan_argmax_host(h_ctx, dt, x + off[s] * es, len[s], &idx, NULL)
                             : redscan_argmin_host(h_ctx, dt, x + off[s] * es, len[s], &idx, NULL);
                if (CHECK_OK(st2, "redscan_arg*_host (slice)"))
                    CHECK(gi[s] == off[s] + idx, "segment %zu: index %" PRIu64 ", redscan_arg* of the slice %" PRIu64
                          " + %" PRIu64, s, gi[s], off[s], idx);
            }
        }
    }
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, ob);
    redscan_buffer_destroy(h_ctx, bi);
    redscan_buffer_destroy(h_ctx, bv);
    free(gi);
    free(gv);
    free(x);
    free(off);
    free(len);
}

/* ---------------------------------------------------------------- errors */

#define SENTINEL 0x5A

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

/* out (num_segments int32) still holds the sentinel bytes */
static void check_untouched(redscan_buffer *out, size_t bytes, const char *what)
{
    unsigned char back[64];
    if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, bytes), "read"))
        CHECK(all_bytes(back, bytes, SENTINEL), "%s: the output was written", what);
}

static void expect(redscan_status st, redscan_status want, const char *what, const char *words)
{
    if (CHECK_STATUS(st, want, what) && words)
        CHECK(h_names_any(h_last_error(), words), "%s: message \"%s\" does not name %s", what, h_last_error(), words);
}

static void errors(void)
{
    if (!h_case("segmented errors")) return;
    const size_t n = 10, S = 4;
    int32_t x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    uint64_t off[5] = {0, 2, 2, 7, 10};
    unsigned char fill[64];
    memset(fill, SENTINEL, sizeof fill);
    redscan_buffer *in = h_buffer_with(x, sizeof x, sizeof x, (redscan_dtype)0, ref_zero());
    redscan_buffer *ob = offsets_buffer(REDSCAN_UINT64, off, S + 1);
    redscan_buffer *small_off = offsets_buffer(REDSCAN_UINT64, off, S);
    redscan_buffer *out = h_buffer(S * 4), *small = h_buffer(S * 4 - 1), *bi = h_buffer(S * 8), *bv = h_buffer(S * 4);
    if (!in || !ob || !small_off || !out || !small || !bi || !bv) return;
    redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    const redscan_status BAD = REDSCAN_ERR_INVALID_ARGUMENT;
    redscan_buffer_write(h_ctx, out, 0, fill, S * 4);

    /* host checks: nothing runs, nothing is written */
    expect(redscan_segmented_reduce(NULL, &d, in, REDSCAN_UINT64, ob, S, out), BAD, "NULL ctx", NULL);
    expect(redscan_segmented_reduce(h_ctx, NULL, in, REDSCAN_UINT64, ob, S, out), BAD, "NULL desc", "desc");
    expect(redscan_segmented_reduce(h_ctx, &d, NULL, REDSCAN_UINT64, ob, S, out), BAD, "NULL in", "in");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, NULL, S, out), BAD, "NULL offsets", "offsets");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, ob, S, NULL), BAD, "NULL out", "out");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_FLOAT32, ob, S, out), BAD, "offsets dtype float32",
           "offsets_dtype");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_INT8, ob, S, out), BAD, "offsets dtype int8",
           "offsets_dtype");
    expect(redscan_segmented_reduce(h_ctx, &d, in, (redscan_dtype)0, ob, S, out), BAD, "offsets dtype 0",
           "offsets_dtype");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, ob, 0, out), BAD, "num_segments 0",
           "num_segments");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, small_off, S, out), BAD, "offsets too small",
           "offsets");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, ob, S, small), BAD, "out too small", "out");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, ob, S, in), BAD, "out is in", "out");
    expect(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, ob, SIZE_MAX, out), BAD, "num_segments SIZE_MAX",
           "num_segments");
    {
        redscan_reduce_desc e = d;
        e.op = (redscan_op)9;
        expect(redscan_segmented_reduce(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "bad op", "op");
        e = d;
        e.dtype = (redscan_dtype)13;
        expect(redscan_segmented_reduce(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "bad dtype", "dtype");
        e = d;
        e.out_dtype = REDSCAN_FLOAT64;
        expect(redscan_segmented_reduce(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "bad out_dtype", "out_dtype");
        e = d;
        e.out_dtype = REDSCAN_INT64; /* a widening: out (4 ints = 16 bytes) holds 2 int64 only */
        expect(redscan_segmented_reduce(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "widened out too small",
               "out");
        e = d;
        e.algo = REDSCAN_REDUCE_TREE;
        expect(redscan_segmented_reduce(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), REDSCAN_ERR_UNSUPPORTED,
               "algo tree", "coarsened");
        e = d;
        e.algo = (redscan_reduce_algo)77;
        expect(redscan_segmented_reduce(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "algo 77", "algo");
        e = d;
        e.flags = 1;
        expect(redscan_segmented_reduce(h_ctx, &e, in, REDSCAN_UINT64, ob, S, out), BAD, "flags", "flags");
    }
    expect(redscan_segmented_argmax(h_ctx, REDSCAN_INT32, in, REDSCAN_UINT64, ob, S, NULL, NULL), BAD, "NULL indices",
           "indices");
    expect(redscan_segmented_argmax(h_ctx, REDSCAN_INT32, in, REDSCAN_UINT64, ob, S, out, NULL), BAD,
           "indices too small", "indices");
    expect(redscan_segmented_argmin(h_ctx, REDSCAN_INT32, in, REDSCAN_UINT64, ob, S, bi, small), BAD,
           "values too small", "values");
    expect(redscan_segmented_argmin(h_ctx, REDSCAN_INT32, in, REDSCAN_UINT64, ob, S, bi, bi), BAD,
           "values is indices", "values");
    expect(redscan_segmented_argmin(h_ctx, (redscan_dtype)0, in, REDSCAN_UINT64, ob, S, bi, NULL), BAD, "dtype 0",
           "dtype");
    expect(redscan_segmented_reduce_async(h_ctx, &d, in, REDSCAN_UINT32, ob, S, small), BAD, "async out too small",
           "out");
    check_untouched(out, S * 4, "host checks");

    /* device checks: the blocking form reports them, writes nothing */
    static const struct {
        uint64_t off[5];
        const char *words;
    } faulty[] = {{{0, 5, 2, 7, 10}, "decrease|offsets[1]"}, {{0, 2, 2, 7, 11}, "exceeds|offsets[4]"},
                  {{3, 2, 2, 7, 10}, "decrease|offsets[0]"}};
    for (size_t f = 0; f < sizeof faulty / sizeof faulty[0]; f++)
        for (size_t o = 0; o < 4; o++) {
            redscan_buffer *fb = offsets_buffer(OFF_DTYPES[o], faulty[f].off, S + 1);
            char what[96];
            snprintf(what, sizeof what, "faulty offsets %zu (%s)", f, ref_dtype_str(OFF_DTYPES[o]));
            expect(redscan_segmented_reduce(h_ctx, &d, in, OFF_DTYPES[o], fb, S, out), BAD, what, faulty[f].words);
            expect(redscan_segmented_argmax(h_ctx, REDSCAN_INT32, in, OFF_DTYPES[o], fb, S, bi, bv), BAD, what,
                   faulty[f].words);
            check_untouched(out, S * 4, what);
            redscan_buffer_destroy(h_ctx, fb);
        }
    /* negative offsets (signed types): -1 as int32 and int64 */
    for (int o = 0; o < 2; o++) {
        const redscan_dtype odt = o ? REDSCAN_INT64 : REDSCAN_INT32;
        unsigned char raw[5 * 8];
        store_offsets(odt, raw, off, S + 1);
        ref_val m1 = ref_zero();
        m1.i64 = -1;
        if (odt == REDSCAN_INT32) m1.i32 = -1;
        ref_store(odt, raw, 0, m1);
        redscan_buffer *fb = h_buffer_with(raw, (S + 1) * ref_size(odt), (S + 1) * ref_size(odt), (redscan_dtype)0,
                                           ref_zero());
        expect(redscan_segmented_reduce(h_ctx, &d, in, odt, fb, S, out), BAD, "negative offset", "negative");
        check_untouched(out, S * 4, "negative offset");
        redscan_buffer_destroy(h_ctx, fb);
    }
    /* the _async form: accepted, writes nothing, reported by the next synchronize, once */
    {
        uint64_t bad_off[5] = {0, 2, 1, 7, 10};
        redscan_buffer *fb = offsets_buffer(REDSCAN_UINT64, bad_off, S + 1);
        expect(redscan_segmented_reduce_async(h_ctx, &d, in, REDSCAN_UINT64, fb, S, out), REDSCAN_OK, "async faulty",
               NULL);
        expect(redscan_synchronize(h_ctx), BAD, "synchronize after async faulty offsets", "decrease|offsets[1]");
        expect(redscan_synchronize(h_ctx), REDSCAN_OK, "second synchronize", NULL);
        check_untouched(out, S * 4, "async faulty");
        redscan_buffer_destroy(h_ctx, fb);
    }
    /* many segments: CUDA's seg_check takes several offsets a thread once S passes its grid's threads (270 K on a
     * 132-SM device); two faults far apart, the first one reported, nothing written */
    {
        const size_t BS = (size_t)1 << 20;
        uint32_t *boff = (uint32_t *)h_malloc((BS + 1) * sizeof *boff);
        for (size_t i = 0; i <= BS; i++) boff[i] = (uint32_t)i;
        boff[BS - 5] = (uint32_t)BS; /* > offsets[BS - 4]: the first decrease */
        boff[BS - 2] = (uint32_t)BS; /* > offsets[BS - 1] */
        redscan_buffer *bx = h_buffer_with(NULL, 0, BS * 4, (redscan_dtype)0, ref_zero());
        redscan_buffer *bo = h_buffer_with(boff, (BS + 1) * 4, (BS + 1) * 4, (redscan_dtype)0, ref_zero());
        redscan_buffer *bout = h_buffer_with(fill, sizeof fill, BS * 4, (redscan_dtype)0, ref_zero());
        if (bx && bo && bout) {
            char words[64];
            snprintf(words, sizeof words, "offsets[%zu]", BS - 5);
            expect(redscan_segmented_reduce(h_ctx, &d, bx, REDSCAN_UINT32, bo, BS, bout), BAD,
                   "faults among 2^20 segments", words);
            check_untouched(bout, sizeof fill, "faults among 2^20 segments");
        }
        redscan_buffer_destroy(h_ctx, bx);
        redscan_buffer_destroy(h_ctx, bo);
        redscan_buffer_destroy(h_ctx, bout);
        free(boff);
    }
    /* the context works afterwards, and n = 10 exactly fits */
    int32_t got[4] = {0};
    if (CHECK_OK(redscan_segmented_reduce(h_ctx, &d, in, REDSCAN_UINT64, ob, S, out), "after errors") &&
        CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, sizeof got), "read"))
        CHECK(got[0] == 3 && got[1] == 0 && got[2] == 25 && got[3] == 27, "sums %d %d %d %d, want 3 0 25 27", got[0],
              got[1], got[2], got[3]);
    (void)n;
    redscan_buffer_destroy(h_ctx, in);
    redscan_buffer_destroy(h_ctx, ob);
    redscan_buffer_destroy(h_ctx, small_off);
    redscan_buffer_destroy(h_ctx, out);
    redscan_buffer_destroy(h_ctx, small);
    redscan_buffer_destroy(h_ctx, bi);
    redscan_buffer_destroy(h_ctx, bv);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    h_open("test_segmented");
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

    /* every op x dtype, mixed layout (two levels: a segment of several chunks); level 0: fewer dtypes */
    t0 = h_now();
    for (size_t di = 0; di < N_DTYPES; di++) {
        const redscan_dtype dt = ALL_DTYPES[di];
        if (!usable(dt)) continue;
        for (int op = 0; op < 4; op++) {
            if (L == 0 && (di + (size_t)op) % 3 != 0) continue;
            reduce_case((redscan_op)op, dt, dt, LAY_MIXED, OFF_DTYPES[(di + (size_t)op) % 4], 64, 5 * 4096 + 3,
                        (di + (size_t)op) % 4 == 0 ? 2 : 0, 0);
            /* widenings: a rotating subset (each compiles a program of its own), all at level 2 */
            redscan_dtype wide[2];
            const int nw = ref_widenings(dt, wide);
            for (int w = 0; w < nw; w++) {
                if (!usable(wide[w])) continue;
                if (L < 2 && (di + (size_t)op + (size_t)w) % (L == 0 ? 8 : 3) != 0) continue;
                reduce_case((redscan_op)op, dt, wide[w], LAY_MIXED, REDSCAN_INT64, 64, 2 * 4096 + 5, 1, 0);
            }
        }
    }
    printf("ops x dtypes: %.1f s\n", h_now() - t0);

    /* layouts x offsets dtypes, on programs already built (float32 sum, int32 max, float16 sum, uint8 prod) */
    t0 = h_now();
    const size_t cap = L == 0 ? 20000 : L == 1 ? 60000 : 1000000;
    const size_t big = L == 0 ? 70000 : L == 1 ? 300000 : 5000000;
    for (int lay = 0; lay < LAY_COUNT; lay++)
        for (size_t o = 0; o < 4; o++) {
            reduce_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, (layout)lay, OFF_DTYPES[o], cap, big, 2,
                        o == 1);
            if (o == (size_t)lay % 4) {
                reduce_case(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, (layout)lay, OFF_DTYPES[o], cap, big, 1, 0);
                reduce_case(REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT16, (layout)lay, OFF_DTYPES[o], cap, big, 1, 0);
                reduce_case(REDSCAN_PROD, REDSCAN_UINT8, REDSCAN_UINT8, (layout)lay, OFF_DTYPES[o], cap, big, 1, 0);
            }
        }
    if (L >= 2) { /* segments of more than 2^24 values: three levels of partials (float32: in the documented order) */
        reduce_case(REDSCAN_SUM, REDSCAN_INT8, REDSCAN_INT8, LAY_HUGE, REDSCAN_UINT64, 4, (1u << 24) + 5, 1, 0);
        reduce_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_MIXED, REDSCAN_INT64, 64, (1u << 24) + 12345, 1,
                    0);
    }
    /* 8-byte values in seg_medium's batches of queued segments (the compute types above are of 4 bytes); level 0 takes
     * the op whose program it builds anyway */
    if (usable(REDSCAN_FLOAT64))
        reduce_case(L == 0 ? REDSCAN_PROD : REDSCAN_SUM, REDSCAN_FLOAT64, REDSCAN_FLOAT64, LAY_SHORTMIX, REDSCAN_UINT32,
                    cap, big, 1, 0);
    /* more queued segments than seg_medium has warps: on CUDA it deals three quarters of them evenly and hands the
     * rest out from a counter (48000 x 166 values on average: an H200's 5280 warps take 6 each, then about 3 tasks of
     * one from the counter; level 0: 4000, the counter alone) */
    const size_t mcap = L == 0 ? 4000 : 48000;
    reduce_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_MANY_MEDIUM, REDSCAN_INT32, mcap, big, 2, 1);
    reduce_case(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, LAY_MANY_MEDIUM, REDSCAN_UINT64, mcap, big, 1, 0);
    /* CUDA's seg_short with two segments a thread at its packed batches' limits (4-byte values: float32 sum, int32 max;
     * argmin / argmax below) */
    reduce_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_SHORT_PAIRS, REDSCAN_INT32, cap, big, 2, 1);
    reduce_case(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, LAY_SHORT_PAIRS, REDSCAN_UINT64, cap, big, 1, 0);
    /* a float min over the short paths' limits (CUDA: seg_short's thread with fast leaves; its lane groups were min /
     * max's until the twenty-second session and are argmin / argmax's now) */
    reduce_case(REDSCAN_MIN, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_SHORTMIX, REDSCAN_INT64, cap, big, 1, 0);
    /* float min / max whose leaves, segments and runs often end at +-0 or NaN (gen_zero_ties): every path of CUDA's
     * fast leaves and their fallback (level 0: float32 min, whose program is built above) */
    g_zero_ties = 1;
    const size_t zcap = L >= 2 ? cap : 20000, zbig = L >= 2 ? big : 70000; /* level 0's sizes below level 2 */
    for (int lay = 0; lay < LAY_COUNT; lay++) {
        if (L == 0 && lay != LAY_MIXED && lay != LAY_SHORTMIX && lay != LAY_POWER) continue;
        reduce_case(REDSCAN_MIN, REDSCAN_FLOAT32, REDSCAN_FLOAT32, (layout)lay, REDSCAN_INT32, zcap, zbig, 1, 0);
        if (L == 0) continue;
        reduce_case(REDSCAN_MAX, REDSCAN_FLOAT32, REDSCAN_FLOAT32, (layout)lay, REDSCAN_INT32, zcap, zbig, 1, 0);
        /* argmin / argmax: CUDA's batches (rs_seg_leaf, rs_seg_group) and their NaN fallback */
        argext_case(REDSCAN_FLOAT32, 1, (layout)lay, 1, 0, 0);
        argext_case(REDSCAN_FLOAT32, 0, (layout)lay, 0, 0, 0);
        if (lay == LAY_SHORTMIX) /* the same over two segments a thread */
            reduce_case(REDSCAN_MAX, REDSCAN_FLOAT32, REDSCAN_FLOAT32, LAY_SHORT_PAIRS, REDSCAN_INT64, zcap, zbig, 0, 0);
        if (lay != LAY_MIXED && lay != LAY_SHORTMIX) continue;
        reduce_case(REDSCAN_MAX, REDSCAN_FLOAT16, REDSCAN_FLOAT16, (layout)lay, REDSCAN_UINT64, zcap, zbig, 0, 0);
        if (usable(REDSCAN_FLOAT64)) /* compute type float64: the left fold everywhere */
            reduce_case(REDSCAN_MIN, REDSCAN_FLOAT32, REDSCAN_FLOAT64, (layout)lay, REDSCAN_INT32, zcap, zbig, 0, 0);
    }
    g_zero_ties = 0;
    printf("layouts: %.1f s\n", h_now() - t0);

    t0 = h_now();
    for (int op = 0; op < 4; op++) {
        position_case((redscan_op)op, REDSCAN_FLOAT32);
        if (L >= 1) position_case((redscan_op)op, REDSCAN_BFLOAT16);
    }
    printf("positions: %.1f s\n", h_now() - t0);

    /* argmin / argmax: every dtype */
    t0 = h_now();
    for (size_t di = 0; di < N_DTYPES; di++) {
        if (!usable(ALL_DTYPES[di])) continue;
        for (int want_max = 0; want_max < 2; want_max++) {
            if (L == 0 && (di + (size_t)want_max) % 3 != 0) continue;
            argext_case(ALL_DTYPES[di], want_max, LAY_MIXED, (int)(di % 2), di % 4 == 0 ? 2 : 0, want_max && di == 4);
            if (L >= 1 && di % 4 == (size_t)want_max)
                argext_case(ALL_DTYPES[di], want_max, (layout)(1 + di % (LAY_COUNT - 1)), 1, 0, 0);
        }
    }
    if (L == 0) { /* level 1 runs these layouts above; level 0 takes one per path of the work division, with
                   * dtypes whose programs it builds anyway: a work-item per segment (ones), the queue (power law),
                   * the tiles and their second level (one segment of four chunks), blocking and _async */
        argext_case(REDSCAN_INT32, 0, LAY_ONES, 0, 0, 1);
        argext_case(REDSCAN_BFLOAT16, 1, LAY_POWER, 1, 0, 0);
        argext_case(REDSCAN_INT16, 1, LAY_HUGE, 1, 0, 1);
        argext_case(REDSCAN_INT32, 0, LAY_SHORTMIX, 1, 0, 0); /* the queue's batches, 4- and 8-byte values */
        if (usable(REDSCAN_FLOAT64)) argext_case(REDSCAN_FLOAT64, 1, LAY_SHORTMIX, 0, 0, 1);
    }
    /* CUDA's packed batches for argmin / argmax (float32, int32, uint32 where n <= 16 S: seg_short_arg_packed) at
     * their limits: short-mix's batches of 4096 values (packed) and 4097 (not), its segments of 5 .. 128 values for
     * the lane groups (float32 over every layout above, with NaNs and signed zeros) */
    argext_case(REDSCAN_UINT32, 1, LAY_SHORTMIX, 1, 0, 0);
    argext_case(REDSCAN_INT32, 1, LAY_SHORTMIX, 0, 0, 1);
    /* and with two segments a thread (n <= 7 S): short-pairs' limits, its last batch's two halves both used */
    argext_case(REDSCAN_FLOAT32, 1, LAY_SHORT_PAIRS, 1, 0, 0);
    argext_case(REDSCAN_INT32, 0, LAY_SHORT_PAIRS, 0, 0, 1);
    printf("argmin/argmax: %.1f s\n", h_now() - t0);
    return h_done();
}
