/* Segmented reduction and argmin / argmax (docs/ALGORITHMS.md, "Segments"). Twin: kernels_cl/segmented.cl, whose
 * header explains the work decomposition; the same constants, slots, chunks and order of combination here.
 *
 * One warp per slot (one chunk of RS_SEG_TILE from the segment's start): lane j stands for the coarsened tile's
 * threads j + 32r (r = 0..7), folds their 16 elements (k outer, v inner, from the identity, identity past the chunk),
 * then levels s = 128, 64, 32 of the sequential-addressing tree combine the lane's rows (r with r + 4, r + 2, r + 1)
 * and s = 16 .. 1 go through warp shuffles: lane j < s combines its value with lane j + s's, exactly rs_tree_seq's
 * l[j] = l[j] (+) l[j+s] (the OpenCL twin does those five levels in local memory: same operands, same order).
 * Warps are independent here (no block barrier): a warp whose slot has no work skips to its next slot.
 *
 * Template instances stay lean: the reduction is dispatched with rs_dispatch_scan (one instance per compute type T
 * and op, a narrow input / output as a kernel argument, rs_nsrc / rs_ndst), levels > 0 read T partials; argmin /
 * argmax one instance per dtype, direction and level kind. */
#include <string.h>

#include "common.cuh"
#include "cu_launch.h"

#define RS_SEG_TILE 4096 /* RS_COARSE_TILE */
#define RS_SEG_K 4
#define RS_SEG_V 4
#define RS_SEG_LANES 32
#define RS_SEG_ROWS (RS_GROUP / RS_SEG_LANES)
#define RS_SEG_PAD (~0ull)

#define RS_SEG_DECREASING 1u /* RS_SEG_FAULT_* of api/src/backend.h */
#define RS_SEG_NEGATIVE 2u
#define RS_SEG_PAST_END 4u

__device__ __forceinline__ rs_u64 rs_seg_off(const void *p, int kind, rs_u64 s)
{
    if (kind == RS_INT32) return (rs_u64)(long long)static_cast<const int *>(p)[s];
    if (kind == RS_UINT32) return (rs_u64) static_cast<const unsigned *>(p)[s];
    if (kind == RS_INT64) return (rs_u64) static_cast<const long long *>(p)[s];
    return static_cast<const rs_u64 *>(p)[s];
}

__device__ __forceinline__ rs_u64 rs_seg_start(rs_u64 s, rs_u64 o, unsigned level)
{
    for (unsigned i = 0; i < level; i++) o = s + o / RS_SEG_TILE;
    return o;
}

__device__ __forceinline__ rs_u64 rs_seg_len(rs_u64 len, unsigned level)
{
    for (unsigned i = 0; i < level; i++) len = (len + RS_SEG_TILE - 1) / RS_SEG_TILE;
    return len;
}

__global__ void seg_check(const void *offsets, int kind, rs_u64 S, rs_u64 n, unsigned *flags, unsigned *sticky)
{
    for (rs_u64 s = blockIdx.x * (rs_u64)blockDim.x + threadIdx.x; s <= S; s += (rs_u64)gridDim.x * blockDim.x) {
        const rs_u64 o = rs_seg_off(offsets, kind, s);
        unsigned bad = 0;
        if ((kind == RS_INT32 || kind == RS_INT64) && (long long)o < 0) bad |= RS_SEG_NEGATIVE;
        if (s < S && o > rs_seg_off(offsets, kind, s + 1)) bad |= RS_SEG_DECREASING;
        if (s == S && o > n) bad |= RS_SEG_PAST_END;
        if (bad) {
            atomicOr(&flags[0], bad);
            atomicOr(&sticky[0], bad);
            atomicMin(&sticky[1], s < 0xffffffffull ? (unsigned)s : 0xffffffffu);
        }
    }
}

/* rs_seg_live of segmented.cl: with runs (reduce by key's _async form, the launch sized for the host's bounds S and
 * slots), the real count R = *runs <= S and K_level(R) = P_{level+1}(R), the first slot no segment below R owns, bound
 * the work: one load of R and one of offsets[R], then the padded slots cost nothing and the binary search covers
 * [0, R]. runs NULL: the host's S is the count. */
