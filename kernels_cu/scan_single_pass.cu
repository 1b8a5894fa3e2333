/* Single-pass grid scan (docs/ALGORITHMS.md, "Grid level", single_pass). Twin: kernels_cl/scan_single_pass.cl,
 * which documents the algorithm in full; the steps, the slot layout and the order of combination are the same.
 *
 *   scan_single_pass<B, IN_T, T, Op>(const IN_T *in, T *out, unsigned long long *flags, n, exclusive, T init,
 *                                    unsigned spins, int inplace)
 *
 * Tiles (sections of B) are taken from the ticket counter flags[0] (never blockIdx); the prefix of tile j is the
 * fixed expression P[j] = init (+) B(k1, (j >> k1) - 1) (+) ... over the set bits k1 > k2 > ... of j, with
 * B(0, i) = S[i] (the block scan's last element) and B(k, i) = B(k-1, 2i) (+) B(k-1, 2i+1). Slot B(k, i) is at
 * flags + RS_SP_SLOT_BASE + (i << (k+1)) + 2^k - 1 (two words for 64-bit T), each word tag << 32 | 32 value
 * bits, written with atomicExch and read with atomicAdd(p, 0): tag and value are read together. Bounded waits
 * with the decoupled fallback (spins polls, then the block computes the value from the input; spins = 0 never
 * polls). Thread 0 does the bookkeeping; every __syncthreads() is reached by all threads. */
#include <string.h>

#include "common.cuh"
#include "cu_launch.h"
#include "scan_brent_kung.cuh"
#include "scan_coarsened.cuh"
#include "scan_io.cuh"
#include "scan_kogge_stone.cuh"
#include "scan_kogge_stone_db.cuh"

#define RS_SP_SLOT_BASE 16
#define RS_SP_TAG (1ull << 32)
#define RS_SP_LEVELS 64
#define RS_SP_NODES (2 * RS_SP_LEVELS + 2)
#define RS_SP_IMASK ((1ull << 57) - 1)
#define RS_SP_EXPANDED (1ull << 63)
#define RS_SP_DONE (~0ull)

typedef unsigned long long rs_sp_word_t;

__device__ __forceinline__ rs_u64 rs_sp_word(unsigned k, rs_u64 i) { return (i << (k + 1)) + ((1ull << k) - 1); }

