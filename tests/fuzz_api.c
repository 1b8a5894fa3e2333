/* fuzz_api: a libFuzzer harness over the host-pointer API (built with -DREDSCAN_FUZZ=ON and clang; run by
 * scripts/sanitize.sh under AddressSanitizer + UndefinedBehaviorSanitizer).
 *
 * The input's bytes choose the function (reduce_host, reduce_host_ex, scan_host, scan_host_ex, mean_host,
 * argmin_host, argmax_host, topk_host, and the scan parts: redscan_scan_section_totals -> host chain ->
 * redscan_scan_with_carries on device buffers at element offsets, compared with the AUTO scan's documented order), the op and dtype (now and then values outside the enums), the descriptor
 * (out_dtype: 0 / same / widening / something else; algorithm, block and grid, valid or not; exclusive 0, 1 or
 * neither; init NULL or a value; flags 0 or not), in place or not, NULL pointers now and then, k, largest, n
 * (<= 4096) and the elements (the remaining bytes, repeated as needed; so every bit pattern, NaN payloads and
 * signalling NaNs included, can reach the library).
 *
 * Each call's status must be the documented one, computed here from docs/SEMANTICS.md and redscan.h:
 *   INVALID_ARGUMENT  an enum value out of range, out_dtype neither 0, dtype nor its widening, exclusive not 0/1,
 *                     flags != 0, in place with a widening, a NULL pointer that the call needs, n = 0 for
 *                     mean / argmin / argmax / top-k, k = 0 or k > min(n, 256), largest not 0/1
 *   UNSUPPORTED       allowed only for FLOAT64 on a device without fp64 (probed once), the single_pass grid,
 *                     and the warp_sync / shuffle reductions; and required for the narrow types (INT8 .. BFLOAT16,
 *                     docs/SEMANTICS.md "Narrow types") on a backend that has no kernels for them (probed once: a
 *                     1-element int8 sum returning UNSUPPORTED), where INVALID_ARGUMENT is accepted too when the
 *                     call is invalid otherwise (api/src/check.c checks the dtype before the rest)
 *   OK                otherwise; the narrow types and their widenings (int8 / int16 -> int32, int64; uint8 / uint16
 *                     -> uint32, uint64; float16 / bfloat16 -> float32, float64) on a backend that runs them; any
 *                     other out_dtype (int8 -> uint32, float16 -> int32, int8 -> int16, int32 -> int8, ...) is
 *                     INVALID_ARGUMENT (api/src/check.c, rs_check_out_dtype)
 * On error redscan_last_error must be non-empty and the caller's outputs untouched (sentinels); on success the
 * result is compared with the host references (reference.h): integers, argmin/argmax/top-k and float min/max of
 * scans exactly; float min/max of reductions by value (NaN-ness, +0 == -0); float sum/prod within the reference's
 * bound where no partial result can overflow or underflow (the bound does not hold otherwise), and bit for bit with
 * the documented order where the algorithm is known; float16 / bfloat16 against the same references, which combine
 * in float32 and round once on store (reference.h; a NaN sum / product is the canonical NaN, compared bit for bit).
 * Any deviation aborts (a libFuzzer crash, input saved).
 *
 * The context is created once (REDSCAN_BACKEND picks the backend, default auto) and kept for the whole run, so
 * the library's caches persist across inputs as in a long-running program; it is destroyed at exit.
 *
 * Input layout (bytes; missing bytes read as 0):
 *   0 function   1 op   2 dtype (1..12 and around)   3 flags A   4 flags B   5 algorithm/block/grid   6-7 n   8-9 k
 *   (the scan parts: 8-9 the element offsets of in and out)
 *   10.. data */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

#define MAXN 4096
#define SENT 0xA5

static redscan_ctx *g_ctx;
static int g_have_fp64 = 1;
static int g_narrow = 1; /* the backend runs the narrow types (probed) */

static void fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

static const char *g_what = "";
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_api: FAIL [%s]: ", g_what);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nfuzz_api: last error: %s\n", g_ctx ? redscan_last_error(g_ctx) : "(no context)");
    abort();
}

static void destroy_ctx(void)
{
    if (g_ctx) redscan_destroy(g_ctx);
    g_ctx = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    redscan_status st = redscan_create(&g_ctx, REDSCAN_BACKEND_AUTO);
    if (st != REDSCAN_OK) {
        fprintf(stderr, "fuzz_api: redscan_create: %s: %s\n", redscan_status_string(st), redscan_last_error(NULL));
        exit(st == REDSCAN_ERR_BACKEND_UNAVAILABLE ? 77 : 1);
    }
    double one = 1.0, r = 0;
    if (redscan_reduce_host(g_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &r) == REDSCAN_ERR_UNSUPPORTED) g_have_fp64 = 0;
    const int8_t one8 = 1;
    int8_t r8 = 0;
    if (redscan_reduce_host(g_ctx, REDSCAN_SUM, REDSCAN_INT8, &one8, 1, &r8) == REDSCAN_ERR_UNSUPPORTED) g_narrow = 0;
    fprintf(stderr, "fuzz_api: backend %s, device \"%s\"%s%s\n", redscan_backend_name(g_ctx), redscan_device_name(g_ctx),
            g_have_fp64 ? "" : ", no fp64", g_narrow ? "" : ", narrow types refused (expected: UNSUPPORTED)");
    atexit(destroy_ctx);
    return 0;
}

