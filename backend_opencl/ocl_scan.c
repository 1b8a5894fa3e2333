/* Scan launches of the OpenCL backend: a block algorithm (kernels_cl/scan_*.clh) inside a grid algorithm
 * (kernels_cl/scan_grid.cl). The order of combination is fixed by docs/ALGORITHMS.md ("Scans"):
 *   out[i] = P[j] (+) L[i],  P[j] = init (+) S[0] (+) ... (+) S[j-1]
 * where L is the block scan of section j and S the section totals. The number of groups launched never
 * changes a result (the kernels loop over sections), so neither do the device's compute units.
 *
 *   hierarchical:      scan_sections_in_B (L -> out, S -> level 0)   totals scan   scan_add_carry(out, P)
 *   reduce-then-scan:  tile_reduce_in_B (S -> level 0)               totals scan   scan_tile_seeded_in_B
 *   totals scan of level k (exclusive, in place, seeded with init, same block algorithm B, on T):
 *     fits one section: one scan_sections_t_B launch with the seed;
 *     else: scan_sections_t_B (S_k -> level k+1), totals scan of level k+1, scan_add_carry(S_k, P_{k+1}).
 * n <= SECTION: one scan_sections_in_B launch that applies init directly, for both grids.
 * single_pass: ocl_scan_single_pass.c (one launch for every n, sections as tiles).
 *
 * The AUTO grid (chain order): the same launches, but the totals scan is one launch of scan_totals_chain on level 0
 * (one work-group; no further levels), which gives the carries of single_pass's fixed expression (groups of 32
 * sections, a chain over the groups: docs/ALGORITHMS.md, "Grid level"). AUTO's bits are single_pass's on every
 * device and backend (CUDA runs single_pass itself for AUTO); the n <= SECTION case (init (+) L) already is.
 * Explicit grids keep their own order (the recursive block scan of the totals).
 *
 * The totals of each level live in their own scratch slot (rs_ocl_scratch_split: grow-only, reused across
 * calls), so the kernels take plain buffers, as their CUDA twins take pointers. */
#include <stdio.h>

#include "ocl_internal.h"

/* Every section holds >= 256 = 2^8 values, so 8 levels of totals cover any n < 2^64. */
#define RS_SCAN_MAX_LEVELS 8
#if RS_SCAN_MAX_LEVELS > RS_OCL_SPLIT_MAX
#error "the scan levels must fit one rs_ocl_scratch_split call"
#endif

typedef struct {
    redscan_block_scan block;
    const char *sfx;           /* kernel name suffix in scan_grid.cl */
    uint64_t section;          /* RS_SECTION_* of the block scan's header */
    rs_ocl_family grid;        /* the program of its hierarchical and reduce_then_scan kernels */
    rs_ocl_family single_pass; /* the program of its single-pass kernel */
} rs_scan_block_info;

static const rs_scan_block_info rs_scan_blocks[] = {
    {REDSCAN_BLOCK_KOGGE_STONE, "ks", 256, RS_OCL_PROG_SCAN_KS, RS_OCL_PROG_SINGLE_PASS_KS},
    {REDSCAN_BLOCK_KOGGE_STONE_DB, "ksdb", 256, RS_OCL_PROG_SCAN_KSDB, RS_OCL_PROG_SINGLE_PASS_KSDB},
    {REDSCAN_BLOCK_BRENT_KUNG, "bk", 512, RS_OCL_PROG_SCAN_BK, RS_OCL_PROG_SINGLE_PASS_BK},
    {REDSCAN_BLOCK_COARSENED, "coarse", 2048, RS_OCL_PROG_SCAN_COARSE, RS_OCL_PROG_SINGLE_PASS_COARSE},
};

typedef struct {
    redscan_ctx *ctx;
    rs_ocl *o;
    const rs_scan_req *req;
    const rs_scan_block_info *blk;
    size_t tsize;          /* bytes of one T (out_dtype) */
    cl_program program;
    cl_kernel k_t;         /* scan_sections_t_B, created on first use */
    cl_kernel k_add;       /* scan_add_carry, created on first use */
    int chain;             /* AUTO grid: carries by scan_totals_chain, one level of totals */
    int nlevels;
    uint64_t count[RS_SCAN_MAX_LEVELS];  /* totals held by level k */
    cl_mem level[RS_SCAN_MAX_LEVELS];    /* scratch slots, released when the call is done */
} rs_scan_run;

