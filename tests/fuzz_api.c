/* fuzz_api: a libFuzzer harness over the host-pointer API (built with -DREDSCAN_FUZZ=ON and clang; run by
 * scripts/sanitize.sh under AddressSanitizer + UndefinedBehaviorSanitizer).
 *
 * The input's bytes choose the function (reduce_host, reduce_host_ex, scan_host, scan_host_ex, mean_host,
 * argmin_host, argmax_host, topk_host, and the scan parts: redscan_scan_section_totals -> host chain ->
 * redscan_scan_with_carries on device buffers at element offsets, compared with the AUTO scan's documented order; the
 * segment functions on device buffers: redscan_segmented_reduce, _argmin, _argmax, _scan, redscan_scan_by_key and
 * redscan_reduce_by_key, blocking forms), the op and dtype (now and then values outside the enums), the descriptor
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
 * The segment functions (docs/SEMANTICS.md "Segments", "Segmented scans"): `in` holds the n elements (now and then a
 * partial element more, which does not count); num_segments + 1 offsets of offsets_dtype (INT32 / UINT32 / INT64 /
 * UINT64, 1/16 another dtype: INVALID_ARGUMENT) from lengths read off the payload's end (mostly 0 and 1, some short,
 * a few up to MAXN), clamped to n, sometimes starting past 0; num_segments = 0 is INVALID_ARGUMENT; now and then one
 * bad offset (decreasing, negative, or the last past n), which the device must find: the blocking call returns
 * INVALID_ARGUMENT and writes nothing, and the following redscan_synchronize returns OK (reported once). Keys (any
 * integer key_dtype, 1/16 a non-integer: INVALID_ARGUMENT): runs with lengths from the same bytes, each run's key one
 * of 0, 1, 2, the top bit, top bit | 1, all ones (adjacent runs merge; sign / top-bit neighbours stay apart). Algorithms
 * mostly the ones segments run (AUTO / COARSENED / SINGLE_PASS), some other valid ones (UNSUPPORTED), a few outside
 * the enums. Each segment or run is checked as the flat call on its slice (check_reduce with COARSENED, check_scan
 * with AUTO / AUTO: the documented bits, and floats within the reference bound too), argmin / argmax indices and
 * values exactly (UINT64_MAX and the worst value for an empty segment), unique keys bit for bit, num_runs exactly;
 * output elements outside the segments, past num_segments or past num_runs, and every output of a failed call,
 * must keep their sentinels (in place: the input).
 *
 * The context is created once (REDSCAN_BACKEND picks the backend, default auto) and kept for the whole run, so
 * the library's caches persist across inputs as in a long-running program; it is destroyed at exit.
 *
 * Input layout (bytes; missing bytes read as 0):
 *   0 function   1 op   2 dtype (1..12 and around)   3 flags A   4 flags B   5 algorithm/block/grid   6-7 n   8-9 k
 *   (the scan parts: 8-9 the element offsets of in and out; segments: 8 bits 0-3 offsets_dtype / key_dtype, 4-6 a
 *   bad offset (5 decreasing, 6 negative, 7 last past n), 7 and 9 num_segments (0 .. 511); 5 algorithm / block / grid
 *   as seg_algo / seg_block / seg_grid read it; flags B low nibble 8: the offsets / keys buffer one element short)
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

/* ---------------------------------------------------------------- segments, segmented scans, by key */

/* What the segment functions take from the decoded input (LLVMFuzzerTestOneInput). */
typedef struct {
    int fn, op, dt, out_dtype, od_ok;
    redscan_dtype T;           /* output type (the widening when valid) */
    const unsigned char *x;    /* n elements of dt (es bytes each) */
    size_t n, es, os;
    const uint8_t *payload;    /* segment lengths and keys come from its end */
    size_t plen;
    uint8_t fa, fb, fc, b8, b9;
    int exclusive, use_init, inplace, want_aux, nullsel;
    unsigned flags;
    const ref_val *init;
} seg_input;

/* The i-th length byte: the payload read from its end, so lengths and data come from different bytes. */
static uint8_t seg_byte(const seg_input *s, size_t i)
{
    return s->plen ? s->payload[s->plen - 1 - i % s->plen] : (uint8_t)(i * 37u + 11u);
}

