/* libredscan_mpi: redscan's reductions, scans, argmin/argmax and top-k over an array split across the ranks of an
 * MPI communicator (docs/DISTRIBUTED.md).
 *
 * The global array is rank 0's n_local elements, then rank 1's, and so on; n_local may differ between ranks and may
 * be 0. Each rank brings its own context (any backend, any device) and its own device buffers. Every function is
 * collective over comm: every rank of comm calls it with the same op, dtype, descriptor, k, ... (this is checked:
 * ranks that disagree all get REDSCAN_ERR_INVALID_ARGUMENT). Every rank gets every result, in host memory.
 *
 * Bits: for a given algorithm the result is the same bits for any number of ranks and any split of the same global
 * array, and equal to the single-process result (redscan_reduce_ex / redscan_scan_ex / redscan_argmax /
 * redscan_topk) for that array: the order of combination is defined on global element indices, never on ranks.
 *
 * Errors: a refused argument or a device failure on one rank makes every rank return an error (the failing rank's
 * status; redscan_last_error(ctx) on the other ranks names the failing rank), and no rank waits forever for one
 * that quit. On error, host outputs are not written. */
#ifndef REDSCAN_MPI_H
#define REDSCAN_MPI_H

#include <mpi.h>

#include "redscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* desc->algo: AUTO or COARSENED (others: REDSCAN_ERR_UNSUPPORTED; REDSCAN_REDUCE_ALGO is not read). result: one
 * element of out_dtype (dtype when 0), host memory, written on every rank. The bits of redscan_reduce_ex with the
 * coarsened algorithm over the global array; n = 0 in total gives the reduction of nothing. */
REDSCAN_API redscan_status redscan_mpi_reduce(redscan_ctx *ctx, MPI_Comm comm, const redscan_reduce_desc *desc,
                                              const redscan_buffer *in, size_t n_local, void *result);
/* desc->block AUTO or COARSENED, desc->grid AUTO (others: REDSCAN_ERR_UNSUPPORTED; REDSCAN_SCAN_BLOCK / _GRID are not
 * read): out
 * (n_local elements of out_dtype on each rank; in == out allowed without a widening) receives this rank's part of
 * the scan of the global array, the bits of redscan_scan_ex with the AUTO block and grid. */
REDSCAN_API redscan_status redscan_mpi_scan(redscan_ctx *ctx, MPI_Comm comm, const redscan_scan_desc *desc,
                                            const redscan_buffer *in, redscan_buffer *out, size_t n_local);
/* global_index: the index in the global array; value (may be NULL): one element of dtype. An empty global array is
 * REDSCAN_ERR_INVALID_ARGUMENT. Ties and NaN as redscan_argmin / redscan_argmax. */
REDSCAN_API redscan_status redscan_mpi_argmin(redscan_ctx *ctx, MPI_Comm comm, redscan_dtype dtype,
                                              const redscan_buffer *in, size_t n_local, uint64_t *global_index,
                                              void *value);
REDSCAN_API redscan_status redscan_mpi_argmax(redscan_ctx *ctx, MPI_Comm comm, redscan_dtype dtype,
                                              const redscan_buffer *in, size_t n_local, uint64_t *global_index,
                                              void *value);
/* values: k elements of dtype, best first; global_indices (may be NULL): k uint64. 1 <= k <= min(N,
 * REDSCAN_TOPK_MAX) with N the global count. The order of redscan_topk. */
REDSCAN_API redscan_status redscan_mpi_topk(redscan_ctx *ctx, MPI_Comm comm, redscan_dtype dtype,
                                            const redscan_buffer *in, size_t n_local, size_t k, int largest,
                                            void *values, uint64_t *global_indices);

/* 1 when this MPI library accepts CUDA device pointers (MPIX_Query_cuda_support() where <mpi-ext.h> defines
 * MPIX_CUDA_AWARE_SUPPORT), else 0. With 1, a context on the CUDA backend sends and receives its boundary pieces
 * from device memory; otherwise (and always on OpenCL) they are staged through host memory. */
REDSCAN_API int redscan_mpi_cuda_aware(void);

#ifdef __cplusplus
}
#endif

#endif /* REDSCAN_MPI_H */
