/* The Vulkan context (dmlslice_vulkan.h's dmls_vulkan_context): the device,
 * its limits as execute uses them, the pipelines, and the command buffer and
 * fence of the library's own submit path. Internal: tests may lower
 * max_range, max_groups and max_items to exercise the splitting and the
 * grid loops on small tensors, and narrow_below to run the tuned pipelines
 * on them. */
#ifndef DMLS_VULKAN_CONTEXT_H
#define DMLS_VULKAN_CONTEXT_H

#include <stdatomic.h>

#include "../platform/platform.h"
#include "vk.h" /* before the public header: volk's names, in a build with volk */
#include "dmlslice/dmlslice_vulkan.h"
#include "launch.h"

struct dmls_vulkan_context {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    uint32_t family;
    VkQueue queue;
    int owns_device; /* 1: instance and device are the library's (dmls_vulkan_context_create) */
    VkDebugUtilsMessengerEXT messenger;
    _Atomic uint64_t messages; /* validation messages seen */
    /* Limits: a binding's byte range at most max_range, its offset a
     * multiple of bind_align (minStorageBufferOffsetAlignment, at least 16
     * so that units of 16 bytes line up), at most max_groups workgroups. */
    uint64_t max_range;
    uint64_t bind_align;
    uint32_t max_groups;
    uint64_t max_items;     /* items per dispatch: below 2^31, where the walks' multipliers are exact */
    uint32_t max_workgroup; /* maxComputeWorkGroupSize[0] within maxComputeWorkGroupInvocations */
    /* The tuning the pipelines were built with (launch.h): invocations per
     * workgroup, items per invocation of the walking shaders. */
    uint32_t workgroup, items;
    /* Shader variants (specialization constant 3, DMLS_VK_VARIANT_*), 0 by
     * default: set before dmls_vk_tune so that a probe can compare them. */
    uint32_t variant;
    /* tile.comp's tiles a workgroup and its invocations (launch.h:
     * DMLS_VK_MAX_TILES), the device's choice at dmls_vk_build or the
     * environment's; set before dmls_vk_tune, as variant. max_shared:
     * maxComputeSharedMemorySize, which tiles * DMLS_VK_TILE_BYTES meets. */
    uint32_t tiles, tile_workgroup, max_shared;
    uint64_t narrow_below; /* dispatches of fewer items run ctx->narrow (DMLS_VK_NARROW_TILES tiles) */
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    /* Each pipeline is made on its first use (dmls_vk_pipelines_for, under
     * pipe_lock): a run compiles only the shaders it records, and those
     * through cache, kept on disk (pipeline_cache.c), so that a later
     * process finds them compiled. A slot once set stays until
     * dmls_vk_tune or the context's end. */
    VkPipeline pipelines[DMLS_VK_SHADERS];
    VkPipeline narrow[DMLS_VK_SHADERS]; /* the walking shaders at 1 item per invocation: small dispatches */
    dmls_mutex pipe_lock;
    int has_pipe_lock;
    VkPipelineCache cache;
    char *cache_path;      /* the cache's file; NULL: none read or written */
    int cache_state;       /* DMLS_VK_CACHE_* (pipeline_cache.h) */
    uint64_t cache_sum;    /* the loaded data's checksum and length: unchanged data is not written back */
    size_t cache_bytes;
    _Atomic uint32_t made; /* pipelines made with this context */
    /* The batch shaders (walk.glsl's BATCH form), made when a batch is
     * first prepared (dmls_vk_batch_pipeline, under lock): [0] tuned, [1]
     * at 1 item per invocation; their layout adds the table (binding 2)
     * and crops' bound starts (binding 3). */
    VkDescriptorSetLayout batch_set_layout;
    VkPipelineLayout batch_layout;
    /* The slots a batch dispatch binds on each side: DMLS_VK_BATCH_SLOTS
     * where the device takes the multi-slot form's storage buffers in one
     * stage (pipelines.c: read_limits), else 1, the single-slot form (a
     * dispatch per pair of slots). The tests lower it, before the
     * context's first batch is prepared (the batch layout is made then):
     * 1 for the single-slot form, 2..7 for fewer slots of the multi-slot
     * one. */
    uint32_t batch_slots;
    VkPipeline batch_pipelines[2][DMLS_VK_SHADERS];
    PFN_vkCmdPushDescriptorSetKHR push_descriptors;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    dmls_mutex lock;               /* dmls_vulkan_execute: one submit at a time on cmd and fence; batches below */
    struct dmls_vk_batch *batches; /* the tables of batches prepared with ctx (batch_table.c), under lock */
    int has_lock;    /* lock was initialised */
};

/* Builds the layouts, the pipeline cache and the submit objects of ctx,
 * whose device fields are set (context.c, pipelines.c); no pipeline yet. */
dmls_status dmls_vk_build(dmls_vulkan_context *ctx);
void dmls_vk_release(dmls_vulkan_context *ctx);

/* Makes, where not made yet, the pipelines that phase `phase` of op
 * records at these offsets (dmls_vk_record_phase), under ctx->pipe_lock:
 * called before recording, so that a pipeline that cannot be made is an
 * error at record with nothing recorded. ctx is the library's own heap
 * object: its pipeline slots fill in behind the const of a recording
 * (execute.c). */
dmls_status dmls_vk_pipelines_for(const dmls_vulkan_context *ctx, const dmls_operator *op, int phase,
                                  uint64_t in_offset, uint64_t out_offset);

/* The pipeline of shader `shader` (narrow: 1 item per invocation), made
 * now where it is not yet, under ctx->pipe_lock (pipelines.c). */
dmls_status dmls_vk_pipeline(dmls_vulkan_context *ctx, int shader, bool narrow);

