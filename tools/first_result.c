/* redscan first-result: how long a new process waits for its first result (docs/PERFORMANCE.md, "Time to the
 * first result"). Times, from the start of main: redscan_create, then the first call of one family of operations
 * (--op) on n float32 values in host memory: the program build or the on-disk cache load, the driver's kernel
 * compilation, the launches and the copies. It checks the result against the host and prints the times with the
 * program cache's counters. One family per process, so that each is measured cold: scripts/first-result.sh runs
 * every family in fresh processes with cold and warm caches. --op all runs the families one after the other in
 * this process (each after the ones before it: a quick look, not a cold measurement of the later ones). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "redscan.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The families measured (one call each), in the order of --op all. */
static const char *const fr_ops[] = {"sum", "scan", "mean", "argmax", "topk"};
#define FR_NOPS (sizeof fr_ops / sizeof fr_ops[0])

/* Run family `op` once on x[0..n); 0 when it succeeded and agrees with the host. Values are small integers, so the
 * float32 sums are exact in any order and the host's double loop is the reference. */
static int fr_run(redscan_ctx *ctx, const char *op, const float *x, size_t n, char *msg, size_t cap)
{
    redscan_status st = REDSCAN_OK;
    double want = 0;
    size_t want_i = 0;
    for (size_t i = 0; i < n; i++) {
        want += x[i];
        if (x[i] > x[want_i]) want_i = i;
    }
    if (!strcmp(op, "sum")) {
        float sum = 0;
        st = redscan_reduce_host(ctx, REDSCAN_SUM, REDSCAN_FLOAT32, x, n, &sum);
        if (st == REDSCAN_OK && (double)sum != want) snprintf(msg, cap, "sum %.9g, want %.9g", (double)sum, want);
        else if (st == REDSCAN_OK) return 0;
    } else if (!strcmp(op, "scan")) {
        float *out = malloc(n * sizeof *out);
        if (!out) {
            snprintf(msg, cap, "out of host memory");
            return 1;
        }
        st = redscan_scan_host(ctx, REDSCAN_SUM, REDSCAN_FLOAT32, 0, x, out, n);
        int bad = 0;
        double acc = 0;
        for (size_t i = 0; st == REDSCAN_OK && i < n && !bad; i++) {
            acc += x[i];
            if ((double)out[i] != acc) {
                snprintf(msg, cap, "scan: out[%zu] = %.9g, want %.9g", i, (double)out[i], acc);
                bad = 1;
            }
        }
        free(out);
        if (st == REDSCAN_OK) return bad;
    } else if (!strcmp(op, "mean")) {
        double mean = 0;
        st = redscan_mean_host(ctx, REDSCAN_FLOAT32, x, n, &mean);
        if (st == REDSCAN_OK && fabs(mean - want / (double)n) > 1e-9 * (1 + fabs(want)))
            snprintf(msg, cap, "mean %.17g, want %.17g", mean, want / (double)n);
        else if (st == REDSCAN_OK) return 0;
    } else if (!strcmp(op, "argmax")) {
        uint64_t index = 0;
        st = redscan_argmax_host(ctx, REDSCAN_FLOAT32, x, n, &index, NULL);
        if (st == REDSCAN_OK && index != want_i)
            snprintf(msg, cap, "argmax %" PRIu64 ", want %zu", index, want_i);
        else if (st == REDSCAN_OK) return 0;
    } else { /* topk, k = 2 */
        float values[2];
        uint64_t indices[2];
        st = redscan_topk_host(ctx, REDSCAN_FLOAT32, x, n, n < 2 ? n : 2, 1, values, indices);
        if (st == REDSCAN_OK && (indices[0] != want_i || values[0] != x[want_i]))
            snprintf(msg, cap, "topk: first %" PRIu64 " (%.9g), want %zu", indices[0], (double)values[0], want_i);
        else if (st == REDSCAN_OK) return 0;
    }
    if (st != REDSCAN_OK) snprintf(msg, cap, "%s: %s", redscan_status_string(st), redscan_last_error(ctx));
    return 1;
}

int cli_first_result(int argc, char **argv)
{
    const double t0 = now_ms();
    size_t n = 65536;
    const char *op = "sum";
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--n") && i + 1 < argc && (n = strtoull(argv[i + 1], &end, 10)) > 0 && end && !*end) {
            i++;
            continue;
        }
        if (!strcmp(argv[i], "--op") && i + 1 < argc) {
            op = argv[++i];
            int known = !strcmp(op, "all");
            for (size_t k = 0; k < FR_NOPS; k++) known |= !strcmp(op, fr_ops[k]);
            if (known) continue;
            fprintf(stderr, "redscan first-result: unknown --op '%s' (sum, scan, mean, argmax, topk or all)\n", op);
            return CLI_EXIT_USAGE;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_usage(stdout);
            return 0;
        }
        fprintf(stderr, "redscan first-result: unexpected argument '%s'\n\n", argv[i]);
        cli_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    float *x = malloc(n * sizeof *x);
    if (!x) {
        fprintf(stderr, "redscan first-result: out of host memory for %zu elements\n", n);
        return 1;
    }
    /* small integers (exact float32 sums), with one largest value at a known place (argmax, top-k) */
    for (size_t i = 0; i < n; i++) x[i] = (float)(i % 7) - 3.0f;
    x[n / 3] = 100.0f;

    redscan_ctx *ctx = NULL;
    redscan_status st = redscan_create(&ctx, REDSCAN_BACKEND_AUTO);
    const double t_created = now_ms();
    if (st != REDSCAN_OK) {
        fprintf(stderr, "redscan first-result: redscan_create: %s: %s\n", redscan_status_string(st),
                redscan_last_error(NULL));
        free(x);
        return 1;
    }
    int rc = 0;
    double t_prev = t_created;
    for (size_t k = 0; k < FR_NOPS && !rc; k++) {
        if (strcmp(op, "all") && strcmp(op, fr_ops[k])) continue;
        char msg[512] = "";
        rc = fr_run(ctx, fr_ops[k], x, n, msg, sizeof msg);
        const double t_done = now_ms();
        if (rc) {
            fprintf(stderr, "redscan first-result: %s: %s\n", fr_ops[k], msg);
            break;
        }
        redscan_cache_stats cs;
        if (redscan_program_cache_stats(ctx, &cs) != REDSCAN_OK) memset(&cs, 0, sizeof cs);
        /* "first result X ms" first: scripts/first-result.sh reads it */
        printf("first result %.1f ms (create %.1f ms, %s %.1f ms; %s, float32, n = %zu); program cache: hits %" PRIu64
               " misses %" PRIu64 " writes %" PRIu64 " rejected %" PRIu64 " (%s)\n",
               t_done - t0, t_created - t0, fr_ops[k], t_done - t_prev, redscan_backend_name(ctx), n, cs.hits,
               cs.misses, cs.writes, cs.rejected,
               cs.note[0] ? cs.note : cs.enabled ? "enabled" : cs.used ? "disabled" : "not used");
        t_prev = t_done;
    }
    redscan_destroy(ctx);
    free(x);
    return rc;
}
