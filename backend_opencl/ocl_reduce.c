/* OpenCL backend: reductions, argmin/argmax and top-k launches (kernels_cl/reduce_*.cl, argext.cl, topk.cl).
 *
 * Every operation is a chain of passes: the first reads the caller's buffer (never written), each later
 * pass reads the previous pass's output, until one tile's worth is left. Two ping-pong scratch buffers A and
 * B (rs_ocl_scratch_split): pass 1 writes A, pass 2 writes B, pass 3 writes A ...; each pass's output is
 * smaller than the one before, so A is sized for pass 1's output and B for pass 2's. */
#include <stdlib.h>
#include <string.h>

#include "ocl_internal.h"

static uint64_t rs_div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* Set kernel arguments 0..count-1 from (size, pointer) pairs. */
static redscan_status rs_set_args(redscan_ctx *ctx, cl_kernel k, const char *what, int count, const size_t *sizes,
                                  const void *const *values)
{
    for (int i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]);
        if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, what);
    }
    return REDSCAN_OK;
}

/* ---------------------------------------------------------------- reduce */

typedef struct {
    redscan_reduce_algo algo;
    const char *kernel_in; /* reads IN_T */
    const char *kernel_t;  /* reads the T partials of the previous pass */
    uint64_t tile;         /* TILE of docs/ALGORITHMS.md */
    rs_ocl_family family;  /* the program holding both kernels */
    int subgroups;         /* needs sub-groups of RS_OCL_WARP (the sub-group program) */
} rs_reduce_algo_info;

static const rs_reduce_algo_info rs_reduce_algos[] = {
    {REDSCAN_REDUCE_TREE, "reduce_tree_in", "reduce_tree_t", 512, RS_OCL_PROG_REDUCE_TREE, 0},
    {REDSCAN_REDUCE_INTERLEAVED, "reduce_interleaved_in", "reduce_interleaved_t", 256, RS_OCL_PROG_REDUCE_INTERLEAVED,
     0},
    {REDSCAN_REDUCE_COARSENED, "reduce_coarsened_in", "reduce_coarsened_t", 4096, RS_OCL_PROG_REDUCE_COARSENED, 0},
    {REDSCAN_REDUCE_WARP_SYNC, "reduce_warp_sync_in", "reduce_warp_sync_t", 512, RS_OCL_PROG_REDUCE_SUBGROUP, 1},
    {REDSCAN_REDUCE_SHUFFLE, "reduce_shuffle_in", "reduce_shuffle_t", 512, RS_OCL_PROG_REDUCE_SUBGROUP, 1},
};

#define RS_OCL_WARP 32 /* RS_WARP of kernels_cl/reduce_common.clh */

/* warp_sync / shuffle, before anything is built: the device must list both extensions. */
static redscan_status rs_reduce_subgroup_device(redscan_ctx *ctx, redscan_reduce_algo algo)
{
    const rs_ocl *o = rs_ocl_of(ctx);
    if (o->has_subgroups && o->has_subgroup_shuffle_relative) return REDSCAN_OK;
    const int both = !o->has_subgroups && !o->has_subgroup_shuffle_relative;
    return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                        "reduction algorithm '%s' needs OpenCL sub-groups of %d work-items with relative shuffles; "
                        "device %s lacks the extension%s %s%s%s",
                        redscan_reduce_algo_name(algo), RS_OCL_WARP, ctx->device_name, both ? "s" : "",
                        o->has_subgroups ? "" : "cl_khr_subgroups", both ? " and " : "",
                        o->has_subgroup_shuffle_relative ? "" : "cl_khr_subgroup_shuffle_relative");
}

/* Whether the built program has a kernel of that name (CL_PROGRAM_KERNEL_NAMES: names separated by ';'). */
static int rs_program_has_kernel(cl_program program, const char *name)
{
    size_t len = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &len) != CL_SUCCESS || len == 0) return 0;
    char *names = malloc(len + 1);
    if (!names) return 0;
    int found = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, len, names, NULL) == CL_SUCCESS) {
        names[len] = '\0';
        const size_t nl = strlen(name);
        for (const char *p = strstr(names, name); p && !found; p = strstr(p + 1, name))
            found = (p == names || p[-1] == ';') && (p[nl] == '\0' || p[nl] == ';');
    }
    free(names);
    return found;
}

