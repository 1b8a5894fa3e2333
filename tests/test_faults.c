/* test_faults: every failure point of every operation (fault builds only: -DREDSCAN_FAULT_INJECTION=ON).
 *
 * For each operation family (buffer create / write / read; reduce with each algorithm (and once growing the
 * scratch of a smaller one), reduce_host; mean,
 * mean_host; argmin, argmax_host; topk, topk_host; scan with every block x grid, in place, exclusive, widening;
 * scan_host, scan_host widening; the _async forms of reduce (n > 0 and n = 0), argmax, top-k and scan, each followed
 * by redscan_synchronize, whose result buffers a failed call must leave as they were) and each kind of point (alloc, transfer, build, launch; api/include/redscan_fault.h):
 *   1. one clean run counts the points of that kind the operation passes (its result is checked);
 *   2. for n = 1 .. count: arm the n-th point, run: the status is the one the injected driver error maps to, the
 *      last error names that driver error, host outputs keep their sentinel, a device input that is not also the
 *      output keeps its contents (and after an alloc or build failure, which comes before any kernel runs, so does
 *      a device scan's output, or an in-place scan's data); then, disarmed, the same context runs the operation again and gets the right
 *      result; destroying the context leaves no buffer, program, kernel or event behind (live counters at 0).
 * Alloc and build points only happen in a new context (scratch slots and programs are kept per context), so each
 * n gets a fresh context; transfer and launch points are the same on every call, so those walks reuse one warm
 * context per operation and also check that the live counts after each failed call equal those before it; they run
 * twice, the second time with profiling on (redscan_set_profiling: the calls then make events, which must not leak,
 * and a failed call reports no device time).
 *
 * An operation may absorb an injected failure through a documented fallback (the program cache loads a damaged
 * binary as a miss and builds from source; a grown scratch that does not fit is retried at the exact size): the
 * call is then accepted only with a correct result and a later point of the same kind passed (the retry). The
 * build walk runs once more with REDSCAN_CACHE=0, where every build point must fail the call. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "redscan_fault.h"

#define N 70000 /* 274 sections of 256: two levels of totals for the 256-value block scans */
#define HOST_OUT_BYTES ((size_t)N * 8)
#define SENTINEL 0xA5

static int32_t g_in[N];
static int64_t g_scan[N];  /* inclusive prefix sums, exact */
static int64_t g_sum;      /* exact sum */
static uint64_t g_argmin, g_argmax;
static uint64_t g_top3[3], g_bottom3[3]; /* indices of the 3 largest / smallest values, best first */
static unsigned char g_host_out[HOST_OUT_BYTES];
static int g_opencl;
static long g_absorbed, g_runs;

/* ---------------------------------------------------------------- data and references */

static void make_data(void)
{
    /* Distinct values (7919 is invertible mod the prime 100003), so argmin/argmax/top-k have one answer. */
    for (int i = 0; i < N; i++) g_in[i] = (int32_t)((int64_t)i * 7919 % 100003) - 50000;
    int64_t s = 0;
    for (int i = 0; i < N; i++) g_scan[i] = (s += g_in[i]);
    g_sum = s;
    g_argmin = g_argmax = 0;
    for (uint64_t i = 1; i < N; i++) {
        if (g_in[i] < g_in[g_argmin]) g_argmin = i;
        if (g_in[i] > g_in[g_argmax]) g_argmax = i;
    }
    for (int r = 0; r < 3; r++) {
        int64_t best = -1, worst = -1;
        for (int i = 0; i < N; i++) {
            int used_b = 0, used_w = 0;
            for (int q = 0; q < r; q++) used_b |= g_top3[q] == (uint64_t)i, used_w |= g_bottom3[q] == (uint64_t)i;
            if (!used_b && (best < 0 || g_in[i] > g_in[best])) best = i;
            if (!used_w && (worst < 0 || g_in[i] < g_in[worst])) worst = i;
        }
        g_top3[r] = (uint64_t)best;
        g_bottom3[r] = (uint64_t)worst;
    }
}

static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* ---------------------------------------------------------------- operations */

typedef struct {
    redscan_ctx *ctx;
    redscan_buffer *in;  /* N int32 = g_in */
    redscan_buffer *out; /* N int64 bytes, SENTINEL-filled */
    redscan_buffer *aux; /* 4096 bytes, SENTINEL-filled: the second result buffer of an _async select */
} fixture;

typedef struct op op;
struct op {
    const char *name;
    redscan_status (*run)(fixture *f, const op *o);
    int (*correct)(fixture *f, const op *o); /* after a successful run */
    redscan_reduce_algo algo;
    redscan_block_scan block;
    redscan_grid_scan grid;
    int exclusive, widen, in_place;
    int build_walk; /* walk the build points too (each costs a program load) */
    int async;      /* an _async call and redscan_synchronize: results in f->out / f->aux, which a failed call must
                       leave as they were whatever failed (only the last command writes them) */
};

static int read_out(fixture *f, void *dst, size_t bytes, const redscan_buffer *b)
{
    return redscan_buffer_read(f->ctx, b, 0, dst, bytes) == REDSCAN_OK;
}

