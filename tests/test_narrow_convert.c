/* The library's float16 / bfloat16 conversions (api/src/narrow.c, compiled into this program) against independent
 * references: every half and bfloat16 pattern to float32 and back, and float32 patterns to both (all rounding
 * cases of every exponent and mantissa prefix, and a sweep over all 2^32). The
 * kernels implement the same rules (docs/SEMANTICS.md, "Narrow types"); the device side of it is checked by the
 * suite once the narrow kernels exist. Host only: it runs the same under either backend's name.
 *
 * References, in float64 arithmetic: a float16 pattern's value from its fields, the float16 nearest to a float by
 * scaling and nearbyint (round to nearest even), the bfloat16 nearest of the two neighbouring bfloat16 values, ties
 * to the even one. (Not GCC's _Float16: clang 14, the sanitizer builds' compiler, has none on x86.) NaNs: the result
 * must be a NaN of the same sign, and a narrow NaN must come back with its own bits after narrow -> float -> narrow
 * (min / max return an element unchanged). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "half_ref.h"

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static unsigned long failures;
static void fail(const char *what, uint32_t in, uint32_t got, uint32_t want)
{
    if (failures++ < 20) fprintf(stderr, "FAIL %s: input 0x%08x -> 0x%08x, want 0x%08x\n", what, in, got, want);
}

/* bfloat16 reference: the nearest of lo = truncation and hi = lo + 1 ulp, ties to the even pattern */
static uint16_t bf16_ref(float f)
{
    const uint32_t u = bits_of(f);
    const uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
    if ((u & 0xffffu) == 0) return lo;
    const double x = fabs((double)f), a = fabs((double)float_of((uint32_t)lo << 16));
    /* hi may be the infinity pattern (0x7f80): its "value" for rounding is 2^128 */
    const double b = (hi & 0x7fffu) == 0x7f80u ? ldexp(1.0, 128) : fabs((double)float_of((uint32_t)hi << 16));
    const double da = x - a, db = b - x;
    if (da < db) return lo;
    if (db < da) return hi;
    return (lo & 1u) ? hi : lo;
}

int main(void)
{
    /* 1. every narrow pattern -> float32 (exact), and back */
    for (uint32_t p = 0; p < 65536; p++) {
        const uint16_t h = (uint16_t)p;
        const float f = rs_half_to_float(h);
        const double ref = half_value(h);
        if (isnan(ref)) {
            if (!isnan(f) || (bits_of(f) >> 31) != (p >> 15u)) fail("half->float NaN", p, bits_of(f), 0x7fc00000u);
        } else if (bits_of(f) != bits_of((float)ref)) { /* every half is a float: the cast is exact */
            fail("half->float", p, bits_of(f), bits_of((float)ref));
        }
        if (rs_float_to_half(f) != h) fail("half->float->half", p, rs_float_to_half(f), p);
        const float g = rs_bfloat16_to_float(h);
        if (bits_of(g) != p << 16) fail("bfloat16->float", p, bits_of(g), p << 16);
        if (rs_float_to_bfloat16(g) != h) fail("bfloat16->float->bfloat16", p, rs_float_to_bfloat16(g), p);
    }
    /* 2. float32 -> float16 and bfloat16: every combination of the top 19 bits (sign, exponent, the 10 mantissa bits
     * a half keeps) with 24 patterns of the low 13 bits (the rounding cases: zero, one, just below / at / above the
     * half-way point, all ones, and for bfloat16 the same around its half-way point 0x8000), then every 97th pattern
     * of all 2^32 (the exhaustive sweep passed too; it takes 5 minutes here, too long for every run). */
    static const uint32_t low[] = {0x0000, 0x0001, 0x0002, 0x0400, 0x07ff, 0x0800, 0x0801, 0x0fff, 0x1000,
                                   0x1001, 0x1002, 0x17ff, 0x1800, 0x1fff, 0x7fff, 0x8000, 0x8001, 0x8fff,
                                   0x9000, 0xafff, 0xc000, 0xefff, 0xffff, 0x5a5a};
    unsigned long checked = 0;
    for (uint64_t i = 0; i < ((uint64_t)1 << 19) * (sizeof low / sizeof low[0]) + ((uint64_t)1 << 32) / 97; i++) {
        const uint64_t nlow = sizeof low / sizeof low[0], structured = ((uint64_t)1 << 19) * nlow;
        /* low patterns above 0x1fff also set bits of the prefix: still valid patterns, around bfloat16's tie */
        const uint32_t u = i < structured ? (uint32_t)((i / nlow) << 13) | low[i % nlow]
                                          : (uint32_t)((i - structured) * 97u);
        checked++;
        const float f = float_of(u);
        const uint16_t h = rs_float_to_half(f), b = rs_float_to_bfloat16(f);
        if (isnan(f)) {
            if ((h & 0x7c00u) != 0x7c00u || !(h & 0x3ffu) || (h >> 15) != (u >> 31)) fail("float->half NaN", u, h, 0);
            if ((b & 0x7f80u) != 0x7f80u || !(b & 0x7fu) || (b >> 15) != (u >> 31)) fail("float->bf16 NaN", u, b, 0);
        } else {
            const uint16_t hr = half_nearest(f);
            if (h != hr) fail("float->half", u, h, hr);
            const uint16_t br = bf16_ref(f);
            if (b != br) fail("float->bfloat16", u, b, br);
        }
    }
    /* 3. the edge values the documents name */
    const struct {
        float f;
        uint16_t half;
    } edges[] = {
        {65504.0f, 0x7bffu},          /* largest half */
        {65519.996f, 0x7bffu},        /* just below the tie to infinity */
        {65520.0f, 0x7c00u},          /* the tie: to even, which is infinity */
        {6.103515625e-05f, 0x0400u},  /* smallest normal half, 2^-14 */
        {5.9604645e-08f, 0x0001u},    /* smallest subnormal half, 2^-24 */
        {2.98023224e-08f, 0x0000u},   /* 2^-25, the tie between 0 and 2^-24: to even (0) */
        {2.98023259e-08f, 0x0001u},   /* just above it */
        {-0.0f, 0x8000u},
    };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        if (rs_float_to_half(edges[i].f) != edges[i].half)
            fail("edge float->half", bits_of(edges[i].f), rs_float_to_half(edges[i].f), edges[i].half);
    /* bfloat16 ties: 1 + 2^-8 lies between 1 (0x3f80) and 1 + 2^-7 (0x3f81): to even, 0x3f80; 1 + 3*2^-8: to 0x3f82 */
    if (rs_float_to_bfloat16(1.00390625f) != 0x3f80u) fail("bf16 tie down", bits_of(1.00390625f), 0, 0x3f80u);
    if (rs_float_to_bfloat16(1.01171875f) != 0x3f82u) fail("bf16 tie up", bits_of(1.01171875f), 0, 0x3f82u);
    printf("test_narrow_convert: 65536 narrow patterns x 4, %lu float32 patterns x 2, %lu failures\n", checked,
           failures);
    return failures ? 1 : 0;
}
