/* Test harness; see harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <ctype.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

redscan_ctx *h_ctx = NULL;

static const char *g_program = "test";
static long g_failures, g_checks, g_case_failures, g_printed;
static char g_case[512];
static double g_t0;
static int g_level = 1, g_exact = 1, g_verbose = 0;
static int g_cache_forced = 0; /* REDSCAN_TEST_PROGRAM_CACHE=1 turned REDSCAN_CACHE=0 into 1 */
static uint64_t g_seed = 0x5eed0001d00dULL;
static const char *g_filter = NULL;

#define MAX_PRINTED_PER_CASE 8
#define MAX_PRINTED 400

double h_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *h_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        printf("FATAL %s: out of host memory (%zu bytes) in case %s\n", g_program, bytes, g_case);
        exit(1);
    }
    return p;
}

int h_level(void) { return g_level; }
int h_program_cache_forced(void) { return g_cache_forced; }

static unsigned g_shard = 0, g_shards = 1; /* 0-based shard of g_shards */
int h_shard(unsigned key) { return key % g_shards == g_shard; }
int h_exact_order(void) { return g_exact; }

/* The subset (REDSCAN_TEST_SUBSET=1) is for passes whose point is another way of compiling the same kernels
 * (PoCL's second work-group method, Intel's runtime) or the host code under a sanitizer: the first pass runs every
 * case. PoCL compiles a program per (kernel family, type, op), so the type subset builds about a third of the
 * programs. It keeps a 32-bit and a 64-bit integer (the single-pass slots of one and two words), float32, a
 * widening (the `_t` kernels), and among the narrow entries an 8-bit and a 16-bit integer, float16 and bfloat16
 * (their own conversions) and a widening to 64 bits: int32, uint64, float32, float32 -> float64; int8, uint16,
 * float16, bfloat16 -> float32, int16 -> int64. */
static int g_subset = 0;
int h_subset(void) { return g_subset; }
int h_type_in_subset(redscan_dtype in, redscan_dtype out)
{
    static const redscan_dtype keep[][2] = {
        {REDSCAN_INT32, REDSCAN_INT32},     {REDSCAN_UINT64, REDSCAN_UINT64},     {REDSCAN_FLOAT32, REDSCAN_FLOAT32},
        {REDSCAN_FLOAT32, REDSCAN_FLOAT64}, {REDSCAN_INT8, REDSCAN_INT8},         {REDSCAN_UINT16, REDSCAN_UINT16},
        {REDSCAN_FLOAT16, REDSCAN_FLOAT16}, {REDSCAN_BFLOAT16, REDSCAN_FLOAT32}, {REDSCAN_INT16, REDSCAN_INT64}};
    if (!g_subset) return 1;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (keep[i][0] == in && keep[i][1] == out) return 1;
    return 0;
}
int h_verbose(void) { return g_verbose; }

redscan_ctx *h_open(const char *program)
{
    const char *s;
    g_program = program;
    g_t0 = h_now();
    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((s = getenv("REDSCAN_TEST_SEED")) && *s) g_seed = strtoull(s, NULL, 0);
    if ((s = getenv("REDSCAN_TEST_LEVEL")) && *s) g_level = atoi(s);
    if ((s = getenv("REDSCAN_TEST_SHARD")) && *s) {
        unsigned i = 0, n = 0;
        char tail = 0;
        if (sscanf(s, "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || i == 0 || i > n) {
            fprintf(stderr, "%s: REDSCAN_TEST_SHARD='%s' is not i/N with 1 <= i <= N\n", program, s);
            exit(1);
        }
        g_shard = i - 1;
        g_shards = n;
        printf("%s: shard %u of %u\n", program, i, n);
    }
    if ((s = getenv("REDSCAN_TEST_EXACT_ORDER")) && *s) g_exact = atoi(s) != 0;
    if ((s = getenv("REDSCAN_TEST_SUBSET")) && *s) {
        g_subset = !strcmp(s, "1");
        if (g_subset)
            printf("%s: REDSCAN_TEST_SUBSET=1: a covering subset (types int32 uint64 float32 float32->float64 int8 "
                   "uint16 float16 bfloat16->float32 int16->int64)\n", program);
    }
    if ((s = getenv("REDSCAN_TEST_VERBOSE")) && *s) g_verbose = atoi(s) != 0;
    if ((s = getenv("REDSCAN_TEST_FILTER")) && *s) g_filter = s;
    /* REDSCAN_TEST_PROGRAM_CACHE=1 in CTest's environment (scripts/test.sh's Intel pass): the on-disk program cache
     * on for this run, as -DREDSCAN_TEST_PROGRAM_CACHE=ON does at configure time. Only where the suite turned it off
     * (REDSCAN_CACHE=0); the tests that set REDSCAN_CACHE themselves (OWN_CACHE: unset) are left as they are. */
    if ((s = getenv("REDSCAN_TEST_PROGRAM_CACHE")) && !strcmp(s, "1") && (s = getenv("REDSCAN_CACHE")) &&
        !strcmp(s, "0")) {
        setenv("REDSCAN_CACHE", "1", 1);
        g_cache_forced = 1;
    }
    const char *want = getenv("REDSCAN_BACKEND");
    redscan_status st = redscan_create(&h_ctx, REDSCAN_BACKEND_AUTO);
    if (st == REDSCAN_ERR_BACKEND_UNAVAILABLE) {
        const char *why = redscan_last_error(NULL);
        printf("SKIP %s: backend '%s' is unavailable here: %s\n", program, want ? want : "auto",
               why && *why ? why : "(no reason given)");
        if (!why || !*why) printf("NOTE: redscan_last_error(NULL) gave no reason\n");
        exit(H_SKIP);
    }
    if (st != REDSCAN_OK) {
        const char *why = redscan_last_error(NULL);
        printf("FAIL %s: redscan_create(AUTO) with REDSCAN_BACKEND=%s returned %s: %s\n", program,
               want ? want : "(unset)", redscan_status_string(st), why ? why : "(null)");
        exit(1);
    }
    printf("%s: backend %s, device \"%s\", base seed 0x%" PRIx64 ", level %d%s\n", program,
           redscan_backend_name(h_ctx), redscan_device_name(h_ctx), g_seed, g_level,
           g_exact ? "" : ", exact-order checks off");
    if (want && *want && strcasecmp(want, "auto") != 0 && strcasecmp(want, redscan_backend_name(h_ctx)) != 0) {
        printf("FAIL %s: REDSCAN_BACKEND=%s but the context runs on %s (silent fallback)\n", program, want,
               redscan_backend_name(h_ctx));
        g_failures++;
    }
    return h_ctx;
}

int h_done(void)
{
    if (h_ctx) redscan_destroy(h_ctx);
    h_ctx = NULL;
    printf("%s: %ld checks, %ld failures, %.1f s\n", g_program, g_checks, g_failures, h_now() - g_t0);
    if (g_failures) printf("%s: FAILED (reproduce one case with REDSCAN_TEST_FILTER=\"<case text>\")\n", g_program);
    return g_failures ? 1 : 0;
}

/* ------------------------------------------------------------------ RNG */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t h_base_seed(void) { return g_seed; }

uint64_t h_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
    uint64_t h = mix64(g_seed);
    uint64_t v[6] = {a, b, c, d, e, f};
    for (int i = 0; i < 6; i++) h = mix64(h ^ (v[i] + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)));
    return h;
}

