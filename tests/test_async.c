/* test_async: the stream-ordered API (redscan.h, "stream-ordered (asynchronous) operation"; DESIGN.md, "Second
 * wave"): redscan_reduce_async, redscan_scan_async, redscan_argmin_async / _argmax_async, redscan_topk_async,
 * redscan_synchronize, redscan_reserve / _reserve_topk, redscan_create_on_opencl_queue / _on_cuda_stream.
 *
 * Every async result is compared bit for bit with the blocking function's result on the same input
 * (redscan_reduce_ex, redscan_scan_ex, redscan_argmin / _argmax, redscan_topk) and with the host references
 * (reference.h: exact for integers and float min/max, the documented order of combination for float sums and
 * products). Output buffers are pre-filled with a sentinel, so that a call writing outside its result (or a
 * refused call writing anything) shows.
 *
 *   1. reduce_async: every algorithm x op x {int32, float32, int32->int64, float32->float64, float64} x sizes;
 *      many results into one buffer at different result_index values (every other slot left untouched), n = 0
 *      (the empty result) into the last slot, ONE synchronize for all of them.
 *   2. scan_async: every block x grid for int32 sum (inclusive / exclusive, with / without init), float32 sum
 *      (two of those modes), in place, a scan of the previous scan's output (the order of two async calls on
 *      one queue), widenings, float64, min/max; all of one configuration before one synchronize.
 *   3. argmin / argmax_async with and without the value buffer; topk_async k = 1, 2, 5, 8, 20, 256 (k <= n),
 *      smallest and largest, with and without the index buffer.
 *   Errors: every refused argument returns REDSCAN_ERR_INVALID_ARGUMENT and leaves every buffer as it was (good
 *      calls before and after the refused ones still land; nothing half enqueued).
 *   Order with the blocking functions: a blocking call made right after async calls (no synchronize) sees their
 *      results, and an async call reads what a blocking call wrote.
 *   4. Contexts on the caller's OpenCL queue / CUDA stream: the caller's own non-blocking upload (write or fill),
 *      several async calls, the caller's non-blocking download, ONE wait (the native one or redscan_synchronize),
 *      two uploads per wait, several rounds of new data; after redscan_destroy the caller's queue / stream still
 *      works and (OpenCL) its reference count is what it was.
 *   5. Refusals of the create functions: an out-of-order queue (REDSCAN_ERR_UNSUPPORTED, the message says why),
 *      NULL queue / ctx pointer, a CUDA device that does not exist.
 *   6. Two contexts on two queues / streams of one device, async calls interleaved.
 *   7. redscan_reserve / _reserve_topk, then a sequence of smaller calls.
 *   8. CUDA only: the sequence captured into a CUDA graph after reserve and a warm-up, replayed 100 times on new
 *      input each time (no redscan call may fail or allocate while the stream is captured).
 *
 * Sizes: 1, 1000, 70000 (several passes / levels of every algorithm); REDSCAN_TEST_LEVEL=0 drops 1000 and the
 * widened and float64 reductions, =2 adds 4097 and 2^20 + 3. Never asserts a time. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#ifdef REDSCAN_TEST_HAVE_OPENCL
#include <CL/cl.h>
#endif
#ifdef REDSCAN_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define SENT 0x5C /* every output byte that no call may write */
#define PAD 3     /* sentinel elements after every output */
#define MAX_SIZES 5

static size_t g_sizes[MAX_SIZES];
static unsigned g_nsizes;
static int g_have_fp64 = 1;

/* ------------------------------------------------------------------ small helpers */

/* CHECK_OK / CHECK_STATUS print h_ctx's last error; these print the error of the context that failed. */
static int ok_on(redscan_ctx *c, redscan_status st, const char *what)
{
    return CHECK(st == REDSCAN_OK, "%s returned %s: %s", what, redscan_status_string(st), redscan_last_error(c));
}

static int status_on(redscan_ctx *c, redscan_status st, redscan_status want, const char *what)
{
    return CHECK(st == want, "%s returned %s, want %s (last error: %s)", what, redscan_status_string(st),
                 redscan_status_string(want), redscan_last_error(c));
}

/* A buffer of c holding src and SENT bytes after it. */
static redscan_buffer *buf_on(redscan_ctx *c, const void *src, size_t src_bytes, size_t bytes)
{
    redscan_buffer *b = NULL;
    if (!ok_on(c, redscan_buffer_create(c, bytes, &b), "redscan_buffer_create")) return NULL;
    unsigned char *img = h_malloc(bytes);
    memset(img, SENT, bytes);
    if (src_bytes) memcpy(img, src, src_bytes);
    redscan_status st = redscan_buffer_write(c, b, 0, img, bytes);
    free(img);
    if (!ok_on(c, st, "redscan_buffer_write")) {
        redscan_buffer_destroy(c, b);
        return NULL;
    }
    return b;
}

/* The whole buffer (NULL after a counted failure). */
static unsigned char *read_on(redscan_ctx *c, const redscan_buffer *b)
{
    size_t bytes = redscan_buffer_size(b);
    unsigned char *p = h_malloc(bytes);
    if (!ok_on(c, redscan_buffer_read(c, b, 0, p, bytes), "redscan_buffer_read")) {
        free(p);
        return NULL;
    }
    return p;
}

/* Is every byte SENT? */
static int untouched(const unsigned char *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != SENT) return 0;
    return 1;
}

static const char *type_str(redscan_dtype in, redscan_dtype out, char buf[40])
{
    if (out && out != in) snprintf(buf, 40, "%s->%s", ref_dtype_str(in), ref_dtype_str(out));
    else snprintf(buf, 40, "%s", ref_dtype_str(in));
    return buf;
}

static int uses_fp64(redscan_dtype in, redscan_dtype out)
{
    return in == REDSCAN_FLOAT64 || out == REDSCAN_FLOAT64;
}

static void pick_sizes(void)
{
    g_nsizes = 0;
    g_sizes[g_nsizes++] = 1;
    if (h_level() >= 1) g_sizes[g_nsizes++] = 1000;
    if (h_level() >= 2) g_sizes[g_nsizes++] = 4097;
    g_sizes[g_nsizes++] = 70000; /* more than one tile of every reduction, two levels of every scan */
    if (h_level() >= 2) g_sizes[g_nsizes++] = ((size_t)1 << 20) + 3;
}

static size_t max_size(void) { return g_sizes[g_nsizes - 1]; }

/* ------------------------------------------------------------------ 1. reductions */

static const redscan_reduce_algo RALGOS[] = {REDSCAN_REDUCE_TREE, REDSCAN_REDUCE_INTERLEAVED, REDSCAN_REDUCE_COARSENED,
                                             REDSCAN_REDUCE_WARP_SYNC, REDSCAN_REDUCE_SHUFFLE};
#define NRALGOS 5u
static const char *const RALGO_NAMES[] = {"tree", "interleaved", "coarsened", "warp_sync", "shuffle"};
static const redscan_op OPS[] = {REDSCAN_SUM, REDSCAN_PROD, REDSCAN_MIN, REDSCAN_MAX};

typedef struct {
    redscan_dtype in, out; /* out: 0 = the input type */
} dtpair;
static const dtpair RTYPES[] = {{REDSCAN_INT32, 0},
                                {REDSCAN_FLOAT32, 0},
                                {REDSCAN_INT32, REDSCAN_INT64},
                                {REDSCAN_FLOAT32, REDSCAN_FLOAT64},
                                {REDSCAN_FLOAT64, 0}};
#define NRTYPES 5u

/* The sub-group algorithms may be missing on an OpenCL device (documented); nothing else may be. */
static int subgroup_algo(redscan_reduce_algo a)
{
    return a == REDSCAN_REDUCE_WARP_SYNC || a == REDSCAN_REDUCE_SHUFFLE;
}

static unsigned g_noted_subgroup; /* bit a: the note for RALGOS[a] was printed */

/* got against the host reference for algorithm a (the sub-group algorithms give the tree's bits). */
static void check_reduce_ref(redscan_op op, redscan_dtype dt, redscan_dtype odt, redscan_reduce_algo a,
                             const void *data, size_t n, ref_val got, const char *what)
{
    char g[96], w[96];
    if (n == 0) {
        ref_val want = ref_empty_result(op, odt);
        CHECK(ref_bits_equal(odt, got, want), "%s: n = 0 gave %s, want %s", what, h_fmt(odt, got, g),
              h_fmt(odt, want, w));
        return;
    }
    if (!ref_is_float(odt)) {
        ref_val want = ref_reduce_seq(op, dt, odt, data, n);
        CHECK(ref_bits_equal(odt, got, want), "%s: got %s, want %s", what, h_fmt(odt, got, g), h_fmt(odt, want, w));
        return;
    }
    if (h_exact_order()) {
        redscan_reduce_algo ea = subgroup_algo(a) ? REDSCAN_REDUCE_TREE : a;
        ref_val want = ref_reduce_emulate(ea, op, dt, odt, data, n);
        CHECK(ref_result_equal(op, odt, got, want), "%s: got %s, the documented order gives %s", what,
              h_fmt(odt, got, g), h_fmt(odt, want, w));
        return;
    }
    if (op == REDSCAN_MIN || op == REDSCAN_MAX) { /* the value, whatever the order */
        ref_val want = ref_reduce_seq(op, dt, odt, data, n);
        int gn = ref_isnan(odt, got), wn = ref_isnan(odt, want);
        CHECK(gn == wn && (wn || ref_to_double(odt, got) == ref_to_double(odt, want)), "%s: got %s, want %s", what,
              h_fmt(odt, got, g), h_fmt(odt, want, w));
        return;
    }
    ref_ld_acc acc;
    ref_ld_init(&acc, op);
    for (size_t i = 0; i < n; i++) {
        ref_val v = ref_load(dt, data, i);
        ref_ld_add(&acc, op, ref_to_ld(dt, v), ref_isnan(dt, v));
    }
    double err, bound;
    unsigned depth = ref_reduce_depth(subgroup_algo(a) ? REDSCAN_REDUCE_TREE : a, n);
    CHECK(ref_fbound_ok(op, odt, got, &acc, depth, &err, &bound), "%s: got %s: |error| %.3g > bound %.3g", what,
          h_fmt(odt, got, g), err, bound);
}

/* One op and type: every algorithm at every size reduced into slot 2j + 1 of one result buffer, n = 0 into the
 * last slot, then one synchronize; every slot against the blocking call and the reference, the others untouched. */
