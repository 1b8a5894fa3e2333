// redscan bench: CUDA references measured in the same process as the library (see cub_compare.h).
//
//   - device-to-device copy bandwidth: cudaMemcpyAsync, timed with CUDA events;
//   - CUB (ships with the CUDA toolkit): cub::DeviceReduce::Sum / Min / Max / Reduce(multiplies) / ArgMax and
//     cub::DeviceScan::InclusiveSum / ExclusiveSum / InclusiveScan / ExclusiveScan, for every redscan dtype.
//
// Each case: CUB's temporary storage is allocated once (not timed); one warm-up run on buffer 0 whose result the
// tool verifies; `reps` runs timed with CUDA events (start and stop recorded on the helper's stream around the
// call: device time, launch overhead hidden); `reps` more runs timed with the host clock around call + result to
// host (reductions) + stream synchronize, which is what redscan's blocking calls are measured with. Runs rotate over
// nbuf input (and output) buffers so that repeated runs do not read from the L2 cache.
//
// Only this file is C++/CUDA; the tool (C11) calls the extern "C" functions declared in cub_compare.h.

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "cub_compare.h"
#include "redscan.h"

namespace {

cudaStream_t g_stream = nullptr;
cudaEvent_t g_ev0 = nullptr, g_ev1 = nullptr;
cudaEvent_t g_pev0 = nullptr, g_pev1 = nullptr; // rsb_stream_mark: on a stream the caller owns
int g_open = 0;

int fail(char *err, size_t err_len, const char *what, cudaError_t e)
{
    if (err && err_len)
        snprintf(err, err_len, "%s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
    (void)cudaGetLastError(); // clear a sticky launch error so that the next case starts clean
    return 1;
}

int fail_text(char *err, size_t err_len, const char *text)
{
    if (err && err_len)
        snprintf(err, err_len, "%s", text);
    return 1;
}

#define RSB_CK(call, what)                                                                                             \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess)                                                                                         \
            return fail(err, err_len, what, e_);                                                                       \
    } while (0)

double now_ms()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

void median_min(std::vector<double> &v, double *med, double *mn)
{
    std::sort(v.begin(), v.end());
    size_t k = v.size();
    *med = k == 0 ? 0.0 : (k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]));
    *mn = k == 0 ? 0.0 : v[0];
}

struct OpProd {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return a * b; }
};
struct OpMin {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
struct OpMax {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};

template <class T> T identity_of(int op)
{
    switch (op) {
    case REDSCAN_PROD: return T(1);
    case REDSCAN_MIN:
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
    case REDSCAN_MAX:
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
    default: return T(0);
    }
}

// One CUB call (temp == nullptr: size query). n fits in int (checked by the caller): CUB's 32-bit offsets, as
// CUB is normally called. ArgMax takes a 64-bit count in this CCCL.
template <class T>
cudaError_t cub_call(const rsb_cub_case &c, void *temp, size_t &temp_bytes, const void *in_v, void *out_v,
                     int64_t *index_out)
{
    const T *in = static_cast<const T *>(in_v);
    T *out = static_cast<T *>(out_v);
    const int n = (int)c.n;
    cudaStream_t s = g_stream;
    if (c.kind == RSB_CUB_REDUCE) {
        switch (c.op) {
        case REDSCAN_SUM: return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, s);
        case REDSCAN_MIN: return cub::DeviceReduce::Min(temp, temp_bytes, in, out, n, s);
        case REDSCAN_MAX: return cub::DeviceReduce::Max(temp, temp_bytes, in, out, n, s);
        case REDSCAN_PROD: return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, n, OpProd{}, T(1), s);
        default: return cudaErrorInvalidValue;
        }
    }
    if (c.kind == RSB_CUB_ARGMAX)
        return cub::DeviceReduce::ArgMax(temp, temp_bytes, in, out, index_out, (int64_t)c.n, s);
    // scans
    if (c.op == REDSCAN_SUM)
        return c.exclusive ? cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, s)
                           : cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, s);
    const T init = identity_of<T>(c.op);
    switch (c.op) {
    case REDSCAN_PROD:
        return c.exclusive ? cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out, OpProd{}, init, n, s)
                           : cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, OpProd{}, n, s);
    case REDSCAN_MIN:
        return c.exclusive ? cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out, OpMin{}, init, n, s)
                           : cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, OpMin{}, n, s);
    case REDSCAN_MAX:
        return c.exclusive ? cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out, OpMax{}, init, n, s)
                           : cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, OpMax{}, n, s);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t cub_dispatch(const rsb_cub_case &c, void *temp, size_t &temp_bytes, const void *in, void *out,
                         int64_t *index_out)
{
    switch (c.dtype) {
    case REDSCAN_INT32: return cub_call<int32_t>(c, temp, temp_bytes, in, out, index_out);
    case REDSCAN_UINT32: return cub_call<uint32_t>(c, temp, temp_bytes, in, out, index_out);
    case REDSCAN_INT64: return cub_call<int64_t>(c, temp, temp_bytes, in, out, index_out);
    case REDSCAN_UINT64: return cub_call<uint64_t>(c, temp, temp_bytes, in, out, index_out);
    case REDSCAN_FLOAT32: return cub_call<float>(c, temp, temp_bytes, in, out, index_out);
    case REDSCAN_FLOAT64: return cub_call<double>(c, temp, temp_bytes, in, out, index_out);
    default: return cudaErrorInvalidValue;
    }
}

