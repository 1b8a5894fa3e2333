/* The scan parts on OpenCL (api/src/scan_parts.c; docs/ALGORITHMS.md, "Scan parts"): the two passes of the AUTO
 * scan's reduce_then_scan form with the coarsened block, over an element range of the caller's buffers.
 *
 *   scan_section_totals: tile_reduce_in_coarse (GPU shape, scan_grid.cl) or tile_reduce_cpu_in_coarse (CPU shape,
 *                        scan_coarsened_cpu.cl) -> totals
 *   scan_with_carries:   scan_tile_seeded_in_coarse / scan_tile_seeded_cpu_in_coarse with the caller's carries
 *
 * The kernels are the ones rs_ocl_scan launches for the AUTO grid, in the program it builds on this device kind (the
 * CPU shape's program on CPU devices, the coarsened grid program elsewhere), so a caller that also scans builds no
 * extra program on a CPU device. A cl_mem cannot be offset by pointer arithmetic (sub-buffers need aligned origins),
 * so the element offsets are kernel arguments (in_off, out_off). Both shapes give the same bits. */
#include "ocl_internal.h"

#define RS_PARTS_SECTION 2048 /* the coarsened block's SECTION: REDSCAN_SCAN_SECTION */

typedef struct {
    redscan_ctx *ctx;
    rs_ocl *o;
    int cpu;            /* the CPU shape (rs_ocl_cpu_shape) */
    cl_program program; /* cached by the context */
    cl_kernel k;
    cl_uint next;       /* next argument index */
    redscan_status st;
} rs_parts_launch;

static void rs_parts_begin(rs_parts_launch *l, redscan_ctx *ctx, const rs_scan_req *req, const char *gpu_name,
                           const char *cpu_name)
{
    l->ctx = ctx;
    l->o = rs_ocl_of(ctx);
    l->cpu = rs_ocl_cpu_shape(l->o);
    l->k = NULL;
    l->next = 0;
    l->st = rs_ocl_program_get(ctx, l->cpu ? RS_OCL_PROG_SCAN_COARSE_CPU : RS_OCL_PROG_SCAN_COARSE, req->dtype,
                               req->out_dtype, req->op, &l->program);
    if (l->st == REDSCAN_OK) l->st = rs_ocl_kernel(ctx, l->program, l->cpu ? cpu_name : gpu_name, &l->k);
}

/* The next kernel argument (nothing once a step failed). */
static void rs_parts_arg(rs_parts_launch *l, size_t size, const void *value)
{
    if (l->st != REDSCAN_OK) return;
    const cl_int err = clSetKernelArg(l->k, l->next++, size, value);
    if (err != CL_SUCCESS) l->st = rs_ocl_fail(l->ctx, err, "clSetKernelArg(scan parts kernel)");
}

/* Launch over the sections of n values (CPU shape: runs of *per sections; GPU shape: groups of RS_GROUP) and
 * release the kernel. */
static redscan_status rs_parts_end(rs_parts_launch *l, size_t items, const char *what)
{
    if (l->st == REDSCAN_OK)
        l->st = l->cpu ? rs_ocl_launch_items(l->ctx, l->k, items, what) : rs_ocl_launch(l->ctx, l->k, items, what);
    if (l->k) clReleaseKernel(l->k);
    return l->st;
}

/* Work-items (CPU shape, *per sections each) or groups (GPU shape) for n values. */
static size_t rs_parts_items(rs_parts_launch *l, size_t n, cl_ulong *per)
{
    const uint64_t sections = (uint64_t)n / RS_PARTS_SECTION + ((uint64_t)n % RS_PARTS_SECTION != 0);
    uint64_t p = 0;
    if (!l->cpu) return rs_ocl_groups_for(l->o, sections);
    const size_t items = rs_ocl_cpu_items(l->o, sections, &p);
    *per = p;
    return items;
}

redscan_status rs_ocl_scan_section_totals(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                          size_t n, void *totals)
{
    rs_parts_launch l;
    rs_parts_begin(&l, ctx, req, "tile_reduce_in_coarse", "tile_reduce_cpu_in_coarse");
    cl_ulong per = 0;
    const size_t items = rs_parts_items(&l, n, &per);
    const cl_mem in_mem = (cl_mem)in, totals_mem = (cl_mem)totals;
    const cl_ulong n_arg = n, in_off_arg = in_off;
    /* tile_reduce_in_coarse(in, totals, n, in_off); the CPU shape has `per` before in_off */
    rs_parts_arg(&l, sizeof in_mem, &in_mem);
    rs_parts_arg(&l, sizeof totals_mem, &totals_mem);
    rs_parts_arg(&l, sizeof n_arg, &n_arg);
    if (l.cpu) rs_parts_arg(&l, sizeof per, &per);
    rs_parts_arg(&l, sizeof in_off_arg, &in_off_arg);
    return rs_parts_end(&l, items, "scan section totals");
}

redscan_status rs_ocl_scan_with_carries(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off, void *out,
                                        size_t out_off, size_t n, void *carries)
{
    rs_parts_launch l;
    rs_parts_begin(&l, ctx, req, "scan_tile_seeded_in_coarse", "scan_tile_seeded_cpu_in_coarse");
    cl_ulong per = 0;
    const size_t items = rs_parts_items(&l, n, &per);
    const cl_mem in_mem = (cl_mem)in, out_mem = (cl_mem)out, carry_mem = (cl_mem)carries;
    const cl_ulong n_arg = n, in_off_arg = in_off, out_off_arg = out_off;
    const cl_int excl_arg = req->exclusive, use_seed = 0; /* CPU shape: every section takes its carry */
    /* scan_tile_seeded_in_coarse(in, out, carry, n, exclusive, in_off, out_off); the CPU shape has
     * (seed, use_seed, per) before the offsets */
    rs_parts_arg(&l, sizeof in_mem, &in_mem);
    rs_parts_arg(&l, sizeof out_mem, &out_mem);
    rs_parts_arg(&l, sizeof carry_mem, &carry_mem);
    rs_parts_arg(&l, sizeof n_arg, &n_arg);
    rs_parts_arg(&l, sizeof excl_arg, &excl_arg);
    if (l.cpu) {
        rs_parts_arg(&l, redscan_dtype_size(rs_compute_dtype(req->out_dtype)), req->init.bytes); /* unused seed */
        rs_parts_arg(&l, sizeof use_seed, &use_seed);
        rs_parts_arg(&l, sizeof per, &per);
    }
    rs_parts_arg(&l, sizeof in_off_arg, &in_off_arg);
    rs_parts_arg(&l, sizeof out_off_arg, &out_off_arg);
    return rs_parts_end(&l, items, "scan with carries");
}