/* warp_sync / shuffle, once the sub-group program is built: the compiler must have compiled the kernels (it does
 * only where it defines the sub-group extension macros) ... */
static redscan_status rs_reduce_subgroup_program(redscan_ctx *ctx, redscan_reduce_algo algo, cl_program program,
                                                 const char *name_in, const char *name_t)
{
    const rs_ocl *o = rs_ocl_of(ctx);
    const char *missing = !rs_program_has_kernel(program, name_in) ? name_in
                          : !rs_program_has_kernel(program, name_t) ? name_t
                                                                    : NULL;
    if (!missing) return REDSCAN_OK;
    return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                        "reduction algorithm '%s': device %s lists cl_khr_subgroups and "
                        "cl_khr_subgroup_shuffle_relative, but its OpenCL C compiler (-cl-std=%s) did not define "
                        "them, so kernel %s was not compiled",
                        redscan_reduce_algo_name(algo), ctx->device_name,
                        o->subgroup_std[0] ? o->subgroup_std : "default", missing);
}

/* ... and run it with sub-groups of exactly RS_OCL_WARP work-items, RS_GROUP / RS_OCL_WARP of them per group. */
static redscan_status rs_reduce_subgroup_kernel(redscan_ctx *ctx, redscan_reduce_algo algo, cl_kernel kernel,
                                                const char *name)
{
    size_t size = 0, count = 0;
    redscan_status st = rs_ocl_kernel_subgroups(ctx, kernel, name, &size, &count);
    if (st != REDSCAN_OK) return st;
    if (size == RS_OCL_WARP && count == RS_GROUP / RS_OCL_WARP) return REDSCAN_OK;
    return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                        "reduction algorithm '%s' needs sub-groups of exactly %d work-items; device %s runs %s with "
                        "sub-groups of up to %zu (%zu per group of %d)",
                        redscan_reduce_algo_name(algo), RS_OCL_WARP, ctx->device_name, name, size, count, RS_GROUP);
}

/* Launch `kernel` (in, count, out, out_off) once over count elements: one output per tile, from element out_off of
 * out (0 but for the last pass of an _async result at an index). */
static redscan_status rs_reduce_pass(redscan_ctx *ctx, cl_kernel kernel, cl_mem in, uint64_t count, cl_mem out,
                                     cl_ulong out_off, uint64_t tile, const char *what)
{
    const cl_ulong n = count;
    const size_t sizes[] = {sizeof(cl_mem), sizeof n, sizeof(cl_mem), sizeof out_off};
    const void *values[] = {&in, &n, &out, &out_off};
    redscan_status st = rs_set_args(ctx, kernel, what, 4, sizes, values);
    if (st != REDSCAN_OK) return st;
    return rs_ocl_launch(ctx, kernel, rs_ocl_groups_for(rs_ocl_of(ctx), rs_div_up(count, tile)), what);
}

/* The CPU shape of a pass (ocl_shape.c): the same partials from work-groups of one work-item, each over a
 * contiguous run of `per` tiles (kernel arguments in, count, out, per, out_off). */
static redscan_status rs_reduce_pass_cpu(redscan_ctx *ctx, cl_kernel kernel, cl_mem in, uint64_t count, cl_mem out,
                                         cl_ulong out_off, uint64_t tile, const char *what)
{
    cl_ulong per = 0;
    const size_t items = rs_ocl_cpu_items(rs_ocl_of(ctx), rs_div_up(count, tile), &per);
    const cl_ulong n = count;
    const size_t sizes[] = {sizeof(cl_mem), sizeof n, sizeof(cl_mem), sizeof per, sizeof out_off};
    const void *values[] = {&in, &n, &out, &per, &out_off};
    redscan_status st = rs_set_args(ctx, kernel, what, 5, sizes, values);
    if (st != REDSCAN_OK) return st;
    return rs_ocl_launch_items(ctx, kernel, items, what);
}

static const rs_reduce_algo_info *rs_reduce_info(redscan_reduce_algo algo)
{
    /* AUTO: coarsened reads 16 elements per work-item with vector loads; the fastest on every device. */
    if (algo == REDSCAN_REDUCE_AUTO) algo = REDSCAN_REDUCE_COARSENED;
    for (size_t i = 0; i < sizeof rs_reduce_algos / sizeof rs_reduce_algos[0]; i++)
        if (rs_reduce_algos[i].algo == algo) return &rs_reduce_algos[i];
    return NULL;
}