size_t dtype_size(int dtype)
{
    switch (dtype) {
    case REDSCAN_INT32: case REDSCAN_UINT32: case REDSCAN_FLOAT32: return 4;
    case REDSCAN_INT64: case REDSCAN_UINT64: case REDSCAN_FLOAT64: return 8;
    default: return 0;
    }
}

} // namespace

extern "C" int rsb_cuda_open(int ordinal, rsb_cuda_info *info, char *err, size_t err_len)
{
    int count = 0;
    RSB_CK(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (count <= 0)
        return fail_text(err, err_len, "no CUDA device");
    if (ordinal < 0 || ordinal >= count) {
        char buf[160];
        snprintf(buf, sizeof buf, "CUDA device %d does not exist (%d device%s)", ordinal, count, count == 1 ? "" : "s");
        return fail_text(err, err_len, buf);
    }
    RSB_CK(cudaSetDevice(ordinal), "cudaSetDevice");
    cudaDeviceProp prop;
    RSB_CK(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
    if (info) {
        memset(info, 0, sizeof *info);
        snprintf(info->name, sizeof info->name, "%s", prop.name);
        info->ordinal = ordinal;
        info->cc_major = prop.major;
        info->cc_minor = prop.minor;
        info->sm_count = prop.multiProcessorCount;
        info->l2_bytes = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
        RSB_CK(cudaMemGetInfo(&info->mem_free, &info->mem_total), "cudaMemGetInfo");
        (void)cudaRuntimeGetVersion(&info->runtime_version);
        (void)cudaDriverGetVersion(&info->driver_version);
    }
    if (!g_open) {
        RSB_CK(cudaStreamCreate(&g_stream), "cudaStreamCreate");
        RSB_CK(cudaEventCreate(&g_ev0), "cudaEventCreate");
        RSB_CK(cudaEventCreate(&g_ev1), "cudaEventCreate");
        RSB_CK(cudaEventCreate(&g_pev0), "cudaEventCreate");
        RSB_CK(cudaEventCreate(&g_pev1), "cudaEventCreate");
        g_open = 1;
    }
    return 0;
}

extern "C" void rsb_cuda_close(void)
{
    if (!g_open)
        return;
    (void)cudaStreamSynchronize(g_stream);
    (void)cudaEventDestroy(g_ev0);
    (void)cudaEventDestroy(g_ev1);
    (void)cudaEventSynchronize(g_pev1); // a mark on the caller's stream may still be pending
    (void)cudaEventDestroy(g_pev0);
    (void)cudaEventDestroy(g_pev1);
    (void)cudaStreamDestroy(g_stream);
    g_stream = nullptr;
    g_open = 0;
}

extern "C" void *rsb_cuda_alloc(size_t bytes, char *err, size_t err_len)
{
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "cudaMalloc(%zu bytes)", bytes);
        fail(err, err_len, what, e);
        return nullptr;
    }
    return p;
}

