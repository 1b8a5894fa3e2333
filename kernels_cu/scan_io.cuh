/* Section loads and stores shared by the grid scans (scan_grid.cu, scan_single_pass.cu). Twin:
 * kernels_cl/scan_io.clh. A block reads its whole section into shared memory before it writes any of it, so
 * in == out is safe; nothing is read or written at or past n. */
#ifndef RS_SCAN_IO_CUH
#define RS_SCAN_IO_CUH

#include "common.cuh"

/* s[k] = in[base + k] as T for k < section (identity past n); coalesced: thread t takes k = t, t+256, ...
 * SRC: a pointer to the input type, or rs_nsrc<T> (a narrow input, common.cuh). */
template <typename T, class Op, typename SRC>
__device__ __forceinline__ void rs_scan_load(T *s, SRC in, rs_u64 base, rs_u64 n, unsigned section)
{
    for (unsigned k = threadIdx.x; k < section; k += RS_GROUP) {
        const rs_u64 g = base + k;
        s[k] = g < n ? rs_load<T>(in, g) : Op::identity();
    }
}

/* out[base + k] = [seed (+)] L[k] for the scanned section s; coalesced like the loads. DST: T *, or rs_ndst<T> (an
 * output of another type: rs_put stores T into it, a narrow one rounded once). */
template <typename T, class Op, typename DST>
__device__ __forceinline__ void rs_scan_store(DST out, const T *s, rs_u64 base, rs_u64 n, unsigned section,
                                              int exclusive, T seed, int seeded)
{
    for (unsigned k = threadIdx.x; k < section; k += RS_GROUP) {
        const rs_u64 g = base + k;
        if (g < n) {
            const T l = exclusive ? (k == 0 ? Op::identity() : s[k - 1]) : s[k];
            rs_put(out, g, rs_out<Op>(seeded ? Op::combine(seed, l) : l));
        }
    }
}

/* *p read at the L2 (ld.global.cg), for values other blocks wrote during this kernel: as bits of the same width. */
template <typename T> __device__ __forceinline__ T rs_load_cg(const T *p)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values");
    T v;
    if (sizeof(T) == 4) {
        const unsigned u = __ldcg(reinterpret_cast<const unsigned *>(p));
        memcpy(&v, &u, sizeof v);
    } else {
        const unsigned long long u = __ldcg(reinterpret_cast<const unsigned long long *>(p));
        memcpy(&v, &u, sizeof v);
    }
    return v;
}

/* Section total of the grid scans (scan_grid.cu tile_reduce / scan_sections, scan_single_pass.cu's fallback):
 * the balanced pairwise tree over r[0..255], contiguous threads at i = (t+1)*2d - 1 as in the Brent-Kung
 * up-sweep; returns the root r[255] to every thread (ends after a barrier). */
template <typename T, class Op> __device__ __forceinline__ T rs_scan_tree_total(T *r)
{
    const unsigned t = threadIdx.x;
    for (unsigned d = 1; d < RS_GROUP; d <<= 1) {
        __syncthreads();
        const unsigned i = (t + 1) * 2 * d - 1;
        if (i < RS_GROUP) r[i] = Op::combine(r[i - d], r[i]);
    }
    __syncthreads();
    return r[RS_GROUP - 1];
}

#endif
