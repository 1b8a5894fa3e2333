/* Segmented scan (docs/ALGORITHMS.md, "Segmented scans"). Twin: kernels_cl/segmented_scan.cl, whose header explains
 * the work division (seg_scan_short for the segments of up to 2048 elements: a thread, or a warp as the twin's team
 * of 32; windows of 2048 elements for the longer ones), the kernels and the order of combination; the same
 * constants, classes, windows, places and order here. CUDA-only data movement, with the team's combinations: a
 * medium segment of up to 256 elements takes a group of 2 .. 32 lanes (rs_ss_group); seg_scan_short stages a
 * batch's segments of up to 256 elements in shared memory, moving them piece by piece between the longer segments
 * (rs_ss_move; a batch without such segments and of at most a pool's elements, rs_ss_cap, in one piece, with no
 * bookkeeping),
 * and takes its batches from a counter; the segments of 257..2048 elements go to seg_scan_team (a warp each over
 * the whole grid).
 * seg_check is segmented.cu's (rs_cu_seg_check).
 *
 * The long segments' chunks take the single-pass path only (seg_scan_marks, seg_scan_single; the twin keeps its
 * four-kernel path for devices without 64-bit atomics), two windows per ticket (the twin: one). Template instances stay lean: the three kernels that read the
 * input or write the output are dispatched with rs_dispatch_scan (one instance per compute type T and op, a narrow
 * input / output as a kernel argument). */
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "common.cuh"
#include "cu_launch.h"
#include "keys.cuh"
#include "lookback.cuh"
#include "scan_coarsened.cuh"
#include "scan_io.cuh"

#define RS_SS_TILE RS_SECTION_COARSE
#define RS_SS_SHORT RS_COARSE_ITEMS
#define RS_SS_TEAM 32
#define RS_SS_TEAMS (RS_GROUP / RS_SS_TEAM)

__device__ __forceinline__ rs_u64 rs_ss_off(const void *p, int kind, rs_u64 s)
{
    if (kind == RS_INT32) return (rs_u64)(long long)static_cast<const int *>(p)[s];
    if (kind == RS_UINT32) return (rs_u64) static_cast<const unsigned *>(p)[s];
    if (kind == RS_INT64) return (rs_u64) static_cast<const long long *>(p)[s];
    return static_cast<const rs_u64 *>(p)[s];
}

/* rs_ss_live of segmented_scan.cl: *S = R (runs: scan by key's _async form); returns the windows to visit */
__device__ __forceinline__ rs_u64 rs_ss_live(const void *offsets, int kind, const rs_u64 *runs, rs_u64 *S,
                                             rs_u64 windows)
{
    if (runs && *runs < *S) *S = *runs;
    const rs_u64 end = rs_ss_off(offsets, kind, *S), w = (end + RS_SS_TILE - 1) / RS_SS_TILE;
    return w < windows ? w : windows;
}

