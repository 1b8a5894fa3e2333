/* libredscan_mpi (docs/DISTRIBUTED.md): one global array split across the ranks in several ways (uneven, empty ranks,
 * cuts inside tiles and sections, ranks smaller than a tile, one rank holding everything); every rank compares the
 * distributed result with the single-process one (redscan_reduce_ex / redscan_scan_ex / redscan_argmin / _argmax /
 * redscan_topk on the whole array, in its own context), bit for bit. Then the collective errors: a bad argument on one
 * rank, ranks that disagree on the op / dtype: every rank returns an error, nothing hangs, outputs stay untouched.
 *
 * Run with mpirun -np 1..4 (tests/CMakeLists.txt: test_mpi_np<K>.<backend>). Exit 77 on every rank when the backend
 * cannot run here. REDSCAN_TEST_FILTER=<s> runs the cases whose name contains s. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redscan_mpi.h"

static int g_rank, g_size;
static long g_fail, g_checks;
static redscan_ctx *g_ctx;
static char g_case[256];
static const char *g_filter;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (g_fail < 20) {
        fprintf(stderr, "[rank %d/%d] FAIL %s: ", g_rank, g_size, g_case);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
    }
    va_end(ap);
    g_fail++;
}

#define CHECK(cond, ...)                  \
    do {                                  \
        g_checks++;                       \
        if (!(cond)) fail(__VA_ARGS__);   \
    } while (0)

static int set_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_case, sizeof g_case, fmt, ap);
    va_end(ap);
    return !g_filter || strstr(g_case, g_filter) != NULL;
}

/* ---- the global array: a deterministic function of (case seed, global index), so every rank builds it alike ---- */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint16_t half_of(float f) /* test data only: values exactly representable in float16 */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const int e = (int)((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(sign | (uint16_t)(e << 10) | (uint16_t)((u >> 13) & 0x3ffu));
}

/* Values that make float sums order-sensitive (random magnitudes over 2^-20 .. 2^20), products that stay in range,
 * min / max with ties, -0.0 / +0.0 and NaNs with payloads. */
static void element(redscan_dtype dt, redscan_op op, uint64_t seed, uint64_t i, void *dst)
{
    const uint64_t r = mix(seed * 0x100000001b3ull + i);
    const int minmax = op == REDSCAN_MIN || op == REDSCAN_MAX;
    const double unit = (double)(r >> 11) / 9007199254740992.0;
    double f = op == REDSCAN_PROD ? 0.96 + 0.08 * unit
                                  : (r & 1 ? -1.0 : 1.0) * (1.0 + unit) * ldexp(1.0, (int)((r >> 8) % 41) - 20);
    if (minmax) f = (r & 1 ? -1.0 : 1.0) * (double)((r >> 4) % 97); /* ties */
    if (minmax && (r >> 20) % 53 == 0) f = (r & 2) ? -0.0 : 0.0;
    const int nan = minmax && (r >> 30) % 40009 == 7; /* a few NaNs with payloads */
    switch (dt) {
    case REDSCAN_INT32: {
        int32_t v = op == REDSCAN_SUM ? (int32_t)(uint32_t)r : op == REDSCAN_PROD ? (int32_t)((r & 0xff) | 1) : (int32_t)f;
        memcpy(dst, &v, 4);
        break;
    }
    case REDSCAN_INT64: {
        int64_t v = op == REDSCAN_SUM ? (int64_t)r : op == REDSCAN_PROD ? (int64_t)(r | 1) : (int64_t)f;
        memcpy(dst, &v, 8);
        break;
    }
    case REDSCAN_INT8: {
        int8_t v = minmax ? (int8_t)f : (int8_t)(op == REDSCAN_PROD ? (r | 1) : r);
        memcpy(dst, &v, 1);
        break;
    }
    case REDSCAN_FLOAT32: {
        float v = (float)f;
        uint32_t u;
        memcpy(&u, &v, 4);
        if (nan) u = 0x7fc00000u | (uint32_t)(r & 0x3fffff) | (uint32_t)(r & 0x80000000u);
        memcpy(dst, &u, 4);
        break;
    }
    case REDSCAN_FLOAT64: {
        uint64_t u;
        memcpy(&u, &f, 8);
        if (nan) u = 0x7ff8000000000000ull | (r & 0xfffffffffffull);
        memcpy(dst, &u, 8);
        break;
    }
    case REDSCAN_FLOAT16: { /* small dyadic values: exact in float16 */
        const float h = minmax ? (float)f : op == REDSCAN_PROD ? (r & 1 ? 1.0f : 1.0f + 0.0078125f * (float)((r >> 3) & 3))
                                                               : (r & 1 ? -1.0f : 1.0f) * (float)((r >> 4) % 1000) / 64.0f;
        uint16_t u = h == 0.0f ? (uint16_t)(signbit(h) ? 0x8000u : 0) : half_of(h);
        if (nan) u = (uint16_t)(0x7e00u | (r & 0x1ff));
        memcpy(dst, &u, 2);
        break;
    }
    default: break;
    }
}

static void *global_array(redscan_dtype dt, redscan_op op, uint64_t seed, size_t n)
{
    const size_t es = redscan_dtype_size(dt);
    char *a = malloc(n * es + 1);
    for (size_t i = 0; i < n; i++) element(dt, op, seed, i, a + i * es);
    return a;
}

/* ---- splits of n elements over the ranks ---- */
#define NSPLITS 6
static void split(int kind, size_t n, size_t *counts)
{
    const int p = g_size;
    for (int q = 0; q < p; q++) counts[q] = 0;
    size_t left = n;
    switch (kind) {
    case 0: /* even, the remainder on rank 0 */
        for (int q = 0; q < p; q++) counts[q] = n / (size_t)p;
        counts[0] += n % (size_t)p;
        return;
    case 1: /* everything on the last rank */
        counts[p - 1] = n;
        return;
    case 2: /* odd cuts inside tiles and sections: 1, 2047 + 3, 4096 + 5, ... ; rank 1 empty when p > 2 */
        for (int q = 0; q < p - 1; q++) {
            size_t want = q == 1 && p > 2 ? 0 : (size_t)(q == 0 ? 1 : 2047 * (size_t)q + 3 + 4096 * (size_t)(q % 2));
            counts[q] = want < left ? want : left;
            left -= counts[q];
        }
        counts[p - 1] = left;
        return;
    case 3: /* every rank but the last smaller than a section */
        for (int q = 0; q < p - 1; q++) {
            size_t want = 700 + 333 * (size_t)q;
            counts[q] = want < left ? want : left;
            left -= counts[q];
        }
        counts[p - 1] = left;
        return;
    case 4: /* rank 0 empty, the rest at pseudo-random cuts */
        for (int q = 1; q < p - 1; q++) {
            size_t want = left ? (size_t)(mix(q * 977 + n) % (left + 1)) : 0;
            counts[q] = want;
            left -= want;
        }
        counts[p - 1] = left;
        if (p == 1) counts[0] = n;
        return;
    default: /* the last rank empty, the others equal */
        if (p == 1) {
            counts[0] = n;
            return;
        }
        for (int q = 0; q < p - 1; q++) counts[q] = n / (size_t)(p - 1);
        counts[0] += n % (size_t)(p - 1);
        return;
    }
}

static int nsplits(void) { return g_size == 1 ? 1 : NSPLITS; }

/* This rank's part of the global array in a device buffer (one spare element past it, poisoned). */
static redscan_buffer *local_part(const void *global, size_t es, size_t offset, size_t count)
{
    redscan_buffer *b = NULL;
    if (redscan_buffer_create(g_ctx, (count + 1) * es, &b) != REDSCAN_OK) return NULL;
    char *h = malloc((count + 1) * es);
    memcpy(h, (const char *)global + offset * es, count * es);
    memset(h + count * es, 0x5a, es);
    redscan_buffer_write(g_ctx, b, 0, h, (count + 1) * es);
    free(h);
    return b;
}

static size_t offset_of(const size_t *counts)
{
    size_t o = 0;
    for (int q = 0; q < g_rank; q++) o += counts[q];
    return o;
}

static redscan_buffer *upload(const void *h, size_t bytes)
{
    redscan_buffer *b = NULL;
    if (redscan_buffer_create(g_ctx, bytes ? bytes : 1, &b) != REDSCAN_OK) return NULL;
    if (bytes) redscan_buffer_write(g_ctx, b, 0, h, bytes);
    return b;
}

/* ---- reduce ---- */
static void reduce_case(redscan_op op, redscan_dtype dt, redscan_dtype out, size_t n)
{
    if (!set_case("reduce %s %s->%s n=%zu", redscan_op_name(op), redscan_dtype_name(dt),
                  out ? redscan_dtype_name(out) : "same", n))
        return;
    const size_t es = redscan_dtype_size(dt), os = redscan_dtype_size(out ? out : dt);
    void *g = global_array(dt, op, 1000 + n * 7 + (size_t)op * 13 + (size_t)dt, n);
    const redscan_reduce_desc d = {op, dt, out, REDSCAN_REDUCE_AUTO, 0};
    unsigned char want[8] = {0}, got[8];
    redscan_buffer *whole = upload(g, n * es);
    redscan_status st = redscan_reduce_ex(g_ctx, &d, whole, n, want);
    CHECK(st == REDSCAN_OK, "single-process reduce: %s", redscan_last_error(g_ctx));
    redscan_buffer_destroy(g_ctx, whole);
    size_t counts[64];
    for (int k = 0; k < nsplits(); k++) {
        split(k, n, counts);
        redscan_buffer *b = local_part(g, es, offset_of(counts), counts[g_rank]);
        memset(got, 0xee, sizeof got);
        st = redscan_mpi_reduce(g_ctx, MPI_COMM_WORLD, &d, b, counts[g_rank], got);
        CHECK(st == REDSCAN_OK, "split %d: %s", k, redscan_last_error(g_ctx));
        CHECK(st != REDSCAN_OK || memcmp(got, want, os) == 0, "split %d: bits differ (got 0x%016llx want 0x%016llx)", k,
              (unsigned long long)(*(uint64_t *)got & (os == 8 ? ~0ull : (1ull << (8 * os)) - 1)),
              (unsigned long long)(*(uint64_t *)want & (os == 8 ? ~0ull : (1ull << (8 * os)) - 1)));
        redscan_buffer_destroy(g_ctx, b);
    }
    free(g);
}

/* ---- scan ---- */
static void scan_case(redscan_op op, redscan_dtype dt, redscan_dtype out, int exclusive, int with_init, int in_place,
                      size_t n)
{
    if (!set_case("scan %s %s->%s %s%s%s n=%zu", redscan_op_name(op), redscan_dtype_name(dt),
                  out ? redscan_dtype_name(out) : "same", exclusive ? "exclusive" : "inclusive",
                  with_init ? " init" : "", in_place ? " in-place" : "", n))
        return;
    const redscan_dtype od = out ? out : dt;
    const size_t es = redscan_dtype_size(dt), os = redscan_dtype_size(od);
    void *g = global_array(dt, op, 5000 + n * 3 + (size_t)op * 17 + (size_t)dt, n);
    unsigned char init[8];
    element(od, op, 99, 12345, init); /* one element of the output type */
    const redscan_scan_desc d = {op, dt, out, exclusive, with_init ? init : NULL, REDSCAN_BLOCK_AUTO,
                                 REDSCAN_GRID_AUTO, 0};
    char *want = malloc(n * os + 1), *got = malloc(n * os + 1);
    redscan_buffer *win = upload(g, n * es), *wout = NULL;
    redscan_buffer_create(g_ctx, n * os + 1, &wout);
    redscan_status st = redscan_scan_ex(g_ctx, &d, win, wout, n);
    CHECK(st == REDSCAN_OK, "single-process scan: %s", redscan_last_error(g_ctx));
    if (n) redscan_buffer_read(g_ctx, wout, 0, want, n * os);
    redscan_buffer_destroy(g_ctx, win);
    redscan_buffer_destroy(g_ctx, wout);
    size_t counts[64];
    for (int k = 0; k < nsplits(); k++) {
        split(k, n, counts);
        const size_t o = offset_of(counts), c = counts[g_rank];
        redscan_buffer *b = local_part(g, es, o, c), *ob = b;
        if (!in_place) {
            redscan_buffer_create(g_ctx, (c + 1) * os, &ob);
            char *poison = malloc((c + 1) * os);
            memset(poison, 0x5a, (c + 1) * os);
            redscan_buffer_write(g_ctx, ob, 0, poison, (c + 1) * os);
            free(poison);
        }
        st = redscan_mpi_scan(g_ctx, MPI_COMM_WORLD, &d, b, ob, c);
        CHECK(st == REDSCAN_OK, "split %d: %s", k, redscan_last_error(g_ctx));
        if (st == REDSCAN_OK) {
            redscan_buffer_read(g_ctx, ob, 0, got, (c + 1) * os);
            size_t bad = c;
            for (size_t i = 0; i < c && bad == c; i++)
                if (memcmp(got + i * os, want + (o + i) * os, os)) bad = i;
            CHECK(bad == c, "split %d: element %zu (global %zu) of %zu here differs", k, bad, o + bad, c);
            unsigned char spare[8];
            memset(spare, 0x5a, sizeof spare);
            CHECK(in_place || memcmp(got + c * os, spare, os) == 0, "split %d: wrote past n_local", k);
        }
        if (ob != b) redscan_buffer_destroy(g_ctx, ob);
        redscan_buffer_destroy(g_ctx, b);
    }
    free(want);
    free(got);
    free(g);
}

/* ---- argmin / argmax / top-k ---- */
static void select_case(redscan_dtype dt, int largest, size_t k, size_t n)
{
    if (!set_case("%s %s k=%zu n=%zu", k ? "topk" : "argext", redscan_dtype_name(dt), k, n)) return;
    const size_t es = redscan_dtype_size(dt), kk = k ? k : 1;
    void *g = global_array(dt, largest ? REDSCAN_MAX : REDSCAN_MIN, 7000 + n + k, n);
    unsigned char wv[256 * 8], gv[256 * 8];
    uint64_t wi[256], gi[256];
    redscan_buffer *whole = upload(g, n * es);
    redscan_status st = k ? redscan_topk(g_ctx, dt, whole, n, k, largest, wv, wi)
                          : (largest ? redscan_argmax : redscan_argmin)(g_ctx, dt, whole, n, wi, wv);
    CHECK(st == REDSCAN_OK, "single-process: %s", redscan_last_error(g_ctx));
    redscan_buffer_destroy(g_ctx, whole);
    size_t counts[64];
    for (int s = 0; s < nsplits(); s++) {
        split(s, n, counts);
        redscan_buffer *b = local_part(g, es, offset_of(counts), counts[g_rank]);
        st = k ? redscan_mpi_topk(g_ctx, MPI_COMM_WORLD, dt, b, counts[g_rank], k, largest, gv, gi)
               : (largest ? redscan_mpi_argmax : redscan_mpi_argmin)(g_ctx, MPI_COMM_WORLD, dt, b, counts[g_rank], gi,
                                                                     gv);
        CHECK(st == REDSCAN_OK, "split %d: %s", s, redscan_last_error(g_ctx));
        CHECK(st != REDSCAN_OK || (memcmp(gv, wv, kk * es) == 0 && memcmp(gi, wi, kk * 8) == 0),
              "split %d: results differ (first index got %llu want %llu)", s, (unsigned long long)gi[0],
              (unsigned long long)wi[0]);
        redscan_buffer_destroy(g_ctx, b);
    }
    free(g);
}

/* ---- collective errors ---- */
static void error_cases(void)
{
    if (!set_case("errors")) return;
    const size_t n = 5000, per = n / (size_t)g_size, mine = per + (g_rank == 0 ? n % (size_t)g_size : 0);
    float *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) h[i] = (float)(i % 101);
    redscan_buffer *b = upload(h, mine * sizeof *h);
    const int last = g_size - 1;
    unsigned char r[8];
    memset(r, 0xee, sizeof r);
    uint64_t idx = 77;
    /* one rank asks for more elements than its buffer holds: every rank fails, the result is not written */
    redscan_reduce_desc d = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_AUTO, 0};
    redscan_status st = redscan_mpi_reduce(g_ctx, MPI_COMM_WORLD, &d, b, g_rank == last ? mine + 1 : mine, r);
    CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT, "bad n_local on rank %d: status %d", last, (int)st);
    CHECK(r[0] == 0xee && r[3] == 0xee, "result written on error");
    CHECK(g_rank == last ? strstr(redscan_last_error(g_ctx), "n_local") != NULL
                         : strstr(redscan_last_error(g_ctx), "rank") != NULL,
          "message does not say what failed: %s", redscan_last_error(g_ctx));
    /* a NULL output on rank 0 only */
    st = redscan_mpi_argmax(g_ctx, MPI_COMM_WORLD, REDSCAN_FLOAT32, b, mine, g_rank == 0 ? NULL : &idx, NULL);
    CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && idx == 77, "NULL global_index on rank 0: status %d", (int)st);
    /* an unsupported algorithm on every rank */
    d.algo = REDSCAN_REDUCE_TREE;
    st = redscan_mpi_reduce(g_ctx, MPI_COMM_WORLD, &d, b, mine, r);
    CHECK(st == REDSCAN_ERR_UNSUPPORTED, "tree: status %d", (int)st);
    d.algo = REDSCAN_REDUCE_AUTO;
    /* k beyond the global count, and empty global arrays */
    float vals[256];
    st = redscan_mpi_topk(g_ctx, MPI_COMM_WORLD, REDSCAN_FLOAT32, b, 0, 3, 1, vals, NULL);
    CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT, "k > N: status %d", (int)st);
    st = redscan_mpi_argmin(g_ctx, MPI_COMM_WORLD, REDSCAN_FLOAT32, b, 0, &idx, NULL);
    CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT, "argmin of nothing: status %d", (int)st);
    if (g_size > 1) {
        /* ranks disagree on the op, then on the dtype (same element size: no rank misreads its buffer) */
        d.op = g_rank == last ? REDSCAN_MAX : REDSCAN_SUM;
        st = redscan_mpi_reduce(g_ctx, MPI_COMM_WORLD, &d, b, mine, r);
        CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && strstr(redscan_last_error(g_ctx), "desc->op"),
              "different ops: status %d, %s", (int)st, redscan_last_error(g_ctx));
        d.op = REDSCAN_SUM;
        d.dtype = g_rank == 0 ? REDSCAN_INT32 : REDSCAN_FLOAT32;
        st = redscan_mpi_reduce(g_ctx, MPI_COMM_WORLD, &d, b, mine, r);
        CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && strstr(redscan_last_error(g_ctx), "dtype"),
              "different dtypes: status %d, %s", (int)st, redscan_last_error(g_ctx));
        redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, g_rank == 0, NULL, REDSCAN_BLOCK_AUTO,
                                REDSCAN_GRID_AUTO, 0};
        st = redscan_mpi_scan(g_ctx, MPI_COMM_WORLD, &sd, b, b, mine);
        CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && strstr(redscan_last_error(g_ctx), "exclusive"),
              "different exclusive: status %d, %s", (int)st, redscan_last_error(g_ctx));
        st = redscan_mpi_topk(g_ctx, MPI_COMM_WORLD, REDSCAN_FLOAT32, b, mine, g_rank == 0 ? 2 : 3, 1, vals, NULL);
        CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && strstr(redscan_last_error(g_ctx), "'k'"),
              "different k: status %d, %s", (int)st, redscan_last_error(g_ctx));
    }
    /* after all that, the communicator and the contexts still work */
    d.dtype = REDSCAN_FLOAT32;
    st = redscan_mpi_reduce(g_ctx, MPI_COMM_WORLD, &d, b, mine, r);
    CHECK(st == REDSCAN_OK, "a good call after the errors: %s", redscan_last_error(g_ctx));
    redscan_buffer_destroy(g_ctx, b);
    free(h);
}

