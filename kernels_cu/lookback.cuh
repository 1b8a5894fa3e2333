/* The decoupled look-back's slots, warp look-back and slow path, shared by the flat single-pass scans
 * (scan_single_pass.cu) and the segmented scan's chunk pass (segmented_scan.cu). Twin: kernels_cl/lookback.clh. The
 * algorithm and the slot format: scan_single_pass.cu's header and docs/ALGORITHMS.md ("Grid level", single_pass;
 * "Segmented scans"). */
#ifndef RS_LOOKBACK_CUH
#define RS_LOOKBACK_CUH

#include <cuda/atomic>

#include "common.cuh"
#include "scan_io.cuh"

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

/* Where a look-back finds its slots (kernels_cl/lookback.clh's rs_sp_frame): tile i of the look-back's numbering
 * (j = 32 g + p) at slot t0 + i, group g at slot g0 + gstride g; a tile the slow path reduces starts at element
 * origin + (slot - t0) x section. Flat single_pass: {0, tiles, 1, 0}. Segmented scan (segmented_scan.cu): chunk c of a
 * segment whose chunk 0 has place k0 at slot k0 + c, group g after the chunk slots at the place of chunk 32 g + 31. */
struct rs_sp_frame {
    rs_u64 t0, g0, gstride, origin;
    __device__ __forceinline__ rs_u64 tslot(rs_u64 i) const { return t0 + i; }
    __device__ __forceinline__ rs_u64 gslot(rs_u64 g) const { return g0 + gstride * g; }
};

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
__device__ __forceinline__ unsigned rs_sp_group_poll(rs_sp_word_t *slots, const rs_sp_frame &fr, rs_u64 g, unsigned k,
                                                     unsigned l, T init, unsigned spins, T *v)
{
    const long long gi = (long long)g - (long long)(RS_SP_GROUP * (k + 1)) + l;
    *v = init;
    return gi >= 0 ? rs_sp_poll<T>(slots, fr.gslot((rs_u64)gi), v, spins) : gi == -1 ? RS_SP_INC : RS_SP_ABSENT;
}

/* Warp 0, when window 0 (the 32 group slots before g) holds totals only, no INC: the tiles in flight span more
 * than 32 groups, which happens when tiles are short (256 values) or at the start of a large grid. Searches
 * windows 1 .. WINDOWS - 1 (window k: group g - 32(k+1) + lane) for the newest one with an INC and, if
 * every slot after that INC is published, folds A(g - 33) = the INC (+) the totals after it, left to right, into
 * *a (all lanes). The fold reads the slots again: one that has become INC since (statuses only go 0 -> AGG ->
 * INC) restarts the fold from its value, which gives the same bits, A(m) being A(m-1) (+) T(m). */
