/* Coarsened three-phase block scan (PMPP 11.4, Fig. 11.8). Twin: kernels_cl/scan_coarsened.clh.
 * SECTION = 2048 values, 8 contiguous values per thread (sub-section t = s[8t .. 8t+7]).
 *   phase 1: thread t scans its sub-section sequentially, left to right;
 *   phase 2: Kogge-Stone (the steps of scan_kogge_stone.cuh) over the 256 sub-section totals, copied to
 *            aux so that phase 2 reads aux[t] instead of s[8t+7] (a stride of 8 that would conflict in
 *            shared memory banks; the combinations are the same);
 *   phase 3: thread t > 0 combines the previous sub-section's scanned total into its first 7 values,
 *            s[8t+k] = aux[t-1] (+) s[8t+k], and stores its own scanned total aux[t] into s[8t+7].
 * aux: RS_AUX_COARSE values. Contract as in scan_kogge_stone.cuh. */
#ifndef REDSCAN_SCAN_COARSENED_CUH
#define REDSCAN_SCAN_COARSENED_CUH

#include "common.cuh"

#define RS_COARSE_ITEMS 8
#define RS_SECTION_COARSE (RS_COARSE_ITEMS * RS_GROUP)
#define RS_AUX_COARSE RS_GROUP

template <class Op, typename T> __device__ __forceinline__ void rs_block_scan_coarse(T *s, T *aux)
{
    const unsigned t = threadIdx.x;
    T *sub = s + t * RS_COARSE_ITEMS;
    __syncthreads(); /* the caller's (coalesced) loads into s */
    /* CUDA-only, order unchanged: the sub-section is read with vector accesses into registers x[] and kept
     * there through phase 2 (no other thread touches s[8t .. 8t+7] until the final barrier), so phase 1's
     * stores and phase 3's loads of sub[] become one vector write at the end. x[k] holds exactly what sub[k]
     * holds at the same point of the OpenCL twin. */
    T x[RS_COARSE_ITEMS];
    rs_shared_read<RS_COARSE_ITEMS>(sub, x);
    T acc = x[0];
#pragma unroll
    for (unsigned k = 1; k < RS_COARSE_ITEMS; ++k) {
        acc = Op::combine(acc, x[k]);
        x[k] = acc;
    }
    aux[t] = acc;
    /* Written out as in the OpenCL twin (there, scan_kogge_stone.clh is concatenated after this file). */
    for (unsigned d = 1; d < RS_GROUP; d <<= 1) {
        __syncthreads();
        T temp = Op::identity();
        if (t >= d) temp = Op::combine(aux[t - d], aux[t]);
        __syncthreads();
        if (t >= d) aux[t] = temp;
    }
    __syncthreads();
    if (t > 0) {
        const T carry = aux[t - 1];
#pragma unroll
        for (unsigned k = 0; k < RS_COARSE_ITEMS - 1; ++k) x[k] = Op::combine(carry, x[k]);
    }
    x[RS_COARSE_ITEMS - 1] = aux[t];
    rs_shared_write<RS_COARSE_ITEMS>(sub, x);
    __syncthreads();
}

struct rs_block_coarse {
    static const unsigned SECTION = RS_SECTION_COARSE;
    static const unsigned AUX = RS_AUX_COARSE;
    template <class Op, typename T> static __device__ __forceinline__ void scan(T *s, T *aux)
    {
        rs_block_scan_coarse<Op>(s, aux);
    }
};

#endif /* REDSCAN_SCAN_COARSENED_CUH */
