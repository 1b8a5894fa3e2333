/* Common definitions for every redscan CUDA kernel file. Twin: kernels_cl/common.clh.
 *
 * The OpenCL side builds one program per (input dtype, output dtype, op) with -D options; here the same
 * combinations are template instantiations, chosen at run time by rs_dispatch() below:
 *   IN_T   input element type          T      accumulator / output type
 *   UT     unsigned type of T's width (integer wrap-around is computed on it)
 *   Op     a functor struct per op:    Op::identity(), Op::combine(a, b)  (a covers earlier indices)
 *   rs_load<T>(p, i)                   element i of an IN_T array converted to T
 *   rs_put(out, i, v)                  out[i] = v, v stored in the output type (a narrow output: rounded once)
 * Order of combination and identities: docs/ALGORITHMS.md.
 *
 * No contraction: float sums and products go through __fadd_rn / __dadd_rn / __fmul_rn / __dmul_rn, which
 * the compiler never fuses into an FMA (the library is also compiled with -fmad=false). */
#ifndef REDSCAN_KERNELS_CU_COMMON_CUH
#define REDSCAN_KERNELS_CU_COMMON_CUH

#include <cuda_runtime.h>

#include <type_traits>

#define RS_GROUP 256
/* A kernel's __launch_bounds__ blocks an SM, capped at what the architecture being compiled holds of RS_GROUP threads
 * (sm_75: 1024 threads an SM; sm_86, sm_87, sm_89, sm_12x: 1536; sm_70, sm_80, sm_90 and sm_100: 2048). ptxas
 * ignores a larger bound with a warning, one per instance: CI's sm_75 check build gave 371. The bounds that were
 * measured (sm_90) are unchanged. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define RS_SM_BLOCKS 4
#elif defined(__CUDA_ARCH__) &&                                                                                  \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define RS_SM_BLOCKS 6
#else
#define RS_SM_BLOCKS 8
#endif
#define RS_MIN_BLOCKS(n) ((n) < RS_SM_BLOCKS ? (n) : RS_SM_BLOCKS)

/* redscan_dtype codes */
#define RS_INT32 1
#define RS_UINT32 2
#define RS_INT64 3
#define RS_UINT64 4
#define RS_FLOAT32 5
#define RS_FLOAT64 6
#define RS_INT8 7
#define RS_UINT8 8
#define RS_INT16 9
#define RS_UINT16 10
#define RS_FLOAT16 11
#define RS_BFLOAT16 12
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

/* ---- narrow types (docs/SEMANTICS.md, "Narrow types"; twin: the narrow part of common.clh) ----
 * int8 / uint8 / int16 / uint16 are signed char / unsigned char / short / unsigned short. float16 and bfloat16 are
 * stored as their bits (rs_f16, rs_bf16) and compared, converted and combined as their float32 value: the
 * conversions below are api/src/narrow.c's, bit for bit (exact widening, NaN payloads kept; round to nearest even
 * once on store). cuda_fp16.h's conversions are not used: the documented NaN rules are the library's own. */
