/* OpenCL backend: segmented reduction and argmin / argmax launches (kernels_cl/segmented.cl; docs/ALGORITHMS.md,
 * "Segments"). Host twin: backend_cuda/cuda_segmented.c.
 *
 * A call is: the fault word of the call zeroed, seg_check over the offsets, then the kernels: the segmented
 * reduction's (rs_seg_reduce_levels, on the plan of rs_seg_plan_make, api/src/segmented.c; argmin / argmax run them
 * too, over (value, index) pairs) or the segmented scan's. Nothing waits for the device. Faulty offsets make every
 * kernel write nothing; the next synchronize reports them (rs_ocl_seg_report). */
#include <string.h>

#include "ocl_internal.h"

static uint64_t rs_div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static redscan_status rs_set_args(redscan_ctx *ctx, cl_kernel k, const char *what, int count, const size_t *sizes,
                                  const void *const *values)
{
    for (int i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]);
        if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, what);
    }
    return REDSCAN_OK;
}

/* The context's fault words, in two buffers: f->seg_flags (one uint: this call's faults, zeroed by every call) and
 * f->seg_sticky (two uint: the faults since the last report and their smallest faulty index, made {0, ~0} on first
 * use and after a report). Two buffers so that every host write covers a whole buffer: Oclgrind's
 * uninitialized-value plugin takes every byte of a buffer outside the last host write (or fill pattern) for
 * uninitialized, whatever was written there before (scripts/oclgrind-repro/partial_write.c, fill_shadow.c); a
 * 4-byte zeroing write into a 16-byte buffer made it report seg_check's atomics on bytes 4-11. */
static redscan_status rs_seg_buffer(redscan_ctx *ctx, cl_mem *m, size_t bytes, const void *init, const char *what)
{
    rs_ocl *o = rs_ocl_of(ctx);
    cl_int err;
    cl_mem b = clCreateBuffer(o->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, what);
    err = clEnqueueWriteBuffer(o->queue, b, CL_TRUE, 0, bytes, init, 0, NULL, NULL); /* once per context */
    if (err != CL_SUCCESS) {
        clReleaseMemObject(b);
        return rs_ocl_fail(ctx, err, what);
    }
    *m = b;
    return REDSCAN_OK;
}

/* Both made on first use, or by redscan_reserve (so that an _async call after it allocates nothing). */
redscan_status rs_ocl_seg_words(redscan_ctx *ctx)
{
    rs_ocl_full *f = rs_ocl_full_of(rs_ocl_of(ctx));
    const cl_uint zero = 0, sticky_clear[2] = {0, 0xffffffffu}; /* blocking writes */
    if (!f->seg_sticky)
        RS_OCL_TRY(rs_seg_buffer(ctx, &f->seg_sticky, sizeof sticky_clear, sticky_clear, "segment fault words"));
    if (!f->seg_flags) RS_OCL_TRY(rs_seg_buffer(ctx, &f->seg_flags, sizeof zero, &zero, "segment fault word"));
    return REDSCAN_OK;
}

static redscan_status rs_seg_flags(redscan_ctx *ctx, cl_mem *flags, cl_mem *sticky)
{
    rs_ocl *o = rs_ocl_of(ctx);
    rs_ocl_full *f = rs_ocl_full_of(o);
    static const cl_uint zero = 0; /* static: the per-call write is not blocking */
    RS_OCL_TRY(rs_ocl_seg_words(ctx));
    cl_int err = clEnqueueWriteBuffer(o->queue, f->seg_flags, CL_FALSE, 0, sizeof zero, &zero, 0, NULL,
                                      rs_ocl_time_event(o));
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clEnqueueWriteBuffer (segment fault word)");
    rs_ocl_time_note(o);
    *flags = f->seg_flags;
    *sticky = f->seg_sticky;
    return REDSCAN_OK;
}

/* seg_check over the S + 1 offsets: any fault sets the words, and the levels then write nothing. */
static redscan_status rs_seg_check(redscan_ctx *ctx, cl_program program, cl_mem offsets, cl_uint kind, cl_ulong S,
                                   cl_ulong n, cl_mem flags, cl_mem sticky)
{
    cl_kernel k = NULL;
    redscan_status st = rs_ocl_kernel(ctx, program, "seg_check", &k);
    if (st != REDSCAN_OK) return st;
    const size_t sizes[] = {sizeof(cl_mem), sizeof kind, sizeof S, sizeof n, sizeof(cl_mem), sizeof(cl_mem)};
    const void *values[] = {&offsets, &kind, &S, &n, &flags, &sticky};
    st = rs_set_args(ctx, k, "seg_check", 6, sizes, values);
    if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k, (size_t)rs_div_up(S + 1, RS_GROUP), "seg_check");
    clReleaseKernel(k);
    return st;
}

/* Groups for `teams` tasks of a 32-work-item team, 8 per group, capped as every grid is (never changes bits). */
static size_t rs_seg_groups(redscan_ctx *ctx, uint64_t teams)
{
    return rs_ocl_groups_for(rs_ocl_of(ctx), rs_div_up(teams, RS_GROUP / 32));
}

/* The output parameters of seg_short, seg_medium and seg_tiles_*, which sit at the same place in the three: the
 * reduction's out (n = 1), or argmin / argmax's out_v, has_v, out_i (n = 3). */
typedef struct {
    int n;
    size_t size[3];
    const void *value[3];
} rs_seg_out;

/* rs_set_args for the kernels whose output parameters depend on the program: count arguments, with out's inserted
 * at index at. */
static redscan_status rs_seg_set_args(redscan_ctx *ctx, cl_kernel k, const char *what, int count, const size_t *sizes,
                                      const void *const *values, int at, const rs_seg_out *out)
{
    for (int a = 0; a < count + out->n; a++) {
        const int j = a < at ? a : a - out->n, mine = a >= at && a < at + out->n;
        cl_int err = clSetKernelArg(k, (cl_uint)a, mine ? out->size[a - at] : sizes[j],
                                    mine ? out->value[a - at] : values[j]);
        if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, what);
    }
    return REDSCAN_OK;
}

