// top-k of float32 against the newest CUB's cub::DeviceTopK (CCCL 3.5+; the toolkit's CCCL 3.0 has none), on the
// same device memory, for issue 16 item 3 (k = 2 and k = 256). Not part of the CMake build: bench/topk-compare.sh
// compiles it on a GPU machine against a CCCL checkout and libredscan, then runs it next to torch.topk.
//
//   topk_compare N K [reps]   prints: n k impl median_ms GB/s (n * 4 bytes read) and whether CUB's k values, sorted,
//                             equal redscan's (redscan returns them sorted best first; DeviceTopK in no order)
//
// Timing: CUB by CUDA events on its stream; redscan by redscan_last_device_time (CUDA events on the context's
// stream, the result's copy to the host included, as in `redscan bench`). Median of reps after one warm-up.
#include <cub/device/device_topk.cuh>
#include <cuda/iterator>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
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
            std::fprintf(stderr, "%s: %s\n", #x, redscan_last_error(ctx));                                         \
            std::exit(2);                                                                                          \
        }                                                                                                          \
    } while (0)

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: topk_compare N K [reps]\n");
        return 2;
    }
    const size_t n = std::strtoull(argv[1], nullptr, 0), k = std::strtoull(argv[2], nullptr, 0);
    const int reps = argc > 3 ? std::atoi(argv[3]) : 20;
    std::vector<float> h(n);
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
    for (auto &x : h) x = dist(rng);
    float *d_in, *d_keys;
    unsigned long long *d_vals;
    CK(cudaMalloc(&d_in, n * sizeof(float)));
    CK(cudaMalloc(&d_keys, k * sizeof(float)));
    CK(cudaMalloc(&d_vals, k * sizeof(unsigned long long)));
    CK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cuda::counting_iterator<unsigned long long> idx(0);
    // The only configuration this CCCL implements: unordered output, not deterministic across runs.
    const auto env = cuda::std::execution::env{
        cuda::stream_ref{st},
        cuda::execution::require(cuda::execution::determinism::not_guaranteed, cuda::execution::output_ordering::unsorted)};

    // CUB DeviceTopK::MaxPairs (keys = values, values = indices)
    size_t temp_bytes = 0;
    CK(cub::DeviceTopK::MaxPairs(nullptr, temp_bytes, d_in, d_keys, idx, d_vals, (long long)n, (long long)k, env));
    void *temp;
    CK(cudaMalloc(&temp, temp_bytes));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> t_cub;
    for (int r = 0; r <= reps; r++) {
        CK(cudaEventRecord(e0, st));
        CK(cub::DeviceTopK::MaxPairs(temp, temp_bytes, d_in, d_keys, idx, d_vals, (long long)n, (long long)k, env));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) t_cub.push_back(ms);
    }
    std::vector<float> cub_keys(k);
    CK(cudaMemcpy(cub_keys.data(), d_keys, k * sizeof(float), cudaMemcpyDeviceToHost));
    std::sort(cub_keys.begin(), cub_keys.end(), std::greater<float>());

    // redscan_topk on the same memory
    redscan_ctx *ctx = nullptr;
    if (redscan_create(&ctx, REDSCAN_BACKEND_CUDA) != REDSCAN_OK) {
        std::fprintf(stderr, "redscan_create: %s\n", redscan_last_error(nullptr));
        return 2;
    }
    redscan_buffer *in = nullptr;
    RK(redscan_buffer_wrap_cuda(ctx, d_in, n * sizeof(float), &in));
    RK(redscan_set_profiling(ctx, 1));
    std::vector<float> ours(k);
    std::vector<uint64_t> ours_idx(k);
    std::vector<double> t_ours;
    for (int r = 0; r <= reps; r++) {
        RK(redscan_topk(ctx, REDSCAN_FLOAT32, in, n, k, 1, ours.data(), ours_idx.data()));
        double s;
        RK(redscan_last_device_time(ctx, &s));
        if (r > 0) t_ours.push_back(s * 1e3);
    }
    const bool same = cub_keys == ours;
    const double bytes = (double)n * sizeof(float);
    const double mc = median(t_cub), mo = median(t_ours);
    std::printf("%zu %zu cub::DeviceTopK::MaxPairs %.4f %.1f\n", n, k, mc, bytes / mc / 1e6);
    std::printf("%zu %zu redscan_topk %.4f %.1f x_cub=%.2f values_equal=%s\n", n, k, mo, bytes / mo / 1e6, mc / mo,
                same ? "yes" : "NO");
    redscan_buffer_destroy(ctx, in);
    redscan_destroy(ctx);
    return same ? 0 : 1;
}
