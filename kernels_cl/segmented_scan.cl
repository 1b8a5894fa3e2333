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
 * Slots: chunk c of segment s is slot K(s) + c, K(s) = s + floor(offsets[s] / 2048) (strictly increasing in s, at
 * least ceil(len / 2048) slots per segment), so a slot finds its segment by a binary search over the offsets;
 * slots < S + floor(in_n / 2048) (the host's bound). Its per-chunk values are stored at its place
 * pl = K(s) + c - s = floor(offsets[s] / 2048) + c = floor(chunk start / 2048) (< floor(in_n / 2048) + 1: the
 * arrays do not grow with S). Two chunks that store a value never share a place: tot and gsum are stored for full
 * chunks only (not a segment's last), whose starts are 2048 or more apart; acar for chunk 32g (g >= 1), whose
 * starts are 32 x 2048 or more apart.
 *
 * runs: NULL, or the device word holding the real segment count R <= S (scan by key's _async form, which does not
 * know R on the host: S and slots are then its bounds for n segments). Every kernel reads it once (rs_ss_live):
 * segments from R on and slots from K(R) on are skipped at the cost of a compare, the binary searches cover
 * segments [0, R], and offsets[R + 1 ..] are never read.
 *
 *   seg_scan_totals(in, offsets, kind, S, flags, tot, slots, runs)     tot[pl] = S[c] for every chunk but a
 *                                                                       segment's last (the only ones any P uses)
 *   seg_scan_groups(tot, offsets, kind, S, flags, gsum, slots, runs)   gsum[pl] = T(g) at the place of chunk 32g,
 *                                                                       for every group but a segment's last; a
 *                                                                       work-item per slot
 *   seg_scan_chain(gsum, offsets, kind, S, flags, init, acar, runs)    acar[pl of chunk 32g] = A(g-1), g >= 1; a
 *                                                                       work-item per segment, left to right
 *   seg_scan_out(in, out, offsets, kind, S, flags, tot, acar, init, exclusive, slots, runs)
 *       out = P (+) L. A batch of 256 slots per group: a work-item whose slot is a segment of at most 8 elements
 *       writes it alone (the block scan of such a chunk is work-item 0's sequential left fold, L[i] = x0 (+) ... (+)
 *       xi, and P = init); the other chunks of the batch are then taken one after another by the whole group.
 * Every kernel writes nothing when seg_check found a fault (flags[0]). */
#define RS_SS_TILE RS_SECTION_COARSE
#define RS_SS_CHAIN 32
#define RS_SS_SHORT RS_COARSE_ITEMS

/* runs (scan by key's _async form): *S = R and *slots (when not NULL) at most K(R), the first slot past segment
 * R - 1's chunks (offsets[R] is the input's length, written with R). NULL: the bounds are the counts. */
inline void rs_ss_live(global const void *offsets, uint kind, global const ulong *runs, ulong *S, ulong *slots)
{
    if (!runs) return;
    const ulong R = *runs < *S ? *runs : *S;
    *S = R;
    if (!slots) return;
    const ulong k = R + rs_seg_off(offsets, kind, R) / RS_SS_TILE;
    if (k < *slots) *slots = k;
}

/* Slot j: 1 when it is a chunk: its place *at in tot / gsum / acar, chunk *c, first element *base, *cnt elements,
 * the segment's chunk count *nch; 0 otherwise. */
inline int rs_ss_slot(global const void *offsets, uint kind, ulong S, ulong j, ulong *at, ulong *c, ulong *base,
                      ulong *cnt, ulong *nch)
{
    ulong lo = 0, hi = S; /* lo = the number of segments whose first slot is <= j */
    while (lo < hi) {
        const ulong mid = lo + (hi - lo) / 2;
        if (mid + rs_seg_off(offsets, kind, mid) / RS_SS_TILE <= j) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    const ulong s = lo - 1, o = rs_seg_off(offsets, kind, s), len = rs_seg_off(offsets, kind, s + 1) - o;
    const ulong k = j - (s + o / RS_SS_TILE), n = (len + RS_SS_TILE - 1) / RS_SS_TILE;
    if (k >= n) return 0;
    *at = j - s;
    *c = k;
    *nch = n;
    *base = o + k * RS_SS_TILE;
    *cnt = len - k * RS_SS_TILE < RS_SS_TILE ? len - k * RS_SS_TILE : RS_SS_TILE;
    return 1;
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_totals(
    global const IN_T *in, global const void *offsets, uint kind, ulong S, global const uint *flags, global T *tot,
    ulong slots, global const ulong *runs)
{
    local T s[RS_SS_TILE] __attribute__((aligned(16)));
    local T r[RS_GROUP];
    local ulong l_j[RS_GROUP], l_base[RS_GROUP];
    local uint l_n;
    const uint t = (uint)get_local_id(0);
    if (flags[0]) return; /* uniform */
    rs_ss_live(offsets, kind, runs, &S, &slots); /* uniform too: the groups past K(R) do nothing */
    const ulong batches = (slots + RS_GROUP - 1) / RS_GROUP;
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {
        if (t == 0) l_n = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong j = b * RS_GROUP + t;
        ulong pl, c, base, cnt, nch;
        if (j < slots && rs_ss_slot(offsets, kind, S, j, &pl, &c, &base, &cnt, &nch) && c + 1 < nch) {
            const uint at = atomic_inc(&l_n); /* the order of the list changes no bits */
            l_j[at] = pl;
            l_base[at] = base;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint count = l_n;
        for (uint q = 0; q < count; q++) {
            const ulong base_q = l_base[q];
            rs_scan_load_in(s, in, base_q, base_q + RS_SS_TILE, RS_SS_TILE);
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
    ulong slots, global const ulong *runs)
{
    if (flags[0]) return;
    rs_ss_live(offsets, kind, runs, &S, &slots);
    for (ulong j = get_global_id(0); j < slots; j += get_global_size(0)) {
        ulong pl, c, base, cnt, nch;
        if (!rs_ss_slot(offsets, kind, S, j, &pl, &c, &base, &cnt, &nch)) continue;
        if (c % RS_SS_CHAIN != 0 || c + RS_SS_CHAIN >= nch) continue; /* not a group's first, or the last group */
        T w = tot[pl];
        for (uint p = 1; p < RS_SS_CHAIN; p++) w = rs_combine(w, tot[pl + p]);
        gsum[pl] = w;
    }
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_chain(
    global const T *gsum, global const void *offsets, uint kind, ulong S, global const uint *flags, T init,
    global T *acar, global const ulong *runs)
{
    if (flags[0]) return;
    rs_ss_live(offsets, kind, runs, &S, 0);
    for (ulong s = get_global_id(0); s < S; s += get_global_size(0)) {
        const ulong o = rs_seg_off(offsets, kind, s), len = rs_seg_off(offsets, kind, s + 1) - o;
        const ulong nch = (len + RS_SS_TILE - 1) / RS_SS_TILE, k0 = o / RS_SS_TILE; /* chunk 0's place */
        T a = init;
        for (ulong g = 1; g * RS_SS_CHAIN < nch; g++) {
            a = rs_combine(a, gsum[k0 + (g - 1) * RS_SS_CHAIN]);
            acar[k0 + g * RS_SS_CHAIN] = a;
        }
    }
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_scan_out(
    global const IN_T *in, global OUT_T *out, global const void *offsets, uint kind, ulong S, global const uint *flags,
    global const T *tot, global const T *acar, T init, int exclusive, ulong slots, global const ulong *runs)
{
    local T s[RS_SS_TILE] __attribute__((aligned(16)));
    local T aux[RS_AUX_COARSE];
    local ulong l_j[RS_GROUP], l_base[RS_GROUP], l_c[RS_GROUP];
    local uint l_cnt[RS_GROUP];
    local uint l_n;
    local T l_p;
    const uint t = (uint)get_local_id(0);
    if (flags[0]) return; /* uniform */
    rs_ss_live(offsets, kind, runs, &S, &slots); /* uniform too: the groups past K(R) do nothing */
    const ulong batches = (slots + RS_GROUP - 1) / RS_GROUP;
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {
        if (t == 0) l_n = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong j = b * RS_GROUP + t;
        ulong pl, c, base, cnt, nch;
        if (j < slots && rs_ss_slot(offsets, kind, S, j, &pl, &c, &base, &cnt, &nch)) {
            if (cnt <= RS_SS_SHORT && nch == 1) {
                /* the whole segment, alone: P = init, L = work-item 0's left fold (phase 1 of the block scan) */
                T acc = IDENTITY;
                for (uint i = 0; i < (uint)cnt; i++) {
                    const T x = RS_LOAD(in, base + i);
                    const T prev = acc;
                    acc = i == 0 ? x : rs_combine(acc, x);
                    out[base + i] = RS_STORE(RS_OUT(rs_combine(init, exclusive ? (i == 0 ? IDENTITY : prev) : acc)));
                }
            } else {
                const uint at = atomic_inc(&l_n);
                l_j[at] = pl;
                l_base[at] = base;
                l_c[at] = c;
                l_cnt[at] = (uint)cnt;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint count = l_n;
        for (uint q = 0; q < count; q++) {
            const ulong jq = l_j[q], bq = l_base[q], cq = l_c[q], endq = bq + l_cnt[q];
            rs_scan_load_in(s, in, bq, endq, RS_SS_TILE);
            if (t == 0) {
                const uint p = (uint)(cq % RS_SS_CHAIN);
                const T a = cq >= RS_SS_CHAIN ? acar[jq - p] : init;
                T w = IDENTITY;
                for (uint i = 0; i < p; i++) w = i == 0 ? tot[jq - p] : rs_combine(w, tot[jq - p + i]);
                l_p = p ? rs_combine(a, w) : a;
            }
            rs_block_scan_coarse(s, aux); /* begins and ends with a barrier: l_p is visible after it */
            rs_scan_store(out, s, bq, endq, RS_SS_TILE, exclusive, l_p, 1);
            barrier(CLK_LOCAL_MEM_FENCE); /* s, aux and l_p are refilled */
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read l_n and the list before the next batch */
    }
}

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
inline ulong rs_key(global const void *k, uint kkind, ulong i)
{
    if (kkind == RS_INT8 || kkind == RS_UINT8) return ((global const uchar *)k)[i];
    if (kkind == RS_INT16 || kkind == RS_UINT16) return ((global const ushort *)k)[i];
    if (kkind == RS_INT32 || kkind == RS_UINT32) return ((global const uint *)k)[i];
    return ((global const ulong *)k)[i];
}

/* The head mask of positions first .. first + 7 (bit k: first + k is a head). A work-item's 8 keys are read as one
 * vector of their width (vload8: the scalar's alignment only), the key before them as one scalar (mostly a cache
 * hit: the previous work-item's line); only a tile's last work-items past n take the bounded scalar path. */
#define RS_BYK_UNPACK8(v, k)                                                                                          \
    do {                                                                                                             \
        k[0] = v.s0; k[1] = v.s1; k[2] = v.s2; k[3] = v.s3; k[4] = v.s4; k[5] = v.s5; k[6] = v.s6; k[7] = v.s7;     \
    } while (0)

inline uint rs_byk_heads(global const void *keys, uint kkind, ulong n, ulong first)
{
    uint m = 0;
    if (first + RS_COARSE_ITEMS > n) {
        for (uint k = 0; k < RS_COARSE_ITEMS; k++) {
            const ulong i = first + k;
            if (i < n && (i == 0 || rs_key(keys, kkind, i) != rs_key(keys, kkind, i - 1))) m |= 1u << k;
        }
        return m;
    }
    ulong k[RS_COARSE_ITEMS];
    if (kkind == RS_INT8 || kkind == RS_UINT8) {
        const uchar8 v = vload8(0, (global const uchar *)keys + first);
        RS_BYK_UNPACK8(v, k);
    } else if (kkind == RS_INT16 || kkind == RS_UINT16) {
        const ushort8 v = vload8(0, (global const ushort *)keys + first);
        RS_BYK_UNPACK8(v, k);
    } else if (kkind == RS_INT32 || kkind == RS_UINT32) {
        const uint8 v = vload8(0, (global const uint *)keys + first);
        RS_BYK_UNPACK8(v, k);
    } else {
        const ulong8 v = vload8(0, (global const ulong *)keys + first);
        RS_BYK_UNPACK8(v, k);
    }
    m = first == 0 || k[0] != rs_key(keys, kkind, first - 1) ? 1u : 0u;
    for (uint j = 1; j < RS_COARSE_ITEMS; j++) m |= k[j] != k[j - 1] ? 1u << j : 0u;
    return m;
}

/* This group's share of the nb tiles: [*b0, *b1), contiguous, the first nb % G groups one tile more (byk_count and
 * byk_scatter split the same way, so cnt[g] and pre[g] are the heads of the same tiles). */
inline void rs_byk_share(ulong nb, ulong *b0, ulong *b1)
{
    const ulong G = get_num_groups(0), g = get_group_id(0), q = nb / G, r = nb % G;
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

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void byk_gather(global const void *keys, uint kkind,
                                                                              global const ulong *offsets,
                                                                              global const ulong *runs,
                                                                              global void *ukeys)
{
    const ulong R = *runs;
    for (ulong r = get_global_id(0); r < R; r += get_global_size(0)) {
        const ulong k = rs_key(keys, kkind, offsets[r]); /* the key's bits, zero-extended: stored back in its width */
        if (kkind == RS_INT8 || kkind == RS_UINT8) ((global uchar *)ukeys)[r] = (uchar)k;
        else if (kkind == RS_INT16 || kkind == RS_UINT16) ((global ushort *)ukeys)[r] = (ushort)k;
        else if (kkind == RS_INT32 || kkind == RS_UINT32) ((global uint *)ukeys)[r] = (uint)k;
        else ((global ulong *)ukeys)[r] = k;
    }
}
