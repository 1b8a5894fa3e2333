/* redscan bench --async: the per-call time of stream-ordered calls (issue 14), against the blocking calls and CUB.
 *
 * Per size x dtype x op (reductions and scans with the AUTO algorithms, argmax, top-2; default: float32 sum, inclusive
 * scan sum, argmax, top-2 at 2^16 and 2^20), up to three rows, each the median (and minimum) over L timed loops of
 * R calls (--reps L, default 5; --calls R, default by size: async_calls):
 *   async:    after redscan_reserve and a few warm-up calls, R redscan_*_async calls back to back on the context's
 *             stream / queue, then one redscan_synchronize; per call = the loop's time / R. Reduction i writes its
 *             result to element i of one device buffer (result_index); argmax and top-2 write the same small
 *             buffers every call; nothing is read back between calls. Clocks: on CUDA, two CUDA events recorded on
 *             the context's own stream (redscan_native_handle) before the first call and after the last one (the
 *             primary clock); on both backends, the host clock from before the first call until redscan_synchronize
 *             returns. On OpenCL only the host clock: the queue has profiling only while redscan_set_profiling is on,
 *             which replaces the queue and times every call, and this mode times the default path.
 *   blocking: the same R calls through the blocking functions (redscan_reduce_ex, redscan_scan_ex, redscan_argmax,
 *             redscan_topk), each waiting for its work (and copying a result to the host): host clock around the R.
 *   cub:      with --compare cub, CUB in the same pipelined form (bench/cub_compare.cu, rsb_cub_pipelined): R calls
 *             on one stream with temporary storage allocated beforehand, CUDA events and the host clock.
 * The input stays in one buffer (no rotation): at these sizes a pipeline's input sits in the L2, and what this mode
 * measures is the cost of a call, not DRAM bandwidth (the sweep measures that). GB/s counts the input once (n*size)
 * for every op.
 *
 * Checks: the first blocking call against the host reference, as in the sweep; after the timed loops, every async
 * result (every reduction slot; a scan's whole output) must have the bits of that checked call, and so must every
 * timed blocking call's; CUB's last result against the host reference. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_run.h"

#ifdef REDSCAN_BENCH_CUDA
#include "cub_compare.h"
#endif

/* Untimed calls before the loops: the first of an op builds its program (OpenCL) or sizes its workspace. */
#define ASYNC_WARMUP 3
#define ASYNC_LOOPS 5

/* ------------------------------------------------------------------------------------------- data of one (n, dtype) */

typedef struct {
    bench_state *st;
    redscan_dtype dt;
    const char *dtname;
    size_t n, sz;
    int calls, loops;
    void *gen;                     /* host input (bd_generate) */
    void *hout;                    /* host copy of a scan output */
    unsigned char *hslots;         /* host copy of the reduction slots */
    redscan_buffer *in, *out;      /* input; scan output */
    redscan_buffer *slots;         /* reductions: `calls` results, call i at result_index i */
    redscan_buffer *index, *value; /* argmax / top-2: up to 2 uint64 indices, 2 values */
    int events;                    /* CUDA events on the context's stream time the async loops */
    void *stream;
    void *cub_in;                  /* CUB's copy of the input (CUDA memory), NULL without --compare cub */
} aset;

typedef struct {
    case_kind kind;
    redscan_op op;
    int exclusive;
    char name[32];
    unsigned char want[64]; /* the checked blocking call's result bits (scans: a hash of the whole output) */
    size_t wlen;
    bd_ref ref; /* host reference of the result (scans: of the last element) */
} acase;

/* Per-call times of one row, in seconds (0: not measured). */
typedef struct {
    bench_times t;
    int ok; /* measured */
} per_call;

static void aset_free(aset *a)
{
    redscan_ctx *ctx = a->st->ctx;
    redscan_buffer *bufs[] = {a->in, a->out, a->slots, a->index, a->value};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i])
            redscan_buffer_destroy(ctx, bufs[i]);
#ifdef REDSCAN_BENCH_CUDA
    rsb_cuda_free(a->cub_in);
#endif
    free(a->gen);
    free(a->hout);
    free(a->hslots);
    memset(a, 0, sizeof *a);
}

