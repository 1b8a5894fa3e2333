/* redscan bench: declarations of tools/bench_data.c (inputs and checks) and tools/bench_ref.c (host loops, OpenMP
 * loops, OpenCL copy on a separate context), used by the sweep (bench_run.h). Not part of the library. */
#ifndef REDSCAN_BENCH_INTERNAL_H
#define REDSCAN_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "redscan.h"

/* Medians and minima of timed runs, in seconds; 0 = not measured. dev_*: a device clock (CUDA events, OpenCL
 * profiling events); host_*: the host's monotonic clock around the call and its wait. */
typedef struct {
    double dev_med_s, dev_min_s, host_med_s, host_min_s;
} bench_times;

/* ------------------------------------------------------------------ inputs and checks (bench_data.c) */

int bd_is_float(redscan_dtype dt);
int bd_is_signed_int(redscan_dtype dt);

/* Deterministic inputs for (dt, n): gen for sum/min/max/argmax/top-2, prod (may be NULL) for products. */
void bd_generate(redscan_dtype dt, size_t n, void *gen, void *prod);

/* Compensated (Neumaier) long double accumulator for float sums. */
typedef struct {
    long double s, c, abs;
} bd_ksum;

/* Reference state of a running reduction / scan. */
typedef struct {
    redscan_op op;
    redscan_dtype dt;
    uint64_t u;     /* integers */
    bd_ksum k;      /* float sums */
    long double p;  /* float prod */
    long double m;  /* float min/max */
    size_t count;
} bd_ref;

void bd_ref_init(bd_ref *r, redscan_op op, redscan_dtype dt);
void bd_ref_add(bd_ref *r, const void *data, size_t i);
/* Reference of the whole array. */
void bd_ref_reduce(bd_ref *r, redscan_op op, redscan_dtype dt, const void *data, size_t n);
/* 1 when element i of p is within the tolerance of the state; else 0, got/want describe the mismatch. */
int bd_ref_check(const bd_ref *r, const void *p, size_t i, char *got, char *want, size_t len);
/* Checks a whole scan output. Returns the number of wrong elements; the first is described in detail. */
size_t bd_check_scan(redscan_op op, redscan_dtype dt, int exclusive, const void *in, const void *out, size_t n,
                     char *detail, size_t len);

/* argmax / top-2 under the library's order (larger first, ties to the lower index; the data hold no NaN). */
size_t bd_argmax(const void *data, redscan_dtype dt, size_t n);
void bd_top2(const void *data, redscan_dtype dt, size_t n, size_t idx[2]);
int bd_same_element(const void *data, size_t i, const void *val, redscan_dtype dt);

/* A 64-bit hash of bytes (a check that two outputs are the same bits). */
uint64_t bd_hash(const void *p, size_t bytes);

/* ------------------------------------------------------------------ host references (bench_ref.c) */

/* Plain C loops, one accumulator, in index order, as the compiler gives them (no fast-math); integer sums and
 * products wrap. result / out: elements of dt. */
void br_reduce(redscan_op op, redscan_dtype dt, const void *in, size_t n, void *result);
/* Sum with eight independent accumulators (what a careful C programmer writes). */
void br_reduce_sum8(redscan_dtype dt, const void *in, size_t n, void *result);
void br_scan(redscan_op op, redscan_dtype dt, int exclusive, const void *in, void *out, size_t n);
size_t br_argmax(redscan_dtype dt, const void *in, size_t n);
void br_top2(redscan_dtype dt, const void *in, size_t n, size_t idx[2]);

/* Memory-bound loops over bytes (a multiple of 8), OpenMP-parallel when the tool was built with OpenMP. */
uint64_t br_omp_read(const void *in, size_t bytes);
void br_omp_copy(void *dst, const void *src, size_t bytes);
int br_omp_threads(void); /* 0 when built without OpenMP */

/* An OpenCL context of its own on the device that the library's context uses (matched by its name, which the
 * library formats as "<platform name> / <device name>"); the library's own context is private. */
typedef struct br_ocl br_ocl;
typedef struct {
    char name[600];
    uint64_t global_mem, max_alloc, cache_bytes;
    int is_cpu;
} br_ocl_info;
int br_ocl_open(const char *redscan_device_name, br_ocl **ocl, br_ocl_info *info, char *err, size_t len);
void br_ocl_close(br_ocl *ocl);
/* clEnqueueCopyBuffer of `bytes` between two buffers of its own, cycling over nbuf regions: one warm-up copy, reps
 * copies each timed with the host clock around enqueue + clFinish on a plain queue, then (when the device can
 * profile) one warm-up and reps copies timed by their profiling events (COMMAND_START to COMMAND_END) on a second
 * queue made with CL_QUEUE_PROFILING_ENABLE; t->dev_* stay 0 without it. */
int br_ocl_time_copy(br_ocl *ocl, size_t bytes, int nbuf, int reps, bench_times *t, char *err, size_t len);

#endif /* REDSCAN_BENCH_INTERNAL_H */
