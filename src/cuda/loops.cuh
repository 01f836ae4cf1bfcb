// The loops of the CUDA kernels, written once: kernels.cu runs each as a
// kernel of its own (a unit of one block), batch_kernels.cu as a body of
// its batch kernel (a unit of one block, or of one warp). A unit of Threads
// threads walks a launch's indices from its span, every load of a tile
// first, then every store, so kIlp loads are in flight per thread. P is
// the launch's parameter block: dmls_cuda_launch, or dmls_cuda_compact for
// kernels.cu's compact launches. Included after device_common.cuh, inside
// each file's anonymous namespace.
#ifndef DMLS_CUDA_LOOPS_CUH
#define DMLS_CUDA_LOOPS_CUH

// Where a unit of Threads threads runs a launch from: its loop's first
// index and the step between trips.
struct span {
    uint32_t lane;
    uint64_t local, blocks; // this block's place among the launch's blocks (a warp: 0 of 1)
};

// COPY and FILL: one Bytes-wide unit per index, any strides.
template <int Threads, int Bytes, typename I, bool Fill, typename P>
__device__ __forceinline__ void copy_loop(const P &L, const char *__restrict__ src, char *__restrict__ dst, span w) {
    typedef typename unit_type<Bytes>::type T;
    constexpr int Tile = Threads * kIlp;
    const I count = (I)L.count;
    for (I base = (I)w.local * Tile; base < count; base += (I)w.blocks * Tile) {
        T v[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            I i = base + (I)(j * Threads) + w.lane;
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
            I i = base + (I)(j * Threads) + w.lane;
            if (i < count) *reinterpret_cast<T *>(dst + at[j]) = v[j];
        }
    }
}

// GATHER: V contiguous output bytes per index from V/E loads of E bytes at
// the launch's fixed pattern; one wide store keeps the writes full-width.
template <int Threads, int E, int V, typename P>
__device__ __forceinline__ void gather_loop(const P &L, const char *__restrict__ src, char *__restrict__ dst, span w) {
    typedef typename unit_type<E>::type T;
    constexpr int K = V / E, Tile = Threads * kIlp;
    const uint32_t count = (uint32_t)L.count;
    for (uint32_t base = (uint32_t)w.local * Tile; base < count; base += (uint32_t)w.blocks * Tile) {
        pack<E, V> p[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * Threads + w.lane;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
#pragma unroll
                for (int k = 0; k < K; k++) p[j].e[k] = __ldg(reinterpret_cast<const T *>(src + s + L.pattern[k]));
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * Threads + w.lane;
            if (i < count) *reinterpret_cast<typename unit_type<V>::type *>(dst + at[j]) = p[j].v;
        }
    }
}

// REVERSE: one V-byte load of a reversed run, elements swapped in registers.
template <int Threads, int E, int V, typename P>
__device__ __forceinline__ void reverse_loop(const P &L, const char *__restrict__ src, char *__restrict__ dst, span w) {
    constexpr int K = V / E, Tile = Threads * kIlp;
    const uint32_t count = (uint32_t)L.count;
    for (uint32_t base = (uint32_t)w.local * Tile; base < count; base += (uint32_t)w.blocks * Tile) {
        pack<E, V> in[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * Threads + w.lane;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
                in[j].v = __ldg(reinterpret_cast<const typename unit_type<V>::type *>(src + s));
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            uint32_t i = base + j * Threads + w.lane;
            if (i < count) {
                pack<E, V> out;
#pragma unroll
                for (int k = 0; k < K; k++) out.e[k] = in[j].e[K - 1 - k];
                *reinterpret_cast<typename unit_type<V>::type *>(dst + at[j]) = out.v;
            }
        }
    }
}

#endif
