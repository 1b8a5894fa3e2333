/* test_wrap: running on memory the caller already has on the device (redscan_buffer_wrap_opencl /
 * redscan_buffer_wrap_cuda) and the native handles (redscan_native_handle). The memory is allocated with the
 * backend's own API in the context's native context, wrapped without a copy, reduced and scanned in place;
 * destroying the wrapper leaves the caller's memory valid; wrong-backend, wrong-context and too-large wraps are
 * refused with REDSCAN_ERR_INVALID_ARGUMENT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifdef REDSCAN_TEST_HAVE_OPENCL
#include <CL/cl.h>
#endif
#ifdef REDSCAN_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define N 10007

/* The data, then reduce (sum) and an in-place inclusive scan through the wrapper; checks the result and
 * that the caller's memory holds the scan afterwards (read back by the caller's own API via `readback`). */
static void exercise(redscan_buffer *w, const int32_t *x, int (*readback)(void *dev, int32_t *dst), void *dev)
{
    int64_t want = 0;
    for (int i = 0; i < N; i++) want += x[i];
    int32_t sum = 0;
    if (CHECK_OK(redscan_reduce(h_ctx, REDSCAN_SUM, REDSCAN_INT32, w, N, &sum), "reduce on wrapped memory"))
        CHECK(sum == (int32_t)want, "sum %d, want %d", sum, (int32_t)want);
    if (!CHECK_OK(redscan_scan(h_ctx, REDSCAN_SUM, REDSCAN_INT32, 0, w, w, N), "scan in place on wrapped memory"))
        return;
    int32_t *back = h_malloc(N * sizeof *back);
    if (CHECK(readback(dev, back), "caller's readback failed")) {
        int32_t acc = 0;
        size_t bad = 0;
        for (int i = 0; i < N; i++) {
            acc += x[i];
            bad += back[i] != acc;
        }
        CHECK(bad == 0, "%zu elements of the caller's memory are not the scan", bad);
    }
    free(back);
}

#ifdef REDSCAN_TEST_HAVE_OPENCL
static cl_command_queue g_queue;
static int ocl_read(void *dev, int32_t *dst)
{
    return clEnqueueReadBuffer(g_queue, (cl_mem)dev, CL_TRUE, 0, N * sizeof *dst, dst, 0, NULL, NULL) == CL_SUCCESS;
}

static void opencl_cases(const int32_t *x)
{
    void *cctx = NULL, *queue = NULL, *dev = NULL;
    h_case("native handles (opencl)");
    if (!CHECK_OK(redscan_native_handle(h_ctx, REDSCAN_NATIVE_OPENCL_CONTEXT, &cctx), "context") ||
        !CHECK_OK(redscan_native_handle(h_ctx, REDSCAN_NATIVE_OPENCL_QUEUE, &queue), "queue") ||
        !CHECK_OK(redscan_native_handle(h_ctx, REDSCAN_NATIVE_OPENCL_DEVICE, &dev), "device"))
        return;
    void *stream = (void *)1;
    CHECK_STATUS(redscan_native_handle(h_ctx, REDSCAN_NATIVE_CUDA_STREAM, &stream), REDSCAN_ERR_INVALID_ARGUMENT,
                 "cuda stream of an opencl context");
    CHECK(stream == (void *)1, "handle written on error");
    g_queue = (cl_command_queue)queue;

    h_case("wrap opencl: reduce and in-place scan on the caller's cl_mem");
    cl_int err;
    cl_mem mem = clCreateBuffer((cl_context)cctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof *x,
                                (void *)x, &err);
    if (!CHECK(err == CL_SUCCESS, "clCreateBuffer: %d", err)) return;
    redscan_buffer *w = NULL;
    if (CHECK_OK(redscan_buffer_wrap_opencl(h_ctx, mem, N * sizeof *x, &w), "wrap")) {
        CHECK(redscan_buffer_size(w) == N * sizeof *x, "wrapped size");
        exercise(w, x, ocl_read, mem);
        redscan_buffer_destroy(h_ctx, w);
        /* the caller's reference is intact: the memory still reads */
        int32_t first = 0;
        CHECK(clEnqueueReadBuffer(g_queue, mem, CL_TRUE, 0, 4, &first, 0, NULL, NULL) == CL_SUCCESS && first == x[0],
              "cl_mem unusable after the wrapper was destroyed");
    }
    h_case("wrap opencl: refusals");
    w = NULL;
    CHECK_STATUS(redscan_buffer_wrap_opencl(h_ctx, mem, N * sizeof *x + 1, &w), REDSCAN_ERR_INVALID_ARGUMENT,
                 "bytes beyond the cl_mem");
    CHECK(w == NULL, "buffer written on error");
    CHECK_STATUS(redscan_buffer_wrap_cuda(h_ctx, mem, 4, &w), REDSCAN_ERR_INVALID_ARGUMENT, "wrap_cuda on opencl");
    /* memory of another cl_context on the same device */
    cl_device_id device = (cl_device_id)dev;
    cl_context other = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (CHECK(err == CL_SUCCESS, "clCreateContext: %d", err)) {
        cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, NULL, &err);
        if (CHECK(err == CL_SUCCESS, "clCreateBuffer (other context)")) {
            CHECK_STATUS(redscan_buffer_wrap_opencl(h_ctx, foreign, 64, &w), REDSCAN_ERR_INVALID_ARGUMENT,
                         "cl_mem of another context");
            clReleaseMemObject(foreign);
        }
        clReleaseContext(other);
    }
    clReleaseMemObject(mem);
}
#endif