static void reduce_family(redscan_op op, unsigned ti)
{
    const dtpair *t = &RTYPES[ti];
    const redscan_dtype odt = t->out ? t->out : t->in;
    const size_t is = ref_size(t->in), os = ref_size(odt), nmax = max_size();
    const uint64_t seed = h_seed(1, (uint64_t)op, ti, nmax, 0, 0);
    char ts[40];
    type_str(t->in, t->out, ts);
    if (!h_case("reduce_async %s %s, every algorithm and size, one synchronize, seed=0x%" PRIx64, ref_op_str(op), ts,
                seed))
        return;
    /* floats: NaNs with distinct payloads for min/max (which one wins is order-dependent: bits must match) */
    const h_gen gen = ref_is_float(t->in) && (op == REDSCAN_MIN || op == REDSCAN_MAX) ? GEN_NAN : GEN_EDGE;
    h_rng r;
    h_rng_init(&r, seed);
    unsigned char *data = h_malloc(nmax * is);
    h_generate(&r, t->in, op, gen, data, nmax);
    /* a poisoned tail: reading past nmax would change the result */
    redscan_buffer *in = h_buffer_with(data, nmax * is, (nmax + PAD) * is, t->in, h_poison(op, t->in));
    const unsigned jobs = NRALGOS * g_nsizes;
    const size_t slots = 2 * (size_t)jobs + 2; /* slot 2j + 1: job j; the last slot: n = 0; the others: untouched */
    redscan_buffer *res = buf_on(h_ctx, NULL, 0, slots * os);
    redscan_status st[NRALGOS * MAX_SIZES], st0 = REDSCAN_OK;
    if (!in || !res) goto out;

    for (unsigned a = 0; a < NRALGOS; a++)
        for (unsigned s = 0; s < g_nsizes; s++) {
            const unsigned j = a * g_nsizes + s;
            redscan_reduce_desc d = {op, t->in, t->out, RALGOS[a], 0};
            st[j] = redscan_reduce_async(h_ctx, &d, in, g_sizes[s], res, 2 * (size_t)j + 1);
            if (!(subgroup_algo(RALGOS[a]) && st[j] == REDSCAN_ERR_UNSUPPORTED))
                CHECK_OK(st[j], "redscan_reduce_async");
        }
    {
        redscan_reduce_desc d = {op, t->in, t->out, REDSCAN_REDUCE_AUTO, 0};
        st0 = redscan_reduce_async(h_ctx, &d, in, 0, res, slots - 1);
        CHECK_OK(st0, "redscan_reduce_async n = 0");
    }
    if (!CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize")) goto out;

    unsigned char *got = read_on(h_ctx, res);
    if (!got) goto out;
    unsigned char *expect = h_malloc(slots * os); /* sentinel, and the blocking result where a call ran */
    memset(expect, SENT, slots * os);
    for (unsigned a = 0; a < NRALGOS; a++)
        for (unsigned s = 0; s < g_nsizes; s++) {
            const unsigned j = a * g_nsizes + s;
            const size_t n = g_sizes[s], slot = 2 * (size_t)j + 1;
            char what[160];
            snprintf(what, sizeof what, "%s n=%zu result_index %zu", RALGO_NAMES[a], n, slot);
            redscan_reduce_desc d = {op, t->in, t->out, RALGOS[a], 0};
            unsigned char want[16];
            redscan_status stb = redscan_reduce_ex(h_ctx, &d, in, n, want);
            if (st[j] != REDSCAN_OK) {
                /* allowed only where the blocking form refuses it the same way */
                CHECK(st[j] == REDSCAN_ERR_UNSUPPORTED && stb == st[j],
                      "%s: async returned %s, blocking %s", what, redscan_status_string(st[j]),
                      redscan_status_string(stb));
                if (!(g_noted_subgroup & (1u << a))) {
                    g_noted_subgroup |= 1u << a;
                    printf("NOTE: %s is unsupported on this device (async and blocking agree)\n", RALGO_NAMES[a]);
                }
                continue;
            }
            if (!CHECK_OK(stb, "redscan_reduce_ex (blocking, for comparison)")) continue;
            memcpy(expect + slot * os, want, os);
            CHECK_BITS(odt, got + slot * os, want, 1, what);
            check_reduce_ref(op, t->in, odt, RALGOS[a], data, n, ref_load(odt, got, slot), what);
        }
    if (st0 == REDSCAN_OK) {
        redscan_reduce_desc d = {op, t->in, t->out, REDSCAN_REDUCE_AUTO, 0};
        unsigned char want[16];
        if (CHECK_OK(redscan_reduce_ex(h_ctx, &d, in, 0, want), "redscan_reduce_ex n = 0")) {
            memcpy(expect + (slots - 1) * os, want, os);
            CHECK_BITS(odt, got + (slots - 1) * os, want, 1, "n = 0 (last slot) vs blocking");
            check_reduce_ref(op, t->in, odt, REDSCAN_REDUCE_AUTO, data, 0, ref_load(odt, got, slots - 1), "n = 0");
        }
    }
    CHECK_MEM(got, expect, slots * os, "result buffer (slots no call wrote must keep the sentinel)");
    free(expect);
    free(got);
out:
    if (in) redscan_buffer_destroy(h_ctx, in);
    if (res) redscan_buffer_destroy(h_ctx, res);
    free(data);
}

static void reduce_cases(void)
{
    double t0 = h_now();
    for (unsigned ti = 0; ti < NRTYPES; ti++) {
        if (h_level() == 0 && ti >= 2) continue; /* level 0: int32 and float32 only */
        if (!g_have_fp64 && uses_fp64(RTYPES[ti].in, RTYPES[ti].out)) continue;
        for (unsigned o = 0; o < 4; o++) reduce_family(OPS[o], ti);
    }
    printf("test_async: reductions %.1f s\n", h_now() - t0);
}

/* ------------------------------------------------------------------ 2. scans */

static const redscan_block_scan BLOCKS[] = {REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_BLOCK_KOGGE_STONE_DB,
                                            REDSCAN_BLOCK_BRENT_KUNG, REDSCAN_BLOCK_COARSENED};
static const redscan_grid_scan GRIDS[] = {REDSCAN_GRID_HIERARCHICAL, REDSCAN_GRID_REDUCE_THEN_SCAN,
                                          REDSCAN_GRID_SINGLE_PASS};

typedef struct {
    redscan_op op;
    redscan_dtype in, out; /* out: 0 = same */
    redscan_block_scan block;
    redscan_grid_scan grid;
    int all_modes; /* every inclusive/exclusive x init combination; else inclusive-no-init and exclusive-init */
} scan_cfg;

typedef struct {
    size_t n;
    int excl, use_init, inplace;
    int chain; /* index of the job whose output is this job's input (read after it is written), or -1 */
    redscan_buffer *out;
    unsigned char *got; /* the output buffer after the synchronize */
    redscan_status st;
} scan_job;

#define MAX_SCAN_JOBS (4 * MAX_SIZES + 2)

static int g_noted_single_pass;

static void scan_desc(const scan_cfg *c, const scan_job *j, const void *init, redscan_scan_desc *d)
{
    redscan_scan_desc x = {c->op, c->in, c->out, j->excl, j->use_init ? init : NULL, c->block, c->grid, 0};
    if (j->chain >= 0) { /* the second scan reads the first's output: its type */
        x.dtype = c->out ? c->out : c->in;
        x.out_dtype = (redscan_dtype)0;
    }
    *d = x;
}

/* The reference for one job: the exact sequential scan where it is exact, else the documented order. */
static void check_scan_ref(const scan_cfg *c, const scan_job *j, redscan_dtype dt, const void *src, const void *init,
                           const char *what)
{
    const redscan_dtype odt = c->out ? c->out : c->in;
    const int exact = !ref_is_float(odt) || c->op == REDSCAN_MIN || c->op == REDSCAN_MAX;
    if (!exact && !h_exact_order()) return; /* the blocking comparison still holds */
    unsigned char *want = h_malloc(j->n * ref_size(odt));
    const void *iv = j->use_init ? init : NULL;
    if (exact) ref_scan_seq(c->op, dt, odt, j->excl, iv, src, want, j->n);
    else h_scan_emulate(c->block, c->grid, c->op, dt, odt, j->excl, iv, src, want, j->n);
    CHECK_ARRAY(c->op, odt, j->got, want, j->n, what);
    free(want);
}

static void scan_batch(const scan_cfg *c, unsigned key)
{
    const redscan_dtype odt = c->out ? c->out : c->in;
    const size_t is = ref_size(c->in), os = ref_size(odt), nmax = max_size();
    const uint64_t seed = h_seed(2, (uint64_t)c->op, c->in, c->out, c->block * 8u + c->grid, key);
    char ts[40];
    type_str(c->in, c->out, ts);
    if (!h_case("scan_async %s %s %s/%s, chained, one synchronize, seed=0x%" PRIx64, ref_op_str(c->op), ts,
                h_block_str(c->block), h_grid_str(c->grid), seed))
        return;
    h_rng r;
    h_rng_init(&r, seed);
    unsigned char *data = h_malloc(nmax * is);
    h_generate(&r, c->in, c->op, GEN_EDGE, data, nmax);
    ref_val init;
    h_generate(&r, odt, c->op, GEN_PLAIN, init.b, 1);
    redscan_buffer *in = h_buffer_with(data, nmax * is, (nmax + PAD) * is, c->in, h_poison(c->op, c->in));

    scan_job jobs[MAX_SCAN_JOBS];
    unsigned nj = 0;
    int chain_src = -1;
    for (unsigned s = 0; s < g_nsizes; s++)
        for (int m = 0; m < 4; m++) {
            const int excl = m >> 1, use_init = m & 1;
            if (!c->all_modes && excl != use_init) continue;
            if (s + 1 == g_nsizes && !excl && !use_init) chain_src = (int)nj;
            jobs[nj++] = (scan_job){g_sizes[s], excl, use_init, 0, -1, NULL, NULL, REDSCAN_OK};
        }
    if (!c->out) { /* in place (a widening cannot run in place), and a scan of a scan */
        jobs[nj++] = (scan_job){nmax, 0, 1, 1, -1, NULL, NULL, REDSCAN_OK};
        if (chain_src >= 0) jobs[nj++] = (scan_job){nmax, 1, 0, 0, chain_src, NULL, NULL, REDSCAN_OK};
    }
    if (!in) goto out;

    /* enqueue everything, then one synchronize */
    for (unsigned i = 0; i < nj; i++) {
        scan_job *j = &jobs[i];
        /* in place: the input's data with the sentinel after it (is == os there) */
        j->out = j->inplace ? buf_on(h_ctx, data, j->n * is, (j->n + PAD) * is)
                            : buf_on(h_ctx, NULL, 0, (j->n + PAD) * os);
        if (!j->out) continue;
        const redscan_buffer *src = j->chain >= 0 ? jobs[j->chain].out : j->inplace ? j->out : in;
        redscan_scan_desc d;
        ref_val init_copy = init; /* overwritten after the call: the value must be read by the call itself */
        scan_desc(c, j, init_copy.b, &d);
        j->st = src ? redscan_scan_async(h_ctx, &d, src, j->out, j->n) : REDSCAN_ERR_INVALID_ARGUMENT;
        memset(init_copy.b, 0xEE, sizeof init_copy.b);
        if (!(h_scan_grid(c->grid) == REDSCAN_GRID_SINGLE_PASS && j->st == REDSCAN_ERR_UNSUPPORTED))
            CHECK_OK(j->st, "redscan_scan_async");
    }
    if (!CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize")) goto out;
    for (unsigned i = 0; i < nj; i++)
        if (jobs[i].out) jobs[i].got = read_on(h_ctx, jobs[i].out);

    for (unsigned i = 0; i < nj; i++) {
        scan_job *j = &jobs[i];
        if (!j->got) continue;
        const size_t obytes = redscan_buffer_size(j->out);
        char what[200];
        snprintf(what, sizeof what, "job %u: n=%zu %s init=%s%s%s", i, j->n, j->excl ? "exclusive" : "inclusive",
                 j->use_init ? "yes" : "null", j->inplace ? " in-place" : "",
                 j->chain >= 0 ? " (scan of job's output)" : "");
        /* the blocking scan of the same input into a buffer with the same initial contents */
        redscan_buffer *bout = j->inplace ? buf_on(h_ctx, data, j->n * is, obytes) : buf_on(h_ctx, NULL, 0, obytes);
        const redscan_buffer *bsrc = j->chain >= 0 ? jobs[j->chain].out : j->inplace ? bout : in;
        if (!bout || !bsrc) {
            if (bout) redscan_buffer_destroy(h_ctx, bout);
            continue;
        }
        redscan_scan_desc d;
        scan_desc(c, j, init.b, &d);
        redscan_status stb = redscan_scan_ex(h_ctx, &d, bsrc, bout, j->n);
        unsigned char *want = read_on(h_ctx, bout);
        redscan_buffer_destroy(h_ctx, bout);
        if (j->st != REDSCAN_OK) {
            CHECK(j->st == REDSCAN_ERR_UNSUPPORTED && stb == j->st, "%s: async returned %s, blocking %s", what,
                  redscan_status_string(j->st), redscan_status_string(stb));
            if (!g_noted_single_pass++)
                printf("NOTE: single_pass is unsupported on this device (async and blocking agree)\n");
            /* refused: the output is what it was before */
            if (j->inplace) CHECK(!memcmp(j->got, data, j->n * is) && untouched(j->got + j->n * is, obytes - j->n * is),
                                  "%s: refused in-place scan changed the buffer", what);
            else CHECK(untouched(j->got, obytes), "%s: refused scan wrote its output", what);
        } else if (CHECK_OK(stb, "redscan_scan_ex (blocking, for comparison)") && want) {
            char w2[320];
            snprintf(w2, sizeof w2, "%s: async output (and the sentinel after n) vs blocking", what);
            CHECK_MEM(j->got, want, obytes, w2);
            CHECK(untouched(j->got + j->n * os, obytes - j->n * os), "%s: written past n", what);
            snprintf(w2, sizeof w2, "%s vs reference", what);
            if (j->chain >= 0) check_scan_ref(c, j, odt, jobs[j->chain].got, init.b, w2);
            else check_scan_ref(c, j, c->in, data, init.b, w2);
        }
        free(want);
    }
    /* the input (with its poisoned tail) is unchanged */
    unsigned char *back = read_on(h_ctx, in);
    if (back) {
        CHECK_MEM(back, data, nmax * is, "input buffer after the scans");
        free(back);
    }
out:
    for (unsigned i = 0; i < nj; i++) {
        if (jobs[i].out) redscan_buffer_destroy(h_ctx, jobs[i].out);
        free(jobs[i].got);
    }
    if (in) redscan_buffer_destroy(h_ctx, in);
    free(data);
}

static void scan_cases(void)
{
    double t0 = h_now();
    unsigned key = 0;
    for (unsigned b = 0; b < 4; b++)
        for (unsigned g = 0; g < 3; g++) {
            scan_cfg c = {REDSCAN_SUM, REDSCAN_INT32, 0, BLOCKS[b], GRIDS[g], 1};
            scan_batch(&c, key++);
            c.in = REDSCAN_FLOAT32;
            c.all_modes = 0;
            scan_batch(&c, key++);
        }
    /* widenings, float64 and the order-independent ops on a few configurations */
    static const scan_cfg extra[] = {
        {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_BLOCK_COARSENED, REDSCAN_GRID_REDUCE_THEN_SCAN, 1},
        {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_GRID_SINGLE_PASS, 0},
        {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_BLOCK_BRENT_KUNG, REDSCAN_GRID_HIERARCHICAL, 1},
        {REDSCAN_SUM, REDSCAN_FLOAT64, 0, REDSCAN_BLOCK_KOGGE_STONE_DB, REDSCAN_GRID_REDUCE_THEN_SCAN, 0},
        {REDSCAN_MAX, REDSCAN_INT32, 0, REDSCAN_BLOCK_COARSENED, REDSCAN_GRID_HIERARCHICAL, 0},
        {REDSCAN_MIN, REDSCAN_FLOAT32, 0, REDSCAN_BLOCK_COARSENED, REDSCAN_GRID_SINGLE_PASS, 0},
        /* the AUTO algorithms (the AUTO grid's bits are single_pass's: h_scan_emulate) */
        {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 1},
    };
    for (unsigned i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        if (!g_have_fp64 && uses_fp64(extra[i].in, extra[i].out)) continue;
        scan_batch(&extra[i], key++);
    }
    printf("test_async: scans %.1f s\n", h_now() - t0);
}

/* ------------------------------------------------------------------ 3. argmin / argmax / top-k */

enum { SEL_ARGMIN, SEL_ARGMAX, SEL_TOPK };
typedef struct {
    int kind;
    size_t n, k;
    int largest;
    redscan_buffer *a, *b; /* argmin/max: index, value (or NULL); top-k: values, indices (or NULL) */
    redscan_status st;
} sel_job;

static const size_t TOPK_KS[] = {1, 2, 5, 8, 20, 256};
#define NKS 6u
#define MAX_SEL_JOBS (MAX_SIZES * (4 + NKS * 4))

static redscan_status sel_enqueue(redscan_ctx *c, redscan_dtype dt, const redscan_buffer *in, const sel_job *j)
{
    switch (j->kind) {
    case SEL_ARGMIN: return redscan_argmin_async(c, dt, in, j->n, j->a, j->b);
    case SEL_ARGMAX: return redscan_argmax_async(c, dt, in, j->n, j->a, j->b);
    default: return redscan_topk_async(c, dt, in, j->n, j->k, j->largest, j->a, j->b);
    }
}

/* The job's buffers after the synchronize against the blocking call and the reference. */
static void sel_check(redscan_dtype dt, const redscan_buffer *in, const void *data, const sel_job *j)
{
    const size_t es = ref_size(dt);
    char what[160];
    if (j->kind == SEL_TOPK)
        snprintf(what, sizeof what, "topk_async n=%zu k=%zu %s%s", j->n, j->k, j->largest ? "largest" : "smallest",
                 j->b ? "" : " (no indices)");
    else
        snprintf(what, sizeof what, "%s_async n=%zu%s", j->kind == SEL_ARGMAX ? "argmax" : "argmin", j->n,
                 j->b ? "" : " (no value)");
    unsigned char *ga = read_on(h_ctx, j->a), *gb = j->b ? read_on(h_ctx, j->b) : NULL;
    if (!ga || (j->b && !gb)) goto out;
    if (j->kind != SEL_TOPK) {
        uint64_t idx = 0, bidx = 0;
        unsigned char bval[8];
        redscan_status stb = j->kind == SEL_ARGMAX ? redscan_argmax(h_ctx, dt, in, j->n, &bidx, bval)
                                                   : redscan_argmin(h_ctx, dt, in, j->n, &bidx, bval);
        if (!CHECK_OK(stb, "blocking argmin/argmax for comparison")) goto out;
        memcpy(&idx, ga, 8);
        uint64_t want = ref_argext(dt, j->kind == SEL_ARGMAX, data, j->n);
        CHECK(idx == bidx && idx == want, "%s: index %" PRIu64 ", blocking %" PRIu64 ", reference %" PRIu64, what, idx,
              bidx, want);
        CHECK(untouched(ga + 8, redscan_buffer_size(j->a) - 8), "%s: written past the index", what);
        if (gb) {
            CHECK_BITS(dt, gb, bval, 1, "value vs blocking");
            if (want < j->n) CHECK_BITS(dt, gb, (const unsigned char *)data + want * es, 1, "value vs input[index]");
            CHECK(untouched(gb + es, redscan_buffer_size(j->b) - es), "%s: written past the value", what);
        }
    } else {
        unsigned char *bv = h_malloc(j->k * es), *rv = h_malloc(j->k * es);
        uint64_t *bi = h_malloc(j->k * 8), *ri = h_malloc(j->k * 8);
        redscan_status stb = redscan_topk(h_ctx, dt, in, j->n, j->k, j->largest, bv, bi);
        if (CHECK_OK(stb, "blocking topk for comparison")) {
            ref_topk(dt, j->largest, data, j->n, j->k, rv, ri);
            char w2[200];
            snprintf(w2, sizeof w2, "%s: values vs blocking", what);
            CHECK_BITS(dt, ga, bv, j->k, w2);
            snprintf(w2, sizeof w2, "%s: values vs reference", what);
            CHECK_BITS(dt, ga, rv, j->k, w2);
            CHECK(untouched(ga + j->k * es, redscan_buffer_size(j->a) - j->k * es), "%s: written past k values", what);
            if (gb) {
                snprintf(w2, sizeof w2, "%s: indices vs blocking", what);
                CHECK_BITS(REDSCAN_UINT64, gb, bi, j->k, w2);
                snprintf(w2, sizeof w2, "%s: indices vs reference", what);
                CHECK_BITS(REDSCAN_UINT64, gb, ri, j->k, w2);
                CHECK(untouched(gb + j->k * 8, redscan_buffer_size(j->b) - j->k * 8), "%s: written past k indices",
                      what);
            }
        }
        free(bv), free(rv), free(bi), free(ri);
    }
out:
    free(ga);
    free(gb);
}

static void select_family(redscan_dtype dt, unsigned key)
{
    const size_t es = ref_size(dt), nmax = max_size();
    const uint64_t seed = h_seed(3, dt, nmax, key, 0, 0);
    if (!h_case("argmin/argmax/topk_async %s, every size and k, one synchronize, seed=0x%" PRIx64, ref_dtype_str(dt),
                seed))
        return;
    h_rng r;
    h_rng_init(&r, seed);
    unsigned char *data = h_malloc(nmax * es);
    /* max's generator: a narrow window of integers (many ties: the lowest index must win); float32 with NaNs */
    h_generate(&r, dt, REDSCAN_MAX, dt == REDSCAN_FLOAT32 ? GEN_NAN : GEN_EDGE, data, nmax);
    redscan_buffer *in = h_buffer_with(data, nmax * es, (nmax + PAD) * es, dt, h_poison(REDSCAN_MAX, dt));
    sel_job *jobs = h_malloc(MAX_SEL_JOBS * sizeof *jobs);
    unsigned nj = 0;
    for (unsigned s = 0; s < g_nsizes; s++) {
        const size_t n = g_sizes[s];
        for (int m = 0; m < 4; m++)
            jobs[nj++] = (sel_job){m >> 1 ? SEL_ARGMAX : SEL_ARGMIN, n, 0, 0,
                                   buf_on(h_ctx, NULL, 0, 8 * (1 + PAD)),
                                   m & 1 ? buf_on(h_ctx, NULL, 0, es * (1 + PAD)) : NULL, REDSCAN_OK};
        for (unsigned ki = 0; ki < NKS; ki++) {
            const size_t k = TOPK_KS[ki];
            if (k > n) continue;
            for (int m = 0; m < 4; m++)
                jobs[nj++] = (sel_job){SEL_TOPK, n, k, m >> 1, buf_on(h_ctx, NULL, 0, (k + PAD) * es),
                                       m & 1 ? buf_on(h_ctx, NULL, 0, (k + PAD) * 8) : NULL, REDSCAN_OK};
        }
    }
    if (!in) goto out;
    for (unsigned i = 0; i < nj; i++) {
        if (!jobs[i].a) continue;
        jobs[i].st = sel_enqueue(h_ctx, dt, in, &jobs[i]);
        CHECK_OK(jobs[i].st, jobs[i].kind == SEL_TOPK ? "redscan_topk_async" : "redscan_argmin/argmax_async");
    }
    if (!CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize")) goto out;
    for (unsigned i = 0; i < nj; i++)
        if (jobs[i].a && jobs[i].st == REDSCAN_OK) sel_check(dt, in, data, &jobs[i]);
out:
    for (unsigned i = 0; i < nj; i++) {
        if (jobs[i].a) redscan_buffer_destroy(h_ctx, jobs[i].a);
        if (jobs[i].b) redscan_buffer_destroy(h_ctx, jobs[i].b);
    }
    free(jobs);
    if (in) redscan_buffer_destroy(h_ctx, in);
    free(data);
}

static void select_cases(void)
{
    double t0 = h_now();
    select_family(REDSCAN_INT32, 0);
    select_family(REDSCAN_FLOAT32, 1);
    printf("test_async: argmin/argmax/top-k %.1f s\n", h_now() - t0);
}

/* ------------------------------------------------------------------ blocking calls after async ones */

/* The blocking functions run on the same stream / queue: one made right after async calls, with no synchronize in
 * between, sees their results (scan_async, then a blocking reduction, argmax and top-k of the scan's output). */
static void blocking_after_async(void)
{
    if (!h_case("blocking calls right after async calls (no synchronize) see their results")) return;
    enum { BN = 40000 };
    int32_t *x = h_malloc(BN * 4), *scan = h_malloc(BN * 4);
    h_rng r;
    h_rng_init(&r, h_seed(5, 0, 0, 0, 0, 0));
    h_generate(&r, REDSCAN_INT32, REDSCAN_MAX, GEN_EDGE, x, BN);
    ref_scan_seq(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, 0, NULL, x, scan, BN);
    redscan_buffer *in = buf_on(h_ctx, x, BN * 4, BN * 4), *out = buf_on(h_ctx, NULL, 0, BN * 4);
    const redscan_scan_desc d = {REDSCAN_MAX, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    if (in && out && CHECK_OK(redscan_scan_async(h_ctx, &d, in, out, BN), "redscan_scan_async")) {
        int32_t got = 0;
        if (CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_INT32, out, BN, &got), "blocking reduce")) {
            ref_val want = ref_reduce_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, scan, BN);
            CHECK(got == want.i32, "blocking sum of the async scan: %d, want %d", got, want.i32);
        }
        /* and the other way round: an async call after a blocking one reads what that wrote */
        const redscan_scan_desc e = {REDSCAN_SUM, REDSCAN_INT32, 0, 1, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
        CHECK_OK(redscan_scan_ex(h_ctx, &e, in, in, BN), "blocking exclusive scan in place");
        CHECK_OK(redscan_scan_async(h_ctx, &d, in, out, BN), "redscan_scan_async of the blocking scan's output");
        uint64_t idx = 0;
        int32_t v[3];
        if (CHECK_OK(redscan_topk(h_ctx, REDSCAN_INT32, out, BN, 3, 0, v, NULL), "blocking topk")) {
            int32_t *ex = h_malloc(BN * 4), *want = h_malloc(BN * 4), wv[3];
            uint64_t wi[3];
            ref_scan_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 1, NULL, x, ex, BN);
            ref_scan_seq(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, 0, NULL, ex, want, BN);
            ref_topk(REDSCAN_INT32, 0, want, BN, 3, wv, wi);
            CHECK_BITS(REDSCAN_INT32, v, wv, 3, "blocking top-3 after blocking scan + async scan");
            if (CHECK_OK(redscan_argmax(h_ctx, REDSCAN_INT32, out, BN, &idx, NULL), "blocking argmax"))
                CHECK(idx == ref_argext(REDSCAN_INT32, 1, want, BN), "argmax %" PRIu64, idx);
            free(ex);
            free(want);
        }
    }
    CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize");
    if (in) redscan_buffer_destroy(h_ctx, in);
    if (out) redscan_buffer_destroy(h_ctx, out);
    free(x);
    free(scan);
}

/* ------------------------------------------------------------------ refused arguments */

#define EN 1000 /* elements of the error cases' input */

/* One refused call on c (NULL: a call given no context): INVALID_ARGUMENT and a message. */
static void refused_on(redscan_ctx *c, redscan_status st, const char *what)
{
    const char *msg = redscan_last_error(c);
    if (status_on(c, st, REDSCAN_ERR_INVALID_ARGUMENT, what))
        CHECK(msg && *msg, "%s: refused without a message in redscan_last_error", what);
}
#define refused(st, what) refused_on(h_ctx, (st), (what))
#define refused_null(st, what) refused_on(NULL, (st), (what))

static void error_cases(void)
{
    if (!h_case("refused arguments of the async functions leave every buffer unchanged")) return;
    int32_t data[EN];
    for (int i = 0; i < EN; i++) data[i] = i % 17 - 8;
    int64_t sum = 0;
    for (int i = 0; i < EN; i++) sum += data[i];
    /* in: EN int32; res: 4 int32 slots; res_small: 4 bytes (one int32, half an int64); out: EN int64 (room for a
     * widening); idx/val/tv/ti: top-k or argmax outputs (8 elements each); small: 2 bytes */
    redscan_buffer *in = buf_on(h_ctx, data, sizeof data, sizeof data), *res = buf_on(h_ctx, NULL, 0, 16),
                   *res_small = buf_on(h_ctx, NULL, 0, 4), *out = buf_on(h_ctx, NULL, 0, EN * 8),
                   *idx = buf_on(h_ctx, NULL, 0, 64), *val = buf_on(h_ctx, NULL, 0, 32),
                   *tv = buf_on(h_ctx, NULL, 0, 7 * 4), *ti = buf_on(h_ctx, NULL, 0, 7 * 8),
                   *small = buf_on(h_ctx, NULL, 0, 2);
    redscan_ctx *other = NULL;
    redscan_buffer *foreign = NULL;
    if (CHECK_OK(redscan_create(&other, REDSCAN_BACKEND_AUTO), "redscan_create (a second context)"))
        foreign = buf_on(other, NULL, 0, EN * 8);
    if (!in || !res || !res_small || !out || !idx || !val || !tv || !ti || !small || !foreign) goto out;

    const redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    redscan_reduce_desc b;
    /* a good call before the refused ones: it must still land (slot 0) */
    CHECK_OK(redscan_reduce_async(h_ctx, &rd, in, EN, res, 0), "good reduce_async before the refused calls");

    refused_null(redscan_reduce_async(NULL, &rd, in, EN, res, 1), "reduce_async ctx NULL");
    refused(redscan_reduce_async(h_ctx, NULL, in, EN, res, 1), "reduce_async desc NULL");
    b = rd, b.dtype = (redscan_dtype)0;
    refused(redscan_reduce_async(h_ctx, &b, in, EN, res, 1), "reduce_async dtype 0");
    b = rd, b.dtype = (redscan_dtype)99;
    refused(redscan_reduce_async(h_ctx, &b, in, EN, res, 1), "reduce_async dtype 99");
    b = rd, b.op = (redscan_op)7;
    refused(redscan_reduce_async(h_ctx, &b, in, EN, res, 1), "reduce_async op 7");
    b = rd, b.out_dtype = REDSCAN_FLOAT64;
    refused(redscan_reduce_async(h_ctx, &b, in, EN, out, 1), "reduce_async int32 -> float64");
    b = rd, b.algo = (redscan_reduce_algo)99;
    refused(redscan_reduce_async(h_ctx, &b, in, EN, res, 1), "reduce_async algo 99");
    b = rd, b.flags = 1;
    refused(redscan_reduce_async(h_ctx, &b, in, EN, res, 1), "reduce_async flags 1");
    refused(redscan_reduce_async(h_ctx, &rd, NULL, EN, res, 1), "reduce_async in NULL");
    refused(redscan_reduce_async(h_ctx, &rd, in, EN + 1, res, 1), "reduce_async n past the input");
    refused(redscan_reduce_async(h_ctx, &rd, in, SIZE_MAX, res, 1), "reduce_async n overflows");
    refused(redscan_reduce_async(h_ctx, &rd, in, EN, NULL, 1), "reduce_async result NULL");
    refused(redscan_reduce_async(h_ctx, &rd, in, EN, res, 4), "reduce_async result_index = element count");
    refused(redscan_reduce_async(h_ctx, &rd, in, EN, res, 1000), "reduce_async result_index far past the end");
    refused(redscan_reduce_async(h_ctx, &rd, in, EN, res, SIZE_MAX), "reduce_async result_index SIZE_MAX");
    refused(redscan_reduce_async(h_ctx, &rd, in, 0, res, 4), "reduce_async n = 0, result_index past the end");
    b = rd, b.out_dtype = REDSCAN_INT64;
    refused(redscan_reduce_async(h_ctx, &b, in, EN, res_small, 0), "reduce_async int64 result in a 4-byte buffer");
    refused(redscan_reduce_async(h_ctx, &b, in, EN, res, 2), "reduce_async int64 result_index 2 of 16 bytes");
    refused(redscan_reduce_async(h_ctx, &rd, foreign, EN, res, 1), "reduce_async in of another context");
    refused(redscan_reduce_async(h_ctx, &rd, in, EN, foreign, 1), "reduce_async result of another context");

    const int32_t init = 5;
    const redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, &init, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    redscan_scan_desc s;
    refused_null(redscan_scan_async(NULL, &sd, in, out, EN), "scan_async ctx NULL");
    refused(redscan_scan_async(h_ctx, NULL, in, out, EN), "scan_async desc NULL");
    s = sd, s.dtype = (redscan_dtype)0;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async dtype 0");
    s = sd, s.dtype = (redscan_dtype)42;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async dtype 42");
    s = sd, s.op = (redscan_op)-1;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async op -1");
    s = sd, s.out_dtype = REDSCAN_UINT64;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async int32 -> uint64");
    s = sd, s.exclusive = 2;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async exclusive 2");
    s = sd, s.block = (redscan_block_scan)9;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async block 9");
    s = sd, s.grid = (redscan_grid_scan)9;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async grid 9");
    s = sd, s.flags = 2;
    refused(redscan_scan_async(h_ctx, &s, in, out, EN), "scan_async flags 2");
    refused(redscan_scan_async(h_ctx, &sd, NULL, out, EN), "scan_async in NULL");
    refused(redscan_scan_async(h_ctx, &sd, in, NULL, EN), "scan_async out NULL");
    refused(redscan_scan_async(h_ctx, &sd, in, out, EN + 1), "scan_async n past the input");
    refused(redscan_scan_async(h_ctx, &sd, in, res, EN), "scan_async out too small");
    s = sd, s.out_dtype = REDSCAN_INT64, s.init = NULL;
    refused(redscan_scan_async(h_ctx, &s, out, out, EN / 2), "scan_async in place with a widening");
    refused(redscan_scan_async(h_ctx, &sd, in, foreign, EN), "scan_async out of another context");
    refused(redscan_scan_async(h_ctx, &sd, foreign, out, EN), "scan_async in of another context");

    refused_null(redscan_argmax_async(NULL, REDSCAN_INT32, in, EN, idx, val), "argmax_async ctx NULL");
    refused(redscan_argmax_async(h_ctx, (redscan_dtype)0, in, EN, idx, val), "argmax_async dtype 0");
    refused(redscan_argmin_async(h_ctx, (redscan_dtype)13, in, EN, idx, val), "argmin_async dtype 13");
    refused(redscan_argmax_async(h_ctx, REDSCAN_INT32, NULL, EN, idx, val), "argmax_async in NULL");
    refused(redscan_argmin_async(h_ctx, REDSCAN_INT32, in, 0, idx, val), "argmin_async n = 0");
    refused(redscan_argmax_async(h_ctx, REDSCAN_INT32, in, EN + 1, idx, val), "argmax_async n past the input");
    refused(redscan_argmax_async(h_ctx, REDSCAN_INT32, in, EN, NULL, val), "argmax_async index NULL");
    refused(redscan_argmin_async(h_ctx, REDSCAN_INT32, in, EN, NULL, NULL), "argmin_async index and value NULL");
    refused(redscan_argmax_async(h_ctx, REDSCAN_INT32, in, EN, res_small, val), "argmax_async 4-byte index buffer");
    refused(redscan_argmin_async(h_ctx, REDSCAN_INT32, in, EN, idx, small), "argmin_async 2-byte value buffer");
    refused(redscan_argmax_async(h_ctx, REDSCAN_INT32, in, EN, foreign, val), "argmax_async index of another context");
    refused(redscan_argmax_async(h_ctx, REDSCAN_INT32, in, EN, idx, foreign), "argmax_async value of another context");

    refused_null(redscan_topk_async(NULL, REDSCAN_INT32, in, EN, 4, 1, tv, ti), "topk_async ctx NULL");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, 0, 1, tv, ti), "topk_async k = 0");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, 5, 6, 1, tv, ti), "topk_async k > n");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, REDSCAN_TOPK_MAX + 1, 1, out, out),
            "topk_async k > REDSCAN_TOPK_MAX");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, 0, 1, 1, tv, ti), "topk_async n = 0");
    refused(redscan_topk_async(h_ctx, (redscan_dtype)0, in, EN, 4, 1, tv, ti), "topk_async dtype 0");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, NULL, EN, 4, 1, tv, ti), "topk_async in NULL");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, 4, 1, NULL, ti), "topk_async values NULL");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, 4, 2, tv, ti), "topk_async largest 2");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, 8, 1, tv, NULL), "topk_async 7 values' room for k = 8");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, 8, 1, idx, ti), "topk_async 7 indices' room for k = 8");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, 4, 1, foreign, ti),
            "topk_async values of another context");
    refused(redscan_topk_async(h_ctx, REDSCAN_INT32, in, EN, 4, 1, tv, foreign),
            "topk_async indices of another context");

    refused_null(redscan_reserve(NULL, REDSCAN_INT32, EN), "reserve ctx NULL");
    refused(redscan_reserve(h_ctx, (redscan_dtype)0, EN), "reserve dtype 0");
    refused(redscan_reserve(h_ctx, (redscan_dtype)99, EN), "reserve dtype 99");
    refused_null(redscan_reserve_topk(NULL, REDSCAN_INT32, EN, 8), "reserve_topk ctx NULL");
    refused(redscan_reserve_topk(h_ctx, (redscan_dtype)0, EN, 8), "reserve_topk dtype 0");
    refused(redscan_reserve_topk(h_ctx, REDSCAN_INT32, EN, REDSCAN_TOPK_MAX + 1), "reserve_topk k > REDSCAN_TOPK_MAX");
    refused_null(redscan_synchronize(NULL), "synchronize ctx NULL");

    /* a good call after the refused ones (slot 2): the context is still usable and in order */
    CHECK_OK(redscan_reduce_async(h_ctx, &rd, in, EN / 2, res, 2), "good reduce_async after the refused calls");
    if (!CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize after refused calls")) goto out;

    int32_t want_res[4], half = 0;
    for (int i = 0; i < EN / 2; i++) half += data[i];
    memset(want_res, SENT, sizeof want_res);
    want_res[0] = (int32_t)sum;
    want_res[2] = half;
    unsigned char *g;
    if ((g = read_on(h_ctx, res))) {
        CHECK_MEM(g, want_res, sizeof want_res, "result slots: 0 and 2 written, 1 and 3 not");
        free(g);
    }
    if ((g = read_on(h_ctx, in))) {
        CHECK_MEM(g, data, sizeof data, "input after refused calls (in-place included)");
        free(g);
    }
    redscan_buffer *const outs[] = {res_small, out, idx, val, tv, ti, small};
    for (unsigned i = 0; i < sizeof outs / sizeof outs[0]; i++)
        if ((g = read_on(h_ctx, outs[i]))) {
            CHECK(untouched(g, redscan_buffer_size(outs[i])), "output %u written by a refused call", i);
            free(g);
        }
    if ((g = read_on(other, foreign))) {
        CHECK(untouched(g, EN * 8), "the other context's buffer written by a refused call");
        free(g);
    }
out:;
    redscan_buffer *all[] = {in, res, res_small, out, idx, val, tv, ti, small};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) redscan_buffer_destroy(h_ctx, all[i]);
    if (foreign) redscan_buffer_destroy(other, foreign);
    if (other) redscan_destroy(other);
}

