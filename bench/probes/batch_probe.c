/* Probe: the batch kernel's compiled forms and two ways of timing its
 * bandwidth-bound rows (src/cuda/batch_*, issue 24). dmlslice bench
 * --device cuda gives the shipped rows; this developer's probe reaches the
 * internals for what those rows cannot show:
 *   - each form of the batch kernel (dmls_cuda_batch_variant: 0, at least 4
 *     blocks per SM, 64 registers; 1, the compiler's own count), in turn;
 *   - the KV gather and the split against a device copy of the same bytes,
 *     timed one call from an idle stream (the batch's host launch then
 *     inside its events, as dmlslice bench times it, while its copy is
 *     enqueued behind the batch with its launch hidden, here both from
 *     idle) and 10 calls back to back (launches hidden behind the work);
 *   - the 1,024 crops with launch + sync and as a graph, beside an empty
 *     kernel and an empty graph.
 * Every batch output is checked against the CPU executor first (a wrong
 * one fails the run). Build: a CUDA-enabled CMake build makes it (target
 * batch_probe, bench/probes/CMakeLists.txt).
 * Run: build/bench/probes/batch_probe [--reps N] [--forms 0,1] [--cases crops,kv,split]
 * (--cases: the rows to run, all by default; one row alone under a
 * profiler keeps its launches few). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/batch_kernels.h" /* dmls_cuda_batch_variant */
#include "cuda/launch.h"       /* dmls_cuda_probe: the empty kernel */
#include "dmlslice/batch.h"
#include "dmlslice/batch_cuda.h"
#include "platform/platform.h"

static int reps = 15;

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, by_value);
    return t[n / 2];
}

static void fail(const char *what) {
    fprintf(stderr, "batch_probe: %s: %s\n", what, dmls_last_error());
    exit(1);
}

/* The crops case: image, starts, the batch and the single crop operator. */
typedef struct crops_case {
    float *img;
    int64_t starts[1024 * 3];
    dmls_batch *batch;
    dmls_operator *one; /* one crop read through the image's strides, at offset 0 */
    uint64_t offsets[1024];
} crops_case;

enum { N_CROPS = 1024, CROP_FLOATS = 48, IMG_FLOATS = 3 * 512 * 512 };

static void crops_make(crops_case *c) {
    const int64_t shape[3] = {3, 512, 512}, size[3] = {3, 4, 4}, strides[3] = {512 * 512, 512, 1};
    c->img = malloc(IMG_FLOATS * 4);
    for (int i = 0; i < IMG_FLOATS; i++) c->img[i] = (float)i;
    srand(24);
    for (int i = 0; i < N_CROPS; i++) {
        c->starts[3 * i] = 0, c->starts[3 * i + 1] = rand() % 509, c->starts[3 * i + 2] = rand() % 509;
        c->offsets[i] = (uint64_t)(c->starts[3 * i + 1] * 512 + c->starts[3 * i + 2]) * 4;
    }
    const dmls_tensor t = {DMLS_FLOAT32, 3, shape, NULL, 0};
    if (dmls_batch_create_crops(&t, size, N_CROPS, c->starts, DMLS_STARTS_INT64, &c->batch) != DMLS_OK) fail("crops");
    const dmls_tensor in = {DMLS_FLOAT32, 3, size, strides, 0}, out = {DMLS_FLOAT32, 3, size, NULL, 0};
    const int64_t zeros[3] = {0, 0, 0}, ones[3] = {1, 1, 1};
    const dmls_window w = {zeros, size, ones};
    if (dmls_create(&in, &out, &w, &c->one) != DMLS_OK) fail("crop operator");
}

#define CU(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "batch_probe: %s: %s\n", #call, cudaGetErrorString(e_));                                   \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* Host time of fn(arg) + stream synchronize, median over reps of 100 calls. */
static double host_sync_us(void (*fn)(void *), void *arg, cudaStream_t s) {
    double t[64];
    for (int r = 0; r < reps; r++) {
        fn(arg);
        CU(cudaStreamSynchronize(s));
        const uint64_t t0 = dmls_monotonic_ns();
        for (int k = 0; k < 100; k++) {
            fn(arg);
            CU(cudaStreamSynchronize(s));
        }
        t[r] = (double)(dmls_monotonic_ns() - t0) / 100 / 1e3;
    }
    return median(t, reps);
}

