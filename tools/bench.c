/* redscan bench: one run measures every operation x dtype x algorithm x n on the selected backend, next to
 * references measured in the same process, and checks every result.
 *
 * Timing. The library's calls block until their device work is done (reductions, argmax and top-k return their
 * result in host memory), so a monotonic host clock around each call is the honest measure the public API
 * offers: it includes the launches and the final synchronisation, as a caller sees them. Where a backend returns
 * from a scan once its work is queued (OpenCL today), each timed scan also reads back its last element (a
 * blocking read ordered after the scan), and the latency of that read alone is printed. Each case: one warm-up
 * call checked against a host reference, one more warm-up, then the median of N timed calls (default 20 on a
 * GPU; on a CPU device 10, a case past 2 s stopping after 3). Every timed call's result (scans: the last element)
 * must have the warm-up's bits.
 *
 * Rotation. When n*size is small enough that repeated runs would read from the cache, the inputs (and scan
 * outputs) cycle over as many identical buffers as make the working set at least twice the L2 size (50 MiB, an
 * H100's L2, or the device's own when larger; at most 1024 buffers).
 *
 * References, same run, same rotation: the device's copy bandwidth (CUDA: cudaMemcpyAsync device to device timed
 * with CUDA events; OpenCL: clEnqueueCopyBuffer on a separate context on the same device, host clock around
 * enqueue + clFinish); with --compare cub, CUB's reductions and scans on the same device memory (CUDA backend:
 * redscan runs on CUB's buffers through redscan_buffer_wrap_cuda), timed with CUDA events and, as cub_hostclk,
 * with the host clock; on a CPU device, plain C loops and OpenMP read / copy loops.
 *
 * GB/s: reduce, argmax, top-2 count n*size bytes read; scan and copy count 2*n*size (read + write). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_internal.h"
#include "cli.h"
#include "redscan.h"

#ifdef REDSCAN_BENCH_CUDA
#include "cub_compare.h"
#endif

/* ------------------------------------------------------------------------------------------- options */

#define MAX_SIZES 64
#define NBUF_MAX 1024
#define DETAIL_MAX 2048
#define MAX_REPS 1000
/* Without --reps on a CPU device, a case stops timing after 3 runs once its timed runs passed this many seconds. */
#define CASE_BUDGET_S 2.0
#define DEFAULT_L2_MIB 50.0

typedef struct {
    redscan_backend backend;
    size_t sizes[MAX_SIZES];
    int nsizes;
    int sizes_given;
    int full;
    int reps;
    int reps_given;
    unsigned dtype_mask; /* bit dtype: run it */
    unsigned op_mask;    /* bits 0-3: redscan_op, bit 4 argmax, bit 5 top-2 */
    int quick;
    const char *csv_path;
    int do_reduce;
    int do_scan;
    int compare_cub;
    int host_refs; /* -1: on a CPU device; 0 / 1 forced */
    double l2_mib; /* 0: default */
    int rotate;
    int exclusive;
} bench_opts;

#define OP_ARGMAX 4
#define OP_TOP2 5
static const char *const k_op_names[] = {"sum", "prod", "min", "max", "argmax", "top2"};
static const char *const k_dtype_names[] = {"", "int32", "uint32", "int64", "uint64", "float32", "float64"};

/* Comma-separated names of table[0..count) -> bit mask; 0 on an unknown name. */
static unsigned parse_name_list(const char *list, const char *const *table, int count)
{
    unsigned mask = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int i = 0; i < count; ++i)
            if (table[i][0] && strlen(table[i]) == len && !strncmp(p, table[i], len)) {
                mask |= 1u << i;
                found = 1;
            }
        if (!found)
            return 0;
        p += len;
        if (*p == ',')
            ++p;
    }
    return mask;
}

static int bench_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "redscan bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n");
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
}

/* "65536", "64k", "1M", "1G" (powers of two), "2^20". Returns 0 on error. */
static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    if (!*s || *s == '-' || *s == '+')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    if (*end == '^') {
        if (v != 2)
            return 0;
        const char *e = end + 1;
        if (!*e || *e == '-' || *e == '+')
            return 0;
        unsigned long long p = strtoull(e, &end, 10);
        if (*end || p > 62)
            return 0;
        v = 1ull << p;
    } else if (*end) {
        unsigned shift = 0;
        switch (*end) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: return 0;
        }
        if (end[1])
            return 0;
        if (v > (ULLONG_MAX >> shift))
            return 0;
        v <<= shift;
    }
    if (v == 0 || v > (unsigned long long)(SIZE_MAX / 16))
        return 0;
    *out = (size_t)v;
    return 1;
}

/* A comma-separated list of sizes and ranges "A..B": every power of two from the first >= A up to B. */
static int parse_sizes(const char *list, bench_opts *o)
{
    char buf[1024];
    if (strlen(list) >= sizeof buf)
        return 0;
    strcpy(buf, list);
    o->nsizes = 0;
    for (char *tok = buf;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        char *dots = strstr(tok, "..");
        if (dots) {
            size_t a, b;
            *dots = '\0';
            if (!parse_size(tok, &a) || !parse_size(dots + 2, &b) || a > b)
                return 0;
            size_t p = 1;
            while (p < a)
                p <<= 1;
            for (; p <= b; p <<= 1) {
                if (o->nsizes >= MAX_SIZES)
                    return 0;
                o->sizes[o->nsizes++] = p;
                if (p > SIZE_MAX / 4)
                    break;
            }
        } else {
            if (o->nsizes >= MAX_SIZES || !parse_size(tok, &o->sizes[o->nsizes]))
                return 0;
            o->nsizes++;
        }
        if (!comma)
            break;
        tok = comma + 1;
    }
    return o->nsizes > 0;
}

/* Returns -1 when the options are fine, else the exit status. */
static int parse_opts(int argc, char **argv, bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype_mask = 0x7Eu; /* dtypes 1..6 */
    o->op_mask = 0x3Fu;
    o->backend = REDSCAN_BACKEND_AUTO;
    o->reps = 20;
    o->do_reduce = o->do_scan = 1;
    o->host_refs = -1;
    o->rotate = 1;
    int scan_only = 0, reduce_only = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *val = NULL;
        /* --opt VALUE or --opt=VALUE */
        const char *eq = strchr(a, '=');
        char name[64];
        if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        int takes_value = !strcmp(name, "--backend") || !strcmp(name, "--sizes") || !strcmp(name, "--reps") ||
                          !strcmp(name, "--csv") || !strcmp(name, "--dtypes") || !strcmp(name, "--ops") ||
                          !strcmp(name, "--compare") || !strcmp(name, "--l2-mb");
        if (takes_value && !val) {
            if (i + 1 >= argc)
                return bench_usage_error("option %s needs a value", name);
            val = argv[++i];
        } else if (!takes_value && val) {
            return bench_usage_error("option %s takes no value", name);
        }
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            cli_usage(stdout);
            return 0;
        } else if (!strcmp(name, "--backend")) {
            if (!strcmp(val, "auto"))
                o->backend = REDSCAN_BACKEND_AUTO;
            else if (!strcmp(val, "cuda"))
                o->backend = REDSCAN_BACKEND_CUDA;
            else if (!strcmp(val, "opencl"))
                o->backend = REDSCAN_BACKEND_OPENCL;
            else
                return bench_usage_error("--backend: '%s' is not one of auto, cuda, opencl", val);
        } else if (!strcmp(name, "--sizes")) {
            if (!parse_sizes(val, o))
                return bench_usage_error("--sizes: cannot parse '%s' (comma-separated positive counts such as "
                                         "65536,1M,2^24, or ranges of powers of two such as 2^10..2^28; at most 64)",
                                         val);
            o->sizes_given = 1;
        } else if (!strcmp(name, "--full")) {
            o->full = 1;
        } else if (!strcmp(name, "--reps")) {
            char *end = NULL;
            errno = 0;
            long r = strtol(val, &end, 10);
            if (errno || end == val || *end || r < 1 || r > MAX_REPS)
                return bench_usage_error("--reps: '%s' is not a count between 1 and 1000", val);
            o->reps = (int)r;
            o->reps_given = 1;
        } else if (!strcmp(name, "--csv")) {
            if (!*val)
                return bench_usage_error("--csv needs a file name%s", "");
            o->csv_path = val;
        } else if (!strcmp(name, "--dtypes")) {
            o->dtype_mask = parse_name_list(val, k_dtype_names, 7);
            if (!o->dtype_mask)
                return bench_usage_error("--dtypes: '%s' is not a list of int32, uint32, int64, uint64, float32, "
                                         "float64",
                                         val);
        } else if (!strcmp(name, "--ops")) {
            o->op_mask = parse_name_list(val, k_op_names, 6);
            if (!o->op_mask)
                return bench_usage_error("--ops: '%s' is not a list of sum, prod, min, max, argmax, top2", val);
        } else if (!strcmp(name, "--compare")) {
            if (!strcmp(val, "cub"))
                o->compare_cub = 1;
            else if (!strcmp(val, "none"))
                o->compare_cub = 0;
            else
                return bench_usage_error("--compare: '%s' is not one of cub, none", val);
        } else if (!strcmp(name, "--l2-mb")) {
            char *end = NULL;
            double v = strtod(val, &end);
            if (end == val || *end || !(v > 0) || v > 65536)
                return bench_usage_error("--l2-mb: '%s' is not a size in MiB", val);
            o->l2_mib = v;
        } else if (!strcmp(name, "--host-refs")) {
            o->host_refs = 1;
        } else if (!strcmp(name, "--no-host-refs")) {
            o->host_refs = 0;
        } else if (!strcmp(name, "--no-rotate")) {
            o->rotate = 0;
        } else if (!strcmp(name, "--exclusive")) {
            o->exclusive = 1;
        } else if (!strcmp(name, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(name, "--scan-only")) {
            scan_only = 1;
        } else if (!strcmp(name, "--reduce-only")) {
            reduce_only = 1;
        } else {
            return bench_usage_error("unknown argument '%s'", a);
        }
    }
    if (scan_only && reduce_only)
        return bench_usage_error("--scan-only and --reduce-only exclude each other%s", "");
    if (o->full && (o->sizes_given || o->quick))
        return bench_usage_error("--full excludes --sizes and --quick%s", "");
    if (scan_only)
        o->do_reduce = 0;
    if (reduce_only)
        o->do_scan = 0;
    return -1;
}