static redscan_buffer *const g_unset = (redscan_buffer *)&g_host_out; /* a pointer no call may write over */

static redscan_status run_create(fixture *f, const op *o)
{
    (void)o;
    redscan_buffer *b = g_unset;
    redscan_status st = redscan_buffer_create(f->ctx, 4096, &b);
    if (st == REDSCAN_OK) redscan_buffer_destroy(f->ctx, b);
    else CHECK(b == g_unset, "buffer_create wrote its output pointer on failure");
    return st;
}
static int ok_always(fixture *f, const op *o) { (void)f, (void)o; return 1; }

static redscan_status run_write(fixture *f, const op *o)
{
    (void)o;
    return redscan_buffer_write(f->ctx, f->out, 0, g_in, sizeof g_in);
}
static int ok_write(fixture *f, const op *o)
{
    (void)o;
    static int32_t back[N];
    return read_out(f, back, sizeof back, f->out) && memcmp(back, g_in, sizeof back) == 0;
}

static redscan_status run_read(fixture *f, const op *o)
{
    (void)o;
    return redscan_buffer_read(f->ctx, f->in, 0, g_host_out, sizeof g_in);
}
static int ok_read(fixture *f, const op *o) { (void)f, (void)o; return memcmp(g_host_out, g_in, sizeof g_in) == 0; }

static redscan_status run_reduce(fixture *f, const op *o)
{
    redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, (redscan_dtype)0, o->algo, 0};
    return redscan_reduce_ex(f->ctx, &d, f->in, N, g_host_out);
}
/* A smaller reduction first, so that the full one grows the context's scratch slots by less than twice: the grown
 * slot is asked at twice its old size, and when that fails, at the exact size (a retry an alloc point exercises). */
static redscan_status run_reduce_grow(fixture *f, const op *o)
{
    redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, (redscan_dtype)0, o->algo, 0};
    int32_t first;
    redscan_status st = redscan_reduce_ex(f->ctx, &d, f->in, N * 4 / 7, &first);
    if (st != REDSCAN_OK) return st;
    int64_t want = 0;
    for (int i = 0; i < N * 4 / 7; i++) want += g_in[i];
    if (!CHECK(first == wrap32(want), "%s: the first, smaller reduction is wrong", o->name)) return REDSCAN_ERR_DEVICE;
    return redscan_reduce_ex(f->ctx, &d, f->in, N, g_host_out);
}
static redscan_status run_reduce_host(fixture *f, const op *o)
{
    (void)o;
    return redscan_reduce_host(f->ctx, REDSCAN_SUM, REDSCAN_INT32, g_in, N, g_host_out);
}
static int ok_reduce(fixture *f, const op *o)
{
    (void)f, (void)o;
    int32_t r;
    memcpy(&r, g_host_out, sizeof r);
    return r == wrap32(g_sum);
}

static redscan_status run_mean(fixture *f, const op *o)
{
    (void)o;
    return redscan_mean(f->ctx, REDSCAN_INT32, f->in, N, (double *)(void *)g_host_out);
}
static redscan_status run_mean_host(fixture *f, const op *o)
{
    (void)o;
    return redscan_mean_host(f->ctx, REDSCAN_INT32, g_in, N, (double *)(void *)g_host_out);
}
static int ok_mean(fixture *f, const op *o)
{
    (void)f, (void)o;
    double m;
    memcpy(&m, g_host_out, sizeof m);
    return m == (double)g_sum / (double)N;
}

/* index at byte 0, value at byte 8 */
static redscan_status run_argmin(fixture *f, const op *o)
{
    (void)o;
    return redscan_argmin(f->ctx, REDSCAN_INT32, f->in, N, (uint64_t *)(void *)g_host_out, g_host_out + 8);
}
static int ok_argmin(fixture *f, const op *o)
{
    (void)f, (void)o;
    uint64_t i;
    int32_t v;
    memcpy(&i, g_host_out, 8);
    memcpy(&v, g_host_out + 8, 4);
    return i == g_argmin && v == g_in[g_argmin];
}
static redscan_status run_argmax_host(fixture *f, const op *o)
{
    (void)o;
    return redscan_argmax_host(f->ctx, REDSCAN_INT32, g_in, N, (uint64_t *)(void *)g_host_out, g_host_out + 8);
}
static int ok_argmax(fixture *f, const op *o)
{
    (void)f, (void)o;
    uint64_t i;
    int32_t v;
    memcpy(&i, g_host_out, 8);
    memcpy(&v, g_host_out + 8, 4);
    return i == g_argmax && v == g_in[g_argmax];
}