typedef struct gpu_crops {
    crops_case c;
    cudaStream_t s;
    void *d_img, *d_out;
    cudaGraphExec_t batch_graph, empty_graph;
} gpu_crops;

static void run_batch(void *p) {
    gpu_crops *g = p;
    const dmls_batch_input in = {g->d_img, IMG_FLOATS * 4};
    const dmls_batch_output out = {g->d_out, N_CROPS * CROP_FLOATS * 4};
    if (dmls_batch_execute_cuda(g->c.batch, &in, 1, &out, 1, g->s) != DMLS_OK) fail("batch_execute_cuda");
}

static void run_empty(void *p) { CU((cudaError_t)dmls_cuda_probe(0, ((gpu_crops *)p)->s, NULL)); }
static void run_batch_graph(void *p) { CU(cudaGraphLaunch(((gpu_crops *)p)->batch_graph, ((gpu_crops *)p)->s)); }
static void run_empty_graph(void *p) { CU(cudaGraphLaunch(((gpu_crops *)p)->empty_graph, ((gpu_crops *)p)->s)); }

static cudaGraphExec_t capture(void (*fn)(void *), void *arg, cudaStream_t s) {
    cudaGraph_t g;
    cudaGraphExec_t e;
    CU(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    fn(arg);
    CU(cudaStreamEndCapture(s, &g));
    CU(cudaGraphInstantiate(&e, g, 0));
    CU(cudaGraphDestroy(g));
    return e;
}

static void bench_cuda_crops(void) {
    gpu_crops g;
    crops_make(&g.c);
    CU(cudaStreamCreate(&g.s));
    CU(cudaMalloc(&g.d_img, IMG_FLOATS * 4));
    CU(cudaMalloc(&g.d_out, N_CROPS * CROP_FLOATS * 4));
    CU(cudaMemcpy(g.d_img, g.c.img, IMG_FLOATS * 4, cudaMemcpyHostToDevice));
    if (dmls_batch_prepare_cuda(g.c.batch) != DMLS_OK) fail("prepare_cuda");
    g.batch_graph = capture(run_batch, &g, g.s);
    g.empty_graph = capture(run_empty, &g, g.s);
    const double batch = host_sync_us(run_batch, &g, g.s), empty = host_sync_us(run_empty, &g, g.s);
    const double batch_graph = host_sync_us(run_batch_graph, &g, g.s),
                 empty_graph = host_sync_us(run_empty_graph, &g, g.s);
    /* Check: the batch's output equals the CPU's one by one. */
    float *got = malloc(N_CROPS * CROP_FLOATS * 4), *want = malloc(N_CROPS * CROP_FLOATS * 4);
    run_batch(&g);
    CU(cudaStreamSynchronize(g.s));
    CU(cudaMemcpy(got, g.d_out, N_CROPS * CROP_FLOATS * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N_CROPS; i++)
        if (dmls_execute(g.c.one, (const char *)g.c.img + g.c.offsets[i], dmls_input_bytes(g.c.one),
                         want + i * CROP_FLOATS, CROP_FLOATS * 4) != DMLS_OK)
            fail("execute");
    if (memcmp(got, want, N_CROPS * CROP_FLOATS * 4) != 0) {
        fprintf(stderr, "batch_probe: the GPU crops differ from the CPU's\n");
        exit(1);
    }
    printf("cuda 1024 crops 3x4x4 f32, launch + sync: batch %.2f us, empty kernel %.2f us (%.2f empty launches)\n",
           batch, empty, batch / empty);
    printf("cuda the same batch in a CUDA graph: %.2f us; empty graph %.2f us (%.2f empty graph launches)\n",
           batch_graph, empty_graph, batch_graph / empty_graph);
    CU(cudaGraphExecDestroy(g.batch_graph));
    CU(cudaGraphExecDestroy(g.empty_graph));
    CU(cudaFree(g.d_img));
    CU(cudaFree(g.d_out));
    CU(cudaStreamDestroy(g.s));
    dmls_batch_destroy(g.c.batch), dmls_destroy(g.c.one);
    free(g.c.img), free(got), free(want);
}

/* Fills n bytes with a pattern that differs everywhere (a wrong offset shows). */
static void pattern(unsigned char *p, uint64_t n) {
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (uint64_t i = 0; i < n; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(p + i, &x, n - i < 8 ? (size_t)(n - i) : 8);
    }
}

/* The device's outputs against the CPU executor's on the same host data. */
static void check_outputs(const char *name, const dmls_batch *b, const dmls_batch_input *host_in, uint32_t n_in,
                          const dmls_batch_output *dev_out, uint32_t n_out) {
    dmls_batch_output *want = calloc(n_out, sizeof *want);
    for (uint32_t k = 0; k < n_out; k++) {
        want[k].bytes = dev_out[k].bytes;
        want[k].data = malloc(dev_out[k].bytes);
        if (want[k].data == NULL) fail("out of host memory for the check");
    }
    if (dmls_batch_execute(b, NULL, host_in, n_in, want, n_out) != DMLS_OK) fail("cpu check");
    for (uint32_t k = 0; k < n_out; k++) {
        unsigned char *got = malloc(dev_out[k].bytes);
        if (got == NULL) fail("out of host memory for the check");
        CU(cudaMemcpy(got, dev_out[k].data, dev_out[k].bytes, cudaMemcpyDeviceToHost));
        if (memcmp(got, want[k].data, dev_out[k].bytes) != 0) {
            fprintf(stderr, "batch_probe: %s: GPU output %u differs from the CPU's\n", name, k);
            exit(1);
        }
        free(got);
        free(want[k].data);
    }
    free(want);
}

/* Kernel time of a batch against a device copy of out_bytes (CUDA events,
 * interleaved, medians), two ways: one call from an idle stream (the time
 * then includes the host's launch of the batch, while the copy, enqueued
 * behind it, had its launch hidden: both now start from idle), and 10
 * calls back to back per event pair (launches hidden behind the running
 * work: the device's throughput, the figure the ratio targets). */
static void events_vs_copy(const char *name, const dmls_batch *b, const dmls_batch_input *in, uint32_t n_in,
                           const dmls_batch_output *out, uint32_t n_out, void *copy_dst, const void *copy_src,
                           uint64_t out_bytes) {
    enum { BACK_TO_BACK = 10 };
    cudaEvent_t e0, e1;
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));
    double t[4][64], host[64];
    for (int r = 0; r <= reps; r++)
        for (int way = 0; way < 4; way++) { /* batch once, copy once, batch x10, copy x10 */
            const int calls = way < 2 ? 1 : BACK_TO_BACK;
            CU(cudaDeviceSynchronize());
            CU(cudaEventRecord(e0, NULL));
            const uint64_t h0 = dmls_monotonic_ns();
            for (int k = 0; k < calls; k++) {
                if (way % 2 == 0 && dmls_batch_execute_cuda(b, in, n_in, out, n_out, NULL) != DMLS_OK) fail(name);
                if (way % 2 == 1) CU(cudaMemcpyAsync(copy_dst, copy_src, out_bytes, cudaMemcpyDeviceToDevice, NULL));
            }
            if (way == 2 && r > 0) host[r - 1] = (double)(dmls_monotonic_ns() - h0) / calls / 1e3;
            CU(cudaEventRecord(e1, NULL));
            CU(cudaEventSynchronize(e1));
            float ms;
            CU(cudaEventElapsedTime(&ms, e0, e1));
            if (r > 0) t[way][r - 1] = ms / calls;
        }
    const double mb = median(t[2], reps), mc = median(t[3], reps), ob = median(t[0], reps), oc = median(t[1], reps);
    printf("cuda %s: batch %.3f ms (%.0f GB/s), device copy %.3f ms: %.2f of the copy (%d back to back);"
           " one call from idle: batch %.3f ms, copy %.3f ms: %.2f; the host's execute call %.1f us\n",
           name, mb, 2.0 * (double)out_bytes / mb / 1e6, mc, mc / mb, BACK_TO_BACK, ob, oc, oc / ob,
           median(host, reps));
    CU(cudaEventDestroy(e0));
    CU(cudaEventDestroy(e1));
}

