/* test_env: the algorithm environment variables replace AUTO (and only AUTO).
 *   REDSCAN_REDUCE_ALGO=<name>  reduce with algo AUTO (and mean) give that algorithm's documented bits; an
 *                               explicit algorithm in the descriptor is not replaced
 *   REDSCAN_SCAN_BLOCK=<name>   scans with block AUTO give that block's documented bits (the AUTO grid's order:
 *                               single_pass's expression)
 *   REDSCAN_SCAN_GRID=<name>    every grid works; an AUTO float scan gives the forced grid's bits (hierarchical /
 *                               reduce_then_scan: ref_scan_emulate, single_pass: ref_scan_emulate_single_pass,
 *                               which is also the unforced AUTO grid's), an explicit hierarchical one hierarchical's
 *   REDSCAN_OPENCL_SHAPE=<auto|gpu|cpu>  (OpenCL) every shape gives the AUTO scan's documented bits; other values are
 *                               refused by redscan_create with the accepted ones listed
 * The data are chosen (by seed search) so that the candidate algorithms give pairwise different bits, so the
 * forcing is really observed. Names are the ones redscan_*_name() returns. Each setting needs a context of its
 * own (the variables are read by redscan_create). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SINGLE_PASS_IMPLEMENTED 1
/* 74 coarsened sections, 3 groups of 32 tiles: single_pass's chain over the groups differs from hierarchical's
 * scan of the totals (within a few sections both fold the totals left to right: the same bits) */
#define N_SP 150000
#define N_REDUCE 20000
#define N_SCAN 5000

/* redscan_create on `backend` with var=value set for the call only (the previous value is put back). */
static redscan_status create_with(const char *var, const char *value, redscan_backend backend, redscan_ctx **c)
{
    const char *old = getenv(var);
    char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
    setenv(var, value, 1);
    *c = NULL;
    const redscan_status st = redscan_create(c, backend);
    if (saved) setenv(var, saved, 1);
    else unsetenv(var);
    free(saved);
    return st;
}

static redscan_ctx *ctx_with(const char *var, const char *value)
{
    redscan_ctx *c = NULL;
    redscan_status st = create_with(var, value, REDSCAN_BACKEND_AUTO, &c);
    CHECK(st == REDSCAN_OK, "redscan_create with %s=%s: %s: %s", var, value, redscan_status_string(st),
          redscan_last_error(NULL));
    return st == REDSCAN_OK ? c : NULL;
}

/* REDSCAN_OPENCL_SHAPE=<value> (a CPU shape) on an OpenCL device: 1 if redscan_create refuses it as it must on a
 * device that is not a CPU (UNSUPPORTED, a message naming the variable), 0 if it accepts it (a CPU device); any
 * other outcome fails. PoCL is a CPU device, so there it must be accepted (the caller does not ask). */
static int refused_cpu_shape(const char *value)
{
    redscan_ctx *c = NULL;
    const redscan_status st = create_with("REDSCAN_OPENCL_SHAPE", value, REDSCAN_BACKEND_OPENCL, &c);
    const char *msg = redscan_last_error(NULL);
    const int refused = st == REDSCAN_ERR_UNSUPPORTED;
    CHECK(st == REDSCAN_OK || (refused && c == NULL && msg && strstr(msg, "REDSCAN_OPENCL_SHAPE=cpu") &&
                               strstr(msg, "not an OpenCL CPU device")),
          "REDSCAN_OPENCL_SHAPE=%s on %s: %s (%s), want OK (a CPU device) or UNSUPPORTED naming the variable", value,
          redscan_device_name(h_ctx), redscan_status_string(st), msg ? msg : "no message");
    redscan_destroy(c);
    return refused;
}

