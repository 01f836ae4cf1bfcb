// The batch kernel: one launch runs every item of a phase (batch_rules.h).
// A block finds its work by the phase's regular layout or its block map
// (one entry striding with that item's other blocks, or a group of tiny
// entries one warp each), picks each item's launch for the bound addresses
// (dmls_cuda_choose's rule), then runs the same loop bodies as kernels.cu
// over that launch, read from the device tables (staged in shared memory
// when the phase has one operator) instead of parameter space. The bodies
// are written for a unit of Threads threads (the block, or one warp) with
// lane = the thread's place in it. All threads of a unit take the same
// branches, so the per-item switch costs no divergence. A phase whose
// entries all run one streaming launch runs stream_kernel instead (below).
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

extern "C" {
#include "batch_kernels.h"
#include "batch_prepare.h" /* dmls_cuda_batch_uniform */
}

namespace {

#include "device_common.cuh"
#include "loops.cuh"

// The loops (loops.cuh, and stream_loop below) are inline; run_launch
// calls them out of line (the _body functions), where the many bodies of
// the switch, each inlined, would spill at 64 registers. run_entry inlines
// the two that the common batches run (rows of 16-byte vectors: pages,
// split parts, crop rows), so their path from the entry to the first data
// load makes no call. Measured alone this moved nothing (the
// table loads were the cost: bench/RESULTS.md, 2026-11-25); the figures
// since were all taken with it.
template <int Threads, int Bytes, typename I, bool Fill>
__device__ __noinline__ void copy_body(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    tile_loop<Threads, I>(L, src, dst, w, copy_op<Bytes, Fill>());
}

template <int Threads, int E, int V>
__device__ __noinline__ void gather_body(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    tile_loop<Threads, uint32_t>(L, src, dst, w, gather_op<E, V>());
}

template <int Threads, int E>
__device__ __noinline__ void reverse_body(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    tile_loop<Threads, uint32_t>(L, src, dst, w, reverse_op<E, 16>());
}

// A contiguous zero fill of L.count bytes at dst + L.dst_offset (what the
// single path hands to cudaMemsetAsync): index 0 writes the bytes before
// the first 16-byte boundary, index j >= 1 the j-th 16 bytes after it.
template <int Threads> __device__ __noinline__ void memset_body(const dmls_cuda_launch &L, char *dst, span w) {
    char *p = dst + L.dst_offset;
    const uint64_t bytes = L.count, mis = (16 - (uintptr_t)p % 16) % 16, head = mis < bytes ? mis : bytes;
    const uint64_t count = 1 + (bytes - head + 15) / 16;
    for (uint64_t i = w.local * Threads + w.lane; i < count; i += w.blocks * Threads) {
        if (i == 0) {
            for (uint64_t k = 0; k < head; k++) p[k] = 0;
            continue;
        }
        char *q = p + head + (i - 1) * 16;
        const uint64_t left = bytes - head - (i - 1) * 16;
        if (left >= 16)
            *reinterpret_cast<uint4 *>(q) = make_uint4(0, 0, 0, 0);
        else
            for (uint64_t k = 0; k < left; k++) q[k] = 0;
    }
}

// A streaming launch (batch_rules.h: dmls_cuda_batch_streams): rows of n
// 16-byte vectors (Rows; else one row: a page, a contiguous part),
// DMLS_CUDA_BATCH_STREAM_ILP loads in flight per thread. Only the 32 data
// registers grow with the ILP: each store's address is recomputed from the
// index (one multiply-high for rows), and the launch's few fields are read
// once, the offsets folded into the bases.
template <int Threads, bool Rows>
__device__ __forceinline__ void stream_loop(const dmls_cuda_launch &L, const char *__restrict__ src,
                                            char *__restrict__ dst, span w) {
    constexpr int K = DMLS_CUDA_BATCH_STREAM_ILP, Tile = Threads * K;
    const uint32_t count = (uint32_t)L.count;
    const uint32_t n = Rows ? (uint32_t)L.shape[0] : 0, magic = Rows ? (uint32_t)L.magic[0] : 0;
    const uint32_t shift = Rows ? L.shift[0] : 0;
    const int64_t ss = Rows ? L.src_stride[1] : 0, ds = Rows ? L.dst_stride[1] : 0;
    src += L.src_offset;
    dst += L.dst_offset;
    for (uint32_t base = (uint32_t)w.local * Tile; base < count; base += (uint32_t)w.blocks * Tile) {
        uint4 v[K];
#pragma unroll
        for (int j = 0; j < K; j++) {
            const uint32_t i = base + j * Threads + w.lane;
            if (i < count) {
                const uint32_t r = Rows ? quotient(i, magic, shift) : 0;
                v[j] = __ldg(reinterpret_cast<const uint4 *>(src + (int64_t)r * ss + (int64_t)(i - r * n) * 16));
            }
        }
#pragma unroll
        for (int j = 0; j < K; j++) {
            const uint32_t i = base + j * Threads + w.lane;
            if (i < count) {
                const uint32_t r = Rows ? quotient(i, magic, shift) : 0;
                *reinterpret_cast<uint4 *>(dst + (int64_t)r * ds + (int64_t)(i - r * n) * 16) = v[j];
            }
        }
    }
}

template <int Threads>
__device__ __forceinline__ void stream_run(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    if (L.ndim == 2)
        stream_loop<Threads, true>(L, src, dst, w);
    else
        stream_loop<Threads, false>(L, src, dst, w);
}

template <int Threads>
__device__ __noinline__ void stream_body(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    stream_run<Threads>(L, src, dst, w);
}

template <int Threads, typename I, bool Fill>
__device__ __forceinline__ void copy_unit(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    switch (L.unit) {
    case 1: copy_body<Threads, 1, I, Fill>(L, src, dst, w); break;
    case 2: copy_body<Threads, 2, I, Fill>(L, src, dst, w); break;
    case 4: copy_body<Threads, 4, I, Fill>(L, src, dst, w); break;
    case 8: copy_body<Threads, 8, I, Fill>(L, src, dst, w); break;
    case 16: copy_body<Threads, 16, I, Fill>(L, src, dst, w); break;
    }
}

template <int Threads> __device__ void run_gather(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    switch (L.unit * 100 + L.vec) {
    case 108: gather_body<Threads, 1, 8>(L, src, dst, w); break;
    case 116: gather_body<Threads, 1, 16>(L, src, dst, w); break;
    case 208: gather_body<Threads, 2, 8>(L, src, dst, w); break;
    case 216: gather_body<Threads, 2, 16>(L, src, dst, w); break;
    case 408: gather_body<Threads, 4, 8>(L, src, dst, w); break;
    case 416: gather_body<Threads, 4, 16>(L, src, dst, w); break;
    case 816: gather_body<Threads, 8, 16>(L, src, dst, w); break;
    }
}

template <int E, int VL, int VS>
__device__ __noinline__ void tile_body(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    extern __shared__ __align__(16) char tile_buffer[]; // kTileBytes, given by launch_phase when a phase has tiles
    tile_copy<E, VL, VS>(L, src, dst, w, tile_buffer);
}

template <int E> __device__ void run_tile_widths(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    switch (L.vec) {
    case 16 | 16 << 8: tile_body<E, 16, 16>(L, src, dst, w); break;
    case E | 16 << 8: tile_body<E, E, 16>(L, src, dst, w); break;
    case 16 | E << 8: tile_body<E, 16, E>(L, src, dst, w); break;
    case E | E << 8: tile_body<E, E, E>(L, src, dst, w); break;
    }
}

__device__ void run_tile(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    switch (L.unit) {
    case 1: run_tile_widths<1>(L, src, dst, w); break;
    case 2: run_tile_widths<2>(L, src, dst, w); break;
    case 4: run_tile_widths<4>(L, src, dst, w); break;
    case 8: run_tile_widths<8>(L, src, dst, w); break;
    }
}

template <int Threads> __device__ void run_launch(const dmls_cuda_launch &L, const char *src, char *dst, span w) {
    switch (L.kernel) {
    case DMLS_CUDA_COPY:
        if (dmls_cuda_batch_streams(&L))
            stream_body<Threads>(L, src, dst, w);
        else if (L.wide)
            copy_unit<Threads, uint64_t, false>(L, src, dst, w);
        else
            copy_unit<Threads, uint32_t, false>(L, src, dst, w);
        break;
    case DMLS_CUDA_FILL:
        if (L.wide)
            copy_unit<Threads, uint64_t, true>(L, src, dst, w);
        else
            copy_unit<Threads, uint32_t, true>(L, src, dst, w);
        break;
    case DMLS_CUDA_GATHER: run_gather<Threads>(L, src, dst, w); break;
    case DMLS_CUDA_REVERSE:
        switch (L.unit) {
        case 1: reverse_body<Threads, 1>(L, src, dst, w); break;
        case 2: reverse_body<Threads, 2>(L, src, dst, w); break;
        case 4: reverse_body<Threads, 4>(L, src, dst, w); break;
        case 8: reverse_body<Threads, 8>(L, src, dst, w); break;
        }
        break;
    case DMLS_CUDA_MEMSET: memset_body<Threads>(L, dst, w); break;
    case DMLS_CUDA_TILE:
        if (Threads == kThreads) run_tile(L, src, dst, w); // a tile item is never tiny: a block runs it
        break;
    }
}

// Words of an operator's launches (fill or copy: DMLS_CUDA_CHOICES each)
// a lane of a warp copies to shared memory, 8 bytes at a time.
constexpr int kLaunchWords = (int)(sizeof(dmls_cuda_launch) * DMLS_CUDA_CHOICES / 8);
constexpr int kStageTrips = (kLaunchWords + DMLS_CUDA_BATCH_WARP - 1) / DMLS_CUDA_BATCH_WARP;
static_assert(sizeof(dmls_cuda_launch) * DMLS_CUDA_CHOICES % 8 == 0 && sizeof(dmls_cuda_batch_op) % 8 == 0,
              "launch staging copies 8-byte words");

// Runs entry k of the phase as a unit of Threads threads.
//
// A block's first data load waits for its entry, its crop starts and its
// launch's fields (count, shape, strides, divisors): read from global
// memory where they are used, these loads went out one after another, each
// a round trip to L2 that the batch's own streaming traffic makes long
// (ncu on the KV gather: 60% of the warps' time waited on them, none on
// the pages). So every table load is issued first, in one round trip:
// the entry's fields, the starts row, and, when the phase has one
// operator, its launches, which each warp copies to its own slot of
// shared memory (`staged`, 3 launches of 472 bytes) for the loop bodies to
// read at shared-memory latency. A phase of mixed operators reads its
// launches from global memory, as before.
template <int Threads, typename P>
__device__ __forceinline__ void run_entry(const P &p, uint32_t k, span w, dmls_cuda_launch *staged) {
    const uint32_t lane = threadIdx.x % DMLS_CUDA_BATCH_WARP;
    const bool one_op = p.layout.op >= 0;
    uint2 words[kStageTrips];
    if (one_op) {
        const dmls_cuda_batch_op &o = p.ops[p.layout.op];
        const uint2 *from = reinterpret_cast<const uint2 *>(p.phase == 0 ? o.fill : o.copy);
#pragma unroll
        for (int t = 0; t < kStageTrips; t++)
            if (lane + t * DMLS_CUDA_BATCH_WARP < (uint32_t)kLaunchWords)
                words[t] = __ldg(from + lane + t * DMLS_CUDA_BATCH_WARP);
    }
    const dmls_cuda_batch_entry &e = p.entries[k];
    const uint32_t in_base = e.in_base, out_base = e.out_base;
    const uint64_t out_offset = e.out_offset;
    const int64_t in_offset = p.crops.on ? dmls_cuda_batch_crop_offset(&p.crops, p.starts, p.layout.dense ? k : e.item)
                                         : (int64_t)e.in_offset;
    const dmls_cuda_launch *choices;
    if (one_op) {
        uint2 *to = reinterpret_cast<uint2 *>(staged);
#pragma unroll
        for (int t = 0; t < kStageTrips; t++)
            if (lane + t * DMLS_CUDA_BATCH_WARP < (uint32_t)kLaunchWords)
                to[lane + t * DMLS_CUDA_BATCH_WARP] = words[t];
        __syncwarp();
        choices = staged;
    } else {
        const dmls_cuda_batch_op &o = p.ops[e.op];
        choices = p.phase == 0 ? o.fill : o.copy;
    }
    const char *src = p.base[in_base] + in_offset;
    char *dst = p.base[out_base] + out_offset;
    const dmls_cuda_launch &L =
        choices[dmls_cuda_batch_choose(choices, (uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)dst)];
    if (dmls_cuda_batch_streams(&L))
        stream_run<Threads>(L, src, dst, w);
    else if (L.kernel == DMLS_CUDA_COPY && L.unit == 16 && !L.wide)
        tile_loop<Threads, uint32_t>(L, src, dst, w, copy_op<16, false>());
    else
        run_launch<Threads>(L, src, dst, w);
}

// MinBlocks: blocks the compiler must fit per SM (0: its own choice).
template <typename P, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) batch_kernel(const __grid_constant__ P p) {
    __shared__ dmls_cuda_launch staged[DMLS_CUDA_BATCH_GROUP][DMLS_CUDA_CHOICES]; // a warp's own slot
    const uint32_t warp = threadIdx.x / DMLS_CUDA_BATCH_WARP;
    uint32_t k, n;
    uint64_t local, blocks;
    dmls_cuda_batch_work(&p.layout, p.map, p.entries, blockIdx.x, &k, &n, &local, &blocks);
    if (n >= 2) { // a group: one warp per tiny entry
        if (warp < n)
            run_entry<DMLS_CUDA_BATCH_WARP>(p, k + warp, span{threadIdx.x % DMLS_CUDA_BATCH_WARP, 0, 1}, staged[warp]);
        return;
    }
    run_entry<kThreads>(p, k, span{threadIdx.x, local, blocks}, staged[warp]);
}

