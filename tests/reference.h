/* Host references for the redscan test suite. Everything here is independent of the library: it
 * uses only the public enums of redscan.h (as plain numbers) and the documents:
 *   /work/shared/DESIGN.md        semantics (identities, NaN policy, exclusive/init, widenings)
 *   docs/ALGORITHMS.md            the order of combination of every algorithm
 *
 * Three kinds of reference:
 *
 * 1. Sequential references (ref_reduce_seq, ref_scan_seq). For integers they are exact (wrap-around is
 *    computed on the unsigned type, as documented). For float min/max of a scan they are exact too, bit for
 *    bit: every scan combination joins two adjacent index ranges, earlier one on the left, and combine(a, b)
 *    keeps a on ties and the first NaN, so any bracketing gives "the leftmost NaN if there is one, else the
 *    leftmost extreme value" - including which zero (+0.0 / -0.0) and which NaN payload. Reductions do not
 *    only join adjacent ranges (tree: x[t] (+) x[t+256]; coarsened: strided per work-item), so for float
 *    min/max reductions only the value is order-independent (NaN-ness, the extreme up to the sign of zero);
 *    the bits are checked against the emulation (3.).
 *
 * 2. Float sum / prod references in long double with an error bound (ref_sum_ld, ref_scan_ld, ref_fbound_ok).
 *    Bound (Higham, "Accuracy and Stability of Numerical Algorithms", 4.2): if element x_k takes part in d_k
 *    roundings on its way to the result, |computed - exact| <= sum_k |x_k| * ((1 + u)^d_k - 1)
 *    <= gamma(d) * sum|x_k| with d = max d_k, gamma(d) = d*u / (1 - d*u), u = eps/2. We check
 *    |got - ref| <= d * eps * sum|x_k| (eps = 2u, a factor 2 of slack that also covers the long double
 *    reference's own error). The depth d per algorithm (ref_reduce_depth, ref_scan_depth) is derived below
 *    from docs/ALGORITHMS.md; every combination with a padding identity is counted, which only loosens it.
 *    Products: a multiplication by +-1 is exact, so only multiplications whose operands both contain a factor
 *    with |x| != 1 can round; there are at most k - 1 of them (k = number of factors with |x| != 1), whatever
 *    the tree, and each rounding is relative: |got - ref| <= (k + 1) * eps * |ref|. The generators keep
 *    products away from overflow and the subnormal range, where a relative bound does not hold.
 *    NaN / inf: tracked apart from the finite sum (NaN if any NaN, or +inf and -inf both; else the infinity).
 *
 * 3. Emulations of the documented order (ref_reduce_emulate, ref_scan_emulate): they perform exactly the
 *    combinations docs/ALGORITHMS.md specifies, in the same order, in the same precision, so a conforming
 *    backend returns the same bits (DESIGN principle 3: same bits on every run, backend and device; the only
 *    way one backend's run can check that is against the documented order). NaN results of sum/prod are
 *    compared as "is NaN" (payloads of arithmetic NaNs are not portable); min/max are compared bit for bit.
 *
 * Depths (number of combinations on the longest path from an input element to an output), for the bound:
 *   reduce, per pass (each pass is a separate launch over the previous pass's partials, same algorithm):
 *     tree         TILE 512:  1 ("first add during load") + 8 (sequential addressing, 256 -> 1)  =  9
 *     interleaved  TILE 256:  8 (pairwise tree over 256)                                           =  8
 *     coarsened    TILE 4096: 16 (fold of 4x4 values starting from the identity) + 8 (tree)       = 24
 *     passes = 1 + number of times ceil(m / TILE) is needed until one value is left;
 *     depth = passes * per-pass depth.
 *   scan: block-level depth B (to any output of the section) and section-total depth T:
 *     kogge_stone / _db  SECTION 256:  B = 8 (log2 256 steps),  T = 8
 *     brent_kung         SECTION 512:  B = 9 + 8 = 17 (up-sweep + down-sweep), T = 9
 *     coarsened          SECTION 2048: B = 7 (phase 1) + 8 (phase 2) + 1 (phase 3) = 16, T = 7 + 8 = 15
 *     with L levels of the hierarchy (L = 1 while n <= SECTION, each further level divides by SECTION):
 *     out[i] = P[j] + L[i] adds 1; P[j] of the next level adds T + B + 1 per level, init adds 1:
 *     depth = B + 1 + (L - 1) * (T + B + 1) + 1.
 *   single_pass scan: B + T + (groups - 1) + 65, groups = tiles / 32 rounded up (ref_scan_depth_single_pass).
 */
#ifndef REDSCAN_TEST_REFERENCE_H
#define REDSCAN_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "redscan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16; /* also the bits of a FLOAT16 / BFLOAT16 element */
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    unsigned char b[8];
} ref_val;

