/* See cuda_bench.h. Figures follow bench/RESULTS.md: GB/s counts output bytes
 * read and written (2 * out_bytes / time), the copy beside them is timed in
 * the same run on the same device. */
/* clock_gettime */
#define _POSIX_C_SOURCE 199309L
#include "cuda_bench.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/worked_examples.h"
#include "dmlslice/dmlslice_cuda.h"
#include "cuda/launch.h" /* internal: to report which launch ran */

#define CU(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            snprintf(err, err_size, "%s: %s", #call, cudaGetErrorString(e_));             \
            goto fail;                                                                    \
        }                                                                                 \
    } while (0)

#define DM(call)                                                                          \
    do {                                                                                  \
        dmls_status s_ = (call);                                                          \
        if (s_ != DMLS_OK) {                                                              \
            snprintf(err, err_size, "%s: %s", #call, dmls_last_error());                  \
            goto fail;                                                                    \
        }                                                                                 \
    } while (0)

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void fill_random(void *p, size_t n, uint64_t seed) {
    unsigned char *b = p;
    uint64_t x = seed | 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        uint64_t v = x * 0x2545F4914F6CDD1DULL;
        memcpy(b + i, &v, 8);
    }
    for (; i < n; i++) b[i] = (unsigned char)(i * 131 + 7);
}

static const char *kernel_name(int k) {
    switch (k) {
    case DMLS_CUDA_NOTHING: return "none";
    case DMLS_CUDA_COPY: return "copy";
    case DMLS_CUDA_GATHER: return "gather";
    case DMLS_CUDA_REVERSE: return "reverse";
    case DMLS_CUDA_MEMSET: return "memset";
    case DMLS_CUDA_FILL: return "fill";
    }
    return "?";
}

/* "kernel/unit/vec", then "/c" when it runs from the compact block. */
static void launch_name(const dmls_cuda_launch *L, char *name, size_t size) {
    snprintf(name, size, "%s/%d/%d%s", kernel_name(L->kernel), L->unit, L->vec, L->compact ? "/c" : "");
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

int dmls_bench_cuda_case(const bench_case *c, int reps, dmls_bench_cuda_result *r, char *err,
                         size_t err_size) {
    int rc = -1;
    dmls_operator *op = NULL;
    void *h_in = NULL, *h_out = NULL, *h_ref = NULL, *d_in = NULL, *d_out = NULL;
    cudaEvent_t a = NULL, b = NULL;
    double *times = NULL;
    memset(r, 0, sizeof *r);
    DM(bench_create(c, &op));
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    r->out_bytes = out_bytes;
    h_in = malloc(in_bytes), h_out = malloc(out_bytes), h_ref = malloc(out_bytes);
    times = malloc(sizeof *times * (size_t)(reps > 0 ? reps : 1));
    if (!h_in || !h_out || !h_ref || !times) {
        snprintf(err, err_size, "out of host memory");
        goto fail;
    }
    fill_random(h_in, in_bytes, 0x9E3779B97F4A7C15ULL ^ in_bytes);
    CU(cudaMalloc(&d_in, in_bytes));
    CU(cudaMalloc(&d_out, out_bytes));
    const dmls_cuda_launch *copy = dmls_cuda_state_of(op)->copy, *L = &copy[dmls_cuda_choose(copy, d_in, d_out)];
    r->kernel = L->kernel, r->unit = L->unit, r->vec = L->vec;
    launch_name(L, r->launch, sizeof r->launch);
    CU(cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice));
    CU(cudaMemset(d_out, 0xA5, out_bytes));
    CU(cudaEventCreate(&a));
    CU(cudaEventCreate(&b));

    /* Correctness first: the CPU executor is tested against the reference. */
    DM(dmls_execute_cuda(op, d_in, in_bytes, d_out, out_bytes, NULL));
    CU(cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost));
    memset(h_ref, 0xA5, out_bytes);
    DM(dmls_execute(op, h_in, in_bytes, h_ref, out_bytes));
    r->correct = memcmp(h_out, h_ref, out_bytes) == 0;

    for (int i = 0; i < 3; i++) DM(dmls_execute_cuda(op, d_in, in_bytes, d_out, out_bytes, NULL));
    CU(cudaDeviceSynchronize());
    for (int i = 0; i < reps; i++) {
        CU(cudaEventRecord(a, NULL));
        DM(dmls_execute_cuda(op, d_in, in_bytes, d_out, out_bytes, NULL));
        CU(cudaEventRecord(b, NULL));
        CU(cudaEventSynchronize(b));
        float ms;
        CU(cudaEventElapsedTime(&ms, a, b));
        times[i] = ms;
    }
    r->slice_ms = median(times, reps);

    /* The copy of the same bytes reads the input buffer, as big or bigger. */
    const uint64_t copy_bytes = out_bytes <= in_bytes ? out_bytes : in_bytes;
    for (int i = 0; i < 3; i++) CU(cudaMemcpyAsync(d_out, d_in, copy_bytes, cudaMemcpyDeviceToDevice, NULL));
    CU(cudaDeviceSynchronize());
    for (int i = 0; i < reps; i++) {
        CU(cudaEventRecord(a, NULL));
        CU(cudaMemcpyAsync(d_out, d_in, copy_bytes, cudaMemcpyDeviceToDevice, NULL));
        CU(cudaEventRecord(b, NULL));
        CU(cudaEventSynchronize(b));
        float ms;
        CU(cudaEventElapsedTime(&ms, a, b));
        times[i] = ms;
    }
    r->copy_ms = median(times, reps);
    r->slice_gbps = 2.0 * (double)out_bytes / (r->slice_ms * 1e6);
    r->copy_gbps = 2.0 * (double)copy_bytes / (r->copy_ms * 1e6);
    r->ratio = r->slice_gbps / r->copy_gbps;
    rc = 0;