/* values at byte 0 (3 x int32), indices at byte 64 (3 x uint64) */
static redscan_status run_topk(fixture *f, const op *o)
{
    (void)o;
    return redscan_topk(f->ctx, REDSCAN_INT32, f->in, N, 3, 1, g_host_out, (uint64_t *)(void *)(g_host_out + 64));
}
static redscan_status run_topk_host(fixture *f, const op *o)
{
    (void)o;
    return redscan_topk_host(f->ctx, REDSCAN_INT32, g_in, N, 3, 0, g_host_out, (uint64_t *)(void *)(g_host_out + 64));
}
static int ok_topk_of(const uint64_t want[3])
{
    int32_t v[3];
    uint64_t idx[3];
    memcpy(v, g_host_out, sizeof v);
    memcpy(idx, g_host_out + 64, sizeof idx);
    for (int r = 0; r < 3; r++)
        if (idx[r] != want[r] || v[r] != g_in[want[r]]) return 0;
    return 1;
}
static int ok_topk(fixture *f, const op *o) { (void)f, (void)o; return ok_topk_of(g_top3); }
static int ok_topk_smallest(fixture *f, const op *o) { (void)f, (void)o; return ok_topk_of(g_bottom3); }

static redscan_scan_desc scan_desc(const op *o)
{
    redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, o->widen ? REDSCAN_INT64 : (redscan_dtype)0,
                           o->exclusive, NULL, o->block, o->grid, 0};
    return d;
}
static redscan_status run_scan(fixture *f, const op *o)
{
    redscan_scan_desc d = scan_desc(o);
    return redscan_scan_ex(f->ctx, &d, f->in, o->in_place ? f->in : f->out, N);
}
static redscan_status run_scan_host(fixture *f, const op *o)
{
    redscan_scan_desc d = scan_desc(o);
    return redscan_scan_host_ex(f->ctx, &d, g_in, g_host_out, N);
}
/* Element i of the expected scan, as the output type holds it. */
static int64_t scan_want(const op *o, int i)
{
    int64_t v = o->exclusive ? (i ? g_scan[i - 1] : 0) : g_scan[i];
    return o->widen ? v : (int64_t)wrap32(v);
}
static int scan_matches(const op *o, const void *got)
{
    for (int i = 0; i < N; i++) {
        int64_t v;
        if (o->widen) memcpy(&v, (const char *)got + 8 * (size_t)i, 8);
        else {
            int32_t w;
            memcpy(&w, (const char *)got + 4 * (size_t)i, 4);
            v = w;
        }
        if (v != scan_want(o, i)) return 0;
    }
    return 1;
}
static int ok_scan(fixture *f, const op *o)
{
    static unsigned char back[HOST_OUT_BYTES];
    const size_t bytes = (size_t)N * (o->widen ? 8 : 4);
    return read_out(f, back, bytes, o->in_place ? f->in : f->out) && scan_matches(o, back);
}
static int ok_scan_host(fixture *f, const op *o) { (void)f; return scan_matches(o, g_host_out); }

/* ---- the _async forms: enqueue, then redscan_synchronize (which reports a failure of the queued work) ---- */
static redscan_status synced(fixture *f, redscan_status st)
{
    return st == REDSCAN_OK ? redscan_synchronize(f->ctx) : st;
}
static int32_t out_i32(fixture *f, size_t index, int *ok)
{
    int32_t v = 0;
    *ok = redscan_buffer_read(f->ctx, f->out, index * 4, &v, 4) == REDSCAN_OK;
    return v;
}
/* The sum into element 3 of f->out (one small copy after the last pass on OpenCL); n = 0: the empty result. */
static redscan_status run_reduce_async(fixture *f, const op *o)
{
    redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, (redscan_dtype)0, o->algo, 0};
    return synced(f, redscan_reduce_async(f->ctx, &d, f->in, o->exclusive ? 0 : N, f->out, 3));
}
static int ok_reduce_async(fixture *f, const op *o)
{
    int ok;
    const int32_t v = out_i32(f, 3, &ok);
    return ok && v == (o->exclusive ? 0 : wrap32(g_sum));
}
static redscan_status run_argmax_async(fixture *f, const op *o)
{
    (void)o;
    return synced(f, redscan_argmax_async(f->ctx, REDSCAN_INT32, f->in, N, f->out, f->aux));
}
static int ok_argmax_async(fixture *f, const op *o)
{
    (void)o;
    uint64_t i = 0;
    int32_t v = 0;
    return redscan_buffer_read(f->ctx, f->out, 0, &i, 8) == REDSCAN_OK &&
           redscan_buffer_read(f->ctx, f->aux, 0, &v, 4) == REDSCAN_OK && i == g_argmax && v == g_in[g_argmax];
}
static redscan_status run_topk_async(fixture *f, const op *o)
{
    (void)o;
    return synced(f, redscan_topk_async(f->ctx, REDSCAN_INT32, f->in, N, 3, 1, f->out, f->aux));
}
static int ok_topk_async(fixture *f, const op *o)
{
    (void)o;
    int32_t v[3];
    uint64_t idx[3];
    if (redscan_buffer_read(f->ctx, f->out, 0, v, sizeof v) != REDSCAN_OK ||
        redscan_buffer_read(f->ctx, f->aux, 0, idx, sizeof idx) != REDSCAN_OK)
        return 0;
    for (int r = 0; r < 3; r++)
        if (idx[r] != g_top3[r] || v[r] != g_in[g_top3[r]]) return 0;
    return 1;
}
static redscan_status run_scan_async(fixture *f, const op *o)
{
    redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, (redscan_dtype)0, 0, NULL, o->block, o->grid, 0};
    return synced(f, redscan_scan_async(f->ctx, &d, f->in, f->out, N));
}
static int ok_scan(fixture *f, const op *o);
static int ok_scan_async(fixture *f, const op *o) { return ok_scan(f, o); }

