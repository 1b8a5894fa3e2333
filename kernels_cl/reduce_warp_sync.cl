/* Reduction "warp_sync": the tree reduction (same TILE, same loads, same combinations, same bits) whose last levels
 * run in one sub-group of 32 work-items with sub-group barriers instead of work-group barriers.
 * Twin: kernels_cu/reduce_warp_sync.cu (the CUDA warp-synchronous tail with __syncwarp).
 * Spec (docs/ALGORITHMS.md): levels s = 128, 64 as in tree (a barrier before each); then, after one more
 * work-group barrier, sub-group 0 alone does s = 32, 16, 8, 4, 2, 1 on l[0..63] with lane j standing for
 * work-item t = j of the tree: l[j] = l[j] ⊕ l[j+s] for j < s, a sub_group_barrier between the steps.
 * Which work-items form sub-group 0 is implementation-defined, so the lanes index l by their sub-group local id,
 * after a barrier (the one tree places before s = 32): the combinations are the tree's whatever the mapping.
 * Needs sub-groups of exactly 32 (checked by the host) and cl_khr_subgroups + cl_khr_subgroup_shuffle_relative;
 * compiled only in the sub-group program (RS_HAVE_SUBGROUP_REDUCE, reduce_common.clh).
 *   reduce_warp_sync_in(global const IN_T *in, ulong n, global T *partials, ulong out_off)  first pass, converts IN_T -> T
 *   reduce_warp_sync_t (global const T *in,    ulong n, global T *partials, ulong out_off)  later passes over the partials */
#ifdef RS_HAVE_SUBGROUP_REDUCE

static inline void rs_warp_sync_tail(local T *l, uint t, global T *out)
{
    rs_tree_levels(l, t, 2 * RS_WARP); /* s = 128, 64 */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_id() == 0) { /* uniform within the sub-group: every lane meets the sub-group barriers */
        const uint j = get_sub_group_local_id();
        l[j] = rs_combine(l[j], l[j + RS_WARP]); /* s = 32: all 32 lanes */
        for (uint s = RS_WARP / 2; s > 0; s >>= 1) {
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);
            /* lanes j < s write l[j] and read l[j], l[j+s] >= s: no lane reads what another writes in this step */
            if (j < s) l[j] = rs_combine(l[j], l[j + s]);
        }
        if (j == 0) *out = RS_OUT(l[0]); /* lane 0 wrote l[0] itself */
    }
}

RS_TREE_KERNEL(reduce_warp_sync_in, IN_T, rs_warp_sync_tail)
#if RS_T_KERNELS
RS_TREE_KERNEL(reduce_warp_sync_t, T, rs_warp_sync_tail)
#endif

#endif