/* A segment or run length: mostly 0 and 1, some short, now and then long (256 .. 4096, clamped by the caller). */
static size_t seg_len(uint8_t b)
{
    if (b < 0x60) return 0;
    if (b < 0xA0) return 1;
    if (b < 0xF0) return 2 + (b & 31u);
    return ((size_t)(b & 15u) + 1) * 256;
}

/* reduce algorithm / scan block and grid from byte 5: mostly the ones segments run (AUTO, COARSENED,
 * SINGLE_PASS), then the valid but unsupported ones, then values outside the enums. */
static int seg_algo(uint8_t fc)
{
    const int a = fc & 15;
    if (a < 12) return a & 1 ? REDSCAN_REDUCE_COARSENED : REDSCAN_REDUCE_AUTO;
    if (a == 12) return REDSCAN_REDUCE_TREE;
    if (a == 13) return REDSCAN_REDUCE_INTERLEAVED;
    if (a == 14) return fc & 16 ? REDSCAN_REDUCE_WARP_SYNC : REDSCAN_REDUCE_SHUFFLE;
    return REDSCAN_REDUCE_SHUFFLE + 1 + (fc >> 4 & 3);
}
static int seg_block(uint8_t fc)
{
    const int a = fc & 15;
    if (a < 12) return a & 1 ? REDSCAN_BLOCK_COARSENED : REDSCAN_BLOCK_AUTO;
    if (a == 12) return REDSCAN_BLOCK_KOGGE_STONE;
    if (a == 13) return REDSCAN_BLOCK_BRENT_KUNG;
    if (a == 14) return REDSCAN_BLOCK_KOGGE_STONE_DB;
    return REDSCAN_BLOCK_COARSENED + 1 + (fc >> 4 & 3);
}
static int seg_grid(uint8_t fc)
{
    const int g = fc >> 4;
    if (g < 10) return REDSCAN_GRID_AUTO;
    if (g < 13) return REDSCAN_GRID_SINGLE_PASS;
    if (g == 13) return REDSCAN_GRID_HIERARCHICAL;
    if (g == 14) return REDSCAN_GRID_REDUCE_THEN_SCAN;
    return REDSCAN_GRID_SINGLE_PASS + 1;
}

/* The status of a call whose host checks give `invalid` (INVALID_ARGUMENT due) and `unsup` (an algorithm segments do
 * not run: UNSUPPORTED due); when both are due the documents fix no order, so either is accepted. Then FLOAT64 on a
 * device without it, then a device fault of the offsets (INVALID_ARGUMENT), else OK. */
static unsigned seg_want(int invalid, int unsup, int fp64, int fault)
{
    if (invalid) return M(REDSCAN_ERR_INVALID_ARGUMENT) | (unsup ? M(REDSCAN_ERR_UNSUPPORTED) : 0);
    if (unsup) return M(REDSCAN_ERR_UNSUPPORTED);
    if (fp64) return M(REDSCAN_ERR_UNSUPPORTED) | (fault ? M(REDSCAN_ERR_INVALID_ARGUMENT) : 0);
    return fault ? M(REDSCAN_ERR_INVALID_ARGUMENT) : M(REDSCAN_OK);
}

static unsigned char *seg_read(redscan_buffer *b, size_t bytes)
{
    unsigned char *p = (unsigned char *)malloc(bytes ? bytes : 1);
    if (!p) abort();
    if (bytes && redscan_buffer_read(g_ctx, b, 0, p, bytes) != REDSCAN_OK) fail("buffer_read(%zu)", bytes);
    return p;
}

/* One result of a reduction checked as the flat harness checks redscan_reduce_ex (coarsened): check_reduce wants
 * a 16-byte result with sentinels past the element. */
static void seg_check_reduce(const seg_input *s, const unsigned char *slice, size_t len, const unsigned char *res)
{
    unsigned char r[16];
    memset(r, SENT, sizeof r);
    memcpy(r, res, ref_size(s->T));
    check_reduce((redscan_op)s->op, (redscan_dtype)s->dt, s->T, REDSCAN_REDUCE_COARSENED, slice, len, r);
}

