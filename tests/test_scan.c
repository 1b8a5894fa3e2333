/* test_scan: every op x dtype (and widening) x block algorithm x grid algorithm x inclusive/exclusive x
 * (init NULL, init not the identity) x (in place, not) through redscan_scan_ex, plus redscan_scan_host_ex,
 * redscan_scan and redscan_scan_host.
 *
 * Expected values (reference.h):
 *   integers, float min/max   exact, bit for bit, every element (sequential reference)
 *   float sum / prod          every element within the bound of the block's depth and the number of hierarchy
 *                             levels, and bit for bit equal to the documented order (block scan + grid formula
 *                             of ALGORITHMS.md; which order, by one rule: h_scan_emulate): block AUTO is
 *                             coarsened (or the one forced by REDSCAN_SCAN_BLOCK); hierarchical and
 *                             reduce-then-scan give identical bits for the same block (checked directly, device
 *                             against device); single_pass gives the bits of its own fixed tree
 *                             (ref_scan_emulate_single_pass), and so does the AUTO grid (unless REDSCAN_SCAN_GRID
 *                             forces another)
 * Every run also checks: the output past n is untouched (sentinel), the output before n is fully written
 * (pre-filled with a sentinel), the input (with a poisoned tail past n) is unchanged when not in place, a second
 * run of a float case gives the same bits.
 *
 * Sizes: the full cross product at small sizes (below level 2 the wide entries with product, min and max run two of
 * the five blocks, block_runs); 1023..65537 and random sizes with a rotating subset of the
 * configurations (all grids of each chosen block, so hierarchical == reduce-then-scan is always compared);
 * per block the sizes that need 2 and 3 levels (SECTION + 1, SECTION^2 + 1, 2 SECTION^2 + 1) and a one-element
 * last section; 2^20 +- 3 and 2^24 + 1 with a covering subset (every op, type, block, grid, mode); 2^26 + 3 for
 * two combinations. Regression cases for seed 001's bugs use closed forms (prefix sums of ones / of i).
 *
 * The narrow types (int8, uint8, int16, uint16, float16, bfloat16) are 18 more entries of the table (each in its own
 * width and widened to 32 and to 64 bits), with the same expectations (the references compute as documented: float16 /
 * bfloat16 in float32, every prefix rounded once when stored) on rotations of their own, so that the wide types'
 * subsets stay what they were. Below level 2 narrow entry i runs with op j the one block (i + j) % 5 and the one grid
 * (i + j) % 4 (narrow_block, narrow_grid) everywhere, so that each (entry, op) builds one program (cold PoCL builds
 * are CI's cost) and every (block, grid) pair still meets the narrow types, every narrow type every block and grid:
 * every small size x op x entry with a rotating half of that block's 8 combos, one combo per medium size x op x entry,
 * one entry per block at the hierarchy-level sizes, 12 entries at the large sizes, one (entry, op) per single-pass
 * fallback mode x block x size (those whose grid is single_pass), exclusive first elements (level 2: every block and
 * grid, more of each); closed forms in narrow_closed_forms (ties to even, subnormals, float16's overflow,
 * wrap-around), with the sum's block and grid.
 *
 * REDSCAN_GRID_SINGLE_PASS joins the grids under test everywhere (SINGLE_PASS_IMPLEMENTED 1; with 0 it would
 * have to return REDSCAN_ERR_UNSUPPORTED). Its order is fixed (never timing-dependent), so floats are checked
 * bit for bit against its emulation and on a second run. single_pass_fallback() runs it again with
 * REDSCAN_SINGLE_PASS_SPINS=0 (every prefix value computed by the waiting group from the input: the decoupled
 * fallback alone) and =1 (fallback mixed with published values): the same bits are required. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SINGLE_PASS_IMPLEMENTED 1

typedef struct {
    redscan_dtype in, out, field;
} dtpair;

static const dtpair TYPES[] = {
    {REDSCAN_INT32, REDSCAN_INT32, 0},           {REDSCAN_UINT32, REDSCAN_UINT32, 0},
    {REDSCAN_INT64, REDSCAN_INT64, 0},           {REDSCAN_UINT64, REDSCAN_UINT64, 0},
    {REDSCAN_FLOAT32, REDSCAN_FLOAT32, 0},       {REDSCAN_FLOAT64, REDSCAN_FLOAT64, 0},
    {REDSCAN_INT32, REDSCAN_INT64, REDSCAN_INT64}, {REDSCAN_UINT32, REDSCAN_UINT64, REDSCAN_UINT64},
    {REDSCAN_FLOAT32, REDSCAN_FLOAT64, REDSCAN_FLOAT64},
    /* the narrow types (DESIGN "Narrow types"): each in its own width, and widened to 32 and to 64 bits */
    {REDSCAN_INT8, REDSCAN_INT8, 0},             {REDSCAN_UINT8, REDSCAN_UINT8, 0},
    {REDSCAN_INT16, REDSCAN_INT16, 0},           {REDSCAN_UINT16, REDSCAN_UINT16, 0},
    {REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0},       {REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 0},
    {REDSCAN_INT8, REDSCAN_INT32, REDSCAN_INT32},  {REDSCAN_UINT8, REDSCAN_UINT32, REDSCAN_UINT32},
    {REDSCAN_INT16, REDSCAN_INT32, REDSCAN_INT32}, {REDSCAN_UINT16, REDSCAN_UINT32, REDSCAN_UINT32},
    {REDSCAN_FLOAT16, REDSCAN_FLOAT32, REDSCAN_FLOAT32}, {REDSCAN_BFLOAT16, REDSCAN_FLOAT32, REDSCAN_FLOAT32},
    {REDSCAN_INT8, REDSCAN_INT64, REDSCAN_INT64},  {REDSCAN_UINT8, REDSCAN_UINT64, REDSCAN_UINT64},
    {REDSCAN_INT16, REDSCAN_INT64, REDSCAN_INT64}, {REDSCAN_UINT16, REDSCAN_UINT64, REDSCAN_UINT64},
    {REDSCAN_FLOAT16, REDSCAN_FLOAT64, REDSCAN_FLOAT64}, {REDSCAN_BFLOAT16, REDSCAN_FLOAT64, REDSCAN_FLOAT64},
};
#define NTYPES ((unsigned)(sizeof TYPES / sizeof TYPES[0]))
/* The wide types' entries come first; the narrow ones (NWIDE .. NTYPES - 1, NNARROW of them) have rotations of their
 * own, so that the wide types' subsets and seeds stay what they were. */
#define NWIDE 9u
#define NNARROW (NTYPES - NWIDE)
static const redscan_op OPS[] = {REDSCAN_SUM, REDSCAN_PROD, REDSCAN_MIN, REDSCAN_MAX};
static const redscan_block_scan BLOCKS[] = {REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_BLOCK_KOGGE_STONE_DB,
                                            REDSCAN_BLOCK_BRENT_KUNG, REDSCAN_BLOCK_COARSENED, REDSCAN_BLOCK_AUTO};
#define NBLOCKS 5u
#if SINGLE_PASS_IMPLEMENTED
static const redscan_grid_scan GRIDS[] = {REDSCAN_GRID_HIERARCHICAL, REDSCAN_GRID_REDUCE_THEN_SCAN, REDSCAN_GRID_AUTO,
                                          REDSCAN_GRID_SINGLE_PASS};
#define NGRIDS 4u
#else
static const redscan_grid_scan GRIDS[] = {REDSCAN_GRID_HIERARCHICAL, REDSCAN_GRID_REDUCE_THEN_SCAN, REDSCAN_GRID_AUTO};
#define NGRIDS 3u
#endif

/* The block and the grid a narrow entry ti runs with op oi below level 2: with s = entry + op, BLOCKS[s % 5] and
 * GRIDS[s % 4], so that over the table every (block, grid) pair meets the narrow types, and every narrow type every
 * block and every grid. The OpenCL backend builds one program per (block, grid kind, dtype, out_dtype, op) (the
 * hierarchical / reduce_then_scan kernels, the single-pass kernel, coarsened's CPU shape), and PoCL compiles each
 * of its kernels, seconds each cold; the 18 narrow entries x 4 ops with every block and grid cost the cold CI many
 * minutes, one block with all its grids still about 2.4 programs per (entry, op). Every narrow part of this file keeps
 * to that one (block, grid) below level 2 (and shards by op, as the sweeps do): one program per (entry, op), built
 * once. */
static unsigned narrow_block(unsigned ti, unsigned oi)
{
    return (ti - NWIDE + oi) % NBLOCKS;
}

static unsigned narrow_grid(unsigned ti, unsigned oi)
{
    return (ti - NWIDE + oi) % NGRIDS;
}

