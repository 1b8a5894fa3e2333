/* Launchers of the CUDA kernels (kernels_cu/<stem>.cu): plain C declarations, no CUDA C++.
 *
 * Integer codes are the public enums: dtype = redscan_dtype (1..6), op = redscan_op (0..3),
 * block = redscan_block_scan (1..4, never AUTO here). Accepted (in_dtype, out_dtype) pairs: equal, or the
 * widenings INT32->INT64, UINT32->UINT64, FLOAT32->FLOAT64; anything else returns cudaErrorInvalidValue.
 *
 * Every launcher enqueues on `stream` with `grid` blocks of RS_CU_GROUP threads (grid >= 1; the grid size never
 * changes results: blocks take tiles g, g + grid, ...), and returns cudaGetLastError() after the launch.
 * Sizes and indices are 64-bit. Tile sizes and the order of combination: docs/ALGORITHMS.md. */
#ifndef REDSCAN_CU_LAUNCH_H
#define REDSCAN_CU_LAUNCH_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launchers are internal to libredscan (the CUDA objects are not covered by C_VISIBILITY_PRESET). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define RS_CU_GROUP 256

/* ---- reductions: one partial of out_dtype per tile into partials[ceil(n / TILE)] ----
 * First pass: in_dtype = the input type; later passes over the partials: in_dtype = out_dtype. */
