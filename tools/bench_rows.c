/* redscan bench: the reference rows, measured in the same run on the same rotation of buffers as redscan's cases.
 *
 *   copy:   the device's copy bandwidth. CUDA: cudaMemcpyAsync device to device (bench/cub_compare.cu), CUDA events
 *           and the host clock; OpenCL: clEnqueueCopyBuffer on the bench's own context on the same device, profiling
 *           events and the host clock (bench_ref.c).
 *   cub:    CUB's reductions and scans (--compare cub), CUDA events and the host clock.
 *   c_loop, omp_read, omp_copy: the CPU's loops (a CPU device, or --host-refs), host clock only. */
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"

#ifdef REDSCAN_BENCH_CUDA
#include "cub_compare.h"
#endif

static volatile uint64_t g_sink; /* keeps the loops' results alive */

#ifdef REDSCAN_BENCH_CUDA
static void from_cuda(const rsb_cuda_timing *c, bench_times *t)
{
    t->dev_med_s = c->ev_median_ms * 1e-3;
    t->dev_min_s = c->ev_min_ms * 1e-3;
    t->host_med_s = c->host_median_ms * 1e-3;
    t->host_min_s = c->host_min_ms * 1e-3;
}

/* The CUDA copy: on CUB's buffers of d when they match, else on buffers of its own. Returns 0 or 1 with err. */
static int cuda_copy(bench_state *st, dset *d, size_t bytes, int nbuf, int reps, bench_times *t, char *err,
                     size_t len)
{
    if (!st->cuda_ok) {
        snprintf(err, len, "no CUDA device opened for the copy reference");
        return 1;
    }
    int rc = 1;
    rsb_cuda_timing ct;
    memset(&ct, 0, sizeof ct);
    void **src = calloc((size_t)nbuf, sizeof *src), **dst = calloc((size_t)nbuf, sizeof *dst);
    void *rs = NULL, *rd = NULL;
    int own = 1;
    size_t stride = (bytes + 4095) / 4096 * 4096;
    if (src && dst) {
        if (d && d->cgen && d->cout && d->nbuf == nbuf && d->bytes == bytes) {
            rs = d->cgen;
            rd = d->cout; /* CUB's buffers */
            stride = d->stride;
            own = 0;
        } else {
            rs = rsb_cuda_alloc(stride * (size_t)nbuf, err, len);
            rd = rs ? rsb_cuda_alloc(stride * (size_t)nbuf, err, len) : NULL;
        }
        if (rs && rd) {
            for (int i = 0; i < nbuf; ++i) {
                src[i] = (char *)rs + (size_t)i * stride;
                dst[i] = (char *)rd + (size_t)i * stride;
            }
            rc = rsb_cuda_time_copy(dst, src, nbuf, bytes, reps, &ct, err, len);
            from_cuda(&ct, t);
        }
        if (own) {
            rsb_cuda_free(rs);
            rsb_cuda_free(rd);
        }
    } else {
        snprintf(err, len, "out of host memory");
    }
    free(src);
    free(dst);
    return rc;
}
#endif

double bench_device_copy(bench_state *st, int use_cuda, dset *d, size_t bytes, int nbuf, int reps, const char *op,
                         const char *dtname, size_t n)
{
    char err[512] = "";
    bench_times t = {0, 0, 0, 0};
    const char *algo = NULL, *timing = NULL;
    int rc = 1;
    (void)d; /* CUB's buffers, in builds with CUDA */
    if (use_cuda) {
        algo = "cudaMemcpy_d2d";
        timing = "cuda_events";
#ifdef REDSCAN_BENCH_CUDA
        rc = cuda_copy(st, d, bytes, nbuf, reps, &t, err, sizeof err);
#else
        snprintf(err, sizeof err, "built without CUDA");
#endif
    } else if (st->ocl) {
        algo = "clEnqueueCopyBuffer";
        rc = br_ocl_time_copy(st->ocl, bytes, nbuf, reps, &t, err, sizeof err);
        timing = t.dev_med_s > 0 ? "opencl_events" : "host_clock";
    } else {
        return 0;
    }
    row_t r = {"ref", op, dtname, algo, n, 2.0 * (double)bytes, nbuf, reps, t, timing, rc ? R_ERROR : R_REF, 0, NULL,
               0, 0, rc ? err : ""};
    bench_report(st, &r);
    return rc ? 0 : row_gbs(&r);
}

static int timed_reps(const bench_state *st, const bench_opts *o, double spent, int k)
{
    return k < o->reps && !(st->reps_cpu_budget && k >= 3 && spent > CASE_BUDGET_S);
}

/* Host-only rows: the host clock is both the primary and the host column. */
static void host_only(bench_times *t, double *times, int k)
{
    t->host_med_s = bench_median(times, k);
    t->host_min_s = times[0];
}

