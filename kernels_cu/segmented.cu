/* Segmented reduction and argmin / argmax (docs/ALGORITHMS.md, "Segments"). Twin: kernels_cl/segmented.cl, whose
 * header explains the work decomposition; the same constants, queue, chunks and order of combination here.
 *
 * seg_short (a thread per segment: up to 32 values folded alone, or for argmin / argmax by a group of 8 lanes when a
 * warp has few such segments; up to a tile queued, except in the reductions' packed batches, staged in shared memory,
 * where a thread folds a segment of up to 4 values and the block's groups of 8 lanes those of 5 .. 128), seg_medium
 * (a warp per queued segment; up to four consecutive ones of at most 128 values by the warp's groups of 8 lanes, one
 * each), seg_tiles (a warp per input tile for the longer
 * segments, level after level). The warp's tile expression: lane j stands for the coarsened tile's threads j + 32r
 * (r = 0..7), folds their 16 elements (k outer, v inner, from the identity, identity past the chunk), then levels
 * s = 128, 64, 32 of the sequential-addressing tree combine the lane's rows (r with r + 4, r + 2, r + 1) and
 * s = 16 .. 1 go through warp shuffles: lane j < s combines its value with lane j + s's, exactly
 * rs_tree_seq's l[j] = l[j] (+) l[j+s] (the OpenCL twin does those five levels in local memory). argmin / argmax run
 * the same kernels over (value, index) pairs (rs_op_arg), whose result owes nothing to the order; their seg_short
 * (seg_short_arg) has a body of its own, without packed batches.
 *
 * Template instances stay lean: the reduction is dispatched with rs_dispatch_scan (one instance per compute type T
 * and op, a narrow input / output as a kernel argument, rs_nsrc / rs_ndst), levels > 0 read T partials; argmin /
 * argmax one instance of each kernel per dtype and direction. */
#include <string.h>

#include <type_traits>

#include "common.cuh"
#include "cu_launch.h"

#define RS_SEG_TILE 4096 /* RS_COARSE_TILE */
#define RS_SEG_K 4
#define RS_SEG_V 4
#define RS_SEG_LANES 32
#define RS_SEG_ROWS (RS_GROUP / RS_SEG_LANES)
#define RS_SEG_PAD (~0ull)
#define RS_SEG_SHORT 32    /* seg_short: a segment of up to this many elements is one thread's */
#define RS_SEG_NONE (~0ull) /* marks: no segment */
#define RS_SEG_LEN_SHIFT 48 /* a queue entry: the segment index | its length << 48, then its offset */
#define RS_SEG_SEG_MASK ((1ull << RS_SEG_LEN_SHIFT) - 1)
#define RS_SEG_DEAL_STATIC 3 /* seg_medium deals this many quarters of the queue evenly, the rest from a counter */

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

__device__ __forceinline__ rs_u64 rs_seg_len(rs_u64 len, unsigned level)
{
    for (unsigned i = 0; i < level; i++) len = (len + RS_SEG_TILE - 1) / RS_SEG_TILE;
    return len;
}

/* Offset s (= o) against its successor and n: the faults found (0: none), recorded in the call's word and the sticky
 * words */
__device__ __forceinline__ unsigned rs_seg_check_next(int kind, rs_u64 S, rs_u64 n, rs_u64 s, rs_u64 o, rs_u64 next,
                                                      unsigned *flags, unsigned *sticky)
{
    unsigned bad = 0;
    if ((kind == RS_INT32 || kind == RS_INT64) && (long long)o < 0) bad |= RS_SEG_NEGATIVE;
    if (s < S && o > next) bad |= RS_SEG_DECREASING;
    if (s == S && o > n) bad |= RS_SEG_PAST_END;
    if (bad) {
        atomicOr(&flags[0], bad);
        atomicOr(&sticky[0], bad);
        atomicMin(&sticky[1], s < 0xffffffffull ? (unsigned)s : 0xffffffffu);
    }
    return bad;
}
__device__ __forceinline__ unsigned rs_seg_check_at(const void *offsets, int kind, rs_u64 S, rs_u64 n, rs_u64 s,
                                                    rs_u64 o, unsigned *flags, unsigned *sticky)
{
    return rs_seg_check_next(kind, S, n, s, o, s < S ? rs_seg_off(offsets, kind, s + 1) : 0, flags, sticky);
}

/* A thread checks pieces of 16 bytes of offsets (4 of 32 bits or 2 of 64) where they are 16-byte aligned,
 * RS_SEG_CHECK_U pieces a round, all loaded before any is checked, each piece's successor read once more. A thread an
 * offset, loading it and its successor, read 45 M offsets in 83 us on the H200 (2.2 TB/s), a piece a round in 76 us,
 * four in 70. */
#define RS_SEG_CHECK_U 4
__device__ __forceinline__ void rs_seg_check_piece(uint4 u, rs_u64 next, int kind, rs_u64 S, rs_u64 n, rs_u64 s0,
                                                   unsigned *flags, unsigned *sticky)
{
    rs_u64 o[5];
    if (kind == RS_INT64 || kind == RS_UINT64) {
        o[0] = u.x | (rs_u64)u.y << 32;
        o[1] = u.z | (rs_u64)u.w << 32;
        o[2] = next;
#pragma unroll
        for (unsigned j = 0; j < 2; j++) rs_seg_check_next(kind, S, n, s0 + j, o[j], o[j + 1], flags, sticky);
    } else {
        const bool sg = kind == RS_INT32;
        o[0] = sg ? (rs_u64)(long long)(int)u.x : u.x;
        o[1] = sg ? (rs_u64)(long long)(int)u.y : u.y;
        o[2] = sg ? (rs_u64)(long long)(int)u.z : u.z;
        o[3] = sg ? (rs_u64)(long long)(int)u.w : u.w;
        o[4] = next;
#pragma unroll
        for (unsigned j = 0; j < 4; j++) rs_seg_check_next(kind, S, n, s0 + j, o[j], o[j + 1], flags, sticky);
    }
}
__global__ void seg_check(const void *offsets, int kind, rs_u64 S, rs_u64 n, unsigned *flags, unsigned *sticky)
{
    const unsigned per = ((size_t)offsets & 15) ? 1u : kind == RS_INT64 || kind == RS_UINT64 ? 2u : 4u;
    const rs_u64 G = (rs_u64)gridDim.x * blockDim.x;
    const rs_u64 whole = per > 1 ? S / per : 0; /* pieces whose offsets all have a successor (s < S) */
    for (rs_u64 c0 = blockIdx.x * (rs_u64)blockDim.x + threadIdx.x; c0 < whole; c0 += RS_SEG_CHECK_U * G) {
        uint4 u[RS_SEG_CHECK_U];
        rs_u64 next[RS_SEG_CHECK_U];
#pragma unroll
        for (unsigned j = 0; j < RS_SEG_CHECK_U; j++)
            if (c0 + j * G < whole) {
                u[j] = static_cast<const uint4 *>(offsets)[c0 + j * G];
                next[j] = rs_seg_off(offsets, kind, (c0 + j * G + 1) * per);
            }
#pragma unroll
        for (unsigned j = 0; j < RS_SEG_CHECK_U; j++)
            if (c0 + j * G < whole) rs_seg_check_piece(u[j], next[j], kind, S, n, (c0 + j * G) * per, flags, sticky);
    }
    /* the offsets after the whole pieces (all of them when unaligned), one a thread */
    for (rs_u64 s = whole * per + blockIdx.x * (rs_u64)blockDim.x + threadIdx.x; s <= S; s += G)
        rs_seg_check_at(offsets, kind, S, n, s, rs_seg_off(offsets, kind, s), flags, sticky);
}

/* The segmented scan of the exact operators (docs/ALGORITHMS.md, "Segmented scans", one pass), seg_check's checks
 * included: the head part that byk_scan_exact reads with kkind RS_KEYS_BITS (keys.cuh), zeroed before. heads[0],
 * heads[1]: offsets[0] and offsets[S], the positions to store; heads[2]: nonzero when an offset is faulty (then
 * nothing is stored); then bit p of the bitmap for each offset p < n, and bit 0 (position 0 is the first tile's head,
 * stored or not: tile 0 never looks back). The offsets of a warp are sorted, so the lanes of one 32-bit word are
 * neighbours: their bits are gathered by shuffles and the first of them sets them, one atomic per word and warp (on
 * faulty offsets the bits are wrong, and not used). Storing the words that no other warp touches instead (all but a
 * warp's first and last) was slower on the H200: 227 -> 249 us over 45 M offsets (docs/PERFORMANCE.md). */
__global__ void seg_scan_heads(const void *offsets, int kind, rs_u64 S, rs_u64 n, unsigned *flags, unsigned *sticky,
                               rs_u64 *heads)
{
    unsigned *const map = reinterpret_cast<unsigned *>(heads + RS_CU_HEAD_WORDS);
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicOr(&map[0], 1u);
    const unsigned lane = threadIdx.x & 31u, all = 0xffffffffu;
    const rs_u64 stride = (rs_u64)gridDim.x * blockDim.x;
    for (rs_u64 s0 = blockIdx.x * (rs_u64)blockDim.x + threadIdx.x - lane; s0 <= S; s0 += stride) { /* uniform */
        const rs_u64 s = s0 + lane;
        const rs_u64 o = s <= S ? rs_seg_off(offsets, kind, s) : n;
        if (s <= S && rs_seg_check_at(offsets, kind, S, n, s, o, flags, sticky)) heads[2] = 1;
        if (s == 0) heads[0] = o;
        if (s == S) heads[1] = o;
        const unsigned w = o < n ? (unsigned)(o >> 5) : 0xffffffffu; /* o < n <= 2^36 here: 2^31 words */
        unsigned b = o < n ? 1u << (o & 31u) : 0u;
#pragma unroll
        for (unsigned d = 1; d < 32; d <<= 1) {
            const unsigned ow = __shfl_down_sync(all, w, d), ob = __shfl_down_sync(all, b, d);
            if (lane + d < 32 && ow == w) b |= ob;
        }
        const unsigned pw = __shfl_up_sync(all, w, 1);
        if (o < n && (lane == 0 || pw != w)) atomicOr(&map[w], b);
    }
}

/* rs_seg_count of segmented.cl: the host's S, or the device word of reduce by key's _async form (R <= S). */
__device__ __forceinline__ rs_u64 rs_seg_count(const rs_u64 *runs, rs_u64 S) { return runs && *runs < S ? *runs : S; }

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

/* A warp shuffle of any element type of at most 8 bytes (the narrow ones and rs_f16 / rs_bf16 have no overload):
 * its bits. */
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

/* ---- argmin / argmax as a reduction over (value, index) pairs ----
 * The reduction's kernels below take the pair as their T and rs_op_arg as their Op: rs_before is a strict total
 * order, so the best pair does not depend on the order of combination and the reduction's decomposition gives the
 * segment's best element whatever its chunks. Identity: the worst value with index RS_SEG_PAD (padding ranks last).
 * Level 0 reads the input through rs_arg_src (index = position), levels >= 1 the pairs (RS_SEG_ARG_PAIR_BYTES of
 * api/src/backend.h each), and the results go out through rs_arg_dst (values optional). */
