/* Internal contract between the backend-neutral core (api/src) and a backend (backend_opencl,
 * backend_cuda). The core validates every argument before a backend function runs, so a backend may
 * assume: valid enum values, out_dtype resolved (never 0), n > 0, ranges inside the buffers, non-NULL
 * pointers where the public API requires them, 1 <= k <= min(n, REDSCAN_TOPK_MAX).
 * A backend reports failures with rs_set_error(ctx, status, fmt, ...) and returns that status. */
#ifndef REDSCAN_BACKEND_H
#define REDSCAN_BACKEND_H

#include "redscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest scalar any dtype needs; used for identities, init values and results. */
typedef union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16; /* float16 and bfloat16 too: their bits */
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    unsigned char bytes[8];
} rs_scalar;

/* A scan request as the backend sees it: AUTO algorithms are still possible (the backend picks by device kind), env
 * overrides already applied; init always holds a value of rs_compute_dtype(out_dtype), which is out_dtype but for
 * narrow outputs (the identity when the caller passed NULL). */
typedef struct {
    redscan_op op;
    redscan_dtype dtype;
    redscan_dtype out_dtype;
    int exclusive;
    rs_scalar init;
    redscan_block_scan block;
    redscan_grid_scan grid;
} rs_scan_req;

typedef struct {
    redscan_op op;
    redscan_dtype dtype;
    redscan_dtype out_dtype;
    redscan_reduce_algo algo;
} rs_reduce_req;