#define RS_CU_TREE_TILE 512
#define RS_CU_INTERLEAVED_TILE 256
#define RS_CU_COARSENED_TILE 4096
#define RS_CU_WARP_SYNC_TILE 512 /* warp_sync and shuffle: the tree's tiles and combinations, warp-level tails */
#define RS_CU_SHUFFLE_TILE 512
cudaError_t rs_cu_reduce_tree(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                              void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_cu_reduce_interleaved(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                     void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_cu_reduce_coarsened(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                   void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_cu_reduce_warp_sync(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                   void *partials, unsigned grid, cudaStream_t stream);
cudaError_t rs_cu_reduce_shuffle(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                 void *partials, unsigned grid, cudaStream_t stream);
/* A narrow out_dtype's result: src (device) holds the reduction's value in the 32-bit type the narrow type combines
 * in; dst (device) gets it in out_dtype, rounded once. One thread (reduce_coarsened.cu). */
cudaError_t rs_cu_reduce_store_out(int out_dtype, const void *src, void *dst, cudaStream_t stream);

/* ---- argmin / argmax: one (value, index) per tile of RS_CU_ARGEXT_TILE candidates ----
 * Candidates are vals[0..count-1]; their indices are idx[] (NULL on the first pass: the position). n is the
 * input's element count: an index >= n marks padding. out_vals / out_idx get ceil(count / TILE) entries. */
#define RS_CU_ARGEXT_TILE 2048
cudaError_t rs_cu_argext(int dtype, int want_max, const void *vals, const unsigned long long *idx,
                         unsigned long long count, unsigned long long n, void *out_vals, unsigned long long *out_idx,
                         unsigned grid, cudaStream_t stream);

/* ---- top-k: the best k (1 <= k <= 256) of every tile of RS_CU_TOPK_TILE candidates, best first ----
 * Arguments as for rs_cu_argext; largest selects the order. out_vals / out_idx get ceil(count / TILE) * k
 * entries (tile j's at j*k .. j*k+k-1). */
#define RS_CU_TOPK_TILE 1024
#define RS_CU_TOPK_MAX 256
cudaError_t rs_cu_topk(int dtype, int largest, const void *vals, const unsigned long long *idx,
                       unsigned long long count, unsigned long long n, unsigned k, void *out_vals,
                       unsigned long long *out_idx, unsigned grid, cudaStream_t stream);

/* ---- small k: one pass over the input, the best k of each block's share (topk.cu's topk_small) ----
 * out_vals / out_idx get grid * k pairs, best first per block (padding: index ~0); finish with rs_cu_topk (or
 * rs_cu_argext for k = 1) over those pairs. Any grid gives the same final result (the order is total). */
#define RS_CU_TOPK_SMALL_MAX 8
cudaError_t rs_cu_topk_small(int dtype, int largest, const void *vals, unsigned long long n, unsigned k,
                             void *out_vals, unsigned long long *out_idx, unsigned grid, cudaStream_t stream);
/* How many blocks of that kernel (for dtype, largest, k) fit on one SM of the current device; 0 if unknown. */
unsigned rs_cu_topk_small_blocks_per_sm(int dtype, int largest, unsigned k);

/* ---- scans (scan_grid.cu) ---- */
/* SECTION of a block scan (256, 256, 512, 2048), 0 for an unknown code. */
unsigned rs_cu_scan_section(int block);

/* Block-scans every section of n values of in (in_dtype) and writes L to out (out_dtype): inclusive, or
 * exclusive (the previous local value, identity at the section start). seeded = 0: out = L and
 * totals[j] = the section's total; seeded = 1 (one-section levels): out = *seed (+) L, totals untouched (may
 * be NULL). seed: host pointer to one element of out_dtype (read only when seeded). in == out allowed. */
cudaError_t rs_cu_scan_sections(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                void *totals, unsigned long long n, int exclusive, const void *seed, int seeded,
                                unsigned grid, cudaStream_t stream);

/* totals[j] = the total of section j, bit for bit the block scan's last element (reduce-then-scan). done != NULL
 * (the totals fit one section): the last block also scans them in place, exclusive, seeded with *seed (one T), as
 * a one-section scan_sections launch would; *done is a zeroed word the kernel leaves zeroed. */
cudaError_t rs_cu_scan_tile_reduce(int block, int in_dtype, int out_dtype, int op, const void *in, void *totals,
                                   unsigned long long n, const void *seed, unsigned *done, unsigned grid,
                                   cudaStream_t stream);

/* Block-scans every section again and writes out = carry[j] (+) L (reduce-then-scan, last kernel). */
cudaError_t rs_cu_scan_tile_seeded(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                   const void *carry, unsigned long long n, int exclusive, unsigned grid,
                                   cudaStream_t stream);

/* data[i] = carry[i / section] (+) data[i] for i < n (hierarchical, last kernel of a level). */
cudaError_t rs_cu_scan_add_carry(int dtype, int op, void *data, const void *carry, unsigned long long n,
                                 unsigned long long section, unsigned grid, cudaStream_t stream);

/* ---- single-pass scan (scan_single_pass.cu) ----
 * One launch: out = P[j] (+) L for every section j of block (docs/ALGORITHMS.md, single_pass). flags: the ticket
 * counter and the slots, rs_cu_scan_single_pass_words(section, n, out_dtype) words, all zero before the launch
 * (the caller clears them). init: host pointer to one element of out_dtype. spins: polls of a slot before the
 * block computes the value itself (0: never poll). inplace: in == out (a computed value is then checked against
 * its slot). per: tiles a block takes per ticket, 1 or 2 (tiles j, j + 1 for ticket j / 2). Neither the grid size
 * nor per changes results (tiles come from the ticket counter; the prefixes have the same bits). */
#define RS_CU_SP_SLOT_BASE 16ull
static inline unsigned long long rs_cu_scan_single_pass_words(unsigned long long section, unsigned long long n,
                                                              int out_dtype)
{
    const unsigned long long tiles = n / section + (n % section != 0);
    const unsigned long long per = (out_dtype == 3 || out_dtype == 4 || out_dtype == 6) ? 2 : 1;
    const unsigned long long groups = tiles / 32 + (tiles % 32 != 0); /* RS_SP_GROUP tiles per group */
    return RS_CU_SP_SLOT_BASE + (tiles + groups) * per;
}
cudaError_t rs_cu_scan_single_pass(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                   unsigned long long *flags, unsigned long long n, int exclusive, const void *init,
                                   unsigned spins, int inplace, unsigned per, unsigned grid, cudaStream_t stream);

/* ---- segments (segmented.cu; docs/ALGORITHMS.md "Segments") ----
 * kind: the offsets' redscan_dtype (INT32 .. UINT64). flags: RS_SEG_FLAG_WORDS words (api/src/backend.h); seg_check
 * gets flags as the call's word and flags + 1 as the sticky words (OpenCL: two buffers).
 * seg_check: the S + 1 offsets against n (the elements of in); the reductions write nothing when it found a fault.
 * Level `level` of the plan: level 0 reads src as in_dtype, later levels the T partials of the level before; part
 * gets this level's partials at their slots; out the finished segments (out_dtype, narrow included). */
cudaError_t rs_cu_seg_check(int kind, const void *offsets, unsigned long long num_segments, unsigned long long n,
                            unsigned *flags, unsigned grid, cudaStream_t stream);
/* The segmented scan of the exact operators (rs_byk_exact), instead of seg_check: heads (rs_cu_seg_heads_bytes(n)
 * bytes) zeroed by cudaMemsetAsync, then seg_scan_heads checks the offsets as seg_check does (flags as there) and
 * writes the head part that rs_cu_byk_exact reads as keys of kind RS_CU_KEYS_BITS: RS_CU_HEAD_WORDS uint64 (offsets[0]
 * and offsets[num_segments], the positions to store, and a fault word: nothing is stored when it is set), then the
 * bitmap of the segments' starts. n < 2^36. */
#define RS_CU_KEYS_BITS 64 /* not a redscan_dtype: kernels_cu/keys.cuh */
#define RS_CU_HEAD_WORDS 4
static inline unsigned long long rs_cu_seg_heads_bytes(unsigned long long n)
{
    return (RS_CU_HEAD_WORDS + 1 + n / 64) * 8;
}
cudaError_t rs_cu_seg_scan_heads(int kind, const void *offsets, unsigned long long num_segments, unsigned long long n,
                                 unsigned *flags, void *heads, unsigned grid, cudaStream_t stream);
/* Segmented scan (segmented_scan.cu): the look-back words zeroed (cudaMemsetAsync), seg_scan_short_pairs (float32
 * where the mean segment is short, or runs is not NULL), seg_scan_short, seg_scan_team, seg_scan_marks and
 * seg_scan_single in that order on the stream; init: one value of the compute type; lb: 16 + 4 x
 * places uint64 (counters, and a chunk and a group slot per place), marks: rs_cu_seg_scan_marks_words(places) uint64
 * (below), places >= windows =
 * ceil(n / 2048) (n: the elements of in); spins: polls per look-back slot before the slow path; runs: NULL, or the
 * device word (uint64) of the real count R <= num_segments, read by every kernel (scan by key's _async form:
 * num_segments is its bound, the kernels stop at R); grid_segments bounds the blocks of seg_scan_short (a thread per
 * segment), grid_windows for seg_scan_marks (a thread per window), grid_single persistent blocks for
 * seg_scan_single. */
#define RS_CU_SEG_TEAM_MIN 257
/* The marks part's uint64 words for `places`: the marks (2 a place), the team list (segments of RS_CU_SEG_TEAM_MIN ..
 * 2048 values: fewer than places x 2048 / RS_CU_SEG_TEAM_MIN + 1) and seg_scan_short_pairs' list of deferred batches
 * of 256 segments (uint32, two a deferred batch of 512): a deferred batch holds a segment of RS_CU_SEG_TEAM_MIN
 * values or more, or over 4096 values in all (disjoint ranges), so there are at most n / RS_CU_SEG_TEAM_MIN + n / 4097
 * of them. */
static inline unsigned long long rs_cu_seg_scan_team_words(unsigned long long places)
{
    return places * 2048 / RS_CU_SEG_TEAM_MIN + 1;
}
static inline unsigned long long rs_cu_seg_scan_marks_words(unsigned long long places)
{
    return 2 * places + rs_cu_seg_scan_team_words(places) + places * 2048 / RS_CU_SEG_TEAM_MIN + places * 2048 / 4097 +
           1;
}
cudaError_t rs_cu_seg_scan(int in_dtype, int out_dtype, int op, int exclusive, const void *init, const void *in,
                           void *out, int kind, const void *offsets, unsigned long long num_segments,
                           const unsigned *flags, void *lb, void *marks, unsigned long long windows,
                           unsigned long long places, unsigned spins, const void *runs, unsigned grid_segments,
                           unsigned grid_windows, unsigned grid_single, cudaStream_t stream);
/* Scan / reduce by key (segmented_scan.cu): byk_single makes the runs' offsets (R + 1 entries of the n + 1 the
 * buffer holds, of rs_cu_byk_offsets_kind(n): offsets[R] = n) in one pass, the run count R into *runs, and where
 * unique_keys is not NULL (reduce by key) unique_keys[r] = keys[offsets[r]] in the keys' width; words: ceil(n /
 * 2048) + 1 uint64 (the ticket counter and a look-back slot per ticket of 4 tiles: the first ceil(n / 8192) + 1 are
 * zeroed here); spins: REDSCAN_SINGLE_PASS_SPINS. n > 0. */
/* Scan by key in one pass for the exact operators (scan_by_key.cu): words (rs_cu_byk_exact_words(dtype, n) uint64:
 * the ticket counter and a slot per tile) zeroed by cudaMemsetAsync, then byk_scan_exact, a block per tile of 4096
 * (4-byte dtype) or 2048 (8-byte) positions (the tiles < 2^31). dtype == out_dtype: INT32 .. UINT64 with any op,
 * FLOAT32 / FLOAT64 with min or max (rs_byk_exact); init: one value of dtype; spins: REDSCAN_SINGLE_PASS_SPINS;
 * in may be out. n > 0. kkind: the keys' dtype, or RS_CU_KEYS_BITS with keys the head part of rs_cu_seg_scan_heads
 * (the segmented scan: only its segments' positions are stored). */
unsigned long long rs_cu_byk_exact_words(int dtype, unsigned long long n);
cudaError_t rs_cu_byk_exact(int dtype, int op, int exclusive, const void *init, int kkind, const void *keys,
                            const void *in, void *out, unsigned long long n, void *words, unsigned spins,
                            cudaStream_t stream);
cudaError_t rs_cu_byk_offsets(int kkind, const void *keys, unsigned long long n, void *offsets, void *words,
                              void *runs, void *unique_keys, unsigned spins, cudaStream_t stream);
/* The dtype of the runs' offsets rs_cu_byk_offsets writes for n keys: UINT32 while n < 2^32 (half the bytes to write
 * and to read again where runs are short), else UINT64. */
int rs_cu_byk_offsets_kind(unsigned long long n);
/* A segmented reduction (segmented.cu): the queue's count zeroed, seg_short, seg_medium, then when levels > 1
 * seg_tiles at levels 0 .. levels - 1; tiles = ceil(n / RS_SEG_TILE); ws_a, ws_b, marks, queue: the workspace of
 * rs_seg_ws_bytes (api/src/backend.h), q_bound the queue's capacity; runs: NULL (num_segments is the count) or the
 * device word of the real count R <= num_segments (reduce by key's _async form: the kernels stop at R). grid_short:
 * blocks for ceil(num_segments / 256) batches; grid_medium: for q_bound / 8 (a warp per entry, capped: seg_medium
 * then gives each warp c entries); grid_tiles: for tiles / 8. */
cudaError_t rs_cu_seg_reduce(int in_dtype, int out_dtype, int op, unsigned levels, const void *src, int kind,
                             const void *offsets, unsigned long long num_segments, unsigned long long tiles,
                             void *ws_a, void *ws_b, unsigned long long *marks, unsigned long long *queue,
                             unsigned long long q_bound, void *out, const unsigned *flags,
                             const unsigned long long *runs, unsigned grid_short, unsigned grid_medium,
                             unsigned grid_tiles, cudaStream_t stream);
/* Segmented argmin / argmax: the same launches over (value, index) pairs of dtype; ws_a, ws_b: rs_seg_ws_bytes with
 * RS_SEG_ARG_PAIR_BYTES per value; out_v may be NULL (no values wanted). */
cudaError_t rs_cu_seg_argext(int dtype, int want_max, unsigned levels, const void *src, int kind, const void *offsets,
                             unsigned long long num_segments, unsigned long long tiles, void *ws_a, void *ws_b,
                             unsigned long long *marks, unsigned long long *queue, unsigned long long q_bound,
                             void *out_v, unsigned long long *out_i, const unsigned *flags, unsigned grid_short,
                             unsigned grid_medium, unsigned grid_tiles, cudaStream_t stream);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* REDSCAN_CU_LAUNCH_H */
