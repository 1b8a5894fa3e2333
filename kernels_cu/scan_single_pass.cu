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

#include <cuda/atomic>

#include "common.cuh"
#include "cu_launch.h"
#include "scan_brent_kung.cuh"
#include "scan_coarsened.cuh"
#include "scan_io.cuh"
#include "scan_kogge_stone.cuh"
#include "scan_kogge_stone_db.cuh"

#define RS_SP_SLOT_BASE 16
#define RS_SP_GROUP 32u  /* tiles per group = the width of a look-back window */
/* Windows of 32 group slots the look-back searches for an INC: 4 (128 groups back) for the 256-value sections,
 * whose tiles in flight span more than 32 groups (at 2^28 with one window, kogge_stone x single_pass took the slow
 * path nearly every tile: 0.06 x CUB); 1 for the coarsened block, where the search costs registers (1-6 % of its
 * speed, measured) and one window is enough. The OpenCL twin has the same rule. */
template <class B> struct rs_sp_windows {
    static const unsigned value = B::SECTION < 2048 ? 4u : 1u;
};
#define RS_SP_AGG 1u     /* slot status: tile aggregate S / group total T */
#define RS_SP_INC 2u     /* slot status: group inclusive prefix A */
#define RS_SP_ABSENT 3u  /* window only: a group before -1 (not part of any prefix) */
#define RS_SP_DONE (~0ull)

typedef unsigned long long rs_sp_word_t;

