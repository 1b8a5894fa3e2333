/* redscan bench: deterministic inputs and the host references every measured result is checked against.
 *
 * Inputs (chosen so that every check is meaningful):
 *   integers, sum/min/max/argmax/top-2: uniform over the whole type (sums wrap; checked exactly);
 *   integers, prod: random odd values (the product never collapses to 0; checked exactly);
 *   floats, sum/min/max/argmax/top-2: uniform in [-1, 1) with the type's full mantissa;
 *   floats, prod: 1 + u, u uniform in [-2^-10, 2^-10) (the product stays in range at any n).
 * Checks: integers exactly (modulo 2^bits); float min/max, argmax, top-2 exactly; float sums within
 * (2 ceil(log2(n + 1)) + 64) eps * sum|x| (a bound for any combination tree of that depth, eps of the data type);
 * float products within (8 sqrt(n) + 64) eps * |product|. References use long double, sums compensated. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_internal.h"

int bd_is_float(redscan_dtype dt) { return dt == REDSCAN_FLOAT32 || dt == REDSCAN_FLOAT64; }
int bd_is_signed_int(redscan_dtype dt) { return dt == REDSCAN_INT32 || dt == REDSCAN_INT64; }
static int int_bits(redscan_dtype dt) { return (dt == REDSCAN_INT32 || dt == REDSCAN_UINT32) ? 32 : 64; }
static uint64_t int_mask(redscan_dtype dt) { return int_bits(dt) == 32 ? 0xFFFFFFFFull : ~0ull; }

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Integer element as uint64 (signed types sign-extended). */
static uint64_t get_u(const void *p, redscan_dtype dt, size_t i)
{
    switch (dt) {
    case REDSCAN_INT32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case REDSCAN_UINT32: return ((const uint32_t *)p)[i];
    case REDSCAN_INT64: return (uint64_t)((const int64_t *)p)[i];
    case REDSCAN_UINT64: return ((const uint64_t *)p)[i];
    default: return 0;
    }
}

static long double get_f(const void *p, redscan_dtype dt, size_t i)
{
    return dt == REDSCAN_FLOAT32 ? (long double)((const float *)p)[i] : (long double)((const double *)p)[i];
}

static void put_u(void *p, redscan_dtype dt, size_t i, uint64_t v)
{
    switch (dt) {
    case REDSCAN_INT32: ((int32_t *)p)[i] = (int32_t)(uint32_t)v; break;
    case REDSCAN_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case REDSCAN_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case REDSCAN_UINT64: ((uint64_t *)p)[i] = v; break;
    default: break;
    }
}

/* a < b for two integers of dtype given as get_u values. */
static int int_less(redscan_dtype dt, uint64_t a, uint64_t b)
{
    return bd_is_signed_int(dt) ? (int64_t)a < (int64_t)b : a < b;
}

void bd_generate(redscan_dtype dt, size_t n, void *gen, void *prod)
{
    uint64_t s = 0x5EED0000ull ^ ((uint64_t)dt << 40) ^ (uint64_t)n;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = splitmix64(&s), q = splitmix64(&s);
        switch (dt) {
        case REDSCAN_FLOAT32: {
            /* k / 2^23, k uniform in [-2^23, 2^23): every value exact in float32 */
            int32_t k = (int32_t)(r >> 40) - (1 << 23);
            ((float *)gen)[i] = (float)k / 8388608.0f;
            if (prod) {
                int32_t u = (int32_t)(q >> 40) - (1 << 23); /* 1 + u / 2^33 */
                ((float *)prod)[i] = (float)(1.0 + (double)u / 8589934592.0);
            }
            break;
        }
        case REDSCAN_FLOAT64: {
            int64_t k = (int64_t)(r >> 11) - ((int64_t)1 << 52);
            ((double *)gen)[i] = (double)k / 4503599627370496.0;
            if (prod) {
                int64_t u = (int64_t)(q >> 11) - ((int64_t)1 << 52); /* 1 + u / 2^62 */
                ((double *)prod)[i] = 1.0 + (double)u / 4611686018427387904.0;
            }
            break;
        }
        default:
            put_u(gen, dt, i, r);
            if (prod)
                put_u(prod, dt, i, q | 1u);
            break;
        }
    }
}

static double type_eps(redscan_dtype dt) { return dt == REDSCAN_FLOAT32 ? (double)FLT_EPSILON : DBL_EPSILON; }

static double sum_tol_factor(redscan_dtype dt, size_t n)
{
    /* 2 * ceil(log2(n + 1)) through the bit length (called per element of a scan check: no log2) */
    int bits = 0;
    for (size_t v = n; v; v >>= 1)
        ++bits;
    return (2.0 * bits + 64.0) * type_eps(dt);
}

static double prod_tol_factor(redscan_dtype dt, size_t n)
{
    return (8.0 * sqrt((double)n) + 64.0) * type_eps(dt);
}

