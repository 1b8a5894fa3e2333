/* argmin / argmax over (value, index) pairs. Twin: kernels_cu/argext.cu.
 * Spec (docs/ALGORITHMS.md): tiles of 2048 = 256 work-items x 8, work-item t takes t + k*256 (k = 0..7) and
 * keeps the best (value, index); then a sequential-addressing tree; one pair per tile. "Best" is rs_before
 * (common.clh): NaN first, ties to the lower index, smaller (program built with RS_OP = MIN) or larger
 * (RS_OP = MAX) value; padding (index >= n) last. The order is total, so the result does not depend on the
 * order of combination at all.
 * The first pass over the input is topk.cl's topk_small_1 (one pair per group, one pass at read speed).
 *   argext_pairs(global const IN_T *val, global const ulong *idx, ulong m, ulong n,
 *                global IN_T *out_val, global ulong *out_idx)
 *       passes over m pairs; n is the original length so padding still ranks last. */
#define RS_ARGEXT_PER 8
#define RS_ARGEXT_TILE (RS_GROUP * RS_ARGEXT_PER)
#define RS_ARGEXT_PAD ((ulong)-1) /* index of a padding slot: >= n, so it ranks last */

/* Sequential addressing over the pairs in lv/li; called by every work-item so each barrier is uniform. */
inline void rs_argext_tree(local IN_T *lv, local ulong *li, uint t, ulong n)
{
    for (uint s = RS_GROUP / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < s && rs_before(lv[t + s], li[t + s], lv[t], li[t], n)) {
            lv[t] = lv[t + s];
            li[t] = li[t + s];
        }
    }
}

/* One body for both kernels. COUNT: slots in the input; VAL(p)/IDX(p): the pair at slot p < COUNT.
 * Padding slots are never read. The tile loop condition is uniform across the group. */
#define RS_ARGEXT_BODY(COUNT, VAL, IDX)                                                          \
    local IN_T lv[RS_GROUP];                                                                     \
    local ulong li[RS_GROUP];                                                                    \
    const uint t = get_local_id(0);                                                              \
    const ulong ntiles = ((COUNT) + RS_ARGEXT_TILE - 1) / RS_ARGEXT_TILE;                        \
    for (ulong tile = get_group_id(0); tile < ntiles; tile += get_num_groups(0)) {               \
        const ulong base = tile * RS_ARGEXT_TILE + t;                                            \
        IN_T bv = base < (COUNT) ? VAL(base) : (IN_T)0;                                          \
        ulong bi = base < (COUNT) ? IDX(base) : RS_ARGEXT_PAD;                                   \
        for (uint k = 1; k < RS_ARGEXT_PER; k++) {                                               \
            const ulong p = base + (ulong)k * RS_GROUP;                                          \
            if (p < (COUNT)) {                                                                   \
                const IN_T cv = VAL(p);                                                          \
                const ulong ci = IDX(p);                                                         \
                if (rs_before(cv, ci, bv, bi, n)) {                                              \
                    bv = cv;                                                                     \
                    bi = ci;                                                                     \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        lv[t] = bv;                                                                              \
        li[t] = bi;                                                                              \
        rs_argext_tree(lv, li, t, n);                                                            \
        if (t == 0) {                                                                            \
            out_val[tile] = lv[0];                                                               \
            out_idx[tile] = li[0];                                                               \
        }                                                                                        \
        barrier(CLK_LOCAL_MEM_FENCE); /* work-item 0 may still read lv[1], li[1] */              \
    }

#define RS_ARGEXT_PAIR_VAL(p) val[p]
#define RS_ARGEXT_PAIR_IDX(p) idx[p]
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void argext_pairs(
    global const IN_T *val, global const ulong *idx, ulong m, ulong n, global IN_T *out_val,
    global ulong *out_idx)
{
    RS_ARGEXT_BODY(m, RS_ARGEXT_PAIR_VAL, RS_ARGEXT_PAIR_IDX)
}
