/* redscan bench: a verified sweep of every operation x dtype x algorithm on the selected backend.
 *
 * For each size n and dtype the tool generates a deterministic input on the host, uploads it once, and for
 * every case runs one warm-up call whose result is checked against a reference computed here, then N timed
 * calls of the device-buffer API (the calls are blocking, so a monotonic host clock around each call measures
 * the whole operation). It reports the median, the bandwidth (reduce, argmax, top-2: n*size bytes read;
 * scan: 2*n*size, read + write) and the check.
 *
 * Inputs (chosen so that every check is meaningful):
 *   integers, sum/min/max/argmax/top-2: uniform over the whole type (sums wrap; checked exactly);
 *   integers, prod: random odd values (the product never collapses to 0; checked exactly);
 *   floats, sum/min/max/argmax/top-2: uniform in [-1, 1) with the type's full mantissa;
 *   floats, prod: 1 + u, u uniform in [-2^-10, 2^-10) (the product stays in range at any n).
 * Checks: integers exactly (modulo 2^bits); float min/max, argmax, top-2 exactly; float sums within
 * (2 log2 n + 64) eps * sum|x| (a bound for any combination tree of that depth, eps of the data type);
 * float products within (8 sqrt(n) + 64) eps * |product|. References use long double, sums compensated. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "redscan.h"

/* ------------------------------------------------------------------------------------------- options */

#define MAX_SIZES 32

typedef struct {
    redscan_backend backend;
    size_t sizes[MAX_SIZES];
    int nsizes;
    int sizes_given;
    int reps;
    int reps_given;
    unsigned dtype_mask; /* bit dtype: run it */
    unsigned op_mask;    /* bits 0-3: redscan_op, bit 4 argmax, bit 5 top-2 */
    int quick;
    const char *csv_path;
    int do_reduce;
    int do_scan;
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
        if (o->nsizes >= MAX_SIZES || !parse_size(tok, &o->sizes[o->nsizes]))
            return 0;
        o->nsizes++;
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
    o->reps = 10;
    o->do_reduce = o->do_scan = 1;
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
                          !strcmp(name, "--csv") || !strcmp(name, "--dtypes") || !strcmp(name, "--ops");
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
                                         "65536,1M,2^24)",
                                         val);
            o->sizes_given = 1;
        } else if (!strcmp(name, "--reps")) {
            char *end = NULL;
            errno = 0;
            long r = strtol(val, &end, 10);
            if (errno || end == val || *end || r < 1 || r > 1000)
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
    if (scan_only)
        o->do_reduce = 0;
    if (reduce_only)
        o->do_scan = 0;
    if (o->quick && !o->reps_given)
        o->reps = 3;
    return -1;
}

/* Default sizes, once the device is known: a CPU device (PoCL) gets smaller ones so that the whole sweep
 * stays within a few minutes on two cores. */
