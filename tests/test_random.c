/* test_random: a randomized differential test against the host references (reference.h).
 *
 * Each case draws, from its own seed, one function (reduce, scan, mean, argmin, argmax, top-k), the op, the
 * dtype and a widening, the algorithm (reduction algorithm; scan block x grid, SINGLE_PASS included when the
 * library does not report it UNSUPPORTED), inclusive / exclusive, init NULL or random, in place or not, the
 * host-pointer or the device-buffer form (plain or descriptor API), the data generator, and a size: mostly just
 * around the tile / section sizes (multiples of 256, 512, 1024, 2048, 4096 and their squares, +-1..3), plus small
 * random sizes and the occasional 4096^2 +- 3. The result is compared with the host references:
 *   integers                    exact, bit for bit (wrap-around)
 *   float min / max             scans: bit for bit (sequential reference); reductions: NaN-ness and value, and
 *                               the bits of the documented order when the algorithm is known
 *   float sum / prod            within the reference's error bound (depth of the algorithm), and bit for bit
 *                               equal to the documented order (ref_*_emulate; scans: h_scan_emulate, where the
 *                               AUTO grid and single_pass have single_pass's order) unless
 *                               REDSCAN_TEST_EXACT_ORDER=0
 *   mean                        integers exact; floats bound + documented order
 *   argmin / argmax / top-k     exact (indices and value bits)
 *   n = 0                       identities; mean / argmin / argmax / top-k INVALID_ARGUMENT
 * plus: nothing written past the result / past n (sentinels), the input (device buffer with a poisoned tail,
 * host array) unchanged when not in place.
 *
 * Narrow types (docs/SEMANTICS.md, "Narrow types"): about one case in four (chosen from the seed by a stream of its own,
 * so the other cases draw exactly what they drew before) takes INT8, UINT8, INT16, UINT16, FLOAT16 or BFLOAT16, with
 * out_dtype the same type, its 32-bit or its 64-bit widening. The references compute as documented (integers in their
 * own width with wrap-around unless widened; float16 / bfloat16 in float32, in the order of the float32 algorithm,
 * rounded to nearest even once when stored narrow; canonical NaN for sums and products), and every result is
 * compared bit for bit:
 *   integers, min / max / argmin / argmax / top-k   any data (edge values INT8_MIN, INT8_MAX, 0xFF, INT16_MIN, ...;
 *                                                   float16 65504, smallest normal and subnormal, infinities, NaNs
 *                                                   with payloads of both signs, +-0)
 *   float16 / bfloat16 sum and prod                 mostly "exact" data: multiples k * 2^-s whose sum of |k| is at
 *                                                   most 2^24 (products: +-1, +-2^+-1, +-2^+-2, at most 13 factors 3),
 *                                                   so every float32 (and float64) partial result in any order is
 *                                                   exact and the only rounding is the final one: checked bit for
 *                                                   bit against the sequential reference even with
 *                                                   REDSCAN_TEST_EXACT_ORDER=0, and the prefixes and totals cross
 *                                                   the rounding ties (bfloat16 keeps 8 bits, float16 11) and
 *                                                   float16's overflow threshold 65520; otherwise random values,
 *                                                   checked against the documented order (and the error bound plus
 *                                                   the one rounding)
 * On a backend that refuses the narrow types (REDSCAN_ERR_UNSUPPORTED for a 1-element int8 sum, probed at start) the
 * narrow cases are drawn but not run: each is counted as skipped, and the summary line gives the count and the
 * reason (the wide cases still run, so the program does not exit 77).
 *
 * Cases run until the time budget is spent (the PoCL program builds of the first uses are part of it).
 *
 * Environment:
 *   REDSCAN_RANDOM_SECONDS=<s>      time budget (default 60)
 *   REDSCAN_RANDOM_CASE=<i>         run only case i (replay; ignores the budget)
 *   REDSCAN_RANDOM_FIRST=<i>        first case index (default 0)
 *   REDSCAN_RANDOM_MAX_CASES=<m>    stop after m cases (default: no limit)
 *   REDSCAN_RANDOM_MAX_N=<n>        largest size drawn (sizes above are folded below it; default 2^24 + 3)
 *   REDSCAN_RANDOM_MAX_FAILURES=<f> stop after f failing cases (default 3)
 *   REDSCAN_TEST_SEED=<n>|random    base seed (harness); "random" draws one from the clock and prints it
 * A failing case prints its parameters, its seed and the command that replays it:
 *   REDSCAN_BACKEND=<b> REDSCAN_TEST_SEED=<base> REDSCAN_RANDOM_CASE=<i> ./tests/test_random
 * A case depends only on the base seed, its index and three facts probed at start (fp64 available, single_pass
 * implemented, narrow types run), never on timing, so a replay on the same build and device draws the same case. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

typedef enum { F_REDUCE, F_SCAN, F_MEAN, F_ARGMIN, F_ARGMAX, F_TOPK, F_COUNT } fn_kind;
static const char *FN_NAMES[] = {"reduce", "scan", "mean", "argmin", "argmax", "topk"};

/* API form: descriptor (_ex) or plain, device buffers or host pointers */
enum { API_DEV_EX, API_HOST_EX, API_DEV, API_HOST };
static const char *API_NAMES[] = {"device_ex", "host_ex", "device", "host"};

typedef struct {
    uint64_t index, seed;
    fn_kind fn;
    int api;
    redscan_op op;
    redscan_dtype dt, out, field; /* field: what goes into out_dtype (0 = same) */
    redscan_reduce_algo algo;
    redscan_block_scan block;
    redscan_grid_scan grid;
    int excl, use_init, inplace;
    ref_val init;
    size_t n, k;
    int largest, want_value, want_indices;
    h_gen gen;
    int ties; /* argmin / argmax / top-k: values from a small set */
    int narrow; /* dt is INT8 .. BFLOAT16 */
    int exact;  /* float16 / bfloat16 sum / prod data whose float32 partial results are exact in any order */
    int scale;  /* exact sums: the elements are multiples of 2^-scale */
} rcase;

static uint64_t g_base;
static int g_have_fp64 = 1;
static int g_single_pass = 0; /* SINGLE_PASS answered something other than UNSUPPORTED in the probe */
static size_t g_max_n = ((size_t)1 << 24) + 3;
static long g_unsupported, g_unsup_subgroup, g_unsup_single, g_fn_count[F_COUNT];
static int g_case_unsupported;
/* narrow types: 1 when the backend runs them (probed); else the narrow cases are skipped, with this reason */
static int g_narrow = 1;
static char g_narrow_reason[512];
static long g_narrow_ran, g_narrow_skipped;

/* The narrow share of the cases: PoCL builds one program per (input type, output type, op, algorithm family), seconds
 * each on a cold cache, and the run has a time budget; a quarter keeps most of the budget on the wide types. */
#define NARROW_PERCENT 25

/* ---------------------------------------------------------------- small helpers */

static const char *algo_name(redscan_reduce_algo a)
{
    switch (a) {
    case REDSCAN_REDUCE_AUTO: return "auto";
    case REDSCAN_REDUCE_TREE: return "tree";
    case REDSCAN_REDUCE_INTERLEAVED: return "interleaved";
    case REDSCAN_REDUCE_COARSENED: return "coarsened";
    case REDSCAN_REDUCE_WARP_SYNC: return "warp_sync";
    case REDSCAN_REDUCE_SHUFFLE: return "shuffle";
    default: return "?";
    }
}

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *s = getenv(name);
    if (!s || !*s) return def;
    return strtoull(s, NULL, 0);
}

static int is_minmax(redscan_op op) { return op == REDSCAN_MIN || op == REDSCAN_MAX; }

static int all_a5(const void *p, size_t bytes)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != 0xA5) return 0;
    return 1;
}

/* ---------------------------------------------------------------- drawing a case */

