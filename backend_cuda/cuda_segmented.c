/* CUDA backend: segmented reduction and argmin / argmax launches (kernels_cu/segmented.cu; docs/ALGORITHMS.md,
 * "Segments"). Host twin of backend_opencl/ocl_segmented.c: the same plan, the same launches in the same order.
 *
 * A call is: the call's fault word zeroed (cudaMemsetAsync), seg_check, then seg_short, seg_medium and seg_tiles per
 * level of the plan (rs_seg_plan_make; rs_cu_seg_reduce, and rs_cu_seg_argext over (value, index) pairs). Nothing
 * waits for the device; faulty offsets make every kernel write nothing, and the next synchronize reports them. */
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

static uint64_t rs_div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static redscan_status rs_seg_launched(redscan_ctx *ctx, cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return REDSCAN_OK;
    char buf[128];
    snprintf(buf, sizeof buf, "launch of %s", what);
    return rs_cuda_fail(ctx, err, buf);
}

/* The fault words, made on first use or by redscan_reserve (sticky words clear: synchronous, once per context). */
redscan_status rs_cuda_seg_words(redscan_ctx *ctx)
{
    rs_cuda *c = rs_cuda_of(ctx);
    cudaError_t err;
    if (!c->seg_flags) {
        void *p = NULL;
        err = cudaMalloc(&p, RS_SEG_FLAG_WORDS * sizeof(unsigned));
        if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMalloc (segment fault words)");
        err = cudaMemset(p, 0, RS_SEG_FLAG_WORDS * sizeof(unsigned));
        if (err == cudaSuccess) err = cudaMemset((unsigned *)p + 2, 0xff, sizeof(unsigned));
        if (err != cudaSuccess) {
            (void)cudaFree(p);
            return rs_cuda_fail(ctx, err, "cudaMemset (segment fault words)");
        }
        c->seg_flags = (unsigned *)p;
    }
    return REDSCAN_OK;
}

/* The fault words, then this call's word zeroed on the stream. */
static redscan_status rs_seg_flags(redscan_ctx *ctx, unsigned **flags)
{
    RS_CUDA_TRY(rs_cuda_seg_words(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    cudaError_t err = cudaMemsetAsync(c->seg_flags, 0, sizeof(unsigned), c->stream);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMemsetAsync (segment fault word)");
    *flags = c->seg_flags;
    return REDSCAN_OK;
}

static redscan_status rs_seg_check(redscan_ctx *ctx, redscan_dtype offsets_dtype, void *offsets, size_t S,
                                   size_t in_n, unsigned *flags)
{
    rs_cuda *c = rs_cuda_of(ctx);
    return rs_seg_launched(ctx,
                           rs_cu_seg_check((int)offsets_dtype, offsets, S, in_n, flags,
                                           rs_cuda_grid_for(c, rs_div_up((uint64_t)S + 1, RS_GROUP)), c->stream),
                           "seg_check");
}

/* Blocks for `warps` warps of work (queued segments, tiles), 8 per block, capped as every grid is (never changes
 * bits). */
static unsigned rs_seg_grid(rs_cuda *c, uint64_t warps) { return rs_cuda_grid_for(c, rs_div_up(warps, RS_GROUP / 32)); }

/* What a segmented reduction or argmin / argmax does before its kernels (rs_seg_reduce_call of ocl_segmented.c): the
 * workspace of rs_seg_ws_bytes for values of tsize bytes, the call's fault word zeroed, seg_check. */
static redscan_status rs_seg_begin(redscan_ctx *ctx, const rs_seg_plan *plan, size_t tsize, redscan_dtype offsets_dtype,
                                   void *offsets, size_t S, size_t in_n, void *ws[4], unsigned **flags)
{
    size_t bytes[4];
    rs_seg_ws_bytes(plan, tsize, bytes);
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 4, bytes, ws));
    RS_CUDA_TRY(rs_seg_flags(ctx, flags));
    return rs_seg_check(ctx, offsets_dtype, offsets, S, in_n, *flags);
}

