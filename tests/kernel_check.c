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
 *     an init value (each type one mode at each size, alternating), sum, min and max, int32, float32, float64,
 *     uint64 and a widening, and one size with two levels of section totals;
 *   argmin / argmax of every dtype; top-k for k = 1, 2, 5, 8, 20 (each first-pass kernel), both directions;
 *   the narrow types (their loads, float16 / bfloat16 through float32 and the rounding store, the narrow integers'
 *   wrap-around), a few cases each: reductions int8 sum, uint16 -> uint32 sum, float16 sum into float16, bfloat16
 *   max (every algorithm, both sizes); scans float16 inclusive sum into float16, bfloat16 exclusive max, int8
 *   inclusive sum, uint16 -> uint32 exclusive sum (every block x grid, at one size with several sections);
 *   argmin / argmax / top-k of float16 at the larger size;
 *   segments (family "segmented", function segmented() below: segmented reduce, argmin / argmax, scans, scan by key
 *   and reduce by key);
 *   the scan parts (family "scan"): int32 sum, float16 -> float16 sum, bfloat16 -> float32 max at odd offsets.
 * Run it once more with REDSCAN_OPENCL_SHAPE=gpu on a CPU device to reach the GPU-shaped kernels (AUTO there uses
 * the CPU-shaped ones). Algorithms the device cannot run (REDSCAN_ERR_UNSUPPORTED) are listed, not failed.
 *
 *   kernel_check [reduce|scan|single_pass|select|segmented]    one family only (scan: the AUTO, hierarchical and
 *                                                    reduce_then_scan grids; single_pass: that grid); no argument:
 *                                                    all of them */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const redscan_dtype g_dtypes[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64,
                                         REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
#define NDTYPES (sizeof g_dtypes / sizeof g_dtypes[0])
/* The narrow types' cases (a few: Oclgrind's time is the limit). Reductions and scans: op, dtype, output dtype. */
static const struct {
    redscan_op op;
    redscan_dtype dt, out;
    int exclusive; /* scans */
} g_narrow[] = {{REDSCAN_SUM, REDSCAN_INT8, REDSCAN_INT8, 0},
                {REDSCAN_SUM, REDSCAN_UINT16, REDSCAN_UINT32, 1},
                {REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0},
                {REDSCAN_MAX, REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 1}};
#define NNARROW (sizeof g_narrow / sizeof g_narrow[0])
/* argmin / argmax / top-k: float16, whose keys go through rs_half_to_float (the other narrow types load and compare
 * like the wide ones) */
static const redscan_dtype g_narrow_select[] = {REDSCAN_FLOAT16};
#define NNARROW_SELECT (sizeof g_narrow_select / sizeof g_narrow_select[0])
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

/* n values of dt for op, with edge values mixed in (h_generate's GEN_EDGE).
 * float16: no negative value with the exponent field 0 or 31 (-0.0, negative subnormals, -inf, negative NaNs: their sign
 * is cleared). Oclgrind converts those wrongly in rs_half_to_float: clang lowers its exponent test to a `trunc` to i5
 * and a `switch`, and Oclgrind's trunc does not mask to 5 bits (docs/RELIABILITY.md, "Kernel checkers";
 * scripts/oclgrind-repro/trunc_switch.c). The suite checks those patterns on the real devices (test_narrow,
 * test_reduce, test_scan); here they would only fail the run on Oclgrind's account. */
static void *make_input(redscan_dtype dt, redscan_op op, size_t n, uint64_t seed)
{
    void *x = h_malloc(n * ref_size(dt) + 8);
    h_rng r;
    h_rng_init(&r, seed);
    h_generate(&r, dt, op, GEN_EDGE, x, n);
    if (dt == REDSCAN_FLOAT16)
        for (size_t i = 0; i < n; i++) {
            uint16_t *b = (uint16_t *)x + i;
            const unsigned e = (*b >> 10) & 0x1fu;
            if (e == 0 || e == 0x1f) *b &= 0x7fffu;
        }
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
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++)
        for (size_t t = 0; t < NNARROW; t++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                reduce_case(algos[a], g_narrow[t].op, g_narrow[t].dt, g_narrow[t].out, sizes[s]);
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
     * 70000: two levels of totals for the 256-value blocks (once, int32). Each type runs inclusive at one size and
     * exclusive at the other, alternating by type: every block x grid still meets both modes at both sizes, and
     * every type both modes (Oclgrind interprets every work-item; the gpu scan job took 274 s of the step's 407 on a
     * cold CI run, 2026-12-06). */
    static const size_t sizes[] = {200, 5000};
    for (int b = REDSCAN_BLOCK_KOGGE_STONE; b <= REDSCAN_BLOCK_COARSENED; b++)
        for (int g = REDSCAN_GRID_AUTO; g <= REDSCAN_GRID_SINGLE_PASS; g++) {
            if (!wanted(g == REDSCAN_GRID_SINGLE_PASS ? "single_pass" : "scan")) continue;
            for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                    scan_case((redscan_block_scan)b, (redscan_grid_scan)g, types[t].op, types[t].dt, types[t].out,
                              (int)((t + s) % 2), sizes[s]);
            scan_case((redscan_block_scan)b, (redscan_grid_scan)g, REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 0,
                      70000);
            /* the narrow types at 2500: two sections of coarsened's 2048 (the second with a tail), five of 512 */
            for (size_t t = 0; t < NNARROW; t++)
                scan_case((redscan_block_scan)b, (redscan_grid_scan)g, g_narrow[t].op, g_narrow[t].dt, g_narrow[t].out,
                          g_narrow[t].exclusive, 2500);
        }
}

/* The scan parts (redscan_scan_section_totals / _with_carries) at odd element offsets, in buffers that end exactly at
 * in_off + n / out_off + n (an access past the range is out of bounds for Oclgrind): totals -> the single_pass chain
 * on the host -> with_carries, against the AUTO scan's documented order of the range. */
static void scan_parts_case(redscan_op op, redscan_dtype dt, redscan_dtype out, int exclusive, size_t n, size_t in_off,
                            size_t out_off)
{
    if (!h_case("scan parts %s %s->%s %s n=%zu in_offset=%zu out_offset=%zu", ref_op_str(op), ref_dtype_str(dt),
                ref_dtype_str(out), exclusive ? "exclusive" : "inclusive", n, in_off, out_off))
        return;
    const redscan_dtype C = ref_is_narrow_float(out) ? REDSCAN_FLOAT32 : out; /* the carries' type (no narrow ints here) */
    const size_t is = ref_size(dt), os = ref_size(out), cs = ref_size(C), count = (n + 2047) / 2048;
    unsigned char *x = make_input(dt, op, n, h_seed(9, (uint64_t)op, (uint64_t)dt, (uint64_t)out, n, in_off));
    unsigned char *src = h_malloc((in_off + n) * is), *got = h_malloc(n * os), *want = h_malloc(n * os);
    unsigned char *S = h_malloc(count * cs), *P = h_malloc(count * cs);
    memset(src, 0x3c, in_off * is);
    memcpy(src + in_off * is, x, n * is);
    ref_val init = ref_identity(op, out);
    if (op == REDSCAN_SUM) init = ref_convert(dt, out, ref_load(dt, x, 0));
    ref_scan_emulate_grid(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, op, dt, out, exclusive, &init, x, want, n);
    redscan_buffer *in = h_buffer_with(src, (in_off + n) * is, (in_off + n) * is, 0, ref_zero());
    redscan_buffer *o = h_buffer((out_off + n) * os), *tb = h_buffer(count * cs), *cb = h_buffer(count * cs);
    const redscan_scan_desc d = {op, dt, out, exclusive, &init, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    if (in && o && tb && cb &&
        CHECK_OK(redscan_scan_section_totals(h_ctx, &d, in, in_off, n, tb), "redscan_scan_section_totals") &&
        CHECK_OK(redscan_buffer_read(h_ctx, tb, 0, S, count * cs), "read totals")) {
        ref_val A = C == out ? init : ref_convert(out, C, init), W = ref_zero();
        for (size_t j = 0; j < count; j++) { /* the single_pass chain (docs/ALGORITHMS.md, "Grid level") */
            const ref_val sj = ref_load(C, S, j);
            if (j % 32 == 0 && j > 0) A = ref_combine(op, C, A, W);
            ref_store(C, P, j, j % 32 ? ref_combine(op, C, A, W) : A);
            W = j % 32 ? ref_combine(op, C, W, sj) : sj;
        }
        if (CHECK_OK(redscan_buffer_write(h_ctx, cb, 0, P, count * cs), "write carries") &&
            CHECK_OK(redscan_scan_with_carries(h_ctx, &d, in, in_off, o, out_off, n, cb), "redscan_scan_with_carries") &&
            CHECK_OK(redscan_synchronize(h_ctx), "synchronize") &&
            CHECK_OK(redscan_buffer_read(h_ctx, o, out_off * os, got, n * os), "read"))
            CHECK_ARRAY(op, out, got, want, n, "scan parts against the AUTO order of the range");
    }
    if (in) redscan_buffer_destroy(h_ctx, in);
    if (o) redscan_buffer_destroy(h_ctx, o);
    if (tb) redscan_buffer_destroy(h_ctx, tb);
    if (cb) redscan_buffer_destroy(h_ctx, cb);
    free(x);
    free(src);
    free(got);
    free(want);
    free(S);
    free(P);
}

static void selections(void)
{
    static const size_t sizes[] = {1, 3000};
    static const size_t ks[] = {1, 2, 5, 8, 20};
    for (size_t d = 0; d < NDTYPES + NNARROW_SELECT; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const redscan_dtype dt = d < NDTYPES ? g_dtypes[d] : g_narrow_select[d - NDTYPES];
            const size_t n = sizes[s];
            if (d >= NDTYPES && n == 1) continue; /* the narrow types: the larger size only */
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

/* ---------------------------------------------------------------- segments (family "segmented")
 * Kept in a function of its own (branch seg): segmented reduce, argmin and argmax (kernels_cl/segmented.cl: seg_check,
 * seg_queue_zero, seg_short, seg_medium, seg_tiles_in / _t in both programs), segmented scans and scan by key
 * (segmented_scan.cl) over one layout with every kind of segment (empty, one element, the chunk edges 4095 / 4096 /
 * 4097, three chunks, so two levels) and every offsets dtype, each segment checked bit for bit against the coarsened
 * order of its slice; then faulty offsets (reported, nothing written). The offsets and output buffers are made once,
 * like the others. */
static void store_offsets_raw(redscan_dtype od, unsigned char *raw, const uint64_t *off, size_t count)
{
    for (size_t s = 0; s < count; s++) {
        ref_val v = ref_zero();
        v.u64 = off[s];
        if (ref_size(od) == 4) v.u32 = (uint32_t)off[s];
        ref_store(od, raw, s, v);
    }
}

/* The runs' offsets by pass (scan / reduce by key below): 0, 1 the default (byk_single), blocking and _async; 2
 * its look-back recounting every ticket (4 tiles of 2048) before from the keys (spins 0); 3 the three-kernel path of devices without
 * 64-bit atomics (multi_pass, which also takes the scan's multi-pass chunk kernels). */
/* passes 4 and 5: the one-pass kernel of the exact operators (byk_exact_zero, byk_scan_exact), which OpenCL CPU
 * devices run only when asked */
static const h_mode byk_one_pass = {"REDSCAN_SCAN_BY_KEY_PATH", "one_pass", 0};

static const h_mode *byk_mode(int pass)
{
    return pass == 2 ? &h_lookback_modes[0] : pass == 3 ? &h_lookback_modes[2] : pass >= 4 ? &byk_one_pass : NULL;
}

static void segmented(void)
{
    static const size_t lens[] = {0, 1, 4095, 0, 4096, 7, 4097, 1, 0, 8200, 3};
    enum { S = sizeof lens / sizeof lens[0] };
    static const redscan_dtype offdt[] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64};
    uint64_t off[S + 1];
    off[0] = 2; /* two elements before the first segment */
    for (size_t s = 0; s < S; s++) off[s + 1] = off[s] + lens[s];
    const size_t n = (size_t)off[S] + 1; /* and one after the last */
    redscan_buffer *ob = h_buffer((S + 1) * 8), *idx = h_buffer(S * 8), *kb = h_buffer(MAX_N * 2);
    redscan_buffer *uk = h_buffer(MAX_N * 2); /* reduce by key's unique keys */
    if (!ob || !idx || !kb || !uk) return;
    /* The segmented workspaces, grown once up front by their largest calls (the _async scan and reduce by key
     * below; redscan_reserve does not size reduce by key's yet), as the file's header asks: without it a later call
     * grows the scratch and Oclgrind reports its offsets "uninitialized" (the released-memory form,
     * docs/RELIABILITY.md), with the same results. Their outputs are overwritten by the cases. */
    {
        const size_t m = 20500; /* the elements of the segments below */
        int16_t *k0 = (int16_t *)h_malloc(MAX_N * 2);
        for (size_t i = 0; i < MAX_N; i++) k0[i] = (int16_t)(i / 100);
        void *x0 = make_input(REDSCAN_INT32, REDSCAN_SUM, MAX_N, h_seed(7, 0, 0, 0, 0, 0));
        redscan_scan_desc d0 = {REDSCAN_SUM, REDSCAN_INT32, 0, 1, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
        if (CHECK_OK(redscan_buffer_write(h_ctx, kb, 0, k0, MAX_N * 2), "keys") && input(x0, MAX_N * 4)) {
            redscan_status st = redscan_scan_by_key_async(h_ctx, &d0, REDSCAN_INT16, kb, g_in, g_out, m);
            if (!unsupported(st, "scan by key") && CHECK_OK(st, "workspace: redscan_scan_by_key_async"))
                CHECK_OK(redscan_synchronize(h_ctx), "workspace: redscan_synchronize");
            /* reduce by key's largest call: the _async form (n padded segments); its outputs are overwritten */
            redscan_reduce_desc r0 = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
            if (uk) {
                st = redscan_reduce_by_key_async(h_ctx, &r0, REDSCAN_INT16, kb, g_in, m, uk, g_out, idx);
                if (!unsupported(st, "reduce by key") && CHECK_OK(st, "workspace: redscan_reduce_by_key_async"))
                    CHECK_OK(redscan_synchronize(h_ctx), "workspace: redscan_synchronize");
            }
        }
        free(k0);
        free(x0);
    }
    static const struct {
        redscan_op op;
        redscan_dtype dt, out;
    } red[] = {{REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32},
               {REDSCAN_MAX, REDSCAN_INT32, REDSCAN_INT32},
               {REDSCAN_PROD, REDSCAN_INT32, REDSCAN_INT64},
               {REDSCAN_MIN, REDSCAN_FLOAT64, REDSCAN_FLOAT64}};
    for (size_t c = 0; c < sizeof red / sizeof red[0]; c++) {
        const redscan_dtype dt = red[c].dt, odt = red[c].out;
        const redscan_dtype od = offdt[c % 4];
        if (!h_case("segmented_reduce %s %s->%s offsets=%s", ref_op_str(red[c].op), ref_dtype_str(dt),
                    ref_dtype_str(odt), ref_dtype_str(od)))
            continue;
        unsigned char raw[(S + 1) * 8];
        store_offsets_raw(od, raw, off, S + 1);
        void *x = make_input(dt, red[c].op, n, h_seed(4, (uint64_t)red[c].op, (uint64_t)dt, (uint64_t)odt, 0, 0));
        redscan_buffer *in = input(x, n * ref_size(dt));
        redscan_reduce_desc d = {red[c].op, dt, odt == dt ? (redscan_dtype)0 : odt, REDSCAN_REDUCE_AUTO, 0};
        unsigned char got[S * 8];
        redscan_status st = in && CHECK_OK(redscan_buffer_write(h_ctx, ob, 0, raw, (S + 1) * ref_size(od)), "offsets")
                                ? redscan_segmented_reduce(h_ctx, &d, in, od, ob, S, g_out)
                                : REDSCAN_ERR_DEVICE;
        if (!unsupported(st, "segmented reduce") && CHECK_OK(st, "redscan_segmented_reduce") &&
            CHECK_OK(redscan_buffer_read(h_ctx, g_out, 0, got, S * ref_size(odt)), "read"))
            for (size_t s = 0; s < S; s++) {
                const unsigned char *slice = (const unsigned char *)x + off[s] * ref_size(dt);
                const ref_val w = lens[s] ? ref_reduce_emulate(REDSCAN_REDUCE_COARSENED, red[c].op, dt, odt, slice,
                                                               lens[s])
                                          : ref_empty_result(red[c].op, odt);
                char a[96], b[96];
                CHECK(ref_result_equal(red[c].op, odt, ref_load(odt, got, s), w), "segment %zu: got %s, want %s", s,
                      h_fmt(odt, ref_load(odt, got, s), a), h_fmt(odt, w, b));
            }
        /* argmin (values NULL) or argmax (values into g_out) of the same input */
        const int want_max = (int)(c % 2);
        if (in && h_case("segmented_%s %s", want_max ? "argmax" : "argmin", ref_dtype_str(dt))) {
            uint64_t gi[S];
            st = (want_max ? redscan_segmented_argmax : redscan_segmented_argmin)(h_ctx, dt, in, od, ob, S, idx,
                                                                                    want_max ? g_out : NULL);
            if (!unsupported(st, "segmented argext") && CHECK_OK(st, "segmented argmin/argmax") &&
                CHECK_OK(redscan_buffer_read(h_ctx, idx, 0, gi, sizeof gi), "read"))
                for (size_t s = 0; s < S; s++) {
                    const uint64_t w = lens[s] ? off[s] + ref_argext(dt, want_max,
                                                                     (const unsigned char *)x + off[s] * ref_size(dt),
                                                                     lens[s])
                                               : UINT64_MAX;
                    CHECK(gi[s] == w, "segment %zu: index %llu, want %llu", s, (unsigned long long)gi[s],
                          (unsigned long long)w);
                }
        }
        free(x);
    }
    /* segmented scans (kernels_cl/segmented_scan.cl): the same layout, each segment against the emulation of its
     * slice; out (g_out) holds as many elements as g_in, so no widening here. The last one takes the exact operators'
     * one pass (seg_scan_heads, then byk_scan_exact reading the bitmap), which CPU devices run only when asked: int32
     * sums, whose programs the scan by key passes below build anyway. */
    static const struct {
        redscan_op op;
        redscan_dtype dt;
        int exclusive, init, one_pass;
    } scn[] = {{REDSCAN_SUM, REDSCAN_FLOAT32, 0, 1, 0},
               {REDSCAN_MAX, REDSCAN_INT32, 1, 0, 0},
               {REDSCAN_SUM, REDSCAN_FLOAT64, 1, 1, 0},
               {REDSCAN_SUM, REDSCAN_INT32, 1, 1, 1}};
    for (size_t c = 0; c < sizeof scn / sizeof scn[0]; c++) {
        const redscan_dtype dt = scn[c].dt, od = offdt[(c + 1) % 4];
        if (!h_case("segmented_scan %s %s %s offsets=%s%s", ref_op_str(scn[c].op), ref_dtype_str(dt),
                    scn[c].exclusive ? "exclusive" : "inclusive", ref_dtype_str(od),
                    scn[c].one_pass ? " REDSCAN_SEGMENTED_SCAN_PATH=one_pass" : ""))
            continue;
        char *saved_path = scn[c].one_pass ? h_env_swap("REDSCAN_SEGMENTED_SCAN_PATH", "one_pass") : NULL;
        const size_t es = ref_size(dt);
        unsigned char raw[(S + 1) * 8];
        store_offsets_raw(od, raw, off, S + 1);
        void *x = make_input(dt, scn[c].op, n, h_seed(5, (uint64_t)scn[c].op, (uint64_t)dt, 0, 0, 0));
        unsigned char initv[8];
        memcpy(initv, x, es); /* one of the inputs */
        redscan_buffer *in = input(x, n * es);
        redscan_scan_desc d = {scn[c].op, dt, 0, scn[c].exclusive, scn[c].init ? initv : NULL, REDSCAN_BLOCK_AUTO,
                               REDSCAN_GRID_AUTO, 0};
        unsigned char *got = (unsigned char *)h_malloc(n * es), *want = (unsigned char *)h_malloc(n * es);
        redscan_status st = in && CHECK_OK(redscan_buffer_write(h_ctx, ob, 0, raw, (S + 1) * ref_size(od)), "offsets")
                                ? redscan_segmented_scan(h_ctx, &d, in, od, ob, S, g_out)
                                : REDSCAN_ERR_DEVICE;
        if (!unsupported(st, "segmented scan") && CHECK_OK(st, "redscan_segmented_scan") &&
            CHECK_OK(redscan_buffer_read(h_ctx, g_out, 0, got, n * es), "read"))
            for (size_t s = 0; s < S; s++) {
                if (!lens[s]) continue;
                ref_scan_emulate_single_pass(REDSCAN_BLOCK_COARSENED, scn[c].op, dt, dt, scn[c].exclusive,
                                             scn[c].init ? initv : NULL, (const unsigned char *)x + off[s] * es,
                                             want + off[s] * es, lens[s]);
                CHECK_ARRAY(scn[c].op, dt, got + off[s] * es, want + off[s] * es, lens[s], "segment");
            }
        if (scn[c].one_pass) h_env_restore("REDSCAN_SEGMENTED_SCAN_PATH", saved_path);
        free(got);
        free(want);
        free(x);
    }
    /* scan by key (byk_single, then the scan kernels): the same segments, empty ones left out, as runs of int16
     * keys (equal keys recur in runs that are not adjacent), blocking (inclusive) and _async (exclusive, the kernels
     * reading the run count on the device); then the offsets' other paths (byk_mode): byk_single's recounts alone
     * (spins 0), the three-kernel path with the multi-pass chunk kernels (byk_count, byk_prefix, byk_scatter,
     * seg_scan_totals .. _out), and the one-pass kernel (int32 sums are exact: byk_scan_exact, blocking and _async) */
    for (int pass = 0; pass < 6; pass++) {
        const int async = pass % 2;
        const h_mode *mode = byk_mode(pass);
        char label[64] = "", *saved = NULL;
        if (mode) snprintf(label, sizeof label, " %s=%s", mode->var, mode->value);
        if (!h_case("scan_by_key sum int32 keys=int16%s%s", async ? " async" : "", label)) continue;
        if (mode && !h_mode_enter(mode, &saved)) continue;
        const size_t m = (size_t)(off[S] - off[0]);
        int16_t *keys = (int16_t *)h_malloc(m * sizeof *keys);
        size_t at = 0, runs = 0;
        for (size_t s = 0; s < S; s++)
            if (lens[s]) {
                for (size_t i = 0; i < lens[s]; i++) keys[at++] = (int16_t)(runs % 3 + runs / 3 * 2);
                runs++;
            }
        int32_t *x = (int32_t *)make_input(REDSCAN_INT32, REDSCAN_SUM, m, h_seed(6, (uint64_t)async, 0, 0, 0, 0));
        int32_t *got = (int32_t *)h_malloc(m * 4), *want = (int32_t *)h_malloc(m * 4);
        redscan_buffer *in = input(x, m * 4);
        redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, async, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
        redscan_status st = REDSCAN_ERR_DEVICE;
        if (in && CHECK_OK(redscan_buffer_write(h_ctx, kb, 0, keys, m * 2), "keys")) {
            st = async ? redscan_scan_by_key_async(h_ctx, &d, REDSCAN_INT16, kb, in, g_out, m)
                       : redscan_scan_by_key(h_ctx, &d, REDSCAN_INT16, kb, in, g_out, m);
            if (async && st == REDSCAN_OK) st = redscan_synchronize(h_ctx);
        }
        if (!unsupported(st, "scan by key") && CHECK_OK(st, "redscan_scan_by_key") &&
            CHECK_OK(redscan_buffer_read(h_ctx, g_out, 0, got, m * 4), "read")) {
            for (size_t i = 0, r0 = 0; i <= m; i++)
                if (i == m || (i > r0 && keys[i] != keys[i - 1])) {
                    ref_scan_emulate_single_pass(REDSCAN_BLOCK_COARSENED, REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32,
                                                 async, NULL, x + r0, want + r0, i - r0);
                    r0 = i;
                }
            CHECK_ARRAY(REDSCAN_SUM, REDSCAN_INT32, got, want, m, "runs");
        }
        if (mode) h_env_restore(mode->var, saved);
        free(keys);
        free(got);
        free(want);
        free(x);
    }
    /* reduce by key (byk_single, byk_gather, then the segmented reduction's levels): the same runs of int16 keys,
     * blocking (R segments) and _async (n padded segments, the run count into idx); then the offsets' other paths
     * as for scan by key */
    for (int pass = 0; pass < 4; pass++) {
        const int async = pass % 2;
        const h_mode *mode = byk_mode(pass);
        char label[64] = "", *saved = NULL;
        if (mode) snprintf(label, sizeof label, " %s=%s", mode->var, mode->value);
        if (!h_case("reduce_by_key sum int32 keys=int16%s%s", async ? " async" : "", label)) continue;
        if (mode && !h_mode_enter(mode, &saved)) continue;
        const size_t m = (size_t)(off[S] - off[0]);
        int16_t *keys = (int16_t *)h_malloc(m * sizeof *keys), *gk = (int16_t *)h_malloc(m * sizeof *gk);
        size_t at = 0, runs = 0, got_runs = 0;
        for (size_t s = 0; s < S; s++)
            if (lens[s]) {
                for (size_t i = 0; i < lens[s]; i++) keys[at++] = (int16_t)(runs % 3 + runs / 3 * 2);
                runs++;
            }
        runs = 0; /* the segments' keys may repeat across a boundary: count the runs the keys make */
        for (size_t i = 0; i < m; i++) runs += i == 0 || keys[i] != keys[i - 1];
        int32_t *x = (int32_t *)make_input(REDSCAN_INT32, REDSCAN_SUM, m, h_seed(8, (uint64_t)async, 0, 0, 0, 0));
        int32_t *ga = (int32_t *)h_malloc(m * 4);
        redscan_buffer *in = input(x, m * 4);
        redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
        redscan_status st = REDSCAN_ERR_DEVICE;
        if (in && CHECK_OK(redscan_buffer_write(h_ctx, kb, 0, keys, m * 2), "keys")) {
            if (async) {
                uint64_t r64 = 0;
                st = redscan_reduce_by_key_async(h_ctx, &d, REDSCAN_INT16, kb, in, m, uk, g_out, idx);
                if (st == REDSCAN_OK) st = redscan_synchronize(h_ctx);
                if (st == REDSCAN_OK) st = redscan_buffer_read(h_ctx, idx, 0, &r64, 8);
                got_runs = (size_t)r64;
            } else {
                st = redscan_reduce_by_key(h_ctx, &d, REDSCAN_INT16, kb, in, m, uk, g_out, &got_runs);
            }
        }
        if (!unsupported(st, "reduce by key") && CHECK_OK(st, "redscan_reduce_by_key") &&
            CHECK(got_runs == runs, "num_runs %zu, want %zu", got_runs, runs) &&
            CHECK_OK(redscan_buffer_read(h_ctx, uk, 0, gk, runs * 2), "read") &&
            CHECK_OK(redscan_buffer_read(h_ctx, g_out, 0, ga, runs * 4), "read")) {
            for (size_t i = 0, r0 = 0, r = 0; i <= m; i++)
                if (i == m || (i > r0 && keys[i] != keys[i - 1])) {
                    const ref_val w = ref_reduce_emulate(REDSCAN_REDUCE_COARSENED, REDSCAN_SUM, REDSCAN_INT32,
                                                         REDSCAN_INT32, x + r0, i - r0);
                    CHECK(ga[r] == w.i32 && gk[r] == keys[r0], "run %zu: key %d sum %d, want key %d sum %d", r,
                          gk[r], ga[r], keys[r0], w.i32);
                    r0 = i;
                    r++;
                }
        }
        if (mode) h_env_restore(mode->var, saved);
        free(keys);
        free(gk);
        free(ga);
        free(x);
    }
    /* faulty offsets: found on the device, reported, nothing written */
    if (h_case("segmented faulty offsets")) {
        const uint64_t bad[4] = {0, 5, 3, 9};
        unsigned char before[32], after[32];
        redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
        if (CHECK_OK(redscan_buffer_write(h_ctx, ob, 0, bad, sizeof bad), "offsets") &&
            CHECK_OK(redscan_buffer_read(h_ctx, g_out, 0, before, sizeof before), "read")) {
            CHECK_STATUS(redscan_segmented_reduce(h_ctx, &d, g_in, REDSCAN_UINT64, ob, 3, g_out),
                         REDSCAN_ERR_INVALID_ARGUMENT, "decreasing offsets");
            if (CHECK_OK(redscan_buffer_read(h_ctx, g_out, 0, after, sizeof after), "read"))
                CHECK_MEM(after, before, sizeof after, "the output after faulty offsets");
        }
    }
    redscan_buffer_destroy(h_ctx, ob);
    redscan_buffer_destroy(h_ctx, idx);
    redscan_buffer_destroy(h_ctx, kb);
    redscan_buffer_destroy(h_ctx, uk);
}

/* argv[1], optional: one family of cases (the others are not run), so that a checker can run the families in
 * separate processes, in parallel (scripts/oclgrind.sh says why it must). */
static const char *const g_families[] = {"reduce", "scan", "single_pass", "select", "segmented"};

int main(int argc, char **argv)
{
    const char *family = argc > 1 ? argv[1] : NULL;
    int known = !family;
    for (size_t f = 0; f < sizeof g_families / sizeof g_families[0]; f++)
        known |= family && !strcmp(family, g_families[f]);
    if (argc > 2 || !known) {
        fprintf(stderr, "usage: %s [reduce|scan|single_pass|select|segmented]   (no argument: all of them)\n", argv[0]);
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
    for (size_t d = 0; d < NNARROW_SELECT; d++)
        CHECK_OK(redscan_reserve_topk(h_ctx, g_narrow_select[d], MAX_N, 20), "redscan_reserve_topk (narrow)");
    const double t0 = h_now();
    if (wanted("reduce")) reductions();
    const double t1 = h_now();
    if (wanted("scan") || wanted("single_pass")) scans();
    if (wanted("scan")) { /* the scan parts: two sections (the second with a tail), odd offsets */
        scan_parts_case(REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT32, 0, 2500, 3, 5);
        scan_parts_case(REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT16, 1, 2500, 1, 7);
        scan_parts_case(REDSCAN_MAX, REDSCAN_BFLOAT16, REDSCAN_FLOAT32, 1, 2500, 5, 3);
    }
    const double t2 = h_now();
    if (wanted("select")) selections();
    const double t3 = h_now();
    if (wanted("segmented")) segmented();
    printf("kernel_check%s%s: reductions %.1f s, scans %.1f s, argmin/argmax/top-k %.1f s, segments %.1f s; %ld cases "
           "unsupported here\n",
           family ? " " : "", family ? family : "", t1 - t0, t2 - t1, t3 - t2, h_now() - t3, g_unsupported);
    redscan_buffer_destroy(h_ctx, g_in);
    redscan_buffer_destroy(h_ctx, g_out);
    redscan_buffer_destroy(h_ctx, g_res);
    return h_done();
}
