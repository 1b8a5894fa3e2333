/* redscan_mpi_reduce: the coarsened reduction over a distributed array, level by level on global tile indices, so
 * that every partial is the single-process partial of the same tile (docs/DISTRIBUTED.md "Reduce"). */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static const char fn[] = "redscan_mpi_reduce";

/* The local check, with the public API's own rules: redscan_reduce_ex of n = 0 checks the context, the descriptor and
 * `in` without touching the device (its result goes to a scratch value, never to the caller's). */
static redscan_status check_local(redscan_ctx *ctx, rsm_call *c, const redscan_reduce_desc *desc,
                                  const redscan_buffer *in, size_t n_local, const void *result)
{
    if (!ctx) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    if (!desc) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc' is NULL", fn);
    if (!result) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'result' is NULL", fn);
    if (desc->algo != REDSCAN_REDUCE_AUTO && desc->algo != REDSCAN_REDUCE_COARSENED)
        return rsm_fail(c, REDSCAN_ERR_UNSUPPORTED,
                        "%s: argument 'desc->algo' is %d (%s); the distributed reduction runs the coarsened algorithm "
                        "only (pass AUTO or COARSENED)",
                        fn, (int)desc->algo, redscan_reduce_algo_name(desc->algo));
    redscan_reduce_desc d = *desc;
    d.algo = REDSCAN_REDUCE_COARSENED;
    rsm_value scratch;
    redscan_status st = redscan_reduce_ex(ctx, &d, in, 0, &scratch);
    if (st != REDSCAN_OK) return st;
    const size_t esize = redscan_dtype_size(desc->dtype);
    if (n_local > redscan_buffer_size(in) / esize)
        return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT,
                        "%s: argument 'n_local' = %zu is more than 'in' holds (%zu bytes: %zu elements of %s)", fn,
                        n_local, redscan_buffer_size(in), redscan_buffer_size(in) / esize,
                        redscan_dtype_name(desc->dtype));
    return REDSCAN_OK;
}

/* One level: this rank's tiles of `cur` (the level's array, its elements of dtype `in_t`) reduced into `next` (one
 * value of t per tile starting here, in tile order). Complete tiles: one redscan_segmented_reduce with segments at the
 * tile starts; the tile that straddles into later ranks: its tail here plus their heads, reduced alone. A segment or
 * a reduction of at most one tile is exactly that tile's partial. */
static redscan_status level(rsm_call *c, const uint64_t *off, const uint64_t *cnt, uint64_t total,
                            const redscan_buffer *cur, redscan_dtype in_t, redscan_op op, redscan_dtype t,
                            redscan_buffer **next_out)
{
    rsm_split s;
    rsm_split_of(off, cnt, c->size, c->rank, total, RSM_TILE, &s);
    const size_t isize = redscan_dtype_size(in_t), tsize = redscan_dtype_size(t);
    const redscan_reduce_desc d = {op, in_t, t, REDSCAN_REDUCE_COARSENED, 0};
    redscan_buffer *x = NULL, *offs = NULL, *next = NULL;
    redscan_status st = rsm_buffer(c, s.blocks * tsize, &next); /* one value per tile starting here */
    *next_out = next;
    if (st == REDSCAN_OK && s.straddle) {
        st = rsm_buffer(c, s.xlen * isize, &x);
        if (st == REDSCAN_OK) st = rsm_copy(c, cur, s.c - s.tail, x, 0, s.tail, isize);
    }
    st = rsm_heads_to_owner(c, st, &s, cur, x, isize); /* agrees on st first */
    const uint64_t complete = s.blocks - (uint64_t)s.straddle;
    if (st == REDSCAN_OK && complete) {
        uint64_t *o = malloc((complete + 1) * sizeof *o);
        if (!o) st = rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        for (uint64_t i = 0; o && i <= complete; i++) {
            const uint64_t at = s.head + i * RSM_TILE;
            o[i] = at < s.c ? at : s.c;
        }
        if (st == REDSCAN_OK) st = rsm_buffer(c, (complete + 1) * sizeof *o, &offs);
        if (st == REDSCAN_OK) st = redscan_buffer_write(c->ctx, offs, 0, o, (complete + 1) * sizeof *o);
        if (st == REDSCAN_OK) st = redscan_segmented_reduce(c->ctx, &d, cur, REDSCAN_UINT64, offs, complete, next);
        free(o);
    }
    if (st == REDSCAN_OK && s.straddle) {
        rsm_value v;
        st = redscan_reduce_ex(c->ctx, &d, x, s.xlen, &v);
        if (st == REDSCAN_OK) st = redscan_buffer_write(c->ctx, next, complete * tsize, &v, tsize);
    }
    redscan_buffer_destroy(c->ctx, x);
    redscan_buffer_destroy(c->ctx, offs);
    return rsm_agree(c, st);
}

/* The last pass: the level's array (at most one tile) gathered to rank 0 and reduced there with `d`, the value
 * broadcast with rank 0's status. */
