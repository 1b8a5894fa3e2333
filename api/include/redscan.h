/* redscan: parallel reductions and prefix scans with one backend-neutral C API.
 *
 * Every entry point returns a redscan_status; redscan_last_error(ctx) gives the detail.
 * A context is used by one thread at a time; separate contexts may be used from separate threads.
 * Semantics (identities, NaN policy, order of combination) are documented in docs/SEMANTICS.md
 * and docs/ALGORITHMS.md. */
#ifndef REDSCAN_H
#define REDSCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported symbols; everything else in the shared library stays hidden. */
#if defined(__GNUC__)
#define REDSCAN_API __attribute__((visibility("default")))
#else
#define REDSCAN_API
#endif

#define REDSCAN_VERSION_MAJOR 0
#define REDSCAN_VERSION_MINOR 1
#define REDSCAN_VERSION_PATCH 0
#define REDSCAN_VERSION_STRING "0.1.0"

/* Largest k accepted by the top-k functions. */
#define REDSCAN_TOPK_MAX 256

typedef struct redscan_ctx redscan_ctx;
typedef struct redscan_buffer redscan_buffer;

typedef enum {
    REDSCAN_OK = 0,
    REDSCAN_ERR_INVALID_ARGUMENT,
    REDSCAN_ERR_UNSUPPORTED,
    REDSCAN_ERR_BACKEND_UNAVAILABLE,
    REDSCAN_ERR_OUT_OF_MEMORY,
    REDSCAN_ERR_KERNEL_BUILD,
    REDSCAN_ERR_DEVICE
} redscan_status;

typedef enum { REDSCAN_BACKEND_AUTO = 0, REDSCAN_BACKEND_CUDA, REDSCAN_BACKEND_OPENCL } redscan_backend;

/* 0 means "none / same as input" where a dtype is optional (out_dtype). */
typedef enum {
    REDSCAN_INT32 = 1,
    REDSCAN_UINT32,
    REDSCAN_INT64,
    REDSCAN_UINT64,
    REDSCAN_FLOAT32,
    REDSCAN_FLOAT64,
    /* Narrow types (docs/SEMANTICS.md, "Narrow types"): integers combine in their own width with wrap-around
     * unless out_dtype widens them; FLOAT16 (IEEE binary16) and BFLOAT16 (the high half of a float32) combine in
     * float32 and are rounded to nearest even once, when stored in a narrow output. */
    REDSCAN_INT8,
    REDSCAN_UINT8,
    REDSCAN_INT16,
    REDSCAN_UINT16,
    REDSCAN_FLOAT16,
    REDSCAN_BFLOAT16
} redscan_dtype;

typedef enum { REDSCAN_SUM = 0, REDSCAN_PROD, REDSCAN_MIN, REDSCAN_MAX } redscan_op;

/* ---- context ---- */
REDSCAN_API redscan_status redscan_create(redscan_ctx **ctx, redscan_backend backend); /* AUTO reads REDSCAN_BACKEND */
REDSCAN_API void redscan_destroy(redscan_ctx *ctx);
REDSCAN_API const char *redscan_backend_name(const redscan_ctx *ctx); /* "cuda" or "opencl" */
REDSCAN_API const char *redscan_device_name(const redscan_ctx *ctx);
/* Detail of the last failure on this context ("" when none). Safe with ctx == NULL: then it
 * describes the last redscan_create failure of the calling thread. */
REDSCAN_API const char *redscan_last_error(const redscan_ctx *ctx);
REDSCAN_API const char *redscan_status_string(redscan_status status);
/* For layers built on the public API (libredscan_mpi): record `message` as the context's last error, as
 * redscan_last_error returns it (truncated to the library's limit); ctx NULL: the calling thread's slot. */
REDSCAN_API void redscan_set_last_error(redscan_ctx *ctx, const char *message);
/* Size in bytes of one element of dtype, 0 for an unknown dtype. */
REDSCAN_API size_t redscan_dtype_size(redscan_dtype dtype);
REDSCAN_API const char *redscan_dtype_name(redscan_dtype dtype);
REDSCAN_API const char *redscan_op_name(redscan_op op);

/* Whether a backend was compiled in and can be used here; when not, *reason (if non-NULL) is set to
 * a static description. Creates no context. */
REDSCAN_API int redscan_backend_compiled(redscan_backend backend);
REDSCAN_API redscan_status redscan_backend_probe(redscan_backend backend, const char **reason);

