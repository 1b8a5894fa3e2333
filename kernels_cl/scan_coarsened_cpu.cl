/* CPU shape of the coarsened block scan in the reduce-then-scan grid (docs/ALGORITHMS.md, "CPU shape"). No CUDA
 * twin: the CPU shape is OpenCL-only (CUDA devices are GPUs, which run the GPU-shaped kernels of the same expression,
 * tile_reduce_in_coarse and scan_tile_seeded_in_coarse of scan_grid.cu).
 *
 *   tile_reduce_cpu_in_coarse(global const IN_T *in, global T *totals, ulong n, ulong per, ulong in_off)
 *       totals[j] = the total of section j: the bits of tile_reduce_in_coarse (scan_grid.cl).
 *   scan_tile_seeded_cpu_in_coarse(global const IN_T *in, global OUT_T *out, global const T *carry, ulong n,
 *                                  int exclusive, T seed, int use_seed, ulong per, ulong in_off, ulong out_off)
 *       out = carry[j] (+) L for section j: the bits of scan_tile_seeded_in_coarse; with use_seed, seed stands
 *       for carry[j] (the one-section case, the bits of scan_sections_in_coarse with seeded = 1).
 *
 * Work-groups of one work-item; work-item w takes the contiguous sections w*per .. min((w+1)*per, nsec) - 1, so
 * a CPU thread streams through a long run of memory. It plays the 256 work-items of the GPU-shaped kernel for one
 * section at a time, 16 lanes at a time: 128 contiguous values are the 8-value sub-sections of 16 lanes, and two
 * 8 x 8 transposes (rs_cpu_to_lanes) turn them into 8 vectors, vector k holding value k of each of the 16 lanes.
 * Then, for all lanes at once:
 *   phase 1: P[k] = P[k-1] (+) X[k] (the sequential sub-section scan, acc = sub[0] first);
 *   phase 2: Kogge-Stone over the 256 lane totals P[7], steps d = 1 .. 128, aux[t] = aux[t-d] (+) aux[t] for t >= d
 *            (lane t - d is d slots back, in the previous vector for the first d slots);
 *   phase 3: lane t > 0: Y[k] = aux[t-1] (+) P[k] for k < 7, Y[7] = aux[t]; lane 0 keeps P;
 *   store:   out = RS_OUT(carry (+) L), L = Y back in memory order (inclusive) or shifted by one with the identity
 *            at the section start (exclusive), as rs_scan_store.
 * The section total (tile_reduce) is the balanced pairwise tree over the 256 lane totals.
 * The whole section is read before any of it is written: in == out is safe.
 * in_off / out_off: element offsets of the first value, as in scan_grid.cl (0 for the scans; the scan parts pass
 * theirs). The vector loads and stores are element-aligned (rs_in16_u, rs_t16_u), so any offset works. */
#define RS_CPU_CHUNK 128                                   /* values of 16 lanes: 16 x RS_COARSE_ITEMS */
#define RS_CPU_CHUNKS (RS_SECTION_COARSE / RS_CPU_CHUNK)   /* 16: lane vectors per section */
#define RS_CPU_SECTION_VECS (RS_SECTION_COARSE / 16)       /* 128 */
#if RS_NARROW_OUT
#define RS_CPU_FULL_STORE(full) 0 /* narrow outputs store slot by slot through RS_STORE */
#else
#define RS_CPU_FULL_STORE(full) (full)
#endif

/* RS_CPU_CHUNK_LOOP, before each loop over a section's chunks: keeps the loop rolled for float16 / bfloat16 input.
 * Fully unrolled, the float16 -> float32 conversion (rs_in16_t16) and min / max's NaN selects made one basic block
 * whose instruction selection took Intel's OpenCL CPU compiler 463 s for scan_tile_seeded_cpu_in_coarse (12 s
 * rolled; test_narrow's level-0 shard 2 on Intel went from 527 s to 34 s). Other types keep the compiler's choice. */
#if RS_DTYPE == RS_FLOAT16 || RS_DTYPE == RS_BFLOAT16
#define RS_CPU_CHUNK_LOOP _Pragma("unroll 1")
#else
#define RS_CPU_CHUNK_LOOP
#endif

