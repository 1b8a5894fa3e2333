/* Single-pass grid scan (docs/ALGORITHMS.md, "Grid level", single_pass). Twin: kernels_cu/scan_single_pass.cu.
 *
 *   scan_single_pass_B(const IN_T *in, T *out, ulong *flags, ulong n, int exclusive, T init, uint spins,
 *                      int inplace)
 *
 * One launch. Tiles are the sections of the block scan B. A work-group takes a tile index j from the ticket
 * counter flags[0] (never its group id: a group only ever waits for lower tickets, which were taken by groups
 * that are running or done), loads and block-scans the tile (L, aggregate S[j] = L's last element, the same
 * bits as tile_reduce_in_B), and combines P[j] (+) L. The prefix P[j] is a fixed expression over the tree of
 * aligned blocks of tiles, never "whatever predecessors had published":
 *     B(0, i) = S[i],   B(k, i) = B(k-1, 2i) (+) B(k-1, 2i+1)      (tiles i*2^k .. (i+1)*2^k - 1)
 *     P[j] = init (+) B(k1, (j >> k1) - 1) (+) B(k2, (j >> k2) - 1) (+) ...   for the set bits k1 > k2 > ... of j
 * (left to right). Tile j publishes B(0, j), and B(k, j >> k) for k = 1, 2, ... while the low k bits of j are all
 * ones (the left child B(k-1, 2(j >> k)) comes from an earlier tile); then it gathers the B values of its prefix.
 *
 * Slots: flags + RS_SP_SLOT_BASE, B(k, i) at the in-order index (i << (k+1)) + 2^k - 1 (< 2 x tiles). A slot is
 * one 64-bit word (tag << 32 | value bits) for 32-bit T, two words (tag << 32 | low half, tag << 32 | high half)
 * for 64-bit T; written with atom_xchg and read with atom_add(p, 0), so the tag and the value are always read
 * together (never a flag read atomically next to a value read through a cache). The host zero-fills the
 * counter and the slots before each launch.
 *
 * Waits are bounded: a B(k, i) that is not published after `spins` polls is computed by the waiting group from
 * the input (the "decoupled fallback"): B(0, i) by reducing tile i with the tile_reduce expression (each
 * work-item folds its SECTION/256 contiguous values, then the pairwise tree: the same bits as S[i]), B(k, i)
 * from its two children, each published or computed in turn; computed values are published too. spins = 0
 * never polls before computing (testing: the fallback path alone). With inplace (in == out), a value computed
 * from the input is checked against its slot afterwards and the published one wins: the owner of tile i
 * publishes B(0, i) before it writes out (a global fence between), so a reduction that saw overwritten input
 * finds the slot published (message passing through the fences).
 *
 * Exactly one work-item (0) polls, publishes and runs the fallback bookkeeping (an explicit stack in local
 * memory, no recursion); the whole group takes part in a fallback tile reduction. Every barrier is in uniform
 * control flow: the loops' conditions are read from local memory by all work-items after a barrier.
 * Only built where the compiler has cl_khr_int64_base_atomics (the host checks the device's extensions). */
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define RS_SP_SLOT_BASE 16                 /* words before the slots: [0] the ticket counter */
#define RS_SP_TAG ((ulong)1 << 32)         /* "published" in the high half of a slot word */
#define RS_SP_LEVELS 64                    /* bits of a tile index */
#define RS_SP_NODES (2 * RS_SP_LEVELS + 2) /* explicit stack: at most 2 entries per level, plus the root */
#define RS_SP_IMASK (((ulong)1 << 57) - 1) /* node = i | k << 57 | expanded << 63 (tiles < 2^56) */
#define RS_SP_EXPANDED ((ulong)1 << 63)
#define RS_SP_DONE ((ulong)-1)             /* step result: P is ready */

#define RS_SP_CAT2(a, b) a##b
#define RS_SP_CAT(a, b) RS_SP_CAT2(a, b)
#define RS_SP_AS_T(x) RS_SP_CAT(as_, T)(x)

#if RS_OUT_DTYPE == RS_INT64 || RS_OUT_DTYPE == RS_UINT64 || RS_OUT_DTYPE == RS_FLOAT64
#define RS_SP_WIDE 1
#else
#define RS_SP_WIDE 0
#endif

inline ulong rs_sp_word(uint k, ulong i) { return (i << (k + 1)) + (((ulong)1 << k) - 1); }

