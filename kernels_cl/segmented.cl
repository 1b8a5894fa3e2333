/* Segmented reduction and argmin / argmax (docs/ALGORITHMS.md, "Segments"). Twin: kernels_cu/segmented.cu.
 *
 * Segment s is in[offsets[s] .. offsets[s+1]). Its result is the coarsened reduction of that slice alone, bit for
 * bit: chunks of RS_SEG_TILE = 4096 elements counted from the segment's own start, each reduced by the coarsened
 * tile expression (reduce_coarsened.cl), then the chunk values by the same expression, level after level, until
 * one is left - the passes of rs_ocl_reduce applied to the slice.
 *
 * Work decomposition (the reduction; argmin / argmax keep the slots below):
 *   seg_short   a work-item per segment (offsets read coalesced): empty -> RS_SEG_EMPTY; up to RS_SEG_SHORT = 32
 *               values -> its own fold (RS_SEG_SERIAL: the tile's work-items 0..7 hold four values each, the rest
 *               the identity, and combining with the identity is exact); up to RS_SEG_TILE -> the queue
 *   seg_medium  a team of 32 work-items per queued segment: the tile expression (RS_SEG_TEAM_FOLD)
 *   seg_tiles   segments longer than a tile: a team per tile of the input at level 0 (found by rs_seg_find, two
 *               33-ary searches of the offsets per tile), per tile again at levels >= 1 for the chunk values
 * So a segment's cost is its own values (and a search per tile for a long one), whatever the other segments.
 *
 * Argmin / argmax, the same at every level l (level 0 reads the input, level l + 1 the partials of level l):
 *   P_0(s) = offsets[s], P_{l+1}(s) = s + P_l(s) / 4096    where segment s's level-l values start
 *   len_0(s) = offsets[s+1] - offsets[s], len_{l+1}(s) = ceil(len_l(s) / 4096)
 *   slots K_l(s) = P_{l+1}(s) .. K_l(s+1) - 1 belong to segment s at level l: slot K_l(s) + c is chunk c
 * K_l is strictly increasing in s and gives every segment at least ceil(len_l / 4096) slots (and at most one more),
 * so a slot maps to its segment by a binary search over offsets, with no scan and no host round trip, and a
 * chunk's pair is stored at its slot: where level l + 1 expects segment s's values. Every slot is one warp's
 * work (32 work-items, one chunk).
 *
 * The team's tile expression (both): lane j stands for the tile's work-items j + 32r (r = 0..7): it folds their 16
 * elements each (k outer, v inner, from the identity, identity past the chunk's end), then levels s = 128, 64, 32 of
 * the sequential-addressing tree combine the lane's own rows (r with r + 4, r + 2, r + 1), and s = 16 .. 1 go
 * through local memory: the same operands in the same order as rs_tree_seq.
 *
 * Offsets are read as any of INT32 / UINT32 / INT64 / UINT64 (kind = the redscan_dtype, a kernel argument: one
 * program for all four). seg_check validates them on the device; the reductions do nothing when it found a fault,
 * so the output stays untouched.
 *   seg_check(offsets, kind, S, n, flags, sticky)               flags[0]: this call's faults; sticky[0]: faults
 *                                                                since the last report, sticky[1]: their smallest
 *                                                                faulty index (saturated). Two buffers on OpenCL:
 *                                                                each host write covers a whole buffer (Oclgrind)
 *   seg_short(src, offsets, kind, S, out, queue, flags, runs)   runs: NULL, or the device word holding the real
 *                                                                segment count R <= S (reduce by key's _async form)
 *   seg_medium(src, queue, q_bound, out, flags)
 *   seg_tiles_in / _t(src, offsets, kind, S, level, tiles, dst, out, marks, flags, runs, queue)
 *   seg_argext_in(src, offsets, kind, S, part_v, part_i, out_v, has_v, out_i, flags, slots)   (RS_SEG_ARGEXT)
 *   seg_argext_pairs(src_v, src_i, offsets, kind, S, level, part_v, part_i, out_v, has_v, out_i, flags, slots) */