/* Buffers, input and workspace of (dt, n). Returns 0, or 1 with the reason in detail. */
static int aset_alloc(bench_state *st, const bench_opts *o, aset *a, redscan_dtype dt, size_t n, char *detail)
{
    memset(a, 0, sizeof *a);
    a->st = st;
    a->dt = dt;
    a->dtname = redscan_dtype_name(dt);
    a->n = n;
    a->sz = redscan_dtype_size(dt);
    a->calls = async_calls(o, n);
    a->loops = o->reps_given ? o->reps : o->quick ? 3 : ASYNC_LOOPS;
    a->gen = malloc(n * a->sz);
    a->hout = malloc(n * a->sz);
    a->hslots = malloc((size_t)a->calls * a->sz);
    if (!a->gen || !a->hout || !a->hslots) {
        snprintf(detail, DETAIL_MAX, "out of host memory (%zu elements)", n);
        return 1;
    }
    bd_generate(dt, n, a->gen, NULL);
    redscan_ctx *ctx = st->ctx;
    redscan_status s = redscan_buffer_create(ctx, n * a->sz, &a->in);
    if (s == REDSCAN_OK)
        s = redscan_buffer_write(ctx, a->in, 0, a->gen, n * a->sz);
    if (s == REDSCAN_OK)
        s = redscan_buffer_create(ctx, n * a->sz, &a->out);
    if (s == REDSCAN_OK)
        s = redscan_buffer_create(ctx, (size_t)a->calls * a->sz, &a->slots);
    if (s == REDSCAN_OK)
        s = redscan_buffer_create(ctx, 2 * sizeof(uint64_t), &a->index);
    if (s == REDSCAN_OK)
        s = redscan_buffer_create(ctx, 2 * a->sz, &a->value);
    /* every operation's workspace now, so that no timed _async call allocates (top-2: k <= 8 is included) */
    if (s == REDSCAN_OK)
        s = redscan_reserve(ctx, dt, n);
    if (s != REDSCAN_OK) {
        bench_status_detail(ctx, s, detail);
        return 1;
    }
#ifdef REDSCAN_BENCH_CUDA
    if (st->is_cuda && st->cuda_ok)
        a->events = redscan_native_handle(ctx, REDSCAN_NATIVE_CUDA_STREAM, &a->stream) == REDSCAN_OK;
    if (st->cub) {
        char err[512] = "";
        a->cub_in = rsb_cuda_alloc(n * a->sz, err, sizeof err);
        if (!a->cub_in || rsb_cuda_upload(a->cub_in, a->gen, n * a->sz, err, sizeof err)) {
            snprintf(detail, DETAIL_MAX, "CUB's input: %s", err);
            return 1;
        }
    }
#endif
    return 0;
}

/* ------------------------------------------------------------------------------------------- calls */

static redscan_reduce_desc reduce_desc(const aset *a, const acase *c)
{
    redscan_reduce_desc d;
    memset(&d, 0, sizeof d);
    d.op = c->op;
    d.dtype = a->dt;
    d.algo = REDSCAN_REDUCE_AUTO;
    return d;
}

static redscan_scan_desc scan_desc(const aset *a, const acase *c)
{
    redscan_scan_desc d;
    memset(&d, 0, sizeof d);
    d.op = c->op;
    d.dtype = a->dt;
    d.exclusive = c->exclusive;
    d.block = REDSCAN_BLOCK_AUTO;
    d.grid = REDSCAN_GRID_AUTO;
    return d;
}

/* One stream-ordered call; a reduction's result goes to slot `slot` of a->slots. */
static redscan_status enqueue(aset *a, const acase *c, size_t slot)
{
    redscan_ctx *ctx = a->st->ctx;
    switch (c->kind) {
    case CASE_REDUCE: {
        redscan_reduce_desc d = reduce_desc(a, c);
        return redscan_reduce_async(ctx, &d, a->in, a->n, a->slots, slot);
    }
    case CASE_SCAN: {
        redscan_scan_desc d = scan_desc(a, c);
        return redscan_scan_async(ctx, &d, a->in, a->out, a->n);
    }
    case CASE_ARGMAX: return redscan_argmax_async(ctx, a->dt, a->in, a->n, a->index, a->value);
    case CASE_TOP2: return redscan_topk_async(ctx, a->dt, a->in, a->n, 2, 1, a->value, a->index);
    }
    return REDSCAN_ERR_INVALID_ARGUMENT;
}

/* One blocking call. res: the result's bits, laid out as read_result lays out the async ones (scans: untouched, the
 * output is in a->out). */