/* ---- element access and basic facts (independent of the library's redscan_dtype_size) ----
 * The narrow types (docs/SEMANTICS.md, "Narrow types"): INT8 .. UINT16 combine in their own width with wrap-around
 * (ref_combine, like the 32-bit ones); FLOAT16 / BFLOAT16 combine in float32 and are rounded to nearest even once,
 * when stored. So every reference below computes in ref_compute_type(out_dt) (FLOAT32 for a narrow float output,
 * out_dt otherwise) in the documented order and converts each result to out_dt only when it stores it; a sum or
 * product that is NaN is stored narrow as the canonical quiet NaN (float16 0x7e00, bfloat16 0x7fc0), a NaN that
 * min / max select keeps its bits. ref_is_float is true for FLOAT16 / BFLOAT16 too. */
size_t ref_size(redscan_dtype dt);
int ref_is_float(redscan_dtype dt);
int ref_is_signed(redscan_dtype dt);
int ref_is_narrow(redscan_dtype dt);       /* INT8 .. BFLOAT16 */
int ref_is_narrow_float(redscan_dtype dt); /* FLOAT16, BFLOAT16 */
redscan_dtype ref_compute_type(redscan_dtype out_dt);
/* float32 -> FLOAT16 / BFLOAT16, round to nearest even (overflow to infinity); a NaN keeps its sign and the payload
 * bits that fit (the quiet bit when none do). Written here from the documents, not taken from the library. */
uint16_t ref_f32_to_narrow(redscan_dtype dt, float f);
float ref_narrow_to_f32(redscan_dtype dt, uint16_t b); /* exact, NaN payload kept */
const char *ref_dtype_str(redscan_dtype dt);
const char *ref_op_str(redscan_op op);
ref_val ref_zero(void);
ref_val ref_load(redscan_dtype dt, const void *p, size_t i);
void ref_store(redscan_dtype dt, void *p, size_t i, ref_val v);
/* widenings, same type, narrow float <-> FLOAT32 (to narrow: rounded as ref_f32_to_narrow) */
ref_val ref_convert(redscan_dtype from, redscan_dtype to, ref_val v);
/* The documented widening of dt (INT32->INT64, UINT32->UINT64, FLOAT32->FLOAT64; for a narrow type the 32-bit one:
 * INT8/INT16->INT32, UINT8/UINT16->UINT32, FLOAT16/BFLOAT16->FLOAT32), 0 if none. */
redscan_dtype ref_widening(redscan_dtype dt);
/* All documented widenings of dt (narrow types have two: 32 and 64 bits); returns how many (0..2). */
int ref_widenings(redscan_dtype dt, redscan_dtype out[2]);
/* out is dt itself or one of its documented widenings. */
int ref_out_ok(redscan_dtype dt, redscan_dtype out);
ref_val ref_type_max(redscan_dtype dt); /* +inf for floats */
ref_val ref_type_min(redscan_dtype dt); /* -inf for floats */
/* Combine identity (float sum: -0.0) and the documented result of a reduce of n = 0 (float sum: +0.0). */
ref_val ref_identity(redscan_op op, redscan_dtype dt);
ref_val ref_empty_result(redscan_op op, redscan_dtype dt);
/* a (earlier indices) combined with b, as documented. */
ref_val ref_combine(redscan_op op, redscan_dtype dt, ref_val a, ref_val b);
int ref_isnan(redscan_dtype dt, ref_val v);
double ref_to_double(redscan_dtype dt, ref_val v);
long double ref_to_ld(redscan_dtype dt, ref_val v);
/* Bitwise equality of one element. */
int ref_bits_equal(redscan_dtype dt, ref_val a, ref_val b);
/* Equality used for results: bitwise, except that for float sum/prod any NaN equals any NaN (FLOAT32 / FLOAT64; a
 * narrow float sum / product stores the canonical NaN, so those are compared bit for bit). */
int ref_result_equal(redscan_op op, redscan_dtype dt, ref_val a, ref_val b);

/* ---- reductions ---- */
/* Sequential fold (exact for integers and float min/max, see 1. above). n = 0 gives ref_empty_result. */
ref_val ref_reduce_seq(redscan_op op, redscan_dtype dt, redscan_dtype out_dt, const void *in, size_t n);
/* The documented order of algo (TREE, INTERLEAVED or COARSENED; not AUTO). n >= 1. */
ref_val ref_reduce_emulate(redscan_reduce_algo algo, redscan_op op, redscan_dtype dt, redscan_dtype out_dt,
                           const void *in, size_t n);
/* Depth for the error bound (AUTO: the largest of the three). */
unsigned ref_reduce_depth(redscan_reduce_algo algo, size_t n);
size_t ref_reduce_tile(redscan_reduce_algo algo);

/* Float sum/prod in long double: value, sum of |x| (sum) or number of factors with |x| != 1 (prod),
 * and the special state. */