/* ---------------------------------------------------------------- input decoding */

typedef struct {
    const uint8_t *p;
    size_t len;
} input;

static uint8_t byte_at(const input *in, size_t i) { return i < in->len ? in->p[i] : 0; }

static int valid_op(int op) { return op >= REDSCAN_SUM && op <= REDSCAN_MAX; }
static int valid_dtype(int dt) { return dt >= REDSCAN_INT32 && dt <= REDSCAN_BFLOAT16; }

/* Mostly valid values; 1/16 of the byte range maps to values around the enum (invalid ones included). */
static int enum_from(uint8_t b, int lo, int count)
{
    if (b < 0xF0) return lo + b % count;
    return lo - 4 + (int)(b - 0xF0); /* lo-4 .. lo+11 */
}

static int fp64_unsupported(redscan_dtype a, redscan_dtype b)
{
    return !g_have_fp64 && (a == REDSCAN_FLOAT64 || b == REDSCAN_FLOAT64);
}

static int untouched(const void *p, size_t bytes)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != SENT) return 0;
    return 1;
}

static const char *st_name(redscan_status s) { return redscan_status_string(s); }

/* want: bit mask of acceptable statuses */
#define M(s) (1u << (unsigned)(s))
static int g_narrow_refused; /* this input's dtype is narrow and the backend has no narrow kernels */
static void expect_status(redscan_status st, unsigned want)
{
    /* the dtype is checked before everything but the op: UNSUPPORTED, or INVALID_ARGUMENT where that was due anyway */
    if (g_narrow_refused)
        want = (want & M(REDSCAN_ERR_INVALID_ARGUMENT)) ? M(REDSCAN_ERR_INVALID_ARGUMENT) | M(REDSCAN_ERR_UNSUPPORTED)
                                                       : M(REDSCAN_ERR_UNSUPPORTED);
    if ((unsigned)st > 31 || !(M(st) & want)) {
        char buf[256] = "";
        for (unsigned s = 0; s <= REDSCAN_ERR_DEVICE; s++)
            if (want & M(s)) {
                strncat(buf, st_name((redscan_status)s), sizeof buf - strlen(buf) - 1);
                strncat(buf, " | ", sizeof buf - strlen(buf) - 1);
            }
        fail("status %d (%s), want one of: %s", (int)st, st_name(st), buf);
    }
    if (st != REDSCAN_OK) {
        const char *e = redscan_last_error(g_ctx);
        if (!e || !*e) fail("status %s with an empty redscan_last_error", st_name(st));
    }
}

/* ---------------------------------------------------------------- float checks */

/* Can no partial sum (any order) overflow? Then the absolute bound holds. */
static int sum_safe(redscan_dtype T, const ref_ld_acc *acc, unsigned depth)
{
    T = ref_compute_type(T); /* float16 / bfloat16 combine in float32 */
    long double maxv = T == REDSCAN_FLOAT32 ? (long double)FLT_MAX : (long double)DBL_MAX;
    long double eps = T == REDSCAN_FLOAT32 ? (long double)FLT_EPSILON : (long double)DBL_EPSILON;
    return acc->abs_sum * (1.0L + (long double)(depth + 2) * eps) < maxv / 2;
}

/* Can no partial product (any order) leave the normal range? log2 bounds of the largest and smallest possible
 * partial products of the finite, non-zero factors. */
static int prod_safe(redscan_dtype T, const void *x, redscan_dtype dt, size_t n, const ref_val *init)
{
    const redscan_dtype C = ref_compute_type(T); /* float16 / bfloat16 combine in float32 */
    int lo_exp = C == REDSCAN_FLOAT32 ? FLT_MIN_EXP : DBL_MIN_EXP, hi_exp = C == REDSCAN_FLOAT32 ? FLT_MAX_EXP : DBL_MAX_EXP;
    long double up = 0, down = 0;
    for (size_t i = 0; i <= n; i++) {
        long double v;
        if (i < n) v = ref_to_ld(dt, ref_load(dt, x, i));
        else if (init) v = ref_to_ld(T, *init);
        else break;
        if (isnan(v) || isinf(v) || v == 0) continue;
        long double l = log2l(fabsl(v));
        if (l > 0) up += l;
        else down += l;
    }
    return up < (long double)hi_exp - 4 && down > (long double)lo_exp + 4;
}

/* ---------------------------------------------------------------- reductions */

