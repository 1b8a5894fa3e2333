/* test_shape: the two kernel shapes of the OpenCL backend (docs/ALGORITHMS.md, "CPU shape") give the same bits.
 *
 * The same inputs go through a context made with REDSCAN_OPENCL_SHAPE=gpu and one made with REDSCAN_OPENCL_SHAPE=cpu
 * on the same device, and every result must be bitwise equal (NaN payloads included):
 *   reduce  coarsened and AUTO, every op x dtype and widening, sizes around the tile (4096) and the CPU shape's runs
 *           of tiles, every data generator (NaN, inf, signed zeros, subnormals); one size whose partials need a
 *           second pass of the CPU-shaped kernel over more than one tile;
 *   scan    coarsened x reduce_then_scan and AUTO, every op x dtype and widening, inclusive / exclusive, init NULL or
 *           a value, out of place (host form) or in place (device buffers), sizes around the section (2048), the
 *           runs of sections and one with two levels of section totals.
 * On PoCL the test also sees which kernels each context made PoCL compile (PoCL's kernel cache, in a directory of
 * its own, in a child process), so the comparison is known to be between the two shapes: under gpu the GPU-shaped
 * kernels run and no CPU-shaped one; by default (auto: PoCL is a CPU device) the CPU-shaped ones. Elsewhere that
 * check says it cannot look.
 * REDSCAN_TEST_LEVEL: 0 five (dtype, op) programs, 1 (default) ten, 2 all 36 and every large case.
 * The .cuda registration skips: the CPU shape is OpenCL-only (CUDA devices are GPUs). */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static redscan_ctx *ctx_shape(const char *shape)
{
    const char *old = getenv("REDSCAN_OPENCL_SHAPE");
    char *saved = old ? strcpy((char *)h_malloc(strlen(old) + 1), old) : NULL;
    setenv("REDSCAN_OPENCL_SHAPE", shape, 1);
    redscan_ctx *c = NULL;
    redscan_status st = redscan_create(&c, REDSCAN_BACKEND_OPENCL);
    CHECK(st == REDSCAN_OK, "redscan_create with REDSCAN_OPENCL_SHAPE=%s: %s: %s", shape, redscan_status_string(st),
          redscan_last_error(NULL));
    if (saved) setenv("REDSCAN_OPENCL_SHAPE", saved, 1);
    else unsetenv("REDSCAN_OPENCL_SHAPE");
    free(saved);
    return st == REDSCAN_OK ? c : NULL;
}

/* ---------------------------------------------------------------- which kernels PoCL compiled */

/* Whether a directory named `name` exists anywhere below `dir` (PoCL's kernel cache keeps one per kernel). */
static int tree_has(const char *dir, const char *name, int depth)
{
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    if (!d) return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
        found = !strcmp(e->d_name, name) || tree_has(path, name, depth + 1);
    }
    closedir(d);
    return found;
}

static char g_kcache[256]; /* PoCL's kernel cache of this process, "" when not ours to look at */

/* rm -r of the test's own cache directory (nothing else: the path is the one mkdtemp made). */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = depth < 16 ? opendir(dir) : NULL;
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        struct stat sb;
        if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_tree(path, depth + 1);
        else remove(path);
    }
    closedir(d);
    rmdir(dir);
}

/* PoCL reads POCL_CACHE_DIR once per process, so the kernel check runs in a child process of its own, forked before
 * any OpenCL call, with a fresh cache directory; its programs are built from source (REDSCAN_CACHE=0: a program
 * binary would bring every kernel of its program along). Exit status: 0 pass, 1 fail, H_SKIP not checkable. */
static int kernels_child(void);
static int run_kernel_check(void)
{
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) exit(kernels_child()); /* exit, not _exit: the atexit handler removes the cache directory */
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 1;
    return WEXITSTATUS(status);
}

/* One reduce and one scan (AUTO algorithms) on each context, the GPU shape first; after each, the kernel
 * directories that exist. */