typedef struct {
    long double value;  /* finite part (compensated sum / product) */
    long double abs_sum;/* sum of |x| (sum) */
    uint64_t nontrivial;/* factors with |x| != 1 (prod) */
    int nan, pinf, ninf, zero; /* counts of NaN, +inf, -inf (sum, prod) and zeros (prod) seen */
    int neg;            /* prod: sign of the product of the specials part */
    long double comp;   /* Neumaier compensation */
} ref_ld_acc;
void ref_ld_init(ref_ld_acc *a, redscan_op op);
void ref_ld_add(ref_ld_acc *a, redscan_op op, long double x, int isnan_x);
/* The exact-ish value of the accumulator (NaN / inf as documented). */
long double ref_ld_value(const ref_ld_acc *a, redscan_op op);
/* Is got (a float of out_dt) within the bound of depth d of the reference accumulator? A narrow float out_dt: the
 * float32 bound plus the one rounding on store (relative 2^-11 / 2^-8, half the smallest subnormal absolute; a result
 * whose bound reaches the overflow threshold may be infinite). */
int ref_fbound_ok(redscan_op op, redscan_dtype out_dt, ref_val got, const ref_ld_acc *a, unsigned depth,
                  double *err, double *bound);

/* ---- scans ---- */
/* Sequential scan: out (n elements of out_dt) = inclusive / exclusive scan with init (NULL = identity). */
void ref_scan_seq(redscan_op op, redscan_dtype dt, redscan_dtype out_dt, int exclusive, const void *init,
                  const void *in, void *out, size_t n);
/* The documented order: block algorithm (not AUTO) + the grid formula of docs/ALGORITHMS.md (both grid
 * algorithms give these bits). */
void ref_scan_emulate(redscan_block_scan block, redscan_op op, redscan_dtype dt, redscan_dtype out_dt,
                      int exclusive, const void *init, const void *in, void *out, size_t n);
size_t ref_scan_section(redscan_block_scan block); /* AUTO: the smallest (256) */
unsigned ref_scan_levels(redscan_block_scan block, size_t n);
unsigned ref_scan_depth(redscan_block_scan block, size_t n);
/* The single_pass grid's documented order (docs/ALGORITHMS.md): the same block scans and section totals S;
 * groups of 32 tiles, T(g) = S[32g] (+) ... (+) S[32g+31] left to right, A(-1) = init, A(g) = A(g-1) (+) T(g),
 * P[32g + p] = A(g-1) (+) (S[32g] (+) ... (+) S[32g+p-1]) (p > 0), P[32g] = A(g-1). block: not AUTO. */
void ref_scan_emulate_single_pass(redscan_block_scan block, redscan_op op, redscan_dtype dt, redscan_dtype out_dt,
                                  int exclusive, const void *init, const void *in, void *out, size_t n);
/* Depth for the error bound of single_pass: an element goes through T to its section total, at most 31 folds
 * into its group's total, at most groups - 1 links of the chain A, at most 31 folds of W, 1 into P and 1 into
 * the output, or B + 1 inside its own section. Bound used: B + T + (groups - 1) + 65. */
unsigned ref_scan_depth_single_pass(redscan_block_scan block, size_t n);
/* The one rule for which documented order a scan follows, by the (block, grid) it runs with (AUTO: the library's
 * own choice, docs/ALGORITHMS.md): block AUTO is coarsened; grid AUTO gives single_pass's expression on every backend
 * and device (as single_pass does); hierarchical and reduce_then_scan give ref_scan_emulate's. Environment overrides
 * (REDSCAN_SCAN_BLOCK / _GRID) are the caller's business: tests go through h_scan_emulate (harness.h). */
redscan_block_scan ref_scan_block_of(redscan_block_scan block);
int ref_scan_single_pass_order(redscan_grid_scan grid);
void ref_scan_emulate_grid(redscan_block_scan block, redscan_grid_scan grid, redscan_op op, redscan_dtype dt,
                           redscan_dtype out_dt, int exclusive, const void *init, const void *in, void *out, size_t n);
/* The error-bound depth of that order (ref_scan_depth or ref_scan_depth_single_pass of the block used). */
unsigned ref_scan_depth_grid(redscan_block_scan block, redscan_grid_scan grid, size_t n);

/* ---- argmin / argmax / top-k: the strict total order of docs/ALGORITHMS.md ---- */
/* "a (value, index) before b": NaN first (lower index among NaNs), then smaller (want_max = 0) or larger
 * value, equal values (+0.0 == -0.0) by lower index. */
int ref_before(redscan_dtype dt, int want_max, ref_val av, uint64_t ai, ref_val bv, uint64_t bi);
/* n >= 1 */
uint64_t ref_argext(redscan_dtype dt, int want_max, const void *in, size_t n);
/* k <= n; values: k elements of dt; indices: k entries. */
void ref_topk(redscan_dtype dt, int largest, const void *in, size_t n, size_t k, void *values,
              uint64_t *indices);
/* Mean as documented: integers accumulated in 64 bits with wrap-around (signed: int64, unsigned: uint64),
 * divided in double; floats: sum in float64 in the order of algo (AUTO means coarsened), / (double)n. */
double ref_mean_exact(redscan_reduce_algo algo, redscan_dtype dt, const void *in, size_t n);

#ifdef __cplusplus
}
#endif

#endif