/* A segmented reduction over S segments of the offsets (kind): seg_short, seg_medium, then seg_tiles per level
 * (rs_cu_seg_reduce). ws: the four buffers of rs_seg_ws_bytes; flags: the call's fault word, zeroed; runs: NULL, or
 * the device word of the real count R <= S (reduce by key's _async form). As rs_seg_reduce_levels of
 * ocl_segmented.c. */
static redscan_status rs_seg_reduce_levels(redscan_ctx *ctx, const rs_reduce_req *req, const rs_seg_plan *plan,
                                           const void *in, redscan_dtype kind, const void *offsets, uint64_t S,
                                           void *const *ws, const unsigned *flags, void *out, const void *runs)
{
    rs_cuda *c = rs_cuda_of(ctx);
    return rs_seg_launched(ctx,
                           rs_cu_seg_reduce((int)req->dtype, (int)req->out_dtype, (int)req->op, plan->levels, in,
                                            (int)kind, offsets, S, plan->tiles, ws[0], ws[1],
                                            (unsigned long long *)ws[2], (unsigned long long *)ws[3], plan->queue,
                                            out, flags, (const unsigned long long *)runs,
                                            rs_cuda_grid_for(c, rs_div_up(S, RS_GROUP)), rs_seg_grid(c, plan->queue),
                                            rs_seg_grid(c, plan->tiles), c->stream),
                           "seg_reduce");
}

redscan_status rs_cuda_segmented_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t in_n,
                                        redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out)
{
    RS_CUDA_TRY(rs_cuda_use(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    rs_seg_plan plan;
    rs_seg_plan_make(in_n, num_segments, &plan);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, redscan_dtype_size(req->dtype), "segmented reduce: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, out, redscan_dtype_size(req->out_dtype), "segmented reduce: argument 'out'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, offsets, redscan_dtype_size(offsets_dtype),
                                      "segmented reduce: argument 'offsets'"));
    void *ws[4] = {NULL, NULL, NULL, NULL};
    unsigned *flags = NULL;
    RS_CUDA_TRY(rs_seg_begin(ctx, &plan, redscan_dtype_size(rs_compute_dtype(req->out_dtype)), offsets_dtype, offsets,
                             num_segments, in_n, ws, &flags));
    RS_CUDA_TRY(rs_seg_reduce_levels(ctx, req, &plan, in, offsets_dtype, offsets, num_segments, ws, flags, out, NULL));
    c->seg_pending = 1;
    return REDSCAN_OK;
}