/* rs_ss_count of segmented_scan.cl: the segments s < S with offsets[s] <= p, from lo */
__device__ __forceinline__ rs_u64 rs_ss_count(const void *offsets, int kind, rs_u64 lo, rs_u64 S, rs_u64 p)
{
    rs_u64 hi = S;
    while (lo < hi) {
        const rs_u64 mid = lo + (hi - lo) / 2;
        if (rs_ss_off(offsets, kind, mid) <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* rs_ss_window of segmented_scan.cl: the chunks of long segments starting in window w (at most two) */
__device__ __forceinline__ unsigned rs_ss_window(const void *offsets, int kind, rs_u64 S, rs_u64 w, rs_u64 *seg,
                                                 rs_u64 *ch)
{
    const rs_u64 p = w * RS_SS_TILE, end = rs_ss_off(offsets, kind, S);
    const rs_u64 q = end - p > RS_SS_TILE ? p + RS_SS_TILE - 1 : end - 1;
    unsigned m = 0;
    const rs_u64 ca = rs_ss_count(offsets, kind, 0, S, p);
    if (ca > 0) {
        const rs_u64 s = ca - 1, o = rs_ss_off(offsets, kind, s), len = rs_ss_off(offsets, kind, s + 1) - o;
        const rs_u64 c = (p - o + RS_SS_TILE - 1) / RS_SS_TILE;
        if (len > RS_SS_TILE && c * RS_SS_TILE < len) {
            seg[m] = s;
            ch[m++] = c;
        }
    }
    const rs_u64 cb = rs_ss_count(offsets, kind, ca, S, q);
    if (cb > ca) {
        const rs_u64 s = cb - 1, o = rs_ss_off(offsets, kind, s);
        if (rs_ss_off(offsets, kind, s + 1) - o > RS_SS_TILE) {
            seg[m] = s;
            ch[m++] = 0;
        }
    }
    return m;
}

/* position q of a padded shared array: a word skipped after every 32 */
#define RS_SS_PADDED(q) ((q) + (q) / 32)

/* A team's segment in shared memory: position q of the segment at RS_SS_SWZ(q), which flips the low 3 bits by bits
 * 5..7. Lane l reading its sub-section (positions 256r + 8l + k, k fixed) then meets bank 8 (l & 3) + (k ^ (l >> 2)),
 * 32 distinct banks, and 32 consecutive positions from a multiple of 32 (the coalesced moves, 256r + 32k + lane) meet
 * bank lane ^ k, a permutation: no conflict either way, and no padding word. */
#define RS_SS_SWZ(q) ((q) ^ (((q) >> 5) & 7u))

/* values 0 .. len - 1 of the segment at `o` into seg (swizzled), the identity from len to the end of its last row
 * (`end`), by one warp; the caller's __syncwarp follows. T's read as they are go by cp.async (4 or 8 bytes a copy,
 * coalesced), all in flight at once at no register cost; a narrow or widened input goes through registers, 8 loads in
 * flight a lane. */
template <typename T, class Op, typename SRC>
__device__ __forceinline__ void rs_ss_team_load(SRC in, T *seg, unsigned lane, rs_u64 o, unsigned len, unsigned end)
{
    if constexpr (rs_copyable<SRC, T>::value) {
        for (unsigned i = lane; i < len; i += RS_SS_TEAM) rs_copy_async<sizeof(T)>(seg + RS_SS_SWZ(i), in + o + i);
    } else {
        rs_load_in_flight<RS_COARSE_ITEMS, RS_SS_TEAM, T>(
            in, o, lane, len, [&](unsigned i0, unsigned d, T v) { seg[RS_SS_SWZ(i0 + d)] = v; });
    }
    for (unsigned i = len + lane; i < end; i += RS_SS_TEAM) seg[RS_SS_SWZ(i)] = Op::identity();
    rs_copy_async_wait();
}

/* rs_ss_team of segmented_scan.cl by one warp (lane = threadIdx.x % 32; seg: RS_SS_TILE values, aux: 256, the warp's
 * own shared memory): phase 1 per sub-section tt = lane + 32r, phase 2 by rs_kogge_stone_256_warp (the block's
 * Kogge-Stone steps over aux[0..255], the same combinations as the twin's local-memory steps, scan_coarsened.cuh),
 * phase 3 folding the sub-section again. CUDA-only data movement, order unchanged: the whole segment (up to 2048
 * values, eight rows of 256) is copied into seg first with coalesced accesses, phases 1 and 3 read it from there, the
 * results replace it and go out with coalesced stores (each lane reading and writing its own 8 contiguous values in
 * global memory, 32 bytes apart across the warp, took 3.30 ms for 2^28 values in segments of 1000 on the H100, the
 * coalesced moves through shared memory 1.45). Every lane reads its sub-section (values 256r + 8 lane + k)
 * from seg, so the values it combines are those of the twin, the identity past the segment's end in its last row as
 * the twin pads; values past len are computed, not stored. The segment is read before any of it is written: in
 * place stays safe. No block barrier: the warp's own.
 * Before, a row of 256 values was staged at a time and phase 3 read the segment from global memory a second time:
 * with 6336 warps each on up to 8 KB, most of those reads missed L2 (H100, 2^28 float32 values in 90 %-empty segments
 * of 1 .. 2000: 1.78 GB read from DRAM for 1.07 GB of values, the kernel 1.10 ms; docs/PERFORMANCE.md, "seg_scan_team
 * reads each value once"). */
template <typename T, class Op, typename SRC, typename DST>
__device__ __forceinline__ void rs_ss_team(SRC in, DST out, T *seg, T *aux, unsigned lane, rs_u64 o, unsigned len,
                                           T init, int exclusive)
{
    const unsigned rows = (len + RS_GROUP - 1) / RS_GROUP; /* rows holding values */
    rs_ss_team_load<T, Op>(in, seg, lane, o, len, rows * RS_GROUP);
    __syncwarp();
    for (unsigned r = 0; r < RS_SS_TEAMS; r++) {
        T acc = Op::identity();
        if (r < rows) { /* uniform */
#pragma unroll
            for (unsigned k = 0; k < RS_COARSE_ITEMS; k++) {
                const T x = seg[RS_SS_SWZ(r * RS_GROUP + lane * RS_COARSE_ITEMS + k)];
                acc = k == 0 ? x : Op::combine(acc, x);
            }
        }
        aux[lane + RS_SS_TEAM * r] = acc;
    }
    __syncwarp();
    rs_kogge_stone_256_warp<Op>(aux);
    __syncwarp();
    for (unsigned r = 0; r < rows; r++) {
        const unsigned tt = lane + RS_SS_TEAM * r;
        const T carry = tt > 0 ? aux[tt - 1] : Op::identity();
        T acc = Op::identity(), prev = carry;
        /* a lane's sub-section is read and rewritten by that lane alone */
#pragma unroll
        for (unsigned k = 0; k < RS_COARSE_ITEMS; k++) {
            const unsigned q = RS_SS_SWZ(r * RS_GROUP + lane * RS_COARSE_ITEMS + k);
            const T x = seg[q];
            acc = k == 0 ? x : Op::combine(acc, x);
            const T l = k == RS_COARSE_ITEMS - 1 ? aux[tt] : tt > 0 ? Op::combine(carry, acc) : acc;
            seg[q] = rs_out<Op>(Op::combine(init, exclusive ? prev : l));
            prev = l;
        }
    }
    __syncwarp(); /* the results, for the coalesced stores */
#pragma unroll 4
    for (unsigned i = lane; i < len; i += RS_SS_TEAM) rs_put(out, o + i, seg[RS_SS_SWZ(i)]);
    __syncwarp(); /* seg and aux are refilled by the warp's next segment */
}

/* A segment of RS_SS_SHORT + 1 .. 8 W values (W = 2, 4, 8, 16 or 32; 8 = RS_COARSE_ITEMS) by a group of W lanes, 32 / W
 * segments per warp at once (CUDA-only work division; the team above took a whole warp and the 256-entry steps for
 * each, and most of its lanes had nothing to do in the one-element-heavy and power-law distributions). Lane u of the
 * group is the team's sub-section u: its values 8u .. 8u+7 folded left to right (the identity past len, as the team
 * pads), the Kogge-Stone steps d = 1 .. W/2 over the group's W totals by shuffles within the group, and phase 3 as
 * the team's partial row. The segment has at most W sub-sections, so the team's steps d >= W change none of the
 * entries used and the entries past the segment are the identity: every combination is the team's (and so the
 * twin's), the same bits. Every lane of the warp calls this (the shuffles), `live` false where the group has no
 * segment. */
template <unsigned W, typename T, class Op, typename SRC, typename DST>
__device__ __forceinline__ void rs_ss_group(SRC in, DST out, bool live, rs_u64 o, unsigned len, T init, int exclusive)
{
    const unsigned u = threadIdx.x % W, first = u * RS_COARSE_ITEMS;
    T x[RS_COARSE_ITEMS]; /* read once (staged in shared memory): phase 3 folds the same values again */
    T acc = Op::identity();
#pragma unroll
    for (unsigned k = 0; k < RS_COARSE_ITEMS; k++) {
        x[k] = live && first + k < len ? rs_load<T>(in, o + first + k) : Op::identity();
        acc = k == 0 ? x[k] : Op::combine(acc, x[k]);
    }
    T v = acc; /* the team's aux[u] after its steps */
#pragma unroll
    for (unsigned d = 1; d < W; d <<= 1) {
        const T left = __shfl_up_sync(0xffffffffu, v, d, W);
        if (u >= d) v = Op::combine(left, v);
    }
    const T before = __shfl_up_sync(0xffffffffu, v, 1, W);
    if (!live || first >= len) return;
    const T carry = u > 0 ? before : Op::identity();
    T prev = carry;
#pragma unroll
    for (unsigned k = 0; k < RS_COARSE_ITEMS; k++) {
        if (first + k < len) {
            acc = k == 0 ? x[k] : Op::combine(acc, x[k]);
            const T l = k == RS_COARSE_ITEMS - 1 ? v : u > 0 ? Op::combine(carry, acc) : acc;
            rs_put(out, o + first + k, rs_out<Op>(Op::combine(init, exclusive ? prev : l)));
            prev = l;
        }
    }
}

/* Staging (CUDA-only data movement; the operands and their order are unchanged): a batch's segments of 1 ..
 * RS_SS_GMAX values are packed, in segment order, into shared memory (`pool`, RS_SS_CAP values of T), read with
 * coalesced loads, scanned there (a thread per short segment, lane groups for the others: rs_ss_group on `pool`),
 * and written back with coalesced stores. Before, each thread and lane read and wrote its own few values in global
 * memory: on the one-element-heavy distribution (2^28 values, 45 M segments, H100) seg_scan_short moved 23 % of the
 * DRAM bandwidth and stalled half its time at barriers behind the warps with the medium segments. A batch whose
 * packed values exceed the pool (CAP = rs_ss_cap<T>) goes in rounds: round r takes the segments whose packed start lies
 * in [r HOP, (r + 1) HOP), HOP = CAP - RS_SS_GMAX, so a round spans less than HOP + RS_SS_GMAX = CAP values. */
#define RS_SS_GMAX (32 * RS_COARSE_ITEMS)     /* the longest segment a lane group takes (rs_ss_group<32>) */
#define RS_SS_CAP (2 * RS_SS_TEAMS * RS_GROUP) /* values staged at once (seg_scan_short_pairs; an 8-byte T) */
/* seg_scan_short's pool for a 4-byte T: 6144 values. By a host replay of the bench's power-law lengths at 2^28, 34 % of
 * the batches took two rounds of a 4096-value pool (3716 staged values a batch on average) and none take two of this
 * one; the block grows from 29.5 to 37.9 KB (5 blocks an SM still fit; an 8-byte T would drop to 3, so it keeps
 * RS_SS_CAP). A round is one more load round trip and two more barriers for the whole block: the float32 power-law
 * segmented scan went from 1.273-1.274 to 1.220-1.227 ms (H100, 2^28; docs/PERFORMANCE.md, "seg_scan_short's pool of
 * 6144 values"). The macro lets a build try other sizes (4096: the pool before). */
#ifndef RS_SS_CAP4
#define RS_SS_CAP4 6144u
#endif
template <typename T> struct rs_ss_cap {
    static constexpr unsigned value = sizeof(T) == 4 ? RS_SS_CAP4 : RS_SS_CAP; /* values */
    static constexpr unsigned hop = value - RS_SS_GMAX;                        /* a round's first positions */
    static constexpr unsigned rounds = (RS_GROUP * RS_SS_GMAX + hop - 1) / hop; /* at most, a batch */
};
#define RS_SS_LOADS 8 /* a thread's loads in flight while staging */
/* seg_scan_short_pairs' *dcount when it took no batch (scan by key's _async form over long runs): seg_scan_short
 * takes them all */
#define RS_SS_ALL (~0ull)
/* A batch's segments of 257 .. 2048 values go to seg_scan_team, a warp each over the whole grid (a batch of 256
 * segments of 1000 values is 256 K values: 1048 of them over the resident blocks left the last ones running alone).
 * A batch with up to 64 of them scanned them itself, after its staged segments, until the twenty-fourth session:
 * that code in seg_scan_short made ptxas spill (float32 sum: 40 bytes of stores), and without it the float32
 * segmented scan over power-law and one-element-heavy segments was 3-4 % faster on the H200 and every float32 scan
 * by key of the bench 0.5-3 %, the segmented scan over 90 %-empty segments (about 23 such segments a batch) 13 %
 * slower (docs/PERFORMANCE.md, "Segmented scan: packed batches"). */
#define RS_SS_TEAM_LEN_BITS 11 /* a seg_scan_team entry: offset << 11 | (length - 1), length <= 2048 */
static_assert(RS_SS_GMAX + 1 == RS_CU_SEG_TEAM_MIN, "cu_launch.h sizes the team list for this class");

/* pool seen with packed position q at RS_SS_PADDED(q) (a word skipped after every 32): lane u of a lane group reads
 * and writes values 8u + k of its segment, which then meet distinct banks for u = 0..31, and a warp's 32 consecutive
 * positions from a multiple of 32 still do (unpadded, 62 % of the kernel's shared memory wavefronts were bank
 * conflicts and L1 was its bottleneck on the one-element-heavy distribution) */
template <typename T> struct rs_ss_padded {
    T *p;
};
template <typename T> __device__ __forceinline__ T rs_load(const rs_ss_padded<T> s, rs_u64 i)
{
    const unsigned q = (unsigned)i;
    return s.p[RS_SS_PADDED(q)];
}
template <typename T> __device__ __forceinline__ void rs_put(const rs_ss_padded<T> d, rs_u64 i, T v)
{
    const unsigned q = (unsigned)i;
    d.p[RS_SS_PADDED(q)] = v;
}

/* The staged segment that holds packed position p: the last j with pos[j] <= p (pos: the batch's exclusive scan of
 * the staged lengths, pos[0] = 0; a segment that is not staged adds 0, so the last of equal positions is the staged
 * one) */
__device__ __forceinline__ unsigned rs_ss_find(const unsigned *pos, unsigned p)
{
    unsigned j = 0;
#pragma unroll
    for (unsigned step = RS_GROUP / 2; step; step >>= 1)
        if (pos[j + step] <= p) j += step;
    return j;
}

/* The global index of packed position p, through the staged segment that holds it (rs_ss_each, below) */
__device__ __forceinline__ rs_u64 rs_ss_at(const rs_u64 *s_o, const unsigned *s_pos, unsigned p)
{
    const unsigned j = rs_ss_find(s_pos, p);
    return s_o[j] + (p - s_pos[j]);
}

/* A batch's packed values are contiguous in global memory except where a segment of more than RS_SS_GMAX values (not
 * staged) lies between two staged ones: the batch's pieces are the runs between such segments (a piece starts after
 * each). A batch of up to RS_SS_PIECES pieces (the bench's power-law lengths put 2.6 such segments in a batch of 256 on
 * average, by their Pareto law) is moved piece by piece, a value's global index its piece's start plus its place in the
 * piece; a batch with more, and a narrow or widened input or output, map each value through rs_ss_at (eight dependent
 * shared-memory probes a value), as every batch with such a segment did before. The power-law float32 segmented scan
 * went from 1.57 to 1.31-1.33 ms at 2^28 on the H200 (docs/PERFORMANCE.md, "seg_scan_short moves its values by
 * pieces"). Only the data movement changes: pool and the output get the same values, so the bits are the same. */
#define RS_SS_PIECES 8

/* pool[q0 + i] = gp[g + i] (IN) or gp[g + i] = pool[q0 + i], i < m, by the whole block, a value a thread; the loads
 * RS_SS_LOADS in flight (a plain loop waited for each load before issuing the next). (16-byte accesses were tried:
 * with a batch's few values a thread they executed more instructions, not fewer.) */
template <bool IN, typename T, typename G>
__device__ __forceinline__ void rs_ss_run(const rs_ss_padded<T> pad, G gp, rs_u64 g, unsigned q0, unsigned m)
{
    if constexpr (IN) {
        rs_load_in_flight<RS_SS_LOADS, RS_GROUP, T>(gp, g, threadIdx.x, m,
                                                    [&](unsigned k0, unsigned d, T v) { rs_put(pad, q0 + k0 + d, v); });
    } else {
        for (unsigned k = threadIdx.x; k < m; k += RS_GROUP) rs_put(gp, g + k, rs_load<T>(pad, q0 + k));
    }
}

/* A round's packed positions [A, B) in (IN) or out, pool position p - A, a value a thread at its global index: o0 (the
 * batch's first value) + p in a batch of one piece, else through rs_ss_at. Every thread of the block calls it. */
template <bool IN, typename T, typename G>
__device__ __forceinline__ void rs_ss_each(const rs_ss_padded<T> pad, G gp, unsigned A, unsigned B, unsigned np,
                                           rs_u64 o0, const rs_u64 *s_o, const unsigned *s_pos)
{
    if constexpr (IN) {
        for (unsigned p0 = A + threadIdx.x; p0 < B; p0 += RS_SS_LOADS * RS_GROUP) {
            T v[RS_SS_LOADS];
#pragma unroll
            for (unsigned k = 0; k < RS_SS_LOADS; k++) {
                const unsigned p = p0 + k * RS_GROUP;
                if (p < B) v[k] = rs_load<T>(gp, np == 1 ? o0 + p : rs_ss_at(s_o, s_pos, p));
            }
#pragma unroll
            for (unsigned k = 0; k < RS_SS_LOADS; k++)
                if (p0 + k * RS_GROUP < B) rs_put(pad, p0 + k * RS_GROUP - A, v[k]);
        }
    } else {
        for (unsigned p = A + threadIdx.x; p < B; p += RS_GROUP)
            rs_put(gp, np == 1 ? o0 + p : rs_ss_at(s_o, s_pos, p), rs_load<T>(pad, p - A));
    }
}

/* A round's packed positions [A, B) in (IN) or out, pool position p - A. A T array: piece by piece (piece k: packed
 * positions [pa[k], pa[k + 1]), pa[np] = total, global start pg[k]; piece 0 at 0 and o0) up to RS_SS_PIECES
 * pieces, else rs_ss_each. A narrow or widened input or output (a value converted a value) takes rs_ss_each, the code
 * it had before the pieces: with the pieces ptxas spilled more there (rs_nsrc<float> sum: 100 bytes of spill stores
 * instead of 32). Every thread of the block calls it (uniform arguments). */
template <bool IN, typename T, typename G>
__device__ __forceinline__ void rs_ss_move(const rs_ss_padded<T> pad, G gp, unsigned A, unsigned B, unsigned total,
                                           unsigned np, const unsigned *pa, const rs_u64 *pg, rs_u64 o0,
                                           const rs_u64 *s_o, const unsigned *s_pos)
{
    if constexpr (IN ? std::is_same<G, const T *>::value : std::is_same<G, T *>::value) {
        if (np == 1) { /* no gap (the 90 %-ones distribution); a round may be empty (A = ~0u, B = 0) */
            if (A < B) rs_ss_run<IN>(pad, gp, o0 + A, 0, B - A);
            return;
        }
        if (np <= RS_SS_PIECES) {
            for (unsigned k = 0; k < np; k++) {
                const unsigned a0 = k ? pa[k] : 0u, b0 = k + 1 < np ? pa[k + 1] : total;
                const unsigned a = a0 > A ? a0 : A, b = b0 < B ? b0 : B;
                if (a < b) rs_ss_run<IN>(pad, gp, (k ? pg[k] : o0) + (a - a0), a - A, b - a);
            }
            return;
        }
    }
    rs_ss_each<IN>(pad, gp, A, B, np, o0, s_o, s_pos);
}

/* A staged segment of 1 .. RS_SS_SHORT values at pool position at, by its own thread (the twin's work-item) */
template <typename T, class Op>
__device__ __forceinline__ void rs_ss_thread(const rs_ss_padded<T> pad, unsigned at, unsigned len, T init,
                                             int exclusive)
{
    T acc = Op::identity();
    for (unsigned i = 0; i < len; i++) {
        const T x = rs_load<T>(pad, at + i);
        const T prev = acc;
        acc = i == 0 ? x : Op::combine(acc, x);
        rs_put(pad, at + i, rs_out<Op>(Op::combine(init, exclusive ? (i == 0 ? Op::identity() : prev) : acc)));
    }
}

/* The lane-group classes: class c holds the staged segments of 8 W / 2 + 1 .. 8 W values, W = RS_SS_GW(c) = 2, 4,
 * 8, 16, 32 lanes (9..16, 17..32, 33..64, 65..128, 129..256 values), 32 / W segments a warp at once. A group of W
 * lanes serves any segment of at most W sub-sections (rs_ss_group: the same bits whatever W), so the narrowest that
 * fits leaves the fewest lanes idle: with three classes (8, 16, 32 lanes) a segment of 9..16 values kept 6 of its 8
 * lanes idle, and the power-law lengths put 53 of a batch's 256 segments there (by their Pareto law). With five, a
 * power-law batch deals 17.7 warp tasks instead of 30.0, and the float32 segmented scan over those lengths went from
 * 1.330-1.336 to 1.273-1.278 ms (H100, 2^28; docs/PERFORMANCE.md, "Lane groups of 2 and 4 lanes"). */
#define RS_SS_CLASSES 5
#define RS_SS_GW(c) (2u << (c))
__device__ __forceinline__ unsigned rs_ss_class(unsigned len) /* RS_SS_SHORT < len <= RS_SS_GMAX */
{
    return 31u - (unsigned)__clz((int)((len - 1u) / RS_COARSE_ITEMS));
}

/* Warp piece k of class C's list (32 / W entries from k * 32 / W) by its lane groups */
template <unsigned C, unsigned N, typename T, class Op>
__device__ __forceinline__ void rs_ss_deal_piece(const rs_ss_padded<T> pad, const unsigned short (*l_at)[N],
                                                 const unsigned short (*l_len)[N], unsigned m, unsigned k,
                                                 unsigned lane, T init, int exclusive)
{
    constexpr unsigned W = RS_SS_GW(C);
    const unsigned e = 32u / W * k + lane / W;
    rs_ss_group<W, T, Op>(pad, pad, e < m, e < m ? l_at[C][e] : 0, e < m ? l_len[C][e] : 0, init, exclusive);
}

/* The listed staged segments (class c: l_n[c] entries of pool position l_at[c][e] and length l_len[c][e]) by their
 * classes' lane groups: the lists' warp-sized pieces dealt to the warps in turn, so no warp takes two while another
 * has none. Every thread of the block calls it. */
template <unsigned N, typename T, class Op>
__device__ __forceinline__ void rs_ss_deal(const rs_ss_padded<T> pad, const unsigned short (*l_at)[N],
                                           const unsigned short (*l_len)[N], const unsigned *l_n, unsigned w,
                                           unsigned lane, T init, int exclusive)
{
    static_assert(RS_SS_GW(RS_SS_CLASSES - 1) == 32 && RS_SS_GW(0) * RS_COARSE_ITEMS == 2 * RS_SS_SHORT,
                  "the classes cover RS_SS_SHORT + 1 .. RS_SS_GMAX");
    unsigned end[RS_SS_CLASSES]; /* the warp pieces of classes 0 .. c */
    unsigned sum = 0;
#pragma unroll
    for (unsigned c = 0; c < RS_SS_CLASSES; c++) {
        const unsigned per = 32u / RS_SS_GW(c);
        sum += (l_n[c] + per - 1) / per;
        end[c] = sum;
    }
    for (unsigned k = w; k < sum; k += RS_SS_TEAMS) { /* uniform per warp */
#define RS_SS_DEAL(C)                                                                                                  \
    rs_ss_deal_piece<C, N, T, Op>(pad, l_at, l_len, l_n[C], k - (C ? end[C - 1] : 0u), lane, init, exclusive)
        if (k < end[0]) RS_SS_DEAL(0);
        else if (k < end[1]) RS_SS_DEAL(1);
        else if (k < end[2]) RS_SS_DEAL(2);
        else if (k < end[3]) RS_SS_DEAL(3);
        else RS_SS_DEAL(4);
#undef RS_SS_DEAL
    }
}

/* The offsets s and s + 1 copied by cp.async into a thread's own pair of shared words (pre[0], pre[1]; 4-byte offsets
 * in their first 4 bytes), a batch before they are read (seg_scan_short's comment below) */
__device__ __forceinline__ void rs_ss_pre_copy(rs_u64 *pre, const void *offsets, int kind, rs_u64 s)
{
    if (kind == RS_INT32 || kind == RS_UINT32) {
        rs_copy_async<4>(&pre[0], static_cast<const unsigned *>(offsets) + s);
        rs_copy_async<4>(&pre[1], static_cast<const unsigned *>(offsets) + s + 1);
    } else {
        rs_copy_async<8>(&pre[0], static_cast<const rs_u64 *>(offsets) + s);
        rs_copy_async<8>(&pre[1], static_cast<const rs_u64 *>(offsets) + s + 1);
    }
}
/* segment s's start and length from what rs_ss_pre_copy copied (after rs_copy_async_wait) */
__device__ __forceinline__ void rs_ss_pre_read(const rs_u64 *pre, int kind, rs_u64 *o, rs_u64 *len)
{
    if (kind == RS_INT32 || kind == RS_UINT32) {
        const unsigned u0 = *reinterpret_cast<const unsigned *>(&pre[0]),
                       u1 = *reinterpret_cast<const unsigned *>(&pre[1]);
        *o = kind == RS_INT32 ? (rs_u64)(long long)(int)u0 : (rs_u64)u0;
        *len = (kind == RS_INT32 ? (rs_u64)(long long)(int)u1 : (rs_u64)u1) - *o;
    } else {
        *o = pre[0];
        *len = pre[1] - *o;
    }
}

/* Blocks per SM: without a bound ptxas gave the integer min / max instances 128 registers after the lane groups came
 * (64 at most before). 5 for a 4-byte T (48 registers; at 6, with the staging and the batch counter, the sum
 * instances spilled 36-56 bytes and the uniform distribution took 1.78 ms instead of 1.46 on the H100), 4 for an
 * 8-byte one (6 made 64-bit instances spill). */
template <typename SRC, typename DST, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(sizeof(T) == 4 ? 5 : 4))
    seg_scan_short(SRC in, DST out, const void *offsets, int kind, rs_u64 S, const unsigned *flags, T init,
                   int exclusive, const rs_u64 *runs, unsigned long long *tickets, unsigned long long *team_n,
                   rs_u64 *team, unsigned *longs, const unsigned long long *dcount, const unsigned *dlist)
{
    __shared__ rs_u64 s_pre[RS_GROUP][2]; /* the next batch's offsets s, s + 1 of this thread (cp.async, below) */
    constexpr unsigned CAP = rs_ss_cap<T>::value, HOP = rs_ss_cap<T>::hop, ROUNDS = rs_ss_cap<T>::rounds;
    static_assert(CAP <= 65536, "l_at holds pool positions in 16 bits");
    __shared__ T pool[RS_SS_PADDED(CAP)]; /* the staged values */
    /* a round's staged segments of RS_SS_SHORT + 1 .. RS_SS_GMAX values by class (rs_ss_class), as positions in pool */
    __shared__ unsigned short l_at[RS_SS_CLASSES][RS_GROUP], l_len[RS_SS_CLASSES][RS_GROUP];
    __shared__ unsigned l_n[RS_SS_CLASSES];
    __shared__ unsigned s_tcnt[RS_SS_TEAMS]; /* the warps' counts of the unstaged segments */
    __shared__ rs_u64 s_o[RS_GROUP];         /* segment b * 256 + j's start */
    __shared__ unsigned s_pos[RS_GROUP];     /* its packed position (its values staged when 1 <= len <= GMAX) */
    __shared__ unsigned s_wsum[RS_SS_TEAMS]; /* the warps' staged lengths */
    __shared__ unsigned s_pa[RS_SS_PIECES];  /* piece k's first packed position (rs_ss_move; k >= 1) */
    __shared__ rs_u64 s_pg[RS_SS_PIECES];    /* and its global index */
    __shared__ unsigned s_a[ROUNDS], s_b[ROUNDS]; /* round r's packed range */
    __shared__ rs_u64 s_next;                                 /* the block's next batch */
    __shared__ rs_u64 s_first, s_last; /* the batch's first value's index and its last value's + 1 */
    const unsigned t = threadIdx.x, lane = t % RS_SS_TEAM, w = t / RS_SS_TEAM;
    if (flags[0]) return;
    if (runs && *runs < S) S = *runs;
    /* every batch, or after seg_scan_short_pairs the *dcount batches dlist names (RS_SS_ALL: every batch) */
    if (dlist && *dcount == RS_SS_ALL) dlist = nullptr;
    const rs_u64 batches = dlist ? *dcount : (S + RS_GROUP - 1) / RS_GROUP;
    /* batches taken from a counter after the first (blockIdx.x): a batch's cost follows its segments' lengths (one of
     * 1000-value segments is 256 K values, one of single values 1.5 K), and with fixed batches per block the blocks
     * with two of the heaviest finished last (H100, 2^28 values in segments of 1000: 1048 batches, 792 blocks) */
    rs_u64 next = 0;
    bool pre = false; /* block-uniform: s_pre holds this batch's offsets */
    for (rs_u64 i = blockIdx.x; i < batches; i = next) {
        const rs_u64 b = dlist ? dlist[i] : i;
        const rs_u64 s = b * RS_GROUP + t;
        rs_u64 o = 0, len = 0;
        if (s < S) {
            if (pre) {
                rs_copy_async_wait();
                rs_ss_pre_read(s_pre[t], kind, &o, &len);
            } else {
                o = rs_ss_off(offsets, kind, s);
                len = rs_ss_off(offsets, kind, s + 1) - o;
            }
        }
        if (t == 0) { /* s < S: b < batches */
            s_next = gridDim.x + atomicAdd(tickets, 1ull);
            s_first = o;
        }
        if (s < S && (t == RS_GROUP - 1 || s + 1 == S)) s_last = o + len;
        if (t < RS_SS_CLASSES) l_n[t] = 0;
        /* The block's shared words are read before the next batch's first barrier (this one) is passed, so a batch
         * ends without a barrier of its own: pool, the lists, s_o, s_pos and the pieces are written after it, s_next,
         * s_first, s_last and l_n are read before the round's barriers. */
        const bool wide = __syncthreads_or(len > RS_SS_GMAX) != 0;
        const rs_u64 o0 = s_first, span = s_last - o0;
        next = s_next;
        /* The next batch's offsets, in flight while this one is staged and scanned: each thread copies its own two
         * into its own pair of s_pre and waits for them at that batch's start (no barrier: no other thread reads
         * them, and this batch's were read before the vote above). Loaded at the batch's start, they were the first
         * of two dependent round trips a batch (offsets, then values); the float32 segmented scan over 90 %
         * one-element segments went from 1.39 to 1.32 ms (H100, 2^28; docs/PERFORMANCE.md, "Segmented argmin /
         * argmax in packed batches; seg_scan_short's offsets a batch early"). */
        pre = next < batches;
        if (pre) {
            const rs_u64 sn = (dlist ? dlist[next] : next) * RS_GROUP + t;
            if (sn < S) rs_ss_pre_copy(s_pre[t], offsets, kind, sn);
        }
        /* A batch without a segment of more than GMAX values and with at most CAP values in all (nearly every
         * batch of the 90 %-ones distribution) is one range of values, staged in one round, and a segment's packed
         * position is its start's distance from the batch's first value: no scan of the staged lengths, no prefix
         * over the warps, no pieces, no seg_scan_team list and one barrier less. The same values reach pool. */
        const bool packed = !wide && span <= CAP; /* uniform */
        const bool staged = len > 0 && len <= RS_SS_GMAX;
        unsigned pos = (unsigned)(o - o0), total = (unsigned)span, np = 1;
        if (!packed) {
            if (t < ROUNDS) {
                s_a[t] = ~0u;
                s_b[t] = 0;
            }
            const unsigned cl = staged ? (unsigned)len : 0u;
            unsigned inc = cl; /* the warp's inclusive scan of the staged lengths */
#pragma unroll
            for (unsigned d = 1; d < RS_SS_TEAM; d <<= 1) {
                const unsigned y = __shfl_up_sync(0xffffffffu, inc, d);
                if (lane >= d) inc += y;
            }
            const bool is_team = len > RS_SS_GMAX && len <= RS_SS_TILE;
            /* the segments not staged (more than GMAX values): each ends a piece */
            const unsigned tm = __ballot_sync(0xffffffffu, is_team), gm = __ballot_sync(0xffffffffu, len > RS_SS_GMAX);
            /* a segment over 2048 values: seg_scan_marks has windows to search (CUDA-only skip, the same marks) */
            if ((gm & ~tm) && lane == 0) atomicOr(longs, 1u);
            if (lane == RS_SS_TEAM - 1) {
                s_wsum[w] = inc;
                s_tcnt[w] = __popc(gm);
            }
            __syncthreads();
            /* the staged lengths' prefix over the warps and their total; the same for the unstaged segments */
            unsigned before = 0;
            pos = inc - cl;
            total = 0;
#pragma unroll
            for (unsigned v = 0; v < RS_SS_TEAMS; v++) {
                const unsigned x = s_wsum[v], y = s_tcnt[v];
                pos += v < w ? x : 0u;
                total += x;
                before += v < w ? y : 0u;
                np += y; /* the batch's pieces: one more than its unstaged segments */
            }
            s_o[t] = o;
            s_pos[t] = pos;
            /* piece k >= 1 starts after the k-th unstaged segment (piece 0 at 0, o0); only T arrays move by pieces */
            if constexpr (std::is_same<SRC, const T *>::value || std::is_same<DST, T *>::value) {
                if (len > RS_SS_GMAX) {
                    const unsigned k = 1 + before + __popc(gm & ((1u << lane) - 1u));
                    if (k < RS_SS_PIECES) {
                        s_pa[k] = pos;
                        s_pg[k] = o + len;
                    }
                }
            }
            if (staged && total > HOP) { /* rounds (uniform); one round spans [0, total) */
                atomicMin(&s_a[pos / HOP], pos);
                atomicMax(&s_b[pos / HOP], pos + cl);
            }
            /* segments of GMAX + 1 .. 2048 values: listed for seg_scan_team (one atomic per warp) */
            if (tm) { /* uniform per warp */
                const unsigned lead = __ffs(tm) - 1, rank = __popc(tm & ((1u << lane) - 1u));
                unsigned long long at = 0;
                if (lane == lead) at = atomicAdd(team_n, (unsigned long long)__popc(tm));
                at = __shfl_sync(0xffffffffu, at, lead) + rank;
                if (is_team) team[at] = o << RS_SS_TEAM_LEN_BITS | (len - 1);
            }
            __syncthreads();
        }
        const unsigned rounds = packed ? 1u : (total + HOP - 1) / HOP;
        for (unsigned r = 0; r < rounds; r++) { /* uniform */
            const unsigned A = rounds > 1 ? s_a[r] : 0u, B = rounds > 1 ? s_b[r] : total;
            const rs_ss_padded<T> pad = {pool};
            rs_ss_move<true>(pad, in, A, B, total, np, s_pa, s_pg, o0, s_o, s_pos);
            const bool mine = staged && (rounds == 1 || pos / HOP == r);
            if (mine && len > RS_SS_SHORT) {
                const unsigned c = rs_ss_class((unsigned)len);
                const unsigned at = atomicAdd(&l_n[c], 1u);
                l_at[c][at] = (unsigned short)(pos - A);
                l_len[c][at] = (unsigned short)len;
            }
            __syncthreads(); /* the round's values and lists */
            if (mine && len <= RS_SS_SHORT) rs_ss_thread<T, Op>(pad, pos - A, (unsigned)len, init, exclusive);
            rs_ss_deal<RS_GROUP, T, Op>(pad, l_at, l_len, l_n, w, lane, init, exclusive);
            __syncthreads(); /* the round's results; every thread has read l_n */
            if (t < RS_SS_CLASSES) l_n[t] = 0;
            rs_ss_move<false>(pad, out, A, B, total, np, s_pa, s_pg, o0, s_o, s_pos);
            if (r + 1 < rounds) __syncthreads(); /* pool is refilled (uniform) */
        }
    }
}

/* seg_scan_short with two segments a thread, batches of RS_SS_PB = 512 (thread t's: segments j 256 + t of the batch, j
 * = 0, 1), for float32 read and written as it is, launched where the mean segment is short (rs_ss_pairs_fit; the
 * bench's 90 %-ones distribution averages 6 values a segment). A batch with no segment over RS_SS_GMAX values and at
 * most RS_SS_CAP values in all is staged and scanned as seg_scan_short's packed batches are (rs_ss_thread, rs_ss_deal:
 * the same operands in the same order, the same bits). Any other batch is deferred: its one or two halves are listed
 * (dlist[0 .. *dcount)) for seg_scan_short, launched next, which takes them as its batches of 256 (their segments of
 * over RS_SS_GMAX values to seg_scan_team and the chunk path, as always); this kernel keeps no rounds, pieces or team
 * list, and so its registers. What a batch pays whatever its segments (three barriers, the counter, the staging's
 * set-up, the loops) is paid once for 512 segments, and each memory round trip carries twice the bytes (the
 * reductions' seg_short_pairs, segmented.cu; the twenty-fourth session's Q8 did the same inside seg_scan_short, for
 * every distribution, and lost 4 % over power law: docs/PERFORMANCE.md, "Segmented scan: packed batches"). The next
 * batch's offsets come a batch early (rs_ss_pre_copy), as in seg_scan_short. A batch ends without a barrier of its
 * own: s_first, s_last and s_next are read before its second barrier, l_n before its third, and the pool is read
 * back before a thread reaches the next batch's first (a deferred batch adds one barrier for the same reason). */
#define RS_SS_PAIRS 2
#define RS_SS_PB (RS_SS_PAIRS * RS_GROUP)
static_assert(RS_SS_CAP == 4096 && RS_SS_GMAX + 1 == RS_CU_SEG_TEAM_MIN,
              "cu_launch.h's rs_cu_seg_scan_marks_words bounds the deferred batches for this pool and class");
/* seg_scan_short_pairs where the mean segment holds at most 7 values (n <= 7 S, windows of RS_SS_TILE counted
 * whole): a batch of 512 segments then averages at most 3584 values, so most fit the pool's RS_SS_CAP = 4096 (the
 * bench's power-law lengths average 44 values: there it is not launched, and seg_scan_short is as it was) */
__host__ __device__ __forceinline__ bool rs_ss_pairs_fit(rs_u64 windows, rs_u64 S)
{
    return windows * RS_SS_TILE <= (rs_u64)(RS_SS_CAP / RS_SS_PB - 1) * S;
}

template <typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(6))
    seg_scan_short_pairs(const T *in, T *out, const void *offsets, int kind, rs_u64 S, const unsigned *flags, T init,
                         int exclusive, const rs_u64 *runs, rs_u64 windows, unsigned long long *tickets,
                         unsigned long long *dcount, unsigned *dlist)
{
    __shared__ rs_u64 s_pre[RS_SS_PAIRS][RS_GROUP][2]; /* the next batch's offsets of this thread's segments */
    __shared__ T pool[RS_SS_PADDED(RS_SS_CAP)];
    /* the batch's segments of RS_SS_SHORT + 1 .. RS_SS_GMAX values by class (rs_ss_class), as positions in pool */
    __shared__ unsigned short l_at[RS_SS_CLASSES][RS_SS_PB], l_len[RS_SS_CLASSES][RS_SS_PB];
    __shared__ unsigned l_n[RS_SS_CLASSES];
    __shared__ rs_u64 s_next, s_first, s_last;
    const unsigned t = threadIdx.x, lane = t % RS_SS_TEAM, w = t / RS_SS_TEAM;
    if (flags[0]) return;
    if (runs) { /* scan by key's _async form: the choice rs_cu_seg_scan makes on the host, here on the run count */
        if (*runs < S) S = *runs;
        if (!rs_ss_pairs_fit(windows, S)) {
            if (blockIdx.x == 0 && t == 0) *dcount = RS_SS_ALL; /* seg_scan_short takes every batch */
            return;
        }
    }
    const rs_u64 batches = (S + RS_SS_PB - 1) / RS_SS_PB, halves = (S + RS_GROUP - 1) / RS_GROUP;
    rs_u64 next = 0;
    bool pre = false; /* block-uniform: s_pre holds this batch's offsets */
    for (rs_u64 b = blockIdx.x; b < batches; b = next) {
        rs_u64 o[RS_SS_PAIRS], len[RS_SS_PAIRS];
        bool over = false; /* a segment of the thread's holds more than RS_SS_GMAX values */
        if (pre) rs_copy_async_wait();
#pragma unroll
        for (unsigned j = 0; j < RS_SS_PAIRS; j++) {
            const rs_u64 s = b * RS_SS_PB + j * RS_GROUP + t;
            o[j] = 0;
            len[j] = 0;
            if (s < S) {
                if (pre) {
                    rs_ss_pre_read(s_pre[j][t], kind, &o[j], &len[j]);
                } else {
                    o[j] = rs_ss_off(offsets, kind, s);
                    len[j] = rs_ss_off(offsets, kind, s + 1) - o[j];
                }
            }
            if (j == 0 && t == 0) s_first = o[0]; /* s < S: b < batches */
            if (s < S && ((j == RS_SS_PAIRS - 1 && t == RS_GROUP - 1) || s + 1 == S)) s_last = o[j] + len[j];
            over = over || len[j] > RS_SS_GMAX;
        }
        if (t == 0) s_next = gridDim.x + atomicAdd(tickets, 1ull);
        if (t < RS_SS_CLASSES) l_n[t] = 0;
        const bool wide = __syncthreads_or(over) != 0;
        const rs_u64 o0 = s_first, span = s_last - o0;
        next = s_next;
        pre = next < batches;
        if (pre) {
#pragma unroll
            for (unsigned j = 0; j < RS_SS_PAIRS; j++) {
                const rs_u64 sn = next * RS_SS_PB + j * RS_GROUP + t;
                if (sn < S) rs_ss_pre_copy(s_pre[j][t], offsets, kind, sn);
            }
        }
        if (wide || span > RS_SS_CAP) { /* uniform: deferred to seg_scan_short */
            if (t == 0) {
                const unsigned h = 2 * b + 1 < halves ? 2u : 1u;
                const unsigned long long at = atomicAdd(dcount, (unsigned long long)h);
                dlist[at] = (unsigned)(2 * b);
                if (h == 2) dlist[at + 1] = (unsigned)(2 * b + 1);
            }
            __syncthreads(); /* s_first, s_last, s_next read */
            continue;
        }
        const rs_ss_padded<T> pad = {pool};
        rs_ss_run<true>(pad, in, o0, 0, (unsigned)span);
        unsigned pos[RS_SS_PAIRS], ln[RS_SS_PAIRS];
#pragma unroll
        for (unsigned j = 0; j < RS_SS_PAIRS; j++) {
            pos[j] = (unsigned)(o[j] - o0);
            ln[j] = (unsigned)len[j];
            if (ln[j] > RS_SS_SHORT) {
                const unsigned c = rs_ss_class(ln[j]);
                const unsigned at = atomicAdd(&l_n[c], 1u);
                l_at[c][at] = (unsigned short)pos[j];
                l_len[c][at] = (unsigned short)ln[j];
            }
        }
        __syncthreads(); /* the batch's values and lists */
#pragma unroll
        for (unsigned j = 0; j < RS_SS_PAIRS; j++)
            if (ln[j] > 0 && ln[j] <= RS_SS_SHORT) rs_ss_thread<T, Op>(pad, pos[j], ln[j], init, exclusive);
        rs_ss_deal<RS_SS_PB, T, Op>(pad, l_at, l_len, l_n, w, lane, init, exclusive);
        __syncthreads(); /* the batch's results */
        rs_ss_run<false>(pad, out, o0, 0, (unsigned)span);
    }
}

/* The segments of RS_SS_GMAX + 1 .. 2048 values that seg_scan_short listed (offset << 11 | len - 1), a warp each
 * (rs_ss_team), warp g of the grid taking entries g, g + warps, ... Before, the warps of the block whose batch held
 * them did, after its staged segments: a batch of 256 segments of 1000 values was 256 K values, and 1048 such batches
 * over 792 resident blocks left the last ones running on a third of the device (H100, 2^28 values).
 * A block is RS_SS_TW(T) warps (not RS_GROUP threads): each warp holds its whole segment, 8 KB of 4-byte values, and
 * 36 KB of static shared memory a block lets 6 blocks (24 warps) share an SM's 228 KB; the bound of 6 blocks keeps
 * the registers of every instance within that (ptxas gave the int32 sum 96 without it, 5 blocks). */
#define RS_SS_TW(T) (sizeof(T) <= 4 ? 4u : 2u)
template <typename SRC, typename DST, typename T, class Op>
__global__ void __launch_bounds__(RS_SS_TW(T) * RS_SS_TEAM, 6)
    seg_scan_team(SRC in, DST out, const unsigned *flags, const unsigned long long *team_n, const rs_u64 *team, T init,
                  int exclusive)
{
    constexpr unsigned TW = RS_SS_TW(T);
    __shared__ T seg[TW * RS_SS_TILE]; /* a segment of up to 2048 values per warp */
    __shared__ T aux[TW * RS_GROUP];
    const unsigned lane = threadIdx.x % RS_SS_TEAM, w = threadIdx.x / RS_SS_TEAM;
    if (flags[0]) return;
    const rs_u64 m = *team_n, warps = (rs_u64)gridDim.x * TW;
    for (rs_u64 e = (rs_u64)blockIdx.x * TW + w; e < m; e += warps) { /* uniform per warp */
        const rs_u64 v = team[e];
        rs_ss_team<T, Op>(in, out, seg + w * RS_SS_TILE, aux + w * RS_GROUP, lane, v >> RS_SS_TEAM_LEN_BITS,
                          (unsigned)(v & ((1u << RS_SS_TEAM_LEN_BITS) - 1)) + 1, init, exclusive);
    }
}

/* ---- the chunk path in one pass: seg_scan_marks and seg_scan_single of segmented_scan.cl ----
 * The long segments' chunks as the tiles of the flat single_pass's look-back (lookback.cuh), with the frame
 * {k0, places + k0 + 31, 32, the segment's start} (k0: the place of the segment's chunk 0): S[c] at slot k0 + c, T(g)
 * and A(g) at the slot after the chunk slots of chunk 32 g + 31's place. Warp 0 looks back (rs_sp_warp_lookback, as
 * the flat kernel; the twin: work-items 0..63 and work-item 0), thread 0 takes the slow path where something is
 * missing after `spins` polls. The slots and the ticket counter are zeroed by cudaMemsetAsync (the twin: a kernel,
 * for Oclgrind). CUDA has no multi-pass chunk path: its kernels needed no fallback for missing atomics. */
__global__ void __launch_bounds__(RS_GROUP)
    seg_scan_marks(const void *offsets, int kind, rs_u64 S, const unsigned *flags, rs_u64 *marks, rs_u64 windows,
                   const rs_u64 *runs, unsigned *live, const unsigned *longs)
{
    __shared__ unsigned l_last;
    if (flags[0] || !*longs) return; /* no segment over 2048 values (seg_scan_short): no chunk, live stays 0 */
    const rs_u64 wins = rs_ss_live(offsets, kind, runs, &S, windows);
    unsigned last = 0; /* 1 + the last of this thread's windows that holds a chunk */
    if (threadIdx.x == 0) l_last = 0;
    for (rs_u64 w = blockIdx.x * (rs_u64)RS_GROUP + threadIdx.x; w < wins; w += (rs_u64)gridDim.x * RS_GROUP) {
        rs_u64 seg[2], ch[2];
        const unsigned m = rs_ss_window(offsets, kind, S, w, seg, ch);
        marks[2 * w] = m > 0 ? seg[0] + 1 : 0;
        marks[2 * w + 1] = m > 1 ? seg[1] + 1 : 0;
        if (m) last = (unsigned)w + 1;
    }
    __syncthreads();
    if (last) atomicMax(&l_last, last);
    __syncthreads();
    if (threadIdx.x == 0 && l_last) atomicMax(live, l_last);
}

/* Two windows per ticket (RS_SS_PER, CUDA-only scheduling; the twin takes one), as scan_single_pass's two tiles per
 * ticket: the ticket's chunks (at most four: chunk h of window w0 + i at entry 2 i + h, in the order of their starts)
 * are taken two at a time, both loaded, both block-scanned and both S published before either prefix is known. Only
 * the ticket's first chunk can need a look-back: a later chunk c > 0 starts 2048 values after chunk c - 1 of its
 * segment, which starts in window w0 and so is the ticket's previous chunk; its prefix follows from that one's as
 * scan_single_pass's second tile's does: W' = W (+) S (S alone when the predecessor opened its group), or A(g) =
 * A(g - 1) (+) (W (+) S) when the predecessor closed group g. The same left folds the look-back computes: the same
 * bits. A chunk that closes a group which its segment continues past publishes A(g) (INC), and T(g) (AGG) first when
 * the ticket's look-back closes it.
 * 8 blocks per SM for a 4-byte T (32 registers, no spills). H100, 2^28 float32 values in one segment: 1.47 ms with
 * one window per ticket at 5 blocks per SM (48 registers), 0.98 with two windows at 8 blocks per SM, the flat scan
 * 0.92 (docs/PERFORMANCE.md, "Segmented scan: two windows per ticket"). An 8-byte T keeps 4 (5 made its
 * narrow-input instances spill). */
#define RS_SS_PER 2u
template <typename SRC, typename DST, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(sizeof(T) == 4 ? 8 : 4))
    seg_scan_single(SRC in, DST out, const void *offsets, int kind, rs_u64 S, const unsigned *flags,
                    rs_sp_word_t *lb, const rs_u64 *marks, T init, int exclusive, rs_u64 windows, rs_u64 places,
                    unsigned spins, int inplace, const rs_u64 *runs)
{
    __shared__ __align__(16) T s[2][RS_SS_TILE];
    __shared__ __align__(16) T aux[RS_AUX_COARSE];
    __shared__ __align__(16) T r[RS_GROUP];
    __shared__ unsigned wst[RS_SP_GROUP]; /* the tile half of the window, for the slow path */
    __shared__ T wv[RS_SP_GROUP];
    __shared__ rs_u64 l_w, l_cmd;
    __shared__ rs_u64 l_o[4], l_len[4], l_c[4];
    __shared__ int l_ok;
    __shared__ T l_p[2];
    const unsigned t = threadIdx.x;
    if (flags[0]) return;
    rs_u64 wins = rs_ss_live(offsets, kind, runs, &S, windows);
    const unsigned live = *reinterpret_cast<const unsigned *>(lb + 1); /* seg_scan_marks' bound */
    if (live < wins) wins = live;
    if (!wins) return; /* no long segment: nothing to do (uniform) */
    rs_sp_word_t *slots = lb + RS_SP_SLOT_BASE;
    T pa = init, pw = Op::identity(), pown = Op::identity(); /* thread 0: the previous chunk's A(g - 1), W and S */
    rs_u64 pc = 0;
    for (;;) {
        if (t == 0) l_w = atomicAdd(lb, 1ull);
        __syncthreads();
        const rs_u64 w0 = l_w * RS_SS_PER;
        if (w0 >= wins) break;
        /* entry t: chunk t % 2 of window w0 + t / 2 (its segment's start and length, its index) */
        if (t < 2 * RS_SS_PER) {
            const rs_u64 w = w0 + t / 2, e = w < wins ? marks[2 * w + t % 2] : 0;
            rs_u64 o = 0, len = 0, c = 0;
            if (e) {
                const rs_u64 p0 = w * RS_SS_TILE;
                o = rs_ss_off(offsets, kind, e - 1);
                len = rs_ss_off(offsets, kind, e) - o;
                c = o >= p0 ? 0 : (p0 - o + RS_SS_TILE - 1) / RS_SS_TILE;
            }
            l_o[t] = o;
            l_len[t] = len;
            l_c[t] = c;
        }
        __syncthreads();
        unsigned mask = 0; /* the present entries (uniform) */
        for (unsigned i = 0; i < 2 * RS_SS_PER; i++)
            if (l_len[i]) mask |= 1u << i;
        bool first = true;
        while (mask) {
            const unsigned i0 = __ffs(mask) - 1;
            mask &= mask - 1;
            const bool two = mask != 0;
            const unsigned i1 = two ? __ffs(mask) - 1 : i0;
            if (two) mask &= mask - 1;
            const rs_u64 o0 = l_o[i0], len0 = l_len[i0], c0 = l_c[i0], o1 = l_o[i1], len1 = l_len[i1], c1 = l_c[i1];
            const rs_u64 n0 = (len0 + RS_SS_TILE - 1) / RS_SS_TILE, b0 = o0 + c0 * RS_SS_TILE;
            const rs_u64 n1 = (len1 + RS_SS_TILE - 1) / RS_SS_TILE, b1 = o1 + c1 * RS_SS_TILE;
            const rs_u64 e0 = c0 + 1 < n0 ? b0 + RS_SS_TILE : o0 + len0, e1 = c1 + 1 < n1 ? b1 + RS_SS_TILE : o1 + len1;
            const bool last0 = c0 + 1 == n0, last1 = c1 + 1 == n1;
            const rs_u64 k0 = w0 + i0 / 2 - c0, g0 = c0 / RS_SP_GROUP; /* chunk 0's place, the group */
            const unsigned p0 = (unsigned)(c0 % RS_SP_GROUP);
            rs_scan_load<T, Op>(s[0], in, b0, e0, RS_SS_TILE);
            if (two) rs_scan_load<T, Op>(s[1], in, b1, e1, RS_SS_TILE);
            rs_block_scan_coarse<Op, true>(s[0], aux); /* begins and ends with a barrier */
            if (two) rs_block_scan_coarse<Op, true>(s[1], aux);
            const T own0 = s[0][RS_SS_TILE - 1], own1 = two ? s[1][RS_SS_TILE - 1] : Op::identity();
            if (t == 0) {
                if (!last0) rs_sp_put<T>(slots, w0 + i0 / 2, RS_SP_AGG, own0);
                if (two && !last1) rs_sp_put<T>(slots, w0 + i1 / 2, RS_SP_AGG, own1);
            }
            T wf = Op::identity(), a = init; /* thread 0's, from the look-back */
            const bool look = first && c0 > 0; /* uniform */
            if (look) {
                const bool succ = two && c1 > 0; /* chunk 1 is chunk 0's successor */
                const rs_sp_frame fr = {k0, places + k0 + RS_SP_GROUP - 1, RS_SP_GROUP, o0};
                if (t < 32) {
                    const bool closes = (p0 == RS_SP_GROUP - 1 && !last0) ||
                                        (succ && p0 == RS_SP_GROUP - 2 && !last1);
                    const auto total = [&](T wj) {
                        return succ && p0 == RS_SP_GROUP - 2 ? Op::combine(Op::combine(wj, own0), own1)
                                                             : Op::combine(wj, own0);
                    };
                    const bool ok = rs_sp_warp_lookback<T, Op, 1>(slots, fr, g0, p0, closes, total, spins, init, wst,
                                                                  wv, &wf, &a);
                    if (t == 0) l_ok = ok;
                }
                __syncthreads();
                if (!l_ok)
                    rs_sp_slow_path<SRC, T, Op>(in, o0 + len0, RS_SS_TILE, slots, fr, g0, p0, own0, wst, wv, spins,
                                                inplace, init, r, &l_cmd, &wf, &a);
            }
            if (t == 0) {
                for (unsigned k = 0; k < (two ? 2u : 1u); k++) {
                    const rs_u64 c = k ? c1 : c0, o = k ? o1 : o0;
                    const bool last = k ? last1 : last0;
                    const T own = k ? own1 : own0;
                    if (c == 0) {
                        a = init;
                        wf = Op::identity();
                    } else if (k || !first) { /* from the previous chunk, c - 1 of the same segment */
                        const unsigned pp = (unsigned)(pc % RS_SP_GROUP);
                        if (pp == RS_SP_GROUP - 1) {
                            a = Op::combine(pa, Op::combine(pw, pown));
                            wf = Op::identity();
                        } else {
                            a = pa;
                            wf = pp ? Op::combine(pw, pown) : pown;
                        }
                    }
                    const unsigned p = (unsigned)(c % RS_SP_GROUP);
                    l_p[k] = p ? Op::combine(a, wf) : a;
                    if (p == RS_SP_GROUP - 1 && !last) {
                        const rs_u64 kk = w0 + (k ? i1 : i0) / 2 - c;
                        const rs_sp_frame fr = {kk, places + kk + RS_SP_GROUP - 1, RS_SP_GROUP, o};
                        rs_sp_put<T>(slots, fr.gslot(c / RS_SP_GROUP), RS_SP_INC, Op::combine(a, Op::combine(wf, own)));
                    }
                    pa = a;
                    pw = wf;
                    pown = own;
                    pc = c;
                }
            }
            first = false;
            __syncthreads();
            if (inplace) __threadfence(); /* S published before the input is overwritten */
            rs_scan_store<T, Op>(out, s[0], b0, e0, RS_SS_TILE, exclusive, l_p[0], 1);
            if (two) rs_scan_store<T, Op>(out, s[1], b1, e1, RS_SS_TILE, exclusive, l_p[1], 1);
            __syncthreads(); /* s, l_p are refilled */
        }
    }
}