/* ---- on-disk cache of built OpenCL programs (docs/CACHE.md) ----
 * The OpenCL backend keeps the program binaries it builds in REDSCAN_CACHE_DIR (default $XDG_CACHE_HOME/redscan,
 * else $HOME/.cache/redscan), keyed by library, platform, device, driver, source and build options, so that a new
 * process skips the build. REDSCAN_CACHE=0 turns it off. A damaged entry is detected and rebuilt; a directory that
 * cannot be created or written turns caching off for the context, never an error. CUDA kernels are compiled ahead
 * of time: there the cache is not used. Counts are per context. */
typedef struct {
    int used;          /* 1: this backend builds programs at run time and has the cache (OpenCL); 0: not used */
    int enabled;       /* entries are read and written for this context now */
    uint64_t hits;     /* programs loaded from an entry */
    uint64_t misses;   /* programs built from source while enabled (no entry, a rejected one, another key) */
    uint64_t writes;   /* entries written */
    uint64_t rejected; /* entries found damaged or refused by the driver (truncated, bad checksum, bad header) */
    const char *directory; /* the cache directory ("" when none); owned by the context */
    const char *note;      /* why not used or not enabled ("" when enabled); owned by the context */
} redscan_cache_stats;
REDSCAN_API redscan_status redscan_program_cache_stats(redscan_ctx *ctx, redscan_cache_stats *stats);

/* ---- device buffers ---- */
REDSCAN_API redscan_status redscan_buffer_create(redscan_ctx *ctx, size_t bytes, redscan_buffer **buf);
REDSCAN_API redscan_status redscan_buffer_write(redscan_ctx *ctx, redscan_buffer *buf, size_t offset, const void *src,
                                    size_t bytes);
REDSCAN_API redscan_status redscan_buffer_read(redscan_ctx *ctx, const redscan_buffer *buf, size_t offset, void *dst,
                                   size_t bytes);
REDSCAN_API void redscan_buffer_destroy(redscan_ctx *ctx, redscan_buffer *buf);
REDSCAN_API size_t redscan_buffer_size(const redscan_buffer *buf);
/* The device memory behind a buffer (NULL for NULL): the CUDA device pointer (CUDA backend) or the cl_mem (OpenCL
 * backend, as void *). Owned by redscan unless the buffer wraps the caller's memory. For layers that hand device
 * memory to other libraries (libredscan_mpi gives it to a CUDA-aware MPI). */
REDSCAN_API void *redscan_buffer_native(const redscan_buffer *buf);
/* Wrap device memory the caller already owns, without copying: a CUDA device pointer (CUDA backend) or a
 * cl_mem of the context's OpenCL context (OpenCL backend; pass the cl_mem as void *). The memory must hold at
 * least `bytes`; redscan_buffer_destroy releases only the wrapper. Wrong backend -> REDSCAN_ERR_INVALID_ARGUMENT. */
REDSCAN_API redscan_status redscan_buffer_wrap_cuda(redscan_ctx *ctx, void *device_ptr, size_t bytes,
                                                    redscan_buffer **buf);
/* The context's native objects, so that production code can allocate memory to wrap or order its own work
 * against ours: REDSCAN_NATIVE_OPENCL_CONTEXT / _QUEUE / _DEVICE give a cl_context / cl_command_queue /
 * cl_device_id, REDSCAN_NATIVE_CUDA_STREAM the cudaStream_t (every call has finished its work on it before it
 * returns). A handle of the other backend -> REDSCAN_ERR_INVALID_ARGUMENT. The handles stay owned by redscan.
 * redscan_set_profiling replaces the OpenCL queue (see there). */
typedef enum {
    REDSCAN_NATIVE_OPENCL_CONTEXT = 1,
    REDSCAN_NATIVE_OPENCL_QUEUE,
    REDSCAN_NATIVE_OPENCL_DEVICE,
    REDSCAN_NATIVE_CUDA_STREAM
} redscan_native;
REDSCAN_API redscan_status redscan_native_handle(redscan_ctx *ctx, redscan_native what, void **handle);
REDSCAN_API redscan_status redscan_buffer_wrap_opencl(redscan_ctx *ctx, void *cl_mem_object, size_t bytes,
                                                      redscan_buffer **buf);