template <typename X> struct rs_argp {
    X v;
    rs_u64 i;
};
template <typename X> __device__ __forceinline__ rs_argp<X> rs_seg_shfl_down(rs_argp<X> p, unsigned s)
{
    p.v = rs_seg_shfl_down(p.v, s);
    p.i = __shfl_down_sync(0xffffffffu, p.i, s);
    return p;
}
template <typename X, int OP> struct rs_op_arg {
    typedef rs_argp<X> type;
    static const int code = OP;
    static __device__ __forceinline__ rs_argp<X> identity()
    {
        return {OP == RS_MIN ? rs_type_info<X>::max_value() : rs_type_info<X>::min_value(), RS_SEG_PAD};
    }
    static __device__ __forceinline__ rs_argp<X> combine(rs_argp<X> a, rs_argp<X> b)
    {
        return rs_before<X, OP>(b.v, b.i, a.v, a.i, RS_SEG_PAD) ? b : a;
    }
};
template <class Op> struct rs_is_arg {
    static const bool value = false;
};
template <typename X, int OP> struct rs_is_arg<rs_op_arg<X, OP>> {
    static const bool value = true;
};
template <typename X> struct rs_arg_src {
    const X *p;
};
template <typename T, typename X> __device__ __forceinline__ T rs_load(const rs_arg_src<X> s, rs_u64 i)
{
    return T{s.p[i], i};
}
template <typename X> struct rs_arg_dst {
    X *v; /* NULL: no values wanted */
    rs_u64 *i;
};
template <typename X> __device__ __forceinline__ void rs_put(const rs_arg_dst<X> d, rs_u64 s, rs_argp<X> p)
{
    if (d.v) d.v[s] = p.v;
    d.i[s] = p.i;
}

/* An empty segment's argmin / argmax: the worst value and index UINT64_MAX (RS_SEG_PAD), the identity. */
template <typename T, class Op, typename X> __device__ __forceinline__ T rs_seg_empty_for(const rs_arg_dst<X>)
{
    return Op::identity();
}

/* ---------------------------------------------------------------- reduce */

/* Float32 min / max leaves (CUDA only): the bits of the left fold acc (+) x[0] (+) ... (+) x[N-1] for fewer
 * instructions. rs_op_min / rs_op_max compare, test both operands for NaN and select: about four instructions a
 * value, and over short segments the segmented max ran 26-48 % slower than the sum (H200, docs/PERFORMANCE.md).
 * PTX min.NaN / max.NaN (sm_80 on) take one. Where their result m is neither NaN nor +-0, every value equal to m has
 * m's bits (equal nonzero floats are the same float), so the left fold gives acc (+) m, whichever of the values it
 * kept; ties only choose between +0 and -0 and the first NaN's payload, and those leaves take the left fold. The
 * identity padding (+-inf) changes neither. Other types and ops: rs_seg_fast<T, Op>::on is false and the callers
 * keep their own fold (their instances are unchanged). */
