/* Reduction "warp_sync": the tree reduction (same TILE, same loads, same combinations, same bits) with the classic
 * warp-synchronous tail, done correctly. Twin: kernels_cl/reduce_warp_sync.cl (sub-group barriers).
 * Spec (docs/ALGORITHMS.md): levels s = 128, 64 as in tree (a __syncthreads before each); then, after the
 * __syncthreads that tree places before s = 32, warp 0 (threads 0..31) alone does s = 32, 16, 8, 4, 2, 1 in shared
 * memory: l[t] = l[t] (+) l[t+s] for t < s, with __syncwarp() between the steps and no __syncthreads. The classic
 * form (volatile shared memory, no synchronisation) relies on the warp running in lock-step, which Volta and later
 * no longer guarantee; __syncwarp() between the steps orders the warp's shared-memory accesses, so no volatile.
 * Within a step lane t < s writes l[t] and reads l[t], l[t+s] (t+s >= s): no lane reads what another one writes.
 * reduce_warp_sync_in / _t of the OpenCL file are one template here (X = IN_T, or T on later passes). */
#include "common.cuh"
#include "cu_launch.h"
#include "reduce_common.cuh"

struct rs_warp_sync_tail {
    template <class Op, typename T> static __device__ __forceinline__ void run(T *l, unsigned t, T *out)
    {
        rs_tree_levels<Op>(l, t, 2 * RS_WARP); /* s = 128, 64 */
        __syncthreads();
        if (t < RS_WARP) { /* exactly warp 0: all 32 lanes reach every __syncwarp */
            l[t] = Op::combine(l[t], l[t + RS_WARP]); /* s = 32 */
#pragma unroll
            for (unsigned s = RS_WARP / 2; s > 0; s >>= 1) {
                __syncwarp();
                if (t < s) l[t] = Op::combine(l[t], l[t + s]);
            }
            if (t == 0) *out = rs_out<Op>(l[0]); /* lane 0 wrote l[0] itself */
        }
    }
};

template <typename X, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    reduce_warp_sync(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials)
{
    __shared__ T l[RS_GROUP];
    rs_tree_tiles<X, T, Op, rs_warp_sync_tail>(in, n, partials, l);
}

extern "C" cudaError_t rs_cu_reduce_warp_sync(int in_dtype, int out_dtype, int op, const void *in,
                                              unsigned long long n, void *partials, unsigned grid,
                                              cudaStream_t stream)
{
    return rs_dispatch(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        reduce_warp_sync<X, T, Op><<<grid, RS_GROUP, 0, stream>>>((const X *)in, n, (T *)partials);
        return rs_launched();
    });
}
