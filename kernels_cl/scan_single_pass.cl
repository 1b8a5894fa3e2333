/* Single-pass grid scan (docs/ALGORITHMS.md, "Grid level", single_pass). Twin: kernels_cu/scan_single_pass.cu.
 *
 *   scan_single_pass_B(const IN_T *in, T *out, ulong *flags, ulong n, int exclusive, T init, uint spins,
 *                      int inplace, uint per)
 *
 * One launch, a decoupled look-back whose result does not depend on timing. A work-group takes a tile index j
 * from the ticket counter flags[0] (never its group id: it only ever waits for lower tickets, taken by groups that
 * are running or done), loads and block-scans the tile (L, aggregate S[j] = L's last element, the same bits as
 * tile_reduce_in_B) and writes P[j] (+) L. Tiles form groups of RS_SP_GROUP = 32 (j = 32g + p):
 *     T(g)  = S[32g] (+) S[32g+1] (+) ... (+) S[32g+31]                 (left to right)
 *     A(-1) = init,   A(g) = A(g-1) (+) T(g)                              (a chain over the groups)
 *     P[j]  = A(g-1) (+) (S[32g] (+) ... (+) S[j-1])   (p > 0);   P[32g] = A(g-1)
 * A published A(m) is the chain's own value, so folding T(m+1) .. T(g-1) onto it gives A(g-1) with the same
 * bits whichever m a group happens to find: the look-back is decoupled, the bits are not timing-dependent.
 *
 * Slots (flags + RS_SP_SLOT_BASE): tile i at slot i (status AGG: S[i]); group g at slot tiles + g (AGG: T(g),
 * later INC: A(g), published by the group's last tile). A slot is one 64-bit word status << 32 | value bits for
 * 32-bit T, two words (status << 32 | low half, status << 32 | high half) for 64-bit T, and a reader accepts only
 * equal statuses in both (each (slot, status) has exactly one value, so that pair is consistent). Words are
 * written with atom_cmpxchg (AGG: fills an empty slot only, so a total never replaces an inclusive prefix) or
 * atom_xchg (INC) and read with atom_add(p, 0): the status and the value are always read together. The host
 * zero-fills the counter and the slots before each launch.
 *
 * Per tile: work-item 0 publishes S[j]; work-items 0..p-1 poll the tile slots of the own group, work-items
 * 32..63 the 32 group slots before it (group -1 reads as init with INC), `spins` polls each; work-item 0 folds
 * W = S[32g] .. S[j-1] and A(g-1) from the nearest INC in the window. With the 256-value blocks, a window of
 * totals only (no INC yet: the tiles in flight span more than 32 groups) sends the work-group 32 groups further
 * back, up to 128 groups, before anything takes the slow path. The last tile of a group (p = 31) first
 * publishes T(g) = W (+) S[j] and then looks at the group slots, and finally publishes A(g) = A(g-1) (+) T(g).
 * If anything is missing, work-item 0 takes the slow path (rs_sp_slow_step), item by item with bounded waits:
 * a tile aggregate still missing after `spins` polls is computed by the whole group from the input with the
 * tile_reduce expression (the decoupled fallback: no wait depends on another group being scheduled), a missing
 * group total is folded from its tiles; computed values are published. spins = 0 never polls (testing: the
 * fallback alone). In place (in == out), a computed S[i] is checked against its slot afterwards and the
 * published one wins: the owner of tile i publishes S[i] and fences before it overwrites its input.
 *
 * per = 2 (the host's choice on large inputs, see the kernel macro below): two tiles per ticket, same bits.
 *
 * Every barrier is in uniform control flow: the loop conditions are read from local memory by all work-items
 * after a barrier. Only built where the compiler has cl_khr_int64_base_atomics (the host checks the device). */
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define RS_SP_SLOT_BASE 16 /* words before the slots: [0] the ticket counter */
#define RS_SP_GROUP 32u    /* tiles per group = the width of a look-back window */
/* Windows of 32 group slots the look-back searches for an INC: 4 (128 groups back) for the 256-value sections,
 * whose tiles in flight span more than 32 groups on a large GPU; 1 for the coarsened block (the CUDA twin's rule,
 * rs_sp_windows, which says why). */
