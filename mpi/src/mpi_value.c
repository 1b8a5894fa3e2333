/* Host arithmetic in redscan's compute types, with the library's exact rules (docs/ALGORITHMS.md "Operators,
 * identities, NaN", docs/SEMANTICS.md "Narrow types"): integer sums and products wrap (computed on the unsigned
 * type), min / max keep the earlier operand on ties and propagate the first NaN, float16 / bfloat16 round to
 * nearest even once. Float arithmetic stays in its own type (float is never widened to double): this file is
 * compiled with -ffp-contract=off, and C11 on x86-64 evaluates float in float (FLT_EVAL_METHOD 0). */
#include <math.h>
#include <string.h>

#include "half_convert.h" /* api/src: the conversions shared with the core */
#include "mpi_internal.h"

int rsm_is_narrow(redscan_dtype d) { return d >= REDSCAN_INT8 && d <= REDSCAN_BFLOAT16; }

redscan_dtype rsm_compute_dtype(redscan_dtype d)
{
    switch (d) {
    case REDSCAN_INT8:
    case REDSCAN_INT16: return REDSCAN_INT32;
    case REDSCAN_UINT8:
    case REDSCAN_UINT16: return REDSCAN_UINT32;
    case REDSCAN_FLOAT16:
    case REDSCAN_BFLOAT16: return REDSCAN_FLOAT32;
    default: return d;
    }
}

rsm_value rsm_load(redscan_dtype d, const void *p)
{
    rsm_value v, r;
    memset(&v, 0, sizeof v);
    memset(&r, 0, sizeof r);
    const size_t size = redscan_dtype_size(d);
    memcpy(v.bytes, p, size ? size : 1);
    switch (d) {
    case REDSCAN_INT8: r.i32 = v.i8; return r;
    case REDSCAN_UINT8: r.u32 = v.u8; return r;
    case REDSCAN_INT16: r.i32 = v.i16; return r;
    case REDSCAN_UINT16: r.u32 = v.u16; return r;
    case REDSCAN_FLOAT16: r.f32 = rs_hc_half_to_float(v.u16); return r;
    case REDSCAN_BFLOAT16: r.f32 = rs_hc_bfloat16_to_float(v.u16); return r;
    default: return v;
    }
}

rsm_value rsm_store(redscan_dtype t, redscan_dtype out, rsm_value v)
{
    rsm_value r;
    memset(&r, 0, sizeof r);
    (void)t;
    switch (out) {
    case REDSCAN_INT8:
    case REDSCAN_UINT8: r.u8 = (uint8_t)v.u32; return r;
    case REDSCAN_INT16:
    case REDSCAN_UINT16: r.u16 = (uint16_t)v.u32; return r;
    case REDSCAN_FLOAT16: r.u16 = rs_hc_float_to_half(v.f32); return r;
    case REDSCAN_BFLOAT16: r.u16 = rs_hc_float_to_bfloat16(v.f32); return r;
    default: return v;
    }
}

rsm_value rsm_identity(redscan_op op, redscan_dtype t)
{
    rsm_value r;
    memset(&r, 0, sizeof r);
    const int sum = op == REDSCAN_SUM, prod = op == REDSCAN_PROD, mn = op == REDSCAN_MIN;
    switch (t) {
    case REDSCAN_INT32: r.i32 = sum ? 0 : prod ? 1 : mn ? INT32_MAX : INT32_MIN; break;
    case REDSCAN_UINT32: r.u32 = sum ? 0u : prod ? 1u : mn ? UINT32_MAX : 0u; break;
    case REDSCAN_INT64: r.i64 = sum ? 0 : prod ? 1 : mn ? INT64_MAX : INT64_MIN; break;
    case REDSCAN_UINT64: r.u64 = sum ? 0u : prod ? 1u : mn ? UINT64_MAX : 0u; break;
    case REDSCAN_FLOAT32: r.f32 = sum ? -0.0f : prod ? 1.0f : mn ? INFINITY : -INFINITY; break;
    case REDSCAN_FLOAT64: r.f64 = sum ? -0.0 : prod ? 1.0 : mn ? (double)INFINITY : -(double)INFINITY; break;
    default: break;
    }
    return r;
}

/* min / max on one type: NaN of the earlier operand first, then the later one's, else the smaller / larger with
 * ties to the earlier operand. */
