/* top-k (1 <= k <= 256), best first. Twin: kernels_cu/topk.cu.
 * Spec (docs/ALGORITHMS.md): the total order rs_before (common.clh: NaN first, then by value — smaller with
 * RS_OP = MIN, larger with RS_OP = MAX — ties to the lower index, padding last). A pass cuts its candidates
 * into tiles of 1024 (4 per work-item: slots t, t+256, t+512, t+768), sorts each tile in local memory with a
 * bitonic network and writes its best k pairs to out[tile*k .. tile*k+k-1]. The host repeats passes over the
 * flat candidate array until one tile is left; that tile's k pairs are the result. Every barrier is reached
 * by all 256 work-items (the seed's top-2 put one inside `if (threadIdx.x < i)`; never here).
 *   topk_in   (global const IN_T *in, ulong n, uint k, global IN_T *out_val, global ulong *out_idx)
 *       first pass; the index of in[i] is i.
 *   topk_pairs(global const IN_T *val, global const ulong *idx, ulong m, ulong n, uint k,
 *              global IN_T *out_val, global ulong *out_idx)
 *       later passes over m candidates; n is the original length so padding still ranks last. */
#define RS_TOPK_PER 4
#define RS_TOPK_TILE (RS_GROUP * RS_TOPK_PER)
#define RS_TOPK_PAD ((ulong)-1) /* index of a padding slot: >= n, so it ranks last */

/* Bitonic sort of lv/li[0..1023], best first. Each step is 512 compare-exchanges, 2 per work-item, with a
 * barrier before it; all loop bounds are constants, so every work-item reaches every barrier. */