__device__ __forceinline__ float rs_half_to_float(unsigned short h)
{
    /* The half's exponent and mantissa shifted into float32's field positions read as a float32 2^112 times too
     * small, a subnormal half as a float32 subnormal (m * 2^-149): one exact multiply (no FTZ in this build)
     * rescales both, with no branch and no integer-to-float conversion (float16 reduce at 2^28 on the H100: the
     * three-way form cost about a third of the copy speed). Infinity and NaN keep their payload bits. */
    const unsigned u = h & 0x7fffu, sign = (unsigned)(h & 0x8000u) << 16;
    const unsigned bits = u >= 0x7c00u ? 0x7f800000u | (u << 13) : __float_as_uint(__uint_as_float(u << 13) * 0x1p112f);
    return __uint_as_float(sign | bits);
}
__device__ __forceinline__ unsigned short rs_float_to_half(float f)
{
    const unsigned u = __float_as_uint(f), x = u & 0x7fffffffu;
    const unsigned sign = (u >> 16) & 0x8000u;
    if (x > 0x7f800000u) { /* NaN: the top 10 payload bits, the quiet bit alone when they are zero */
        const unsigned payload = (x >> 13) & 0x3ffu;
        return (unsigned short)(sign | 0x7c00u | (payload ? payload : 0x200u));
    }
    /* Everything else is IEEE round to nearest even, overflow to infinity, subnormals kept: the hardware's
     * cvt.rn.f16.f32 (not .ftz) computes exactly the rounding of api/src/narrow.c in one instruction. */
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float rs_bfloat16_to_float(unsigned short b) { return __uint_as_float((unsigned)b << 16); }
__device__ __forceinline__ unsigned short rs_float_to_bfloat16(float f)
{
    const unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) { /* NaN: truncated, the quiet bit set if that left no payload */
        const unsigned t = u >> 16;
        return (unsigned short)((t & 0x7fu) ? t : (t | 0x40u));
    }
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* float16 / bfloat16 as stored: the bits. Conversion to float is exact; comparisons are the float32 values' (so a
 * NaN is unequal to itself, as rs_isnan needs). */
struct rs_f16 {
    unsigned short bits;
    __device__ __forceinline__ operator float() const { return rs_half_to_float(bits); }
};
struct rs_bf16 {
    unsigned short bits;
    __device__ __forceinline__ operator float() const { return rs_bfloat16_to_float(bits); }
};
#define RS_NARROW_FLOAT_OPS(N)                                                                                      \
    __device__ __forceinline__ bool operator<(N a, N b) { return (float)a < (float)b; }                            \
    __device__ __forceinline__ bool operator>(N a, N b) { return (float)a > (float)b; }                            \
    __device__ __forceinline__ bool operator==(N a, N b) { return (float)a == (float)b; }                          \
    __device__ __forceinline__ bool operator!=(N a, N b) { return (float)a != (float)b; }
RS_NARROW_FLOAT_OPS(rs_f16)
RS_NARROW_FLOAT_OPS(rs_bf16)
#undef RS_NARROW_FLOAT_OPS

/* The narrow types' limits, for argmin / argmax and top-k (their padding value: rs_topk_worst). */
template <> struct rs_type_info<signed char> {
    static const bool is_float = false;
    static __device__ __forceinline__ signed char max_value() { return 127; }
    static __device__ __forceinline__ signed char min_value() { return -128; }
};
template <> struct rs_type_info<unsigned char> {
    static const bool is_float = false;
    static __device__ __forceinline__ unsigned char max_value() { return 255; }
    static __device__ __forceinline__ unsigned char min_value() { return 0; }
};
template <> struct rs_type_info<short> {
    static const bool is_float = false;
    static __device__ __forceinline__ short max_value() { return 32767; }
    static __device__ __forceinline__ short min_value() { return -32768; }
};
template <> struct rs_type_info<unsigned short> {
    static const bool is_float = false;
    static __device__ __forceinline__ unsigned short max_value() { return 65535; }
    static __device__ __forceinline__ unsigned short min_value() { return 0; }
};
template <> struct rs_type_info<rs_f16> {
    static const bool is_float = true;
    static __device__ __forceinline__ rs_f16 max_value() { return rs_f16{0x7c00}; } /* +inf */
    static __device__ __forceinline__ rs_f16 min_value() { return rs_f16{0xfc00}; } /* -inf */
};
template <> struct rs_type_info<rs_bf16> {
    static const bool is_float = true;
    static __device__ __forceinline__ rs_bf16 max_value() { return rs_bf16{0x7f80}; }
    static __device__ __forceinline__ rs_bf16 min_value() { return rs_bf16{0xff80}; }
};

/* NaN test that the compiler may not fold away (the library is never built with relaxed math): only NaN compares unequal to itself. */
template <typename T> __device__ __forceinline__ bool rs_isnan(T x)
{
    return rs_type_info<T>::is_float ? (x != x) : false;
}

/* RS_LOAD(p, i) of common.clh: the element converted to T (exact for every accepted widening; a float16 / bfloat16
 * through its float value). */
