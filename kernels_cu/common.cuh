/* Common definitions for every redscan CUDA kernel file. Twin: kernels_cl/common.clh.
 *
 * The OpenCL side builds one program per (input dtype, output dtype, op) with -D options; here the same
 * combinations are template instantiations, chosen at run time by rs_dispatch() below:
 *   IN_T   input element type          T      accumulator / output type
 *   UT     unsigned type of T's width (integer wrap-around is computed on it)
 *   Op     a functor struct per op:    Op::identity(), Op::combine(a, b)  (a covers earlier indices)
 *   rs_load<T>(p, i)                   element i of an IN_T array converted to T
 * Order of combination and identities: docs/ALGORITHMS.md.
 *
 * No contraction: float sums and products go through __fadd_rn / __dadd_rn / __fmul_rn / __dmul_rn, which
 * the compiler never fuses into an FMA (the library is also compiled with -fmad=false). */
#ifndef REDSCAN_KERNELS_CU_COMMON_CUH
#define REDSCAN_KERNELS_CU_COMMON_CUH

#include <cuda_runtime.h>

#define RS_GROUP 256

/* redscan_dtype codes */
#define RS_INT32 1
#define RS_UINT32 2
#define RS_INT64 3
#define RS_UINT64 4
#define RS_FLOAT32 5
#define RS_FLOAT64 6
/* redscan_op codes */
#define RS_SUM 0
#define RS_PROD 1
#define RS_MIN 2
#define RS_MAX 3

typedef unsigned long long rs_u64;

/* ---- element types ---- */
template <typename T> struct rs_type_info;
template <> struct rs_type_info<int> {
    typedef unsigned int UT;
    static const bool is_float = false;
    static __device__ __forceinline__ int max_value() { return 2147483647; }
    static __device__ __forceinline__ int min_value() { return -2147483647 - 1; }
};
template <> struct rs_type_info<unsigned int> {
    typedef unsigned int UT;
    static const bool is_float = false;
    static __device__ __forceinline__ unsigned int max_value() { return 0xffffffffu; }
    static __device__ __forceinline__ unsigned int min_value() { return 0u; }
};
template <> struct rs_type_info<long long> {
    typedef unsigned long long UT;
    static const bool is_float = false;
    static __device__ __forceinline__ long long max_value() { return 9223372036854775807LL; }
    static __device__ __forceinline__ long long min_value() { return -9223372036854775807LL - 1; }
};
template <> struct rs_type_info<unsigned long long> {
    typedef unsigned long long UT;
    static const bool is_float = false;
    static __device__ __forceinline__ unsigned long long max_value() { return 0xffffffffffffffffull; }
    static __device__ __forceinline__ unsigned long long min_value() { return 0ull; }
};
template <> struct rs_type_info<float> {
    typedef unsigned int UT;
    static const bool is_float = true;
    static __device__ __forceinline__ float max_value() { return __int_as_float(0x7f800000); }  /* +inf */
    static __device__ __forceinline__ float min_value() { return __int_as_float((int)0xff800000u); } /* -inf */
};
template <> struct rs_type_info<double> {
    typedef unsigned long long UT;
    static const bool is_float = true;
    static __device__ __forceinline__ double max_value() { return __longlong_as_double(0x7ff0000000000000LL); }
    static __device__ __forceinline__ double min_value()
    {
        return __longlong_as_double((long long)0xfff0000000000000ULL);
    }
};

/* NaN test that the compiler may not fold away (the library is never built with relaxed math): only NaN compares unequal to itself. */
template <typename T> __device__ __forceinline__ bool rs_isnan(T x)
{
    return rs_type_info<T>::is_float ? (x != x) : false;
}

/* RS_LOAD(p, i) of common.clh: the element converted to T (exact for every accepted widening). */
template <typename T, typename X> __device__ __forceinline__ T rs_load(const X *p, rs_u64 i)
{
    return (T)p[i];
}

/* ---- shared-memory access to a thread's N contiguous values ----
 * Reads / writes p[0..N-1] with 16-byte (or N-element, if smaller) vector accesses: the same values, fewer
 * shared-memory wavefronts than N scalar accesses at a stride of N elements across the warp (which conflict
 * N-way in the banks). p must be aligned to the vector (shared arrays are declared __align__(16), and the
 * per-thread offsets used are multiples of the vector). Nothing about the order of combination changes. */
