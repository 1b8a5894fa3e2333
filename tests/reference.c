/* Host references; see reference.h for what each one promises and for the derivation of the bounds. */
#include "reference.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half_ref.h"

/* ------------------------------------------------------------------ element basics */

size_t ref_size(redscan_dtype dt)
{
    switch (dt) {
    case REDSCAN_INT8: case REDSCAN_UINT8: return 1;
    case REDSCAN_INT16: case REDSCAN_UINT16: case REDSCAN_FLOAT16: case REDSCAN_BFLOAT16: return 2;
    case REDSCAN_INT32: case REDSCAN_UINT32: case REDSCAN_FLOAT32: return 4;
    case REDSCAN_INT64: case REDSCAN_UINT64: case REDSCAN_FLOAT64: return 8;
    default: return 0;
    }
}

int ref_is_narrow_float(redscan_dtype dt) { return dt == REDSCAN_FLOAT16 || dt == REDSCAN_BFLOAT16; }
int ref_is_narrow(redscan_dtype dt) { return dt >= REDSCAN_INT8 && dt <= REDSCAN_BFLOAT16; }
int ref_is_float(redscan_dtype dt) { return dt == REDSCAN_FLOAT32 || dt == REDSCAN_FLOAT64 || ref_is_narrow_float(dt); }
int ref_is_signed(redscan_dtype dt)
{
    return dt == REDSCAN_INT32 || dt == REDSCAN_INT64 || dt == REDSCAN_INT8 || dt == REDSCAN_INT16;
}
redscan_dtype ref_compute_type(redscan_dtype out_dt) { return ref_is_narrow_float(out_dt) ? REDSCAN_FLOAT32 : out_dt; }

const char *ref_dtype_str(redscan_dtype dt)
{
    switch (dt) {
    case REDSCAN_INT32: return "int32";
    case REDSCAN_UINT32: return "uint32";
    case REDSCAN_INT64: return "int64";
    case REDSCAN_UINT64: return "uint64";
    case REDSCAN_FLOAT32: return "float32";
    case REDSCAN_FLOAT64: return "float64";
    case REDSCAN_INT8: return "int8";
    case REDSCAN_UINT8: return "uint8";
    case REDSCAN_INT16: return "int16";
    case REDSCAN_UINT16: return "uint16";
    case REDSCAN_FLOAT16: return "float16";
    case REDSCAN_BFLOAT16: return "bfloat16";
    default: return "none";
    }
}

const char *ref_op_str(redscan_op op)
{
    switch (op) {
    case REDSCAN_SUM: return "sum";
    case REDSCAN_PROD: return "prod";
    case REDSCAN_MIN: return "min";
    case REDSCAN_MAX: return "max";
    default: return "?";
    }
}

ref_val ref_zero(void)
{
    ref_val v;
    memset(&v, 0, sizeof v);
    return v;
}

ref_val ref_load(redscan_dtype dt, const void *p, size_t i)
{
    ref_val v = ref_zero();
    size_t s = ref_size(dt);
    memcpy(v.b, (const unsigned char *)p + i * s, s);
    return v;
}

void ref_store(redscan_dtype dt, void *p, size_t i, ref_val v)
{
    size_t s = ref_size(dt);
    memcpy((unsigned char *)p + i * s, v.b, s);
}

redscan_dtype ref_widening(redscan_dtype dt)
{
    redscan_dtype w[2];
    return ref_widenings(dt, w) ? w[0] : (redscan_dtype)0;
}

int ref_widenings(redscan_dtype dt, redscan_dtype out[2])
{
    switch (dt) {
    case REDSCAN_INT32: out[0] = REDSCAN_INT64; return 1;
    case REDSCAN_UINT32: out[0] = REDSCAN_UINT64; return 1;
    case REDSCAN_FLOAT32: out[0] = REDSCAN_FLOAT64; return 1;
    case REDSCAN_INT8: case REDSCAN_INT16: out[0] = REDSCAN_INT32, out[1] = REDSCAN_INT64; return 2;
    case REDSCAN_UINT8: case REDSCAN_UINT16: out[0] = REDSCAN_UINT32, out[1] = REDSCAN_UINT64; return 2;
    case REDSCAN_FLOAT16: case REDSCAN_BFLOAT16: out[0] = REDSCAN_FLOAT32, out[1] = REDSCAN_FLOAT64; return 2;
    default: return 0;
    }
}

int ref_out_ok(redscan_dtype dt, redscan_dtype out)
{
    redscan_dtype w[2];
    const int k = ref_widenings(dt, w);
    return out == dt || (k > 0 && out == w[0]) || (k > 1 && out == w[1]);
}

static float f32_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float ref_narrow_to_f32(redscan_dtype dt, uint16_t b)
{
    if (dt == REDSCAN_BFLOAT16) return f32_of_bits((uint32_t)b << 16); /* the high half of a float32 */
    if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu)) /* NaN: sign and payload moved into float32's high mantissa */
        return f32_of_bits(((uint32_t)(b & 0x8000u) << 16) | 0x7f800000u | ((uint32_t)(b & 0x3ffu) << 13));
    return (float)half_value(b); /* exact (float64 reference, tests/half_ref.h) */
}

uint16_t ref_f32_to_narrow(redscan_dtype dt, float f)
{
    const uint32_t u = bits_of_f32(f);
    if (isnan(f)) {
        /* the payload bits that fit; the quiet bit when none do */
        if (dt == REDSCAN_BFLOAT16) {
            const uint16_t t = (uint16_t)(u >> 16);
            return (uint16_t)((t & 0x7fu) ? t : (t | 0x40u));
        }
        const uint16_t pl = (uint16_t)((u >> 13) & 0x3ffu);
        return (uint16_t)(((u >> 16) & 0x8000u) | 0x7c00u | (pl ? pl : 0x200u));
    }
    if (dt == REDSCAN_BFLOAT16) return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); /* nearest, ties to even */
    return half_nearest(f);
}