/* Below level 2 a wide entry ti runs every block with the sum (the op whose float bits depend on the block's order),
 * and with the other ops (oi 1..3) two: AUTO (the default path) and BLOCKS[(ti + oi) % 4]. Over the table every
 * explicit block still meets every wide entry and every op, with every grid; an (entry, op) builds 4 programs instead
 * of 9 (docs/PERFORMANCE.md, "CI and the README commands"). */
static unsigned wide_block(unsigned ti, unsigned oi)
{
    return (ti + oi) % (NBLOCKS - 1);
}

/* Whether entry ti runs block bi with op oi: a narrow entry its narrow_block, a wide one as above (level 2: every
 * block). */
static int block_runs(unsigned ti, unsigned oi, unsigned bi)
{
    if (h_level() >= 2) return 1;
    if (ti >= NWIDE) return narrow_block(ti, oi) == bi;
    return oi == 0 || bi == NBLOCKS - 1 || bi == wide_block(ti, oi);
}

/* The op (index in OPS) with which wide entry ti runs block bi: oi itself when block_runs says so, else the one whose
 * wide_block is bi (the sum for bi's own rotation). */
static unsigned wide_op_for(unsigned ti, unsigned oi, unsigned bi)
{
    return block_runs(ti, oi, bi) ? oi : (bi + NBLOCKS - 1 - ti % (NBLOCKS - 1)) % (NBLOCKS - 1);
}

/* Whether narrow entry ti runs grid gi with op oi (level 2: every grid; wide entries: always). */
static int narrow_grid_runs(unsigned ti, unsigned oi, unsigned gi)
{
    return ti < NWIDE || h_level() >= 2 || narrow_grid(ti, oi) == gi;
}

static int g_have_fp64 = 1;
static const char *g_note = ""; /* appended to run_one's case text (the single_pass fallback knob) */

/* A grid that is (or, for AUTO, is forced by REDSCAN_SCAN_GRID to be) single_pass while that is not
 * implemented: every scan through it must return UNSUPPORTED. */
static int grid_unsupported(redscan_grid_scan g)
{
    return (g == REDSCAN_GRID_AUTO ? h_env_grid() : g) == REDSCAN_GRID_SINGLE_PASS && !SINGLE_PASS_IMPLEMENTED;
}

/* Check a scan's status for grid g; returns whether its output should be checked. */
static int scan_ran(redscan_status st, redscan_grid_scan g, const char *what)
{
    if (grid_unsupported(g)) {
        CHECK_STATUS(st, REDSCAN_ERR_UNSUPPORTED, what);
        return 0;
    }
    return CHECK_OK(st, what);
}


static const char *type_str(const dtpair *t, char *buf)
{
    if (t->field) snprintf(buf, 40, "%s->%s", ref_dtype_str(t->in), ref_dtype_str(t->out));
    else snprintf(buf, 40, "%s", ref_dtype_str(t->in));
    return buf;
}

/* ---------------------------------------------------------------- one data set */

typedef struct {
    redscan_op op;
    const dtpair *t;
    size_t n, pad, is, os;
    h_gen gen;
    uint64_t seed;
    char ts[40];
    unsigned char *data;  /* n + pad elements of t->in (poisoned tail) */
    ref_val init;         /* one element of t->out, not the identity */
    int exact;            /* integers and min/max */
    /* expectations for the current (exclusive, init) */
    int excl, use_init;
    unsigned char *want;  /* exact: sequential reference */
    unsigned char *emu[4];/* float sum/prod: documented order per block (KS, KS_DB, BK, COARSENED), lazy */
    unsigned char *emu_sp[4]; /* the same for the single_pass grid */
    /* device buffers */
    redscan_buffer *in_buf, *out_buf, *io_buf;
    unsigned char *sentinel; /* (n + pad) * os bytes of 0xA5 */
    unsigned char *got, *got_hier;
    int have_hier;
} dataset;

static ref_val pick_init(h_rng *r, dataset *d)
{
    const redscan_dtype T = d->t->out;
    ref_val v = ref_zero();
    if (!ref_is_float(T)) {
        v.u64 = h_rng_u64(r);
        if (d->op == REDSCAN_PROD) v.u64 |= 1;
        if ((d->op == REDSCAN_MIN || d->op == REDSCAN_MAX) && d->n) /* inside the data's range: it matters */
            v = ref_convert(d->t->in, T, ref_load(d->t->in, d->data, (size_t)h_rng_below(r, d->n)));
        for (size_t i = ref_size(T); i < 8; i++) v.b[i] = 0;
        if (ref_bits_equal(T, v, ref_identity(d->op, T))) v.u64 ^= 2;
        return v;
    }
    double x;
    switch (d->op) {
    case REDSCAN_SUM: /* narrow: a multiple of 1/4 (h_generate's float16 / bfloat16 sums are multiples of 2^-s) */
        x = ref_is_narrow_float(T) ? 0.25 * (double)(1 + h_rng_below(r, 64)) : 1.5 + h_rng_unit(r);
        break;
    case REDSCAN_PROD: x = -1.25; break;
    default:
        x = 0.5 - h_rng_unit(r);
        if (d->n) {
            ref_val e = ref_load(d->t->in, d->data, (size_t)h_rng_below(r, d->n));
            if (!ref_isnan(d->t->in, e) && !isinf(ref_to_double(d->t->in, e))) x = ref_to_double(d->t->in, e);
        }
        break;
    }
    if (T == REDSCAN_FLOAT32) v.f32 = (float)x;
    else if (T == REDSCAN_FLOAT64) v.f64 = x;
    else v.u16 = ref_f32_to_narrow(T, (float)x); /* rounded: init is one element of the output type */
    return v;
}

static void ds_free(dataset *d)
{
    for (int b = 0; b < 4; b++) free(d->emu[b]), d->emu[b] = NULL;
    for (int b = 0; b < 4; b++) free(d->emu_sp[b]), d->emu_sp[b] = NULL;
    free(d->want);
    free(d->data);
    free(d->sentinel);
    free(d->got);
    free(d->got_hier);
    if (d->in_buf) redscan_buffer_destroy(h_ctx, d->in_buf);
    if (d->out_buf) redscan_buffer_destroy(h_ctx, d->out_buf);
    if (d->io_buf) redscan_buffer_destroy(h_ctx, d->io_buf);
    memset(d, 0, sizeof *d);
}

static int ds_init(dataset *d, redscan_op op, unsigned ti, size_t n, h_gen gen, int tag)
{
    memset(d, 0, sizeof *d);
    d->op = op;
    d->t = &TYPES[ti];
    d->n = n;
    d->pad = 1 + n % 37;
    d->is = ref_size(d->t->in);
    d->os = ref_size(d->t->out);
    d->gen = gen;
    d->seed = h_seed(2, (uint64_t)op, ti, n, (uint64_t)gen, (uint64_t)tag);
    type_str(d->t, d->ts);
    d->exact = !ref_is_float(d->t->out) || op == REDSCAN_MIN || op == REDSCAN_MAX;
    h_rng r;
    h_rng_init(&r, d->seed);
    d->data = (unsigned char *)h_malloc((n + d->pad) * d->is);
    h_generate(&r, d->t->in, op, gen, d->data, n);
    h_fill(d->t->in, d->data + n * d->is, d->pad, h_poison(op, d->t->in));
    d->init = pick_init(&r, d);
    d->sentinel = (unsigned char *)h_malloc((n + d->pad) * d->os);
    memset(d->sentinel, 0xA5, (n + d->pad) * d->os);
    d->got = (unsigned char *)h_malloc((n + d->pad) * d->os);
    d->got_hier = (unsigned char *)h_malloc((n + d->pad) * d->os);
    d->excl = -1;
    h_case("scan setup %s %s n=%zu gen=%s seed=0x%" PRIx64, ref_op_str(op), d->ts, n, h_gen_name(gen), d->seed);
    d->in_buf = h_buffer_with(d->data, n * d->is, (n + d->pad) * d->is, d->t->in, h_poison(op, d->t->in));
    d->out_buf = h_buffer_with(NULL, 0, (n + d->pad) * d->os, (redscan_dtype)0, ref_zero());
    if (!d->t->field) d->io_buf = h_buffer((n + d->pad) * d->is);
    return d->in_buf && d->out_buf && (d->t->field || d->io_buf);
}

