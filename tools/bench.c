/* redscan bench: one run measures every operation x dtype x algorithm x n on the selected backend, next to
 * references measured in the same process, and checks every result. This file: setup, the header of the run, the
 * sweep over n x dtype x case, the summary; the pieces are listed in bench_run.h.
 *
 * Timing (bench_cases.c). Each of redscan's cases is timed twice: with the host clock around each blocking call,
 * profiling off (the latency a caller sees), and with the device time of each call, profiling on
 * (redscan_set_profiling / redscan_last_device_time: CUDA events or OpenCL profiling events from the first device
 * command's start to the last one's end). GB/s, %copy and the ratio to the reference use the device time; a second
 * ratio compares host clocks. Each case: one call checked against a host reference, one more warm-up, then the
 * median of N timed runs per clock (default 20 on a GPU; on a CPU device 10, a phase past 2 s stopping after 3).
 * Every timed run's result (scans: the last element) must have the checked call's bits.
 *
 * Rotation (bench_dset.c). When n*size is small enough that repeated runs would read from the cache, the inputs (and
 * scan outputs) cycle over as many identical buffers as make the working set at least twice the L2 size (50 MiB, an
 * H100's L2, or the device's own when larger; at most 1024 buffers).
 *
 * References, same run, same rotation (bench_rows.c): the device's copy bandwidth (CUDA: cudaMemcpyAsync device to
 * device; OpenCL: clEnqueueCopyBuffer on a separate context on the same device; both clocks); with --compare cub,
 * CUB's reductions and scans on the same device memory (CUDA backend: redscan runs on CUB's buffers through
 * redscan_buffer_wrap_cuda), CUDA events and the host clock; on a CPU device, plain C loops and OpenMP read / copy
 * loops (host clock).
 *
 * GB/s: reduce, argmax, top-2 count n*size bytes read; scan and copy count 2*n*size (read + write).
 *
 * --async replaces the sweep with the latency mode of bench_async.c (per-call time of back-to-back stream-ordered
 * calls against the blocking ones and CUB); it shares this file's setup of the context, the CUDA helper and the CSV. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_run.h"
#include "cli.h"
#include "redscan.h"

#ifdef REDSCAN_BENCH_CUDA
#include "cub_compare.h"
#endif

/* ------------------------------------------------------------------------------------------- sweep */

static const redscan_dtype k_dtypes[] = {REDSCAN_INT32,  REDSCAN_UINT32,  REDSCAN_INT64,
                                         REDSCAN_UINT64, REDSCAN_FLOAT32, REDSCAN_FLOAT64};
static const redscan_op k_ops[] = {REDSCAN_SUM, REDSCAN_PROD, REDSCAN_MIN, REDSCAN_MAX};
static const redscan_reduce_algo k_ralgos[] = {REDSCAN_REDUCE_TREE, REDSCAN_REDUCE_INTERLEAVED,
                                               REDSCAN_REDUCE_COARSENED, REDSCAN_REDUCE_WARP_SYNC,
                                               REDSCAN_REDUCE_SHUFFLE};
static const redscan_block_scan k_blocks[] = {REDSCAN_BLOCK_KOGGE_STONE, REDSCAN_BLOCK_KOGGE_STONE_DB,
                                              REDSCAN_BLOCK_BRENT_KUNG, REDSCAN_BLOCK_COARSENED};
static const redscan_grid_scan k_grids[] = {REDSCAN_GRID_HIERARCHICAL, REDSCAN_GRID_REDUCE_THEN_SCAN,
                                            REDSCAN_GRID_SINGLE_PASS};
/* The headline run (bench_opts.headline) times what a caller gets by default: the AUTO algorithms. */
static const redscan_reduce_algo k_ralgos_auto[] = {REDSCAN_REDUCE_AUTO};
static const redscan_block_scan k_blocks_auto[] = {REDSCAN_BLOCK_AUTO};
static const redscan_grid_scan k_grids_auto[] = {REDSCAN_GRID_AUTO};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define RALGOS(o) ((o)->headline ? k_ralgos_auto : k_ralgos)
#define NRALGOS(o) ((o)->headline ? COUNT(k_ralgos_auto) : COUNT(k_ralgos))
#define BLOCKS(o) ((o)->headline ? k_blocks_auto : k_blocks)
#define NBLOCKS(o) ((o)->headline ? COUNT(k_blocks_auto) : COUNT(k_blocks))
#define GRIDS(o) ((o)->headline ? k_grids_auto : k_grids)
#define NGRIDS(o) ((o)->headline ? COUNT(k_grids_auto) : COUNT(k_grids))