__device__ __forceinline__ void rs_seg_live(const void *offsets, int kind, unsigned level, const rs_u64 *runs,
                                            rs_u64 *S, rs_u64 *slots)
{
    if (!runs) return;
    const rs_u64 R = *runs < *S ? *runs : *S;
    const rs_u64 k = rs_seg_start(R, rs_seg_off(offsets, kind, R), level + 1);
    *S = R;
    if (k < *slots) *slots = k;
}

/* rs_seg_slot of segmented.cl: 0 nothing, 1 a partial into slot j, 2 the segment's result, 3 an empty segment. */
__device__ __forceinline__ int rs_seg_slot(const void *offsets, int kind, rs_u64 S, unsigned level, rs_u64 j,
                                           rs_u64 *seg, rs_u64 *base, rs_u64 *cnt)
{
    rs_u64 lo = 0, hi = S;
    while (lo < hi) {
        const rs_u64 mid = lo + (hi - lo) / 2;
        if (rs_seg_start(mid, rs_seg_off(offsets, kind, mid), level + 1) <= j) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    const rs_u64 s = lo - 1, o = rs_seg_off(offsets, kind, s);
    const rs_u64 c = j - rs_seg_start(s, o, level + 1);
    const rs_u64 len = rs_seg_len(rs_seg_off(offsets, kind, s + 1) - o, level);
    *seg = s;
    if (level == 0 && len == 0) return c == 0 ? 3 : 0;
    if ((level > 0 && len < 2) || c >= (len + RS_SEG_TILE - 1) / RS_SEG_TILE) return 0;
    *base = rs_seg_start(s, o, level) + c * RS_SEG_TILE;
    *cnt = len - c * RS_SEG_TILE < RS_SEG_TILE ? len - c * RS_SEG_TILE : RS_SEG_TILE;
    return len <= RS_SEG_TILE ? 2 : 1;
}

/* A segment of nothing: +0 for float sums (not the -0.0 identity), else the identity. */
template <typename T, class Op> __device__ __forceinline__ T rs_seg_empty()
{
    return rs_type_info<T>::is_float && Op::code == RS_SUM ? (T)0 : Op::identity();
}

/* The empty value as stored in the output. A narrow integer output of min / max takes its own type's extreme (127
 * for an int8 min): the low bits of T's identity (INT_MAX) would read -1. The OpenCL twin's RS_SEG_EMPTY is built
 * in the output type and has it so. */
template <typename T, class Op> __device__ __forceinline__ T rs_seg_empty_for(const T *) { return rs_seg_empty<T, Op>(); }
template <typename T, class Op> __device__ __forceinline__ T rs_seg_empty_for(const rs_ndst<T> d)
{
    if (d.kind < 0 || rs_type_info<T>::is_float || (Op::code != RS_MIN && Op::code != RS_MAX))
        return rs_seg_empty<T, Op>();
    const bool is_signed = (T)-1 < (T)0;
    const long long top = d.kind == 0 ? (is_signed ? 127 : 255) : (is_signed ? 32767 : 65535);
    return (T)(Op::code == RS_MIN ? top : is_signed ? -top - 1 : 0);
}

/* ---------------------------------------------------------------- reduce */

template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    seg_reduce(Src src, const void *offsets, int kind, rs_u64 S, unsigned level, T *part, Dst out,
               const unsigned *flags, rs_u64 slots, const rs_u64 *runs)
{
    rs_seg_live(offsets, kind, level, runs, &S, &slots); /* first: the padded slots end here */
    if (flags[0]) return; /* faulty offsets (seg_check): write nothing */
    const unsigned lane = threadIdx.x % RS_SEG_LANES;
    const rs_u64 warps = (rs_u64)gridDim.x * RS_SEG_ROWS;
    for (rs_u64 j = blockIdx.x * (rs_u64)RS_SEG_ROWS + threadIdx.x / RS_SEG_LANES; j < slots; j += warps) {
        rs_u64 seg = 0, base = 0, cnt = 0;
        const int what = rs_seg_slot(offsets, kind, S, level, j, &seg, &base, &cnt); /* the same in every lane */
        if (what == 0) continue;
        if (what == 3) {
            if (lane == 0) rs_put(out, seg, rs_seg_empty_for<T, Op>(out));
            continue;
        }
        T acc[RS_SEG_ROWS];
#pragma unroll
        for (unsigned r = 0; r < RS_SEG_ROWS; r++) {
            const unsigned tt = lane + RS_SEG_LANES * r; /* the tile's thread this row stands for */
            acc[r] = Op::identity();
            for (unsigned k = 0; k < RS_SEG_K; k++)
#pragma unroll
                for (unsigned v = 0; v < RS_SEG_V; v++) {
                    const rs_u64 i = k * RS_GROUP * RS_SEG_V + tt * RS_SEG_V + v;
                    acc[r] = Op::combine(acc[r], i < cnt ? rs_load<T>(src, base + i) : Op::identity());
                }
        }
#pragma unroll
        for (unsigned r = 0; r < 4; r++) acc[r] = Op::combine(acc[r], acc[r + 4]); /* s = 128 */
#pragma unroll
        for (unsigned r = 0; r < 2; r++) acc[r] = Op::combine(acc[r], acc[r + 2]); /* s = 64 */
        T v = Op::combine(acc[0], acc[1]);                                         /* s = 32 */
#pragma unroll
        for (unsigned s = RS_SEG_LANES / 2; s > 0; s >>= 1) {
            const T o = __shfl_down_sync(0xffffffffu, v, s);
            if (lane < s) v = Op::combine(v, o);
        }
        if (lane == 0) {
            if (what == 1) part[j] = rs_out<Op>(v);
            else rs_put(out, seg, rs_out<Op>(v));
        }
    }
}

extern "C" cudaError_t rs_cu_seg_check(int kind, const void *offsets, unsigned long long num_segments,
                                       unsigned long long n, unsigned *flags, unsigned grid, cudaStream_t stream)
{
    seg_check<<<grid, RS_GROUP, 0, stream>>>(offsets, kind, num_segments, n, flags, flags + 1);
    return rs_launched();
}

extern "C" cudaError_t rs_cu_seg_reduce(int in_dtype, int out_dtype, int op, unsigned level, const void *src,
                                        int kind, const void *offsets, unsigned long long num_segments, void *part,
                                        void *out, const unsigned *flags, unsigned long long slots,
                                        const unsigned long long *runs, unsigned grid, cudaStream_t stream)
{
    const rs_u64 *live = (const rs_u64 *)runs;
    return rs_dispatch_scan(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        typedef typename rs_scan_dst<X, T>::type Dst;
        const Dst dst = rs_scan_dst<X, T>::make(out, out_dtype);
        if (level == 0) {
            typedef typename rs_scan_src<X>::type Src;
            seg_reduce<Src, Dst, T, Op><<<grid, RS_GROUP, 0, stream>>>(rs_scan_src<X>::make(src, in_dtype), offsets,
                                                                       kind, num_segments, level, (T *)part, dst,
                                                                       flags, slots, live);
        } else {
            seg_reduce<const T *, Dst, T, Op><<<grid, RS_GROUP, 0, stream>>>(
                (const T *)src, offsets, kind, num_segments, level, (T *)part, dst, flags, slots, live);
        }
        return rs_launched();
    });
}