/* The segmented reduction's kernels (kernels_cl/segmented.cl), on the reduction's program or argmin / argmax's: the
 * queue's count zeroed, seg_short for every segment of up to a tile (the medium ones queued), seg_medium for the
 * queue, then, when the input is longer than a tile (plan->levels > 1), seg_tiles at levels 0 .. levels - 1 for the
 * longer ones (each returns at once when seg_short saw none: a flag beside the queue's count). has_t: the program
 * has seg_tiles_t for levels >= 1 (without it IN_T is the level values' type, and seg_tiles_in serves them). ws: the
 * four scratch buffers of rs_seg_ws_bytes (A: level-1 values, B: level 2 and later, marks, queue); flags: the call's
 * fault word, zeroed. runs: NULL (S is the count), or a buffer whose first uint64 is the real count R <= S, read by
 * the kernels (reduce by key's _async form: S is the host's bound, n; the kernels stop at R). */
static redscan_status rs_seg_reduce_levels(redscan_ctx *ctx, cl_program program, int has_t, const rs_seg_plan *plan,
                                           cl_mem in, cl_mem offsets, cl_uint kind, cl_ulong S, const cl_mem *ws,
                                           cl_mem flags, const rs_seg_out *out, cl_mem runs)
{
    rs_ocl *o = rs_ocl_of(ctx);
    const char *name_in = "seg_tiles_in";
    const char *name_t = has_t ? "seg_tiles_t" : name_in;
    const cl_ulong q_bound = plan->queue;
    cl_kernel k_short = NULL, k_medium = NULL, k_in = NULL, k_t = NULL;
    cl_kernel k_zero = NULL; /* the queue's count zeroed by a kernel, not a host write: seg_queue_zero */
    redscan_status st = rs_ocl_kernel(ctx, program, "seg_queue_zero", &k_zero);
    if (st == REDSCAN_OK) {
        const size_t sizes[] = {sizeof(cl_mem)};
        const void *values[] = {&ws[3]};
        st = rs_set_args(ctx, k_zero, "seg_queue_zero", 1, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_zero, 1, "seg_queue_zero");
    }
    if (k_zero) clReleaseKernel(k_zero);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "seg_short", &k_short);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "seg_medium", &k_medium);
    if (st == REDSCAN_OK) {
        /* a NULL cl_mem gives the kernel a NULL pointer (clSetKernelArg) */
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof kind,   sizeof S,
                                sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&in, &offsets, &kind, &S, &ws[3], &flags, &runs};
        st = rs_seg_set_args(ctx, k_short, "seg_short", 7, sizes, values, 4, out);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, k_short, rs_ocl_groups_for(o, rs_div_up(S, RS_GROUP)), "seg_short");
    }
    if (st == REDSCAN_OK && q_bound > 0) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof q_bound, sizeof(cl_mem)};
        const void *values[] = {&in, &ws[3], &q_bound, &flags};
        st = rs_seg_set_args(ctx, k_medium, "seg_medium", 4, sizes, values, 3, out);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_medium, rs_seg_groups(ctx, q_bound), "seg_medium");
    }
    if (st == REDSCAN_OK && plan->levels > 1) st = rs_ocl_kernel(ctx, program, name_in, &k_in);
    if (st == REDSCAN_OK && plan->levels > 1) st = rs_ocl_kernel(ctx, program, name_t, &k_t);
    const cl_ulong tiles = plan->tiles;
    for (unsigned level = 0; st == REDSCAN_OK && plan->levels > 1 && level < plan->levels; level++) {
        const cl_mem src = level == 0 ? in : ws[level == 1 ? 0 : 1], dst = ws[level == 0 ? 0 : 1];
        const cl_uint lv = level;
        cl_kernel k = level == 0 ? k_in : k_t;
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof kind,    sizeof S,       sizeof lv,
                                sizeof tiles,   sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                                sizeof(cl_mem)};
        const void *values[] = {&src, &offsets, &kind, &S, &lv, &tiles, &dst, &ws[2], &flags, &runs, &ws[3]};
        const char *name = level == 0 ? name_in : name_t;
        st = rs_seg_set_args(ctx, k, name, 11, sizes, values, 7, out);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k, rs_seg_groups(ctx, tiles), name);
    }
    if (k_short) clReleaseKernel(k_short);
    if (k_medium) clReleaseKernel(k_medium);
    if (k_in) clReleaseKernel(k_in);
    if (k_t) clReleaseKernel(k_t);
    return st;
}

/* A whole segmented call on `program` (the reduction's or argmin / argmax's): its workspace (values of tsize bytes),
 * the fault word zeroed, seg_check, the levels. */
static redscan_status rs_seg_reduce_call(redscan_ctx *ctx, cl_program program, int has_t, size_t tsize, void *in,
                                         size_t in_n, redscan_dtype offsets_dtype, void *offsets, size_t num_segments,
                                         const rs_seg_out *out)
{
    rs_seg_plan plan;
    rs_seg_plan_make(in_n, num_segments, &plan);
    size_t bytes[4];
    rs_seg_ws_bytes(&plan, tsize, bytes);
    cl_mem ws[4] = {NULL, NULL, NULL, NULL}, flags = NULL, sticky = NULL;
    redscan_status st = rs_ocl_scratch_split(ctx, 4, bytes, ws);
    if (st == REDSCAN_OK) st = rs_seg_flags(ctx, &flags, &sticky);
    const cl_uint kind = (cl_uint)offsets_dtype;
    const cl_ulong S = num_segments;
    if (st == REDSCAN_OK) st = rs_seg_check(ctx, program, (cl_mem)offsets, kind, S, in_n, flags, sticky);
    if (st == REDSCAN_OK)
        st = rs_seg_reduce_levels(ctx, program, has_t, &plan, (cl_mem)in, (cl_mem)offsets, kind, S, ws, flags, out,
                                  NULL);
    if (st == REDSCAN_OK) rs_ocl_full_of(rs_ocl_of(ctx))->seg_pending = 1;
    for (int i = 0; i < 4; i++)
        if (ws[i]) clReleaseMemObject(ws[i]);
    return st;
}

redscan_status rs_ocl_segmented_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t in_n,
                                       redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out)
{
    cl_program program;
    RS_OCL_TRY(rs_ocl_program_get(ctx, RS_OCL_PROG_SEGMENTED, req->dtype, req->out_dtype, req->op, &program));
    const cl_mem o = (cl_mem)out;
    const rs_seg_out args = {1, {sizeof(cl_mem)}, {&o}};
    return rs_seg_reduce_call(ctx, program, rs_ocl_has_t_kernels(req->dtype, req->out_dtype),
                              redscan_dtype_size(rs_compute_dtype(req->out_dtype)), in, in_n, offsets_dtype, offsets,
                              num_segments, &args);
}