/* m[0..7] = chunk j (values 128j .. 128j + 127) of the section at base as T, identity past n. Full chunks take
 * eight vector loads. */
static inline void rs_cpu_load_chunk(T16 *m, global const IN_T *in, ulong base, ulong n, uint j)
{
    const ulong at = base + RS_CPU_CHUNK * j;
    if (at + RS_CPU_CHUNK <= n) {
        global const rs_in16_u *p = (global const rs_in16_u *)(in + at);
#pragma unroll
        for (uint i = 0; i < RS_COARSE_ITEMS; i++) m[i] = rs_in16_t16(p[i]);
    } else {
        for (uint i = 0; i < RS_COARSE_ITEMS; i++) {
            T e[16];
            for (uint s = 0; s < 16; s++) {
                const ulong g = at + 16 * i + s;
                e[s] = g < n ? RS_LOAD(in, g) : IDENTITY;
            }
            m[i] = vload16(0, e);
        }
    }
}

/* 8 x 8 transpose: x[k] slot i = r[i] slot k. Three stages of two-input shuffles that compile to the usual
 * unpack / shuffle / 128-bit permute sequence (24 instructions for 32-bit T on AVX). Its own inverse. */
static inline void rs_cpu_transpose8(const T8 *r, T8 *x)
{
    T8 t[8], u[8];
#pragma unroll
    for (uint i = 0; i < 8; i += 2) {
        t[i] = (T8)(r[i].s0, r[i + 1].s0, r[i].s1, r[i + 1].s1, r[i].s4, r[i + 1].s4, r[i].s5, r[i + 1].s5);
        t[i + 1] = (T8)(r[i].s2, r[i + 1].s2, r[i].s3, r[i + 1].s3, r[i].s6, r[i + 1].s6, r[i].s7, r[i + 1].s7);
    }
#pragma unroll
    for (uint i = 0; i < 8; i += 4) {
        u[i] = (T8)(t[i].s01, t[i + 2].s01, t[i].s45, t[i + 2].s45);
        u[i + 1] = (T8)(t[i].s23, t[i + 2].s23, t[i].s67, t[i + 2].s67);
        u[i + 2] = (T8)(t[i + 1].s01, t[i + 3].s01, t[i + 1].s45, t[i + 3].s45);
        u[i + 3] = (T8)(t[i + 1].s23, t[i + 3].s23, t[i + 1].s67, t[i + 3].s67);
    }
#pragma unroll
    for (uint k = 0; k < 4; k++) {
        x[k] = (T8)(u[k].lo, u[k + 4].lo);
        x[k + 4] = (T8)(u[k].hi, u[k + 4].hi);
    }
}

/* Memory order -> lane order for one chunk: m[i] = the values of lanes 2i (.lo) and 2i + 1 (.hi) of the chunk,
 * each lane's 8 values contiguous; x[k] slot l = value k of lane l. Lanes 0-7 and 8-15 are two 8 x 8 transposes. */
static inline void rs_cpu_to_lanes(const T16 *m, T16 *x)
{
    T8 r[16], a[8], b[8];
#pragma unroll
    for (uint i = 0; i < 8; i++) {
        r[2 * i] = m[i].lo;
        r[2 * i + 1] = m[i].hi;
    }
    rs_cpu_transpose8(r, a);
    rs_cpu_transpose8(r + 8, b);
#pragma unroll
    for (uint k = 0; k < 8; k++) x[k] = (T16)(a[k], b[k]);
}

/* The inverse of rs_cpu_to_lanes. */
static inline void rs_cpu_to_memory(const T16 *x, T16 *m)
{
    T8 a[8], b[8], r[16];
#pragma unroll
    for (uint k = 0; k < 8; k++) {
        a[k] = x[k].lo;
        b[k] = x[k].hi;
    }
    rs_cpu_transpose8(a, r);
    rs_cpu_transpose8(b, r + 8);
#pragma unroll
    for (uint i = 0; i < 8; i++) m[i] = (T16)(r[2 * i], r[2 * i + 1]);
}

