/* test_scan_parts: redscan_scan_section_totals and redscan_scan_with_carries (docs/SEMANTICS.md, "Scan parts"), the
 * building blocks of libredscan_mpi's scan.
 *
 * (a) Whole arrays: totals -> redscan_buffer_read -> the single_pass chain on the host (chain_carries below, written
 *     from docs/ALGORITHMS.md "Grid level" with reference.c's ref_combine) -> redscan_buffer_write of the carries ->
 *     with_carries -> redscan_synchronize gives, bit for bit, redscan_scan_ex's AUTO result for the same desc (and
 *     the documented order, ref_scan_emulate_grid). Sizes 1, 2047, 2048, 2049, a few sections, and more than 32
 *     sections (the chain's groups of 32), inclusive and exclusive, each with an init.
 * (b) Sub-ranges: odd, different in_offset / out_offset, compared with the same computation on a copy of the range
 *     at offset 0; the elements of out outside the range keep their poison; in place (in == out, equal offsets).
 * (c) Every argument error returns its status, names the function in the message and leaves out / totals untouched.
 *
 * Types: int32, uint32, int64, float32, float64, int8, float16, bfloat16, the widenings int8 -> int32 and
 * float16 -> float32 (float16 and bfloat16 are narrow outputs too). PoCL compiles one program per (dtype, out dtype,
 * op), shared by redscan_scan and the parts: REDSCAN_TEST_LEVEL 0 takes one op per type (rotating so that every op is
 * met), 1 two, 2 all four. REDSCAN_SCAN_BLOCK / _GRID are cleared: the parts always follow the AUTO order. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SEC REDSCAN_SCAN_SECTION

typedef struct {
    redscan_dtype dt, out; /* out 0: dt */
} type_case;

static const type_case g_types[] = {
    {REDSCAN_INT32, 0},   {REDSCAN_UINT32, 0},   {REDSCAN_INT64, 0},  {REDSCAN_FLOAT32, 0},
    {REDSCAN_FLOAT64, 0}, {REDSCAN_INT8, 0},     {REDSCAN_FLOAT16, 0}, {REDSCAN_BFLOAT16, 0},
    {REDSCAN_INT8, REDSCAN_INT32}, {REDSCAN_FLOAT16, REDSCAN_FLOAT32},
};

static size_t count_of(size_t n) { return n / SEC + (n % SEC != 0); }

/* The type the totals and carries hold (docs/SEMANTICS.md, "Narrow types"): the 32-bit type of a narrow output's kind
 * (int8 / int16 -> int32, uint8 / uint16 -> uint32, float16 / bfloat16 -> float32), else the output type itself. */
static redscan_dtype carry_type(redscan_dtype out_dt)
{
    switch (out_dt) {
    case REDSCAN_INT8:
    case REDSCAN_INT16: return REDSCAN_INT32;
    case REDSCAN_UINT8:
    case REDSCAN_UINT16: return REDSCAN_UINT32;
    case REDSCAN_FLOAT16:
    case REDSCAN_BFLOAT16: return REDSCAN_FLOAT32;
    default: return out_dt;
    }
}

/* The carries of single_pass's expression from the section totals S (count values of the compute type T) and init
 * (T): groups of 32 sections, T(g) = S[32g] (+) ... (+) S[32g+31], A(-1) = init, A(g) = A(g-1) (+) T(g),
 * P[32g] = A(g-1), P[32g+p] = A(g-1) (+) (S[32g] (+) ... (+) S[32g+p-1]). What libredscan_mpi does across ranks. */
static void chain_carries(redscan_op op, redscan_dtype T, ref_val init, const void *S, void *P, size_t count)
{
    ref_val A = init, W = ref_zero();
    for (size_t j = 0; j < count; j++) {
        const size_t p = j % 32;
        const ref_val s = ref_load(T, S, j);
        if (p == 0 && j > 0) A = ref_combine(op, T, A, W); /* W = T(g-1) */
        ref_store(T, P, j, p ? ref_combine(op, T, A, W) : A);
        W = p ? ref_combine(op, T, W, s) : s;
    }
}

/* The parts on in[in_off .. in_off + n) -> out[out_off ..), with init: totals, read, chain, write, with_carries,
 * synchronize. Returns 0 on a failed call (counted). */
