/* OpenCL backend: reductions, argmin/argmax and top-k launches (kernels_cl/reduce_*.cl, argext.cl, topk.cl).
 *
 * Every operation is a chain of passes: the first reads the caller's buffer (never written), each later
 * pass reads the previous pass's output from the context scratch, until one tile's worth is left. The
 * scratch is cut into two ping-pong halves A and B: pass 1 writes A, pass 2 writes B, pass 3 writes A ...;
 * each pass's output is smaller than the one before, so A holds pass 1's output and B pass 2's. */
#include "ocl_internal.h"

static uint64_t rs_div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* Kernel arguments in order; `sizes[i] == 0` marks a cl_mem passed by handle. */
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
} rs_reduce_algo_info;

static const rs_reduce_algo_info rs_reduce_algos[] = {
    {REDSCAN_REDUCE_TREE, "reduce_tree_in", "reduce_tree_t", 512},
    {REDSCAN_REDUCE_INTERLEAVED, "reduce_interleaved_in", "reduce_interleaved_t", 256},
    {REDSCAN_REDUCE_COARSENED, "reduce_coarsened_in", "reduce_coarsened_t", 4096},
};

/* Launch `kernel` (in, count, out) once over count elements: one output per tile. */
static redscan_status rs_reduce_pass(redscan_ctx *ctx, cl_kernel kernel, cl_mem in, uint64_t count, cl_mem out,
                                     uint64_t tile, const char *what)
{
    const cl_ulong n = count;
    const size_t sizes[] = {sizeof(cl_mem), sizeof n, sizeof(cl_mem)};
    const void *values[] = {&in, &n, &out};
    redscan_status st = rs_set_args(ctx, kernel, what, 3, sizes, values);
    if (st != REDSCAN_OK) return st;
    return rs_ocl_launch(ctx, kernel, rs_ocl_groups_for(rs_ocl_of(ctx), rs_div_up(count, tile)), what);
}

redscan_status rs_ocl_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n, rs_scalar *result)
{
    /* AUTO: coarsened reads 16 elements per work-item with vector loads; the fastest on every device. */
    const redscan_reduce_algo algo = req->algo == REDSCAN_REDUCE_AUTO ? REDSCAN_REDUCE_COARSENED : req->algo;
    const rs_reduce_algo_info *info = NULL;
    for (size_t i = 0; i < sizeof rs_reduce_algos / sizeof rs_reduce_algos[0]; i++)
        if (rs_reduce_algos[i].algo == algo) info = &rs_reduce_algos[i];
    if (!info)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "reduction algorithm %d is not available on OpenCL",
                            (int)algo);

    cl_program program;
    redscan_status st = rs_ocl_program_get(ctx, req->dtype, req->out_dtype, req->op, &program);
    if (st != REDSCAN_OK) return st;
    cl_kernel k_in = NULL, k_t = NULL;
    cl_mem part[2] = {NULL, NULL};
    const size_t tsize = redscan_dtype_size(req->out_dtype);
    const uint64_t n1 = rs_div_up(n, info->tile);
    const size_t bytes[2] = {(size_t)n1 * tsize, (size_t)rs_div_up(n1, info->tile) * tsize};

    st = rs_ocl_kernel(ctx, program, info->kernel_in, &k_in);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, info->kernel_t, &k_t);
    if (st == REDSCAN_OK) st = rs_ocl_scratch_split(ctx, 2, bytes, part);
    if (st != REDSCAN_OK) goto done;

    st = rs_reduce_pass(ctx, k_in, (cl_mem)in, n, part[0], info->tile, info->kernel_in);
    int cur = 0; /* part[cur] holds the latest partials */
    for (uint64_t count = n1; st == REDSCAN_OK && count > 1; count = rs_div_up(count, info->tile)) {
        st = rs_reduce_pass(ctx, k_t, part[cur], count, part[1 - cur], info->tile, info->kernel_t);
        cur = 1 - cur;
    }
    if (st == REDSCAN_OK) {
        *result = (rs_scalar){.u64 = 0};
        st = rs_ocl_buffer_read(ctx, part[cur], 0, result->bytes, tsize);
    }
done:
    for (int i = 0; i < 2; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    if (k_in) clReleaseKernel(k_in);
    if (k_t) clReleaseKernel(k_t);
    return st;
}

/* ---------------------------------------------------------------- argmin / argmax */

#define RS_ARGEXT_TILE 2048 /* kernels_cl/argext.cl */

