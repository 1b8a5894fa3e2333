/* Grid-level scan kernels (docs/ALGORITHMS.md, "Scans" / "Grid level"). Twin: kernels_cl/scan_grid.cl.
 *
 * Every block scan B of the scan_*.cuh headers (ks, ksdb, bk, coarse) gets, as templates over the policy
 * struct B (rs_block_ks, ...), the input type, the output type T and the op:
 *
 *   scan_sections<B, SRC, DST, T, Op>(SRC in, DST out, T *totals, n, exclusive, T seed, int seeded)
 *       Block-scans every section of n values and writes L (inclusive, or exclusive: the previous local value,
 *       identity at the section start). seeded = 0: L as is, and totals[j] = the section's total (the block
 *       scan's last element). seeded = 1 (the one-section case): out = seed (+) L, totals is not touched.
 *       SRC = const IN_T * on level 0 (converting IN_T -> T; the OpenCL scan_sections_in_B), const T * on the
 *       levels of section totals, scanned in place with in == out (scan_sections_t_B). A narrow input or output
 *       comes as rs_nsrc<T> / rs_ndst<T> (common.cuh: one instance per T, the element type an argument).
 *   tile_reduce<B, SRC, T, Op>(SRC in, T *totals, n, T seed, unsigned *done, int scan_totals)
 *       totals[j] = the total of section j, the same expression (so the same bits) as the block scan's last
 *       element: each thread folds its SECTION/256 contiguous values left to right, then the balanced
 *       pairwise tree over the 256 thread values. scan_totals = 1 (the totals fit one section): the block that
 *       finishes last (a ticket from *done, which it sets back to 0) then scans them in place, exclusive and
 *       seeded, as scan_sections would: reduce-then-scan in two launches instead of three. CUDA only: the
 *       pattern (a fence, then an atomic ticket; the last block reads what the others wrote) is defined by CUDA's
 *       memory model, while OpenCL 1.2 orders nothing between work-groups outside atomics (Oclgrind reports it as a
 *       race), so the OpenCL twin keeps the one-section scan_sections launch. Same bits either way.
 *   scan_tile_seeded<B, SRC, DST, T, Op>(SRC in, DST out, const T *carry, n, exclusive)
 *       Block-scans every section again and writes out = carry[j] (+) L (reduce-then-scan, last kernel).
 *
 * and, independent of the block scan:
 *   scan_add_carry<T, Op>(T *data, const T *carry, n, section)
 *       data[i] = carry[i / section] (+) data[i] (hierarchical, last kernel of each level).
 * The OpenCL file's scan_totals_chain (the AUTO grid's carries in single_pass's order) has no twin here: the CUDA
 * backend runs the AUTO grid as single_pass itself (backend_cuda/cuda_scan.c).
 *
 * Sections are taken by a block-uniform loop (sec = block id, + blocks launched, ...), so the grid size never
 * changes which values are combined, and the barriers in the loop are reached by every thread. A block
 * reads its whole section into shared memory before it writes any of it: in == out is safe (hence no
 * __restrict__ on in/out). Nothing is read or written at or past n; shared slots past n hold the identity.
 * Indices are 64-bit. */
#include <string.h>

#include "common.cuh"
#include "cu_launch.h"
#include "scan_brent_kung.cuh"
#include "scan_coarsened.cuh"
#include "scan_io.cuh"
#include "scan_kogge_stone.cuh"
#include "scan_kogge_stone_db.cuh"

template <class B, typename SRC, typename DST, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    scan_sections(SRC in, DST out, T *totals, rs_u64 n, int exclusive, T seed, int seeded)
{
    __shared__ __align__(16) T s[B::SECTION];
    __shared__ __align__(16) T aux[B::AUX];
    const rs_u64 nsec = (n + (B::SECTION - 1)) / B::SECTION;
    for (rs_u64 sec = blockIdx.x; sec < nsec; sec += gridDim.x) {
        const rs_u64 base = sec * B::SECTION;
        rs_scan_load<T, Op>(s, in, base, n, B::SECTION);
        B::template scan<Op>(s, aux);
        if (!seeded && threadIdx.x == RS_GROUP - 1) totals[sec] = s[B::SECTION - 1];
        rs_scan_store<T, Op>(out, s, base, n, B::SECTION, exclusive, seed, seeded);
        __syncthreads(); /* s is refilled for the next section */
    }
}

