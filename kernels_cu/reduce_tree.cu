/* Reduction "tree": local-memory tree with sequential addressing (seed 004). Twin: kernels_cl/reduce_tree.cl.
 * Spec (docs/ALGORITHMS.md): TILE = 512; thread t starts from x[t] (+) x[t+256] ("first add during load",
 * identity past n), then for (s = 128; s > 0; s >>= 1) l[t] = l[t] (+) l[t+s]. Block g reduces tiles
 * g, g+G, ... and writes one partial per tile, so the grid size G never changes which values meet.
 * The tile loop and the levels are shared with warp_sync and shuffle (reduce_common.cuh).
 * reduce_tree_in / reduce_tree_t of the OpenCL file are one template here: X = IN_T on the first pass,
 * X = T on the later passes over the partials. */
#include "common.cuh"
#include "cu_launch.h"
#include "reduce_common.cuh"

/* All eight levels with a barrier before each; thread 0 holds the tile's value in l[0]. */
struct rs_tree_tail {
    template <class Op, typename T> static __device__ __forceinline__ void run(T *l, unsigned t, T *out)
    {
        rs_tree_seq<Op>(l, t);
        if (t == 0) *out = rs_out<Op>(l[0]);
    }
};

template <typename X, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP) reduce_tree(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials)
{
    __shared__ T l[RS_GROUP];
    rs_tree_tiles<X, T, Op, rs_tree_tail>(in, n, partials, l);
}

extern "C" cudaError_t rs_cu_reduce_tree(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                         void *partials, unsigned grid, cudaStream_t stream)
{
    return rs_dispatch(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        reduce_tree<X, T, Op><<<grid, RS_GROUP, 0, stream>>>((const X *)in, n, (T *)partials);
        return rs_launched();
    });
}
