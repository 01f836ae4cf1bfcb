#version 450
// The yardstick of issue 25, apart from the library: a plain copy of n
// 16-byte vectors, one per invocation, no walk and no grid loop, so that
// vk_probe.c can tell the library's own copy from what the device does.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Params { uint n; } p;
layout(std430, set = 0, binding = 0) restrict readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { uvec4 dst[]; };

void main() {
    const uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (i < p.n) dst[i] = src[i];
}