/* Scratch of a reduction: pass 1's partials (A) and pass 2's (B); the later passes reuse them. */
static void rs_reduce_sizes(const rs_reduce_algo_info *info, uint64_t n, size_t tsize, size_t bytes[2])
{
    const uint64_t n1 = rs_div_up(n, info->tile);
    bytes[0] = (size_t)n1 * tsize;
    bytes[1] = (size_t)rs_div_up(n1, info->tile) * tsize;
}

redscan_status rs_ocl_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n, void *out,
                             size_t out_offset)
{
    const rs_reduce_algo_info *info = rs_reduce_info(req->algo);
    if (!info)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "reduction algorithm %d is not available on OpenCL",
                            (int)req->algo);
    const redscan_reduce_algo algo = info->algo;

    /* coarsened on a CPU device (or REDSCAN_OPENCL_SHAPE=cpu): its CPU shape, the same partials bit for bit. */
    const int cpu = algo == REDSCAN_REDUCE_COARSENED && rs_ocl_cpu_shape(rs_ocl_of(ctx));
    const rs_ocl_family family = cpu ? RS_OCL_PROG_REDUCE_COARSENED_CPU : info->family;
    const char *name_in = cpu ? "reduce_coarsened_cpu_in" : info->kernel_in;
    const char *name_t = !rs_ocl_has_t_kernels(req->dtype, req->out_dtype) ? name_in
                         : cpu                                              ? "reduce_coarsened_cpu_t"
                                                                            : info->kernel_t;
    cl_program program;
    redscan_status st = info->subgroups ? rs_reduce_subgroup_device(ctx, algo) : REDSCAN_OK;
    if (st == REDSCAN_OK) st = rs_ocl_program_get(ctx, family, req->dtype, req->out_dtype, req->op, &program);
    if (st == REDSCAN_OK && info->subgroups) st = rs_reduce_subgroup_program(ctx, algo, program, name_in, name_t);
    if (st != REDSCAN_OK) return st;
    redscan_status (*pass)(redscan_ctx *, cl_kernel, cl_mem, uint64_t, cl_mem, cl_ulong, uint64_t, const char *) =
        cpu ? rs_reduce_pass_cpu : rs_reduce_pass;
    cl_kernel k_in = NULL, k_t = NULL;
    cl_mem part[2] = {NULL, NULL};
    /* T: the type the kernels combine in; a narrow output (OUT_T) is stored from it by reduce_store_out */
    const size_t tsize = redscan_dtype_size(rs_compute_dtype(req->out_dtype));
    const int narrow = rs_dtype_is_narrow(req->out_dtype);
    size_t bytes[2];
    rs_reduce_sizes(info, n, tsize, bytes);

    st = rs_ocl_kernel(ctx, program, name_in, &k_in);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, name_t, &k_t);
    if (st == REDSCAN_OK && info->subgroups) st = rs_reduce_subgroup_kernel(ctx, algo, k_in, name_in);
    if (st == REDSCAN_OK && info->subgroups) st = rs_reduce_subgroup_kernel(ctx, algo, k_t, name_t);
    if (st == REDSCAN_OK) st = rs_ocl_scratch_split(ctx, 2, bytes, part);
    if (st != REDSCAN_OK) goto done;

    /* Pass 1 reads the input; every later pass reduces the partials of the pass before (ping-pong, part[cur] the
     * latest). The pass that leaves one value writes it to the caller's element (out_offset / tsize: the kernels
     * take an element offset for their output, as their CUDA twins take a pointer). */
    uint64_t count = n;
    int cur = -1;
    while (st == REDSCAN_OK) {
        const uint64_t outs = rs_div_up(count, info->tile);
        const int last = outs == 1;
        const int direct = last && !narrow;
        const cl_mem dst = direct ? (cl_mem)out : part[cur == 0 ? 1 : 0];
        const cl_ulong off = direct ? (cl_ulong)(out_offset / tsize) : 0;
        st = cur < 0 ? pass(ctx, k_in, (cl_mem)in, count, dst, off, info->tile, name_in)
                     : pass(ctx, k_t, part[cur], count, dst, off, info->tile, name_t);
        if (st != REDSCAN_OK || last) break;
        cur = cur == 0 ? 1 : 0;
        count = outs;
    }
    if (st == REDSCAN_OK && narrow) { /* the value the last pass left in scratch, rounded once into the output */
        cl_kernel k_store = NULL;
        const cl_mem src = part[cur == 0 ? 1 : 0], dst = (cl_mem)out;
        const cl_ulong off = (cl_ulong)(out_offset / redscan_dtype_size(req->out_dtype));
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof off};
        const void *values[] = {&src, &dst, &off};
        st = rs_ocl_kernel(ctx, program, "reduce_store_out", &k_store);
        if (st == REDSCAN_OK) st = rs_set_args(ctx, k_store, "reduce_store_out", 3, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch_items(ctx, k_store, 1, "reduce_store_out");
        if (k_store) clReleaseKernel(k_store);
    }
