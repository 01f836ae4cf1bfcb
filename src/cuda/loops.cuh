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

// TILE: a transposed copy (launch.h: DMLS_CUDA_TILE), one tile per index,
// run by a whole block (kThreads threads; the batch never gives a tile to
// a warp). Shared memory holds kTileA rows of A, each kTileRow bytes of B
// plus one word: a row pitch of an odd number of words, so the store
// phase, whose lanes read down columns, spreads over the banks (below).
constexpr int kTileA = DMLS_CUDA_TILE_A, kTileRow = DMLS_CUDA_TILE_ROW, kTilePitch = kTileRow + 4;
constexpr int kTileBytes = kTileA * kTilePitch;
static_assert(kThreads == 256 && kTileA * kTileRow / 16 == kThreads * 4, "a tile is 4 vectors of 16 bytes a thread");

// One element in shared memory, at a 4-byte aligned address at best:
// elements of 8 and 16 bytes move as words.
template <int E> struct tile_elem {
    typedef typename unit_type<E>::type T;
    union u {
        T v;
        uint32_t w[E / 4 > 0 ? E / 4 : 1];
    };
    static __device__ __forceinline__ T get(const char *p) {
        if (E < 4) return *reinterpret_cast<const T *>(p);
        u x;
#pragma unroll
        for (int k = 0; k < E / 4; k++) x.w[k] = reinterpret_cast<const uint32_t *>(p)[k];
        return x.v;
    }
    static __device__ __forceinline__ void put(char *p, T v) {
        if (E < 4) {
            *reinterpret_cast<T *>(p) = v;
            return;
        }
        u x;
        x.v = v;
#pragma unroll
        for (int k = 0; k < E / 4; k++) reinterpret_cast<uint32_t *>(p)[k] = x.w[k];
    }
};

// Load phase: the tile's rows (A) from the input, along B. VL == 16: a
// lane per 16-byte vector, 8 lanes a row (128 bytes), the vector's words
// written to 4 banks that the other rows' lanes shift by one (pitch 33
// words). VL == E: an element a lane, B strided or unaligned.
template <int E, int VL>
__device__ __forceinline__ void tile_load(const char *__restrict__ src, char *sm, int ea, int eb, int64_t sa,
                                          int64_t sb, uint32_t lane) {
    if (VL == 16) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int v = (int)lane + k * kThreads, a = v / 8, c = v % 8;
            if (a < ea && c * 16 < eb * E) {
                const uint4 x = __ldg(reinterpret_cast<const uint4 *>(src + a * sa + c * 16));
                uint32_t *w = reinterpret_cast<uint32_t *>(sm + a * kTilePitch + c * 16);
                w[0] = x.x, w[1] = x.y, w[2] = x.z, w[3] = x.w;
            }
        }
    } else {
        constexpr int TB = kTileRow / E;
        for (int k = 0; k < 64 / E; k++) {
            const int i = (int)lane + k * kThreads, a = i / TB, b = i % TB;
            if (a < ea && b < eb)
                tile_elem<E>::put(sm + a * kTilePitch + b * E,
                                  __ldg(reinterpret_cast<const typename unit_type<E>::type *>(src + a * sa + b * sb)));
        }
    }
}

// Store phase: the tile's columns (B) to the output, along A. VS == 16: a
// lane builds one 16-byte vector of V = 16 / E elements down a column. A
// warp's lanes are G vectors along A by Q columns, laid out so that each
// read instruction's 32 lanes meet 32 banks (or the same word): for E <= 4
// neighbouring columns, for E >= 8 columns TB / Q apart. VS == E: an element a lane.
template <int E, int VS>
__device__ __forceinline__ void tile_store(char *__restrict__ dst, const char *sm, int ea, int eb, int64_t db,
                                           uint32_t lane) {
    if (VS == 16) {
        constexpr int TB = kTileRow / E;
        constexpr int V = 16 / E, G = E >= 4 ? 8 : 2 * E, Q = 32 / G, R = 8 * E, SA = R / G;
        const int l = (int)(lane % 32), g = l % G, q = l / G, warp = (int)(lane / 32);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int s = warp + 8 * j, sa = s % SA, sb = s / SA;
            const int b = E >= 8 ? q * (TB / Q) + sb : sb * Q + q, a0 = (sa * G + g) * V;
            if (a0 < ea && b < eb) {
                pack<E, 16> p;
#pragma unroll
                for (int k = 0; k < V; k++) p.e[k] = tile_elem<E>::get(sm + (a0 + k) * kTilePitch + b * E);
                *reinterpret_cast<uint4 *>(dst + b * db + a0 * E) = p.v;
            }
        }
    } else {
        for (int k = 0; k < 64 / E; k++) {
            const int i = (int)lane + k * kThreads, b = i / kTileA, a = i % kTileA;
            if (a < ea && b < eb)
                *reinterpret_cast<typename unit_type<E>::type *>(dst + b * db + a * E) =
                    tile_elem<E>::get(sm + a * kTilePitch + b * E);
        }
    }
}

// The tiles of a launch from a block's span: each tile's origin from the
// tile grid (locate), its place along A and B for the partial last tiles.
template <int E, int VL, int VS>
__device__ __forceinline__ void tile_copy(const dmls_cuda_launch &L, const char *__restrict__ src,
                                          char *__restrict__ dst, span w, char *sm) {
    const uint32_t count = (uint32_t)L.count;
    const int na = L.pattern[DMLS_CUDA_TILE_NA], nb = L.pattern[DMLS_CUDA_TILE_NB];
    const int64_t sa = L.pattern[DMLS_CUDA_TILE_SA], sb = L.pattern[DMLS_CUDA_TILE_SB];
    const int64_t db = L.pattern[DMLS_CUDA_TILE_DB];
    for (uint32_t t = (uint32_t)w.local; t < count; t += (uint32_t)w.blocks) {
        int64_t s, d;
        locate(L, t, s, d);
        const uint32_t q0 = quotient(t, L.magic[0], L.shift[0]);
        const int ia = (int)(t - q0 * (uint32_t)L.shape[0]);
        const int ib = (int)(q0 - quotient(q0, L.magic[1], L.shift[1]) * (uint32_t)L.shape[1]);
        const int ea = min(kTileA, na - ia * kTileA), eb = min(kTileRow / E, nb - ib * (kTileRow / E));
        tile_load<E, VL>(src + s, sm, ea, eb, sa, sb, w.lane);
        __syncthreads();
        tile_store<E, VS>(dst + d, sm, ea, eb, db, w.lane);
        __syncthreads(); // the next tile reuses the buffer
    }
}

#endif
