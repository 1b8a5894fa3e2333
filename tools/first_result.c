/* redscan first-result: how long a new process waits for its first result (docs/PERFORMANCE.md, "Time to the
 * first result"). Times, from the start of main: redscan_create, then one float32 sum reduction of n elements on
 * host memory (the program build or the on-disk cache load, the kernel compilation of the driver, the launch), and
 * prints them with the program cache's counters. One measurement per process: scripts/first-result.sh runs it in
 * fresh processes with cold and warm caches. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
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

int cli_first_result(int argc, char **argv)
{
    const double t0 = now_ms();
    size_t n = 4096;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--n") && i + 1 < argc && (n = strtoull(argv[i + 1], &end, 10)) > 0 && end && !*end) {
            i++;
            continue;
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
    for (size_t i = 0; i < n; i++) x[i] = (float)(i % 7) - 3.0f; /* sums exactly to a known value */

    redscan_ctx *ctx = NULL;
    redscan_status st = redscan_create(&ctx, REDSCAN_BACKEND_AUTO);
    const double t_created = now_ms();
    if (st != REDSCAN_OK) {
        fprintf(stderr, "redscan first-result: redscan_create: %s: %s\n", redscan_status_string(st),
                redscan_last_error(NULL));
        free(x);
        return 1;
    }
    float sum = 0;
    st = redscan_reduce_host(ctx, REDSCAN_SUM, REDSCAN_FLOAT32, x, n, &sum);
    const double t_result = now_ms();
    double want = 0;
    for (size_t i = 0; i < n; i++) want += x[i];
    int rc = 0;
    if (st != REDSCAN_OK || (double)sum != want) {
        fprintf(stderr, "redscan first-result: reduce: %s %s (sum %.9g, want %.9g)\n", redscan_status_string(st),
                redscan_last_error(ctx), (double)sum, want);
        rc = 1;
    }
    redscan_cache_stats cs;
    if (redscan_program_cache_stats(ctx, &cs) == REDSCAN_OK)
        printf("first result %.1f ms (create %.1f ms, reduce %.1f ms; %s, n = %zu); program cache: hits %" PRIu64
               " misses %" PRIu64 " writes %" PRIu64 " rejected %" PRIu64 " (%s%s%s)\n",
               t_result - t0, t_created - t0, t_result - t_created, redscan_backend_name(ctx), n, cs.hits, cs.misses,
               cs.writes, cs.rejected, cs.enabled ? "enabled" : cs.used ? "disabled" : "not used",
               cs.note[0] ? ": " : "", cs.note);
    redscan_destroy(ctx);
    free(x);
    return rc;
}