done:
    for (int i = 0; i < 2; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    if (k_in) clReleaseKernel(k_in);
    if (k_t) clReleaseKernel(k_t);
    return st;
}

redscan_status rs_ocl_store_empty(redscan_ctx *ctx, redscan_op op, redscan_dtype out_dtype, void *out,
                                  size_t out_offset)
{
    rs_ocl *o = rs_ocl_of(ctx);
    const rs_scalar v = rs_empty_result(op, out_dtype);
    const size_t tsize = redscan_dtype_size(out_dtype);
    /* The pattern is copied at the enqueue; the offset is a multiple of the pattern size, as OpenCL requires. */
    cl_int err = clEnqueueFillBuffer(o->queue, (cl_mem)out, v.bytes, tsize, out_offset, tsize, 0, NULL,
                                     rs_ocl_time_event(o));
    if (err != CL_SUCCESS) return rs_ocl_fail(ctx, err, "clEnqueueFillBuffer (reduction of nothing)");
    rs_ocl_time_note(o);
    return REDSCAN_OK;
}

/* ---------------------------------------------------------------- argmin / argmax */

/* Groups of the one-pass small top-k / argext: enough to fill the device (rs_ocl_groups_for's cap), never more
 * than one per 4096 elements (16 per work-item: shorter walks would only add pairs to merge). */
static size_t rs_small_groups(const rs_ocl *o, uint64_t n) { return rs_ocl_groups_for(o, rs_div_up(n, 4096)); }

#define RS_ARGEXT_TILE 2048 /* kernels_cl/argext.cl */

/* Scratch of argmin/argmax: the pairs of pass 1 (values A, indices A) and of pass 2 (B). */
static void rs_argext_sizes(const rs_ocl *o, uint64_t n, size_t vsize, size_t bytes[4])
{
    const uint64_t m1 = rs_small_groups(o, n), m2 = rs_div_up(m1, RS_ARGEXT_TILE);
    bytes[0] = (size_t)m1 * vsize;
    bytes[1] = (size_t)m1 * sizeof(cl_ulong);
    bytes[2] = (size_t)m2 * vsize;
    bytes[3] = (size_t)m2 * sizeof(cl_ulong);
}