template <typename T, class Op, unsigned WINDOWS>
__device__ __forceinline__ bool rs_sp_older_windows(rs_sp_word_t *slots, const rs_sp_frame &fr, rs_u64 g, unsigned spins, T init,
                                                 T *a)
{
    const unsigned l = threadIdx.x, all = 0xffffffffu;
    unsigned found = 0, top = 0;
    for (unsigned k = 1; k < WINDOWS && !found; ++k) { /* uniform */
        T v;
        const unsigned gs = rs_sp_group_poll<T>(slots, fr, g, k, l, init, spins, &v);
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
        const unsigned gs = rs_sp_group_poll<T>(slots, fr, g, k, l, init, spins, &v);
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
__device__ __forceinline__ bool rs_sp_warp_lookback(rs_sp_word_t *slots, const rs_sp_frame &fr, rs_u64 g, unsigned p,
                                                    bool closes, Close total, unsigned spins, T init, unsigned *wst,
                                                    T *wv, T *w, T *a)
{
    const unsigned l = threadIdx.x, all = 0xffffffffu;
    T tv = init;
    const unsigned ts = l < p ? rs_sp_poll<T>(slots, fr.tslot(g * RS_SP_GROUP + l), &tv, spins) : RS_SP_AGG;
    bool ok = __ballot_sync(all, ts != 0) == all;
    T acc = Op::identity();
    if (ok) {
#pragma unroll
        for (unsigned q = 0; q < RS_SP_GROUP; ++q) {
            const T x = __shfl_sync(all, tv, q);
            if (q < p) acc = q ? Op::combine(acc, x) : x;
        }
        if (closes && l == 0) rs_sp_put<T>(slots, fr.gslot(g), RS_SP_AGG, total(acc));
        *w = acc;
        T gv;
        unsigned gs = rs_sp_group_poll<T>(slots, fr, g, 0, l, init, spins, &gv);
        unsigned inc = __ballot_sync(all, gs == RS_SP_INC);
        unsigned ready = __ballot_sync(all, gs == RS_SP_INC || gs == RS_SP_AGG);
        T acc_a = init;
        bool older = false;
        if (!inc && ready == all) {
            if (WINDOWS > 1) older = rs_sp_older_windows<T, Op, WINDOWS>(slots, fr, g, spins, init, &acc_a);
            /* Totals only, no A(m) within reach: the chain of inclusive prefixes lags the tiles in flight. Wait
             * for it to reach window 0 (re-read, up to `spins` times) rather than take the item-by-item slow
             * path, which kept the chain behind: with two tiles per ticket, 1056 blocks span 66 groups, and int32
             * max at 2^28 ran at 1.67 ms instead of 0.87 in about half the runs. */
            for (unsigned r = 0; !older && !inc && ready == all && r < spins; ++r) {
                gs = rs_sp_group_poll<T>(slots, fr, g, 0, l, init, 1, &gv);
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
__device__ rs_u64 rs_sp_slow_step(rs_sp_slow<T> *st, rs_sp_word_t *slots, rs_sp_frame fr, rs_u64 g, unsigned p, T own,
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
                const rs_u64 tile = fr.tslot((w ? g : (rs_u64)st->gg) * RS_SP_GROUP + st->l);
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
                if (p == RS_SP_GROUP - 1) rs_sp_put<T>(slots, fr.gslot(g), RS_SP_AGG, Op::combine(st->w, own));
                st->phase = RS_SP_PH_FIND;
                st->gg = (long long)g - 1;
            } else {
                rs_sp_put<T>(slots, fr.gslot((rs_u64)st->gg), RS_SP_AGG, st->tot);
                st->a = Op::combine(st->a, st->tot);
                st->gg++;
                st->phase = RS_SP_PH_FOLD;
            }
            continue;
        }
        if (st->phase == RS_SP_PH_FIND) {
            while (st->gg >= 0 && !(spins && rs_sp_read<T>(slots, fr.gslot((rs_u64)st->gg), &v) == RS_SP_INC)) st->gg--;
            st->a = st->gg >= 0 ? v : init;
            st->gg++;
            st->phase = RS_SP_PH_FOLD;
            continue;
        }
        /* RS_SP_PH_FOLD */
        if (st->gg == (long long)g) return RS_SP_DONE;
        const unsigned s = rs_sp_poll<T>(slots, fr.gslot((rs_u64)st->gg), &v, spins);
        if (s == RS_SP_INC || s == RS_SP_AGG) {
            st->a = s == RS_SP_INC ? v : Op::combine(st->a, v);
            st->gg++;
        } else {
            st->phase = RS_SP_PH_TOTAL;
            st->l = 0;
        }
    }
}

/* The whole block: S of the tile at slot x from the input with the tile_reduce expression (identity at and past n). */
template <typename SRC, typename T, class Op>
__device__ T rs_sp_reduce_tile(SRC in, T *r, const rs_sp_frame &fr, rs_u64 x, rs_u64 n, unsigned section, int inplace)
{
    const unsigned t = threadIdx.x;
    const unsigned items = section / RS_GROUP;
    const rs_u64 first = fr.origin + (x - fr.t0) * section + (rs_u64)t * items;
    T acc = first < n ? rs_load<T>(in, first) : Op::identity();
    for (unsigned k = 1; k < items; ++k)
        acc = Op::combine(acc, first + k < n ? rs_load<T>(in, first + k) : Op::identity());
    if (inplace) __threadfence();
    r[t] = acc;
    return rs_scan_tree_total<T, Op>(r); /* scan_io.cuh */
}

/* The whole block: the slow path after a failed warp look-back (thread 0 steps rs_sp_slow_step, the block reduces
 * each tile it returns, bounded by n), as kernels_cl/lookback.clh's rs_sp_lookback ends. Thread 0's *w and *a get W
 * and A(g-1). r: RS_GROUP values; cmd: a shared word. */
template <typename SRC, typename T, class Op>
__device__ __forceinline__ void rs_sp_slow_path(SRC in, rs_u64 n, unsigned section, rs_sp_word_t *slots,
                                                const rs_sp_frame &fr, rs_u64 g, unsigned p, T own,
                                                const unsigned *wst, const T *wv, unsigned spins, int inplace, T init,
                                                T *r, rs_u64 *cmd, T *w, T *a)
{
    const unsigned t = threadIdx.x;
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
        if (t == 0) *cmd = rs_sp_slow_step<T, Op>(&st, slots, fr, g, p, own, wst, wv, red, spins, inplace, init);
        __syncthreads();
        const rs_u64 x = *cmd;
        if (x == RS_SP_DONE) break;
        red = rs_sp_reduce_tile<SRC, T, Op>(in, r, fr, x, n, section, inplace);
    }
    if (t == 0) {
        *w = st.w;
        *a = st.a;
    }
}

#endif /* RS_LOOKBACK_CUH */
