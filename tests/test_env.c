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
 *   REDSCAN_OPENCL_DEVICE=<index|text>  (OpenCL) the indices list the platforms in name order; a text picks the first
 *                               device whose platform name contains it, else the first whose "<platform> <device>"
 *                               does (checked for every platform and device name and every letter and digit against
 *                               the devices the indices open); unset, with CPU devices only, index 0. Meaningful with
 *                               several platforms: scripts/test.sh's Intel pass sees PoCL and Intel's runtime.
 * The data are chosen (by seed search) so that the candidate algorithms give pairwise different bits, so the
 * forcing is really observed. Names are the ones redscan_*_name() returns. Each setting needs a context of its
 * own (the variables are read by redscan_create). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
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

/* ---- REDSCAN_OPENCL_DEVICE: the order of the indices and what a text picks ---- */
#define MAX_DEVICES 16
typedef struct {
    char platform[160], device[160];
    int cpu; /* REDSCAN_OPENCL_SHAPE=cpu accepted: a CPU device */
} listed_device;

/* The device an OpenCL context was opened on, split out of redscan_device_name's "<platform> / <device>". */
static void split_name(redscan_ctx *c, listed_device *d)
{
    const char *name = redscan_device_name(c), *sep = strstr(name, " / ");
    snprintf(d->platform, sizeof d->platform, "%.*s", sep ? (int)(sep - name) : (int)strlen(name), name);
    snprintf(d->device, sizeof d->device, "%s", sep ? sep + 3 : "");
}

static int contains_nocase(const char *hay, const char *needle)
{
    const size_t nl = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < nl && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
        if (i == nl) return 1;
    }
    return nl == 0;
}

/* The device REDSCAN_OPENCL_DEVICE=value must pick by the documented rule, or -1 for none. */
static int expected_pick(const listed_device *list, int n, const char *value)
{
    for (int i = 0; i < n; i++)
        if (contains_nocase(list[i].platform, value)) return i;
    for (int i = 0; i < n; i++) {
        char label[330];
        snprintf(label, sizeof label, "%.159s %.159s", list[i].platform, list[i].device);
        if (contains_nocase(label, value)) return i;
    }
    return -1;
}

