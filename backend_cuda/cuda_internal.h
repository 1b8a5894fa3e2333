/* Internal interface of the CUDA backend, shared by its files (C11 over the CUDA runtime API):
 *   cuda_device.c   device choice (REDSCAN_CUDA_DEVICE), probe, stream, device queries, error mapping
 *   cuda_memory.c   buffers and transfers, wrapping caller memory, scratch buffers
 *   cuda_reduce.c   reductions, argmin/argmax, top-k launches
 *   cuda_scan.c     scan launches (block x grid algorithms)
 *   cuda_scan_single_pass.c  the single_pass grid scan
 *   cuda_timing.c   device time of an operation (redscan_set_profiling): CUDA events on the stream
 *   cuda_backend.c  the rs_backend_ops table
 * Kernels and their extern "C" launchers: kernels_cu/<stem>.cu, declared in cu_launch.h. The CUDA runtime is linked
 * statically, so the library loads on machines without the driver; probe/init then report why. */
#ifndef REDSCAN_CUDA_INTERNAL_H
#define REDSCAN_CUDA_INTERNAL_H

#include <cuda_runtime_api.h>

#include "backend.h"
#include "cu_launch.h"
#include "cuda_fault.h" /* fault builds: CUDA calls and launchers go through counting wrappers */

/* Fixed by docs/ALGORITHMS.md; identical in kernels_cl. */
#define RS_GROUP 256
/* Largest static shared memory of any kernel: the single-pass scan's two coarsened float64 sections (2 x 2048
 * values), its 256-value aux and tree arrays and the look-back window: 37288 bytes by ptxas (top-k needs 16 KiB).
 * Checked against the device at init. */
#define RS_CUDA_SHARED_NEEDED ((2 * 2048 + 2 * 256 + 64) * 8)

typedef struct {
    int device;               /* ordinal */
    cudaStream_t stream;      /* every launch and transfer of the context; ours is non-blocking */
    int own_stream;           /* 0: the caller's stream (redscan_create_on_cuda_stream), never destroyed here */
    int sm_count;             /* used only to size grids, never to change results */
    int cc_major, cc_minor;   /* compute capability */
    int max_threads;          /* cudaDevAttrMaxThreadsPerBlock */
    int shared_per_block;     /* cudaDevAttrMaxSharedMemoryPerBlock */
    void *scratch;            /* grow-only scratch, freed at shutdown */
    unsigned *ticket;         /* rs_cuda_ticket: one zeroed word, made on first use, freed at shutdown */
    size_t scratch_bytes;
    void *result_host;        /* cuda_result.c: the mapped result area (host side), NULL until first used */
    void *result_dev;         /* the same memory as the device addresses it */
    /* Blocks of topk_small per SM by [dtype - 1][largest][k = 1, 2, else], asked once (0: not asked yet). */
    unsigned char small_fit[12][2][3]; /* dtypes INT32 .. BFLOAT16 */
    /* cuda_timing.c: events that exist only while profiling is on; timing = an operation is being timed, so
     * rs_cuda_sync records time_stop before it waits (the last such record of the operation is its end). */
    cudaEvent_t time_start, time_stop;
    int timing, time_stopped;
    /* cuda_segmented.c: the segment fault words (RS_SEG_FLAG_WORDS, made on first use); seg_pending = a segmented
     * call was enqueued since synchronize last read them. */
    unsigned *seg_flags;
    int seg_pending;
} rs_cuda;

static inline rs_cuda *rs_cuda_of(redscan_ctx *ctx) { return (rs_cuda *)ctx->impl; }

#define RS_CUDA_TRY(expr)                                          \
    do {                                                           \
        redscan_status rs_cuda_try_status_ = (expr);               \
        if (rs_cuda_try_status_ != REDSCAN_OK) return rs_cuda_try_status_; \
    } while (0)

/* cuda_device.c */
/* The status a CUDA error maps to (allocation -> OUT_OF_MEMORY, no driver/device -> BACKEND_UNAVAILABLE,
 * no kernel image for the device -> UNSUPPORTED, PTX JIT failures -> KERNEL_BUILD, else DEVICE). */
redscan_status rs_cuda_status(cudaError_t err);
/* Record "what: cudaErrorName: description" with the mapped status, clear the runtime's last error, return
 * the status. */