static size_t pick_size(h_rng *r)
{
    static const size_t B[] = {256, 512, 1024, 2048, 4096};
    const uint64_t u = h_rng_below(r, 100);
    size_t n;
    if (u < 10) {
        n = (size_t)h_rng_below(r, 40); /* 0, 1, tiny */
    } else if (u < 25) {
        n = 1 + (size_t)h_rng_below(r, 5000);
    } else if (u < 72) {
        /* a multiple of a tile / section size, +-0..3 */
        size_t b = B[h_rng_below(r, 5)];
        size_t m = 1 + (size_t)h_rng_below(r, u < 60 ? 8 : 64);
        int d = (int)h_rng_below(r, 7) - 3;
        n = m * b + (size_t)(ptrdiff_t)d;
    } else if (u < 97) {
        /* around squares (2 and 3 levels of hierarchy / passes) */
        static const size_t S[] = {256u * 256u, 512u * 512u, 1024u * 1024u, 2048u * 2048u};
        static const unsigned MAXM[] = {4, 3, 2, 1};
        unsigned si = (unsigned)h_rng_below(r, 4);
        size_t m = 1 + (size_t)h_rng_below(r, MAXM[si]);
        int d = (int)h_rng_below(r, 7) - 3;
        n = m * S[si] + (size_t)(ptrdiff_t)d;
        if (h_rng_below(r, 4) == 0) n = m * S[si] + B[h_rng_below(r, 5)] * (1 + h_rng_below(r, 3)) + (size_t)(ptrdiff_t)d;
    } else {
        n = (size_t)4096 * 4096 + (size_t)(ptrdiff_t)((int)h_rng_below(r, 7) - 3);
    }
    if (n > g_max_n) n = g_max_n ? n % (g_max_n + 1) : 0;
    return n;
}

/* ---------------------------------------------------------------- narrow data (this program's own: its exact sums
 * record their scale for pick_init, and its cases draw what they drew before h_generate learnt the narrow types) */

static ref_val nval(redscan_dtype dt, uint64_t bits)
{
    ref_val v = ref_zero();
    if (ref_size(dt) == 1) v.u8 = (uint8_t)bits;
    else v.u16 = (uint16_t)bits;
    return v;
}

/* a narrow float's pattern for a value that it holds exactly (the callers only pass such values) */
static ref_val nfloat(redscan_dtype dt, double x)
{
    return nval(dt, ref_f32_to_narrow(dt, (float)x));
}

static ref_val narrow_nan(redscan_dtype dt, uint64_t payload, int negative)
{
    const int f16 = dt == REDSCAN_FLOAT16;
    uint64_t m = f16 ? payload & 0x3ffu : payload & 0x7fu;
    if (!m) m = 1; /* a payload of 0 would be infinity; a signalling NaN (quiet bit clear) is allowed */
    return nval(dt, (negative ? 0x8000u : 0) | (f16 ? 0x7c00u : 0x7f80u) | m);
}

/* integer edge values: 0, 1, -1 (0xFF.. for the unsigned types), the type's min and max and their neighbours
 * (INT8_MIN, INT8_MAX, INT16_MIN, 0xFF, 0xFFFF, ...) */
static ref_val narrow_int_edge(h_rng *r, redscan_dtype dt)
{
    switch (h_rng_below(r, 7)) {
    case 0: return nval(dt, 0);
    case 1: return nval(dt, 1);
    case 2: return nval(dt, ~0ull);
    case 3: return ref_type_max(dt);
    case 4: return ref_type_min(dt);
    case 5: return nval(dt, ref_type_max(dt).u16 - 1u);
    default: return nval(dt, ref_type_min(dt).u16 + 1u);
    }
}

/* float edge values: the largest finite, smallest normal and smallest subnormal of each sign, +-0, +-1 */
static ref_val narrow_float_edge(h_rng *r, redscan_dtype dt)
{
    const int f16 = dt == REDSCAN_FLOAT16;
    static const uint16_t E16[] = {0x7bff, 0x0400, 0x0001, 0x0000, 0x3c00, 0x03ff, 0x7bfe};
    static const uint16_t EB[] = {0x7f7f, 0x0080, 0x0001, 0x0000, 0x3f80, 0x007f, 0x7f7e};
    const uint16_t b = (f16 ? E16 : EB)[h_rng_below(r, 7)];
    return nval(dt, b | ((h_rng_u64(r) & 1) ? 0x8000u : 0));
}

/* a random finite pattern (any exponent, subnormals included) */
static ref_val narrow_float_any(h_rng *r, redscan_dtype dt)
{
    for (;;) {
        ref_val v = nval(dt, h_rng_u64(r));
        if (!ref_isnan(dt, v) && (v.u16 & 0x7fffu) != ref_type_max(dt).u16) return v;
    }
}

/* min / max / argmin / argmax / top-k data: order-independent results, so anything goes; the variants as h_gen */
static void gen_narrow_select(h_rng *r, const rcase *c, unsigned char *x)
{
    const redscan_dtype dt = c->dt;
    const size_t n = c->n;
    const int isf = ref_is_narrow_float(dt);
    for (size_t i = 0; i < n; i++) {
        ref_val v;
        if (isf && c->gen == GEN_TINY) {
            v = nval(dt, h_rng_below(r, dt == REDSCAN_FLOAT16 ? 0x0800u : 0x0100u) | ((h_rng_u64(r) & 1) ? 0x8000u : 0));
        } else if (c->gen != GEN_PLAIN && h_rng_below(r, 16) == 0) {
            v = isf ? (h_rng_below(r, 8) ? narrow_float_edge(r, dt) : (h_rng_u64(r) & 1) ? ref_type_max(dt)
                                                                                            : ref_type_min(dt))
                    : narrow_int_edge(r, dt);
        } else if (i > 0 && h_rng_below(r, 8) == 0) {
            v = ref_load(dt, x, (size_t)h_rng_below(r, i)); /* ties */
        } else {
            v = isf ? narrow_float_any(r, dt) : nval(dt, h_rng_u64(r));
        }
        ref_store(dt, x, i, v);
    }
    if (!isf || n == 0) return;
    if (c->gen == GEN_NAN) { /* several NaNs: payloads, both signs, signalling ones too; the leftmost wins */
        for (size_t k = 1 + (size_t)h_rng_below(r, 3) + n / 200; k > 0; k--)
            ref_store(dt, x, (size_t)h_rng_below(r, n), narrow_nan(dt, h_rng_u64(r), (int)(h_rng_u64(r) & 1)));
    } else if (c->gen == GEN_INF) {
        ref_store(dt, x, (size_t)h_rng_below(r, n), ref_type_max(dt));
        ref_store(dt, x, (size_t)h_rng_below(r, n), ref_type_min(dt));
    }
}

static void gen_narrow_ties(h_rng *r, const rcase *c, unsigned char *x)
{
    const redscan_dtype dt = c->dt;
    const int isf = ref_is_narrow_float(dt), specials = isf && h_rng_below(r, 2);
    for (size_t i = 0; i < c->n; i++) {
        int64_t k = (int64_t)h_rng_below(r, 9) - 4;
        ref_val v;
        if (isf) {
            v = nfloat(dt, 0.5 * (double)k);
            if (k == 0 && (h_rng_u64(r) & 1)) v.u16 = 0x8000u; /* -0.0 ties with +0.0 */
            if (specials && h_rng_below(r, 64) == 0) {
                const uint64_t s = h_rng_below(r, 3);
                v = s == 0 ? ref_type_max(dt) : s == 1 ? ref_type_min(dt) : narrow_nan(dt, h_rng_u64(r), (int)(k & 1));
            }
        } else {
            if (!ref_is_signed(dt)) k += 4;
            v = h_rng_below(r, 128) == 0 ? ((h_rng_u64(r) & 1) ? ref_type_max(dt) : ref_type_min(dt)) : nval(dt, (uint64_t)k);
        }
        ref_store(dt, x, i, v);
    }
}