/* ------------------------------------------------------------------ native queues / streams */

#if defined(REDSCAN_TEST_HAVE_OPENCL) || defined(REDSCAN_TEST_HAVE_CUDA)

/* What the caller's side looks like on each backend: its own queue or stream, memory allocated with the
 * backend's API, non-blocking transfers on that queue and one wait. */
typedef struct {
    const char *name;
    void *(*queue_new)(void); /* a new in-order queue / stream of the test's device; NULL after a counted failure */
    void (*queue_free)(void *q);
    redscan_status (*ctx_on)(redscan_ctx **c, void *q);
    void *(*mem_new)(size_t bytes);
    void (*mem_free)(void *m);
    redscan_status (*wrap)(redscan_ctx *c, void *m, size_t bytes, redscan_buffer **b);
    int (*write_async)(void *q, void *m, const void *src, size_t bytes);
    int (*fill_async)(void *q, void *m, unsigned char byte, size_t bytes);
    int (*read_async)(void *q, void *dst, void *m, size_t bytes);
    int (*wait)(void *q);
    void *(*host_new)(size_t bytes); /* host memory the non-blocking transfers may use (pinned on CUDA) */
    void (*host_free)(void *p);
    long (*queue_refs)(void *q); /* the queue's reference count, -1 where the backend has none */
} native_api;

