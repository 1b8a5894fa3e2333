/* The float16 / bfloat16 <-> float32 conversions, bit-exact, round to nearest even (docs/SEMANTICS.md, "Narrow
 * types"), as static inline functions: the one definition shared by the core (api/src/narrow.c, rs_half_to_float and
 * friends) and libredscan_mpi (mpi/src/mpi_value.c), which uses the public API only and cannot link the core's hidden
 * symbols. The kernels (kernels_cl/common.clh, kernels_cu/common.cuh) convert with these same rules. */
#ifndef REDSCAN_HALF_CONVERT_H
#define REDSCAN_HALF_CONVERT_H

#include <stdint.h>
#include <string.h>

static inline uint32_t rs_hc_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float rs_hc_f32_from(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Exact for every pattern; a NaN keeps its sign and payload (shifted into the float's high mantissa bits), so a
 * NaN that goes half -> float -> half comes back with its own bits. */
static inline float rs_hc_half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1f) return rs_hc_f32_from(sign | 0x7f800000u | (m << 13));
    if (e != 0) return rs_hc_f32_from(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0) return rs_hc_f32_from(sign);
    /* subnormal: m * 2^-24; normalise so that bit 10 is the leading one */
    uint32_t shifts = 0;
    while (!(m & 0x400u)) {
        m <<= 1;
        shifts++;
    }
    return rs_hc_f32_from(sign | ((113u - shifts) << 23) | ((m & 0x3ffu) << 13));
}

/* Round to nearest, ties to even; overflow to infinity; a NaN stays NaN with the top 10 bits of its payload (or
 * the quiet bit alone when those are all zero). */
static inline uint16_t rs_hc_float_to_half(float f)
{
    const uint32_t u = rs_hc_f32_bits(f);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t x = u & 0x7fffffffu;
    if (x > 0x7f800000u) {
        const uint16_t payload = (uint16_t)((x >> 13) & 0x3ffu);
        return (uint16_t)(sign | 0x7c00u | (payload ? payload : 0x200u));
    }
    if (x >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 (inf included) rounds to infinity */
    const uint32_t e = x >> 23;
    if (e >= 113) { /* normal half: 2^-14 and above */
        uint32_t h = ((e - 112u) << 10) | ((x >> 13) & 0x3ffu);
        const uint32_t rem = x & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
    const uint32_t shift = 126u - e; /* value * 2^24 = m >> shift */
    if (shift > 24) return sign;     /* below 2^-25: rounds to zero (2^-25 itself is a tie, to even: zero) */
    const uint32_t m = (x & 0x7fffffu) | 0x800000u;
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(sign | r);
}

static inline float rs_hc_bfloat16_to_float(uint16_t b)
{
    return rs_hc_f32_from((uint32_t)b << 16);
}

static inline uint16_t rs_hc_float_to_bfloat16(float f)
{
    const uint32_t u = rs_hc_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        const uint16_t t = (uint16_t)(u >> 16);
        return (uint16_t)((t & 0x7fu) ? t : (t | 0x40u));
    }
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

#endif