/* Default sizes and runs, once the device is known. */
static const char *default_sizes(bench_opts *o, int is_cpu)
{
    static const int gpu[3] = {16, 20, 24}, cpu[3] = {12, 16, 20}, quick[3] = {10, 14, 17};
    if (o->full) {
        o->nsizes = 0;
        for (int e = 10; e <= 28; ++e)
            o->sizes[o->nsizes++] = (size_t)1 << e;
        return "--full: 2^10..2^28, each size that fits in memory";
    }
    const int *e = gpu;
    const char *why = "default";
    if (o->quick) {
        e = quick;
        why = "--quick";
    } else if (is_cpu == 1) {
        e = cpu;
        why = "default for a CPU device; GPUs get 2^16,2^20,2^24";
    }
    for (int i = 0; i < 3; ++i)
        o->sizes[i] = (size_t)1 << e[i];
    o->nsizes = 3;
    return why;
}

/* ------------------------------------------------------------------------------------------- helpers */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v; returns the median (v[0] is then the minimum). */
static double median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static void human_bytes(double b, char *buf, size_t len)
{
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, len, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        snprintf(buf, len, "%.1f MiB", b / (1024.0 * 1024));
    else
        snprintf(buf, len, "%.0f KiB", b / 1024.0);
}

static volatile uint64_t g_sink;

/* ------------------------------------------------------------------------------------------- results */

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
    int is_cpu;        /* 1 CPU device, 0 not, -1 unknown */
    int is_cuda;       /* the library's backend is CUDA */
    int scan_readback; /* timed scans read back their last element (the backend returns once queued) */
    double readback_s; /* latency of that read alone */
    int cuda_ok;       /* bench/cub_compare.cu opened a CUDA device */
    int cub;           /* --compare cub */
    int wrap;          /* redscan runs on CUB's memory */
    br_ocl *ocl;       /* separate OpenCL context on the library's device */
    int host_refs;
    int reps_cpu_budget; /* a case past CASE_BUDGET_S stops after 3 runs */
    double l2_bytes;
    int rotate;
    uint64_t dev_mem, dev_max_alloc, host_mem;
    double copy_peak_gbs;
    const char *copy_peak_src;
} bench_state;

typedef struct {
    const char *kind; /* "ours" or "ref" */
    const char *op;
    const char *dtype;
    const char *algo;
    size_t n;
    double bytes; /* counted for GB/s */
    int nbuf, reps;
    double med_s, min_s;
    const char *timing;
    int result;
    double copy_n_gbs; /* the device copy at the same byte count, 0 unknown */
    const char *ref;   /* reference of the ratio, NULL none */
    double ref_gbs;
    const char *detail;
} row_t;

static const char *result_word(int r)
{
    switch (r) {
    case R_PASS: return "pass";
    case R_FAIL: return "FAIL";
    case R_UNSUP: return "unsupported";
    case R_REF: return "ref";
    case R_SKIP: return "skipped";
    default: return "ERROR";
    }
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void progress_clear(bench_state *st)
{
    if (st->tty)
        fprintf(stderr, "\r%*s\r", 110, "");
}

static void progress(bench_state *st, int counts, const char *op, const char *dtype, const char *algo, size_t n)
{
    if (counts)
        st->done++;
    if (!st->tty)
        return;
    fprintf(stderr, "\r[%4d/%d %5.0fs] %s %s %s n=%zu%-24s", st->done, st->total, now_s() - st->t_start, op, dtype,
            algo, n, "");
    fflush(stderr);
}

static double row_gbs(const row_t *r)
{
    return (r->result == R_PASS || r->result == R_FAIL || r->result == R_REF) && r->med_s > 0
               ? r->bytes / r->med_s * 1e-9
               : 0.0;
}

static void report(bench_state *st, const row_t *r)
{
    double gbs = row_gbs(r);
    double frac = st->copy_peak_gbs > 0 ? gbs / st->copy_peak_gbs : 0.0;
    double ratio = r->ref && r->ref_gbs > 0 && gbs > 0 ? gbs / r->ref_gbs : 0.0;
    int ours = !strcmp(r->kind, "ours");
    const char *detail = r->detail;
    if (ours && r->result != R_SKIP) { /* a skipped size: its cases are counted by the caller */
        st->rows++;
        if (r->result == R_PASS)
            st->passed++;
        else if (r->result == R_UNSUP)
            st->unsupported++;
        else
            st->failed++;
    } else if (!ours && (r->result == R_FAIL || r->result == R_ERROR)) {
        st->ref_failed++;
    }
    if (st->csv) {
        fprintf(st->csv, "%s,%s,%s,%s,%zu,%.0f,%d,%d,%.6f,%.6f,%.3f,%.4f,%.3f,%s,%.3f,%.4f,%s,%s,", r->kind, r->op,
                r->dtype, r->algo, r->n, r->bytes, r->nbuf, r->reps, r->med_s * 1e3, r->min_s * 1e3, gbs, frac,
                r->copy_n_gbs, r->ref ? r->ref : "", r->ref_gbs, ratio, r->timing ? r->timing : "",
                result_word(r->result));
        csv_field(st->csv, detail);
        fputc('\n', st->csv);
        fflush(st->csv);
    }
    if (r->result == R_UNSUP && ours) {
        /* print an unsupported (algorithm, reason) once, then only count it */
        char reason[200];
        snprintf(reason, sizeof reason, "%s", detail ? detail : "");
        for (int i = 0; i < st->nunsup; ++i)
            if (!strcmp(st->unsup[i].algo, r->algo) && !strcmp(st->unsup[i].reason, reason)) {
                st->unsup[i].count++;
                return;
            }
        int reason_seen = 0;
        for (int i = 0; i < st->nunsup; ++i)
            reason_seen |= !strcmp(st->unsup[i].reason, reason);
        if (reason_seen)
            detail = NULL; /* the reason was printed once already */
        if (st->nunsup < 64) {
            snprintf(st->unsup[st->nunsup].algo, sizeof st->unsup[0].algo, "%s", r->algo);
            memcpy(st->unsup[st->nunsup].reason, reason, sizeof reason);
            st->unsup[st->nunsup++].count = 1;
        }
    }
    progress_clear(st);
    char ratio_s[16] = "-", frac_s[16] = "-";
    if (ratio > 0)
        snprintf(ratio_s, sizeof ratio_s, "%.2f", ratio);
    if (frac > 0)
        snprintf(frac_s, sizeof frac_s, "%.1f", 100.0 * frac);
    if (gbs > 0)
        printf("%-11s %-8s %-32s %10zu %10.4f %9.2f %6s %6s %s\n", r->op, r->dtype, r->algo, r->n, r->med_s * 1e3,
               gbs, frac_s, ratio_s, result_word(r->result));
    else
        printf("%-11s %-8s %-32s %10zu %10s %9s %6s %6s %s\n", r->op, r->dtype, r->algo, r->n, "-", "-", "-", "-",
               result_word(r->result));
    int show_detail = r->result == R_FAIL || r->result == R_ERROR || r->result == R_UNSUP || r->result == R_SKIP ||
                      (r->result == R_PASS && detail && *detail && ours);
    if (show_detail && detail && *detail) {
        /* keep the table readable: the first lines of the detail (a build log can be long) */
        char buf[DETAIL_MAX];
        snprintf(buf, sizeof buf, "%s", detail);
        int lines = 0;
        for (char *line = buf; line && lines < (r->result == R_FAIL || r->result == R_ERROR ? 12 : 1); ++lines) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            printf("    %s\n", line);
            line = nl ? nl + 1 : NULL;
        }
    }
    fflush(stdout);
}

static void status_detail(redscan_ctx *ctx, redscan_status s, char *detail)
{
    const char *e = redscan_last_error(ctx);
    if (s == REDSCAN_ERR_UNSUPPORTED && e && *e) /* the reason says it all */
        snprintf(detail, DETAIL_MAX, "%s", e);
    else
        snprintf(detail, DETAIL_MAX, "%s%s%s", redscan_status_string(s), e && *e ? ": " : "", e ? e : "");
}

