/* test_stress: a bounded stress test (issue 15, item 4). Opt-in: CTest label `stress`, excluded from the default runs
 * (scripts/test.sh uses -LE 'large|stress'); scripts/stress.sh runs it; docs/RELIABILITY.md, "Stress test".
 *
 * One process: T threads (REDSCAN_STRESS_THREADS, default 4), each with C contexts of its own
 * (REDSCAN_STRESS_CONTEXTS, default 2) on REDSCAN_BACKEND as for every test, each thread looping until the time budget
 * (REDSCAN_STRESS_SECONDS, default 120) is spent over a random mix of operations, every result checked:
 *   - reductions sum/prod/min/max with and without widening, every reduction algorithm (AUTO, tree, interleaved,
 *     coarsened, warp_sync and shuffle: UNSUPPORTED accepted for those two), mean, argmin/argmax (value or NULL),
 *     top-k (k 1 .. min(n, 256), largest/smallest, indices or NULL), inclusive/exclusive scans with and without init,
 *     in place, widened, every block x grid (single_pass included);
 *   - through the host-pointer API (plain and descriptor), the device-buffer API (plain and descriptor) and the
 *     stream-ordered API (redscan_reserve / _reserve_topk sometimes first, redscan_*_async, redscan_synchronize);
 *   - async chains: scan_async, then reduce_async / argmin or argmax_async / topk_async of the scan's output on the
 *     same queue, a refused async call among them, ONE synchronize: stream order and "a refused call enqueues
 *     nothing" under load;
 *   - sizes 0, 1, small, multiples of every tile / section size +-3, around 256^2 and 512^2, up to
 *     REDSCAN_STRESS_MAX_N (default 300000);
 *   - bad-argument calls interleaved with the good ones (NULL pointers, unknown op / dtype / algorithm values, n past a
 *     buffer, n * size overflowing, out buffer too small, in place with a widening, wrong k / largest, n = 0 where an
 *     element is needed, a buffer of another context, result_index past the end, a too small index / value buffer,
 *     reserve of dtype 0, a NULL context): each must return REDSCAN_ERR_INVALID_ARGUMENT with a message that names
 *     the argument, write none of its outputs (host sentinels, device buffers read back), and the context must then
 *     still give right results;
 *   - context churn: now and then a context is destroyed (its canary buffer, written when it was made, checked first)
 *     and a new one created in its place.
 * Checks: integers and float min/max bit for bit against the sequential references; float sum/prod bit for bit against
 * the documented order of the algorithm that ran (reference.h: ref_reduce_emulate, ref_scan_emulate,
 * ref_scan_emulate_grid; AUTO is coarsened / coarsened in single_pass's order, or what REDSCAN_REDUCE_ALGO /
 * REDSCAN_SCAN_BLOCK / REDSCAN_SCAN_GRID force), and within the error bound (REDSCAN_TEST_EXACT_ORDER=0 keeps only
 * the bound); mean, argmin/argmax, top-k exact; nothing written past a result or past n; inputs unchanged.
 *
 * Every operation is drawn from its own seed, h_seed(thread, index), never from timing: thread t's operation i is the
 * same in every run with the same base seed, and REDSCAN_STRESS_REPLAY=t:i replays thread t's operations 0..i alone
 * (same contexts, same churn) with no time limit, t:j-i operations j..i (t:i-i: the failing operation alone, on fresh
 * contexts). A failure prints its thread, operation index, the operation, the seed and both replay commands; a rerun
 * of the whole run with the same seed draws the same operations, but which thread gets how far depends on timing. The harness's counters are not thread-safe (test_threads.c): each thread counts its
 * own checks and failures and the main thread reports them. A thread still busy REDSCAN_STRESS_GRACE seconds (default
 * 600) after the budget is reported as hung with the operation it is in, and the process exits 1.
 *
 * Environment (all optional):
 *   REDSCAN_STRESS_SECONDS=<s>       time budget (default 120; CI: 30 through scripts/stress.sh)
 *   REDSCAN_STRESS_THREADS=<t>       threads (default 4, at most 64)
 *   REDSCAN_STRESS_CONTEXTS=<c>      contexts per thread (default 2, at most 16)
 *   REDSCAN_STRESS_MAX_N=<n>         largest size drawn (default 300000)
 *   REDSCAN_STRESS_CHURN=<per mille> chance per operation that a context is replaced first (default 5)
 *   REDSCAN_STRESS_MAX_FAILURES=<f>  a thread stops after f failed checks (default 10)
 *   REDSCAN_STRESS_REPLAY=<t>:<i>    replay thread t's operations 0..i in one thread, then stop (<t>:<j>-<i>: j..i)
 *   REDSCAN_STRESS_GRACE=<s>         hang detection after the budget (default 600)
 *   REDSCAN_STRESS_PROGRESS=<s>      progress line period (default 10; 0 = none)
 *   REDSCAN_TEST_SEED=<n>|random     base seed (harness); "random" draws one from the clock and prints it */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define MAX_THREADS 64
#define MAX_CTX 16
#define MAX_NOTES 5
#define SENT 0xA5
#define CANARY_BYTES 4096
#define EN 1000 /* elements of the bad calls' input */

typedef enum { K_REDUCE, K_SCAN, K_MEAN, K_ARGEXT, K_TOPK, K_CHAIN, K_BAD, K_COUNT } op_kind;
static const char *const KIND_NAMES[K_COUNT] = {"reduce", "scan", "mean", "argext", "topk", "chain", "bad"};
typedef enum { A_HOST, A_HOST_EX, A_DEV, A_DEV_EX, A_ASYNC, A_COUNT } api_form;
static const char *const API_NAMES[A_COUNT] = {"host", "host_ex", "device", "device_ex", "async"};

static struct {
    double budget, grace, progress, deadline;
    unsigned threads, contexts, churn_pm;
    size_t max_n;
    long max_fail;
    int replay, have_fp64;
    unsigned replay_thread;
    uint64_t replay_first, replay_op, base;
    const char *backend;
} G;

typedef struct {
    unsigned id;
    redscan_ctx *ctx[MAX_CTX];
    redscan_buffer *canary[MAX_CTX];
    unsigned gen[MAX_CTX]; /* contexts made in slot i so far */
    uint64_t op;           /* the operation running (written by the worker only) */
    _Atomic long ops_done;
    _Atomic int finished;
    pthread_mutex_t lock; /* desc, read by the watchdog */
    char desc[768];
    long kinds[K_COUNT], apis[A_COUNT];
    long bad_calls, unsupported, churns, checks, async_calls, syncs, creates, failures;
    int nnotes;
    char notes[MAX_NOTES][2048];
    uint64_t note_op[MAX_NOTES];
    double seconds;
} worker;

/* ------------------------------------------------------------------ per-thread checks */

static void set_desc(worker *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void set_desc(worker *w, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&w->lock);
    va_start(ap, fmt);
    vsnprintf(w->desc, sizeof w->desc, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&w->lock);
}

static int wfail(worker *w, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int wfail(worker *w, int line, const char *fmt, ...)
{
    w->failures++;
    if (w->nnotes < MAX_NOTES) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(w->notes[w->nnotes], sizeof w->notes[0], "thread %u op #%" PRIu64 " [%s]: %s (test_stress.c:%d)",
                 w->id, w->op, w->desc, msg, line);
        w->note_op[w->nnotes++] = w->op;
    }
    return 0;
}
#define WCHECK(w, cond, ...) ((w)->checks++, (cond) ? 1 : wfail((w), __LINE__, __VA_ARGS__))

static int wok(worker *w, redscan_ctx *c, redscan_status st, const char *what)
{
    return WCHECK(w, st == REDSCAN_OK, "%s returned %s: %s", what, redscan_status_string(st), redscan_last_error(c));
}

/* UNSUPPORTED is accepted where the documents allow it (warp_sync / shuffle without sub-groups of 32, single_pass
 * without 64-bit atomics); returns whether the result is to be checked. */
static int st_ok(worker *w, redscan_ctx *c, redscan_status st, int unsupported_ok, const char *what)
{
    if (st == REDSCAN_ERR_UNSUPPORTED && unsupported_ok) {
        w->unsupported++;
        return 0;
    }
    return wok(w, c, st, what);
}

/* ------------------------------------------------------------------ small helpers */

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *s = getenv(name);
    if (!s || !*s) return def;
    return strtoull(s, NULL, 0);
}

static int is_minmax(redscan_op op) { return op == REDSCAN_MIN || op == REDSCAN_MAX; }

static int all_sent(const void *p, size_t bytes)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != SENT) return 0;
    return 1;
}

static const char *algo_name(redscan_reduce_algo a)
{
    switch (a) {
    case REDSCAN_REDUCE_AUTO: return "auto";
    case REDSCAN_REDUCE_TREE: return "tree";
    case REDSCAN_REDUCE_INTERLEAVED: return "interleaved";
    case REDSCAN_REDUCE_COARSENED: return "coarsened";
    case REDSCAN_REDUCE_WARP_SYNC: return "warp_sync";
    case REDSCAN_REDUCE_SHUFFLE: return "shuffle";
    default: return "?";
    }
}

static redscan_reduce_algo eff_algo(redscan_reduce_algo a)
{
    if (a == REDSCAN_REDUCE_AUTO) a = h_env_reduce_algo();
    return a == REDSCAN_REDUCE_AUTO ? REDSCAN_REDUCE_COARSENED : a;
}
static redscan_block_scan eff_block(redscan_block_scan b)
{
    if (b == REDSCAN_BLOCK_AUTO) b = h_env_block();
    return b == REDSCAN_BLOCK_AUTO ? REDSCAN_BLOCK_COARSENED : b;
}
/* AUTO stays AUTO (after REDSCAN_SCAN_GRID): it is never UNSUPPORTED, and its bits are single_pass's order whichever
 * kernels run it (ref_scan_emulate_grid). */
static redscan_grid_scan eff_grid(redscan_grid_scan g) { return g == REDSCAN_GRID_AUTO ? h_env_grid() : g; }
static int subgroup_algo(redscan_reduce_algo a) { return a == REDSCAN_REDUCE_WARP_SYNC || a == REDSCAN_REDUCE_SHUFFLE; }

