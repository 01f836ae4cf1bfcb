/* The Vulkan shader tuning probe (issue 25): every canonical case under
 * each tuning of the pipelines (dmls_vk_tune: workgroup size x items per
 * invocation, and two capped grids), its output checked against the
 * reference executor under every tuning, timed by timestamp queries (the
 * reps back to back in one submission after ~100 ms of untimed runs, so
 * the clock is up: see run_burst) in device-local buffers beside the library's 16-byte copy of the same bytes
 * (a 1-D identity slice) and beside a plain copy shader outside the library
 * (vk_plain_copy.comp). One line per case and tuning (var: the shader
 * variants, launch.h DMLS_VK_VARIANT_*):
 *   case tuning family ms GB/s ratio-to-library-copy ratio-to-plain-copy ok
 * GB/s counts 2 x output bytes. Run by hand on the GPU machine:
 *   build/bench/probes/vk_probe [reps [cases.json]] > probe.txt
 *   build/bench/probes/vk_probe copies     (1 GiB copies only, see copies()) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/operator.h"
#include "../../src/vulkan/context.h"
#include "cases.h"
#include "vk_plain_copy.h" /* generated: dmls_vk_spv_plain_copy */

#define VK(call)                                                                                                       \
    do {                                                                                                               \
        const VkResult r_ = (call);                                                                                    \
        if (r_ != VK_SUCCESS) {                                                                                        \
            fprintf(stderr, "vk_probe: %s returned %d\n", #call, (int)r_);                                             \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static struct {
    dmls_vulkan_context *ctx;
    VkDevice dev;
    VkPhysicalDevice phys;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    double ns_per_tick;
    VkPipeline plain[3]; /* plain_tunings */
} P;

typedef struct buf {
    VkBuffer b;
    VkDeviceMemory m;
    unsigned char *map;
} buf;

static buf make(uint64_t bytes, VkMemoryPropertyFlags want) {
    buf r = {0};
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = (bytes + 15) / 16 * 16 + 16,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VK(vkCreateBuffer(P.dev, &bi, NULL, &r.b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(P.dev, r.b, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(P.phys, &mp);
    uint32_t t = 0;
    while (t < mp.memoryTypeCount &&
           (!(req.memoryTypeBits & (1u << t)) || (mp.memoryTypes[t].propertyFlags & want) != want))
        t++;
    if (t == mp.memoryTypeCount) {
        fprintf(stderr, "vk_probe: no memory type 0x%x\n", (unsigned)want);
        exit(1);
    }
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = t};
    VK(vkAllocateMemory(P.dev, &ai, NULL, &r.m));
    VK(vkBindBufferMemory(P.dev, r.b, r.m, 0));
    if (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) VK(vkMapMemory(P.dev, r.m, 0, VK_WHOLE_SIZE, 0, (void **)&r.map));
    return r;
}

static void drop(buf *b) {
    if (b->map) vkUnmapMemory(P.dev, b->m);
    vkDestroyBuffer(P.dev, b->b, NULL);
    vkFreeMemory(P.dev, b->m, NULL);
    memset(b, 0, sizeof *b);
}

static void begin(void) {
    VK(vkResetCommandBuffer(P.cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK(vkBeginCommandBuffer(P.cmd, &bi));
}

static void barrier(void) {
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    vkCmdPipelineBarrier(P.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
                         NULL, 0, NULL);
}

static void finish(void) {
    VK(vkEndCommandBuffer(P.cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &P.cmd};
    VK(vkQueueSubmit(P.queue, 1, &si, P.fence));
    VK(vkWaitForFences(P.dev, 1, &P.fence, VK_TRUE, UINT64_MAX));
    VK(vkResetFences(P.dev, 1, &P.fence));
}

static void copy(VkBuffer from, VkBuffer to, uint64_t bytes) {
    begin();
    barrier();
    VkBufferCopy region = {0, 0, bytes};
    if (bytes) vkCmdCopyBuffer(P.cmd, from, to, 1, &region);
    barrier();
    finish();
}

/* The plain copy's tunings: workgroup size, vectors per invocation. */
static const uint32_t plain_tunings[3][2] = {{256, 1}, {1024, 1}, {256, 4}};

/* What one timed submission records: an operator, the plain copy of n
 * vectors with pipeline `plain`, or (plain < 0) vkCmdCopyBuffer of them. */
typedef struct job {
    const dmls_operator *op;
    int plain;
    uint64_t n;
    VkBuffer in, out;
    uint64_t in_bytes, out_bytes;
} job;

static void record_plain(const job *j) {
    VkDescriptorBufferInfo bi[2] = {{j->in, 0, j->n * 16}, {j->out, 0, j->n * 16}};
    VkWriteDescriptorSet w[2];
    memset(w, 0, sizeof w);
    for (uint32_t i = 0; i < 2; i++) {
        w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[i].dstBinding = i, w[i].descriptorCount = 1;
        w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = &bi[i];
    }
    vkCmdBindPipeline(P.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, P.plain[j->plain]);
    P.ctx->push_descriptors(P.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, P.ctx->layout, 0, 2, w);
    const uint32_t n = (uint32_t)j->n;
    const uint64_t tile = (uint64_t)plain_tunings[j->plain][0] * plain_tunings[j->plain][1];
    vkCmdPushConstants(P.cmd, P.ctx->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &n);
    const uint64_t groups = (j->n + tile - 1) / tile;
    if (groups == 0) return;
    const uint32_t x = groups < 65535 ? (uint32_t)groups : 65535;
    vkCmdDispatch(P.cmd, x, (uint32_t)((groups + x - 1) / x), 1);
}

static void record_job(const job *j) {
    if (j->op == NULL && j->plain < 0) {
        VkBufferCopy region = {0, 0, j->n * 16};
        vkCmdCopyBuffer(P.cmd, j->in, j->out, 1, &region);
    } else if (j->op == NULL)
        record_plain(j);
    else if (dmls_vulkan_record(j->op, P.ctx, P.cmd, j->in, 0, j->in_bytes, j->out, 0, j->out_bytes) != DMLS_OK) {
        fprintf(stderr, "vk_probe: %s\n", dmls_last_error());
        exit(1);
    }
}

/* `warm` untimed runs of j, then `timed` (<= 256) runs back to back in one
 * submission, each followed by a barrier and a timestamp (one before the
 * first); t[i] the GPU time of timed run i in ms. Back to back, the GPU
 * stays busy and its clock up, as in a real workload: one submission per
 * run, with the host's checks between, let the H100's SM clock fall to
 * ~345 MHz and halved every figure. */
static void run_burst(const job *j, int warm, int timed, double *t) {
    begin();
    barrier();
    vkCmdResetQueryPool(P.cmd, P.queries, 0, (uint32_t)timed + 1);
    for (int i = 0; i < warm + timed; i++) {
        if (i == warm) vkCmdWriteTimestamp(P.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, P.queries, 0);
        record_job(j);
        barrier();
        if (i >= warm)
            vkCmdWriteTimestamp(P.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, P.queries, (uint32_t)(i - warm) + 1);
    }
    finish();
    uint64_t ts[257];
    VK(vkGetQueryPoolResults(P.dev, P.queries, 0, (uint32_t)timed + 1, sizeof ts[0] * ((size_t)timed + 1), ts,
                             sizeof ts[0], VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    for (int i = 0; i < timed; i++) t[i] = (double)(ts[i + 1] - ts[i]) * P.ns_per_tick / 1e6;
}

/* The library's copy of n bytes: a 1-D identity slice (16-byte units). */
static dmls_operator *copy_op(uint64_t n);

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* GPU time of the warm-up burst before a job's timed runs (a first run
 * alone estimates a run's time, at the idle clock: an overestimate). */
#define WARM_MS 100.0

/* Median ms of reps (<= 256) runs back to back after the warm-up burst. */
static double timed(const job *j, int reps) {
    double t[256], first, last = -1;
    run_burst(j, 0, 1, &first);
    /* Bursts until one is no faster than the one before (within 2%): the
     * first compute job per large case read up to ~2x slow after the host's
     * reference run let the clock drop (2026-11-24, bench_vulkan.c alike). */
    for (int b = 0; b < 6; b++) {
        const double est = last > 0 ? last : first, n = est > 0 ? WARM_MS / est : 20000;
        run_burst(j, n < 3 ? 3 : n > 20000 ? 20000 : (int)n, reps, t);
        qsort(t, (size_t)reps, sizeof t[0], by_value);
        const double m = t[reps / 2];
        if (last > 0 && m >= 0.98 * last) return m;
        last = m;
    }
    return last;
}

static VkPipeline plain_pipeline(const uint32_t *tuning) {
    VkShaderModuleCreateInfo m = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                  .codeSize = sizeof dmls_vk_spv_plain_copy,
                                  .pCode = dmls_vk_spv_plain_copy};
    VkShaderModule module;
    VK(vkCreateShaderModule(P.dev, &m, NULL, &module));
    const VkSpecializationMapEntry e[2] = {{0, 0, 4}, {1, 4, 4}};
    const VkSpecializationInfo spec = {2, e, 8, tuning};
    VkComputePipelineCreateInfo info = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = &spec;
    info.layout = P.ctx->layout;
    VkPipeline pipe;
    VK(vkCreateComputePipelines(P.dev, VK_NULL_HANDLE, 1, &info, NULL, &pipe));
    vkDestroyShaderModule(P.dev, module, NULL);
    return pipe;
}

static void open_device(void) {
    if (dmls_vulkan_context_create(0, 0, &P.ctx) != DMLS_OK) {
        fprintf(stderr, "vk_probe: %s\n", dmls_last_error());
        exit(77);
    }
    uint32_t family;
    dmls_vulkan_context_handles(P.ctx, NULL, &P.phys, &P.dev, &family, &P.queue);
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(P.phys, &p);
    P.ns_per_tick = p.limits.timestampPeriod;
    printf("device: %s, Vulkan %u.%u.%u, maxStorageBufferRange %u, maxComputeWorkGroupCount[0] %u, "
           "maxPushConstantsSize %u\n",
           p.deviceName, VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion),
           VK_API_VERSION_PATCH(p.apiVersion), p.limits.maxStorageBufferRange, p.limits.maxComputeWorkGroupCount[0],
           p.limits.maxPushConstantsSize);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = family};
    VK(vkCreateCommandPool(P.dev, &pi, NULL, &P.pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = P.pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VK(vkAllocateCommandBuffers(P.dev, &ai, &P.cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK(vkCreateFence(P.dev, &fi, NULL, &P.fence));
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 257};
    VK(vkCreateQueryPool(P.dev, &qi, NULL, &P.queries));
    for (int i = 0; i < 3; i++)
        if (plain_tunings[i][0] <= P.ctx->max_workgroup) P.plain[i] = plain_pipeline(plain_tunings[i]);
}

static const char *family(int shader) {
    static const char *names[DMLS_VK_SHADERS] = {"units4",   "units8",   "units16",  "reverse1", "reverse2",
                                                 "reverse4", "reverse8", "gather16/1", "gather16/2", "gather16/4",
                                                 "gather16/8", "gather4/1", "gather4/2", "bytes", "tile1",
                                                 "tile2", "tile4", "tile8", "tile1/L16", "tile2/L16",
                                                 "tile4/L16", "tile8/L16", "tile1/S16", "tile2/S16", "tile4/S16",
                                                 "tile8/S16", "tile1/LS16", "tile2/LS16", "tile4/LS16", "tile8/LS16"};
    return shader >= 0 && shader < DMLS_VK_SHADERS ? names[shader] : "nothing";
}

/* The tunings: workgroup x items, then two capped grids (0: uncapped),
 * then shader variants (launch.h: DMLS_VK_VARIANT_*) at three tunings. */
typedef struct tuning {
    uint32_t wg, items, groups, variant;
} tuning;
static const tuning tunings[] = {
    {64, 1, 0, 0}, {64, 2, 0, 0}, {64, 4, 0, 0}, {64, 8, 0, 0}, {128, 1, 0, 0}, {128, 2, 0, 0}, {128, 4, 0, 0},
    {128, 8, 0, 0}, {256, 1, 0, 0}, {256, 2, 0, 0}, {256, 4, 0, 0}, {256, 8, 0, 0}, {512, 1, 0, 0}, {512, 2, 0, 0},
    {512, 4, 0, 0}, {512, 8, 0, 0}, {1024, 1, 0, 0}, {1024, 2, 0, 0}, {1024, 4, 0, 0}, {1024, 8, 0, 0},
    {256, 4, 1056, 0}, {256, 4, 4224, 0}, {256, 1, 4224, 0}, {64, 8, 0, DMLS_VK_VARIANT_GATHER_SHARE},
    {128, 4, 0, DMLS_VK_VARIANT_GATHER_SHARE}, {256, 2, 0, DMLS_VK_VARIANT_GATHER_SHARE},
};
#define TUNINGS (int)(sizeof tunings / sizeof tunings[0])

typedef struct bufs {
    buf in, out, host;
    uint64_t in_bytes, out_bytes;
    unsigned char *want;
} bufs;

/* Every tuning's pipelines, built once (the driver compiles each tuning
 * once rather than once per case): dmls_vk_tune builds them into the
 * context, which then lets go of them; use() puts a set back. */
static VkPipeline sets[TUNINGS][2][DMLS_VK_SHADERS];

static void build_sets(void) {
    for (int t = 0; t < TUNINGS; t++) {
        if (tunings[t].wg > P.ctx->max_workgroup) continue;
        P.ctx->variant = tunings[t].variant;
        if (dmls_vk_tune(P.ctx, tunings[t].wg, tunings[t].items) != DMLS_OK) {
            fprintf(stderr, "vk_probe: %s\n", dmls_last_error());
            exit(1);
        }
        memcpy(sets[t][0], P.ctx->pipelines, sizeof sets[t][0]);
        memcpy(sets[t][1], P.ctx->narrow, sizeof sets[t][1]);
        memset(P.ctx->pipelines, 0, sizeof P.ctx->pipelines);
        memset(P.ctx->narrow, 0, sizeof P.ctx->narrow);
    }
    P.ctx->variant = 0;
}

static void use(int t) {
    memcpy(P.ctx->pipelines, sets[t][0], sizeof sets[t][0]);
    memcpy(P.ctx->narrow, sets[t][1], sizeof sets[t][1]);
    P.ctx->workgroup = tunings[t].wg, P.ctx->items = tunings[t].items, P.ctx->variant = tunings[t].variant;
}

static void drop_sets(void) {
    memset(P.ctx->pipelines, 0, sizeof P.ctx->pipelines);
    memset(P.ctx->narrow, 0, sizeof P.ctx->narrow);
    for (int t = 0; t < TUNINGS; t++)
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < DMLS_VK_SHADERS; i++)
                if (sets[t][k][i] != VK_NULL_HANDLE) vkDestroyPipeline(P.dev, sets[t][k][i], NULL);
}

/* The case's output under the current tuning, poisoned first, against the
 * reference's. */
static bool check(const dmls_operator *op, bufs *b) {
    begin();
    barrier();
    vkCmdFillBuffer(P.cmd, b->out.b, 0, VK_WHOLE_SIZE, 0xA5A5A5A5u);
    barrier();
    if (dmls_vulkan_record(op, P.ctx, P.cmd, b->in.b, 0, b->in_bytes, b->out.b, 0, b->out_bytes) != DMLS_OK) {
        fprintf(stderr, "vk_probe: %s\n", dmls_last_error());
        exit(1);
    }
    barrier();
    finish();
    copy(b->out.b, b->host.b, b->out_bytes);
    return memcmp(b->host.map, b->want, b->out_bytes) == 0;
}

static bool setup(const dmls_operator *op, bufs *b) {
    b->in_bytes = dmls_input_bytes(op), b->out_bytes = dmls_output_bytes(op);
    const uint64_t most = b->in_bytes > b->out_bytes ? b->in_bytes : b->out_bytes;
    b->in = make(b->in_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    b->out = make(b->out_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    b->host = make(most, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    b->want = malloc(b->out_bytes + 1);
    if (b->want == NULL) return false;
    uint64_t x = 0x9E3779B97F4A7C15ULL ^ b->in_bytes;
    for (uint64_t i = 0; i < b->in_bytes; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(b->host.map + i, &x, b->in_bytes - i < 8 ? b->in_bytes - i : 8);
    }
    memset(b->want, 0xA5, b->out_bytes);
    if (dmls_execute_reference(op, b->host.map, b->in_bytes, b->want, b->out_bytes) != DMLS_OK) return false;
    copy(b->host.b, b->in.b, b->in_bytes);
    return true;
}

static dmls_operator *copy_op(uint64_t n) {
    int64_t shape[1] = {(int64_t)n}, zero[1] = {0}, one[1] = {1};
    dmls_tensor t = {DMLS_UINT8, 1, shape, NULL, 0};
    dmls_window w = {zero, shape, one};
    dmls_operator *op = NULL;
    return dmls_create(&t, &t, &w, &op) == DMLS_OK ? op : NULL;
}

/* Case c under every tuning; ratio[t] its speed over the plain copy's. */
static void probe_case(const bench_case *c, int reps, double *ratio) {
    dmls_operator *op = NULL, *lib = NULL;
    bufs b = {0};
    if (bench_create(c, &op) != DMLS_OK || !setup(op, &b)) {
        fprintf(stderr, "vk_probe: case %s: %s\n", c->name, dmls_last_error());
        exit(1);
    }
    uint64_t n = (b.out_bytes < b.in_bytes ? b.out_bytes : b.in_bytes) / 16 * 16;
    n = n > 0 ? n : 16; /* a tiny case: the copy reads past it, within the buffers' padding */
    lib = copy_op(n);
    const job slice = {op, 0, 0, b.in.b, b.out.b, b.in_bytes, b.out_bytes};
    const job libcopy = {lib, 0, 0, b.in.b, b.out.b, n, n};
    job plain = {NULL, -1, n / 16, b.in.b, b.out.b, 0, 0};
    const double cb = timed(&plain, reps);
    printf("\n%s: %llu output bytes; copies of %llu bytes: vkCmdCopyBuffer %.4f ms (%.0f GB/s)", c->name,
           (unsigned long long)b.out_bytes, (unsigned long long)n, cb, 2e-6 * (double)n / cb);
    double pbest = 1e30;
    for (int i = 0; i < 3; i++) {
        if (P.plain[i] == VK_NULL_HANDLE) continue;
        plain.plain = i;
        const double ms = timed(&plain, reps);
        pbest = ms < pbest ? ms : pbest;
        printf("; plain wg %u x %u: %.4f ms (%.0f GB/s)", plain_tunings[i][0], plain_tunings[i][1], ms,
               2e-6 * (double)n / ms);
    }
    printf("\n");
    const dmls_vk_prepared *v = dmls_operator_prepared(op, DMLS_BACKEND_VULKAN);
    const uint32_t groups = P.ctx->max_groups;
    for (int t = 0; t < TUNINGS; t++) {
        if (tunings[t].wg > P.ctx->max_workgroup) continue;
        use(t);
        P.ctx->max_groups = tunings[t].groups ? tunings[t].groups : groups;
        const bool ok = check(op, &b);
        const double ms = timed(&slice, reps), cms = timed(&libcopy, reps);
        P.ctx->max_groups = groups;
        ratio[t] = ok ? pbest / ms * (double)b.out_bytes / (double)n : 0;
        printf("%-14s wg %4u items %u groups %5u var %u %-11s %.4f ms %6.0f GB/s  lib-copy %6.0f GB/s  "
               "vs lib-copy %.2f  vs plain %.2f  %s\n",
               c->name, tunings[t].wg, tunings[t].items, tunings[t].groups, tunings[t].variant,
               family(dmls_vk_choose(v->copy, 0, 0, UINT64_MAX)->shader), ms, 2e-6 * (double)b.out_bytes / ms,
               2e-6 * (double)n / cms, cms / ms * (double)b.out_bytes / (double)n, ratio[t],
               ok ? "ok" : "WRONG OUTPUT");
        fflush(stdout);
    }
    drop(&b.in), drop(&b.out), drop(&b.host);
    free(b.want);
    dmls_destroy(op), dmls_destroy(lib);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* Host time of 10 runs of j recorded back to back (barriers between) in
 * one submission, per run: checks the timestamps' scale. */
static double host_ms(const job *j) {
    begin();
    for (int i = 0; i < 10; i++) {
        barrier();
        record_job(j);
    }
    barrier();
    const double t0 = now_ms();
    finish();
    return (now_ms() - t0) / 10;
}

/* `vk_probe copies`: the copies of 1 GiB alone, by timestamps and by the
 * host clock: what the device moves here, apart from any slice. */
static int copies(int reps) {
    const uint64_t bytes = (uint64_t)1 << 30;
    buf in = make(bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT), out = make(bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    dmls_operator *lib = copy_op(bytes);
    for (int i = -2; i < 3; i++) {
        if (i >= 0 && P.plain[i] == VK_NULL_HANDLE) continue;
        job j = {i == -2 ? lib : NULL, i, bytes / 16, in.b, out.b, bytes, bytes};
        const double ms = timed(&j, reps), host = host_ms(&j);
        char what[64];
        if (i == -2)
            snprintf(what, sizeof what, "library copy (wg %u x %u)", P.ctx->workgroup, P.ctx->items);
        else if (i == -1)
            snprintf(what, sizeof what, "vkCmdCopyBuffer");
        else
            snprintf(what, sizeof what, "plain copy wg %u x %u", plain_tunings[i][0], plain_tunings[i][1]);
        printf("1 GiB %-28s timestamps %.4f ms (%.0f GB/s); host clock, 10 in one submit: %.4f ms (%.0f GB/s)\n",
               what, ms, 2e-6 * (double)bytes / ms, host, 2e-6 * (double)bytes / host);
        fflush(stdout);
    }
    dmls_destroy(lib);
    drop(&in), drop(&out);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "copies") == 0) {
        open_device();
        const int r = copies(15);
        for (int i = 0; i < 3; i++)
            if (P.plain[i] != VK_NULL_HANDLE) vkDestroyPipeline(P.dev, P.plain[i], NULL);
        vkDestroyQueryPool(P.dev, P.queries, NULL);
        vkDestroyFence(P.dev, P.fence, NULL);
        vkDestroyCommandPool(P.dev, P.pool, NULL);
        dmls_vulkan_context_destroy(P.ctx);
        return r;
    }
    const int reps = argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) <= 256 ? atoi(argv[1]) : 15;
    open_device();
    bench_case *cases = NULL;
    int n = 0;
    char err[256] = "";
    if (bench_read_cases(argc > 2 ? argv[2] : DMLS_CASES_JSON, &cases, &n, err, sizeof err) != 0) {
        fprintf(stderr, "vk_probe: %s\n", err);
        return 1;
    }
    static double ratio[64][TUNINGS];
    build_sets();
    for (int i = 0; i < n && i < 64; i++) probe_case(&cases[i], reps, ratio[i]);
    printf("\nper tuning, over the cases: geometric mean of the ratio to the plain copy, and the worst case\n");
    for (int t = 0; t < TUNINGS; t++) {
        double log_sum = 0, worst = 1e9;
        for (int i = 0; i < n && i < 64; i++) {
            log_sum += log(ratio[i][t] > 0 ? ratio[i][t] : 1e-9);
            worst = ratio[i][t] < worst ? ratio[i][t] : worst;
        }
        printf("wg %4u items %u groups %5u var %u: geomean %.3f, worst %.3f\n", tunings[t].wg, tunings[t].items,
               tunings[t].groups, tunings[t].variant, exp(log_sum / n), worst);
    }
    free(cases);
    drop_sets();
    for (int i = 0; i < 3; i++)
        if (P.plain[i] != VK_NULL_HANDLE) vkDestroyPipeline(P.dev, P.plain[i], NULL);
    vkDestroyQueryPool(P.dev, P.queries, NULL);
    vkDestroyFence(P.dev, P.fence, NULL);
    vkDestroyCommandPool(P.dev, P.pool, NULL);
    dmls_vulkan_context_destroy(P.ctx);
    return 0;
}