static void ds_expect(dataset *d, int excl, int use_init)
{
    if (d->excl == excl && d->use_init == use_init) return;
    for (int b = 0; b < 4; b++) free(d->emu[b]), d->emu[b] = NULL;
    for (int b = 0; b < 4; b++) free(d->emu_sp[b]), d->emu_sp[b] = NULL;
    free(d->want);
    d->want = NULL;
    d->excl = excl;
    d->use_init = use_init;
    if (d->exact) {
        d->want = (unsigned char *)h_malloc((d->n ? d->n : 1) * d->os);
        ref_scan_seq(d->op, d->t->in, d->t->out, excl, use_init ? d->init.b : NULL, d->data, d->want, d->n);
    }
}

/* The documented bits of a scan requested with (block, grid) (h_scan_emulate), cached per block used and order. */
static const unsigned char *ds_emu(dataset *d, redscan_block_scan block, redscan_grid_scan grid)
{
    const redscan_block_scan b = ref_scan_block_of(h_scan_block(block));
    unsigned char **slot = ref_scan_single_pass_order(h_scan_grid(grid)) ? &d->emu_sp[(int)b - 1] : &d->emu[(int)b - 1];
    if (!*slot) {
        *slot = (unsigned char *)h_malloc((d->n ? d->n : 1) * d->os);
        h_scan_emulate(block, grid, d->op, d->t->in, d->t->out, d->excl, d->use_init ? d->init.b : NULL, d->data,
                       *slot, d->n);
    }
    return *slot;
}

/* Every element of a float sum/prod scan within the bound. */
static void bound_check(dataset *d, redscan_block_scan block, redscan_grid_scan grid, const unsigned char *got)
{
    const redscan_dtype T = d->t->out;
    const unsigned depth = h_scan_depth(block, grid, d->n);
    ref_ld_acc acc;
    ref_ld_init(&acc, d->op);
    if (d->use_init) ref_ld_add(&acc, d->op, ref_to_ld(T, d->init), ref_isnan(T, d->init));
    size_t bad = 0;
    for (size_t i = 0; i < d->n; i++) {
        ref_val x = ref_load(d->t->in, d->data, i);
        if (!d->excl) ref_ld_add(&acc, d->op, ref_to_ld(d->t->in, x), ref_isnan(d->t->in, x));
        double err, bound;
        ref_val g = ref_load(T, got, i);
        if (!ref_fbound_ok(d->op, T, g, &acc, depth, &err, &bound)) {
            if (bad++ < 3) {
                char gs[96];
                CHECK(0, "index %zu: got %s, reference %.17Lg: |error| %.3g > bound %.3g (depth %u)", i,
                      h_fmt(T, g, gs), ref_ld_value(&acc, d->op), err, bound, depth);
            }
        }
        if (d->excl) ref_ld_add(&acc, d->op, ref_to_ld(d->t->in, x), ref_isnan(d->t->in, x));
    }
    CHECK(bad <= 3, "%zu of %zu elements outside the bound", bad, d->n);
}

static void check_output(dataset *d, redscan_block_scan block, redscan_grid_scan grid, const unsigned char *got,
                         const char *what)
{
    if (d->exact) {
        CHECK_ARRAY(d->op, d->t->out, got, d->want, d->n, what);
        return;
    }
    bound_check(d, block, grid, got);
    if (!h_exact_order()) return;
    char w[160];
    snprintf(w, sizeof w, "%s vs documented order of %s (%s order)", what,
             h_block_str(ref_scan_block_of(h_scan_block(block))),
             ref_scan_single_pass_order(h_scan_grid(grid)) ? "single_pass" : "hierarchical");
    CHECK_ARRAY(d->op, d->t->out, got, ds_emu(d, block, grid), d->n, w);
}

/* One run of redscan_scan_ex with the given configuration, and all checks. */
static void run_one(dataset *d, redscan_block_scan block, redscan_grid_scan grid, int excl, int use_init, int inplace)
{
    if (inplace && d->t->field) return;
    unsigned gi = 0;
    while (gi < NGRIDS && GRIDS[gi] != grid) gi++;
    if (!narrow_grid_runs((unsigned)(d->t - TYPES), (unsigned)d->op, gi)) return; /* a narrow entry: its one grid */
    if (!h_case("scan %s %s %s/%s%s %s init=%s%s n=%zu gen=%s seed=0x%" PRIx64, ref_op_str(d->op), d->ts,
                h_block_str(block), h_grid_str(grid), g_note, excl ? "exclusive" : "inclusive",
                use_init ? "yes" : "null", inplace ? " in-place" : "", d->n, h_gen_name(d->gen), d->seed))
        return;
    ds_expect(d, excl, use_init);
    const size_t n = d->n, cap_out = (n + d->pad) * d->os, cap_in = (n + d->pad) * d->is;
    redscan_scan_desc desc = {d->op, d->t->in, d->t->field, excl, use_init ? d->init.b : NULL, block, grid, 0};
    redscan_buffer *in = d->in_buf, *out = d->out_buf;
    redscan_status st;
    if (inplace) {
        in = out = d->io_buf;
        st = redscan_buffer_write(h_ctx, d->io_buf, 0, d->data, cap_in);
    } else {
        st = redscan_buffer_write(h_ctx, out, 0, d->sentinel, cap_out); /* everything before n must be written */
    }
    if (!CHECK_OK(st, "redscan_buffer_write")) return;
    const int float_order = !d->exact;
    const redscan_status want_st = grid_unsupported(grid) ? REDSCAN_ERR_UNSUPPORTED : REDSCAN_OK;
    st = redscan_scan_ex(h_ctx, &desc, in, out, n);
    if (!CHECK_STATUS(st, want_st, "redscan_scan_ex") || st != REDSCAN_OK) return;
    st = redscan_buffer_read(h_ctx, out, 0, d->got, cap_out);
    if (!CHECK_OK(st, "redscan_buffer_read")) return;
    check_output(d, block, grid, d->got, "output");
    /* past n: untouched (in place: still the poisoned input tail) */
    if (inplace) CHECK_MEM(d->got + n * d->is, d->data + n * d->is, d->pad * d->is, "in-place buffer past n");
    else CHECK_MEM(d->got + n * d->os, d->sentinel, d->pad * d->os, "output past n");
    if (!inplace) {
        unsigned char *back = (unsigned char *)h_malloc(cap_in);
        st = redscan_buffer_read(h_ctx, in, 0, back, cap_in);
        if (CHECK_OK(st, "redscan_buffer_read(input)")) CHECK_MEM(back, d->data, cap_in, "input buffer after scan");
        free(back);
    }
    /* hierarchical and reduce-then-scan: identical bits for the same block (grid loop order: HIER first) */
    if (grid == REDSCAN_GRID_HIERARCHICAL) {
        memcpy(d->got_hier, d->got, n * d->os);
        d->have_hier = 1;
    } else if (grid == REDSCAN_GRID_REDUCE_THEN_SCAN && d->have_hier) {
        CHECK_ARRAY(d->op, d->t->out, d->got, d->got_hier, n, "reduce_then_scan vs hierarchical (same block)");
    }
    /* a second run gives the same bits (floats; integers are pinned by the exact reference) */
    if (float_order) {
        unsigned char *again = (unsigned char *)h_malloc(cap_out);
        if (inplace) st = redscan_buffer_write(h_ctx, d->io_buf, 0, d->data, cap_in);
        if (st == REDSCAN_OK) st = redscan_scan_ex(h_ctx, &desc, in, out, n);
        if (CHECK_OK(st, "redscan_scan_ex (second run)")) {
            st = redscan_buffer_read(h_ctx, out, 0, again, n * d->os);
            if (CHECK_OK(st, "redscan_buffer_read")) CHECK_BITS(d->t->out, again, d->got, n, "second run");
        }
        free(again);
    }
}

