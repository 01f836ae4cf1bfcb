#version 450
// A transposed copy (a plan with a tile dim, src/copy_plan.h) through
// shared memory, TILES tiles a workgroup at a time, as the CUDA backend's
// tile kernel does it (src/cuda/loops.cuh; TILES = 2 of 256 invocations is
// its block, though 1 of 128 ran faster here: src/vulkan/launch.h): A is the dim the output walks fastest
// (contiguous, the launch's dim 0), B the one the input walks fastest (the
// launch's dim 1). A tile is TILE_A elements of A by TILE_ROW bytes of B
// (launch.h sets both through specialization constants: one home). Shared
// memory holds the tile as the input lays it out, a row per A of TILE_ROW
// bytes plus one word: an odd pitch in words, so that the store phase,
// reading down columns, spreads over the banks.
//   Load phase, along B: WIDE bit 0, a 16-byte vector an invocation (B
//   contiguous and 16-byte aligned, prepare.c checks); else one shared word
//   an invocation, built from the elements it holds (1- and 2-byte elements
//   packed 4 or 2 to a word; 8-byte elements as two words).
//   Store phase, along A: WIDE bit 1, a 16-byte vector an invocation, built
//   down a column from 16 / ESIZE rows; else one output word an invocation
//   (prepare.c gives a tile only where every output row is whole words).
// Positions are bytes; the walk (walk.glsl) gives each tile's first
// element, run and step the launch's extents of A and B (the last tiles
// along each are partial).
#include "walk.glsl"

layout(constant_id = 2) const uint ESIZE = 4u;
layout(constant_id = 4) const uint WIDE = 0u;       // launch.h: DMLS_VK_TILE_LOAD16 | DMLS_VK_TILE_STORE16
layout(constant_id = 5) const uint TILE_A = 64u;    // launch.h: DMLS_VK_TILE_A
layout(constant_id = 6) const uint TILE_ROW = 128u; // launch.h: DMLS_VK_TILE_ROW
layout(constant_id = 7) const uint TILES = 1u;      // context.h: tiles (a device's choice, pipelines.c)

layout(std430, set = 0, binding = 0) restrict readonly buffer Src { uint a[]; } src[SLOTS];
layout(std430, set = 0, binding = 0) restrict readonly buffer Src4 { uvec4 a[]; } src4[SLOTS];
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { uint a[]; } dst[SLOTS];
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst4 { uvec4 a[]; } dst4[SLOTS];

const uint RW = TILE_ROW / 4u;  // words of B a row
const uint PITCH = RW + 1u;
const uint TB = TILE_ROW / ESIZE;
const uint TILE_WORDS = TILE_A * PITCH;
const uint WG = gl_WorkGroupSize.x;
// The TILES tiles in turn: tile j's rows from word j * TILE_WORDS.
shared uint tile[TILES * TILE_WORDS];

// Source word i of the tile's input slot: a switch a load (walk.glsl:
// DMLS_VK_EACH), on the word-wide load path only (the 16-byte one switches
// around its loop).
uint src_word(uint i) {
    uint v;
#define READ(S_) v = src[S_].a[i];
    DMLS_VK_EACH(in_slot, READ)
    return v;
}

// Shared word w of the row at source byte r (the elements of B it holds,
// below eb).
uint load_word(uint r, uint w, uint eb, uint sb) {
    if (ESIZE >= 4u) {
        const uint b = w * 4u / ESIZE, h = w * 4u % ESIZE;
        return src_word((r + b * sb + h) >> 2);
    }
    const uint k = 4u / ESIZE, mask = (1u << (8u * ESIZE)) - 1u;
    uint v = 0u;
    [[unroll]] for (uint j = 0u; j < k; j++) {
        const uint b = w * k + j, at = r + b * sb;
        if (b < eb) v |= ((src_word(at >> 2) >> ((at & 3u) * 8u)) & mask) << (j * 8u * ESIZE);
    }
    return v;
}

// The output word at byte o along A of column b of the tile at shared word
// base: one element's word, or 4 / ESIZE elements from as many rows, packed.
uint out_word(uint base, uint o, uint b) {
    if (ESIZE >= 4u) return tile[base + (o / ESIZE) * PITCH + (b * ESIZE + o % ESIZE) / 4u];
    const uint k = 4u / ESIZE, mask = (1u << (8u * ESIZE)) - 1u, shift = (b * ESIZE % 4u) * 8u;
    uint v = 0u;
    [[unroll]] for (uint j = 0u; j < k; j++)
        v |= ((tile[base + (o / ESIZE + j) * PITCH + b * ESIZE / 4u] >> shift) & mask) << (j * 8u * ESIZE);
    return v;
}

