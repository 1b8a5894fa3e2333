/* Grid-level scan kernels (docs/ALGORITHMS.md, "Scans" / "Grid level"). Twin: kernels_cu/scan_grid.cu.
 *
 * Every block scan B of the scan_*.clh headers (ks, ksdb, bk, coarse) gets, through RS_SCAN_GRID_KERNELS:
 *
 *   scan_sections_in_B(const IN_T *in, T *out, T *totals, ulong n, int exclusive, T seed, int seeded)
 *   scan_sections_t_B (const T *in,    T *out, T *totals, ulong n, int exclusive, T seed, int seeded)
 *       Block-scans every section of n values and writes L (inclusive, or exclusive: the previous local value,
 *       identity at the section start). seeded = 0: L as is, and totals[j] = the section's total (the block
 *       scan's last element). seeded = 1 (the one-section case): out = seed (+) L, totals is not touched.
 *       _in reads the input type (level 0, converting IN_T -> T); _t reads T (the levels of section totals,
 *       scanned in place with in == out).
 *   tile_reduce_in_B(const IN_T *in, T *totals, ulong n, ulong in_off)
 *       totals[j] = the total of section j, the same expression (so the same bits) as the block scan's last
 *       element: each work-item folds its SECTION/256 contiguous values left to right, then the balanced
 *       pairwise tree over the 256 work-item values.
 *   scan_tile_seeded_in_B(const IN_T *in, T *out, const T *carry, ulong n, int exclusive, ulong in_off,
 *                         ulong out_off)
 *       Block-scans every section again and writes out = carry[j] (+) L (reduce-then-scan, last kernel).
 *   in_off / out_off: element offsets of the first value (the sections start there); 0 for the scans, any value for
 *   the scan parts (redscan_scan_section_totals / _with_carries: a cl_mem has no pointer to offset). Every load and
 *   store is element-wise (RS_LOAD / RS_STORE), so any offset is aligned enough.
 *
 * and once, for every block scan:
 *   scan_add_carry(T *data, const T *carry, ulong n, ulong section)
 *       data[i] = carry[i / section] (+) data[i] (hierarchical, last kernel of each level); section is the
 *       block scan's SECTION, a multiple of 256.
 *   scan_totals_chain(T *s, ulong count, T init)
 *       The section totals S[0..count) -> the carries P[0..count) in place, in the chain order that AUTO uses
 *       (single_pass's prefix expression, see the kernel). One work-group.
 *
 * Sections are taken by a group-uniform loop (sec = group id, + groups launched, ...), so the grid size never
 * changes which values are combined, and the barriers in the loop are reached by every work-item. A group
 * reads its whole section into local memory before it writes any of it: in == out is safe. Nothing is read or
 * written at or past n; local slots past n hold the identity. Indices are 64-bit. */

/* Section loads and stores (rs_scan_load_in, rs_scan_load_t, rs_scan_store) and the section total
 * (rs_scan_tree_total): scan_io.clh, shared with scan_single_pass.cl.
 *
 * A program holds the kernels of one block scan (ocl_program_families.c): the host builds it with one of
 * -DRS_SCAN_BLOCK_KS, _KSDB, _BK, _COARSE and only that block's header, so a call never pays for compiling the
 * other three blocks' kernels. */

/* _in writes the caller's output (OUT_T), _t a level of totals (T). */
#define RS_SCAN_DST_in OUT_T
#define RS_SCAN_DST_t T
#define rs_scan_store_in rs_scan_store

#define RS_SCAN_SECTIONS_KERNEL(B, SFX, SRC_T, SECTION, AUX)                                                         \
    __kernel void scan_sections_##SFX##_##B(__global const SRC_T *in, __global RS_SCAN_DST_##SFX *out,               \
                                            __global T *totals,                                                      \
                                            ulong n, int exclusive, T seed, int seeded)                              \
    {                                                                                                                \
        __local T s[SECTION] __attribute__((aligned(16)));                                                           \
        __local T aux[AUX];                                                                                          \
        const ulong nsec = (n + (SECTION - 1)) / SECTION;                                                            \
        for (ulong sec = get_group_id(0); sec < nsec; sec += get_num_groups(0)) {                                    \
            const ulong base = sec * SECTION;                                                                        \
            rs_scan_load_##SFX(s, in, base, n, SECTION);                                                             \
            rs_block_scan_##B(s, aux);                                                                               \
            if (!seeded && get_local_id(0) == RS_GROUP - 1) totals[sec] = s[SECTION - 1];                            \
            rs_scan_store_##SFX(out, s, base, n, SECTION, exclusive, seed, seeded);                                  \
            barrier(CLK_LOCAL_MEM_FENCE); /* s is refilled for the next section */                                   \
        }                                                                                                            \
    }

