/* Internal interface of the OpenCL backend, shared by its files:
 *   ocl_device.c   platform/device choice (REDSCAN_OPENCL_DEVICE), context, queue, device queries
 *   ocl_program.c  program source assembly from the embedded kernels, build with -D options, per-context cache
 *   ocl_memory.c   buffers and transfers, scratch buffers
 *   ocl_reduce.c   reductions, argmin/argmax, top-k launches
 *   ocl_scan.c     scan launches (block x grid algorithms)
 *   ocl_scan_single_pass.c  the single_pass grid scan
 *   ocl_shape.c    kernel shapes: REDSCAN_OPENCL_SHAPE, the CPU shape's work-items and launches
 *   ocl_timing.c   device time of an operation (redscan_set_profiling): profiling events of its commands
 *   ocl_backend.c  the rs_backend_ops table
 *   ocl_cache.c    on-disk cache of built program binaries (docs/CACHE.md); ocl_hash.c its hashes
 */
#ifndef REDSCAN_OCL_INTERNAL_H
#define REDSCAN_OCL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "backend.h"
#include "ocl_fault.h" /* fault builds: OpenCL calls go through counting wrappers; else nothing */

/* Fixed by docs/ALGORITHMS.md; identical in kernels_cu. */
#define RS_GROUP 256

/* Program families (ocl_program_families.c): each is built from the few kernels_cl files its operations need, so a
 * call compiles only its own kernels. */
typedef enum {
    RS_OCL_PROG_REDUCE_TREE,
    RS_OCL_PROG_REDUCE_INTERLEAVED,
    RS_OCL_PROG_REDUCE_COARSENED,
    RS_OCL_PROG_REDUCE_COARSENED_CPU, /* the CPU shape (ocl_shape.c) */
    RS_OCL_PROG_REDUCE_SUBGROUP,      /* warp_sync and shuffle: OpenCL C 2.0 / 3.0, sub-group built-ins */
    RS_OCL_PROG_ARGEXT,               /* argmin / argmax: topk_small_1 and argext_pairs */
    RS_OCL_PROG_TOPK_1, /* top-k, k = 1: topk_small_1 and topk_pairs */
    RS_OCL_PROG_TOPK_2, /* k = 2 */
    RS_OCL_PROG_TOPK_8, /* 2 < k <= 8 */
    RS_OCL_PROG_TOPK_LARGE, /* k > 8: topk_in and topk_pairs */
    RS_OCL_PROG_SCAN_KS, /* hierarchical and reduce_then_scan kernels of one block scan */
    RS_OCL_PROG_SCAN_KSDB,
    RS_OCL_PROG_SCAN_BK,
    RS_OCL_PROG_SCAN_COARSE,
    RS_OCL_PROG_SCAN_COARSE_CPU, /* the CPU shape of coarsened x reduce_then_scan */
    RS_OCL_PROG_SINGLE_PASS_KS,  /* the single-pass scan of one block scan */
    RS_OCL_PROG_SINGLE_PASS_KSDB,
    RS_OCL_PROG_SINGLE_PASS_BK,
    RS_OCL_PROG_SINGLE_PASS_COARSE,
    RS_OCL_PROG_SEGMENTED,        /* segmented reduction: seg_check, seg_short, seg_medium, seg_tiles_in (_t) */
    RS_OCL_PROG_SEGMENTED_ARGEXT, /* segmented argmin / argmax: the reduction's kernels over (value, index) pairs */
    RS_OCL_PROG_SEGMENTED_SCAN,   /* segmented scan: seg_check, seg_scan_totals, _groups, _chain, _out */
    RS_OCL_PROG_SCAN_BY_KEY,      /* scan by key in one pass, the exact operators: byk_exact_zero, byk_scan_exact */
    RS_OCL_PROG_COUNT
} rs_ocl_family;

/* ocl_program_families.c: a family's name ("reduce_coarsened", ...), its extra build options (" -D...", or ""), and its
 * source text (the family's files, each after a #line directive; malloc'd, NULL when out of host memory). */
const char *rs_ocl_family_name(rs_ocl_family family);
const char *rs_ocl_family_options(rs_ocl_family family);
char *rs_ocl_family_source(rs_ocl_family family);

/* Whether a program has the kernels that read T (names ending in _t): only for a widening. Otherwise those passes
 * run the _in kernel, the same code when IN_T is T (RS_T_KERNELS, kernels_cl/common.clh). */
static inline int rs_ocl_has_t_kernels(redscan_dtype dtype, redscan_dtype out_dtype)
{
    return dtype != out_dtype || rs_dtype_is_narrow(dtype); /* a narrow input is never T */
}

