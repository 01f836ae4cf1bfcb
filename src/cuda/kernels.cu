// The CUDA kernels and their one launcher. Every kernel reads its launch
// (src/cuda/launch.h, built by prepare.c) straight from parameter space
// (__grid_constant__), so nothing is copied to the device per call. Each
// kernel body is compiled for two parameter blocks P: dmls_cuda_launch (any
// launch, 472 bytes with the pointers) and dmls_cuda_compact (32-bit launches
// of at most 4 dims, 156 bytes: less for the driver to copy per launch).
//
// Index arithmetic: a flat index is peeled into coordinates from the inside
// out with multiply-high division (magic numbers from prepare.c), never an
// integer divide. I is uint32_t below 2^31 indices, uint64_t above (the
// general block only).
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

extern "C" {
#include "launch.h"
}

namespace {

#include "device_common.cuh"
#include "loops.cuh"

// The kernels: one loop of loops.cuh each, a block its unit.
template <int Bytes, typename I, bool Fill, typename P>
__global__ void __launch_bounds__(kThreads)
copy_kernel(const char *__restrict__ src, char *__restrict__ dst, const __grid_constant__ P L) {
    tile_loop<kThreads, I>(L, src, dst, span{threadIdx.x, blockIdx.x, gridDim.x}, copy_op<Bytes, Fill>());
}

// The gathers and reversals (Op: gather_op or reverse_op) of E-byte items,
// V bytes at a time: 32-bit indices only.
template <template <int, int> class Op, int E, int V, typename P>
__global__ void __launch_bounds__(kThreads)
items_kernel(const char *__restrict__ src, char *__restrict__ dst, const __grid_constant__ P L) {
    tile_loop<kThreads, uint32_t>(L, src, dst, span{threadIdx.x, blockIdx.x, gridDim.x}, Op<E, V>());
}

template <int E, int VL, int VS>
__global__ void __launch_bounds__(kThreads)
tile_kernel(const char *__restrict__ src, char *__restrict__ dst, const __grid_constant__ dmls_cuda_launch L) {
    __shared__ __align__(16) char sm[kTileBytes];
    tile_copy<E, VL, VS>(L, src, dst, span{threadIdx.x, blockIdx.x, gridDim.x}, sm);
}

template <int E> const void *pick_tile_widths(int vec) {
    switch (vec) {
    case 16 | 16 << 8: return reinterpret_cast<const void *>(tile_kernel<E, 16, 16>);
    case E | 16 << 8: return reinterpret_cast<const void *>(tile_kernel<E, E, 16>);
    case 16 | E << 8: return reinterpret_cast<const void *>(tile_kernel<E, 16, E>);
    case E | E << 8: return reinterpret_cast<const void *>(tile_kernel<E, E, E>);
    }
    return nullptr;
}

// f(std::integral_constant<int, E>()) for the size e (bytes) known only at
// run time: 1, 2, 4 and 8, and 16 where Max is 16; up to Max only, nullptr
// for any other. Every picker's one switch from a run-time size to the
// template argument of its kernel.
template <int Max, typename F> const void *by_size(int e, F f) {
    switch (e) {
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 4: return f(std::integral_constant<int, 4>());
    case 8:
        if constexpr (Max >= 8) return f(std::integral_constant<int, 8>());
        break;
    case 16:
        if constexpr (Max >= 16) return f(std::integral_constant<int, 16>());
        break;
    }
    return nullptr;
}

// A kernel as the host address cudaLaunchKernel takes.
template <typename K> const void *address(K *kernel) { return reinterpret_cast<const void *>(kernel); }

// A tiled copy's kernel: element size and the two access widths.
const void *pick_tile(const dmls_cuda_launch *L) {
    return by_size<8>(L->unit, [L](auto e) { return pick_tile_widths<decltype(e)::value>(L->vec); });
}

// The kernel for a launch; nullptr for a combination that has no kernel
// (the gathers and reversals index in 32 bits only; prepare.c never plans
// them wide).
template <typename P, typename I, bool Fill> const void *pick_copy(int unit) {
    return by_size<16>(unit, [](auto e) { return address(copy_kernel<decltype(e)::value, I, Fill, P>); });
}

// Op's kernel for items of e bytes (up to MaxE) moved V bytes at a time.
template <template <int, int> class Op, int V, int MaxE, typename P> const void *pick_items(int e) {
    return by_size<MaxE>(e, [](auto n) { return address(items_kernel<Op, decltype(n)::value, V, P>); });
}

// Gathers move 8 or 16 bytes at a time (8 only for items under 8 bytes),
// reversals 16.
template <typename P> const void *pick_gather(int e, int v) {
    if (v == 16) return pick_items<gather_op, 16, 8, P>(e);
    if (v == 8) return pick_items<gather_op, 8, 4, P>(e);
    return nullptr;
}

template <typename P> const void *pick_reverse(int e, int v) {
    return v == 16 ? pick_items<reverse_op, 16, 8, P>(e) : nullptr;
}

// 32-bit index: any kernel, from either parameter block.
template <typename P> const void *pick32(const dmls_cuda_launch *L) {
    switch (L->kernel) {
    case DMLS_CUDA_COPY: return pick_copy<P, uint32_t, false>(L->unit);
    case DMLS_CUDA_FILL: return pick_copy<P, uint32_t, true>(L->unit);
    case DMLS_CUDA_GATHER: return pick_gather<P>(L->unit, L->vec);
    case DMLS_CUDA_REVERSE: return pick_reverse<P>(L->unit, L->vec);
    }
    return nullptr;
}

// 64-bit index: copies and fills, from the general block.
const void *pick64(const dmls_cuda_launch *L) {
    switch (L->kernel) {
    case DMLS_CUDA_COPY: return pick_copy<dmls_cuda_launch, uint64_t, false>(L->unit);
    case DMLS_CUDA_FILL: return pick_copy<dmls_cuda_launch, uint64_t, true>(L->unit);
    }
    return nullptr;
}

// One kernel launch: cudaLaunchKernel itself, whose return code is the
// launch's own (kernel<<<>>> would add a push and a pop of the configuration
// and need cudaGetLastError after it). The runtime copies the parameters
// during the call, so they may live in the (immutable) operator.
cudaError_t launch(const void *fn, unsigned blocks, unsigned threads, const char *src, char *dst, const void *params,
                   cudaStream_t s) {
    void *args[3] = {&src, &dst, const_cast<void *>(params)};
    cudaError_t e = cudaLaunchKernel(fn, dim3(blocks), dim3(threads), params ? args : nullptr, 0, s);
    if (e != cudaSuccess) (void)cudaGetLastError(); // leave no error behind for the caller's next check
    return e;
}

// Launch-cost probes for dmlslice bench --device cuda: empty kernels, one
// block of one thread, launched as every kernel is (launch() above), so
// that their times are the floor under an execute: no parameters, the
// compact kernels' and the general kernels' parameters. Templates only
// because nvcc gives a plain kernel's host stub a global symbol even in an
// anonymous namespace (tests/check_symbols.sh).
template <int> __global__ void probe_empty() {}
template <typename P> __global__ void probe_params(const char *, char *, const __grid_constant__ P) {}

} // namespace

