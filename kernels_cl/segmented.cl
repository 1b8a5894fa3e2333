/* Segmented reduction and argmin / argmax (docs/ALGORITHMS.md, "Segments"). Twin: kernels_cu/segmented.cu.
 *
 * Segment s is in[offsets[s] .. offsets[s+1]). Its result is the coarsened reduction of that slice alone, bit for
 * bit: chunks of RS_SEG_TILE = 4096 elements counted from the segment's own start, each reduced by the coarsened
 * tile expression (reduce_coarsened.cl), then the chunk values by the same expression, level after level, until
 * one is left - the passes of rs_ocl_reduce applied to the slice.
 *
 * Work decomposition (both programs: the reduction and argmin / argmax run the same kernels):
 *   seg_short   a work-item per segment (offsets read coalesced): empty -> the empty result; up to RS_SEG_SHORT =
 *               32 values -> its own fold (RS_SEG_SERIAL: the tile's work-items 0..7 hold four values each, the
 *               rest the identity, and combining with the identity is exact); up to RS_SEG_TILE -> the queue
 *   seg_medium  a team of 32 work-items per queued segment: the tile expression (RS_SEG_TEAM_FOLD)
 *   seg_tiles   segments longer than a tile: a team per tile of the input at level 0 (found by rs_seg_find, two
 *               searches of the offsets per tile), per tile again at levels >= 1 for the chunk values
 * So a segment's cost is its own values (and a search per tile for a long one), whatever the other segments: many
 * tiny segments cost a work-item each, not a team.
 *
 * Argmin / argmax (-DRS_SEG_ARGEXT) reduce (value, index) pairs with those kernels: level 0 pairs element j with j,
 * its position in the input, and combine keeps the pair that rs_before (common.clh) puts first. rs_before is a
 * strict total order (values, NaN first, then the index), so a segment's pairs have one first pair, and any tree
 * of combines over them returns it: the chunk layout and the tree's shape, made for the reduction's bits, change
 * nothing about the result, which is the element redscan_argmin / _argmax of the slice returns. The macros that
 * differ between the programs (RS_SEG_VT, RS_SEG_OP, RS_SEG_PUT, ...) are listed where they are defined.
 *
 * The team's tile expression: lane j stands for the tile's work-items j + 32r (r = 0..7): it folds their 16
 * elements each (k outer, v inner, from the identity, identity past the chunk's end), then levels s = 128, 64, 32 of
 * the sequential-addressing tree combine the lane's own rows (r with r + 4, r + 2, r + 1), and s = 16 .. 1 go
 * through local memory: the same operands in the same order as rs_tree_seq.
 *
 * Offsets are read as any of INT32 / UINT32 / INT64 / UINT64 (kind = the redscan_dtype, a kernel argument: one
 * program for all four). seg_check validates them on the device; the reductions do nothing when it found a fault,
 * so the output stays untouched. OUT: the output parameters, `out` (the reduction) or `out_v, has_v, out_i`
 * (argmin / argmax: values, whether they are wanted, indices).
 *   seg_check(offsets, kind, S, n, flags, sticky)               flags[0]: this call's faults; sticky[0]: faults
 *                                                                since the last report, sticky[1]: their smallest
 *                                                                faulty index (saturated). Two buffers on OpenCL:
 *                                                                each host write covers a whole buffer (Oclgrind)
 *   seg_queue_zero(queue)
 *   seg_short(src, offsets, kind, S, OUT, queue, flags, runs)   runs: NULL, or the device word holding the real
 *                                                                segment count R <= S (reduce by key's _async form)
 *   seg_medium(src, queue, q_bound, OUT, flags)
 *   seg_tiles_in / _t(src, offsets, kind, S, level, tiles, dst, OUT, marks, flags, runs, queue) */
#define RS_SEG_TILE 4096 /* RS_COARSE_TILE of reduce_coarsened.cl */
#define RS_SEG_V 4
#define RS_SEG_LANES 32
#define RS_SEG_ROWS (RS_GROUP / RS_SEG_LANES) /* 8: rows of a lane, and warps of a group */
#define RS_SEG_PAD ((ulong)-1) /* argmin / argmax: the padding index, ranked after every element */
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