static redscan_status call_blocking(aset *a, const acase *c, unsigned char *res)
{
    redscan_ctx *ctx = a->st->ctx;
    uint64_t idx[2] = {0, 0};
    redscan_status s = REDSCAN_ERR_INVALID_ARGUMENT;
    switch (c->kind) {
    case CASE_REDUCE: {
        redscan_reduce_desc d = reduce_desc(a, c);
        return redscan_reduce_ex(ctx, &d, a->in, a->n, res);
    }
    case CASE_SCAN: {
        redscan_scan_desc d = scan_desc(a, c);
        return redscan_scan_ex(ctx, &d, a->in, a->out, a->n);
    }
    case CASE_ARGMAX:
        s = redscan_argmax(ctx, a->dt, a->in, a->n, &idx[0], res);
        memcpy(res + a->sz, idx, 8);
        return s;
    case CASE_TOP2:
        s = redscan_topk(ctx, a->dt, a->in, a->n, 2, 1, res, idx);
        memcpy(res + 2 * a->sz, idx, 16);
        return s;
    }
    return s;
}

/* Bytes of a result as compared: value; value + index; 2 values + 2 indices; a scan's output hash. */
static size_t result_len(const aset *a, const acase *c)
{
    switch (c->kind) {
    case CASE_REDUCE: return a->sz;
    case CASE_SCAN: return sizeof(uint64_t);
    case CASE_ARGMAX: return a->sz + 8;
    case CASE_TOP2: return 2 * a->sz + 16;
    }
    return 0;
}

/* The device results left by the last call (not a reduction: those are in the slots), as call_blocking lays them
 * out; a scan: the hash of its output, which stays in a->hout. */
static redscan_status read_result(aset *a, const acase *c, unsigned char *res)
{
    redscan_ctx *ctx = a->st->ctx;
    redscan_status s = REDSCAN_OK;
    switch (c->kind) {
    case CASE_REDUCE: return REDSCAN_ERR_INVALID_ARGUMENT;
    case CASE_SCAN: {
        s = redscan_buffer_read(ctx, a->out, 0, a->hout, a->n * a->sz);
        uint64_t h = bd_hash(a->hout, a->n * a->sz);
        memcpy(res, &h, sizeof h);
        return s;
    }
    case CASE_ARGMAX:
        s = redscan_buffer_read(ctx, a->value, 0, res, a->sz);
        return s == REDSCAN_OK ? redscan_buffer_read(ctx, a->index, 0, res + a->sz, 8) : s;
    case CASE_TOP2:
        s = redscan_buffer_read(ctx, a->value, 0, res, 2 * a->sz);
        return s == REDSCAN_OK ? redscan_buffer_read(ctx, a->index, 0, res + 2 * a->sz, 16) : s;
    }
    return s;
}

/* ------------------------------------------------------------------------------------------- checks */

/* The first blocking call's result (res) against the host reference; c->want gets its bits. R_PASS, R_FAIL or
 * R_ERROR with the detail. */
static int verify_first(aset *a, acase *c, const unsigned char *res, char *detail)
{
    char got[128], want[128];
    c->wlen = result_len(a, c);
    switch (c->kind) {
    case CASE_REDUCE:
        memcpy(c->want, res, c->wlen);
        if (bd_ref_check(&c->ref, res, 0, got, want, sizeof got))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "result %s, expected %s", got, want);
        return R_FAIL;
    case CASE_SCAN: {
        redscan_status s = read_result(a, c, c->want);
        if (s != REDSCAN_OK) {
            bench_status_detail(a->st->ctx, s, detail);
            return R_ERROR;
        }
        return bd_check_scan(c->op, a->dt, c->exclusive, a->gen, a->hout, a->n, detail, DETAIL_MAX) ? R_FAIL : R_PASS;
    }
    case CASE_ARGMAX: {
        memcpy(c->want, res, c->wlen);
        uint64_t idx;
        memcpy(&idx, res + a->sz, 8);
        size_t best = bd_argmax(a->gen, a->dt, a->n);
        if (idx == best && bd_same_element(a->gen, best, res, a->dt))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "index %llu, expected %zu", (unsigned long long)idx, best);
        return R_FAIL;
    }
    case CASE_TOP2: {
        memcpy(c->want, res, c->wlen);
        uint64_t idx[2];
        memcpy(idx, res + 2 * a->sz, 16);
        size_t b[2];
        bd_top2(a->gen, a->dt, a->n, b);
        if (idx[0] == b[0] && idx[1] == b[1] && bd_same_element(a->gen, b[0], res, a->dt) &&
            bd_same_element(a->gen, b[1], res + a->sz, a->dt))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "indices %llu,%llu, expected %zu,%zu", (unsigned long long)idx[0],
                 (unsigned long long)idx[1], b[0], b[1]);
        return R_FAIL;
    }
    }
    return R_ERROR;
}