extern "C" cudaError_t rs_cu_seg_scan(int in_dtype, int out_dtype, int op, int exclusive, const void *init,
                                      const void *in, void *out, int kind, const void *offsets,
                                      unsigned long long num_segments, const unsigned *flags, void *lb, void *marks,
                                      unsigned long long windows, unsigned long long places, unsigned spins,
                                      const void *runs, unsigned grid_segments, unsigned grid_windows,
                                      unsigned grid_single, cudaStream_t stream)
{
    return rs_dispatch_scan(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        typedef typename decltype(xt)::type X;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        typedef rs_scan_src<X> Sr;
        typedef rs_scan_dst<X, T> D;
        const rs_u64 *R = static_cast<const rs_u64 *>(runs);
        T init_v;
        memcpy(&init_v, init, sizeof init_v);
        /* the look-back words (word 4: any segment over 2048 values, 3: seg_scan_team's entries, 2: seg_scan_short's
         * batch counter, 1: seg_scan_marks' bound, 0: the tickets); the team list after the marks */
        rs_sp_word_t *words = static_cast<rs_sp_word_t *>(lb);
        rs_u64 *team = static_cast<rs_u64 *>(marks) + 2 * places;
        cudaError_t err = cudaMemsetAsync(lb, 0, (size_t)(RS_SP_SLOT_BASE + 4 * places) * sizeof(rs_sp_word_t), stream);
        if (err != cudaSuccess) return err;
        /* float32 read and written as it is and the mean segment short (scan by key's _async form: the kernel
         * looks at the run count): seg_scan_short_pairs (word 5: its batch counter, 6: its deferred batches' count,
         * their list after the team list), then seg_scan_short over the batches it deferred */
        unsigned long long *dcount = nullptr;
        unsigned *dlist = nullptr;
        if constexpr (std::is_same<X, float>::value && std::is_same<T, float>::value) {
            if (R || rs_ss_pairs_fit(windows, num_segments)) { /* R: the kernel chooses on the run count */
                dcount = reinterpret_cast<unsigned long long *>(words + 6);
                dlist = reinterpret_cast<unsigned *>(team + rs_cu_seg_scan_team_words(places));
                const auto pairs_kernel = seg_scan_short_pairs<T, Op>;
                pairs_kernel<<<rs_resident_grid(pairs_kernel, grid_segments), RS_GROUP, 0, stream>>>(
                    static_cast<const T *>(in), static_cast<T *>(out), offsets, kind, num_segments, flags, init_v,
                    exclusive, R, windows, reinterpret_cast<unsigned long long *>(words + 5), dcount, dlist);
                if ((err = rs_launched()) != cudaSuccess) return err;
            }
        }
        const auto short_kernel = seg_scan_short<typename Sr::type, typename D::type, T, Op>;
        short_kernel<<<rs_resident_grid(short_kernel, grid_segments), RS_GROUP, 0, stream>>>(
            Sr::make(in, in_dtype), D::make(out, out_dtype), offsets, kind, num_segments, flags, init_v, exclusive, R,
            reinterpret_cast<unsigned long long *>(words + 2), reinterpret_cast<unsigned long long *>(words + 3), team,
            reinterpret_cast<unsigned *>(words + 4), dcount, dlist);
        if ((err = rs_launched()) != cudaSuccess) return err;
        const auto team_kernel = seg_scan_team<typename Sr::type, typename D::type, T, Op>;
        /* a warp per listed segment, at most places * 2048 / 257 of them: the grid does not follow the segment count */
        constexpr unsigned TW = RS_SS_TW(T);
        const rs_u64 most = places * RS_SS_TILE / (RS_SS_GMAX + 1) / TW + 1;
        team_kernel<<<rs_resident_grid(team_kernel, most < 0x7fffffffu ? (unsigned)most : 0x7fffffffu, 0,
                                       TW * RS_SS_TEAM),
                      TW * RS_SS_TEAM, 0, stream>>>(
            Sr::make(in, in_dtype), D::make(out, out_dtype), flags, reinterpret_cast<unsigned long long *>(words + 3),
            team, init_v, exclusive);
        if ((err = rs_launched()) != cudaSuccess) return err;
        seg_scan_marks<<<grid_windows, RS_GROUP, 0, stream>>>(offsets, kind, num_segments, flags,
                                                              static_cast<rs_u64 *>(marks), windows, R,
                                                              reinterpret_cast<unsigned *>(words + 1),
                                                              reinterpret_cast<const unsigned *>(words + 4));
        if ((err = rs_launched()) != cudaSuccess) return err;
        const auto single_kernel = seg_scan_single<typename Sr::type, typename D::type, T, Op>;
        single_kernel<<<rs_resident_grid(single_kernel, grid_single), RS_GROUP, 0, stream>>>(
            Sr::make(in, in_dtype), D::make(out, out_dtype), offsets, kind, num_segments, flags,
            static_cast<rs_sp_word_t *>(lb), static_cast<const rs_u64 *>(marks), init_v, exclusive, windows, places,
            spins, in == out, R);
        return rs_launched();
    });
}