// The loops below run a fixed count an invocation (the work over WG, both
// constants at pipeline creation), as CUDA's unrolled ones do, so that a
// compiler can issue every load of an invocation before its first store.
void load_tile(uint base, uint s, uint ea, uint eb, uint sa, uint sb) {
    const uint me = gl_LocalInvocationID.x;
    if ((WIDE & 1u) != 0u) {
        // 8 invocations a 128-byte row: the 32 of a subgroup meet 32 banks.
        const uint N = TILE_A * RW / 4u;
#define LOAD16(S_)                                                                             \
        for (uint k = 0u; k < (N + WG - 1u) / WG; k++) {                                       \
            const uint i = me + k * WG, a = i / (RW / 4u), c = i % (RW / 4u);                  \
            if (a < ea && c * 16u < eb * ESIZE) {                                              \
                const uvec4 x = src4[S_].a[(s + a * sa) / 16u + c];                            \
                const uint at = base + a * PITCH + c * 4u;                                     \
                tile[at] = x.x, tile[at + 1u] = x.y, tile[at + 2u] = x.z, tile[at + 3u] = x.w; \
            }                                                                                  \
        }
        DMLS_VK_EACH(in_slot, LOAD16)
        return;
    }
    const uint N = TILE_A * RW;
    for (uint k = 0u; k < (N + WG - 1u) / WG; k++) {
        const uint i = me + k * WG, a = i / RW, w = i % RW;
        if (a < ea && w * 4u < eb * ESIZE) tile[base + a * PITCH + w] = load_word(s + a * sa, w, eb, sb);
    }
}

// The 16-byte store: each group of 32 invocations is G vectors along A by
// Q columns, laid out so that each shared read of the 32 meets 32 banks
// (or one word): for ESIZE <= 4 neighbouring columns, for 8 columns TB / Q
// apart (the CUDA kernel's layout). A tile not run has ea = eb = 0. o: the
// tile's output slot among the bindings (walk.glsl: DMLS_VK_EACH).
void store_tile(uint base, uint o, uint d, uint ea, uint eb, uint db) {
    const uint me = gl_LocalInvocationID.x;
    if ((WIDE & 2u) != 0u && ESIZE < 4u) {
        // 1- and 2-byte elements: a shared word holds K = 4 / ESIZE columns,
        // so an invocation reads the V words of its rows once and builds the
        // K columns' vectors from them (one read per K elements, where a
        // vector a column reads each word for one). A group of 32 is AV
        // vectors along A by WC word columns: word (a0 + r) * PITCH + wc
        // meets bank a0 + r + wc (PITCH = 1 mod 32), AV * V = 32 apart.
        const uint V = 16u / ESIZE, K = 4u / ESIZE, AV = 32u / V, WC = 32u / AV;
        const uint SAV = TILE_A / V / AV; // groups of AV vectors along A
        const uint N = TILE_A / V * RW, mask = (1u << (8u * ESIZE)) - 1u;
#define STORE16W(S_)                                                                           \
        for (uint k = 0u; k < (N + WG - 1u) / WG; k++) {                                       \
            const uint i = me + k * WG, l = i % 32u, n = i / 32u;                              \
            const uint a0 = ((n % SAV) * AV + l % AV) * V, wc = (n / SAV) * WC + l / AV;       \
            if (i < N && a0 < ea && wc * K < eb) {                                             \
                uint w[16];                                                                    \
                [[unroll]] for (uint r = 0u; r < V; r++) w[r] = tile[base + (a0 + r) * PITCH + wc]; \
                [[unroll]] for (uint j = 0u; j < K; j++) {                                     \
                    const uint b = wc * K + j, shift = j * 8u * ESIZE;                         \
                    uint v[4];                                                                 \
                    [[unroll]] for (uint m = 0u; m < 4u; m++) {                                \
                        v[m] = 0u;                                                             \
                        [[unroll]] for (uint t = 0u; t < K; t++)                               \
                            v[m] |= ((w[m * K + t] >> shift) & mask) << (t * 8u * ESIZE);      \
                    }                                                                          \
                    if (b < eb) dst4[S_].a[(d + b * db) / 16u + a0 * ESIZE / 16u] = uvec4(v[0], v[1], v[2], v[3]); \
                }                                                                              \
            }                                                                                  \
        }
        DMLS_VK_EACH(o, STORE16W)
        return;
    }
    if ((WIDE & 2u) != 0u) {
        const uint V = 16u / ESIZE, G = ESIZE >= 4u ? 8u : 2u * ESIZE, Q = 32u / G;
        const uint SA = TILE_A * ESIZE / 16u / G; // groups of G vectors along A
        const uint N = TILE_A * TILE_ROW / 16u;
#define STORE16(S_)                                                                            \
        for (uint k = 0u; k < (N + WG - 1u) / WG; k++) {                                       \
            const uint i = me + k * WG;                                                        \
            const uint l = i % 32u, n = i / 32u, g = l % G, q = l / G, na = n % SA, nb = n / SA; \
            const uint b = ESIZE >= 8u ? q * (TB / Q) + nb : nb * Q + q, a0 = (na * G + g) * V; \
            if (i < N && a0 < ea && b < eb) {                                                  \
                const uint at = a0 * ESIZE;                                                    \
                dst4[S_].a[(d + b * db) / 16u + at / 16u] =                                    \
                    uvec4(out_word(base, at, b), out_word(base, at + 4u, b), out_word(base, at + 8u, b), \
                          out_word(base, at + 12u, b));                                        \
            }                                                                                  \
        }
        DMLS_VK_EACH(o, STORE16)
        return;
    }
    const uint WA = TILE_A * ESIZE / 4u; // output words of A a column
    const uint N = TB * WA;
#define STORE4(S_)                                                                             \
    for (uint k = 0u; k < (N + WG - 1u) / WG; k++) {                                           \
        const uint i = me + k * WG, w = i % WA, b = i / WA;                                    \
        if (b < eb && w * 4u < ea * ESIZE) dst[S_].a[((d + b * db) >> 2) + w] = out_word(base, w * 4u, b); \
    }
    DMLS_VK_EACH(o, STORE4)
}

