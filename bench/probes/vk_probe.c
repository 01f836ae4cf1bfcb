/* The Vulkan shader tuning probe (issue 25): every canonical case under
 * each tuning of the pipelines (dmls_vk_tune: workgroup size x items per
 * invocation, and two capped grids), its output checked against the
 * reference executor under every tuning, timed as `dmlslice bench
 * --device vulkan` times (tools/bench/vulkan_run.h: timestamps, the reps
 * back to back after a warm-up burst, so the clock is up; its device,
 * buffers and bursts are this probe's too) in device-local buffers beside
 * the library's 16-byte copy of the same bytes
 * (a 1-D identity slice) and beside a plain copy shader outside the library
 * (vk_plain_copy.comp). One line per case and tuning (var: the shader
 * variants, launch.h DMLS_VK_VARIANT_*):
 *   case tuning family ms GB/s ratio-to-library-copy ratio-to-plain-copy ok
 * GB/s counts 2 x output bytes. Run by hand on the GPU machine:
 *   build/bench/probes/vk_probe [reps [cases.json]] > probe.txt
 *   build/bench/probes/vk_probe copies     (1 GiB copies only, see copies()) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/operator.h"
#include "../../src/vulkan/context.h"
#include "cases.h"
#include "vk_plain_copy.h" /* generated: dmls_vk_spv_plain_copy */
#include "vulkan_run.h"    /* the tool's bench: its device (vkb), buffers, bursts and timing */