/* After the async loops: every result must have the checked call's bits. R_PASS, R_FAIL or R_ERROR. */
static int check_async(aset *a, const acase *c, char *detail)
{
    redscan_ctx *ctx = a->st->ctx;
    unsigned char got[64];
    redscan_status s;
    if (c->kind == CASE_REDUCE) {
        s = redscan_buffer_read(ctx, a->slots, 0, a->hslots, (size_t)a->calls * a->sz);
        for (int i = 0; s == REDSCAN_OK && i < a->calls; ++i)
            if (memcmp(a->hslots + (size_t)i * a->sz, c->want, a->sz)) {
                snprintf(detail, DETAIL_MAX, "result_index %d of the last loop has other bits than the checked "
                         "blocking call", i);
                return R_FAIL;
            }
    } else {
        s = read_result(a, c, got);
        if (s == REDSCAN_OK && memcmp(got, c->want, c->wlen)) {
            snprintf(detail, DETAIL_MAX, "the last async call's result has other bits than the checked blocking "
                     "call");
            return R_FAIL;
        }
    }
    if (s != REDSCAN_OK) {
        bench_status_detail(ctx, s, detail);
        return R_ERROR;
    }
    return R_PASS;
}

/* ------------------------------------------------------------------------------------------- timing */

#ifdef REDSCAN_BENCH_CUDA
static int mark(aset *a, int stop, char *detail)
{
    char err[512] = "";
    if (!a->events || !rsb_stream_mark(a->stream, stop, err, sizeof err))
        return 0;
    snprintf(detail, DETAIL_MAX, "%s", err);
    return 1;
}
#endif

/* One loop of R async calls and the synchronize. Per-call seconds into *host and (CUDA events) *dev. */
static redscan_status async_loop(aset *a, const acase *c, double *dev, double *host, char *detail)
{
    redscan_ctx *ctx = a->st->ctx;
    redscan_status s = REDSCAN_OK;
    int cuda_err = 0;
    *dev = 0;
#ifdef REDSCAN_BENCH_CUDA
    cuda_err = mark(a, 0, detail);
#endif
    double t0 = bench_now();
    for (int i = 0; !cuda_err && s == REDSCAN_OK && i < a->calls; ++i)
        s = enqueue(a, c, (size_t)i);
#ifdef REDSCAN_BENCH_CUDA
    if (!cuda_err && s == REDSCAN_OK)
        cuda_err = mark(a, 1, detail);
#endif
    /* always: after a failed call nothing may still be running when the buffers go */
    redscan_status sync = redscan_synchronize(ctx);
    *host = (bench_now() - t0) / a->calls;
    if (s == REDSCAN_OK)
        s = sync;
    if (s != REDSCAN_OK) {
        bench_status_detail(ctx, s, detail);
        return s;
    }
#ifdef REDSCAN_BENCH_CUDA
    double ms = 0;
    char err[512] = "";
    if (!cuda_err && a->events && rsb_stream_elapsed_ms(&ms, err, sizeof err)) {
        snprintf(detail, DETAIL_MAX, "%s", err);
        cuda_err = 1;
    }
    *dev = ms * 1e-3 / a->calls;
#endif
    return cuda_err ? REDSCAN_ERR_DEVICE : REDSCAN_OK;
}

static void medians(double *dev, double *host, int loops, per_call *p)
{
    p->t.host_med_s = bench_median(host, loops);
    p->t.host_min_s = host[0];
    if (dev[0] > 0) {
        p->t.dev_med_s = bench_median(dev, loops);
        p->t.dev_min_s = dev[0];
    }
    p->ok = 1;
}

