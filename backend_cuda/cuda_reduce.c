/* CUDA backend: reductions, argmin/argmax and top-k launches (kernels_cu/reduce_*.cu, argext.cu, topk.cu).
 * Host twin of backend_opencl/ocl_reduce.c: the same passes in the same order.
 *
 * Every operation is a chain of passes: the first reads the caller's buffer (never written), each later
 * pass reads the previous pass's output from the context scratch, until one tile's worth is left. The
 * scratch is cut into two ping-pong halves A and B: pass 1 writes A, pass 2 writes B, pass 3 writes A ...;
 * each pass's output is smaller than the one before, so A holds pass 1's output and B pass 2's. Every launch
 * is checked. Nothing here waits for the device: the work is queued on the context's stream, and the blocking
 * entry points wait (api/src) and take the result from the result area (cuda_result.c). */
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

static const rs_cuda_reduce_algo_info *rs_cuda_reduce_info(redscan_reduce_algo algo)
{
    /* AUTO: coarsened reads 16 elements per thread with vector loads; the fastest on GPUs. */
    if (algo == REDSCAN_REDUCE_AUTO) algo = REDSCAN_REDUCE_COARSENED;
    for (size_t i = 0; i < sizeof rs_cuda_reduce_algos / sizeof rs_cuda_reduce_algos[0]; i++)
        if (rs_cuda_reduce_algos[i].algo == algo) return &rs_cuda_reduce_algos[i];
    return NULL;
}

/* Scratch of a reduction: pass 1's partials (A) and pass 2's (B); the later passes reuse them. */
static void rs_cuda_reduce_sizes(const rs_cuda_reduce_algo_info *info, uint64_t n, size_t tsize, size_t bytes[2])
{
    const uint64_t n1 = rs_div_up(n, info->tile);
    bytes[0] = (size_t)n1 * tsize;
    bytes[1] = (size_t)rs_div_up(n1, info->tile) * tsize;
}

redscan_status rs_cuda_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n, void *out,
                              size_t out_offset)
{
    const rs_cuda_reduce_algo_info *info = rs_cuda_reduce_info(req->algo);
    if (!info)
        return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED, "reduction algorithm %d is not available on CUDA",
                            (int)req->algo);
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    rs_cuda *c = rs_cuda_of(ctx);
    /* T: the type the kernels combine in; a narrow output is stored from it by reduce_store_out */
    const redscan_dtype tdt = rs_compute_dtype(req->out_dtype);
    const size_t tsize = redscan_dtype_size(tdt);
    const int narrow = rs_dtype_is_narrow(req->out_dtype);
    void *result = (char *)out + out_offset;
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, redscan_dtype_size(req->dtype), "reduce: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, result, redscan_dtype_size(req->out_dtype), "reduce: the result element"));

    size_t bytes[2];
    rs_cuda_reduce_sizes(info, n, tsize, bytes);
    void *part[2] = {NULL, NULL};
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 2, bytes, part));

    /* Pass 1 reads the input; every later pass reduces the partials of the pass before (ping-pong), and the pass
     * that leaves one value writes it straight to the result element (a narrow result: to scratch, then
     * reduce_store_out rounds it once into the result element). */
    const void *src = in;
    int src_dtype = (int)req->dtype;
    uint64_t count = n;
    int next = 0;
    for (;;) {
        const uint64_t outs = rs_div_up(count, info->tile);
        void *dst = outs == 1 && !narrow ? result : part[next];
        st = rs_cuda_launched(ctx, info->launch(src_dtype, (int)tdt, (int)req->op, src, count, dst,
                                                rs_cuda_grid_for(c, outs), c->stream),
                              info->name);
        if (st != REDSCAN_OK) return st;
        if (outs == 1)
            return narrow ? rs_cuda_launched(ctx, rs_cu_reduce_store_out((int)req->out_dtype, dst, result, c->stream),
                                             "reduce_store_out")
                          : REDSCAN_OK;
        src = part[next];
        src_dtype = (int)tdt;
        count = outs;
        next = 1 - next;
    }
}

/* ---------------------------------------------------------------- argmin / argmax */