redscan_status rs_cuda_segmented_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t in_n,
                                        redscan_dtype offsets_dtype, void *offsets, size_t num_segments,
                                        void *indices, void *values)
{
    RS_CUDA_TRY(rs_cuda_use(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    rs_seg_plan plan;
    rs_seg_plan_make(in_n, num_segments, &plan);
    const size_t vsize = redscan_dtype_size(dtype);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, vsize, "segmented argmin/argmax: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, indices, 8, "segmented argmin/argmax: argument 'indices'"));
    if (values) RS_CUDA_TRY(rs_cuda_check_aligned(ctx, values, vsize, "segmented argmin/argmax: argument 'values'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, offsets, redscan_dtype_size(offsets_dtype),
                                      "segmented argmin/argmax: argument 'offsets'"));
    void *ws[4] = {NULL, NULL, NULL, NULL};
    unsigned *flags = NULL;
    RS_CUDA_TRY(
        rs_seg_begin(ctx, &plan, RS_SEG_ARG_PAIR_BYTES, offsets_dtype, offsets, num_segments, in_n, ws, &flags));
    RS_CUDA_TRY(rs_seg_launched(
        ctx,
        rs_cu_seg_argext((int)dtype, want_max, plan.levels, in, (int)offsets_dtype, offsets, num_segments, plan.tiles,
                         ws[0], ws[1], (unsigned long long *)ws[2], (unsigned long long *)ws[3], plan.queue, values,
                         (unsigned long long *)indices, flags, rs_cuda_grid_for(c, rs_div_up(num_segments, RS_GROUP)),
                         rs_seg_grid(c, plan.queue), rs_seg_grid(c, plan.tiles), c->stream),
        "seg_argext"));
    c->seg_pending = 1;
    return REDSCAN_OK;
}

/* Segmented scan (kernels_cu/segmented_scan.cu): the fault word zeroed, seg_check, then rs_cu_seg_scan (seg_scan_short,
 * the look-back slots zeroed, seg_scan_marks, seg_scan_single), as ocl_segmented.c launches them on a device with
 * 64-bit atomics. The exact operators (rs_seg_scan_one_pass) take seg_scan_heads (which checks the offsets too) and
 * byk_scan_exact instead. Scratch (rs_seg_scan_parts): the ticket counter and the slots (16 + 4 x places uint64: a chunk slot
 * and a group slot per place, two words each for 64-bit values) and the marks (2 uint64 per place); a chunk's values
 * live at its place, floor(its start / 2048), so nothing grows with the segment count. */
static uint64_t rs_seg_scan_places(uint64_t in_n) { return in_n / RS_SEG_SCAN_TILE + 1; }

static void rs_seg_scan_parts(uint64_t in_n, size_t bytes[2])
{
    bytes[0] = (size_t)(16 + 4 * rs_seg_scan_places(in_n)) * 8; /* >= rs_cu_byk_exact_words: the exact path's */
    bytes[1] = (size_t)rs_cu_seg_scan_marks_words(rs_seg_scan_places(in_n)) * 8; /* marks, lists */
    const size_t heads = (size_t)rs_cu_seg_heads_bytes(in_n); /* or the exact path's bounds and bitmap */
    if (heads > bytes[1]) bytes[1] = heads;
}

/* seg_scan_short: a thread per segment; seg_scan_marks: a thread per window; seg_scan_single: persistent blocks
 * taking windows from the ticket counter */
static void rs_seg_scan_grids(rs_cuda *c, uint64_t S, uint64_t windows, unsigned g[3])
{
    g[0] = rs_cuda_grid_for(c, rs_div_up(S, RS_GROUP));
    g[1] = rs_cuda_grid_for(c, rs_div_up(windows, RS_GROUP));
    g[2] = rs_cuda_grid_for(c, windows);
}

/* The chunk path's options: the spins of REDSCAN_SINGLE_PASS_SPINS; REDSCAN_SEGMENTED_SCAN_PATH=multi_pass is
 * refused (CUDA has the single-pass path only). */
static redscan_status rs_seg_scan_opts(redscan_ctx *ctx, unsigned *spins)
{
    int multi = 0;
    redscan_status st = rs_seg_scan_path(ctx, &multi);
    if (st != REDSCAN_OK) return st;
    if (multi)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                            "segmented scan: REDSCAN_SEGMENTED_SCAN_PATH=multi_pass is OpenCL's path for devices "
                            "without 64-bit atomics; the CUDA backend has the single-pass path only");
    return rs_single_pass_spins(ctx, spins);
}

redscan_status rs_cuda_segmented_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_n,
                                      redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out)
{
    RS_CUDA_TRY(rs_cuda_use(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, redscan_dtype_size(req->dtype), "segmented scan: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, out, redscan_dtype_size(req->out_dtype), "segmented scan: argument 'out'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, offsets, redscan_dtype_size(offsets_dtype),
                                      "segmented scan: argument 'offsets'"));
    const uint64_t windows = rs_div_up((uint64_t)in_n, RS_SEG_SCAN_TILE);
    unsigned g[3], spins;
    rs_seg_scan_grids(c, (uint64_t)num_segments, windows, g);
    size_t bytes[2];
    rs_seg_scan_parts(in_n, bytes);
    void *part[2] = {NULL, NULL};
    unsigned *flags = NULL;
    RS_CUDA_TRY(rs_seg_scan_opts(ctx, &spins));
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 2, bytes, part));
    RS_CUDA_TRY(rs_seg_flags(ctx, &flags));
    if (in_n > 0 && in_n < (1ull << 36) && rs_seg_scan_one_pass(req, 1)) {
        /* the exact operators: scan by key's one pass, the heads (and seg_check's checks) from the offsets
         * (docs/ALGORITHMS.md, "Segmented scans", one pass) */
        RS_CUDA_TRY(rs_seg_launched(ctx,
                                    rs_cu_seg_scan_heads((int)offsets_dtype, offsets, num_segments, in_n, flags,
                                                         part[1], g[0], c->stream),
                                    "seg_scan_heads"));
        RS_CUDA_TRY(rs_seg_launched(ctx,
                                    rs_cu_byk_exact((int)req->dtype, (int)req->op, req->exclusive, req->init.bytes,
                                                    RS_CU_KEYS_BITS, part[1], in, out, in_n, part[0], spins,
                                                    c->stream),
                                    "byk_scan_exact"));
        c->seg_pending = 1;
        return REDSCAN_OK;
    }
    RS_CUDA_TRY(rs_seg_check(ctx, offsets_dtype, offsets, num_segments, in_n, flags));
    RS_CUDA_TRY(rs_seg_launched(
        ctx,
        rs_cu_seg_scan((int)req->dtype, (int)req->out_dtype, (int)req->op, req->exclusive, req->init.bytes, in, out,
                       (int)offsets_dtype, offsets, num_segments, flags, part[0], part[1], windows, windows, spins,
                       NULL, g[0], g[1], g[2], c->stream),
        "seg_scan"));
    c->seg_pending = 1;
    return REDSCAN_OK;
}

