/* Scan by key in one pass for the exact operators (docs/ALGORITHMS.md, "Scan by key", one pass). Twin:
 * kernels_cl/scan_by_key.cl.
 *
 *   byk_scan_exact<T, Op>(keys, kkind, in, out, words, n, tiles, exclusive, init, spins, inplace, vec)
 *
 * Only where every order of combination gives the same bits: T an integer type (sum and product wrap, min, max) or
 * a float type under min / max (the first NaN and, among equal values, the leftmost operand win, which no bracketing
 * changes). There the result of the rule ("Segmented scans": each run's own chunks, block scans and chain) equals
 * init (+) x[head] (+) ... (+) x[i] computed in any order, so a run need not be scanned from its own start: the
 * positions are cut into tiles of RS_BYKX_TILE(T) and scanned with the segmented operator
 *     (f1, v1) (+) (f2, v2) = (f1 | f2, f2 ? v2 : v1 (+) v2)       (f: the pair holds a head)
 * where a head's value is init (+) x[head]. A tile's pair goes to its slot at once: INC when the tile holds a head
 * (then its value is the prefix of its last run so far, whatever came before), AGG otherwise, replaced by INC
 * (the carry (+) the pair's value) after its look-back. A tile whose first position is not a head looks back over
 * the slots before it (warp 0, 32 slots a round): the AGGs up to the nearest INC, combined with it, are its carry.
 * A slot still empty after `spins` polls is computed from the keys and values by warp 0 and published (the same
 * value its owner publishes), so nothing waits without bound. Tiles come from a ticket counter, in order.
 * Slots: words[0] the ticket counter, tile i at words[RS_SP_SLOT_BASE + i] (two words for 8-byte T; lookback.cuh's
 * format). A block per tile; keys, values and output are read and written once.
 *
 * The segmented scan of the same operators runs this kernel too, with kkind RS_KEYS_BITS (keys.cuh): the heads are
 * the bits that seg_scan_heads (segmented.cu) set at the segments' starts, and only the positions its segments cover
 * are stored. A run there is a segment, so the bits are the rule's as well (docs/ALGORITHMS.md, "Segmented scans"). */
#include <string.h>

#include <type_traits>

#include "common.cuh"
#include "cu_launch.h"
#include "keys.cuh"
#include "lookback.cuh"

/* Values per thread: 64 bytes of values and of 4-byte keys in flight per thread. Blocks per SM ptxas compiles for,
 * 4-byte types: 5 (48 registers, 80 bytes spilled) with the whole-warp loads below. int32 sum by key against CUB's
 * InclusiveSumByKey, H100 (docs/PERFORMANCE.md, "Scan by key in one pass for the exact operators" and "Scan by key:
 * whole-warp loads"): whole-warp loads at 5 blocks 0.98-1.01 at 2^28, 0.98-1.02 at 2^26; at 4 blocks 0.91-1.11, by
 * the runs' lengths; each thread's own loads at 4 blocks (64 registers) 0.97-1.01 at 2^28, 0.94-1.01 at 2^26, at 5
 * blocks (100 bytes spilled) 0.92-0.93 at 2^28, at 3 blocks 0.89-0.95; ptxas's own choice (73-77 registers)
 * 0.74-0.81 on the H200; 8 values per thread at 4 or 6 blocks 0.81-0.91. Streaming loads and stores (__ldcs / __stcs)
 * were slower. 8-byte types: ptxas's choice, each thread's own loads. The macros let a build try other values. */
#ifndef RS_BYKX_ITEMS4
#define RS_BYKX_ITEMS4 16u
#endif
#ifndef RS_BYKX_MIN_BLOCKS
#define RS_BYKX_MIN_BLOCKS 5
#endif
#ifndef RS_BYKX_MIN_BLOCKS8
#define RS_BYKX_MIN_BLOCKS8 1
#endif
/* RS_BYKX_TRANSPOSE: 4-byte values (and 4-byte keys) read and written by whole warps, 512 bytes a load, and handed
 * to each thread's 16 consecutive positions through shared memory (as CUB's BLOCK_LOAD_WARP_TRANSPOSE does), instead
 * of each thread's own four 16-byte loads; where the tile lies below n and keys, in and out are 16-byte aligned. The
 * bits do not change: the same values reach the same threads. */