/* Scratch of argmin/argmax: the pairs of pass 1 (values A, indices A) and of pass 2 (B). */
static void rs_cuda_argext_sizes(rs_cuda *c, redscan_dtype dtype, int want_max, uint64_t n, size_t bytes[4])
{
    const size_t vsize = redscan_dtype_size(dtype);
    const uint64_t m1 = rs_small_grid(c, dtype, want_max, 1, n), m2 = rs_div_up(m1, RS_CU_ARGEXT_TILE);
    bytes[0] = (size_t)m1 * vsize;
    bytes[1] = (size_t)m1 * sizeof(unsigned long long);
    bytes[2] = (size_t)m2 * vsize;
    bytes[3] = (size_t)m2 * sizeof(unsigned long long);
}

redscan_status rs_cuda_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n, void *index,
                              void *value)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    rs_cuda *c = rs_cuda_of(ctx);
    const size_t vsize = redscan_dtype_size(dtype);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, vsize, want_max ? "argmax: argument 'in'" : "argmin: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, index, 8, "argext: argument 'index'"));
    if (value) RS_CUDA_TRY(rs_cuda_check_aligned(ctx, value, vsize, "argext: argument 'value'"));
    /* Pass 1: the one-pass small top-k with k = 1 (one pair per block); then argext passes over the pairs. The pass
     * that leaves one pair writes it straight to the caller's buffers (the value to scratch when none is wanted). */
    const unsigned grid = rs_small_grid(c, dtype, want_max, 1, n);
    size_t bytes[4];
    rs_cuda_argext_sizes(c, dtype, want_max, n, bytes);
    void *part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 4, bytes, part));

    const uint64_t m1 = grid;
    st = rs_cuda_launched(ctx,
                          rs_cu_topk_small((int)dtype, want_max, in, n, 1, m1 == 1 && value ? value : part[0],
                                           (unsigned long long *)(m1 == 1 ? index : part[1]), grid, c->stream),
                          "argext (one pass)");
    int cur = 0; /* part[2*cur], part[2*cur+1] hold the latest pairs */
    for (uint64_t m = m1; st == REDSCAN_OK && m > 1; m = rs_div_up(m, RS_CU_ARGEXT_TILE)) {
        const uint64_t outs = rs_div_up(m, RS_CU_ARGEXT_TILE);
        st = rs_cuda_launched(ctx,
                              rs_cu_argext((int)dtype, want_max, part[2 * cur], (const unsigned long long *)part[2 * cur + 1],
                                           m, n, outs == 1 && value ? value : part[2 - 2 * cur],
                                           (unsigned long long *)(outs == 1 ? index : part[3 - 2 * cur]),
                                           rs_cuda_grid_for(c, outs), c->stream),
                              "argext (pairs)");
        cur = 1 - cur;
    }
    return st;
}

/* ---------------------------------------------------------------- top-k */

/* Top-k's first pass: k <= RS_CU_TOPK_SMALL_MAX: one pass, grid * k candidates; else the best k of every tile of
 * RS_CU_TOPK_TILE. */
static uint64_t rs_cuda_topk_first(rs_cuda *c, redscan_dtype dtype, int largest, uint64_t n, size_t k,
                                   unsigned *grid)
{
    const int small = k <= RS_CU_TOPK_SMALL_MAX;
    *grid = small ? rs_small_grid(c, dtype, largest, (unsigned)k, n) : rs_cuda_grid_for(c, rs_div_up(n, RS_CU_TOPK_TILE));
    return small ? (uint64_t)*grid * k : rs_div_up(n, RS_CU_TOPK_TILE) * k;
}

/* Scratch of top-k: the candidates of pass 1 (values A, indices A) and of pass 2 (B). */
static void rs_cuda_topk_sizes(rs_cuda *c, redscan_dtype dtype, int largest, uint64_t n, size_t k, size_t bytes[4])
{
    const size_t vsize = redscan_dtype_size(dtype);
    unsigned grid;
    const uint64_t m1 = rs_cuda_topk_first(c, dtype, largest, n, k, &grid), m2 = rs_div_up(m1, RS_CU_TOPK_TILE) * k;
    bytes[0] = (size_t)m1 * vsize;
    bytes[1] = (size_t)m1 * sizeof(unsigned long long);
    bytes[2] = (size_t)m2 * vsize;
    bytes[3] = (size_t)m2 * sizeof(unsigned long long);
}