#define RS_SEG_TILE 4096 /* RS_COARSE_TILE of reduce_coarsened.cl */
#define RS_SEG_K 4
#define RS_SEG_V 4
#define RS_SEG_LANES 32
#define RS_SEG_ROWS (RS_GROUP / RS_SEG_LANES) /* 8: rows of a lane, and warps of a group */
#define RS_SEG_PAD ((ulong)-1)
#define RS_SEG_SHORT 32 /* seg_short: a segment of up to this many elements is one work-item's */
#define RS_SEG_NONE ((ulong)-1) /* first / cont: no segment */
#define RS_SEG_LEN_SHIFT 48 /* a queue entry: the segment index | its length << 48, then its offset */
#define RS_SEG_SEG_MASK (((ulong)1 << RS_SEG_LEN_SHIFT) - 1)

/* The faults seg_check records (bits of flags[0] / flags[1]); backend_*: RS_SEG_FAULT_*. */
#define RS_SEG_DECREASING 1u
#define RS_SEG_NEGATIVE 2u
#define RS_SEG_PAST_END 4u

inline ulong rs_seg_off(global const void *p, uint kind, ulong s)
{
    if (kind == RS_INT32) return (ulong)(long)((global const int *)p)[s];
    if (kind == RS_UINT32) return (ulong)((global const uint *)p)[s];
    if (kind == RS_INT64) return (ulong)((global const long *)p)[s];
    return ((global const ulong *)p)[s];
}

/* P_level(s) from P_0 = o */
inline ulong rs_seg_start(ulong s, ulong o, uint level)
{
    for (uint i = 0; i < level; i++) o = s + o / RS_SEG_TILE;
    return o;
}

inline ulong rs_seg_len(ulong len, uint level)
{
    for (uint i = 0; i < level; i++) len = (len + RS_SEG_TILE - 1) / RS_SEG_TILE;
    return len;
}

kernel void seg_check(global const void *offsets, uint kind, ulong S, ulong n, global uint *flags, global uint *sticky)
{
    const ulong s = get_global_id(0);
    if (s > S) return;
    const ulong o = rs_seg_off(offsets, kind, s);
    uint bad = 0;
    if ((kind == RS_INT32 || kind == RS_INT64) && (long)o < 0) bad |= RS_SEG_NEGATIVE;
    if (s < S && o > rs_seg_off(offsets, kind, s + 1)) bad |= RS_SEG_DECREASING;
    if (s == S && o > n) bad |= RS_SEG_PAST_END;
    if (bad) {
        atomic_or(&flags[0], bad);
        atomic_or(&sticky[0], bad);
        atomic_min(&sticky[1], s < 0xffffffffu ? (uint)s : 0xffffffffu);
    }
}

/* The live segment count: the host's S, or the device word of reduce by key's _async form (R <= S). */
inline ulong rs_seg_count(global const ulong *runs, ulong S) { return runs && *runs < S ? *runs : S; }

/* What slot j of level `level` does: its segment *seg, chunk start *base (into the level's values) and element count
 * *cnt; returns 0 (nothing), 1 (a partial into slot j), 2 (the segment's result), 3 (an empty segment's result). */