/* Host forms and the plain API (AUTO, no init) on the same data. */
static void run_host(dataset *d, int excl, int use_init, redscan_block_scan block, redscan_grid_scan grid, int plain)
{
    if (!h_case("scan host%s %s %s %s/%s %s init=%s n=%zu gen=%s seed=0x%" PRIx64, plain ? " plain" : "_ex",
                ref_op_str(d->op), d->ts, h_block_str(block), h_grid_str(grid), excl ? "exclusive" : "inclusive",
                use_init ? "yes" : "null", d->n, h_gen_name(d->gen), d->seed))
        return;
    if (plain && (d->t->field || use_init || block || grid)) return;
    ds_expect(d, excl, use_init);
    const size_t n = d->n;
    memcpy(d->got, d->sentinel, (n + d->pad) * d->os);
    redscan_status st;
    const redscan_status want_st = grid_unsupported(grid) ? REDSCAN_ERR_UNSUPPORTED : REDSCAN_OK;
    if (plain) {
        st = redscan_scan_host(h_ctx, d->op, d->t->in, excl, d->data, d->got, n);
    } else {
        redscan_scan_desc desc = {d->op, d->t->in, d->t->field, excl, use_init ? d->init.b : NULL, block, grid, 0};
        st = redscan_scan_host_ex(h_ctx, &desc, d->data, d->got, n);
    }
    if (!CHECK_STATUS(st, want_st, plain ? "redscan_scan_host" : "redscan_scan_host_ex") || st != REDSCAN_OK) return;
    check_output(d, block, grid, d->got, "host output");
    CHECK_MEM(d->got + n * d->os, d->sentinel, d->pad * d->os, "host output past n");
    if (plain) {
        /* redscan_scan on device buffers */
        st = redscan_buffer_write(h_ctx, d->out_buf, 0, d->sentinel, (n + d->pad) * d->os);
        if (st == REDSCAN_OK) st = redscan_scan(h_ctx, d->op, d->t->in, excl, d->in_buf, d->out_buf, n);
        if (CHECK_STATUS(st, want_st, "redscan_scan") && st == REDSCAN_OK) {
            st = redscan_buffer_read(h_ctx, d->out_buf, 0, d->got, (n + d->pad) * d->os);
            if (CHECK_OK(st, "redscan_buffer_read")) {
                check_output(d, block, grid, d->got, "redscan_scan output");
                CHECK_MEM(d->got + n * d->os, d->sentinel, d->pad * d->os, "redscan_scan output past n");
            }
        }
    }
}

/* combo index -> (block, excl, init, inplace); 40 combos */
static void combo(unsigned c, redscan_block_scan *b, int *excl, int *init, int *inplace)
{
    *b = BLOCKS[c % NBLOCKS];
    *excl = (int)((c / NBLOCKS) & 1);
    *init = (int)((c / (NBLOCKS * 2)) & 1);
    *inplace = (int)((c / (NBLOCKS * 4)) & 1);
}

/* Run the data set through every combo selected by (c % stride == phase), each with all grids. A narrow entry below
 * level 2 (its block fixed, narrow_block): its 8 combos c = block + 5 m (m: exclusive, init, in place) take the place
 * of the 40, m % stride == phase % stride. A wide entry below level 2 keeps to the blocks of block_runs. */
static void sweep(dataset *d, unsigned stride, unsigned phase, int host)
{
    const unsigned ti = (unsigned)(d->t - TYPES);
    const int one_block = ti >= NWIDE && h_level() < 2;
    for (unsigned c = 0; c < NBLOCKS * 8; c++) {
        if (one_block) {
            if (c % NBLOCKS != narrow_block(ti, (unsigned)d->op) || (c / NBLOCKS) % stride != phase % stride) continue;
        } else if (c % stride != phase % stride) {
            continue;
        }
        redscan_block_scan b;
        int excl, init, inplace;
        combo(c, &b, &excl, &init, &inplace);
        if (!one_block && !block_runs(ti, (unsigned)d->op, c % NBLOCKS)) {
            /* a wide entry's block that this op skips (below level 2): the full cross product has the same modes
             * with the blocks it runs; a rotating subset takes AUTO or the entry's wide_block in its place */
            if (stride == 1) continue;
            b = BLOCKS[((c / NBLOCKS) & 1) ? NBLOCKS - 1 : wide_block(ti, (unsigned)d->op)];
        }
        if (inplace && d->t->field) continue;
        d->have_hier = 0;
        for (unsigned g = 0; g < NGRIDS; g++) run_one(d, b, GRIDS[g], excl, init, inplace);
        /* a narrow entry below level 2: its own grid, and the plain API (AUTO x AUTO) only where that is its pair */
        const unsigned hg = one_block ? narrow_grid(ti, (unsigned)d->op) : (c / 3) % NGRIDS;
        if (host && !inplace) run_host(d, excl, init, b, GRIDS[hg], 0);
        if (host && !inplace && !init && b == REDSCAN_BLOCK_AUTO && (!one_block || GRIDS[hg] == REDSCAN_GRID_AUTO))
            run_host(d, excl, 0, 0, 0, 1);
    }
}

static int skip_type(unsigned ti)
{
    if (!h_type_in_subset(TYPES[ti].in, TYPES[ti].out)) return 1; /* REDSCAN_TEST_SUBSET=1 (harness.c) */
    return !g_have_fp64 && (TYPES[ti].in == REDSCAN_FLOAT64 || TYPES[ti].out == REDSCAN_FLOAT64);
}

static void family(redscan_op op, unsigned ti, size_t n, h_gen gen, unsigned stride, unsigned phase, int host)
{
    if (skip_type(ti)) return;
    dataset d;
    if (ds_init(&d, op, ti, n, gen, 0)) sweep(&d, stride, phase, host);
    ds_free(&d);
}

/* One explicit configuration on a data set of its own (large sizes). */
static void single(redscan_op op, unsigned ti, size_t n, h_gen gen, redscan_block_scan b, redscan_grid_scan g,
                   int excl, int init, int inplace)
{
    if (skip_type(ti)) return;
    dataset d;
    if (ds_init(&d, op, ti, n, gen, 1)) {
        d.have_hier = 0;
        run_one(&d, b, g, excl, init, inplace);
    }
    ds_free(&d);
}

/* ---------------------------------------------------------------- regression cases with closed forms */

/* Seed 001: section j must get the total of sections 0..j-1 (not its own), the totals must be scanned at any
 * count (more sections than one block can scan), the last (partial) section must neither be dropped nor read
 * past n. Prefix sums of ones are the index; prefix sums of i are i(i+1)/2 (mod 2^32). */
static void seed001_regressions(void)
{
    for (unsigned bi = 0; bi < NBLOCKS; bi++) {
        redscan_block_scan b = BLOCKS[bi];
        size_t S = ref_scan_section(b);
        size_t sizes[] = {S - 1, S, S + 1, 2 * S - 1, 3 * S, 3 * S + 1, S * S, S * S + 1, S * S + S + 1,
                          2 * S * S + 1};
        size_t nsz = sizeof sizes / sizeof sizes[0];
        for (size_t si = 0; si < nsz; si++) {
            size_t n = sizes[si];
            if (n > (1u << 23) && h_level() < 2) continue; /* coarsened 2*S^2+1 = 8M: only when thorough */
            for (int pattern = 0; pattern < 2; pattern++) {
                uint32_t *x = (uint32_t *)h_malloc(n * 4);
                uint32_t *y = (uint32_t *)h_malloc((n + 1) * 4);
                for (size_t i = 0; i < n; i++) x[i] = pattern ? (uint32_t)i : 1u;
                for (unsigned gi = 0; gi < NGRIDS; gi++) {
                    redscan_grid_scan g = GRIDS[gi];
                    for (int excl = 0; excl < 2; excl++) {
                        if (!h_case("seed001 regression uint32 sum of %s %s/%s %s n=%zu", pattern ? "i" : "ones",
                                    h_block_str(b), h_grid_str(g), excl ? "exclusive" : "inclusive", n))
                            continue;
                        uint32_t init = 1000;
                        redscan_scan_desc desc = {REDSCAN_SUM, REDSCAN_UINT32, 0, excl, (si & 1) ? &init : NULL,
                                                  b, g, 0};
                        y[n] = 0xA5A5A5A5u;
                        redscan_status st = redscan_scan_host_ex(h_ctx, &desc, x, y, n);
                        if (!scan_ran(st, g, "redscan_scan_host_ex")) continue;
                        size_t bad = 0, first = 0;
                        uint32_t base = (si & 1) ? init : 0;
                        for (size_t i = 0; i < n; i++) {
                            uint64_t k = excl ? i : i + 1; /* number of terms */
                            uint32_t want = base + (pattern ? (uint32_t)((k * (k - 1) / 2) & 0xffffffffu)
                                                            : (uint32_t)k);
                            if (pattern && k == 0) want = base;
                            if (y[i] != want) {
                                if (!bad) first = i;
                                bad++;
                            }
                        }
                        if (bad) {
                            uint64_t k = excl ? first : first + 1;
                            uint32_t want = base + (pattern ? (uint32_t)((k * (k ? k - 1 : 0) / 2) & 0xffffffffu)
                                                            : (uint32_t)k);
                            CHECK(0, "%zu wrong elements; first at %zu (section %zu of %zu): got %" PRIu32
                                     ", want %" PRIu32,
                                  bad, first, first / S, (n + S - 1) / S, y[first], want);
                        } else {
                            CHECK(1, "ok");
                        }
                        CHECK(y[n] == 0xA5A5A5A5u, "wrote past n (got 0x%08" PRIx32 ")", y[n]);
                    }
                }
                free(x);
                free(y);
            }
        }
    }
}