#ifndef RS_BYKX_TRANSPOSE
#define RS_BYKX_TRANSPOSE 1
#endif
template <typename T> struct rs_bykx_items {
    static const unsigned value = sizeof(T) == 4 ? RS_BYKX_ITEMS4 : 8u;
};
template <typename T> struct rs_bykx_min_blocks {
    static const int value = sizeof(T) == 4 ? RS_BYKX_MIN_BLOCKS : RS_BYKX_MIN_BLOCKS8;
};
#define RS_BYKX_TILE(T) (RS_GROUP * rs_bykx_items<T>::value)

/* (f, v) (+) (f2, v2), the earlier pair first */
template <typename T, class Op> __device__ __forceinline__ void rs_bykx_join(bool &f, T &v, bool f2, T v2)
{
    v = f2 ? v2 : Op::combine(v, v2);
    f = f || f2;
}

/* Lane l's inclusive pair over lanes 0 .. l: a Kogge-Stone by up-shuffles, each step joining the earlier pair first
 * (min / max are associative but not commutative, so the lanes' order is kept) */
template <typename T, class Op> __device__ __forceinline__ void rs_bykx_warp_inclusive(bool &f, T &v)
{
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
        const bool fo = __shfl_up_sync(0xffffffffu, (int)f, d) != 0;
        const T vo = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) {
            bool g = fo;
            T w = vo;
            rs_bykx_join<T, Op>(g, w, f, v);
            f = g, v = w;
        }
    }
}

/* Warp 0: the pair of tile i computed from the keys and the values (the look-back's slow path): lane l folds its
 * share of the tile left to right, then the shares are joined. */
template <typename T, class Op, bool BITS>
__device__ __forceinline__ void rs_bykx_tile_pair(const void *keys, int kkind, const T *in, rs_u64 n, rs_u64 i,
                                                  T init, bool *f, T *v)
{
    const unsigned per = RS_BYKX_TILE(T) / 32u;
    const rs_u64 first = i * RS_BYKX_TILE(T) + (rs_u64)(threadIdx.x & 31u) * per;
    bool g = false;
    T w = Op::identity();
    for (unsigned k = 0; k < per; k++) {
        const rs_u64 p = first + k;
        if (p >= n) break;
        if (BITS ? rs_head_bits(keys, n, p, 1) != 0 : p == 0 || rs_key(keys, kkind, p) != rs_key(keys, kkind, p - 1)) {
            w = Op::combine(init, in[p]);
            g = true;
        } else {
            w = Op::combine(w, in[p]);
        }
    }
    rs_bykx_warp_inclusive<T, Op>(g, w);
    *f = __shfl_sync(0xffffffffu, (int)g, 31) != 0;
    *v = __shfl_sync(0xffffffffu, w, 31);
}

/* Warp 0, tile j whose first position is not a head: the carry, the value of that position's run up to the tile's
 * start. Window k holds the slots j - 32 (k + 1) + lane; the nearest INC, then the AGGs after it. */