#if defined(RS_SCAN_BLOCK_COARSE)
#define RS_SP_WINDOWS 1u
#else
#define RS_SP_WINDOWS 4u
#endif
#define RS_SP_BACK (RS_SP_WINDOWS * RS_SP_GROUP)
#define RS_SP_FOLD_FAIL 0  /* rs_sp_fold_groups: a total is missing (or no INC in all windows) */
#define RS_SP_FOLD_OK 1    /* A(g-1) folded */
#define RS_SP_FOLD_MORE 2  /* every slot read so far is a total: read the next (older) window */
#define RS_SP_FOLD_WAIT 3  /* every window holds totals only: read window 0 again (the chain lags) */
#define RS_SP_AGG 1u       /* slot status: tile aggregate S / group total T */
#define RS_SP_INC 2u       /* slot status: group inclusive prefix A */
#define RS_SP_ABSENT 3u    /* window only: a group before -1 (not part of any prefix) */
#define RS_SP_DONE ((ulong)-1)

#define RS_SP_CAT2(a, b) a##b
#define RS_SP_CAT(a, b) RS_SP_CAT2(a, b)
#define RS_SP_AS_T(x) RS_SP_CAT(as_, T)(x)

#if RS_OUT_DTYPE == RS_INT64 || RS_OUT_DTYPE == RS_UINT64 || RS_OUT_DTYPE == RS_FLOAT64
#define RS_SP_WIDE 1
#else
#define RS_SP_WIDE 0
#endif

/* Status of slot x (0: not published) and, when published, its value. */
inline uint rs_sp_read(__global ulong *slots, ulong x, T *v)
{
#if RS_SP_WIDE
    const ulong lo = atom_add(slots + 2 * x, (ulong)0), hi = atom_add(slots + 2 * x + 1, (ulong)0);
    const uint s = (uint)(lo >> 32);
    if (s != (uint)(hi >> 32)) return 0; /* halves of two publications: read again later */
    if (s) *v = RS_SP_AS_T((hi << 32) | (lo & 0xffffffffUL));
    return s;
#else
    const ulong w = atom_add(slots + x, (ulong)0);
    const uint s = (uint)(w >> 32);
    if (s) *v = RS_SP_AS_T((uint)w);
    return s;
#endif
}

/* Up to `spins` reads of slot x; its status (0: still not published). */
inline uint rs_sp_poll(__global ulong *slots, ulong x, T *v, uint spins)
{
    uint s = 0;
    for (uint k = 0; k < spins && !s; ++k) s = rs_sp_read(slots, x, v);
    return s;
}

inline void rs_sp_store(__global ulong *p, ulong w, int if_empty)
{
    if (if_empty) atom_cmpxchg(p, (ulong)0, w);
    else atom_xchg(p, w);
}

/* Publish v with a status: AGG only fills an empty slot (every writer of an AGG slot writes the same bits, and a
 * group's total never replaces its inclusive prefix); INC replaces. */
inline void rs_sp_put(__global ulong *slots, ulong x, uint status, T v)
{
    const ulong tag = (ulong)status << 32;
    const int if_empty = status == RS_SP_AGG;
#if RS_SP_WIDE
    const ulong b = as_ulong(v);
    rs_sp_store(slots + 2 * x, tag | (b & 0xffffffffUL), if_empty);
    rs_sp_store(slots + 2 * x + 1, tag | (b >> 32), if_empty);
#else
    rs_sp_store(slots + x, tag | (ulong)as_uint(v), if_empty);
#endif
}

/* Work-items 0..63 fill the look-back window: l < p polls tile slot 32g + l (with tiles_half); 32 + q polls group
 * slot g - 32 (window + 1) + q, window 0 being the 32 groups just before g (window < RS_SP_WINDOWS; group -1 is
 * init as an INC, older ones ABSENT). wst / wv: the tile half at [0, 32), then group g - RS_SP_BACK + i at 32 + i,
 * so that window k lands at i = RS_SP_BACK - 32(k+1) ... RS_SP_BACK - 32k - 1, the older windows before the newer. */