/* A buffer of c: src, then tail, then SENT bytes up to `total`; written with one transfer. */
static redscan_buffer *wbuf(worker *w, redscan_ctx *c, const void *src, size_t src_bytes, const void *tail,
                            size_t tail_bytes, size_t total)
{
    redscan_buffer *b = NULL;
    if (!wok(w, c, redscan_buffer_create(c, total ? total : 1, &b), "redscan_buffer_create")) return NULL;
    unsigned char *img = (unsigned char *)h_malloc(total ? total : 1);
    memset(img, SENT, total ? total : 1);
    if (src_bytes) memcpy(img, src, src_bytes);
    if (tail_bytes) memcpy(img + src_bytes, tail, tail_bytes);
    redscan_status st = redscan_buffer_write(c, b, 0, img, total ? total : 1);
    free(img);
    if (!wok(w, c, st, "redscan_buffer_write")) {
        redscan_buffer_destroy(c, b);
        return NULL;
    }
    return b;
}

/* The first `bytes` of b (NULL after a counted failure). */
static unsigned char *wread(worker *w, redscan_ctx *c, const redscan_buffer *b, size_t bytes)
{
    unsigned char *p = (unsigned char *)h_malloc(bytes ? bytes : 1);
    if (!wok(w, c, redscan_buffer_read(c, b, 0, p, bytes), "redscan_buffer_read")) {
        free(p);
        return NULL;
    }
    return p;
}

static void dev_unchanged(worker *w, redscan_ctx *c, const redscan_buffer *b, const void *want, size_t bytes,
                          const char *what)
{
    unsigned char *got = wread(w, c, b, bytes);
    if (!got) return;
    size_t d = h_memdiff(got, want, bytes);
    WCHECK(w, d == (size_t)-1, "%s: bytes differ from byte offset %zu of %zu", what, d, bytes);
    free(got);
}

static void dev_sentinel(worker *w, redscan_ctx *c, const redscan_buffer *b, size_t bytes, const char *what)
{
    unsigned char *got = wread(w, c, b, bytes);
    if (!got) return;
    WCHECK(w, all_sent(got, bytes), "%s: a refused call wrote the buffer", what);
    free(got);
}

/* ------------------------------------------------------------------ reference checks */

static void check_reduce(worker *w, const char *what, redscan_op op, redscan_dtype dt, redscan_dtype T,
                         redscan_reduce_algo algo, const void *x, size_t n, ref_val got)
{
    char gs[96], ws[96];
    if (n == 0 || !ref_is_float(T)) {
        ref_val want = ref_reduce_seq(op, dt, T, x, n);
        WCHECK(w, ref_bits_equal(T, got, want), "%s: got %s, want %s", what, h_fmt(T, got, gs), h_fmt(T, want, ws));
        return;
    }
    const redscan_reduce_algo ea = subgroup_algo(algo) ? REDSCAN_REDUCE_TREE : algo;
    if (is_minmax(op)) {
        ref_val want = ref_reduce_seq(op, dt, T, x, n);
        int gn = ref_isnan(T, got), wn = ref_isnan(T, want);
        WCHECK(w, gn == wn && (wn || ref_to_double(T, got) == ref_to_double(T, want)), "%s: got %s, want %s", what,
               h_fmt(T, got, gs), h_fmt(T, want, ws));
    } else {
        ref_ld_acc acc;
        ref_ld_init(&acc, op);
        for (size_t i = 0; i < n; i++) {
            ref_val v = ref_load(dt, x, i);
            ref_ld_add(&acc, op, ref_to_ld(dt, v), ref_isnan(dt, v));
        }
        double err, bound;
        unsigned depth = ref_reduce_depth(ea, n);
        WCHECK(w, ref_fbound_ok(op, T, got, &acc, depth, &err, &bound),
               "%s: got %s, reference %.17Lg: |error| %.3g > bound %.3g (depth %u)", what, h_fmt(T, got, gs),
               ref_ld_value(&acc, op), err, bound, depth);
    }
    if (h_exact_order()) {
        ref_val want = ref_reduce_emulate(ea, op, dt, T, x, n);
        WCHECK(w, ref_result_equal(op, T, got, want), "%s: got %s, the documented order of %s gives %s", what,
               h_fmt(T, got, gs), algo_name(ea), h_fmt(T, want, ws));
    }
}

/* got: n elements of T. */
static void check_scan(worker *w, const char *what, redscan_op op, redscan_dtype dt, redscan_dtype T, int excl,
                       const void *init, redscan_block_scan blk, redscan_grid_scan grd, const void *x, size_t n,
                       const void *got)
{
    if (n == 0) return;
    const size_t os = ref_size(T);
    unsigned char *want = (unsigned char *)h_malloc(n * os);
    const int exact = !ref_is_float(T) || is_minmax(op);
    const int single = grd == REDSCAN_GRID_SINGLE_PASS || grd == REDSCAN_GRID_AUTO;
    if (exact) ref_scan_seq(op, dt, T, excl, init, x, want, n);
    else ref_scan_emulate_grid(blk, grd, op, dt, T, excl, init, x, want, n);
    if (exact || h_exact_order()) {
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; i++)
            if (!ref_result_equal(op, T, ref_load(T, got, i), ref_load(T, want, i)) && !bad++) first = i;
        if (bad) {
            char gs[96], ws[96];
            WCHECK(w, 0, "%s: %zu of %zu elements differ from the %s; first at index %zu: got %s, want %s", what, bad,
                   n, exact ? "sequential reference" : single ? "single_pass order" : "documented order", first,
                   h_fmt(T, ref_load(T, got, first), gs), h_fmt(T, ref_load(T, want, first), ws));
        } else {
            w->checks++;
        }
    }
    if (!exact) { /* the error bound, every element */
        unsigned depth = ref_scan_depth_grid(blk, grd, n);
        ref_ld_acc acc;
        ref_ld_init(&acc, op);
        if (init) {
            ref_val iv = ref_load(T, init, 0);
            ref_ld_add(&acc, op, ref_to_ld(T, iv), ref_isnan(T, iv));
        }
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            ref_val v = ref_load(dt, x, i);
            if (!excl) ref_ld_add(&acc, op, ref_to_ld(dt, v), ref_isnan(dt, v));
            double err, bound;
            ref_val g = ref_load(T, got, i);
            if (!ref_fbound_ok(op, T, g, &acc, depth, &err, &bound) && !bad++) {
                char gs[96];
                WCHECK(w, 0, "%s: index %zu: got %s, reference %.17Lg: |error| %.3g > bound %.3g (depth %u)", what, i,
                       h_fmt(T, g, gs), ref_ld_value(&acc, op), err, bound, depth);
            }
            if (excl) ref_ld_add(&acc, op, ref_to_ld(dt, v), ref_isnan(dt, v));
        }
        if (!bad) w->checks++;
    }
    free(want);
}

static void check_argext(worker *w, const char *what, redscan_dtype dt, int want_max, const void *x, size_t n,
                         uint64_t idx, const void *val /* or NULL */)
{
    uint64_t want = ref_argext(dt, want_max, x, n);
    ref_val wv = ref_load(dt, x, (size_t)want);
    char gs[96], ws[96];
    WCHECK(w, idx == want, "%s: index %" PRIu64 ", want %" PRIu64 " (value %s)", what, idx, want, h_fmt(dt, wv, ws));
    if (val) {
        ref_val g = ref_load(dt, val, 0);
        WCHECK(w, ref_bits_equal(dt, g, wv), "%s: value %s, want %s", what, h_fmt(dt, g, gs), h_fmt(dt, wv, ws));
    }
}

static void check_topk(worker *w, const char *what, redscan_dtype dt, int largest, const void *x, size_t n, size_t k,
                       const void *vals, const uint64_t *idx /* or NULL */)
{
    const size_t es = ref_size(dt);
    unsigned char *wv = (unsigned char *)h_malloc(k * es);
    uint64_t *wi = (uint64_t *)h_malloc(k * sizeof *wi);
    ref_topk(dt, largest, x, n, k, wv, wi);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < k; i++) {
        int ok = ref_bits_equal(dt, ref_load(dt, vals, i), ref_load(dt, wv, i)) && (!idx || idx[i] == wi[i]);
        if (!ok && !bad++) first = i;
    }
    char gs[96], ws[96];
    WCHECK(w, bad == 0, "%s: %zu of %zu ranks differ; first rank %zu: got %s at index %" PRIu64 ", want %s at %" PRIu64,
           what, bad, k, first, h_fmt(dt, ref_load(dt, vals, first), gs), idx ? idx[first] : UINT64_MAX,
           h_fmt(dt, ref_load(dt, wv, first), ws), wi[first]);
    free(wv);
    free(wi);
}

static double mean_ref(redscan_dtype dt, const void *x, size_t n)
{
    return ref_mean_exact(eff_algo(REDSCAN_REDUCE_AUTO), dt, x, n);
}

static void check_mean(worker *w, const char *what, redscan_dtype dt, const void *x, size_t n, double got)
{
    double want = mean_ref(dt, x, n);
    ref_val g = {.f64 = got}, wv = {.f64 = want};
    char gs[96], ws[96];
    if (!ref_is_float(dt) || h_exact_order()) {
        WCHECK(w, ref_result_equal(REDSCAN_SUM, REDSCAN_FLOAT64, g, wv), "%s: got %s, want %s", what,
               h_fmt(REDSCAN_FLOAT64, g, gs), h_fmt(REDSCAN_FLOAT64, wv, ws));
        return;
    }
    ref_ld_acc acc;
    ref_ld_init(&acc, REDSCAN_SUM);
    for (size_t i = 0; i < n; i++) {
        ref_val v = ref_load(dt, x, i);
        ref_ld_add(&acc, REDSCAN_SUM, ref_to_ld(dt, v), ref_isnan(dt, v));
    }
    long double r = ref_ld_value(&acc, REDSCAN_SUM);
    if (isnan(r) || isinf(r)) {
        WCHECK(w, isnan(r) ? isnan(got) : got == (double)r, "%s: got %.17g, want %Lg", what, got, r);
        return;
    }
    long double m = r / (long double)n;
    long double bound = (long double)ref_reduce_depth(eff_algo(REDSCAN_REDUCE_AUTO), n) * DBL_EPSILON * acc.abs_sum / (long double)n +
                        DBL_EPSILON * fabsl(m);
    WCHECK(w, fabsl((long double)got - m) <= bound, "%s: got %.17g, reference %.17Lg, bound %.3Lg", what, got, m, bound);
}

/* ------------------------------------------------------------------ drawing an operation */

