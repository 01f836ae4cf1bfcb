// The push constants of bytes.comp (src/vulkan/launch.h, dmls_vk_params,
// must match it field for field). Dims are innermost first.
// All arithmetic is 32-bit: execute splits work so that every position
// lies inside one binding, which is at most 4 GiB - 1 bytes
// (maxStorageBufferRange), so positions, counts and strides fit a uint;
// negative strides are two's complement and wrap back into range.
#define DMLS_VK_MAX_DIMS 8
#define DMLS_VK_FILL 1u // write zeros; the source binding is not read

layout(push_constant, std430) uniform Params {
    uint count;    // output words
    uint ndim;     // 1..DMLS_VK_MAX_DIMS
    uint flags;    // DMLS_VK_FILL
    uint esize;    // bytes per element (bytes.comp)
    uint src_base; // first element's position in the source binding (units or bytes)
    uint dst_base; // the same in the destination binding
    uint shape[DMLS_VK_MAX_DIMS];
    uint src_stride[DMLS_VK_MAX_DIMS]; // units or bytes per coordinate step
    uint dst_stride[DMLS_VK_MAX_DIMS];
} p;

// The workgroup size, chosen at pipeline creation (src/vulkan/pipelines.c).
layout(local_size_x_id = 0) in;