#if RS_T_KERNELS
#define RS_SCAN_SECTIONS_T_KERNEL(B, SECTION, AUX) RS_SCAN_SECTIONS_KERNEL(B, t, T, SECTION, AUX)
#else
#define RS_SCAN_SECTIONS_T_KERNEL(B, SECTION, AUX)
#endif

#define RS_SCAN_GRID_KERNELS(B, SECTION, AUX)                                                                        \
    RS_SCAN_SECTIONS_KERNEL(B, in, IN_T, SECTION, AUX)                                                               \
    RS_SCAN_SECTIONS_T_KERNEL(B, SECTION, AUX)                                                                       \
                                                                                                                     \
    __kernel void tile_reduce_in_##B(__global const IN_T *in_base, __global T *totals, ulong n, ulong in_off)        \
    {                                                                                                                \
        __global const IN_T *in = in_base + in_off;                                                                  \
        __local T s[SECTION] __attribute__((aligned(16)));                                                           \
        __local T r[RS_GROUP];                                                                                       \
        const uint t = (uint)get_local_id(0);                                                                        \
        const uint items = (SECTION) / RS_GROUP;                                                                     \
        const ulong nsec = (n + (SECTION - 1)) / SECTION;                                                            \
        for (ulong sec = get_group_id(0); sec < nsec; sec += get_num_groups(0)) {                                    \
            rs_scan_load_in(s, in, sec * SECTION, n, SECTION);                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
            T acc = s[t * items];                                                                                    \
            for (uint k = 1; k < items; ++k) acc = rs_combine(acc, s[t * items + k]);                                \
            r[t] = acc;                                                                                              \
            const T total = rs_scan_tree_total(r);                                                                   \
            if (t == 0) totals[sec] = total;                                                                         \
            barrier(CLK_LOCAL_MEM_FENCE); /* s and r are refilled for the next section */                            \
        }                                                                                                            \
    }                                                                                                                \
                                                                                                                     \
    __kernel void scan_tile_seeded_in_##B(__global const IN_T *in_base, __global OUT_T *out_base,                  \
                                          __global const T *carry, ulong n, int exclusive, ulong in_off,             \
                                          ulong out_off)                                                             \
    {                                                                                                                \
        __global const IN_T *in = in_base + in_off;                                                                  \
        __global OUT_T *out = out_base + out_off;                                                                    \
        __local T s[SECTION] __attribute__((aligned(16)));                                                           \
        __local T aux[AUX];                                                                                          \
        const ulong nsec = (n + (SECTION - 1)) / SECTION;                                                            \
        for (ulong sec = get_group_id(0); sec < nsec; sec += get_num_groups(0)) {                                    \
            const ulong base = sec * SECTION;                                                                        \
            rs_scan_load_in(s, in, base, n, SECTION);                                                                \
            rs_block_scan_##B(s, aux);                                                                               \
            rs_scan_store(out, s, base, n, SECTION, exclusive, carry[sec], 1);                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
        }                                                                                                            \
    }

#if defined(RS_SHAPE_CPU) && defined(RS_SCAN_BLOCK_COARSE)
/* The CPU shape's program (with scan_coarsened_cpu.cl) takes only the totals scan from here: the kernel that reads T
 * (scan_sections_t_coarse, or scan_sections_in_coarse when IN_T is T: RS_T_KERNELS) and scan_add_carry. */
#if RS_T_KERNELS
RS_SCAN_SECTIONS_KERNEL(coarse, t, T, RS_SECTION_COARSE, RS_AUX_COARSE)
#else
RS_SCAN_SECTIONS_KERNEL(coarse, in, IN_T, RS_SECTION_COARSE, RS_AUX_COARSE)
#endif
#elif defined(RS_SCAN_BLOCK_KS)
RS_SCAN_GRID_KERNELS(ks, RS_SECTION_KS, RS_AUX_KS)
#elif defined(RS_SCAN_BLOCK_KSDB)
RS_SCAN_GRID_KERNELS(ksdb, RS_SECTION_KSDB, RS_AUX_KSDB)
#elif defined(RS_SCAN_BLOCK_BK)
RS_SCAN_GRID_KERNELS(bk, RS_SECTION_BK, RS_AUX_BK)
#elif defined(RS_SCAN_BLOCK_COARSE)
RS_SCAN_GRID_KERNELS(coarse, RS_SECTION_COARSE, RS_AUX_COARSE)
#else
#error "a scan program is built for one block scan: -DRS_SCAN_BLOCK_KS, _KSDB, _BK or _COARSE"
#endif

