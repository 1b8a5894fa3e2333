/* kernel_check: every OpenCL kernel of every operation once, at small sizes, with the results checked bit for bit
 * against the documented orders (tests/reference.h). It is the driver for kernel checkers such as Oclgrind
 * (scripts/oclgrind.sh), which run each kernel in an interpreter: the whole suite would take hours there, this
 * takes minutes. Not a CTest test (the suite covers the same cases at more sizes).
 *
 * Cases, each at a size with a tail in one group and at one with several groups and passes:
 *   reductions: tree, interleaved, coarsened (and warp_sync / shuffle where the device has them) x sum, prod, min,
 *     max x int32, uint32, int64, uint64, float32, float64 and the widenings int32 -> int64, float32 -> float64,
 *     through the blocking call and through redscan_reduce_async into a later element of a buffer;
 *   scans: every block x grid (AUTO included: its carries come from scan_totals_chain), inclusive and exclusive with
 *     an init value, sum and max, int32, float32, float64 and a widening, and one size with two levels of section
 *     totals;
 *   argmin / argmax of every dtype; top-k for k = 1, 2, 5, 8, 20 (each first-pass kernel), both directions.
 * Run it once more with REDSCAN_OPENCL_SHAPE=gpu on a CPU device to reach the GPU-shaped kernels (AUTO there uses
 * the CPU-shaped ones). Algorithms the device cannot run (REDSCAN_ERR_UNSUPPORTED) are listed, not failed.
 *
 *   kernel_check [reduce|scan|single_pass|select]    one family only (scan: the AUTO, hierarchical and
 *                                                    reduce_then_scan grids; single_pass: that grid); no argument:
 *                                                    all of them */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const redscan_dtype g_dtypes[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64,
                                         REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
#define NDTYPES (sizeof g_dtypes / sizeof g_dtypes[0])
static long g_unsupported;
/* The device buffers, made once for the whole run and reused by every case, and the library's workspace sized once
 * up front (redscan_reserve_topk for every dtype at the largest size): Oclgrind 21.10 takes the bytes of a new
 * buffer that reuses a released one's memory for never written past the old size (docs/RELIABILITY.md), so nothing
 * may be released and made again during the run. */
#define MAX_N 70000
static redscan_buffer *g_in, *g_out, *g_res;
static const char *g_family; /* NULL: every family */

static int wanted(const char *family) { return !g_family || !strcmp(g_family, family); }

static redscan_buffer *input(const void *x, size_t bytes)
{
    return CHECK_OK(redscan_buffer_write(h_ctx, g_in, 0, x, bytes), "writing the input") ? g_in : NULL;
}

/* n values of dt for op, with edge values mixed in (h_generate's GEN_EDGE). */
static void *make_input(redscan_dtype dt, redscan_op op, size_t n, uint64_t seed)
{
    void *x = h_malloc(n * ref_size(dt) + 8);
    h_rng r;
    h_rng_init(&r, seed);
    h_generate(&r, dt, op, GEN_EDGE, x, n);
    return x;
}

static int unsupported(redscan_status st, const char *what)
{
    if (st != REDSCAN_ERR_UNSUPPORTED) return 0;
    if (h_verbose()) printf("  unsupported here: %s: %s\n", what, h_last_error());
    g_unsupported++;
    return 1;
}

static void reduce_case(redscan_reduce_algo algo, redscan_op op, redscan_dtype dt, redscan_dtype out, size_t n)
{
    if (!h_case("reduce %s %s %s->%s n=%zu", h_algo_str(algo), ref_op_str(op), ref_dtype_str(dt),
                ref_dtype_str(out), n))
        return;
    void *x = make_input(dt, op, n, h_seed(1, (uint64_t)algo, (uint64_t)op, (uint64_t)dt, (uint64_t)out, n));
    redscan_buffer *in = input(x, n * ref_size(dt)), *res = g_res;
    const redscan_reduce_algo emu = algo == REDSCAN_REDUCE_WARP_SYNC || algo == REDSCAN_REDUCE_SHUFFLE
                                        ? REDSCAN_REDUCE_TREE : algo;
    const ref_val want = ref_reduce_emulate(emu, op, dt, out, x, n);
    redscan_reduce_desc d = {op, dt, out, algo, 0};
    ref_val got = ref_zero();
    redscan_status st = in && res ? redscan_reduce_ex(h_ctx, &d, in, n, &got) : REDSCAN_ERR_DEVICE;
    if (!unsupported(st, "reduce") && CHECK_OK(st, "redscan_reduce_ex")) {
        char a[96], b[96];
        CHECK(ref_result_equal(op, out, got, want), "got %s, documented order gives %s", h_fmt(out, got, a),
              h_fmt(out, want, b));
        /* The async form into element 2: the last pass writes at an offset. */
        ref_val dev = ref_zero();
        if (CHECK_OK(redscan_reduce_async(h_ctx, &d, in, n, res, 2), "redscan_reduce_async") &&
            CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize") &&
            CHECK_OK(redscan_buffer_read(h_ctx, res, 2 * ref_size(out), &dev, ref_size(out)), "read"))
            CHECK(ref_bits_equal(out, dev, got), "async result %s differs from the blocking %s", h_fmt(out, dev, a),
                  h_fmt(out, got, b));
    }
    free(x);
}

static void reductions(void)
{
    static const redscan_reduce_algo algos[] = {REDSCAN_REDUCE_TREE, REDSCAN_REDUCE_INTERLEAVED,
                                                REDSCAN_REDUCE_COARSENED, REDSCAN_REDUCE_WARP_SYNC,
                                                REDSCAN_REDUCE_SHUFFLE};
    /* 300: one group with a tail; 9000: several groups, and two passes for every tile (coarsened: 4096). */
    static const size_t sizes[] = {300, 9000};
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
        for (int op = REDSCAN_SUM; op <= REDSCAN_MAX; op++)
            for (size_t d = 0; d < NDTYPES; d++)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                    const redscan_dtype dt = g_dtypes[d];
                    reduce_case(algos[a], (redscan_op)op, dt, dt, sizes[s]);
                    if (ref_widening(dt) && op == REDSCAN_SUM)
                        reduce_case(algos[a], (redscan_op)op, dt, ref_widening(dt), sizes[s]);
                }
}