static redscan_status last_pass(rsm_call *c, const uint64_t *cnt, uint64_t total, const redscan_buffer *cur,
                                const redscan_reduce_desc *d, redscan_dtype store_as, rsm_value *out)
{
    const size_t esize = redscan_dtype_size(d->dtype);
    const uint64_t mine = cnt[c->rank];
    char *local = malloc(mine * esize + 1), *all = c->rank == 0 ? malloc(total * esize + 1) : NULL;
    int *counts = c->rank == 0 ? malloc(2 * (size_t)c->size * sizeof *counts) : NULL;
    redscan_status st = local && (c->rank != 0 || (all && counts))
                            ? REDSCAN_OK
                            : rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if (st == REDSCAN_OK && mine) st = redscan_buffer_read(c->ctx, cur, 0, local, mine * esize);
    st = rsm_agree(c, st);
    struct {
        int64_t status;
        rsm_value v;
    } msg = {REDSCAN_OK, {.u64 = 0}};
    if (st == REDSCAN_OK) {
        if (c->rank == 0) {
            int at = 0;
            for (int q = 0; q < c->size; q++) {
                counts[q] = (int)(cnt[q] * esize);
                counts[c->size + q] = at;
                at += counts[q];
            }
        }
        MPI_Gatherv(local, (int)(mine * esize), MPI_BYTE, all, counts, counts ? counts + c->size : NULL, MPI_BYTE, 0,
                    c->comm);
        if (c->rank == 0) {
            redscan_buffer *b = NULL;
            redscan_status r = rsm_buffer(c, total * esize, &b);
            if (r == REDSCAN_OK) r = redscan_buffer_write(c->ctx, b, 0, all, total * esize);
            if (r == REDSCAN_OK) r = redscan_reduce_ex(c->ctx, d, b, total, &msg.v);
            redscan_buffer_destroy(c->ctx, b);
            if (r == REDSCAN_OK && store_as) msg.v = rsm_store(rsm_compute_dtype(store_as), store_as, msg.v);
            msg.status = r;
        }
        MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, c->comm);
        st = rsm_adopt(c, REDSCAN_OK, (redscan_status)msg.status, 0);
        if (c->rank == 0) st = (redscan_status)msg.status;
    }
    free(local);
    free(all);
    free(counts);
    if (st == REDSCAN_OK) *out = msg.v;
    return st;
}

redscan_status redscan_mpi_reduce(redscan_ctx *ctx, MPI_Comm comm, const redscan_reduce_desc *desc,
                                  const redscan_buffer *in, size_t n_local, void *result)
{
    rsm_call c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.fn = fn;
    redscan_status st = check_local(ctx, &c, desc, in, n_local, result);
    const redscan_dtype out_dtype = st == REDSCAN_OK && desc->out_dtype ? desc->out_dtype : desc ? desc->dtype : 0;
    /* every rank's offset and count at each level (host memory for 2 * size values, taken before the entry so that
     * its failure is agreed there) */
    int size = 0;
    MPI_Comm_size(comm, &size);
    uint64_t *level_arrays = malloc(2 * (size_t)(size > 0 ? size : 1) * sizeof *level_arrays);
    if (!level_arrays && st == REDSCAN_OK) st = rsm_fail(&c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    rsm_sig sig = {0};
    rsm_sig_add(&sig, "function", RSM_FN_REDUCE);
    rsm_sig_add(&sig, "desc->op", desc ? (int64_t)desc->op : -1);
    rsm_sig_add(&sig, "desc->dtype", desc ? (int64_t)desc->dtype : -1);
    rsm_sig_add(&sig, "desc->out_dtype", (int64_t)out_dtype);
    rsm_sig_add(&sig, "desc->flags", desc ? (int64_t)desc->flags : -1);
    st = rsm_enter(&c, ctx, comm, fn, st, &sig, n_local);
    if (st != REDSCAN_OK) {
        free(level_arrays);
        rsm_leave(&c);
        return st;
    }

    const redscan_dtype t = rsm_compute_dtype(out_dtype); /* partials: the 32-bit type of a narrow output */
    rsm_value v;
    memset(&v, 0, sizeof v);
    redscan_reduce_desc whole = *desc;
    whole.algo = REDSCAN_REDUCE_COARSENED;
    if (c.total == 0) { /* the reduction of nothing, as redscan_reduce_ex returns it (no device work) */
        st = redscan_reduce_ex(ctx, &whole, in, 0, &v);
    } else if (c.total <= RSM_TILE) { /* one tile: the single-process call itself, on rank 0 */
        st = last_pass(&c, c.counts, c.total, in, &whole, (redscan_dtype)0, &v);
    } else {
        /* level arrays: offsets and counts of every rank (level 1: the input's) */
        uint64_t *off = level_arrays, *cnt = off + c.size;
        const redscan_buffer *cur = in;
        redscan_buffer *owned = NULL;
        redscan_dtype cur_t = desc->dtype;
        uint64_t total = c.total;
        memcpy(off, c.offsets, c.size * sizeof *off);
        memcpy(cnt, c.counts, c.size * sizeof *cnt);
        while (st == REDSCAN_OK && total > RSM_TILE) {
            redscan_buffer *next = NULL;
            st = level(&c, off, cnt, total, cur, cur_t, desc->op, t, &next);
            redscan_buffer_destroy(ctx, owned);
            owned = next;
            cur = next;
            cur_t = t;
            for (int q = 0; q < c.size; q++) { /* the next level: one value per tile, at its tile index */
                const uint64_t first = (off[q] + RSM_TILE - 1) / RSM_TILE;
                cnt[q] = (off[q] + cnt[q] + RSM_TILE - 1) / RSM_TILE - first;
                off[q] = first;
            }
            total = (total + RSM_TILE - 1) / RSM_TILE;
        }
        if (st == REDSCAN_OK) {
            const redscan_reduce_desc d = {desc->op, t, t, REDSCAN_REDUCE_COARSENED, 0};
            st = last_pass(&c, cnt, total, cur, &d, rsm_is_narrow(out_dtype) ? out_dtype : (redscan_dtype)0, &v);
        }
        redscan_buffer_destroy(ctx, owned);
    }
    free(level_arrays);
    if (st == REDSCAN_OK) memcpy(result, v.bytes, redscan_dtype_size(out_dtype));
    rsm_leave(&c);
    return st;
}