/* ---- reductions ---- */
typedef enum {
    REDSCAN_REDUCE_AUTO = 0,
    REDSCAN_REDUCE_TREE,        /* local-memory tree, sequential addressing (seed 004) */
    REDSCAN_REDUCE_INTERLEAVED, /* neighbour-pairing tree (seed 000) */
    REDSCAN_REDUCE_COARSENED,   /* thread coarsening over a fixed tile, then the tree (seed 002) */
    /* The tree with its last levels done by one warp / sub-group of 32 (seed 002's CUDA variants): bit for bit
     * the same results as REDSCAN_REDUCE_TREE. OpenCL needs cl_khr_subgroups, cl_khr_subgroup_shuffle_relative and
     * sub-groups of 32, else REDSCAN_ERR_UNSUPPORTED. */
    REDSCAN_REDUCE_WARP_SYNC,   /* warp-synchronous shared-memory tail (__syncwarp / sub_group_barrier) */
    REDSCAN_REDUCE_SHUFFLE      /* register tail with __shfl_down_sync / sub_group_shuffle_down */
} redscan_reduce_algo;

typedef struct {
    redscan_op op;
    redscan_dtype dtype;
    redscan_dtype out_dtype; /* 0 = same as dtype, or a widening: INT32->INT64, UINT32->UINT64, FLOAT32->FLOAT64;
                              * int8/int16 -> INT32/INT64, uint8/uint16 -> UINT32/UINT64, float16/bfloat16 -> FLOAT32/FLOAT64 */
    redscan_reduce_algo algo;
    unsigned flags; /* reserved, must be 0 */
} redscan_reduce_desc;

/* result: host pointer to one element of out_dtype (dtype when out_dtype is 0). */
REDSCAN_API redscan_status redscan_reduce(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, const redscan_buffer *in,
                              size_t n, void *result);
REDSCAN_API redscan_status redscan_reduce_ex(redscan_ctx *ctx, const redscan_reduce_desc *desc, const redscan_buffer *in,
                                 size_t n, void *result);
REDSCAN_API redscan_status redscan_reduce_host(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, const void *in, size_t n,
                                   void *result);
REDSCAN_API redscan_status redscan_reduce_host_ex(redscan_ctx *ctx, const redscan_reduce_desc *desc, const void *in, size_t n,
                                      void *result);

/* Mean with 64-bit integer (wrap-around) or float64 accumulation. n = 0 is INVALID_ARGUMENT. */
REDSCAN_API redscan_status redscan_mean(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n, double *mean);
REDSCAN_API redscan_status redscan_mean_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, double *mean);

/* Index of the smallest / largest element; ties go to the lowest index; the first NaN wins.
 * value (may be NULL) receives the element. n = 0 is INVALID_ARGUMENT. */
REDSCAN_API redscan_status redscan_argmin(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                              uint64_t *index, void *value);
REDSCAN_API redscan_status redscan_argmax(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n,
                              uint64_t *index, void *value);
REDSCAN_API redscan_status redscan_argmin_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, uint64_t *index,
                                   void *value);
REDSCAN_API redscan_status redscan_argmax_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, uint64_t *index,
                                   void *value);

/* The k largest (largest = 1) or smallest (largest = 0) elements, 1 <= k <= min(n, REDSCAN_TOPK_MAX), best first;
 * NaN ranks before every number, ties go to the lowest index. indices may be NULL. */
REDSCAN_API redscan_status redscan_topk(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in, size_t n, size_t k,
                            int largest, void *values, uint64_t *indices);
REDSCAN_API redscan_status redscan_topk_host(redscan_ctx *ctx, redscan_dtype dtype, const void *in, size_t n, size_t k,
                                 int largest, void *values, uint64_t *indices);

/* ---- scans ---- */
typedef enum {
    REDSCAN_BLOCK_AUTO = 0,
    REDSCAN_BLOCK_KOGGE_STONE,
    REDSCAN_BLOCK_KOGGE_STONE_DB,
    REDSCAN_BLOCK_BRENT_KUNG,
    REDSCAN_BLOCK_COARSENED
} redscan_block_scan;

typedef enum {
    REDSCAN_GRID_AUTO = 0, /* the bits of SINGLE_PASS's fixed order on every backend and device (docs/ALGORITHMS.md) */
    REDSCAN_GRID_HIERARCHICAL,
    REDSCAN_GRID_REDUCE_THEN_SCAN,
    REDSCAN_GRID_SINGLE_PASS
} redscan_grid_scan;

