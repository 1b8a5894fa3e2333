/* Reduction "interleaved": neighbour-pairing tree (seed 000). Twin: kernels_cl/reduce_interleaved.cl.
 * Spec (docs/ALGORITHMS.md): TILE = 256, one element per thread (identity past n), then
 * for (s = 1; s < 256; s <<= 1) if (t % 2s == 0) l[t] = l[t] (+) l[t+s] — the balanced pairwise tree, left to
 * right. Block g reduces tiles g, g+G, ... and writes one partial per tile (G never changes the result).
 * reduce_interleaved_in / _t of the OpenCL file are one template here (X = IN_T, or T on later passes). */
#include "common.cuh"
#include "cu_launch.h"

#define RS_INTERLEAVED_TILE RS_GROUP

/* Neighbour pairing over l[0..RS_GROUP-1]; called by every thread so each barrier is uniform. */
template <class Op, typename T> __device__ __forceinline__ void rs_tree_interleaved(T *l, unsigned t)
{
    for (unsigned s = 1; s < RS_GROUP; s <<= 1) {
        __syncthreads();
        if ((t & (2 * s - 1)) == 0) l[t] = Op::combine(l[t], l[t + s]);
    }
}

template <typename X, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    reduce_interleaved(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials)
{
    __shared__ T l[RS_GROUP];
    const unsigned t = threadIdx.x;
    const rs_u64 ntiles = (n + RS_INTERLEAVED_TILE - 1) / RS_INTERLEAVED_TILE;
    for (rs_u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const rs_u64 i = tile * RS_INTERLEAVED_TILE + t;
        l[t] = i < n ? rs_load<T>(in, i) : Op::identity();
        rs_tree_interleaved<Op>(l, t);
        if (t == 0) partials[tile] = rs_out<Op>(l[0]);
        __syncthreads(); /* l[0..128] are still being read; the next tile rewrites l */
    }
}

extern "C" cudaError_t rs_cu_reduce_interleaved(int in_dtype, int out_dtype, int op, const void *in,
                                                unsigned long long n, void *partials, unsigned grid,
                                                cudaStream_t stream)
{
    return rs_dispatch(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        reduce_interleaved<X, T, Op><<<grid, RS_GROUP, 0, stream>>>((const X *)in, n, (T *)partials);
        return rs_launched();
    });
}
