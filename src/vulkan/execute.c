/* Recording and submitting an operator: the binding checks (R-X-*, on the
 * caller's offsets and byte counts), the choice of launch, the split of
 * work that exceeds one binding, and the dispatches. */
#include <string.h>

#include "../bindings.h"
#include "../error.h"
#include "../operator.h"
#include "context.h"

/* The operator's Vulkan launches, from the backend table (backend.h). */
static const dmls_vk_prepared *prepared(const dmls_operator *op) {
    return dmls_operator_prepared(op, DMLS_BACKEND_VULKAN);
}

/* A VkBuffer handle as a number: the space its bytes lie in. */
uint64_t dmls_vk_space_of(VkBuffer b) {
    uint64_t h = 0;
    memcpy(&h, &b, sizeof b < sizeof h ? sizeof b : sizeof h);
    return h;
}

const dmls_place_words dmls_vk_words = {true, "VkBuffer", "VK_NULL_HANDLE"};

/* R-OP-NULL, R-X-BOUNDS, R-X-ALIGN and R-X-OVERLAP on a VkBuffer binding
 * (bindings.c's checks, on offsets; overlap only within one VkBuffer). */
static dmls_status check_binding(const dmls_operator *op, VkBuffer in, uint64_t in_offset, uint64_t in_bytes,
                                 VkBuffer out, uint64_t out_offset, uint64_t out_bytes) {
    const dmls_place i = {dmls_vk_space_of(in), in_offset, in_bytes, in != VK_NULL_HANDLE};
    const dmls_place o = {dmls_vk_space_of(out), out_offset, out_bytes, out != VK_NULL_HANDLE};
    return dmls_check_places(op, &i, &o, &dmls_vk_words);
}

/* One launch's recording: its buffers, the dispatches it has made (a
 * barrier goes between two of them, as a later one may rewrite a word an
 * earlier one wrote). With `making` the same walk records nothing and makes
 * the pipelines the dispatches would bind (dmls_vk_pipelines_for). */
typedef struct recorder {
    const dmls_vulkan_context *ctx;
    VkCommandBuffer cmd;
    VkBuffer src, dst;
    int dispatches;
    bool making;
    dmls_status made; /* the first failure to make a pipeline */
} recorder;

static void barrier(VkCommandBuffer cmd) {
    VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b,
                         0, NULL, 0, NULL);
}

void dmls_vk_binding_range(const dmls_vulkan_context *ctx, int64_t lo, int64_t hi, uint64_t *start, uint64_t *range) {
    *start = (uint64_t)lo / ctx->bind_align * ctx->bind_align;
    *range = ((uint64_t)hi + 3) / 4 * 4 - *start;
}

void dmls_vk_push_buffers(const dmls_vulkan_context *ctx, VkCommandBuffer cmd, VkPipelineLayout layout,
                          const VkDescriptorBufferInfo *buffers, uint32_t n) {
    VkWriteDescriptorSet w[4];
    memset(w, 0, sizeof w);
    for (uint32_t i = 0; i < n && i < 4; i++) {
        w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[i].dstBinding = i, w[i].descriptorCount = 1;
        w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = &buffers[i];
    }
    ctx->push_descriptors(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, n < 4 ? n : 4, w);
}

/* bytes.comp's push constants for L at binding-relative byte positions
 * src and dst; `words` items from dst's word on. */
static void bytes_params(const dmls_vk_launch *L, uint32_t src, uint32_t dst, uint32_t words, dmls_vk_params *p) {
    memset(p, 0, sizeof *p);
    p->ndim = (uint32_t)L->ndim, p->flags = L->fill ? DMLS_VK_FILL : 0, p->esize = (uint32_t)L->unit;
    p->src_base = src, p->dst_base = dst, p->count = words;
    for (int i = 0; i < L->ndim; i++) {
        p->shape[i] = (uint32_t)L->shape[i];
        p->src_stride[i] = (uint32_t)(uint64_t)L->src_stride[i]; /* negative: wraps, as the shader does */
        p->dst_stride[i] = (uint32_t)L->dst_stride[i];
    }
}