typedef struct {
    redscan_op op;
    redscan_dtype dtype;
    redscan_dtype out_dtype; /* 0 = same as dtype, or a widening as for reductions */
    int exclusive;           /* 0 or 1 */
    const void *init;        /* NULL = identity; else one element of the output type */
    redscan_block_scan block;
    redscan_grid_scan grid;
    unsigned flags; /* reserved, must be 0 */
} redscan_scan_desc;

/* in == out is allowed (in-place) when the input and output types are the same. */
REDSCAN_API redscan_status redscan_scan(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, int exclusive,
                            const redscan_buffer *in, redscan_buffer *out, size_t n);
REDSCAN_API redscan_status redscan_scan_ex(redscan_ctx *ctx, const redscan_scan_desc *desc, const redscan_buffer *in,
                               redscan_buffer *out, size_t n);
REDSCAN_API redscan_status redscan_scan_host(redscan_ctx *ctx, redscan_op op, redscan_dtype dtype, int exclusive, const void *in,
                                 void *out, size_t n);
REDSCAN_API redscan_status redscan_scan_host_ex(redscan_ctx *ctx, const redscan_scan_desc *desc, const void *in, void *out,
                                    size_t n);

/* ---- scan parts: the AUTO scan split into its two device passes (docs/ALGORITHMS.md, "Scan parts";
 * docs/SEMANTICS.md, "Scan parts"), for callers that chain the carries themselves, e.g. across MPI ranks ---- */
#define REDSCAN_SCAN_SECTION 2048 /* the AUTO scan's section (coarsened block) */
#define REDSCAN_REDUCE_TILE 4096  /* the coarsened reduction's tile (AUTO reduce) */

/* totals[j] (j < ceil(n / REDSCAN_SCAN_SECTION)) = the section-total expression S of in[in_offset + j*SECTION ...
 * + SECTION) (identity past n), of the scan's compute type: out_dtype (0 means dtype), or for a narrow out_dtype the
 * 32-bit type of its kind (INT32, UINT32 or FLOAT32). desc: op, dtype, out_dtype used; block must be
 * AUTO or COARSENED, grid AUTO (anything else REDSCAN_ERR_UNSUPPORTED); exclusive and init are ignored. n >= 1.
 * totals must not be in. Enqueued on the context's stream / queue like the _async functions (returns without
 * waiting; errors of the device work at redscan_synchronize; redscan_buffer_read waits for it). The environment's
 * REDSCAN_SCAN_BLOCK / _GRID are not applied: the parts always follow the AUTO scan's documented order. */
REDSCAN_API redscan_status redscan_scan_section_totals(redscan_ctx *ctx, const redscan_scan_desc *desc,
                                                       const redscan_buffer *in, size_t in_offset, size_t n,
                                                       redscan_buffer *totals);
/* out[out_offset + i] = carries[i / SECTION] (+) L[i] for i < n, where L is the coarsened block scan of the section
 * holding i (sections start at in_offset; inclusive or, with desc->exclusive, the previous local value, identity at
 * a section start) and carries are ceil(n/SECTION) values of the compute type. Stored in out_dtype (narrow outputs
 * rounded once, as redscan_scan does). desc->init is ignored (the carries hold it). With carries computed by the
 * single_pass chain (ALGORITHMS.md) from the totals above and init, a whole array gives exactly redscan_scan's
 * AUTO bits. in == out allowed when in_offset == out_offset and dtypes equal (other overlaps of in and out, and
 * carries overlapping out, are refused). Enqueued on the context's stream / queue like the _async functions
 * (returns without waiting; errors of the device work at redscan_synchronize). */
REDSCAN_API redscan_status redscan_scan_with_carries(redscan_ctx *ctx, const redscan_scan_desc *desc,
                                                     const redscan_buffer *in, size_t in_offset, redscan_buffer *out,
                                                     size_t out_offset, size_t n, const redscan_buffer *carries);