inline int rs_seg_slot(global const void *offsets, uint kind, ulong S, uint level, ulong j, ulong *seg, ulong *base,
                       ulong *cnt)
{
    ulong lo = 0, hi = S; /* lo = the number of segments whose first slot is <= j */
    while (lo < hi) {
        const ulong mid = lo + (hi - lo) / 2;
        if (rs_seg_start(mid, rs_seg_off(offsets, kind, mid), level + 1) <= j) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    const ulong s = lo - 1, o = rs_seg_off(offsets, kind, s);
    const ulong c = j - rs_seg_start(s, o, level + 1);
    const ulong len = rs_seg_len(rs_seg_off(offsets, kind, s + 1) - o, level);
    *seg = s;
    if (level == 0 && len == 0) return c == 0 ? 3 : 0;
    if ((level > 0 && len < 2) || c >= (len + RS_SEG_TILE - 1) / RS_SEG_TILE) return 0;
    *base = rs_seg_start(s, o, level) + c * RS_SEG_TILE;
    *cnt = len - c * RS_SEG_TILE < RS_SEG_TILE ? len - c * RS_SEG_TILE : RS_SEG_TILE;
    return len <= RS_SEG_TILE ? 2 : 1;
}

/* The batch loop shared by every kernel: group g takes batches g, g + G, ... of 8 slots (one per warp); lane 0 of
 * each warp maps its slot (rs_seg_slot) into local memory. The loop bound is uniform, so every barrier in BODY is
 * reached by the whole group. BODY sees: t, lane, w, what, seg, base, cnt, j. */
#define RS_SEG_LOOP(LEVEL, BODY)                                                                          \
    local int l_what[RS_SEG_ROWS];                                                                        \
    local ulong l_seg[RS_SEG_ROWS], l_base[RS_SEG_ROWS], l_cnt[RS_SEG_ROWS];                              \
    const uint t = get_local_id(0), lane = t % RS_SEG_LANES, w = t / RS_SEG_LANES;                       \
    if (flags[0]) return; /* the offsets are faulty (seg_check): write nothing; uniform */               \
    const ulong batches = (slots + RS_SEG_ROWS - 1) / RS_SEG_ROWS;                                        \
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {                                \
        const ulong j = b * RS_SEG_ROWS + w;                                                              \
        if (lane == 0) {                                                                                  \
            ulong sg = 0, bs = 0, ct = 0;                                                                 \
            l_what[w] = j < slots ? rs_seg_slot(offsets, kind, S, (LEVEL), j, &sg, &bs, &ct) : 0;         \
            l_seg[w] = sg;                                                                                \
            l_base[w] = bs;                                                                               \
            l_cnt[w] = ct;                                                                                \
        }                                                                                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
        const int what = l_what[w];                                                                       \
        const ulong seg = l_seg[w], base = l_base[w], cnt = l_cnt[w];                                     \
        BODY                                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE); /* the next batch rewrites local memory */                          \
    }

#if defined(RS_SEG_SCAN)
/* the segmented scan program (segmented_scan.cl) takes rs_seg_off and seg_check from here */
#elif !defined(RS_SEG_ARGEXT)
/* ---------------------------------------------------------------- reduce */

/* A segment of nothing: the documented result of a reduction of n = 0 (+0 for float sums, not -0.0). */
#if T_IS_FLOAT && RS_OP == RS_SUM
#define RS_SEG_EMPTY ((T)0)
#else
#define RS_SEG_EMPTY IDENTITY
#endif

/* The coarsened tile expression of cnt <= RS_SEG_TILE values, value i = CVT(src[IDX(i)]), by the team of 32
 * work-items (lane = 0..31): lane j stands for the tile's work-items j + 32r (r = 0..7) and folds their values
 * (k outer, v inner; each row has its own accumulator, so the loop order of r and k changes nothing); values past
 * cnt are the identity and are skipped (x (+) identity == x exactly for every op: -0.0 for float sums, +-inf for
 * min / max with ties to the left). Then levels s = 128, 64, 32 of the tree combine the lane's rows. */
#define RS_SEG_TEAM_FOLD(acc, cnt, CVT, IDX)                                                                    \
    for (uint r = 0; r < RS_SEG_ROWS; r++) acc[r] = IDENTITY;                                               \
    for (uint k = 0; (ulong)k * RS_GROUP * RS_SEG_V < (cnt); k++)                                          \
        for (uint r = 0; r < RS_SEG_ROWS; r++) {                                                            \
            const uint tt = lane + RS_SEG_LANES * r; /* the work-item of the tile this row stands for */   \
            if ((ulong)k * RS_GROUP * RS_SEG_V + RS_SEG_LANES * RS_SEG_V * r >= (cnt)) break; /* no values */ \
            for (uint v = 0; v < RS_SEG_V; v++) {                                                           \
                const ulong i = (ulong)k * RS_GROUP * RS_SEG_V + tt * RS_SEG_V + v;                         \
                if (i < (cnt)) acc[r] = rs_combine(acc[r], CVT(src[IDX(i)]));                                   \
            }                                                                                               \
        }                                                                                                   \
    for (uint r = 0; r < 4; r++) acc[r] = rs_combine(acc[r], acc[r + 4]); /* s = 128 */                    \
    for (uint r = 0; r < 2; r++) acc[r] = rs_combine(acc[r], acc[r + 2]); /* s = 64 */                     \
    acc[0] = rs_combine(acc[0], acc[1]);                                  /* s = 32 */

