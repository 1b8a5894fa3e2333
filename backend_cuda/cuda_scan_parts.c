/* The scan parts on CUDA (api/src/scan_parts.c; docs/ALGORITHMS.md, "Scan parts"): the two passes of the AUTO scan's
 * reduce_then_scan form with the coarsened block (kernels_cu/scan_grid.cu), over an element range of the caller's
 * buffers. Host twin of backend_opencl/ocl_scan_parts.c.
 *
 *   scan_section_totals: tile_reduce (done = NULL: plain totals, the one-section totals scan stays off)
 *   scan_with_carries:   scan_tile_seeded with the caller's carries
 *
 * Device pointers: an element offset is pointer arithmetic. The kernels' narrow vector path checks each section's
 * own address (kernels_cu/scan_io.cuh), so odd offsets are fine. The AUTO scan itself runs single_pass on CUDA; these
 * kernels compute the same expression (docs/ALGORITHMS.md, "Grid level"). */
#include <stdio.h>

#include "cuda_internal.h"

#define RS_PARTS_BLOCK REDSCAN_BLOCK_COARSENED

static uint64_t rs_parts_sections(size_t n)
{
    return (uint64_t)n / REDSCAN_SCAN_SECTION + ((uint64_t)n % REDSCAN_SCAN_SECTION != 0);
}

static redscan_status rs_parts_launched(redscan_ctx *ctx, cudaError_t err, const char *what)
{
    return err == cudaSuccess ? REDSCAN_OK : rs_cuda_fail(ctx, err, what);
}

redscan_status rs_cuda_scan_section_totals(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                           size_t n, void *totals)
{
    rs_cuda *c = rs_cuda_of(ctx);
    const char *src = (const char *)in + in_off * redscan_dtype_size(req->dtype);
    RS_CUDA_TRY(rs_cuda_use(ctx));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, src, redscan_dtype_size(req->dtype),
                                      "redscan_scan_section_totals: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, totals, redscan_dtype_size(rs_compute_dtype(req->out_dtype)),
                                      "redscan_scan_section_totals: argument 'totals'"));
    return rs_parts_launched(ctx,
                             rs_cu_scan_tile_reduce(RS_PARTS_BLOCK, (int)req->dtype, (int)req->out_dtype,
                                                    (int)req->op, src, totals, n, req->init.bytes, NULL,
                                                    rs_cuda_grid_for(c, rs_parts_sections(n)), c->stream),
                             "launch of scan_tile_reduce (scan section totals)");
}

redscan_status rs_cuda_scan_with_carries(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                         void *out, size_t out_off, size_t n, void *carries)
{
    rs_cuda *c = rs_cuda_of(ctx);
    const char *src = (const char *)in + in_off * redscan_dtype_size(req->dtype);
    char *dst = (char *)out + out_off * redscan_dtype_size(req->out_dtype);
    RS_CUDA_TRY(rs_cuda_use(ctx));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, src, redscan_dtype_size(req->dtype),
                                      "redscan_scan_with_carries: argument 'in'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, dst, redscan_dtype_size(req->out_dtype),
                                      "redscan_scan_with_carries: argument 'out'"));
    RS_CUDA_TRY(rs_cuda_check_aligned(ctx, carries, redscan_dtype_size(rs_compute_dtype(req->out_dtype)),
                                      "redscan_scan_with_carries: argument 'carries'"));
    return rs_parts_launched(ctx,
                             rs_cu_scan_tile_seeded(RS_PARTS_BLOCK, (int)req->dtype, (int)req->out_dtype,
                                                    (int)req->op, src, dst, carries, n, req->exclusive,
                                                    rs_cuda_grid_for(c, rs_parts_sections(n)), c->stream),
                             "launch of scan_tile_seeded (scan with carries)");
}