#ifdef REDSCAN_TEST_HAVE_OPENCL
static cl_context g_cl_ctx;
static cl_device_id g_cl_dev;

static int cl_ok(cl_int err, const char *what)
{
    return CHECK(err == CL_SUCCESS, "%s: OpenCL error %d", what, (int)err);
}

static void *cl_queue_new(void)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(g_cl_ctx, g_cl_dev, 0, &err);
    return cl_ok(err, "clCreateCommandQueue") ? (void *)q : NULL;
}
static void cl_queue_free(void *q) { cl_ok(clReleaseCommandQueue((cl_command_queue)q), "clReleaseCommandQueue"); }
static redscan_status cl_ctx_on(redscan_ctx **c, void *q) { return redscan_create_on_opencl_queue(c, q); }
static void *cl_mem_new(size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(g_cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    return cl_ok(err, "clCreateBuffer") ? (void *)m : NULL;
}
static void cl_mem_free(void *m) { cl_ok(clReleaseMemObject((cl_mem)m), "clReleaseMemObject"); }
static int cl_write_async(void *q, void *m, const void *src, size_t bytes)
{
    return cl_ok(clEnqueueWriteBuffer((cl_command_queue)q, (cl_mem)m, CL_FALSE, 0, bytes, src, 0, NULL, NULL),
                 "clEnqueueWriteBuffer (non-blocking)");
}
static int cl_fill_async(void *q, void *m, unsigned char byte, size_t bytes)
{
    return cl_ok(clEnqueueFillBuffer((cl_command_queue)q, (cl_mem)m, &byte, 1, 0, bytes, 0, NULL, NULL),
                 "clEnqueueFillBuffer");
}
static int cl_read_async(void *q, void *dst, void *m, size_t bytes)
{
    return cl_ok(clEnqueueReadBuffer((cl_command_queue)q, (cl_mem)m, CL_FALSE, 0, bytes, dst, 0, NULL, NULL),
                 "clEnqueueReadBuffer (non-blocking)");
}
static int cl_wait(void *q) { return cl_ok(clFinish((cl_command_queue)q), "clFinish"); }
static void *cl_host_new(size_t bytes) { return h_malloc(bytes); }
static void cl_host_free(void *p) { free(p); }
static long cl_queue_refs(void *q)
{
    cl_uint n = 0;
    if (!cl_ok(clGetCommandQueueInfo((cl_command_queue)q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL),
               "clGetCommandQueueInfo(CL_QUEUE_REFERENCE_COUNT)"))
        return -1;
    return (long)n;
}
static long cl_context_refs(void)
{
    cl_uint n = 0;
    if (!cl_ok(clGetContextInfo(g_cl_ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL),
               "clGetContextInfo(CL_CONTEXT_REFERENCE_COUNT)"))
        return -1;
    return (long)n;
}

/* The context's reference count once it has stopped moving (unchanged over 5 polls 10 ms apart, up to about 2 s):
 * the baseline of a count check. Objects of the cases before (events, buffers) can still be in PoCL's deferred
 * release when a case starts; a baseline read at once then counts them, and the check after the case saw one
 * reference fewer than "before" (115 -> 114, once in a README test run, 2026-11-27). */
static long cl_quiet_context_refs(void)
{
    long last = cl_context_refs();
    for (int i = 0, same = 0; i < 200 && same < 5; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        const long now = cl_context_refs();
        same = now == last ? same + 1 : 0;
        last = now;
    }
    return last;
}

/* The reference counts once they have settled: PoCL drops a finished command's references (its event holds the
 * queue and the context) from a worker thread, shortly after clFinish returns, so a count read at once can still
 * include them (the specification calls these counts stale). A leaked reference never goes away: up to about 2 s
 * of polling until both are back at the expected values. */
static void cl_settled_refs(cl_command_queue q, long want_q, long want_c, long *got_q, long *got_c)
{
    for (int i = 0; i < 200; i++) {
        *got_q = cl_queue_refs(q);
        *got_c = cl_context_refs();
        if (*got_q == want_q && *got_c == want_c) return;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static const native_api CL_API = {"opencl",       cl_queue_new,   cl_queue_free, cl_ctx_on,   cl_mem_new,
                                  cl_mem_free,    redscan_buffer_wrap_opencl,    cl_write_async, cl_fill_async,
                                  cl_read_async,  cl_wait,        cl_host_new,   cl_host_free, cl_queue_refs};
#endif

#ifdef REDSCAN_TEST_HAVE_CUDA
static int g_cu_dev;

static int cu_ok(cudaError_t e, const char *what)
{
    return CHECK(e == cudaSuccess, "%s: %s (%d)", what, cudaGetErrorString(e), (int)e);
}
static void *cu_queue_new(void)
{
    cudaStream_t s = NULL;
    return cu_ok(cudaStreamCreate(&s), "cudaStreamCreate") ? (void *)s : NULL;
}
static void cu_queue_free(void *q) { cu_ok(cudaStreamDestroy((cudaStream_t)q), "cudaStreamDestroy"); }
/* Also checks that the calling thread's current device is left as it was. */
static redscan_status cu_ctx_on(redscan_ctx **c, void *q)
{
    int before = -1, after = -2;
    cu_ok(cudaGetDevice(&before), "cudaGetDevice");
    redscan_status st = redscan_create_on_cuda_stream(c, g_cu_dev, q);
    cu_ok(cudaGetDevice(&after), "cudaGetDevice");
    CHECK(before == after, "redscan_create_on_cuda_stream changed the current device from %d to %d", before, after);
    return st;
}
static void *cu_mem_new(size_t bytes)
{
    void *p = NULL;
    return cu_ok(cudaMalloc(&p, bytes), "cudaMalloc") ? p : NULL;
}
static void cu_mem_free(void *m) { cu_ok(cudaFree(m), "cudaFree"); }
static int cu_write_async(void *q, void *m, const void *src, size_t bytes)
{
    return cu_ok(cudaMemcpyAsync(m, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)q), "cudaMemcpyAsync H2D");
}
static int cu_fill_async(void *q, void *m, unsigned char byte, size_t bytes)
{
    return cu_ok(cudaMemsetAsync(m, byte, bytes, (cudaStream_t)q), "cudaMemsetAsync");
}
static int cu_read_async(void *q, void *dst, void *m, size_t bytes)
{
    return cu_ok(cudaMemcpyAsync(dst, m, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)q), "cudaMemcpyAsync D2H");
}
static int cu_wait(void *q) { return cu_ok(cudaStreamSynchronize((cudaStream_t)q), "cudaStreamSynchronize"); }
static void *cu_host_new(size_t bytes)
{
    void *p = NULL;
    if (!cu_ok(cudaMallocHost(&p, bytes), "cudaMallocHost")) {
        printf("FATAL test_async: cudaMallocHost(%zu) failed\n", bytes);
        exit(1);
    }
    return p;
}
static void cu_host_free(void *p) { cu_ok(cudaFreeHost(p), "cudaFreeHost"); }
static long cu_queue_refs(void *q)
{
    (void)q;
    return -1;
}

static const native_api CU_API = {"cuda",         cu_queue_new,   cu_queue_free, cu_ctx_on,   cu_mem_new,
                                  cu_mem_free,    redscan_buffer_wrap_cuda,      cu_write_async, cu_fill_async,
                                  cu_read_async,  cu_wait,        cu_host_new,   cu_host_free, cu_queue_refs};
#endif

/* ---- 4. the caller's queue: upload, async calls, download, one wait ---- */

#define PN 70001 /* several tiles / sections */
#define PK 5

enum { P_IN, P_RES, P_SCAN, P_SCAN2, P_IDX, P_VAL, P_TV, P_TI, P_COUNT };
static const size_t P_BYTES[P_COUNT] = {PN * 4, 4 * 4, PN * 4, PN * 4, 8, 4, PK * 4, PK * 8};

typedef struct {
    const native_api *api;
    void *q;
    redscan_ctx *c;
    void *mem[P_COUNT];
    redscan_buffer *w[P_COUNT];
} pipeline;

/* One phase: the caller uploads x (or fills the input with `fill` when non-zero, x then holding what that
 * gives), enqueues the redscan calls and its own downloads into host[] (one block per result buffer). */
static int pipeline_enqueue(pipeline *p, const int32_t *x, unsigned char fill, unsigned char *host[P_COUNT])
{
    const native_api *api = p->api;
    redscan_ctx *c = p->c;
    int ok = fill ? api->fill_async(p->q, p->mem[P_IN], fill, P_BYTES[P_IN])
                  : api->write_async(p->q, p->mem[P_IN], x, P_BYTES[P_IN]);
    redscan_reduce_desc sum = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    redscan_reduce_desc mx = {REDSCAN_MAX, REDSCAN_INT32, 0, REDSCAN_REDUCE_COARSENED, 0};
    redscan_reduce_desc mn = {REDSCAN_MIN, REDSCAN_INT32, 0, REDSCAN_REDUCE_INTERLEAVED, 0};
    redscan_scan_desc inc = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    redscan_scan_desc exc = {REDSCAN_SUM, REDSCAN_INT32, 0, 1, NULL, REDSCAN_BLOCK_COARSENED,
                             REDSCAN_GRID_REDUCE_THEN_SCAN, 0};
    ok &= ok_on(c, redscan_reduce_async(c, &sum, p->w[P_IN], PN, p->w[P_RES], 0), "reduce_async sum");
    ok &= ok_on(c, redscan_reduce_async(c, &mx, p->w[P_IN], PN, p->w[P_RES], 1), "reduce_async max");
    ok &= ok_on(c, redscan_reduce_async(c, &mn, p->w[P_IN], PN / 2, p->w[P_RES], 2), "reduce_async min (n/2)");
    ok &= ok_on(c, redscan_scan_async(c, &inc, p->w[P_IN], p->w[P_SCAN], PN), "scan_async inclusive");
    /* reads the previous call's output: the two must run in order */
    ok &= ok_on(c, redscan_scan_async(c, &exc, p->w[P_SCAN], p->w[P_SCAN2], PN), "scan_async exclusive of the scan");
    ok &= ok_on(c, redscan_argmax_async(c, REDSCAN_INT32, p->w[P_IN], PN, p->w[P_IDX], p->w[P_VAL]), "argmax_async");
    ok &= ok_on(c, redscan_topk_async(c, REDSCAN_INT32, p->w[P_IN], PN, PK, 0, p->w[P_TV], p->w[P_TI]), "topk_async");
    for (int b = P_RES; b < P_COUNT; b++) ok &= api->read_async(p->q, host[b], p->mem[b], P_BYTES[b]);
    return ok;
}

static void pipeline_check(const int32_t *x, unsigned char *host[P_COUNT], const char *what)
{
    int32_t res[4];
    memcpy(res, host[P_RES], sizeof res);
    ref_val s = ref_reduce_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, x, PN);
    ref_val m = ref_reduce_seq(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32, x, PN);
    ref_val n = ref_reduce_seq(REDSCAN_MIN, REDSCAN_INT32, REDSCAN_INT32, x, PN / 2);
    CHECK(res[0] == s.i32 && res[1] == m.i32 && res[2] == n.i32, "%s: sum/max/min %d %d %d, want %d %d %d", what,
          res[0], res[1], res[2], s.i32, m.i32, n.i32);
    CHECK(untouched((unsigned char *)&res[3], 4), "%s: result slot 3 written", what);
    int32_t *scan = h_malloc(PN * 4), *scan2 = h_malloc(PN * 4);
    ref_scan_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 0, NULL, x, scan, PN);
    ref_scan_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 1, NULL, scan, scan2, PN);
    char w[160];
    snprintf(w, sizeof w, "%s: inclusive scan", what);
    CHECK_BITS(REDSCAN_INT32, host[P_SCAN], scan, PN, w);
    snprintf(w, sizeof w, "%s: exclusive scan of the scan", what);
    CHECK_BITS(REDSCAN_INT32, host[P_SCAN2], scan2, PN, w);
    uint64_t idx, want_idx = ref_argext(REDSCAN_INT32, 1, x, PN);
    int32_t val;
    memcpy(&idx, host[P_IDX], 8);
    memcpy(&val, host[P_VAL], 4);
    CHECK(idx == want_idx && val == x[want_idx], "%s: argmax %" PRIu64 " (%d), want %" PRIu64 " (%d)", what, idx, val,
          want_idx, x[want_idx]);
    int32_t tv[PK];
    uint64_t ti[PK];
    ref_topk(REDSCAN_INT32, 0, x, PN, PK, tv, ti);
    snprintf(w, sizeof w, "%s: top-k values", what);
    CHECK_BITS(REDSCAN_INT32, host[P_TV], tv, PK, w);
    snprintf(w, sizeof w, "%s: top-k indices", what);
    CHECK_BITS(REDSCAN_UINT64, host[P_TI], ti, PK, w);
    free(scan);
    free(scan2);
}

