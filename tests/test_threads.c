/* test_threads: separate contexts may be used from separate threads at once (docs/SEMANTICS.md).
 * Each of 3 threads opens its own context (REDSCAN_BACKEND as for the other tests), runs reductions and scans
 * of its own data and compares with the host reference; one thread also provokes a redscan_create failure and
 * checks that redscan_last_error(NULL) is per thread (the others still see their own state). The main thread's
 * context (h_open) runs at the same time. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NTHREADS 3
#define N 100003

typedef struct {
    int id;
    int failures; /* counted here, reported by the main thread (the harness's counters are not thread-safe) */
    char first[512];
    char create_error[512]; /* thread 0: redscan_last_error(NULL) after its failed create */
} job;

static void note(job *j, const char *msg)
{
    if (!j->failures++) snprintf(j->first, sizeof j->first, "%s", msg);
}

static void *worker(void *arg)
{
    job *j = (job *)arg;
    redscan_ctx *c = NULL;
    char msg[512];
    if (j->id == 0) {
        /* a failed create records its reason for this thread only */
        redscan_ctx *bad = NULL;
        if (redscan_create(&bad, (redscan_backend)42) == REDSCAN_OK) note(j, "redscan_create(backend 42) succeeded");
        const char *e = redscan_last_error(NULL);
        if (!e || !*e) note(j, "no thread-local create error after a failed create");
        else snprintf(j->create_error, sizeof j->create_error, "%s", e);
    }
    redscan_status st = redscan_create(&c, REDSCAN_BACKEND_AUTO);
    if (st != REDSCAN_OK) {
        snprintf(msg, sizeof msg, "thread %d: redscan_create: %s", j->id, redscan_status_string(st));
        note(j, msg);
        return NULL;
    }
    int32_t *x = (int32_t *)malloc(N * sizeof *x), *y = (int32_t *)malloc(N * sizeof *y);
    int32_t *w = (int32_t *)malloc(N * sizeof *w);
    h_rng r;
    h_rng_init(&r, 1000 + (uint64_t)j->id);
    for (int round = 0; round < 20 && x && y && w; round++) {
        for (size_t i = 0; i < N; i++) x[i] = (int32_t)(h_rng_u64(&r) % 2001) - 1000;
        redscan_op op = (redscan_op)((round + j->id) % 4);
        int32_t got = 0;
        ref_val want = ref_reduce_seq(op, REDSCAN_INT32, REDSCAN_INT32, x, N);
        st = redscan_reduce_host(c, op, REDSCAN_INT32, x, N, &got);
        if (st != REDSCAN_OK || got != want.i32) {
            snprintf(msg, sizeof msg, "thread %d round %d: reduce %s: status %s, got %" PRId32 ", want %" PRId32, j->id,
                     round, ref_op_str(op), redscan_status_string(st), got, want.i32);
            note(j, msg);
        }
        int excl = round & 1;
        ref_scan_seq(op, REDSCAN_INT32, REDSCAN_INT32, excl, NULL, x, w, N);
        st = redscan_scan_host(c, op, REDSCAN_INT32, excl, x, y, N);
        if (st != REDSCAN_OK || memcmp(y, w, N * sizeof *y) != 0) {
            snprintf(msg, sizeof msg, "thread %d round %d: scan %s %s: status %s, output differs", j->id, round,
                     ref_op_str(op), excl ? "exclusive" : "inclusive", redscan_status_string(st));
            note(j, msg);
        }
    }
    free(x);
    free(y);
    free(w);
    redscan_destroy(c);
    return NULL;
}

int main(void)
{
    h_open("test_threads");
    pthread_t th[NTHREADS];
    job jobs[NTHREADS];
    memset(jobs, 0, sizeof jobs);
    h_case("threads: %d contexts at once", NTHREADS + 1);
    int started[NTHREADS] = {0};
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i].id = i;
        started[i] = pthread_create(&th[i], NULL, worker, &jobs[i]) == 0;
        CHECK(started[i], "pthread_create %d", i);
    }
    /* the main thread's context works meanwhile */
    for (int round = 0; round < 20; round++) {
        float x[1000], y = 0;
        for (int i = 0; i < 1000; i++) x[i] = (float)(i % 17);
        CHECK(redscan_reduce_host(h_ctx, REDSCAN_MAX, REDSCAN_FLOAT32, x, 1000, &y) == REDSCAN_OK && y == 16.0f,
              "main thread reduce: %g", (double)y);
    }
    for (int i = 0; i < NTHREADS; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        CHECK(jobs[i].failures == 0, "thread %d: %d failures, first: %s", i, jobs[i].failures, jobs[i].first);
    }
    /* the main thread made no failed create: its thread-local create error is not thread 0's */
    const char *e = redscan_last_error(NULL);
    CHECK(e != NULL && (!jobs[0].create_error[0] || strcmp(e, jobs[0].create_error) != 0),
          "the main thread's redscan_last_error(NULL) shows thread 0's create failure: \"%s\"", e ? e : "(null)");
    return h_done();
}