extern "C" void rsb_cuda_free(void *ptr)
{
    if (ptr)
        (void)cudaFree(ptr);
}

extern "C" int rsb_cuda_upload(void *dst, const void *src, size_t bytes, char *err, size_t err_len)
{
    RSB_CK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (host to device)");
    return 0;
}

extern "C" int rsb_cuda_download(void *dst, const void *src, size_t bytes, char *err, size_t err_len)
{
    RSB_CK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (device to host)");
    return 0;
}

extern "C" int rsb_cuda_time_copy(void *const *dst, void *const *src, int nbuf, size_t bytes, int reps,
                                  rsb_cuda_timing *t, char *err, size_t err_len)
{
    if (!g_open)
        return fail_text(err, err_len, "rsb_cuda_time_copy: rsb_cuda_open was not called");
    if (nbuf < 1 || reps < 1)
        return fail_text(err, err_len, "rsb_cuda_time_copy: nbuf and reps must be >= 1");
    memset(t, 0, sizeof *t);
    RSB_CK(cudaMemcpyAsync(dst[0], src[0], bytes, cudaMemcpyDeviceToDevice, g_stream), "cudaMemcpyAsync (warm-up)");
    RSB_CK(cudaStreamSynchronize(g_stream), "cudaStreamSynchronize");
    std::vector<double> ev, host;
    int r = 1;
    for (int i = 0; i < reps; ++i, ++r) {
        int b = r % nbuf;
        RSB_CK(cudaEventRecord(g_ev0, g_stream), "cudaEventRecord");
        RSB_CK(cudaMemcpyAsync(dst[b], src[b], bytes, cudaMemcpyDeviceToDevice, g_stream), "cudaMemcpyAsync");
        RSB_CK(cudaEventRecord(g_ev1, g_stream), "cudaEventRecord");
        RSB_CK(cudaEventSynchronize(g_ev1), "cudaEventSynchronize");
        float ms = 0;
        RSB_CK(cudaEventElapsedTime(&ms, g_ev0, g_ev1), "cudaEventElapsedTime");
        ev.push_back(ms);
    }
    for (int i = 0; i < reps; ++i, ++r) {
        int b = r % nbuf;
        double t0 = now_ms();
        RSB_CK(cudaMemcpyAsync(dst[b], src[b], bytes, cudaMemcpyDeviceToDevice, g_stream), "cudaMemcpyAsync");
        RSB_CK(cudaStreamSynchronize(g_stream), "cudaStreamSynchronize");
        host.push_back(now_ms() - t0);
    }
    median_min(ev, &t->ev_median_ms, &t->ev_min_ms);
    median_min(host, &t->host_median_ms, &t->host_min_ms);
    t->reps = reps;
    t->reproducible = 1;
    return 0;
}

extern "C" int rsb_cub_supported(int kind, int op, int dtype)
{
    if (dtype_size(dtype) == 0)
        return 0;
    if (kind == RSB_CUB_ARGMAX)
        return 1;
    return (kind == RSB_CUB_REDUCE || kind == RSB_CUB_SCAN) && op >= REDSCAN_SUM && op <= REDSCAN_MAX;
}

extern "C" const char *rsb_cub_call_name(int kind, int op, int exclusive)
{
    if (kind == RSB_CUB_ARGMAX)
        return "cub::DeviceReduce::ArgMax";
    if (kind == RSB_CUB_REDUCE) {
        switch (op) {
        case REDSCAN_SUM: return "cub::DeviceReduce::Sum";
        case REDSCAN_MIN: return "cub::DeviceReduce::Min";
        case REDSCAN_MAX: return "cub::DeviceReduce::Max";
        case REDSCAN_PROD: return "cub::DeviceReduce::Reduce(multiplies)";
        default: return "?";
        }
    }
    if (op == REDSCAN_SUM)
        return exclusive ? "cub::DeviceScan::ExclusiveSum" : "cub::DeviceScan::InclusiveSum";
    return exclusive ? "cub::DeviceScan::ExclusiveScan" : "cub::DeviceScan::InclusiveScan";
}

