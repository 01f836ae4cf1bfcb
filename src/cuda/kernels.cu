// The CUDA kernels and their one launcher. Every kernel reads its launch
// (src/cuda/launch.h, built by prepare.c) straight from parameter space
// (__grid_constant__), so nothing is copied to the device per call.
//
// Index arithmetic: a flat index is peeled into coordinates from the inside
// out with multiply-high division (magic numbers from prepare.c), never an
// integer divide. I is uint32_t below 2^31 indices, uint64_t above.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "launch.h"
}

namespace {

constexpr int kThreads = 256;
constexpr int kIlp = 4; // indices per thread per block tile: keeps several loads in flight
constexpr int kTile = kThreads * kIlp;

template <int Bytes> struct unit_type;
template <> struct unit_type<1> { typedef uint8_t type; };
template <> struct unit_type<2> { typedef uint16_t type; };
template <> struct unit_type<4> { typedef uint32_t type; };
template <> struct unit_type<8> { typedef uint2 type; };
template <> struct unit_type<16> { typedef uint4 type; };

__device__ __forceinline__ uint32_t quotient(uint32_t n, uint64_t magic, uint32_t shift) {
    return (__umulhi(n, (uint32_t)magic) + n) >> shift;
}
__device__ __forceinline__ uint64_t quotient(uint64_t n, uint64_t magic, uint32_t shift) {
    return (__umul64hi(n, magic) + n) >> shift;
}

// Byte offsets of index i. The loop is unrolled with constant dims, so the
// launch's arrays stay in parameter space (a run-time index would copy the
// whole struct to local memory).
template <typename I>
__device__ __forceinline__ void locate(const dmls_cuda_launch &L, I i, int64_t &src, int64_t &dst) {
    src = L.src_offset;
    dst = L.dst_offset;
#pragma unroll
    for (int d = 0; d < DMLS_CUDA_MAX_DIMS; d++) {
        if (d == L.ndim - 1) {
            src += (int64_t)i * L.src_stride[d];
            dst += (int64_t)i * L.dst_stride[d];
            break;
        }
        I q = quotient(i, L.magic[d], L.shift[d]);
        I c = i - q * (I)L.shape[d];
        src += (int64_t)c * L.src_stride[d];
        dst += (int64_t)c * L.dst_stride[d];
        i = q;
    }
}

// COPY and FILL: one Bytes-wide unit per index, any strides.
template <int Bytes, typename I, bool Fill>
__global__ void __launch_bounds__(kThreads)
copy_kernel(const char *__restrict__ src, char *__restrict__ dst, const __grid_constant__ dmls_cuda_launch L) {
    typedef typename unit_type<Bytes>::type T;
    const I count = (I)L.count;
    for (I base = (I)blockIdx.x * kTile; base < count; base += (I)gridDim.x * kTile) {
        T v[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            I i = base + (I)(j * kThreads) + threadIdx.x;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
                if (Fill) v[j] = T();
                else v[j] = __ldg(reinterpret_cast<const T *>(src + s));
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            I i = base + (I)(j * kThreads) + threadIdx.x;
            if (i < count) *reinterpret_cast<T *>(dst + at[j]) = v[j];
        }
    }
}

template <int E, int V> union pack {
    typename unit_type<E>::type e[V / E];
    typename unit_type<V>::type v;
};

// GATHER: V contiguous output bytes per index from V/E loads of E bytes at
// the launch's fixed pattern; one wide store keeps the writes full-width.
template <int E, int V>
__global__ void __launch_bounds__(kThreads)
gather_kernel(const char *__restrict__ src, char *__restrict__ dst, const __grid_constant__ dmls_cuda_launch L) {
    typedef typename unit_type<E>::type T;
    constexpr int K = V / E;
    const uint32_t count = (uint32_t)L.count;
    for (uint32_t base = blockIdx.x * kTile; base < count; base += gridDim.x * kTile) {
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

// REVERSE: one V-byte load of a reversed run, elements swapped in registers.
template <int E, int V>
__global__ void __launch_bounds__(kThreads)
reverse_kernel(const char *__restrict__ src, char *__restrict__ dst, const __grid_constant__ dmls_cuda_launch L) {
    constexpr int K = V / E;
    const uint32_t count = (uint32_t)L.count;
    for (uint32_t base = blockIdx.x * kTile; base < count; base += gridDim.x * kTile) {
        pack<E, V> in[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * kThreads + threadIdx.x;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
                in[j].v = __ldg(reinterpret_cast<const typename unit_type<V>::type *>(src + s));
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * kThreads + threadIdx.x;
            if (i < count) {
                pack<E, V> out;
#pragma unroll
                for (int k = 0; k < K; k++) out.e[k] = in[j].e[K - 1 - k];
                *reinterpret_cast<typename unit_type<V>::type *>(dst + at[j]) = out.v;
            }
        }
    }
}

typedef void (*kernel_fn)(const char *, char *, dmls_cuda_launch);

template <int Bytes, bool Fill> kernel_fn pick_copy(bool wide) {
    return wide ? copy_kernel<Bytes, uint64_t, Fill> : copy_kernel<Bytes, uint32_t, Fill>;
}

template <bool Fill> kernel_fn pick_copy_unit(int unit, bool wide) {
    switch (unit) {
    case 1: return pick_copy<1, Fill>(wide);
    case 2: return pick_copy<2, Fill>(wide);
    case 4: return pick_copy<4, Fill>(wide);
    case 8: return pick_copy<8, Fill>(wide);
    case 16: return pick_copy<16, Fill>(wide);
    }
    return nullptr;
}

kernel_fn pick_gather(int e, int v) {
    switch (e * 100 + v) {
    case 108: return gather_kernel<1, 8>;
    case 116: return gather_kernel<1, 16>;
    case 208: return gather_kernel<2, 8>;
    case 216: return gather_kernel<2, 16>;
    case 408: return gather_kernel<4, 8>;
    case 416: return gather_kernel<4, 16>;
    case 816: return gather_kernel<8, 16>;
    }
    return nullptr;
}

kernel_fn pick_reverse(int e, int v) {
    switch (e * 100 + v) {
    case 116: return reverse_kernel<1, 16>;
    case 216: return reverse_kernel<2, 16>;
    case 416: return reverse_kernel<4, 16>;
    case 816: return reverse_kernel<8, 16>;
    }
    return nullptr;
}

// Launch-cost probes for dmlslice bench --device cuda: empty kernels, one
// block of one thread, so that a launch of each shows the floor under an
// execute: no parameters, and the general kernels' parameters (~470 bytes).
// Templates only because nvcc gives a plain kernel's host stub a global
// symbol even in an anonymous namespace (tests/check_symbols.sh).
template <int> __global__ void probe_empty() {}
template <int> __global__ void probe_general(const char *, char *, const __grid_constant__ dmls_cuda_launch) {}

} // namespace

// Launches probe `which` (0: no parameters, 1: the general kernels'
// parameters, zeroed) on stream through cudaLaunchKernel; returns the CUDA
// runtime's error code. *param_bytes (may be NULL) gets the parameter bytes.
extern "C" int dmls_cuda_probe(int which, void *stream, int *param_bytes) {
    static const dmls_cuda_launch zero = {};
    const char *src = nullptr;
    char *dst = nullptr;
    void *args[3] = {&src, &dst, const_cast<dmls_cuda_launch *>(&zero)};
    const void *fn = nullptr;
    int bytes = 0;
    switch (which) {
    case 0: fn = reinterpret_cast<const void *>(probe_empty<0>); break;
    case 1:
        fn = reinterpret_cast<const void *>(probe_general<0>);
        bytes = (int)(2 * sizeof(void *) + sizeof(dmls_cuda_launch));
        break;
    default: return cudaErrorInvalidValue;
    }
    if (param_bytes) *param_bytes = bytes;
    cudaError_t e = cudaLaunchKernel(fn, dim3(1), dim3(1), bytes ? args : nullptr, 0, static_cast<cudaStream_t>(stream));
    if (e != cudaSuccess) (void)cudaGetLastError();
    return e;
}

// Enqueues one launch; returns the CUDA runtime's error code (0 = success).
// src/dst are the bound bases; offsets are in the launch.
extern "C" int dmls_cuda_enqueue(const dmls_cuda_launch *L, const void *src, void *dst, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    kernel_fn fn = nullptr;
    switch (L->kernel) {
    case DMLS_CUDA_NOTHING: return cudaSuccess;
    case DMLS_CUDA_MEMSET:
        return cudaMemsetAsync(static_cast<char *>(dst) + L->dst_offset, 0, (size_t)L->count, s);
    case DMLS_CUDA_COPY: fn = pick_copy_unit<false>(L->unit, L->wide != 0); break;
    case DMLS_CUDA_FILL: fn = pick_copy_unit<true>(L->unit, L->wide != 0); break;
    case DMLS_CUDA_GATHER: fn = pick_gather(L->unit, L->vec); break;
    case DMLS_CUDA_REVERSE: fn = pick_reverse(L->unit, L->vec); break;
    }
    if (fn == nullptr) return cudaErrorInvalidValue;
    fn<<<(unsigned)L->blocks, kThreads, 0, s>>>(static_cast<const char *>(src), static_cast<char *>(dst), *L);
    return cudaGetLastError();
}
