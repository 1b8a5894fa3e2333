/* Reduction "shuffle": the tree reduction (same TILE, same loads, same combinations, same bits) whose last levels
 * run in registers of one sub-group of 32 work-items with relative shuffles. Twin: kernels_cu/reduce_shuffle.cu
 * (__shfl_down_sync).
 * Spec (docs/ALGORITHMS.md): levels s = 128, 64 as in tree (a barrier before each); then, after one more
 * work-group barrier, lane j of sub-group 0 takes v = l[j] ⊕ l[j+32] (the tree's s = 32 for t = j) and for
 * s = 16, 8, 4, 2, 1: v = v ⊕ sub_group_shuffle_down(v, s). Lane j < s combines its value with lane j+s's, which
 * is the tree's l[j] = l[j] ⊕ l[j+s]; lanes j >= s compute values nobody uses (a shuffle past the last lane is
 * undefined), so lane 0 ends with the tree's l[0]. Lanes index l by their sub-group local id after a barrier,
 * so the implementation-defined mapping of work-items to sub-groups does not matter.
 * Needs sub-groups of exactly 32 (checked by the host) and cl_khr_subgroups + cl_khr_subgroup_shuffle_relative;
 * compiled only in the sub-group program (RS_HAVE_SUBGROUP_REDUCE, reduce_common.clh).
 *   reduce_shuffle_in(global const IN_T *in, ulong n, global T *partials, ulong out_off)  first pass, converts IN_T -> T
 *   reduce_shuffle_t (global const T *in,    ulong n, global T *partials, ulong out_off)  later passes over the partials */
#ifdef RS_HAVE_SUBGROUP_REDUCE

static inline void rs_shuffle_tail(local T *l, uint t, global T *out)
{
    rs_tree_levels(l, t, 2 * RS_WARP); /* s = 128, 64 */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_id() == 0) { /* uniform within the sub-group: every lane meets the shuffles */
        const uint j = get_sub_group_local_id();
        T v = rs_combine(l[j], l[j + RS_WARP]); /* s = 32 */
        for (uint s = RS_WARP / 2; s > 0; s >>= 1) v = rs_combine(v, sub_group_shuffle_down(v, s));
        if (j == 0) *out = RS_OUT(v);
    }
}

RS_TREE_KERNEL(reduce_shuffle_in, IN_T, rs_shuffle_tail)
#if RS_T_KERNELS
RS_TREE_KERNEL(reduce_shuffle_t, T, rs_shuffle_tail)
#endif

#endif