static void check_reduce(redscan_op op, redscan_dtype dt, redscan_dtype T, redscan_reduce_algo algo,
                         const void *x, size_t n, const unsigned char *res)
{
    ref_val got = ref_load(T, res, 0);
    if (!untouched(res + ref_size(T), 16 - ref_size(T))) fail("wrote past the result");
    const int isf = ref_is_float(T);
    if (n == 0 || !isf) {
        ref_val want = ref_reduce_seq(op, dt, T, x, n);
        if (!ref_bits_equal(T, got, want))
            fail("reduce: got 0x%016" PRIx64 ", want 0x%016" PRIx64, got.u64, want.u64);
        return;
    }
    if (op == REDSCAN_MIN || op == REDSCAN_MAX) {
        ref_val want = ref_reduce_seq(op, dt, T, x, n);
        int gn = ref_isnan(T, got), wn = ref_isnan(T, want);
        if (gn != wn || (!wn && ref_to_double(T, got) != ref_to_double(T, want)))
            fail("reduce min/max: got %.17g, want %.17g", ref_to_double(T, got), ref_to_double(T, want));
    } else {
        ref_ld_acc acc;
        ref_ld_init(&acc, op);
        for (size_t i = 0; i < n; i++) {
            ref_val v = ref_load(dt, x, i);
            ref_ld_add(&acc, op, ref_to_ld(dt, v), ref_isnan(dt, v));
        }
        redscan_reduce_algo da =
            (algo == REDSCAN_REDUCE_WARP_SYNC || algo == REDSCAN_REDUCE_SHUFFLE) ? REDSCAN_REDUCE_TREE : algo;
        unsigned depth = ref_reduce_depth(da, n);
        int safe = op == REDSCAN_SUM ? sum_safe(T, &acc, depth) : prod_safe(T, x, dt, n, NULL);
        double err, bound;
        if (safe && !ref_fbound_ok(op, T, got, &acc, depth, &err, &bound))
            fail("reduce %s: got %.17g, reference %.17Lg, |error| %.3g > bound %.3g (depth %u)", ref_op_str(op),
                 ref_to_double(T, got), ref_ld_value(&acc, op), err, bound, depth);
    }
    /* the documented order, where the algorithm is known */
    redscan_reduce_algo ea = algo;
    if (ea == REDSCAN_REDUCE_WARP_SYNC || ea == REDSCAN_REDUCE_SHUFFLE) ea = REDSCAN_REDUCE_TREE;
    if (ea >= REDSCAN_REDUCE_TREE && ea <= REDSCAN_REDUCE_COARSENED) {
        ref_val want = ref_reduce_emulate(ea, op, dt, T, x, n);
        if (!ref_result_equal(op, T, got, want))
            fail("reduce %s: got 0x%016" PRIx64 ", documented order of algorithm %d gives 0x%016" PRIx64,
                 ref_op_str(op), got.u64, (int)ea, want.u64);
    }
}

/* ---------------------------------------------------------------- scans */

static void check_scan(redscan_op op, redscan_dtype dt, redscan_dtype T, int excl, const ref_val *init,
                       redscan_block_scan block, redscan_grid_scan grid, const void *x, size_t n,
                       const unsigned char *got)
{
    if (n == 0) return;
    unsigned char *want = (unsigned char *)malloc(n * ref_size(T));
    if (!want) abort();
    const void *ip = init ? init->b : NULL;
    if (!ref_is_float(T) || op == REDSCAN_MIN || op == REDSCAN_MAX) {
        ref_scan_seq(op, dt, T, excl, ip, x, want, n);
        for (size_t i = 0; i < n; i++)
            if (!ref_result_equal(op, T, ref_load(T, got, i), ref_load(T, want, i)))
                fail("scan: index %zu of %zu: got 0x%016" PRIx64 ", want 0x%016" PRIx64, i, n,
                     ref_load(T, got, i).u64, ref_load(T, want, i).u64);
        free(want);
        return;
    }
    unsigned depth = ref_scan_depth(block, n);
    if (grid == REDSCAN_GRID_SINGLE_PASS || grid == REDSCAN_GRID_AUTO) depth += (unsigned)(n / 256) + 2;
    ref_ld_acc acc, all;
    ref_ld_init(&acc, op);
    ref_ld_init(&all, op);
    if (init) ref_ld_add(&acc, op, ref_to_ld(T, *init), ref_isnan(T, *init));
    if (init) ref_ld_add(&all, op, ref_to_ld(T, *init), ref_isnan(T, *init));
    for (size_t i = 0; i < n; i++) {
        ref_val v = ref_load(dt, x, i);
        ref_ld_add(&all, op, ref_to_ld(dt, v), ref_isnan(dt, v));
    }
    int safe = op == REDSCAN_SUM ? sum_safe(T, &all, depth) : prod_safe(T, x, dt, n, init);
    for (size_t i = 0; i < n && safe; i++) {
        ref_val v = ref_load(dt, x, i);
        if (!excl) ref_ld_add(&acc, op, ref_to_ld(dt, v), ref_isnan(dt, v));
        double err, bound;
        ref_val g = ref_load(T, got, i);
        if (!ref_fbound_ok(op, T, g, &acc, depth, &err, &bound))
            fail("scan %s: index %zu of %zu: got %.17g, reference %.17Lg, |error| %.3g > bound %.3g (depth %u)",
                 ref_op_str(op), i, n, ref_to_double(T, g), ref_ld_value(&acc, op), err, bound, depth);
        if (excl) ref_ld_add(&acc, op, ref_to_ld(dt, v), ref_isnan(dt, v));
    }
    /* the documented order of (block, grid) (reference.h: block AUTO = coarsened, grid AUTO = single_pass's order),
     * unless REDSCAN_SCAN_BLOCK / _GRID replace an AUTO one */
    const char *fb = getenv("REDSCAN_SCAN_BLOCK"), *fg = getenv("REDSCAN_SCAN_GRID");
    if ((block != REDSCAN_BLOCK_AUTO || !fb || !*fb) && (grid != REDSCAN_GRID_AUTO || !fg || !*fg)) {
        ref_scan_emulate_grid(block, grid, op, dt, T, excl, ip, x, want, n);
        for (size_t i = 0; i < n; i++)
            if (!ref_result_equal(op, T, ref_load(T, got, i), ref_load(T, want, i)))
                fail("scan %s: index %zu of %zu: got 0x%016" PRIx64 ", documented order of block %d grid %d gives "
                     "0x%016" PRIx64,
                     ref_op_str(op), i, n, ref_load(T, got, i).u64, (int)block, (int)grid, ref_load(T, want, i).u64);
    }
    free(want);
}

