/* test_scan_auto: the AUTO grid's bits are single_pass's fixed expression (docs/ALGORITHMS.md, "Grid level") on every
 * backend, device and, on OpenCL, kernel shape.
 *
 * With tiles = sections of the block in use (AUTO: coarsened, 2048) in groups of 32, the carry of section j = 32g + p
 * is P[j] = A(g-1) (+) (S[32g] (+) ... (+) S[j-1]), P[32g] = A(g-1), A(g) = A(g-1) (+) T(g), A(-1) = init, T(g) the
 * left fold of the group's 32 totals (ref_scan_emulate_single_pass). The OpenCL backend computes it with single_pass
 * on GPUs with 64-bit atomics, else with reduce_then_scan / hierarchical and one scan_totals_chain launch; CUDA with
 * single_pass itself; the sizes below put
 * the last section in group 0, at the end of group 0, at the start and in the middle of groups 1, 2 and 31 and (1000
 * sections) across the kernel's chunks of 256 groups:
 *   n = SECTION * {1, 2, 31, 32, 33, 65, 1000} + tail, tail in {0, 1, 1029} (rotating; all three at level >= 1)
 * float32 sum (GEN_PLAIN data, on which the hierarchical order differs: checked, so the test has teeth), inclusive and
 * exclusive, init NULL / 1.5 / -0.0 / +0.0, data with signed zeros (GEN_EDGE, and runs of -0.0) and a NaN near the
 * end; float64 sum and float32 prod at a few sizes; blocks kogge_stone and brent_kung with the AUTO grid (their own
 * sections in the same chain); in place; the plain API. Every result is compared bit for bit with the emulation
 * (NaN = NaN for sums, whose NaN is canonical) and, where single_pass runs (OpenCL needs 64-bit atomics), with an
 * explicit single_pass scan of the same data on the same context: the same bits.
 *
 * Contexts: on OpenCL, REDSCAN_OPENCL_SHAPE=auto, =gpu and =cpu (the last only on a CPU device; elsewhere it is
 * refused, see test_shape); on CUDA the one context. REDSCAN_SCAN_BLOCK / _GRID are cleared: this test names its
 * algorithms. REDSCAN_TEST_LEVEL 0 runs the float32 sums only. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
    const char *name;
    redscan_ctx *ctx;
    int single_pass; /* 1 runs, 0 UNSUPPORTED here (noted once), -1 not probed yet */
} shape_ctx;

static shape_ctx g_ctx[3];
static int g_nctx;

static redscan_ctx *ctx_shape(const char *shape)
{
    const char *old = getenv("REDSCAN_OPENCL_SHAPE");
    char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
    if (shape) setenv("REDSCAN_OPENCL_SHAPE", shape, 1);
    redscan_ctx *c = NULL;
    redscan_status st = redscan_create(&c, REDSCAN_BACKEND_AUTO);
    if (saved) setenv("REDSCAN_OPENCL_SHAPE", saved, 1);
    else unsetenv("REDSCAN_OPENCL_SHAPE");
    free(saved);
    if (st != REDSCAN_OK) {
        c = NULL;
        /* the CPU shape is refused on a device that is not a CPU (checked by test_shape) */
        if (!(shape && !strcmp(shape, "cpu") && st == REDSCAN_ERR_UNSUPPORTED))
            CHECK(0, "redscan_create with REDSCAN_OPENCL_SHAPE=%s: %s: %s", shape ? shape : "(unset)",
                  redscan_status_string(st), redscan_last_error(NULL));
        else
            printf("NOTE: REDSCAN_OPENCL_SHAPE=cpu refused here (not a CPU device)\n");
    }
    return c;
}

static size_t g_teeth; /* cases where the hierarchical order gives other bits than the AUTO grid's */

