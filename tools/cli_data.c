/* redscan reduce | mean | argmin | argmax | topk | scan FILE: the library on a user's data (a NumPy .npy file or raw
 * binary with --dtype, mapped, never read twice: tools/npy.c). Results print as text, or as one JSON object with
 * --json; a scan writes a 1-D .npy file (-o) that numpy loads back. Bad files and bad options exit non-zero with a
 * message (2 for usage, 1 for everything else), never with a wrong answer. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npy.h"
#include "redscan.h"

typedef struct {
    const char *cmd;
    const char *file;
    const char *out;
    redscan_dtype dtype, out_dtype;
    redscan_op op;
    redscan_backend backend;
    redscan_reduce_algo algo;
    redscan_block_scan block;
    redscan_grid_scan grid;
    size_t k;
    int k_given, smallest, exclusive, json;
} data_opts;

static int data_usage(const char *fmt, const char *what)
{
    fprintf(stderr, "redscan: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(redscan help: the options of redscan reduce|mean|argmin|argmax|topk|scan)\n");
    return CLI_EXIT_USAGE;
}

/* An enum value by its name through the library's own name function (index = value). */
static int by_name(const char *(*name_of)(int), int count, const char *text)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(name_of(i), text)) return i;
    return -1;
}
static const char *reduce_name(int v) { return redscan_reduce_algo_name((redscan_reduce_algo)v); }
static const char *block_name(int v) { return redscan_block_scan_name((redscan_block_scan)v); }
static const char *grid_name(int v) { return redscan_grid_scan_name((redscan_grid_scan)v); }
static const char *op_name(int v) { return redscan_op_name((redscan_op)v); }

static int parse(int argc, char **argv, data_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--json")) o->json = 1, takes = 0;
        else if (!strcmp(a, "--exclusive")) o->exclusive = 1, takes = 0;
        else if (!strcmp(a, "--smallest")) o->smallest = 1, takes = 0;
        else if (a[0] == '-' && a[1] && !v) return data_usage("%s needs a value", a);
        else if (!strcmp(a, "--op")) {
            int x = by_name(op_name, 4, v);
            if (x < 0) return data_usage("--op '%s' is not one of sum, prod, min, max", v);
            o->op = (redscan_op)x;
        } else if (!strcmp(a, "--dtype") || !strcmp(a, "--out-dtype")) {
            redscan_dtype d = npy_dtype_from_name(v);
            if (!d) return data_usage("'%s' is not one of int32, uint32, int64, uint64, float32, float64", v);
            if (a[2] == 'd') o->dtype = d;
            else o->out_dtype = d;
        } else if (!strcmp(a, "--backend")) {
            if (!strcmp(v, "auto")) o->backend = REDSCAN_BACKEND_AUTO;
            else if (!strcmp(v, "cuda")) o->backend = REDSCAN_BACKEND_CUDA;
            else if (!strcmp(v, "opencl")) o->backend = REDSCAN_BACKEND_OPENCL;
            else return data_usage("--backend '%s' is not one of auto, cuda, opencl", v);
        } else if (!strcmp(a, "--algo")) {
            int x = by_name(reduce_name, 6, v);
            if (x < 0) return data_usage("--algo '%s' is not one of auto, tree, interleaved, coarsened, warp_sync, shuffle", v);
            o->algo = (redscan_reduce_algo)x;
        } else if (!strcmp(a, "--block")) {
            int x = by_name(block_name, 5, v);
            if (x < 0) return data_usage("--block '%s' is not one of auto, kogge_stone, kogge_stone_db, brent_kung, coarsened", v);
            o->block = (redscan_block_scan)x;
        } else if (!strcmp(a, "--grid")) {
            int x = by_name(grid_name, 4, v);
            if (x < 0) return data_usage("--grid '%s' is not one of auto, hierarchical, reduce_then_scan, single_pass", v);
            o->grid = (redscan_grid_scan)x;
        } else if (!strcmp(a, "--k")) {
            char *end = NULL;
            unsigned long long k = strtoull(v, &end, 10);
            if (!*v || *end || v[0] == '-' || k == 0) return data_usage("--k '%s' is not a positive count", v);
            o->k = (size_t)k;
            o->k_given = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            o->out = v;
        } else if (a[0] == '-' && a[1]) {
            return data_usage("unknown option '%s'", a);
        } else if (!o->file) {
            o->file = a, takes = 0;
        } else {
            return data_usage("one input file only ('%s' is a second)", a);
        }
        i += takes;
    }
    const int is_scan = !strcmp(o->cmd, "scan"), is_topk = !strcmp(o->cmd, "topk");
    if (!o->file) return data_usage("%s: no input file (a .npy file, or raw data with --dtype)", o->cmd);
    if (is_scan && !o->out) return data_usage("%s: -o OUT.npy is required (where the scan is written)", o->cmd);
    if (!is_scan && o->out) return data_usage("%s: -o is for scans", o->cmd);
    if (is_topk && !o->k_given) return data_usage("%s: --k K is required", o->cmd);
    if (!is_topk && (o->k_given || o->smallest)) return data_usage("%s: --k and --smallest are for topk", o->cmd);
    if (!is_scan && (o->exclusive || o->block || o->grid))
        return data_usage("%s: --exclusive, --block and --grid are for scans", o->cmd);
    if (strcmp(o->cmd, "reduce") && o->algo) return data_usage("%s: --algo is for reduce", o->cmd);
    if (strcmp(o->cmd, "reduce") && !is_scan && (o->op || o->out_dtype))
        return data_usage("%s: --op and --out-dtype are for reduce and scan", o->cmd);
    return -1;
}