static int cases_per_dtype(const bench_opts *o, size_t n)
{
    int c = 0, nops = 0;
    for (int i = 0; i < COUNT(k_ops); ++i)
        nops += bench_op_on(o, (int)k_ops[i]);
    if (o->do_reduce)
        c += nops * NRALGOS(o) + bench_op_on(o, OP_ARGMAX) + (n >= 2 && bench_op_on(o, OP_TOP2));
    if (o->do_scan)
        c += nops * NBLOCKS(o) * NGRIDS(o);
    return c;
}

/* Runs every case of (n, dtype). Returns 0 when done, 1 when the dtype is unsupported (skip it). */
static int bench_dtype(bench_state *st, const bench_opts *o, redscan_dtype dt, size_t n)
{
    dset d;
    dset_init(st, o, &d, dt, n);
    int rc = 0;
    char detail[DETAIL_MAX] = "";
    row_t skip = {"ours", "*", d.dtname, "*", n, 0, d.nbuf, 0, {0, 0, 0, 0}, "", R_SKIP, 0, NULL, 0, 0, detail};

    if (dset_fits(st, &d, detail, sizeof detail)) {
        bench_report(st, &skip);
        st->done += cases_per_dtype(o, n);
        st->skipped += cases_per_dtype(o, n);
        return 0;
    }
    int oom = 0;
    if (dset_alloc(st, &d, detail, &oom)) {
        if (o->full && oom) {
            snprintf(detail + strlen(detail), sizeof detail - strlen(detail), " (--full: skipped, does not fit)");
            bench_report(st, &skip);
            st->skipped += cases_per_dtype(o, n);
        } else {
            row_t e = skip;
            e.result = R_ERROR;
            bench_report(st, &e);
        }
        st->done += cases_per_dtype(o, n);
        dset_free(st, &d);
        return 0;
    }

    /* references of this size: the device copy, the CPU's loops */
    d.copy_gbs = bench_device_copy(st, st->cuda_ok && (st->is_cuda || !st->ocl), &d, d.bytes, d.nbuf, o->reps, "copy",
                                   d.dtname, n);
    if (st->cub && !st->is_cuda && st->ocl) /* CUB's ceiling next to the OpenCL one, on CUB's buffers */
        bench_device_copy(st, 1, &d, d.bytes, d.nbuf, o->reps, "copy", d.dtname, n);
    if (st->host_refs)
        bench_omp_rows(st, o, &d);

    int first = 1; /* FLOAT64 unsupported at the first case: skip the dtype */
    char opname[32], algo[64];
    redscan_status s;
    if (o->do_reduce) {
        for (int oi = 0; oi < COUNT(k_ops); ++oi) {
            if (!bench_op_on(o, (int)k_ops[oi]))
                continue;
            snprintf(opname, sizeof opname, "reduce.%s", redscan_op_name(k_ops[oi]));
            bench_cub_row(st, o, &d, CASE_REDUCE, k_ops[oi], opname);
            if (st->host_refs) {
                bench_loop_row(st, o, &d, CASE_REDUCE, k_ops[oi], opname, 0);
                if (k_ops[oi] == REDSCAN_SUM)
                    bench_loop_row(st, o, &d, CASE_REDUCE, k_ops[oi], opname, 1);
            }
            for (int ai = 0; ai < NRALGOS(o); ++ai) {
                bench_case c;
                memset(&c, 0, sizeof c);
                c.kind = CASE_REDUCE;
                c.op = k_ops[oi];
                c.dt = dt;
                c.ralgo = RALGOS(o)[ai];
                c.n = n;
                snprintf(algo, sizeof algo, "%s", redscan_reduce_algo_name(c.ralgo));
                s = bench_ours(st, o, &d, &c, opname, algo);
                if (first && s == REDSCAN_ERR_UNSUPPORTED && dt == REDSCAN_FLOAT64) {
                    rc = 1;
                    goto done;
                }
                first = 0;
            }
        }
        bench_case c;
        memset(&c, 0, sizeof c);
        c.kind = CASE_ARGMAX;
        c.dt = dt;
        c.n = n;
        if (bench_op_on(o, OP_ARGMAX)) {
            bench_cub_row(st, o, &d, CASE_ARGMAX, REDSCAN_SUM, "argmax");
            if (st->host_refs)
                bench_loop_row(st, o, &d, CASE_ARGMAX, REDSCAN_SUM, "argmax", 0);
            bench_ours(st, o, &d, &c, "argmax", "-");
        }
        if (n >= 2 && bench_op_on(o, OP_TOP2)) {
            c.kind = CASE_TOP2;
            if (st->host_refs)
                bench_loop_row(st, o, &d, CASE_TOP2, REDSCAN_SUM, "top2", 0);
            bench_ours(st, o, &d, &c, "top2", "-");
        }
    }
    if (o->do_scan) {
        for (int oi = 0; oi < COUNT(k_ops); ++oi) {
            if (!bench_op_on(o, (int)k_ops[oi]))
                continue;
            snprintf(opname, sizeof opname, "%s.%s", o->exclusive ? "exscan" : "scan", redscan_op_name(k_ops[oi]));
            bench_cub_row(st, o, &d, CASE_SCAN, k_ops[oi], opname);
            if (st->host_refs)
                bench_loop_row(st, o, &d, CASE_SCAN, k_ops[oi], opname, 0);
            for (int bi = 0; bi < NBLOCKS(o); ++bi) {
                for (int gi = 0; gi < NGRIDS(o); ++gi) {
                    bench_case c;
                    memset(&c, 0, sizeof c);
                    c.kind = CASE_SCAN;
                    c.op = k_ops[oi];
                    c.dt = dt;
                    c.exclusive = o->exclusive;
                    c.block = BLOCKS(o)[bi];
                    c.grid = GRIDS(o)[gi];
                    c.n = n;
                    snprintf(algo, sizeof algo, "%s/%s", redscan_block_scan_name(c.block),
                             redscan_grid_scan_name(c.grid));
                    s = bench_ours(st, o, &d, &c, opname, algo);
                    if (first && s == REDSCAN_ERR_UNSUPPORTED && dt == REDSCAN_FLOAT64) {
                        rc = 1;
                        goto done;
                    }
                    first = 0;
                }
            }
        }
    }
done:
    dset_free(st, &d);
    return rc;
}

