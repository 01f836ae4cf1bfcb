/* dmlslice bench --device vulkan's floor (see bench.h): the host cost of a
 * tiny slice's record + submit + wait beside an empty submission's, right
 * after a burst that raises the GPU's clock. The cases are bench_device.c's,
 * timed on the GPU's clock. Compiled in every build; without the Vulkan
 * backend it only says so. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef DMLS_HAVE_VULKAN
#include "vulkan_run.h"

/* Host time of n runs of w, median, in microseconds; before each, `heat`
 * (a burst of copies, about 1 ms of GPU time) keeps the clock up, as a
 * real workload's neighbouring vk_work would. */
static double host_us(const vk_work *w, bool through_library, const vk_work *heat, int heat_runs, int n) {
    double *t = malloc(sizeof *t * (size_t)n), r = -1;
    for (int i = 0; t != NULL && i < n; i++) {
        if (!vkb_submit_burst(heat, heat_runs, 0, NULL)) goto done;
        const double a = bench_now();
        const bool ok = through_library ? dmls_vulkan_execute(w->op, vkb.ctx, w->src, 0, w->src_bytes, w->dst, 0,
                                                              w->dst_bytes) == DMLS_OK
                                        : vkb_submit(w);
        if (!ok) goto done;
        t[i] = (bench_now() - a) * 1e6;
    }
    if (t != NULL) r = bench_median(t, n);
done:
    free(t);
    return r;
}

/* The heat of the floor: the library's copy of 16 MiB (~12 us a run on the
 * H100; --quick: 1 MiB, as a run on a CPU driver takes tens of ms), first
 * for about the warm-up burst's time (vkb_warm_runs). */
#define HEAT_BYTES       ((uint64_t)16 << 20)
#define QUICK_HEAT_BYTES ((uint64_t)1 << 20)
/* Host-timed runs of the floor's each side (--quick: a first look). */
#define FLOOR_RUNS       200
#define QUICK_FLOOR_RUNS 20

static void floor_measure(const dmls_operator *op, const vk_buffer *a, const vk_buffer *b, dmls_operator *copy) {
    vk_buffer x, y;
    memset(&x, 0, sizeof x), memset(&y, 0, sizeof y);
    const uint64_t heat_bytes = vkb.clock.quick ? QUICK_HEAT_BYTES : HEAT_BYTES;
    if (!vkb_make_buffer(heat_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &x) ||
        !vkb_make_buffer(heat_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &y)) {
        printf("floor: not measured: no device memory for the warm-up\n");
        goto done;
    }
    const vk_work tiny = {.op = op, .src = a->buffer, .dst = b->buffer, .src_bytes = 64, .dst_bytes = 16},
                  empty = {.src = a->buffer, .dst = b->buffer},
                  heat = {
                      .op = copy, .src = x.buffer, .dst = y.buffer, .src_bytes = heat_bytes, .dst_bytes = heat_bytes};
    double first = 0;
    if (!vkb_submit_burst(&heat, 0, 1, &first) || !vkb_submit_burst(&heat, vkb_warm_runs(first), 0, NULL)) goto done;
    /* ~1 ms of heat by the cold estimate (more at full clock); one run where a run is slower (lavapipe). */
    const int heat_runs = first > 0 && first < 1.0 / 256 ? 256 : first > 0 && first < 1 ? (int)(1 / first) : 1;
    const int n = vkb.clock.quick ? QUICK_FLOOR_RUNS : FLOOR_RUNS;
    const double t = host_us(&tiny, true, &heat, heat_runs, n), e = host_us(&empty, false, &heat, heat_runs, n);
    printf("floor: a 2x2 slice through dmls_vulkan_execute (record + submit + wait) %.1f us; an empty command "
           "buffer's submit + wait %.1f us (host clock, medians of %d, each right after ~1 ms of copies: the "
           "clock up)\n",
           t, e, n);
done:
    vkb_free_buffer(&x), vkb_free_buffer(&y);
}

void bench_vulkan_floor(void) {
    static const int64_t shape[2] = {4, 4}, out_shape[2] = {2, 2}, offs[2] = {1, 1}, sizes[2] = {3, 2},
                         steps[2] = {2, -1};
    dmls_tensor in = {DMLS_FLOAT32, 2, shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL, *copy = vkb_copy_op(vkb.clock.quick ? QUICK_HEAT_BYTES : HEAT_BYTES);
    vk_buffer a, b;
    memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
    if (copy == NULL || dmls_create(&in, &out, &w, &op) != DMLS_OK) {
        printf("floor: not measured: %s\n", dmls_last_error());
        goto done;
    }
    if (vkb_make_buffer(64, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &a) &&
        vkb_make_buffer(64, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &b))
        floor_measure(op, &a, &b, copy);
done:
    vkb_free_buffer(&a), vkb_free_buffer(&b);
    dmls_destroy(op);
    dmls_destroy(copy);
}

#else

bool bench_vulkan_built(void) { return false; }

bool bench_vulkan_open(int device, bool quick, bool verbose) {
    (void)device, (void)quick, (void)verbose;
    fprintf(stderr, "dmlslice bench: this build has no Vulkan backend (--device vulkan)\n");
    return false;
}

void bench_vulkan_floor(void) {}

void bench_vulkan_close(void) {}

#endif