typedef struct {
    op_kind kind;
    api_form api;
    unsigned ci; /* context slot */
    redscan_op op;
    redscan_dtype dt, out, field; /* field: what goes into out_dtype (0 = same) */
    redscan_reduce_algo algo;
    redscan_block_scan block;
    redscan_grid_scan grid;
    int excl, use_init, inplace, largest, want_value, want_indices, reserve, ties, want_max, bad_first;
    ref_val init;
    size_t n, k, pad, slots, slot;
    h_gen gen;
    unsigned char *x; /* n + pad elements: data, then a poisoned tail */
} params;

static size_t pick_size(h_rng *r)
{
    static const size_t B[] = {256, 512, 1024, 2048, 4096};
    const uint64_t u = h_rng_below(r, 100);
    size_t n;
    if (u < 8) {
        n = (size_t)h_rng_below(r, 40);
    } else if (u < 25) {
        n = 1 + (size_t)h_rng_below(r, 5000);
    } else if (u < 70) {
        size_t b = B[h_rng_below(r, 5)];
        size_t m = 1 + (size_t)h_rng_below(r, u < 55 ? 8 : 64);
        n = m * b + (size_t)(ptrdiff_t)((int)h_rng_below(r, 7) - 3);
    } else if (u < 95) {
        static const size_t S[] = {256u * 256u, 512u * 512u};
        size_t s = S[h_rng_below(r, 2)];
        size_t m = 1 + (size_t)h_rng_below(r, s == S[0] ? 4 : 1);
        n = m * s + (size_t)(ptrdiff_t)((int)h_rng_below(r, 7) - 3);
        if (h_rng_below(r, 4) == 0) n += B[h_rng_below(r, 5)] * (1 + (size_t)h_rng_below(r, 3));
    } else {
        n = (size_t)h_rng_below(r, G.max_n + 1);
    }
    if (n > G.max_n) n %= G.max_n + 1;
    return n;
}

static ref_val pick_init(h_rng *r, redscan_op op, redscan_dtype dt, redscan_dtype T, const void *x, size_t n)
{
    ref_val v = ref_zero();
    if (!ref_is_float(T)) {
        v.u64 = h_rng_u64(r);
        if (op == REDSCAN_PROD && h_rng_below(r, 8)) v.u64 |= 1;
        if (is_minmax(op) && n && h_rng_below(r, 4)) v = ref_convert(dt, T, ref_load(dt, x, (size_t)h_rng_below(r, n)));
        if (ref_size(T) == 4) v.b[4] = v.b[5] = v.b[6] = v.b[7] = 0;
        return v;
    }
    double d;
    if (op == REDSCAN_SUM) {
        d = (h_rng_unit(r) - 0.5) * ldexp(1.0, (int)h_rng_below(r, 12) - 4);
    } else if (op == REDSCAN_PROD) {
        static const double P[] = {-1.25, 0.5, 2.0, -1.0, 1.0, 0.75};
        d = P[h_rng_below(r, 6)];
    } else {
        d = (h_rng_unit(r) - 0.5) * 100.0;
        if (n && h_rng_below(r, 2)) {
            ref_val e = ref_load(dt, x, (size_t)h_rng_below(r, n));
            if (!ref_isnan(dt, e)) d = ref_to_double(dt, e);
        }
        if (h_rng_below(r, 16) == 0) d = NAN;
    }
    if (T == REDSCAN_FLOAT32) v.f32 = (float)d;
    else v.f64 = d;
    return v;
}

