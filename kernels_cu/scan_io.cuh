/* Section loads and stores shared by the grid scans (scan_grid.cu, scan_single_pass.cu). Twin:
 * kernels_cl/scan_io.clh. A block reads its whole section into shared memory before it writes any of it, so
 * in == out is safe; nothing is read or written at or past n. */
#ifndef RS_SCAN_IO_CUH
#define RS_SCAN_IO_CUH

#include "common.cuh"

/* s[k] = in[base + k] as T for k < section (identity past n); coalesced: thread t takes k = t, t+256, ... */
template <typename T, class Op, typename SRC>
__device__ __forceinline__ void rs_scan_load(T *s, const SRC *in, rs_u64 base, rs_u64 n, unsigned section)
{
    for (unsigned k = threadIdx.x; k < section; k += RS_GROUP) {
        const rs_u64 g = base + k;
        s[k] = g < n ? rs_load<T>(in, g) : Op::identity();
    }
}

/* out[base + k] = [seed (+)] L[k] for the scanned section s; coalesced like the loads. */
template <typename T, class Op>
__device__ __forceinline__ void rs_scan_store(T *out, const T *s, rs_u64 base, rs_u64 n, unsigned section,
                                              int exclusive, T seed, int seeded)
{
    for (unsigned k = threadIdx.x; k < section; k += RS_GROUP) {
        const rs_u64 g = base + k;
        if (g < n) {
            const T l = exclusive ? (k == 0 ? Op::identity() : s[k - 1]) : s[k];
            out[g] = rs_out<Op>(seeded ? Op::combine(seed, l) : l);
        }
    }
}

#endif