fail:
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in), free(h_out), free(h_ref), free(times);
    dmls_destroy(op);
    return rc;
}

/* The tiny op's measures, interleaved so that every one sees the same
 * machine state: the execute, the driver's smallest operation, the empty
 * kernels. */
enum {
    TINY_EXECUTE,
    TINY_GENERAL, /* the same op, compact forms off */
    TINY_MEMSET,
    TINY_PROBE0,
    TINY_MEASURES = TINY_PROBE0 + DMLS_BENCH_CUDA_PROBES
};

typedef struct tiny_bind {
    const dmls_operator *op, *general;
    void *d_in, *d_out;
    uint64_t in_bytes, out_bytes;
    cudaStream_t s;
} tiny_bind;

/* Enqueues measure m once; 0 or -1 with a message in err. */
static int tiny_issue(int m, const tiny_bind *b, char *err, size_t err_size) {
    if (m == TINY_EXECUTE || m == TINY_GENERAL) {
        DM(dmls_execute_cuda(m == TINY_EXECUTE ? b->op : b->general, b->d_in, b->in_bytes, b->d_out, b->out_bytes,
                             b->s));
    } else if (m == TINY_MEMSET) {
        CU(cudaMemsetAsync(b->d_out, 0, 4, b->s));
    } else {
        CU((cudaError_t)dmls_cuda_probe(m - TINY_PROBE0, b->s, NULL));
    }
    return 0;
fail:
    return -1;
}

