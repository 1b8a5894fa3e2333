/* Single-pass grid scan (docs/ALGORITHMS.md, "Grid level", single_pass). Twin: kernels_cl/scan_single_pass.cl,
 * which documents the algorithm in full; the steps, the slot layout and the order of combination are the same.
 *
 *   scan_single_pass<B, IN_T, T, Op, PER>(const IN_T *in, T *out, unsigned long long *flags, n, exclusive,
 *                                         T init, unsigned spins, int inplace)
 * PER = 1 or 2 tiles per ticket (the host's choice, rs_single_pass_per; same bits: see the kernel).
 *
 * A decoupled look-back whose result does not depend on timing. Tiles (sections of B) come from the ticket
 * counter flags[0] (never blockIdx) and form groups of RS_SP_GROUP = 32. With S[i] the tile aggregate (the block
 * scan's last element):
 *     T(g) = S[32g] (+) S[32g+1] (+) ... (+) S[32g+31]          (left to right)
 *     A(-1) = init,  A(g) = A(g-1) (+) T(g)                       (the groups' inclusive prefixes, a chain)
 *     P[j] = A(g-1) (+) (S[32g] (+) ... (+) S[j-1])  for j = 32g + p, p > 0;   P[32g] = A(g-1)
 * Any A(m) found published is the chain's value, so folding T(m+1) .. T(g-1) onto it gives A(g-1) with the same
 * bits whichever m a block happens to find. Slots (after RS_SP_SLOT_BASE words): tile i at slot i (status AGG,
 * S[i]), group g at slot tiles + g (AGG: T(g), later INC: A(g)); a slot is one word status << 32 | value bits, two
 * words for 64-bit T (a reader accepts equal statuses only: each (slot, status) has one value). Look-back: the
 * lanes of warp 0 poll the tile slots of the block's own group and the 32 group slots before it (and older
 * windows of 32, up to 128 groups, for the 256-value blocks: rs_sp_windows), `spins` polls each, and fold with
 * shuffles (the OpenCL twin: work-items 0..63 and work-item 0 through local memory); a window of totals only
 * waits for the chain to reach it. Anything missing after that goes to thread 0's slow path, which polls item by
 * item and, where a value still is not there, has the whole block reduce the tile from the input (the decoupled
 * fallback) or fold a group total from its tiles, and publishes what it computed. */
#include <string.h>

#include <type_traits>

#include "common.cuh"
#include "cu_launch.h"
#include "lookback.cuh"
#include "scan_brent_kung.cuh"
#include "scan_coarsened.cuh"
#include "scan_io.cuh"
#include "scan_kogge_stone.cuh"
#include "scan_kogge_stone_db.cuh"

/* PER tiles per ticket (1 or 2; j = ticket * PER, so a pair never straddles a group of 32): the block loads both
 * sections before it scans either (twice the bytes in flight), publishes both aggregates, and does one look-back
 * for tile j; tile j + 1's prefix follows without another: W(j + 1) = W(j) (+) S[j] (S[j] alone when j opens its
 * group), the same left fold the look-back would compute, so the bits are those of PER = 1. */
/* Blocks per SM ptxas compiles for: 8 (every thread slot) for 4-byte T with min / max, or with a 256-value block
 * (whose look-back searches 4 windows), which otherwise took 38-40 registers and so 6 blocks (float32 max at 2^28,
 * H100: 0.81 -> 0.92 x CUB); 0 (ptxas's choice: 32 registers, no spills) for the coarsened sums. */
template <class B, typename T, class Op> struct rs_sp_min_blocks {
    static const int value =
        sizeof(T) == 4 && (Op::code == RS_MIN || Op::code == RS_MAX || rs_sp_windows<B>::value > 1) ? 8 : 0;
};