template <typename T, class Op, bool BITS>
__device__ __forceinline__ T rs_bykx_lookback(const void *keys, int kkind, const T *in, rs_u64 n, rs_sp_word_t *slots,
                                              rs_u64 j, T init, unsigned spins, int inplace)
{
    const unsigned l = threadIdx.x, all = 0xffffffffu;
    T later = Op::identity(); /* the AGGs of the windows already passed (after this window) */
    long long hi = (long long)j;
    for (;;) { /* uniform */
        const long long s = hi - 32 + (long long)l;
        T v = Op::identity();
        unsigned st = s >= 0 ? rs_sp_poll<T>(slots, (rs_u64)s, &v, spins) : RS_SP_ABSENT;
        unsigned inc = __ballot_sync(all, st == RS_SP_INC), miss = __ballot_sync(all, st == 0);
        /* the empty slots above the nearest INC, newest first; one that turns out to hold a head is that INC */
        for (;;) {
            const unsigned above = inc ? ~((2u << (31 - __clz((int)inc))) - 1u) : all;
            const unsigned m = miss & above;
            if (!m) break;
            const unsigned q = 31u - (unsigned)__clz((int)m);
            const rs_u64 sq = (rs_u64)(hi - 32 + (long long)q);
            bool pf;
            T pv;
            rs_bykx_tile_pair<T, Op, BITS>(keys, kkind, in, n, sq, init, &pf, &pv);
            unsigned ps = pf ? RS_SP_INC : RS_SP_AGG;
            if (inplace) { /* the owner publishes before it overwrites its input: a published value wins */
                __threadfence();
                T pub;
                const unsigned got = rs_sp_read<T>(slots, sq, &pub);
                if (got) ps = got, pv = pub;
            }
            if (l == 0) rs_sp_put<T>(slots, sq, ps, pv);
            if (l == q) st = ps, v = pv;
            inc = __ballot_sync(all, st == RS_SP_INC);
            miss &= ~(1u << q);
        }
        const unsigned top = inc ? 31u - (unsigned)__clz((int)inc) : 0u;
        T x = (inc && l < top) || st == RS_SP_ABSENT ? Op::identity() : v;
        /* the lanes in their order, not only grouped (min / max are not commutative: the first NaN, the leftmost of
         * equal values): after step d a lane l that is a multiple of 2d holds lanes [l, l + 2d), lane 0 all 32 */
#pragma unroll
        for (unsigned d = 1; d < 32; d <<= 1) {
            const T y = __shfl_down_sync(all, x, d);
            if (l + d < 32) x = Op::combine(x, y);
        }
        later = Op::combine(__shfl_sync(all, x, 0), later);
        if (inc) return later;
        hi -= 32;
    }
}

/* Thread t's keys (or head bits) and values, positions first .. first + ITEMS - 1: the head mask (bit k: first + k is
 * a head) and the values (the identity past n). vec: keys, in and out 16-byte aligned; full: the whole tile lies
 * below n. */
template <typename T, class Op, unsigned ITEMS, bool BITS>
__device__ __forceinline__ unsigned rs_bykx_load(const void *keys, int kkind, const T *in, rs_u64 n, rs_u64 first,
                                                 bool vec, bool full, T (&x)[ITEMS])
{
    unsigned m = 0;
    if constexpr (BITS) {
        m = rs_head_bits(keys, n, first, ITEMS);
    } else if (vec && full) {
#define RS_BYKX_HEADS(W)                                                                                               \
    for (unsigned h = 0; h < ITEMS; h += RS_COARSE_ITEMS) m |= rs_byk_heads_in<W>(keys, first + h) << h
        if (kkind == RS_INT8 || kkind == RS_UINT8) RS_BYKX_HEADS(1);
        else if (kkind == RS_INT16 || kkind == RS_UINT16) RS_BYKX_HEADS(2);
        else if (kkind == RS_INT32 || kkind == RS_UINT32) RS_BYKX_HEADS(4);
        else RS_BYKX_HEADS(8);
#undef RS_BYKX_HEADS
    } else {
#pragma unroll
        for (unsigned h = 0; h < ITEMS; h += RS_COARSE_ITEMS) m |= rs_byk_heads(keys, kkind, n, first + h, vec) << h;
    }
    if (vec && full) {
        const uint4 *p = reinterpret_cast<const uint4 *>(in + first);
#pragma unroll
        for (unsigned q = 0; q < ITEMS * sizeof(T) / 16; q++) {
            const uint4 r = p[q];
            memcpy(&x[q * (16 / sizeof(T))], &r, 16);
        }
        return m;
    }
#pragma unroll
    for (unsigned k = 0; k < ITEMS; k++) x[k] = first + k < n ? in[first + k] : Op::identity();
    return m;
}

/* A warp's 512 4-byte words as 128 16-byte slots; slot u lives at u ^ ((u >> 3) & 7), so that both the coalesced side
 * (lane l: slots l + 32q) and the blocked side (lane l: slots 4l + q) touch 8 distinct 16-byte bank groups in each
 * quarter of the warp. */
__device__ __forceinline__ unsigned rs_bykx_swz(unsigned u) { return u ^ ((u >> 3) & 7u); }

