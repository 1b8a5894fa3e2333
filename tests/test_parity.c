/* test_parity: the same inputs through every execution path this machine has — the backend CTest selects
 * (REDSCAN_BACKEND) first, then every other path — and the results must be the same bits for the same
 * algorithm: integers equal, floats bitwise equal (NaN payloads included), argmin/argmax/top-k indices equal.
 * Segments and keys too: segmented scan, scan by key, segmented reduce and reduce by key over one layout with every
 * class of the segmented scan's work division.
 *
 * Scans: every op x dtype x block x grid x inclusive/exclusive below 70001 values, except that below level 2 product,
 * min and max run one block per dtype (parity_block_runs).
 *
 * Paths: REDSCAN_PARITY_DEVICES="cuda;opencl:nvidia;opencl:portable" (an opencl entry's text after the colon is
 * a REDSCAN_OPENCL_DEVICE value), else every path found: cuda if usable, then OpenCL devices 0, 1, ... .
 * With a single path there is nothing to compare: the test is skipped (77) and says so, unless
 * REDSCAN_PARITY_MIN_PATHS=n asks for at least n paths (scripts/test.sh's Intel pass: 2, PoCL and Intel's runtime),
 * when fewer is a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_PATHS 8

typedef struct {
    redscan_ctx *ctx;
    char label[160];
} path;

static path paths[MAX_PATHS];
static int npaths;

static void add_path(redscan_ctx *ctx, const char *what)
{
    paths[npaths].ctx = ctx;
    snprintf(paths[npaths].label, sizeof paths[npaths].label, "%s (%s: %s)", what, redscan_backend_name(ctx),
             redscan_device_name(ctx));
    printf("path %d: %s\n", npaths, paths[npaths].label);
    npaths++;
}

/* Opens a context on another path. The program cache that REDSCAN_TEST_PROGRAM_CACHE=1 turned on is for the device
 * under test (h_ctx: scripts/test.sh's Intel pass, whose runtime keeps no compiled programs); the other paths build
 * from source as in the rest of the suite (on PoCL, writing an entry costs a compilation of every kernel of the
 * program, docs/CACHE.md). */
static redscan_ctx *open_other(redscan_backend backend)
{
    char *cache = h_program_cache_forced() ? h_env_swap("REDSCAN_CACHE", "0") : NULL;
    redscan_ctx *ctx = NULL;
    if (redscan_create(&ctx, backend) != REDSCAN_OK) ctx = NULL;
    if (h_program_cache_forced()) h_env_restore("REDSCAN_CACHE", cache);
    return ctx;
}

/* Opens an OpenCL context on REDSCAN_OPENCL_DEVICE=sel (restored afterwards). */
static redscan_ctx *open_opencl(const char *sel)
{
    char *saved = h_env_swap("REDSCAN_OPENCL_DEVICE", sel);
    redscan_ctx *ctx = open_other(REDSCAN_BACKEND_OPENCL);
    h_env_restore("REDSCAN_OPENCL_DEVICE", saved);
    return ctx;
}

static int same_device(redscan_ctx *ctx)
{
    for (int i = 0; i < npaths; i++)
        if (!strcmp(redscan_backend_name(paths[i].ctx), redscan_backend_name(ctx)) &&
            !strcmp(redscan_device_name(paths[i].ctx), redscan_device_name(ctx)))
            return 1;
    return 0;
}