inline void rs_sp_publish(__global ulong *slots, uint k, ulong i, T v)
{
    const ulong w = rs_sp_word(k, i);
#if RS_SP_WIDE
    const ulong b = as_ulong(v);
    atom_xchg(slots + 2 * w, RS_SP_TAG | (b & 0xffffffffUL));
    atom_xchg(slots + 2 * w + 1, RS_SP_TAG | (b >> 32));
#else
    atom_xchg(slots + w, RS_SP_TAG | (ulong)as_uint(v));
#endif
}

/* One poll of B(k, i): 1 and *v when published. */
inline int rs_sp_peek(__global ulong *slots, uint k, ulong i, T *v)
{
    const ulong w = rs_sp_word(k, i);
#if RS_SP_WIDE
    const ulong lo = atom_add(slots + 2 * w, (ulong)0);
    if ((lo >> 32) != 1) return 0;
    const ulong hi = atom_add(slots + 2 * w + 1, (ulong)0);
    if ((hi >> 32) != 1) return 0;
    *v = RS_SP_AS_T((hi << 32) | (lo & 0xffffffffUL));
#else
    const ulong x = atom_add(slots + w, (ulong)0);
    if ((x >> 32) != 1) return 0;
    *v = RS_SP_AS_T((uint)x);
#endif
    return 1;
}

/* State of work-item 0's bookkeeping for one tile j. Requests: the set bits b of j, ascending; bit b needs
 * B(b, (j >> b) - 1). For b below tz (the trailing ones of j), the chain publishes B(b+1, j >> (b+1)). */
typedef struct {
    ulong j;
    uint tz;      /* number of trailing one bits of j */
    uint rb;      /* next bit of j to look at */
    uint cur_bit; /* bit being resolved */
    int sp, vp;   /* node and value stack sizes */
    int pending;  /* the node on top waits for a group reduction of its tile */
    T cur;        /* the chain: B(rb, j >> rb) */
} rs_sp_state;

void rs_sp_start(rs_sp_state *st, __global ulong *slots, ulong j, T total)
{
    rs_sp_publish(slots, 0, j, total);
    st->j = j;
    uint tz = 0;
    for (ulong x = j; x & 1; x >>= 1) ++tz;
    st->tz = tz;
    st->rb = 0;
    st->cur_bit = 0;
    st->sp = 0;
    st->vp = 0;
    st->pending = 0;
    st->cur = total;
}

/* Work-item 0: run the bookkeeping until it needs the group to reduce a tile (returns its index) or P is ready
 * (returns RS_SP_DONE, P in *p). red: the group's reduction asked for by the previous call. */
ulong rs_sp_step(rs_sp_state *st, __global ulong *slots, __local ulong *nodes, __local T *vst, __local T *vals,
                 T red, uint spins, int inplace, T init, __local T *p)
{
    if (st->pending) {
        const ulong i = nodes[st->sp - 1] & RS_SP_IMASK;
        T v = red, pub;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        if (inplace && rs_sp_peek(slots, 0, i, &pub)) v = pub; /* the input may have been overwritten */
        else rs_sp_publish(slots, 0, i, v);
        st->sp--;
        vst[st->vp++] = v;
        st->pending = 0;
    }
    for (;;) {
        if (st->sp == 0) {
            if (st->vp) { /* request cur_bit resolved */
                const uint b = st->cur_bit;
                vals[b] = vst[--st->vp];
                if (b < st->tz) {
                    st->cur = rs_combine(vals[b], st->cur);
                    rs_sp_publish(slots, b + 1, st->j >> (b + 1), st->cur);
                }
                st->rb = b + 1;
            }
            while (st->rb < RS_SP_LEVELS && !((st->j >> st->rb) & 1)) st->rb++;
            if (st->rb >= RS_SP_LEVELS) {
                T acc = init;
                for (int b = RS_SP_LEVELS - 1; b >= 0; --b)
                    if ((st->j >> b) & 1) acc = rs_combine(acc, vals[b]);
                *p = acc;
                return RS_SP_DONE;
            }
            st->cur_bit = st->rb;
            nodes[st->sp++] = ((st->j >> st->rb) - 1) | ((ulong)st->rb << 57);
            continue;
        }
        const ulong node = nodes[st->sp - 1];
        const uint k = (uint)(node >> 57) & 63u;
        const ulong i = node & RS_SP_IMASK;
        if (node & RS_SP_EXPANDED) { /* both children are on the value stack, left below right */
            const T right = vst[--st->vp];
            const T left = vst[--st->vp];
            const T v = rs_combine(left, right);
            rs_sp_publish(slots, k, i, v);
            st->sp--;
            vst[st->vp++] = v;
            continue;
        }
        T v;
        int got = 0;
        for (uint s = 0; s < spins && !got; ++s) got = rs_sp_peek(slots, k, i, &v);
        if (got) {
            st->sp--;
            vst[st->vp++] = v;
            continue;
        }
        if (k == 0) {
            st->pending = 1;
            return i;
        }
        nodes[st->sp - 1] = node | RS_SP_EXPANDED;
        nodes[st->sp++] = (2 * i + 1) | ((ulong)(k - 1) << 57); /* right child, evaluated second */
        nodes[st->sp++] = (2 * i) | ((ulong)(k - 1) << 57);     /* left child, on top */
    }
}