// Launches probe `which`; see launch.h.
extern "C" int dmls_cuda_probe(int which, void *stream, int *param_bytes) {
    static const dmls_cuda_compact compact_params = {};
    static const dmls_cuda_launch general = {};
    const void *fn = nullptr, *params = nullptr;
    int bytes = 0;
    switch (which) {
    case 0: fn = reinterpret_cast<const void *>(probe_empty<0>); break;
    case 1:
        fn = reinterpret_cast<const void *>(probe_params<dmls_cuda_compact>);
        params = &compact_params;
        bytes = (int)(2 * sizeof(void *) + sizeof compact_params);
        break;
    case 2:
        fn = reinterpret_cast<const void *>(probe_params<dmls_cuda_launch>);
        params = &general;
        bytes = (int)(2 * sizeof(void *) + sizeof general);
        break;
    default: return cudaErrorInvalidValue;
    }
    if (param_bytes) *param_bytes = bytes;
    return launch(fn, 1, 1, nullptr, nullptr, params, static_cast<cudaStream_t>(stream));
}

// Enqueues one launch; see launch.h. src/dst are the bound bases; the
// offsets are in the general block, or added here for the compact one.
extern "C" int dmls_cuda_enqueue(const dmls_cuda_launch *L, const dmls_cuda_compact *S, const void *src, void *dst,
                                 void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const char *in = static_cast<const char *>(src);
    char *out = static_cast<char *>(dst);
    switch (L->kernel) {
    case DMLS_CUDA_NOTHING: return cudaSuccess;
    case DMLS_CUDA_MEMSET: {
        cudaError_t e = cudaMemsetAsync(out + L->dst_offset, 0, (size_t)L->count, s);
        if (e != cudaSuccess) (void)cudaGetLastError();
        return e;
    }
    }
    if (L->kernel == DMLS_CUDA_TILE) { // the general block only (prepare.c)
        const void *fn = L->wide ? nullptr : pick_tile(L);
        if (fn == nullptr) return cudaErrorInvalidValue;
        return launch(fn, (unsigned)L->blocks, kThreads, in, out, L, s);
    }
    if (S != nullptr) {
        const void *fn = L->wide ? nullptr : pick32<dmls_cuda_compact>(L);
        if (fn == nullptr) return cudaErrorInvalidValue;
        return launch(fn, (unsigned)L->blocks, kThreads, in + L->src_offset, out + L->dst_offset, S, s);
    }
    const void *fn = L->wide ? pick64(L) : pick32<dmls_cuda_launch>(L);
    if (fn == nullptr) return cudaErrorInvalidValue;
    return launch(fn, (unsigned)L->blocks, kThreads, in, out, L, s);
}
