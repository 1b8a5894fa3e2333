/* test_reduce: every op x dtype (and widening) x reduction algorithm through redscan_reduce_ex on device
 * buffers, redscan_reduce_host_ex, redscan_reduce and redscan_reduce_host.
 *
 * Expected values (reference.h):
 *   integers                  exact, bit for bit (sequential reference; wrap-around)
 *   float min / max           NaN when any NaN, else the extreme value (-0.0 == +0.0), and bit for bit equal to
 *                             the documented order (which NaN payload / which zero depends on the pairing order)
 *   float sum / prod          within the error bound of the algorithm's depth against a long double reference,
 *                             and bit for bit equal to the documented order of combination (ALGORITHMS.md);
 *                             AUTO must give the bits of one of the three algorithms (of the one forced by
 *                             REDSCAN_REDUCE_ALGO when that is set)
 *   n = 0                     the identities: sum +0, prod 1, min type max / +inf, max type min / -inf
 * Every device case also checks: a second run gives the same bits; the input buffer (including a poisoned
 * tail past n, which must not influence the result) is unchanged; the result pointer receives exactly one
 * element of the output type (the bytes after it stay untouched); the host forms give the same bits.
 *
 * Sizes: the whole cross product up to 65537 (and three random sizes); at >= 2^20 a rotating subset in which
 * every op, dtype and algorithm still appears. REDSCAN_TEST_SUBSET=1 (the later passes and ASan: tests/harness.c)
 * runs 9 of the 27 table entries, as test_scan does. Targeted cases: signed zeros, widened sums that overflow the
 * narrow type, 2^24 + 1 ones (a float size computation drops the last element).
 *
 * The narrow types (int8, uint8, int16, uint16, float16, bfloat16; DESIGN "Narrow types") are 18 more entries of the
 * table (each in its own width and widened to 32 and to 64 bits) with the same sizes and data up to 65537, each once
 * over the large sizes, but below level 2 each (entry, op) with one algorithm, rotating (algo_mask: one OpenCL program
 * per (entry, op), which the targeted cases reuse), and the same expectations: the references compute as documented (integers in their own width
 * unless widened, float16 / bfloat16 in float32 rounded once when stored), integers and min / max exact, float sums /
 * products within the bound (plus the one rounding) and bit for bit equal to the documented order. h_generate's narrow
 * data carry the edge values (INT8_MIN / INT8_MAX, 0xFF, INT16_MIN, 65504, the smallest normal and subnormal, NaNs with
 * payloads) and float16 / bfloat16 sums that land on rounding ties. Targeted: identities, signed zeros and specials of
 * float16 / bfloat16, closed forms (narrow_closed_forms). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
    redscan_dtype in, out, field; /* field: what goes into out_dtype (0 = same) */
} dtpair;

static const dtpair TYPES[] = {
    {REDSCAN_INT32, REDSCAN_INT32, 0},           {REDSCAN_UINT32, REDSCAN_UINT32, 0},
    {REDSCAN_INT64, REDSCAN_INT64, 0},           {REDSCAN_UINT64, REDSCAN_UINT64, 0},
    {REDSCAN_FLOAT32, REDSCAN_FLOAT32, 0},       {REDSCAN_FLOAT64, REDSCAN_FLOAT64, 0},
    {REDSCAN_INT32, REDSCAN_INT64, REDSCAN_INT64}, {REDSCAN_UINT32, REDSCAN_UINT64, REDSCAN_UINT64},
    {REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_FLOAT64},
    /* the narrow types (DESIGN "Narrow types"): each in its own width, and widened to 32 and to 64 bits */
    {REDSCAN_INT8, REDSCAN_INT8, 0},             {REDSCAN_UINT8, REDSCAN_UINT8, 0},
    {REDSCAN_INT16, REDSCAN_INT16, 0},           {REDSCAN_UINT16, REDSCAN_UINT16, 0},
    {REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0},       {REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 0},
    {REDSCAN_INT8, REDSCAN_INT32, REDSCAN_INT32},  {REDSCAN_UINT8, REDSCAN_UINT32, REDSCAN_UINT32},
    {REDSCAN_INT16, REDSCAN_INT32, REDSCAN_INT32}, {REDSCAN_UINT16, REDSCAN_UINT32, REDSCAN_UINT32},
    {REDSCAN_FLOAT16, REDSCAN_FLOAT32, REDSCAN_FLOAT32}, {REDSCAN_BFLOAT16, REDSCAN_FLOAT32, REDSCAN_FLOAT32},
    {REDSCAN_INT8, REDSCAN_INT64, REDSCAN_INT64},  {REDSCAN_UINT8, REDSCAN_UINT64, REDSCAN_UINT64},
    {REDSCAN_INT16, REDSCAN_INT64, REDSCAN_INT64}, {REDSCAN_UINT16, REDSCAN_UINT64, REDSCAN_UINT64},
    {REDSCAN_FLOAT16, REDSCAN_FLOAT64, REDSCAN_FLOAT64}, {REDSCAN_BFLOAT16, REDSCAN_FLOAT64, REDSCAN_FLOAT64},
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])
/* The wide types' entries come first; the narrow ones (NWIDE .. NTYPES - 1) have rotations of their own, so that the
 * wide types' subsets and seeds stay what they were. */
#define NWIDE 9u
static const redscan_op OPS[] = {REDSCAN_SUM, REDSCAN_PROD, REDSCAN_MIN, REDSCAN_MAX};
static const redscan_reduce_algo ALGOS[] = {REDSCAN_REDUCE_TREE, REDSCAN_REDUCE_INTERLEAVED, REDSCAN_REDUCE_COARSENED,
                                            REDSCAN_REDUCE_AUTO};
