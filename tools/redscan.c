/* redscan: command-line tool of the redscan library.
 *
 *   redscan info     backends compiled in and usable here, OpenCL platforms and devices, the selection
 *   redscan first-result  time to the first result of a new process, with the program cache's counters
 *   redscan bench    verified sweep of every operation x dtype x algorithm x n, with references (copy, CUB, C loops)
 *   redscan help     this text
 *
 * The tool uses only the public API (redscan.h) of the library, plus OpenCL's own API for the device listing of
 * `info` and the bench's copy reference, and (built with CUDA) CUDA and CUB in bench/cub_compare.cu for the bench's
 * references. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "redscan.h"

void cli_usage(FILE *f)
{
    fprintf(f,
            "redscan %s - parallel reductions and prefix scans (OpenCL / CUDA)\n"
            "\n"
            "usage:\n"
            "  redscan info\n"
            "      Backends compiled in and whether each can run here (and why not), the library version,\n"
            "      every OpenCL platform/device (compute units, local memory, max work-group size, fp64),\n"
            "      and the device that REDSCAN_BACKEND / REDSCAN_OPENCL_DEVICE select.\n"
            "\n"
            "  redscan bench [--backend auto|cuda|opencl] [--sizes LIST | --full] [--reps N] [--quick]\n"
            "                [--compare cub] [--csv FILE] [--scan-only | --reduce-only] [--dtypes LIST]\n"
            "                [--ops LIST] [--algos LIST] [--exclusive] [--host-refs | --no-host-refs] [--l2-mb N]\n"
            "                [--no-rotate] [--async [--calls R]]\n"
            "      Without options that choose cases or sizes: the headline run, a few seconds to a minute: sum,\n"
            "      inclusive scan (both with the AUTO algorithms), argmax and top-2 of int32 and float32 at one\n"
            "      size (2^26; 2^24 on a CPU device). --full, or any of --sizes, --quick, --dtypes, --ops,\n"
            "      --algos, --scan-only, --reduce-only: the verified sweep, every op x dtype x algorithm x n\n"
            "      (reductions: tree, interleaved, coarsened, warp_sync, shuffle; scans: every block x grid\n"
            "      algorithm; argmax, top-2). Both run next to references measured in the same run: the\n"
            "      device's copy bandwidth, CUB\n"
            "      (--compare cub), and on a CPU device plain C loops and OpenMP read / copy loops. Each case:\n"
            "      one call checked against a host reference, one more, then the median of N runs timed\n"
            "      with the host clock around the blocking call and of N timed by the device (CUDA /\n"
            "      OpenCL profiling events, redscan_set_profiling); inputs rotate over enough buffers to\n"
            "      defeat the L2 cache. Prints op dtype algo n dev_ms host_ms GB/s %%copy vs_ref vs_host\n"
            "      check (see docs/PERFORMANCE.md). Exits 1 if any check fails or any call errs.\n"
            "        --backend B     auto (default: REDSCAN_BACKEND, else CUDA if usable, else OpenCL),\n"
            "                        cuda or opencl; an unusable backend is an error, never a fallback\n"
            "        --sizes LIST    comma-separated element counts, each a number with an optional\n"
            "                        k/M/G suffix (powers of 2) or 2^E, or a range A..B of powers of two\n"
            "                        (2^10..2^28). Sweep default 2^16,2^20,2^24; on a CPU device 2^12,2^16,2^20\n"
            "        --full          the whole sweep at the default sizes (2^10..2^28: --sizes 2^10..2^28)\n"
            "        --quick         sizes 2^10,2^14,2^17 and 3 timed runs\n"
            "        --reps N        timed runs per case and clock (default 20; on a CPU device 10, and a\n"
            "                        phase whose runs pass 2 s stops after 3; 3 with --quick)\n"
            "        --compare cub   time CUB (cub::DeviceReduce, cub::DeviceScan) on the same data; on\n"
            "                        the CUDA backend redscan runs on CUB's device memory. Needs a build\n"
            "                        with CUDA and a CUDA device\n"
            "        --csv FILE      also write every row with all columns as CSV to FILE\n"
            "                        (scripts/plot_bench.py FILE draws it)\n"
            "        --scan-only     only scans\n"
            "        --reduce-only   only reductions, argmax and top-2\n"
            "        --dtypes LIST   subset of int32,uint32,int64,uint64,float32,float64\n"
            "        --ops LIST      subset of sum,prod,min,max,argmax,top2\n"
            "        --algos LIST    only these algorithms: reduction names, scan block/grid pairs or\n"
            "                        either half (single_pass = every block with it); argmax, top-2\n"
            "                        and the references always run\n"
            "        --exclusive     time exclusive scans instead of inclusive ones\n"
            "        --host-refs     the C / OpenMP loops on a GPU too (--no-host-refs: not on a CPU)\n"
            "        --l2-mb N       cache size the rotation defeats (default 50 MiB, or the device's\n"
            "                        reported one when larger)\n"
            "        --no-rotate     every run reads the same buffer\n"
            "        --async         the latency mode instead: per size (default 2^16,2^20; --sizes) and op\n"
            "                        (default float32 reduce sum, inclusive scan sum, argmax, top-2; --dtypes,\n"
            "                        --ops sum,min,max,argmax,top2, --exclusive, --scan-only, --reduce-only),\n"
            "                        the per-call time of R redscan_*_async calls back to back with one\n"
            "                        redscan_synchronize (CUDA: CUDA events on the context's stream; OpenCL:\n"
            "                        host clock), of the same R blocking calls, and with --compare cub of CUB\n"
            "                        in the same pipelined form; median of --reps loops (default 5). Prints\n"
            "                        op dtype n mode clock calls per_call_us host_us GB/s cub_us x_cub check\n"
            "        --calls R       back-to-back calls per loop in --async (default 200 up to 2^16, 100 up\n"
            "                        to 2^22, 20 above)\n"
            "\n"
            "  redscan first-result [--op sum|scan|mean|argmax|topk|all] [--n N]\n"
            "      Time to the first result of this new process: redscan_create, then the first call of one\n"
            "      family (default sum; topk is k = 2) on N float32 values (default 65536), checked, with the\n"
            "      on-disk program cache's counters (docs/CACHE.md). all: the families one after the other.\n"
            "      scripts/first-result.sh measures each family in fresh processes, caches cold and warm.\n"
            "\n"
            "  redscan reduce|mean|argmin|argmax|topk|scan FILE [options]\n"
            "      The library on your data: FILE is a NumPy .npy file (C order, any shape, flattened; int8,\n"
            "      uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64) or raw\n"
            "      little-endian binary with --dtype (bfloat16: raw only; out as '<u2' bits). The file\n"
            "      is mapped, not read into a copy. Prints the result (--json: one JSON object; NaN and\n"
            "      infinities as the strings \"nan\", \"inf\", \"-inf\"); scan writes a 1-D .npy file.\n"
            "        --dtype T       raw data of T (or check that a .npy file holds T)\n"
            "        --op OP         reduce, scan: sum (default), prod, min, max\n"
            "        --out-dtype T   reduce, scan: a widening (int32->int64, uint32->uint64, float32->float64;\n"
            "                        int8/int16 -> int32/int64, uint8/uint16 -> uint32/uint64, float16/bfloat16\n"
            "                        -> float32/float64)\n"
            "        --algo NAME     reduce: auto, tree, interleaved, coarsened, warp_sync, shuffle\n"
            "        --block NAME    scan: auto, kogge_stone, kogge_stone_db, brent_kung, coarsened\n"
            "        --grid NAME     scan: auto, hierarchical, reduce_then_scan, single_pass\n"
            "        --exclusive     scan: exclusive instead of inclusive\n"
            "        -o OUT.npy      scan: where the result goes (required)\n"
            "        --k K           topk: how many (required); --smallest: the k smallest, not the largest\n"
            "        --backend B     auto (default: REDSCAN_BACKEND), cuda or opencl\n"
            "        --json          one JSON object instead of text\n"
            "      Semantics (NaN, ties, empty arrays): docs/SEMANTICS.md.\n"
            "\n"
            "  redscan help | --help | -h\n"
            "\n"
            "environment: REDSCAN_BACKEND, REDSCAN_OPENCL_DEVICE, REDSCAN_CUDA_DEVICE, REDSCAN_REDUCE_ALGO,\n"
            "REDSCAN_SCAN_BLOCK, REDSCAN_SCAN_GRID, REDSCAN_CACHE, REDSCAN_CACHE_DIR (see README.md).\n"
            "exit status: 0 success, 1 failure, 2 bad arguments.\n",
            REDSCAN_VERSION_STRING);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        cli_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("redscan %s\n", REDSCAN_VERSION_STRING);
        return 0;
    }
    if (!strcmp(cmd, "info"))
        return cli_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return cli_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "first-result"))
        return cli_first_result(argc - 1, argv + 1);
    static const char *const data_cmds[] = {"reduce", "mean", "argmin", "argmax", "topk", "scan"};
    for (size_t i = 0; i < sizeof data_cmds / sizeof data_cmds[0]; i++)
        if (!strcmp(cmd, data_cmds[i])) return cli_data(argc - 1, argv + 1);
    fprintf(stderr, "redscan: unknown command '%s'\n\n", cmd);
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
}
