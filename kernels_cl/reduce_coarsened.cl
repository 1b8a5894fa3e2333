/* Reduction "coarsened": thread coarsening over a fixed tile (seed 002), then the sequential-addressing
 * tree. Twin: kernels_cu/reduce_coarsened.cu.
 * Spec (docs/ALGORITHMS.md): V = 4, K = 4, TILE = GROUP*V*K = 4096. Work-item t folds, starting from the
 * identity, elements base + k*GROUP*V + t*V + v for k = 0..K-1 (outer), v = 0..V-1 (inner), identity past n;
 * then for (s = 128; s > 0; s >>= 1) l[t] = l[t] ⊕ l[t+s] (rs_tree_seq, reduce_common.clh). The seeds'
 * grid-stride loop would tie the order to the grid size; the fixed tile stride keeps it reproducible (G never
 * changes the result).
 *   reduce_coarsened_in(global const IN_T *in, ulong n, global T *partials)  first pass, IN_T -> T
 *   reduce_coarsened_t (global const T *in,    ulong n, global T *partials)  later passes */
#define RS_COARSE_V 4
#define RS_COARSE_K 4
#define RS_COARSE_TILE (RS_GROUP * RS_COARSE_V * RS_COARSE_K)

#define RS_VEC4_(x) x##4
#define RS_VEC4(x) RS_VEC4_(x) /* IN_T -> int4 etc. (two levels so IN_T is expanded first) */

/* A full tile takes one vload4 per round (element offset tile*TILE + k*GROUP*V + t*V is a multiple of 4);
 * a partial tile goes element by element. Both fold the same elements in the same order, so the bits agree.
 * `full` depends on the tile only: uniform across the group. */
#define RS_COARSENED_KERNEL(NAME, X)                                                             \
    kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void NAME(                      \
        global const X *in, ulong n, global T *partials)                                         \
    {                                                                                            \
        local T l[RS_GROUP];                                                                     \
        const uint t = get_local_id(0);                                                          \
        const ulong ntiles = (n + RS_COARSE_TILE - 1) / RS_COARSE_TILE;                          \
        for (ulong tile = get_group_id(0); tile < ntiles; tile += get_num_groups(0)) {           \
            const ulong base = tile * RS_COARSE_TILE;                                            \
            T acc = IDENTITY;                                                                    \
            if (base + RS_COARSE_TILE <= n) {                                                    \
                for (uint k = 0; k < RS_COARSE_K; k++) {                                         \
                    const RS_VEC4(X) v = vload4(                                                 \
                        (base + k * RS_GROUP * RS_COARSE_V) / RS_COARSE_V + t, in);              \
                    acc = rs_combine(acc, (T)v.s0);                                              \
                    acc = rs_combine(acc, (T)v.s1);                                              \
                    acc = rs_combine(acc, (T)v.s2);                                              \
                    acc = rs_combine(acc, (T)v.s3);                                              \
                }                                                                                \
            } else {                                                                             \
                for (uint k = 0; k < RS_COARSE_K; k++) {                                         \
                    for (uint v = 0; v < RS_COARSE_V; v++) {                                     \
                        const ulong i = base + k * RS_GROUP * RS_COARSE_V + t * RS_COARSE_V + v; \
                        acc = rs_combine(acc, i < n ? RS_LOAD(in, i) : IDENTITY);                \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
            l[t] = acc;                                                                          \
            rs_tree_seq(l, t); /* reduce_common.clh */                                           \
            if (t == 0) partials[tile] = l[0];                                                   \
            barrier(CLK_LOCAL_MEM_FENCE); /* work-item 0 may still read l[1] */ \
        }                                                                                        \
    }

RS_COARSENED_KERNEL(reduce_coarsened_in, IN_T)
RS_COARSENED_KERNEL(reduce_coarsened_t, T)
