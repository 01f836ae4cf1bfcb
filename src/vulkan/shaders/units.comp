#version 450
// One unit (UNIT_T: uint, uvec2 or uvec4, 4/8/16 bytes) per item, any
// strides that are whole units: 4- and 8-byte elements, and contiguous
// runs widened to 4, 8 or 16 bytes (src/vulkan/prepare.c). Each item writes
// one whole unit, so no two invocations write one word.
#include "walk.glsl"

layout(std430, set = 0, binding = 0) restrict readonly buffer Src { UNIT_T src[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { UNIT_T dst[]; };

void run_tile(uint base) {
    const uint wg = gl_WorkGroupSize.x;
    const bool fill = (p.info & DMLS_VK_WALK_FILL) != 0u;
    UNIT_T v[ITEMS];
    uint at[ITEMS];
    [[unroll]] for (uint j = 0u; j < ITEMS; j++) {
        const uint i = base + j * wg + gl_LocalInvocationID.x;
        uint s = 0u;
        at[j] = 0u;
        if (i < p.count) walk(i, s, at[j]);
        v[j] = UNIT_T(0u);
        if (i < p.count && !fill) v[j] = src[s];
    }
    [[unroll]] for (uint j = 0u; j < ITEMS; j++)
        if (base + j * wg + gl_LocalInvocationID.x < p.count) dst[at[j]] = v[j];
}

DMLS_VK_MAIN(run_tile)