/* Levels s = 16 .. 1 of the tree across the team's lanes in local memory (rs_tree_seq's operands and order); the
 * team's result is returned to lane 0. Every work-item of the group calls it (barriers). */
inline T rs_seg_team_tree(local T *l, uint t, uint lane, T v)
{
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous tree's reads are done */
    l[t] = v;
    for (uint s = RS_SEG_LANES / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lane < s) l[t] = rs_combine(l[t], l[t + s]);
    }
    return l[t];
}

/* The tile expression of a segment of len <= RS_SEG_SHORT values by one work-item: the tile's work-items 0..7 hold
 * four values each (the others hold the identity), so levels s = 128 .. 8 of the tree combine with the identity
 * and change nothing, and s = 4, 2, 1 remain. */
#define RS_SEG_SERIAL(res, len, IDX)                                                                       \
    {                                                                                                       \
        T a_[8];                                                                                            \
        for (uint r = 0; r < 8; r++) a_[r] = IDENTITY;                                                      \
        for (uint g = 0; g < RS_SEG_SHORT / RS_SEG_V && g * RS_SEG_V < (len); g++) /* leaf g */            \
            for (uint v = 0; v < RS_SEG_V; v++)                                                             \
                if (g * RS_SEG_V + v < (len)) a_[g] = rs_combine(a_[g], RS_CVT_IN(src[IDX(g * RS_SEG_V + v)])); \
        for (uint r = 0; r < 4; r++) a_[r] = rs_combine(a_[r], a_[r + 4]);                                  \
        for (uint r = 0; r < 2; r++) a_[r] = rs_combine(a_[r], a_[r + 2]);                                  \
        res = rs_combine(a_[0], a_[1]);                                                                     \
    }