void h_rng_init(h_rng *r, uint64_t seed) { r->s = seed; }

uint64_t h_rng_u64(h_rng *r)
{
    r->s += 0x9e3779b97f4a7c15ULL;
    return mix64(r->s);
}

uint64_t h_rng_below(h_rng *r, uint64_t bound)
{
    if (bound <= 1) return 0;
    return h_rng_u64(r) % bound; /* the bias is irrelevant here */
}

double h_rng_unit(h_rng *r) { return (double)(h_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0); }

/* ------------------------------------------------------------------ generators */

const char *h_gen_name(h_gen g)
{
    static const char *names[] = {"plain", "edge", "nan", "inf", "tiny"};
    return (unsigned)g < GEN_COUNT ? names[g] : "?";
}

int h_gen_count(redscan_dtype dt) { return ref_is_float(dt) ? GEN_COUNT : 2; }

ref_val h_nan(redscan_dtype dt, uint32_t payload, int negative)
{
    ref_val v = ref_zero();
    if (dt == REDSCAN_FLOAT16) v.u16 = (uint16_t)(0x7e00u | (payload & 0x01ffu) | (negative ? 0x8000u : 0));
    else if (dt == REDSCAN_BFLOAT16) v.u16 = (uint16_t)(0x7fc0u | (payload & 0x003fu) | (negative ? 0x8000u : 0));
    else if (dt == REDSCAN_FLOAT32) v.u32 = 0x7fc00000u | (payload & 0x003fffffu) | (negative ? 0x80000000u : 0);
    else v.u64 = 0x7ff8000000000000ULL | (uint64_t)payload | (negative ? 0x8000000000000000ULL : 0);
    return v;
}

ref_val h_poison(redscan_op op, redscan_dtype dt)
{
    if (ref_is_float(dt)) return h_nan(dt, 0xdead, 0);
    ref_val v = ref_zero();
    switch (op) {
    case REDSCAN_SUM: v.u64 = 0x5a5a5a5a5a5a5a5aULL; return v;
    case REDSCAN_PROD: return v; /* 0 */
    case REDSCAN_MIN: return ref_type_min(dt);
    default: return ref_type_max(dt);
    }
}

static ref_val from_i64(redscan_dtype dt, int64_t x)
{
    ref_val v = ref_zero();
    switch (dt) {
    case REDSCAN_INT32: v.i32 = (int32_t)x; break;
    case REDSCAN_UINT32: v.u32 = (uint32_t)x; break;
    case REDSCAN_INT64: v.i64 = x; break;
    case REDSCAN_UINT64: v.u64 = (uint64_t)x; break;
    case REDSCAN_FLOAT32: v.f32 = (float)x; break;
    case REDSCAN_FLOAT64: v.f64 = (double)x; break;
    default: break;
    }
    return v;
}

static ref_val from_double(redscan_dtype dt, double x)
{
    ref_val v = ref_zero();
    if (dt == REDSCAN_FLOAT32) v.f32 = (float)x;
    else v.f64 = x;
    return v;
}

static ref_val int_plain(h_rng *r, redscan_dtype dt, redscan_op op, uint64_t window_base)
{
    ref_val v = ref_zero();
    uint64_t bits = h_rng_u64(r);
    switch (op) {
    case REDSCAN_SUM: v.u64 = bits; break;
    case REDSCAN_PROD: v.u64 = bits | 1u; break; /* odd: the product never becomes 0, it wraps */
    default: v.u64 = window_base + h_rng_below(r, 4096); break; /* many ties, extremes inside the range */
    }
    if (ref_size(dt) == 4) v.u64 &= 0xffffffffu, v.b[4] = v.b[5] = v.b[6] = v.b[7] = 0;
    return v;
}