/* Warm-up, then the timed loops of async calls. */
static redscan_status time_async(aset *a, const acase *c, per_call *p, char *detail)
{
    double dev[MAX_REPS], host[MAX_REPS];
    for (int i = 0; i < ASYNC_WARMUP; ++i) {
        redscan_status s = enqueue(a, c, (size_t)(i % a->calls));
        if (s != REDSCAN_OK) {
            (void)redscan_synchronize(a->st->ctx);
            bench_status_detail(a->st->ctx, s, detail);
            return s;
        }
    }
    redscan_status s = redscan_synchronize(a->st->ctx);
    if (s != REDSCAN_OK) {
        bench_status_detail(a->st->ctx, s, detail);
        return s;
    }
    for (int l = 0; l < a->loops; ++l)
        if ((s = async_loop(a, c, &dev[l], &host[l], detail)) != REDSCAN_OK)
            return s;
    medians(dev, host, a->loops, p);
    return REDSCAN_OK;
}

/* The timed loops of blocking calls (warm already: the checked call and the async loops ran before). *bad: a call's
 * result had other bits than the checked one. */
static redscan_status time_blocking(aset *a, const acase *c, per_call *p, int *bad, char *detail)
{
    double dev[MAX_REPS] = {0}, host[MAX_REPS];
    unsigned char res[64];
    redscan_status s = REDSCAN_OK;
    for (int l = 0; l < a->loops; ++l) {
        double t0 = bench_now();
        for (int i = 0; s == REDSCAN_OK && i < a->calls; ++i) {
            s = call_blocking(a, c, res);
            if (s == REDSCAN_OK && c->kind != CASE_SCAN && memcmp(res, c->want, c->wlen))
                *bad = 1;
        }
        host[l] = (bench_now() - t0) / a->calls;
        if (s != REDSCAN_OK) {
            bench_status_detail(a->st->ctx, s, detail);
            return s;
        }
    }
    if (c->kind == CASE_SCAN) { /* the last call's output (not timed) */
        s = read_result(a, c, res);
        if (s != REDSCAN_OK) {
            bench_status_detail(a->st->ctx, s, detail);
            return s;
        }
        if (memcmp(res, c->want, c->wlen))
            *bad = 1;
    }
    medians(dev, host, a->loops, p);
    return REDSCAN_OK;
}

/* ------------------------------------------------------------------------------------------- table */

static void table_header(void)
{
    printf("%-11s %-8s %10s %-9s %-12s %6s %12s %12s %9s %10s %7s %s\n", "op", "dtype", "n", "mode", "clock", "calls",
           "per_call_us", "host_us", "GB/s", "cub_us", "x_cub", "check");
}

static const char *check_word(int r)
{
    switch (r) {
    case R_PASS: return "pass";
    case R_FAIL: return "FAIL";
    case R_UNSUP: return "unsupported";
    case R_REF: return "ref";
    default: return "ERROR";
    }
}

static double primary_s(const bench_times *t) { return t->dev_med_s > 0 ? t->dev_med_s : t->host_med_s; }

/* CUB's per-call time on the clock of a row: its events for a row timed by events, its host clock otherwise. */
static double cub_same_clock(const bench_times *row, const per_call *cub)
{
    if (!cub || !cub->ok)
        return 0;
    return row->dev_med_s > 0 ? cub->t.dev_med_s : cub->t.host_med_s;
}

/* Counts the row, writes its CSV line and prints its table line (cub: CUB's times, NULL for CUB's own row). */
static void report(bench_state *st, row_t *r, const char *mode, int calls, const per_call *cub)
{
    double cub_s = cub_same_clock(&r->t, cub);
    if (cub_s > 0) {
        r->ref = "cub";
        r->ref_gbs = r->bytes / cub_s * 1e-9; /* the same clock as this row's GB/s: a like-for-like ratio */
        r->ref_host_gbs = cub->t.host_med_s > 0 ? r->bytes / cub->t.host_med_s * 1e-9 : 0;
    }
    const char *detail;
    if (!bench_record(st, r, &detail))
        return;
    int timed = r->result == R_PASS || r->result == R_FAIL || r->result == R_REF;
    char per_s[16] = "-", host_s[16] = "-", gbs_s[16] = "-", cub_us[16] = "-", ratio_s[16] = "-";
    if (timed) {
        snprintf(per_s, sizeof per_s, "%.2f", primary_s(&r->t) * 1e6);
        snprintf(host_s, sizeof host_s, "%.2f", r->t.host_med_s * 1e6);
        snprintf(gbs_s, sizeof gbs_s, "%.2f", row_gbs(r));
        if (cub_s > 0) {
            snprintf(cub_us, sizeof cub_us, "%.2f", cub_s * 1e6);
            snprintf(ratio_s, sizeof ratio_s, "%.2f", primary_s(&r->t) / cub_s);
        }
    }
    printf("%-11s %-8s %10zu %-9s %-12s %6d %12s %12s %9s %10s %7s %s\n", r->op, r->dtype, r->n, mode,
           r->timing ? r->timing : "", calls, per_s, host_s, gbs_s, cub_us, ratio_s, check_word(r->result));
    int show = r->result != R_PASS && r->result != R_REF;
    if (show && detail && *detail)
        printf("    %s\n", detail);
    fflush(stdout);
}

