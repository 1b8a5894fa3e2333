/* Scan by key in one pass for the exact operators (docs/ALGORITHMS.md, "Scan by key", one pass). Twin:
 * kernels_cu/scan_by_key.cu, whose header gives the algorithm: tiles of the positions scanned with the segmented
 * operator (f1, v1) (+) (f2, v2) = (f1 | f2, f2 ? v2 : v1 (+) v2), a head's value init (+) x[head]; a tile's pair
 * published at once (INC when it holds a head, else AGG, then INC after its look-back); the carry of a tile whose
 * first position is not a head is the nearest INC before it combined with the AGGs after that INC. Built only for
 * the exact (dtype, op) pairs (rs_byk_exact: dtype == out dtype, 32- and 64-bit integers under any op, float32 /
 * float64 under min and max), where every order of combination gives the same bits, so the result is the rule's.
 *
 *   byk_exact_zero(words, count)      words[0 .. count) = 0 (the ticket counter and the slots)
 *   byk_scan_exact(keys, kkind, in, out, words, n, tiles, exclusive, init, spins, inplace)
 *                                     a group per tile, in ticket order (words[0]); tile i's slot at
 *                                     words[RS_SP_SLOT_BASE + i] (two words for 8-byte T: lookback.clh's format)
 *
 * The segmented scan of the same operators runs byk_scan_exact too, with kkind RS_KEYS_BITS (keys.clh): the heads are
 * the bits seg_scan_heads (segmented.cl) set at the segments' starts, and only the positions its segments cover are
 * stored.
 *
 * What differs from the CUDA twin, with the same results: the group's scan of the work-items' pairs is a Kogge-Stone
 * in local memory; work-item 0 alone looks back, one slot at a time, computing an empty slot's pair from the keys and
 * values by itself after `spins` polls (the CUDA twin: warp 0, 32 slots a round); RS_KEYS_BITS is a test at run time
 * (the CUDA twin: a template flag, an instance of its own). */
#ifdef cl_khr_int64_base_atomics

#define RS_BYKX_ITEMS (RS_SP_WIDE ? 8u : 16u) /* 64 bytes of values a work-item */
#define RS_BYKX_TILE (RS_GROUP * RS_BYKX_ITEMS)

kernel void byk_exact_zero(global ulong *words, ulong count)
{
    for (ulong i = get_global_id(0); i < count; i += get_global_size(0)) words[i] = 0;
}

/* The positions read and stored, [*lo, *hi): all of them for scan by key; for a segmented scan (RS_KEYS_BITS) those
 * of its segments, none after faulty offsets. The values outside read as the identity: the heads at lo and hi keep
 * them out of every segment's values, and the input there need not be initialized (Oclgrind checks that it is, for
 * what is read; the CUDA twin reads them and stores nothing there). */
inline void rs_bykx_bounds(global const void *keys, uint kkind, ulong n, ulong *lo, ulong *hi)
{
    *lo = 0;
    *hi = n;
    if (kkind == RS_KEYS_BITS) {
        global const ulong *b = (global const ulong *)keys;
        *lo = b[0];
        *hi = b[2] ? 0 : b[1];
    }
}

/* Work-item 0: the pair of tile i from the keys and values, left to right (the look-back's slow path). */
inline uint rs_bykx_tile_pair(global const void *keys, uint kkind, global const T *in, ulong n, ulong i, T init,
                              T *v)
{
    uint f = 0;
    T w = IDENTITY;
    ulong lo, hi;
    rs_bykx_bounds(keys, kkind, n, &lo, &hi);
    const ulong first = i * RS_BYKX_TILE;
    for (ulong p = first; p < first + RS_BYKX_TILE && p < n; p++) {
        const T x = p >= lo && p < hi ? in[p] : IDENTITY;
        if (rs_key_head(keys, kkind, p)) {
            w = rs_combine(init, x);
            f = 1;
        } else {
            w = rs_combine(w, x);
        }
    }
    *v = w;
    return f;
}

/* Work-item 0, tile j whose first position is not a head: its carry. Slots j - 1, j - 2, ... : AGGs are combined in
 * front of what was gathered, the first INC ends it; an empty slot after `spins` polls is computed and published. */
