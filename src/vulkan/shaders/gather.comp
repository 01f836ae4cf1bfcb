#version 450
// A contiguous output row from a strided input: each item writes one
// OUT_T (uvec4: 16 bytes, or uint: one word) built from the K = bytes /
// ESIZE elements at a pattern fixed per launch (j / run rows and j % run
// steps from the item's source position, src/vulkan/prepare.c). Elements
// of 1 and 2 bytes are read as the 32-bit word holding them and extracted,
// so no 8- or 16-bit storage is needed, and each item owns whole output
// words. Source positions are in bytes, aligned to the element.
#include "walk.glsl"

layout(constant_id = 2) const uint ESIZE = 4u;
// Variants (src/vulkan/launch.h, DMLS_VK_VARIANT_*; 0 by default, the
// probe compares them). Bit 0: elements of 1 and 2 bytes load a word only
// where it differs from the previous element's, which then shares it
// (3-channel bytes: ~7 loads for 16 elements rather than 16).
layout(constant_id = 3) const uint VARIANT = 0u;

layout(std430, set = 0, binding = 0) restrict readonly buffer Src { uint a[]; } src[SLOTS];
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { OUT_T a[]; } dst[SLOTS];

const uint K = WORDS * 4u / ESIZE;

const uint H = (ESIZE + 3u) / 4u; // words an element

// All K loads are issued before any is used, at positions found without
// a branch (the pattern's row wrap is a select), so that their latencies
// overlap rather than add up: the words first, then the loads, in one loop
// per binding of the source (walk.glsl: DMLS_VK_EACH).
OUT_T item(uint s) {
    uint raw[K * H];
    uint word[K], shift[K];
    bool fresh[K]; // the variant: false where the word is the previous element's
    uint at = s, col = 0u;
    [[unroll]] for (uint j = 0u; j < K; j++) {
        word[j] = at >> 2, shift[j] = (at & 3u) * 8u;
        fresh[j] = ESIZE >= 4u || (VARIANT & 1u) == 0u || j == 0u || word[j] != word[j > 0u ? j - 1u : 0u];
        col++;
        const bool wrap = col == p.run;
        at += p.step + (wrap ? p.row_step : 0u);
        col = wrap ? 0u : col;
    }
#define LOADS(S_)                                                                              \
    [[unroll]] for (uint j = 0u; j < K; j++) {                                                 \
        if (fresh[j]) {                                                                        \
            [[unroll]] for (uint h = 0u; h < H; h++) raw[j * H + h] = src[S_].a[word[j] + h];  \
        } else {                                                                               \
            raw[j] = raw[j > 0u ? j - 1u : 0u];                                                \
        }                                                                                      \
    }
    DMLS_VK_EACH(in_slot, LOADS)
    uint w[WORDS];
    [[unroll]] for (uint m = 0u; m < WORDS; m++) w[m] = 0u;
    [[unroll]] for (uint j = 0u; j < K; j++) {
        if (ESIZE >= 4u) {
            [[unroll]] for (uint h = 0u; h < ESIZE / 4u; h++) w[j * (ESIZE / 4u) + h] = raw[j * (ESIZE / 4u) + h];
        } else {
            const uint e = (raw[j] >> shift[j]) & ((1u << (8u * ESIZE)) - 1u);
            w[(j * ESIZE) >> 2] |= e << (((j * ESIZE) & 3u) * 8u);
        }
    }
#if WORDS == 4
    return uvec4(w[0], w[1], w[2], w[3]);
#else
    return w[0];
#endif
}

void run_tile(uint base) {
    const uint wg = gl_WorkGroupSize.x;
    OUT_T v[ITEMS];
    uint at[ITEMS];
    [[unroll]] for (uint j = 0u; j < ITEMS; j++) {
        const uint i = base + j * wg + gl_LocalInvocationID.x;
        uint s = 0u;
        at[j] = 0u;
        v[j] = OUT_T(0u);
        if (i < p.count) {
            walk(i, s, at[j]);
            v[j] = item(s);
        }
    }
#define STORES(S_)                                                                             \
    [[unroll]] for (uint j = 0u; j < ITEMS; j++)                                               \
        if (base + j * wg + gl_LocalInvocationID.x < p.count) dst[S_].a[at[j]] = v[j];
    DMLS_VK_EACH(out_slot, STORES)
}

DMLS_VK_MAIN(run_tile)
