/* top-k (1 <= k <= 256). Twin: kernels_cl/topk.cl.
 * Spec (docs/ALGORITHMS.md): the strict total order rs_before (common.cuh; "better first": NaN first, then by
 * value, ties by lower index, padding last). A pass cuts its candidates into tiles of 1024 (4 per thread,
 * thread t takes t + j*256), sorts each tile in shared memory with a bitonic network (every barrier reached by
 * all 256 threads: the loops have compile-time bounds, the ifs only guard the swaps) and keeps its best k as
 * (value, index) pairs, best first. The host repeats passes over the flat candidate array until one tile is
 * left; that tile gives the k results. The order is total, so the result does not depend on the tiling.
 * First pass: idx == NULL, a candidate's index is its position. Padding slots get index ~0 (>= n: last). */
#include <stdint.h>

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
            sv[q] = p < count ? vals[p] : X(); /* padding */
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

/* ---- small k (1 <= k <= RS_CU_TOPK_SMALL_MAX): one pass over the input, one list per block ----
 * Every thread keeps its best K (K = k for k <= 2, else 8: the instances the OpenCL twin builds) in registers, sorted best first, over a
 * grid-stride walk of the input (16-byte vector loads where the pointer allows); an element is inserted only if
 * it goes before the list's last entry (one comparison per element, one branch per vector). The host launches no
 * more blocks than fit on the device at once (rs_cu_topk_small_blocks_per_sm). The block then merges its 256 lists pairwise in
 * shared memory (thread t merges list t + s into list t, s = 128 .. 1) and writes the best k of list 0 as
 * (value, index) pairs at out[blockIdx.x * k]. The order is total, so which thread or block saw an element never
 * changes the final result; the host finishes with the pair passes above (argext / topk with idx). */
template <typename X> struct alignas(16) rs_vec16 {
    X s[16 / sizeof(X)];
};

/* Offer element xi = x to a thread's list. A thread meets its elements in increasing index order, so x can only
 * go before the list's last entry by value: a NaN, a strictly better value, or any value while the list still
 * holds padding. Padding is made of the worst value (-inf or the type's minimum for max, the opposite for min; a
 * padding entry ranks last by its index whatever its value), so one comparison, "x is not worse than the last
 * value" (true for a NaN), passes a superset of those; rs_before decides exactly. */
template <typename X, int OP> __device__ __forceinline__ X rs_topk_worst()
{
    return OP == RS_MAX ? rs_type_info<X>::min_value() : rs_type_info<X>::max_value();
}

template <typename X, int OP> __device__ __forceinline__ bool rs_topk_maybe(X x, X last)
{
    return OP == RS_MAX ? !(x < last) : !(x > last);
}

template <typename X, int OP, unsigned K>
__device__ __forceinline__ void rs_topk_offer(X (&lv)[K], rs_u64 (&li)[K], X x, rs_u64 xi, rs_u64 n)
{
    const X wv = lv[K - 1];
    if (!rs_topk_maybe<X, OP>(x, wv) || !rs_before<X, OP>(x, xi, wv, li[K - 1], n)) return;
#pragma unroll
    for (unsigned q = 0; q < K; ++q) /* carry x down the list: it lands in its place, the last entry drops out */
        if (rs_before<X, OP>(x, xi, lv[q], li[q], n)) {
            const X tv = lv[q];
            const rs_u64 ti = li[q];
            lv[q] = x;
            li[q] = xi;
            x = tv;
            xi = ti;
        }
}

template <typename X, int OP, unsigned K, bool VEC>
__global__ void __launch_bounds__(RS_GROUP)
    topk_small(const X *__restrict__ vals, rs_u64 n, unsigned k, X *__restrict__ out_vals, rs_u64 *__restrict__ out_idx)
{
    __shared__ X sv[RS_GROUP * K];
    __shared__ rs_u64 si[RS_GROUP * K];
    const unsigned t = threadIdx.x;
    X lv[K];
    rs_u64 li[K];
#pragma unroll
    for (unsigned q = 0; q < K; ++q) {
        lv[q] = rs_topk_worst<X, OP>(); /* see rs_topk_offer */
        li[q] = RS_PAD_INDEX;           /* padding ranks last */
    }
    const rs_u64 stride = (rs_u64)gridDim.x * RS_GROUP, first = (rs_u64)blockIdx.x * RS_GROUP + t;
    rs_u64 done = 0; /* elements below `done` were covered by the vector walk */
    if (VEC) {
        typedef rs_vec16<X> V;
        const unsigned W = 16 / sizeof(X), U = 4; /* U vectors in flight per thread */
        const V *vp = (const V *)vals;
        const rs_u64 nvec = n / W;
        for (rs_u64 v0 = first; v0 < nvec; v0 += U * stride) {
            V buf[U];
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
                if (v0 + u * stride < nvec) buf[u] = vp[v0 + u * stride];
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
                if (v0 + u * stride < nvec) {
                    /* One test per vector against the last entry as it is now (it only gets harder to pass), so the
                     * common case is W comparisons and one branch. */
                    bool any = false;
#pragma unroll
                    for (unsigned e = 0; e < W; ++e) any |= rs_topk_maybe<X, OP>(buf[u].s[e], lv[K - 1]);
                    if (any)
#pragma unroll
                        for (unsigned e = 0; e < W; ++e)
                            rs_topk_offer<X, OP, K>(lv, li, buf[u].s[e], (v0 + u * stride) * W + e, n);
                }
        }
        done = nvec * W;
    }
    for (rs_u64 i = done + first; i < n; i += stride) rs_topk_offer<X, OP, K>(lv, li, vals[i], i, n);
#pragma unroll
    for (unsigned q = 0; q < K; ++q) {
        sv[t * K + q] = lv[q];
        si[t * K + q] = li[q];
    }
    for (unsigned s = RS_GROUP / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (t < s) { /* list t <- best K of lists t and t + s (both sorted); only thread t touches list t */
            unsigned a = t * K, b = (t + s) * K;
#pragma unroll
            for (unsigned q = 0; q < K; ++q) {
                const bool take_b = rs_before<X, OP>(sv[b], si[b], sv[a], si[a], n);
                lv[q] = take_b ? sv[b] : sv[a];
                li[q] = take_b ? si[b] : si[a];
                if (take_b) ++b;
                else ++a;
            }
#pragma unroll
            for (unsigned q = 0; q < K; ++q) {
                sv[t * K + q] = lv[q];
                si[t * K + q] = li[q];
            }
        }
    }
    if (t == 0) /* constant indices into lv / li (a loop to the run-time k would move them to local memory) */
#pragma unroll
        for (unsigned q = 0; q < K; ++q)
            if (q < k) {
                out_vals[(rs_u64)blockIdx.x * k + q] = lv[q];
                out_idx[(rs_u64)blockIdx.x * k + q] = li[q];
            }
}

