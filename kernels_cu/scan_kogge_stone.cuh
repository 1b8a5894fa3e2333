/* Kogge-Stone block scan (PMPP 11.2, Fig. 11.3). Twin: kernels_cl/scan_kogge_stone.clh.
 * SECTION = 256 values, one per thread. Step d (1, 2, ..., 128): every thread t >= d computes
 * temp = s[t-d] (+) s[t] after a barrier, and stores it after a second barrier; the second barrier keeps a
 * store from overwriting a value another thread has yet to read (the read-after-write race of 11.2).
 * All loop bounds are compile-time constants, so every barrier sits in uniform control flow.
 * Contract of every block scan: all RS_GROUP threads call it with the section in s (the caller's stores
 * need no barrier of their own); on return s holds the inclusive scan and a barrier has been passed.
 * aux is unused here (the grid kernels pass the same argument list to every block scan). */
#ifndef REDSCAN_SCAN_KOGGE_STONE_CUH
#define REDSCAN_SCAN_KOGGE_STONE_CUH

#include "common.cuh"

#define RS_SECTION_KS 256
#define RS_AUX_KS 1

template <class Op, typename T> __device__ __forceinline__ void rs_block_scan_ks(T *s, T *aux)
{
    (void)aux;
    const unsigned t = threadIdx.x;
    for (unsigned d = 1; d < RS_SECTION_KS; d <<= 1) {
        __syncthreads();
        T temp = Op::identity();
        if (t >= d) temp = Op::combine(s[t - d], s[t]);
        __syncthreads();
        if (t >= d) s[t] = temp;
    }
    __syncthreads();
}

/* The block scan as a policy for the grid kernels (scan_grid.cu). */
struct rs_block_ks {
    static const unsigned SECTION = RS_SECTION_KS;
    static const unsigned AUX = RS_AUX_KS;
    template <class Op, typename T> static __device__ __forceinline__ void scan(T *s, T *aux)
    {
        rs_block_scan_ks<Op>(s, aux);
    }
};

#endif /* REDSCAN_SCAN_KOGGE_STONE_CUH */