void bench_omp_rows(bench_state *st, const bench_opts *o, dset *d)
{
    char detail[128];
    int threads = br_omp_threads();
    snprintf(detail, sizeof detail, threads ? "OpenMP, %d threads" : "no OpenMP: one thread", threads);
    for (int which = 0; which < 2; ++which) {
        double times[MAX_REPS], spent = 0;
        int k = 0;
        bench_progress(st, 0, which ? "copy" : "read", d->dtname, which ? "omp_copy" : "omp_read", d->n);
        /* warm-up */
        if (which)
            br_omp_copy(d->rout ? d->rout : d->hout, d->rgen, d->bytes);
        else
            g_sink += br_omp_read(d->rgen, d->bytes);
        for (; timed_reps(st, o, spent, k); ++k) {
            size_t off = (size_t)((k + 1) % d->nbuf) * d->stride;
            double t0 = bench_now();
            if (which)
                br_omp_copy(d->rout ? d->rout + off : d->hout, d->rgen + off, d->bytes);
            else
                g_sink += br_omp_read(d->rgen + off, d->bytes);
            times[k] = bench_now() - t0;
            spent += times[k];
        }
        row_t r = {"ref", which ? "copy" : "read", d->dtname, which ? "omp_copy" : "omp_read", d->n,
                   (double)d->bytes * (which ? 2.0 : 1.0), d->nbuf, k, {0, 0, 0, 0}, "host_clock", R_REF,
                   d->copy_gbs, NULL, 0, 0, detail};
        host_only(&r.t, times, k);
        bench_report(st, &r);
    }
}

void bench_loop_row(bench_state *st, const bench_opts *o, dset *d, case_kind kind, redscan_op op, const char *opname,
                    int variant)
{
    const char *algo = variant ? "c_loop_8acc" : "c_loop";
    double times[MAX_REPS], spent = 0;
    unsigned char res[16] = {0};
    size_t idx[2] = {0, 0};
    const unsigned char *base = kind != CASE_ARGMAX && kind != CASE_TOP2 && op == REDSCAN_PROD ? d->rprd : d->rgen;
    bench_progress(st, 0, opname, d->dtname, algo, d->n);
    int k = -1; /* -1: the warm-up */
    for (; k < 0 || timed_reps(st, o, spent, k); ++k) {
        size_t off = (size_t)((k + 1) % d->nbuf) * d->stride;
        const void *in = base + off;
        double t0 = bench_now();
        switch (kind) {
        case CASE_REDUCE:
            if (variant)
                br_reduce_sum8(d->dt, in, d->n, res);
            else
                br_reduce(op, d->dt, in, d->n, res);
            break;
        case CASE_SCAN: br_scan(op, d->dt, 0, in, d->rout + off, d->n); break;
        case CASE_ARGMAX: idx[0] = br_argmax(d->dt, in, d->n); break;
        case CASE_TOP2: br_top2(d->dt, in, d->n, idx); break;
        }
        double t = bench_now() - t0;
        g_sink += res[0] + idx[0];
        if (k >= 0) {
            times[k] = t;
            spent += t;
        }
    }
    row_t r = {"ref", opname, d->dtname, algo, d->n, (double)d->bytes * (kind == CASE_SCAN ? 2.0 : 1.0), d->nbuf, k,
               {0, 0, 0, 0}, "host_clock", R_REF, d->copy_gbs, NULL, 0, 0,
               variant ? "" : "one accumulator, in order"};
    host_only(&r.t, times, k);
    bench_report(st, &r);
    if (!variant) {
        ref_speed *s = &d->loop[kind][kind == CASE_ARGMAX || kind == CASE_TOP2 ? 0 : (int)op];
        s->gbs = row_gbs(&r);
        s->host_gbs = row_host_gbs(&r);
    }
}

#ifdef REDSCAN_BENCH_CUDA
/* Checks CUB's result; R_PASS, else the detail. */
static int check_cub(dset *d, case_kind kind, redscan_op op, int exclusive, const rsb_cuda_timing *t,
                     const char *call, char *detail)
{
    char got[128], want[128], err[512];
    if (kind == CASE_REDUCE) {
        if (bd_ref_check(dset_red_ref(d, op), t->value, 0, got, want, sizeof got))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "%s: result %s, expected %s", call, got, want);
        return R_FAIL;
    }
    if (kind == CASE_ARGMAX) {
        size_t best = dset_argmax_ref(d);
        if ((size_t)t->index == best && bd_same_element(d->gen, best, t->value, d->dt))
            return R_PASS;
        snprintf(detail, DETAIL_MAX, "%s: index %lld, expected %zu", call, (long long)t->index, best);
        return R_FAIL;
    }
    if (rsb_cuda_download(d->hout, d->cout, d->bytes, err, sizeof err)) {
        snprintf(detail, DETAIL_MAX, "%s: %s", call, err);
        return R_ERROR;
    }
    char sd[DETAIL_MAX] = "";
    int result = dset_verify_scan_output(d, op, exclusive, sd);
    if (result != R_PASS)
        snprintf(detail, DETAIL_MAX, "%s: %s", call, sd);
    return result;
}
#endif

