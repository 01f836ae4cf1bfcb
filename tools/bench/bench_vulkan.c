/* dmlslice bench --device vulkan: the canonical cases and the floor; see
 * bench.h. The slice and, beside it, the yardstick (the library's
 * 16-byte-unit copy shader over the same bytes: a 1-D identity slice of
 * them, which runs units.comp with one dim and no division) are timed on
 * the GPU with timestamp queries, in device-local buffers, in the steady
 * state (vulkan_run.h). A host clock would time the submit and the wait as
 * well: that cost is reported once, apart (bench_vulkan_floor), right after
 * a burst that raises the clock. Compiled in every build; without the
 * Vulkan backend it only says so. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef DMLS_HAVE_VULKAN
#include "vulkan_run.h"

typedef struct case_buffers {
    vk_buffer in, out, stage;
    uint64_t in_bytes, out_bytes;
} case_buffers;

/* Device-local input (random bytes through the staging buffer) and output. */
static bool case_setup(const dmls_operator *op, case_buffers *cb) {
    cb->in_bytes = dmls_input_bytes(op), cb->out_bytes = dmls_output_bytes(op);
    const uint64_t stage = cb->in_bytes > cb->out_bytes ? cb->in_bytes : cb->out_bytes;
    if (!vkb_make_buffer(cb->in_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->in) ||
        !vkb_make_buffer(cb->out_bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &cb->out) ||
        !vkb_make_buffer(stage, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &cb->stage))
        return false;
    bench_fill(cb->stage.map, cb->in_bytes, 0x9E3779B97F4A7C15ULL ^ cb->in_bytes);
    vk_work up = {.src = cb->stage.buffer, .dst = cb->in.buffer, .src_bytes = cb->in_bytes, .copy = true};
    if (cb->in_bytes && !vkb_submit(&up)) return false;
    memset(cb->stage.map, 0xA5, cb->out_bytes);
    vk_work fill = {.src = cb->stage.buffer, .dst = cb->out.buffer, .src_bytes = cb->out_bytes, .copy = true};
    return cb->out_bytes == 0 || vkb_submit(&fill);
}

/* The slice once, its output against the reference executor's. */
static bool case_check(const dmls_operator *op, case_buffers *cb, bool *correct) {
    void *h_in = malloc(cb->in_bytes + 1), *h_ref = malloc(cb->out_bytes + 1);
    bool ok = false;
    vk_work run = {
        .op = op, .src = cb->in.buffer, .dst = cb->out.buffer, .src_bytes = cb->in_bytes, .dst_bytes = cb->out_bytes};
    vk_work up = {.src = cb->in.buffer, .dst = cb->stage.buffer, .src_bytes = cb->in_bytes, .copy = true};
    vk_work down = {.src = cb->out.buffer, .dst = cb->stage.buffer, .src_bytes = cb->out_bytes, .copy = true};
    if (h_in == NULL || h_ref == NULL) goto done;
    bench_fill(h_in, cb->in_bytes, 0x9E3779B97F4A7C15ULL ^ cb->in_bytes);
    memset(h_ref, 0xA5, cb->out_bytes);
    if (dmls_execute_reference(op, h_in, cb->in_bytes, h_ref, cb->out_bytes) != DMLS_OK) goto done;
    if (!vkb_submit(&run) || (cb->out_bytes && !vkb_submit(&down))) goto done;
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
    copy = vkb_copy_op(n);
    if (copy == NULL) goto fail;
    vk_work slice = {
        .op = op, .src = cb.in.buffer, .dst = cb.out.buffer, .src_bytes = cb.in_bytes, .dst_bytes = cb.out_bytes};
    vk_work yard = {.op = copy, .src = cb.in.buffer, .dst = cb.out.buffer, .src_bytes = n, .dst_bytes = n};
    row->ms = vkb_time_work(slice, reps, times);
    row->copy_ms = vkb_time_work(yard, reps, times);
    if (row->ms < 0 || row->copy_ms < 0) goto fail;
    row->out_bytes = cb.out_bytes;
    row->batch = 1;
    row->timed = ok = true;
fail:
    vkb_free_buffer(&cb.in), vkb_free_buffer(&cb.out), vkb_free_buffer(&cb.stage);
    dmls_destroy(op);
    dmls_destroy(copy);
    free(times);
    return ok;
}

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
    const uint64_t heat_bytes = vkb.quick ? QUICK_HEAT_BYTES : HEAT_BYTES;
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
    const int n = vkb.quick ? QUICK_FLOOR_RUNS : FLOOR_RUNS;
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
    dmls_operator *op = NULL, *copy = vkb_copy_op(vkb.quick ? QUICK_HEAT_BYTES : HEAT_BYTES);
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

bool bench_vulkan_open(int device, bool quick, bool verbose, char *gpu, size_t gpu_size) {
    (void)device, (void)quick, (void)verbose, (void)gpu_size;
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