/* integer element as int64 / uint64 (sign- or zero-extended) */
static int64_t int_value(redscan_dtype dt, ref_val v)
{
    switch (dt) {
    case REDSCAN_INT8: return v.i8;
    case REDSCAN_UINT8: return v.u8;
    case REDSCAN_INT16: return v.i16;
    case REDSCAN_UINT16: return v.u16;
    case REDSCAN_INT32: return v.i32;
    case REDSCAN_UINT32: return v.u32;
    default: return v.i64;
    }
}

ref_val ref_convert(redscan_dtype from, redscan_dtype to, ref_val v)
{
    ref_val r = ref_zero();
    if (from == to) return v;
    if (from == REDSCAN_INT32 && to == REDSCAN_INT64) r.i64 = v.i32;
    else if (from == REDSCAN_UINT32 && to == REDSCAN_UINT64) r.u64 = v.u32;
    else if (from == REDSCAN_FLOAT32 && to == REDSCAN_FLOAT64) r.f64 = (double)v.f32;
    else if ((from == REDSCAN_INT8 || from == REDSCAN_INT16) && to == REDSCAN_INT32) r.i32 = (int32_t)int_value(from, v);
    else if ((from == REDSCAN_INT8 || from == REDSCAN_INT16) && to == REDSCAN_INT64) r.i64 = int_value(from, v);
    else if ((from == REDSCAN_UINT8 || from == REDSCAN_UINT16) && to == REDSCAN_UINT32) r.u32 = (uint32_t)int_value(from, v);
    else if ((from == REDSCAN_UINT8 || from == REDSCAN_UINT16) && to == REDSCAN_UINT64) r.u64 = (uint64_t)int_value(from, v);
    else if (ref_is_narrow_float(from) && to == REDSCAN_FLOAT32) r.f32 = ref_narrow_to_f32(from, v.u16);
    else if (ref_is_narrow_float(from) && to == REDSCAN_FLOAT64) r.f64 = (double)ref_narrow_to_f32(from, v.u16);
    else if (from == REDSCAN_FLOAT32 && ref_is_narrow_float(to)) r.u16 = ref_f32_to_narrow(to, v.f32);
    else abort(); /* a test bug: only widenings (and the float32 <-> narrow float steps) are documented */
    return r;
}

ref_val ref_type_max(redscan_dtype dt)
{
    ref_val v = ref_zero();
    switch (dt) {
    case REDSCAN_INT32: v.i32 = INT32_MAX; break;
    case REDSCAN_UINT32: v.u32 = UINT32_MAX; break;
    case REDSCAN_INT64: v.i64 = INT64_MAX; break;
    case REDSCAN_UINT64: v.u64 = UINT64_MAX; break;
    case REDSCAN_FLOAT32: v.f32 = INFINITY; break;
    case REDSCAN_FLOAT64: v.f64 = INFINITY; break;
    case REDSCAN_INT8: v.i8 = INT8_MAX; break;
    case REDSCAN_UINT8: v.u8 = UINT8_MAX; break;
    case REDSCAN_INT16: v.i16 = INT16_MAX; break;
    case REDSCAN_UINT16: v.u16 = UINT16_MAX; break;
    case REDSCAN_FLOAT16: v.u16 = 0x7c00u; break;
    case REDSCAN_BFLOAT16: v.u16 = 0x7f80u; break;
    default: break;
    }
    return v;
}

ref_val ref_type_min(redscan_dtype dt)
{
    ref_val v = ref_zero();
    switch (dt) {
    case REDSCAN_INT32: v.i32 = INT32_MIN; break;
    case REDSCAN_UINT32: v.u32 = 0; break;
    case REDSCAN_INT64: v.i64 = INT64_MIN; break;
    case REDSCAN_UINT64: v.u64 = 0; break;
    case REDSCAN_FLOAT32: v.f32 = -INFINITY; break;
    case REDSCAN_FLOAT64: v.f64 = -INFINITY; break;
    case REDSCAN_INT8: v.i8 = INT8_MIN; break;
    case REDSCAN_INT16: v.i16 = INT16_MIN; break;
    case REDSCAN_FLOAT16: v.u16 = 0xfc00u; break;
    case REDSCAN_BFLOAT16: v.u16 = 0xff80u; break;
    default: break; /* unsigned: 0 */
    }
    return v;
}

static ref_val one_of(redscan_dtype dt)
{
    ref_val v = ref_zero();
    switch (dt) {
    case REDSCAN_INT32: v.i32 = 1; break;
    case REDSCAN_UINT32: v.u32 = 1; break;
    case REDSCAN_INT64: v.i64 = 1; break;
    case REDSCAN_UINT64: v.u64 = 1; break;
    case REDSCAN_FLOAT32: v.f32 = 1.0f; break;
    case REDSCAN_FLOAT64: v.f64 = 1.0; break;
    case REDSCAN_INT8: case REDSCAN_UINT8: case REDSCAN_INT16: case REDSCAN_UINT16: v.u8 = 1; break;
    case REDSCAN_FLOAT16: v.u16 = 0x3c00u; break;
    case REDSCAN_BFLOAT16: v.u16 = 0x3f80u; break;
    default: break;
    }
    return v;
}