/* The bits of a value of T (as_uint / as_ulong in the OpenCL twin), and back. */
__device__ __forceinline__ unsigned long long rs_sp_bits(int v) { return (unsigned)v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(unsigned v) { return v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long rs_sp_bits(long long v) { return (unsigned long long)v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(unsigned long long v) { return v; }
__device__ __forceinline__ unsigned long long rs_sp_bits(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, int *v) { *v = (int)(unsigned)b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, unsigned *v) { *v = (unsigned)b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, float *v) { *v = __uint_as_float((unsigned)b); }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, long long *v) { *v = (long long)b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, unsigned long long *v) { *v = b; }
__device__ __forceinline__ void rs_sp_from_bits(unsigned long long b, double *v) { *v = __longlong_as_double((long long)b); }


/* Slot words are read and written with device-scope relaxed atomics: the status and the value share a word. */
__device__ __forceinline__ rs_sp_word_t rs_sp_load(rs_sp_word_t *p)
{
    return cuda::atomic_ref<rs_sp_word_t, cuda::thread_scope_device>(*p).load(cuda::memory_order_relaxed);
}

__device__ __forceinline__ void rs_sp_store(rs_sp_word_t *p, rs_sp_word_t w, bool if_empty)
{
    cuda::atomic_ref<rs_sp_word_t, cuda::thread_scope_device> a(*p);
    if (if_empty) {
        rs_sp_word_t zero = 0;
        a.compare_exchange_strong(zero, w, cuda::memory_order_relaxed);
    } else {
        a.exchange(w, cuda::memory_order_relaxed);
    }
}

/* Status of slot x (0: not published) and, when published, its value. */
template <typename T> __device__ __forceinline__ unsigned rs_sp_read(rs_sp_word_t *slots, rs_u64 x, T *v)
{
    if (sizeof(T) == 8) {
        const rs_sp_word_t lo = rs_sp_load(slots + 2 * x), hi = rs_sp_load(slots + 2 * x + 1);
        const unsigned s = (unsigned)(lo >> 32);
        if (s != (unsigned)(hi >> 32)) return 0; /* halves of two publications: read again later */
        if (s) rs_sp_from_bits((hi << 32) | (lo & 0xffffffffull), v);
        return s;
    }
    const rs_sp_word_t w = rs_sp_load(slots + x);
    const unsigned s = (unsigned)(w >> 32);
    if (s) rs_sp_from_bits(w & 0xffffffffull, v);
    return s;
}

/* Up to `spins` reads of slot x; its status (0: still not published). */
template <typename T> __device__ __forceinline__ unsigned rs_sp_poll(rs_sp_word_t *slots, rs_u64 x, T *v, unsigned spins)
{
    unsigned s = 0;
    for (unsigned k = 0; k < spins && !s; ++k) s = rs_sp_read<T>(slots, x, v);
    return s;
}

/* Publish v with a status. AGG only fills an empty slot (a group's total never replaces its inclusive prefix;
 * every writer of an AGG slot writes the same bits); INC replaces. */
template <typename T> __device__ __forceinline__ void rs_sp_put(rs_sp_word_t *slots, rs_u64 x, unsigned status, T v)
{
    const rs_sp_word_t b = rs_sp_bits(v), tag = (rs_sp_word_t)status << 32;
    const bool if_empty = status == RS_SP_AGG;
    if (sizeof(T) == 8) {
        rs_sp_store(slots + 2 * x, tag | (b & 0xffffffffull), if_empty);
        rs_sp_store(slots + 2 * x + 1, tag | (b >> 32), if_empty);
    } else {
        rs_sp_store(slots + x, tag | b, if_empty);
    }
}

/* Status and value of group slot g - 32 (k + 1) + l for lane l of window k (window 0: the 32 groups just before
 * g; group -1 reads as init with INC, older ones ABSENT), `spins` polls. */
template <typename T>
__device__ __forceinline__ unsigned rs_sp_group_poll(rs_sp_word_t *slots, rs_u64 tiles, rs_u64 g, unsigned k,
                                                     unsigned l, T init, unsigned spins, T *v)
{
    const long long gi = (long long)g - (long long)(RS_SP_GROUP * (k + 1)) + l;
    *v = init;
    return gi >= 0 ? rs_sp_poll<T>(slots, tiles + (rs_u64)gi, v, spins) : gi == -1 ? RS_SP_INC : RS_SP_ABSENT;
}

/* Warp 0, when window 0 (the 32 group slots before g) holds totals only, no INC: the tiles in flight span more
 * than 32 groups, which happens when tiles are short (256 values) or at the start of a large grid. Searches
 * windows 1 .. WINDOWS - 1 (window k: group g - 32(k+1) + lane) for the newest one with an INC and, if
 * every slot after that INC is published, folds A(g - 33) = the INC (+) the totals after it, left to right, into
 * *a (all lanes). The fold reads the slots again: one that has become INC since (statuses only go 0 -> AGG ->
 * INC) restarts the fold from its value, which gives the same bits, A(m) being A(m-1) (+) T(m). */
template <typename T, class Op, unsigned WINDOWS>
__device__ __forceinline__ bool rs_sp_older_windows(rs_sp_word_t *slots, rs_u64 tiles, rs_u64 g, unsigned spins, T init,
                                                 T *a)
{
    const unsigned l = threadIdx.x, all = 0xffffffffu;
    unsigned found = 0, top = 0;
    for (unsigned k = 1; k < WINDOWS && !found; ++k) { /* uniform */
        T v;
        const unsigned gs = rs_sp_group_poll<T>(slots, tiles, g, k, l, init, spins, &v);
        const unsigned inc = __ballot_sync(all, gs == RS_SP_INC);
        const unsigned ready = __ballot_sync(all, gs == RS_SP_INC || gs == RS_SP_AGG);
        if (inc) {
            found = k;
            top = 31u - (unsigned)__clz((int)inc);
            if ((ready & (all << top)) != (all << top)) return false;
        } else if (ready != all) {
            return false;
        }
    }
    if (!found) return false;
    T acc = init;
    for (unsigned k = found; k >= 1; --k) {
        T v;
        const unsigned gs = rs_sp_group_poll<T>(slots, tiles, g, k, l, init, spins, &v);
        const bool need = k != found || l >= top;
        if (__ballot_sync(all, need && gs != RS_SP_INC && gs != RS_SP_AGG)) return false;
        const unsigned inc = __ballot_sync(all, gs == RS_SP_INC);
        for (unsigned q = k == found ? top : 0u; q < RS_SP_GROUP; ++q) {
            const T x = __shfl_sync(all, v, q);
            acc = (inc >> q) & 1u ? x : Op::combine(acc, x);
        }
    }
    *a = acc;
    return true;
}

/* Warp 0: the look-back's common case, in registers (the OpenCL twin does the same folds through local memory:
 * same operands, same order, same bits). Lane l polls tile slot 32g + l (l < p) and then group slot g - 32 + l
 * (group -1 reads as init with INC, older ones ABSENT), `spins` polls each. W = S[32g] (+) ... (+) S[j-1] and
 * A(g-1) = the nearest INC (+) the totals after it are folded left to right from shuffled values, by every lane
 * alike; a window of totals only continues in older windows (rs_sp_older_windows). A ticket that holds the last
 * tile of a group (`closes`) publishes T(g) = total(W), W folded on with its tiles' aggregates left to right,
 * before it reads the group slots (the next group waits for it). Returns true (all
 * lanes) with *w and *a; false if something is missing, and then the tile half of the window is in wst / wv for
 * the slow path. */
template <typename T, class Op, unsigned WINDOWS, class Close>
__device__ __forceinline__ bool rs_sp_warp_lookback(rs_sp_word_t *slots, rs_u64 tiles, rs_u64 g, unsigned p,
                                                    bool closes, Close total, unsigned spins, T init, unsigned *wst,
                                                    T *wv, T *w, T *a)
{
    const unsigned l = threadIdx.x, all = 0xffffffffu;
    T tv = init;
    const unsigned ts = l < p ? rs_sp_poll<T>(slots, g * RS_SP_GROUP + l, &tv, spins) : RS_SP_AGG;
    bool ok = __ballot_sync(all, ts != 0) == all;
    T acc = Op::identity();
    if (ok) {
#pragma unroll
        for (unsigned q = 0; q < RS_SP_GROUP; ++q) {
            const T x = __shfl_sync(all, tv, q);
            if (q < p) acc = q ? Op::combine(acc, x) : x;
        }
        if (closes && l == 0) rs_sp_put<T>(slots, tiles + g, RS_SP_AGG, total(acc));
        *w = acc;
        T gv;
        unsigned gs = rs_sp_group_poll<T>(slots, tiles, g, 0, l, init, spins, &gv);
        unsigned inc = __ballot_sync(all, gs == RS_SP_INC);
        unsigned ready = __ballot_sync(all, gs == RS_SP_INC || gs == RS_SP_AGG);
        T acc_a = init;
        bool older = false;
        if (!inc && ready == all) {
            if (WINDOWS > 1) older = rs_sp_older_windows<T, Op, WINDOWS>(slots, tiles, g, spins, init, &acc_a);
            /* Totals only, no A(m) within reach: the chain of inclusive prefixes lags the tiles in flight. Wait
             * for it to reach window 0 (re-read, up to `spins` times) rather than take the item-by-item slow
             * path, which kept the chain behind: with two tiles per ticket, 1056 blocks span 66 groups, and int32
             * max at 2^28 ran at 1.67 ms instead of 0.87 in about half the runs. */
            for (unsigned r = 0; !older && !inc && ready == all && r < spins; ++r) {
                gs = rs_sp_group_poll<T>(slots, tiles, g, 0, l, init, 1, &gv);
                inc = __ballot_sync(all, gs == RS_SP_INC);
                ready = __ballot_sync(all, gs == RS_SP_INC || gs == RS_SP_AGG);
            }
        }
        const unsigned top = inc ? 31u - (unsigned)__clz((int)inc) : 0u; /* the nearest INC */
        const unsigned need = all << top;                              /* it and every group after it */
        ok = (ready & need) == need && (inc || older);
        if (ok) {
#pragma unroll
            for (unsigned q = 0; q < RS_SP_GROUP; ++q) {
                const T x = __shfl_sync(all, gv, q);
                if (inc && q == top) acc_a = x;
                else if (q > top || !inc) acc_a = Op::combine(acc_a, x);
            }
            *a = acc_a;
        }
    }
    if (!ok && l < p) {
        wst[l] = ts;
        wv[l] = tv;
    }
    return ok;
}

/* Thread 0's slow path, item by item (kernels_cl/scan_single_pass.cl's rs_sp_slow_step, step for step):
 * W over the tiles of the own group, then the nearest published A(m) (one read per group), then A(m+1) ..
 * A(g-1), a missing total folded from its group's tiles. A tile still missing after `spins` polls is returned
 * as a command: the whole block reduces it, and the next call publishes and uses that value. */
enum { RS_SP_PH_W, RS_SP_PH_FIND, RS_SP_PH_FOLD, RS_SP_PH_TOTAL };
template <typename T> struct rs_sp_slow {
    int phase, pending;
    unsigned l;
    long long gg;
    rs_u64 tile;
    T w, a, tot;
};

template <typename T, class Op>
__device__ rs_u64 rs_sp_slow_step(rs_sp_slow<T> *st, rs_sp_word_t *slots, rs_u64 tiles, rs_u64 g, unsigned p, T own,
                                  const unsigned *wst, const T *wv, T red, unsigned spins, int inplace, T init)
{
    T v = red;
    bool have = false;
    if (st->pending) { /* red: the block's reduction of st->tile */
        T pub;
        __threadfence();
        if (inplace && rs_sp_read<T>(slots, st->tile, &pub)) v = pub; /* the input may have been overwritten */
        else rs_sp_put<T>(slots, st->tile, RS_SP_AGG, v);
        st->pending = 0;
        have = true;
    }
    for (;;) {
        if (st->phase == RS_SP_PH_W || st->phase == RS_SP_PH_TOTAL) {
            const bool w = st->phase == RS_SP_PH_W;
            const unsigned count = w ? p : RS_SP_GROUP;
            if (st->l < count) {
                const rs_u64 tile = (w ? g : (rs_u64)st->gg) * RS_SP_GROUP + st->l;
                if (!have) {
                    if (w && wst[st->l]) v = wv[st->l];
                    else if (!rs_sp_poll<T>(slots, tile, &v, spins)) {
                        st->pending = 1;
                        st->tile = tile;
                        return tile;
                    }
                }
                have = false;
                T *acc = w ? &st->w : &st->tot;
                *acc = st->l ? Op::combine(*acc, v) : v;
                st->l++;
                continue;
            }
            if (w) {
                if (p == RS_SP_GROUP - 1) rs_sp_put<T>(slots, tiles + g, RS_SP_AGG, Op::combine(st->w, own));
                st->phase = RS_SP_PH_FIND;
                st->gg = (long long)g - 1;
            } else {
                rs_sp_put<T>(slots, tiles + (rs_u64)st->gg, RS_SP_AGG, st->tot);
                st->a = Op::combine(st->a, st->tot);
                st->gg++;
                st->phase = RS_SP_PH_FOLD;
            }
            continue;
        }
        if (st->phase == RS_SP_PH_FIND) {
            while (st->gg >= 0 && !(spins && rs_sp_read<T>(slots, tiles + (rs_u64)st->gg, &v) == RS_SP_INC)) st->gg--;
            st->a = st->gg >= 0 ? v : init;
            st->gg++;
            st->phase = RS_SP_PH_FOLD;
            continue;
        }
        /* RS_SP_PH_FOLD */
        if (st->gg == (long long)g) return RS_SP_DONE;
        const unsigned s = rs_sp_poll<T>(slots, tiles + (rs_u64)st->gg, &v, spins);
        if (s == RS_SP_INC || s == RS_SP_AGG) {
            st->a = s == RS_SP_INC ? v : Op::combine(st->a, v);
            st->gg++;
        } else {
            st->phase = RS_SP_PH_TOTAL;
            st->l = 0;
        }
    }
}

/* The whole block: S[tile] from the input with the tile_reduce expression. */
template <typename SRC, typename T, class Op>
__device__ T rs_sp_reduce_tile(SRC in, T *r, rs_u64 tile, rs_u64 n, unsigned section, int inplace)
{
    const unsigned t = threadIdx.x;
    const unsigned items = section / RS_GROUP;
    const rs_u64 first = tile * section + (rs_u64)t * items;
    T acc = first < n ? rs_load<T>(in, first) : Op::identity();
    for (unsigned k = 1; k < items; ++k)
        acc = Op::combine(acc, first + k < n ? rs_load<T>(in, first + k) : Op::identity());
    if (inplace) __threadfence();
    r[t] = acc;
    return rs_scan_tree_total<T, Op>(r); /* scan_io.cuh */
}

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
            const bool ok = rs_sp_warp_lookback<T, Op, rs_sp_windows<B>::value>(slots, tiles, g, p, closes, total,
                                                                                 spins, init, wst, wv, &w, &a);
            if (t == 0) ok_l = ok;
        }
        __syncthreads();
        if (!ok_l) {
            rs_sp_slow<T> st;
            if (t == 0) {
                st.phase = RS_SP_PH_W;
                st.pending = 0;
                st.l = 0;
                st.gg = 0;
                st.tile = 0;
                st.w = st.a = st.tot = Op::identity();
            }
            T red = Op::identity();
            for (;;) {
                if (t == 0) cmd_l = rs_sp_slow_step<T, Op>(&st, slots, tiles, g, p, own, wst, wv, red, spins, inplace, init);
                __syncthreads();
                const rs_u64 c = cmd_l;
                if (c == RS_SP_DONE) break;
                red = rs_sp_reduce_tile<SRC, T, Op>(in, r, c, n, B::SECTION, inplace);
            }
            if (t == 0) {
                w = st.w;
                a = st.a;
            }
        }
        if (t == 0) {
            p_l[0] = p ? Op::combine(a, w) : a;
            if (split) rs_sp_put<T>(slots, tiles + g, RS_SP_INC, Op::combine(a, Op::combine(w, own)));
            if (two) {
                const T w_next = p ? Op::combine(w, own) : own;
                p_l[PER - 1] = Op::combine(a, w_next);
                if (p == RS_SP_GROUP - 2)
                    rs_sp_put<T>(slots, tiles + g, RS_SP_INC, Op::combine(a, Op::combine(w_next, own_next)));
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

/* out[8t + k] of a tile from its scanned sub-section x (exclusive: before = the previous sub-section's total). */
template <typename T, class Op>
__device__ __forceinline__ void rs_spn_store(const rs_ndst<T> out, rs_u64 base, rs_u64 n, bool full,
                                             const T (&x)[RS_COARSE_ITEMS], T before, int exclusive, T seed)
{
    T y[RS_COARSE_ITEMS];
#pragma unroll
    for (unsigned k = 0; k < RS_COARSE_ITEMS; k++)
        y[k] = rs_out<Op>(Op::combine(seed, exclusive ? (k == 0 ? before : x[k - 1]) : x[k]));
    const rs_u64 first = base + (rs_u64)threadIdx.x * RS_COARSE_ITEMS;
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
            const bool ok = rs_sp_warp_lookback<T, Op, 1>(slots, tiles, g, p, closes, total, spins, init, wst, wv, &w, &a);
            if (t == 0) ok_l = ok;
        }
        __syncthreads();
        if (!ok_l) {
            rs_sp_slow<T> st;
            if (t == 0) {
                st.phase = RS_SP_PH_W;
                st.pending = 0;
                st.l = 0;
                st.gg = 0;
                st.tile = 0;
                st.w = st.a = st.tot = Op::identity();
            }
            T red = Op::identity();
            for (;;) {
                if (t == 0) cmd_l = rs_sp_slow_step<T, Op>(&st, slots, tiles, g, p, own[0], wst, wv, red, spins, inplace, init);
                __syncthreads();
                const rs_u64 c = cmd_l;
                if (c == RS_SP_DONE) break;
                red = rs_sp_reduce_tile<rs_nsrc<T>, T, Op>(in, r, c, n, SECTION, inplace);
            }
            if (t == 0) {
                w = st.w;
                a = st.a;
            }
        }
        if (t == 0) { /* W(j + q + 1) = W(j + q) (+) S[j + q], W(j) empty when p = 0 */
            T wq = w;
#pragma unroll
            for (unsigned q = 0; q < PER; q++) {
                if (q < cnt) p_l[q] = p + q ? Op::combine(a, wq) : a;
                wq = p + q ? Op::combine(wq, own[q]) : own[q];
            }
            if (closes) rs_sp_put<T>(slots, tiles + g, RS_SP_INC, Op::combine(a, wq));
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
            /* A narrow input with the coarsened block and aligned buffers: scan_single_pass_narrow (same bits);
             * otherwise one tile per ticket whatever per says (one instance fewer per T for nvcc; per never changes
             * the bits). */
            if constexpr (rs_is_nmark<X>::value && sizeof(T) == 4) {
                if (block == 4 && ((uintptr_t)in | (uintptr_t)out) % 16 == 0) {
                    const rs_u64 tickets = (n + RS_SPN_PER * RS_SECTION_COARSE - 1) / (RS_SPN_PER * RS_SECTION_COARSE);
                    const unsigned blocks = tickets < grid ? (unsigned)tickets : grid; /* n > 0: tickets >= 1 */
                    scan_single_pass_narrow<T, Op><<<blocks, RS_GROUP, 0, stream>>>(
                        src, dst, flags, n, exclusive, init_v, spins, inplace);
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