#define SCAN(nm, b, g) {nm, run_scan, ok_scan, 0, REDSCAN_BLOCK_##b, REDSCAN_GRID_##g, 0, 0, 0, 0}
static const op g_ops[] = {
    {"buffer_create", run_create, ok_always, 0, 0, 0, 0, 0, 0, 0},
    {"buffer_write", run_write, ok_write, 0, 0, 0, 0, 0, 0, 0},
    {"buffer_read", run_read, ok_read, 0, 0, 0, 0, 0, 0, 0},
    {"reduce tree", run_reduce, ok_reduce, REDSCAN_REDUCE_TREE, 0, 0, 0, 0, 0, 1},
    {"reduce interleaved", run_reduce, ok_reduce, REDSCAN_REDUCE_INTERLEAVED, 0, 0, 0, 0, 0, 0},
    {"reduce coarsened", run_reduce, ok_reduce, REDSCAN_REDUCE_COARSENED, 0, 0, 0, 0, 0, 0},
    {"reduce tree, scratch grows", run_reduce_grow, ok_reduce, REDSCAN_REDUCE_TREE, 0, 0, 0, 0, 0, 0},
    {"reduce warp_sync", run_reduce, ok_reduce, REDSCAN_REDUCE_WARP_SYNC, 0, 0, 0, 0, 0, 1},
    {"reduce shuffle", run_reduce, ok_reduce, REDSCAN_REDUCE_SHUFFLE, 0, 0, 0, 0, 0, 0},
    {"reduce_host", run_reduce_host, ok_reduce, 0, 0, 0, 0, 0, 0, 1},
    {"mean", run_mean, ok_mean, 0, 0, 0, 0, 0, 0, 0},
    {"mean_host", run_mean_host, ok_mean, 0, 0, 0, 0, 0, 0, 1},
    {"argmin", run_argmin, ok_argmin, 0, 0, 0, 0, 0, 0, 0},
    {"argmax_host", run_argmax_host, ok_argmax, 0, 0, 0, 0, 0, 0, 1},
    {"topk", run_topk, ok_topk, 0, 0, 0, 0, 0, 0, 1},
    {"topk_host smallest", run_topk_host, ok_topk_smallest, 0, 0, 0, 0, 0, 0, 0},
    SCAN("scan kogge_stone hierarchical", KOGGE_STONE, HIERARCHICAL),
    SCAN("scan kogge_stone reduce_then_scan", KOGGE_STONE, REDUCE_THEN_SCAN),
    SCAN("scan kogge_stone single_pass", KOGGE_STONE, SINGLE_PASS),
    SCAN("scan kogge_stone_db hierarchical", KOGGE_STONE_DB, HIERARCHICAL),
    SCAN("scan kogge_stone_db reduce_then_scan", KOGGE_STONE_DB, REDUCE_THEN_SCAN),
    SCAN("scan kogge_stone_db single_pass", KOGGE_STONE_DB, SINGLE_PASS),
    SCAN("scan brent_kung hierarchical", BRENT_KUNG, HIERARCHICAL),
    SCAN("scan brent_kung reduce_then_scan", BRENT_KUNG, REDUCE_THEN_SCAN),
    SCAN("scan brent_kung single_pass", BRENT_KUNG, SINGLE_PASS),
    SCAN("scan coarsened hierarchical", COARSENED, HIERARCHICAL),
    SCAN("scan coarsened reduce_then_scan", COARSENED, REDUCE_THEN_SCAN),
    SCAN("scan coarsened single_pass", COARSENED, SINGLE_PASS),
    {"scan in place", run_scan, ok_scan, 0, 0, 0, 0, 0, 1, 1},
    {"scan exclusive", run_scan, ok_scan, 0, 0, 0, 1, 0, 0, 0},
    {"scan widening", run_scan, ok_scan, 0, 0, 0, 0, 1, 0, 1},
    {"scan_host", run_scan_host, ok_scan_host, 0, 0, 0, 0, 0, 0, 1},
    {"scan_host exclusive widening", run_scan_host, ok_scan_host, 0, 0, 0, 1, 1, 0, 0},
    /* exclusive = 1 on reduce_async: n = 0, the empty result's fill / copy */
    {"reduce_async coarsened", run_reduce_async, ok_reduce_async, REDSCAN_REDUCE_COARSENED, 0, 0, 0, 0, 0, 1, 1},
    {"reduce_async tree", run_reduce_async, ok_reduce_async, REDSCAN_REDUCE_TREE, 0, 0, 0, 0, 0, 0, 1},
    {"reduce_async n = 0", run_reduce_async, ok_reduce_async, 0, 0, 0, 1, 0, 0, 0, 1},
    {"argmax_async", run_argmax_async, ok_argmax_async, 0, 0, 0, 0, 0, 0, 1, 1},
    {"topk_async", run_topk_async, ok_topk_async, 0, 0, 0, 0, 0, 0, 0, 1},
    {"scan_async coarsened reduce_then_scan", run_scan_async, ok_scan_async, 0, REDSCAN_BLOCK_COARSENED,
     REDSCAN_GRID_REDUCE_THEN_SCAN, 0, 0, 0, 1, 1},
    {"scan_async kogge_stone single_pass", run_scan_async, ok_scan_async, 0, REDSCAN_BLOCK_KOGGE_STONE,
     REDSCAN_GRID_SINGLE_PASS, 0, 0, 0, 0, 1},
};