/* ---- offsets: num_segments + 1 of offsets_dtype, from the length bytes; now and then a bad one ---- */

typedef struct {
    redscan_dtype odt; /* may be invalid */
    size_t count;      /* num_segments + 1 */
    uint64_t *v;       /* the values as stored (two's complement for a negative one) */
    int fault;         /* the device must find them bad */
} seg_offsets;

static int offsets_dtype_ok(int odt)
{
    return odt == REDSCAN_INT32 || odt == REDSCAN_UINT32 || odt == REDSCAN_INT64 || odt == REDSCAN_UINT64;
}

static void make_offsets(const seg_input *s, size_t num_segments, size_t in_n, seg_offsets *o)
{
    static const int kinds[8] = {REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64,
                                 REDSCAN_INT32, REDSCAN_INT64,  REDSCAN_UINT64, REDSCAN_UINT32};
    static const int bad_kinds[4] = {0, REDSCAN_FLOAT32, REDSCAN_INT16, REDSCAN_BFLOAT16 + 1};
    const int k = s->b8 & 7;
    o->odt = (redscan_dtype)(k == 7 && (s->b8 & 8) ? bad_kinds[s->b9 & 3] : kinds[k]);
    o->count = num_segments + 1;
    o->v = (uint64_t *)calloc(o->count, sizeof *o->v);
    if (!o->v) abort();
    /* valid offsets: a start (now and then past 0: elements before the first segment), then the lengths, clamped
     * to the elements in holds */
    uint64_t at = (s->fa & 32) ? seg_byte(s, 0) % 41 : 0;
    if (at > in_n) at = in_n;
    o->v[0] = at;
    for (size_t i = 1; i < o->count; i++) {
        at += seg_len(seg_byte(s, i));
        if (at > in_n) at = in_n;
        o->v[i] = at;
    }
    /* bad offsets (byte 8 bits 4-6: 5 decreasing, 6 negative, 7 last past in's end) */
    const int mode = s->b8 >> 4 & 7;
    const size_t at_s = num_segments ? (size_t)s->b9 % num_segments : 0;
    const int sgn = o->odt == REDSCAN_INT32 || o->odt == REDSCAN_INT64;
    const int w32 = o->odt == REDSCAN_INT32 || o->odt == REDSCAN_UINT32;
    if (num_segments && mode == 5) o->v[at_s] = o->v[at_s + 1] + 1 + (s->fa >> 6);
    if (num_segments && mode == 6) o->v[at_s + (s->fb & 1)] = (s->fa & 64) && !w32 ? (uint64_t)INT64_MIN : UINT64_MAX;
    if (num_segments && mode == 7) o->v[num_segments] = in_n + 1 + (s->b9 & 7);
    /* narrow to the stored width: a 32-bit kind keeps the low 32 bits (-1 stays -1 / 0xFFFFFFFF) */
    for (size_t i = 0; i < o->count; i++)
        if (w32) o->v[i] = sgn ? (uint64_t)(int64_t)(int32_t)(uint32_t)o->v[i] : (uint64_t)(uint32_t)o->v[i];
    /* what the device must find, from the stored values alone (docs/SEMANTICS.md "Segments") */
    o->fault = 0;
    for (size_t i = 0; i < o->count; i++) {
        if (sgn && (int64_t)o->v[i] < 0) o->fault = 1;
        if (i + 1 < o->count && (sgn ? (int64_t)o->v[i] > (int64_t)o->v[i + 1] : o->v[i] > o->v[i + 1])) o->fault = 1;
    }
    if (sgn ? (int64_t)o->v[num_segments] > (int64_t)in_n : o->v[num_segments] > in_n) o->fault = 1;
}