/* ------------------------------------------------------------------------------------------- data of one (n, dtype) */

#define MAX_OK_HASH 16

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
    double copy_gbs;        /* the backend's device copy at these bytes */
    double cub_gbs[4][4];   /* [case kind][op]: CUB, CUDA events */
    double loop_gbs[4][4];  /* [case kind][op]: plain C loop */
} dset;

static const bd_ref *red_ref(dset *d, redscan_op op)
{
    if (!d->have_red_ref[op]) {
        bd_ref_reduce(&d->red_ref[op], op, d->dt, op == REDSCAN_PROD ? d->prd : d->gen, d->n);
        d->have_red_ref[op] = 1;
    }
    return &d->red_ref[op];
}

static size_t argmax_ref(dset *d)
{
    if (!d->have_argmax) {
        d->argmax_ref = bd_argmax(d->gen, d->dt, d->n);
        d->have_argmax = 1;
    }
    return d->argmax_ref;
}

static const size_t *top2_ref(dset *d)
{
    if (!d->have_top2) {
        bd_top2(d->gen, d->dt, d->n, d->top2_ref);
        d->have_top2 = 1;
    }
    return d->top2_ref;
}

/* Verify the scan output now in d->hout. Outputs with the bits of one already verified pass at once (integer
 * scans and min/max give the same bits for every algorithm; float sums the same bits per block algorithm). */
static int verify_scan_output(dset *d, redscan_op op, int exclusive, char *detail)
{
    uint64_t h = bd_hash(d->hout, d->bytes);
    for (int i = 0; i < d->n_ok_hash[op]; ++i)
        if (d->ok_hash[op][i] == h)
            return R_PASS;
    const void *in = op == REDSCAN_PROD ? d->prd : d->gen;
    if (bd_check_scan(op, d->dt, exclusive, in, d->hout, d->n, detail, DETAIL_MAX))
        return R_FAIL;
    if (d->n_ok_hash[op] < MAX_OK_HASH)
        d->ok_hash[op][d->n_ok_hash[op]++] = h;
    return R_PASS;
}

/* Destroy redscan's buffers of d (wrappers only, when wrapped). */
static void free_sets(bench_state *st, dset *d)
{
    for (int k = 0; k < 3; ++k) {
        redscan_buffer **set = k == 0 ? d->dgen : k == 1 ? d->dprd : d->dout;
        if (!set)
            continue;
        for (int i = 0; i < d->nbuf; ++i)
            if (set[i])
                redscan_buffer_destroy(st->ctx, set[i]);
        free(set);
    }
    d->dgen = d->dprd = d->dout = NULL;
}

static void dset_free(bench_state *st, dset *d)
{
    free_sets(st, d);
#ifdef REDSCAN_BENCH_CUDA
    rsb_cuda_free(d->cgen);
    rsb_cuda_free(d->cprd);
    rsb_cuda_free(d->cout);
#endif
    free(d->gen);
    free(d->prd);
    free(d->hout);
    free(d->rgen);
    free(d->rprd);
    free(d->rout);
    d->cgen = d->cprd = d->cout = NULL;
    d->gen = d->prd = d->hout = NULL;
    d->rgen = d->rprd = d->rout = NULL;
}

/* Device and host memory this (n, dtype) needs; 0 when it fits, else a reason in why. */
static int dset_fits(const bench_state *st, const dset *d, char *why, size_t len)
{
    double set = (double)d->stride * d->nbuf;
    int sets = 1 + d->need_prd + d->need_out;
    double dev = 0;
    if (!st->wrap)
        dev += set * sets; /* redscan's own buffers */
    if (st->cub)
        dev += set * (1 + d->need_prd + 1); /* CUB's (on the OpenCL backend: a second copy on the same GPU) */
    if (!st->wrap)
        dev += 2 * set; /* the copy reference's own buffers */
    double host = (double)d->bytes * (2 + d->need_prd) + (st->host_refs ? set * sets : 0);
    char a[32], b[32];
    if (st->dev_mem && dev > 0.85 * (double)st->dev_mem) {
        human_bytes(dev, a, sizeof a);
        human_bytes((double)st->dev_mem, b, sizeof b);
        snprintf(why, len, "needs about %s of device memory; the device has %s", a, b);
        return 1;
    }
    if (st->dev_max_alloc && (double)d->bytes > (double)st->dev_max_alloc) {
        human_bytes((double)d->bytes, a, sizeof a);
        human_bytes((double)st->dev_max_alloc, b, sizeof b);
        snprintf(why, len, "one buffer of %s exceeds the device's largest allocation (%s)", a, b);
        return 1;
    }
    if (st->host_mem && host > 0.7 * (double)st->host_mem) {
        human_bytes(host, a, sizeof a);
        human_bytes((double)st->host_mem, b, sizeof b);
        snprintf(why, len, "needs about %s of host memory; the host has %s", a, b);
        return 1;
    }
    return 0;
}