/* The reduction's kernels over (value, index) pairs of RS_SEG_ARG_PAIR_BYTES: its decomposition balances the work
 * whatever the segments' lengths, and the result does not depend on the order of combination (segmented.cl). */
redscan_status rs_ocl_segmented_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t in_n,
                                       redscan_dtype offsets_dtype, void *offsets, size_t num_segments,
                                       void *indices, void *values)
{
    cl_program program;
    RS_OCL_TRY(rs_ocl_program_get(ctx, RS_OCL_PROG_SEGMENTED_ARGEXT, dtype, dtype,
                                  want_max ? REDSCAN_MAX : REDSCAN_MIN, &program));
    /* No values wanted: the kernels get the index buffer in its place and has_v = 0 (they never write it). */
    const cl_int has_v = values != NULL;
    const cl_mem out_i = (cl_mem)indices, out_v = values ? (cl_mem)values : out_i;
    const rs_seg_out args = {3, {sizeof(cl_mem), sizeof has_v, sizeof(cl_mem)}, {&out_v, &has_v, &out_i}};
    return rs_seg_reduce_call(ctx, program, 1, RS_SEG_ARG_PAIR_BYTES, in, in_n, offsets_dtype, offsets, num_segments,
                              &args);
}

/* Segmented scan (kernels_cl/segmented_scan.cl; docs/ALGORITHMS.md, "Segmented scans"): seg_scan_short (the
 * segments of up to 2048 elements, a work-item per segment), then the chunk path for the longer ones, on `program`,
 * over S segments of the offsets (kind) and `windows` = ceil(n / 2048) windows of the index space. runs: NULL, or a
 * buffer whose first uint64 is the real count R <= S, read by every kernel (scan by key's _async form: S is then the
 * host's bound n, the kernels stop at R; kernels_cl/segmented_scan.cl, rs_ss_live).
 * The chunk path: where the device has 64-bit atomics, seg_scan_zero (the ticket counter and the look-back slots),
 * seg_scan_marks and seg_scan_single (one pass, part[0] the counter and slots, part[1] the marks); elsewhere, or with
 * REDSCAN_SEGMENTED_SCAN_PATH=multi_pass, seg_scan_totals, seg_scan_groups, seg_scan_chain and seg_scan_out (part[0..2]
 * the chunk totals, group totals and chain carries). A chunk's values live at its place, floor(its start / 2048), so
 * no part grows with S: rs_seg_scan_parts. */
static uint64_t rs_seg_scan_places(uint64_t in_n) { return in_n / RS_SEG_SCAN_TILE + 1; }

#define RS_SS_SLOT_BASE 16u /* words before the look-back slots (lookback.clh, RS_SP_SLOT_BASE) */

/* Words of the single-pass part: the counter words, then a chunk slot and a group slot per place, two words each
 * for 64-bit values (one for 32-bit ones: the same size for every type keeps the parts type-independent). */
static uint64_t rs_seg_scan_lb_words(uint64_t in_n) { return RS_SS_SLOT_BASE + 4 * rs_seg_scan_places(in_n); }

/* The exact operators' head part (rs_seg_scan_exact): common.clh's RS_HEAD_WORDS words, then a bit per element */
static uint64_t rs_seg_heads_words(uint64_t in_n) { return 5 + in_n / 64; }

/* The three parts, the larger of each path's use: part 0 the single pass's words or the chunk totals (or the exact
 * operators' slots), part 1 the marks (two uint64 per place) or the group totals (or the exact operators' head part),
 * part 2 the chain carries (multi-pass only). */
static void rs_seg_scan_parts(uint64_t in_n, size_t tsize, size_t bytes[3])
{
    const size_t t = (size_t)rs_seg_scan_places(in_n) * tsize, lb = (size_t)rs_seg_scan_lb_words(in_n) * 8;
    const size_t marks = (size_t)rs_seg_scan_places(in_n) * 16;
    const size_t heads = (size_t)rs_seg_heads_words(in_n) * 8; /* or the exact operators' head part */
    bytes[0] = lb > t ? lb : t; /* >= rs_byk_exact_words: the exact operators' one pass */
    bytes[1] = marks > t ? marks : t;
    if (heads > bytes[1]) bytes[1] = heads;
    bytes[2] = t;
}

#define RS_SS_WB 8 /* windows per group batch of seg_scan_totals / seg_scan_out (segmented_scan.cl) */

/* The single-pass chunk path; *done = 0 (and nothing enqueued) when the program lacks its kernels (a compiler that
 * does not define cl_khr_int64_base_atomics although the device lists it): the caller then runs the multi-pass one. */
static redscan_status rs_seg_scan_single(redscan_ctx *ctx, cl_program program, const rs_scan_req *req, cl_mem src,
                                         cl_mem dst, cl_uint kind, cl_mem off, cl_ulong S, cl_ulong windows,
                                         const cl_mem *part, cl_mem flags, cl_mem runs, cl_uint spins, int *done)
{
    rs_ocl *o = rs_ocl_of(ctx);
    const size_t tsize = redscan_dtype_size(rs_compute_dtype(req->out_dtype));
    const cl_int exclusive = req->exclusive, inplace = src == dst;
    /* every chunk's place is below `windows` (<= rs_seg_scan_places(n), what the parts are sized for) */
    const cl_ulong places = windows, words = RS_SS_SLOT_BASE + 4 * places;
    *done = 0;
    redscan_status st = REDSCAN_OK;
    cl_kernel kz = NULL, km = NULL, ks = NULL;
    st = rs_ocl_kernel_opt(ctx, program, "seg_scan_single", &ks);
    if (st != REDSCAN_OK || !ks) return st; /* !ks: left out by the compiler */
    st = rs_ocl_kernel(ctx, program, "seg_scan_zero", &kz);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "seg_scan_marks", &km);
    if (st == REDSCAN_OK) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof words};
        const void *values[] = {&part[0], &words};
        st = rs_set_args(ctx, kz, "seg_scan_zero", 2, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, kz, rs_ocl_groups_for(o, rs_div_up(words, RS_GROUP)), "seg_scan_zero");
    }
    if (st == REDSCAN_OK) { /* a work-item per window */
        const size_t sizes[] = {sizeof(cl_mem), sizeof kind, sizeof S, sizeof(cl_mem), sizeof(cl_mem), sizeof windows,
                                sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&off, &kind, &S, &flags, &part[1], &windows, &runs, &part[0]};
        st = rs_set_args(ctx, km, "seg_scan_marks", 8, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, km, rs_ocl_groups_for(o, rs_div_up(windows, RS_GROUP)), "seg_scan_marks");
    }
    if (st == REDSCAN_OK) { /* persistent groups taking windows from the ticket counter */
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof kind,   sizeof S,
                                sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), tsize,          sizeof exclusive,
                                sizeof windows, sizeof places,  sizeof spins,   sizeof inplace, sizeof(cl_mem)};
        const void *values[] = {&src,    &dst,     &off,    &kind,  &S,       &flags,   &part[0], &part[1],
                                req->init.bytes, &exclusive, &windows, &places, &spins, &inplace, &runs};
        st = rs_set_args(ctx, ks, "seg_scan_single", 15, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, ks, rs_ocl_groups_for(o, windows), "seg_scan_single");
    }
    if (kz) clReleaseKernel(kz);
    if (km) clReleaseKernel(km);
    if (ks) clReleaseKernel(ks);
    *done = st == REDSCAN_OK;
    return st;
}

