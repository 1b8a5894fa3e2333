/* Reduction "tree": local-memory tree with sequential addressing (seed 004). Twin: kernels_cu/reduce_tree.cu.
 * Spec (docs/ALGORITHMS.md): TILE = 512; work-item t starts from x[t] ⊕ x[t+256] ("first add during
 * load", identity past n), then for (s = 128; s > 0; s >>= 1) l[t] = l[t] ⊕ l[t+s]. Group g reduces tiles
 * g, g+G, ... and writes one partial per tile, so the grid size G never changes which values meet.
 * The tile loop and the levels are shared with warp_sync and shuffle (reduce_common.clh).
 *   reduce_tree_in(global const IN_T *in, ulong n, global T *partials, ulong out_off)  first pass, converts IN_T -> T
 *   reduce_tree_t (global const T *in,    ulong n, global T *partials, ulong out_off)  later passes over the partials */

/* All eight levels with a barrier before each; work-item 0 holds the tile's value in l[0]. */
static inline void rs_tree_tail(local T *l, uint t, global T *out)
{
    rs_tree_seq(l, t);
    if (t == 0) *out = RS_OUT(l[0]);
}

RS_TREE_KERNEL(reduce_tree_in, IN_T, rs_tree_tail)
#if RS_T_KERNELS
RS_TREE_KERNEL(reduce_tree_t, T, rs_tree_tail)
#endif
