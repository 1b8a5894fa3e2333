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

/* slots, window, slow path: lookback.clh, built before this file */

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
        const rs_sp_frame fr = {0, tiles, 1, 0};                                                                     \
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
            T w, a; /* work-item 0's */                                                                              \
            rs_sp_lookback(in, n, SECTION, slots, fr, g, p, split, split2, own, own_next, spins, inplace, init, wst,   \
                           wv, r, &cmd_l, &fold_l, &w, &a);                                                            \
            if (t == 0) {                                                                                            \
                p_l[0] = p ? rs_combine(a, w) : a;                                                                   \
                if (split) rs_sp_put(slots, rs_sp_gslot(fr, g), RS_SP_INC, rs_combine(a, rs_combine(w, own)));                \
                if (two) {                                                                                           \
                    const T w_next = p ? rs_combine(w, own) : own;                                                   \
                    p_l[1] = rs_combine(a, w_next);                                                                  \
                    if (split2) rs_sp_put(slots, rs_sp_gslot(fr, g), RS_SP_INC, rs_combine(a, rs_combine(w_next, own_next))); \
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