/* The offsets buffer: count offsets, one short now and then (flags B low nibble 0x8: INVALID_ARGUMENT). */
static redscan_buffer *offsets_buffer(const seg_input *s, const seg_offsets *o, int *short_buf)
{
    const size_t osz = offsets_dtype_ok(o->odt) ? ref_size(o->odt) : 8;
    unsigned char *raw = (unsigned char *)calloc(o->count, osz);
    if (!raw) abort();
    for (size_t i = 0; i < o->count; i++) {
        if (osz == 4) {
            const uint32_t v = (uint32_t)o->v[i];
            memcpy(raw + i * 4, &v, 4);
        } else {
            memcpy(raw + i * 8, &o->v[i], 8);
        }
    }
    *short_buf = (s->fb & 0x0F) == 0x08;
    const size_t bytes = (o->count - (size_t)*short_buf) * osz + (*short_buf ? osz - 1 : 0);
    redscan_buffer *b = parts_buffer(bytes, raw, bytes);
    free(raw);
    return b;
}

/* in: n elements of dt, and now and then a partial element more (in holds floor(bytes / es) elements). */
static redscan_buffer *seg_in_buffer(const seg_input *s, size_t *bytes)
{
    *bytes = s->n * s->es + (s->n % 3 == 1 ? s->es - 1 : 0);
    return parts_buffer(*bytes, s->x, s->n * s->es);
}

/* After every call nothing may be left pending: a fault found on the device is reported once, by the call. */
static void seg_sync(void)
{
    const redscan_status st = redscan_synchronize(g_ctx);
    if (st != REDSCAN_OK) fail("redscan_synchronize after the call: %s (a fault reported twice, or left pending)",
                               st_name(st));
}

