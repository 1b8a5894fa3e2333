/* CUDA backend: the device time of an operation (redscan_set_profiling / redscan_last_device_time).
 *
 * Two events exist while profiling is on, none while it is off. time_begin records time_start on the context's
 * stream before the operation queues anything; every rs_cuda_sync of the operation records time_stop just before
 * it waits, so the last record marks the end of the operation's last command (for a reduction, the kernel that
 * writes its result into the mapped result area, cuda_result.c) and the host's wait itself is not counted. time_end reads cudaEventElapsedTime between the two
 * (milliseconds, about half a microsecond of resolution). The start event is taken when the stream reaches it: the
 * host work between it and the first launch (argument setup; a first call's scratch allocation) counts, as it
 * does for CUB timed with events around its call. */
#include "cuda_internal.h"

void rs_cuda_timing_release(rs_cuda *c)
{
    if (c->time_start) (void)cudaEventDestroy(c->time_start);
    if (c->time_stop) (void)cudaEventDestroy(c->time_stop);
    c->time_start = c->time_stop = NULL;
    c->timing = c->time_stopped = 0;
    (void)cudaGetLastError();
}

redscan_status rs_cuda_profiling(redscan_ctx *ctx, int on)
{
    rs_cuda *c = rs_cuda_of(ctx);
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    if (!on) {
        rs_cuda_timing_release(c); /* every operation has waited for its stream: no record is pending */
        return REDSCAN_OK;
    }
    if (c->time_start) return REDSCAN_OK;
    cudaEvent_t start = NULL, stop = NULL;
    cudaError_t err = cudaEventCreate(&start);
    if (err == cudaSuccess) {
        err = cudaEventCreate(&stop);
        if (err != cudaSuccess) (void)cudaEventDestroy(start);
    }
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaEventCreate (profiling)");
    c->time_start = start;
    c->time_stop = stop;
    return REDSCAN_OK;
}

redscan_status rs_cuda_time_begin(redscan_ctx *ctx)
{
    rs_cuda *c = rs_cuda_of(ctx);
    redscan_status st = rs_cuda_use(ctx);
    if (st != REDSCAN_OK) return st;
    cudaError_t err = cudaEventRecord(c->time_start, c->stream);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaEventRecord (profiling start)");
    c->timing = 1;
    c->time_stopped = 0;
    return REDSCAN_OK;
}

redscan_status rs_cuda_time_stop(redscan_ctx *ctx)
{
    rs_cuda *c = rs_cuda_of(ctx);
    cudaError_t err = cudaEventRecord(c->time_stop, c->stream);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaEventRecord (profiling stop)");
    c->time_stopped = 1;
    return REDSCAN_OK;
}

redscan_status rs_cuda_time_end(redscan_ctx *ctx, int ok, double *seconds)
{
    rs_cuda *c = rs_cuda_of(ctx);
    int stopped = c->time_stopped;
    c->timing = c->time_stopped = 0;
    if (!ok) return REDSCAN_OK;
    if (!stopped)
        return rs_set_error(ctx, REDSCAN_ERR_DEVICE, "internal: a timed CUDA operation ended without waiting for its "
                                                     "stream, so it has no stop event");
    /* time_stop was recorded before the operation's last wait, which has returned: both events are complete. */
    float ms = 0;
    cudaError_t err = cudaEventElapsedTime(&ms, c->time_start, c->time_stop);
    if (err != cudaSuccess) return rs_cuda_fail(ctx, err, "cudaEventElapsedTime (profiling)");
    *seconds = (double)ms * 1e-3;
    return REDSCAN_OK;
}