inline void rs_sp_fill(__local uint *wst, __local T *wv, __global ulong *slots, ulong tiles, ulong g, uint p,
                       int tiles_half, uint window, uint spins, T init)
{
    const uint t = (uint)get_local_id(0);
    T v = init;
    if (t < RS_SP_GROUP) {
        if (tiles_half && t < p) {
            wst[t] = rs_sp_poll(slots, g * RS_SP_GROUP + t, &v, spins);
            wv[t] = v;
        }
    } else if (t < 2 * RS_SP_GROUP && window < RS_SP_WINDOWS) {
        const uint i = RS_SP_BACK - RS_SP_GROUP * (window + 1) + (t - RS_SP_GROUP);
        const long gi = (long)g - (long)(RS_SP_BACK - i);
        wst[RS_SP_GROUP + i] =
            gi >= 0 ? rs_sp_poll(slots, tiles + (ulong)gi, &v, spins) : gi == -1 ? RS_SP_INC : RS_SP_ABSENT;
        wv[RS_SP_GROUP + i] = v;
    }
}

/* Work-item 0: W = S[32g] (+) ... (+) S[32g+p-1] from the window's tile half; 0 if one is missing. */
inline int rs_sp_fold_tiles(__local const uint *wst, __local const T *wv, uint p, T *w)
{
    T acc = IDENTITY;
    for (uint l = 0; l < p; ++l) {
        if (!wst[l]) return 0;
        acc = l ? rs_combine(acc, wv[l]) : wv[l];
    }
    *w = acc;
    return 1;
}

/* Work-item 0: A(g-1) from the `windows` newest windows of the group half: the nearest INC, then the totals after
 * it, left to right. If all of them are totals: RS_SP_FOLD_MORE while an older window is left to read, then
 * RS_SP_FOLD_WAIT. */
inline int rs_sp_fold_groups(__local const uint *wst, __local const T *wv, uint windows, T *a)
{
    const int low = (int)(RS_SP_BACK - RS_SP_GROUP * windows);
    int q = (int)RS_SP_BACK - 1;
    for (; q >= low; --q) {
        const uint s = wst[RS_SP_GROUP + q];
        if (s == RS_SP_INC) break;
        if (s != RS_SP_AGG) return RS_SP_FOLD_FAIL;
    }
    if (q < low) return windows < RS_SP_WINDOWS ? RS_SP_FOLD_MORE : RS_SP_FOLD_WAIT;
    T acc = wv[RS_SP_GROUP + q];
    for (++q; q < (int)RS_SP_BACK; ++q) acc = rs_combine(acc, wv[RS_SP_GROUP + q]);
    *a = acc;
    return RS_SP_FOLD_OK;
}

/* Work-item 0's slow path, item by item: W over the tiles of the own group, then the nearest published A(m)
 * (one read per group), then the totals T(m+1) .. T(g-1) folded onto it (a missing total folded from its
 * group's tiles). A tile still missing after `spins` polls is returned as a command: the whole group reduces it,
 * and the next call publishes and uses that value. */
#define RS_SP_PH_W 0
#define RS_SP_PH_FIND 1
#define RS_SP_PH_FOLD 2
#define RS_SP_PH_TOTAL 3
typedef struct {
    int phase, pending;
    uint l;
    long gg;
    ulong tile;
    T w, a, tot;
} rs_sp_slow;