/* AUTO runs single_pass itself where the device has 64-bit atomics (GPUs only): the same bits as the chain-ordered
 * grids below, in one launch. Measured on the H100 through NVIDIA's OpenCL (2026-11-24, same build, sum, GB/s):
 *   2^20 int32: single_pass 281, reduce_then_scan 127 (and the chain-ordered AUTO pays scan_totals_chain on top);
 *   2^26 int32: single_pass 1527, reduce_then_scan 1600, chain-ordered reduce_then_scan (the AUTO before this) 1365;
 *   2^26 float32: 1320, 1502, 1299.
 * The one-work-group chain kernel cost about 58 us at 2^26 there, which made single_pass the faster AUTO. */
#define RS_OCL_AUTO_SINGLE_PASS 1

/* AUTO (measurements: docs/ALGORITHMS.md, "OpenCL scan kernels and AUTO" and "CPU shape"), float sum:
 *   the CPU shape (CPU devices, or REDSCAN_OPENCL_SHAPE=cpu; ocl_shape.c): coarsened x reduce_then_scan, whose
 *     CPU-shaped kernels (kernels_cl/scan_coarsened_cpu.cl) stream through the input with vector code and give
 *     the GPU-shaped kernels' bits; it is also what an explicit coarsened x reduce_then_scan runs there.
 *   CPU devices with REDSCAN_OPENCL_SHAPE=gpu: coarsened x hierarchical, the fastest GPU-shaped pair on PoCL 3.1
 *     (1.7 GB/s against 1.4 GB/s for coarsened x reduce_then_scan and <= 0.7 GB/s for the other blocks at 2^24):
 *     PoCL pays per barrier region, and coarsened has the fewest regions per element.
 *   Other devices (GPUs): coarsened x single_pass where the device has 64-bit atomics (RS_OCL_AUTO_SINGLE_PASS,
 *     above), else coarsened x reduce_then_scan: it moves 3n elements against hierarchical's 4n.
 * Whichever runs, an AUTO grid takes its carries in chain order (*chain = 1): the bits of single_pass. */
static void rs_scan_pick(rs_ocl *o, const rs_scan_req *req, redscan_block_scan *block, redscan_grid_scan *grid,
                         int *cpu_shape, int *chain)
{
    const int cpu_device = (o->device_type & CL_DEVICE_TYPE_CPU) != 0;
    *block = req->block == REDSCAN_BLOCK_AUTO ? REDSCAN_BLOCK_COARSENED : req->block;
    *cpu_shape = rs_ocl_cpu_shape(o) && *block == REDSCAN_BLOCK_COARSENED &&
                 (req->grid == REDSCAN_GRID_AUTO || req->grid == REDSCAN_GRID_REDUCE_THEN_SCAN);
    *chain = req->grid == REDSCAN_GRID_AUTO;
    if (req->grid != REDSCAN_GRID_AUTO)
        *grid = req->grid;
    else if (RS_OCL_AUTO_SINGLE_PASS && !cpu_device && rs_ocl_single_pass_available(o))
        *grid = REDSCAN_GRID_SINGLE_PASS, *cpu_shape = 0;
    else
        *grid = cpu_device && !*cpu_shape ? REDSCAN_GRID_HIERARCHICAL : REDSCAN_GRID_REDUCE_THEN_SCAN;
}

/* The size of T, the type the kernels combine in (a narrow output's is 4 bytes). */
static size_t rs_scan_dtype_size(redscan_dtype d) { return redscan_dtype_size(rs_compute_dtype(d)); }

static uint64_t rs_div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static redscan_status rs_scan_arg(rs_scan_run *r, cl_kernel k, cl_uint index, size_t size, const void *value)
{
    cl_int err = clSetKernelArg(k, index, size, value);
    if (err != CL_SUCCESS) {
        char what[64];
        snprintf(what, sizeof what, "clSetKernelArg(scan kernel, %u)", (unsigned)index);
        return rs_ocl_fail(r->ctx, err, what);
    }
    return REDSCAN_OK;
}

static redscan_status rs_scan_kernel(rs_scan_run *r, const char *stem, const char *sfx, cl_kernel *k)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", stem, sfx);
    return rs_ocl_kernel(r->ctx, r->program, name, k);
}

/* scan_sections_{in,t}_B(in, out, totals, n, exclusive, seed, seeded). seeded: the one-section case, where
 * totals is not written (out is passed in its place so that no argument is left unset). */
