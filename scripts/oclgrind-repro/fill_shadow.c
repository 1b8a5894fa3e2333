/* Oclgrind 21.10 false report, shown without redscan: after clEnqueueFillBuffer, bytes of the buffer past the
 * first pattern are "uninitialized" for the uninitialized-value plugin, even once a kernel has written them.
 *
 * A buffer of 4 KiB is filled with zeros (argv[1] = pattern size in bytes; 0 writes the zeros with
 * clEnqueueWriteBuffer instead), kernel `put` writes b[0..19] (one work-item of each of 20 groups), kernel `get`
 * reads b[0..19] into local memory and writes them out rotated. Every value read was written first; the output is
 * checked. Under `oclgrind --uninitialized` pattern sizes 1, 4 and 8 give reports for every b[i] past the
 * pattern; 0 (a write) gives none. The cause, in Oclgrind's source (src/plugins/Uninitialized.cpp): each host
 * store (hostMemoryStore, one per pattern repetition of a fill) goes through allocAndStoreShadowMemory, which
 * reallocates the whole buffer's shadow at the size of that one store.
 *
 *   cc -std=c11 -o fill_shadow fill_shadow.c -lOpenCL && oclgrind --uninitialized ./fill_shadow 8 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *src =
    "__kernel void put(__global int *b) { if (get_local_id(0) == 0) b[get_group_id(0)] = (int)get_group_id(0) + 1; }\n"
    "__kernel void get(__global const int *b, __global int *o) {\n"
    "  __local int s[20]; uint t = get_local_id(0);\n"
    "  s[t] = b[t]; barrier(CLK_LOCAL_MEM_FENCE); o[t] = s[(t + 1) % 20]; }\n";

#define CK(x)                                                                                                      \
    do {                                                                                                           \
        cl_int e_ = (x);                                                                                           \
        if (e_ != CL_SUCCESS) {                                                                                    \
            printf("%s: error %d\n", #x, e_);                                                                      \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const size_t pattern = argc > 1 ? (size_t)atoi(argv[1]) : 8;
    cl_platform_id p;
    cl_device_id d;
    cl_int e;
    CK(clGetPlatformIDs(1, &p, NULL));
    CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    CK(e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    CK(e);
    cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    CK(e);
    CK(clBuildProgram(pr, 1, &d, "", NULL, NULL));
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, 4096, NULL, &e);
    CK(e);
    cl_mem o = clCreateBuffer(c, CL_MEM_READ_WRITE, 20 * sizeof(int), NULL, &e);
    CK(e);
    static const unsigned char zeros[4096];
    if (pattern)
        CK(clEnqueueFillBuffer(q, b, zeros, pattern, 0, sizeof zeros, 0, NULL, NULL));
    else
        CK(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL));
    cl_kernel put = clCreateKernel(pr, "put", &e);
    CK(e);
    cl_kernel get = clCreateKernel(pr, "get", &e);
    CK(e);
    const size_t put_global = 20 * 4, put_local = 4, get_size = 20;
    CK(clSetKernelArg(put, 0, sizeof b, &b));
    CK(clEnqueueNDRangeKernel(q, put, 1, NULL, &put_global, &put_local, 0, NULL, NULL));
    CK(clSetKernelArg(get, 0, sizeof b, &b));
    CK(clSetKernelArg(get, 1, sizeof o, &o));
    CK(clEnqueueNDRangeKernel(q, get, 1, NULL, &get_size, &get_size, 0, NULL, NULL));
    int r[20];
    CK(clEnqueueReadBuffer(q, o, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL));
    int ok = 1;
    for (int i = 0; i < 20; i++) ok &= r[i] == (i + 1) % 20 + 1;
    printf("fill pattern %zu bytes: results %s\n", pattern, ok ? "right" : "WRONG");
    return !ok;
}