static void scan_case(redscan_block_scan block, redscan_grid_scan grid, redscan_op op, redscan_dtype dt,
                      redscan_dtype out, int exclusive, size_t n)
{
    if (!h_case("scan %s/%s %s %s->%s %s n=%zu", h_block_str(block), h_grid_str(grid), ref_op_str(op),
                ref_dtype_str(dt), ref_dtype_str(out), exclusive ? "exclusive" : "inclusive", n))
        return;
    const size_t ib = n * ref_size(dt), ob = n * ref_size(out);
    void *x = make_input(dt, op, n, h_seed(2, (uint64_t)block, (uint64_t)grid, (uint64_t)op, (uint64_t)dt, n));
    void *want = h_malloc(ob), *got = h_malloc(ob);
    ref_val init = ref_identity(op, out);
    if (op == REDSCAN_SUM) init = ref_convert(dt, out, ref_load(dt, x, 0)); /* a seed that is not the identity */
    h_scan_emulate(block, grid, op, dt, out, exclusive, &init, x, want, n);
    redscan_buffer *in = input(x, ib), *o = g_out;
    redscan_scan_desc d = {op, dt, out, exclusive, &init, block, grid, 0};
    redscan_status st = in && o ? redscan_scan_ex(h_ctx, &d, in, o, n) : REDSCAN_ERR_DEVICE;
    if (!unsupported(st, "scan") && CHECK_OK(st, "redscan_scan_ex") &&
        CHECK_OK(redscan_buffer_read(h_ctx, o, 0, got, ob), "read"))
        CHECK_ARRAY(op, out, got, want, n, "scan output against the documented order");
    free(x);
    free(want);
    free(got);
}

static void scans(void)
{
    static const struct {
        redscan_op op;
        redscan_dtype dt, out;
    } types[] = {{REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32},     {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32},
                 {REDSCAN_MAX, REDSCAN_FLOAT64, REDSCAN_FLOAT64}, {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64},
                 {REDSCAN_MIN, REDSCAN_UINT64, REDSCAN_UINT64}};
    /* 200: one section with a tail; 5000: several sections for every block scan (the largest, coarsened, is 2048);
     * 70000: two levels of totals for the 256-value blocks (once, int32). */
    static const size_t sizes[] = {200, 5000};
    for (int b = REDSCAN_BLOCK_KOGGE_STONE; b <= REDSCAN_BLOCK_COARSENED; b++)
        for (int g = REDSCAN_GRID_AUTO; g <= REDSCAN_GRID_SINGLE_PASS; g++) {
            if (!wanted(g == REDSCAN_GRID_SINGLE_PASS ? "single_pass" : "scan")) continue;
            for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
                for (int excl = 0; excl < 2; excl++)
                    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                        scan_case((redscan_block_scan)b, (redscan_grid_scan)g, types[t].op, types[t].dt,
                                  types[t].out, excl, sizes[s]);
            scan_case((redscan_block_scan)b, (redscan_grid_scan)g, REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 0,
                      70000);
        }
}