template <typename T, class Op> struct rs_seg_fast {
    static const bool on = false;
};
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
template <int OP> struct rs_seg_fast_f32 {
    static const bool on = true;
    static __device__ __forceinline__ float f(float a, float b)
    {
        float r;
        if constexpr (OP == RS_MIN)
            asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else
            asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
};
template <> struct rs_seg_fast<float, rs_op_min<float>> : rs_seg_fast_f32<RS_MIN> {};
template <> struct rs_seg_fast<float, rs_op_max<float>> : rs_seg_fast_f32<RS_MAX> {};
#endif
/* argmin / argmax pairs of float32 and of every integer type (float64, float16 and bfloat16 keep rs_before): the best
 * pair of values x[0..N-1] at increasing indices is the first whose value equals their min / max m (rs_before: NaN
 * first, then the value, then the lower index; -0 == +0), found by compares and selects where each rs_before compares
 * values, NaNs and 64-bit indices. m is NaN only when a value is: then the pairs are combined one by one. The
 * identity pairs (worst value, RS_SEG_PAD) pad only the end of a batch, so they are never chosen over a real pair. */
template <typename X, int OP> struct rs_seg_fast<rs_argp<X>, rs_op_arg<X, OP>> {
    static const bool on = rs_seg_fast<X, rs_op_max<X>>::on || !rs_type_info<X>::is_float;
    static __device__ __forceinline__ X f(X a, X b)
    {
        if constexpr (rs_type_info<X>::is_float)
            return OP == RS_MIN ? rs_seg_fast<X, rs_op_min<X>>::f(a, b) : rs_seg_fast<X, rs_op_max<X>>::f(a, b);
        else
            return OP == RS_MIN ? (b < a ? b : a) : (b > a ? b : a);
    }
};
template <typename T, class Op, unsigned N> __device__ __forceinline__ T rs_seg_leaf(T acc, const T (&x)[N])
{
    if constexpr (rs_seg_fast<T, Op>::on && rs_is_arg<Op>::value) {
        auto m = x[0].v;
#pragma unroll
        for (unsigned j = 1; j < N; j++) m = rs_seg_fast<T, Op>::f(m, x[j].v);
        if (!(m != m)) { /* no NaN: the first pair holding m (x[N-1] unless an earlier one does) */
            T b = x[N - 1];
#pragma unroll
            for (int j = (int)N - 2; j >= 0; j--)
                if (x[j].v == m) b = x[j];
            return Op::combine(acc, b);
        }
    } else if constexpr (rs_seg_fast<T, Op>::on) {
        T m = x[0];
#pragma unroll
        for (unsigned j = 1; j < N; j++) m = rs_seg_fast<T, Op>::f(m, x[j]);
        if (fabsf(m) > 0.0f) return Op::combine(acc, m); /* false for NaN and +-0 */
    }
#pragma unroll
    for (unsigned j = 0; j < N; j++) acc = Op::combine(acc, x[j]);
    return acc;
}

/* Levels s = 16 .. 1 of the tree across the warp (rs_tree_seq's l[j] = l[j] (+) l[j + s]): lane 0's result. */
template <typename T, class Op> __device__ __forceinline__ T rs_seg_warp_tree(T v, unsigned lane)
{
#pragma unroll
    for (unsigned s = RS_SEG_LANES / 2; s > 0; s >>= 1) {
        const T o = rs_seg_shfl_down(v, s);
        if (lane < s) v = Op::combine(v, o);
    }
    return v;
}

/* The coarsened tile expression of cnt <= RS_SEG_TILE values, value i = src[idx(i)], by one warp (RS_SEG_TEAM_FOLD
 * and rs_seg_team_tree of segmented.cl): lane j stands for the tile's threads j + 32r (r = 0..7) and folds their
 * values (k outer, v inner; each row has its own accumulator); values past cnt are the identity and are skipped
 * (x (+) identity == x exactly for every op); levels s = 128, 64, 32 combine the lane's rows, s = 16 .. 1 go through
 * shuffles. The result is lane 0's. A full chunk takes the loop without bounds checks. */
template <typename T, class Op, typename Src, class Idx>
__device__ __forceinline__ T rs_seg_team_rows(Src src, rs_u64 cnt, unsigned lane, Idx idx)
{
    T acc[RS_SEG_ROWS];
#pragma unroll
    for (unsigned r = 0; r < RS_SEG_ROWS; r++) acc[r] = Op::identity();
    if (cnt == RS_SEG_TILE) {
#pragma unroll 1
        for (unsigned k = 0; k < RS_SEG_K; k++) /* 32 loads in flight per lane, not 128: registers */
#pragma unroll
            for (unsigned r = 0; r < RS_SEG_ROWS; r++) {
                if constexpr (rs_seg_fast<T, Op>::on) {
                    T x[RS_SEG_V];
#pragma unroll
                    for (unsigned v = 0; v < RS_SEG_V; v++)
                        x[v] = rs_load<T>(src, idx(k * RS_GROUP * RS_SEG_V + (lane + RS_SEG_LANES * r) * RS_SEG_V + v));
                    acc[r] = rs_seg_leaf<T, Op>(acc[r], x);
                } else {
#pragma unroll
                    for (unsigned v = 0; v < RS_SEG_V; v++)
                        acc[r] = Op::combine(acc[r], rs_load<T>(src, idx(k * RS_GROUP * RS_SEG_V +
                                                                        (lane + RS_SEG_LANES * r) * RS_SEG_V + v)));
                }
            }
    } else {
        for (unsigned k = 0; (rs_u64)k * RS_GROUP * RS_SEG_V < cnt; k++)
#pragma unroll
            for (unsigned r = 0; r < RS_SEG_ROWS; r++)
                if ((rs_u64)k * RS_GROUP * RS_SEG_V + RS_SEG_LANES * RS_SEG_V * r < cnt) { /* the row has values */
                    if constexpr (rs_seg_fast<T, Op>::on) { /* past cnt: the identity */
                        T x[RS_SEG_V];
#pragma unroll
                        for (unsigned v = 0; v < RS_SEG_V; v++) {
                            const rs_u64 i = (rs_u64)k * RS_GROUP * RS_SEG_V + (lane + RS_SEG_LANES * r) * RS_SEG_V + v;
                            x[v] = i < cnt ? rs_load<T>(src, idx(i)) : Op::identity();
                        }
                        acc[r] = rs_seg_leaf<T, Op>(acc[r], x);
                    } else {
#pragma unroll
                        for (unsigned v = 0; v < RS_SEG_V; v++) {
                            const rs_u64 i = (rs_u64)k * RS_GROUP * RS_SEG_V + (lane + RS_SEG_LANES * r) * RS_SEG_V + v;
                            if (i < cnt) acc[r] = Op::combine(acc[r], rs_load<T>(src, idx(i)));
                        }
                    }
                }
    }
#pragma unroll
    for (unsigned r = 0; r < 4; r++) acc[r] = Op::combine(acc[r], acc[r + 4]); /* s = 128 */
#pragma unroll
    for (unsigned r = 0; r < 2; r++) acc[r] = Op::combine(acc[r], acc[r + 2]); /* s = 64 */
    T v = Op::combine(acc[0], acc[1]);                                         /* s = 32 */
    return rs_seg_warp_tree<T, Op>(v, lane);
}

/* argmin / argmax of 4-byte values by a warp from the input (rs_arg_src, 16-byte aligned, rs_seg_fast): the values from
 * the first 16-byte boundary on by whole 16 bytes, RS_SEG_ARG_VLOADS of them in flight a lane, the ones before and
 * after it a lane each. Any order gives the same best pair. A lane's 4 values at a time, loaded as pairs with their
 * 64-bit indices, held seg_medium_arg's warps to 4 loads in flight and 70 instructions a round: over 1000-value
 * segments it ran at 43 % of the DRAM bandwidth (H200, 2^28, 520 us), and the float32 argmax took 0.54 ms, 0.35 with
 * this (2 in flight: 0.36; docs/PERFORMANCE.md, "argmin / argmax warps by 16-byte loads"). */
#define RS_SEG_ARG_VLOADS 4
template <typename T, class Op, typename X>
__device__ __forceinline__ T rs_seg_team_arg_vec(const X *p, rs_u64 b0, rs_u64 cnt, unsigned lane)
{
    const unsigned h = (unsigned)min(cnt, (rs_u64)((4u - (unsigned)(b0 & 3u)) & 3u)); /* values before the boundary */
    T v = lane < h ? T{p[b0 + lane], b0 + lane} : Op::identity();
    const rs_u64 a = b0 + h, nq = (cnt - h) / 4;
    const uint4 *const q = reinterpret_cast<const uint4 *>(p + a);
    for (rs_u64 q0 = lane; q0 < nq; q0 += RS_SEG_ARG_VLOADS * RS_SEG_LANES) {
        uint4 u[RS_SEG_ARG_VLOADS];
#pragma unroll
        for (unsigned j = 0; j < RS_SEG_ARG_VLOADS; j++)
            if (q0 + j * RS_SEG_LANES < nq) u[j] = q[q0 + j * RS_SEG_LANES];
#pragma unroll
        for (unsigned j = 0; j < RS_SEG_ARG_VLOADS; j++)
            if (q0 + j * RS_SEG_LANES < nq) {
                X xs[4];
                memcpy(xs, &u[j], sizeof xs);
                const rs_u64 at = a + 4 * (q0 + j * RS_SEG_LANES);
                const T x[4] = {T{xs[0], at}, T{xs[1], at + 1}, T{xs[2], at + 2}, T{xs[3], at + 3}};
                v = rs_seg_leaf<T, Op>(v, x);
            }
    }
    const unsigned r = (unsigned)((cnt - h) & 3u); /* values after the last whole 16 bytes */
    if (lane < r) v = Op::combine(v, T{p[a + 4 * nq + lane], a + 4 * nq + lane});
    return rs_seg_warp_tree<T, Op>(v, lane);
}

/* A warp's value of a chunk: the tile expression above for a reduction; argmin / argmax need no particular order
 * (rs_op_arg): each lane keeps one best pair of its values, then the shuffles (the rows' 8 pairs a lane took
 * seg_medium to 64 registers; four independent pairs were slower still); 4-byte values with the fast pair batches
 * from a 16-byte aligned input by rs_seg_team_arg_vec above. */
template <typename T, class Op, typename Src, class Idx>
__device__ __forceinline__ T rs_seg_team(Src src, rs_u64 cnt, unsigned lane, Idx idx)
{
    if constexpr (rs_is_arg<Op>::value) { /* any order gives the same best pair: one accumulator, not eight rows */
        if constexpr (std::is_same<Src, rs_arg_src<decltype(T::v)>>::value && sizeof(T::v) == 4 &&
                      rs_seg_fast<T, Op>::on) {
            if (((size_t)src.p & 15) == 0) return rs_seg_team_arg_vec<T, Op>(src.p, idx(0), cnt, lane);
        }
        T v = Op::identity();
#pragma unroll 4
        for (rs_u64 i = lane * RS_SEG_V; i < cnt; i += RS_SEG_LANES * RS_SEG_V) {
            if constexpr (rs_seg_fast<T, Op>::on) {
                T x[RS_SEG_V];
#pragma unroll
                for (unsigned k = 0; k < RS_SEG_V; k++)
                    x[k] = i + k < cnt ? rs_load<T>(src, idx(i + k)) : Op::identity();
                v = rs_seg_leaf<T, Op>(v, x);
            } else {
#pragma unroll
                for (unsigned k = 0; k < RS_SEG_V; k++)
                    if (i + k < cnt) v = Op::combine(v, rs_load<T>(src, idx(i + k)));
            }
        }
        return rs_seg_warp_tree<T, Op>(v, lane);
    } else {
        return rs_seg_team_rows<T, Op>(src, cnt, lane, idx);
    }
}

/* A segment of at most 32 NL values by a group of RS_SEG_GROUP = 8 lanes (CUDA only; the same bits as rs_seg_team).
 * Such a segment lies in row 0 of the tile expression: leaf i (i = 0..31) is the fold of values 4i .. 4i + 3 from the
 * identity, levels s = 128, 64, 32 combine it with identity rows (exact for every op, and the result goes out through
 * rs_out, so they are skipped), and s = 16 .. 1 are rs_tree_seq's l[i] = l[i] (+) l[i + s]. Lane k of a group holds
 * leaves k + 8q (q < NL; the leaves from 8 NL on are the identity, and so are the levels that combine with them):
 * levels s = 16 and 8 are the lane's own combinations, levels 4, 2, 1 shuffles inside the group. NL = 4: seg_medium's
 * segments of up to 128 values; NL = 1: seg_short's of up to 32. argmin / argmax owe no order: lane k folds values
 * k, k + 8, ... into one best pair (a group's load is 8 consecutive values). All 32 lanes call it (the shuffles); a
 * group with mine false loads nothing. The result is lane k = 0's. */
#define RS_SEG_BATCH 4
#define RS_SEG_GROUP (RS_SEG_LANES / RS_SEG_BATCH)
#define RS_SEG_SMALL (RS_SEG_LANES * RS_SEG_V)
static_assert(RS_SEG_GROUP * RS_SEG_V == RS_SEG_SHORT, "rs_seg_group<1>: seg_short's segments, a leaf a lane");
/* A lane group's levels s = 8 NL / 2 .. 8 (the lane's own leaves k + 8q: l[k + 8q] (+) l[k + 8 (q + h)]), then
 * s = 4, 2, 1 by shuffles inside the group (lane k + s is in k's group for k < s); the result is lane k = 0's. */
template <typename T, class Op, unsigned NL> __device__ __forceinline__ T rs_seg_group_levels(T (&leaf)[NL])
{
#pragma unroll
    for (unsigned h = NL / 2; h > 0; h >>= 1)
#pragma unroll
        for (unsigned q = 0; q < h; q++) leaf[q] = Op::combine(leaf[q], leaf[q + h]);
    return leaf[0];
}
template <typename T, class Op> __device__ __forceinline__ T rs_seg_group_shfl(T w, unsigned k)
{
#pragma unroll
    for (unsigned s = RS_SEG_GROUP / 2; s > 0; s >>= 1) {
        const T o = rs_seg_shfl_down(w, s);
        if (k < s) w = Op::combine(w, o);
    }
    return w;
}

template <unsigned NL, typename Src, typename T, class Op>
__device__ __forceinline__ T rs_seg_group(Src src, rs_u64 base, rs_u64 cnt, bool mine, unsigned k)
{
    static_assert(NL == 1 || NL == 4, "rs_seg_group: one leaf a lane or four");
    T w = Op::identity();
    if constexpr (rs_is_arg<Op>::value && rs_seg_fast<T, Op>::on) {
        /* rs_seg_leaf's batch over the lane's values alone (16 pairs held 64 registers for float32, 118 for int64):
         * their min / max m, then the first value equal to m and its position */
        constexpr unsigned N = NL * RS_SEG_V;
        decltype(w.v) x[N];
#pragma unroll
        for (unsigned j = 0; j < N; j++) {
            const rs_u64 i = k + RS_SEG_GROUP * j;
            x[j] = mine && i < cnt ? rs_load<T>(src, base + i).v : Op::identity().v;
        }
        auto m = x[0];
#pragma unroll
        for (unsigned j = 1; j < N; j++) m = rs_seg_fast<T, Op>::f(m, x[j]);
        if (!(m != m)) {
            auto bv = x[N - 1];
            unsigned js = N - 1;
#pragma unroll
            for (int j = (int)N - 2; j >= 0; j--)
                if (x[j] == m) {
                    bv = x[j];
                    js = (unsigned)j;
                }
            const rs_u64 i = k + RS_SEG_GROUP * js;
            if (mine && i < cnt) w = T{bv, rs_load<T>(src, base + i).i}; /* else none: the identity */
        } else {
#pragma unroll
            for (unsigned j = 0; j < N; j++) {
                const rs_u64 i = k + RS_SEG_GROUP * j;
                if (mine && i < cnt) w = Op::combine(w, rs_load<T>(src, base + i));
            }
        }
    } else if constexpr (rs_is_arg<Op>::value) {
#pragma unroll
        for (unsigned j = 0; j < NL * RS_SEG_V; j++) {
            const rs_u64 i = k + RS_SEG_GROUP * j;
            if (mine && i < cnt) w = Op::combine(w, rs_load<T>(src, base + i));
        }
    } else {
        T x[NL][RS_SEG_V];
#pragma unroll
        for (unsigned q = 0; q < NL; q++)
#pragma unroll
            for (unsigned v = 0; v < RS_SEG_V; v++) {
                const rs_u64 i = (k + RS_SEG_GROUP * q) * RS_SEG_V + v;
                x[q][v] = mine && i < cnt ? rs_load<T>(src, base + i) : Op::identity();
            }
        T leaf[NL];
#pragma unroll
        for (unsigned q = 0; q < NL; q++) {
            if constexpr (rs_seg_fast<T, Op>::on) { /* x[q] holds the identity past cnt */
                leaf[q] = rs_seg_leaf<T, Op>(Op::identity(), x[q]);
            } else {
                T acc = Op::identity();
#pragma unroll
                for (unsigned v = 0; v < RS_SEG_V; v++)
                    if ((k + RS_SEG_GROUP * q) * RS_SEG_V + v < cnt) acc = Op::combine(acc, x[q][v]);
                leaf[q] = acc;
            }
        }
        w = rs_seg_group_levels<T, Op>(leaf);
    }
    return rs_seg_group_shfl<T, Op>(w, k);
}

/* seg_medium's small segments: up to RS_SEG_BATCH consecutive entries j, j + 1, ... of the warp's task holding at
 * most RS_SEG_SMALL values each, one per group of 8 lanes (rs_seg_group), all loads in flight together. (A whole warp
 * per segment, with five shuffle levels each, cost about 100 warp instructions a segment: seg_medium was bound by its
 * instructions on 90 % one-element segments.) Returns how many entries it did (0: entry j is longer; rs_seg_team does
 * it). */
template <typename Src, typename Dst, typename T, class Op>
__device__ __forceinline__ unsigned rs_seg_small_batch(Src src, Dst out, rs_u64 my_seg, rs_u64 my_base, unsigned j,
                                                       unsigned count, unsigned lane)
{
    const unsigned g = lane / RS_SEG_GROUP, k = lane % RS_SEG_GROUP;
    const unsigned e = j + g < count ? j + g : j; /* past the task: a copy of entry j, not taken */
    const rs_u64 sl = __shfl_sync(0xffffffffu, my_seg, e), base = __shfl_sync(0xffffffffu, my_base, e);
    const rs_u64 cnt = sl >> RS_SEG_LEN_SHIFT;
    /* the groups 0, 1, ... whose entries are small, up to the first that is not (warp-uniform) */
    const unsigned small = __ballot_sync(0xffffffffu, k == 0 && j + g < count && cnt <= RS_SEG_SMALL);
    unsigned nb = 0;
    while (nb < RS_SEG_BATCH && ((small >> (nb * RS_SEG_GROUP)) & 1u)) nb++;
    if (nb == 0) return 0;
    const T w = rs_seg_group<4, Src, T, Op>(src, base, cnt, g < nb, k);
    if (g < nb && k == 0) rs_put(out, sl & RS_SEG_SEG_MASK, rs_out<Op>(w));
    return nb;
}

/* seg_short's queue: a 32-bit count at its start (zeroed by the host), the entries from queue[1] (two words: index |
 * length << 48, offset); the 32 bits after the count (zeroed with it) are flags: bit 0 set when a segment is longer
 * than RS_SEG_TILE (seg_tiles runs only then), bit 1 when one is longer than RS_SEG_TILE^2 (seg_tiles' levels >= 2 run
 * only then); the same in the OpenCL twin. A batch lists its queued segments in shared memory, then one global atomic
 * reserves their places. Two barriers a batch: the batch's list and count alternate between two buffers (the next
 * batch fills the other while this one's entries are copied out, and work-item 0 zeroes the other's count between
 * the barriers), and a segment longer than a tile sets the flags itself (rare) instead of two block-wide votes. Four
 * barriers a batch cost the 90 %-ones distribution 3 % (H200, docs/PERFORMANCE.md). */
__device__ __forceinline__ void rs_seg_flag_long(rs_u64 *queue, rs_u64 len)
{
    atomicOr(reinterpret_cast<unsigned *>(queue) + 1, len > (rs_u64)RS_SEG_TILE * RS_SEG_TILE ? 3u : 1u);
}

/* argmin / argmax of len values src[o ..] by one thread: any order gives the same best pair, so a plain left fold, by
 * fours (rs_seg_leaf's batches, the identity past the segment) where rs_seg_fast applies. */
template <typename Src, typename T, class Op>
__device__ __forceinline__ T rs_seg_arg_fold(Src src, rs_u64 o, unsigned len)
{
    T a = Op::identity();
    if constexpr (rs_seg_fast<T, Op>::on) {
        for (unsigned i = 0; i < len; i += RS_SEG_V) {
            T x[RS_SEG_V];
#pragma unroll
            for (unsigned v = 0; v < RS_SEG_V; v++) x[v] = i + v < len ? rs_load<T>(src, o + i + v) : Op::identity();
            a = rs_seg_leaf<T, Op>(a, x);
        }
    } else {
        for (unsigned i = 0; i < len; i++) a = Op::combine(a, rs_load<T>(src, o + i));
    }
    return a;
}

/* argmin / argmax's seg_short (segmented.cl's seg_short over pairs): a thread per segment, offsets read coalesced.
 * Empty: the empty value (the identity). Up to RS_SEG_SHORT values: the thread's left fold (any order gives the same
 * best pair), or, in a warp with at most four segments of RS_SEG_V + 1 .. RS_SEG_SHORT values, a group of 8 lanes
 * each (rs_seg_group<1>): a thread's fold cost the warp, and at the barrier its block, one compare chain as long as
 * its longest segment (H200, 90 % one-element segments: argmax -18 %). min / max had the groups too until their leaves
 * took PTX min.NaN / max.NaN (rs_seg_leaf); on sums and products they cost 4-5 % (docs/PERFORMANCE.md, "seg_short's
 * lane groups"). Up to RS_SEG_TILE: queued for seg_medium_arg. Launches that can pack, over 4-byte values that
 * rs_seg_fast takes, run rs_seg_short instead (seg_short_arg_packed, below), its pool holding the values; this loop
 * is kept apart from rs_seg_short's for the others: a pool of pairs spilled 80-1824 bytes at 32 registers, and the
 * pairs unstaged in one body with the reductions' 80-180 (docs/PERFORMANCE.md, "packed batches in seg_short"). */
template <typename Src, typename Dst, typename T, class Op>
__device__ __forceinline__ void rs_seg_short_pairs(Src src, const void *offsets, int kind, rs_u64 S, Dst out,
                                                   rs_u64 *queue, const unsigned *flags)
{
    __shared__ rs_u64 l_segs[2][RS_GROUP], l_bases[2][RS_GROUP];
    __shared__ unsigned l_ns[2], l_ats[2];
    if (flags[0]) return; /* faulty offsets (seg_check): write nothing */
    const unsigned t = threadIdx.x, g = t % RS_SEG_LANES / RS_SEG_GROUP, k = t % RS_SEG_GROUP;
    const rs_u64 batches = (S + RS_GROUP - 1) / RS_GROUP;
    if (t == 0) l_ns[0] = l_ns[1] = 0;
    __syncthreads();
    unsigned par = 0;
    for (rs_u64 b = blockIdx.x; b < batches; b += gridDim.x) {
        rs_u64 *const l_seg = l_segs[par], *const l_base = l_bases[par];
        unsigned &l_n = l_ns[par], &l_at = l_ats[par];
        const rs_u64 s = b * RS_GROUP + t;
        rs_u64 len = 0, o = 0;
        if (s < S) {
            o = rs_seg_off(offsets, kind, s);
            len = rs_seg_off(offsets, kind, s + 1) - o;
        }
        /* a warp with at most RS_SEG_BATCH segments of RS_SEG_V + 1 .. RS_SEG_SHORT values gives them to its groups
         * (warp-uniform) */
        const unsigned want = __ballot_sync(0xffffffffu, len > RS_SEG_V && len <= RS_SEG_SHORT);
        const bool grouped = want && __popc(want) <= RS_SEG_BATCH;
        if (s < S) {
            if (len == 0) {
                rs_put(out, s, rs_seg_empty_for<T, Op>(out));
            } else if (len <= RS_SEG_SHORT && !(grouped && len > RS_SEG_V)) {
                rs_put(out, s, rs_seg_arg_fold<Src, T, Op>(src, o, (unsigned)len));
            } else if (len > RS_SEG_SHORT && len <= RS_SEG_TILE) {
                const unsigned at = atomicAdd(&l_n, 1u); /* the queue's order changes no bits */
                l_seg[at] = s | len << RS_SEG_LEN_SHIFT;
                l_base[at] = o;
            }
        }
        if (grouped) { /* group g takes the g-th of them */
            const unsigned at = __fns(want, 0, (int)g + 1), from = at < RS_SEG_LANES ? at : 0;
            const rs_u64 seg = __shfl_sync(0xffffffffu, s, from), base = __shfl_sync(0xffffffffu, o, from);
            const rs_u64 cnt = __shfl_sync(0xffffffffu, len, from);
            const T w = rs_seg_group<1, Src, T, Op>(src, base, cnt, at < RS_SEG_LANES, k);
            if (at < RS_SEG_LANES && k == 0) rs_put(out, seg, rs_out<Op>(w));
        }
        if (s < S && len > RS_SEG_TILE) rs_seg_flag_long(queue, len);
        __syncthreads();
        if (t == 0) {
            l_at = l_n ? atomicAdd((unsigned *)queue, l_n) : 0;
            l_ns[par ^ 1] = 0;
        }
        __syncthreads();
        if (t < l_n) {
            queue[1 + 2 * ((rs_u64)l_at + t)] = l_seg[t];
            queue[2 + 2 * ((rs_u64)l_at + t)] = l_base[t];
        }
        par ^= 1;
    }
}

/* The reductions' seg_short moves its values in *packed batches* (CUDA-only data movement; the operands and their order
 * are unchanged, so the bits are; argmin / argmax of 4-byte values too, rs_arg_pool below): a batch of 256 segments
 * none of which holds more than RS_SEG_SMALL = 128 values, with at most RS_SEG_STAGE_BYTES of values in all (nearly
 * every batch of one-element-heavy data), is one range of the input. The block copies it into shared memory
 * (rs_seg_stage: by cp.async where it can) and reduces every segment from there: a thread per segment of up to 4
 * values, one leaf (rs_seg_thread), and its segments of 5 .. 128 values by the block's 32 groups of 8 lanes
 * (rs_seg_group_pool, the operands of seg_medium's rs_seg_group<4>; for up to 32 values those of the thread's fold, the
 * leaves past the segment being the identity). Segments of 33 .. 128 values otherwise go to the queue and seg_medium,
 * and those of 5 .. 32 to their thread, whose fold of up to 8 leaves held its warp while most of its lanes had one
 * value (the float32 max over 90 % one-element segments, H200 2^28: 1.08 -> 0.90 ms). Before packed batches, each
 * thread loaded its own few values and the queued ones took seg_medium: over 90 % one-element segments (H200, 2^28
 * float32 sums) seg_short ran at 38 % of the DRAM bandwidth for 490 us and seg_medium at 66 % for 356 us
 * (docs/PERFORMANCE.md). (8 loads in flight a thread gave the float32 sum 40 registers instead of 32.) */
#define RS_SEG_STAGE_BYTES 16384 /* 4096 values of 4 bytes, 2048 of 8 */
#define RS_SEG_LOADS 4 /* staging loads in flight a thread, a value each (when not by cp.async) */
#define RS_SEG_VEC(T) (16 / (unsigned)sizeof(T)) /* values of T in 16 bytes */

/* The values are staged by cp.async, 16 bytes at a time, when they are T's (no conversion), `in` is 16-byte aligned
 * and the device has it (sm_80 and later): every piece of a batch is then in flight at once at no register cost.
 * Loaded into registers, 4 values in flight a thread (1024 a block) left most batches of the 90 %-ones distribution
 * (about 1536 values) two memory round trips after the offsets' one, and 2 pieces of 16 bytes in flight spilled at
 * seg_short's 32 registers. */
template <typename Src, typename T> __device__ __forceinline__ bool rs_seg_vec_ok(Src src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    return false;
#else
    if constexpr (rs_copyable<Src, T>::value)
        return ((size_t)src & 15) == 0;
    else
        return false;
#endif
}

/* Values a0 + sh .. a0 + span - 1 of src into pool[sh .. span - 1] (pool[0] is value a0), by the whole block; the
 * caller's barrier follows. vec (rs_seg_vec_ok; then a0 is a multiple of RS_SEG_VEC(T)): 16 bytes a copy, the first
 * piece whole (values a0 .. a0 + sh - 1 lie in `in`, their places are never read), the values after the last whole
 * piece one at a time (the rest of its 16 bytes may lie past `in`); else a value a load. */
template <typename Src, typename T>
__device__ __forceinline__ void rs_seg_stage(Src src, T *pool, rs_u64 a0, unsigned sh, unsigned span, bool vec,
                                             unsigned t)
{
    if constexpr (rs_copyable<Src, T>::value) {
        if (vec) {
            constexpr unsigned V = RS_SEG_VEC(T);
            const unsigned whole = span / V * V;
            for (unsigned i = t * V; i < whole; i += RS_GROUP * V) rs_copy16_async(pool + i, src + a0 + i);
            if (t < span - whole) rs_copy_async<sizeof(T)>(pool + whole + t, src + a0 + whole + t);
            rs_copy_async_wait();
            return;
        }
    }
    rs_load_in_flight<RS_SEG_LOADS, RS_GROUP, T>(src, a0, sh + t, span,
                                                 [&](unsigned k0, unsigned d, T v) { pool[k0 + d] = v; });
}
/* The reductions' fold of segment s (< S) of len values at o by its thread: the empty value, or up to RS_SEG_SHORT
 * values (the tile's threads 0..7 hold four values each, the others the identity, so of the tree only s = 4, 2, 1
 * change anything; argmin / argmax: rs_seg_arg_fold). A longer segment is left alone. */
template <typename Src, typename Dst, typename T, class Op>
__device__ __forceinline__ void rs_seg_thread(Src src, Dst out, rs_u64 s, rs_u64 o, rs_u64 len)
{
    if (len == 0) {
        rs_put(out, s, rs_seg_empty_for<T, Op>(out));
    } else if (rs_is_arg<Op>::value && len <= RS_SEG_SHORT) {
        if constexpr (rs_is_arg<Op>::value) rs_put(out, s, rs_seg_arg_fold<Src, T, Op>(src, o, (unsigned)len));
    } else if (len <= RS_SEG_SHORT) {
        T a[8];
#pragma unroll
        for (unsigned r = 0; r < 8; r++) a[r] = Op::identity();
#pragma unroll
        for (unsigned q = 0; q < RS_SEG_SHORT / RS_SEG_V; q++) { /* leaf q; none past the segment */
            if (q * RS_SEG_V >= len) break;
            if constexpr (rs_seg_fast<T, Op>::on) {
                T x[RS_SEG_V];
#pragma unroll
                for (unsigned v = 0; v < RS_SEG_V; v++)
                    x[v] = q * RS_SEG_V + v < len ? rs_load<T>(src, o + q * RS_SEG_V + v) : Op::identity();
                a[q] = rs_seg_leaf<T, Op>(a[q], x);
            } else {
#pragma unroll
                for (unsigned v = 0; v < RS_SEG_V; v++)
                    if (q * RS_SEG_V + v < len) a[q] = Op::combine(a[q], rs_load<T>(src, o + q * RS_SEG_V + v));
            }
        }
#pragma unroll
        for (unsigned r = 0; r < 4; r++) a[r] = Op::combine(a[r], a[r + 4]);
#pragma unroll
        for (unsigned r = 0; r < 2; r++) a[r] = Op::combine(a[r], a[r + 2]);
        rs_put(out, s, rs_out<Op>(Op::combine(a[0], a[1])));
    }
}

/* rs_seg_group<4>'s result (the same operands in the same order) for a segment of up to RS_SEG_SMALL values in the
 * pool, a leaf loaded at a time: from shared memory the loads need not all be in flight, and holding the lane's 16
 * values raised seg_short from 32 registers to 40-48. All 32 lanes call it; a group with mine false loads nothing.
 * The result is lane k = 0's. */
template <typename T, class Op>
__device__ __forceinline__ T rs_seg_group_pool(const T *seg, unsigned cnt, bool mine, unsigned k)
{
    constexpr unsigned NL = RS_SEG_SMALL / (RS_SEG_GROUP * RS_SEG_V);
    T leaf[NL];
#pragma unroll
    for (unsigned q = 0; q < NL; q++) {
        T x[RS_SEG_V];
#pragma unroll
        for (unsigned v = 0; v < RS_SEG_V; v++) {
            const unsigned i = (k + RS_SEG_GROUP * q) * RS_SEG_V + v;
            x[v] = mine && i < cnt ? seg[i] : Op::identity();
        }
        if constexpr (rs_seg_fast<T, Op>::on) { /* x holds the identity past cnt */
            leaf[q] = rs_seg_leaf<T, Op>(Op::identity(), x);
        } else {
            T acc = Op::identity();
#pragma unroll
            for (unsigned v = 0; v < RS_SEG_V; v++)
                if ((k + RS_SEG_GROUP * q) * RS_SEG_V + v < cnt) acc = Op::combine(acc, x[v]);
            leaf[q] = acc;
        }
    }
    return rs_seg_group_shfl<T, Op>(rs_seg_group_levels<T, Op>(leaf), k);
}

/* argmin / argmax in packed batches: the pool holds the values (X), not the pairs (16 bytes each, and at 32
 * registers the staged pair fold spilled 80-1824 bytes); value i of the input is pool[i - a0], its pair (pool[i - a0],
 * i). rs_seg_pooling names the pool's element type and the source it is staged from: the reductions stage src's
 * values converted to T, argmin / argmax the input's values as they are. */
template <typename X> struct rs_arg_pool {
    const X *p;
    rs_u64 a0;
};
template <typename T, typename X> __device__ __forceinline__ T rs_load(const rs_arg_pool<X> s, rs_u64 i)
{
    return T{s.p[(unsigned)(i - s.a0)], i};
}
template <typename Src, typename T> struct rs_seg_pooling {
    typedef T P;
    typedef Src From;
    static __device__ __forceinline__ From from(Src s) { return s; }
};
template <typename X> struct rs_seg_pooling<rs_arg_src<X>, rs_argp<X>> {
    typedef X P;
    typedef const X *From;
    static __device__ __forceinline__ From from(rs_arg_src<X> s) { return s.p; }
};

/* argmin / argmax of a segment of up to RS_SEG_SMALL values at pool[at ..] (input index base ..) by a group of 8
 * lanes, for the types rs_seg_fast takes: lane k takes values k, k + 8, ... (any order gives the same best pair): their
 * min / max m (one instruction a value), then the first of them equal to m (== counts -0 and +0 equal, as rs_before
 * does), or, when m is NaN, its pairs one by one. Two passes over shared memory, one value held: rs_seg_group<4>'s 16
 * values held would not fit seg_short's 32 registers. All 32 lanes call it; the result is lane k = 0's. */
template <typename X, typename T, class Op>
__device__ __forceinline__ T rs_seg_group_arg_pool(const X *seg, rs_u64 base, unsigned cnt, bool mine, unsigned k)
{
    T w = Op::identity();
    const unsigned c = mine ? cnt : 0;
    if (k < c) {
        X m = seg[k];
        for (unsigned i = k + RS_SEG_GROUP; i < c; i += RS_SEG_GROUP) m = rs_seg_fast<T, Op>::f(m, seg[i]);
        if (!(m != m)) {
            unsigned i = k;
            while (!(seg[i] == m)) i += RS_SEG_GROUP; /* m is one of the values */
            w = T{seg[i], base + i};
        } else {
            for (unsigned i = k; i < c; i += RS_SEG_GROUP) w = Op::combine(w, T{seg[i], base + i});
        }
    }
    return rs_seg_group_shfl<T, Op>(w, k);
}

/* seg_short of segmented.cl for the reductions (and for argmin / argmax in seg_short_arg_packed's launches): level 0
 * for every segment of up to RS_SEG_TILE elements, a thread per segment (offsets read coalesced): rs_seg_thread's fold
 * up to RS_SEG_SHORT values (the sums and products keep the thread's fold from global memory: lane groups cost them 4-5
 * %, docs/PERFORMANCE.md, "seg_short's lane groups"); longer ones up to RS_SEG_TILE are listed from the front of the
 * list, then reduced from shared memory (a packed batch, above) or queued for seg_medium; in launches that can pack,
 * those of RS_SEG_V + 1 .. RS_SEG_SHORT values from its back, for the lane groups of a packed batch (an unpacked one
 * leaves them to their threads). Two barriers a batch: the first is a vote (does a segment exceed RS_SEG_SMALL values?)
 * after the listing, the second ends the staging (packed) or the folds from global memory (else; the queue's places are
 * reserved between them). s_first, s_last and the list are read before the next batch's vote, and the pool and the
 * thread folds are done before a thread reaches it: so a batch ends without a barrier of its own. PS segments a
 * thread: a batch is PS x 256 segments, thread t's the segments j 256 + t of it (seg_short: 1; seg_short_pairs: 2). */
template <unsigned PS, typename Src, typename Dst, typename T, class Op>
__device__ __forceinline__ void rs_seg_short(Src src, const void *offsets, int kind, rs_u64 S, Dst out, rs_u64 *queue,
                                             const unsigned *flags, const rs_u64 *runs, unsigned stage)
{
    typedef rs_seg_pooling<Src, T> PL; /* the pool's values: T's, or the input's for argmin / argmax */
    typedef typename PL::P P;
    constexpr unsigned B = PS * RS_GROUP; /* segments a batch: PS a thread, segment j RS_GROUP + t of it thread t's */
    extern __shared__ __align__(16) unsigned char rs_seg_dyn[]; /* stage values of P (dynamic: see rs_seg_launch) */
    P *const l_pool = reinterpret_cast<P *>(rs_seg_dyn);
    __shared__ rs_u64 l_segs[2][B], l_bases[2][B];
    __shared__ unsigned l_ns[2], l_nbs[2], l_ats[2]; /* the list's entries: l_n from the front, l_nb from the back */
    __shared__ rs_u64 s_first, s_last; /* the batch's first value's index and its last value's + 1 */
    if (flags[0]) return; /* faulty offsets (seg_check): write nothing */
    S = rs_seg_count(runs, S);
    const unsigned t = threadIdx.x, k = t % RS_SEG_GROUP;
    const bool vec = rs_seg_vec_ok<typename PL::From, P>(PL::from(src));
    /* 32-bit batch numbers: S + 1 offsets of 4 bytes or more fit in memory, so S / 256 < 2^32 (a register pair less) */
    const unsigned batches = (unsigned)((S + B - 1) / B);
    if (t == 0) l_ns[0] = l_ns[1] = l_nbs[0] = l_nbs[1] = 0;
    __syncthreads();
    unsigned par = 0;
    for (unsigned b = blockIdx.x; b < batches; b += gridDim.x) {
        rs_u64 *const l_seg = l_segs[par], *const l_base = l_bases[par];
        unsigned &l_n = l_ns[par], &l_nb = l_nbs[par], &l_at = l_ats[par];
        rs_u64 len[PS], o[PS];
        bool over = false; /* a segment of the thread's holds more than RS_SEG_SMALL values */
#pragma unroll
        for (unsigned j = 0; j < PS; j++) {
            const rs_u64 s = (rs_u64)b * B + j * RS_GROUP + t;
            len[j] = 0, o[j] = 0;
            if (s < S) {
                o[j] = rs_seg_off(offsets, kind, s);
                len[j] = rs_seg_off(offsets, kind, s + 1) - o[j];
            }
            if (j == 0 && t == 0) s_first = o[0]; /* s < S: b < batches */
            if (s < S && ((j == PS - 1 && t == RS_GROUP - 1) || s + 1 == S)) s_last = o[j] + len[j];
            if (s < S && len[j] > RS_SEG_SHORT && len[j] <= RS_SEG_TILE) {
                const unsigned at = atomicAdd(&l_n, 1u); /* the list's order changes no bits */
                l_seg[at] = s | len[j] << RS_SEG_LEN_SHIFT;
                l_base[at] = o[j];
            } else if (stage && s < S && len[j] > RS_SEG_V && len[j] <= RS_SEG_SHORT) {
                /* more than a leaf: the lane groups' if the batch is packed (its thread's fold, else) */
                const unsigned at = B - 1 - atomicAdd(&l_nb, 1u);
                l_seg[at] = s | len[j] << RS_SEG_LEN_SHIFT;
                l_base[at] = o[j];
            }
            if (s < S && len[j] > RS_SEG_TILE) rs_seg_flag_long(queue, len[j]);
            over = over || len[j] > RS_SEG_SMALL;
        }
        const bool wide = __syncthreads_or(over) != 0;
        /* pool index 0 is value a0: o0 rounded down to a 16-byte boundary when the values are T's and `in` is
         * 16-byte aligned (then whole 16-byte loads stage them), else o0 */
        const rs_u64 a0 = vec ? s_first & ~(rs_u64)(RS_SEG_VEC(P) - 1) : s_first;
        const unsigned sh = (unsigned)(s_first - a0);
        const rs_u64 span = s_last - a0;
        const unsigned n = l_n, nb = l_nb;
        if (!wide && span <= stage) { /* packed (block-uniform; never with stage = 0) */
            if (t == 0) l_ns[par ^ 1] = l_nbs[par ^ 1] = 0;
            rs_seg_stage<typename PL::From, P>(PL::from(src), l_pool, a0, sh, (unsigned)span, vec, t);
            __syncthreads();
            /* segment s's values from l_pool (its start's distance from a0), the same fold, up to a leaf */
#pragma unroll
            for (unsigned j = 0; j < PS; j++) {
                const rs_u64 s = (rs_u64)b * B + j * RS_GROUP + t;
                if constexpr (rs_is_arg<Op>::value) {
                    if (s < S && len[j] <= RS_SEG_V)
                        rs_seg_thread<rs_arg_pool<P>, Dst, T, Op>(rs_arg_pool<P>{l_pool, a0}, out, s, o[j], len[j]);
                } else if (s < S && len[j] <= RS_SEG_V) {
                    rs_seg_thread<const T *, Dst, T, Op>(l_pool + (unsigned)(o[j] - a0), out, s, 0, len[j]);
                }
            }
            /* the listed segments (RS_SEG_V + 1 .. 128 values): the n + nb entries, the front's then the back's, entry
             * e by the block's group e mod 32; a warp whose groups have no entry skips the round (warp-uniform) */
            for (unsigned e0 = t / RS_SEG_LANES * RS_SEG_BATCH; e0 < n + nb; e0 += RS_GROUP / RS_SEG_GROUP) {
                const unsigned f = e0 + t % RS_SEG_LANES / RS_SEG_GROUP, e = f < n ? f : f + (B - n - nb);
                const bool mine = f < n + nb;
                const rs_u64 sl = mine ? l_seg[e] : 0;
                const rs_u64 base = mine ? l_base[e] : a0;
                const unsigned at = (unsigned)(base - a0), cnt = (unsigned)(sl >> RS_SEG_LEN_SHIFT);
                T w;
                if constexpr (rs_is_arg<Op>::value)
                    w = rs_seg_group_arg_pool<P, T, Op>(l_pool + at, base, cnt, mine, k);
                else
                    w = rs_seg_group_pool<T, Op>(l_pool + at, cnt, mine, k);
                if (mine && k == 0) rs_put(out, sl & RS_SEG_SEG_MASK, rs_out<Op>(w));
            }
        } else {
            if (t == 0) {
                l_at = n ? atomicAdd((unsigned *)queue, n) : 0;
                l_ns[par ^ 1] = l_nbs[par ^ 1] = 0;
            }
#pragma unroll
            for (unsigned j = 0; j < PS; j++) {
                const rs_u64 s = (rs_u64)b * B + j * RS_GROUP + t;
                if (s < S) rs_seg_thread<Src, Dst, T, Op>(src, out, s, o[j], len[j]);
            }
            __syncthreads();
            for (unsigned i = t; i < n; i += RS_GROUP) {
                queue[1 + 2 * ((rs_u64)l_at + i)] = l_seg[i];
                queue[2 + 2 * ((rs_u64)l_at + i)] = l_base[i];
            }
        }
        par ^= 1;
    }
}

/* The reductions' seg_short: 8 blocks per SM for 4-byte values (32 registers: unbounded, with the packed batches,
 * ptxas gave the float32 sum 40), 6 for 8-byte ones (40: unbounded 47-70). argmin / argmax's takes 8 blocks per SM for
 * pairs of values of up to 4 bytes (at most 32 registers): unbounded, the batched pair fold (rs_seg_leaf) gave the
 * float32 argmax 40 registers, 6 blocks, and the 90 %-ones argmax went 2.33 -> 2.61 ms on the H200; bounded it took
 * 2.27-2.29, and the power-law one 1.10 (1.47 before; both measured before seg_medium_arg took lane groups, which
 * brought them to 1.42 and 0.98). 8-byte values: 6 blocks (8 spilled 24 bytes). */
template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(sizeof(T) <= 4 ? 8 : 6))
    seg_short(Src src, const void *offsets, int kind, rs_u64 S, Dst out, rs_u64 *queue, const unsigned *flags,
              const rs_u64 *runs, unsigned stage)
{
    rs_seg_short<1, Src, Dst, T, Op>(src, offsets, kind, S, out, queue, flags, runs, stage);
}
/* Two segments a thread, batches of 512 (RS_SEG_PAIRS), for 4-byte values read as they are (the reductions' float32,
 * int32 and uint32 without widening; argmin / argmax of float32, int32, uint32): launched where the mean segment is
 * short enough for most batches to pack (rs_seg_pairs_fit). The batch's work that does not grow with its segments
 * (two barriers, the counters, the staging's set-up, the loops) is paid once for 512 segments, and each memory round
 * trip carries twice the bytes. The lists double (16 KB of shared memory with the pool's 16): 6 blocks an SM, 40
 * registers. H100, 2^28, 90 % one-element segments: float32 sum 0.780 -> 0.737 ms, int32 sum 0.822 -> 0.762, float32
 * max 0.897 -> 0.831, float32 argmax 1.146 -> 1.103 (docs/PERFORMANCE.md, "thirty-fourth session"); the next
 * batch's offsets copied by cp.async during the staging made it slower (0.755, 0.778, 0.874, 1.144). */