/* One built program: the kernels of one family for one (input dtype, output dtype, op). */
typedef struct rs_ocl_program {
    rs_ocl_family family;
    redscan_dtype dtype;
    redscan_dtype out_dtype;
    redscan_op op;
    cl_program program;
    struct rs_ocl_program *next;
} rs_ocl_program;

/* clGetKernelSubGroupInfoKHR (cl_khr_subgroups), looked up per platform: the 1.2 headers do not declare it. */
typedef cl_int(CL_API_CALL *rs_ocl_sub_group_info_fn)(cl_kernel kernel, cl_device_id device, cl_uint param_name,
                                                      size_t input_size, const void *input, size_t value_size,
                                                      void *value, size_t *value_size_ret);

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_device_type device_type;
    int has_fp64;
    size_t max_group;       /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    cl_ulong local_mem;     /* CL_DEVICE_LOCAL_MEM_SIZE */
    cl_uint compute_units;  /* used only to size grids, never to change results */
    cl_ulong max_alloc;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    /* Sub-groups (warp_sync / shuffle reductions), read at open from CL_DEVICE_EXTENSIONS and the versions. */
    int has_subgroups;                 /* cl_khr_subgroups */
    int has_subgroup_shuffle_relative; /* cl_khr_subgroup_shuffle_relative */
    char subgroup_std[8];              /* -cl-std of the sub-group program: "CL3.0", "CL2.0" or "" (none) */
    rs_ocl_sub_group_info_fn sub_group_info; /* NULL when the platform does not provide it */
    rs_ocl_program *programs; /* cache: built once per context */
    /* ocl_timing.c: profiling = timing is on (on our own queue: the queue has CL_QUEUE_PROFILING_ENABLE);
     * timing = an operation is being timed, so every enqueue asks for an event (rs_ocl_time_event) and the first
     * and the latest are kept. */
    int profiling, timing;
    /* redscan_create_on_opencl_queue: the queue, its context and device are the caller's (retained, never
     * replaced); queue_profiling = that queue was made with CL_QUEUE_PROFILING_ENABLE. */
    int attached, queue_profiling;
    cl_mem result[2]; /* the blocking calls' result area (values, indices), made on first use */
    cl_event time_first, time_last, time_new;
} rs_ocl;

static inline rs_ocl *rs_ocl_of(redscan_ctx *ctx) { return (rs_ocl *)ctx->impl; }

#define RS_OCL_TRY(expr)                                         \
    do {                                                         \
        redscan_status rs_ocl_try_status_ = (expr);              \
        if (rs_ocl_try_status_ != REDSCAN_OK) return rs_ocl_try_status_; \
    } while (0)

/* Map a cl error code to a status and record "what: CL_ERROR_NAME (code)". */
redscan_status rs_ocl_fail(redscan_ctx *ctx, cl_int err, const char *what);
const char *rs_ocl_error_name(cl_int err);

/* ocl_device.c */
redscan_status rs_ocl_open(redscan_ctx *ctx, rs_ocl *o);   /* honours REDSCAN_OPENCL_DEVICE */
/* The caller's in-order queue, its context and device, retained (redscan_create_on_opencl_queue). */
redscan_status rs_ocl_attach(redscan_ctx *ctx, rs_ocl *o, cl_command_queue queue);
void rs_ocl_close(rs_ocl *o);
/* Sub-group size (CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE) and count (CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE) of
 * kernel in a 1-D group of RS_GROUP work-items; REDSCAN_ERR_UNSUPPORTED (naming `what`) when they cannot be queried. */
redscan_status rs_ocl_kernel_subgroups(redscan_ctx *ctx, cl_kernel kernel, const char *what, size_t *size,
                                       size_t *count);

/* ocl_program.c: the program of `family` for (dtype, out_dtype, op), built on first use (or loaded from the on-disk
 * cache) and kept in o->programs for the context's life. FLOAT64 on a device without fp64 ->
 * REDSCAN_ERR_UNSUPPORTED; build failure -> REDSCAN_ERR_KERNEL_BUILD with the build log in last_error. The sub-group
 * family is built with -cl-std=o->subgroup_std (its built-ins need OpenCL C 2.0 or later); its kernels exist only
 * where the compiler defines the sub-group extension macros (check CL_PROGRAM_KERNEL_NAMES). */
redscan_status rs_ocl_program_get(redscan_ctx *ctx, rs_ocl_family family, redscan_dtype dtype,
                                  redscan_dtype out_dtype, redscan_op op, cl_program *program);
