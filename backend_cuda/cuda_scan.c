/* Scan launches of the CUDA backend: a block algorithm (kernels_cu/scan_*.cuh) inside a grid algorithm
 * (kernels_cu/scan_grid.cu). Host twin of backend_opencl/ocl_scan.c: the same launches in the same order.
 * The order of combination is fixed by docs/ALGORITHMS.md ("Scans"):
 *   out[i] = P[j] (+) L[i],  P[j] = init (+) S[0] (+) ... (+) S[j-1]
 * where L is the block scan of section j and S the section totals. The number of blocks launched never
 * changes a result (the kernels loop over sections), so neither does the device's SM count.
 *
 *   hierarchical:      scan_sections (in -> L in out, S -> level 0)   totals scan   scan_add_carry(out, P)
 *   reduce-then-scan:  tile_reduce (S -> level 0)                      totals scan   scan_tile_seeded
 *                      (totals that fit one section: tile_reduce's last block scans them; two launches. The
 *                      OpenCL twin launches the totals scan: OpenCL 1.2 orders nothing between work-groups)
 *   totals scan of level k (exclusive, in place, seeded with init, same block algorithm B, on T):
 *     fits one section: one scan_sections launch with the seed;
 *     else: scan_sections (S_k -> level k+1), totals scan of level k+1, scan_add_carry(S_k, P_{k+1}).
 * n <= SECTION: one scan_sections launch over the input that applies init directly, for both grids.
 * single_pass: cuda_scan_single_pass.c (one launch for every n, sections as tiles); also the AUTO grid (the OpenCL
 * twin runs AUTO as reduce_then_scan / hierarchical with carries in single_pass's order: the same bits).
 *
 * The totals of all levels live in one scratch allocation, each level 256-byte aligned. */
#include <stdio.h>

#include "cuda_internal.h"

/* Every section holds >= 256 = 2^8 values, so 8 levels of totals cover any n < 2^64. */
#define RS_SCAN_MAX_LEVELS 8

typedef struct {
    redscan_ctx *ctx;
    rs_cuda *c;
    const rs_scan_req *req;
    int block;        /* redscan_block_scan, resolved */
    uint64_t section; /* SECTION of the block scan */
    int tdt;          /* T's dtype: the type the kernels combine in (out_dtype, or for a narrow output its
                       * rs_compute_dtype) */
    size_t tsize;     /* bytes of one T */
    int nlevels;
    uint64_t count[RS_SCAN_MAX_LEVELS]; /* totals held by level k */
    void *level[RS_SCAN_MAX_LEVELS];    /* parts of the scratch */
} rs_cuda_scan_run;

/* AUTO on a GPU: coarsened sections are the most work-efficient and the largest (fewest totals). The AUTO grid is
 * single_pass: its bits are AUTO's on every backend and device (docs/ALGORITHMS.md, "Grid level"; the OpenCL backend
 * gets them from reduce_then_scan / hierarchical with chain-ordered carries, kernels_cl/scan_grid.cl
 * scan_totals_chain), and it is the fastest grid on the H100 (int32 sum, 2^28: 1.08 x CUB against reduce_then_scan's
 * 0.75 x): it reads the input once and writes it once. */
static void rs_cuda_scan_pick(const rs_scan_req *req, redscan_block_scan *block, redscan_grid_scan *grid)
{
    *block = req->block == REDSCAN_BLOCK_AUTO ? REDSCAN_BLOCK_COARSENED : req->block;
    *grid = req->grid == REDSCAN_GRID_AUTO ? REDSCAN_GRID_SINGLE_PASS : req->grid;
}

static uint64_t rs_div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static redscan_status rs_scan_launched(rs_cuda_scan_run *r, cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return REDSCAN_OK;
    char buf[128];
    snprintf(buf, sizeof buf, "launch of %s", what);
    return rs_cuda_fail(r->ctx, err, buf);
}

static unsigned rs_scan_grid(rs_cuda_scan_run *r, uint64_t n)
{
    return rs_cuda_grid_for(r->c, rs_div_up(n, r->section));
}

/* scan_sections(in, out, totals, n, exclusive, init, seeded); in_dtype / out_dtype: the element types of in and out
 * (the caller's on level 0, T on the levels of totals). */
static redscan_status rs_scan_sections(rs_cuda_scan_run *r, int in_dtype, int out_dtype, const void *in, void *out,
                                       void *totals, uint64_t n, int exclusive, int seeded)
{
    return rs_scan_launched(r,
                            rs_cu_scan_sections(r->block, in_dtype, out_dtype, (int)r->req->op, in, out,
                                                seeded ? NULL : totals, n, exclusive, r->req->init.bytes, seeded,
                                                rs_scan_grid(r, n), r->c->stream),
                            "scan_sections");
}

/* data[i] = carry[i / SECTION] (+) data[i] for i < n. */
static redscan_status rs_scan_add_carry(rs_cuda_scan_run *r, void *data, const void *carry, uint64_t n)
{
    return rs_scan_launched(r,
                            rs_cu_scan_add_carry(r->tdt, (int)r->req->op, data, carry, n, r->section,
                                                 rs_scan_grid(r, n), r->c->stream),
                            "scan_add_carry");
}

/* Level lvl of totals -> its exclusive scan seeded with init, in place (recursive). */
static redscan_status rs_scan_totals(rs_cuda_scan_run *r, int lvl)
{
    const int t = r->tdt;
    void *s = r->level[lvl];
    if (lvl + 1 == r->nlevels) return rs_scan_sections(r, t, t, s, s, NULL, r->count[lvl], 1, 1);
    RS_CUDA_TRY(rs_scan_sections(r, t, t, s, s, r->level[lvl + 1], r->count[lvl], 1, 0));
    RS_CUDA_TRY(rs_scan_totals(r, lvl + 1));
    return rs_scan_add_carry(r, s, r->level[lvl + 1], r->count[lvl]);
}