static ref_val int_edge(h_rng *r, redscan_dtype dt, redscan_op op)
{
    if (op == REDSCAN_PROD) {
        switch (h_rng_below(r, 4)) {
        case 0: return from_i64(dt, 1);
        case 1: return from_i64(dt, -1); /* all ones: UINT max for unsigned */
        case 2: return ref_type_max(dt);
        default: return from_i64(dt, 3);
        }
    }
    switch (h_rng_below(r, 7)) {
    case 0: return from_i64(dt, 0);
    case 1: return from_i64(dt, 1);
    case 2: return from_i64(dt, -1);
    case 3: return ref_type_max(dt);
    case 4: return ref_type_min(dt);
    case 5: { ref_val v = ref_type_max(dt); v.u64 -= 1; return v; }
    default: { ref_val v = ref_type_min(dt); v.u64 += 1; if (ref_size(dt) == 4) v.b[4] = v.b[5] = v.b[6] = v.b[7] = 0; return v; }
    }
}

static double sized(h_rng *r, int lo_exp, int hi_exp)
{
    double m = 1.0 + h_rng_unit(r);
    int e = lo_exp + (int)h_rng_below(r, (uint64_t)(hi_exp - lo_exp + 1));
    double x = ldexp(m, e);
    return (h_rng_u64(r) & 1) ? -x : x;
}

static ref_val float_plain(h_rng *r, redscan_dtype dt, redscan_op op, double prod_rate)
{
    switch (op) {
    case REDSCAN_SUM:
        return from_double(dt, sized(r, -4, 3));
    case REDSCAN_PROD:
        if (h_rng_unit(r) < prod_rate) {
            double x = exp2(2.0 * h_rng_unit(r) - 1.0); /* [0.5, 2], log-symmetric */
            return from_double(dt, (h_rng_u64(r) & 1) ? -x : x);
        }
        return from_double(dt, (h_rng_u64(r) & 1) ? -1.0 : 1.0);
    default:
        return from_double(dt, sized(r, -20, 20));
    }
}

static ref_val float_denormal(h_rng *r, redscan_dtype dt)
{
    ref_val v = ref_zero();
    if (dt == REDSCAN_FLOAT32) v.u32 = (uint32_t)(1 + h_rng_below(r, 0x007fffffu)) | ((h_rng_u64(r) & 1) ? 0x80000000u : 0);
    else v.u64 = (1 + h_rng_below(r, 0x000fffffffffffffULL)) | ((h_rng_u64(r) & 1) ? 0x8000000000000000ULL : 0);
    return v;
}

static ref_val float_edge(h_rng *r, redscan_dtype dt, redscan_op op)
{
    const int f32 = dt == REDSCAN_FLOAT32;
    const double big = f32 ? ldexp(1.0, 100) : ldexp(1.0, 900); /* n * big cannot overflow (n < 2^27) */
    const double small = f32 ? ldexp(1.0, -100) : ldexp(1.0, -900);
    const double tmin = f32 ? (double)FLT_MIN : DBL_MIN;
    const double tmax = f32 ? (double)FLT_MAX : DBL_MAX;
    const double denorm_min = f32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN;
    if (op == REDSCAN_PROD) {
        switch (h_rng_below(r, 3)) {
        case 0: return from_double(dt, -1.0);
        case 1: return from_double(dt, ldexp((h_rng_u64(r) & 1) ? -1.0 : 1.0, (int)h_rng_below(r, 9) - 4)); /* exact */
        default: return from_double(dt, 1.0);
        }
    }
    unsigned k = (unsigned)h_rng_below(r, op == REDSCAN_SUM ? 10 : 13);
    switch (k) {
    case 0: return from_double(dt, 0.0);
    case 1: return from_double(dt, -0.0);
    case 2: return float_denormal(r, dt);
    case 3: return from_double(dt, (h_rng_u64(r) & 1) ? denorm_min : -denorm_min);
    case 4: return from_double(dt, (h_rng_u64(r) & 1) ? tmin : -tmin);
    case 5: return from_double(dt, (h_rng_u64(r) & 1) ? big : -big);
    case 6: return from_double(dt, sized(r, f32 ? 90 : 800, f32 ? 100 : 900));
    case 7: return from_double(dt, (h_rng_u64(r) & 1) ? small : -small);
    case 8: return from_double(dt, sized(r, f32 ? -120 : -1000, f32 ? -90 : -900));
    case 9: return from_double(dt, (h_rng_u64(r) & 1) ? 1.0 : -1.0);
    /* min / max only: */
    case 10: return from_double(dt, (h_rng_u64(r) & 1) ? tmax : -tmax);
    case 11: return from_double(dt, INFINITY);
    default: return from_double(dt, -INFINITY);
    }
}

/* ---- the narrow types (INT8 .. BFLOAT16): the same variants with their own values ---- */

static ref_val nbits(redscan_dtype dt, uint64_t bits)
{
    ref_val v = ref_zero();
    if (ref_size(dt) == 1) v.u8 = (uint8_t)bits;
    else v.u16 = (uint16_t)bits;
    return v;
}

/* the float16 / bfloat16 nearest to x (through float32) */
static ref_val nfloat(redscan_dtype dt, double x) { return nbits(dt, ref_f32_to_narrow(dt, (float)x)); }