/* ---------------------------------------------------------------- scan by key: byk_* of segmented_scan.cl */

/* rs_key, rs_key_put, rs_byk_heads and rs_byk_vec: keys.cuh */

/* The block's exclusive scan of one value per thread and its total (the same ranks as segmented_scan.cl's
 * rs_byk_scan_*): a warp scan by shuffles, one barrier, then every thread adds the totals of the warps before its
 * own. `w` (RS_GROUP / 32 values) must not be rewritten until every thread has returned (byk_single calls it once).
 * Every thread of the block calls it. */
template <typename U> __device__ __forceinline__ U rs_byk_scan(U x, U *w, U *total)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    U inc = x;
    for (unsigned d = 1; d < 32; d <<= 1) {
        const U y = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc += y;
    }
    if (lane == 31) w[warp] = inc;
    __syncthreads();
    U ex = inc - x, tot = 0;
    for (unsigned j = 0; j < RS_GROUP / 32; j++) {
        const U v = w[j];
        ex += j < warp ? v : 0;
        tot += v;
    }
    *total = tot;
    return ex;
}

/* The offsets in one pass: byk_single of segmented_scan.cl, where the scheme and the slot format are described (CUDA
 * has no three-kernel path: its atomics are 64-bit everywhere). A block per ticket of RS_BYK_TICKET tiles, block b
 * taking ticket b (the twin takes them in order from the counter words[0]: the look-back's bounded polls and its
 * recount make any order safe, and the counter's atomic and a barrier were on every block's way to its first load;
 * the float32 scan by key went 1-2 % faster on the H200); ticket b's slot words[1 + b]: status in the top 2 bits
 * (AGG: the ticket's head count, INC: the heads up to and including it). Counts are integers: where a prefix comes
 * from changes no offset. */
