/* What a Vulkan device of the device interface (dmlslice/device.h) keeps:
 * shared by its buffers and transfers (device.c) and its copy and timing
 * (device_time.c). */
#ifndef DMLS_VULKAN_DEVICE_STATE_H
#define DMLS_VULKAN_DEVICE_STATE_H

#include "../device/device_ops.h"
#include "context.h"

typedef struct vk_buffer {
    dmls_device_buffer head;
    VkBuffer buffer;
    VkDeviceMemory memory;
    unsigned char *map; /* where the buffer's memory is mapped (vk_device.mapped); else NULL */
} vk_buffer;

typedef struct vk_device {
    dmls_vulkan_context *ctx;
    /* Buffers live in device-local memory. Where that memory is also
     * host-visible, coherent and cached (lavapipe, integrated GPUs) they
     * are mapped and transfers are memcpy; else (a discrete GPU, where host
     * reads of its memory cross the bus uncached) transfers go through
     * `stage`, host memory of at most DMLS_VK_STAGE_BYTES, in chunks. */
    int mapped;
    vk_buffer stage;
    uint64_t stage_bytes, stage_max; /* its size now, and the most it may have */
    /* Timestamps for dmls_device_time: made on first use, grown as needed. */
    VkQueryPool queries;
    uint32_t query_count;
} vk_device;

/* The stage's most, unless DMLSLICE_VK_STAGE_BYTES=N (1 to this) sets it
 * and stages every transfer, mapped memory or not, so that the staged path
 * and its chunks' borders are tested on any driver (tests/device). */
#define DMLS_VK_STAGE_BYTES ((uint64_t)64 << 20)

static inline VkBuffer dmls_vk_buffer_of(const dmls_device_binding *b) {
    return b->buffer != NULL ? ((const vk_buffer *)b->buffer)->buffer : VK_NULL_HANDLE;
}

/* A barrier from every earlier write to every later access: between a
 * submission's work and the last's, and after the last timed run. */
static inline void dmls_vk_device_barrier(VkCommandBuffer cmd) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL,
                         0, NULL);
}

/* Between two timed runs: the first's writes (a shader's or a copy's)
 * before the next's reads and writes, on the device alone, as a CUDA stream
 * orders two kernels. On the H200 the full barrier above cost a run of a
 * few microseconds about 2 us more (bench/RESULTS.md, twelfth session). */
static inline void dmls_vk_runs_barrier(VkCommandBuffer cmd) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                           VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* device_time.c's entries of the device table. */
dmls_status dmls_vk_device_time(dmls_device *dev, const dmls_device_work *w, uint32_t warm, uint32_t samples,
                                uint32_t per_sample, double *seconds);
void dmls_vk_device_time_release(vk_device *d);

#endif