/* data[i] = carry[i / section] (+) data[i] for i < n. No local memory; the barrier guards nothing, but it makes
 * PoCL run its loop over work-items inside the section loop (straight-line, vectorisable code: 5x faster than
 * without it on PoCL 3.1), and costs next to nothing on GPUs. Every work-item reaches it (uniform loop). */
__kernel void scan_add_carry(__global T *data, __global const T *carry, ulong n, ulong section)
{
    const ulong nsec = (n + (section - 1)) / section;
    for (ulong sec = get_group_id(0); sec < nsec; sec += get_num_groups(0)) {
        const T p = carry[sec];
        const ulong base = sec * section;
        for (ulong j = 0; j < section / RS_GROUP; ++j) {
            const ulong g = base + j * RS_GROUP + get_local_id(0);
            if (g < n) {
                const T v = rs_combine(p, data[g]);
                data[g] = RS_OUT(v);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The AUTO grid's carries (docs/ALGORITHMS.md, "Grid level": AUTO): the section totals S[0..count) become, in place,
 * the prefixes of single_pass's fixed expression, with tiles = sections in groups of RS_CHAIN = 32 (j = 32g + p):
 *     T(g)  = S[32g] (+) S[32g+1] (+) ... (+) S[32g+31]                 (left to right, from S[32g] itself)
 *     A(-1) = init,   A(g) = A(g-1) (+) T(g)
 *     P[j]  = A(g-1) (+) (S[32g] (+) ... (+) S[j-1])   (p > 0);   P[32g] = A(g-1)   (no combination)
 * so that reduce_then_scan / hierarchical with these carries (out = P[j] (+) L) give single_pass's bits, with no
 * atomics (every device runs AUTO). Launched as ONE work-group of RS_GROUP work-items, over chunks of RS_GROUP groups
 * of 32 totals: work-item t folds T(g) of group g = chunk + t into local memory; work-item 0 runs the chain over the
 * chunk (A carried from chunk to chunk in its private memory) and leaves A(g-1) in place of T(g); work-item t then
 * rewrites its group's totals with P by a running left fold W. The folds start from S[32g] itself, never from the
 * identity (with this library's identities, -0.0 for float sums, identity (+) x has x's bits for every op, so that
 * would not show; the code follows the documented expression anyway). Stored
 * through RS_OUT, as the recursive totals scan (rs_scan_store) stores its carries. Every barrier is in the chunk loop,
 * whose trip count is uniform. ~count / 32 sequential combinations by one work-item: 1/65536 of the data for
 * coarsened sections.
 * OpenCL only: the CUDA backend runs AUTO as single_pass itself (backend_cuda/cuda_scan.c), so
 * kernels_cu/scan_grid.cu has no twin of this kernel. */
#define RS_CHAIN 32u
__kernel void scan_totals_chain(__global T *s, ulong count, T init)
{
    __local T a[RS_GROUP]; /* T(g) of the chunk's groups, then A(g-1) */
    const uint t = (uint)get_local_id(0);
    const ulong ngroups = (count + (RS_CHAIN - 1)) / RS_CHAIN;
    T acc = init; /* work-item 0: A(g-1) of the next group */
    for (ulong c0 = 0; c0 < ngroups; c0 += RS_GROUP) {
        const ulong g = c0 + t, lo = g * RS_CHAIN;
        const ulong hi = lo + RS_CHAIN < count ? lo + RS_CHAIN : count;
        if (g < ngroups) {
            T tg = s[lo];
            for (ulong j = lo + 1; j < hi; ++j) tg = rs_combine(tg, s[j]);
            a[t] = tg;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t == 0) {
            const uint m = ngroups - c0 < RS_GROUP ? (uint)(ngroups - c0) : RS_GROUP;
            for (uint k = 0; k < m; ++k) {
                const T tk = a[k];
                a[k] = acc;
                acc = rs_combine(acc, tk);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (g < ngroups) {
            const T prev = a[t];
            T w = s[lo];
            s[lo] = RS_OUT(prev);
            for (ulong j = lo + 1; j < hi; ++j) {
                const T x = s[j];
                const T p = rs_combine(prev, w);
                s[j] = RS_OUT(p);
                w = rs_combine(w, x);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* a is refilled for the next chunk */
    }
}