#define RS_BYK_TICKET 4 /* tiles of 2048 keys a ticket (as segmented_scan.cl) */
#define RS_BYK_MIN_BLOCKS 6 /* 40 registers (nvcc 13.0, sm_90); 8 bytes spilled since the unique keys' stores */
#define RS_BYK_AGG 1ull
#define RS_BYK_INC 2ull
#define RS_BYK_COUNT(w) ((w) & ((1ull << 62) - 1))

/* Lane l's slot of the look-back window: ticket i = j - l (before ticket 0: INC 0), up to `spins` reads while empty. */
__device__ __forceinline__ rs_u64 rs_byk_poll(rs_sp_word_t *words, long long i, unsigned spins)
{
    if (i < 0) return RS_BYK_INC << 62;
    rs_u64 w = 0;
    for (unsigned k = 0; k < spins && !(w >> 62); k++) w = rs_sp_load(words + 1 + i);
    return w;
}

__device__ __forceinline__ rs_u64 rs_byk_warp_sum(rs_u64 x)
{
    for (unsigned d = 16; d >= 1; d >>= 1) x += __shfl_xor_sync(0xffffffffu, x, d);
    return x;
}

/* Warp 0: the heads of ticket b, recounted from the keys (the look-back's slow path: b's block has not published). */
__device__ __forceinline__ rs_u64 rs_byk_recount(const void *keys, int kkind, rs_u64 n, rs_u64 b, bool vec)
{
    unsigned c = 0;
    for (unsigned r = 0; r < RS_BYK_TICKET * (RS_GROUP / 32); r++)
        c += __popc(rs_byk_heads(keys, kkind, n,
                                 b * (RS_BYK_TICKET * RS_SS_TILE) + (r * 32 + threadIdx.x) * RS_COARSE_ITEMS, vec));
    return rs_byk_warp_sum(c);
}