static void check_kernels(redscan_ctx *gpu, redscan_ctx *cpu)
{
    enum { N = 3 * 4096 + 5 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)(i % 7) - 3.0f;
    float r;
    redscan_ctx *ctxs[2] = {gpu, cpu};
    for (int s = 0; s < 2; s++) {
        redscan_status st = redscan_reduce_host(ctxs[s], REDSCAN_SUM, REDSCAN_FLOAT32, x, N, &r);
        CHECK(st == REDSCAN_OK, "reduce (%s): %s", s ? "cpu" : "gpu", redscan_last_error(ctxs[s]));
        st = redscan_scan_host(ctxs[s], REDSCAN_SUM, REDSCAN_FLOAT32, 0, x, y, N);
        CHECK(st == REDSCAN_OK, "scan (%s): %s", s ? "cpu" : "gpu", redscan_last_error(ctxs[s]));
        if (s == 0) {
            if (!tree_has(g_kcache, "reduce_coarsened_in", 0)) {
                printf("NOTE: PoCL's kernel cache in %s has no directory per kernel (another PoCL layout?): which "
                       "kernels ran is not checked\n", g_kcache);
                return;
            }
            CHECK(!tree_has(g_kcache, "reduce_coarsened_cpu_in", 0) &&
                      !tree_has(g_kcache, "scan_tile_seeded_cpu_in_coarse", 0),
                  "REDSCAN_OPENCL_SHAPE=gpu launched a CPU-shaped kernel");
            /* the AUTO grid takes its carries from the chain (single_pass's order), not the recursive totals scan */
            CHECK(tree_has(g_kcache, "scan_totals_chain", 0),
                  "REDSCAN_OPENCL_SHAPE=gpu: the AUTO scan did not launch scan_totals_chain");
        } else {
            CHECK(tree_has(g_kcache, "reduce_coarsened_cpu_in", 0),
                  "REDSCAN_OPENCL_SHAPE=auto on a CPU device: reduce_coarsened_cpu_in was not launched");
            CHECK(tree_has(g_kcache, "tile_reduce_cpu_in_coarse", 0) &&
                      tree_has(g_kcache, "scan_tile_seeded_cpu_in_coarse", 0),
                  "REDSCAN_OPENCL_SHAPE=auto on a CPU device: the CPU-shaped scan kernels were not launched");
        }
    }
}

static void kcache_remove(void) { remove_tree(g_kcache, 0); }

static int kernels_child(void)
{
    snprintf(g_kcache, sizeof g_kcache, "/tmp/redscan-test-shape-XXXXXX");
    if (!mkdtemp(g_kcache)) {
        printf("NOTE: no directory for PoCL's kernel cache: which kernels ran is not checked\n");
        return H_SKIP;
    }
    atexit(kcache_remove); /* h_open exits (77) where the backend is unavailable */
    setenv("POCL_CACHE_DIR", g_kcache, 1);
    setenv("REDSCAN_CACHE", "0", 1);
    unsetenv("REDSCAN_REDUCE_ALGO");
    unsetenv("REDSCAN_SCAN_BLOCK");
    unsetenv("REDSCAN_SCAN_GRID");
    h_open("test_shape (kernels launched per shape)");
    int rc = H_SKIP;
    if (strcmp(redscan_backend_name(h_ctx), "opencl") != 0 ||
        !strstr(redscan_device_name(h_ctx), "Portable Computing Language")) {
        printf("NOTE: not PoCL: which kernels ran is not checked\n");
        h_done();
    } else {
        /* PoCL is a CPU device: the default (auto) must pick the CPU shape */
        redscan_ctx *gpu = ctx_shape("gpu"), *cpu = ctx_shape("auto");
        if (gpu && cpu && h_case("kernels launched per shape")) check_kernels(gpu, cpu);
        redscan_destroy(gpu);
        redscan_destroy(cpu);
        rc = h_done();
    }
    return rc; /* kcache_remove runs at exit */
}

/* ---------------------------------------------------------------- bits */

typedef struct {
    redscan_dtype dt, out;
    redscan_op op;
} combo;

static size_t esize(redscan_dtype dt) { return redscan_dtype_size(dt); }