static redscan_status rs_scan_sections(rs_scan_run *r, cl_kernel k, cl_mem in, cl_mem out, cl_mem totals,
                                       uint64_t n, int exclusive, int seeded)
{
    const cl_ulong n_arg = n;
    const cl_int excl_arg = exclusive, seeded_arg = seeded;
    const cl_mem totals_arg = seeded ? out : totals;
    redscan_status st = rs_scan_arg(r, k, 0, sizeof(cl_mem), &in);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 1, sizeof(cl_mem), &out);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 2, sizeof(cl_mem), &totals_arg);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 3, sizeof n_arg, &n_arg);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 4, sizeof excl_arg, &excl_arg);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 5, r->tsize, r->req->init.bytes);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 6, sizeof seeded_arg, &seeded_arg);
    if (st == REDSCAN_OK)
        st = rs_ocl_launch(r->ctx, k, rs_ocl_groups_for(r->o, rs_div_up(n, r->blk->section)), "scan sections");
    return st;
}

/* data[i] = carry[i / SECTION] (+) data[i] for i < n. */
static redscan_status rs_scan_add_carry(rs_scan_run *r, cl_mem data, cl_mem carry, uint64_t n)
{
    const cl_ulong n_arg = n, section_arg = r->blk->section;
    redscan_status st = REDSCAN_OK;
    if (!r->k_add) st = rs_ocl_kernel(r->ctx, r->program, "scan_add_carry", &r->k_add);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, r->k_add, 0, sizeof(cl_mem), &data);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, r->k_add, 1, sizeof(cl_mem), &carry);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, r->k_add, 2, sizeof n_arg, &n_arg);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, r->k_add, 3, sizeof section_arg, &section_arg);
    if (st == REDSCAN_OK)
        st = rs_ocl_launch(r->ctx, r->k_add, rs_ocl_groups_for(r->o, rs_div_up(n, r->blk->section)),
                           "scan add carry");
    return st;
}

/* Level lvl of totals -> its exclusive scan seeded with init, in place (recursive). */
static redscan_status rs_scan_totals(rs_scan_run *r, int lvl)
{
    redscan_status st = REDSCAN_OK;
    cl_mem s = r->level[lvl];
    /* scan_sections_t_B reads T; without a widening it is scan_sections_in_B (ocl_internal.h) */
    const char *stem = rs_ocl_has_t_kernels(r->req->dtype, r->req->out_dtype) ? "scan_sections_t_" : "scan_sections_in_";
    if (!r->k_t) st = rs_scan_kernel(r, stem, r->blk->sfx, &r->k_t);
    if (st != REDSCAN_OK) return st;
    if (lvl + 1 == r->nlevels) return rs_scan_sections(r, r->k_t, s, s, s, r->count[lvl], 1, 1);
    st = rs_scan_sections(r, r->k_t, s, s, r->level[lvl + 1], r->count[lvl], 1, 0);
    if (st == REDSCAN_OK) st = rs_scan_totals(r, lvl + 1);
    if (st == REDSCAN_OK) st = rs_scan_add_carry(r, s, r->level[lvl + 1], r->count[lvl]);
    return st;
}

/* Level 0 (the section totals) -> the carries P, in place: chain order (AUTO) or the recursive totals scan. */
static redscan_status rs_scan_carries(rs_scan_run *r)
{
    if (!r->chain) return rs_scan_totals(r, 0);
    cl_kernel k = NULL;
    const cl_ulong count_arg = r->count[0];
    redscan_status st = rs_ocl_kernel(r->ctx, r->program, "scan_totals_chain", &k);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 0, sizeof(cl_mem), &r->level[0]);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 1, sizeof count_arg, &count_arg);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k, 2, r->tsize, r->req->init.bytes);
    if (st == REDSCAN_OK) st = rs_ocl_launch(r->ctx, k, 1, "scan totals chain");
    if (k) clReleaseKernel(k);
    return st;
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

/* Counts of every level, and one scratch slot per level (rs_ocl_scratch_split); chain order needs level 0 only. */
static redscan_status rs_scan_levels(rs_scan_run *r, uint64_t n)
{
    size_t bytes[RS_SCAN_MAX_LEVELS];
    r->nlevels = rs_scan_level_sizes(n, r->blk->section, r->tsize, r->count, bytes);
    if (r->chain) r->nlevels = 1;
    redscan_status st = rs_ocl_scratch_split(r->ctx, (size_t)r->nlevels, bytes, r->level);
    if (st != REDSCAN_OK) r->nlevels = 0; /* nothing to release */
    return st;
}