/* Exact float16 / bfloat16 sums: k * 2^-scale with sum |k| <= 2^24 - 4096 (4096 left for a scan's init): every partial
 * sum of any subset is a multiple of 2^-scale below 2^(24 - scale), exact in float32 (scale <= 149) and float64. The
 * scales reach float16's subnormals (2^-24) and bfloat16's (2^-133); the per-element bound is as large as the budget
 * allows, so the totals and prefixes cross the rounding ties of the narrow type and, for float16, 65520. Edge values
 * (65504, the smallest normal and subnormal, ...) are planted where they are multiples of 2^-scale and fit the
 * budget. */
#define EXACT_BUDGET ((1ull << 24) - 4096)
static void gen_narrow_exact_sum(h_rng *r, rcase *c, unsigned char *x)
{
    const redscan_dtype dt = c->dt;
    const int f16 = dt == REDSCAN_FLOAT16;
    static const int S16[] = {0, 4, 10, 24}, SB[] = {0, 6, 133};
    c->scale = f16 ? S16[h_rng_below(r, 4)] : SB[h_rng_below(r, 3)];
    const uint64_t kmax = f16 ? 2048 : 256; /* every k * 2^-scale with |k| <= kmax is a float16 / bfloat16 */
    uint64_t K = c->n ? EXACT_BUDGET / c->n : kmax;
    if (K > kmax) K = kmax;
    if (K < 1) K = 1;
    if (h_rng_below(r, 4) == 0 && K > 4) K = 4; /* small values: long runs of small prefixes */
    const int positive = h_rng_below(r, 4) == 0; /* a drift: prefixes grow to the ties (and float16's overflow) */
    uint64_t used = 0;
    for (size_t i = 0; i < c->n; i++) {
        int64_t k = (int64_t)h_rng_below(r, 2 * K + 1) - (int64_t)K;
        if (positive && k < 0) k = -k;
        used += (uint64_t)(k < 0 ? -k : k);
        ref_store(dt, x, i, k == 0 && (h_rng_u64(r) & 1) ? nval(dt, 0x8000u) : nfloat(dt, ldexp((double)k, -c->scale)));
    }
    if (c->gen == GEN_PLAIN || c->n == 0) return;
    for (size_t t = 1 + c->n / 64; t > 0; t--) { /* edge values, each a multiple of 2^-scale within the budget */
        const ref_val e = narrow_float_edge(r, dt);
        const double k = ldexp(fabs(ref_to_double(dt, e)), c->scale);
        const size_t at = (size_t)h_rng_below(r, c->n);
        const double old = ldexp(fabs(ref_to_double(dt, ref_load(dt, x, at))), c->scale);
        if (k != floor(k) || (double)used - old + k > (double)EXACT_BUDGET) continue;
        used = (uint64_t)((double)used - old + k);
        ref_store(dt, x, at, e);
    }
    if (c->gen == GEN_NAN) ref_store(dt, x, (size_t)h_rng_below(r, c->n), narrow_nan(dt, h_rng_u64(r), (int)(h_rng_u64(r) & 1)));
    if (c->gen == GEN_INF) {
        ref_store(dt, x, (size_t)h_rng_below(r, c->n), ref_type_max(dt));
        if (h_rng_below(r, 2) == 0) ref_store(dt, x, (size_t)h_rng_below(r, c->n), ref_type_min(dt)); /* NaN */
    }
}

/* Exact float16 / bfloat16 products: +-1, now and then +-2^+-1 or +-2^+-2 (at most 40: |exponent| <= 80) and 3 (at
 * most 13: 3^13 < 2^21, which leaves a scan's init of odd part 5 inside 24 bits): every partial product is exact
 * in float32; the stored one rounds (3^k needs more than 11 / 8 bits) and float16 over- and underflows. */
static void gen_narrow_exact_prod(h_rng *r, const rcase *c, unsigned char *x)
{
    const redscan_dtype dt = c->dt;
    unsigned pow2 = 0, threes = 0;
    const uint64_t rate = c->n < 64 ? 4 : c->n / 16;
    for (size_t i = 0; i < c->n; i++) {
        double v = 1.0;
        const uint64_t u = h_rng_below(r, rate);
        if (u == 0 && pow2 < 40) v = ldexp(1.0, (int)h_rng_below(r, 2) ? 1 + (int)h_rng_below(r, 2) : -1 - (int)h_rng_below(r, 2)), pow2++;
        else if (u == 1 && threes < 13) v = 3.0, threes++;
        ref_store(dt, x, i, nfloat(dt, (h_rng_u64(r) & 1) ? -v : v));
    }
    if (c->n == 0) return;
    if (c->gen == GEN_EDGE && h_rng_below(r, 3) == 0) ref_store(dt, x, (size_t)h_rng_below(r, c->n), nval(dt, (h_rng_u64(r) & 1) ? 0x8000u : 0));
    if (c->gen == GEN_NAN) ref_store(dt, x, (size_t)h_rng_below(r, c->n), narrow_nan(dt, h_rng_u64(r), 0));
    if (c->gen == GEN_INF) ref_store(dt, x, (size_t)h_rng_below(r, c->n), (h_rng_u64(r) & 1) ? ref_type_max(dt) : ref_type_min(dt));
}

/* Random float16 / bfloat16 sum data (not exact): moderate magnitudes, the bits follow the documented order only */
static void gen_narrow_random_sum(h_rng *r, const rcase *c, unsigned char *x)
{
    for (size_t i = 0; i < c->n; i++) {
        double v = ldexp(1.0 + h_rng_unit(r), (int)h_rng_below(r, 8) - 4);
        ref_store(c->dt, x, i, nval(c->dt, ref_f32_to_narrow(c->dt, (float)((h_rng_u64(r) & 1) ? -v : v))));
    }
    if (c->n && c->gen == GEN_NAN) ref_store(c->dt, x, (size_t)h_rng_below(r, c->n), narrow_nan(c->dt, h_rng_u64(r), 1));
}

/* Integer sum / prod data: random bits (sum) or odd values (prod: the product wraps, never collapses to 0), edge
 * values mixed in (EDGE: 1 in 8), for prod now and then one planted 0 or even extreme (INT8_MIN, ...). */
static void gen_narrow_int(h_rng *r, const rcase *c, redscan_op op, unsigned char *x)
{
    const redscan_dtype dt = c->dt;
    for (size_t i = 0; i < c->n; i++) {
        ref_val v;
        if (c->gen != GEN_PLAIN && h_rng_below(r, 8) == 0) {
            v = narrow_int_edge(r, dt);
            if (op == REDSCAN_PROD) v.u16 |= 1;
        } else if (op == REDSCAN_PROD) {
            const uint64_t u = h_rng_below(r, 4);
            v = nval(dt, u == 0 ? h_rng_u64(r) | 1 : u == 1 ? 3 : (h_rng_u64(r) & 1) ? 1 : ~0ull);
        } else {
            v = nval(dt, h_rng_u64(r));
        }
        ref_store(dt, x, i, v);
    }
    if (op == REDSCAN_PROD && c->gen == GEN_EDGE && c->n && h_rng_below(r, 2) == 0)
        ref_store(dt, x, (size_t)h_rng_below(r, c->n), (h_rng_u64(r) & 1) ? nval(dt, 0) : ref_type_min(dt));
}

static void gen_narrow(h_rng *r, rcase *c, redscan_op gen_op, unsigned char *x)
{
    c->scale = -1; /* set by the exact sums */
    if (c->ties) gen_narrow_ties(r, c, x);
    else if (is_minmax(gen_op)) gen_narrow_select(r, c, x);
    else if (!ref_is_narrow_float(c->dt)) gen_narrow_int(r, c, gen_op, x);
    else if (gen_op == REDSCAN_PROD) c->exact = 1, gen_narrow_exact_prod(r, c, x);
    else if (h_rng_below(r, 4) != 0) c->exact = 1, gen_narrow_exact_sum(r, c, x);
    else gen_narrow_random_sum(r, c, x);
}