/* The value of a float16 / bfloat16 (exact: both are subsets of float64). */
static double narrow_float(redscan_dtype dt, uint16_t b)
{
    if (dt == REDSCAN_BFLOAT16) { /* the high half of a float32 */
        const uint32_t u = (uint32_t)b << 16;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    const int e = (b >> 10) & 0x1f, m = b & 0x3ff;
    const double s = (b & 0x8000u) ? -1 : 1;
    if (e == 0x1f) return m ? NAN : s * INFINITY;
    return s * (e ? ldexp(1024 + m, e - 25) : ldexp(m, -24));
}

/* One value of dtype dt at p, as text that reads back to the same value (JSON: NaN and infinities as strings). */
static void put_value(redscan_dtype dt, const void *p, int json)
{
    double f;
    switch (dt) {
    case REDSCAN_INT32: printf("%" PRId32, *(const int32_t *)p); return;
    case REDSCAN_UINT32: printf("%" PRIu32, *(const uint32_t *)p); return;
    case REDSCAN_INT64: printf("%" PRId64, *(const int64_t *)p); return;
    case REDSCAN_UINT64: printf("%" PRIu64, *(const uint64_t *)p); return;
    case REDSCAN_FLOAT32: f = *(const float *)p; break;
    case REDSCAN_INT8: printf("%d", *(const int8_t *)p); return;
    case REDSCAN_UINT8: printf("%u", *(const uint8_t *)p); return;
    case REDSCAN_INT16: printf("%d", *(const int16_t *)p); return;
    case REDSCAN_UINT16: printf("%u", *(const uint16_t *)p); return;
    case REDSCAN_FLOAT16:
    case REDSCAN_BFLOAT16: f = narrow_float(dt, *(const uint16_t *)p); break;
    default: f = *(const double *)p; break;
    }
    if (isnan(f) || isinf(f)) {
        const char *s = isnan(f) ? "nan" : f > 0 ? "inf" : "-inf";
        printf(json ? "\"%s\"" : "%s", s);
    } else {
        printf(dt == REDSCAN_FLOAT32 ? "%.9g" : "%.17g", f);
    }
}

static void put_string(const char *s) /* a JSON string (device names are plain text; escape what JSON needs) */
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned char)*s);
        else putchar(*s);
    }
    putchar('"');
}

static void json_head(const data_opts *o, redscan_ctx *ctx, const npy_array *a)
{
    printf("{\"command\": \"%s\", \"file\": ", o->cmd);
    put_string(o->file);
    printf(", \"dtype\": \"%s\", \"n\": %zu, \"backend\": \"%s\", \"device\": ", redscan_dtype_name(a->dtype), a->n,
           redscan_backend_name(ctx));
    put_string(redscan_device_name(ctx));
}

