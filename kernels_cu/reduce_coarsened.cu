/* Reduction "coarsened": thread coarsening over a fixed tile (seed 002), then the sequential-addressing
 * tree. Twin: kernels_cl/reduce_coarsened.cl.
 * Spec (docs/ALGORITHMS.md): V = 4, K = 4, TILE = GROUP*V*K = 4096. Thread t folds, starting from the
 * identity, elements base + k*GROUP*V + t*V + v for k = 0..K-1 (outer), v = 0..V-1 (inner), identity past n;
 * then for (s = 128; s > 0; s >>= 1) l[t] = l[t] (+) l[t+s] (rs_tree_seq, reduce_common.cuh). The seeds'
 * grid-stride loop would tie the order to the grid size; the fixed tile stride keeps it reproducible (G never
 * changes the result).
 * reduce_coarsened_in / _t of the OpenCL file are one template here (X = IN_T, or T on later passes).
 * The OpenCL file also has the CPU shape of this reduction (reduce_coarsened_cpu_in / _t: one work-item per run of
 * tiles, the 256 thread accumulators in vectors, the same partial per tile bit for bit; docs/ALGORITHMS.md, "CPU
 * shape"). It is OpenCL-only: CUDA devices are GPUs and run this kernel. */
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "common.cuh"
#include "cu_launch.h"
#include "reduce_common.cuh"

#define RS_COARSE_V 4
#define RS_COARSE_K 4
#define RS_COARSE_TILE (RS_GROUP * RS_COARSE_V * RS_COARSE_K)

/* Four X loaded at once (the OpenCL side's vload4): 16 bytes for 4-byte X, 32 bytes (two 16-byte loads)
 * for 8-byte X. Only used when the input pointer is aligned to the vector (checked by the launcher). */
template <typename X> struct alignas(4 * sizeof(X)) rs_vec4 {
    X s[4];
};

/* Thread t's fold of a tile that ends past n, element by element in the coarsened order (identity past n). */
template <typename T, class Op, typename X>
__device__ __forceinline__ T rs_coarse_fold_tail(const X *__restrict__ in, rs_u64 n, rs_u64 base, unsigned t)
{
    T acc = Op::identity();
    for (unsigned k = 0; k < RS_COARSE_K; k++) {
        for (unsigned v = 0; v < RS_COARSE_V; v++) {
            const rs_u64 i = base + k * RS_GROUP * RS_COARSE_V + t * RS_COARSE_V + v;
            acc = Op::combine(acc, i < n ? rs_load<T>(in, i) : Op::identity());
        }
    }
    return acc;
}

/* The block's tree over the threads' values; thread 0 stores it in *partial. Called by every thread. */
template <class Op, typename T>
__device__ __forceinline__ void rs_coarse_finish(T *l, unsigned t, T acc, T *__restrict__ partial)
{
    l[t] = acc;
    const T total = rs_tree_seq_shfl<Op>(l, t); /* reduce_common.cuh: rs_tree_seq's bits */
    if (t == 0) *partial = rs_out<Op>(total);
    __syncthreads(); /* warp 0 still reads l[0..31]; the next tile rewrites l */
}

/* A full tile takes one 4-vector per round (element offset tile*TILE + k*GROUP*V + t*V is a multiple of 4) when
 * VEC; otherwise (and always for a partial tile) element by element. Both fold the same elements in the same
 * order, so the bits agree. `full` depends on the tile only: uniform across the block. */
