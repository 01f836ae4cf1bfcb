#version 450
// A reversed run: each item loads 16 bytes whose lowest element is the
// item's last and stores them with the ESIZE-byte elements in reverse
// order (src/vulkan/prepare.c), one 16-byte access on each side.
#include "walk.glsl"

layout(constant_id = 2) const uint ESIZE = 4u;

layout(std430, set = 0, binding = 0) restrict readonly buffer Src { uvec4 a[]; } src[SLOTS];
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { uvec4 a[]; } dst[SLOTS];

uint swap_halves(uint x) { return (x >> 16) | (x << 16); }
uint swap_bytes(uint x) { return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24); }

uvec4 reversed(uvec4 v) {
    if (ESIZE == 8u) return uvec4(v.zw, v.xy);
    if (ESIZE == 4u) return v.wzyx;
    if (ESIZE == 2u) return uvec4(swap_halves(v.w), swap_halves(v.z), swap_halves(v.y), swap_halves(v.x));
    return uvec4(swap_bytes(v.w), swap_bytes(v.z), swap_bytes(v.y), swap_bytes(v.x));
}

void run_tile(uint base) {
    const uint wg = gl_WorkGroupSize.x;
    uvec4 v[ITEMS];
    uint from[ITEMS], at[ITEMS];
    [[unroll]] for (uint j = 0u; j < ITEMS; j++) {
        const uint i = base + j * wg + gl_LocalInvocationID.x;
        from[j] = 0u, at[j] = 0u;
        v[j] = uvec4(0u);
        if (i < p.count) walk(i, from[j], at[j]);
    }
    // Binding S_ of each side (walk.glsl: DMLS_VK_EACH), a whole loop each.
#define LOADS(S_)                                                                              \
    [[unroll]] for (uint j = 0u; j < ITEMS; j++)                                               \
        if (base + j * wg + gl_LocalInvocationID.x < p.count) v[j] = src[S_].a[from[j]];
#define STORES(S_)                                                                             \
    [[unroll]] for (uint j = 0u; j < ITEMS; j++)                                               \
        if (base + j * wg + gl_LocalInvocationID.x < p.count) dst[S_].a[at[j]] = reversed(v[j]);
    DMLS_VK_EACH(in_slot, LOADS)
    DMLS_VK_EACH(out_slot, STORES)
}

DMLS_VK_MAIN(run_tile)
