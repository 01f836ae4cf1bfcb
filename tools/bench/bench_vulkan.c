/* dmlslice bench --device vulkan; see bench.h. The slice and, beside it,
 * the yardstick (the library's 16-byte-unit copy shader over the same
 * bytes: a 1-D identity slice of them, which runs units.comp with one dim
 * and no division) are timed on the GPU with timestamp queries, in
 * device-local buffers, in the steady state a real workload sees: one
 * command buffer holds a warm-up burst (untimed runs, about WARM_MS of GPU
 * time by a first single run's estimate) and then the reps timed runs back
 * to back, a barrier and a timestamp after each, repeated until a burst's
 * median is no faster than the one before (the clock up: time_work). Timed one submission at a
 * time, the GPU idles between runs and the H100 drops its SM clock to
 * ~345 MHz, halving every figure (copies included), while CUDA's bench on
 * the same host reads the GPU's steady copy rate. A host clock would time
 * the submit and the wait as well: that cost is reported once, apart
 * (bench_vulkan_floor), right after a burst that raises the clock. Compiled
 * in every build; without the Vulkan backend it only says so. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef DMLS_HAVE_VULKAN
#include "dmlslice/batch_vulkan.h"
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
    uint32_t query_count;
    double ns_per_tick;
} V;

/* GPU time of the warm-up burst before the timed runs, and the most runs
 * it may hold (a tiny case is launch-bound: its burst is capped). */
#define WARM_MS  200.0
#define WARM_MAX 20000
/* At most this many warm-up bursts and timed runs until two agree (time_work). */
#define STEADY_BURSTS 6

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

/* What one submission records: a buffer copy, an operator, or a batch of
 * crops (or those crops as single operators) between timestamps (op and
 * crops NULL: nothing, the floor). */
typedef struct work {
    const dmls_operator *op;
    VkBuffer src, dst;
    uint64_t src_bytes, dst_bytes; /* op: the bound sizes; a copy: src_bytes */
    bool copy;
    const bench_crops *crops; /* the crops from src into dst: the batch, or with `loop` one by one */
    bool loop;
} work;

static void barrier_all(void) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    vkCmdPipelineBarrier(V.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
                         NULL, 0, NULL);
}

/* Makes the query pool hold at least n timestamps. */
static bool queries_for(uint32_t n) {
    const char *what = "query pool";
    if (V.query_count >= n) return true;
    if (V.queries) vkDestroyQueryPool(V.dev, V.queries, NULL);
    V.queries = VK_NULL_HANDLE, V.query_count = 0;
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = n};
    VK(vkCreateQueryPool(V.dev, &qi, NULL, &V.queries));
    V.query_count = n;
    return true;
fail:
    return false;
}

/* The crops of w: one dmls_batch_record_vulkan, or each crop's operator
 * recorded by itself at its offsets. */
static bool record_crops(const work *w) {
    const uint64_t crop_bytes = BENCH_CROP_FLOATS * sizeof(float), one_in = dmls_input_bytes(w->crops->one);
    if (!w->loop) {
        const dmls_vulkan_binding in = {w->src, 0, w->src_bytes}, out = {w->dst, 0, w->dst_bytes};
        return dmls_batch_record_vulkan(w->crops->batch, V.ctx, V.cmd, &in, 1, &out, 1) == DMLS_OK;
    }
    for (int i = 0; i < BENCH_CROPS; i++)
        if (dmls_vulkan_record(w->crops->one, V.ctx, V.cmd, w->src, w->crops->offsets[i], one_in, w->dst,
                               (uint64_t)i * crop_bytes, crop_bytes) != DMLS_OK)
            return false;
    return true;
}