static redscan_status rs_seg_scan_launch(redscan_ctx *ctx, cl_program program, const rs_scan_req *req, cl_mem src,
                                         cl_mem dst, cl_uint kind, cl_mem off, cl_ulong S, cl_ulong windows,
                                         const cl_mem *part, cl_mem flags, cl_mem runs)
{
    static const char *const names[5] = {"seg_scan_short", "seg_scan_totals", "seg_scan_groups", "seg_scan_chain",
                                         "seg_scan_out"};
    const size_t tsize = redscan_dtype_size(rs_compute_dtype(req->out_dtype));
    const cl_int exclusive = req->exclusive;
    rs_ocl *o = rs_ocl_of(ctx);
    cl_kernel k[5] = {NULL, NULL, NULL, NULL, NULL};
    int multi = 0;
    cl_uint spins = 0;
    /* the testing knobs first: a bad value leaves `dst` as it was */
    redscan_status st = rs_seg_scan_path(ctx, &multi);
    if (st == REDSCAN_OK) st = rs_single_pass_spins(ctx, &spins);
    for (int i = 0; i < 5 && st == REDSCAN_OK; i++) st = rs_ocl_kernel(ctx, program, names[i], &k[i]);
    if (st == REDSCAN_OK) { /* short and medium segments: a batch of 256 segments per group */
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof kind, sizeof S, sizeof(cl_mem),
                                tsize, sizeof exclusive, sizeof(cl_mem)};
        const void *values[] = {&src, &dst, &off, &kind, &S, &flags, req->init.bytes, &exclusive, &runs};
        st = rs_set_args(ctx, k[0], names[0], 9, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k[0], rs_ocl_groups_for(o, rs_div_up(S, RS_GROUP)), names[0]);
    }
    int done = 0;
    if (st == REDSCAN_OK && !multi && rs_ocl_single_pass_available(o))
        st = rs_seg_scan_single(ctx, program, req, src, dst, kind, off, S, windows, part, flags, runs, spins, &done);
    for (int i = 1; i < 5 && done; i++) { /* the multi-pass kernels are not needed */
        clReleaseKernel(k[i]);
        k[i] = NULL;
    }
    if (st == REDSCAN_OK && !done) { /* totals: a batch of RS_SS_WB windows per group */
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof kind, sizeof S, sizeof(cl_mem), sizeof(cl_mem),
                                sizeof windows, sizeof(cl_mem)};
        const void *values[] = {&src, &off, &kind, &S, &flags, &part[0], &windows, &runs};
        st = rs_set_args(ctx, k[1], names[1], 8, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, k[1], rs_ocl_groups_for(o, rs_div_up(windows, RS_SS_WB)), names[1]);
    }
    if (st == REDSCAN_OK && !done) { /* group totals: a work-item per window */
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof kind, sizeof S, sizeof(cl_mem), sizeof(cl_mem),
                                sizeof windows, sizeof(cl_mem)};
        const void *values[] = {&part[0], &off, &kind, &S, &flags, &part[1], &windows, &runs};
        st = rs_set_args(ctx, k[2], names[2], 8, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, k[2], rs_ocl_groups_for(o, rs_div_up(windows, RS_GROUP)), names[2]);
    }
    if (st == REDSCAN_OK && !done) { /* the chains: a work-item per window */
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof kind, sizeof S, sizeof(cl_mem), tsize,
                                sizeof(cl_mem), sizeof windows, sizeof(cl_mem)};
        const void *values[] = {&part[1], &off, &kind, &S, &flags, req->init.bytes, &part[2], &windows, &runs};
        st = rs_set_args(ctx, k[3], names[3], 9, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, k[3], rs_ocl_groups_for(o, rs_div_up(windows, RS_GROUP)), names[3]);
    }
    if (st == REDSCAN_OK && !done) { /* the long segments' output: a batch of RS_SS_WB windows per group */
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof kind, sizeof S, sizeof(cl_mem),
                                sizeof(cl_mem), sizeof(cl_mem), tsize, sizeof exclusive, sizeof windows, sizeof(cl_mem)};
        const void *values[] = {&src, &dst, &off, &kind, &S, &flags, &part[0], &part[2], req->init.bytes, &exclusive,
                                &windows, &runs};
        st = rs_set_args(ctx, k[4], names[4], 12, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, k[4], rs_ocl_groups_for(o, rs_div_up(windows, RS_SS_WB)), names[4]);
    }
    for (int i = 0; i < 5; i++)
        if (k[i]) clReleaseKernel(k[i]);
    return st;
}

/* The words of byk_scan_exact over N positions of req's dtype: the ticket counter and a slot per tile (twice the slots
 * for 8-byte T); at most rs_seg_scan_lb_words(N), the segmented scan's part 0. */
static cl_ulong rs_byk_exact_words(const rs_scan_req *req, cl_ulong N)
{
    const size_t tsize = redscan_dtype_size(req->dtype);
    return RS_SS_SLOT_BASE + rs_div_up(N, RS_GROUP * (tsize == 8 ? 8 : 16)) * (tsize == 8 ? 2 : 1);
}

