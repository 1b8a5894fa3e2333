/* Test harness of the redscan suite: context from the environment, deterministic RNG, data generators
 * with edge values, failure counting that keeps going, bitwise comparisons.
 *
 * Every test program:
 *     int main(void) { h_open("test_x"); ...cases...; return h_done(); }
 * h_open creates the context with REDSCAN_BACKEND_AUTO (so REDSCAN_BACKEND picks the backend, as CTest sets
 * it) and exits with 77 (CTest: skipped) after printing the reason when the backend is unavailable here.
 * h_done prints a summary and returns 1 when any check failed, else 0.
 *
 * Environment knobs (all optional):
 *   REDSCAN_TEST_SEED=<n>      base seed (default fixed); every case derives its own seed from it and
 *                              prints it on failure
 *   REDSCAN_TEST_FILTER=<s>    run only the cases whose description contains s (e.g. "float32 sum tree n=1025");
 *                              alternatives separated by '|' ("scan kogge_stone/|scan brent_kung/")
 *   REDSCAN_TEST_LEVEL=<0|1|2> 0 quick, 1 default, 2 thorough (more sizes in the rotating subsets)
 *   REDSCAN_TEST_EXACT_ORDER=0 skip the bit-for-bit comparison with the documented order of combination
 *                              (the error bounds are still checked)
 *   REDSCAN_TEST_VERBOSE=1     print every case
 */
#ifndef REDSCAN_TEST_HARNESS_H
#define REDSCAN_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "redscan.h"
#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

#define H_SKIP 77

extern redscan_ctx *h_ctx;

/* Open the context (see above). Exits 77 when the backend is unavailable, 1 on any other create failure. */
redscan_ctx *h_open(const char *program);
/* Destroy the context, print the summary; the program returns this. */
int h_done(void);
int h_level(void);
/* 1 when REDSCAN_TEST_PROGRAM_CACHE=1 turned the program cache on for this run (CTest had REDSCAN_CACHE=0). */
int h_program_cache_forced(void);
/* REDSCAN_TEST_SHARD=i/N (1 <= i <= N): this process runs the items whose key k has k % N == i - 1, so that N
 * processes (CTest runs them in parallel) share one program's cases; unset: every item. Keys such as the op index
 * make the shards build mostly disjoint OpenCL programs, so that little is compiled twice. */
int h_shard(unsigned key);
/* REDSCAN_TEST_SUBSET=1 (scripts/test.sh's later passes, scripts/sanitize.sh's ASan step): the tests whose table
 * costs those passes most run a covering part of it. h_subset(): 1 when the variable is set.
 * h_type_in_subset(in, out): whether test_scan's and test_reduce's type-table entry in -> out runs (9 of their 27;
 * always without the variable). test_narrow takes a part of its bit patterns (all_patterns). */
int h_subset(void);
int h_type_in_subset(redscan_dtype in, redscan_dtype out);
int h_exact_order(void);
int h_verbose(void);
double h_now(void);
void *h_malloc(size_t bytes); /* aborts the program (exit 1) when memory is short: a test cannot continue */

/* ---- RNG: splitmix64, fixed seeds ---- */
typedef struct {
    uint64_t s;
} h_rng;
uint64_t h_base_seed(void);
/* A case's seed: mixes the base seed with up to 6 numbers describing the case. */
uint64_t h_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f);
void h_rng_init(h_rng *r, uint64_t seed);
uint64_t h_rng_u64(h_rng *r);
uint64_t h_rng_below(h_rng *r, uint64_t bound); /* bound >= 1 */
double h_rng_unit(h_rng *r);                    /* [0, 1) */