static void check_device_selection(void)
{
    listed_device list[MAX_DEVICES];
    int n = 0;
    char sel[16];
    if (h_case("REDSCAN_OPENCL_DEVICE=<index>: every device, platforms in name order")) {
        for (; n < MAX_DEVICES; n++) {
            snprintf(sel, sizeof sel, "%d", n);
            redscan_ctx *c = NULL;
            redscan_status st = create_with("REDSCAN_OPENCL_DEVICE", sel, REDSCAN_BACKEND_OPENCL, &c);
            const char *msg = redscan_last_error(NULL);
            if (st != REDSCAN_OK) {
                CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && msg && strstr(msg, "out of range") && n > 0,
                      "REDSCAN_OPENCL_DEVICE=%s: %s (%s), want a context or, past the last device, an out-of-range "
                      "error",
                      sel, redscan_status_string(st), msg ? msg : "no message");
                break;
            }
            split_name(c, &list[n]);
            redscan_destroy(c);
            c = NULL;
            /* CPU or not: the CPU shape is accepted on CPU devices only */
            const char *old = getenv("REDSCAN_OPENCL_SHAPE");
            char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
            setenv("REDSCAN_OPENCL_SHAPE", "cpu", 1);
            st = create_with("REDSCAN_OPENCL_DEVICE", sel, REDSCAN_BACKEND_OPENCL, &c);
            if (saved) setenv("REDSCAN_OPENCL_SHAPE", saved, 1);
            else unsetenv("REDSCAN_OPENCL_SHAPE");
            free(saved);
            list[n].cpu = st == REDSCAN_OK;
            redscan_destroy(c);
            printf("device %d: %s / %s (%s)\n", n, list[n].platform, list[n].device, list[n].cpu ? "CPU" : "not a CPU");
            if (n > 0)
                CHECK(strcmp(list[n - 1].platform, list[n].platform) <= 0,
                      "index %d is on platform \"%s\", index %d on \"%s\": not in name order", n - 1,
                      list[n - 1].platform, n, list[n].platform);
        }
    }
    if (n == 0) return;
    if (h_case("REDSCAN_OPENCL_DEVICE unset: CPUs only, index 0")) {
        int all_cpu = 1;
        for (int i = 0; i < n; i++) all_cpu &= list[i].cpu;
        const char *old = getenv("REDSCAN_OPENCL_DEVICE");
        char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
        unsetenv("REDSCAN_OPENCL_DEVICE");
        redscan_ctx *c = NULL;
        redscan_status st = redscan_create(&c, REDSCAN_BACKEND_OPENCL);
        if (saved) setenv("REDSCAN_OPENCL_DEVICE", saved, 1);
        free(saved);
        if (CHECK(st == REDSCAN_OK, "redscan_create(OPENCL), REDSCAN_OPENCL_DEVICE unset: %s: %s",
                  redscan_status_string(st), redscan_last_error(NULL))) {
            listed_device d;
            split_name(c, &d);
            if (all_cpu) /* with a GPU the first GPU is picked: not checked (the type is not visible here) */
                CHECK(!strcmp(d.platform, list[0].platform) && !strcmp(d.device, list[0].device),
                      "unset: picked %s / %s, want index 0 (%s / %s)", d.platform, d.device, list[0].platform,
                      list[0].device);
            redscan_destroy(c);
        }
    }
    if (h_case("REDSCAN_OPENCL_DEVICE=<text>: platform name first, then \"<platform> <device>\"")) {
        char values[2 * MAX_DEVICES + 36][160];
        int nv = 0;
        for (int i = 0; i < n; i++) {
            memcpy(values[nv++], list[i].platform, sizeof values[0]);
            memcpy(values[nv++], list[i].device, sizeof values[0]);
        }
        for (char ch = 'a'; ch <= 'z'; ch++) snprintf(values[nv++], sizeof values[0], "%c", ch);
        for (char ch = '0'; ch <= '9'; ch++) snprintf(values[nv++], sizeof values[0], "x%c", ch); /* not an index */
        int discriminating = 0;
        for (int v = 0; v < nv; v++) {
            const int want = expected_pick(list, n, values[v]);
            redscan_ctx *c = NULL;
            redscan_status st = create_with("REDSCAN_OPENCL_DEVICE", values[v], REDSCAN_BACKEND_OPENCL, &c);
            if (want < 0) {
                CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT, "REDSCAN_OPENCL_DEVICE=%s matches no device: %s, want "
                      "INVALID_ARGUMENT", values[v], redscan_status_string(st));
            } else if (CHECK(st == REDSCAN_OK, "REDSCAN_OPENCL_DEVICE=%s: %s: %s", values[v],
                             redscan_status_string(st), redscan_last_error(NULL))) {
                listed_device d;
                split_name(c, &d);
                CHECK(!strcmp(d.platform, list[want].platform) && !strcmp(d.device, list[want].device),
                      "REDSCAN_OPENCL_DEVICE=%s picked %s / %s, want index %d (%s / %s)", values[v], d.platform,
                      d.device, want, list[want].platform, list[want].device);
                /* a value a plain "<platform> <device>" search would give to an earlier device */
                for (int i = 0; i < want; i++) {
                    char label[330];
                    snprintf(label, sizeof label, "%.159s %.159s", list[i].platform, list[i].device);
                    if (contains_nocase(label, values[v]) && strcmp(list[i].platform, list[want].platform)) {
                        discriminating++;
                        break;
                    }
                }
            }
            redscan_destroy(c);
        }
        printf("REDSCAN_OPENCL_DEVICE: %d values checked, %d of them picked by their platform name over an "
               "earlier device's name\n",
               nv, discriminating);
        const int intel = expected_pick(list, n, "intel");
        if (intel >= 0)
            printf("REDSCAN_OPENCL_DEVICE=intel: index %d, %s / %s\n", intel, list[intel].platform,
                   list[intel].device);
    }
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
    if (!strcmp(redscan_backend_name(h_ctx), "opencl")) check_device_selection();
    for (int b = 1; b <= 4; b++) free(e[b]);
    free(x);
    free(y);
    return h_done();
}