int dmls_bench_cuda_tiny(int iters, dmls_bench_cuda_tiny_result *r, char *err, size_t err_size) {
    int rc = -1;
    dmls_operator *op = NULL, *general = NULL;
    void *d_in = NULL, *d_out = NULL;
    double *times[TINY_MEASURES] = {NULL};
    double spent[TINY_MEASURES] = {0};
    /* DirectML's SLICE1 example 2 (examples/worked_examples.h). */
    const dmls_worked_example *ex = &dmls_worked_examples[3];
    int64_t in_shape[4], out_shape[4], offs[4], sizes[4], steps[4];
    for (int i = 0; i < 4; i++) {
        in_shape[i] = dmls_worked_input_sizes[i], out_shape[i] = ex->out_sizes[i];
        offs[i] = ex->offsets[i], sizes[i] = ex->sizes[i], steps[i] = ex->strides[i];
    }
    dmls_tensor in = {DMLS_FLOAT32, 4, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 4, out_shape, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    float h_in[16], h_out[4];
    cudaStream_t s = NULL;
    memset(r, 0, sizeof *r);
    if (iters < 100) iters = 100;
    for (int m = 0; m < TINY_MEASURES; m++)
        if ((times[m] = malloc(sizeof *times[m] * (size_t)iters)) == NULL) {
            snprintf(err, err_size, "out of host memory");
            goto fail;
        }
    memcpy(h_in, dmls_worked_input, sizeof h_in);
    DM(dmls_create(&in, &out, &w, &op));
    /* A second operator with every compact form switched off (internal
     * state: the bench reaches into it to compare the two blocks). */
    DM(dmls_create(&in, &out, &w, &general));
    dmls_cuda_state *gs = general->prepared[DMLS_BACKEND_CUDA];
    for (int i = 0; i < DMLS_CUDA_CHOICES; i++) gs->copy[i].compact = gs->fill[i].compact = 0;
    CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CU(cudaMalloc(&d_in, sizeof h_in));
    CU(cudaMalloc(&d_out, sizeof h_out));
    CU(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    CU(cudaDeviceSynchronize()); /* the legacy stream's copy, before work on s */
    const dmls_cuda_launch *copy = dmls_cuda_state_of(op)->copy, *L = &copy[dmls_cuda_choose(copy, d_in, d_out)];
    launch_name(L, r->launch, sizeof r->launch);
    if (L->compact) launch_name(&gs->copy[dmls_cuda_choose(gs->copy, d_in, d_out)],
                              r->general_launch, sizeof r->general_launch);
    for (int p = 0; p < DMLS_BENCH_CUDA_PROBES; p++) CU((cudaError_t)dmls_cuda_probe(p, s, &r->probe[p].param_bytes));
    const tiny_bind b = {op, general, d_in, d_out, sizeof h_in, sizeof h_out, s};
    /* Warm-up: first launches load the kernels. */
    for (int i = 0; i < 100; i++)
        for (int m = 0; m < TINY_MEASURES; m++)
            if (tiny_issue(m, &b, err, err_size)) goto fail;
    CU(cudaStreamSynchronize(s));
    /* One launch, then wait for it: what a caller that needs the result sees. */
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < TINY_MEASURES; k++) {
            const int m = (i + k) % TINY_MEASURES;
            double t0 = now_us();
            if (tiny_issue(m, &b, err, err_size)) goto fail;
            CU(cudaStreamSynchronize(s));
            times[m][i] = now_us() - t0;
        }
    /* The call alone: bursts of 100 the queue can absorb, synchronized
     * between bursts, outside the clock. */
    const int rounds = iters / 100;
    for (int round = 0; round < rounds; round++)
        for (int k = 0; k < TINY_MEASURES; k++) {
            const int m = (round + k) % TINY_MEASURES;
            if (m == TINY_MEMSET) continue;
            double t0 = now_us();
            for (int i = 0; i < 100; i++)
                if (tiny_issue(m, &b, err, err_size)) goto fail;
            spent[m] += now_us() - t0;
            CU(cudaStreamSynchronize(s));
        }
    r->sync_us = median(times[TINY_EXECUTE], iters);
    r->call_us = spent[TINY_EXECUTE] / (100.0 * rounds);
    r->memset_sync_us = median(times[TINY_MEMSET], iters);
    if (L->compact) {
        r->general_sync_us = median(times[TINY_GENERAL], iters);
        r->general_call_us = spent[TINY_GENERAL] / (100.0 * rounds);
    }
    for (int p = 0; p < DMLS_BENCH_CUDA_PROBES; p++) {
        r->probe[p].sync_us = median(times[TINY_PROBE0 + p], iters);
        r->probe[p].call_us = spent[TINY_PROBE0 + p] / (100.0 * rounds);
    }
    for (int k = 0; k < 2; k++) {
        CU(cudaMemsetAsync(d_out, 0, sizeof h_out, s));
        DM(dmls_execute_cuda(k ? general : op, d_in, sizeof h_in, d_out, sizeof h_out, s));
        CU(cudaStreamSynchronize(s));
        CU(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
        if (memcmp(h_out, ex->expected, sizeof h_out) != 0) {
            snprintf(err, err_size, "tiny op (%s) gave %g %g %g %g, expected %g %g %g %g", k ? "general" : "as planned",
                     h_out[0], h_out[1], h_out[2], h_out[3], ex->expected[0], ex->expected[1], ex->expected[2],
                     ex->expected[3]);
            goto fail;
        }
    }
    rc = 0;
fail:
    if (s) cudaStreamDestroy(s);
    cudaFree(d_in);
    cudaFree(d_out);
    for (int m = 0; m < TINY_MEASURES; m++) free(times[m]);
    dmls_destroy(op);
    dmls_destroy(general);
    return rc;
}

void dmls_bench_cuda_tiny_print(FILE *f, const dmls_bench_cuda_tiny_result *r) {
    fprintf(f,
            "\ntiny (1x1x4x4 f32, SLICE1_ex2, launch %s), host us: %.2f execute+sync (median), %.2f per execute "
            "call (mean); floor: 4-byte memset+sync %.2f\n",
            r->launch, r->sync_us, r->call_us, r->memset_sync_us);
    if (r->general_launch[0])
        fprintf(f, "the same, compact forms off (launch %s): %.2f execute+sync (median), %.2f per execute call (mean)\n",
                r->general_launch, r->general_sync_us, r->general_call_us);
    fprintf(f, "empty kernel, 1x1 thread, host us:");
    for (int p = 0; p < DMLS_BENCH_CUDA_PROBES; p++)
        fprintf(f, "%s %d-byte params %.2f launch+sync (median), %.2f per launch call (mean)", p ? ";" : "",
                r->probe[p].param_bytes, r->probe[p].sync_us, r->probe[p].call_us);
    fprintf(f, "\n");
}

void dmls_bench_cuda_tiny_json(FILE *f, const dmls_bench_cuda_tiny_result *r) {
    fprintf(f,
            "\"tiny_us\": {\"execute_sync_median\": %.3f, \"execute_call_mean\": %.3f, \"memset_sync_median\": %.3f",
            r->sync_us, r->call_us, r->memset_sync_us);
    if (r->general_launch[0])
        fprintf(f, ", \"general_execute_sync_median\": %.3f, \"general_execute_call_mean\": %.3f", r->general_sync_us,
                r->general_call_us);
    fprintf(f, "},\n \"tiny_launch\": \"%s\", \"tiny_general_launch\": \"%s\",\n \"empty_kernel_us\": [", r->launch,
            r->general_launch);
    for (int p = 0; p < DMLS_BENCH_CUDA_PROBES; p++)
        fprintf(f, "%s{\"param_bytes\": %d, \"launch_sync_median\": %.3f, \"launch_call_mean\": %.3f}", p ? ", " : "",
                r->probe[p].param_bytes, r->probe[p].sync_us, r->probe[p].call_us);
    fprintf(f, "]");
}