/* ---- data generators ----
 * GEN_PLAIN  typical values for the op (integers: full range for sum, odd values for prod, a narrow window
 *            with many ties for min/max; floats: mixed-sign values of moderate magnitude, for prod mostly +-1
 *            with a bounded number of factors in [0.5, 2] so the product stays in range; the float prod
 *            edges below are bounded in number too)
 * GEN_EDGE   PLAIN with edge values mixed in at a rate of 1/16: integers 0, 1, -1, type min/max, UINT max
 *            (for prod only odd edges, plus at most one planted 0 / even extreme); floats +-0.0, denormals,
 *            FLT_MIN, large and small magnitudes (chosen so sums cannot overflow), +-inf for min/max only
 * GEN_NAN    EDGE plus one planted NaN (sum/prod) or several NaNs with distinct payloads and signs (min/max)
 * GEN_INF    EDGE plus a planted +inf and, half of the time, a -inf (the sum is then NaN)
 * GEN_TINY   floats: all values subnormal or near FLT_MIN/DBL_MIN (catches flush-to-zero); integers and prod:
 *            EDGE (a product of tiny values underflows, where no relative bound holds)
 * The narrow types (INT8 .. BFLOAT16) have the same variants with their own values: integers random bits (sum), odd
 * values (prod), a window with ties (min/max), edges 0, 1, -1 / 0xFF.., INT8_MIN / INT8_MAX / INT16_MIN / ... and
 * their neighbours; float16 / bfloat16 sums multiples k * 2^-s whose float32 partial sums are exact in any order (the
 * stored results cross the rounding ties; s down to the subnormals) with edges +-0, the smallest subnormal (0x0001),
 * the largest subnormal, the smallest normal (0x0400 / 0x0080), +-1 and at most one largest finite value (65504 /
 * 0x7f7f), products as for float32 rounded to the type, min/max any finite pattern with those edges and +-inf;
 * NaNs with payloads (h_nan). */
typedef enum { GEN_PLAIN = 0, GEN_EDGE, GEN_NAN, GEN_INF, GEN_TINY, GEN_COUNT } h_gen;
const char *h_gen_name(h_gen g);
/* Variants that make sense for a dtype: integers PLAIN, EDGE; floats all five. */
int h_gen_count(redscan_dtype dt);
void h_generate(h_rng *r, redscan_dtype dt, redscan_op op, h_gen g, void *dst, size_t n);
/* n values from a small set (many ties; floats with +-0.0 and, sometimes, NaNs and infinities; integers now and then
 * at their type's limits): the tie-breaking inputs of test_random and test_stress. The six wide types only (test_random
 * has its own for the narrow ones). */
void h_gen_ties(h_rng *r, redscan_dtype dt, void *dst, size_t n);
/* A value placed past n in device buffers: reading it would change the result of op. */
ref_val h_poison(redscan_op op, redscan_dtype dt);
/* A quiet NaN with a given payload (the bits that fit: float16 9, bfloat16 6) and sign. */
ref_val h_nan(redscan_dtype dt, uint32_t payload, int negative);

/* ---- cases and checks ---- */
/* Set the current case description (printed with every failure). Returns 0 when REDSCAN_TEST_FILTER
 * excludes the case: the caller then skips it. */