template <typename T, typename X> __device__ __forceinline__ T rs_load(const X *p, rs_u64 i)
{
    return (T)p[i];
}

/* ---- the scans' narrow input and output, chosen at run time ----
 * The scan kernels are instantiated once per compute type T for all of its narrow inputs and outputs (an int8 or
 * int16 input, an int8, int16 or int32 output, for T = int), not once per (input, output) pair: the single-pass and
 * grid scans are the library's largest instantiations (nvcc time). The element type is a kernel argument, uniform
 * across the grid, so the branch costs no divergence. rs_nmark<T> is the dispatch's input type for these.
 * kind 0: int8 / uint8 / float16; kind 1: int16 / uint16 / bfloat16 (the one of T's kind); -1 (output): T itself. */
template <typename T> struct rs_nmark {};
template <typename T> struct rs_nsrc {
    const void *p;
    int kind;
};
template <typename T> struct rs_ndst {
    void *p;
    int kind;
};
/* The two narrow storage types of T's kind, and T stored into them (rounded once, or the low bits). A 64-bit T
 * only ever has a wide output (api/src/narrow.c: a narrow output combines in 32 bits); its narrow store is the same
 * code, never reached. */
template <typename T> struct rs_narrow_of;
template <typename T> struct rs_narrow_int {
    /* the stored bits of v as the narrow type of kind; its size in bytes */
    static __device__ __forceinline__ unsigned bits(int kind, T v)
    {
        return kind == 0 ? (unsigned)(unsigned char)v : (unsigned)(unsigned short)v;
    }
    static __device__ __forceinline__ unsigned size(int kind) { return kind == 0 ? 1u : 2u; }
    static __device__ __forceinline__ void put(void *p, int kind, rs_u64 i, T v)
    {
        /* conversion to an unsigned type keeps the low bits (defined); the signed type is the same bits */
        if (kind == 0) static_cast<unsigned char *>(p)[i] = (unsigned char)v;
        else static_cast<unsigned short *>(p)[i] = (unsigned short)v;
    }
};
template <> struct rs_narrow_of<int> : rs_narrow_int<int> {
    typedef signed char A;
    typedef short B;
};
template <> struct rs_narrow_of<long long> : rs_narrow_int<long long> {
    typedef signed char A;
    typedef short B;
};
template <> struct rs_narrow_of<unsigned int> : rs_narrow_int<unsigned int> {
    typedef unsigned char A;
    typedef unsigned short B;
};
template <> struct rs_narrow_of<unsigned long long> : rs_narrow_int<unsigned long long> {
    typedef unsigned char A;
    typedef unsigned short B;
};
template <typename T> struct rs_narrow_float {
    typedef rs_f16 A;
    typedef rs_bf16 B;
    static __device__ __forceinline__ unsigned bits(int kind, T v)
    {
        const float f = (float)v;
        return kind == 0 ? rs_float_to_half(f) : rs_float_to_bfloat16(f);
    }
    static __device__ __forceinline__ unsigned size(int) { return 2u; }
    static __device__ __forceinline__ void put(void *p, int kind, rs_u64 i, T v)
    {
        const float f = (float)v;
        static_cast<unsigned short *>(p)[i] = kind == 0 ? rs_float_to_half(f) : rs_float_to_bfloat16(f);
    }
};
template <> struct rs_narrow_of<float> : rs_narrow_float<float> {};
template <> struct rs_narrow_of<double> : rs_narrow_float<double> {};

template <typename T> __device__ __forceinline__ T rs_load(const rs_nsrc<T> s, rs_u64 i)
{
    typedef typename rs_narrow_of<T>::A A;
    typedef typename rs_narrow_of<T>::B B;
    return s.kind == 0 ? (T) static_cast<const A *>(s.p)[i] : (T) static_cast<const B *>(s.p)[i];
}
/* out[i] = v: RS_STORE of common.clh */
template <typename T> __device__ __forceinline__ void rs_put(T *out, rs_u64 i, T v) { out[i] = v; }
template <typename T> __device__ __forceinline__ void rs_put(const rs_ndst<T> d, rs_u64 i, T v)
{
    if (d.kind < 0) static_cast<T *>(d.p)[i] = v;
    else rs_narrow_of<T>::put(d.p, d.kind, i, v);
}