#ifdef REDSCAN_TEST_HAVE_CUDA
static int cuda_read(void *dev, int32_t *dst)
{
    return cudaMemcpy(dst, dev, N * sizeof *dst, cudaMemcpyDeviceToHost) == cudaSuccess;
}

/* Segmented sums of values and int32 offsets that start 4 bytes past a 16-byte boundary (wrapped interior pointers):
 * CUDA's seg_check and seg_short read 16 aligned bytes at a time where they can, value by value here. Short segments
 * (mostly 1 value, some of 5..128: packed batches) and one of 1397, int32 sums against the host, float32 sums and
 * argmax bit for bit against the same calls from aligned addresses; then a decreasing offset is reported and nothing
 * is written. */
#define SEG_N 8192   /* two tiles: n <= 16 S takes the packed batches */
#define SEG_LONG 1400
static void segmented_misaligned(void)
{
    h_case("wrap cuda: segmented reduce from addresses 4 bytes past 16");
    static const size_t pattern[] = {1, 1, 1, 7, 1, 1, 40, 1, 0, 1, 3, 1, 20, 1, 1, 128, 1, 5, 1, 33, 1, 1, 32, 4};
    uint32_t *off = h_malloc((SEG_N + 1) * sizeof *off);
    size_t S = 0, at = 0;
    while (at + pattern[S % (sizeof pattern / sizeof pattern[0])] <= SEG_N - SEG_LONG) {
        off[S] = (uint32_t)at;
        at += pattern[S % (sizeof pattern / sizeof pattern[0])];
        S++;
    }
    off[S++] = (uint32_t)at; /* one long segment (argmax: a warp's 16-byte loads from the input) */
    at += SEG_LONG - 3;
    off[S] = (uint32_t)at;
    int32_t *xi = h_malloc(SEG_N * sizeof *xi);
    float *xf = h_malloc(SEG_N * sizeof *xf);
    h_rng r;
    h_rng_init(&r, h_seed(8, 0, 0, 0, 0, 0));
    for (size_t i = 0; i < SEG_N; i++) {
        xi[i] = (int32_t)h_rng_below(&r, 2000001) - 1000000;
        xf[i] = (float)xi[i] * 1e-3f + 0.1f;
    }
    unsigned char *mem = NULL; /* 16-byte aligned: values at +4 (misaligned) and +16 (aligned), offsets likewise */
    const size_t vbytes = (SEG_N + 8) * 4, obytes = (SEG_N + 8) * 4;
    if (!CHECK(cudaMalloc((void **)&mem, 2 * vbytes + 2 * obytes) == cudaSuccess, "cudaMalloc")) goto done;
    unsigned char *const vm = mem + 4, *const va = mem + vbytes + 16, *const om = mem + 2 * vbytes + 4,
                         *const oa = mem + 2 * vbytes + obytes + 16;
    CHECK(cudaMemcpy(om, off, (S + 1) * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(oa, off, (S + 1) * 4, cudaMemcpyHostToDevice) == cudaSuccess,
          "cudaMemcpy offsets");
    redscan_buffer *bvm = NULL, *bva = NULL, *bom = NULL, *boa = NULL, *out = NULL;
    if (CHECK_OK(redscan_buffer_wrap_cuda(h_ctx, vm, SEG_N * 4, &bvm), "wrap values +4") &&
        CHECK_OK(redscan_buffer_wrap_cuda(h_ctx, va, SEG_N * 4, &bva), "wrap values +16") &&
        CHECK_OK(redscan_buffer_wrap_cuda(h_ctx, om, (S + 1) * 4, &bom), "wrap offsets +4") &&
        CHECK_OK(redscan_buffer_wrap_cuda(h_ctx, oa, (S + 1) * 4, &boa), "wrap offsets +16") &&
        CHECK_OK(redscan_buffer_create(h_ctx, S * 4, &out), "out")) {
        int32_t *got = h_malloc(S * 4), *ref = h_malloc(S * 4);
        /* int32: the misaligned call against the host */
        CHECK(cudaMemcpy(vm, xi, SEG_N * 4, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy values");
        redscan_reduce_desc di = {REDSCAN_SUM, REDSCAN_INT32, 0, REDSCAN_REDUCE_AUTO, 0};
        if (CHECK_OK(redscan_segmented_reduce(h_ctx, &di, bvm, REDSCAN_UINT32, bom, S, out), "int32, +4") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, S * 4), "read")) {
            size_t bad = 0;
            for (size_t s = 0; s < S; s++) {
                uint32_t acc = 0;
                for (uint32_t i = off[s]; i < off[s + 1]; i++) acc += (uint32_t)xi[i];
                bad += (uint32_t)got[s] != acc;
            }
            CHECK(bad == 0, "int32 segmented sums from +4: %zu of %zu segments differ from the host", bad, S);
        }
        /* float32: misaligned and aligned, the same bits */
        CHECK(cudaMemcpy(vm, xf, SEG_N * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
                  cudaMemcpy(va, xf, SEG_N * 4, cudaMemcpyHostToDevice) == cudaSuccess,
              "cudaMemcpy values");
        redscan_reduce_desc df = {REDSCAN_SUM, REDSCAN_FLOAT32, 0, REDSCAN_REDUCE_AUTO, 0};
        if (CHECK_OK(redscan_segmented_reduce(h_ctx, &df, bvm, REDSCAN_UINT32, bom, S, out), "float32, +4") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, got, S * 4), "read") &&
            CHECK_OK(redscan_segmented_reduce(h_ctx, &df, bva, REDSCAN_UINT32, boa, S, out), "float32, +16") &&
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, ref, S * 4), "read"))
            CHECK(memcmp(got, ref, S * 4) == 0, "float32 segmented sums: other bits from +4 than from +16");
        /* float32 argmax: misaligned and aligned, the same indices and values */
        redscan_buffer *ix = NULL, *vx = NULL;
        if (CHECK_OK(redscan_buffer_create(h_ctx, S * 8, &ix), "indices") &&
            CHECK_OK(redscan_buffer_create(h_ctx, S * 4, &vx), "values")) {
            uint64_t *i4 = h_malloc(S * 8), *i16 = h_malloc(S * 8);
            if (CHECK_OK(redscan_segmented_argmax(h_ctx, REDSCAN_FLOAT32, bvm, REDSCAN_UINT32, bom, S, ix, vx),
                         "argmax, +4") &&
                CHECK_OK(redscan_buffer_read(h_ctx, ix, 0, i4, S * 8), "read") &&
                CHECK_OK(redscan_buffer_read(h_ctx, vx, 0, got, S * 4), "read") &&
                CHECK_OK(redscan_segmented_argmax(h_ctx, REDSCAN_FLOAT32, bva, REDSCAN_UINT32, boa, S, ix, vx),
                         "argmax, +16") &&
                CHECK_OK(redscan_buffer_read(h_ctx, ix, 0, i16, S * 8), "read") &&
                CHECK_OK(redscan_buffer_read(h_ctx, vx, 0, ref, S * 4), "read")) {
                CHECK(memcmp(i4, i16, S * 8) == 0 && memcmp(got, ref, S * 4) == 0,
                      "float32 segmented argmax: other results from +4 than from +16");
                size_t best = off[S - 1];
                for (size_t i = off[S - 1]; i < off[S]; i++)
                    if (xf[i] > xf[best]) best = i;
                CHECK(i4[S - 1] == best, "argmax of the long segment: %llu, want %zu", (unsigned long long)i4[S - 1],
                      best);
            }
            free(i4);
            free(i16);
        }
        redscan_buffer_destroy(h_ctx, ix);
        redscan_buffer_destroy(h_ctx, vx);
        /* a decreasing offset at +4: reported, nothing written */
        const uint32_t big = (uint32_t)SEG_N;
        const size_t f = S / 2 + 1;
        memset(got, 0x5a, S * 4);
        CHECK(cudaMemcpy(om + f * 4, &big, 4, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy fault");
        if (CHECK_OK(redscan_buffer_write(h_ctx, out, 0, got, S * 4), "fill")) {
            const redscan_status st = redscan_segmented_reduce(h_ctx, &df, bvm, REDSCAN_UINT32, bom, S, out);
            char want[32];
            snprintf(want, sizeof want, "offsets[%zu]", f);
            CHECK(st == REDSCAN_ERR_INVALID_ARGUMENT && strstr(redscan_last_error(h_ctx), want),
                  "decreasing offset at +4: status %d, \"%s\"", (int)st, redscan_last_error(h_ctx));
            CHECK_OK(redscan_buffer_read(h_ctx, out, 0, ref, S * 4), "read");
            CHECK(memcmp(got, ref, S * 4) == 0, "decreasing offset at +4: the output was written");
        }
        free(got);
        free(ref);
    }
    redscan_buffer_destroy(h_ctx, out);
    redscan_buffer_destroy(h_ctx, bvm);
    redscan_buffer_destroy(h_ctx, bva);
    redscan_buffer_destroy(h_ctx, bom);
    redscan_buffer_destroy(h_ctx, boa);
    cudaFree(mem);
done:
    free(off);
    free(xi);
    free(xf);
}