/* ------------------------------------------------------------------------------------------- CUB */

#ifdef REDSCAN_BENCH_CUDA
/* CUB's last result against the host reference. */
static int check_cub(const aset *a, const acase *c, const rsb_cub_pipe_timing *t, const char *call, char *detail)
{
    char got[128], want[128];
    if (c->kind == CASE_ARGMAX) {
        size_t best = bd_argmax(a->gen, a->dt, a->n);
        if ((size_t)t->index == best && bd_same_element(a->gen, best, t->value, a->dt))
            return R_REF;
        snprintf(detail, DETAIL_MAX, "%s: index %lld, expected %zu", call, (long long)t->index, best);
        return R_FAIL;
    }
    if (bd_ref_check(&c->ref, t->value, 0, got, want, sizeof got))
        return R_REF;
    snprintf(detail, DETAIL_MAX, "%s: %s %s, expected %s", call, c->kind == CASE_SCAN ? "last element" : "result",
             got, want);
    return R_FAIL;
}
#endif

/* CUB's pipelined row (--compare cub; no top-k in the toolkit's CUB). *cub: its times, ok = 0 when not run. */
static void cub_row(aset *a, const acase *c, per_call *cub)
{
    memset(cub, 0, sizeof *cub);
#ifdef REDSCAN_BENCH_CUDA
    int ck = c->kind == CASE_REDUCE ? RSB_CUB_REDUCE : c->kind == CASE_SCAN ? RSB_CUB_SCAN : RSB_CUB_ARGMAX;
    if (!a->st->cub || !a->cub_in || c->kind == CASE_TOP2 || !rsb_cub_supported(ck, (int)c->op, (int)a->dt))
        return;
    const char *call = rsb_cub_call_name(ck, (int)c->op, c->exclusive);
    char err[512] = "", detail[DETAIL_MAX] = "";
    rsb_cub_pipe_case pc = {ck, (int)c->op, (int)a->dt, c->exclusive, a->n, a->cub_in, a->calls, a->loops,
                            ASYNC_WARMUP};
    rsb_cub_pipe_timing pt;
    row_t r = {"ref", c->name, a->dtname, "cub_pipelined", a->n, (double)(a->n * a->sz), 1, a->loops, {0, 0, 0, 0},
               "cuda_events", R_ERROR, 0, NULL, 0, 0, detail};
    if (rsb_cub_pipelined(&pc, &pt, err, sizeof err)) {
        snprintf(detail, DETAIL_MAX, "%s: %s", call, err);
    } else {
        r.result = check_cub(a, c, &pt, call, detail);
        r.t = (bench_times){pt.ev_median_ms * 1e-3, pt.ev_min_ms * 1e-3, pt.host_median_ms * 1e-3,
                            pt.host_min_ms * 1e-3};
        if (r.result == R_REF) {
            snprintf(detail, DETAIL_MAX, "%s, %d calls back to back, temp storage %zu bytes%s", call, a->calls,
                     pt.temp_bytes, pt.consistent ? "" : "; result slots differ in their bits");
            cub->t = r.t;
            cub->ok = 1;
        }
    }
    report(a->st, &r, "cub", a->calls, NULL);
#else
    (void)a, (void)c;
#endif
}

/* ------------------------------------------------------------------------------------------- one case */