static inline int rs_narrow_kind(int dtype)
{
    return dtype == RS_INT8 || dtype == RS_UINT8 || dtype == RS_FLOAT16 ? 0 : 1;
}
/* The scan launchers' kernel arguments for the dispatch's input type X: a pointer, or rs_nsrc / rs_ndst. */
template <typename X> struct rs_scan_src {
    typedef const X *type;
    static type make(const void *p, int) { return static_cast<type>(p); }
};
template <typename T> struct rs_scan_src<rs_nmark<T>> {
    typedef rs_nsrc<T> type;
    static type make(const void *p, int dtype) { return type{p, rs_narrow_kind(dtype)}; }
};
template <typename X, typename T> struct rs_scan_dst {
    typedef T *type;
    static type make(void *p, int) { return static_cast<type>(p); }
};
template <typename T> struct rs_scan_dst<rs_nmark<T>, T> {
    typedef rs_ndst<T> type;
    static type make(void *p, int dtype) { return type{p, dtype >= RS_INT8 ? rs_narrow_kind(dtype) : -1}; }
};
template <typename X> struct rs_is_nmark {
    static const bool value = false;
};
template <typename T> struct rs_is_nmark<rs_nmark<T>> {
    static const bool value = true;
};

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

/* ---- global to shared memory without passing through registers (cp.async, sm_80 and later) ----
 * Any number of copies can be in flight a thread at no register cost; rs_copy_async_wait waits for this thread's. */
__device__ __forceinline__ void rs_copy16_async(void *dst_shared, const void *src)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst_shared)),
                 "l"(src));
#else
    *static_cast<uint4 *>(dst_shared) = *static_cast<const uint4 *>(src);
#endif
}
/* B = 4 or 8 bytes (aligned to B) from global to shared memory, as rs_copy16_async. (cp.async of 16 bytes with a
 * smaller source size reads only those bytes, but compute-sanitizer's memcheck reports the 16 as read.) */
template <unsigned B> __device__ __forceinline__ void rs_copy_async(void *dst_shared, const void *src)
{
    static_assert(B == 4 || B == 8, "cp.async.ca: 4, 8 or 16 bytes (16: rs_copy16_async)");
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst_shared)),
                 "l"(src), "n"(B));
#else
    if constexpr (B == 4)
        *static_cast<unsigned *>(dst_shared) = *static_cast<const unsigned *>(src);
    else
        *static_cast<uint2 *>(dst_shared) = *static_cast<const uint2 *>(src);
#endif
}
/* Values read from a T array as they are, of 4 or 8 bytes: rs_copy_async can move them (a narrow or widened input is
 * converted on the way, through registers) */
template <typename Src, typename T> struct rs_copyable {
    static constexpr bool value = std::is_same<Src, const T *>::value && (sizeof(T) == 4 || sizeof(T) == 8);
};
/* The staging loops' shape: values g + k of src for k = first, first + S, ... below m, N loads in flight a thread
 * (issued together, then stored), each handed to put(k0, j S, value) with k = k0 + j S (the caller places it in
 * shared memory; given apart, the constant j S folds into the store's address as before this helper). A plain loop
 * would wait for each load before issuing the next. */
template <unsigned N, unsigned S, typename T, typename Src, typename Put>
__device__ __forceinline__ void rs_load_in_flight(Src src, rs_u64 g, unsigned first, unsigned m, Put put)
{
    for (unsigned k0 = first; k0 < m; k0 += N * S) {
        T v[N];
#pragma unroll
        for (unsigned j = 0; j < N; j++)
            if (k0 + j * S < m) v[j] = rs_load<T>(src, g + k0 + j * S);
#pragma unroll
        for (unsigned j = 0; j < N; j++)
            if (k0 + j * S < m) put(k0, j * S, v[j]);
    }
}
/* every cp.async of this thread has landed */
__device__ __forceinline__ void rs_copy_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
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