/* ---------------------------------------------------------------- contexts and checks */

static const char *const g_kind_names[] = {"alloc", "transfer", "build", "launch"};

/* The status and the driver error an injected failure of `kind` gives (redscan_fault.h). */
static redscan_status want_status(redscan_fault_kind kind)
{
    switch (kind) {
    case REDSCAN_FAULT_ALLOC: return REDSCAN_ERR_OUT_OF_MEMORY;
    case REDSCAN_FAULT_BUILD: return REDSCAN_ERR_KERNEL_BUILD;
    default: return g_opencl ? REDSCAN_ERR_OUT_OF_MEMORY : REDSCAN_ERR_DEVICE; /* CL_OUT_OF_RESOURCES / cuda */
    }
}
static const char *want_error_name(redscan_fault_kind kind)
{
    switch (kind) {
    case REDSCAN_FAULT_ALLOC: return g_opencl ? "CL_MEM_OBJECT_ALLOCATION_FAILURE" : "cudaErrorMemoryAllocation";
    case REDSCAN_FAULT_TRANSFER: return g_opencl ? "CL_OUT_OF_RESOURCES" : "cudaErrorInvalidValue";
    case REDSCAN_FAULT_BUILD: return "CL_BUILD_PROGRAM_FAILURE";
    default: return g_opencl ? "CL_OUT_OF_RESOURCES" : "cudaErrorLaunchOutOfResources";
    }
}

static void live_now(long live[REDSCAN_LIVE_KINDS])
{
    for (int k = 0; k < REDSCAN_LIVE_KINDS; k++) live[k] = redscan_fault_live((redscan_live_kind)k);
}

/* Every live counter equals `want`; `what` says when. */
static void check_live(const long want[REDSCAN_LIVE_KINDS], const char *what)
{
    long live[REDSCAN_LIVE_KINDS];
    live_now(live);
    for (int k = 0; k < REDSCAN_LIVE_KINDS; k++)
        CHECK(live[k] == want[k], "%s: %ld live %s object(s), want %ld (leaked or released twice)", what, live[k],
              redscan_live_kind_name((redscan_live_kind)k), want[k]);
}
static const long g_zero[REDSCAN_LIVE_KINDS] = {0};

/* A new context with its input and output buffers; 0 when the context cannot be made (counted as a failure). */
static int fixture_open(fixture *f)
{
    memset(f, 0, sizeof *f);
    redscan_status st = redscan_create(&f->ctx, REDSCAN_BACKEND_AUTO);
    if (!CHECK(st == REDSCAN_OK, "redscan_create: %s: %s", redscan_status_string(st), redscan_last_error(NULL)))
        return 0;
    static unsigned char fill[HOST_OUT_BYTES];
    memset(fill, SENTINEL, sizeof fill);
    if (redscan_buffer_create(f->ctx, sizeof g_in, &f->in) != REDSCAN_OK ||
        redscan_buffer_create(f->ctx, HOST_OUT_BYTES, &f->out) != REDSCAN_OK ||
        redscan_buffer_create(f->ctx, 4096, &f->aux) != REDSCAN_OK ||
        redscan_buffer_write(f->ctx, f->in, 0, g_in, sizeof g_in) != REDSCAN_OK ||
        redscan_buffer_write(f->ctx, f->out, 0, fill, sizeof fill) != REDSCAN_OK ||
        redscan_buffer_write(f->ctx, f->aux, 0, fill, 4096) != REDSCAN_OK) {
        CHECK(0, "fixture buffers: %s", redscan_last_error(f->ctx));
        return 0;
    }
    return 1;
}

static void fixture_close(fixture *f, const char *what)
{
    if (f->ctx) {
        redscan_buffer_destroy(f->ctx, f->in);
        redscan_buffer_destroy(f->ctx, f->out);
        redscan_buffer_destroy(f->ctx, f->aux);
        redscan_destroy(f->ctx);
    }
    memset(f, 0, sizeof *f);
    check_live(g_zero, what);
}

/* Before a run: host outputs to the sentinel; an in-place scan's buffer back to the input. */
static int prepare(fixture *f, const op *o)
{
    memset(g_host_out, SENTINEL, sizeof g_host_out);
    if (o->async) { /* a warm context's earlier run left its results there */
        static unsigned char fill[HOST_OUT_BYTES];
        memset(fill, SENTINEL, sizeof fill);
        if (!CHECK(redscan_buffer_write(f->ctx, f->out, 0, fill, sizeof fill) == REDSCAN_OK &&
                       redscan_buffer_write(f->ctx, f->aux, 0, fill, 4096) == REDSCAN_OK,
                   "resetting the _async outputs: %s", redscan_last_error(f->ctx)))
            return 0;
    }
    if (o->in_place) return CHECK(redscan_buffer_write(f->ctx, f->in, 0, g_in, sizeof g_in) == REDSCAN_OK,
                                  "rewriting the in-place input: %s", redscan_last_error(f->ctx));
    return 1;
}

