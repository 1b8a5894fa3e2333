/* redscan_mpi_scan: the AUTO scan (coarsened block, single_pass's order) over a distributed array. Sections of
 * RSM_SECTION global indices; each rank computes the totals S[j] of the sections starting on it (the one straddling
 * into later ranks from a small buffer X = its tail + their heads), the carries P[j] of single_pass's chain
 * (docs/ALGORITHMS.md "Grid level") are passed rank to rank as a small state, and redscan_scan_with_carries writes
 * out = P[j] ⊕ L[i]; the results of the heads go back to their ranks (docs/DISTRIBUTED.md "Scan"). */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static const char fn[] = "redscan_mpi_scan";

#define GROUP 32 /* sections per group of the chain */

/* The chain's state between sections: A = A(g-1) of the open group g, W = S[32g] ⊕ ... ⊕ S[j-1] (meaningful when
 * section j is not the first of its group). */
typedef struct {
    rsm_value a, w;
} chain;

static redscan_status check_local(rsm_call *c, redscan_ctx *ctx, const redscan_scan_desc *desc,
                                  const redscan_buffer *in, redscan_buffer *out, size_t n_local)
{
    if (!ctx) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    if (!desc) return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'desc' is NULL", fn);
    if ((desc->block != REDSCAN_BLOCK_AUTO && desc->block != REDSCAN_BLOCK_COARSENED) || desc->grid != REDSCAN_GRID_AUTO)
        return rsm_fail(c, REDSCAN_ERR_UNSUPPORTED,
                        "%s: desc->block = %s and desc->grid = %s; the distributed scan runs the AUTO scan only "
                        "(coarsened block, single_pass's order: block AUTO or COARSENED, grid AUTO)",
                        fn, redscan_block_scan_name(desc->block), redscan_grid_scan_name(desc->grid));
    /* the public API's rules for everything else: a scan of n = 0 checks and does nothing */
    redscan_status st = redscan_scan_ex(ctx, desc, in, out, 0);
    if (st != REDSCAN_OK) return st;
    const redscan_dtype od = desc->out_dtype ? desc->out_dtype : desc->dtype;
    const size_t isize = redscan_dtype_size(desc->dtype), osize = redscan_dtype_size(od);
    if (n_local > redscan_buffer_size(in) / isize || n_local > redscan_buffer_size(out) / osize)
        return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT,
                        "%s: argument 'n_local' = %zu is more than '%s' holds (%zu bytes)", fn, n_local,
                        n_local > redscan_buffer_size(in) / isize ? "in" : "out",
                        n_local > redscan_buffer_size(in) / isize ? redscan_buffer_size(in) : redscan_buffer_size(out));
    return REDSCAN_OK;
}

/* The carries of this rank's m sections (global indices j0 ..), given the totals S and the state before section j0;
 * *after = the state after the last one. The work that needs no incoming state (the folds inside groups that start
 * here) is done by prepare() before the state arrives; finish() then runs the chain over the groups. */
typedef struct {
    redscan_op op;
    redscan_dtype t;
    uint64_t j0, m;
    const rsm_value *s;
    rsm_value *w;   /* w[i]: S[32g] ⊕ ... ⊕ S[j-1] inside a group starting here (i >= lead, p > 0) */
    rsm_value *tg;  /* tg[i], i the first local index of a group starting here: the fold of its sections here */
    uint64_t lead;  /* leading sections that belong to the group open on arrival */
} plan;

static void prepare(plan *p)
{
    const uint64_t p0 = p->j0 % GROUP;
    p->lead = p0 ? (p->m < GROUP - p0 ? p->m : GROUP - p0) : 0;
    for (uint64_t i = p->lead; i < p->m; i += GROUP) {
        rsm_value w = p->s[i];
        const uint64_t end = i + GROUP < p->m ? i + GROUP : p->m;
        for (uint64_t k = i + 1; k < end; k++) {
            p->w[k] = w;
            w = rsm_combine(p->op, p->t, w, p->s[k]);
        }
        p->tg[i] = w; /* T(g) of a whole group; of the group still open at this rank's end, its W so far */
    }
}