/* ---- int8 / uint8 four to a word (SWAR), CUDA-only ----
 * Sum, min and max of 1-byte integers combined lane by lane in 32-bit words, for the int8 reduction and scan
 * (reduce_coarsened.cu, scan_single_pass.cu). Integer ops give the same bits in every order, so these compute the
 * values of the element-by-element kernels (and of the OpenCL twins) with fewer instructions per value. T is the
 * 32- or 64-bit type the bytes combine in; its signedness is the bytes'. */
template <typename T, class Op> struct rs_swar {
    static const bool sgn = (T)-1 < (T)0;
    /* the identity as a byte: 0 for sums, the type's largest (min) or smallest (max) value */
    static __device__ __forceinline__ unsigned id()
    {
        return Op::code == RS_SUM ? 0u : Op::code == RS_MIN ? (sgn ? 0x7fu : 0xffu) : (sgn ? 0x80u : 0u);
    }
    /* a and b combined byte by byte (a sum wraps within its byte) */
    static __device__ __forceinline__ unsigned op(unsigned a, unsigned b)
    {
        if (Op::code == RS_SUM) return ((a & 0x7f7f7f7fu) + (b & 0x7f7f7f7fu)) ^ ((a ^ b) & 0x80808080u);
        if (Op::code == RS_MIN) return sgn ? __vmins4(a, b) : __vminu4(a, b);
        return sgn ? __vmaxs4(a, b) : __vmaxu4(a, b);
    }
    /* byte k = bytes 0..k of w combined (byte 3: all four) */
    static __device__ __forceinline__ unsigned prefix(unsigned w)
    {
        w = op(w, (w << 8) | id());
        return op(w, (w << 16) | (id() * 0x0101u));
    }
    /* the byte b as T */
    static __device__ __forceinline__ T value(unsigned b) { return sgn ? (T)(signed char)(b & 0xffu) : (T)(b & 0xffu); }
};

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
 * Accepted pairs: same type, or the widenings INT32->INT64, UINT32->UINT64, FLOAT32->FLOAT64, and a narrow input
 * with T = the type it combines in: its output's, or for a narrow output the 32-bit type of its kind (a narrow
 * output is stored from T by the caller: reduce_store_out, or the scans' rs_ndst). Narrow inputs come as their
 * storage type (SCAN = false: the reductions, one instance per pair) or as rs_nmark<T> (SCAN = true: the scans, one
 * instance per T, the element type a kernel argument). */
template <typename X> struct rs_tag {
    typedef X type;
};
template <template <typename> class O> struct rs_op_tag {
    template <typename T> using apply = O<T>;
};

/* T's dtype for a narrow input: the output's, or for a narrow output the 32-bit type of its kind */
static inline int rs_narrow_compute(int out_dtype)
{
    switch (out_dtype) {
    case RS_INT8:
    case RS_INT16: return RS_INT32;
    case RS_UINT8:
    case RS_UINT16: return RS_UINT32;
    case RS_FLOAT16:
    case RS_BFLOAT16: return RS_FLOAT32;
    }
    return out_dtype;
}

template <bool SCAN, class F, class O, typename T> static cudaError_t rs_narrow_pair(int in_dtype, F &f, const O &o)
{
    typedef rs_narrow_of<T> N;
    if constexpr (SCAN) {
        (void)in_dtype;
        return f(rs_tag<rs_nmark<T>>(), rs_tag<T>(), o);
    } else {
        if (rs_narrow_kind(in_dtype) == 0) return f(rs_tag<typename N::A>(), rs_tag<T>(), o);
        return f(rs_tag<typename N::B>(), rs_tag<T>(), o);
    }
}