static int host_out_untouched(void)
{
    for (size_t i = 0; i < sizeof g_host_out; i++)
        if (g_host_out[i] != SENTINEL) return 0;
    return 1;
}

static int input_untouched(fixture *f)
{
    static int32_t back[N];
    return read_out(f, back, sizeof back, f->in) && memcmp(back, g_in, sizeof back) == 0;
}

static int output_untouched(fixture *f)
{
    static unsigned char back[HOST_OUT_BYTES + 4096];
    if (!read_out(f, back, HOST_OUT_BYTES, f->out) || !read_out(f, back + HOST_OUT_BYTES, 4096, f->aux)) return 0;
    for (size_t i = 0; i < sizeof back; i++)
        if (back[i] != SENTINEL) return 0;
    return 1;
}

/* A clean run (nothing armed) that must succeed with the right result. */
static int clean_run(fixture *f, const op *o, const char *what)
{
    if (!prepare(f, o)) return 0;
    redscan_status st = o->run(f, o);
    if (!CHECK(st == REDSCAN_OK, "%s: %s: %s", what, redscan_status_string(st), redscan_last_error(f->ctx))) return 0;
    return CHECK(o->correct(f, o), "%s: wrong result", what);
}

/* One run of o with point n of kind armed (0: none), counted from after prepare(). */
static redscan_status counted_run(fixture *f, const op *o, redscan_fault_kind kind, uint64_t n, uint64_t *passed,
                                  uint64_t *fired)
{
    if (!prepare(f, o)) return REDSCAN_ERR_DEVICE;
    redscan_fault_arm(kind, n);
    redscan_status st = o->run(f, o);
    *passed = redscan_fault_count(kind);
    *fired = redscan_fault_fired(kind);
    redscan_fault_arm(kind, 0);
    return st;
}

/* The run with point n of kind armed: check everything a failed call promises, or, where a fallback absorbed the
 * failure, that it was retried and the result is right. */
static void armed_run(fixture *f, const op *o, redscan_fault_kind kind, uint64_t n)
{
    char what[160];
    snprintf(what, sizeof what, "%s, %s point %" PRIu64, o->name, g_kind_names[kind], n);
    h_case("%s", what);
    uint64_t passed, fired;
    redscan_status st = counted_run(f, o, kind, n, &passed, &fired);
    g_runs++;
    CHECK(fired == 1, "%s: the armed point was not reached (%" PRIu64 " points passed)", what, passed);
    if (st == REDSCAN_OK) {
        /* absorbed: only by a retry (a later point of the same kind) that produced the right result */
        g_absorbed++;
        CHECK(passed > n, "%s: the call succeeded although its point failed and nothing was retried", what);
        CHECK(o->correct(f, o), "%s: the call absorbed the failure but its result is wrong", what);
        if (h_verbose()) printf("  %s: absorbed by a retry\n", what);
        return;
    }
    const char *msg = redscan_last_error(f->ctx);
    CHECK(st == want_status(kind), "%s: status %s, want %s (%s)", what, redscan_status_string(st),
          redscan_status_string(want_status(kind)), msg);
    CHECK(strstr(msg, want_error_name(kind)) != NULL, "%s: the message does not name %s: \"%s\"", what,
          want_error_name(kind), msg);
    CHECK(host_out_untouched(), "%s: a host output was written by the failed call", what);
    if (!o->in_place)
        CHECK(input_untouched(f), "%s: the device input changed (or could not be read back: %s)", what,
              redscan_last_error(f->ctx));
    /* Alloc and build failures come before any kernel runs (each call in a fresh context here, so the output
     * still holds the sentinel): a device scan's output, or an in-place scan's data, is untouched too. */
    if (o->async && o->run != run_scan_async)
        CHECK(output_untouched(f), "%s: a failed _async call wrote its result buffers", what);
    if ((o->run == run_scan || o->run == run_scan_async) && (kind == REDSCAN_FAULT_ALLOC || kind == REDSCAN_FAULT_BUILD)) {
        if (o->in_place)
            CHECK(input_untouched(f), "%s: the in-place scan's data changed before any kernel could run", what);
        else
            CHECK(output_untouched(f), "%s: the scan's output buffer changed before any kernel could run", what);
    }
}

/* ---------------------------------------------------------------- walks */

static int is_buffer_op(const op *o) { return o->run == run_create || o->run == run_write || o->run == run_read; }