static void caller_queue_ordering(const native_api *api)
{
    if (!h_case("%s: context on the caller's queue/stream; caller's uploads, async calls, caller's downloads, "
                "one wait", api->name))
        return;
    pipeline p;
    memset(&p, 0, sizeof p);
    p.api = api;
    p.q = api->queue_new();
    if (!p.q) return;
    const long refs0 = api->queue_refs(p.q);
#ifdef REDSCAN_TEST_HAVE_OPENCL
    const long crefs0 = api == &CL_API ? cl_quiet_context_refs() : -1;
#endif
    if (!ok_on(NULL, api->ctx_on(&p.c, p.q), "create on the caller's queue/stream")) {
        api->queue_free(p.q);
        return;
    }
    CHECK(!strcmp(redscan_backend_name(p.c), api->name), "backend %s", redscan_backend_name(p.c));
#ifdef REDSCAN_TEST_HAVE_OPENCL
    if (api == &CL_API) { /* the context reports the caller's objects as its own */
        void *hq = NULL, *hc = NULL, *hd = NULL;
        ok_on(p.c, redscan_native_handle(p.c, REDSCAN_NATIVE_OPENCL_QUEUE, &hq), "native queue");
        ok_on(p.c, redscan_native_handle(p.c, REDSCAN_NATIVE_OPENCL_CONTEXT, &hc), "native context");
        ok_on(p.c, redscan_native_handle(p.c, REDSCAN_NATIVE_OPENCL_DEVICE, &hd), "native device");
        CHECK(hq == p.q && hc == (void *)g_cl_ctx && hd == (void *)g_cl_dev,
              "native handles: queue %p context %p device %p, want %p %p %p", hq, hc, hd, p.q, (void *)g_cl_ctx,
              (void *)g_cl_dev);
    }
#endif
#ifdef REDSCAN_TEST_HAVE_CUDA
    if (api == &CU_API) {
        void *hs = NULL;
        ok_on(p.c, redscan_native_handle(p.c, REDSCAN_NATIVE_CUDA_STREAM, &hs), "native stream");
        CHECK(hs == p.q, "native stream %p, want the caller's %p", hs, p.q);
    }
#endif
    for (int b = 0; b < P_COUNT; b++) {
        if (!(p.mem[b] = api->mem_new(P_BYTES[b]))) goto out;
        if (!ok_on(p.c, api->wrap(p.c, p.mem[b], P_BYTES[b], &p.w[b]), "wrap the caller's memory")) goto out;
        api->fill_async(p.q, p.mem[b], SENT, P_BYTES[b]);
    }
    /* two phases per wait, each with its own input and host results, so that a call reading its input late
     * (after the next upload) or a download overtaking a call shows */
    int32_t *x[2];
    unsigned char *host[2][P_COUNT];
    for (int ph = 0; ph < 2; ph++) {
        x[ph] = api->host_new(P_BYTES[P_IN]);
        for (int b = 0; b < P_COUNT; b++) host[ph][b] = api->host_new(P_BYTES[b]);
    }
    const int rounds = 3 + 2 * h_level();
    for (int round = 0; round < rounds; round++) {
        unsigned char fill[2] = {0, 0};
        for (int ph = 0; ph < 2; ph++) {
            h_rng r;
            h_rng_init(&r, h_seed(4, (uint64_t)round, (uint64_t)ph, 0, 0, 0));
            if (round == 1 && ph == 1) { /* the caller's fill instead of a write */
                fill[ph] = (unsigned char)(1 + h_rng_below(&r, 100));
                memset(x[ph], fill[ph], P_BYTES[P_IN]);
            } else {
                for (size_t i = 0; i < PN; i++) x[ph][i] = (int32_t)h_rng_below(&r, 2000001) - 1000000;
            }
            for (int b = 0; b < P_COUNT; b++) memset(host[ph][b], 0xEE, P_BYTES[b]);
        }
        int ok = 1;
        for (int ph = 0; ph < 2; ph++) ok &= pipeline_enqueue(&p, x[ph], fill[ph], host[ph]);
        /* one wait for everything: the native one, or redscan_synchronize (which waits for all earlier work on
         * the queue, the caller's downloads included) */
        if (round % 2 == 0) ok &= api->wait(p.q);
        else ok &= ok_on(p.c, redscan_synchronize(p.c), "redscan_synchronize");
        if (!ok) {
            api->wait(p.q); /* the host arrays must not be freed under a transfer */
            break;
        }
        for (int ph = 0; ph < 2; ph++) {
            char what[80];
            snprintf(what, sizeof what, "round %d phase %d%s", round, ph, fill[ph] ? " (filled)" : "");
            pipeline_check(x[ph], host[ph], what);
        }
    }
    for (int ph = 0; ph < 2; ph++) {
        api->host_free(x[ph]);
        for (int b = 0; b < P_COUNT; b++) api->host_free(host[ph][b]);
    }
out:
    for (int b = 0; b < P_COUNT; b++)
        if (p.w[b]) redscan_buffer_destroy(p.c, p.w[b]);
    redscan_destroy(p.c);
    /* the caller's queue / stream and memory still work after the context is gone */
    if (p.mem[P_IN]) {
        unsigned char *back = api->host_new(P_BYTES[P_IN]);
        memset(back, 0, P_BYTES[P_IN]);
        if (api->fill_async(p.q, p.mem[P_IN], 0x3C, P_BYTES[P_IN]) &&
            api->read_async(p.q, back, p.mem[P_IN], P_BYTES[P_IN]) && api->wait(p.q)) {
            size_t bad = 0;
            for (size_t i = 0; i < P_BYTES[P_IN]; i++) bad += back[i] != 0x3C;
            CHECK(bad == 0, "the caller's queue after redscan_destroy: %zu bytes wrong", bad);
        }
        api->host_free(back);
    }
    /* counted once the caller's own memory is gone too: a cl_mem holds its context, and PoCL's the last event
     * that used it (which holds that event's queue) */
    for (int b = 0; b < P_COUNT; b++)
        if (p.mem[b]) api->mem_free(p.mem[b]);
    api->wait(p.q);
    long refs1 = api->queue_refs(p.q);
#ifdef REDSCAN_TEST_HAVE_OPENCL
    if (api == &CL_API) {
        long crefs1 = -1;
        cl_settled_refs((cl_command_queue)p.q, refs0, crefs0, &refs1, &crefs1);
        CHECK(crefs0 == crefs1, "cl_context reference count %ld before the context, %ld after", crefs0, crefs1);
    }
#endif
    CHECK(refs0 == refs1, "queue reference count %ld before the context, %ld after redscan_destroy", refs0, refs1);
    api->queue_free(p.q);
}