#define ALL_ALGOS 0xFu

/* The algorithms a table entry runs with an op (OPS index oi, = the op's value), as a mask of ALGOS indices. The
 * OpenCL backend builds one program per (algorithm, dtype, out_dtype, op), seconds each cold on PoCL, and the 18
 * narrow entries x 4 ops x 3 programs cost the cold CI minutes; so below level 2 narrow entry i runs with op j the one
 * algorithm (i + j) % 4 (AUTO is coarsened's program) everywhere in this file: each (entry, op) builds one program,
 * and over the table every algorithm meets every narrow type and op. Level 2 runs them all; the wide entries always. */
static unsigned algo_mask(unsigned ti, unsigned oi)
{
    if (ti < NWIDE || h_level() >= 2) return ALL_ALGOS;
    return 1u << ((ti - NWIDE + oi) % 4u);
}

enum { API_EX = 1, API_HOST_EX = 2, API_PLAIN = 4, API_HOST_PLAIN = 8 };

static int g_have_fp64 = 1;

static const char *type_str(const dtpair *t, char *buf)
{
    if (t->field) snprintf(buf, 40, "%s->%s", ref_dtype_str(t->in), ref_dtype_str(t->out));
    else snprintf(buf, 40, "%s", ref_dtype_str(t->in));
    return buf;
}

/* Expected-value machinery for one data set. */
typedef struct {
    redscan_op op;
    const dtpair *t;
    const void *data;
    size_t n;
    int exact;          /* integers, min/max: one exact value */
    ref_val want;       /* exact value (or n = 0 identity) */
    ref_ld_acc acc;     /* float sum/prod reference */
    int emu_done[3];
    ref_val emu[3];     /* documented-order results of TREE, INTERLEAVED, COARSENED */
} expect_t;

static ref_val emu_of(expect_t *e, redscan_reduce_algo a)
{
    int i = (int)a - 1;
    if (!e->emu_done[i]) {
        e->emu[i] = ref_reduce_emulate(a, e->op, e->t->in, e->t->out, e->data, e->n);
        e->emu_done[i] = 1;
    }
    return e->emu[i];
}

static void expect_init(expect_t *e, redscan_op op, const dtpair *t, const void *data, size_t n)
{
    memset(e, 0, sizeof *e);
    e->op = op;
    e->t = t;
    e->data = data;
    e->n = n;
    e->exact = n == 0 || !ref_is_float(t->out) || op == REDSCAN_MIN || op == REDSCAN_MAX;
    if (e->exact) {
        e->want = ref_reduce_seq(op, t->in, t->out, data, n);
    } else {
        ref_ld_init(&e->acc, op);
        for (size_t i = 0; i < n; i++) {
            ref_val v = ref_load(t->in, data, i);
            ref_ld_add(&e->acc, op, ref_to_ld(t->in, v), ref_isnan(t->in, v));
        }
    }
}

/* Check one result of algorithm a. */
static void check_result(expect_t *e, redscan_reduce_algo a, ref_val got, const char *what)
{
    char g[96], w[96];
    const redscan_dtype T = e->t->out;
    const int fminmax = e->n && ref_is_float(T) && (e->op == REDSCAN_MIN || e->op == REDSCAN_MAX);
    if (e->exact && !fminmax) {
        CHECK(ref_result_equal(e->op, T, got, e->want), "%s: got %s, want %s", what, h_fmt(T, got, g),
              h_fmt(T, e->want, w));
        return;
    }
    if (fminmax) {
        /* Order-independent part: NaN if any NaN, else the extreme value (+0.0 == -0.0). Which NaN (payload,
         * sign) and which zero come out depends on the order of combination ("the first NaN met in the
         * combination order"; tree and coarsened pair non-adjacent indices), so the bits are checked against
         * the documented order below. */
        int gn = ref_isnan(T, got), wn = ref_isnan(T, e->want);
        CHECK(gn == wn && (wn || ref_to_double(T, got) == ref_to_double(T, e->want)), "%s: got %s, want %s", what,
              h_fmt(T, got, g), h_fmt(T, e->want, w));
    } else {
        double err, bound;
        unsigned depth = ref_reduce_depth(a, e->n);
        int ok = ref_fbound_ok(e->op, T, got, &e->acc, depth, &err, &bound);
        CHECK(ok, "%s: got %s, reference %.17Lg: |error| %.3g > bound %.3g (depth %u)", what, h_fmt(T, got, g),
              ref_ld_value(&e->acc, e->op), err, bound, depth);
    }
    if (!h_exact_order()) return;
    redscan_reduce_algo forced = a == REDSCAN_REDUCE_AUTO ? h_env_reduce_algo() : a;
    if (forced != REDSCAN_REDUCE_AUTO) {
        ref_val want = emu_of(e, forced);
        CHECK(ref_result_equal(e->op, T, got, want), "%s: got %s, documented order of '%s' gives %s", what,
              h_fmt(T, got, g), h_algo_str(forced), h_fmt(T, want, w));
    } else {
        int any = 0;
        char w1[96], w2[96];
        for (int i = 1; i <= 3; i++) any |= ref_result_equal(e->op, T, got, emu_of(e, (redscan_reduce_algo)i));
        CHECK(any, "%s: AUTO got %s, which is none of tree %s / interleaved %s / coarsened %s", what,
              h_fmt(T, got, g), h_fmt(T, e->emu[0], w), h_fmt(T, e->emu[1], w1), h_fmt(T, e->emu[2], w2));
    }
}

