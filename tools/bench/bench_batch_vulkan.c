/* dmlslice bench --device vulkan's batch rows; see bench.h: the 1,024
 * crops (bench_crops) as one recorded batch, prepared for the context
 * (dmls_batch_prepare_vulkan: its dispatches grouped), timed on the GPU
 * beside the same crops recorded one by one (what an unprepared batch
 * records) and the copy shader (vulkan_run.h), and by the host clock beside
 * a loop of single executes; a KV-cache gather with page numbers on the
 * device and a split into 8, against the copy shader. Compiled in every build;
 * without the Vulkan backend there are no rows. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef DMLS_HAVE_VULKAN
#include "dmlslice/batch_vulkan.h"
#include "vulkan_run.h"

/* The crops' rows: the batch prepared, the image uploaded to a
 * device-local buffer, the output device-local; the batch's output checked
 * against the CPU's. */
typedef struct crops_buffers {
    vk_buffer image, out, stage;
} crops_buffers;

static bool crops_setup(const bench_crops *c, crops_buffers *cb, uint64_t out_bytes, bool *correct) {
    const uint64_t image_bytes = BENCH_IMAGE_FLOATS * sizeof(float);
    float *want = malloc(out_bytes);
    bool ok = want != NULL && dmls_batch_prepare_vulkan(c->batch, vkb.ctx) == DMLS_OK &&
              vkb_make_buffer(image_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->image) &&
              vkb_make_buffer(out_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->out) &&
              vkb_make_buffer(image_bytes, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                              &cb->stage);
    if (ok) {
        memcpy(cb->stage.map, c->image, image_bytes);
        const vk_work up = {.src = cb->stage.buffer, .dst = cb->image.buffer, .src_bytes = image_bytes, .copy = true};
        const vk_work run = {.src = cb->image.buffer,
                             .dst = cb->out.buffer,
                             .src_bytes = image_bytes,
                             .dst_bytes = out_bytes,
                             .crops = c};
        const vk_work down = {.src = cb->out.buffer, .dst = cb->stage.buffer, .src_bytes = out_bytes, .copy = true};
        const dmls_batch_input hin = {c->image, image_bytes};
        const dmls_batch_output hout = {want, out_bytes};
        ok = vkb_submit(&up) && vkb_submit(&run) && vkb_submit(&down) &&
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
    const vk_work empty = {.src = cb->image.buffer, .dst = cb->out.buffer};
    double *t = malloc(sizeof *t * (size_t)reps), r = -1;
    for (int k = 0; t != NULL && k <= reps; k++) { /* the first call untimed */
        const double a = bench_now();
        bool ok = true;
        if (m == HOST_BATCH) ok = dmls_batch_execute_vulkan(c->batch, vkb.ctx, &in, 1, &out, 1) == DMLS_OK;
        if (m == HOST_EMPTY) ok = vkb_submit(&empty);
        for (int i = 0; m == HOST_LOOP && ok && i < BENCH_CROPS; i++)
            ok = dmls_vulkan_execute(c->one, vkb.ctx, cb->image.buffer, c->offsets[i], dmls_input_bytes(c->one),
                                     cb->out.buffer, (uint64_t)i * crop_bytes, crop_bytes) == DMLS_OK;
        if (!ok) goto done;
        if (k > 0) t[k - 1] = (bench_now() - a) * 1e6;
    }
    if (t != NULL) r = bench_median(t, reps);
done:
    free(t);
    return r;
}

/* A bandwidth-bound case (bench.h: the KV gather, the split) between
 * device-local buffers, prepared, timed by timestamps against the copy
 * shader over its output's bytes from its first input (which holds at
 * least as many), its output checked against the CPU's. */
static int device_row(bool made, const bench_gpu_case *g, int reps, bench_batch_row *r) {
    memset(r, 0, sizeof *r);
    r->name = g->name, r->timing = "gpu (timestamps)", r->items = g->items, r->out_bytes = g->out_bytes;
    vk_buffer in[2], out, stage;
    memset(in, 0, sizeof in), memset(&out, 0, sizeof out), memset(&stage, 0, sizeof stage);
    dmls_vulkan_binding bin[2], bout[8];
    dmls_batch_input hin[2];
    dmls_batch_output hout[8];
    const uint64_t out_bytes = g->out_bytes, part = out_bytes / (g->parts ? g->parts : 1);
    const uint64_t most = g->in_bytes[0] > out_bytes ? g->in_bytes[0] : out_bytes;
    unsigned char *want = made ? malloc(out_bytes) : NULL;
    dmls_operator *copy = made ? vkb_copy_op(out_bytes) : NULL;
    const dmls_status prepared = made ? dmls_batch_prepare_vulkan(g->batch, vkb.ctx) : DMLS_ERROR_INVALID_ARGUMENT;
    if (prepared == DMLS_ERROR_UNSUPPORTED) /* e.g. a cache beyond one of this device's bindings */
        snprintf(r->skipped, sizeof r->skipped, "%s", dmls_last_error());
    bool ok = want != NULL && copy != NULL && prepared == DMLS_OK &&
              vkb_make_buffer(out_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out) &&
              vkb_make_buffer(most, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &stage);
    for (uint32_t k = 0; ok && k < g->n_in; k++) {
        ok = vkb_make_buffer(g->in_bytes[k], VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &in[k]);
        if (!ok) break;
        memcpy(stage.map, g->in[k], g->in_bytes[k]);
        const vk_work up = {.src = stage.buffer, .dst = in[k].buffer, .src_bytes = g->in_bytes[k], .copy = true};
        ok = vkb_submit(&up);
        bin[k] = (dmls_vulkan_binding){in[k].buffer, 0, g->in_bytes[k]};
        hin[k] = (dmls_batch_input){g->in[k], g->in_bytes[k]};
    }
    for (uint32_t j = 0; ok && j < g->parts; j++) {
        bout[j] = (dmls_vulkan_binding){out.buffer, j * part, part};
        hout[j] = (dmls_batch_output){want + j * part, part};
    }
    const vk_work run = {.batch = g->batch, .in = bin, .out = bout, .n_in = g->n_in, .n_out = g->parts};
    const vk_work down = {.src = out.buffer, .dst = stage.buffer, .src_bytes = out_bytes, .copy = true};
    ok = ok && vkb_submit(&run) && vkb_submit(&down) &&
         dmls_batch_execute(g->batch, NULL, hin, g->n_in, hout, g->parts) == DMLS_OK;
    r->correct = ok && memcmp(stage.map, want, out_bytes) == 0;
    if (ok) {
        const vk_work yard = {
            .op = copy, .src = in[0].buffer, .dst = out.buffer, .src_bytes = out_bytes, .dst_bytes = out_bytes};
        double *times = malloc(sizeof *times * (size_t)reps);
        r->us = times ? vkb_time_work(run, reps, times) * 1e3 : -1;
        r->yard[0].name = "copy", r->yard[0].us = times ? vkb_time_work(yard, reps, times) * 1e3 : -1;
        r->nyard = 1;
        r->timed = r->us >= 0 && r->yard[0].us >= 0;
        free(times);
    } else if (made && !r->skipped[0]) {
        fprintf(stderr, "dmlslice bench: the Vulkan %s row: %s\n", r->name, dmls_last_error());
    }
    for (uint32_t k = 0; k < 2; k++) vkb_free_buffer(&in[k]);
    vkb_free_buffer(&out), vkb_free_buffer(&stage);
    dmls_destroy(copy);
    free(want);
    return 1;
}

int bench_vulkan_batches(int reps, bool quick, bench_batch_row *rows) {
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
    dmls_operator *copy = vkb_copy_op(out_bytes);
    double *times = malloc(sizeof *times * (size_t)reps);
    bool correct = false;
    if (!bench_crops_make(&c) || times == NULL || copy == NULL || !crops_setup(&c, &cb, out_bytes, &correct)) {
        fprintf(stderr, "dmlslice bench: the Vulkan crops rows: %s\n", times ? dmls_last_error() : "out of memory");
        goto done;
    }
    const vk_work batch = {.src = cb.image.buffer,
                           .dst = cb.out.buffer,
                           .src_bytes = BENCH_IMAGE_FLOATS * sizeof(float),
                           .dst_bytes = out_bytes,
                           .crops = &c};
    vk_work loop = batch;
    loop.loop = true;
    const vk_work yard = {
        .op = copy, .src = cb.image.buffer, .dst = cb.out.buffer, .src_bytes = out_bytes, .dst_bytes = out_bytes};
    gpu->us = vkb_time_work(batch, reps, times) * 1e3;
    gpu->yard[0].name = "loop_recorded", gpu->yard[0].us = vkb_time_work(loop, reps, times) * 1e3;
    gpu->yard[1].name = "copy", gpu->yard[1].us = vkb_time_work(yard, reps, times) * 1e3;
    gpu->nyard = 2;
    gpu->correct = host->correct = correct;
    gpu->timed = gpu->us >= 0 && gpu->yard[0].us >= 0 && gpu->yard[1].us >= 0;
    host->us = crops_host_us(HOST_BATCH, &c, &cb, out_bytes, reps);
    host->yard[0].name = "loop_execute", host->yard[0].us = crops_host_us(HOST_LOOP, &c, &cb, out_bytes, reps);
    host->yard[1].name = "empty_submit", host->yard[1].us = crops_host_us(HOST_EMPTY, &c, &cb, out_bytes, reps);
    host->nyard = 2;
    host->timed = host->us >= 0 && host->yard[0].us >= 0 && host->yard[1].us >= 0;
done:
    vkb_free_buffer(&cb.image), vkb_free_buffer(&cb.out), vkb_free_buffer(&cb.stage);
    bench_crops_free(&c);
    dmls_destroy(copy);
    free(times);
    return 2 + bench_gpu_case_row(bench_kv_make, device_row, reps, quick, &rows[2]) +
           bench_gpu_case_row(bench_split_make, device_row, reps, quick, &rows[3]);
}

#else

int bench_vulkan_batches(int reps, bool quick, bench_batch_row *rows) {
    (void)reps, (void)quick, (void)rows;
    return 0;
}

#endif
