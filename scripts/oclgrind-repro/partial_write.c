/* Oclgrind 21.10 false report, shown without redscan: a host write to part of a buffer (clEnqueueWriteBuffer of
 * `size` bytes at offset 0) makes the uninitialized-value plugin take the rest of the buffer for uninitialized,
 * although a blocking write had initialized all of it before. The same cause as fill_shadow.c: each host store
 * (hostMemoryStore) goes through allocAndStoreShadowMemory, which reallocates the whole buffer's shadow at the
 * size of that one store (src/plugins/Uninitialized.cpp).
 *
 * A 16-byte buffer b is written whole (4 uints: 0, 0, ~0, 0, blocking), then argv[1] bytes of zeros at offset 0
 * (0: no second write; 16: all of it again), then kernel `upd` does atomic_or(&b[1], 1) and atomic_min(&b[2], 5),
 * the pattern of redscan's segment fault words. Under `oclgrind --uninitialized` a second write of 4 bytes gives
 * reports at b + 4 and b + 8; none and 16 give none. The results are right in every case.
 *
 *   cc -std=c11 -o partial_write partial_write.c -lOpenCL && oclgrind --uninitialized ./partial_write 4 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *src = "__kernel void upd(__global uint *b) { atomic_or(&b[1], 1u); atomic_min(&b[2], 5u); }\n";

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
    const size_t second = argc > 1 ? (size_t)atoi(argv[1]) : 4;
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
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, 16, NULL, &e);
    CK(e);
    const cl_uint init[4] = {0, 0, 0xffffffffu, 0}, zeros[4] = {0, 0, 0, 0};
    CK(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof init, init, 0, NULL, NULL));
    if (second) CK(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, second, zeros, 0, NULL, NULL));
    cl_kernel k = clCreateKernel(pr, "upd", &e);
    CK(e);
    const size_t one = 1;
    CK(clSetKernelArg(k, 0, sizeof b, &b));
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL));
    cl_uint r[4];
    CK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL));
    const int ok = r[1] == 1 && r[2] == (second == 16 ? 0u : 5u);
    printf("second write %zu bytes: results %s (%u %u %u %u)\n", second, ok ? "right" : "WRONG", r[0], r[1], r[2], r[3]);
    return !ok;
}
