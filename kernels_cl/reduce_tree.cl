/* Reduction "tree": local-memory tree with sequential addressing (seed 004). Twin: kernels_cu/reduce_tree.cu.
 * Spec (docs/ALGORITHMS.md): TILE = 512; work-item t starts from x[t] ⊕ x[t+256] ("first add during
 * load", identity past n), then for (s = 128; s > 0; s >>= 1) l[t] = l[t] ⊕ l[t+s]. Group g reduces tiles
 * g, g+G, ... and writes one partial per tile, so the grid size G never changes which values meet.
 *   reduce_tree_in(global const IN_T *in, ulong n, global T *partials)  first pass, converts IN_T -> T
 *   reduce_tree_t (global const T *in,    ulong n, global T *partials)  later passes over the partials */
#define RS_TREE_TILE (2 * RS_GROUP)

/* Sequential addressing over l[0..RS_GROUP-1]; called by every work-item so each barrier is uniform. */
inline void rs_tree_seq(local T *l, uint t)
{
    for (uint s = RS_GROUP / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < s) l[t] = rs_combine(l[t], l[t + s]);
    }
}

/* One body for both kernels; X is the element type read from `in`. The tile loop condition depends on the
 * group only, so the barriers inside it are reached by the whole group. */
#define RS_TREE_KERNEL(NAME, X)                                                                  \
    kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void NAME(                      \
        global const X *in, ulong n, global T *partials)                                         \
    {                                                                                            \
        local T l[RS_GROUP];                                                                     \
        const uint t = get_local_id(0);                                                          \
        const ulong ntiles = (n + RS_TREE_TILE - 1) / RS_TREE_TILE;                              \
        for (ulong tile = get_group_id(0); tile < ntiles; tile += get_num_groups(0)) {           \
            const ulong i = tile * RS_TREE_TILE + t;                                             \
            const T a = i < n ? RS_LOAD(in, i) : IDENTITY;                                       \
            const T b = i + RS_GROUP < n ? RS_LOAD(in, i + RS_GROUP) : IDENTITY;                 \
            l[t] = rs_combine(a, b);                                                             \
            rs_tree_seq(l, t);                                                                   \
            if (t == 0) partials[tile] = l[0];                                                   \
            barrier(CLK_LOCAL_MEM_FENCE); /* work-item 0 may still read l[1] */ \
        }                                                                                        \
    }

RS_TREE_KERNEL(reduce_tree_in, IN_T)
RS_TREE_KERNEL(reduce_tree_t, T)