ref_val ref_identity(redscan_op op, redscan_dtype dt)
{
    ref_val v = ref_zero();
    switch (op) {
    case REDSCAN_SUM:
        if (dt == REDSCAN_FLOAT32) v.f32 = -0.0f;
        else if (dt == REDSCAN_FLOAT64) v.f64 = -0.0;
        else if (ref_is_narrow_float(dt)) v.u16 = 0x8000u;
        return v; /* integers: all-zero bits */
    case REDSCAN_PROD: return one_of(dt);
    case REDSCAN_MIN: return ref_type_max(dt);
    case REDSCAN_MAX: return ref_type_min(dt);
    default: return v;
    }
}

ref_val ref_empty_result(redscan_op op, redscan_dtype dt)
{
    if (op == REDSCAN_SUM) return ref_zero(); /* +0 / +0.0, documented */
    return ref_identity(op, dt);
}

int ref_isnan(redscan_dtype dt, ref_val v)
{
    if (dt == REDSCAN_FLOAT32) return isnan(v.f32) != 0;
    if (dt == REDSCAN_FLOAT64) return isnan(v.f64) != 0;
    if (dt == REDSCAN_FLOAT16) return (v.u16 & 0x7fffu) > 0x7c00u;
    if (dt == REDSCAN_BFLOAT16) return (v.u16 & 0x7fffu) > 0x7f80u;
    return 0;
}

double ref_to_double(redscan_dtype dt, ref_val v)
{
    switch (dt) {
    case REDSCAN_UINT64: return (double)v.u64;
    case REDSCAN_FLOAT32: return (double)v.f32;
    case REDSCAN_FLOAT64: return v.f64;
    case REDSCAN_FLOAT16: case REDSCAN_BFLOAT16: return (double)ref_narrow_to_f32(dt, v.u16);
    default: return ref_size(dt) ? (double)int_value(dt, v) : 0.0;
    }
}

long double ref_to_ld(redscan_dtype dt, ref_val v)
{
    switch (dt) {
    case REDSCAN_UINT64: return (long double)v.u64;
    case REDSCAN_FLOAT32: return (long double)v.f32;
    case REDSCAN_FLOAT64: return (long double)v.f64;
    case REDSCAN_FLOAT16: case REDSCAN_BFLOAT16: return (long double)ref_narrow_to_f32(dt, v.u16);
    default: return ref_size(dt) ? (long double)int_value(dt, v) : 0.0L;
    }
}

/* -1, 0, 1 for a < b, a == b, a > b (floats: not NaN here; -0.0 == +0.0). */
static int cmp_val(redscan_dtype dt, ref_val a, ref_val b)
{
    switch (dt) {
    case REDSCAN_UINT32: return (a.u32 > b.u32) - (a.u32 < b.u32);
    case REDSCAN_UINT64: return (a.u64 > b.u64) - (a.u64 < b.u64);
    case REDSCAN_FLOAT32: return (a.f32 > b.f32) - (a.f32 < b.f32);
    case REDSCAN_FLOAT64: return (a.f64 > b.f64) - (a.f64 < b.f64);
    case REDSCAN_FLOAT16: case REDSCAN_BFLOAT16: {
        const float x = ref_narrow_to_f32(dt, a.u16), y = ref_narrow_to_f32(dt, b.u16); /* compared as float32 */
        return (x > y) - (x < y);
    }
    default: {
        const int64_t x = int_value(dt, a), y = int_value(dt, b);
        return (x > y) - (x < y);
    }
    }
}

/* v wrapped into the width of a narrow integer type (two's complement) */
static ref_val wrap_narrow(redscan_dtype dt, uint64_t v)
{
    ref_val r = ref_zero();
    if (ref_size(dt) == 1) r.u8 = (uint8_t)v;
    else r.u16 = (uint16_t)v;
    return r;
}

ref_val ref_combine(redscan_op op, redscan_dtype dt, ref_val a, ref_val b)
{
    ref_val r = ref_zero();
    if (ref_is_narrow_float(dt) && (op == REDSCAN_SUM || op == REDSCAN_PROD)) {
        /* one combination on its own: in float32, rounded once on store (the canonical NaN); the references of whole
         * operations compute in float32 (ref_compute_type) and round only their results */
        ref_val fa = ref_convert(dt, REDSCAN_FLOAT32, a), fb = ref_convert(dt, REDSCAN_FLOAT32, b);
        ref_val f = ref_combine(op, REDSCAN_FLOAT32, fa, fb);
        r.u16 = isnan(f.f32) ? (dt == REDSCAN_FLOAT16 ? 0x7e00u : 0x7fc0u) : ref_f32_to_narrow(dt, f.f32);
        return r;
    }
    switch (op) {
    case REDSCAN_SUM:
        switch (dt) {
        case REDSCAN_INT32: case REDSCAN_UINT32: r.u32 = a.u32 + b.u32; break;
        case REDSCAN_INT64: case REDSCAN_UINT64: r.u64 = a.u64 + b.u64; break;
        case REDSCAN_FLOAT32: { volatile float x = a.f32 + b.f32; r.f32 = x; } break;
        case REDSCAN_FLOAT64: { volatile double x = a.f64 + b.f64; r.f64 = x; } break;
        case REDSCAN_INT8: case REDSCAN_UINT8: case REDSCAN_INT16: case REDSCAN_UINT16:
            r = wrap_narrow(dt, (uint64_t)a.u16 + (uint64_t)b.u16); /* the low bytes are the same for u8 */
            break;
        default: break;
        }
        return r;
    case REDSCAN_PROD:
        switch (dt) {
        case REDSCAN_INT32: case REDSCAN_UINT32: r.u32 = a.u32 * b.u32; break;
        case REDSCAN_INT64: case REDSCAN_UINT64: r.u64 = a.u64 * b.u64; break;
        case REDSCAN_FLOAT32: { volatile float x = a.f32 * b.f32; r.f32 = x; } break;
        case REDSCAN_FLOAT64: { volatile double x = a.f64 * b.f64; r.f64 = x; } break;
        case REDSCAN_INT8: case REDSCAN_UINT8: case REDSCAN_INT16: case REDSCAN_UINT16:
            r = wrap_narrow(dt, (uint64_t)a.u16 * (uint64_t)b.u16);
            break;
        default: break;
        }
        return r;
    case REDSCAN_MIN:
    case REDSCAN_MAX:
        if (ref_isnan(dt, a)) return a;
        if (ref_isnan(dt, b)) return b;
        if (op == REDSCAN_MIN) return cmp_val(dt, b, a) < 0 ? b : a;
        return cmp_val(dt, b, a) > 0 ? b : a;
    default:
        return r;
    }
}

