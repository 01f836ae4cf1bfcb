/* dmlslice bench --device vulkan; see bench.h. The slice and, beside it,
 * the yardstick (the library's 16-byte-unit copy shader over the same
 * bytes: a 1-D identity slice of them, which runs units.comp with one dim
 * and no division) are timed on the GPU with timestamp queries around the
 * recorded dispatches, in device-local buffers. A host clock would time the
 * submit and the wait as well: that cost is reported once, apart
 * (bench_vulkan_floor). Compiled in every build; without the Vulkan
 * backend it only says so. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef DMLS_HAVE_VULKAN
#include "dmlslice/dmlslice_vulkan.h"

bool bench_vulkan_built(void) { return true; }

/* The context and what the timing needs on its device. */
static struct {
    dmls_vulkan_context *ctx;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    double ns_per_tick;
} V;

#define VK(call)                                                                                                       \
    do {                                                                                                               \
        const VkResult r_ = (call);                                                                                    \
        if (r_ != VK_SUCCESS) {                                                                                        \
            fprintf(stderr, "dmlslice bench: %s: %s returned %d\n", what, #call, (int)r_);                             \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

bool bench_vulkan_open(int device, char *gpu, size_t gpu_size) {
    const char *what = "--device vulkan";
    if (dmls_vulkan_context_create(device, 0, &V.ctx) != DMLS_OK ||
        dmls_vulkan_device_name(device, gpu, gpu_size, NULL, NULL) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: --device vulkan:%d: %s\n", device, dmls_last_error());
        gpu[0] = '\0';
        return false;
    }
    uint32_t family;
    dmls_vulkan_context_handles(V.ctx, NULL, &V.phys, &V.dev, &family, &V.queue);
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(V.phys, &p);
    V.ns_per_tick = p.limits.timestampPeriod;
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = family};
    VK(vkCreateCommandPool(V.dev, &pi, NULL, &V.pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = V.pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VK(vkAllocateCommandBuffers(V.dev, &ai, &V.cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK(vkCreateFence(V.dev, &fi, NULL, &V.fence));
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    VK(vkCreateQueryPool(V.dev, &qi, NULL, &V.queries));
    return true;
fail:
    gpu[0] = '\0';
    return false;
}

void bench_vulkan_close(void) {
    if (V.ctx == NULL) return;
    if (V.queries) vkDestroyQueryPool(V.dev, V.queries, NULL);
    if (V.fence) vkDestroyFence(V.dev, V.fence, NULL);
    if (V.pool) vkDestroyCommandPool(V.dev, V.pool, NULL);
    dmls_vulkan_context_destroy(V.ctx);
    memset(&V, 0, sizeof V);
}

typedef struct buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map; /* host-visible buffers only */
} buffer;

/* A buffer of bytes (rounded up to a word) in memory with the flags `want`. */
static bool make_buffer(uint64_t bytes, VkMemoryPropertyFlags want, buffer *b) {
    const char *what = "buffer";
    memset(b, 0, sizeof *b);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = (bytes + 3) / 4 * 4 + 4,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK(vkCreateBuffer(V.dev, &bi, NULL, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(V.dev, b->buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(V.phys, &mp);
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
    VK(vkAllocateMemory(V.dev, &ai, NULL, &b->memory));
    VK(vkBindBufferMemory(V.dev, b->buffer, b->memory, 0));
    if (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) VK(vkMapMemory(V.dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map));
    return true;
fail:
    return false;
}

static void free_buffer(buffer *b) {
    if (b->map) vkUnmapMemory(V.dev, b->memory);
    if (b->buffer) vkDestroyBuffer(V.dev, b->buffer, NULL);
    if (b->memory) vkFreeMemory(V.dev, b->memory, NULL);
}

/* What one submission records: a buffer copy, or an operator between
 * timestamps (op NULL: nothing, the floor). */
typedef struct work {
    const dmls_operator *op;
    VkBuffer src, dst;
    uint64_t src_bytes, dst_bytes; /* op: the bound sizes; a copy: src_bytes */
    bool copy, timed;
} work;

static void barrier_all(void) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    vkCmdPipelineBarrier(V.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
                         NULL, 0, NULL);
}

/* Records w, submits, waits; *ms the GPU time between the timestamps. */
static bool submit(const work *w, double *ms) {
    const char *what = "submit";
    VK(vkResetCommandBuffer(V.cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK(vkBeginCommandBuffer(V.cmd, &bi));
    barrier_all(); /* earlier submissions' writes (the upload) before, outside the timed span */
    if (w->timed) {
        vkCmdResetQueryPool(V.cmd, V.queries, 0, 2);
        vkCmdWriteTimestamp(V.cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, V.queries, 0);
    }
    if (w->copy) {
        VkBufferCopy region = {0, 0, w->src_bytes};
        vkCmdCopyBuffer(V.cmd, w->src, w->dst, 1, &region);
    } else if (w->op != NULL &&
               dmls_vulkan_record(w->op, V.ctx, V.cmd, w->src, 0, w->src_bytes, w->dst, 0, w->dst_bytes) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: %s\n", dmls_last_error());
        vkEndCommandBuffer(V.cmd);
        return false;
    }
    if (w->timed) vkCmdWriteTimestamp(V.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, V.queries, 1);
    barrier_all(); /* the results visible to the next submission (the download) */
    VK(vkEndCommandBuffer(V.cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &V.cmd};
    VK(vkQueueSubmit(V.queue, 1, &si, V.fence));
    VK(vkWaitForFences(V.dev, 1, &V.fence, VK_TRUE, UINT64_MAX));
    VK(vkResetFences(V.dev, 1, &V.fence));
    if (w->timed) {
        uint64_t t[2];
        VK(vkGetQueryPoolResults(V.dev, V.queries, 0, 2, sizeof t, t, sizeof t[0],
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        *ms = (double)(t[1] - t[0]) * V.ns_per_tick / 1e6;
    }
    return true;
fail:
    return false;
}

/* Median ms of reps timed runs of w after 3 untimed ones; < 0 on failure. */
static double time_work(work w, int reps, double *times) {
    w.timed = true;
    for (int i = 0; i < 3 + reps; i++) {
        double ms = 0;
        if (!submit(&w, &ms)) return -1;
        if (i >= 3) times[i - 3] = ms;
    }
    return bench_median(times, reps);
}

/* The yardstick: the library's 1-D identity slice of n bytes, which runs
 * the 16-byte-unit copy shader with one dim (n a multiple of 16) or the
 * narrowest unit n allows. */
static dmls_operator *copy_op(uint64_t n) {
    int64_t shape[1] = {(int64_t)n}, zero[1] = {0}, one[1] = {1};
    dmls_tensor t = {DMLS_UINT8, 1, shape, NULL, 0};
    dmls_window w = {zero, shape, one};
    dmls_operator *op = NULL;
    return dmls_create(&t, &t, &w, &op) == DMLS_OK ? op : NULL;
}

typedef struct case_buffers {
    buffer in, out, stage;
    uint64_t in_bytes, out_bytes;
} case_buffers;

/* Device-local input (random bytes through the staging buffer) and output. */
static bool case_setup(const dmls_operator *op, case_buffers *cb) {
    cb->in_bytes = dmls_input_bytes(op), cb->out_bytes = dmls_output_bytes(op);
    const uint64_t stage = cb->in_bytes > cb->out_bytes ? cb->in_bytes : cb->out_bytes;
    if (!make_buffer(cb->in_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->in) ||
        !make_buffer(cb->out_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->out) ||
        !make_buffer(stage, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &cb->stage))
        return false;
    bench_fill(cb->stage.map, cb->in_bytes, 0x9E3779B97F4A7C15ULL ^ cb->in_bytes);
    work up = {NULL, cb->stage.buffer, cb->in.buffer, cb->in_bytes, 0, true, false};
    if (cb->in_bytes && !submit(&up, NULL)) return false;
    memset(cb->stage.map, 0xA5, cb->out_bytes);
    work fill = {NULL, cb->stage.buffer, cb->out.buffer, cb->out_bytes, 0, true, false};
    return cb->out_bytes == 0 || submit(&fill, NULL);
}

/* The slice once, its output against the reference executor's. */
static bool case_check(const dmls_operator *op, case_buffers *cb, bool *correct) {
    void *h_in = malloc(cb->in_bytes + 1), *h_ref = malloc(cb->out_bytes + 1);
    bool ok = false;
    work run = {op, cb->in.buffer, cb->out.buffer, cb->in_bytes, cb->out_bytes, false, false};
    work up = {NULL, cb->in.buffer, cb->stage.buffer, cb->in_bytes, 0, true, false};
    work down = {NULL, cb->out.buffer, cb->stage.buffer, cb->out_bytes, 0, true, false};
    if (h_in == NULL || h_ref == NULL) goto done;
    bench_fill(h_in, cb->in_bytes, 0x9E3779B97F4A7C15ULL ^ cb->in_bytes);
    memset(h_ref, 0xA5, cb->out_bytes);
    if (dmls_execute_reference(op, h_in, cb->in_bytes, h_ref, cb->out_bytes) != DMLS_OK) goto done;
    if (!submit(&run, NULL) || (cb->out_bytes && !submit(&down, NULL))) goto done;
    *correct = memcmp(cb->stage.map, h_ref, cb->out_bytes) == 0;
    ok = true;
    (void)up;
done:
    free(h_in), free(h_ref);
    return ok;
}

bool bench_vulkan_case(const bench_case *c, int reps, bench_row *row) {
    memset(row, 0, sizeof *row);
    row->name = c->name;
    bool ok = false;
    dmls_operator *op = NULL, *copy = NULL;
    case_buffers cb;
    memset(&cb, 0, sizeof cb);
    double *times = malloc(sizeof *times * (size_t)reps);
    if (times == NULL || bench_create(c, &op) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: case %s: %s\n", c->name, times ? dmls_last_error() : "out of memory");
        goto fail;
    }
    if (!case_setup(op, &cb) || !case_check(op, &cb, &row->correct)) goto fail;
    /* The copy moves the output's bytes out of the input buffer. */
    const uint64_t n = cb.out_bytes <= cb.in_bytes ? cb.out_bytes : cb.in_bytes;
    copy = copy_op(n);
    if (copy == NULL) goto fail;
    work slice = {op, cb.in.buffer, cb.out.buffer, cb.in_bytes, cb.out_bytes, false, false};
    work yard = {copy, cb.in.buffer, cb.out.buffer, n, n, false, false};
    row->ms = time_work(slice, reps, times);
    row->copy_ms = time_work(yard, reps, times);
    if (row->ms < 0 || row->copy_ms < 0) goto fail;
    row->out_bytes = cb.out_bytes;
    row->batch = 1;
    row->timed = ok = true;
fail:
    free_buffer(&cb.in), free_buffer(&cb.out), free_buffer(&cb.stage);
    dmls_destroy(op);
    dmls_destroy(copy);
    free(times);
    return ok;
}

/* Host time of n runs of f, median, in microseconds. */
static double host_us(const work *w, bool through_library, int n) {
    double *t = malloc(sizeof *t * (size_t)n), r = -1;
    for (int i = 0; t != NULL && i < n; i++) {
        const double a = bench_now();
        const bool ok = through_library ? dmls_vulkan_execute(w->op, V.ctx, w->src, 0, w->src_bytes, w->dst, 0,
                                                              w->dst_bytes) == DMLS_OK
                                        : submit(w, NULL);
        if (!ok) goto done;
        t[i] = (bench_now() - a) * 1e6;
    }
    if (t != NULL) r = bench_median(t, n);
done:
    free(t);
    return r;
}

void bench_vulkan_floor(void) {
    static const int64_t shape[2] = {4, 4}, out_shape[2] = {2, 2}, offs[2] = {1, 1}, steps[2] = {2, -1};
    dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {offs, out_shape, steps};
    dmls_operator *op = NULL;
    buffer a, b;
    if (dmls_create(&in, &out, &w, &op) != DMLS_OK || !make_buffer(64, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &a) ||
        !make_buffer(64, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &b)) {
        dmls_destroy(op);
        return;
    }
    work tiny = {op, a.buffer, b.buffer, 64, 16, false, false}, empty = {NULL, a.buffer, b.buffer, 0, 0, false, false};
    const double t = host_us(&tiny, true, 200), e = host_us(&empty, false, 200);
    printf("floor: a 2x2 slice through dmls_vulkan_execute (record + submit + wait) %.1f us; an empty command "
           "buffer's submit + wait %.1f us (host clock, medians of 200)\n",
           t, e);
    free_buffer(&a), free_buffer(&b);
    dmls_destroy(op);
}

#else

bool bench_vulkan_built(void) { return false; }

bool bench_vulkan_open(int device, char *gpu, size_t gpu_size) {
    (void)device, (void)gpu_size;
    gpu[0] = '\0';
    fprintf(stderr, "dmlslice bench: this build has no Vulkan backend (--device vulkan)\n");
    return false;
}

bool bench_vulkan_case(const bench_case *c, int reps, bench_row *row) {
    (void)c, (void)reps, (void)row;
    return false;
}

void bench_vulkan_floor(void) {}

void bench_vulkan_close(void) {}

#endif