/* Warp 0: the heads before ticket `ticket` (> 0), all lanes alike (rs_byk_lookback of segmented_scan.cl, by ballots
 * instead of a window in local memory). Each step reads the 32 slots before j; the AGGs up to the first INC or empty
 * slot are added; an INC is added and ends the look-back; an empty slot is recounted and the look-back goes on below
 * it; 32 AGGs move the window down by 32. Nothing waits unboundedly. */
__device__ __forceinline__ rs_u64 rs_byk_lookback(const void *keys, int kkind, rs_u64 n, rs_sp_word_t *words,
                                                   rs_u64 ticket, unsigned spins, bool vec)
{
    const unsigned l = threadIdx.x, all = 0xffffffffu;
    rs_u64 ex = 0;
    long long j = (long long)ticket - 1; /* the newest ticket not yet counted */
    while (j >= 0) {                     /* uniform */
        const rs_u64 w = rs_byk_poll(words, j - (long long)l, spins);
        const unsigned s = (unsigned)(w >> 62);
        const unsigned inc = __ballot_sync(all, s == RS_BYK_INC), empty = __ballot_sync(all, s == 0);
        const unsigned stop = inc | empty, q = stop ? (unsigned)__ffs((int)stop) - 1 : 32u;
        /* lanes before q hold AGGs; lane q an INC (added) or an empty slot (recounted) */
        ex += rs_byk_warp_sum(l < q || (l == q && s == RS_BYK_INC) ? RS_BYK_COUNT(w) : 0);
        if (q < 32 && ((inc >> q) & 1u)) break;
        if (q < 32) ex += rs_byk_recount(keys, kkind, n, (rs_u64)(j - (long long)q), vec);
        j -= (long long)(q < 32 ? q + 1 : 32);
    }
    return ex;
}