/* Totals held by every level for n elements in sections of `section`, and their bytes; returns the level count. */
static int rs_scan_level_sizes(uint64_t n, uint64_t section, size_t tsize, uint64_t *count, size_t *bytes)
{
    uint64_t m = rs_div_up(n, section);
    int levels = 0;
    while (levels < RS_SCAN_MAX_LEVELS) {
        bytes[levels] = (size_t)m * tsize;
        count[levels++] = m;
        if (m <= section) break;
        m = rs_div_up(m, section);
    }
    return levels;
}

/* Counts of every level, one scratch allocation cut into one part per level. */
static redscan_status rs_scan_levels(rs_cuda_scan_run *r, uint64_t n)
{
    size_t bytes[RS_SCAN_MAX_LEVELS];
    r->nlevels = rs_scan_level_sizes(n, r->section, r->tsize, r->count, bytes);
    return rs_cuda_scratch_split(r->ctx, (size_t)r->nlevels, bytes, r->level);
}

size_t rs_cuda_scan_reserve(redscan_dtype out_dtype, uint64_t n)
{
    size_t need = 0;
    for (int block = REDSCAN_BLOCK_KOGGE_STONE; block <= REDSCAN_BLOCK_COARSENED; block++) {
        const uint64_t section = rs_cu_scan_section(block);
        uint64_t count[RS_SCAN_MAX_LEVELS];
        size_t bytes[RS_SCAN_MAX_LEVELS];
        const int levels = rs_scan_level_sizes(n, section, redscan_dtype_size(rs_compute_dtype(out_dtype)), count,
                                               bytes);
        const size_t total = rs_cuda_split_total((size_t)levels, bytes);
        const size_t flags = (size_t)rs_cu_scan_single_pass_words(section, n, (int)out_dtype) * 8;
        if (total > need) need = total;
        if (flags > need) need = flags;
    }
    return need;
}

static redscan_status rs_cuda_scan_run_all(rs_cuda_scan_run *r, redscan_grid_scan grid, const void *in, void *out,
                                           uint64_t n)
{
    const rs_scan_req *req = r->req;
    if (grid == REDSCAN_GRID_SINGLE_PASS) /* cuda_scan_single_pass.c */
        return rs_cuda_scan_single_pass(r->ctx, req, r->block, r->section, in, out, n);
    const int in_dt = (int)req->dtype, out_dt = (int)req->out_dtype;
    if (n <= r->section) return rs_scan_sections(r, in_dt, out_dt, in, out, NULL, n, req->exclusive, 1);
    RS_CUDA_TRY(rs_scan_levels(r, n));
    /* A narrow output takes the reduce-then-scan kernels below instead: hierarchical's last pass would read the
     * rounded output back, and the two grids give the same bits for the same block (docs/ALGORITHMS.md). Twin of
     * backend_opencl/ocl_scan.c. */
    if (grid == REDSCAN_GRID_HIERARCHICAL && !rs_dtype_is_narrow(req->out_dtype)) {
        RS_CUDA_TRY(rs_scan_sections(r, in_dt, out_dt, in, out, r->level[0], n, req->exclusive, 0));
        RS_CUDA_TRY(rs_scan_totals(r, 0));
        return rs_scan_add_carry(r, out, r->level[0], n);
    }
    /* REDSCAN_GRID_REDUCE_THEN_SCAN. Totals that fit one section are scanned by tile_reduce's last block (the same
     * computation as the one-section totals scan: one launch fewer, which is most of a call's time at small n). */
    unsigned *done = NULL;
    if (r->nlevels == 1) RS_CUDA_TRY(rs_cuda_ticket(r->ctx, &done));
    RS_CUDA_TRY(rs_scan_launched(r,
                                 rs_cu_scan_tile_reduce(r->block, (int)req->dtype, (int)req->out_dtype, (int)req->op,
                                                        in, r->level[0], n, req->init.bytes, done, rs_scan_grid(r, n),
                                                        r->c->stream),
                                 "scan_tile_reduce"));
    if (!done) RS_CUDA_TRY(rs_scan_totals(r, 0));
    return rs_scan_launched(r,
                            rs_cu_scan_tile_seeded(r->block, (int)req->dtype, (int)req->out_dtype, (int)req->op, in,
                                                   out, r->level[0], n, req->exclusive, rs_scan_grid(r, n),
                                                   r->c->stream),
                            "scan_tile_seeded");
}

redscan_status rs_cuda_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, void *out, size_t n)
{
    redscan_block_scan block;
    redscan_grid_scan grid;
    rs_cuda_scan_pick(req, &block, &grid);
    rs_cuda_scan_run r = {0};
    r.ctx = ctx;
    r.c = rs_cuda_of(ctx);
    r.req = req;
    r.block = (int)block;
    r.section = rs_cu_scan_section(r.block);
    r.tdt = (int)rs_compute_dtype(req->out_dtype);
    r.tsize = redscan_dtype_size((redscan_dtype)r.tdt);
    if (r.section == 0)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "scan: unknown block algorithm %d", (int)block);

    RS_CUDA_TRY(rs_cuda_use(ctx));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, in, redscan_dtype_size(req->dtype), "scan: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, out, redscan_dtype_size(req->out_dtype), "scan: argument 'out'"));

    /* Queued on the context's stream; the blocking entry points wait (api/src/scan.c). */
    return rs_cuda_scan_run_all(&r, grid, in, out, n);
}
