/* CUDA backend: reductions, argmin/argmax and top-k launches (kernels_cu/reduce_*.cu, argext.cu, topk.cu).
 * Host twin of backend_opencl/ocl_reduce.c: the same passes in the same order.
 *
 * Every operation is a chain of passes: the first reads the caller's buffer (never written), each later
 * pass reads the previous pass's output from the context scratch, until one tile's worth is left. The
 * scratch is cut into two ping-pong halves A and B: pass 1 writes A, pass 2 writes B, pass 3 writes A ...;
 * each pass's output is smaller than the one before, so A holds pass 1's output and B pass 2's. Every launch
 * is checked; the final copy to the host waits for the stream, so a kernel fault is reported by this call. */
#include <stdio.h>

#include "cuda_internal.h"

static uint64_t rs_div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* Blocks of the one-pass small top-k / argext (topk_small): never more than one per 4096 elements (16 per thread:
 * shorter walks would only add pairs to merge), and never more than fit on the device at once, so that its
 * grid-stride walk runs as one wave (rs_cu_topk_small_blocks_per_sm, asked once per instance and context). */
static unsigned rs_small_grid(rs_cuda *c, redscan_dtype dtype, int largest, unsigned k, uint64_t n)
{
    const unsigned grid = rs_cuda_grid_for(c, rs_div_up(n, 4096));
    unsigned char *fit = &c->small_fit[(int)dtype - 1][largest != 0][k == 1 ? 0 : k == 2 ? 1 : 2];
    if (!*fit) {
        const unsigned f = rs_cu_topk_small_blocks_per_sm((int)dtype, largest, k);
        *fit = (unsigned char)(f == 0 ? 8 : f < 8 ? f : 8); /* unknown: the 8 of rs_cuda_grid_for */
    }
    const uint64_t cap = (uint64_t)(c->sm_count > 0 ? c->sm_count : 1) * *fit;
    return grid < cap ? grid : (unsigned)cap;
}

/* ---------------------------------------------------------------- reduce */

typedef cudaError_t (*rs_cu_reduce_fn)(int in_dtype, int out_dtype, int op, const void *in, unsigned long long n,
                                       void *partials, unsigned grid, cudaStream_t stream);

typedef struct {
    redscan_reduce_algo algo;
    const char *name;
    rs_cu_reduce_fn launch;
    uint64_t tile; /* TILE of docs/ALGORITHMS.md */
} rs_cuda_reduce_algo_info;

static const rs_cuda_reduce_algo_info rs_cuda_reduce_algos[] = {
    {REDSCAN_REDUCE_TREE, "reduce_tree", rs_cu_reduce_tree, RS_CU_TREE_TILE},
    {REDSCAN_REDUCE_INTERLEAVED, "reduce_interleaved", rs_cu_reduce_interleaved, RS_CU_INTERLEAVED_TILE},
    {REDSCAN_REDUCE_COARSENED, "reduce_coarsened", rs_cu_reduce_coarsened, RS_CU_COARSENED_TILE},
    {REDSCAN_REDUCE_WARP_SYNC, "reduce_warp_sync", rs_cu_reduce_warp_sync, RS_CU_WARP_SYNC_TILE},
    {REDSCAN_REDUCE_SHUFFLE, "reduce_shuffle", rs_cu_reduce_shuffle, RS_CU_SHUFFLE_TILE},
};

static redscan_status rs_cuda_launched(redscan_ctx *ctx, cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return REDSCAN_OK;
    char buf[128];
    snprintf(buf, sizeof buf, "launch of %s", what);
    return rs_cuda_fail(ctx, err, buf);
}