/* Allocate and fill everything of d. Returns 0, or 1 with a message (oom: an allocation failed). */
static int dset_alloc(bench_state *st, dset *d, char *detail, int *oom)
{
    *oom = 0;
    d->gen = malloc(d->bytes);
    d->prd = d->need_prd ? malloc(d->bytes) : NULL;
    d->hout = malloc(d->bytes);
    if (!d->gen || (d->need_prd && !d->prd) || !d->hout) {
        snprintf(detail, DETAIL_MAX, "host allocation of %zu bytes failed", d->bytes);
        *oom = 1;
        return 1;
    }
    if (!st->tty) {
        fflush(stdout);
        fprintf(stderr, "[bench %5.0fs] n=%zu %s: preparing %d buffer%s of %zu bytes\n", now_s() - st->t_start, d->n,
                d->dtname, d->nbuf, d->nbuf == 1 ? "" : "s", d->bytes);
        fflush(stderr);
    }
    bd_generate(d->dt, d->n, d->gen, d->prd);

#ifdef REDSCAN_BENCH_CUDA
    if (st->cub) {
        char err[512];
        size_t total = d->stride * (size_t)d->nbuf;
        for (int k = 0; k < 3; ++k) {
            if (k == 1 && !d->need_prd)
                continue;
            void **region = k == 0 ? &d->cgen : k == 1 ? &d->cprd : &d->cout;
            *region = rsb_cuda_alloc(total, err, sizeof err);
            if (!*region) {
                snprintf(detail, DETAIL_MAX, "CUDA memory for CUB: %s", err);
                *oom = 1;
                return 1;
            }
            if (k == 2)
                continue;
            const void *src = k == 0 ? d->gen : d->prd;
            for (int i = 0; i < d->nbuf; ++i)
                if (rsb_cuda_upload((char *)*region + (size_t)i * d->stride, src, d->bytes, err, sizeof err)) {
                    snprintf(detail, DETAIL_MAX, "%s", err);
                    return 1;
                }
        }
    }
#endif

    for (int k = 0; k < 3; ++k) {
        if ((k == 1 && !d->need_prd) || (k == 2 && !d->need_out))
            continue;
        redscan_buffer ***set = k == 0 ? &d->dgen : k == 1 ? &d->dprd : &d->dout;
        *set = calloc((size_t)d->nbuf, sizeof **set);
        if (!*set) {
            snprintf(detail, DETAIL_MAX, "host allocation failed");
            return 1;
        }
        const void *src = k == 0 ? d->gen : k == 1 ? d->prd : NULL;
        for (int i = 0; i < d->nbuf; ++i) {
            redscan_status s;
            if (st->wrap) {
                char *region = k == 0 ? d->cgen : k == 1 ? d->cprd : d->cout;
                s = redscan_buffer_wrap_cuda(st->ctx, region + (size_t)i * d->stride, d->bytes, &(*set)[i]);
                if (s != REDSCAN_OK) {
                    /* keep the run going: redscan on buffers of its own from here on, and say so */
                    char e[DETAIL_MAX];
                    status_detail(st->ctx, s, e);
                    progress_clear(st);
                    printf("note: redscan_buffer_wrap_cuda failed (%.1900s); redscan uses device buffers of its own "
                           "from here on, CUB its own\n",
                           e);
                    st->wrap = 0;
                    free_sets(st, d);
                    k = -1; /* start the sets again, now with redscan's own buffers */
                    break;
                }
            } else {
                s = redscan_buffer_create(st->ctx, d->bytes, &(*set)[i]);
                if (s == REDSCAN_OK && src)
                    s = redscan_buffer_write(st->ctx, (*set)[i], 0, src, d->bytes);
            }
            if (s != REDSCAN_OK) {
                char e[DETAIL_MAX];
                status_detail(st->ctx, s, e);
                snprintf(detail, DETAIL_MAX, "device buffer %d of %d (%zu bytes): %.1900s", i + 1, d->nbuf, d->bytes,
                         e);
                *oom = s == REDSCAN_ERR_OUT_OF_MEMORY;
                return 1;
            }
        }
    }

    if (st->host_refs) {
        size_t total = d->stride * (size_t)d->nbuf;
        d->rgen = malloc(total);
        d->rprd = d->need_prd ? malloc(total) : NULL;
        d->rout = d->need_out ? malloc(total) : NULL;
        if (!d->rgen || (d->need_prd && !d->rprd) || (d->need_out && !d->rout)) {
            snprintf(detail, DETAIL_MAX, "host allocation of the C loops' rotation (%zu bytes) failed", total);
            *oom = 1;
            return 1;
        }
        for (int i = 0; i < d->nbuf; ++i) {
            memcpy(d->rgen + (size_t)i * d->stride, d->gen, d->bytes);
            if (d->rprd)
                memcpy(d->rprd + (size_t)i * d->stride, d->prd, d->bytes);
        }
        if (d->rout)
            memset(d->rout, 0, total);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------- redscan cases */

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

static redscan_status run_case(redscan_ctx *ctx, bench_case *c, int readback)
{
    switch (c->kind) {
    case CASE_REDUCE: {
        redscan_reduce_desc d;
        memset(&d, 0, sizeof d);
        d.op = c->op;
        d.dtype = c->dt;
        d.algo = c->ralgo;
        return redscan_reduce_ex(ctx, &d, c->in, c->n, c->value);
    }
    case CASE_SCAN: {
        redscan_scan_desc d;
        memset(&d, 0, sizeof d);
        d.op = c->op;
        d.dtype = c->dt;
        d.exclusive = c->exclusive;
        d.block = c->block;
        d.grid = c->grid;
        redscan_status s = redscan_scan_ex(ctx, &d, c->in, c->out, c->n);
        /* A backend whose scan returns once queued: reading one element back waits for all of it (transfers are
         * blocking and ordered after the scan), so the timing covers the whole scan. */
        if (s == REDSCAN_OK && readback)
            s = redscan_buffer_read(ctx, c->out, (c->n - 1) * redscan_dtype_size(c->dt), c->value,
                                    redscan_dtype_size(c->dt));
        return s;
    }
    case CASE_ARGMAX:
        return redscan_argmax(ctx, c->dt, c->in, c->n, &c->idx[0], c->value);
    case CASE_TOP2:
        return redscan_topk(ctx, c->dt, c->in, c->n, 2, 1, c->vals, c->idx);
    }
    return REDSCAN_ERR_INVALID_ARGUMENT;
}

/* The bits of the last run's result (scans: the last element, when it was read back). */
static size_t result_bits(const bench_case *c, unsigned char *buf)
{
    size_t sz = redscan_dtype_size(c->dt);
    switch (c->kind) {
    case CASE_REDUCE:
    case CASE_SCAN: memcpy(buf, c->value, sz); return sz;
    case CASE_ARGMAX:
        memcpy(buf, c->value, sz);
        memcpy(buf + sz, &c->idx[0], 8);
        return sz + 8;
    case CASE_TOP2:
        memcpy(buf, c->vals, 2 * sz);
        memcpy(buf + 2 * sz, c->idx, 16);
        return 2 * sz + 16;
    }
    return 0;
}

/* Check the warm-up result (buffer 0). */
static int verify(bench_state *st, dset *d, bench_case *c, char *detail)
{
    char got[128], want[128];
    detail[0] = '\0';
    switch (c->kind) {
    case CASE_REDUCE:
        if (bd_ref_check(red_ref(d, c->op), c->value, 0, got, want, sizeof got))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "result %s, expected %s", got, want);
        return R_FAIL;
    case CASE_SCAN: {
        redscan_status s = redscan_buffer_read(st->ctx, c->out, 0, d->hout, d->bytes);
        if (s != REDSCAN_OK) {
            status_detail(st->ctx, s, detail);
            return R_ERROR;
        }
        memcpy(c->value, (unsigned char *)d->hout + (d->n - 1) * d->sz, d->sz);
        return verify_scan_output(d, c->op, c->exclusive, detail);
    }
    case CASE_ARGMAX: {
        size_t best = argmax_ref(d);
        if (c->idx[0] == best && bd_same_element(d->gen, best, c->value, c->dt))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "index %llu, expected %zu%s", (unsigned long long)c->idx[0], best,
                 c->idx[0] == best ? " (value differs)" : "");
        return R_FAIL;
    }
    case CASE_TOP2: {
        const size_t *b = top2_ref(d);
        if (c->idx[0] == b[0] && c->idx[1] == b[1] && bd_same_element(d->gen, b[0], c->vals, c->dt) &&
            bd_same_element(d->gen, b[1], c->vals + d->sz, c->dt))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "indices %llu,%llu, expected %zu,%zu%s", (unsigned long long)c->idx[0],
                 (unsigned long long)c->idx[1], b[0], b[1],
                 c->idx[0] == b[0] && c->idx[1] == b[1] ? " (values differ)" : "");
        return R_FAIL;
    }
    }
    return R_ERROR;
}

static void set_buffers(dset *d, bench_case *c, int b)
{
    redscan_buffer **in = c->op == REDSCAN_PROD && c->kind != CASE_ARGMAX && c->kind != CASE_TOP2 ? d->dprd : d->dgen;
    c->in = in[b];
    c->out = d->dout ? d->dout[b] : NULL;
}

/* A timed run's result differs in its bits from the checked warm-up: a failure (the library promises the same
 * bits on every run), except for float single-pass scans, whose order of combination may depend on timing; those
 * must stay within the reference's tolerance (inclusive scans) and are noted. Returns 1 when it is a failure. */
static int nonrepro(dset *d, const bench_case *c, int run, char *note, size_t len)
{
    char got[128], want[128];
    if (c->kind == CASE_SCAN && c->grid == REDSCAN_GRID_SINGLE_PASS && bd_is_float(c->dt)) {
        if (!c->exclusive && !bd_ref_check(red_ref(d, c->op), c->value, 0, got, want, sizeof got)) {
            snprintf(note, len, "timed run %d: last element %s, expected %s", run, got, want);
            return 1;
        }
        snprintf(note, len, "not bitwise reproducible from run to run (allowed for float single_pass scans)");
        return 0;
    }
    snprintf(note, len, "timed run %d gave other bits than the checked warm-up (the library promises the same bits "
                        "on every run)",
             run);
    return 1;
}

/* Reference GB/s for the ratio of a case: CUB when compared, else the plain C loop. */
static void pick_ref(const dset *d, case_kind kind, redscan_op op, const char **ref, double *gbs)
{
    *ref = NULL;
    *gbs = 0;
    int o = kind == CASE_ARGMAX || kind == CASE_TOP2 ? 0 : (int)op;
    if (d->cub_gbs[kind][o] > 0) {
        *ref = "cub";
        *gbs = d->cub_gbs[kind][o];
    } else if (d->loop_gbs[kind][o] > 0) {
        *ref = "c_loop";
        *gbs = d->loop_gbs[kind][o];
    }
}

/* Warm up + verify + time one case, print its row. Returns the status of the warm-up call. */
static redscan_status bench_ours(bench_state *st, const bench_opts *o, dset *d, bench_case *c, const char *opname,
                                 const char *algo)
{
    char detail[DETAIL_MAX] = "";
    double bytes = (double)d->bytes * (c->kind == CASE_SCAN ? 2.0 : 1.0);
    row_t r = {"ours", opname, d->dtname, algo, d->n, bytes, d->nbuf, 0, 0, 0,
               st->scan_readback && c->kind == CASE_SCAN ? "host_clock+readback" : "host_clock", R_ERROR,
               d->copy_gbs, NULL, 0, detail};
    pick_ref(d, c->kind, c->op, &r.ref, &r.ref_gbs);
    progress(st, 1, opname, d->dtname, algo, d->n);

    set_buffers(d, c, 0);
    redscan_status s = run_case(st->ctx, c, 0);
    if (s != REDSCAN_OK) {
        status_detail(st->ctx, s, detail);
        r.result = s == REDSCAN_ERR_UNSUPPORTED ? R_UNSUP : R_ERROR;
        report(st, &r);
        return s;
    }
    int ok = verify(st, d, c, detail);
    if (ok == R_ERROR) {
        report(st, &r);
        return REDSCAN_ERR_DEVICE;
    }
    unsigned char want[64], got[64];
    size_t wlen = result_bits(c, want);
    char note[512] = "";
    int bad = 0;
    /* second warm-up, then the timed runs, each on the next buffer */
    double *times = calloc((size_t)o->reps, sizeof *times), spent = 0;
    if (!times) {
        snprintf(detail, DETAIL_MAX, "out of host memory");
        report(st, &r);
        return REDSCAN_ERR_OUT_OF_MEMORY;
    }
    int reps = o->reps, last_b = 0;
    for (int k = -1; k < reps; ++k) {
        int b = (2 + k) % d->nbuf;
        if (k >= 0 && st->reps_cpu_budget && k >= 3 && spent > CASE_BUDGET_S) {
            reps = k; /* a slow case on a CPU device: stop at >= 3 runs once past the budget */
            break;
        }
        set_buffers(d, c, b);
        double t0 = now_s();
        s = run_case(st->ctx, c, st->scan_readback);
        double t1 = now_s();
        if (s != REDSCAN_OK) {
            status_detail(st->ctx, s, detail);
            r.result = R_ERROR;
            free(times);
            report(st, &r);
            return s;
        }
        if (k >= 0) {
            times[k] = t1 - t0;
            spent += times[k];
        }
        last_b = b;
        if ((c->kind != CASE_SCAN || st->scan_readback) && !note[0]) {
            result_bits(c, got);
            if (memcmp(got, want, wlen))
                bad |= nonrepro(d, c, k + 1, note, sizeof note);
        }
    }
    if (c->kind == CASE_SCAN && !st->scan_readback && !note[0]) {
        /* the last timed run's last element (not timed) */
        s = redscan_buffer_read(st->ctx, d->dout[last_b], (d->n - 1) * d->sz, c->value, d->sz);
        if (s != REDSCAN_OK) {
            status_detail(st->ctx, s, detail);
            r.result = R_ERROR;
            free(times);
            report(st, &r);
            return s;
        }
        if (memcmp(c->value, want, d->sz))
            bad |= nonrepro(d, c, reps, note, sizeof note);
    }
    r.med_s = median(times, reps);
    r.min_s = times[0];
    r.reps = reps;
    free(times);
    r.result = ok == R_PASS && !bad ? R_PASS : R_FAIL;
    if (note[0])
        snprintf(detail + strlen(detail), DETAIL_MAX - strlen(detail), "%s%s", detail[0] ? "; " : "", note);
    report(st, &r);
    return REDSCAN_OK;
}