extern "C" int rsb_cub_run(const rsb_cub_case *c, rsb_cuda_timing *t, char *err, size_t err_len)
{
    if (!g_open)
        return fail_text(err, err_len, "rsb_cub_run: rsb_cuda_open was not called");
    memset(t, 0, sizeof *t);
    if (!rsb_cub_supported(c->kind, c->op, c->dtype))
        return fail_text(err, err_len, "this CUB case is not wired up in bench/cub_compare.cu");
    if (c->n == 0 || c->n > (size_t)INT_MAX)
        return fail_text(err, err_len, "the CUB comparison takes 1 <= n <= 2^31-1 (CUB's 32-bit offsets)");
    if (c->nbuf < 1 || c->reps < 1 || (c->kind == RSB_CUB_SCAN && !c->out))
        return fail_text(err, err_len, "rsb_cub_run: bad case (nbuf, reps or out)");
    const size_t sz = dtype_size(c->dtype);

    // Small device result area: value at 0, int64 index at 64.
    void *d_res = nullptr, *d_temp = nullptr;
    RSB_CK(cudaMalloc(&d_res, 128), "cudaMalloc (result)");
    int64_t *d_index = reinterpret_cast<int64_t *>(static_cast<char *>(d_res) + 64);
    int rc = 0;
    size_t temp_bytes = 0;
    std::vector<double> ev, host;
    unsigned char got[8 + 8];
    unsigned char last_warm[8] = {0};
    int reproducible = 1;
    auto out_of = [&](int b) -> void * { return c->kind == RSB_CUB_SCAN ? c->out[b] : d_res; };
    // Result of one run to host (reductions: value; argmax: value + index; scans: the last element).
    auto fetch = [&](int b, unsigned char *dst) -> cudaError_t {
        if (c->kind == RSB_CUB_SCAN)
            return cudaMemcpyAsync(dst, static_cast<const char *>(c->out[b]) + (c->n - 1) * sz, sz,
                                   cudaMemcpyDeviceToHost, g_stream);
        cudaError_t e = cudaMemcpyAsync(dst, d_res, sz, cudaMemcpyDeviceToHost, g_stream);
        if (e == cudaSuccess && c->kind == RSB_CUB_ARGMAX)
            e = cudaMemcpyAsync(dst + 8, d_index, sizeof(int64_t), cudaMemcpyDeviceToHost, g_stream);
        return e;
    };
    cudaError_t e = cub_dispatch(*c, nullptr, temp_bytes, c->in[0], out_of(0), d_index);
    const char *what = "CUB temporary-storage query";
    if (e == cudaSuccess) {
        what = "cudaMalloc (CUB temporary storage)";
        e = cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1);
    }
    if (e == cudaSuccess) { // warm-up, on buffer 0
        what = rsb_cub_call_name(c->kind, c->op, c->exclusive);
        e = cub_dispatch(*c, d_temp, temp_bytes, c->in[0], out_of(0), d_index);
        if (e == cudaSuccess)
            e = fetch(0, got);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g_stream);
        if (e == cudaSuccess) {
            memcpy(t->value, got, sz);
            if (c->kind == RSB_CUB_ARGMAX)
                memcpy(&t->index, got + 8, sizeof(int64_t));
            memcpy(last_warm, got, sz);
        }
    }
    int r = 1;
    for (int i = 0; e == cudaSuccess && i < c->reps; ++i, ++r) { // CUDA events
        int b = r % c->nbuf;
        e = cudaEventRecord(g_ev0, g_stream);
        if (e == cudaSuccess)
            e = cub_dispatch(*c, d_temp, temp_bytes, c->in[b], out_of(b), d_index);
        if (e == cudaSuccess)
            e = cudaEventRecord(g_ev1, g_stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(g_ev1);
        float ms = 0;
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, g_ev0, g_ev1);
        ev.push_back(ms);
    }
    int last_b = 0;
    for (int i = 0; e == cudaSuccess && i < c->reps; ++i, ++r) { // host clock, result to host included
        int b = r % c->nbuf;
        double t0 = now_ms();
        e = cub_dispatch(*c, d_temp, temp_bytes, c->in[b], out_of(b), d_index);
        if (e == cudaSuccess && c->kind != RSB_CUB_SCAN)
            e = fetch(b, got);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g_stream);
        host.push_back(now_ms() - t0);
        if (e == cudaSuccess && c->kind != RSB_CUB_SCAN &&
            (memcmp(got, t->value, sz) || (c->kind == RSB_CUB_ARGMAX && memcmp(got + 8, &t->index, 8))))
            reproducible = 0;
        last_b = b;
    }
    if (e == cudaSuccess && c->kind == RSB_CUB_SCAN) { // the last run's last element (not timed)
        e = fetch(last_b, got);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g_stream);
        if (e == cudaSuccess && memcmp(got, last_warm, sz))
            reproducible = 0;
    }
    if (e != cudaSuccess)
        rc = fail(err, err_len, what, e);
    else {
        median_min(ev, &t->ev_median_ms, &t->ev_min_ms);
        median_min(host, &t->host_median_ms, &t->host_min_ms);
        t->reps = c->reps;
        t->temp_bytes = temp_bytes;
        t->reproducible = reproducible;
    }
    (void)cudaStreamSynchronize(g_stream);
    if (d_temp)
        (void)cudaFree(d_temp);
    (void)cudaFree(d_res);
    return rc;
}

