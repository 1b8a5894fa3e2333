/* Coarsened three-phase block scan (PMPP 11.4, Fig. 11.8). Twin: kernels_cl/scan_coarsened.clh.
 * SECTION = 2048 values, 8 contiguous values per thread (sub-section t = s[8t .. 8t+7]).
 *   phase 1: thread t scans its sub-section sequentially, left to right;
 *   phase 2: Kogge-Stone (the steps of scan_kogge_stone.cuh) over the 256 sub-section totals, copied to
 *            aux so that phase 2 reads aux[t] instead of s[8t+7] (a stride of 8 that would conflict in
 *            shared memory banks; the combinations are the same); for sums and 4-byte integer min / max
 *            computed by one warp with shuffles (rs_kogge_stone_256_warp);
 *   phase 3: thread t > 0 combines the previous sub-section's scanned total into its first 7 values,
 *            s[8t+k] = aux[t-1] (+) s[8t+k], and stores its own scanned total aux[t] into s[8t+7].
 * aux: RS_AUX_COARSE values. Contract as in scan_kogge_stone.cuh. */
#ifndef REDSCAN_SCAN_COARSENED_CUH
#define REDSCAN_SCAN_COARSENED_CUH

#include "common.cuh"

#define RS_COARSE_ITEMS 8
#define RS_SECTION_COARSE (RS_COARSE_ITEMS * RS_GROUP)
#define RS_AUX_COARSE RS_GROUP

/* Phase 2 in one warp, CUDA-only, the same combinations as the OpenCL twin's Kogge-Stone over aux[0..255]
 * (step d: aux[i] = aux[i-d] (+) aux[i] for i >= d, d = 1, 2, ..., 128), without its 16 block barriers: lane l
 * holds row j = aux[32j + l] in v[j]. For d < 32 the left operand of aux[32j + l] is row j at lane l - d when
 * l >= d, else row j - 1 at lane l - d + 32; one shuffle per row brings it, the sending lane choosing the row by
 * its own index (lanes below 32 - d send row j, the others row j - 1). For d >= 32 it is row j - d/32 of the same
 * lane, already in registers. Every step reads only the previous step's values, as the barrier-separated
 * steps do, so every aux[i] ends with the bits of the twin (tests/test_parity checks it against OpenCL). */
template <class Op, typename T> __device__ __forceinline__ void rs_kogge_stone_256_warp(T *aux)
{
    const unsigned lane = threadIdx.x & 31u;
    T v[RS_GROUP / 32];
#pragma unroll
    for (unsigned j = 0; j < RS_GROUP / 32; ++j) v[j] = aux[32 * j + lane];
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
        const unsigned src = (lane - d) & 31u;
#pragma unroll
        for (unsigned j = RS_GROUP / 32; j-- > 0;) {
            /* rows from the top down: row j - 1 is still the previous step's when row j sends it */
            const T send = (j == 0 || lane < 32 - d) ? v[j] : v[j - 1];
            const T left = __shfl_sync(0xffffffffu, send, src);
            if (j > 0 || lane >= d) v[j] = Op::combine(left, v[j]);
        }
    }
#pragma unroll
    for (unsigned d = 1; d < RS_GROUP / 32; d <<= 1) {
#pragma unroll
        for (unsigned j = RS_GROUP / 32; j-- > d;) v[j] = Op::combine(v[j - d], v[j]);
    }
#pragma unroll
    for (unsigned j = 0; j < RS_GROUP / 32; ++j) aux[32 * j + lane] = v[j];
}

/* Which (type, op) take the one-warp phase 2 (in the single-pass kernel only, rs_block_coarse_sp): sums, and
 * min / max of 4-byte integers. Float min / max and 8-byte min / max keep the barrier steps: their NaN tests and
 * wider values need registers that the warp's 8 rows then take from the rest of the kernel. On the H100
 * (docs/PERFORMANCE.md, "H100, 2026-11-24 (third session)", item 1) single_pass float32 max fell from 0.91-0.94
 * to 0.75 x CUB at 2^28 and float64 max from 0.92 to 0.68 with it, where float32 sum rose from 0.88-0.89 to
 * 0.93-0.95 and int64 sum from 0.82 to 0.88-0.90. prod is not measured, so it keeps the barrier steps. */
template <typename T, class Op> struct rs_coarse_phase2_in_warp {
    static const bool value = Op::code == RS_SUM || ((Op::code == RS_MIN || Op::code == RS_MAX) &&
                                                     !rs_type_info<T>::is_float && sizeof(T) == 4);
};

template <class Op, bool ONE_WARP, typename T> __device__ __forceinline__ void rs_block_scan_coarse(T *s, T *aux)
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
    if (ONE_WARP && rs_coarse_phase2_in_warp<T, Op>::value) {
        __syncthreads();
        if (t < 32) {
            /* warp 0 parks its x[] in its own sub-section while it scans, so that x[] and the warp's 8 rows
             * need not be in registers at the same time */
            rs_shared_write<RS_COARSE_ITEMS>(sub, x);
            rs_kogge_stone_256_warp<Op>(aux);
            rs_shared_read<RS_COARSE_ITEMS>(sub, x);
        }
    } else {
        /* Written out as in the OpenCL twin (there, scan_kogge_stone.clh is concatenated after this file). */
        for (unsigned d = 1; d < RS_GROUP; d <<= 1) {
            __syncthreads();
            T temp = Op::identity();
            if (t >= d) temp = Op::combine(aux[t - d], aux[t]);
            __syncthreads();
            if (t >= d) aux[t] = temp;
        }
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
        rs_block_scan_coarse<Op, false>(s, aux);
    }
};

/* The same block for the single-pass kernel, with the one-warp phase 2 where rs_coarse_phase2_in_warp says. The
 * grid kernels (scan_grid.cu) keep the barrier steps: with the one-warp phase 2, reduce_then_scan int32 sum fell
 * from 0.79 to 0.69 x CUB at 2^28 on the H100. */
struct rs_block_coarse_sp : rs_block_coarse {
    template <class Op, typename T> static __device__ __forceinline__ void scan(T *s, T *aux)
    {
        rs_block_scan_coarse<Op, true>(s, aux);
    }
};

#endif /* REDSCAN_SCAN_COARSENED_CUH */