/* One scan through every context: AUTO grid with `block`, against the emulation, and against explicit single_pass. */
static void run_case(redscan_op op, redscan_dtype dt, redscan_block_scan block, int exclusive, const void *init,
                     const char *init_str, int inplace, const void *x, size_t n, const char *data_str, int check_teeth)
{
    const size_t es = ref_size(dt);
    unsigned char *want = (unsigned char *)h_malloc(n * es), *got = (unsigned char *)h_malloc((n + 1) * es);
    unsigned char *sp = (unsigned char *)h_malloc(n * es);
    ref_scan_emulate_grid(block, REDSCAN_GRID_AUTO, op, dt, dt, exclusive, init, x, want, n);
    if (check_teeth) {
        unsigned char *hier = (unsigned char *)h_malloc(n * es);
        ref_scan_emulate(ref_scan_block_of(block), op, dt, dt, exclusive, init, x, hier, n);
        for (size_t i = 0; i < n; i++)
            if (!ref_result_equal(op, dt, ref_load(dt, want, i), ref_load(dt, hier, i))) {
                g_teeth++;
                break;
            }
        free(hier);
    }
    for (int c = 0; c < g_nctx; c++) {
        shape_ctx *sc = &g_ctx[c];
        if (!h_case("AUTO grid %s %s block %s n=%zu (%zu sections of %zu) %s init=%s%s data=%s shape=%s",
                    ref_op_str(op), ref_dtype_str(dt), h_block_str(block), n,
                    (n + ref_scan_section(ref_scan_block_of(block)) - 1) / ref_scan_section(ref_scan_block_of(block)),
                    ref_scan_section(ref_scan_block_of(block)), exclusive ? "exclusive" : "inclusive", init_str,
                    inplace ? " in-place" : "", data_str, sc->name))
            continue;
        redscan_scan_desc d = {op, dt, (redscan_dtype)0, exclusive, init, block, REDSCAN_GRID_AUTO, 0};
        redscan_status st;
        memset(got, 0xA5, (n + 1) * es);
        if (inplace) {
            redscan_buffer *b = NULL;
            st = redscan_buffer_create(sc->ctx, (n + 1) * es, &b);
            if (st == REDSCAN_OK) st = redscan_buffer_write(sc->ctx, b, 0, x, n * es);
            if (st == REDSCAN_OK) st = redscan_buffer_write(sc->ctx, b, n * es, got + n * es, es);
            if (st == REDSCAN_OK) st = redscan_scan_ex(sc->ctx, &d, b, b, n);
            if (st == REDSCAN_OK) st = redscan_buffer_read(sc->ctx, b, 0, got, (n + 1) * es);
            if (b) redscan_buffer_destroy(sc->ctx, b);
        } else {
            st = redscan_scan_host_ex(sc->ctx, &d, x, got, n);
        }
        if (!CHECK_OK(st, inplace ? "in-place AUTO scan" : "redscan_scan_host_ex (AUTO grid)")) continue;
        CHECK_ARRAY(op, dt, got, want, n, "AUTO grid against single_pass's documented order");
        const unsigned char tail[8] = {0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5};
        CHECK_MEM(got + n * es, tail, es, "AUTO grid: past n");
        /* the same bits as an explicit single_pass scan on the same context */
        if (sc->single_pass == 0) continue;
        redscan_scan_desc e = d;
        e.grid = REDSCAN_GRID_SINGLE_PASS;
        st = redscan_scan_host_ex(sc->ctx, &e, x, sp, n);
        if (st == REDSCAN_ERR_UNSUPPORTED) {
            if (sc->single_pass < 0)
                printf("NOTE: single_pass unsupported on %s (%s): AUTO checked against the emulation only\n",
                       sc->name, redscan_last_error(sc->ctx));
            sc->single_pass = 0;
            continue;
        }
        sc->single_pass = 1;
        if (CHECK_OK(st, "redscan_scan_host_ex (explicit single_pass)"))
            CHECK_BITS(dt, got, sp, n, "AUTO grid against explicit single_pass on the same context (bitwise)");
    }
    free(want);
    free(got);
    free(sp);
}

/* The plain API (AUTO algorithms, no init) on each context. */
static void run_plain(const float *x, size_t n)
{
    float *want = (float *)h_malloc(n * 4), *got = (float *)h_malloc(n * 4);
    for (int excl = 0; excl < 2; excl++) {
        ref_scan_emulate_grid(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32,
                              excl, NULL, x, want, n);
        for (int c = 0; c < g_nctx; c++) {
            if (!h_case("redscan_scan_host float32 sum %s n=%zu shape=%s", excl ? "exclusive" : "inclusive", n,
                        g_ctx[c].name))
                continue;
            if (CHECK_OK(redscan_scan_host(g_ctx[c].ctx, REDSCAN_SUM, REDSCAN_FLOAT32, excl, x, got, n),
                         "redscan_scan_host"))
                CHECK_ARRAY(REDSCAN_SUM, REDSCAN_FLOAT32, got, want, n, "plain AUTO scan against the documented order");
        }
    }
    free(want);
    free(got);
}