int h_case(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *h_case_str(void);
long h_failures(void);
long h_checks(void);
int h_check(int ok, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define CHECK(cond, ...) h_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* st must equal want; prints both and the context's last error. */
/* A function, not a macro body: `st` is often the call itself and must be evaluated once. */
int h_check_status(redscan_status st, redscan_status want, const char *file, int line, const char *what);
#define CHECK_STATUS(st, want, what) h_check_status((st), (want), __FILE__, __LINE__, (what))
#define CHECK_OK(st, what) CHECK_STATUS(st, REDSCAN_OK, what)
const char *h_last_error(void); /* redscan_last_error(h_ctx), never NULL */

/* Value formatting: decimal and bits, e.g. "-0 [0x80000000]"; narrow types too: int8 "-128 [0x80]", float16
 * "65504 [0x7bff]", "5.96046448e-08 [0x0001]", "-nan [0xfe01]" (float16 / bfloat16: the exact value). */
const char *h_fmt(redscan_dtype dt, ref_val v, char buf[96]);
/* Compare n elements; ref_result_equal semantics (bitwise; float sum/prod NaN == NaN) unless bitwise != 0.
 * Prints the first mismatches (index, got, want) and returns the number of mismatches. */
size_t h_compare(redscan_op op, redscan_dtype dt, const void *got, const void *want, size_t n, int bitwise,
                 const char *file, int line, const char *what);
#define CHECK_ARRAY(op, dt, got, want, n, what) h_compare(op, dt, got, want, n, 0, __FILE__, __LINE__, what)
#define CHECK_BITS(dt, got, want, n, what) h_compare(REDSCAN_MIN, dt, got, want, n, 1, __FILE__, __LINE__, what)
/* First differing byte offset of two memory blocks, or (size_t)-1 when equal. */
size_t h_memdiff(const void *a, const void *b, size_t bytes);
#define CHECK_MEM(a, b, bytes, what)                                                                           \
    do {                                                                                                       \
        size_t h_d_ = h_memdiff((a), (b), (bytes));                                                            \
        CHECK(h_d_ == (size_t)-1, "%s: bytes differ from byte offset %zu", (what), h_d_);                      \
    } while (0)

/* ---- device buffers (failures are counted as check failures; NULL returned) ---- */
redscan_buffer *h_buffer(size_t bytes);
/* Create a buffer of `bytes`, write src (src_bytes <= bytes) and fill the rest with fill (one element of
 * fill_dt repeated; fill_dt 0 = 0xA5 bytes). */
redscan_buffer *h_buffer_with(const void *src, size_t src_bytes, size_t bytes, redscan_dtype fill_dt, ref_val fill);
void h_fill(redscan_dtype dt, void *dst, size_t n, ref_val v);

/* ---- environment-forced algorithms (REDSCAN_REDUCE_ALGO etc.), AUTO when unset ---- */
redscan_reduce_algo h_env_reduce_algo(void);
redscan_block_scan h_env_block(void);
redscan_grid_scan h_env_grid(void);
/* What a scan requested with block / grid runs in this process: AUTO replaced by REDSCAN_SCAN_BLOCK / _GRID when set
 * (AUTO otherwise, the library's own choice). */
redscan_block_scan h_scan_block(redscan_block_scan block);
redscan_grid_scan h_scan_grid(redscan_grid_scan grid);
/* The documented bits of a scan requested with (block, grid) in this process: the environment applied, then the one
 * rule of reference.h (ref_scan_emulate_grid: block AUTO = coarsened, grid AUTO = single_pass's order). n >= 0. */
void h_scan_emulate(redscan_block_scan block, redscan_grid_scan grid, redscan_op op, redscan_dtype dt,
                    redscan_dtype out_dt, int exclusive, const void *init, const void *in, void *out, size_t n);
/* The error-bound depth of that order. */
unsigned h_scan_depth(redscan_block_scan block, redscan_grid_scan grid, size_t n);

/* Names for case descriptions (independent of the library's own name functions). */
const char *h_algo_str(redscan_reduce_algo a);
const char *h_block_str(redscan_block_scan b);
const char *h_grid_str(redscan_grid_scan g);

/* Whether text contains word (case-insensitive) with no identifier character on either side; h_names_any: any of
 * the '|'-separated keywords. For checking that an error message names what it should. Thread-safe. */
int h_has_word(const char *text, const char *word);
int h_names_any(const char *text, const char *keywords);

/* Sets the environment variable var to value (NULL: unsets it) and returns its previous value (malloc'd, or NULL if
 * it was unset); h_env_restore puts that back and frees it. For tests that change a knob around a few cases. */
char *h_env_swap(const char *var, const char *value);
void h_env_restore(const char *var, char *saved);

/* The look-back's testing modes, for the tests that run a few cases again in each: its slow path alone
 * (REDSCAN_SINGLE_PASS_SPINS=0: every missing value computed by the waiting group), mixed with published values (=1),
 * and OpenCL's multi-pass paths of devices without 64-bit atomics (REDSCAN_SEGMENTED_SCAN_PATH=multi_pass: the
 * segmented scan's chunk kernels and the runs' three offset kernels). */
typedef struct {
    const char *var, *value;
    int opencl_only;
} h_mode;
#define H_LOOKBACK_MODES 3
extern const h_mode h_lookback_modes[H_LOOKBACK_MODES];
/* Sets the mode's variable, prints "mode VAR=VALUE" and returns 1 with the previous value in *saved (for
 * h_env_restore); returns 0 and changes nothing where the mode does not apply to h_ctx's backend. */
int h_mode_enter(const h_mode *m, char **saved);

#ifdef __cplusplus
}
#endif

#endif