#define RS_SEG_IDX_AT(i) (o + (i))
#define RS_SEG_IDX_BASE(i) (base + (i))
/* seg_short: level 0 for every segment of up to RS_SEG_TILE elements, segment-major. Group g takes batches g,
 * g + G, ... of 256 consecutive segments, one per work-item, reading offsets[s] and offsets[s+1] (coalesced): an
 * empty segment stores RS_SEG_EMPTY, one of up to RS_SEG_SHORT elements is reduced by its work-item alone
 * (RS_SEG_SERIAL), one of up to RS_SEG_TILE is appended to the queue for seg_medium (one global atomic per batch:
 * the batch's entries are listed in local memory first; an entry is two words, the segment index | its length <<
 * RS_SEG_LEN_SHIFT and its offset, so that seg_medium reads no offsets). Longer segments are seg_tiles' work. The
 * queue's order changes no bits: each segment's result depends on its own values only.
 * queue: a uint count at its start (zeroed by seg_queue_zero before the call), the entries from queue[1]; the uint
 * after the count (zeroed with it) becomes 1 when a segment is longer than RS_SEG_TILE, and seg_tiles runs only then. */
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_short(
    global const IN_T *src, global const void *offsets, uint kind, ulong S_bound, global OUT_T *out,
    global ulong *queue, global const uint *flags, global const ulong *runs)
{
    local ulong l_seg[RS_GROUP], l_base[RS_GROUP], l_segt[RS_GROUP], l_baset[RS_GROUP];
    local uint l_flag[RS_GROUP], l_n, l_at;
    const uint t = get_local_id(0);
    if (flags[0]) return; /* faulty offsets (seg_check): write nothing; uniform */
    const ulong S = rs_seg_count(runs, S_bound);
    const ulong batches = (S + RS_GROUP - 1) / RS_GROUP;
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {
        const ulong s = b * RS_GROUP + t;
        uint medium = 0;
        ulong entry = 0, base = 0;
        if (s < S) {
            const ulong o = rs_seg_off(offsets, kind, s), len = rs_seg_off(offsets, kind, s + 1) - o;
            if (len == 0) {
                out[s] = RS_STORE(RS_SEG_EMPTY);
            } else if (len <= RS_SEG_SHORT) {
                T res;
                RS_SEG_SERIAL(res, len, RS_SEG_IDX_AT)
                out[s] = RS_STORE(RS_OUT(res));
            } else if (len <= RS_SEG_TILE) {
                medium = 1;
                entry = s | len << RS_SEG_LEN_SHIFT;
                base = o;
            } else {
                medium = 2; /* seg_tiles' */
            }
        }
        l_flag[t] = medium;
        l_segt[t] = entry;
        l_baset[t] = base;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* the batch's medium segments listed by work-item 0 (not by local atomics, whose results Oclgrind's
         * uninitialized-value check takes for uninitialized), then one global atomic reserves their places */
        if (t == 0) {
            uint k = 0, longer = 0;
            for (uint j = 0; j < RS_GROUP; j++) {
                if (l_flag[j] == 1) {
                    l_seg[k] = l_segt[j];
                    l_base[k] = l_baset[j];
                    k++;
                }
                longer |= l_flag[j] == 2;
            }
            if (longer) ((global uint *)queue)[1] = 1;
            l_n = k;
            l_at = k ? atomic_add((global uint *)queue, k) : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < l_n) {
            queue[1 + 2 * ((ulong)l_at + t)] = l_seg[t];
            queue[2 + 2 * ((ulong)l_at + t)] = l_base[t];
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the lists are rewritten by the next batch */
    }
}

/* The queue's count zeroed on the device before seg_short (a host write or fill of part of a buffer would make
 * Oclgrind's uninitialized-value check take the rest of it for uninitialized for good:
 * scripts/oclgrind-repro/fill_shadow.c). */
kernel void seg_queue_zero(global ulong *queue)
{
    if (get_global_id(0) == 0) queue[0] = 0;
}

/* seg_medium: the queued segments (more than RS_SEG_SHORT, at most RS_SEG_TILE elements), a team each: the tile
 * expression over the segment (RS_SEG_TEAM_FOLD). The queue is cut into tasks of c consecutive entries, c = m / (the
 * grid's teams) within 1 .. 32 (enough tasks for every team, few dependent loads per entry); team w of group g takes
 * tasks 8g + w, then 8 (g + G) + w, ...; its lanes read the task's entries into local memory. q_bound: the queue's
 * capacity (the count never exceeds it). */
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_medium(
    global const IN_T *src, global const ulong *queue, ulong q_bound, global OUT_T *out, global const uint *flags)
{
    local T l[RS_GROUP];
    local ulong l_seg[RS_GROUP], l_base[RS_GROUP];
    const uint t = get_local_id(0), lane = t % RS_SEG_LANES, w = t / RS_SEG_LANES;
    if (flags[0]) return;
    const ulong qn = *(global const uint *)queue, m = qn < q_bound ? qn : q_bound;
    const ulong teams = (ulong)get_num_groups(0) * RS_SEG_ROWS, per = m / teams;
    const uint c = per < 1 ? 1 : per > RS_SEG_LANES ? RS_SEG_LANES : (uint)per;
    const ulong tasks = (m + c - 1) / c, batches = (tasks + RS_SEG_ROWS - 1) / RS_SEG_ROWS;
    for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {
        const ulong first = (b * RS_SEG_ROWS + w) * c, et = first + lane;
        l_seg[t] = lane < c && et < m ? queue[1 + 2 * et] : 0;
        l_base[t] = lane < c && et < m ? queue[2 + 2 * et] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < c; j++) { /* uniform: every team of the group does c rounds */
            const uint x = w * RS_SEG_LANES + j;
            const ulong e = first + j, base = l_base[x];
            const ulong cnt = e < m ? l_seg[x] >> RS_SEG_LEN_SHIFT : 0;
            T acc[RS_SEG_ROWS];
            RS_SEG_TEAM_FOLD(acc, cnt, RS_CVT_IN, RS_SEG_IDX_BASE)
            const T v = rs_seg_team_tree(l, t, lane, acc[0]);
            if (lane == 0 && e < m) out[l_seg[x] & RS_SEG_SEG_MASK] = RS_STORE(RS_OUT(v));
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the lists are rewritten by the next batch */
    }
}

