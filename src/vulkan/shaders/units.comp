#version 450
// One unit (UNIT_T: uint, uvec2 or uvec4, 4/8/16 bytes) per invocation item,
// any strides that are whole units: 4- and 8-byte elements, and contiguous
// runs widened to 8 or 16 bytes (src/vulkan/prepare.c). Each item writes one
// whole unit, so no two invocations write one word.
#include "params.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Src { UNIT_T src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { UNIT_T dst[]; };

void main() {
    // A grid-stride loop: the dispatch is capped at maxComputeWorkGroupCount.
    const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint last = p.ndim - 1u;
    for (uint i = gl_GlobalInvocationID.x; i < p.count; i += step) {
        uint rest = i, s = p.src_base, d = p.dst_base;
        for (uint k = 0u; k < last; k++) {
            const uint q = rest / p.shape[k];
            const uint c = rest - q * p.shape[k];
            s += c * p.src_stride[k];
            d += c * p.dst_stride[k];
            rest = q;
        }
        s += rest * p.src_stride[last];
        d += rest * p.dst_stride[last];
        dst[d] = (p.flags & DMLS_VK_FILL) != 0u ? UNIT_T(0u) : src[s];
    }
}