// A phase whose entries all run one streaming launch (dmls_cuda_batch_uniform:
// one operator, one entry per per_entry blocks, addresses aligned for the
// operator's first launch): a KV gather's pages, a split's parts. The
// launch comes in the parameters, so a block's only table loads before its
// data are its entry and its starts row, both issued at once; no choice and
// no staging (it still takes 64 registers, 4 blocks per SM). The general
// kernel held the KV gather at 0.91-0.93 of a device copy, this one 0.96;
// a plain kernel of this shape reaches 1.08-1.10 (bench/RESULTS.md).
template <typename P, bool Rows>
__global__ void __launch_bounds__(kThreads) stream_kernel(const __grid_constant__ P p,
                                                          const __grid_constant__ dmls_cuda_launch L) {
    const uint32_t per = p.layout.per_entry, k = blockIdx.x / per;
    const dmls_cuda_batch_entry &e = p.entries[k];
    const uint32_t in_base = e.in_base, out_base = e.out_base;
    const uint64_t out_offset = e.out_offset;
    const int64_t in_offset = p.crops.on ? dmls_cuda_batch_crop_offset(&p.crops, p.starts, p.layout.dense ? k : e.item)
                                         : (int64_t)e.in_offset;
    stream_loop<kThreads, Rows>(L, p.base[in_base] + in_offset, p.base[out_base] + out_offset,
                                span{threadIdx.x, blockIdx.x - (uint64_t)k * per, per});
}