/* Create a kernel by name from a cached program (caller releases it). */
redscan_status rs_ocl_kernel(redscan_ctx *ctx, cl_program program, const char *name, cl_kernel *kernel);
/* The same for a kernel the compiler may have left out (one behind an extension macro, e.g.
 * cl_khr_int64_base_atomics): *kernel = NULL and REDSCAN_OK when the program does not have it. Cached either way. */
redscan_status rs_ocl_kernel_opt(redscan_ctx *ctx, cl_program program, const char *name, cl_kernel *kernel);
/* Enqueue a 1-D launch of groups x RS_GROUP work-items. */
redscan_status rs_ocl_launch(redscan_ctx *ctx, cl_kernel kernel, size_t groups, const char *what);
/* Groups to launch for `tiles` tiles: at most tiles, capped to keep the grid modest. Never affects results. */
size_t rs_ocl_groups_for(const rs_ocl *o, uint64_t tiles);


/* Entry points placed in the rs_backend_ops table (signatures as in api/src/backend.h). They enqueue and return;
 * the only host waits are the blocking transfers and synchronize. */
redscan_status rs_ocl_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t n, void *out,
                             size_t out_offset);
redscan_status rs_ocl_store_empty(redscan_ctx *ctx, redscan_op op, redscan_dtype out_dtype, void *out,
                                  size_t out_offset);
redscan_status rs_ocl_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t n, void *index,
                             void *value);
redscan_status rs_ocl_topk(redscan_ctx *ctx, redscan_dtype dtype, void *in, size_t n, size_t k, int largest,
                           void *values, void *indices);
redscan_status rs_ocl_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, void *out, size_t n);
/* ocl_scan_parts.c (docs/ALGORITHMS.md, "Scan parts") */
redscan_status rs_ocl_scan_section_totals(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off,
                                          size_t n, void *totals);
redscan_status rs_ocl_scan_with_carries(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_off, void *out,
                                        size_t out_off, size_t n, void *carries);
/* ocl_segmented.c (docs/ALGORITHMS.md, "Segments") */
redscan_status rs_ocl_segmented_reduce(redscan_ctx *ctx, const rs_reduce_req *req, void *in, size_t in_n,
                                       redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out);
redscan_status rs_ocl_segmented_argext(redscan_ctx *ctx, redscan_dtype dtype, int want_max, void *in, size_t in_n,
                                       redscan_dtype offsets_dtype, void *offsets, size_t num_segments,
                                       void *indices, void *values);
redscan_status rs_ocl_segmented_scan(redscan_ctx *ctx, const rs_scan_req *req, void *in, size_t in_n,
                                     redscan_dtype offsets_dtype, void *offsets, size_t num_segments, void *out);
redscan_status rs_ocl_scan_by_key(redscan_ctx *ctx, const rs_scan_req *req, redscan_dtype key_dtype, void *keys,
                                  void *in, void *out, size_t n, int wait_ok, int path);
redscan_status rs_ocl_reduce_by_key(redscan_ctx *ctx, const rs_reduce_req *req, redscan_dtype key_dtype, void *keys,
                                    void *in, size_t n, void *unique_keys, void *aggregates, void *runs,
                                    uint64_t *runs_host);
/* After a successful wait: report (once) faulty offsets that segmented calls found since the last report. */
redscan_status rs_ocl_seg_report(redscan_ctx *ctx);
/* Workspace (rs_ocl_reserve): raise need[slot] to the bytes each scratch slot takes in any reduction, argmin/argmax
 * and top-k up to k_max on n elements of dtype (ocl_reduce.c), and in any scan writing out_dtype (ocl_scan.c; the
 * single-pass flags are rs_ocl_single_pass_bytes, ocl_scan_single_pass.c). */
void rs_ocl_select_reserve(const rs_ocl *o, redscan_dtype dtype, uint64_t n, size_t k_max, size_t *need);
void rs_ocl_scan_reserve(redscan_dtype out_dtype, uint64_t n, size_t *need);
/* ... the segmented scan's and scan by key's slots writing out_dtype (ocl_segmented.c) */
void rs_ocl_seg_scan_reserve(redscan_dtype out_dtype, uint64_t n, size_t *need);
/* The scratch slots of the segmented reduction and reduce by key over n elements, results of out_dtype. */
void rs_ocl_seg_reduce_reserve(redscan_dtype out_dtype, uint64_t n, size_t *need);
/* The segmented calls' fault words, made if not made yet (ocl_segmented.c; reserve makes them too). */
redscan_status rs_ocl_seg_words(redscan_ctx *ctx);
size_t rs_ocl_single_pass_bytes(redscan_dtype out_dtype, uint64_t section, uint64_t n);
/* Whether the device lists cl_khr_int64_base_atomics, which single_pass needs (ocl_scan_single_pass.c). */
int rs_ocl_single_pass_available(const rs_ocl *o);
/* ocl_memory.c: the stream-ordered entries of the table: synchronize (clFinish), reserve, and the blocking calls'
 * result area (two small buffers made on first use; result_take is blocking reads of them). */