redscan_status rs_cuda_fail(redscan_ctx *ctx, cudaError_t err, const char *what);
redscan_status rs_cuda_probe(const char **reason);
redscan_status rs_cuda_open(redscan_ctx *ctx, rs_cuda *c); /* honours REDSCAN_CUDA_DEVICE */
/* The caller's stream on device `device` (redscan_create_on_cuda_stream): the device is checked and set up as by
 * rs_cuda_open, the stream is used as it is and never destroyed, and the calling thread's current device is left as
 * it was. */
redscan_status rs_cuda_attach(redscan_ctx *ctx, rs_cuda *c, int device, cudaStream_t stream);
/* redscan_synchronize, and the quiet wait of a failed blocking call (records nothing). */
redscan_status rs_cuda_synchronize(redscan_ctx *ctx, int quiet);
void rs_cuda_close(rs_cuda *c);
/* Make the context's device current for the calling thread (the runtime's current device is per thread) and
 * clear a stale non-sticky error of an earlier call. Every entry point starts with it. */
redscan_status rs_cuda_use(redscan_ctx *ctx);
/* Wait for the context's stream; a kernel fault surfaces here. */
redscan_status rs_cuda_sync(redscan_ctx *ctx, const char *what);
/* Blocks to launch for `tiles` tiles: at most tiles, capped to a few blocks per SM. Never affects results. */
unsigned rs_cuda_grid_for(const rs_cuda *c, uint64_t tiles);
/* A device pointer handed to a kernel must be aligned to its element size (wrapped memory may not be). */
redscan_status rs_cuda_check_aligned(redscan_ctx *ctx, const void *p, size_t elem, const char *what);

/* cuda_memory.c: the buffer functions of the rs_backend_ops table (handle = device pointer). */
redscan_status rs_cuda_buffer_create(redscan_ctx *ctx, size_t bytes, void **handle);
void rs_cuda_buffer_destroy(redscan_ctx *ctx, void *handle);
redscan_status rs_cuda_buffer_write(redscan_ctx *ctx, void *handle, size_t offset, const void *src, size_t bytes);
redscan_status rs_cuda_buffer_read(redscan_ctx *ctx, void *handle, size_t offset, void *dst, size_t bytes);
redscan_status rs_cuda_buffer_wrap(redscan_ctx *ctx, void *native, size_t bytes, void **handle);
void rs_cuda_buffer_unwrap(redscan_ctx *ctx, void *handle);
/* Device-to-host copy on the context's stream, then a sync (the result of a chain of launches). */
redscan_status rs_cuda_read_back(redscan_ctx *ctx, const void *src, void *dst, size_t bytes, const char *what);
/* Scratch of at least `bytes`, reused across calls (grow-only). */
redscan_status rs_cuda_scratch(redscan_ctx *ctx, size_t bytes, void **mem);
/* The scratch cut into `count` (<= RS_CUDA_SPLIT_MAX) non-overlapping, 256-byte aligned parts of bytes[i]. */
#define RS_CUDA_SPLIT_MAX 8
redscan_status rs_cuda_scratch_split(redscan_ctx *ctx, size_t count, const size_t *bytes, void **parts);
void rs_cuda_scratch_release(rs_cuda *c); /* and the ticket word */
/* The context's ticket word (zeroed): the reduce-then-scan kernel's blocks count themselves on it to find the last
 * one, which sets it back to zero. Allocated on first use (by reserve, or the first scan that needs it). */
redscan_status rs_cuda_ticket(redscan_ctx *ctx, unsigned **word);

/* cuda_result.c: the result area (pinned, mapped host memory) that the last pass of a reduction, argmin/argmax or
 * top-k writes to directly. slots: its device addresses for up to RS_CU_TOPK_MAX values and as many 8-byte indices
 * (indices may be NULL); take: wait for the stream, then copy out what the last pass wrote. */
redscan_status rs_cuda_result_slots(redscan_ctx *ctx, void **values, void **indices);
redscan_status rs_cuda_result_take(redscan_ctx *ctx, void *values, size_t value_bytes, void *indices,
                                   size_t index_bytes, const char *what);
void rs_cuda_result_release(rs_cuda *c);

/* Entry points placed in the rs_backend_ops table (signatures as in api/src/backend.h). They queue their work on
 * the context's stream and return; nothing waits but rs_cuda_synchronize and rs_cuda_result_take. */
redscan_status rs_cuda_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n, void *out,
                              size_t out_offset);
