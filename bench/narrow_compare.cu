// Narrow types (issue 17 item 3): reduce and inclusive scan of int8, float16, bfloat16 and int16 on the CUDA backend
// against CUB on the same types and the same device memory, and against a device-to-device copy of the same bytes.
// Not part of the CMake build: bench/narrow-compare.sh compiles it on a GPU machine against the toolkit's CUB and
// libredscan.
//
//   narrow_compare N [reps]   prints one row per (type, operation, implementation):
//     type op impl median_ms GB/s x_copy [x_cub]
//   GB/s counts the bytes the operation must move: a reduction reads n elements, a scan reads and writes n; the copy
//   reads and writes n (cudaMemcpyAsync, device to device). x_copy = GB/s / the copy's GB/s (issue 17's target:
//   0.85 at 2^28 on the H100); x_cub = CUB's time / ours.
//
// What is compared: redscan's sum of int8 / int16 in int32 (out_dtype INT32) against cub::DeviceReduce::Sum(-> int32);
// redscan's sum of float16 / bfloat16 in float32 (out_dtype FLOAT32) against cub::DeviceReduce::Reduce(__half /
// __nv_bfloat16 -> float, plus in float); scans int8 -> int8 and int16 -> int16 (int32 arithmetic, the low bits
// stored) against cub::DeviceScan::InclusiveSum on the same types, float16 / bfloat16 -> the same type (float32
// arithmetic, rounded once) against cub::DeviceScan::InclusiveScan with the op in float (CUB's accumulator then is
// float, stored narrow).
// Timing: CUDA events around CUB and the copy on one stream; redscan by redscan_last_device_time (events on its own
// stream). Median of reps after one warm-up. Values are checked: the integer results must match exactly.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "redscan.h"

#define CK(x)                                                                                                      \
    do {                                                                                                           \
        cudaError_t e_ = (x);                                                                                      \
        if (e_ != cudaSuccess) {                                                                                   \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                          \
            std::exit(2);                                                                                          \
        }                                                                                                          \
    } while (0)