/* Phase 1 of one chunk: m in memory order -> p[k] slot l = the scanned value k of lane l of the chunk (the GPU
 * kernel's sub[k] after phase 1; p may be NULL); returns the lane totals. */
static inline T16 rs_cpu_phase1(const T16 *m, T16 *p)
{
    T16 x[RS_COARSE_ITEMS];
    rs_cpu_to_lanes(m, x);
    T16 acc = x[0];
    if (p) p[0] = acc;
#pragma unroll
    for (uint k = 1; k < RS_COARSE_ITEMS; k++) {
        acc = rs_combine16(acc, x[k]);
        if (p) p[k] = acc;
    }
    return acc;
}

/* Lanes shifted by d (1, 2, 4, 8) across a pair of lane vectors: slot l = lane 16j + l - d, where prev holds
 * lanes 16(j-1) .. 16j - 1 and cur lanes 16j .. 16j + 15. */
#define RS_CPU_SHIFT1(prev, cur) ((T16)((prev).sf, (cur).s0, (cur).s12, (cur).s3456, (cur).s789abcde))
#define RS_CPU_SHIFT2(prev, cur) ((T16)((prev).sef, (cur).s0123, (cur).s456789ab, (cur).scd))
#define RS_CPU_SHIFT4(prev, cur) ((T16)((prev).scdef, (cur).s0123, (cur).s456789ab))
#define RS_CPU_SHIFT8(prev, cur) ((T16)((prev).hi, (cur).lo))

/* One Kogge-Stone step d < 16 over the 16 lane vectors, in place: from the last vector down, so every read sees
 * the values of the previous step; lanes t < d (slots < d of vector 0) keep theirs. */
#define RS_CPU_KS_STEP(aux, SHIFT, d)                                                                              \
    do {                                                                                                           \
        for (uint j = RS_CPU_CHUNKS - 1; j > 0; j--) aux[j] = rs_combine16(SHIFT(aux[j - 1], aux[j]), aux[j]);     \
        aux[0] = select(aux[0], rs_combine16(SHIFT(aux[0], aux[0]), aux[0]), RS_SLOT16 >= (d));                    \
    } while (0)

/* Phase 2: Kogge-Stone over the 256 lane totals (rs_block_scan_coarse's aux), in place. */
static inline void rs_cpu_kogge_stone(T16 *aux)
{
    RS_CPU_KS_STEP(aux, RS_CPU_SHIFT1, 1);
    RS_CPU_KS_STEP(aux, RS_CPU_SHIFT2, 2);
    RS_CPU_KS_STEP(aux, RS_CPU_SHIFT4, 4);
    RS_CPU_KS_STEP(aux, RS_CPU_SHIFT8, 8);
    for (uint dv = 1; dv < RS_CPU_CHUNKS; dv <<= 1) /* d = 16 dv: whole vectors */
        for (uint j = RS_CPU_CHUNKS - 1; j >= dv; j--) aux[j] = rs_combine16(aux[j - dv], aux[j]);
}

/* The balanced pairwise tree over the 256 lane totals (destroys tot): levels 1-4 pair neighbouring lanes of two
 * vectors at a time (even (+) odd slots), levels 5-8 run on the last vector's slots. */
static inline T rs_cpu_pairwise_total(T16 *tot)
{
    for (uint count = RS_CPU_CHUNKS; count > 1; count >>= 1)
        for (uint r = 0; r < count / 2; r++) {
            const T16 p = tot[2 * r], q = tot[2 * r + 1];
            tot[r] = rs_combine16((T16)(p.even, q.even), (T16)(p.odd, q.odd));
        }
    T l[16];
    vstore16(tot[0], 0, l);
    for (uint w = 16; w > 1; w >>= 1)
        for (uint i = 0; i < w / 2; i++) l[i] = rs_combine(l[2 * i], l[2 * i + 1]);
    return l[0];
}