/* carries[i] = P[j0 + i]; returns the state after the last section. */
static chain finish(const plan *p, chain in, rsm_value *carries)
{
    chain st = in;
    const uint64_t p0 = p->j0 % GROUP;
    for (uint64_t i = 0; i < p->lead; i++) { /* the group that began on an earlier rank: folds from W */
        carries[i] = rsm_combine(p->op, p->t, st.a, st.w);
        st.w = rsm_combine(p->op, p->t, st.w, p->s[i]);
        if ((p0 + i) % GROUP == GROUP - 1) st.a = rsm_combine(p->op, p->t, st.a, st.w); /* A(g) = A(g-1) ⊕ T(g) */
    }
    for (uint64_t i = p->lead; i < p->m; i += GROUP) {
        const uint64_t end = i + GROUP < p->m ? i + GROUP : p->m;
        carries[i] = st.a;
        for (uint64_t k = i + 1; k < end; k++) carries[k] = rsm_combine(p->op, p->t, st.a, p->w[k]);
        if (end - i == GROUP)
            st.a = rsm_combine(p->op, p->t, st.a, p->tg[i]);
        else
            st.w = p->tg[i];
    }
    return st;
}

/* The state from rank - 1 (rank 0: A(-1) = init), the carries, the state to rank + 1: a pipeline of size - 1 hops of
 * one small message each; every rank forwards, empty ones too. */
static void run_chain(rsm_call *c, const plan *p, rsm_value init, rsm_value *carries)
{
    chain st;
    memset(&st, 0, sizeof st);
    st.a = init;
    if (c->rank > 0) MPI_Recv(&st, (int)sizeof st, MPI_BYTE, c->rank - 1, RSM_TAG_CHAIN, c->comm, MPI_STATUS_IGNORE);
    st = finish(p, st, carries);
    if (c->rank + 1 < c->size) MPI_Send(&st, (int)sizeof st, MPI_BYTE, c->rank + 1, RSM_TAG_CHAIN, c->comm);
}

static redscan_status write_values(rsm_call *c, const rsm_value *v, uint64_t count, size_t tsize, redscan_buffer **buf)
{
    char *h = malloc(count * tsize + 1);
    if (!h) return rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    for (uint64_t i = 0; i < count; i++) memcpy(h + i * tsize, v[i].bytes, tsize);
    redscan_status st = rsm_buffer(c, count * tsize, buf);
    if (st == REDSCAN_OK) st = redscan_buffer_write(c->ctx, *buf, 0, h, count * tsize);
    free(h);
    return st;
}

static redscan_status read_values(rsm_call *c, const redscan_buffer *buf, uint64_t count, size_t tsize, rsm_value *v)
{
    char *h = malloc(count * tsize + 1);
    if (!h) return rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    redscan_status st = redscan_buffer_read(c->ctx, buf, 0, h, count * tsize);
    for (uint64_t i = 0; st == REDSCAN_OK && i < count; i++) {
        memset(&v[i], 0, sizeof v[i]);
        memcpy(v[i].bytes, h + i * tsize, tsize);
    }
    free(h);
    return st;
}

