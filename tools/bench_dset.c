/* redscan bench: the data of one (n, dtype): deterministic host inputs, redscan's device buffers (or wrappers of
 * CUB's CUDA memory), the rotation over identical buffers that keeps repeated runs out of the L2 cache, the host
 * rotation for the C loops, and the references every result is checked against (computed once, on first use). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"

#ifdef REDSCAN_BENCH_CUDA
#include "cub_compare.h"
#endif

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static void human_bytes(double b, char *buf, size_t len)
{
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, len, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        snprintf(buf, len, "%.1f MiB", b / (1024.0 * 1024));
    else
        snprintf(buf, len, "%.0f KiB", b / 1024.0);
}


/* Buffers to cycle over so that a size's working set is at least twice the L2 (at most NBUF_MAX). */
static int rotation_buffers(const bench_state *st, size_t bytes)
{
    if (!st->rotate)
        return 1;
    double want = 2.0 * st->l2_bytes;
    if ((double)bytes >= want)
        return 1;
    double k = ceil(want / (double)bytes);
    return k > NBUF_MAX ? NBUF_MAX : (int)k;
}

void dset_init(const bench_state *st, const bench_opts *o, dset *d, redscan_dtype dt, size_t n)
{
    memset(d, 0, sizeof *d);
    d->dt = dt;
    d->dtname = redscan_dtype_name(dt);
    d->n = n;
    d->sz = redscan_dtype_size(dt);
    d->bytes = n * d->sz;
    d->stride = round_up(d->bytes, 4096);
    d->nbuf = rotation_buffers(st, d->bytes);
    d->need_prd = bench_op_on(o, REDSCAN_PROD) && (o->do_reduce || o->do_scan);
    d->need_out = o->do_scan;
}

const bd_ref *dset_red_ref(dset *d, redscan_op op)
{
    if (!d->have_red_ref[op]) {
        bd_ref_reduce(&d->red_ref[op], op, d->dt, op == REDSCAN_PROD ? d->prd : d->gen, d->n);
        d->have_red_ref[op] = 1;
    }
    return &d->red_ref[op];
}

size_t dset_argmax_ref(dset *d)
{
    if (!d->have_argmax) {
        d->argmax_ref = bd_argmax(d->gen, d->dt, d->n);
        d->have_argmax = 1;
    }
    return d->argmax_ref;
}

const size_t *dset_top2_ref(dset *d)
{
    if (!d->have_top2) {
        bd_top2(d->gen, d->dt, d->n, d->top2_ref);
        d->have_top2 = 1;
    }
    return d->top2_ref;
}

/* Outputs with the bits of one already verified pass at once (integer scans and min/max give the same bits for every
 * algorithm; float sums the same bits per block algorithm). */
int dset_verify_scan_output(dset *d, redscan_op op, int exclusive, char *detail)
{
    uint64_t h = bd_hash(d->hout, d->bytes);
    for (int i = 0; i < d->n_ok_hash[op]; ++i)
        if (d->ok_hash[op][i] == h)
            return R_PASS;
    const void *in = op == REDSCAN_PROD ? d->prd : d->gen;
    if (bd_check_scan(op, d->dt, exclusive, in, d->hout, d->n, detail, DETAIL_MAX))
        return R_FAIL;
    if (d->n_ok_hash[op] < MAX_OK_HASH)
        d->ok_hash[op][d->n_ok_hash[op]++] = h;
    return R_PASS;
}

/* Destroy redscan's buffers of d (wrappers only, when wrapped). */
static void free_sets(bench_state *st, dset *d)
{
    for (int k = 0; k < 3; ++k) {
        redscan_buffer **set = k == 0 ? d->dgen : k == 1 ? d->dprd : d->dout;
        if (!set)
            continue;
        for (int i = 0; i < d->nbuf; ++i)
            if (set[i])
                redscan_buffer_destroy(st->ctx, set[i]);
        free(set);
    }
    d->dgen = d->dprd = d->dout = NULL;
}

void dset_free(bench_state *st, dset *d)
{
    free_sets(st, d);
#ifdef REDSCAN_BENCH_CUDA
    rsb_cuda_free(d->cgen);
    rsb_cuda_free(d->cprd);
    rsb_cuda_free(d->cout);
#endif
    free(d->gen);
    free(d->prd);
    free(d->hout);
    free(d->rgen);
    free(d->rprd);
    free(d->rout);
    d->cgen = d->cprd = d->cout = NULL;
    d->gen = d->prd = d->hout = NULL;
    d->rgen = d->rprd = d->rout = NULL;
}

/* Device and host memory this (n, dtype) needs. */
int dset_fits(const bench_state *st, const dset *d, char *why, size_t len)
{
    double set = (double)d->stride * d->nbuf;
    int sets = 1 + d->need_prd + d->need_out;
    double dev = 0;
    if (!st->wrap)
        dev += set * sets; /* redscan's own buffers */
    if (st->cub)
        dev += set * (1 + d->need_prd + 1); /* CUB's (on the OpenCL backend: a second copy on the same GPU) */
    if (!st->wrap)
        dev += 2 * set; /* the copy reference's own buffers */
    double host = (double)d->bytes * (2 + d->need_prd) + (st->host_refs ? set * sets : 0);
    char a[32], b[32];
    if (st->dev_mem && dev > 0.85 * (double)st->dev_mem) {
        human_bytes(dev, a, sizeof a);
        human_bytes((double)st->dev_mem, b, sizeof b);
        snprintf(why, len, "needs about %s of device memory; the device has %s", a, b);
        return 1;
    }
    if (st->dev_max_alloc && (double)d->bytes > (double)st->dev_max_alloc) {
        human_bytes((double)d->bytes, a, sizeof a);
        human_bytes((double)st->dev_max_alloc, b, sizeof b);
        snprintf(why, len, "one buffer of %s exceeds the device's largest allocation (%s)", a, b);
        return 1;
    }
    if (st->host_mem && host > 0.7 * (double)st->host_mem) {
        human_bytes(host, a, sizeof a);
        human_bytes((double)st->host_mem, b, sizeof b);
        snprintf(why, len, "needs about %s of host memory; the host has %s", a, b);
        return 1;
    }
    return 0;
}

