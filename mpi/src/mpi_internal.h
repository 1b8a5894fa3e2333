/* libredscan_mpi internals: the state of one collective call, the collective agreement on statuses, the split of a
 * distributed array into fixed blocks (tiles of a reduction, sections of a scan), host arithmetic in the compute
 * type, and the moves of boundary pieces between ranks (docs/DISTRIBUTED.md). Only redscan's public API is used. */
#ifndef REDSCAN_MPI_INTERNAL_H
#define REDSCAN_MPI_INTERNAL_H

#include <stdint.h>

#include "redscan_mpi.h"

/* REDSCAN_REDUCE_TILE / REDSCAN_SCAN_SECTION of redscan.h where present: the coarsened reduction's tile and the
 * coarsened scan block's section (docs/ALGORITHMS.md), on which the distributed order is built. */
#ifdef REDSCAN_REDUCE_TILE
#define RSM_TILE ((uint64_t)REDSCAN_REDUCE_TILE)
#else
#define RSM_TILE ((uint64_t)4096)
#endif
#ifdef REDSCAN_SCAN_SECTION
#define RSM_SECTION ((uint64_t)REDSCAN_SCAN_SECTION)
#else
#define RSM_SECTION ((uint64_t)2048)
#endif

/* Function ids carried by the call signature (a rank calling another function is a mismatch). */
enum { RSM_FN_REDUCE = 1, RSM_FN_SCAN, RSM_FN_ARGMIN, RSM_FN_ARGMAX, RSM_FN_TOPK };

/* Message tags of the point-to-point moves. */
enum { RSM_TAG_HEAD = 7301, RSM_TAG_HEAD_BACK, RSM_TAG_CHAIN };

typedef union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    unsigned char bytes[8];
} rsm_value;

/* One collective call. counts / offsets: every rank's n_local and global offset (rank 0 first). */
typedef struct {
    redscan_ctx *ctx;
    MPI_Comm comm;
    const char *fn;
    int rank, size;
    uint64_t *counts, *offsets;
    uint64_t total;
} rsm_call;

/* Signature of a call: fields that must be equal on every rank, with names for the message. */
#define RSM_SIG_MAX 12
typedef struct {
    int n;
    int64_t v[RSM_SIG_MAX];
    const char *name[RSM_SIG_MAX];
} rsm_sig;
void rsm_sig_add(rsm_sig *s, const char *name, int64_t value);

/* Record an error on the call's context (printf format) and return status. */
redscan_status rsm_fail(rsm_call *c, redscan_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Collective entry: local_status is this rank's argument check. One MPI_Allreduce agrees on the worst status (and
 * the lowest rank reporting it) and on min / max of every signature field; then one MPI_Allgather of n_local gives
 * counts, offsets and total. Returns the agreed status: OK on every rank or the same error on every rank (a rank
 * that did not fail gets a message naming the failing rank; differing signatures are INVALID_ARGUMENT). */
redscan_status rsm_enter(rsm_call *c, redscan_ctx *ctx, MPI_Comm comm, const char *fn, redscan_status local_status,
                         const rsm_sig *sig, uint64_t n_local);
/* A later agreement (after device work, before communication that depends on it): one MPI_Allreduce. */
redscan_status rsm_agree(rsm_call *c, redscan_status local_status);
/* An agreement carried by data that crosses anyway: the status of rank `from` (as a Bcast or a gather told it). */
redscan_status rsm_adopt(rsm_call *c, redscan_status local_status, redscan_status remote, int from);
void rsm_leave(rsm_call *c);

/* ---- blocks of a distributed array (tiles, sections) ----
 * A level of B-element blocks over an array of `total` elements split as offsets / counts. Block b covers global
 * indices [B*b, B*(b+1)) and belongs to the rank holding index B*b. */