ulong rs_sp_slow_step(rs_sp_slow *st, __global ulong *slots, ulong tiles, ulong g, uint p, T own,
                      __local const uint *wst, __local const T *wv, T red, uint spins, int inplace, T init)
{
    T v = red;
    int have = 0;
    if (st->pending) { /* red: the group's reduction of st->tile */
        T pub;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        if (inplace && rs_sp_read(slots, st->tile, &pub)) v = pub; /* the input may have been overwritten */
        else rs_sp_put(slots, st->tile, RS_SP_AGG, v);
        st->pending = 0;
        have = 1;
    }
    for (;;) {
        if (st->phase == RS_SP_PH_W || st->phase == RS_SP_PH_TOTAL) {
            const int w = st->phase == RS_SP_PH_W;
            const uint count = w ? p : RS_SP_GROUP;
            if (st->l < count) {
                const ulong tile = (w ? g : (ulong)st->gg) * RS_SP_GROUP + st->l;
                if (!have) {
                    if (w && wst[st->l]) {
                        v = wv[st->l];
                    } else if (!rs_sp_poll(slots, tile, &v, spins)) {
                        st->pending = 1;
                        st->tile = tile;
                        return tile;
                    }
                }
                have = 0;
                if (w) st->w = st->l ? rs_combine(st->w, v) : v;
                else st->tot = st->l ? rs_combine(st->tot, v) : v;
                st->l++;
                continue;
            }
            if (w) {
                if (p == RS_SP_GROUP - 1) rs_sp_put(slots, tiles + g, RS_SP_AGG, rs_combine(st->w, own));
                st->phase = RS_SP_PH_FIND;
                st->gg = (long)g - 1;
            } else {
                rs_sp_put(slots, tiles + (ulong)st->gg, RS_SP_AGG, st->tot);
                st->a = rs_combine(st->a, st->tot);
                st->gg++;
                st->phase = RS_SP_PH_FOLD;
            }
            continue;
        }
        if (st->phase == RS_SP_PH_FIND) {
            while (st->gg >= 0 && !(spins && rs_sp_read(slots, tiles + (ulong)st->gg, &v) == RS_SP_INC)) st->gg--;
            st->a = st->gg >= 0 ? v : init;
            st->gg++;
            st->phase = RS_SP_PH_FOLD;
            continue;
        }
        /* RS_SP_PH_FOLD */
        if (st->gg == (long)g) return RS_SP_DONE;
        const uint s = rs_sp_poll(slots, tiles + (ulong)st->gg, &v, spins);
        if (s == RS_SP_INC || s == RS_SP_AGG) {
            st->a = s == RS_SP_INC ? v : rs_combine(st->a, v);
            st->gg++;
        } else {
            st->phase = RS_SP_PH_TOTAL;
            st->l = 0;
        }
    }
}

/* The whole group: S[tile] from the input, the tile_reduce_in_B expression (work-item t folds its `items`
 * contiguous values, identity past n, then the pairwise tree over r). Returns it to every work-item. */
T rs_sp_reduce_tile(__global const IN_T *in, __local T *r, ulong tile, ulong n, uint section, int inplace)
{
    const uint t = (uint)get_local_id(0);
    const uint items = section / RS_GROUP;
    const ulong first = tile * section + (ulong)t * items;
    T acc = first < n ? RS_LOAD(in, first) : IDENTITY;
    for (uint k = 1; k < items; ++k) acc = rs_combine(acc, first + k < n ? RS_LOAD(in, first + k) : IDENTITY);
    if (inplace) mem_fence(CLK_GLOBAL_MEM_FENCE);
    r[t] = acc;
    return rs_scan_tree_total(r);
}

/* per = 2: a work-group takes tiles j = 2 * ticket and j + 1 (a pair never straddles a group of 32), loads and
 * scans both before it publishes both aggregates, and looks back once, for tile j; tile j + 1's prefix follows:
 * W(j + 1) = W(j) (+) S[j] (S[j] alone when j opens its group), the left fold the look-back would compute, so
 * the bits are those of per = 1. When j + 1 closes its group (p = 30), T(g) = W(j + 1) (+) S[j + 1] is published
 * before the group slots are read, and A(g) at the end, as the last tile does with per = 1. */