// ---------------------------------------------------------------------------------------- pipelined (latency) mode

extern "C" int rsb_stream_mark(void *stream, int stop, char *err, size_t err_len)
{
    if (!g_open)
        return fail_text(err, err_len, "rsb_stream_mark: rsb_cuda_open was not called");
    // cudaStream_t is the driver's CUstream: a stream made by the library's own copy of the static runtime is valid
    // here too (same device, same primary context).
    RSB_CK(cudaEventRecord(stop ? g_pev1 : g_pev0, static_cast<cudaStream_t>(stream)),
           "cudaEventRecord (on the library's stream)");
    return 0;
}

extern "C" int rsb_stream_elapsed_ms(double *ms, char *err, size_t err_len)
{
    if (!g_open)
        return fail_text(err, err_len, "rsb_stream_elapsed_ms: rsb_cuda_open was not called");
    RSB_CK(cudaEventSynchronize(g_pev1), "cudaEventSynchronize");
    float f = 0;
    RSB_CK(cudaEventElapsedTime(&f, g_pev0, g_pev1), "cudaEventElapsedTime");
    *ms = f;
    return 0;
}

namespace {

// The device memory of one pipelined case, freed by its destructor on every path (after the stream drained).
struct PipeMem {
    void *temp = nullptr, *out = nullptr;
    int64_t *index = nullptr;
    ~PipeMem()
    {
        (void)cudaStreamSynchronize(g_stream);
        if (temp)
            (void)cudaFree(temp);
        if (out)
            (void)cudaFree(out);
        if (index)
            (void)cudaFree(index);
    }
};

// Call i's output: reductions write result slot i (as redscan's async reductions write result_index i); scans and
// argmax write the same place every call.
void *pipe_out(const rsb_cub_case &cc, const PipeMem &m, int i, size_t sz)
{
    return cc.kind == RSB_CUB_REDUCE ? static_cast<char *>(m.out) + (size_t)i * sz : m.out;
}

} // namespace