static const char *default_sizes(bench_opts *o, int is_cpu)
{
    static const int gpu[3] = {16, 20, 24}, cpu[3] = {12, 16, 20}, quick[3] = {10, 14, 17};
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

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int is_float(redscan_dtype dt) { return dt == REDSCAN_FLOAT32 || dt == REDSCAN_FLOAT64; }
static int is_signed_int(redscan_dtype dt) { return dt == REDSCAN_INT32 || dt == REDSCAN_INT64; }
static int int_bits(redscan_dtype dt) { return (dt == REDSCAN_INT32 || dt == REDSCAN_UINT32) ? 32 : 64; }
static uint64_t int_mask(redscan_dtype dt) { return int_bits(dt) == 32 ? 0xFFFFFFFFull : ~0ull; }

/* Integer element as uint64 (signed types sign-extended). */
static uint64_t get_u(const void *p, redscan_dtype dt, size_t i)
{
    switch (dt) {
    case REDSCAN_INT32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case REDSCAN_UINT32: return ((const uint32_t *)p)[i];
    case REDSCAN_INT64: return (uint64_t)((const int64_t *)p)[i];
    case REDSCAN_UINT64: return ((const uint64_t *)p)[i];
    default: return 0;
    }
}

static long double get_f(const void *p, redscan_dtype dt, size_t i)
{
    return dt == REDSCAN_FLOAT32 ? (long double)((const float *)p)[i] : (long double)((const double *)p)[i];
}

static void put_u(void *p, redscan_dtype dt, size_t i, uint64_t v)
{
    switch (dt) {
    case REDSCAN_INT32: ((int32_t *)p)[i] = (int32_t)(uint32_t)v; break;
    case REDSCAN_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case REDSCAN_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case REDSCAN_UINT64: ((uint64_t *)p)[i] = v; break;
    default: break;
    }
}

/* Signed / unsigned comparison of two integers of dtype given as get_u values: a < b. */
static int int_less(redscan_dtype dt, uint64_t a, uint64_t b)
{
    return is_signed_int(dt) ? (int64_t)a < (int64_t)b : a < b;
}

/* Fill host arrays: gen (sum/min/max/argmax/top-2) and prod (products). */
static void generate(redscan_dtype dt, size_t n, void *gen, void *prod)
{
    uint64_t s = 0x5EED0000ull ^ ((uint64_t)dt << 40) ^ (uint64_t)n;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = splitmix64(&s), q = splitmix64(&s);
        switch (dt) {
        case REDSCAN_FLOAT32: {
            /* k / 2^23, k uniform in [-2^23, 2^23): every value exact in float32 */
            int32_t k = (int32_t)(r >> 40) - (1 << 23);
            ((float *)gen)[i] = (float)k / 8388608.0f;
            int32_t u = (int32_t)(q >> 40) - (1 << 23); /* 1 + u / 2^33 */
            ((float *)prod)[i] = (float)(1.0 + (double)u / 8589934592.0);
            break;
        }
        case REDSCAN_FLOAT64: {
            int64_t k = (int64_t)(r >> 11) - ((int64_t)1 << 52);
            ((double *)gen)[i] = (double)k / 4503599627370496.0;
            int64_t u = (int64_t)(q >> 11) - ((int64_t)1 << 52); /* 1 + u / 2^62 */
            ((double *)prod)[i] = 1.0 + (double)u / 4611686018427387904.0;
            break;
        }
        default:
            put_u(gen, dt, i, r);
            put_u(prod, dt, i, q | 1u);
            break;
        }
    }
}

static double type_eps(redscan_dtype dt) { return dt == REDSCAN_FLOAT32 ? (double)FLT_EPSILON : DBL_EPSILON; }

static double sum_tol_factor(redscan_dtype dt, size_t n)
{
    return (2.0 * log2((double)n + 1.0) + 64.0) * type_eps(dt);
}

static double prod_tol_factor(redscan_dtype dt, size_t n)
{
    return (8.0 * sqrt((double)n) + 64.0) * type_eps(dt);
}

/* Compensated (Neumaier) long double accumulator for float sums. */
typedef struct {
    long double s, c, abs;
} ksum;

