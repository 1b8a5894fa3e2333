/* redscan bench: the types the sweep's files share.
 *
 *   bench.c         setup, the header of the run, the sweep over n x dtype, the summary
 *   bench_opts.c    command-line options and default sizes
 *   bench_report.c  one row: the table line, the CSV line, the counts; the progress line
 *   bench_dset.c    the data of one (n, dtype): host inputs, device buffers and their rotation, references
 *   bench_cases.c   redscan's cases: warm-up, check, timing with both clocks
 *   bench_rows.c    the reference rows: device copy, CUB, C and OpenMP loops
 *   bench_async.c   --async: per-call latency of back-to-back stream-ordered calls, blocking calls, CUB pipelined
 * bench_internal.h has the inputs and checks (bench_data.c) and the host / OpenCL references (bench_ref.c). */
#ifndef REDSCAN_BENCH_RUN_H
#define REDSCAN_BENCH_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "bench_internal.h"
#include "redscan.h"

#define MAX_SIZES 64
#define NBUF_MAX 1024
#define DETAIL_MAX 2048
#define MAX_REPS 1000
/* Without --reps on a CPU device, a timing phase stops after 3 runs once its runs passed this many seconds. */
#define CASE_BUDGET_S 2.0
#define DEFAULT_L2_MIB 50.0

/* ------------------------------------------------------------------ options (bench_opts.c) */

typedef struct {
    redscan_backend backend;
    size_t sizes[MAX_SIZES];
    int nsizes;
    int sizes_given;
    int full;
    int reps;
    int reps_given;
    unsigned dtype_mask; /* bit dtype: run it */
    unsigned op_mask;    /* bits 0-3: redscan_op, bit OP_ARGMAX, bit OP_TOP2 */
    int quick;
    /* No option chose cases or sizes: the headline run (sum, scan, argmax, top-2 of int32 and float32 with the
     * AUTO algorithms at one size that shows bandwidth, next to the references); the sweep is --full or any of
     * --sizes, --quick, --dtypes, --ops, --algos, --scan-only, --reduce-only. */
    int headline;
    const char *csv_path;
    int do_reduce;
    int do_scan;
    int compare_cub;
    int host_refs; /* -1: on a CPU device; 0 / 1 forced */
    double l2_mib; /* 0: default */
    int rotate;
    int exclusive;
    const char *algos; /* --algos: comma-separated algorithm names to run, NULL: all */
    int dtypes_given, ops_given;
    int async; /* --async: the latency mode (bench_async.c) instead of the sweep */
    int calls; /* --calls: back-to-back calls per timed loop in --async; 0: by size (async_calls) */
} bench_opts;

#define OP_ARGMAX 4
#define OP_TOP2 5
#define MAX_CALLS 100000

/* Returns -1 when the options are fine, else the exit status (usage printed). */
int bench_parse_opts(int argc, char **argv, bench_opts *o);
/* Default sizes once the device is known; returns why they were chosen. */
const char *bench_default_sizes(bench_opts *o, int is_cpu);
int bench_op_on(const bench_opts *o, int op);
/* 1 when --algos lets the case with this algorithm name run. */
int bench_algo_selected(const bench_opts *o, const char *algo);

/* ------------------------------------------------------------------ rows (bench_report.c) */

enum { R_FAIL = 0, R_PASS = 1, R_UNSUP = 2, R_ERROR = 3, R_REF = 4, R_SKIP = 5 };

typedef enum { CASE_REDUCE = 0, CASE_SCAN = 1, CASE_ARGMAX = 2, CASE_TOP2 = 3 } case_kind;