/* ---- stream-ordered (asynchronous) operation (docs/ASYNC.md) ----
 * A context can work on the caller's own CUDA stream or OpenCL command queue. The _async functions check their
 * arguments, enqueue their work on the context's stream / queue and return: nothing waits for the device, results
 * stay in device memory, and the work runs in order with whatever else the caller puts on that stream / queue.
 * They work on every context (on one made by redscan_create, on its own stream / queue). A refused argument is
 * reported before anything is enqueued; a device failure by the call or by redscan_synchronize. The blocking
 * functions are the same work followed by a wait and a copy of the result to the host.
 *
 * Workspace: redscan_reserve sizes the context's workspace for every operation on n elements of dtype (every
 * algorithm, its widening, top-k up to k = 8, segmented scans, segmented reductions, scan and reduce by key);
 * redscan_reserve_topk also for top-k up to k. After that, or after an
 * earlier call of the same size, an _async call allocates nothing, waits for nothing and copies nothing to the host,
 * so a sequence of them can be captured into a CUDA graph and replayed (on OpenCL, the first call of an operation
 * builds its program first, on the host). */

/* The context uses the caller's stream on CUDA device `device` (stream NULL = the legacy default stream) and never
 * destroys it; the calling thread's current device is left as it was. REDSCAN_CUDA_DEVICE is not read. */
REDSCAN_API redscan_status redscan_create_on_cuda_stream(redscan_ctx **ctx, int device, void *stream);
/* The context uses the caller's cl_command_queue, its cl_context and its device, all retained while the context
 * lives and released by redscan_destroy. An out-of-order queue is refused (REDSCAN_ERR_UNSUPPORTED): redscan's
 * commands rely on in-order execution. REDSCAN_OPENCL_DEVICE is not read. */
REDSCAN_API redscan_status redscan_create_on_opencl_queue(redscan_ctx **ctx, void *queue);
REDSCAN_API redscan_status redscan_reserve(redscan_ctx *ctx, redscan_dtype dtype, size_t n);
REDSCAN_API redscan_status redscan_reserve_topk(redscan_ctx *ctx, redscan_dtype dtype, size_t n, size_t k);
/* Wait until everything the context enqueued (and all earlier work on its stream / queue) is done; reports a device
 * failure of that work. */
REDSCAN_API redscan_status redscan_synchronize(redscan_ctx *ctx);

/* result[result_index] (one element of out_dtype; the index counts elements) = the reduction; n = 0 stores the
 * result of reducing nothing, as redscan_reduce_ex returns it. */
REDSCAN_API redscan_status redscan_reduce_async(redscan_ctx *ctx, const redscan_reduce_desc *desc,
                                                const redscan_buffer *in, size_t n, redscan_buffer *result,
                                                size_t result_index);
REDSCAN_API redscan_status redscan_scan_async(redscan_ctx *ctx, const redscan_scan_desc *desc,
                                              const redscan_buffer *in, redscan_buffer *out, size_t n);
/* index: one uint64 (bytes 0..7 of the buffer); value (or NULL): one element of dtype at its start. */
REDSCAN_API redscan_status redscan_argmin_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                                size_t n, redscan_buffer *index, redscan_buffer *value);
REDSCAN_API redscan_status redscan_argmax_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                                size_t n, redscan_buffer *index, redscan_buffer *value);
/* values: k elements of dtype at the buffer's start; indices (or NULL): k uint64. */
REDSCAN_API redscan_status redscan_topk_async(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                              size_t n, size_t k, int largest, redscan_buffer *values,
                                              redscan_buffer *indices);

/* ---- segments (docs/SEMANTICS.md "Segments", docs/ALGORITHMS.md "Segments") ----
 * Segment s (0 <= s < num_segments) is in[offsets[s] .. offsets[s+1]): num_segments + 1 offsets of offsets_dtype
 * (REDSCAN_INT32, _UINT32, _INT64 or _UINT64), non-decreasing, offsets[num_segments] <= the elements `in` holds
 * (its size / the element size). Each segment gives the same bits as redscan_reduce_ex with the coarsened
 * algorithm (the AUTO one) on that slice alone, wherever it sits; an empty segment gives the reduction of nothing
 * (+0 for sums, 1, the type's max / +inf, the type's min / -inf). desc->algo: AUTO or COARSENED (REDSCAN_REDUCE_ALGO
 * is not read); out_dtype: 0 or a widening, as for redscan_reduce_ex. num_segments = 0 is INVALID_ARGUMENT.
 * Offsets that decrease, are negative or run past `in` are found on the device: the call then writes nothing and
 * the blocking form returns REDSCAN_ERR_INVALID_ARGUMENT; an _async call's fault is returned by the next
 * redscan_synchronize (or the next blocking segmented call). */