static void run_case(aset *a, acase *c)
{
    bench_state *st = a->st;
    char detail[DETAIL_MAX] = "", async_detail[DETAIL_MAX] = "", note[DETAIL_MAX] = "";
    const double bytes = (double)(a->n * a->sz);
    row_t ra = {"ours", c->name, a->dtname, "async", a->n, bytes, 1, a->loops, {0, 0, 0, 0},
                a->events ? "cuda_events" : "host_clock", R_ERROR, 0, NULL, 0, 0, async_detail};
    row_t rb = {"ours", c->name, a->dtname, "blocking", a->n, bytes, 1, a->loops, {0, 0, 0, 0}, "host_clock", R_ERROR,
                0, NULL, 0, 0, detail};
    if (!st->tty) {
        fprintf(stderr, "[bench %5.0fs] async: %s %s n=%zu\n", bench_now() - st->t_start, c->name, a->dtname, a->n);
        fflush(stderr);
    }
    if (c->kind == CASE_SCAN)
        bd_ref_reduce(&c->ref, c->op, a->dt, a->gen, c->exclusive ? a->n - 1 : a->n); /* the last element */
    else if (c->kind == CASE_REDUCE)
        bd_ref_reduce(&c->ref, c->op, a->dt, a->gen, a->n);
    per_call cub;
    cub_row(a, c, &cub);

    /* the checked blocking call (the first call of an op also builds its program on OpenCL) */
    unsigned char res[64];
    redscan_status s = call_blocking(a, c, res);
    int first = R_ERROR;
    if (s == REDSCAN_OK)
        first = verify_first(a, c, res, detail);
    else
        bench_status_detail(st->ctx, s, detail);
    if (first == R_ERROR) {
        int r = s == REDSCAN_ERR_UNSUPPORTED ? R_UNSUP : R_ERROR;
        ra.result = rb.result = r;
        snprintf(async_detail, DETAIL_MAX, "%s", detail);
        report(st, &ra, "async", a->calls, &cub);
        report(st, &rb, "blocking", a->calls, &cub);
        return;
    }

    per_call p;
    memset(&p, 0, sizeof p);
    s = time_async(a, c, &p, async_detail);
    if (s == REDSCAN_OK) {
        ra.t = p.t;
        ra.result = first == R_PASS ? check_async(a, c, async_detail) : R_FAIL;
        if (ra.result == R_PASS)
            snprintf(async_detail, DETAIL_MAX, "%d calls back to back, one redscan_synchronize%s", a->calls,
                     a->events ? "; CUDA events on the context's stream" : "");
        else if (first != R_PASS)
            snprintf(async_detail, DETAIL_MAX, "the checked blocking call failed: %s", detail);
    } else {
        ra.result = s == REDSCAN_ERR_UNSUPPORTED ? R_UNSUP : R_ERROR;
    }
    report(st, &ra, "async", a->calls, &cub);

    int bad = 0;
    memset(&p, 0, sizeof p);
    if (first == R_PASS)
        detail[0] = '\0';
    s = time_blocking(a, c, &p, &bad, first == R_PASS ? detail : note);
    if (s == REDSCAN_OK) {
        rb.t = p.t;
        rb.result = first == R_PASS && !bad ? R_PASS : R_FAIL;
        if (rb.result == R_PASS)
            snprintf(detail, DETAIL_MAX, "%d blocking calls per loop, host clock", a->calls);
        if (bad)
            snprintf(detail + strlen(detail), DETAIL_MAX - strlen(detail), "%sa timed blocking call gave other bits "
                     "than the checked one (the library promises the same bits on every run)", detail[0] ? "; " : "");
    } else {
        rb.result = R_ERROR;
        if (first != R_PASS)
            snprintf(detail, DETAIL_MAX, "%s", note);
    }
    report(st, &rb, "blocking", a->calls, &cub);
}

/* ------------------------------------------------------------------------------------------- the run */