typedef struct {
    FILE *csv;
    int tty;
    double t_start;
    int rows, passed, failed, unsupported, skipped, ref_failed;
    int done, total;
    /* (algorithm, reason) pairs reported unsupported: each printed once, then counted */
    struct {
        char algo[48];
        char reason[200];
        int count;
    } unsup[64];
    int nunsup;

    /* the run's environment */
    redscan_ctx *ctx;
    const char *backend;
    int is_cpu;     /* 1 CPU device, 0 not, -1 unknown */
    int is_cuda;    /* the library's backend is CUDA */
    int dev_timing; /* redscan_set_profiling works here: redscan's cases are timed with device events too */
    int cuda_ok;    /* bench/cub_compare.cu opened a CUDA device */
    int cub;        /* --compare cub */
    int wrap;       /* redscan runs on CUB's memory */
    br_ocl *ocl;    /* separate OpenCL context on the library's device */
    int host_refs;
    int reps_cpu_budget; /* a timing phase past CASE_BUDGET_S stops after 3 runs */
    double l2_bytes;
    int rotate;
    uint64_t dev_mem, dev_max_alloc, host_mem;
    double copy_peak_gbs;
    const char *copy_peak_src;
} bench_state;

/* One row. Two clocks: the primary one named by `timing` (device events where the row has them, else the host
 * clock) gives median_ms, GB/s, %copy and vs_ref; the host clock around the call (what a caller waits) gives
 * host_ms and its own ratio. A time of 0 means "not measured". */
typedef struct {
    const char *kind; /* "ours" or "ref" */
    const char *op;
    const char *dtype;
    const char *algo;
    size_t n;
    double bytes; /* counted for GB/s */
    int nbuf, reps;
    bench_times t;
    const char *timing; /* the primary clock: device_events, cuda_events, opencl_events or host_clock */
    int result;
    double copy_n_gbs;   /* the device copy at the same byte count, 0 unknown */
    const char *ref;     /* reference of the ratios, NULL none */
    double ref_gbs;      /* the reference's primary GB/s */
    double ref_host_gbs; /* the reference's host-clock GB/s */
    const char *detail;
} row_t;

double bench_now(void);
/* Sorts v; returns the median (v[0] is then the minimum). */
double bench_median(double *v, int n);
/* GB/s of the primary clock / of the host clock; 0 without a time. */
double row_gbs(const row_t *r);
double row_host_gbs(const row_t *r);
void bench_report(bench_state *st, const row_t *r);
/* The bookkeeping of bench_report without its table line (for tables of another shape): counts the row and writes
 * its CSV line. Returns 0 when the row is not to be printed (an unsupported case whose reason was printed once),
 * else 1 with *detail the detail to print (NULL: its reason was printed with an earlier row). */
int bench_record(bench_state *st, const row_t *r, const char **detail);
void bench_progress(bench_state *st, int counts, const char *op, const char *dtype, const char *algo, size_t n);
void bench_progress_clear(bench_state *st);
void bench_status_detail(redscan_ctx *ctx, redscan_status s, char *detail);
void bench_csv_header(FILE *f);
void bench_table_header(void);

/* ------------------------------------------------------------------ data of one (n, dtype) (bench_dset.c) */

#define MAX_OK_HASH 16

/* A reference's speed at these (n, dtype): primary and host-clock GB/s; 0 when not measured. */
typedef struct {
    double gbs, host_gbs;
} ref_speed;

typedef struct {
    redscan_dtype dt;
    const char *dtname;
    size_t n, sz, bytes, stride;
    int nbuf;
    int need_prd, need_out;
    void *gen, *prd, *hout;                /* host: input, product input, scan output scratch */
    redscan_buffer **dgen, **dprd, **dout; /* redscan buffers, nbuf each (NULL when unused) */
    void *cgen, *cprd, *cout;              /* CUDA regions of nbuf * stride bytes (CUB; redscan too when wrapped) */
    unsigned char *rgen, *rprd, *rout;     /* host rotation copies for the C loops */
    bd_ref red_ref[4];
    int have_red_ref[4];
    int have_argmax, have_top2;
    size_t argmax_ref, top2_ref[2];
    uint64_t ok_hash[4][MAX_OK_HASH]; /* scan outputs already verified, per op */
    int n_ok_hash[4];
    double copy_gbs;     /* the backend's device copy at these bytes */
    ref_speed cub[4][4];  /* [case kind][op] */
    ref_speed loop[4][4]; /* [case kind][op]: plain C loop */
} dset;

