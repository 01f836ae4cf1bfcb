#version 450
// The yardstick of issue 25, apart from the library: a plain copy of n
// 16-byte vectors, ITEMS per invocation at a workgroup's stride (one, as
// the issue measured it, or more), no walk and no grid loop, so that
// vk_probe.c can tell the library's own copy from what the device does.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ITEMS = 1u;
layout(push_constant) uniform Params { uint n; } p;
layout(std430, set = 0, binding = 0) restrict readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { uvec4 dst[]; };

void main() {
    const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const uint first = group * gl_WorkGroupSize.x * ITEMS + gl_LocalInvocationID.x;
    uvec4 v[ITEMS];
    [[unroll]] for (uint j = 0u; j < ITEMS; j++) {
        const uint i = first + j * gl_WorkGroupSize.x;
        v[j] = i < p.n ? src[i] : uvec4(0u);
    }
    [[unroll]] for (uint j = 0u; j < ITEMS; j++) {
        const uint i = first + j * gl_WorkGroupSize.x;
        if (i < p.n) dst[i] = v[j];
    }
}