/* The head masks of a ticket's RS_BYK_TICKET tiles for this thread (positions first + j * 2048 .. + 7): where the
 * whole ticket is below n and the keys aligned, branch-free per key width, so the tiles' loads issue together. */
__device__ __forceinline__ void rs_byk_ticket_heads(const void *keys, int kkind, rs_u64 n, rs_u64 first, bool vec,
                                                    unsigned m[RS_BYK_TICKET])
{
    const bool in = vec && first - threadIdx.x * RS_COARSE_ITEMS + RS_BYK_TICKET * RS_SS_TILE <= n; /* uniform */
#define RS_BYK_TILES_IN(W)                                                                                             \
    for (unsigned j = 0; j < RS_BYK_TICKET; j++) m[j] = rs_byk_heads_in<W>(keys, first + j * RS_SS_TILE)
    if (!in)
        for (unsigned j = 0; j < RS_BYK_TICKET; j++) m[j] = rs_byk_heads(keys, kkind, n, first + j * RS_SS_TILE, vec);
    else if (kkind == RS_INT8 || kkind == RS_UINT8) RS_BYK_TILES_IN(1);
    else if (kkind == RS_INT16 || kkind == RS_UINT16) RS_BYK_TILES_IN(2);
    else if (kkind == RS_INT32 || kkind == RS_UINT32) RS_BYK_TILES_IN(4);
    else RS_BYK_TILES_IN(8);
#undef RS_BYK_TILES_IN
}