/* The CPU shape of coarsened x reduce_then_scan (kernels_cl/scan_coarsened_cpu.cl): tile_reduce_cpu_in_coarse
 * (S -> level 0), the carries as above (GPU-shaped: ~1/2048 of the data; chain order for AUTO),
 * scan_tile_seeded_cpu_in_coarse.
 * n <= SECTION: one scan_tile_seeded_cpu_in_coarse launch with init as the seed. Work-groups of one work-item,
 * each over a contiguous run of sections. */
static redscan_status rs_scan_cpu(rs_scan_run *r, cl_mem in, cl_mem out, uint64_t n)
{
    cl_ulong per = 0;
    const size_t items = rs_ocl_cpu_items(r->o, rs_div_up(n, r->blk->section), &per);
    const cl_ulong n_arg = n, zero = 0; /* zero: the element offsets (the scan parts' kernels, scan_coarsened_cpu.cl) */
    const cl_int excl_arg = r->req->exclusive, use_seed = n <= r->blk->section;
    cl_kernel k_red = NULL, k_scan = NULL;
    redscan_status st = rs_scan_kernel(r, "scan_tile_seeded_cpu_in_", r->blk->sfx, &k_scan);
    cl_mem carry = out; /* use_seed: an unused argument still needs a buffer */
    if (st == REDSCAN_OK && !use_seed) {
        st = rs_scan_levels(r, n);
        if (st == REDSCAN_OK) st = rs_scan_kernel(r, "tile_reduce_cpu_in_", r->blk->sfx, &k_red);
        if (st == REDSCAN_OK) st = rs_scan_arg(r, k_red, 0, sizeof(cl_mem), &in);
        if (st == REDSCAN_OK) st = rs_scan_arg(r, k_red, 1, sizeof(cl_mem), &r->level[0]);
        if (st == REDSCAN_OK) st = rs_scan_arg(r, k_red, 2, sizeof n_arg, &n_arg);
        if (st == REDSCAN_OK) st = rs_scan_arg(r, k_red, 3, sizeof per, &per);
        if (st == REDSCAN_OK) st = rs_scan_arg(r, k_red, 4, sizeof zero, &zero); /* in_off */
        if (st == REDSCAN_OK) st = rs_ocl_launch_items(r->ctx, k_red, items, "scan tile reduce (cpu shape)");
        if (st == REDSCAN_OK) st = rs_scan_carries(r);
        carry = r->level[0];
    }
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 0, sizeof(cl_mem), &in);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 1, sizeof(cl_mem), &out);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 2, sizeof(cl_mem), &carry);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 3, sizeof n_arg, &n_arg);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 4, sizeof excl_arg, &excl_arg);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 5, r->tsize, r->req->init.bytes);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 6, sizeof use_seed, &use_seed);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 7, sizeof per, &per);
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 8, sizeof zero, &zero); /* in_off */
    if (st == REDSCAN_OK) st = rs_scan_arg(r, k_scan, 9, sizeof zero, &zero); /* out_off */
    if (st == REDSCAN_OK) st = rs_ocl_launch_items(r->ctx, k_scan, items, "scan tile seeded (cpu shape)");
    if (k_red) clReleaseKernel(k_red);
    if (k_scan) clReleaseKernel(k_scan);
    return st;
}