template <class B, typename SRC, typename DST, typename T, class Op, unsigned PER>
__global__ void __launch_bounds__(RS_GROUP, (rs_sp_min_blocks<B, T, Op>::value))
    scan_single_pass(SRC in, DST out, rs_sp_word_t *flags, rs_u64 n, int exclusive, T init, unsigned spins,
                     int inplace)
{
    __shared__ __align__(16) T s[PER][B::SECTION];
    __shared__ __align__(16) T aux[B::AUX];
    __shared__ __align__(16) T r[RS_GROUP];
    __shared__ unsigned wst[RS_SP_GROUP]; /* the tile half of the window, for the slow path */
    __shared__ T wv[RS_SP_GROUP];
    __shared__ rs_u64 tile_l, cmd_l;
    __shared__ int ok_l;
    __shared__ T p_l[PER];
    const unsigned t = threadIdx.x;
    const rs_u64 tiles = (n + (B::SECTION - 1)) / B::SECTION;
    rs_sp_word_t *slots = flags + RS_SP_SLOT_BASE;
    const rs_sp_frame fr = {0, tiles, 1, 0};
    for (;;) {
        if (t == 0) tile_l = atomicAdd(flags, 1ull);
        __syncthreads();
        const rs_u64 j = tile_l * PER;
        if (j >= tiles) break;
        const bool two = PER == 2 && j + 1 < tiles; /* uniform across the block */
        const rs_u64 base = j * B::SECTION, g = j / RS_SP_GROUP;
        const unsigned p = (unsigned)(j % RS_SP_GROUP);
        const bool split = p == RS_SP_GROUP - 1; /* the last tile of its group (PER = 1 only) */
        rs_scan_load<T, Op>(s[0], in, base, n, B::SECTION);
        if (two) rs_scan_load<T, Op>(s[PER - 1], in, base + B::SECTION, n, B::SECTION);
        B::template scan<Op>(s[0], aux);
        if (two) B::template scan<Op>(s[PER - 1], aux);
        const T own = s[0][B::SECTION - 1];
        const T own_next = two ? s[PER - 1][B::SECTION - 1] : Op::identity();
        T w = Op::identity(), a = init; /* thread 0's */
        if (t < 32) { /* warp 0 */
            if (t == 0) {
                rs_sp_put<T>(slots, j, RS_SP_AGG, own);
                if (two) rs_sp_put<T>(slots, j + 1, RS_SP_AGG, own_next);
            }
            /* the ticket closes its group: T(g) = W (+) S[j] (PER = 1), (W (+) S[j]) (+) S[j + 1] (PER = 2;
             * p > 0 there, so W(j + 1) = W(j) (+) S[j]) */
            const bool closes = p == RS_SP_GROUP - 1 || (two && p == RS_SP_GROUP - 2);
            const auto total = [&](T wj) { return two ? Op::combine(Op::combine(wj, own), own_next) : Op::combine(wj, own); };
            const bool ok = rs_sp_warp_lookback<T, Op, rs_sp_windows<B>::value>(slots, fr, g, p, closes, total,
                                                                                 spins, init, wst, wv, &w, &a);
            if (t == 0) ok_l = ok;
        }
        __syncthreads();
        if (!ok_l)
            rs_sp_slow_path<SRC, T, Op>(in, n, B::SECTION, slots, fr, g, p, own, wst, wv, spins, inplace, init, r,
                                        &cmd_l, &w, &a);
        if (t == 0) {
            p_l[0] = p ? Op::combine(a, w) : a;
            if (split) rs_sp_put<T>(slots, fr.gslot(g), RS_SP_INC, Op::combine(a, Op::combine(w, own)));
            if (two) {
                const T w_next = p ? Op::combine(w, own) : own;
                p_l[PER - 1] = Op::combine(a, w_next);
                if (p == RS_SP_GROUP - 2)
                    rs_sp_put<T>(slots, fr.gslot(g), RS_SP_INC, Op::combine(a, Op::combine(w_next, own_next)));
            }
        }
        __syncthreads();
        /* in place: S[j] (and S[j + 1]) are published before any of their input is overwritten */
        if (inplace) __threadfence();
        rs_scan_store<T, Op>(out, s[0], base, n, B::SECTION, exclusive, p_l[0], 1);
        if (two) rs_scan_store<T, Op>(out, s[PER - 1], base + B::SECTION, n, B::SECTION, exclusive, p_l[PER - 1], 1);
        __syncthreads();
    }
}

/* ---- a narrow input with the coarsened block, CUDA-only: the same bits, the data in registers ----
 * A section of int8 is 2 KiB: at 2^28 the scan above spent the same time per tile whatever the element size (int8
 * 0.69 ms, int32 0.88 ms for the same 131072 tiles on the H100), so the narrow scans ran at a fifth of the copy.
 * This kernel takes PER consecutive tiles per ticket (as scan_single_pass's PER = 2 does, one look-back for all of
 * them) and keeps them in registers instead of shared memory: thread t reads values 8t .. 8t+7 of each tile, its
 * coarsened sub-section, with one 8- or 16-byte load, scans them in place (phase 1), and phase 2 runs over the
 * PER tiles' 256 totals at once (one warp per tile where rs_coarse_phase2_in_warp says, else the Kogge-Stone
 * steps for all tiles between the same barriers). Phases 1-3 combine exactly the operands of rs_block_scan_coarse
 * in its order, the prefixes of the PER tiles are those of scan_single_pass (W(j+q+1) = W(j+q) (+) S[j+q]), and
 * the output is the same expression, so the bits are scan_single_pass's for every PER. 4-byte T only (the narrow
 * types combine in 32 bits; a widening to 64 bits keeps the kernel above). */