inline void rs_topk_sort(local IN_T *lv, local ulong *li, uint t, ulong n)
{
    for (uint size = 2; size <= RS_TOPK_TILE; size <<= 1) {
        for (uint stride = size >> 1; stride > 0; stride >>= 1) {
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint j = 0; j < RS_TOPK_TILE / 2 / RS_GROUP; j++) {
                const uint p = t + j * RS_GROUP;                 /* pair number, 0..511 */
                const uint lo = 2 * p - (p & (stride - 1));     /* lower slot of the pair */
                const uint hi = lo + stride;
                const int best_first = (lo & size) == 0;        /* direction of this bitonic block */
                const IN_T vlo = lv[lo], vhi = lv[hi];
                const ulong ilo = li[lo], ihi = li[hi];
                if (rs_before(vhi, ihi, vlo, ilo, n) == best_first) {
                    lv[lo] = vhi;
                    li[lo] = ihi;
                    lv[hi] = vlo;
                    li[hi] = ilo;
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* One body for both kernels. COUNT: slots in the input; VAL(p)/IDX(p): the pair at slot p < COUNT.
 * Padding slots are never read. The tile loop condition is uniform across the group. */
#define RS_TOPK_BODY(COUNT, VAL, IDX)                                                            \
    local IN_T lv[RS_TOPK_TILE];                                                                 \
    local ulong li[RS_TOPK_TILE];                                                                \
    const uint t = get_local_id(0);                                                              \
    const ulong ntiles = ((COUNT) + RS_TOPK_TILE - 1) / RS_TOPK_TILE;                            \
    for (ulong tile = get_group_id(0); tile < ntiles; tile += get_num_groups(0)) {               \
        for (uint j = 0; j < RS_TOPK_PER; j++) {                                                 \
            const uint s = t + j * RS_GROUP;                                                     \
            const ulong p = tile * RS_TOPK_TILE + s;                                             \
            lv[s] = p < (COUNT) ? VAL(p) : (IN_T)0;                                              \
            li[s] = p < (COUNT) ? IDX(p) : RS_TOPK_PAD;                                          \
        }                                                                                        \
        rs_topk_sort(lv, li, t, n);                                                              \
        if (t < k) {                                                                             \
            out_val[tile * k + t] = lv[t];                                                       \
            out_idx[tile * k + t] = li[t];                                                       \
        }                                                                                        \
        barrier(CLK_LOCAL_MEM_FENCE); /* lv/li[0..k-1] are read before the next tile rewrites them */ \
    }

/* Which kernels a program holds (ocl_program_families.c): a top-k program is built with -DRS_TOPK_SMALL=K, K = 1, 2
 * or 8 (topk_small_K and topk_pairs) or 0 (topk_in and topk_pairs), so that it compiles only what one k needs; the
 * argmin / argmax program (argext.cl) leaves RS_TOPK_SMALL undefined and gets topk_small_1 alone. */
#if defined(RS_TOPK_SMALL) && RS_TOPK_SMALL == 0
#define RS_TOPK_IN_VAL(p) in[p]
#define RS_TOPK_IN_IDX(p) (p)
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void topk_in(
    global const IN_T *in, ulong n, uint k, global IN_T *out_val, global ulong *out_idx)
{
    RS_TOPK_BODY(n, RS_TOPK_IN_VAL, RS_TOPK_IN_IDX)
}
#endif

#ifdef RS_TOPK_SMALL

#define RS_TOPK_PAIR_VAL(p) val[p]
#define RS_TOPK_PAIR_IDX(p) idx[p]
kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void topk_pairs(
    global const IN_T *val, global const ulong *idx, ulong m, ulong n, uint k, global IN_T *out_val,
    global ulong *out_idx)
{
    RS_TOPK_BODY(m, RS_TOPK_PAIR_VAL, RS_TOPK_PAIR_IDX)
}
#endif

/* ---- small k (1 <= k <= 8): one pass over the input, one list per group (twin: topk.cu's topk_small) ----
 *   topk_small_K(global const IN_T *in, ulong n, uint k, global IN_T *out_val, global ulong *out_idx), K = 1, 2, 8
 * Every work-item keeps its best K in private memory, sorted best first, over a grid-stride walk of the input
 * (element i = first + r * stride); an element is inserted only if it goes before the list's last entry. The group
 * then merges its 256 lists pairwise in local memory (work-item t merges list t + s into list t, s = 128 .. 1) and
 * writes the best k of list 0 to out[group * k ..]. The order is total, so which work-item or group saw an element
 * never changes the final result; the host finishes with topk_pairs / argext_pairs. The loops bounded by K are
 * constant, so the lists stay in registers; the merge loop's barriers are in uniform control flow. */
#define RS_TOPK_SMALL_KERNEL(K)                                                                                     \
    kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void topk_small_##K(                              \
        global const IN_T *in, ulong n, uint k, global IN_T *out_val, global ulong *out_idx)                        \
    {                                                                                                               \
        local IN_T sv[RS_GROUP * K];                                                                                \
        local ulong si[RS_GROUP * K];                                                                               \
        const uint t = get_local_id(0);                                                                             \
        IN_T lv[K];                                                                                                 \
        ulong li[K];                                                                                                \
        for (uint q = 0; q < K; ++q) {                                                                              \
            lv[q] = RS_WORST_IN; /* the worst value: see the filter below */                                        \
            li[q] = RS_TOPK_PAD;                                                                                    \
        }                                                                                                           \
        const ulong stride = (ulong)get_num_groups(0) * RS_GROUP;                                                   \
        for (ulong i = (ulong)get_group_id(0) * RS_GROUP + t; i < n; i += stride) {                                 \
            IN_T x = in[i];                                                                                         \
            ulong xi = i;                                                                                           \
            /* indices only grow along a work-item's walk: only a NaN, a strictly better value or padding left  \
             * in the list can beat the last entry. Padding holds the worst value (it ranks last by its index), so \
             * "x is not worse than the last value" (true for a NaN) is a superset; rs_before decides */          \
            const int maybe = RS_OP == RS_MAX ? !(RS_KEY(x) < RS_KEY(lv[K - 1])) : !(RS_KEY(x) > RS_KEY(lv[K - 1])); \
            if (maybe && rs_before(x, xi, lv[K - 1], li[K - 1], n))                                                 \
                for (uint q = 0; q < K; ++q) /* carry x down: it lands in place, the last entry drops out */        \
                    if (rs_before(x, xi, lv[q], li[q], n)) {                                                        \
                        const IN_T tv = lv[q];                                                                      \
                        const ulong ti = li[q];                                                                     \
                        lv[q] = x;                                                                                  \
                        li[q] = xi;                                                                                 \
                        x = tv;                                                                                     \
                        xi = ti;                                                                                    \
                    }                                                                                               \
        }                                                                                                           \
        for (uint q = 0; q < K; ++q) {                                                                              \
            sv[t * K + q] = lv[q];                                                                                  \
            si[t * K + q] = li[q];                                                                                  \
        }                                                                                                           \
        for (uint s = RS_GROUP / 2; s > 0; s >>= 1) {                                                               \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                           \
            if (t < s) { /* list t <- best K of lists t and t + s; only work-item t touches list t */               \
                uint a = t * K, b = (t + s) * K;                                                                    \
                for (uint q = 0; q < K; ++q) {                                                                      \
                    const int take_b = rs_before(sv[b], si[b], sv[a], si[a], n);                                    \
                    lv[q] = take_b ? sv[b] : sv[a];                                                                 \
                    li[q] = take_b ? si[b] : si[a];                                                                 \
                    if (take_b) ++b;                                                                                \
                    else ++a;                                                                                       \
                }                                                                                                   \
                for (uint q = 0; q < K; ++q) {                                                                      \
                    sv[t * K + q] = lv[q];                                                                          \
                    si[t * K + q] = li[q];                                                                          \
                }                                                                                                   \
            }                                                                                                       \
        }                                                                                                           \
        if (t == 0) /* a loop to K, not k: constant indices keep lv / li in registers */                           \
            for (uint q = 0; q < K; ++q)                                                                            \
                if (q < k) {                                                                                        \
                    out_val[(ulong)get_group_id(0) * k + q] = lv[q];                                                \
                    out_idx[(ulong)get_group_id(0) * k + q] = li[q];                                                \
                }                                                                                                   \
    }

#if !defined(RS_TOPK_SMALL) || RS_TOPK_SMALL == 1
RS_TOPK_SMALL_KERNEL(1)
#elif RS_TOPK_SMALL == 2
RS_TOPK_SMALL_KERNEL(2)
#elif RS_TOPK_SMALL == 8
RS_TOPK_SMALL_KERNEL(8)
#endif