static void ksum_add(bd_ksum *k, long double x)
{
    long double t = k->s + x;
    if (fabsl(k->s) >= fabsl(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
    k->abs += fabsl(x);
}

void bd_ref_init(bd_ref *r, redscan_op op, redscan_dtype dt)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->dt = dt;
    r->p = 1.0L;
    r->m = op == REDSCAN_MIN ? INFINITY : -INFINITY;
    if (!bd_is_float(dt)) {
        switch (op) {
        case REDSCAN_SUM: r->u = 0; break;
        case REDSCAN_PROD: r->u = 1; break;
        case REDSCAN_MIN:
            r->u = bd_is_signed_int(dt) ? (int_bits(dt) == 32 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX)
                                        : int_mask(dt);
            break;
        case REDSCAN_MAX:
            r->u = bd_is_signed_int(dt) ? (int_bits(dt) == 32 ? (uint64_t)(int64_t)INT32_MIN : (uint64_t)INT64_MIN)
                                        : 0;
            break;
        }
    }
}

void bd_ref_add(bd_ref *r, const void *data, size_t i)
{
    r->count++;
    if (bd_is_float(r->dt)) {
        long double x = get_f(data, r->dt, i);
        switch (r->op) {
        case REDSCAN_SUM: ksum_add(&r->k, x); break;
        case REDSCAN_PROD: r->p *= x; break;
        case REDSCAN_MIN: if (x < r->m) r->m = x; break;
        case REDSCAN_MAX: if (x > r->m) r->m = x; break;
        }
        return;
    }
    uint64_t x = get_u(data, r->dt, i);
    switch (r->op) {
    case REDSCAN_SUM: r->u += x; break;
    case REDSCAN_PROD: r->u *= x; break;
    case REDSCAN_MIN: if (int_less(r->dt, x, r->u)) r->u = x; break;
    case REDSCAN_MAX: if (int_less(r->dt, r->u, x)) r->u = x; break;
    }
}

void bd_ref_reduce(bd_ref *r, redscan_op op, redscan_dtype dt, const void *data, size_t n)
{
    bd_ref_init(r, op, dt);
    for (size_t i = 0; i < n; ++i)
        bd_ref_add(r, data, i);
}

/* Whether element i of p is within the tolerance of the state; the expected value and tolerance in *w, *tol
 * (floats). */
static int ref_ok(const bd_ref *r, const void *p, size_t i, long double *w, long double *tol)
{
    if (!bd_is_float(r->dt))
        return (get_u(p, r->dt, i) & int_mask(r->dt)) == (r->u & int_mask(r->dt));
    long double g = get_f(p, r->dt, i);
    *tol = 0.0L;
    switch (r->op) {
    case REDSCAN_SUM:
        *w = r->k.s + r->k.c;
        *tol = (long double)sum_tol_factor(r->dt, r->count) * r->k.abs + (long double)DBL_MIN;
        break;
    case REDSCAN_PROD:
        *w = r->p;
        *tol = (long double)prod_tol_factor(r->dt, r->count) * fabsl(*w) + (long double)DBL_MIN;
        break;
    default:
        *w = r->m;
        break;
    }
    return !isnan(g) && (g == *w || fabsl(g - *w) <= *tol);
}

int bd_ref_check(const bd_ref *r, const void *p, size_t i, char *got, char *want, size_t len)
{
    long double w = 0, tol = 0;
    if (ref_ok(r, p, i, &w, &tol))
        return 1;
    if (!bd_is_float(r->dt)) {
        uint64_t g = get_u(p, r->dt, i) & int_mask(r->dt), wu = r->u & int_mask(r->dt);
        if (bd_is_signed_int(r->dt)) {
            snprintf(got, len, "%lld", (long long)get_u(p, r->dt, i));
            int64_t ws = int_bits(r->dt) == 32 ? (int64_t)(int32_t)(uint32_t)wu : (int64_t)wu;
            snprintf(want, len, "%lld", (long long)ws);
        } else {
            snprintf(got, len, "%llu", (unsigned long long)g);
            snprintf(want, len, "%llu", (unsigned long long)wu);
        }
        return 0;
    }
    snprintf(got, len, "%.17Lg", get_f(p, r->dt, i));
    snprintf(want, len, "%.17Lg (tolerance %.3Lg)", w, tol);
    return 0;
}

/* Float sums, the slow case of a scan check: the same reference (compensated long double sum, tolerance from
 * sum|x| and the bit length of the count) without the per-element dispatch. Returns the number of wrong outputs and
 * the first one's index. */
#define BD_FLOAT_SUM_CHECK(T)                                                                                          \
    static size_t check_sum_##T(const T *x, const T *y, size_t n, int exclusive, redscan_dtype dt, size_t *first)      \
    {                                                                                                                  \
        long double s = 0.0L, c = 0.0L, a = 0.0L, f = 0.0L;                                                            \
        size_t bad = 0;                                                                                                \
        for (size_t i = 0; i < n; ++i) {                                                                               \
            size_t count = i + !exclusive;                                                                             \
            if ((count & (count - 1)) == 0) /* the bit length changed */                                               \
                f = (long double)sum_tol_factor(dt, count);                                                            \
            if (!exclusive) {                                                                                          \
                long double v = x[i], t = s + v;                                                                       \
                c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;                                                 \
                s = t;                                                                                                 \
                a += fabsl(v);                                                                                         \
            }                                                                                                          \
            long double w = s + c, g = y[i];                                                                           \
            if (!(g == w || fabsl(g - w) <= f * a + (long double)DBL_MIN) && !bad++)                                  \
                *first = i;                                                                                            \
            if (exclusive) {                                                                                           \
                long double v = x[i], t = s + v;                                                                       \
                c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;                                                 \
                s = t;                                                                                                 \
                a += fabsl(v);                                                                                         \
            }                                                                                                          \
        }                                                                                                              \
        return bad;                                                                                                    \
    }
BD_FLOAT_SUM_CHECK(float)
BD_FLOAT_SUM_CHECK(double)

size_t bd_check_scan(redscan_op op, redscan_dtype dt, int exclusive, const void *in, const void *out, size_t n,
                     char *detail, size_t len)
{
    if (op == REDSCAN_SUM && bd_is_float(dt)) {
        size_t first = 0;
        size_t bad = dt == REDSCAN_FLOAT32 ? check_sum_float(in, out, n, exclusive, dt, &first)
                                           : check_sum_double(in, out, n, exclusive, dt, &first);
        if (!bad)
            return 0;
        /* describe the first wrong output through the general path */
        bd_ref r;
        bd_ref_init(&r, op, dt);
        for (size_t i = 0; i < first + !exclusive; ++i)
            bd_ref_add(&r, in, i);
        char got[128] = "", want[128] = "";
        bd_ref_check(&r, out, first, got, want, sizeof got);
        snprintf(detail, len, "%zu of %zu outputs wrong; first at i=%zu: got %s, expected %s", bad, n, first, got,
                 want);
        return bad;
    }
    bd_ref r;
    bd_ref_init(&r, op, dt);
    size_t bad = 0, first = 0;
    char fgot[128] = "", fwant[128] = "";
    for (size_t i = 0; i < n; ++i) {
        if (!exclusive)
            bd_ref_add(&r, in, i);
        long double w, tol;
        if (!ref_ok(&r, out, i, &w, &tol) && !bad++) { /* describe the first only */
            first = i;
            bd_ref_check(&r, out, i, fgot, fwant, sizeof fgot);
        }
        if (exclusive)
            bd_ref_add(&r, in, i);
    }
    if (bad)
        snprintf(detail, len, "%zu of %zu outputs wrong; first at i=%zu: got %s, expected %s", bad, n, first, fgot,
                 fwant);
    return bad;
}

/* i before j in the library's order: larger first, ties to the lower index. */
static int better(const void *data, redscan_dtype dt, size_t i, size_t j)
{
    if (bd_is_float(dt)) {
        long double a = get_f(data, dt, i), b = get_f(data, dt, j);
        return a > b || (a == b && i < j);
    }
    uint64_t a = get_u(data, dt, i), b = get_u(data, dt, j);
    return int_less(dt, b, a) || (a == b && i < j);
}

size_t bd_argmax(const void *data, redscan_dtype dt, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (better(data, dt, i, best))
            best = i;
    return best;
}

void bd_top2(const void *data, redscan_dtype dt, size_t n, size_t idx[2])
{
    size_t b0 = 0, b1 = 1;
    if (n < 2) {
        idx[0] = idx[1] = 0;
        return;
    }
    if (better(data, dt, b1, b0)) {
        b0 = 1;
        b1 = 0;
    }
    for (size_t i = 2; i < n; ++i) {
        if (better(data, dt, i, b0)) {
            b1 = b0;
            b0 = i;
        } else if (better(data, dt, i, b1)) {
            b1 = i;
        }
    }
    idx[0] = b0;
    idx[1] = b1;
}

int bd_same_element(const void *data, size_t i, const void *val, redscan_dtype dt)
{
    size_t sz = redscan_dtype_size(dt);
    return memcmp((const unsigned char *)data + i * sz, val, sz) == 0;
}

uint64_t bd_hash(const void *p, size_t bytes)
{
    /* four independent multiply-xorshift lanes over 8-byte words, then the tail */
    const unsigned char *b = p;
    uint64_t h[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull, 0x082EFA98EC4E6C89ull};
    const uint64_t m = 0x9E3779B97F4A7C15ull;
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32)
        for (int k = 0; k < 4; ++k) {
            uint64_t w;
            memcpy(&w, b + i + 8 * k, 8);
            h[k] = (h[k] ^ w) * m;
            h[k] ^= h[k] >> 29;
        }
    uint64_t t = (uint64_t)bytes;
    for (; i < bytes; ++i)
        t = (t ^ b[i]) * 0x100000001B3ull;
    uint64_t r = t;
    for (int k = 0; k < 4; ++k)
        r = (r ^ h[k]) * m, r ^= r >> 31;
    return r;
}