#define RS_SPN_PER 4u /* tiles per ticket: 8 KiB of int8 / 16 KiB of 16-bit input; a warp per tile in phase 2 */
#define RS_SPN_MIN_BLOCKS 4 /* per SM: at most 64 registers (8 tiles per ticket took 128, 2 blocks per SM: int8 0.30
                             * of the copy at 2^28) */
static_assert(RS_SPN_PER <= RS_GROUP / 32 && RS_SP_GROUP % RS_SPN_PER == 0, "a warp per tile; tickets within a group");

/* Values 8t .. 8t+7 of the tile at base (the identity past n, as rs_scan_load pads). */
template <typename T, class Op>
__device__ __forceinline__ void rs_spn_load(const rs_nsrc<T> in, rs_u64 base, rs_u64 n, bool full,
                                            T (&x)[RS_COARSE_ITEMS])
{
    const rs_u64 first = base + (rs_u64)threadIdx.x * RS_COARSE_ITEMS;
    if (full) { /* uniform; the launcher checked the alignment */
        if (in.kind == 0) rs_narrow_read_vec<typename rs_narrow_of<T>::A>(in.p, first, x);
        else rs_narrow_read_vec<typename rs_narrow_of<T>::B>(in.p, first, x);
    } else {
#pragma unroll
        for (unsigned k = 0; k < RS_COARSE_ITEMS; k++) x[k] = first + k < n ? rs_load<T>(in, first + k) : Op::identity();
    }
}

/* out[first + k] = y[k], k < 8 (first: thread t's 8t of a tile; full: the tile lies within n) */
template <typename T>
__device__ __forceinline__ void rs_spn_put(const rs_ndst<T> out, rs_u64 first, rs_u64 n, bool full,
                                           const T (&y)[RS_COARSE_ITEMS])
{
    if (full && out.kind >= 0) {
        if (rs_narrow_of<T>::size(out.kind) == 1) rs_narrow_write_vec<unsigned char>(out.p, out.kind, first, y);
        else rs_narrow_write_vec<unsigned short>(out.p, out.kind, first, y);
    } else if (full) { /* a wide output (a widening scan): 32 bytes */
        rs_shared_write<RS_COARSE_ITEMS>(static_cast<T *>(out.p) + first, y); /* 16-byte vector stores */
    } else {
#pragma unroll
        for (unsigned k = 0; k < RS_COARSE_ITEMS; k++)
            if (first + k < n) rs_put(out, first + k, y[k]);
    }
}

/* out[8t + k] of a tile from its scanned sub-section x (exclusive: before = the previous sub-section's total). */
template <typename T, class Op>
__device__ __forceinline__ void rs_spn_store(const rs_ndst<T> out, rs_u64 base, rs_u64 n, bool full,
                                             const T (&x)[RS_COARSE_ITEMS], T before, int exclusive, T seed)
{
    T y[RS_COARSE_ITEMS];
#pragma unroll
    for (unsigned k = 0; k < RS_COARSE_ITEMS; k++)
        y[k] = rs_out<Op>(Op::combine(seed, exclusive ? (k == 0 ? before : x[k - 1]) : x[k]));
    rs_spn_put<T>(out, base + (rs_u64)threadIdx.x * RS_COARSE_ITEMS, n, full, y);
}