static int run_parts(const redscan_scan_desc *d, redscan_buffer *in, size_t in_off, redscan_buffer *out,
                     size_t out_off, size_t n)
{
    const redscan_dtype out_dt = d->out_dtype ? d->out_dtype : d->dtype, T = carry_type(out_dt);
    const size_t count = count_of(n), ts = ref_size(T);
    ref_val init = d->init ? ref_load(out_dt, d->init, 0) : ref_identity(d->op, out_dt);
    init = T == out_dt ? init : ref_convert(out_dt, T, init);
    void *S = h_malloc(count * ts), *P = h_malloc(count * ts);
    redscan_buffer *tb = h_buffer(count * ts), *cb = h_buffer(count * ts);
    int ok = tb && cb;
    ok = ok && CHECK_OK(redscan_scan_section_totals(h_ctx, d, in, in_off, n, tb), "redscan_scan_section_totals");
    ok = ok && CHECK_OK(redscan_buffer_read(h_ctx, tb, 0, S, count * ts), "read totals");
    if (ok) chain_carries(d->op, T, init, S, P, count);
    ok = ok && CHECK_OK(redscan_buffer_write(h_ctx, cb, 0, P, count * ts), "write carries");
    ok = ok && CHECK_OK(redscan_scan_with_carries(h_ctx, d, in, in_off, out, out_off, n, cb),
                        "redscan_scan_with_carries");
    ok = ok && CHECK_OK(redscan_synchronize(h_ctx), "redscan_synchronize");
    if (tb) redscan_buffer_destroy(h_ctx, tb);
    if (cb) redscan_buffer_destroy(h_ctx, cb);
    free(S);
    free(P);
    return ok;
}

/* (a) whole arrays against redscan_scan_ex (AUTO) and the documented order. */
static void whole(const redscan_scan_desc *d, const void *x, size_t n)
{
    const redscan_dtype out_dt = d->out_dtype ? d->out_dtype : d->dtype;
    const size_t is = ref_size(d->dtype), os = ref_size(out_dt);
    unsigned char *got = h_malloc(n * os), *auto_bits = h_malloc(n * os), *want = h_malloc(n * os);
    redscan_buffer *in = h_buffer_with(x, n * is, n * is, 0, ref_zero());
    redscan_buffer *out = h_buffer(n * os), *ref = h_buffer(n * os);
    if (in && out && ref && run_parts(d, in, 0, out, 0, n) &&
        CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, n * os), "read out") &&
        CHECK_OK(redscan_scan_ex(h_ctx, d, in, ref, n), "redscan_scan_ex (AUTO)") &&
        CHECK_OK(redscan_buffer_read(h_ctx, ref, 0, auto_bits, n * os), "read AUTO scan")) {
        CHECK_BITS(out_dt, got, auto_bits, n, "parts against redscan_scan_ex AUTO, bit for bit");
        ref_scan_emulate_grid(REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, d->op, d->dtype, out_dt, d->exclusive, d->init,
                              x, want, n);
        CHECK_ARRAY(d->op, out_dt, got, want, n, "parts against the documented AUTO order");
    }
    if (in) redscan_buffer_destroy(h_ctx, in);
    if (out) redscan_buffer_destroy(h_ctx, out);
    if (ref) redscan_buffer_destroy(h_ctx, ref);
    free(got);
    free(auto_bits);
    free(want);
}

/* (b) in[in_off ..] -> out[out_off ..] against the same computation on a copy of the range at offset 0; out's other
 * elements keep their poison. inplace: in == out with in_off == out_off (dtype == out dtype). */
static void sub_range(const redscan_scan_desc *d, const void *x, size_t in_off, size_t out_off, size_t n,
                      int inplace)
{
    const redscan_dtype out_dt = d->out_dtype ? d->out_dtype : d->dtype;
    const size_t is = ref_size(d->dtype), os = ref_size(out_dt), pad = 7;
    const size_t in_len = in_off + n + pad, out_len = inplace ? in_len : out_off + n + pad;
    const ref_val poison = h_poison(d->op, out_dt);
    unsigned char *src = h_malloc(in_len * is), *got = h_malloc(out_len * os), *base = h_malloc(n * os);
    unsigned char *expect = h_malloc(out_len * os);
    memset(src, 0x5a, in_len * is); /* values outside the range: reading them changes the result */
    memcpy(src + in_off * is, x, n * is);
    redscan_buffer *in = h_buffer_with(src, in_len * is, in_len * is, 0, ref_zero());
    redscan_buffer *out = inplace ? in : h_buffer_with(NULL, 0, out_len * os, out_dt, poison);
    redscan_buffer *in0 = h_buffer_with(x, n * is, n * is, 0, ref_zero()), *out0 = h_buffer(n * os);
    if (in && out && in0 && out0 && run_parts(d, in, in_off, out, out_off, n) &&
        CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, out_len * os), "read out") &&
        run_parts(d, in0, 0, out0, 0, n) && CHECK_OK(redscan_buffer_read(h_ctx, out0, 0, base, n * os), "read")) {
        if (inplace) memcpy(expect, src, out_len * os);
        else h_fill(out_dt, expect, out_len, poison);
        memcpy(expect + out_off * os, base, n * os);
        CHECK_BITS(out_dt, got, expect, out_len, "range at offsets against the range at offset 0 (and untouched rest)");
    }
    if (in) redscan_buffer_destroy(h_ctx, in);
    if (out && !inplace) redscan_buffer_destroy(h_ctx, out);
    if (in0) redscan_buffer_destroy(h_ctx, in0);
    if (out0) redscan_buffer_destroy(h_ctx, out0);
    free(src);
    free(got);
    free(base);
    free(expect);
}

