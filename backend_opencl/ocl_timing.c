/* OpenCL backend: the device time of an operation (redscan_set_profiling / redscan_last_device_time).
 *
 * Profiling events need a queue made with CL_QUEUE_PROFILING_ENABLE. The context's queue has it only while
 * profiling is on: switching replaces the queue (the old one is finished and released), so the default path runs
 * on the same queue as ever, with no event asked for. Some drivers add work per command on a profiling queue; that
 * could not be measured on every device this runs on, so it is not paid by callers who never profile.
 *
 * While an operation is timed, every enqueue (rs_ocl_launch, the transfers in ocl_memory.c, the single-pass flag
 * fill) makes an event; rs_ocl_time_keep keeps the first and the latest and releases the ones in between, so an
 * operation holds at most three. time_end reads CL_PROFILING_COMMAND_START of the first and
 * CL_PROFILING_COMMAND_END of the last (device nanoseconds) and releases both, on success and on failure. */
#include "ocl_internal.h"

static void rs_ocl_time_drop(cl_event *ev)
{
    if (*ev) clReleaseEvent(*ev);
    *ev = NULL;
}

void rs_ocl_timing_release(rs_ocl *o)
{
    rs_ocl_time_drop(&o->time_first);
    rs_ocl_time_drop(&o->time_last);
    rs_ocl_time_drop(&o->time_new);
    o->timing = 0;
}

redscan_status rs_ocl_profiling(redscan_ctx *ctx, int on)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (o->profiling == on) return REDSCAN_OK;
    if (o->attached) {
        /* The caller's queue is never replaced: timing needs it to have been made with profiling. */
        if (on && !o->queue_profiling)
            return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                                "redscan_set_profiling: the context works on the caller's queue "
                                "(redscan_create_on_opencl_queue), which was made without CL_QUEUE_PROFILING_ENABLE; "
                                "make it with that property to time operations");
        o->profiling = on;
        return REDSCAN_OK;
    }
    /* The new queue first: if it cannot be made, the context keeps the one it has. In order, as in ocl_device.c. */
    const cl_command_queue_properties props = on ? CL_QUEUE_PROFILING_ENABLE : 0;
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(o->context, o->device, props, &err);
    if (err != CL_SUCCESS) {
        if (on && err == CL_INVALID_QUEUE_PROPERTIES)
            return rs_set_error(ctx, REDSCAN_ERR_UNSUPPORTED,
                                "redscan_set_profiling: OpenCL device %s cannot make a profiling queue "
                                "(clCreateCommandQueue with CL_QUEUE_PROFILING_ENABLE: CL_INVALID_QUEUE_PROPERTIES)",
                                ctx->device_name);
        return rs_ocl_fail(ctx, err, on ? "clCreateCommandQueue (CL_QUEUE_PROFILING_ENABLE)" : "clCreateCommandQueue");
    }
    /* Every call has finished its work before it returned; the finish covers work a caller queued on our queue. */
    clFinish(o->queue);
    clReleaseCommandQueue(o->queue);
    o->queue = q;
    o->profiling = on;
    return REDSCAN_OK;
}

redscan_status rs_ocl_time_begin(redscan_ctx *ctx)
{
    rs_ocl *o = rs_ocl_of(ctx);
    if (!o->profiling)
        return rs_set_error(ctx, REDSCAN_ERR_DEVICE, "internal: a timed OpenCL operation on a queue without profiling");
    rs_ocl_timing_release(o); /* nothing is left from an earlier operation; this keeps it so */
    o->timing = 1;
    return REDSCAN_OK;
}

void rs_ocl_time_keep(rs_ocl *o)
{
    cl_event ev = o->time_new;
    o->time_new = NULL;
    if (!ev) return;
    if (!o->time_first) {
        o->time_first = ev;
        return;
    }
    rs_ocl_time_drop(&o->time_last);
    o->time_last = ev;
}

redscan_status rs_ocl_time_end(redscan_ctx *ctx, int ok, double *seconds)
{
    rs_ocl *o = rs_ocl_of(ctx);
    cl_event first = o->time_first, last = o->time_last ? o->time_last : o->time_first;
    o->timing = 0;
    redscan_status st = REDSCAN_OK;
    if (ok && !first) {
        st = rs_set_error(ctx, REDSCAN_ERR_DEVICE, "internal: a timed OpenCL operation enqueued no command");
    } else if (ok) {
        /* The operation ended with a blocking read or clFinish, so its commands are complete; the wait only makes
         * that explicit for drivers that publish profiling info late. */
        cl_event both[2] = {first, last};
        cl_ulong start = 0, end = 0;
        cl_int err = clWaitForEvents(last == first ? 1 : 2, both);
        if (err == CL_SUCCESS)
            err = clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        if (err == CL_SUCCESS) err = clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        if (err != CL_SUCCESS)
            st = rs_ocl_fail(ctx, err, "clGetEventProfilingInfo (profiling)");
        else if (end < start)
            st = rs_set_error(ctx, REDSCAN_ERR_DEVICE,
                              "OpenCL profiling: the last command ended (%llu ns) before the first started (%llu ns)",
                              (unsigned long long)end, (unsigned long long)start);
        else
            *seconds = (double)(end - start) * 1e-9;
    }
    rs_ocl_timing_release(o);
    return st;
}