/* redscan_segmented_reduce (fn 9), _argmin (10), _argmax (11), _scan (12) */
static void fuzz_segmented(const seg_input *s)
{
    const int dt_ok = valid_dtype(s->dt);
    const size_t num_segments = (size_t)s->b9 | (size_t)(s->b8 >> 7) << 8;
    const size_t in_n = s->n;
    seg_offsets o;
    make_offsets(s, num_segments, in_n, &o);
    int short_off = 0;
    size_t in_bytes = 0;
    redscan_buffer *in = seg_in_buffer(s, &in_bytes);
    redscan_buffer *off = offsets_buffer(s, &o, &short_off);
    const redscan_buffer *inp = (s->nullsel & 1) ? NULL : in;
    static char what[400];
    snprintf(what, sizeof what, "%s num_segments=%zu offsets_dtype=%d bad_offset=%d fault=%d short=%d seg_algo=%d "
             "seg_block=%d seg_grid=%d", g_what, num_segments, (int)o.odt, s->b8 >> 4 & 7, o.fault, short_off,
             seg_algo(s->fc), seg_block(s->fc), seg_grid(s->fc));
    g_what = what;
    int invalid = !dt_ok || !offsets_dtype_ok(o.odt) || num_segments == 0 || short_off || inp == NULL;
    int unsup = 0;
    const int fp64 = dt_ok && fp64_unsupported((redscan_dtype)s->dt, s->T);
    redscan_status st;
    unsigned want;

    if (s->fn == 12) { /* segmented scan: out holds in_n elements of the output type */
        const int block = seg_block(s->fc), grid = seg_grid(s->fc);
        const redscan_scan_desc d = {(redscan_op)s->op,      (redscan_dtype)s->dt,          (redscan_dtype)s->out_dtype,
                                     s->exclusive,           s->use_init ? s->init->b : NULL, (redscan_block_scan)block,
                                     (redscan_grid_scan)grid, s->flags};
        invalid |= !valid_op(s->op) || !s->od_ok || (s->exclusive != 0 && s->exclusive != 1) ||
                   block > REDSCAN_BLOCK_COARSENED || grid > REDSCAN_GRID_SINGLE_PASS || s->flags != 0;
        unsup = block <= REDSCAN_BLOCK_COARSENED && grid <= REDSCAN_GRID_SINGLE_PASS &&
                ((block != REDSCAN_BLOCK_AUTO && block != REDSCAN_BLOCK_COARSENED) ||
                 (grid != REDSCAN_GRID_AUTO && grid != REDSCAN_GRID_SINGLE_PASS));
        const int ip = s->inplace;
        invalid |= ip && s->T != (redscan_dtype)s->dt; /* in place needs out_dtype == dtype */
        const size_t out_bytes = in_n * s->os + 16;
        redscan_buffer *out = ip ? in : parts_buffer(out_bytes, NULL, 0);
        redscan_buffer *outp = (s->nullsel & 2) ? NULL : out;
        invalid |= outp == NULL;
        st = redscan_segmented_scan(g_ctx, &d, inp, o.odt, off, num_segments, outp);
        want = seg_want(invalid, unsup, fp64, o.fault);
        expect_status(st, want);
        seg_sync();
        unsigned char *got = seg_read(out, ip ? in_bytes : out_bytes);
        /* what out must hold outside the segments (and everywhere after a failure): the input (in place) or SENT */
        unsigned char *before = (unsigned char *)malloc(ip ? in_bytes + 1 : out_bytes);
        if (!before) abort();
        memset(before, SENT, ip ? in_bytes + 1 : out_bytes);
        if (ip) memcpy(before, s->x, in_n * s->es);
        if (st == REDSCAN_OK) {
            for (size_t g = 0; g < num_segments; g++) {
                const size_t a = (size_t)o.v[g], len = (size_t)(o.v[g + 1] - o.v[g]);
                if (len)
                    check_scan((redscan_op)s->op, (redscan_dtype)s->dt, s->T, s->exclusive, s->use_init ? s->init : NULL,
                               REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, s->x + a * s->es, len, got + a * s->os);
                memcpy(before + a * s->os, got + a * s->os, len * s->os); /* checked: take as expected */
            }
        }
        if (memcmp(got, before, ip ? in_bytes : out_bytes) != 0)
            fail(st == REDSCAN_OK ? "segmented scan wrote outside its segments" : "a failed segmented scan wrote out");
        free(got);
        free(before);
        if (!ip) redscan_buffer_destroy(g_ctx, out);
    } else if (s->fn == 9) { /* segmented reduce: num_segments results of the output type */
        const int algo = seg_algo(s->fc);
        const redscan_reduce_desc d = {(redscan_op)s->op, (redscan_dtype)s->dt, (redscan_dtype)s->out_dtype,
                                       (redscan_reduce_algo)algo, s->flags};
        invalid |= !valid_op(s->op) || !s->od_ok || algo > REDSCAN_REDUCE_SHUFFLE || s->flags != 0;
        unsup = algo <= REDSCAN_REDUCE_SHUFFLE && algo != REDSCAN_REDUCE_AUTO && algo != REDSCAN_REDUCE_COARSENED;
        const size_t out_bytes = num_segments * s->os + 16;
        redscan_buffer *out = parts_buffer(out_bytes, NULL, 0);
        redscan_buffer *outp = (s->nullsel & 2) ? NULL : out;
        invalid |= outp == NULL;
        st = redscan_segmented_reduce(g_ctx, &d, inp, o.odt, off, num_segments, outp);
        expect_status(st, seg_want(invalid, unsup, fp64, o.fault));
        seg_sync();
        unsigned char *got = seg_read(out, out_bytes);
        if (st == REDSCAN_OK) {
            for (size_t g = 0; g < num_segments; g++)
                seg_check_reduce(s, s->x + o.v[g] * s->es, (size_t)(o.v[g + 1] - o.v[g]), got + g * s->os);
            if (!untouched(got + num_segments * s->os, 16)) fail("segmented reduce wrote past num_segments");
        } else if (!untouched(got, out_bytes)) {
            fail("a failed segmented reduce wrote out");
        }
        free(got);
        redscan_buffer_destroy(g_ctx, out);
    } else { /* segmented argmin / argmax: indices, and values when want_aux */
        const int want_max = s->fn == 11;
        const size_t idx_bytes = num_segments * 8 + 16, val_bytes = num_segments * s->es + 16;
        redscan_buffer *idx = parts_buffer(idx_bytes, NULL, 0);
        redscan_buffer *val = s->want_aux ? parts_buffer(val_bytes, NULL, 0) : NULL;
        redscan_buffer *idxp = (s->nullsel & 2) ? NULL : idx;
        invalid |= idxp == NULL;
        st = want_max ? redscan_segmented_argmax(g_ctx, (redscan_dtype)s->dt, inp, o.odt, off, num_segments, idxp, val)
                      : redscan_segmented_argmin(g_ctx, (redscan_dtype)s->dt, inp, o.odt, off, num_segments, idxp, val);
        expect_status(st, seg_want(invalid, 0, dt_ok && fp64_unsupported((redscan_dtype)s->dt, (redscan_dtype)s->dt),
                                   o.fault));
        seg_sync();
        unsigned char *gi = seg_read(idx, idx_bytes), *gv = val ? seg_read(val, val_bytes) : NULL;
        if (st == REDSCAN_OK) {
            const redscan_dtype D = (redscan_dtype)s->dt;
            for (size_t g = 0; g < num_segments; g++) {
                const size_t a = (size_t)o.v[g], len = (size_t)(o.v[g + 1] - o.v[g]);
                uint64_t got_i;
                memcpy(&got_i, gi + g * 8, 8);
                const uint64_t w = len ? a + ref_argext(D, want_max, s->x + a * s->es, len) : UINT64_MAX;
                if (got_i != w)
                    fail("segmented arg%s: segment %zu [%zu, %zu): index %" PRIu64 ", want %" PRIu64,
                         want_max ? "max" : "min", g, a, a + len, got_i, w);
                if (gv) {
                    const ref_val wv = len ? ref_load(D, s->x, (size_t)w) : want_max ? ref_type_min(D) : ref_type_max(D);
                    if (!ref_bits_equal(D, ref_load(D, gv, g), wv))
                        fail("segmented arg%s: segment %zu: value 0x%016" PRIx64 ", want 0x%016" PRIx64,
                             want_max ? "max" : "min", g, ref_load(D, gv, g).u64, wv.u64);
                }
            }
            if (!untouched(gi + num_segments * 8, 16) || (gv && !untouched(gv + num_segments * s->es, 16)))
                fail("segmented arg%s wrote past num_segments", want_max ? "max" : "min");
        } else if (!untouched(gi, idx_bytes) || (gv && !untouched(gv, val_bytes))) {
            fail("a failed segmented arg%s wrote its outputs", want_max ? "max" : "min");
        }
        free(gi);
        free(gv);
        redscan_buffer_destroy(g_ctx, idx);
        if (val) redscan_buffer_destroy(g_ctx, val);
    }
    redscan_buffer_destroy(g_ctx, in);
    redscan_buffer_destroy(g_ctx, off);
    free(o.v);
}

