/* Moves of boundary pieces between ranks (at most one block per rank and level): through host memory, or straight
 * from and to device memory when the context runs CUDA and the MPI is CUDA-aware. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

int rsm_device_direct(redscan_ctx *ctx)
{
    const char *b = ctx ? redscan_backend_name(ctx) : NULL;
    return b && strcmp(b, "cuda") == 0 && redscan_mpi_cuda_aware();
}

redscan_status rsm_buffer(rsm_call *c, size_t bytes, redscan_buffer **buf)
{
    *buf = NULL;
    return redscan_buffer_create(c->ctx, bytes ? bytes : 1, buf);
}

redscan_status rsm_copy(rsm_call *c, const redscan_buffer *src, size_t src_elem, redscan_buffer *dst, size_t dst_elem,
                        size_t count, size_t esize)
{
    if (count == 0) return REDSCAN_OK;
    void *h = malloc(count * esize);
    if (!h) return rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn);
    redscan_status st = redscan_buffer_read(c->ctx, src, src_elem * esize, h, count * esize);
    if (st == REDSCAN_OK) st = redscan_buffer_write(c->ctx, dst, dst_elem * esize, h, count * esize);
    free(h);
    return st;
}

/* MPI counts are int: a piece is at most one block (a few KiB), far below. */
static int bytes_of(uint64_t n, size_t esize) { return (int)(n * esize); }

static char *device_at(const redscan_buffer *b, uint64_t elem, size_t esize)
{
    return (char *)redscan_buffer_native(b) + elem * esize;
}

/* The requests of one exchange: this rank's piece and one per rank of [from_first, from_last]; allocated before
 * the agreement, so that no rank fails between agreeing and posting its messages. */
static MPI_Request *requests(const rsm_split *s, MPI_Request *fixed, size_t fixed_n)
{
    const size_t n = 1 + (size_t)(s->from_last >= s->from_first ? s->from_last - s->from_first + 1 : 0);
    return n <= fixed_n ? fixed : malloc(n * sizeof(MPI_Request));
}

redscan_status rsm_heads_to_owner(rsm_call *c, redscan_status st, const rsm_split *s, const redscan_buffer *in,
                                  redscan_buffer *x, size_t esize)
{
    const int direct = rsm_device_direct(c->ctx);
    const uint64_t incoming = s->straddle ? s->xlen - s->tail : 0;
    char *sendbuf = NULL, *recvbuf = NULL;
    MPI_Request fixed[16], *reqs = requests(s, fixed, 16);
    if (!reqs && st == REDSCAN_OK) st = rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn);
    if (st == REDSCAN_OK && !direct && (s->head || incoming)) {
        sendbuf = malloc(s->head * esize + incoming * esize + 1);
        if (!sendbuf) st = rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn);
        recvbuf = sendbuf ? sendbuf + s->head * esize : NULL;
    }
    if (st == REDSCAN_OK && !direct && s->head) st = redscan_buffer_read(c->ctx, in, 0, sendbuf, s->head * esize);
    if (st == REDSCAN_OK && direct) st = redscan_synchronize(c->ctx); /* MPI reads the device memory itself */
    st = rsm_agree(c, st);
    if (st == REDSCAN_OK) {
        int nreq = 0;
        uint64_t at = 0;
        for (int q = s->from_first; q <= s->from_last; q++) { /* consecutive ranks: all of each, the last's head */
            const uint64_t h = s->counts[q] < incoming - at ? s->counts[q] : incoming - at;
            if (h == 0) continue;
            void *dst = direct ? device_at(x, s->tail + at, esize) : recvbuf + at * esize;
            MPI_Irecv(dst, bytes_of(h, esize), MPI_BYTE, q, RSM_TAG_HEAD, c->comm, &reqs[nreq++]);
            at += h;
        }
        if (s->head) {
            void *src = direct ? device_at(in, 0, esize) : sendbuf;
            MPI_Isend(src, bytes_of(s->head, esize), MPI_BYTE, s->head_owner, RSM_TAG_HEAD, c->comm, &reqs[nreq++]);
        }
        MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
        if (!direct && incoming) st = redscan_buffer_write(c->ctx, x, s->tail * esize, recvbuf, incoming * esize);
    }
    if (reqs != fixed) free(reqs);
    free(sendbuf);
    return st;
}

redscan_status rsm_heads_back(rsm_call *c, const rsm_split *s, const redscan_buffer *x, redscan_buffer *out,
                              size_t esize)
{
    const int direct = rsm_device_direct(c->ctx);
    const uint64_t outgoing = s->straddle ? s->xlen - s->tail : 0;
    char *sendbuf = NULL, *recvbuf = NULL;
    MPI_Request fixed[16], *reqs = requests(s, fixed, 16);
    redscan_status st = reqs ? REDSCAN_OK : rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn);
    if (st == REDSCAN_OK && !direct && (s->head || outgoing)) {
        recvbuf = malloc(s->head * esize + outgoing * esize + 1);
        if (!recvbuf) st = rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->fn);
        sendbuf = recvbuf ? recvbuf + s->head * esize : NULL;
    }
    if (st == REDSCAN_OK && !direct && outgoing)
        st = redscan_buffer_read(c->ctx, x, s->tail * esize, sendbuf, outgoing * esize);
    if (st == REDSCAN_OK && direct) st = redscan_synchronize(c->ctx);
    st = rsm_agree(c, st);
    if (st == REDSCAN_OK) {
        int nreq = 0;
        uint64_t at = 0;
        for (int q = s->from_first; q <= s->from_last; q++) {
            const uint64_t h = s->counts[q] < outgoing - at ? s->counts[q] : outgoing - at;
            if (h == 0) continue;
            void *src = direct ? device_at(x, s->tail + at, esize) : sendbuf + at * esize;
            MPI_Isend(src, bytes_of(h, esize), MPI_BYTE, q, RSM_TAG_HEAD_BACK, c->comm, &reqs[nreq++]);
            at += h;
        }
        if (s->head) {
            void *dst = direct ? device_at(out, 0, esize) : recvbuf;
            MPI_Irecv(dst, bytes_of(s->head, esize), MPI_BYTE, s->head_owner, RSM_TAG_HEAD_BACK, c->comm,
                      &reqs[nreq++]);
        }
        MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
        if (!direct && s->head) st = redscan_buffer_write(c->ctx, out, 0, recvbuf, s->head * esize);
    }
    if (reqs != fixed) free(reqs);
    free(recvbuf);
    return st;
}
