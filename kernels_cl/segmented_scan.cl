/* Segmented scan (docs/ALGORITHMS.md, "Segmented scans"). Twin: kernels_cu/segmented_scan.cu.
 * Built after common.clh, scan_io.clh, scan_coarsened.clh and segmented.cl (with RS_SEG_SCAN: its offsets reader
 * rs_seg_off and seg_check only).
 *
 * Segment s is in[offsets[s] .. offsets[s+1]). Its output is the AUTO scan of that slice alone (coarsened block,
 * single_pass's order), bit for bit: chunks of RS_SS_TILE = 2048 (the coarsened SECTION) counted from the segment's
 * own start; S[c] = the section-total expression of chunk c; groups of 32 chunks, T(g) = S[32g] (+) ... (+) S[32g+31]
 * left to right; A(-1) = init, A(g) = A(g-1) (+) T(g); P[32g] = A(g-1), P[32g+p] = A(g-1) (+) (S[32g] (+) ...
 * (+) S[32g+p-1]) left to right; out = P[c] (+) L, L the coarsened block scan of the chunk (exclusive: the previous
 * local value, the identity at the chunk start).
 *
 * Work division, by segment length (so that a short segment costs no group-wide work and no search):
 *   up to RS_SS_SHORT = 8     one work-item: the segment lies in sub-section 0 of its only chunk, so its block scan is
 *                             work-item 0's left fold (phase 1), phase 3 leaves sub-section 0 alone, and P = init;
 *   up to RS_SS_TILE = 2048   one team of 32 work-items (RS_SS_TEAM): one chunk, P = init; lane l plays the block's
 *                             work-items l + 32r (r = 0..7): phase 1 per sub-section, the Kogge-Stone steps of
 *                             phase 2 over the team's 256 sub-section totals in local memory, phase 3 (rs_ss_team);
 *   longer                    the chunk path: in one pass (seg_scan_marks, seg_scan_single: the end of this file)
 *                             where the compiler has 64-bit atomics, else seg_scan_totals .. seg_scan_out below.
 * seg_scan_short does the first two classes segment-major: a work-item per segment, offsets[s] and offsets[s+1] read
 * coalesced, the medium ones listed in local memory for the group's 8 teams.
 *
 * The chunk path works per window: window w is elements [2048 w, 2048 (w+1)) of the index space. A window holds the
 * start of at most two chunks of segments longer than 2048: a later chunk (c >= 1, or c = 0 when the segment starts
 * exactly at 2048 w) of the segment that contains element 2048 w, and chunk 0 of a long segment that starts inside
 * the window (such a segment contains the window's last element, or the input's last one). rs_ss_window finds them by
 * two binary searches of the offsets: per window, not per segment, so the short segments cost the chunk path nothing.
 * A chunk's values are stored at its place, floor(its start / 2048) = its window, in tot / gsum / acar (arrays of
 * floor(in_n / 2048) + 1 values: they do not grow with S). Two chunks that store a value never share a place: tot and
 * gsum are stored for chunks that are not their segment's last (full, so starts 2048 or more apart; of a window's
 * two chunks the first is its segment's last), acar for chunk 32g (g >= 1), whose starts are 32 x 2048 or more apart.
 * Chunk c of the segment whose chunk 0 has place k0 has place k0 + c.
 *
 * runs: NULL, or the device word holding the real segment count R <= S (scan by key's _async form, which does not
 * know R on the host: S is then its bound, n). Every kernel reads it once (rs_ss_live): segments from R on are
 * skipped, windows stop at offsets[R] (= n), and offsets[R + 1 ..] are never read.
 *
 *   seg_scan_short(in, out, offsets, kind, S, flags, init, exclusive, runs)    the segments of up to 2048 elements
 *   seg_scan_totals(in, offsets, kind, S, flags, tot, windows, runs)   tot[pl] = S[c] for every chunk but a
 *                                                                       segment's last (the only ones any P uses);
 *                                                                       RS_SS_WB windows per group batch
 *   seg_scan_groups(tot, offsets, kind, S, flags, gsum, windows, runs) gsum[pl] = T(g) at the place of chunk 32g,
 *                                                                       for every group but a segment's last; a
 *                                                                       work-item per window
 *   seg_scan_chain(gsum, offsets, kind, S, flags, init, acar, windows, runs)   acar[pl of chunk 32g] = A(g-1),
 *                                                                       g >= 1; the work-item of the window that
 *                                                                       holds a segment's chunk 0, left to right
 *   seg_scan_out(in, out, offsets, kind, S, flags, tot, acar, init, exclusive, windows, runs)
 *       out = P (+) L for the long segments' chunks: RS_SS_WB windows per group batch, their chunks listed, then taken
 *       one after another by the whole group (rs_block_scan_coarse, rs_scan_store).
 * Every kernel writes nothing when seg_check found a fault (flags[0]). Each writes only its own segments' elements
 * and reads a work-item's (short), a lane's sub-section (medium) or a whole chunk (long) before writing it: in == out
 * is safe. */
#define RS_SS_TILE RS_SECTION_COARSE
#define RS_SS_CHAIN 32
#define RS_SS_SHORT RS_COARSE_ITEMS
#define RS_SS_TEAM 32                      /* work-items of a medium segment's team */
#define RS_SS_TEAMS (RS_GROUP / RS_SS_TEAM) /* 8 teams per group; and a lane's rows (sub-sections l + 32r) */
#define RS_SS_WB 8                         /* windows per group batch in seg_scan_totals / seg_scan_out */
#define RS_SS_NONE ((ulong)-1)