#define DATA_REPORTED (-1) /* a command failed and printed why */

/* Each command: REDSCAN_OK, a library status (cli_data prints it with the context's last error), or DATA_REPORTED. */
static int cmd_reduce(const data_opts *o, redscan_ctx *ctx, const npy_array *a)
{
    const redscan_dtype out_dt = o->out_dtype ? o->out_dtype : a->dtype;
    unsigned char value[8] = {0};
    redscan_reduce_desc d;
    memset(&d, 0, sizeof d);
    d.op = o->op;
    d.dtype = a->dtype;
    d.out_dtype = o->out_dtype;
    d.algo = o->algo;
    redscan_status st = redscan_reduce_host_ex(ctx, &d, a->data, a->n, value);
    if (st != REDSCAN_OK) return st;
    if (o->json) {
        json_head(o, ctx, a);
        printf(", \"op\": \"%s\", \"out_dtype\": \"%s\", \"algo\": \"%s\", \"result\": ", redscan_op_name(o->op),
               redscan_dtype_name(out_dt), redscan_reduce_algo_name(o->algo));
        put_value(out_dt, value, 1);
        printf("}\n");
    } else {
        printf("%s of %zu %s: ", redscan_op_name(o->op), a->n, redscan_dtype_name(a->dtype));
        put_value(out_dt, value, 0);
        printf("\n");
    }
    return REDSCAN_OK;
}

static int cmd_mean(const data_opts *o, redscan_ctx *ctx, const npy_array *a)
{
    double mean = 0;
    redscan_status st = redscan_mean_host(ctx, a->dtype, a->data, a->n, &mean);
    if (st != REDSCAN_OK) return st;
    if (o->json) {
        json_head(o, ctx, a);
        printf(", \"mean\": ");
        put_value(REDSCAN_FLOAT64, &mean, 1);
        printf("}\n");
    } else {
        printf("mean of %zu %s: ", a->n, redscan_dtype_name(a->dtype));
        put_value(REDSCAN_FLOAT64, &mean, 0);
        printf("\n");
    }
    return REDSCAN_OK;
}

static int cmd_argext(const data_opts *o, redscan_ctx *ctx, const npy_array *a)
{
    unsigned char value[8] = {0};
    uint64_t index = 0;
    redscan_status st = !strcmp(o->cmd, "argmin") ? redscan_argmin_host(ctx, a->dtype, a->data, a->n, &index, value)
                                                  : redscan_argmax_host(ctx, a->dtype, a->data, a->n, &index, value);
    if (st != REDSCAN_OK) return st;
    if (o->json) {
        json_head(o, ctx, a);
        printf(", \"index\": %" PRIu64 ", \"value\": ", index);
        put_value(a->dtype, value, 1);
        printf("}\n");
    } else {
        printf("%s of %zu %s: index %" PRIu64 ", value ", o->cmd, a->n, redscan_dtype_name(a->dtype), index);
        put_value(a->dtype, value, 0);
        printf("\n");
    }
    return REDSCAN_OK;
}

static int cmd_topk(const data_opts *o, redscan_ctx *ctx, const npy_array *a)
{
    const redscan_dtype dt = a->dtype;
    const size_t sz = redscan_dtype_size(dt);
    unsigned char *vals = malloc(o->k * sz);
    uint64_t *idx = malloc(o->k * sizeof *idx);
    if (!vals || !idx) {
        free(vals);
        free(idx);
        fprintf(stderr, "redscan topk: out of host memory for k = %zu\n", o->k);
        return DATA_REPORTED;
    }
    redscan_status st = redscan_topk_host(ctx, dt, a->data, a->n, o->k, !o->smallest, vals, idx);
    if (st == REDSCAN_OK && o->json) {
        json_head(o, ctx, a);
        printf(", \"k\": %zu, \"largest\": %s, \"indices\": [", o->k, o->smallest ? "false" : "true");
        for (size_t i = 0; i < o->k; i++) printf("%s%" PRIu64, i ? ", " : "", idx[i]);
        printf("], \"values\": [");
        for (size_t i = 0; i < o->k; i++) {
            printf("%s", i ? ", " : "");
            put_value(dt, vals + i * sz, 1);
        }
        printf("]}\n");
    } else if (st == REDSCAN_OK) {
        printf("top %zu (%s) of %zu %s, best first: index value\n", o->k, o->smallest ? "smallest" : "largest", a->n,
               redscan_dtype_name(dt));
        for (size_t i = 0; i < o->k; i++) {
            printf("%" PRIu64 " ", idx[i]);
            put_value(dt, vals + i * sz, 0);
            printf("\n");
        }
    }
    free(vals);
    free(idx);
    return st;
}