#define RS_SEG_PAIRS 2
template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(6))
    seg_short_pairs(Src src, const void *offsets, int kind, rs_u64 S, Dst out, rs_u64 *queue, const unsigned *flags,
                    unsigned stage)
{
    rs_seg_short<RS_SEG_PAIRS, Src, Dst, T, Op>(src, offsets, kind, S, out, queue, flags, nullptr, stage);
}

template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(sizeof(T::v) <= 4 ? 8 : 6))
    seg_short_arg(Src src, const void *offsets, int kind, rs_u64 S, Dst out, rs_u64 *queue, const unsigned *flags)
{
    rs_seg_short_pairs<Src, Dst, T, Op>(src, offsets, kind, S, out, queue, flags);
}

/* argmin / argmax of 4-byte values where rs_seg_fast applies (float32, int32, uint32), in launches that can pack:
 * the reductions' seg_short (rs_seg_short) over pairs, its pool holding the values (rs_arg_pool), the lane groups
 * rs_seg_group_arg_pool; 8 blocks per SM as seg_short_arg. Over 90 % one-element segments (H100, 2^28 float32
 * argmax) seg_short_arg and seg_medium_arg took 0.84 + 0.62 ms and this kernel 1.11 with seg_medium_arg idle; the
 * call 1.55 -> 1.17 ms (docs/PERFORMANCE.md, "Segmented argmin / argmax in packed batches"). At 8 blocks ptxas gives
 * it a 24-byte stack; bounded at 6 (40 registers, no stack) it ran the same, 1.140-1.142 ms against 1.142-1.143
 * (docs/PERFORMANCE.md, "thirty-third session"). */