typedef struct {
    uint64_t o, c;        /* this rank's global offset and count */
    uint64_t head;        /* elements before the first block start held here (all c when no block starts here) */
    int head_owner;       /* rank of the block holding element o (-1 when head == 0) */
    uint64_t first_block; /* global index of the first block starting here */
    uint64_t blocks;      /* blocks starting here */
    int straddle;         /* the last of them runs past this rank: completed by the heads of later ranks */
    uint64_t tail;        /* elements of that block held here */
    uint64_t xlen;        /* its length (tail + the heads) */
    int from_first, from_last; /* the ranks sending those heads (from_first > from_last: none) */
    const uint64_t *counts;    /* every rank's count at this level (the array given to rsm_split_of) */
} rsm_split;
void rsm_split_of(const uint64_t *offsets, const uint64_t *counts, int size, int rank, uint64_t total, uint64_t block,
                  rsm_split *s);
/* The rank holding global index g (counts of 0 hold nothing). */
int rsm_rank_of(const uint64_t *offsets, const uint64_t *counts, int size, uint64_t g);
/* head of rank q alone (as rsm_split's). */
uint64_t rsm_head_of(uint64_t offset, uint64_t count, uint64_t block);

/* ---- moves of boundary pieces ---- */
/* Whether device memory goes to MPI directly for this context (CUDA backend and a CUDA-aware MPI). */
int rsm_device_direct(redscan_ctx *ctx);
/* The heads meet their owners: this rank's head (elements 0 .. s->head of `in`) goes to s->head_owner, and when
 * s->straddle the heads of ranks s->from_first .. s->from_last arrive, in rank order, in x at element s->tail (x is a
 * device buffer of s->xlen elements of esize bytes whose first s->tail elements the caller fills). Device memory goes
 * to MPI directly where rsm_device_direct, else through host memory. st: this rank's status so far; the agreement
 * on it (and on this function's own staging) comes before anything is sent, and a failure sends nothing. */
redscan_status rsm_heads_to_owner(rsm_call *c, redscan_status st, const rsm_split *s, const redscan_buffer *in,
                                  redscan_buffer *x, size_t esize);
/* The reverse (scans): the results of the heads go back from x (element s->tail on) to their ranks, each into
 * elements 0 .. head of `out`. Agrees on the status before it sends; the status of the final write to `out` is this
 * rank's alone (the caller agrees on it). */
redscan_status rsm_heads_back(rsm_call *c, const rsm_split *s, const redscan_buffer *x, redscan_buffer *out,
                              size_t esize);
/* Copy `count` elements of esize bytes between device buffers (through host memory). */
redscan_status rsm_copy(rsm_call *c, const redscan_buffer *src, size_t src_elem, redscan_buffer *dst, size_t dst_elem,
                        size_t count, size_t esize);
/* A device buffer of at least `bytes` (one byte when 0). */
redscan_status rsm_buffer(rsm_call *c, size_t bytes, redscan_buffer **buf);

/* ---- host arithmetic (compute types: INT32, UINT32, INT64, UINT64, FLOAT32, FLOAT64) ---- */
redscan_dtype rsm_compute_dtype(redscan_dtype dtype);
int rsm_is_narrow(redscan_dtype dtype);
/* a ⊕ b, a covering the earlier indices (docs/ALGORITHMS.md "Operators, identities, NaN"). */
rsm_value rsm_combine(redscan_op op, redscan_dtype t, rsm_value a, rsm_value b);
rsm_value rsm_identity(redscan_op op, redscan_dtype t);
/* A value of compute type t stored into out_dtype (narrow: low bits, or round to nearest even). */
rsm_value rsm_store(redscan_dtype t, redscan_dtype out_dtype, rsm_value v);
/* A value of dtype (the output type of a scan's init) in the compute type. */
rsm_value rsm_load(redscan_dtype dtype, const void *p);
/* The order of argmin / argmax / top-k: whether (a, ia) ranks before (b, ib) (values of dtype). */
int rsm_before(redscan_dtype dtype, int largest, const void *a, uint64_t ia, const void *b, uint64_t ib);

#endif
