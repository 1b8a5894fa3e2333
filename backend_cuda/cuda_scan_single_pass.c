/* The single-pass grid scan on CUDA (kernels_cu/scan_single_pass.cu; order of combination in
 * docs/ALGORITHMS.md, "Grid level", single_pass). Host twin of backend_opencl/ocl_scan_single_pass.c: one
 * zero-fill of the ticket counter and the slots (part of the grow-only scratch), then one launch. The number
 * of blocks launched never changes a result: blocks take tiles from the ticket counter until none are left.
 *
 * Testing knob: REDSCAN_SINGLE_PASS_SPINS=<polls> (default 4096, parsed by rs_single_pass_spins in api/src/scan.c),
 * read at every call: how many times a group polls a slot before it computes the value from the input itself; 0
 * forces that fallback path everywhere (slow: tile j then reduces up to j tiles).
 * Testing knob: REDSCAN_SINGLE_PASS_TILES=1|2 (rs_single_pass_per, api/src/scan.c): tiles a block takes per ticket;
 * unset, 2 once there are at least twice as many tiles as blocks. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_internal.h"


redscan_status rs_cuda_scan_single_pass(redscan_ctx *ctx, const rs_scan_req *req, int block, uint64_t section,
                                        const void *in, void *out, uint64_t n)
{
    rs_cuda *c = rs_cuda_of(ctx);
    unsigned spins;
    RS_CUDA_TRY(rs_single_pass_spins(ctx, &spins));
    const uint64_t tiles = n / section + (n % section != 0);
    unsigned per;
    RS_CUDA_TRY(rs_single_pass_per(ctx, tiles, rs_cuda_grid_for(c, tiles), &per));
    const size_t bytes = (size_t)rs_cu_scan_single_pass_words(section, n, (int)req->out_dtype) * 8;
    void *flags = NULL;
    RS_CUDA_TRY(rs_cuda_scratch(ctx, bytes, &flags));
    cudaError_t err = cudaMemsetAsync(flags, 0, bytes, c->stream);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaMemsetAsync (single_pass flags)");
    err = rs_cu_scan_single_pass(block, (int)req->dtype, (int)req->out_dtype, (int)req->op, in, out,
                                 (unsigned long long *)flags, n, req->exclusive, req->init.bytes, spins, in == out,
                                 per, rs_cuda_grid_for(c, tiles / per + (tiles % per != 0)), c->stream);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "launch of scan_single_pass");
    return REDSCAN_OK;
}