#define RSM_MINMAX(a, b, op) \
    ((a) != (a) ? (a) : (b) != (b) ? (b) : (op) == REDSCAN_MIN ? ((b) < (a) ? (b) : (a)) : ((b) > (a) ? (b) : (a)))

rsm_value rsm_combine(redscan_op op, redscan_dtype t, rsm_value a, rsm_value b)
{
    rsm_value r;
    memset(&r, 0, sizeof r);
    const int arith = op == REDSCAN_SUM || op == REDSCAN_PROD;
    switch (t) {
    case REDSCAN_INT32:
        if (arith) r.u32 = op == REDSCAN_SUM ? a.u32 + b.u32 : a.u32 * b.u32;
        else r.i32 = RSM_MINMAX(a.i32, b.i32, op);
        break;
    case REDSCAN_UINT32:
        r.u32 = op == REDSCAN_SUM ? a.u32 + b.u32 : op == REDSCAN_PROD ? a.u32 * b.u32 : RSM_MINMAX(a.u32, b.u32, op);
        break;
    case REDSCAN_INT64:
        if (arith) r.u64 = op == REDSCAN_SUM ? a.u64 + b.u64 : a.u64 * b.u64;
        else r.i64 = RSM_MINMAX(a.i64, b.i64, op);
        break;
    case REDSCAN_UINT64:
        r.u64 = op == REDSCAN_SUM ? a.u64 + b.u64 : op == REDSCAN_PROD ? a.u64 * b.u64 : RSM_MINMAX(a.u64, b.u64, op);
        break;
    case REDSCAN_FLOAT32: {
        const float x = a.f32, y = b.f32;
        r.f32 = op == REDSCAN_SUM ? x + y : op == REDSCAN_PROD ? x * y : RSM_MINMAX(x, y, op);
        break;
    }
    case REDSCAN_FLOAT64: {
        const double x = a.f64, y = b.f64;
        r.f64 = op == REDSCAN_SUM ? x + y : op == REDSCAN_PROD ? x * y : RSM_MINMAX(x, y, op);
        break;
    }
    default: break;
    }
    return r;
}

/* ---- the order of argmin / argmax / top-k ---- */
typedef struct {
    int kind; /* 0 signed, 1 unsigned, 2 float */
    int64_t i;
    uint64_t u;
    double f;
} key;

static key key_of(redscan_dtype d, const void *p)
{
    key k = {0, 0, 0, 0.0};
    rsm_value v;
    memset(&v, 0, sizeof v);
    memcpy(v.bytes, p, redscan_dtype_size(d));
    switch (d) {
    case REDSCAN_INT8: k.i = v.i8; break;
    case REDSCAN_INT16: k.i = v.i16; break;
    case REDSCAN_INT32: k.i = v.i32; break;
    case REDSCAN_INT64: k.i = v.i64; break;
    case REDSCAN_UINT8: k.kind = 1; k.u = v.u8; break;
    case REDSCAN_UINT16: k.kind = 1; k.u = v.u16; break;
    case REDSCAN_UINT32: k.kind = 1; k.u = v.u32; break;
    case REDSCAN_UINT64: k.kind = 1; k.u = v.u64; break;
    case REDSCAN_FLOAT16: k.kind = 2; k.f = rs_hc_half_to_float(v.u16); break;
    case REDSCAN_BFLOAT16: k.kind = 2; k.f = rs_hc_bfloat16_to_float(v.u16); break;
    case REDSCAN_FLOAT32: k.kind = 2; k.f = v.f32; break;
    case REDSCAN_FLOAT64: k.kind = 2; k.f = v.f64; break;
    default: break;
    }
    return k;
}

int rsm_before(redscan_dtype d, int largest, const void *a, uint64_t ia, const void *b, uint64_t ib)
{
    const key x = key_of(d, a), y = key_of(d, b);
    int cmp; /* -1: x < y, 0 equal, 1: x > y; NaN ranks first */
    if (x.kind == 2 && (isnan(x.f) || isnan(y.f))) {
        if (isnan(x.f) && isnan(y.f)) return ia < ib;
        return isnan(x.f);
    }
    if (x.kind == 0) cmp = (x.i > y.i) - (x.i < y.i);
    else if (x.kind == 1) cmp = (x.u > y.u) - (x.u < y.u);
    else cmp = (x.f > y.f) - (x.f < y.f);
    if (cmp == 0) return ia < ib;
    return largest ? cmp > 0 : cmp < 0;
}