redscan_status rs_cuda_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n, rs_scalar *result_out)
{
    /* AUTO: coarsened reads 16 elements per thread with vector loads; the fastest on GPUs. */
    const redscan_reduce_algo algo = req->algo == REDSCAN_REDUCE_AUTO ? REDSCAN_REDUCE_COARSENED : req->algo;
    const rs_cuda_reduce_algo_info *info = NULL;
    for (size_t i = 0; i < sizeof rs_cuda_reduce_algos / sizeof rs_cuda_reduce_algos[0]; i++)
        if (rs_cuda_reduce_algos[i].algo == algo) info = &rs_cuda_reduce_algos[i];
    if (!info)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "reduction algorithm %d is not available on CUDA",
                            (int)algo);
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    rs_cuda *c = rs_cuda_of(ctx);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, redscan_dtype_size(req->dtype), "reduce: argument 'in'"));

    const size_t tsize = redscan_dtype_size(req->out_dtype);
    const uint64_t n1 = rs_div_up(n, info->tile);
    const size_t bytes[2] = {(size_t)n1 * tsize, (size_t)rs_div_up(n1, info->tile) * tsize};
    void *part[2] = {NULL, NULL}, *result = NULL;
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 2, bytes, part));
    RS_CUDA_TRY(rs_cuda_result_slots(ctx, &result, NULL));

    /* Pass 1 reads the input; every later pass reduces the partials of the pass before (ping-pong), and the pass
     * that leaves one value writes it straight to the result area. */
    const void *src = in;
    int src_dtype = (int)req->dtype;
    uint64_t count = n;
    int next = 0;
    for (;;) {
        const uint64_t outs = rs_div_up(count, info->tile);
        void *dst = outs == 1 ? result : part[next];
        st = rs_cuda_launched(ctx, info->launch(src_dtype, (int)req->out_dtype, (int)req->op, src, count, dst,
                                                rs_cuda_grid_for(c, outs), c->stream),
                              info->name);
        if (st != REDSCAN_OK || outs == 1) break;
        src = part[next];
        src_dtype = (int)req->out_dtype;
        count = outs;
        next = 1 - next;
    }
    if (st != REDSCAN_OK) {
        (void)cudaStreamSynchronize(c->stream); /* nothing queued may outlive the call */
        (void)cudaGetLastError();
        return st;
    }
    *result_out = (rs_scalar){.u64 = 0};
    return rs_cuda_result_take(ctx, result_out->bytes, tsize, NULL, 0, info->name);
}

/* ---------------------------------------------------------------- argmin / argmax */

redscan_status rs_cuda_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n,
                              uint64_t *index, rs_scalar *value)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    rs_cuda *c = rs_cuda_of(ctx);
    const size_t vsize = redscan_dtype_size(dtype);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, vsize, want_max ? "argmax: argument 'in'" : "argmin: argument 'in'"));
    /* Pass 1: the one-pass small top-k with k = 1 (one pair per block); then argext passes over the pairs. The pass
     * that leaves one pair writes it straight to the result area. */
    const unsigned grid = rs_small_grid(c, dtype, want_max, 1, n);
    const uint64_t m1 = grid, m2 = rs_div_up(m1, RS_CU_ARGEXT_TILE);
    const size_t bytes[4] = {(size_t)m1 * vsize, (size_t)m1 * sizeof(unsigned long long), (size_t)m2 * vsize,
                             (size_t)m2 * sizeof(unsigned long long)};
    void *part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    void *res_v = NULL, *res_i = NULL;
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 4, bytes, part));
    RS_CUDA_TRY(rs_cuda_result_slots(ctx, &res_v, &res_i));

    st = rs_cuda_launched(ctx,
                          rs_cu_topk_small((int)dtype, want_max, in, n, 1, m1 == 1 ? res_v : part[0],
                                           (unsigned long long *)(m1 == 1 ? res_i : part[1]), grid, c->stream),
                          "argext (one pass)");
    int cur = 0; /* part[2*cur], part[2*cur+1] hold the latest pairs */
    for (uint64_t m = m1; st == REDSCAN_OK && m > 1; m = rs_div_up(m, RS_CU_ARGEXT_TILE)) {
        const uint64_t outs = rs_div_up(m, RS_CU_ARGEXT_TILE);
        st = rs_cuda_launched(ctx,
                              rs_cu_argext((int)dtype, want_max, part[2 * cur], (const unsigned long long *)part[2 * cur + 1],
                                           m, n, outs == 1 ? res_v : part[2 - 2 * cur],
                                           (unsigned long long *)(outs == 1 ? res_i : part[3 - 2 * cur]),
                                           rs_cuda_grid_for(c, outs), c->stream),
                              "argext (pairs)");
        cur = 1 - cur;
    }
    if (st != REDSCAN_OK) {
        (void)cudaStreamSynchronize(c->stream);
        (void)cudaGetLastError();
        return st;
    }
    unsigned long long idx = 0;
    rs_scalar v = {.u64 = 0};
    RS_CUDA_TRY(rs_cuda_result_take(ctx, v.bytes, vsize, &idx, sizeof idx, "argext"));
    *value = v;
    *index = (uint64_t)idx;
    return REDSCAN_OK;
}

