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
            for (unsigned k = 0; k < RS_COARSE_K; k++) {
                for (unsigned v = 0; v < RS_COARSE_V; v++) {
                    const rs_u64 i = base + k * RS_GROUP * RS_COARSE_V + t * RS_COARSE_V + v;
                    acc = Op::combine(acc, i < n ? rs_load<T>(in, i) : Op::identity());
                }
            }
        }
        l[t] = acc;
        const T total = rs_tree_seq_shfl<Op>(l, t); /* reduce_common.cuh: rs_tree_seq's bits */
        if (t == 0) partials[tile] = rs_out<Op>(total);
        __syncthreads(); /* warp 0 still reads l[0..31]; the next tile rewrites l */
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