template <class B, typename SRC, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    tile_reduce(SRC in, T *totals, rs_u64 n, T seed, unsigned *done, int scan_totals)
{
    __shared__ __align__(16) T s[B::SECTION];
    __shared__ __align__(16) T r[RS_GROUP];
    __shared__ __align__(16) T aux[B::AUX];
    __shared__ unsigned last;
    const unsigned t = threadIdx.x;
    const unsigned items = B::SECTION / RS_GROUP; /* 1, 2 or 8 */
    const rs_u64 nsec = (n + (B::SECTION - 1)) / B::SECTION;
    for (rs_u64 sec = blockIdx.x; sec < nsec; sec += gridDim.x) {
        rs_scan_load<T, Op>(s, in, sec * B::SECTION, n, B::SECTION);
        __syncthreads();
        T x[items]; /* s[t*items .. t*items+items-1], read with vector accesses (common.cuh) */
        rs_shared_read<items>(s + t * items, x);
        T acc = x[0];
#pragma unroll
        for (unsigned k = 1; k < items; ++k) acc = Op::combine(acc, x[k]);
        r[t] = acc;
        const T total = rs_scan_tree_total<T, Op>(r);
        if (t == 0) totals[sec] = total;
        __syncthreads(); /* s and r are refilled for the next section */
    }
    if (!scan_totals) return; /* uniform: a kernel argument */
    /* The totals fit one section: the block that finishes last scans them in place (exclusive, seeded), the same
     * computation as scan_sections' one-section launch, so the same bits, one launch fewer. Thread 0 wrote this
     * block's totals; the fence makes them visible device-wide before its ticket is taken. */
    if (t == 0) {
        __threadfence();
        last = atomicAdd(done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return; /* uniform: shared */
    __threadfence();
    /* The other blocks' totals, read through L2 (ld.global.cg: never a copy cached in L1 before they were written),
     * all of a thread's loads in flight at once, then to shared memory: the tail is latency, not bandwidth. */
    T v[B::SECTION / RS_GROUP];
#pragma unroll
    for (unsigned j = 0; j < B::SECTION / RS_GROUP; ++j) {
        const unsigned k = t + j * RS_GROUP;
        v[j] = k < nsec ? rs_load_cg(totals + k) : Op::identity();
    }
#pragma unroll
    for (unsigned j = 0; j < B::SECTION / RS_GROUP; ++j) s[t + j * RS_GROUP] = v[j];
    B::template scan<Op>(s, aux);
    rs_scan_store<T, Op>(totals, s, 0, nsec, B::SECTION, 1, seed, 1);
    if (t == 0) *done = 0u; /* ready for the next launch on the stream */
}

template <class B, typename SRC, typename DST, typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP)
    scan_tile_seeded(SRC in, DST out, const T *carry, rs_u64 n, int exclusive)
{
    __shared__ __align__(16) T s[B::SECTION];
    __shared__ __align__(16) T aux[B::AUX];
    const rs_u64 nsec = (n + (B::SECTION - 1)) / B::SECTION;
    for (rs_u64 sec = blockIdx.x; sec < nsec; sec += gridDim.x) {
        const rs_u64 base = sec * B::SECTION;
        rs_scan_load<T, Op>(s, in, base, n, B::SECTION);
        B::template scan<Op>(s, aux);
        rs_scan_store<T, Op>(out, s, base, n, B::SECTION, exclusive, carry[sec], 1);
        __syncthreads();
    }
}

/* data[i] = carry[i / section] (+) data[i] for i < n. No shared memory, no barriers. */
template <typename T, class Op>
__global__ void __launch_bounds__(RS_GROUP) scan_add_carry(T *data, const T *carry, rs_u64 n, rs_u64 section)
{
    const rs_u64 nsec = (n + (section - 1)) / section;
    for (rs_u64 sec = blockIdx.x; sec < nsec; sec += gridDim.x) {
        const T p = carry[sec];
        const rs_u64 base = sec * section;
        for (rs_u64 k = threadIdx.x; k < section; k += RS_GROUP) {
            const rs_u64 g = base + k;
            if (g < n) data[g] = rs_out<Op>(Op::combine(p, data[g]));
        }
    }
}

/* ---- launchers ---- */

/* block code (redscan_block_scan: 1 KOGGE_STONE, 2 KOGGE_STONE_DB, 3 BRENT_KUNG, 4 COARSENED) -> f(B()) */
template <class F> static cudaError_t rs_dispatch_block(int block, F f)
{
    switch (block) {
    case 1: return f(rs_block_ks());
    case 2: return f(rs_block_ksdb());
    case 3: return f(rs_block_bk());
    case 4: return f(rs_block_coarse());
    }
    return cudaErrorInvalidValue;
}

extern "C" unsigned rs_cu_scan_section(int block)
{
    switch (block) {
    case 1: return rs_block_ks::SECTION;
    case 2: return rs_block_ksdb::SECTION;
    case 3: return rs_block_bk::SECTION;
    case 4: return rs_block_coarse::SECTION;
    }
    return 0;
}

extern "C" cudaError_t rs_cu_scan_sections(int block, int in_dtype, int out_dtype, int op, const void *in, void *out,
                                           void *totals, unsigned long long n, int exclusive, const void *seed,
                                           int seeded, unsigned grid, cudaStream_t stream)
{
    return rs_dispatch_block(block, [&](auto b) -> cudaError_t {
        typedef decltype(b) B;
        return rs_dispatch_scan(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
            typedef typename decltype(xt)::type X;
            typedef typename decltype(tt)::type T;
            typedef typename decltype(ot)::template apply<T> Op;
            typedef rs_scan_src<X> S;
            typedef rs_scan_dst<X, T> D;
            T seed_v;
            memset(&seed_v, 0, sizeof seed_v);
            if (seeded) memcpy(&seed_v, seed, sizeof seed_v);
            scan_sections<B, typename S::type, typename D::type, T, Op><<<grid, RS_GROUP, 0, stream>>>(
                S::make(in, in_dtype), D::make(out, out_dtype), (T *)totals, n, exclusive, seed_v, seeded);
            return rs_launched();
        });
    });
}