template <typename X, typename T, class Op, bool VEC>
__global__ void __launch_bounds__(RS_GROUP)
    reduce_coarsened(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials)
{
    __shared__ T l[RS_GROUP];
    const unsigned t = threadIdx.x;
    const rs_u64 ntiles = (n + RS_COARSE_TILE - 1) / RS_COARSE_TILE;
    for (rs_u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const rs_u64 base = tile * RS_COARSE_TILE;
        T acc = Op::identity();
        if (base + RS_COARSE_TILE <= n) {
            if (VEC) {
                rs_vec4<X> v[RS_COARSE_K];
#pragma unroll
                for (unsigned k = 0; k < RS_COARSE_K; k++)
                    v[k] = reinterpret_cast<const rs_vec4<X> *>(in)[(base + k * RS_GROUP * RS_COARSE_V) / RS_COARSE_V +
                                                                    t];
#pragma unroll
                for (unsigned k = 0; k < RS_COARSE_K; k++) {
                    acc = Op::combine(acc, (T)v[k].s[0]);
                    acc = Op::combine(acc, (T)v[k].s[1]);
                    acc = Op::combine(acc, (T)v[k].s[2]);
                    acc = Op::combine(acc, (T)v[k].s[3]);
                }
            } else {
#pragma unroll
                for (unsigned k = 0; k < RS_COARSE_K; k++) {
#pragma unroll
                    for (unsigned v = 0; v < RS_COARSE_V; v++) {
                        const rs_u64 i = base + k * RS_GROUP * RS_COARSE_V + t * RS_COARSE_V + v;
                        acc = Op::combine(acc, rs_load<T>(in, i));
                    }
                }
            }
        } else {
            acc = rs_coarse_fold_tail<T, Op>(in, n, base, t);
        }
        rs_coarse_finish<Op>(l, t, acc, partials + tile);
    }
}

/* A 1-byte integer input (int8, uint8), CUDA-only: four tiles a round, one tree, the bytes folded four to a word.
 * The kernel above keeps 16 bytes per thread in flight for int8 (a quarter of a 4-byte type's), pays a block tree
 * per 4 KiB and an extraction and a combine per byte: int8 summed at 0.83-0.85 of the copy on the H100 at 2^28.
 * Here a block takes RS_COARSE_ROUND consecutive tiles (16 KiB); each thread issues one 16-byte load per tile before
 * it folds any; a sum folds a word with one __dp4a (exact: at most 64 bytes a thread), min and max lane by lane
 * (rs_swar, common.cuh), a product byte by byte; the block's tree runs once for the four tiles, whose value goes to
 * the first tile's partial and the identity to the other three. Every op on integers (wrapping sum and product, min,
 * max) gives the same bits in any order and with any identity folded in, so the partials' reduction, and so the
 * result, is the kernel above's and OpenCL's bit for bit. A round that is not full (the last) reduces its tiles one
 * by one, element by element (rs_coarse_fold_tail). The launcher checks the 16-byte alignment. H100, 2^28, int8
 * sum: 0.92-0.93 of the copy, 0.99-1.00 x CUB (the rounds alone: 0.91; docs/PERFORMANCE.md, "Narrow types, fifth
 * round"). */
#define RS_COARSE_ROUND 4