template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(8))
    seg_short_arg_packed(Src src, const void *offsets, int kind, rs_u64 S, Dst out, rs_u64 *queue,
                         const unsigned *flags, unsigned stage)
{
    rs_seg_short<1, Src, Dst, T, Op>(src, offsets, kind, S, out, queue, flags, nullptr, stage);
}

/* One task's entries first .. first + count - 1 (count <= 32) by the warp. */
template <typename Src, typename Dst, typename T, class Op>
__device__ __forceinline__ void rs_seg_medium_task(Src src, const rs_u64 *queue, Dst out, rs_u64 first,
                                                   unsigned count, unsigned lane)
{
    const rs_u64 et = first + lane;
    const rs_u64 my_seg = lane < count ? queue[1 + 2 * et] : 0;
    const rs_u64 my_base = lane < count ? queue[2 + 2 * et] : 0;
    for (unsigned j = 0; j < count;) {
        /* argmin / argmax: the pairs with rs_seg_group's batch (values only in registers; float64 / float16 /
         * bfloat16 pairs keep a warp a segment) */
        if constexpr (sizeof(T) <= 8 || (rs_is_arg<Op>::value && rs_seg_fast<T, Op>::on)) {
            const unsigned nb = rs_seg_small_batch<Src, Dst, T, Op>(src, out, my_seg, my_base, j, count, lane);
            if (nb) {
                j += nb;
                continue;
            }
        }
        const rs_u64 sl = __shfl_sync(0xffffffffu, my_seg, j), base = __shfl_sync(0xffffffffu, my_base, j);
        const T v = rs_seg_team<T, Op>(src, sl >> RS_SEG_LEN_SHIFT, lane, [=](rs_u64 i) { return base + i; });
        if (lane == 0) rs_put(out, sl & RS_SEG_SEG_MASK, rs_out<Op>(v));
        j++;
    }
}