/* The small integer k as an element of dt (exact in every type). */
static ref_val small_val(redscan_dtype dt, int k)
{
    ref_val v = ref_zero();
    switch (dt) {
    case REDSCAN_INT32: v.i32 = k; break;
    case REDSCAN_UINT32: v.u32 = (uint32_t)k; break;
    case REDSCAN_INT64: v.i64 = k; break;
    case REDSCAN_UINT64: v.u64 = (uint64_t)k; break;
    case REDSCAN_FLOAT32: v.f32 = (float)k; break;
    case REDSCAN_FLOAT64: v.f64 = k; break;
    case REDSCAN_FLOAT16: case REDSCAN_BFLOAT16: v.u16 = ref_f32_to_narrow(dt, (float)k); break;
    case REDSCAN_INT8: v.i8 = (int8_t)k; break;
    case REDSCAN_UINT8: v.u8 = (uint8_t)k; break;
    case REDSCAN_INT16: v.i16 = (int16_t)k; break;
    case REDSCAN_UINT16: v.u16 = (uint16_t)k; break;
    default: break;
    }
    return v;
}

/* Exclusive max / min / prod: out[0] is the identity or init, never a literal 0. */
static void exclusive_first(void)
{
    for (unsigned ti = 0; ti < NTYPES; ti++) {
        if (skip_type(ti)) continue;
        const dtpair *t = &TYPES[ti];
        char ts[40];
        type_str(t, ts);
        for (int op = REDSCAN_PROD; op <= REDSCAN_MAX; op++) {
            /* in the op's shard, where the sweeps built the programs */
            if (!h_shard((unsigned)op)) continue;
            for (unsigned bi = 0; bi < NBLOCKS; bi++)
                for (unsigned gi = 0; gi < NGRIDS; gi++)
                    for (int use_init = 0; use_init < 2; use_init++) {
                        /* the blocks of block_runs; the narrow types their narrow_grid (level 2: every block and
                         * grid) */
                        if (!block_runs(ti, (unsigned)op, bi) || !narrow_grid_runs(ti, (unsigned)op, gi)) continue;
                        if (!h_case("exclusive first element %s %s %s/%s init=%s", ref_op_str((redscan_op)op), ts,
                                    h_block_str(BLOCKS[bi]), h_grid_str(GRIDS[gi]), use_init ? "yes" : "null"))
                            continue;
                        const size_t n = 300;
                        unsigned char x[300 * 8], y[301 * 8];
                        /* data of 2s and 3s (all > 0, so a 0 at out[0] shows for max and prod) */
                        for (size_t i = 0; i < n; i++) ref_store(t->in, x, i, small_val(t->in, 2 + (int)(i % 2)));
                        ref_val init = small_val(t->out, 7), want;
                        want = use_init ? init : ref_identity((redscan_op)op, t->out);
                        redscan_scan_desc desc = {(redscan_op)op, t->in, t->field, 1, use_init ? init.b : NULL,
                                                  BLOCKS[bi], GRIDS[gi], 0};
                        memset(y, 0xA5, sizeof y);
                        redscan_status st = redscan_scan_host_ex(h_ctx, &desc, x, y, n);
                        if (!scan_ran(st, GRIDS[gi], "redscan_scan_host_ex")) continue;
                        char g[96], w[96];
                        ref_val got = ref_load(t->out, y, 0);
                        CHECK(ref_bits_equal(t->out, got, want), "out[0]: got %s, want %s", h_fmt(t->out, got, g),
                              h_fmt(t->out, want, w));
                        /* out[1] = init (+) x0 */
                        ref_val w1 = ref_combine((redscan_op)op, t->out, want,
                                                 ref_convert(t->in, t->out, ref_load(t->in, x, 0)));
                        got = ref_load(t->out, y, 1);
                        CHECK(ref_bits_equal(t->out, got, w1), "out[1]: got %s, want %s", h_fmt(t->out, got, g),
                              h_fmt(t->out, w1, w));
                    }
        }
    }
}

/* Widened sums that overflow the narrow type; written out literally. */
static void widening_overflow(void)
{
    for (unsigned bi = 0; bi < NBLOCKS; bi++)
        for (unsigned gi = 0; gi < NGRIDS; gi++) {
            redscan_block_scan b = BLOCKS[bi];
            redscan_grid_scan g = GRIDS[gi];
            const size_t n = 70001;
            if (h_case("widening int32->int64 inclusive sum of INT32_MAX %s/%s n=%zu", h_block_str(b), h_grid_str(g), n)) {
                int32_t *x = (int32_t *)h_malloc(n * 4);
                int64_t *y = (int64_t *)h_malloc(n * 8);
                for (size_t i = 0; i < n; i++) x[i] = (i % 3 == 2) ? INT32_MIN : INT32_MAX;
                int64_t init = -((int64_t)1 << 40);
                redscan_scan_desc desc = {REDSCAN_SUM, REDSCAN_INT32, REDSCAN_INT64, 0, &init, b, g, 0};
                if (scan_ran(redscan_scan_host_ex(h_ctx, &desc, x, y, n), desc.grid, "redscan_scan_host_ex")) {
                    int64_t acc = init;
                    size_t bad = 0;
                    for (size_t i = 0; i < n; i++) {
                        acc += x[i];
                        if (y[i] != acc && bad++ < 2)
                            CHECK(0, "index %zu: got %" PRId64 ", want %" PRId64, i, y[i], acc);
                    }
                    CHECK(!bad, "%zu wrong elements", bad);
                }
                free(x);
                free(y);
            }
            if (h_case("widening uint32->uint64 exclusive sum of UINT32_MAX %s/%s n=%zu", h_block_str(b), h_grid_str(g), n)) {
                uint32_t *x = (uint32_t *)h_malloc(n * 4);
                uint64_t *y = (uint64_t *)h_malloc(n * 8);
                for (size_t i = 0; i < n; i++) x[i] = UINT32_MAX;
                redscan_scan_desc desc = {REDSCAN_SUM, REDSCAN_UINT32, REDSCAN_UINT64, 1, NULL, b, g, 0};
                if (scan_ran(redscan_scan_host_ex(h_ctx, &desc, x, y, n), desc.grid, "redscan_scan_host_ex")) {
                    size_t bad = 0;
                    for (size_t i = 0; i < n; i++)
                        if (y[i] != (uint64_t)i * UINT32_MAX && bad++ < 2)
                            CHECK(0, "index %zu: got %" PRIu64 ", want %" PRIu64, i, y[i], (uint64_t)i * UINT32_MAX);
                    CHECK(!bad, "%zu wrong elements", bad);
                }
                free(x);
                free(y);
            }
        }
    if (g_have_fp64 && h_case("widening float32->float64 inclusive sum of 2^24+3 ones")) {
        const size_t n = (1u << 24) + 3;
        float *x = (float *)h_malloc(n * 4);
        double *y = (double *)h_malloc(n * 8);
        for (size_t i = 0; i < n; i++) x[i] = 1.0f;
        redscan_scan_desc desc = {REDSCAN_SUM, REDSCAN_FLOAT32, REDSCAN_FLOAT64, 0, NULL, REDSCAN_BLOCK_AUTO,
                                  REDSCAN_GRID_AUTO, 0};
        if (scan_ran(redscan_scan_host_ex(h_ctx, &desc, x, y, n), desc.grid, "redscan_scan_host_ex")) {
            size_t bad = 0;
            for (size_t i = 0; i < n; i++)
                if (y[i] != (double)(i + 1) && bad++ < 2) CHECK(0, "index %zu: got %.17g, want %zu", i, y[i], i + 1);
            CHECK(!bad, "%zu wrong elements", bad);
        }
        free(x);
        free(y);
    }
}

/* The narrow types: widened scans past the narrow type's range, the narrow scans' wrap-around, and float16 / bfloat16
 * prefixes rounded on ties (to even: every odd count above 2048 / 256 is one), in the subnormals and at float16's
 * overflow. One value repeated, so that every prefix is exact in the compute type and every block x grid gives the
 * host reference's bits (ref_scan_seq), which is the expectation; two outputs of it are checked against closed forms
 * written out. */
typedef struct {
    const char *what;
    redscan_dtype in, out;
    int exclusive;
    uint16_t x; /* the bits of every element */
    size_t n;
    size_t at[2];      /* outputs with a closed form */
    uint64_t iwant[2]; /* integers: two's complement, the low bytes of out's width */
    double fwant[2];   /* floats: exact in out */
} scan_closed;