inline ulong rs_seg_len(ulong len, uint level)
{
    for (uint i = 0; i < level; i++) len = (len + RS_SEG_TILE - 1) / RS_SEG_TILE;
    return len;
}

/* Offset s (= o) against its successor and n: the faults found (0: none), recorded in the call's word and the sticky
 * words */
inline uint rs_seg_check_at(global const void *offsets, uint kind, ulong S, ulong n, ulong s, ulong o,
                            global uint *flags, global uint *sticky)
{
    uint bad = 0;
    if ((kind == RS_INT32 || kind == RS_INT64) && (long)o < 0) bad |= RS_SEG_NEGATIVE;
    if (s < S && o > rs_seg_off(offsets, kind, s + 1)) bad |= RS_SEG_DECREASING;
    if (s == S && o > n) bad |= RS_SEG_PAST_END;
    if (bad) {
        atomic_or(&flags[0], bad);
        atomic_or(&sticky[0], bad);
        atomic_min(&sticky[1], s < 0xffffffffu ? (uint)s : 0xffffffffu);
    }
    return bad;
}

kernel void seg_check(global const void *offsets, uint kind, ulong S, ulong n, global uint *flags, global uint *sticky)
{
    const ulong s = get_global_id(0);
    if (s <= S) rs_seg_check_at(offsets, kind, S, n, s, rs_seg_off(offsets, kind, s), flags, sticky);
}

/* The live segment count: the host's S, or the device word of reduce by key's _async form (R <= S). */
inline ulong rs_seg_count(global const ulong *runs, ulong S) { return runs && *runs < S ? *runs : S; }

#if defined(RS_SEG_SCAN)
/* the segmented scan program (segmented_scan.cl) takes rs_seg_off and seg_check from here, and this kernel:
 *
 * The segmented scan of the exact operators (docs/ALGORITHMS.md, "Segmented scans", one pass), seg_check's checks
 * included: the head part that byk_scan_exact (scan_by_key.cl) reads with kkind RS_KEYS_BITS (keys.clh), zeroed
 * before. heads[0], heads[1]: offsets[0] and offsets[S], the positions to store; heads[2]: nonzero when an offset is
 * faulty (then nothing is stored); then bit p of the bitmap (after RS_HEAD_WORDS ulong) for each offset p < n, and
 * bit 0 (position 0 is the first tile's head). A work-item per offset (the CUDA twin gathers a warp's bits of one
 * word by shuffles first). */
kernel void seg_scan_heads(global const void *offsets, uint kind, ulong S, ulong n, global uint *flags,
                           global uint *sticky, global ulong *heads)
{
    const ulong s = get_global_id(0);
    global uint *map = (global uint *)(heads + RS_HEAD_WORDS);
    if (s == 0) atomic_or(&map[0], 1u);
    if (s > S) return;
    const ulong o = rs_seg_off(offsets, kind, s);
    if (rs_seg_check_at(offsets, kind, S, n, s, o, flags, sticky)) heads[2] = 1;
    if (s == 0) heads[0] = o;
    if (s == S) heads[1] = o;
    if (o < n) atomic_or(&map[o >> 5], 1u << (o & 31u));
}
#else
/* What the kernels below reduce, per program (the kernels themselves are one text for both):
 *   RS_SEG_VT             the value type of the tree, the level values in the workspace and local memory
 *   RS_SEG_ID, RS_SEG_OP  its identity and combine(a, b) (a covers earlier elements)
 *   RS_SEG_LD_IN(j)       element j of the input as a value (j: its position in the input)
 *   RS_SEG_LD_T(j)        value j of a level's values (seg_tiles_t's src: RS_SEG_VT)
 *   RS_SEG_PART(v)        a chunk's value as the next level stores it
 *   RS_SEG_OUT_ARGS       the output parameters, at the same place in seg_short, seg_medium and seg_tiles_*
 *   RS_SEG_PUT(s, v), RS_SEG_PUT_EMPTY(s)   segment s's result: its value v, or that of an empty segment
 *   RS_SEG_T_KERNELS      whether the program has seg_tiles_t (else the host runs seg_tiles_in at every level) */