inline T rs_bykx_lookback(global const void *keys, uint kkind, global const T *in, ulong n, global ulong *slots,
                          ulong j, T init, uint spins, int inplace)
{
    T later = IDENTITY;
    for (ulong i = j - 1;; i--) { /* tile 0 always holds a head: its slot is an INC */
        T v = IDENTITY;
        uint st = rs_sp_poll(slots, i, &v, spins);
        if (!st) {
            st = rs_bykx_tile_pair(keys, kkind, in, n, i, init, &v) ? RS_SP_INC : RS_SP_AGG;
            if (inplace) { /* the owner publishes before it overwrites its input: a published value wins */
                mem_fence(CLK_GLOBAL_MEM_FENCE);
                T pub;
                const uint got = rs_sp_read(slots, i, &pub);
                if (got) st = got, v = pub;
            }
            rs_sp_put(slots, i, st, v);
        }
        later = rs_combine(v, later);
        if (st == RS_SP_INC) return later;
    }
}

/* (f, v) (+) (f2, v2), the earlier pair first */
#define RS_BYKX_JOIN(f, v, f2, v2)                                                                                     \
    do {                                                                                                             \
        v = (f2) ? (v2) : rs_combine(v, v2);                                                                         \
        f = (f) | (f2);                                                                                              \
    } while (0)

kernel __attribute__((reqd_work_group_size(RS_GROUP, 1, 1))) void byk_scan_exact(
    global const void *keys, uint kkind, global const T *in, global T *out, global ulong *words, ulong n, ulong tiles,
    int exclusive, T init, uint spins, int inplace)
{
    local uint lf[RS_GROUP];
    local T lv[RS_GROUP];
    local ulong l_tile;
    local T l_carry;
    const uint t = (uint)get_local_id(0);
    global ulong *slots = words + RS_SP_SLOT_BASE;
    if (t == 0) l_tile = atom_inc(words);
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong j = l_tile;
    if (j >= tiles) return; /* uniform; never with `tiles` groups */
    const ulong first = j * RS_BYKX_TILE + (ulong)t * RS_BYKX_ITEMS;
    uint m = 0;
    if (kkind == RS_KEYS_BITS)
        m = rs_head_bits(keys, n, first, RS_BYKX_ITEMS);
    else
        for (uint h = 0; h < RS_BYKX_ITEMS; h += RS_COARSE_ITEMS) m |= rs_byk_heads(keys, kkind, n, first + h) << h;
    ulong lo, hi;
    rs_bykx_bounds(keys, kkind, n, &lo, &hi);
    T x[RS_BYKX_ITEMS];
    for (uint k = 0; k < RS_BYKX_ITEMS; k++) x[k] = first + k >= lo && first + k < hi ? in[first + k] : IDENTITY;
    /* this work-item's pair, then the group's inclusive pairs (Kogge-Stone in local memory) */
    uint f = m != 0;
    T v = IDENTITY;
    for (uint k = 0; k < RS_BYKX_ITEMS; k++) v = (m >> k) & 1u ? rs_combine(init, x[k]) : rs_combine(v, x[k]);
    lf[t] = f;
    lv[t] = v;
    for (uint d = 1; d < RS_GROUP; d <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        uint g = f;
        T w = v;
        if (t >= d) {
            g = lf[t - d];
            w = lv[t - d];
            RS_BYKX_JOIN(g, w, f, v);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        f = g, v = w;
        lf[t] = f;
        lv[t] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
        const uint tf = lf[RS_GROUP - 1];
        const T tv = lv[RS_GROUP - 1];
        rs_sp_put(slots, j, tf ? RS_SP_INC : RS_SP_AGG, tv);
        T c = IDENTITY;
        if (!(m & 1u)) { /* position first is not a head (never in tile 0) */
            c = rs_bykx_lookback(keys, kkind, in, n, slots, j, init, spins, inplace);
            if (!tf) rs_sp_put(slots, j, RS_SP_INC, rs_combine(c, tv));
        }
        l_carry = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (inplace) mem_fence(CLK_GLOBAL_MEM_FENCE); /* the slot is published before any input is overwritten */
    /* the running value before this work-item's first position, then its outputs */
    const uint pf = t ? lf[t - 1] : 0;
    const T pv = t ? lv[t - 1] : IDENTITY;
    T r = pf ? pv : rs_combine(l_carry, pv);
    const T head_ex = rs_combine(init, IDENTITY);
    for (uint k = 0; k < RS_BYKX_ITEMS; k++) {
        const int head = (m >> k) & 1u;
        const T inc = head ? rs_combine(init, x[k]) : rs_combine(r, x[k]);
        if (first + k >= lo && first + k < hi) out[first + k] = RS_OUT(exclusive ? (head ? head_ex : r) : inc);
        r = inc;
    }
}

#endif /* cl_khr_int64_base_atomics */