static int skip_type(const dtpair *t)
{
    return !g_have_fp64 && (t->in == REDSCAN_FLOAT64 || t->out == REDSCAN_FLOAT64);
}

/* One data set (op, type, n, generator) against the algorithms in algo_mask through the APIs in api_mask. */
static void family(redscan_op op, unsigned ti, size_t n, h_gen gen, unsigned algo_mask, unsigned api_mask)
{
    const dtpair *t = &TYPES[ti];
    if (skip_type(t) || !h_type_in_subset(t->in, t->out)) return; /* REDSCAN_TEST_SUBSET=1 (harness.c) */
    const size_t is = ref_size(t->in), os = ref_size(t->out);
    const uint64_t seed = h_seed(1, (uint64_t)op, ti, n, (uint64_t)gen, 0);
    char ts[40];
    type_str(t, ts);
    /* generate */
    h_rng r;
    h_rng_init(&r, seed);
    const size_t pad = 1 + n % 61;
    unsigned char *data = (unsigned char *)h_malloc((n + pad) * is);
    h_generate(&r, t->in, op, gen, data, n);
    h_fill(t->in, data + n * is, pad, h_poison(op, t->in));
    unsigned char *copy = (unsigned char *)h_malloc((n + pad) * is);
    memcpy(copy, data, (n + pad) * is);
    expect_t e;
    expect_init(&e, op, t, data, n);

    redscan_buffer *buf = NULL;
    if (api_mask & (API_EX | API_PLAIN)) {
        h_case("reduce setup %s %s n=%zu gen=%s seed=0x%" PRIx64, ref_op_str(op), ts, n, h_gen_name(gen), seed);
        buf = h_buffer_with(data, n * is, (n + pad) * is, t->in, h_poison(op, t->in));
        if (!buf) goto out;
    }
    for (unsigned ai = 0; ai < 4; ai++) {
        if (!(algo_mask & (1u << ai))) continue;
        redscan_reduce_algo a = ALGOS[ai];
        if (!h_case("reduce %s %s %s n=%zu gen=%s seed=0x%" PRIx64, ref_op_str(op), ts, h_algo_str(a), n,
                    h_gen_name(gen), seed))
            continue;
        redscan_reduce_desc d = {op, t->in, t->field, a, 0};
        unsigned char res[16], res2[16], sentinel[16];
        memset(sentinel, 0xA5, sizeof sentinel);
        if (api_mask & API_EX) {
            memcpy(res, sentinel, 16);
            redscan_status st = redscan_reduce_ex(h_ctx, &d, buf, n, res);
            if (CHECK_OK(st, "redscan_reduce_ex")) {
                check_result(&e, a, ref_load(t->out, res, 0), "reduce_ex");
                CHECK(memcmp(res + os, sentinel, 16 - os) == 0, "reduce_ex wrote past the %zu-byte result", os);
                /* a second run gives the same bits */
                memcpy(res2, sentinel, 16);
                st = redscan_reduce_ex(h_ctx, &d, buf, n, res2);
                if (CHECK_OK(st, "redscan_reduce_ex (second run)"))
                    CHECK_BITS(t->out, res2, res, 1, "second run");
            }
            /* the input buffer is unchanged, poisoned tail included */
            unsigned char *back = (unsigned char *)h_malloc((n + pad) * is);
            st = redscan_buffer_read(h_ctx, buf, 0, back, (n + pad) * is);
            if (CHECK_OK(st, "redscan_buffer_read")) CHECK_MEM(back, copy, (n + pad) * is, "input buffer after reduce");
            free(back);
        }
        if (api_mask & API_HOST_EX) {
            memcpy(res2, sentinel, 16);
            redscan_status st = redscan_reduce_host_ex(h_ctx, &d, data, n, res2);
            if (CHECK_OK(st, "redscan_reduce_host_ex")) {
                check_result(&e, a, ref_load(t->out, res2, 0), "reduce_host_ex");
                if (api_mask & API_EX) CHECK_BITS(t->out, res2, res, 1, "reduce_host_ex vs reduce_ex");
                CHECK(memcmp(res2 + os, sentinel, 16 - os) == 0, "reduce_host_ex wrote past the result");
            }
        }
        if (a == REDSCAN_REDUCE_AUTO && !t->field) {
            if (api_mask & API_PLAIN) {
                memcpy(res2, sentinel, 16);
                redscan_status st = redscan_reduce(h_ctx, op, t->in, buf, n, res2);
                if (CHECK_OK(st, "redscan_reduce")) {
                    check_result(&e, a, ref_load(t->out, res2, 0), "redscan_reduce");
                    CHECK(memcmp(res2 + os, sentinel, 16 - os) == 0, "redscan_reduce wrote past the result");
                }
            }
            if (api_mask & API_HOST_PLAIN) {
                memcpy(res2, sentinel, 16);
                redscan_status st = redscan_reduce_host(h_ctx, op, t->in, data, n, res2);
                if (CHECK_OK(st, "redscan_reduce_host")) check_result(&e, a, ref_load(t->out, res2, 0), "reduce_host");
            }
        }
        CHECK_MEM(data, copy, (n + pad) * is, "host input after the host forms");
    }
out:
    if (buf) redscan_buffer_destroy(h_ctx, buf);
    free(copy);
    free(data);
}

/* ---------------------------------------------------------------- targeted cases */