void dmls_vk_walk_params(const dmls_vk_launch *L, uint32_t src, uint32_t dst, dmls_vk_walk *p) {
    memset(p, 0, sizeof *p);
    const int64_t su = L->src_unit, du = L->unit;
    p->count = (uint32_t)dmls_vk_items(L);
    p->info = (uint32_t)L->ndim | (L->fill ? DMLS_VK_WALK_FILL : 0);
    p->src_base = src, p->dst_base = dst;
    for (int k = 0; k < L->ndim; k++) {
        uint64_t s = (uint64_t)(L->src_stride[k] / su), d = (uint64_t)(L->dst_stride[k] / du);
        if (k > 0) {
            s -= (uint64_t)L->shape[k - 1] * (uint64_t)(L->src_stride[k - 1] / su);
            d -= (uint64_t)L->shape[k - 1] * (uint64_t)(L->dst_stride[k - 1] / du);
            p->magic[k - 1] = L->magic[k - 1];
            p->shifts[(k - 1) / 4] |= L->shift[k - 1] << ((k - 1) % 4 * 8);
        }
        p->src_step[k] = (uint32_t)s, p->dst_step[k] = (uint32_t)d;
    }
    p->run = (uint32_t)L->run, p->step = (uint32_t)L->step;
    p->row_step = (uint32_t)(uint64_t)(L->row - L->run * L->step);
}

/* Records L with its first element at byte positions src and dst, whose
 * spans fit one binding each. */
