// Segmented reduce, reduce by key, scan by key and segmented scan (issue 18 item 4) against the toolkit's CUB on an
// NVIDIA GPU. Segmented reduce: redscan_segmented_reduce on the CUDA backend against
// cub::DeviceSegmentedReduce (the toolkit's CUB) on the same device memory, against a device-to-device copy of the same
// bytes, and against redscan's unsegmented reduce over the same bytes (issue 18: no segmented operation may take more
// than twice the time of an unsegmented one over the same bytes). Not part of the CMake build:
// bench/segmented-compare.sh compiles it on a GPU machine against the toolkit's CUB and libredscan.
//
//   segmented_compare N [reps [parts]]   (parts: any of r, k, s, the three parts below; all by default;
//   SEGMENTED_COMPARE_DISTS=name,name,... runs only those distributions, e.g. under a profiler) prints,
//   for each segment-length distribution, one row per (type, op, implementation):
//     dist type op impl median_ms GB/s x_copy [x_cub [x_flat]]
//   GB/s counts the bytes the operation must read: the n input elements and the num_segments + 1 offsets (the
//   outputs, 4 bytes per segment, are not counted). The copy row copies that many bytes (cudaMemcpyAsync, device to
//   device) and counts them twice (read + write), as bench/narrow_compare.cu does; x_copy = GB/s / the copy's GB/s.
//   x_cub = CUB's time / ours. The unsegmented row (redscan_reduce_async) reduces (input + offsets bytes) / 4
//   elements of the same type, i.e. exactly as many bytes as the segmented call reads; x_flat = the segmented time /
//   that time (issue 18's bound: <= 2; a row over it is marked "OVER 2").
//
// Distributions (deterministic, the same for every run of one N): uniform (1000-element segments), empty90 (90% empty
// segments, the rest 1..2000 elements), ones (90% one-element segments, the rest 2..100: millions of 1-element
// segments), powerlaw (Pareto lengths floor(4 u^(-1/1.1)): a few huge segments, many tiny ones), one (a single
// segment of all n). Offsets are int32 while n + 1 fits, else int64 (the same array for CUB and redscan).
// Operations: float32 sum (redscan: SUM FLOAT32; CUB: DeviceSegmentedReduce::Sum), int32 sum (wrap-around, both),
// float32 max (CUB: DeviceSegmentedReduce::Reduce with a max functor and -inf, redscan's value of an empty segment).
// float32 argmax (op "amax"; CUB: DeviceSegmentedReduce::ArgMax; x_flat against redscan_argmax_async over the same
// bytes): the index of the first largest element and its value, checked against the host (run_argmax).
// Timing: everything on one stream; redscan's context works on that stream (redscan_create_on_cuda_stream) and its
// _async forms are timed by the same CUDA events around the call as CUB and the copy. Median of reps after one
// warm-up. Checks: int32 sums equal CUB's and the host's exactly; float32 max bit for bit; float32 sums of redscan, of
// CUB and of the host (double) within 1e-5 * sum|x| of each segment of one another; no fault from
// redscan_synchronize.
//
// Reduce by key (issue 18's last function; rbk branch): for the uniform and powerlaw distributions, runs of equal
// int32 keys (run r has key r, so adjacent runs differ) over the same float32 / int32 values, float32 sum and int32
// sum: cub::DeviceReduce::ReduceByKey against redscan_reduce_by_key_async (and the blocking redscan_reduce_by_key,
// which reads the run count back), rows "rbk:<dist>". GB/s counts the bytes read: n keys + n values (4 + 4 bytes);
// the copy row copies that many. x_cub = CUB's time / ours; x_flat = ours / redscan_segmented_reduce_async over the
// same runs given as offsets (what reduce by key adds to finding the runs). Checks: run counts and unique keys equal
// CUB's and the host's; int32 sums exactly; float32 sums within 1e-5 * sum|x| of the run of CUB's and the host's;
// the _async form's aggregates past the run count keep the 0xa5 fill (nothing is written past R).
// Status of this part when written (rbk branch): compiled with nvcc 13.0 (CUB of CCCL 3.0), -O3 -std=c++17
// -arch=sm_90 -Wall -Wextra, no warnings; not yet run on a GPU.
//
// Scan by key and segmented scan (sbench branch), rows "scan:<dist>", for all five distributions: int32 keys made as
// run_rbk makes them (key i = the index of the segment holding element i; empty segments hold no element, so the
// runs are the non-empty segments), float32 and int32 inclusive sums (identity init). cub::DeviceScan::
// InclusiveSumByKey on those keys against redscan_scan_by_key_async (and the blocking redscan_scan_by_key) on the same
// keys and redscan_segmented_scan_async on the distribution's offsets (int32 / int64 as above): the same computation,
// so CUB's one call is the reference and the x_cub of all three. GB/s counts the bytes moved: scan by key (and CUB)
// 4n keys + 4n values read + 4n values written; segmented scan 4n values + the offsets read + 4n written; the copy row
// copies keys + values (8n bytes, counted twice). x_flat = our time / redscan_scan_async (AUTO block and grid) over
// the same n values of the same type (issue 18's bound: <= 2, "OVER 2" marks a row over it). Checks, every element:
// int32 equal to CUB's and to the host's (wrap-around) exactly; float32 within SCAN_TOL (1e-5) * the sum of |x| over
// the segment's prefix up to the element, of CUB's and of the host's (double) prefix sum (CUB's order differs from
// ours; the data has no zero, so that bound is never 0); redscan_scan_by_key_async, redscan_scan_by_key and
// redscan_segmented_scan_async bit for bit equal (docs/SEMANTICS.md "Segmented scans": the same order), and for
// "one" also equal to the flat scan's bits (the AUTO scan of the one segment; skipped where REDSCAN_SCAN_BLOCK or
// _GRID is set, as the flat AUTO scan reads them and the segmented scans do not). Each (dist, type) prints a check line
// with its mismatch counts; the final verdict line gives the totals, and the exit status is 1 on any mismatch.
// Status of this part when written (sbench branch): compiled with nvcc 13.0 (CUB of CCCL 3.0), -O3 -std=c++17
// -arch=sm_90 -Wall -Wextra, no warnings; not yet run on a GPU. Its added host work (keys, the element-by-element
// checks, 4n-element copies back) is O(n) per (dist, type): estimated some seconds at 2^26, under half a minute at
// 2^28; the timed GPU work is 6 rows of 21 calls per (dist, type).
//
// Status when written (seg branch, 75ece44): compiled and linked with nvcc 13.0 / CUB 3.0.1, -O3 -std=c++17
// -arch=sm_90, no warnings under -Wall -Wextra, against a CUDA build of that commit (its kernels_cu/segmented.cu for
// sm_90); not yet run on a GPU, so no figures yet (they belong in docs/PERFORMANCE.md once measured). What to expect:
// CUB's DeviceSegmentedReduce gives every segment one thread block (cub/device/dispatch/kernels/segmented_reduce.cuh,
// blockIdx.x is the segment), so "one" and "powerlaw" are its worst cases (one SM reads a huge segment) and "ones"
// launches a block per handful of elements: x_cub is large there and says more about CUB than about redscan; the
// column that tests issue 18 is x_flat. Host side (data, distributions, checks): about 2.5 s at 2^26 and 12 s at 2^28
// on a loaded build machine; the timed GPU work (21 calls per row) should add seconds, not minutes (estimate).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
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
static const double FLOAT_TOL = 1e-5; // of sum|x| over the segment
static const double SCAN_TOL = 1e-5;  // of sum|x| over the segment's prefix up to the element (scans)

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median ms of f() enqueued on g_st, timed by events (one warm-up call first).
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