template <typename X, int OP, unsigned K>
static cudaError_t rs_topk_small_launch(const X *vals, unsigned long long n, unsigned k, X *out_vals,
                                        unsigned long long *out_idx, unsigned grid, cudaStream_t stream)
{
    if (((uintptr_t)vals & 15) == 0)
        topk_small<X, OP, K, true><<<grid, RS_GROUP, 0, stream>>>(vals, n, k, out_vals, out_idx);
    else
        topk_small<X, OP, K, false><<<grid, RS_GROUP, 0, stream>>>(vals, n, k, out_vals, out_idx);
    return rs_launched();
}

extern "C" cudaError_t rs_cu_topk_small(int dtype, int largest, const void *vals, unsigned long long n, unsigned k,
                                        void *out_vals, unsigned long long *out_idx, unsigned grid,
                                        cudaStream_t stream)
{
    if (k < 1 || k > RS_CU_TOPK_SMALL_MAX) return cudaErrorInvalidValue;
    return rs_dispatch_dtype(dtype, [&](auto xt) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        const X *v = (const X *)vals;
        X *ov = (X *)out_vals;
        if (largest) {
            if (k == 1) return rs_topk_small_launch<X, RS_MAX, 1>(v, n, k, ov, out_idx, grid, stream);
            if (k == 2) return rs_topk_small_launch<X, RS_MAX, 2>(v, n, k, ov, out_idx, grid, stream);
            return rs_topk_small_launch<X, RS_MAX, 8>(v, n, k, ov, out_idx, grid, stream);
        }
        if (k == 1) return rs_topk_small_launch<X, RS_MIN, 1>(v, n, k, ov, out_idx, grid, stream);
        if (k == 2) return rs_topk_small_launch<X, RS_MIN, 2>(v, n, k, ov, out_idx, grid, stream);
        return rs_topk_small_launch<X, RS_MIN, 8>(v, n, k, ov, out_idx, grid, stream);
    });
}

/* Blocks of the topk_small instance for (dtype, largest, k) that fit on one SM of the current device at once: its
 * register use (40 to 64 per thread for the vector-load instances) allows fewer than the 8 blocks of 256 threads
 * that fill an SM, and a grid-stride walk launched with more blocks than fit runs its last blocks as a second,
 * nearly empty wave (the one-pass argmax measured 0.82 x our reduction on the H100 that way). The vector instance
 * is the one asked about: it uses the most registers. 0 if the runtime cannot say. */
template <typename X, int OP, unsigned K> static unsigned rs_topk_small_fit()
{
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, topk_small<X, OP, K, true>, RS_GROUP, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return blocks > 0 ? (unsigned)blocks : 0;
}

extern "C" unsigned rs_cu_topk_small_blocks_per_sm(int dtype, int largest, unsigned k)
{
    if (k < 1 || k > RS_CU_TOPK_SMALL_MAX) return 0;
    unsigned fit = 0;
    (void)rs_dispatch_dtype(dtype, [&](auto xt) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        if (largest) fit = k == 1 ? rs_topk_small_fit<X, RS_MAX, 1>() : k == 2 ? rs_topk_small_fit<X, RS_MAX, 2>()
                                                                         : rs_topk_small_fit<X, RS_MAX, 8>();
        else fit = k == 1 ? rs_topk_small_fit<X, RS_MIN, 1>() : k == 2 ? rs_topk_small_fit<X, RS_MIN, 2>()
                                                                  : rs_topk_small_fit<X, RS_MIN, 8>();
        return cudaSuccess;
    });
    return fit;
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