static void dispatch(recorder *r, const dmls_vk_launch *L, int64_t src, int64_t dst) {
    const dmls_vulkan_context *ctx = r->ctx;
    const uint64_t items = dmls_vk_items(L), tile = (uint64_t)ctx->workgroup * ctx->items;
    const bool narrow = L->shader != DMLS_VK_BYTES && items < ctx->narrow_below;
    if (r->making) {
        /* The context is the library's own heap object (context.c), never
         * a const one: its pipeline slots fill in under pipe_lock. */
        if (r->made == DMLS_OK) r->made = dmls_vk_pipeline((dmls_vulkan_context *)ctx, L->shader, narrow);
        return;
    }
    int64_t slo, shi, dlo, dhi;
    dmls_vk_span(L, false, src, &slo, &shi);
    dmls_vk_span(L, true, dst, &dlo, &dhi);
    if (L->fill) slo = dlo, shi = dhi; /* unread, but bound: the destination again */
    uint64_t s0, sn, d0, dn;
    dmls_vk_binding_range(ctx, slo, shi, &s0, &sn);
    dmls_vk_binding_range(ctx, dlo, dhi, &d0, &dn);
    const VkDescriptorBufferInfo bi[2] = {{L->fill ? r->dst : r->src, s0, sn}, {r->dst, d0, dn}};
    if (r->dispatches++ > 0) barrier(r->cmd);
    vkCmdBindPipeline(r->cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                      narrow ? ctx->narrow[L->shader] : ctx->pipelines[L->shader]);
    dmls_vk_push_buffers(ctx, r->cmd, ctx->layout, bi, 2);
    uint64_t groups;
    if (L->shader == DMLS_VK_BYTES) {
        /* One item per destination word from the first element's. */
        const uint32_t words = (uint32_t)((d0 + dn) / 4 - (uint64_t)dst / 4);
        dmls_vk_params p;
        bytes_params(L, (uint32_t)((uint64_t)src - s0), (uint32_t)((uint64_t)dst - d0), words, &p);
        vkCmdPushConstants(r->cmd, ctx->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
        groups = ((uint64_t)words + ctx->workgroup - 1) / ctx->workgroup;
    } else {
        dmls_vk_walk p;
        dmls_vk_walk_params(L, (uint32_t)(((uint64_t)src - s0) / (uint64_t)L->src_unit),
                            (uint32_t)(((uint64_t)dst - d0) / (uint64_t)L->unit), &p);
        vkCmdPushConstants(r->cmd, ctx->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
        const uint64_t per_group = dmls_vk_is_tile(L->shader) ? ctx->tiles : narrow ? ctx->workgroup : tile;
        groups = (items + per_group - 1) / per_group;
    }
    vkCmdDispatch(r->cmd, (uint32_t)(groups < ctx->max_groups ? groups : ctx->max_groups), 1, 1);
}

/* Whether both sides of L fit one binding, with at most max_items items
 * (below 2^31, where the walking shaders' multipliers are exact). */
static bool fits(const dmls_vulkan_context *ctx, const dmls_vk_launch *L, int64_t src, int64_t dst) {
    if (dmls_vk_items(L) > ctx->max_items) return false;
    int64_t lo, hi;
    uint64_t start, range;
    dmls_vk_span(L, true, dst, &lo, &hi);
    dmls_vk_binding_range(ctx, lo, hi, &start, &range);
    if (range > ctx->max_range) return false;
    if (L->fill) return true;
    dmls_vk_span(L, false, src, &lo, &hi);
    dmls_vk_binding_range(ctx, lo, hi, &start, &range);
    return range <= ctx->max_range;
}

/* Records L, halving its outermost dim (or dropping it at size 1) until
 * each piece fits a binding (SPEC.md section 8: limits split work, they
 * never refuse it). Positions inside one binding then fit 32 bits, and
 * item indices 31. */
static void record_split(recorder *r, dmls_vk_launch L, int64_t src, int64_t dst) {
    if (fits(r->ctx, &L, src, dst)) {
        dispatch(r, &L, src, dst);
        return;
    }
    const bool tiled = dmls_vk_is_tile(L.shader);
    /* A tile launch keeps its two tile dims (a single tile fits: prepare.c
     * and dmls_vk_choose): past its outer dims it splits the A tiles. */
    const int o = tiled && L.ndim == 2 && L.shape[1] == 1 ? 0 : L.ndim - 1;
    if (L.shape[o] == 1) { /* only reached with ndim > 1: one element fits any binding */
        L.ndim--;
        record_split(r, L, src, dst);
        return;
    }
    const int64_t half = L.shape[o] / 2;
    dmls_vk_launch rest = L;
    L.shape[o] = half;
    rest.shape[o] -= half;
    if (tiled && o < 2) { /* the extent of A or B that each part covers */
        int64_t *n = o == 0 ? &L.run : &L.step, *m = o == 0 ? &rest.run : &rest.step;
        const int64_t covered = half * (o == 0 ? dmls_vk_tile_a(L.esize) : dmls_vk_tile_b(L.esize));
        *n = covered, *m -= covered;
        /* Dim 0 divides the item index when dims follow it. */
        dmls_vk_magic((uint64_t)L.shape[o], &L.magic[o], &L.shift[o]);
        dmls_vk_magic((uint64_t)rest.shape[o], &rest.magic[o], &rest.shift[o]);
    }
    record_split(r, L, src, dst);
    record_split(r, rest, src + half * rest.src_stride[o], dst + half * rest.dst_stride[o]);
}

uint64_t dmls_vk_reach(const dmls_vulkan_context *ctx) {
    return ctx->max_range > ctx->bind_align + 4 ? ctx->max_range - ctx->bind_align - 4 : 0;
}

/* Walks phase `phase` of op at these offsets through r. */
static void walk_phase(recorder *r, const dmls_operator *op, int phase, uint64_t in_offset, uint64_t out_offset) {
    const dmls_vk_prepared *v = prepared(op);
    if (phase == 0) {
        if (!v->zero_fill) return;
        const dmls_vk_launch *F = dmls_vk_choose(v->fill, out_offset, out_offset, dmls_vk_reach(r->ctx));
        if (F->shader != DMLS_VK_NOTHING)
            record_split(r, *F, (int64_t)out_offset, (int64_t)(out_offset + (uint64_t)F->dst_offset));
        return;
    }
    const dmls_vk_launch *L = dmls_vk_choose(v->copy, in_offset, out_offset, dmls_vk_reach(r->ctx));
    if (L->shader != DMLS_VK_NOTHING)
        record_split(r, *L, (int64_t)(in_offset + (uint64_t)L->src_offset),
                     (int64_t)(out_offset + (uint64_t)L->dst_offset));
}

dmls_status dmls_vk_pipelines_for(const dmls_vulkan_context *ctx, const dmls_operator *op, int phase,
                                  uint64_t in_offset, uint64_t out_offset) {
    recorder r = {ctx, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, 0, true, DMLS_OK};
    walk_phase(&r, op, phase, in_offset, out_offset);
    return r.made;
}

int dmls_vk_record_phase(const dmls_vulkan_context *ctx, VkCommandBuffer cmd, const dmls_operator *op, int phase,
                         VkBuffer in, uint64_t in_offset, VkBuffer out, uint64_t out_offset) {
    recorder r = {ctx, cmd, in, out, 0, false, DMLS_OK};
    walk_phase(&r, op, phase, in_offset, out_offset);
    return r.dispatches;
}

void dmls_vk_barrier(VkCommandBuffer cmd) { barrier(cmd); }

dmls_status dmls_vulkan_record(const dmls_operator *op, const dmls_vulkan_context *ctx, VkCommandBuffer cmd,
                               VkBuffer in, uint64_t in_offset, uint64_t in_bytes, VkBuffer out, uint64_t out_offset,
                               uint64_t out_bytes) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "vulkan_record: operator is NULL");
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: Vulkan context is NULL", op->problem.name);
    RETURN_IF(cmd == VK_NULL_HANDLE, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: command buffer is VK_NULL_HANDLE",
              op->problem.name);
    RETURN_IF_ERROR(check_binding(op, in, in_offset, in_bytes, out, out_offset, out_bytes));
    for (int phase = 0; phase < 2; phase++)
        RETURN_IF_ERROR(dmls_vk_pipelines_for(ctx, op, phase, in_offset, out_offset));
    /* SLICE_GRAD's fill completes before its scatter writes the same words. */
    if (dmls_vk_record_phase(ctx, cmd, op, 0, in, in_offset, out, out_offset) > 0) dmls_vk_barrier(cmd);
    dmls_vk_record_phase(ctx, cmd, op, 1, in, in_offset, out, out_offset);
    return DMLS_OK;
}

