/* The Vulkan floors' device and how they run work there, through Vulkan's
 * own API (what the device interface does not show: a submission's cost,
 * operators recorded one by one into one command buffer): the floor
 * (bench_vulkan.c), the crops rows (bench_batch_vulkan.c) and the probes
 * (bench/probes/vk_probe.c); vulkan_run.c holds them. The cases run through
 * the device interface (bench_device.c), timed the same way by the
 * library's Vulkan device (src/vulkan/device_time.c). Work is timed on
 * the GPU with timestamp queries in the steady state a real workload sees:
 * one command buffer holds a warm-up burst (untimed runs, about warm_ms of
 * GPU time by a first single run's estimate) and then the reps timed runs
 * back to back, a barrier and a timestamp after each, repeated until a
 * burst's median is no faster than the one before (the clock up). Timed one
 * submission at a time, the GPU idles between runs and the H100 drops its
 * SM clock to ~345 MHz, halving every figure (copies included), while
 * CUDA's bench on the same host reads the GPU's steady copy rate. Builds
 * with the Vulkan backend only. */
#ifndef DMLSLICE_TOOLS_BENCH_VULKAN_RUN_H
#define DMLSLICE_TOOLS_BENCH_VULKAN_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "dmlslice/dmlslice_vulkan.h"

/* The context and what the timing needs on its device (bench_vulkan_open). */
typedef struct vk_bench_device {
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
    bench_gpu_clock clock; /* the bursts (bench.h); clock.quick: --quick, a first look */
} vk_bench_device;
extern vk_bench_device vkb;

typedef struct vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map; /* host-visible buffers only */
} vk_buffer;

/* A buffer of bytes (rounded up to a word) in memory with the flags
 * `want`, mapped when host-visible; false after saying why on stderr. */
bool vkb_make_buffer(uint64_t bytes, VkMemoryPropertyFlags want, vk_buffer *b);
void vkb_free_buffer(vk_buffer *b);

/* What one submission records: a buffer copy, an operator, a batch of
 * crops (or those crops as single operators), any batch on its bindings,
 * or a caller's own recording, between timestamps (op, crops, batch and
 * record NULL: nothing, the floor). */
typedef struct vk_work {
    const dmls_operator *op;
    VkBuffer src, dst;
    uint64_t src_bytes, dst_bytes; /* op: the bound sizes; a copy: src_bytes */
    bool copy;
    const bench_crops *crops; /* the crops from src into dst: the batch, or with `loop` one by one */
    bool loop;
    const dmls_batch *batch; /* a batch bound to in[n_in] and out[n_out] */
    const struct dmls_vulkan_binding *in, *out;
    uint32_t n_in, n_out;
    /* Anything else, recorded into vkb.cmd with arg: a probe's own shader
     * (bench/probes/vk_probe.c), timed as the library's work is. */
    void (*record)(const void *arg);
    const void *arg;
} vk_work;

/* Records `warm` untimed runs of w, then `timed` runs each followed by a
 * barrier and a timestamp, in one command buffer; submits, waits; ms[i] the
 * GPU time of timed run i. */
bool vkb_submit_burst(const vk_work *w, int warm, int timed, double *ms);

/* One run of w (a copy, the operator, the crops, or nothing), submitted and waited for. */
bool vkb_submit(const vk_work *w);

/* How many untimed runs of w, each `ms` long, fill about a warm-up burst
 * (bench_warm_runs). */
int vkb_warm_runs(double ms);

/* Median ms of reps timed runs of w in the steady state (bench_steady); < 0
 * on failure. */
double vkb_time_work(vk_work w, int reps, double *times);

/* The yardstick: the library's 1-D identity slice of n bytes, which runs
 * the 16-byte-unit copy shader with one dim (n a multiple of 16) or the
 * narrowest unit n allows. */
dmls_operator *vkb_copy_op(uint64_t n);

#endif