/* The warp's region g[0 .. 128) (16-byte words) into stage, then lane l's words 16l .. 16l + 15 into w */
__device__ __forceinline__ void rs_bykx_warp_in(const uint4 *g, uint4 *stage, unsigned lane, uint4 (&w)[4])
{
    uint4 r[4];
#pragma unroll
    for (unsigned q = 0; q < 4; q++) r[q] = g[lane + 32u * q];
#pragma unroll
    for (unsigned q = 0; q < 4; q++) stage[rs_bykx_swz(lane + 32u * q)] = r[q];
    __syncwarp();
#pragma unroll
    for (unsigned q = 0; q < 4; q++) w[q] = stage[rs_bykx_swz(4u * lane + q)];
    __syncwarp();
}

/* The reverse: lane l's words 16l .. 16l + 15 from w, stored by the warp to g[0 .. 128) in 512-byte rows */
__device__ __forceinline__ void rs_bykx_warp_out(uint4 *g, uint4 *stage, unsigned lane, const uint4 (&w)[4])
{
#pragma unroll
    for (unsigned q = 0; q < 4; q++) stage[rs_bykx_swz(4u * lane + q)] = w[q];
    __syncwarp();
#pragma unroll
    for (unsigned q = 0; q < 4; q++) g[lane + 32u * q] = stage[rs_bykx_swz(lane + 32u * q)];
}

/* Thread t's head mask and values as rs_bykx_load gives them, by whole-warp loads: 4-byte values, 16 per thread, the
 * tile below n, keys, in and out 16-byte aligned (other T: never called) */
template <typename T, unsigned ITEMS, bool BITS>
__device__ __forceinline__ unsigned rs_bykx_load_warp(const void *keys, int kkind, const T *in, rs_u64 n,
                                                      rs_u64 first, rs_u64 wbase, uint4 *stage, T (&x)[ITEMS])
{
    unsigned m = 0;
    if constexpr (sizeof(T) == 4 && ITEMS == 16) {
        const unsigned lane = threadIdx.x & 31u;
        uint4 w[4];
        if constexpr (BITS) {
            m = rs_head_bits(keys, n, first, 16);
        } else if (kkind == RS_INT32 || kkind == RS_UINT32) {
            rs_bykx_warp_in(reinterpret_cast<const uint4 *>(static_cast<const unsigned *>(keys) + wbase), stage, lane,
                            w);
            unsigned k[16];
            memcpy(k, w, sizeof k);
            unsigned prev = __shfl_up_sync(0xffffffffu, k[15], 1);
            if (lane == 0) prev = first ? static_cast<const unsigned *>(keys)[first - 1] : 0u;
            m = first == 0 || k[0] != prev ? 1u : 0u;
#pragma unroll
            for (unsigned j = 1; j < 16; j++) m |= k[j] != k[j - 1] ? 1u << j : 0u;
        } else {
#pragma unroll
            for (unsigned h = 0; h < ITEMS; h += RS_COARSE_ITEMS)
                m |= rs_byk_heads(keys, kkind, n, first + h, true) << h;
        }
        rs_bykx_warp_in(reinterpret_cast<const uint4 *>(in + wbase), stage, lane, w);
        memcpy(x, w, sizeof w);
    }
    return m;
}

template <typename T, unsigned ITEMS>
__device__ __forceinline__ void rs_bykx_store_warp(T *out, uint4 *stage, const T (&x)[ITEMS])
{
    if constexpr (sizeof(T) == 4 && ITEMS == 16) {
        uint4 w[4];
        memcpy(w, x, sizeof w);
        rs_bykx_warp_out(reinterpret_cast<uint4 *>(out), stage, threadIdx.x & 31u, w);
    }
}

/* BITS: kkind is RS_KEYS_BITS (the segmented scan's heads), an instance of its own: the bounds and the bit tests held
 * in the keys' instance cost scan by key 14 % on the H200 (more registers spilled at the launch bound) */