/* seg_medium of segmented.cl: the queued segments, a warp each (rs_seg_team over the segment), on a grid of the
 * blocks that fit at once. The queue's first RS_SEG_DEAL_STATIC / 4 of the entries (the reductions; argmin / argmax:
 * none) are dealt evenly, warp w taking the w-th share, and the rest are cut into tasks of c consecutive entries
 * taken from a counter (the word after the queue, zeroed by the host), so that a warp whose segments are long takes
 * fewer: with tasks of m / (the grid's warps) dealt in turn on the host's grid of 8 blocks an SM (1.6 waves at
 * seg_medium's 5), 1 .. 2000-value segments took 28 % longer than 1000-value ones for the same bytes (H200, 2^28;
 * docs/PERFORMANCE.md, "seg_medium's tasks by time"). The next task's number is fetched while the warp works on the
 * current one. The warp's lanes read a task's entries (up to 32), passed round by shuffles; runs of entries of at
 * most 128 values go through rs_seg_small_batch. The order in which segments are done changes no bits. */
template <typename Src, typename Dst, typename T, class Op>
__device__ __forceinline__ void rs_seg_medium(Src src, const rs_u64 *queue, rs_u64 q_bound, Dst out,
                                              const unsigned *flags)
{
    if (flags[0]) return;
    const rs_u64 qn = *(const unsigned *)queue, m = qn < q_bound ? qn : q_bound;
    if (m == 0) return; /* nothing queued (packed batches): no warp's atomic on the counter (+1.5 % over 90 % ones) */
    const unsigned lane = threadIdx.x % RS_SEG_LANES;
    const rs_u64 warps = (rs_u64)gridDim.x * RS_SEG_ROWS;
    const rs_u64 w = blockIdx.x * (rs_u64)RS_SEG_ROWS + threadIdx.x / RS_SEG_LANES;
    /* argmin / argmax all from the counter (their seg_medium_arg spilled 108 bytes with the dealt share beside it) */
    constexpr unsigned quarters = rs_is_arg<Op>::value ? 0 : RS_SEG_DEAL_STATIC;
    constexpr unsigned c_div = rs_is_arg<Op>::value ? 4 : 2; /* tasks a warp from the counter, about */
    const rs_u64 s = quarters * m / (4 * warps), rest0 = s * warps, per = (m - rest0) / (c_div * warps);
    const unsigned c = per < 1 ? 1 : per > RS_SEG_LANES ? RS_SEG_LANES : (unsigned)per;
    unsigned *const ctr = (unsigned *)(queue + 1 + 2 * q_bound);
    unsigned k = lane == 0 ? atomicAdd(ctr, 1u) : 0u; /* the first task from the counter, fetched before the share */
    rs_u64 first = w * s, end = first + s;
    for (;;) {
        if (first >= end) {
            first = rest0 + (rs_u64)__shfl_sync(0xffffffffu, k, 0) * c;
            if (first >= m) break;
            end = m - first < c ? m : first + c;
            k = lane == 0 ? atomicAdd(ctr, 1u) : 0u; /* the next one, fetched while this one runs */
        }
        const unsigned count = end - first < RS_SEG_LANES ? (unsigned)(end - first) : RS_SEG_LANES;
        rs_seg_medium_task<Src, Dst, T, Op>(src, queue, out, first, count, lane);
        first += count;
    }
}