static redscan_dtype pick_dtype(h_rng *r)
{
    static const redscan_dtype DT[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64,
                                       REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
    redscan_dtype dt;
    do dt = DT[h_rng_below(r, 6)];
    while (dt == REDSCAN_FLOAT64 && !G.have_fp64);
    return dt;
}

static void draw(h_rng *r, params *p)
{
    memset(p, 0, sizeof *p);
    uint64_t u = h_rng_below(r, 100);
    p->kind = u < 22 ? K_REDUCE : u < 48 ? K_SCAN : u < 54 ? K_MEAN : u < 64 ? K_ARGEXT : u < 74 ? K_TOPK
            : u < 88 ? K_CHAIN : K_BAD;
    p->ci = (unsigned)h_rng_below(r, G.contexts);
    p->dt = pick_dtype(r);
    p->op = (redscan_op)h_rng_below(r, 4);
    p->bad_first = h_rng_below(r, 6) == 0;
    switch (p->kind) {
    case K_REDUCE:
    case K_SCAN: p->api = (api_form)h_rng_below(r, A_COUNT); break;
    case K_MEAN: p->api = h_rng_below(r, 2) ? A_DEV : A_HOST; break;
    case K_ARGEXT:
    case K_TOPK: {
        static const api_form F[] = {A_HOST, A_DEV, A_ASYNC};
        p->api = F[h_rng_below(r, 3)];
        break;
    }
    default: p->api = A_ASYNC; break;
    }
    const int desc_api = p->api == A_HOST_EX || p->api == A_DEV_EX || p->api == A_ASYNC || p->kind == K_CHAIN;
    p->out = p->dt;
    if (desc_api && (p->kind == K_REDUCE || p->kind == K_SCAN || p->kind == K_CHAIN) && ref_widening(p->dt) &&
        (ref_widening(p->dt) != REDSCAN_FLOAT64 || G.have_fp64) && h_rng_below(r, 3) == 0)
        p->out = p->field = ref_widening(p->dt);
    else if (desc_api && h_rng_below(r, 10) == 0)
        p->field = p->dt;
    {
        static const redscan_reduce_algo A[] = {REDSCAN_REDUCE_AUTO,        REDSCAN_REDUCE_TREE,
                                                REDSCAN_REDUCE_INTERLEAVED, REDSCAN_REDUCE_COARSENED,
                                                REDSCAN_REDUCE_AUTO,        REDSCAN_REDUCE_TREE,
                                                REDSCAN_REDUCE_INTERLEAVED, REDSCAN_REDUCE_COARSENED,
                                                REDSCAN_REDUCE_WARP_SYNC,   REDSCAN_REDUCE_SHUFFLE};
        p->algo = desc_api ? A[h_rng_below(r, 10)] : REDSCAN_REDUCE_AUTO;
    }
    p->block = desc_api ? (redscan_block_scan)h_rng_below(r, 5) : REDSCAN_BLOCK_AUTO;
    {
        uint64_t g = h_rng_below(r, 8);
        p->grid = !desc_api ? REDSCAN_GRID_AUTO
                : g < 3     ? REDSCAN_GRID_HIERARCHICAL
                : g < 5     ? REDSCAN_GRID_REDUCE_THEN_SCAN
                : g < 6     ? REDSCAN_GRID_AUTO
                            : REDSCAN_GRID_SINGLE_PASS;
    }
    p->excl = (int)(h_rng_u64(r) & 1);
    p->use_init = desc_api && h_rng_below(r, 2);
    p->inplace = (p->kind == K_SCAN || p->kind == K_CHAIN) && p->out == p->dt && h_rng_below(r, 3) == 0;
    p->n = pick_size(r);
    if ((p->kind == K_MEAN || p->kind == K_ARGEXT || p->kind == K_TOPK) && p->n == 0 && h_rng_below(r, 2))
        p->n = 1 + (size_t)h_rng_below(r, 3); /* n = 0 (refused) now and then only */
    p->largest = (int)(h_rng_u64(r) & 1);
    p->want_max = (int)(h_rng_u64(r) & 1);
    p->want_value = h_rng_below(r, 4) != 0;
    p->want_indices = h_rng_below(r, 4) != 0;
    p->reserve = (int)h_rng_below(r, 6); /* async: 0 reserve, 1 reserve_topk, else none */
    {
        size_t kmax = p->n < REDSCAN_TOPK_MAX ? p->n : REDSCAN_TOPK_MAX;
        uint64_t kk = h_rng_below(r, 5);
        p->k = kmax == 0 ? 1
             : kk == 0   ? 1 + (size_t)h_rng_below(r, kmax < 3 ? kmax : 3)
             : kk == 1   ? (kmax <= 8 ? kmax : 8 + (size_t)h_rng_below(r, 2)) /* around the one-pass limit */
             : kk == 2   ? kmax
                         : 1 + (size_t)h_rng_below(r, kmax);
    }
    p->slots = 1 + (size_t)h_rng_below(r, 4);
    p->slot = (size_t)h_rng_below(r, p->slots);
    p->gen = (h_gen)h_rng_below(r, (uint64_t)h_gen_count(p->dt));
    p->ties = (p->kind == K_ARGEXT || p->kind == K_TOPK) && h_rng_below(r, 3) == 0;
    p->pad = 1 + (size_t)h_rng_below(r, 24);
    if (p->kind == K_BAD) p->n = 0; /* no data needed */

    /* the data */
    const size_t es = ref_size(p->dt);
    p->x = (unsigned char *)h_malloc((p->n + p->pad) * es);
    redscan_op gen_op = p->op;
    if (p->kind == K_MEAN) gen_op = REDSCAN_SUM;
    if (p->kind == K_ARGEXT) gen_op = p->want_max ? REDSCAN_MAX : REDSCAN_MIN;
    if (p->kind == K_TOPK) gen_op = p->largest ? REDSCAN_MAX : REDSCAN_MIN;
    if (p->kind == K_CHAIN && !ref_is_float(p->dt) && p->op == REDSCAN_PROD) gen_op = REDSCAN_SUM;
    if (p->ties) h_gen_ties(r, p->dt, p->x, p->n);
    else h_generate(r, p->dt, gen_op, p->gen, p->x, p->n);
    ref_val poison;
    if (p->kind == K_ARGEXT || p->kind == K_TOPK)
        poison = ref_is_float(p->dt) ? h_nan(p->dt, 0xbad, 1)
                                     : (gen_op == REDSCAN_MAX ? ref_type_max(p->dt) : ref_type_min(p->dt));
    else
        poison = h_poison(gen_op, p->dt);
    h_fill(p->dt, p->x + p->n * es, p->pad, poison);
    if (p->use_init) p->init = pick_init(r, p->op, p->dt, p->out, p->x, p->n);
}

static void describe(const params *p, char *buf, size_t len)
{
    char ts[48], is[96] = "null", extra[300] = "";
    if (p->field && p->field != p->dt) snprintf(ts, sizeof ts, "%s->%s", ref_dtype_str(p->dt), ref_dtype_str(p->out));
    else snprintf(ts, sizeof ts, "%s%s", ref_dtype_str(p->dt), p->field ? "(out_dtype=same)" : "");
    if (p->use_init) h_fmt(p->out, p->init, is);
    switch (p->kind) {
    case K_REDUCE: snprintf(extra, sizeof extra, "%s %s %s slot %zu/%zu", ref_op_str(p->op), ts, algo_name(p->algo), p->slot, p->slots); break;
    case K_SCAN:
    case K_CHAIN:
        snprintf(extra, sizeof extra, "%s %s %s/%s %s init=%s%s", ref_op_str(p->op), ts, h_block_str(p->block),
                 h_grid_str(p->grid), p->excl ? "exclusive" : "inclusive", is, p->inplace ? " in-place" : "");
        if (p->kind == K_CHAIN) {
            size_t l = strlen(extra);
            snprintf(extra + l, sizeof extra - l, " then reduce %s, %s, top-%zu %s", algo_name(p->algo),
                     p->want_max ? "argmax" : "argmin", p->k, p->largest ? "largest" : "smallest");
        }
        break;
    case K_MEAN: snprintf(extra, sizeof extra, "%s", ts); break;
    case K_ARGEXT: snprintf(extra, sizeof extra, "%s %s value=%s", p->want_max ? "argmax" : "argmin", ts, p->want_value ? "ptr" : "NULL"); break;
    case K_TOPK:
        snprintf(extra, sizeof extra, "%s k=%zu %s indices=%s", ts, p->k, p->largest ? "largest" : "smallest",
                 p->want_indices ? "ptr" : "NULL");
        break;
    default: snprintf(extra, sizeof extra, "bad-argument calls"); break;
    }
    snprintf(buf, len, "%s %s %s n=%zu gen=%s ctx %u", KIND_NAMES[p->kind], API_NAMES[p->api], extra, p->n,
             p->ties ? "ties" : h_gen_name(p->gen), p->ci);
}

/* ------------------------------------------------------------------ contexts */

static void canary_image(const worker *w, unsigned slot, unsigned char *img)
{
    for (size_t i = 0; i < CANARY_BYTES; i++) img[i] = (unsigned char)(i * 131u + w->id * 17u + slot * 7u + w->gen[slot] * 3u);
}

static int open_ctx(worker *w, unsigned slot)
{
    redscan_ctx *c = NULL;
    redscan_status st = redscan_create(&c, REDSCAN_BACKEND_AUTO);
    w->creates++;
    if (!WCHECK(w, st == REDSCAN_OK && c, "redscan_create (slot %u) returned %s: %s", slot, redscan_status_string(st),
                redscan_last_error(NULL)))
        return 0;
    w->ctx[slot] = c;
    w->gen[slot]++;
    unsigned char img[CANARY_BYTES];
    canary_image(w, slot, img);
    w->canary[slot] = wbuf(w, c, img, CANARY_BYTES, NULL, 0, CANARY_BYTES);
    return w->canary[slot] != NULL;
}

static void close_ctx(worker *w, unsigned slot)
{
    redscan_ctx *c = w->ctx[slot];
    if (!c) return;
    if (w->canary[slot]) {
        unsigned char img[CANARY_BYTES];
        canary_image(w, slot, img);
        dev_unchanged(w, c, w->canary[slot], img, CANARY_BYTES, "the context's canary buffer (written at its creation)");
        redscan_buffer_destroy(c, w->canary[slot]);
    }
    redscan_destroy(c);
    w->ctx[slot] = NULL;
    w->canary[slot] = NULL;
}

/* A small reduction with a known answer (after a refused call). */
static void still_works(worker *w, redscan_ctx *c, const char *after)
{
    int32_t x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int32_t r = 0;
    redscan_status st = redscan_reduce_host(c, REDSCAN_SUM, REDSCAN_INT32, x, 10, &r);
    WCHECK(w, st == REDSCAN_OK && r == 55, "context broken after %s: status %s, sum %d (%s)", after,
           redscan_status_string(st), (int)r, redscan_last_error(c));
}

/* ------------------------------------------------------------------ bad-argument calls */

#define NBAD 40

/* One refused call, drawn by r, on w->ctx[ci]: the status, a message naming the argument, no output written (host
 * sentinels, device buffers read back), the input unchanged, the context still right afterwards. */
static void bad_call(worker *w, h_rng *r, unsigned ci)
{
    redscan_ctx *c = w->ctx[ci], *other = G.contexts > 1 ? w->ctx[(ci + 1) % G.contexts] : NULL;
    unsigned which = (unsigned)h_rng_below(r, NBAD);
    if ((which == 11 || which == 18 || which == 30) && !other) which = 0; /* one context per thread: no foreign buffer */
    const int needs_other = which == 11 || which == 18 || which == 30;
    int32_t x[EN];
    int64_t sum = 0;
    for (int i = 0; i < EN; i++) sum += x[i] = (int32_t)h_rng_below(r, 2001) - 1000;
    redscan_buffer *in = wbuf(w, c, x, sizeof x, NULL, 0, sizeof x), *out = wbuf(w, c, NULL, 0, NULL, 0, EN * 8),
                   *res = wbuf(w, c, NULL, 0, NULL, 0, 16), *idx = wbuf(w, c, NULL, 0, NULL, 0, 4),
                   *val = wbuf(w, c, NULL, 0, NULL, 0, 32), *foreign = NULL;
    if (needs_other) foreign = wbuf(w, other, NULL, 0, NULL, 0, EN * 8);
    unsigned char hres[64], hout[EN * 8];
    uint64_t hidx[8];
    double m;
    memset(hres, SENT, sizeof hres);
    memset(hout, SENT, sizeof hout);
    memset(hidx, SENT, sizeof hidx);
    memset(&m, SENT, sizeof m);
    redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    redscan_status st = REDSCAN_OK;
    const char *what = "?", *kw = NULL;
    redscan_ctx *err_ctx = c; /* where the message is */
    if (!in || !out || !res || !idx || !val || (needs_other && !foreign)) goto done;
    w->bad_calls++;
    switch (which) {
    case 0: what = "reduce_host(in=NULL)", kw = "in"; st = redscan_reduce_host(c, REDSCAN_SUM, REDSCAN_INT32, NULL, EN, hres); break;
    case 1: what = "reduce_host(result=NULL)", kw = "result"; st = redscan_reduce_host(c, REDSCAN_SUM, REDSCAN_INT32, x, EN, NULL); break;
    case 2: what = "reduce_host_ex(desc=NULL)", kw = "desc"; st = redscan_reduce_host_ex(c, NULL, x, EN, hres); break;
    case 3: what = "reduce_ex(op 99)", kw = "op|desc->op"; rd.op = (redscan_op)99; st = redscan_reduce_ex(c, &rd, in, EN, hres); break;
    case 4: what = "reduce_host_ex(dtype 0)", kw = "dtype|desc->dtype"; rd.dtype = (redscan_dtype)0; st = redscan_reduce_host_ex(c, &rd, x, EN, hres); break;
    case 5: what = "reduce(dtype 13)", kw = "dtype"; st = redscan_reduce(c, REDSCAN_SUM, (redscan_dtype)13, in, EN, hres); break;
    case 6: what = "reduce_ex(int32 -> uint64)", kw = "out_dtype|desc->out_dtype"; rd.out_dtype = REDSCAN_UINT64; st = redscan_reduce_ex(c, &rd, in, EN, hres); break;
    case 7: what = "reduce_ex(algo 99)", kw = "algo|desc->algo"; rd.algo = (redscan_reduce_algo)99; st = redscan_reduce_ex(c, &rd, in, EN, hres); break;
    case 8: what = "reduce_host_ex(flags 1)", kw = "flags|desc->flags"; rd.flags = 1; st = redscan_reduce_host_ex(c, &rd, x, EN, hres); break;
    case 9: what = "reduce(n past the buffer)", kw = "in|n"; st = redscan_reduce(c, REDSCAN_SUM, REDSCAN_INT32, in, EN + 1, hres); break;
    case 10: what = "reduce_ex(n * size overflows)", kw = "n|in"; st = redscan_reduce_ex(c, &rd, in, SIZE_MAX / 4 + 2, hres); break;
    case 11: what = "reduce_ex(in of another context)", kw = "in"; st = redscan_reduce_ex(c, &rd, foreign, EN, hres); break;
    case 12: what = "scan_ex(exclusive 2)", kw = "exclusive|desc->exclusive"; sd.exclusive = 2; st = redscan_scan_ex(c, &sd, in, out, EN); break;
    case 13: what = "scan_ex(block 99)", kw = "block|desc->block"; sd.block = (redscan_block_scan)99; st = redscan_scan_ex(c, &sd, in, out, EN); break;
    case 14: what = "scan_host_ex(grid 99)", kw = "grid|desc->grid"; sd.grid = (redscan_grid_scan)99; st = redscan_scan_host_ex(c, &sd, x, hout, EN); break;
    case 15: what = "scan_ex(widened out too small)", kw = "out|n"; sd.out_dtype = REDSCAN_INT64; st = redscan_scan_ex(c, &sd, in, res, EN); break;
    case 16: what = "scan_ex(in place with a widening)", kw = "in|out|out_dtype|desc->out_dtype"; sd.out_dtype = REDSCAN_INT64; st = redscan_scan_ex(c, &sd, out, out, EN / 2); break;
    case 17: what = "scan_host(out=NULL)", kw = "out"; st = redscan_scan_host(c, REDSCAN_MAX, REDSCAN_INT32, 1, x, NULL, EN); break;
    case 18: what = "scan(out of another context)", kw = "out"; st = redscan_scan(c, REDSCAN_SUM, REDSCAN_INT32, 0, in, foreign, EN); break;
    case 19: what = "scan_host_ex(op -1)", kw = "op|desc->op"; sd.op = (redscan_op)-1; st = redscan_scan_host_ex(c, &sd, x, hout, EN); break;
    case 20: what = "mean_host(n = 0)", kw = "n"; st = redscan_mean_host(c, REDSCAN_INT32, x, 0, &m); break;
    case 21: what = "mean(n past the buffer)", kw = "in|n"; st = redscan_mean(c, REDSCAN_INT32, in, EN + 7, &m); break;
    case 22: what = "argmin_host(index=NULL)", kw = "index"; st = redscan_argmin_host(c, REDSCAN_INT32, x, EN, NULL, hres); break;
    case 23: what = "argmax(n = 0)", kw = "n"; st = redscan_argmax(c, REDSCAN_INT32, in, 0, hidx, hres); break;
    case 24: what = "topk_host(k = 0)", kw = "k"; st = redscan_topk_host(c, REDSCAN_INT32, x, EN, 0, 1, hout, hidx); break;
    case 25: what = "topk(k > n)", kw = "k"; st = redscan_topk(c, REDSCAN_INT32, in, 5, 6, 0, hout, hidx); break;
    case 26: what = "topk_host(k = 257)", kw = "k"; st = redscan_topk_host(c, REDSCAN_INT32, x, EN, REDSCAN_TOPK_MAX + 1, 1, hout, NULL); break;
    case 27: what = "topk_host(largest = 2)", kw = "largest"; st = redscan_topk_host(c, REDSCAN_INT32, x, EN, 3, 2, hout, hidx); break;
    case 28: what = "topk(values=NULL)", kw = "values"; st = redscan_topk(c, REDSCAN_INT32, in, EN, 3, 1, NULL, hidx); break;
    case 29: what = "reduce_async(result_index past the end)", kw = "result_index|result"; st = redscan_reduce_async(c, &rd, in, EN, res, 4); break;
    case 30: what = "reduce_async(result of another context)", kw = "result"; st = redscan_reduce_async(c, &rd, in, EN, foreign, 0); break;
    case 31: what = "scan_async(n past the input)", kw = "in|n"; st = redscan_scan_async(c, &sd, in, out, EN + 1); break;
    case 32: what = "argmax_async(index=NULL)", kw = "index"; st = redscan_argmax_async(c, REDSCAN_INT32, in, EN, NULL, val); break;
    case 33: what = "argmin_async(4-byte index buffer)", kw = "index"; st = redscan_argmin_async(c, REDSCAN_INT32, in, EN, idx, val); break;
    case 34: what = "topk_async(values buffer too small)", kw = "values"; st = redscan_topk_async(c, REDSCAN_INT32, in, EN, 5, 1, res, out); break;
    case 35: what = "reserve(dtype 0)", kw = "dtype"; st = redscan_reserve(c, (redscan_dtype)0, EN); break;
    case 36: what = "buffer_read(past the end)", kw = "offset|bytes|buf|buffer"; st = redscan_buffer_read(c, res, 8, hres, 9); break;
    case 37: what = "buffer_write(past the end)", kw = "offset|bytes|buf|buffer"; st = redscan_buffer_write(c, res, 0, x, 17); break;
    case 38: what = "reduce_host(ctx=NULL)", kw = "ctx"; err_ctx = NULL; st = redscan_reduce_host(NULL, REDSCAN_SUM, REDSCAN_INT32, x, EN, hres); break;
    default: what = "scan_async(ctx=NULL)", kw = "ctx"; err_ctx = NULL; st = redscan_scan_async(NULL, &sd, in, out, EN); break;
    }
    {
        const char *msg = redscan_last_error(err_ctx);
        if (WCHECK(w, st == REDSCAN_ERR_INVALID_ARGUMENT, "bad call %s returned %s, want %s (message: %s)", what,
                   redscan_status_string(st), redscan_status_string(REDSCAN_ERR_INVALID_ARGUMENT), msg ? msg : "(null)") &&
            WCHECK(w, msg && *msg, "bad call %s: empty redscan_last_error", what))
            WCHECK(w, h_names_any(msg, kw), "bad call %s: the message \"%s\" names none of \"%s\"", what, msg, kw);
    }
    /* nothing written; input unchanged; then the context still works, on the host and on the same buffers */
    {
        char wh[160];
        snprintf(wh, sizeof wh, "after bad call %s", what);
        WCHECK(w, all_sent(hres, sizeof hres) && all_sent(hout, sizeof hout) && all_sent(hidx, sizeof hidx) &&
                      all_sent(&m, sizeof m),
               "bad call %s wrote a host output", what);
        if (which != 38 && which != 39) WCHECK(w, redscan_synchronize(c) == REDSCAN_OK, "%s: synchronize: %s", wh, redscan_last_error(c));
        dev_sentinel(w, c, out, EN * 8, wh);
        dev_sentinel(w, c, res, 16, wh);
        dev_sentinel(w, c, idx, 4, wh);
        dev_sentinel(w, c, val, 32, wh);
        if (foreign) dev_sentinel(w, other, foreign, EN * 8, wh);
        dev_unchanged(w, c, in, x, sizeof x, "input after a bad call");
        still_works(w, c, what);
        int64_t got = 0;
        rd = (redscan_reduce_desc){REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_REDUCE_AUTO, 0};
        if (wok(w, c, redscan_reduce_ex(c, &rd, in, EN, &got), "reduce_ex after a bad call"))
            WCHECK(w, got == sum, "reduce_ex after %s: %" PRId64 ", want %" PRId64, what, got, sum);
    }
done:
    if (in) redscan_buffer_destroy(c, in);
    if (out) redscan_buffer_destroy(c, out);
    if (res) redscan_buffer_destroy(c, res);
    if (idx) redscan_buffer_destroy(c, idx);
    if (val) redscan_buffer_destroy(c, val);
    if (foreign) redscan_buffer_destroy(other, foreign);
}

/* ------------------------------------------------------------------ good operations */

static void do_reserve(worker *w, redscan_ctx *c, const params *p)
{
    if (p->reserve == 0) wok(w, c, redscan_reserve(c, p->dt, p->n), "redscan_reserve");
    else if (p->reserve == 1) wok(w, c, redscan_reserve_topk(c, p->dt, p->n, p->k), "redscan_reserve_topk");
}

static int sync_ok(worker *w, redscan_ctx *c)
{
    w->syncs++;
    return wok(w, c, redscan_synchronize(c), "redscan_synchronize");
}

static void run_reduce(worker *w, redscan_ctx *c, const params *p)
{
    const size_t n = p->n, es = ref_size(p->dt), os = ref_size(p->out);
    const redscan_reduce_algo ea = eff_algo(p->algo);
    const int unsup = subgroup_algo(ea) && n > 0;
    redscan_reduce_desc d = {p->op, p->dt, p->field, p->algo, 0};
    unsigned char res[64];
    memset(res, SENT, sizeof res);
    redscan_buffer *in = NULL, *rb = NULL;
    redscan_status st;
    const char *what;
    if (p->api == A_HOST || p->api == A_HOST_EX) {
        what = p->api == A_HOST ? "redscan_reduce_host" : "redscan_reduce_host_ex";
        st = p->api == A_HOST ? redscan_reduce_host(c, p->op, p->dt, p->x, n, res)
                              : redscan_reduce_host_ex(c, &d, p->x, n, res);
    } else {
        if (!(in = wbuf(w, c, p->x, n * es, p->x + n * es, p->pad * es, (n + p->pad) * es))) return;
        if (p->api == A_ASYNC) {
            what = "redscan_reduce_async";
            if (!(rb = wbuf(w, c, NULL, 0, NULL, 0, p->slots * os))) goto out;
            do_reserve(w, c, p);
            w->async_calls++;
            st = redscan_reduce_async(c, &d, in, n, rb, p->slot);
            if (st == REDSCAN_OK && sync_ok(w, c)) {
                unsigned char *all = wread(w, c, rb, p->slots * os);
                if (all) {
                    memcpy(res, all + p->slot * os, os);
                    for (size_t s = 0; s < p->slots; s++)
                        if (s != p->slot) WCHECK(w, all_sent(all + s * os, os), "reduce_async wrote slot %zu (result_index %zu)", s, p->slot);
                    free(all);
                }
            }
        } else {
            what = p->api == A_DEV ? "redscan_reduce" : "redscan_reduce_ex";
            st = p->api == A_DEV ? redscan_reduce(c, p->op, p->dt, in, n, res) : redscan_reduce_ex(c, &d, in, n, res);
        }
    }
    if (st_ok(w, c, st, unsup, what)) {
        WCHECK(w, p->api == A_ASYNC || all_sent(res + os, sizeof res - os), "%s wrote past the result", what);
        check_reduce(w, what, p->op, p->dt, p->out, ea, p->x, n, ref_load(p->out, res, 0));
    }
    if (in) dev_unchanged(w, c, in, p->x, (n + p->pad) * es, "input buffer after reduce");
out:
    if (in) redscan_buffer_destroy(c, in);
    if (rb) redscan_buffer_destroy(c, rb);
}

static void run_scan(worker *w, redscan_ctx *c, const params *p)
{
    const size_t n = p->n, es = ref_size(p->dt), os = ref_size(p->out);
    const redscan_block_scan blk = eff_block(p->block);
    const redscan_grid_scan grd = eff_grid(p->grid);
    const int unsup = grd == REDSCAN_GRID_SINGLE_PASS && n > 0;
    const void *init = p->use_init ? p->init.b : NULL;
    redscan_scan_desc d = {p->op, p->dt, p->field, p->excl, init, p->block, p->grid, 0};
    const size_t cap_in = (n + p->pad) * es, cap_out = (n + p->pad) * os;
    unsigned char *got = (unsigned char *)h_malloc(cap_in > cap_out ? cap_in : cap_out);
    redscan_status st;
    const char *what;
    if (p->api == A_HOST || p->api == A_HOST_EX) {
        unsigned char *src = NULL;
        if (p->inplace) {
            memcpy(got, p->x, cap_in);
        } else {
            memset(got, SENT, cap_out);
            src = (unsigned char *)h_malloc(cap_in);
            memcpy(src, p->x, cap_in);
        }
        const void *s = p->inplace ? (const void *)got : (const void *)src;
        what = p->api == A_HOST ? "redscan_scan_host" : "redscan_scan_host_ex";
        st = p->api == A_HOST ? redscan_scan_host(c, p->op, p->dt, p->excl, s, got, n) : redscan_scan_host_ex(c, &d, s, got, n);
        if (st_ok(w, c, st, unsup, what)) {
            check_scan(w, what, p->op, p->dt, p->out, p->excl, init, blk, grd, p->x, n, got);
            if (p->inplace) WCHECK(w, h_memdiff(got + n * es, p->x + n * es, p->pad * es) == (size_t)-1, "%s wrote past n (in place)", what);
            else WCHECK(w, all_sent(got + n * os, p->pad * os), "%s wrote past n", what);
        }
        if (src) {
            WCHECK(w, h_memdiff(src, p->x, cap_in) == (size_t)-1, "%s changed its host input", what);
            free(src);
        }
        free(got);
        return;
    }
    redscan_buffer *in = wbuf(w, c, p->x, n * es, p->x + n * es, p->pad * es, cap_in), *out = in;
    if (in && !p->inplace) out = wbuf(w, c, NULL, 0, NULL, 0, cap_out);
    if (!in || !out) goto out;
    if (p->api == A_ASYNC) {
        what = "redscan_scan_async";
        do_reserve(w, c, p);
        w->async_calls++;
        st = redscan_scan_async(c, &d, in, out, n);
        if (st == REDSCAN_OK) sync_ok(w, c);
    } else {
        what = p->api == A_DEV ? "redscan_scan" : "redscan_scan_ex";
        st = p->api == A_DEV ? redscan_scan(c, p->op, p->dt, p->excl, in, out, n) : redscan_scan_ex(c, &d, in, out, n);
    }
    if (st_ok(w, c, st, unsup, what)) {
        unsigned char *back = wread(w, c, out, p->inplace ? cap_in : cap_out);
        if (back) {
            check_scan(w, what, p->op, p->dt, p->out, p->excl, init, blk, grd, p->x, n, back);
            if (p->inplace) WCHECK(w, h_memdiff(back + n * es, p->x + n * es, p->pad * es) == (size_t)-1, "%s wrote past n (in place)", what);
            else WCHECK(w, all_sent(back + n * os, p->pad * os), "%s wrote past n", what);
            free(back);
        }
    }
    if (!p->inplace) dev_unchanged(w, c, in, p->x, cap_in, "input buffer after scan");
out:
    if (out && out != in) redscan_buffer_destroy(c, out);
    if (in) redscan_buffer_destroy(c, in);
    free(got);
}

static void run_mean(worker *w, redscan_ctx *c, const params *p)
{
    const size_t n = p->n, es = ref_size(p->dt);
    double m;
    memset(&m, SENT, sizeof m);
    redscan_buffer *in = NULL;
    redscan_status st;
    if (p->api == A_DEV) {
        if (!(in = wbuf(w, c, p->x, n * es, p->x + n * es, p->pad * es, (n + p->pad) * es))) return;
        st = redscan_mean(c, p->dt, in, n, &m);
    } else {
        st = redscan_mean_host(c, p->dt, p->x, n, &m);
    }
    const char *what = in ? "redscan_mean" : "redscan_mean_host";
    if (n == 0) {
        WCHECK(w, st == REDSCAN_ERR_INVALID_ARGUMENT, "%s(n = 0) returned %s", what, redscan_status_string(st));
        WCHECK(w, all_sent(&m, sizeof m), "%s(n = 0) wrote its result", what);
    } else if (st_ok(w, c, st, subgroup_algo(eff_algo(REDSCAN_REDUCE_AUTO)), what)) {
        check_mean(w, what, p->dt, p->x, n, m);
    }
    if (in) {
        dev_unchanged(w, c, in, p->x, (n + p->pad) * es, "input buffer after mean");
        redscan_buffer_destroy(c, in);
    }
}

static void run_argext(worker *w, redscan_ctx *c, const params *p)
{
    const size_t n = p->n, es = ref_size(p->dt);
    uint64_t idx;
    unsigned char val[32];
    memset(&idx, SENT, sizeof idx);
    memset(val, SENT, sizeof val);
    void *vp = p->want_value ? val : NULL;
    redscan_buffer *in = NULL, *ib = NULL, *vb = NULL;
    redscan_status st;
    const char *what;
    if (p->api == A_HOST) {
        what = p->want_max ? "redscan_argmax_host" : "redscan_argmin_host";
        st = p->want_max ? redscan_argmax_host(c, p->dt, p->x, n, &idx, vp) : redscan_argmin_host(c, p->dt, p->x, n, &idx, vp);
    } else {
        if (!(in = wbuf(w, c, p->x, n * es, p->x + n * es, p->pad * es, (n + p->pad) * es))) return;
        if (p->api == A_DEV) {
            what = p->want_max ? "redscan_argmax" : "redscan_argmin";
            st = p->want_max ? redscan_argmax(c, p->dt, in, n, &idx, vp) : redscan_argmin(c, p->dt, in, n, &idx, vp);
        } else {
            what = p->want_max ? "redscan_argmax_async" : "redscan_argmin_async";
            ib = wbuf(w, c, NULL, 0, NULL, 0, 16);
            if (p->want_value) vb = wbuf(w, c, NULL, 0, NULL, 0, 2 * es);
            if (!ib || (p->want_value && !vb)) goto out;
            do_reserve(w, c, p);
            w->async_calls++;
            st = p->want_max ? redscan_argmax_async(c, p->dt, in, n, ib, vb) : redscan_argmin_async(c, p->dt, in, n, ib, vb);
            if (st == REDSCAN_OK && sync_ok(w, c)) {
                unsigned char *bi = wread(w, c, ib, 16), *bv = vb ? wread(w, c, vb, 2 * es) : NULL;
                if (bi) {
                    memcpy(&idx, bi, 8);
                    WCHECK(w, all_sent(bi + 8, 8), "%s wrote past the index", what);
                }
                if (bv) {
                    memcpy(val, bv, es);
                    WCHECK(w, all_sent(bv + es, es), "%s wrote past the value", what);
                }
                free(bi);
                free(bv);
            }
        }
    }
    if (n == 0) {
        WCHECK(w, st == REDSCAN_ERR_INVALID_ARGUMENT, "%s(n = 0) returned %s", what, redscan_status_string(st));
        WCHECK(w, all_sent(&idx, sizeof idx) && all_sent(val, sizeof val), "%s(n = 0) wrote an output", what);
        if (ib) dev_sentinel(w, c, ib, 16, "index buffer after a refused argext_async");
        if (vb) dev_sentinel(w, c, vb, 2 * es, "value buffer after a refused argext_async");
    } else if (wok(w, c, st, what)) {
        check_argext(w, what, p->dt, p->want_max, p->x, n, idx, p->want_value ? val : NULL);
        if (p->want_value) WCHECK(w, all_sent(val + es, sizeof val - es), "%s wrote past the value", what);
        else WCHECK(w, all_sent(val, sizeof val), "%s wrote a value with value = NULL", what);
    }
    if (in) dev_unchanged(w, c, in, p->x, (n + p->pad) * es, "input buffer after argmin/argmax");
out:
    if (in) redscan_buffer_destroy(c, in);
    if (ib) redscan_buffer_destroy(c, ib);
    if (vb) redscan_buffer_destroy(c, vb);
}

static void run_topk(worker *w, redscan_ctx *c, const params *p)
{
    const size_t n = p->n, es = ref_size(p->dt), k = p->k, extra = 3;
    unsigned char *vals = (unsigned char *)h_malloc((k + extra) * es);
    uint64_t *idx = (uint64_t *)h_malloc((k + extra) * sizeof *idx);
    memset(vals, SENT, (k + extra) * es);
    memset(idx, SENT, (k + extra) * sizeof *idx);
    uint64_t *ip = p->want_indices ? idx : NULL;
    redscan_buffer *in = NULL, *vb = NULL, *ib = NULL;
    redscan_status st;
    const char *what;
    if (p->api == A_HOST) {
        what = "redscan_topk_host";
        st = redscan_topk_host(c, p->dt, p->x, n, k, p->largest, vals, ip);
    } else {
        if (!(in = wbuf(w, c, p->x, n * es, p->x + n * es, p->pad * es, (n + p->pad) * es))) goto out;
        if (p->api == A_DEV) {
            what = "redscan_topk";
            st = redscan_topk(c, p->dt, in, n, k, p->largest, vals, ip);
        } else {
            what = "redscan_topk_async";
            vb = wbuf(w, c, NULL, 0, NULL, 0, (k + extra) * es);
            if (ip) ib = wbuf(w, c, NULL, 0, NULL, 0, (k + extra) * 8);
            if (!vb || (ip && !ib)) goto out;
            do_reserve(w, c, p);
            w->async_calls++;
            st = redscan_topk_async(c, p->dt, in, n, k, p->largest, vb, ib);
            if (st == REDSCAN_OK && sync_ok(w, c)) {
                unsigned char *bv = wread(w, c, vb, (k + extra) * es), *bi = ib ? wread(w, c, ib, (k + extra) * 8) : NULL;
                if (bv) memcpy(vals, bv, (k + extra) * es);
                if (bi) memcpy(idx, bi, (k + extra) * 8);
                free(bv);
                free(bi);
            }
        }
    }
    if (n == 0) {
        WCHECK(w, st == REDSCAN_ERR_INVALID_ARGUMENT, "%s(n = 0) returned %s", what, redscan_status_string(st));
        WCHECK(w, all_sent(vals, (k + extra) * es) && all_sent(idx, (k + extra) * 8), "%s(n = 0) wrote an output", what);
        if (vb) dev_sentinel(w, c, vb, (k + extra) * es, "values buffer after a refused topk_async");
        if (ib) dev_sentinel(w, c, ib, (k + extra) * 8, "indices buffer after a refused topk_async");
    } else if (wok(w, c, st, what)) {
        check_topk(w, what, p->dt, p->largest, p->x, n, k, vals, ip);
        WCHECK(w, all_sent(vals + k * es, extra * es), "%s wrote values past k", what);
        WCHECK(w, all_sent(ip ? (void *)(idx + k) : (void *)idx, (ip ? extra : k + extra) * 8),
               "%s wrote indices past k (or with indices = NULL)", what);
    }
    if (in) dev_unchanged(w, c, in, p->x, (n + p->pad) * es, "input buffer after top-k");
out:
    if (in) redscan_buffer_destroy(c, in);
    if (vb) redscan_buffer_destroy(c, vb);
    if (ib) redscan_buffer_destroy(c, ib);
    free(vals);
    free(idx);
}

/* scan_async of x into s (or in place), then on s: reduce_async into a slot of res, argmin/argmax_async,
 * topk_async, a refused async call among them (drawn by r), ONE synchronize; then every result is checked: the scan
 * against the references, the others against the references applied to the scan's output as read back. */
static void run_chain(worker *w, redscan_ctx *c, const params *p, h_rng *r)
{
    const size_t n = p->n, es = ref_size(p->dt);
    const redscan_dtype T = p->out;
    const size_t os = ref_size(T);
    const redscan_block_scan blk = eff_block(p->block);
    const redscan_grid_scan grd = eff_grid(p->grid);
    const void *init = p->use_init ? p->init.b : NULL;
    const redscan_scan_desc sd = {p->op, p->dt, p->field, p->excl, init, p->block, p->grid, 0};
    /* the reduction of the scan's output: sum / min / max (a float product of prefix sums says little), its own
     * widening now and then */
    redscan_op rop = (redscan_op)h_rng_below(r, 4);
    if (ref_is_float(T) && rop == REDSCAN_PROD) rop = REDSCAN_SUM;
    redscan_dtype R = T, rfield = (redscan_dtype)0;
    if (ref_widening(T) && (ref_widening(T) != REDSCAN_FLOAT64 || G.have_fp64) && h_rng_below(r, 3) == 0)
        R = rfield = ref_widening(T);
    const size_t rs = ref_size(R);
    const redscan_reduce_desc rd = {rop, T, rfield, p->algo, 0};
    const size_t k = p->k, cap_in = (n + p->pad) * es, cap_s = (n + p->pad) * os;
    const int bad = (int)h_rng_below(r, 5); /* 0..3: which refused call, 4: none */
    redscan_buffer *in = wbuf(w, c, p->x, n * es, p->x + n * es, p->pad * es, cap_in), *s = in, *res = NULL,
                   *ib = NULL, *vb = NULL, *tv = NULL, *ti = NULL;
    if (in && !p->inplace) s = wbuf(w, c, NULL, 0, NULL, 0, cap_s);
    res = wbuf(w, c, NULL, 0, NULL, 0, p->slots * rs);
    ib = wbuf(w, c, NULL, 0, NULL, 0, 8);
    vb = wbuf(w, c, NULL, 0, NULL, 0, os);
    tv = wbuf(w, c, NULL, 0, NULL, 0, k * os);
    ti = wbuf(w, c, NULL, 0, NULL, 0, k * 8);
    if (!in || !s || !res || !ib || !vb || !tv || !ti) goto out;
    do_reserve(w, c, p);
    redscan_status st_scan, st_red, st_arg, st_topk;
    w->async_calls += 5;
    st_scan = redscan_scan_async(c, &sd, in, s, n);
    const int scan_unsup = st_scan == REDSCAN_ERR_UNSUPPORTED && grd == REDSCAN_GRID_SINGLE_PASS && n > 0;
    if (!st_ok(w, c, st_scan, grd == REDSCAN_GRID_SINGLE_PASS && n > 0, "scan_async (chain)")) {
        if (!scan_unsup) goto out;
        /* no single_pass here: the rest of the chain still runs, on s as it is */
    }
    st_red = redscan_reduce_async(c, &rd, s, n, res, p->slot);
    {
        /* a refused call between the good ones: nothing enqueued, its outputs untouched */
        redscan_status sb;
        const char *bw;
        switch (bad) {
        case 0: bw = "reduce_async result_index past the end"; sb = redscan_reduce_async(c, &rd, s, n, res, p->slots); break;
        case 1: bw = "topk_async k > n"; sb = redscan_topk_async(c, T, s, n, n + 1, p->largest, tv, ti); break;
        case 2: bw = "argmax_async index NULL"; sb = redscan_argmax_async(c, T, s, n, NULL, vb); break;
        case 3: {
            redscan_scan_desc sx = sd;
            sx.exclusive = 2;
            bw = "scan_async exclusive 2";
            sb = redscan_scan_async(c, &sx, in, s, n);
            break;
        }
        default: bw = NULL; sb = REDSCAN_ERR_INVALID_ARGUMENT; break;
        }
        if (bw) {
            w->bad_calls++;
            const char *msg = redscan_last_error(c);
            WCHECK(w, sb == REDSCAN_ERR_INVALID_ARGUMENT && msg && *msg, "chain bad call %s returned %s (message \"%s\")",
                   bw, redscan_status_string(sb), msg ? msg : "(null)");
        }
    }
    st_arg = p->want_max ? redscan_argmax_async(c, T, s, n, ib, vb) : redscan_argmin_async(c, T, s, n, ib, vb);
    st_topk = redscan_topk_async(c, T, s, n, k, p->largest, tv, ti);
    const int unsup_red = subgroup_algo(eff_algo(p->algo)) && n > 0;
    const int red_ok = st_ok(w, c, st_red, unsup_red, "reduce_async (chain)");
    if (n == 0) {
        WCHECK(w, st_arg == REDSCAN_ERR_INVALID_ARGUMENT && st_topk == REDSCAN_ERR_INVALID_ARGUMENT,
               "argext_async / topk_async of n = 0 returned %s / %s", redscan_status_string(st_arg),
               redscan_status_string(st_topk));
    } else {
        wok(w, c, st_arg, "argext_async (chain)");
        wok(w, c, st_topk, "topk_async (chain)");
    }
    if (!sync_ok(w, c)) goto out;
    unsigned char *sg = wread(w, c, s, p->inplace ? cap_in : cap_s), *rg = wread(w, c, res, p->slots * rs),
                  *ig = wread(w, c, ib, 8), *vg = wread(w, c, vb, os), *tvg = wread(w, c, tv, k * os),
                  *tig = wread(w, c, ti, k * 8);
    if (sg && rg && ig && vg && tvg && tig) {
        if (!scan_unsup) {
            check_scan(w, "scan_async (chain)", p->op, p->dt, T, p->excl, init, blk, grd, p->x, n, sg);
            if (p->inplace) WCHECK(w, h_memdiff(sg + n * es, p->x + n * es, p->pad * es) == (size_t)-1, "chain scan wrote past n (in place)");
            else WCHECK(w, all_sent(sg + n * os, p->pad * os), "chain scan wrote past n");
        }
        /* what was scanned is what the next calls read: the references run on the scan's output as read back
         * (when the scan was UNSUPPORTED: on the untouched s, all SENT bytes, or the input in place) */
        for (size_t sl = 0; sl < p->slots; sl++)
            if (sl != p->slot) WCHECK(w, all_sent(rg + sl * rs, rs), "chain reduce_async: slot %zu written (result_index %zu)", sl, p->slot);
        if (red_ok) check_reduce(w, "reduce_async (chain)", rop, T, R, eff_algo(p->algo), sg, n, ref_load(R, rg + p->slot * rs, 0));
        else WCHECK(w, all_sent(rg + p->slot * rs, rs), "chain reduce_async refused but wrote its slot");
        if (n > 0 && st_arg == REDSCAN_OK && st_topk == REDSCAN_OK) {
            uint64_t gi;
            memcpy(&gi, ig, 8);
            check_argext(w, p->want_max ? "argmax_async (chain)" : "argmin_async (chain)", T, p->want_max, sg, n, gi, vg);
            check_topk(w, "topk_async (chain)", T, p->largest, sg, n, k, tvg, (const uint64_t *)tig);
        } else if (n == 0) {
            WCHECK(w, all_sent(ig, 8) && all_sent(vg, os) && all_sent(tvg, k * os) && all_sent(tig, k * 8),
                   "refused argext/topk_async (n = 0) wrote an output");
        }
        if (!p->inplace) dev_unchanged(w, c, in, p->x, cap_in, "chain input buffer");
    }
    free(sg);
    free(rg);
    free(ig);
    free(vg);
    free(tvg);
    free(tig);
out:
    if (s && s != in) redscan_buffer_destroy(c, s);
    if (in) redscan_buffer_destroy(c, in);
    if (res) redscan_buffer_destroy(c, res);
    if (ib) redscan_buffer_destroy(c, ib);
    if (vb) redscan_buffer_destroy(c, vb);
    if (tv) redscan_buffer_destroy(c, tv);
    if (ti) redscan_buffer_destroy(c, ti);
}

/* ------------------------------------------------------------------ one operation, one thread */

static uint64_t op_seed(unsigned thread, uint64_t index) { return h_seed(0x53545245u /* "STRE" */, thread, index, 0, 0, 0); }

static void run_op(worker *w, uint64_t index)
{
    h_rng r;
    h_rng_init(&r, op_seed(w->id, index));
    w->op = index;
    /* churn first, from its own draws */
    const int churn = h_rng_below(&r, 1000) < G.churn_pm;
    const unsigned churn_slot = (unsigned)h_rng_below(&r, G.contexts);
    params p;
    draw(&r, &p);
    char d[700];
    describe(&p, d, sizeof d);
    if (churn) {
        set_desc(w, "context churn of slot %u, then %s", churn_slot, d);
        close_ctx(w, churn_slot);
        w->churns++;
    } else {
        set_desc(w, "%s", d);
    }
    for (unsigned i = 0; i < G.contexts; i++)
        if (!w->ctx[i] && !open_ctx(w, i)) {
            free(p.x);
            return;
        }
    redscan_ctx *c = w->ctx[p.ci];
    w->kinds[p.kind]++;
    if (p.kind != K_BAD) w->apis[p.api]++;
    if (p.bad_first && p.kind != K_BAD) bad_call(w, &r, p.ci);
    switch (p.kind) {
    case K_REDUCE: run_reduce(w, c, &p); break;
    case K_SCAN: run_scan(w, c, &p); break;
    case K_MEAN: run_mean(w, c, &p); break;
    case K_ARGEXT: run_argext(w, c, &p); break;
    case K_TOPK: run_topk(w, c, &p); break;
    case K_CHAIN: run_chain(w, c, &p, &r); break;
    default:
        for (int i = 0; i < 3; i++) bad_call(w, &r, p.ci);
        break;
    }
    free(p.x);
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    const double t0 = h_now();
    int ok = 1;
    for (unsigned i = 0; i < G.contexts && ok; i++) ok = open_ctx(w, i);
    for (uint64_t i = G.replay ? G.replay_first : 0; ok; i++) {
        if (G.replay ? i > G.replay_op : h_now() >= G.deadline) break;
        if (w->failures >= G.max_fail) break;
        run_op(w, i);
        atomic_store(&w->ops_done, (long)(i + 1 - (G.replay ? G.replay_first : 0)));
    }
    set_desc(w, "closing its contexts");
    for (unsigned i = 0; i < G.contexts; i++) close_ctx(w, i);
    w->seconds = h_now() - t0;
    atomic_store(&w->finished, 1);
    return NULL;
}

/* ------------------------------------------------------------------ main */

static void maybe_random_seed(void)
{
    const char *s = getenv("REDSCAN_TEST_SEED");
    if (!s || (strcasecmp(s, "random") != 0 && strcasecmp(s, "time") != 0)) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t v = ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    char buf[32];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    setenv("REDSCAN_TEST_SEED", buf, 1);
}

static worker g_workers[MAX_THREADS];

/* Resident memory of the process in MiB (Linux /proc: VmRSS, or VmHWM for the peak); -1 where not available. */
static long rss_mib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    size_t fl = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
            kb = strtol(line + fl + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

static long total_ops(void)
{
    long t = 0;
    for (unsigned i = 0; i < G.threads; i++) t += atomic_load(&g_workers[i].ops_done);
    return t;
}

int main(void)
{
    maybe_random_seed();
    h_open("test_stress");
    G.base = h_base_seed();
    G.budget = (double)env_u64("REDSCAN_STRESS_SECONDS", 120);
    G.threads = (unsigned)env_u64("REDSCAN_STRESS_THREADS", 4);
    G.contexts = (unsigned)env_u64("REDSCAN_STRESS_CONTEXTS", 2);
    G.max_n = (size_t)env_u64("REDSCAN_STRESS_MAX_N", 300000);
    G.churn_pm = (unsigned)env_u64("REDSCAN_STRESS_CHURN", 5);
    G.max_fail = (long)env_u64("REDSCAN_STRESS_MAX_FAILURES", 10);
    G.grace = (double)env_u64("REDSCAN_STRESS_GRACE", 600);
    G.progress = (double)env_u64("REDSCAN_STRESS_PROGRESS", 10);
    G.backend = getenv("REDSCAN_BACKEND");
    if (!G.backend || !*G.backend) G.backend = redscan_backend_name(h_ctx);
    if (G.threads < 1) G.threads = 1;
    if (G.threads > MAX_THREADS) G.threads = MAX_THREADS;
    if (G.contexts < 1) G.contexts = 1;
    if (G.contexts > MAX_CTX) G.contexts = MAX_CTX;
    if (G.max_fail < 1) G.max_fail = 1;
    const char *rp = getenv("REDSCAN_STRESS_REPLAY");
    if (rp && *rp) {
        unsigned t = 0;
        unsigned long long a = 0, b = 0;
        int got = sscanf(rp, "%u:%llu-%llu", &t, &a, &b);
        if (got == 2) b = a, a = 0;
        if (got < 2 || a > b) {
            printf("FAIL test_stress: REDSCAN_STRESS_REPLAY='%s' is not <thread>:<op> or <thread>:<first>-<last>\n", rp);
            return 1;
        }
        G.replay = 1;
        G.replay_thread = t;
        G.replay_first = a;
        G.replay_op = b;
    }
    {
        double one = 1.0, rr = 0;
        if (redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &rr) == REDSCAN_ERR_UNSUPPORTED) {
            printf("note: the device has no fp64; FLOAT64 is never drawn\n");
        } else {
            G.have_fp64 = 1;
        }
    }
    if (G.replay)
        printf("test_stress: replaying thread %u, operations %" PRIu64 "..%" PRIu64 " (%u contexts, base seed 0x%" PRIx64
               ")\n",
               G.replay_thread, G.replay_first, G.replay_op, G.contexts, G.base);
    else
        printf("test_stress: %u threads x %u contexts, %.0f s budget, sizes up to %zu, churn %u per mille, base seed "
               "0x%" PRIx64 "\n",
               G.threads, G.contexts, G.budget, G.max_n, G.churn_pm, G.base);

    const unsigned nrun = G.replay ? 1 : G.threads;
    pthread_t th[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    const double t0 = h_now();
    G.deadline = t0 + G.budget;
    for (unsigned i = 0; i < nrun; i++) {
        worker *w = &g_workers[i];
        w->id = G.replay ? G.replay_thread : i;
        pthread_mutex_init(&w->lock, NULL);
        snprintf(w->desc, sizeof w->desc, "starting");
        started[i] = pthread_create(&th[i], NULL, worker_main, w) == 0;
        CHECK(started[i], "pthread_create %u", i);
        if (!started[i]) atomic_store(&w->finished, 1);
    }
    /* progress and hang detection */
    double next = t0 + G.progress;
    for (;;) {
        unsigned running = 0;
        for (unsigned i = 0; i < nrun; i++) running += !atomic_load(&g_workers[i].finished);
        if (!running) break;
        const double now = h_now();
        if (!G.replay && now > G.deadline + G.grace) {
            printf("FAIL test_stress: %u thread(s) still busy %.0f s after the budget (REDSCAN_STRESS_GRACE); hung?\n",
                   running, now - G.deadline);
            for (unsigned i = 0; i < nrun; i++) {
                worker *w = &g_workers[i];
                if (atomic_load(&w->finished)) continue;
                pthread_mutex_lock(&w->lock);
                printf("  thread %u, after %ld operations, is in: %s\n", w->id, atomic_load(&w->ops_done), w->desc);
                pthread_mutex_unlock(&w->lock);
            }
            printf("  replay one: REDSCAN_BACKEND=%s REDSCAN_TEST_SEED=0x%" PRIx64
                   " REDSCAN_STRESS_CONTEXTS=%u REDSCAN_STRESS_REPLAY=<thread>:<op> ./tests/test_stress\n",
                   G.backend, G.base, G.contexts);
            fflush(stdout);
            _exit(1);
        }
        if (G.progress > 0 && now >= next) {
            printf("test_stress: %.0f s: %ld operations so far, resident memory %ld MiB\n", now - t0, total_ops(),
                   rss_mib("VmRSS"));
            next += G.progress;
        }
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    const double elapsed = h_now() - t0;
    long kinds[K_COUNT] = {0}, apis[A_COUNT] = {0}, bad = 0, unsup = 0, churns = 0, checks = 0, asyncs = 0, syncs = 0,
         creates = 0, failures = 0;
    for (unsigned i = 0; i < nrun; i++) {
        worker *w = &g_workers[i];
        if (started[i]) pthread_join(th[i], NULL);
        long ops = atomic_load(&w->ops_done);
        printf("thread %u: %ld ops in %.1f s (reduce %ld, scan %ld, mean %ld, argext %ld, topk %ld, chain %ld, bad %ld; "
               "host %ld, host_ex %ld, device %ld, device_ex %ld, async %ld), %ld bad-argument calls, %ld async calls, "
               "%ld synchronizes, %ld contexts made (%ld churns), %ld UNSUPPORTED where allowed, %ld checks, %ld failures\n",
               w->id, ops, w->seconds, w->kinds[K_REDUCE], w->kinds[K_SCAN], w->kinds[K_MEAN], w->kinds[K_ARGEXT],
               w->kinds[K_TOPK], w->kinds[K_CHAIN], w->kinds[K_BAD], w->apis[A_HOST], w->apis[A_HOST_EX],
               w->apis[A_DEV], w->apis[A_DEV_EX], w->apis[A_ASYNC], w->bad_calls, w->async_calls, w->syncs, w->creates,
               w->churns, w->unsupported, w->checks, w->failures);
        for (int k = 0; k < K_COUNT; k++) kinds[k] += w->kinds[k];
        for (int a = 0; a < A_COUNT; a++) apis[a] += w->apis[a];
        bad += w->bad_calls, unsup += w->unsupported, churns += w->churns, checks += w->checks;
        asyncs += w->async_calls, syncs += w->syncs, creates += w->creates, failures += w->failures;
        for (int k = 0; k < w->nnotes; k++) {
            printf("FAIL %s\n", w->notes[k]);
            char env[300];
            snprintf(env, sizeof env,
                     "REDSCAN_BACKEND=%s REDSCAN_TEST_SEED=0x%" PRIx64 " REDSCAN_STRESS_CONTEXTS=%u REDSCAN_STRESS_MAX_N=%zu "
                     "REDSCAN_STRESS_CHURN=%u",
                     G.backend, G.base, G.contexts, G.max_n, G.churn_pm);
            printf("  replay this operation alone:       %s REDSCAN_STRESS_REPLAY=%u:%" PRIu64 "-%" PRIu64
                   " ./tests/test_stress\n", env, w->id, w->note_op[k], w->note_op[k]);
            printf("  replay the thread up to it (0..%" PRIu64 "): %s REDSCAN_STRESS_REPLAY=%u:%" PRIu64 " ./tests/test_stress\n",
                   w->note_op[k], env, w->id, w->note_op[k]);
        }
        if (w->failures > w->nnotes) printf("  (thread %u: %ld further failures not printed)\n", w->id, w->failures - w->nnotes);
        CHECK(w->failures == 0, "thread %u: %ld failed checks (listed above)", w->id, w->failures);
    }
    {
        int32_t x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, rsum = 0;
        redscan_status st = redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_INT32, x, 10, &rsum);
        CHECK(st == REDSCAN_OK && rsum == 55, "the main thread's context after the run: status %s, sum %d",
              redscan_status_string(st), (int)rsum);
    }
    const long ops = total_ops();
    printf("test_stress: SUMMARY %s, %u threads x %u contexts, %.1f s (budget %.0f s): %ld ops (%.1f ops/s; reduce %ld, "
           "scan %ld, mean %ld, argext %ld, topk %ld, async chains %ld, bad-only %ld; host %ld, host_ex %ld, device %ld, "
           "device_ex %ld, async %ld), %ld bad-argument calls, %ld async calls, %ld synchronizes, %ld contexts made (%ld "
           "churns), %ld UNSUPPORTED where allowed, %ld checks, %ld failures, peak resident memory %ld MiB, base seed 0x%" PRIx64 "\n",
           G.backend, nrun, G.contexts, elapsed, G.budget, ops, elapsed > 0 ? (double)ops / elapsed : 0.0,
           kinds[K_REDUCE], kinds[K_SCAN], kinds[K_MEAN], kinds[K_ARGEXT], kinds[K_TOPK], kinds[K_CHAIN], kinds[K_BAD],
           apis[A_HOST], apis[A_HOST_EX], apis[A_DEV], apis[A_DEV_EX], apis[A_ASYNC], bad, asyncs, syncs, creates,
           churns, unsup, checks, failures, rss_mib("VmHWM"), G.base);
    if (failures && !G.replay)
        printf("test_stress: rerun the whole run: REDSCAN_BACKEND=%s REDSCAN_TEST_SEED=0x%" PRIx64
               " REDSCAN_STRESS_THREADS=%u REDSCAN_STRESS_CONTEXTS=%u REDSCAN_STRESS_SECONDS=%.0f ./tests/test_stress\n",
               G.backend, G.base, G.threads, G.contexts, G.budget);
    return h_done();
}