/* ---- by key: runs of equal adjacent keys ---- */

static int key_dtype_ok(int k)
{
    return (k >= REDSCAN_INT32 && k <= REDSCAN_UINT64) || (k >= REDSCAN_INT8 && k <= REDSCAN_UINT16);
}

/* n keys of kdt: runs with lengths from the length bytes, each run's key one of a few values (0, 1, 2, the top bit,
 * the top bit | 1, all ones), so adjacent runs often share a key (they merge) and keys that differ only in the sign
 * or top bit meet. Stored little-endian in the key width; returns the bytes per key. */
static size_t make_keys(const seg_input *s, int kdt, unsigned char *keys)
{
    const size_t ks = key_dtype_ok(kdt) ? ref_size((redscan_dtype)kdt) : 4;
    const uint64_t top = (uint64_t)1 << (ks * 8 - 1);
    const uint64_t vals[6] = {0, 1, 2, top, top | 1, UINT64_MAX};
    size_t i = 0, r = 0;
    while (i < s->n) {
        size_t len = seg_len(seg_byte(s, 2 * r + 1));
        if (len == 0) len = 1;
        const uint64_t key = vals[seg_byte(s, 2 * r + 2) % 6];
        for (size_t j = 0; j < len && i < s->n; j++, i++) memcpy(keys + i * ks, &key, ks); /* little-endian */
        r++;
    }
    return ks;
}

/* The runs of the keys, compared as the bits of their width: run r is [start[r], start[r + 1]). Returns R. */
static size_t key_runs(const unsigned char *keys, size_t ks, size_t n, size_t *start)
{
    size_t R = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || memcmp(keys + i * ks, keys + (i - 1) * ks, ks) != 0) start[R++] = i;
    start[R] = n;
    return R;
}