static ref_val pick_init(h_rng *r, const rcase *c, const void *data)
{
    const redscan_dtype T = c->out;
    ref_val v = ref_zero();
    if (!ref_is_float(T)) {
        v.u64 = h_rng_u64(r);
        if (c->op == REDSCAN_PROD && h_rng_below(r, 8)) v.u64 |= 1;
        if (is_minmax(c->op) && c->n && h_rng_below(r, 4)) /* inside the data's range: it matters */
            v = ref_convert(c->dt, T, ref_load(c->dt, data, (size_t)h_rng_below(r, c->n)));
        for (size_t i = ref_size(T); i < 8; i++) v.b[i] = 0;
        return v;
    }
    if (c->exact) {
        /* keep the data's exactness: a sum's init is a multiple of 2^-scale inside the 4096 left of the budget; a
         * product's one of the factors +-1, +-0.5, +-2, -1.25, 0.75 (odd parts 1, 5, 3) */
        static const double P[] = {-1.25, 0.5, 2.0, -1.0, 1.0, 0.75, -0.5};
        const double x = c->op == REDSCAN_SUM ? ldexp((double)((int)h_rng_below(r, 129) - 64), -c->scale)
                                              : P[h_rng_below(r, 7)];
        if (T == REDSCAN_FLOAT64) v.f64 = x;
        else if (T == REDSCAN_FLOAT32) v.f32 = (float)x;
        else v = nfloat(T, x); /* exact: |k| <= 64 */
        return v;
    }
    if (ref_is_narrow_float(T) && is_minmax(c->op) && h_rng_below(r, 4) == 0) /* any pattern: NaNs, infinities */
        return h_rng_below(r, 4) ? narrow_float_any(r, T) : narrow_nan(T, h_rng_u64(r), (int)(h_rng_u64(r) & 1));
    double x;
    switch (c->op) {
    case REDSCAN_SUM: x = (h_rng_unit(r) - 0.5) * ldexp(1.0, (int)h_rng_below(r, 12) - 4); break;
    case REDSCAN_PROD: {
        static const double P[] = {-1.25, 0.5, 2.0, -1.0, 1.0, 0.75};
        x = P[h_rng_below(r, 6)];
        break;
    }
    default:
        x = (h_rng_unit(r) - 0.5) * 100.0;
        if (c->n && h_rng_below(r, 2)) {
            ref_val e = ref_load(c->dt, data, (size_t)h_rng_below(r, c->n));
            if (!ref_isnan(c->dt, e)) x = ref_to_double(c->dt, e);
        }
        if (h_rng_below(r, 16) == 0) x = NAN;
        break;
    }
    if (T == REDSCAN_FLOAT32) v.f32 = (float)x;
    else if (T == REDSCAN_FLOAT64) v.f64 = x;
    else v = nval(T, ref_f32_to_narrow(T, (float)x)); /* rounded: init is one element of the output type */
    return v;
}