#define RK(x)                                                                                                      \
    do {                                                                                                           \
        redscan_status s_ = (x);                                                                                   \
        if (s_ != REDSCAN_OK) {                                                                                    \
            std::fprintf(stderr, "%s: %s\n", #x, redscan_last_error(g_ctx));                                       \
            std::exit(2);                                                                                          \
        }                                                                                                          \
    } while (0)

static redscan_ctx *g_ctx;
static cudaStream_t g_st;
static cudaEvent_t g_e0, g_e1;
static int g_reps = 20;

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median ms of f() enqueued on g_st, timed by events.
template <class F> static double time_cuda(F f)
{
    std::vector<double> t;
    for (int r = 0; r <= g_reps; r++) {
        CK(cudaEventRecord(g_e0, g_st));
        f();
        CK(cudaEventRecord(g_e1, g_st));
        CK(cudaEventSynchronize(g_e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        if (r > 0) t.push_back(ms);
    }
    return median(t);
}
// Median ms of a redscan call, by its own device clock.
template <class F> static double time_redscan(F f)
{
    std::vector<double> t;
    for (int r = 0; r <= g_reps; r++) {
        f();
        double s;
        RK(redscan_last_device_time(g_ctx, &s));
        if (r > 0) t.push_back(s * 1e3);
    }
    return median(t);
}

struct Cub {
    void *temp = nullptr;
    size_t bytes = 0;
    void need(size_t b)
    {
        if (b <= bytes) return;
        if (temp) CK(cudaFree(temp));
        CK(cudaMalloc(&temp, b));
        bytes = b;
    }
};

struct FloatPlus {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct HalfToFloat {
    __device__ float operator()(__half x) const { return __half2float(x); }
};
struct Bf16ToFloat {
    __device__ float operator()(__nv_bfloat16 x) const { return __bfloat162float(x); }
};

static void row(const char *type, const char *op, const char *impl, double ms, double bytes, double copy_gbs,
                double cub_ms)
{
    const double gbs = bytes / ms / 1e6;
    if (cub_ms > 0)
        std::printf("%-9s %-6s %-34s %8.4f %8.1f %6.2f %6.2f\n", type, op, impl, ms, gbs, gbs / copy_gbs, cub_ms / ms);
    else
        std::printf("%-9s %-6s %-34s %8.4f %8.1f %6.2f\n", type, op, impl, ms, gbs, gbs / copy_gbs);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: narrow_compare N [reps]\n");
        return 2;
    }
    const size_t n = std::strtoull(argv[1], nullptr, 0);
    if (argc > 2) g_reps = std::atoi(argv[2]);
    CK(cudaStreamCreateWithFlags(&g_st, cudaStreamNonBlocking));
    CK(cudaEventCreate(&g_e0));
    CK(cudaEventCreate(&g_e1));
    if (redscan_create(&g_ctx, REDSCAN_BACKEND_CUDA) != REDSCAN_OK) {
        std::fprintf(stderr, "redscan_create: %s\n", redscan_last_error(nullptr));
        return 2;
    }
    RK(redscan_set_profiling(g_ctx, 1));
    std::mt19937_64 rng(12345);
    int bad = 0;
    Cub cub;
    std::printf("%-9s %-6s %-34s %8s %8s %6s %6s   (n = %zu, %d reps, median)\n", "type", "op", "impl", "ms", "GB/s",
                "x_copy", "x_cub", n, g_reps);

    for (int ti = 0; ti < 4; ti++) {
        const char *tname = ti == 0 ? "int8" : ti == 1 ? "float16" : ti == 2 ? "bfloat16" : "int16";
        const redscan_dtype dt = ti == 0   ? REDSCAN_INT8
                                 : ti == 1 ? REDSCAN_FLOAT16
                                 : ti == 2 ? REDSCAN_BFLOAT16
                                           : REDSCAN_INT16;
        const bool is_int = ti == 0 || ti == 3;
        const size_t es = ti == 0 ? 1 : 2, bytes = n * es;
        // data: int8 / int16 in [-100, 100]; halves / bfloat16 of small integers (exact sums in float32 up to 2^24)
        std::vector<unsigned char> h(bytes);
        for (size_t i = 0; i < n; i++) {
            const int v = (int)(rng() % 201) - 100;
            if (ti == 0) {
                h[i] = (unsigned char)(signed char)v;
            } else if (ti == 3) {
                const int16_t s16 = (int16_t)v;
                std::memcpy(&h[2 * i], &s16, 2);
            } else {
                const float f = (float)(v % 8);
                uint16_t b;
                if (ti == 1) {
                    const __half hv = __float2half_rn(f);
                    std::memcpy(&b, &hv, 2);
                } else {
                    const __nv_bfloat16 bv = __float2bfloat16_rn(f);
                    std::memcpy(&b, &bv, 2);
                }
                std::memcpy(&h[2 * i], &b, 2);
            }
        }
        void *d_in, *d_out, *d_res;
        CK(cudaMalloc(&d_in, bytes));
        CK(cudaMalloc(&d_out, bytes));
        CK(cudaMalloc(&d_res, 16));
        CK(cudaMemcpy(d_in, h.data(), bytes, cudaMemcpyHostToDevice));
        redscan_buffer *bin = nullptr, *bout = nullptr;
        RK(redscan_buffer_wrap_cuda(g_ctx, d_in, bytes, &bin));
        RK(redscan_buffer_wrap_cuda(g_ctx, d_out, bytes, &bout));

        const double copy_ms = time_cuda([&] { CK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, g_st)); });
        const double copy_gbs = 2.0 * bytes / copy_ms / 1e6;
        row(tname, "copy", "cudaMemcpyAsync D2D", copy_ms, 2.0 * bytes, copy_gbs, 0);

        // ---- reduce: sum in 32 bits
        double cub_ms;
        if (ti == 0) {
            size_t tb = 0;
            CK(cub::DeviceReduce::Sum(nullptr, tb, (const int8_t *)d_in, (int *)d_res, (int)n, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceReduce::Sum(cub.temp, tb, (const int8_t *)d_in, (int *)d_res, (int)n, g_st)); });
        } else if (ti == 3) {
            size_t tb = 0;
            CK(cub::DeviceReduce::Sum(nullptr, tb, (const int16_t *)d_in, (int *)d_res, (int)n, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceReduce::Sum(cub.temp, tb, (const int16_t *)d_in, (int *)d_res, (int)n, g_st)); });
        } else if (ti == 1) {
            auto it = thrust::make_transform_iterator((const __half *)d_in, HalfToFloat());
            size_t tb = 0;
            CK(cub::DeviceReduce::Reduce(nullptr, tb, it, (float *)d_res, (int)n, FloatPlus(), 0.0f, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceReduce::Reduce(cub.temp, tb, it, (float *)d_res, (int)n, FloatPlus(), 0.0f, g_st)); });
        } else {
            auto it = thrust::make_transform_iterator((const __nv_bfloat16 *)d_in, Bf16ToFloat());
            size_t tb = 0;
            CK(cub::DeviceReduce::Reduce(nullptr, tb, it, (float *)d_res, (int)n, FloatPlus(), 0.0f, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceReduce::Reduce(cub.temp, tb, it, (float *)d_res, (int)n, FloatPlus(), 0.0f, g_st)); });
        }
        unsigned char cub_res[8] = {0}, ours_res[8] = {0};
        CK(cudaMemcpy(cub_res, d_res, 4, cudaMemcpyDeviceToHost));
        row(tname, "reduce", is_int ? "cub::DeviceReduce::Sum -> int32" : "cub::DeviceReduce::Reduce -> float", cub_ms,
            (double)bytes, copy_gbs, 0);
        const redscan_reduce_desc rd = {REDSCAN_SUM, dt, is_int ? REDSCAN_INT32 : REDSCAN_FLOAT32, REDSCAN_REDUCE_AUTO, 0};
        const double ours_ms = time_redscan([&] { RK(redscan_reduce_ex(g_ctx, &rd, bin, n, ours_res)); });
        row(tname, "reduce", "redscan_reduce_ex -> 32 bits", ours_ms, (double)bytes, copy_gbs, cub_ms);
        if (std::memcmp(cub_res, ours_res, 4) != 0) {
            std::printf("  results differ: cub %02x%02x%02x%02x, redscan %02x%02x%02x%02x\n", cub_res[3], cub_res[2],
                        cub_res[1], cub_res[0], ours_res[3], ours_res[2], ours_res[1], ours_res[0]);
            bad++;
        }

        // ---- inclusive scan, same type out
        void *d_cub_out;
        CK(cudaMalloc(&d_cub_out, bytes));
        if (ti == 0) {
            size_t tb = 0;
            CK(cub::DeviceScan::InclusiveSum(nullptr, tb, (const int8_t *)d_in, (int8_t *)d_cub_out, (int)n, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceScan::InclusiveSum(cub.temp, tb, (const int8_t *)d_in, (int8_t *)d_cub_out, (int)n, g_st)); });
        } else if (ti == 3) {
            size_t tb = 0;
            CK(cub::DeviceScan::InclusiveSum(nullptr, tb, (const int16_t *)d_in, (int16_t *)d_cub_out, (int)n, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceScan::InclusiveSum(cub.temp, tb, (const int16_t *)d_in, (int16_t *)d_cub_out, (int)n, g_st)); });
        } else if (ti == 1) {
            auto it = thrust::make_transform_iterator((const __half *)d_in, HalfToFloat());
            size_t tb = 0;
            CK(cub::DeviceScan::InclusiveScan(nullptr, tb, it, (__half *)d_cub_out, FloatPlus(), (int)n, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceScan::InclusiveScan(cub.temp, tb, it, (__half *)d_cub_out, FloatPlus(), (int)n, g_st)); });
        } else {
            auto it = thrust::make_transform_iterator((const __nv_bfloat16 *)d_in, Bf16ToFloat());
            size_t tb = 0;
            CK(cub::DeviceScan::InclusiveScan(nullptr, tb, it, (__nv_bfloat16 *)d_cub_out, FloatPlus(), (int)n, g_st));
            cub.need(tb);
            cub_ms = time_cuda([&] { CK(cub::DeviceScan::InclusiveScan(cub.temp, tb, it, (__nv_bfloat16 *)d_cub_out, FloatPlus(), (int)n, g_st)); });
        }
        row(tname, "scan", is_int ? "cub::DeviceScan::InclusiveSum" : "cub::DeviceScan::InclusiveScan(float op)",
            cub_ms, 2.0 * bytes, copy_gbs, 0);
        const redscan_scan_desc sd = {REDSCAN_SUM, dt, dt, 0, nullptr, REDSCAN_BLOCK_AUTO, REDSCAN_GRID_AUTO, 0};
        const double scan_ms = time_redscan([&] { RK(redscan_scan_ex(g_ctx, &sd, bin, bout, n)); });
        row(tname, "scan", "redscan_scan_ex (AUTO)", scan_ms, 2.0 * bytes, copy_gbs, cub_ms);
        if (is_int) { // int8 / int16 wrap-around sums: bit-exact against CUB
            std::vector<unsigned char> a(bytes), b(bytes);
            CK(cudaMemcpy(a.data(), d_cub_out, bytes, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(b.data(), d_out, bytes, cudaMemcpyDeviceToHost));
            if (a != b) {
                std::printf("  %s scans differ from CUB's\n", tname);
                bad++;
            }
        }
        CK(cudaFree(d_cub_out));
        redscan_buffer_destroy(g_ctx, bin);
        redscan_buffer_destroy(g_ctx, bout);
        CK(cudaFree(d_in));
        CK(cudaFree(d_out));
        CK(cudaFree(d_res));
    }
    redscan_destroy(g_ctx);
    std::printf("%s\n", bad ? "RESULTS DIFFER" : "results agree (int8 / int16 exactly; float sums of small integers exactly)");
    return bad ? 1 : 0;
}
