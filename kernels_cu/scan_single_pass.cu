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
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS((rs_sp_min_blocks<B, T, Op>::value)))
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

/* ---- a narrow input with the coarsened block, CUDA-only: the same bits, tickets of 8 tiles ----
 * A section of int8 is 2 KiB: at 2^28 the scan above spent the same time per tile whatever the element size (int8
 * 0.69 ms, int32 0.88 ms for the same 131072 tiles on the H100), so the narrow scans ran at a fifth of the copy.
 * scan_single_pass_packed takes RS_SPP_PER = 8 consecutive tiles per ticket (as scan_single_pass's PER = 2 does, one
 * look-back for all of them). Thread t copies its 16 bytes of each tile (values 8t .. 8t+7 of 16-bit types, 16t ..
 * 16t+15 of int8) straight into its own slots of shared memory (cp.async: no registers held while they arrive) and
 * decodes them twice: phase 1 folds its sub-section into the total, phase 3 folds it again after the look-back (the
 * same left fold, the same bits). Phase 2 runs over the 8 tiles' 256 totals at once (one warp per tile where
 * rs_coarse_phase2_in_warp says, else the Kogge-Stone steps for all tiles between the same barriers). Parking the
 * bytes in shared memory rather than in registers lets 5 blocks per SM hold 8 tiles each; the register forms (4 or 8
 * tiles at 64 registers, 4 blocks per SM) ran at 0.52-0.75 of the copy on the H100 at 2^28, this one at 0.81-0.89
 * (docs/PERFORMANCE.md, "Narrow scans, sixth round").
 *   ITEMS = 8 (float16, bfloat16, int16, uint16): the coarsened block's tiles of 2048; phases 1-3 combine exactly
 *     the operands of rs_block_scan_coarse in its order, the prefixes of the 8 tiles are those of scan_single_pass
 *     (W(j+q+1) = W(j+q) (+) S[j+q]), and the output is the same expression, so the bits are scan_single_pass's.
 *   ITEMS = 16 (int8, uint8): tiles of 4096. Another tiling changes the order of combination, which an integer op
 *     (wrapping sum and product, min, max) does not see: every order gives the same bits. So do the integers' phase
 *     3, which folds seed (+) before once and then combines it with each running value.
 *   SWAR (int8 / uint8 sum, min and max into the same type): the bytes stay packed. Phase 1 folds a sub-section's
 *     16 bytes with four __dp4a (sums) or lane by lane (rs_swar, common.cuh); phase 3 scans each word's bytes in
 *     place (two shifted combines), adds the running byte to all four lanes and stores the words as they are, with
 *     no conversion to T and back (docs/PERFORMANCE.md, "Narrow types, fifth round").
 * 4-byte T only (the narrow types combine in 32 bits; a widening to 64 bits keeps the kernel above). */
/* Tickets of 8 tiles (32 KiB of input) at 5 blocks per SM (41 KB of shared memory a block, at most 48 registers).
 * H100, 2^28, x copy against 4 tiles at 6 blocks (40 registers, 21.8 KB): int8 words 0.82-0.83 -> 0.86-0.87, float16
 * 0.75 -> 0.78-0.81, bfloat16 0.76-0.77 -> 0.81, int16 0.83-0.84 -> 0.83. 4 tiles at 8 blocks (32 registers) spilled
 * and lost: int8 0.75, bfloat16 0.68. */
#define RS_SPP_PER 8u
#define RS_SPP_MIN_BLOCKS 5
static_assert(RS_SP_GROUP % RS_SPP_PER == 0, "tickets within a group");

/* A narrow value N as T for the scan op Op. float16 under a sum or a product takes the hardware's cvt.f32.f16: exact
 * for every number, infinity and subnormal (one instruction against rs_half_to_float's seven; float16 scans at 2^28
 * on the H100: 0.52 -> 0.57 of the copy in the register kernel). Only a NaN can come out with another payload, and
 * that changes no stored bit: a sum or product with a NaN operand is a NaN, and rs_canon stores every NaN of those two
 * ops as the canonical one. min and max return a NaN operand itself, so they keep the payload-exact conversion (N's
 * operator T). */
template <typename T, class Op, typename N> __device__ __forceinline__ T rs_widen(N v)
{
    if constexpr (std::is_same<N, rs_f16>::value && (Op::code == RS_SUM || Op::code == RS_PROD)) {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
        return f;
    } else {
        return (T)v;
    }
}

