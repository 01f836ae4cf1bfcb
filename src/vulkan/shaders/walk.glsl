// What the walking shaders (units.comp, reverse.comp, gather.comp) share:
// their push constants (src/vulkan/launch.h, dmls_vk_walk, must match them
// field for field), their tuning and the walk from an item's index to its
// positions. All arithmetic is 32-bit: execute splits work so that every
// position lies inside one binding (at most 4 GiB - 1 bytes,
// maxStorageBufferRange) and a dispatch has fewer than 2^31 items, where
// the multipliers are exact; negative steps are two's complement and wrap
// back into range.
#extension GL_EXT_control_flow_attributes : require
#define DMLS_VK_MAX_DIMS 8
#define DMLS_VK_WALK_FILL 16u // info: write zeros; the source binding is not read

layout(push_constant, std430) uniform Walk {
    uint count;    // items
    uint info;     // ndim (1..8) | DMLS_VK_WALK_FILL
    uint src_base; // the first item's source position (in the shader's source units)
    uint dst_base; // the same in the destination binding
    uint shifts[2];
    uint magic[DMLS_VK_MAX_DIMS - 1];
    uint src_step[DMLS_VK_MAX_DIMS];
    uint dst_step[DMLS_VK_MAX_DIMS];
    uint run, step, row_step; // gather.comp: the pattern of an item's elements, bytes
} p;

// Chosen at pipeline creation (src/vulkan/pipelines.c): invocations per
// workgroup, and items per invocation, whose loads are all issued before
// their stores so that each invocation keeps that many in flight.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ITEMS = 4u;

// Level k's coordinate-free index q[k] = q[k-1] / shape[k-1] by
// multiply-high (launch.h: dmls_vk_walk), so the positions are the bases
// plus sum(q[k] * step[k]): no division, no shape.
void walk(uint i, out uint s, out uint d) {
    s = p.src_base + i * p.src_step[0];
    d = p.dst_base + i * p.dst_step[0];
    const uint n = p.info & 15u;
    uint q = i;
    [[unroll]] for (uint k = 1u; k < DMLS_VK_MAX_DIMS; k++) {
        if (k >= n) break;
        uint hi, lo;
        umulExtended(q, p.magic[k - 1u], hi, lo);
        q = (hi + q) >> ((p.shifts[(k - 1u) >> 2] >> (((k - 1u) & 3u) * 8u)) & 31u);
        s += q * p.src_step[k];
        d += q * p.dst_step[k];
    }
}