/* ---------------------------------------------------------------- the scan parts */

/* The type the parts' totals and carries hold: a narrow output's 32-bit type of its kind, else the output type. */
static redscan_dtype parts_carry_type(redscan_dtype out)
{
    if (out == REDSCAN_INT8 || out == REDSCAN_INT16) return REDSCAN_INT32;
    if (out == REDSCAN_UINT8 || out == REDSCAN_UINT16) return REDSCAN_UINT32;
    if (out == REDSCAN_FLOAT16 || out == REDSCAN_BFLOAT16) return REDSCAN_FLOAT32;
    return out;
}

static redscan_buffer *parts_buffer(size_t bytes, const void *src, size_t src_bytes)
{
    redscan_buffer *b = NULL;
    if (redscan_buffer_create(g_ctx, bytes, &b) != REDSCAN_OK) fail("buffer_create(%zu)", bytes);
    unsigned char *fill = (unsigned char *)malloc(bytes ? bytes : 1);
    if (!fill) abort();
    memset(fill, SENT, bytes);
    if (src_bytes) memcpy(fill, src, src_bytes);
    if (bytes && redscan_buffer_write(g_ctx, b, 0, fill, bytes) != REDSCAN_OK) fail("buffer_write");
    free(fill);
    return b;
}

/* totals -> read -> the single_pass chain (docs/ALGORITHMS.md "Grid level") -> with_carries on in[in_off ..) ->
 * out[out_off ..) (in place: out is in, out_off = in_off); the statuses as want_tot (totals) and want (with_carries;
 * it runs also after a refused totals call, with whatever the carries hold); on success the result is the AUTO
 * scan's documented order of the range and nothing else in out changed; on failure nothing changed. */
static void check_parts(const redscan_scan_desc *d, int dt_ok, redscan_dtype T, const unsigned char *x, size_t n,
                        size_t in_off, size_t out_off, int inplace, int null_in, int null_out, unsigned want_tot,
                        unsigned want)
{
    const size_t es = dt_ok ? ref_size(d->dtype) : 8, os = dt_ok ? ref_size(T) : 8;
    const redscan_dtype C = dt_ok ? parts_carry_type(T) : REDSCAN_FLOAT64;
    const size_t cs = ref_size(C), count = n / REDSCAN_SCAN_SECTION + (n % REDSCAN_SCAN_SECTION != 0) + 1;
    if (inplace) out_off = in_off;
    const size_t in_bytes = (in_off + n) * es + 16, out_bytes = (out_off + n) * os + 16;
    unsigned char *src = (unsigned char *)malloc(in_bytes), *got = (unsigned char *)malloc(out_bytes + in_bytes);
    unsigned char *S = (unsigned char *)calloc(count, cs), *P = (unsigned char *)calloc(count, cs);
    if (!src || !got || !S || !P) abort();
    memset(src, SENT, in_bytes);
    memcpy(src + in_off * es, x, n * es);
    redscan_buffer *in = parts_buffer(in_bytes, src, in_bytes);
    redscan_buffer *out = inplace ? in : parts_buffer(out_bytes, NULL, 0);
    redscan_buffer *tot = parts_buffer(count * cs, NULL, 0), *car = parts_buffer(count * cs, NULL, 0);
    const redscan_buffer *inp = null_in ? NULL : in;
    redscan_buffer *outp = null_out ? NULL : out;
    redscan_status st = redscan_scan_section_totals(g_ctx, d, inp, in_off, n, tot);
    expect_status(st, want_tot);
    if (st == REDSCAN_OK) {
        if (redscan_buffer_read(g_ctx, tot, 0, S, (count - 1) * cs) != REDSCAN_OK) fail("read totals");
        ref_val init = d->init ? ref_load(T, d->init, 0) : ref_identity(d->op, T);
        if (C != T) init = ref_convert(T, C, init);
        ref_val A = init, W = ref_zero();
        for (size_t j = 0; j + 1 < count; j++) {
            const size_t p = j % 32;
            const ref_val sj = ref_load(C, S, j);
            if (p == 0 && j > 0) A = ref_combine(d->op, C, A, W);
            ref_store(C, P, j, p ? ref_combine(d->op, C, A, W) : A);
            W = p ? ref_combine(d->op, C, W, sj) : sj;
        }
        if (redscan_buffer_write(g_ctx, car, 0, P, count * cs) != REDSCAN_OK) fail("write carries");
    }
    redscan_status st2 = redscan_scan_with_carries(g_ctx, d, inp, in_off, outp, out_off, n, car);
    expect_status(st2, want);
    if (redscan_synchronize(g_ctx) != REDSCAN_OK) fail("synchronize after the scan parts");
    if (redscan_buffer_read(g_ctx, out, 0, got, inplace ? in_bytes : out_bytes) != REDSCAN_OK) fail("read out");
    if (st2 == REDSCAN_OK && st == REDSCAN_OK) {
        unsigned char *want_bits = (unsigned char *)malloc(n * os);
        if (!want_bits) abort();
        ref_scan_emulate_grid(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, d->op, d->dtype, T, d->exclusive, d->init, x,
                              want_bits, n);
        for (size_t i = 0; i < n; i++)
            if (!ref_result_equal(d->op, T, ref_load(T, got + out_off * os, i), ref_load(T, want_bits, i)))
                fail("scan parts: index %zu of %zu (in_off %zu, out_off %zu): got 0x%016" PRIx64 ", AUTO order gives "
                     "0x%016" PRIx64,
                     i, n, in_off, out_off, ref_load(T, got + out_off * os, i).u64, ref_load(T, want_bits, i).u64);
        free(want_bits);
        if (inplace ? memcmp(got, src, in_off * es) != 0 || memcmp(got + (in_off + n) * es, src + (in_off + n) * es, 16)
                    : !untouched(got, out_off * os) || !untouched(got + (out_off + n) * os, 16))
            fail("scan parts wrote outside out[out_offset .. out_offset + n)");
    } else if (inplace ? memcmp(got, src, in_bytes) != 0 : !untouched(got, out_bytes)) {
        fail("a refused scan_with_carries wrote its output");
    }
    redscan_buffer_destroy(g_ctx, in);
    if (!inplace) redscan_buffer_destroy(g_ctx, out);
    redscan_buffer_destroy(g_ctx, tot);
    redscan_buffer_destroy(g_ctx, car);
    free(src);
    free(got);
    free(S);
    free(P);
}

