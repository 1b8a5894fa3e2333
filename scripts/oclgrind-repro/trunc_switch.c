/* Oclgrind wrong result, shown without redscan: kernels_cl/common.clh's float16 -> float32 conversion
 * (rs_half_to_float, copied below) gives a wrong value for every float16 with the sign set and the exponent field 0 or
 * 31: -0.0, the negative subnormals, -inf and the negative NaNs (0x8001 -> 0xb8002000 = -3.05e-5 instead of
 * 0xb3800000 = -5.96e-8; 0xfc00 -> -65536 instead of -inf). The positive ones and every normal value are right.
 *
 * clang lowers the exponent test `e = (h >> 10) & 0x1f; e == 0x1f ? .. : e != 0 ? .. : ..` to
 * `%t = trunc i32 (zext h >> 10) to i5` and `switch i5 %t [-1: inf/NaN, 0: subnormal], default: normal`
 * (`oclgrind --dump-spir`). Oclgrind's itrunc (src/core/WorkItem.cpp) copies the value into the result's 1-byte slot
 * without masking it to 5 bits, so for a negative h the switch sees 0x20 | e, matches no case and takes the default.
 * Seen in Oclgrind 21.10 (the Debian package); the same code is in 26.03.1.
 *
 *   cc -std=c11 -o trunc_switch trunc_switch.c -lOpenCL && oclgrind ./trunc_switch     (PoCL alone: all right) */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *src = "inline float rs_half_to_float(ushort h)\n"
                         "{\n"
                         "    const uint sign = (uint)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
                         "    const uint bits = e == 0x1fu ? 0x7f800000u | (m << 13)\n"
                         "                      : e != 0   ? ((e + 112u) << 23) | (m << 13)\n"
                         "                                 : as_uint((float)m * 0x1p-24f);\n"
                         "    return as_float(sign | bits);\n"
                         "}\n"
                         "__kernel void k(__global const ushort *in, __global uint *out)\n"
                         "{ out[get_global_id(0)] = as_uint(rs_half_to_float(in[get_global_id(0)])); }\n";

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
    /* float16 patterns and their float32 bits */
    static const unsigned short h[] = {0x0001, 0x8001, 0x0000, 0x8000, 0x7c00, 0xfc00, 0xfe01, 0x3c00, 0xbc00};
    static const unsigned want[] = {0x33800000, 0xb3800000, 0x00000000, 0x80000000, 0x7f800000,
                                    0xff800000, 0xffc02000, 0x3f800000, 0xbf800000};
    enum { N = sizeof h / sizeof h[0] };
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
    cl_mem in = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof h, (void *)h, &e);
    CK(e);
    cl_mem out = clCreateBuffer(c, CL_MEM_WRITE_ONLY, N * sizeof(unsigned), NULL, &e);
    CK(e);
    cl_kernel k = clCreateKernel(pr, "k", &e);
    CK(e);
    CK(clSetKernelArg(k, 0, sizeof in, &in));
    CK(clSetKernelArg(k, 1, sizeof out, &out));
    const size_t n = N;
    CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &n, 0, NULL, NULL));
    unsigned got[N];
    CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        printf("0x%04x -> 0x%08x%s\n", h[i], got[i], got[i] == want[i] ? "" : "   WRONG");
        wrong += got[i] != want[i];
    }
    printf("results %s (%d of %d wrong)\n", wrong ? "WRONG" : "right", wrong, N);
    return wrong != 0;
}