const bd_ref *dset_red_ref(dset *d, redscan_op op);
size_t dset_argmax_ref(dset *d);
const size_t *dset_top2_ref(dset *d);
/* Verify the scan output now in d->hout: R_PASS or R_FAIL with the detail. */
int dset_verify_scan_output(dset *d, redscan_op op, int exclusive, char *detail);
/* Sets up d's sizes for (dt, n) and the rotation; allocates nothing. */
void dset_init(const bench_state *st, const bench_opts *o, dset *d, redscan_dtype dt, size_t n);
/* 0 when d fits in device and host memory, else 1 with the reason. */
int dset_fits(const bench_state *st, const dset *d, char *why, size_t len);
/* Allocate and fill everything of d. Returns 0, or 1 with a message (oom: an allocation failed). */
int dset_alloc(bench_state *st, dset *d, char *detail, int *oom);
void dset_free(bench_state *st, dset *d);

/* ------------------------------------------------------------------ redscan's cases (bench_cases.c) */

typedef struct {
    case_kind kind;
    redscan_op op;
    redscan_dtype dt;
    int exclusive;
    redscan_reduce_algo ralgo;
    redscan_block_scan block;
    redscan_grid_scan grid;
    const redscan_buffer *in;
    redscan_buffer *out;
    size_t n;
    /* results of the last run */
    unsigned char value[8];
    uint64_t idx[2];
    unsigned char vals[16];
} bench_case;

/* Warm up, verify, time one case with both clocks and print its row. Returns the status of the first call. */
redscan_status bench_ours(bench_state *st, const bench_opts *o, dset *d, bench_case *c, const char *opname,
                          const char *algo);

/* ------------------------------------------------------------------ reference rows (bench_rows.c) */

/* A device copy of bytes with nbuf rotation: through CUDA (use_cuda) or the bench's own OpenCL context. Prints its
 * row; returns its primary GB/s (read + write), 0 when unavailable. d: CUB's buffers to copy between, or NULL. */
double bench_device_copy(bench_state *st, int use_cuda, dset *d, size_t bytes, int nbuf, int reps, const char *op,
                         const char *dtname, size_t n);
/* OpenMP read and copy loops over the host rotation (the CPU's memory ceilings). */
void bench_omp_rows(bench_state *st, const bench_opts *o, dset *d);
/* Plain C loop of a case over the host rotation; variant 1: the eight-accumulator sum. */
void bench_loop_row(bench_state *st, const bench_opts *o, dset *d, case_kind kind, redscan_op op, const char *opname,
                    int variant);
/* CUB on the CUDA memory of d (builds with CUDA and --compare cub; else nothing). */
void bench_cub_row(bench_state *st, const bench_opts *o, dset *d, case_kind kind, redscan_op op, const char *opname);
/* The copy peak of the run (and the OpenMP copy on a CPU device); sets st->copy_peak_gbs / copy_peak_src. */
void bench_copy_peak(bench_state *st, const bench_opts *o, size_t peak_bytes);

/* ------------------------------------------------------------------ --async (bench_async.c) */

/* The latency mode on the run's context (st set up by cli_bench: context, CUDA helper, CSV): per size x dtype x op,
 * the per-call time of back-to-back _async calls with one redscan_synchronize, of the blocking calls, and (with
 * --compare cub) of CUB in the same pipelined form. Prints its own header and table; returns the exit status. */
int bench_async(bench_state *st, const bench_opts *o, const char *device);
/* Back-to-back calls per timed loop at n (--calls, else 200 up to 2^16, 100 up to 2^22, 20 above). */
int async_calls(const bench_opts *o, size_t n);

#endif /* REDSCAN_BENCH_RUN_H */