REDSCAN_API redscan_status redscan_segmented_reduce(redscan_ctx *ctx, const redscan_reduce_desc *desc,
                                                    const redscan_buffer *in, redscan_dtype offsets_dtype,
                                                    const redscan_buffer *offsets, size_t num_segments,
                                                    redscan_buffer *out /* num_segments of out_dtype */);
/* indices: num_segments uint64, an index into `in` (offsets[s] + the position in the segment), UINT64_MAX for an empty
 * segment; values (or NULL): num_segments of dtype, the element (for an empty segment: +inf / the type's max for
 * argmin, -inf / the type's min for argmax). The same index as redscan_argmin / _argmax of the slice. */
REDSCAN_API redscan_status redscan_segmented_argmin(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                                    redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                                    size_t num_segments, redscan_buffer *indices,
                                                    redscan_buffer *values);
REDSCAN_API redscan_status redscan_segmented_argmax(redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                                    redscan_dtype offsets_dtype, const redscan_buffer *offsets,
                                                    size_t num_segments, redscan_buffer *indices,
                                                    redscan_buffer *values);
/* Stream-ordered forms (docs/ASYNC.md): the same work, no wait. */
REDSCAN_API redscan_status redscan_segmented_reduce_async(redscan_ctx *ctx, const redscan_reduce_desc *desc,
                                                          const redscan_buffer *in, redscan_dtype offsets_dtype,
                                                          const redscan_buffer *offsets, size_t num_segments,
                                                          redscan_buffer *out);
REDSCAN_API redscan_status redscan_segmented_argmin_async(redscan_ctx *ctx, redscan_dtype dtype,
                                                          const redscan_buffer *in, redscan_dtype offsets_dtype,
                                                          const redscan_buffer *offsets, size_t num_segments,
                                                          redscan_buffer *indices, redscan_buffer *values);
REDSCAN_API redscan_status redscan_segmented_argmax_async(redscan_ctx *ctx, redscan_dtype dtype,
                                                          const redscan_buffer *in, redscan_dtype offsets_dtype,
                                                          const redscan_buffer *offsets, size_t num_segments,
                                                          redscan_buffer *indices, redscan_buffer *values);

/* Segmented scan (docs/SEMANTICS.md "Segmented scans"): each segment scanned alone, into the same positions of `out`
 * (which holds as many elements of out_dtype as `in` holds of dtype; elements outside every segment are not
 * written). Each segment's output is the same bits as redscan_scan_ex with the AUTO block and grid (coarsened,
 * single_pass's order) on that slice alone, with desc->exclusive and desc->init: every segment starts at init (the
 * identity when NULL). desc->block: AUTO or COARSENED, desc->grid: AUTO or SINGLE_PASS (REDSCAN_SCAN_BLOCK / _GRID
 * are not read); out_dtype 0 or a widening; in == out allowed without a widening. Offsets as above. */
REDSCAN_API redscan_status redscan_segmented_scan(redscan_ctx *ctx, const redscan_scan_desc *desc,
                                                  const redscan_buffer *in, redscan_dtype offsets_dtype,
                                                  const redscan_buffer *offsets, size_t num_segments,
                                                  redscan_buffer *out);
REDSCAN_API redscan_status redscan_segmented_scan_async(redscan_ctx *ctx, const redscan_scan_desc *desc,
                                                        const redscan_buffer *in, redscan_dtype offsets_dtype,
                                                        const redscan_buffer *offsets, size_t num_segments,
                                                        redscan_buffer *out);
/* Scan by key (docs/SEMANTICS.md "Segmented scans"): a segment is a run of equal adjacent keys (n keys of key_dtype,
 * any integer type: INT8 .. UINT64), scanned alone with the bits of redscan_segmented_scan over the runs' offsets (so
 * of redscan_scan_ex, AUTO, on each run alone); every run starts at init. n = 0 does nothing. keys, in and out hold
 * at least n elements; in == out allowed without a widening; out must not be keys. */
REDSCAN_API redscan_status redscan_scan_by_key(redscan_ctx *ctx, const redscan_scan_desc *desc, redscan_dtype key_dtype,
                                               const redscan_buffer *keys, const redscan_buffer *in,
                                               redscan_buffer *out, size_t n);