/* value k of a thread's 16 loaded bytes (values of sizeof(N) bytes) as N, converted to T for Op (rs_widen) */
template <typename N, typename T, class Op> __device__ __forceinline__ T rs_spp_value(const uint4 &r, unsigned k)
{
    const unsigned per_word = 4 / sizeof(N), i = k / per_word;
    const unsigned w = (i == 0 ? r.x : i == 1 ? r.y : i == 2 ? r.z : r.w) >> (8 * sizeof(N) * (k % per_word));
    N v;
    if (sizeof(N) == 1) {
        const unsigned char b = (unsigned char)w;
        memcpy(&v, &b, 1);
    } else {
        const unsigned short b = (unsigned short)w;
        memcpy(&v, &b, 2);
    }
    return rs_widen<T, Op>(v);
}

/* x[k] = value k (the identity at and past n when the tile is not full). The storage type is chosen once, outside
 * the loop (kind is uniform), so that a 16-bit float input does not convert each value both ways and select. */
template <typename T, class Op, unsigned BYTES, unsigned ITEMS>
__device__ __forceinline__ void rs_spp_decode(const uint4 &r, int kind, bool full, rs_u64 first, rs_u64 n,
                                              T (&x)[ITEMS])
{
    const auto decode = [&](auto tag) {
        typedef typename decltype(tag)::type N;
        if (full) { /* uniform: no bound per value */
#pragma unroll
            for (unsigned k = 0; k < ITEMS; k++) x[k] = rs_spp_value<N, T, Op>(r, k);
        } else {
#pragma unroll
            for (unsigned k = 0; k < ITEMS; k++) x[k] = first + k < n ? rs_spp_value<N, T, Op>(r, k) : Op::identity();
        }
    };
    typedef typename rs_narrow_of<T>::A A;
    typedef typename rs_narrow_of<T>::B B;
    if constexpr (sizeof(A) == BYTES && sizeof(B) == BYTES) {
        if (kind == 0) decode(rs_tag<A>());
        else decode(rs_tag<B>());
    } else if constexpr (sizeof(A) == BYTES) {
        decode(rs_tag<A>());
    } else {
        decode(rs_tag<B>());
    }
}

/* Two values of a float scan's output, y0 and y1 before rs_out, rounded to the 16-bit float type of kind and packed
 * (y0 in the low half): one cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32 for the pair, the rounding of rs_float_to_half /
 * rs_float_to_bfloat16 (IEEE nearest even, overflow to infinity, subnormals kept). A NaN takes rs_out and those
 * functions' payload rules instead, off the common path (the hardware would store its own NaN). Against rs_out
 * and the conversions value by value, float16 sums at 2^28 on the H100 went from 0.66 to 0.73 of the copy.
 * CHECK = false: the caller knows that neither value is a NaN (rs_spp_put's last_tells), so the pair is not tested. */
template <class Op, bool CHECK = true> __device__ __forceinline__ unsigned rs_pack2_of(int kind, float y0, float y1)
{
    unsigned h;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    /* no packed conversion before sm_80 (ptxas refuses it for the default architecture list's sm_75): the same
     * rounding value by value */
    h = kind == 0 ? rs_float_to_half(y0) | (unsigned)rs_float_to_half(y1) << 16
                  : rs_float_to_bfloat16(y0) | (unsigned)rs_float_to_bfloat16(y1) << 16;
#else
    if (kind == 0) asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(y1), "f"(y0));
    else asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(y1), "f"(y0));
#endif
    if (CHECK && (y0 != y0 || y1 != y1)) {
        const auto one = [&](float y) -> unsigned {
            y = rs_out<Op>(y);
            return kind == 0 ? rs_float_to_half(y) : rs_float_to_bfloat16(y);
        };
        h = one(y0) | one(y1) << 16;
    }
    return h;
}

/* out[first + k] = y[k], k < 8 (first: thread t's 8t of a tile; full: the tile lies within n). y: rs_out's values;
 * a full 16-bit float output takes the values before rs_out (rs_pack2_of applies it). last_tells: y[7] is a NaN
 * whenever any y[k] is (the kernel says when that holds), so one compare replaces rs_pack2_of's four (float16 sums
 * at 2^28 on the H100: 0.81 -> 0.86-0.87 of the copy, docs/PERFORMANCE.md "Narrow scans, seventh round"). */
