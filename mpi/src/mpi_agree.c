/* Collective agreement: every rank learns the worst status of the call (and which rank reported it) before any
 * communication that depends on the others, so a rank that failed never leaves another waiting; the entry also
 * checks that every rank made the same call (function, op, dtype, ...). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

void rsm_sig_add(rsm_sig *s, const char *name, int64_t value)
{
    if (s->n >= RSM_SIG_MAX) return;
    s->name[s->n] = name;
    s->v[s->n++] = value;
}

redscan_status rsm_fail(rsm_call *c, redscan_status status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    redscan_set_last_error(c->ctx, msg);
    return status;
}

/* The worst status with the lowest rank reporting it, packed so that MPI_MAX finds both: status in the high half,
 * INT32_MAX - rank in the low half. 0 = every rank OK. */
static int64_t pack_status(redscan_status st, int rank)
{
    return st == REDSCAN_OK ? 0 : ((int64_t)st << 32) | (int64_t)(0x7fffffff - rank);
}

static redscan_status unpack_status(rsm_call *c, redscan_status local, int64_t packed)
{
    if (packed == 0) return REDSCAN_OK;
    const redscan_status st = (redscan_status)(packed >> 32);
    const int who = 0x7fffffff - (int)(packed & 0xffffffff);
    return rsm_adopt(c, local, st, who);
}

redscan_status rsm_adopt(rsm_call *c, redscan_status local, redscan_status remote, int from)
{
    if (local != REDSCAN_OK) return local; /* this rank's own message stays */
    if (remote == REDSCAN_OK) return REDSCAN_OK;
    return rsm_fail(c, remote, "%s: rank %d of %d failed (%s; its redscan_last_error has the detail); every rank "
                               "returns that status",
                    c->fn, from, c->size, redscan_status_string(remote));
}

static redscan_status mpi_failed(rsm_call *c, int rc, const char *what)
{
    char err[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, err, &len);
    return rsm_fail(c, REDSCAN_ERR_DEVICE, "%s: %s failed: %s", c->fn, what, err);
}

redscan_status rsm_enter(rsm_call *c, redscan_ctx *ctx, MPI_Comm comm, const char *fn, redscan_status local,
                         const rsm_sig *sig, uint64_t n_local)
{
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->comm = comm;
    c->fn = fn;
    if (MPI_Comm_rank(comm, &c->rank) != MPI_SUCCESS || MPI_Comm_size(comm, &c->size) != MPI_SUCCESS)
        return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT, "%s: argument 'comm' is not a valid communicator", fn);
    c->counts = malloc(2 * (size_t)c->size * sizeof *c->counts);
    if (!c->counts && local == REDSCAN_OK) local = rsm_fail(c, REDSCAN_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    c->offsets = c->counts ? c->counts + c->size : NULL;

    /* one Allreduce(MAX): status, then every field and its negation (max of -x = -min) */
    int64_t buf[1 + 2 * RSM_SIG_MAX];
    memset(buf, 0, sizeof buf);
    buf[0] = pack_status(local, c->rank);
    for (int i = 0; i < sig->n; i++) {
        buf[1 + i] = sig->v[i];
        buf[1 + RSM_SIG_MAX + i] = -sig->v[i];
    }
    int rc = MPI_Allreduce(MPI_IN_PLACE, buf, 1 + 2 * RSM_SIG_MAX, MPI_INT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return mpi_failed(c, rc, "MPI_Allreduce (call agreement)");
    redscan_status st = unpack_status(c, local, buf[0]);
    if (st != REDSCAN_OK) return st;
    for (int i = 0; i < sig->n; i++)
        if (buf[1 + i] != -buf[1 + RSM_SIG_MAX + i])
            return rsm_fail(c, REDSCAN_ERR_INVALID_ARGUMENT,
                            "%s: the ranks of the communicator disagree on '%s' (from %lld to %lld, this rank %lld); "
                            "every rank must make the same call",
                            fn, sig->name[i], (long long)-buf[1 + RSM_SIG_MAX + i], (long long)buf[1 + i],
                            (long long)sig->v[i]);

    rc = MPI_Allgather(&n_local, 1, MPI_UINT64_T, c->counts, 1, MPI_UINT64_T, comm);
    if (rc != MPI_SUCCESS) return mpi_failed(c, rc, "MPI_Allgather (counts)");
    uint64_t o = 0;
    for (int q = 0; q < c->size; q++) {
        c->offsets[q] = o;
        o += c->counts[q];
    }
    c->total = o;
    return REDSCAN_OK;
}

redscan_status rsm_agree(rsm_call *c, redscan_status local)
{
    int64_t packed = pack_status(local, c->rank);
    int rc = MPI_Allreduce(MPI_IN_PLACE, &packed, 1, MPI_INT64_T, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS) return mpi_failed(c, rc, "MPI_Allreduce (status agreement)");
    return unpack_status(c, local, packed);
}

void rsm_leave(rsm_call *c)
{
    free(c->counts);
    c->counts = c->offsets = NULL;
}
