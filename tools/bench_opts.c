/* redscan bench: command-line options (see cli_usage in tools/redscan.c) and the default sizes. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "cli.h"

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

/* --async: float32 sum (reduce and scan), argmax and top-2 unless --dtypes / --ops say otherwise; the sweep's
 * choices of algorithms and sizes do not apply. Returns -1 when fine, else the exit status. */
static int async_opts(bench_opts *o)
{
    if (!o->async)
        return bench_usage_error("--calls needs --async%s", "");
    if (o->full || o->algos)
        return bench_usage_error("--async times the AUTO algorithms at its own sizes: --full and --algos do not "
                                 "apply%s", "");
    if (o->ops_given && (o->op_mask & (1u << REDSCAN_PROD)))
        return bench_usage_error("--async does not time prod (its input is another one); --ops takes %s there",
                                 "sum, min, max, argmax, top2");
    if (!o->dtypes_given)
        o->dtype_mask = 1u << REDSCAN_FLOAT32;
    if (!o->ops_given)
        o->op_mask = (1u << REDSCAN_SUM) | (1u << OP_ARGMAX) | (1u << OP_TOP2);
    o->headline = 0;
    return -1;
}

int async_calls(const bench_opts *o, size_t n)
{
    if (o->calls)
        return o->calls;
    /* enough calls that one loop's launch and wait overheads are spread thin, few enough that a large n stays quick */
    return n <= ((size_t)1 << 16) ? 200 : n <= ((size_t)1 << 22) ? 100 : 20;
}

int bench_parse_opts(int argc, char **argv, bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype_mask = 0x7Eu; /* dtypes 1..6 */
    o->op_mask = 0x3Fu;
    o->backend = REDSCAN_BACKEND_AUTO;
    o->reps = 20;
    o->do_reduce = o->do_scan = 1;
    o->host_refs = -1;
    o->rotate = 1;
    int scan_only = 0, reduce_only = 0, chose_lists = 0;
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
                          !strcmp(name, "--compare") || !strcmp(name, "--l2-mb") || !strcmp(name, "--algos") ||
                          !strcmp(name, "--calls");
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
            chose_lists = o->dtypes_given = 1;
            o->dtype_mask = parse_name_list(val, k_dtype_names, 7);
            if (!o->dtype_mask)
                return bench_usage_error("--dtypes: '%s' is not a list of int32, uint32, int64, uint64, float32, "
                                         "float64",
                                         val);
        } else if (!strcmp(name, "--ops")) {
            chose_lists = o->ops_given = 1;
            o->op_mask = parse_name_list(val, k_op_names, 6);
            if (!o->op_mask)
                return bench_usage_error("--ops: '%s' is not a list of sum, prod, min, max, argmax, top2", val);
        } else if (!strcmp(name, "--algos")) {
            if (!*val || *val == ',')
                return bench_usage_error("--algos: '%s' is not a list of algorithm names", val);
            o->algos = val;
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
        } else if (!strcmp(name, "--async")) {
            o->async = 1;
        } else if (!strcmp(name, "--calls")) {
            char *end = NULL;
            errno = 0;
            long r = strtol(val, &end, 10);
            if (errno || end == val || *end || r < 1 || r > MAX_CALLS)
                return bench_usage_error("--calls: '%s' is not a count between 1 and 100000", val);
            o->calls = (int)r;
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
    if (o->async || o->calls) {
        int rc = async_opts(o);
        if (rc >= 0)
            return rc;
        if (scan_only)
            o->do_reduce = 0;
        if (reduce_only)
            o->do_scan = 0;
        return -1;
    }
    o->headline = !o->full && !o->quick && !o->sizes_given && !o->algos && !scan_only && !reduce_only &&
                  o->dtype_mask == 0x7Eu && o->op_mask == 0x3Fu && !chose_lists;
    if (o->headline) {
        o->dtype_mask = (1u << REDSCAN_INT32) | (1u << REDSCAN_FLOAT32);
        o->op_mask = (1u << REDSCAN_SUM) | (1u << OP_ARGMAX) | (1u << OP_TOP2);
    }
    if (o->full && (o->sizes_given || o->quick))
        return bench_usage_error("--full (the whole sweep at the default sizes) excludes --sizes and --quick%s", "");
    if (scan_only)
        o->do_reduce = 0;
    if (reduce_only)
        o->do_scan = 0;
    return -1;
}

const char *bench_default_sizes(bench_opts *o, int is_cpu)
{
    static const int gpu[3] = {16, 20, 24}, cpu[3] = {12, 16, 20}, quick[3] = {10, 14, 17};
    if (o->async) { /* latency: one size well inside the L2 and one that fills a good part of it */
        o->sizes[0] = (size_t)1 << 16;
        o->sizes[1] = (size_t)1 << 20;
        o->nsizes = 2;
        return "--async default";
    }
    if (o->headline) { /* one size well past the caches: 256 MiB of float32 on a GPU, 64 MiB on a CPU */
        o->sizes[0] = (size_t)1 << (is_cpu == 1 ? 24 : 26);
        o->nsizes = 1;
        return is_cpu == 1 ? "headline (a CPU device; GPUs get 2^26; --full: the whole sweep)"
                           : "headline (--full: the whole sweep)";
    }
    const int *e = gpu;
    const char *why = o->full ? "--full" : "default";
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

int bench_op_on(const bench_opts *o, int op) { return (o->op_mask >> op) & 1u; }

/* A case's algorithm (a reduction's name, a scan's "block/grid") is run when --algos is absent or names it: whole
 * ("coarsened/single_pass"), or either half of a scan's ("single_pass" runs it with every block algorithm). Cases
 * with one algorithm (argmax, top-2: "-") and the references always run. */
int bench_algo_selected(const bench_opts *o, const char *algo)
{
    if (!o->algos || !strcmp(algo, "-")) return 1;
    const char *slash = strchr(algo, '/');
    const size_t whole = strlen(algo), first = slash ? (size_t)(slash - algo) : whole;
    for (const char *tok = o->algos; *tok;) {
        const char *comma = strchr(tok, ',');
        const size_t len = comma ? (size_t)(comma - tok) : strlen(tok);
        if ((len == whole && !strncmp(tok, algo, len)) || (slash && len == first && !strncmp(tok, algo, len)) ||
            (slash && len == whole - first - 1 && !strncmp(tok, slash + 1, len)))
            return 1;
        if (!comma) break;
        tok = comma + 1;
    }
    return 0;
}