/* Scan by key's scratch parts for n elements: the runs' offsets (room for n + 1 uint64; 32-bit ones below 2^32 keys,
 * rs_cu_byk_offsets_kind), byk_single's ticket counter and slots (ceil(n / 2048) + 1 uint64), the run count, then
 * the segmented scan's two parts (rs_seg_scan_parts). None depends on the run count or the value type, so the
 * blocking and the _async form use the same, known before any kernel runs. */
static void rs_byk_scan_parts(uint64_t n, size_t bytes[5])
{
    const size_t nb = (size_t)rs_div_up(n, RS_SEG_SCAN_TILE);
    const size_t b[3] = {((size_t)n + 1) * 8, (nb + 1) * 8, 8};
    memcpy(bytes, b, sizeof b);
    rs_seg_scan_parts(n, bytes + 3);
}

size_t rs_cuda_seg_scan_reserve(redscan_dtype out_dtype, uint64_t n)
{
    (void)out_dtype; /* the parts do not depend on the type */
    size_t bytes[5];
    rs_byk_scan_parts(n, bytes);
    return rs_cuda_split_total(5, bytes); /* the segmented scan's two parts alone are less */
}

/* Scan by key. The exact operators (path AUTO or ONE_PASS, rs_byk_path): byk_scan_exact alone, one pass over keys,
 * values and output, the same for both forms (no run count). Otherwise (path RUNS): the runs' offsets made on the
 * device (rs_cu_byk_offsets) in scratch part 0, then the segmented scan's
 * kernels over them, as rs_ocl_scan_by_key. Blocking form: the run count R read back (one 8-byte copy), the kernels
 * over R segments. _async form: the grids sized for n segments (R is not known here), the kernels reading R from the
 * device (part 2) and doing nothing past it; only offsets[0 .. R] exist. The fault word is zeroed (the kernels read
 * it); no seg_check: the offsets are valid by construction. */
