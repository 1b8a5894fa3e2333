/* redscan bench: redscan's own cases (one op x dtype x algorithm x n each), checked and timed with two clocks.
 *
 * Each case: one call on buffer 0 checked against the host reference, one more warm-up call, then two timing
 * phases over the rotation of buffers (run r uses buffer r mod nbuf):
 *   host clock:    profiling off, CLOCK_MONOTONIC around each blocking call: the latency a caller sees (launches,
 *                  the final wait, a reduction's copy of its result to the host);
 *   device events: profiling on (redscan_set_profiling), one untimed call, then redscan_last_device_time after each
 *                  call: from the start of the call's first device command to the end of its last, on the device's
 *                  clock (CUDA events / OpenCL profiling events), without the host's launch and wait overheads.
 * The phases are separate so that the host clock measures the default path, with nothing recorded. Every timed
 * run's result (scans: the last element of the last run, read back untimed) must have the checked call's bits. */
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"

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
        d.exclusive = c->exclusive;
        d.block = c->block;
        d.grid = c->grid;
        /* blocking on every backend: the output is complete when the call returns */
        return redscan_scan_ex(ctx, &d, c->in, c->out, c->n);
    }
    case CASE_ARGMAX:
        return redscan_argmax(ctx, c->dt, c->in, c->n, &c->idx[0], c->value);
    case CASE_TOP2:
        return redscan_topk(ctx, c->dt, c->in, c->n, 2, 1, c->vals, c->idx);
    }
    return REDSCAN_ERR_INVALID_ARGUMENT;
}

/* The bits of the last run's result (scans: c->value, the last element once read back). */
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