static ref_val with_sign(h_rng *r, ref_val v)
{
    if (h_rng_u64(r) & 1) v.u16 |= 0x8000u;
    return v;
}

/* 0, 1, -1 (0xFF / 0xFFFF unsigned), the type's min and max (INT8_MIN, INT8_MAX, INT16_MIN, ...) and their
 * neighbours; products: odd values only (1, -1, the max, 3) */
static ref_val narrow_int_edge(h_rng *r, redscan_dtype dt, redscan_op op)
{
    if (op == REDSCAN_PROD) {
        static const uint64_t odd[] = {1, ~0ull, 3};
        const uint64_t k = h_rng_below(r, 4);
        return k == 3 ? ref_type_max(dt) : nbits(dt, odd[k]);
    }
    switch (h_rng_below(r, 7)) {
    case 0: return nbits(dt, 0);
    case 1: return nbits(dt, 1);
    case 2: return nbits(dt, ~0ull);
    case 3: return ref_type_max(dt);
    case 4: return ref_type_min(dt);
    case 5: return nbits(dt, ref_type_max(dt).u16 - 1u);
    default: return nbits(dt, ref_type_min(dt).u16 + 1u);
    }
}

/* The largest finite value (float16 65504), the smallest normal (0x0400 / 0x0080), the smallest and the largest
 * subnormal, 0 and 1, each of either sign. Sums leave the largest out (h_generate plants at most one). */
static ref_val narrow_float_edge(h_rng *r, redscan_dtype dt, int with_max)
{
    static const uint16_t E16[] = {0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff};
    static const uint16_t EB[] = {0x0000, 0x0001, 0x007f, 0x0080, 0x3f80, 0x7f7f};
    const uint16_t b = (dt == REDSCAN_FLOAT16 ? E16 : EB)[h_rng_below(r, with_max ? 6 : 5)];
    return with_sign(r, nbits(dt, b));
}

/* a random finite pattern: any exponent, subnormals included */
static ref_val narrow_float_any(h_rng *r, redscan_dtype dt)
{
    for (;;) {
        const ref_val v = nbits(dt, h_rng_u64(r));
        if (!ref_isnan(dt, v) && (v.u16 & 0x7fffu) != ref_type_max(dt).u16) return v;
    }
}

/* subnormal, or within a factor 2 of the smallest normal */
static ref_val narrow_float_tiny(h_rng *r, redscan_dtype dt)
{
    const uint64_t sub = dt == REDSCAN_FLOAT16 ? 0x03ff : 0x007f, normal = sub + 1;
    const uint64_t b = h_rng_u64(r) % 8 ? 1 + h_rng_below(r, sub) : normal + h_rng_below(r, normal);
    return with_sign(r, nbits(dt, b));
}

/* Narrow float sums: multiples k * 2^-s, |k| <= K, with sum |k| < 2^24 - 4096, so that every partial sum of any subset
 * is exact in float32 and only the stored result rounds: the outputs cross the narrow type's rounding ties (ties to
 * even) at every size; s reaches float16's subnormals (2^-24) and bfloat16's (2^-133, float32 subnormal arithmetic).
 * Now and then only positive values, so that prefixes and totals drift up to the ties of large values and float16's
 * overflow threshold 65520. */
static void narrow_sum_grid(h_rng *r, redscan_dtype dt, void *dst, size_t n)
{
    const int f16 = dt == REDSCAN_FLOAT16;
    static const int S16[] = {0, 2, 10, 24}, SB[] = {0, 2, 6, 133};
    const int s = f16 ? S16[h_rng_below(r, 4)] : SB[h_rng_below(r, 4)];
    const uint64_t kmax = f16 ? 2048 : 256; /* |k| <= kmax: k * 2^-s is a float16 / bfloat16 */
    uint64_t K = ((1ull << 24) - 4096) / n;
    if (K > kmax) K = kmax;
    if (K < 1) K = 1;
    if (h_rng_below(r, 4) == 0 && K > 4) K = 4;
    const int positive = h_rng_below(r, 4) == 0;
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)h_rng_below(r, 2 * K + 1) - (int64_t)K;
        if (positive && k < 0) k = -k;
        ref_store(dt, dst, i, k == 0 && (h_rng_u64(r) & 1) ? nbits(dt, 0x8000u) : nfloat(dt, ldexp((double)k, -s)));
    }
}