/* 512 pages of 16x8x128 float16 from a 4,096-page cache, pages in device memory. */
static void bench_cuda_kv(void) {
    const int64_t shape[4] = {4096, 16, 8, 128}, size[4] = {1, 16, 8, 128};
    const uint64_t page = 16 * 8 * 128 * 2, cache = 4096 * page, out_bytes = 512 * page;
    const dmls_tensor t = {DMLS_FLOAT16, 4, shape, NULL, 0};
    dmls_batch *b;
    if (dmls_batch_create_crops(&t, size, 512, NULL, DMLS_STARTS_INT32, &b) != DMLS_OK) fail("kv crops");
    if (dmls_batch_prepare_cuda(b) != DMLS_OK) fail("kv prepare");
    int32_t pages[512 * 4] = {0};
    srand(7);
    for (int i = 0; i < 512; i++) pages[4 * i] = rand() % 4096;
    void *d_cache, *d_pages, *d_out, *d_copy;
    CU(cudaMalloc(&d_cache, cache));
    CU(cudaMalloc(&d_pages, sizeof pages));
    CU(cudaMalloc(&d_out, out_bytes));
    CU(cudaMalloc(&d_copy, out_bytes));
    unsigned char *h_cache = malloc(cache);
    if (h_cache == NULL) fail("out of host memory");
    pattern(h_cache, cache);
    CU(cudaMemcpy(d_cache, h_cache, cache, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(d_pages, pages, sizeof pages, cudaMemcpyHostToDevice));
    const dmls_batch_input in[2] = {{d_cache, cache}, {d_pages, sizeof pages}};
    const dmls_batch_output out = {d_out, out_bytes};
    if (dmls_batch_execute_cuda(b, in, 2, &out, 1, NULL) != DMLS_OK) fail("kv");
    CU(cudaDeviceSynchronize());
    const dmls_batch_input host_in[2] = {{h_cache, cache}, {pages, sizeof pages}};
    check_outputs("KV gather", b, host_in, 2, &out, 1);
    free(h_cache);
    events_vs_copy("KV gather 512 pages 16x8x128 f16 (device page numbers)", b, in, 2, &out, 1, d_copy, d_cache,
                   out_bytes);
    CU(cudaFree(d_cache));
    CU(cudaFree(d_pages));
    CU(cudaFree(d_out));
    CU(cudaFree(d_copy));
    dmls_batch_destroy(b);
}

/* 1 GiB float32 (4096 x 65536) split into 8 along axis 1. */
static void bench_cuda_split(void) {
    const int64_t shape[2] = {4096, 65536}, sizes[8] = {8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192};
    const uint64_t bytes = (uint64_t)4096 * 65536 * 4, part = bytes / 8;
    const dmls_tensor t = {DMLS_FLOAT32, 2, shape, NULL, 0};
    dmls_batch *b;
    if (dmls_batch_create_split(&t, 1, sizes, 8, 0, &b) != DMLS_OK) fail("split");
    if (dmls_batch_prepare_cuda(b) != DMLS_OK) fail("split prepare");
    char *d_in, *d_out;
    CU(cudaMalloc((void **)&d_in, bytes));
    CU(cudaMalloc((void **)&d_out, bytes));
    unsigned char *h_in = malloc(bytes);
    if (h_in == NULL) fail("out of host memory");
    pattern(h_in, bytes);
    CU(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    const dmls_batch_input in = {d_in, bytes}, host_in = {h_in, bytes};
    dmls_batch_output out[8];
    for (int j = 0; j < 8; j++) out[j].data = d_out + j * part, out[j].bytes = part;
    if (dmls_batch_execute_cuda(b, &in, 1, out, 8, NULL) != DMLS_OK) fail("split");
    CU(cudaDeviceSynchronize());
    check_outputs("split", b, &host_in, 1, out, 8);
    free(h_in);
    /* The copy writes where the split's input is: both are 1 GiB moves. */
    events_vs_copy("split 1 GiB f32 into 8 along axis 1", b, &in, 1, out, 8, d_in, d_out, bytes);
    CU(cudaFree(d_in));
    CU(cudaFree(d_out));
    dmls_batch_destroy(b);
}

int main(int argc, char **argv) {
    const char *forms = "0,1", *cases = "crops,kv,split";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--forms") && i + 1 < argc)
            forms = argv[++i];
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases = argv[++i];
        else {
            fprintf(stderr, "usage: batch_probe [--reps N] [--forms 0,1] [--cases crops,kv,split]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 63) reps = 15;
    if (!dmls_cuda_available()) fail("cuda");
    for (const char *f = forms; *f; f++) {
        if (*f < '0' || *f > '9') continue;
        printf("batch kernel form %d\n", dmls_cuda_batch_variant(*f - '0'));
        if (strstr(cases, "crops")) bench_cuda_crops();
        if (strstr(cases, "kv")) bench_cuda_kv();
        if (strstr(cases, "split")) bench_cuda_split();
    }
    return 0;
}