/* Scan by key in one pass, the exact operators (scan_by_key.cl): byk_exact_zero clears the ticket counter and the
 * slots in `words` (rs_byk_exact_words), then byk_scan_exact runs a group per tile of 4096 (4-byte T) or 2048
 * (8-byte T) positions. kkind: the keys' dtype, or RS_OCL_KEYS_BITS for the segmented scan's head part. *done = 0
 * (nothing enqueued) when the program lacks the kernel (a compiler without 64-bit atomics although the device lists
 * them): the caller takes the runs' (or the chunk) path. */
static redscan_status rs_byk_exact_pass(redscan_ctx *ctx, const rs_scan_req *req, cl_uint kkind, cl_mem keys,
                                        cl_mem in, cl_mem out, cl_ulong N, cl_uint spins, cl_mem words, int *done)
{
    *done = 0;
    rs_ocl *o = rs_ocl_of(ctx);
    cl_program program;
    RS_OCL_TRY(rs_ocl_program_get(ctx, RS_OCL_PROG_SCAN_BY_KEY, req->dtype, req->out_dtype, req->op, &program));
    cl_kernel ks = NULL, kz = NULL;
    redscan_status st = rs_ocl_kernel_opt(ctx, program, "byk_scan_exact", &ks);
    if (st != REDSCAN_OK || !ks) return st;
    const size_t tsize = redscan_dtype_size(req->dtype);
    const cl_ulong tiles = rs_div_up(N, RS_GROUP * (tsize == 8 ? 8 : 16)), count = rs_byk_exact_words(req, N);
    const cl_int exclusive = req->exclusive, inplace = in == out;
    st = rs_ocl_kernel(ctx, program, "byk_exact_zero", &kz);
    if (st == REDSCAN_OK) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof count};
        const void *values[] = {&words, &count};
        st = rs_set_args(ctx, kz, "byk_exact_zero", 2, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, kz, rs_ocl_groups_for(o, rs_div_up(count, RS_GROUP)), "byk_exact_zero");
    }
    if (st == REDSCAN_OK) { /* a group per tile, in ticket order */
        const size_t sizes[] = {sizeof(cl_mem), sizeof kkind, sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                                sizeof N,       sizeof tiles, sizeof exclusive, tsize,        sizeof spins,
                                sizeof inplace};
        const void *values[] = {&keys, &kkind, &in, &out, &words, &N, &tiles, &exclusive, req->init.bytes, &spins,
                                &inplace};
        st = rs_set_args(ctx, ks, "byk_scan_exact", 11, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, ks, (size_t)tiles, "byk_scan_exact");
    }
    if (kz) clReleaseKernel(kz);
    clReleaseKernel(ks);
    *done = st == REDSCAN_OK;
    return st;
}

/* The exact operators' one pass of a segmented scan (docs/ALGORITHMS.md, "Segmented scans", one pass): seg_scan_zero
 * clears the head part (part[1]), seg_scan_heads checks the offsets (as seg_check) and writes the bounds, a fault word
 * and the segments' starts there, and byk_scan_exact scans with them (rs_byk_exact_pass, the slots in part[0]).
 * *done = 0, nothing enqueued, when the scan by key program lacks the kernel: the caller takes seg_check and the
 * chunk path. */
#define RS_OCL_KEYS_BITS 64u /* not a redscan_dtype: kernels_cl/keys.clh, RS_KEYS_BITS */

static redscan_status rs_seg_scan_exact(redscan_ctx *ctx, cl_program program, const rs_scan_req *req, cl_mem src,
                                        cl_mem dst, cl_uint kind, cl_mem off, cl_ulong S, cl_ulong N,
                                        const cl_mem *part, cl_mem flags, cl_mem sticky, int *done)
{
    rs_ocl *o = rs_ocl_of(ctx);
    cl_uint spins = 0;
    cl_kernel kz = NULL, kh = NULL, kx = NULL;
    cl_program bykp;
    const cl_ulong words = rs_seg_heads_words(N);
    *done = 0;
    redscan_status st = rs_single_pass_spins(ctx, &spins);
    if (st == REDSCAN_OK)
        st = rs_ocl_program_get(ctx, RS_OCL_PROG_SCAN_BY_KEY, req->dtype, req->out_dtype, req->op, &bykp);
    if (st == REDSCAN_OK) st = rs_ocl_kernel_opt(ctx, bykp, "byk_scan_exact", &kx);
    if (st != REDSCAN_OK || !kx) return st;
    clReleaseKernel(kx);
    st = rs_ocl_kernel(ctx, program, "seg_scan_zero", &kz);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "seg_scan_heads", &kh);
    if (st == REDSCAN_OK) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof words};
        const void *values[] = {&part[1], &words};
        st = rs_set_args(ctx, kz, "seg_scan_zero", 2, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, kz, rs_ocl_groups_for(o, rs_div_up(words, RS_GROUP)), "seg_scan_zero");
    }
    if (st == REDSCAN_OK) { /* a work-item per offset */
        const size_t sizes[] = {sizeof(cl_mem), sizeof kind,    sizeof S,      sizeof N,
                                sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&off, &kind, &S, &N, &flags, &sticky, &part[1]};
        st = rs_set_args(ctx, kh, "seg_scan_heads", 7, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, kh, rs_div_up(S + 1, RS_GROUP), "seg_scan_heads");
    }
    if (st == REDSCAN_OK)
        st = rs_byk_exact_pass(ctx, req, RS_OCL_KEYS_BITS, part[1], src, dst, N, spins, part[0], done);
    if (kz) clReleaseKernel(kz);
    if (kh) clReleaseKernel(kh);
    return st;
}

/* The fault word zeroed, then the exact operators' one pass (rs_seg_scan_exact, rs_seg_scan_one_pass) on GPUs with
 * 64-bit atomics (AUTO), or wherever those atomics are when REDSCAN_SEGMENTED_SCAN_PATH=one_pass asks for it, as
 * scan by key; otherwise seg_check and the five kernels. */