static void one_reduce(const redscan_reduce_desc *d, const void *data, size_t n, void *res, const char *what)
{
    redscan_status st = redscan_reduce_host_ex(h_ctx, d, data, n, res);
    CHECK_OK(st, what);
}

static const redscan_dtype FLOATS[] = {REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_FLOAT16, REDSCAN_BFLOAT16};

/* Whether the targeted cases run (in -> out, op) with ALGOS[ai]: the table entry's algo_mask, so that they reuse the
 * programs the cross product built (an (in, out) pair outside the table: every algorithm; an entry left out by
 * REDSCAN_TEST_SUBSET=1: none, since nothing built its programs). */
static int runs_algo(redscan_dtype in, redscan_dtype out, redscan_op op, unsigned ai)
{
    for (unsigned ti = 0; ti < NTYPES; ti++)
        if (TYPES[ti].in == in && TYPES[ti].out == out)
            return h_type_in_subset(in, out) && ((algo_mask(ti, (unsigned)op) >> ai) & 1u);
    return 1;
}

/* x as an element of the float type dt (x exact in dt, or NaN / inf) */
static ref_val fval(redscan_dtype dt, double x)
{
    ref_val v = ref_zero();
    if (dt == REDSCAN_FLOAT32) v.f32 = (float)x;
    else if (dt == REDSCAN_FLOAT64) v.f64 = x;
    else v.u16 = ref_f32_to_narrow(dt, (float)x);
    return v;
}

static void signed_zeros(void)
{
    static const size_t sizes[] = {1, 2, 5, 256, 257, 1000, 4097, 5000};
    for (int f = 0; f < 4; f++) {
        redscan_dtype dt = FLOATS[f];
        if (dt == REDSCAN_FLOAT64 && !g_have_fp64) continue;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            void *x = h_malloc(n * 8);
            for (unsigned ai = 0; ai < 4; ai++) {
                redscan_reduce_desc d = {REDSCAN_SUM, dt, 0, ALGOS[ai], 0};
                ref_val got = ref_zero(), want = ref_zero();
                char g[96], w[96];
                const int sum_runs = runs_algo(dt, dt, REDSCAN_SUM, ai);
                /* all -0.0: the sum is -0.0 (identity -0.0 keeps it) */
                if (sum_runs && h_case("signed zeros sum %s %s n=%zu all -0.0", ref_dtype_str(dt), h_algo_str(ALGOS[ai]), n)) {
                    for (size_t i = 0; i < n; i++) ref_store(dt, x, i, fval(dt, -0.0));
                    one_reduce(&d, x, n, got.b, "reduce_host_ex");
                    want = fval(dt, -0.0);
                    CHECK(ref_bits_equal(dt, got, want), "got %s, want %s", h_fmt(dt, got, g), h_fmt(dt, want, w));
                }
                /* all +0.0 and mixed: +0.0 */
                for (int mixed = 0; mixed < 2; mixed++) {
                    if (!sum_runs || !h_case("signed zeros sum %s %s n=%zu %s", ref_dtype_str(dt), h_algo_str(ALGOS[ai]), n,
                                mixed ? "mixed" : "all +0.0"))
                        continue;
                    for (size_t i = 0; i < n; i++) {
                        int neg = mixed && (i % 3 != 1);
                        ref_store(dt, x, i, fval(dt, neg ? -0.0 : 0.0));
                    }
                    if (mixed && n == 1) continue;
                    got = ref_zero();
                    one_reduce(&d, x, n, got.b, "reduce_host_ex");
                    want = ref_zero();
                    CHECK(ref_bits_equal(dt, got, want), "got %s, want +0", h_fmt(dt, got, g));
                }
                /* min / max of zeros: the first zero (ties keep the earlier operand) */
                for (int op = REDSCAN_MIN; op <= REDSCAN_MAX; op++) {
                    if (!runs_algo(dt, dt, (redscan_op)op, ai) || !h_case("signed zeros %s %s %s n=%zu", ref_op_str((redscan_op)op), ref_dtype_str(dt),
                                h_algo_str(ALGOS[ai]), n))
                        continue;
                    redscan_reduce_desc dm = {(redscan_op)op, dt, 0, ALGOS[ai], 0};
                    for (size_t i = 0; i < n; i++) {
                        int neg = (i % 2) == (size_t)(op == REDSCAN_MAX); /* first element: -0 for min, +0 for max */
                        ref_store(dt, x, i, fval(dt, neg ? -0.0 : 0.0));
                    }
                    got = ref_zero();
                    one_reduce(&dm, x, n, got.b, "reduce_host_ex");
                    want = ref_load(dt, x, 0);
                    CHECK(ref_bits_equal(dt, got, want), "got %s, want the first zero %s", h_fmt(dt, got, g),
                          h_fmt(dt, want, w));
                }
            }
            free(x);
        }
    }
}