/* redscan_scan_by_key (fn 13), redscan_reduce_by_key (fn 14) */
static void fuzz_by_key(const seg_input *s)
{
    static const int kdts[8] = {REDSCAN_INT8,  REDSCAN_UINT8, REDSCAN_INT16, REDSCAN_UINT16,
                                REDSCAN_INT32, REDSCAN_UINT32, REDSCAN_INT64, REDSCAN_UINT64};
    static const int bad_kdts[4] = {0, REDSCAN_FLOAT32, REDSCAN_FLOAT16, REDSCAN_BFLOAT16 + 1};
    const int kdt = (s->b8 & 0x78) == 0x78 ? bad_kdts[s->b9 & 3] : kdts[s->b8 & 7];
    const int dt_ok = valid_dtype(s->dt);
    const size_t n = s->n;
    unsigned char *keys = (unsigned char *)malloc(n * 8 + 8);
    size_t *start = (size_t *)malloc((n + 1) * sizeof *start);
    if (!keys || !start) abort();
    const size_t ks = make_keys(s, kdt, keys);
    const size_t R = key_runs(keys, ks, n, start);
    /* keys one short now and then (flags B low nibble 0x8): INVALID_ARGUMENT when n > 0 */
    const int short_keys = (s->fb & 0x0F) == 0x08 && n > 0;
    redscan_buffer *kb = parts_buffer(n * ks - (size_t)short_keys, keys, n * ks - (size_t)short_keys);
    redscan_buffer *in = parts_buffer(n * s->es, s->x, n * s->es);
    const redscan_buffer *inp = (s->nullsel & 1) ? NULL : in;
    static char what[400];
    snprintf(what, sizeof what, "%s key_dtype=%d runs=%zu short=%d seg_algo=%d seg_block=%d seg_grid=%d", g_what, kdt, R,
             short_keys, seg_algo(s->fc), seg_block(s->fc), seg_grid(s->fc));
    g_what = what;
    int invalid = !dt_ok || !key_dtype_ok(kdt) || short_keys || inp == NULL || !valid_op(s->op) || !s->od_ok ||
                  s->flags != 0;
    const int fp64 = dt_ok && fp64_unsupported((redscan_dtype)s->dt, s->T);
    int unsup;
    redscan_status st;

    if (s->fn == 13) { /* scan by key */
        const int block = seg_block(s->fc), grid = seg_grid(s->fc);
        const redscan_scan_desc d = {(redscan_op)s->op,      (redscan_dtype)s->dt,          (redscan_dtype)s->out_dtype,
                                     s->exclusive,           s->use_init ? s->init->b : NULL, (redscan_block_scan)block,
                                     (redscan_grid_scan)grid, s->flags};
        invalid |= (s->exclusive != 0 && s->exclusive != 1) || block > REDSCAN_BLOCK_COARSENED ||
                   grid > REDSCAN_GRID_SINGLE_PASS;
        unsup = block <= REDSCAN_BLOCK_COARSENED && grid <= REDSCAN_GRID_SINGLE_PASS &&
                ((block != REDSCAN_BLOCK_AUTO && block != REDSCAN_BLOCK_COARSENED) ||
                 (grid != REDSCAN_GRID_AUTO && grid != REDSCAN_GRID_SINGLE_PASS));
        const int ip = s->inplace;
        invalid |= ip && s->T != (redscan_dtype)s->dt;
        const size_t out_bytes = ip ? n * s->es : n * s->os + 16;
        redscan_buffer *out = ip ? in : parts_buffer(out_bytes, NULL, 0);
        redscan_buffer *outp = (s->nullsel & 2) ? NULL : out;
        invalid |= outp == NULL;
        st = redscan_scan_by_key(g_ctx, &d, (redscan_dtype)kdt, kb, inp, outp, n);
        /* n = 0 does nothing; whether a FLOAT64 refusal comes first is not documented */
        expect_status(st, seg_want(invalid, unsup, fp64, 0) | (fp64 && !invalid && !unsup && n == 0 ? M(REDSCAN_OK) : 0));
        seg_sync();
        unsigned char *got = seg_read(out, out_bytes);
        if (st == REDSCAN_OK && n > 0) {
            for (size_t r = 0; r < R; r++)
                check_scan((redscan_op)s->op, (redscan_dtype)s->dt, s->T, s->exclusive, s->use_init ? s->init : NULL,
                           REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, s->x + start[r] * s->es, start[r + 1] - start[r],
                           got + start[r] * s->os);
            if (!ip && !untouched(got + n * s->os, 16)) fail("scan by key wrote past n");
        } else if (ip ? memcmp(got, s->x, n * s->es) != 0 : !untouched(got, out_bytes)) {
            fail("a failed (or n = 0) scan by key wrote out");
        }
        free(got);
        if (!ip) redscan_buffer_destroy(g_ctx, out);
    } else { /* reduce by key */
        const int algo = seg_algo(s->fc);
        const redscan_reduce_desc d = {(redscan_op)s->op, (redscan_dtype)s->dt, (redscan_dtype)s->out_dtype,
                                       (redscan_reduce_algo)algo, s->flags};
        invalid |= algo > REDSCAN_REDUCE_SHUFFLE;
        unsup = algo <= REDSCAN_REDUCE_SHUFFLE && algo != REDSCAN_REDUCE_AUTO && algo != REDSCAN_REDUCE_COARSENED;
        const size_t uk_bytes = n * ks + 16, ag_bytes = n * s->os + 16;
        redscan_buffer *uk = parts_buffer(uk_bytes, NULL, 0), *ag = parts_buffer(ag_bytes, NULL, 0);
        /* NULL outputs: unique_keys or aggregates (nulls 2), num_runs too (nulls 3) */
        redscan_buffer *ukp = (s->nullsel & 2) && (s->fa & 1) ? NULL : uk;
        redscan_buffer *agp = (s->nullsel & 2) && !(s->fa & 1) ? NULL : ag;
        size_t runs = 12345, *runsp = s->nullsel == 3 ? NULL : &runs;
        invalid |= ukp == NULL || agp == NULL || runsp == NULL;
        st = redscan_reduce_by_key(g_ctx, &d, (redscan_dtype)kdt, kb, inp, n, ukp, agp, runsp);
        expect_status(st, seg_want(invalid, unsup, fp64, 0) | (fp64 && !invalid && !unsup && n == 0 ? M(REDSCAN_OK) : 0));
        seg_sync();
        unsigned char *gk = seg_read(uk, uk_bytes), *ga = seg_read(ag, ag_bytes);
        if (st == REDSCAN_OK) {
            if (runs != R) fail("reduce by key: num_runs %zu, want %zu", runs, R);
            for (size_t r = 0; r < R; r++) {
                if (memcmp(gk + r * ks, keys + start[r] * ks, ks) != 0)
                    fail("reduce by key: run %zu of %zu [%zu, %zu): key bits differ", r, R, start[r], start[r + 1]);
                seg_check_reduce(s, s->x + start[r] * s->es, start[r + 1] - start[r], ga + r * s->os);
            }
            if (!untouched(gk + R * ks, uk_bytes - R * ks) || !untouched(ga + R * s->os, ag_bytes - R * s->os))
                fail("reduce by key wrote past num_runs = %zu", R);
        } else if (!untouched(gk, uk_bytes) || !untouched(ga, ag_bytes) || runs != 12345) {
            fail("a failed reduce by key wrote its outputs");
        }
        free(gk);
        free(ga);
        redscan_buffer_destroy(g_ctx, uk);
        redscan_buffer_destroy(g_ctx, ag);
    }
    redscan_buffer_destroy(g_ctx, kb);
    redscan_buffer_destroy(g_ctx, in);
    free(keys);
    free(start);
}

/* ---------------------------------------------------------------- the target */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    const int fn = byte_at(&in, 0) % 15;
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
    const int ex_fn = fn == 1 || fn == 3 || fn == 8 || fn == 9 || fn >= 12; /* a descriptor with out_dtype */
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
    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 14: { /* segments, segmented scan, by key */
        const seg_input si = {fn, op, dt, out_dtype, od_ok, T, x, n, es, os, payload, plen, fa, fb, fc,
                              byte_at(&in, 8), byte_at(&in, 9), exclusive, use_init, inplace, want_aux, nullsel, flags,
                              &init};
        if (fn <= 12) fuzz_segmented(&si);
        else fuzz_by_key(&si);
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