/* The bits of a value of T (as_uint / as_ulong in the OpenCL twin), and back. */
__device__ __forceinline__ unsigned long long rs_sp_bits(int v) { return (unsigned)v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(unsigned v) { return v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long rs_sp_bits(long long v) { return (unsigned long long)v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(unsigned long long v) { return v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, int *v) { *v = (int)(unsigned)b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, unsigned *v) { *v = (unsigned)b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, float *v) { *v = __uint_as_float((unsigned)b); }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, long long *v) { *v = (long long)b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, unsigned long long *v) { *v = b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, double *v) { *v = __longlong_as_double((long long)b); }

template <typename T> __device__ __forceinline__ void rs_sp_publish(rs_sp_word_t *slots, unsigned k, rs_u64 i, T v)
{
    const rs_u64 w = rs_sp_word(k, i);
    const unsigned long long b = rs_sp_bits(v);
    if (sizeof(T) == 8) {
        atomicExch(slots + 2 * w, RS_SP_TAG | (b & 0xffffffffull));
        atomicExch(slots + 2 * w + 1, RS_SP_TAG | (b >> 32));
    } else {
        atomicExch(slots + w, RS_SP_TAG | b);
    }
}

/* One poll of B(k, i): true and *v when published. */
template <typename T> __device__ __forceinline__ bool rs_sp_peek(rs_sp_word_t *slots, unsigned k, rs_u64 i, T *v)
{
    const rs_u64 w = rs_sp_word(k, i);
    if (sizeof(T) == 8) {
        const rs_sp_word_t lo = atomicAdd(slots + 2 * w, 0ull);
        if ((lo >> 32) != 1) return false;
        const rs_sp_word_t hi = atomicAdd(slots + 2 * w + 1, 0ull);
        if ((hi >> 32) != 1) return false;
        rs_sp_from_bits((hi << 32) | (lo & 0xffffffffull), v);
    } else {
        const rs_sp_word_t x = atomicAdd(slots + w, 0ull);
        if ((x >> 32) != 1) return false;
        rs_sp_from_bits(x & 0xffffffffull, v);
    }
    return true;
}

template <typename T> struct rs_sp_state {
    rs_u64 j;
    unsigned tz, rb, cur_bit;
    int sp, vp, pending;
    T cur;
};

template <typename T>
__device__ __forceinline__ void rs_sp_start(rs_sp_state<T> *st, rs_sp_word_t *slots, rs_u64 j, T total)
{
    rs_sp_publish<T>(slots, 0, j, total);
    st->j = j;
    unsigned tz = 0;
    for (rs_u64 x = j; x & 1; x >>= 1) ++tz;
    st->tz = tz;
    st->rb = 0;
    st->cur_bit = 0;
    st->sp = 0;
    st->vp = 0;
    st->pending = 0;
    st->cur = total;
}

/* Thread 0: the bookkeeping of kernels_cl/scan_single_pass.cl's rs_sp_step, step for step. */
template <typename T, class Op>
__device__ rs_u64 rs_sp_step(rs_sp_state<T> *st, rs_sp_word_t *slots, rs_u64 *nodes, T *vst, T *vals, T red,
                             unsigned spins, int inplace, T init, T *p)
{
    if (st->pending) {
        const rs_u64 i = nodes[st->sp - 1] & RS_SP_IMASK;
        T v = red, pub;
        __threadfence();
        if (inplace && rs_sp_peek<T>(slots, 0, i, &pub)) v = pub; /* the input may have been overwritten */
        else rs_sp_publish<T>(slots, 0, i, v);
        st->sp--;
        vst[st->vp++] = v;
        st->pending = 0;
    }
    for (;;) {
        if (st->sp == 0) {
            if (st->vp) {
                const unsigned b = st->cur_bit;
                vals[b] = vst[--st->vp];
                if (b < st->tz) {
                    st->cur = Op::combine(vals[b], st->cur);
                    rs_sp_publish<T>(slots, b + 1, st->j >> (b + 1), st->cur);
                }
                st->rb = b + 1;
            }
            while (st->rb < RS_SP_LEVELS && !((st->j >> st->rb) & 1)) st->rb++;
            if (st->rb >= RS_SP_LEVELS) {
                T acc = init;
                for (int b = RS_SP_LEVELS - 1; b >= 0; --b)
                    if ((st->j >> b) & 1) acc = Op::combine(acc, vals[b]);
                *p = acc;
                return RS_SP_DONE;
            }
            st->cur_bit = st->rb;
            nodes[st->sp++] = ((st->j >> st->rb) - 1) | ((rs_u64)st->rb << 57);
            continue;
        }
        const rs_u64 node = nodes[st->sp - 1];
        const unsigned k = (unsigned)(node >> 57) & 63u;
        const rs_u64 i = node & RS_SP_IMASK;
        if (node & RS_SP_EXPANDED) {
            const T right = vst[--st->vp];
            const T left = vst[--st->vp];
            const T v = Op::combine(left, right);
            rs_sp_publish<T>(slots, k, i, v);
            st->sp--;
            vst[st->vp++] = v;
            continue;
        }
        T v;
        bool got = false;
        for (unsigned s = 0; s < spins && !got; ++s) got = rs_sp_peek<T>(slots, k, i, &v);
        if (got) {
            st->sp--;
            vst[st->vp++] = v;
            continue;
        }
        if (k == 0) {
            st->pending = 1;
            return i;
        }
        nodes[st->sp - 1] = node | RS_SP_EXPANDED;
        nodes[st->sp++] = (2 * i + 1) | ((rs_u64)(k - 1) << 57);
        nodes[st->sp++] = (2 * i) | ((rs_u64)(k - 1) << 57);
    }
}

/* The balanced pairwise tree over r[0..255] (scan_grid.cu's rs_scan_tree_total); the root to every thread. */
template <typename T, class Op> __device__ __forceinline__ T rs_sp_tree_total(T *r)
{
    const unsigned t = threadIdx.x;
    for (unsigned d = 1; d < RS_GROUP; d <<= 1) {
        __syncthreads();
        const unsigned i = (t + 1) * 2 * d - 1;
        if (i < RS_GROUP) r[i] = Op::combine(r[i - d], r[i]);
    }
    __syncthreads();
    return r[RS_GROUP - 1];
}

/* The whole block: B(0, tile) from the input with the tile_reduce expression. */
template <typename X, typename T, class Op>
__device__ T rs_sp_reduce_tile(const X *in, T *r, rs_u64 tile, rs_u64 n, unsigned section, int inplace)
{
    const unsigned t = threadIdx.x;
    const unsigned items = section / RS_GROUP;
    const rs_u64 first = tile * section + (rs_u64)t * items;
    T acc = first < n ? rs_load<T>(in, first) : Op::identity();
    for (unsigned k = 1; k < items; ++k)
        acc = Op::combine(acc, first + k < n ? rs_load<T>(in, first + k) : Op::identity());
    if (inplace) __threadfence();
    r[t] = acc;
    return rs_sp_tree_total<T, Op>(r);
}

template <class B, typename X, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP) scan_single_pass(const X *in, T *out, rs_sp_word_t *flags, rs_u64 n,
                                                             int exclusive, T init, unsigned spins, int inplace)
{
    __shared__ __align__(16) T s[B::SECTION];
    __shared__ __align__(16) T aux[B::AUX];
    __shared__ __align__(16) T r[RS_GROUP];
    __shared__ rs_u64 nodes[RS_SP_NODES];
    __shared__ T vst[RS_SP_LEVELS + 1];
    __shared__ T vals[RS_SP_LEVELS];
    __shared__ rs_u64 tile_l, cmd_l;
    __shared__ T p_l;
    const unsigned t = threadIdx.x;
    const rs_u64 tiles = (n + (B::SECTION - 1)) / B::SECTION;
    rs_sp_word_t *slots = flags + RS_SP_SLOT_BASE;
    for (;;) {
        if (t == 0) tile_l = atomicAdd(flags, 1ull);
        __syncthreads();
        const rs_u64 j = tile_l;
        if (j >= tiles) break;
        const rs_u64 base = j * B::SECTION;
        rs_scan_load<T, Op>(s, in, base, n, B::SECTION);
        B::template scan<Op>(s, aux);
        rs_sp_state<T> st;
        if (t == 0) rs_sp_start<T>(&st, slots, j, s[B::SECTION - 1]);
        T red = Op::identity();
        for (;;) {
            if (t == 0) cmd_l = rs_sp_step<T, Op>(&st, slots, nodes, vst, vals, red, spins, inplace, init, &p_l);
            __syncthreads();
            const rs_u64 c = cmd_l;
            if (c == RS_SP_DONE) break;
            red = rs_sp_reduce_tile<X, T, Op>(in, r, c, n, B::SECTION, inplace);
        }
        /* in place: B(0, j) is published before any of tile j's input is overwritten */
        if (inplace) __threadfence();
        rs_scan_store<T, Op>(out, s, base, n, B::SECTION, exclusive, p_l, 1);
        __syncthreads();
    }
}

/* ---- launcher ---- */

template <class F> static cudaError_t rs_sp_dispatch_block(int block, F f)
{
    switch (block) {
    case 1: return f(rs_block_ks());
    case 2: return f(rs_block_ksdb());
    case 3: return f(rs_block_bk());
    case 4: return f(rs_block_coarse());
    }
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t rs_cu_scan_single_pass(int block, int in_dtype, int out_dtype, int op, const void *in,
                                              void *out, unsigned long long *flags, unsigned long long n,
                                              int exclusive, const void *init, unsigned spins, int inplace,
                                              unsigned grid, cudaStream_t stream)
{
    return rs_sp_dispatch_block(block, [&](auto b) -> cudaError_t {
        typedef decltype(b) B;
        return rs_dispatch(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
            typedef typename decltype(xt)::type X;
            typedef typename decltype(tt)::type T;
            typedef typename decltype(ot)::template apply<T> Op;
            T init_v;
            memcpy(&init_v, init, sizeof init_v);
            scan_single_pass<B, X, T, Op><<<grid, RS_GROUP, 0, stream>>>((const X *)in, (T *)out, flags, n,
                                                                          exclusive, init_v, spins, inplace);
            return rs_launched();
        });
    });
}