/* Where value i of segment s's level-l values lives (l >= 1; q0 = offsets[s] / RS_SEG_TILE, the tile of its
 * start; two buffers of 2 x tiles values: A holds level 1, B levels 2, 3, ... in alternate halves). Level 1 (the
 * chunk partials of level 0): chunk c's partial is stored by the team of tile q0 + c, at 2 (q0 + c) + 1 for c = 0 and
 * 2 (q0 + c) for c >= 1 (a tile holds the first chunk of at most one segment longer than a tile and a later chunk of
 * at most one). Level l >= 2 (only a segment longer than RS_SEG_TILE^(l-1) has one): value i at (l % 2) tiles + q0 +
 * i, inside the segment's own tiles [q0, q0 + len_1 - 1), so no two segments' values meet. */
inline ulong rs_seg_vidx(uint level, ulong tiles, ulong q0, ulong i)
{
    return level == 1 ? 2 * (q0 + i) + (i == 0) : (level % 2) * tiles + q0 + i;
}

/* The number of offsets[0 .. S] that are <= p, found from lo (offsets[i] <= p for i < lo): a binary search by each
 * work-item (the same answer as the CUDA twin's 33-ary warp search; no barrier here, so that none sits inside the
 * search's data-dependent loop). active = 0: lo. */
