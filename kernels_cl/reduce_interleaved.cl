/* Reduction "interleaved": neighbour-pairing tree (seed 000). Twin: kernels_cu/reduce_interleaved.cu.
 * Spec (docs/ALGORITHMS.md): TILE = 256, one element per work-item (identity past n), then
 * for (s = 1; s < 256; s <<= 1) if (t % 2s == 0) l[t] = l[t] ⊕ l[t+s] — the balanced pairwise tree, left to
 * right. Group g reduces tiles g, g+G, ... and writes one partial per tile (G never changes the result).
 *   reduce_interleaved_in(global const IN_T *in, ulong n, global T *partials, ulong out_off)  first pass, IN_T -> T
 *   reduce_interleaved_t (global const T *in,    ulong n, global T *partials, ulong out_off)  later passes */
#define RS_INTERLEAVED_TILE RS_GROUP

/* Neighbour pairing over l[0..RS_GROUP-1]; called by every work-item so each barrier is uniform. */
inline void rs_tree_interleaved(local T *l, uint t)
{
    for (uint s = 1; s < RS_GROUP; s <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if ((t & (2 * s - 1)) == 0) l[t] = rs_combine(l[t], l[t + s]);
    }
}

#define RS_INTERLEAVED_KERNEL(NAME, X)                                                           \
    kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void NAME(                      \
        global const X *in, ulong n, global T *partials, ulong out_off)                          \
    {                                                                                            \
        partials += out_off; /* the last pass writes the caller's element (an _async result) */ \
        local T l[RS_GROUP];                                                                     \
        const uint t = get_local_id(0);                                                          \
        const ulong ntiles = (n + RS_INTERLEAVED_TILE - 1) / RS_INTERLEAVED_TILE;                \
        for (ulong tile = get_group_id(0); tile < ntiles; tile += get_num_groups(0)) {           \
            const ulong i = tile * RS_INTERLEAVED_TILE + t;                                      \
            l[t] = i < n ? RS_CVT_##X(in[i]) : IDENTITY;                                         \
            rs_tree_interleaved(l, t);                                                           \
            if (t == 0) partials[tile] = RS_OUT(l[0]);                                           \
            barrier(CLK_LOCAL_MEM_FENCE); /* work-item 0 may still read l[128] */ \
        }                                                                                        \
    }

RS_INTERLEAVED_KERNEL(reduce_interleaved_in, IN_T)
#if RS_T_KERNELS
RS_INTERLEAVED_KERNEL(reduce_interleaved_t, T)
#endif