int dset_alloc(bench_state *st, dset *d, char *detail, int *oom)
{
    *oom = 0;
    d->gen = malloc(d->bytes);
    d->prd = d->need_prd ? malloc(d->bytes) : NULL;
    d->hout = malloc(d->bytes);
    if (!d->gen || (d->need_prd && !d->prd) || !d->hout) {
        snprintf(detail, DETAIL_MAX, "host allocation of %zu bytes failed", d->bytes);
        *oom = 1;
        return 1;
    }
    if (!st->tty) {
        fflush(stdout);
        fprintf(stderr, "[bench %5.0fs] n=%zu %s: preparing %d buffer%s of %zu bytes\n", bench_now() - st->t_start,
                d->n, d->dtname, d->nbuf, d->nbuf == 1 ? "" : "s", d->bytes);
        fflush(stderr);
    }
    bd_generate(d->dt, d->n, d->gen, d->prd);

#ifdef REDSCAN_BENCH_CUDA
    if (st->cub) {
        char err[512];
        size_t total = d->stride * (size_t)d->nbuf;
        for (int k = 0; k < 3; ++k) {
            if (k == 1 && !d->need_prd)
                continue;
            void **region = k == 0 ? &d->cgen : k == 1 ? &d->cprd : &d->cout;
            *region = rsb_cuda_alloc(total, err, sizeof err);
            if (!*region) {
                snprintf(detail, DETAIL_MAX, "CUDA memory for CUB: %s", err);
                *oom = 1;
                return 1;
            }
            if (k == 2)
                continue;
            const void *src = k == 0 ? d->gen : d->prd;
            for (int i = 0; i < d->nbuf; ++i)
                if (rsb_cuda_upload((char *)*region + (size_t)i * d->stride, src, d->bytes, err, sizeof err)) {
                    snprintf(detail, DETAIL_MAX, "%s", err);
                    return 1;
                }
        }
    }
#endif

    for (int k = 0; k < 3; ++k) {
        if ((k == 1 && !d->need_prd) || (k == 2 && !d->need_out))
            continue;
        redscan_buffer ***set = k == 0 ? &d->dgen : k == 1 ? &d->dprd : &d->dout;
        *set = calloc((size_t)d->nbuf, sizeof **set);
        if (!*set) {
            snprintf(detail, DETAIL_MAX, "host allocation failed");
            return 1;
        }
        const void *src = k == 0 ? d->gen : k == 1 ? d->prd : NULL;
        for (int i = 0; i < d->nbuf; ++i) {
            redscan_status s;
            if (st->wrap) {
                char *region = k == 0 ? d->cgen : k == 1 ? d->cprd : d->cout;
                s = redscan_buffer_wrap_cuda(st->ctx, region + (size_t)i * d->stride, d->bytes, &(*set)[i]);
                if (s != REDSCAN_OK) {
                    /* keep the run going: redscan on buffers of its own from here on, and say so */
                    char e[DETAIL_MAX];
                    bench_status_detail(st->ctx, s, e);
                    bench_progress_clear(st);
                    printf("note: redscan_buffer_wrap_cuda failed (%.1900s); redscan uses device buffers of its own "
                           "from here on, CUB its own\n",
                           e);
                    st->wrap = 0;
                    free_sets(st, d);
                    k = -1; /* start the sets again, now with redscan's own buffers */
                    break;
                }
            } else {
                s = redscan_buffer_create(st->ctx, d->bytes, &(*set)[i]);
                if (s == REDSCAN_OK && src)
                    s = redscan_buffer_write(st->ctx, (*set)[i], 0, src, d->bytes);
            }
            if (s != REDSCAN_OK) {
                char e[DETAIL_MAX];
                bench_status_detail(st->ctx, s, e);
                snprintf(detail, DETAIL_MAX, "device buffer %d of %d (%zu bytes): %.1900s", i + 1, d->nbuf, d->bytes,
                         e);
                *oom = s == REDSCAN_ERR_OUT_OF_MEMORY;
                return 1;
            }
        }
    }

    if (st->host_refs) {
        size_t total = d->stride * (size_t)d->nbuf;
        d->rgen = malloc(total);
        d->rprd = d->need_prd ? malloc(total) : NULL;
        d->rout = d->need_out ? malloc(total) : NULL;
        if (!d->rgen || (d->need_prd && !d->rprd) || (d->need_out && !d->rout)) {
            snprintf(detail, DETAIL_MAX, "host allocation of the C loops' rotation (%zu bytes) failed", total);
            *oom = 1;
            return 1;
        }
        for (int i = 0; i < d->nbuf; ++i) {
            memcpy(d->rgen + (size_t)i * d->stride, d->gen, d->bytes);
            if (d->rprd)
                memcpy(d->rprd + (size_t)i * d->stride, d->prd, d->bytes);
        }
        if (d->rout)
            memset(d->rout, 0, total);
    }
    return 0;
}
