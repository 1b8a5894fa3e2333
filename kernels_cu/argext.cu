/* argmin / argmax. Twin: kernels_cl/argext.cl.
 * Spec (docs/ALGORITHMS.md): tiles of 2048 candidates (256 threads x 8, thread t takes t + k*256 for
 * k = 0..7); each thread keeps the best (value, index), then a sequential-addressing tree; one (value, index)
 * per tile, finished by the same kernel over the pairs. "Best" is the strict total order rs_before
 * (common.cuh): NaN first, then the smaller (argmin) / larger (argmax) value, ties to the lower index, padding
 * last. Because the order is total the result does not depend on the combination order at all.
 * The backend's first pass over the input is topk.cu's topk_small with k = 1; this kernel then runs over the
 * pairs (idx != NULL). idx == NULL (a candidate's index is its position) is kept for the pair kernel's generality.
 * n is the input's element count (an index >= n marks padding); count is the number of candidates. */
#include "common.cuh"
#include "cu_launch.h"

#define RS_ARGEXT_ITEMS 8
#define RS_ARGEXT_TILE (RS_GROUP * RS_ARGEXT_ITEMS)
#define RS_PAD_INDEX 0xffffffffffffffffull

template <typename X, int OP>
__global__ void __launch_bounds__(RS_GROUP)
    argext(const X *__restrict__ vals, const rs_u64 *__restrict__ idx, rs_u64 count, rs_u64 n,
           X *__restrict__ out_vals, rs_u64 *__restrict__ out_idx)
{
    __shared__ X lv[RS_GROUP];
    __shared__ rs_u64 li[RS_GROUP];
    const unsigned t = threadIdx.x;
    const rs_u64 ntiles = (count + RS_ARGEXT_TILE - 1) / RS_ARGEXT_TILE;
    for (rs_u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const rs_u64 base = tile * RS_ARGEXT_TILE;
        const rs_u64 first = base + t;
        X bv = first < count ? vals[first] : X(); /* padding (its index ranks it last) */
        rs_u64 bi = first < count ? (idx ? idx[first] : first) : RS_PAD_INDEX;
        for (unsigned k = 1; k < RS_ARGEXT_ITEMS; k++) {
            const rs_u64 p = first + (rs_u64)k * RS_GROUP;
            if (p < count) {
                const X v = vals[p];
                const rs_u64 i = idx ? idx[p] : p;
                if (rs_before<X, OP>(v, i, bv, bi, n)) {
                    bv = v;
                    bi = i;
                }
            }
        }
        lv[t] = bv;
        li[t] = bi;
        for (unsigned s = RS_GROUP / 2; s > 0; s >>= 1) {
            __syncthreads();
            if (t < s && rs_before<X, OP>(lv[t + s], li[t + s], lv[t], li[t], n)) {
                lv[t] = lv[t + s];
                li[t] = li[t + s];
            }
        }
        if (t == 0) {
            out_vals[tile] = lv[0];
            out_idx[tile] = li[0];
        }
        __syncthreads(); /* lv/li[0..1] are still being read; the next tile rewrites them */
    }
}

extern "C" cudaError_t rs_cu_argext(int dtype, int want_max, const void *vals, const unsigned long long *idx,
                                    unsigned long long count, unsigned long long n, void *out_vals,
                                    unsigned long long *out_idx, unsigned grid, cudaStream_t stream)
{
    return rs_dispatch_dtype(dtype, [&](auto xt) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        if (want_max)
            argext<X, RS_MAX><<<grid, RS_GROUP, 0, stream>>>((const X *)vals, idx, count, n, (X *)out_vals, out_idx);
        else
            argext<X, RS_MIN><<<grid, RS_GROUP, 0, stream>>>((const X *)vals, idx, count, n, (X *)out_vals, out_idx);
        return rs_launched();
    });
}