int ref_bits_equal(redscan_dtype dt, ref_val a, ref_val b)
{
    return memcmp(a.b, b.b, ref_size(dt)) == 0;
}

int ref_result_equal(redscan_op op, redscan_dtype dt, ref_val a, ref_val b)
{
    if ((op == REDSCAN_SUM || op == REDSCAN_PROD) && ref_is_float(dt) && !ref_is_narrow_float(dt) &&
        ref_isnan(dt, a) && ref_isnan(dt, b))
        return 1;
    return ref_bits_equal(dt, a, b);
}

/* ------------------------------------------------------------------ reductions */

/* in[0..n) of dt converted to the type the combinations run in (ref_compute_type(out_dt)) */
static ref_val *to_vals(redscan_dtype dt, redscan_dtype out_dt, const void *in, size_t n)
{
    const redscan_dtype C = ref_compute_type(out_dt);
    ref_val *v = (ref_val *)malloc((n ? n : 1) * sizeof *v);
    if (!v) abort();
    for (size_t i = 0; i < n; i++) v[i] = ref_convert(dt, C, ref_load(dt, in, i));
    return v;
}

/* A result of the compute type stored as out_dt: the one rounding of a narrow float output (a sum or product that is
 * NaN: the canonical NaN; min / max: the selected element's own bits, which the float32 round trip keeps). */
static ref_val store_as(redscan_op op, redscan_dtype out_dt, ref_val v)
{
    const redscan_dtype C = ref_compute_type(out_dt);
    if (C == out_dt) return v;
    ref_val r = ref_zero();
    if ((op == REDSCAN_SUM || op == REDSCAN_PROD) && isnan(v.f32)) r.u16 = out_dt == REDSCAN_FLOAT16 ? 0x7e00u : 0x7fc0u;
    else r = ref_convert(C, out_dt, v);
    return r;
}

/* init (one element of out_dt, or NULL: the identity) in the compute type */
static ref_val init_in(redscan_op op, redscan_dtype out_dt, const void *init)
{
    const redscan_dtype C = ref_compute_type(out_dt);
    return init ? ref_convert(out_dt, C, ref_load(out_dt, init, 0)) : ref_identity(op, C);
}

ref_val ref_reduce_seq(redscan_op op, redscan_dtype dt, redscan_dtype out_dt, const void *in, size_t n)
{
    if (n == 0) return ref_empty_result(op, out_dt);
    const redscan_dtype C = ref_compute_type(out_dt);
    ref_val acc = ref_identity(op, C);
    for (size_t i = 0; i < n; i++) acc = ref_combine(op, C, acc, ref_convert(dt, C, ref_load(dt, in, i)));
    return store_as(op, out_dt, acc);
}

size_t ref_reduce_tile(redscan_reduce_algo algo)
{
    switch (algo) {
    case REDSCAN_REDUCE_TREE: return 512;
    case REDSCAN_REDUCE_INTERLEAVED: return 256;
    case REDSCAN_REDUCE_COARSENED: return 4096;
    default: return 256; /* AUTO: smallest tile = most passes (for the bound) */
    }
}

#define GROUP 256

/* Sequential addressing over l[0..256). */
static ref_val seq_addressing(redscan_op op, redscan_dtype T, ref_val *l)
{
    for (unsigned s = GROUP / 2; s > 0; s >>= 1)
        for (unsigned t = 0; t < s; t++) l[t] = ref_combine(op, T, l[t], l[t + s]);
    return l[0];
}

/* One tile (x holds TILE values, already padded with the identity). */
static ref_val reduce_tile(redscan_reduce_algo algo, redscan_op op, redscan_dtype T, const ref_val *x)
{
    ref_val l[GROUP];
    switch (algo) {
    case REDSCAN_REDUCE_TREE:
        for (unsigned t = 0; t < GROUP; t++) l[t] = ref_combine(op, T, x[t], x[t + GROUP]);
        return seq_addressing(op, T, l);
    case REDSCAN_REDUCE_INTERLEAVED:
        for (unsigned t = 0; t < GROUP; t++) l[t] = x[t];
        for (unsigned s = 1; s < GROUP; s <<= 1)
            for (unsigned t = 0; t < GROUP; t++)
                if (t % (2 * s) == 0) l[t] = ref_combine(op, T, l[t], l[t + s]);
        return l[0];
    case REDSCAN_REDUCE_COARSENED: {
        const unsigned V = 4, K = 4;
        for (unsigned t = 0; t < GROUP; t++) {
            ref_val acc = ref_identity(op, T);
            for (unsigned k = 0; k < K; k++)
                for (unsigned v = 0; v < V; v++) acc = ref_combine(op, T, acc, x[k * GROUP * V + t * V + v]);
            l[t] = acc;
        }
        return seq_addressing(op, T, l);
    }
    default:
        abort();
    }
}