static void reduce_case(redscan_ctx *gpu, redscan_ctx *cpu, combo c, redscan_reduce_algo algo, const void *x,
                        size_t n, const char *gen)
{
    if (!h_case("reduce %s %s->%s %s n=%zu %s", redscan_op_name(c.op), redscan_dtype_name(c.dt),
                redscan_dtype_name(c.out), h_algo_str(algo), n, gen))
        return;
    redscan_reduce_desc d = {c.op, c.dt, c.out, algo, 0};
    unsigned char a[8] = {0}, b[8] = {0};
    if (!CHECK_OK(redscan_reduce_host_ex(gpu, &d, x, n, a), "reduce (gpu shape)")) return;
    if (!CHECK_OK(redscan_reduce_host_ex(cpu, &d, x, n, b), "reduce (cpu shape)")) return;
    CHECK_MEM(b, a, esize(c.out), "reduce: cpu shape against gpu shape");
}

/* variant bits: 1 exclusive, 2 init, 4 in place (device buffers; needs out == dt) */
static void scan_case(redscan_ctx *gpu, redscan_ctx *cpu, combo c, int auto_algo, int variant, const void *x,
                      size_t n, const char *gen)
{
    const int exclusive = variant & 1, with_init = (variant & 2) != 0, inplace = (variant & 4) && c.out == c.dt;
    if (!h_case("scan %s %s->%s %s n=%zu %s%s%s%s", redscan_op_name(c.op), redscan_dtype_name(c.dt),
                redscan_dtype_name(c.out), auto_algo ? "auto" : "coarsened/reduce_then_scan", n, gen,
                exclusive ? " exclusive" : " inclusive", with_init ? " init" : "", inplace ? " in-place" : ""))
        return;
    /* init: a value that changes every result (a NaN for float min/max would hide the rest) */
    ref_val init = {0};
    switch (c.out) {
    case REDSCAN_INT32: init.i32 = c.op == REDSCAN_MIN ? 5 : c.op == REDSCAN_MAX ? -5 : 3; break;
    case REDSCAN_UINT32: init.u32 = c.op == REDSCAN_MIN ? 0xfffffff0u : 3; break;
    case REDSCAN_INT64: init.i64 = c.op == REDSCAN_MIN ? 5 : c.op == REDSCAN_MAX ? -5 : 3; break;
    case REDSCAN_UINT64: init.u64 = c.op == REDSCAN_MIN ? 0xfffffffffffffff0ull : 3; break;
    case REDSCAN_FLOAT32: init.f32 = c.op == REDSCAN_PROD ? 1.5f : 0.375f; break;
    default: init.f64 = c.op == REDSCAN_PROD ? 1.5 : 0.375; break;
    }
    redscan_scan_desc d = {c.op, c.dt, c.out, exclusive, with_init ? (const void *)&init : NULL,
                           auto_algo ? REDSCAN_BLOCK_AUTO : REDSCAN_BLOCK_COARSENED,
                           auto_algo ? REDSCAN_GRID_AUTO : REDSCAN_GRID_REDUCE_THEN_SCAN, 0};
    const size_t bytes = n * esize(c.out);
    unsigned char *ya = (unsigned char *)h_malloc(bytes), *yb = (unsigned char *)h_malloc(bytes);
    redscan_ctx *ctxs[2] = {gpu, cpu};
    unsigned char *ys[2] = {ya, yb};
    int ok = 1;
    for (int s = 0; s < 2 && ok; s++) {
        if (!inplace) {
            ok = CHECK_OK(redscan_scan_host_ex(ctxs[s], &d, x, ys[s], n), s ? "scan (cpu shape)" : "scan (gpu shape)");
            continue;
        }
        redscan_buffer *buf = NULL;
        ok = CHECK_OK(redscan_buffer_create(ctxs[s], bytes, &buf), "buffer_create") &&
             CHECK_OK(redscan_buffer_write(ctxs[s], buf, 0, x, bytes), "buffer_write") &&
             CHECK_OK(redscan_scan_ex(ctxs[s], &d, buf, buf, n), s ? "in-place scan (cpu)" : "in-place scan (gpu)") &&
             CHECK_OK(redscan_buffer_read(ctxs[s], buf, 0, ys[s], bytes), "buffer_read");
        redscan_buffer_destroy(ctxs[s], buf);
    }
    if (ok) CHECK_MEM(yb, ya, bytes, "scan: cpu shape against gpu shape");
    free(ya);
    free(yb);
}

