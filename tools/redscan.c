/* redscan: command-line tool of the redscan library.
 *
 *   redscan info     backends compiled in and usable here, OpenCL platforms and devices, the selection
 *   redscan bench    verified sweep of every operation x dtype x algorithm on the selected backend
 *   redscan help     this text
 *
 * The tool uses only the public API (redscan.h), plus OpenCL's own API for the device listing of `info`. */
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
            "  redscan bench [--backend auto|cuda|opencl] [--sizes a,b,c] [--reps N] [--quick]\n"
            "                [--csv FILE] [--scan-only | --reduce-only] [--dtypes LIST] [--ops LIST]\n"
            "      Verified sweep on the selected backend: every op x dtype x algorithm (reductions:\n"
            "      tree, interleaved, coarsened; scans: every block x grid algorithm), argmax and top-2,\n"
            "      at a few sizes. Each case: one warm-up run checked against a host reference, then\n"
            "      the median of N timed runs of the device-buffer API. Prints the table\n"
            "      op dtype algo n median_ms GB/s check, with the host's memcpy bandwidth and a plain\n"
            "      C loop for reference. Exits 1 if any check fails or any call errs.\n"
            "        --backend B     auto (default: REDSCAN_BACKEND, else CUDA if usable, else OpenCL),\n"
            "                        cuda or opencl; an unusable backend is an error, never a fallback\n"
            "        --sizes LIST    comma-separated element counts, each a number with an optional\n"
            "                        k/M/G suffix (powers of 2) or 2^E. Default 2^16,2^20,2^24;\n"
            "                        on a CPU device (PoCL) 2^12,2^16,2^20 to keep the sweep short\n"
            "        --quick         sizes 2^10,2^14,2^17 and 3 timed runs\n"
            "        --reps N        timed runs per case (default 10, 3 with --quick; without --reps a\n"
            "                        case whose runs pass 2 s stops after 3)\n"
            "        --csv FILE      also write every row (and min time, runs, fraction of the host's\n"
            "                        copy bandwidth, failure detail) as CSV to FILE\n"
            "        --scan-only     only scans\n"
            "        --reduce-only   only reductions, argmax and top-2\n"
            "        --dtypes LIST   subset of int32,uint32,int64,uint64,float32,float64\n"
            "        --ops LIST      subset of sum,prod,min,max,argmax,top2\n"
            "\n"
            "  redscan help | --help | -h\n"
            "\n"
            "environment: REDSCAN_BACKEND, REDSCAN_OPENCL_DEVICE, REDSCAN_CUDA_DEVICE, REDSCAN_REDUCE_ALGO,\n"
            "REDSCAN_SCAN_BLOCK, REDSCAN_SCAN_GRID (see README.md).\n"
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
    fprintf(stderr, "redscan: unknown command '%s'\n\n", cmd);
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
}