int main(void)
{
    h_open("test_env");
    /* the suite may itself run with an algorithm forced: clear those for the contexts made here */
    unsetenv("REDSCAN_REDUCE_ALGO");
    unsetenv("REDSCAN_SCAN_BLOCK");
    unsetenv("REDSCAN_SCAN_GRID");
    float *x = (float *)h_malloc(N_REDUCE * sizeof *x);
    ref_val emu[4];
    h_rng r;
    int found = 0;
    for (int attempt = 0; attempt < 50 && !found; attempt++) {
        h_rng_init(&r, h_seed(7, (uint64_t)attempt, 0, 0, 0, 0));
        h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, x, N_REDUCE);
        for (int a = 1; a <= 3; a++)
            emu[a] = ref_reduce_emulate((redscan_reduce_algo)a, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, x, N_REDUCE);
        found = emu[1].u32 != emu[2].u32 && emu[1].u32 != emu[3].u32 && emu[2].u32 != emu[3].u32;
    }
    if (!CHECK(found, "no data found on which the three reductions differ (test setup)")) return h_done();

    for (int a = 1; a <= 3; a++) {
        const char *name = redscan_reduce_algo_name((redscan_reduce_algo)a);
        if (!h_case("REDSCAN_REDUCE_ALGO=%s", name ? name : "(null)") || !name) continue;
        redscan_ctx *c = ctx_with("REDSCAN_REDUCE_ALGO", name);
        if (!c) continue;
        float got = 0;
        redscan_status st = redscan_reduce_host(c, REDSCAN_SUM, REDSCAN_FLOAT32, x, N_REDUCE, &got);
        CHECK(st == REDSCAN_OK, "reduce_host: %s", redscan_status_string(st));
        CHECK(memcmp(&got, &emu[a].f32, 4) == 0, "AUTO under %s: got %.9g, want %.9g (tree %.9g, interleaved %.9g, coarsened %.9g)",
              name, (double)got, (double)emu[a].f32, (double)emu[1].f32, (double)emu[2].f32, (double)emu[3].f32);
        /* an explicit algorithm is not replaced */
        int other = a % 3 + 1;
        redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, (redscan_reduce_algo)other, 0};
        st = redscan_reduce_host_ex(c, &d, x, N_REDUCE, &got);
        CHECK(st == REDSCAN_OK && memcmp(&got, &emu[other].f32, 4) == 0,
              "explicit %s under REDSCAN_REDUCE_ALGO=%s: got %.9g, want %.9g", h_algo_str((redscan_reduce_algo)other), name,
              (double)got, (double)emu[other].f32);
        /* mean follows the forced algorithm (float64 accumulation) */
        double m = 0, want = ref_mean_exact((redscan_reduce_algo)a, REDSCAN_FLOAT32, x, N_REDUCE);
        st = redscan_mean_host(c, REDSCAN_FLOAT32, x, N_REDUCE, &m);
        CHECK(st == REDSCAN_OK && memcmp(&m, &want, 8) == 0, "mean under %s: got %.17g, want %.17g", name, m, want);
        redscan_destroy(c);
    }

    /* scan blocks: data on which the four blocks differ somewhere */
    float *y = (float *)h_malloc(N_SCAN * sizeof *y);
    float *e[5];
    for (int b = 1; b <= 4; b++) e[b] = (float *)h_malloc(N_SCAN * sizeof(float));
    found = 0;
    for (int attempt = 0; attempt < 50 && !found; attempt++) {
        h_rng_init(&r, h_seed(8, (uint64_t)attempt, 0, 0, 0, 0));
        h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, x, N_SCAN);
        for (int b = 1; b <= 4; b++)
            ref_scan_emulate_grid((redscan_block_scan)b, REDSCAN_GRID_AUTO, REDSCAN_SUM, REDSCAN_FLOAT32,
                                  REDSCAN_FLOAT32, 0, NULL, x, e[b], N_SCAN);
        found = 1;
        for (int p = 1; p <= 4; p++)
            for (int q = p + 1; q <= 4; q++)
                if (p != 1 || q != 2) /* kogge_stone and kogge_stone_db compute the same values by design */
                    found &= memcmp(e[p], e[q], N_SCAN * sizeof(float)) != 0;
    }
    if (CHECK(found, "no data found on which the block scans differ (test setup)")) {
        for (int b = 1; b <= 4; b++) {
            const char *name = redscan_block_scan_name((redscan_block_scan)b);
            if (!h_case("REDSCAN_SCAN_BLOCK=%s", name ? name : "(null)") || !name) continue;
            redscan_ctx *c = ctx_with("REDSCAN_SCAN_BLOCK", name);
            if (!c) continue;
            redscan_status st = redscan_scan_host(c, REDSCAN_SUM, REDSCAN_FLOAT32, 0, x, y, N_SCAN);
            if (CHECK(st == REDSCAN_OK, "scan_host: %s", redscan_status_string(st))) {
                size_t diff = 0, first = 0;
                for (size_t i = 0; i < N_SCAN; i++)
                    if (memcmp(&y[i], &e[b][i], 4) != 0 && !diff++) first = i;
                CHECK(!diff, "AUTO block under %s: %zu elements differ from its documented order (first %zu: %.9g vs %.9g)",
                      name, diff, first, (double)y[first], (double)e[b][first]);
            }
            redscan_destroy(c);
        }
    }

    /* scan grids */
    for (int g = REDSCAN_GRID_HIERARCHICAL; g <= REDSCAN_GRID_SINGLE_PASS; g++) {
        const char *name = redscan_grid_scan_name((redscan_grid_scan)g);
        if (!h_case("REDSCAN_SCAN_GRID=%s", name ? name : "(null)") || !name) continue;
        redscan_ctx *c = ctx_with("REDSCAN_SCAN_GRID", name);
        if (!c) continue;
        int32_t xi[3000], yi[3000];
        for (int i = 0; i < 3000; i++) xi[i] = i % 5 - 2;
        redscan_status st = redscan_scan_host(c, REDSCAN_SUM, REDSCAN_INT32, 1, xi, yi, 3000);
        if (g == REDSCAN_GRID_SINGLE_PASS && !SINGLE_PASS_IMPLEMENTED) {
            CHECK(st == REDSCAN_ERR_UNSUPPORTED, "AUTO scan under REDSCAN_SCAN_GRID=single_pass: %s, want UNSUPPORTED",
                  redscan_status_string(st));
            /* an explicit grid is not replaced */
            redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_INT32, 0, 1, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_HIERARCHICAL, 0};
            st = redscan_scan_host_ex(c, &d, xi, yi, 3000);
        }
        if (CHECK(st == REDSCAN_OK, "scan under %s: %s: %s", name, redscan_status_string(st), redscan_last_error(c))) {
            int32_t acc = 0;
            size_t bad = 0;
            for (int i = 0; i < 3000; i++) {
                if (yi[i] != acc) bad++;
                acc += xi[i];
            }
            CHECK(!bad, "%zu wrong elements under %s", bad, name);
        }
        redscan_destroy(c);
    }
    if (SINGLE_PASS_IMPLEMENTED && h_case("REDSCAN_SCAN_GRID=<grid> float bits")) {
        float *xs = (float *)h_malloc(N_SP * sizeof(float)), *ys = (float *)h_malloc(N_SP * sizeof(float));
        float *eh = (float *)h_malloc(N_SP * sizeof(float)), *es = (float *)h_malloc(N_SP * sizeof(float));
        found = 0;
        for (int attempt = 0; attempt < 50 && !found; attempt++) {
            h_rng_init(&r, h_seed(9, (uint64_t)attempt, 0, 0, 0, 0));
            h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, xs, N_SP);
            ref_scan_emulate(REDSCAN_BLOCK_COARSENED, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, 0, NULL, xs, eh, N_SP);
            ref_scan_emulate_single_pass(REDSCAN_BLOCK_COARSENED, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, 0, NULL,
                                         xs, es, N_SP);
            found = memcmp(eh, es, N_SP * sizeof(float)) != 0;
        }
        /* the forced grid's bits for an AUTO scan (hierarchical and reduce_then_scan: not the AUTO grid's own) */
        for (int g = REDSCAN_GRID_HIERARCHICAL; g <= REDSCAN_GRID_SINGLE_PASS && found; g++) {
            const char *name = redscan_grid_scan_name((redscan_grid_scan)g);
            redscan_ctx *c = name ? ctx_with("REDSCAN_SCAN_GRID", name) : NULL;
            if (!c) continue;
            const float *want = g == REDSCAN_GRID_SINGLE_PASS ? es : eh;
            redscan_status st = redscan_scan_host(c, REDSCAN_SUM, REDSCAN_FLOAT32, 0, xs, ys, N_SP);
            if (CHECK(st == REDSCAN_OK, "scan_host under %s: %s", name, redscan_status_string(st)))
                CHECK(memcmp(ys, want, N_SP * sizeof(float)) == 0,
                      "AUTO float scan under REDSCAN_SCAN_GRID=%s: not the %s bits", name, name);
            redscan_scan_desc d = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_HIERARCHICAL, 0};
            st = redscan_scan_host_ex(c, &d, xs, ys, N_SP);
            if (CHECK(st == REDSCAN_OK, "explicit hierarchical under %s: %s", name, redscan_status_string(st)))
                CHECK(memcmp(ys, eh, N_SP * sizeof(float)) == 0,
                      "explicit hierarchical under REDSCAN_SCAN_GRID=%s: not the hierarchical bits", name);
            redscan_destroy(c);
        }
        CHECK(found, "no data found on which single_pass and hierarchical differ (test setup)");
        free(xs);
        free(ys);
        free(eh);
        free(es);
    }
    /* REDSCAN_OPENCL_SHAPE (OpenCL only): every accepted value (any case) gives the documented bits of AUTO (reduce:
     * coarsened; scan: coarsened in the AUTO grid's order); anything else fails redscan_create with the accepted
     * values in the message. */
    if (!strcmp(redscan_backend_name(h_ctx), "opencl")) {
        static const char *const shapes[] = {"auto", "gpu", "cpu", "CPU"};
        enum { NS = 40 * 2048 + 5 }; /* 41 sections: two groups of 32 in the AUTO grid's chain */
        float *xs = (float *)h_malloc(NS * sizeof(float)), *ys = (float *)h_malloc(NS * sizeof(float));
        float *es = (float *)h_malloc(NS * sizeof(float));
        h_rng_init(&r, h_seed(10, 0, 0, 0, 0, 0));
        h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, x, N_REDUCE);
        h_generate(&r, REDSCAN_FLOAT32, REDSCAN_SUM, GEN_PLAIN, xs, NS);
        const ref_val er = ref_reduce_emulate(REDSCAN_REDUCE_COARSENED, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, x,
                                              N_REDUCE);
        ref_scan_emulate_grid(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT32, 1,
                              NULL, xs, es, NS);
        for (int i = 0; i < 4; i++) {
            if (!h_case("REDSCAN_OPENCL_SHAPE=%s", shapes[i])) continue;
            if (i >= 2 && !strstr(redscan_device_name(h_ctx), "Portable Computing Language") &&
                refused_cpu_shape(shapes[i]))
                continue; /* not a CPU device: the refusal was checked */
            redscan_ctx *c = ctx_with("REDSCAN_OPENCL_SHAPE", shapes[i]);
            if (!c) continue;
            float got = 0;
            redscan_status st = redscan_reduce_host(c, REDSCAN_SUM, REDSCAN_FLOAT32, x, N_REDUCE, &got);
            CHECK(st == REDSCAN_OK && memcmp(&got, &er.f32, 4) == 0, "reduce under %s: %s, got %.9g, want %.9g",
                  shapes[i], redscan_status_string(st), (double)got, (double)er.f32);
            st = redscan_scan_host(c, REDSCAN_SUM, REDSCAN_FLOAT32, 1, xs, ys, NS);
            CHECK(st == REDSCAN_OK && memcmp(ys, es, NS * sizeof(float)) == 0,
                  "exclusive scan under %s: %s, or not the documented bits", shapes[i], redscan_status_string(st));
            redscan_destroy(c);
        }
        if (h_case("REDSCAN_OPENCL_SHAPE=gpus (not understood)")) {
            const char *old = getenv("REDSCAN_OPENCL_SHAPE");
            char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
            setenv("REDSCAN_OPENCL_SHAPE", "gpus", 1);
            redscan_ctx *c = NULL;
            redscan_status st = redscan_create(&c, REDSCAN_BACKEND_AUTO);
            const char *msg = redscan_last_error(NULL);
            CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && !c, "redscan_create: %s, want INVALID_ARGUMENT",
                  redscan_status_string(st));
            CHECK(msg && strstr(msg, "REDSCAN_OPENCL_SHAPE='gpus'") && strstr(msg, "auto|gpu|cpu"),
                  "message does not name the value and the accepted ones: %s", msg ? msg : "(null)");
            redscan_destroy(c);
            if (saved) setenv("REDSCAN_OPENCL_SHAPE", saved, 1);
            else unsetenv("REDSCAN_OPENCL_SHAPE");
            free(saved);
        }
        free(xs);
        free(ys);
        free(es);
    }
    for (int b = 1; b <= 4; b++) free(e[b]);
    free(x);
    free(y);
    return h_done();
}