/* ------------------------------------------------------------------------------------------- references */

/* A device copy of bytes with nbuf rotation: through CUDA (use_cuda) or the bench's own OpenCL context. Prints
 * its row; returns GB/s (read + write), 0 when unavailable. */
static double device_copy(bench_state *st, int use_cuda, dset *d, size_t bytes, int nbuf, int reps, const char *op,
                          const char *dtname, size_t n)
{
    char err[512] = "";
    double med = 0, mn = 0;
    const char *algo = NULL, *timing = NULL;
    int rc = 1;
    (void)d; /* CUB's buffers, in builds with CUDA */
    if (use_cuda) {
#ifdef REDSCAN_BENCH_CUDA
        if (st->cuda_ok) {
            algo = "cudaMemcpy_d2d";
            timing = "cuda_events";
            rsb_cuda_timing t;
            void **src = calloc((size_t)nbuf, sizeof *src), **dst = calloc((size_t)nbuf, sizeof *dst);
            void *rs = NULL, *rd = NULL;
            int own = 1;
            size_t stride = round_up(bytes, 4096);
            if (src && dst) {
                if (d && d->cgen && d->cout && d->nbuf == nbuf && d->bytes == bytes) {
                    rs = d->cgen;
                    rd = d->cout; /* CUB's buffers */
                    stride = d->stride;
                    own = 0;
                } else {
                    rs = rsb_cuda_alloc(stride * (size_t)nbuf, err, sizeof err);
                    rd = rs ? rsb_cuda_alloc(stride * (size_t)nbuf, err, sizeof err) : NULL;
                }
                if (rs && rd) {
                    for (int i = 0; i < nbuf; ++i) {
                        src[i] = (char *)rs + (size_t)i * stride;
                        dst[i] = (char *)rd + (size_t)i * stride;
                    }
                    rc = rsb_cuda_time_copy(dst, src, nbuf, bytes, reps, &t, err, sizeof err);
                    med = t.ev_median_ms * 1e-3;
                    mn = t.ev_min_ms * 1e-3;
                }
                if (own) {
                    rsb_cuda_free(rs);
                    rsb_cuda_free(rd);
                }
            }
            free(src);
            free(dst);
        } else {
            snprintf(err, sizeof err, "no CUDA device opened for the copy reference");
        }
#else
        snprintf(err, sizeof err, "built without CUDA");
#endif
    } else if (st->ocl) {
        algo = "clEnqueueCopyBuffer";
        timing = "host_clock";
        rc = br_ocl_time_copy(st->ocl, bytes, nbuf, reps, &med, &mn, err, sizeof err);
    } else {
        return 0;
    }
    row_t r = {"ref", op, dtname, algo ? algo : "device_copy", n, 2.0 * (double)bytes, nbuf, reps, med, mn, timing,
               rc ? R_ERROR : R_REF, 0, NULL, 0, rc ? err : ""};
    report(st, &r);
    return rc ? 0 : 2.0 * (double)bytes / med * 1e-9;
}

static int timed_reps(const bench_state *st, const bench_opts *o, double spent, int k)
{
    return k < o->reps && !(st->reps_cpu_budget && k >= 3 && spent > CASE_BUDGET_S);
}

/* OpenMP read and copy loops over the host rotation (the CPU's memory ceilings). */
static void omp_rows(bench_state *st, const bench_opts *o, dset *d)
{
    char detail[128];
    int threads = br_omp_threads();
    snprintf(detail, sizeof detail, threads ? "OpenMP, %d threads" : "no OpenMP: one thread", threads);
    for (int which = 0; which < 2; ++which) {
        double times[MAX_REPS], spent = 0;
        int k = 0;
        progress(st, 0, which ? "copy" : "read", d->dtname, which ? "omp_copy" : "omp_read", d->n);
        /* warm-up */
        if (which)
            br_omp_copy(d->rout ? d->rout : d->hout, d->rgen, d->bytes);
        else
            g_sink += br_omp_read(d->rgen, d->bytes);
        for (; timed_reps(st, o, spent, k); ++k) {
            size_t off = (size_t)((k + 1) % d->nbuf) * d->stride;
            double t0 = now_s();
            if (which)
                br_omp_copy(d->rout ? d->rout + off : d->hout, d->rgen + off, d->bytes);
            else
                g_sink += br_omp_read(d->rgen + off, d->bytes);
            times[k] = now_s() - t0;
            spent += times[k];
        }
        row_t r = {"ref", which ? "copy" : "read", d->dtname, which ? "omp_copy" : "omp_read", d->n,
                   (double)d->bytes * (which ? 2.0 : 1.0), d->nbuf, k, 0, 0, "host_clock", R_REF, d->copy_gbs, NULL, 0,
                   detail};
        r.med_s = median(times, k);
        r.min_s = times[0];
        report(st, &r);
    }
}

/* Plain C loop of a case over the host rotation. variant 1: the eight-accumulator sum. */
static void loop_row(bench_state *st, const bench_opts *o, dset *d, case_kind kind, redscan_op op,
                     const char *opname, int variant)
{
    const char *algo = variant ? "c_loop_8acc" : "c_loop";
    double times[MAX_REPS], spent = 0;
    unsigned char res[16];
    size_t idx[2];
    const unsigned char *base = kind != CASE_ARGMAX && kind != CASE_TOP2 && op == REDSCAN_PROD ? d->rprd : d->rgen;
    progress(st, 0, opname, d->dtname, algo, d->n);
    int k = -1; /* -1: the warm-up */
    for (; k < 0 || timed_reps(st, o, spent, k); ++k) {
        size_t off = (size_t)((k + 1) % d->nbuf) * d->stride;
        const void *in = base + off;
        double t0 = now_s();
        switch (kind) {
        case CASE_REDUCE:
            if (variant)
                br_reduce_sum8(d->dt, in, d->n, res);
            else
                br_reduce(op, d->dt, in, d->n, res);
            break;
        case CASE_SCAN: br_scan(op, d->dt, 0, in, d->rout + off, d->n); break;
        case CASE_ARGMAX: idx[0] = br_argmax(d->dt, in, d->n); break;
        case CASE_TOP2: br_top2(d->dt, in, d->n, idx); break;
        }
        double t = now_s() - t0;
        g_sink += res[0] + idx[0];
        if (k >= 0) {
            times[k] = t;
            spent += t;
        }
    }
    row_t r = {"ref", opname, d->dtname, algo, d->n, (double)d->bytes * (kind == CASE_SCAN ? 2.0 : 1.0), d->nbuf, k,
               0, 0, "host_clock", R_REF, d->copy_gbs, NULL, 0, variant ? "" : "one accumulator, in order"};
    r.med_s = median(times, k);
    r.min_s = times[0];
    report(st, &r);
    if (!variant)
        d->loop_gbs[kind][kind == CASE_ARGMAX || kind == CASE_TOP2 ? 0 : (int)op] = row_gbs(&r);
}