#if !defined(RS_SEG_ARGEXT)
/* ---------------------------------------------------------------- reduce: T, the reduction's own expression */

/* A segment of nothing: the documented result of a reduction of n = 0 (+0 for float sums, not -0.0). */
#if T_IS_FLOAT && RS_OP == RS_SUM
#define RS_SEG_EMPTY ((T)0)
#else
#define RS_SEG_EMPTY IDENTITY
#endif

#define RS_SEG_VT T
#define RS_SEG_ID IDENTITY
#define RS_SEG_OP(a, b) rs_combine(a, b)
#define RS_SEG_LD_IN(j) RS_CVT_IN(src[j])
#define RS_SEG_LD_T(j) RS_CVT_T(src[j])
#define RS_SEG_PART(v) RS_OUT(v)
#define RS_SEG_OUT_ARGS global OUT_T *out
#define RS_SEG_PUT(s, v) out[s] = RS_STORE(RS_OUT(v))
#define RS_SEG_PUT_EMPTY(s) out[s] = RS_STORE(RS_SEG_EMPTY)
#define RS_SEG_T_KERNELS RS_T_KERNELS

#else
/* ---------------------------------------------------------------- argmin / argmax: (value, index) pairs
 * Built with RS_OUT_DTYPE = RS_DTYPE and RS_OP = MIN (argmin) or MAX (argmax), as argext.cl. A pair is 16 bytes for
 * every IN_T (RS_SEG_ARG_PAIR_BYTES of api/src/backend.h sizes the workspace). The identity is the padding pair
 * {RS_WORST_IN, RS_SEG_PAD}, which rs_before ranks after every element; combine keeps the earlier pair of that
 * order. Level 0 pairs an element with its position in the input, the index the result reports. Empty segment:
 * value RS_WORST_IN, index RS_SEG_PAD. has_v = 0: no values wanted, and out_v (the host passes out_i there) is never
 * written. */
typedef struct {
    IN_T v;
    ulong i;
} rs_argp;

inline rs_argp rs_seg_argp(IN_T v, ulong i)
{
    rs_argp p;
    p.v = v;
    p.i = i;
    return p;
}

inline rs_argp rs_seg_argp_op(rs_argp a, rs_argp b) { return rs_before(b.v, b.i, a.v, a.i, RS_SEG_PAD) ? b : a; }

inline void rs_seg_argp_put(global IN_T *out_v, int has_v, global ulong *out_i, ulong s, rs_argp p)
{
    if (has_v) out_v[s] = p.v;
    out_i[s] = p.i;
}

#define RS_SEG_VT rs_argp
#define RS_SEG_ID rs_seg_argp(RS_WORST_IN, RS_SEG_PAD)
#define RS_SEG_OP(a, b) rs_seg_argp_op(a, b)
#define RS_SEG_LD_IN(j) rs_seg_argp(src[j], (j))
#define RS_SEG_LD_T(j) (src[j])
#define RS_SEG_PART(v) (v)
#define RS_SEG_OUT_ARGS global IN_T *out_v, int has_v, global ulong *out_i
#define RS_SEG_PUT(s, v) rs_seg_argp_put(out_v, has_v, out_i, (s), (v))
#define RS_SEG_PUT_EMPTY(s) RS_SEG_PUT(s, RS_SEG_ID)
#define RS_SEG_T_KERNELS 1 /* levels >= 1 read pairs, never the input's type */
#endif

/* The coarsened tile expression of cnt <= RS_SEG_TILE values, value i = LD(IDX(i)), by the team of 32
 * work-items (lane = 0..31): lane j stands for the tile's work-items j + 32r (r = 0..7) and folds their values
 * (k outer, v inner; each row has its own accumulator, so the loop order of r and k changes nothing); values past
 * cnt are the identity and are skipped (x (+) identity == x exactly for every op: -0.0 for float sums, +-inf for
 * min / max with ties to the left, the padding pair for argmin / argmax). Then levels s = 128, 64, 32 of the tree
 * combine the lane's rows. */
