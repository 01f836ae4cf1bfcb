// Device helpers the CUDA kernels share (kernels.cu, batch_kernels.cu):
// the block tile, the unit types, multiply-high division and the index ->
// byte offsets walk of a launch. Included inside each file's anonymous
// namespace, so nothing here becomes a symbol of its own.
#ifndef DMLS_CUDA_DEVICE_COMMON_CUH
#define DMLS_CUDA_DEVICE_COMMON_CUH

constexpr int kThreads = DMLS_CUDA_THREADS;
constexpr int kIlp = DMLS_CUDA_ILP; // indices per thread per block tile (launch.h)
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

// The same for the compact block: 32-bit index, shapes, multipliers and
// strides; the offsets are already in the bases.
__device__ __forceinline__ void locate(const dmls_cuda_compact &L, uint32_t i, int64_t &src, int64_t &dst) {
    src = 0;
    dst = 0;
#pragma unroll
    for (int d = 0; d < DMLS_CUDA_COMPACT_DIMS; d++) {
        if (d == (int)L.ndim - 1) {
            src += (int64_t)i * L.src_stride[d];
            dst += (int64_t)i * L.dst_stride[d];
            break;
        }
        uint32_t q = (__umulhi(i, L.magic[d]) + i) >> L.shift[d];
        uint32_t c = i - q * L.shape[d];
        src += (int64_t)c * L.src_stride[d];
        dst += (int64_t)c * L.dst_stride[d];
        i = q;
    }
}

template <int E, int V> union pack {
    typename unit_type<E>::type e[V / E];
    typename unit_type<V>::type v;
};

#endif