kernel __attribute__((reqd_work_group_size(1, 1, 1))) void tile_reduce_cpu_in_coarse(global const IN_T *in_base,
                                                                                      global T *totals, ulong n,
                                                                                      ulong per, ulong in_off)
{
    global const IN_T *in = in_base + in_off;
    const ulong nsec = (n + (RS_SECTION_COARSE - 1)) / RS_SECTION_COARSE;
    const ulong first = get_global_id(0) * per;
    const ulong end = first + per < nsec ? first + per : nsec;
    for (ulong sec = first; sec < end; ++sec) {
        T16 tot[RS_CPU_CHUNKS];
        RS_CPU_CHUNK_LOOP
        for (uint j = 0; j < RS_CPU_CHUNKS; j++) {
            T16 m[RS_COARSE_ITEMS];
            rs_cpu_load_chunk(m, in, sec * RS_SECTION_COARSE, n, j);
            tot[j] = rs_cpu_phase1(m, NULL);
        }
        totals[sec] = rs_cpu_pairwise_total(tot);
    }
}

kernel __attribute__((reqd_work_group_size(1, 1, 1))) void scan_tile_seeded_cpu_in_coarse(
    global const IN_T *in_base, global OUT_T *out_base, global const T *carry, ulong n, int exclusive, T seed,
    int use_seed, ulong per, ulong in_off, ulong out_off)
{
    global const IN_T *in = in_base + in_off;
    global OUT_T *out = out_base + out_off;
    const ulong nsec = (n + (RS_SECTION_COARSE - 1)) / RS_SECTION_COARSE;
    const ulong first = get_global_id(0) * per;
    const ulong end = first + per < nsec ? first + per : nsec;
    for (ulong sec = first; sec < end; ++sec) {
        const ulong base = sec * RS_SECTION_COARSE;
        const int full = base + RS_SECTION_COARSE <= n;
        const T16 c = (T16)(use_seed ? seed : carry[sec]);
        T16 buf[RS_CPU_SECTION_VECS], aux[RS_CPU_CHUNKS]; /* phase-1 values in lane order; lane totals */
        RS_CPU_CHUNK_LOOP
        for (uint j = 0; j < RS_CPU_CHUNKS; j++) {
            T16 m[RS_COARSE_ITEMS];
            rs_cpu_load_chunk(m, in, base, n, j);
            aux[j] = rs_cpu_phase1(m, buf + RS_COARSE_ITEMS * j);
        }
        rs_cpu_kogge_stone(aux);
        T16 prev = RS_ID16; /* exclusive: the value before the section start is the identity */
        RS_CPU_CHUNK_LOOP
        for (uint j = 0; j < RS_CPU_CHUNKS; j++) {
            const T16 *p = buf + RS_COARSE_ITEMS * j;
            const T16 before = RS_CPU_SHIFT1(j > 0 ? aux[j - 1] : aux[0], aux[j]); /* aux[t-1] */
            T16 y[RS_COARSE_ITEMS], m[RS_COARSE_ITEMS];
#pragma unroll
            for (uint k = 0; k < RS_COARSE_ITEMS - 1; k++) y[k] = rs_combine16(before, p[k]);
            if (j == 0) /* lane 0 has no previous sub-section */
                for (uint k = 0; k < RS_COARSE_ITEMS - 1; k++) y[k] = select(y[k], p[k], RS_SLOT16 == 0);
            y[RS_COARSE_ITEMS - 1] = aux[j];
            rs_cpu_to_memory(y, m);
            for (uint i = 0; i < RS_COARSE_ITEMS; i++) {
                const T16 l = exclusive ? RS_CPU_SHIFT1(prev, m[i]) : m[i];
                prev = m[i];
                const T16 v = rs_combine16(c, l);
                const T16 o = RS_OUT16(v);
                const ulong at = base + RS_CPU_CHUNK * j + 16 * i;
                if (RS_CPU_FULL_STORE(full)) {
                    *(global rs_t16_u *)(out + at) = o;
                } else {
                    T e[16];
                    vstore16(o, 0, e);
                    for (uint s = 0; s < 16; s++)
                        if (at + s < n) out[at + s] = RS_STORE(e[s]);
                }
            }
        }
    }
}
