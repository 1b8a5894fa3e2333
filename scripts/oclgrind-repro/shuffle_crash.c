/* Oclgrind 21.10 crash, shown without redscan: `oclgrind --uninitialized` ends in SIGSEGV (inside
 * oclgrind::Uninitialized::instructionExecuted) on a kernel that builds a 16-vector from four 4-vector swizzles.
 * clang emits that as shufflevectors whose masks have undef elements; the plugin compares a mask element (-1 for
 * undef) with llvm::Value::UndefValueVal, an enumerator of LLVM's value kinds, so it takes an undef element for an
 * index into the second operand and copies shadow memory from before it. Without --uninitialized the same run is
 * right. redscan's CPU-shaped kernels (kernels_cl/reduce_coarsened.cl, scan_coarsened_cpu.cl) build their
 * vectors this way.
 *
 *   cc -std=c11 -o shuffle_crash shuffle_crash.c -lOpenCL && oclgrind --uninitialized ./shuffle_crash */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *src = "__kernel void k(__global const int16 *in, __global int16 *out) {\n"
                         "  int16 a = in[0], b = in[1], c = in[2], d = in[3];\n"
                         "  out[0] = (int16)(a.s048c, b.s048c, c.s048c, d.s048c); }\n";

#define CK(x)                                                                                                      \
    do {                                                                                                           \
        cl_int e_ = (x);                                                                                           \
        if (e_ != CL_SUCCESS) {                                                                                    \
            printf("%s: error %d\n", #x, e_);                                                                      \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

int main(void)
{
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
    int x[64], y[16];
    for (int i = 0; i < 64; i++) x[i] = i;
    cl_mem in = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &e);
    CK(e);
    cl_mem out = clCreateBuffer(c, CL_MEM_WRITE_ONLY, sizeof y, NULL, &e);
    CK(e);
    cl_kernel k = clCreateKernel(pr, "k", &e);
    CK(e);
    CK(clSetKernelArg(k, 0, sizeof in, &in));
    CK(clSetKernelArg(k, 1, sizeof out, &out));
    const size_t one = 1;
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL));
    CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));
    int ok = 1;
    for (int i = 0; i < 16; i++) ok &= y[i] == 16 * (i / 4) + 4 * (i % 4);
    printf("results %s\n", ok ? "right" : "WRONG");
    return !ok;
}
