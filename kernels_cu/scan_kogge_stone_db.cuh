/* Kogge-Stone block scan, double-buffered (PMPP 11.2, the exercise at its end).
 * Twin: kernels_cl/scan_kogge_stone_db.clh.
 * SECTION = 256 values, one per thread. Step d reads one buffer and writes the other:
 * dst[t] = src[t-d] (+) src[t] for t >= d, else dst[t] = src[t]; since nobody writes what is read in the same
 * step, one barrier per step is enough. Same combinations as Kogge-Stone, so the same bits.
 * log2(256) = 8 steps is even: the steps run in pairs (s -> aux, aux -> s), so the result lands back in s
 * without a copy and without swapping pointers inside the loop. aux: RS_AUX_KSDB values.
 * Contract as in scan_kogge_stone.cuh. */
#ifndef REDSCAN_SCAN_KOGGE_STONE_DB_CUH
#define REDSCAN_SCAN_KOGGE_STONE_DB_CUH

#include "common.cuh"

#define RS_SECTION_KSDB 256
#define RS_AUX_KSDB 256

template <class Op, typename T> __device__ __forceinline__ void rs_block_scan_ksdb(T *s, T *aux)
{
    const unsigned t = threadIdx.x;
    __syncthreads(); /* the caller's loads into s */
    /* d = 1, 4, 16, 64 for s -> aux and 2d = 2, 8, 32, 128 for aux -> s */
    for (unsigned d = 1; d < RS_SECTION_KSDB; d <<= 2) {
        aux[t] = (t >= d) ? Op::combine(s[t - d], s[t]) : s[t];
        __syncthreads();
        s[t] = (t >= 2 * d) ? Op::combine(aux[t - 2 * d], aux[t]) : aux[t];
        __syncthreads();
    }
}

struct rs_block_ksdb {
    static const unsigned SECTION = RS_SECTION_KSDB;
    static const unsigned AUX = RS_AUX_KSDB;
    template <class Op, typename T> static __device__ __forceinline__ void scan(T *s, T *aux)
    {
        rs_block_scan_ksdb<Op>(s, aux);
    }
};

#endif /* REDSCAN_SCAN_KOGGE_STONE_DB_CUH */