redscan_status rs_ocl_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, void *out, size_t n)
{
    rs_ocl *o = rs_ocl_of(ctx);
    redscan_block_scan block;
    redscan_grid_scan grid;
    int cpu_shape, chain;
    rs_scan_pick(o, req, &block, &grid, &cpu_shape, &chain);

    rs_scan_run r = {0};
    r.ctx = ctx;
    r.o = o;
    r.req = req;
    r.chain = chain;
    r.tsize = rs_scan_dtype_size(req->out_dtype);
    for (size_t i = 0; i < sizeof rs_scan_blocks / sizeof rs_scan_blocks[0]; ++i)
        if (rs_scan_blocks[i].block == block) r.blk = &rs_scan_blocks[i];
    if (!r.blk)
        return rs_set_error(ctx, REDSCAN_ERR_INVALID_ARGUMENT, "scan: unknown block algorithm %d", (int)block);
    if (grid == REDSCAN_GRID_SINGLE_PASS) /* ocl_scan_single_pass.c */
        return rs_ocl_scan_single_pass(ctx, req, r.blk->single_pass, r.blk->sfx, r.blk->section, in, out, n);

    const rs_ocl_family family = cpu_shape ? RS_OCL_PROG_SCAN_COARSE_CPU : r.blk->grid;
    redscan_status st = rs_ocl_program_get(ctx, family, req->dtype, req->out_dtype, req->op, &r.program);
    if (st != REDSCAN_OK) return st;

    cl_mem in_mem = (cl_mem)in, out_mem = (cl_mem)out;
    cl_kernel k_in = NULL, k_last = NULL;
    if (cpu_shape) {
        st = rs_scan_cpu(&r, in_mem, out_mem, n);
    } else if (n <= r.blk->section) {
        st = rs_scan_kernel(&r, "scan_sections_in_", r.blk->sfx, &k_in);
        if (st == REDSCAN_OK) st = rs_scan_sections(&r, k_in, in_mem, out_mem, out_mem, n, req->exclusive, 1);
    } else if (grid == REDSCAN_GRID_HIERARCHICAL && !rs_dtype_is_narrow(req->out_dtype)) {
        /* A narrow output takes the reduce-then-scan kernels below instead: hierarchical's last pass would read
         * the rounded output back, and the two grids give the same bits for the same block (docs/ALGORITHMS.md). */
        st = rs_scan_levels(&r, n);
        if (st == REDSCAN_OK) st = rs_scan_kernel(&r, "scan_sections_in_", r.blk->sfx, &k_in);
        if (st == REDSCAN_OK)
            st = rs_scan_sections(&r, k_in, in_mem, out_mem, r.level[0], n, req->exclusive, 0);
        if (st == REDSCAN_OK) st = rs_scan_carries(&r);
        if (st == REDSCAN_OK) st = rs_scan_add_carry(&r, out_mem, r.level[0], n);
    } else { /* REDSCAN_GRID_REDUCE_THEN_SCAN */
        const cl_ulong n_arg = n, zero = 0; /* zero: the element offsets (the scan parts' kernels, scan_grid.cl) */
        const cl_int excl_arg = req->exclusive;
        const size_t groups = rs_ocl_groups_for(o, rs_div_up(n, r.blk->section));
        st = rs_scan_levels(&r, n);
        if (st == REDSCAN_OK) st = rs_scan_kernel(&r, "tile_reduce_in_", r.blk->sfx, &k_in);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_in, 0, sizeof(cl_mem), &in_mem);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_in, 1, sizeof(cl_mem), &r.level[0]);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_in, 2, sizeof n_arg, &n_arg);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_in, 3, sizeof zero, &zero);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_in, groups, "scan tile reduce");
        if (st == REDSCAN_OK) st = rs_scan_carries(&r);
        if (st == REDSCAN_OK) st = rs_scan_kernel(&r, "scan_tile_seeded_in_", r.blk->sfx, &k_last);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_last, 0, sizeof(cl_mem), &in_mem);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_last, 1, sizeof(cl_mem), &out_mem);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_last, 2, sizeof(cl_mem), &r.level[0]);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_last, 3, sizeof n_arg, &n_arg);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_last, 4, sizeof excl_arg, &excl_arg);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_last, 5, sizeof zero, &zero);
        if (st == REDSCAN_OK) st = rs_scan_arg(&r, k_last, 6, sizeof zero, &zero);
        if (st == REDSCAN_OK) st = rs_ocl_launch(ctx, k_last, groups, "scan tile seeded");
    }

    /* Releasing a kernel or a buffer with launches still queued is fine: OpenCL keeps them alive until those
     * commands complete (and the slots stay referenced by the context anyway). */
    if (k_in) clReleaseKernel(k_in);
    if (k_last) clReleaseKernel(k_last);
    if (r.k_t) clReleaseKernel(r.k_t);
    if (r.k_add) clReleaseKernel(r.k_add);
    for (int k = 0; k < r.nlevels; ++k)
        if (r.level[k]) clReleaseMemObject(r.level[k]);
    return st;
}

void rs_ocl_scan_reserve(redscan_dtype out_dtype, uint64_t n, size_t *need)
{
    const size_t tsize = rs_scan_dtype_size(out_dtype);
    for (size_t b = 0; b < sizeof rs_scan_blocks / sizeof rs_scan_blocks[0]; ++b) {
        uint64_t count[RS_SCAN_MAX_LEVELS];
        size_t bytes[RS_SCAN_MAX_LEVELS];
        const int levels = rs_scan_level_sizes(n, rs_scan_blocks[b].section, tsize, count, bytes);
        for (int i = 0; i < levels; i++)
            if (bytes[i] > need[i]) need[i] = bytes[i];
        const size_t flags = rs_ocl_single_pass_bytes(out_dtype, rs_scan_blocks[b].section, n);
        if (flags > need[0]) need[0] = flags;
    }
}