redscan_status rs_cuda_scan_by_key(redscan_ctx *ctx, const rs_scan_req *req, redscan_dtype key_dtype, void *keys,
                                   void *in, void *out, size_t n, int wait_ok, int path)
{
    RS_CUDA_TRY(rs_cuda_use(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, keys, redscan_dtype_size(key_dtype), "scan by key: argument 'keys'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, redscan_dtype_size(req->dtype), "scan by key: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, out, redscan_dtype_size(req->out_dtype), "scan by key: argument 'out'"));
    size_t bytes[5];
    void *part[5] = {NULL, NULL, NULL, NULL, NULL};
    unsigned *flags = NULL, spins;
    RS_CUDA_TRY(rs_seg_scan_opts(ctx, &spins));
    /* the exact operators: one pass over keys, values and output (AUTO and ONE_PASS alike; tiles < 2^31, a grid) */
    if (path != RS_BYK_RUNS && n < (1ull << 31) * 2048) {
        const size_t words = (size_t)rs_cu_byk_exact_words((int)req->dtype, n) * 8;
        RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 1, &words, part));
        return rs_seg_launched(ctx,
                               rs_cu_byk_exact((int)req->dtype, (int)req->op, req->exclusive, req->init.bytes,
                                               (int)key_dtype, keys, in, out, n, part[0], spins, c->stream),
                               "byk_scan_exact");
    }
    rs_byk_scan_parts(n, bytes);
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 5, bytes, part));
    RS_CUDA_TRY(rs_seg_launched(
        ctx, rs_cu_byk_offsets((int)key_dtype, keys, n, part[0], part[1], part[2], NULL, spins, c->stream),
        "byk_offsets"));
    uint64_t S = n;
    if (wait_ok) {
        cudaError_t err = cudaMemcpyAsync(&S, part[2], sizeof S, cudaMemcpyDeviceToHost, c->stream);
        if (err == cudaSuccess) err = cudaStreamSynchronize(c->stream);
        if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMemcpyAsync (scan by key: run count)");
    }
    const uint64_t windows = rs_div_up((uint64_t)n, RS_SEG_SCAN_TILE);
    unsigned g[3];
    rs_seg_scan_grids(c, S, windows, g);
    RS_CUDA_TRY(rs_seg_flags(ctx, &flags));
    RS_CUDA_TRY(rs_seg_launched(
        ctx,
        rs_cu_seg_scan((int)req->dtype, (int)req->out_dtype, (int)req->op, req->exclusive, req->init.bytes, in, out,
                       rs_cu_byk_offsets_kind(n), part[0], S, flags, part[3], part[4], windows, windows, spins,
                       wait_ok ? NULL : part[2], g[0], g[1], g[2], c->stream),
        "seg_scan"));
    return REDSCAN_OK;
}

/* The scratch parts of reduce by key over n keys: offsets, byk_single's counter and slots, run count, then the
 * reduction's workspace (rs_seg_ws_bytes of n segments: the most the segmented reduction needs over n elements too). */
static void rs_rbk_parts(uint64_t n, size_t tsize, size_t bytes[7])
{
    const uint64_t nb = rs_div_up(n, RS_SEG_SCAN_TILE);
    rs_seg_plan plan;
    rs_seg_plan_make(n, n, &plan);
    bytes[0] = ((size_t)n + 1) * 8;
    bytes[1] = ((size_t)nb + 1) * 8;
    bytes[2] = 8;
    rs_seg_ws_bytes(&plan, tsize, bytes + 3);
}

size_t rs_cuda_seg_reduce_reserve(redscan_dtype out_dtype, uint64_t n)
{
    size_t bytes[7];
    rs_rbk_parts(n, redscan_dtype_size(rs_compute_dtype(out_dtype)), bytes);
    const size_t rbk = rs_cuda_split_total(7, bytes);
    const size_t seg = rs_cuda_split_total(4, bytes + 3); /* the segmented reduction alone: its four parts */
    return rbk > seg ? rbk : seg;
}