static void ksum_add(ksum *k, long double x)
{
    long double t = k->s + x;
    if (fabsl(k->s) >= fabsl(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
    k->abs += fabsl(x);
}

/* Reference state of a running reduction / scan. */
typedef struct {
    redscan_op op;
    redscan_dtype dt;
    uint64_t u;   /* integers */
    ksum k;       /* float sums */
    long double p; /* float prod */
    long double m; /* float min/max */
    size_t count;
} ref_acc;

static void ref_init(ref_acc *r, redscan_op op, redscan_dtype dt)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->dt = dt;
    r->p = 1.0L;
    r->m = op == REDSCAN_MIN ? INFINITY : -INFINITY;
    if (!is_float(dt)) {
        switch (op) {
        case REDSCAN_SUM: r->u = 0; break;
        case REDSCAN_PROD: r->u = 1; break;
        case REDSCAN_MIN:
            r->u = is_signed_int(dt) ? (int_bits(dt) == 32 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX)
                                     : int_mask(dt);
            break;
        case REDSCAN_MAX:
            r->u = is_signed_int(dt) ? (int_bits(dt) == 32 ? (uint64_t)(int64_t)INT32_MIN : (uint64_t)INT64_MIN)
                                     : 0;
            break;
        }
    }
}

static void ref_add(ref_acc *r, const void *data, size_t i)
{
    r->count++;
    if (is_float(r->dt)) {
        long double x = get_f(data, r->dt, i);
        switch (r->op) {
        case REDSCAN_SUM: ksum_add(&r->k, x); break;
        case REDSCAN_PROD: r->p *= x; break;
        case REDSCAN_MIN: if (x < r->m) r->m = x; break;
        case REDSCAN_MAX: if (x > r->m) r->m = x; break;
        }
        return;
    }
    uint64_t x = get_u(data, r->dt, i);
    switch (r->op) {
    case REDSCAN_SUM: r->u += x; break;
    case REDSCAN_PROD: r->u *= x; break;
    case REDSCAN_MIN: if (int_less(r->dt, x, r->u)) r->u = x; break;
    case REDSCAN_MAX: if (int_less(r->dt, r->u, x)) r->u = x; break;
    }
}

/* Compare element `got` (element i of array p) with the reference state. Returns 1 when within tolerance and
 * writes got/expected to the strings on a mismatch. */
static int ref_check(const ref_acc *r, const void *p, size_t i, char *got, char *want, size_t len)
{
    if (!is_float(r->dt)) {
        uint64_t g = get_u(p, r->dt, i) & int_mask(r->dt), w = r->u & int_mask(r->dt);
        if (g == w)
            return 1;
        if (is_signed_int(r->dt)) {
            snprintf(got, len, "%lld", (long long)get_u(p, r->dt, i));
            int64_t ws = int_bits(r->dt) == 32 ? (int64_t)(int32_t)(uint32_t)w : (int64_t)w;
            snprintf(want, len, "%lld", (long long)ws);
        } else {
            snprintf(got, len, "%llu", (unsigned long long)g);
            snprintf(want, len, "%llu", (unsigned long long)w);
        }
        return 0;
    }
    long double g = get_f(p, r->dt, i), w, tol = 0.0L;
    switch (r->op) {
    case REDSCAN_SUM:
        w = r->k.s + r->k.c;
        tol = (long double)sum_tol_factor(r->dt, r->count) * r->k.abs + (long double)DBL_MIN;
        break;
    case REDSCAN_PROD:
        w = r->p;
        tol = (long double)prod_tol_factor(r->dt, r->count) * fabsl(w) + (long double)DBL_MIN;
        break;
    default:
        w = r->m;
        break;
    }
    if (!isnan(g) && fabsl(g - w) <= tol)
        return 1;
    snprintf(got, len, "%.17Lg", g);
    snprintf(want, len, "%.17Lg (tolerance %.3Lg)", w, tol);
    return 0;
}

/* ------------------------------------------------------------------------------------------- results */

#define DETAIL_MAX 2048
/* Without --reps, a case stops timing after 3 runs once its timed runs passed this many seconds. */
#define CASE_BUDGET_S 2.0

typedef struct {
    FILE *csv;
    double copy_rw_gbs; /* host memcpy, read + write */
    int rows, passed, failed, unsupported;
    int tty;
    int done, total;
    double t_start;
    /* (algorithm, reason) pairs reported unsupported: each printed once, then counted */
    struct {
        char algo[48];
        char reason[200];
        int count;
    } unsup[64];
    int nunsup;
} bench_state;

static const char *result_word(int r) { return r == 1 ? "pass" : r == 0 ? "FAIL" : r == 2 ? "unsupported" : "ERROR"; }

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void progress_clear(bench_state *st)
{
    if (st->tty)
        fprintf(stderr, "\r%*s\r", 100, "");
}

/* result: 1 pass, 0 fail, 2 unsupported, 3 error. */
static void report(bench_state *st, const char *op, redscan_dtype dt, const char *algo, size_t n, double med_s,
                   double min_s, int reps, double bytes, int result, const char *detail)
{
    double gbs = (result == 1 || result == 0) && med_s > 0 ? bytes / med_s * 1e-9 : 0.0;
    st->rows++;
    if (result == 1)
        st->passed++;
    else if (result == 2)
        st->unsupported++;
    else
        st->failed++;
    if (st->csv) {
        fprintf(st->csv, "%s,%s,%s,%zu,%.6f,%.6f,%.3f,%.4f,%d,%s,", op, redscan_dtype_name(dt), algo, n, med_s * 1e3,
                min_s * 1e3, gbs, st->copy_rw_gbs > 0 ? gbs / st->copy_rw_gbs : 0.0, reps, result_word(result));
        csv_field(st->csv, detail ? detail : "");
        fputc('\n', st->csv);
        fflush(st->csv);
    }
    if (result == 2) {
        /* print an unsupported (algorithm, reason) once, then only count it */
        char reason[200];
        snprintf(reason, sizeof reason, "%s", detail ? detail : "");
        for (int i = 0; i < st->nunsup; ++i)
            if (!strcmp(st->unsup[i].algo, algo) && !strcmp(st->unsup[i].reason, reason)) {
                st->unsup[i].count++;
                return;
            }
        int reason_seen = 0;
        for (int i = 0; i < st->nunsup; ++i)
            reason_seen |= !strcmp(st->unsup[i].reason, reason);
        if (reason_seen)
            detail = NULL; /* the reason was printed once already */
        if (st->nunsup < 64) {
            snprintf(st->unsup[st->nunsup].algo, sizeof st->unsup[0].algo, "%s", algo);
            memcpy(st->unsup[st->nunsup].reason, reason, sizeof reason);
            st->unsup[st->nunsup++].count = 1;
        }
    }
    progress_clear(st);
    if (result == 1 || result == 0)
        printf("%-11s %-8s %-32s %10zu %10.3f %8.2f %s\n", op, redscan_dtype_name(dt), algo, n, med_s * 1e3, gbs,
               result_word(result));
    else
        printf("%-11s %-8s %-32s %10zu %10s %8s %s\n", op, redscan_dtype_name(dt), algo, n, "-", "-",
               result_word(result));
    if (result != 1 && detail && *detail) {
        /* keep the table readable: the first lines of the detail (a build log can be long) */
        char buf[DETAIL_MAX];
        snprintf(buf, sizeof buf, "%s", detail);
        int lines = 0;
        for (char *line = buf; line && lines < (result == 2 ? 1 : 12); ++lines) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            printf("    %s\n", line);
            line = nl ? nl + 1 : NULL;
        }
    }
    fflush(stdout);
}