int main(void)
{
    h_open("test_scan_auto");
    unsetenv("REDSCAN_SCAN_BLOCK");
    unsetenv("REDSCAN_SCAN_GRID");
    if (!strcmp(redscan_backend_name(h_ctx), "opencl")) {
        static const char *const shapes[] = {"auto", "gpu", "cpu"};
        for (int s = 0; s < 3; s++) {
            redscan_ctx *c = ctx_shape(shapes[s]);
            if (c) g_ctx[g_nctx++] = (shape_ctx){shapes[s], c, -1};
        }
    } else {
        redscan_ctx *c = ctx_shape(NULL);
        if (c) g_ctx[g_nctx++] = (shape_ctx){redscan_backend_name(c), c, -1};
    }
    if (!g_nctx) return h_done();

    const int level = h_level();
    static const size_t ks[] = {1, 2, 31, 32, 33, 65, 1000};
    static const size_t tails[] = {0, 1, 1029};
    const size_t S = 2048, nmax = S * 1000 + 1029;
    float *x = (float *)h_malloc(nmax * sizeof *x);
    double *xd = (double *)h_malloc(nmax * sizeof *xd);
    const float f_init = 1.5f, f_mzero = -0.0f, f_pzero = 0.0f;
    const double d_init = 1.5;
    const float f_prod_init = -1.25f;
    h_rng r;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (size_t ti = 0; ti < 3; ti++) {
            if (level < 1 && ti != (ki % 3)) continue; /* level 0: one tail per size */
            const size_t n = S * ks[ki] + tails[ti];
            const unsigned v = (unsigned)(ki + ti);
            /* plain data: the orders differ, every variant of exclusive x init */
            h_rng_init(&r, h_seed(40, ks[ki], tails[ti], 0, 0, 0));
            h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, x, n);
            for (int excl = 0; excl < 2; excl++) {
                run_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_BLOCK_AUTO, excl, NULL, "null", 0, x, n, "plain", 1);
                run_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_BLOCK_AUTO, excl, &f_init, "1.5", 0, x, n, "plain", 1);
            }
            /* signed zeros: edge data, and runs of -0.0 (whole sections and groups), init -0.0 / +0.0 */
            h_rng_init(&r, h_seed(41, ks[ki], tails[ti], 0, 0, 0));
            h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_EDGE, x, n);
            for (size_t i = 0; i < n; i++)
                if ((i / S) % 3 == 1 || (i / (S * 32)) % 2 == 1) x[i] = -0.0f;
            run_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_BLOCK_AUTO, (int)(v & 1), &f_mzero, "-0.0", 0, x, n,
                     "edge+-0.0 runs", 0);
            run_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_BLOCK_AUTO, (int)((v + 1) & 1), &f_pzero, "+0.0",
                     (int)(v & 1), x, n, "edge+-0.0 runs", 0);
            /* a NaN near the end (the prefix before it is checked bit for bit) */
            h_rng_init(&r, h_seed(42, ks[ki], tails[ti], 0, 0, 0));
            h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_EDGE, x, n);
            x[n - 1 - n / 50] = h_nan(REDSCAN_FLOAT32, 0x123, (int)(v & 1)).f32;
            run_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_BLOCK_AUTO, (int)((v >> 1) & 1), (v & 2) ? &f_init : NULL,
                     (v & 2) ? "1.5" : "null", 0, x, n, "edge+NaN", 0);
            /* the other blocks in the AUTO grid, and the other types / ops (not at level 0) */
            if (level < 1 || ks[ki] > 65) continue;
            h_rng_init(&r, h_seed(43, ks[ki], tails[ti], 0, 0, 0));
            h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, x, n);
            run_case(REDSCAN_SUM, REDSCAN_FLOAT32, ti == 0 ? REDSCAN_BLOCK_KOGGE_STONE : REDSCAN_BLOCK_BRENT_KUNG,
                     (int)(v & 1), &f_init, "1.5", 0, x, n, "plain", 1);
            run_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_BLOCK_COARSENED, (int)((v + 1) & 1), NULL, "null", 1, x, n,
                     "plain", 0);
            if (ti == 1) {
                h_generate(&r, REDSCAN_FLOAT64, REDSCAN_SUM, GEN_PLAIN, xd, n);
                run_case(REDSCAN_SUM, REDSCAN_FLOAT64, REDSCAN_BLOCK_AUTO, (int)(v & 1), &d_init, "1.5", 0, xd, n,
                         "plain", 1);
                h_generate(&r, REDSCAN_FLOAT32, REDSCAN_PROD, GEN_PLAIN, x, n);
                run_case(REDSCAN_PROD, REDSCAN_FLOAT32, REDSCAN_BLOCK_AUTO, (int)((v + 1) & 1), &f_prod_init, "-1.25",
                         0, x, n, "plain", 0);
            }
        }
    h_rng_init(&r, h_seed(44, 0, 0, 0, 0, 0));
    h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, x, S * 70 + 3);
    run_plain(x, S * 70 + 3);
    if (h_case("test setup: the hierarchical order differs from the AUTO grid's on the plain data"))
        CHECK(g_teeth > 0, "no case where the AUTO grid's order and the hierarchical one give different bits");
    printf("test_scan_auto: %zu cases where the hierarchical order would have given other bits\n", g_teeth);
    free(x);
    free(xd);
    for (int c = 0; c < g_nctx; c++) redscan_destroy(g_ctx[c].ctx);
    return h_done();
}