static void generate_narrow(h_rng *r, redscan_dtype dt, redscan_op op, h_gen g, void *dst, size_t n)
{
    const int isf = ref_is_narrow_float(dt), minmax = op == REDSCAN_MIN || op == REDSCAN_MAX;
    if (!isf && g != GEN_PLAIN) g = GEN_EDGE;
    if (op == REDSCAN_PROD && g == GEN_TINY) g = GEN_EDGE;
    if (!isf) {
        /* min / max: a window of a quarter of the range (at most 4096 values) away from the extremes, many ties */
        const uint64_t range = ref_size(dt) == 1 ? 256 : 65536, span = range / 4 < 4096 ? range / 4 : 4096;
        const uint64_t base = ref_type_min(dt).u16 + 1 + h_rng_below(r, range - span - 2);
        for (size_t i = 0; i < n; i++) {
            ref_val v;
            if (g == GEN_EDGE && h_rng_below(r, 16) == 0) v = narrow_int_edge(r, dt, op);
            else if (op == REDSCAN_SUM) v = nbits(dt, h_rng_u64(r));
            else if (op == REDSCAN_PROD) v = nbits(dt, h_rng_u64(r) | 1); /* odd: wraps, never becomes 0 */
            else if (i > 0 && h_rng_below(r, 8) == 0) v = ref_load(dt, dst, (size_t)h_rng_below(r, i));
            else v = nbits(dt, base + h_rng_below(r, span));
            ref_store(dt, dst, i, v);
        }
        if (op == REDSCAN_PROD && g == GEN_EDGE && h_rng_below(r, 2) == 0) /* one planted 0 or even extreme */
            ref_store(dt, dst, (size_t)h_rng_below(r, n), (h_rng_u64(r) & 1) ? nbits(dt, 0) : ref_type_min(dt));
        return;
    }
    if (op == REDSCAN_SUM && g != GEN_TINY) {
        narrow_sum_grid(r, dt, dst, n);
        if (g != GEN_PLAIN) {
            for (size_t i = 0; i < n; i++)
                if (h_rng_below(r, 16) == 0) ref_store(dt, dst, i, narrow_float_edge(r, dt, 0));
            if (h_rng_below(r, 2) == 0) /* at most one largest finite value: the total stays near the threshold */
                ref_store(dt, dst, (size_t)h_rng_below(r, n), with_sign(r, nbits(dt, dt == REDSCAN_FLOAT16 ? 0x7bff : 0x7f7f)));
        }
    } else if (op == REDSCAN_PROD) {
        /* +-1, and a bounded number of factors in [0.5, 2] (rounded to the type) / edges +-2^-4 .. 2^4 */
        const double rate = n <= 256 ? 0.5 : 128.0 / (double)n, edge_rate = n <= 1024 ? 1.0 / 16 : 64.0 / (double)n;
        for (size_t i = 0; i < n; i++) {
            double x = (h_rng_u64(r) & 1) ? -1.0 : 1.0;
            if (g != GEN_PLAIN && h_rng_unit(r) < edge_rate) x = ldexp(x, (int)h_rng_below(r, 9) - 4);
            else if (h_rng_unit(r) < rate) x *= exp2(2.0 * h_rng_unit(r) - 1.0);
            ref_store(dt, dst, i, nfloat(dt, x));
        }
        if (g == GEN_EDGE && h_rng_below(r, 4) == 0)
            ref_store(dt, dst, (size_t)h_rng_below(r, n), nbits(dt, (h_rng_u64(r) & 1) ? 0x8000u : 0));
    } else {
        for (size_t i = 0; i < n; i++) {
            ref_val v;
            if (g == GEN_TINY) v = narrow_float_tiny(r, dt);
            else if (g != GEN_PLAIN && h_rng_below(r, 16) == 0)
                v = h_rng_below(r, 8) ? narrow_float_edge(r, dt, 1) : (h_rng_u64(r) & 1) ? ref_type_max(dt) : ref_type_min(dt);
            else if (minmax && i > 0 && h_rng_below(r, 8) == 0) v = ref_load(dt, dst, (size_t)h_rng_below(r, i));
            else v = narrow_float_any(r, dt);
            ref_store(dt, dst, i, v);
        }
    }
    if (g == GEN_NAN) {
        /* min / max: several NaNs, payloads and signs (the leftmost wins); sum / prod: one */
        const size_t count = minmax ? 1 + (size_t)h_rng_below(r, 3) + n / 200 : 1;
        for (size_t c = 0; c < count; c++)
            ref_store(dt, dst, (size_t)h_rng_below(r, n),
                      h_nan(dt, (uint32_t)h_rng_below(r, 1u << 9) + 1, minmax && (h_rng_u64(r) & 1)));
    } else if (g == GEN_INF) {
        ref_store(dt, dst, (size_t)h_rng_below(r, n), ref_type_max(dt));
        if (h_rng_below(r, 2) == 0) ref_store(dt, dst, (size_t)h_rng_below(r, n), ref_type_min(dt));
        if (op == REDSCAN_PROD && h_rng_below(r, 3) == 0) ref_store(dt, dst, (size_t)h_rng_below(r, n), nbits(dt, 0));
    }
}

