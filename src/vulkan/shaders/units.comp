#version 450
// One unit (UNIT_T: uint, uvec2 or uvec4, 4/8/16 bytes) per item, any
// strides that are whole units: 4- and 8-byte elements, and contiguous
// runs widened to 4, 8 or 16 bytes (src/vulkan/prepare.c). Each item writes
// one whole unit, so no two invocations write one word.
#include "walk.glsl"

layout(std430, set = 0, binding = 0) restrict readonly buffer Src { UNIT_T a[]; } src[SLOTS];
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { UNIT_T a[]; } dst[SLOTS];

void run_tile(uint base) {
    const uint wg = gl_WorkGroupSize.x;
    const bool fill = (p.info & DMLS_VK_WALK_FILL) != 0u;
    UNIT_T v[ITEMS];
    uint from[ITEMS], at[ITEMS];
    [[unroll]] for (uint j = 0u; j < ITEMS; j++) {
        const uint i = base + j * wg + gl_LocalInvocationID.x;
        from[j] = 0u, at[j] = 0u;
        if (i < p.count) walk(i, from[j], at[j]);
        v[j] = UNIT_T(0u);
    }
    // Binding S_ of each side (walk.glsl: DMLS_VK_EACH), a whole loop each.
#define LOADS(S_)                                                                              \
    [[unroll]] for (uint j = 0u; j < ITEMS; j++)                                               \
        if (base + j * wg + gl_LocalInvocationID.x < p.count) v[j] = src[S_].a[from[j]];
#define STORES(S_)                                                                             \
    [[unroll]] for (uint j = 0u; j < ITEMS; j++)                                               \
        if (base + j * wg + gl_LocalInvocationID.x < p.count) dst[S_].a[at[j]] = v[j];
    if (!fill) DMLS_VK_EACH(in_slot, LOADS)
    DMLS_VK_EACH(out_slot, STORES)
}

DMLS_VK_MAIN(run_tile)