redscan_status rs_cuda_topk(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k, int largest,
                            void *values, void *indices)
{
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    rs_cuda *c = rs_cuda_of(ctx);
    const size_t vsize = redscan_dtype_size(dtype);
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, vsize, "topk: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, values, vsize, "topk: argument 'values'"));
    if (indices) RS_CUDA_TRY(rs_cuda_check_aligned(ctx, indices, 8, "topk: argument 'indices'"));
    if (k < 1 || k > RS_CU_TOPK_MAX)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "topk: k = %zu is outside 1..%d", k, RS_CU_TOPK_MAX);
    /* Later passes: the best k of every tile of the candidates, until k are left; that pass writes the caller's
     * buffers (the indices to scratch when none are wanted). */
    const int small = k <= RS_CU_TOPK_SMALL_MAX;
    unsigned grid1;
    const uint64_t m1 = rs_cuda_topk_first(c, dtype, largest, n, k, &grid1);
    size_t bytes[4];
    rs_cuda_topk_sizes(c, dtype, largest, n, k, bytes);
    void *part[4] = {NULL, NULL, NULL, NULL}; /* values A, indices A, values B, indices B */
    RS_CUDA_TRY(rs_cuda_scratch_split(ctx, 4, bytes, part));

    const int last1 = m1 <= k;
    void *v1 = last1 ? values : part[0];
    unsigned long long *i1 = (unsigned long long *)(last1 && indices ? indices : part[1]);
    if (small)
        st = rs_cuda_launched(ctx, rs_cu_topk_small((int)dtype, largest, in, n, (unsigned)k, v1, i1, grid1, c->stream),
                              "topk (one pass)");
    else
        st = rs_cuda_launched(ctx, rs_cu_topk((int)dtype, largest, in, NULL, n, n, (unsigned)k, v1, i1, grid1, c->stream),
                              "topk");
    int cur = 0;
    for (uint64_t m = m1; st == REDSCAN_OK && m > k;) {
        const uint64_t tiles = rs_div_up(m, RS_CU_TOPK_TILE);
        const int last = tiles == 1;
        st = rs_cuda_launched(ctx,
                              rs_cu_topk((int)dtype, largest, part[2 * cur],
                                         (const unsigned long long *)part[2 * cur + 1], m, n, (unsigned)k,
                                         last ? values : part[2 - 2 * cur],
                                         (unsigned long long *)(last && indices ? indices : part[3 - 2 * cur]),
                                         rs_cuda_grid_for(c, tiles), c->stream),
                              "topk (pairs)");
        m = tiles * k;
        cur = 1 - cur;
    }
    return st;
}

/* ---------------------------------------------------------------- workspace */

static size_t rs_cuda_max(size_t a, size_t b) { return a > b ? a : b; }

size_t rs_cuda_select_reserve(rs_cuda *c, redscan_dtype dtype, uint64_t n, size_t k_max)
{
    size_t bytes[4], need = 0;
    const redscan_dtype wide = rs_widening_of(dtype);
    for (size_t i = 0; i < sizeof rs_cuda_reduce_algos / sizeof rs_cuda_reduce_algos[0]; i++) {
        rs_cuda_reduce_sizes(&rs_cuda_reduce_algos[i], n, redscan_dtype_size(rs_compute_dtype(dtype)), bytes);
        need = rs_cuda_max(need, rs_cuda_split_total(2, bytes));
        if (wide) {
            rs_cuda_reduce_sizes(&rs_cuda_reduce_algos[i], n, redscan_dtype_size(wide), bytes);
            need = rs_cuda_max(need, rs_cuda_split_total(2, bytes));
        }
    }
    /* Both directions: the blocks per SM of the one-pass kernel are asked per instance (and kept: no query is left
     * for a later call). The candidates grow with k on each path: every small k is asked, and k_max above them. */
    for (int largest = 0; largest < 2; largest++) {
        rs_cuda_argext_sizes(c, dtype, largest, n, bytes);
        need = rs_cuda_max(need, rs_cuda_split_total(4, bytes));
        const size_t small_max = k_max < RS_CU_TOPK_SMALL_MAX ? k_max : RS_CU_TOPK_SMALL_MAX;
        for (size_t k = 1; k <= small_max; k++) {
            rs_cuda_topk_sizes(c, dtype, largest, n, k, bytes);
            need = rs_cuda_max(need, rs_cuda_split_total(4, bytes));
        }
        if (k_max > RS_CU_TOPK_SMALL_MAX) {
            rs_cuda_topk_sizes(c, dtype, largest, n, k_max, bytes);
            need = rs_cuda_max(need, rs_cuda_split_total(4, bytes));
        }
    }
    return need;
}