/* ---- 6. two contexts on two queues of one device, calls interleaved ---- */

#define TN 50001

typedef struct {
    redscan_ctx *c;
    void *q;
    int32_t *x;
    redscan_buffer *in, *res, *scan, *idx, *tv;
} side;

static void two_contexts(const native_api *api)
{
    if (!h_case("%s: two contexts on two queues/streams of one device, async calls interleaved", api->name)) return;
    side s[2];
    memset(s, 0, sizeof s);
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        if (!(s[i].q = api->queue_new()) || !ok_on(NULL, api->ctx_on(&s[i].c, s[i].q), "create on a queue/stream")) {
            ok = 0;
            break;
        }
        h_rng r;
        h_rng_init(&r, h_seed(6, (uint64_t)i, 0, 0, 0, 0));
        s[i].x = h_malloc(TN * 4);
        h_generate(&r, REDSCAN_INT32, REDSCAN_MAX, GEN_EDGE, s[i].x, TN);
        s[i].in = buf_on(s[i].c, s[i].x, TN * 4, TN * 4);
        s[i].res = buf_on(s[i].c, NULL, 0, 3 * 8);
        s[i].scan = buf_on(s[i].c, NULL, 0, TN * 8);
        s[i].idx = buf_on(s[i].c, NULL, 0, 8);
        s[i].tv = buf_on(s[i].c, NULL, 0, 8 * 4);
        ok &= s[i].in && s[i].res && s[i].scan && s[i].idx && s[i].tv;
    }
    if (!ok) goto out;
    const redscan_reduce_desc sum = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_REDUCE_TREE, 0};
    const redscan_reduce_desc mx = {REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_REDUCE_COARSENED, 0};
    const redscan_scan_desc sc = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, 0, NULL, REDSCAN_BLOCK_KOGGE_STONE,
                                  REDSCAN_GRID_HIERARCHICAL, 0};
    for (int i = 0; i < 2; i++)
        ok_on(s[i].c, redscan_reduce_async(s[i].c, &sum, s[i].in, TN, s[i].res, (size_t)i), "reduce_async");
    for (int i = 1; i >= 0; i--)
        ok_on(s[i].c, redscan_scan_async(s[i].c, &sc, s[i].in, s[i].scan, TN), "scan_async");
    for (int i = 0; i < 2; i++) {
        ok_on(s[i].c, redscan_reduce_async(s[i].c, &mx, s[i].in, TN - 1, s[i].res, 2), "reduce_async max");
        ok_on(s[i].c, redscan_argmin_async(s[i].c, REDSCAN_INT32, s[i].in, TN, s[i].idx, NULL), "argmin_async");
        ok_on(s[i].c, redscan_topk_async(s[i].c, REDSCAN_INT32, s[i].in, TN, 8, 1, s[i].tv, NULL), "topk_async");
    }
    for (int i = 1; i >= 0; i--) ok &= ok_on(s[i].c, redscan_synchronize(s[i].c), "redscan_synchronize");
    for (int i = 0; ok && i < 2; i++) {
        unsigned char *res = read_on(s[i].c, s[i].res), *scan = read_on(s[i].c, s[i].scan),
                      *idx = read_on(s[i].c, s[i].idx), *tv = read_on(s[i].c, s[i].tv);
        if (res && scan && idx && tv) {
            int64_t got[3];
            memcpy(got, res, sizeof got);
            ref_val ws = ref_reduce_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, s[i].x, TN);
            ref_val wm = ref_reduce_seq(REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT64, s[i].x, TN - 1);
            CHECK(got[i] == ws.i64 && got[2] == wm.i64, "context %d: sum %" PRId64 " max %" PRId64 ", want %" PRId64
                  " %" PRId64, i, got[i], got[2], ws.i64, wm.i64);
            CHECK(untouched(res + (1 - i) * 8, 8), "context %d: the other context's slot written", i);
            int64_t *want = h_malloc(TN * 8);
            ref_scan_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, 0, NULL, s[i].x, want, TN);
            CHECK_BITS(REDSCAN_INT64, scan, want, TN, "scan of one of two contexts");
            free(want);
            uint64_t gi;
            memcpy(&gi, idx, 8);
            CHECK(gi == ref_argext(REDSCAN_INT32, 0, s[i].x, TN), "context %d: argmin %" PRIu64, i, gi);
            int32_t wv[8];
            uint64_t wi[8];
            ref_topk(REDSCAN_INT32, 1, s[i].x, TN, 8, wv, wi);
            CHECK_BITS(REDSCAN_INT32, tv, wv, 8, "top-8 of one of two contexts");
        }
        free(res), free(scan), free(idx), free(tv);
    }