#define RS_SEG_TEAM_FOLD(acc, cnt, LD, IDX)                                                                     \
    for (uint r = 0; r < RS_SEG_ROWS; r++) acc[r] = RS_SEG_ID;                                              \
    for (uint k = 0; (ulong)k * RS_GROUP * RS_SEG_V < (cnt); k++)                                          \
        for (uint r = 0; r < RS_SEG_ROWS; r++) {                                                            \
            const uint tt = lane + RS_SEG_LANES * r; /* the work-item of the tile this row stands for */   \
            if ((ulong)k * RS_GROUP * RS_SEG_V + RS_SEG_LANES * RS_SEG_V * r >= (cnt)) break; /* no values */ \
            for (uint v = 0; v < RS_SEG_V; v++) {                                                           \
                const ulong i = (ulong)k * RS_GROUP * RS_SEG_V + tt * RS_SEG_V + v;                         \
                if (i < (cnt)) acc[r] = RS_SEG_OP(acc[r], LD(IDX(i)));                                      \
            }                                                                                               \
        }                                                                                                   \
    for (uint r = 0; r < 4; r++) acc[r] = RS_SEG_OP(acc[r], acc[r + 4]); /* s = 128 */                     \
    for (uint r = 0; r < 2; r++) acc[r] = RS_SEG_OP(acc[r], acc[r + 2]); /* s = 64 */                      \
    acc[0] = RS_SEG_OP(acc[0], acc[1]);                                  /* s = 32 */

/* Levels s = 16 .. 1 of the tree across the team's lanes in local memory (rs_tree_seq's operands and order); the
 * team's result is returned to lane 0. Every work-item of the group calls it (barriers). */
inline RS_SEG_VT rs_seg_team_tree(local RS_SEG_VT *l, uint t, uint lane, RS_SEG_VT v)
{
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous tree's reads are done */
    l[t] = v;
    for (uint s = RS_SEG_LANES / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lane < s) l[t] = RS_SEG_OP(l[t], l[t + s]);
    }
    return l[t];
}

/* The tile expression of a segment of len <= RS_SEG_SHORT values by one work-item: the tile's work-items 0..7 hold
 * four values each (the others hold the identity), so levels s = 128 .. 8 of the tree combine with the identity
 * and change nothing, and s = 4, 2, 1 remain. */
#define RS_SEG_SERIAL(res, len, IDX)                                                                       \
    {                                                                                                       \
        RS_SEG_VT a_[8];                                                                                    \
        for (uint r = 0; r < 8; r++) a_[r] = RS_SEG_ID;                                                     \
        for (uint g = 0; g < RS_SEG_SHORT / RS_SEG_V && g * RS_SEG_V < (len); g++) /* leaf g */            \
            for (uint v = 0; v < RS_SEG_V; v++)                                                             \
                if (g * RS_SEG_V + v < (len)) a_[g] = RS_SEG_OP(a_[g], RS_SEG_LD_IN(IDX(g * RS_SEG_V + v))); \
        for (uint r = 0; r < 4; r++) a_[r] = RS_SEG_OP(a_[r], a_[r + 4]);                                   \
        for (uint r = 0; r < 2; r++) a_[r] = RS_SEG_OP(a_[r], a_[r + 2]);                                   \
        res = RS_SEG_OP(a_[0], a_[1]);                                                                      \
    }