/* Points of `kind` one call of o passes in a new context (-1: o is unsupported here, or failed). */
static long count_fresh(const op *o, redscan_fault_kind kind, char *unsupported, size_t usize)
{
    fixture f;
    long count = -1;
    if (!fixture_open(&f)) {
        fixture_close(&f, o->name);
        return -1;
    }
    uint64_t passed, fired;
    redscan_status st = counted_run(&f, o, kind, 0, &passed, &fired);
    if (st == REDSCAN_ERR_UNSUPPORTED) {
        snprintf(unsupported, usize, "%s", redscan_last_error(f.ctx));
    } else if (CHECK(st == REDSCAN_OK, "%s: clean run: %s: %s", o->name, redscan_status_string(st),
                     redscan_last_error(f.ctx)) &&
               CHECK(o->correct(&f, o), "%s: clean run: wrong result", o->name)) {
        count = (long)passed;
    }
    char what[160];
    snprintf(what, sizeof what, "%s: after the clean run and destroy", o->name);
    fixture_close(&f, what);
    return count;
}

/* alloc / build: a new context for every point. */
static long walk_fresh(const op *o, redscan_fault_kind kind)
{
    char unsupported[512] = "";
    long count = count_fresh(o, kind, unsupported, sizeof unsupported);
    if (unsupported[0]) {
        printf("  %-38s unsupported here: %.160s\n", o->name, unsupported);
        return -2;
    }
    for (long n = 1; n <= count; n++) {
        fixture f;
        if (fixture_open(&f)) {
            armed_run(&f, o, kind, (uint64_t)n);
            char what[160];
            snprintf(what, sizeof what, "%s, %s point %ld: run again in the same context", o->name,
                     g_kind_names[kind], n);
            clean_run(&f, o, what);
        }
        char what[160];
        snprintf(what, sizeof what, "%s, %s point %ld: after destroy", o->name, g_kind_names[kind], n);
        fixture_close(&f, what);
    }
    return count;
}

/* transfer / launch: one warm context; the live counts after each failed call (and after the run that follows)
 * must be those of the warm context before it. With profiling on, operations make events (OpenCL profiling events,
 * CUDA events), so the same walk also checks that a failed call leaves none behind and records no time.
 * Returns 0 when profiling is unsupported here. */
static int walk_warm(const op *o, long counts[REDSCAN_FAULT_KINDS], int profiling)
{
    fixture f;
    if (!fixture_open(&f)) {
        fixture_close(&f, o->name);
        return 1;
    }
    if (profiling) {
        redscan_status st = redscan_set_profiling(f.ctx, 1);
        if (st == REDSCAN_ERR_UNSUPPORTED) {
            fixture_close(&f, o->name);
            return 0;
        }
        if (!CHECK(st == REDSCAN_OK, "%s: redscan_set_profiling(1): %s: %s", o->name, redscan_status_string(st),
                   redscan_last_error(f.ctx))) {
            fixture_close(&f, o->name);
            return 1;
        }
    }
    char what[160];
    snprintf(what, sizeof what, "%s%s: warm-up", o->name, profiling ? " (profiling)" : "");
    if (!clean_run(&f, o, what)) {
        fixture_close(&f, what);
        return 1;
    }
    const redscan_fault_kind kinds[] = {REDSCAN_FAULT_TRANSFER, REDSCAN_FAULT_LAUNCH};
    for (int ki = 0; ki < 2; ki++) {
        const redscan_fault_kind kind = kinds[ki];
        uint64_t passed, fired;
        redscan_status st = counted_run(&f, o, kind, 0, &passed, &fired);
        if (!CHECK(st == REDSCAN_OK && o->correct(&f, o), "%s: counting run: %s: %s", o->name,
                   redscan_status_string(st), redscan_last_error(f.ctx)))
            break;
        const long count = (long)passed;
        counts[kind] = count;
        long warm[REDSCAN_LIVE_KINDS];
        live_now(warm);
        const char *mode = profiling ? "warm context, profiling" : "warm context";
        for (long n = 1; n <= count; n++) {
            armed_run(&f, o, kind, (uint64_t)n);
            snprintf(what, sizeof what, "%s, %s point %ld (%s): after the failed call", o->name, g_kind_names[kind],
                     n, mode);
            check_live(warm, what);
            double seconds = -1;
            if (profiling && !is_buffer_op(o))
                CHECK(redscan_last_device_time(f.ctx, &seconds) == REDSCAN_ERR_INVALID_ARGUMENT && seconds == -1,
                      "%s: a device time is reported for the failed operation", what);
            snprintf(what, sizeof what, "%s, %s point %ld (%s): run again", o->name, g_kind_names[kind], n, mode);
            clean_run(&f, o, what);
            check_live(warm, what);
        }
    }
    snprintf(what, sizeof what, "%s: warm context%s destroyed", o->name, profiling ? " (profiling)" : "");
    fixture_close(&f, what);
    return 1;
}

/* Whether `kind` must have points in o (the hooks are wired where they should be). */
/* The _async forms read nothing back: a reduction's last pass writes element 3 itself; n = 0 is one fill or copy
 * (CUDA copies from the pinned table it allocates in a new context); a single_pass scan fills its flags. */
