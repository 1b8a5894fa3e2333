/* Shared by the reductions built on the sequential-addressing tree: tree, warp_sync, shuffle (the tile loop
 * and the levels) and coarsened (the levels). Twin: kernels_cl/reduce_common.clh.
 *
 *   rs_tree_levels<Op>(l, t, last)   levels s = 128, 64, ..., last of sequential addressing, each after a barrier:
 *                                    if (t < s) l[t] = l[t] (+) l[t+s]
 *   rs_tree_seq<Op>(l, t)            all eight levels, s = 128 .. 1 (tree, coarsened)
 *   rs_tree_tiles<X, T, Op, Tail>    the body of the tree / warp_sync / shuffle kernels: TILE = 512, thread t starts
 *                                    from x[t] (+) x[t+256] ("first add during load", identity past n), then
 *                                    Tail::run<Op>(l, t, out) finishes the block's tree and one thread writes the
 *                                    tile's value to *out.
 * Order of combination: docs/ALGORITHMS.md. */
#ifndef REDSCAN_KERNELS_CU_REDUCE_COMMON_CUH
#define REDSCAN_KERNELS_CU_REDUCE_COMMON_CUH

#include "common.cuh"

#define RS_TREE_TILE (2 * RS_GROUP)
#define RS_WARP 32 /* warp width of warp_sync and shuffle */

/* Called by every thread, so each barrier is uniform; `last` is a power of two (a constant after inlining). */
template <class Op, typename T> __device__ __forceinline__ void rs_tree_levels(T *l, unsigned t, unsigned last)
{
    for (unsigned s = RS_GROUP / 2; s >= last; s >>= 1) {
        __syncthreads();
        if (t < s) l[t] = Op::combine(l[t], l[t + s]);
    }
}

template <class Op, typename T> __device__ __forceinline__ void rs_tree_seq(T *l, unsigned t)
{
    rs_tree_levels<Op>(l, t, 1);
}

/* rs_tree_seq with the last five levels (s = 16 .. 1) in warp 0's registers: lane t < s combines its value with
 * lane t + s's, which holds l[t + s] of the level before - the same operands in the same order, without barriers.
 * The result (l[0] of rs_tree_seq) is returned to thread 0 only. Used by coarsened; the OpenCL twin keeps the
 * local-memory levels (same bits). */
template <class Op, typename T> __device__ __forceinline__ T rs_tree_seq_shfl(T *l, unsigned t)
{
    rs_tree_levels<Op>(l, t, RS_WARP);
    __syncthreads();
    T v = Op::identity();
    if (t < RS_WARP) {
        v = l[t];
#pragma unroll
        for (unsigned s = RS_WARP / 2; s > 0; s >>= 1) {
            const T o = __shfl_down_sync(0xffffffffu, v, s);
            if (t < s) v = Op::combine(v, o);
        }
    }
    return v;
}

/* X = IN_T on the first pass, X = T on the later passes over the partials; l is the block's __shared__ T[RS_GROUP].
 * Block g reduces tiles g, g+G, ... and writes one partial per tile, so the grid size G never changes which values
 * meet. The tile loop condition depends on the block only, so the barriers inside it (and inside Tail) are reached
 * by all threads. */
template <typename X, typename T, class Op, class Tail>
__device__ __forceinline__ void rs_tree_tiles(const X *__restrict__ in, rs_u64 n, T *__restrict__ partials, T *l)
{
    const unsigned t = threadIdx.x;
    const rs_u64 ntiles = (n + RS_TREE_TILE - 1) / RS_TREE_TILE;
    for (rs_u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const rs_u64 i = tile * RS_TREE_TILE + t;
        const T a = i < n ? rs_load<T>(in, i) : Op::identity();
        const T b = i + RS_GROUP < n ? rs_load<T>(in, i + RS_GROUP) : Op::identity();
        l[t] = Op::combine(a, b);
        Tail::template run<Op>(l, t, partials + tile);
        __syncthreads(); /* the tail's last reads of l precede the next tile's stores */
    }
}

#endif /* REDSCAN_KERNELS_CU_REDUCE_COMMON_CUH */