/* Check the first call's result (buffer 0). */
static int verify(bench_state *st, dset *d, bench_case *c, char *detail)
{
    char got[128], want[128];
    detail[0] = '\0';
    switch (c->kind) {
    case CASE_REDUCE:
        if (bd_ref_check(dset_red_ref(d, c->op), c->value, 0, got, want, sizeof got))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "result %s, expected %s", got, want);
        return R_FAIL;
    case CASE_SCAN: {
        redscan_status s = redscan_buffer_read(st->ctx, c->out, 0, d->hout, d->bytes);
        if (s != REDSCAN_OK) {
            bench_status_detail(st->ctx, s, detail);
            return R_ERROR;
        }
        memcpy(c->value, (unsigned char *)d->hout + (d->n - 1) * d->sz, d->sz);
        return dset_verify_scan_output(d, c->op, c->exclusive, detail);
    }
    case CASE_ARGMAX: {
        size_t best = dset_argmax_ref(d);
        if (c->idx[0] == best && bd_same_element(d->gen, best, c->value, c->dt))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "index %llu, expected %zu%s", (unsigned long long)c->idx[0], best,
                 c->idx[0] == best ? " (value differs)" : "");
        return R_FAIL;
    }
    case CASE_TOP2: {
        const size_t *b = dset_top2_ref(d);
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

/* A timed run's result differs in its bits from the checked call: always a failure (the library promises the same
 * bits on every run, single_pass included: its order of combination does not depend on timing). */
static int nonrepro(const char *run, char *note, size_t len)
{
    snprintf(note, len, "%s gave other bits than the checked call (the library promises the same bits on every run)",
             run);
    return 1;
}

/* Reference GB/s for the ratios of a case: CUB when compared, else the plain C loop. */
static void pick_ref(const dset *d, case_kind kind, redscan_op op, row_t *r)
{
    int o = kind == CASE_ARGMAX || kind == CASE_TOP2 ? 0 : (int)op;
    const ref_speed *s = NULL;
    if (d->cub[kind][o].gbs > 0) {
        r->ref = "cub";
        s = &d->cub[kind][o];
    } else if (d->loop[kind][o].gbs > 0) {
        r->ref = "c_loop";
        s = &d->loop[kind][o];
    }
    if (s) {
        r->ref_gbs = s->gbs;
        r->ref_host_gbs = s->host_gbs;
    }
}

/* One timing phase of a case. */
typedef struct {
    bench_state *st;
    const bench_opts *o;
    dset *d;
    bench_case *c;
    int next_buf;           /* the rotation goes on across phases */
    int last_buf;           /* buffer of the last run */
    const unsigned char *want;
    size_t wlen;
    char note[512];
    int bad;
    char *detail;
} phase_ctx;

/* reps runs (after `warm` untimed ones) timed with the device's clock (device = 1: profiling must be on) or the host's;
 * median and minimum into *med / *mn, the runs done into *done. A failing call ends the phase with its status. */
static redscan_status time_phase(phase_ctx *p, int device, int warm, double *med, double *mn, int *done)
{
    bench_state *st = p->st;
    double *times = calloc((size_t)p->o->reps, sizeof *times), spent = 0;
    if (!times) {
        snprintf(p->detail, DETAIL_MAX, "out of host memory");
        return REDSCAN_ERR_OUT_OF_MEMORY;
    }
    int reps = p->o->reps;
    redscan_status s = REDSCAN_OK;
    unsigned char got[64];
    for (int k = -warm; k < reps; ++k) {
        if (k >= 3 && st->reps_cpu_budget && spent > CASE_BUDGET_S) {
            reps = k; /* a slow case on a CPU device: stop at >= 3 runs once past the budget */
            break;
        }
        int b = p->next_buf++ % p->d->nbuf;
        set_buffers(p->d, p->c, b);
        double t0 = bench_now();
        s = run_case(st->ctx, p->c);
        double t = bench_now() - t0;
        if (s == REDSCAN_OK && device)
            s = redscan_last_device_time(st->ctx, &t);
        if (s != REDSCAN_OK) {
            bench_status_detail(st->ctx, s, p->detail);
            break;
        }
        if (k >= 0) {
            times[k] = t;
            spent += t;
        }
        p->last_buf = b;
        if (p->c->kind != CASE_SCAN && !p->note[0]) {
            result_bits(p->c, got);
            if (memcmp(got, p->want, p->wlen)) {
                char run[48];
                snprintf(run, sizeof run, "%s run %d", device ? "device-timed" : "host-timed", k + 1);
                p->bad |= nonrepro(run, p->note, sizeof p->note);
            }
        }
    }
    if (s == REDSCAN_OK) {
        *med = bench_median(times, reps);
        *mn = times[0];
        *done = reps;
    }
    free(times);
    return s;
}

redscan_status bench_ours(bench_state *st, const bench_opts *o, dset *d, bench_case *c, const char *opname,
                          const char *algo)
{
    if (!bench_algo_selected(o, algo)) return REDSCAN_OK; /* --algos: not asked for */
    char detail[DETAIL_MAX] = "";
    double bytes = (double)d->bytes * (c->kind == CASE_SCAN ? 2.0 : 1.0);
    row_t r = {"ours", opname, d->dtname, algo, d->n, bytes, d->nbuf, 0, {0, 0, 0, 0},
               st->dev_timing ? "device_events" : "host_clock", R_ERROR, d->copy_gbs, NULL, 0, 0, detail};
    pick_ref(d, c->kind, c->op, &r);
    bench_progress(st, 1, opname, d->dtname, algo, d->n);

    set_buffers(d, c, 0);
    redscan_status s = run_case(st->ctx, c);
    if (s != REDSCAN_OK) {
        bench_status_detail(st->ctx, s, detail);
        r.result = s == REDSCAN_ERR_UNSUPPORTED ? R_UNSUP : R_ERROR;
        bench_report(st, &r);
        return s;
    }
    int ok = verify(st, d, c, detail);
    if (ok == R_ERROR) {
        bench_report(st, &r);
        return REDSCAN_ERR_DEVICE;
    }
    unsigned char want[64];
    phase_ctx p;
    memset(&p, 0, sizeof p);
    p.st = st;
    p.o = o;
    p.d = d;
    p.c = c;
    p.next_buf = 1;
    p.want = want;
    p.wlen = result_bits(c, want);
    p.detail = detail;

    /* host clock, profiling off (the default path); the first run is the second warm-up */
    int host_reps = 0, dev_reps = 0;
    s = time_phase(&p, 0, 1, &r.t.host_med_s, &r.t.host_min_s, &host_reps);
    /* device events: switching profiling on may replace the queue (OpenCL), so one more untimed run first */
    if (s == REDSCAN_OK && st->dev_timing) {
        s = redscan_set_profiling(st->ctx, 1);
        if (s == REDSCAN_OK)
            s = time_phase(&p, 1, 1, &r.t.dev_med_s, &r.t.dev_min_s, &dev_reps);
        else
            bench_status_detail(st->ctx, s, detail);
        redscan_status off = redscan_set_profiling(st->ctx, 0);
        if (s == REDSCAN_OK && off != REDSCAN_OK) {
            s = off;
            bench_status_detail(st->ctx, s, detail);
        }
    }
    if (s == REDSCAN_OK && c->kind == CASE_SCAN && !p.note[0]) {
        /* the last timed run's last element (not timed) */
        s = redscan_buffer_read(st->ctx, d->dout[p.last_buf], (d->n - 1) * d->sz, c->value, d->sz);
        if (s != REDSCAN_OK)
            bench_status_detail(st->ctx, s, detail);
        else if (memcmp(c->value, want, d->sz))
            p.bad |= nonrepro("the last timed run", p.note, sizeof p.note);
    }
    if (s != REDSCAN_OK) {
        r.result = R_ERROR;
        r.t = (bench_times){0, 0, 0, 0};
        bench_report(st, &r);
        return s;
    }
    r.reps = st->dev_timing ? dev_reps : host_reps;
    r.result = ok == R_PASS && !p.bad ? R_PASS : R_FAIL;
    if (p.note[0])
        snprintf(detail + strlen(detail), DETAIL_MAX - strlen(detail), "%s%s", detail[0] ? "; " : "", p.note);
    bench_report(st, &r);
    return REDSCAN_OK;
}