ref_val ref_reduce_emulate(redscan_reduce_algo algo, redscan_op op, redscan_dtype dt, redscan_dtype out_dt,
                           const void *in, size_t n)
{
    if (n == 0) return ref_empty_result(op, out_dt);
    const size_t tile = ref_reduce_tile(algo);
    ref_val *cur = to_vals(dt, out_dt, in, n);
    ref_val *buf = (ref_val *)malloc(tile * sizeof *buf);
    if (!buf) abort();
    size_t m = n;
    const redscan_dtype C = ref_compute_type(out_dt);
    const ref_val id = ref_identity(op, C);
    do {
        size_t tiles = (m + tile - 1) / tile;
        for (size_t g = 0; g < tiles; g++) {
            for (size_t i = 0; i < tile; i++) {
                size_t k = g * tile + i;
                buf[i] = k < m ? cur[k] : id;
            }
            cur[g] = reduce_tile(algo, op, C, buf); /* g <= g*tile: never overwrites unread input */
        }
        m = tiles;
    } while (m > 1);
    ref_val r = store_as(op, out_dt, cur[0]);
    free(buf);
    free(cur);
    return r;
}

static unsigned reduce_passes(size_t tile, size_t n)
{
    unsigned p = 0;
    size_t m = n ? n : 1;
    do {
        m = (m + tile - 1) / tile;
        p++;
    } while (m > 1);
    return p;
}

unsigned ref_reduce_depth(redscan_reduce_algo algo, size_t n)
{
    switch (algo) {
    case REDSCAN_REDUCE_TREE: return reduce_passes(512, n) * 9;
    case REDSCAN_REDUCE_INTERLEAVED: return reduce_passes(256, n) * 8;
    case REDSCAN_REDUCE_COARSENED: return reduce_passes(4096, n) * 24;
    default: {
        unsigned a = ref_reduce_depth(REDSCAN_REDUCE_TREE, n), b = ref_reduce_depth(REDSCAN_REDUCE_INTERLEAVED, n),
                 c = ref_reduce_depth(REDSCAN_REDUCE_COARSENED, n);
        unsigned m = a > b ? a : b;
        return m > c ? m : c;
    }
    }
}

/* ------------------------------------------------------------------ long double accumulators */

void ref_ld_init(ref_ld_acc *a, redscan_op op)
{
    memset(a, 0, sizeof *a);
    a->value = op == REDSCAN_PROD ? 1.0L : 0.0L;
}

void ref_ld_add(ref_ld_acc *a, redscan_op op, long double x, int isnan_x)
{
    if (isnan_x) {
        a->nan++;
        return;
    }
    if (op == REDSCAN_SUM) {
        if (isinf(x)) {
            if (x > 0) a->pinf++;
            else a->ninf++;
            return;
        }
        a->abs_sum += fabsl(x);
        long double t = a->value + x; /* Neumaier */
        if (fabsl(a->value) >= fabsl(x)) a->comp += (a->value - t) + x;
        else a->comp += (x - t) + a->value;
        a->value = t;
        return;
    }
    /* prod */
    if (signbit(x)) a->neg ^= 1;
    if (isinf(x)) {
        a->pinf++; /* sign kept in neg */
        return;
    }
    if (x == 0) {
        a->zero++;
        return;
    }
    if (fabsl(x) != 1.0L) a->nontrivial++;
    a->value *= fabsl(x);
}

long double ref_ld_value(const ref_ld_acc *a, redscan_op op)
{
    if (op == REDSCAN_SUM) {
        if (a->nan || (a->pinf && a->ninf)) return NAN;
        if (a->pinf) return INFINITY;
        if (a->ninf) return -INFINITY;
        return a->value + a->comp;
    }
    if (a->nan || (a->pinf && a->zero)) return NAN;
    long double mag = a->pinf ? (long double)INFINITY : a->zero ? 0.0L : a->value;
    return a->neg ? -mag : mag;
}

int ref_fbound_ok(redscan_op op, redscan_dtype out_dt, ref_val got, const ref_ld_acc *a, unsigned depth,
                  double *err, double *bound)
{
    long double ref = ref_ld_value(a, op);
    long double g = ref_to_ld(out_dt, got);
    const int narrow = ref_is_narrow_float(out_dt);
    long double eps = ref_compute_type(out_dt) == REDSCAN_FLOAT32 ? (long double)FLT_EPSILON : (long double)DBL_EPSILON;
    *err = 0;
    *bound = 0;
    if (isnan(ref)) return isnan(g) != 0;
    if (isinf(ref)) return g == ref;
    if (isnan(g)) {
        *err = INFINITY;
        return 0;
    }
    long double e = fabsl(g - ref), b;
    if (op == REDSCAN_SUM) {
        b = (long double)depth * eps * a->abs_sum;
    } else {
        if (ref == 0) return g == 0 && signbit(g) == signbit(ref); /* a zero factor: exact zero, sign = xor */
        b = ((long double)a->nontrivial + 1.0L) * eps * fabsl(ref);
    }
    if (narrow) {
        /* the float32 result y is within b of ref; the store rounds it once: relative u (2^-11 float16, 2^-8
         * bfloat16) in the normal range, half the smallest subnormal below it, infinity from the overflow threshold
         * (float16: 65520; bfloat16: 0x1.ffp127, half way from its largest finite value up) */
        const int f16 = out_dt == REDSCAN_FLOAT16;
        const long double u = f16 ? 0x1p-11L : 0x1p-8L, tiny = f16 ? 0x1p-25L : 0x1p-134L;
        const long double ovf = f16 ? 65520.0L : 0x1.ffp127L;
        if (isinf(g)) {
            *err = INFINITY;
            *bound = (double)b;
            return signbit(g) == signbit(ref) && fabsl(ref) + b >= ovf;
        }
        b += u * (fabsl(ref) + b) + tiny;
    } else if (isinf(g)) {
        *err = INFINITY;
        return 0;
    }
    *err = (double)e;
    *bound = (double)b;
    return e <= b;
}