static bool record_one(const work *w) {
    if (w->crops != NULL && !record_crops(w)) {
        fprintf(stderr, "dmlslice bench: %s\n", dmls_last_error());
        return false;
    }
    if (w->copy) {
        VkBufferCopy region = {0, 0, w->src_bytes};
        vkCmdCopyBuffer(V.cmd, w->src, w->dst, 1, &region);
    } else if (w->op != NULL &&
               dmls_vulkan_record(w->op, V.ctx, V.cmd, w->src, 0, w->src_bytes, w->dst, 0, w->dst_bytes) != DMLS_OK) {
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
static bool submit_burst(const work *w, int warm, int timed, double *ms) {
    const char *what = "submit";
    uint64_t *t = NULL;
    if (timed > 0 && (!queries_for((uint32_t)timed + 1) || (t = malloc(sizeof *t * ((size_t)timed + 1))) == NULL))
        return false;
    VK(vkResetCommandBuffer(V.cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK(vkBeginCommandBuffer(V.cmd, &bi));
    barrier_all(); /* earlier submissions' writes (the upload) before, outside the timed span */
    if (timed > 0) vkCmdResetQueryPool(V.cmd, V.queries, 0, (uint32_t)timed + 1);
    for (int i = 0; i < warm + timed; i++) {
        if (i == warm) vkCmdWriteTimestamp(V.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, V.queries, 0);
        if (!record_one(w)) {
            vkEndCommandBuffer(V.cmd);
            goto fail;
        }
        barrier_all(); /* the results visible to the next run or submission (the download) */
        if (i >= warm)
            vkCmdWriteTimestamp(V.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, V.queries, (uint32_t)(i - warm) + 1);
    }
    VK(vkEndCommandBuffer(V.cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &V.cmd};
    VK(vkQueueSubmit(V.queue, 1, &si, V.fence));
    VK(vkWaitForFences(V.dev, 1, &V.fence, VK_TRUE, UINT64_MAX));
    VK(vkResetFences(V.dev, 1, &V.fence));
    if (timed > 0) {
        VK(vkGetQueryPoolResults(V.dev, V.queries, 0, (uint32_t)timed + 1, sizeof *t * ((size_t)timed + 1), t,
                                 sizeof t[0], VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        for (int i = 0; i < timed; i++) ms[i] = (double)(t[i + 1] - t[i]) * V.ns_per_tick / 1e6;
    }
    free(t);
    return true;
fail:
    free(t);
    return false;
}

/* One run of w (a copy, the operator, or nothing), submitted and waited for. */
static bool submit(const work *w) {
    return submit_burst(w, w->op != NULL || w->copy || w->crops != NULL ? 1 : 0, 0, NULL);
}

/* How many untimed runs of w, each `ms` long, fill about WARM_MS. */
static int warm_runs(double ms) {
    const double n = ms > 0 ? WARM_MS / ms : WARM_MAX;
    return n < 3 ? 3 : n > WARM_MAX ? WARM_MAX : (int)n;
}

/* Median ms of reps timed runs of w in the steady state: a single run
 * estimates the time (at whatever clock the idle GPU has, so an
 * overestimate, which only shortens the burst), then one submission holds
 * the warm-up burst and the timed runs back to back; < 0 on failure. */
static double time_work(work w, int reps, double *times) {
    double first = 0, last = -1;
    if (!submit_burst(&w, 0, 1, &first)) return -1;
    /* Bursts until one is no faster than the one before (within 2%): after
     * a few seconds of host work (a large case's reference run) the H100
     * took more than one ~200 ms burst to raise its clock, and the first
     * job timed per case read ~2x slow (chan_f16, stride2_f32,
     * flip_last_f32, neg2_f32 on 2026-11-24; vk_probe's first compute job
     * per case alike), the library's launch the same as vk_probe's. */
    for (int b = 0; b < STEADY_BURSTS; b++) {
        if (!submit_burst(&w, warm_runs(last > 0 ? last : first), reps, times)) return -1;
        const double m = bench_median(times, reps);
        /* On stderr, so that a GPU run's log shows how slow the clock rose. */
        if (b >= 1) fprintf(stderr, "dmlslice bench: burst %d: %.4f ms after %.4f ms\n", b + 1, m, last);
        if (last > 0 && m >= 0.98 * last) return m;
        last = m;
    }
    return last;
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
    work up = {NULL, cb->stage.buffer, cb->in.buffer, cb->in_bytes, 0, true, NULL, false};
    if (cb->in_bytes && !submit(&up)) return false;
    memset(cb->stage.map, 0xA5, cb->out_bytes);
    work fill = {NULL, cb->stage.buffer, cb->out.buffer, cb->out_bytes, 0, true, NULL, false};
    return cb->out_bytes == 0 || submit(&fill);
}

/* The slice once, its output against the reference executor's. */
static bool case_check(const dmls_operator *op, case_buffers *cb, bool *correct) {
    void *h_in = malloc(cb->in_bytes + 1), *h_ref = malloc(cb->out_bytes + 1);
    bool ok = false;
    work run = {op, cb->in.buffer, cb->out.buffer, cb->in_bytes, cb->out_bytes, false, NULL, false};
    work up = {NULL, cb->in.buffer, cb->stage.buffer, cb->in_bytes, 0, true, NULL, false};
    work down = {NULL, cb->out.buffer, cb->stage.buffer, cb->out_bytes, 0, true, NULL, false};
    if (h_in == NULL || h_ref == NULL) goto done;
    bench_fill(h_in, cb->in_bytes, 0x9E3779B97F4A7C15ULL ^ cb->in_bytes);
    memset(h_ref, 0xA5, cb->out_bytes);
    if (dmls_execute_reference(op, h_in, cb->in_bytes, h_ref, cb->out_bytes) != DMLS_OK) goto done;
    if (!submit(&run) || (cb->out_bytes && !submit(&down))) goto done;
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
    work slice = {op, cb.in.buffer, cb.out.buffer, cb.in_bytes, cb.out_bytes, false, NULL, false};
    work yard = {copy, cb.in.buffer, cb.out.buffer, n, n, false, NULL, false};
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

/* Host time of n runs of w, median, in microseconds; before each, `heat`
 * (a burst of copies, about 1 ms of GPU time) keeps the clock up, as a
 * real workload's neighbouring work would. */
static double host_us(const work *w, bool through_library, const work *heat, int heat_runs, int n) {
    double *t = malloc(sizeof *t * (size_t)n), r = -1;
    for (int i = 0; t != NULL && i < n; i++) {
        if (!submit_burst(heat, heat_runs, 0, NULL)) goto done;
        const double a = bench_now();
        const bool ok = through_library ? dmls_vulkan_execute(w->op, V.ctx, w->src, 0, w->src_bytes, w->dst, 0,
                                                              w->dst_bytes) == DMLS_OK
                                        : submit(w);
        if (!ok) goto done;
        t[i] = (bench_now() - a) * 1e6;
    }
    if (t != NULL) r = bench_median(t, n);
done:
    free(t);
    return r;
}

/* The heat of the floor: the library's copy of 16 MiB (~12 us a run on the
 * H100), first for about WARM_MS. */
#define HEAT_BYTES ((uint64_t)16 << 20)

static void floor_measure(const dmls_operator *op, const buffer *a, const buffer *b, dmls_operator *copy) {
    buffer x, y;
    memset(&x, 0, sizeof x), memset(&y, 0, sizeof y);
    if (!make_buffer(HEAT_BYTES, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &x) ||
        !make_buffer(HEAT_BYTES, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &y)) {
        printf("floor: not measured: no device memory for the warm-up\n");
        goto done;
    }
    const work tiny = {op, a->buffer, b->buffer, 64, 16, false, NULL, false},
               empty = {NULL, a->buffer, b->buffer, 0, 0, false, NULL, false},
               heat = {copy, x.buffer, y.buffer, HEAT_BYTES, HEAT_BYTES, false, NULL, false};
    double first = 0;
    if (!submit_burst(&heat, 0, 1, &first) || !submit_burst(&heat, warm_runs(first), 0, NULL)) goto done;
    /* ~1 ms of heat by the cold estimate (more at full clock); one run where a run is slower (lavapipe). */
    const int heat_runs = first > 0 && first < 1.0 / 256 ? 256 : first > 0 && first < 1 ? (int)(1 / first) : 1;
    const double t = host_us(&tiny, true, &heat, heat_runs, 200), e = host_us(&empty, false, &heat, heat_runs, 200);
    printf("floor: a 2x2 slice through dmls_vulkan_execute (record + submit + wait) %.1f us; an empty command "
           "buffer's submit + wait %.1f us (host clock, medians of 200, each right after ~1 ms of copies: the "
           "clock up)\n",
           t, e);
done:
    free_buffer(&x), free_buffer(&y);
}

/* The crops' rows: the image uploaded to a device-local buffer, the
 * output device-local; the batch's output checked against the CPU's. */
typedef struct crops_buffers {
    buffer image, out, stage;
} crops_buffers;

static bool crops_setup(const bench_crops *c, crops_buffers *cb, uint64_t out_bytes, bool *correct) {
    const uint64_t image_bytes = BENCH_IMAGE_FLOATS * sizeof(float);
    float *want = malloc(out_bytes);
    bool ok = want != NULL && make_buffer(image_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->image) &&
              make_buffer(out_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->out) &&
              make_buffer(image_bytes, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                          &cb->stage);
    if (ok) {
        memcpy(cb->stage.map, c->image, image_bytes);
        const work up = {NULL, cb->stage.buffer, cb->image.buffer, image_bytes, 0, true, NULL, false};
        const work run = {NULL, cb->image.buffer, cb->out.buffer, image_bytes, out_bytes, false, c, false};
        const work down = {NULL, cb->out.buffer, cb->stage.buffer, out_bytes, 0, true, NULL, false};
        const dmls_batch_input hin = {c->image, image_bytes};
        const dmls_batch_output hout = {want, out_bytes};
        ok = submit(&up) && submit(&run) && submit(&down) &&
             dmls_batch_execute(c->batch, NULL, &hin, 1, &hout, 1) == DMLS_OK;
        *correct = ok && memcmp(cb->stage.map, want, out_bytes) == 0;
    }
    free(want);
    return ok;
}

/* Host time of one call of the crops, median of reps, in microseconds:
 * the batch through dmls_batch_execute_vulkan, the crops one by one through
 * dmls_vulkan_execute (a submit and a wait each), or an empty submit. */
enum { HOST_BATCH, HOST_LOOP, HOST_EMPTY, HOST_MEASURES };
static double crops_host_us(int m, const bench_crops *c, const crops_buffers *cb, uint64_t out_bytes, int reps) {
    const uint64_t image_bytes = BENCH_IMAGE_FLOATS * sizeof(float), crop_bytes = BENCH_CROP_FLOATS * sizeof(float);
    const dmls_vulkan_binding in = {cb->image.buffer, 0, image_bytes}, out = {cb->out.buffer, 0, out_bytes};
    const work empty = {NULL, cb->image.buffer, cb->out.buffer, 0, 0, false, NULL, false};
    double *t = malloc(sizeof *t * (size_t)reps), r = -1;
    for (int k = 0; t != NULL && k <= reps; k++) { /* the first call untimed */
        const double a = bench_now();
        bool ok = true;
        if (m == HOST_BATCH) ok = dmls_batch_execute_vulkan(c->batch, V.ctx, &in, 1, &out, 1) == DMLS_OK;
        if (m == HOST_EMPTY) ok = submit(&empty);
        for (int i = 0; m == HOST_LOOP && ok && i < BENCH_CROPS; i++)
            ok = dmls_vulkan_execute(c->one, V.ctx, cb->image.buffer, c->offsets[i], dmls_input_bytes(c->one),
                                     cb->out.buffer, (uint64_t)i * crop_bytes, crop_bytes) == DMLS_OK;
        if (!ok) goto done;
        if (k > 0) t[k - 1] = (bench_now() - a) * 1e6;
    }
    if (t != NULL) r = bench_median(t, reps);
done:
    free(t);
    return r;
}

int bench_vulkan_batches(int reps, bench_batch_row *rows) {
    bench_batch_row *gpu = &rows[0], *host = &rows[1];
    memset(rows, 0, 2 * sizeof *rows);
    const uint64_t out_bytes = BENCH_CROPS * BENCH_CROP_FLOATS * sizeof(float);
    gpu->name = host->name = "crops_1024_3x4x4_f32";
    gpu->timing = "gpu (timestamps)", host->timing = "record+submit+wait";
    gpu->items = host->items = BENCH_CROPS;
    gpu->out_bytes = host->out_bytes = out_bytes;
    bench_crops c;
    crops_buffers cb;
    memset(&cb, 0, sizeof cb);
    dmls_operator *copy = copy_op(out_bytes);
    double *times = malloc(sizeof *times * (size_t)reps);
    bool correct = false;
    if (!bench_crops_make(&c) || times == NULL || copy == NULL || !crops_setup(&c, &cb, out_bytes, &correct)) {
        fprintf(stderr, "dmlslice bench: the Vulkan crops rows: %s\n", times ? dmls_last_error() : "out of memory");
        goto done;
    }
    const work batch = {NULL, cb.image.buffer, cb.out.buffer, BENCH_IMAGE_FLOATS * sizeof(float), out_bytes, false, &c,
                        false};
    work loop = batch;
    loop.loop = true;
    const work yard = {copy, cb.image.buffer, cb.out.buffer, out_bytes, out_bytes, false, NULL, false};
    gpu->us = time_work(batch, reps, times) * 1e3;
    gpu->yard[0].name = "loop_recorded", gpu->yard[0].us = time_work(loop, reps, times) * 1e3;
    gpu->yard[1].name = "copy", gpu->yard[1].us = time_work(yard, reps, times) * 1e3;
    gpu->nyard = 2;
    gpu->correct = host->correct = correct;
    gpu->timed = gpu->us >= 0 && gpu->yard[0].us >= 0 && gpu->yard[1].us >= 0;
    host->us = crops_host_us(HOST_BATCH, &c, &cb, out_bytes, reps);
    host->yard[0].name = "loop_execute", host->yard[0].us = crops_host_us(HOST_LOOP, &c, &cb, out_bytes, reps);
    host->yard[1].name = "empty_submit", host->yard[1].us = crops_host_us(HOST_EMPTY, &c, &cb, out_bytes, reps);
    host->nyard = 2;
    host->timed = host->us >= 0 && host->yard[0].us >= 0 && host->yard[1].us >= 0;
done:
    free_buffer(&cb.image), free_buffer(&cb.out), free_buffer(&cb.stage);
    bench_crops_free(&c);
    dmls_destroy(copy);
    free(times);
    return 2;
}

void bench_vulkan_floor(void) {
    static const int64_t shape[2] = {4, 4}, out_shape[2] = {2, 2}, offs[2] = {1, 1}, sizes[2] = {3, 2},
                         steps[2] = {2, -1};
    dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL, *copy = copy_op(HEAT_BYTES);
    buffer a, b;
    memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
    if (copy == NULL || dmls_create(&in, &out, &w, &op) != DMLS_OK) {
        printf("floor: not measured: %s\n", dmls_last_error());
        goto done;
    }
    if (make_buffer(64, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &a) &&
        make_buffer(64, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &b))
        floor_measure(op, &a, &b, copy);
done:
    free_buffer(&a), free_buffer(&b);
    dmls_destroy(op);
    dmls_destroy(copy);
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

int bench_vulkan_batches(int reps, bench_batch_row *rows) {
    (void)reps, (void)rows;
    return 0;
}

void bench_vulkan_floor(void) {}

void bench_vulkan_close(void) {}

#endif