redscan_status rs_ocl_segmented_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_n,
                                     redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out)
{
    rs_ocl *o = rs_ocl_of(ctx);
    int multi = 0;
    RS_OCL_TRY(rs_seg_scan_path(ctx, &multi)); /* a bad knob leaves `out` as it was */
    const int cpu_device = (o->device_type & CL_DEVICE_TYPE_CPU) != 0;
    const int one = !multi && in_n > 0 && in_n < (1ull << 36) && rs_ocl_single_pass_available(o) &&
                    rs_seg_scan_one_pass(req, !cpu_device);
    cl_program program;
    RS_OCL_TRY(rs_ocl_program_get(ctx, RS_OCL_PROG_SEGMENTED_SCAN, req->dtype, req->out_dtype, req->op, &program));
    const cl_ulong S = num_segments, windows = rs_div_up(in_n, RS_SEG_SCAN_TILE);
    size_t bytes[3];
    rs_seg_scan_parts(in_n, redscan_dtype_size(rs_compute_dtype(req->out_dtype)), bytes);
    cl_mem part[3] = {NULL, NULL, NULL}, flags = NULL, sticky = NULL;
    const cl_uint kind = (cl_uint)offsets_dtype;
    redscan_status st = rs_ocl_scratch_split(ctx, 3, bytes, part);
    if (st == REDSCAN_OK) st = rs_seg_flags(ctx, &flags, &sticky);
    int done = 0;
    if (st == REDSCAN_OK && one)
        st = rs_seg_scan_exact(ctx, program, req, (cl_mem)in, (cl_mem)out, kind, (cl_mem)offsets, S, in_n, part,
                               flags, sticky, &done);
    if (st == REDSCAN_OK && !done) st = rs_seg_check(ctx, program, (cl_mem)offsets, kind, S, in_n, flags, sticky);
    if (st == REDSCAN_OK && !done)
        st = rs_seg_scan_launch(ctx, program, req, (cl_mem)in, (cl_mem)out, kind, (cl_mem)offsets, S, windows, part,
                                flags, NULL);
    if (st == REDSCAN_OK) rs_ocl_full_of(rs_ocl_of(ctx))->seg_pending = 1;
    for (int i = 0; i < 3; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    return st;
}

/* The runs' offsets (UINT64, R + 1 entries in a buffer of n + 1: offsets[R] = n) of n keys (kkind), built on the
 * device from `program` (a segmented_scan program: the kernels do not depend on its types); *runs receives the run
 * count R. Nothing past offsets[R] is written: the _async forms, which do not know R, have their kernels read it.
 * One pass where the program has byk_single (64-bit atomics) and REDSCAN_SEGMENTED_SCAN_PATH is not multi_pass:
 * seg_scan_zero clears cnt's first nt + 1 words (the ticket counter and a slot per ticket of RS_BYK_TICKET tiles),
 * byk_single runs a group per ticket (REDSCAN_SINGLE_PASS_SPINS: its polls per slot) and, where ukeys is not NULL,
 * writes the unique keys too (*keys_done = 1). Else byk_count and byk_scatter with the same G groups (each a
 * contiguous share of the nb = ceil(n / 2048) tiles) and byk_prefix over their G counts in cnt, into pre; the caller
 * gathers the unique keys (byk_gather). cnt holds nb + 1 uint64, pre nb. */
static redscan_status rs_byk_offsets(redscan_ctx *ctx, cl_program program, cl_uint kkind, cl_mem keys, cl_ulong N,
                                     cl_mem offsets, cl_mem cnt, cl_mem pre, cl_mem runs, cl_mem ukeys,
                                     int *keys_done)
{
    *keys_done = 0;
    rs_ocl *o = rs_ocl_of(ctx);
    const cl_ulong nb = rs_div_up(N, RS_SEG_SCAN_TILE);
    int multi = 0;
    cl_uint spins = 0;
    redscan_status st = rs_seg_scan_path(ctx, &multi);
    if (st == REDSCAN_OK) st = rs_single_pass_spins(ctx, &spins);
    if (st != REDSCAN_OK) return st;
    cl_kernel k1 = NULL;
    if (!multi && (st = rs_ocl_kernel_opt(ctx, program, "byk_single", &k1)) != REDSCAN_OK) return st;
    if (k1) { /* the one-pass kernel is there (the compiler has 64-bit atomics) */
        cl_kernel kz = NULL;
        const cl_ulong nt = rs_div_up(N, RS_BYK_TICKET * RS_SEG_SCAN_TILE), words = nt + 1;
        st = rs_ocl_kernel(ctx, program, "seg_scan_zero", &kz);
        if (st == REDSCAN_OK) {
            const size_t sizes[] = {sizeof(cl_mem), sizeof words};
            const void *values[] = {&cnt, &words};
            st = rs_set_args(ctx, kz, "seg_scan_zero", 2, sizes, values);
            if (st == REDSCAN_OK)
                st = rs_ocl_launch(ctx, kz, rs_ocl_groups_for(o, rs_div_up(words, RS_GROUP)), "seg_scan_zero");
        }
        if (st == REDSCAN_OK) { /* a group per ticket: the ticket counter hands out nt tickets */
            const size_t sizes[] = {sizeof(cl_mem), sizeof kkind,   sizeof N,       sizeof nt,     sizeof(cl_mem),
                                    sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof spins};
            const void *values[] = {&keys, &kkind, &N, &nt, &cnt, &offsets, &runs, &ukeys, &spins};
            st = rs_set_args(ctx, k1, "byk_single", 9, sizes, values);
            if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k1, (size_t)nt, "byk_single");
            *keys_done = st == REDSCAN_OK && ukeys != NULL;
        }
        if (kz) clReleaseKernel(kz);
        clReleaseKernel(k1);
        return st;
    }
    const size_t groups = rs_ocl_groups_for(o, nb); /* <= nb: the kernels' shares and byk_prefix's count */
    const cl_ulong G = groups;
    cl_kernel kc = NULL, kp = NULL, ks = NULL;
    st = rs_ocl_kernel(ctx, program, "byk_count", &kc);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "byk_prefix", &kp);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "byk_scatter", &ks);
    if (st == REDSCAN_OK) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof kkind, sizeof N, sizeof(cl_mem)};
        const void *values[] = {&keys, &kkind, &N, &cnt};
        st = rs_set_args(ctx, kc, "byk_count", 4, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, kc, groups, "byk_count");
    }
    if (st == REDSCAN_OK) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof G, sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof N};
        const void *values[] = {&cnt, &G, &pre, &offsets, &runs, &N};
        st = rs_set_args(ctx, kp, "byk_prefix", 6, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, kp, 1, "byk_prefix");
    }
    if (st == REDSCAN_OK) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof kkind, sizeof N, sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&keys, &kkind, &N, &pre, &offsets};
        st = rs_set_args(ctx, ks, "byk_scatter", 5, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, ks, groups, "byk_scatter");
    }
    if (kc) clReleaseKernel(kc);
    if (kp) clReleaseKernel(kp);
    if (ks) clReleaseKernel(ks);
    return st;
}