out:
    for (int i = 0; i < 2; i++) {
        redscan_buffer *bs[] = {s[i].in, s[i].res, s[i].scan, s[i].idx, s[i].tv};
        for (unsigned b = 0; b < 5; b++)
            if (bs[b]) redscan_buffer_destroy(s[i].c, bs[b]);
        if (s[i].c) redscan_destroy(s[i].c);
        if (s[i].q) api->queue_free(s[i].q);
        free(s[i].x);
    }
}

/* ---- 7. reserve, then smaller calls ---- */

#define RN 30000

static void reserve_then_calls(const native_api *api)
{
    if (!h_case("%s: redscan_reserve / _reserve_topk, then async calls of sizes <= n", api->name)) return;
    void *q = api->queue_new();
    redscan_ctx *c = NULL;
    if (!q) return;
    if (!ok_on(NULL, api->ctx_on(&c, q), "create on the caller's queue/stream")) {
        api->queue_free(q);
        return;
    }
    ok_on(c, redscan_reserve(c, REDSCAN_INT32, RN), "redscan_reserve int32");
    ok_on(c, redscan_reserve(c, REDSCAN_FLOAT32, RN), "redscan_reserve float32");
    ok_on(c, redscan_reserve_topk(c, REDSCAN_INT32, RN, 20), "redscan_reserve_topk k = 20");
    ok_on(c, redscan_reserve_topk(c, REDSCAN_INT32, RN, REDSCAN_TOPK_MAX), "redscan_reserve_topk k = REDSCAN_TOPK_MAX");
    status_on(c, redscan_reserve(c, (redscan_dtype)0, RN), REDSCAN_ERR_INVALID_ARGUMENT, "redscan_reserve dtype 0");
    status_on(c, redscan_reserve_topk(c, REDSCAN_INT32, RN, REDSCAN_TOPK_MAX + 1), REDSCAN_ERR_INVALID_ARGUMENT,
              "redscan_reserve_topk k > REDSCAN_TOPK_MAX");
    int32_t *x = h_malloc(RN * 4);
    h_rng r;
    h_rng_init(&r, h_seed(7, 0, 0, 0, 0, 0));
    h_generate(&r, REDSCAN_INT32, REDSCAN_SUM, GEN_EDGE, x, RN);
    static const size_t ns[] = {RN, RN / 3, 1};
    redscan_buffer *in = buf_on(c, x, RN * 4, RN * 4), *res = buf_on(c, NULL, 0, 3 * 8 * 2),
                   *scan[3] = {NULL, NULL, NULL}, *idx[3] = {NULL, NULL, NULL}, *tv[3] = {NULL, NULL, NULL},
                   *ti[3] = {NULL, NULL, NULL};
    const size_t ks[3] = {20, 8, 1};
    int ok = in && res;
    for (int i = 0; i < 3; i++) {
        scan[i] = buf_on(c, NULL, 0, ns[i] * 4);
        idx[i] = buf_on(c, NULL, 0, 8);
        tv[i] = buf_on(c, NULL, 0, ks[i] * 4);
        ti[i] = buf_on(c, NULL, 0, ks[i] * 8);
        ok &= scan[i] && idx[i] && tv[i] && ti[i];
    }
    if (ok) {
        const redscan_reduce_desc wide = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_REDUCE_COARSENED, 0};
        const redscan_reduce_desc mn = {REDSCAN_MIN, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_REDUCE_TREE, 0};
        const redscan_scan_desc sc = {REDSCAN_SUM, REDSCAN_INT32, 0, 1, NULL, REDSCAN_BLOCK_BRENT_KUNG,
                                      REDSCAN_GRID_SINGLE_PASS, 0};
        redscan_status sst[3];
        for (int i = 0; i < 3; i++) {
            ok_on(c, redscan_reduce_async(c, &wide, in, ns[i], res, 2 * (size_t)i), "reduce_async widening");
            ok_on(c, redscan_reduce_async(c, &mn, in, ns[i], res, 2 * (size_t)i + 1), "reduce_async min");
            sst[i] = redscan_scan_async(c, &sc, in, scan[i], ns[i]);
            if (sst[i] != REDSCAN_ERR_UNSUPPORTED) ok_on(c, sst[i], "scan_async");
            ok_on(c, redscan_argmax_async(c, REDSCAN_INT32, in, ns[i], idx[i], NULL), "argmax_async");
            ok_on(c, redscan_topk_async(c, REDSCAN_INT32, in, ns[i], ks[i], 1, tv[i], ti[i]), "topk_async");
        }
        if (ok_on(c, redscan_synchronize(c), "redscan_synchronize")) {
            unsigned char *gr = read_on(c, res);
            for (int i = 0; gr && i < 3; i++) {
                ref_val ws = ref_reduce_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, x, ns[i]);
                ref_val wm = ref_reduce_seq(REDSCAN_MIN, REDSCAN_INT32, REDSCAN_INT64, x, ns[i]);
                CHECK(!memcmp(gr + 16 * i, &ws.i64, 8) && !memcmp(gr + 16 * i + 8, &wm.i64, 8),
                      "n=%zu: widened sum / min wrong after reserve", ns[i]);
                unsigned char *gs = read_on(c, scan[i]), *gi = read_on(c, idx[i]), *gv = read_on(c, tv[i]),
                              *gti = read_on(c, ti[i]);
                if (gs && gi && gv && gti) {
                    int32_t *want = h_malloc(ns[i] * 4);
                    if (sst[i] == REDSCAN_OK) {
                        ref_scan_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 1, NULL, x, want, ns[i]);
                        CHECK_BITS(REDSCAN_INT32, gs, want, ns[i], "exclusive scan after reserve");
                    }
                    uint64_t got_i;
                    memcpy(&got_i, gi, 8);
                    CHECK(got_i == ref_argext(REDSCAN_INT32, 1, x, ns[i]), "n=%zu: argmax %" PRIu64, ns[i], got_i);
                    uint64_t wi[20];
                    ref_topk(REDSCAN_INT32, 1, x, ns[i], ks[i], want, wi);
                    CHECK_BITS(REDSCAN_INT32, gv, want, ks[i], "top-k values after reserve");
                    CHECK_BITS(REDSCAN_UINT64, gti, wi, ks[i], "top-k indices after reserve");
                    free(want);
                }
                free(gs), free(gi), free(gv), free(gti);
            }
            free(gr);
        }
    }
    for (int i = 0; i < 3; i++) {
        redscan_buffer *bs[] = {scan[i], idx[i], tv[i], ti[i]};
        for (int b = 0; b < 4; b++)
            if (bs[b]) redscan_buffer_destroy(c, bs[b]);
    }
    if (in) redscan_buffer_destroy(c, in);
    if (res) redscan_buffer_destroy(c, res);
    redscan_destroy(c);
    api->queue_free(q);
    free(x);
}

#endif /* REDSCAN_TEST_HAVE_OPENCL || REDSCAN_TEST_HAVE_CUDA */

/* ---- 5. refusals of the create functions ---- */