static void draw_case(rcase *c, unsigned char **data_out, size_t *pad_out)
{
    static const redscan_dtype DT[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64,
                                       REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
    static const redscan_dtype NDT[] = {REDSCAN_INT8,   REDSCAN_UINT8,   REDSCAN_INT16,
                                        REDSCAN_UINT16, REDSCAN_FLOAT16, REDSCAN_BFLOAT16};
    h_rng r, rn;
    h_rng_init(&r, c->seed);
    /* the narrow choices come from a stream of their own, so that a wide case draws what it drew before they existed */
    h_rng_init(&rn, c->seed ^ 0x4e4152524f57ull /* "NARROW" */);
    c->narrow = h_rng_below(&rn, 100) < NARROW_PERCENT;
    uint64_t u = h_rng_below(&r, 100);
    c->fn = u < 30 ? F_REDUCE : u < 78 ? F_SCAN : u < 83 ? F_MEAN : u < 88 ? F_ARGMIN : u < 93 ? F_ARGMAX : F_TOPK;
    do c->dt = DT[h_rng_below(&r, 6)];
    while (c->dt == REDSCAN_FLOAT64 && !g_have_fp64);
    if (c->narrow) c->dt = NDT[h_rng_below(&rn, 6)];
    c->op = (redscan_op)h_rng_below(&r, 4);
    c->api = (int)h_rng_below(&r, 4);
    if ((c->fn == F_REDUCE || c->fn == F_SCAN) && h_rng_below(&r, 3) == 0) c->api = API_DEV_EX; /* most knobs */
    if (c->fn != F_REDUCE && c->fn != F_SCAN) c->api = (int)(h_rng_below(&r, 2) ? API_DEV : API_HOST);
    c->out = c->dt;
    c->field = (redscan_dtype)0;
    const int desc_api = c->api == API_DEV_EX || c->api == API_HOST_EX;
    if (c->narrow) {
        /* the same type (half the time, now and then spelt out), its 32-bit or its 64-bit widening */
        redscan_dtype w[2];
        ref_widenings(c->dt, w);
        const uint64_t o = h_rng_below(&rn, 8);
        if (desc_api && (c->fn == F_REDUCE || c->fn == F_SCAN) && o >= 4 && (o < 6 || g_have_fp64 || !ref_is_float(c->dt)))
            c->out = c->field = w[o < 6 ? 0 : 1];
        else if (desc_api && o == 3)
            c->field = c->dt;
    } else if (desc_api && (c->fn == F_REDUCE || c->fn == F_SCAN) && ref_widening(c->dt) &&
        (ref_widening(c->dt) != REDSCAN_FLOAT64 || g_have_fp64) && h_rng_below(&r, 3) == 0) {
        c->out = c->field = ref_widening(c->dt);
    } else if (desc_api && h_rng_below(&r, 8) == 0) {
        c->field = c->dt; /* out_dtype == dtype, spelt out */
    }
    /* reduction algorithm */
    {
        static const redscan_reduce_algo A[] = {REDSCAN_REDUCE_AUTO,        REDSCAN_REDUCE_TREE,
                                                REDSCAN_REDUCE_INTERLEAVED, REDSCAN_REDUCE_COARSENED,
                                                REDSCAN_REDUCE_WARP_SYNC,   REDSCAN_REDUCE_SHUFFLE};
        uint64_t a = h_rng_below(&r, 14);
        c->algo = desc_api ? A[a < 10 ? 1 + a % 3 : a < 12 ? 0 : a - 8] : REDSCAN_REDUCE_AUTO;
    }
    /* scan block x grid */
    c->block = desc_api ? (redscan_block_scan)h_rng_below(&r, 5) : REDSCAN_BLOCK_AUTO;
    {
        uint64_t g = h_rng_below(&r, g_single_pass ? 9 : 7);
        c->grid = !desc_api ? REDSCAN_GRID_AUTO
                 : g < 3     ? REDSCAN_GRID_HIERARCHICAL
                 : g < 6     ? REDSCAN_GRID_REDUCE_THEN_SCAN
                 : g < 7     ? REDSCAN_GRID_AUTO
                             : REDSCAN_GRID_SINGLE_PASS;
    }
    c->excl = (int)(h_rng_u64(&r) & 1);
    c->use_init = desc_api && h_rng_below(&r, 2);
    c->inplace = c->fn == F_SCAN && c->out == c->dt && h_rng_below(&r, 3) == 0;
    c->n = pick_size(&r);
    if (c->fn == F_TOPK || c->fn == F_ARGMIN || c->fn == F_ARGMAX || c->fn == F_MEAN) {
        if (c->n == 0 && h_rng_below(&r, 2)) c->n = 1 + (size_t)h_rng_below(&r, 3); /* n = 0 now and then only */
    }
    c->largest = (int)(h_rng_u64(&r) & 1);
    c->want_value = (int)(h_rng_below(&r, 4) != 0);
    c->want_indices = (int)(h_rng_below(&r, 4) != 0);
    {
        size_t kmax = c->n < REDSCAN_TOPK_MAX ? c->n : REDSCAN_TOPK_MAX;
        uint64_t kk = h_rng_below(&r, 4);
        c->k = kmax == 0 ? 1
             : kk == 0   ? 1 + (size_t)h_rng_below(&r, kmax < 4 ? kmax : 4)
             : kk == 1   ? kmax
                         : 1 + (size_t)h_rng_below(&r, kmax);
    }
    c->gen = (h_gen)h_rng_below(&r, (uint64_t)h_gen_count(c->dt));
    c->ties = (c->fn == F_TOPK || c->fn == F_ARGMIN || c->fn == F_ARGMAX) && h_rng_below(&r, 3) == 0;

    /* the data: n elements and a poisoned tail */
    const size_t es = ref_size(c->dt), pad = 1 + (size_t)h_rng_below(&r, 40);
    unsigned char *x = (unsigned char *)h_malloc((c->n + pad) * es);
    redscan_op gen_op = c->op;
    if (c->fn == F_MEAN) gen_op = REDSCAN_SUM;
    if (c->fn == F_ARGMIN) gen_op = REDSCAN_MIN;
    if (c->fn == F_ARGMAX) gen_op = REDSCAN_MAX;
    if (c->fn == F_TOPK) gen_op = c->largest ? REDSCAN_MAX : REDSCAN_MIN;
    if (c->narrow) gen_narrow(&r, c, gen_op, x);
    else if (c->ties) h_gen_ties(&r, c->dt, x, c->n);
    else h_generate(&r, c->dt, gen_op, c->gen, x, c->n);
    ref_val poison;
    if (ref_is_narrow_float(c->dt)) poison = narrow_nan(c->dt, 0xbad, 1); /* changes any result that reads it */
    else if (c->fn == F_REDUCE || c->fn == F_SCAN || c->fn == F_MEAN) poison = h_poison(gen_op, c->dt);
    else if (ref_is_float(c->dt)) poison = h_nan(c->dt, 0xbad, 1); /* would win argmin/argmax/top-k */
    else poison = gen_op == REDSCAN_MAX ? ref_type_max(c->dt) : ref_type_min(c->dt);
    h_fill(c->dt, x + c->n * es, pad, poison);
    if (c->fn == F_SCAN && c->use_init) c->init = pick_init(&r, c, x);
    *data_out = x;
    *pad_out = pad;
}

static void describe(const rcase *c, char *buf, size_t len)
{
    char ts[48], extra[200] = "";
    if (c->field && c->field != c->dt) snprintf(ts, sizeof ts, "%s->%s", ref_dtype_str(c->dt), ref_dtype_str(c->out));
    else snprintf(ts, sizeof ts, "%s%s", ref_dtype_str(c->dt), c->field ? "(out_dtype=same)" : "");
    switch (c->fn) {
    case F_REDUCE:
        snprintf(extra, sizeof extra, "%s %s %s", ref_op_str(c->op), ts, algo_name(c->algo));
        break;
    case F_SCAN: {
        char is[96] = "null";
        if (c->use_init) h_fmt(c->out, c->init, is);
        snprintf(extra, sizeof extra, "%s %s %s/%s %s init=%s%s", ref_op_str(c->op), ts, h_block_str(c->block),
                 h_grid_str(c->grid), c->excl ? "exclusive" : "inclusive", is, c->inplace ? " in-place" : "");
        break;
    }
    case F_MEAN: snprintf(extra, sizeof extra, "%s", ts); break;
    case F_ARGMIN:
    case F_ARGMAX: snprintf(extra, sizeof extra, "%s value=%s", ts, c->want_value ? "ptr" : "NULL"); break;
    default:
        snprintf(extra, sizeof extra, "%s k=%zu %s indices=%s", ts, c->k, c->largest ? "largest" : "smallest",
                 c->want_indices ? "ptr" : "NULL");
        break;
    }
    char gen[48];
    snprintf(gen, sizeof gen, "%s%s", c->ties ? "ties" : h_gen_name(c->gen), c->exact ? "/exact" : "");
    if (c->narrow && c->scale >= 0) snprintf(gen + strlen(gen), sizeof gen - strlen(gen), "*2^-%d", c->scale);
    snprintf(buf, len, "random #%" PRIu64 " %s %s %s n=%zu gen=%s seed=0x%016" PRIx64, c->index, FN_NAMES[c->fn],
             API_NAMES[c->api], extra, c->n, gen, c->seed);
}

/* ---------------------------------------------------------------- device helpers */

/* A buffer holding src (src_bytes) followed by a copy of tail (tail_bytes). */
static redscan_buffer *dev_with(const void *src, size_t src_bytes, const void *tail, size_t tail_bytes)
{
    redscan_buffer *b = h_buffer(src_bytes + tail_bytes);
    if (!b) return NULL;
    redscan_status st = REDSCAN_OK;
    if (src_bytes) st = redscan_buffer_write(h_ctx, b, 0, src, src_bytes);
    if (st == REDSCAN_OK && tail_bytes) st = redscan_buffer_write(h_ctx, b, src_bytes, tail, tail_bytes);
    if (!CHECK_OK(st, "redscan_buffer_write")) {
        redscan_buffer_destroy(h_ctx, b);
        return NULL;
    }
    return b;
}

static void check_dev_unchanged(redscan_buffer *b, const void *want, size_t bytes, const char *what)
{
    unsigned char *back = (unsigned char *)h_malloc(bytes);
    if (CHECK_OK(redscan_buffer_read(h_ctx, b, 0, back, bytes), "redscan_buffer_read(input)"))
        CHECK_MEM(back, want, bytes, what);
    free(back);
}

/* Status handling shared by all functions: UNSUPPORTED is accepted where the documents allow it (a forced
 * single_pass grid, warp_sync/shuffle on a device without suitable sub-groups); returns whether to check. */
static int status_ok(redscan_status st, int unsupported_allowed, const char *what)
{
    if (st == REDSCAN_ERR_UNSUPPORTED && unsupported_allowed) {
        g_case_unsupported = 1;
        return 0;
    }
    return CHECK_OK(st, what);
}

/* REDSCAN_REDUCE_ALGO names an algorithm that may be UNSUPPORTED here (warp_sync, shuffle). */
static int env_forces_subgroup_algo(void)
{
    const char *s = getenv("REDSCAN_REDUCE_ALGO");
    return s && (strcasecmp(s, "warp_sync") == 0 || strcasecmp(s, "shuffle") == 0);
}

/* ---------------------------------------------------------------- reduce */

static void run_reduce(const rcase *c, const unsigned char *x, size_t pad)
{
    const size_t n = c->n, es = ref_size(c->dt), os = ref_size(c->out);
    const redscan_dtype T = c->out;
    redscan_reduce_algo eff = c->algo == REDSCAN_REDUCE_AUTO ? h_env_reduce_algo() : c->algo;
    const int subgroup_algo = eff == REDSCAN_REDUCE_WARP_SYNC || eff == REDSCAN_REDUCE_SHUFFLE;
    unsigned char res[32];
    memset(res, 0xA5, sizeof res);
    redscan_reduce_desc d = {c->op, c->dt, c->field, c->algo, 0};
    redscan_buffer *b = NULL;
    redscan_status st;
    const char *what = "?";
    switch (c->api) {
    case API_DEV_EX:
    case API_DEV:
        b = dev_with(x, n * es, x + n * es, pad * es);
        if (!b) return;
        if (c->api == API_DEV_EX) st = redscan_reduce_ex(h_ctx, &d, b, n, res), what = "redscan_reduce_ex";
        else st = redscan_reduce(h_ctx, c->op, c->dt, b, n, res), what = "redscan_reduce";
        break;
    case API_HOST_EX: st = redscan_reduce_host_ex(h_ctx, &d, x, n, res), what = "redscan_reduce_host_ex"; break;
    default: st = redscan_reduce_host(h_ctx, c->op, c->dt, x, n, res), what = "redscan_reduce_host"; break;
    }
    if (status_ok(st, (subgroup_algo || (c->algo == REDSCAN_REDUCE_AUTO && env_forces_subgroup_algo())) && n > 0, what)) {
        char g[96], w[96];
        ref_val got = ref_load(T, res, 0);
        CHECK(all_a5(res + os, sizeof res - os), "%s wrote past the result (%zu bytes)", what, os);
        const int fminmax = n && ref_is_float(T) && is_minmax(c->op);
        if (c->exact && n) {
            /* every partial result exact: the sequential reference is the bits of any order (the one rounding at the
             * end), checked whatever REDSCAN_TEST_EXACT_ORDER says */
            ref_val want = ref_reduce_seq(c->op, c->dt, T, x, n);
            CHECK(ref_result_equal(c->op, T, got, want), "%s: got %s, want %s (exact data: the sum / product rounded once)",
                  what, h_fmt(T, got, g), h_fmt(T, want, w));
        } else if (n == 0 || !ref_is_float(T) || fminmax) {
            ref_val want = ref_reduce_seq(c->op, c->dt, T, x, n);
            if (fminmax) {
                int gn = ref_isnan(T, got), wn = ref_isnan(T, want);
                CHECK(gn == wn && (wn || ref_to_double(T, got) == ref_to_double(T, want)), "%s: got %s, want %s",
                      what, h_fmt(T, got, g), h_fmt(T, want, w));
            } else {
                CHECK(ref_bits_equal(T, got, want), "%s: got %s, want %s", what, h_fmt(T, got, g), h_fmt(T, want, w));
            }
        } else {
            ref_ld_acc acc;
            ref_ld_init(&acc, c->op);
            for (size_t i = 0; i < n; i++) {
                ref_val v = ref_load(c->dt, x, i);
                ref_ld_add(&acc, c->op, ref_to_ld(c->dt, v), ref_isnan(c->dt, v));
            }
            double err, bound;
            redscan_reduce_algo da = subgroup_algo ? REDSCAN_REDUCE_TREE : eff;
            unsigned depth = ref_reduce_depth(da, n);
            CHECK(ref_fbound_ok(c->op, T, got, &acc, depth, &err, &bound),
                  "%s: got %s, reference %.17Lg: |error| %.3g > bound %.3g (depth %u)", what, h_fmt(T, got, g),
                  ref_ld_value(&acc, c->op), err, bound, depth);
        }
        if (n && ref_is_float(T) && h_exact_order()) {
            /* documented order: warp_sync / shuffle give the bits of tree; AUTO one of the three */
            redscan_reduce_algo ea = subgroup_algo ? REDSCAN_REDUCE_TREE : eff;
            if (ea != REDSCAN_REDUCE_AUTO) {
                ref_val want = ref_reduce_emulate(ea, c->op, c->dt, T, x, n);
                CHECK(ref_result_equal(c->op, T, got, want), "%s: got %s, documented order of %s gives %s", what,
                      h_fmt(T, got, g), algo_name(ea), h_fmt(T, want, w));
            } else {
                int any = 0;
                for (int a = REDSCAN_REDUCE_TREE; a <= REDSCAN_REDUCE_COARSENED && !any; a++)
                    any = ref_result_equal(c->op, T, got,
                                           ref_reduce_emulate((redscan_reduce_algo)a, c->op, c->dt, T, x, n));
                CHECK(any, "%s: AUTO got %s, the documented order of no algorithm", what, h_fmt(T, got, g));
            }
        }
    }
    if (b) {
        check_dev_unchanged(b, x, (n + pad) * es, "input buffer after reduce");
        redscan_buffer_destroy(h_ctx, b);
    }
}

/* ---------------------------------------------------------------- scan */

static void check_scan_output(const rcase *c, const unsigned char *x, const unsigned char *got, const char *what)
{
    const size_t n = c->n;
    const redscan_dtype T = c->out;
    const void *init = c->use_init ? c->init.b : NULL;
    /* exact data (narrow float sums / products): every partial result exact, so the sequential reference's outputs,
     * each rounded once, are the bits of any order */
    if (!ref_is_float(T) || is_minmax(c->op) || c->exact) {
        unsigned char *want = (unsigned char *)h_malloc((n ? n : 1) * ref_size(T));
        ref_scan_seq(c->op, c->dt, T, c->excl, init, x, want, n);
        CHECK_ARRAY(c->op, T, got, want, n, what);
        free(want);
        return;
    }
    /* the documented order of what runs (h_scan_emulate: block AUTO = coarsened, grid AUTO = single_pass's order,
     * the environment's overrides applied) and its bound, every element */
    const unsigned depth = h_scan_depth(c->block, c->grid, n);
    ref_ld_acc acc;
    ref_ld_init(&acc, c->op);
    if (c->use_init) ref_ld_add(&acc, c->op, ref_to_ld(T, c->init), ref_isnan(T, c->init));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        ref_val v = ref_load(c->dt, x, i);
        if (!c->excl) ref_ld_add(&acc, c->op, ref_to_ld(c->dt, v), ref_isnan(c->dt, v));
        double err, bound;
        ref_val g = ref_load(T, got, i);
        if (!ref_fbound_ok(c->op, T, g, &acc, depth, &err, &bound) && bad++ < 3) {
            char gs[96];
            CHECK(0, "%s: index %zu: got %s, reference %.17Lg: |error| %.3g > bound %.3g (depth %u)", what, i,
                  h_fmt(T, g, gs), ref_ld_value(&acc, c->op), err, bound, depth);
        }
        if (c->excl) ref_ld_add(&acc, c->op, ref_to_ld(c->dt, v), ref_isnan(c->dt, v));
    }
    CHECK(bad <= 3, "%s: %zu of %zu elements outside the bound", what, bad, n);
    if (!h_exact_order() || n == 0) return;
    unsigned char *emu = (unsigned char *)h_malloc(n * ref_size(T));
    char w[160];
    h_scan_emulate(c->block, c->grid, c->op, c->dt, T, c->excl, init, x, emu, n);
    snprintf(w, sizeof w, "%s vs documented order of %s (%s order)", what,
             h_block_str(ref_scan_block_of(h_scan_block(c->block))),
             ref_scan_single_pass_order(h_scan_grid(c->grid)) ? "single_pass" : "hierarchical");
    CHECK_ARRAY(c->op, T, got, emu, n, w);
    free(emu);
}