template <typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_SPN_MIN_BLOCKS)
    scan_single_pass_narrow(const rs_nsrc<T> in, const rs_ndst<T> out, rs_sp_word_t *flags, rs_u64 n, int exclusive,
                            T init, unsigned spins, int inplace)
{
    const unsigned PER = RS_SPN_PER, SECTION = RS_SECTION_COARSE;
    __shared__ __align__(16) T aux[RS_SPN_PER][RS_GROUP];
    __shared__ __align__(16) T r[RS_GROUP];
    __shared__ unsigned wst[RS_SP_GROUP];
    __shared__ T wv[RS_SP_GROUP];
    __shared__ rs_u64 tile_l, cmd_l;
    __shared__ int ok_l;
    __shared__ T p_l[RS_SPN_PER];
    const unsigned t = threadIdx.x;
    const rs_u64 tiles = (n + (SECTION - 1)) / SECTION;
    rs_sp_word_t *slots = flags + RS_SP_SLOT_BASE;
    const rs_sp_frame fr = {0, tiles, 1, 0};
    for (;;) {
        if (t == 0) tile_l = atomicAdd(flags, 1ull);
        __syncthreads();
        const rs_u64 j = tile_l * PER;
        if (j >= tiles) break;
        const unsigned cnt = (unsigned)min((rs_u64)PER, tiles - j); /* tiles in this ticket, uniform */
        const rs_u64 g = j / RS_SP_GROUP;
        const unsigned p = (unsigned)(j % RS_SP_GROUP);
        T x[RS_SPN_PER][RS_COARSE_ITEMS];
#pragma unroll
        for (unsigned q = 0; q < PER; q++)
            if (q < cnt) rs_spn_load<T, Op>(in, (j + q) * SECTION, n, (j + q + 1) * SECTION <= n, x[q]);
        /* phase 1: each sub-section scanned left to right */
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            if (q < cnt) {
                T acc = x[q][0];
#pragma unroll
                for (unsigned k = 1; k < RS_COARSE_ITEMS; k++) {
                    acc = Op::combine(acc, x[q][k]);
                    x[q][k] = acc;
                }
                aux[q][t] = acc;
            }
        }
        /* phase 2 over every tile's totals */
        if (rs_coarse_phase2_in_warp<T, Op>::value) {
            __syncthreads();
            if (t / 32 < cnt) rs_kogge_stone_256_warp<Op>(aux[t / 32]);
        } else {
            for (unsigned d = 1; d < RS_GROUP; d <<= 1) {
                __syncthreads();
                T temp[RS_SPN_PER];
#pragma unroll
                for (unsigned q = 0; q < PER; q++)
                    if (q < cnt && t >= d) temp[q] = Op::combine(aux[q][t - d], aux[q][t]);
                __syncthreads();
#pragma unroll
                for (unsigned q = 0; q < PER; q++)
                    if (q < cnt && t >= d) aux[q][t] = temp[q];
            }
        }
        __syncthreads();
        /* phase 3, and each tile's aggregate S[j + q] = its scan's last value */
        T own[RS_SPN_PER], before[RS_SPN_PER];
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            if (q < cnt) {
                before[q] = t ? aux[q][t - 1] : Op::identity();
                if (t > 0) {
#pragma unroll
                    for (unsigned k = 0; k < RS_COARSE_ITEMS - 1; ++k) x[q][k] = Op::combine(before[q], x[q][k]);
                }
                x[q][RS_COARSE_ITEMS - 1] = aux[q][t];
                own[q] = aux[q][RS_GROUP - 1];
            } else {
                before[q] = own[q] = Op::identity();
            }
        }
        const bool closes = cnt == PER && p + PER == RS_SP_GROUP;
        T w = Op::identity(), a = init; /* thread 0's */
        if (t < 32) {
            if (t == 0) {
#pragma unroll
                for (unsigned q = 0; q < PER; q++)
                    if (q < cnt) rs_sp_put<T>(slots, j + q, RS_SP_AGG, own[q]);
            }
            const auto total = [&](T wj) { /* closes: p = 32 - PER > 0, so W(j) is not empty */
                T v = wj;
#pragma unroll
                for (unsigned q = 0; q < PER; q++) v = Op::combine(v, own[q]);
                return v;
            };
            const bool ok = rs_sp_warp_lookback<T, Op, 1>(slots, fr, g, p, closes, total, spins, init, wst, wv, &w, &a);
            if (t == 0) ok_l = ok;
        }
        __syncthreads();
        if (!ok_l)
            rs_sp_slow_path<rs_nsrc<T>, T, Op>(in, n, SECTION, slots, fr, g, p, own[0], wst, wv, spins, inplace, init,
                                               r, &cmd_l, &w, &a);
        if (t == 0) { /* W(j + q + 1) = W(j + q) (+) S[j + q], W(j) empty when p = 0 */
            T wq = w;
#pragma unroll
            for (unsigned q = 0; q < PER; q++) {
                if (q < cnt) p_l[q] = p + q ? Op::combine(a, wq) : a;
                wq = p + q ? Op::combine(wq, own[q]) : own[q];
            }
            if (closes) rs_sp_put<T>(slots, fr.gslot(g), RS_SP_INC, Op::combine(a, wq));
        }
        __syncthreads();
        if (inplace) __threadfence(); /* every S[j + q] is published before any of its input is overwritten */
#pragma unroll
        for (unsigned q = 0; q < PER; q++)
            if (q < cnt)
                rs_spn_store<T, Op>(out, (j + q) * SECTION, n, (j + q + 1) * SECTION <= n, x[q], before[q], exclusive,
                                    p_l[q]);
        __syncthreads();
    }
}