redscan_status rs_ocl_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n, void *index,
                             void *value)
{
    /* rs_before (common.clh) takes its direction from RS_OP. */
    cl_program program;
    redscan_status st =
        rs_ocl_program_get(ctx, RS_OCL_PROG_ARGEXT, dtype, dtype, want_max ? REDSCAN_MAX : REDSCAN_MIN, &program);
    if (st != REDSCAN_OK) return st;
    cl_kernel k_in = NULL, k_pairs = NULL;
    cl_mem part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    const size_t vsize = redscan_dtype_size(dtype);
    /* Pass 1: the one-pass small top-k with k = 1 (topk.cl's topk_small_1: one pair per group); then
     * argext_pairs over the pairs. The pass that leaves one pair writes it to the caller's buffers (the value to
     * scratch when the caller wants none). */
    rs_ocl *o = rs_ocl_of(ctx);
    const size_t groups = rs_small_groups(o, n);
    size_t bytes[4];
    rs_argext_sizes(o, n, vsize, bytes);

    st = rs_ocl_kernel(ctx, program, "topk_small_1", &k_in);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "argext_pairs", &k_pairs);
    if (st == REDSCAN_OK) st = rs_ocl_scratch_split(ctx, 4, bytes, part);
    if (st != REDSCAN_OK) goto done;

    const cl_ulong n64 = n;
    const cl_mem out_i = (cl_mem)index;
    {
        const cl_uint one = 1;
        const int last = groups == 1;
        const cl_mem dv = last && value ? (cl_mem)value : part[0], di = last ? out_i : part[1];
        const size_t sizes[] = {sizeof(cl_mem), sizeof n64, sizeof one, sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&in, &n64, &one, &dv, &di};
        st = rs_set_args(ctx, k_in, "topk_small_1", 5, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_in, groups, "topk_small_1 (argext)");
    }
    int cur = 0; /* part[2*cur], part[2*cur+1] hold the latest pairs */
    for (cl_ulong m = groups; st == REDSCAN_OK && m > 1; m = rs_div_up(m, RS_ARGEXT_TILE)) {
        const uint64_t outs = rs_div_up(m, RS_ARGEXT_TILE);
        const int last = outs == 1;
        const cl_mem dv = last && value ? (cl_mem)value : part[2 - 2 * cur], di = last ? out_i : part[3 - 2 * cur];
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof m, sizeof n64, sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&part[2 * cur], &part[2 * cur + 1], &m, &n64, &dv, &di};
        st = rs_set_args(ctx, k_pairs, "argext_pairs", 6, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_pairs, rs_ocl_groups_for(o, outs), "argext_pairs");
        cur = 1 - cur;
    }
done:
    for (int i = 0; i < 4; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    if (k_in) clReleaseKernel(k_in);
    if (k_pairs) clReleaseKernel(k_pairs);
    return st;
}

/* ---------------------------------------------------------------- top-k */

#define RS_TOPK_TILE 1024     /* kernels_cl/topk.cl */
#define RS_TOPK_SMALL_MAX 8   /* topk_small_1 / _2 / _8 of kernels_cl/topk.cl */

/* Top-k's first pass: k <= RS_TOPK_SMALL_MAX: one pass (topk_small_K, K = k for k <= 2, else 8), groups * k
 * candidates; else topk_in, the best k of every tile of RS_TOPK_TILE. */
static uint64_t rs_topk_first(const rs_ocl *o, uint64_t n, size_t k, size_t *groups)
{
    const int small = k <= RS_TOPK_SMALL_MAX;
    *groups = small ? rs_small_groups(o, n) : rs_ocl_groups_for(o, rs_div_up(n, RS_TOPK_TILE));
    return small ? (uint64_t)*groups * k : rs_div_up(n, RS_TOPK_TILE) * k;
}

/* Scratch of top-k: the candidates of pass 1 (values A, indices A) and of pass 2 (B). */
static void rs_topk_sizes(const rs_ocl *o, uint64_t n, size_t k, size_t vsize, size_t bytes[4])
{
    size_t groups;
    const uint64_t m1 = rs_topk_first(o, n, k, &groups), m2 = rs_div_up(m1, RS_TOPK_TILE) * k;
    bytes[0] = (size_t)m1 * vsize;
    bytes[1] = (size_t)m1 * sizeof(cl_ulong);
    bytes[2] = (size_t)m2 * vsize;
    bytes[3] = (size_t)m2 * sizeof(cl_ulong);
}