static redscan_status scan(rsm_call *c, const redscan_scan_desc *desc, const redscan_buffer *in, redscan_buffer *out)
{
    const redscan_dtype od = desc->out_dtype ? desc->out_dtype : desc->dtype, t = rsm_compute_dtype(od);
    const size_t isize = redscan_dtype_size(desc->dtype), osize = redscan_dtype_size(od), tsize = redscan_dtype_size(t);
    rsm_split s;
    rsm_split_of(c->offsets, c->counts, c->size, c->rank, c->total, RSM_SECTION, &s);
    const uint64_t m = s.blocks, complete = m - (uint64_t)s.straddle;
    const uint64_t span = complete ? (s.head + complete * RSM_SECTION < s.c ? complete * RSM_SECTION : s.c - s.head) : 0;
    redscan_buffer *x = NULL, *xout = NULL, *totals = NULL, *xtotal = NULL, *carries = NULL, *xcarry = NULL;
    rsm_value *sv = calloc(3 * m + 1, sizeof *sv);
    plan p = {desc->op, t, s.first_block, m, sv, sv + m, sv + 2 * m, 0};
    rsm_value *cv = calloc(m + 1, sizeof *cv);
    redscan_status st = sv && cv ? REDSCAN_OK : rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);

    /* X: the straddling section (this rank's tail first; the heads arrive below). Copied before anything is written,
     * so that an in-place scan reads its input. */
    if (st == REDSCAN_OK && s.straddle) {
        st = rsm_buffer(c, s.xlen * isize, &x);
        if (st == REDSCAN_OK) st = rsm_buffer(c, s.xlen * osize, &xout);
        if (st == REDSCAN_OK) st = rsm_copy(c, in, s.c - s.tail, x, 0, s.tail, isize);
    }
    st = rsm_heads_to_owner(c, st, &s, in, x, isize); /* agrees on st first */
    /* the totals S of this rank's sections, read to the host (m values: local, not communication) */
    if (st == REDSCAN_OK && complete) {
        st = rsm_buffer(c, complete * tsize, &totals);
        if (st == REDSCAN_OK) st = redscan_scan_section_totals(c->ctx, desc, in, s.head, span, totals);
        if (st == REDSCAN_OK) st = read_values(c, totals, complete, tsize, sv);
    }
    if (st == REDSCAN_OK && s.straddle) {
        st = rsm_buffer(c, tsize, &xtotal);
        if (st == REDSCAN_OK) st = redscan_scan_section_totals(c->ctx, desc, x, 0, s.xlen, xtotal);
        if (st == REDSCAN_OK) st = read_values(c, xtotal, 1, tsize, sv + complete);
    }
    if (st == REDSCAN_OK) prepare(&p);
    st = rsm_agree(c, st); /* the chain below has no failure point: every rank forwards */
    if (st == REDSCAN_OK) {
        const rsm_value init = desc->init ? rsm_load(od, desc->init) : rsm_identity(desc->op, t);
        run_chain(c, &p, init, cv);
    }
    /* out = P[j] ⊕ L[i]: the complete sections in place in out, X into xout */
    if (st == REDSCAN_OK && complete) {
        st = write_values(c, cv, complete, tsize, &carries);
        if (st == REDSCAN_OK) st = redscan_scan_with_carries(c->ctx, desc, in, s.head, out, s.head, span, carries);
    }
    if (st == REDSCAN_OK && s.straddle) {
        st = write_values(c, cv + complete, 1, tsize, &xcarry);
        if (st == REDSCAN_OK) st = redscan_scan_with_carries(c->ctx, desc, x, 0, xout, 0, s.xlen, xcarry);
        if (st == REDSCAN_OK) st = rsm_copy(c, xout, 0, out, s.c - s.tail, s.tail, osize);
    }
    if (st == REDSCAN_OK) st = redscan_synchronize(c->ctx);
    if (st == REDSCAN_OK)
        st = rsm_heads_back(c, &s, xout, out, osize); /* agrees first; then writes the results it received */
    else
        st = rsm_agree(c, st);
    st = rsm_agree(c, st); /* that last write, so that every rank returns the same status */
    redscan_buffer *bufs[] = {x, xout, totals, xtotal, carries, xcarry};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) redscan_buffer_destroy(c->ctx, bufs[i]);
    free(sv);
    free(cv);
    return st;
}

redscan_status redscan_mpi_scan(redscan_ctx *ctx, MPI_Comm comm, const redscan_scan_desc *desc,
                                const redscan_buffer *in, redscan_buffer *out, size_t n_local)
{
    rsm_call c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.fn = fn;
    redscan_status st = check_local(&c, ctx, desc, in, out, n_local);
    const redscan_dtype od = st == REDSCAN_OK ? (desc->out_dtype ? desc->out_dtype : desc->dtype) : 0;
    rsm_value init;
    memset(&init, 0, sizeof init);
    if (st == REDSCAN_OK && desc->init) memcpy(init.bytes, desc->init, redscan_dtype_size(od));
    rsm_sig sig = {0};
    rsm_sig_add(&sig, "function", RSM_FN_SCAN);
    rsm_sig_add(&sig, "desc->op", desc ? (int64_t)desc->op : -1);
    rsm_sig_add(&sig, "desc->dtype", desc ? (int64_t)desc->dtype : -1);
    rsm_sig_add(&sig, "desc->out_dtype", (int64_t)od);
    rsm_sig_add(&sig, "desc->exclusive", desc ? (int64_t)desc->exclusive : -1);
    rsm_sig_add(&sig, "desc->init given", desc ? desc->init != NULL : -1);
    rsm_sig_add(&sig, "desc->init (low 32 bits)", (int64_t)(init.u64 & 0xffffffffu));
    rsm_sig_add(&sig, "desc->init (high 32 bits)", (int64_t)(init.u64 >> 32));
    rsm_sig_add(&sig, "desc->flags", desc ? (int64_t)desc->flags : -1);
    st = rsm_enter(&c, ctx, comm, fn, st, &sig, n_local);
    if (st == REDSCAN_OK && c.total > 0) st = scan(&c, desc, in, out);
    rsm_leave(&c);
    return st;
}