template <typename T, class Op>
__device__ __forceinline__ void rs_spp_put(const rs_ndst<T> out, rs_u64 first, rs_u64 n, bool full,
                                           const T (&y)[RS_COARSE_ITEMS], bool last_tells = false)
{
    if (full && out.kind >= 0) {
        if constexpr (rs_type_info<T>::is_float) { /* four packed pairs, one 16-byte store */
            uint4 v;
            if (last_tells && y[RS_COARSE_ITEMS - 1] == y[RS_COARSE_ITEMS - 1]) { /* no NaN among the 8 */
                const int k = out.kind;
                v = make_uint4(rs_pack2_of<Op, false>(k, y[0], y[1]), rs_pack2_of<Op, false>(k, y[2], y[3]),
                               rs_pack2_of<Op, false>(k, y[4], y[5]), rs_pack2_of<Op, false>(k, y[6], y[7]));
            } else {
                v = make_uint4(rs_pack2_of<Op>(out.kind, y[0], y[1]), rs_pack2_of<Op>(out.kind, y[2], y[3]),
                               rs_pack2_of<Op>(out.kind, y[4], y[5]), rs_pack2_of<Op>(out.kind, y[6], y[7]));
            }
            *reinterpret_cast<uint4 *>(static_cast<unsigned short *>(out.p) + first) = v;
        } else if (rs_narrow_of<T>::size(out.kind) == 1) {
            rs_narrow_write_vec<unsigned char>(out.p, out.kind, first, y);
        } else {
            rs_narrow_write_vec<unsigned short>(out.p, out.kind, first, y);
        }
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
__device__ __forceinline__ void rs_spp_store(const rs_ndst<T> out, rs_u64 base, rs_u64 n, bool full,
                                             const T (&x)[RS_COARSE_ITEMS], T before, int exclusive, T seed,
                                             bool last_tells)
{
    T y[RS_COARSE_ITEMS];
    /* rs_pack2_of applies rs_out itself, to NaNs only (the one value it changes) */
    const bool packed = rs_type_info<T>::is_float && full && out.kind >= 0;
#pragma unroll
    for (unsigned k = 0; k < RS_COARSE_ITEMS; k++) {
        const T v = Op::combine(seed, exclusive ? (k == 0 ? before : x[k - 1]) : x[k]);
        y[k] = packed ? v : rs_out<Op>(v);
    }
    rs_spp_put<T, Op>(out, base + (rs_u64)threadIdx.x * RS_COARSE_ITEMS, n, full, y, last_tells);
}

template <typename T, class Op, unsigned BYTES, unsigned ITEMS, bool SWAR = false>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(RS_SPP_MIN_BLOCKS))
    scan_single_pass_packed(const rs_nsrc<T> in, const rs_ndst<T> out, rs_sp_word_t *flags, rs_u64 n, int exclusive,
                            T init, unsigned spins, int inplace)
{
    static_assert(BYTES * ITEMS == 16, "16 bytes per thread and tile");
    static_assert(ITEMS == RS_COARSE_ITEMS || !rs_type_info<T>::is_float, "another tile size: integers only");
    static_assert(!SWAR || (BYTES == 1 && ITEMS == 16 && Op::code != RS_PROD), "SWAR: int8 / uint8 sum, min, max");
    typedef rs_swar<T, Op> S;
    const unsigned PER = RS_SPP_PER, SECTION = ITEMS * RS_GROUP;
    /* each thread's loaded bytes, between phase 1 and phase 3 (its own slots only, so no barrier orders them) */
    __shared__ __align__(16) uint4 raw_s[RS_SPP_PER][RS_GROUP];
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
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            const rs_u64 first = (j + q) * SECTION + (rs_u64)t * ITEMS;
            if (q < cnt) {
                if ((j + q + 1) * SECTION <= n) {
                    rs_copy16_async(&raw_s[q][t], static_cast<const unsigned char *>(in.p) + first * BYTES);
                } else { /* the last tile: byte by byte within n, the rest decoded as the identity */
                    unsigned char b[16];
                    for (unsigned k = 0; k < ITEMS * BYTES; k++)
                        b[k] = first + k / BYTES < n ? static_cast<const unsigned char *>(in.p)[first * BYTES + k]
                                                     : (unsigned char)(SWAR ? S::id() : 0); /* SWAR: the identity */
                    memcpy(&raw_s[q][t], b, 16);
                }
            }
        }
        rs_copy_async_wait(); /* this thread's own copies: it alone reads them */
        /* phase 1: each sub-section's total */
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            if (q < cnt) {
                if constexpr (SWAR) {
                    const uint4 v = raw_s[q][t];
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
                rs_spp_decode<T, Op, BYTES, ITEMS>(raw_s[q][t], in.kind, (j + q + 1) * SECTION <= n, first, n, x);
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
        /* Whether a thread's last output alone says if any of its 8 is a NaN (rs_spp_put). Inclusive, output k < 7
         * is seed (+) (aux[t-1] (+) the fold up to k) but output 7 is seed (+) aux[t], phase 2's tree over the same
         * values, so the claim needs a NaN that does not depend on the order: min and max (a NaN operand propagates)
         * and float16 sums into float16 (init a float16 too), which cannot overflow float32 (|sum| <= (n + 1) x
         * 65504): there a NaN means a NaN operand or +inf and -inf among the values, whatever the tree. bfloat16 sums
         * can overflow and products can overflow or underflow, so aux[t-1] may be infinite where aux[t] is not
         * (test_narrow's part 2c). Exclusive, output 7 is seed (+) (aux[t-1] (+) the fold up to 6), which holds every
         * operand of the others. */
        const bool last_tells = rs_type_info<T>::is_float && (Op::code == RS_MIN || Op::code == RS_MAX ||
                                                              (Op::code == RS_SUM && in.kind == 0 && out.kind == 0));
        /* phase 3 and the stores: the sub-section folded again, the previous sub-section's total first */
#pragma unroll
        for (unsigned q = 0; q < PER; q++) {
            if (q < cnt) {
                const rs_u64 base = (j + q) * SECTION, first = base + (rs_u64)t * ITEMS;
                const bool full = base + SECTION <= n;
                if constexpr (SWAR) { /* the running value before each word as a byte, c */
                    const T before = t ? aux[q][t - 1] : Op::identity();
                    unsigned c = (unsigned)(t ? Op::combine(p_l[q], before) : p_l[q]) & 0xffu;
                    const uint4 v = raw_s[q][t];
                    unsigned w[4] = {v.x, v.y, v.z, v.w};
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
                rs_spp_decode<T, Op, BYTES, ITEMS>(raw_s[q][t], in.kind, full, first, n, x);
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
                        rs_spp_put<T, Op>(out, first + h, n, full,
                                          *reinterpret_cast<const T(*)[RS_COARSE_ITEMS]>(y + h));
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
                rs_spp_store<T, Op>(out, base, n, full, *reinterpret_cast<const T(*)[RS_COARSE_ITEMS]>(x), before,
                                    exclusive, p_l[q], last_tells);
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
            /* A narrow input with the coarsened block and aligned buffers: scan_single_pass_packed (same bits);
             * otherwise one tile per ticket whatever per says (one instance fewer per T for nvcc; per never changes
             * the bits). */
            if constexpr (rs_is_nmark<X>::value && sizeof(T) == 4) {
                if (block == 4 && ((uintptr_t)in | (uintptr_t)out) % 16 == 0) {
                    /* tickets of RS_SPP_PER tiles of `items` values per thread; the blocks past the resident ones
                     * find none left */
                    const auto blocks = [&](unsigned items) -> unsigned {
                        const rs_u64 ticket = (rs_u64)RS_SPP_PER * items * RS_GROUP;
                        const rs_u64 tickets = (n + ticket - 1) / ticket;
                        return tickets < grid ? (unsigned)tickets : grid; /* n > 0: tickets >= 1 */
                    };
                    if constexpr (!rs_type_info<T>::is_float) {
                        if (src.kind == 0) { /* int8 / uint8: 16 values per thread */
                            if constexpr (Op::code != RS_PROD) {
                                if (dst.kind == 0) { /* into int8 / uint8: sum, min, max four to a word */
                                    scan_single_pass_packed<T, Op, 1, 2 * RS_COARSE_ITEMS, true>
                                        <<<blocks(2 * RS_COARSE_ITEMS), RS_GROUP, 0, stream>>>(
                                            src, dst, flags, n, exclusive, init_v, spins, inplace);
                                    return rs_launched();
                                }
                            }
                            scan_single_pass_packed<T, Op, 1, 2 * RS_COARSE_ITEMS>
                                <<<blocks(2 * RS_COARSE_ITEMS), RS_GROUP, 0, stream>>>(src, dst, flags, n, exclusive,
                                                                                       init_v, spins, inplace);
                            return rs_launched();
                        }
                    }
                    /* float16, bfloat16, int16, uint16 */
                    scan_single_pass_packed<T, Op, 2, RS_COARSE_ITEMS>
                        <<<blocks(RS_COARSE_ITEMS), RS_GROUP, 0, stream>>>(src, dst, flags, n, exclusive, init_v, spins,
                                                                           inplace);
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