/* The scan goes straight into the mapped output file; a failed scan leaves no output behind. */
static int cmd_scan(const data_opts *o, redscan_ctx *ctx, const npy_array *a)
{
    const redscan_dtype out_dt = o->out_dtype ? o->out_dtype : a->dtype;
    char err[512];
    npy_out out;
    void *dst = NULL;
    if (npy_create(o->out, out_dt, a->n, &out, &dst, err, sizeof err) != 0) {
        fprintf(stderr, "redscan scan: %s\n", err);
        return DATA_REPORTED;
    }
    redscan_scan_desc d;
    memset(&d, 0, sizeof d);
    d.op = o->op;
    d.dtype = a->dtype;
    d.out_dtype = o->out_dtype;
    d.exclusive = o->exclusive;
    d.block = o->block;
    d.grid = o->grid;
    redscan_status st = a->n ? redscan_scan_host_ex(ctx, &d, a->data, dst, a->n) : REDSCAN_OK;
    const int written = npy_finish(&out, err, sizeof err) == 0;
    if (st != REDSCAN_OK || !written) {
        remove(o->out);
        if (st != REDSCAN_OK) return st;
        fprintf(stderr, "redscan scan: %s: %s\n", o->out, err);
        return DATA_REPORTED;
    }
    if (o->json) {
        json_head(o, ctx, a);
        printf(", \"op\": \"%s\", \"exclusive\": %s, \"out_dtype\": \"%s\", \"output\": ", redscan_op_name(o->op),
               o->exclusive ? "true" : "false", redscan_dtype_name(out_dt));
        put_string(o->out);
        printf("}\n");
    } else {
        printf("%s %s scan of %zu %s written to %s (%s)\n", o->exclusive ? "exclusive" : "inclusive",
               redscan_op_name(o->op), a->n, redscan_dtype_name(a->dtype), o->out, redscan_dtype_name(out_dt));
    }
    return REDSCAN_OK;
}

static const struct {
    const char *name;
    int (*run)(const data_opts *, redscan_ctx *, const npy_array *);
} data_cmds[] = {{"reduce", cmd_reduce}, {"mean", cmd_mean},  {"argmin", cmd_argext},
                 {"argmax", cmd_argext}, {"topk", cmd_topk},  {"scan", cmd_scan}};

int cli_data(int argc, char **argv)
{
    data_opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    char err[512];
    npy_array a;
    if (npy_open(o.file, o.dtype, &a, err, sizeof err) != 0) {
        fprintf(stderr, "redscan %s: %s\n", o.cmd, err);
        return 1;
    }
    redscan_ctx *ctx = NULL;
    redscan_status st = redscan_create(&ctx, o.backend);
    if (st != REDSCAN_OK) {
        fprintf(stderr, "redscan %s: %s: %s\n", o.cmd, redscan_status_string(st), redscan_last_error(NULL));
        npy_close(&a);
        return 1;
    }
    rc = DATA_REPORTED;
    for (size_t i = 0; i < sizeof data_cmds / sizeof data_cmds[0]; i++)
        if (!strcmp(o.cmd, data_cmds[i].name)) rc = data_cmds[i].run(&o, ctx, &a);
    if (rc != REDSCAN_OK && rc != DATA_REPORTED)
        fprintf(stderr, "redscan %s: %s: %s\n", o.cmd, redscan_status_string((redscan_status)rc),
                redscan_last_error(ctx));
    redscan_destroy(ctx);
    npy_close(&a);
    return rc == REDSCAN_OK ? 0 : 1;
}