static uint64_t splitmix(uint64_t &s)
{
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unit(uint64_t &s) { return ((splitmix(s) >> 11) + 1) * (1.0 / 9007199254740992.0); } // (0, 1]

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

struct FloatMax {
    __device__ float operator()(float a, float b) const { return b > a ? b : a; }
};

struct Dist {
    std::string name;
    std::vector<int64_t> off; // num_segments + 1, off[0] = 0, off.back() = n
};

// Segments until n elements are covered; the last one is cut at n.
template <class L> static Dist make_dist(const char *name, size_t n, uint64_t seed, L len)
{
    Dist d;
    d.name = name;
    d.off.push_back(0);
    uint64_t s = seed;
    size_t pos = 0;
    while (pos < n) {
        const size_t l = std::min<size_t>(len(s), n - pos);
        pos += l;
        d.off.push_back((int64_t)pos);
    }
    return d;
}

static std::vector<Dist> make_dists(size_t n)
{
    std::vector<Dist> v;
    v.push_back(make_dist("uniform", n, 1, [](uint64_t &) { return (size_t)1000; }));
    v.push_back(make_dist("empty90", n, 2, [](uint64_t &s) {
        return splitmix(s) % 10 ? (size_t)0 : (size_t)(1 + splitmix(s) % 2000);
    }));
    v.push_back(make_dist("ones", n, 3, [](uint64_t &s) {
        return splitmix(s) % 10 ? (size_t)1 : (size_t)(2 + splitmix(s) % 99);
    }));
    v.push_back(make_dist("powerlaw", n, 4, [](uint64_t &s) {
        const double l = std::floor(4.0 * std::pow(unit(s), -1.0 / 1.1));
        return l > 1e15 ? (size_t)1e15 : (size_t)l;
    }));
    Dist one;
    one.name = "one";
    one.off = {0, (int64_t)n};
    v.push_back(one);
    return v;
}

static void describe(const Dist &d, size_t n, const char *off_name)
{
    const size_t S = d.off.size() - 1;
    size_t empty = 0, ones = 0;
    std::vector<int64_t> len(S);
    for (size_t s = 0; s < S; s++) {
        len[s] = d.off[s + 1] - d.off[s];
        empty += len[s] == 0;
        ones += len[s] == 1;
    }
    const size_t k = std::min<size_t>(S, 10);
    std::partial_sort(len.begin(), len.begin() + k, len.end(), std::greater<int64_t>());
    int64_t top10 = 0;
    for (size_t s = 0; s < k; s++) top10 += len[s];
    std::printf("# %s: %zu segments, %.1f%% empty, %.1f%% of one element, longest %lld, the 10 longest hold %.1f%% "
                "of n; offsets %s\n",
                d.name.c_str(), S, 100.0 * empty / S, 100.0 * ones / S, (long long)len[0], 100.0 * top10 / n,
                off_name);
}

static void row(const char *dist, const char *type, const char *op, const char *impl, double ms, double bytes,
                double copy_gbs, double cub_ms, double flat_ms)
{
    const double gbs = bytes / ms / 1e6;
    std::printf("%-9s %-8s %-4s %-40s %9.4f %8.1f %6.2f", dist, type, op, impl, ms, gbs, gbs / copy_gbs);
    if (cub_ms > 0) std::printf(" %6.2f", cub_ms / ms);
    if (flat_ms > 0) std::printf(" %6.2f%s", ms / flat_ms, ms > 2 * flat_ms ? "  OVER 2" : "");
    std::printf("\n");
}

enum Op { FSUM, ISUM, FMAX };

struct Run {
    size_t n;
    float *d_f;  // n + pad floats (the segmented input is the first n; the rest pads the unsegmented reduce)
    int *d_i;    // n + pad ints
    void *d_dst; // the copy's destination
    void *d_off;
    void *d_cub, *d_ours, *d_res;
    const float *h_f;
    const int *h_i;
    int *d_keys;                      // n keys (reduce by key)
    void *d_uk_cub, *d_agg_cub, *d_uk_ours, *d_agg_ours; // n elements of 4 bytes each
    unsigned long long *d_runs;       // [0]: CUB's run count (int64), [1]: ours (uint64)
    cub::KeyValuePair<int, float> *d_kv; // CUB's segmented argmax, smax pairs
    unsigned long long *d_arg_i;         // ours: smax indices
    float *d_arg_v;                      // ours: smax values
    Cub cub;
    int bad = 0;
    double worst_flat = 0, worst_fdiff = 0;
    // scans (run_scan): elements checked, mismatches against CUB / the host, elements whose bits differ between
    // redscan's scan by key and segmented scan; worst scan / flat scan time; largest float32 |redscan - CUB| / prefix
    size_t scan_checked = 0, scan_vs_cub = 0, scan_vs_ref = 0, scan_not_same = 0;
    double worst_scan_flat = 0, worst_scan_fdiff = 0;
};

// float32 argmax per segment: cub::DeviceSegmentedReduce::ArgMax against redscan_segmented_argmax_async (indices and
// values), x_flat against redscan_argmax_async over the same bytes. Checked against the host: the index of the first
// largest element of each segment (both libraries return the first on ties; CUB's key is taken as either the
// position in the segment or in the input) and its value's bits; an empty segment: ours UINT64_MAX and -inf, CUB's
// key is not checked there.
template <class OffT>
static void run_argmax(Run &R, const Dist &D, const OffT *d_off, redscan_dtype off_dt, redscan_buffer *boff,
                       double bytes, size_t flat_n, double copy_gbs)
{
    const size_t n = R.n, S = D.off.size() - 1;
    const char *dn = D.name.c_str();
    size_t tb = 0;
    CK(cub::DeviceSegmentedReduce::ArgMax(nullptr, tb, R.d_f, R.d_kv, (int)S, d_off, d_off + 1, g_st));
    R.cub.need(tb);
    const double cub_ms = time_cuda([&] {
        CK(cub::DeviceSegmentedReduce::ArgMax(R.cub.temp, tb, R.d_f, R.d_kv, (int)S, d_off, d_off + 1, g_st));
    });
    row(dn, "float32", "amax", "cub::DeviceSegmentedReduce::ArgMax", cub_ms, bytes, copy_gbs, 0, 0);

    redscan_buffer *bin = nullptr, *bflat = nullptr, *bi = nullptr, *bv = nullptr, *fi = nullptr;
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_f, n * 4, &bin));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_f, flat_n * 4, &bflat));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_arg_i, S * 8, &bi));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_arg_v, S * 4, &bv));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_res, 16, &fi));
    CK(cudaMemsetAsync(R.d_arg_i, 0xa5, S * 8, g_st));
    CK(cudaMemsetAsync(R.d_arg_v, 0xa5, S * 4, g_st));
    const double seg_ms = time_cuda(
        [&] { RK(redscan_segmented_argmax_async(g_ctx, REDSCAN_FLOAT32, bin, off_dt, boff, S, bi, bv)); });
    RK(redscan_synchronize(g_ctx));
    const double flat_ms =
        time_cuda([&] { RK(redscan_argmax_async(g_ctx, REDSCAN_FLOAT32, bflat, flat_n, fi, nullptr)); });
    RK(redscan_synchronize(g_ctx));
    row(dn, "float32", "amax", "redscan_segmented_argmax_async", seg_ms, bytes, copy_gbs, cub_ms, flat_ms);
    row(dn, "float32", "amax", "redscan_argmax_async (same bytes, flat)", flat_ms, bytes, copy_gbs, 0, 0);
    R.worst_flat = std::max(R.worst_flat, seg_ms / flat_ms);

    std::vector<cub::KeyValuePair<int, float>> hk(S);
    std::vector<unsigned long long> hi(S);
    std::vector<float> hv(S);
    CK(cudaMemcpy(hk.data(), R.d_kv, S * sizeof hk[0], cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hi.data(), R.d_arg_i, S * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hv.data(), R.d_arg_v, S * 4, cudaMemcpyDeviceToHost));
    size_t wrong = 0, first = 0;
    for (size_t s = 0; s < S; s++) {
        const int64_t b = D.off[s], e = D.off[s + 1];
        bool ok;
        if (b == e) {
            ok = hi[s] == ~0ull && hv[s] == -INFINITY;
        } else {
            int64_t best = b;
            for (int64_t i = b + 1; i < e; i++)
                if (R.h_f[i] > R.h_f[best]) best = i;
            const int64_t ck = hk[s].key;
            ok = hi[s] == (unsigned long long)best && std::memcmp(&hv[s], &R.h_f[best], 4) == 0 &&
                 (ck == best || ck + b == best) && std::memcmp(&hk[s].value, &R.h_f[best], 4) == 0;
        }
        if (!ok && !wrong++) first = s;
    }
    if (wrong) {
        std::printf("  %s float32 argmax: %zu of %zu segments differ, first %zu (redscan %llu, cub key %d)\n", dn,
                    wrong, S, first, hi[first], hk[first].key);
        R.bad++;
    }
    for (redscan_buffer *b : {bin, bflat, bi, bv, fi}) redscan_buffer_destroy(g_ctx, b);
}