/* ---------------------------------------------------------------- argmin / argmax */

/* A warp shuffle of any element type (the narrow ones and rs_f16 / rs_bf16 have no overload): its bits. */
template <typename X> __device__ __forceinline__ X rs_seg_shfl_down(X v, unsigned s)
{
    if constexpr (sizeof(X) == 8) {
        unsigned long long u;
        memcpy(&u, &v, 8);
        u = __shfl_down_sync(0xffffffffu, u, s);
        memcpy(&v, &u, 8);
    } else {
        unsigned u = 0;
        memcpy(&u, &v, sizeof(X));
        u = __shfl_down_sync(0xffffffffu, u, s);
        memcpy(&v, &u, sizeof(X));
    }
    return v;
}

/* LEVEL0: the values are the input (index = position), else pairs (src_v, src_i). The order of rs_before is total,
 * so the result is the segment's best element whatever the chunks. */
template <typename X, int OP, bool LEVEL0>
__global__ void __launch_bounds__(RS_GROUP)
    seg_argext(const X *src_v, const rs_u64 *src_i, const void *offsets, int kind, rs_u64 S, unsigned level,
               X *part_v, rs_u64 *part_i, X *out_v, rs_u64 *out_i, const unsigned *flags, rs_u64 slots)
{
    if (flags[0]) return;
    const X worst = OP == RS_MIN ? rs_type_info<X>::max_value() : rs_type_info<X>::min_value();
    const unsigned lane = threadIdx.x % RS_SEG_LANES;
    const rs_u64 warps = (rs_u64)gridDim.x * RS_SEG_ROWS;
    for (rs_u64 j = blockIdx.x * (rs_u64)RS_SEG_ROWS + threadIdx.x / RS_SEG_LANES; j < slots; j += warps) {
        rs_u64 seg = 0, base = 0, cnt = 0;
        const int what = rs_seg_slot(offsets, kind, S, level, j, &seg, &base, &cnt);
        if (what == 0) continue;
        if (what == 3) {
            if (lane == 0) {
                if (out_v) out_v[seg] = worst;
                out_i[seg] = RS_SEG_PAD;
            }
            continue;
        }
        X bv = worst;
        rs_u64 bi = RS_SEG_PAD;
        for (unsigned r = 0; r < RS_SEG_ROWS; r++) {
            const unsigned tt = lane + RS_SEG_LANES * r;
            for (unsigned k = 0; k < RS_SEG_K; k++)
                for (unsigned v = 0; v < RS_SEG_V; v++) {
                    const rs_u64 i = k * RS_GROUP * RS_SEG_V + tt * RS_SEG_V + v;
                    if (i < cnt) {
                        const X cv = src_v[base + i];
                        const rs_u64 ci = LEVEL0 ? base + i : src_i[base + i];
                        if (rs_before<X, OP>(cv, ci, bv, bi, RS_SEG_PAD)) {
                            bv = cv;
                            bi = ci;
                        }
                    }
                }
        }
#pragma unroll
        for (unsigned s = RS_SEG_LANES / 2; s > 0; s >>= 1) {
            const X ov = rs_seg_shfl_down(bv, s);
            const rs_u64 oi = __shfl_down_sync(0xffffffffu, bi, s);
            if (lane < s && rs_before<X, OP>(ov, oi, bv, bi, RS_SEG_PAD)) {
                bv = ov;
                bi = oi;
            }
        }
        if (lane == 0) {
            if (what == 1) {
                part_v[j] = bv;
                part_i[j] = bi;
            } else {
                if (out_v) out_v[seg] = bv;
                out_i[seg] = bi;
            }
        }
    }
}

