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
    return 2;
}

#else

int bench_vulkan_batches(int reps, bench_batch_row *rows) {
    (void)reps, (void)rows;
    return 0;
}

#endif
