/* dmlslice bench --device cuda; see bench.h. A host clock around an
 * asynchronous launch times the enqueue, not the kernel, so the kernel and
 * the copy beside it are timed with CUDA events. Compiled in every build;
 * without the CUDA backend it only says so. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef DMLS_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "dmlslice/dmlslice_cuda.h"

#include "cuda_check.h"

bool bench_cuda_built(void) { return true; }

bool bench_cuda_open(char *gpu, size_t gpu_size, int *sm) {
    int count = 0, major = 0, minor = 0;
    if (dmls_cuda_device_count(&count) != DMLS_OK || dmls_cuda_device_name(0, gpu, gpu_size, &major, &minor) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: --device cuda: %s\n", dmls_last_error());
        return false;
    }
    *sm = major * 10 + minor;
    return true;
}

#define CU(call) BENCH_CU("case ", c->name, call)
#define DM(call) BENCH_DM("case ", c->name, call)

typedef struct gpu_case {
    const dmls_operator *op;
    void *d_in, *d_out;
    uint64_t in_bytes, out_bytes, copy_bytes;
} gpu_case;

/* Median milliseconds of reps runs (after 3 warm-ups) of the slice
 * (copy false) or of the copy of the same bytes; < 0 on failure. */
static double time_events(const bench_case *c, const gpu_case *g, bool copy, int reps, double *times) {
    cudaEvent_t a = NULL, b = NULL;
    double result = -1;
    CU(cudaEventCreate(&a));
    CU(cudaEventCreate(&b));
    for (int i = 0; i < 3 + reps; i++) {
        CU(cudaEventRecord(a, NULL));
        if (copy) CU(cudaMemcpyAsync(g->d_out, g->d_in, g->copy_bytes, cudaMemcpyDeviceToDevice, NULL));
        else DM(dmls_execute_cuda(g->op, g->d_in, g->in_bytes, g->d_out, g->out_bytes, NULL));
        CU(cudaEventRecord(b, NULL));
        CU(cudaEventSynchronize(b));
        float ms;
        CU(cudaEventElapsedTime(&ms, a, b));
        if (i >= 3) times[i - 3] = ms;
    }
    result = bench_median(times, reps);
fail:
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    return result;
}

bool bench_cuda_case(const bench_case *c, int reps, bench_row *row) {
    memset(row, 0, sizeof *row);
    row->name = c->name;
    bool ok = false;
    dmls_operator *op = NULL;
    void *h_in = NULL, *h_out = NULL, *h_ref = NULL;
    gpu_case g = {NULL, NULL, NULL, 0, 0, 0};
    double *times = malloc(sizeof *times * (size_t)reps);
    DM(bench_create(c, &op));
    g.op = op;
    g.in_bytes = dmls_input_bytes(op), g.out_bytes = dmls_output_bytes(op);
    /* The copy moves the output's bytes out of the input buffer (a packed
     * slice's output is never larger than its input). */
    g.copy_bytes = g.out_bytes <= g.in_bytes ? g.out_bytes : g.in_bytes;
    h_in = malloc(g.in_bytes), h_out = malloc(g.out_bytes), h_ref = malloc(g.out_bytes);
    if (!times || !h_in || !h_out || !h_ref) {
        fprintf(stderr, "dmlslice bench: case %s: out of host memory\n", c->name);
        goto fail;
    }
    bench_fill(h_in, g.in_bytes, 0x9E3779B97F4A7C15ULL ^ g.in_bytes);
    CU(cudaMalloc(&g.d_in, g.in_bytes));
    CU(cudaMalloc(&g.d_out, g.out_bytes));
    CU(cudaMemcpy(g.d_in, h_in, g.in_bytes, cudaMemcpyHostToDevice));
    CU(cudaMemset(g.d_out, 0xA5, g.out_bytes));
    /* Correctness first: the GPU's output against the reference executor. */
    DM(dmls_execute_cuda(op, g.d_in, g.in_bytes, g.d_out, g.out_bytes, NULL));
    CU(cudaMemcpy(h_out, g.d_out, g.out_bytes, cudaMemcpyDeviceToHost));
    memset(h_ref, 0xA5, g.out_bytes);
    DM(dmls_execute_reference(op, h_in, g.in_bytes, h_ref, g.out_bytes));
    row->correct = memcmp(h_out, h_ref, g.out_bytes) == 0;
    row->ms = time_events(c, &g, false, reps, times);
    row->copy_ms = time_events(c, &g, true, reps, times);
    if (row->ms < 0 || row->copy_ms < 0) goto fail;
    row->out_bytes = g.out_bytes;
    row->batch = 1;
    row->timed = ok = true;
fail:
    cudaFree(g.d_in);
    cudaFree(g.d_out);
    free(h_in), free(h_out), free(h_ref), free(times);
    dmls_destroy(op);
    return ok;
}

#else

bool bench_cuda_built(void) { return false; }

bool bench_cuda_open(char *gpu, size_t gpu_size, int *sm) {
    (void)gpu, (void)gpu_size, (void)sm;
    fprintf(stderr, "dmlslice bench: this build has no CUDA backend (--device cuda)\n");
    return false;
}

bool bench_cuda_case(const bench_case *c, int reps, bench_row *row) {
    (void)c, (void)reps, (void)row;
    return false;
}

#endif