static void open_paths(void)
{
    add_path(h_ctx, "REDSCAN_BACKEND");
    const char *list = getenv("REDSCAN_PARITY_DEVICES");
    if (list && *list) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", list);
        for (char *tok = strtok(buf, ";"); tok && npaths < MAX_PATHS; tok = strtok(NULL, ";")) {
            redscan_ctx *ctx = NULL;
            if (!strcmp(tok, "cuda")) {
                ctx = open_other(REDSCAN_BACKEND_CUDA);
            } else if (!strncmp(tok, "opencl:", 7)) {
                ctx = open_opencl(tok + 7);
            }
            /* A listed path that does not open is a failure: the caller said it exists. */
            if (!CHECK(ctx != NULL, "parity path '%s' could not be opened: %s", tok, redscan_last_error(NULL)))
                continue;
            if (same_device(ctx))
                redscan_destroy(ctx);
            else
                add_path(ctx, tok);
        }
        return;
    }
    redscan_ctx *ctx = open_other(REDSCAN_BACKEND_CUDA);
    if (ctx) {
        if (same_device(ctx))
            redscan_destroy(ctx);
        else
            add_path(ctx, "cuda");
    }
    for (int i = 0; i < 16 && npaths < MAX_PATHS; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        if (!(ctx = open_opencl(sel))) break;
        if (same_device(ctx))
            redscan_destroy(ctx);
        else
            add_path(ctx, "opencl device index");
    }
}

/* Runs `fn` on every path and compares its output bytes with path 0's. */
typedef redscan_status (*run_fn)(redscan_ctx *ctx, const void *arg, void *out, size_t out_bytes);

static void compare_paths(const char *what, run_fn fn, const void *arg, size_t out_bytes)
{
    unsigned char *want = h_malloc(out_bytes ? out_bytes : 1), *got = h_malloc(out_bytes ? out_bytes : 1);
    memset(want, 0, out_bytes); /* argext/top-k leave bytes past a 4-byte value untouched */
    redscan_status st0 = fn(paths[0].ctx, arg, want, out_bytes);
    for (int p = 1; p < npaths; p++) {
        memset(got, 0, out_bytes);
        redscan_status st = fn(paths[p].ctx, arg, got, out_bytes);
        if (st0 == REDSCAN_ERR_UNSUPPORTED || st == REDSCAN_ERR_UNSUPPORTED) continue; /* e.g. fp64 missing */
        if (!CHECK(st == st0, "%s: status %s on %s but %s on %s (%s)", what, redscan_status_string(st),
                   paths[p].label, redscan_status_string(st0), paths[0].label, redscan_last_error(paths[p].ctx)))
            continue;
        if (st != REDSCAN_OK) continue;
        size_t d = h_memdiff(got, want, out_bytes);
        CHECK(d == (size_t)-1, "%s: %s differs from %s from byte %zu", what, paths[p].label, paths[0].label, d);
    }
    free(want);
    free(got);
}

/* ---- the operations compared ---- */
typedef struct {
    const void *data;
    size_t n;
    redscan_reduce_desc rd;
    redscan_scan_desc sd;
    size_t k;
    int flag; /* argmax / largest */
} job;

static redscan_status run_reduce(redscan_ctx *ctx, const void *arg, void *out, size_t out_bytes)
{
    const job *j = arg;
    (void)out_bytes;
    return redscan_reduce_host_ex(ctx, &j->rd, j->data, j->n, out);
}

static redscan_status run_scan(redscan_ctx *ctx, const void *arg, void *out, size_t out_bytes)
{
    const job *j = arg;
    (void)out_bytes;
    return redscan_scan_host_ex(ctx, &j->sd, j->data, out, j->n);
}

static redscan_status run_argext(redscan_ctx *ctx, const void *arg, void *out, size_t out_bytes)
{
    const job *j = arg;
    (void)out_bytes;
    uint64_t *index = out;
    void *value = (unsigned char *)out + sizeof(uint64_t);
    return j->flag ? redscan_argmax_host(ctx, j->rd.dtype, j->data, j->n, index, value)
                   : redscan_argmin_host(ctx, j->rd.dtype, j->data, j->n, index, value);
}

static redscan_status run_topk(redscan_ctx *ctx, const void *arg, void *out, size_t out_bytes)
{
    const job *j = arg;
    (void)out_bytes;
    uint64_t *indices = out;
    return redscan_topk_host(ctx, j->rd.dtype, j->data, j->n, j->k, j->flag, indices + j->k, indices);
}