extern "C" int rsb_cub_pipelined(const rsb_cub_pipe_case *c, rsb_cub_pipe_timing *t, char *err, size_t err_len)
{
    if (!g_open)
        return fail_text(err, err_len, "rsb_cub_pipelined: rsb_cuda_open was not called");
    memset(t, 0, sizeof *t);
    if (!rsb_cub_supported(c->kind, c->op, c->dtype))
        return fail_text(err, err_len, "this CUB case is not wired up in bench/cub_compare.cu");
    if (c->n == 0 || c->n > (size_t)INT_MAX)
        return fail_text(err, err_len, "the CUB comparison takes 1 <= n <= 2^31-1 (CUB's 32-bit offsets)");
    if (c->calls < 1 || c->loops < 1 || c->warmup < 0 || !c->in)
        return fail_text(err, err_len, "rsb_cub_pipelined: bad case (calls, loops, warmup or in)");
    const size_t sz = dtype_size(c->dtype);
    // cub_dispatch reads kind, op, dtype, exclusive and n of an rsb_cub_case
    const rsb_cub_case cc = {c->kind, c->op, c->dtype, c->exclusive, c->n, 1, nullptr, nullptr, 1};
    const size_t out_elems = c->kind == RSB_CUB_REDUCE ? (size_t)c->calls : c->kind == RSB_CUB_SCAN ? c->n : 1;
    PipeMem m;
    RSB_CK(cudaMalloc(&m.out, out_elems * sz), "cudaMalloc (outputs)");
    RSB_CK(cudaMalloc(&m.index, sizeof(int64_t)), "cudaMalloc (argmax index)");
    size_t temp_bytes = 0;
    RSB_CK(cub_dispatch(cc, nullptr, temp_bytes, c->in, m.out, m.index), "CUB temporary-storage query");
    RSB_CK(cudaMalloc(&m.temp, temp_bytes ? temp_bytes : 1), "cudaMalloc (CUB temporary storage)");
    const char *call = rsb_cub_call_name(c->kind, c->op, c->exclusive);

    for (int i = 0; i < c->warmup; ++i)
        RSB_CK(cub_dispatch(cc, m.temp, temp_bytes, c->in, pipe_out(cc, m, i % c->calls, sz), m.index), call);
    RSB_CK(cudaStreamSynchronize(g_stream), "cudaStreamSynchronize (warm-up)");

    std::vector<double> ev, host;
    for (int l = 0; l < c->loops; ++l) {
        const double t0 = now_ms();
        RSB_CK(cudaEventRecord(g_ev0, g_stream), "cudaEventRecord");
        for (int i = 0; i < c->calls; ++i)
            RSB_CK(cub_dispatch(cc, m.temp, temp_bytes, c->in, pipe_out(cc, m, i, sz), m.index), call);
        RSB_CK(cudaEventRecord(g_ev1, g_stream), "cudaEventRecord");
        RSB_CK(cudaStreamSynchronize(g_stream), "cudaStreamSynchronize");
        host.push_back((now_ms() - t0) / c->calls);
        float ms = 0;
        RSB_CK(cudaEventElapsedTime(&ms, g_ev0, g_ev1), "cudaEventElapsedTime");
        ev.push_back((double)ms / c->calls);
    }

    // The results of the last loop (not timed): every reduction slot, else the last call's output.
    std::vector<unsigned char> res(c->kind == RSB_CUB_REDUCE ? (size_t)c->calls * sz : sz);
    const char *src = static_cast<const char *>(m.out) + (c->kind == RSB_CUB_SCAN ? (c->n - 1) * sz : 0);
    RSB_CK(cudaMemcpy(res.data(), src, res.size(), cudaMemcpyDeviceToHost), "cudaMemcpy (results to host)");
    if (c->kind == RSB_CUB_ARGMAX)
        RSB_CK(cudaMemcpy(&t->index, m.index, sizeof(int64_t), cudaMemcpyDeviceToHost), "cudaMemcpy (index)");
    const size_t last = c->kind == RSB_CUB_REDUCE ? (size_t)(c->calls - 1) * sz : 0;
    memcpy(t->value, res.data() + last, sz);
    t->consistent = 1;
    for (size_t i = 0; c->kind == RSB_CUB_REDUCE && i < (size_t)c->calls; ++i)
        if (memcmp(res.data() + i * sz, t->value, sz))
            t->consistent = 0;
    median_min(ev, &t->ev_median_ms, &t->ev_min_ms);
    median_min(host, &t->host_median_ms, &t->host_min_ms);
    t->temp_bytes = temp_bytes;
    return 0;
}