template <bool SCAN, template <typename> class O, class F>
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
    const int c = rs_narrow_compute(out_dtype);
    switch (in_dtype) {
    case RS_INT8:
    case RS_INT16:
        if (c == RS_INT32) return rs_narrow_pair<SCAN, F, rs_op_tag<O>, int>(in_dtype, f, o);
        if (c == RS_INT64) return rs_narrow_pair<SCAN, F, rs_op_tag<O>, long long>(in_dtype, f, o);
        break;
    case RS_UINT8:
    case RS_UINT16:
        if (c == RS_UINT32) return rs_narrow_pair<SCAN, F, rs_op_tag<O>, unsigned int>(in_dtype, f, o);
        if (c == RS_UINT64) return rs_narrow_pair<SCAN, F, rs_op_tag<O>, unsigned long long>(in_dtype, f, o);
        break;
    case RS_FLOAT16:
    case RS_BFLOAT16:
        if (c == RS_FLOAT32) return rs_narrow_pair<SCAN, F, rs_op_tag<O>, float>(in_dtype, f, o);
        if (c == RS_FLOAT64) return rs_narrow_pair<SCAN, F, rs_op_tag<O>, double>(in_dtype, f, o);
        break;
    }
    return cudaErrorInvalidValue;
}

template <bool SCAN, class F> static cudaError_t rs_dispatch_ops(int in_dtype, int out_dtype, int op, F &f)
{
    switch (op) {
    case RS_SUM: return rs_dispatch_types<SCAN, rs_op_sum>(in_dtype, out_dtype, f);
    case RS_PROD: return rs_dispatch_types<SCAN, rs_op_prod>(in_dtype, out_dtype, f);
    case RS_MIN: return rs_dispatch_types<SCAN, rs_op_min>(in_dtype, out_dtype, f);
    case RS_MAX: return rs_dispatch_types<SCAN, rs_op_max>(in_dtype, out_dtype, f);
    }
    return cudaErrorInvalidValue;
}
/* The reductions: a narrow input as its storage type. */
template <class F> static cudaError_t rs_dispatch(int in_dtype, int out_dtype, int op, F f)
{
    return rs_dispatch_ops<false>(in_dtype, out_dtype, op, f);
}
/* The scans: a narrow input as rs_nmark<T> (rs_scan_src / rs_scan_dst make the kernel arguments). */
template <class F> static cudaError_t rs_dispatch_scan(int in_dtype, int out_dtype, int op, F f)
{
    return rs_dispatch_ops<true>(in_dtype, out_dtype, op, f);
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
    case RS_INT8: return f(rs_tag<signed char>());
    case RS_UINT8: return f(rs_tag<unsigned char>());
    case RS_INT16: return f(rs_tag<short>());
    case RS_UINT16: return f(rs_tag<unsigned short>());
    case RS_FLOAT16: return f(rs_tag<rs_f16>());
    case RS_BFLOAT16: return f(rs_tag<rs_bf16>());
    }
    return cudaErrorInvalidValue;
}

/* After a launch: the launch error, if any (configuration errors surface here, faults at the next sync). */
static inline cudaError_t rs_launched(void)
{
    return cudaGetLastError();
}

/* The grid of a kernel whose blocks take fixed tiles (g, g + grid, ...), capped at the blocks of `threads` threads
 * (RS_GROUP unless the kernel says otherwise) the device holds at once. rs_cuda_grid_for's 8 per SM assume 32
 * registers a thread; a kernel with launch bounds of 6 blocks per SM ran its last quarter of blocks as a second wave
 * on a quarter of the device (seg_scan_short: 1056 blocks, 792 resident). Unknown occupancy leaves the grid as it
 * is. */
template <typename K>
static inline unsigned rs_resident_grid(K kernel, unsigned grid, size_t dynamic_shared = 0, int threads = RS_GROUP)
{
    int per_sm = 0, dev = 0, sms = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared) != cudaSuccess ||
        cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || per_sm <= 0 || sms <= 0) {
        (void)cudaGetLastError(); /* not the launch's error */
        return grid;
    }
    const unsigned cap = (unsigned)per_sm * (unsigned)sms;
    return grid < cap ? grid : cap;
}

#endif /* REDSCAN_KERNELS_CU_COMMON_CUH */