typedef struct rs_backend_ops {
    const char *name; /* "opencl" or "cuda" */
    int narrow_types; /* 1: the backend runs the narrow types (INT8 .. BFLOAT16); 0: the core refuses them */
    /* Fill ctx->impl and ctx->device_name; on failure set the error and leave ctx->impl NULL. */
    redscan_status (*init)(redscan_ctx *ctx);
    void (*shutdown)(redscan_ctx *ctx);
    /* Whether the backend can run here at all, without a context (for redscan_backend_probe/info). */
    redscan_status (*probe)(const char **reason);

    redscan_status (*buffer_create)(redscan_ctx *ctx, size_t bytes, void **handle);
    void (*buffer_destroy)(redscan_ctx *ctx, void *handle);
    redscan_status (*buffer_write)(redscan_ctx *ctx, void *handle, size_t offset, const void *src, size_t bytes);
    redscan_status (*buffer_read)(redscan_ctx *ctx, void *handle, size_t offset, void *dst, size_t bytes);

    /* Attach to the caller's native objects instead of making them (redscan_create_on_*): CUDA: native = the
     * cudaStream_t, device = its device; OpenCL: native = the cl_command_queue (device unused). As init otherwise. */
    redscan_status (*init_attached)(redscan_ctx *ctx, void *native, int device);

    /* The operations enqueue their work on the context's stream / queue and return without waiting (the blocking
     * entry points wait with synchronize and take the result with result_take). Device results go to buffer
     * handles at a byte offset; the backend may assume the core checked sizes and that nothing but an allocation
     * of workspace (grow-only, see reserve) and, on OpenCL, a first program build happen on the host. */
    /* out + out_offset: one element of req->out_dtype. */
    redscan_status (*reduce)(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n, void *out,
                             size_t out_offset);
    /* out + out_offset = rs_empty_result(op, out_dtype) (a reduction of nothing), by a device command. */
    redscan_status (*store_empty)(redscan_ctx *ctx, redscan_op op, redscan_dtype out_dtype, void *out,
                                  size_t out_offset);
    /* in may equal out (only when dtype == out_dtype). */
    redscan_status (*scan)(redscan_ctx *ctx, const rs_scan_req *req, void *in, void *out, size_t n);
    /* want_max: 0 argmin, 1 argmax. index: one uint64 at offset 0; value: one element of dtype, or NULL. */
    redscan_status (*argext)(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n, void *index,
                             void *value);
    /* values: k elements of dtype; indices: k uint64 or NULL. */
    redscan_status (*topk)(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k, int largest,
                           void *values, void *indices);
    /* Segments (docs/ALGORITHMS.md, "Segments"; api/src/segmented.c). in: in_n elements of the input type (the
     * bound the offsets are checked against); offsets: num_segments + 1 of offsets_dtype (INT32 .. UINT64);
     * num_segments >= 1. The offsets' values are checked on the device (seg_check): faulty ones make the call write
     * nothing and are reported by the next synchronize (quiet = 0) through rs_seg_fault.
     * out: num_segments of req->out_dtype. */
    redscan_status (*segmented_reduce)(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t in_n,
                                       redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out);
    /* want_max: 0 argmin, 1 argmax. indices: num_segments uint64; values: num_segments of dtype, or NULL. */
    redscan_status (*segmented_argext)(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t in_n,
                                       redscan_dtype offsets_dtype, void *offsets, size_t num_segments,
                                       void *indices, void *values);
    /* Segmented scan (docs/ALGORITHMS.md, "Segmented scans"): req as for scan, its block coarsened and grid single_pass
     * (the order; the backend picks the kernels); out: in_n elements of req->out_dtype, of which the segments'
     * elements are written. Faulty offsets as for segmented_reduce. */
    redscan_status (*segmented_scan)(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_n,
                                     redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out);
    /* Scan by key: runs of equal adjacent keys (key_dtype: an integer type; n keys) scanned as segments, n >= 1.
     * wait_ok: the blocking form, which may wait for the device once (to read the run count). path (rs_byk_path):
     * RS_BYK_RUNS, the runs' offsets and the segmented scan; RS_BYK_ONE_PASS, the one-pass kernel of the exact
     * operators; RS_BYK_AUTO, the backend's choice between the two (an exact operator). */
    redscan_status (*scan_by_key)(redscan_ctx *ctx, const rs_scan_req *req, redscan_dtype key_dtype, void *keys,
                                  void *in, void *out, size_t n, int wait_ok, int path);
    /* Scan parts (api/src/scan_parts.c; docs/ALGORITHMS.md, "Scan parts"): the AUTO scan's two passes over
     * in + in_off (element offsets, checked by the core), always the coarsened block (SECTION REDSCAN_SCAN_SECTION);
     * req->block / grid / init are not used. n >= 1. Both only enqueue.
     * totals: ceil(n / SECTION) values of rs_compute_dtype(out_dtype), the section-total expression S. */
    redscan_status (*scan_section_totals)(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                          size_t n, void *totals);
    /* out + out_off (req->out_dtype) = carries[j] (+) L, L the coarsened block scan of section j (inclusive or
     * req->exclusive); carries: ceil(n / SECTION) of the compute type. in may equal out only with in_off == out_off
     * and dtype == out_dtype. */
    redscan_status (*scan_with_carries)(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                        void *out, size_t out_off, size_t n, void *carries);
    /* Reduce by key: runs of equal adjacent keys (key_dtype: an integer type; n keys, n >= 1) reduced as segments
     * (segmented_reduce's rule). unique_keys: n keys; aggregates: n of req->out_dtype. runs_host != NULL (the
     * blocking form): may wait once to read the run count R into *runs_host; runs R keys and R aggregates. Else
     * (_async): runs (one uint64 at offset 0) receives R; n segments padded past R (aggregates[R..n) = the reduction
     * of nothing), R keys. */
    redscan_status (*reduce_by_key)(redscan_ctx *ctx, const rs_reduce_req *req, redscan_dtype key_dtype, void *keys,
                                    void *in, size_t n, void *unique_keys, void *aggregates, void *runs,
                                    uint64_t *runs_host);
    /* Wait for the stream / queue and report a failure of its work. quiet = 1: only wait (a failed blocking call
     * settles what it enqueued), recording nothing. */
    redscan_status (*synchronize)(redscan_ctx *ctx, int quiet);
    /* Size the workspace for every operation on n elements of dtype (and its widening) with top-k up to k_max. */
    redscan_status (*reserve)(redscan_ctx *ctx, redscan_dtype dtype, size_t n, size_t k_max);
    /* The blocking entry points' result area: two device handles of RS_RESULT_BYTES each (values, indices) that
     * the operations write like any buffer; result_take waits for the stream / queue and copies out. */
    redscan_status (*result_slots)(redscan_ctx *ctx, void **values, void **indices);
    redscan_status (*result_take)(redscan_ctx *ctx, void *values, size_t value_bytes, void *indices,
                                  size_t index_bytes, const char *what);

    /* Optional (NULL = REDSCAN_ERR_UNSUPPORTED): wrap memory the caller owns (a cl_mem for OpenCL, a device
     * pointer for CUDA) without copying; unwrap undoes whatever wrap did (never frees the caller's memory). */
    redscan_status (*buffer_wrap)(redscan_ctx *ctx, void *native, size_t bytes, void **handle);
    void (*buffer_unwrap)(redscan_ctx *ctx, void *handle);
    /* The native object `what` (a redscan_native of this backend), or NULL if it has none such. */
    void *(*native)(redscan_ctx *ctx, redscan_native what);

    /* Optional (NULL = REDSCAN_ERR_UNSUPPORTED): device timing of operations (api/src/profile.c).
     * profiling: make (on = 1) or drop (on = 0) what timing needs; nothing of it exists while off.
     * time_begin: called (profiling on) before an operation's first device command; time_end after its last one,
     * also when the operation failed (ok = 0: release what begin took, no time); *seconds = the device time. */
    redscan_status (*profiling)(redscan_ctx *ctx, int on);
    redscan_status (*time_begin)(redscan_ctx *ctx);
    redscan_status (*time_end)(redscan_ctx *ctx, int ok, double *seconds);

    /* Optional (NULL = the backend builds nothing at run time: "not used"): the on-disk program cache's counters
     * (api/src/program_cache.c); stats arrive zeroed with "" strings. */
    void (*cache_stats)(redscan_ctx *ctx, redscan_cache_stats *stats);
} rs_backend_ops;