#ifdef REDSCAN_BENCH_CUDA
/* CUB on the CUDA memory of d: a row timed with CUDA events and a row timed with the host clock. */
static void cub_rows(bench_state *st, const bench_opts *o, dset *d, case_kind kind, redscan_op op, const char *opname)
{
    int ck = kind == CASE_REDUCE ? RSB_CUB_REDUCE : kind == CASE_SCAN ? RSB_CUB_SCAN : RSB_CUB_ARGMAX;
    if (kind == CASE_TOP2 || !rsb_cub_supported(ck, (int)op, (int)d->dt))
        return;
    void **ins = calloc((size_t)d->nbuf, sizeof *ins), **outs = calloc((size_t)d->nbuf, sizeof *outs);
    char err[512] = "", detail[DETAIL_MAX] = "";
    const char *call = rsb_cub_call_name(ck, (int)op, o->exclusive);
    char *in_region = kind == CASE_REDUCE || kind == CASE_SCAN ? (op == REDSCAN_PROD ? d->cprd : d->cgen) : d->cgen;
    rsb_cuda_timing t;
    int rc = 1;
    memset(&t, 0, sizeof t);
    progress(st, 0, opname, d->dtname, "cub", d->n);
    if (ins && outs) {
        for (int i = 0; i < d->nbuf; ++i) {
            ins[i] = in_region + (size_t)i * d->stride;
            outs[i] = (char *)d->cout + (size_t)i * d->stride;
        }
        rsb_cub_case cc = {ck, (int)op, (int)d->dt, o->exclusive, d->n, d->nbuf, ins, outs, o->reps};
        rc = rsb_cub_run(&cc, &t, err, sizeof err);
    } else {
        snprintf(err, sizeof err, "out of host memory");
    }
    free(ins);
    free(outs);
    double bytes = (double)d->bytes * (kind == CASE_SCAN ? 2.0 : 1.0);
    int result = R_ERROR;
    if (rc) {
        snprintf(detail, DETAIL_MAX, "%s: %s", call, err);
    } else {
        char got[128], want[128];
        result = R_PASS;
        if (kind == CASE_REDUCE) {
            if (!bd_ref_check(red_ref(d, op), t.value, 0, got, want, sizeof got)) {
                result = R_FAIL;
                snprintf(detail, DETAIL_MAX, "%s: result %s, expected %s", call, got, want);
            }
        } else if (kind == CASE_ARGMAX) {
            size_t best = argmax_ref(d);
            if ((size_t)t.index != best || !bd_same_element(d->gen, best, t.value, d->dt)) {
                result = R_FAIL;
                snprintf(detail, DETAIL_MAX, "%s: index %lld, expected %zu", call, (long long)t.index, best);
            }
        } else {
            if (rsb_cuda_download(d->hout, d->cout, d->bytes, err, sizeof err)) {
                result = R_ERROR;
                snprintf(detail, DETAIL_MAX, "%s: %s", call, err);
            } else {
                char sd[DETAIL_MAX] = "";
                result = verify_scan_output(d, op, o->exclusive, sd);
                if (result != R_PASS)
                    snprintf(detail, DETAIL_MAX, "%s: %s", call, sd);
            }
        }
        if (result == R_PASS)
            snprintf(detail, DETAIL_MAX, "%s, temp storage %zu bytes%s", call, t.temp_bytes,
                     t.reproducible ? "" : "; not bitwise reproducible from run to run");
    }
    row_t r = {"ref", opname, d->dtname, "cub", d->n, bytes, d->nbuf, t.reps, t.ev_median_ms * 1e-3,
               t.ev_min_ms * 1e-3, "cuda_events", result, d->copy_gbs, NULL, 0, detail};
    report(st, &r);
    if (result == R_PASS)
        d->cub_gbs[kind][kind == CASE_ARGMAX ? 0 : (int)op] = row_gbs(&r);
    if (rc)
        return;
    row_t h = r;
    h.algo = "cub_hostclk";
    h.med_s = t.host_median_ms * 1e-3;
    h.min_s = t.host_min_ms * 1e-3;
    h.timing = kind == CASE_SCAN ? "host_clock+sync" : "host_clock+result_to_host+sync";
    h.ref = NULL;
    report(st, &h);
}
#endif

/* ------------------------------------------------------------------------------------------- sweep */