static const scan_closed NARROW_CLOSED[] = {
    {"int8->int32 inclusive sum of INT8_MAX", REDSCAN_INT8, REDSCAN_INT32, 0, 0x7f, 70001, {0, 70000},
     {127, 70001u * 127u}, {0, 0}},
    {"int8 inclusive sum of INT8_MAX (wraps)", REDSCAN_INT8, REDSCAN_INT8, 0, 0x7f, 70001, {1, 70000},
     {0xfe, (70001u * 127u) & 0xffu}, {0, 0}},
    {"uint8 inclusive sum of 0xFF (wraps)", REDSCAN_UINT8, REDSCAN_UINT8, 0, 0xff, 5000, {0, 255}, {0xff, 0}, {0, 0}},
    {"int16->int32 exclusive sum of INT16_MIN", REDSCAN_INT16, REDSCAN_INT32, 1, 0x8000, 65537, {1, 65536},
     {(uint64_t)(int64_t)INT16_MIN, (uint64_t)(int64_t)INT32_MIN}, {0, 0}},
    {"uint16->uint64 exclusive sum of 0xFFFF", REDSCAN_UINT16, REDSCAN_UINT64, 1, 0xffff, 70001, {0, 70000},
     {0, 70000ull * 65535u}, {0, 0}},
    {"float16 inclusive sum of ones (ties)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0, 0x3c00, 4099, {2048, 2050}, {0, 0},
     {2048.0, 2052.0}},
    {"float16->float32 inclusive sum of ones", REDSCAN_FLOAT16, REDSCAN_FLOAT32, 0, 0x3c00, 4099, {2048, 4098}, {0, 0},
     {2049.0, 4099.0}},
    {"float16 inclusive sum of smallest subnormals (ties)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0, 0x0001, 4099,
     {2048, 2050}, {0, 0}, {0x1p-13, 2052 * 0x1p-24}},
    {"float16 inclusive sum of 65504 (overflow)", REDSCAN_FLOAT16, REDSCAN_FLOAT16, 0, 0x7bff, 600, {0, 1}, {0, 0},
     {65504.0, INFINITY}},
    {"bfloat16 inclusive sum of ones (ties)", REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 0, 0x3f80, 1000, {256, 258}, {0, 0},
     {256.0, 260.0}},
    {"bfloat16->float32 exclusive sum of ones", REDSCAN_BFLOAT16, REDSCAN_FLOAT32, 1, 0x3f80, 1000, {257, 999}, {0, 0},
     {257.0, 999.0}},
    {"bfloat16 inclusive sum of smallest subnormals (tie)", REDSCAN_BFLOAT16, REDSCAN_BFLOAT16, 0, 0x0001, 1000,
     {2, 256}, {0, 0}, {3 * 0x1p-133, 0x1p-125}},
};

static void narrow_closed_forms(void)
{
    for (size_t ci = 0; ci < sizeof NARROW_CLOSED / sizeof NARROW_CLOSED[0]; ci++) {
        const scan_closed *c = &NARROW_CLOSED[ci];
        const size_t n = c->n, is = ref_size(c->in), os = ref_size(c->out);
        unsigned char *x = (unsigned char *)h_malloc(n * is), *want = (unsigned char *)h_malloc(n * os);
        unsigned char *y = (unsigned char *)h_malloc((n + 1) * os);
        ref_val v = ref_zero();
        v.u16 = c->x; /* the low byte for the 8-bit types */
        h_fill(c->in, x, n, v);
        ref_scan_seq(REDSCAN_SUM, c->in, c->out, c->exclusive, NULL, x, want, n);
        if (h_case("narrow closed form: %s n=%zu (reference)", c->what, n))
            for (int k = 0; k < 2; k++) {
                ref_val closed = ref_zero(), w = ref_load(c->out, want, c->at[k]);
                if (ref_is_float(c->out)) {
                    if (c->out == REDSCAN_FLOAT32) closed.f32 = (float)c->fwant[k];
                    else closed.u16 = ref_f32_to_narrow(c->out, (float)c->fwant[k]);
                } else {
                    closed.u64 = c->iwant[k];
                }
                char a[96], b[96];
                CHECK(ref_bits_equal(c->out, w, closed), "out[%zu]: the reference gives %s, the closed form is %s",
                      c->at[k], h_fmt(c->out, w, a), h_fmt(c->out, closed, b));
            }
        unsigned ti = NWIDE;
        while (ti < NTYPES && !(TYPES[ti].in == c->in && TYPES[ti].out == c->out)) ti++;
        for (unsigned bi = 0; bi < NBLOCKS; bi++)
            for (unsigned gi = 0; gi < NGRIDS; gi++) {
                /* the sweeps' block and grid for sum */
                if (ti < NTYPES && (!block_runs(ti, REDSCAN_SUM, bi) || !narrow_grid_runs(ti, REDSCAN_SUM, gi)))
                    continue;
                if (!h_case("narrow closed form: %s %s/%s n=%zu", c->what, h_block_str(BLOCKS[bi]),
                            h_grid_str(GRIDS[gi]), n))
                    continue;
                redscan_scan_desc desc = {REDSCAN_SUM, c->in, c->out == c->in ? (redscan_dtype)0 : c->out,
                                          c->exclusive, NULL, BLOCKS[bi], GRIDS[gi], 0};
                memset(y, 0xA5, (n + 1) * os);
                if (!scan_ran(redscan_scan_host_ex(h_ctx, &desc, x, y, n), desc.grid, "redscan_scan_host_ex")) continue;
                CHECK_BITS(c->out, y, want, n, "output");
                CHECK(y[n * os] == 0xA5, "wrote past n");
            }
        free(x);
        free(want);
        free(y);
    }
}

/* The k-th (mod their count) narrow (entry, op) pair whose narrow_block is bi and narrow_grid single_pass (the one
 * whose sweeps built that single_pass program); 0 when there is none. */
static int single_pass_pair(unsigned bi, unsigned k, unsigned *ti, unsigned *oi)
{
    unsigned cnt = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned e = NWIDE; e < NTYPES; e++)
            for (unsigned o = 0; o < 4; o++) {
                if (narrow_block(e, o) != bi || GRIDS[narrow_grid(e, o)] != REDSCAN_GRID_SINGLE_PASS) continue;
                if (pass == 0) {
                    cnt++;
                } else if (k-- == 0) {
                    *ti = e, *oi = o;
                    return 1;
                }
            }
        if (pass == 0) {
            if (!cnt) return 0;
            k %= cnt;
        }
    }
    return 0;
}

/* The single_pass decoupled fallback, forced: REDSCAN_SINGLE_PASS_SPINS=0 (a waiting group never polls: it
 * computes every B value of its prefix from the input, tile reductions by the whole group) and =1 (one poll, so
 * published and computed values mix); each with one tile per ticket and with two (REDSCAN_SINGLE_PASS_TILES, which
 * the sizes here would otherwise leave at 1 on a GPU; two blocks, see below), and two tiles with the normal polling. The bits
 * must be those of the documented single_pass order (floats too) and, for integers and min/max, the sequential
 * reference. Tile counts stay small (with 0 spins, tile j reduces j tiles); 37 S + 5 spans two groups of 32 tiles,
 * so a pair closes group 0; in-place runs exercise the check of a computed value against its slot. */
