/* Narrow types on the host: float16 / bfloat16 <-> float32 conversions (bit-exact, round to nearest even), which
 * dtype a narrow type is combined in, and the accepted widenings. The kernels (kernels_cl/common.clh,
 * kernels_cu/common.cuh) convert with these same rules, so that a value converted on the host and on a device has the
 * same bits. Semantics: docs/SEMANTICS.md, "Narrow types". */
#include "backend.h"
#include "half_convert.h"

float rs_half_to_float(uint16_t h) { return rs_hc_half_to_float(h); }
uint16_t rs_float_to_half(float f) { return rs_hc_float_to_half(f); }
float rs_bfloat16_to_float(uint16_t b) { return rs_hc_bfloat16_to_float(b); }
uint16_t rs_float_to_bfloat16(float f) { return rs_hc_float_to_bfloat16(f); }

int rs_dtype_is_narrow(redscan_dtype dtype)
{
    return dtype >= REDSCAN_INT8 && dtype <= REDSCAN_BFLOAT16;
}

redscan_dtype rs_compute_dtype(redscan_dtype dtype)
{
    switch (dtype) {
    case REDSCAN_INT8:
    case REDSCAN_INT16: return REDSCAN_INT32;
    case REDSCAN_UINT8:
    case REDSCAN_UINT16: return REDSCAN_UINT32;
    case REDSCAN_FLOAT16:
    case REDSCAN_BFLOAT16: return REDSCAN_FLOAT32;
    default: return dtype;
    }
}

rs_scalar rs_to_compute(redscan_dtype dtype, rs_scalar v)
{
    rs_scalar r;
    memset(&r, 0, sizeof r);
    switch (dtype) {
    case REDSCAN_INT8: r.i32 = v.i8; return r;
    case REDSCAN_UINT8: r.u32 = v.u8; return r;
    case REDSCAN_INT16: r.i32 = v.i16; return r;
    case REDSCAN_UINT16: r.u32 = v.u16; return r;
    case REDSCAN_FLOAT16: r.f32 = rs_half_to_float(v.u16); return r;
    case REDSCAN_BFLOAT16: r.f32 = rs_bfloat16_to_float(v.u16); return r;
    default: return v;
    }
}

int rs_widening_ok(redscan_dtype dtype, redscan_dtype out_dtype)
{
    if (!rs_dtype_is_narrow(dtype)) return out_dtype == rs_widening_of(dtype);
    /* a narrow type widens to the 32- or 64-bit type of its kind */
    return out_dtype == rs_compute_dtype(dtype) || out_dtype == rs_widening_of(dtype);
}