static const redscan_dtype k_dtypes[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64,
                                         REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
static const redscan_op k_ops[] = {REDSCAN_SUM, REDSCAN_PROD, REDSCAN_MIN, REDSCAN_MAX};
static const redscan_reduce_algo k_ralgos[] = {REDSCAN_REDUCE_TREE, REDSCAN_REDUCE_INTERLEAVED,
                                               REDSCAN_REDUCE_COARSENED, REDSCAN_REDUCE_WARP_SYNC,
                                               REDSCAN_REDUCE_SHUFFLE};
static const redscan_block_scan k_blocks[] = {REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_BLOCK_KOGGE_STONE_DB,
                                              REDSCAN_BLOCK_BRENT_KUNG, REDSCAN_BLOCK_COARSENED};
static const redscan_grid_scan k_grids[] = {REDSCAN_GRID_HIERARCHICAL, REDSCAN_GRID_REDUCE_THEN_SCAN,
                                            REDSCAN_GRID_SINGLE_PASS};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int op_on(const bench_opts *o, int op) { return (o->op_mask >> op) & 1u; }

static int cases_per_dtype(const bench_opts *o, size_t n)
{
    int c = 0, nops = 0;
    for (int i = 0; i < COUNT(k_ops); ++i)
        nops += op_on(o, (int)k_ops[i]);
    if (o->do_reduce)
        c += nops * COUNT(k_ralgos) + op_on(o, OP_ARGMAX) + (n >= 2 && op_on(o, OP_TOP2));
    if (o->do_scan)
        c += nops * COUNT(k_blocks) * COUNT(k_grids);
    return c;
}

static int rotation_buffers(const bench_state *st, size_t bytes)
{
    if (!st->rotate)
        return 1;
    double want = 2.0 * st->l2_bytes;
    if ((double)bytes >= want)
        return 1;
    double k = ceil(want / (double)bytes);
    return k > NBUF_MAX ? NBUF_MAX : (int)k;
}

/* Runs every case of (n, dtype). Returns 0 when done, 1 when the dtype is unsupported (skip it). */
static int bench_dtype(bench_state *st, const bench_opts *o, redscan_dtype dt, size_t n)
{
    dset d;
    memset(&d, 0, sizeof d);
    d.dt = dt;
    d.dtname = redscan_dtype_name(dt);
    d.n = n;
    d.sz = redscan_dtype_size(dt);
    d.bytes = n * d.sz;
    d.stride = round_up(d.bytes, 4096);
    d.nbuf = rotation_buffers(st, d.bytes);
    d.need_prd = op_on(o, REDSCAN_PROD) && (o->do_reduce || o->do_scan);
    d.need_out = o->do_scan;
    int rc = 0;
    char detail[DETAIL_MAX] = "";
    row_t skip = {"ours", "*", d.dtname, "*", n, 0, d.nbuf, 0, 0, 0, "", R_SKIP, 0, NULL, 0, detail};

    if (dset_fits(st, &d, detail, sizeof detail)) {
        report(st, &skip);
        st->done += cases_per_dtype(o, n);
        st->skipped += cases_per_dtype(o, n);
        return 0;
    }
    int oom = 0;
    if (dset_alloc(st, &d, detail, &oom)) {
        if (o->full && oom) {
            snprintf(detail + strlen(detail), sizeof detail - strlen(detail), " (--full: skipped, does not fit)");
            report(st, &skip);
            st->skipped += cases_per_dtype(o, n);
        } else {
            row_t e = skip;
            e.result = R_ERROR;
            report(st, &e);
        }
        st->done += cases_per_dtype(o, n);
        dset_free(st, &d);
        return 0;
    }

    /* references of this size: the device copy, the CPU's loops */
    d.copy_gbs =
        device_copy(st, st->cuda_ok && (st->is_cuda || !st->ocl), &d, d.bytes, d.nbuf, o->reps, "copy", d.dtname, n);
    if (st->cub && !st->is_cuda && st->ocl) /* CUB's ceiling next to the OpenCL one, on CUB's buffers */
        device_copy(st, 1, &d, d.bytes, d.nbuf, o->reps, "copy", d.dtname, n);
    if (st->host_refs)
        omp_rows(st, o, &d);

    int first = 1; /* FLOAT64 unsupported at the first case: skip the dtype */
    char opname[32], algo[64];
    redscan_status s;
    if (o->do_reduce) {
        for (int oi = 0; oi < COUNT(k_ops); ++oi) {
            if (!op_on(o, (int)k_ops[oi]))
                continue;
            snprintf(opname, sizeof opname, "reduce.%s", redscan_op_name(k_ops[oi]));
#ifdef REDSCAN_BENCH_CUDA
            if (st->cub)
                cub_rows(st, o, &d, CASE_REDUCE, k_ops[oi], opname);
#endif
            if (st->host_refs) {
                loop_row(st, o, &d, CASE_REDUCE, k_ops[oi], opname, 0);
                if (k_ops[oi] == REDSCAN_SUM)
                    loop_row(st, o, &d, CASE_REDUCE, k_ops[oi], opname, 1);
            }
            for (int ai = 0; ai < COUNT(k_ralgos); ++ai) {
                bench_case c;
                memset(&c, 0, sizeof c);
                c.kind = CASE_REDUCE;
                c.op = k_ops[oi];
                c.dt = dt;
                c.ralgo = k_ralgos[ai];
                c.n = n;
                snprintf(algo, sizeof algo, "%s", redscan_reduce_algo_name(c.ralgo));
                s = bench_ours(st, o, &d, &c, opname, algo);
                if (first && s == REDSCAN_ERR_UNSUPPORTED && dt == REDSCAN_FLOAT64) {
                    rc = 1;
                    goto done;
                }
                first = 0;
            }
        }
        bench_case c;
        memset(&c, 0, sizeof c);
        c.kind = CASE_ARGMAX;
        c.dt = dt;
        c.n = n;
        if (op_on(o, OP_ARGMAX)) {
#ifdef REDSCAN_BENCH_CUDA
            if (st->cub)
                cub_rows(st, o, &d, CASE_ARGMAX, REDSCAN_SUM, "argmax");
#endif
            if (st->host_refs)
                loop_row(st, o, &d, CASE_ARGMAX, REDSCAN_SUM, "argmax", 0);
            bench_ours(st, o, &d, &c, "argmax", "-");
        }
        if (n >= 2 && op_on(o, OP_TOP2)) {
            c.kind = CASE_TOP2;
            if (st->host_refs)
                loop_row(st, o, &d, CASE_TOP2, REDSCAN_SUM, "top2", 0);
            bench_ours(st, o, &d, &c, "top2", "-");
        }
    }
    if (o->do_scan) {
        for (int oi = 0; oi < COUNT(k_ops); ++oi) {
            if (!op_on(o, (int)k_ops[oi]))
                continue;
            snprintf(opname, sizeof opname, "%s.%s", o->exclusive ? "exscan" : "scan", redscan_op_name(k_ops[oi]));
#ifdef REDSCAN_BENCH_CUDA
            if (st->cub)
                cub_rows(st, o, &d, CASE_SCAN, k_ops[oi], opname);
#endif
            if (st->host_refs)
                loop_row(st, o, &d, CASE_SCAN, k_ops[oi], opname, 0);
            for (int bi = 0; bi < COUNT(k_blocks); ++bi) {
                for (int gi = 0; gi < COUNT(k_grids); ++gi) {
                    bench_case c;
                    memset(&c, 0, sizeof c);
                    c.kind = CASE_SCAN;
                    c.op = k_ops[oi];
                    c.dt = dt;
                    c.exclusive = o->exclusive;
                    c.block = k_blocks[bi];
                    c.grid = k_grids[gi];
                    c.n = n;
                    snprintf(algo, sizeof algo, "%s/%s", redscan_block_scan_name(c.block),
                             redscan_grid_scan_name(c.grid));
                    s = bench_ours(st, o, &d, &c, opname, algo);
                    if (first && s == REDSCAN_ERR_UNSUPPORTED && dt == REDSCAN_FLOAT64) {
                        rc = 1;
                        goto done;
                    }
                    first = 0;
                }
            }
        }
    }
done:
    dset_free(st, &d);
    return rc;
}

/* Latency of a blocking one-element read (what each timed scan adds where the backend returns once queued). */
static double readback_latency(redscan_ctx *ctx)
{
    redscan_buffer *b = NULL;
    float v = 1.0f;
    double t[21];
    if (redscan_buffer_create(ctx, 4096, &b) != REDSCAN_OK)
        return 0;
    int ok = redscan_buffer_write(ctx, b, 0, &v, sizeof v) == REDSCAN_OK;
    for (int i = 0; ok && i < 21; ++i) {
        double t0 = now_s();
        ok = redscan_buffer_read(ctx, b, 0, &v, sizeof v) == REDSCAN_OK;
        t[i] = now_s() - t0;
    }
    redscan_buffer_destroy(ctx, b);
    return ok ? median(t, 21) : 0;
}

int cli_bench(int argc, char **argv)
{
    bench_opts o;
    int prc = parse_opts(argc, argv, &o);
    if (prc >= 0)
        return prc;

    bench_state st;
    memset(&st, 0, sizeof st);
    st.tty = isatty(STDERR_FILENO);
    st.t_start = now_s();
    st.rotate = o.rotate;

#ifdef REDSCAN_BENCH_CUDA
    rsb_cuda_info cinfo;
    memset(&cinfo, 0, sizeof cinfo);
    char cerr[512] = "";
    int cuda_ordinal = 0;
    {
        const char *e = getenv("REDSCAN_CUDA_DEVICE");
        if (e && *e)
            cuda_ordinal = atoi(e);
    }
#endif
    if (o.compare_cub) {
#ifdef REDSCAN_BENCH_CUDA
        if (rsb_cuda_open(cuda_ordinal, &cinfo, cerr, sizeof cerr)) {
            fprintf(stderr,
                    "redscan bench: --compare cub needs a usable CUDA device (device %d): %s\n"
                    "(`redscan info` says which backends can run here)\n",
                    cuda_ordinal, cerr);
            return 1;
        }
        st.cuda_ok = 1;
        st.cub = 1;
#else
        fprintf(stderr, "redscan bench: --compare cub: this redscan was built without CUDA (no nvcc at build time, or "
                        "REDSCAN_WITH_CUDA=OFF), so CUB is not compiled in\n");
        return 1;
#endif
    }

    redscan_status s = redscan_create(&st.ctx, o.backend);
    if (s != REDSCAN_OK) {
        const char *e = redscan_last_error(NULL);
        fprintf(stderr, "redscan bench: cannot create a context: %s%s%s\n", redscan_status_string(s),
                e && *e ? ": " : "", e ? e : "");
#ifdef REDSCAN_BENCH_CUDA
        if (st.cuda_ok)
            rsb_cuda_close();
#endif
        return 1;
    }
    st.backend = redscan_backend_name(st.ctx);
    const char *device = redscan_device_name(st.ctx);
    st.is_cuda = !strcmp(st.backend, "cuda");
    st.is_cpu = cli_device_is_cpu(st.backend, device);
    st.scan_readback = !st.is_cuda; /* OpenCL scans return once queued */

    double l2_reported = 0;
    char l2_src[64] = "";
    br_ocl_info oinfo;
    memset(&oinfo, 0, sizeof oinfo);
    char oerr[512] = "";
#ifdef REDSCAN_BENCH_CUDA
    if (st.is_cuda && !st.cuda_ok) {
        if (!rsb_cuda_open(cuda_ordinal, &cinfo, cerr, sizeof cerr))
            st.cuda_ok = 1;
    }
    if (st.cuda_ok) {
        if (st.is_cuda) {
            st.dev_mem = cinfo.mem_total;
            l2_reported = (double)cinfo.l2_bytes;
            snprintf(l2_src, sizeof l2_src, "cudaDeviceProp::l2CacheSize");
        }
        st.wrap = st.cub && st.is_cuda;
        if (st.is_cuda && strcmp(cinfo.name, device))
            printf("note: the library's device '%s' and CUDA device %d '%s' differ in name\n", device, cuda_ordinal,
                   cinfo.name);
    }
#endif
    if (!st.is_cuda) {
        if (br_ocl_open(device, &st.ocl, &oinfo, oerr, sizeof oerr)) {
            st.ocl = NULL;
        } else {
            st.dev_mem = oinfo.global_mem;
            st.dev_max_alloc = oinfo.max_alloc;
            l2_reported = (double)oinfo.cache_bytes;
            snprintf(l2_src, sizeof l2_src, "CL_DEVICE_GLOBAL_MEM_CACHE_SIZE");
            st.is_cpu = oinfo.is_cpu;
        }
    }
    {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        st.host_mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    }
    st.host_refs = o.host_refs >= 0 ? o.host_refs : st.is_cpu == 1;
    double l2_default = DEFAULT_L2_MIB * 1024 * 1024;
    st.l2_bytes = o.l2_mib > 0 ? o.l2_mib * 1024 * 1024 : (l2_reported > l2_default ? l2_reported : l2_default);

    const char *sizes_why = "--sizes";
    if (!o.sizes_given)
        sizes_why = default_sizes(&o, st.is_cpu);
    if (!o.reps_given) {
        if (o.quick)
            o.reps = 3;
        else if (st.is_cpu == 1) {
            o.reps = 10;
            st.reps_cpu_budget = 1;
        }
    }

    if (o.csv_path) {
        st.csv = fopen(o.csv_path, "w");
        if (!st.csv) {
            fprintf(stderr, "redscan bench: cannot open %s: %s\n", o.csv_path, strerror(errno));
            redscan_destroy(st.ctx);
            br_ocl_close(st.ocl);
#ifdef REDSCAN_BENCH_CUDA
            if (st.cuda_ok)
                rsb_cuda_close();
#endif
            return 1;
        }
        fprintf(st.csv, "kind,op,dtype,algo,n,bytes,nbuf,reps,median_ms,min_ms,gbps,frac_copy_peak,copy_gbps_same_n,"
                        "ref,ref_gbps,ratio_vs_ref,timing,check,detail\n");
    }

    /* ---- header */
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    printf("redscan %s bench, %s: backend %s, device %s\n", REDSCAN_VERSION_STRING, date, st.backend, device);
#ifdef REDSCAN_BENCH_CUDA
    if (st.cuda_ok)
        printf("CUDA device %d: %s, sm_%d%d, %d SMs, L2 %.0f MiB, %.1f GiB; runtime %d, driver %d\n", cinfo.ordinal,
               cinfo.name, cinfo.cc_major, cinfo.cc_minor, cinfo.sm_count, (double)cinfo.l2_bytes / 1048576.0,
               (double)cinfo.mem_total / 1073741824.0, cinfo.runtime_version, cinfo.driver_version);
#endif
    if (!st.is_cuda && !st.ocl)
        printf("note: no OpenCL context of the bench's own on this device (%s): no device copy reference\n", oerr);
    {
        char load[64] = "";
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) {
            if (!fgets(load, sizeof load, f))
                load[0] = '\0';
            fclose(f);
            /* the 1, 5 and 15 minute averages */
            char *p = load;
            for (int k = 0; k < 3 && p; ++k)
                p = strchr(p + (k > 0), ' ');
            if (p)
                *p = '\0';
        }
#ifndef REDSCAN_BENCH_BUILD_TYPE
#define REDSCAN_BENCH_BUILD_TYPE "?"
#endif
#if defined(__GNUC__) && !defined(__clang__)
        const char *compiler = "gcc " __VERSION__;
#elif defined(__VERSION__)
        const char *compiler = __VERSION__;
#else
        const char *compiler = "?";
#endif
        printf("tool: build type %s, C compiler %s, %s; host load average %s\n", REDSCAN_BENCH_BUILD_TYPE, compiler,
               br_omp_threads() ? "OpenMP" : "no OpenMP", load[0] ? load : "?");
    }
    printf("sizes:");
    for (int i = 0; i < o.nsizes; ++i)
        printf(" %zu", o.sizes[i]);
    printf(" (%s)\n", sizes_why);
    printf("timing: host CLOCK_MONOTONIC around each library call; the calls block until their device work is done\n"
           "        (reductions, argmax and top2 return their result in host memory)\n");
    if (st.scan_readback) {
        st.readback_s = readback_latency(st.ctx);
        printf("        %s scans return once queued: each timed scan also reads back its last element (a blocking\n"
               "        read ordered after the scan; that read alone takes %.1f us, median of 21)\n",
               st.backend, st.readback_s * 1e6);
    }
    printf("each case: one checked warm-up, one more warm-up, then the median of %d timed runs%s; every timed run's\n"
           "        result (scans: last element) must have the warm-up's bits\n",
           o.reps, st.reps_cpu_budget ? " (a case past 2 s stops after 3)" : "");
    if (!st.rotate)
        printf("rotation: off (--no-rotate): every run reads the same buffer\n");
    else
        printf("rotation: inputs (and scan outputs) cycle over identical buffers until a size's working set is >= 2 x "
               "L2 = %.0f MiB\n        (L2 %.0f MiB: %s; at most %d buffers)\n",
               2 * st.l2_bytes / 1048576.0, st.l2_bytes / 1048576.0,
               o.l2_mib > 0           ? "--l2-mb"
               : l2_reported > l2_default ? l2_src
                                          : "an H100's, the default",
               NBUF_MAX);
    printf("references, same run, same rotation:\n");
    if (st.is_cuda)
        printf("        copy: cudaMemcpyAsync device to device, CUDA events (bench/cub_compare.cu)\n");
    else if (st.ocl)
        printf("        copy: clEnqueueCopyBuffer on a separate OpenCL context on the same device, host clock around "
               "enqueue + clFinish\n");
    if (st.cub)
        printf("        cub: CUB %s on %s, CUDA events around the call (device time);\n"
               "             cub_hostclk: host clock around call + sync (+ result to host for reductions)\n",
               "(cub::DeviceReduce / cub::DeviceScan)",
               st.wrap ? "the same device memory as redscan (redscan_buffer_wrap_cuda)" : "CUDA memory of its own");
    if (st.host_refs)
        printf("        c_loop: plain C loops (one accumulator, in order; c_loop_8acc: eight); omp_read / omp_copy: "
               "%s\n",
               br_omp_threads() ? "OpenMP loops over every core" : "the same loops on one thread (no OpenMP)");
    printf("GB/s: reduce, argmax, top2 count n*size bytes; scan and copy count 2*n*size (read + write)\n");

    /* ---- the device's copy peak */
    size_t peak_bytes = st.is_cpu == 1 || o.quick ? ((size_t)256 << 20) : ((size_t)1 << 30);
    if (o.quick)
        peak_bytes = (size_t)64 << 20;
    if (st.dev_mem && peak_bytes > st.dev_mem / 8)
        peak_bytes = (size_t)(st.dev_mem / 8) & ~(size_t)4095;
    if (st.dev_max_alloc && peak_bytes > st.dev_max_alloc)
        peak_bytes = (size_t)st.dev_max_alloc & ~(size_t)4095;
    if (!st.tty)
        fprintf(stderr, "[bench %5.0fs] copy peak (%zu MiB)\n", now_s() - st.t_start, peak_bytes >> 20);
    printf("\n%-11s %-8s %-32s %10s %10s %9s %6s %6s %s\n", "op", "dtype", "algo", "n", "median_ms", "GB/s", "%copy",
           "vs_ref", "check");
    fflush(stdout);
    int peak_reps = o.reps < 5 ? 5 : o.reps;
    int peak_cuda = st.cuda_ok && (st.is_cuda || !st.ocl);
    st.copy_peak_gbs = device_copy(&st, peak_cuda, NULL, peak_bytes, 1, peak_reps, "copy_peak", "bytes", peak_bytes);
    st.copy_peak_src = peak_cuda ? "cudaMemcpy_d2d" : "clEnqueueCopyBuffer";
    if (st.host_refs) {
        unsigned char *a = malloc(peak_bytes), *b = malloc(peak_bytes);
        if (a && b) {
            memset(a, 1, peak_bytes);
            memset(b, 2, peak_bytes);
            double t[MAX_REPS];
            br_omp_copy(b, a, peak_bytes);
            for (int k = 0; k < peak_reps; ++k) {
                double t0 = now_s();
                br_omp_copy(b, a, peak_bytes);
                t[k] = now_s() - t0;
            }
            row_t r = {"ref", "copy_peak", "bytes", "omp_copy", peak_bytes, 2.0 * (double)peak_bytes, 1, peak_reps, 0,
                       0, "host_clock", R_REF, 0, NULL, 0, ""};
            r.med_s = median(t, peak_reps);
            r.min_s = t[0];
            double g = row_gbs(&r);
            if (g > st.copy_peak_gbs) {
                st.copy_peak_gbs = g;
                st.copy_peak_src = "omp_copy";
            }
            report(&st, &r);
        }
        free(a);
        free(b);
    }
#ifdef REDSCAN_BENCH_CUDA
    if (st.cub && !st.is_cuda && st.ocl) /* CUB's ceiling next to the OpenCL one */
        device_copy(&st, 1, NULL, peak_bytes, 1, peak_reps, "copy_peak", "bytes", peak_bytes);
#endif
    if (st.copy_peak_gbs > 0)
        printf("%%copy: GB/s as a percentage of the copy peak %.1f GB/s (%s, %zu MiB); vs_ref: GB/s over the GB/s of "
               "%s at the same n (> 1: faster)\n\n",
               st.copy_peak_gbs, st.copy_peak_src, peak_bytes >> 20,
               st.cub ? "cub (CUDA events)" : st.host_refs ? "c_loop (one accumulator)" : "(none in this run)");
    else
        printf("(no copy peak measured: %%copy stays empty)\n\n");
    fflush(stdout);

    for (int si = 0; si < o.nsizes; ++si)
        for (int di = 0; di < COUNT(k_dtypes); ++di)
            if ((o.dtype_mask >> k_dtypes[di]) & 1u)
                st.total += cases_per_dtype(&o, o.sizes[si]);

    int skip_dtype[COUNT(k_dtypes)] = {0};
    for (int si = 0; si < o.nsizes; ++si) {
        size_t n = o.sizes[si];
        for (int di = 0; di < COUNT(k_dtypes); ++di) {
            if (!((o.dtype_mask >> k_dtypes[di]) & 1u) || !cases_per_dtype(&o, n))
                continue;
            if (skip_dtype[di]) {
                st.done += cases_per_dtype(&o, n);
                continue;
            }
            if (!st.tty) {
                fflush(stdout);
                fprintf(stderr, "[bench %5.0fs] case %d/%d: n=%zu %s\n", now_s() - st.t_start, st.done + 1, st.total,
                        n, redscan_dtype_name(k_dtypes[di]));
                fflush(stderr);
            }
            int before = st.done;
            if (bench_dtype(&st, &o, k_dtypes[di], n)) {
                skip_dtype[di] = 1;
                st.done = before + cases_per_dtype(&o, n);
                progress_clear(&st);
                printf("(%s: unsupported on this device; skipped at every size)\n", redscan_dtype_name(k_dtypes[di]));
            }
        }
    }
    progress_clear(&st);

    printf("\n%d cases: %d passed, %d failed, %d unsupported; %d skipped (did not fit); references: %d failed; "
           "%.1f s\n",
           st.rows, st.passed, st.failed, st.unsupported, st.skipped, st.ref_failed, now_s() - st.t_start);
    if (st.unsupported) {
        printf("unsupported (not failures; each kind printed once above):\n");
        for (int i = 0; i < st.nunsup; ++i) {
            printf("  %-32s %4d cases", st.unsup[i].algo, st.unsup[i].count);
            if (i == 0 || strcmp(st.unsup[i].reason, st.unsup[i - 1].reason))
                printf(": %s", st.unsup[i].reason);
            printf("\n");
        }
    }
    redscan_destroy(st.ctx);
    br_ocl_close(st.ocl);
#ifdef REDSCAN_BENCH_CUDA
    if (st.cuda_ok)
        rsb_cuda_close();
#endif
    if (st.csv) {
        fclose(st.csv);
        printf("CSV written to %s\n", o.csv_path);
    }
    return st.failed || st.ref_failed ? 1 : 0;
}