/* ---- segments and keys (issue 18: the same bits on every device): one layout of every class of the work division
 * (empty, 1..8, 9..256, 257..2048, longer: docs/ALGORITHMS.md, "Segmented scans"), through device buffers ---- */
typedef struct {
    const void *data;
    size_t n, S;
    const uint64_t *offsets; /* S + 1 */
    const int32_t *keys;     /* n: the segment index of each value (runs = the non-empty segments) */
    redscan_reduce_desc rd;
    redscan_scan_desc sd;
    int kind; /* 0 segmented scan, 1 scan by key, 2 segmented reduce, 3 reduce by key */
} seg_job;

static redscan_status run_segmented(redscan_ctx *ctx, const void *arg, void *out, size_t out_bytes)
{
    const seg_job *j = arg;
    const size_t vs = redscan_dtype_size(j->rd.dtype);
    redscan_buffer *in = NULL, *off = NULL, *keys = NULL, *o1 = NULL, *o2 = NULL;
    redscan_status st = redscan_buffer_create(ctx, j->n * vs, &in);
    if (st == REDSCAN_OK) st = redscan_buffer_write(ctx, in, 0, j->data, j->n * vs);
    if (st == REDSCAN_OK) st = redscan_buffer_create(ctx, (j->S + 1) * 8, &off);
    if (st == REDSCAN_OK) st = redscan_buffer_write(ctx, off, 0, j->offsets, (j->S + 1) * 8);
    if (st == REDSCAN_OK) st = redscan_buffer_create(ctx, j->n * 4, &keys);
    if (st == REDSCAN_OK) st = redscan_buffer_write(ctx, keys, 0, j->keys, j->n * 4);
    if (st == REDSCAN_OK) st = redscan_buffer_create(ctx, out_bytes, &o1);
    if (st == REDSCAN_OK) st = redscan_buffer_write(ctx, o1, 0, out, out_bytes); /* untouched bytes compare too */
    if (st == REDSCAN_OK && j->kind == 3) st = redscan_buffer_create(ctx, j->n * 4, &o2);
    size_t runs = 0;
    if (st == REDSCAN_OK) {
        if (j->kind == 0) st = redscan_segmented_scan(ctx, &j->sd, in, REDSCAN_UINT64, off, j->S, o1);
        else if (j->kind == 1) st = redscan_scan_by_key(ctx, &j->sd, REDSCAN_INT32, keys, in, o1, j->n);
        else if (j->kind == 2) st = redscan_segmented_reduce(ctx, &j->rd, in, REDSCAN_UINT64, off, j->S, o1);
        else st = redscan_reduce_by_key(ctx, &j->rd, REDSCAN_INT32, keys, in, j->n, o2, o1, &runs);
    }
    if (st == REDSCAN_OK) st = redscan_buffer_read(ctx, o1, 0, out, out_bytes);
    if (st == REDSCAN_OK && j->kind == 3) memcpy(out, &runs, sizeof runs); /* the run count over the first bytes */
    redscan_buffer *all[] = {in, off, keys, o1, o2};
    for (int i = 0; i < 5; i++)
        if (all[i]) redscan_buffer_destroy(ctx, all[i]);
    return st;
}

/* lengths cycling through the classes, in a fixed pseudo-random order; returns S */
static size_t seg_layout(size_t n, uint64_t *offsets, int32_t *keys)
{
    static const size_t lens[] = {0, 1, 3, 8, 9, 40, 64, 65, 200, 256, 257, 1000, 2048, 2049, 5000, 0, 1, 1, 2, 7};
    h_rng r;
    h_rng_init(&r, h_seed(2, n, 0, 0, 0, 0));
    size_t S = 0, p = 0;
    offsets[0] = 0;
    while (p < n) {
        size_t len = lens[h_rng_below(&r, sizeof lens / sizeof lens[0])];
        if (len > n - p) len = n - p;
        for (size_t i = 0; i < len; i++) keys[p + i] = (int32_t)S;
        p += len;
        offsets[++S] = p;
    }
    return S;
}

