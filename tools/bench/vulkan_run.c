/* The Vulkan bench's device and its runs; see vulkan_run.h. Compiled in
 * builds with the Vulkan backend only (tools/CMakeLists.txt). */
#include "vulkan_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmlslice/batch_vulkan.h"
#include "vulkan_api.h" /* the tool's Vulkan API (vk_api_load) */

bool bench_vulkan_built(void) { return true; }

vk_bench_device vkb;


#define VK(call)                                                                                                       \
    do {                                                                                                               \
        const VkResult r_ = (call);                                                                                    \
        if (r_ != VK_SUCCESS) {                                                                                        \
            fprintf(stderr, "dmlslice bench: %s: %s returned %d\n", what, #call, (int)r_);                             \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

bool bench_vulkan_open(int device, bool quick, bool verbose) {
    const char *what = "--device vulkan";
    vkb.clock = bench_gpu_clock_of(quick, verbose);
    if (dmls_vulkan_context_create(device, 0, &vkb.ctx) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: --device vulkan:%d: %s\n", device, dmls_last_error());
        return false;
    }
    char err[256];
    if (!vk_api_load(vkb.ctx, err)) {
        fprintf(stderr, "dmlslice bench: --device vulkan:%d: %s\n", device, err);
        return false;
    }
    uint32_t family;
    dmls_vulkan_context_handles(vkb.ctx, NULL, &vkb.phys, &vkb.dev, &family, &vkb.queue);
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(vkb.phys, &p);
    vkb.ns_per_tick = p.limits.timestampPeriod;
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = family};
    VK(vkCreateCommandPool(vkb.dev, &pi, NULL, &vkb.pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = vkb.pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VK(vkAllocateCommandBuffers(vkb.dev, &ai, &vkb.cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK(vkCreateFence(vkb.dev, &fi, NULL, &vkb.fence));
    return true;
fail:
    return false;
}

void bench_vulkan_close(void) {
    if (vkb.ctx == NULL) return;
    if (vkb.queries) vkDestroyQueryPool(vkb.dev, vkb.queries, NULL);
    if (vkb.fence) vkDestroyFence(vkb.dev, vkb.fence, NULL);
    if (vkb.pool) vkDestroyCommandPool(vkb.dev, vkb.pool, NULL);
    dmls_vulkan_context_destroy(vkb.ctx);
    memset(&vkb, 0, sizeof vkb);
}


/* See vulkan_run.h. */
bool vkb_make_buffer(uint64_t bytes, VkMemoryPropertyFlags want, vk_buffer *b) {
    const char *what = "buffer";
    memset(b, 0, sizeof *b);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = (bytes + 3) / 4 * 4 + 4,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK(vkCreateBuffer(vkb.dev, &bi, NULL, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vkb.dev, b->buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(vkb.phys, &mp);
    uint32_t type = 0;
    while (type < mp.memoryTypeCount &&
           (!(req.memoryTypeBits & (1u << type)) || (mp.memoryTypes[type].propertyFlags & want) != want))
        type++;
    if (type == mp.memoryTypeCount) {
        fprintf(stderr, "dmlslice bench: no memory type with flags 0x%x\n", (unsigned)want);
        return false;
    }
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    VK(vkAllocateMemory(vkb.dev, &ai, NULL, &b->memory));
    VK(vkBindBufferMemory(vkb.dev, b->buffer, b->memory, 0));
    if (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) VK(vkMapMemory(vkb.dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map));
    return true;
fail:
    return false;
}

void vkb_free_buffer(vk_buffer *b) {
    if (b->map) vkUnmapMemory(vkb.dev, b->memory);
    if (b->buffer) vkDestroyBuffer(vkb.dev, b->buffer, NULL);
    if (b->memory) vkFreeMemory(vkb.dev, b->memory, NULL);
}


static void barrier_all(void) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    vkCmdPipelineBarrier(vkb.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
                         NULL, 0, NULL);
}

/* Between two timed runs: the first run's writes (a shader's or a copy's)
 * before the next run's reads and writes, on the device alone, as a CUDA
 * stream orders two kernels; the host's access waits for barrier_all after
 * the last run. The library's dmls_device_time does the same
 * (src/vulkan/device_state.h), which this program cannot include. */
static void barrier_runs(void) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                           VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(vkb.cmd, stages, stages, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Makes the query pool hold at least n timestamps. */
static bool queries_for(uint32_t n) {
    const char *what = "query pool";
    if (vkb.query_count >= n) return true;
    if (vkb.queries) vkDestroyQueryPool(vkb.dev, vkb.queries, NULL);
    vkb.queries = VK_NULL_HANDLE, vkb.query_count = 0;
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = n};
    VK(vkCreateQueryPool(vkb.dev, &qi, NULL, &vkb.queries));
    vkb.query_count = n;
    return true;
fail:
    return false;
}

/* The crops of w: one dmls_batch_record_vulkan, or each crop's operator
 * recorded by itself at its offsets. */
static bool record_crops(const vk_work *w) {
    const uint64_t crop_bytes = BENCH_CROP_FLOATS * sizeof(float), one_in = dmls_input_bytes(w->crops->one);
    if (!w->loop) {
        const dmls_vulkan_binding in = {w->src, 0, w->src_bytes}, out = {w->dst, 0, w->dst_bytes};
        return dmls_batch_record_vulkan(w->crops->batch, vkb.ctx, vkb.cmd, &in, 1, &out, 1) == DMLS_OK;
    }
    for (int i = 0; i < BENCH_CROPS; i++)
        if (dmls_vulkan_record(w->crops->one, vkb.ctx, vkb.cmd, w->src, w->crops->offsets[i], one_in, w->dst,
                               (uint64_t)i * crop_bytes, crop_bytes) != DMLS_OK)
            return false;
    return true;
}

static bool record_one(const vk_work *w) {
    if ((w->crops != NULL && !record_crops(w)) ||
        (w->batch != NULL &&
         dmls_batch_record_vulkan(w->batch, vkb.ctx, vkb.cmd, w->in, w->n_in, w->out, w->n_out) != DMLS_OK)) {
        fprintf(stderr, "dmlslice bench: %s\n", dmls_last_error());
        return false;
    }
    if (w->record != NULL) w->record(w->arg);
    if (w->copy) {
        VkBufferCopy region = {0, 0, w->src_bytes};
        vkCmdCopyBuffer(vkb.cmd, w->src, w->dst, 1, &region);
    } else if (w->op != NULL &&
               dmls_vulkan_record(w->op, vkb.ctx, vkb.cmd, w->src, 0, w->src_bytes, w->dst, 0, w->dst_bytes) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: %s\n", dmls_last_error());
        return false;
    }
    return true;
}

/* Records `warm` untimed runs of w, then `timed` runs each followed by a
 * barrier and a timestamp (one before the first), in one command buffer;
 * submits, waits; ms[i] the GPU time of timed run i. The barrier after each
 * run keeps the runs apart (the next starts when this one has finished),
 * and the timestamp at the bottom of the pipe is written when everything
 * before it has. */
bool vkb_submit_burst(const vk_work *w, int warm, int timed, double *ms) {
    const char *what = "submit";
    uint64_t *t = NULL;
    if (timed > 0 && (!queries_for((uint32_t)timed + 1) || (t = malloc(sizeof *t * ((size_t)timed + 1))) == NULL))
        return false;
    VK(vkResetCommandBuffer(vkb.cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK(vkBeginCommandBuffer(vkb.cmd, &bi));
    barrier_all(); /* earlier submissions' writes (the upload) before, outside the timed span */
    if (timed > 0) vkCmdResetQueryPool(vkb.cmd, vkb.queries, 0, (uint32_t)timed + 1);
    for (int i = 0; i < warm + timed; i++) {
        if (i == warm) vkCmdWriteTimestamp(vkb.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vkb.queries, 0);
        if (!record_one(w)) {
            vkEndCommandBuffer(vkb.cmd);
            goto fail;
        }
        if (i + 1 < warm + timed) barrier_runs();
        else barrier_all(); /* the results visible to the next submission (the download) */
        if (i >= warm)
            vkCmdWriteTimestamp(vkb.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vkb.queries, (uint32_t)(i - warm) + 1);
    }
    VK(vkEndCommandBuffer(vkb.cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &vkb.cmd};
    VK(vkQueueSubmit(vkb.queue, 1, &si, vkb.fence));
    VK(vkWaitForFences(vkb.dev, 1, &vkb.fence, VK_TRUE, UINT64_MAX));
    VK(vkResetFences(vkb.dev, 1, &vkb.fence));
    if (timed > 0) {
        VK(vkGetQueryPoolResults(vkb.dev, vkb.queries, 0, (uint32_t)timed + 1, sizeof *t * ((size_t)timed + 1), t,
                                 sizeof t[0], VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        for (int i = 0; i < timed; i++) ms[i] = (double)(t[i + 1] - t[i]) * vkb.ns_per_tick / 1e6;
    }
    free(t);
    return true;
fail:
    free(t);
    return false;
}

/* See vulkan_run.h. */
bool vkb_submit(const vk_work *w) {
    return vkb_submit_burst(w, w->op != NULL || w->copy || w->crops != NULL || w->batch != NULL || w->record != NULL ? 1 : 0, 0, NULL);
}

/* See vulkan_run.h. */
int vkb_warm_runs(double ms) { return bench_warm_runs(&vkb.clock, ms); }

/* One burst of bench_steady (ms): estimate < 0 for one timed run alone. */
static bool burst_run(void *ctx, double estimate, int reps, double *times) {
    return vkb_submit_burst(ctx, estimate < 0 ? 0 : vkb_warm_runs(estimate), reps, times);
}

/* See vulkan_run.h. */
double vkb_time_work(vk_work w, int reps, double *times) {
    return bench_steady(&vkb.clock, burst_run, &w, 1, reps, times);
}

/* See vulkan_run.h. */
dmls_operator *vkb_copy_op(uint64_t n) {
    int64_t shape[1] = {(int64_t)n}, zero[1] = {0}, one[1] = {1};
    dmls_tensor t = {DMLS_UINT8, 1, shape, NULL, 0};
    dmls_window w = {zero, shape, one};
    dmls_operator *op = NULL;
    return dmls_create(&t, &t, &w, &op) == DMLS_OK ? op : NULL;
}