// Tile t of the walk p: its first element's positions, its extents along
// A and B (the last tiles along each are partial) and its in-tile strides.
void locate(uint t, out uint s, out uint d, out uint ea, out uint eb, out uint sa, out uint sb, out uint db) {
    const uint na = p.run, nb = p.step;
    const uint tiles_a = (na + TILE_A - 1u) / TILE_A, tiles_b = (nb + TB - 1u) / TB;
    // The in-tile byte strides from the walk's steps (level 0 steps by
    // TILE_A elements of A, level 1 by TB of B less a row of A tiles);
    // prepare.c keeps TILE_A * |sa|, TB * |sb| and TB * db below 2^25, so
    // they divide exactly as signed 32-bit values.
    sa = uint(int(p.src_step[0]) / int(TILE_A));
    sb = uint(int(p.src_step[1] + tiles_a * p.src_step[0]) / int(TB));
    db = uint(int(p.dst_step[1] + tiles_a * p.dst_step[0]) / int(TB));
    walk(t, s, d);
    const uint ia = t % tiles_a, ib = (t / tiles_a) % tiles_b;
    ea = min(TILE_A, na - ia * TILE_A), eb = min(TB, nb - ib * TB);
}

// TILES tiles a workgroup, [t0, t0 + TILES), looping over the grid (capped
// at maxComputeWorkGroupCount): every tile's loads, then every tile's
// stores, so that an invocation has TILES tiles' loads in flight. A
// batch's tiles (walk.glsl, BATCH) are its entries' tiles in turn, each
// entry a tiled item's launch, so each tile keeps what its stores need (p
// is its entry's only while it is located). t0 is the same for the whole
// workgroup, so every invocation reaches the barriers.
void main() {
#ifdef BATCH
    const uint n = b.tiles;
#else
    const uint n = p.count;
#endif
    for (uint t0 = gl_WorkGroupID.x * TILES; t0 < n; t0 += gl_NumWorkGroups.x * TILES) {
        uint o[TILES], d[TILES], ea[TILES], eb[TILES], db[TILES];
        for (uint j = 0u; j < TILES; j++) {
            o[j] = 0u, d[j] = 0u, ea[j] = 0u, eb[j] = 0u, db[j] = 0u;
            if (t0 + j >= n) continue;
#ifdef BATCH
            const uint t = batch_tile(t0 + j);
#else
            const uint t = t0 + j;
#endif
            uint s, sa, sb;
            locate(t, s, d[j], ea[j], eb[j], sa, sb, db[j]);
            load_tile(j * TILE_WORDS, s, ea[j], eb[j], sa, sb);
            o[j] = out_slot; // this tile's entry's, for its stores
        }
        barrier();
        for (uint j = 0u; j < TILES; j++) store_tile(j * TILE_WORDS, o[j], d[j], ea[j], eb[j], db[j]);
        barrier(); // the next tiles reuse the shared array
    }
}