redscan_status rs_ocl_topk(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k, int largest,
                           void *values, void *indices)
{
    /* The first pass's kernel and the program that holds it (with topk_pairs): one choice, by k. */
    static const struct {
        rs_ocl_family family;
        const char *kernel;
    } first_pass[] = {{RS_OCL_PROG_TOPK_1, "topk_small_1"},
                      {RS_OCL_PROG_TOPK_2, "topk_small_2"},
                      {RS_OCL_PROG_TOPK_8, "topk_small_8"},
                      {RS_OCL_PROG_TOPK_LARGE, "topk_in"}};
    const int small = k <= RS_TOPK_SMALL_MAX;
    const size_t pick = !small ? 3 : k == 1 ? 0 : k == 2 ? 1 : 2;
    const char *name_in = first_pass[pick].kernel;
    cl_program program;
    redscan_status st =
        rs_ocl_program_get(ctx, first_pass[pick].family, dtype, dtype, largest ? REDSCAN_MAX : REDSCAN_MIN, &program);
    if (st != REDSCAN_OK) return st;
    cl_kernel k_in = NULL, k_pairs = NULL;
    cl_mem part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    const size_t vsize = redscan_dtype_size(dtype);
    /* Later passes: topk_pairs, the best k of every tile of the candidates, until k are left; that pass writes the
     * caller's buffers (the indices to scratch when the caller wants none). */
    rs_ocl *o = rs_ocl_of(ctx);
    size_t groups1, bytes[4];
    const uint64_t m1 = rs_topk_first(o, n, k, &groups1);
    rs_topk_sizes(o, n, k, vsize, bytes);

    st = rs_ocl_kernel(ctx, program, name_in, &k_in);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "topk_pairs", &k_pairs);
    if (st == REDSCAN_OK) st = rs_ocl_scratch_split(ctx, 4, bytes, part);
    if (st != REDSCAN_OK) goto done;

    const cl_ulong n64 = n;
    const cl_uint k32 = (cl_uint)k;
    const cl_mem out_v = (cl_mem)values;
    {
        const int last = m1 <= k;
        const cl_mem dv = last ? out_v : part[0], di = last && indices ? (cl_mem)indices : part[1];
        const size_t sizes[] = {sizeof(cl_mem), sizeof n64, sizeof k32, sizeof(cl_mem), sizeof(cl_mem)};
        const void *args[] = {&in, &n64, &k32, &dv, &di};
        st = rs_set_args(ctx, k_in, name_in, 5, sizes, args);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_in, groups1, name_in);
    }
    int cur = 0;
    for (cl_ulong m = m1; st == REDSCAN_OK && m > k;) {
        const uint64_t tiles = rs_div_up(m, RS_TOPK_TILE);
        const int last = tiles == 1;
        const cl_mem dv = last ? out_v : part[2 - 2 * cur],
                     di = last && indices ? (cl_mem)indices : part[3 - 2 * cur];
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof m, sizeof n64, sizeof k32,
                                sizeof(cl_mem), sizeof(cl_mem)};
        const void *args[] = {&part[2 * cur], &part[2 * cur + 1], &m, &n64, &k32, &dv, &di};
        st = rs_set_args(ctx, k_pairs, "topk_pairs", 7, sizes, args);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_pairs, rs_ocl_groups_for(o, tiles), "topk_pairs");
        m = tiles * k;
        cur = 1 - cur;
    }
done:
    for (int i = 0; i < 4; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    if (k_in) clReleaseKernel(k_in);
    if (k_pairs) clReleaseKernel(k_pairs);
    return st;
}

/* ---------------------------------------------------------------- workspace */

static void rs_need(size_t *need, const size_t *bytes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (bytes[i] > need[i]) need[i] = bytes[i];
}

void rs_ocl_select_reserve(const rs_ocl *o, redscan_dtype dtype, uint64_t n, size_t k_max, size_t *need)
{
    size_t bytes[4];
    const redscan_dtype wide = rs_widening_of(dtype);
    for (size_t i = 0; i < sizeof rs_reduce_algos / sizeof rs_reduce_algos[0]; i++) {
        rs_reduce_sizes(&rs_reduce_algos[i], n, redscan_dtype_size(rs_compute_dtype(dtype)), bytes);
        rs_need(need, bytes, 2);
        if (wide) {
            rs_reduce_sizes(&rs_reduce_algos[i], n, redscan_dtype_size(wide), bytes);
            rs_need(need, bytes, 2);
        }
    }
    rs_argext_sizes(o, n, redscan_dtype_size(dtype), bytes);
    rs_need(need, bytes, 4);
    /* The candidates grow with k on each path: the largest small k, and k_max itself when it takes the other. */
    rs_topk_sizes(o, n, k_max < RS_TOPK_SMALL_MAX ? k_max : RS_TOPK_SMALL_MAX, redscan_dtype_size(dtype), bytes);
    rs_need(need, bytes, 4);
    if (k_max > RS_TOPK_SMALL_MAX) {
        rs_topk_sizes(o, n, k_max, redscan_dtype_size(dtype), bytes);
        rs_need(need, bytes, 4);
    }
}