/* ---------------------------------------------------------------- top-k */

redscan_status rs_cuda_topk(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k, int largest,
                            void *values, uint64_t *indices)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    rs_cuda *c = rs_cuda_of(ctx);
    const size_t vsize = redscan_dtype_size(dtype);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, vsize, "topk: argument 'in'"));
    if (k < 1 || k > RS_CU_TOPK_MAX)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "topk: k = %zu is outside 1..%d", k, RS_CU_TOPK_MAX);
    /* Pass 1: k <= RS_CU_TOPK_SMALL_MAX: one pass, grid * k candidates; else the best k of every tile of
     * RS_CU_TOPK_TILE. Later passes: the best k of every tile of the candidates, until k are left. */
    const int small = k <= RS_CU_TOPK_SMALL_MAX;
    const unsigned grid1 = small ? rs_small_grid(c, dtype, largest, (unsigned)k, n) : rs_cuda_grid_for(c, rs_div_up(n, RS_CU_TOPK_TILE));
    const uint64_t m1 = small ? (uint64_t)grid1 * k : rs_div_up(n, RS_CU_TOPK_TILE) * k;
    const uint64_t m2 = rs_div_up(m1, RS_CU_TOPK_TILE) * k;
    const size_t bytes[4] = {(size_t)m1 * vsize, (size_t)m1 * sizeof(unsigned long long), (size_t)m2 * vsize,
                             (size_t)m2 * sizeof(unsigned long long)};
    void *part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    void *res_v = NULL, *res_i = NULL;
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 4, bytes, part));
    RS_CUDA_TRY(rs_cuda_result_slots(ctx, &res_v, &res_i));

    /* The pass that leaves k candidates writes them straight to the result area. */
    const int last1 = m1 <= k;
    if (small)
        st = rs_cuda_launched(ctx,
                              rs_cu_topk_small((int)dtype, largest, in, n, (unsigned)k, last1 ? res_v : part[0],
                                               (unsigned long long *)(last1 ? res_i : part[1]), grid1, c->stream),
                              "topk (one pass)");
    else
        st = rs_cuda_launched(ctx,
                              rs_cu_topk((int)dtype, largest, in, NULL, n, n, (unsigned)k, last1 ? res_v : part[0],
                                         (unsigned long long *)(last1 ? res_i : part[1]), grid1, c->stream),
                              "topk");
    int cur = 0;
    for (uint64_t m = m1; st == REDSCAN_OK && m > k;) {
        const uint64_t tiles = rs_div_up(m, RS_CU_TOPK_TILE);
        const int last = tiles * k <= k;
        st = rs_cuda_launched(ctx,
                              rs_cu_topk((int)dtype, largest, part[2 * cur],
                                         (const unsigned long long *)part[2 * cur + 1], m, n, (unsigned)k,
                                         last ? res_v : part[2 - 2 * cur],
                                         (unsigned long long *)(last ? res_i : part[3 - 2 * cur]),
                                         rs_cuda_grid_for(c, tiles), c->stream),
                              "topk (pairs)");
        m = tiles * k;
        cur = 1 - cur;
    }
    if (st != REDSCAN_OK) {
        (void)cudaStreamSynchronize(c->stream);
        (void)cudaGetLastError();
        return st;
    }
    _Static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "64-bit indices");
    return rs_cuda_result_take(ctx, values, k * vsize, indices, k * sizeof(uint64_t), "topk");
}