#define VK(call)                                                                                                       \
    do {                                                                                                               \
        const VkResult r_ = (call);                                                                                    \
        if (r_ != VK_SUCCESS) {                                                                                        \
            fprintf(stderr, "vk_probe: %s returned %d\n", #call, (int)r_);                                             \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static VkPipeline plain[3]; /* plain_tunings */

/* A buffer of at least 16 bytes (a tiny case's copy reads one whole
 * vector, within the padding), or exit. */
static vk_buffer make(uint64_t bytes, VkMemoryPropertyFlags want) {
    vk_buffer r;
    if (!vkb_make_buffer(bytes < 16 ? 16 : bytes, want, &r)) exit(1);
    return r;
}

static void drop(vk_buffer *b) {
    vkb_free_buffer(b);
    memset(b, 0, sizeof *b);
}

static void submit(const vk_work *w) {
    if (!vkb_submit(w)) {
        fprintf(stderr, "vk_probe: %s\n", dmls_last_error());
        exit(1);
    }
}

static void copy(VkBuffer from, VkBuffer to, uint64_t bytes) {
    if (bytes) submit(&(vk_work){.copy = true, .src = from, .dst = to, .src_bytes = bytes});
}

/* The plain copy's tunings: workgroup size, vectors per invocation. */
static const uint32_t plain_tunings[3][2] = {{256, 1}, {1024, 1}, {256, 4}};

/* The plain copy of n vectors from in to out with pipeline plain[which]. */
typedef struct plain_job {
    int which;
    uint64_t n;
    VkBuffer in, out;
} plain_job;

static void record_plain(const void *arg) {
    const plain_job *j = arg;
    VkDescriptorBufferInfo bi[2] = {{j->in, 0, j->n * 16}, {j->out, 0, j->n * 16}};
    VkWriteDescriptorSet w[2];
    memset(w, 0, sizeof w);
    for (uint32_t i = 0; i < 2; i++) {
        w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[i].dstBinding = i, w[i].descriptorCount = 1;
        w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = &bi[i];
    }
    vkCmdBindPipeline(vkb.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, plain[j->which]);
    vkb.ctx->push_descriptors(vkb.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vkb.ctx->layout, 0, 2, w);
    const uint32_t n = (uint32_t)j->n;
    const uint64_t tile = (uint64_t)plain_tunings[j->which][0] * plain_tunings[j->which][1];
    vkCmdPushConstants(vkb.cmd, vkb.ctx->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &n);
    const uint64_t groups = (j->n + tile - 1) / tile;
    if (groups == 0) return;
    const uint32_t x = groups < 65535 ? (uint32_t)groups : 65535;
    vkCmdDispatch(vkb.cmd, x, (uint32_t)((groups + x - 1) / x), 1);
}

/* Median ms of reps (<= 256) runs of w back to back after the warm-up
 * burst, in the steady state (vkb_time_work: the bench's own timing). */
static double timed(const vk_work *w, int reps) {
    double t[256];
    const double ms = vkb_time_work(*w, reps, t);
    if (ms < 0) {
        fprintf(stderr, "vk_probe: %s\n", dmls_last_error());
        exit(1);
    }
    return ms;
}

static VkPipeline plain_pipeline(const uint32_t *tuning) {
    const VkSpecializationMapEntry e[2] = {{0, 0, 4}, {1, 4, 4}};
    const VkSpecializationInfo spec = {2, e, 8, tuning};
    VkPipeline pipe;
    VK(dmls_vk_compute_pipeline(vkb.dev, VK_NULL_HANDLE, dmls_vk_spv_plain_copy, sizeof dmls_vk_spv_plain_copy,
                                &spec, vkb.ctx->layout, &pipe, NULL));
    return pipe;
}

static void open_device(void) {
    if (!bench_vulkan_open(0, false, false)) exit(77);
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(vkb.phys, &p);
    printf("device: %s, Vulkan %u.%u.%u, maxStorageBufferRange %u, maxComputeWorkGroupCount[0] %u, "
           "maxPushConstantsSize %u\n",
           p.deviceName, VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion),
           VK_API_VERSION_PATCH(p.apiVersion), p.limits.maxStorageBufferRange, p.limits.maxComputeWorkGroupCount[0],
           p.limits.maxPushConstantsSize);
    for (int i = 0; i < 3; i++)
        if (plain_tunings[i][0] <= vkb.ctx->max_workgroup) plain[i] = plain_pipeline(plain_tunings[i]);
}

static void close_device(void) {
    for (int i = 0; i < 3; i++)
        if (plain[i] != VK_NULL_HANDLE) vkDestroyPipeline(vkb.dev, plain[i], NULL);
    bench_vulkan_close();
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
    vk_buffer in, out, host;
    uint64_t in_bytes, out_bytes;
    unsigned char *want;
} bufs;

/* Every tuning's pipelines, built once (the driver compiles each tuning
 * once rather than once per case): dmls_vk_tune builds them into the
 * context, which then lets go of them; use() puts a set back. */
static VkPipeline sets[TUNINGS][2][DMLS_VK_SHADERS];

static void build_sets(void) {
    for (int t = 0; t < TUNINGS; t++) {
        if (tunings[t].wg > vkb.ctx->max_workgroup) continue;
        vkb.ctx->variant = tunings[t].variant;
        if (dmls_vk_tune(vkb.ctx, tunings[t].wg, tunings[t].items) != DMLS_OK) {
            fprintf(stderr, "vk_probe: %s\n", dmls_last_error());
            exit(1);
        }
        memcpy(sets[t][0], vkb.ctx->pipelines, sizeof sets[t][0]);
        memcpy(sets[t][1], vkb.ctx->narrow, sizeof sets[t][1]);
        memset(vkb.ctx->pipelines, 0, sizeof vkb.ctx->pipelines);
        memset(vkb.ctx->narrow, 0, sizeof vkb.ctx->narrow);
    }
    vkb.ctx->variant = 0;
}

static void use(int t) {
    memcpy(vkb.ctx->pipelines, sets[t][0], sizeof sets[t][0]);
    memcpy(vkb.ctx->narrow, sets[t][1], sizeof sets[t][1]);
    vkb.ctx->workgroup = tunings[t].wg, vkb.ctx->items = tunings[t].items, vkb.ctx->variant = tunings[t].variant;
}

static void drop_sets(void) {
    memset(vkb.ctx->pipelines, 0, sizeof vkb.ctx->pipelines);
    memset(vkb.ctx->narrow, 0, sizeof vkb.ctx->narrow);
    for (int t = 0; t < TUNINGS; t++)
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < DMLS_VK_SHADERS; i++)
                if (sets[t][k][i] != VK_NULL_HANDLE) vkDestroyPipeline(vkb.dev, sets[t][k][i], NULL);
}

/* The case's output under the current tuning, poisoned first, against the
 * reference's. */
static void poison(const void *arg) { vkCmdFillBuffer(vkb.cmd, *(const VkBuffer *)arg, 0, VK_WHOLE_SIZE, 0xA5A5A5A5u); }

static bool check(const dmls_operator *op, bufs *b) {
    submit(&(vk_work){.record = poison, .arg = &b->out.buffer});
    submit(&(vk_work){.op = op, .src = b->in.buffer, .dst = b->out.buffer, .src_bytes = b->in_bytes,
                      .dst_bytes = b->out_bytes});
    copy(b->out.buffer, b->host.buffer, b->out_bytes);
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
        memcpy((unsigned char *)b->host.map + i, &x, b->in_bytes - i < 8 ? b->in_bytes - i : 8);
    }
    memset(b->want, 0xA5, b->out_bytes);
    if (dmls_execute_reference(op, b->host.map, b->in_bytes, b->want, b->out_bytes) != DMLS_OK) return false;
    copy(b->host.buffer, b->in.buffer, b->in_bytes);
    return true;
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
    lib = vkb_copy_op(n);
    const vk_work slice = {.op = op, .src = b.in.buffer, .dst = b.out.buffer, .src_bytes = b.in_bytes,
                           .dst_bytes = b.out_bytes};
    const vk_work libcopy = {.op = lib, .src = b.in.buffer, .dst = b.out.buffer, .src_bytes = n, .dst_bytes = n};
    const double cb = timed(&(vk_work){.copy = true, .src = b.in.buffer, .dst = b.out.buffer, .src_bytes = n}, reps);
    plain_job pj = {0, n / 16, b.in.buffer, b.out.buffer};
    printf("\n%s: %llu output bytes; copies of %llu bytes: vkCmdCopyBuffer %.4f ms (%.0f GB/s)", c->name,
           (unsigned long long)b.out_bytes, (unsigned long long)n, cb, 2e-6 * (double)n / cb);
    double pbest = 1e30;
    for (int i = 0; i < 3; i++) {
        if (plain[i] == VK_NULL_HANDLE) continue;
        pj.which = i;
        const double ms = timed(&(vk_work){.record = record_plain, .arg = &pj}, reps);
        pbest = ms < pbest ? ms : pbest;
        printf("; plain wg %u x %u: %.4f ms (%.0f GB/s)", plain_tunings[i][0], plain_tunings[i][1], ms,
               2e-6 * (double)n / ms);
    }
    printf("\n");
    const dmls_vk_prepared *v = dmls_operator_prepared(op, DMLS_BACKEND_VULKAN);
    const uint32_t groups = vkb.ctx->max_groups;
    for (int t = 0; t < TUNINGS; t++) {
        if (tunings[t].wg > vkb.ctx->max_workgroup) continue;
        use(t);
        vkb.ctx->max_groups = tunings[t].groups ? tunings[t].groups : groups;
        const bool ok = check(op, &b);
        const double ms = timed(&slice, reps), cms = timed(&libcopy, reps);
        vkb.ctx->max_groups = groups;
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

/* Host time of 10 runs of w back to back (barriers between) in one
 * submission, per run: checks the timestamps' scale (the recording counted
 * in: microseconds beside a 1 GiB copy). */
static double host_ms(const vk_work *w) {
    const double t0 = bench_now();
    if (!vkb_submit_burst(w, 10, 0, NULL)) exit(1);
    return (bench_now() - t0) * 1e3 / 10;
}

/* `vk_probe copies`: the copies of 1 GiB alone, by timestamps and by the
 * host clock: what the device moves here, apart from any slice. */
static int copies(int reps) {
    const uint64_t bytes = (uint64_t)1 << 30;
    vk_buffer in = make(bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT), out = make(bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    dmls_operator *lib = vkb_copy_op(bytes);
    for (int i = -2; i < 3; i++) {
        if (i >= 0 && plain[i] == VK_NULL_HANDLE) continue;
        const plain_job pj = {i, bytes / 16, in.buffer, out.buffer};
        vk_work w = {.src = in.buffer, .dst = out.buffer, .src_bytes = bytes, .dst_bytes = bytes};
        if (i == -2) w.op = lib;
        else if (i == -1) w.copy = true;
        else w.record = record_plain, w.arg = &pj;
        const double ms = timed(&w, reps), host = host_ms(&w);
        char what[64];
        if (i == -2)
            snprintf(what, sizeof what, "library copy (wg %u x %u)", vkb.ctx->workgroup, vkb.ctx->items);
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
        close_device();
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
    close_device();
    return 0;
}