static void selections(void)
{
    static const size_t sizes[] = {1, 3000};
    static const size_t ks[] = {1, 2, 5, 8, 20};
    for (size_t d = 0; d < NDTYPES; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const redscan_dtype dt = g_dtypes[d];
            const size_t n = sizes[s];
            void *x = make_input(dt, REDSCAN_MAX, n, h_seed(3, (uint64_t)dt, n, 0, 0, 0));
            redscan_buffer *in = input(x, n * ref_size(dt));
            for (int want_max = 0; want_max < 2 && in; want_max++) {
                if (h_case("%s %s n=%zu", want_max ? "argmax" : "argmin", ref_dtype_str(dt), n)) {
                    uint64_t idx = 0;
                    if (CHECK_OK((want_max ? redscan_argmax : redscan_argmin)(h_ctx, dt, in, n, &idx, NULL), "argext"))
                        CHECK(idx == ref_argext(dt, want_max, x, n), "index %llu, want %llu",
                              (unsigned long long)idx, (unsigned long long)ref_argext(dt, want_max, x, n));
                }
                for (size_t k = 0; k < sizeof ks / sizeof ks[0] && ks[k] <= n; k++) {
                    if (!h_case("top-%zu %s %s n=%zu", ks[k], want_max ? "largest" : "smallest", ref_dtype_str(dt), n))
                        continue;
                    unsigned char vals[20 * 8], wvals[20 * 8];
                    uint64_t idx[20], widx[20];
                    ref_topk(dt, want_max, x, n, ks[k], wvals, widx);
                    if (CHECK_OK(redscan_topk(h_ctx, dt, in, n, ks[k], want_max, vals, idx), "topk")) {
                        CHECK_MEM(idx, widx, ks[k] * sizeof idx[0], "top-k indices");
                        CHECK_MEM(vals, wvals, ks[k] * ref_size(dt), "top-k values");
                    }
                }
            }
            free(x);
        }
}

/* argv[1], optional: one family of cases (the others are not run), so that a checker can run the families in
 * separate processes, in parallel (scripts/oclgrind.sh says why it must). */
static const char *const g_families[] = {"reduce", "scan", "single_pass", "select"};

int main(int argc, char **argv)
{
    const char *family = argc > 1 ? argv[1] : NULL;
    int known = !family;
    for (size_t f = 0; f < sizeof g_families / sizeof g_families[0]; f++)
        known |= family && !strcmp(family, g_families[f]);
    if (argc > 2 || !known) {
        fprintf(stderr, "usage: %s [reduce|scan|single_pass|select]   (no argument: all of them)\n", argv[0]);
        return 2;
    }
    g_family = family;
    h_open("kernel_check");
    g_in = h_buffer(MAX_N * 8);
    g_out = h_buffer(MAX_N * 8);
    g_res = h_buffer(4 * 8);
    if (!g_in || !g_out || !g_res) return h_done();
    for (size_t d = 0; d < NDTYPES; d++)
        CHECK_OK(redscan_reserve_topk(h_ctx, g_dtypes[d], MAX_N, 20), "redscan_reserve_topk");
    const double t0 = h_now();
    if (wanted("reduce")) reductions();
    const double t1 = h_now();
    if (wanted("scan") || wanted("single_pass")) scans();
    const double t2 = h_now();
    if (wanted("select")) selections();
    printf("kernel_check%s%s: reductions %.1f s, scans %.1f s, argmin/argmax/top-k %.1f s; %ld cases unsupported here\n",
           family ? " " : "", family ? family : "", t1 - t0, t2 - t1, h_now() - t2, g_unsupported);
    redscan_buffer_destroy(h_ctx, g_in);
    redscan_buffer_destroy(h_ctx, g_out);
    redscan_buffer_destroy(h_ctx, g_res);
    return h_done();
}