/* Bytes of each half of the blocking result area: the values (or indices) of the largest top-k. */
#define RS_RESULT_BYTES ((size_t)REDSCAN_TOPK_MAX * 8)

#define RS_ERROR_MAX 8192

struct redscan_ctx {
    const rs_backend_ops *ops;
    void *impl;              /* backend state */
    char device_name[256];   /* filled by the backend's init */
    char last_error[RS_ERROR_MAX];
    /* algorithm overrides from the environment (AUTO when unset) */
    redscan_reduce_algo env_reduce;
    redscan_block_scan env_block;
    redscan_grid_scan env_grid;
    /* redscan_set_profiling / redscan_last_device_time (profile.c) */
    int profiling;
    int time_state;     /* rs_time_state */
    double device_time; /* seconds, valid when time_state == RS_TIME_OK */
    int program_cache_off; /* REDSCAN_CACHE=0 (program_cache.c reads it at create) */
};

struct redscan_buffer {
    void *handle; /* cl_mem or device pointer */
    size_t bytes;
    int wrapped; /* made by redscan_buffer_wrap_*: the caller owns the memory */
    const redscan_ctx *owner;
};

/* Record an error on ctx (ctx may be NULL: then the thread's create-error slot) and return status. */
redscan_status rs_set_error(redscan_ctx *ctx, redscan_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void rs_clear_error(redscan_ctx *ctx);

/* Identity of op for dtype (sum: 0, -0.0 for floats; prod: 1; min: largest value / +inf;
 * max: smallest value / -inf). */
rs_scalar rs_identity(redscan_op op, redscan_dtype dtype);
/* What a reduction of nothing returns: the identity of op, except +0 (not -0.0) for sums. */
rs_scalar rs_empty_result(redscan_op op, redscan_dtype dtype);
/* The 64-bit widening of dtype (INT32->INT64, UINT32->UINT64, FLOAT32->FLOAT64; int8/int16 -> INT64,
 * uint8/uint16 -> UINT64, float16/bfloat16 -> FLOAT64), 0 if none. */
redscan_dtype rs_widening_of(redscan_dtype dtype);

/* narrow.c: the narrow types (docs/SEMANTICS.md, "Narrow types"). */
int rs_dtype_is_narrow(redscan_dtype dtype);
/* The dtype a type is combined in: INT32 for int8/int16, UINT32 for uint8/uint16, FLOAT32 for float16/bfloat16;
 * every other type itself. */
redscan_dtype rs_compute_dtype(redscan_dtype dtype);
/* out_dtype is an accepted widening of dtype (not dtype itself): rs_widening_of, and for a narrow type also the
 * 32-bit type of its kind. */
int rs_widening_ok(redscan_dtype dtype, redscan_dtype out_dtype);
/* A value of dtype as its compute type's (exact: sign or zero extension, float16 / bfloat16 to float32). */
rs_scalar rs_to_compute(redscan_dtype dtype, rs_scalar v);
/* Bit-exact conversions, round to nearest even; NaNs stay NaN and keep the payload bits that fit. */
float rs_half_to_float(uint16_t h);
uint16_t rs_float_to_half(float f);
float rs_bfloat16_to_float(uint16_t b);
uint16_t rs_float_to_bfloat16(float f);

/* segmented.c: the plan both backends launch (docs/ALGORITHMS.md, "Segments"): seg_short, seg_medium, then seg_tiles at
 * `levels` levels (what a segment as long as the whole input needs: each level divides the values by RS_SEG_TILE,
 * the coarsened TILE, rounding up) over `tiles` tiles of the input. */
#define RS_SEG_TILE 4096
#define RS_SEG_SHORT 32 /* seg_short: a segment of up to this many elements is one work-item's */
#define RS_SEG_SCAN_TILE 2048 /* segmented scans: the coarsened block scan's SECTION */
#define RS_BYK_TICKET 4 /* scan / reduce by key: tiles of RS_SEG_SCAN_TILE keys a byk_single ticket (the kernels' own) */
#define RS_SEG_ARG_PAIR_BYTES 16 /* segmented argmin / argmax: a (value, index) pair in the workspace, {X v; uint64 i} */
#define RS_SEG_FLAG_WORDS 4 /* uint: this call's faults, sticky faults, sticky smallest faulty index, unused (CUDA: one
                             * allocation; OpenCL: word 0 in one buffer, words 1-2 in another, see ocl_segmented.c) */