redscan_status rs_cuda_store_empty(redscan_ctx *ctx, redscan_op op, redscan_dtype out_dtype, void *out,
                                   size_t out_offset); /* cuda_result.c */
redscan_status rs_cuda_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n, void *index,
                              void *value);
redscan_status rs_cuda_topk(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k, int largest,
                            void *values, void *indices);
redscan_status rs_cuda_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, void *out, size_t n);
/* cuda_scan_parts.c (docs/ALGORITHMS.md, "Scan parts") */
redscan_status rs_cuda_scan_section_totals(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                           size_t n, void *totals);
redscan_status rs_cuda_scan_with_carries(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                         void *out, size_t out_off, size_t n, void *carries);
/* cuda_segmented.c (docs/ALGORITHMS.md, "Segments") */
redscan_status rs_cuda_segmented_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t in_n,
                                        redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out);
redscan_status rs_cuda_segmented_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t in_n,
                                        redscan_dtype offsets_dtype, void *offsets, size_t num_segments,
                                        void *indices, void *values);
redscan_status rs_cuda_segmented_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_n,
                                      redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out);
redscan_status rs_cuda_scan_by_key(redscan_ctx *ctx, const rs_scan_req *req, redscan_dtype key_dtype, void *keys,
                                   void *in, void *out, size_t n, int wait_ok, int path);
redscan_status rs_cuda_reduce_by_key(redscan_ctx *ctx, const rs_reduce_req *req, redscan_dtype key_dtype, void *keys,
                                     void *in, size_t n, void *unique_keys, void *aggregates, void *runs,
                                     uint64_t *runs_host);
/* After a successful wait: report (once) faulty offsets that segmented calls found since the last report. */
redscan_status rs_cuda_seg_report(redscan_ctx *ctx);
/* Workspace (rs_cuda_reserve, cuda_memory.c): the scratch bytes the largest reduction, argmin/argmax or top-k up to
 * k_max on n elements of dtype takes (cuda_reduce.c; asks the one-pass kernels' blocks per SM, which are then kept),
 * and the largest scan writing out_dtype (cuda_scan.c). rs_cuda_split_total: the bytes rs_cuda_scratch_split takes
 * for those parts ((size_t)-1 on overflow). */
size_t rs_cuda_select_reserve(rs_cuda *c, redscan_dtype dtype, uint64_t n, size_t k_max);
size_t rs_cuda_scan_reserve(redscan_dtype out_dtype, uint64_t n);
/* ... and the segmented scan and scan by key writing out_dtype (cuda_segmented.c) */
size_t rs_cuda_seg_scan_reserve(redscan_dtype out_dtype, uint64_t n);
/* The scratch bytes of the segmented reduction and reduce by key over n elements, results of out_dtype. */
size_t rs_cuda_seg_reduce_reserve(redscan_dtype out_dtype, uint64_t n);
/* The segmented calls' fault words, made if not made yet (cuda_segmented.c; reserve makes them too). */
redscan_status rs_cuda_seg_words(redscan_ctx *ctx);
size_t rs_cuda_split_total(size_t count, const size_t *bytes);
redscan_status rs_cuda_reserve(redscan_ctx *ctx, redscan_dtype dtype, size_t n, size_t k_max);
/* cuda_result.c: the area itself, allocated on first use (also by reserve, so an n = 0 _async reduction allocates
 * nothing). */
redscan_status rs_cuda_result_area(redscan_ctx *ctx);
/* cuda_timing.c: the profiling entries of the rs_backend_ops table, and the stop mark rs_cuda_sync sets. */
redscan_status rs_cuda_profiling(redscan_ctx *ctx, int on);
redscan_status rs_cuda_time_begin(redscan_ctx *ctx);
redscan_status rs_cuda_time_end(redscan_ctx *ctx, int ok, double *seconds);
redscan_status rs_cuda_time_stop(redscan_ctx *ctx);
void rs_cuda_timing_release(rs_cuda *c); /* shutdown */

/* cuda_scan_single_pass.c: the single_pass grid (block: redscan_block_scan code, section: its SECTION); queues
 * the work on the context's stream (the caller synchronises); called by rs_cuda_scan. */
redscan_status rs_cuda_scan_single_pass(redscan_ctx *ctx, const rs_scan_req *req, int block, uint64_t section,
                                        const void *in, void *out, uint64_t n);

#endif /* REDSCAN_CUDA_INTERNAL_H */