/* The run count R of the blocking forms: one 8-byte read, which waits. */
static redscan_status rs_byk_read_runs(redscan_ctx *ctx, cl_mem runs, cl_ulong *R, const char *what)
{
    cl_int err = clEnqueueReadBuffer(rs_ocl_of(ctx)->queue, runs, CL_TRUE, 0, sizeof *R, R, 0, NULL, NULL);
    return err == CL_SUCCESS ? REDSCAN_OK : rs_ocl_fail(ctx, err, what);
}

/* Scan by key's scratch slots for n elements and a compute type of tsize bytes: 0-2 the segmented scan's three
 * arrays (its own slots), 3 the runs' offsets (n + 1 uint64), 4-5 the block counts and prefixes (ceil(n / 2048)
 * uint64 each, one more in 4: rs_byk_offsets), 6 the run count. None depends on the run count: the blocking and the
 * _async form use the same, known before any kernel runs (and redscan_reserve sizes them). */
static void rs_byk_scan_slots(uint64_t n, size_t tsize, size_t bytes[7])
{
    const size_t nb = (size_t)rs_div_up(n, RS_SEG_SCAN_TILE);
    rs_seg_scan_parts(n, tsize, bytes);
    const size_t b[4] = {((size_t)n + 1) * 8, (nb + 1) * 8, nb * 8, 8};
    memcpy(bytes + 3, b, sizeof b);
}

void rs_ocl_seg_scan_reserve(redscan_dtype out_dtype, uint64_t n, size_t *need)
{
    size_t bytes[7];
    rs_byk_scan_slots(n, redscan_dtype_size(rs_compute_dtype(out_dtype)), bytes);
    for (int i = 0; i < 7; i++) /* the segmented scan's slots 0-2 are the same */
        if (bytes[i] > need[i]) need[i] = bytes[i];
}

/* Scan by key. The exact operators on GPUs with 64-bit atomics (path AUTO), or wherever those atomics are (path
 * ONE_PASS): rs_byk_exact_pass. Otherwise rs_byk_offsets makes the runs' offsets (UINT64) in scratch slot 3; then
 * the segmented scan's kernels (no seg_check: the offsets are valid by construction; the fault word is zeroed all the
 * same, since the kernels read it). wait_ok (the blocking form): the run count R is read back (one 8-byte read) and
 * the kernels run over R segments; else (_async) their grids are sized for n segments (R is not known here) and they
 * read R from slot 6, doing nothing past it. */