void bench_cub_row(bench_state *st, const bench_opts *o, dset *d, case_kind kind, redscan_op op, const char *opname)
{
#ifdef REDSCAN_BENCH_CUDA
    int ck = kind == CASE_REDUCE ? RSB_CUB_REDUCE : kind == CASE_SCAN ? RSB_CUB_SCAN : RSB_CUB_ARGMAX;
    if (!st->cub || kind == CASE_TOP2 || !rsb_cub_supported(ck, (int)op, (int)d->dt))
        return;
    void **ins = calloc((size_t)d->nbuf, sizeof *ins), **outs = calloc((size_t)d->nbuf, sizeof *outs);
    char err[512] = "", detail[DETAIL_MAX] = "";
    const char *call = rsb_cub_call_name(ck, (int)op, o->exclusive);
    char *in_region = kind == CASE_REDUCE || kind == CASE_SCAN ? (op == REDSCAN_PROD ? d->cprd : d->cgen) : d->cgen;
    rsb_cuda_timing t;
    int rc = 1;
    memset(&t, 0, sizeof t);
    bench_progress(st, 0, opname, d->dtname, "cub", d->n);
    if (ins && outs) {
        for (int i = 0; i < d->nbuf; ++i) {
            ins[i] = in_region + (size_t)i * d->stride;
            outs[i] = (char *)d->cout + (size_t)i * d->stride;
        }
        rsb_cub_case cc = {ck, (int)op, (int)d->dt, o->exclusive, d->n, d->nbuf, ins, outs, o->reps};
        rc = rsb_cub_run(&cc, &t, err, sizeof err);
    } else {
        snprintf(err, sizeof err, "out of host memory");
    }
    free(ins);
    free(outs);
    int result = R_ERROR;
    if (rc) {
        snprintf(detail, DETAIL_MAX, "%s: %s", call, err);
    } else {
        result = check_cub(d, kind, op, o->exclusive, &t, call, detail);
        if (result == R_PASS)
            snprintf(detail, DETAIL_MAX, "%s, temp storage %zu bytes%s", call, t.temp_bytes,
                     t.reproducible ? "" : "; not bitwise reproducible from run to run");
    }
    row_t r = {"ref", opname, d->dtname, "cub", d->n, (double)d->bytes * (kind == CASE_SCAN ? 2.0 : 1.0), d->nbuf,
               t.reps, {0, 0, 0, 0}, "cuda_events", result, d->copy_gbs, NULL, 0, 0, detail};
    if (!rc)
        from_cuda(&t, &r.t);
    bench_report(st, &r);
    if (result == R_PASS) {
        ref_speed *s = &d->cub[kind][kind == CASE_ARGMAX ? 0 : (int)op];
        s->gbs = row_gbs(&r);
        s->host_gbs = row_host_gbs(&r);
    }
#else
    (void)st, (void)o, (void)d, (void)kind, (void)op, (void)opname;
#endif
}

void bench_copy_peak(bench_state *st, const bench_opts *o, size_t peak_bytes)
{
    int peak_reps = o->reps < 5 ? 5 : o->reps;
    int peak_cuda = st->cuda_ok && (st->is_cuda || !st->ocl);
    st->copy_peak_gbs = bench_device_copy(st, peak_cuda, NULL, peak_bytes, 1, peak_reps, "copy_peak", "bytes",
                                          peak_bytes);
    st->copy_peak_src = peak_cuda ? "cudaMemcpy_d2d" : "clEnqueueCopyBuffer";
    if (st->host_refs) {
        unsigned char *a = malloc(peak_bytes), *b = malloc(peak_bytes);
        if (a && b) {
            memset(a, 1, peak_bytes);
            memset(b, 2, peak_bytes);
            double t[MAX_REPS];
            br_omp_copy(b, a, peak_bytes);
            for (int k = 0; k < peak_reps; ++k) {
                double t0 = bench_now();
                br_omp_copy(b, a, peak_bytes);
                t[k] = bench_now() - t0;
            }
            row_t r = {"ref", "copy_peak", "bytes", "omp_copy", peak_bytes, 2.0 * (double)peak_bytes, 1, peak_reps,
                       {0, 0, 0, 0}, "host_clock", R_REF, 0, NULL, 0, 0, ""};
            host_only(&r.t, t, peak_reps);
            double g = row_gbs(&r);
            if (g > st->copy_peak_gbs) {
                st->copy_peak_gbs = g;
                st->copy_peak_src = "omp_copy";
            }
            bench_report(st, &r);
        }
        free(a);
        free(b);
    }
    if (st->cub && !st->is_cuda && st->ocl) /* CUB's ceiling next to the OpenCL one */
        bench_device_copy(st, 1, NULL, peak_bytes, 1, peak_reps, "copy_peak", "bytes", peak_bytes);
}