/* Record, submit, wait; ctx->lock held. */
static dmls_status submit_locked(dmls_vulkan_context *ctx, const char *name, dmls_vk_recording record, const void *arg) {
    VkResult e = vkResetCommandBuffer(ctx->cmd, 0);
    RETURN_IF(e != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkResetCommandBuffer: %s", name, dmls_vk_result_name(e));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    e = vkBeginCommandBuffer(ctx->cmd, &begin);
    RETURN_IF(e != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkBeginCommandBuffer: %s", name, dmls_vk_result_name(e));
    dmls_status s = record(arg, ctx, ctx->cmd);
    /* The output made available to the host too, so a mapped output reads
     * right once the fence has signalled. */
    VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                            .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(ctx->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0,
                         NULL, 0, NULL);
    e = vkEndCommandBuffer(ctx->cmd);
    RETURN_IF_ERROR(s);
    RETURN_IF(e != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkEndCommandBuffer: %s", name, dmls_vk_result_name(e));
    VkSubmitInfo info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    info.commandBufferCount = 1, info.pCommandBuffers = &ctx->cmd;
    e = vkQueueSubmit(ctx->queue, 1, &info, ctx->fence);
    RETURN_IF(e != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkQueueSubmit: %s", name, dmls_vk_result_name(e));
    e = vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, UINT64_MAX);
    VkResult reset = vkResetFences(ctx->device, 1, &ctx->fence);
    RETURN_IF(e != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkWaitForFences: %s", name, dmls_vk_result_name(e));
    RETURN_IF(reset != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkResetFences: %s", name, dmls_vk_result_name(reset));
    return DMLS_OK;
}

dmls_status dmls_vk_submit(dmls_vulkan_context *ctx, const char *name, dmls_vk_recording record, const void *arg) {
    dmls_mutex_lock(&ctx->lock);
    dmls_status s = submit_locked(ctx, name, record, arg);
    dmls_mutex_unlock(&ctx->lock);
    return s;
}

/* dmls_vk_copy_buffer's copy, between barriers: earlier work's writes
 * before it reads or writes, and its writes before later shaders, transfers
 * and the host read them. */
typedef struct buffer_copy {
    VkBuffer src, dst;
    VkBufferCopy region;
} buffer_copy;

static dmls_status record_buffer_copy(const void *arg, const dmls_vulkan_context *ctx, VkCommandBuffer cmd) {
    (void)ctx;
    const buffer_copy *c = arg;
    VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                         NULL, 0, NULL);
    vkCmdCopyBuffer(cmd, c->src, c->dst, 1, &c->region);
    VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, NULL, 0,
                         NULL);
    return DMLS_OK;
}

dmls_status dmls_vk_copy_buffer(dmls_vulkan_context *ctx, const char *name, VkBuffer src, uint64_t src_offset,
                                VkBuffer dst, uint64_t dst_offset, uint64_t bytes) {
    const buffer_copy c = {src, dst, {src_offset, dst_offset, bytes}};
    return dmls_vk_submit(ctx, name, record_buffer_copy, &c);
}

/* dmls_vulkan_execute's bindings, for its recording. */
typedef struct one_op {
    const dmls_operator *op;
    VkBuffer in, out;
    uint64_t in_offset, in_bytes, out_offset, out_bytes;
} one_op;

static dmls_status record_one(const void *arg, const dmls_vulkan_context *ctx, VkCommandBuffer cmd) {
    const one_op *o = arg;
    return dmls_vulkan_record(o->op, ctx, cmd, o->in, o->in_offset, o->in_bytes, o->out, o->out_offset, o->out_bytes);
}

dmls_status dmls_vulkan_execute(const dmls_operator *op, dmls_vulkan_context *ctx, VkBuffer in, uint64_t in_offset,
                                uint64_t in_bytes, VkBuffer out, uint64_t out_offset, uint64_t out_bytes) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "vulkan_execute: operator is NULL");
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: Vulkan context is NULL", op->problem.name);
    /* Checked before the lock and the submit: a binding error submits nothing. */
    RETURN_IF_ERROR(check_binding(op, in, in_offset, in_bytes, out, out_offset, out_bytes));
    const one_op o = {op, in, out, in_offset, in_bytes, out_offset, out_bytes};
    return dmls_vk_submit(ctx, op->problem.name, record_one, &o);
}