#define RS_SCAN_SINGLE_PASS_KERNEL(B, SECTION, AUX)                                                                  \
    __kernel void scan_single_pass_##B(__global const IN_T *in, __global OUT_T *out, __global ulong *flags, ulong n, \
                                       int exclusive, T init, uint spins, int inplace, uint per)                     \
    {                                                                                                                \
        __local T s[2 * SECTION] __attribute__((aligned(16)));                                                       \
        __local T aux[AUX];                                                                                          \
        __local T r[RS_GROUP];                                                                                       \
        __local uint wst[RS_SP_GROUP + RS_SP_BACK];                                                                  \
        __local T wv[RS_SP_GROUP + RS_SP_BACK];                                                                      \
        __local ulong tile_l, cmd_l;                                                                                 \
        __local int fold_l;                                                                                          \
        __local T p_l[2];                                                                                            \
        const uint t = (uint)get_local_id(0);                                                                        \
        const ulong tiles = (n + (SECTION - 1)) / SECTION;                                                           \
        __global ulong *slots = flags + RS_SP_SLOT_BASE;                                                             \
        for (;;) {                                                                                                   \
            if (t == 0) tile_l = atom_inc(flags);                                                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
            const ulong j = tile_l * per;                                                                            \
            if (j >= tiles) break;                                                                                   \
            const int two = per == 2 && j + 1 < tiles; /* uniform across the group */                                \
            const ulong base = j * SECTION, g = j / RS_SP_GROUP;                                                     \
            const uint p = (uint)(j % RS_SP_GROUP);                                                                  \
            /* the tile that closes a group publishes T(g) before it waits for A(g-1): the next group needs it */    \
            const int split = p == RS_SP_GROUP - 1, split2 = two && p == RS_SP_GROUP - 2;                            \
            /* loops, not ifs, around the barriers of the second section: PoCL compiles a barrier under an if by  \
             * replicating the code after it (6 s more per kernel), one in a uniform loop as it is */              \
            const uint nsec = two ? 2u : 1u;                                                                         \
            for (uint q = 0; q < nsec; ++q) rs_scan_load_in(s + q * SECTION, in, base + q * SECTION, n, SECTION);    \
            for (uint q = 0; q < nsec; ++q) rs_block_scan_##B(s + q * SECTION, aux);                                 \
            const T own = s[SECTION - 1];                                                                            \
            const T own_next = two ? s[2 * SECTION - 1] : IDENTITY;                                                  \
            if (t == 0) {                                                                                            \
                rs_sp_put(slots, j, RS_SP_AGG, own);                                                                 \
                if (two) rs_sp_put(slots, j + 1, RS_SP_AGG, own_next);                                               \
            }                                                                                                        \
            /* a closing tile reads the group slots only after it has published T(g) */                             \
            const uint first = split || split2 ? 0u : 1u; /* windows of group slots read with the tile half */       \
            rs_sp_fill(wst, wv, slots, tiles, g, p, 1, first ? 0u : RS_SP_WINDOWS, spins, init);                     \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
            T w = IDENTITY, a = init; /* work-item 0's */                                                            \
            if (t == 0) {                                                                                            \
                int f = rs_sp_fold_tiles(wst, wv, p, &w) ? RS_SP_FOLD_MORE : RS_SP_FOLD_FAIL;                        \
                if (f && split) rs_sp_put(slots, tiles + g, RS_SP_AGG, rs_combine(w, own));                          \
                if (f && split2) rs_sp_put(slots, tiles + g, RS_SP_AGG, rs_combine(rs_combine(w, own), own_next));   \
                if (f && first) f = rs_sp_fold_groups(wst, wv, 1, &a);                                               \
                fold_l = f;                                                                                          \
            }                                                                                                        \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
            /* older windows, one at a time, while every slot read is a total (the loops below run a bounded or      \
             * zero number of times: uniform loops around barriers, not ifs, see above) */                           \
            for (uint k = first; fold_l == RS_SP_FOLD_MORE && k < RS_SP_WINDOWS; ++k) {                              \
                rs_sp_fill(wst, wv, slots, tiles, g, p, 0, k, spins, init);                                          \
                barrier(CLK_LOCAL_MEM_FENCE);                                                                        \
                if (t == 0) fold_l = rs_sp_fold_groups(wst, wv, k + 1, &a);                                          \
                barrier(CLK_LOCAL_MEM_FENCE);                                                                        \
            }                                                                                                        \
            /* totals only in every window: the chain of inclusive prefixes lags the tiles in flight; read window 0  \
             * again, up to `spins` times, rather than take the item-by-item slow path (the CUDA twin says why) */    \
            for (uint r = 0; fold_l == RS_SP_FOLD_WAIT && r < spins; ++r) {                                          \
                rs_sp_fill(wst, wv, slots, tiles, g, p, 0, 0u, 1u, init);                                            \
                barrier(CLK_LOCAL_MEM_FENCE);                                                                        \
                if (t == 0) fold_l = rs_sp_fold_groups(wst, wv, RS_SP_WINDOWS, &a);                                  \
                barrier(CLK_LOCAL_MEM_FENCE);                                                                        \
            }                                                                                                        \
            for (uint q = 0; q < (fold_l == RS_SP_FOLD_OK ? 0u : 1u); ++q) {                                         \
                rs_sp_slow st;                                                                                       \
                if (t == 0) {                                                                                        \
                    st.phase = RS_SP_PH_W;                                                                           \
                    st.pending = 0;                                                                                  \
                    st.l = 0;                                                                                        \
                    st.gg = 0;                                                                                       \
                    st.tile = 0;                                                                                     \
                    st.w = st.a = st.tot = IDENTITY;                                                                 \
                }                                                                                                    \
                T red = IDENTITY;                                                                                    \
                for (;;) {                                                                                           \
                    if (t == 0)                                                                                      \
                        cmd_l = rs_sp_slow_step(&st, slots, tiles, g, p, own, wst, wv, red, spins, inplace, init);   \
                    barrier(CLK_LOCAL_MEM_FENCE);                                                                    \
                    const ulong c = cmd_l;                                                                           \
                    if (c == RS_SP_DONE) break;                                                                      \
                    red = rs_sp_reduce_tile(in, r, c, n, SECTION, inplace);                                          \
                }                                                                                                    \
                if (t == 0) {                                                                                        \
                    w = st.w;                                                                                        \
                    a = st.a;                                                                                        \
                }                                                                                                    \
            }                                                                                                        \
            if (t == 0) {                                                                                            \
                p_l[0] = p ? rs_combine(a, w) : a;                                                                   \
                if (split) rs_sp_put(slots, tiles + g, RS_SP_INC, rs_combine(a, rs_combine(w, own)));                \
                if (two) {                                                                                           \
                    const T w_next = p ? rs_combine(w, own) : own;                                                   \
                    p_l[1] = rs_combine(a, w_next);                                                                  \
                    if (split2) rs_sp_put(slots, tiles + g, RS_SP_INC, rs_combine(a, rs_combine(w_next, own_next))); \
                }                                                                                                    \
            }                                                                                                        \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
            /* in place: S[j] (and S[j + 1]) are published before any of their input is overwritten */               \
            if (inplace) mem_fence(CLK_GLOBAL_MEM_FENCE);                                                            \
            for (uint q = 0; q < nsec; ++q)                                                                          \
                rs_scan_store(out, s + q * SECTION, base + q * SECTION, n, SECTION, exclusive, p_l[q], 1);           \
            barrier(CLK_LOCAL_MEM_FENCE); /* s, tile_l and p_l are refilled for the next tile */                     \
        }                                                                                                            \
    }

/* One block scan per program, as in scan_grid.cl. */
#if defined(RS_SCAN_BLOCK_KS)
RS_SCAN_SINGLE_PASS_KERNEL(ks, RS_SECTION_KS, RS_AUX_KS)
#elif defined(RS_SCAN_BLOCK_KSDB)
RS_SCAN_SINGLE_PASS_KERNEL(ksdb, RS_SECTION_KSDB, RS_AUX_KSDB)
#elif defined(RS_SCAN_BLOCK_BK)
RS_SCAN_SINGLE_PASS_KERNEL(bk, RS_SECTION_BK, RS_AUX_BK)
#elif defined(RS_SCAN_BLOCK_COARSE)
RS_SCAN_SINGLE_PASS_KERNEL(coarse, RS_SECTION_COARSE, RS_AUX_COARSE)
#else
#error "a scan program is built for one block scan: -DRS_SCAN_BLOCK_KS, _KSDB, _BK or _COARSE"
#endif

#endif /* cl_khr_int64_base_atomics */