/* The storage buffers each side of a batch dispatch binds: the
 * multi-slot form's array, or one. */
static inline uint32_t dmls_vk_batch_bindings(const dmls_vulkan_context *ctx) {
    return ctx->batch_slots > 1 ? DMLS_VK_BATCH_SLOTS : 1;
}

/* Makes ctx's batch pipeline for a walking shader (narrow: 1 item per
 * invocation), and the batch layout, where they are not made yet; the
 * caller holds ctx->lock. */
dmls_status dmls_vk_batch_pipeline(dmls_vulkan_context *ctx, int shader, bool narrow);

/* A compute pipeline of SPIR-V code (bytes long, entry "main") with spec's
 * constants over layout, through cache (VK_NULL_HANDLE: none); the shader
 * module is destroyed before it returns. On failure *failed (when not NULL)
 * names the call that failed, for the message. The library's pipelines and
 * the developer probes (bench/probes) are made so. */
VkResult dmls_vk_compute_pipeline(VkDevice device, VkPipelineCache cache, const uint32_t *code, size_t bytes,
                                  const VkSpecializationInfo *spec, VkPipelineLayout layout, VkPipeline *out,
                                  const char **failed);

/* Rebuilds the pipelines of ctx with another tuning (workgroup
 * 1..max_workgroup invocations, items 1..DMLS_VK_MAX_ITEMS), all of them
 * at once: for the developer probe (bench/probes/vk_probe.c, which swaps
 * whole sets) and the tests, while nothing records with ctx. On failure
 * ctx has no pipelines left: destroy it. */
dmls_status dmls_vk_tune(dmls_vulkan_context *ctx, uint32_t workgroup, uint32_t items);
/* Whether tile.comp can run `tiles` tiles a workgroup of `workgroup`
 * invocations on ctx's device (DMLS_ERROR_INVALID_ARGUMENT, naming both,
 * where not): dmls_vk_tune checks ctx->tiles and ctx->tile_workgroup. */
dmls_status dmls_vk_check_tiles(const dmls_vulkan_context *ctx, uint32_t tiles, uint32_t workgroup);

/* The Vulkan API loaded at run time (a build with volk): the loader, once
 * per process (DMLS_ERROR_NO_DEVICE naming it when there is none), and
 * the functions of the first instance seen (the loader's entry points,
 * which serve every instance and device). Without volk: DMLS_OK, nothing. */
dmls_status dmls_vk_load(void);
void dmls_vk_load_instance(VkInstance instance);

/* Records phase `phase` of op (0: SLICE_GRAD's zero fill, nothing for
 * other operators; 1: the copy) with its tensors at the given buffers and
 * offsets, bindings already checked, with barriers between its own
 * dispatches only (execute.c). Returns the dispatches recorded. */
int dmls_vk_record_phase(const dmls_vulkan_context *ctx, VkCommandBuffer cmd, const dmls_operator *op, int phase,
                         VkBuffer in, uint64_t in_offset, VkBuffer out, uint64_t out_offset);

/* Pushes n (at most 4) storage buffers as bindings 0.. of set 0 of layout
 * (execute.c). */
void dmls_vk_push_buffers(const dmls_vulkan_context *ctx, VkCommandBuffer cmd, VkPipelineLayout layout,
                          const VkDescriptorBufferInfo *buffers, uint32_t n);

/* A binding over [lo, hi) of a buffer: its start rounded down to the
 * device's offset alignment, its end up to a whole word (execute.c). */
void dmls_vk_binding_range(const dmls_vulkan_context *ctx, int64_t lo, int64_t hi, uint64_t *start, uint64_t *range);

/* The walking shaders' push constants for L at binding-relative positions
 * src and dst (in the shader's units): each level's step folds the inner
 * coordinate back out (launch.h). */
void dmls_vk_walk_params(const dmls_vk_launch *L, uint32_t src, uint32_t dst, dmls_vk_walk *p);

/* The most bytes one launch's side may span: what a binding holds from an
 * aligned start to a whole word (dmls_vk_choose's reach). */
uint64_t dmls_vk_reach(const dmls_vulkan_context *ctx);

/* A compute-to-compute barrier: shader writes before, reads and writes after. */
void dmls_vk_barrier(VkCommandBuffer cmd);

/* Records into the context's own command buffer (execute.c's submit). */
typedef dmls_status (*dmls_vk_recording)(const void *arg, const dmls_vulkan_context *ctx, VkCommandBuffer cmd);

/* Under ctx->lock: resets ctx's command buffer, records with record(arg),
 * submits to ctx's queue and waits on ctx's fence; the output visible to
 * the host after. name prefixes messages. */
dmls_status dmls_vk_submit(dmls_vulkan_context *ctx, const char *name, dmls_vk_recording record, const void *arg);

/* Copies bytes from src at src_offset to dst at dst_offset (buffers made
 * with the transfer usages), submitted and waited for, ordered after the
 * context's earlier work and before its later work and host reads: the
 * staged uploads and downloads (a batch's table, a device's transfers). */
dmls_status dmls_vk_copy_buffer(dmls_vulkan_context *ctx, const char *name, VkBuffer src, uint64_t src_offset,
                                VkBuffer dst, uint64_t dst_offset, uint64_t bytes);

/* A VkBuffer as the binding checks' space (bindings.h), and how their
 * messages name its places: offsets into a "VkBuffer" (execute.c). */
uint64_t dmls_vk_space_of(VkBuffer b);
extern const struct dmls_place_words dmls_vk_words;

/* "VK_ERROR_OUT_OF_DEVICE_MEMORY" or the number, for messages. */
const char *dmls_vk_result_name(VkResult r);

#endif