/* ---------------------------------------------------------------- the target */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    const int fn = byte_at(&in, 0) % 9;
    const int op = enum_from(byte_at(&in, 1), REDSCAN_SUM, 4);
    const int dt = enum_from(byte_at(&in, 2), REDSCAN_INT32, 12);
    const uint8_t fa = byte_at(&in, 3), fb = byte_at(&in, 4), fc = byte_at(&in, 5);
    size_t n = ((size_t)byte_at(&in, 6) | (size_t)byte_at(&in, 7) << 8) % (MAXN + 1);
    size_t k = ((size_t)byte_at(&in, 8) | (size_t)byte_at(&in, 9) << 8) % 300;
    const uint8_t *payload = size > 10 ? data + 10 : NULL;
    const size_t plen = size > 10 ? size - 10 : 0;

    /* flags A */
    int exclusive = fa & 1;
    const int use_init = (fa >> 1) & 1;
    const int inplace = (fa >> 2) & 1;
    const int odsel = (fa >> 3) & 3; /* out_dtype: 0, same, widening, other */
    int largest = (fa >> 5) & 1;
    const int want_aux = (fa >> 6) & 1; /* argmin/argmax value, top-k indices */
    const int odalt = (fa >> 7) & 1;    /* narrow: the 64-bit widening; odsel 3: another bad out_dtype */
    /* flags B: rare invalid knobs and NULL pointers */
    const int nullsel = (fb & 0xF0) == 0xF0 ? (fb & 3) : 0; /* 1: in NULL, 2: out / result NULL, 3: both */
    const unsigned flags = (fb & 0x0C) == 0x0C ? 1u << (fb >> 4 & 7) : 0;
    if ((fb & 0x03) == 0x03 && !nullsel) exclusive = (fb & 0x40) ? 2 : -1;
    if ((fb & 0x0F) == 0x0B) largest = 2;
    /* algorithm (reduce, 0..7), block (0..7), grid (0..3) */
    const int algo = fc & 7, block = (fc >> 3) & 7, grid = (fc >> 6) & 3;

    /* types */
    const size_t es = valid_dtype(dt) ? ref_size((redscan_dtype)dt) : 8;
    int out_dtype = 0;
    redscan_dtype wid[2] = {(redscan_dtype)0, (redscan_dtype)0};
    const int nwid = valid_dtype(dt) ? ref_widenings((redscan_dtype)dt, wid) : 0;
    if (odsel == 1) out_dtype = dt;
    else if (odsel == 2) out_dtype = nwid ? (int)wid[odalt && nwid > 1] : 0;
    else if (odsel == 3) /* some other dtype: wide types get a wide or (odalt) a narrow one (int32 -> int8, ...); narrow
                          * ones any other (int8 -> uint32, float16 -> int32, int8 -> int16, bfloat16 -> float16, ...) */
        out_dtype = !valid_dtype(dt) ? 3 : dt <= REDSCAN_FLOAT64 ? (odalt ? 7 + dt % 6 : 1 + dt % 6) : 1 + (dt * 5 + odalt) % 12;
    if (odsel == 2 && out_dtype == 0) out_dtype = dt; /* no widening for this type */
    const int ex_fn = fn == 1 || fn == 3 || fn == 8;
    redscan_dtype T = (redscan_dtype)dt; /* output type */
    int od_ok = 1;
    if (ex_fn && out_dtype != 0 && out_dtype != dt) {
        if (valid_dtype(dt) && ref_out_ok((redscan_dtype)dt, (redscan_dtype)out_dtype)) T = (redscan_dtype)out_dtype;
        else od_ok = 0;
    }
    const size_t os = valid_dtype(T) ? ref_size(T) : 8;

    /* elements: the payload repeated */
    unsigned char *x = (unsigned char *)malloc((n ? n : 1) * es + 16);
    unsigned char *out = (unsigned char *)malloc((n ? n : 1) * (os > es ? os : es) + 64);
    unsigned char *xcopy = (unsigned char *)malloc((n ? n : 1) * es + 16);
    if (!x || !out || !xcopy) abort();
    for (size_t i = 0; i < n * es; i++) x[i] = plen ? payload[i % plen] : (unsigned char)(i * 37u);
    memcpy(xcopy, x, (n ? n : 1) * es + 16);
    ref_val init = ref_zero();
    if (use_init) memcpy(init.b, plen >= 8 ? payload + plen - 8 : (const uint8_t *)"\x03\0\0\0\0\0\xf0\x3f", 8);
    if (valid_dtype(T)) memset(init.b + ref_size(T), 0, 8 - ref_size(T)); /* one element of the output type */

    /* the status the documents prescribe */
    int invalid = !valid_dtype(dt);
    g_narrow_refused = !g_narrow && valid_dtype(dt) && ref_is_narrow((redscan_dtype)dt);
    int unsupported_ok = 0;
    const size_t outbytes = (n ? n : 1) * (os > es ? os : es) + 64;
    memset(out, SENT, outbytes);
    redscan_status st;
    char what[200];
    snprintf(what, sizeof what, "fn=%d op=%d dtype=%d out_dtype=%d n=%zu k=%zu excl=%d init=%d inplace=%d algo=%d "
                                "block=%d grid=%d flags=%u largest=%d nulls=%d",
             fn, op, dt, out_dtype, n, k, exclusive, use_init, inplace, algo, block, grid, flags, largest, nullsel);
    g_what = what;
    const void *inp = (nullsel & 1) ? NULL : (const void *)x;
    void *outp = (nullsel & 2) ? NULL : (void *)out;

    switch (fn) {
    case 0:
    case 1: { /* reduce */
        redscan_reduce_desc d = {(redscan_op)op, (redscan_dtype)dt, (redscan_dtype)out_dtype, (redscan_reduce_algo)algo,
                                 flags};
        invalid |= !valid_op(op);
        if (fn == 1) invalid |= !od_ok || algo > REDSCAN_REDUCE_SHUFFLE || flags != 0;
        invalid |= outp == NULL || (n > 0 && inp == NULL);
        const int algo_eff = fn == 1 ? algo : 0;
        if (!invalid && (algo_eff == REDSCAN_REDUCE_WARP_SYNC || algo_eff == REDSCAN_REDUCE_SHUFFLE)) unsupported_ok = 1;
        st = fn == 1 ? redscan_reduce_host_ex(g_ctx, &d, inp, n, outp)
                     : redscan_reduce_host(g_ctx, (redscan_op)op, (redscan_dtype)dt, inp, n, outp);
        unsigned want = invalid ? M(REDSCAN_ERR_INVALID_ARGUMENT)
                        : fp64_unsupported((redscan_dtype)dt, T) ? M(REDSCAN_ERR_UNSUPPORTED)
                        : M(REDSCAN_OK) | (unsupported_ok ? M(REDSCAN_ERR_UNSUPPORTED) : 0);
        expect_status(st, want);
        if (st == REDSCAN_OK)
            check_reduce((redscan_op)op, (redscan_dtype)dt, T, (redscan_reduce_algo)algo_eff, x, n, out);
        else if (!untouched(out, outbytes))
            fail("failed reduce wrote its result");
        break;
    }
    case 2:
    case 3: { /* scan */
        const int ex = fn == 3;
        redscan_scan_desc d = {(redscan_op)op,  (redscan_dtype)dt,           (redscan_dtype)out_dtype,
                               exclusive,       use_init ? init.b : NULL,    (redscan_block_scan)block,
                               (redscan_grid_scan)grid, flags};
        invalid |= !valid_op(op) || (exclusive != 0 && exclusive != 1);
        if (ex) invalid |= !od_ok || block > REDSCAN_BLOCK_COARSENED || flags != 0;
        const int same = !ex || T == (redscan_dtype)dt;
        const int ip = inplace && same;
        /* in place with a widening: INVALID_ARGUMENT, except that at n = 0 the host form may return before it
         * looks at the pointers (as for NULL pointers below) */
        const int inplace_widening = ex && inplace && !same;
        int null_ptr = inp == NULL || outp == NULL;
        if (ip) {
            memcpy(out, x, n * es);
            inp = (nullsel & 1) ? NULL : (const void *)out;
            outp = (nullsel & 2) ? NULL : (void *)out;
        }
        const int grid_eff = ex ? grid : 0;
        if (grid_eff == REDSCAN_GRID_SINGLE_PASS) unsupported_ok = 1;
        const int block_eff = ex ? block : 0;
        if (ex && inplace && !same && !null_ptr) {
            /* in place with a widening: pass the same array twice */
            inp = out;
            outp = out;
        }
        st = ex ? redscan_scan_host_ex(g_ctx, &d, inp, outp, n)
                : redscan_scan_host(g_ctx, (redscan_op)op, (redscan_dtype)dt, exclusive, inp, outp, n);
        unsigned want;
        if (invalid) want = M(REDSCAN_ERR_INVALID_ARGUMENT);
        else if (inplace_widening) want = M(REDSCAN_ERR_INVALID_ARGUMENT) | (n == 0 ? M(REDSCAN_OK) : 0);
        else if (null_ptr) want = n == 0 ? M(REDSCAN_OK) | M(REDSCAN_ERR_INVALID_ARGUMENT) : M(REDSCAN_ERR_INVALID_ARGUMENT);
        else if (n == 0) want = M(REDSCAN_OK) | (fp64_unsupported((redscan_dtype)dt, T) ? M(REDSCAN_ERR_UNSUPPORTED) : 0);
        else if (fp64_unsupported((redscan_dtype)dt, T)) want = M(REDSCAN_ERR_UNSUPPORTED);
        else want = M(REDSCAN_OK) | (unsupported_ok ? M(REDSCAN_ERR_UNSUPPORTED) : 0);
        expect_status(st, want);
        if (st == REDSCAN_OK && n > 0) {
            check_scan((redscan_op)op, (redscan_dtype)dt, T, exclusive, use_init && ex ? &init : NULL,
                       (redscan_block_scan)block_eff, (redscan_grid_scan)grid_eff, x, n, out);
            if (!untouched(out + n * os, 64)) fail("scan wrote past n");
        } else if (st != REDSCAN_OK || n == 0) {
            if (ip ? memcmp(out, x, n * es) != 0 || !untouched(out + n * es, outbytes - n * es)
                   : !untouched(out, outbytes))
                fail("a failed (or n = 0) scan wrote its output");
        }
        break;
    }
    case 8: { /* the scan parts */
        const redscan_scan_desc d = {(redscan_op)op,  (redscan_dtype)dt,        (redscan_dtype)out_dtype,
                                     exclusive,       use_init ? init.b : NULL, (redscan_block_scan)block,
                                     (redscan_grid_scan)grid, flags};
        const int bad_desc = invalid || !valid_op(op) || (exclusive != 0 && exclusive != 1) || !od_ok ||
                             block > REDSCAN_BLOCK_COARSENED || flags != 0;
        const int other_algo = (block != REDSCAN_BLOCK_AUTO && block != REDSCAN_BLOCK_COARSENED) ||
                               grid != REDSCAN_GRID_AUTO;
        const int ip = inplace && T == (redscan_dtype)dt;
        /* api/src/scan_parts.c checks the descriptor, then n, then the buffers; the device kind last (fp64) */
        const int fp64 = valid_dtype(dt) && fp64_unsupported((redscan_dtype)dt, T);
        const unsigned want_tot = bad_desc ? M(REDSCAN_ERR_INVALID_ARGUMENT)
                                  : other_algo ? M(REDSCAN_ERR_UNSUPPORTED)
                                  : n == 0 || (nullsel & 1) ? M(REDSCAN_ERR_INVALID_ARGUMENT)
                                  : fp64 ? M(REDSCAN_ERR_UNSUPPORTED)
                                         : M(REDSCAN_OK);
        const unsigned want = (want_tot == M(REDSCAN_OK) || want_tot == M(REDSCAN_ERR_UNSUPPORTED)) && !bad_desc &&
                                      !other_algo && (nullsel & 2)
                                  ? M(REDSCAN_ERR_INVALID_ARGUMENT)
                                  : want_tot;
        check_parts(&d, valid_dtype(dt), T, x, n, k % 37, (k / 37) % 11, ip, nullsel & 1, (nullsel & 2) != 0,
                    want_tot, want);
        break;
    }
    case 4: { /* mean */
        double m = -12345.0;
        double *mp = (nullsel & 2) ? NULL : &m;
        st = redscan_mean_host(g_ctx, (redscan_dtype)dt, inp, n, mp);
        invalid |= n == 0 || inp == NULL || mp == NULL;
        expect_status(st, invalid ? M(REDSCAN_ERR_INVALID_ARGUMENT)
                          : fp64_unsupported((redscan_dtype)dt, REDSCAN_FLOAT64) && ref_is_float((redscan_dtype)dt)
                              ? M(REDSCAN_ERR_UNSUPPORTED) | M(REDSCAN_OK)
                              : M(REDSCAN_OK));
        if (st != REDSCAN_OK) {
            if (m != -12345.0) fail("a failed mean wrote its result");
            break;
        }
        double want = ref_mean_exact(REDSCAN_REDUCE_AUTO, (redscan_dtype)dt, x, n);
        if (!ref_is_float((redscan_dtype)dt)) {
            if (memcmp(&m, &want, 8) != 0) fail("mean: got %.17g, want %.17g", m, want);
        } else if (!(isnan(m) && isnan(want)) && memcmp(&m, &want, 8) != 0) {
            /* the documented order (coarsened sum in float64, / n), unless REDSCAN_REDUCE_ALGO forces another */
            const char *forced = getenv("REDSCAN_REDUCE_ALGO");
            if (!forced || !*forced) fail("mean: got %.17g, documented order gives %.17g", m, want);
        }
        break;
    }
    case 5:
    case 6: { /* argmin / argmax */
        uint64_t idx = UINT64_MAX;
        unsigned char val[16];
        memset(val, SENT, sizeof val);
        uint64_t *idxp = (nullsel & 2) ? NULL : &idx;
        void *vp = want_aux ? val : NULL;
        const int want_max = fn == 6;
        st = want_max ? redscan_argmax_host(g_ctx, (redscan_dtype)dt, inp, n, idxp, vp)
                      : redscan_argmin_host(g_ctx, (redscan_dtype)dt, inp, n, idxp, vp);
        invalid |= n == 0 || inp == NULL || idxp == NULL;
        expect_status(st, invalid ? M(REDSCAN_ERR_INVALID_ARGUMENT)
                          : fp64_unsupported((redscan_dtype)dt, (redscan_dtype)dt) ? M(REDSCAN_ERR_UNSUPPORTED)
                                                                                   : M(REDSCAN_OK));
        if (st != REDSCAN_OK) {
            if (idx != UINT64_MAX || !untouched(val, sizeof val)) fail("a failed argmin/argmax wrote its outputs");
            break;
        }
        uint64_t w = ref_argext((redscan_dtype)dt, want_max, x, n);
        if (idx != w) fail("arg%s: index %" PRIu64 ", want %" PRIu64, want_max ? "max" : "min", idx, w);
        if (vp) {
            if (memcmp(val, x + w * es, es) != 0) fail("arg%s: value bits differ", want_max ? "max" : "min");
            if (!untouched(val + es, sizeof val - es)) fail("arg%s wrote past the value", want_max ? "max" : "min");
        }
        break;
    }
    default: { /* top-k */
        const size_t kk = k ? k : 1;
        unsigned char *vals = (unsigned char *)malloc((kk + 2) * es);
        uint64_t *idx = (uint64_t *)malloc((kk + 2) * sizeof *idx);
        if (!vals || !idx) abort();
        memset(vals, SENT, (kk + 2) * es);
        memset(idx, SENT, (kk + 2) * sizeof *idx);
        void *vp = (nullsel & 2) ? NULL : (void *)vals;
        uint64_t *ip = want_aux ? idx : NULL;
        st = redscan_topk_host(g_ctx, (redscan_dtype)dt, inp, n, k, largest, vp, ip);
        invalid |= n == 0 || inp == NULL || vp == NULL || k == 0 || k > n || k > REDSCAN_TOPK_MAX;
        const int bad_largest = largest != 0 && largest != 1;
        unsigned want = invalid ? M(REDSCAN_ERR_INVALID_ARGUMENT)
                        : fp64_unsupported((redscan_dtype)dt, (redscan_dtype)dt) ? M(REDSCAN_ERR_UNSUPPORTED)
                        : bad_largest ? M(REDSCAN_ERR_INVALID_ARGUMENT) | M(REDSCAN_OK)
                                      : M(REDSCAN_OK);
        expect_status(st, want);
        if (st != REDSCAN_OK) {
            if (!untouched(vals, (kk + 2) * es) || !untouched(idx, (kk + 2) * sizeof *idx))
                fail("a failed top-k wrote its outputs");
        } else {
            unsigned char *wv = (unsigned char *)malloc(k * es);
            uint64_t *wi = (uint64_t *)malloc(k * sizeof *wi);
            if (!wv || !wi) abort();
            ref_topk((redscan_dtype)dt, largest != 0, x, n, k, wv, wi);
            for (size_t i = 0; i < k; i++) {
                if (memcmp(vals + i * es, wv + i * es, es) != 0)
                    fail("topk: rank %zu: value 0x%016" PRIx64 ", want 0x%016" PRIx64 " (index %" PRIu64 ")", i,
                         ref_load((redscan_dtype)dt, vals, i).u64, ref_load((redscan_dtype)dt, wv, i).u64, wi[i]);
                if (ip && idx[i] != wi[i]) fail("topk: rank %zu: index %" PRIu64 ", want %" PRIu64, i, idx[i], wi[i]);
            }
            if (!untouched(vals + k * es, 2 * es)) fail("topk wrote values past k");
            if (!untouched(ip ? (void *)(idx + k) : (void *)idx, (ip ? 2 : kk + 2) * sizeof *idx))
                fail("topk wrote indices past k (or with indices = NULL)");
            free(wv);
            free(wi);
        }
        free(vals);
        free(idx);
        break;
    }
    }
    /* the input is never touched (not in place) */
    if (memcmp(x, xcopy, n * es) != 0) fail("the input array changed");
    free(x);
    free(out);
    free(xcopy);
    return 0;
}