static int expects_async_points(const op *o, redscan_fault_kind kind)
{
    const int empty = o->run == run_reduce_async && o->exclusive;
    switch (kind) {
    case REDSCAN_FAULT_ALLOC: return !empty || !g_opencl;
    case REDSCAN_FAULT_TRANSFER:
        return (o->run == run_reduce_async && empty) ||
               (o->run == run_scan_async && o->grid == REDSCAN_GRID_SINGLE_PASS);
    case REDSCAN_FAULT_BUILD: return g_opencl && !empty;
    default: return !empty;
    }
}

static int expects_points(const op *o, redscan_fault_kind kind)
{
    if (o->async) return expects_async_points(o, kind);
    const int buffer_op = is_buffer_op(o);
    switch (kind) {
    case REDSCAN_FAULT_ALLOC: return o->run != run_write && o->run != run_read;
    case REDSCAN_FAULT_TRANSFER: /* a device scan moves nothing to or from the host (single_pass: a fill) */
        return o->run != run_create && (o->run != run_scan || o->grid == REDSCAN_GRID_SINGLE_PASS);
    case REDSCAN_FAULT_BUILD: return g_opencl && !buffer_op;
    default: return !buffer_op;
    }
}

static void walk_op(const op *o)
{
    double t0 = h_now();
    long counts[REDSCAN_FAULT_KINDS] = {0, 0, 0, 0};
    long before = h_failures();
    counts[REDSCAN_FAULT_ALLOC] = walk_fresh(o, REDSCAN_FAULT_ALLOC);
    if (counts[REDSCAN_FAULT_ALLOC] == -2) return; /* unsupported here (printed) */
    walk_warm(o, counts, 0);
    long prof[REDSCAN_FAULT_KINDS] = {0, 0, 0, 0};
    int profiled = walk_warm(o, prof, 1);
    if (profiled)
        CHECK(prof[REDSCAN_FAULT_TRANSFER] == counts[REDSCAN_FAULT_TRANSFER] &&
                  prof[REDSCAN_FAULT_LAUNCH] == counts[REDSCAN_FAULT_LAUNCH],
              "%s: profiling changes the points (transfer %ld / %ld, launch %ld / %ld)", o->name,
              prof[REDSCAN_FAULT_TRANSFER], counts[REDSCAN_FAULT_TRANSFER], prof[REDSCAN_FAULT_LAUNCH],
              counts[REDSCAN_FAULT_LAUNCH]);
    if (o->build_walk) counts[REDSCAN_FAULT_BUILD] = walk_fresh(o, REDSCAN_FAULT_BUILD);
    for (int k = 0; k < REDSCAN_FAULT_KINDS; k++) {
        if (k == REDSCAN_FAULT_BUILD && !o->build_walk) continue;
        if (expects_points(o, (redscan_fault_kind)k))
            CHECK(counts[k] > 0, "%s: no %s point was passed: is the hook wired?", o->name, g_kind_names[k]);
    }
    printf("  %-38s alloc %ld, transfer %ld, launch %ld, build %s%ld points%s: %s (%.1f s)\n", o->name,
           counts[REDSCAN_FAULT_ALLOC], counts[REDSCAN_FAULT_TRANSFER], counts[REDSCAN_FAULT_LAUNCH],
           o->build_walk ? "" : "(not walked) ", counts[REDSCAN_FAULT_BUILD],
           profiled ? "" : " (profiling unsupported: walked once)", h_failures() == before ? "ok" : "FAILED",
           h_now() - t0);
}

/* The build walk again with the program cache off: no fallback, so every build point fails the call. */
static void walk_builds_without_cache(void)
{
    const char *old = getenv("REDSCAN_CACHE");
    char *saved = old ? strdup(old) : NULL;
    setenv("REDSCAN_CACHE", "0", 1);
    const long absorbed = g_absorbed;
    printf("build points with REDSCAN_CACHE=0:\n");
    for (size_t i = 0; i < sizeof g_ops / sizeof g_ops[0]; i++)
        if (g_ops[i].build_walk && (g_ops[i].run == run_reduce_host || g_ops[i].run == run_scan_host)) {
            long c = walk_fresh(&g_ops[i], REDSCAN_FAULT_BUILD);
            printf("  %-38s build %ld points\n", g_ops[i].name, c);
        }
    CHECK(g_absorbed == absorbed, "with REDSCAN_CACHE=0 %ld build failure(s) were absorbed", g_absorbed - absorbed);
    if (saved) setenv("REDSCAN_CACHE", saved, 1);
    else unsetenv("REDSCAN_CACHE");
    free(saved);
}

int main(void)
{
    h_open("test_faults");
    g_opencl = strcmp(redscan_backend_name(h_ctx), "opencl") == 0;
    check_live(g_zero, "at start (the harness context holds no tracked object)");
    make_data();
    printf("points per operation (N = %d int32, each walked; build only where marked):\n", N);
    for (size_t i = 0; i < sizeof g_ops / sizeof g_ops[0]; i++)
        if (h_case("%s", g_ops[i].name)) walk_op(&g_ops[i]);
    if (g_opencl && h_case("build points without the program cache")) walk_builds_without_cache();
    printf("%ld armed runs, %ld failures absorbed by a retry\n", g_runs, g_absorbed);
    check_live(g_zero, "at the end");
    return h_done();
}