static void identities(void)
{
    /* n = 0: written out literally, independent of ref_empty_result */
    for (unsigned ti = 0; ti < NTYPES; ti++) {
        const dtpair *t = &TYPES[ti];
        if (skip_type(t)) continue;
        char ts[40];
        type_str(t, ts);
        for (unsigned oi = 0; oi < 4; oi++) {
            redscan_op op = OPS[oi];
            ref_val want = ref_zero();
            switch (t->out) {
            case REDSCAN_INT32: want.i32 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT32_MAX : INT32_MIN; break;
            case REDSCAN_UINT32: want.u32 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? UINT32_MAX : 0; break;
            case REDSCAN_INT64: want.i64 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT64_MAX : INT64_MIN; break;
            case REDSCAN_UINT64: want.u64 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? UINT64_MAX : 0; break;
            case REDSCAN_FLOAT32: want.f32 = op == REDSCAN_SUM ? 0.0f : op == REDSCAN_PROD ? 1.0f : op == REDSCAN_MIN ? INFINITY : -INFINITY; break;
            case REDSCAN_FLOAT64: want.f64 = op == REDSCAN_SUM ? 0.0 : op == REDSCAN_PROD ? 1.0 : op == REDSCAN_MIN ? INFINITY : -INFINITY; break;
            case REDSCAN_INT8: want.i8 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT8_MAX : INT8_MIN; break;
            case REDSCAN_UINT8: want.u8 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? UINT8_MAX : 0; break;
            case REDSCAN_INT16: want.i16 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT16_MAX : INT16_MIN; break;
            case REDSCAN_UINT16: want.u16 = op == REDSCAN_SUM ? 0 : op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? UINT16_MAX : 0; break;
            /* +0, 1, +inf, -inf */
            case REDSCAN_FLOAT16: want.u16 = op == REDSCAN_SUM ? 0x0000 : op == REDSCAN_PROD ? 0x3c00 : op == REDSCAN_MIN ? 0x7c00 : 0xfc00; break;
            case REDSCAN_BFLOAT16: want.u16 = op == REDSCAN_SUM ? 0x0000 : op == REDSCAN_PROD ? 0x3f80 : op == REDSCAN_MIN ? 0x7f80 : 0xff80; break;
            default: CHECK(0, "identities: no literal for %s", ref_dtype_str(t->out)); break;
            }
            for (unsigned ai = 0; ai < 4; ai++) {
                if (!h_case("identity n=0 %s %s %s", ref_op_str(op), ts, h_algo_str(ALGOS[ai]))) continue;
                redscan_reduce_desc d = {op, t->in, t->field, ALGOS[ai], 0};
                unsigned char res[16];
                char g[96], w[96];
                int32_t dummy = 7;
                memset(res, 0xA5, 16);
                redscan_status st = redscan_reduce_host_ex(h_ctx, &d, &dummy, 0, res);
                if (CHECK_OK(st, "reduce_host_ex n=0"))
                    CHECK(ref_bits_equal(t->out, ref_load(t->out, res, 0), want), "got %s, want %s",
                          h_fmt(t->out, ref_load(t->out, res, 0), g), h_fmt(t->out, want, w));
                redscan_buffer *b = h_buffer(64);
                if (!b) continue;
                memset(res, 0xA5, 16);
                st = redscan_reduce_ex(h_ctx, &d, b, 0, res);
                if (CHECK_OK(st, "reduce_ex n=0"))
                    CHECK(ref_bits_equal(t->out, ref_load(t->out, res, 0), want), "device: got %s, want %s",
                          h_fmt(t->out, ref_load(t->out, res, 0), g), h_fmt(t->out, want, w));
                redscan_buffer_destroy(h_ctx, b);
            }
        }
    }
}

/* Widened sums that overflow the narrow type, with the wide result written out literally. */
static void widening_overflow(void)
{
    const size_t n = 100003;
    for (unsigned ai = 0; ai < 4; ai++) {
        redscan_reduce_algo a = ALGOS[ai];
        if (h_case("widening int32->int64 sum of INT32_MAX n=%zu %s", n, h_algo_str(a))) {
            int32_t *x = (int32_t *)h_malloc(n * 4);
            for (size_t i = 0; i < n; i++) x[i] = INT32_MAX;
            redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, a, 0};
            int64_t got = 0;
            one_reduce(&d, x, n, &got, "reduce_host_ex");
            CHECK(got == (int64_t)n * INT32_MAX, "got %" PRId64 ", want %" PRId64, got, (int64_t)n * INT32_MAX);
            for (size_t i = 0; i < n; i++) x[i] = (i & 1) ? INT32_MIN : INT32_MIN + 1;
            got = 0;
            one_reduce(&d, x, n, &got, "reduce_host_ex");
            int64_t want = (int64_t)((n + 1) / 2) * (INT32_MIN + 1) + (int64_t)(n / 2) * INT32_MIN;
            CHECK(got == want, "negative: got %" PRId64 ", want %" PRId64, got, want);
            /* the narrow sum wraps (computed on uint32) */
            redscan_reduce_desc dn = {REDSCAN_SUM, REDSCAN_INT32, 0, a, 0};
            int32_t got32 = 0;
            one_reduce(&dn, x, n, &got32, "reduce_host_ex (narrow)");
            CHECK(got32 == (int32_t)(uint32_t)(uint64_t)want, "narrow wrap: got %" PRId32 ", want %" PRId32, got32,
                  (int32_t)(uint32_t)(uint64_t)want);
            free(x);
        }
        if (h_case("widening uint32->uint64 sum of UINT32_MAX n=%zu %s", n, h_algo_str(a))) {
            uint32_t *x = (uint32_t *)h_malloc(n * 4);
            for (size_t i = 0; i < n; i++) x[i] = UINT32_MAX;
            redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_UINT32, REDSCAN_UINT64, a, 0};
            uint64_t got = 0;
            one_reduce(&d, x, n, &got, "reduce_host_ex");
            CHECK(got == (uint64_t)n * UINT32_MAX, "got %" PRIu64 ", want %" PRIu64, got, (uint64_t)n * UINT32_MAX);
            free(x);
        }
        if (g_have_fp64 && h_case("widening float32->float64 sum n=2^24+1 ones %s", h_algo_str(a))) {
            const size_t m = (1u << 24) + 1;
            float *x = (float *)h_malloc(m * 4);
            for (size_t i = 0; i < m; i++) x[i] = 1.0f;
            redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT64, a, 0};
            double got = 0;
            one_reduce(&d, x, m, &got, "reduce_host_ex");
            CHECK(got == 16777217.0, "got %.17g, want 16777217 (float32 accumulation would give 16777216)", got);
            /* products: 2^-1 * ... widened keeps precision the narrow type cannot: (1 + 2^-20)^3 */
            free(x);
        }
        if (h_case("int32 sum of 2^24+1 ones (float size computations drop the last element) %s", h_algo_str(a))) {
            const size_t m = (1u << 24) + 1;
            int32_t *x = (int32_t *)h_malloc(m * 4);
            for (size_t i = 0; i < m; i++) x[i] = 1;
            x[m - 1] = 1000; /* the last element matters */
            redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, a, 0};
            int32_t got = 0;
            one_reduce(&d, x, m, &got, "reduce_host_ex");
            CHECK(got == (int32_t)(m - 1 + 1000), "got %" PRId32 ", want %" PRId32, got, (int32_t)(m - 1 + 1000));
            /* max sees the last element too */
            redscan_reduce_desc dm = {REDSCAN_MAX, REDSCAN_INT32, 0, a, 0};
            one_reduce(&dm, x, m, &got, "reduce_host_ex max");
            CHECK(got == 1000, "max: got %" PRId32 ", want 1000", got);
            free(x);
        }
    }
}