extern "C" cudaError_t rs_cu_scan_tile_reduce(int block, int in_dtype, int out_dtype, int op, const void *in,
                                              void *totals, unsigned long long n, const void *seed, unsigned *done,
                                              unsigned grid, cudaStream_t stream)
{
    return rs_dispatch_block(block, [&](auto b) -> cudaError_t {
        typedef decltype(b) B;
        return rs_dispatch_scan(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
            typedef typename decltype(xt)::type X;
            typedef typename decltype(tt)::type T;
            typedef typename decltype(ot)::template apply<T> Op;
            typedef rs_scan_src<X> S;
            T seed_v;
            memset(&seed_v, 0, sizeof seed_v);
            if (done) memcpy(&seed_v, seed, sizeof seed_v);
            tile_reduce<B, typename S::type, T, Op><<<grid, RS_GROUP, 0, stream>>>(S::make(in, in_dtype), (T *)totals,
                                                                                   n, seed_v, done, done != NULL);
            return rs_launched();
        });
    });
}

extern "C" cudaError_t rs_cu_scan_tile_seeded(int block, int in_dtype, int out_dtype, int op, const void *in,
                                              void *out, const void *carry, unsigned long long n, int exclusive,
                                              unsigned grid, cudaStream_t stream)
{
    return rs_dispatch_block(block, [&](auto b) -> cudaError_t {
        typedef decltype(b) B;
        return rs_dispatch_scan(in_dtype, out_dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
            typedef typename decltype(xt)::type X;
            typedef typename decltype(tt)::type T;
            typedef typename decltype(ot)::template apply<T> Op;
            typedef rs_scan_src<X> S;
            typedef rs_scan_dst<X, T> D;
            scan_tile_seeded<B, typename S::type, typename D::type, T, Op><<<grid, RS_GROUP, 0, stream>>>(
                S::make(in, in_dtype), D::make(out, out_dtype), (const T *)carry, n, exclusive);
            return rs_launched();
        });
    });
}

extern "C" cudaError_t rs_cu_scan_add_carry(int dtype, int op, void *data, const void *carry, unsigned long long n,
                                            unsigned long long section, unsigned grid, cudaStream_t stream)
{
    if (section == 0) return cudaErrorInvalidValue;
    return rs_dispatch(dtype, dtype, op, [&](auto xt, auto tt, auto ot) -> cudaError_t {
        (void)xt;
        typedef typename decltype(tt)::type T;
        typedef typename decltype(ot)::template apply<T> Op;
        scan_add_carry<T, Op><<<grid, RS_GROUP, 0, stream>>>((T *)data, (const T *)carry, n, section);
        return rs_launched();
    });
}