redscan_status rs_ocl_scan_by_key(redscan_ctx *ctx, const rs_scan_req *req, redscan_dtype key_dtype, void *keys,
                                  void *in, void *out, size_t n, int wait_ok, int path)
{
    rs_ocl *o = rs_ocl_of(ctx);
    /* the exact operators in one pass: on GPUs with 64-bit atomics (AUTO, as the AUTO scan's single_pass), and
     * wherever those atomics are when the knob asks for it (ONE_PASS); CPU devices keep the runs' path, whose
     * programs the other segmented calls build anyway */
    const int cpu_device = (o->device_type & CL_DEVICE_TYPE_CPU) != 0;
    if (rs_ocl_single_pass_available(o) && (path == RS_BYK_ONE_PASS || (path == RS_BYK_AUTO && !cpu_device))) {
        cl_uint spins = 0;
        int done = 0;
        RS_OCL_TRY(rs_single_pass_spins(ctx, &spins));
        const size_t bytes = (size_t)rs_byk_exact_words(req, n) * 8;
        cl_mem words = NULL;
        RS_OCL_TRY(rs_ocl_scratch_split(ctx, 1, &bytes, &words));
        const redscan_status st = rs_byk_exact_pass(ctx, req, (cl_uint)key_dtype, (cl_mem)keys, (cl_mem)in,
                                                    (cl_mem)out, n, spins, words, &done);
        clReleaseMemObject(words);
        if (st != REDSCAN_OK || done) return st;
    }
    cl_program program;
    RS_OCL_TRY(rs_ocl_program_get(ctx, RS_OCL_PROG_SEGMENTED_SCAN, req->dtype, req->out_dtype, req->op, &program));
    const cl_ulong N = n;
    const cl_uint kkind = (cl_uint)key_dtype, kind = (cl_uint)REDSCAN_UINT64;
    size_t bytes[7];
    rs_byk_scan_slots(N, redscan_dtype_size(rs_compute_dtype(req->out_dtype)), bytes);
    cl_mem part[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL}, flags = NULL, sticky = NULL;
    redscan_status st = rs_ocl_scratch_split(ctx, 7, bytes, part);
    int keys_done; /* no unique keys asked */
    if (st == REDSCAN_OK)
        st = rs_byk_offsets(ctx, program, kkind, (cl_mem)keys, N, part[3], part[4], part[5], part[6], NULL, &keys_done);
    cl_ulong S = N;
    if (st == REDSCAN_OK && wait_ok)
        st = rs_byk_read_runs(ctx, part[6], &S, "clEnqueueReadBuffer (scan by key: run count)");
    const cl_ulong windows = rs_div_up(N, RS_SEG_SCAN_TILE);
    if (st == REDSCAN_OK) st = rs_seg_flags(ctx, &flags, &sticky);
    if (st == REDSCAN_OK)
        st = rs_seg_scan_launch(ctx, program, req, (cl_mem)in, (cl_mem)out, kind, part[3], S, windows, part, flags,
                                wait_ok ? NULL : part[6]);
    for (int i = 0; i < 7; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    return st;
}

/* The scratch slots of reduce by key over n keys (rs_ocl_reduce_by_key below): 0-3 the reduction's workspace
 * (rs_seg_ws_bytes of n segments, also the most the segmented reduction needs over n elements), 4 the offsets, 5-6
 * the block counts and prefixes, 7 the run count. */
static void rs_rbk_slots(uint64_t n, size_t tsize, size_t bytes[8])
{
    const uint64_t nb = rs_div_up(n, RS_SEG_SCAN_TILE);
    rs_seg_plan plan;
    rs_seg_plan_make(n, n, &plan);
    rs_seg_ws_bytes(&plan, tsize, bytes);
    bytes[4] = (size_t)(n + 1) * 8;
    bytes[5] = (size_t)(nb + 1) * 8; /* rs_byk_offsets: the one pass's counter and slots */
    bytes[6] = (size_t)nb * 8;
    bytes[7] = 8;
}

void rs_ocl_seg_reduce_reserve(redscan_dtype out_dtype, uint64_t n, size_t *need)
{
    size_t bytes[8];
    rs_rbk_slots(n, redscan_dtype_size(rs_compute_dtype(out_dtype)), bytes);
    for (int i = 0; i < 8; i++)
        if (bytes[i] > need[i]) need[i] = bytes[i];
}

/* Reduce by key (docs/ALGORITHMS.md, "Reduce by key"): the runs' offsets and the unique keys by rs_byk_offsets (the
 * three-kernel path's keys by byk_gather), from the segmented_scan program of (INT32, INT32, SUM) whatever the call's
 * types (those kernels read only keys and counts: one program serves every call), then the segmented reduction over
 * the offsets (the call's segmented program). Scratch slots: 0-3 the reduction's workspace (its size depends on n only), 4 the offsets, 5-6
 * the block counts and prefixes, 7 the run count of the blocking form (the _async form's goes to `runs`). Blocking:
 * R read back, R keys and aggregates. _async: the grids sized for n segments (R is not known here), the kernels
 * reading R from `runs` and doing nothing past it (only offsets[0 .. R] are read); R keys and aggregates too. */
redscan_status rs_ocl_reduce_by_key(redscan_ctx *ctx, const rs_reduce_req *req, redscan_dtype key_dtype, void *keys,
                                    void *in, size_t n, void *unique_keys, void *aggregates, void *runs,
                                    uint64_t *runs_host)
{
    rs_ocl *o = rs_ocl_of(ctx);
    cl_program p_keys, p_reduce;
    RS_OCL_TRY(rs_ocl_program_get(ctx, RS_OCL_PROG_SEGMENTED_SCAN, REDSCAN_INT32, REDSCAN_INT32, REDSCAN_SUM, &p_keys));
    RS_OCL_TRY(rs_ocl_program_get(ctx, RS_OCL_PROG_SEGMENTED, req->dtype, req->out_dtype, req->op, &p_reduce));
    const int wait_ok = runs_host != NULL;
    const cl_ulong N = n;
    const cl_uint kkind = (cl_uint)key_dtype, kind = (cl_uint)REDSCAN_UINT64;
    rs_seg_plan plan;
    rs_seg_plan_make(n, n, &plan);
    size_t bytes[8];
    rs_rbk_slots(n, redscan_dtype_size(rs_compute_dtype(req->out_dtype)), bytes);
    cl_mem part[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}, flags = NULL, sticky = NULL;
    cl_kernel kg = NULL;
    redscan_status st = rs_ocl_scratch_split(ctx, wait_ok ? 8 : 7, bytes, part);
    const cl_mem count = wait_ok ? part[7] : (cl_mem)runs;
    int keys_done = 0; /* byk_single wrote the unique keys: no byk_gather */
    if (st == REDSCAN_OK)
        st = rs_byk_offsets(ctx, p_keys, kkind, (cl_mem)keys, N, part[4], part[5], part[6], count,
                            (cl_mem)unique_keys, &keys_done);
    cl_ulong S = N;
    if (st == REDSCAN_OK && wait_ok)
        st = rs_byk_read_runs(ctx, count, &S, "clEnqueueReadBuffer (reduce by key: run count)");
    if (st == REDSCAN_OK && !keys_done) st = rs_ocl_kernel(ctx, p_keys, "byk_gather", &kg);
    if (st == REDSCAN_OK && !keys_done) {
        const cl_mem kb = (cl_mem)keys, uk = (cl_mem)unique_keys;
        const size_t sizes[] = {sizeof(cl_mem), sizeof kkind, sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&kb, &kkind, &part[4], &count, &uk};
        st = rs_set_args(ctx, kg, "byk_gather", 5, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, kg, rs_ocl_groups_for(o, rs_div_up(S, RS_GROUP)), "byk_gather");
    }
    if (st == REDSCAN_OK) st = rs_seg_flags(ctx, &flags, &sticky); /* no seg_check; the kernels read the word */
    const cl_mem agg = (cl_mem)aggregates;
    const rs_seg_out out = {1, {sizeof(cl_mem)}, {&agg}};
    if (st == REDSCAN_OK)
        st = rs_seg_reduce_levels(ctx, p_reduce, rs_ocl_has_t_kernels(req->dtype, req->out_dtype), &plan, (cl_mem)in,
                                  part[4], kind, S, part, flags, &out, wait_ok ? NULL : count);
    if (st == REDSCAN_OK && wait_ok) *runs_host = S;
    for (int i = 0; i < 8; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    if (kg) clReleaseKernel(kg);
    return st;
}

/* After a successful wait (rs_ocl_synchronize): the sticky fault words of the segmented calls since the last
 * report; faults are cleared and reported once (rs_seg_fault). */
redscan_status rs_ocl_seg_report(redscan_ctx *ctx)
{
    rs_ocl *o = rs_ocl_of(ctx);
    rs_ocl_full *f = rs_ocl_full_of(o);
    if (!f->seg_pending || !f->seg_sticky) return REDSCAN_OK;
    cl_uint words[2];
    cl_int err = clEnqueueReadBuffer(o->queue, f->seg_sticky, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clEnqueueReadBuffer (segment fault words)");
    f->seg_pending = 0;
    if (!words[0]) return REDSCAN_OK;
    const cl_uint clear[2] = {0, 0xffffffffu};
    err = clEnqueueWriteBuffer(o->queue, f->seg_sticky, CL_TRUE, 0, sizeof clear, clear, 0, NULL, NULL);
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clEnqueueWriteBuffer (segment fault words)");
    return rs_seg_fault(ctx, words[0], words[1]);
}