#define RS_SEG_IDX_AT(i) (o + (i))
#define RS_SEG_IDX_BASE(i) (base + (i))
/* seg_short: level 0 for every segment of up to RS_SEG_TILE elements, segment-major. Group g takes batches g,
 * g + G, ... of 256 consecutive segments, one per work-item, reading offsets[s] and offsets[s+1] (coalesced): an
 * empty segment stores RS_SEG_PUT_EMPTY's result, one of up to RS_SEG_SHORT elements is reduced by its work-item alone
 * (RS_SEG_SERIAL), one of up to RS_SEG_TILE is appended to the queue for seg_medium (one global atomic per batch:
 * the batch's entries are listed in local memory first; an entry is two words, the segment index | its length <<
 * RS_SEG_LEN_SHIFT and its offset, so that seg_medium reads no offsets). Longer segments are seg_tiles' work. The
 * queue's order changes no bits: each segment's result depends on its own values only.
 * queue: a uint count at its start (zeroed by seg_queue_zero before the call), the entries from queue[1]; the uint
 * after the count (zeroed with it) holds flags: bit 0 set when a segment is longer than RS_SEG_TILE (seg_tiles runs
 * only then), bit 1 when one is longer than RS_SEG_TILE^2 (seg_tiles' levels >= 2 run only then). */
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void seg_short(
    global const IN_T *src, global const void *offsets, uint kind, ulong S_bound, RS_SEG_OUT_ARGS,
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
                RS_SEG_PUT_EMPTY(s);
            } else if (len <= RS_SEG_SHORT) {
                RS_SEG_VT res;
                RS_SEG_SERIAL(res, len, RS_SEG_IDX_AT)
                RS_SEG_PUT(s, res);
            } else if (len <= RS_SEG_TILE) {
                medium = 1;
                entry = s | len << RS_SEG_LEN_SHIFT;
                base = o;
            } else {
                medium = len > (ulong)RS_SEG_TILE * RS_SEG_TILE ? 3 : 2; /* seg_tiles' (3: with levels >= 2) */
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
                longer |= l_flag[j] == 2 ? 1u : l_flag[j] == 3 ? 3u : 0u;
            }
            if (longer) atomic_or((global uint *)queue + 1, longer);
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
    global const IN_T *src, global const ulong *queue, ulong q_bound, RS_SEG_OUT_ARGS, global const uint *flags)
{
    local RS_SEG_VT l[RS_GROUP];
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
            RS_SEG_VT acc[RS_SEG_ROWS];
            RS_SEG_TEAM_FOLD(acc, cnt, RS_SEG_LD_IN, RS_SEG_IDX_BASE)
            const RS_SEG_VT v = rs_seg_team_tree(l, t, lane, acc[0]);
            if (lane == 0 && e < m) RS_SEG_PUT(l_seg[x] & RS_SEG_SEG_MASK, v);
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
#define RS_SEG_TILES_KERNEL(NAME, X, LD)                                                                       \
    kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void NAME(                                    \
        global const X *src, global const void *offsets, uint kind, ulong S_bound, uint level, ulong tiles,     \
        global RS_SEG_VT *dst, RS_SEG_OUT_ARGS, global ulong *marks, global const uint *flags,                 \
        global const ulong *runs, global const ulong *queue)                                                   \
    {                                                                                                          \
        local RS_SEG_VT l[RS_GROUP];                                                                           \
        const uint t = get_local_id(0), lane = t % RS_SEG_LANES, w = t / RS_SEG_LANES;                        \
        /* faulty offsets, or no segment longer than a tile (seg_short's flag bit 0), or levels >= 2 and none   \
         * longer than a tile of tiles (bit 1): nothing to do; uniform */                                      \
        const uint long_flags = ((global const uint *)queue)[1];                                               \
        if (flags[0] || !(long_flags & 1u) || (level >= 2 && !(long_flags & 2u))) return;                      \
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
                RS_SEG_VT acc[RS_SEG_ROWS];                                                                            \
                RS_SEG_TEAM_FOLD(acc, cnt, LD, RS_SEG_IDX_TILE)                                                        \
                const RS_SEG_VT v = rs_seg_team_tree(l, t, lane, acc[0]);                                              \
                if (lane == 0 && cnt) {                                                                                \
                    if (lenl <= RS_SEG_TILE) RS_SEG_PUT(s, v);                                                         \
                    else dst[rs_seg_vidx(level + 1, tiles, q0, c)] = RS_SEG_PART(v);                                   \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                      \
    }
/* level 0 reads the input from the chunk's start, level l >= 1 the level's values where rs_seg_vidx puts them */
#define RS_SEG_IDX_TILE(i) (level == 0 ? o + cb + (i) : rs_seg_vidx(level, tiles, q0, cb + (i)))
RS_SEG_TILES_KERNEL(seg_tiles_in, IN_T, RS_SEG_LD_IN)
#if RS_SEG_T_KERNELS
RS_SEG_TILES_KERNEL(seg_tiles_t, RS_SEG_VT, RS_SEG_LD_T)
#endif

#endif
