/* Reduction "coarsened": thread coarsening over a fixed tile (seed 002), then the sequential-addressing
 * tree. Twin: kernels_cu/reduce_coarsened.cu.
 * Spec (docs/ALGORITHMS.md): V = 4, K = 4, TILE = GROUP*V*K = 4096. Work-item t folds, starting from the
 * identity, elements base + k*GROUP*V + t*V + v for k = 0..K-1 (outer), v = 0..V-1 (inner), identity past n;
 * then for (s = 128; s > 0; s >>= 1) l[t] = l[t] ⊕ l[t+s] (rs_tree_seq, reduce_common.clh). The seeds'
 * grid-stride loop would tie the order to the grid size; the fixed tile stride keeps it reproducible (G never
 * changes the result).
 *   reduce_coarsened_in(global const IN_T *in, ulong n, global T *partials, ulong out_off)  first pass, IN_T -> T
 *   reduce_coarsened_t (global const T *in,    ulong n, global T *partials, ulong out_off)  later passes */
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
        global const X *in, ulong n, global T *partials, ulong out_off)                          \
    {                                                                                            \
        partials += out_off; /* the last pass writes the caller's element (an _async result) */ \
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
                    acc = rs_combine(acc, RS_CVT_##X(v.s0));                                     \
                    acc = rs_combine(acc, RS_CVT_##X(v.s1));                                     \
                    acc = rs_combine(acc, RS_CVT_##X(v.s2));                                     \
                    acc = rs_combine(acc, RS_CVT_##X(v.s3));                                     \
                }                                                                                \
            } else {                                                                             \
                for (uint k = 0; k < RS_COARSE_K; k++) {                                         \
                    for (uint v = 0; v < RS_COARSE_V; v++) {                                     \
                        const ulong i = base + k * RS_GROUP * RS_COARSE_V + t * RS_COARSE_V + v; \
                        acc = rs_combine(acc, i < n ? RS_CVT_##X(in[i]) : IDENTITY);             \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
            l[t] = acc;                                                                          \
            rs_tree_seq(l, t); /* reduce_common.clh */                                           \
            if (t == 0) partials[tile] = RS_OUT(l[0]);                                           \
            barrier(CLK_LOCAL_MEM_FENCE); /* work-item 0 may still read l[1] */ \
        }                                                                                        \
    }

/* A program holds one shape (ocl_program_families.c): the CPU-shaped program is built with -DRS_SHAPE_CPU and
 * cpu_shape.clh, the GPU-shaped one without either. */
#ifndef RS_SHAPE_CPU
RS_COARSENED_KERNEL(reduce_coarsened_in, IN_T)
#if RS_T_KERNELS
RS_COARSENED_KERNEL(reduce_coarsened_t, T)
#endif
#else

/* ---- CPU shape (docs/ALGORITHMS.md, "CPU shape"): the same partials, bit for bit, for CPU devices ----
 *   reduce_coarsened_cpu_in(global const IN_T *in, ulong n, global T *partials, ulong per, ulong out_off)
 *   reduce_coarsened_cpu_t (global const T *in,    ulong n, global T *partials, ulong per, ulong out_off)
 * Work-groups of one work-item; work-item w reduces the contiguous tiles w*per .. min((w+1)*per, ntiles) - 1,
 * so a CPU thread streams through a long run of memory. Per tile it plays the whole group of the kernel above:
 * lane t's accumulator is slot t%16 of acc[t/16] (cpu_shape.clh); round k folds v = 0..3 into every lane, in that
 * order, from the 1024 contiguous elements of the round (64 per vector of 16 lanes: four 16-vector loads, transposed so
 * that vector v holds element t*V + v of each lane); then the sequential-addressing levels s = 128 .. 1 pair the
 * same lanes as rs_tree_seq. `per` and the number of work-items change only who computes a tile, never its bits. */
#define RS_COARSE_VECS (RS_GROUP / 16) /* vectors of 16 lanes */

/* rs_tree_seq on the lanes of acc (destroys acc): s = 128, 64, 32, 16 pair whole vectors, s = 8 .. 1 slots. */
static inline T rs_cpu_tree_seq(T16 *acc)
{
    for (uint s = RS_COARSE_VECS / 2; s > 0; s >>= 1)
        for (uint q = 0; q < s; q++) acc[q] = rs_combine16(acc[q], acc[q + s]);
    T l[16];
    vstore16(acc[0], 0, l);
    for (uint s = 8; s > 0; s >>= 1)
        for (uint m = 0; m < s; m++) l[m] = rs_combine(l[m], l[m + s]);
    return l[0];
}

#define RS_COARSENED_CPU_KERNEL(NAME, X, XU, CVT16)                                                                 \
    kernel __attribute__((reqd_work_group_size(1, 1, 1))) void NAME(global const X *in, ulong n,                   \
                                                                     global T *partials, ulong per, ulong out_off) \
    {                                                                                                              \
        partials += out_off; /* the last pass writes the caller's element (an _async result) */                   \
        const ulong ntiles = (n + RS_COARSE_TILE - 1) / RS_COARSE_TILE;                                            \
        const ulong first = get_global_id(0) * per;                                                                \
        const ulong end = first + per < ntiles ? first + per : ntiles;                                             \
        for (ulong tile = first; tile < end; ++tile) {                                                             \
            const ulong base = tile * RS_COARSE_TILE;                                                              \
            T16 acc[RS_COARSE_VECS];                                                                               \
            if (base + RS_COARSE_TILE <= n) {                                                                      \
                for (uint q = 0; q < RS_COARSE_VECS; q++) acc[q] = RS_ID16;                                        \
                global const X *p = in + base;                                                                     \
                for (uint k = 0; k < RS_COARSE_K; k++, p += RS_GROUP * RS_COARSE_V) {                              \
                    for (uint q = 0; q < RS_COARSE_VECS; q++) {                                                    \
                        global const XU *r = (global const XU *)p + 4 * q;                                         \
                        const RS_CAT2(X, 16) a = r[0], b = r[1], c = r[2], d = r[3];                               \
                        T16 x = acc[q];                                                                            \
                        x = rs_combine16(x, CVT16((RS_CAT2(X, 16))(a.s048c, b.s048c, c.s048c, d.s048c)));          \
                        x = rs_combine16(x, CVT16((RS_CAT2(X, 16))(a.s159d, b.s159d, c.s159d, d.s159d)));          \
                        x = rs_combine16(x, CVT16((RS_CAT2(X, 16))(a.s26ae, b.s26ae, c.s26ae, d.s26ae)));          \
                        x = rs_combine16(x, CVT16((RS_CAT2(X, 16))(a.s37bf, b.s37bf, c.s37bf, d.s37bf)));          \
                        acc[q] = x;                                                                                \
                    }                                                                                              \
                }                                                                                                  \
            } else { /* the last tile: element by element, identity past n, as the kernel above */                \
                T lanes[RS_GROUP];                                                                                 \
                for (uint t = 0; t < RS_GROUP; t++) {                                                              \
                    T a = IDENTITY;                                                                                \
                    for (uint k = 0; k < RS_COARSE_K; k++)                                                         \
                        for (uint v = 0; v < RS_COARSE_V; v++) {                                                   \
                            const ulong i = base + k * RS_GROUP * RS_COARSE_V + t * RS_COARSE_V + v;               \
                            a = rs_combine(a, i < n ? RS_CVT_##X(in[i]) : IDENTITY);                               \
                        }                                                                                          \
                    lanes[t] = a;                                                                                  \
                }                                                                                                  \
                for (uint q = 0; q < RS_COARSE_VECS; q++) acc[q] = vload16(q, lanes);                              \
            }                                                                                                      \
            const T total = rs_cpu_tree_seq(acc); /* RS_OUT reads its argument twice: once here */            \
            partials[tile] = RS_OUT(total);                                                                        \
        }                                                                                                          \
    }

RS_COARSENED_CPU_KERNEL(reduce_coarsened_cpu_in, IN_T, rs_in16_u, rs_in16_t16)
#if RS_T_KERNELS
RS_COARSENED_CPU_KERNEL(reduce_coarsened_cpu_t, T, rs_t16_u, rs_t16)
#endif
#endif /* RS_SHAPE_CPU */