/* The reductions' seg_medium has a launch bound: 5 blocks per SM for 4-byte values, 4 for 8-byte ones (at most 48 / 64
 * registers). Unbounded, ptxas gave the float32 sum 58 registers and the int32 sum 48, then 40 and 63 with the groups
 * above, and whichever had more ran 1000-value segments about 30 % slower (H200, 2^28). argmin / argmax's
 * (seg_medium_arg, the same body) takes the same bound on its own (pairs of values of up to 4 bytes: 5 blocks): with
 * the lane groups for their small segments (rs_seg_small_batch, which pairs took only from the twenty-second session
 * on) it went unbounded from 40 to 55 registers, and argmax over 1000-value segments from 0.54 to 0.69-0.71 ms; a bound
 * of 6 blocks made the int8 instances spill 44-76 bytes (H200, docs/PERFORMANCE.md). */
template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(sizeof(T) <= 4 ? 5 : 4))
    seg_medium(Src src, const rs_u64 *queue, rs_u64 q_bound, Dst out, const unsigned *flags)
{
    rs_seg_medium<Src, Dst, T, Op>(src, queue, q_bound, out, flags);
}

template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(sizeof(T::v) <= 4 ? 5 : 4))
    seg_medium_arg(Src src, const rs_u64 *queue, rs_u64 q_bound, Dst out, const unsigned *flags)
{
    rs_seg_medium<Src, Dst, T, Op>(src, queue, q_bound, out, flags);
}

/* rs_seg_find of segmented.cl: the number of offsets[0 .. S] that are <= p, from lo (offsets[i] <= p for i < lo), by
 * the warp: 32 probes per round spread evenly over [lo, hi), the range shrinking 33-fold. Warp-uniform. (The OpenCL
 * twin finds the same number by a binary search per work-item: a group barrier inside the search's data-dependent
 * loop broke PoCL's workitemloops.) */
__device__ __forceinline__ rs_u64 rs_seg_find(const void *offsets, int kind, rs_u64 S, rs_u64 p, rs_u64 lo,
                                              unsigned lane)
{
    rs_u64 hi = S + 1;
    while (hi > lo) {
        const rs_u64 d = hi - lo, x = lo + ((lane + 1) * d) / 33;
        const unsigned k = __popc(__ballot_sync(0xffffffffu, rs_seg_off(offsets, kind, x) <= p));
        const rs_u64 x_lo = lo + ((rs_u64)k * d) / 33, x_hi = lo + ((rs_u64)(k + 1) * d) / 33;
        if (k > 0) lo = x_lo + 1; /* x_{k-1} */
        if (k < RS_SEG_LANES) hi = x_hi;
    }
    return lo;
}

/* rs_seg_vidx of segmented.cl: where value i of a segment's level-l values lives (l >= 1, q0 its start's tile). */
__device__ __forceinline__ rs_u64 rs_seg_vidx(unsigned level, rs_u64 tiles, rs_u64 q0, rs_u64 i)
{
    return level == 1 ? 2 * (q0 + i) + (i == 0) : (level % 2) * tiles + q0 + i;
}

/* RS_SEG_TILES_MARKS=1 (a build's choice; off by default: written in the thirty-eighth session, compiled, and not yet
 * run, as no GPU was lent after it was written): the marks of every level of seg_tiles written before its level 0, which
 * then reads them as the later levels do instead of searching the offsets twice a tile. For each segment s longer
 * than RS_SEG_TILE, [o, e): first[o / TILE] = s (its first chunk) and cont[q] = s for the tiles q whose first element
 * lies inside it after its start (o < q TILE < e: its later chunks). A tile holds at most one of each (two segments
 * longer than a tile cannot both start in it, nor both hold its first element), so these are exactly the marks the
 * searches give, and where none applies the mark stays RS_SEG_NONE (the host fills the 2 x tiles words first). A warp
 * reads 32 consecutive segments' offsets (coalesced) and writes the marks of each long one among them together, a
 * tile a lane. Why: over power-law segments level 0 took 245 us of the float32 sum's 0.73 ms (H100, 2^28), each warp
 * making about ten dependent reads of offsets before its tile's loads, and 58 % of those tiles hold no chunk
 * (docs/PERFORMANCE.md, "seg_scan_short's pool of 6144 values; the keys' pass over resident blocks"). */
#ifndef RS_SEG_TILES_MARKS
#define RS_SEG_TILES_MARKS 0
#endif
__global__ void __launch_bounds__(RS_GROUP)
    seg_tiles_marks(const void *offsets, int kind, rs_u64 S, rs_u64 tiles, rs_u64 *marks, const unsigned *flags,
                    const rs_u64 *runs, const rs_u64 *queue)
{
    if (flags[0] || !(reinterpret_cast<const unsigned *>(queue)[1] & 1u)) return;
    S = rs_seg_count(runs, S);
    const unsigned lane = threadIdx.x % RS_SEG_LANES;
    const rs_u64 warps = (rs_u64)gridDim.x * RS_SEG_ROWS;
    for (rs_u64 b = (blockIdx.x * (rs_u64)RS_SEG_ROWS + threadIdx.x / RS_SEG_LANES) * RS_SEG_LANES; b < S;
         b += warps * RS_SEG_LANES) { /* warp-uniform */
        const rs_u64 s = b + lane;
        rs_u64 o = 0, e = 0;
        if (s < S) {
            o = rs_seg_off(offsets, kind, s);
            e = rs_seg_off(offsets, kind, s + 1);
        }
        for (unsigned m = __ballot_sync(0xffffffffu, e - o > RS_SEG_TILE); m; m &= m - 1) {
            const unsigned j = (unsigned)__ffs((int)m) - 1;
            const rs_u64 oj = __shfl_sync(0xffffffffu, o, j), ej = __shfl_sync(0xffffffffu, e, j);
            const rs_u64 q0 = oj / RS_SEG_TILE, q1 = (ej - 1) / RS_SEG_TILE;
            if (lane == 0) marks[q0] = b + j;
            for (rs_u64 q = q0 + 1 + lane; q <= q1; q += RS_SEG_LANES) marks[tiles + q] = b + j;
        }
    }
}

/* seg_tiles of segmented.cl: the segments longer than RS_SEG_TILE, a warp per tile q of the level-0 index space: a
 * later chunk (c >= 1) of the segment containing element q * TILE and the first chunk of the segment longer than a
 * tile that starts inside it. Level 0 finds them (two rs_seg_find) and records them in marks (first[q] = marks[q],
 * cont[q] = marks[tiles + q]), or with RS_SEG_TILES_MARKS reads what seg_tiles_marks wrote; level l >= 1 reads them
 * back and does chunk c = q - q0 of the level's values. */
template <typename Src, typename Dst, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    seg_tiles(Src src, const void *offsets, int kind, rs_u64 S, unsigned level, rs_u64 tiles, T *dst, Dst out,
              rs_u64 *marks, const unsigned *flags, const rs_u64 *runs, const rs_u64 *queue)
{
    /* faulty offsets; or no segment longer than a tile (seg_short's flag): then no tile holds a chunk, and every
     * warp's two binary searches over the offsets found none (H100, 2^28, 44.7 M segments of at most 100 values:
     * 0.27 ms of the segmented reduction's 1.78) */
    const unsigned long_flags = reinterpret_cast<const unsigned *>(queue)[1];
    if (flags[0] || !(long_flags & 1u)) return;
    /* no segment longer than 2^24 (none has two level-1 values): levels >= 2 have nothing to do (H100, 2^26 values
     * in power-law runs: level 2 took 8 us of reduce by key's 0.39 ms, 3 us with this return) */
    if (level >= 2 && !(long_flags & 2u)) return;
    S = rs_seg_count(runs, S);
    const rs_u64 end = rs_seg_off(offsets, kind, S);
    const unsigned lane = threadIdx.x % RS_SEG_LANES;
    const rs_u64 warps = (rs_u64)gridDim.x * RS_SEG_ROWS;
    for (rs_u64 q = blockIdx.x * (rs_u64)RS_SEG_ROWS + threadIdx.x / RS_SEG_LANES; q < tiles; q += warps) {
        rs_u64 seg[2] = {RS_SEG_NONE, RS_SEG_NONE}; /* [0]: a later chunk, [1]: a first chunk */
        if (level == 0 && !RS_SEG_TILES_MARKS) {
            const rs_u64 p = q * RS_SEG_TILE;
            if (p < end) {
                const rs_u64 pe = end - p > RS_SEG_TILE ? p + RS_SEG_TILE - 1 : end - 1;
                const rs_u64 ca = rs_seg_find(offsets, kind, S, p, 0, lane);
                const rs_u64 cb = rs_seg_find(offsets, kind, S, pe, ca, lane);
                if (ca > 0) {
                    const rs_u64 sa = ca - 1, o = rs_seg_off(offsets, kind, sa);
                    const rs_u64 len = rs_seg_off(offsets, kind, sa + 1) - o;
                    if (len > RS_SEG_TILE && o + len > p) seg[o == p] = sa;
                }
                if (cb > ca) {
                    const rs_u64 sb = cb - 1, o = rs_seg_off(offsets, kind, sb);
                    if (rs_seg_off(offsets, kind, sb + 1) - o > RS_SEG_TILE) seg[1] = sb;
                }
            }
            if (lane == 0) {
                marks[tiles + q] = seg[0];
                marks[q] = seg[1];
            }
        } else {
            seg[0] = marks[tiles + q];
            seg[1] = marks[q];
        }
#pragma unroll
        for (unsigned h = 0; h < 2; h++) {
            const rs_u64 s = seg[h];
            if (s == RS_SEG_NONE) continue;
            const rs_u64 o = rs_seg_off(offsets, kind, s), q0 = o / RS_SEG_TILE, c = h == 1 ? 0 : q - q0;
            const rs_u64 lenl = rs_seg_len(rs_seg_off(offsets, kind, s + 1) - o, level);
            if (lenl < 2 || c * RS_SEG_TILE >= lenl) continue;
            const rs_u64 cb = c * RS_SEG_TILE;
            const rs_u64 cnt = lenl - cb < RS_SEG_TILE ? lenl - cb : RS_SEG_TILE;
            const T v = level == 0 ? rs_seg_team<T, Op>(src, cnt, lane, [=](rs_u64 i) { return o + cb + i; })
                                   : rs_seg_team<T, Op>(src, cnt, lane, [=](rs_u64 i) {
                                         return rs_seg_vidx(level, tiles, q0, cb + i);
                                     });
            if (lane == 0) {
                if (lenl <= RS_SEG_TILE) rs_put(out, s, rs_out<Op>(v));
                else dst[rs_seg_vidx(level + 1, tiles, q0, c)] = rs_out<Op>(v);
            }
        }
    }
}