template <unsigned W, typename T> struct alignas(W * sizeof(T)) rs_vecn {
    T v[W];
};
template <unsigned N, typename T> struct rs_vec_width {
    static const unsigned per16 = 16 / sizeof(T);
    static const unsigned value = per16 < N ? per16 : N;
};
template <unsigned N, typename T> __device__ __forceinline__ void rs_shared_read(const T *p, T (&x)[N])
{
    const unsigned W = rs_vec_width<N, T>::value;
    typedef rs_vecn<W, T> V;
#pragma unroll
    for (unsigned i = 0; i < N / W; i++) {
        const V v = reinterpret_cast<const V *>(p)[i];
#pragma unroll
        for (unsigned j = 0; j < W; j++) x[i * W + j] = v.v[j];
    }
}
template <unsigned N, typename T> __device__ __forceinline__ void rs_shared_write(T *p, const T (&x)[N])
{
    const unsigned W = rs_vec_width<N, T>::value;
    typedef rs_vecn<W, T> V;
#pragma unroll
    for (unsigned i = 0; i < N / W; i++) {
        V v;
#pragma unroll
        for (unsigned j = 0; j < W; j++) v.v[j] = x[i * W + j];
        reinterpret_cast<V *>(p)[i] = v;
    }
}

/* ---- operators: identity and combine (a covers earlier indices) ---- */
template <typename T> __device__ __forceinline__ T rs_add(T a, T b)
{
    typedef typename rs_type_info<T>::UT UT;
    return (T)((UT)a + (UT)b); /* integers wrap */
}
template <> __device__ __forceinline__ float rs_add<float>(float a, float b) { return __fadd_rn(a, b); }
template <> __device__ __forceinline__ double rs_add<double>(double a, double b) { return __dadd_rn(a, b); }

template <typename T> __device__ __forceinline__ T rs_mul(T a, T b)
{
    typedef typename rs_type_info<T>::UT UT;
    return (T)((UT)a * (UT)b); /* integers wrap */
}
template <> __device__ __forceinline__ float rs_mul<float>(float a, float b) { return __fmul_rn(a, b); }
template <> __device__ __forceinline__ double rs_mul<double>(double a, double b) { return __dmul_rn(a, b); }

template <typename T> struct rs_op_sum {
    typedef T type;
    static const int code = RS_SUM;
    /* float: -0.0 (-0.0 + x == x for every x, +0.0 included) */
    static __device__ __forceinline__ T identity() { return rs_type_info<T>::is_float ? (T)(-0.0) : (T)0; }
    static __device__ __forceinline__ T combine(T a, T b) { return rs_add<T>(a, b); }
};
template <typename T> struct rs_op_prod {
    typedef T type;
    static const int code = RS_PROD;
    static __device__ __forceinline__ T identity() { return (T)1; }
    static __device__ __forceinline__ T combine(T a, T b) { return rs_mul<T>(a, b); }
};
/* Ties keep the left (earlier) operand; the first NaN in combination order propagates. */
template <typename T> struct rs_op_min {
    typedef T type;
    static const int code = RS_MIN;
    static __device__ __forceinline__ T identity() { return rs_type_info<T>::max_value(); }
    static __device__ __forceinline__ T combine(T a, T b)
    {
        if (rs_isnan(a)) return a;
        if (rs_isnan(b)) return b;
        return (b < a) ? b : a;
    }
};
template <typename T> struct rs_op_max {
    typedef T type;
    static const int code = RS_MAX;
    static __device__ __forceinline__ T identity() { return rs_type_info<T>::min_value(); }
    static __device__ __forceinline__ T combine(T a, T b)
    {
        if (rs_isnan(a)) return a;
        if (rs_isnan(b)) return b;
        return (b > a) ? b : a;
    }
};

/* What a scan or a reduction pass stores: float sums and products store the canonical quiet NaN for any NaN (twin of RS_OUT in
 * common.clh, which says why). */
template <typename T, class Op> struct rs_canon {
    static __device__ __forceinline__ T out(T x) { return x; }
};
template <> struct rs_canon<float, rs_op_sum<float>> {
    static __device__ __forceinline__ float out(float x) { return x != x ? __int_as_float(0x7fc00000) : x; }
};
template <> struct rs_canon<float, rs_op_prod<float>> {
    static __device__ __forceinline__ float out(float x) { return x != x ? __int_as_float(0x7fc00000) : x; }
};
template <> struct rs_canon<double, rs_op_sum<double>> {
    static __device__ __forceinline__ double out(double x)
    {
        return x != x ? __longlong_as_double(0x7ff8000000000000ll) : x;
    }
};
template <> struct rs_canon<double, rs_op_prod<double>> {
    static __device__ __forceinline__ double out(double x)
    {
        return x != x ? __longlong_as_double(0x7ff8000000000000ll) : x;
    }
};
template <class Op, typename T> __device__ __forceinline__ T rs_out(T x) { return rs_canon<T, Op>::out(x); }