static void run_scan(const rcase *c, const unsigned char *x, size_t pad)
{
    const size_t n = c->n, es = ref_size(c->dt), os = ref_size(c->out);
    const redscan_grid_scan grd = c->grid == REDSCAN_GRID_AUTO ? h_env_grid() : c->grid;
    const int unsupported_ok = grd == REDSCAN_GRID_SINGLE_PASS && n > 0;
    redscan_scan_desc d = {c->op, c->dt, c->field, c->excl, c->use_init ? c->init.b : NULL, c->block, c->grid, 0};
    const size_t cap_out = (n + pad) * os, cap_in = (n + pad) * es;
    unsigned char *got = (unsigned char *)h_malloc(cap_out > cap_in ? cap_out : cap_in);
    unsigned char *sent = (unsigned char *)h_malloc(cap_out);
    memset(sent, 0xA5, cap_out);
    redscan_status st;
    const char *what = "?";
    if (c->api == API_DEV_EX || c->api == API_DEV) {
        redscan_buffer *in = NULL, *out = NULL;
        if (c->inplace) {
            in = out = dev_with(x, cap_in, NULL, 0);
        } else {
            in = dev_with(x, n * es, x + n * es, pad * es);
            out = dev_with(sent, cap_out, NULL, 0);
        }
        if (in && out) {
            if (c->api == API_DEV_EX) st = redscan_scan_ex(h_ctx, &d, in, out, n), what = "redscan_scan_ex";
            else st = redscan_scan(h_ctx, c->op, c->dt, c->excl, in, out, n), what = "redscan_scan";
            if (status_ok(st, unsupported_ok, what) &&
                CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, c->inplace ? cap_in : cap_out), "redscan_buffer_read")) {
                check_scan_output(c, x, got, what);
                if (c->inplace) CHECK_MEM(got + n * es, x + n * es, pad * es, "in-place buffer past n");
                else CHECK_MEM(got + n * os, sent, pad * os, "output past n");
            }
            if (!c->inplace) check_dev_unchanged(in, x, cap_in, "input buffer after scan");
        }
        if (in) redscan_buffer_destroy(h_ctx, in);
        if (out && out != in) redscan_buffer_destroy(h_ctx, out);
    } else {
        unsigned char *xcopy = NULL;
        if (c->inplace) {
            memcpy(got, x, cap_in);
        } else {
            memcpy(got, sent, cap_out);
            xcopy = (unsigned char *)h_malloc(cap_in);
            memcpy(xcopy, x, cap_in);
        }
        const void *src = c->inplace ? (const void *)got : (const void *)xcopy;
        if (c->api == API_HOST_EX) st = redscan_scan_host_ex(h_ctx, &d, src, got, n), what = "redscan_scan_host_ex";
        else st = redscan_scan_host(h_ctx, c->op, c->dt, c->excl, src, got, n), what = "redscan_scan_host";
        if (status_ok(st, unsupported_ok, what)) {
            check_scan_output(c, x, got, what);
            if (c->inplace) CHECK_MEM(got + n * es, x + n * es, pad * es, "host in-place array past n");
            else CHECK_MEM(got + n * os, sent, pad * os, "host output past n");
        }
        if (xcopy) {
            CHECK_MEM(xcopy, x, cap_in, "host input after scan");
            free(xcopy);
        }
    }
    free(got);
    free(sent);
}

