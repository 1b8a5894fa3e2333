/* Element types and operators: sizes, names, identities, widenings (narrow types: narrow.c). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "backend.h"

size_t redscan_dtype_size(redscan_dtype dtype)
{
    switch (dtype) {
    case REDSCAN_INT32:
    case REDSCAN_UINT32:
    case REDSCAN_FLOAT32: return 4;
    case REDSCAN_INT64:
    case REDSCAN_UINT64:
    case REDSCAN_FLOAT64: return 8;
    case REDSCAN_INT8:
    case REDSCAN_UINT8: return 1;
    case REDSCAN_INT16:
    case REDSCAN_UINT16:
    case REDSCAN_FLOAT16:
    case REDSCAN_BFLOAT16: return 2;
    }
    return 0;
}

const char *redscan_dtype_name(redscan_dtype dtype)
{
    switch (dtype) {
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
    }
    return "unknown";
}

const char *redscan_op_name(redscan_op op)
{
    switch (op) {
    case REDSCAN_SUM: return "sum";
    case REDSCAN_PROD: return "prod";
    case REDSCAN_MIN: return "min";
    case REDSCAN_MAX: return "max";
    }
    return "unknown";
}

redscan_dtype rs_widening_of(redscan_dtype dtype)
{
    switch (dtype) {
    case REDSCAN_INT32: return REDSCAN_INT64;
    case REDSCAN_UINT32: return REDSCAN_UINT64;
    case REDSCAN_FLOAT32: return REDSCAN_FLOAT64;
    /* narrow types: the 64-bit one (mean accumulates in it; rs_widening_ok accepts the 32-bit one too) */
    case REDSCAN_INT8:
    case REDSCAN_INT16: return REDSCAN_INT64;
    case REDSCAN_UINT8:
    case REDSCAN_UINT16: return REDSCAN_UINT64;
    case REDSCAN_FLOAT16:
    case REDSCAN_BFLOAT16: return REDSCAN_FLOAT64;
    default: return (redscan_dtype)0;
    }
}

rs_scalar rs_identity(redscan_op op, redscan_dtype dtype)
{
    rs_scalar s;
    memset(&s, 0, sizeof s);
    switch (dtype) {
    case REDSCAN_INT32:
        s.i32 = op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT32_MAX : op == REDSCAN_MAX ? INT32_MIN : 0;
        break;
    case REDSCAN_UINT32:
        s.u32 = op == REDSCAN_PROD ? 1u : op == REDSCAN_MIN ? UINT32_MAX : 0u;
        break;
    case REDSCAN_INT64:
        s.i64 = op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT64_MAX : op == REDSCAN_MAX ? INT64_MIN : 0;
        break;
    case REDSCAN_UINT64:
        s.u64 = op == REDSCAN_PROD ? 1u : op == REDSCAN_MIN ? UINT64_MAX : 0u;
        break;
    case REDSCAN_FLOAT32:
        /* -0.0 is the exact additive identity (see docs/ALGORITHMS.md) */
        s.f32 = op == REDSCAN_PROD ? 1.0f : op == REDSCAN_MIN ? INFINITY : op == REDSCAN_MAX ? -INFINITY : -0.0f;
        break;
    case REDSCAN_FLOAT64:
        s.f64 = op == REDSCAN_PROD ? 1.0 : op == REDSCAN_MIN ? (double)INFINITY
              : op == REDSCAN_MAX ? -(double)INFINITY : -0.0;
        break;
    /* narrow types: the value in the storage type's bits */
    case REDSCAN_INT8:
        s.i8 = (int8_t)(op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT8_MAX : op == REDSCAN_MAX ? INT8_MIN : 0);
        break;
    case REDSCAN_UINT8: s.u8 = (uint8_t)(op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? UINT8_MAX : 0); break;
    case REDSCAN_INT16:
        s.i16 = (int16_t)(op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? INT16_MAX : op == REDSCAN_MAX ? INT16_MIN : 0);
        break;
    case REDSCAN_UINT16: s.u16 = (uint16_t)(op == REDSCAN_PROD ? 1 : op == REDSCAN_MIN ? UINT16_MAX : 0); break;
    case REDSCAN_FLOAT16:
        s.u16 = op == REDSCAN_PROD ? 0x3c00u : op == REDSCAN_MIN ? 0x7c00u : op == REDSCAN_MAX ? 0xfc00u : 0x8000u;
        break;
    case REDSCAN_BFLOAT16:
        s.u16 = op == REDSCAN_PROD ? 0x3f80u : op == REDSCAN_MIN ? 0x7f80u : op == REDSCAN_MAX ? 0xff80u : 0x8000u;
        break;
    }
    return s;
}

rs_scalar rs_empty_result(redscan_op op, redscan_dtype dtype)
{
    rs_scalar s = rs_identity(op, dtype);
    if (op == REDSCAN_SUM) memset(&s, 0, sizeof s);
    return s;
}