/* Reduce by key: the runs' offsets and the unique keys (rs_cu_byk_offsets, one pass), then the segmented
 * reduction over the offsets, as rs_ocl_reduce_by_key. Scratch: offsets, byk_single's counter and slots, run count
 * (the blocking form's; the _async form's goes to `runs`), then the reduction's workspace, whose size depends on n
 * only. The offsets read REDSCAN_SINGLE_PASS_SPINS and refuse REDSCAN_SEGMENTED_SCAN_PATH=multi_pass, as scan by key.
 * Blocking: R read back (one 8-byte copy), R keys and aggregates. _async: the grids sized for n segments (R is not
 * known here), the kernels reading R from `runs` and doing nothing past it (only offsets[0 .. R] are read); R keys
 * and aggregates too. */
redscan_status rs_cuda_reduce_by_key(redscan_ctx *ctx, const rs_reduce_req *req, redscan_dtype key_dtype, void *keys,
                                     void *in, size_t n, void *unique_keys, void *aggregates, void *runs,
                                     uint64_t *runs_host)
{
    RS_CUDA_TRY(rs_cuda_use(ctx));
    rs_cuda *c = rs_cuda_of(ctx);
    const size_t ksize = redscan_dtype_size(key_dtype);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, keys, ksize, "reduce by key: argument 'keys'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, redscan_dtype_size(req->dtype), "reduce by key: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, unique_keys, ksize, "reduce by key: argument 'unique_keys'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, aggregates, redscan_dtype_size(req->out_dtype),
                                      "reduce by key: argument 'aggregates'"));
    if (runs) RS_CUDA_TRY(rs_cuda_check_aligned(ctx, runs, 8, "reduce by key: argument 'num_runs'"));
    const int wait_ok = runs_host != NULL;
    rs_seg_plan plan;
    rs_seg_plan_make(n, n, &plan);
    size_t bytes[7];
    rs_rbk_parts(n, redscan_dtype_size(rs_compute_dtype(req->out_dtype)), bytes);
    void *part[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    unsigned *flags = NULL, spins;
    RS_CUDA_TRY(rs_seg_scan_opts(ctx, &spins));
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 7, bytes, part));
    void *count = wait_ok ? part[2] : runs;
    RS_CUDA_TRY(rs_seg_launched(ctx,
                                rs_cu_byk_offsets((int)key_dtype, keys, n, part[0], part[1], count, unique_keys, spins,
                                                  c->stream),
                                "byk_offsets"));
    uint64_t S = n;
    if (wait_ok) {
        cudaError_t err = cudaMemcpyAsync(&S, count, sizeof S, cudaMemcpyDeviceToHost, c->stream);
        if (err == cudaSuccess) err = cudaStreamSynchronize(c->stream);
        if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMemcpyAsync (reduce by key: run count)");
    }
    RS_CUDA_TRY(rs_seg_flags(ctx, &flags)); /* no seg_check; the kernels read the word */
    RS_CUDA_TRY(rs_seg_reduce_levels(ctx, req, &plan, in, (redscan_dtype)rs_cu_byk_offsets_kind(n), part[0], S,
                                     part + 3, flags, aggregates, wait_ok ? NULL : runs));
    if (wait_ok) *runs_host = S;
    return REDSCAN_OK;
}

redscan_status rs_cuda_seg_report(redscan_ctx *ctx)
{
    rs_cuda *c = rs_cuda_of(ctx);
    if (!c->seg_pending || !c->seg_flags) return REDSCAN_OK;
    unsigned words[2];
    cudaError_t err = cudaMemcpy(words, c->seg_flags + 1, sizeof words, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMemcpy (segment fault words)");
    c->seg_pending = 0;
    if (!words[0]) return REDSCAN_OK;
    const unsigned clear[2] = {0, 0xffffffffu};
    err = cudaMemcpy(c->seg_flags + 1, clear, sizeof clear, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMemcpy (segment fault words)");
    return rs_seg_fault(ctx, words[0], words[1]);
}