/* ---------------------------------------------------------------- mean, argmin/argmax, top-k */

static void run_mean(const rcase *c, const unsigned char *x, size_t pad)
{
    const size_t n = c->n, es = ref_size(c->dt);
    double got = -12345.0;
    redscan_buffer *b = NULL;
    redscan_status st;
    if (c->api == API_DEV) {
        if (!(b = dev_with(x, n * es, x + n * es, pad * es))) return;
        st = redscan_mean(h_ctx, c->dt, b, n, &got);
    } else {
        st = redscan_mean_host(h_ctx, c->dt, x, n, &got);
    }
    const char *what = c->api == API_DEV ? "redscan_mean" : "redscan_mean_host";
    if (n == 0) {
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, what);
        CHECK(got == -12345.0, "%s of n = 0 wrote its result", what);
    } else if (CHECK_OK(st, what)) {
        redscan_reduce_algo algo = h_env_reduce_algo();
        double want = ref_mean_exact(algo, c->dt, x, n);
        ref_val g = {.f64 = got}, w = {.f64 = want};
        char gs[96], ws[96];
        if (!ref_is_float(c->dt)) {
            CHECK(ref_bits_equal(REDSCAN_FLOAT64, g, w), "%s: got %s, want %s", what, h_fmt(REDSCAN_FLOAT64, g, gs),
                  h_fmt(REDSCAN_FLOAT64, w, ws));
        } else {
            ref_ld_acc acc;
            ref_ld_init(&acc, REDSCAN_SUM);
            for (size_t i = 0; i < n; i++) {
                ref_val v = ref_load(c->dt, x, i);
                ref_ld_add(&acc, REDSCAN_SUM, ref_to_ld(c->dt, v), ref_isnan(c->dt, v));
            }
            long double ref = ref_ld_value(&acc, REDSCAN_SUM);
            if (isnan(ref)) {
                CHECK(isnan(got), "%s: got %.17g, want NaN", what, got);
            } else if (isinf(ref)) {
                CHECK(got == (double)ref, "%s: got %.17g, want %Lg", what, got, ref);
            } else {
                unsigned depth = ref_reduce_depth(algo == REDSCAN_REDUCE_AUTO ? REDSCAN_REDUCE_COARSENED : algo, n);
                long double m = ref / (long double)n;
                long double bound =
                    (long double)depth * DBL_EPSILON * acc.abs_sum / (long double)n + DBL_EPSILON * fabsl(m);
                CHECK(fabsl((long double)got - m) <= bound, "%s: got %.17g, reference %.17Lg, bound %.3Lg", what, got,
                      m, bound);
            }
            if (h_exact_order())
                CHECK(ref_result_equal(REDSCAN_SUM, REDSCAN_FLOAT64, g, w),
                      "%s: got %s, documented order (sum in float64) / n gives %s", what,
                      h_fmt(REDSCAN_FLOAT64, g, gs), h_fmt(REDSCAN_FLOAT64, w, ws));
        }
    }
    if (b) {
        check_dev_unchanged(b, x, (n + pad) * es, "input buffer after mean");
        redscan_buffer_destroy(h_ctx, b);
    }
}

static void run_argext(const rcase *c, const unsigned char *x, size_t pad)
{
    const size_t n = c->n, es = ref_size(c->dt);
    const int want_max = c->fn == F_ARGMAX;
    uint64_t idx = UINT64_MAX;
    unsigned char val[32];
    memset(val, 0xA5, sizeof val);
    void *vp = c->want_value ? val : NULL;
    redscan_buffer *b = NULL;
    redscan_status st;
    if (c->api == API_DEV) {
        if (!(b = dev_with(x, n * es, x + n * es, pad * es))) return;
        st = want_max ? redscan_argmax(h_ctx, c->dt, b, n, &idx, vp) : redscan_argmin(h_ctx, c->dt, b, n, &idx, vp);
    } else {
        st = want_max ? redscan_argmax_host(h_ctx, c->dt, x, n, &idx, vp)
                      : redscan_argmin_host(h_ctx, c->dt, x, n, &idx, vp);
    }
    const char *what = want_max ? (b ? "redscan_argmax" : "redscan_argmax_host")
                                : (b ? "redscan_argmin" : "redscan_argmin_host");
    if (n == 0) {
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, what);
        CHECK(idx == UINT64_MAX && all_a5(val, sizeof val), "%s of n = 0 wrote its outputs", what);
    } else if (CHECK_OK(st, what)) {
        uint64_t want = ref_argext(c->dt, want_max, x, n);
        ref_val wv = ref_load(c->dt, x, (size_t)want);
        char gs[96], ws[96];
        CHECK(idx == want, "%s: index %" PRIu64 " (value %s), want %" PRIu64 " (value %s)", what, idx,
              idx < n ? h_fmt(c->dt, ref_load(c->dt, x, (size_t)idx), gs) : "out of range", want, h_fmt(c->dt, wv, ws));
        if (c->want_value) {
            ref_val g = ref_load(c->dt, val, 0);
            CHECK(ref_bits_equal(c->dt, g, wv), "%s: value %s, want %s", what, h_fmt(c->dt, g, gs), h_fmt(c->dt, wv, ws));
            CHECK(all_a5(val + es, sizeof val - es), "%s wrote past the value", what);
        }
    }
    if (b) {
        check_dev_unchanged(b, x, (n + pad) * es, "input buffer after argmin/argmax");
        redscan_buffer_destroy(h_ctx, b);
    }
}