/* The whole group: B(0, tile) from the input, the tile_reduce_in_B expression (work-item t folds its `items`
 * contiguous values, identity past n, then the pairwise tree over r). Returns it to every work-item. */
T rs_sp_reduce_tile(__global const IN_T *in, __local T *r, ulong tile, ulong n, uint section, int inplace)
{
    const uint t = (uint)get_local_id(0);
    const uint items = section / RS_GROUP;
    const ulong first = tile * section + (ulong)t * items;
    T acc = first < n ? RS_LOAD(in, first) : IDENTITY;
    for (uint k = 1; k < items; ++k) acc = rs_combine(acc, first + k < n ? RS_LOAD(in, first + k) : IDENTITY);
    if (inplace) mem_fence(CLK_GLOBAL_MEM_FENCE);
    r[t] = acc;
    return rs_scan_tree_total(r);
}

#define RS_SCAN_SINGLE_PASS_KERNEL(B, SECTION, AUX)                                                                  \
    __kernel void scan_single_pass_##B(__global const IN_T *in, __global T *out, __global ulong *flags, ulong n,     \
                                       int exclusive, T init, uint spins, int inplace)                               \
    {                                                                                                                \
        __local T s[SECTION];                                                                                        \
        __local T aux[AUX];                                                                                          \
        __local T r[RS_GROUP];                                                                                       \
        __local ulong nodes[RS_SP_NODES];                                                                            \
        __local T vst[RS_SP_LEVELS + 1];                                                                             \
        __local T vals[RS_SP_LEVELS];                                                                                \
        __local ulong tile_l, cmd_l;                                                                                 \
        __local T p_l;                                                                                               \
        const uint t = (uint)get_local_id(0);                                                                        \
        const ulong tiles = (n + (SECTION - 1)) / SECTION;                                                           \
        __global ulong *slots = flags + RS_SP_SLOT_BASE;                                                             \
        for (;;) {                                                                                                   \
            if (t == 0) tile_l = atom_inc(flags);                                                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                            \
            const ulong j = tile_l;                                                                                  \
            if (j >= tiles) break;                                                                                   \
            const ulong base = j * SECTION;                                                                          \
            rs_scan_load_in(s, in, base, n, SECTION);                                                                \
            rs_block_scan_##B(s, aux);                                                                               \
            rs_sp_state st;                                                                                          \
            if (t == 0) rs_sp_start(&st, slots, j, s[SECTION - 1]);                                                  \
            T red = IDENTITY;                                                                                        \
            for (;;) {                                                                                               \
                if (t == 0) cmd_l = rs_sp_step(&st, slots, nodes, vst, vals, red, spins, inplace, init, &p_l);      \
                barrier(CLK_LOCAL_MEM_FENCE);                                                                        \
                const ulong c = cmd_l;                                                                               \
                if (c == RS_SP_DONE) break;                                                                          \
                red = rs_sp_reduce_tile(in, r, c, n, SECTION, inplace);                                              \
            }                                                                                                        \
            /* in place: B(0, j) is published before any of tile j's input is overwritten */                        \
            if (inplace) mem_fence(CLK_GLOBAL_MEM_FENCE);                                                            \
            rs_scan_store(out, s, base, n, SECTION, exclusive, p_l, 1);                                              \
            barrier(CLK_LOCAL_MEM_FENCE); /* s, tile_l and p_l are refilled for the next tile */                     \
        }                                                                                                            \
    }

RS_SCAN_SINGLE_PASS_KERNEL(ks, RS_SECTION_KS, RS_AUX_KS)
RS_SCAN_SINGLE_PASS_KERNEL(ksdb, RS_SECTION_KSDB, RS_AUX_KSDB)
RS_SCAN_SINGLE_PASS_KERNEL(bk, RS_SECTION_BK, RS_AUX_BK)
RS_SCAN_SINGLE_PASS_KERNEL(coarse, RS_SECTION_COARSE, RS_AUX_COARSE)

#endif /* cl_khr_int64_base_atomics */