redscan_status rs_ocl_synchronize(redscan_ctx *ctx, int quiet);
redscan_status rs_ocl_reserve(redscan_ctx *ctx, redscan_dtype dtype, size_t n, size_t k_max);
redscan_status rs_ocl_result_slots(redscan_ctx *ctx, void **values, void **indices);
redscan_status rs_ocl_result_take(redscan_ctx *ctx, void *values, size_t value_bytes, void *indices,
                                  size_t index_bytes, const char *what);
/* ocl_timing.c: the profiling entries of the rs_backend_ops table. Every enqueue of the backend passes
 * rs_ocl_time_event(o) as its event and calls rs_ocl_time_note(o) once it succeeded: outside a timed operation that
 * is NULL (no event is made, as before) and a flag test. */
redscan_status rs_ocl_profiling(redscan_ctx *ctx, int on);
redscan_status rs_ocl_time_begin(redscan_ctx *ctx);
redscan_status rs_ocl_time_end(redscan_ctx *ctx, int ok, double *seconds);
void rs_ocl_time_keep(rs_ocl *o);
void rs_ocl_timing_release(rs_ocl *o); /* shutdown */
static inline cl_event *rs_ocl_time_event(rs_ocl *o) { return o->timing ? &o->time_new : NULL; }
static inline void rs_ocl_time_note(rs_ocl *o)
{
    if (o->timing) rs_ocl_time_keep(o);
}

/* ocl_scan_single_pass.c: the single_pass grid for the block scan whose program is `family`, kernel suffix sfx
 * ("ks", "ksdb", "bk", "coarse") and SECTION; called by rs_ocl_scan. */
redscan_status rs_ocl_scan_single_pass(redscan_ctx *ctx, const rs_scan_req *req, rs_ocl_family family,
                                       const char *sfx, uint64_t section, void *in, void *out, size_t n);

/* ---- additions (ocl_device.c, ocl_program.c, ocl_memory.c, ocl_backend.c) ---- */

/* ocl_device.c: whether any OpenCL platform has a device; *reason (static text) when not. */
redscan_status rs_ocl_probe(const char **reason);

/* ocl_program.c: the status a cl error maps to (allocation failures -> OUT_OF_MEMORY, ...), without
 * recording anything; rs_ocl_fail uses it. */
redscan_status rs_ocl_status(cl_int err);
/* Release every cached program and kernel of o (shutdown). */
void rs_ocl_programs_release(rs_ocl *o);

/* ocl_memory.c: the buffer functions of the rs_backend_ops table (handle = cl_mem; 0 bytes allowed). */
redscan_status rs_ocl_buffer_create(redscan_ctx *ctx, size_t bytes, void **handle);
void rs_ocl_buffer_destroy(redscan_ctx *ctx, void *handle);
redscan_status rs_ocl_buffer_write(redscan_ctx *ctx, void *handle, size_t offset, const void *src, size_t bytes);
redscan_status rs_ocl_buffer_read(redscan_ctx *ctx, void *handle, size_t offset, void *dst, size_t bytes);
/* `count` (<= RS_OCL_SPLIT_MAX) distinct scratch buffers of at least bytes[i] each, e.g. the ping-pong
 * partial arrays of a multi-pass reduction: part i is the context's grow-only scratch slot i (no slot is
 * any other), retained for the caller, who releases the parts when the call is done (on failure every part is
 * NULL: nothing to release). Separate buffers, not
 * sub-buffers of one: on NVIDIA's OpenCL, launches on sub-buffers measured up to 1.7x slower (reduce) and
 * 30x slower (top-k, k = 256) at n = 2^28 on an H100. */
#define RS_OCL_SPLIT_MAX 8
redscan_status rs_ocl_scratch_split(redscan_ctx *ctx, size_t count, const size_t *bytes, cl_mem *parts);
/* Release the scratch slots and the result area (shutdown). */
void rs_ocl_scratch_release(rs_ocl *o);

/* The backend state as ocl_backend.c allocates it: rs_ocl first, then what the additions need. Every
 * OpenCL context's impl is one of these, so the cast in rs_ocl_full_of is valid. */