template <class OffT> static void run_dist(Run &R, const Dist &D)
{
    const size_t n = R.n, S = D.off.size() - 1;
    {
        std::vector<OffT> h(S + 1);
        for (size_t s = 0; s <= S; s++) h[s] = (OffT)D.off[s];
        CK(cudaMemcpy(R.d_off, h.data(), (S + 1) * sizeof(OffT), cudaMemcpyHostToDevice));
    }
    const redscan_dtype off_dt = sizeof(OffT) == 4 ? REDSCAN_INT32 : REDSCAN_INT64;
    const OffT *d_off = (const OffT *)R.d_off;
    const double bytes = (double)n * 4 + (double)(S + 1) * sizeof(OffT);
    const size_t flat_n = (size_t)(bytes / 4); // elements of 4 bytes in the unsegmented reduce
    const char *dn = D.name.c_str();

    const double copy_ms =
        time_cuda([&] { CK(cudaMemcpyAsync(R.d_dst, R.d_f, (size_t)bytes, cudaMemcpyDeviceToDevice, g_st)); });
    const double copy_gbs = 2.0 * bytes / copy_ms / 1e6;
    row(dn, "-", "copy", "cudaMemcpyAsync D2D (input + offsets)", copy_ms, 2.0 * bytes, copy_gbs, 0, 0);

    redscan_buffer *boff = nullptr, *bout = nullptr, *bres = nullptr;
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_off, (S + 1) * sizeof(OffT), &boff));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_ours, S * 4, &bout));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_res, 16, &bres));
    std::vector<uint32_t> hc(S), ho(S);

    for (int op = FSUM; op <= FMAX; op++) {
        const bool isf = op != ISUM;
        void *din = isf ? (void *)R.d_f : (void *)R.d_i;
        const char *tn = isf ? "float32" : "int32";
        const char *on = op == FMAX ? "max" : "sum";
        redscan_buffer *bin = nullptr, *bflat = nullptr;
        RK(redscan_buffer_wrap_cuda(g_ctx, din, n * 4, &bin));
        RK(redscan_buffer_wrap_cuda(g_ctx, din, flat_n * 4, &bflat));

        // ---- CUB
        size_t tb = 0;
        double cub_ms;
        if (op == FSUM) {
            CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb, R.d_f, (float *)R.d_cub, (int)S, d_off, d_off + 1, g_st));
            R.cub.need(tb);
            cub_ms = time_cuda([&] {
                CK(cub::DeviceSegmentedReduce::Sum(R.cub.temp, tb, R.d_f, (float *)R.d_cub, (int)S, d_off, d_off + 1,
                                                   g_st));
            });
        } else if (op == ISUM) {
            CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb, R.d_i, (int *)R.d_cub, (int)S, d_off, d_off + 1, g_st));
            R.cub.need(tb);
            cub_ms = time_cuda([&] {
                CK(cub::DeviceSegmentedReduce::Sum(R.cub.temp, tb, R.d_i, (int *)R.d_cub, (int)S, d_off, d_off + 1,
                                                   g_st));
            });
        } else {
            CK(cub::DeviceSegmentedReduce::Reduce(nullptr, tb, R.d_f, (float *)R.d_cub, (int)S, d_off, d_off + 1,
                                                  FloatMax(), -INFINITY, g_st));
            R.cub.need(tb);
            cub_ms = time_cuda([&] {
                CK(cub::DeviceSegmentedReduce::Reduce(R.cub.temp, tb, R.d_f, (float *)R.d_cub, (int)S, d_off,
                                                      d_off + 1, FloatMax(), -INFINITY, g_st));
            });
        }
        row(dn, tn, on, op == FMAX ? "cub::DeviceSegmentedReduce::Reduce(max)" : "cub::DeviceSegmentedReduce::Sum",
            cub_ms, bytes, copy_gbs, 0, 0);

        // ---- redscan, segmented and unsegmented, on the same stream
        const redscan_reduce_desc rd = {op == FMAX ? REDSCAN_MAX : REDSCAN_SUM, isf ? REDSCAN_FLOAT32 : REDSCAN_INT32,
                                        (redscan_dtype)0, REDSCAN_REDUCE_AUTO, 0};
        CK(cudaMemsetAsync(R.d_ours, 0xa5, S * 4, g_st)); // nothing of an earlier operation can pass for a result
        const double seg_ms =
            time_cuda([&] { RK(redscan_segmented_reduce_async(g_ctx, &rd, bin, off_dt, boff, S, bout)); });
        RK(redscan_synchronize(g_ctx));
        const double flat_ms = time_cuda([&] { RK(redscan_reduce_async(g_ctx, &rd, bflat, flat_n, bres, 0)); });
        RK(redscan_synchronize(g_ctx));
        row(dn, tn, on, "redscan_segmented_reduce_async", seg_ms, bytes, copy_gbs, cub_ms, flat_ms);
        row(dn, tn, on, "redscan_reduce_async (same bytes, flat)", flat_ms, bytes, copy_gbs, 0, 0);
        R.worst_flat = std::max(R.worst_flat, seg_ms / flat_ms);

        // ---- check
        CK(cudaMemcpy(hc.data(), R.d_cub, S * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(ho.data(), R.d_ours, S * 4, cudaMemcpyDeviceToHost));
        size_t wrong = 0, first = 0;
        double fdiff = 0;
        auto fail = [&](size_t s) {
            if (!wrong++) first = s;
        };
        for (size_t s = 0; s < S; s++) {
            const int64_t b = D.off[s], e = D.off[s + 1];
            if (op == ISUM) {
                uint32_t ref = 0;
                for (int64_t i = b; i < e; i++) ref += (uint32_t)R.h_i[i];
                if (ho[s] != hc[s] || ho[s] != ref) fail(s);
            } else if (op == FMAX) {
                float ref = -INFINITY;
                for (int64_t i = b; i < e; i++) ref = std::max(ref, R.h_f[i]);
                uint32_t rb;
                std::memcpy(&rb, &ref, 4);
                if (ho[s] != hc[s] || ho[s] != rb) fail(s);
            } else {
                double ref = 0, abs = 0;
                for (int64_t i = b; i < e; i++) {
                    ref += R.h_f[i];
                    abs += std::fabs(R.h_f[i]);
                }
                float fo, fc;
                std::memcpy(&fo, &ho[s], 4);
                std::memcpy(&fc, &hc[s], 4);
                const double d1 = std::fabs((double)fo - fc), d2 = std::fabs(fo - ref), d3 = std::fabs(fc - ref);
                if (!(std::max(d1, std::max(d2, d3)) <= FLOAT_TOL * abs)) fail(s);
                if (abs > 0) fdiff = std::max(fdiff, d1 / abs);
            }
        }
        if (op == FSUM) R.worst_fdiff = std::max(R.worst_fdiff, fdiff);
        if (wrong) {
            std::printf("  %s %s %s: %zu of %zu segments differ, first %zu (redscan %08x, cub %08x)\n", dn, tn, on,
                        wrong, S, first, ho[first], hc[first]);
            R.bad++;
        }
        redscan_buffer_destroy(g_ctx, bin);
        redscan_buffer_destroy(g_ctx, bflat);
    }
    run_argmax(R, D, d_off, off_dt, boff, bytes, flat_n, copy_gbs);
    redscan_buffer_destroy(g_ctx, boff);
    redscan_buffer_destroy(g_ctx, bout);
    redscan_buffer_destroy(g_ctx, bres);
}