static void progress(bench_state *st, const char *op, redscan_dtype dt, const char *algo, size_t n)
{
    st->done++;
    if (!st->tty)
        return;
    fprintf(stderr, "\r[%4d/%d %5.0fs] %s %s %s n=%zu%-20s", st->done, st->total, now_s() - st->t_start, op,
            redscan_dtype_name(dt), algo, n, "");
    fflush(stderr);
}

static void status_detail(redscan_ctx *ctx, redscan_status s, char *detail)
{
    const char *e = redscan_last_error(ctx);
    if (s == REDSCAN_ERR_UNSUPPORTED && e && *e) /* the reason says it all */
        snprintf(detail, DETAIL_MAX, "%s", e);
    else
        snprintf(detail, DETAIL_MAX, "%s%s%s", redscan_status_string(s), e && *e ? ": " : "", e ? e : "");
}

/* ------------------------------------------------------------------------------------------- cases */

typedef enum { CASE_REDUCE, CASE_SCAN, CASE_ARGMAX, CASE_TOP2 } case_kind;

typedef struct {
    case_kind kind;
    redscan_op op;
    redscan_dtype dt;
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

static redscan_status run_case(redscan_ctx *ctx, bench_case *c)
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
        d.block = c->block;
        d.grid = c->grid;
        redscan_status s = redscan_scan_ex(ctx, &d, c->in, c->out, c->n);
        /* The call may return once the work is queued; reading one element back waits for all of it (the
         * transfers are blocking and ordered after the scan), so the timing covers the whole scan. */
        if (s == REDSCAN_OK)
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

/* Host reference of argmax / top-2 under the library's order: larger first, ties to the lower index
 * (the bench data hold no NaN). */
static int better(const void *data, redscan_dtype dt, size_t i, size_t j)
{
    if (is_float(dt)) {
        long double a = get_f(data, dt, i), b = get_f(data, dt, j);
        return a > b || (a == b && i < j);
    }
    uint64_t a = get_u(data, dt, i), b = get_u(data, dt, j);
    return int_less(dt, b, a) || (a == b && i < j);
}

static int same_element(const void *data, size_t i, const void *val, redscan_dtype dt)
{
    size_t sz = redscan_dtype_size(dt);
    return memcmp((const unsigned char *)data + i * sz, val, sz) == 0;
}

/* Verify the warm-up result. host_in: the input, host_out: scratch of n elements (scans). */
static int verify(redscan_ctx *ctx, bench_case *c, const void *host_in, void *host_out, char *detail)
{
    char got[128], want[128];
    size_t n = c->n, sz = redscan_dtype_size(c->dt);
    detail[0] = '\0';
    switch (c->kind) {
    case CASE_REDUCE: {
        ref_acc r;
        ref_init(&r, c->op, c->dt);
        for (size_t i = 0; i < n; ++i)
            ref_add(&r, host_in, i);
        if (ref_check(&r, c->value, 0, got, want, sizeof got))
            return 1;
        snprintf(detail, DETAIL_MAX, "result %s, expected %s", got, want);
        return 0;
    }
    case CASE_SCAN: {
        redscan_status s = redscan_buffer_read(ctx, c->out, 0, host_out, n * sz);
        if (s != REDSCAN_OK) {
            status_detail(ctx, s, detail);
            return 3;
        }
        ref_acc r;
        ref_init(&r, c->op, c->dt);
        size_t bad = 0, first = 0;
        char fgot[128] = "", fwant[128] = "";
        for (size_t i = 0; i < n; ++i) {
            ref_add(&r, host_in, i);
            if (!ref_check(&r, host_out, i, got, want, sizeof got)) {
                if (!bad++) {
                    first = i;
                    memcpy(fgot, got, sizeof fgot);
                    memcpy(fwant, want, sizeof fwant);
                }
            }
        }
        if (!bad)
            return 1;
        snprintf(detail, DETAIL_MAX, "%zu of %zu outputs wrong; first at i=%zu: got %s, expected %s", bad, n, first,
                 fgot, fwant);
        return 0;
    }
    case CASE_ARGMAX: {
        size_t best = 0;
        for (size_t i = 1; i < n; ++i)
            if (better(host_in, c->dt, i, best))
                best = i;
        if (c->idx[0] == best && same_element(host_in, best, c->value, c->dt))
            return 1;
        snprintf(detail, DETAIL_MAX, "index %llu, expected %zu%s", (unsigned long long)c->idx[0], best,
                 c->idx[0] == best ? " (value differs)" : "");
        return 0;
    }
    case CASE_TOP2: {
        size_t b0 = 0, b1 = 1;
        if (better(host_in, c->dt, b1, b0)) {
            b0 = 1;
            b1 = 0;
        }
        for (size_t i = 2; i < n; ++i) {
            if (better(host_in, c->dt, i, b0)) {
                b1 = b0;
                b0 = i;
            } else if (better(host_in, c->dt, i, b1)) {
                b1 = i;
            }
        }
        if (c->idx[0] == b0 && c->idx[1] == b1 && same_element(host_in, b0, c->vals, c->dt) &&
            same_element(host_in, b1, c->vals + sz, c->dt))
            return 1;
        snprintf(detail, DETAIL_MAX, "indices %llu,%llu, expected %zu,%zu%s", (unsigned long long)c->idx[0],
                 (unsigned long long)c->idx[1], b0, b1,
                 c->idx[0] == b0 && c->idx[1] == b1 ? " (values differ)" : "");
        return 0;
    }
    }
    return 3;
}

/* Warm up + verify + time one case, print its row. Returns the status of the warm-up call. */
static redscan_status bench_one(redscan_ctx *ctx, bench_state *st, const bench_opts *o, bench_case *c,
                                const char *opname, const char *algo, const void *host_in, void *host_out)
{
    char detail[DETAIL_MAX];
    size_t sz = redscan_dtype_size(c->dt);
    double bytes = (double)c->n * (double)sz * (c->kind == CASE_SCAN ? 2.0 : 1.0);
    progress(st, opname, c->dt, algo, c->n);

    redscan_status s = run_case(ctx, c);
    if (s != REDSCAN_OK) {
        status_detail(ctx, s, detail);
        report(st, opname, c->dt, algo, c->n, 0, 0, 0, bytes, s == REDSCAN_ERR_UNSUPPORTED ? 2 : 3, detail);
        return s;
    }
    int ok = verify(ctx, c, host_in, host_out, detail);
    if (ok == 3) {
        report(st, opname, c->dt, algo, c->n, 0, 0, 0, bytes, 3, detail);
        return REDSCAN_ERR_DEVICE;
    }
    double times[1000], spent = 0;
    int reps = o->reps;
    for (int r = 0; r < reps; ++r) {
        if (!o->reps_given && r >= 3 && spent > CASE_BUDGET_S) {
            reps = r; /* a slow case: stop at >= 3 runs once past the budget */
            break;
        }
        double t0 = now_s();
        s = run_case(ctx, c);
        double t1 = now_s();
        if (s != REDSCAN_OK) {
            status_detail(ctx, s, detail);
            report(st, opname, c->dt, algo, c->n, 0, 0, 0, bytes, 3, detail);
            return s;
        }
        times[r] = t1 - t0;
        spent += times[r];
    }
    double med = median(times, reps); /* sorts: times[0] is the minimum */
    report(st, opname, c->dt, algo, c->n, med, times[0], reps, bytes, ok, detail);
    return REDSCAN_OK;
}

/* ------------------------------------------------------------------------------------------- host references */

static double host_copy_gbs(size_t bytes, double *copy_gbs)
{
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        *copy_gbs = 0;
        return 0;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double t[7];
    for (int r = 0; r < 7; ++r) {
        double t0 = now_s();
        memcpy(b, a, bytes);
        t[r] = now_s() - t0;
        a[(size_t)r * 4096 % bytes] ^= b[bytes / 2]; /* keep the copies observable */
    }
    double med = median(t, 7);
    free(a);
    free(b);
    *copy_gbs = (double)bytes / med * 1e-9;
    return 2.0 * (double)bytes / med * 1e-9;
}

static volatile float sink_f;

/* The plain loop the compiler is given (no fast-math: one dependent addition per element). */
static float plain_sum(const float *x, size_t n)
{
    float s = 0.0f;
    for (size_t i = 0; i < n; ++i)
        s += x[i];
    return s;
}

/* Eight independent accumulators: what a careful C programmer writes; vectorisable without reassociation. */
static float plain_sum8(const float *x, size_t n)
{
    float s[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (size_t k = 0; k < 8; ++k)
            s[k] += x[i + k];
    for (; i < n; ++i)
        s[0] += x[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static void host_loop_gbs(size_t n, double *gbs1, double *gbs8)
{
    float *x = malloc(n * sizeof *x);
    *gbs1 = *gbs8 = 0;
    if (!x)
        return;
    for (size_t i = 0; i < n; ++i)
        x[i] = (float)(i % 1000) * 0.001f;
    double t1[5], t8[5];
    for (int r = 0; r < 5; ++r) {
        double t0 = now_s();
        sink_f = plain_sum(x, n);
        t1[r] = now_s() - t0;
        t0 = now_s();
        sink_f = plain_sum8(x, n);
        t8[r] = now_s() - t0;
    }
    *gbs1 = (double)n * sizeof(float) / median(t1, 5) * 1e-9;
    *gbs8 = (double)n * sizeof(float) / median(t8, 5) * 1e-9;
    free(x);
}

/* ------------------------------------------------------------------------------------------- sweep */

static const redscan_dtype k_dtypes[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64,
                                         REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
static const redscan_op k_ops[] = {REDSCAN_SUM, REDSCAN_PROD, REDSCAN_MIN, REDSCAN_MAX};
static const redscan_reduce_algo k_ralgos[] = {REDSCAN_REDUCE_TREE, REDSCAN_REDUCE_INTERLEAVED,
                                               REDSCAN_REDUCE_COARSENED};
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

/* Runs every case of (n, dtype). Returns 0 when done, 1 when the dtype is unsupported (skip it). */
static int bench_dtype(redscan_ctx *ctx, bench_state *st, const bench_opts *o, redscan_dtype dt, size_t n)
{
    size_t sz = redscan_dtype_size(dt);
    void *gen = malloc(n * sz), *prd = malloc(n * sz), *out = o->do_scan ? malloc(n * sz) : NULL;
    redscan_buffer *dgen = NULL, *dprd = NULL, *dout = NULL;
    int rc = 0;
    char detail[DETAIL_MAX];
    if (!gen || !prd || (o->do_scan && !out)) {
        progress_clear(st);
        printf("%-11s %-8s %-32s %10zu %10s %8s ERROR\n    host allocation of %zu bytes failed\n", "*",
               redscan_dtype_name(dt), "*", n, "-", "-", 3 * n * sz);
        st->failed++;
        goto done;
    }
    generate(dt, n, gen, prd);
    redscan_status s = redscan_buffer_create(ctx, n * sz, &dgen);
    if (s == REDSCAN_OK)
        s = redscan_buffer_create(ctx, n * sz, &dprd);
    if (s == REDSCAN_OK && o->do_scan)
        s = redscan_buffer_create(ctx, n * sz, &dout);
    if (s == REDSCAN_OK)
        s = redscan_buffer_write(ctx, dgen, 0, gen, n * sz);
    if (s == REDSCAN_OK)
        s = redscan_buffer_write(ctx, dprd, 0, prd, n * sz);
    if (s != REDSCAN_OK) {
        status_detail(ctx, s, detail);
        progress_clear(st);
        printf("%-11s %-8s %-32s %10zu %10s %8s ERROR\n    device buffers of %zu bytes: %s\n", "*",
               redscan_dtype_name(dt), "*", n, "-", "-", n * sz, detail);
        st->failed++;
        st->done += cases_per_dtype(o, n);
        goto done;
    }

    int first = 1; /* FLOAT64 unsupported at the first case: skip the dtype */
    char opname[32], algo[64];
    if (o->do_reduce) {
        for (int oi = 0; oi < COUNT(k_ops); ++oi) {
            if (!op_on(o, (int)k_ops[oi]))
                continue;
            for (int ai = 0; ai < COUNT(k_ralgos); ++ai) {
                bench_case c;
                memset(&c, 0, sizeof c);
                c.kind = CASE_REDUCE;
                c.op = k_ops[oi];
                c.dt = dt;
                c.ralgo = k_ralgos[ai];
                c.in = k_ops[oi] == REDSCAN_PROD ? dprd : dgen;
                c.n = n;
                snprintf(opname, sizeof opname, "reduce.%s", redscan_op_name(c.op));
                snprintf(algo, sizeof algo, "%s", redscan_reduce_algo_name(c.ralgo));
                s = bench_one(ctx, st, o, &c, opname, algo, k_ops[oi] == REDSCAN_PROD ? prd : gen, out);
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
        c.in = dgen;
        c.n = n;
        if (op_on(o, OP_ARGMAX))
            bench_one(ctx, st, o, &c, "argmax", "-", gen, out);
        if (n >= 2 && op_on(o, OP_TOP2)) {
            c.kind = CASE_TOP2;
            bench_one(ctx, st, o, &c, "top2", "-", gen, out);
        }
    }
    if (o->do_scan) {
        for (int oi = 0; oi < COUNT(k_ops); ++oi) {
            if (!op_on(o, (int)k_ops[oi]))
                continue;
            for (int bi = 0; bi < COUNT(k_blocks); ++bi) {
                for (int gi = 0; gi < COUNT(k_grids); ++gi) {
                    bench_case c;
                    memset(&c, 0, sizeof c);
                    c.kind = CASE_SCAN;
                    c.op = k_ops[oi];
                    c.dt = dt;
                    c.block = k_blocks[bi];
                    c.grid = k_grids[gi];
                    c.in = k_ops[oi] == REDSCAN_PROD ? dprd : dgen;
                    c.out = dout;
                    c.n = n;
                    snprintf(opname, sizeof opname, "scan.%s", redscan_op_name(c.op));
                    snprintf(algo, sizeof algo, "%s/%s", redscan_block_scan_name(c.block),
                             redscan_grid_scan_name(c.grid));
                    s = bench_one(ctx, st, o, &c, opname, algo, k_ops[oi] == REDSCAN_PROD ? prd : gen, out);
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
    if (dout)
        redscan_buffer_destroy(ctx, dout);
    if (dprd)
        redscan_buffer_destroy(ctx, dprd);
    if (dgen)
        redscan_buffer_destroy(ctx, dgen);
    free(gen);
    free(prd);
    free(out);
    return rc;
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
    if (o.csv_path) {
        st.csv = fopen(o.csv_path, "w");
        if (!st.csv) {
            fprintf(stderr, "redscan bench: cannot open %s: %s\n", o.csv_path, strerror(errno));
            return 1;
        }
        fprintf(st.csv, "op,dtype,algo,n,median_ms,min_ms,gbps,frac_host_copy,reps,check,detail\n");
    }

    redscan_ctx *ctx = NULL;
    redscan_status s = redscan_create(&ctx, o.backend);
    if (s != REDSCAN_OK) {
        const char *e = redscan_last_error(NULL);
        fprintf(stderr, "redscan bench: cannot create a context: %s%s%s\n", redscan_status_string(s),
                e && *e ? ": " : "", e ? e : "");
        if (st.csv)
            fclose(st.csv);
        return 1;
    }

    const char *sizes_why = "--sizes";
    if (!o.sizes_given)
        sizes_why = default_sizes(&o, cli_device_is_cpu(redscan_backend_name(ctx), redscan_device_name(ctx)));
    size_t nmax = 0;
    for (int i = 0; i < o.nsizes; ++i)
        if (o.sizes[i] > nmax)
            nmax = o.sizes[i];

    printf("redscan %s bench: backend %s, device %s\n", REDSCAN_VERSION_STRING, redscan_backend_name(ctx),
           redscan_device_name(ctx));
    printf("sizes:");
    for (int i = 0; i < o.nsizes; ++i)
        printf(" %zu", o.sizes[i]);
    printf(" (%s)\n", sizes_why);
    printf("each case: one checked warm-up, then the median of %d timed runs%s\n", o.reps,
           o.reps_given ? "" : " (a case past 2 s stops after 3)");
    printf("GB/s: reduce, argmax, top2 count n*size bytes; scan counts 2*n*size (read + write)\n");
    static const char *const algo_vars[] = {"REDSCAN_REDUCE_ALGO", "REDSCAN_SCAN_BLOCK", "REDSCAN_SCAN_GRID"};
    for (int i = 0; i < 3; ++i)
        if (getenv(algo_vars[i]) && *getenv(algo_vars[i]))
            printf("note: %s=%s has no effect here: every case names its algorithm\n", algo_vars[i],
                   getenv(algo_vars[i]));

    /* host references: on PoCL the "device" is this CPU */
    size_t copy_bytes = o.quick ? ((size_t)64 << 20) : ((size_t)256 << 20);
    double copy_gbs = 0, loop1 = 0, loop8 = 0;
    st.copy_rw_gbs = host_copy_gbs(copy_bytes, &copy_gbs);
    size_t loop_n = nmax < ((size_t)1 << 20) ? ((size_t)1 << 20) : nmax;
    host_loop_gbs(loop_n, &loop1, &loop8);
    printf("host: memcpy %zu MiB: %.2f GB/s copied (%.2f GB/s read+write); plain C loop sum float32 n=%zu: "
           "%.2f GB/s (one accumulator), %.2f GB/s (8 accumulators)\n\n",
           copy_bytes >> 20, copy_gbs, st.copy_rw_gbs, loop_n, loop1, loop8);
    if (st.csv) {
        fprintf(st.csv, "host.memcpy,uint8,memcpy,%zu,0,0,%.3f,1,7,info,\"read+write\"\n", copy_bytes,
                st.copy_rw_gbs);
        fprintf(st.csv, "host.sum,float32,plain_loop,%zu,0,0,%.3f,%.4f,5,info,\"\"\n", loop_n, loop1,
                st.copy_rw_gbs > 0 ? loop1 / st.copy_rw_gbs : 0.0);
        fprintf(st.csv, "host.sum,float32,plain_loop_8acc,%zu,0,0,%.3f,%.4f,5,info,\"\"\n", loop_n, loop8,
                st.copy_rw_gbs > 0 ? loop8 / st.copy_rw_gbs : 0.0);
    }

    for (int si = 0; si < o.nsizes; ++si)
        for (int di = 0; di < COUNT(k_dtypes); ++di)
            if ((o.dtype_mask >> k_dtypes[di]) & 1u)
                st.total += cases_per_dtype(&o, o.sizes[si]);

    printf("%-11s %-8s %-32s %10s %10s %8s %s\n", "op", "dtype", "algo", "n", "median_ms", "GB/s", "check");
    fflush(stdout);
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
                fprintf(stderr, "[bench %5.0fs] case %d/%d: n=%zu %s\n", now_s() - st.t_start, st.done + 1,
                        st.total, n, redscan_dtype_name(k_dtypes[di]));
                fflush(stderr);
            }
            int before = st.done;
            if (bench_dtype(ctx, &st, &o, k_dtypes[di], n)) {
                skip_dtype[di] = 1;
                st.done = before + cases_per_dtype(&o, n);
                progress_clear(&st);
                printf("(%s: unsupported on this device; skipped at every size)\n", redscan_dtype_name(k_dtypes[di]));
            }
        }
    }
    progress_clear(&st);

    printf("\n%d cases: %d passed, %d failed, %d unsupported; %.1f s\n", st.rows, st.passed, st.failed,
           st.unsupported, now_s() - st.t_start);
    if (st.unsupported) {
        printf("unsupported (not failures; each kind printed once above):\n");
        for (int i = 0; i < st.nunsup; ++i) {
            printf("  %-32s %4d cases", st.unsup[i].algo, st.unsup[i].count);
            if (i == 0 || strcmp(st.unsup[i].reason, st.unsup[i - 1].reason))
                printf(": %s", st.unsup[i].reason);
            printf("\n");
        }
    }
    redscan_destroy(ctx);
    if (st.csv) {
        fclose(st.csv);
        printf("CSV written to %s\n", o.csv_path);
    }
    return st.failed ? 1 : 0;
}
