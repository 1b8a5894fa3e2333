/* redscan_mpi_argmin / _argmax / _topk: each rank's best k (redscan_argmin / _argmax / _topk of its part, indices
 * made global), one MPI_Allgather of the candidates with every rank's status, and a merge on the host in the exact
 * order of redscan_topk. The order is total (NaN first, then by value, ties by the lower index), so which rank
 * held an element never changes the result (docs/DISTRIBUTED.md "argmin, argmax, top-k"). */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

typedef struct {
    uint64_t index;
    rsm_value value;
} cand;

/* Every rank's block in the Allgather: its status, how many candidates, then k candidates (best first). */
typedef struct {
    int64_t status, count;
} block_head;

static redscan_status check_local(rsm_call *c, redscan_ctx *ctx, redscan_dtype dtype, const redscan_buffer *in,
                                  size_t n_local, const void *index_or_values, const char *what)
{
    if (!ctx) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", c->fn);
    const size_t esize = redscan_dtype_size(dtype);
    if (esize == 0)
        return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'dtype' has unknown value %d", c->fn,
                        (int)dtype);
    if (!index_or_values) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", c->fn, what);
    if (n_local > 0 && !in) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'in' is NULL", c->fn);
    if (in && n_local > redscan_buffer_size(in) / esize)
        return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT,
                        "%s: argument 'n_local' = %zu is more than 'in' holds (%zu bytes: %zu elements of %s)", c->fn,
                        n_local, redscan_buffer_size(in), redscan_buffer_size(in) / esize, redscan_dtype_name(dtype));
    return REDSCAN_OK;
}

/* The local best kl of this rank, then the gather and the merge into the best k of all. */
static redscan_status select_global(rsm_call *c, redscan_dtype dtype, int largest, const redscan_buffer *in, size_t k,
                                    void *values, uint64_t *indices, int arg)
{
    const size_t esize = redscan_dtype_size(dtype);
    const uint64_t n = c->counts[c->rank], kl = n < k ? n : k;
    const size_t stride = sizeof(block_head) + k * sizeof(cand);
    char *mine = calloc(1, stride), *all = malloc(stride * (size_t)c->size);
    char *vals = malloc(k * esize + 1);
    uint64_t *idx = malloc(k * sizeof *idx);
    size_t *next = malloc((size_t)c->size * sizeof *next);
    /* host memory first, agreed, so that every rank can take part in the gather below */
    redscan_status st = rsm_agree(c, mine && all && vals && idx && next
                                         ? REDSCAN_OK
                                         : rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn));
    if (st != REDSCAN_OK) goto done;
    if (kl) {
        if (arg)
            st = largest ? redscan_argmax(c->ctx, dtype, in, n, idx, vals) : redscan_argmin(c->ctx, dtype, in, n, idx, vals);
        else
            st = redscan_topk(c->ctx, dtype, in, n, kl, largest, vals, idx);
    }
    block_head *h = (block_head *)mine;
    cand *cs = (cand *)(mine + sizeof *h);
    h->status = st;
    h->count = st == REDSCAN_OK ? (int64_t)kl : 0;
    for (uint64_t i = 0; i < (uint64_t)h->count; i++) {
        cs[i].index = idx[i] + c->offsets[c->rank];
        memcpy(cs[i].value.bytes, vals + i * esize, esize);
    }
    /* one collective carries the candidates and the statuses: a rank that failed sends its status in place of its
     * candidates, so every rank sees it and nobody waits for a message that will not come */
    MPI_Allgather(mine, (int)stride, MPI_BYTE, all, (int)stride, MPI_BYTE, c->comm);
    redscan_status worst = REDSCAN_OK;
    int who = -1;
    for (int q = 0; q < c->size; q++) {
        const block_head *h = (const block_head *)(all + stride * (size_t)q);
        if (h->status != REDSCAN_OK && who < 0) {
            worst = (redscan_status)h->status;
            who = q;
        }
    }
    st = rsm_adopt(c, st, worst, who);
    if (st == REDSCAN_OK) { /* P-way merge of lists sorted best first */
        memset(next, 0, (size_t)c->size * sizeof *next);
        for (size_t i = 0; i < k; i++) {
            int best = -1;
            const cand *bc = NULL;
            for (int q = 0; q < c->size; q++) {
                const block_head *h = (const block_head *)(all + stride * (size_t)q);
                if (next[q] >= (size_t)h->count) continue;
                const cand *cq = (const cand *)(all + stride * (size_t)q + sizeof *h) + next[q];
                if (!bc || rsm_before(dtype, largest, cq->value.bytes, cq->index, bc->value.bytes, bc->index)) {
                    best = q;
                    bc = cq;
                }
            }
            next[best]++;
            memcpy(vals + i * esize, bc->value.bytes, esize);
            idx[i] = bc->index;
        }
        if (values) memcpy(values, vals, k * esize);
        if (indices) memcpy(indices, idx, k * sizeof *idx);
    }