static void single_pass_fallback(void)
{
    static const struct {
        const char *spins, *tiles, *note;
    } modes[] = {{"0", "1", " (fallback spins=0)"},
                 {"1", "1", " (fallback spins=1)"},
                 {"0", "2", " (fallback spins=0, 2 tiles per ticket)"},
                 {"1", "2", " (fallback spins=1, 2 tiles per ticket)"},
                 {NULL, "2", " (2 tiles per ticket)"}};
    char *saved_spins = h_env_swap("REDSCAN_SINGLE_PASS_SPINS", NULL);
    char *saved_tiles = h_env_swap("REDSCAN_SINGLE_PASS_TILES", NULL);
    for (unsigned si = 0; si < sizeof modes / sizeof modes[0]; si++) {
        if (modes[si].spins) setenv("REDSCAN_SINGLE_PASS_SPINS", modes[si].spins, 1);
        else unsetenv("REDSCAN_SINGLE_PASS_SPINS");
        setenv("REDSCAN_SINGLE_PASS_TILES", modes[si].tiles, 1);
        g_note = modes[si].note;
        const int pairs = !strcmp(modes[si].tiles, "2");
        for (unsigned bi = 0; bi < NBLOCKS; bi++) {
            /* The pair logic does not depend on the block algorithm: two tiles per ticket run with the production
             * block (coarsened) and the one with the smallest section (kogge_stone), at the sizes with an odd tile
             * count (5 S - 3: a lone last tile) and with a pair closing group 0 (37 S + 5), to keep the suite's
             * time on PoCL in bounds. */
            if (pairs && BLOCKS[bi] != REDSCAN_BLOCK_COARSENED && BLOCKS[bi] != REDSCAN_BLOCK_KOGGE_STONE) continue;
            const size_t S = ref_scan_section(BLOCKS[bi] == REDSCAN_BLOCK_AUTO ? REDSCAN_BLOCK_COARSENED : BLOCKS[bi]);
            const size_t sizes[] = {S + 1, 5 * S - 3, 37 * S + 5};
            for (size_t zi = pairs ? 1 : 0; zi < 3; zi++)
                for (unsigned oi = 0; oi < 4; oi++)
                    for (unsigned ti = 0; ti < NTYPES; ti++) {
                        if (skip_type(ti)) continue;
                        const unsigned c = (unsigned)(zi + oi + ti + bi + si);
                        if (h_level() < 2 && zi == 2 && c % 3) continue; /* the largest size: a third of the combos */
                        /* the narrow types: one (entry, op) per (mode, block, size), rotating (level 2: one entry per
                         * op); below level 2 an (entry, op) whose narrow_block is this block; the wide types the
                         * blocks of block_runs; each in its op's shard */
                        if (ti >= NWIDE) {
                            if (h_level() >= 2) {
                                if (ti - NWIDE != (unsigned)(zi * 5 + oi * 7 + bi * 3 + si * 11) % NNARROW) continue;
                            } else {
                                /* the k-th (rotating) of the (entry, op) pairs whose narrow_block is this block and
                                 * whose narrow_grid is single_pass */
                                unsigned pt, po;
                                if (!single_pass_pair(bi, (unsigned)(zi + si), &pt, &po) || pt != ti || po != oi)
                                    continue;
                            }
                        } else if (!block_runs(ti, oi, bi)) {
                            continue;
                        }
                        if (!h_shard(oi)) continue;
                        const h_gen gen = (h_gen)(c % (unsigned)h_gen_count(TYPES[ti].in));
                        dataset d;
                        if (ds_init(&d, OPS[oi], ti, sizes[zi], gen, 3)) {
                            run_one(&d, BLOCKS[bi], REDSCAN_GRID_SINGLE_PASS, (int)(c & 1), (int)((c >> 1) & 1),
                                    (int)((c >> 2) & 1));
                            run_one(&d, BLOCKS[bi], REDSCAN_GRID_SINGLE_PASS, (int)((c + 1) & 1), (int)((c >> 1) & 1),
                                    (int)(((c >> 2) + 1) & 1));
                        }
                        ds_free(&d);
                    }
        }
    }
    g_note = "";
    h_env_restore("REDSCAN_SINGLE_PASS_SPINS", saved_spins);
    h_env_restore("REDSCAN_SINGLE_PASS_TILES", saved_tiles);
}

/* n = 0 does nothing: the output keeps its bytes. */
static void empty_scans(void)
{
    redscan_buffer *in = h_buffer(64), *out = h_buffer_with(NULL, 0, 64, (redscan_dtype)0, ref_zero());
    if (!in || !out) goto done;
    for (unsigned ti = 0; ti < NTYPES; ti++) {
        if (skip_type(ti)) continue;
        for (unsigned bi = 0; bi < NBLOCKS; bi++)
            for (int excl = 0; excl < 2; excl++) {
                char ts[40];
                if (!h_case("scan n=0 %s %s %s", type_str(&TYPES[ti], ts), h_block_str(BLOCKS[bi]),
                            excl ? "exclusive" : "inclusive"))
                    continue;
                redscan_scan_desc desc = {REDSCAN_MAX, TYPES[ti].in, TYPES[ti].field, excl, NULL, BLOCKS[bi],
                                          REDSCAN_GRID_AUTO, 0};
                /* n = 0: OK (nothing to do); UNSUPPORTED is accepted too where the grid is unsupported */
                redscan_status st0 = redscan_scan_ex(h_ctx, &desc, in, out, 0);
                if (!(grid_unsupported(desc.grid) && st0 == REDSCAN_ERR_UNSUPPORTED)) CHECK_OK(st0, "redscan_scan_ex n=0");
                unsigned char back[64], sent[64];
                memset(sent, 0xA5, 64);
                if (CHECK_OK(redscan_buffer_read(h_ctx, out, 0, back, 64), "redscan_buffer_read"))
                    CHECK_MEM(back, sent, 64, "output after a scan of n = 0");
                unsigned char hostout[16];
                memset(hostout, 0xA5, 16);
                st0 = redscan_scan_host_ex(h_ctx, &desc, sent, hostout, 0);
                if (!(grid_unsupported(desc.grid) && st0 == REDSCAN_ERR_UNSUPPORTED)) CHECK_OK(st0, "redscan_scan_host_ex n=0");
                CHECK_MEM(hostout, sent, 16, "host output after a scan of n = 0");
            }
    }
done:
    if (in) redscan_buffer_destroy(h_ctx, in);
    if (out) redscan_buffer_destroy(h_ctx, out);
}

