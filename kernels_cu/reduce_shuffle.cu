/* Reduction "shuffle": the tree reduction (same TILE, same loads, same combinations, same bits) whose last levels
 * run in registers of warp 0 with __shfl_down_sync. Twin: kernels_cl/reduce_shuffle.cl (sub_group_shuffle_down).
 * Spec (docs/ALGORITHMS.md): levels s = 128, 64 as in tree (a __syncthreads before each); then, after the
 * __syncthreads that tree places before s = 32, lane t of warp 0 takes v = l[t] (+) l[t+32] (the tree's s = 32)
 * and for s = 16, 8, 4, 2, 1: v = v (+) __shfl_down_sync(0xffffffff, v, s). Lane t < s combines its value with
 * lane t+s's, which is the tree's l[t] = l[t] (+) l[t+s]; lanes t >= s compute values nobody uses, so lane 0 ends
 * with the tree's l[0].
 * reduce_shuffle_in / _t of the OpenCL file are one template here (X = IN_T, or T on later passes). */
#include "common.cuh"
#include "cu_launch.h"
#include "reduce_common.cuh"

struct rs_shuffle_tail {
    template <class Op, typename T> static __device__ __forceinline__ void run(T *l, unsigned t, T *out)
    {
        rs_tree_levels<Op>(l, t, 2 * RS_WARP); /* s = 128, 64 */
        __syncthreads();
        if (t < RS_WARP) { /* exactly warp 0: the full mask names the lanes that are here */
            T v = Op::combine(l[t], l[t + RS_WARP]); /* s = 32 */
#pragma unroll
            for (unsigned s = RS_WARP / 2; s > 0; s >>= 1) v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, s));
            if (t == 0) *out = rs_out<Op>(v);
        }
    }
};

template <typename X, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    reduce_shuffle(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials)
{
    __shared__ T l[RS_GROUP];
    rs_tree_tiles<X, T, Op, rs_shuffle_tail>(in, n, partials, l);
}

extern "C" cudaError_t rs_cu_reduce_shuffle(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                            void *partials, unsigned grid, cudaStream_t stream)
{
    return rs_dispatch(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        reduce_shuffle<X, T, Op><<<grid, RS_GROUP, 0, stream>>>((const X *)in, n, (T *)partials);
        return rs_launched();
    });
}