static void type_cases(int ti, int level, h_rng *r)
{
    const type_case tc = g_types[ti];
    const redscan_dtype out_dt = tc.out ? tc.out : tc.dt;
    static const size_t sizes[] = {1, 2047, 2048, 2049, 5 * SEC + 77, 33 * SEC + 5};
    const size_t nmax = 33 * SEC + 5 + 4099;
    const int nops = level >= 2 ? 4 : level == 1 ? 2 : 1;
    unsigned char *x = h_malloc(nmax * ref_size(tc.dt));
    for (int k = 0; k < nops; k++) {
        const redscan_op op = (redscan_op)((ti + k * (nops == 2 ? 2 : 1)) % 4);
        ref_val init;
        h_generate(r, out_dt, op, GEN_PLAIN, &init, 1);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int excl = 0; excl < 2; excl++) {
                const size_t n = sizes[si];
                const redscan_scan_desc d = {op, tc.dt, tc.out, excl, &init, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
                if (!h_case("scan parts %s->%s %s %s n=%zu whole", ref_dtype_str(tc.dt), ref_dtype_str(out_dt),
                            ref_op_str(op), excl ? "exclusive" : "inclusive", n))
                    continue;
                h_generate(r, tc.dt, op, GEN_EDGE, x, n);
                whole(&d, x, n);
            }
        /* (b): odd offsets; one section, a partial one, and more than a group of 32 at level >= 1 */
        static const size_t sub_n[] = {1, 2049, 3 * SEC + 1001, 33 * SEC + 5};
        const size_t nsub = level >= 1 ? 4 : 3;
        for (size_t si = 0; si < nsub; si++) {
            const size_t n = sub_n[si];
            const int excl = (int)(si % 2), inplace = tc.out == 0 && si == 1;
            const size_t in_off = 1001 + 2 * si, out_off = inplace ? in_off : 3 + 4098 * si;
            const redscan_scan_desc d = {op, tc.dt, tc.out, excl, &init, REDSCAN_BLOCK_COARSENED, REDSCAN_GRID_AUTO, 0};
            if (!h_case("scan parts %s->%s %s %s n=%zu in_offset=%zu out_offset=%zu%s", ref_dtype_str(tc.dt),
                        ref_dtype_str(out_dt), ref_op_str(op), excl ? "exclusive" : "inclusive", n, in_off, out_off,
                        inplace ? " in place" : ""))
                continue;
            h_generate(r, tc.dt, op, GEN_EDGE, x, n);
            sub_range(&d, x, in_off, out_off, n, inplace);
        }
    }
    free(x);
}

/* ---- (c) argument errors ---- */

static redscan_buffer *g_in, *g_out, *g_tot, *g_car;
static unsigned char g_out_before[64 * 4], g_tot_before[8 * 4];

/* One refused call: its status, a message naming the function, and out / totals untouched. */
static void refused(redscan_status st, redscan_status want, const char *fn, const char *what)
{
    if (!h_case("scan parts errors: %s", what)) return;
    CHECK_STATUS(st, want, what);
    CHECK(h_names_any(h_last_error(), fn), "%s: the message names %s: \"%s\"", what, fn, h_last_error());
    unsigned char now[sizeof g_out_before], tnow[sizeof g_tot_before];
    if (CHECK_OK(redscan_synchronize(h_ctx), "synchronize") &&
        CHECK_OK(redscan_buffer_read(h_ctx, g_out, 0, now, sizeof now), "read out") &&
        CHECK_OK(redscan_buffer_read(h_ctx, g_tot, 0, tnow, sizeof tnow), "read totals")) {
        CHECK_MEM(now, g_out_before, sizeof now, "out untouched");
        CHECK_MEM(tnow, g_tot_before, sizeof tnow, "totals untouched");
    }
}