/* Fault bits of seg_check (kernels_cl/segmented.cl, kernels_cu/segmented.cu) */
#define RS_SEG_FAULT_DECREASING 1u
#define RS_SEG_FAULT_NEGATIVE 2u
#define RS_SEG_FAULT_PAST_END 4u
typedef struct {
    unsigned levels;
    uint64_t tiles; /* ceil(in_n / RS_SEG_TILE): the reduction's tiles (seg_tiles) */
    uint64_t queue; /* the most segments seg_short can queue for seg_medium: min(S, in_n / (RS_SEG_SHORT + 1)) */
} rs_seg_plan;
void rs_seg_plan_make(uint64_t in_n, uint64_t num_segments, rs_seg_plan *plan);
/* The segmented reduction's workspace (seg_short / seg_medium / seg_tiles, docs/ALGORITHMS.md "Segments"), four
 * buffers: A (level-1 values, 2 x tiles of the compute type, tsize bytes each), B (levels >= 2, the same), the marks
 * (2 x tiles uint64) and the queue (a count, then plan->queue entries of two uint64: index | length << 48, offset). */
void rs_seg_ws_bytes(const rs_seg_plan *plan, size_t tsize, size_t bytes[4]);
/* REDSCAN_ERR_UNSUPPORTED when in_n elements are too many for the reduction's queue (33 x 2^32 or more). */
redscan_status rs_seg_check_size(redscan_ctx *ctx, const char *fn, uint64_t in_n);
/* REDSCAN_ERR_INVALID_ARGUMENT describing the fault bits and the smallest faulty index (0xffffffff: >= that). */
redscan_status rs_seg_fault(redscan_ctx *ctx, unsigned bits, unsigned index);

/* profile.c: device timing around a backend operation. rs_time_forget at the entry of every operation;
 * rs_time_begin / rs_time_end around its backend call (end returns st, or the timing's own failure). Both do nothing
 * while profiling is off. */