struct FloatSum {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct IntEqual { // key equality for CUB's scan by key (named here: the default functor changed between toolkits)
    __device__ bool operator()(int a, int b) const { return a == b; }
};
struct IntSum { // wrap-around, as redscan's int32 sum
    __device__ int operator()(int a, int b) const { return (int)((unsigned)a + (unsigned)b); }
};

// Reduce by key over the runs of D (run s = segment s, key s; D has no empty segment), float32 and int32 sums.
static void run_rbk(Run &R, const Dist &D)
{
    const size_t n = R.n, S = D.off.size() - 1;
    std::vector<int> hk(n);
    for (size_t s = 0; s < S; s++)
        for (int64_t i = D.off[s]; i < D.off[s + 1]; i++) hk[i] = (int)s;
    CK(cudaMemcpy(R.d_keys, hk.data(), n * 4, cudaMemcpyHostToDevice));
    // the same runs as offsets, for the segmented row (int64: n + 1 fits whatever n)
    CK(cudaMemcpy(R.d_off, D.off.data(), (S + 1) * 8, cudaMemcpyHostToDevice));
    const double bytes = 8.0 * (double)n; // keys + values read
    const std::string dn = "rbk:" + D.name;

    const double copy_ms = time_cuda([&] { // values and keys, each into a buffer of its size (CUB's overwrites later)
        CK(cudaMemcpyAsync(R.d_dst, R.d_f, n * 4, cudaMemcpyDeviceToDevice, g_st));
        CK(cudaMemcpyAsync(R.d_uk_cub, R.d_keys, n * 4, cudaMemcpyDeviceToDevice, g_st));
    });
    const double copy_gbs = 2.0 * bytes / copy_ms / 1e6;
    row(dn.c_str(), "-", "copy", "cudaMemcpyAsync D2D (keys + values)", copy_ms, 2.0 * bytes, copy_gbs, 0, 0);

    redscan_buffer *bk = nullptr, *buk = nullptr, *bagg = nullptr, *bruns = nullptr, *boff = nullptr;
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_keys, n * 4, &bk));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_uk_ours, n * 4, &buk));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_agg_ours, n * 4, &bagg));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_runs + 1, 8, &bruns));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_off, (S + 1) * 8, &boff));
    std::vector<uint32_t> hc(S), ho(n), hkc(S), hko(S);
    for (int op = FSUM; op <= ISUM; op++) {
        const bool isf = op == FSUM;
        void *din = isf ? (void *)R.d_f : (void *)R.d_i;
        const char *tn = isf ? "float32" : "int32";
        redscan_buffer *bin = nullptr;
        RK(redscan_buffer_wrap_cuda(g_ctx, din, n * 4, &bin));

        size_t tb = 0;
        double cub_ms;
        long long *cub_runs = (long long *)R.d_runs;
        if (isf) {
            CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, R.d_keys, (int *)R.d_uk_cub, R.d_f, (float *)R.d_agg_cub,
                                              cub_runs, FloatSum(), (long long)n, g_st));
            R.cub.need(tb);
            cub_ms = time_cuda([&] {
                CK(cub::DeviceReduce::ReduceByKey(R.cub.temp, tb, R.d_keys, (int *)R.d_uk_cub, R.d_f,
                                                  (float *)R.d_agg_cub, cub_runs, FloatSum(), (long long)n, g_st));
            });
        } else {
            CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, R.d_keys, (int *)R.d_uk_cub, R.d_i, (int *)R.d_agg_cub,
                                              cub_runs, IntSum(), (long long)n, g_st));
            R.cub.need(tb);
            cub_ms = time_cuda([&] {
                CK(cub::DeviceReduce::ReduceByKey(R.cub.temp, tb, R.d_keys, (int *)R.d_uk_cub, R.d_i,
                                                  (int *)R.d_agg_cub, cub_runs, IntSum(), (long long)n, g_st));
            });
        }
        row(dn.c_str(), tn, "sum", "cub::DeviceReduce::ReduceByKey", cub_ms, bytes, copy_gbs, 0, 0);

        const redscan_reduce_desc rd = {REDSCAN_SUM, isf ? REDSCAN_FLOAT32 : REDSCAN_INT32, (redscan_dtype)0,
                                        REDSCAN_REDUCE_AUTO, 0};
        const double seg_ms =
            time_cuda([&] { RK(redscan_segmented_reduce_async(g_ctx, &rd, bin, REDSCAN_INT64, boff, S, bagg)); });
        RK(redscan_synchronize(g_ctx));
        size_t runs_blocking = 0;
        const double blk_ms =
            time_cuda([&] { RK(redscan_reduce_by_key(g_ctx, &rd, REDSCAN_INT32, bk, bin, n, buk, bagg, &runs_blocking)); });
        CK(cudaMemsetAsync(R.d_agg_ours, 0xa5, n * 4, g_st)); // nothing of an earlier call can pass for a result
        CK(cudaMemsetAsync(R.d_uk_ours, 0xa5, n * 4, g_st));
        const double ours_ms =
            time_cuda([&] { RK(redscan_reduce_by_key_async(g_ctx, &rd, REDSCAN_INT32, bk, bin, n, buk, bagg, bruns)); });
        RK(redscan_synchronize(g_ctx));
        row(dn.c_str(), tn, "sum", "redscan_reduce_by_key_async", ours_ms, bytes, copy_gbs, cub_ms, seg_ms);
        row(dn.c_str(), tn, "sum", "redscan_reduce_by_key (blocking)", blk_ms, bytes, copy_gbs, cub_ms, seg_ms);
        row(dn.c_str(), tn, "sum", "redscan_segmented_reduce_async (runs)", seg_ms, bytes, copy_gbs, 0, 0);

        // ---- check
        unsigned long long hr[2];
        CK(cudaMemcpy(hr, R.d_runs, sizeof hr, cudaMemcpyDeviceToHost));
        size_t wrong = 0, first = 0;
        auto fail = [&](size_t s) {
            if (!wrong++) first = s;
        };
        if (hr[0] != S || hr[1] != S || runs_blocking != S) {
            std::printf("  %s %s: run counts cub %llu, redscan %llu (blocking %zu), want %zu\n", dn.c_str(), tn, hr[0],
                        hr[1], runs_blocking, S);
            R.bad++;
        } else {
            CK(cudaMemcpy(hc.data(), R.d_agg_cub, S * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(ho.data(), R.d_agg_ours, n * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hkc.data(), R.d_uk_cub, S * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hko.data(), R.d_uk_ours, S * 4, cudaMemcpyDeviceToHost));
            for (size_t s = 0; s < S; s++) {
                if (hkc[s] != s || hko[s] != s) fail(s);
                const int64_t b = D.off[s], e = D.off[s + 1];
                if (!isf) {
                    uint32_t ref = 0;
                    for (int64_t i = b; i < e; i++) ref += (uint32_t)R.h_i[i];
                    if (ho[s] != hc[s] || ho[s] != ref) fail(s);
                } else {
                    double ref = 0, abs = 0;
                    for (int64_t i = b; i < e; i++) {
                        ref += R.h_f[i];
                        abs += std::fabs(R.h_f[i]);
                    }
                    float fo, fc;
                    std::memcpy(&fo, &ho[s], 4);
                    std::memcpy(&fc, &hc[s], 4);
                    const double d1 = std::fabs((double)fo - fc), d2 = std::fabs(fo - ref), d3 = std::fabs(fc - ref);
                    if (!(std::max(d1, std::max(d2, d3)) <= FLOAT_TOL * abs)) fail(s);
                }
            }
            for (size_t i = S; i < n; i++) // past the runs: untouched since the 0xa5 fill before the _async calls
                if (ho[i] != 0xa5a5a5a5u) fail(i);
        }
        if (wrong) {
            std::printf("  %s %s: %zu of %zu runs differ, first %zu\n", dn.c_str(), tn, wrong, S, first);
            R.bad++;
        }
        redscan_buffer_destroy(g_ctx, bin);
    }
    redscan_buffer_destroy(g_ctx, bk);
    redscan_buffer_destroy(g_ctx, buk);
    redscan_buffer_destroy(g_ctx, bagg);
    redscan_buffer_destroy(g_ctx, bruns);
    redscan_buffer_destroy(g_ctx, boff);
}

