/* Weak scaling of libredscan_mpi (docs/DISTRIBUTED.md, docs/PERFORMANCE.md "Distributed"): a fixed n per rank,
 * redscan_mpi_reduce and redscan_mpi_scan on float32 and int32 sums, best of a few runs. Reports per-rank GB/s
 * (reduce: n * 4 bytes read; scan: n * 8 bytes read and written) and the share of the call's time spent inside MPI
 * calls, measured through MPI's profiling interface: the MPI functions the library calls are defined here and
 * forward to their PMPI_ twins, timing each (the executable exports them, so libredscan_mpi binds to these). The
 * "local" rows are the single-process calls (redscan_reduce_ex / redscan_scan_ex) on each rank's part alone, all
 * ranks at once: the baseline the distributed calls are measured against.
 *
 *   mpirun -np P mpi_weak [n_per_rank (default 4194304)] [runs (default 5)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redscan_mpi.h"

static double g_mpi_time; /* seconds inside MPI calls since the last reset */

#define TIMED(call)                           \
    do {                                      \
        const double t0_ = PMPI_Wtime();      \
        const int rc_ = (call);               \
        g_mpi_time += PMPI_Wtime() - t0_;     \
        return rc_;                           \
    } while (0)

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    TIMED(PMPI_Allreduce(s, r, n, t, op, c));
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
    TIMED(PMPI_Allgather(s, sn, st, r, rn, rt, c));
}
int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int d[], MPI_Datatype rt,
                int root, MPI_Comm c)
{
    TIMED(PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c));
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) { TIMED(PMPI_Bcast(b, n, t, root, c)); }
int MPI_Send(const void *b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c) { TIMED(PMPI_Send(b, n, t, to, tag, c)); }
int MPI_Recv(void *b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Status *s)
{
    TIMED(PMPI_Recv(b, n, t, from, tag, c, s));
}
int MPI_Isend(const void *b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c, MPI_Request *r)
{
    TIMED(PMPI_Isend(b, n, t, to, tag, c, r));
}
int MPI_Irecv(void *b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Request *r)
{
    TIMED(PMPI_Irecv(b, n, t, from, tag, c, r));
}
int MPI_Waitall(int n, MPI_Request r[], MPI_Status s[]) { TIMED(PMPI_Waitall(n, r, s)); }

static int g_rank, g_size;

static void die(redscan_ctx *ctx, const char *what, redscan_status st)
{
    fprintf(stderr, "mpi_weak rank %d: %s: %s: %s\n", g_rank, what, redscan_status_string(st),
            redscan_last_error(ctx));
    PMPI_Abort(MPI_COMM_WORLD, 1);
}

/* One row: the best of `runs` calls (the slowest rank's time per call), and that call's MPI share. */
static void row(redscan_ctx *ctx, const char *name, redscan_dtype dt, int scan, int local, size_t n, int runs,
                redscan_buffer *in, redscan_buffer *out)
{
    double best = 1e30, best_share = 0;
    for (int r = 0; r <= runs; r++) { /* run 0 warms up (programs, scratch) */
        PMPI_Barrier(MPI_COMM_WORLD);
        g_mpi_time = 0;
        const double t0 = PMPI_Wtime();
        redscan_status st;
        if (local) { /* the single-process call on this rank's part alone: the baseline */
            const redscan_scan_desc sd = {REDSCAN_SUM, dt, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
            const redscan_reduce_desc rd = {REDSCAN_SUM, dt, 0, REDSCAN_REDUCE_AUTO, 0};
            double result;
            st = scan ? redscan_scan_ex(ctx, &sd, in, out, n) : redscan_reduce_ex(ctx, &rd, in, n, &result);
        } else if (scan) {
            const redscan_scan_desc d = {REDSCAN_SUM, dt, 0, 0, NULL, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
            st = redscan_mpi_scan(ctx, MPI_COMM_WORLD, &d, in, out, n);
        } else {
            const redscan_reduce_desc d = {REDSCAN_SUM, dt, 0, REDSCAN_REDUCE_AUTO, 0};
            double result;
            st = redscan_mpi_reduce(ctx, MPI_COMM_WORLD, &d, in, n, &result);
        }
        if (st != REDSCAN_OK) die(ctx, name, st);
        double mine[2] = {PMPI_Wtime() - t0, g_mpi_time}, slowest[2];
        PMPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r > 0 && slowest[0] < best) {
            best = slowest[0];
            best_share = slowest[1] / slowest[0];
        }
    }
    const double bytes = (double)n * (double)redscan_dtype_size(dt) * (scan ? 2.0 : 1.0);
    if (g_rank == 0)
        printf("| %-18s | %5d | %10zu | %9.3f | %8.2f | %5.1f %% |\n", name, g_size, n, best * 1e3, bytes / best / 1e9,
               100.0 * best_share);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &g_size);
    const size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)1 << 22;
    const int runs = argc > 2 ? atoi(argv[2]) : 5;
    redscan_ctx *ctx = NULL;
    redscan_status st = redscan_create(&ctx, REDSCAN_BACKEND_AUTO);
    if (st != REDSCAN_OK) die(NULL, "redscan_create", st);
    redscan_buffer *in = NULL, *out = NULL;
    if ((st = redscan_buffer_create(ctx, n * 4 + 4, &in)) != REDSCAN_OK) die(ctx, "buffer", st);
    if ((st = redscan_buffer_create(ctx, n * 4 + 4, &out)) != REDSCAN_OK) die(ctx, "buffer", st);
    float *h = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u + (size_t)g_rank) % 1000) / 64.0f;
    if ((st = redscan_buffer_write(ctx, in, 0, h, n * 4)) != REDSCAN_OK) die(ctx, "write", st);
    free(h);
    if (g_rank == 0) {
        printf("mpi_weak: %d rank(s), %zu elements per rank, best of %d; backend %s, device %s; MPI path: %s\n",
               g_size, n, runs, redscan_backend_name(ctx), redscan_device_name(ctx),
               redscan_mpi_cuda_aware() && !strcmp(redscan_backend_name(ctx), "cuda")
                   ? "CUDA-aware (device pointers)"
                   : "staged through host memory");
        printf("| operation          | ranks | n per rank | time (ms) | GB/s per rank | in MPI |\n");
        printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    }
    for (int local = 1; local >= 0; local--) {
        row(ctx, local ? "local reduce f32" : "reduce sum float32", REDSCAN_FLOAT32, 0, local, n, runs, in, NULL);
        row(ctx, local ? "local reduce i32" : "reduce sum int32", REDSCAN_INT32, 0, local, n, runs, in, NULL);
        row(ctx, local ? "local scan f32" : "scan sum float32", REDSCAN_FLOAT32, 1, local, n, runs, in, out);
        row(ctx, local ? "local scan i32" : "scan sum int32", REDSCAN_INT32, 1, local, n, runs, in, out);
    }
    redscan_buffer_destroy(ctx, in);
    redscan_buffer_destroy(ctx, out);
    redscan_destroy(ctx);
    MPI_Finalize();
    return 0;
}
