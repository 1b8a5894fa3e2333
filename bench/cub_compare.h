/* redscan bench: the CUDA side of the benchmark (bench/cub_compare.cu), callable from C.
 *
 * Built into the `redscan` tool only when CUDA is found (REDSCAN_BENCH_CUDA). It owns device memory allocated with
 * cudaMalloc, times device-to-device copies and CUB's device-wide reductions and scans with CUDA events, and
 * reports failures as text, never by aborting. The tool runs redscan on the same memory through
 * redscan_buffer_wrap_cuda when the backend is CUDA.
 *
 * Every function returns 0 on success, else non-zero with a message in err (err_len bytes, NUL-terminated). */
#ifndef REDSCAN_BENCH_CUB_COMPARE_H
#define REDSCAN_BENCH_CUB_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[256];         /* cudaDeviceProp::name */
    int ordinal;            /* the device used */
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    size_t l2_bytes;        /* cudaDeviceProp::l2CacheSize */
    size_t mem_total, mem_free;
    int runtime_version, driver_version;
} rsb_cuda_info;

/* Select CUDA device `ordinal` for the calls below and describe it. Fails with the CUDA error text when there is
 * no driver or no such device. */
int rsb_cuda_open(int ordinal, rsb_cuda_info *info, char *err, size_t err_len);
/* Release the stream and events of rsb_cuda_open (memory from rsb_cuda_alloc must be freed first). */
void rsb_cuda_close(void);

/* cudaMalloc / cudaFree / blocking copies between host and device. rsb_cuda_alloc returns NULL on failure. */
void *rsb_cuda_alloc(size_t bytes, char *err, size_t err_len);
void rsb_cuda_free(void *ptr);
int rsb_cuda_upload(void *dst, const void *src, size_t bytes, char *err, size_t err_len);
int rsb_cuda_download(void *dst, const void *src, size_t bytes, char *err, size_t err_len);

/* Timings of one benchmark case: medians and minima over the timed runs, in milliseconds. */
typedef struct {
    double ev_median_ms, ev_min_ms;     /* CUDA events around the call on the helper's stream: device time */
    double host_median_ms, host_min_ms; /* host steady clock around call + (reductions) result to host + sync */
    int reps;
    size_t temp_bytes;       /* CUB temporary storage */
    unsigned char value[8];  /* reduce / argmax: the result of the warm-up run (one element of dtype) */
    int64_t index;           /* argmax: the index of the warm-up run */
    int reproducible;        /* 1 when every timed run gave the warm-up's bits (reductions, argmax; scans: the
                                last element of the last run's output) */
} rsb_cuda_timing;

/* Device-to-device copy of `bytes` from src[i] to dst[i], i cycling over nbuf buffers: one warm-up copy, then
 * `reps` timed cudaMemcpyAsync calls. */
int rsb_cuda_time_copy(void *const *dst, void *const *src, int nbuf, size_t bytes, int reps, rsb_cuda_timing *t,
                       char *err, size_t err_len);

/* Kinds of CUB case. op and dtype take redscan_op / redscan_dtype values. */
enum { RSB_CUB_REDUCE = 0, RSB_CUB_SCAN = 1, RSB_CUB_ARGMAX = 2 };

typedef struct {
    int kind;
    int op;
    int dtype;
    int exclusive;     /* scans */
    size_t n;
    int nbuf;          /* rotation: run r uses in[r % nbuf], out[r % nbuf] (the warm-up uses buffer 0) */
    void *const *in;   /* nbuf device pointers of n elements */
    void *const *out;  /* scans: nbuf device pointers of n elements; else unused */
    int reps;
} rsb_cub_case;

/* 1 when CUB is wired up for (kind, op, dtype) in this build, else 0. */
int rsb_cub_supported(int kind, int op, int dtype);
/* The CUB call's name for the tables, e.g. "cub::DeviceReduce::Sum". */
const char *rsb_cub_call_name(int kind, int op, int exclusive);

/* One warm-up run on buffer 0 (reductions and argmax: result into t->value / t->index; scans: left in out[0]),
 * then `reps` runs timed with CUDA events, then `reps` runs timed with the host clock. */
int rsb_cub_run(const rsb_cub_case *c, rsb_cuda_timing *t, char *err, size_t err_len);

/* ---- pipelined (latency) mode: `redscan bench --async` (tools/bench_async.c) ---- */

/* Device time between two points of a stream the caller owns (redscan's context stream, from
 * redscan_native_handle(REDSCAN_NATIVE_CUDA_STREAM)): rsb_stream_mark(stream, 0) before the first enqueued call,
 * rsb_stream_mark(stream, 1) after the last, then rsb_stream_elapsed_ms waits for the second mark and returns the
 * milliseconds between the two. Two events of their own, apart from the ones rsb_cub_run uses. */
int rsb_stream_mark(void *stream, int stop, char *err, size_t err_len);
int rsb_stream_elapsed_ms(double *ms, char *err, size_t err_len);

typedef struct {
    int kind;          /* RSB_CUB_REDUCE, RSB_CUB_SCAN or RSB_CUB_ARGMAX */
    int op, dtype;     /* redscan_op / redscan_dtype values */
    int exclusive;     /* scans */
    size_t n;          /* 1 <= n <= 2^31-1 */
    const void *in;    /* n elements on the device (the caller's CUDA memory) */
    int calls;         /* calls back to back per timed loop */
    int loops;         /* timed loops; medians over them */
    int warmup;        /* untimed calls first (the first one is the one-time setup a pipeline pays once) */
} rsb_cub_pipe_case;

typedef struct {
    /* per call = a loop's time / calls; medians and minima over the loops, in milliseconds */
    double ev_median_ms, ev_min_ms;     /* CUDA events before the first call and after the last one */
    double host_median_ms, host_min_ms; /* host steady clock around the loop and its one cudaStreamSynchronize */
    size_t temp_bytes;                  /* CUB temporary storage, allocated once before the loops */
    unsigned char value[8];             /* the last call's result: reduction value, argmax value, scan's last
                                           element (one element of dtype) */
    int64_t index;                      /* argmax: the last call's index */
    int consistent;                     /* reductions: every call's result slot has the same bits */
} rsb_cub_pipe_timing;

/* CUB in the pipelined mode: temporary storage and outputs allocated once, then per loop `calls` CUB calls back to
 * back on the helper's stream with one cudaStreamSynchronize at the end. Reductions write call i's result to
 * element i of a result array (nothing is read back between calls); scans write one output array; argmax one
 * value and one index. */
int rsb_cub_pipelined(const rsb_cub_pipe_case *c, rsb_cub_pipe_timing *t, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* REDSCAN_BENCH_CUB_COMPARE_H */
