/* test_nan: the NaN a float sum or product returns is the canonical quiet NaN (0x7fc00000 / 0x7ff8000000000000)
 * whatever the inputs' payloads and whatever NaN the hardware makes (x86 keeps a payload and gives 0xffc00000
 * for inf - inf, NVIDIA GPUs give 0x7fffffff), so results are the same bits on every device; reductions and
 * every scan algorithm; min/max instead return an input NaN with its payload. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 5000

static uint64_t bits_of(redscan_dtype dt, const void *p)
{
    uint32_t u32;
    uint64_t u64;
    if (dt == REDSCAN_FLOAT32) {
        memcpy(&u32, p, 4);
        return u32;
    }
    memcpy(&u64, p, 8);
    return u64;
}

static void fill(redscan_dtype dt, unsigned char *x, int pattern)
{
    for (int i = 0; i < N; i++) {
        double v = (i % 7) - 3.0;
        if (pattern == 0 && i == 1234) v = INFINITY; /* inf + -inf: the hardware's default NaN */
        if (pattern == 0 && i == 3000) v = -INFINITY;
        if (dt == REDSCAN_FLOAT32) {
            float f = (float)v;
            memcpy(x + 4 * (size_t)i, &f, 4);
        } else {
            memcpy(x + 8 * (size_t)i, &v, 8);
        }
    }
    if (pattern == 1) { /* a NaN with a payload and the sign bit */
        ref_val nan = h_nan(dt, 0x1234, 1);
        memcpy(x + redscan_dtype_size(dt) * 777, &nan, redscan_dtype_size(dt));
    }
}

int main(void)
{
    h_open("test_nan");
    static unsigned char x[N * 8], out[N * 8];
    const redscan_dtype dts[] = {REDSCAN_FLOAT32, REDSCAN_FLOAT64};
    for (int d = 0; d < 2; d++) {
        const redscan_dtype dt = dts[d];
        const size_t es = redscan_dtype_size(dt);
        const uint64_t canon = dt == REDSCAN_FLOAT32 ? 0x7fc00000u : 0x7ff8000000000000ull;
        for (int pattern = 0; pattern < 2; pattern++) {
            fill(dt, x, pattern);
            for (int op = REDSCAN_SUM; op <= REDSCAN_PROD; op++) {
                for (int algo = REDSCAN_REDUCE_TREE; algo <= REDSCAN_REDUCE_COARSENED; algo++) {
                    if (!h_case("reduce %s %s %s pattern %d", redscan_op_name((redscan_op)op),
                                redscan_dtype_name(dt), h_algo_str((redscan_reduce_algo)algo), pattern))
                        continue;
                    redscan_reduce_desc rd = {(redscan_op)op, dt, 0, (redscan_reduce_algo)algo, 0};
                    unsigned char r[8] = {0};
                    if (CHECK_OK(redscan_reduce_host_ex(h_ctx, &rd, x, N, r), "reduce"))
                        CHECK(bits_of(dt, r) == canon, "result bits 0x%llx, want the canonical NaN 0x%llx",
                              (unsigned long long)bits_of(dt, r), (unsigned long long)canon);
                }
                for (int b = REDSCAN_BLOCK_KOGGE_STONE; b <= REDSCAN_BLOCK_COARSENED; b++) {
                    for (int g = REDSCAN_GRID_HIERARCHICAL; g <= REDSCAN_GRID_SINGLE_PASS; g++) {
                        if (!h_case("scan %s %s %s/%s pattern %d", redscan_op_name((redscan_op)op),
                                    redscan_dtype_name(dt), h_block_str((redscan_block_scan)b),
                                    h_grid_str((redscan_grid_scan)g), pattern))
                            continue;
                        redscan_scan_desc sd = {(redscan_op)op, dt, 0, 0, NULL, (redscan_block_scan)b,
                                                (redscan_grid_scan)g, 0};
                        redscan_status st = redscan_scan_host_ex(h_ctx, &sd, x, out, N);
                        if (st == REDSCAN_ERR_UNSUPPORTED && g == REDSCAN_GRID_SINGLE_PASS) continue;
                        if (!CHECK_OK(st, "scan")) continue;
                        const int first_nan = pattern == 0 ? 3000 : 777; /* inclusive: NaN from there on */
                        size_t bad = 0;
                        for (int i = first_nan; i < N; i++) bad += bits_of(dt, out + es * (size_t)i) != canon;
                        CHECK(bad == 0, "%zu NaN outputs are not the canonical NaN (e.g. 0x%llx at %d)", bad,
                              (unsigned long long)bits_of(dt, out + es * (size_t)(N - 1)), N - 1);
                    }
                }
            }
            if (pattern == 1) { /* min/max return the input NaN itself */
                ref_val nan = h_nan(dt, 0x1234, 1);
                for (int op = REDSCAN_MIN; op <= REDSCAN_MAX; op++) {
                    h_case("reduce %s %s keeps the input NaN", redscan_op_name((redscan_op)op), redscan_dtype_name(dt));
                    unsigned char r[8] = {0};
                    if (CHECK_OK(redscan_reduce_host(h_ctx, (redscan_op)op, dt, x, N, r), "reduce"))
                        CHECK(!memcmp(r, &nan, es), "min/max did not return the input NaN (bits 0x%llx)",
                              (unsigned long long)bits_of(dt, r));
                }
            }
        }
    }
    return h_done();
}
