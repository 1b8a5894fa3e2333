/* Keys of scan by key and reduce by key, read by a kernel argument kkind (any integer redscan_dtype) and compared as
 * the bits of their width; a head is position 0 or a key unlike the one before. Shared by segmented_scan.cu (the runs'
 * offsets) and scan_by_key.cu (the one-pass scan by key). Twin: kernels_cl/keys.clh. */
#ifndef RS_KEYS_CUH
#define RS_KEYS_CUH

#include <stdint.h>

#include "common.cuh"
#include "cu_launch.h"
#include "scan_coarsened.cuh"

__device__ __forceinline__ rs_u64 rs_key(const void *k, int kkind, rs_u64 i)
{
    if (kkind == RS_INT8 || kkind == RS_UINT8) return static_cast<const unsigned char *>(k)[i];
    if (kkind == RS_INT16 || kkind == RS_UINT16) return static_cast<const unsigned short *>(k)[i];
    if (kkind == RS_INT32 || kkind == RS_UINT32) return static_cast<const unsigned *>(k)[i];
    return static_cast<const rs_u64 *>(k)[i];
}

/* k[i] = v, in the keys' width (v: a key's bits as rs_key reads them) */
__device__ __forceinline__ void rs_key_put(void *k, int kkind, rs_u64 i, rs_u64 v)
{
    if (kkind == RS_INT8 || kkind == RS_UINT8) static_cast<unsigned char *>(k)[i] = (unsigned char)v;
    else if (kkind == RS_INT16 || kkind == RS_UINT16) static_cast<unsigned short *>(k)[i] = (unsigned short)v;
    else if (kkind == RS_INT32 || kkind == RS_UINT32) static_cast<unsigned *>(k)[i] = (unsigned)v;
    else static_cast<rs_u64 *>(k)[i] = v;
}

/* The head mask of positions first .. first + 7, all below n, keys of W bytes whose base is 16-byte aligned (first is
 * a multiple of 8): 8 to 64 bytes of 16-byte (8-byte for 1-byte keys) vector loads, the key before them as one scalar
 * (mostly an L1 hit: the previous thread's line). No branch: byk_single's loads of a ticket's tiles issue together. */
template <int W> __device__ __forceinline__ unsigned rs_byk_heads_in(const void *keys, rs_u64 first)
{
    rs_u64 k[RS_COARSE_ITEMS], prev;
    if (W == 1) {
        const unsigned char *p = static_cast<const unsigned char *>(keys);
        const uint2 v = *reinterpret_cast<const uint2 *>(p + first);
        for (unsigned j = 0; j < 4; j++) {
            k[j] = (v.x >> (8 * j)) & 0xffu;
            k[j + 4] = (v.y >> (8 * j)) & 0xffu;
        }
        prev = first ? p[first - 1] : 0;
    } else if (W == 2) {
        const unsigned short *p = static_cast<const unsigned short *>(keys);
        const uint4 v = *reinterpret_cast<const uint4 *>(p + first);
        const unsigned w[4] = {v.x, v.y, v.z, v.w};
        for (unsigned j = 0; j < 4; j++) {
            k[2 * j] = w[j] & 0xffffu;
            k[2 * j + 1] = w[j] >> 16;
        }
        prev = first ? p[first - 1] : 0;
    } else if (W == 4) {
        const unsigned *p = static_cast<const unsigned *>(keys);
        const uint4 a = reinterpret_cast<const uint4 *>(p + first)[0];
        const uint4 b = reinterpret_cast<const uint4 *>(p + first)[1];
        k[0] = a.x, k[1] = a.y, k[2] = a.z, k[3] = a.w, k[4] = b.x, k[5] = b.y, k[6] = b.z, k[7] = b.w;
        prev = first ? p[first - 1] : 0;
    } else {
        const rs_u64 *p = static_cast<const rs_u64 *>(keys);
        for (unsigned j = 0; j < 4; j++) {
            const ulonglong2 v = reinterpret_cast<const ulonglong2 *>(p + first)[j];
            k[2 * j] = v.x;
            k[2 * j + 1] = v.y;
        }
        prev = first ? p[first - 1] : 0;
    }
    unsigned m = first == 0 || k[0] != prev ? 1u : 0u;
    for (unsigned j = 1; j < RS_COARSE_ITEMS; j++) m |= k[j] != k[j - 1] ? 1u << j : 0u;
    return m;
}

/* rs_byk_heads of segmented_scan.cl: the head mask of positions first .. first + 7, any of them past n (not heads)
 * or keys not 16-byte aligned (!vec: scalar loads, bounded). */
__device__ __forceinline__ unsigned rs_byk_heads(const void *keys, int kkind, rs_u64 n, rs_u64 first, bool vec)
{
    if (!vec || first + RS_COARSE_ITEMS > n) {
        unsigned m = 0;
        for (unsigned k = 0; k < RS_COARSE_ITEMS; k++) {
            const rs_u64 i = first + k;
            if (i < n && (i == 0 || rs_key(keys, kkind, i) != rs_key(keys, kkind, i - 1))) m |= 1u << k;
        }
        return m;
    }
    if (kkind == RS_INT8 || kkind == RS_UINT8) return rs_byk_heads_in<1>(keys, first);
    if (kkind == RS_INT16 || kkind == RS_UINT16) return rs_byk_heads_in<2>(keys, first);
    if (kkind == RS_INT32 || kkind == RS_UINT32) return rs_byk_heads_in<4>(keys, first);
    return rs_byk_heads_in<8>(keys, first);
}

__device__ __forceinline__ bool rs_byk_vec(const void *keys) { return (uintptr_t)keys % 16 == 0; }

/* kkind RS_KEYS_BITS: the heads are given, not found: `keys` points to the segmented scan's head part (seg_scan_heads
 * of segmented.cu): RS_CU_HEAD_WORDS uint64, [lo, hi) the positions its segments cover and a fault word, then a bitmap
 * of n bits (bit p of 32-bit word p / 32: p is a segment's start, or 0). Not a redscan_dtype. */
#define RS_KEYS_BITS RS_CU_KEYS_BITS

__device__ __forceinline__ const unsigned *rs_head_map(const void *keys)
{
    return static_cast<const unsigned *>(keys) + 2 * RS_CU_HEAD_WORDS;
}

/* The head mask of positions first .. first + cnt - 1 from the bitmap (cnt <= 16 divides 32 and first; cnt = 1: is
 * first a head); 0 past n */
__device__ __forceinline__ unsigned rs_head_bits(const void *keys, rs_u64 n, rs_u64 first, unsigned cnt)
{
    return first < n ? (rs_head_map(keys)[first >> 5] >> (first & 31u)) & ((1u << cnt) - 1u) : 0u;
}

#endif /* RS_KEYS_CUH */
