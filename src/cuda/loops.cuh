// The loops of the CUDA kernels, written once: kernels.cu runs each as a
// kernel of its own (a unit of one block), batch_kernels.cu as a body of
// its batch kernel (a unit of one block, or of one warp). A unit of Threads
// threads walks a launch's indices from its span (tile_loop), every load of
// a tile first, then every store, so kIlp loads are in flight per thread. P is
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

// The skeleton every loop shares: a unit of Threads threads walks the
// launch's indices (of type I) from its span, a tile at a time, and Op
// moves one index: op.load(L, src + s, v) fills an Op::value in place,
// op.store(dst + d, v) writes it, every load of a tile issued before any
// store. (A value returned by copy, rather than filled in place, makes
// nvcc build the packs of gather and reverse differently.)
template <int Threads, typename I, typename Op, typename P>
__device__ __forceinline__ void tile_loop(const P &L, const char *__restrict__ src, char *__restrict__ dst, span w,
                                          Op op) {
    constexpr int Tile = Threads * kIlp;
    const I count = (I)L.count;
    for (I base = (I)w.local * Tile; base < count; base += (I)w.blocks * Tile) {
        typename Op::value v[kIlp];
        int64_t at[kIlp];
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            I i = base + (I)(j * Threads) + w.lane;
            if (i < count) {
                int64_t s;
                locate(L, i, s, at[j]);
                op.load(L, src + s, v[j]);
            }
        }
#pragma unroll
        for (int j = 0; j < kIlp; j++) {
            I i = base + (I)(j * Threads) + w.lane;
            if (i < count) op.store(dst + at[j], v[j]);
        }
    }
}

// COPY and FILL: one Bytes-wide unit per index, any strides.
template <int Bytes, bool Fill> struct copy_op {
    typedef typename unit_type<Bytes>::type value;
    template <typename P> __device__ __forceinline__ void load(const P &, const char *s, value &v) const {
        if (Fill)
            v = value();
        else
            v = __ldg(reinterpret_cast<const value *>(s));
    }
    __device__ __forceinline__ void store(char *d, value v) const { *reinterpret_cast<value *>(d) = v; }
};

// GATHER: V contiguous output bytes per index from V/E loads of E bytes at
// the launch's fixed pattern; one wide store keeps the writes full-width.
template <int E, int V> struct gather_op {
    typedef pack<E, V> value;
    template <typename P> __device__ __forceinline__ void load(const P &L, const char *s, value &p) const {
        typedef typename unit_type<E>::type T;
#pragma unroll
        for (int k = 0; k < V / E; k++) p.e[k] = __ldg(reinterpret_cast<const T *>(s + L.pattern[k]));
    }
    __device__ __forceinline__ void store(char *d, const value &p) const {
        *reinterpret_cast<typename unit_type<V>::type *>(d) = p.v;
    }
};

// REVERSE: one V-byte load of a reversed run, elements swapped in registers.
template <int E, int V> struct reverse_op {
    typedef pack<E, V> value;
    template <typename P> __device__ __forceinline__ void load(const P &, const char *s, value &p) const {
        p.v = __ldg(reinterpret_cast<const typename unit_type<V>::type *>(s));
    }
    __device__ __forceinline__ void store(char *d, const value &in) const {
        constexpr int K = V / E;
        value out;
#pragma unroll
        for (int k = 0; k < K; k++) out.e[k] = in.e[K - 1 - k];
        *reinterpret_cast<typename unit_type<V>::type *>(d) = out.v;
    }
};

#endif
