/* half_ref.h: float16 references in float64 arithmetic, for the tests (not GCC's _Float16: clang 14, the sanitizer
 * builds' compiler, has none on x86). half_value: the value of a pattern; half_nearest: the pattern nearest to a
 * non-NaN float, ties to even (nearbyint rounds to nearest even in the default rounding mode). */
#ifndef REDSCAN_TESTS_HALF_REF_H
#define REDSCAN_TESTS_HALF_REF_H
#include <math.h>
#include <stdint.h>

static inline double half_value(uint16_t h)
{
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double s = (h & 0x8000u) ? -1.0 : 1.0;
    if (e == 0x1f) return m ? NAN : s * INFINITY;
    return s * (e ? ldexp(1024 + m, e - 25) : ldexp(m, -24));
}

static inline uint16_t half_nearest(float f)
{
    const uint16_t sign = signbit(f) ? 0x8000u : 0;
    const double a = fabs((double)f);
    if (a >= 65520.0) return (uint16_t)(sign | 0x7c00u); /* infinity too */
    if (a < 0x1p-14) return (uint16_t)(sign | (uint16_t)nearbyint(a * 0x1p24)); /* 1024 is the smallest normal */
    int e;
    frexp(a, &e); /* a = r * 2^e, r in [0.5, 1) */
    double q = nearbyint(ldexp(a, 11 - e)); /* 11 significant bits: 1024 .. 2048 */
    int E = e - 1;
    if (q == 2048) q = 1024, E++;
    if (E > 15) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | (unsigned)((E + 15) << 10) | (unsigned)(q - 1024));
}

#endif