typedef struct {
    rs_ocl base;
    cl_mem slot[RS_OCL_SPLIT_MAX]; /* rs_ocl_scratch_split */
    size_t slot_bytes[RS_OCL_SPLIT_MAX];
    struct rs_ocl_disk_cache *disk_cache; /* ocl_cache.c; NULL only when out of host memory */
    int shape; /* rs_ocl_shape, from REDSCAN_OPENCL_SHAPE (ocl_shape.c) */
    /* ocl_segmented.c: the segment fault words (RS_SEG_FLAG_WORDS uint, made on first use); seg_pending = a
     * segmented call was enqueued since synchronize last read them. */
    cl_mem seg_flags;  /* one uint: this call's faults */
    cl_mem seg_sticky; /* two uint: faults since the last report, their smallest faulty index */
    int seg_pending;
} rs_ocl_full;
static inline rs_ocl_full *rs_ocl_full_of(rs_ocl *o) { return (rs_ocl_full *)o; }

/* ---- ocl_shape.c: kernel shapes (docs/ALGORITHMS.md, "CPU shape"): the same bits laid onto the device as
 * work-groups of 256 (GPU shape) or as work-groups of one work-item over long runs of tiles (CPU shape). ---- */
typedef enum { RS_OCL_SHAPE_AUTO = 0, RS_OCL_SHAPE_GPU, RS_OCL_SHAPE_CPU } rs_ocl_shape;
/* REDSCAN_OPENCL_SHAPE (auto|gpu|cpu, any case; unset = auto); anything else is REDSCAN_ERR_INVALID_ARGUMENT. */
redscan_status rs_ocl_shape_from_env(redscan_ctx *ctx, rs_ocl_shape *shape);
/* After the device is open: REDSCAN_OPENCL_SHAPE=cpu on a device that is not CL_DEVICE_TYPE_CPU is refused
 * (REDSCAN_ERR_UNSUPPORTED), see ocl_shape.c. */
redscan_status rs_ocl_shape_check(redscan_ctx *ctx, rs_ocl *o);
/* Whether the algorithms that have a CPU shape use it: forced by the variable, else on CL_DEVICE_TYPE_CPU. */
int rs_ocl_cpu_shape(rs_ocl *o);
/* Work-items for `units` tiles or sections, each taking a contiguous run of *per of them (never changes a result). */
size_t rs_ocl_cpu_items(const rs_ocl *o, uint64_t units, uint64_t *per);
/* Enqueue `items` work-groups of one work-item (kernels with reqd_work_group_size(1, 1, 1)). */
redscan_status rs_ocl_launch_items(redscan_ctx *ctx, cl_kernel kernel, size_t items, const char *what);

/* ---- ocl_cache.c: on-disk cache of built programs (docs/CACHE.md). Never fails a call: every problem is a miss,
 * and a directory that cannot be made or written turns the cache off for the context (the stats say why). ---- */
typedef struct rs_ocl_disk_cache rs_ocl_disk_cache;
/* Read the directory and the key lines common to the context (after rs_ocl_open); ctx->program_cache_off is
 * REDSCAN_CACHE=0. */
void rs_ocl_cache_open(redscan_ctx *ctx, rs_ocl *o);
void rs_ocl_cache_close(rs_ocl *o); /* shutdown */
/* The per-program part of a key: the source's SHA-256 and the build options. use = 0: no caching for it. */
typedef struct {
    int use;
    char source_sha256[65];
    char options[256];
} rs_ocl_cache_key;
void rs_ocl_cache_key_init(rs_ocl *o, const char *source, const char *options, rs_ocl_cache_key *key);
/* 1 with *program built from a valid entry; 0 (a miss) otherwise: build from source, then rs_ocl_cache_store. */
int rs_ocl_cache_load(rs_ocl *o, const rs_ocl_cache_key *key, cl_program *program);
void rs_ocl_cache_store(rs_ocl *o, const rs_ocl_cache_key *key, cl_program program);
/* The cache_stats entry of the rs_backend_ops table. */
void rs_ocl_cache_stats(redscan_ctx *ctx, redscan_cache_stats *stats);

/* ocl_hash.c: SHA-256 of data as 64 lowercase hex digits; FNV-1a 64 continued from state (start: RS_FNV1A64_INIT). */
void rs_sha256_hex(const void *data, size_t bytes, char hex[65]);
#define RS_FNV1A64_INIT 0xcbf29ce484222325ull
uint64_t rs_fnv1a64(uint64_t state, const void *data, size_t bytes);

#endif /* REDSCAN_OCL_INTERNAL_H */