int main(void)
{
    h_open("test_scan");
    {
        double one = 1.0, r = 0;
        if (redscan_reduce_host(h_ctx, REDSCAN_SUM, REDSCAN_FLOAT64, &one, 1, &r) == REDSCAN_ERR_UNSUPPORTED) {
            g_have_fp64 = 0;
            printf("note: the device has no fp64; FLOAT64 cases are skipped\n");
        }
    }
    double t0 = h_now();
    const int L = h_level();

    /* REDSCAN_TEST_SHARD (CTest runs test_scan as two shards in parallel): the op-indexed sweeps go by op, so the
     * shards build disjoint programs; the targeted parts go whole to one shard or the other. */
    /* single pass: runs (UNSUPPORTED while SINGLE_PASS_IMPLEMENTED is 0) */
    if (h_shard(0) && h_case("single_pass grid status")) {
        int32_t x[5] = {1, 2, 3, 4, 5}, y[5];
        for (unsigned bi = 0; bi < NBLOCKS; bi++) {
            redscan_scan_desc desc = {REDSCAN_SUM, REDSCAN_INT32, 0, 0, NULL, BLOCKS[bi], REDSCAN_GRID_SINGLE_PASS, 0};
            memset(y, 0xA5, sizeof y);
            redscan_status st = redscan_scan_host_ex(h_ctx, &desc, x, y, 5);
            if (SINGLE_PASS_IMPLEMENTED) {
                if (CHECK_OK(st, "single_pass")) CHECK(y[4] == 15, "single_pass: got %d, want 15", (int)y[4]);
            } else {
                CHECK_STATUS(st, REDSCAN_ERR_UNSUPPORTED, "redscan_scan_host_ex(single_pass)");
                CHECK(*h_last_error(), "no last error for UNSUPPORTED single_pass");
            }
        }
    }

    if (h_shard(0)) empty_scans();
    exclusive_first(); /* sharded inside */
    if (SINGLE_PASS_IMPLEMENTED && !grid_unsupported(REDSCAN_GRID_SINGLE_PASS)) { /* sharded inside */
        double t1 = h_now();
        single_pass_fallback();
        printf("single_pass forced fallback: %.1f s\n", h_now() - t1);
    }
    printf("small targeted cases: %.1f s\n", h_now() - t0);

    /* full cross product at small sizes */
    t0 = h_now();
    static const size_t small[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 511, 512, 513};
    for (size_t si = 0; si < sizeof small / sizeof small[0]; si++)
        for (unsigned oi = 0; oi < 4; oi++)
            for (unsigned ti = 0; ti < NWIDE && h_shard(oi); ti++) {
                int ng = h_gen_count(TYPES[ti].in);
                if (L >= 2 || small[si] == 257) {
                    for (int g = 0; g < ng; g++) family(OPS[oi], ti, small[si], (h_gen)g, 1, 0, si % 3 == 0);
                } else {
                    family(OPS[oi], ti, small[si], (h_gen)((si + oi + ti) % (unsigned)ng), 1, 0, si % 3 == 0);
                }
            }
    printf("small sizes, full cross product: %.1f s\n", h_now() - t0);

    /* the narrow types at the small sizes: every size x op x type, with its narrow_block and narrow_grid: a rotating
     * half of that block's 8 combos (level 0: a quarter; level 2: all 40 combos, each with all grids) */
    t0 = h_now();
    for (size_t si = 0; si < sizeof small / sizeof small[0]; si++)
        for (unsigned oi = 0; oi < 4; oi++)
            for (unsigned ti = NWIDE; ti < NTYPES && h_shard(oi); ti++) {
                const unsigned ng = (unsigned)h_gen_count(TYPES[ti].in), stride = L >= 2 ? 1 : L == 0 ? 4 : 2;
                const unsigned phase = (unsigned)(si * 3 + oi * 5 + ti);
                if (L >= 2 || small[si] == 257) {
                    for (unsigned g = 0; g < ng; g++) family(OPS[oi], ti, small[si], (h_gen)g, stride, phase + g, si % 3 == 0);
                } else {
                    family(OPS[oi], ti, small[si], (h_gen)((si + oi + ti) % ng), stride, phase, si % 3 == 0);
                }
            }
    printf("narrow types, small sizes: %.1f s\n", h_now() - t0);

    /* medium sizes: a rotating eighth of the combos (each with all grids) */
    t0 = h_now();
    {
        size_t medium[24];
        size_t nm = 0;
        static const size_t fixed[] = {1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 65535, 65536, 65537};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) medium[nm++] = fixed[i];
        h_rng r;
        h_rng_init(&r, h_seed(200, 0, 0, 0, 0, 0));
        medium[nm++] = 514 + (size_t)h_rng_below(&r, 3000);
        medium[nm++] = 4098 + (size_t)h_rng_below(&r, 60000);
        medium[nm++] = 65538 + (size_t)h_rng_below(&r, 200000);
        printf("random sizes: %zu %zu %zu\n", medium[nm - 3], medium[nm - 2], medium[nm - 1]);
        unsigned stride = L >= 2 ? 2 : L == 0 ? 16 : 8;
        for (size_t si = 0; si < nm; si++)
            for (unsigned oi = 0; oi < 4; oi++)
                for (unsigned ti = 0; ti < NWIDE && h_shard(oi); ti++) {
                    unsigned ng = (unsigned)h_gen_count(TYPES[ti].in);
                    family(OPS[oi], ti, medium[si], (h_gen)((si + oi + ti) % ng), stride,
                           (unsigned)(si * 3 + oi * 5 + ti), si % 4 == 0);
                }
        printf("medium sizes, rotating subset: %.1f s\n", h_now() - t0);
        /* the narrow types: one of the 8 combos of the narrow_block, rotating, with the narrow_grid (level 0: every
         * other type; level 2: a 4th of all 40, each with all grids) */
        t0 = h_now();
        const unsigned nstride = L >= 2 ? 4 : 8;
        for (size_t si = 0; si < nm; si++)
            for (unsigned oi = 0; oi < 4; oi++)
                for (unsigned ti = NWIDE; ti < NTYPES && h_shard(oi); ti++) {
                    if (L == 0 && (ti + si) % 2) continue;
                    unsigned ng = (unsigned)h_gen_count(TYPES[ti].in);
                    family(OPS[oi], ti, medium[si], (h_gen)((si + oi + ti) % ng), nstride,
                           (unsigned)(si * 7 + oi * 11 + ti * 3), si % 4 == 0);
                }
        printf("narrow types, medium sizes: %.1f s\n", h_now() - t0);
    }

    /* per block: sizes that need 2 and 3 levels; covering op/type/mode rotation, all grids */
    t0 = h_now();
    for (unsigned bi = 0; bi < 4; bi++) {
        redscan_block_scan b = BLOCKS[bi];
        size_t S = ref_scan_section(b);
        size_t sizes[] = {S * S - 1, S * S + 1, 2 * S * S + 1};
        for (size_t si = 0; si < 3; si++) {
            size_t n = sizes[si];
            unsigned per = n > (1u << 22) ? (L >= 2 ? 9 : 3) : n > (1u << 20) ? (L >= 1 ? 5 : 2) : (L >= 1 ? 9 : 3);
            /* the narrow types after the wide ones: one per size (level 0: at the two smaller sizes) */
            const unsigned nper = L == 0 ? (si < 2) : 1;
            for (unsigned k = 0; k < per + nper; k++) {
                redscan_op op = OPS[(k + si + bi) % 4];
                /* narrow: entry 5 (3 bi + si) mod 18, 12 distinct ones over the blocks and sizes, the float16 and
                 * bfloat16 sums among them; below level 2 the first entry from there with an op whose narrow_block is
                 * this block (that op). A wide one takes an op that runs the block (wide_op_for). Each in its op's
                 * shard. */
                unsigned ti = k < per ? (k + 2 * si + bi) % NWIDE : NWIDE + (unsigned)(5 * (3 * bi + si)) % NNARROW;
                if (k >= per && L < 2) {
                    while ((bi + NBLOCKS - (ti - NWIDE) % NBLOCKS) % NBLOCKS >= 4) ti = NWIDE + (ti - NWIDE + 1) % NNARROW;
                    op = OPS[(bi + NBLOCKS - (ti - NWIDE) % NBLOCKS) % NBLOCKS];
                }
                if (k < per) op = OPS[wide_op_for(ti, (unsigned)op, bi)];
                if (!h_shard((unsigned)op)) continue;
                h_gen g = (h_gen)((k + si) % (unsigned)h_gen_count(TYPES[ti].in));
                int excl = (int)((k + bi) & 1), init = (int)(((k + si) >> 1) & 1), inplace = (int)((k / 3 + si) & 1);
                if (skip_type(ti)) continue;
                dataset d;
                if (ds_init(&d, op, ti, n, g, 2)) {
                    d.have_hier = 0;
                    for (unsigned gi = 0; gi < NGRIDS; gi++) run_one(&d, b, GRIDS[gi], excl, init, inplace);
                }
                ds_free(&d);
            }
        }
    }
    printf("hierarchy-level sizes per block: %.1f s\n", h_now() - t0);

    /* large sizes: covering subsets */
    t0 = h_now();
    {
        static const size_t large[] = {(1u << 20) - 3, (1u << 20), (1u << 20) + 3, (1u << 24) + 1};
        for (size_t li = 0; li < 4; li++) {
            unsigned per = L == 0 ? 3 : (large[li] > (1u << 23) ? 5 : 9);
            if (L >= 2) per = 12;
            /* the narrow types after the wide ones: 3 per size (level 0: 1; level 2: 6), entry 5 (3 li + j) mod 18 for
             * the j-th: 12 distinct ones over the sizes */
            const unsigned nper = L == 0 ? 1 : L >= 2 ? 6 : 3;
            for (unsigned k = 0; k < per + nper; k++) {
                unsigned c = k + 7 * (unsigned)li;
                redscan_op op = OPS[c % 4];
                unsigned ti = k < per ? (k + 4 * (unsigned)li) % NWIDE : NWIDE + 5 * (3 * (unsigned)li + k - per) % NNARROW;
                unsigned bi = (k + (unsigned)li) % NBLOCKS;
                if (k >= per && L < 2) { /* narrow: an op whose narrow_block is not AUTO, that block and grid */
                    unsigned oi = c % 4;
                    if (narrow_block(ti, oi) == NBLOCKS - 1) oi = (oi + 1) % 4;
                    op = OPS[oi];
                    bi = narrow_block(ti, oi);
                }
                if (large[li] > (1u << 23) && bi == NBLOCKS - 1) bi = 2; /* AUTO -> brent_kung */
                const redscan_block_scan b = BLOCKS[bi];
                /* a wide one: an op that runs the block (wide_op_for); each in its op's shard */
                if (k < per) op = OPS[wide_op_for(ti, (unsigned)op, bi)];
                if (!h_shard((unsigned)op)) continue;
                redscan_grid_scan g = GRIDS[k >= per && L < 2 ? narrow_grid(ti, (unsigned)op) : (k + 2 * li) % NGRIDS];
                h_gen gen = (h_gen)(c % (unsigned)h_gen_count(TYPES[ti].in));
                single(op, ti, large[li], gen, b, g, (int)(c & 1), (int)((c >> 1) & 1), (int)((c / 3) & 1));
            }
        }
        /* 2^26 + 3: four levels of the kogge_stone hierarchy */
        if (L >= 1 && h_shard(1)) {
            const size_t n = (1u << 26) + 3;
            single(REDSCAN_SUM, 0, n, GEN_EDGE, REDSCAN_BLOCK_COARSENED, REDSCAN_GRID_HIERARCHICAL, 0, 0, 0);
            single(REDSCAN_SUM, 4, n, GEN_PLAIN, REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_GRID_REDUCE_THEN_SCAN, 1, 1, 1);
        }
    }
    printf("large sizes: %.1f s\n", h_now() - t0);

    t0 = h_now();
    if (h_shard(0)) seed001_regressions();
    if (h_shard(0)) widening_overflow(); /* sums: where the sweeps built their programs */
    if (h_shard(0)) narrow_closed_forms();
    printf("regressions and widenings: %.1f s\n", h_now() - t0);
    return h_done();
}