/* ---- a narrow input other than float16, CUDA-only: the same bits, the values packed as loaded ----
 * scan_single_pass_narrow's 4 tiles of widened values take 32 of its 64 registers, and more tiles per ticket spilled
 * (8 tiles: 128 registers, 2 blocks per SM). This kernel keeps the loaded bytes instead (8 or 16 per thread and
 * tile), so a ticket holds RS_SPP_PER = 8 tiles at 4 blocks per SM and one look-back serves 2-4 times the bytes.
 * Each value is converted twice: phase 1 folds a sub-section into its total, phase 3 folds it again after the
 * barrier (the same left fold, the same bits). That is a shift or a byte permute for the integers and bfloat16;
 * float16's exact conversion (rs_half_to_float) is several instructions, and done twice it was slower than keeping
 * the values widened (H100, 2^28: 0.41-0.44 of the copy against 0.52), so float16 stays with
 * scan_single_pass_narrow. Figures: docs/PERFORMANCE.md, "Narrow scans, fourth round".
 *   ITEMS = 8 (bfloat16, int16, uint16): the coarsened block's tiles of 2048; phases 1-3 and the look-back are
 *     scan_single_pass_narrow's, so the bits are.
 *   ITEMS = 16 (int8, uint8): tiles of 4096, 32 KiB per ticket as for the 16-bit types (8 values per thread gave
 *     16 KiB tickets: 0.54 of the copy against 0.57). Another tiling changes the order of combination, which an
 *     integer op (wrapping sum and product, min, max) does not see: every order gives the same bits. So do the
 *     integers' phase 3, which folds seed (+) before once and then combines it with each running value.
 *   SWAR (int8 / uint8 sum, min and max into the same type): the bytes stay packed. Phase 1 folds a sub-section's
 *     16 bytes with four __dp4a (sums) or lane by lane (rs_swar, common.cuh); phase 3 scans each word's bytes in
 *     place (two shifted combines), adds the running byte to all four lanes and stores the words as they are, with
 *     no conversion to T and back. The same values (integer ops), 0.57 -> 0.75 of the copy for int8 sums on the H100
 *     at 2^28 (docs/PERFORMANCE.md, "Narrow types, fifth round"). Widening outputs and products keep the T path. */
#define RS_SPP_PER 8u
static_assert(RS_SP_GROUP % RS_SPP_PER == 0, "tickets within a group");
/* A thread's ITEMS values of BYTES bytes as loaded: 8 or 16 bytes. */
template <unsigned SIZE> struct rs_spp_raw;
template <> struct rs_spp_raw<8> {
    typedef uint2 type;
};
template <> struct rs_spp_raw<16> {
    typedef uint4 type;
};

__device__ __forceinline__ unsigned rs_spp_word(const uint2 &r, unsigned i) { return i == 0 ? r.x : r.y; }
__device__ __forceinline__ unsigned rs_spp_word(const uint4 &r, unsigned i)
{
    return i == 0 ? r.x : i == 1 ? r.y : i == 2 ? r.z : r.w;
}

/* value k of a raw sub-section (values of sizeof(N) bytes) as N, converted to T */
template <typename N, typename T, typename R> __device__ __forceinline__ T rs_spp_value(const R &r, unsigned k)
{
    const unsigned per_word = 4 / sizeof(N);
    const unsigned w = rs_spp_word(r, k / per_word) >> (8 * sizeof(N) * (k % per_word));
    N v;
    if (sizeof(N) == 1) {
        const unsigned char b = (unsigned char)w;
        memcpy(&v, &b, 1);
    } else {
        const unsigned short b = (unsigned short)w;
        memcpy(&v, &b, 2);
    }
    return (T)v;
}

/* x[k] = value k (the identity at and past n when the tile is not full) */
template <typename T, class Op, unsigned BYTES, unsigned ITEMS>
__device__ __forceinline__ void rs_spp_decode(const typename rs_spp_raw<BYTES * ITEMS>::type &r, int kind, bool full,
                                              rs_u64 first, rs_u64 n, T (&x)[ITEMS])
{
    typedef typename rs_narrow_of<T>::A A;
    typedef typename rs_narrow_of<T>::B B;
#pragma unroll
    for (unsigned k = 0; k < ITEMS; k++) {
        T v;
        if constexpr (BYTES == 1) v = rs_spp_value<A, T>(r, k);
        else if constexpr (sizeof(A) == 2) v = kind == 0 ? rs_spp_value<A, T>(r, k) : rs_spp_value<B, T>(r, k);
        else v = rs_spp_value<B, T>(r, k);
        x[k] = full || first + k < n ? v : Op::identity();
    }
}