/* ---- strict total order used by argmin/argmax and top-k: "a before b" ----
 * Valid before padding; NaN before every number; lower index among NaNs and among equal values;
 * else the smaller (OP == RS_MIN) or larger (otherwise) value. Applies to IN_T values. */
template <typename X, int OP>
__device__ __forceinline__ int rs_before(X av, rs_u64 ai, X bv, rs_u64 bi, rs_u64 n)
{
    const int a_valid = ai < n, b_valid = bi < n;
    if (a_valid != b_valid) return a_valid;
    if (!a_valid) return ai < bi;
    const int an = rs_isnan(av), bn = rs_isnan(bv);
    if (an || bn) return an && bn ? ai < bi : an;
    if (OP == RS_MIN) {
        if (av != bv) return av < bv;
    } else {
        if (av != bv) return av > bv;
    }
    return ai < bi;
}

/* ---- host-side dispatch: (input dtype, output dtype, op) -> template instantiation ----
 * f is called as f(rs_tag<IN_T>(), rs_tag<T>(), rs_op_tag<OpTemplate>()); inside, use
 *   typedef typename decltype(in_tag)::type IN_T; ... typedef typename decltype(op_tag)::template apply<T> Op;
 * Accepted pairs: same type, or the widenings INT32->INT64, UINT32->UINT64, FLOAT32->FLOAT64. */
template <typename X> struct rs_tag {
    typedef X type;
};
template <template <typename> class O> struct rs_op_tag {
    template <typename T> using apply = O<T>;
};

template <template <typename> class O, class F>
static cudaError_t rs_dispatch_types(int in_dtype, int out_dtype, F &f)
{
    const rs_op_tag<O> o;
#define RS_PAIR(I, OU, IT, OT) \
    if (in_dtype == I && out_dtype == OU) return f(rs_tag<IT>(), rs_tag<OT>(), o);
    RS_PAIR(RS_INT32, RS_INT32, int, int)
    RS_PAIR(RS_INT32, RS_INT64, int, long long)
    RS_PAIR(RS_UINT32, RS_UINT32, unsigned int, unsigned int)
    RS_PAIR(RS_UINT32, RS_UINT64, unsigned int, unsigned long long)
    RS_PAIR(RS_INT64, RS_INT64, long long, long long)
    RS_PAIR(RS_UINT64, RS_UINT64, unsigned long long, unsigned long long)
    RS_PAIR(RS_FLOAT32, RS_FLOAT32, float, float)
    RS_PAIR(RS_FLOAT32, RS_FLOAT64, float, double)
    RS_PAIR(RS_FLOAT64, RS_FLOAT64, double, double)
#undef RS_PAIR
    return cudaErrorInvalidValue;
}

template <class F> static cudaError_t rs_dispatch(int in_dtype, int out_dtype, int op, F f)
{
    switch (op) {
    case RS_SUM: return rs_dispatch_types<rs_op_sum>(in_dtype, out_dtype, f);
    case RS_PROD: return rs_dispatch_types<rs_op_prod>(in_dtype, out_dtype, f);
    case RS_MIN: return rs_dispatch_types<rs_op_min>(in_dtype, out_dtype, f);
    case RS_MAX: return rs_dispatch_types<rs_op_max>(in_dtype, out_dtype, f);
    }
    return cudaErrorInvalidValue;
}

/* One dtype (argmin/argmax, top-k): f(rs_tag<IN_T>()). */
template <class F> static cudaError_t rs_dispatch_dtype(int dtype, F f)
{
    switch (dtype) {
    case RS_INT32: return f(rs_tag<int>());
    case RS_UINT32: return f(rs_tag<unsigned int>());
    case RS_INT64: return f(rs_tag<long long>());
    case RS_UINT64: return f(rs_tag<unsigned long long>());
    case RS_FLOAT32: return f(rs_tag<float>());
    case RS_FLOAT64: return f(rs_tag<double>());
    }
    return cudaErrorInvalidValue;
}

/* After a launch: the launch error, if any (configuration errors surface here, faults at the next sync). */
static inline cudaError_t rs_launched(void)
{
    return cudaGetLastError();
}

#endif /* REDSCAN_KERNELS_CU_COMMON_CUH */