done:
    free(mine);
    free(all);
    free(vals);
    free(idx);
    free(next);
    return st;
}

static redscan_status argext(redscan_ctx *ctx, MPI_Comm comm, redscan_dtype dtype, const redscan_buffer *in,
                             size_t n_local, uint64_t *global_index, void *value, int largest, const char *fn)
{
    rsm_call c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.fn = fn;
    redscan_status st = check_local(&c, ctx, dtype, in, n_local, global_index, "global_index");
    rsm_sig sig = {0};
    rsm_sig_add(&sig, "function", largest ? RSM_FN_ARGMAX : RSM_FN_ARGMIN);
    rsm_sig_add(&sig, "dtype", (int64_t)dtype);
    st = rsm_enter(&c, ctx, comm, fn, st, &sig, n_local);
    if (st == REDSCAN_OK && c.total == 0)
        st = rsm_fail(&c, REDSCAN_ERR_INVALID_ARGUMENT,
                      "%s: the global array is empty (n_local is 0 on every rank): the %s of nothing is undefined", fn,
                      largest ? "argmax" : "argmin");
    if (st == REDSCAN_OK) st = select_global(&c, dtype, largest, in, 1, value, global_index, 1);
    rsm_leave(&c);
    return st;
}

redscan_status redscan_mpi_argmin(redscan_ctx *ctx, MPI_Comm comm, redscan_dtype dtype, const redscan_buffer *in,
                                  size_t n_local, uint64_t *global_index, void *value)
{
    return argext(ctx, comm, dtype, in, n_local, global_index, value, 0, "redscan_mpi_argmin");
}

redscan_status redscan_mpi_argmax(redscan_ctx *ctx, MPI_Comm comm, redscan_dtype dtype, const redscan_buffer *in,
                                  size_t n_local, uint64_t *global_index, void *value)
{
    return argext(ctx, comm, dtype, in, n_local, global_index, value, 1, "redscan_mpi_argmax");
}

redscan_status redscan_mpi_topk(redscan_ctx *ctx, MPI_Comm comm, redscan_dtype dtype, const redscan_buffer *in,
                                size_t n_local, size_t k, int largest, void *values, uint64_t *global_indices)
{
    static const char fn[] = "redscan_mpi_topk";
    rsm_call c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.fn = fn;
    redscan_status st = check_local(&c, ctx, dtype, in, n_local, values, "values");
    if (st == REDSCAN_OK && (k == 0 || k > REDSCAN_TOPK_MAX))
        st = rsm_fail(&c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'k' = %zu is outside 1 .. %d", fn, k,
                      REDSCAN_TOPK_MAX);
    if (st == REDSCAN_OK && largest != 0 && largest != 1)
        st = rsm_fail(&c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'largest' must be 0 or 1 (got %d)", fn, largest);
    rsm_sig sig = {0};
    rsm_sig_add(&sig, "function", RSM_FN_TOPK);
    rsm_sig_add(&sig, "dtype", (int64_t)dtype);
    rsm_sig_add(&sig, "k", (int64_t)k);
    rsm_sig_add(&sig, "largest", (int64_t)largest);
    st = rsm_enter(&c, ctx, comm, fn, st, &sig, n_local);
    if (st == REDSCAN_OK && k > c.total)
        st = rsm_fail(&c, REDSCAN_ERR_INVALID_ARGUMENT,
                      "%s: argument 'k' = %zu is more than the global array holds (%llu elements)", fn, k,
                      (unsigned long long)c.total);
    if (st == REDSCAN_OK) st = select_global(&c, dtype, largest, in, k, values, global_indices, 0);
    rsm_leave(&c);
    return st;
}