redscan_status rs_ocl_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n,
                             uint64_t *index, rs_scalar *value)
{
    /* rs_before (common.clh) takes its direction from RS_OP. */
    cl_program program;
    redscan_status st = rs_ocl_program_get(ctx, dtype, dtype, want_max ? REDSCAN_MAX : REDSCAN_MIN, &program);
    if (st != REDSCAN_OK) return st;
    cl_kernel k_in = NULL, k_pairs = NULL;
    cl_mem part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    const size_t vsize = redscan_dtype_size(dtype);
    const uint64_t m1 = rs_div_up(n, RS_ARGEXT_TILE), m2 = rs_div_up(m1, RS_ARGEXT_TILE);
    const size_t bytes[4] = {(size_t)m1 * vsize, (size_t)m1 * sizeof(cl_ulong), (size_t)m2 * vsize,
                             (size_t)m2 * sizeof(cl_ulong)};

    st = rs_ocl_kernel(ctx, program, "argext_in", &k_in);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "argext_pairs", &k_pairs);
    if (st == REDSCAN_OK) st = rs_ocl_scratch_split(ctx, 4, bytes, part);
    if (st != REDSCAN_OK) goto done;

    const cl_ulong n64 = n;
    rs_ocl *o = rs_ocl_of(ctx);
    {
        const size_t sizes[] = {sizeof(cl_mem), sizeof n64, sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&in, &n64, &part[0], &part[1]};
        st = rs_set_args(ctx, k_in, "argext_in", 4, sizes, values);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_in, rs_ocl_groups_for(o, m1), "argext_in");
    }
    int cur = 0; /* part[2*cur], part[2*cur+1] hold the latest pairs */
    for (cl_ulong m = m1; st == REDSCAN_OK && m > 1; m = rs_div_up(m, RS_ARGEXT_TILE)) {
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof m, sizeof n64, sizeof(cl_mem), sizeof(cl_mem)};
        const void *values[] = {&part[2 * cur], &part[2 * cur + 1], &m, &n64, &part[2 - 2 * cur], &part[3 - 2 * cur]};
        st = rs_set_args(ctx, k_pairs, "argext_pairs", 6, sizes, values);
        if (st == REDSCAN_OK)
            st = rs_ocl_launch(ctx, k_pairs, rs_ocl_groups_for(o, rs_div_up(m, RS_ARGEXT_TILE)), "argext_pairs");
        cur = 1 - cur;
    }
    if (st == REDSCAN_OK) {
        cl_ulong idx = 0;
        *value = (rs_scalar){.u64 = 0};
        st = rs_ocl_buffer_read(ctx, part[2 * cur], 0, value->bytes, vsize);
        if (st == REDSCAN_OK) st = rs_ocl_buffer_read(ctx, part[2 * cur + 1], 0, &idx, sizeof idx);
        if (st == REDSCAN_OK) *index = idx;
    }
done:
    for (int i = 0; i < 4; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    if (k_in) clReleaseKernel(k_in);
    if (k_pairs) clReleaseKernel(k_pairs);
    return st;
}

/* ---------------------------------------------------------------- top-k */

#define RS_TOPK_TILE 1024 /* kernels_cl/topk.cl */

redscan_status rs_ocl_topk(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k, int largest,
                           void *values, uint64_t *indices)
{
    cl_program program;
    redscan_status st = rs_ocl_program_get(ctx, dtype, dtype, largest ? REDSCAN_MAX : REDSCAN_MIN, &program);
    if (st != REDSCAN_OK) return st;
    cl_kernel k_in = NULL, k_pairs = NULL;
    cl_mem part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    const size_t vsize = redscan_dtype_size(dtype);
    /* Pass 1 keeps k per tile of the input; pass 2 k per tile of those; later passes need less than pass 1. */
    const uint64_t t1 = rs_div_up(n, RS_TOPK_TILE), m1 = t1 * k, m2 = rs_div_up(m1, RS_TOPK_TILE) * k;
    const size_t bytes[4] = {(size_t)m1 * vsize, (size_t)m1 * sizeof(cl_ulong), (size_t)m2 * vsize,
                             (size_t)m2 * sizeof(cl_ulong)};

    st = rs_ocl_kernel(ctx, program, "topk_in", &k_in);
    if (st == REDSCAN_OK) st = rs_ocl_kernel(ctx, program, "topk_pairs", &k_pairs);
    if (st == REDSCAN_OK) st = rs_ocl_scratch_split(ctx, 4, bytes, part);
    if (st != REDSCAN_OK) goto done;

    const cl_ulong n64 = n;
    const cl_uint k32 = (cl_uint)k;
    rs_ocl *o = rs_ocl_of(ctx);
    {
        const size_t sizes[] = {sizeof(cl_mem), sizeof n64, sizeof k32, sizeof(cl_mem), sizeof(cl_mem)};
        const void *args[] = {&in, &n64, &k32, &part[0], &part[1]};
        st = rs_set_args(ctx, k_in, "topk_in", 5, sizes, args);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_in, rs_ocl_groups_for(o, t1), "topk_in");
    }
    /* The candidates left are `tiles * k`; once a pass ran over a single tile its k pairs are the answer. */
    int cur = 0;
    for (uint64_t tiles = t1; st == REDSCAN_OK && tiles > 1;) {
        const cl_ulong m = tiles * k;
        tiles = rs_div_up(m, RS_TOPK_TILE);
        const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof m, sizeof n64, sizeof k32,
                                sizeof(cl_mem), sizeof(cl_mem)};
        const void *args[] = {&part[2 * cur], &part[2 * cur + 1], &m, &n64, &k32, &part[2 - 2 * cur], &part[3 - 2 * cur]};
        st = rs_set_args(ctx, k_pairs, "topk_pairs", 7, sizes, args);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_pairs, rs_ocl_groups_for(o, tiles), "topk_pairs");
        cur = 1 - cur;
    }
    if (st == REDSCAN_OK) st = rs_ocl_buffer_read(ctx, part[2 * cur], 0, values, k * vsize);
    if (st == REDSCAN_OK) {
        /* cl_ulong and uint64_t are the same 64-bit unsigned type on every host OpenCL supports. */
        _Static_assert(sizeof(cl_ulong) == sizeof(uint64_t), "cl_ulong is 64-bit");
        st = rs_ocl_buffer_read(ctx, part[2 * cur + 1], 0, indices, k * sizeof(cl_ulong));
    }
done:
    for (int i = 0; i < 4; i++)
        if (part[i]) clReleaseMemObject(part[i]);
    if (k_in) clReleaseKernel(k_in);
    if (k_pairs) clReleaseKernel(k_pairs);
    return st;
}