#ifdef REDSCAN_TEST_HAVE_OPENCL
static void opencl_create_refusals(void)
{
    if (!h_case("opencl: create_on_opencl_queue refuses an out-of-order queue, NULL queue, NULL ctx pointer")) return;
    redscan_ctx *c = NULL;
    CHECK_STATUS(redscan_create_on_opencl_queue(&c, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "NULL queue");
    CHECK(c == NULL, "ctx written by a refused create");
    void *q = cl_queue_new();
    if (q) {
        CHECK_STATUS(redscan_create_on_opencl_queue(NULL, q), REDSCAN_ERR_INVALID_ARGUMENT, "NULL ctx pointer");
        cl_queue_free(q);
    }
    cl_int err;
    cl_command_queue ooo =
        clCreateCommandQueue(g_cl_ctx, g_cl_dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err != CL_SUCCESS) {
        printf("NOTE: out-of-order case skipped: the device refused an out-of-order queue (OpenCL error %d)\n",
               (int)err);
        return;
    }
    const long crefs0 = cl_quiet_context_refs(), refs0 = cl_queue_refs(ooo);
    redscan_status st = redscan_create_on_opencl_queue(&c, ooo);
    const char *why = redscan_last_error(NULL);
    if (CHECK(st == REDSCAN_ERR_UNSUPPORTED, "out-of-order queue: %s, want REDSCAN_ERR_UNSUPPORTED (%s)",
              redscan_status_string(st), why ? why : "(null)"))
        CHECK(why && (strstr(why, "out-of-order") || strstr(why, "out of order") || strstr(why, "OUT_OF_ORDER")),
              "the message does not mention out-of-order: \"%s\"", why ? why : "(null)");
    if (st == REDSCAN_OK) redscan_destroy(c);
    else CHECK(c == NULL, "ctx written by a refused create");
    /* nothing retained by the refused create */
    long refs1 = -1, crefs1 = -1;
    cl_settled_refs(ooo, refs0, crefs0, &refs1, &crefs1);
    CHECK(refs1 == refs0 && crefs1 == crefs0,
          "reference counts queue %ld -> %ld, context %ld -> %ld after a refused create", refs0, refs1, crefs0, crefs1);
    clReleaseCommandQueue(ooo);
}
#endif

#ifdef REDSCAN_TEST_HAVE_CUDA
static void cuda_create_refusals(void)
{
    if (!h_case("cuda: create_on_cuda_stream refuses a device that does not exist and a NULL ctx pointer")) return;
    int count = 0;
    cu_ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    redscan_ctx *c = NULL;
    CHECK_STATUS(redscan_create_on_cuda_stream(&c, -1, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "device -1");
    CHECK_STATUS(redscan_create_on_cuda_stream(&c, count, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "device = count");
    CHECK_STATUS(redscan_create_on_cuda_stream(&c, 1 << 20, NULL), REDSCAN_ERR_INVALID_ARGUMENT, "device 2^20");
    CHECK(c == NULL, "ctx written by a refused create");
    CHECK_STATUS(redscan_create_on_cuda_stream(NULL, g_cu_dev, NULL), REDSCAN_ERR_INVALID_ARGUMENT,
                 "NULL ctx pointer");

    /* the legacy default stream (NULL) is allowed */
    if (!h_case("cuda: context on the legacy default stream")) return;
    if (!ok_on(NULL, cu_ctx_on(&c, NULL), "create_on_cuda_stream(stream NULL)")) return;
    int32_t x[1000];
    int64_t want = 0;
    for (int i = 0; i < 1000; i++) want += x[i] = i * 7 - 3000;
    redscan_buffer *in = buf_on(c, x, sizeof x, sizeof x), *res = buf_on(c, NULL, 0, 8);
    if (in && res) {
        const redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, REDSCAN_REDUCE_AUTO, 0};
        ok_on(c, redscan_reduce_async(c, &d, in, 1000, res, 0), "reduce_async");
        int64_t got = 0;
        if (ok_on(c, redscan_synchronize(c), "redscan_synchronize") &&
            ok_on(c, redscan_buffer_read(c, res, 0, &got, 8), "read"))
            CHECK(got == want, "sum %" PRId64 ", want %" PRId64, got, want);
    }
    if (in) redscan_buffer_destroy(c, in);
    if (res) redscan_buffer_destroy(c, res);
    redscan_destroy(c);
}

/* ---- 8. CUDA graph capture ---- */

#define GN 100003
#define GK 4
#define REPLAYS 100

typedef struct {
    int32_t ri[2];
    float rf[2];
    uint64_t idx;
    int32_t val;
    float tv[GK];
    uint64_t ti[GK];
    int32_t s1[GN];
    float s2[GN];
} graph_out; /* pinned */

/* The device memory of the sequence (cudaMalloc, wrapped). */
enum { G_XI, G_XF, G_RI, G_RF, G_S1, G_S2, G_IDX, G_VAL, G_TV, G_TI, G_COUNT };
static const size_t G_BYTES[G_COUNT] = {GN * 4, GN * 4, 2 * 4, 2 * 4, GN * 4, GN * 4, 8, 4, GK * 4, GK * 8};

static const float G_INIT = 0.25f;

/* The whole sequence on stream s: upload from pinned memory, the redscan calls, downloads to pinned memory.
 * Returns 0 (and reports which call and why) when any call fails. */
static int graph_sequence(redscan_ctx *c, cudaStream_t s, const int32_t *xi, const float *xf, void *const *d,
                          redscan_buffer *const *b, graph_out *o)
{
    const redscan_reduce_desc isum = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
    const redscan_reduce_desc fsum = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_COARSENED, 0};
    const redscan_reduce_desc fmax = {REDSCAN_MAX, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_SHUFFLE, 0};
    const redscan_scan_desc iscan = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_COARSENED,
                                     REDSCAN_GRID_REDUCE_THEN_SCAN, 0};
    const redscan_scan_desc fscan = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, 1, &G_INIT, REDSCAN_BLOCK_KOGGE_STONE,
                                     REDSCAN_GRID_SINGLE_PASS, 0};
    int ok = cu_ok(cudaMemcpyAsync(d[G_XI], xi, GN * 4, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync xi");
    ok &= cu_ok(cudaMemcpyAsync(d[G_XF], xf, GN * 4, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync xf");
    ok &= ok_on(c, redscan_reduce_async(c, &isum, b[G_XI], GN, b[G_RI], 0), "reduce_async int32 sum");
    ok &= ok_on(c, redscan_reduce_async(c, &fsum, b[G_XF], GN, b[G_RF], 0), "reduce_async float32 sum coarsened");
    ok &= ok_on(c, redscan_reduce_async(c, &fmax, b[G_XF], GN, b[G_RF], 1), "reduce_async float32 max shuffle");
    ok &= ok_on(c, redscan_scan_async(c, &iscan, b[G_XI], b[G_S1], GN), "scan_async coarsened/reduce_then_scan");
    ok &= ok_on(c, redscan_scan_async(c, &fscan, b[G_XF], b[G_S2], GN), "scan_async single_pass exclusive init");
    ok &= ok_on(c, redscan_argmax_async(c, REDSCAN_INT32, b[G_XI], GN, b[G_IDX], b[G_VAL]), "argmax_async");
    ok &= ok_on(c, redscan_topk_async(c, REDSCAN_FLOAT32, b[G_XF], GN, GK, 1, b[G_TV], b[G_TI]), "topk_async k = 4");
    ok &= cu_ok(cudaMemcpyAsync(o->ri, d[G_RI], sizeof o->ri, cudaMemcpyDeviceToHost, s), "D2H ri");
    ok &= cu_ok(cudaMemcpyAsync(o->rf, d[G_RF], sizeof o->rf, cudaMemcpyDeviceToHost, s), "D2H rf");
    ok &= cu_ok(cudaMemcpyAsync(o->s1, d[G_S1], sizeof o->s1, cudaMemcpyDeviceToHost, s), "D2H s1");
    ok &= cu_ok(cudaMemcpyAsync(o->s2, d[G_S2], sizeof o->s2, cudaMemcpyDeviceToHost, s), "D2H s2");
    ok &= cu_ok(cudaMemcpyAsync(&o->idx, d[G_IDX], 8, cudaMemcpyDeviceToHost, s), "D2H idx");
    ok &= cu_ok(cudaMemcpyAsync(&o->val, d[G_VAL], 4, cudaMemcpyDeviceToHost, s), "D2H val");
    ok &= cu_ok(cudaMemcpyAsync(o->tv, d[G_TV], sizeof o->tv, cudaMemcpyDeviceToHost, s), "D2H tv");
    ok &= cu_ok(cudaMemcpyAsync(o->ti, d[G_TI], sizeof o->ti, cudaMemcpyDeviceToHost, s), "D2H ti");
    return ok;
}

/* Returns whether everything matched (so that a broken replay loop stops after the first bad replay). */
static int graph_check(const int32_t *xi, const float *xf, const graph_out *o, const char *what)
{
    long f0 = h_failures();
    char g[96], w[96], msg[160];
    ref_val s = ref_reduce_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, xi, GN);
    CHECK(o->ri[0] == s.i32, "%s: int32 sum %d, want %d", what, o->ri[0], s.i32);
    ref_val m = ref_reduce_seq(REDSCAN_MAX, REDSCAN_FLOAT32, REDSCAN_FLOAT32, xf, GN);
    ref_val gm;
    gm.f32 = o->rf[1];
    CHECK(ref_bits_equal(REDSCAN_FLOAT32, gm, m) || (!ref_isnan(REDSCAN_FLOAT32, m) && gm.f32 == m.f32),
          "%s: float32 max %s, want %s", what, h_fmt(REDSCAN_FLOAT32, gm, g), h_fmt(REDSCAN_FLOAT32, m, w));
    int32_t *want_i = h_malloc(GN * 4);
    ref_scan_seq(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 0, NULL, xi, want_i, GN);
    snprintf(msg, sizeof msg, "%s: int32 scan", what);
    CHECK_BITS(REDSCAN_INT32, o->s1, want_i, GN, msg);
    free(want_i);
    if (h_exact_order()) {
        ref_val fs =
            ref_reduce_emulate(REDSCAN_REDUCE_COARSENED, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, xf, GN);
        ref_val gf;
        gf.f32 = o->rf[0];
        CHECK(ref_result_equal(REDSCAN_SUM, REDSCAN_FLOAT32, gf, fs), "%s: float32 sum %s, documented order %s", what,
              h_fmt(REDSCAN_FLOAT32, gf, g), h_fmt(REDSCAN_FLOAT32, fs, w));
        float *want_f = h_malloc(GN * 4);
        ref_scan_emulate_single_pass(REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, 1,
                                     &G_INIT, xf, want_f, GN);
        snprintf(msg, sizeof msg, "%s: float32 single_pass scan", what);
        CHECK_ARRAY(REDSCAN_SUM, REDSCAN_FLOAT32, o->s2, want_f, GN, msg);
        free(want_f);
    }
    uint64_t wi = ref_argext(REDSCAN_INT32, 1, xi, GN);
    CHECK(o->idx == wi && o->val == xi[wi], "%s: argmax %" PRIu64 " (%d), want %" PRIu64 " (%d)", what, o->idx, o->val,
          wi, xi[wi]);
    float tv[GK];
    uint64_t ti[GK];
    ref_topk(REDSCAN_FLOAT32, 1, xf, GN, GK, tv, ti);
    snprintf(msg, sizeof msg, "%s: top-4 values", what);
    CHECK_BITS(REDSCAN_FLOAT32, o->tv, tv, GK, msg);
    snprintf(msg, sizeof msg, "%s: top-4 indices", what);
    CHECK_BITS(REDSCAN_UINT64, o->ti, ti, GK, msg);
    return h_failures() == f0;
}

static void graph_input(unsigned replay, int32_t *xi, float *xf)
{
    h_rng r;
    h_rng_init(&r, h_seed(8, replay, 0, 0, 0, 0));
    h_generate(&r, REDSCAN_INT32, REDSCAN_SUM, GEN_PLAIN, xi, GN);
    h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, xf, GN);
}

static void cuda_graph(void)
{
    if (!h_case("cuda: reserve, warm-up, capture into a CUDA graph, %d replays on new input", REPLAYS)) return;
    cudaStream_t s = (cudaStream_t)cu_queue_new();
    if (!s) return;
    redscan_ctx *c = NULL;
    if (!ok_on(NULL, cu_ctx_on(&c, s), "create_on_cuda_stream")) {
        cu_queue_free(s);
        return;
    }
    void *d[G_COUNT] = {NULL};
    redscan_buffer *b[G_COUNT] = {NULL};
    int32_t *xi = cu_host_new(GN * 4);
    float *xf = cu_host_new(GN * 4);
    graph_out *o = cu_host_new(sizeof *o);
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    int ok = 1;
    for (int i = 0; i < G_COUNT && ok; i++)
        ok = (d[i] = cu_mem_new(G_BYTES[i])) && ok_on(c, redscan_buffer_wrap_cuda(c, d[i], G_BYTES[i], &b[i]), "wrap");
    if (!ok) goto out;
    ok &= ok_on(c, redscan_reserve(c, REDSCAN_INT32, GN), "redscan_reserve int32");
    ok &= ok_on(c, redscan_reserve(c, REDSCAN_FLOAT32, GN), "redscan_reserve float32");
    ok &= ok_on(c, redscan_reserve_topk(c, REDSCAN_FLOAT32, GN, GK), "redscan_reserve_topk");
    /* warm-up, not captured */
    graph_input(1000, xi, xf);
    ok &= graph_sequence(c, s, xi, xf, d, b, o) && cu_wait(s);
    if (!ok) goto out;
    graph_check(xi, xf, o, "warm-up (not captured)");

    if (!cu_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture")) goto out;
    int seq_ok = graph_sequence(c, s, xi, xf, d, b, o);
    cudaError_t e = cudaStreamEndCapture(s, &graph); /* always ends the capture, even after a failed call */
    if (!seq_ok) {
        printf("FAIL: a call failed while the stream was captured (see above)\n");
        goto out;
    }
    if (!cu_ok(e, "cudaStreamEndCapture") ||
        !cu_ok(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate"))
        goto out;
    for (unsigned rep = 0; rep < REPLAYS; rep++) {
        graph_input(rep, xi, xf); /* the graph's upload reads these pinned arrays when it runs */
        memset(o, 0xEE, sizeof *o);
        if (!cu_ok(cudaGraphLaunch(exec, s), "cudaGraphLaunch") || !cu_wait(s)) break;
        char what[40];
        snprintf(what, sizeof what, "replay %u", rep);
        if (!graph_check(xi, xf, o, what)) break;
    }
    /* the context still works un-captured after the replays */
    graph_input(2000, xi, xf);
    if (graph_sequence(c, s, xi, xf, d, b, o) && cu_wait(s)) graph_check(xi, xf, o, "after the replays");
out:
    if (exec) cu_ok(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
    if (graph) cu_ok(cudaGraphDestroy(graph), "cudaGraphDestroy");
    for (int i = 0; i < G_COUNT; i++) {
        if (b[i]) redscan_buffer_destroy(c, b[i]);
        if (d[i]) cu_mem_free(d[i]);
    }
    redscan_destroy(c);
    cu_queue_free(s);
    cu_host_free(xi);
    cu_host_free(xf);
    cu_host_free(o);
}
#endif

/* The cases on the caller's own queue / stream of the backend h_ctx runs on; 0 when the test was built without
 * that backend's API. */
static int native_cases(void)
{
    const char *backend = redscan_backend_name(h_ctx);
    double t0 = h_now();
#ifdef REDSCAN_TEST_HAVE_OPENCL
    if (!strcmp(backend, "opencl")) {
        void *cctx = NULL, *dev = NULL;
        if (!CHECK_OK(redscan_native_handle(h_ctx, REDSCAN_NATIVE_OPENCL_CONTEXT, &cctx), "native context") ||
            !CHECK_OK(redscan_native_handle(h_ctx, REDSCAN_NATIVE_OPENCL_DEVICE, &dev), "native device"))
            return 1;
        g_cl_ctx = (cl_context)cctx;
        g_cl_dev = (cl_device_id)dev;
        opencl_create_refusals();
        caller_queue_ordering(&CL_API);
        two_contexts(&CL_API);
        reserve_then_calls(&CL_API);
        printf("test_async: caller's queues %.1f s\n", h_now() - t0);
        return 1;
    }
#endif
#ifdef REDSCAN_TEST_HAVE_CUDA
    if (!strcmp(backend, "cuda")) {
        if (!cu_ok(cudaGetDevice(&g_cu_dev), "cudaGetDevice")) return 1;
        cuda_create_refusals();
        caller_queue_ordering(&CU_API);
        two_contexts(&CU_API);
        reserve_then_calls(&CU_API);
        cuda_graph();
        printf("test_async: caller's streams and graph %.1f s\n", h_now() - t0);
        return 1;
    }
#endif
    (void)backend;
    (void)t0;
    return 0;
}

int main(void)
{
    h_open("test_async");
    pick_sizes();
    {
        /* fp64: a device without it reports UNSUPPORTED (test_errors checks that path) */
        double one = 1, r = 0;
        if (redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &r) == REDSCAN_ERR_UNSUPPORTED) {
            g_have_fp64 = 0;
            printf("NOTE: no fp64 on this device: float64 cases skipped\n");
        }
    }
    CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize with nothing enqueued");
    error_cases();
    blocking_after_async();
    reduce_cases();
    scan_cases();
    select_cases();
    if (!native_cases())
        printf("NOTE: built without the native API of backend '%s': caller's queue/stream cases not run\n",
               redscan_backend_name(h_ctx));
    return h_done();
}