typedef enum { RS_TIME_NONE = 0, RS_TIME_EMPTY, RS_TIME_FAILED, RS_TIME_OK, RS_TIME_ASYNC } rs_time_state;
void rs_time_forget(redscan_ctx *ctx);
/* An _async call: not timed (its work runs after it returns); redscan_last_device_time says so. */
void rs_time_async(redscan_ctx *ctx);
redscan_status rs_time_begin(redscan_ctx *ctx);
redscan_status rs_time_end(redscan_ctx *ctx, redscan_status st);

/* program_cache.c: REDSCAN_CACHE at context creation: unset or "1" -> *off = 0, "0" -> *off = 1; anything else is
 * REDSCAN_ERR_INVALID_ARGUMENT recorded in the thread's create-error slot, listing the accepted values. */
redscan_status rs_env_program_cache(int *off);
/* REDSCAN_SINGLE_PASS_SPINS (scan.c), read at every single_pass call by both backends: polls of a look-back slot
 * before the waiting group computes the value itself; default 4096, 0 forces the fallback (a testing knob). An
 * unparsable value is INVALID_ARGUMENT with a message. */
redscan_status rs_single_pass_spins(redscan_ctx *ctx, unsigned *spins);
/* REDSCAN_SINGLE_PASS_TILES (scan.c), read at every single_pass call by both backends: tiles a group takes per ticket
 * (1 or 2; the bits are the same). Unset: 2 when tiles >= 2 x groups (the groups the backend would launch for
 * `tiles` tiles), else 1. Anything but 1 or 2 is INVALID_ARGUMENT with a message. */
redscan_status rs_single_pass_per(redscan_ctx *ctx, uint64_t tiles, uint64_t groups, unsigned *per);

/* REDSCAN_SEGMENTED_SCAN_PATH (segmented.c), read at every segmented scan / scan by key: unset or "auto" -> *multi = 0
 * (the single-pass chunk path wherever the backend has it), "multi_pass" -> 1 (OpenCL's four-kernel chunk path, which
 * the backend otherwise runs only without 64-bit atomics; a testing knob), "single_pass" and "one_pass" -> 0. Anything
 * else is INVALID_ARGUMENT with a message. */
redscan_status rs_seg_scan_path(redscan_ctx *ctx, int *multi);
/* Whether a segmented scan takes the exact operators' one pass (scan by key's kernel, the heads from the offsets;
 * docs/ALGORITHMS.md "Segmented scans"): never unless rs_byk_exact(req); then device_ok (the backend's choice) with
 * the knob unset or "auto", always with "one_pass", never with "single_pass" / "multi_pass". Call after
 * rs_seg_scan_path has accepted the knob. */
int rs_seg_scan_one_pass(const rs_scan_req *req, int device_ok);

/* Scan by key's path (segmented.c, docs/ALGORITHMS.md "Scan by key"). The one-pass kernel is for the exact
 * operators alone, where every order of combination gives the same bits: dtype == out_dtype, and an integer dtype of
 * 32 or 64 bits under any op, or float32 / float64 under min or max (rs_byk_exact). REDSCAN_SCAN_BY_KEY_PATH, read at
 * every scan by key: unset or "auto" -> RS_BYK_AUTO where exact, "one_pass" -> RS_BYK_ONE_PASS where exact (a testing
 * knob: OpenCL CPU devices run it only then), "runs" -> RS_BYK_RUNS; a request that is not exact is RS_BYK_RUNS
 * whatever the knob says. Anything else is INVALID_ARGUMENT with a message. */
#define RS_BYK_RUNS 0
#define RS_BYK_ONE_PASS 1
#define RS_BYK_AUTO 2
int rs_byk_exact(const rs_scan_req *req);
redscan_status rs_byk_path(redscan_ctx *ctx, const rs_scan_req *req, int *path);

/* Backend tables; a backend compiled out still provides a table whose probe/init report
 * REDSCAN_ERR_BACKEND_UNAVAILABLE with the reason. */
extern const rs_backend_ops rs_opencl_backend;
extern const rs_backend_ops rs_cuda_backend;

#ifdef __cplusplus
}
#endif

#endif /* REDSCAN_BACKEND_H */