int main(void)
{
    const int kernels = run_kernel_check(); /* before this process makes any OpenCL call */
    h_open("test_shape");
    if (strcmp(redscan_backend_name(h_ctx), "opencl") != 0) {
        printf("SKIP test_shape: the CPU shape is OpenCL-only (CUDA devices are GPUs); backend is %s\n",
               redscan_backend_name(h_ctx));
        h_done();
        return H_SKIP;
    }
    if (h_case("kernels launched per shape (child process)"))
        CHECK(kernels == 0 || kernels == H_SKIP, "the kernel check failed (exit status %d; its output is above)",
              kernels);
    /* the suite may run with an algorithm forced: this test names its algorithms */
    unsetenv("REDSCAN_REDUCE_ALGO");
    unsetenv("REDSCAN_SCAN_BLOCK");
    unsetenv("REDSCAN_SCAN_GRID");
    /* Programs built from source: storing a program binary in the on-disk cache makes PoCL compile every kernel of
     * the program first (about 0.4 s per kernel on this 2-core machine), which this test does not need. */
    setenv("REDSCAN_CACHE", "0", 1);
    if (!strstr(redscan_device_name(h_ctx), "Portable Computing Language")) {
        /* Elsewhere the CPU shape must run on a CPU device and be refused on any other (ocl_shape.c). */
        setenv("REDSCAN_OPENCL_SHAPE", "cpu", 1);
        redscan_ctx *c = NULL;
        const redscan_status st = redscan_create(&c, REDSCAN_BACKEND_OPENCL);
        const char *msg = redscan_last_error(NULL);
        unsetenv("REDSCAN_OPENCL_SHAPE");
        if (st == REDSCAN_ERR_UNSUPPORTED) {
            if (h_case("REDSCAN_OPENCL_SHAPE=cpu refused on a device that is not a CPU"))
                CHECK(c == NULL && msg && strstr(msg, "not an OpenCL CPU device"), "refused without the reason: %s",
                      msg ? msg : "no message");
            const int rc = h_done();
            if (rc != 0) return rc;
            printf("SKIP test_shape: %s is not an OpenCL CPU device, so it runs the GPU shape only (its refusal of "
                   "the CPU shape was checked)\n", redscan_device_name(h_ctx));
            return H_SKIP;
        }
        redscan_destroy(c); /* accepted: a CPU device other than PoCL; compare the shapes as below */
    }
    redscan_ctx *gpu = ctx_shape("gpu"), *cpu = ctx_shape("cpu");
    if (!gpu || !cpu) {
        redscan_destroy(gpu);
        redscan_destroy(cpu);
        return h_done();
    }

    /* Level 0: five programs; level 1: ten (every element size, float and integer combines, signed and unsigned,
     * every op, the three kinds of widening); level 2: every op x dtype and widening. PoCL builds each program
     * once per context (seconds each), which is most of this test's time. */
    static const combo chosen[] = {
        {REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_SUM}, {REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_MIN},
        {REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_SUM}, {REDSCAN_INT32, REDSCAN_INT32, REDSCAN_SUM},
        {REDSCAN_UINT64, REDSCAN_UINT64, REDSCAN_MAX},   {REDSCAN_FLOAT32, REDSCAN_FLOAT32, REDSCAN_PROD},
        {REDSCAN_FLOAT64, REDSCAN_FLOAT64, REDSCAN_MAX}, {REDSCAN_INT32, REDSCAN_INT64, REDSCAN_PROD},
        {REDSCAN_UINT32, REDSCAN_UINT64, REDSCAN_MIN},   {REDSCAN_INT64, REDSCAN_INT64, REDSCAN_MIN},
    };
    combo combos[36];
    int ncombo = 0;
    const int level = h_level();
    if (level >= 2) {
        for (int dt = REDSCAN_INT32; dt <= REDSCAN_FLOAT64; dt++)
            for (int op = REDSCAN_SUM; op <= REDSCAN_MAX; op++) {
                combos[ncombo++] = (combo){(redscan_dtype)dt, (redscan_dtype)dt, (redscan_op)op};
                if (dt == REDSCAN_INT32 || dt == REDSCAN_UINT32 || dt == REDSCAN_FLOAT32)
                    combos[ncombo++] = (combo){(redscan_dtype)dt,
                                               (redscan_dtype)(dt + (dt == REDSCAN_FLOAT32 ? 1 : 2)), (redscan_op)op};
            }
    } else {
        for (int i = 0; i < (level >= 1 ? 10 : 5); i++) combos[ncombo++] = chosen[i];
    }
    /* tiles of 4096 (reduce), sections of 2048 (scan); the CPU shape's runs are 8 units or more */
    const size_t red_sizes[] = {1, 7, 4095, 4096, 4097, 8 * 4096 + 1, 100003, 32 * 8 * 4096 + 9};
    const size_t scan_sizes[] = {1, 2047, 2048, 2049, 8 * 2048 - 1, 8 * 2048 + 1, 40000, 32 * 8 * 2048 + 7};
    const size_t big_reduce = (size_t)4096 * 4097 + 5; /* 4098 partials: the second pass has two tiles */
    const size_t big_scan = (size_t)2048 * 2048 + 3;   /* 2049 section totals: two levels */
    const size_t nmax = big_reduce;
    void *x = h_malloc(nmax * 8);
    h_rng r;

    for (int ci = 0; ci < ncombo; ci++) {
        const combo c = combos[ci];
        const int ngen = h_gen_count(c.dt);
        for (size_t si = 0; si < sizeof red_sizes / sizeof red_sizes[0]; si++) {
            const size_t n = red_sizes[si];
            const h_gen g = (h_gen)((ci + si) % (size_t)ngen);
            h_rng_init(&r, h_seed(11, (uint64_t)ci, n, (uint64_t)g, 0, 0));
            h_generate(&r, c.dt, c.op, g, x, n);
            reduce_case(gpu, cpu, c, REDSCAN_REDUCE_COARSENED, x, n, h_gen_name(g));
            if (si % 3 == (size_t)ci % 3) reduce_case(gpu, cpu, c, REDSCAN_REDUCE_AUTO, x, n, h_gen_name(g));
        }
        for (size_t si = 0; si < sizeof scan_sizes / sizeof scan_sizes[0]; si++) {
            const size_t n = scan_sizes[si];
            const h_gen g = (h_gen)((ci + si + 1) % (size_t)ngen);
            h_rng_init(&r, h_seed(12, (uint64_t)ci, n, (uint64_t)g, 0, 0));
            h_generate(&r, c.dt, c.op, g, x, n);
            /* every variant at the small sizes, two rotating ones above (level 2: all) */
            for (int v = 0; v < 8; v++)
                if (n <= 8 * 2048 + 1 || level >= 2 || v == (int)((ci + si) % 8) || v == (int)((ci + si + 3) % 8))
                    scan_case(gpu, cpu, c, v == 5, v, x, n, h_gen_name(g));
        }
        /* the large sizes: two combos at level 1, all at level 2 */
        if (level >= 2 || (level >= 1 && ci < 3 && ci != 1)) {
            const h_gen g = (h_gen)(ci % ngen);
            h_rng_init(&r, h_seed(13, (uint64_t)ci, 0, (uint64_t)g, 0, 0));
            h_generate(&r, c.dt, c.op, g, x, big_reduce);
            reduce_case(gpu, cpu, c, REDSCAN_REDUCE_COARSENED, x, big_reduce, h_gen_name(g));
            scan_case(gpu, cpu, c, 1, ci % 8, x, big_scan, h_gen_name(g));
        }
    }
    free(x);
    redscan_destroy(gpu);
    redscan_destroy(cpu);
    return h_done();
}