/* The runs' offset r = v, 32 bits wide while n < 2^32 (rs_cu_byk_offsets_kind): at 2^28 keys in runs of mostly one
 * element, 45 M offsets are 180 MB written here and read again by the segmented scan or reduction, not 360. */
#define RS_BYK_OFF32(n) ((n) < (1ull << 32))
__device__ __forceinline__ void rs_byk_off_put(void *offsets, rs_u64 n, rs_u64 r, rs_u64 v)
{
    if (RS_BYK_OFF32(n)) static_cast<unsigned *>(offsets)[r] = (unsigned)v;
    else static_cast<rs_u64 *>(offsets)[r] = v;
}

/* A ticket's heads are ranked by one block scan of the tiles' head counts packed as four 16-bit fields, staged in
 * shared memory (their places in the ticket, by rank) and stored with coalesced writes: each thread storing its own
 * at its rank scattered every store instruction of a warp over up to 32 sectors (H100, 2^28 keys of which 90 % are
 * runs of one: 0.68 ms for the old byk_scatter, against 0.37 for its byk_count, which read the same keys). The
 * OpenCL twin stores each offset from its work-item.
 * Tickets of 4 tiles at 6 blocks per SM: on the H100 at 2^28 int32 keys the offsets took about 0.40 ms of reduce by
 * key (the keys' read at the copy's speed), against 0.81 ms for a block per tile (docs/PERFORMANCE.md, "Scan / reduce
 * by key: tickets of four tiles"). */
__global__ void __launch_bounds__(RS_GROUP, RS_MIN_BLOCKS(RS_BYK_MIN_BLOCKS))
    byk_single(const void *keys, int kkind, rs_u64 n, rs_u64 nt, rs_sp_word_t *words, void *offsets, rs_u64 *runs,
               void *ukeys, unsigned spins)
{
    __shared__ rs_u64 w[RS_GROUP / 32];
    __shared__ unsigned short stage[RS_BYK_TICKET * RS_SS_TILE];
    __shared__ rs_u64 s_base;
    static_assert(RS_BYK_TICKET <= 4 && RS_BYK_TICKET * RS_SS_TILE <= 65536,
                  "four 16-bit tile counts a scan; a place in the ticket fits 16 bits");
    const rs_u64 ticket = blockIdx.x;
    const bool vec = rs_byk_vec(keys);
    const rs_u64 first = ticket * (RS_BYK_TICKET * RS_SS_TILE) + threadIdx.x * RS_COARSE_ITEMS;
    unsigned m[RS_BYK_TICKET];
    rs_byk_ticket_heads(keys, kkind, n, first, vec, m);
    rs_u64 packed = 0, tots;
    for (unsigned j = 0; j < RS_BYK_TICKET; j++) packed |= (rs_u64)__popc(m[j]) << (16 * j);
    const rs_u64 exs = rs_byk_scan<rs_u64>(packed, w, &tots);
    unsigned tot = 0; /* the heads of the tiles before j, then of the ticket */
    for (unsigned j = 0; j < RS_BYK_TICKET; j++) {
        unsigned r = tot + (unsigned)((exs >> (16 * j)) & 0xffffu);
        for (unsigned k = 0; k < RS_COARSE_ITEMS; k++)
            if (m[j] & (1u << k)) stage[r++] = (unsigned short)(j * RS_SS_TILE + threadIdx.x * RS_COARSE_ITEMS + k);
        tot += (unsigned)((tots >> (16 * j)) & 0xffffu);
    }
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0) rs_sp_store(words + 1 + ticket, ((ticket ? RS_BYK_AGG : RS_BYK_INC) << 62) | tot, false);
        const rs_u64 ex = ticket ? rs_byk_lookback(keys, kkind, n, words, ticket, spins, vec) : 0;
        if (threadIdx.x == 0) {
            if (ticket) rs_sp_store(words + 1 + ticket, (RS_BYK_INC << 62) | (ex + tot), false);
            if (ticket == nt - 1) {
                *runs = ex + tot;
                rs_byk_off_put(offsets, n, ex + tot, n);
            }
            s_base = ex;
        }
    }
    __syncthreads(); /* stage and s_base */
    const rs_u64 base = s_base, at = ticket * (RS_BYK_TICKET * RS_SS_TILE);
    for (unsigned i = threadIdx.x; i < tot; i += RS_GROUP) {
        const rs_u64 p = at + stage[i];
        rs_byk_off_put(offsets, n, base + i, p);
        if (ukeys) rs_key_put(ukeys, kkind, base + i, rs_key(keys, kkind, p)); /* a line this block just read */
    }
}

/* words: nt + 1 (word 0: the twin's ticket counter, unused here; a slot per ticket of RS_BYK_TICKET tiles; the buffer
 * holds ceil(n / 2048) + 1), zeroed here; a block per ticket. */
extern "C" cudaError_t rs_cu_byk_offsets(int kkind, const void *keys, unsigned long long n, void *offsets,
                                         void *words, void *runs, void *unique_keys, unsigned spins,
                                         cudaStream_t stream)
{
    const rs_u64 nt = (n + RS_BYK_TICKET * RS_SS_TILE - 1) / (RS_BYK_TICKET * RS_SS_TILE);
    cudaError_t err = cudaMemsetAsync(words, 0, (size_t)(nt + 1) * sizeof(rs_u64), stream);
    if (err != cudaSuccess) return err;
    byk_single<<<(unsigned)nt, RS_GROUP, 0, stream>>>(keys, kkind, n, nt, (rs_sp_word_t *)words, offsets,
                                                       (rs_u64 *)runs, unique_keys, spins);
    return rs_launched();
}

extern "C" int rs_cu_byk_offsets_kind(unsigned long long n) { return RS_BYK_OFF32(n) ? RS_UINT32 : RS_UINT64; }