static const redscan_dtype k_dtypes[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64,
                                         REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
static const redscan_op k_ops[] = {REDSCAN_SUM, REDSCAN_MIN, REDSCAN_MAX}; /* prod: refused by --async */

static acase make_case(case_kind kind, redscan_op op, int exclusive)
{
    acase c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.op = op;
    c.exclusive = exclusive;
    if (kind == CASE_REDUCE || kind == CASE_SCAN)
        snprintf(c.name, sizeof c.name, "%s.%s", kind == CASE_REDUCE ? "reduce" : exclusive ? "exscan" : "scan",
                 redscan_op_name(op));
    else
        snprintf(c.name, sizeof c.name, "%s", kind == CASE_ARGMAX ? "argmax" : "top2");
    return c;
}

/* Every case of one (n, dtype). */
static void run_dtype(bench_state *st, const bench_opts *o, redscan_dtype dt, size_t n)
{
    aset a;
    char detail[DETAIL_MAX] = "";
    if (aset_alloc(st, o, &a, dt, n, detail)) {
        row_t r = {"ours", "*", redscan_dtype_name(dt), "async", n, 0, 1, 0, {0, 0, 0, 0}, "", R_ERROR, 0, NULL, 0,
                   0, detail};
        report(st, &r, "-", async_calls(o, n), NULL);
        aset_free(&a);
        return;
    }
    for (int k = 0; k < 2; ++k) { /* reductions, then scans */
        if (!(k ? o->do_scan : o->do_reduce))
            continue;
        for (size_t i = 0; i < sizeof k_ops / sizeof k_ops[0]; ++i) {
            if (!bench_op_on(o, (int)k_ops[i]))
                continue;
            acase c = make_case(k ? CASE_SCAN : CASE_REDUCE, k_ops[i], k ? o->exclusive : 0);
            run_case(&a, &c);
        }
    }
    if (o->do_reduce && bench_op_on(o, OP_ARGMAX)) {
        acase c = make_case(CASE_ARGMAX, REDSCAN_SUM, 0);
        run_case(&a, &c);
    }
    if (o->do_reduce && n >= 2 && bench_op_on(o, OP_TOP2)) {
        acase c = make_case(CASE_TOP2, REDSCAN_SUM, 0);
        run_case(&a, &c);
    }
    aset_free(&a);
}

static void print_header(const bench_state *st, const bench_opts *o, const char *device, int loops)
{
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    printf("redscan %s bench --async, %s: backend %s, device %s\n", REDSCAN_VERSION_STRING, date, st->backend,
           device);
    printf("sizes:");
    for (int i = 0; i < o->nsizes; ++i)
        printf(" %zu (%d calls)", o->sizes[i], async_calls(o, o->sizes[i]));
    printf("%s; %d timed loops per row, medians\n", o->sizes_given ? "" : " (--async default)", loops);
    printf("each op (AUTO algorithms, one input buffer, no rotation: the cost of a call, not DRAM bandwidth):\n"
           "  async:    redscan_reserve, %d warm-up calls, then per loop R redscan_*_async calls back to back on the\n"
           "            context's %s and one redscan_synchronize; reductions write result_index 0..R-1\n"
           "            of one device buffer, nothing is read back between calls\n"
           "  blocking: per loop the same R calls through redscan_reduce_ex / redscan_scan_ex / redscan_argmax /\n"
           "            redscan_topk, each waiting for its result\n",
           ASYNC_WARMUP, st->is_cuda ? "stream" : "queue");
    if (st->cub)
        printf("  cub:      per loop R CUB calls back to back on one stream, temporary storage allocated before,\n"
               "            one cudaStreamSynchronize (cub::DeviceReduce::Sum/Min/Max, cub::DeviceScan::*, "
               "ArgMax; no top-k)\n");
    if (st->is_cuda)
        printf("per_call_us: async: CUDA events recorded on the context's stream (redscan_native_handle) before the\n"
               "             first call and after the last, / R; blocking: host clock / R\n");
    else
        printf("per_call_us: the host clock (CLOCK_MONOTONIC) around the R calls and the final wait (redscan_\n"
               "             synchronize, a clFinish), / R: the queue has no profiling on the default path\n");
    printf("host_us:     the host clock around the R calls and the final wait, / R; GB/s: n*size (input) / per_call\n"
           "x_cub:       per_call_us / CUB's per-call time on the same clock (cub_us: events for a row timed by\n"
           "             events, else its host clock); > 1: slower than CUB\n"
           "checks: the first blocking call against the host reference; every async result (each result_index) and\n"
           "        every timed blocking call must have its bits\n\n");
}

int bench_async(bench_state *st, const bench_opts *o, const char *device)
{
    int loops = o->reps_given ? o->reps : o->quick ? 3 : ASYNC_LOOPS;
    print_header(st, o, device, loops);
    if (st->is_cuda && !st->cuda_ok)
        printf("note: the bench's CUDA helper did not open: async rows are timed with the host clock\n");
    table_header();
    for (int si = 0; si < o->nsizes; ++si)
        for (size_t di = 0; di < sizeof k_dtypes / sizeof k_dtypes[0]; ++di)
            if ((o->dtype_mask >> k_dtypes[di]) & 1u)
                run_dtype(st, o, k_dtypes[di], o->sizes[si]);
    printf("\n%d rows: %d passed, %d failed, %d unsupported; references: %d failed; %.1f s\n", st->rows, st->passed,
           st->failed, st->unsupported, st->ref_failed, bench_now() - st->t_start);
    return st->failed || st->ref_failed ? 1 : 0;
}