/* ------------------------------------------------------------------ scans */

void ref_scan_seq(redscan_op op, redscan_dtype dt, redscan_dtype out_dt, int exclusive, const void *init,
                  const void *in, void *out, size_t n)
{
    const redscan_dtype C = ref_compute_type(out_dt);
    ref_val acc = init_in(op, out_dt, init);
    for (size_t i = 0; i < n; i++) {
        ref_val x = ref_convert(dt, C, ref_load(dt, in, i));
        if (exclusive) {
            ref_store(out_dt, out, i, store_as(op, out_dt, acc));
            acc = ref_combine(op, C, acc, x);
        } else {
            acc = ref_combine(op, C, acc, x);
            ref_store(out_dt, out, i, store_as(op, out_dt, acc));
        }
    }
}

size_t ref_scan_section(redscan_block_scan block)
{
    switch (block) {
    case REDSCAN_BLOCK_KOGGE_STONE: case REDSCAN_BLOCK_KOGGE_STONE_DB: return 256;
    case REDSCAN_BLOCK_BRENT_KUNG: return 512;
    case REDSCAN_BLOCK_COARSENED: return 2048;
    default: return 256;
    }
}

/* Kogge-Stone over s[0..N): log2 N steps, each reads the old values (temp + barrier / double buffer). */
static void kogge_stone(redscan_op op, redscan_dtype T, ref_val *s, unsigned N)
{
    ref_val tmp[2048];
    for (unsigned d = 1; d < N; d <<= 1) {
        for (unsigned t = 0; t < N; t++) tmp[t] = t >= d ? ref_combine(op, T, s[t - d], s[t]) : s[t];
        memcpy(s, tmp, N * sizeof *s);
    }
}

/* The block scan of s[0 .. SEC). COARSENED computes only the sub-sections that hold s[0 .. m) (m <= SEC): a value there
 * reads only lower sub-sections (the folds run left to right, a Kogge-Stone entry reads only lower entries), so those
 * come out as in the whole block scan, and a short segment's emulation costs its length, not 2048 values. */
#define COARSE_ITEMS 8 /* the coarsened block scan's sub-section: a thread's elements */

/* How many of s[0 .. SEC) block_scan(..., m) reads: the sub-sections that hold s[0 .. m) for COARSENED, else all */
static size_t block_scan_reads(redscan_block_scan block, size_t m, size_t SEC)
{
    return block == REDSCAN_BLOCK_COARSENED ? (m + COARSE_ITEMS - 1) / COARSE_ITEMS * COARSE_ITEMS : SEC;
}

static void block_scan(redscan_block_scan block, redscan_op op, redscan_dtype T, ref_val *s, size_t m)
{
    switch (block) {
    case REDSCAN_BLOCK_KOGGE_STONE:
    case REDSCAN_BLOCK_KOGGE_STONE_DB:
        kogge_stone(op, T, s, 256);
        return;
    case REDSCAN_BLOCK_BRENT_KUNG: {
        const unsigned N = 512;
        for (unsigned d = 1; d < N; d <<= 1)
            for (unsigned t = 0; t < GROUP; t++) {
                unsigned i = (t + 1) * 2 * d - 1;
                if (i < N) s[i] = ref_combine(op, T, s[i - d], s[i]);
            }
        for (unsigned d = N / 4; d > 0; d >>= 1)
            for (unsigned t = 0; t < GROUP; t++) {
                unsigned i = (t + 1) * 2 * d - 1;
                if (i + d < N) s[i + d] = ref_combine(op, T, s[i], s[i + d]);
            }
        return;
    }
    case REDSCAN_BLOCK_COARSENED: {
        const unsigned C = COARSE_ITEMS, G = m < (size_t)GROUP * C ? (unsigned)((m + C - 1) / C) : GROUP;
        ref_val sub[GROUP];
        for (unsigned t = 0; t < G; t++)
            for (unsigned k = 1; k < C; k++) s[C * t + k] = ref_combine(op, T, s[C * t + k - 1], s[C * t + k]);
        for (unsigned t = 0; t < G; t++) sub[t] = s[C * t + C - 1];
        kogge_stone(op, T, sub, G);
        for (unsigned t = 0; t < G; t++) s[C * t + C - 1] = sub[t];
        for (unsigned t = 1; t < G; t++)
            for (unsigned k = 0; k < C - 1; k++) s[C * t + k] = ref_combine(op, T, s[C * t - 1], s[C * t + k]);
        return;
    }
    default:
        abort();
    }
}

/* One level of the grid formula: out[i] = P[j] (+) L[i] (exclusive: the previous local value, identity at
 * the section start), P = init when one section, else the exclusive scan (with init) of the totals. */
static void scan_level(redscan_block_scan block, redscan_op op, redscan_dtype T, int exclusive, ref_val init,
                       const ref_val *x, size_t m, ref_val *out)
{
    const size_t SEC = ref_scan_section(block);
    const size_t nsec = (m + SEC - 1) / SEC;
    const ref_val id = ref_identity(op, T);
    ref_val s[2048];
    ref_val *S = (ref_val *)calloc(nsec, sizeof *S);
    ref_val *P = (ref_val *)calloc(nsec, sizeof *P);
    if (!S || !P) abort();
    for (size_t j = 0; j < nsec; j++) {
        for (size_t i = 0; i < SEC; i++) {
            size_t k = j * SEC + i;
            s[i] = k < m ? x[k] : id;
        }
        block_scan(block, op, T, s, SEC);
        S[j] = s[SEC - 1];
        for (size_t i = 0; i < SEC && j * SEC + i < m; i++) out[j * SEC + i] = s[i];
    }
    if (nsec == 1) P[0] = init;
    else scan_level(block, op, T, 1, init, S, nsec, P);
    for (size_t j = 0; j < nsec; j++) {
        size_t lo = j * SEC, hi = lo + SEC < m ? lo + SEC : m;
        if (exclusive) {
            for (size_t i = hi; i-- > lo;) out[i] = ref_combine(op, T, P[j], i == lo ? id : out[i - 1]);
        } else {
            for (size_t i = lo; i < hi; i++) out[i] = ref_combine(op, T, P[j], out[i]);
        }
    }
    free(S);
    free(P);
}