// The form of the kernel launches use (dmls_cuda_batch_variant).
int variant = 0;

template <typename P> const void *kernel_of(int v) {
    if (v == 1) return reinterpret_cast<const void *>(batch_kernel<P, 0>);
    return reinterpret_cast<const void *>(batch_kernel<P, DMLS_CUDA_BATCH_MIN_BLOCKS>);
}

template <typename P>
cudaError_t launch_phase(const dmls_cuda_batch_plan *host, const dmls_cuda_batch_plan *dev, int phase,
                         char *const *bases, const void *starts, cudaStream_t s) {
    P p;
    memset(&p, 0, sizeof p);
    p.ops = dev->ops;
    p.entries = dev->entries[phase];
    p.map = dev->map[phase];
    p.layout = host->layout[phase];
    p.phase = phase;
    p.n_bases = host->n_bases;
    p.starts = starts;
    p.crops = host->crops;
    uint64_t at[DMLS_BATCH_CUDA_MAX_SLOTS];
    for (int i = 0; i < host->n_bases; i++) p.base[i] = bases[i], at[i] = (uint64_t)(uintptr_t)bases[i];
    const dmls_cuda_batch_layout &l = host->layout[phase];
    const dmls_cuda_launch *first = l.op >= 0 ? (phase == 0 ? host->ops[l.op].fill : host->ops[l.op].copy) : nullptr;
    const dim3 grid((unsigned)host->blocks[phase]);
    cudaError_t e;
    if (dmls_cuda_batch_uniform(host, phase, at)) {
        void *args[2] = {&p, const_cast<dmls_cuda_launch *>(first)};
        const void *k = first->ndim == 2 ? reinterpret_cast<const void *>(stream_kernel<P, true>)
                                         : reinterpret_cast<const void *>(stream_kernel<P, false>);
        e = cudaLaunchKernel(k, grid, dim3(kThreads), args, 0, s);
    } else {
        void *args[1] = {&p};
        const size_t shared = host->tiled[phase] ? kTileBytes : 0;
        e = cudaLaunchKernel(kernel_of<P>(variant), grid, dim3(kThreads), args, shared, s);
    }
    if (e != cudaSuccess) (void)cudaGetLastError(); // leave no error behind for the caller's next check
    return e;
}

} // namespace

// See batch_kernels.h.
extern "C" int dmls_cuda_batch_variant(int v) {
    if (v == 0 || v == 1) variant = v;
    return variant;
}

// See batch_kernels.h.
extern "C" int dmls_cuda_batch_enqueue(const dmls_cuda_batch_plan *host, const dmls_cuda_batch_plan *dev, int phase,
                                       char *const *bases, const void *starts, void *stream) {
    if (host->blocks[phase] == 0) return cudaSuccess;
    if (host->blocks[phase] > INT32_MAX) return cudaErrorInvalidConfiguration;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (host->n_bases <= DMLS_CUDA_BATCH_FEW_SLOTS)
        return launch_phase<dmls_cuda_batch_params_few>(host, dev, phase, bases, starts, s);
    return launch_phase<dmls_cuda_batch_params_many>(host, dev, phase, bases, starts, s);
}
