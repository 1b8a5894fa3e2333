/* Section loads and stores shared by the grid scans (scan_grid.cu, scan_single_pass.cu). Twin:
 * kernels_cl/scan_io.clh. A block reads its whole section into shared memory before it writes any of it, so
 * in == out is safe; nothing is read or written at or past n. */
#ifndef RS_SCAN_IO_CUH
#define RS_SCAN_IO_CUH

#include <stdint.h>

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

/* ---- narrow input and output (rs_nsrc / rs_ndst, common.cuh), CUDA-only ----
 * One or two bytes per thread per access is a fraction of what the memory system moves per instruction: the narrow
 * scans ran at 0.21-0.33 of the copy on the H100 that way (docs/PERFORMANCE.md, "Narrow types on the H100"). For a
 * full section of RS_SCAN_VEC_ITEMS values per thread (the coarsened block), thread t instead reads and writes
 * values 8t .. 8t+7 of the section with one 8- or 16-byte access. Which thread moves which value changes, nothing
 * else: s[] holds the same values at the same places (the block scans begin with a barrier), and every output is
 * the same expression of s[] as in the element loops above. A partial section, another block size or a section
 * that does not start on 16 bytes (a sub-buffer, a segment of a segmented scan) takes those loops. */
#define RS_SCAN_VEC_ITEMS 8

template <typename N, typename T>
__device__ __forceinline__ void rs_narrow_read_vec(const void *p, rs_u64 first, T (&x)[RS_SCAN_VEC_ITEMS])
{
    typedef rs_vecn<RS_SCAN_VEC_ITEMS, N> V;
    const V v = *reinterpret_cast<const V *>(static_cast<const N *>(p) + first);
#pragma unroll
    for (unsigned k = 0; k < RS_SCAN_VEC_ITEMS; k++) x[k] = (T)v.v[k];
}

template <typename W, typename T>
__device__ __forceinline__ void rs_narrow_write_vec(void *p, int kind, rs_u64 first, const T (&y)[RS_SCAN_VEC_ITEMS])
{
    typedef rs_vecn<RS_SCAN_VEC_ITEMS, W> V;
    V v;
#pragma unroll
    for (unsigned k = 0; k < RS_SCAN_VEC_ITEMS; k++) v.v[k] = (W)rs_narrow_of<T>::bits(kind, y[k]);
    *reinterpret_cast<V *>(static_cast<W *>(p) + first) = v;
}

/* A full section of the vector size whose first value (element `base` of `size` bytes at p) is 16-byte aligned: the
 * grid scans' sections start at multiples of 2048, but the segmented scans' start where a segment does. */
__device__ __forceinline__ bool rs_scan_vec_ok(const void *p, unsigned size, rs_u64 base, rs_u64 n, unsigned section)
{
    return section == RS_SCAN_VEC_ITEMS * RS_GROUP && base + section <= n &&
           (((uintptr_t)p + base * size) & 15u) == 0;
}

template <typename T, class Op>
__device__ __forceinline__ void rs_scan_load(T *s, const rs_nsrc<T> in, rs_u64 base, rs_u64 n, unsigned section)
{
    if (rs_scan_vec_ok(in.p, rs_narrow_of<T>::size(in.kind), base, n, section)) { /* uniform across the block */
        T x[RS_SCAN_VEC_ITEMS];
        const rs_u64 first = base + (rs_u64)threadIdx.x * RS_SCAN_VEC_ITEMS;
        if (in.kind == 0) rs_narrow_read_vec<typename rs_narrow_of<T>::A>(in.p, first, x);
        else rs_narrow_read_vec<typename rs_narrow_of<T>::B>(in.p, first, x);
        rs_shared_write<RS_SCAN_VEC_ITEMS>(s + threadIdx.x * RS_SCAN_VEC_ITEMS, x);
        return;
    }
    for (unsigned k = threadIdx.x; k < section; k += RS_GROUP) {
        const rs_u64 g = base + k;
        s[k] = g < n ? rs_load<T>(in, g) : Op::identity();
    }
}

template <typename T, class Op>
__device__ __forceinline__ void rs_scan_store(const rs_ndst<T> out, const T *s, rs_u64 base, rs_u64 n,
                                              unsigned section, int exclusive, T seed, int seeded)
{
    if (out.kind >= 0 && rs_scan_vec_ok(out.p, rs_narrow_of<T>::size(out.kind), base, n, section)) { /* uniform */
        const unsigned t = threadIdx.x;
        T x[RS_SCAN_VEC_ITEMS], y[RS_SCAN_VEC_ITEMS];
        rs_shared_read<RS_SCAN_VEC_ITEMS>(s + t * RS_SCAN_VEC_ITEMS, x);
        const T before = t ? s[t * RS_SCAN_VEC_ITEMS - 1] : Op::identity(); /* exclusive's value at k = 8t */
#pragma unroll
        for (unsigned k = 0; k < RS_SCAN_VEC_ITEMS; k++) {
            const T l = exclusive ? (k == 0 ? before : x[k - 1]) : x[k];
            y[k] = rs_out<Op>(seeded ? Op::combine(seed, l) : l);
        }
        const rs_u64 first = base + (rs_u64)t * RS_SCAN_VEC_ITEMS;
        if (rs_narrow_of<T>::size(out.kind) == 1) rs_narrow_write_vec<unsigned char>(out.p, out.kind, first, y);
        else rs_narrow_write_vec<unsigned short>(out.p, out.kind, first, y);
        return;
    }
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