void ref_scan_emulate(redscan_block_scan block, redscan_op op, redscan_dtype dt, redscan_dtype out_dt,
                      int exclusive, const void *init, const void *in, void *out, size_t n)
{
    if (n == 0) return;
    ref_val *x = to_vals(dt, out_dt, in, n);
    ref_val *o = (ref_val *)malloc(n * sizeof *o);
    if (!o) abort();
    ref_val iv = init_in(op, out_dt, init);
    scan_level(block, op, ref_compute_type(out_dt), exclusive, iv, x, n, o);
    for (size_t i = 0; i < n; i++) ref_store(out_dt, out, i, store_as(op, out_dt, o[i]));
    free(o);
    free(x);
}

void ref_scan_emulate_single_pass(redscan_block_scan block, redscan_op op, redscan_dtype dt, redscan_dtype out_dt,
                                  int exclusive, const void *init, const void *in, void *out, size_t n)
{
    if (n == 0) return;
    const redscan_dtype T = ref_compute_type(out_dt);
    const size_t SEC = ref_scan_section(block), TILES_PER_GROUP = 32;
    const size_t tiles = (n + SEC - 1) / SEC;
    const ref_val id = ref_identity(op, T);
    const ref_val iv = init_in(op, out_dt, init);
    ref_val *x = to_vals(dt, out_dt, in, n);
    ref_val *o = (ref_val *)malloc(n * sizeof *o);
    ref_val *S = (ref_val *)malloc(tiles * sizeof *S);
    if (!o || !S) abort();
    ref_val s[2048];
    for (size_t j = 0; j < tiles; j++) {
        /* the last tile's total is never used (no P reads it): only its values are scanned, and S holds the
         * identity for it (s[SEC - 1] may be left from the tile before, or unset) */
        const size_t m = j + 1 < tiles ? SEC : n - j * SEC;
        const size_t fill = block_scan_reads(block, m, SEC);
        for (size_t i = 0; i < fill; i++) s[i] = j * SEC + i < n ? x[j * SEC + i] : id;
        block_scan(block, op, T, s, m);
        S[j] = j + 1 < tiles ? s[SEC - 1] : id;
        for (size_t i = 0; i < SEC && j * SEC + i < n; i++) o[j * SEC + i] = s[i];
    }
    /* A = A(g-1): init, then A(g) = A(g-1) (+) T(g), T(g) the left fold of the group's 32 aggregates;
     * P[32g + p] = A(g-1) (+) (S[32g] (+) ... (+) S[32g+p-1]) for p > 0, A(g-1) for p = 0. */
    ref_val A = iv, W = id;
    for (size_t j = 0; j < tiles; j++) {
        const size_t p = j % TILES_PER_GROUP;
        if (p == 0 && j > 0) A = ref_combine(op, T, A, W);     /* W is T(g-1) here */
        const ref_val P = p ? ref_combine(op, T, A, W) : A;
        W = p ? ref_combine(op, T, W, S[j]) : S[j];
        size_t lo = j * SEC, hi = lo + SEC < n ? lo + SEC : n;
        if (exclusive) {
            for (size_t i = hi; i-- > lo;) o[i] = ref_combine(op, T, P, i == lo ? id : o[i - 1]);
        } else {
            for (size_t i = lo; i < hi; i++) o[i] = ref_combine(op, T, P, o[i]);
        }
    }
    for (size_t i = 0; i < n; i++) ref_store(out_dt, out, i, store_as(op, out_dt, o[i]));
    free(S);
    free(o);
    free(x);
}

unsigned ref_scan_depth_single_pass(redscan_block_scan block, size_t n)
{
    unsigned B, T;
    switch (block) {
    case REDSCAN_BLOCK_KOGGE_STONE: case REDSCAN_BLOCK_KOGGE_STONE_DB: B = 8; T = 8; break;
    case REDSCAN_BLOCK_BRENT_KUNG: B = 17; T = 9; break;
    case REDSCAN_BLOCK_COARSENED: B = 16; T = 15; break;
    default: B = 17; T = 15; break; /* AUTO: the worst of each, with the smallest section (most tiles) */
    }
    const size_t sec = ref_scan_section(block);
    const size_t tiles = n ? (n + sec - 1) / sec : 1, groups = (tiles + 31) / 32;
    /* tile total (T), the chain over the groups (one combination each, plus the group's own fold of up to 32
     * totals), the fold inside the group, the final combination with L */
    const size_t chain = groups - 1 + 32 + 31 + 2;
    return B + T + (unsigned)(chain > 0xffffff ? 0xffffff : chain);
}

redscan_block_scan ref_scan_block_of(redscan_block_scan block)
{
    return block == REDSCAN_BLOCK_AUTO ? REDSCAN_BLOCK_COARSENED : block;
}

int ref_scan_single_pass_order(redscan_grid_scan grid)
{
    return grid == REDSCAN_GRID_AUTO || grid == REDSCAN_GRID_SINGLE_PASS;
}