template <typename T, class Op, bool BITS>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(rs_bykx_min_blocks<T>::value))
    byk_scan_exact(const void *keys, int kkind, const T *in, T *out, rs_sp_word_t *words, rs_u64 n, rs_u64 tiles,
                   int exclusive, T init, unsigned spins, int inplace, int vec)
{
    const unsigned ITEMS = rs_bykx_items<T>::value, TILE = RS_GROUP * ITEMS, W = RS_GROUP / 32;
    __shared__ bool wf[W];
    __shared__ T wv[W];
    __shared__ T carry_s;
    __shared__ rs_u64 tile_s;
    const unsigned t = threadIdx.x, lane = t & 31u, warp = t / 32u;
    rs_sp_word_t *slots = words + RS_SP_SLOT_BASE;
    if (t == 0) tile_s = atomicAdd(words, 1ull);
    __syncthreads();
    const rs_u64 j = tile_s;
    if (j >= tiles) return; /* uniform; never with `tiles` blocks */
    const rs_u64 base = j * TILE, first = base + (rs_u64)t * ITEMS;
    const bool full = base + TILE <= n;
    T x[ITEMS];
    /* tr: whole-warp loads and stores (RS_BYKX_TRANSPOSE, 4-byte values 16 to a thread, the tile below n) */
    const bool tr = RS_BYKX_TRANSPOSE && sizeof(T) == 4 && ITEMS == 16 && vec && full;
    __shared__ uint4 stage[RS_BYKX_TRANSPOSE ? W : 1][128];
    const rs_u64 wbase = base + (rs_u64)warp * 32u * ITEMS;
    uint4 *const st = stage[RS_BYKX_TRANSPOSE ? warp : 0];
    const unsigned m = tr ? rs_bykx_load_warp<T, ITEMS, BITS>(keys, kkind, in, n, first, wbase, st, x)
                          : rs_bykx_load<T, Op, ITEMS, BITS>(keys, kkind, in, n, first, vec != 0, full, x);
    /* this thread's pair, then the warp's inclusive pairs */
    bool f = m != 0;
    T v = Op::identity();
#pragma unroll
    for (unsigned k = 0; k < ITEMS; k++) v = (m >> k) & 1u ? Op::combine(init, x[k]) : Op::combine(v, x[k]);
    rs_bykx_warp_inclusive<T, Op>(f, v);
    if (lane == 31) wf[warp] = f, wv[warp] = v;
    /* the pair before this thread: the warp's exclusive one after the earlier warps' */
    bool ef = __shfl_up_sync(0xffffffffu, (int)f, 1) != 0;
    T ev = __shfl_up_sync(0xffffffffu, v, 1);
    if (lane == 0) ef = false, ev = Op::identity();
    __syncthreads();
    bool pf = false, tf = false;
    T pv = Op::identity(), tv = Op::identity();
#pragma unroll
    for (unsigned w = 0; w < W; w++) {
        if (w < warp) rs_bykx_join<T, Op>(pf, pv, wf[w], wv[w]);
        rs_bykx_join<T, Op>(tf, tv, wf[w], wv[w]);
    }
    rs_bykx_join<T, Op>(pf, pv, ef, ev);
    if (warp == 0) {
        const bool head0 = __shfl_sync(0xffffffffu, m, 0) & 1u; /* position base is a head (always for tile 0) */
        if (t == 0) rs_sp_put<T>(slots, j, tf ? RS_SP_INC : RS_SP_AGG, tv);
        T c = Op::identity();
        if (!head0) {
            c = rs_bykx_lookback<T, Op, BITS>(keys, kkind, in, n, slots, j, init, spins, inplace);
            if (t == 0 && !tf) rs_sp_put<T>(slots, j, RS_SP_INC, Op::combine(c, tv));
        }
        if (t == 0) carry_s = c;
    }
    __syncthreads();
    if (inplace) __threadfence(); /* this tile's slot is published before any of its input is overwritten */
    /* the running value before this thread's first position, then its outputs */
    T r = pf ? pv : Op::combine(carry_s, pv);
    const T head_ex = Op::combine(init, Op::identity());
#pragma unroll
    for (unsigned k = 0; k < ITEMS; k++) {
        const bool head = (m >> k) & 1u;
        const T inc = head ? Op::combine(init, x[k]) : Op::combine(r, x[k]);
        x[k] = rs_out<Op>(exclusive ? (head ? head_ex : r) : inc);
        r = inc;
    }
    /* the positions stored: all of them for scan by key, those of the segments for a segmented scan (RS_KEYS_BITS:
     * none after faulty offsets); inside: the whole tile is */
    rs_u64 lo = 0, hi = n;
    if constexpr (BITS) {
        const rs_u64 *const bounds = static_cast<const rs_u64 *>(keys);
        lo = bounds[0];
        hi = bounds[2] ? 0 : bounds[1];
    }
    const bool inside = full && base >= lo && base + TILE <= hi;
    if (tr && inside) {
        rs_bykx_store_warp<T, ITEMS>(out + wbase, st, x);
        return;
    }
    if (vec && inside) {
        uint4 *p = reinterpret_cast<uint4 *>(out + first);
#pragma unroll
        for (unsigned q = 0; q < ITEMS * sizeof(T) / 16; q++) {
            uint4 w;
            memcpy(&w, &x[q * (16 / sizeof(T))], 16);
            p[q] = w;
        }
    } else {
#pragma unroll
        for (unsigned k = 0; k < ITEMS; k++)
            if (first + k >= lo && first + k < hi) out[first + k] = x[k];
    }
}