template <typename X, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    reduce_coarsened_bytes(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials)
{
    static_assert(sizeof(X) == 1 && !rs_type_info<T>::is_float, "1-byte integers only");
    __shared__ T l[RS_GROUP];
    const unsigned t = threadIdx.x;
    const rs_u64 ntiles = (n + RS_COARSE_TILE - 1) / RS_COARSE_TILE;
    const rs_u64 rounds = (ntiles + RS_COARSE_ROUND - 1) / RS_COARSE_ROUND;
    for (rs_u64 round = blockIdx.x; round < rounds; round += gridDim.x) {
        const rs_u64 tile0 = round * RS_COARSE_ROUND, base = tile0 * RS_COARSE_TILE;
        if (base + RS_COARSE_ROUND * RS_COARSE_TILE <= n) { /* uniform across the block */
            uint4 v[RS_COARSE_ROUND];
#pragma unroll
            for (unsigned q = 0; q < RS_COARSE_ROUND; q++)
                v[q] = reinterpret_cast<const uint4 *>(in + base + (rs_u64)q * RS_COARSE_TILE)[t];
            T acc = Op::identity();
            if constexpr (Op::code == RS_SUM) { /* exact: at most 64 bytes a thread */
                typedef typename std::conditional<rs_swar<T, Op>::sgn, int, unsigned>::type I;
                I s = 0;
#pragma unroll
                for (unsigned q = 0; q < RS_COARSE_ROUND; q++) {
                    s = __dp4a((I)v[q].x, (I)0x01010101, s);
                    s = __dp4a((I)v[q].y, (I)0x01010101, s);
                    s = __dp4a((I)v[q].z, (I)0x01010101, s);
                    s = __dp4a((I)v[q].w, (I)0x01010101, s);
                }
                acc = (T)s;
            } else if constexpr (Op::code != RS_PROD) { /* min / max lane by lane, then the four lanes */
                typedef rs_swar<T, Op> S;
                unsigned m = S::op(S::op(v[0].x, v[0].y), S::op(v[0].z, v[0].w));
#pragma unroll
                for (unsigned q = 1; q < RS_COARSE_ROUND; q++)
                    m = S::op(m, S::op(S::op(v[q].x, v[q].y), S::op(v[q].z, v[q].w)));
                acc = S::value(S::prefix(m) >> 24);
            } else { /* products byte by byte */
#pragma unroll
                for (unsigned q = 0; q < RS_COARSE_ROUND; q++) {
                    const unsigned w[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
#pragma unroll
                    for (unsigned k = 0; k < 16; k++) {
                        const unsigned char b = (unsigned char)(w[k / 4] >> (8 * (k % 4)));
                        X x;
                        memcpy(&x, &b, 1);
                        acc = Op::combine(acc, (T)x);
                    }
                }
            }
            if (t > 0 && t < RS_COARSE_ROUND) partials[tile0 + t] = Op::identity();
            rs_coarse_finish<Op>(l, t, acc, partials + tile0);
        } else { /* the last round: tile by tile, as reduce_coarsened's tiles that end past n */
            for (rs_u64 tile = tile0; tile < ntiles; tile++) {
                const T acc = rs_coarse_fold_tail<T, Op>(in, n, tile * RS_COARSE_TILE, t);
                rs_coarse_finish<Op>(l, t, acc, partials + tile);
            }
        }
    }
}

extern "C" cudaError_t rs_cu_reduce_coarsened(int in_dtype, int out_dtype, int op, const void *in,
                                              unsigned long long n, void *partials, unsigned grid,
                                              cudaStream_t stream)
{
    return rs_dispatch(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        if constexpr (sizeof(X) == 1) {
            if ((uintptr_t)in % 16 == 0) { /* int8 / uint8: four tiles a round (same bits) */
                const rs_u64 rounds = (n + RS_COARSE_ROUND * RS_COARSE_TILE - 1) / (RS_COARSE_ROUND * RS_COARSE_TILE);
                const unsigned g = rounds < grid ? (unsigned)rounds : grid;
                reduce_coarsened_bytes<X, T, Op><<<g, RS_GROUP, 0, stream>>>((const X *)in, n, (T *)partials);
                return rs_launched();
            }
        }
        if ((uintptr_t)in % sizeof(rs_vec4<X>) == 0)
            reduce_coarsened<X, T, Op, true><<<grid, RS_GROUP, 0, stream>>>((const X *)in, n, (T *)partials);
        else
            reduce_coarsened<X, T, Op, false><<<grid, RS_GROUP, 0, stream>>>((const X *)in, n, (T *)partials);
        return rs_launched();
    });
}

/* A narrow output (twin: reduce_store_out in common.clh): the reduction's last pass leaves its value in T (the
 * 32-bit type the narrow type combines in) in scratch; this stores it in the output type, rounded once (float16,
 * bfloat16) or as its low bits (integers). One thread. */
template <typename T> __global__ void reduce_store_out(const T *src, void *dst, int kind)
{
    rs_put(rs_ndst<T>{dst, kind}, 0, *src);
}

extern "C" cudaError_t rs_cu_reduce_store_out(int out_dtype, const void *src, void *dst, cudaStream_t stream)
{
    const int kind = rs_narrow_kind(out_dtype);
    switch (out_dtype) {
    case RS_INT8:
    case RS_INT16: reduce_store_out<int><<<1, 1, 0, stream>>>((const int *)src, dst, kind); break;
    case RS_UINT8:
    case RS_UINT16: reduce_store_out<unsigned int><<<1, 1, 0, stream>>>((const unsigned int *)src, dst, kind); break;
    case RS_FLOAT16:
    case RS_BFLOAT16: reduce_store_out<float><<<1, 1, 0, stream>>>((const float *)src, dst, kind); break;
    default: return cudaErrorInvalidValue;
    }
    return rs_launched();
}