static void run_topk(const rcase *c, const unsigned char *x, size_t pad)
{
    const size_t n = c->n, es = ref_size(c->dt), k = c->k, extra = 4;
    unsigned char *vals = (unsigned char *)h_malloc((k + extra) * es);
    uint64_t *idx = (uint64_t *)h_malloc((k + extra) * sizeof *idx);
    memset(vals, 0xA5, (k + extra) * es);
    memset(idx, 0xA5, (k + extra) * sizeof *idx);
    uint64_t *ip = c->want_indices ? idx : NULL;
    redscan_buffer *b = NULL;
    redscan_status st;
    if (c->api == API_DEV) {
        if (!(b = dev_with(x, n * es, x + n * es, pad * es))) {
            free(vals);
            free(idx);
            return;
        }
        st = redscan_topk(h_ctx, c->dt, b, n, k, c->largest, vals, ip);
    } else {
        st = redscan_topk_host(h_ctx, c->dt, x, n, k, c->largest, vals, ip);
    }
    const char *what = b ? "redscan_topk" : "redscan_topk_host";
    if (n == 0) {
        CHECK_STATUS(st, REDSCAN_ERR_INVALID_ARGUMENT, what);
        CHECK(all_a5(vals, (k + extra) * es) && all_a5(idx, (k + extra) * sizeof *idx), "%s of n = 0 wrote its outputs",
              what);
    } else if (CHECK_OK(st, what)) {
        unsigned char *wv = (unsigned char *)h_malloc(k * es);
        uint64_t *wi = (uint64_t *)h_malloc(k * sizeof *wi);
        ref_topk(c->dt, c->largest, x, n, k, wv, wi);
        size_t bad = 0;
        for (size_t i = 0; i < k; i++) {
            ref_val g = ref_load(c->dt, vals, i), w = ref_load(c->dt, wv, i);
            int ok = ref_bits_equal(c->dt, g, w) && (!ip || idx[i] == wi[i]);
            if (!ok && bad++ < 3) {
                char gs[96], ws[96];
                CHECK(0, "%s: rank %zu: got %s at index %" PRIu64 ", want %s at index %" PRIu64, what, i,
                      h_fmt(c->dt, g, gs), ip ? idx[i] : UINT64_MAX, h_fmt(c->dt, w, ws), wi[i]);
            }
        }
        CHECK(bad == 0, "%s: %zu of %zu ranks differ", what, bad, k);
        CHECK(all_a5(vals + k * es, extra * es), "%s wrote values past k", what);
        CHECK(all_a5(ip ? (void *)(idx + k) : (void *)idx, (ip ? extra : k + extra) * sizeof *idx),
              "%s wrote indices past k (or with indices = NULL)", what);
        free(wv);
        free(wi);
    }
    if (b) {
        check_dev_unchanged(b, x, (n + pad) * es, "input buffer after top-k");
        redscan_buffer_destroy(h_ctx, b);
    }
    free(vals);
    free(idx);
}

/* ---------------------------------------------------------------- driver */

static int run_case(uint64_t index)
{
    rcase c;
    memset(&c, 0, sizeof c);
    c.index = index;
    c.seed = h_seed(0x52414e44u /* "RAND" */, index, 0, 0, 0, 0);
    unsigned char *x = NULL;
    size_t pad = 0;
    draw_case(&c, &x, &pad);
    char desc[512];
    describe(&c, desc, sizeof desc);
    if (!h_case("%s", desc)) {
        free(x);
        return 0;
    }
    if (c.narrow && !g_narrow) { /* the backend refuses the narrow types: skipped (counted, reason printed), not run */
        g_narrow_skipped++;
        if (h_verbose()) printf("skipped (narrow types refused): %s\n", desc);
        free(x);
        return 0;
    }
    g_narrow_ran += c.narrow;
    long before = h_failures();
    g_case_unsupported = 0;
    g_fn_count[c.fn]++;
    switch (c.fn) {
    case F_REDUCE: run_reduce(&c, x, pad); break;
    case F_SCAN: run_scan(&c, x, pad); break;
    case F_MEAN: run_mean(&c, x, pad); break;
    case F_ARGMIN:
    case F_ARGMAX: run_argext(&c, x, pad); break;
    default: run_topk(&c, x, pad); break;
    }
    g_unsupported += g_case_unsupported;
    if (g_case_unsupported) {
        if (c.fn == F_REDUCE) g_unsup_subgroup++;
        else g_unsup_single++;
    }
    free(x);
    if (h_failures() == before) return 0;
    const char *be = getenv("REDSCAN_BACKEND");
    printf("FAILED CASE #%" PRIu64 " (seed 0x%016" PRIx64 "): %s\n", index, c.seed, desc);
    printf("  replay: REDSCAN_BACKEND=%s REDSCAN_TEST_SEED=0x%" PRIx64 " REDSCAN_RANDOM_CASE=%" PRIu64 " ./tests/test_random\n",
           be && *be ? be : redscan_backend_name(h_ctx), g_base, index);
    return 1;
}

/* REDSCAN_TEST_SEED=random: a base seed from the clock, set before h_open reads it. */
static void maybe_random_seed(void)
{
    const char *s = getenv("REDSCAN_TEST_SEED");
    if (!s || (strcasecmp(s, "random") != 0 && strcasecmp(s, "time") != 0)) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t v = ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    char buf[32];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    setenv("REDSCAN_TEST_SEED", buf, 1);
}

int main(void)
{
    maybe_random_seed();
    h_open("test_random");
    g_base = h_base_seed();
    const double t0 = h_now();
    const double budget = (double)env_u64("REDSCAN_RANDOM_SECONDS", 60);
    const uint64_t first = env_u64("REDSCAN_RANDOM_FIRST", 0);
    const uint64_t max_cases = env_u64("REDSCAN_RANDOM_MAX_CASES", UINT64_MAX);
    const uint64_t max_fail = env_u64("REDSCAN_RANDOM_MAX_FAILURES", 3);
    g_max_n = (size_t)env_u64("REDSCAN_RANDOM_MAX_N", g_max_n);
    const char *only = getenv("REDSCAN_RANDOM_CASE");

    {
        double one = 1.0, r = 0;
        if (redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &r) == REDSCAN_ERR_UNSUPPORTED) {
            g_have_fp64 = 0;
            printf("note: the device has no fp64; FLOAT64 is never drawn\n");
        }
        /* single_pass joins the grids once the library implements it */
        int32_t in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
        redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_SINGLE_PASS, 0};
        redscan_status st = redscan_scan_host_ex(h_ctx, &d, in, out, 3);
        g_single_pass = st != REDSCAN_ERR_UNSUPPORTED;
        printf("note: single_pass grid %s\n",
               g_single_pass ? "is implemented: drawn" : "returns UNSUPPORTED: not drawn (only through AUTO + env)");
        /* narrow types: a backend without their kernels refuses them (docs/SEMANTICS.md); its narrow cases are then
         * skipped and counted, never passed */
        const int8_t one8 = 1;
        int8_t r8 = 0;
        if (redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_INT8, &one8, 1, &r8) == REDSCAN_ERR_UNSUPPORTED) {
            g_narrow = 0;
            snprintf(g_narrow_reason, sizeof g_narrow_reason, "%s", h_last_error());
            printf("note: narrow types refused by this backend: their cases are skipped (%s)\n", g_narrow_reason);
        }
    }

    uint64_t ran = 0, failed = 0;
    if (only && *only) {
        uint64_t i = strtoull(only, NULL, 0);
        printf("replaying case %" PRIu64 " of base seed 0x%" PRIx64 "\n", i, g_base);
        failed += (uint64_t)run_case(i);
        ran = 1;
    } else {
        printf("running random cases for %.0f s (base seed 0x%" PRIx64 ", first case %" PRIu64 ")\n", budget, g_base,
               first);
        for (uint64_t i = first; ran < max_cases && h_now() - t0 < budget; i++) {
            failed += (uint64_t)run_case(i);
            ran++;
            if (h_verbose()) printf("case %s: %.1f s\n", h_case_str(), h_now() - t0);
            if (failed >= max_fail) {
                printf("stopping after %" PRIu64 " failing cases (REDSCAN_RANDOM_MAX_FAILURES)\n", failed);
                break;
            }
        }
    }
    printf("test_random: %" PRIu64 " cases ran in %.1f s (reduce %ld, scan %ld, mean %ld, argmin %ld, argmax %ld, "
           "topk %ld; UNSUPPORTED where allowed: %ld warp_sync/shuffle, %ld single_pass), %" PRIu64 " failed\n",
           ran, h_now() - t0, g_fn_count[F_REDUCE], g_fn_count[F_SCAN], g_fn_count[F_MEAN], g_fn_count[F_ARGMIN],
           g_fn_count[F_ARGMAX], g_fn_count[F_TOPK], g_unsup_subgroup, g_unsup_single, failed);
    if (g_narrow)
        printf("test_random: %ld of them narrow (int8 .. bfloat16)\n", g_narrow_ran);
    else
        printf("test_random: SKIPPED %ld of these cases (narrow types, not run): %s\n", g_narrow_skipped,
               g_narrow_reason);
    if (ran > 0 && (uint64_t)g_narrow_skipped == ran) { /* nothing tested (a replay of a narrow case) */
        h_done();
        return H_SKIP;
    }
    return h_done();
}
