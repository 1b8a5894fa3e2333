/* Reduction "tree": local-memory tree with sequential addressing (seed 004). Twin: kernels_cl/reduce_tree.cl.
 * Spec (docs/ALGORITHMS.md): TILE = 512; thread t starts from x[t] (+) x[t+256] ("first add during load",
 * identity past n), then for (s = 128; s > 0; s >>= 1) l[t] = l[t] (+) l[t+s]. Block g reduces tiles
 * g, g+G, ... and writes one partial per tile, so the grid size G never changes which values meet.
 * reduce_tree_in / reduce_tree_t of the OpenCL file are one template here: X = IN_T on the first pass,
 * X = T on the later passes over the partials. */
#include "common.cuh"
#include "cu_launch.h"

#define RS_TREE_TILE (2 * RS_GROUP)

/* Sequential addressing over l[0..RS_GROUP-1]; called by every thread so each barrier is uniform. */
template <class Op, typename T> __device__ __forceinline__ void rs_tree_seq(T *l, unsigned t)
{
    for (unsigned s = RS_GROUP / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (t < s) l[t] = Op::combine(l[t], l[t + s]);
    }
}

/* The tile loop condition depends on the block only, so the barriers inside it are reached by all threads. */
template <typename X, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP) reduce_tree(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials)
{
    __shared__ T l[RS_GROUP];
    const unsigned t = threadIdx.x;
    const rs_u64 ntiles = (n + RS_TREE_TILE - 1) / RS_TREE_TILE;
    for (rs_u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const rs_u64 i = tile * RS_TREE_TILE + t;
        const T a = i < n ? rs_load<T>(in, i) : Op::identity();
        const T b = i + RS_GROUP < n ? rs_load<T>(in, i + RS_GROUP) : Op::identity();
        l[t] = Op::combine(a, b);
        rs_tree_seq<Op>(l, t);
        if (t == 0) partials[tile] = l[0];
        __syncthreads(); /* l[0..1] are still being read; the next tile rewrites l */
    }
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