void h_generate(h_rng *r, redscan_dtype dt, redscan_op op, h_gen g, void *dst, size_t n)
{
    if (n == 0) return;
    if (ref_is_narrow(dt)) {
        generate_narrow(r, dt, op, g, dst, n);
        return;
    }
    const int isf = ref_is_float(dt);
    /* prod of floats: a bounded number of non-trivial factors keeps the product in range */
    const double prod_rate = n <= 256 ? 0.5 : 128.0 / (double)n;
    const double edge_prod_rate = n <= 1024 ? 1.0 / 16 : 64.0 / (double)n; /* factors up to 2^+-4 */
    uint64_t window = h_rng_u64(r);
    if (ref_is_signed(dt)) {
        /* window inside the type, not touching the extremes */
        int64_t lo = ref_size(dt) == 4 ? (int64_t)INT32_MIN + 8192 : INT64_MIN + 8192;
        uint64_t span = ref_size(dt) == 4 ? (uint64_t)UINT32_MAX - 16384 : UINT64_MAX - 16384;
        window = (uint64_t)lo + window % span; /* wraps: two's complement of a value in [lo, lo + span) */
    } else {
        window %= ref_size(dt) == 4 ? (uint64_t)UINT32_MAX - 8192 : UINT64_MAX - 8192;
        window += 1; /* never 0, so padding with 0 instead of the max identity shows */
    }
    if (!isf && g != GEN_PLAIN) g = GEN_EDGE;
    if (op == REDSCAN_PROD && g == GEN_TINY) g = GEN_EDGE; /* products of tiny values underflow: no bound holds */
    for (size_t i = 0; i < n; i++) {
        ref_val v;
        if (isf && g == GEN_TINY) {
            v = (h_rng_u64(r) % 8) ? float_denormal(r, dt)
                                   : from_double(dt, sized(r, dt == REDSCAN_FLOAT32 ? -127 : -1023,
                                                           dt == REDSCAN_FLOAT32 ? -125 : -1021));
        } else if (g != GEN_PLAIN && (op == REDSCAN_PROD && isf ? h_rng_unit(r) < edge_prod_rate : h_rng_below(r, 16) == 0)) {
            v = isf ? float_edge(r, dt, op) : int_edge(r, dt, op);
        } else {
            v = isf ? float_plain(r, dt, op, prod_rate) : int_plain(r, dt, op, window);
            /* min/max: duplicate an earlier value now and then (ties) */
            if ((op == REDSCAN_MIN || op == REDSCAN_MAX) && i > 0 && h_rng_below(r, 8) == 0)
                v = ref_load(dt, dst, h_rng_below(r, i));
        }
        ref_store(dt, dst, i, v);
    }
    /* planted values */
    if (!isf) {
        if (op == REDSCAN_PROD && g == GEN_EDGE && h_rng_below(r, 2) == 0) {
            size_t at = (size_t)h_rng_below(r, n);
            ref_store(dt, dst, at, (h_rng_u64(r) & 1) ? from_i64(dt, 0) : ref_type_min(dt));
        }
        return;
    }
    if (op == REDSCAN_PROD && g == GEN_EDGE && h_rng_below(r, 4) == 0)
        ref_store(dt, dst, (size_t)h_rng_below(r, n), from_double(dt, (h_rng_u64(r) & 1) ? 0.0 : -0.0));
    if (g == GEN_NAN) {
        if (op == REDSCAN_MIN || op == REDSCAN_MAX) {
            size_t count = 1 + (size_t)h_rng_below(r, 3) + n / 200;
            for (size_t c = 0; c < count; c++)
                ref_store(dt, dst, (size_t)h_rng_below(r, n),
                          h_nan(dt, (uint32_t)h_rng_below(r, 1u << 20) + 1, (int)(h_rng_u64(r) & 1)));
        } else {
            ref_store(dt, dst, (size_t)h_rng_below(r, n), h_nan(dt, (uint32_t)h_rng_below(r, 1u << 20), 0));
        }
    } else if (g == GEN_INF) {
        ref_store(dt, dst, (size_t)h_rng_below(r, n), from_double(dt, INFINITY));
        if (h_rng_below(r, 2) == 0) ref_store(dt, dst, (size_t)h_rng_below(r, n), from_double(dt, -INFINITY));
        if (op == REDSCAN_PROD && h_rng_below(r, 3) == 0)
            ref_store(dt, dst, (size_t)h_rng_below(r, n), from_double(dt, 0.0));
    }
}

/* ------------------------------------------------------------------ cases and checks */

/* REDSCAN_TEST_FILTER: alternatives separated by '|'; a case runs when its description contains any of them. */
static int filter_matches(const char *text)
{
    for (const char *p = g_filter;;) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        for (const char *t = text; len && *t; t++)
            if (!strncmp(t, p, len)) return 1;
        if (!bar) return 0;
        p = bar + 1;
    }
}

int h_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_case, sizeof g_case, fmt, ap);
    va_end(ap);
    g_case_failures = 0;
    if (g_filter && !filter_matches(g_case)) return 0;
    if (g_verbose) printf("case %s\n", g_case);
    return 1;
}

const char *h_case_str(void) { return g_case; }
long h_failures(void) { return g_failures; }
long h_checks(void) { return g_checks; }

const char *h_last_error(void)
{
    const char *e = redscan_last_error(h_ctx);
    return e ? e : "(null)";
}

int h_check_status(redscan_status st, redscan_status want, const char *file, int line, const char *what)
{
    return h_check(st == want, file, line, "%s returned %s, want %s (last error: %s)", what,
                   redscan_status_string(st), redscan_status_string(want), h_last_error());
}

int h_check(int ok, const char *file, int line, const char *fmt, ...)
{
    g_checks++;
    if (ok) return 1;
    g_failures++;
    g_case_failures++;
    if (g_case_failures <= MAX_PRINTED_PER_CASE && g_printed < MAX_PRINTED) {
        char msg[2048];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        const char *base = strrchr(file, '/');
        printf("FAIL [%s] %s (%s:%d)\n", g_case, msg, base ? base + 1 : file, line);
        g_printed++;
        if (g_printed == MAX_PRINTED) printf("(further failures are counted, not printed)\n");
    }
    return 0;
}