template <typename T, class Op, unsigned BYTES, unsigned ITEMS, bool SWAR = false>
__global__ void __launch_bounds__(RS_GROUP, RS_SPN_MIN_BLOCKS)
    scan_single_pass_packed(const rs_nsrc<T> in, const rs_ndst<T> out, rs_sp_word_t *flags, rs_u64 n, int exclusive,
                            T init, unsigned spins, int inplace)
{
    static_assert(ITEMS == RS_COARSE_ITEMS || !rs_type_info<T>::is_float, "another tile size: integers only");
    static_assert(!SWAR || (BYTES == 1 && ITEMS == 16 && Op::code != RS_PROD), "SWAR: int8 / uint8 sum, min, max");
    typedef rs_swar<T, Op> S;
    typedef typename rs_spp_raw<BYTES * ITEMS>::type R;
    const unsigned PER = RS_SPP_PER, SECTION = ITEMS * RS_GROUP;
    __shared__ __align__(16) T aux[RS_SPP_PER][RS_GROUP];
    __shared__ __align__(16) T r[RS_GROUP];
    __shared__ unsigned wst[RS_SP_GROUP];
    __shared__ T wv[RS_SP_GROUP];
    __shared__ rs_u64 tile_l, cmd_l;
    __shared__ int ok_l;
    __shared__ T p_l[RS_SPP_PER];
    const unsigned t = threadIdx.x;
    const rs_u64 tiles = (n + (SECTION - 1)) / SECTION;
    rs_sp_word_t *slots = flags + RS_SP_SLOT_BASE;
    const rs_sp_frame fr = {0, tiles, 1, 0};
    for (;;) {
        if (t == 0) tile_l = atomicAdd(flags, 1ull);
        __syncthreads();
        const rs_u64 j = tile_l * PER;
        if (j >= tiles) break;
        const unsigned cnt = (unsigned)min((rs_u64)PER, tiles - j); /* tiles in this ticket, uniform */
        const rs_u64 g = j / RS_SP_GROUP;
        const unsigned p = (unsigned)(j % RS_SP_GROUP);
        R raw[RS_SPP_PER];
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            const rs_u64 first = (j + q) * SECTION + (rs_u64)t * ITEMS;
            if (q < cnt) {
                if ((j + q + 1) * SECTION <= n) {
                    raw[q] = *reinterpret_cast<const R *>(static_cast<const unsigned char *>(in.p) + first * BYTES);
                } else { /* the last tile: byte by byte within n, the rest decoded as the identity */
                    unsigned char b[sizeof(R)];
                    for (unsigned k = 0; k < ITEMS * BYTES; k++)
                        b[k] = first + k / BYTES < n ? static_cast<const unsigned char *>(in.p)[first * BYTES + k]
                                                     : (unsigned char)(SWAR ? S::id() : 0); /* SWAR: the identity */
                    memcpy(&raw[q], b, sizeof(R));
                }
            }
        }
        /* phase 1: each sub-section's total */
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            if (q < cnt) {
                if constexpr (SWAR) {
                    const uint4 &v = raw[q];
                    if constexpr (Op::code == RS_SUM) { /* exact, and its low byte is the byte sum's */
                        typedef typename std::conditional<S::sgn, int, unsigned>::type I;
                        const I one = (I)0x01010101;
                        const I s2 = __dp4a((I)v.y, one, __dp4a((I)v.x, one, (I)0));
                        aux[q][t] = (T)__dp4a((I)v.w, one, __dp4a((I)v.z, one, s2));
                    } else {
                        aux[q][t] = S::value(S::prefix(S::op(S::op(v.x, v.y), S::op(v.z, v.w))) >> 24);
                    }
                    continue;
                }
                const rs_u64 first = (j + q) * SECTION + (rs_u64)t * ITEMS;
                T x[ITEMS];
                rs_spp_decode<T, Op, BYTES, ITEMS>(raw[q], in.kind, (j + q + 1) * SECTION <= n, first, n, x);
                T acc = x[0];
#pragma unroll
                for (unsigned k = 1; k < ITEMS; k++) acc = Op::combine(acc, x[k]);
                aux[q][t] = acc;
            }
        }
        /* phase 2 over every tile's totals */
        if (rs_coarse_phase2_in_warp<T, Op>::value) {
            __syncthreads();
            for (unsigned q = t / 32; q < cnt; q += RS_GROUP / 32) rs_kogge_stone_256_warp<Op>(aux[q]);
        } else {
            for (unsigned d = 1; d < RS_GROUP; d <<= 1) {
                __syncthreads();
                T temp[RS_SPP_PER];
#pragma unroll
                for (unsigned q = 0; q < PER; q++)
                    if (q < cnt && t >= d) temp[q] = Op::combine(aux[q][t - d], aux[q][t]);
                __syncthreads();
#pragma unroll
                for (unsigned q = 0; q < PER; q++)
                    if (q < cnt && t >= d) aux[q][t] = temp[q];
            }
        }
        __syncthreads();
        const bool closes = cnt == PER && p + PER == RS_SP_GROUP;
        T w = Op::identity(), a = init; /* thread 0's */
        if (t < 32) {
            if (t == 0) {
#pragma unroll
                for (unsigned q = 0; q < PER; q++)
                    if (q < cnt) rs_sp_put<T>(slots, j + q, RS_SP_AGG, aux[q][RS_GROUP - 1]);
            }
            const auto total = [&](T wj) { /* closes: p = 32 - PER > 0, so W(j) is not empty */
                T v = wj;
#pragma unroll
                for (unsigned q = 0; q < PER; q++) v = Op::combine(v, aux[q][RS_GROUP - 1]);
                return v;
            };
            const bool ok = rs_sp_warp_lookback<T, Op, 1>(slots, fr, g, p, closes, total, spins, init, wst, wv, &w, &a);
            if (t == 0) ok_l = ok;
        }
        __syncthreads();
        if (!ok_l)
            rs_sp_slow_path<rs_nsrc<T>, T, Op>(in, n, SECTION, slots, fr, g, p, aux[0][RS_GROUP - 1], wst, wv, spins,
                                               inplace, init, r, &cmd_l, &w, &a);
        if (t == 0) { /* W(j + q + 1) = W(j + q) (+) S[j + q], W(j) empty when p = 0 */
            T wq = w;
#pragma unroll
            for (unsigned q = 0; q < PER; q++) {
                if (q < cnt) p_l[q] = p + q ? Op::combine(a, wq) : a;
                const T own = q < cnt ? aux[q][RS_GROUP - 1] : Op::identity();
                wq = p + q ? Op::combine(wq, own) : own;
            }
            if (closes) rs_sp_put<T>(slots, fr.gslot(g), RS_SP_INC, Op::combine(a, wq));
        }
        __syncthreads();
        if (inplace) __threadfence(); /* every S[j + q] is published before any of its input is overwritten */
        /* phase 3 and the stores: the sub-section folded again, the previous sub-section's total first */
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            if (q < cnt) {
                const rs_u64 base = (j + q) * SECTION, first = base + (rs_u64)t * ITEMS;
                const bool full = base + SECTION <= n;
                if constexpr (SWAR) { /* the running value before each word as a byte, c */
                    const T before = t ? aux[q][t - 1] : Op::identity();
                    unsigned c = (unsigned)(t ? Op::combine(p_l[q], before) : p_l[q]) & 0xffu;
                    unsigned w[4] = {raw[q].x, raw[q].y, raw[q].z, raw[q].w};
#pragma unroll
                    for (unsigned k = 0; k < 4; k++) {
                        const unsigned inc = S::op(S::prefix(w[k]), c * 0x01010101u);
                        w[k] = exclusive ? (inc << 8) | c : inc;
                        c = inc >> 24;
                    }
                    unsigned char *o = static_cast<unsigned char *>(out.p);
                    if (full) {
                        *reinterpret_cast<uint4 *>(o + first) = make_uint4(w[0], w[1], w[2], w[3]);
                    } else {
                        for (unsigned k = 0; k < ITEMS; k++)
                            if (first + k < n) o[first + k] = (unsigned char)(w[k / 4] >> (8 * (k % 4)));
                    }
                    continue;
                }
                T x[ITEMS];
                rs_spp_decode<T, Op, BYTES, ITEMS>(raw[q], in.kind, full, first, n, x);
                const T before = t ? aux[q][t - 1] : Op::identity();
                if constexpr (!rs_type_info<T>::is_float) {
                    /* integers combine exactly associatively: seed (+) (before (+) acc_k) = (seed (+) before) (+)
                     * acc_k, and aux[t] = before (+) acc_7 */
                    const T sb = t ? Op::combine(p_l[q], before) : p_l[q];
                    T y[ITEMS];
                    T acc = x[0];
                    y[0] = rs_out<Op>(exclusive ? sb : Op::combine(sb, acc));
#pragma unroll
                    for (unsigned k = 1; k < ITEMS; k++) {
                        const T prev = acc;
                        acc = Op::combine(acc, x[k]);
                        y[k] = rs_out<Op>(Op::combine(sb, exclusive ? prev : acc));
                    }
#pragma unroll
                    for (unsigned h = 0; h < ITEMS; h += RS_COARSE_ITEMS)
                        rs_spn_put<T>(out, first + h, n, full, *reinterpret_cast<const T(*)[RS_COARSE_ITEMS]>(y + h));
                    continue;
                }
                T acc = x[0];
#pragma unroll
                for (unsigned k = 1; k < RS_COARSE_ITEMS; k++) {
                    acc = Op::combine(acc, x[k]);
                    x[k] = acc;
                }
                if (t > 0) {
#pragma unroll
                    for (unsigned k = 0; k < RS_COARSE_ITEMS - 1; ++k) x[k] = Op::combine(before, x[k]);
                }
                x[ITEMS - 1] = aux[q][t];
                rs_spn_store<T, Op>(out, base, n, full, *reinterpret_cast<const T(*)[RS_COARSE_ITEMS]>(x), before,
                                    exclusive, p_l[q]);
            }
        }
        __syncthreads();
    }
}