#if defined(REDSCAN_TEST_FAULTS)
#include "redscan_fault.h"
/* A device failure on one rank (fault injection builds: every allocation, transfer and launch of each rank's call
 * in turn, for a reduce, a scan, an argmax and a top-k): every rank returns an error, the same status, nothing hangs; once no fault fires, the result is
 * right again. */
static void fault_cases(void)
{
    const redscan_fault_kind kinds[] = {REDSCAN_FAULT_ALLOC, REDSCAN_FAULT_TRANSFER, REDSCAN_FAULT_LAUNCH};
    const size_t n = 20011;
    size_t counts[64];
    split(2, n, counts);
    const size_t o = offset_of(counts), c = counts[g_rank];
    void *g = global_array(REDSCAN_FLOAT32, REDSCAN_SUM, 31, n);
    const redscan_reduce_desc rd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_AUTO, 0};
    const redscan_scan_desc sd = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    /* the right results, from the single-process calls before any fault */
    float want_r = 0, want_v[3], *want_scan = malloc(n * 4), *got_scan = malloc((c + 1) * 4);
    uint64_t want_ix[3], want_arg = 0;
    float want_argv = 0;
    redscan_buffer *whole = upload(g, n * 4), *wout = NULL;
    redscan_buffer_create(g_ctx, n * 4, &wout);
    CHECK(redscan_reduce_ex(g_ctx, &rd, whole, n, &want_r) == REDSCAN_OK &&
              redscan_scan_ex(g_ctx, &sd, whole, wout, n) == REDSCAN_OK &&
              redscan_buffer_read(g_ctx, wout, 0, want_scan, n * 4) == REDSCAN_OK &&
              redscan_argmax(g_ctx, REDSCAN_FLOAT32, whole, n, &want_arg, &want_argv) == REDSCAN_OK &&
              redscan_topk(g_ctx, REDSCAN_FLOAT32, whole, n, 3, 1, want_v, want_ix) == REDSCAN_OK,
          "faults: the single-process references: %s", redscan_last_error(g_ctx));
    redscan_buffer_destroy(g_ctx, whole);
    redscan_buffer_destroy(g_ctx, wout);
    static const char *const names[] = {"reduce", "scan", "argmax", "topk"};
    for (int what = 0; what < 4; what++)
        for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
            if (!set_case("faults %s %s", names[what], redscan_fault_kind_name(kinds[ki]))) continue;
            for (int victim = 0; victim < g_size; victim++)
                for (uint64_t point = 1; point < 500; point++) {
                    redscan_buffer *b = local_part(g, 4, o, c), *ob = local_part(g, 4, o, c);
                    if (g_rank == victim) redscan_fault_arm(kinds[ki], point);
                    float r = 0, v[3] = {0, 0, 0};
                    uint64_t ix[3] = {0, 0, 0};
                    redscan_status st =
                        what == 0   ? redscan_mpi_reduce(g_ctx, MPI_COMM_WORLD, &rd, b, c, &r)
                        : what == 1 ? redscan_mpi_scan(g_ctx, MPI_COMM_WORLD, &sd, b, ob, c)
                        : what == 2 ? redscan_mpi_argmax(g_ctx, MPI_COMM_WORLD, REDSCAN_FLOAT32, b, c, ix, v)
                                    : redscan_mpi_topk(g_ctx, MPI_COMM_WORLD, REDSCAN_FLOAT32, b, c, 3, 1, v, ix);
                    int fired = g_rank == victim ? (int)redscan_fault_fired(kinds[ki]) : 0, any = 0;
                    redscan_fault_arm(kinds[ki], 0);
                    int lo = (int)st, hi = (int)st, mn, mx;
                    MPI_Allreduce(&fired, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                    MPI_Allreduce(&lo, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
                    MPI_Allreduce(&hi, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                    CHECK(mn == mx, "victim %d point %llu: the ranks returned different statuses (%d .. %d)", victim,
                          (unsigned long long)point, mn, mx);
                    /* OK is right only with the right results (the library may recover from a fault itself: a
                     * scratch allocation with room to grow that fails is retried at the exact size, ocl_memory.c) */
                    if (st == REDSCAN_OK) {
                        int right = 1;
                        if (what == 0) right = memcmp(&r, &want_r, 4) == 0;
                        if (what == 1)
                            right = redscan_buffer_read(g_ctx, ob, 0, got_scan, c * 4) == REDSCAN_OK &&
                                    memcmp(got_scan, want_scan + o, c * 4) == 0;
                        if (what == 2) right = ix[0] == want_arg && memcmp(v, &want_argv, 4) == 0;
                        if (what == 3) right = memcmp(ix, want_ix, sizeof ix) == 0 && memcmp(v, want_v, sizeof v) == 0;
                        CHECK(right, "victim %d point %llu (fault %s): the call returned OK with a wrong result",
                              victim, (unsigned long long)point, any ? "fired" : "not reached");
                    }
                    redscan_buffer_destroy(g_ctx, b);
                    redscan_buffer_destroy(g_ctx, ob);
                    if (!any) break; /* every point of the call passed */
                }
        }
    free(want_scan);
    free(got_scan);
    free(g);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    g_filter = getenv("REDSCAN_TEST_FILTER");
    if (g_filter && !*g_filter) g_filter = NULL;
    redscan_status st = redscan_create(&g_ctx, REDSCAN_BACKEND_AUTO);
    int ok = st == REDSCAN_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (!ok) printf("test_mpi rank %d: skipped: %s\n", g_rank, redscan_last_error(NULL));
        if (g_ctx) redscan_destroy(g_ctx);
        MPI_Finalize();
        return 77;
    }
    if (g_size > 64) {
        if (g_rank == 0) printf("test_mpi: at most 64 ranks\n");
        MPI_Finalize();
        return 1;
    }
    if (g_rank == 0)
        printf("test_mpi: %d rank(s), backend %s, device %s, CUDA-aware MPI: %d\n", g_size,
               redscan_backend_name(g_ctx), redscan_device_name(g_ctx), redscan_mpi_cuda_aware());
    const double t0 = MPI_Wtime();

    /* sizes: 0, 1, one tile or less, a few tiles with a straddle, and 2 reduce levels (300007 / 4096 = 74 partials,
     * reduced on rank 0 by the last pass); below, 3 levels with level 2 distributed */
    const size_t sizes[] = {0, 1, 3000, 4097 + 2048, 300007};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        reduce_case(REDSCAN_SUM, REDSCAN_FLOAT32, 0, n);
        reduce_case(REDSCAN_MAX, REDSCAN_FLOAT32, 0, n);
        if (n > 4096) {
            reduce_case(REDSCAN_SUM, REDSCAN_INT32, 0, n);
            reduce_case(REDSCAN_MIN, REDSCAN_INT32, 0, n);
            reduce_case(REDSCAN_PROD, REDSCAN_INT64, 0, n);
            reduce_case(REDSCAN_SUM, REDSCAN_FLOAT64, 0, n);
            reduce_case(REDSCAN_MIN, REDSCAN_FLOAT64, 0, n);
            reduce_case(REDSCAN_PROD, REDSCAN_FLOAT32, 0, n);
            reduce_case(REDSCAN_SUM, REDSCAN_INT8, 0, n);
            reduce_case(REDSCAN_SUM, REDSCAN_INT8, REDSCAN_INT32, n);
            reduce_case(REDSCAN_SUM, REDSCAN_FLOAT16, 0, n);
            reduce_case(REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT32, n);
            reduce_case(REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT64, n);
        }
    }
    /* level 2 distributed too: 4099 partials of level 1 over the ranks, their 2 partials gathered to rank 0 */
    reduce_case(REDSCAN_SUM, REDSCAN_FLOAT32, 0, 4096 * 4096 + 3 * 4096 + 77);
    reduce_case(REDSCAN_SUM, REDSCAN_INT32, 0, 4096 * 4096 + 3 * 4096 + 77);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, 0, 0, 0, 0, n);
        if (n > 4096) {
            scan_case(REDSCAN_SUM, REDSCAN_FLOAT32, 0, 1, 1, 1, n);
            scan_case(REDSCAN_MAX, REDSCAN_FLOAT32, 0, 1, 0, 0, n);
            scan_case(REDSCAN_MIN, REDSCAN_INT32, 0, 1, 1, 0, n);
            scan_case(REDSCAN_SUM, REDSCAN_INT64, 0, 0, 1, 1, n);
            scan_case(REDSCAN_PROD, REDSCAN_FLOAT64, 0, 0, 0, 0, n);
            scan_case(REDSCAN_SUM, REDSCAN_INT8, 0, 0, 0, 0, n);
            scan_case(REDSCAN_SUM, REDSCAN_FLOAT16, 0, 1, 1, 0, n);
            scan_case(REDSCAN_SUM, REDSCAN_FLOAT16, REDSCAN_FLOAT32, 0, 0, 0, n);
        }
    }
    const size_t sel_sizes[] = {1, 3000, 300007};
    for (size_t i = 0; i < sizeof sel_sizes / sizeof sel_sizes[0]; i++) {
        select_case(REDSCAN_FLOAT32, 1, 0, sel_sizes[i]);
        select_case(REDSCAN_FLOAT32, 0, 0, sel_sizes[i]);
        select_case(REDSCAN_INT32, 1, 0, sel_sizes[i]);
        select_case(REDSCAN_FLOAT32, 1, sel_sizes[i] < 5 ? 1 : 5, sel_sizes[i]);
        select_case(REDSCAN_INT32, 0, sel_sizes[i] < 20 ? 1 : 20, sel_sizes[i]);
    }
    error_cases();
#if defined(REDSCAN_TEST_FAULTS)
    fault_cases();
#endif

    long fails = 0, checks = 0;
    MPI_Allreduce(&g_fail, &fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&g_checks, &checks, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0)
        printf("test_mpi: %d rank(s): %ld checks, %ld failures, %.1f s\n", g_size, checks, fails, MPI_Wtime() - t0);
    redscan_destroy(g_ctx);
    MPI_Finalize();
    return fails ? 1 : 0;
}