static void cuda_cases(const int32_t *x)
{
    void *stream = NULL;
    h_case("native handles (cuda)");
    CHECK_OK(redscan_native_handle(h_ctx, REDSCAN_NATIVE_CUDA_STREAM, &stream), "stream");
    void *cctx = NULL;
    CHECK_STATUS(redscan_native_handle(h_ctx, REDSCAN_NATIVE_OPENCL_CONTEXT, &cctx), REDSCAN_ERR_INVALID_ARGUMENT,
                 "opencl context of a cuda context");

    h_case("wrap cuda: reduce and in-place scan on the caller's cudaMalloc memory");
    void *mem = NULL;
    if (!CHECK(cudaMalloc(&mem, N * sizeof *x) == cudaSuccess, "cudaMalloc")) return;
    CHECK(cudaMemcpy(mem, x, N * sizeof *x, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy");
    redscan_buffer *w = NULL;
    if (CHECK_OK(redscan_buffer_wrap_cuda(h_ctx, mem, N * sizeof *x, &w), "wrap")) {
        exercise(w, x, cuda_read, mem);
        redscan_buffer_destroy(h_ctx, w);
        int32_t first = 0;
        CHECK(cudaMemcpy(&first, mem, 4, cudaMemcpyDeviceToHost) == cudaSuccess && first == x[0],
              "memory unusable after the wrapper was destroyed");
    }
    segmented_misaligned();
    h_case("wrap cuda: refusals");
    w = NULL;
    int host_var = 0;
    CHECK_STATUS(redscan_buffer_wrap_cuda(h_ctx, &host_var, 4, &w), REDSCAN_ERR_INVALID_ARGUMENT,
                 "a host pointer");
    CHECK(w == NULL, "buffer written on error");
    CHECK_STATUS(redscan_buffer_wrap_opencl(h_ctx, mem, 4, &w), REDSCAN_ERR_INVALID_ARGUMENT, "wrap_opencl on cuda");
    cudaFree(mem);
}
#endif

int main(void)
{
    h_open("test_wrap");
    int32_t *x = h_malloc(N * sizeof *x);
    h_rng r;
    h_rng_init(&r, h_seed(7, 0, 0, 0, 0, 0));
    for (int i = 0; i < N; i++) x[i] = (int32_t)h_rng_below(&r, 2001) - 1000;
    const char *backend = redscan_backend_name(h_ctx);
    int ran = 0;
#ifdef REDSCAN_TEST_HAVE_OPENCL
    if (!strcmp(backend, "opencl")) opencl_cases(x), ran = 1;
#endif
#ifdef REDSCAN_TEST_HAVE_CUDA
    if (!strcmp(backend, "cuda")) cuda_cases(x), ran = 1;
#endif
    free(x);
    if (!ran) {
        printf("SKIP test_wrap: the test was built without the native API of backend '%s'\n", backend);
        redscan_destroy(h_ctx);
        return H_SKIP;
    }
    return h_done();
}