/* The exact (dtype, op) pairs with one pass (api/src/segmented.c, rs_byk_path, says which): T = the dtype's type. */
template <class F> static cudaError_t rs_bykx_dispatch(int dtype, int op, F f)
{
    const auto ops = [&](auto tag) -> cudaError_t {
        typedef typename decltype(tag)::type T;
        if constexpr (!rs_type_info<T>::is_float) { /* float sums and products are not exact: no instance */
            if (op == RS_SUM) return f(rs_tag<T>(), rs_op_tag<rs_op_sum>());
            if (op == RS_PROD) return f(rs_tag<T>(), rs_op_tag<rs_op_prod>());
        }
        if (op == RS_MIN) return f(rs_tag<T>(), rs_op_tag<rs_op_min>());
        if (op == RS_MAX) return f(rs_tag<T>(), rs_op_tag<rs_op_max>());
        return cudaErrorInvalidValue;
    };
    switch (dtype) {
    case RS_INT32: return ops(rs_tag<int>());
    case RS_UINT32: return ops(rs_tag<unsigned>());
    case RS_INT64: return ops(rs_tag<long long>());
    case RS_UINT64: return ops(rs_tag<unsigned long long>());
    case RS_FLOAT32: return ops(rs_tag<float>());
    case RS_FLOAT64: return ops(rs_tag<double>());
    }
    return cudaErrorInvalidValue;
}

extern "C" unsigned long long rs_cu_byk_exact_words(int dtype, unsigned long long n)
{
    const unsigned long long tile =
        RS_GROUP * (dtype == RS_INT64 || dtype == RS_UINT64 || dtype == RS_FLOAT64 ? 8 : RS_BYKX_ITEMS4);
    const unsigned long long tiles = (n + tile - 1) / tile, per = tile == RS_GROUP * 8ull ? 2 : 1;
    return RS_SP_SLOT_BASE + tiles * per;
}

extern "C" cudaError_t rs_cu_byk_exact(int dtype, int op, int exclusive, const void *init, int kkind, const void *keys,
                                       const void *in, void *out, unsigned long long n, void *words, unsigned spins,
                                       cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(words, 0, (size_t)rs_cu_byk_exact_words(dtype, n) * 8, stream);
    if (err != cudaSuccess) return err;
    const int inplace = in == out;
    const int vec = ((uintptr_t)keys | (uintptr_t)in | (uintptr_t)out) % 16 == 0;
    return rs_bykx_dispatch(dtype, op, [&](auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        T init_v;
        memcpy(&init_v, init, sizeof init_v);
        const rs_u64 tiles = (n + RS_BYKX_TILE(T) - 1) / RS_BYKX_TILE(T);
        auto kernel = kkind == RS_KEYS_BITS ? byk_scan_exact<T, Op, true> : byk_scan_exact<T, Op, false>;
        kernel<<<(unsigned)tiles, RS_GROUP, 0, stream>>>(keys, kkind, static_cast<const T *>(in), static_cast<T *>(out),
                                                         static_cast<rs_sp_word_t *>(words), n, tiles, exclusive,
                                                         init_v, spins, inplace, vec);
        return rs_launched();
    });
}