/* ---- launcher ---- */

template <class F> static cudaError_t rs_sp_dispatch_block(int block, F f)
{
    switch (block) {
    case 1: return f(rs_block_ks());
    case 2: return f(rs_block_ksdb());
    case 3: return f(rs_block_bk());
    case 4: return f(rs_block_coarse_sp()); /* scan_coarsened.cuh: the one-warp phase 2 */
    }
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t rs_cu_scan_single_pass(int block, int in_dtype, int out_dtype, int op, const void *in,
                                              void *out, unsigned long long *flags, unsigned long long n,
                                              int exclusive, const void *init, unsigned spins, int inplace,
                                              unsigned per, unsigned grid, cudaStream_t stream)
{
    return rs_sp_dispatch_block(block, [&](auto b) -> cudaError_t {
        typedef decltype(b) B;
        return rs_dispatch_scan(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
            typedef typename decltype(xt)::type X;
            typedef typename decltype(tt)::type T;
            typedef typename decltype(ot)::template apply<T> Op;
            typedef typename rs_scan_src<X>::type S;
            typedef typename rs_scan_dst<X, T>::type D;
            const S src = rs_scan_src<X>::make(in, in_dtype);
            const D dst = rs_scan_dst<X, T>::make(out, out_dtype);
            T init_v;
            memcpy(&init_v, init, sizeof init_v);
            /* A narrow input with the coarsened block and aligned buffers: scan_single_pass_packed, float16
             * scan_single_pass_narrow (same bits); otherwise one tile per ticket whatever per says (one instance
             * fewer per T for nvcc; per never changes the bits). */
            if constexpr (rs_is_nmark<X>::value && sizeof(T) == 4) {
                if (block == 4 && ((uintptr_t)in | (uintptr_t)out) % 16 == 0) {
                    /* tickets of `per` tiles of `items` values per thread; the blocks past the resident ones find
                     * none left */
                    const auto blocks = [&](unsigned per, unsigned items) -> unsigned {
                        const rs_u64 ticket = (rs_u64)per * items * RS_GROUP;
                        const rs_u64 tickets = (n + ticket - 1) / ticket;
                        return tickets < grid ? (unsigned)tickets : grid; /* n > 0: tickets >= 1 */
                    };
                    const unsigned b8 = blocks(RS_SPP_PER, RS_COARSE_ITEMS);
                    if constexpr (rs_type_info<T>::is_float) {
                        if (src.kind == 0) /* float16 */
                            scan_single_pass_narrow<T, Op><<<blocks(RS_SPN_PER, RS_COARSE_ITEMS), RS_GROUP, 0,
                                                             stream>>>(src, dst, flags, n, exclusive, init_v, spins,
                                                                       inplace);
                        else /* bfloat16 */
                            scan_single_pass_packed<T, Op, 2, RS_COARSE_ITEMS><<<b8, RS_GROUP, 0, stream>>>(
                                src, dst, flags, n, exclusive, init_v, spins, inplace);
                    } else if (src.kind == 0) { /* int8 / uint8: 16 values per thread, 32 KiB per ticket */
                        if constexpr (Op::code != RS_PROD) {
                            if (dst.kind == 0) { /* into int8 / uint8: sum, min, max four to a word */
                                scan_single_pass_packed<T, Op, 1, 2 * RS_COARSE_ITEMS, true>
                                    <<<blocks(RS_SPP_PER, 2 * RS_COARSE_ITEMS), RS_GROUP, 0, stream>>>(
                                        src, dst, flags, n, exclusive, init_v, spins, inplace);
                                return rs_launched();
                            }
                        }
                        scan_single_pass_packed<T, Op, 1, 2 * RS_COARSE_ITEMS>
                            <<<blocks(RS_SPP_PER, 2 * RS_COARSE_ITEMS), RS_GROUP, 0, stream>>>(
                                src, dst, flags, n, exclusive, init_v, spins, inplace);
                    } else { /* int16 / uint16 */
                        scan_single_pass_packed<T, Op, 2, RS_COARSE_ITEMS><<<b8, RS_GROUP, 0, stream>>>(
                            src, dst, flags, n, exclusive, init_v, spins, inplace);
                    }
                    return rs_launched();
                }
            }
            if constexpr (!rs_is_nmark<X>::value) {
                if (per == 2) {
                    scan_single_pass<B, S, D, T, Op, 2><<<grid, RS_GROUP, 0, stream>>>(src, dst, flags, n, exclusive,
                                                                                     init_v, spins, inplace);
                    return rs_launched();
                }
            }
            scan_single_pass<B, S, D, T, Op, 1><<<grid, RS_GROUP, 0, stream>>>(src, dst, flags, n, exclusive, init_v,
                                                                             spins, inplace);
            return rs_launched();
        });
    });
}
