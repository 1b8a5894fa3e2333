/* Fault injection for the OpenCL backend (fault builds only: -DREDSCAN_FAULT_INJECTION; api/src/fault.h).
 *
 * Included by ocl_internal.h, so every backend file sees it: the OpenCL functions that allocate, transfer, build,
 * launch or create/retain/release an object are renamed to wrappers (ocl_fault.c) that count a point, fail the
 * armed one with a realistic error code without calling OpenCL, and follow live objects. The call sites stay as
 * they are, so an injected failure takes exactly the error path a real one would. A normal build renames nothing.
 *
 * An OpenCL function the backend starts to use that creates or releases one of these objects needs a wrapper
 * here; a missing one shows as a live counter that does not return to zero in tests/test_faults.c. */
#ifndef REDSCAN_OCL_FAULT_H
#define REDSCAN_OCL_FAULT_H

#ifdef REDSCAN_FAULT_INJECTION
#include <CL/cl.h>

cl_mem rs_fault_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr, cl_int *err);
cl_mem rs_fault_clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void *info,
                                  cl_int *err);
cl_int rs_fault_clRetainMemObject(cl_mem mem);
cl_int rs_fault_clReleaseMemObject(cl_mem mem);

cl_int rs_fault_clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                                    void *ptr, cl_uint num_events, const cl_event *wait_list, cl_event *event);
cl_int rs_fault_clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                                     size_t size, const void *ptr, cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event);
cl_int rs_fault_clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                                    size_t dst_offset, size_t size, cl_uint num_events, const cl_event *wait_list,
                                    cl_event *event);
cl_int rs_fault_clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern, size_t pattern_size,
                                    size_t offset, size_t size, cl_uint num_events, const cl_event *wait_list,
                                    cl_event *event);
cl_int rs_fault_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                                       const size_t *global, const size_t *local, cl_uint num_events,
                                       const cl_event *wait_list, cl_event *event);

cl_program rs_fault_clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                              const size_t *lengths, cl_int *err);
cl_program rs_fault_clCreateProgramWithBinary(cl_context context, cl_uint num_devices, const cl_device_id *devices,
                                              const size_t *lengths, const unsigned char **binaries,
                                              cl_int *binary_status, cl_int *err);
cl_int rs_fault_clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *devices,
                               const char *options, void(CL_CALLBACK *notify)(cl_program, void *), void *user_data);
cl_int rs_fault_clRetainProgram(cl_program program);
cl_int rs_fault_clReleaseProgram(cl_program program);

cl_kernel rs_fault_clCreateKernel(cl_program program, const char *name, cl_int *err);
cl_int rs_fault_clRetainKernel(cl_kernel kernel);
cl_int rs_fault_clReleaseKernel(cl_kernel kernel);

cl_int rs_fault_clRetainEvent(cl_event event);
cl_int rs_fault_clReleaseEvent(cl_event event);

#ifndef RS_OCL_FAULT_WRAPPERS /* ocl_fault.c calls the real functions */
#define clCreateBuffer rs_fault_clCreateBuffer
#define clCreateSubBuffer rs_fault_clCreateSubBuffer
#define clRetainMemObject rs_fault_clRetainMemObject
#define clReleaseMemObject rs_fault_clReleaseMemObject
#define clEnqueueReadBuffer rs_fault_clEnqueueReadBuffer
#define clEnqueueWriteBuffer rs_fault_clEnqueueWriteBuffer
#define clEnqueueCopyBuffer rs_fault_clEnqueueCopyBuffer
#define clEnqueueFillBuffer rs_fault_clEnqueueFillBuffer
#define clEnqueueNDRangeKernel rs_fault_clEnqueueNDRangeKernel
#define clCreateProgramWithSource rs_fault_clCreateProgramWithSource
#define clCreateProgramWithBinary rs_fault_clCreateProgramWithBinary
#define clBuildProgram rs_fault_clBuildProgram
#define clRetainProgram rs_fault_clRetainProgram
#define clReleaseProgram rs_fault_clReleaseProgram
#define clCreateKernel rs_fault_clCreateKernel
#define clRetainKernel rs_fault_clRetainKernel
#define clReleaseKernel rs_fault_clReleaseKernel
#define clRetainEvent rs_fault_clRetainEvent
#define clReleaseEvent rs_fault_clReleaseEvent
#endif

#endif /* REDSCAN_FAULT_INJECTION */
#endif /* REDSCAN_OCL_FAULT_H */