inline ulong rs_seg_find(global const void *offsets, uint kind, ulong S, ulong p, ulong lo, int active)
{
    ulong hi = S + 1;
    while (active && lo < hi) {
        const ulong mid = lo + (hi - lo) / 2;
        if (rs_seg_off(offsets, kind, mid) <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* seg_tiles: the segments longer than RS_SEG_TILE, tile by tile. A tile q is RS_SEG_TILE elements of the level-0
 * index space (tiles = ceil(n / TILE)); a team takes tile q and does at most two chunks: a later chunk (c >= 1) of
 * the segment that contains element q * TILE, and the first chunk of the segment that starts inside the tile and is
 * longer than it. Level 0 finds them with two searches of the offsets (rs_seg_find: two binary searches per
 * tile, not per segment) and records them in marks: first[q] = marks[q], cont[q] = marks[tiles + q]
 * (RS_SEG_NONE when none); level l >= 1 reads
 * them back: the team of tile q0 + c does chunk c of the segment's level-l values, if it has one. A chunk's value
 * goes to the segment's output when the level holds at most one chunk, else to dst at rs_seg_vidx(level + 1, ..). */
#define RS_SEG_TILES_KERNEL(NAME, X, CVT)                                                                      \
    kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void NAME(                                    \
        global const X *src, global const void *offsets, uint kind, ulong S_bound, uint level, ulong tiles,     \
        global T *dst, global OUT_T *out, global ulong *marks, global const uint *flags,                       \
        global const ulong *runs, global const ulong *queue)                                                   \
    {                                                                                                          \
        local T l[RS_GROUP];                                                                                   \
        const uint t = get_local_id(0), lane = t % RS_SEG_LANES, w = t / RS_SEG_LANES;                        \
        /* faulty offsets, or no segment longer than a tile (seg_short's flag): uniform */                     \
        if (flags[0] || !((global const uint *)queue)[1]) return;                                              \
        const ulong S = rs_seg_count(runs, S_bound), end = rs_seg_off(offsets, kind, S);                       \
        const ulong batches = (tiles + RS_SEG_ROWS - 1) / RS_SEG_ROWS;                                         \
        for (ulong b = get_group_id(0); b < batches; b += get_num_groups(0)) {                                 \
            const ulong q = b * RS_SEG_ROWS + w;                                                               \
            ulong seg[2] = {RS_SEG_NONE, RS_SEG_NONE}; /* [0]: a later chunk, [1]: a first chunk */          \
            /* every barrier below is reached by the whole group: the searches run at every level (probing             \
             * nothing at level > 0) and the tree for every chunk slot (PoCL's workitemloops needs barriers            \
             * outside conditional code) */                                                                            \
            const ulong p = q * RS_SEG_TILE;                                                                           \
            const int active = level == 0 && q < tiles && p < end;                                                     \
            const ulong pe = active && end - p > RS_SEG_TILE ? p + RS_SEG_TILE - 1 : end - 1;                          \
            const ulong ca = rs_seg_find(offsets, kind, S, p, 0, active);                      \
            const ulong cb = rs_seg_find(offsets, kind, S, pe, ca, active);                    \
            if (active && ca > 0) {                                                                                    \
                const ulong sa = ca - 1, o = rs_seg_off(offsets, kind, sa);                                            \
                const ulong len = rs_seg_off(offsets, kind, sa + 1) - o;                                               \
                if (len > RS_SEG_TILE && o + len > p) seg[o == p] = sa;                                                \
            }                                                                                                          \
            if (active && cb > ca) {                                                                                   \
                const ulong sb = cb - 1, o = rs_seg_off(offsets, kind, sb);                                            \
                if (rs_seg_off(offsets, kind, sb + 1) - o > RS_SEG_TILE) seg[1] = sb;                                  \
            }                                                                                                          \
            if (level == 0 && lane == 0 && q < tiles) {                                                                \
                marks[tiles + q] = seg[0];                                                                             \
                marks[q] = seg[1];                                                                                     \
            } else if (level > 0 && q < tiles) {                                                                       \
                seg[0] = marks[tiles + q];                                                                             \
                seg[1] = marks[q];                                                                                     \
            }                                                                                                          \
            for (uint h = 0; h < 2; h++) {                                                                             \
                ulong s = seg[h], c = 0, cnt = 0, q0 = 0, lenl = 0, o = 0;                                             \
                if (s != RS_SEG_NONE) {                                                                                \
                    o = rs_seg_off(offsets, kind, s);                                                                  \
                    q0 = o / RS_SEG_TILE;                                                                              \
                    c = h == 1 ? 0 : q - q0;                                                                           \
                    lenl = rs_seg_len(rs_seg_off(offsets, kind, s + 1) - o, level);                                    \
                    if (lenl > 1 && c * RS_SEG_TILE < lenl)                                                            \
                        cnt = lenl - c * RS_SEG_TILE < RS_SEG_TILE ? lenl - c * RS_SEG_TILE : RS_SEG_TILE;             \
                }                                                                                                      \
                const ulong cb = c * RS_SEG_TILE;                                                                      \
                T acc[RS_SEG_ROWS];                                                                                    \
                RS_SEG_TEAM_FOLD(acc, cnt, CVT, RS_SEG_IDX_TILE)                                                       \
                const T v = rs_seg_team_tree(l, t, lane, acc[0]);                                                      \
                if (lane == 0 && cnt) {                                                                                \
                    if (lenl <= RS_SEG_TILE) out[s] = RS_STORE(RS_OUT(v));                                             \
                    else dst[rs_seg_vidx(level + 1, tiles, q0, c)] = RS_OUT(v);                                        \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                      \
    }
/* level 0 reads the input from the chunk's start, level l >= 1 the level's values where rs_seg_vidx puts them */
#define RS_SEG_IDX_TILE(i) (level == 0 ? o + cb + (i) : rs_seg_vidx(level, tiles, q0, cb + (i)))
RS_SEG_TILES_KERNEL(seg_tiles_in, IN_T, RS_CVT_IN)
#if RS_T_KERNELS
RS_SEG_TILES_KERNEL(seg_tiles_t, T, RS_CVT_T)
#endif

#else
/* ---------------------------------------------------------------- argmin / argmax
 * Built with RS_OUT_DTYPE = RS_DTYPE and RS_OP = MIN (argmin) or MAX (argmax), as argext.cl. The order of
 * rs_before is total, so the chunk layout above changes nothing about the result: it is the segment's best
 * element, the one redscan_argmin / _argmax of the slice returns. Padding: index RS_SEG_PAD, ranking last. */

#define RS_SEG_TAKE(cv, ci)                                           \
    do {                                                              \
        const IN_T cv_ = (cv);                                        \
        const ulong ci_ = (ci);                                       \
        if (rs_before(cv_, ci_, bv, bi, RS_SEG_PAD)) {                \
            bv = cv_;                                                 \
            bi = ci_;                                                 \
        }                                                             \
    } while (0)

/* LEVEL0: the values are the input (index = position in it), else pairs (src_v, src_i). */
#define RS_SEG_ARGEXT_BODY(LEVEL0)                                                                            \
    IN_T bv = RS_WORST_IN;                                                                                    \
    ulong bi = RS_SEG_PAD;                                                                                    \
    if (what == 1 || what == 2) {                                                                             \
        for (uint r = 0; r < RS_SEG_ROWS; r++) {                                                              \
            const uint tt = lane + RS_SEG_LANES * r;                                                          \
            for (uint k = 0; k < RS_SEG_K; k++)                                                               \
                for (uint v = 0; v < RS_SEG_V; v++) {                                                         \
                    const ulong i = k * RS_GROUP * RS_SEG_V + tt * RS_SEG_V + v;                              \
                    if (i < cnt) RS_SEG_TAKE(src_v[base + i], (LEVEL0) ? base + i : src_i[base + i]);         \
                }                                                                                             \
        }                                                                                                     \
    }                                                                                                         \
    lv[t] = bv;                                                                                               \
    li[t] = bi;                                                                                               \
    for (uint s = RS_SEG_LANES / 2; s > 0; s >>= 1) {                                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                         \
        if (lane < s && rs_before(lv[t + s], li[t + s], lv[t], li[t], RS_SEG_PAD)) {                           \
            lv[t] = lv[t + s];                                                                                \
            li[t] = li[t + s];                                                                                \
        }                                                                                                     \
    }                                                                                                         \
    if (lane == 0) {                                                                                          \
        if (what == 1) {                                                                                      \
            part_v[j] = lv[t];                                                                                \
            part_i[j] = li[t];                                                                                \
        } else if (what == 2 || what == 3) {                                                                  \
            if (has_v) out_v[seg] = what == 2 ? lv[t] : RS_WORST_IN;                                          \
            out_i[seg] = what == 2 ? li[t] : RS_SEG_PAD;                                                      \
        }                                                                                                     \
    }

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_argext_in(
    global const IN_T *src_v, global const void *offsets, uint kind, ulong S, global IN_T *part_v,
    global ulong *part_i, global IN_T *out_v, int has_v, global ulong *out_i, global const uint *flags, ulong slots)
{
    local IN_T lv[RS_GROUP];
    local ulong li[RS_GROUP];
    global const ulong *src_i = 0; /* level 0: the index is the position */
    RS_SEG_LOOP(0, RS_SEG_ARGEXT_BODY(1))
}

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_argext_pairs(
    global const IN_T *src_v, global const ulong *src_i, global const void *offsets, uint kind, ulong S, uint level,
    global IN_T *part_v, global ulong *part_i, global IN_T *out_v, int has_v, global ulong *out_i,
    global const uint *flags, ulong slots)
{
    local IN_T lv[RS_GROUP];
    local ulong li[RS_GROUP];
    RS_SEG_LOOP(level, RS_SEG_ARGEXT_BODY(0))
}
#endif