extern "C" cudaError_t rs_cu_seg_check(int kind, const void *offsets, unsigned long long num_segments,
                                       unsigned long long n, unsigned *flags, unsigned grid, cudaStream_t stream)
{
    seg_check<<<grid, RS_GROUP, 0, stream>>>(offsets, kind, num_segments, n, flags, flags + 1);
    return rs_launched();
}

extern "C" cudaError_t rs_cu_seg_scan_heads(int kind, const void *offsets, unsigned long long num_segments,
                                            unsigned long long n, unsigned *flags, void *heads, unsigned grid,
                                            cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(heads, 0, (size_t)rs_cu_seg_heads_bytes(n), stream);
    if (err != cudaSuccess) return err;
    seg_scan_heads<<<grid, RS_GROUP, 0, stream>>>(offsets, kind, num_segments, n, flags, flags + 1,
                                                  static_cast<rs_u64 *>(heads));
    return rs_launched();
}

/* seg_short_pairs where the mean segment holds at most 7 values (n <= 7 S, tiles of RS_SEG_TILE counted whole): a
 * pair of batches then averages at most 3584 values, so most pairs fit the pool of `values` (4096 for 4-byte values);
 * a pair that does not takes the unpacked path, its threads folding from global memory (90 % one-element segments
 * average 6). */
static inline bool rs_seg_pairs_fit(rs_u64 tiles, rs_u64 S, unsigned values)
{
    return tiles * RS_SEG_TILE <= (rs_u64)(values / (RS_SEG_PAIRS * RS_GROUP) - 1) * S;
}

/* The reduction's launches (docs/ALGORITHMS.md, "Segments"): the queue's count and long flag zeroed, seg_short,
 * seg_medium when anything can be queued, seg_tiles per level when the input is longer than a tile. Level 0 reads
 * `in`, level 1 the partials in a, levels >= 2 those in b. */
template <typename Src, typename Dst, typename T, class Op>
static cudaError_t rs_seg_launch(Src in, Dst dst, unsigned levels, int kind, const void *offsets, rs_u64 S,
                                 rs_u64 tiles, T *a, T *b, rs_u64 *mk, rs_u64 *qu, rs_u64 q_bound,
                                 const unsigned *flags, const rs_u64 *live, unsigned grid_short, unsigned grid_medium,
                                 unsigned grid_tiles, cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(qu, 0, sizeof(rs_u64), stream); /* the queue's count and flags */
    if (err == cudaSuccess && RS_SEG_TILES_MARKS && levels > 1) /* seg_tiles_marks writes the tiles with chunks */
        err = cudaMemsetAsync(mk, 0xff, 2 * tiles * sizeof(rs_u64), stream);
    if (err != cudaSuccess) return err;
    if constexpr (rs_is_arg<Op>::value) {
        /* packed batches as the reductions' below, for 4-byte values that rs_seg_fast takes (8-byte ones: not
         * measured; float64, float16, bfloat16: no fast fold for rs_seg_group_arg_pool) */
        typedef typename rs_seg_pooling<Src, T>::P P;
        constexpr unsigned values = RS_SEG_STAGE_BYTES / sizeof(P);
        bool packed = false;
        if constexpr (sizeof(P) == 4 && rs_seg_fast<T, Op>::on) {
            packed = tiles * RS_SEG_TILE <= (rs_u64)(values / RS_GROUP) * S;
            if (rs_seg_pairs_fit(tiles, S, values)) {
                const auto kernel = seg_short_pairs<Src, Dst, T, Op>;
                kernel<<<rs_resident_grid(kernel, grid_short, values * sizeof(P)), RS_GROUP, values * sizeof(P),
                         stream>>>(in, offsets, kind, S, dst, qu, flags, values);
            } else if (packed) {
                seg_short_arg_packed<Src, Dst, T, Op><<<grid_short, RS_GROUP, values * sizeof(P), stream>>>(
                    in, offsets, kind, S, dst, qu, flags, values);
            }
        }
        if (!packed)
            seg_short_arg<Src, Dst, T, Op><<<grid_short, RS_GROUP, 0, stream>>>(in, offsets, kind, S, dst, qu, flags);
    } else {
        /* Packed batches only where the mean segment is short enough for a batch of 256 to fit (n <= 16 S for 4-byte
         * values, 8 S for 8-byte ones), and not for reduce by key (live: its run count is on the device): the pool is dynamic shared
         * memory, so the other launches keep the L1 cache that the threads' own loads use (with a static pool the
         * power-law sums lost 8 % on the H200). 8-byte values: 6 blocks an SM, not the host grid's 8. */
        constexpr unsigned values = RS_SEG_STAGE_BYTES / sizeof(T);
        const unsigned stage = !live && tiles * RS_SEG_TILE <= (rs_u64)(values / RS_GROUP) * S ? values : 0u;
        bool pairs = false;
        if constexpr (std::is_same<Src, const T *>::value && sizeof(T) == 4) {
            pairs = stage && rs_seg_pairs_fit(tiles, S, values);
            if (pairs) {
                const auto kernel = seg_short_pairs<Src, Dst, T, Op>;
                kernel<<<rs_resident_grid(kernel, grid_short, stage * sizeof(T)), RS_GROUP, stage * sizeof(T),
                         stream>>>(in, offsets, kind, S, dst, qu, flags, stage);
            }
        }
        if (!pairs)
            seg_short<Src, Dst, T, Op>
                <<<sizeof(T) <= 4 ? grid_short : rs_resident_grid(seg_short<Src, Dst, T, Op>, grid_short), RS_GROUP,
                   stage * sizeof(T), stream>>>(in, offsets, kind, S, dst, qu, flags, live, stage);
    }
    err = rs_launched();
    if (err == cudaSuccess && q_bound > 0) {
        err = cudaMemsetAsync(qu + 1 + 2 * q_bound, 0, sizeof(rs_u64), stream); /* seg_medium's task counter */
        if (err != cudaSuccess) return err;
        if constexpr (rs_is_arg<Op>::value)
            seg_medium_arg<Src, Dst, T, Op><<<rs_resident_grid(seg_medium_arg<Src, Dst, T, Op>, grid_medium),
                                              RS_GROUP, 0, stream>>>(in, qu, q_bound, dst, flags);
        else
            seg_medium<Src, Dst, T, Op><<<rs_resident_grid(seg_medium<Src, Dst, T, Op>, grid_medium), RS_GROUP, 0,
                                          stream>>>(in, qu, q_bound, dst, flags);
        err = rs_launched();
    }
    if (err == cudaSuccess && RS_SEG_TILES_MARKS && levels > 1) {
        seg_tiles_marks<<<grid_tiles, RS_GROUP, 0, stream>>>(offsets, kind, S, tiles, mk, flags, live, qu);
        err = rs_launched();
    }
    for (unsigned level = 0; err == cudaSuccess && levels > 1 && level < levels; level++) {
        if (level == 0)
            seg_tiles<Src, Dst, T, Op><<<grid_tiles, RS_GROUP, 0, stream>>>(in, offsets, kind, S, 0, tiles, a, dst,
                                                                            mk, flags, live, qu);
        else
            seg_tiles<const T *, Dst, T, Op><<<grid_tiles, RS_GROUP, 0, stream>>>(
                level == 1 ? a : b, offsets, kind, S, level, tiles, b, dst, mk, flags, live, qu);
        err = rs_launched();
    }
    return err;
}

extern "C" cudaError_t rs_cu_seg_reduce(int in_dtype, int out_dtype, int op, unsigned levels, const void *src,
                                        int kind, const void *offsets, unsigned long long num_segments,
                                        unsigned long long tiles, void *ws_a, void *ws_b, unsigned long long *marks,
                                        unsigned long long *queue, unsigned long long q_bound, void *out,
                                        const unsigned *flags, const unsigned long long *runs, unsigned grid_short,
                                        unsigned grid_medium, unsigned grid_tiles, cudaStream_t stream)
{
    return rs_dispatch_scan(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        typedef typename rs_scan_dst<X, T>::type Dst;
        typedef typename rs_scan_src<X>::type Src;
        return rs_seg_launch<Src, Dst, T, Op>(rs_scan_src<X>::make(src, in_dtype),
                                              rs_scan_dst<X, T>::make(out, out_dtype),
                                              levels, kind, offsets, num_segments, tiles, (T *)ws_a, (T *)ws_b,
                                              (rs_u64 *)marks, (rs_u64 *)queue, q_bound, flags, (const rs_u64 *)runs,
                                              grid_short, grid_medium, grid_tiles, stream);
    });
}

/* argmin / argmax: the same launches over (value, index) pairs (rs_op_arg above); ws_a / ws_b hold pairs. */
extern "C" cudaError_t rs_cu_seg_argext(int dtype, int want_max, unsigned levels, const void *src, int kind,
                                        const void *offsets, unsigned long long num_segments,
                                        unsigned long long tiles, void *ws_a, void *ws_b, unsigned long long *marks,
                                        unsigned long long *queue, unsigned long long q_bound, void *out_v,
                                        unsigned long long *out_i, const unsigned *flags, unsigned grid_short,
                                        unsigned grid_medium, unsigned grid_tiles, cudaStream_t stream)
{
    return rs_dispatch_dtype(dtype, [&](auto xt) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef rs_argp<X> T;
        static_assert(sizeof(T) == 16, "RS_SEG_ARG_PAIR_BYTES");
        const rs_arg_src<X> in{(const X *)src};
        const rs_arg_dst<X> dst{(X *)out_v, (rs_u64 *)out_i};
        if (want_max)
            return rs_seg_launch<rs_arg_src<X>, rs_arg_dst<X>, T, rs_op_arg<X, RS_MAX>>(
                in, dst, levels, kind, offsets, num_segments, tiles, (T *)ws_a, (T *)ws_b, (rs_u64 *)marks,
                (rs_u64 *)queue, q_bound, flags, NULL, grid_short, grid_medium, grid_tiles, stream);
        return rs_seg_launch<rs_arg_src<X>, rs_arg_dst<X>, T, rs_op_arg<X, RS_MIN>>(
            in, dst, levels, kind, offsets, num_segments, tiles, (T *)ws_a, (T *)ws_b, (rs_u64 *)marks,
            (rs_u64 *)queue, q_bound, flags, NULL, grid_short, grid_medium, grid_tiles, stream);
    });
}
