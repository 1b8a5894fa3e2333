/* test_narrow: the narrow types (docs/SEMANTICS.md, "Narrow types") through the library, against host references
 * written here from the documents (float16 and bfloat16 rounding to nearest even computed in float64):
 *   1. every float16 and bfloat16 bit pattern (REDSCAN_TEST_SUBSET=1: the specials and a sixteenth of the rest)
 *      through a one-element scan (sum, same type: the pattern itself, NaNs
 *      as the canonical NaN) and a one-element reduce (max, widened to float32: the exact value, NaN payload kept);
 *   2. rounding once on store: float16 / bfloat16 sums and scans over data whose float32 partial sums are all exact,
 *      so every algorithm gives round(exact) whatever its order, including ties to even; and (2b) AUTO sums whose
 *      full tiles store subnormal, infinite and NaN prefixes;
 *   3. int8 / uint8 / int16 / uint16: sum, prod, min, max in their own width (wrap-around) and widened to 32 and 64
 *      bits, every reduction algorithm and every scan block x grid, inclusive and exclusive with init, edge values
 *      (INT8_MIN, INT16_MAX, ...) in the data;
 *   4. float16 / bfloat16 min / max with the extremes (65504, subnormals, infinities, a NaN), every algorithm;
 *   5. argmin / argmax and top-k of all six types (ties, NaN), mean, and the _async forms;
 *   6. float16 / bfloat16 sum and max scans over 37 look-back groups of random values, bit for bit against the
 *      documented AUTO order;
 *   7. int8 / uint8 / int16 / uint16 AUTO scans over 37 look-back groups: widened and not, in place, and with the
 *      look-back sent to its slow path (REDSCAN_SINGLE_PASS_SPINS=0 / 1).
 * A backend without narrow kernels refuses them with REDSCAN_ERR_UNSUPPORTED: the program then reports a skip with
 * that reason, never a pass. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half_ref.h"
#include "harness.h"

static const redscan_dtype k_floats[] = {REDSCAN_FLOAT16, REDSCAN_BFLOAT16};

/* ---- host references ---- */
static float f16_to_f32(uint16_t b) { return (float)half_value(b); }
static uint16_t f32_to_f16(float f) { return half_nearest(f); } /* f not NaN */
static float bf16_to_f32(uint16_t b)
{
    const uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint16_t f32_to_bf16(float f) /* finite or infinite f only */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float narrow_to_f32(redscan_dtype dt, uint16_t b) { return dt == REDSCAN_FLOAT16 ? f16_to_f32(b) : bf16_to_f32(b); }
static uint16_t f32_to_narrow(redscan_dtype dt, float f) { return dt == REDSCAN_FLOAT16 ? f32_to_f16(f) : f32_to_bf16(f); }
static int narrow_isnan(redscan_dtype dt, uint16_t b) { return isnan(narrow_to_f32(dt, b)); }

/* integer element i of an array of dt as int64 */
static int64_t iload(redscan_dtype dt, const void *p, size_t i)
{
    switch (dt) {
    case REDSCAN_INT8: return ((const int8_t *)p)[i];
    case REDSCAN_UINT8: return ((const uint8_t *)p)[i];
    case REDSCAN_INT16: return ((const int16_t *)p)[i];
    case REDSCAN_UINT16: return ((const uint16_t *)p)[i];
    case REDSCAN_INT32: return ((const int32_t *)p)[i];
    case REDSCAN_UINT32: return ((const uint32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
    }
}
/* v wrapped into dt's width, as the bits an element of dt holds (zero-extended to 64) */
static uint64_t iwrap(redscan_dtype dt, uint64_t v)
{
    const size_t es = redscan_dtype_size(dt);
    return es == 8 ? v : v & ((1ull << (8 * es)) - 1);
}
static uint64_t ibits(redscan_dtype dt, const void *p, size_t i)
{
    uint64_t u = 0;
    memcpy(&u, (const char *)p + i * redscan_dtype_size(dt), redscan_dtype_size(dt));
    return u;
}
static int is_signed(redscan_dtype dt)
{
    return dt == REDSCAN_INT8 || dt == REDSCAN_INT16 || dt == REDSCAN_INT32 || dt == REDSCAN_INT64;
}
/* combine in dt (wrap-around; min / max on the signed or unsigned value) */
static uint64_t icombine(redscan_op op, redscan_dtype dt, uint64_t a, uint64_t b)
{
    const unsigned sh = 64 - 8 * (unsigned)redscan_dtype_size(dt);
    const int64_t sa = (int64_t)(a << sh) >> sh, sb = (int64_t)(b << sh) >> sh;
    switch (op) {
    case REDSCAN_SUM: return iwrap(dt, a + b);
    case REDSCAN_PROD: return iwrap(dt, a * b);
    case REDSCAN_MIN: return is_signed(dt) ? (sb < sa ? b : a) : (b < a ? b : a);
    default: return is_signed(dt) ? (sb > sa ? b : a) : (b > a ? b : a);
    }
}
static uint64_t iidentity(redscan_op op, redscan_dtype dt)
{
    const unsigned bits = 8 * (unsigned)redscan_dtype_size(dt);
    const uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    switch (op) {
    case REDSCAN_SUM: return 0;
    case REDSCAN_PROD: return 1;
    case REDSCAN_MIN: return is_signed(dt) ? all >> 1 : all;
    default: return is_signed(dt) ? (all >> 1) + 1 : 0;
    }
}

static const redscan_reduce_algo k_algos[] = {REDSCAN_REDUCE_AUTO, REDSCAN_REDUCE_TREE, REDSCAN_REDUCE_INTERLEAVED,
                                              REDSCAN_REDUCE_COARSENED, REDSCAN_REDUCE_WARP_SYNC,
                                              REDSCAN_REDUCE_SHUFFLE};
#define N_ALGOS (sizeof k_algos / sizeof k_algos[0])

/* PoCL compiles a program per (algorithm family, input type, output type, op), seconds each on a cold machine, so
 * every algorithm runs for a few chosen combinations only (sweep = 1, at test level 1 and above); the others run
 * the AUTO algorithms. */
static int use_reduce(int sweep, size_t a) { return a == 0 || (sweep && h_level() >= 1); }
static int use_scan(int sweep, int b, int g)
{
    return (b == REDSCAN_BLOCK_AUTO && g == REDSCAN_GRID_AUTO) || (sweep && h_level() >= 1 && b != REDSCAN_BLOCK_AUTO);
}

/* ---- 1. every float16 / bfloat16 pattern ---- */
/* REDSCAN_TEST_SUBSET=1 (the later passes and ASan, tests/harness.h): the patterns whose exponent field is all zeros
 * or all ones (zeros, subnormals, infinities, NaNs) and a sixteenth of the others, chosen by a multiplicative hash of
 * the pattern so that every exponent and mantissa bit varies. The 2 x 2 x 65536 one-element calls are latency-bound
 * (51.5 s on PoCL here with a warm cache, 5.2 s with the subset; the whole test took 166 s under ASan); the first
 * pass runs them all. */
static int pattern_runs(redscan_dtype dt, uint32_t p)
{
    if (!h_subset()) return 1;
    const uint32_t exp_mask = dt == REDSCAN_FLOAT16 ? 0x7c00u : 0x7f80u, e = p & exp_mask;
    return e == 0 || e == exp_mask || ((p * 0x9E3779B1u) >> 28) == 0;
}

static void all_patterns(void)
{
    for (size_t d = 0; d < 2; d++) {
        const redscan_dtype dt = k_floats[d];
        if (!h_case("every %s pattern: one-element scan (sum) and reduce (max, to float32)", redscan_dtype_name(dt)))
            continue;
        const uint16_t canon = dt == REDSCAN_FLOAT16 ? 0x7e00u : 0x7fc0u;
        size_t bad_scan = 0, bad_reduce = 0, first_scan = 0, first_reduce = 0;
        redscan_reduce_desc rd = {REDSCAN_MAX, dt, REDSCAN_FLOAT32, REDSCAN_REDUCE_AUTO, 0};
        for (uint32_t p = 0; p < 65536; p++) {
            if (!pattern_runs(dt, p)) continue;
            const uint16_t x = (uint16_t)p;
            uint16_t y = 0;
            float f = 0;
            if (redscan_scan_host(h_ctx, REDSCAN_SUM, dt, 0, &x, &y, 1) != REDSCAN_OK ||
                y != (narrow_isnan(dt, x) ? canon : x))
                if (bad_scan++ == 0) first_scan = p;
            /* the documented widening keeps a NaN's sign and payload, the signalling bit included (a hardware
             * conversion may set the quiet bit) */
            const float want = narrow_to_f32(dt, x);
            uint32_t gb, wb;
            memcpy(&wb, &want, 4);
            if (dt == REDSCAN_FLOAT16 && narrow_isnan(dt, x))
                wb = ((uint32_t)(x & 0x8000u) << 16) | 0x7f800000u | ((uint32_t)(x & 0x3ffu) << 13);
            if (redscan_reduce_host_ex(h_ctx, &rd, &x, 1, &f) != REDSCAN_OK || (memcpy(&gb, &f, 4), gb != wb))
                if (bad_reduce++ == 0) first_reduce = p;
        }
        CHECK(bad_scan == 0, "%zu patterns came back changed from a one-element scan (first 0x%04zx; %s)", bad_scan,
              first_scan, h_last_error());
        CHECK(bad_reduce == 0, "%zu patterns were not widened exactly by a one-element reduce (first 0x%04zx)",
              bad_reduce, first_reduce);
    }
}

/* ---- 2. rounding once on store ---- */
static void rounding(void)
{
    enum { N = 9000 };
    static uint16_t x[N], out[N];
    static float prefix[N];
    h_rng r;
    for (size_t d = 0; d < 2; d++) {
        const redscan_dtype dt = k_floats[d];
        h_rng_init(&r, h_seed(17, d, 0, 0, 0, 0));
        /* k * 2^-10 (float16) or k * 2^-6 (bfloat16), |value| <= 1, each exact in its type: every float32 partial
         * sum of any subset is exact (|sum| <= 9000 < 2^14, so 2^-10 granularity needs at most 24 bits), while the
         * stored prefixes (float16 keeps 11 bits, bfloat16 8) round, ties included */
        const int f16 = dt == REDSCAN_FLOAT16;
        float acc = 0;
        for (size_t i = 0; i < N; i++) {
            const int span = f16 ? 1024 : 64;
            const float v = (float)((int)h_rng_below(&r, 2 * (uint64_t)span + 1) - span) / (float)span;
            x[i] = f32_to_narrow(dt, v);
            acc += narrow_to_f32(dt, x[i]);
            prefix[i] = acc;
        }
        const int sweep = dt == REDSCAN_FLOAT16;
        for (size_t a = 0; a < N_ALGOS; a++) {
            if (!use_reduce(sweep, a)) continue;
            if (!h_case("rounding: %s sum, reduce %s", redscan_dtype_name(dt), h_algo_str(k_algos[a]))) continue;
            redscan_reduce_desc rd = {REDSCAN_SUM, dt, 0, k_algos[a], 0};
            uint16_t got = 0;
            const redscan_status st = redscan_reduce_host_ex(h_ctx, &rd, x, N, &got);
            if (st == REDSCAN_ERR_UNSUPPORTED && a >= 4) continue; /* sub-group algorithms */
            if (CHECK_OK(st, "reduce"))
                CHECK(got == f32_to_narrow(dt, prefix[N - 1]), "sum 0x%04x, want 0x%04x (%.9g rounded once)", got,
                      f32_to_narrow(dt, prefix[N - 1]), prefix[N - 1]);
        }
        for (int b = REDSCAN_BLOCK_AUTO; b <= REDSCAN_BLOCK_COARSENED; b++)
            for (int g = REDSCAN_GRID_AUTO; g <= REDSCAN_GRID_SINGLE_PASS; g++) {
                if (!use_scan(sweep, b, g)) continue;
                if (!h_case("rounding: %s inclusive sum scan %s/%s", redscan_dtype_name(dt),
                            h_block_str((redscan_block_scan)b), h_grid_str((redscan_grid_scan)g)))
                    continue;
                redscan_scan_desc sd = {REDSCAN_SUM, dt, 0, 0, NULL, (redscan_block_scan)b, (redscan_grid_scan)g, 0};
                const redscan_status st = redscan_scan_host_ex(h_ctx, &sd, x, out, N);
                if (st == REDSCAN_ERR_UNSUPPORTED && g == REDSCAN_GRID_SINGLE_PASS) continue;
                if (!CHECK_OK(st, "scan")) continue;
                size_t bad = 0, first = 0;
                for (size_t i = 0; i < N; i++)
                    if (out[i] != f32_to_narrow(dt, prefix[i]) && bad++ == 0) first = i;
                CHECK(bad == 0, "%zu outputs are not the prefix rounded once (first at %zu: 0x%04x, want 0x%04x)", bad,
                      first, out[first], f32_to_narrow(dt, prefix[first]));
            }
    }
}

/* ---- 2b. rounding on store in full tiles: subnormals, overflow, NaN ----
 * The CUDA backend stores a full tile's float16 / bfloat16 outputs two at a time (cvt.rn.f16x2.f32 /
 * cvt.rn.bf16x2.f32) and takes the library's rules for NaN off that path; part 2's data stays among the normal
 * numbers and its subnormal cases are shorter than a tile. Here n spans three full tiles and a partial one:
 *   tile 0-1: multiples of the smallest subnormal (-3 .. 3 of them), so the prefixes walk through the subnormals and
 *             across the smallest normal, where the stored prefix rounds (ties included);
 *   tile 2:   values near the type's largest finite one, so prefixes overflow to infinity on store (float16; float32
 *             itself for bfloat16) and come back;
 *   the end:  +inf then -inf: every later prefix is NaN, stored as the canonical NaN.
 * Inclusive and exclusive (init 0) AUTO sums, every output against h_scan_emulate's bits. */
static void full_tile_stores(void)
{
    enum { N = 3 * 2048 + 37 };
    static uint16_t x[N], got[N], want[N];
    for (size_t d = 0; d < 2; d++) {
        const redscan_dtype dt = k_floats[d];
        const int f16 = dt == REDSCAN_FLOAT16;
        h_rng r;
        h_rng_init(&r, h_seed(29, d, 0, 0, 0, 0));
        for (size_t i = 0; i < N; i++) {
            const unsigned k = (unsigned)h_rng_below(&r, 7); /* 0 .. 6 */
            uint16_t b;
            if (i < 2 * 2048) { /* (k - 3) smallest subnormals: the bits are the count, the sign apart */
                b = (uint16_t)(k >= 3 ? k - 3 : (3 - k) | 0x8000u);
            } else if (i < 3 * 2048) { /* +-(largest finite - a few ulps), more often positive */
                b = (uint16_t)((f16 ? 0x7bffu : 0x7f7fu) - (k & 1u));
                if (k == 0 || k == 5) b |= 0x8000u;
            } else {
                const uint16_t pinf = f16 ? 0x7c00u : 0x7f80u, one = f16 ? 0x3c00u : 0x3f80u;
                b = i == N - 20 ? pinf : i == N - 10 ? (uint16_t)(pinf | 0x8000u) : one;
            }
            x[i] = b;
        }
        for (int excl = 0; excl < 2; excl++) {
            if (!h_case("full-tile stores: %s %s sum, AUTO scan, n = %d", redscan_dtype_name(dt),
                        excl ? "exclusive (init 0)" : "inclusive", (int)N))
                continue;
            const uint16_t zero = 0;
            redscan_scan_desc sd = {REDSCAN_SUM, dt, 0, excl, excl ? &zero : NULL, REDSCAN_BLOCK_AUTO,
                                    REDSCAN_GRID_AUTO, 0};
            memset(got, 0xa5, sizeof got);
            if (!CHECK_OK(redscan_scan_host_ex(h_ctx, &sd, x, got, N), "scan")) continue;
            h_scan_emulate(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, REDSCAN_SUM, dt, dt, excl, excl ? &zero : NULL, x,
                           want, N);
            size_t bad = 0, first = 0, sub = 0, inf = 0, nan = 0;
            for (size_t i = 0; i < N; i++) {
                if (got[i] != want[i] && bad++ == 0) first = i;
                const unsigned e = want[i] & (f16 ? 0x7c00u : 0x7f80u), m = want[i] & (f16 ? 0x3ffu : 0x7fu);
                sub += e == 0 && m != 0;
                inf += e == (f16 ? 0x7c00u : 0x7f80u) && m == 0;
                nan += e == (f16 ? 0x7c00u : 0x7f80u) && m != 0;
            }
            CHECK(bad == 0, "%zu outputs differ from the documented order's bits (first at %zu: 0x%04x, want 0x%04x)",
                  bad, first, got[first], want[first]);
            /* the data does what it is for: subnormal, infinite and NaN prefixes among the expected outputs */
            CHECK(sub > 100 && inf > 0 && nan >= 9, "expected outputs: %zu subnormal, %zu infinite, %zu NaN", sub, inf,
                  nan);
        }
    }
}

/* ---- 2c. a NaN among a thread's outputs that its last output does not show ----
 * The CUDA backend checks a full tile's 16-bit float outputs for NaN by the thread's last value alone where that
 * is sound (min, max, float16 sums: scan_single_pass.cu, rs_spp_put). It is not for sums that can overflow float32
 * or for products: in the coarsened order, output k < 7 of sub-section t is aux[t-1] (+) the fold up to k, and output
 * 7 is aux[t], another tree over the same values. Here sub-sections 0 and 1 make aux[1] overflow to infinity, and
 * sub-section 2 starts with the value that turns infinity into NaN (-inf for a bfloat16 sum, 0 for a float16
 * product): outputs 16 .. 22 are NaN, while aux[2] = S0 (+) (S1 (+) S2) is -inf or 0. Each NaN must be the canonical
 * one (the hardware's pair conversion would store its own), every output against h_scan_emulate's bits. */
static void nan_not_last(void)
{
    enum { N = 2 * 2048 };
    static uint16_t x[N], got[N], want[N];
    for (int c = 0; c < 2; c++) {
        const redscan_dtype dt = c == 0 ? REDSCAN_BFLOAT16 : REDSCAN_FLOAT16;
        const redscan_op op = c == 0 ? REDSCAN_SUM : REDSCAN_PROD;
        const uint16_t big = c == 0 ? 0x7f61u : 0x7bffu; /* about 3.0e38 / 65504 */
        const uint16_t fill = c == 0 ? 0x0000u : 0x3c00u; /* the identity: 0 / 1.0 */
        for (size_t i = 0; i < N; i++) x[i] = fill;
        if (c == 0) { /* S0 = S1 = 3.0e38, S0 + S1 overflows, then -inf */
            x[0] = x[8] = big;
            x[16] = 0xff80u;
        } else { /* S0 = S1 = 65504^5 (1.2e24), S0 S1 overflows, then 0 */
            for (size_t i = 0; i < 5; i++) x[i] = x[8 + i] = big;
            x[16] = 0x0000u;
        }
        for (int excl = 0; excl < 2; excl++) {
            if (!h_case("NaN not at a thread's last output: %s %s, %s, n = %d", redscan_dtype_name(dt), ref_op_str(op),
                        excl ? "exclusive (init: the identity)" : "inclusive", (int)N))
                continue;
            redscan_scan_desc sd = {op, dt, 0, excl, excl ? &fill : NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
            memset(got, 0xa5, sizeof got);
            if (!CHECK_OK(redscan_scan_host_ex(h_ctx, &sd, x, got, N), "scan")) continue;
            h_scan_emulate(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, op, dt, dt, excl, excl ? &fill : NULL, x, want, N);
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < N; i++)
                if (got[i] != want[i] && bad++ == 0) first = i;
            CHECK(bad == 0, "%zu outputs differ from the documented order's bits (first at %zu: 0x%04x, want 0x%04x)",
                  bad, first, got[first], want[first]);
            /* the data does what it is for: inclusive, sub-section 2's outputs NaN but its last one (aux[2]);
             * exclusive, its last one is aux[1] (+) the fold up to 6, NaN with outputs 17 .. 22 */
            int shape = excl ? narrow_isnan(dt, want[23]) : !narrow_isnan(dt, want[23]);
            for (size_t i = excl ? 17 : 16; i < 23; i++) shape &= narrow_isnan(dt, want[i]);
            CHECK(shape, "expected outputs %d .. 22 NaN, 23 %s (23: 0x%04x)", excl ? 17 : 16, excl ? "too" : "not",
                  want[23]);
        }
    }
}

/* ---- 3. the integer types ---- */
/* (type, op, output: 0 same, 1 the 32-bit widening, 2 the 64-bit one, every algorithm?) */
static const struct {
    redscan_dtype dt;
    redscan_op op;
    int out;
    int sweep;
} k_int_cases[] = {
    {REDSCAN_INT8, REDSCAN_SUM, 0, 1},   {REDSCAN_UINT16, REDSCAN_MAX, 1, 1}, {REDSCAN_INT16, REDSCAN_PROD, 2, 0},
    {REDSCAN_UINT8, REDSCAN_MIN, 0, 0},  {REDSCAN_INT8, REDSCAN_SUM, 2, 0},   {REDSCAN_UINT8, REDSCAN_SUM, 0, 0},
    {REDSCAN_INT16, REDSCAN_SUM, 0, 0},  {REDSCAN_UINT16, REDSCAN_SUM, 0, 0}, {REDSCAN_INT16, REDSCAN_MIN, 1, 0},
    {REDSCAN_UINT8, REDSCAN_PROD, 1, 0}, {REDSCAN_INT8, REDSCAN_MAX, 0, 0},   {REDSCAN_UINT16, REDSCAN_PROD, 0, 0},
};

static void integers(void)
{
    static const size_t sizes[] = {1, 777, 70001};
    enum { NMAX = 70001 };
    static unsigned char x[NMAX * 2], xprod[NMAX * 2], out[NMAX * 8];
    static uint64_t want[NMAX];
    h_rng r;
    for (size_t c = 0; c < sizeof k_int_cases / sizeof k_int_cases[0]; c++) {
        const redscan_dtype dt = k_int_cases[c].dt;
        const redscan_op op = k_int_cases[c].op;
        const int sweep = k_int_cases[c].sweep;
        if (h_level() == 0 && c >= 4) continue;
        const size_t es = redscan_dtype_size(dt);
        const redscan_dtype outs[] = {dt, is_signed(dt) ? REDSCAN_INT32 : REDSCAN_UINT32,
                                      is_signed(dt) ? REDSCAN_INT64 : REDSCAN_UINT64};
        const redscan_dtype odt = outs[k_int_cases[c].out];
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const size_t n = sizes[s];
            h_rng_init(&r, h_seed(29, c, s, 0, 0, 0));
            for (size_t i = 0; i < n; i++) {
                uint64_t v = h_rng_u64(&r);
                const unsigned pick = (unsigned)h_rng_below(&r, 16);
                if (pick == 0) v = iidentity(REDSCAN_MIN, dt); /* the type's largest */
                if (pick == 1) v = iidentity(REDSCAN_MAX, dt); /* its smallest (INT8_MIN, ...) */
                if (pick == 2) v = ~0ull;                      /* -1 / the largest unsigned */
                memcpy(x + i * es, &v, es);
            }
            /* products of random values are 0 after a few factors: mostly +-1, now and then 3 (which wraps) */
            unsigned char *xp = x;
            if (op == REDSCAN_PROD) {
                for (size_t i = 0; i < n; i++) {
                    const uint64_t v = h_rng_below(&r, 8) == 0 ? 3 : (h_rng_below(&r, 2) ? 1 : ~0ull);
                    memcpy(xprod + i * es, &v, es);
                }
                xp = xprod;
            }
            /* the reference: elements converted (sign / zero extended) to odt, combined in odt left to right */
            uint64_t acc = iidentity(op, odt);
            for (size_t i = 0; i < n; i++) {
                acc = icombine(op, odt, acc, iwrap(odt, (uint64_t)iload(dt, xp, i)));
                want[i] = acc;
            }
            for (size_t a = 0; a < N_ALGOS; a++) {
                if (!use_reduce(sweep, a)) continue;
                if (!h_case("%s %s -> %s, n = %zu, reduce %s", redscan_dtype_name(dt), redscan_op_name(op),
                            redscan_dtype_name(odt), n, h_algo_str(k_algos[a])))
                    continue;
                redscan_reduce_desc rd = {op, dt, odt == dt ? (redscan_dtype)0 : odt, k_algos[a], 0};
                unsigned char res[8] = {0};
                const redscan_status st = redscan_reduce_host_ex(h_ctx, &rd, xp, n, res);
                if (st == REDSCAN_ERR_UNSUPPORTED && a >= 4) continue; /* sub-group algorithms */
                if (CHECK_OK(st, "reduce"))
                    CHECK(ibits(odt, res, 0) == want[n - 1], "result 0x%llx, want 0x%llx",
                          (unsigned long long)ibits(odt, res, 0), (unsigned long long)want[n - 1]);
            }
            for (int b = REDSCAN_BLOCK_AUTO; b <= REDSCAN_BLOCK_COARSENED; b++)
                for (int g = REDSCAN_GRID_AUTO; g <= REDSCAN_GRID_SINGLE_PASS; g++)
                    for (int excl = 0; excl < 2; excl++) {
                        if (!use_scan(sweep, b, g)) continue;
                        if (!h_case("%s %s -> %s, n = %zu, %s scan %s/%s", redscan_dtype_name(dt), redscan_op_name(op),
                                    redscan_dtype_name(odt), n, excl ? "exclusive (init 5)" : "inclusive",
                                    h_block_str((redscan_block_scan)b), h_grid_str((redscan_grid_scan)g)))
                            continue;
                        const uint64_t init = 5; /* one element of odt: its low bytes (little-endian) */
                        redscan_scan_desc sd = {op, dt, odt == dt ? (redscan_dtype)0 : odt, excl, excl ? &init : NULL,
                                                (redscan_block_scan)b, (redscan_grid_scan)g, 0};
                        const redscan_status st = redscan_scan_host_ex(h_ctx, &sd, xp, out, n);
                        if (st == REDSCAN_ERR_UNSUPPORTED && g == REDSCAN_GRID_SINGLE_PASS) continue;
                        if (!CHECK_OK(st, "scan")) continue;
                        size_t bad = 0, first = 0;
                        uint64_t e = 5;
                        for (size_t i = 0; i < n; i++) {
                            uint64_t w = want[i];
                            if (excl) { /* init (+) x0 (+) ... (+) x(i-1), combined left to right */
                                w = e;
                                e = icombine(op, odt, e, iwrap(odt, (uint64_t)iload(dt, xp, i)));
                            }
                            if (ibits(odt, out, i) != w && bad++ == 0) first = i;
                        }
                        CHECK(bad == 0, "%zu outputs differ (first at %zu: 0x%llx)", bad, first,
                              (unsigned long long)ibits(odt, out, first));
                    }
        }
    }
}

/* ---- 4. float16 / bfloat16 min / max with the extremes ---- */
static void float_extremes(void)
{
    enum { N = 5003 };
    static uint16_t x[N], out[N];
    h_rng r;
    for (size_t d = 0; d < 2; d++) {
        const redscan_dtype dt = k_floats[d];
        const int f16 = dt == REDSCAN_FLOAT16;
        /* largest finite, smallest normal, smallest subnormal, and their negatives; random finite values */
        const uint16_t special[] = {f16 ? 0x7bffu : 0x7f7fu, f16 ? 0x0400u : 0x0080u, 0x0001u,
                                    f16 ? 0xfbffu : 0xff7fu, f16 ? 0x8400u : 0x8080u, 0x8001u};
        for (int with_nan = 0; with_nan < 2; with_nan++) {
            h_rng_init(&r, h_seed(31, d, (uint64_t)with_nan, 0, 0, 0));
            for (size_t i = 0; i < N; i++) {
                uint16_t v = (uint16_t)h_rng_u64(&r);
                if ((v & 0x7fffu) >= (f16 ? 0x7c00u : 0x7f80u)) v &= 0x3fffu; /* no inf / NaN at random */
                x[i] = h_rng_below(&r, 10) == 0 ? special[h_rng_below(&r, 6)] : v;
            }
            if (with_nan) x[2222] = f16 ? 0xfe21u : 0xffa1u; /* a negative NaN with a payload */
            for (int op = REDSCAN_MIN; op <= REDSCAN_MAX; op++) {
                /* every algorithm for float16 max, AUTO for bfloat16 min; the other two not (PoCL's compile time) */
                const int sweep = f16 && op == REDSCAN_MAX;
                if (f16 != (op == REDSCAN_MAX)) continue;
                /* the sequential reference: leftmost NaN, else the extreme (the first of equal ones) */
                uint16_t best = f16 ? (op == REDSCAN_MIN ? 0x7c00u : 0xfc00u) : (op == REDSCAN_MIN ? 0x7f80u : 0xff80u);
                int found_nan = 0;
                for (size_t i = 0; i < N; i++) {
                    if (!found_nan) {
                        const float a = narrow_to_f32(dt, best), b = narrow_to_f32(dt, x[i]);
                        if (isnan(b)) best = x[i], found_nan = 1;
                        else if (op == REDSCAN_MIN ? b < a : b > a) best = x[i];
                    }
                    out[i] = best; /* reused below as the scan reference */
                }
                static uint16_t want_scan[N];
                memcpy(want_scan, out, sizeof out);
                for (size_t a = 0; a < N_ALGOS; a++) {
                    if (!use_reduce(sweep, a)) continue;
                    if (!h_case("%s %s with extremes%s, reduce %s", redscan_dtype_name(dt),
                                redscan_op_name((redscan_op)op), with_nan ? " and a NaN" : "", h_algo_str(k_algos[a])))
                        continue;
                    redscan_reduce_desc rd = {(redscan_op)op, dt, 0, k_algos[a], 0};
                    uint16_t got = 0;
                    const redscan_status st = redscan_reduce_host_ex(h_ctx, &rd, x, N, &got);
                    if (st == REDSCAN_ERR_UNSUPPORTED && a >= 4) continue;
                    /* random data holds no zeros of both signs as the extreme, so the bits are the reference's */
                    if (CHECK_OK(st, "reduce")) CHECK(got == best, "result 0x%04x, want 0x%04x", got, best);
                }
                for (int b = REDSCAN_BLOCK_AUTO; b <= REDSCAN_BLOCK_COARSENED; b++)
                    for (int g = REDSCAN_GRID_AUTO; g <= REDSCAN_GRID_SINGLE_PASS; g++) {
                        if (!use_scan(sweep, b, g)) continue;
                        if (!h_case("%s %s scan with extremes%s %s/%s", redscan_dtype_name(dt),
                                    redscan_op_name((redscan_op)op), with_nan ? " and a NaN" : "",
                                    h_block_str((redscan_block_scan)b), h_grid_str((redscan_grid_scan)g)))
                            continue;
                        redscan_scan_desc sd = {(redscan_op)op, dt, 0, 0, NULL, (redscan_block_scan)b,
                                                (redscan_grid_scan)g, 0};
                        const redscan_status st = redscan_scan_host_ex(h_ctx, &sd, x, out, N);
                        if (st == REDSCAN_ERR_UNSUPPORTED && g == REDSCAN_GRID_SINGLE_PASS) continue;
                        if (!CHECK_OK(st, "scan")) continue;
                        size_t bad = 0, first = 0;
                        for (size_t i = 0; i < N; i++)
                            if (out[i] != want_scan[i] && bad++ == 0) first = i;
                        CHECK(bad == 0, "%zu outputs differ (first at %zu: 0x%04x, want 0x%04x)", bad, first,
                              out[first], want_scan[first]);
                    }
            }
        }
    }
}

/* ---- 5. argmin / argmax, top-k, mean, async ---- */
static double key_of(redscan_dtype dt, const void *x, size_t i)
{
    if (dt == REDSCAN_FLOAT16 || dt == REDSCAN_BFLOAT16) return narrow_to_f32(dt, ((const uint16_t *)x)[i]);
    return (double)iload(dt, x, i);
}
/* a before b in the documented total order (NaN first, then the better value, then the lower index) */
static int before(redscan_dtype dt, int largest, const void *x, size_t a, size_t b)
{
    const double va = key_of(dt, x, a), vb = key_of(dt, x, b);
    if (isnan(va) || isnan(vb)) return isnan(va) && isnan(vb) ? a < b : isnan(va);
    if (va != vb) return largest ? va > vb : va < vb;
    return a < b;
}

static void selection(void)
{
    enum { N = 30011 };
    static unsigned char x[N * 2];
    const redscan_dtype all[] = {REDSCAN_INT8, REDSCAN_UINT8, REDSCAN_INT16, REDSCAN_UINT16, REDSCAN_FLOAT16,
                                 REDSCAN_BFLOAT16};
    h_rng r;
    for (size_t d = 0; d < 6; d++) {
        const redscan_dtype dt = all[d];
        const size_t es = redscan_dtype_size(dt);
        h_rng_init(&r, h_seed(37, d, 0, 0, 0, 0));
        for (size_t i = 0; i < N; i++) {
            uint16_t v = (uint16_t)h_rng_below(&r, 200); /* many ties */
            if (dt == REDSCAN_FLOAT16 || dt == REDSCAN_BFLOAT16) v = f32_to_narrow(dt, (float)v - 100.0f);
            memcpy(x + i * es, &v, es);
        }
        if (dt == REDSCAN_FLOAT16) ((uint16_t *)x)[20000] = 0x7e05u; /* a NaN ranks first */
        for (int largest = 0; largest < 2; largest++) {
            size_t best = 0;
            for (size_t i = 1; i < N; i++)
                if (before(dt, largest, x, i, best)) best = i;
            if (h_case("%s %s", redscan_dtype_name(dt), largest ? "argmax" : "argmin")) {
                uint64_t idx = 0;
                unsigned char val[8] = {0};
                const redscan_status st = largest ? redscan_argmax_host(h_ctx, dt, x, N, &idx, val)
                                                  : redscan_argmin_host(h_ctx, dt, x, N, &idx, val);
                if (CHECK_OK(st, "arg*"))
                    CHECK(idx == best && !memcmp(val, x + best * es, es), "index %llu, want %zu",
                          (unsigned long long)idx, best);
            }
            static const size_t ks[] = {5, 1, 2, 20};
            for (size_t q = 0; q < 4; q++) {
                const size_t k = ks[q];
                /* top-5 (the program of 2 < k <= 8) for every type and direction; k = 1, 2 and 20 (the other three
                 * programs) for float16 largest */
                if (q > 0 && (dt != REDSCAN_FLOAT16 || !largest || h_level() == 0)) continue;
                if (!h_case("%s top-%zu %s", redscan_dtype_name(dt), k, largest ? "largest" : "smallest")) continue;
                size_t want[20];
                for (size_t j = 0; j < k; j++) { /* the k best by selection: j-th best = best not yet taken */
                    size_t b = (size_t)-1;
                    for (size_t i = 0; i < N; i++) {
                        int taken = 0;
                        for (size_t t = 0; t < j; t++) taken |= want[t] == i;
                        if (!taken && (b == (size_t)-1 || before(dt, largest, x, i, b))) b = i;
                    }
                    want[j] = b;
                }
                unsigned char vals[20 * 2];
                uint64_t idx[20];
                if (!CHECK_OK(redscan_topk_host(h_ctx, dt, x, N, k, largest, vals, idx), "topk")) continue;
                size_t bad = 0;
                for (size_t j = 0; j < k; j++) bad += idx[j] != want[j] || memcmp(vals + j * es, x + want[j] * es, es);
                CHECK(bad == 0, "%zu of the %zu entries differ (first index %llu, want %zu)", bad, k,
                      (unsigned long long)idx[0], want[0]);
            }
        }
        if (dt == REDSCAN_FLOAT16) ((uint16_t *)x)[20000] = 0; /* mean of numbers */
        if (h_case("%s mean", redscan_dtype_name(dt))) {
            double sum = 0, mean = 0;
            for (size_t i = 0; i < N; i++) sum += key_of(dt, x, i); /* exact: small integers */
            if (CHECK_OK(redscan_mean_host(h_ctx, dt, x, N, &mean), "mean"))
                CHECK(mean == sum / N, "mean %.17g, want %.17g", mean, sum / N);
        }
        if (h_case("%s async reduce and scan (sum) on device buffers", redscan_dtype_name(dt))) {
            redscan_buffer *in = NULL, *res = NULL, *out = NULL;
            unsigned char r_async[2] = {0}, r_block[2] = {0};
            static unsigned char o_async[N * 2], o_block[N * 2];
            redscan_reduce_desc rd = {REDSCAN_SUM, dt, 0, REDSCAN_REDUCE_AUTO, 0};
            redscan_scan_desc sd = {REDSCAN_SUM, dt, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
            int ok = CHECK_OK(redscan_buffer_create(h_ctx, N * es, &in), "buffer") &&
                     CHECK_OK(redscan_buffer_create(h_ctx, 3 * es, &res), "buffer") &&
                     CHECK_OK(redscan_buffer_create(h_ctx, N * es, &out), "buffer") &&
                     CHECK_OK(redscan_buffer_write(h_ctx, in, 0, x, N * es), "write") &&
                     CHECK_OK(redscan_reduce_async(h_ctx, &rd, in, N, res, 2), "reduce_async") &&
                     CHECK_OK(redscan_scan_async(h_ctx, &sd, in, out, N), "scan_async") &&
                     CHECK_OK(redscan_synchronize(h_ctx), "synchronize") &&
                     CHECK_OK(redscan_buffer_read(h_ctx, res, 2 * es, r_async, es), "read") &&
                     CHECK_OK(redscan_buffer_read(h_ctx, out, 0, o_async, N * es), "read") &&
                     CHECK_OK(redscan_reduce_host_ex(h_ctx, &rd, x, N, r_block), "reduce_host") &&
                     CHECK_OK(redscan_scan_host_ex(h_ctx, &sd, x, o_block, N), "scan_host");
            if (ok) {
                CHECK(!memcmp(r_async, r_block, es), "async reduce differs from the blocking one");
                CHECK(!memcmp(o_async, o_block, N * es), "async scan differs from the blocking one");
            }
            if (in) redscan_buffer_destroy(h_ctx, in);
            if (res) redscan_buffer_destroy(h_ctx, res);
            if (out) redscan_buffer_destroy(h_ctx, out);
        }
    }
}

/* ---- 6. float16 / bfloat16 scans across many look-back groups, bit for bit ----
 * Random finite patterns (every exponent), so the float32 partial sums round and their order shows: the result must
 * be the documented AUTO order's bits (h_scan_emulate), not merely close. n spans 37 groups of 32 tiles of 2048 and
 * ends in a partial tile, so the CUDA backend's narrow single-pass kernel (several tiles per ticket) crosses group
 * boundaries, closes groups and runs a partial last ticket. sum takes the one-warp phase 2, max the barrier steps. */
static void long_scans(void)
{
    enum { N = 37 * 32 * 2048 + 1001 };
    const size_t n = h_level() == 0 ? N : 3 * N;
    uint16_t *x = malloc(n * 2);
    unsigned char *got = malloc(n * 4), *want = malloc(n * 4);
    if (!x || !got || !want) {
        CHECK(0, "out of host memory");
        free(x), free(got), free(want);
        return;
    }
    static const redscan_op ops[] = {REDSCAN_SUM, REDSCAN_MAX};
    for (size_t d = 0; d < 2; d++) {
        const redscan_dtype dt = k_floats[d];
        h_rng r;
        h_rng_init(&r, h_seed(61, d, n, 0, 0, 0));
        for (size_t i = 0; i < n; i++) {
            /* sign and mantissa random; float16 |x| below 16 (exponent fields 0 .. 18: subnormals too), bfloat16 in
             * [2^-16, 2^16), so that the running sums stay finite in the narrow output */
            const uint16_t b = (uint16_t)h_rng_u64(&r);
            const unsigned e = (unsigned)h_rng_below(&r, dt == REDSCAN_FLOAT16 ? 19 : 32);
            x[i] = dt == REDSCAN_FLOAT16 ? (uint16_t)((b & 0x83ffu) | e << 10) : (uint16_t)((b & 0x807fu) | (111u + e) << 7);
        }
        for (size_t o = 0; o < 2; o++)
            for (int out_f32 = 0; out_f32 < 2; out_f32++)
                for (int excl = 0; excl < 2; excl++) {
                    const redscan_op op = ops[o];
                    const redscan_dtype odt = out_f32 ? REDSCAN_FLOAT32 : dt;
                    if (!h_case("%s %s -> %s, n = %zu, %s AUTO scan", redscan_dtype_name(dt), redscan_op_name(op),
                                redscan_dtype_name(odt), n, excl ? "exclusive (init 1.5)" : "inclusive"))
                        continue;
                    const float init_f = 1.5f;
                    const uint16_t init_h = f32_to_narrow(dt, init_f);
                    const void *init = !excl ? NULL : out_f32 ? (const void *)&init_f : (const void *)&init_h;
                    redscan_scan_desc sd = {op, dt, out_f32 ? odt : (redscan_dtype)0, excl, init, REDSCAN_BLOCK_AUTO,
                                            REDSCAN_GRID_AUTO, 0};
                    if (!CHECK_OK(redscan_scan_host_ex(h_ctx, &sd, x, got, n), "scan")) continue;
                    h_scan_emulate(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, op, dt, odt, excl, init, x, want, n);
                    const size_t es = redscan_dtype_size(odt);
                    size_t bad = 0, first = 0;
                    for (size_t i = 0; i < n; i++)
                        if (memcmp(got + i * es, want + i * es, es) && bad++ == 0) first = i;
                    CHECK(bad == 0, "%zu outputs differ from the documented order's bits (first at %zu)", bad, first);
                }
    }
    free(x), free(got), free(want);
}

/* ---- 7. integer scans across many look-back groups, in place, and the look-back's slow path ----
 * The CUDA backend's narrow single-pass kernel takes several tiles per ticket with one look-back for them: n spans
 * 37 groups of 32 tiles and ends in a partial tile and a partial ticket, for 1- and 2-byte inputs, widened or not.
 * In place, a ticket's output overwrites its input only after its tiles' aggregates are published, since other
 * blocks' slow paths may reduce those tiles from the input: REDSCAN_SINGLE_PASS_SPINS=0 / 1 send every look-back
 * there. Integer sums, min and max give the same bits in any order, so the reference is the plain left fold. */
static void long_int_scans(void)
{
    enum { N = 37 * 32 * 2048 + 1001 };
    const size_t n = N;
    unsigned char *x = malloc(n * 2), *got = malloc(n * 4), *io = malloc(n * 2);
    uint64_t *want = malloc(n * sizeof *want);
    if (!x || !got || !io || !want) {
        CHECK(0, "out of host memory");
        free(x), free(got), free(io), free(want);
        return;
    }
    static const struct {
        redscan_dtype dt, odt;
        redscan_op op;
        const char *spins; /* REDSCAN_SINGLE_PASS_SPINS, NULL: unset */
        int inplace;
    } cases[] = {
        {REDSCAN_INT8, REDSCAN_INT8, REDSCAN_SUM, NULL, 0},     {REDSCAN_INT8, REDSCAN_INT32, REDSCAN_SUM, NULL, 0},
        {REDSCAN_INT8, REDSCAN_INT8, REDSCAN_MAX, NULL, 0},     {REDSCAN_UINT16, REDSCAN_UINT16, REDSCAN_SUM, NULL, 0},
        {REDSCAN_UINT8, REDSCAN_UINT8, REDSCAN_SUM, NULL, 1},   {REDSCAN_INT16, REDSCAN_INT16, REDSCAN_MIN, NULL, 1},
        {REDSCAN_INT8, REDSCAN_INT8, REDSCAN_SUM, "0", 0},      {REDSCAN_INT8, REDSCAN_INT8, REDSCAN_SUM, "1", 1},
        {REDSCAN_UINT16, REDSCAN_UINT32, REDSCAN_MAX, "0", 0}, {REDSCAN_UINT8, REDSCAN_UINT8, REDSCAN_MIN, NULL, 0},
        {REDSCAN_UINT8, REDSCAN_UINT8, REDSCAN_MAX, NULL, 1},   {REDSCAN_INT8, REDSCAN_INT8, REDSCAN_MIN, "0", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const redscan_dtype dt = cases[c].dt, odt = cases[c].odt;
        const redscan_op op = cases[c].op;
        const size_t es = redscan_dtype_size(dt);
        h_rng r;
        h_rng_init(&r, h_seed(71, c, n, 0, 0, 0));
        for (size_t i = 0; i < n * es; i++) x[i] = (unsigned char)h_rng_u64(&r);
        for (int excl = 0; excl < 2; excl++) {
            if (cases[c].inplace && excl) continue;
            if (!h_case("%s %s -> %s, n = %zu, %s AUTO scan%s%s%s", redscan_dtype_name(dt), redscan_op_name(op),
                        redscan_dtype_name(odt), n, excl ? "exclusive (init 5)" : "inclusive",
                        cases[c].inplace ? ", in place" : "", cases[c].spins ? ", spins " : "",
                        cases[c].spins ? cases[c].spins : ""))
                continue;
            uint64_t acc = excl ? 5 : iidentity(op, odt);
            for (size_t i = 0; i < n; i++) {
                const uint64_t v = iwrap(odt, (uint64_t)iload(dt, x, i));
                if (excl) want[i] = acc;
                acc = icombine(op, odt, acc, v);
                if (!excl) want[i] = acc;
            }
            const uint64_t init = 5;
            redscan_scan_desc sd = {op, dt, odt == dt ? (redscan_dtype)0 : odt, excl, excl ? &init : NULL,
                                    REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
            if (cases[c].spins) setenv("REDSCAN_SINGLE_PASS_SPINS", cases[c].spins, 1);
            unsigned char *dst = got;
            redscan_status st;
            if (cases[c].inplace) {
                memcpy(io, x, n * es);
                st = redscan_scan_host_ex(h_ctx, &sd, io, io, n);
                dst = io;
            } else {
                st = redscan_scan_host_ex(h_ctx, &sd, x, got, n);
            }
            unsetenv("REDSCAN_SINGLE_PASS_SPINS");
            if (!CHECK_OK(st, "scan")) continue;
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; i++)
                if (ibits(odt, dst, i) != want[i] && bad++ == 0) first = i;
            CHECK(bad == 0, "%zu outputs differ (first at %zu: 0x%llx, want 0x%llx)", bad, first,
                  (unsigned long long)ibits(odt, dst, first), (unsigned long long)want[first]);
        }
    }
    free(x), free(got), free(io), free(want);
}

int main(void)
{
    h_open("test_narrow");
    const int8_t one = 1;
    int8_t r = 0;
    const redscan_status st = redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_INT8, &one, 1, &r);
    if (st == REDSCAN_ERR_UNSUPPORTED) {
        printf("test_narrow: SKIP: %s\n", h_last_error());
        h_done();
        return H_SKIP;
    }
    if (h_shard(0)) all_patterns();
    if (h_shard(1)) rounding();
    if (h_shard(1)) full_tile_stores();
    if (h_shard(1)) nan_not_last();
    if (h_shard(2)) integers();
    if (h_shard(3)) float_extremes();
    if (h_shard(4)) selection();
    if (h_shard(5)) long_scans();
    if (h_shard(6)) long_int_scans();
    return h_done();
}