static void errors(void)
{
    const char *T = "redscan_scan_section_totals", *W = "redscan_scan_with_carries";
    int32_t x[64];
    for (int i = 0; i < 64; i++) x[i] = i + 1;
    memset(g_out_before, 0xA5, sizeof g_out_before);
    memset(g_tot_before, 0xA5, sizeof g_tot_before);
    g_in = h_buffer_with(x, sizeof x, sizeof x, 0, ref_zero());
    g_out = h_buffer_with(g_out_before, sizeof g_out_before, sizeof g_out_before, 0, ref_zero());
    g_tot = h_buffer_with(g_tot_before, sizeof g_tot_before, sizeof g_tot_before, 0, ref_zero());
    g_car = h_buffer_with(NULL, 0, 8 * 4, 0, ref_zero());
    redscan_buffer *tiny = h_buffer_with(NULL, 0, 2, 0, ref_zero()); /* too small for one int32 */
    if (!g_in || !g_out || !g_tot || !g_car || !tiny) return;
    const redscan_scan_desc ok = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
    redscan_scan_desc d;
    const redscan_status INV = REDSCAN_ERR_INVALID_ARGUMENT, UNS = REDSCAN_ERR_UNSUPPORTED;

    /* NULLs */
    CHECK_STATUS(redscan_scan_section_totals(NULL, &ok, g_in, 0, 64, g_tot), INV, "totals: ctx NULL");
    CHECK_STATUS(redscan_scan_with_carries(NULL, &ok, g_in, 0, g_out, 0, 64, g_car), INV, "carries: ctx NULL");
    refused(redscan_scan_section_totals(h_ctx, NULL, g_in, 0, 64, g_tot), INV, T, "totals: desc NULL");
    refused(redscan_scan_section_totals(h_ctx, &ok, NULL, 0, 64, g_tot), INV, T, "totals: in NULL");
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, 0, 64, NULL), INV, T, "totals: totals NULL");
    refused(redscan_scan_with_carries(h_ctx, NULL, g_in, 0, g_out, 0, 64, g_car), INV, W, "carries: desc NULL");
    refused(redscan_scan_with_carries(h_ctx, &ok, NULL, 0, g_out, 0, 64, g_car), INV, W, "carries: in NULL");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, NULL, 0, 64, g_car), INV, W, "carries: out NULL");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_out, 0, 64, NULL), INV, W, "carries: carries NULL");
    /* n = 0 */
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, 0, 0, g_tot), INV, T, "totals: n = 0");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_out, 0, 0, g_car), INV, W, "carries: n = 0");
    /* algorithms other than the AUTO scan's */
    d = ok, d.block = REDSCAN_BLOCK_KOGGE_STONE;
    refused(redscan_scan_section_totals(h_ctx, &d, g_in, 0, 64, g_tot), UNS, T, "totals: block kogge_stone");
    refused(redscan_scan_with_carries(h_ctx, &d, g_in, 0, g_out, 0, 64, g_car), UNS, W, "carries: block kogge_stone");
    d = ok, d.grid = REDSCAN_GRID_SINGLE_PASS;
    refused(redscan_scan_section_totals(h_ctx, &d, g_in, 0, 64, g_tot), UNS, T, "totals: grid single_pass");
    d = ok, d.grid = REDSCAN_GRID_HIERARCHICAL;
    refused(redscan_scan_with_carries(h_ctx, &d, g_in, 0, g_out, 0, 64, g_car), UNS, W, "carries: grid hierarchical");
    /* bad descriptor fields */
    d = ok, d.op = (redscan_op)9;
    refused(redscan_scan_section_totals(h_ctx, &d, g_in, 0, 64, g_tot), INV, T, "totals: unknown op");
    d = ok, d.out_dtype = REDSCAN_FLOAT64;
    refused(redscan_scan_with_carries(h_ctx, &d, g_in, 0, g_out, 0, 64, g_car), INV, W, "carries: int32 -> float64");
    d = ok, d.flags = 1;
    refused(redscan_scan_with_carries(h_ctx, &d, g_in, 0, g_out, 0, 64, g_car), INV, W, "carries: flags 1");
    /* ranges past the buffers */
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, 1, 64, g_tot), INV, T, "totals: in_offset 1 + 64 past in");
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, 64, 1, g_tot), INV, T, "totals: in_offset 64 past in");
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, 0, 65, g_tot), INV, T, "totals: n 65 past in");
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, 0, 64, tiny), INV, T, "totals: totals too small");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 3, g_out, 0, 62, g_car), INV, W, "carries: in_offset past in");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_out, 200, 57, g_car), INV, W,
            "carries: out_offset past out");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_out, 0, 64, tiny), INV, W, "carries: carries too small");
    d = ok, d.out_dtype = REDSCAN_INT64; /* 64 int64 outputs need 512 bytes, out holds 256 */
    refused(redscan_scan_with_carries(h_ctx, &d, g_in, 0, g_out, 0, 64, g_car), INV, W,
            "carries: out too small for the widened type");
    /* size_t overflow */
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, SIZE_MAX, 2, g_tot), INV, T,
            "totals: in_offset + n overflows");
    refused(redscan_scan_section_totals(h_ctx, &ok, g_in, 0, SIZE_MAX / 2, g_tot), INV, T,
            "totals: n * 4 overflows");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_out, SIZE_MAX - 10, 64, g_car), INV, W,
            "carries: out_offset + n overflows");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, SIZE_MAX / 4, g_out, 0, 1, g_car), INV, W,
            "carries: (in_offset + n) * 4 overflows");
    /* overlaps */
    refused(redscan_scan_section_totals(h_ctx, &ok, g_out, 0, 8, g_out), INV, T, "totals: totals == in");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_out, 0, g_out, 1, 32, g_car), INV, W,
            "carries: in and out overlap at other offsets");
    d = ok, d.dtype = REDSCAN_INT8, d.out_dtype = REDSCAN_INT32;
    refused(redscan_scan_with_carries(h_ctx, &d, g_out, 0, g_out, 0, 32, g_car), INV, W,
            "carries: in place with a widening");
    refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_out, 0, 32, g_out), INV, W, "carries: carries overlap out");
    /* a buffer of another context */
    redscan_ctx *other = NULL;
    redscan_buffer *foreign = NULL;
    if (CHECK_OK(redscan_create(&other, REDSCAN_BACKEND_AUTO), "second context") &&
        CHECK_OK(redscan_buffer_create(other, 256, &foreign), "buffer of the second context")) {
        refused(redscan_scan_section_totals(h_ctx, &ok, foreign, 0, 64, g_tot), INV, T, "totals: in of another context");
        refused(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_out, 0, 64, foreign), INV, W,
                "carries: carries of another context");
    }
    if (foreign) redscan_buffer_destroy(other, foreign);
    if (other) redscan_destroy(other);

    /* allowed: disjoint ranges of one buffer, and carries beside out in one buffer (nothing to refuse) */
    if (h_case("scan parts errors: disjoint ranges of one buffer are accepted")) {
        int32_t carry = 0;
        CHECK_OK(redscan_buffer_write(h_ctx, g_car, 0, &carry, sizeof carry), "zero carry");
        CHECK_OK(redscan_scan_with_carries(h_ctx, &ok, g_in, 0, g_in, 32, 32, g_car), "in[0..32) -> in[32..64)");
        CHECK_OK(redscan_synchronize(h_ctx), "synchronize");
        int32_t y[64], want = 0;
        if (CHECK_OK(redscan_buffer_read(h_ctx, g_in, 0, y, sizeof y), "read"))
            for (int i = 0; i < 32; i++) {
                want += i + 1;
                CHECK(y[32 + i] == want && y[i] == i + 1, "in[%d] = %d, in[%d] = %d (want %d, %d)", 32 + i,
                      (int)y[32 + i], i, (int)y[i], (int)want, i + 1);
            }
    }
    redscan_buffer_destroy(h_ctx, g_in);
    redscan_buffer_destroy(h_ctx, g_out);
    redscan_buffer_destroy(h_ctx, g_tot);
    redscan_buffer_destroy(h_ctx, g_car);
    redscan_buffer_destroy(h_ctx, tiny);
}

int main(void)
{
    unsetenv("REDSCAN_SCAN_BLOCK"); /* the comparison is with the AUTO scan's own order */
    unsetenv("REDSCAN_SCAN_GRID");
    h_open("test_scan_parts");
    const int level = h_level();
    errors();
    for (int ti = 0; ti < (int)(sizeof g_types / sizeof g_types[0]); ti++) {
        h_rng r;
        h_rng_init(&r, h_seed(0x5ca9, (uint64_t)ti, 0, 0, 0, 0));
        type_cases(ti, level, &r);
    }
    return h_done();
}