/* The narrow types: widened sums that overflow the narrow type, the narrow sums' wrap-around, and float16 / bfloat16
 * totals rounded on a tie (to even), at float16's overflow threshold and in the subnormals. The data are one value
 * repeated (the last element another), so that every partial result is exact and every algorithm gives the host
 * reference's bits (ref_reduce_seq), which is the expectation; the closed form, written out, is checked against that
 * reference too. */
typedef struct {
    const char *what;
    redscan_dtype in, out;
    uint16_t x, last; /* the bits of every element but the last, of the last */
    size_t n;
    uint64_t iwant;   /* integer result (two's complement, the low bytes of out's width) */
    double fwant;     /* float result (exact in out) */
} closed_case;

static const closed_case NARROW_CLOSED[] = {
    {"int8->int32 sum of INT8_MAX", REDSCAN_INT8, REDSCAN_INT32, 0x7f, 0x7f, 100003, 100003u * 127u, 0},
    {"int8 sum of INT8_MAX (wraps)", REDSCAN_INT8, REDSCAN_INT8, 0x7f, 0x7f, 100003, (100003u * 127u) & 0xffu, 0},
    {"int8->int64 sum of INT8_MIN", REDSCAN_INT8, REDSCAN_INT64, 0x80, 0x80, 100003, (uint64_t)(-128 * (int64_t)100003), 0},
    {"uint8->uint32 sum of 0xFF", REDSCAN_UINT8, REDSCAN_UINT32, 0xff, 0xff, 100003, 100003u * 255u, 0},
    {"uint8 sum of 0xFF (wraps)", REDSCAN_UINT8, REDSCAN_UINT8, 0xff, 0xff, 100003, (100003u * 255u) & 0xffu, 0},
    {"int16->int32 sum of INT16_MAX", REDSCAN_INT16, REDSCAN_INT32, 0x7fff, 0x7fff, 65537, 65537u * 32767u, 0},
    {"int16 sum of INT16_MIN (wraps)", REDSCAN_INT16, REDSCAN_INT16, 0x8000, 0x8000, 100003, 0x8000, 0},
    {"int16->int64 sum of INT16_MIN", REDSCAN_INT16, REDSCAN_INT64, 0x8000, 0x8000, 100003,
     (uint64_t)(-32768 * (int64_t)100003), 0},
    {"uint16->uint32 sum of 0xFFFF", REDSCAN_UINT16, REDSCAN_UINT32, 0xffff, 0xffff, 65537, UINT32_MAX, 0},
    {"uint16->uint64 sum of 0xFFFF", REDSCAN_UINT16, REDSCAN_UINT64, 0xffff, 0xffff, 100003, 100003ull * 65535u, 0},
    {"float16 sum of 2049 ones (tie: 2048)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0x3c00, 0x3c00, 2049, 0, 2048.0},
    {"float16 sum of 2051 ones (tie: 2052)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0x3c00, 0x3c00, 2051, 0, 2052.0},
    {"float16->float32 sum of 2049 ones", REDSCAN_FLOAT16, REDSCAN_FLOAT32, 0x3c00, 0x3c00, 2049, 0, 2049.0},
    {"float16 65504 + 16 (65520: overflow)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0x7bff, 0x4c00, 2, 0, INFINITY},
    {"float16 65504 + 15 (65504)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0x7bff, 0x4b80, 2, 0, 65504.0},
    {"float16->float64 sum of 65504", REDSCAN_FLOAT16, REDSCAN_FLOAT64, 0x7bff, 0x7bff, 100003, 0, 65504.0 * 100003},
    {"float16 sum of 2049 smallest subnormals (tie: 2^-13)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0x0001, 0x0001, 2049, 0,
     0x1p-13},
    {"float16->float32 sum of 2049 smallest subnormals", REDSCAN_FLOAT16, REDSCAN_FLOAT32, 0x0001, 0x0001, 2049, 0,
     2049 * 0x1p-24},
    {"float16 sum of smallest normals and a -smallest subnormal", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0x0400, 0x8001, 3,
     0, 2 * 0x1p-14 - 0x1p-24},
    {"bfloat16 sum of 257 ones (tie: 256)", REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 0x3f80, 0x3f80, 257, 0, 256.0},
    {"bfloat16 sum of 259 ones (tie: 260)", REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 0x3f80, 0x3f80, 259, 0, 260.0},
    {"bfloat16->float32 sum of 257 ones", REDSCAN_BFLOAT16, REDSCAN_FLOAT32, 0x3f80, 0x3f80, 257, 0, 257.0},
    {"bfloat16 sum of 3 smallest subnormals", REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 0x0001, 0x0001, 3, 0, 3 * 0x1p-133},
};

static void narrow_closed_forms(void)
{
    for (size_t ci = 0; ci < sizeof NARROW_CLOSED / sizeof NARROW_CLOSED[0]; ci++) {
        const closed_case *c = &NARROW_CLOSED[ci];
        if (!g_have_fp64 && c->out == REDSCAN_FLOAT64) continue;
        unsigned char *x = (unsigned char *)h_malloc(c->n * ref_size(c->in));
        ref_val v = ref_zero(), last = ref_zero();
        v.u16 = c->x, last.u16 = c->last; /* the low byte for the 8-bit types */
        h_fill(c->in, x, c->n - 1, v);
        ref_store(c->in, x, c->n - 1, last);
        ref_val want = ref_reduce_seq(REDSCAN_SUM, c->in, c->out, x, c->n), closed = ref_zero();
        char g[96], w[96];
        if (ref_is_float(c->out)) closed = fval(c->out, c->fwant);
        else closed.u64 = c->iwant;
        if (h_case("narrow closed form: %s n=%zu (reference)", c->what, c->n))
            CHECK(ref_bits_equal(c->out, want, closed), "the reference gives %s, the closed form is %s",
                  h_fmt(c->out, want, g), h_fmt(c->out, closed, w));
        for (unsigned ai = 0; ai < 4; ai++) {
            if (!runs_algo(c->in, c->out, REDSCAN_SUM, ai) ||
                !h_case("narrow closed form: %s n=%zu %s", c->what, c->n, h_algo_str(ALGOS[ai])))
                continue;
            redscan_reduce_desc d = {REDSCAN_SUM, c->in, c->out == c->in ? (redscan_dtype)0 : c->out, ALGOS[ai], 0};
            ref_val got = ref_zero();
            one_reduce(&d, x, c->n, got.b, "reduce_host_ex");
            CHECK(ref_bits_equal(c->out, got, want), "got %s, want %s", h_fmt(c->out, got, g), h_fmt(c->out, want, w));
        }
        free(x);
    }
}

/* Float specials that must come out the same on any order. */
static void float_specials(void)
{
    for (int f = 0; f < 4; f++) {
        redscan_dtype dt = FLOATS[f];
        if (dt == REDSCAN_FLOAT64 && !g_have_fp64) continue;
        const size_t n = 3001;
        double *xd = (double *)h_malloc(n * sizeof *xd);
        void *x = h_malloc(n * 8);
        for (unsigned ai = 0; ai < 4; ai++) {
            redscan_reduce_algo a = ALGOS[ai];
            for (int k = 0; k < 5; k++) {
                static const char *what[] = {"one +inf", "+inf and -inf", "NaN last", "NaN first", "NaN in the middle"};
                if (!h_case("float specials %s %s %s", ref_dtype_str(dt), h_algo_str(a), what[k])) continue;
                for (size_t i = 0; i < n; i++) xd[i] = (double)(i % 7) - 3.0;
                if (k == 0) xd[1234] = INFINITY;
                if (k == 1) xd[10] = INFINITY, xd[2999] = -INFINITY;
                if (k == 2) xd[n - 1] = NAN;
                if (k == 4) xd[1500] = NAN;
                if (k == 3) xd[0] = NAN;
                for (size_t i = 0; i < n; i++) ref_store(dt, x, i, fval(dt, xd[i]));
                for (int op = 0; op < 4; op++) {
                    if (!runs_algo(dt, dt, (redscan_op)op, ai)) continue;
                    redscan_reduce_desc d = {(redscan_op)op, dt, 0, a, 0};
                    ref_val got = ref_zero();
                    one_reduce(&d, x, n, got.b, "reduce_host_ex");
                    double g = ref_to_double(dt, got);
                    if (k >= 2) CHECK(isnan(g), "%s: got %g, want NaN", ref_op_str((redscan_op)op), g);
                    else if (k == 1 && op <= REDSCAN_PROD) CHECK(isnan(g), "%s: got %g, want NaN", ref_op_str((redscan_op)op), g);
                    else if (op == REDSCAN_SUM) CHECK(g == INFINITY, "sum: got %g, want +inf", g);
                    else if (op == REDSCAN_MIN) CHECK(g == (k == 1 ? -INFINITY : -3.0), "min: got %g", g);
                    else if (op == REDSCAN_MAX) CHECK(g == INFINITY, "max: got %g, want +inf", g);
                    else if (op == REDSCAN_PROD) CHECK(isnan(g), "prod with a 0 factor and inf: got %g, want NaN", g);
                }
            }
        }
        free(x);
        free(xd);
    }
}

int main(void)
{
    h_open("test_reduce");
    double t0 = h_now();
    {
        /* fp64: a device without it reports UNSUPPORTED (test_errors checks that path) */
        double one = 1.0, r = 0;
        redscan_status st = redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &r);
        if (st == REDSCAN_ERR_UNSUPPORTED) {
            g_have_fp64 = 0;
            printf("note: the device has no fp64; FLOAT64 cases are skipped (%s)\n", h_last_error());
        }
    }

    identities();
    printf("identities: %.1f s\n", h_now() - t0);

    /* the full cross product at every size up to 65537 */
    size_t sizes[64];
    size_t ns = 0;
    static const size_t fixed[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1023, 1024,
                                   1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8193, 65535, 65536, 65537};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) sizes[ns++] = fixed[i];
    {
        h_rng r;
        h_rng_init(&r, h_seed(100, 0, 0, 0, 0, 0));
        sizes[ns++] = 4 + (size_t)h_rng_below(&r, 5000);
        sizes[ns++] = 5000 + (size_t)h_rng_below(&r, 60000);
        sizes[ns++] = 65538 + (size_t)h_rng_below(&r, 200000);
        printf("random sizes: %zu %zu %zu\n", sizes[ns - 3], sizes[ns - 2], sizes[ns - 1]);
    }
    t0 = h_now();
    for (size_t si = 0; si < ns; si++) {
        size_t n = sizes[si];
        for (unsigned oi = 0; oi < 4; oi++)
            for (unsigned ti = 0; ti < NWIDE; ti++) {
                int ng = h_gen_count(TYPES[ti].in);
                unsigned api = API_EX | (n <= 70000 ? API_HOST_EX : 0) | API_PLAIN | API_HOST_PLAIN;
                if (n <= 600 || h_level() >= 2) {
                    for (int g = 0; g < ng; g++) family(OPS[oi], ti, n, (h_gen)g, ALL_ALGOS, api);
                } else {
                    family(OPS[oi], ti, n, (h_gen)((si + oi + ti) % (unsigned)ng), ALL_ALGOS, api);
                }
            }
    }
    printf("cross product (%zu sizes): %.1f s\n", ns, h_now() - t0);

    /* the narrow types: the same cross product */
    t0 = h_now();
    for (size_t si = 0; si < ns; si++) {
        size_t n = sizes[si];
        for (unsigned oi = 0; oi < 4; oi++)
            for (unsigned ti = NWIDE; ti < NTYPES; ti++) {
                int ng = h_gen_count(TYPES[ti].in);
                unsigned api = API_EX | (n <= 70000 ? API_HOST_EX : 0) | API_PLAIN | API_HOST_PLAIN;
                if (n <= 600 || h_level() >= 2) {
                    for (int g = 0; g < ng; g++) family(OPS[oi], ti, n, (h_gen)g, algo_mask(ti, oi), api);
                } else {
                    family(OPS[oi], ti, n, (h_gen)((si + oi + ti) % (unsigned)ng), algo_mask(ti, oi), api);
                }
            }
    }
    printf("narrow types, cross product (%zu sizes): %.1f s\n", ns, h_now() - t0);

    /* large sizes: a rotating subset; over each size every op, dtype and algorithm appears */
    t0 = h_now();
    {
        static const size_t large[] = {(1u << 20) - 3, (1u << 20), (1u << 20) + 3, (1u << 24) + 1};
        size_t nl = sizeof large / sizeof large[0];
        for (size_t li = 0; li < nl; li++) {
            unsigned per = h_level() == 0 ? 4 : 12;
            if (large[li] > (1u << 23) && h_level() < 2) per = 9; /* still covers all 9 types, 4 ops, 4 algos */
            for (unsigned k = 0; k < per; k++) {
                redscan_op op = OPS[(k + li) % 4];
                unsigned ti = (unsigned)((k + 2 * li) % NWIDE);
                unsigned ai = (unsigned)((k + 3 * li) % 4);
                h_gen g = (h_gen)((k + li) % (unsigned)h_gen_count(TYPES[ti].in));
                family(op, ti, large[li], g, 1u << ai, API_EX | (k % 3 == 0 ? API_HOST_EX : 0));
            }
        }
    }
    printf("large sizes: %.1f s\n", h_now() - t0);

    /* large sizes, the narrow types: 5 + 5 + 5 + 3 consecutive entries, so that each of the 18 appears once over the
     * four sizes (level 0: 2 per size; level 2: 12 per size), ops rotating, each with its algo_mask algorithm (level 2:
     * algorithms rotating) */
    t0 = h_now();
    {
        static const size_t large[] = {(1u << 20) - 3, (1u << 20), (1u << 20) + 3, (1u << 24) + 1};
        const unsigned nn = (unsigned)(NTYPES - NWIDE);
        for (unsigned li = 0; li < 4; li++) {
            unsigned per = h_level() == 0 ? 2 : h_level() >= 2 ? 12 : li < 3 ? 5 : 3;
            for (unsigned k = 0; k < per; k++) {
                redscan_op op = OPS[(k + li) % 4];
                unsigned ti = NWIDE + (k + 5 * li) % nn;
                /* below level 2 the (entry, op)'s own algorithm (its program is built already) */
                unsigned ai = h_level() >= 2 ? (k + 3 * li) % 4 : (ti - NWIDE + (unsigned)op) % 4;
                h_gen g = (h_gen)((k + li) % (unsigned)h_gen_count(TYPES[ti].in));
                family(op, ti, large[li], g, 1u << ai, API_EX | (k % 3 == 0 ? API_HOST_EX : 0));
            }
        }
    }
    printf("narrow types, large sizes: %.1f s\n", h_now() - t0);

    t0 = h_now();
    signed_zeros();
    float_specials();
    widening_overflow();
    narrow_closed_forms();
    printf("targeted cases: %.1f s\n", h_now() - t0);
    return h_done();
}
