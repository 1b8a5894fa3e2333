/* Brent-Kung block scan (PMPP 11.3, Fig. 11.7). Twin: kernels_cl/scan_brent_kung.clh.
 * SECTION = 512 values, 256 threads (SECTION/2, as in PMPP: each thread loads and stores two values).
 * Contiguous threads are mapped to i = (t+1)*2d - 1 so that the active ones stay contiguous:
 *   up-sweep   d = 1, 2, ..., 256:  s[i] = s[i-d] (+) s[i]        (9 levels; d = 1 folds t's two values)
 *   down-sweep d = 128, ..., 1:     s[i+d] = s[i] (+) s[i+d]      (8 levels)
 * One barrier before each level (the reads of a level never overlap its writes), one after the last.
 * Loop bounds are compile-time constants; the ifs only guard the shared-memory update.
 * aux is unused. Contract as in scan_kogge_stone.cuh. */
#ifndef REDSCAN_SCAN_BRENT_KUNG_CUH
#define REDSCAN_SCAN_BRENT_KUNG_CUH

#include "common.cuh"

#define RS_SECTION_BK 512
#define RS_AUX_BK 1

template <class Op, typename T> __device__ __forceinline__ void rs_block_scan_bk(T *s, T *aux)
{
    (void)aux;
    const unsigned t = threadIdx.x;
    for (unsigned d = 1; d < RS_SECTION_BK; d <<= 1) {
        __syncthreads();
        const unsigned i = (t + 1) * 2 * d - 1;
        if (i < RS_SECTION_BK) s[i] = Op::combine(s[i - d], s[i]);
    }
    for (unsigned d = RS_SECTION_BK / 4; d > 0; d >>= 1) {
        __syncthreads();
        const unsigned i = (t + 1) * 2 * d - 1;
        if (i + d < RS_SECTION_BK) s[i + d] = Op::combine(s[i], s[i + d]);
    }
    __syncthreads();
}

struct rs_block_bk {
    static const unsigned SECTION = RS_SECTION_BK;
    static const unsigned AUX = RS_AUX_BK;
    template <class Op, typename T> static __device__ __forceinline__ void scan(T *s, T *aux)
    {
        rs_block_scan_bk<Op>(s, aux);
    }
};

#endif /* REDSCAN_SCAN_BRENT_KUNG_CUH */