const char *h_fmt(redscan_dtype dt, ref_val v, char buf[96])
{
    switch (dt) {
    case REDSCAN_INT32: snprintf(buf, 96, "%" PRId32 " [0x%08" PRIx32 "]", v.i32, v.u32); break;
    case REDSCAN_UINT32: snprintf(buf, 96, "%" PRIu32 " [0x%08" PRIx32 "]", v.u32, v.u32); break;
    case REDSCAN_INT64: snprintf(buf, 96, "%" PRId64 " [0x%016" PRIx64 "]", v.i64, v.u64); break;
    case REDSCAN_UINT64: snprintf(buf, 96, "%" PRIu64 " [0x%016" PRIx64 "]", v.u64, v.u64); break;
    case REDSCAN_FLOAT32: snprintf(buf, 96, "%.9g [0x%08" PRIx32 "]", (double)v.f32, v.u32); break;
    case REDSCAN_FLOAT64: snprintf(buf, 96, "%.17g [0x%016" PRIx64 "]", v.f64, v.u64); break;
    case REDSCAN_INT8: snprintf(buf, 96, "%d [0x%02x]", (int)v.i8, (unsigned)v.u8); break;
    case REDSCAN_UINT8: snprintf(buf, 96, "%u [0x%02x]", (unsigned)v.u8, (unsigned)v.u8); break;
    case REDSCAN_INT16: snprintf(buf, 96, "%d [0x%04x]", (int)v.i16, (unsigned)v.u16); break;
    case REDSCAN_UINT16: snprintf(buf, 96, "%u [0x%04x]", (unsigned)v.u16, (unsigned)v.u16); break;
    case REDSCAN_FLOAT16: case REDSCAN_BFLOAT16: /* the exact value (NaN: its sign), then the pattern */
        snprintf(buf, 96, "%.9g [0x%04x]", ref_to_double(dt, v), (unsigned)v.u16);
        break;
    default: snprintf(buf, 96, "[0x%016" PRIx64 "]", v.u64); break;
    }
    return buf;
}

size_t h_compare(redscan_op op, redscan_dtype dt, const void *got, const void *want, size_t n, int bitwise,
                 const char *file, int line, const char *what)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        ref_val g = ref_load(dt, got, i), w = ref_load(dt, want, i);
        int eq = bitwise ? ref_bits_equal(dt, g, w) : ref_result_equal(op, dt, g, w);
        if (!eq) {
            if (bad < 3) {
                char a[96], b[96];
                h_check(0, file, line, "%s: index %zu: got %s, want %s", what, i, h_fmt(dt, g, a), h_fmt(dt, w, b));
            }
            if (!bad) first = i;
            bad++;
        }
    }
    if (bad > 3) h_check(0, file, line, "%s: %zu of %zu elements differ (first at %zu)", what, bad, n, first);
    else if (!bad) g_checks++;
    return bad;
}

size_t h_memdiff(const void *a, const void *b, size_t bytes)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (size_t i = 0; i < bytes; i++)
        if (x[i] != y[i]) return i;
    return (size_t)-1;
}

/* ------------------------------------------------------------------ buffers */

void h_fill(redscan_dtype dt, void *dst, size_t n, ref_val v)
{
    if (!dt) {
        memset(dst, 0xA5, n);
        return;
    }
    for (size_t i = 0; i < n; i++) ref_store(dt, dst, i, v);
}

redscan_buffer *h_buffer(size_t bytes)
{
    redscan_buffer *b = NULL;
    redscan_status st = redscan_buffer_create(h_ctx, bytes, &b);
    if (!CHECK(st == REDSCAN_OK && b, "redscan_buffer_create(%zu) returned %s: %s", bytes, redscan_status_string(st),
               h_last_error()))
        return NULL;
    return b;
}

redscan_buffer *h_buffer_with(const void *src, size_t src_bytes, size_t bytes, redscan_dtype fill_dt, ref_val fill)
{
    redscan_buffer *b = h_buffer(bytes);
    if (!b) return NULL;
    if (bytes > src_bytes) {
        size_t es = fill_dt ? ref_size(fill_dt) : 1;
        size_t tail = bytes - src_bytes;
        unsigned char *t = (unsigned char *)h_malloc(tail);
        if (fill_dt) h_fill(fill_dt, t, tail / es, fill);
        else memset(t, 0xA5, tail);
        if (tail % es) memset(t + tail - tail % es, 0xA5, tail % es);
        redscan_status st = redscan_buffer_write(h_ctx, b, src_bytes, t, tail);
        CHECK_OK(st, "redscan_buffer_write(tail)");
        free(t);
    }
    if (src_bytes) {
        redscan_status st = redscan_buffer_write(h_ctx, b, 0, src, src_bytes);
        CHECK_OK(st, "redscan_buffer_write");
    }
    return b;
}

/* ------------------------------------------------------------------ env-forced algorithms */

const char *h_algo_str(redscan_reduce_algo a)
{
    switch (a) {
    case REDSCAN_REDUCE_AUTO: return "auto";
    case REDSCAN_REDUCE_TREE: return "tree";
    case REDSCAN_REDUCE_INTERLEAVED: return "interleaved";
    case REDSCAN_REDUCE_COARSENED: return "coarsened";
    default: return "?";
    }
}

const char *h_block_str(redscan_block_scan b)
{
    switch (b) {
    case REDSCAN_BLOCK_AUTO: return "auto";
    case REDSCAN_BLOCK_KOGGE_STONE: return "kogge_stone";
    case REDSCAN_BLOCK_KOGGE_STONE_DB: return "kogge_stone_db";
    case REDSCAN_BLOCK_BRENT_KUNG: return "brent_kung";
    case REDSCAN_BLOCK_COARSENED: return "coarsened";
    default: return "?";
    }
}

const char *h_grid_str(redscan_grid_scan g)
{
    switch (g) {
    case REDSCAN_GRID_AUTO: return "auto";
    case REDSCAN_GRID_HIERARCHICAL: return "hierarchical";
    case REDSCAN_GRID_REDUCE_THEN_SCAN: return "reduce_then_scan";
    case REDSCAN_GRID_SINGLE_PASS: return "single_pass";
    default: return "?";
    }
}