extern "C" cudaError_t rs_cu_seg_argext(int dtype, int want_max, unsigned level, const void *src_v,
                                        const unsigned long long *src_i, int kind, const void *offsets,
                                        unsigned long long num_segments, void *part_v, unsigned long long *part_i,
                                        void *out_v, unsigned long long *out_i, const unsigned *flags,
                                        unsigned long long slots, unsigned grid, cudaStream_t stream)
{
    return rs_dispatch_dtype(dtype, [&](auto xt) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        const X *sv = (const X *)src_v;
        X *pv = (X *)part_v, *ov = (X *)out_v;
        if (level == 0 && want_max)
            seg_argext<X, RS_MAX, true><<<grid, RS_GROUP, 0, stream>>>(sv, src_i, offsets, kind, num_segments, level,
                                                                       pv, part_i, ov, out_i, flags, slots);
        else if (level == 0)
            seg_argext<X, RS_MIN, true><<<grid, RS_GROUP, 0, stream>>>(sv, src_i, offsets, kind, num_segments, level,
                                                                       pv, part_i, ov, out_i, flags, slots);
        else if (want_max)
            seg_argext<X, RS_MAX, false><<<grid, RS_GROUP, 0, stream>>>(sv, src_i, offsets, kind, num_segments,
                                                                        level, pv, part_i, ov, out_i, flags, slots);
        else
            seg_argext<X, RS_MIN, false><<<grid, RS_GROUP, 0, stream>>>(sv, src_i, offsets, kind, num_segments,
                                                                        level, pv, part_i, ov, out_i, flags, slots);
        return rs_launched();
    });
}
