// The batch kernel: one launch runs every item of a phase (batch_launch.h).
// A block finds its item by binary search over the phase's entries, picks
// the item's launch for the bound addresses (dmls_cuda_choose's rule), then
// runs the same loop bodies as kernels.cu over that launch, read from the
// device tables instead of parameter space, striding by the item's own block
// count instead of the grid. Every thread of a block takes the same
// branches, so the per-item switch costs no divergence.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

extern "C" {
#include "batch_launch.h"
}

namespace {

#include "device_common.cuh"

template <int Bytes, typename I, bool Fill>
__device__ __forceinline__ void copy_body(const dmls_cuda_launch &L, const char *__restrict__ src,
                                          char *__restrict__ dst, uint64_t local, uint64_t blocks) {
    typedef typename unit_type<Bytes>::type T;
    const I count = (I)L.count;
    for (I base = (I)local * kTile; base < count; base += (I)blocks * kTile) {
        T v[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            I i = base + (I)(j * kThreads) + threadIdx.x;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
                if (Fill)
                    v[j] = T();
                else
                    v[j] = __ldg(reinterpret_cast<const T *>(src + s));
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            I i = base + (I)(j * kThreads) + threadIdx.x;
            if (i < count) *reinterpret_cast<T *>(dst + at[j]) = v[j];
        }
    }
}

// GATHER and REVERSE as in kernels.cu: every load of a tile first, then
// every store, so kIlp loads are in flight per thread.
template <int E, int V>
__device__ __forceinline__ void gather_body(const dmls_cuda_launch &L, const char *__restrict__ src,
                                            char *__restrict__ dst, uint64_t local, uint64_t blocks) {
    typedef typename unit_type<E>::type T;
    constexpr int K = V / E;
    const uint32_t count = (uint32_t)L.count;
    for (uint32_t base = (uint32_t)local * kTile; base < count; base += (uint32_t)blocks * kTile) {
        pack<E, V> p[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * kThreads + threadIdx.x;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
#pragma unroll
                for (int k = 0; k < K; k++) p[j].e[k] = __ldg(reinterpret_cast<const T *>(src + s + L.pattern[k]));
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * kThreads + threadIdx.x;
            if (i < count) *reinterpret_cast<typename unit_type<V>::type *>(dst + at[j]) = p[j].v;
        }
    }
}

template <int E>
__device__ __forceinline__ void reverse_body(const dmls_cuda_launch &L, const char *__restrict__ src,
                                             char *__restrict__ dst, uint64_t local, uint64_t blocks) {
    constexpr int V = 16, K = V / E;
    const uint32_t count = (uint32_t)L.count;
    for (uint32_t base = (uint32_t)local * kTile; base < count; base += (uint32_t)blocks * kTile) {
        pack<E, V> in[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * kThreads + threadIdx.x;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
                in[j].v = __ldg(reinterpret_cast<const uint4 *>(src + s));
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * kThreads + threadIdx.x;
            if (i < count) {
                pack<E, V> out;
#pragma unroll
                for (int k = 0; k < K; k++) out.e[k] = in[j].e[K - 1 - k];
                *reinterpret_cast<uint4 *>(dst + at[j]) = out.v;
            }
        }
    }
}

// A contiguous zero fill of L.count bytes at dst + L.dst_offset (what the
// single path hands to cudaMemsetAsync): index 0 writes the bytes before
// the first 16-byte boundary, index j >= 1 the j-th 16 bytes after it.
__device__ __forceinline__ void memset_body(const dmls_cuda_launch &L, char *dst, uint64_t local, uint64_t blocks) {
    char *p = dst + L.dst_offset;
    const uint64_t bytes = L.count, mis = (16 - (uintptr_t)p % 16) % 16, head = mis < bytes ? mis : bytes;
    const uint64_t count = 1 + (bytes - head + 15) / 16;
    for (uint64_t i = local * kThreads + threadIdx.x; i < count; i += blocks * kThreads) {
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

template <typename I, bool Fill>
__device__ __forceinline__ void copy_unit(const dmls_cuda_launch &L, const char *src, char *dst, uint64_t local,
                                          uint64_t blocks) {
    switch (L.unit) {
    case 1: copy_body<1, I, Fill>(L, src, dst, local, blocks); break;
    case 2: copy_body<2, I, Fill>(L, src, dst, local, blocks); break;
    case 4: copy_body<4, I, Fill>(L, src, dst, local, blocks); break;
    case 8: copy_body<8, I, Fill>(L, src, dst, local, blocks); break;
    case 16: copy_body<16, I, Fill>(L, src, dst, local, blocks); break;
    }
}

__device__ void run_launch(const dmls_cuda_launch &L, const char *src, char *dst, uint64_t local, uint64_t blocks) {
    switch (L.kernel) {
    case DMLS_CUDA_COPY:
        if (L.wide)
            copy_unit<uint64_t, false>(L, src, dst, local, blocks);
        else
            copy_unit<uint32_t, false>(L, src, dst, local, blocks);
        break;
    case DMLS_CUDA_FILL:
        if (L.wide)
            copy_unit<uint64_t, true>(L, src, dst, local, blocks);
        else
            copy_unit<uint32_t, true>(L, src, dst, local, blocks);
        break;
    case DMLS_CUDA_GATHER:
        switch (L.unit * 100 + L.vec) {
        case 108: gather_body<1, 8>(L, src, dst, local, blocks); break;
        case 116: gather_body<1, 16>(L, src, dst, local, blocks); break;
        case 208: gather_body<2, 8>(L, src, dst, local, blocks); break;
        case 216: gather_body<2, 16>(L, src, dst, local, blocks); break;
        case 408: gather_body<4, 8>(L, src, dst, local, blocks); break;
        case 416: gather_body<4, 16>(L, src, dst, local, blocks); break;
        case 816: gather_body<8, 16>(L, src, dst, local, blocks); break;
        }
        break;
    case DMLS_CUDA_REVERSE:
        switch (L.unit) {
        case 1: reverse_body<1>(L, src, dst, local, blocks); break;
        case 2: reverse_body<2>(L, src, dst, local, blocks); break;
        case 4: reverse_body<4>(L, src, dst, local, blocks); break;
        case 8: reverse_body<8>(L, src, dst, local, blocks); break;
        }
        break;
    case DMLS_CUDA_MEMSET: memset_body(L, dst, local, blocks); break;
    }
}

template <typename P> __global__ void __launch_bounds__(kThreads) batch_kernel(const __grid_constant__ P p) {
    const uint64_t b = blockIdx.x;
    const uint64_t k = dmls_cuda_batch_find(p.entries, p.n_entries, b);
    const dmls_cuda_batch_entry e = p.entries[k];
    const uint64_t blocks = p.entries[k + 1].first_block - e.first_block;
    const dmls_cuda_batch_item it = p.items[e.item];
    const int64_t in_offset =
        p.crops.on ? dmls_cuda_batch_crop_offset(&p.crops, p.starts, e.item) : (int64_t)it.in_offset;
    const char *src = p.base[it.in_base] + in_offset;
    char *dst = p.base[it.out_base] + it.out_offset;
    const dmls_cuda_launch *choices = p.phase == 0 ? p.ops[it.op].fill : p.ops[it.op].copy;
    const int c = dmls_cuda_batch_choose(choices, (uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)dst);
    run_launch(choices[c], src, dst, b - e.first_block, blocks);
}

template <typename P>
cudaError_t launch_phase(const dmls_cuda_batch_plan *host, const dmls_cuda_batch_plan *dev, int phase,
                         char *const *bases, const void *starts, cudaStream_t s) {
    P p;
    memset(&p, 0, sizeof p);
    p.ops = dev->ops;
    p.items = dev->items;
    p.entries = dev->entries[phase];
    p.n_entries = host->n_entries[phase];
    p.phase = phase;
    p.n_bases = host->n_bases;
    p.starts = starts;
    p.crops = host->crops;
    for (int i = 0; i < host->n_bases; i++) p.base[i] = bases[i];
    void *args[1] = {&p};
    const void *fn = reinterpret_cast<const void *>(batch_kernel<P>);
    cudaError_t e = cudaLaunchKernel(fn, dim3((unsigned)host->blocks[phase]), dim3(kThreads), args, 0, s);
    if (e != cudaSuccess) (void)cudaGetLastError(); // leave no error behind for the caller's next check
    return e;
}

} // namespace

// See batch_launch.h.
extern "C" int dmls_cuda_batch_enqueue(const dmls_cuda_batch_plan *host, const dmls_cuda_batch_plan *dev, int phase,
                                       char *const *bases, const void *starts, void *stream) {
    if (host->blocks[phase] == 0) return cudaSuccess;
    if (host->blocks[phase] > INT32_MAX) return cudaErrorInvalidConfiguration;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (host->n_bases <= DMLS_CUDA_BATCH_FEW_SLOTS)
        return launch_phase<dmls_cuda_batch_params_few>(host, dev, phase, bases, starts, s);
    return launch_phase<dmls_cuda_batch_params_many>(host, dev, phase, bases, starts, s);
}