void ref_scan_emulate_grid(redscan_block_scan block, redscan_grid_scan grid, redscan_op op, redscan_dtype dt,
                           redscan_dtype out_dt, int exclusive, const void *init, const void *in, void *out, size_t n)
{
    const redscan_block_scan b = ref_scan_block_of(block);
    if (ref_scan_single_pass_order(grid)) ref_scan_emulate_single_pass(b, op, dt, out_dt, exclusive, init, in, out, n);
    else ref_scan_emulate(b, op, dt, out_dt, exclusive, init, in, out, n);
}

unsigned ref_scan_depth_grid(redscan_block_scan block, redscan_grid_scan grid, size_t n)
{
    const redscan_block_scan b = ref_scan_block_of(block);
    return ref_scan_single_pass_order(grid) ? ref_scan_depth_single_pass(b, n) : ref_scan_depth(b, n);
}

unsigned ref_scan_levels(redscan_block_scan block, size_t n)
{
    size_t sec = ref_scan_section(block);
    unsigned L = 1;
    size_t m = n;
    while (m > sec) {
        m = (m + sec - 1) / sec;
        L++;
    }
    return L;
}

unsigned ref_scan_depth(redscan_block_scan block, size_t n)
{
    unsigned B, T;
    switch (block) {
    case REDSCAN_BLOCK_KOGGE_STONE: case REDSCAN_BLOCK_KOGGE_STONE_DB: B = 8; T = 8; break;
    case REDSCAN_BLOCK_BRENT_KUNG: B = 17; T = 9; break;
    case REDSCAN_BLOCK_COARSENED: B = 16; T = 15; break;
    default: B = 17; T = 15; break; /* AUTO: the worst of each, with the smallest section (most levels) */
    }
    unsigned L = ref_scan_levels(block, n);
    return B + 1 + (L - 1) * (T + B + 1) + 1;
}

/* ------------------------------------------------------------------ argmin / argmax / top-k / mean */

int ref_before(redscan_dtype dt, int want_max, ref_val av, uint64_t ai, ref_val bv, uint64_t bi)
{
    int an = ref_isnan(dt, av), bn = ref_isnan(dt, bv);
    if (an || bn) return (an && bn) ? ai < bi : an;
    int c = cmp_val(dt, av, bv);
    if (c != 0) return want_max ? c > 0 : c < 0;
    return ai < bi;
}

uint64_t ref_argext(redscan_dtype dt, int want_max, const void *in, size_t n)
{
    uint64_t best = 0;
    ref_val bv = ref_load(dt, in, 0);
    for (size_t i = 1; i < n; i++) {
        ref_val v = ref_load(dt, in, i);
        if (ref_before(dt, want_max, v, i, bv, best)) {
            best = i;
            bv = v;
        }
    }
    return best;
}

/* qsort has no context argument: the comparator reads the array and the order from here. Thread-local, so that
 * threads may compute references at once (tests/test_stress.c calls ref_topk from every worker thread). */
static _Thread_local struct {
    redscan_dtype dt;
    int want_max;
    const void *in;
} g_sort;

static int topk_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    ref_val av = ref_load(g_sort.dt, g_sort.in, a), bv = ref_load(g_sort.dt, g_sort.in, b);
    if (a == b) return 0;
    return ref_before(g_sort.dt, g_sort.want_max, av, a, bv, b) ? -1 : 1;
}

void ref_topk(redscan_dtype dt, int largest, const void *in, size_t n, size_t k, void *values, uint64_t *indices)
{
    /* Small n: sort everything (the obvious reference). Large n: keep the best k in a sorted array while
     * scanning once (insertion; most elements fail the comparison with the current k-th). Both are exact:
     * the order is strict and total. */
    uint64_t *idx;
    size_t m;
    g_sort.dt = dt;
    g_sort.want_max = largest != 0;
    g_sort.in = in;
    if (n <= 4096 || k == 0) {
        idx = (uint64_t *)malloc((n ? n : 1) * sizeof *idx);
        if (!idx) abort();
        for (size_t i = 0; i < n; i++) idx[i] = i;
        qsort(idx, n, sizeof *idx, topk_cmp);
    } else {
        idx = (uint64_t *)malloc(k * sizeof *idx);
        if (!idx) abort();
        m = 0;
        for (size_t i = 0; i < n; i++) {
            ref_val v = ref_load(dt, in, i);
            if (m == k && !ref_before(dt, largest != 0, v, i, ref_load(dt, in, idx[k - 1]), idx[k - 1])) continue;
            size_t pos = m < k ? m++ : k - 1;
            while (pos > 0 && ref_before(dt, largest != 0, v, i, ref_load(dt, in, idx[pos - 1]), idx[pos - 1])) {
                idx[pos] = idx[pos - 1];
                pos--;
            }
            idx[pos] = i;
        }
    }
    for (size_t i = 0; i < k; i++) {
        indices[i] = idx[i];
        ref_store(dt, values, i, ref_load(dt, in, idx[i]));
    }
    free(idx);
}

double ref_mean_exact(redscan_reduce_algo algo, redscan_dtype dt, const void *in, size_t n)
{
    if (ref_is_float(dt)) {
        if (algo == REDSCAN_REDUCE_AUTO) algo = REDSCAN_REDUCE_COARSENED;
        ref_val s = ref_reduce_emulate(algo, REDSCAN_SUM, dt, REDSCAN_FLOAT64, in, n);
        return s.f64 / (double)n;
    }
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        ref_val v = ref_load(dt, in, i);
        s += (uint64_t)int_value(dt, v); /* sign- or zero-extended to 64 bits, wrap-around */
    }
    if (ref_is_signed(dt)) return (double)(int64_t)s / (double)n;
    return (double)s / (double)n;
}