/* The live segment count (runs: scan by key's _async form, *S = R) and the number of windows to visit: those below
 * offsets[S] / 2048 rounded up, at most the host's bound. */
inline ulong rs_ss_live(global const void *offsets, uint kind, global const ulong *runs, ulong *S, ulong windows)
{
    if (runs && *runs < *S) *S = *runs;
    const ulong end = rs_seg_off(offsets, kind, *S), w = (end + RS_SS_TILE - 1) / RS_SS_TILE;
    return w < windows ? w : windows;
}

/* The number of segments s < S with offsets[s] <= p, searched from lo (offsets[s] <= p for every s < lo). */
inline ulong rs_ss_count(global const void *offsets, uint kind, ulong lo, ulong S, ulong p)
{
    ulong hi = S;
    while (lo < hi) {
        const ulong mid = lo + (hi - lo) / 2;
        if (rs_seg_off(offsets, kind, mid) <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The chunks of segments longer than RS_SS_TILE that start in window w (w < the live windows): up to two, seg[h] and
 * chunk ch[h] (h = 0: of the segment containing element 2048 w, h = 1: chunk 0 of one starting after it); returns
 * how many. */
inline uint rs_ss_window(global const void *offsets, uint kind, ulong S, ulong w, ulong *seg, ulong *ch)
{
    const ulong p = w * RS_SS_TILE, end = rs_seg_off(offsets, kind, S);
    const ulong q = end - p > RS_SS_TILE ? p + RS_SS_TILE - 1 : end - 1; /* the window's last element */
    uint m = 0;
    const ulong ca = rs_ss_count(offsets, kind, 0, S, p);
    if (ca > 0) {
        const ulong s = ca - 1, o = rs_seg_off(offsets, kind, s), len = rs_seg_off(offsets, kind, s + 1) - o;
        const ulong c = (p - o + RS_SS_TILE - 1) / RS_SS_TILE; /* the first chunk starting at or after p */
        if (len > RS_SS_TILE && c * RS_SS_TILE < len) {
            seg[m] = s;
            ch[m++] = c;
        }
    }
    const ulong cb = rs_ss_count(offsets, kind, ca, S, q);
    if (cb > ca) { /* segment cb - 1 starts in (p, q] */
        const ulong s = cb - 1, o = rs_seg_off(offsets, kind, s);
        if (rs_seg_off(offsets, kind, s + 1) - o > RS_SS_TILE) {
            seg[m] = s;
            ch[m++] = 0;
        }
    }
    return m;
}

/* A medium segment (RS_SS_SHORT < len <= RS_SS_TILE, one chunk, P = init) by its team; every work-item of the group
 * calls it (barriers), a team without a segment with len = 0. Lane l plays the block's work-items tt = l + 32r:
 * phase 1 folds sub-section tt (values 8 tt .. 8 tt + 7, the identity past len) into aux[tt]; phase 2 is the block's
 * Kogge-Stone over aux[0..255] (step d: aux[i] = aux[i - d] (+) aux[i] for i >= d); phase 3 folds the sub-section
 * again (the same operations, so the same bits as phase 1's values) and writes L[8 tt + k] = aux[tt - 1] (+) f[k]
 * (k < 7, tt > 0), f[k] (tt = 0), aux[tt] (k = 7), as init (+) L (exclusive: init (+) the previous L, the identity
 * at the start: aux[tt - 1] at k = 0). Rows past the segment (32 r >= rows) have nothing to do: aux[i] only takes
 * aux[i - d], so their totals never reach an output. A lane reads only its own sub-sections before writing them. */
inline void rs_ss_team(global const IN_T *in, global OUT_T *out, local T *aux, uint lane, ulong o, uint len, T init,
                       int exclusive)
{
    const uint rows = (len + RS_GROUP - 1) / RS_GROUP;
    for (uint r = 0; r < RS_SS_TEAMS; r++) {
        const uint tt = lane + RS_SS_TEAM * r;
        T acc = IDENTITY;
        if (r < rows) {
            for (uint k = 0; k < RS_COARSE_ITEMS; k++) {
                const uint i = tt * RS_COARSE_ITEMS + k;
                const T x = i < len ? RS_LOAD(in, o + i) : IDENTITY;
                acc = k == 0 ? x : rs_combine(acc, x);
            }
        }
        aux[tt] = acc;
    }
    for (uint d = 1; d < RS_GROUP; d <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        T tmp[RS_SS_TEAMS];
        for (uint r = 0; r < RS_SS_TEAMS; r++) {
            const uint i = lane + RS_SS_TEAM * r;
            tmp[r] = r < rows && i >= d ? rs_combine(aux[i - d], aux[i]) : aux[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint r = 0; r < RS_SS_TEAMS; r++) aux[lane + RS_SS_TEAM * r] = tmp[r];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < rows; r++) {
        const uint tt = lane + RS_SS_TEAM * r, first = tt * RS_COARSE_ITEMS;
        if (first >= len) continue;
        const T carry = tt > 0 ? aux[tt - 1] : IDENTITY;
        T acc = IDENTITY, prev = carry; /* prev: L of the element before (exclusive); the identity at the start */
        for (uint k = 0; k < RS_COARSE_ITEMS && first + k < len; k++) {
            const T x = RS_LOAD(in, o + first + k);
            acc = k == 0 ? x : rs_combine(acc, x);
            const T l = k == RS_COARSE_ITEMS - 1 ? aux[tt] : tt > 0 ? rs_combine(carry, acc) : acc;
            out[o + first + k] = RS_STORE(RS_OUT(rs_combine(init, exclusive ? prev : l)));
            prev = l;
        }
    }
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_short(
    global const IN_T *in, global OUT_T *out, global const void *offsets, uint kind, ulong S, global const uint *flags,
    T init, int exclusive, global const ulong *runs)
{
    local T aux[RS_SS_TEAMS * RS_GROUP];
    local ulong l_base[RS_GROUP];
    local uint l_len[RS_GROUP], l_n;
    const uint t = (uint)get_local_id(0), lane = t % RS_SS_TEAM, w = t / RS_SS_TEAM;
    if (flags[0]) return; /* uniform */
    if (runs && *runs < S) S = *runs;
    const ulong batches = (S + RS_GROUP - 1) / RS_GROUP;
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {
        if (t == 0) l_n = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong s = b * RS_GROUP + t;
        if (s < S) {
            const ulong o = rs_seg_off(offsets, kind, s), len = rs_seg_off(offsets, kind, s + 1) - o;
            if (len <= RS_SS_SHORT) {
                /* the whole segment, alone: P = init, L = work-item 0's left fold (phase 1 of the block scan) */
                T acc = IDENTITY;
                for (uint i = 0; i < (uint)len; i++) {
                    const T x = RS_LOAD(in, o + i);
                    const T prev = acc;
                    acc = i == 0 ? x : rs_combine(acc, x);
                    out[o + i] = RS_STORE(RS_OUT(rs_combine(init, exclusive ? (i == 0 ? IDENTITY : prev) : acc)));
                }
            } else if (len <= RS_SS_TILE) {
                const uint at = atomic_inc(&l_n); /* the order of the list changes no bits */
                l_base[at] = o;
                l_len[at] = (uint)len;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint m = l_n; /* the same in every work-item */
        for (uint e0 = 0; e0 < m; e0 += RS_SS_TEAMS) {
            const uint e = e0 + w;
            rs_ss_team(in, out, aux + w * RS_GROUP, lane, e < m ? l_base[e] : 0, e < m ? l_len[e] : 0, init,
                       exclusive);
            barrier(CLK_LOCAL_MEM_FENCE); /* aux is refilled */
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read l_n and the list before the next batch */
    }
}

/* The chunks of a batch of RS_SS_WB windows, listed by work-items 0 .. RS_SS_WB - 1 (all of them with all_chunks,
 * else those that are not their segment's last): place, start, count, chunk index. */
inline void rs_ss_list(global const void *offsets, uint kind, ulong S, ulong wins, ulong b, uint t, int all_chunks,
                       local uint *l_n, local ulong *l_pl, local ulong *l_base, local ulong *l_c, local uint *l_cnt)
{
    const ulong w = b * RS_SS_WB + t;
    if (t >= RS_SS_WB || w >= wins) return;
    ulong seg[2], ch[2];
    const uint m = rs_ss_window(offsets, kind, S, w, seg, ch);
    for (uint h = 0; h < m; h++) {
        const ulong o = rs_seg_off(offsets, kind, seg[h]), len = rs_seg_off(offsets, kind, seg[h] + 1) - o;
        const ulong nch = (len + RS_SS_TILE - 1) / RS_SS_TILE, c = ch[h];
        if (!all_chunks && c + 1 >= nch) continue;
        const uint at = atomic_inc(l_n); /* the order of the list changes no bits */
        l_pl[at] = w;
        l_base[at] = o + c * RS_SS_TILE;
        l_c[at] = c;
        l_cnt[at] = (uint)(len - c * RS_SS_TILE < RS_SS_TILE ? len - c * RS_SS_TILE : RS_SS_TILE);
    }
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_totals(
    global const IN_T *in, global const void *offsets, uint kind, ulong S, global const uint *flags, global T *tot,
    ulong windows, global const ulong *runs)
{
    local T s[RS_SS_TILE] __attribute__((aligned(16)));
    local T r[RS_GROUP];
    local ulong l_j[2 * RS_SS_WB], l_base[2 * RS_SS_WB], l_c[2 * RS_SS_WB];
    local uint l_cnt[2 * RS_SS_WB], l_n;
    const uint t = (uint)get_local_id(0);
    if (flags[0]) return; /* uniform */
    const ulong wins = rs_ss_live(offsets, kind, runs, &S, windows); /* uniform too */
    const ulong batches = (wins + RS_SS_WB - 1) / RS_SS_WB;
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {
        if (t == 0) l_n = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        rs_ss_list(offsets, kind, S, wins, b, t, 0, &l_n, l_j, l_base, l_c, l_cnt);
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint count = l_n;
        for (uint q = 0; q < count; q++) {
            const ulong base_q = l_base[q];
            rs_scan_load_in(s, in, base_q, base_q + RS_SS_TILE, RS_SS_TILE); /* a full chunk: not the last */
            barrier(CLK_LOCAL_MEM_FENCE);
            T acc = s[t * RS_COARSE_ITEMS];
            for (uint k = 1; k < RS_COARSE_ITEMS; ++k) acc = rs_combine(acc, s[t * RS_COARSE_ITEMS + k]);
            r[t] = acc;
            const T total = rs_scan_tree_total(r);
            if (t == 0) tot[l_j[q]] = total;
            barrier(CLK_LOCAL_MEM_FENCE); /* s and r are refilled */
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read l_n before the next batch resets it */
    }
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_groups(
    global const T *tot, global const void *offsets, uint kind, ulong S, global const uint *flags, global T *gsum,
    ulong windows, global const ulong *runs)
{
    if (flags[0]) return;
    const ulong wins = rs_ss_live(offsets, kind, runs, &S, windows);
    for (ulong w = get_global_id(0); w < wins; w += get_global_size(0)) {
        ulong seg[2], ch[2];
        const uint m = rs_ss_window(offsets, kind, S, w, seg, ch);
        for (uint h = 0; h < m; h++) {
            const ulong o = rs_seg_off(offsets, kind, seg[h]), len = rs_seg_off(offsets, kind, seg[h] + 1) - o;
            const ulong nch = (len + RS_SS_TILE - 1) / RS_SS_TILE, c = ch[h];
            if (c % RS_SS_CHAIN != 0 || c + RS_SS_CHAIN >= nch) continue; /* not a group's first, or the last group */
            T v = tot[w];
            for (uint p = 1; p < RS_SS_CHAIN; p++) v = rs_combine(v, tot[w + p]);
            gsum[w] = v;
        }
    }
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_chain(
    global const T *gsum, global const void *offsets, uint kind, ulong S, global const uint *flags, T init,
    global T *acar, ulong windows, global const ulong *runs)
{
    if (flags[0]) return;
    const ulong wins = rs_ss_live(offsets, kind, runs, &S, windows);
    for (ulong w = get_global_id(0); w < wins; w += get_global_size(0)) {
        ulong seg[2], ch[2];
        const uint m = rs_ss_window(offsets, kind, S, w, seg, ch);
        for (uint h = 0; h < m; h++) {
            if (ch[h] != 0) continue; /* the work-item of the segment's chunk 0 (place w) walks its chain */
            const ulong o = rs_seg_off(offsets, kind, seg[h]), len = rs_seg_off(offsets, kind, seg[h] + 1) - o;
            const ulong nch = (len + RS_SS_TILE - 1) / RS_SS_TILE;
            T a = init;
            for (ulong g = 1; g * RS_SS_CHAIN < nch; g++) {
                a = rs_combine(a, gsum[w + (g - 1) * RS_SS_CHAIN]);
                acar[w + g * RS_SS_CHAIN] = a;
            }
        }
    }
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_out(
    global const IN_T *in, global OUT_T *out, global const void *offsets, uint kind, ulong S, global const uint *flags,
    global const T *tot, global const T *acar, T init, int exclusive, ulong windows, global const ulong *runs)
{
    local T s[RS_SS_TILE] __attribute__((aligned(16)));
    local T aux[RS_AUX_COARSE];
    local ulong l_j[2 * RS_SS_WB], l_base[2 * RS_SS_WB], l_c[2 * RS_SS_WB];
    local uint l_cnt[2 * RS_SS_WB], l_n;
    local T l_p;
    const uint t = (uint)get_local_id(0);
    if (flags[0]) return; /* uniform */
    const ulong wins = rs_ss_live(offsets, kind, runs, &S, windows); /* uniform too */
    const ulong batches = (wins + RS_SS_WB - 1) / RS_SS_WB;
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {
        if (t == 0) l_n = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        rs_ss_list(offsets, kind, S, wins, b, t, 1, &l_n, l_j, l_base, l_c, l_cnt);
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint count = l_n;
        for (uint q = 0; q < count; q++) {
            const ulong jq = l_j[q], bq = l_base[q], cq = l_c[q], endq = bq + l_cnt[q];
            rs_scan_load_in(s, in, bq, endq, RS_SS_TILE);
            if (t == 0) {
                const uint p = (uint)(cq % RS_SS_CHAIN);
                const T a = cq >= RS_SS_CHAIN ? acar[jq - p] : init;
                T v = IDENTITY;
                for (uint i = 0; i < p; i++) v = i == 0 ? tot[jq - p] : rs_combine(v, tot[jq - p + i]);
                l_p = p ? rs_combine(a, v) : a;
            }
            rs_block_scan_coarse(s, aux); /* begins and ends with a barrier: l_p is visible after it */
            rs_scan_store(out, s, bq, endq, RS_SS_TILE, exclusive, l_p, 1);
            barrier(CLK_LOCAL_MEM_FENCE); /* s, aux and l_p are refilled */
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read l_n and the list before the next batch */
    }
}

/* ---------------------------------------------------------------- the chunk path in one pass (single pass)
 * Where the device has 64-bit atomics (cl_khr_int64_base_atomics), the long segments' chunks take one pass instead of
 * seg_scan_totals .. seg_scan_out: the flat single_pass's decoupled look-back (lookback.clh) with the segment's own
 * chunks as its tiles. Chunk c = 32 g + p of a segment whose chunk 0 has place k0 is tile c of the frame
 * {t0 = k0, g0 = places + k0 + 31, gstride = 32, origin = the segment's start}: its aggregate S[c] (the block scan's
 * last element, the same bits as the section-total expression) at slot k0 + c, T(g) and A(g) at the slot after the
 * chunk slots of the place of chunk 32 g + 31. The expression is the one above (single_pass's), so the bits do not
 * change; the look-back stops at the segment's chunk 0 (group -1 reads as init). A chunk's place is unique among
 * the chunks that publish (see the places above), so the slots need no segment index.
 *   seg_scan_zero(words, count)                        words[0 .. count) = 0 (the ticket counter and the slots; a
 *                                                       kernel, not a host fill: Oclgrind's shadow of a partially
 *                                                       filled buffer, scripts/oclgrind-repro/fill_shadow.c)
 *   seg_scan_marks(offsets, kind, S, flags, marks, windows, runs, lb)   marks[2w + h] = 1 + the segment of window
 *                                                       w's chunk h (rs_ss_window), 0 for none: the searches once per
 *                                                       window, in parallel, not in the pass's critical path; and
 *                                                       the uint at lb + 1 = 1 + the last window with a chunk (0:
 *                                                       none), so seg_scan_single takes no ticket past it and does
 *                                                       nothing when no segment is longer than a chunk
 *   seg_scan_single(in, out, offsets, kind, S, flags, lb, marks, init, exclusive, windows, places, spins, inplace,
 *                   runs)                               a work-group takes window w from the ticket counter lb[0]
 *                                                       (waits only for lower tickets), and for each of its chunks:
 *                                                       load, block scan, publish S (not a segment's last chunk),
 *                                                       look back (not chunk 0: P = init), A(g) (a closing chunk),
 *                                                       store P (+) L. spins: polls per slot before the slow path
 *                                                       (REDSCAN_SINGLE_PASS_SPINS, as the flat scan).
 * In place: S is published (and fenced) before the chunk's output overwrites its input, as in the flat kernel. */
#ifdef cl_khr_int64_base_atomics

kernel void seg_scan_zero(global ulong *words, ulong count)
{
    for (ulong i = get_global_id(0); i < count; i += get_global_size(0)) words[i] = 0;
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_marks(
    global const void *offsets, uint kind, ulong S, global const uint *flags, global ulong *marks, ulong windows,
    global const ulong *runs, global ulong *lb)
{
    local uint l_last;
    if (flags[0]) return; /* uniform */
    const ulong wins = rs_ss_live(offsets, kind, runs, &S, windows);
    uint last = 0; /* 1 + the last of this work-item's windows that holds a chunk */
    if (get_local_id(0) == 0) l_last = 0;
    for (ulong w = get_global_id(0); w < wins; w += get_global_size(0)) {
        ulong seg[2], ch[2];
        const uint m = rs_ss_window(offsets, kind, S, w, seg, ch);
        marks[2 * w] = m > 0 ? seg[0] + 1 : 0;
        marks[2 * w + 1] = m > 1 ? seg[1] + 1 : 0;
        if (m) last = (uint)w + 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (last) atomic_max(&l_last, last);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && l_last) atomic_max((volatile global uint *)(lb + 1), l_last);
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_single(
    global const IN_T *in, global OUT_T *out, global const void *offsets, uint kind, ulong S, global const uint *flags,
    global ulong *lb, global const ulong *marks, T init, int exclusive, ulong windows, ulong places, uint spins,
    int inplace, global const ulong *runs)
{
    local T s[RS_SS_TILE] __attribute__((aligned(16)));
    local T aux[RS_AUX_COARSE];
    local T r[RS_GROUP];
    local uint wst[RS_SP_GROUP + RS_SP_BACK];
    local T wv[RS_SP_GROUP + RS_SP_BACK];
    local ulong l_w, l_cmd, l_o, l_len, l_c;
    local int l_fold;
    local T l_p;
    const uint t = (uint)get_local_id(0);
    if (flags[0]) return; /* uniform */
    ulong wins = rs_ss_live(offsets, kind, runs, &S, windows); /* uniform too */
    const uint live = *(global const uint *)(lb + 1); /* seg_scan_marks' bound */
    if (live < wins) wins = live;
    if (!wins) return; /* no long segment: nothing to do (uniform) */
    global ulong *slots = lb + RS_SP_SLOT_BASE;
    for (;;) {
        if (t == 0) l_w = atom_inc(lb);
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong w = l_w;
        if (w >= wins) break;
        for (uint h = 0; h < 2; h++) {
            if (t == 0) { /* chunk h of window w: its segment's start and length, its index */
                const ulong e = marks[2 * w + h];
                l_len = 0;
                if (e) {
                    const ulong o = rs_seg_off(offsets, kind, e - 1), p0 = w * RS_SS_TILE;
                    l_o = o;
                    l_len = rs_seg_off(offsets, kind, e) - o;
                    l_c = o >= p0 ? 0 : (p0 - o + RS_SS_TILE - 1) / RS_SS_TILE;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const ulong len = l_len; /* uniform: 0 when window w has no chunk h */
            const ulong o = len ? l_o : 0, c = len ? l_c : 0;
            barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read them before work-item 0 writes chunk h + 1's */
            for (uint q = 0; q < (len ? 1u : 0u); q++) {
                const ulong nch = (len + RS_SS_TILE - 1) / RS_SS_TILE, base = o + c * RS_SS_TILE;
                const ulong end = c + 1 < nch ? base + RS_SS_TILE : o + len;
                const ulong g = c / RS_SP_GROUP;
                const uint p = (uint)(c % RS_SP_GROUP);
                const int last = c + 1 == nch, split = p == RS_SP_GROUP - 1 && !last;
                const rs_sp_frame fr = {w - c, places + (w - c) + RS_SP_GROUP - 1, RS_SP_GROUP, o};
                rs_scan_load_in(s, in, base, end, RS_SS_TILE);
                rs_block_scan_coarse(s, aux); /* begins and ends with a barrier */
                const T own = s[RS_SS_TILE - 1];
                if (t == 0 && !last) rs_sp_put(slots, w, RS_SP_AGG, own);
                T wf = IDENTITY, a = init; /* work-item 0's; chunk 0 needs no look-back: P = init */
                for (uint k = 0; k < (c ? 1u : 0u); k++)
                    rs_sp_lookback(in, o + len, RS_SS_TILE, slots, fr, g, p, split, 0, own, IDENTITY, spins, inplace,
                                   init, wst, wv, r, &l_cmd, &l_fold, &wf, &a);
                if (t == 0) {
                    l_p = p ? rs_combine(a, wf) : a;
                    if (split) rs_sp_put(slots, rs_sp_gslot(fr, g), RS_SP_INC, rs_combine(a, rs_combine(wf, own)));
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (inplace) mem_fence(CLK_GLOBAL_MEM_FENCE); /* S published before the input is overwritten */
                rs_scan_store(out, s, base, end, RS_SS_TILE, exclusive, l_p, 1);
                barrier(CLK_LOCAL_MEM_FENCE); /* s, l_p and the chunk's words are refilled */
            }
        }
    }
}

#endif /* cl_khr_int64_base_atomics */

/* ---------------------------------------------------------------- scan by key (docs/ALGORITHMS.md, "Scan by key")
 * Runs of equal adjacent keys become offsets on the device, then the kernels above run on them: a head is position
 * 0 or a key that differs from the one before; tiles of RS_SS_TILE positions (8 per work-item), group g of the G
 * launched taking a contiguous share of ceil or floor(nb / G) tiles (rs_byk_share), byk_count and byk_scatter with the
 * same G: so the prefix pass is over G counts (a few thousand at most), not nb, and no kernel has a serial chain.
 *   byk_count(keys, kkind, n, cnt)                    cnt[g] = the heads in group g's share
 *   byk_prefix(cnt, G, pre, offsets, runs, n)         pre[g] = the heads before group g's share (one group);
 *                                                      *runs = R, offsets[R] = n
 *   byk_scatter(keys, kkind, n, pre, offsets)         offsets[r] = the position of head r
 *   byk_gather(keys, kkind, offsets, runs, ukeys)     ukeys[r] = keys[offsets[r]] for r < R (reduce by key's unique
 *                                                      keys)
 * The _async forms do not know R on the host: their kernels read it from `runs` (seg_scan_*: rs_ss_live; reduce by
 * key: rs_seg_live), so offsets[0 .. R] are all that is ever written or read.
 * Keys are read by a kernel argument kkind (any integer redscan_dtype), compared as bits of their width. All counts
 * are integers: exact, whatever the order. */
/* rs_key, rs_key_put and rs_byk_heads: keys.clh */

/* This group's share of the nb tiles: [*b0, *b1), contiguous, the first nb % G groups one tile more (byk_count and
 * byk_scatter split the same way, so cnt[g] and pre[g] are the heads of the same tiles). */
inline void rs_byk_share(ulong nb, ulong *b0, ulong *b1)
{
    /* r = nb - q G, not nb % G: LLVM pairs a / and a % of the same operands with a `freeze`, which Oclgrind cannot
     * run (CI's kernel check: "Unsupported instruction: freeze") */
    const ulong G = get_num_groups(0), g = get_group_id(0), q = nb / G, r = nb - q * G;
    *b0 = g * q + (g < r ? g : r);
    *b1 = *b0 + q + (g < r ? 1 : 0);
}

/* Exclusive scan of one value per work-item (the group's 256 in work-item order) and its total, with two barriers:
 * 16 work-items each sum a row of 16 values, then every work-item adds the rows before its own and its row's values
 * before it (independent local loads, no serial chain). `l` and `rows` must not be rewritten until every work-item
 * has returned: the callers alternate two copies. */
#define RS_BYK_ROW 16
#define RS_BYK_SCAN(NAME, U)                                                                                          \
    inline U NAME(U x, local U *l, local U *rows, U *total)                                                          \
    {                                                                                                                \
        const uint t = (uint)get_local_id(0), q = t / RS_BYK_ROW, p = t % RS_BYK_ROW;                               \
        l[t] = x;                                                                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                \
        if (t < RS_GROUP / RS_BYK_ROW) {                                                                             \
            U s = 0;                                                                                                 \
            for (uint j = 0; j < RS_BYK_ROW; j++) s += l[t * RS_BYK_ROW + j];                                       \
            rows[t] = s;                                                                                             \
        }                                                                                                            \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                \
        U ex = 0, tot = 0;                                                                                           \
        for (uint j = 0; j < RS_GROUP / RS_BYK_ROW; j++) {                                                           \
            const U v = rows[j];                                                                                     \
            ex += j < q ? v : 0;                                                                                     \
            tot += v;                                                                                                \
        }                                                                                                            \
        for (uint j = 0; j < RS_BYK_ROW; j++) ex += j < p ? l[q * RS_BYK_ROW + j] : 0;                             \
        *total = tot;                                                                                                \
        return ex;                                                                                                   \
    }
RS_BYK_SCAN(rs_byk_scan_u32, uint)
RS_BYK_SCAN(rs_byk_scan_u64, ulong)

/* A group per share of tiles: each work-item counts its heads over the share's tiles in a register, one group sum
 * at the end (no barrier per tile). */
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void byk_count(global const void *keys, uint kkind,
                                                                             ulong n, global ulong *cnt)
{
    local ulong l_s[RS_GROUP], l_rows[RS_GROUP / RS_BYK_ROW];
    const uint t = (uint)get_local_id(0);
    ulong b0, b1, c = 0, tot;
    rs_byk_share((n + RS_SS_TILE - 1) / RS_SS_TILE, &b0, &b1);
    for (ulong b = b0; b < b1; b++)
        c += popcount(rs_byk_heads(keys, kkind, n, b * RS_SS_TILE + t * RS_COARSE_ITEMS));
    rs_byk_scan_u64(c, l_s, l_rows, &tot);
    if (t == 0) cnt[get_group_id(0)] = tot;
}

/* ng = the groups byk_count and byk_scatter run with (at most a few thousand: a fraction of a pass). Each work-item
 * sums a contiguous run of ceil(ng / 256) counts, one group scan of the 256 sums, then each writes its run's
 * prefixes. */
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void byk_prefix(global const ulong *cnt, ulong ng,
                                                                              global ulong *pre,
                                                                              global ulong *offsets,
                                                                              global ulong *runs, ulong n)
{
    local ulong l_s[RS_GROUP], l_rows[RS_GROUP / RS_BYK_ROW];
    const uint t = (uint)get_local_id(0);
    const ulong per = (ng + RS_GROUP - 1) / RS_GROUP, lo = t * per, hi = lo + per < ng ? lo + per : ng;
    ulong sum = 0, R;
    for (ulong b = lo; b < hi; b++) sum += cnt[b];
    ulong acc = rs_byk_scan_u64(sum, l_s, l_rows, &R);
    for (ulong b = lo; b < hi; b++) {
        pre[b] = acc;
        acc += cnt[b];
    }
    if (t == 0) {
        *runs = R;
        offsets[R] = n;
    }
}

/* The same shares as byk_count: the group's first run index pre[g], then tile by tile the in-tile ranks (one group
 * scan of the 256 head counts) and the running index. */
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void byk_scatter(global const void *keys, uint kkind,
                                                                               ulong n, global const ulong *pre,
                                                                               global ulong *offsets)
{
    local uint l_c[2][RS_GROUP], l_rows[2][RS_GROUP / RS_BYK_ROW];
    const uint t = (uint)get_local_id(0);
    ulong b0, b1;
    rs_byk_share((n + RS_SS_TILE - 1) / RS_SS_TILE, &b0, &b1);
    ulong base = pre[get_group_id(0)];
    uint par = 0;
    for (ulong b = b0; b < b1; b++, par ^= 1) {
        const ulong first = b * RS_SS_TILE + t * RS_COARSE_ITEMS;
        const uint m = rs_byk_heads(keys, kkind, n, first);
        uint tot;
        ulong r = base + rs_byk_scan_u32(popcount(m), l_c[par], l_rows[par], &tot);
        for (uint k = 0; k < RS_COARSE_ITEMS; k++)
            if (m & (1u << k)) offsets[r++] = first + k;
        base += tot;
    }
}

#ifdef cl_khr_int64_base_atomics
/* ---- the offsets in one pass (where the compiler has 64-bit atomics; the three kernels above elsewhere, or with
 * REDSCAN_SEGMENTED_SCAN_PATH=multi_pass). A work-group per ticket of RS_BYK_TICKET consecutive tiles (8192 keys),
 * the tickets taken in order from a ticket counter (words[0]); ticket b's slot words[1 + b] holds its head count
 * with status AGG, then the heads up to and including it with status INC (status in the top 2 bits: counts are below
 * 2^62). A group counts its ticket's heads, publishes the count, looks back for the heads before the ticket,
 * publishes that plus its count, and writes its heads' positions there: the keys are read once (byk_count and
 * byk_scatter read them twice). The counts are integers, so where a prefix comes from (a predecessor's INC, its
 * AGGs, or the slow path's recount) changes no offset. A ticket of several tiles puts more loads in flight per
 * look-back (a group per tile was latency-bound on the H100: docs/PERFORMANCE.md); its heads are ranked by one group
 * scan of the tiles' counts packed as 16-bit fields of a ulong (a tile has at most 2048).
 *   byk_single(keys, kkind, n, nt, words, offsets, runs, ukeys, spins)
 *       nt = ceil(n / 8192) tickets; words[0 .. nt] zeroed before (seg_scan_zero); the last ticket writes *runs = R,
 *       offsets[R] = n; where ukeys is not NULL (reduce by key) ukeys[r] = keys[offsets[r]] too, so byk_gather is
 *       left to the three-kernel path
 * Twin: kernels_cu/segmented_scan.cu. */
#define RS_BYK_TICKET 4u /* tiles a ticket: at most 4 (four 16-bit counts in one ulong scan) */
#define RS_BYK_AGG 1ul
#define RS_BYK_INC 2ul
#define RS_BYK_WORD(status, count) (((status) << 62) | (count))
#define RS_BYK_WIN 32u /* slots a look-back step reads */

/* Work-item t < 32 of the look-back window: slot i = j - t (tickets before 0 read as INC 0), up to `spins` reads
 * while it is empty (REDSCAN_SINGLE_PASS_SPINS, as the scans; 0: none, every ticket before is recounted, for the
 * tests). */
inline ulong rs_byk_poll(global ulong *words, long i, uint spins)
{
    if (i < 0) return RS_BYK_WORD(RS_BYK_INC, 0ul);
    ulong w = 0;
    for (uint k = 0; k < spins && !(w >> 62); k++) w = atom_add(words + 1 + i, 0ul);
    return w;
}

/* The heads of ticket b, by the whole group (the look-back's slow path: the ticket's group has not published yet). */
inline ulong rs_byk_recount(global const void *keys, uint kkind, ulong n, ulong b, local ulong *l_s, local ulong *rows)
{
    const ulong first = b * (RS_BYK_TICKET * RS_SS_TILE) + get_local_id(0) * RS_COARSE_ITEMS;
    ulong c = 0, tot;
    for (uint j = 0; j < RS_BYK_TICKET; j++) c += popcount(rs_byk_heads(keys, kkind, n, first + j * RS_SS_TILE));
    rs_byk_scan_u64(c, l_s, rows, &tot);
    return tot;
}

/* The heads before ticket `ticket` (> 0), by the whole group (uniform control flow: every work-item reads the same
 * window from local memory). Each step reads the 32 slots before j: the values of the newest AGGs up to the first INC are
 * added and the look-back ends there; an empty slot (its group still counting) is recounted from the keys and the
 * look-back goes on below it; 32 AGGs move the window down by 32. Nothing waits unboundedly. */
inline ulong rs_byk_lookback(global const void *keys, uint kkind, ulong n, global ulong *words, ulong ticket,
                             uint spins, local ulong *l_w, local ulong *l_s, local ulong *rows)
{
    const uint t = (uint)get_local_id(0);
    ulong ex = 0;
    long j = (long)ticket - 1; /* the newest ticket not yet counted */
    while (j >= 0) {
        if (t < RS_BYK_WIN) l_w[t] = rs_byk_poll(words, j - (long)t, spins);
        barrier(CLK_LOCAL_MEM_FENCE);
        uint q = 0, stop = 0; /* stop: 1 INC at q, 2 empty at q, 0 all 32 AGG */
        for (; q < RS_BYK_WIN && !stop; q++) {
            const ulong w = l_w[q], s = w >> 62;
            if (s == 0) stop = 2;
            else ex += w & ((1ul << 62) - 1);
            if (s == RS_BYK_INC) stop = 1;
        }
        /* q is one past the slot that stopped the scan (or 32) */
        barrier(CLK_LOCAL_MEM_FENCE); /* l_w is read by all before the next step refills it */
        if (stop == 1) break;
        if (stop == 2) {
            ex += rs_byk_recount(keys, kkind, n, (ulong)(j - (long)(q - 1)), l_s, rows);
            barrier(CLK_LOCAL_MEM_FENCE); /* l_s / rows are read by all before a later recount writes them */
        }
        j -= (long)q;
    }
    return ex;
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void byk_single(global const void *keys, uint kkind,
                                                                              ulong n, ulong nt, global ulong *words,
                                                                              global ulong *offsets,
                                                                              global ulong *runs,
                                                                              global void *ukeys, uint spins)
{
    local ulong l_c[RS_GROUP], l_rows[RS_GROUP / RS_BYK_ROW];
    local ulong l_s[RS_GROUP], l_srows[RS_GROUP / RS_BYK_ROW], l_w[RS_BYK_WIN];
    local ulong l_ticket;
    const uint t = (uint)get_local_id(0);
    if (t == 0) l_ticket = atom_inc(words);
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong ticket = l_ticket;
    if (ticket >= nt) return; /* uniform; never with nt groups */
    const ulong first = ticket * (RS_BYK_TICKET * RS_SS_TILE) + t * RS_COARSE_ITEMS;
    uint m[RS_BYK_TICKET];
    ulong packed = 0, tots;
    for (uint j = 0; j < RS_BYK_TICKET; j++) {
        m[j] = rs_byk_heads(keys, kkind, n, first + j * RS_SS_TILE);
        packed |= (ulong)popcount(m[j]) << (16 * j);
    }
    const ulong ranks = rs_byk_scan_u64(packed, l_c, l_rows, &tots); /* per tile: its heads before this work-item's */
    ulong tot = 0;
    for (uint j = 0; j < RS_BYK_TICKET; j++) tot += (tots >> (16 * j)) & 0xffffu;
    if (t == 0) atom_xchg(words + 1 + ticket, RS_BYK_WORD(ticket ? RS_BYK_AGG : RS_BYK_INC, tot));
    const ulong ex = ticket ? rs_byk_lookback(keys, kkind, n, words, ticket, spins, l_w, l_s, l_srows) : 0;
    if (t == 0) {
        if (ticket) atom_xchg(words + 1 + ticket, RS_BYK_WORD(RS_BYK_INC, ex + tot));
        if (ticket == nt - 1) {
            *runs = ex + tot;
            offsets[ex + tot] = n;
        }
    }
    ulong before = ex; /* the heads before tile j of the ticket */
    for (uint j = 0; j < RS_BYK_TICKET; j++) {
        ulong r = before + ((ranks >> (16 * j)) & 0xffffu);
        for (uint k = 0; k < RS_COARSE_ITEMS; k++)
            if (m[j] & (1u << k)) {
                const ulong p = first + j * RS_SS_TILE + k;
                offsets[r] = p;
                if (ukeys) rs_key_put(ukeys, kkind, r, rs_key(keys, kkind, p)); /* a line this group just read */
                r++;
            }
        before += (tots >> (16 * j)) & 0xffffu;
    }
}
#endif /* cl_khr_int64_base_atomics */

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void byk_gather(global const void *keys, uint kkind,
                                                                              global const ulong *offsets,
                                                                              global const ulong *runs,
                                                                              global void *ukeys)
{
    const ulong R = *runs;
    for (ulong r = get_global_id(0); r < R; r += get_global_size(0)) {
        rs_key_put(ukeys, kkind, r, rs_key(keys, kkind, offsets[r]));
    }
}