REDSCAN_API redscan_status redscan_scan_by_key_async(redscan_ctx *ctx, const redscan_scan_desc *desc,
                                                     redscan_dtype key_dtype, const redscan_buffer *keys,
                                                     const redscan_buffer *in, redscan_buffer *out, size_t n);
/* Reduce by key (docs/SEMANTICS.md "Segments"): a run is a maximal run of equal adjacent keys (n keys of key_dtype, any
 * integer type: INT8 .. UINT64, compared as bits). Run r gives unique_keys[r] (its key, key_dtype) and aggregates[r]
 * (the bits of redscan_segmented_reduce over the runs' offsets, so of redscan_reduce_ex, COARSENED, on the run alone;
 * desc->algo AUTO or COARSENED, out_dtype 0 or a widening). keys and in hold at least n elements; unique_keys n keys
 * and aggregates n of out_dtype (room for the worst case, n runs); outputs must not be an input or each other.
 * *num_runs = the run count R (the call reads it back once); entries past R are not written. n = 0: *num_runs = 0,
 * nothing written. */
REDSCAN_API redscan_status redscan_reduce_by_key(redscan_ctx *ctx, const redscan_reduce_desc *desc,
                                                 redscan_dtype key_dtype, const redscan_buffer *keys,
                                                 const redscan_buffer *in, size_t n, redscan_buffer *unique_keys,
                                                 redscan_buffer *aggregates, size_t *num_runs);
/* The stream-ordered form (docs/ASYNC.md): num_runs is a device buffer of one uint64 receiving R. The run count stays
 * on the device (the kernels read it there); the outputs are the blocking form's: unique_keys and aggregates past R
 * are not written. n = 0: num_runs receives 0, nothing else is written. */
REDSCAN_API redscan_status redscan_reduce_by_key_async(redscan_ctx *ctx, const redscan_reduce_desc *desc,
                                                       redscan_dtype key_dtype, const redscan_buffer *keys,
                                                       const redscan_buffer *in, size_t n,
                                                       redscan_buffer *unique_keys, redscan_buffer *aggregates,
                                                       redscan_buffer *num_runs);

/* ---- profiling (benchmarks) ----
 * With profiling on, every reduction, scan, mean, argmin/argmax and top-k call (device and host forms) records the
 * device time of its work: from the start of its first device command to the end of its last one, on the device's
 * clock. That work is the operation's kernels and, where the result comes back in host memory (reductions, mean,
 * argmin/argmax, top-k), the copy of that result; not the upload of a *_host input nor the download of a
 * *_host scan's output. Host work between two of its commands (a wait, a first call's scratch allocation) counts.
 *   CUDA: two CUDA events recorded on the context's stream, when the operation starts and before its final wait.
 *   OpenCL: CL_PROFILING_COMMAND_START of the first command and CL_PROFILING_COMMAND_END of the last. Switching
 *   profiling on or off replaces the context's command queue (on: one made with CL_QUEUE_PROFILING_ENABLE), so a
 *   queue got from redscan_native_handle before the switch is no longer the context's; ask for it again.
 * Off by default; while off nothing is recorded or allocated. on: 0 or 1. A backend or device that cannot time its
 * commands -> REDSCAN_ERR_UNSUPPORTED, and profiling stays off. */
REDSCAN_API redscan_status redscan_set_profiling(redscan_ctx *ctx, int on);
/* Device time in seconds of the last operation (as above). REDSCAN_ERR_INVALID_ARGUMENT, with the reason in
 * redscan_last_error, when profiling is off, when no operation ran since it was switched on, or when the last
 * operation failed or ran no device command (n = 0 reductions and scans, refused arguments). Buffer transfers
 * (redscan_buffer_write / _read) are not operations: they leave the time of the last one as it was. */
REDSCAN_API redscan_status redscan_last_device_time(redscan_ctx *ctx, double *seconds);

/* Algorithm names as accepted by REDSCAN_REDUCE_ALGO / REDSCAN_SCAN_BLOCK / REDSCAN_SCAN_GRID. */
REDSCAN_API const char *redscan_reduce_algo_name(redscan_reduce_algo algo);
REDSCAN_API const char *redscan_block_scan_name(redscan_block_scan block);
REDSCAN_API const char *redscan_grid_scan_name(redscan_grid_scan grid);

#ifdef __cplusplus
}
#endif

#endif /* REDSCAN_H */
