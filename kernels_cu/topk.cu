/* top-k (1 <= k <= 256). Twin: kernels_cl/topk.cl.
 * Spec (docs/ALGORITHMS.md): the strict total order rs_before (common.cuh; "better first": NaN first, then by
 * value, ties by lower index, padding last). A pass cuts its candidates into tiles of 1024 (4 per thread,
 * thread t takes t + j*256), sorts each tile in shared memory with a bitonic network (every barrier reached by
 * all 256 threads: the loops have compile-time bounds, the ifs only guard the swaps) and keeps its best k as
 * (value, index) pairs, best first. The host repeats passes over the flat candidate array until one tile is
 * left; that tile gives the k results. The order is total, so the result does not depend on the tiling.
 * First pass: idx == NULL, a candidate's index is its position. Padding slots get index ~0 (>= n: last). */
#include "common.cuh"
#include "cu_launch.h"

#define RS_TOPK_ITEMS 4
#define RS_TOPK_TILE (RS_GROUP * RS_TOPK_ITEMS)
#define RS_PAD_INDEX 0xffffffffffffffffull

template <typename X, int OP>
__global__ void __launch_bounds__(RS_GROUP)
    topk(const X *__restrict__ vals, const rs_u64 *__restrict__ idx, rs_u64 count, rs_u64 n, unsigned k,
         X *__restrict__ out_vals, rs_u64 *__restrict__ out_idx)
{
    __shared__ X sv[RS_TOPK_TILE];
    __shared__ rs_u64 si[RS_TOPK_TILE];
    const unsigned t = threadIdx.x;
    const rs_u64 ntiles = (count + RS_TOPK_TILE - 1) / RS_TOPK_TILE;
    for (rs_u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const rs_u64 base = tile * RS_TOPK_TILE;
        for (unsigned j = 0; j < RS_TOPK_ITEMS; j++) {
            const unsigned q = t + j * RS_GROUP;
            const rs_u64 p = base + q;
            sv[q] = p < count ? vals[p] : (X)0;
            si[q] = p < count ? (idx ? idx[p] : p) : RS_PAD_INDEX; /* padding: >= n, ranks last */
        }
        /* Bitonic sort, "before" first. Step (size, stride): RS_TOPK_TILE/2 compare-exchanges, 2 per thread. */
        for (unsigned size = 2; size <= RS_TOPK_TILE; size <<= 1) {
            for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
                __syncthreads();
                for (unsigned j = 0; j < RS_TOPK_ITEMS / 2; j++) {
                    const unsigned q = t + j * RS_GROUP; /* compare-exchange number 0 .. TILE/2-1 */
                    const unsigned a = 2 * q - (q & (stride - 1));
                    const unsigned b = a + stride;
                    const bool up = (a & size) == 0; /* this run ends "before" first */
                    const X av = sv[a], bv = sv[b];
                    const rs_u64 ai = si[a], bi = si[b];
                    if (rs_before<X, OP>(bv, bi, av, ai, n) == (int)up) {
                        sv[a] = bv;
                        si[a] = bi;
                        sv[b] = av;
                        si[b] = ai;
                    }
                }
            }
        }
        __syncthreads();
        if (t < k) {
            out_vals[tile * k + t] = sv[t];
            out_idx[tile * k + t] = si[t];
        }
        __syncthreads(); /* sv/si[0..k-1] are still being read; the next tile rewrites them */
    }
}

extern "C" cudaError_t rs_cu_topk(int dtype, int largest, const void *vals, const unsigned long long *idx,
                                  unsigned long long count, unsigned long long n, unsigned k, void *out_vals,
                                  unsigned long long *out_idx, unsigned grid, cudaStream_t stream)
{
    if (k < 1 || k > RS_CU_TOPK_MAX) return cudaErrorInvalidValue;
    return rs_dispatch_dtype(dtype, [&](auto xt) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        if (largest)
            topk<X, RS_MAX><<<grid, RS_GROUP, 0, stream>>>((const X *)vals, idx, count, n, k, (X *)out_vals, out_idx);
        else
            topk<X, RS_MIN><<<grid, RS_GROUP, 0, stream>>>((const X *)vals, idx, count, n, k, (X *)out_vals, out_idx);
        return rs_launched();
    });
}