/* Releases what cli_bench opened: the context, the bench's own OpenCL context, the CUDA helper, the CSV file. */
static void close_run(bench_state *st, const bench_opts *o)
{
    redscan_destroy(st->ctx);
    br_ocl_close(st->ocl);
#ifdef REDSCAN_BENCH_CUDA
    if (st->cuda_ok)
        rsb_cuda_close();
#endif
    if (st->csv) {
        fclose(st->csv);
        printf("CSV written to %s\n", o->csv_path);
    }
}

int cli_bench(int argc, char **argv)
{
    bench_opts o;
    int prc = bench_parse_opts(argc, argv, &o);
    if (prc >= 0)
        return prc;

    bench_state st;
    memset(&st, 0, sizeof st);
    st.tty = isatty(STDERR_FILENO);
    st.t_start = bench_now();
    st.rotate = o.rotate;

#ifdef REDSCAN_BENCH_CUDA
    rsb_cuda_info cinfo;
    memset(&cinfo, 0, sizeof cinfo);
    char cerr[512] = "";
    int cuda_ordinal = 0;
    {
        const char *e = getenv("REDSCAN_CUDA_DEVICE");
        if (e && *e)
            cuda_ordinal = atoi(e);
    }
#endif
    if (o.compare_cub) {
#ifdef REDSCAN_BENCH_CUDA
        if (rsb_cuda_open(cuda_ordinal, &cinfo, cerr, sizeof cerr)) {
            fprintf(stderr,
                    "redscan bench: --compare cub needs a usable CUDA device (device %d): %s\n"
                    "(`redscan info` says which backends can run here)\n",
                    cuda_ordinal, cerr);
            return 1;
        }
        st.cuda_ok = 1;
        st.cub = 1;
#else
        fprintf(stderr, "redscan bench: --compare cub: this redscan was built without CUDA (no nvcc at build time, or "
                        "REDSCAN_WITH_CUDA=OFF), so CUB is not compiled in\n");
        return 1;
#endif
    }

    redscan_status s = redscan_create(&st.ctx, o.backend);
    if (s != REDSCAN_OK) {
        const char *e = redscan_last_error(NULL);
        fprintf(stderr, "redscan bench: cannot create a context: %s%s%s\n", redscan_status_string(s),
                e && *e ? ": " : "", e ? e : "");
#ifdef REDSCAN_BENCH_CUDA
        if (st.cuda_ok)
            rsb_cuda_close();
#endif
        return 1;
    }
    st.backend = redscan_backend_name(st.ctx);
    const char *device = redscan_device_name(st.ctx);
    st.is_cuda = !strcmp(st.backend, "cuda");
    st.is_cpu = cli_device_is_cpu(st.backend, device);
    /* Device time of our calls: profiling is switched on only while a case's device-timed runs go */
    char prof_err[512] = "";
    s = redscan_set_profiling(st.ctx, 1);
    if (s == REDSCAN_OK)
        s = redscan_set_profiling(st.ctx, 0);
    st.dev_timing = s == REDSCAN_OK;
    if (!st.dev_timing)
        snprintf(prof_err, sizeof prof_err, "%s: %s", redscan_status_string(s), redscan_last_error(st.ctx));

    double l2_reported = 0;
    char l2_src[64] = "";
    br_ocl_info oinfo;
    memset(&oinfo, 0, sizeof oinfo);
    char oerr[512] = "";
#ifdef REDSCAN_BENCH_CUDA
    if (st.is_cuda && !st.cuda_ok) {
        if (!rsb_cuda_open(cuda_ordinal, &cinfo, cerr, sizeof cerr))
            st.cuda_ok = 1;
    }
    if (st.cuda_ok) {
        if (st.is_cuda) {
            st.dev_mem = cinfo.mem_total;
            l2_reported = (double)cinfo.l2_bytes;
            snprintf(l2_src, sizeof l2_src, "cudaDeviceProp::l2CacheSize");
        }
        st.wrap = st.cub && st.is_cuda;
        if (st.is_cuda && strcmp(cinfo.name, device))
            printf("note: the library's device '%s' and CUDA device %d '%s' differ in name\n", device, cuda_ordinal,
                   cinfo.name);
    }
#endif
    if (!st.is_cuda) {
        if (br_ocl_open(device, &st.ocl, &oinfo, oerr, sizeof oerr)) {
            st.ocl = NULL;
        } else {
            st.dev_mem = oinfo.global_mem;
            st.dev_max_alloc = oinfo.max_alloc;
            l2_reported = (double)oinfo.cache_bytes;
            snprintf(l2_src, sizeof l2_src, "CL_DEVICE_GLOBAL_MEM_CACHE_SIZE");
            st.is_cpu = oinfo.is_cpu;
        }
    }
    {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        st.host_mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    }
    st.host_refs = o.host_refs >= 0 ? o.host_refs : st.is_cpu == 1;
    double l2_default = DEFAULT_L2_MIB * 1024 * 1024;
    st.l2_bytes = o.l2_mib > 0 ? o.l2_mib * 1024 * 1024 : (l2_reported > l2_default ? l2_reported : l2_default);

    const char *sizes_why = "--sizes";
    if (!o.sizes_given)
        sizes_why = bench_default_sizes(&o, st.is_cpu);
    if (!o.reps_given) {
        if (o.quick)
            o.reps = 3;
        else if (st.is_cpu == 1) {
            o.reps = 10;
            st.reps_cpu_budget = 1;
        }
    }

    if (o.csv_path) {
        st.csv = fopen(o.csv_path, "w");
        if (!st.csv) {
            fprintf(stderr, "redscan bench: cannot open %s: %s\n", o.csv_path, strerror(errno));
            redscan_destroy(st.ctx);
            br_ocl_close(st.ocl);
#ifdef REDSCAN_BENCH_CUDA
            if (st.cuda_ok)
                rsb_cuda_close();
#endif
            return 1;
        }
        bench_csv_header(st.csv);
    }
    if (o.async) { /* the latency mode has its own header and table (bench_async.c) */
        int rc = bench_async(&st, &o, device);
        close_run(&st, &o);
        return rc;
    }

    /* ---- header */
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    printf("redscan %s bench, %s: backend %s, device %s\n", REDSCAN_VERSION_STRING, date, st.backend, device);
#ifdef REDSCAN_BENCH_CUDA
    if (st.cuda_ok)
        printf("CUDA device %d: %s, sm_%d%d, %d SMs, L2 %.0f MiB, %.1f GiB; runtime %d, driver %d\n", cinfo.ordinal,
               cinfo.name, cinfo.cc_major, cinfo.cc_minor, cinfo.sm_count, (double)cinfo.l2_bytes / 1048576.0,
               (double)cinfo.mem_total / 1073741824.0, cinfo.runtime_version, cinfo.driver_version);
#endif
    if (!st.is_cuda && !st.ocl)
        printf("note: no OpenCL context of the bench's own on this device (%s): no device copy reference\n", oerr);
    {
        char load[64] = "";
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) {
            if (!fgets(load, sizeof load, f))
                load[0] = '\0';
            fclose(f);
            /* the 1, 5 and 15 minute averages */
            char *p = load;
            for (int k = 0; k < 3 && p; ++k)
                p = strchr(p + (k > 0), ' ');
            if (p)
                *p = '\0';
        }
#ifndef REDSCAN_BENCH_BUILD_TYPE
#define REDSCAN_BENCH_BUILD_TYPE "?"
#endif
#if defined(__GNUC__) && !defined(__clang__)
        const char *compiler = "gcc " __VERSION__;
#elif defined(__VERSION__)
        const char *compiler = __VERSION__;
#else
        const char *compiler = "?";
#endif
        printf("tool: build type %s, C compiler %s, %s; host load average %s\n", REDSCAN_BENCH_BUILD_TYPE, compiler,
               br_omp_threads() ? "OpenMP" : "no OpenMP", load[0] ? load : "?");
    }
    printf("sizes:");
    for (int i = 0; i < o.nsizes; ++i)
        printf(" %zu", o.sizes[i]);
    printf(" (%s)\n", sizes_why);
    printf("timing, two clocks per case:\n"
           "        host_ms: host CLOCK_MONOTONIC around each blocking library call, profiling off (what a caller\n"
           "                 waits: launches, the final wait, a reduction's result copied to the host)\n");
    if (st.dev_timing)
        printf("        dev_ms:  the call's device time, redscan_set_profiling on: %s\n"
               "                 from the start of its first device command to the end of its last\n"
               "                 (redscan_last_device_time); GB/s, %%copy and vs_ref use it, vs_host compares\n"
               "                 host_ms\n",
               st.is_cuda ? "CUDA events on its stream," : "OpenCL profiling events,");
    else
        printf("        dev_ms:  not measured here: redscan_set_profiling failed (%s);\n"
               "                 GB/s, %%copy and vs_ref use the host clock\n",
               prof_err);
    printf("each case: one checked call, one more warm-up, then the median of %d runs timed by the host clock%s;\n"
           "        every timed run's result (scans: last element) must have the checked call's bits\n",
           o.reps,
           st.dev_timing ? ",\n        then one untimed run and the median of as many timed by the device" : "");
    if (st.reps_cpu_budget)
        printf("        (a CPU device: a phase whose runs pass 2 s stops after 3)\n");
    if (!st.rotate)
        printf("rotation: off (--no-rotate): every run reads the same buffer\n");
    else
        printf("rotation: inputs (and scan outputs) cycle over identical buffers until a size's working set is >= 2 x "
               "L2 = %.0f MiB\n        (L2 %.0f MiB: %s; at most %d buffers)\n",
               2 * st.l2_bytes / 1048576.0, st.l2_bytes / 1048576.0,
               o.l2_mib > 0           ? "--l2-mb"
               : l2_reported > l2_default ? l2_src
                                          : "an H100's, the default",
               NBUF_MAX);
    printf("references, same run, same rotation:\n");
    if (st.is_cuda)
        printf("        copy: cudaMemcpyAsync device to device (bench/cub_compare.cu): dev_ms CUDA events,\n"
               "              host_ms host clock around copy + sync\n");
    else if (st.ocl)
        printf("        copy: clEnqueueCopyBuffer on a separate OpenCL context on the same device: dev_ms its\n"
               "              profiling event, host_ms host clock around enqueue + clFinish\n");
    if (st.cub)
        printf("        cub: CUB %s on %s: dev_ms CUDA events\n"
               "             around the call, host_ms host clock around call + sync (+ result to host for\n"
               "             reductions)\n",
               "(cub::DeviceReduce / cub::DeviceScan)",
               st.wrap ? "the same device memory as redscan (redscan_buffer_wrap_cuda)" : "CUDA memory of its own");
    if (st.host_refs)
        printf("        c_loop: plain C loops (one accumulator, in order; c_loop_8acc: eight); omp_read / omp_copy: "
               "%s\n",
               br_omp_threads() ? "OpenMP loops over every core" : "the same loops on one thread (no OpenMP)");
    printf("GB/s: reduce, argmax, top2 count n*size bytes; scan and copy count 2*n*size (read + write)\n");

    /* ---- the device's copy peak */
    size_t peak_bytes = st.is_cpu == 1 || o.quick ? ((size_t)256 << 20) : ((size_t)1 << 30);
    if (o.quick)
        peak_bytes = (size_t)64 << 20;
    if (st.dev_mem && peak_bytes > st.dev_mem / 8)
        peak_bytes = (size_t)(st.dev_mem / 8) & ~(size_t)4095;
    if (st.dev_max_alloc && peak_bytes > st.dev_max_alloc)
        peak_bytes = (size_t)st.dev_max_alloc & ~(size_t)4095;
    if (!st.tty)
        fprintf(stderr, "[bench %5.0fs] copy peak (%zu MiB)\n", bench_now() - st.t_start, peak_bytes >> 20);
    printf("\n");
    bench_table_header();
    fflush(stdout);
    bench_copy_peak(&st, &o, peak_bytes);
    if (st.copy_peak_gbs > 0)
        printf("%%copy: GB/s as a percentage of the copy peak %.1f GB/s (%s, %zu MiB); vs_ref: GB/s over the GB/s of "
               "%s at the same n (> 1: faster)\n\n",
               st.copy_peak_gbs, st.copy_peak_src, peak_bytes >> 20,
               st.cub         ? "cub (dev_ms; vs_host: host_ms)"
               : st.host_refs ? "c_loop (one accumulator)"
                              : "(none in this run)");
    else
        printf("(no copy peak measured: %%copy stays empty)\n\n");
    fflush(stdout);

    for (int si = 0; si < o.nsizes; ++si)
        for (int di = 0; di < COUNT(k_dtypes); ++di)
            if ((o.dtype_mask >> k_dtypes[di]) & 1u)
                st.total += cases_per_dtype(&o, o.sizes[si]);

    int skip_dtype[COUNT(k_dtypes)] = {0};
    for (int si = 0; si < o.nsizes; ++si) {
        size_t n = o.sizes[si];
        for (int di = 0; di < COUNT(k_dtypes); ++di) {
            if (!((o.dtype_mask >> k_dtypes[di]) & 1u) || !cases_per_dtype(&o, n))
                continue;
            if (skip_dtype[di]) {
                st.done += cases_per_dtype(&o, n);
                continue;
            }
            if (!st.tty) {
                fflush(stdout);
                fprintf(stderr, "[bench %5.0fs] case %d/%d: n=%zu %s\n", bench_now() - st.t_start, st.done + 1,
                        st.total, n, redscan_dtype_name(k_dtypes[di]));
                fflush(stderr);
            }
            int before = st.done;
            if (bench_dtype(&st, &o, k_dtypes[di], n)) {
                skip_dtype[di] = 1;
                st.done = before + cases_per_dtype(&o, n);
                bench_progress_clear(&st);
                printf("(%s: unsupported on this device; skipped at every size)\n", redscan_dtype_name(k_dtypes[di]));
            }
        }
    }
    bench_progress_clear(&st);

    printf("\n%d cases: %d passed, %d failed, %d unsupported; %d skipped (did not fit); references: %d failed; "
           "%.1f s\n",
           st.rows, st.passed, st.failed, st.unsupported, st.skipped, st.ref_failed, bench_now() - st.t_start);
    if (st.unsupported) {
        printf("unsupported (not failures; each kind printed once above):\n");
        for (int i = 0; i < st.nunsup; ++i) {
            printf("  %-32s %4d cases", st.unsup[i].algo, st.unsup[i].count);
            if (i == 0 || strcmp(st.unsup[i].reason, st.unsup[i - 1].reason))
                printf(": %s", st.unsup[i].reason);
            printf("\n");
        }
    }
    close_run(&st, &o);
    return st.failed || st.ref_failed ? 1 : 0;
}
