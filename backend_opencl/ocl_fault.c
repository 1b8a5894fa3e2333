/* The OpenCL wrappers of fault builds (see ocl_fault.h): count a point, fail the armed one as the driver would
 * (nothing is created, nothing enqueued), follow the objects that are created, retained and released. */
#ifdef REDSCAN_FAULT_INJECTION
#define RS_OCL_FAULT_WRAPPERS
#include "ocl_internal.h"

#include "fault.h"

/* An object made (or an event handed out) when the call succeeded. */
static void rs_made(cl_int err, rs_live_kind kind) { if (err == CL_SUCCESS) RS_FAULT_TRACK(kind, +1); }
static cl_int rs_event(cl_int err, cl_event *event)
{
    if (err == CL_SUCCESS && event) RS_FAULT_TRACK(RS_LIVE_EVENT, +1);
    return err;
}
static cl_int rs_retain(cl_int err, rs_live_kind kind) { if (err == CL_SUCCESS) RS_FAULT_TRACK(kind, +1); return err; }
static cl_int rs_release(cl_int err, rs_live_kind kind) { if (err == CL_SUCCESS) RS_FAULT_TRACK(kind, -1); return err; }
static void rs_set(cl_int *err, cl_int value) { if (err) *err = value; }

/* ---- memory */
cl_mem rs_fault_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr, cl_int *err)
{
    if (RS_FAULT_HIT(RS_FAULT_ALLOC)) {
        rs_set(err, CL_MEM_OBJECT_ALLOCATION_FAILURE);
        return NULL;
    }
    cl_int e = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, flags, size, host_ptr, &e);
    rs_made(e, RS_LIVE_MEMORY);
    rs_set(err, e);
    return m;
}

cl_mem rs_fault_clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void *info,
                                  cl_int *err)
{
    cl_int e = CL_SUCCESS;
    cl_mem m = clCreateSubBuffer(buffer, flags, type, info, &e);
    rs_made(e, RS_LIVE_MEMORY);
    rs_set(err, e);
    return m;
}

cl_int rs_fault_clRetainMemObject(cl_mem mem) { return rs_retain(clRetainMemObject(mem), RS_LIVE_MEMORY); }
cl_int rs_fault_clReleaseMemObject(cl_mem mem) { return rs_release(clReleaseMemObject(mem), RS_LIVE_MEMORY); }

/* ---- transfers */
cl_int rs_fault_clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                                    void *ptr, cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    if (RS_FAULT_HIT(RS_FAULT_TRANSFER)) return CL_OUT_OF_RESOURCES;
    return rs_event(clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr, num_events, wait_list, event),
                    event);
}

cl_int rs_fault_clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                                     size_t size, const void *ptr, cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event)
{
    if (RS_FAULT_HIT(RS_FAULT_TRANSFER)) return CL_OUT_OF_RESOURCES;
    return rs_event(clEnqueueWriteBuffer(queue, buffer, blocking, offset, size, ptr, num_events, wait_list, event),
                    event);
}

cl_int rs_fault_clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                                    size_t dst_offset, size_t size, cl_uint num_events, const cl_event *wait_list,
                                    cl_event *event)
{
    if (RS_FAULT_HIT(RS_FAULT_TRANSFER)) return CL_OUT_OF_RESOURCES;
    return rs_event(
        clEnqueueCopyBuffer(queue, src, dst, src_offset, dst_offset, size, num_events, wait_list, event), event);
}

cl_int rs_fault_clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern, size_t pattern_size,
                                    size_t offset, size_t size, cl_uint num_events, const cl_event *wait_list,
                                    cl_event *event)
{
    if (RS_FAULT_HIT(RS_FAULT_TRANSFER)) return CL_OUT_OF_RESOURCES;
    return rs_event(
        clEnqueueFillBuffer(queue, buffer, pattern, pattern_size, offset, size, num_events, wait_list, event), event);
}

/* ---- launches */
cl_int rs_fault_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                                       const size_t *global, const size_t *local, cl_uint num_events,
                                       const cl_event *wait_list, cl_event *event)
{
    if (RS_FAULT_HIT(RS_FAULT_LAUNCH)) return CL_OUT_OF_RESOURCES;
    return rs_event(clEnqueueNDRangeKernel(queue, kernel, dims, offset, global, local, num_events, wait_list, event),
                    event);
}

/* ---- programs */
cl_program rs_fault_clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                              const size_t *lengths, cl_int *err)
{
    cl_int e = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(context, count, strings, lengths, &e);
    rs_made(e, RS_LIVE_PROGRAM);
    rs_set(err, e);
    return p;
}

cl_program rs_fault_clCreateProgramWithBinary(cl_context context, cl_uint num_devices, const cl_device_id *devices,
                                              const size_t *lengths, const unsigned char **binaries,
                                              cl_int *binary_status, cl_int *err)
{
    cl_int e = CL_SUCCESS;
    cl_program p = clCreateProgramWithBinary(context, num_devices, devices, lengths, binaries, binary_status, &e);
    rs_made(e, RS_LIVE_PROGRAM);
    rs_set(err, e);
    return p;
}

/* An injected failure leaves the program unbuilt: its build log is then empty, as after some real failures. */
cl_int rs_fault_clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *devices,
                               const char *options, void(CL_CALLBACK *notify)(cl_program, void *), void *user_data)
{
    if (RS_FAULT_HIT(RS_FAULT_BUILD)) return CL_BUILD_PROGRAM_FAILURE;
    return clBuildProgram(program, num_devices, devices, options, notify, user_data);
}

cl_int rs_fault_clRetainProgram(cl_program program) { return rs_retain(clRetainProgram(program), RS_LIVE_PROGRAM); }
cl_int rs_fault_clReleaseProgram(cl_program program) { return rs_release(clReleaseProgram(program), RS_LIVE_PROGRAM); }

/* ---- kernels and events */
cl_kernel rs_fault_clCreateKernel(cl_program program, const char *name, cl_int *err)
{
    cl_int e = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program, name, &e);
    rs_made(e, RS_LIVE_KERNEL);
    rs_set(err, e);
    return k;
}

cl_int rs_fault_clRetainKernel(cl_kernel kernel) { return rs_retain(clRetainKernel(kernel), RS_LIVE_KERNEL); }
cl_int rs_fault_clReleaseKernel(cl_kernel kernel) { return rs_release(clReleaseKernel(kernel), RS_LIVE_KERNEL); }
cl_int rs_fault_clRetainEvent(cl_event event) { return rs_retain(clRetainEvent(event), RS_LIVE_EVENT); }
cl_int rs_fault_clReleaseEvent(cl_event event) { return rs_release(clReleaseEvent(event), RS_LIVE_EVENT); }
#else
/* Normal build: nothing here (ISO C wants a declaration in every translation unit). */
typedef int rs_ocl_fault_not_built;
#endif