static int env_is(const char *var, const char *mine, const char *libs)
{
    const char *v = getenv(var);
    if (!v || !*v) return 0;
    return strcasecmp(v, mine) == 0 || (libs && strcasecmp(v, libs) == 0);
}

redscan_reduce_algo h_env_reduce_algo(void)
{
    for (int a = REDSCAN_REDUCE_TREE; a <= REDSCAN_REDUCE_COARSENED; a++)
        if (env_is("REDSCAN_REDUCE_ALGO", h_algo_str((redscan_reduce_algo)a),
                   redscan_reduce_algo_name((redscan_reduce_algo)a)))
            return (redscan_reduce_algo)a;
    return REDSCAN_REDUCE_AUTO;
}

redscan_block_scan h_env_block(void)
{
    for (int b = REDSCAN_BLOCK_KOGGE_STONE; b <= REDSCAN_BLOCK_COARSENED; b++)
        if (env_is("REDSCAN_SCAN_BLOCK", h_block_str((redscan_block_scan)b),
                   redscan_block_scan_name((redscan_block_scan)b)))
            return (redscan_block_scan)b;
    return REDSCAN_BLOCK_AUTO;
}

redscan_grid_scan h_env_grid(void)
{
    for (int g = REDSCAN_GRID_HIERARCHICAL; g <= REDSCAN_GRID_SINGLE_PASS; g++)
        if (env_is("REDSCAN_SCAN_GRID", h_grid_str((redscan_grid_scan)g), redscan_grid_scan_name((redscan_grid_scan)g)))
            return (redscan_grid_scan)g;
    return REDSCAN_GRID_AUTO;
}

redscan_block_scan h_scan_block(redscan_block_scan block)
{
    return block == REDSCAN_BLOCK_AUTO ? h_env_block() : block;
}

redscan_grid_scan h_scan_grid(redscan_grid_scan grid)
{
    return grid == REDSCAN_GRID_AUTO ? h_env_grid() : grid;
}

void h_scan_emulate(redscan_block_scan block, redscan_grid_scan grid, redscan_op op, redscan_dtype dt,
                    redscan_dtype out_dt, int exclusive, const void *init, const void *in, void *out, size_t n)
{
    ref_scan_emulate_grid(h_scan_block(block), h_scan_grid(grid), op, dt, out_dt, exclusive, init, in, out, n);
}

unsigned h_scan_depth(redscan_block_scan block, redscan_grid_scan grid, size_t n)
{
    return ref_scan_depth_grid(h_scan_block(block), h_scan_grid(grid), n);
}

/* ------------------------------------------------------------------ shared by several tests */

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

int h_has_word(const char *text, const char *word)
{
    const size_t wl = strlen(word);
    for (const char *p = text; *p; p++) {
        size_t i = 0;
        while (i < wl && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)word[i])) i++;
        if (i == wl && (p == text || !is_ident(p[-1])) && !is_ident(p[wl])) return 1;
    }
    return 0;
}

int h_names_any(const char *text, const char *keywords)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", keywords);
    char *save = NULL;
    for (char *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
        if (h_has_word(text, tok)) return 1;
    return 0;
}

void h_gen_ties(h_rng *r, redscan_dtype dt, void *dst, size_t n)
{
    const int isf = ref_is_float(dt);
    const int specials = isf && h_rng_below(r, 2);
    for (size_t i = 0; i < n; i++) {
        ref_val v = ref_zero();
        int64_t k = (int64_t)h_rng_below(r, 9) - 4;
        if (isf) {
            double x = 0.5 * (double)k;
            if (k == 0 && (h_rng_u64(r) & 1)) x = -0.0;
            if (specials && h_rng_below(r, 64) == 0) {
                uint64_t s = h_rng_below(r, 3);
                x = s == 0 ? INFINITY : s == 1 ? -INFINITY : NAN;
            }
            if (dt == REDSCAN_FLOAT32) v.f32 = (float)x;
            else v.f64 = x;
            if (isnan(x)) v = h_nan(dt, (uint32_t)h_rng_below(r, 1000) + 1, (int)(h_rng_u64(r) & 1));
        } else {
            if (!ref_is_signed(dt)) k += 4;
            if (h_rng_below(r, 128) == 0) v = (h_rng_u64(r) & 1) ? ref_type_max(dt) : ref_type_min(dt);
            else if (ref_size(dt) == 4) v.i32 = (int32_t)k;
            else v.i64 = k;
        }
        ref_store(dt, dst, i, v);
    }
}

char *h_env_swap(const char *var, const char *value)
{
    const char *old = getenv(var);
    char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
    if (value) setenv(var, value, 1);
    else unsetenv(var);
    return saved;
}

void h_env_restore(const char *var, char *saved)
{
    if (saved) setenv(var, saved, 1);
    else unsetenv(var);
    free(saved);
}

const h_mode h_lookback_modes[H_LOOKBACK_MODES] = {{"REDSCAN_SINGLE_PASS_SPINS", "0", 0},
                                                   {"REDSCAN_SINGLE_PASS_SPINS", "1", 0},
                                                   {"REDSCAN_SEGMENTED_SCAN_PATH", "multi_pass", 1}};

int h_mode_enter(const h_mode *m, char **saved)
{
    if (m->opencl_only && strcmp(redscan_backend_name(h_ctx), "opencl") != 0) return 0;
    *saved = h_env_swap(m->var, m->value);
    printf("mode %s=%s\n", m->var, m->value);
    return 1;
}