/* Below level 2 the scan matrix builds fewer programs (each block is a program per op x dtype, and on PoCL a cold
 * build takes seconds): the sum, whose float bits depend on the block's order, runs every block; product, min and
 * max run one, (dtype + op) % 4, so that over the six dtypes each of them still meets every block with every grid.
 * Level 2: every block with every op. */
static int parity_block_runs(int di, int op, int b)
{
    if (h_level() >= 2 || op == REDSCAN_SUM) return 1;
    const int nblocks = REDSCAN_BLOCK_COARSENED - REDSCAN_BLOCK_KOGGE_STONE + 1;
    return b - REDSCAN_BLOCK_KOGGE_STONE == (di + op) % nblocks;
}

static const redscan_dtype dtypes[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64,
                                       REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};

int main(void)
{
    h_open("test_parity");
    open_paths();
    const char *min_env = getenv("REDSCAN_PARITY_MIN_PATHS");
    const int min_paths = min_env && *min_env ? atoi(min_env) : 0;
    if (npaths < min_paths) {
        CHECK(0, "%d execution path(s) here, REDSCAN_PARITY_MIN_PATHS=%d asks for at least that many", npaths,
              min_paths);
        for (int p = 1; p < npaths; p++) redscan_destroy(paths[p].ctx);
        return h_done();
    }
    if (npaths < 2) {
        printf("SKIP test_parity: only one execution path here (%s); nothing to compare\n", paths[0].label);
        redscan_destroy(h_ctx);
        return H_SKIP;
    }
    const size_t big = h_level() == 0 ? 70001 : ((size_t)1 << 20) + 3;
    const size_t sizes[] = {1, 255, 2049, 4097, 70001, big};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]) - (big == 70001); /* level 0: 70001 once, not twice */
    void *data = h_malloc(big * 8);
    for (int di = 0; di < 6; di++) {
        const redscan_dtype dt = dtypes[di];
        const redscan_dtype wide = (dt == REDSCAN_INT32)     ? REDSCAN_INT64
                                   : (dt == REDSCAN_UINT32)  ? REDSCAN_UINT64
                                   : (dt == REDSCAN_FLOAT32) ? REDSCAN_FLOAT64
                                                             : (redscan_dtype)0;
        const size_t osize = redscan_dtype_size(wide ? wide : dt);
        for (int op = REDSCAN_SUM; op <= REDSCAN_MAX; op++) {
            for (int g = 0; g < h_gen_count(dt); g++) {
                for (int si = 0; si < nsizes; si++) {
                    const size_t n = sizes[si];
                    h_rng r;
                    h_rng_init(&r, h_seed(1, (uint64_t)dt, (uint64_t)op, (uint64_t)g, n, 0));
                    h_generate(&r, dt, (redscan_op)op, (h_gen)g, data, n);
                    job j = {data, n, {(redscan_op)op, dt, 0, REDSCAN_REDUCE_AUTO, 0}, {0}, 0, 0};
                    for (int algo = REDSCAN_REDUCE_TREE; algo <= REDSCAN_REDUCE_COARSENED; algo++) {
                        for (int w = 0; w <= (wide != 0); w++) {
                            j.rd.algo = (redscan_reduce_algo)algo;
                            j.rd.out_dtype = w ? wide : (redscan_dtype)0;
                            if (h_case("reduce %s %s->%s %s n=%zu gen=%s", redscan_op_name((redscan_op)op),
                                       redscan_dtype_name(dt), w ? redscan_dtype_name(wide) : "same",
                                       h_algo_str(j.rd.algo), n, h_gen_name((h_gen)g)))
                                compare_paths(h_case_str(), run_reduce, &j, w ? osize : redscan_dtype_size(dt));
                        }
                    }
                    if (n > 70001) continue; /* scans: the block x grid matrix at the smaller sizes */
                    for (int b = REDSCAN_BLOCK_KOGGE_STONE; b <= REDSCAN_BLOCK_COARSENED; b++) {
                        if (!parity_block_runs(di, op, b)) continue;
                        /* AUTO included: CUDA runs it as single_pass, OpenCL with chain-ordered carries */
                        for (int gr = REDSCAN_GRID_AUTO; gr <= REDSCAN_GRID_SINGLE_PASS; gr++) {
                            for (int ex = 0; ex <= 1; ex++) {
                                const int w = (wide != 0) && ex == 1;
                                redscan_scan_desc sd = {(redscan_op)op, dt, w ? wide : (redscan_dtype)0, ex, NULL,
                                                        (redscan_block_scan)b, (redscan_grid_scan)gr, 0};
                                j.sd = sd;
                                if (h_case("scan %s %s%s %s/%s %s n=%zu gen=%s", redscan_op_name((redscan_op)op),
                                           redscan_dtype_name(dt), w ? "->wide" : "", h_block_str(sd.block),
                                           h_grid_str(sd.grid), ex ? "exclusive" : "inclusive", n,
                                           h_gen_name((h_gen)g)))
                                    compare_paths(h_case_str(), run_scan, &j,
                                                  n * (w ? osize : redscan_dtype_size(dt)));
                            }
                        }
                    }
                    if (op == REDSCAN_MIN || op == REDSCAN_MAX) {
                        j.rd.dtype = dt;
                        j.flag = op == REDSCAN_MAX;
                        if (h_case("arg%s %s n=%zu gen=%s", j.flag ? "max" : "min", redscan_dtype_name(dt), n,
                                   h_gen_name((h_gen)g)))
                            compare_paths(h_case_str(), run_argext, &j, 16);
                        j.k = n < 16 ? n : 16;
                        if (h_case("top%zu %s %s n=%zu gen=%s", j.k, j.flag ? "largest" : "smallest",
                                   redscan_dtype_name(dt), n, h_gen_name((h_gen)g)))
                            compare_paths(h_case_str(), run_topk, &j, j.k * 16);
                    }
                }
            }
        }
    }
    /* segments and keys: float32 / int32 / float64, sum and max, inclusive and exclusive */
    const size_t seg_n = h_level() == 0 ? 70001 : 300007;
    uint64_t *offsets = h_malloc((seg_n + 1) * 8);
    int32_t *keys = h_malloc(seg_n * 4);
    const size_t S = seg_layout(seg_n, offsets, keys);
    static const redscan_dtype seg_dt[] = {REDSCAN_FLOAT32, REDSCAN_INT32, REDSCAN_FLOAT64};
    static const char *kinds[] = {"segmented scan", "scan by key", "segmented reduce", "reduce by key"};
    for (int di = 0; di < 3; di++) {
        const redscan_dtype dt = seg_dt[di];
        h_rng r;
        h_rng_init(&r, h_seed(3, (uint64_t)dt, 0, 0, seg_n, 0));
        h_generate(&r, dt, REDSCAN_SUM, (h_gen)0, data, seg_n);
        for (int op = REDSCAN_SUM; op <= REDSCAN_MAX; op += REDSCAN_MAX - REDSCAN_SUM) {
            for (int kind = 0; kind < 4; kind++) {
                for (int ex = 0; ex <= (kind < 2); ex++) {
                    seg_job j = {data, seg_n, S, offsets, keys, {(redscan_op)op, dt, 0, REDSCAN_REDUCE_AUTO, 0},
                                 {(redscan_op)op, dt, 0, ex, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0}, kind};
                    const size_t bytes = (kind < 2 ? seg_n : S) * redscan_dtype_size(dt);
                    if (h_case("%s %s %s%s n=%zu segments=%zu", kinds[kind], redscan_op_name((redscan_op)op),
                               redscan_dtype_name(dt), ex ? " exclusive" : "", seg_n, S))
                        compare_paths(h_case_str(), run_segmented, &j, bytes);
                }
            }
        }
    }
    free(offsets);
    free(keys);
    free(data);
    for (int p = 1; p < npaths; p++) redscan_destroy(paths[p].ctx);
    return h_done();
}