// Scan by key and segmented scan over D (inclusive float32 / int32 sums). Keys: key i = the index of the segment
// holding element i, as run_rbk makes them; empty segments have no elements, so the runs of these keys are exactly
// D's non-empty segments and CUB's InclusiveSumByKey on them computes both what redscan_scan_by_key computes on the
// same keys and what redscan_segmented_scan computes on D's offsets: one CUB call is the reference (and x_cub) of
// both. Offsets as run_dist's (OffT).
template <class OffT> static void run_scan(Run &R, const Dist &D)
{
    const size_t n = R.n, S = D.off.size() - 1;
    {
        std::vector<int> hk(n);
        for (size_t s = 0; s < S; s++)
            for (int64_t i = D.off[s]; i < D.off[s + 1]; i++) hk[i] = (int)s;
        CK(cudaMemcpy(R.d_keys, hk.data(), n * 4, cudaMemcpyHostToDevice));
        std::vector<OffT> h(S + 1);
        for (size_t s = 0; s <= S; s++) h[s] = (OffT)D.off[s];
        CK(cudaMemcpy(R.d_off, h.data(), (S + 1) * sizeof(OffT), cudaMemcpyHostToDevice));
    }
    const redscan_dtype off_dt = sizeof(OffT) == 4 ? REDSCAN_INT32 : REDSCAN_INT64;
    const double kbytes = 12.0 * (double)n;                                     // keys + values read, values written
    const double sbytes = 8.0 * (double)n + (double)(S + 1) * sizeof(OffT);     // values + offsets read, values written
    const double fbytes = 8.0 * (double)n;                                      // the flat scan: values read + written
    const std::string dn = "scan:" + D.name;

    const double copy_ms = time_cuda([&] { // keys and values (8n bytes) into a buffer of n + pad elements each
        CK(cudaMemcpyAsync(R.d_dst, R.d_f, n * 4, cudaMemcpyDeviceToDevice, g_st));
        CK(cudaMemcpyAsync(R.d_uk_cub, R.d_keys, n * 4, cudaMemcpyDeviceToDevice, g_st));
    });
    const double copy_gbs = 2.0 * fbytes / copy_ms / 1e6;
    row(dn.c_str(), "-", "copy", "cudaMemcpyAsync D2D (keys + values)", copy_ms, 2.0 * fbytes, copy_gbs, 0, 0);

    // outputs: CUB -> d_agg_cub, scan by key _async -> d_agg_ours, blocking -> d_dst, segmented -> d_uk_ours,
    // flat -> d_uk_cub (every one n elements of 4 bytes)
    redscan_buffer *bk = nullptr, *boff = nullptr, *bsbk = nullptr, *bblk = nullptr, *bseg = nullptr,
                   *bflat = nullptr;
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_keys, n * 4, &bk));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_off, (S + 1) * sizeof(OffT), &boff));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_agg_ours, n * 4, &bsbk));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_dst, n * 4, &bblk));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_uk_ours, n * 4, &bseg));
    RK(redscan_buffer_wrap_cuda(g_ctx, R.d_uk_cub, n * 4, &bflat));
    // the flat scan's bits are compared for "one" only where its AUTO is the default (no env choice of block / grid)
    const bool flat_same = D.name == "one" && !std::getenv("REDSCAN_SCAN_BLOCK") && !std::getenv("REDSCAN_SCAN_GRID");
    std::vector<uint32_t> hc(n), hs(n), hb(n), hg(n), hflat(flat_same ? n : 0);
    for (int op = FSUM; op <= ISUM; op++) {
        const bool isf = op == FSUM;
        void *din = isf ? (void *)R.d_f : (void *)R.d_i;
        const char *tn = isf ? "float32" : "int32";
        redscan_buffer *bin = nullptr;
        RK(redscan_buffer_wrap_cuda(g_ctx, din, n * 4, &bin));

        // ---- CUB (its int32 sum is cuda::std::plus<int>: wraps on the GPU, as redscan's)
        size_t tb = 0;
        double cub_ms;
        if (isf) {
            CK(cub::DeviceScan::InclusiveSumByKey(nullptr, tb, R.d_keys, R.d_f, (float *)R.d_agg_cub, (long long)n,
                                                  IntEqual(), g_st));
            R.cub.need(tb);
            cub_ms = time_cuda([&] {
                CK(cub::DeviceScan::InclusiveSumByKey(R.cub.temp, tb, R.d_keys, R.d_f, (float *)R.d_agg_cub,
                                                      (long long)n, IntEqual(), g_st));
            });
        } else {
            CK(cub::DeviceScan::InclusiveSumByKey(nullptr, tb, R.d_keys, R.d_i, (int *)R.d_agg_cub, (long long)n,
                                                  IntEqual(), g_st));
            R.cub.need(tb);
            cub_ms = time_cuda([&] {
                CK(cub::DeviceScan::InclusiveSumByKey(R.cub.temp, tb, R.d_keys, R.d_i, (int *)R.d_agg_cub,
                                                      (long long)n, IntEqual(), g_st));
            });
        }
        row(dn.c_str(), tn, "sum", "cub::DeviceScan::InclusiveSumByKey", cub_ms, kbytes, copy_gbs, 0, 0);

        // ---- redscan on the same stream; every output filled with 0xa5 first, so nothing of an earlier operation
        // can pass for a result
        const redscan_scan_desc sd = {REDSCAN_SUM,      isf ? REDSCAN_FLOAT32 : REDSCAN_INT32,
                                      (redscan_dtype)0, 0,
                                      nullptr,          REDSCAN_BLOCK_AUTO,
                                      REDSCAN_GRID_AUTO, 0};
        for (void *p : {R.d_agg_ours, R.d_dst, R.d_uk_ours, R.d_uk_cub}) CK(cudaMemsetAsync(p, 0xa5, n * 4, g_st));
        const double flat_ms = time_cuda([&] { RK(redscan_scan_async(g_ctx, &sd, bin, bflat, n)); });
        RK(redscan_synchronize(g_ctx));
        const double sbk_ms =
            time_cuda([&] { RK(redscan_scan_by_key_async(g_ctx, &sd, REDSCAN_INT32, bk, bin, bsbk, n)); });
        RK(redscan_synchronize(g_ctx));
        const double blk_ms = time_cuda([&] { RK(redscan_scan_by_key(g_ctx, &sd, REDSCAN_INT32, bk, bin, bblk, n)); });
        const double seg_ms =
            time_cuda([&] { RK(redscan_segmented_scan_async(g_ctx, &sd, bin, off_dt, boff, S, bseg)); });
        RK(redscan_synchronize(g_ctx));
        row(dn.c_str(), tn, "sum", "redscan_scan_by_key_async", sbk_ms, kbytes, copy_gbs, cub_ms, flat_ms);
        row(dn.c_str(), tn, "sum", "redscan_scan_by_key (blocking)", blk_ms, kbytes, copy_gbs, cub_ms, flat_ms);
        row(dn.c_str(), tn, "sum", "redscan_segmented_scan_async", seg_ms, sbytes, copy_gbs, cub_ms, flat_ms);
        row(dn.c_str(), tn, "sum", "redscan_scan_async (n values, flat)", flat_ms, fbytes, copy_gbs, 0, 0);
        R.worst_scan_flat = std::max(R.worst_scan_flat, std::max(sbk_ms, seg_ms) / flat_ms);

        // ---- check, element by element: CUB's (and for int32 the host's) value; scan by key (_async and blocking)
        // and the segmented scan bit for bit equal (the same documented order); for "one", the flat scan is
        // redscan_scan_ex AUTO over the one segment, so the same bits again
        CK(cudaMemcpy(hc.data(), R.d_agg_cub, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hs.data(), R.d_agg_ours, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hb.data(), R.d_dst, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hg.data(), R.d_uk_ours, n * 4, cudaMemcpyDeviceToHost));
        if (!hflat.empty()) CK(cudaMemcpy(hflat.data(), R.d_uk_cub, n * 4, cudaMemcpyDeviceToHost));
        size_t vs_cub = 0, vs_ref = 0, not_same = 0, first = n;
        double fdiff = 0;
        for (size_t s = 0; s < S; s++) {
            const int64_t b = D.off[s], e = D.off[s + 1];
            uint32_t iacc = 0;
            double facc = 0, abs = 0;
            for (int64_t i = b; i < e; i++) {
                bool bad = false;
                if (hs[i] != hb[i] || hs[i] != hg[i] || (!hflat.empty() && hs[i] != hflat[i])) {
                    not_same++;
                    bad = true;
                }
                if (!isf) {
                    iacc += (uint32_t)R.h_i[i];
                    if (hs[i] != hc[i]) vs_cub++, bad = true;
                    if (hs[i] != iacc) vs_ref++, bad = true;
                } else {
                    facc += R.h_f[i];
                    abs += std::fabs(R.h_f[i]);
                    float fo, fc;
                    std::memcpy(&fo, &hs[i], 4);
                    std::memcpy(&fc, &hc[i], 4);
                    const double tol = SCAN_TOL * abs, d1 = std::fabs((double)fo - fc);
                    if (!(d1 <= tol)) vs_cub++, bad = true;
                    if (!(std::fabs(fo - facc) <= tol && std::fabs(fc - facc) <= tol)) vs_ref++, bad = true;
                    fdiff = std::max(fdiff, d1 / abs); // abs > 0: the data has no zero
                }
                if (bad && first == n) first = (size_t)i;
            }
        }
        if (isf) R.worst_scan_fdiff = std::max(R.worst_scan_fdiff, fdiff);
        R.scan_checked += n;
        R.scan_vs_cub += vs_cub;
        R.scan_vs_ref += vs_ref;
        R.scan_not_same += not_same;
        std::printf("  %s %s check: %zu elements; %zu differ from CUB, %zu from the host, %zu not the same bits in "
                    "scan_by_key_async / scan_by_key / segmented_scan_async%s",
                    dn.c_str(), tn, n, vs_cub, vs_ref, not_same, hflat.empty() ? "" : " / scan_async");
        if (first < n)
            std::printf("; first at %zu (redscan %08x, blocking %08x, segmented %08x, cub %08x)", first, hs[first],
                        hb[first], hg[first], hc[first]);
        if (isf) std::printf("; largest |redscan - CUB| / prefix sum|x| %.2e", fdiff);
        std::printf("\n");
        if (vs_cub || vs_ref || not_same) R.bad++;
        redscan_buffer_destroy(g_ctx, bin);
    }
    redscan_buffer_destroy(g_ctx, bk);
    redscan_buffer_destroy(g_ctx, boff);
    redscan_buffer_destroy(g_ctx, bsbk);
    redscan_buffer_destroy(g_ctx, bblk);
    redscan_buffer_destroy(g_ctx, bseg);
    redscan_buffer_destroy(g_ctx, bflat);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: segmented_compare N [reps [parts]]\n");
        return 2;
    }
    Run R;
    const size_t n = R.n = std::strtoull(argv[1], nullptr, 0);
    if (argc > 2) g_reps = std::atoi(argv[2]);
    // parts: any of r (segmented reduce and argmax), k (reduce by key), s (scan by key, segmented scan); all by default
    const char *parts = argc > 3 ? argv[3] : "rks";
    if (n < 1 || g_reps < 1) {
        std::fprintf(stderr, "segmented_compare: N and reps must be >= 1\n");
        return 2;
    }
    const bool off64 = n >= (size_t)INT32_MAX; // offsets up to n must fit
    const size_t osz = off64 ? 8 : 4;
    std::vector<Dist> dists = make_dists(n);
    size_t smax = 1;
    for (const Dist &d : dists) smax = std::max(smax, d.off.size() - 1);
    if (smax > (size_t)INT32_MAX) { // CUB's num_segments is an int in the older toolkits
        std::fprintf(stderr, "segmented_compare: too many segments for CUB\n");
        return 2;
    }
    const size_t pad = (smax + 1) * osz / 4 + 1; // elements: the unsegmented reduce reads n * 4 + offsets bytes

    CK(cudaStreamCreateWithFlags(&g_st, cudaStreamNonBlocking));
    CK(cudaEventCreate(&g_e0));
    CK(cudaEventCreate(&g_e1));
    int dev;
    CK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    if (redscan_create_on_cuda_stream(&g_ctx, dev, (void *)g_st) != REDSCAN_OK) {
        std::fprintf(stderr, "redscan_create_on_cuda_stream: %s\n", redscan_last_error(nullptr));
        return 2;
    }

    // data: floats (2k + 1) / 2^24 - 1 in (-1, 1) (never 0, so max has no +0 / -0 ties); ints in [-1000, 1000]
    std::vector<float> hf(n);
    std::vector<int> hi(n);
    uint64_t seed = 12345;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = splitmix(seed);
        hf[i] = (float)((int64_t)(2 * (r & 0xffffff)) + 1 - (1 << 24)) * (1.0f / 16777216.0f);
        hi[i] = (int)((r >> 32) % 2001) - 1000;
    }
    R.h_f = hf.data();
    R.h_i = hi.data();
    CK(cudaMalloc(&R.d_f, (n + pad) * 4));
    CK(cudaMalloc(&R.d_i, (n + pad) * 4));
    CK(cudaMalloc(&R.d_dst, (n + pad) * 4));
    CK(cudaMalloc(&R.d_off, (smax + 1) * 8)); // int64 offsets for reduce by key's segmented row
    CK(cudaMalloc(&R.d_keys, n * 4));
    CK(cudaMalloc(&R.d_uk_cub, n * 4));
    CK(cudaMalloc(&R.d_agg_cub, n * 4));
    CK(cudaMalloc(&R.d_uk_ours, n * 4));
    CK(cudaMalloc(&R.d_agg_ours, n * 4));
    CK(cudaMalloc(&R.d_runs, 16));
    CK(cudaMalloc(&R.d_cub, smax * 4));
    CK(cudaMalloc(&R.d_ours, smax * 4));
    CK(cudaMalloc(&R.d_kv, smax * sizeof(cub::KeyValuePair<int, float>)));
    CK(cudaMalloc(&R.d_arg_i, smax * 8));
    CK(cudaMalloc(&R.d_arg_v, smax * 4));
    CK(cudaMalloc(&R.d_res, 16));
    CK(cudaMemcpy(R.d_f, hf.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(R.d_i, hi.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(R.d_f + n, 0, pad * 4));
    CK(cudaMemset(R.d_i + n, 0, pad * 4));

    std::printf("%s, CUB %d.%d.%d; n = %zu, %d reps, median; GB/s = (input + offsets bytes) / time\n", prop.name,
                CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100, n, g_reps);
    if (const char *only = std::getenv("SEGMENTED_COMPARE_DISTS")) { // a comma-separated list of names
        const std::string list = std::string(",") + only + ",";
        std::vector<Dist> kept;
        for (Dist &d : dists)
            if (list.find("," + d.name + ",") != std::string::npos) kept.push_back(std::move(d));
        dists.swap(kept);
    }
    for (const Dist &d : dists) {
        if (!std::strchr(parts, 'r')) break;
        describe(d, n, off64 ? "int64" : "int32");
        std::printf("%-9s %-8s %-4s %-40s %9s %8s %6s %6s %6s\n", "dist", "type", "op", "impl", "ms", "GB/s", "x_copy",
                    "x_cub", "x_flat");
        if (off64)
            run_dist<int64_t>(R, d);
        else
            run_dist<int32_t>(R, d);
    }
    for (const Dist &d : dists) {
        if (!std::strchr(parts, 'k') || (d.name != "uniform" && d.name != "powerlaw")) continue;
        std::printf("# reduce by key, runs of %s: %zu runs, keys int32\n", d.name.c_str(), d.off.size() - 1);
        std::printf("%-9s %-8s %-4s %-40s %9s %8s %6s %6s %6s\n", "dist", "type", "op", "impl", "ms", "GB/s", "x_copy",
                    "x_cub", "x_seg");
        run_rbk(R, d);
    }
    for (const Dist &d : dists) {
        if (!std::strchr(parts, 's')) break;
        std::printf("# scan by key (int32 keys: the segment index of each element) and segmented scan (offsets %s), "
                    "runs / segments of %s, inclusive sum; CUB: DeviceScan::InclusiveSumByKey on those keys\n",
                    off64 ? "int64" : "int32", d.name.c_str());
        std::printf("%-9s %-8s %-4s %-40s %9s %8s %6s %6s %6s\n", "dist", "type", "op", "impl", "ms", "GB/s", "x_copy",
                    "x_cub", "x_flat");
        if (off64)
            run_scan<int64_t>(R, d);
        else
            run_scan<int32_t>(R, d);
    }
    redscan_destroy(g_ctx);
    std::printf("worst segmented / unsegmented (same bytes) time: %.2f (issue 18: <= 2)\n", R.worst_flat);
    std::printf("worst scan by key or segmented scan / unsegmented scan (n values) time: %.2f (issue 18: <= 2)\n",
                R.worst_scan_flat);
    const size_t scan_bad = R.scan_vs_cub + R.scan_vs_ref + R.scan_not_same;
    char scans[320];
    std::snprintf(scans, sizeof scans,
                  "scans: %zu elements checked, %zu mismatches with CUB, %zu with the host, %zu not the same bits in "
                  "scan by key and segmented scan; float32 within %g * prefix sum|x|, largest |redscan - CUB| / "
                  "prefix sum|x| %.2e",
                  R.scan_checked, R.scan_vs_cub, R.scan_vs_ref, R.scan_not_same, SCAN_TOL, R.worst_scan_fdiff);
    if (R.bad)
        std::printf("RESULTS DIFFER (%d checks failed; %s)\n", R.bad, scans);
    else
        std::printf("results agree (int32 sums exactly as CUB's and the host's; float32 max bit for bit; float32 sums "
                    "within %g * sum|x| of CUB's and the host's, largest |redscan - CUB| / sum|x| %.2e; %s)\n",
                    FLOAT_TOL, R.worst_fdiff, scans);
    return R.bad || scan_bad ? 1 : 0;
}
